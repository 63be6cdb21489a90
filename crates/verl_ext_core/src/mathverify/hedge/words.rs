//! Words as a reader sees them: LaTeX commands and braces skipped, look-alike letters read as Latin, hedging
//! words written as one (`perhapsnot`) segmented over the cue words.

use super::*;

/// The words of `text` as a reader sees them, lower case: LaTeX command names and braces are skipped
/// without breaking a word (`\\text{n}\\text{ot}` reads `not`), and letters that look like Latin ones
/// (Greek `ο`, Cyrillic `о`, fullwidth `ｎ`) are read as those.
pub(in crate::mathverify) fn words_of(text: &str) -> Vec<String> {
    words_at(text).into_iter().map(|(_, w)| w).collect()
}

/// [`words_of`] with the byte offset where each word ends. Single letters one mark apart that spell a cue
/// (`n o t`, `m-a-y-b-e`, `n.o.t`) are that word.
pub(super) fn words_at(text: &str) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    // The ASCII letters one mark apart that end `out` (the last [`MAX_SPELLED`] of them).
    let mut tail = String::new();
    let mut run = 0;
    each_word(text, |at, w| {
        let letter = w.len() == 1 && w.as_bytes()[0].is_ascii_alphabetic();
        let apart = out.last().is_some_and(|(end, _)| {
            at > w.len() && text.get(*end..at - w.len()).is_some_and(|gap| matches!(gap, " " | "-" | "." | "_"))
        });
        if !(letter && run > 0 && apart) {
            tail.clear();
            run = 0;
        }
        out.push((at, w.to_owned()));
        if !letter {
            return true;
        }
        run += 1;
        tail.push_str(w);
        if tail.len() > MAX_SPELLED {
            tail.remove(0);
        }
        // The letters ending here that spell a cue, the longest first: a constant amount of work per word.
        let spelled =
            (2..=run.min(tail.len())).rev().map(|n| &tail[tail.len() - n..]).find(|s| SPELLED_CUES.contains(s));
        if let Some(word) = spelled {
            let n = word.len();
            let word = word.to_owned();
            out.truncate(out.len() - n);
            out.push((at, word));
            tail.clear();
            run = 0;
        }
        true
    });
    out
}

/// Letters of the longest of [`SPELLED_CUES`].
const MAX_SPELLED: usize = {
    let (mut longest, mut k) = (0, 0);
    while k < SPELLED_CUES.len() {
        if SPELLED_CUES[k].len() > longest {
            longest = SPELLED_CUES[k].len();
        }
        k += 1;
    }
    longest
};
/// Cues a text may spell out letter by letter to hide them (`n o t`).
const SPELLED_CUES: &[&str] = &[
    "not",
    "no",
    "nor",
    "or",
    "maybe",
    "perhaps",
    "possibly",
    "probably",
    "approximately",
    "approx",
    "about",
    "around",
    "roughly",
    "least",
    "most",
    "wrong",
    "incorrect",
    "isnt",
    "never",
    "guess",
    "unsure",
];

/// Words a hedging phrase is made of besides the cues themselves (`at least`, `no more than`, `not exactly`).
pub(super) const PHRASE_WORDS: &[&str] = &[
    "at",
    "least",
    "most",
    "than",
    "to",
    "more",
    "less",
    "fewer",
    "greater",
    "smaller",
    "equal",
    "exactly",
    "quite",
    "sure",
    "is",
    "be",
    "definitely",
    "certainly",
    "really",
    "very",
];
/// Longest word tried as a phrase written without spaces (bytes).
pub(super) const MAX_GLUED: usize = 30;

/// The words of a hedging phrase written as one word (`atleast`, `upto`, `perhapsnot`, `nomorethan`, or joined by
/// an invisible character a page does not show): words of at least two letters each, every one a cue or a word of
/// [`PHRASE_WORDS`], at least one a cue. `None` for a word that is one already, or is not such
/// a phrase (`nothing`, `beat`, `into`).
pub(super) fn glued(word: &str) -> Option<Vec<&str>> {
    static WORDS: std::sync::OnceLock<std::collections::HashSet<&'static str>> = std::sync::OnceLock::new();
    static CUES: std::sync::OnceLock<std::collections::HashSet<&'static str>> = std::sync::OnceLock::new();
    let cues = CUES.get_or_init(|| {
        [NEGATIONS, NEAR_CUES, CLAUSE_DOUBTS, SENTENCE_HEDGES, &["least", "most", "than"]]
            .concat()
            .into_iter()
            .collect()
    });
    let words = WORDS.get_or_init(|| cues.iter().copied().chain(PHRASE_WORDS.iter().copied()).collect());
    if !(4..=MAX_GLUED).contains(&word.len()) || !word.bytes().all(|b| b.is_ascii_lowercase()) || words.contains(word) {
        return None;
    }
    // The segmentation into known words of two or more letters, by dynamic programming over the cut points.
    let n = word.len();
    let mut from: Vec<Option<usize>> = vec![None; n + 1];
    from[0] = Some(0);
    for end in 2..=n {
        from[end] = (0..=end - 2).rev().find(|&start| from[start].is_some() && words.contains(&word[start..end]));
    }
    from[n]?;
    let mut parts = Vec::new();
    let mut end = n;
    while end > 0 {
        let start = from[end]?;
        parts.push(&word[start..end]);
        end = start;
    }
    parts.reverse();
    (parts.len() > 1 && parts.iter().any(|p| cues.contains(p))).then_some(parts)
}

/// Calls `f` with each word of `text` as [`words_of`] reads it and the byte offset where it ends, in order,
/// until `f` returns false; the word is lent from one buffer (no allocation per word).
pub(super) fn each_word(text: &str, mut f: impl FnMut(usize, &str) -> bool) {
    // A phrase written as one word (`atleast`) is read as its words.
    let mut f = |at: usize, w: &str| match glued(w) {
        Some(parts) => parts.iter().all(|p| f(at, p)),
        None => f(at, w),
    };
    let mut word = String::new();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                // A command name is markup: skipped, and it does not end the word around it.
                while chars.peek().is_some_and(|(_, n)| n.is_ascii_alphabetic()) {
                    chars.next();
                }
            }
            '{' | '}' => {}
            c if super::super::unicode::ignorable(c) => {}
            c if is_cjk(c) => {
                if !word.is_empty() {
                    if !f(i, &word) {
                        return;
                    }
                    word.clear();
                }
                if !f(i + c.len_utf8(), c.encode_utf8(&mut [0; 4])) {
                    return;
                }
            }
            c if c.is_alphabetic() || (c == '\'' || c == '’') && !word.is_empty() => {
                word.push(if c == '’' { '\'' } else { latin(c).to_ascii_lowercase() });
            }
            // Emphasis or a math delimiter inside a word (`**n**ot`, `n*o*t`, `$n$ot`) splits nothing.
            '*' | '_' | '$' if !word.is_empty() && chars.peek().is_some_and(|&(_, n)| n.is_alphabetic() || n == c) => {}
            _ => {
                if !word.is_empty() {
                    if !f(i, &word) {
                        return;
                    }
                    word.clear();
                }
            }
        }
    }
    if !word.is_empty() {
        f(text.len(), &word);
    }
}

/// A CJK ideograph or kana: a word by itself (these scripts do not put spaces between words).
pub fn is_cjk(c: char) -> bool {
    matches!(c, '\u{3040}'..='\u{30ff}' | '\u{3400}'..='\u{4dbf}' | '\u{4e00}'..='\u{9fff}' | '\u{f900}'..='\u{faff}')
}

/// The Latin letter a character is written to look like, if any (the common Greek and Cyrillic confusables
/// and fullwidth letters); else the character.
pub(super) fn latin(c: char) -> char {
    match c {
        'ａ'..='ｚ' => char::from(b'a' + (c as u32 - 'ａ' as u32) as u8),
        'ⓐ'..='ⓩ' => char::from(b'a' + (c as u32 - 'ⓐ' as u32) as u8),
        'Ⓐ'..='Ⓩ' => char::from(b'a' + (c as u32 - 'Ⓐ' as u32) as u8),
        'Ａ'..='Ｚ' => char::from(b'a' + (c as u32 - 'Ａ' as u32) as u8),
        'ο' | 'о' | 'Ο' | 'О' => 'o',
        'α' | 'а' | 'Α' | 'А' => 'a',
        'е' | 'Е' | 'ε' | 'Ε' => 'e',
        'і' | 'І' | 'ι' | 'Ι' => 'i',
        'ѕ' | 'Ѕ' => 's',
        'т' | 'Т' | 'τ' | 'Τ' => 't',
        'η' | 'Η' | 'Н' | 'п' => 'n',
        'р' | 'Р' | 'ρ' | 'Ρ' => 'p',
        'с' | 'С' => 'c',
        'у' | 'У' => 'y',
        'х' | 'Х' | 'χ' | 'Χ' => 'x',
        'ν' | 'Ν' => 'v',
        'κ' | 'Κ' | 'к' | 'К' => 'k',
        'м' | 'М' | 'Μ' => 'm',
        'в' | 'В' | 'Β' => 'b',
        'г' => 'r',
        'ԁ' => 'd',
        'һ' => 'h',
        'ӏ' => 'l',
        'ԛ' => 'q',
        'ԝ' => 'w',
        // Modifier letters drawn as small Latin ones (`ⁿᵒᵗ`).
        'ᵃ' => 'a',
        'ᵇ' => 'b',
        'ᶜ' => 'c',
        'ᵈ' => 'd',
        'ᵉ' => 'e',
        'ᶠ' => 'f',
        'ᵍ' => 'g',
        'ʰ' => 'h',
        'ⁱ' => 'i',
        'ʲ' => 'j',
        'ᵏ' => 'k',
        'ˡ' => 'l',
        'ᵐ' => 'm',
        'ⁿ' => 'n',
        'ᵒ' => 'o',
        'ᵖ' => 'p',
        'ʳ' => 'r',
        'ˢ' => 's',
        'ᵗ' => 't',
        'ᵘ' => 'u',
        'ᵛ' => 'v',
        'ʷ' => 'w',
        'ˣ' => 'x',
        'ʸ' => 'y',
        'ᶻ' => 'z',
        // Letters of other alphabets drawn as Latin ones (`ɑbout`, `mayЬe`, `ıs`).
        'ɑ' | 'ɐ' => 'a',
        'Ь' | 'ь' | 'Ƅ' => 'b',
        'ϲ' | 'Ϲ' => 'c',
        'ҽ' | 'ɛ' => 'e',
        'ɡ' | 'ց' => 'g',
        'հ' => 'h',
        'ı' | 'ɩ' => 'i',
        'ј' | 'ϳ' => 'j',
        'ǀ' | 'ℓ' | 'Ӏ' => 'l',
        'ո' => 'n',
        'օ' => 'o',
        'զ' => 'q',
        'υ' | 'ս' | 'ʋ' => 'u',
        'ѵ' => 'v',
        'ѡ' => 'w',
        // Mathematical bold, italic, script, … letters (`𝐧𝐨𝐭`): 52 to an alphabet, capitals first.
        '\u{1D400}'..='\u{1D6A3}' => char::from(b'a' + ((c as u32 - 0x1D400) % 52 % 26) as u8),
        // Small capitals (`ɴᴏᴛ`).
        'ᴀ' => 'a',
        'ʙ' => 'b',
        'ᴄ' => 'c',
        'ᴅ' => 'd',
        'ᴇ' => 'e',
        'ꜰ' => 'f',
        'ɢ' => 'g',
        'ʜ' => 'h',
        'ɪ' => 'i',
        'ᴊ' => 'j',
        'ᴋ' => 'k',
        'ʟ' => 'l',
        'ᴍ' => 'm',
        'ɴ' => 'n',
        'ᴏ' => 'o',
        'ᴘ' => 'p',
        'ʀ' => 'r',
        'ꜱ' => 's',
        'ᴛ' => 't',
        'ᴜ' => 'u',
        'ᴠ' => 'v',
        'ᴡ' => 'w',
        'ʏ' => 'y',
        'ᴢ' => 'z',
        _ => c,
    }
}

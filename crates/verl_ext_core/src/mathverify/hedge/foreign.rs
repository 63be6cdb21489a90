//! Bounds and hedges in other languages: Chinese and Japanese words around a value, Russian and European ones.

use super::*;

/// Chinese words that bound or hedge the value right after them (`约180`, `至少180`, `180或181`'s `或`).
pub(super) const CJK_BEFORE: &[&str] = &[
    "约",
    // Japanese and Korean "about".
    "約",
    "약",
    "大约",
    "大概",
    "至少",
    "最少",
    "至多",
    "最多",
    "不少于",
    "不多于",
    "不超过",
    "超过",
    "不到",
    "少于",
    "多于",
    "大于",
    "小于",
    "或",
    "或者",
    "可能",
    "也许",
    "将近",
    "接近",
    "近",
    // Japanese.
    "およそ",
    "たぶん",
    "多分",
    "おそらく",
    "少なくとも",
    "ほぼ",
    "估计",
    "预计",
    // Korean "at least", "at most", "at minimum", "maybe".
    "적어도",
    "최소",
    "최대",
    "아마",
    "推测",
    "予想",
    "推定",
    "대략",
];
/// Chinese words that bound or hedge the value right before them (`180左右`, `180多`, `180或181`).
pub(super) const CJK_AFTER: &[&str] = &[
    "或",
    "左右",
    "以上",
    "以下",
    "多",
    "余",
    "上下",
    "附近",
    "吗",
    "？",
    "到",
    "至",
    "~",
    "之间",
    "不对",
    "错",
    // Japanese: `4未満`, `4くらい`, `4か5`, `違います`.
    "未満",
    "以内",
    "あたり",
    "くらい",
    "ぐらい",
    "程度",
    "前後",
    "超",
    "違",
    "間違",
    "例えば",
    "前后",
    "정도",
    "이상",
    "이하",
    "쯤",
    "가량",
    "또는",
    "または",
    "หรือ",
    "及以上",
    "或以上",
];
/// Words of those languages that doubt or deny the value right before them, read also inside an opening bracket
/// (`42 (也许)`, `42 ではない`, `42 (아마)`).
pub(super) const CJK_DOUBTS_AFTER: &[&str] = &[
    "大概",
    "可能",
    "也许",
    "或许",
    "吧",
    "大约",
    "たぶん",
    "多分",
    "おそらく",
    "かも",
    "아마",
    "ではない",
    "じゃない",
    "아님",
    "아니",
    "이 아니",
    "가 아니",
    "也可能",
    "或者",
    "或",
    "还是",
    "あるいは",
    "または",
    "もしくは",
    "혹은",
    "또는",
];
/// Russian words before a value that bound or hedge it (`около 5`, `не 5`, `не менее 5`).
pub(super) const RU_BEFORE: &[&str] = &[
    "бы",
    "порядка",
    "не",
    "около",
    "примерно",
    "приблизительно",
    "почти",
    "более",
    "менее",
    "больше",
    "меньше",
    "минимум",
    "максимум",
    "свыше",
    "или",
    "наверное",
    "возможно",
];
/// Russian words after a value that bound or hedge it (`5 или 6`, `5 примерно`).
pub(super) const RU_AFTER: &[&str] = &[
    "или",
    "примерно",
    "приблизительно",
    "с лишним",
    "и более",
    "и менее",
    "наверное",
    "ли",
    "может",
    "возможно",
    "вероятно",
    "наверно",
];
/// French, German, Spanish, Italian and Portuguese words before a value that bound or hedge it (`au moins 5`,
/// `vielleicht 5`), matched as the last word before it.
pub(super) const EU_BEFORE: &[&str] = &[
    "około",
    "okolo",
    "vielleicht",
    "quizás",
    "quizá",
    "forse",
    "talvez",
    "environ",
    "ungefähr",
    "etwa",
    "aproximadamente",
    "mindestens",
    "höchstens",
    "moins",
    "menos",
    "almeno",
    "peut-être",
    "über",
    "quase",
    "prawie",
    "ponad",
    "casi",
    "presque",
    "quasi",
    // "About" in Greek, Turkish, Indonesian, Vietnamese, Thai, Arabic, Hebrew, Hindi; "at least" in Hebrew, Thai,
    // Indonesian; "not" before a value in Indonesian, Thai, Arabic, Hebrew, Swedish, Hungarian, German, Polish,
    // Portuguese, Italian, Czech, Finnish (not French `pas`: `Nombre de pas : 42`).
    "περίπου",
    "yaklaşık",
    "sekitar",
    "khoảng",
    "ประมาณ",
    "حوالي",
    "בערך",
    "लगभग",
    "circa",
    "לפחות",
    "setidaknya",
    "bukan",
    "ليس",
    "לא",
    "inte",
    "nem",
    "nicht",
    "nie",
    "não",
    "non",
    "ne",
    "ei",
];
/// The same languages' words right after a value (`5 ou 6`, `5 oder mehr`, `5 environ`).
pub(super) const EU_AFTER: &[&str] =
    &["plus", "mehr", "más", "mas", "moins", "weniger", "menos", "environ", "ungefähr", "etwa", "değil", "नहीं"];
/// Phrases of more languages right after a value that bound it (`5 oder mehr`, `5 ou plus`, `5 o más`).
pub(super) const PHRASES_AFTER: &[&str] = &[
    "oder mehr",
    "oder weniger",
    "ou plus",
    "ou moins",
    "ou mais",
    "ou menos",
    "o más",
    "o mas",
    "o menos",
    "o più",
    "o meno",
    "lub więcej",
    "lub mniej",
    "veya daha",
    "ya da daha",
    "atau lebih",
    "hoặc hơn",
    "trở lên",
    "або більше",
    "или больше",
    "или меньше",
    "of meer",
    "of minder",
    "eller mer",
    "eller mindre",
];
/// Words of more languages for "maybe" right after a value, also inside an opening bracket (`5 (vielleicht)`).
pub(super) const DOUBTS_AFTER: &[&str] = &[
    "vielleicht",
    "peut-être",
    "peut être",
    "forse",
    "talvez",
    "tal vez",
    "quizás",
    "quizá",
    "quizas",
    "quiza",
    "mungkin",
    "belki",
    "misschien",
    "kanskje",
    "kanske",
    "måske",
    "ehkä",
    "może",
    "możliwe",
    "ربما",
    "אולי",
    "शायद",
    "probablement",
    "wahrscheinlich",
    "probabilmente",
    "provavelmente",
    "probablemente",
    "có lẽ",
    "อาจจะ",
    "может",
    "возможно",
    "наверное",
    "наверно",
    "вероятно",
    "شاید",
    "muhtemelen",
    "galiba",
    "sanırım",
    "sepertinya",
    "也许",
    "可能",
];
/// Phrases of those languages that bound or approximate the value after them (`cerca de 5`, `más de 5`, `plus de 5`,
/// `mehr als 5`).
pub(super) const EU_PHRASES_BEFORE: &[&str] = &[
    "cerca de",
    "alrededor de",
    "acerca de",
    "más de",
    "mas de",
    "menos de",
    "mais de",
    "plus de",
    "au plus",
    "au moins",
    "como máximo",
    "como mínimo",
    "co najmniej",
    "co najwyżej",
    "en az",
    "en fazla",
    "en çok",
    "ít nhất",
    "nhiều nhất",
    "tối thiểu",
    "tối đa",
    "paling sedikit",
    "paling banyak",
    "على الأقل",
    "على الأكثر",
    "कम से कम",
    // Thai words with tone marks, which are no letters to a word split: matched as written.
    "อย่างน้อย",
    "ไม่ใช่",
    "không phải",
    "δεν είναι",
    "n'est pas",
    "ist nicht",
    "no es",
    "não é",
    "non è",
    "nie jest",
    "moins de",
    "più di",
    "piu di",
    "meno di",
    "mehr als",
    "weniger als",
];
/// Their words for `or`, which offer another value only before a number (`5 ou 6`; `12 o doce` restates it).
pub(super) const EU_OR: &[&str] = &[
    "ou", "oder", "o", "a", "à", "atau", "либо", "oppure", "albo", "lub", "vel", "ή", "hoặc", "hay", "या", "eller",
    "tai", "או", "ya", "anders",
];
/// Does `text` open with another language's word for maybe ([`DOUBTS_AFTER`], [`CJK_DOUBTS_AFTER`])? Read right
/// after an answer, in a bracket after it, or in the clause after its comma (`5, vermutlich`, `5，可能吧`).
pub(super) fn foreign_doubt(text: &str) -> bool {
    let lower = text.trim_start_matches(['(', '（', '[', ' ']).to_lowercase();
    CJK_DOUBTS_AFTER.iter().any(|c| lower.starts_with(c)) || starts_with_phrase(&lower, DOUBTS_AFTER)
}

/// Does `t` start with one of `phrases` as whole words (no letter right after it)?
fn starts_with_phrase(t: &str, phrases: &[&str]) -> bool {
    phrases.iter().any(|p| t.strip_prefix(p).is_some_and(|r| !r.starts_with(|c: char| c.is_alphabetic())))
}

/// Characters of the clause before a value in which a Chinese cue is looked for.
pub(super) const CJK_WINDOW: usize = 4;

/// A Chinese or Russian hedge, bound or alternative right around a value (`before` ends at it, `after` starts
/// after it).
pub(super) fn foreign_hedge(before: &str, after: &str) -> Option<&'static str> {
    let before = strip_markup_end(before);
    let tail: String = {
        let chars: Vec<char> = before.chars().rev().take(CJK_WINDOW).collect();
        chars.into_iter().rev().collect()
    };
    let after = strip_markup_start(after);
    // A cue longer than the window (`少なくとも`) right before the value.
    let ends = CJK_BEFORE.iter().any(|c| c.chars().count() > CJK_WINDOW && before.ends_with(c));
    if ends || CJK_BEFORE.iter().any(|c| tail.contains(c)) || CJK_AFTER.iter().any(|c| after.starts_with(c)) {
        return Some("bounded, hedged or one of several (Chinese words around the answer)");
    }
    // `5 (vielleicht)`, `5（也许）`: also in a bracket right after the value.
    if foreign_doubt(after) {
        return Some("bounded, hedged or one of several (a word for maybe after the answer)");
    }
    let lower_before = before.to_lowercase();
    let last_word = lower_before.rsplit(|c: char| !c.is_alphabetic()).find(|w| !w.is_empty()).unwrap_or("");
    let lower_after = after.to_lowercase();
    let first_words = lower_after.trim_start();
    let ru_after = starts_with_phrase(first_words, RU_AFTER);
    if starts_with_phrase(first_words, PHRASES_AFTER) {
        return Some("bounded, hedged or one of several (a bound after the answer)");
    }
    if RU_BEFORE.contains(&last_word) || ru_after {
        return Some("bounded, hedged or one of several (Russian words around the answer)");
    }
    let eu_last = if lower_before.trim_end().ends_with("peut-être") { "peut-être" } else { last_word };
    // Phrases (`cerca de 5`, `más de 5`).
    if EU_PHRASES_BEFORE.iter().any(|p| lower_before.trim_end().ends_with(p)) {
        return Some("bounded, hedged or one of several (French, German, Spanish, Italian or Portuguese words)");
    }
    let next_word = first_words.split(|c: char| !c.is_alphabetic()).next().unwrap_or("");
    let past_or = first_words[next_word.len()..].trim_start();
    let filler = past_or.split(|c: char| !c.is_alphabetic()).next().unwrap_or("");
    let past_or = if JOINER_FILLERS.contains(&filler) { &past_or[filler.len()..] } else { past_or };
    // (Dutch `of` is not read: `\\boxed{12} of 30` is 12 out of 30.)
    let or_number =
        EU_OR.contains(&next_word) && past_or.trim_start_matches([' ', '$']).starts_with(|c: char| c.is_ascii_digit());
    if EU_BEFORE.contains(&eu_last) || EU_AFTER.contains(&next_word) || or_number {
        return Some("bounded, hedged or one of several (French, German, Spanish, Italian or Portuguese words)");
    }
    None
}

//! Answers in a structured record (`{"answer": 42, "alt": 43}`, `{"answer_exclusive": 42, "answer": 43}`): a record
//! that holds another number in a field named as an answer offers both, whichever field is read; other fields
//! (`"confidence": 0.9`, `"steps": 3`, `"id": 17`) are about the answer, not answers.

use super::extract::Candidate;

/// Words of a field's name that make its value an answer (`answer_inclusive`, `alt`, `finalResult`).
const ANSWER_KEYS: &[&str] =
    &["answer", "alt", "alternative", "result", "final", "solution", "other", "second", "guess", "candidate"];
/// Words of a field's name that make it about the work, not an answer (`intermediate_result`, `num_answers`).
const WORK_KEYS: &[&str] = &["intermediate", "partial", "step", "steps", "num", "count", "checked", "considered"];

/// The `"key": value` fields of `record` (a JSON object's inside): each key without its quotes and its value, as
/// byte ranges of `record`; a quoted value without its quotes.
fn fields(record: &str) -> Vec<((usize, usize), (usize, usize))> {
    let b = record.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    // A string from the quote at `i`: where its content ends and where the text after it starts (the record's end
    // when no quote closes it).
    let string_end = |i: usize| {
        let mut j = i + 1;
        while j < b.len() && b[j] != b'"' {
            j += if b[j] == b'\\' { 2 } else { 1 };
        }
        if j < b.len() {
            (j, j + 1)
        } else {
            (b.len(), b.len())
        }
    };
    while i < b.len() {
        if b[i] != b'"' {
            i += 1;
            continue;
        }
        let (key_close, key_end) = string_end(i);
        let key = (i + 1, key_close);
        let mut j = key_end;
        while j < b.len() && b[j].is_ascii_whitespace() {
            j += 1;
        }
        if b.get(j) != Some(&b':') {
            i = key_end;
            continue;
        }
        j += 1;
        while j < b.len() && b[j].is_ascii_whitespace() {
            j += 1;
        }
        let (start, end, next) = if b.get(j) == Some(&b'"') {
            let (end, next) = string_end(j);
            (j + 1, end, next)
        } else {
            let end = j + record[j..].find([',', '\n']).unwrap_or(record.len() - j);
            (j, end, end)
        };
        out.push((key, (start, end)));
        i = next.max(i + 1);
    }
    out
}

/// Longest string field read as an answer (bytes of its JSON text), and longest key.
const MAX_STRING_FIELD: usize = 200;
const MAX_KEY: usize = 40;
/// Words of the name of a field that holds the answer itself.
const ANSWER_FIELD_WORDS: &[&str] = &["answer", "final", "correct", "value", "my", "the"];

/// The value of a JSON string field whose key holds the word at `at..from` (`{"answer": "\\\\frac{1}{2}"}`,
/// `{"final_answer": "(2, 3)"}`): its content's byte range in `text` and the content decoded (`\\\\` is one
/// backslash, `\\"` a quote), when the key is a name (letters, digits, `_`, `-`) in quotes and the value a string
/// that closes within [`MAX_STRING_FIELD`] bytes on its line.
pub fn string_field(text: &str, at: usize, from: usize) -> Option<(usize, usize, String)> {
    let name = |c: &u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-');
    // The key's quotes, within a key's length of the word (a long run of letters is not a key).
    let b = text.as_bytes();
    let open = at - b[at.saturating_sub(MAX_KEY)..at].iter().rev().take_while(|c| name(c)).count();
    let close = from + b[from..b.len().min(from + MAX_KEY)].iter().take_while(|c| name(c)).count();
    if open == 0 || b[open - 1] != b'"' || b.get(close) != Some(&b'"') || close - open > MAX_KEY {
        return None;
    }
    // The answer itself (`answer`, `final_answer`, `correctAnswer`), not a field about it (`answer_type`).
    if !key_words(&text[open..close]).iter().all(|w| ANSWER_FIELD_WORDS.contains(&w.as_str())) {
        return None;
    }
    let key_tail = &text[close..];
    let value = key_tail[1..].trim_start_matches([' ', '\t']).strip_prefix(':')?.trim_start_matches([' ', '\t']);
    let value = value.strip_prefix('"')?;
    let start = text.len() - value.len();
    let mut decoded = String::new();
    let mut chars = value.char_indices();
    while let Some((i, c)) = chars.next() {
        if i > MAX_STRING_FIELD || c == '\n' {
            return None;
        }
        match c {
            '"' => return Some((start, start + i, decoded)),
            '\\' => match chars.next()?.1 {
                'n' | 't' => decoded.push(' '),
                // `\\u` escapes are left as written: they are not how a model writes LaTeX.
                'u' => return None,
                other => decoded.push(other),
            },
            _ => decoded.push(c),
        }
    }
    None
}

/// The words of a field's name, lower case (`answer_inclusive`, `alt-answer`, `finalResult`, `time seconds`).
fn key_words(key: &str) -> Vec<String> {
    let mut words = vec![String::new()];
    let mut previous_lower = false;
    for c in key.chars() {
        if !c.is_alphanumeric() {
            words.push(String::new());
        } else {
            if c.is_uppercase() && previous_lower {
                words.push(String::new());
            }
            words.last_mut().into_iter().for_each(|w| w.extend(c.to_lowercase()));
        }
        previous_lower = c.is_lowercase();
    }
    words.retain(|w| !w.is_empty());
    words
}

/// Is a number (`43`, `-4.5`, `1/2`, `1e3`) all of `value`? Not a computation written out (`"2 / 2"` in a field of
/// reasoning).
fn number(value: &str) -> bool {
    let v = value.trim();
    let numeric = |s: &str| !s.contains(char::is_whitespace) && s.parse::<f64>().is_ok_and(f64::is_finite);
    numeric(v) || v.split_once('/').is_some_and(|(a, b)| numeric(a) && numeric(b))
}

/// Does the record around `chosen` (a `{…}` with `"key": value` fields, not nested) hold another number than it?
pub fn several_in_record(text: &str, chosen: &Candidate) -> Option<&'static str> {
    let open = text[..chosen.start].rfind('{')?;
    if text[open..chosen.start].contains('}') {
        return None;
    }
    let close = chosen.end + text[chosen.end..].find('}')?;
    if text[chosen.end..close].contains('{') {
        return None;
    }
    let record = &text[open + 1..close];
    if !record.contains('"') || !record.contains(':') {
        return None;
    }
    let base = open + 1;
    let answer_key = |k: &str| {
        let words = key_words(k);
        // `value`, `option` alone name an answer; in a longer name (`percentage_value`, `num_options`) they do not.
        let alone = matches!(words.as_slice(), [w] if matches!(w.as_str(), "value" | "option" | "choice"));
        alone
            || words.iter().any(|w| ANSWER_KEYS.contains(&w.as_str()))
                && !words.iter().any(|w| WORK_KEYS.contains(&w.as_str()))
    };
    fields(record)
        .into_iter()
        .filter(|&(_, (s, e))| !(base + s <= chosen.start && chosen.start < base + e.max(s + 1)))
        .filter(|&((ks, ke), _)| answer_key(&record[ks..ke]))
        .map(|((ks, ke), (s, e))| (&record[ks..ke], record[s..e].trim()))
        // A number, a tuple or interval, or a choice letter in a field named `answer…` (`"answer": "B",
        // "answer_value": "30"`; not `"option": "B"`, `"alt_id": "B"`, which name an option, not another answer).
        .filter(|(k, v)| {
            number(v)
                || v.starts_with(['(', '[']) && super::extract::parses(v)
                || v.len() == 1
                    && v.chars().all(|c| c.is_ascii_uppercase())
                    && key_words(k).iter().any(|w| w == "answer")
        })
        .map(|(_, v)| v)
        .any(|v| !super::math_equal(v, &chosen.text).equal)
        .then_some("one of several values in a record")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_of_a_record() {
        let r = r#""answer": "42", "alt": 43, "note": "a \"quoted\" word""#;
        let values: Vec<(&str, &str)> = fields(r).into_iter().map(|((a, b), (s, e))| (&r[a..b], &r[s..e])).collect();
        assert_eq!(values, [("answer", "42"), ("alt", "43"), ("note", r#"a \"quoted\" word"#)]);
        assert!(number(" -4.5 ") && number("1/2") && !number("inf") && !number("4 cm") && !number("2 / 2"));
        assert!(fields(r#""unterminated"#).is_empty());
        assert_eq!(key_words("finalResult_2 x-y"), ["final", "result", "2", "x", "y"]);
        assert_eq!(fields(r#""k": "#).len(), 1);
    }

    #[test]
    fn string_fields_are_decoded() {
        fn field(t: &str) -> Option<(&str, String)> {
            let at = t.find("answer")?;
            string_field(t, at, at + 6).map(|(s, e, v)| (&t[s..e], v))
        }
        assert_eq!(field(r#"{"answer": "\\frac{1}{2}"}"#), Some((r#"\\frac{1}{2}"#, r"\frac{1}{2}".to_owned())));
        assert_eq!(field(r#"{"final_answer" :"(2, 3)", "x": 1}"#), Some(("(2, 3)", "(2, 3)".to_owned())));
        assert_eq!(field(r#"{"answer": 42}"#), None);
        assert_eq!(field(r#"{"answer_type": "integer"}"#), None);
        assert!(field(r#"{"correct_answer": "12"}"#).is_some());
        assert_eq!(field(r#"The "answer" is "5""#), None);
        assert_eq!(field(r#"{"answer": "5"#), None);
        assert_eq!(field(r#"{"answer": "\u0035"}"#), None);
    }
}

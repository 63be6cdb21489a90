//! Answers in a structured record (`{"answer": 42, "alt": 43}`, `{"answer_exclusive": 42, "answer": 43}`): a record
//! that holds another number besides the answer offers both, whichever field is read.

use super::extract::Candidate;

/// Fields read in one record, at most: a record with more around an answer is too large to read.
const MAX_FIELDS: usize = 64;

/// The values of the `"key": value` fields of `record` (a JSON object's inside), as byte ranges of `record`; a
/// quoted value without its quotes.
fn field_values(record: &str) -> Vec<(usize, usize)> {
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
    while i < b.len() && out.len() <= MAX_FIELDS {
        if b[i] != b'"' {
            i += 1;
            continue;
        }
        let (_, key_end) = string_end(i);
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
        out.push((start, end));
        i = next.max(i + 1);
    }
    out
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
    let fields = field_values(record);
    if fields.len() > MAX_FIELDS {
        return Some("a record too large to read");
    }
    fields
        .into_iter()
        .filter(|&(s, e)| !(base + s <= chosen.start && chosen.start < base + e.max(s + 1)))
        .map(|(s, e)| record[s..e].trim())
        .filter(|v| number(v))
        .any(|v| !super::math_equal(v, &chosen.text).equal)
        .then_some("one of several values in a record")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_of_a_record() {
        let r = r#""answer": "42", "alt": 43, "note": "a \"quoted\" word""#;
        let values: Vec<&str> = field_values(r).into_iter().map(|(s, e)| &r[s..e]).collect();
        assert_eq!(values, ["42", "43", r#"a \"quoted\" word"#]);
        assert!(number(" -4.5 ") && number("1/2") && !number("inf") && !number("4 cm") && !number("2 / 2"));
        assert!(field_values(r#""unterminated"#).is_empty());
        assert_eq!(field_values(r#""k": "#).len(), 1);
    }
}

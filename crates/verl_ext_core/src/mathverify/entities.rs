//! HTML character references in a model's text (`&gt;=`, `&ge;`, `&#8805;`, `&minus;`), decoded before the
//! answer is looked for: a page renders them as the relation or sign they name, so the reading around an
//! answer must see that relation too (`x &ge; \boxed{5}` is a bound). One pass, never recursive (`&amp;gt;`
//! is `&gt;`), linear in the input; a decoded reference is never longer than the reference.

use std::borrow::Cow;

/// Longest reference read (`&#x10FFFF;` is 10 bytes).
const MAX_REFERENCE: usize = 10;

/// Named references a math answer may hold, with what they render as.
const NAMED: &[(&str, &str)] = &[
    ("gt", ">"),
    ("lt", "<"),
    ("ge", "≥"),
    ("le", "≤"),
    ("geq", "≥"),
    ("leq", "≤"),
    ("ne", "≠"),
    ("approx", "≈"),
    ("asymp", "≍"),
    ("sim", "∼"),
    ("minus", "−"),
    ("plusmn", "±"),
    ("mp", "∓"),
    ("times", "×"),
    ("divide", "÷"),
    ("middot", "·"),
    ("amp", "&"),
    ("nbsp", " "),
    ("thinsp", " "),
    ("deg", "°"),
    ("pi", "π"),
    ("infin", "∞"),
    ("radic", "√"),
    ("frac12", "½"),
    ("frac14", "¼"),
    ("frac34", "¾"),
    ("ndash", "–"),
    ("mdash", "—"),
    ("quot", "\""),
    ("apos", "'"),
    ("percnt", "%"),
    ("dollar", "$"),
];

/// The text with its HTML character references decoded; borrowed when it has none.
pub fn decode(s: &str) -> Cow<'_, str> {
    if !s.contains('&') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let at = &rest[amp..];
        match reference(at) {
            Some((len, text)) => {
                out.push_str(&text);
                rest = &at[len..];
            }
            None => {
                out.push('&');
                rest = &at[1..];
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// The reference at the start of `at` (which starts with `&`): its length and what it renders as.
fn reference(at: &str) -> Option<(usize, String)> {
    let window = &at.as_bytes()[..at.len().min(MAX_REFERENCE + 1)];
    let end = window.iter().position(|&b| b == b';')?;
    let name = std::str::from_utf8(&window[1..end]).ok()?;
    let text = match name.strip_prefix('#') {
        Some(number) => {
            let code = match number.strip_prefix(['x', 'X']) {
                Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                None => number.parse::<u32>().ok()?,
            };
            // A control character is no text a page shows.
            char::from_u32(code).filter(|c| !c.is_control() || c.is_whitespace())?.to_string()
        }
        None => NAMED.iter().find(|(n, _)| *n == name)?.1.to_owned(),
    };
    Some((end + 1, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_are_decoded_once() {
        assert_eq!(decode("x &gt;= 5"), "x >= 5");
        assert_eq!(decode("x &ge; 5 and &#8805; 6 and &#x2265; 7"), "x ≥ 5 and ≥ 6 and ≥ 7");
        assert_eq!(decode("&minus;5 &amp;gt; 3"), "−5 &gt; 3");
        assert_eq!(decode("AT&T & co &unknown; &#0; &#xZZ; &"), "AT&T & co &unknown; &#0; &#xZZ; &");
        assert_eq!(decode("&#1114112;"), "&#1114112;");
        assert!(matches!(decode("no references"), Cow::Borrowed(_)));
        // Never longer than the reference it replaces.
        for (name, text) in NAMED {
            assert!(text.len() <= name.len() + 2, "{name}");
        }
    }
}

//! Python `str` semantics that verl's scorers depend on, on Rust `&str`.
//!
//! Python indexes strings by code point and uses its own Unicode predicates; these helpers make
//! the Rust ports agree with CPython character for character.

mod pyunicode;

use pyunicode::{PY_ISDIGIT, PY_ISSPACE};

fn in_ranges(table: &[(u32, u32)], c: char) -> bool {
    let cp = c as u32;
    table
        .binary_search_by(|&(lo, hi)| {
            if hi < cp {
                std::cmp::Ordering::Less
            } else if lo > cp {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// `c.isspace()` in CPython (also what `str.strip()` and regex `\s` use).
pub fn is_py_space(c: char) -> bool {
    in_ranges(PY_ISSPACE, c)
}

/// `c.isdigit()` in CPython (Numeric_Type Digit or Decimal).
pub fn is_py_digit(c: char) -> bool {
    in_ranges(PY_ISDIGIT, c)
}

/// `s.isdigit()`: non-empty and every character a digit.
pub fn py_isdigit(s: &str) -> bool {
    !s.is_empty() && s.chars().all(is_py_digit)
}

/// `s.strip()` with no argument.
pub fn py_strip(s: &str) -> &str {
    s.trim_matches(is_py_space)
}

/// `s[-n:]` for `n > 0`: the last `n` characters (code points), or all of `s`.
pub fn last_chars(s: &str, n: usize) -> &str {
    debug_assert!(n > 0, "s[-0:] is the whole string in Python; callers never ask for it");
    if s.len() <= n {
        return s; // at most n bytes, so at most n characters
    }
    // Count character starts (non-continuation bytes) from the end; no UTF-8 decoding needed.
    let bytes = s.as_bytes();
    let mut seen = 0;
    for i in (0..bytes.len()).rev() {
        if bytes[i] & 0xC0 != 0x80 {
            seen += 1;
            if seen == n {
                return &s[i..];
            }
        }
    }
    s
}

/// `s = s.replace(from, to)`, allocating only when `from` occurs (verl chains dozens of these).
pub fn replace_in_place(s: &mut String, from: &str, to: &str) {
    if s.contains(from) {
        *s = s.replace(from, to);
    }
}

/// `s.rfind(needle)` for a needle known in advance: SIMD forward search (memchr's reverse search
/// has no SIMD path), keeping the last hit. Solutions are kilobytes long, so this matters.
pub fn rfind_with(finder: &memchr::memmem::Finder<'_>, s: &str) -> Option<usize> {
    finder.find_iter(s.as_bytes()).last()
}

/// verl's brace matcher: scanning from byte `start`, the index of the `}` that brings the count of
/// open braces (`{` +1, `}` -1, starting at 0) back to exactly 0, if any.
pub fn balanced_close(s: &str, start: usize) -> Option<usize> {
    let bytes = &s.as_bytes()[start..];
    let mut open = 0i64;
    for i in memchr::memchr2_iter(b'{', b'}', bytes) {
        if bytes[i] == b'{' {
            open += 1;
        } else {
            open -= 1;
            if open == 0 {
                return Some(start + i);
            }
        }
    }
    None
}

/// Number of code points, as Python's `len(s)`.
pub fn char_len(s: &str) -> usize {
    s.chars().count()
}

/// Largest digit count `int(str)` accepts in CPython >= 3.11 by default (`sys.get_int_max_str_digits()`).
const PY_INT_MAX_STR_DIGITS: usize = 4300;

/// True when `s` is exactly what `str(int(s))` gives back, i.e. a canonical ASCII integer
/// (`0`, `7`, `-12`; not `+1`, `01`, `-0`, ` 1`, `1_0`) that CPython's `int()` would accept.
pub fn is_canonical_py_int(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    if digits.is_empty() || digits.len() > PY_INT_MAX_STR_DIGITS || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    if digits == "0" {
        return s == "0";
    }
    !digits.starts_with('0')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_whitespace_includes_information_separators() {
        for c in ['\u{1c}', '\u{1d}', '\u{1e}', '\u{1f}', '\u{85}', '\u{a0}', '\u{3000}', ' ', '\t'] {
            assert!(is_py_space(c), "{c:?}");
        }
        for c in ['\u{180e}', '\u{200b}', 'a', '0'] {
            assert!(!is_py_space(c), "{c:?}");
        }
    }

    #[test]
    fn python_digits_cover_superscripts_and_other_scripts() {
        assert!(py_isdigit("0123456789"));
        assert!(py_isdigit("\u{b2}\u{663}"));
        assert!(!py_isdigit(""));
        assert!(!py_isdigit("\u{bd}")); // vulgar fraction one half: numeric, not a digit
        assert!(!py_isdigit("1.5"));
    }

    #[test]
    fn last_chars_counts_code_points() {
        assert_eq!(last_chars("héllo", 4), "éllo");
        assert_eq!(last_chars("ab", 5), "ab");
        assert_eq!(last_chars("a😀b", 2), "😀b");
    }

    #[test]
    fn canonical_int_matches_str_int_roundtrip() {
        for ok in ["0", "7", "-12", "100"] {
            assert!(is_canonical_py_int(ok), "{ok}");
        }
        for bad in ["", "-", "-0", "01", "+1", " 1", "1_0", "1.0", "\u{663}"] {
            assert!(!is_canonical_py_int(bad), "{bad}");
        }
        assert!(is_canonical_py_int(&"1".repeat(4300)));
        assert!(!is_canonical_py_int(&"1".repeat(4301)));
        assert!(is_canonical_py_int(&format!("-{}", "1".repeat(4300))));
    }
}

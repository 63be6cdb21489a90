//! Python `str` <-> Rust `String`, including strings with lone surrogates.
//!
//! A Python `str` may hold lone surrogates (U+D800..U+DFFF), which Rust strings cannot. They are
//! mapped one-to-one onto the last 2048 code points of plane 16 (U+10F800..U+10FFFF), which no
//! verl scorer treats specially, and mapped back in returned text. A string that has surrogates
//! *and* characters of that range is refused, since the mapping would be ambiguous.

use std::borrow::Cow;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use crate::errors::exception;

const SURROGATE_LO: u32 = 0xD800;
const SURROGATE_HI: u32 = 0xDFFF;
const MAPPED_LO: u32 = 0x10F800;

fn is_mapped(c: char) -> bool {
    (c as u32) >= MAPPED_LO
}

/// Text pulled out of a Python object: borrowed from the `str` when it is valid UTF-8.
pub struct Text<'a> {
    pub text: Cow<'a, str>,
    /// Whether lone surrogates were mapped (results must be mapped back).
    pub mapped: bool,
}

/// `Some(text)` for a `str` (or subclass), `None` for any other type.
pub fn extract_text<'a>(obj: &'a Bound<'_, PyAny>) -> PyResult<Option<Text<'a>>> {
    let Ok(s) = obj.cast::<PyString>() else {
        return Ok(None);
    };
    if let Ok(text) = s.to_str() {
        return Ok(Some(Text { text: Cow::Borrowed(text), mapped: false }));
    }
    let encoded = s.call_method1("encode", ("utf-8", "surrogatepass"))?;
    let bytes = encoded.cast::<PyBytes>()?.as_bytes();
    let text = decode_surrogatepass(bytes);
    if text.chars().any(is_mapped) && has_original_mapped_range(bytes) {
        return Err(exception(
            obj.py(),
            "InvalidInputError",
            "string has both lone surrogates and characters U+10F800..U+10FFFF; cannot score it".into(),
        ));
    }
    Ok(Some(Text { text: Cow::Owned(text), mapped: true }))
}

/// Whether the UTF-8 (surrogatepass) bytes contain a real character in U+10F800..U+10FFFF.
fn has_original_mapped_range(bytes: &[u8]) -> bool {
    // 4-byte sequences F4 8F A0..BF xx encode exactly U+10F800..U+10FFFF.
    bytes.windows(3).any(|w| w[0] == 0xF4 && w[1] == 0x8F && (0xA0..=0xBF).contains(&w[2]))
}

fn decode_surrogatepass(mut rest: &[u8]) -> String {
    let mut out = String::with_capacity(rest.len());
    loop {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                out.push_str(s);
                return out;
            }
            Err(e) => {
                let (valid, tail) = rest.split_at(e.valid_up_to());
                out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                // Python's surrogatepass only ever emits ED A0..BF 80..BF here.
                if tail.len() >= 3 && tail[0] == 0xED {
                    let cp = ((tail[0] as u32 & 0x0F) << 12) | ((tail[1] as u32 & 0x3F) << 6) | (tail[2] as u32 & 0x3F);
                    if (SURROGATE_LO..=SURROGATE_HI).contains(&cp) {
                        out.push(char::from_u32(MAPPED_LO + (cp - SURROGATE_LO)).unwrap_or('\u{FFFD}'));
                        rest = &tail[3..];
                        continue;
                    }
                }
                out.push('\u{FFFD}');
                rest = &tail[1..];
            }
        }
    }
}

/// Build a Python `str` from core output, undoing the surrogate mapping when it was applied.
pub fn to_py_str<'py>(py: Python<'py>, text: &str, mapped: bool) -> PyResult<Bound<'py, PyAny>> {
    if !mapped || !text.chars().any(is_mapped) {
        return Ok(PyString::new(py, text).into_any());
    }
    let mut bytes = Vec::with_capacity(text.len());
    for c in text.chars() {
        if is_mapped(c) {
            let cp = SURROGATE_LO + (c as u32 - MAPPED_LO);
            bytes.extend_from_slice(&[0xED, 0x80 | ((cp >> 6) & 0x3F) as u8, 0x80 | (cp & 0x3F) as u8]);
        } else {
            let mut buf = [0u8; 4];
            bytes.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
    }
    PyBytes::new(py, &bytes).call_method1("decode", ("utf-8", "surrogatepass"))
}

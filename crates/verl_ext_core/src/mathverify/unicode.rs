//! Unicode spellings of math folded to the ASCII/LaTeX the lexer reads: fullwidth forms, superscript and
//! subscript digits, vulgar fractions, invisible characters and the many widths of space. [`fold`] is applied
//! to every answer before lexing and may be applied to a whole solution before extraction.
//!
//! One pass, linear in the input; each character becomes at most [`MAX_EXPANSION`] bytes, so the output is
//! bounded by the input's length.

use std::borrow::Cow;

/// Most bytes one input character becomes: `⅒` is `\frac{1}{10}` (a fraction slash adds 9, a run of scripts
/// 3 bytes besides its characters).
pub const MAX_EXPANSION: usize = 12;

/// The text with Unicode math spellings replaced (see the module documentation); borrowed when there is
/// nothing to replace.
pub fn fold(s: &str) -> Cow<'_, str> {
    if !s.chars().any(needs_folding) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    // Where in `out` the run of ASCII digits just written began (`None` after anything else, a dropped
    // invisible character included): the numerator of a fraction slash.
    let mut digits_from: Option<usize> = None;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if let Some(script) = Script::of(c) {
            // A run of superscripts is one exponent (`x²³` is x^{23}), of subscripts one index.
            out.push_str(script.opener());
            out.push(script.ascii(c));
            while let Some(next) = chars.peek().and_then(|&n| Script::of(n).filter(|s| *s == script).map(|_| n)) {
                out.push(script.ascii(next));
                chars.next();
            }
            out.push('}');
            digits_from = None;
            continue;
        }
        if let Some((num, den)) = vulgar_fraction(c) {
            // `2½` becomes `2\frac{1}{2}`, which the parser reads as the mixed number 5/2.
            out.push_str(&format!("\\frac{{{num}}}{{{den}}}"));
            digits_from = None;
            continue;
        }
        if c == '\u{2044}' {
            fraction_slash(&mut out, digits_from, &mut chars);
            digits_from = None;
            continue;
        }
        match simple(c) {
            Some(replacement) => out.push_str(replacement),
            None => out.push(c),
        }
        digits_from = if c.is_ascii_digit() { digits_from.or(Some(out.len() - 1)) } else { None };
    }
    Cow::Owned(out)
}

/// Does `c` change under [`fold`]?
fn needs_folding(c: char) -> bool {
    Script::of(c).is_some() || vulgar_fraction(c).is_some() || c == '\u{2044}' || simple(c).is_some()
}

/// `a⁄b` (U+2044 FRACTION SLASH) between digit runs as `\frac{a}{b}`; without digits on both sides a plain `/`.
/// The numerator is only the digits written right before it, so `1 1⁄2` stays a mixed number.
fn fraction_slash(out: &mut String, digits_from: Option<usize>, chars: &mut std::iter::Peekable<std::str::Chars>) {
    let mut den = String::new();
    while let Some(d) = chars.peek().copied().filter(char::is_ascii_digit) {
        den.push(d);
        chars.next();
    }
    match digits_from {
        Some(from) if !den.is_empty() => {
            let num = out.split_off(from);
            out.push_str(&format!("\\frac{{{num}}}{{{den}}}"));
        }
        _ => {
            out.push('/');
            out.push_str(&den);
        }
    }
}

/// Superscript or subscript.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Script {
    Sup,
    Sub,
}

impl Script {
    fn of(c: char) -> Option<Script> {
        match c {
            '⁰' | '¹' | '²' | '³' | '⁴'..='⁹' | '⁺' | '⁻' | '⁽' | '⁾' | 'ⁿ' => Some(Script::Sup),
            '₀'..='₉' | '₊' | '₋' | '₍' | '₎' => Some(Script::Sub),
            _ => None,
        }
    }

    fn opener(self) -> &'static str {
        match self {
            Script::Sup => "^{",
            Script::Sub => "_{",
        }
    }

    /// The ASCII character a script character stands for.
    fn ascii(self, c: char) -> char {
        match c {
            '¹' => '1',
            '²' => '2',
            '³' => '3',
            'ⁿ' => 'n',
            '⁺' | '₊' => '+',
            '⁻' | '₋' => '-',
            '⁽' | '₍' => '(',
            '⁾' | '₎' => ')',
            // ⁰ and ⁴-⁹ are U+2070 and U+2074-2079; ₀-₉ are U+2080-2089.
            _ => {
                let base = if self == Script::Sup { 0x2070 } else { 0x2080 };
                char::from_digit(u32::from(c) - base, 10).unwrap_or('0')
            }
        }
    }
}

/// The numerator and denominator of a vulgar fraction character.
fn vulgar_fraction(c: char) -> Option<(u8, u8)> {
    Some(match c {
        '½' => (1, 2),
        '⅓' => (1, 3),
        '⅔' => (2, 3),
        '¼' => (1, 4),
        '¾' => (3, 4),
        '⅕' => (1, 5),
        '⅖' => (2, 5),
        '⅗' => (3, 5),
        '⅘' => (4, 5),
        '⅙' => (1, 6),
        '⅚' => (5, 6),
        '⅐' => (1, 7),
        '⅛' => (1, 8),
        '⅜' => (3, 8),
        '⅝' => (5, 8),
        '⅞' => (7, 8),
        '⅑' => (1, 9),
        '⅒' => (1, 10),
        '↉' => (0, 3),
        _ => return None,
    })
}

/// Fullwidth ASCII (U+FF01-FF5E) as ASCII, stored once so [`simple`] can hand out a `&'static str`.
static FULLWIDTH: [u8; 94] = {
    let mut t = [0u8; 94];
    let mut i = 0;
    while i < 94 {
        t[i] = b'!' + i as u8;
        i += 1;
    }
    t
};

/// Characters a reader takes for a minus sign before a number: the minus, the hyphens and figure dash, the
/// small, heavy and modifier minus forms and the hyphen bullet (not the en/em dashes: punctuation in prose).
pub const MINUS_SIGNS: &[char] =
    &['−', '\u{2010}', '\u{2011}', '\u{2012}', '\u{FE63}', '\u{2796}', '\u{02D7}', '\u{2043}'];

/// A currency sign written before or after an amount (`$`, `£`, `€`, `¥`, `₹`, `₽`, `₺`, `₦`, `฿`, `﷼`): Unicode's
/// currency symbols (general category Sc), except the cent and mill signs, which name a fraction of the unit
/// (`45¢` is not 45).
pub fn currency_sign(c: char) -> bool {
    matches!(c,
        '$' | '\u{00A3}'..='\u{00A5}' | '\u{058F}' | '\u{060B}' | '\u{07FE}' | '\u{07FF}' | '\u{09F2}' | '\u{09F3}'
        | '\u{09FB}' | '\u{0AF1}' | '\u{0BF9}' | '\u{0E3F}' | '\u{17DB}' | '\u{20A0}'..='\u{20A4}'
        | '\u{20A6}'..='\u{20C0}' | '\u{A838}' | '\u{FDFC}' | '\u{FE69}' | '\u{FF04}' | '\u{FFE1}' | '\u{FFE5}'
        | '\u{FFE6}' | '\u{11FDD}'..='\u{11FE0}' | '\u{1E2FF}' | '\u{1ECB0}')
}

/// The value of a decimal digit of another script a model may write (`٤٢` is 42, `𝟒𝟐` is 42): Arabic-Indic and
/// Extended Arabic-Indic, Devanagari, Bengali, Thai, and the five styles of mathematical digits.
fn decimal_digit(c: char) -> Option<usize> {
    let code = u32::from(c);
    let zero = [0x0660, 0x06F0, 0x0966, 0x09E6, 0x0E50].into_iter().find(|z| (*z..*z + 10).contains(&code));
    match zero {
        Some(z) => Some((code - z) as usize),
        None => (0x1D7CE..=0x1D7FF).contains(&code).then(|| ((code - 0x1D7CE) % 10) as usize),
    }
}

/// Unicode's default-ignorable code points (DerivedCoreProperties, `Default_Ignorable_Code_Point`): characters a
/// page does not show — zero-width spaces and joiners, the soft hyphen, direction marks, invisible operators,
/// variation selectors, Hangul and Khmer fillers, tag characters. None splits a word (`n\u{3164}ot` is `not`).
pub fn ignorable(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
        | '\u{180B}'..='\u{180F}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{206F}'
        | '\u{3164}' | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}' | '\u{FFA0}' | '\u{FFF0}'..='\u{FFF8}'
        | '\u{1BCA0}'..='\u{1BCA3}' | '\u{1D173}'..='\u{1D17A}' | '\u{E0000}'..='\u{E0FFF}')
}

/// One-character replacements: fullwidth forms, spaces, invisible characters, dot operators.
fn simple(c: char) -> Option<&'static str> {
    let code = u32::from(c);
    if (0xFF01..=0xFF5E).contains(&code) {
        let i = (code - 0xFF01) as usize;
        return std::str::from_utf8(&FULLWIDTH[i..=i]).ok();
    }
    if let Some(d) = decimal_digit(c) {
        return std::str::from_utf8(&b"0123456789"[d..=d]).ok();
    }
    match c {
        // Zero-width space/joiners, word joiner, byte-order mark, soft hyphen; the other characters a page does not
        // show (direction marks and embeddings, invisible operators, variation selectors, the combining grapheme
        // joiner) and control characters other than line breaks and tabs: none splits a word (`n\u{1}ot`).
        c if ignorable(c) => Some(""),
        c if c.is_control() && !matches!(c, '\t' | '\n' | '\r' | '\u{0C}') => Some(""),
        // Combining accents and underlines over a letter (`n̲o̲t̲`), not the overlays that negate (`=\u{338}` is ≠).
        '\u{0300}'..='\u{0333}' | '\u{0339}'..='\u{036F}' => Some(""),
        // No-break, en/em/thin/hair, narrow no-break, medium mathematical and ideographic spaces.
        '\u{00A0}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => Some(" "),
        '⋅' | '∙' => Some("\\cdot "),
        // The minus sign and the operators a reader sees as `-`, `\\times`, `\\div` (`−\\boxed{5}` is negated).
        c if MINUS_SIGNS.contains(&c) => Some("-"),
        '×' => Some("\\times "),
        '÷' => Some("\\div "),
        // Colons and slashes that read as `:` and `/` (`2∶1`, `1 1∕2`).
        '∶' | '꞉' | '˸' | '﹕' | '︓' => Some(":"),
        '∕' => Some("/"),
        // Per mille and per ten thousand are fractions of their value (`5‰` is 0.005, not 5 as `5%` may be).
        '‰' => Some("/1000"),
        '‱' => Some("/10000"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds() {
        assert!(matches!(fold("x^2 + \\frac12"), Cow::Borrowed(_)));
        assert_eq!(fold("x²³"), "x^{23}");
        assert_eq!(fold("n\u{1}o\u{200e}t\u{85}\u{2063} 5\t\n"), "not 5\t\n");
        assert_eq!(fold("x⁻¹ + y²"), "x^{-1} + y^{2}");
        assert_eq!(fold("a₁₂"), "a_{12}");
        assert_eq!(fold("2½"), "2\\frac{1}{2}");
        assert_eq!(fold("−5 × 2 ÷ 3"), "-5 \\times  2 \\div  3");
        assert_eq!(fold("\u{2010}4 \u{FE63}4 \u{2796}4 \u{02D7}4"), "-4 -4 -4 -4");
        assert_eq!(fold("⅒"), "\\frac{1}{10}");
        assert_eq!(fold("3⁄4"), "\\frac{3}{4}");
        assert_eq!(fold("1 1⁄2"), "1 \\frac{1}{2}");
        assert_eq!(fold("1\u{200B}1⁄2"), "1\\frac{1}{2}");
        assert_eq!(fold("x⁄2"), "x/2");
        assert_eq!(fold("１２＋３"), "12+3");
        assert_eq!(fold("1\u{00A0}000\u{3000}x"), "1 000 x");
        assert_eq!(fold("1\u{200B}2\u{FEFF}3\u{00AD}"), "123");
        assert_eq!(fold("2⋅3∙4"), "2\\cdot 3\\cdot 4");
    }

    #[test]
    fn growth_is_bounded() {
        for c in ['⅒', '²', '₁', '⋅', '\u{2044}', '½', 'Ａ'] {
            let s = c.to_string().repeat(100);
            assert!(fold(&s).len() <= 100 * MAX_EXPANSION, "{c}");
        }
    }
}

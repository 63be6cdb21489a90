//! LaTeX / plain-math text to tokens. Presentation is dropped here: `\left`/`\right`, spacing commands,
//! `$`, `\text{}`-style wrappers (their content is kept), degree marks, currency signs and unit words.

use std::collections::HashSet;
use std::sync::LazyLock;

use super::limits::{MAX_DIGITS, MAX_TOKENS};
use super::{unicode, Failure};

#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    /// A decimal literal without separators: digits, optionally one `.`, optionally `e±digits`.
    Num(String),
    /// A one-letter (or Greek, or subscripted) variable name.
    Ident(String),
    /// A backslash command that survives normalisation (`frac`, `sqrt`, `pi`, `sin`, ...).
    Cmd(String),
    /// A plain word that is not math (kept for text answers).
    Word(String),
    Sym(char),
    /// `\{` and `\}`.
    SetOpen,
    SetClose,
    Le,
    Ge,
    Ne,
    Pm,
    /// `\approx`: the value before it is the answer (`x = 1/3 \approx 0.33`).
    Approx,
    Percent,
    /// `\\` (matrix rows) and `&` (matrix columns).
    RowSep,
    ColSep,
    /// `\begin{name}` / `\end{name}`.
    Begin(String),
    End(String),
}

/// LaTeX's spacing commands (thin to double quad): space between the parts of a value or around it, no content.
pub(super) const SPACING_COMMANDS: &[&str] = &["\\qquad", "\\quad", "\\,", "\\;", "\\:", "\\!", "\\ "];
/// Commands that only change presentation.
const IGNORED: &[&str] = &[
    "left",
    "right",
    "big",
    "Big",
    "bigg",
    "Bigg",
    "bigl",
    "bigr",
    "Bigl",
    "Bigr",
    "biggl",
    "biggr",
    "displaystyle",
    "textstyle",
    "scriptstyle",
    "quad",
    "qquad",
    "limits",
    "nolimits",
    "circ",
    "degree",
    "hfill",
    "cdotp",
    "middle",
    // `\angle APC = 74^\circ`: the points name the angle.
    "angle",
    "measuredangle",
];
/// Currency signs as commands (`\pounds 45`, `\euro 45`, `45\,\texteuro`): dropped, as `\$` and the signs are.
pub(super) const CURRENCY_COMMANDS: &[&str] = &[
    "dollar",
    "mathdollar",
    "textdollar",
    "pounds",
    "textsterling",
    "euro",
    "texteuro",
    "EUR",
    "officialeuro",
    "yen",
    "textyen",
    "textwon",
];

/// Currency codes and abbreviations written before an amount (`USD 42`, `Rs. 42`, `US$42`, `HK$42`).
const CURRENCY_CODES: &[&str] = &[
    "US$", "HK$", "NZ$", "A$", "C$", "R$", "S$", "Rs.", "Rs", "USD", "EUR", "GBP", "CHF", "INR", "CNY", "JPY", "RMB",
    "AUD", "CAD", "HKD",
];

/// `t` past a currency code at its start (not inside a word), if one is there.
fn after_code(t: &str) -> Option<&str> {
    CURRENCY_CODES.iter().find_map(|c| {
        t.strip_prefix(c).filter(|r| c.ends_with(['$', '.']) || !r.starts_with(|ch: char| ch.is_ascii_alphabetic()))
    })
}

/// `t` past a currency sign at its start (`£45`, `\$45`, `\pounds 45`) and the spaces after it, if one is there.
pub(super) fn after_currency(t: &str) -> &str {
    if let Some(r) = after_code(t) {
        return r.trim_start_matches(' ');
    }
    if let Some(c) = t.chars().next().filter(|&c| unicode::currency_sign(c)) {
        return t[c.len_utf8()..].trim_start_matches(' ');
    }
    let Some(r) = t.strip_prefix('\\') else { return t };
    if let Some(r) = r.strip_prefix('$') {
        return r.trim_start_matches(' ');
    }
    let n = r.bytes().take(16).take_while(u8::is_ascii_alphabetic).count();
    if CURRENCY_COMMANDS.contains(&&r[..n]) {
        return r[n..].trim_start_matches(' ');
    }
    t
}

/// `text` before a currency sign or code at its end (`≈ £`, `≈ \$`, `≈ \pounds`, `at least Rs. `), the spaces after
/// it dropped, if one is there; else `text` as it is.
pub(super) fn before_currency(text: &str) -> &str {
    let t = text.trim_end_matches(' ');
    let code = CURRENCY_CODES
        .iter()
        .find_map(|c| t.strip_suffix(c).filter(|h| !h.ends_with(|ch: char| ch.is_ascii_alphabetic())));
    if let Some(head) = code {
        return head;
    }
    if let Some(c) = t.chars().next_back().filter(|&c| unicode::currency_sign(c)) {
        let head = &t[..t.len() - c.len_utf8()];
        // `\\$` is the escaped sign, `$` alone a math delimiter (stripped as markup where it is read).
        return if c == '$' { head.strip_suffix('\\').unwrap_or(text) } else { head };
    }
    let n = t.len() - t.trim_end_matches(|c: char| c.is_ascii_alphabetic()).len();
    match t[..t.len() - n].strip_suffix('\\') {
        Some(head) if n > 0 && CURRENCY_COMMANDS.contains(&&t[t.len() - n..]) => head,
        _ => text,
    }
}

/// Commands whose braced argument is not shown: dropped with it (`5\\phantom{0}` is 5, not 5·0).
const INVISIBLE: &[&str] = &["phantom", "hphantom", "vphantom", "label", "tag", "hspace", "vspace"];
/// Commands whose braced argument is kept as plain content.
pub(super) const WRAPPERS: &[&str] = &[
    "boxed",
    "fbox",
    "text",
    "textbf",
    "textit",
    "textrm",
    "textnormal",
    "textup",
    "texttt",
    "mathrm",
    "mathbf",
    "mathit",
    "mathsf",
    "mathtt",
    "mathnormal",
    "boldsymbol",
    "bm",
    "mbox",
    "hbox",
    "operatorname",
    "emph",
    "underline",
    "overline",
    "mathbb",
    "displaystyle",
];
/// Words dropped as units (a number's unit does not change its value).
const UNITS: &[&str] = &[
    "cm",
    "mm",
    "km",
    "m",
    "meter",
    "meters",
    "metre",
    "metres",
    "centimeter",
    "centimeters",
    "millimeter",
    "millimeters",
    "kilometer",
    "kilometers",
    "inch",
    "inches",
    "in",
    "foot",
    "feet",
    "ft",
    "yard",
    "yards",
    "yd",
    "mile",
    "miles",
    "mph",
    "kmh",
    "kg",
    "g",
    "gram",
    "grams",
    "kilogram",
    "kilograms",
    "lb",
    "lbs",
    "pound",
    "pounds",
    "ounce",
    "ounces",
    "oz",
    "ton",
    "tons",
    "s",
    "sec",
    "second",
    "seconds",
    "min",
    "minute",
    "minutes",
    "h",
    "hr",
    "hrs",
    "hour",
    "hours",
    "day",
    "days",
    "week",
    "weeks",
    "month",
    "months",
    "year",
    "years",
    "degree",
    "degrees",
    "deg",
    "unit",
    "units",
    "sq",
    "square",
    "cubic",
    "dollar",
    "dollars",
    "cent",
    "cents",
    "usd",
    "euro",
    "euros",
    "liter",
    "liters",
    "litre",
    "litres",
    "ml",
    "l",
    "mL",
    "people",
    "students",
    "apples",
    "ways",
    "times",
    "rad",
    "radian",
    "radians",
    "mg",
    "N",
    "J",
    "kJ",
    "W",
    "kW",
    "Pa",
    "kPa",
    "Hz",
    "kHz",
    "V",
    "mol",
    "eV",
    "cal",
    "kcal",
];
/// Short words that are answers, not products of variables (`yes` is not y·e·s).
const WORDS: &[&str] =
    &["yes", "no", "odd", "not", "all", "any", "one", "two", "six", "ten", "dne", "nan", "nil", "non"];
const SPELLED: &[(&str, &str)] = &[("pi", "pi"), ("infinity", "infty"), ("inf", "infty"), ("sqrt", "sqrt")];
const FUNCS: &[&str] = &[
    "sin", "cos", "tan", "cot", "sec", "csc", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "ln", "log", "exp",
    "asin", "acos", "atan", "cosec", "arcsinh", "arccosh", "arctanh", "arsinh", "arcosh", "artanh", "asinh", "acosh",
    "atanh", "sech", "csch", "cosech", "coth", "arccot", "arcsec", "arccsc", "acot", "asec", "acsc",
];
/// Words that are functions only when an argument list follows (`min(1, 2)`, `\operatorname{lcm}\left(`): `5 min`
/// is five minutes. (The word `mod` is always the operator: `2 (mod 5)`, never a product of m, o and d.)
const CALLS: &[&str] = &["floor", "ceil", "gcd", "lcm", "min", "max", "sgn", "sign"];

/// Words that change the value before them, read as `* n` or `^ n` (`5 thousand`, `3 dozen`, `4 squared`):
/// the one table the lexer, the prose reader ([`super::prose`]) and the hedge rules ([`super::hedge`]) use.
pub const MULTIPLIERS: &[(&str, char, &str)] = &[
    ("hundred", '*', "100"),
    ("thousand", '*', "1000"),
    ("million", '*', "1000000"),
    ("billion", '*', "1000000000"),
    ("trillion", '*', "1000000000000"),
    ("dozen", '*', "12"),
    // Other languages' and regions' scales (`5 lakh`, `5 Mrd`, `5万`).
    ("lakh", '*', "100000"),
    ("lakhs", '*', "100000"),
    ("crore", '*', "10000000"),
    ("crores", '*', "10000000"),
    ("grand", '*', "1000"),
    ("bn", '*', "1000000000"),
    ("mio", '*', "1000000"),
    ("mrd", '*', "1000000000"),
    ("tausend", '*', "1000"),
    ("万", '*', "10000"),
    ("萬", '*', "10000"),
    ("亿", '*', "100000000"),
    ("億", '*', "100000000"),
    ("tsd", '*', "1000"),
    ("milliard", '*', "1000000000"),
    ("milliards", '*', "1000000000"),
    ("lac", '*', "100000"),
    ("lacs", '*', "100000"),
    ("myriad", '*', "10000"),
    ("squared", '^', "2"),
    ("cubed", '^', "3"),
];

/// Does this word after a value scale it (`thousand`, `k`, `thousands`, `mln`, `M`, `dozen`)? Then it is neither a
/// unit nor a label. Not `K`: kelvin is written alike (`300 K`, `300\\text{ K}`).
pub(super) fn scales_value(word: &str) -> bool {
    let lower = word.to_lowercase();
    word != "K"
        && (multiplier(&lower).is_some() || SCALES.contains(&lower.as_str()) || SCALE_ABBREVIATIONS.contains(&word))
}

fn multiplier(word: &str) -> Option<[Tok; 2]> {
    // `12\text{k}` (thousands, as prices and counts are abbreviated).
    let word = if word == "k" { "thousand" } else { word };
    let &(_, op, n) = MULTIPLIERS.iter().find(|(w, _, _)| *w == word)?;
    Some([Tok::Sym(op), Tok::Num(n.to_owned())])
}

/// Words in a `\text{}` after a value that scale it in a way not read here (`5\text{ tenths}`, `5\text{ lakh}`,
/// `5\text{ hundreds}`, SI prefixes alone): never a label, so the answer does not parse and is compared as text.
const SCALES: &[&str] = &[
    "hundreds",
    "thousands",
    "millions",
    "billions",
    "trillions",
    "dozens",
    "tenth",
    "tenths",
    "hundredth",
    "hundredths",
    "thousandth",
    "thousandths",
    "half",
    "halves",
    "third",
    "thirds",
    "quarter",
    "quarters",
    "fourths",
    "fifths",
    "kilo",
    "mega",
    "giga",
    "tera",
    "milli",
    "micro",
    "nano",
    "ppm",
    "ppb",
    "mille",
    "gazillion",
    "zillion",
    "mil",
    "mln",
    "bln",
];
/// Abbreviations of scales, case as written (`5\text{M}` is five million, not a label; `m` stays metres).
const SCALE_ABBREVIATIONS: &[&str] = &["M", "B", "bn", "Bn", "mn", "Mn", "MM", "K"];

/// Words in a `\text{}` after a value that qualify it (`5\text{ or more}`, `\text{at least }5`): never a label.
const QUALIFIERS: &[&str] = &[
    "or",
    "not",
    "least",
    "most",
    "more",
    "less",
    "fewer",
    "than",
    "about",
    "approximately",
    "roughly",
    "nearly",
    "almost",
    "maybe",
    "perhaps",
    "possibly",
    "probably",
    "over",
    "under",
    "above",
    "below",
    "between",
    "either",
    "incorrect",
    "wrong",
    "no",
    "nope",
    "false",
    "is",
    "ish",
    "guess",
    "approx",
    "bound",
    // Bounds, rejections and doubt in other words (a second red team: `\\boxed{4 \\text{ max}}`).
    "max",
    "minimum",
    "maximum",
    "upward",
    "upwards",
    "plus",
    "jk",
    "falsch",
    "faux",
    "tbd",
    "unsure",
    "rejected",
];

/// Words that announce the value after them inside an answer (`\\text{The answer is } 5`).
const ANNOUNCING: &[&str] =
    &["the", "answer", "is", "final", "exactly", "precisely", "total", "result", "value", "equals"];

/// The canonical names [`canonical_unit`] gives currencies: cents are hundredths of them.
pub(super) const CURRENCY_UNITS: &[&str] =
    &["usd", "eur", "gbp", "chf", "peso", "cny", "jpy", "inr", "pln", "czk", "kr"];

/// The canonical name of a physical unit word (`metres` is `m`); `None` for count nouns (`people`, `ways`) and
/// words that only qualify a unit.
pub(super) fn canonical_unit(word: &str) -> Option<&'static str> {
    let lower = word.to_ascii_lowercase();
    Some(match lower.as_str() {
        "cm" | "centimeter" | "centimeters" | "centimetre" | "centimetres" => "cm",
        "mm" | "millimeter" | "millimeters" | "millimetre" | "millimetres" => "mm",
        "km" | "kilometer" | "kilometers" | "kilometre" | "kilometres" => "km",
        "m" | "meter" | "meters" | "metre" | "metres" => "m",
        "in" | "inch" | "inches" => "in",
        "ft" | "foot" | "feet" => "ft",
        "yd" | "yard" | "yards" => "yd",
        "mi" | "mile" | "miles" => "mi",
        "mph" => "mph",
        "kmh" => "kmh",
        "kg" | "kilogram" | "kilograms" => "kg",
        "g" | "gram" | "grams" => "g",
        "lb" | "lbs" | "pound" | "pounds" => "lb",
        "oz" | "ounce" | "ounces" => "oz",
        "ton" | "tons" => "ton",
        "s" | "sec" | "second" | "seconds" => "s",
        "min" | "minute" | "minutes" => "min",
        "h" | "hr" | "hrs" | "hour" | "hours" => "h",
        "day" | "days" => "day",
        "week" | "weeks" => "week",
        "month" | "months" => "month",
        "year" | "years" => "year",
        "degree" | "degrees" | "deg" => "deg",
        "dollar" | "dollars" | "usd" => "usd",
        "cent" | "cents" => "cent",
        "euro" | "euros" | "eur" => "eur",
        "gbp" => "gbp",
        "chf" => "chf",
        "peso" | "pesos" => "peso",
        "yuan" | "元" | "圆" | "rmb" | "cny" => "cny",
        "円" | "jpy" => "jpy",
        "rupee" | "rupees" | "inr" => "inr",
        "zł" | "zloty" | "zlotys" => "pln",
        "kč" => "czk",
        "kr" => "kr",
        "liter" | "liters" | "litre" | "litres" | "l" => "l",
        "ml" => "ml",
        "ms" | "millisecond" | "milliseconds" => "ms",
        "microsecond" | "microseconds" => "us",
        "ns" | "nanosecond" | "nanoseconds" => "ns",
        "mmol" | "millimole" | "millimoles" => "mmol",
        "byte" | "bytes" => "byte",
        "bit" | "bits" => "bit",
        "rad" | "radian" | "radians" => "rad",
        "mg" => "mg",
        "mol" => "mol",
        "ev" => "eV",
        "cal" => "cal",
        "kcal" => "kcal",
        "newton" | "newtons" => "N",
        "kilonewton" | "kilonewtons" => "kN",
        "joule" | "joules" => "J",
        "kilojoule" | "kilojoules" => "kJ",
        "watt" | "watts" => "W",
        "kilowatt" | "kilowatts" => "kW",
        "volt" | "volts" => "V",
        "pascal" | "pascals" => "Pa",
        "kilopascal" | "kilopascals" => "kPa",
        "hertz" => "Hz",
        "ampere" | "amperes" | "amp" | "amps" => "A",
        "milliampere" | "milliamperes" => "mA",
        "coulomb" | "coulombs" => "C",
        "ohm" | "ohms" => "ohm",
        "electronvolt" | "electronvolts" => "eV",
        "nanometer" | "nanometers" | "nanometre" | "nanometres" => "nm",
        "micrometer" | "micrometers" | "micrometre" | "micrometres" | "micron" | "microns" => "μm",
        "megawatt" | "megawatts" => "MW",
        "milligram" | "milligrams" => "mg",
        "kelvin" | "kelvins" => "K",
        // A time's half of the day: `3:45 PM` is not `3:45 AM`.
        "am" => "am",
        "pm" => "pm",
        // Case matters for these (`N` newton, `W` watt, `kW`, `Pa`, …); all-capital prefixed symbols (`MW`, `MN`)
        // name points and choices outside a group after a value (see `wrapped_unit`).
        _ => {
            return physical_unit(word).or_else(|| prefixed_unit(word).filter(|u| !u.chars().all(|c| c.is_uppercase())))
        }
    })
}

/// Units whose symbol is case-sensitive, canonical as written.
fn physical_unit(word: &str) -> Option<&'static str> {
    // Not all-capital symbols (`MN`, `GB`, `A`): those name points and choices.
    [
        "N", "kN", "J", "kJ", "mJ", "W", "kW", "mW", "Pa", "kPa", "MPa", "GPa", "Hz", "kHz", "MHz", "GHz", "V", "mV",
        "kV", "mA", "kB",
    ]
    .into_iter()
    .find(|u| *u == word)
}

/// SI prefixes read before a unit's symbol (`nm`, `MW`, `μF`, `keV`); deci-, centi- and hecto- only before the
/// units they are used with (`cm`, `dl`, `hPa`, `dB`), since `cs`, `ds`, `hs` are words more often.
const SI_PREFIXES: &[&str] = &["P", "T", "G", "M", "k", "m", "μ", "n", "p"];
const SI_BASES: &[&str] = &[
    "m", "g", "s", "A", "K", "mol", "N", "J", "W", "V", "Pa", "Hz", "C", "Ω", "ohm", "F", "T", "H", "S", "Wb", "eV",
    "L", "l", "B", "b", "bar", "Gy", "Sv", "Bq",
];
static PREFIXED_UNITS: LazyLock<HashSet<String>> = LazyLock::new(|| {
    let mut out: HashSet<String> =
        SI_PREFIXES.iter().flat_map(|p| SI_BASES.iter().map(move |b| format!("{p}{b}"))).collect();
    for (p, bases) in [("c", &["m", "l", "L", "g"][..]), ("d", &["m", "l", "L", "g", "B"]), ("h", &["Pa", "l", "L"])] {
        out.extend(bases.iter().map(|b| format!("{p}{b}")));
    }
    out
});

/// An SI prefix and unit symbol (`nm`, `MW`, `μF`, `um`, `keV`, `mmol`), canonical with `μ` for micro.
fn prefixed_unit(word: &str) -> Option<&'static str> {
    let micro = word.strip_prefix(['u', 'µ']).map(|rest| format!("μ{rest}"));
    let word = micro.as_deref().unwrap_or(word);
    PREFIXED_UNITS.get(word).map(String::as_str)
}

/// A unit's symbol in a wrapper after a value (`5\\,\\mathrm{A}`, `2\\text{ T}`): the units of
/// [`canonical_unit`] and the one-capital SI symbols, which alone name points and choices.
fn wrapped_unit(word: &str) -> Option<&'static str> {
    canonical_unit(word).or_else(|| prefixed_unit(word)).or(match word {
        "A" => Some("A"),
        "K" => Some("K"),
        "C" => Some("C"),
        "T" => Some("T"),
        "F" => Some("F"),
        "H" => Some("H"),
        "S" => Some("S"),
        "L" => Some("l"),
        "Ω" | "\\Omega" => Some("ohm"),
        _ => None,
    })
}

/// A unit and its power as noted (`s`, `s^-2`); a power of 1 is not written.
pub(super) fn with_power(name: &str, power: i64) -> String {
    if power == 1 {
        name.to_owned()
    } else {
        format!("{name}^{power}")
    }
}

/// Is `word` a unit (`cm`, `hours`, `dollars`), dropped after a number?
pub(super) fn is_unit(word: &str) -> bool {
    UNITS.contains(&word) || UNITS.contains(&word.to_ascii_lowercase().as_str()) || canonical_unit(word).is_some()
}

/// Is a wrapper's content units alone (`~kN`, ` m/s^{2}`, `kg \\cdot m`, `km per hour`), as a wrapper after a value
/// reads them?
pub(super) fn unit_group(inner: &str) -> bool {
    let spaced = unit_spacing(inner);
    let mut words = spaced.split(|c: char| c.is_whitespace() || c == '/').filter(|w| !w.is_empty()).peekable();
    words.peek().is_some()
        && words.all(|w| {
            let unit = unit_and_power(w.trim_matches(['.', ','])).0;
            w == "per"
                || !(unit != "K" && SCALE_ABBREVIATIONS.contains(&unit))
                    && (is_unit(unit) || wrapped_unit(unit).is_some())
        })
}

/// A square or cube written after a unit (`^2`, `^{3}`, `²`): its length and the power.
pub(super) fn square_or_cube(rest: &str) -> Option<(usize, i64)> {
    [("^{2}", 2), ("^2", 2), ("\u{b2}", 2), ("^{3}", 3), ("^3", 3), ("\u{b3}", 3)]
        .into_iter()
        .find(|(p, _)| rest.starts_with(p))
        .map(|(p, k)| (p.len(), k))
}

/// Longest unit group read after a value, bytes (`\\mathrm{~kg \\cdot m^{2} \\cdot s^{-2}}` is 30).
const MAX_UNIT_GROUP: usize = 64;

/// The text commands whose group may hold a unit after a value (`\\mathrm{~cm}`, `\\text{ kg}`).
pub(super) const UNIT_GROUPS: &[&str] =
    &["mathrm", "text", "textrm", "mbox", "operatorname", "mathbf", "mathit", "mathsf", "textbf", "textit", "textsf"];

/// A unit group right after a value (`\\,\\mathrm{kN}`, `~\\text{cm}^2`, `\\mathrm{~m/s}`): its length and its text
/// without the spacing before it. `None` unless the group holds units alone ([`unit_group`]).
pub(super) fn unit_group_after(rest: &str) -> Option<(usize, String)> {
    let mut t = rest;
    let mut spaced = false;
    while let Some(r) = SPACING_COMMANDS.iter().chain(&["~", " "]).find_map(|c| t.strip_prefix(c)) {
        spaced |= !r.is_empty() && !t.starts_with(' ');
        t = r;
    }
    // The group's content: `\\mathrm{…}`, `{\\rm …}`, or (after a spacing command) a unit word (`7\\;mV`).
    let (body, close) = if let Some(r) = t.strip_prefix("{\\") {
        let n = r.bytes().take(8).take_while(u8::is_ascii_alphabetic).count();
        let body = r[n..].strip_prefix(' ').filter(|_| matches!(&r[..n], "rm" | "bf" | "it" | "sf" | "mathrm"))?;
        (body, b'}')
    } else if let Some(r) = t.strip_prefix('\\') {
        let n = r.bytes().take(16).take_while(u8::is_ascii_alphabetic).count();
        (r[n..].strip_prefix('{').filter(|_| UNIT_GROUPS.contains(&&r[..n]))?, b'}')
    } else if spaced {
        (t, b' ')
    } else {
        return None;
    };
    // A unit group is short: the scan for its end is bounded (a number per group would be quadratic).
    let len = if close == b' ' {
        let n = body.bytes().take(MAX_UNIT_GROUP).take_while(|b| b.is_ascii_alphabetic()).count();
        (n > 0 && !body[n..].starts_with(|c: char| c.is_alphanumeric())).then_some(n)?
    } else {
        body.bytes()
            .take(MAX_UNIT_GROUP)
            .position(|b| b == b'{' || b == b'}')
            .filter(|&i| body.as_bytes()[i] == b'}')?
    };
    if !unit_group(&body[..len]) {
        return None;
    }
    let mut end = rest.len() - body.len() + len + usize::from(close == b'}');
    // Its power (`\\mathrm{cm}^2`, `^{3}`).
    let mut power = String::new();
    if let Some((n, k)) = square_or_cube(&rest[end..]) {
        end += n;
        power = format!("^{k}");
    }
    Some((end, format!("\\text{{{}}}{power}", &body[..len])))
}

/// A wrapper's content as words: `~`, spacing commands and a product's dot (`\\cdot`, `·`, `⋅`) are spaces, and
/// micro is the prefix `u`.
fn unit_spacing(inner: &str) -> String {
    let mut t = inner.replace(['~', '·', '⋅'], " ").replace("\\cdot", " ");
    // Micro (`\\mu F`, `μF`, `µF`) as the prefix `u` joined to its unit.
    if t.contains("\\mu") || t.contains(['μ', 'µ']) {
        t = t.replace("\\mu ", "u").replace("\\mu", "u").replace(['μ', 'µ'], "u");
    }
    for s in SPACING_COMMANDS {
        if t.contains(s) {
            t = t.replace(s, " ");
        }
    }
    t
}

/// A unit word and the power written after it (`s^2`, `s^{2}`, `m^{-1}`: `("s", Some("2"))`).
fn unit_and_power(word: &str) -> (&str, Option<&str>) {
    match word.split_once('^') {
        Some((unit, power)) => {
            let power = power.strip_prefix('{').and_then(|p| p.strip_suffix('}')).unwrap_or(power).trim();
            (unit, Some(power).filter(|p| !p.is_empty()))
        }
        None => (word, None),
    }
}

/// The length of the shortest block of digits that ends `frac` (a decimal's digits after its point) at least three
/// times (one digit: `333`) or twice (longer blocks: `142857142857`): the part an ellipsis after them repeats.
pub(super) fn repeated_block(frac: &str) -> Option<usize> {
    (1..=frac.len() / 2).find(|&n| {
        let copies = if n == 1 { 3 } else { 2 };
        let tail = &frac[frac.len().saturating_sub(n * copies)..];
        tail.len() == n * copies && tail.as_bytes().chunks(n).all(|c| c == &tail.as_bytes()[..n])
    })
}

/// Ellipses that continue a decimal's digits (`0.333\\ldots`, `0.333...`, `0.333…`).
pub(super) const ELLIPSES: &[&str] = &["\\ldots", "\\dots", "\\cdots", "...", "…"];

/// `\\,` between two letters is a space (`\\mathrm{kJ\\,mol^{-1}}` is two units, `kJ mol`), and so is one between
/// digits unless a group of three follows (`4\\,2` is two numbers); elsewhere it is removed below (`1\\,000` is
/// 1000).
fn thin_spaces(t: &str) -> String {
    let mut out = String::with_capacity(t.len());
    let mut rest = t;
    // `\\ ` (a control space) between digits reads as `\\,` does (`1\\ 024` is 1024); elsewhere it stays.
    while let Some(i) = rest.find("\\,").into_iter().chain(rest.find("\\ ")).min() {
        let thin = rest[i..].starts_with("\\,");
        let (head, tail) = (&rest[..i], &rest[i + 2..]);
        out.push_str(head);
        let letters =
            head.ends_with(|c: char| c.is_ascii_alphabetic()) && tail.starts_with(|c: char| c.is_ascii_alphabetic());
        let next = tail.find(|c: char| !c.is_ascii_digit()).unwrap_or(tail.len());
        // After a decimal point, groups of three count from the point and the last may be shorter (`3.141\\,59`).
        let run = head.len() - head.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let fraction = run == 3 && head[..head.len() - run].ends_with('.') && (1..=3).contains(&next);
        let group = next == 3 || fraction;
        let digits = head.ends_with(|c: char| c.is_ascii_digit()) && tail.starts_with(|c: char| c.is_ascii_digit());
        out.push_str(match (thin, digits) {
            (_, true) if group => "\\,",
            (_, true) => " ",
            (true, false) if letters => " ",
            (true, false) => "\\,",
            (false, false) => "\\ ",
        });
        rest = tail;
    }
    out.push_str(rest);
    out
}

/// `AM`/`PM` after a time's digits written as the units `am`/`pm` (capitals alone name points: `AM` is a segment).
fn half_day_units(t: &str) -> String {
    let mut out = String::with_capacity(t.len());
    let mut rest = t;
    while let Some(i) = rest.find(['A', 'P']) {
        let (head, tail) = rest.split_at(i);
        out.push_str(head);
        let before = out.trim_end_matches([' ', '~']);
        let before = ["\\text{", "\\mathrm{"].iter().find_map(|c| before.strip_suffix(c)).unwrap_or(before);
        let digit_before = before.trim_end().ends_with(|c: char| c.is_ascii_digit());
        let unit = tail.starts_with("AM") || tail.starts_with("PM");
        if digit_before && unit && !tail[2..].starts_with(|c: char| c.is_alphanumeric()) {
            out.push_str(if tail.starts_with('A') { "am" } else { "pm" });
            rest = &tail[2..];
        } else {
            out.push_str(&tail[..1]);
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    out
}

/// Replace the spellings that are easier to handle as text before tokenising.
fn normalise(s: &str) -> String {
    let mut t = s.to_owned();
    // `\\frac` (a backslash doubled by an escaping layer) is `\frac`; in a matrix `\\` separates rows.
    if t.contains("\\\\") && !t.contains("matrix") && !t.contains("\\begin") {
        t = undouble_commands(&t);
    }
    if t.contains("{") && t.contains(",") {
        t = braced_commas(&t);
    }
    if t.contains("AM") || t.contains("PM") {
        t = half_day_units(&t);
    }
    if t.contains("\\,") || t.contains("\\ ") {
        t = thin_spaces(&t);
    }
    for (from, to) in [
        // `32,\! 349`: a thousands separator with negative space.
        (",\\! ", ","),
        (",\\!", ","),
        // A time's half of the day with dots (`1:58 \text{ a.m.}`) is the unit `am`.
        ("a.m.", "am"),
        ("p.m.", "pm"),
        ("A.M.", "am"),
        ("P.M.", "pm"),
        ("{,}\\! ", ","),
        ("−", "-"),
        ("–", "-"),
        ("×", "\\times "),
        ("·", "\\cdot "),
        ("÷", "/"),
        ("≤", "\\le "),
        ("≥", "\\ge "),
        ("≠", "\\ne "),
        ("≈", "\\approx "),
        ("∞", "\\infty "),
        ("π", "\\pi "),
        ("α", "\\alpha "),
        ("β", "\\beta "),
        ("γ", "\\gamma "),
        ("δ", "\\delta "),
        ("ε", "\\epsilon "),
        ("θ", "\\theta "),
        ("λ", "\\lambda "),
        ("μ", "\\mu "),
        ("ρ", "\\rho "),
        ("σ", "\\sigma "),
        ("τ", "\\tau "),
        ("φ", "\\phi "),
        ("ω", "\\omega "),
        ("√", "\\sqrt "),
        ("°", " \\degreemark "),
        ("∪", "\\cup "),
        ("∩", "\\cap "),
        ("∖", "\\setminus "),
        ("∅", "\\emptyset "),
        // latex2sympy2's corner brackets for floor and ceiling.
        ("\\ulcorner", "\\lceil "),
        ("\\urcorner", "\\rceil "),
        ("\\llcorner", "\\lfloor "),
        ("\\lrcorner", "\\rfloor "),
        ("∩", "\\cap "),
        ("∖", "\\setminus "),
        ("≡", "\\equiv "),
        ("⌊", "\\lfloor "),
        ("⌋", "\\rfloor "),
        ("⌈", "\\lceil "),
        ("⌉", "\\rceil "),
        ("∈", "\\in "),
        ("^{\\circ}", " \\degreemark "),
        ("^\\circ", " \\degreemark "),
        ("^{ \\circ }", " \\degreemark "),
        ("{,}", ","),
        ("\\mathbb{R}", "(-\\infty,\\infty)"),
        ("\\mathbb R", "(-\\infty,\\infty)"),
        ("\\,", ""),
        ("\\!", ""),
        ("\\dfrac", "\\frac"),
        ("\\tfrac", "\\frac"),
        ("\\cfrac", "\\frac"),
        ("\\lt", "<"),
        ("\\gt", ">"),
        ("<=", "\\le "),
        (">=", "\\ge "),
        ("!=", "\\ne "),
        ("\\neq", "\\ne "),
        ("\\leqslant", "\\le "),
        ("\\geqslant", "\\ge "),
        ("\\leq", "\\le "),
        ("\\geq", "\\ge "),
        ("\\mleft", "\\left"),
        ("\\mright", "\\right"),
        ("\\lgroup", "("),
        ("\\rgroup", ")"),
        ("\\lbrack", "["),
        ("\\rbrack", "]"),
        ("\\exponentialE", " e "),
        ("\\lbrace", "\\{"),
        ("\\rbrace", "\\}"),
        ("\\lvert", "|"),
        ("\\rvert", "|"),
        ("\\vert", "|"),
        ("\\mid", "|"),
        ("\\%", "%"),
    ] {
        if t.contains(from) {
            t = t.replace(from, to);
        }
    }
    t
}

/// `14 {, }916` to `14,916`: a braced comma (spaces around it and before it dropped) is a plain one.
fn braced_commas(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('{') {
        let inner = &rest[i + 1..];
        let after = inner.trim_start();
        if let Some(close) = after.strip_prefix(',').map(str::trim_start).and_then(|a| a.strip_prefix('}')) {
            out.push_str(rest[..i].trim_end());
            out.push(',');
            rest = close;
        } else {
            out.push_str(&rest[..=i]);
            rest = inner;
        }
    }
    out.push_str(rest);
    out
}

/// `\\\\name` to `\\name` (two backslashes before a letter).
fn undouble_commands(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("\\\\") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        out.push_str(if after.starts_with(|c: char| c.is_ascii_alphabetic()) { "\\" } else { "\\\\" });
        rest = after;
    }
    out.push_str(rest);
    out
}

struct Lexer {
    chars: Vec<char>,
    pos: usize,
    out: Vec<Tok>,
    depth: usize,
    /// Physical units named, canonical (`cm^2`), in order.
    units: Vec<String>,
    /// The power a `square`/`cubic` before the next unit gives it.
    unit_power: Option<u32>,
    /// Tokens read when a wrapper's units were last noted: a `/` or `\\cdot` right after joins the next ones.
    units_end: Option<usize>,
}

/// Tokenise an answer.
pub fn lex(src: &str) -> Result<Vec<Tok>, Failure> {
    lex_with_units(src).map(|(toks, _)| toks)
}

/// Tokenise an answer, with the physical units it names (canonical, sorted, once each): dropped from the
/// value, but `5\text{ cm}` and `5\text{ m}` differ when both sides name one.
pub fn lex_with_units(src: &str) -> Result<(Vec<Tok>, Vec<String>), Failure> {
    let text = normalise(&super::unicode::fold(src));
    let mut lx = Lexer {
        chars: text.chars().collect(),
        pos: 0,
        out: Vec::new(),
        depth: 0,
        units: Vec::new(),
        unit_power: None,
        units_end: None,
    };
    lx.run()?;
    let mut units = lx.units;
    units.sort();
    units.dedup();
    Ok((lx.out, units))
}

impl Lexer {
    fn peek(&self, k: usize) -> Option<char> {
        self.chars.get(self.pos + k).copied()
    }

    fn push(&mut self, t: Tok) -> Result<(), Failure> {
        if self.out.len() >= MAX_TOKENS {
            return Err(Failure::TooLarge("too many tokens"));
        }
        self.out.push(t);
        Ok(())
    }

    fn run(&mut self) -> Result<(), Failure> {
        while let Some(c) = self.peek(0) {
            match c {
                '\\' => self.command()?,
                '0'..='9' | '.' if c != '.' || self.peek(1).is_some_and(|d| d.is_ascii_digit()) => self.number()?,
                c if c.is_alphabetic() => self.word()?,
                '$' | '\'' | '"' | '`' => self.pos += 1,
                // A currency sign (`£45`, `45 €`): the amount is the value, as with `\$`.
                c if unicode::currency_sign(c) => self.pos += 1,
                // The cent sign names the unit (`45¢` is 45 cents).
                '¢' | '￠' => {
                    self.pos += 1;
                    self.units.push("cent".to_owned());
                }
                c if c.is_whitespace() || c == '~' => self.pos += 1,
                '%' => {
                    self.pos += 1;
                    self.push(Tok::Percent)?;
                }
                '&' => {
                    self.pos += 1;
                    self.push(Tok::ColSep)?;
                }
                '{' | '(' | '[' => {
                    self.depth += 1;
                    self.pos += 1;
                    self.push(Tok::Sym(c))?;
                }
                '}' | ')' | ']' => {
                    self.depth = self.depth.saturating_sub(1);
                    self.pos += 1;
                    self.push(Tok::Sym(c))?;
                }
                '^' if self.degree_mark() => {}
                // `2**(1/4)`: a power written as in Python.
                '*' if self.peek(1) == Some('*') => {
                    self.pos += 2;
                    self.push(Tok::Sym('^'))?;
                }
                '+' | '-' | '*' | '/' | '^' | '_' | ',' | '=' | '<' | '>' | '!' | '|' | ';' | ':' | '.' => {
                    self.pos += 1;
                    self.push(Tok::Sym(c))?;
                }
                _ => return Err(Failure::Syntax(format!("unexpected character {c:?}"))),
            }
        }
        Ok(())
    }

    /// At a `^`: skip `^\circ`, `^{\circ}`, `^{ \circ }` (a degree mark) and say whether it was one.
    fn degree_mark(&mut self) -> bool {
        let mut k = self.pos + 1;
        let skip_spaces = |k: &mut usize| {
            while self.chars.get(*k).is_some_and(|c| c.is_whitespace()) {
                *k += 1;
            }
        };
        skip_spaces(&mut k);
        let braced = self.chars.get(k) == Some(&'{');
        if braced {
            k += 1;
            skip_spaces(&mut k);
        }
        let word: String = self.chars.iter().skip(k).take(5).collect();
        if word != "\\circ" || self.chars.get(k + 5).is_some_and(|c| c.is_ascii_alphabetic()) {
            return false;
        }
        k += 5;
        if braced {
            skip_spaces(&mut k);
            if self.chars.get(k) != Some(&'}') {
                return false;
            }
            k += 1;
        }
        self.pos = k;
        self.units.push("deg".to_owned());
        self.temperature_scale();
        true
    }

    /// After a degree mark: a bare `C` or `F` (`25^\circ C`, `77°F`) is the temperature's scale, read as
    /// `\text{C}` is, never a variable multiplying the value.
    fn temperature_scale(&mut self) {
        let mut k = self.pos;
        while self.chars.get(k).is_some_and(|c| c.is_whitespace() || *c == '~') {
            k += 1;
        }
        let Some(&scale) = self.chars.get(k).filter(|c| matches!(c, 'C' | 'F')) else { return };
        if self.chars.get(k + 1).is_some_and(|c| c.is_alphanumeric() || *c == '_' || *c == '^') {
            return;
        }
        self.pos = k + 1;
        self.units.push(scale.to_string());
    }

    fn digits(&mut self, buf: &mut String) -> Result<(), Failure> {
        while let Some(d) = self.peek(0).filter(|d| d.is_ascii_digit()) {
            buf.push(d);
            self.pos += 1;
            if buf.len() > MAX_DIGITS {
                return Err(Failure::TooLarge("number literal too long"));
            }
        }
        Ok(())
    }

    /// After a decimal `buf` (`0.1`, `0.`): a repeating part `\\overline{6}` (or `\\dot{6}`), consumed; the value as
    /// numerator and denominator (`0.1\\overline{6}` = 15/90). `point`: `buf` ended in a point, dropped (`2.`): then
    /// `(6)` right after it is the repeating part too (`2.(6)` is 8/3, never 2 times 6).
    fn repeating(&mut self, buf: &str, point: bool) -> Option<(String, String)> {
        let rest: String = self.chars[self.pos..self.chars.len().min(self.pos + 12 + MAX_DIGITS)].iter().collect();
        let braced = ["\\overline{", "\\dot{", "\\bar{"].iter().find_map(|c| rest.strip_prefix(c));
        let (body, close) = match braced {
            Some(body) => (body, '}'),
            None if point && rest.starts_with('[') => (&rest[1..], ']'),
            None => (rest.strip_prefix('(').filter(|_| point)?, ')'),
        };
        let digits: String = body.chars().take_while(char::is_ascii_digit).collect();
        if digits.is_empty() || !body[digits.len()..].starts_with(close) || buf.contains('e') {
            return None;
        }
        let (int, frac) = buf.split_once('.').unwrap_or((buf, ""));
        // x = int.frac(rep) = (int frac rep − int frac) / (10^|frac| · (10^|rep| − 1))
        let whole: num_bigint::BigInt = format!("{int}{frac}{digits}").parse().ok()?;
        let head: num_bigint::BigInt = format!("{int}{frac}").parse().ok()?;
        let nines = "9".repeat(digits.len());
        let denom = format!("{nines}{}", "0".repeat(frac.len()));
        self.pos += rest.len() - body.len() + digits.len() + 1;
        Some(((whole - head).to_string(), denom))
    }

    /// After a decimal `buf`: an ellipsis (`\\ldots`, `\\dots`, `\\cdots`, `...`, `…`) after a repeated block of its
    /// digits (`0.333\\ldots`, `0.1666...`, `0.142857142857\\dots`), consumed; the repeating decimal as numerator and
    /// denominator. A block seen once (`3.14...`) is no repetition: the ellipsis is left for the reader.
    fn repeated_before_ellipsis(&mut self, buf: &str) -> Option<(String, String)> {
        let (int, frac) = buf.split_once('.')?;
        if buf.contains('e') {
            return None;
        }
        let rest: String = self.chars[self.pos..self.chars.len().min(self.pos + 8)].iter().collect();
        let ellipsis = ELLIPSES.iter().find(|e| rest.starts_with(**e))?;
        let block = repeated_block(frac)?;
        let head = &frac[..frac.len() - block];
        let rep = &frac[frac.len() - block..];
        let whole: num_bigint::BigInt = format!("{int}{head}{rep}").parse().ok()?;
        let start: num_bigint::BigInt = format!("{int}{head}").parse().ok()?;
        self.pos += ellipsis.chars().count();
        Some(((whole - start).to_string(), format!("{}{}", "9".repeat(block), "0".repeat(head.len()))))
    }

    /// Exactly three digits at `self.pos + k` and no digit after them.
    fn group_of_three_at(&self, k: usize) -> bool {
        (0..3).all(|j| self.peek(k + j).is_some_and(|d| d.is_ascii_digit()))
            && !self.peek(k + 3).is_some_and(|d| d.is_ascii_digit())
    }

    /// Characters of the ordinal suffix that follows the integer `digits` (`6th`, `21st`, `6^{th}`, `2^{\\text{nd}}`),
    /// when it is the one its last digits take; else 0.
    fn ordinal_suffix(&self, digits: &str) -> usize {
        let suffix = match (digits.len() >= 2 && digits[digits.len() - 2..].starts_with('1'), digits.chars().last()) {
            (false, Some('1')) => "st",
            (false, Some('2')) => "nd",
            (false, Some('3')) => "rd",
            _ => "th",
        };
        let ahead: String = self.chars[self.pos..self.chars.len().min(self.pos + 16)].iter().collect();
        [
            suffix.to_owned(),
            format!("^{{{suffix}}}"),
            format!("^{{\\text{{{suffix}}}}}"),
            format!("^\\text{{{suffix}}}"),
            format!("^{{\\rm {suffix}}}"),
        ]
        .iter()
        .find(|f| {
            ahead.starts_with(f.as_str())
                && !(f.len() == 2 && ahead[2..].starts_with(|c: char| c.is_alphanumeric() || c == '_'))
        })
        .map_or(0, |f| f.chars().count())
    }

    fn number(&mut self) -> Result<(), Failure> {
        let mut buf = String::new();
        self.digits(&mut buf)?;
        // Thousands separators (`1,000,000`, `1 000`), only outside brackets, where a comma separates items.
        if self.depth == 0 && (1..=3).contains(&buf.len()) {
            // `1 100/101` is a mixed number: a spaced group before `/` is its numerator.
            while matches!(self.peek(0), Some(',') | Some(' '))
                && self.group_of_three_at(1)
                && !(self.peek(0) == Some(' ') && self.peek(4) == Some('/'))
            {
                self.pos += 1;
                self.digits(&mut buf)?;
            }
        }
        let mut point = false;
        if self.peek(0) == Some('.') && self.peek(1).is_some_and(|d| d.is_ascii_digit()) {
            buf.push('.');
            self.pos += 1;
            self.digits(&mut buf)?;
        } else if self.peek(0) == Some('.') && !self.peek(1).is_some_and(|c| c.is_alphabetic()) {
            self.pos += 1; // `5.` is 5
            point = true;
        }
        if !point && !buf.contains('.') {
            self.pos += self.ordinal_suffix(&buf);
        }
        let repeated = if point { None } else { self.repeated_before_ellipsis(&buf) };
        if let Some((numer, denom)) = repeated.or_else(|| self.repeating(&buf, point)) {
            // `0.\\overline{3}` is 1/3: the fraction, in brackets.
            for t in [Tok::Sym('('), Tok::Num(numer), Tok::Sym('/'), Tok::Num(denom), Tok::Sym(')')] {
                self.push(t)?;
            }
            return Ok(());
        }
        // Scientific notation written plainly: 1.5e3, 2E-4.
        if matches!(self.peek(0), Some('e') | Some('E')) {
            let sign = usize::from(matches!(self.peek(1), Some('+') | Some('-')));
            if self.peek(1 + sign).is_some_and(|d| d.is_ascii_digit()) {
                buf.push('e');
                if sign == 1 {
                    buf.push(self.peek(1).unwrap_or('+'));
                }
                self.pos += 1 + sign;
                self.digits(&mut buf)?;
            }
        }
        self.push(Tok::Num(buf))
    }

    fn word(&mut self) -> Result<(), Failure> {
        let start = self.pos;
        while self.peek(0).is_some_and(|c| c.is_alphabetic()) {
            self.pos += 1;
        }
        let word: String = self.chars[start..self.pos].iter().collect();
        // Primes name another variable, point or derivative (`x'`, `A''`, `f'(x)`, `AB'`: the last letter's); a
        // quoted letter (`'x'`) is the letter.
        let quoted = start > 0 && self.chars[start - 1] == '\'';
        let mut primes = String::new();
        while !quoted && self.peek(0) == Some('\'') {
            self.pos += 1;
            primes.push('\'');
        }
        // `USD 42`, `Rs. 42`, `US$42`: a currency code before the amount.
        let rest: String = self.chars[self.pos..self.chars.len().min(self.pos + 8)].iter().collect();
        let code = format!("{word}{}", if rest.starts_with(['$', '.']) { &rest[..1] } else { "" });
        if primes.is_empty()
            && CURRENCY_CODES.contains(&code.as_str())
            && rest[code.len() - word.len()..].trim_start().starts_with(|c: char| c.is_ascii_digit() || c == '\\')
        {
            self.pos += code.chars().count() - word.chars().count();
            return Ok(());
        }
        if word.chars().count() == 1 {
            // `1250元`: a one-character unit of another script after a value.
            if let Some(name) = canonical_unit(&word).filter(|_| !word.is_ascii() && primes.is_empty()) {
                if matches!(self.out.last(), Some(Tok::Num(_))) {
                    self.units.push(name.to_owned());
                    return Ok(());
                }
            }
            return self.push(Tok::Ident(word + &primes));
        }
        let lower = word.to_ascii_lowercase();
        if let Some((_, cmd)) = SPELLED.iter().find(|(w, _)| *w == lower) {
            return self.push(Tok::Cmd((*cmd).to_owned()));
        }
        if FUNCS.contains(&lower.as_str())
            || CALLS.contains(&lower.as_str()) && self.arguments_follow()
            || lower == "mod"
        {
            return self.push(Tok::Cmd(lower));
        }
        match lower.as_str() {
            // `1, 2, and 3`, `1,2, or 3`: one separator.
            "and" | "or" if self.out.last() == Some(&Tok::Sym(',')) => return Ok(()),
            "and" | "or" => return self.push(Tok::Sym(',')),
            "percent" | "percentage" | "pct" => return self.push(Tok::Percent),
            _ => {}
        }
        if let Some(tokens) = multiplier(&lower) {
            for t in tokens {
                self.push(t)?;
            }
            return Ok(());
        }
        // Not after a term of a sum (`2-3cm` is no -1 cm).
        if is_unit(&word) && !self.ends_a_sum() {
            self.note_unit(&word);
            return self.skip_unit_power();
        }
        // A run of letters is implicit multiplication of one-letter variables (`xy`), unless it is a word; a
        // run of capitals names points (`AB`, `NO`, `MBCN`).
        let lowercase = word.chars().count() <= 3 && word.chars().all(|c| c.is_ascii_lowercase());
        let points = word.chars().count() <= 4 && word.chars().all(|c| c.is_ascii_uppercase());
        if points || lowercase && !WORDS.contains(&lower.as_str()) {
            let last = word.chars().count() - 1;
            for (i, ch) in word.chars().enumerate() {
                let name = if i == last { format!("{ch}{primes}") } else { ch.to_string() };
                self.push(Tok::Ident(name))?;
            }
            return Ok(());
        }
        self.push(Tok::Word(lower))
    }

    /// Remember a unit word (count nouns such as `people` are labels, not units; `square`/`cubic` give the
    /// next unit its power).
    fn note_unit(&mut self, word: &str) {
        let lower = word.to_ascii_lowercase();
        match lower.as_str() {
            "square" | "sq" => self.unit_power = Some(2),
            "cubic" => self.unit_power = Some(3),
            _ => {
                if let Some(name) = canonical_unit(word) {
                    let power = self.unit_power.take().map_or(String::new(), |p| format!("^{p}"));
                    self.units.push(format!("{name}{power}"));
                }
            }
        }
    }

    /// Note the units of a wrapper's words (`kg m/s^2`, `km per hour`, `square meters`) as one product, each
    /// unit once with its power (`m/s/s` is `m s^-2`); one after `/` or `per` is divided by (`s^-2`, `h^-1`).
    fn note_units(&mut self, spaced: &str) {
        let mut product: Vec<(&'static str, i64)> = Vec::new();
        let (mut below, mut raised) = (false, 1);
        for w in spaced.replace('/', " / ").split_whitespace() {
            match w.to_ascii_lowercase().as_str() {
                "/" | "per" => below = true,
                "square" | "sq" => raised = 2,
                "cubic" => raised = 3,
                _ => {
                    let (unit, power) = unit_and_power(w.trim_matches(['.', ',']));
                    let power = power.map_or(Some(1), |p| p.parse::<i64>().ok());
                    if let (Some(name), Some(p)) = (wrapped_unit(unit), power) {
                        let p = p * raised * if below { -1 } else { 1 };
                        match product.iter_mut().find(|(n, _)| *n == name) {
                            Some(entry) => entry.1 += p,
                            None => product.push((name, p)),
                        }
                    }
                    (below, raised) = (false, 1);
                }
            }
        }
        self.units.extend(product.into_iter().filter(|&(_, p)| p != 0).map(|(name, p)| with_power(name, p)));
    }

    /// Is the value just read the last term of a sum or difference (`2+3`, `x-1`, `(1+2)(3)+4`), within the
    /// relation side and bracket it is in? A sign before a first term is no sum (`-3`, `= -3`).
    fn ends_a_sum(&self) -> bool {
        let mut depth = 0usize;
        for (i, t) in self.out.iter().enumerate().rev() {
            match t {
                Tok::Sym(')' | ']' | '}') | Tok::SetClose => depth += 1,
                Tok::Sym('(' | '[' | '{') | Tok::SetOpen if depth == 0 => return false,
                Tok::Sym('(' | '[' | '{') | Tok::SetOpen => depth -= 1,
                _ if depth > 0 => {}
                Tok::Sym('+' | '-') | Tok::Pm => {
                    return i > 0
                        && matches!(
                            self.out[i - 1],
                            Tok::Num(_) | Tok::Ident(_) | Tok::Sym(')' | ']' | '}') | Tok::SetClose | Tok::Percent
                        )
                }
                Tok::Sym('=' | '<' | '>' | ',' | ';') | Tok::Le | Tok::Ge | Tok::Ne | Tok::Approx => return false,
                Tok::RowSep | Tok::ColSep => return false,
                _ => {}
            }
        }
        false
    }

    /// Does an argument list follow (`(`, or a command: `\left(`, `\{`), after spaces?
    fn arguments_follow(&self) -> bool {
        let next = self.chars[self.pos..].iter().find(|c| !c.is_whitespace());
        matches!(next, Some('(' | '\\'))
    }

    /// After a dropped unit, a `^2`/`^{3}` belongs to the unit (and is noted on it).
    fn skip_unit_power(&mut self) -> Result<(), Failure> {
        if self.peek(0) == Some('^') {
            let power: String = match self.peek(1) {
                Some('{') => {
                    let close = (self.pos + 2..self.chars.len()).find(|&i| self.chars[i] == '}');
                    let end = close.unwrap_or(self.chars.len());
                    let inner = self.chars[self.pos + 2..end].iter().collect();
                    self.pos = close.map_or(self.chars.len(), |i| i + 1);
                    inner
                }
                Some(d) if d.is_ascii_digit() => {
                    self.pos += 2;
                    d.to_string()
                }
                _ => String::new(),
            };
            if let Some(last) = self.units.last_mut().filter(|_| !power.trim().is_empty()) {
                // `\\text{ m/s}^2`: the power raises the unit's own (`s^-1` to `s^-2`).
                let (name, own) = last.split_once('^').map_or((last.as_str(), Some(1)), |(n, p)| (n, p.parse().ok()));
                *last = match (own, power.trim().parse::<i64>()) {
                    (Some(own), Ok(p)) => with_power(name, own * p),
                    _ => format!("{last}^{}", power.trim()),
                };
            }
        }
        Ok(())
    }

    fn command(&mut self) -> Result<(), Failure> {
        self.pos += 1; // the backslash
        let Some(c) = self.peek(0) else { return Ok(()) };
        if !c.is_ascii_alphabetic() {
            self.pos += 1;
            return match c {
                '{' => {
                    self.depth += 1;
                    self.push(Tok::SetOpen)
                }
                '}' => {
                    self.depth = self.depth.saturating_sub(1);
                    self.push(Tok::SetClose)
                }
                '\\' => self.push(Tok::RowSep),
                '%' => self.push(Tok::Percent),
                // `\,` `\!` `\;` `\:` `\ ` spacing, `\$` currency, `\(` `\)` `\[` `\]` math delimiters.
                _ => Ok(()),
            };
        }
        let start = self.pos;
        while self.peek(0).is_some_and(|c| c.is_ascii_alphabetic()) {
            self.pos += 1;
        }
        let name: String = self.chars[start..self.pos].iter().collect();
        if IGNORED.contains(&name.as_str()) || CURRENCY_COMMANDS.contains(&name.as_str()) {
            return Ok(());
        }
        // `\quadx_2`: spacing glued to the next letters.
        for spacing in ["qquad", "quad"] {
            if name.len() > spacing.len() && name.starts_with(spacing) && !self.known(&name) {
                self.pos = start + spacing.len();
                return Ok(());
            }
        }
        if name == "operatorname" {
            return self.operator_name();
        }
        if WRAPPERS.contains(&name.as_str()) {
            return self.wrapper();
        }
        if INVISIBLE.contains(&name.as_str()) {
            return self.skip_braced();
        }
        match name.as_str() {
            "begin" | "end" => {
                let env = self.braced_name();
                if name == "begin" && env.starts_with("array") {
                    self.braced_name(); // the column specification
                }
                self.push(if name == "begin" { Tok::Begin(env) } else { Tok::End(env) })
            }
            // A degree mark (`30^\\circ`, `30°`): dropped from the value, kept as the unit.
            "degreemark" => {
                self.units.push("deg".to_owned());
                self.temperature_scale();
                Ok(())
            }
            "textcent" | "cent" => {
                self.units.push("cent".to_owned());
                Ok(())
            }
            // `7\\,\\Omega`: ohms after a value.
            "Omega" if matches!(self.out.last(), Some(Tok::Num(_))) => {
                self.units.push("ohm".to_owned());
                self.skip_unit_power()
            }
            "le" => self.push(Tok::Le),
            "ge" => self.push(Tok::Ge),
            "ne" => self.push(Tok::Ne),
            "pm" | "mp" => self.push(Tok::Pm),
            "cdot" | "times" | "ast" => self.push(Tok::Sym('*')),
            "div" => self.push(Tok::Sym('/')),
            "colon" => self.push(Tok::Sym(':')),
            // An approximate value is the answer given (`x \approx 2.5`).
            "approx" | "simeq" | "doteq" => self.push(Tok::Approx),
            // `\color{red}{5}`, `{\color{red} 5}`, `\textcolor{red}{5}`: the colour is presentation.
            "color" | "textcolor" | "colorbox" => {
                self.colour_model();
                self.braced_name();
                Ok(())
            }
            _ => self.push(Tok::Cmd(name)),
        }
    }

    /// Is `name` a command the lexer or parser knows (so `\quadrant` is not read as `\quad rant`)?
    fn known(&self, name: &str) -> bool {
        WRAPPERS.contains(&name) || FUNCS.contains(&name)
    }

    /// Skip a braced argument (nested braces included), if one follows.
    fn skip_braced(&mut self) -> Result<(), Failure> {
        while self.peek(0).is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
        if self.peek(0) != Some('{') {
            return Ok(());
        }
        let mut depth = 0usize;
        while let Some(c) = self.peek(0) {
            self.pos += 1;
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                _ => {}
            }
        }
        Err(Failure::Syntax("unbalanced braces".into()))
    }

    /// `\operatorname{lcm}`: a function this verifier knows, or an error (an unknown function is not its
    /// argument, nor a product of its letters).
    fn operator_name(&mut self) -> Result<(), Failure> {
        let name = self.braced_name().to_ascii_lowercase();
        if FUNCS.contains(&name.as_str()) || CALLS.contains(&name.as_str()) || matches!(name.as_str(), "mod" | "lg") {
            return self.push(Tok::Cmd(name));
        }
        Err(Failure::Unsupported("unknown \\operatorname"))
    }

    /// The optional `[rgb]` of `\color[rgb]{...}`.
    fn colour_model(&mut self) {
        while self.peek(0).is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
        if self.peek(0) == Some('[') {
            let end = (self.pos..self.chars.len()).find(|&i| self.chars[i] == ']').unwrap_or(self.chars.len());
            self.pos = (end + 1).min(self.chars.len());
        }
    }

    /// `{name}` after `\begin`/`\end` (`pmatrix*` keeps its star).
    fn braced_name(&mut self) -> String {
        while self.peek(0).is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
        if self.peek(0) != Some('{') {
            return String::new();
        }
        let start = self.pos + 1;
        let end = (start..self.chars.len()).find(|&i| self.chars[i] == '}').unwrap_or(self.chars.len());
        self.pos = (end + 1).min(self.chars.len());
        self.chars[start..end].iter().collect::<String>().trim().to_owned()
    }

    /// `\text{...}` and friends: a unit inside is dropped, other content is tokenised in place.
    /// A wrapper's braced argument: a unit or label after a value (dropped, units noted), words announcing the
    /// value, or content read in place. One lowercase letter that is no unit, with no space before it, is a
    /// symbol (`3\\mathrm{i}`, `2+5\\text{i}`, `2\\mathrm{e}`, `\\mathbf{j}`), not a label; a capital after a
    /// value is a unit (`300\\,\\mathrm{K}`, `2\\,\\mathrm{A}`).
    fn wrapper(&mut self) -> Result<(), Failure> {
        while self.peek(0).is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
        if self.peek(0) != Some('{') {
            return Ok(()); // `\bf 5`: the switch alone
        }
        let mut depth = 0usize;
        let mut end = None;
        for i in self.pos..self.chars.len() {
            match self.chars[i] {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(i);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(end) = end else { return Err(Failure::Syntax("unbalanced braces in \\text".into())) };
        let inner: String = self.chars[self.pos + 1..end].iter().collect();
        // `\text{ m/s}`, `\text{km per hour}`, `\mathrm{~kg \cdot m/s^{2}}`: every word a unit (or "per"), with its
        // power; `~` and spacing commands are spaces, and a product's dot joins two units.
        let spaced = unit_spacing(&inner);
        let words: Vec<&str> =
            spaced.split(|c: char| c.is_whitespace() || c == '/').filter(|w| !w.is_empty()).collect();
        // A words-only `\text{}` ending an answer that has something before it is a unit or a label too
        // (`5\text{ dozen}`, `12 \text{ outfits}`).
        let last = self.chars[end + 1..].iter().all(|c| c.is_whitespace() || matches!(c, '$' | '.'));
        let percent = ["percent", "percentage", "pct"].contains(&inner.trim());
        let letter = inner.trim_matches([' ', '~']);
        let symbol = letter.chars().count() == 1
            && letter.chars().all(char::is_alphabetic)
            && !is_unit(letter)
            && wrapped_unit(letter).is_none();
        // Units after a term of a sum are read in place (`2+3\\mathbf{m}` is no 5 m), neither units nor a label.
        let summed = self.ends_a_sum() && unit_group(&inner);
        let label = last
            && !percent
            && !symbol
            && !summed
            && !self.out.is_empty()
            && spaced.chars().all(|c| c.is_alphabetic() || c.is_whitespace());
        // A multiplier (`5\text{ thousand}` is 5000) or a qualifier (`5\text{ or more}`) changes the value: it is
        // read, never dropped as a label.
        let meaningful = words.iter().any(|w| {
            let lower = w.to_ascii_lowercase();
            multiplier(&lower).is_some()
                || QUALIFIERS.contains(&lower.as_str())
                || SCALES.contains(&lower.as_str())
                || SCALE_ABBREVIATIONS.contains(w)
        });
        // A unit follows a value (`5\\,\\mathrm{N}`); a subscript makes it a name (`\\mathrm{N}_{1}`), and with
        // nothing before it, it is the value (`\\frac{\\mathrm{N}_1}{\\mathrm{N}}`).
        let after_value = matches!(self.out.last(), Some(Tok::Num(_) | Tok::Ident(_) | Tok::Sym(')' | '}' | ']')));
        // `\\mathrm{m}/\\mathrm{s}`, `\\mathrm{N} \\cdot \\mathrm{m}`: a unit joined to the units just read; `5/\\text{hour}`:
        // a value per unit.
        let n = self.out.len();
        let joined = match self.out.last() {
            Some(Tok::Sym('*')) => self.units_end == Some(n - 1),
            Some(Tok::Sym('/')) => self.units_end == Some(n - 1) || n == 2 && matches!(self.out[0], Tok::Num(_)),
            _ => false,
        };
        // Units end a quantity: not before a term added to it (`2\\mathrm{m}+1` is no 2 m).
        let follows = self.chars[end + 1..].iter().find(|c| !c.is_whitespace());
        let units = !words.is_empty()
            && (after_value && !summed || joined)
            && !follows.is_some_and(|c| matches!(c, '+' | '-' | '−') || c.is_ascii_digit())
            && self.chars.get(end + 1) != Some(&'_')
            && unit_group(&inner);
        // `\\text{The answer is } 5`, `\\text{exactly } 12`: words before the value that only announce it.
        let announcing = self.out.is_empty()
            && !words.is_empty()
            && words
                .iter()
                .all(|w| ANNOUNCING.contains(&w.trim_matches([':', '.', ',']).to_ascii_lowercase().as_str()));
        if announcing || !meaningful && (label || units) {
            if units {
                let below = joined && self.out.pop() == Some(Tok::Sym('/'));
                self.note_units(&if below { format!("/ {spaced}") } else { spaced });
                self.units_end = Some(self.out.len());
            }
            self.pos = end + 1;
            return self.skip_unit_power();
        }
        // Re-lex the content in place: `\text{(C)}` is `(C)`, `\mathbf{5}` is 5.
        self.chars.splice(self.pos..=end, inner.chars().collect::<Vec<_>>());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        lex(s).unwrap()
    }

    #[test]
    fn currency_units_are_canonical_names() {
        let words = ["dollars", "euros", "GBP", "chf", "pesos", "yuan", "円", "rupees", "zł", "kč", "kr"];
        let names: Vec<_> = words.iter().map(|w| canonical_unit(w).expect("a unit")).collect();
        assert_eq!(names, CURRENCY_UNITS);
    }

    #[test]
    fn units_in_a_math_font_with_their_powers() {
        let units = |s: &str| lex_with_units(s).unwrap();
        let five = vec![Tok::Num("5".into())];
        assert_eq!(units("5 \\mathrm{~J}"), (five.clone(), vec!["J".to_owned()]));
        assert_eq!(
            units("5 \\mathrm{~kg \\cdot m/s^{2}}"),
            (five.clone(), vec!["kg".into(), "m".into(), "s^-2".into()])
        );
        let mut per_hour = units("5\\,\\text{km per hour}").1;
        per_hour.sort();
        assert_eq!(per_hour, vec!["h^-1".to_owned(), "km".into()]);
        assert_eq!(units("5 \\mathrm{~m \\cdot s^{-1}}").1, units("5 \\mathrm{~m/s}").1);
        // One lowercase letter in a math alphabet is a symbol (`3\\mathrm{i}`), unless it is a unit.
        assert_eq!(units("3\\mathrm{i}").0, vec![Tok::Num("3".into()), Tok::Ident("i".into())]);
        assert_eq!(units("3\\mathrm{m}"), (vec![Tok::Num("3".into())], vec!["m".to_owned()]));
    }

    #[test]
    fn numbers_and_separators() {
        assert_eq!(toks("1,000,000"), vec![Tok::Num("1000000".into())]);
        assert_eq!(toks("1{,}000"), vec![Tok::Num("1000".into())]);
        assert_eq!(toks("1\\,000"), vec![Tok::Num("1000".into())]);
        assert_eq!(
            toks("(1,000)"),
            vec![Tok::Sym('('), Tok::Num("1".into()), Tok::Sym(','), Tok::Num("000".into()), Tok::Sym(')')]
        );
        assert_eq!(toks("1.5e3"), vec![Tok::Num("1.5e3".into())]);
        assert_eq!(toks("12,5"), vec![Tok::Num("12".into()), Tok::Sym(','), Tok::Num("5".into())]);
    }

    #[test]
    fn presentation_is_dropped() {
        assert_eq!(toks("30^\\circ"), vec![Tok::Num("30".into())]);
        assert_eq!(toks("5\\text{ cm}^2"), vec![Tok::Num("5".into())]);
        assert_eq!(toks("\\$1,000"), vec![Tok::Num("1000".into())]);
        assert_eq!(toks("\\left( x \\right)"), vec![Tok::Sym('('), Tok::Ident("x".into()), Tok::Sym(')')]);
        assert_eq!(toks("\\text{(C)}"), vec![Tok::Sym('('), Tok::Ident("C".into()), Tok::Sym(')')]);
        assert_eq!(toks("5 meters"), vec![Tok::Num("5".into())]);
        assert_eq!(toks("x''"), vec![Tok::Ident("x''".into())]);
        assert_eq!(toks("'x'"), vec![Tok::Ident("x".into())]);
        assert_eq!(toks("AB'"), vec![Tok::Ident("A".into()), Tok::Ident("B'".into())]);
        assert_eq!(toks("5\\,\\mathrm{N}"), vec![Tok::Num("5".into())]);
        // A unit's letters with a subscript, or with no value before them, are a name (GAOKAO's
        // `\frac{\mathrm{N}_{1}}{\mathrm{~N}}`).
        assert_eq!(toks("\\mathrm{N}_{1}"), toks("N_{1}"));
        assert_eq!(toks("\\frac{\\mathrm{N}_{1}}{\\mathrm{N}}"), toks("\\frac{N_{1}}{N}"));
    }

    #[test]
    fn limits() {
        assert!(matches!(lex(&"9".repeat(100_000)), Err(Failure::TooLarge(_))));
    }
}

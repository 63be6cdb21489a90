//! HTML character references in a model's text (`&gt;=`, `&ge;`, `&#8805;`, `&minus;`), decoded before the
//! answer is looked for: a page renders them as the relation or sign they name, so the reading around an
//! answer must see that relation too (`x &ge; \boxed{5}` is a bound). Decoded as the HTML tokenizer does in
//! text content (Python's `html.unescape`): every WHATWG named reference, the longest name that starts the
//! text winning (`&notin;` is `∉`, `&notit;` is `¬it;`, legacy `&gt5` is `>5`), and decimal or hex numbers
//! with or without `;` and with any number of leading zeros. One pass, never recursive (`&amp;gt;` is
//! `&gt;`), linear in the input; a decoded reference is at most 6/5 of the reference's length (`&nGt;`, 5
//! bytes, is U+226B U+20D2, 6; a numeric one is never longer).

use std::borrow::Cow;

use super::entities_table::{NAMED, WINDOWS_1252};

/// Longest name in [`NAMED`] without its `;` (`CounterClockwiseContourIntegral`): how far a name is read.
const MAX_NAME: usize = 31;

/// Longest legacy name, one a page renders without its `;` (`frac34`).
const MAX_LEGACY: usize = 6;

/// The text with its HTML character references decoded; borrowed when it has none.
pub fn decode(s: &str) -> Cow<'_, str> {
    if !s.contains('&') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp + 1..];
        let read = match after.strip_prefix('#') {
            Some(number) => numeric(number, &mut out).map(|len| len + 1),
            None => named(after, &mut out),
        };
        match read {
            Some(len) => rest = &after[len..],
            None => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// The numeric reference after `&#` (`8805;`, `x2265`): writes what it renders as to `out` and returns its
/// length, or `None` without a digit (`&#;`, `&#xZZ` are text).
fn numeric(s: &str, out: &mut String) -> Option<usize> {
    let bytes = s.as_bytes();
    let (radix, start) = if matches!(bytes.first(), Some(b'x' | b'X')) { (16, 1) } else { (10, 0) };
    let mut code: u32 = 0;
    let mut end = start;
    // Every digit is read (as the tokenizer does) but the value saturates just past the last code point, so
    // a run of leading zeros or of digits costs one step each.
    while let Some(digit) = bytes.get(end).and_then(|&b| char::from(b).to_digit(radix)) {
        code = (code * radix + digit).min(0x11_0000);
        end += 1;
    }
    if end == start {
        return None;
    }
    if bytes.get(end) == Some(&b';') {
        end += 1;
    }
    out.extend(character(code));
    Some(end)
}

/// The character a numeric reference to `code` renders as.
fn character(code: u32) -> Option<char> {
    match code {
        0 | 0xD800..=0xDFFF | 0x11_0000.. => Some('\u{FFFD}'),
        0x80..=0x9F => Some(WINDOWS_1252[(code - 0x80) as usize]).filter(|c| !c.is_control()),
        // A control character other than whitespace, or a noncharacter, is no text a page shows: decoded to
        // nothing, as `html.unescape` does, so `n&#1;ot` reads as the "not" a reader sees rather than leaving
        // a reference that splits the word. (Unlike `html.unescape`, the five C1 controls windows-1252 leaves
        // undefined, `&#x81;` and the like, are dropped too: the same rule for every control.)
        _ => char::from_u32(code).filter(|&c| {
            let noncharacter = (0xFDD0..=0xFDEF).contains(&code) || code & 0xFFFE == 0xFFFE;
            !noncharacter && (!c.is_control() || matches!(c, '\t' | '\n' | '\x0C' | '\r'))
        }),
    }
}

/// The named reference after `&`: writes what it renders as to `out` and returns the length of the longest
/// name in [`NAMED`] that starts `s` (`notin;` whole, or legacy `not` in `notit;`), or `None` if none does.
fn named(s: &str, out: &mut String) -> Option<usize> {
    let bytes = s.as_bytes();
    let run = bytes.iter().take(MAX_NAME + 1).take_while(|b| b.is_ascii_alphanumeric()).count();
    // Names hold only ASCII letters and digits, and a `;` only at their end: so the candidates are the run
    // with its `;`, then the run's prefixes short enough for a legacy name, longest first.
    let with_semicolon = (bytes.get(run) == Some(&b';')).then_some(run + 1);
    let (len, text) = with_semicolon
        .into_iter()
        .chain((1..=run.min(MAX_LEGACY)).rev())
        .find_map(|len| lookup(&s[..len]).map(|text| (len, text)))?;
    out.push_str(text);
    Some(len)
}

/// What the named reference `name` (without its `&`) stands for.
fn lookup(name: &str) -> Option<&'static str> {
    NAMED.binary_search_by_key(&name, |&(n, _)| n).ok().map(|i| NAMED[i].1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Inputs and what CPython 3.11's `html.unescape` makes of them (the five C1 controls it keeps removed):
    /// the references a red team used to hide a relation, legacy names without `;`, longest-prefix names,
    /// numbers with and without `;`, with leading zeros, out of range, surrogates, controls and windows-1252.
    const UNESCAPE: &[(&str, &str)] = &[
        ("x &NotEqual; \\boxed{5}", "x \u{2260} \\boxed{5}"),
        ("x &nlt; \\boxed{5}", "x \u{226e} \\boxed{5}"),
        ("x &ngt; \\boxed{5}", "x \u{226f} \\boxed{5}"),
        ("x &nle; \\boxed{5}", "x \u{2270} \\boxed{5}"),
        ("x &nge; \\boxed{5}", "x \u{2271} \\boxed{5}"),
        ("x &nap; \\boxed{5}", "x \u{2249} \\boxed{5}"),
        ("x &notin; \\boxed{5}", "x \u{2209} \\boxed{5}"),
        ("x &ncong; \\boxed{5}", "x \u{2247} \\boxed{5}"),
        ("x &nequiv; \\boxed{5}", "x \u{2262} \\boxed{5}"),
        ("x &not; \\boxed{5}", "x \u{ac} \\boxed{5}"),
        ("x &GreaterEqual; \\boxed{5}", "x \u{2265} \\boxed{5}"),
        ("x &geqslant; \\boxed{5}", "x \u{2a7e} \\boxed{5}"),
        ("x &ges; \\boxed{5}", "x \u{2a7e} \\boxed{5}"),
        ("x &gE; \\boxed{5}", "x \u{2267} \\boxed{5}"),
        ("x &geqq; \\boxed{5}", "x \u{2267} \\boxed{5}"),
        ("x &leqslant; \\boxed{5}", "x \u{2a7d} \\boxed{5}"),
        ("x &les; \\boxed{5}", "x \u{2a7d} \\boxed{5}"),
        ("x &lE; \\boxed{5}", "x \u{2266} \\boxed{5}"),
        ("x &gtrsim; \\boxed{5}", "x \u{2273} \\boxed{5}"),
        ("x &lesssim; \\boxed{5}", "x \u{2272} \\boxed{5}"),
        ("x &gg; \\boxed{5}", "x \u{226b} \\boxed{5}"),
        ("x &ap; \\boxed{5}", "x \u{2248} \\boxed{5}"),
        ("x &approxeq; \\boxed{5}", "x \u{224a} \\boxed{5}"),
        ("x &thkap; \\boxed{5}", "x \u{2248} \\boxed{5}"),
        ("x &cong; \\boxed{5}", "x \u{2245} \\boxed{5}"),
        ("x &efDot; \\boxed{5}", "x \u{2252} \\boxed{5}"),
        ("x &excl; \\boxed{5}", "x ! \\boxed{5}"),
        ("x &quest; \\boxed{5}", "x ? \\boxed{5}"),
        ("x &sup2; \\boxed{5}", "x \u{b2} \\boxed{5}"),
        ("x &frasl; \\boxed{5}", "x \u{2044} \\boxed{5}"),
        ("x &permil; \\boxed{5}", "x \u{2030} \\boxed{5}"),
        ("x &shy; \\boxed{5}", "x \u{ad} \\boxed{5}"),
        ("x &NotGreater; \\boxed{5}", "x \u{226f} \\boxed{5}"),
        ("x &NotLess; \\boxed{5}", "x \u{226e} \\boxed{5}"),
        ("x &nsim; \\boxed{5}", "x \u{2241} \\boxed{5}"),
        ("x &nsime; \\boxed{5}", "x \u{2244} \\boxed{5}"),
        ("x &ne; \\boxed{5}", "x \u{2260} \\boxed{5}"),
        ("x &neq; \\boxed{5}", "x &neq; \\boxed{5}"),
        ("x &nvge; \\boxed{5}", "x \u{2265}\u{20d2} \\boxed{5}"),
        ("x &nvle; \\boxed{5}", "x \u{2264}\u{20d2} \\boxed{5}"),
        ("x &ngeq; \\boxed{5}", "x \u{2271} \\boxed{5}"),
        ("x &nleq; \\boxed{5}", "x \u{2270} \\boxed{5}"),
        ("x &ngeqslant; \\boxed{5}", "x \u{2a7e}\u{338} \\boxed{5}"),
        ("x &nGt; \\boxed{5}", "x \u{226b}\u{20d2} \\boxed{5}"),
        ("x &nLt; \\boxed{5}", "x \u{226a}\u{20d2} \\boxed{5}"),
        ("x &GreaterSlantEqual; \\boxed{5}", "x \u{2a7e} \\boxed{5}"),
        ("x &LessSlantEqual; \\boxed{5}", "x \u{2a7d} \\boxed{5}"),
        ("x &LessEqualGreater; \\boxed{5}", "x \u{22da} \\boxed{5}"),
        ("x &pm; \\boxed{5}", "x \u{b1} \\boxed{5}"),
        ("x &PlusMinus; \\boxed{5}", "x \u{b1} \\boxed{5}"),
        ("x &MinusPlus; \\boxed{5}", "x \u{2213} \\boxed{5}"),
        ("x &mnplus; \\boxed{5}", "x \u{2213} \\boxed{5}"),
        ("x &minusb; \\boxed{5}", "x \u{229f} \\boxed{5}"),
        ("x &Element; \\boxed{5}", "x \u{2208} \\boxed{5}"),
        ("x &NotElement; \\boxed{5}", "x \u{2209} \\boxed{5}"),
        ("x &isin; \\boxed{5}", "x \u{2208} \\boxed{5}"),
        ("x &in; \\boxed{5}", "x \u{2208} \\boxed{5}"),
        ("x &ni; \\boxed{5}", "x \u{220b} \\boxed{5}"),
        ("x &sube; \\boxed{5}", "x \u{2286} \\boxed{5}"),
        ("x &supe; \\boxed{5}", "x \u{2287} \\boxed{5}"),
        ("x &sub; \\boxed{5}", "x \u{2282} \\boxed{5}"),
        ("x &sup; \\boxed{5}", "x \u{2283} \\boxed{5}"),
        ("x &subne; \\boxed{5}", "x \u{228a} \\boxed{5}"),
        ("x &lsim; \\boxed{5}", "x \u{2272} \\boxed{5}"),
        ("x &gsim; \\boxed{5}", "x \u{2273} \\boxed{5}"),
        ("x &lap; \\boxed{5}", "x \u{2a85} \\boxed{5}"),
        ("x &gap; \\boxed{5}", "x \u{2a86} \\boxed{5}"),
        ("x &lne; \\boxed{5}", "x \u{2a87} \\boxed{5}"),
        ("x &gne; \\boxed{5}", "x \u{2a88} \\boxed{5}"),
        ("x &lnE; \\boxed{5}", "x \u{2268} \\boxed{5}"),
        ("x &gnE; \\boxed{5}", "x \u{2269} \\boxed{5}"),
        ("x &lneq; \\boxed{5}", "x \u{2a87} \\boxed{5}"),
        ("x &gneq; \\boxed{5}", "x \u{2a88} \\boxed{5}"),
        ("x &ll; \\boxed{5}", "x \u{226a} \\boxed{5}"),
        ("x &Lt; \\boxed{5}", "x \u{226a} \\boxed{5}"),
        ("x &Gt; \\boxed{5}", "x \u{226b} \\boxed{5}"),
        ("x &nwarr; \\boxed{5}", "x \u{2196} \\boxed{5}"),
        ("x &rarr; \\boxed{5}", "x \u{2192} \\boxed{5}"),
        ("x &rArr; \\boxed{5}", "x \u{21d2} \\boxed{5}"),
        ("x &Implies; \\boxed{5}", "x \u{21d2} \\boxed{5}"),
        ("x &iff; \\boxed{5}", "x \u{21d4} \\boxed{5}"),
        ("x &ZeroWidthSpace; \\boxed{5}", "x \u{200b} \\boxed{5}"),
        ("x &NegativeThinSpace; \\boxed{5}", "x \u{200b} \\boxed{5}"),
        ("x &InvisibleTimes; \\boxed{5}", "x \u{2062} \\boxed{5}"),
        ("x &it; \\boxed{5}", "x \u{2062} \\boxed{5}"),
        ("x &af; \\boxed{5}", "x \u{2061} \\boxed{5}"),
        ("x &ic; \\boxed{5}", "x \u{2063} \\boxed{5}"),
        ("x &NoBreak; \\boxed{5}", "x \u{2060} \\boxed{5}"),
        ("x &nbsp; \\boxed{5}", "x \u{a0} \\boxed{5}"),
        ("x &ensp; \\boxed{5}", "x \u{2002} \\boxed{5}"),
        ("x &emsp; \\boxed{5}", "x \u{2003} \\boxed{5}"),
        ("x &hairsp; \\boxed{5}", "x \u{200a} \\boxed{5}"),
        ("x &zwnj; \\boxed{5}", "x \u{200c} \\boxed{5}"),
        ("x &zwj; \\boxed{5}", "x \u{200d} \\boxed{5}"),
        ("x &lrm; \\boxed{5}", "x \u{200e} \\boxed{5}"),
        ("x &rlm; \\boxed{5}", "x \u{200f} \\boxed{5}"),
        ("x &sup1; \\boxed{5}", "x \u{b9} \\boxed{5}"),
        ("x &sup3; \\boxed{5}", "x \u{b3} \\boxed{5}"),
        ("x &frac12; \\boxed{5}", "x \u{bd} \\boxed{5}"),
        ("x &half; \\boxed{5}", "x \u{bd} \\boxed{5}"),
        ("x &frac13; \\boxed{5}", "x \u{2153} \\boxed{5}"),
        ("x &frac58; \\boxed{5}", "x \u{215d} \\boxed{5}"),
        ("x &ordm; \\boxed{5}", "x \u{ba} \\boxed{5}"),
        ("x &ordf; \\boxed{5}", "x \u{aa} \\boxed{5}"),
        ("x &deg; \\boxed{5}", "x \u{b0} \\boxed{5}"),
        ("x &micro; \\boxed{5}", "x \u{b5} \\boxed{5}"),
        ("x &prime; \\boxed{5}", "x \u{2032} \\boxed{5}"),
        ("x &Prime; \\boxed{5}", "x \u{2033} \\boxed{5}"),
        ("x &infin; \\boxed{5}", "x \u{221e} \\boxed{5}"),
        ("x &empty; \\boxed{5}", "x \u{2205} \\boxed{5}"),
        ("x &emptyset; \\boxed{5}", "x \u{2205} \\boxed{5}"),
        ("x &CounterClockwiseContourIntegral; \\boxed{5}", "x \u{2233} \\boxed{5}"),
        ("x &ThickSpace; \\boxed{5}", "x \u{205f}\u{200a} \\boxed{5}"),
        ("x &NewLine; \\boxed{5}", "x \u{a} \\boxed{5}"),
        ("x &Tab; \\boxed{5}", "x \u{9} \\boxed{5}"),
        ("x &semi; \\boxed{5}", "x ; \\boxed{5}"),
        ("x &colon; \\boxed{5}", "x : \\boxed{5}"),
        ("x &comma; \\boxed{5}", "x , \\boxed{5}"),
        ("x &period; \\boxed{5}", "x . \\boxed{5}"),
        ("x &sol; \\boxed{5}", "x / \\boxed{5}"),
        ("x &bsol; \\boxed{5}", "x \\ \\boxed{5}"),
        ("x &lpar; \\boxed{5}", "x ( \\boxed{5}"),
        ("x &rpar; \\boxed{5}", "x ) \\boxed{5}"),
        ("x &lsqb; \\boxed{5}", "x [ \\boxed{5}"),
        ("x &rsqb; \\boxed{5}", "x ] \\boxed{5}"),
        ("x &lbrace; \\boxed{5}", "x { \\boxed{5}"),
        ("x &rbrace; \\boxed{5}", "x } \\boxed{5}"),
        ("x &verbar; \\boxed{5}", "x | \\boxed{5}"),
        ("x &vert; \\boxed{5}", "x | \\boxed{5}"),
        ("x &lowbar; \\boxed{5}", "x _ \\boxed{5}"),
        ("x &plus; \\boxed{5}", "x + \\boxed{5}"),
        ("x &equals; \\boxed{5}", "x = \\boxed{5}"),
        ("x &hyphen; \\boxed{5}", "x \u{2010} \\boxed{5}"),
        ("x &dash; \\boxed{5}", "x \u{2010} \\boxed{5}"),
        ("x &minus; \\boxed{5}", "x \u{2212} \\boxed{5}"),
        ("x &times; \\boxed{5}", "x \u{d7} \\boxed{5}"),
        ("x &divide; \\boxed{5}", "x \u{f7} \\boxed{5}"),
        ("x &div; \\boxed{5}", "x \u{f7} \\boxed{5}"),
        ("x &sdot; \\boxed{5}", "x \u{22c5} \\boxed{5}"),
        ("x &middot; \\boxed{5}", "x \u{b7} \\boxed{5}"),
        ("x &centerdot; \\boxed{5}", "x \u{b7} \\boxed{5}"),
        ("x &bull; \\boxed{5}", "x \u{2022} \\boxed{5}"),
        ("x &star; \\boxed{5}", "x \u{2606} \\boxed{5}"),
        ("x &ast; \\boxed{5}", "x * \\boxed{5}"),
        ("x &midast; \\boxed{5}", "x * \\boxed{5}"),
        ("x &lowast; \\boxed{5}", "x \u{2217} \\boxed{5}"),
        ("x &num; \\boxed{5}", "x # \\boxed{5}"),
        ("x &dollar; \\boxed{5}", "x $ \\boxed{5}"),
        ("x &percnt; \\boxed{5}", "x % \\boxed{5}"),
        ("x &amp; \\boxed{5}", "x & \\boxed{5}"),
        ("x &AMP; \\boxed{5}", "x & \\boxed{5}"),
        ("x &lt; \\boxed{5}", "x < \\boxed{5}"),
        ("x &LT; \\boxed{5}", "x < \\boxed{5}"),
        ("x &gt; \\boxed{5}", "x > \\boxed{5}"),
        ("x &GT; \\boxed{5}", "x > \\boxed{5}"),
        ("x &quot; \\boxed{5}", "x \" \\boxed{5}"),
        ("x &QUOT; \\boxed{5}", "x \" \\boxed{5}"),
        ("x &apos; \\boxed{5}", "x ' \\boxed{5}"),
        ("x &copy; \\boxed{5}", "x \u{a9} \\boxed{5}"),
        ("x &COPY; \\boxed{5}", "x \u{a9} \\boxed{5}"),
        ("x &reg; \\boxed{5}", "x \u{ae} \\boxed{5}"),
        ("x &REG; \\boxed{5}", "x \u{ae} \\boxed{5}"),
        ("x &fjlig; \\boxed{5}", "x fj \\boxed{5}"),
        ("x &bne; \\boxed{5}", "x =\u{20e5} \\boxed{5}"),
        ("x &acE; \\boxed{5}", "x \u{223e}\u{333} \\boxed{5}"),
        ("x &nvlt; \\boxed{5}", "x <\u{20d2} \\boxed{5}"),
        ("x &nvgt \\boxed{5}", "x &nvgt \\boxed{5}"),
        ("&gt 5", "> 5"),
        ("&gt5", ">5"),
        ("&gtx;", ">x;"),
        ("&gt", ">"),
        ("&lt 5", "< 5"),
        ("&lt5", "<5"),
        ("&ltx;", "<x;"),
        ("&lt", "<"),
        ("&GT 5", "> 5"),
        ("&GT5", ">5"),
        ("&GTx;", ">x;"),
        ("&GT", ">"),
        ("&LT 5", "< 5"),
        ("&LT5", "<5"),
        ("&LTx;", "<x;"),
        ("&LT", "<"),
        ("&not 5", "\u{ac} 5"),
        ("&not5", "\u{ac}5"),
        ("&notx;", "\u{ac}x;"),
        ("&not", "\u{ac}"),
        ("&sup2 5", "\u{b2} 5"),
        ("&sup25", "\u{b2}5"),
        ("&sup2x;", "\u{b2}x;"),
        ("&sup2", "\u{b2}"),
        ("&amp 5", "& 5"),
        ("&amp5", "&5"),
        ("&ampx;", "&x;"),
        ("&amp", "&"),
        ("&AMP 5", "& 5"),
        ("&AMP5", "&5"),
        ("&AMPx;", "&x;"),
        ("&AMP", "&"),
        ("&nbsp 5", "\u{a0} 5"),
        ("&nbsp5", "\u{a0}5"),
        ("&nbspx;", "\u{a0}x;"),
        ("&nbsp", "\u{a0}"),
        ("&deg 5", "\u{b0} 5"),
        ("&deg5", "\u{b0}5"),
        ("&degx;", "\u{b0}x;"),
        ("&deg", "\u{b0}"),
        ("&frac12 5", "\u{bd} 5"),
        ("&frac125", "\u{bd}5"),
        ("&frac12x;", "\u{bd}x;"),
        ("&frac12", "\u{bd}"),
        ("&times 5", "\u{d7} 5"),
        ("&times5", "\u{d7}5"),
        ("&timesx;", "\u{d7}x;"),
        ("&times", "\u{d7}"),
        ("&divide 5", "\u{f7} 5"),
        ("&divide5", "\u{f7}5"),
        ("&dividex;", "\u{f7}x;"),
        ("&divide", "\u{f7}"),
        ("&plusmn 5", "\u{b1} 5"),
        ("&plusmn5", "\u{b1}5"),
        ("&plusmnx;", "\u{b1}x;"),
        ("&plusmn", "\u{b1}"),
        ("&micro 5", "\u{b5} 5"),
        ("&micro5", "\u{b5}5"),
        ("&microx;", "\u{b5}x;"),
        ("&micro", "\u{b5}"),
        ("&middot 5", "\u{b7} 5"),
        ("&middot5", "\u{b7}5"),
        ("&middotx;", "\u{b7}x;"),
        ("&middot", "\u{b7}"),
        ("&shy 5", "\u{ad} 5"),
        ("&shy5", "\u{ad}5"),
        ("&shyx;", "\u{ad}x;"),
        ("&shy", "\u{ad}"),
        ("&copy 5", "\u{a9} 5"),
        ("&copy5", "\u{a9}5"),
        ("&copyx;", "\u{a9}x;"),
        ("&copy", "\u{a9}"),
        ("&uml 5", "\u{a8} 5"),
        ("&uml5", "\u{a8}5"),
        ("&umlx;", "\u{a8}x;"),
        ("&uml", "\u{a8}"),
        ("&yen 5", "\u{a5} 5"),
        ("&yen5", "\u{a5}5"),
        ("&yenx;", "\u{a5}x;"),
        ("&yen", "\u{a5}"),
        ("&para 5", "\u{b6} 5"),
        ("&para5", "\u{b6}5"),
        ("&parax;", "\u{b6}x;"),
        ("&para", "\u{b6}"),
        ("&sect 5", "\u{a7} 5"),
        ("&sect5", "\u{a7}5"),
        ("&sectx;", "\u{a7}x;"),
        ("&sect", "\u{a7}"),
        ("&iquest 5", "\u{bf} 5"),
        ("&iquest5", "\u{bf}5"),
        ("&iquestx;", "\u{bf}x;"),
        ("&iquest", "\u{bf}"),
        ("&szlig 5", "\u{df} 5"),
        ("&szlig5", "\u{df}5"),
        ("&szligx;", "\u{df}x;"),
        ("&szlig", "\u{df}"),
        ("&notin;", "\u{2209}"),
        ("&notit;", "\u{ac}it;"),
        ("&notin", "\u{ac}in"),
        ("&not;in", "\u{ac}in"),
        ("&noti", "\u{ac}i"),
        ("&gtcc;", "\u{2aa7}"),
        ("&gtcc", ">cc"),
        ("&gtrsim", ">rsim"),
        ("&amp;gt;", "&gt;"),
        ("&amp;amp;", "&amp;"),
        ("&&gt;", "&>"),
        ("&;", "&;"),
        ("&", "&"),
        ("&&", "&&"),
        ("& gt;", "& gt;"),
        ("&#", "&#"),
        ("&#;", "&#;"),
        ("&#x;", "&#x;"),
        ("&#X;", "&#X;"),
        ("&#xZZ;", "&#xZZ;"),
        ("&#a;", "&#a;"),
        ("&#x", "&#x"),
        ("&#X3e", ">"),
        ("&#62", ">"),
        ("&#62 5", "> 5"),
        ("&#62;5", ">5"),
        ("&#x3E 5", "> 5"),
        ("&#x3e;", ">"),
        ("&#X3E", ">"),
        ("&#x3E5", "\u{3e5}"),
        ("&#0000000062;", ">"),
        ("&#x00000003E;", ">"),
        ("&#000000000000000000000000000000000000000062", ">"),
        ("&#x00000000000000000000000000000000000000003e;", ">"),
        ("&#0;", "\u{fffd}"),
        ("&#0", "\u{fffd}"),
        ("&#00000;", "\u{fffd}"),
        ("&#x0;", "\u{fffd}"),
        ("&#1;", ""),
        ("&#8;", ""),
        ("&#9;", "\u{9}"),
        ("&#10;", "\u{a}"),
        ("&#11;", ""),
        ("&#12;", "\u{c}"),
        ("&#13;", "\u{d}"),
        ("&#14;", ""),
        ("&#31;", ""),
        ("&#32;", " "),
        ("&#127;", ""),
        ("&#128;", "\u{20ac}"),
        ("&#129;", ""),
        ("&#130;", "\u{201a}"),
        ("&#141;", ""),
        ("&#150;", "\u{2013}"),
        ("&#153;", "\u{2122}"),
        ("&#157;", ""),
        ("&#159;", "\u{178}"),
        ("&#160;", "\u{a0}"),
        ("&#173;", "\u{ad}"),
        ("&#xad;", "\u{ad}"),
        ("&#x80", "\u{20ac}"),
        ("&#x9F;", "\u{178}"),
        ("&#xD7FF;", "\u{d7ff}"),
        ("&#xD800;", "\u{fffd}"),
        ("&#xDBFF;", "\u{fffd}"),
        ("&#xDC00;", "\u{fffd}"),
        ("&#xDFFF;", "\u{fffd}"),
        ("&#xE000;", "\u{e000}"),
        ("&#xFDCF;", "\u{fdcf}"),
        ("&#xFDD0;", ""),
        ("&#xFDEF;", ""),
        ("&#xFDF0;", "\u{fdf0}"),
        ("&#xFFFD;", "\u{fffd}"),
        ("&#xFFFE;", ""),
        ("&#xFFFF;", ""),
        ("&#x10000;", "\u{10000}"),
        ("&#x1FFFE;", ""),
        ("&#x10FFFD;", "\u{10fffd}"),
        ("&#x10FFFF;", ""),
        ("&#x110000;", "\u{fffd}"),
        ("&#1114111;", ""),
        ("&#1114112;", "\u{fffd}"),
        ("&#99999999999999999999;", "\u{fffd}"),
        ("&#xFFFFFFFFFFFFFFFF;", "\u{fffd}"),
        ("&#8805;", "\u{2265}"),
        ("&#x2265;", "\u{2265}"),
        ("&#X2265;", "\u{2265}"),
        ("&#x2265", "\u{2265}"),
        ("&#8805 5", "\u{2265} 5"),
        ("&#x1D7CE;", "\u{1d7ce}"),
        ("&#128512;", "\u{1f600}"),
        ("&#x41;&#x42;&#67", "ABC"),
        ("n&shy;ot \\boxed{5}", "n\u{ad}ot \\boxed{5}"),
        ("n&#173;ot", "n\u{ad}ot"),
        ("n&#xAD;ot", "n\u{ad}ot"),
        ("n&#1;ot", "not"),
        ("n&ZeroWidthSpace;ot", "n\u{200b}ot"),
        ("AT&T & co", "AT&T & co"),
        ("&unknown;", "&unknown;"),
        ("&Unknown", "&Unknown"),
        ("&xyz&gt;", "&xyz>"),
        ("&gt&lt", "><"),
        ("&gt;&lt;", "><"),
        ("&GreaterEqual&GreaterEqual;", "&GreaterEqual\u{2265}"),
        ("&ge&ge;", "&ge\u{2265}"),
        ("&ge", "&ge"),
        ("&geq", "&geq"),
        ("&geqslant", "&geqslant"),
        ("&GTx", ">x"),
        ("&LTgt;", "<gt;"),
        ("&ampx", "&x"),
        ("&amp;x", "&x"),
        ("&aacute", "\u{e1}"),
        ("&Aacute;", "\u{c1}"),
        ("&aacutex", "\u{e1}x"),
        ("&alpha", "&alpha"),
        ("&alpha;", "\u{3b1}"),
        ("&pi;", "\u{3c0}"),
        ("&pi", "&pi"),
        ("&piv;", "\u{3d6}"),
        ("&ltimes;", "\u{22c9}"),
        ("&ltime", "<ime"),
        ("&lt;imes", "<imes"),
        ("&nbsp&nbsp;", "\u{a0}\u{a0}"),
        ("&notni;", "\u{220c}"),
        ("&notniva;", "\u{220c}"),
        ("&notnivx;", "\u{ac}nivx;"),
        ("&frac12x", "\u{bd}x"),
        ("&frac1", "&frac1"),
        ("&frac", "&frac"),
        ("&sup", "&sup"),
        ("&sup;", "\u{2283}"),
        ("&sup1", "\u{b9}"),
        ("&sup12", "\u{b9}2"),
        ("&supe;", "\u{2287}"),
        ("&supE;", "\u{2ac6}"),
        ("&nsup;", "\u{2285}"),
        ("&nsupe;", "\u{2289}"),
        ("x&#62=5", "x>=5"),
        ("x &ge;\\boxed{5}", "x \u{2265}\\boxed{5}"),
        ("&minus;5", "\u{2212}5"),
        ("&#8722;5", "\u{2212}5"),
        ("&#x2212;5", "\u{2212}5"),
        ("1&frasl;2", "1\u{2044}2"),
        ("&#8260;", "\u{2044}"),
        ("5&permil;", "5\u{2030}"),
        ("\u{e9}&gt;\u{e9}", "\u{e9}>\u{e9}"),
        ("&gt\u{e9}", ">\u{e9}"),
        ("&\u{e9};", "&\u{e9};"),
        ("&#\u{663};", "&#\u{663};"),
        ("&#x\u{ff11};", "&#x\u{ff11};"),
        ("&g\u{e9};", "&g\u{e9};"),
        ("&nbsp\u{9}", "\u{a0}\u{9}"),
        ("&gt\u{a}5", ">\u{a}5"),
        ("&CounterClockwiseContourIntegral", "&CounterClockwiseContourIntegral"),
        ("&CounterClockwiseContourIntegral;", "\u{2233}"),
        ("&CounterClockwiseContourIntegralx;", "&CounterClockwiseContourIntegralx;"),
        ("&aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa;", "&aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa;"),
        ("&aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaagt;", "&aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaagt;"),
        ("&#x3E;&#x3E;", ">>"),
        ("&lt;answer&gt;5&lt;/answer&gt;", "<answer>5</answer>"),
    ];

    #[test]
    fn decodes_as_html_unescape() {
        for (input, expected) in UNESCAPE {
            assert_eq!(decode(input), *expected, "{input:?}");
        }
    }

    #[test]
    fn references_are_decoded_once() {
        assert_eq!(decode("x &gt;= 5"), "x >= 5");
        assert_eq!(decode("x &ge; 5 and &#8805; 6 and &#x2265; 7"), "x ≥ 5 and ≥ 6 and ≥ 7");
        assert_eq!(decode("&minus;5 &amp;gt; 3 &amp;#62;"), "−5 &gt; 3 &#62;");
        assert_eq!(decode("AT&T & co &unknown; &#xZZ; &"), "AT&T & co &unknown; &#xZZ; &");
        assert!(matches!(decode("no references"), Cow::Borrowed(_)));
    }

    #[test]
    fn every_name_decodes_to_its_text() {
        assert_eq!(NAMED.len(), 2231);
        assert!(NAMED.windows(2).all(|w| w[0].0 < w[1].0), "sorted for binary search");
        assert_eq!(NAMED.iter().map(|(n, _)| n.trim_end_matches(';').len()).max(), Some(MAX_NAME));
        let legacy = NAMED.iter().filter(|(n, _)| !n.ends_with(';'));
        assert_eq!(legacy.map(|(n, _)| n.len()).max(), Some(MAX_LEGACY));
        for &(name, text) in NAMED {
            assert_eq!(decode(&format!("&{name}")), text, "{name}");
            // Text after a name: a name with `;` ends there; a legacy one is followed by a character that
            // makes no longer name (`&gt!`), which stays.
            assert_eq!(decode(&format!("a&{name}! 5")), format!("a{text}! 5"), "{name}");
            assert_eq!(decode(&format!("&amp;{name}")), format!("&{name}"), "{name}");
            // At most 6/5 of the reference (`&nGt;` is 5 bytes, its text 6).
            assert!(5 * text.len() <= 6 * (name.len() + 1), "{name}");
        }
    }

    #[test]
    fn every_code_point_decodes_and_is_no_longer() {
        // Every code point below U+0800 (controls, windows-1252, one- and two-byte characters), the edges of
        // the surrogates, noncharacters and the last plane, and a stride through the rest.
        let edges = [0xD7F0..0xE010, 0xFDC0..0xFE00, 0xFFF0..0x1_0010, 0x10_FFF0..0x11_0010];
        let codes = (0..0x800).chain(edges.into_iter().flatten()).chain((0x800..0x11_0000).step_by(61));
        for code in codes.chain([0x1_FFFE, 0xFFFF_FFFF]) {
            let text = character(code).map(String::from).unwrap_or_default();
            let decimal = format!("&#{code}");
            for reference in
                [decimal.clone(), format!("&#x{code:X}"), format!("&#000{code};"), format!("&#x00{code:x};")]
            {
                assert_eq!(decode(&reference), text, "{reference}");
                assert!(text.len() <= reference.len(), "{reference}");
            }
            // The digits end at the first non-digit, which stays.
            assert_eq!(decode(&format!("{decimal} 5")), format!("{text} 5"), "{decimal}");
        }
        assert_eq!(character(0), Some('\u{FFFD}'));
        assert_eq!(character(0x80), Some('€'));
        assert_eq!(character(0x81), None);
        assert_eq!(character(0x1F), None);
        assert_eq!(character(0xFFFE), None);
        assert_eq!(character(0xD800), Some('\u{FFFD}'));
        assert_eq!(character(0x11_0000), Some('\u{FFFD}'));
        assert_eq!(character(u32::from('\n')), Some('\n'));
    }

    #[test]
    fn long_runs_take_linear_time() {
        // 1 MB of `&`, of one reference's leading zeros, of unfinished references and of names that run on:
        // each read in one pass (a quadratic reading would take minutes).
        let zeros = format!("&#{}62;", "0".repeat(1 << 20));
        let hex_zeros = format!("&#x{}3e", "0".repeat(1 << 20));
        let cases = [
            ("&".repeat(1 << 20), "&".repeat(1 << 20)),
            (zeros, ">".to_string()),
            (hex_zeros, ">".to_string()),
            ("&#0".repeat(1 << 18), "\u{FFFD}".repeat(1 << 18)),
            ("&#x".repeat(1 << 18), "&#x".repeat(1 << 18)),
            ("&a".repeat(1 << 19), "&a".repeat(1 << 19)),
            (format!("&{}", "a".repeat(1 << 20)), format!("&{}", "a".repeat(1 << 20))),
            ("&ThisIsNoNameButItRunsOnAndOnAnd".repeat(1 << 15), "&ThisIsNoNameButItRunsOnAndOnAnd".repeat(1 << 15)),
            ("&notin".repeat(1 << 17), "¬in".repeat(1 << 17)),
        ];
        for (input, expected) in cases {
            let start = std::time::Instant::now();
            assert_eq!(decode(&input), expected);
            let took = start.elapsed();
            // Generous for a debug build on a busy machine; a quadratic reading would take minutes.
            assert!(took.as_secs_f64() < 30.0, "{} took {took:?}", &input[..8]);
        }
    }
}

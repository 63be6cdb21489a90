//! HTML and XML markup in a model's text, read as a page renders it before the answer is looked for:
//!
//! - An **inline tag** (`<b>`, `<span class="x">`, `</code>`) is no text: it is removed, so it splits no word
//!   (`n<b></b>ot` reads "not", `ab<i>o</i>ut` "about"). A **block tag** (`<p>`, `<br/>`, `<li>`) breaks the line:
//!   it becomes a space.
//! - An **HTML comment** (`<!-- 23 -->`) is not shown: removed with what it holds; one never closed hides the rest.
//! - A **template tag written wrongly** is read as the tag meant: a backslash for the slash (`<\think>`,
//!   `<\answer>`) and spaces inside (`</answer >`, `< /think>`), which small models write in GRPO rollouts.
//!   Template tags themselves are kept for [`super::completion::answer_span`] to read.
//!
//! One pass over the `<`s, linear in the text; the result is never longer than the text.

use std::borrow::Cow;

use super::completion::template_tag;

/// Longest name of an XML-like tag read as markup (`<start_working_out>`, `</SOLUTION>`, `<br/>`).
const MAX_TAG_NAME: usize = 32;
/// Longest run of attributes read inside a tag (`<span class="x">`); longer is text.
const MAX_ATTRIBUTES: usize = 64;
/// Bytes after `<a` within which its closing `</a>` makes it a link.
const MAX_LINK: usize = 200;
/// Longest template tag written wrongly that is read (`< / answer >`).
const MAX_TEMPLATE_TAG: usize = 40;
/// Tags whose text a page shows struck through.
const STRUCK_TAGS: &[&str] = &["del", "strike"];
/// Tags that break a line where a page shows them (the rest are inline and show nothing).
const BLOCK_TAGS: &[&str] = &[
    "p",
    "br",
    "div",
    "li",
    "ul",
    "ol",
    "dl",
    "dt",
    "dd",
    "tr",
    "td",
    "th",
    "table",
    "hr",
    "pre",
    "blockquote",
    "section",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
];

/// The length of the XML-like tag at the start of `at` (`<name>`, `</name>`, `<name/>`, `<name attr="v">`; a name
/// of two or more letters, digits, `_` or `-` that starts with a letter, at most [`MAX_TAG_NAME`], or HTML's `b`,
/// `i`, `u`, `p`), and the name's range in `at`; or `None`. A tag is markup, not the relations its brackets look
/// like; another letter (`a<x>c`) may be math, and so may words in brackets without an `=` (`<ab and cd>`).
pub fn tag_len(at: &[u8]) -> Option<(usize, std::ops::Range<usize>)> {
    let (Some(b'<'), rest) = (at.first(), at.get(1..).unwrap_or_default()) else { return None };
    let rest = rest.strip_prefix(b"/").unwrap_or(rest);
    let slash = at.len() - 1 - rest.len();
    let name = rest.iter().take(MAX_TAG_NAME + 1).take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-'));
    let n = name.count();
    // One letter is a tag only as HTML's bold, italic, underline and paragraph (`<b>23</b>`), and a link closed
    // soon after (`<a href="#">x</a>`; `0<a>5` is math).
    let link = || {
        let window = &at[..at.len().min(MAX_LINK)];
        slash == 1 || memchr::memmem::find(window, b"</a>").is_some() || memchr::memmem::find(window, b"</A>").is_some()
    };
    let html = n == 1
        && (matches!(rest[0].to_ascii_lowercase(), b'b' | b'i' | b'u' | b'p')
            || rest[0].eq_ignore_ascii_case(&b'a') && link());
    if !(html || (2..=MAX_TAG_NAME).contains(&n)) || !rest[0].is_ascii_alphabetic() {
        return None;
    }
    let tail = &rest[n..];
    // Spaces, or attributes with a value (`class="x"`), before the end.
    let inside = tail.iter().take(MAX_ATTRIBUTES + 1).take_while(|&&c| !matches!(c, b'<' | b'>' | b'\n')).count();
    let attributes = &tail[..inside.min(MAX_ATTRIBUTES)];
    let spaced = attributes.first().is_some_and(u8::is_ascii_whitespace)
        && (attributes.iter().all(u8::is_ascii_whitespace) || attributes.contains(&b'='));
    let inside = if spaced && inside <= MAX_ATTRIBUTES { inside } else { 0 };
    let tail = &tail[inside..];
    let close = if tail.starts_with(b">") {
        1
    } else if tail.starts_with(b"/>") && slash == 0 {
        2
    } else {
        return None;
    };
    let name_start = 1 + slash;
    Some((name_start + n + inside + close, name_start..name_start + n))
}

/// A template tag written wrongly at the start of `at` (`<\answer>`, `</answer >`, `< /think>`): its length
/// and the tag meant.
fn miswritten_template_tag(at: &str) -> Option<(usize, String)> {
    let window = &at[..super::hedge::floor_boundary(at, at.len().min(MAX_TEMPLATE_TAG))];
    let end = window.find('>')?;
    let inner = &window[1..end];
    let closing = inner.trim_start().starts_with(['/', '\\']);
    let name = inner.trim_start().trim_start_matches(['/', '\\']).trim();
    if name.is_empty() || !name.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_') {
        return None;
    }
    let meant = format!("<{}{}>", if closing { "/" } else { "" }, name.to_ascii_lowercase());
    (template_tag(&meant) && meant.len() <= end + 1 && !at[..=end].eq_ignore_ascii_case(&meant))
        .then_some((end + 1, meant))
}

/// A piece of markup at a `<`.
enum Markup {
    /// Shows nothing (an inline tag, a comment): so many bytes.
    Hidden(usize),
    /// Breaks the line (a block tag).
    Break(usize),
    /// A comment never closed: hides the rest.
    Rest,
}

/// The markup at the start of `at` (which starts with `<`) that a page does not show as text, if any; template
/// tags are not such markup.
fn markup_at(at: &str) -> Option<Markup> {
    let bytes = at.as_bytes();
    if bytes.starts_with(b"<!--") {
        return Some(memchr::memmem::find(&bytes[4..], b"-->").map_or(Markup::Rest, |e| Markup::Hidden(e + 7)));
    }
    let (len, name) = tag_len(bytes)?;
    let slash = if bytes.get(1) == Some(&b'/') { "/" } else { "" };
    if template_tag(&format!("<{slash}{}>", at[name.clone()].to_ascii_lowercase())) {
        return None;
    }
    let block = BLOCK_TAGS.iter().any(|b| at[name.clone()].eq_ignore_ascii_case(b));
    // Struck-through text is withdrawn (`<del>\\boxed{5}</del>`): hidden with its tags; never closed, the rest.
    let struck = slash.is_empty() && STRUCK_TAGS.iter().any(|t| at[name.clone()].eq_ignore_ascii_case(t));
    if struck {
        // Scanned to its closing tag only, so a run of them costs one pass.
        let tag = &bytes[name];
        let mut j = len;
        while let Some(k) = memchr::memmem::find(&bytes[j..], b"</") {
            let after = &bytes[j + k + 2..];
            if after.len() > tag.len() && after[..tag.len()].eq_ignore_ascii_case(tag) && after[tag.len()] == b'>' {
                return Some(Markup::Hidden(j + k + 3 + tag.len()));
            }
            j += k + 2;
        }
        return Some(Markup::Rest);
    }
    Some(if block { Markup::Break(len) } else { Markup::Hidden(len) })
}

/// The text as a page shows it: inline tags, comments and inline code's backticks removed, block tags read as a
/// space, miswritten template tags written right; borrowed when it holds no `<` or backtick. Markup between two
/// letters splits a word (`n<b></b>ot`) or separates two (`at<b></b>least`): `join` reads it as nothing, as a
/// page shows it, else as a
/// space. The flag says whether any markup stood between two letters (the text then has two readings).
pub fn render(s: &str, join: bool) -> (Cow<'_, str>, bool) {
    match unquote(s) {
        Cow::Borrowed(s) => render_tags(s, join),
        Cow::Owned(unquoted) => {
            let (text, split) = render_tags(&unquoted, join);
            (Cow::Owned(text.into_owned()), split)
        }
    }
}

/// The text without Markdown's blockquote marks (`> 42` at a line's start shows 42, no relation); borrowed when
/// it has none.
fn unquote(s: &str) -> Cow<'_, str> {
    fn quote(line: &str) -> Option<&str> {
        let t = line.trim_start_matches([' ', '\t']);
        t.strip_prefix('>').filter(|r| r.is_empty() || r.starts_with([' ', '\n', '\r', '>']))
    }
    if !s.split('\n').any(|l| quote(l).is_some()) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    for (k, line) in s.split('\n').enumerate() {
        if k > 0 {
            out.push('\n');
        }
        let mut line = line;
        // Nested quotes (`> > 42`).
        while let Some(rest) = quote(line) {
            line = rest.strip_prefix(' ').unwrap_or(rest);
        }
        out.push_str(line);
    }
    Cow::Owned(out)
}

/// [`render`] past the blockquote marks.
fn render_tags(s: &str, join: bool) -> (Cow<'_, str>, bool) {
    if !s.contains(['<', '`']) {
        return (Cow::Borrowed(s), false);
    }
    let bytes = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut split = false;
    let mut i = 0;
    while let Some(k) = memchr::memchr2(b'<', b'`', &bytes[i..]) {
        let at = i + k;
        out.push_str(&s[i..at]);
        if bytes[at] == b'`' {
            // Inline code's backticks are not shown (`` `42` `` is 42); a fence of three or more is kept.
            let run = bytes[at..].iter().take_while(|&&b| b == b'`').count();
            if run >= 3 {
                out.push_str(&s[at..at + run]);
            }
            i = at + run;
            continue;
        }
        // A run of markup (`<b></b>`, `<!-- --><i>`) is read as one.
        let (mut end, mut shown, mut any) = (at, false, false);
        while bytes.get(end) == Some(&b'<') {
            match markup_at(&s[end..]) {
                Some(Markup::Hidden(len)) => end += len,
                Some(Markup::Break(len)) => (end, shown) = (end + len, true),
                Some(Markup::Rest) => return (Cow::Owned(out), split),
                None => break,
            }
            any = true;
        }
        if any {
            let between = !shown && out.ends_with(char::is_alphabetic) && s[end..].starts_with(char::is_alphabetic);
            split |= between;
            if shown || between && !join {
                out.push(' ');
            }
            i = end;
            continue;
        }
        if let Some((len, meant)) = miswritten_template_tag(&s[at..]) {
            out.push_str(&meant);
            i = at + len;
        } else {
            out.push('<');
            i = at + 1;
        }
    }
    out.push_str(&s[i..]);
    (Cow::Owned(out), split)
}

/// `line` without a list item's mark (`- `, `+ `, `• `, `— `, `-> `, `1. `, `a) `, `(a) `): an item alone on its
/// line is labelled by the line above it as a value alone is.
pub fn unlisted(line: &str) -> &str {
    if let Some(rest) =
        ["- ", "+ ", "* ", "• ", "– ", "— ", "-> ", "→ ", "=> "].iter().find_map(|m| line.strip_prefix(m))
    {
        return rest;
    }
    let inner = line.strip_prefix('(').unwrap_or(line);
    let mark = inner.find(['.', ')']).filter(|&i| {
        let head = &inner[..i];
        (1..=3).contains(&head.len()) && head.bytes().all(|b| b.is_ascii_digit())
            || head.len() == 1 && head.bytes().all(|b| b.is_ascii_lowercase())
    });
    match mark {
        Some(i) if inner[i + 1..].starts_with(' ') => &inner[i + 2..],
        _ => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_marks() {
        for (line, rest) in
            [("- 42", "42"), ("1. 42", "42"), ("12) x", "x"), ("a) 42", "42"), ("(b) 42", "42"), ("• 42", "42")]
        {
            assert_eq!(unlisted(line), rest);
        }
        for line in ["-42", "1.5", "1234. 42", "ab) 42", "42", "A) 42"] {
            assert_eq!(unlisted(line), line);
        }
    }

    fn page(s: &str) -> String {
        render(s, true).0.into_owned()
    }

    #[test]
    fn markup_renders_as_a_page_shows_it() {
        assert_eq!(page("n<b></b>ot 5"), "not 5");
        assert_eq!(page("ab<!-- x -->out <i>5</i>"), "about 5");
        assert_eq!(page("at le<b>a</b>st <span class=\"v\">5</span>"), "at least 5");
        assert_eq!(page("5<br/>6<p>7</p>"), "5 6 7 ");
        assert_eq!(page("x <!-- 23"), "x ");
        assert_eq!(page("Answer:\n> 42\n> > **7**\nx > 5\n>5"), "Answer:\n42\n**7**\nx > 5\n>5");
        assert_eq!(page("<del>\\boxed{4}</del> \\boxed{5} n<a href=\"#\"></a>ot <strike>6"), " \\boxed{5} not ");
        assert_eq!(page("The answer is `42`. ```py\nx``` ``y``"), "The answer is 42. ```py\nx``` y");
        // Template tags are kept; miswritten ones are written right.
        assert_eq!(page("<think>a</think><answer>5</answer>"), "<think>a</think><answer>5</answer>");
        assert_eq!(page("<think>a<\\think><answer>5<\\answer>"), "<think>a</think><answer>5</answer>");
        assert_eq!(page("<answer>5 </answer > < /think>"), "<answer>5 </answer> </think>");
        assert_eq!(page("<ANSWER>5</Answer >"), "<ANSWER>5</answer>");
        // Math in brackets is no tag.
        assert_eq!(
            page("a<x>c, 2 < 3 > 1, n <m and m> k, <ab and cd>"),
            "a<x>c, 2 < 3 > 1, n <m and m> k, <ab and cd>"
        );
        assert_eq!(page("<\\x> <\\foo>"), "<\\x> <\\foo>");
        assert!(matches!(render("no markup", true).0, Cow::Borrowed(_)));
        // Markup between two letters has two readings: joined, as a page shows it, and spaced.
        assert_eq!(render("at<b></b>least n<!-- -->ot", true), (Cow::Borrowed("atleast not"), true));
        assert_eq!(render("at<b></b>least n<!-- -->ot", false), (Cow::Borrowed("at least n ot"), true));
        assert_eq!(render("<b>5</b> 6<br>x", false), (Cow::Borrowed("5 6 x"), false));
    }

    #[test]
    fn tags_and_their_names() {
        assert_eq!(tag_len(b"<b>5"), Some((3, 1..2)));
        assert_eq!(tag_len(b"</span>"), Some((7, 2..6)));
        assert_eq!(tag_len(b"<br/>"), Some((5, 1..3)));
        assert_eq!(tag_len(b"<span class=\"x\">"), Some((16, 1..5)));
        assert_eq!(tag_len(b"<answer >"), Some((9, 1..7)));
        assert_eq!(tag_len(b"<x>"), None);
        assert_eq!(tag_len(b"<ab cd>"), None);
        assert_eq!(tag_len(b"<2b>"), None);
        assert_eq!(tag_len(b"<span"), None);
    }
}

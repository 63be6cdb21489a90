//! Math blocks in prose: `$…$`, `$$…$$`, `\(…\)`, `\[…\]`, and runs of them joined by `and`/`or`/`,`
//! (`$1$, $2$ and $3$` is one answer). One left-to-right pass; each closing delimiter is searched for with a
//! cursor that only moves forward, so many unclosed openers cannot make the scan quadratic.

/// A math block: the whole span (delimiters included) and its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block {
    pub start: usize,
    pub end: usize,
    pub inner: (usize, usize),
}

/// Blocks joined in the text, with a `%`/`percent` after each kept as part of its content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

/// Most blocks joined into one answer.
const MAX_JOINED: usize = 6;

/// The next occurrence of `pat` at or after a position, remembered: positions asked for only grow while
/// scanning, so the text is searched once per pattern.
struct Next {
    pat: &'static str,
    cached: Option<Option<usize>>,
}

impl Next {
    const fn new(pat: &'static str) -> Self {
        Next { pat, cached: None }
    }

    /// The first occurrence at or after `from` that `ok` accepts.
    fn find(&mut self, s: &str, from: usize, ok: impl Fn(usize) -> bool) -> Option<usize> {
        let mut at = from;
        loop {
            let hit = match self.cached {
                Some(Some(p)) if p >= at => Some(p),
                Some(None) => None,
                _ => s.get(at..).and_then(|rest| rest.find(self.pat)).map(|i| i + at),
            };
            self.cached = Some(hit);
            match hit {
                Some(p) if ok(p) => return Some(p),
                Some(p) => at = p + 1,
                None => return None,
            }
        }
    }
}

fn escaped(s: &str, at: usize) -> bool {
    at > 0 && s.as_bytes()[at - 1] == b'\\'
}

/// Every math block, in order, not overlapping.
pub fn blocks(s: &str) -> Vec<Block> {
    let b = s.as_bytes();
    let (mut dd, mut d, mut bracket, mut paren, mut newline) =
        (Next::new("$$"), Next::new("$"), Next::new("\\]"), Next::new("\\)"), Next::new("\n"));
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let found = match b[i] {
            b'$' if !escaped(s, i) && b.get(i + 1) == Some(&b'$') => {
                dd.find(s, i + 2, |p| !escaped(s, p)).map(|close| (i + 2, close, close + 2))
            }
            // An inline `$…$` stays on one line, and a `$` right after a digit is a price, not math.
            b'$' if !(escaped(s, i) || i > 0 && b[i - 1].is_ascii_digit()) => {
                let close = d.find(s, i + 1, |p| !escaped(s, p));
                let line_end = newline.find(s, i + 1, |_| true).unwrap_or(b.len());
                close.filter(|&c| c < line_end && c > i + 1).map(|c| (i + 1, c, c + 1))
            }
            b'\\' if b.get(i + 1) == Some(&b'[') && !escaped(s, i) => {
                bracket.find(s, i + 2, |p| !escaped(s, p)).map(|close| (i + 2, close, close + 2))
            }
            b'\\' if b.get(i + 1) == Some(&b'(') && !escaped(s, i) => {
                let close = paren.find(s, i + 2, |p| !escaped(s, p));
                let line_end = newline.find(s, i + 2, |_| true).unwrap_or(b.len());
                close.filter(|&c| c < line_end).map(|c| (i + 2, c, c + 2))
            }
            _ => None,
        };
        match found {
            Some((lo, hi, end)) if s[lo..hi].trim().is_empty() || end_of_proof(&s[lo..hi]) => i = end,
            Some((lo, hi, end)) => {
                out.push(Block { start: i, end, inner: (lo, hi) });
                i = end;
            }
            // An unclosed `$$` is not read again as two `$`.
            None if b[i] == b'$' && b.get(i + 1) == Some(&b'$') => i += 2,
            None => i += 1,
        }
    }
    out
}

/// Is a block's content only the mark that ends a proof (`\\(\\blacksquare\\)`, `$\\qquad\\square$`)? It is
/// no value: the answer before it is not joined to it.
fn end_of_proof(inner: &str) -> bool {
    let mut t = inner.trim().trim_end_matches('.').trim_end();
    for spacing in ["\\qquad", "\\quad", "\\,", "\\;", "\\ ", "~", "\\hfill"] {
        t = t.trim_start_matches(spacing).trim_start();
    }
    ["\\blacksquare", "\\square", "\\Box", "\\qed", "\\QED", "∎", "□", "■"].contains(&t)
}

/// A percent sign or word right after a block: its length.
fn percent_after(rest: &str) -> usize {
    let trimmed = rest.trim_start();
    let skipped = rest.len() - trimmed.len();
    for word in ["\\%", "%", "percentage", "percent", "pct", "Percentage", "Percent", "Pct"] {
        if let Some(after) = trimmed.strip_prefix(word) {
            if !after.starts_with(|c: char| c.is_ascii_alphabetic()) {
                return skipped + word.len();
            }
        }
    }
    0
}

/// Does the text between two blocks join them (`, `, ` and `, `, or `, ` or `)?
fn joins(between: &str) -> bool {
    let t = between.trim();
    let t = t.strip_prefix(',').unwrap_or(t).trim_start();
    t.is_empty() || t == "and" || t == "or"
}

/// The content of `block` as an answer, `%` appended when a percent follows it; and where it ends.
fn content(s: &str, block: &Block) -> (String, usize) {
    let mut text = s[block.inner.0..block.inner.1].trim().to_owned();
    let pct = percent_after(&s[block.end..]);
    if pct > 0 && !text.ends_with('%') {
        text.push_str("\\%");
    }
    (text, block.end + pct)
}

/// The group of joined blocks starting with `blocks[first]`.
pub fn group_from(s: &str, blocks: &[Block], first: usize) -> Group {
    let (mut text, mut end) = content(s, &blocks[first]);
    let mut k = first + 1;
    while k < blocks.len() && k - first < MAX_JOINED && end <= blocks[k].start && joins(&s[end..blocks[k].start]) {
        let (t, e) = content(s, &blocks[k]);
        text.push_str(", ");
        text.push_str(&t);
        end = e;
        k += 1;
    }
    Group { start: blocks[first].start, end, text }
}

/// Where the group of joined blocks starting with `blocks[first]` ends ([`group_from`]'s `end`, its text
/// not built).
fn group_end(s: &str, blocks: &[Block], first: usize) -> usize {
    let end_of = |b: &Block| b.end + percent_after(&s[b.end..]);
    let mut end = end_of(&blocks[first]);
    let mut k = first + 1;
    while k < blocks.len() && k - first < MAX_JOINED && end <= blocks[k].start && joins(&s[end..blocks[k].start]) {
        end = end_of(&blocks[k]);
        k += 1;
    }
    end
}

/// The last of [`groups`], the text of no other built.
pub fn last_group(s: &str, blocks: &[Block]) -> Option<Group> {
    let mut last = None;
    let mut k = 0;
    while k < blocks.len() {
        last = Some(k);
        let end = group_end(s, blocks, k);
        k += 1;
        while k < blocks.len() && blocks[k].start < end {
            k += 1;
        }
    }
    last.map(|first| group_from(s, blocks, first))
}

/// The groups of the whole text, left to right (each block in one group), as a regular-expression scan
/// would find them.
pub fn groups(s: &str, blocks: &[Block]) -> Vec<Group> {
    let mut out = Vec::new();
    let mut k = 0;
    while k < blocks.len() {
        let g = group_from(s, blocks, k);
        let end = g.end;
        out.push(g);
        k += 1;
        while k < blocks.len() && blocks[k].start < end {
            k += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inner(s: &str) -> Vec<&str> {
        blocks(s).iter().map(|b| &s[b.inner.0..b.inner.1]).collect()
    }

    #[test]
    fn delimiters() {
        assert_eq!(inner("a $x$ b $$y$$ c \\(z\\) d \\[w\\]"), vec!["x", "y", "z", "w"]);
        assert_eq!(inner("costs 5$ and $3$"), vec!["3"]);
        assert_eq!(inner("$a\nb c $d$"), vec!["d"]);
        assert_eq!(inner("\\$5 and \\$6"), Vec::<&str>::new());
        assert_eq!(inner("$$ unclosed $x$"), vec!["x"]);
        assert_eq!(inner("$\\$5$"), vec!["\\$5"]);
    }

    #[test]
    fn joined_groups() {
        let s = "so $1$, $2$ and $3$ then $4$";
        let b = blocks(s);
        let g = groups(s, &b);
        assert_eq!(g.iter().map(|g| g.text.as_str()).collect::<Vec<_>>(), vec!["1, 2, 3", "4"]);
        let s = "$50$ percent";
        assert_eq!(groups(s, &blocks(s))[0].text, "50\\%");
        for s in ["so $1$, $2$ and $3$ then $4$", "$1$ $2$ $3$ $4$ $5$ $6$ $7$ $8$", "$5$ % and $6$ percent", "none"] {
            assert_eq!(last_group(s, &blocks(s)), groups(s, &blocks(s)).pop(), "{s}");
        }
    }

    #[test]
    fn many_unclosed_openers_stay_linear() {
        let s = "\\(".repeat(50_000) + "\n$$" + &"\\[".repeat(50_000) + "\n" + &"$\n".repeat(50_000);
        let start = std::time::Instant::now();
        assert!(blocks(&s).is_empty());
        assert!(start.elapsed().as_secs() < 5);
    }
}

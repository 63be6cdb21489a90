//! Format reward: does a response follow a tag structure such as `<think>…</think><answer>…</answer>`?

use regex::Regex;

use crate::error::CoreError;

/// A compiled tag structure. A response matches when it consists of the blocks `<tag>…</tag>` in the
/// given order, separated and surrounded only by whitespace, and each tag's opening and closing
/// markers occur exactly once (so a block cannot swallow a second one).
#[derive(Debug, Clone)]
pub struct FormatSpec {
    tags: Vec<String>,
    pattern: Regex,
}

impl FormatSpec {
    /// Tags are bare names (`think`, `answer`): letters, digits, `_`, `-`, `:` or `.`.
    pub fn new<S: AsRef<str>>(tags: &[S]) -> Result<Self, CoreError> {
        if tags.is_empty() {
            return Err(CoreError::InvalidFormatSpec("at least one tag is required".into()));
        }
        let mut body = String::from(r"(?s)\A\s*");
        let mut names = Vec::with_capacity(tags.len());
        for tag in tags {
            let tag = tag.as_ref();
            let valid = !tag.is_empty() && tag.chars().all(|c| c.is_alphanumeric() || "_-:.".contains(c));
            if !valid {
                return Err(CoreError::InvalidFormatSpec(format!("invalid tag name {tag:?}")));
            }
            if names.iter().any(|n| n == tag) {
                return Err(CoreError::InvalidFormatSpec(format!("tag {tag:?} is repeated")));
            }
            let t = regex::escape(tag);
            body.push_str(&format!(r"<{t}>.*?</{t}>\s*"));
            names.push(tag.to_owned());
        }
        body.push_str(r"\z");
        let pattern = Regex::new(&body).map_err(|e| CoreError::InvalidFormatSpec(e.to_string()))?;
        Ok(Self { tags: names, pattern })
    }

    pub fn tags(&self) -> &[String] {
        &self.tags
    }

    /// 1.0 when `response` has the structure, else 0.0.
    pub fn score(&self, response: &str) -> f64 {
        let once = |marker: String| response.matches(marker.as_str()).take(2).count() == 1;
        let ok = self.pattern.is_match(response)
            && self.tags.iter().all(|t| once(format!("<{t}>")) && once(format!("</{t}>")));
        if ok {
            1.0
        } else {
            0.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> FormatSpec {
        FormatSpec::new(&["think", "answer"]).unwrap()
    }

    #[test]
    fn accepts_the_structure_with_whitespace() {
        assert_eq!(spec().score("<think>a\nb</think>\n<answer>4</answer>\n"), 1.0);
        assert_eq!(spec().score("  <think></think><answer>4</answer>"), 1.0);
    }

    #[test]
    fn rejects_order_text_outside_and_repeats() {
        assert_eq!(spec().score("<answer>4</answer><think>x</think>"), 0.0);
        assert_eq!(spec().score("hi <think>x</think><answer>4</answer>"), 0.0);
        assert_eq!(spec().score("<think>x</think><answer>4</answer> bye"), 0.0);
        assert_eq!(spec().score("<think>x</think> y </think><answer>4</answer>"), 0.0);
        assert_eq!(spec().score("<think>x</think>"), 0.0);
    }

    #[test]
    fn validates_tags() {
        assert!(FormatSpec::new::<&str>(&[]).is_err());
        assert!(FormatSpec::new(&["a b"]).is_err());
        assert!(FormatSpec::new(&["x", "x"]).is_err());
        assert!(FormatSpec::new(&["reasoning.v2"]).is_ok());
    }
}

//! Where the frontmatter sits: the first line `---`, the next `---`, and the whitespace and
//! line ends as Claude Code reads them.

use crate::span::Span;

/// Where the frontmatter sits in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Split {
    /// No frontmatter: the file does not start with a `---` line.
    None,
    /// A `---` line opens a block that no later `---` line closes. Claude Code then sees no
    /// frontmatter at all, and the `---` and everything after it is the body.
    Unclosed {
        opener: Span,
    },
    Found(Block),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// The YAML text between the delimiter lines.
    pub yaml: Span,
    /// The whole block including both `---` lines.
    pub whole: Span,
    /// Where the Markdown body starts: after the closing `---` and all the whitespace that
    /// follows it (blank lines, the first line's indentation), as Claude Code's frontmatter
    /// pattern `^---\s*\n([\s\S]*?)---\s*\n?` consumes it. Every reader of a body (checks,
    /// the lock's hashes and lengths, the runtime's prompt expansion) starts here.
    pub body_start: usize,
}

pub fn split(text: &str) -> Split {
    let Some(first_end) = line_end(text, 0) else { return Split::None };
    if !is_delimiter(&text[..first_end.content_end]) {
        return Split::None;
    }
    let yaml_start = first_end.next;
    // The block ends at the first `---` after the opening line, wherever it stands: Claude
    // Code's pattern `^---\s*\n([\s\S]*?)---\s*\n?` is not anchored to a line, so a `---` inside
    // a value (`description: a --- b`) or a `----` line closes it too.
    let Some(found) = text.get(yaml_start..).and_then(|rest| rest.find("---")) else {
        return Split::Unclosed { opener: Span::new(0, first_end.content_end) };
    };
    let pos = yaml_start + found;
    let end = line_end(text, pos).map_or(text.len(), |e| e.next);
    Split::Found(Block {
        yaml: Span::new(yaml_start, pos),
        whole: Span::new(0, end),
        body_start: skip_js_whitespace(text, pos + 3),
    })
}

impl Block {
    /// Whether the closing `---` is a line of its own, as a reader expects: not text before it
    /// on its line, nor anything but whitespace after it.
    pub(crate) fn closes_on_its_own_line(&self, text: &str) -> bool {
        let at = self.yaml.end;
        let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
        line_start == at && is_delimiter(&text[at..line_end])
    }
}

struct LineEnd {
    /// End of the line's text, before `\n`.
    content_end: usize,
    /// Start of the next line.
    next: usize,
}

fn line_end(text: &str, start: usize) -> Option<LineEnd> {
    if start > text.len() {
        return None;
    }
    match memchr_newline(&text.as_bytes()[start..]) {
        Some(i) => Some(LineEnd { content_end: start + i, next: start + i + 1 }),
        None => Some(LineEnd { content_end: text.len(), next: text.len() }),
    }
}

fn memchr_newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'\n')
}

/// The first byte at or after `from` that is not whitespace as JavaScript's `\s` reads it
/// (`text.len()` when only whitespace is left).
fn skip_js_whitespace(text: &str, from: usize) -> usize {
    let rest = text.get(from..).unwrap_or_default();
    from + rest.find(|c: char| !is_js_whitespace(c)).unwrap_or(rest.len())
}

/// JavaScript's `\s`: ASCII whitespace, no-break and Unicode spaces, line and paragraph
/// separators and the byte-order mark.
pub(super) fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | ' ' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}' | '\u{2028}' | '\u{2029}' | '\u{202F}' | '\u{205F}' | '\u{3000}' | '\u{FEFF}'
    )
}

/// `---` with optional trailing whitespace (the regex Claude Code uses is `---\s*`).
fn is_delimiter(line: &str) -> bool {
    line.strip_prefix("---").is_some_and(|rest| rest.chars().all(char::is_whitespace))
}

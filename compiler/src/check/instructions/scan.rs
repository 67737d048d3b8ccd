//! An instruction file's text: what Claude Code sends of it, its `@` imports, the globs of a
//! rule's `paths:` and its size in tokens.

use crate::span::Span;
use std::path::Path;

/// The text Claude Code sends of an instruction file: its body after the frontmatter, HTML
/// comment blocks left out, trimmed. The session reads the file again and sends this.
pub fn sent(text: &str) -> String {
    let body_start = match crate::frontmatter::split(text) {
        crate::frontmatter::Split::Found(block) => block.body_start.min(text.len()),
        _ => 0,
    };
    scan(text, body_start).sent.trim().to_string()
}

/// One `paths` glob as a gitignore pattern rooted at `/`, or why it is none.
pub(super) fn glob_matcher(glob: &str) -> Result<ignore::gitignore::Gitignore, String> {
    let mut builder = ignore::gitignore::GitignoreBuilder::new("/");
    builder.add_line(None, glob).map_err(|e| e.to_string())?;
    builder.build().map_err(|e| e.to_string())
}

/// Whether a rule's `paths` globs (gitignore syntax, relative to the project folder) match the
/// file at `rel` (relative to it, `/`-separated), as Claude Code matches them when a turn reads
/// a file.
pub fn paths_match(globs: &[String], rel: &str) -> bool {
    let mut builder = ignore::gitignore::GitignoreBuilder::new("/");
    // A glob that does not parse matches no file; the rule's other globs still apply.
    for glob in globs.iter().filter(|glob| !unclosed_class(glob)) {
        let _ = builder.add_line(None, glob);
    }
    match builder.build() {
        Ok(matcher) => matcher.matched_path_or_any_parents(Path::new("/").join(rel), false).is_ignore(),
        Err(_) => false,
    }
}

/// Whether a glob opens a character class it never closes (`src/[ab`): an unescaped `[`
/// followed by no `]` before the end, with no `/` in between. Claude Code matches such a glob
/// against no path at all, not even one named as written.
pub(super) fn unclosed_class(glob: &str) -> bool {
    let mut escaped = false;
    for (i, c) in glob.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '[' if !glob[i + 1..].contains([']', '/']) => return true,
            _ => {}
        }
    }
    false
}

/// The body of a rule as Claude Code attaches it when a turn reads a matching file: after the
/// frontmatter, HTML comment blocks left out, not trimmed.
pub fn attached(text: &str) -> String {
    let body_start = match crate::frontmatter::split(text) {
        crate::frontmatter::Split::Found(block) => block.body_start.min(text.len()),
        _ => 0,
    };
    scan(text, body_start).sent
}

/// `Math.round(length / 4)` in UTF-16 code units, Claude Code's estimate where it has no tokenizer.
pub fn tokens(text: &str) -> u64 {
    let units = text.encode_utf16().count() as u64;
    (units + 2) / 4
}

/// An `@` import as written, with its span in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Import {
    pub written: String,
    pub span: Span,
}

/// A file's text as Claude Code sends it (from `body_start`, HTML comment blocks left out; not
/// trimmed yet) and its imports in order.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Scanned {
    pub sent: String,
    pub imports: Vec<Import>,
}

/// Reads the body of `text` from `body_start`: what is sent, and the `@` imports. An import is an
/// `@` at the start of a line or after whitespace, outside fenced and indented code blocks and
/// code spans; its path runs to the next whitespace (`\ ` is a space) and stops at `#`.
pub fn scan(text: &str, body_start: usize) -> Scanned {
    let mut out = Scanned::default();
    let body = &text[body_start.min(text.len())..];
    let lines: Vec<(usize, &str)> = {
        let mut at = body_start;
        body.split_inclusive('\n')
            .map(|l| {
                let start = at;
                at += l.len();
                (start, l)
            })
            .collect()
    };
    let mut fence: Option<(char, usize)> = None;
    let mut blank_before = true;
    let mut i = 0;
    while i < lines.len() {
        let (start, line) = lines[i];
        let content = line.trim_end_matches(['\n', '\r']);
        let indent = content.len() - content.trim_start_matches(' ').len();
        let trimmed = content.trim_start_matches(' ');
        if let Some((ch, n)) = fence {
            out.sent.push_str(line);
            let run = trimmed.chars().take_while(|c| *c == ch).count();
            if indent <= 3 && run >= n && trimmed[run * ch.len_utf8()..].trim().is_empty() {
                fence = None;
            }
            i += 1;
            continue;
        }
        if content.trim().is_empty() {
            out.sent.push_str(line);
            blank_before = true;
            i += 1;
            continue;
        }
        if indent <= 3 {
            if let Some(ch) = ['`', '~'].into_iter().find(|c| trimmed.starts_with(&c.to_string().repeat(3))) {
                let n = trimmed.chars().take_while(|c| *c == ch).count();
                fence = Some((ch, n));
                out.sent.push_str(line);
                blank_before = false;
                i += 1;
                continue;
            }
            if trimmed.starts_with("<!--") {
                // An HTML block that opens with a comment: it runs to the end of the line where
                // the comment closes. Comments are left out; what else it holds is kept.
                let mut end = i;
                let mut block = String::new();
                loop {
                    block.push_str(lines[end].1);
                    if block.contains("-->") || end + 1 == lines.len() {
                        break;
                    }
                    end += 1;
                }
                // The block takes the empty lines right after it (markdown's HTML token runs
                // over them), so a block that is only comments leaves no blank line behind.
                let mut trailing = String::new();
                while end + 1 < lines.len() && matches!(lines[end + 1].1, "\n" | "\r\n") {
                    end += 1;
                    trailing.push_str(lines[end].1);
                }
                let kept = strip_comments(&block);
                if !kept.trim().is_empty() {
                    out.sent.push_str(&kept);
                    out.sent.push_str(&trailing);
                    find_imports(&kept, start, false, &mut out.imports);
                }
                blank_before = !trailing.is_empty();
                i = end + 1;
                continue;
            }
        }
        if indent >= 4 && blank_before {
            // An indented code block, up to the next line that is not indented.
            while i < lines.len() {
                let l = lines[i].1.trim_end_matches(['\n', '\r']);
                if !l.trim().is_empty() && l.len() - l.trim_start_matches(' ').len() < 4 {
                    break;
                }
                out.sent.push_str(lines[i].1);
                i += 1;
            }
            blank_before = false;
            continue;
        }
        out.sent.push_str(line);
        find_imports(content, start, true, &mut out.imports);
        blank_before = false;
        i += 1;
    }
    out
}

fn strip_comments(block: &str) -> String {
    let mut out = String::new();
    let mut rest = block;
    while let Some(open) = rest.find("<!--") {
        out.push_str(&rest[..open]);
        match rest[open + 4..].find("-->") {
            Some(close) => rest = &rest[open + 4 + close + 3..],
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// The imports of one line (`spans`: whether `line` is the file's text at `start`, so spans
/// point at each import; otherwise they point at the line's start).
fn find_imports(line: &str, start: usize, spans: bool, out: &mut Vec<Import>) {
    // Code spans are blanked: a run of N backticks up to the next run of exactly N.
    let mut masked: Vec<u8> = line.as_bytes().to_vec();
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'`' {
            i += 1;
            continue;
        }
        let n = bytes[i..].iter().take_while(|b| **b == b'`').count();
        let mut j = i + n;
        let mut close = None;
        while j < bytes.len() {
            if bytes[j] == b'`' {
                let m = bytes[j..].iter().take_while(|b| **b == b'`').count();
                if m == n {
                    close = Some(j + m);
                    break;
                }
                j += m;
            } else {
                j += 1;
            }
        }
        match close {
            Some(end) => {
                masked[i..end].iter_mut().for_each(|b| *b = b' ');
                i = end;
            }
            None => i += n,
        }
    }
    let masked = String::from_utf8_lossy(&masked).into_owned();
    let chars: Vec<(usize, char)> = masked.char_indices().collect();
    for (k, &(at, c)) in chars.iter().enumerate() {
        if c != '@' || (k > 0 && !chars[k - 1].1.is_whitespace()) {
            continue;
        }
        let mut path = String::new();
        let mut m = k + 1;
        while m < chars.len() {
            let ch = chars[m].1;
            if ch == '\\' && chars.get(m + 1).is_some_and(|n| n.1 == ' ') {
                path.push(' ');
                m += 2;
            } else if ch.is_whitespace() || ch == '\\' {
                break;
            } else {
                path.push(ch);
                m += 1;
            }
        }
        let end = chars.get(m).map_or(masked.len(), |c| c.0);
        if let Some(hash) = path.find('#') {
            path.truncate(hash);
        }
        if path.is_empty() || !is_import(&path) {
            continue;
        }
        let span = if spans { Span::new(start + at, start + end) } else { Span::new(start, start) };
        out.push(Import { written: path, span });
    }
}

/// Whether a word after `@` is taken as a path (Claude Code's test).
fn is_import(path: &str) -> bool {
    if path.starts_with("./") || path.starts_with("~/") || (path.starts_with('/') && path != "/") {
        return true;
    }
    let first = path.chars().next().unwrap_or(' ');
    !path.starts_with('@') && !"#%^&*()".contains(first) && (first.is_ascii_alphanumeric() || "._-".contains(first))
}

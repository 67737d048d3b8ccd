//! `capc check --fix`: applies the fixes readers attach to findings whose correction is
//! mechanical and certain (a missing `mcpServers` wrapper, hook events moved under `hooks`,
//! a quoted `${CLAUDE_PLUGIN_ROOT}`, a `./` prefix, a misspelt field with one candidate).
//!
//! A fix is a list of edits by byte span; the file's text is spliced, never re-serialized,
//! so every byte outside the edits (comments, key order, indentation) stays as it was. Fixes
//! are applied in the report's order; one that overlaps an edit already taken waits for the
//! next round, after a fresh check (the CLI runs rounds until nothing changes). Only files of
//! the checked folder itself are changed, never the extra scopes (`~/…`, `<managed>/…`).
//! Each file is written atomically, and only if it still holds the bytes that were checked.

use crate::check::Checked;
use crate::diagnostic::{Edit, EditPart};
use crate::span::Span;
use std::collections::BTreeMap;
use std::path::Path;

/// The fixes for one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileFix {
    /// Relative to the checked folder, `/`-separated.
    pub path: String,
    pub before: String,
    pub after: String,
    /// The rule of each finding fixed, in report order.
    pub rules: Vec<&'static str>,
    /// `before` and `after` as output may show them: secrets masked (`--diff`).
    pub(crate) shown_before: String,
    pub(crate) shown_after: String,
}

/// One round of fixes: for each file of the checked folder with fixable findings, its text
/// with every fix applied that does not overlap an earlier one.
pub fn plan(checked: &Checked) -> Vec<FileFix> {
    let mut by_path: BTreeMap<&str, Vec<(&'static str, &[Edit])>> = BTreeMap::new();
    for d in &checked.diagnostics {
        if let Some(edits) = &d.fix {
            if !d.path.starts_with("~/") && !d.path.starts_with('<') {
                by_path.entry(d.path.as_str()).or_default().push((d.rule, edits));
            }
        }
    }
    let mut out = Vec::new();
    for (path, fixes) in by_path {
        let Some(text) = checked.source(path).and_then(|f| f.text()) else { continue };
        let text = &*text;
        let (after, rules) = apply(text, &fixes);
        if after != text {
            // The same edits on the masked text: masking keeps every byte offset.
            let shown_before = crate::report::masked_text(checked, path, text);
            let (shown_after, _) = apply(&shown_before, &fixes);
            out.push(FileFix {
                path: path.to_string(),
                before: text.to_string(),
                after,
                rules,
                shown_before,
                shown_after,
            });
        }
    }
    out
}

/// `text` with `fixes` applied in order, each whole or not at all: a fix is skipped when
/// one of its edits overlaps an edit already taken (unless it is the very same fix, which
/// several findings may share), or when it cannot be resolved against the text. Returns the
/// new text and the rule of each fix applied.
pub fn apply(text: &str, fixes: &[(&'static str, &[Edit])]) -> (String, Vec<&'static str>) {
    let mut taken: Vec<(Span, String)> = Vec::new();
    let mut applied: Vec<Vec<(Span, String)>> = Vec::new();
    let mut rules = Vec::new();
    for (rule, edits) in fixes {
        let Some(resolved) = resolve(text, edits) else { continue };
        if applied.contains(&resolved) {
            rules.push(*rule);
            continue;
        }
        let overlaps = resolved.iter().any(|(span, _)| taken.iter().any(|(t, _)| overlap(*span, *t)));
        if overlaps {
            continue;
        }
        taken.extend(resolved.iter().cloned());
        applied.push(resolved);
        rules.push(*rule);
    }
    taken.sort_by_key(|(span, _)| (span.start, span.end));
    let mut out = String::with_capacity(text.len() + 64);
    let mut at = 0;
    for (span, replacement) in taken {
        out.push_str(&text[at..span.start]);
        out.push_str(&replacement);
        at = span.end;
    }
    out.push_str(&text[at..]);
    (out, rules)
}

/// Two edits collide when their ranges share a byte, or when both insert at one place
/// (their order would be a guess).
fn overlap(a: Span, b: Span) -> bool {
    (a.start < b.end && b.start < a.end) || (a.start == b.start && (a.start == a.end || b.start == b.end))
}

/// The edits as plain replacements, or `None` when one does not fit the text (out of bounds,
/// off a character boundary, a key that is not written as expected, edits overlapping).
fn resolve(text: &str, edits: &[Edit]) -> Option<Vec<(Span, String)>> {
    let mut out = Vec::with_capacity(edits.len());
    for edit in edits {
        let span = edit.span();
        if span.start > span.end || !text.is_char_boundary(span.start) || !text.is_char_boundary(span.end) {
            return None;
        }
        let written = text.get(span.start..span.end)?;
        let replacement = match edit {
            Edit::Replace { text, .. } => text.clone(),
            Edit::Compose { parts, .. } => {
                let mut out = String::new();
                for part in parts {
                    match part {
                        EditPart::Text(t) => out.push_str(t),
                        EditPart::Source(from) => out.push_str(text.get(from.start..from.end)?),
                        EditPart::Indented { span, indent } => {
                            out.push_str(&crate::diagnostic::indented(text.get(span.start..span.end)?, indent))
                        }
                    }
                }
                out
            }
            Edit::RenameKey { from, to, .. } => {
                if written == from {
                    to.clone()
                } else if ["\"", "'"].iter().any(|q| written == format!("{q}{from}{q}")) {
                    let quote = &written[..1];
                    format!("{quote}{to}{quote}")
                } else {
                    return None;
                }
            }
        };
        out.push((span, replacement));
    }
    out.sort_by_key(|(span, _)| (span.start, span.end));
    if out.windows(2).any(|w| overlap(w[0].0, w[1].0)) {
        return None;
    }
    Some(out)
}

/// What is wrong with writing a fix.
#[derive(Debug)]
pub enum WriteError {
    /// The file changed since it was checked (or vanished); nothing was written.
    Changed,
    /// A symbolic link: the fix is not written through it.
    Link,
    Io(std::io::Error),
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteError::Changed => write!(f, "the file changed since it was checked; run the check again"),
            WriteError::Link => write!(f, "the file is a symbolic link; fix its target instead"),
            WriteError::Io(e) => write!(f, "{e}"),
        }
    }
}

/// Writes `fix.after` over `root/fix.path` atomically (a temporary file beside it, renamed
/// over it, with the file's permissions), if the file is a regular file (not a link) that
/// still holds `fix.before`.
pub fn write(root: &Path, fix: &FileFix) -> Result<(), WriteError> {
    let path = root.join(&fix.path);
    let meta = std::fs::symlink_metadata(&path).map_err(|_| WriteError::Changed)?;
    if meta.file_type().is_symlink() {
        return Err(WriteError::Link);
    }
    let current = crate::walk::read_regular(&path, crate::walk::MAX_FILE_BYTES, crate::walk::Links::Refuse)
        .map_err(|_| WriteError::Changed)?;
    if current != fix.before.as_bytes() {
        return Err(WriteError::Changed);
    }
    let (mut file, temporary) = create_temporary(&path).map_err(WriteError::Io)?;
    let result = (|| {
        use std::io::Write as _;
        file.write_all(fix.after.as_bytes())?;
        file.set_permissions(meta.permissions())?;
        drop(file);
        std::fs::rename(&temporary, &path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    result.map_err(WriteError::Io)
}

/// A new temporary file beside `path`, and its path. It is created exclusively (`O_EXCL`,
/// never through a link): a repository may hold a link under any name capc could pick, and
/// writing through it would write wherever it points. A name already taken, by a leftover or
/// by anything planted, is left alone and the next one tried.
fn create_temporary(path: &Path) -> std::io::Result<(std::fs::File, std::path::PathBuf)> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW).mode(0o600);
    }
    let mut last = None;
    for attempt in 0..100u32 {
        let temporary = path.with_file_name(format!(".{name}.capc-fix.{}.{attempt}.tmp", std::process::id()));
        match options.open(&temporary) {
            Ok(file) => return Ok((file, temporary)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no temporary name left")))
}

/// A unified diff of one file's fix, paths as `a/PATH` and `b/PATH`, secrets masked.
pub fn diff(fix: &FileFix) -> String {
    similar::TextDiff::from_lines(&fix.shown_before, &fix.shown_after)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{}", fix.path), &format!("b/{}", fix.path))
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::{remove_entries, separator};

    fn run(text: &str, fixes: &[(&'static str, Vec<Edit>)]) -> (String, Vec<&'static str>) {
        let borrowed: Vec<(&'static str, &[Edit])> = fixes.iter().map(|(r, e)| (*r, e.as_slice())).collect();
        apply(text, &borrowed)
    }

    #[test]
    fn overlapping_fixes_wait_and_identical_ones_count_once_applied() {
        let text = "abcdef";
        let fixes = [
            ("one", vec![Edit::replace(Span::new(1, 3), "X")]),
            ("two", vec![Edit::replace(Span::new(2, 4), "Y")]),
            ("three", vec![Edit::insert(5, "!")]),
            ("one", vec![Edit::replace(Span::new(1, 3), "X")]),
        ];
        assert_eq!(run(text, &fixes), ("aXde!f".to_string(), vec!["one", "three", "one"]));
    }

    #[test]
    fn keys_are_renamed_as_written_or_not_at_all() {
        let rename = |span| vec![Edit::RenameKey { span, from: "mcp_servers".into(), to: "mcpServers".into() }];
        assert_eq!(run("{\"mcp_servers\": 1}", &[("r", rename(Span::new(1, 14)))]).0, "{\"mcpServers\": 1}");
        assert_eq!(run("mcp_servers: 1", &[("r", rename(Span::new(0, 11)))]).0, "mcpServers: 1");
        assert_eq!(run("'mcp_servers': 1", &[("r", rename(Span::new(0, 13)))]).0, "'mcpServers': 1");
        assert_eq!(run("{\"mcp_server\\u0073\": 1}", &[("r", rename(Span::new(1, 19)))]).1, Vec::<&str>::new());
    }

    #[test]
    fn removed_entries_take_their_commas() {
        let text = "{\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": 3\n}";
        let root = crate::json::parse(text).expect("JSON");
        let entries = root.as_object().expect("object");
        let remove = |which: &[usize]| {
            let edits = remove_entries(entries, which);
            run(text, &[("r", edits)]).0
        };
        assert_eq!(remove(&[0]), "{\n  \"b\": 2,\n  \"c\": 3\n}");
        assert_eq!(remove(&[1]), "{\n  \"a\": 1,\n  \"c\": 3\n}");
        assert_eq!(remove(&[2]), "{\n  \"a\": 1,\n  \"b\": 2\n}");
        assert_eq!(remove(&[1, 2]), "{\n  \"a\": 1\n}");
        assert_eq!(remove(&[0, 1, 2]), "{\n  \n}");
        assert_eq!(separator(text, &root), ",\n  ");
        assert_eq!(separator("{ \"a\": 1 }", &crate::json::parse("{ \"a\": 1 }").expect("JSON")), ", ");
    }
}

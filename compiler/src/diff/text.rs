//! The text of instruction files, for `capc diff` to show what an added or changed one now
//! tells the model: each side's files are read while the side is at hand (a revision's
//! extracted folder is removed once its lock is built), credentials masked as they are read,
//! and the report's instruction changes get a bounded unified diff of their lines.

use super::{Class, Report, Section, TextDiff};
use crate::model::Lock;
use std::collections::BTreeMap;
use std::path::Path;

/// An instruction file's text by its path in the lock, credential-shaped words replaced by
/// their `sha256:<hex>` (`crate::secrets::redact_words`, as every text of a report is).
pub type RedactedTexts = BTreeMap<String, String>;

/// At most this many lines of a file's diff are shown; the rest are counted.
pub(crate) const MAX_LINES: usize = 40;

/// A line longer than this many characters is cut, the cut marked with `…`.
const MAX_LINE_CHARS: usize = 240;

/// Lines of context around each change.
const CONTEXT: usize = 3;

/// The texts of `lock`'s instruction files below `root`. Only a path relative to `root` is
/// read (a user-scope `~/…` file, an added folder's, a settings key's text are not), and only
/// when it resolves inside `root` (no `..`, no link leading out) to a regular file within the
/// walk's size limit; what cannot be read has no text, and its change shows none.
pub fn read(root: &Path, lock: &Lock) -> RedactedTexts {
    let mut texts = RedactedTexts::new();
    let Ok(top) = root.canonicalize() else { return texts };
    for i in lock.instructions.iter().filter(|i| i.key.is_none()) {
        if texts.contains_key(&i.path) || !is_plain_relative(&i.path) {
            continue;
        }
        let Ok(file) = top.join(&i.path).canonicalize() else { continue };
        if !file.starts_with(&top) {
            continue;
        }
        let Ok(bytes) = crate::walk::read_regular(&file, crate::walk::MAX_FILE_BYTES, crate::walk::Links::Follow)
        else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        let masked = crate::secrets::redact_words(&text).unwrap_or_else(|| text.into_owned());
        texts.insert(i.path.clone(), masked);
    }
    texts
}

/// A `/`-separated path of plain names: not absolute, no `~`, no `.` or `..`, no empty part.
fn is_plain_relative(path: &str) -> bool {
    !path.is_empty()
        && !path.starts_with('~')
        && !path.contains('\\')
        && path.split('/').all(|part| !part.is_empty() && part != "." && part != "..")
        && Path::new(path).is_relative()
}

/// Gives each added or changed instruction file of the folder (not of a marketplace plugin)
/// whose text both sides hold (an added one: the new side) the diff of its lines.
pub(crate) fn attach(report: &mut Report, old: &RedactedTexts, new: &RedactedTexts) {
    for change in report.changes.iter_mut().filter(|c| c.section == Section::Instruction && c.plugin.is_none()) {
        let before = match change.class {
            Class::Added => Some(""),
            Class::Changed => old.get(&change.subject).map(String::as_str),
            Class::Removed | Class::Rerouted => None,
        };
        if let (Some(before), Some(after)) = (before, new.get(&change.subject)) {
            change.text_diff = unified(before, after);
        }
    }
}

/// The unified diff of two texts, without file headers: `@@` hunk headers, then each line
/// marked ` `, `-` or `+`; at most [`MAX_LINES`] lines, and how many added or removed lines
/// follow them. `None` when the lines are the same (a change of bytes the lines hide: line
/// endings, a final newline).
fn unified(old: &str, new: &str) -> Option<TextDiff> {
    let diff = similar::TextDiff::from_lines(old, new);
    let mut lines = Vec::new();
    for hunk in diff.unified_diff().context_radius(CONTEXT).iter_hunks() {
        lines.push(hunk.header().to_string());
        for change in hunk.iter_changes() {
            let sign = match change.tag() {
                similar::ChangeTag::Equal => ' ',
                similar::ChangeTag::Delete => '-',
                similar::ChangeTag::Insert => '+',
            };
            let line = change.value().trim_end_matches(['\n', '\r']);
            let mut shown: String = line.chars().take(MAX_LINE_CHARS).collect();
            if shown.len() < line.len() {
                shown.push('…');
            }
            lines.push(format!("{sign}{shown}"));
        }
    }
    if lines.is_empty() {
        return None;
    }
    let rest = lines.split_off(lines.len().min(MAX_LINES));
    let more = rest.iter().filter(|l| l.starts_with(['+', '-'])).count();
    Some(TextDiff { lines, more })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_line_is_a_hunk_with_its_context() {
        let diff = unified("a\nb\nc\n", "a\nB\nc\n").expect("a diff");
        assert_eq!(diff.lines, ["@@ -1,3 +1,3 @@", " a", "-b", "+B", " c"]);
        assert_eq!(diff.more, 0);
    }

    #[test]
    fn a_long_diff_is_cut_and_what_is_left_counted() {
        let new: String = (0..100).map(|n| format!("line {n}\n")).collect();
        let diff = unified("", &new).expect("a diff");
        assert_eq!(diff.lines.len(), MAX_LINES);
        assert_eq!(diff.lines[0], "@@ -0,0 +1,100 @@");
        assert_eq!(diff.more, 100 - (MAX_LINES - 1));
    }

    #[test]
    fn same_lines_are_no_diff() {
        assert_eq!(unified("a\nb\n", "a\nb\n"), None);
    }

    #[cfg(unix)]
    #[test]
    fn a_file_is_read_inside_its_root_only_and_masked() {
        let scratch = tempfile::tempdir().expect("a scratch folder");
        let root = scratch.path().join("side");
        std::fs::create_dir_all(root.join("docs")).expect("create");
        std::fs::write(scratch.path().join("outside.md"), "outside\n").expect("write");
        std::fs::write(root.join("CLAUDE.md"), "token ghp_aB3dE5gH7jK9mN1pQ3sT5vX7zA9cD1fG3hJ5\n").expect("write");
        std::os::unix::fs::symlink("../../outside.md", root.join("docs/out.md")).expect("link");
        std::os::unix::fs::symlink("../CLAUDE.md", root.join("docs/in.md")).expect("link");
        let mut lock = crate::lock::resolve::empty_lock();
        lock.instructions = ["CLAUDE.md", "docs/out.md", "docs/in.md", "../outside.md"]
            .into_iter()
            .map(|path| crate::model::Instruction { path: path.to_string(), ..Default::default() })
            .collect();
        let texts = read(&root, &lock);
        assert_eq!(texts.keys().collect::<Vec<_>>(), ["CLAUDE.md", "docs/in.md"]);
        assert!(texts["CLAUDE.md"].starts_with("token sha256:"), "{texts:?}");
    }

    #[test]
    fn only_plain_relative_paths_are_read() {
        for path in ["CLAUDE.md", ".claude/rules/rust.md", "docs/style.md"] {
            assert!(is_plain_relative(path), "{path}");
        }
        for path in ["", "/etc/passwd", "~/.claude/CLAUDE.md", "../CLAUDE.md", "docs/../../x", "./CLAUDE.md", "a//b"] {
            assert!(!is_plain_relative(path), "{path}");
        }
    }
}

//! Golden files: output compared with a committed file, or the file rewritten when `CAPC_BLESS`
//! is set (then read the change with `git diff`). A mismatch says which file, a unified diff of
//! what changed, and how to accept it. `runtime/tests` includes this file by path.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// Whether `CAPC_BLESS` is set: golden files are rewritten instead of compared.
pub(crate) fn blessing() -> bool {
    std::env::var_os("CAPC_BLESS").is_some()
}

/// Compares `actual` with the file at `path` (a missing file is empty); when blessing, writes
/// `actual` there instead (creating its folder) and succeeds.
pub(crate) fn check(path: &Path, actual: &str) -> Result<(), String> {
    check_or_bless(path, actual, blessing())
}

fn check_or_bless(path: &Path, actual: &str, bless: bool) -> Result<(), String> {
    let expected = std::fs::read_to_string(path).unwrap_or_default();
    if expected == actual {
        return Ok(());
    }
    if bless {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("create {}: {e}", parent.display()));
        }
        std::fs::write(path, actual).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
        return Ok(());
    }
    Err(mismatch(&path.display().to_string(), &expected, actual))
}

/// [`check`], panicking with the diff on a mismatch.
#[track_caller]
pub(crate) fn assert(path: &Path, actual: &str) {
    if let Err(message) = check(path, actual) {
        panic!("{message}");
    }
}

/// Replaces the text between the line holding `start` and the next `end` in the file at `path`
/// with `actual`, then [`check`]s the whole file: for a generated part of a document (the
/// README's rule table).
#[track_caller]
pub(crate) fn assert_section(path: &Path, start: &str, end: &str, actual: &str) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let from = text.find(start).unwrap_or_else(|| panic!("{} has no `{start}`", path.display()));
    let from = from + text[from..].find('\n').map_or(text.len() - from, |n| n + 1);
    let to = from + text[from..].find(end).unwrap_or_else(|| panic!("{} has no `{end}`", path.display()));
    assert(path, &format!("{}{actual}{}", &text[..from], &text[to..]));
}

/// Compares every file of the tree `actual` (path relative to `dir` → bytes) with the files
/// under `dir`; when blessing, replaces `dir` with `actual`.
pub(crate) fn check_tree(dir: &Path, actual: &BTreeMap<String, Vec<u8>>) -> Result<(), String> {
    let expected = read_tree(dir);
    if &expected == actual {
        return Ok(());
    }
    if blessing() {
        if dir.exists() {
            std::fs::remove_dir_all(dir).unwrap_or_else(|e| panic!("remove {}: {e}", dir.display()));
        }
        for (rel, bytes) in actual {
            let path = dir.join(rel);
            std::fs::create_dir_all(path.parent().expect("inside dir")).expect("create a folder");
            std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
        }
        return Ok(());
    }
    Err(mismatch(&format!("{}/", dir.display()), &tree_text(&expected), &tree_text(actual)))
}

/// Every file under `dir` (none if it is absent), by path relative to it with `/`, with its bytes.
pub(crate) fn read_tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries.filter_map(Result::ok) {
            let path = entry.path();
            if path.is_dir() {
                walk(base, &path, out);
            } else {
                let rel = path.strip_prefix(base).expect("inside").to_string_lossy().replace('\\', "/");
                out.insert(rel, std::fs::read(&path).expect("read"));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn tree_text(tree: &BTreeMap<String, Vec<u8>>) -> String {
    tree.iter().map(|(path, bytes)| format!("=== {path}\n{}\n", String::from_utf8_lossy(bytes))).collect()
}

/// What a mismatch says: the file, a unified diff (`-` committed, `+` actual) and how to accept.
fn mismatch(name: &str, expected: &str, actual: &str) -> String {
    let mut out = format!("{name} differs from the output (CAPC_BLESS=1 rewrites it; then read `git diff`):\n");
    let diff = similar::TextDiff::from_lines(expected, actual);
    write!(out, "{}", diff.unified_diff().context_radius(3).header(&format!("{name} (committed)"), "actual"))
        .expect("a String takes writes");
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// Several golden files checked in one test: every mismatch is collected, and [`Self::finish`]
/// panics once with all of them.
#[derive(Default)]
pub(crate) struct Goldens {
    failures: Vec<String>,
}

impl Goldens {
    pub(crate) fn check(&mut self, path: &Path, actual: &str) {
        if let Err(message) = check(path, actual) {
            self.failures.push(message);
        }
    }

    pub(crate) fn push(&mut self, failure: Result<(), String>) {
        if let Err(message) = failure {
            self.failures.push(message);
        }
    }

    #[track_caller]
    pub(crate) fn finish(self) {
        assert!(
            self.failures.is_empty(),
            "{} golden file(s) differ:\n{}",
            self.failures.len(),
            self.failures.join("\n")
        );
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_mismatch_names_the_file_and_shows_a_diff_and_blessing_rewrites_it() {
        use super::check_or_bless;
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("sub/expected.txt");
        let err = check_or_bless(&path, "one\n", false).expect_err("a missing file is empty, not `one`");
        assert!(err.contains("expected.txt differs") && err.contains("+one"), "{err}");
        check_or_bless(&path, "one\ntwo\n", true).expect("blessing writes");
        assert_eq!(std::fs::read_to_string(&path).expect("written"), "one\ntwo\n");
        check_or_bless(&path, "one\ntwo\n", false).expect("now equal");
        let err = check_or_bless(&path, "one\nthree\n", false).expect_err("differs");
        assert!(err.contains("-two\n+three\n") && err.contains("CAPC_BLESS=1"), "{err}");
    }
}

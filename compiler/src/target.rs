//! What `capc check PATH…` checks. A folder is checked whole. A file is checked in the context
//! of the root it belongs to — the nearest folder above it that declares it: the folder holding
//! the `.claude/` it is in, a plugin or marketplace folder (one holding `.claude-plugin/`), the
//! folder of a `.mcp.json`; else the repository's top — and only the findings in the files given
//! are reported. This is what a pre-commit hook passes: the changed files.

use crate::check::CheckError;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

/// One folder to check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetFolder {
    /// The folder checked, as given (a folder) or as found (absolute, for a file).
    pub root: PathBuf,
    /// What is put in front of its paths in the report: `""` when they are shown relative to it
    /// (a single folder given), else the folder relative to the current one (or absolute).
    pub shown: String,
    /// The files asked for, relative to `root` with `/`; `None` for the whole folder.
    pub files: Option<BTreeSet<String>>,
}

/// The folders to check for the paths given, in the order given, each once.
pub fn targets(paths: &[PathBuf]) -> Result<Vec<TargetFolder>, CheckError> {
    let cwd = std::env::current_dir().unwrap_or_default();
    let mut out: Vec<TargetFolder> = Vec::new();
    let mut index: BTreeMap<PathBuf, usize> = BTreeMap::new();
    for path in paths {
        let meta = std::fs::metadata(path).map_err(|e| CheckError::Unreadable(path.clone(), e))?;
        let (root, file) = if meta.is_dir() {
            (path.clone(), None)
        } else {
            let absolute = lexical_absolute(path, &cwd);
            let root = root_of(&absolute);
            let rel = absolute.strip_prefix(&root).map(slashed).unwrap_or_default();
            (root, Some(rel))
        };
        let key = lexical_absolute(&root, &cwd);
        let at = *index.entry(key.clone()).or_insert_with(|| {
            out.push(TargetFolder { root: root.clone(), shown: shown(&key, &cwd), files: Some(BTreeSet::new()) });
            out.len() - 1
        });
        match (file, &mut out[at].files) {
            (Some(rel), Some(files)) => {
                files.insert(rel);
            }
            (None, files) => *files = None,
            (Some(_), None) => {}
        }
    }
    // One folder alone keeps today's report: paths relative to it.
    if paths.len() == 1 && out.len() == 1 && out[0].files.is_none() {
        out[0].shown = String::new();
    }
    Ok(out)
}

/// The root a file belongs to (see the module docs). `file` is absolute.
pub(crate) fn root_of(file: &Path) -> PathBuf {
    let folder = file.parent().unwrap_or(Path::new("/"));
    // Inside a `.claude` folder: the folder holding the innermost one.
    let parts: Vec<Component<'_>> = folder.components().collect();
    if let Some(i) = parts.iter().rposition(|c| c.as_os_str() == ".claude") {
        return parts[..i].iter().collect();
    }
    // A project's (or a plugin's) `.mcp.json` belongs to its own folder.
    if file.file_name().is_some_and(|n| n == ".mcp.json") {
        return folder.to_path_buf();
    }
    for dir in folder.ancestors() {
        if dir.file_name().is_some_and(|n| n == ".claude-plugin") {
            continue;
        }
        if dir.join(".claude-plugin").is_dir() || dir.join(".claude").is_dir() {
            return dir.to_path_buf();
        }
        if std::fs::symlink_metadata(dir.join(".git")).is_ok() {
            return dir.to_path_buf();
        }
    }
    // Nothing declares it: a skill is checked from the folder above its own (its name is its
    // folder's), anything else from its folder.
    match file.file_name().is_some_and(|n| n == "SKILL.md") {
        true => folder.parent().unwrap_or(folder).to_path_buf(),
        false => folder.to_path_buf(),
    }
}

/// `path` made absolute against `cwd` without resolving links, `.` and `..` folded.
fn lexical_absolute(path: &Path, cwd: &Path) -> PathBuf {
    let joined = if path.is_absolute() { path.to_path_buf() } else { cwd.join(path) };
    let mut out = PathBuf::new();
    for part in joined.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

fn slashed(path: &Path) -> String {
    path.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect::<Vec<_>>().join("/")
}

/// How the folder `root` is shown in front of its paths in a report a CI reads from the current
/// folder (GitHub annotations, SARIF): as [`shown`], also when it is the one folder checked.
pub fn shown_from_cwd(root: &Path) -> String {
    let cwd = std::env::current_dir().unwrap_or_default();
    let cwd = cwd.canonicalize().unwrap_or(cwd);
    let root = lexical_absolute(root, &cwd);
    shown(&root.canonicalize().unwrap_or(root), &cwd)
}

/// How a root is shown in front of its paths: relative to the current folder when it is below
/// it (`""` for the current folder itself), else absolute.
fn shown(root: &Path, cwd: &Path) -> String {
    match root.strip_prefix(cwd) {
        Ok(rel) => slashed(rel),
        Err(_) => root.display().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(dirs: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("tempdir");
        for d in dirs {
            std::fs::create_dir_all(dir.path().join(d)).expect("mkdir");
        }
        dir
    }

    #[test]
    fn a_file_belongs_to_the_nearest_folder_that_declares_it() {
        let dir = tree(&[
            "repo/.git",
            "repo/.claude/skills/deploy",
            "repo/.claude/skills/kit/.claude-plugin",
            "repo/market/.claude-plugin",
            "repo/market/plugins/listed/skills/a",
            "repo/market/plugins/own/.claude-plugin",
            "repo/market/plugins/own/hooks",
            "repo/docs/skills/loose",
            "alone/x",
        ]);
        let top = dir.path().canonicalize().expect("canonical");
        let root = |rel: &str| root_of(&top.join(rel)).strip_prefix(&top).map(slashed).expect("inside");
        assert_eq!(root("repo/.claude/skills/deploy/SKILL.md"), "repo");
        assert_eq!(root("repo/.claude/skills/kit/.claude-plugin/plugin.json"), "repo");
        assert_eq!(root("repo/market/plugins/own/hooks/hooks.json"), "repo/market/plugins/own");
        assert_eq!(root("repo/market/plugins/own/.claude-plugin/plugin.json"), "repo/market/plugins/own");
        assert_eq!(root("repo/market/plugins/listed/skills/a/SKILL.md"), "repo/market");
        assert_eq!(root("repo/market/.claude-plugin/marketplace.json"), "repo/market");
        assert_eq!(root("repo/docs/skills/loose/SKILL.md"), "repo");
        assert_eq!(root("repo/docs/.mcp.json"), "repo/docs");
        assert_eq!(root("alone/x/SKILL.md"), "alone");
    }

    #[test]
    fn files_of_one_root_are_checked_together() {
        let dir = tree(&["p/.claude/agents", "q"]);
        let top = dir.path().canonicalize().expect("canonical");
        std::fs::write(top.join("p/.claude/agents/a.md"), "").expect("write");
        std::fs::write(top.join("p/.mcp.json"), "{}").expect("write");
        let found = targets(&[top.join("p/.claude/agents/a.md"), top.join("p/.mcp.json"), top.join("q")]).expect("ok");
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].root, top.join("p"));
        let files: Vec<&str> = found[0].files.iter().flatten().map(String::as_str).collect();
        assert_eq!(files, [".claude/agents/a.md", ".mcp.json"]);
        assert_eq!(found[1].files, None);
        assert!(found[1].shown.ends_with("/q"), "{found:?}");
        let one = targets(&[top.join("q")]).expect("ok");
        assert_eq!(one[0].shown, "", "one folder alone: paths relative to it");
        assert!(matches!(targets(&[top.join("missing")]), Err(CheckError::Unreadable(..))));
    }
}

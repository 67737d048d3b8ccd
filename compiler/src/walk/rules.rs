//! The rules of ignore files: the git repository around the walked folder (its excludes), each
//! folder's `.gitignore` and `.ignore`, and whether an entry is left out by them or `exclude`.

use super::file::{read_regular, Links};
use super::loaded::{loaded_whatever_is_ignored, read_even_if_ignored};
use super::{Filter, WalkCx, MAX_IGNORE_FILE_BYTES};
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::Match;
use std::path::Path;
use std::sync::Arc;

/// The git repository around the walked folder, for its `.gitignore` files and excludes.
#[derive(Default)]
pub(super) struct Repository {
    /// Whether the walked folder is inside one (a `.git` folder or file in it or above it).
    pub(super) inside: bool,
    /// `.git/info/exclude`, then git's global excludes (`core.excludesFile`): the weakest rules.
    excludes: Vec<Gitignore>,
}

/// The ignore rules of one folder (its `.gitignore` and `.ignore`, the latter winning), and
/// those of the folders above it.
pub(super) struct IgnoreRules {
    pub(super) matcher: Gitignore,
    pub(super) parent: Option<Arc<IgnoreRules>>,
}

/// The rules of `dir`'s own ignore files, if it has any. `names` says which it holds.
pub(super) fn dir_rules(dir: &Path, has: impl Fn(&str) -> bool, inside_repository: bool) -> Option<Gitignore> {
    let mut builder = GitignoreBuilder::new(dir);
    let mut any = false;
    // Later lines win: `.ignore` overrides `.gitignore`, as in ripgrep.
    for name in [".gitignore", ".ignore"] {
        if !has(name) || (name == ".gitignore" && !inside_repository) {
            continue;
        }
        any |= add_ignore_file(&mut builder, &dir.join(name), Links::Refuse);
    }
    if !any {
        return None;
    }
    builder.build().ok().filter(|m| !m.is_empty())
}

/// Adds the lines of one ignore file; a pattern that does not parse is skipped, as git skips it.
fn add_ignore_file(builder: &mut GitignoreBuilder, path: &Path, links: Links) -> bool {
    let Ok(bytes) = read_regular(path, MAX_IGNORE_FILE_BYTES, links) else { return false };
    for line in String::from_utf8_lossy(&bytes).lines() {
        let _ = builder.add_line(Some(path.to_path_buf()), line);
    }
    true
}

/// The repository around `root` and the rules of the ignore files in the folders above it,
/// up to the repository's top (a `.gitignore` there applies to the walked folder too).
pub(super) fn outer_rules(root: &Path, filter: &Filter) -> (Option<Arc<IgnoreRules>>, Repository) {
    let mut repository = Repository::default();
    if !filter.ignore_files {
        return (None, repository);
    }
    let top = root.ancestors().find(|dir| std::fs::symlink_metadata(dir.join(".git")).is_ok());
    let Some(top) = top else { return (None, repository) };
    repository.inside = true;
    let git = top.join(".git");
    if git.is_dir() {
        let mut builder = GitignoreBuilder::new(top);
        if add_ignore_file(&mut builder, &git.join("info/exclude"), Links::Refuse) {
            repository.excludes.extend(builder.build().ok());
        }
    }
    if let Some(global) = ignore::gitignore::gitconfig_excludes_path() {
        let mut builder = GitignoreBuilder::new(top);
        if add_ignore_file(&mut builder, &global, Links::Follow) {
            repository.excludes.extend(builder.build().ok());
        }
    }
    // From the repository's top down to the folder above the root.
    let mut above: Vec<&Path> = root.ancestors().skip(1).take_while(|dir| dir.starts_with(top)).collect();
    above.reverse();
    let mut rules: Option<Arc<IgnoreRules>> = None;
    for dir in above {
        let has = |name: &str| std::fs::symlink_metadata(dir.join(name)).is_ok();
        if let Some(matcher) = dir_rules(dir, has, true) {
            rules = Some(Arc::new(IgnoreRules { matcher, parent: rules }));
        }
    }
    (rules, repository)
}

impl WalkCx<'_> {
    /// Whether the entry at `rel` (a folder when `is_dir`) is left out by the filter.
    pub(super) fn is_ignored(&self, rules: Option<&IgnoreRules>, rel: &str, is_dir: bool) -> bool {
        let Some(filter) = self.filter else { return false };
        if filter.exclude.is_none() && rules.is_none() && self.repository.excludes.is_empty() {
            return false;
        }
        if loaded_whatever_is_ignored(rel) {
            return false;
        }
        let path = self.canonical_root.join(rel);
        if let Some(exclude) = &filter.exclude {
            if exclude.matched(&path, is_dir).is_ignore() {
                return true;
            }
        }
        if !filter.ignore_files || read_even_if_ignored(rel) {
            return false;
        }
        let mut at = rules;
        while let Some(r) = at {
            match r.matcher.matched(&path, is_dir) {
                Match::Ignore(_) => return true,
                Match::Whitelist(_) => return false,
                Match::None => at = r.parent.as_deref(),
            }
        }
        for excludes in &self.repository.excludes {
            match excludes.matched(&path, is_dir) {
                Match::Ignore(_) => return true,
                Match::Whitelist(_) => return false,
                Match::None => {}
            }
        }
        false
    }
}

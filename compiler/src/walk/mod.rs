//! The only place the compiler touches the file system: walking a root and reading files.
//!
//! Symbolic links are followed when their target stays inside the root; a link that
//! escapes the root, dangles or loops back to an ancestor is reported and not followed,
//! so a walk always ends.
//!
//! A [`Filter`] leaves out what ignore files name, as ripgrep does: `.gitignore` (inside a git
//! repository, with the repository's `.git/info/exclude` and git's global excludes), and
//! `.ignore` anywhere, each in the folder it sits in and below, the deeper file first; plus
//! capc.toml's `exclude` patterns. An ignored folder is not descended into and an ignored file
//! is not listed, so neither is ever read. Ignore files are read like declarations: regular
//! files only, bounded, never through a link (as git reads them).

//!
//! This file holds the walk itself; `tree.rs` the listing it gives, `file.rs` how one file is
//! read, `loaded.rs` what Claude Code reads whatever ignore files say and `rules.rs` the ignore
//! files' rules.

mod file;
mod loaded;
mod rules;
mod tree;

pub use file::{content_hash, read, read_regular, text_hash, Content, Links, ReadError, TextSource, Texts};
pub(crate) use file::{open_regular, open_within, read_program};
pub use tree::{Tree, WalkProblem, WalkProblemKind};

use ignore::gitignore::Gitignore;
use loaded::{Exempt, LoadedPaths};
use rayon::prelude::*;
use rules::{dir_rules, outer_rules, IgnoreRules, Repository};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Directories never descended into: version control, dependency and build output, and
/// hidden folders of other tools (`.cursor-plugin`, `.codex-plugin`, `.agents`, …).
/// `.claude` and `.claude-plugin` are the hidden folders Claude Code reads.
pub fn is_skipped_dir(name: &str) -> bool {
    matches!(name, "node_modules" | "target" | "__pycache__")
        || (name.starts_with('.') && !matches!(name, ".claude" | ".claude-plugin"))
}

/// Files larger than this are reported (`file-too-large`) and not parsed.
pub const MAX_FILE_BYTES: u64 = 10 * 1024 * 1024;

/// Walks stop listing after this many entries, so a pathological tree stays bounded.
pub(crate) const MAX_ENTRIES: usize = 2_000_000;

/// Folders deeper than this below the root are not descended into (`too-deep` is reported
/// instead): each level is a frame of the walk's recursion, and a repository of thousands of
/// nested folders would otherwise overflow the stack. No declaration Claude Code reads sits
/// anywhere near this deep; the same bound applies to JSON and YAML nesting.
pub const MAX_DEPTH: usize = 128;

/// Ignore files larger than this are not read (git's own limit is 100 MiB; no real one comes
/// near a megabyte).
pub(crate) const MAX_IGNORE_FILE_BYTES: u64 = 1024 * 1024;

/// What a walk leaves out besides the folders it always skips ([`is_skipped_dir`]).
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Honour `.gitignore` and git's excludes (inside a git repository) and `.ignore` files.
    pub(crate) ignore_files: bool,
    /// Gitignore-syntax patterns rooted at their own folder (capc.toml's `exclude`).
    pub exclude: Option<Arc<Gitignore>>,
}

impl Filter {
    fn is_active(&self) -> bool {
        self.ignore_files || self.exclude.is_some()
    }
}
/// Walks `root` (which must be a directory), reading every file. Folders are read in
/// parallel; the result is the same whatever the scheduling, because every collection in
/// `Tree` is sorted.
pub fn walk(root: &Path) -> Tree {
    walk_filtered(root, &Filter::default())
}

/// Walks `root` leaving out what `filter` names (see the module docs).
pub(crate) fn walk_filtered(root: &Path, filter: &Filter) -> Tree {
    let mut tree = Tree::default();
    Arc::make_mut(&mut tree.dirs).insert(String::new());
    let canonical_root = match root.canonicalize() {
        Ok(p) => p,
        Err(e) => {
            tree.problems
                .push(WalkProblem { path: String::new(), kind: WalkProblemKind::Unreadable { error: e.to_string() } });
            return tree;
        }
    };
    let (rules, repository) =
        if filter.is_active() { outer_rules(&canonical_root, filter) } else { (None, Repository::default()) };
    let cx = WalkCx {
        canonical_root: &canonical_root,
        entries: AtomicUsize::new(0),
        filter: filter.is_active().then_some(filter),
        repository,
        ignored: AtomicUsize::new(0),
    };
    let chain = Arc::new(Chain { path: canonical_root.clone(), parent: None, depth: 0, below: Below::default() });
    let part = walk_dir(&cx, root.to_path_buf(), String::new(), chain, rules);
    // Collected, the sets are sorted once and built in bulk rather than path by path.
    tree.files = Arc::new(part.files.into_iter().collect());
    tree.dirs = Arc::new(std::iter::once(String::new()).chain(part.dirs).collect());
    tree.links.extend(part.links);
    tree.ignored = cx.ignored.load(Ordering::Relaxed);
    tree.problems = part.problems;
    tree.problems.sort_by(|a, b| a.path.cmp(&b.path));
    tree
}

struct WalkCx<'a> {
    canonical_root: &'a Path,
    /// Entries seen so far, across threads.
    entries: AtomicUsize,
    filter: Option<&'a Filter>,
    repository: Repository,
    /// Entries left out by the filter, across threads.
    ignored: AtomicUsize,
}
/// What one folder and everything below it holds.
#[derive(Default)]
struct Subtree {
    files: Vec<String>,
    dirs: Vec<String>,
    links: Vec<(String, String)>,
    problems: Vec<WalkProblem>,
}

impl Subtree {
    /// Takes in what a folder below holds.
    fn absorb(&mut self, sub: Subtree) {
        self.files.extend(sub.files);
        self.dirs.extend(sub.dirs);
        self.links.extend(sub.links);
        self.problems.extend(sub.problems);
    }
}

/// A folder to walk next: its path, its path from the root and the chain down to it.
type Subdir = (PathBuf, String, Arc<Chain>);

/// Walks one folder and, in parallel, the folders below it.
fn walk_dir(
    cx: &WalkCx<'_>,
    dir: PathBuf,
    rel: String,
    ancestors: Arc<Chain>,
    rules: Option<Arc<IgnoreRules>>,
) -> Subtree {
    let mut part = Subtree::default();
    let entries = match read_entries(cx, &dir, &rel) {
        Ok(entries) => entries,
        Err(problem) => {
            part.problems.push(problem);
            return part;
        }
    };
    let folder = Folder {
        rules: own_rules(cx, &rel, &entries, rules),
        loaded: loaded_below(cx, &rel, &ancestors, &entries),
        cx,
        rel: &rel,
        ancestors: &ancestors,
    };
    let mut subdirs: Vec<Subdir> = Vec::new();
    for (name, entry) in entries {
        folder.entry(&name, &entry, &mut part, &mut subdirs);
    }
    let below: Vec<Subtree> = subdirs
        .into_par_iter()
        .map(|(path, rel, chain)| walk_dir(cx, path, rel, chain, folder.rules.clone()))
        .collect();
    for sub in below {
        part.absorb(sub);
    }
    part
}

/// The folder's entries with UTF-8 names, or the problem that stops the walk of it (unreadable,
/// or the walk's entry bound reached).
fn read_entries(cx: &WalkCx<'_>, dir: &Path, rel: &str) -> Result<Vec<(String, std::fs::DirEntry)>, WalkProblem> {
    let read = std::fs::read_dir(dir).map_err(|e| WalkProblem {
        path: rel.to_string(),
        kind: WalkProblemKind::Unreadable { error: e.to_string() },
    })?;
    let mut entries: Vec<(String, std::fs::DirEntry)> = Vec::new();
    for entry in read.filter_map(Result::ok) {
        if cx.entries.fetch_add(1, Ordering::Relaxed) >= MAX_ENTRIES {
            return Err(WalkProblem { path: rel.to_string(), kind: WalkProblemKind::TooManyEntries });
        }
        let Ok(name) = entry.file_name().into_string() else {
            continue; // not UTF-8: no Claude Code declaration has such a name
        };
        entries.push((name, entry));
    }
    Ok(entries)
}

/// The ignore rules for the folder's entries: the folder's own ignore files, which apply to its
/// entries and everything below, on top of those from above.
fn own_rules(
    cx: &WalkCx<'_>,
    rel: &str,
    entries: &[(String, std::fs::DirEntry)],
    rules: Option<Arc<IgnoreRules>>,
) -> Option<Arc<IgnoreRules>> {
    if cx.filter.is_none_or(|f| !f.ignore_files) {
        return rules;
    }
    let has = |name: &str| entries.iter().any(|(n, _)| n == name);
    let here = if has(".gitignore") || has(".ignore") {
        dir_rules(&cx.canonical_root.join(rel), has, cx.repository.inside)
    } else {
        None
    };
    match here {
        Some(matcher) => Some(Arc::new(IgnoreRules { matcher, parent: rules })),
        None => rules,
    }
}

/// What Claude Code loads below the folder whatever ignore files say: in a plugin's or
/// marketplace's folder, its manifests are read for the paths they name (`LoadedPaths`).
fn loaded_below(
    cx: &WalkCx<'_>,
    rel: &str,
    ancestors: &Chain,
    entries: &[(String, std::fs::DirEntry)],
) -> Option<Arc<LoadedPaths>> {
    match ancestors.below.whole || cx.filter.is_none() {
        false if entries.iter().any(|(n, _)| n == ".claude-plugin") => {
            Some(Arc::new(LoadedPaths { paths: cx.loads(rel), parent: ancestors.below.loaded.clone() }))
        }
        _ => ancestors.below.loaded.clone(),
    }
}

/// The path from the root of the entry `name` of the folder at `rel`.
fn child_path(rel: &str, name: &str) -> String {
    if rel.is_empty() {
        return name.to_string();
    }
    let mut child = String::with_capacity(rel.len() + 1 + name.len());
    child.push_str(rel);
    child.push('/');
    child.push_str(name);
    child
}

/// One folder being walked: where it is and how the filter applies to its entries.
struct Folder<'a, 'c> {
    cx: &'a WalkCx<'c>,
    rel: &'a str,
    ancestors: &'a Arc<Chain>,
    rules: Option<Arc<IgnoreRules>>,
    loaded: Option<Arc<LoadedPaths>>,
}

impl Folder<'_, '_> {
    /// What becomes of an entry: `None` when it is left out, else how the walk goes on below it.
    fn decide(&self, rel: &str, is_dir: bool) -> Option<Below> {
        let below = &self.ancestors.below;
        let keep = |whole: bool, ignored: bool| Some(Below { whole, ignored, loaded: self.loaded.clone() });
        if below.whole || self.cx.filter.is_none() {
            return keep(below.whole, false);
        }
        let exempt = LoadedPaths::find(self.loaded.as_deref(), rel);
        if exempt == Exempt::Whole {
            return keep(true, false);
        }
        if !below.ignored && !self.cx.is_ignored(self.rules.as_deref(), rel, is_dir) {
            return keep(false, false);
        }
        // An ignored folder is entered only on the way to what Claude Code loads (a plugin a
        // marketplace above lists, a path a manifest names); its other entries stay ignored. A
        // plugin folder nothing lists is not loaded, so an ignore rule that names it leaves it
        // out like any other folder.
        if is_dir && exempt == Exempt::Leads {
            return keep(false, true);
        }
        None
    }

    /// Lists one entry of the folder, or leaves it out; a folder to descend into joins `subdirs`.
    fn entry(&self, name: &str, entry: &std::fs::DirEntry, part: &mut Subtree, subdirs: &mut Vec<Subdir>) {
        let child_rel = child_path(self.rel, name);
        let Ok(file_type) = entry.file_type() else { return };
        if file_type.is_symlink() {
            self.link(name, entry.path(), child_rel, part, subdirs);
        } else if file_type.is_dir() {
            if is_skipped_dir(name) {
                return;
            }
            let Some(below) = self.decide(&child_rel, true) else {
                self.cx.ignored.fetch_add(1, Ordering::Relaxed);
                return;
            };
            if self.ancestors.depth >= MAX_DEPTH {
                part.problems.push(WalkProblem { path: child_rel, kind: WalkProblemKind::TooDeep });
                return;
            }
            let chain = Chain::below(self.ancestors, self.ancestors.path.join(name), below);
            part.dirs.push(child_rel.clone());
            subdirs.push((entry.path(), child_rel, chain));
        } else {
            // Regular files, and FIFOs, sockets and devices: those are listed too, so one named
            // like a declaration is claimed and `read` reports what it is instead of reading it.
            self.file(child_rel, part);
        }
    }

    /// A symbolic link: followed when its target stays inside the root, else reported (dangling,
    /// escaping the root, looping back to an ancestor, too deep).
    fn link(&self, name: &str, path: PathBuf, child_rel: String, part: &mut Subtree, subdirs: &mut Vec<Subdir>) {
        let cx = self.cx;
        let target = std::fs::read_link(&path).map(|t| t.display().to_string()).unwrap_or_default();
        let Ok(resolved) = path.canonicalize() else {
            part.problems.push(WalkProblem { path: child_rel, kind: WalkProblemKind::Dangling { target } });
            return;
        };
        if !resolved.starts_with(cx.canonical_root) {
            part.problems.push(WalkProblem { path: child_rel, kind: WalkProblemKind::EscapesRoot { target } });
            return;
        }
        if !resolved.is_dir() {
            self.file(child_rel, part);
            return;
        }
        if is_skipped_dir(name) {
            return;
        }
        let Some(below) = self.decide(&child_rel, true) else {
            cx.ignored.fetch_add(1, Ordering::Relaxed);
            return;
        };
        if self.ancestors.contains(&resolved) {
            part.problems.push(WalkProblem { path: child_rel, kind: WalkProblemKind::Loop { target } });
            return;
        }
        if self.ancestors.depth >= MAX_DEPTH {
            part.problems.push(WalkProblem { path: child_rel, kind: WalkProblemKind::TooDeep });
            return;
        }
        if let Ok(target_rel) = resolved.strip_prefix(cx.canonical_root) {
            let target_rel = target_rel.to_string_lossy().replace('\\', "/");
            part.links.push((child_rel.clone(), target_rel));
        }
        let chain = Chain::below(self.ancestors, resolved, below);
        part.dirs.push(child_rel.clone());
        subdirs.push((path, child_rel, chain));
    }

    /// Lists a file (or a link to one) unless the filter leaves it out.
    fn file(&self, child_rel: String, part: &mut Subtree) {
        if self.decide(&child_rel, false).is_none() {
            self.cx.ignored.fetch_add(1, Ordering::Relaxed);
        } else {
            part.files.push(child_rel);
        }
    }
}

/// The real folders from the root down to the one being read, so a link back to any of
/// them is recognised as a loop. Shared between siblings, so descending costs one node.
struct Chain {
    path: PathBuf,
    parent: Option<Arc<Chain>>,
    /// Levels below the root (the root is 0).
    depth: usize,
    /// How ignore rules apply below this folder.
    below: Below,
}

/// How ignore rules apply in a folder.
#[derive(Clone, Default)]
struct Below {
    /// Inside what Claude Code loads whatever ignore files say: nothing below is left out.
    whole: bool,
    /// Inside an ignored folder entered only on the way to what Claude Code loads: everything
    /// below is left out but that.
    ignored: bool,
    /// What the plugins and marketplaces above load.
    loaded: Option<Arc<LoadedPaths>>,
}

impl Chain {
    fn below(parent: &Arc<Chain>, path: PathBuf, below: Below) -> Arc<Chain> {
        Arc::new(Chain { path, parent: Some(parent.clone()), depth: parent.depth + 1, below })
    }

    fn contains(&self, target: &Path) -> bool {
        let mut at = Some(self);
        while let Some(link) = at {
            if link.path == target {
                return true;
            }
            at = link.parent.as_deref();
        }
        false
    }
}

#[cfg(all(test, unix))]
mod tests;

//! The walk stage, first of a check: the roots a check covers (the checked folder, then
//! `--user-dir`, `--managed-dir`, the `--add-dir` folders and the `--plugin-dir` folders
//! outside the checked folder), each listed once ([`Walked`]: its `Tree`, with the editor's
//! unsaved buffers), and what the walk could not read, as findings. A cache keeps each
//! folder's listing ([`Cache::walk`](super::Cache)).

use super::placement::Realm;
use super::{CheckError, Options};
use crate::diagnostic::{report_at, Diagnostic};
use crate::rules;
use crate::walk::{self, Tree, WalkProblemKind};
use std::path::PathBuf;

/// One folder a check covers.
pub(super) struct Root {
    pub(super) dir: PathBuf,
    pub(super) realm: Realm,
    /// The `--plugin-dir` folders inside the checked folder, by number and path in it (only
    /// for the checked folder's root): they are read with it.
    pub(super) plugin_dirs: Vec<(usize, String)>,
}

/// A root listed: what the claim stage is handed.
pub(super) struct Walked {
    pub(super) dir: PathBuf,
    pub(super) realm: Realm,
    pub(super) tree: Tree,
    pub(super) plugin_dirs: Vec<(usize, String)>,
    /// Whether the sources' SHA-256 are taken ([`Options::skip_hashes`] not set).
    pub(super) hash: bool,
    /// With a cache: the listing's fingerprint, a key of the claims and of every file's reading.
    pub(super) listing: Option<u64>,
}

/// The roots of a check, in order; `Err` when one is not a folder that can be read.
pub(super) fn roots(options: &Options) -> Result<Vec<Root>, CheckError> {
    let mut roots = vec![(options.root.clone(), Realm::Project)];
    if let Some(dir) = &options.user_dir {
        roots.push((dir.clone(), Realm::User));
    }
    if let Some(dir) = &options.managed_dir {
        roots.push((dir.clone(), Realm::Managed));
    }
    for (i, dir) in options.add_dirs.iter().enumerate() {
        roots.push((dir.clone(), Realm::AddDir(i + 1)));
    }
    // A `--plugin-dir` inside the checked folder is read with it; one outside is its own root.
    let root_real = options.root.canonicalize().ok();
    let mut plugin_dirs_inside: Vec<(usize, String)> = Vec::new();
    for (i, dir) in options.plugin_dirs.iter().enumerate() {
        let real = dir.canonicalize().ok();
        let inside = match (&root_real, &real) {
            (Some(root), Some(real)) => {
                real.strip_prefix(root).ok().map(|rel| rel.to_string_lossy().replace('\\', "/"))
            }
            _ => None,
        };
        match inside {
            Some(rel) => plugin_dirs_inside.push((i + 1, rel)),
            None => roots.push((dir.clone(), Realm::PluginDir(i + 1))),
        }
    }
    let mut out = Vec::with_capacity(roots.len());
    for (dir, realm) in roots {
        match std::fs::metadata(&dir) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Err(CheckError::NotADirectory(dir)),
            Err(e) => return Err(CheckError::Unreadable(dir, e)),
        }
        let plugin_dirs = if realm == Realm::Project { std::mem::take(&mut plugin_dirs_inside) } else { Vec::new() };
        out.push(Root { dir, realm, plugin_dirs });
    }
    Ok(out)
}

/// Lists `root`: the checked folder through the options' filter (ignore files, `exclude`),
/// the other scopes whole.
pub(super) fn walk(root: Root, options: &Options) -> Walked {
    let Root { dir, realm, plugin_dirs } = root;
    let filter = if realm == Realm::Project { options.filter.clone() } else { walk::Filter::default() };
    let mut tree = match options.cache.as_deref() {
        Some(cache) => cache.walk(&dir, &filter),
        None => walk::walk_filtered(&dir, &filter),
    };
    tree.texts = options.texts.clone();
    tree.add_unsaved(&dir);
    let listing = options.cache.as_ref().map(|_| tree.fingerprint());
    Walked { dir, realm, tree, plugin_dirs, hash: !options.skip_hashes, listing }
}

/// What the walk of a root could not read or follow, as findings.
pub(super) fn walk_problems(tree: &Tree, realm: Realm) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for problem in &tree.problems {
        let (rule, message, help) = match &problem.kind {
            WalkProblemKind::EscapesRoot { target } => (
                &rules::unfollowed_symlink::RULE,
                format!("symbolic link to `{target}` leaves the checked folder; not followed"),
                Some("check the folder that holds the target instead, or copy the files in"),
            ),
            WalkProblemKind::Dangling { target } => (
                &rules::unfollowed_symlink::RULE,
                format!("symbolic link to `{target}` points at nothing"),
                Some("fix or remove the link"),
            ),
            WalkProblemKind::Loop { target } => (
                &rules::unfollowed_symlink::RULE,
                format!("symbolic link to `{target}` loops back to a folder that contains it; not followed"),
                Some("remove the link"),
            ),
            WalkProblemKind::Unreadable { error } => {
                (&rules::unreadable_file::RULE, format!("cannot read this folder: {error}"), None)
            }
            WalkProblemKind::TooManyEntries => (
                &rules::unreadable_file::RULE,
                format!("more than {} entries; the rest of the tree was not checked", walk::MAX_ENTRIES),
                Some("check a smaller folder"),
            ),
            WalkProblemKind::TooDeep => (
                &rules::unreadable_file::RULE,
                format!("more than {} folders deep; this folder and what it holds were not checked", walk::MAX_DEPTH),
                Some("move what Claude Code should load nearer the top, or check this folder on its own"),
            ),
        };
        let d = report_at(&mut out, realm.display(&problem.path), rule, None, message);
        d.help = help.map(Into::into);
    }
    out
}

//! What a walk gives: the [`Tree`] of relative paths, and the problems met on the way.

use super::file::Texts;
use super::is_skipped_dir;
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

#[derive(Debug, Default)]
pub struct Tree {
    /// Every file, relative to the root, `/`-separated: regular files and also FIFOs,
    /// sockets and devices, which [`read`] refuses with what they are. Shared: a kept walk
    /// (`check::Cache`) lends its listing to every check without a copy.
    pub files: Arc<BTreeSet<String>>,
    /// Every directory (the root is `""`).
    pub dirs: Arc<BTreeSet<String>>,
    pub problems: Vec<WalkProblem>,
    /// Followed links to folders: the link's path → the target's path (both relative).
    pub links: std::collections::BTreeMap<String, String>,
    /// Files and folders left out by ignore files or `exclude` (a folder counts once).
    pub ignored: usize,
    /// Where the texts of the listed files come from (the disk, unless an editor says so).
    pub texts: Texts,
    /// [`Tree::fingerprint`], once computed (the listing does not change after the walk but
    /// through [`Tree::add_unsaved`], which forgets it).
    fingerprint: std::sync::OnceLock<u64>,
}

impl Tree {
    /// The listing, shared (its files and folders are not copied), its texts read from the
    /// disk.
    pub(crate) fn shallow_clone(&self) -> Tree {
        Tree {
            files: self.files.clone(),
            dirs: self.dirs.clone(),
            problems: self.problems.clone(),
            links: self.links.clone(),
            ignored: self.ignored,
            texts: Texts::default(),
            fingerprint: self.fingerprint.clone(),
        }
    }

    /// A hash of the listing: the files, folders, links and problems (computed once).
    pub fn fingerprint(&self) -> u64 {
        *self.fingerprint.get_or_init(|| {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            self.files.hash(&mut h);
            self.dirs.hash(&mut h);
            self.links.hash(&mut h);
            format!("{:?}", self.problems).hash(&mut h);
            self.ignored.hash(&mut h);
            h.finish()
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkProblem {
    pub path: String,
    pub kind: WalkProblemKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WalkProblemKind {
    EscapesRoot {
        target: String,
    },
    Dangling {
        target: String,
    },
    Loop {
        target: String,
    },
    Unreadable {
        error: String,
    },
    TooManyEntries,
    /// A folder more than [`MAX_DEPTH`] levels below the root, not descended into.
    TooDeep,
}

impl Tree {
    pub fn is_file(&self, rel: &str) -> bool {
        self.files.contains(rel)
    }
    pub fn is_dir(&self, rel: &str) -> bool {
        self.dirs.contains(rel)
    }
    pub fn exists(&self, rel: &str) -> bool {
        self.is_file(rel) || self.is_dir(rel)
    }
    /// Files directly or indirectly below `dir` (`""` for all).
    pub(crate) fn files_under<'a>(&'a self, dir: &str) -> impl Iterator<Item = &'a String> + 'a {
        let prefix = if dir.is_empty() { String::new() } else { format!("{dir}/") };
        self.files.range(prefix.clone()..).take_while(move |f| f.starts_with(&prefix))
    }
    /// The path of `rel` with every followed folder link resolved to its target.
    pub fn real_path(&self, rel: &str) -> String {
        let mut path = rel.to_string();
        // Links inside link targets resolve one step at a time; the walk has no loops.
        for _ in 0..64 {
            let hit = self
                .links
                .iter()
                .filter(|(link, _)| path == **link || path.starts_with(&format!("{link}/")))
                .max_by_key(|(link, _)| link.len());
            match hit {
                Some((link, target)) => path = format!("{target}{}", &path[link.len()..]),
                None => break,
            }
        }
        path
    }

    /// Lists the unsaved files of `texts` that lie under `root` as if they were saved, with
    /// their folders, unless a folder on the way is one a walk never enters
    /// ([`is_skipped_dir`]). The disk's texts have none, so a walk of the disk is unchanged.
    pub(crate) fn add_unsaved(&mut self, root: &Path) {
        for path in self.texts.unsaved() {
            let Ok(rel) = path.strip_prefix(root) else { continue };
            let rel = rel.to_string_lossy().replace('\\', "/");
            let parts: Vec<&str> = rel.split('/').collect();
            let (folders, _) = parts.split_at(parts.len().saturating_sub(1));
            if rel.is_empty() || self.files.contains(&rel) || folders.iter().any(|d| is_skipped_dir(d)) {
                continue;
            }
            for depth in 1..parts.len() {
                Arc::make_mut(&mut self.dirs).insert(parts[..depth].join("/"));
            }
            Arc::make_mut(&mut self.files).insert(rel);
            self.fingerprint = std::sync::OnceLock::new();
        }
    }

    /// Immediate child directories of `dir`.
    pub(crate) fn child_dirs<'a>(&'a self, dir: &str) -> impl Iterator<Item = &'a String> + 'a {
        let prefix = if dir.is_empty() { String::new() } else { format!("{dir}/") };
        let len = prefix.len();
        self.dirs
            .range(prefix.clone()..)
            .take_while(move |d| d.starts_with(&prefix))
            .filter(move |d| !d.is_empty() && !d[len..].contains('/'))
    }
}

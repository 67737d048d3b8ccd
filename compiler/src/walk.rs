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

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::Match;
use rayon::prelude::*;
use std::collections::BTreeSet;
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
pub const MAX_ENTRIES: usize = 2_000_000;

/// Folders deeper than this below the root are not descended into (`too-deep` is reported
/// instead): each level is a frame of the walk's recursion, and a repository of thousands of
/// nested folders would otherwise overflow the stack. No declaration Claude Code reads sits
/// anywhere near this deep; the same bound applies to JSON and YAML nesting.
pub const MAX_DEPTH: usize = 128;

/// Ignore files larger than this are not read (git's own limit is 100 MiB; no real one comes
/// near a megabyte).
pub const MAX_IGNORE_FILE_BYTES: u64 = 1024 * 1024;

/// What a walk leaves out besides the folders it always skips ([`is_skipped_dir`]).
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Honour `.gitignore` and git's excludes (inside a git repository) and `.ignore` files.
    pub ignore_files: bool,
    /// Gitignore-syntax patterns rooted at their own folder (capc.toml's `exclude`).
    pub exclude: Option<Arc<Gitignore>>,
}

impl Filter {
    fn is_active(&self) -> bool {
        self.ignore_files || self.exclude.is_some()
    }
}

/// What Claude Code loads from the folder it starts in, whatever ignore files say: it lists
/// `.claude/` with ripgrep's `--no-ignore` and reads `.mcp.json` and the settings directly.
/// These are never left out, by ignore files or by `exclude`: an entry committed in
/// `.gitignore` or capc.toml would otherwise hide a `Bash(*)` rule, a hook or an MCP server from
/// `check`, `lock` and `diff` while Claude Code still loads them. A plugin's components are
/// read the same way ([`PLUGIN_LOADS`], [`Loaded`]).
fn loaded_whatever_is_ignored(rel: &str) -> bool {
    let top = rel.split('/').next().unwrap_or(rel);
    // The instruction files Claude Code reads by their names: CLAUDE.local.md is each user's
    // own and git-ignored by design.
    let instructions = matches!(rel, "CLAUDE.md" | "CLAUDE.local.md" | "AGENTS.md");
    matches!(top, ".claude" | ".claude-plugin") || rel == ".mcp.json" || instructions
}

/// What Claude Code looks for at a plugin's root (Claude Code's loader: the manifest
/// folder, the component folders, the root files and `bin/`, which joins the session's PATH):
/// read whatever ignore files and `exclude` say, with everything below them. The rest of a
/// plugin's folder (its README, scripts, backups, build output) is not loaded, so ignore files
/// and `exclude` apply to it as anywhere else.
pub const PLUGIN_LOADS: &[&str] = &[
    ".claude-plugin",
    "commands",
    "agents",
    "skills",
    "hooks",
    "output-styles",
    "themes",
    "monitors",
    "workflows",
    "bin",
    "SKILL.md",
    ".mcp.json",
    ".lsp.json",
    "settings.json",
];

/// The fields of plugin.json (and of its `experimental` object, and of a marketplace entry)
/// whose values are paths of components, loaded as well.
const PATH_FIELDS: &[&str] = &[
    "skills",
    "commands",
    "agents",
    "workflows",
    "hooks",
    "mcpServers",
    "outputStyles",
    "lspServers",
    "themes",
    "monitors",
];

/// What Claude Code loads below the plugins and marketplaces above a folder: each plugin's
/// [`PLUGIN_LOADS`], the component paths its plugin.json names, and for a marketplace the same
/// for each plugin folder an entry's local `source` names (with the paths the entry itself
/// declares). Paths are relative to the walked root; each is loaded with everything below it.
struct Loaded {
    paths: BTreeSet<String>,
    parent: Option<Arc<Loaded>>,
}

/// Whether Claude Code loads an entry whatever ignore files say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Exempt {
    No,
    /// Loaded, with everything below it.
    Whole,
    /// A folder on the way to a loaded path: entered, its other entries left to the rules.
    Leads,
}

impl Loaded {
    fn find(mut at: Option<&Loaded>, rel: &str) -> Exempt {
        if at.is_none() {
            return Exempt::No;
        }
        let below = format!("{rel}/");
        let mut leads = false;
        while let Some(node) = at {
            if node.paths.contains(rel) {
                return Exempt::Whole;
            }
            leads |= node.paths.range(below.clone()..).next().is_some_and(|p| p.starts_with(&below));
            at = node.parent.as_deref();
        }
        if leads {
            Exempt::Leads
        } else {
            Exempt::No
        }
    }
}

/// `path` (a manifest's `./…`) joined to the folder `dir`, when it stays inside it.
fn join_inside(dir: &str, path: &str) -> Option<String> {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    let floor = parts.len();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." if parts.len() > floor => {
                parts.pop();
            }
            ".." => return None,
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// The paths of the components of the plugin at `root` that Claude Code loads: the defaults,
/// and what `manifest` (plugin.json, or a marketplace entry) names.
fn add_plugin(paths: &mut BTreeSet<String>, root: &str, manifest: Option<&crate::node::Node>) {
    for name in PLUGIN_LOADS {
        paths.extend(join_inside(root, name));
    }
    let Some(manifest) = manifest else { return };
    let objects = [Some(manifest), manifest.get("experimental")];
    for object in objects.into_iter().flatten() {
        for field in PATH_FIELDS {
            let Some(value) = object.get(field) else { continue };
            let items = match value.as_array() {
                Some(items) => items.iter().collect(),
                None => vec![value],
            };
            paths.extend(items.into_iter().filter_map(|i| i.as_str()).filter_map(|p| join_inside(root, p)));
        }
    }
}

impl WalkCx<'_> {
    /// A manifest of the folder `rel` (`.claude-plugin/NAME`), parsed as the check parses it; a
    /// link is followed only inside the root.
    fn manifest(&self, rel: &str, name: &str) -> Option<crate::node::Node> {
        let path = self.canonical_root.join(rel).join(".claude-plugin").join(name);
        let real = path.canonicalize().ok().filter(|p| p.starts_with(self.canonical_root))?;
        let bytes = read_regular(&real, MAX_FILE_BYTES, Links::Follow).ok()?;
        crate::json::parse(&String::from_utf8_lossy(&bytes)).ok()
    }

    /// What Claude Code loads below the folder `rel`, which holds `.claude-plugin/`.
    fn loads(&self, rel: &str) -> BTreeSet<String> {
        let mut paths = BTreeSet::new();
        let plugin = self.manifest(rel, "plugin.json");
        add_plugin(&mut paths, rel, plugin.as_ref());
        let Some(marketplace) = self.manifest(rel, "marketplace.json") else { return paths };
        let plugin_root = marketplace
            .get("metadata")
            .and_then(|m| m.get("pluginRoot"))
            .and_then(crate::node::Node::as_str)
            .and_then(|p| join_inside(rel, p));
        for entry in marketplace.get("plugins").and_then(crate::node::Node::as_array).unwrap_or_default() {
            let Some(source) = entry.get("source").and_then(crate::node::Node::as_str) else { continue };
            let base = if source.starts_with("./") || source == "." { Some(rel) } else { plugin_root.as_deref() };
            if let Some(root) = base.and_then(|base| join_inside(base, source)) {
                add_plugin(&mut paths, &root, Some(entry));
            }
        }
        paths
    }
}

/// Files that are read even when an ignore file names them: `.claude/settings.local.json` is
/// each user's own and git-ignored by design (Claude Code adds it to `.gitignore`), yet Claude
/// Code loads it, so `check`, `ls` and `explain` keep reading it.
fn read_even_if_ignored(rel: &str) -> bool {
    rel == ".claude/settings.local.json" || rel.ends_with("/.claude/settings.local.json")
}

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
    pub fn shallow_clone(&self) -> Tree {
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
    pub fn files_under<'a>(&'a self, dir: &str) -> impl Iterator<Item = &'a String> + 'a {
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
    pub fn add_unsaved(&mut self, root: &Path) {
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
    pub fn child_dirs<'a>(&'a self, dir: &str) -> impl Iterator<Item = &'a String> + 'a {
        let prefix = if dir.is_empty() { String::new() } else { format!("{dir}/") };
        let len = prefix.len();
        self.dirs
            .range(prefix.clone()..)
            .take_while(move |d| d.starts_with(&prefix))
            .filter(move |d| !d.is_empty() && !d[len..].contains('/'))
    }
}

/// Walks `root` (which must be a directory), reading every file. Folders are read in
/// parallel; the result is the same whatever the scheduling, because every collection in
/// `Tree` is sorted.
pub fn walk(root: &Path) -> Tree {
    walk_filtered(root, &Filter::default())
}

/// Walks `root` leaving out what `filter` names (see the module docs).
pub fn walk_filtered(root: &Path, filter: &Filter) -> Tree {
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

/// The git repository around the walked folder, for its `.gitignore` files and excludes.
#[derive(Default)]
struct Repository {
    /// Whether the walked folder is inside one (a `.git` folder or file in it or above it).
    inside: bool,
    /// `.git/info/exclude`, then git's global excludes (`core.excludesFile`): the weakest rules.
    excludes: Vec<Gitignore>,
}

/// The ignore rules of one folder (its `.gitignore` and `.ignore`, the latter winning), and
/// those of the folders above it.
struct Rules {
    matcher: Gitignore,
    parent: Option<Arc<Rules>>,
}

/// The rules of `dir`'s own ignore files, if it has any. `names` says which it holds.
fn dir_rules(dir: &Path, has: impl Fn(&str) -> bool, inside_repository: bool) -> Option<Gitignore> {
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
fn outer_rules(root: &Path, filter: &Filter) -> (Option<Arc<Rules>>, Repository) {
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
    let mut rules: Option<Arc<Rules>> = None;
    for dir in above {
        let has = |name: &str| std::fs::symlink_metadata(dir.join(name)).is_ok();
        if let Some(matcher) = dir_rules(dir, has, true) {
            rules = Some(Arc::new(Rules { matcher, parent: rules }));
        }
    }
    (rules, repository)
}

impl WalkCx<'_> {
    /// Whether the entry at `rel` (a folder when `is_dir`) is left out by the filter.
    fn is_ignored(&self, rules: Option<&Rules>, rel: &str, is_dir: bool) -> bool {
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

/// What one folder and everything below it holds.
#[derive(Default)]
struct Part {
    files: Vec<String>,
    dirs: Vec<String>,
    links: Vec<(String, String)>,
    problems: Vec<WalkProblem>,
}

fn walk_dir(cx: &WalkCx<'_>, dir: PathBuf, rel: String, ancestors: Arc<Chain>, rules: Option<Arc<Rules>>) -> Part {
    let mut part = Part::default();
    let read = match std::fs::read_dir(&dir) {
        Ok(read) => read,
        Err(e) => {
            part.problems.push(WalkProblem { path: rel, kind: WalkProblemKind::Unreadable { error: e.to_string() } });
            return part;
        }
    };
    let mut entries: Vec<(String, std::fs::DirEntry)> = Vec::new();
    for entry in read.filter_map(Result::ok) {
        if cx.entries.fetch_add(1, Ordering::Relaxed) >= MAX_ENTRIES {
            part.problems.push(WalkProblem { path: rel, kind: WalkProblemKind::TooManyEntries });
            return part;
        }
        let Ok(name) = entry.file_name().into_string() else {
            continue; // not UTF-8: no Claude Code declaration has such a name
        };
        entries.push((name, entry));
    }
    // This folder's own ignore files apply to its entries and everything below.
    let rules = match cx.filter.filter(|f| f.ignore_files) {
        Some(_) => {
            let has = |name: &str| entries.iter().any(|(n, _)| n == name);
            let here = if has(".gitignore") || has(".ignore") {
                dir_rules(&cx.canonical_root.join(&rel), has, cx.repository.inside)
            } else {
                None
            };
            match here {
                Some(matcher) => Some(Arc::new(Rules { matcher, parent: rules })),
                None => rules,
            }
        }
        None => rules,
    };
    // A plugin's or marketplace's folder: what Claude Code loads below it is read whatever
    // ignore files say (`Loaded`); its manifests are read for the paths they name.
    let loaded = match ancestors.below.whole || cx.filter.is_none() {
        false if entries.iter().any(|(n, _)| n == ".claude-plugin") => {
            Some(Arc::new(Loaded { paths: cx.loads(&rel), parent: ancestors.below.loaded.clone() }))
        }
        _ => ancestors.below.loaded.clone(),
    };
    // What becomes of an entry: `None` when it is left out, else how the walk goes on below it.
    let decide = |rel: &str, is_dir: bool| -> Option<Below> {
        let keep = |whole: bool, ignored: bool| Some(Below { whole, ignored, loaded: loaded.clone() });
        if ancestors.below.whole || cx.filter.is_none() {
            return keep(ancestors.below.whole, false);
        }
        let exempt = Loaded::find(loaded.as_deref(), rel);
        if exempt == Exempt::Whole {
            return keep(true, false);
        }
        if !ancestors.below.ignored && !cx.is_ignored(rules.as_deref(), rel, is_dir) {
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
    };
    let mut subdirs: Vec<(PathBuf, String, Arc<Chain>)> = Vec::new();
    for (name, entry) in entries {
        let child_rel = if rel.is_empty() {
            name.clone()
        } else {
            let mut child = String::with_capacity(rel.len() + 1 + name.len());
            child.push_str(&rel);
            child.push('/');
            child.push_str(&name);
            child
        };
        let Ok(file_type) = entry.file_type() else { continue };
        if file_type.is_symlink() {
            let path = entry.path();
            let target = std::fs::read_link(&path).map(|t| t.display().to_string()).unwrap_or_default();
            let resolved = match path.canonicalize() {
                Ok(resolved) => resolved,
                Err(_) => {
                    part.problems.push(WalkProblem { path: child_rel, kind: WalkProblemKind::Dangling { target } });
                    continue;
                }
            };
            if !resolved.starts_with(cx.canonical_root) {
                part.problems.push(WalkProblem { path: child_rel, kind: WalkProblemKind::EscapesRoot { target } });
                continue;
            }
            if resolved.is_dir() {
                if is_skipped_dir(&name) {
                    continue;
                }
                let Some(below) = decide(&child_rel, true) else {
                    cx.ignored.fetch_add(1, Ordering::Relaxed);
                    continue;
                };
                if ancestors.contains(&resolved) {
                    part.problems.push(WalkProblem { path: child_rel, kind: WalkProblemKind::Loop { target } });
                    continue;
                }
                if ancestors.depth >= MAX_DEPTH {
                    part.problems.push(WalkProblem { path: child_rel, kind: WalkProblemKind::TooDeep });
                    continue;
                }
                if let Ok(target_rel) = resolved.strip_prefix(cx.canonical_root) {
                    let target_rel = target_rel.to_string_lossy().replace('\\', "/");
                    part.links.push((child_rel.clone(), target_rel));
                }
                let chain = Chain::below(&ancestors, resolved, below);
                part.dirs.push(child_rel.clone());
                subdirs.push((path, child_rel, chain));
            } else if decide(&child_rel, false).is_none() {
                cx.ignored.fetch_add(1, Ordering::Relaxed);
            } else {
                part.files.push(child_rel);
            }
        } else if file_type.is_dir() {
            if is_skipped_dir(&name) {
                continue;
            }
            let Some(below) = decide(&child_rel, true) else {
                cx.ignored.fetch_add(1, Ordering::Relaxed);
                continue;
            };
            if ancestors.depth >= MAX_DEPTH {
                part.problems.push(WalkProblem { path: child_rel, kind: WalkProblemKind::TooDeep });
                continue;
            }
            let chain = Chain::below(&ancestors, ancestors.path.join(&name), below);
            part.dirs.push(child_rel.clone());
            subdirs.push((entry.path(), child_rel, chain));
        } else if decide(&child_rel, false).is_none() {
            cx.ignored.fetch_add(1, Ordering::Relaxed);
        } else {
            // Regular files, and FIFOs, sockets and devices: those are listed too, so one named
            // like a declaration is claimed and `read` reports what it is instead of reading it.
            part.files.push(child_rel);
        }
    }
    let below: Vec<Part> =
        subdirs.into_par_iter().map(|(path, rel, chain)| walk_dir(cx, path, rel, chain, rules.clone())).collect();
    for sub in below {
        part.files.extend(sub.files);
        part.dirs.extend(sub.dirs);
        part.links.extend(sub.links);
        part.problems.extend(sub.problems);
    }
    part
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
    loaded: Option<Arc<Loaded>>,
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

/// What reading a file gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    Text(String),
    /// Not UTF-8, or binary (NUL bytes); the text is a lossy copy for display.
    NotText {
        lossy: String,
        offset: usize,
        reason: &'static str,
    },
    TooLarge {
        bytes: u64,
    },
    Error(String),
}

/// Why a file was not read.
#[derive(Debug)]
pub enum ReadError {
    /// A FIFO, socket, device or folder: what it is, for the message.
    NotRegular(&'static str),
    /// Larger than the limit the caller gave (the size seen).
    TooLarge(u64),
    Io(std::io::Error),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::NotRegular(what) => write!(f, "it is {what}, not a regular file; capc reads only regular files"),
            ReadError::TooLarge(bytes) => write!(f, "it is {bytes} bytes, more than capc reads"),
            ReadError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ReadError {}

/// What a file that is not a regular file is, in words.
fn file_kind(file_type: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a named pipe (FIFO)";
        }
        if file_type.is_socket() {
            return "a socket";
        }
        if file_type.is_block_device() {
            return "a block device";
        }
        if file_type.is_char_device() {
            return "a character device";
        }
    }
    if file_type.is_dir() {
        "a folder"
    } else if file_type.is_symlink() {
        "a symbolic link"
    } else {
        "not a regular file"
    }
}

/// How [`read_regular`] opens a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Links {
    Follow,
    /// A symbolic link at the path itself is refused (lock files).
    Refuse,
}

/// Opens `path` for reading only if it is a regular file. The open never blocks (a FIFO
/// with no writer would otherwise hang it) and the type is checked on the opened handle, so
/// swapping the file between a check and the open gains nothing.
pub fn open_regular(path: &Path, links: Links) -> Result<(std::fs::File, u64), ReadError> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let no_follow = if links == Links::Refuse { libc::O_NOFOLLOW } else { 0 };
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | no_follow);
    }
    let file = match options.open(path) {
        Ok(file) => file,
        Err(e) => {
            // A socket cannot be opened at all, a link is refused by O_NOFOLLOW: say what it is.
            let meta = match links {
                Links::Follow => std::fs::metadata(path),
                Links::Refuse => std::fs::symlink_metadata(path),
            };
            return Err(match meta {
                Ok(m) if !m.is_file() => ReadError::NotRegular(file_kind(m.file_type())),
                _ => ReadError::Io(e),
            });
        }
    };
    let meta = file.metadata().map_err(ReadError::Io)?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular(file_kind(meta.file_type())));
    }
    Ok((file, meta.len()))
}

/// The bytes of a regular file of at most `limit` bytes (see [`open_regular`]).
pub fn read_regular(path: &Path, limit: u64, links: Links) -> Result<Vec<u8>, ReadError> {
    use std::io::Read;
    let (file, size) = open_regular(path, links)?;
    if size > limit {
        return Err(ReadError::TooLarge(size));
    }
    let mut bytes = Vec::with_capacity(size as usize + 1);
    // `take` bounds a file that grows while it is read.
    file.take(limit + 1).read_to_end(&mut bytes).map_err(ReadError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge(bytes.len() as u64));
    }
    Ok(bytes)
}

/// The bytes of a regular file of at most `limit` bytes, and whether its mode lets it run
/// (taken from the opened handle): a plugin's `bin/` file, hashed and never parsed.
pub fn read_program(path: &Path, limit: u64) -> Result<(Vec<u8>, bool), ReadError> {
    use std::io::Read;
    let (file, size) = open_regular(path, Links::Follow)?;
    if size > limit {
        return Err(ReadError::TooLarge(size));
    }
    #[cfg(unix)]
    let executable = {
        use std::os::unix::fs::PermissionsExt;
        file.metadata().is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
    };
    #[cfg(not(unix))]
    let executable = true;
    let mut bytes = Vec::with_capacity(size as usize + 1);
    file.take(limit + 1).read_to_end(&mut bytes).map_err(ReadError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge(bytes.len() as u64));
    }
    Ok((bytes, executable))
}

/// A source of declaration texts other than the disk: `capc lsp` answers with the unsaved
/// text of open buffers and with texts it read before, so an edit does not re-read the
/// repository. Paths are the ones a check reads by: a root as [`crate::Options`] gives it,
/// joined with a relative path.
pub trait TextSource: Send + Sync {
    /// What reading `path` gives; an implementation falls back on [`read`] for what it lacks.
    fn read(&self, path: &Path) -> Content;

    /// Files the source has that are not on disk (an editor's new, unsaved files), as absolute
    /// paths: a walk lists them as if they were saved ([`Tree::add_unsaved`]).
    fn unsaved(&self) -> Vec<PathBuf> {
        Vec::new()
    }

    /// [`content_hash`] of what `read` gives for `path`, when the source knows it without
    /// copying the text out (`None`: read it to know).
    fn stamp(&self, _path: &Path) -> Option<u64> {
        None
    }

    /// What `read` gives for `path` with its [`content_hash`], from one reading (a source that
    /// keeps the hashes of what it read gives the one it kept).
    fn read_stamped(&self, path: &Path) -> (Content, u64) {
        let content = self.read(path);
        let stamp = content_hash(&content);
        (content, stamp)
    }

    /// Whether the source has stopped answering (an editor's check superseded by a newer
    /// edit: its reads fail from then on). Once true it stays true, so a check that finds it
    /// false after computing something read nothing but real texts for it, and only then may
    /// keep it in a cache for the next checks.
    fn cancelled(&self) -> bool {
        false
    }
}

/// A hash of what a read gave, for a cache's keys.
pub fn content_hash(content: &Content) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    match content {
        Content::Text(text) => return text_hash(text),
        Content::NotText { lossy, offset, reason } => (1u8, lossy, offset, reason).hash(&mut h),
        Content::TooLarge { bytes } => (2u8, bytes).hash(&mut h),
        Content::Error(e) => (3u8, e).hash(&mut h),
    }
    h.finish()
}

/// [`content_hash`] of `Content::Text(text)`, without a copy of the text.
pub fn text_hash(text: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (0u8, text).hash(&mut h);
    h.finish()
}

/// Where a check reads declaration texts: the disk ([`read`]) by default, or a [`TextSource`].
#[derive(Clone, Default)]
pub struct Texts(Option<Arc<dyn TextSource>>);

impl Texts {
    pub fn new(source: Arc<dyn TextSource>) -> Texts {
        Texts(Some(source))
    }

    /// Reads a declaration file from the source, or from the disk when there is none.
    pub fn read(&self, path: &Path) -> Content {
        match &self.0 {
            Some(source) => source.read(path),
            None => read(path),
        }
    }

    /// [`Texts::read`] with its [`content_hash`] ([`TextSource::read_stamped`]).
    pub fn read_stamped(&self, path: &Path) -> (Content, u64) {
        match &self.0 {
            Some(source) => source.read_stamped(path),
            None => {
                let content = read(path);
                let stamp = content_hash(&content);
                (content, stamp)
            }
        }
    }

    /// The source's [`TextSource::stamp`] of `path` (the disk has none).
    pub fn stamp(&self, path: &Path) -> Option<u64> {
        self.0.as_ref().and_then(|source| source.stamp(path))
    }

    /// The source's files that are not on disk (none for the disk itself).
    pub fn unsaved(&self) -> Vec<PathBuf> {
        self.0.as_ref().map(|source| source.unsaved()).unwrap_or_default()
    }

    /// [`TextSource::cancelled`] (the disk never is).
    pub fn cancelled(&self) -> bool {
        self.0.as_ref().is_some_and(|source| source.cancelled())
    }

    /// Whether texts are read from the disk itself (no [`TextSource`] over it).
    pub fn is_disk(&self) -> bool {
        self.0.is_none()
    }
}

impl std::fmt::Debug for Texts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "Texts(source)" } else { "Texts(disk)" })
    }
}

/// Reads a declaration file: a regular file of at most [`MAX_FILE_BYTES`], as text.
pub fn read(path: &Path) -> Content {
    let bytes = match read_regular(path, MAX_FILE_BYTES, Links::Follow) {
        Ok(bytes) => bytes,
        Err(ReadError::TooLarge(bytes)) => return Content::TooLarge { bytes },
        Err(e) => return Content::Error(e.to_string()),
    };
    match String::from_utf8(bytes) {
        Ok(text) => match text.find('\0') {
            Some(offset) => {
                Content::NotText { lossy: text.clone(), offset, reason: "contains NUL bytes (a binary file?)" }
            }
            None => Content::Text(text),
        },
        Err(e) => {
            let offset = e.utf8_error().valid_up_to();
            let lossy = String::from_utf8_lossy(e.as_bytes()).into_owned();
            // The lossy copy replaces bad bytes with U+FFFD; the valid prefix is unchanged.
            Content::NotText { lossy, offset, reason: "is not valid UTF-8" }
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn mkfifo(path: &Path) {
        let status = std::process::Command::new("mkfifo").arg(path).status().expect("mkfifo runs");
        assert!(status.success(), "mkfifo {}", path.display());
    }

    fn refused(content: Content) -> String {
        match content {
            Content::Error(e) => e,
            other => panic!("read, not refused: {other:?}"),
        }
    }

    #[test]
    fn only_regular_files_are_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        let fifo = dir.path().join("SKILL.md");
        mkfifo(&fifo);
        // No writer: a blocking open would never return.
        assert!(refused(read(&fifo)).contains("a named pipe (FIFO), not a regular file"));
        let socket = dir.path().join("settings.json");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).expect("bind");
        assert!(refused(read(&socket)).contains("a socket, not a regular file"));
        // Endless devices are refused before a byte is read.
        assert!(refused(read(Path::new("/dev/zero"))).contains("a character device"));
        std::os::unix::fs::symlink("/dev/zero", dir.path().join("link.md")).expect("symlink");
        assert!(refused(read(&dir.path().join("link.md"))).contains("a character device"));
        assert!(refused(read(dir.path())).contains("a folder"));
    }

    #[test]
    fn a_link_is_refused_when_asked() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("real"), "x").expect("write");
        std::os::unix::fs::symlink("real", dir.path().join("link")).expect("symlink");
        assert_eq!(read_regular(&dir.path().join("link"), 10, Links::Follow).expect("followed"), b"x");
        let err = read_regular(&dir.path().join("link"), 10, Links::Refuse).expect_err("refused");
        assert!(err.to_string().contains("a symbolic link"), "{err}");
        assert!(matches!(read_regular(&dir.path().join("real"), 0, Links::Follow), Err(ReadError::TooLarge(1))));
    }

    #[test]
    fn special_files_are_listed_so_they_can_be_reported() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join(".claude")).expect("mkdir");
        mkfifo(&dir.path().join(".claude/settings.json"));
        let tree = walk(dir.path());
        assert!(tree.is_file(".claude/settings.json"), "{tree:?}");
    }

    fn tree_of(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("tempdir");
        for (path, text) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().expect("has a parent")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        }
        dir
    }

    fn files(tree: &Tree) -> Vec<&str> {
        tree.files.iter().map(String::as_str).collect()
    }

    const HONOUR: Filter = Filter { ignore_files: true, exclude: None };

    #[test]
    fn gitignore_counts_only_in_a_repository_and_dot_ignore_everywhere() {
        let dir = tree_of(&[
            (".gitignore", "scratch/\n*.bak\n"),
            ("scratch/.claude/settings.json", "{,}"),
            ("a.bak", ""),
            ("notes/.ignore", "draft.md\n"),
            ("notes/draft.md", ""),
            ("notes/kept.md", ""),
        ]);
        // No `.git`: `.gitignore` is not git's here (ripgrep's rule), `.ignore` still counts.
        let tree = walk_filtered(dir.path(), &HONOUR);
        assert_eq!(
            files(&tree),
            [".gitignore", "a.bak", "notes/.ignore", "notes/kept.md", "scratch/.claude/settings.json"]
        );
        assert_eq!(tree.ignored, 1);
        std::fs::create_dir(dir.path().join(".git")).expect("mkdir .git");
        let tree = walk_filtered(dir.path(), &HONOUR);
        assert_eq!(files(&tree), [".gitignore", "notes/.ignore", "notes/kept.md"]);
        assert!(!tree.is_dir("scratch"), "an ignored folder is not entered");
        assert_eq!(tree.ignored, 3);
        // Without a filter everything is listed.
        assert_eq!(walk(dir.path()).files.len(), 6);
    }

    #[test]
    fn deeper_files_win_and_parents_up_to_the_repository_count() {
        let dir = tree_of(&[
            (".git/HEAD", ""),
            (".gitignore", "*.md\n"),
            ("repo/.gitignore", "!keep.md\n"),
            ("repo/keep.md", ""),
            ("repo/drop.md", ""),
            ("repo/.claude/settings.local.json", "{}"),
            ("repo/.claude/.gitignore", "settings.local.json\n"),
        ]);
        let tree = walk_filtered(&dir.path().join("repo"), &HONOUR);
        // The repository's top `.gitignore` applies to a folder below it; the deeper one
        // re-includes `keep.md`; local settings are read even though they are ignored.
        assert_eq!(files(&tree), [".claude/.gitignore", ".claude/settings.local.json", ".gitignore", "keep.md"]);
    }

    #[test]
    fn exclude_patterns_are_rooted_at_their_folder() {
        let dir = tree_of(&[("backups/SKILL.md", ""), ("skills/backups/SKILL.md", ""), ("skills/a/SKILL.md", "")]);
        let root = dir.path().canonicalize().expect("canonical");
        let mut builder = GitignoreBuilder::new(&root);
        builder.add_line(None, "/backups/").expect("pattern");
        let filter = Filter { ignore_files: false, exclude: Some(Arc::new(builder.build().expect("build"))) };
        let tree = walk_filtered(dir.path(), &filter);
        assert_eq!(files(&tree), ["skills/a/SKILL.md", "skills/backups/SKILL.md"]);
    }

    #[test]
    fn ignore_files_are_not_read_through_links_or_pipes() {
        let dir = tree_of(&[(".git/HEAD", ""), ("elsewhere", "*\n"), ("a/SKILL.md", ""), ("b/SKILL.md", "")]);
        std::os::unix::fs::symlink("../elsewhere", dir.path().join("a/.gitignore")).expect("symlink");
        mkfifo(&dir.path().join("b/.gitignore"));
        let tree = walk_filtered(dir.path(), &HONOUR);
        assert!(tree.is_file("a/SKILL.md") && tree.is_file("b/SKILL.md"), "{tree:?}");
    }
}

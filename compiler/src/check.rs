//! `capc check`: finds every declaration root under a folder, reads each file once (in
//! parallel), and collects what is wrong.
//!
//! Discovery, in order: marketplaces (`.claude-plugin/marketplace.json`) name local plugin
//! folders; plugins are folders with `.claude-plugin/plugin.json` or named by a
//! marketplace; projects are folders with `.claude/` or `.mcp.json`; any `SKILL.md` left
//! unclaimed belongs to a skill collection. Each file is claimed once, by the first root
//! that reaches it, so a file is never read or counted twice.

use crate::decl::manifest::{self, EntryInfo, PluginInfo};
use crate::decl::markdown::{self, MarkdownKind};
use crate::decl::{self, file_name, join_rel, parent, Counts, FileCx, FileKind, FileScope};
use crate::diagnostic::{report_at, Diagnostic, LineIndex, Severity, Sink};
use crate::model::ServerRef;
use crate::model::{Decl, Item, Placement};
use crate::node::Node;
use crate::rules;
use crate::walk::{self, Content, Tree, WalkProblemKind};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What to check. The user and managed scopes are off unless asked for, so a check is
/// reproducible from the repository alone.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub root: PathBuf,
    /// A home folder: its `.claude/` is the user scope.
    pub user_dir: Option<PathBuf>,
    /// The managed-settings folder (`/etc/claude-code` on Linux).
    pub managed_dir: Option<PathBuf>,
    /// `--add-dir` folders: the skills, commands and agents of their `.claude/` are read.
    pub add_dirs: Vec<PathBuf>,
    /// `--plugin-dir` folders, in order: plugins a session loads as `claude --plugin-dir` does.
    pub plugin_dirs: Vec<PathBuf>,
    /// Leave the sources' SHA-256 empty: for commands that write no lock (`check`, `ls`,
    /// `explain`, `graph`), hashing is most of the CPU time on a machine without SHA
    /// instructions.
    pub skip_hashes: bool,
    /// Leave `settings.local.json` files out of the declarations and sources (`capc lock`
    /// without `--include-local`); they are still read and checked.
    pub leave_out_local: bool,
    /// What the walk of the checked folder leaves out: ignore files and capc.toml's `exclude`
    /// (the extra scopes are read whole). Off by default in the library; the CLI turns it on.
    pub filter: walk::Filter,
    /// Rule severities and per-path ignores from capc.toml (`None`: every rule at its default).
    pub policy: Option<std::sync::Arc<crate::config::Policy>>,
    /// Ignore suppression comments and `per-path-ignores` (`--no-suppressions`, for audits).
    pub no_suppressions: bool,
    /// Where declaration texts are read: the disk, or an editor's buffers over it (`capc lsp`).
    pub texts: walk::Texts,
}

/// A file that was read, with its text for rendering positions.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// The path shown to people: relative to the root, `~/…` for the user scope,
    /// `<managed>/…` for the managed scope.
    pub path: String,
    pub kind: FileKind,
    pub scope: FileScope,
    /// For skills, commands and agents: the name Claude Code gives it (`plugin:name`,
    /// `frontend:component`, …).
    pub name: Option<String>,
    /// The text, kept only for files something may be reported in (to render the report);
    /// the text of a clean file is dropped as soon as it is read, so memory stays flat.
    pub text: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Checked {
    /// Declaration files read (including those that could not be used).
    pub files_checked: usize,
    pub files: Vec<SourceFile>,
    pub declarations: Counts,
    pub diagnostics: Vec<Diagnostic>,
    /// Every declaration, for the resolver (moved into the resolution by [`check`]).
    pub decls: Vec<Decl>,
    /// Every file read, with its content hash, sorted by path.
    pub sources: Vec<crate::model::Source>,
    /// Names and precedence resolved (set by [`check`]).
    pub resolution: Option<crate::lock::resolve::Resolution>,
    /// Suppression comments found in the files read.
    pub suppressions: Vec<crate::suppress::Suppression>,
    /// Findings suppressed by comments or `per-path-ignores`, by file.
    pub suppressed: BTreeMap<String, usize>,
    /// Files and folders the walk left out (ignore files, `exclude`).
    pub ignored: usize,
    /// Files a session started in the checked folder does not load, with why: a skill
    /// collection, a nested project, a marketplace no setting declares. Their errors do not
    /// block `capc lock`.
    pub not_loaded: BTreeMap<String, String>,
    /// Plugin folders a session here neither loads nor is asked to load, with why; errors
    /// inside them do not block `capc lock` either.
    pub unloaded_plugins: Vec<(String, String)>,
    /// Every plugin folder, with why it does not load (`None`: loaded or asked for).
    plugin_roots: Vec<(String, Option<String>)>,
    /// Plugins the session is asked to load (`--plugin-dir`, `enabledPlugins`, …) that Claude
    /// Code refuses (a plugin.json or hooks file it rejects): `(name, why)`. The lock records
    /// them as not loaded and is written; `capc lock` then exits 1, as a build that fails.
    pub refused_asked: Vec<(String, String)>,
    /// Set when the findings were compared with a baseline or a revision (`capc check
    /// --baseline`, `--new-since`): `diagnostics` then holds only the new ones.
    pub baseline: Option<crate::compared::Applied>,
}

impl Checked {
    /// A check that has read nothing yet.
    fn empty(diagnostics: Vec<Diagnostic>) -> Checked {
        Checked {
            files_checked: 0,
            files: Vec::new(),
            declarations: Counts::default(),
            diagnostics,
            decls: Vec::new(),
            sources: Vec::new(),
            resolution: None,
            suppressions: Vec::new(),
            suppressed: BTreeMap::new(),
            ignored: 0,
            not_loaded: BTreeMap::new(),
            unloaded_plugins: Vec::new(),
            plugin_roots: Vec::new(),
            refused_asked: Vec::new(),
            baseline: None,
        }
    }

    /// Adds one file's outcome; returns the MCP servers it declares and names, for the
    /// cross-file check.
    fn absorb(&mut self, outcome: Outcome) -> ServerUse {
        self.files_checked += 1;
        self.declarations += outcome.counts;
        self.diagnostics.extend(outcome.diagnostics);
        self.files.extend(outcome.file);
        self.sources.extend(outcome.source);
        self.decls.extend(outcome.decls);
        self.suppressions.extend(outcome.suppressions);
        self.not_loaded.extend(outcome.not_loaded);
        outcome.servers
    }

    /// The lock of this check (its sources and resolution).
    pub fn lock(&self) -> crate::model::Lock {
        let mut lock = match &self.resolution {
            Some(r) => r.lock.clone(),
            None => crate::lock::resolve::resolve(Vec::new()).lock,
        };
        lock.sources = self.sources.clone();
        lock
    }

    /// The lock of this check, moved out of it (no copy; `resolution` keeps the rest: the
    /// table, the graph).
    pub fn take_lock(&mut self) -> crate::model::Lock {
        let mut lock = match self.resolution.as_mut() {
            Some(r) => std::mem::replace(&mut r.lock, crate::lock::resolve::resolve(Vec::new()).lock),
            None => crate::lock::resolve::resolve(Vec::new()).lock,
        };
        lock.sources = std::mem::take(&mut self.sources);
        lock
    }

    pub fn count(&self, severity: Severity) -> usize {
        self.diagnostics.iter().filter(|d| d.severity == severity).count()
    }
    pub fn has_errors(&self) -> bool {
        self.count(Severity::Error) > 0
    }

    /// Why a session started in the checked folder does not load the file (or folder) at
    /// `path`, or `None` when it does or may.
    pub fn why_not_loaded(&self, path: &str) -> Option<&str> {
        if let Some(why) = self.not_loaded.get(path) {
            return Some(why);
        }
        // The deepest plugin folder holding the path decides.
        self.plugin_roots
            .iter()
            .filter(|(root, _)| crate::lock::plugins::inside(path, root) || path == root)
            .max_by_key(|(root, _)| root.len())
            .and_then(|(_, why)| why.as_deref())
    }

    /// The errors that stop `capc lock`: those in files a session here loads. Errors in a
    /// plugin nothing loads or asks for, a skill collection, a nested project or an undeclared
    /// marketplace leave the session sound (the lock names those files).
    pub fn blocking_errors(&self) -> impl Iterator<Item = &Diagnostic> + '_ {
        self.diagnostics.iter().filter(|d| d.severity == Severity::Error && self.why_not_loaded(&d.path).is_none())
    }

    /// The files with errors that do not block `capc lock`, each with why a session here does
    /// not load it; sorted by path.
    pub fn left_out(&self) -> BTreeMap<&str, &str> {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .filter_map(|d| Some((d.path.as_str(), self.why_not_loaded(&d.path)?)))
            .collect()
    }
    /// How many findings suppression comments and `per-path-ignores` hid.
    pub fn suppressed_count(&self) -> usize {
        self.suppressed.values().sum()
    }

    /// The files of `paths` (as shown) that no reader read and no finding names: files that
    /// are no declaration where they are (a `.txt`, a Markdown file outside every folder
    /// Claude Code reads). For `capc check FILE…` and `capc lock FILE…`, which refuse them.
    pub fn not_read<'p>(&self, paths: &'p std::collections::BTreeSet<String>) -> Vec<&'p str> {
        let read = self.read_paths();
        paths.iter().map(String::as_str).filter(|p| !read.contains(p)).collect()
    }

    /// The shown paths of the files a reader read or a finding names.
    fn read_paths(&self) -> std::collections::BTreeSet<&str> {
        self.files.iter().map(|f| f.path.as_str()).chain(self.diagnostics.iter().map(|d| d.path.as_str())).collect()
    }

    /// Keeps only what concerns the files at `paths` (shown paths): their findings, and only
    /// them counted as checked. For `capc check FILE…`.
    pub fn keep_only(&mut self, paths: &std::collections::BTreeSet<String>) {
        let read = self.read_paths();
        let checked = paths.iter().filter(|p| read.contains(p.as_str())).count();
        self.files_checked = checked;
        self.diagnostics.retain(|d| paths.contains(&d.path));
        self.files.retain(|f| paths.contains(&f.path));
        self.suppressed.retain(|p, _| paths.contains(p));
    }

    /// Shows the checked folder's paths under `prefix/` (the paths of the other scopes, `~/…`
    /// and `<…>/…`, stay as they are). For reports of several folders; the lock and the session
    /// questions (`why_not_loaded`) keep the folder's own paths.
    pub fn show_under(&mut self, prefix: &str) {
        let prefix = prefix.trim_end_matches('/');
        if prefix.is_empty() {
            return;
        }
        let under = |path: &mut String| *path = path_under(prefix, path);
        self.diagnostics.iter_mut().for_each(|d| under(&mut d.path));
        self.files.iter_mut().for_each(|f| under(&mut f.path));
        self.suppressed = std::mem::take(&mut self.suppressed)
            .into_iter()
            .map(|(mut p, n)| {
                under(&mut p);
                (p, n)
            })
            .collect();
        self.files.sort_by(|a, b| a.path.cmp(&b.path));
        sort_diagnostics(&mut self.diagnostics);
    }

    /// One report of several checks (their paths already told apart with [`Checked::show_under`]).
    pub fn merge(parts: Vec<Checked>) -> Checked {
        let mut all = Checked::empty(Vec::new());
        for part in parts {
            all.files_checked += part.files_checked;
            all.files.extend(part.files);
            all.declarations += part.declarations;
            all.diagnostics.extend(part.diagnostics);
            all.ignored += part.ignored;
            for (path, n) in part.suppressed {
                *all.suppressed.entry(path).or_default() += n;
            }
        }
        all.files.sort_by(|a, b| a.path.cmp(&b.path));
        all.files.dedup_by(|a, b| a.path == b.path);
        sort_diagnostics(&mut all.diagnostics);
        all
    }

    pub fn files_of(&self, kind: FileKind) -> usize {
        self.files.iter().filter(|f| f.kind == kind).count()
    }
    pub fn source(&self, path: &str) -> Option<&SourceFile> {
        self.files.binary_search_by(|f| f.path.as_str().cmp(path)).ok().map(|i| &self.files[i])
    }
}

/// Why a check could not run at all (exit code 2).
#[derive(Debug)]
pub enum CheckError {
    NotADirectory(PathBuf),
    Unreadable(PathBuf, std::io::Error),
}

impl std::fmt::Display for CheckError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CheckError::NotADirectory(p) => write!(f, "`{}` is not a directory", p.display()),
            CheckError::Unreadable(p, e) => write!(f, "cannot read `{}`: {e}", p.display()),
        }
    }
}

impl std::error::Error for CheckError {}

pub fn check(options: &Options) -> Result<Checked, CheckError> {
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
    // `~/.claude.json` keeps local-scope servers under the project's absolute path.
    let project_keys = project_keys(&options.root);
    let mut all = Checked::empty(Vec::new());
    for (dir, realm) in roots {
        match std::fs::metadata(&dir) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Err(CheckError::NotADirectory(dir)),
            Err(e) => return Err(CheckError::Unreadable(dir, e)),
        }
        let given: &[(usize, String)] = if realm == Realm::Project { &plugin_dirs_inside } else { &[] };
        let filter = if realm == Realm::Project { options.filter.clone() } else { walk::Filter::default() };
        let one = check_root(&dir, realm, !options.skip_hashes, &project_keys, given, &filter, &options.texts);
        all.files_checked += one.files_checked;
        all.suppressions.extend(one.suppressions);
        all.ignored += one.ignored;
        all.not_loaded.extend(one.not_loaded);
        all.files.extend(one.files);
        all.declarations += one.declarations;
        all.diagnostics.extend(one.diagnostics);
        all.decls.extend(one.decls);
        all.sources.extend(one.sources);
    }
    if options.leave_out_local {
        use crate::lock::write::is_local_settings;
        all.decls.retain(|d| !is_local_settings(&d.path));
        all.sources.retain(|s| !is_local_settings(&s.path));
    }
    all.files.sort_by(|a, b| a.path.cmp(&b.path));
    all.sources.sort_by(|a, b| a.path.cmp(&b.path));
    // Declarations in a stable order whatever order the parallel reads finished in.
    all.decls.sort_by(|a, b| (&a.path, a.span.map(|s| s.start)).cmp(&(&b.path, b.span.map(|s| s.start))));
    locate_marketplaces(options, &mut all.decls);
    undeclared_marketplaces(&mut all);
    // Claude Code skips a plugin it refuses and loads the rest: its errors, asked for or not,
    // leave the session's lock truthful.
    let refused: std::collections::BTreeSet<String> = all
        .decls
        .iter()
        .filter_map(|d| match &d.item {
            Item::Plugin(f) if f.refused.is_some() => Some(f.root.clone()),
            _ => None,
        })
        .collect();
    let resolution = crate::lock::resolve::resolve(std::mem::take(&mut all.decls));
    for p in &resolution.lock.plugins {
        let asked = resolution.asked_plugins.contains(&p.root);
        if !p.loaded && asked && refused.contains(&p.root) {
            all.refused_asked.push((p.name.clone(), p.reason.clone()));
        }
        let why = (!p.loaded && (!asked || refused.contains(&p.root)))
            .then(|| format!("plugin `{}` does not load here: {}", p.name, p.reason));
        all.plugin_roots.push((p.root.clone(), why));
    }
    all.unloaded_plugins =
        all.plugin_roots.iter().filter_map(|(root, why)| Some((root.clone(), why.clone()?))).collect();
    // Findings of the resolver may point into files whose text was dropped as clean.
    for d in &resolution.diagnostics {
        if let Ok(i) = all.files.binary_search_by(|f| f.path.as_str().cmp(&d.path)) {
            if all.files[i].text.is_none() && d.span.is_some() {
                if let walk::Content::Text(text) = options.texts.read(&locate(options, &d.path)) {
                    all.files[i].text = Some(text);
                }
            }
        }
    }
    all.diagnostics.extend(resolution.diagnostics.iter().cloned());
    all.resolution = Some(resolution);
    apply_policy(options, &mut all);
    sort_diagnostics(&mut all.diagnostics);
    Ok(all)
}

/// Sorted by (path, offset, rule, message); exact repeats are dropped.
fn sort_diagnostics(diagnostics: &mut Vec<Diagnostic>) {
    fn key(d: &Diagnostic) -> (&str, usize, &str, &str) {
        (&d.path, d.span.map_or(0, |s| s.start), d.rule, &d.message)
    }
    diagnostics.sort_by(|a, b| key(a).cmp(&key(b)));
    diagnostics.dedup_by(|a, b| key(a) == key(b));
}

/// Marketplace files that no `extraKnownMarketplaces` entry of the check points at: a session
/// started here reads them only through one.
fn undeclared_marketplaces(all: &mut Checked) {
    let declared: std::collections::BTreeSet<&str> = all
        .decls
        .iter()
        .filter_map(|d| match &d.item {
            Item::KnownMarketplace { location: Some(location), .. } => Some(location.as_str()),
            _ => None,
        })
        .collect();
    let paths = all.files.iter().map(|f| f.path.as_str()).chain(all.diagnostics.iter().map(|d| d.path.as_str()));
    let mut undeclared = Vec::new();
    for path in paths {
        if file_name(path) != "marketplace.json" || file_name(parent(path)) != ".claude-plugin" {
            continue;
        }
        let root = parent(parent(path));
        if !declared.contains(root) {
            undeclared.push(path.to_string());
        }
    }
    for path in undeclared {
        all.not_loaded.insert(
            path,
            "a marketplace no setting here declares (`extraKnownMarketplaces`); a session reads it only through one"
                .to_string(),
        );
    }
}

/// capc.toml's severities and per-path ignores, then the suppression comments.
fn apply_policy(options: &Options, all: &mut Checked) {
    let policy = options.policy.as_deref();
    let grade = |diagnostics: &mut Vec<Diagnostic>| {
        if let Some(policy) = policy {
            diagnostics.retain_mut(|d| match policy.severity(d.rule, d.severity) {
                Some(severity) => {
                    d.severity = severity;
                    true
                }
                None => false,
            });
        }
    };
    grade(&mut all.diagnostics);
    if options.no_suppressions {
        return;
    }
    let places = Places::new(options);
    let mut suppressed: Vec<Diagnostic> = Vec::new();
    let mut per_path = |diagnostics: &mut Vec<Diagnostic>| {
        let Some(policy) = policy.filter(|p| !p.per_path.is_empty()) else { return };
        let (hidden, kept): (Vec<Diagnostic>, Vec<Diagnostic>) =
            std::mem::take(diagnostics).into_iter().partition(|d| policy.ignores(&places.absolute(&d.path), d.rule));
        *diagnostics = kept;
        suppressed.extend(hidden);
    };
    per_path(&mut all.diagnostics);
    let runs = |rule: &str| policy.is_none_or(|p| p.severity(rule, crate::diagnostic::Severity::Info).is_some());
    let before: BTreeMap<String, usize> = count_by_path(&all.diagnostics);
    let (_, mut about) = crate::suppress::apply(&mut all.diagnostics, &all.suppressions, runs);
    let after = count_by_path(&all.diagnostics);
    grade(&mut about);
    per_path(&mut about);
    all.diagnostics.extend(about);
    all.suppressed = count_by_path(&suppressed);
    for (path, n) in before {
        let gone = n - after.get(&path).copied().unwrap_or(0);
        if gone > 0 {
            *all.suppressed.entry(path).or_default() += gone;
        }
    }
}

fn count_by_path(diagnostics: &[Diagnostic]) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for d in diagnostics {
        *counts.entry(d.path.clone()).or_default() += 1;
    }
    counts
}

/// The absolute paths of shown paths, for matching capc.toml's patterns.
struct Places<'o> {
    options: &'o Options,
    root: PathBuf,
}

impl<'o> Places<'o> {
    fn new(options: &'o Options) -> Places<'o> {
        let root = options.root.canonicalize().unwrap_or_else(|_| options.root.clone());
        Places { options, root }
    }
    fn absolute(&self, shown: &str) -> PathBuf {
        if shown.starts_with("~/") || shown.starts_with('<') {
            let path = locate(self.options, shown);
            return std::path::absolute(&path).unwrap_or(path);
        }
        self.root.join(shown)
    }
}

/// Where each `extraKnownMarketplaces` directory source points, as a folder this check reads.
fn locate_marketplaces(options: &Options, decls: &mut [Decl]) {
    let mut realms: Vec<(PathBuf, Realm)> = vec![(options.root.clone(), Realm::Project)];
    realms.extend(options.user_dir.iter().map(|d| (d.clone(), Realm::User)));
    realms.extend(options.managed_dir.iter().map(|d| (d.clone(), Realm::Managed)));
    let realms: Vec<(PathBuf, Realm)> =
        realms.into_iter().filter_map(|(d, r)| d.canonicalize().ok().map(|d| (d, r))).collect();
    for d in decls.iter_mut() {
        let Item::KnownMarketplace { path: Some(path), location, .. } = &mut d.item else { continue };
        // Claude Code 2.1.332 loads nothing through a relative `path` (measured): only an
        // absolute one is followed.
        if !Path::new(path.as_str()).is_absolute() {
            continue;
        }
        let Ok(target) = Path::new(path.as_str()).canonicalize() else { continue };
        *location = realms.iter().find_map(|(dir, realm)| {
            let rel = target.strip_prefix(dir).ok()?.to_string_lossy().replace('\\', "/");
            Some(if rel.is_empty() { realm.display("").trim_end_matches('/').to_string() } else { realm.display(&rel) })
        });
    }
}

/// The keys `~/.claude.json` may file the checked project under: its absolute path as given
/// and with symlinks resolved.
fn project_keys(root: &Path) -> Vec<String> {
    let mut keys: Vec<String> = [std::path::absolute(root).ok(), root.canonicalize().ok()]
        .into_iter()
        .flatten()
        .map(|p| p.to_string_lossy().trim_end_matches('/').to_string())
        .filter(|k| !k.is_empty())
        .collect();
    keys.dedup();
    keys
}

/// Which folder a walk covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Realm {
    Project,
    User,
    Managed,
    /// The n-th `--add-dir` (from 1).
    AddDir(usize),
    /// The n-th `--plugin-dir` (from 1) outside the checked folder.
    PluginDir(usize),
}

impl Realm {
    fn display(self, rel: &str) -> String {
        match self {
            Realm::Project => rel.to_string(),
            Realm::User => format!("~/{rel}"),
            Realm::Managed => format!("<managed>/{rel}"),
            Realm::AddDir(n) => format!("<add-dir {n}>/{rel}"),
            Realm::PluginDir(n) => format!("<plugin-dir {n}>/{rel}"),
        }
    }
}

/// The file a shown path names, given the folders of a check.
pub fn locate(options: &Options, shown: &str) -> PathBuf {
    // A folder's lock path ends in `/` (a plugin's root: `<plugin-dir 1>/`, `plugins/acme/`);
    // the path located names it without the separator, as `${CLAUDE_PLUGIN_ROOT}` does.
    let join = |dir: &Path, rest: &str| match rest.trim_end_matches('/') {
        "" => dir.to_path_buf(),
        rest => dir.join(rest),
    };
    if let Some(rest) = shown.strip_prefix("~/") {
        if let Some(dir) = &options.user_dir {
            return join(dir, rest);
        }
    }
    if let Some(rest) = shown.strip_prefix("<managed>/") {
        if let Some(dir) = &options.managed_dir {
            return join(dir, rest);
        }
    }
    for (prefix, dirs) in [("<add-dir ", &options.add_dirs), ("<plugin-dir ", &options.plugin_dirs)] {
        if let Some((n, rel)) = shown.strip_prefix(prefix).and_then(|rest| rest.split_once(">/")) {
            if let Some(dir) = n.parse::<usize>().ok().and_then(|n| dirs.get(n.wrapping_sub(1))) {
                return join(dir, rel);
            }
        }
    }
    join(&options.root, shown)
}

/// Where a claimed file's declarations land in the lock, or `None` when Claude Code started
/// in the checked folder would not load it.
fn placement<'c>(realm: Realm, rel: &str, claim: &'c Claim) -> Option<Placement<'c>> {
    use crate::model::Scope as L;
    let nested = claim.owner.project_root.as_deref().filter(|r| !r.is_empty());
    let mut at = Placement { scope: L::Project, plugin: None, dynamic: None };
    at.scope = match (claim.owner.scope, realm) {
        (FileScope::Plugin, _) => {
            at.plugin = claim.owner.plugin_name.as_deref();
            return Some(Placement { scope: L::Plugin, ..at });
        }
        (FileScope::Collection, _) => return None,
        (_, Realm::AddDir(_)) => L::AddDir,
        // A `--plugin-dir` folder's own `.claude/` (a plugin developed in its repository) is
        // that repository's project configuration, loaded only by a session started there.
        (FileScope::Project, Realm::PluginDir(_)) => return None,
        (FileScope::Managed, _) => L::Managed,
        (FileScope::User, _) => L::User,
        (FileScope::Project, _) if file_name(rel) == "settings.local.json" => L::Local,
        (FileScope::Project, _) => L::Project,
    };
    match nested {
        // Only the project Claude Code starts in is loaded; a nested `.claude/skills/` is
        // found when a file below it is touched (a dynamic skill).
        Some(root) if realm == Realm::Project && claim.kind == FileKind::Skill && claim.base.is_none() => {
            at.dynamic = Some(root);
            Some(at)
        }
        Some(_) => None,
        None => Some(at),
    }
}

/// Why a session started in the checked folder does not load a claimed file that belongs to no
/// plugin (plugins are decided once they are resolved), or `None` when it loads it.
fn not_loaded_because(realm: Realm, rel: &str, claim: &Claim) -> Option<String> {
    if claim.owner.scope == FileScope::Plugin || placement(realm, rel, claim).is_some() {
        return None;
    }
    Some(match (&claim.owner.scope, claim.owner.project_root.as_deref()) {
        (FileScope::Project, _) if matches!(realm, Realm::PluginDir(_)) => {
            "in a `--plugin-dir` folder's own `.claude/`: only a session started in that folder loads it".to_string()
        }
        (FileScope::Collection, _) => {
            "a skill outside the folders Claude Code loads skills from (a skill collection)".to_string()
        }
        (_, Some(root)) if !root.is_empty() => {
            format!(
                "in `{}/`, a nested project: a session started here loads only its own `.claude/`",
                realm.display(root)
            )
        }
        _ => "a session started here does not load it".to_string(),
    })
}

/// Who a file belongs to.
#[derive(Debug, Clone)]
struct Owner {
    scope: FileScope,
    plugin_root: Option<String>,
    /// The plugin's namespace (`plugin.json` name, else the marketplace entry's, else the folder).
    plugin_name: Option<String>,
    project_root: Option<String>,
}

impl Owner {
    fn plugin(root: &str, name: &str) -> Owner {
        Owner {
            scope: FileScope::Plugin,
            plugin_root: Some(root.to_string()),
            plugin_name: Some(name.to_string()),
            project_root: None,
        }
    }
    fn project(scope: FileScope, root: &str) -> Owner {
        Owner { scope, plugin_root: None, plugin_name: None, project_root: Some(root.to_string()) }
    }
    fn bare(scope: FileScope) -> Owner {
        Owner { scope, plugin_root: None, plugin_name: None, project_root: None }
    }
}

#[derive(Debug, Clone)]
struct Claim {
    kind: FileKind,
    owner: Owner,
    /// For commands and agents: the folder their names are relative to.
    base: Option<String>,
}

struct Claims(BTreeMap<String, Claim>);

impl Claims {
    /// The first claim on a path wins.
    fn add(&mut self, rel: &str, kind: FileKind, owner: &Owner, base: Option<&str>) {
        self.0.entry(rel.to_string()).or_insert_with(|| Claim {
            kind,
            owner: owner.clone(),
            base: base.map(str::to_string),
        });
    }
}

struct Outcome {
    file: Option<SourceFile>,
    source: Option<crate::model::Source>,
    decls: Vec<Decl>,
    counts: Counts,
    diagnostics: Vec<Diagnostic>,
    /// The MCP servers the file declares and the ones its rules name.
    servers: ServerUse,
    suppressions: Vec<crate::suppress::Suppression>,
    /// The file, when a session started in the checked folder does not load it, and why.
    not_loaded: Option<(String, String)>,
    /// The plugin (its root, as shown) Claude Code refuses to load because of this file, and why.
    skips_plugin: Option<(String, String)>,
}

#[derive(Debug, Default)]
struct ServerUse {
    /// The file's path, as shown.
    path: String,
    /// The plugin the file belongs to.
    plugin: Option<String>,
    declared: Vec<String>,
    named: Vec<ServerRef>,
}

impl Outcome {
    /// `source` is the file's hash, taken while its text was at hand (a clean file's text is
    /// dropped).
    fn new(
        sink: Sink<'_>,
        file: Option<SourceFile>,
        source: Option<crate::model::Source>,
        counts: Counts,
        plugin: Option<&str>,
    ) -> Outcome {
        let servers = ServerUse {
            path: sink.path().to_string(),
            plugin: plugin.map(str::to_string),
            declared: sink.declared_servers,
            named: sink.server_refs,
        };
        Outcome {
            file,
            source,
            decls: sink.decls,
            counts,
            diagnostics: sink.diagnostics,
            servers,
            suppressions: Vec::new(),
            not_loaded: None,
            skips_plugin: None,
        }
    }
}

fn check_root(
    dir: &Path,
    realm: Realm,
    hash: bool,
    project_keys: &[String],
    plugin_dirs: &[(usize, String)],
    filter: &walk::Filter,
    texts: &walk::Texts,
) -> Checked {
    let tree = walk::Tree { texts: texts.clone(), ..walk::walk_filtered(dir, filter) };
    if let Realm::AddDir(_) = realm {
        return check_added_dir(dir, &tree, realm, hash);
    }
    // The name of the checked folder itself, for a plugin at the root without a manifest.
    let root_name = dir
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default();
    let mut diagnostics = walk_problems(&tree, realm);
    let mut claims = Claims(BTreeMap::new());
    let mut counts = Counts::default();
    let mut outcomes: Vec<Outcome> = Vec::new();

    // Marketplaces first: they name plugin folders.
    let mut entries_by_root: BTreeMap<String, Vec<(String, EntryInfo)>> = BTreeMap::new();
    // Plugin folders listed by a marketplace that carries a reserved (Anthropic) name.
    let mut anthropic_listed: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    let marketplaces: Vec<String> = tree.files.iter().filter(|f| is_manifest(f, "marketplace.json")).cloned().collect();
    let mut marketplace_names: BTreeMap<String, String> = BTreeMap::new();
    let mut plugin_decls: Vec<Decl> = Vec::new();
    for rel in &marketplaces {
        let marketplace_root = parent(parent(rel)).to_string();
        let (outcome, info) = read_json(dir, &tree, rel, realm, FileKind::Marketplace, hash, |sink, cx, node| {
            manifest::check_marketplace(sink, cx, node, &marketplace_root)
        });
        if outcome.file.is_some() {
            counts.marketplaces += 1;
        }
        outcomes.push(outcome);
        let reserved = info.as_ref().is_some_and(|i| i.reserved);
        if let Some(name) = info.as_ref().and_then(|i| i.name.clone()) {
            let plugins = info
                .as_ref()
                .map(|i| {
                    i.entries
                        .iter()
                        .map(|e| (e.name.clone(), e.plugin_root.as_deref().map(|r| realm.display(r))))
                        .collect()
                })
                .unwrap_or_default();
            let entries = info
                .as_ref()
                .map(|i| {
                    i.entries
                        .iter()
                        .map(|e| crate::model::decl::ListedEntry {
                            name: e.name.clone(),
                            root: e.plugin_root.as_deref().map(|r| realm.display(r)),
                            source: e.source.clone(),
                            strict: e.strict,
                            version: e.version.as_ref().map(|(v, _)| v.clone()),
                        })
                        .collect()
                })
                .unwrap_or_default();
            marketplace_names.insert(rel.clone(), name.clone());
            let root = realm.display(&marketplace_root);
            plugin_decls.push(Decl {
                path: realm.display(rel),
                span: None,
                item: Item::Marketplace { name, root, plugins, entries },
            });
        }
        for entry in info.map(|i| i.entries).unwrap_or_default() {
            if let Some(root) = entry.plugin_root.clone() {
                if reserved {
                    anthropic_listed.insert(root.clone());
                }
                entries_by_root.entry(root).or_default().push((rel.clone(), entry));
            }
        }
        claims.add(rel, FileKind::Marketplace, &Owner::bare(FileScope::Plugin), None);
    }

    // Plugins: manifests and marketplace-named folders.
    let mut plugin_roots: BTreeMap<String, Option<String>> = BTreeMap::new();
    for rel in tree.files.iter().filter(|f| is_manifest(f, "plugin.json")) {
        plugin_roots.insert(parent(parent(rel)).to_string(), Some(rel.clone()));
    }
    for root in entries_by_root.keys() {
        plugin_roots.entry(root.clone()).or_insert(None);
    }
    // A `--plugin-dir` is a plugin, with or without a manifest.
    let given: BTreeMap<String, usize> = match realm {
        Realm::PluginDir(n) => [(String::new(), n)].into_iter().collect(),
        _ => plugin_dirs.iter().map(|(n, rel)| (rel.clone(), *n)).collect(),
    };
    for root in given.keys() {
        plugin_roots.entry(root.clone()).or_insert(None);
    }
    let project_roots: std::collections::BTreeSet<String> = tree
        .dirs
        .iter()
        .filter(|d| {
            let claude = if d.is_empty() { ".claude".to_string() } else { format!("{d}/.claude") };
            // A `.mcp.json` alone marks a project only at the checked root: Claude Code reads it
            // from the folder it starts in, and a nested one (a test fixture, an example) is
            // not a project unless a `.claude/` folder sits beside it.
            let mcp_here = d.is_empty() && tree.is_file(".mcp.json") && !plugin_roots.contains_key("");
            tree.is_dir(&claude) || mcp_here
        })
        .filter(|d| file_name(d) != ".claude")
        .cloned()
        .collect();
    // The manifests are read side by side; what they say is taken in order below.
    type Manifest = (Outcome, Option<(PluginInfo, Counts)>);
    let manifests: Vec<Option<Manifest>> = plugin_roots
        .par_iter()
        .map(|(root, manifest_rel)| {
            let rel = manifest_rel.as_deref()?;
            Some(read_json(dir, &tree, rel, realm, FileKind::PluginManifest, hash, |sink, cx, node| {
                let cx = FileCx { plugin_root: Some(root), ..*cx };
                let info = manifest::check_plugin(sink, &cx, node);
                let counts = Counts { mcp_servers: info.inline_mcp, hooks: info.inline_hooks, ..Counts::default() };
                (info, counts)
            }))
        })
        .collect();
    for ((root, manifest_rel), manifest) in plugin_roots.iter().zip(manifests) {
        counts.plugins += 1;
        let mut info = PluginInfo::default();
        let mut refused = None;
        if let (Some(rel), Some((outcome, plugin))) = (manifest_rel, manifest) {
            claims.add(rel, FileKind::PluginManifest, &Owner::plugin(root, ""), None);
            if let Some((plugin, extra)) = plugin {
                counts += extra;
                info = plugin;
            }
            // Claude Code 2.1.332 refuses a plugin.json that fails its schema (invalid JSON, no
            // or a malformed `name`, a field of the wrong type) and loads nothing of the plugin.
            refused = outcome
                .diagnostics
                .iter()
                .find(|d| d.severity == Severity::Error)
                .map(|d| format!("its plugin.json is refused: {}", d.message))
                .or_else(|| outcome.file.is_none().then(|| "its plugin.json cannot be read".to_string()));
            outcomes.push(outcome);
        }
        if let (Some(name), Some(span), Some(rel)) = (&info.name, info.name_span, manifest_rel) {
            if anthropic_listed.contains(root) {
                // Listed by one of Anthropic's own marketplaces: its names are Anthropic's.
            } else if manifest::is_reserved_plugin_name(name) {
                report_at(&mut diagnostics, realm.display(rel), &rules::reserved_name::RULE, span, format!("plugin name `{name}` is reserved for Anthropic"))
                    .help("a third-party plugin may not be `claude`, `anthropic` or `claude-code`, start with `claude-`, `anthropic-` or `cc-plugin-`, or pair `official` with them; name it for what it does");
            } else if manifest::reads_as_anthropic(name) {
                report_at(&mut diagnostics, realm.display(rel), &rules::reserved_name::RULE, span, format!("plugin name `{name}` reads as one of Anthropic's own"))
                    .severity(Severity::Warning)
                    .help("`claude plugin validate` warns about names that mention Claude or Anthropic; name it for what it does");
            }
        }
        let listed_by = entries_by_root.get(root).map(Vec::as_slice).unwrap_or_default();
        cross_check_entries(&mut diagnostics, realm, &info, manifest_rel.as_deref(), listed_by);
        // Claude Code loads a `--plugin-dir` folder as a folder: a marketplace entry naming it
        // gives it neither a name nor component paths (measured on 2.1.332), and a folder
        // without plugin.json is a plugin only when something in it loads.
        let entries = if given.contains_key(root) { &[] } else { listed_by };
        if given.contains_key(root) && manifest_rel.is_none() && !holds_components(&tree, root) {
            refused = Some(format!(
                "a `--plugin-dir` folder without `.claude-plugin/plugin.json` holding none of {}: Claude Code does not take it as a plugin",
                DEFAULT_COMPONENTS.join(", ")
            ));
        }
        let mut paths = info.paths.clone();
        for (_, entry) in entries {
            paths.extend(entry.paths.iter().cloned());
        }
        let name = info
            .name
            .clone()
            .or_else(|| entries.first().map(|(_, e)| e.name.clone()).filter(|n| !n.is_empty()))
            .unwrap_or_else(|| if root.is_empty() { root_name.clone() } else { file_name(root).to_string() });
        let marketplace = entries
            .iter()
            .find_map(|(rel, _)| marketplace_names.get(rel).cloned())
            .or_else(|| cached_marketplace(root));
        // A plugin inside a skills folder (`.claude/skills/<x>/.claude-plugin/`) loads as
        // `<name>@skills-dir` (user scope always, project scope in a trusted folder).
        let skills_dir = match (realm, parent(root)) {
            (Realm::Project, ".claude/skills") => Some(crate::model::Scope::Project),
            (Realm::User, ".claude/skills") => Some(crate::model::Scope::User),
            _ => None,
        };
        plugin_decls.push(Decl {
            path: realm.display(manifest_rel.as_deref().unwrap_or(root)),
            span: info.name_span,
            item: Item::Plugin(Box::new(crate::model::PluginFolder {
                name: name.clone(),
                root: realm.display(root),
                marketplace,
                plugin_dir: given.get(root).copied(),
                skills_dir,
                refused,
                at_root: root.is_empty() && realm == Realm::Project,
                version: info.version.clone().or_else(|| entries.iter().find_map(|(_, e)| Some(e.version.clone()?.0))),
            })),
        });
        // A CLAUDE.md at the checked root is the repository's own memory file when the root is
        // a repository (a marketplace or a project), not when it is only a plugin.
        let is_repository = project_roots.contains(root) || (root.is_empty() && !marketplaces.is_empty());
        let layout = Layout { is_repository, skills_dir: skills_dir.is_some() };
        claim_plugin(&tree, &mut claims, root, &name, &paths, &mut diagnostics, realm, layout);
    }

    for root in &project_roots {
        claim_project(&tree, &mut claims, root, plugin_roots.contains_key(root.as_str()), realm, &mut diagnostics);
    }
    // `capc check path/to/.claude` (or `~/.claude`): the folder itself is a `.claude` folder;
    // `$CLAUDE_PROJECT_DIR` is its parent, outside the check.
    if root_name == ".claude" && realm == Realm::Project {
        claim_claude_dir(&tree, &mut claims, "", &Owner::bare(FileScope::Project), &mut diagnostics, realm);
    }
    if realm == Realm::User && tree.is_file(".claude.json") {
        claims.add(".claude.json", FileKind::UserConfig, &Owner::project(FileScope::User, ""), None);
    }
    if realm == Realm::Managed {
        for rel in tree.files.iter() {
            let in_settings_d = parent(rel) == "managed-settings.d" && rel.ends_with(".json");
            if rel == "managed-settings.json" || in_settings_d {
                claims.add(rel, FileKind::Settings, &Owner::project(FileScope::Managed, ""), None);
            } else if rel == "managed-mcp.json" {
                claims.add(rel, FileKind::ProjectMcp, &Owner::bare(FileScope::Managed), None);
            }
        }
    }
    // Whatever SKILL.md is left belongs to a skill collection.
    // (Except inside `.claude-plugin/`, where nothing is loaded; see component-in-manifest-dir.)
    // A file already claimed through a symbolic link is the same skill: Claude Code, too,
    // loads a skill reachable from several places once, by its real path.
    let claimed_real: std::collections::BTreeSet<String> = if tree.links.is_empty() {
        std::collections::BTreeSet::new()
    } else {
        claims.0.keys().map(|k| tree.real_path(k)).collect()
    };
    for rel in tree.files.iter().filter(|f| file_name(f) == "SKILL.md" && !f.split('/').any(|s| s == ".claude-plugin"))
    {
        if claimed_real.contains(rel.as_str()) && !claims.0.contains_key(rel.as_str()) {
            continue;
        }
        claims.add(rel, FileKind::Skill, &Owner::bare(FileScope::Collection), None);
    }

    let parsed: Vec<Outcome> = claims
        .0
        .par_iter()
        .filter(|(_, claim)| !matches!(claim.kind, FileKind::Marketplace | FileKind::PluginManifest))
        .map(|(rel, claim)| read_claim(dir, &tree, rel, claim, realm, hash, project_keys))
        .collect();
    outcomes.extend(parsed);

    let mut checked = Checked::empty(diagnostics);
    checked.declarations = counts;
    checked.decls = plugin_decls;
    checked.ignored = tree.ignored;
    let mut declared: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    let mut references: Vec<ServerUse> = Vec::new();
    let skipped: BTreeMap<String, String> = outcomes.iter().filter_map(|o| o.skips_plugin.clone()).collect();
    refuse_skipped(&mut checked.decls, &skipped);
    for outcome in outcomes {
        let mut servers = checked.absorb(outcome);
        declared.extend(std::mem::take(&mut servers.declared));
        if !servers.named.is_empty() {
            references.push(servers);
        }
    }
    checked.diagnostics.extend(undeclared_servers(&declared, references));
    checked
}

/// Marks the plugins of `skipped` (root as shown → why) refused: Claude Code skips them
/// whole and loads the others (see `hooks::skips_plugin`).
fn refuse_skipped(decls: &mut [Decl], skipped: &BTreeMap<String, String>) {
    for d in decls {
        if let Item::Plugin(folder) = &mut d.item {
            if let (None, Some(why)) = (&folder.refused, skipped.get(&folder.root)) {
                folder.refused = Some(format!("Claude Code refuses to load it: {why}"));
            }
        }
    }
}

/// What Claude Code 2.1.332 looks for at a plugin's root when it has no manifest to list its
/// components: a folder or file of these makes the folder a plugin.
const DEFAULT_COMPONENTS: [&str; 9] = [
    "commands/",
    "agents/",
    "skills/",
    "output-styles/",
    "themes/",
    "workflows/",
    "hooks/hooks.json",
    ".mcp.json",
    ".lsp.json",
];

/// Whether the folder `root` of `tree` holds one of the [`DEFAULT_COMPONENTS`].
fn holds_components(tree: &Tree, root: &str) -> bool {
    DEFAULT_COMPONENTS.iter().any(|c| {
        let at = if root.is_empty() {
            c.trim_end_matches('/').to_string()
        } else {
            format!("{root}/{}", c.trim_end_matches('/'))
        };
        if c.ends_with('/') {
            tree.is_dir(&at)
        } else {
            tree.is_file(&at)
        }
    })
}

/// The marketplace of a plugin in Claude Code's cache (`~/.claude/plugins/cache/<marketplace>/<plugin>/<version>`).
fn cached_marketplace(root: &str) -> Option<String> {
    let rest = root.strip_prefix(".claude/plugins/cache/")?;
    let marketplace = rest.split('/').next()?;
    (!marketplace.is_empty()).then(|| marketplace.to_string())
}

/// An `--add-dir` folder: Claude Code reads the skills, commands and agents of its `.claude/`.
fn check_added_dir(dir: &Path, tree: &Tree, realm: Realm, hash: bool) -> Checked {
    let mut claims = Claims(BTreeMap::new());
    let mut diagnostics = walk_problems(tree, realm);
    // Claude Code 2.1.332 reads an added folder's skills, legacy commands and agents.
    let owner = Owner::project(FileScope::Project, "");
    if tree.is_dir(".claude/skills") {
        claim_skills_dir(tree, &mut claims, ".claude/skills", &owner, &mut diagnostics, realm);
    }
    if tree.is_dir(".claude/commands") {
        claim_markdown_tree(tree, &mut claims, ".claude/commands", FileKind::Command, &owner);
    }
    if tree.is_dir(".claude/agents") {
        claim_markdown_tree(tree, &mut claims, ".claude/agents", FileKind::Agent, &owner);
    }
    let outcomes: Vec<Outcome> =
        claims.0.par_iter().map(|(rel, claim)| read_claim(dir, tree, rel, claim, realm, hash, &[])).collect();
    let mut checked = Checked::empty(diagnostics);
    for outcome in outcomes {
        checked.absorb(outcome);
    }
    checked
}

/// Permission rules that name an MCP server no file in the check declares. In a plugin,
/// only the plugin's own servers written without their `plugin_<plugin>_` prefix are
/// reported: plugins often rely on servers their users install.
fn undeclared_servers(declared: &std::collections::BTreeSet<String>, references: Vec<ServerUse>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (use_, reference) in references.iter().flat_map(|u| u.named.iter().map(move |r| (u, r))) {
        if declared.contains(&reference.server) {
            continue;
        }
        if let Some(plugin) = &use_.plugin {
            let own = crate::names::normalize_server(&format!("plugin_{plugin}_{}", reference.server));
            if declared.contains(&own) {
                report_at(
                    &mut out,
                    use_.path.clone(),
                    &rules::unknown_mcp_server_in_rule::RULE,
                    reference.span,
                    format!("this plugin's server `{}` is named `{own}` in tool names", reference.server),
                )
                .help(format!("write `mcp__{own}__…`; the bare `mcp__{}__…` matches nothing", reference.server));
            }
            continue;
        }
        let d = report_at(
            &mut out,
            use_.path.clone(),
            &rules::unknown_mcp_server_in_rule::RULE,
            reference.span,
            format!("no MCP server `{}` is declared here", reference.server),
        );
        match crate::diagnostic::did_you_mean(&reference.server, declared.iter().map(String::as_str)) {
            Some(s) => d.help(format!("did you mean `{s}`? Server names are matched as their tools are named (characters outside `[A-Za-z0-9_-]` become `_`)")),
            None => d.help("declare it in `.mcp.json` or a plugin; if it lives in `~/.claude.json` or another plugin, the rule is fine there (check with `--user-dir`)"),
        };
    }
    out
}

fn is_manifest(rel: &str, name: &str) -> bool {
    file_name(rel) == name && file_name(parent(rel)) == ".claude-plugin"
}

fn walk_problems(tree: &Tree, realm: Realm) -> Vec<Diagnostic> {
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
        d.help = help.map(str::to_string);
    }
    out
}

/// Marketplace entry vs plugin.json: versions, and strict-mode conflicts.
fn cross_check_entries(
    out: &mut Vec<Diagnostic>,
    realm: Realm,
    info: &PluginInfo,
    manifest_rel: Option<&str>,
    entries: &[(String, EntryInfo)],
) {
    for (marketplace_rel, entry) in entries {
        let path = realm.display(marketplace_rel);
        let mut sink = Sink::new(&path);
        if let (Some((entry_version, span)), Some(plugin_version), Some(manifest)) =
            (&entry.version, &info.version, manifest_rel)
        {
            if entry_version != plugin_version {
                sink.report(
                    &rules::version_mismatch::RULE,
                    *span,
                    format!(
                        "entry `{}` says version `{entry_version}`, but its plugin.json says `{plugin_version}`",
                        entry.name
                    ),
                )
                .help(format!(
                    "plugin.json (`{}`) wins; make them equal or drop the entry's `version`",
                    realm.display(manifest)
                ));
            }
        }
        if !entry.strict && entry.declares_components && info.declares_components {
            sink.report(
                &rules::conflicting_manifests::RULE,
                entry.strict_span,
                format!(
                    "entry `{}` has `strict: false` and declares components, and so does its plugin.json",
                    entry.name
                ),
            )
            .help("Claude Code fails with \"conflicting manifests\"; declare components in one place");
        }
        out.extend(sink.diagnostics);
    }
}

fn claim_markdown_tree(tree: &Tree, claims: &mut Claims, dir: &str, kind: FileKind, owner: &Owner) {
    // A folder inside `commands/` that holds a SKILL.md (any case) is one skill; the other
    // Markdown files beside and below it are not commands.
    let skill_dirs: Vec<String> = if kind == FileKind::Command {
        tree.files_under(dir)
            .filter(|f| file_name(f).eq_ignore_ascii_case("skill.md"))
            .map(|f| parent(f).to_string())
            .collect()
    } else {
        Vec::new()
    };
    for rel in tree.files_under(dir) {
        if !rel.ends_with(".md") {
            continue;
        }
        let below = |d: &&String| rel.strip_prefix(d.as_str()).is_some_and(|rest| rest.starts_with('/'));
        if let Some(skill_dir) = skill_dirs.iter().find(below) {
            if parent(rel) == skill_dir && file_name(rel).eq_ignore_ascii_case("skill.md") {
                claims.add(rel, FileKind::Skill, owner, Some(dir));
            }
            continue;
        }
        claims.add(rel, kind, owner, Some(dir));
    }
}

fn claim_skills_dir(
    tree: &Tree,
    claims: &mut Claims,
    dir: &str,
    owner: &Owner,
    out: &mut Vec<Diagnostic>,
    realm: Realm,
) {
    let direct = join_rel(dir, "SKILL.md").unwrap_or_default();
    if tree.is_file(&direct) {
        claims.add(&direct, FileKind::Skill, owner, None);
        return;
    }
    for child in tree.child_dirs(dir) {
        let skill = format!("{child}/SKILL.md");
        if tree.is_file(&skill) {
            claims.add(&skill, FileKind::Skill, owner, None);
        }
    }
    for rel in tree.files_under(dir).filter(|f| parent(f) == dir && f.ends_with(".md")) {
        let stem = file_name(rel).trim_end_matches(".md");
        report_at(
            out,
            realm.display(rel),
            &rules::loose_skill_file::RULE,
            None,
            "a loose Markdown file in a skills folder is not a skill",
        )
        .help(format!("move it to `{dir}/{stem}/SKILL.md`"));
    }
}

/// Where a plugin folder sits, as far as claiming its files goes.
#[derive(Clone, Copy)]
struct Layout {
    /// The folder is also a repository (a marketplace or a project): its CLAUDE.md is the
    /// repository's.
    is_repository: bool,
    /// A skills-folder plugin: its root `SKILL.md` is the folder's own skill, not a plugin skill.
    skills_dir: bool,
}

#[allow(clippy::too_many_arguments)]
fn claim_plugin(
    tree: &Tree,
    claims: &mut Claims,
    root: &str,
    name: &str,
    paths: &[(&'static str, String)],
    out: &mut Vec<Diagnostic>,
    realm: Realm,
    layout: Layout,
) {
    let at = |p: &str| join_rel(root, p).unwrap_or_default();
    let listed = |field: &'static str| paths.iter().filter(move |(f, _)| *f == field).map(|(_, p)| p.as_str());
    let owner = Owner::plugin(root, name);
    // Skills: the default folder plus listed ones (`skills` adds).
    if tree.is_dir(&at("skills")) {
        claim_skills_dir(tree, claims, &at("skills"), &owner, out, realm);
    }
    for dir in listed("skills") {
        claim_skills_dir(tree, claims, dir, &owner, out, realm);
    }
    // A root SKILL.md is the plugin's one skill only when it has no skills folder (2.1.332:
    // with one, the root file is not read).
    let has_skills = tree.is_dir(&at("skills")) || listed("skills").next().is_some();
    if tree.is_file(&at("SKILL.md")) && !has_skills && !layout.skills_dir {
        claims.add(&at("SKILL.md"), FileKind::Skill, &owner, None);
    }
    // Commands and agents: listed paths replace the default folder.
    for (field, folder, kind) in [("commands", "commands", FileKind::Command), ("agents", "agents", FileKind::Agent)] {
        let mut any = false;
        for path in listed(field) {
            any = true;
            if tree.is_dir(path) {
                claim_markdown_tree(tree, claims, path, kind, &owner);
            } else if path.ends_with(".md") {
                claims.add(path, kind, &owner, Some(parent(path)));
            }
        }
        if !any && tree.is_dir(&at(folder)) {
            claim_markdown_tree(tree, claims, &at(folder), kind, &owner);
        }
    }
    if tree.is_file(&at("hooks/hooks.json")) {
        claims.add(&at("hooks/hooks.json"), FileKind::Hooks, &owner, None);
    }
    for path in listed("hooks") {
        claims.add(path, FileKind::Hooks, &owner, None);
    }
    if tree.is_file(&at(".mcp.json")) {
        claims.add(&at(".mcp.json"), FileKind::PluginMcp, &owner, None);
    }
    for path in listed("mcpServers") {
        claims.add(path, FileKind::PluginMcp, &owner, None);
    }
    // Layout mistakes Claude Code is silent about.
    let manifest_dir = at(".claude-plugin");
    for folder in ["skills", "commands", "agents", "hooks"] {
        let inside = join_rel(&manifest_dir, folder).unwrap_or_default();
        if tree.is_dir(&inside) {
            report_at(
                out,
                realm.display(&inside),
                &rules::component_in_manifest_dir::RULE,
                None,
                format!("`{folder}/` inside `.claude-plugin/` is never loaded"),
            )
            .help(format!("move it to the plugin root: `{}/`", realm.display(&at(folder))));
        }
    }
    if !layout.is_repository && tree.is_file(&at("CLAUDE.md")) {
        report_at(
            out,
            realm.display(&at("CLAUDE.md")),
            &rules::ignored_plugin_claude_md::RULE,
            None,
            "Claude Code does not load a plugin's CLAUDE.md",
        )
        .help("put instructions for the model in a skill or an agent");
    }
}

fn claim_project(
    tree: &Tree,
    claims: &mut Claims,
    root: &str,
    is_plugin: bool,
    realm: Realm,
    out: &mut Vec<Diagnostic>,
) {
    let scope = match realm {
        Realm::Project => FileScope::Project,
        Realm::User => FileScope::User,
        Realm::Managed => FileScope::Managed,
        Realm::AddDir(_) | Realm::PluginDir(_) => FileScope::Project,
    };
    let at = |p: &str| join_rel(root, p).unwrap_or_default();
    let owner = Owner::project(scope, root);
    claim_claude_dir(tree, claims, &at(".claude"), &owner, out, realm);
    if !is_plugin && tree.is_file(&at(".mcp.json")) {
        claims.add(&at(".mcp.json"), FileKind::ProjectMcp, &owner, None);
    }
}

/// The contents of a `.claude` folder (`""` when the checked folder is one).
fn claim_claude_dir(
    tree: &Tree,
    claims: &mut Claims,
    claude: &str,
    owner: &Owner,
    out: &mut Vec<Diagnostic>,
    realm: Realm,
) {
    let at = |p: &str| join_rel(claude, p).unwrap_or_default();
    if tree.is_dir(&at("skills")) {
        claim_skills_dir(tree, claims, &at("skills"), owner, out, realm);
    }
    if tree.is_dir(&at("commands")) {
        claim_markdown_tree(tree, claims, &at("commands"), FileKind::Command, owner);
    }
    if tree.is_dir(&at("agents")) {
        claim_markdown_tree(tree, claims, &at("agents"), FileKind::Agent, owner);
    }
    for settings in ["settings.json", "settings.local.json"] {
        if tree.is_file(&at(settings)) {
            claims.add(&at(settings), FileKind::Settings, owner, None);
        }
    }
}

/// Reads a file's text, reporting why it cannot be used; `None` when there is no text.
fn load(dir: &Path, tree: &Tree, rel: &str, sink: &mut Sink<'_>) -> Option<String> {
    match tree.texts.read(&dir.join(rel)) {
        Content::Text(text) => Some(text),
        Content::TooLarge { bytes } => {
            sink.report(&rules::file_too_large::RULE, None, format!("file is {} MiB; capc reads declaration files up to {} MiB", bytes / (1024 * 1024), walk::MAX_FILE_BYTES / (1024 * 1024)))
                .help("a declaration this large is almost certainly a mistake; Claude Code would put it all into the model's context");
            None
        }
        Content::NotText { offset, reason, .. } => {
            sink.report(
                &rules::unreadable_file::RULE,
                None,
                format!("file {reason} (first bad byte at offset {offset})"),
            )
            .help(
                "declarations must be UTF-8 text; re-save the file as UTF-8, or remove it if it is not a declaration",
            );
            None
        }
        Content::Error(e) => {
            sink.report(&rules::unreadable_file::RULE, None, format!("cannot read file: {e}"));
            None
        }
    }
}

fn read_json<T>(
    dir: &Path,
    tree: &Tree,
    rel: &str,
    realm: Realm,
    kind: FileKind,
    hash: bool,
    f: impl FnOnce(&mut Sink<'_>, &FileCx<'_>, &Node) -> T,
) -> (Outcome, Option<T>) {
    let path = realm.display(rel);
    let mut sink = Sink::new(&path);
    let Some(text) = load(dir, tree, rel, &mut sink) else {
        return (Outcome::new(sink, None, None, Counts::default(), None), None);
    };
    let cx = FileCx {
        tree,
        rel,
        scope: FileScope::Plugin,
        plugin_root: None,
        project_root: None,
        json_source: Some(&text),
        plugin_name: None,
        placement: None,
    };
    let result = parse_json(&mut sink, &text, kind).map(|node| f(&mut sink, &cx, &node));
    // Manifests stay: cross-file checks may report into them later.
    let source = hashed(&path, kind, &text, hash);
    let file = SourceFile { path: path.clone(), kind, scope: FileScope::Plugin, name: None, text: Some(text) };
    (Outcome::new(sink, Some(file), Some(source), Counts::default(), None), result)
}

/// The JSON of a declaration file, or `invalid-json` with what the failure costs.
fn parse_json(sink: &mut Sink<'_>, text: &str, kind: FileKind) -> Option<Node> {
    match crate::json::parse(text) {
        Ok(node) => Some(node),
        Err(e) => {
            sink.report(&rules::invalid_json::RULE, e.span, e.message).help(json_help(kind));
            None
        }
    }
}

fn json_help(kind: FileKind) -> &'static str {
    match kind {
        FileKind::PluginManifest => "Claude Code cannot load this plugin until plugin.json parses",
        FileKind::Marketplace => "Claude Code cannot add this marketplace until marketplace.json parses",
        FileKind::ProjectMcp | FileKind::PluginMcp => "Claude Code reads none of these servers until the file parses",
        FileKind::Hooks => "Claude Code fails the plugin's hooks until the file parses",
        FileKind::Settings => "Claude Code ignores this settings file until it parses",
        _ => "fix the JSON syntax",
    }
}

fn read_claim(
    dir: &Path,
    tree: &Tree,
    rel: &str,
    claim: &Claim,
    realm: Realm,
    hash: bool,
    project_keys: &[String],
) -> Outcome {
    let path = realm.display(rel);
    let mut sink = Sink::new(&path);
    let mut counts = Counts::default();
    let mut not_loaded = not_loaded_because(realm, rel, claim).map(|why| (path.clone(), why));
    let mut skips_plugin = None;
    match claim.kind {
        FileKind::Skill => counts.skills = 1,
        FileKind::Command => counts.commands = 1,
        FileKind::Agent => counts.agents = 1,
        FileKind::Settings => counts.settings = 1,
        _ => {}
    }
    let Some(text) = load(dir, tree, rel, &mut sink) else {
        let mut outcome = Outcome::new(sink, None, None, counts, claim.owner.plugin_name.as_deref());
        outcome.not_loaded = not_loaded;
        return outcome;
    };
    // The plugin agent loader of 2.1.332 skips agent files over 1 MiB (measured).
    if claim.kind == FileKind::Agent && claim.owner.scope == FileScope::Plugin && text.len() > PLUGIN_AGENT_MAX_BYTES {
        sink.report(
            &rules::file_too_large::RULE,
            None,
            format!("agent file is {} KiB; Claude Code skips plugin agents over 1 MiB", text.len() / 1024),
        )
        .severity(Severity::Warning)
        .help("move reference material out of the agent's prompt, into files it reads when needed");
    }
    let is_json = !matches!(claim.kind, FileKind::Skill | FileKind::Command | FileKind::Agent);
    let cx = FileCx {
        tree,
        rel,
        scope: claim.owner.scope,
        plugin_root: claim.owner.plugin_root.as_deref(),
        project_root: claim.owner.project_root.as_deref(),
        json_source: is_json.then_some(text.as_str()),
        plugin_name: claim.owner.plugin_name.as_deref(),
        placement: placement(realm, rel, claim),
    };
    let mut name = None;
    let mut decls = Vec::new();
    match claim.kind {
        FileKind::Skill | FileKind::Command => {
            let kind = if claim.kind == FileKind::Skill { MarkdownKind::Skill } else { MarkdownKind::Command };
            let fields = markdown::check(&mut sink, &cx, &text, kind);
            let own = match kind {
                MarkdownKind::Skill => skill_name(rel, claim, fields.as_ref()),
                _ => command_name(rel, claim),
            };
            if let Some(at) = cx.placement {
                // What was loaded from a commands folder (a file or a SKILL.md folder) sits with
                // the commands in the table; a skills folder's with the skills.
                let form = if claim.base.is_some() { MarkdownKind::Command } else { MarkdownKind::Skill };
                let mut decl =
                    crate::decl::declare::command(&mut sink, own.clone(), form, fields.as_ref(), &text, at, &path);
                if let Item::Command(command) = &mut decl.item {
                    other_names(command, claim, kind, fields.as_ref());
                }
                decls.push(decl);
            }
            name = Some(own);
        }
        FileKind::Agent => {
            let fields = markdown::check(&mut sink, &cx, &text, MarkdownKind::Agent);
            let own = agent_name(rel, claim, fields.as_ref());
            if let Some(at) = cx.placement {
                decls.extend(crate::decl::declare::agent(&mut sink, own.clone(), fields.as_ref(), at, &path));
            }
            name = Some(own);
        }
        kind => {
            if let Some(node) = parse_json(&mut sink, &text, kind) {
                match kind {
                    FileKind::ProjectMcp => counts.mcp_servers = decl::mcp::check_file(&mut sink, &cx, &node, true),
                    FileKind::PluginMcp => counts.mcp_servers = decl::mcp::check_file(&mut sink, &cx, &node, false),
                    FileKind::UserConfig => {
                        if let Some(servers) = node.get("mcpServers") {
                            counts.mcp_servers =
                                decl::mcp::check_servers(&mut sink, &cx, servers, "`mcpServers`", false);
                        }
                        // Local scope: this project's own servers (`claude mcp add`'s default).
                        let projects = node.get("projects");
                        let project = project_keys.iter().find_map(|k| projects?.get(k));
                        if let (Some(project), Some(_)) = (project, cx.placement) {
                            use crate::model::Scope as L;
                            crate::decl::declare::mcp_approval(project, L::Local, &path, &mut decls);
                            crate::decl::declare::mcp_toggles(project, &path, &mut decls);
                        }
                        if let Some(servers) = project.and_then(|p| p.get("mcpServers")) {
                            let placement = cx
                                .placement
                                .map(|at| crate::model::Placement { scope: crate::model::Scope::Local, ..at });
                            let local_cx = FileCx { placement, ..cx };
                            counts.mcp_servers += decl::mcp::check_servers(
                                &mut sink,
                                &local_cx,
                                servers,
                                "`projects[…].mcpServers`",
                                false,
                            );
                        }
                    }
                    FileKind::Hooks => {
                        counts.hooks = decl::hooks::check_file(&mut sink, &cx, &node);
                        if let (Some(root), Some(why)) = (&claim.owner.plugin_root, decl::hooks::skips_plugin(&node)) {
                            skips_plugin = Some((realm.display(root), why));
                        }
                    }
                    FileKind::Settings => counts.hooks = decl::settings::check(&mut sink, &cx, &node),
                    _ => {}
                }
                if let Some(at) = cx.placement {
                    match kind {
                        FileKind::Hooks => {
                            if let Some(map) = node.get("hooks") {
                                crate::decl::declare::hooks(&mut sink, map, at, &path, &mut decls);
                            }
                        }
                        // Refused whole by Claude Code: it declares nothing, and its errors
                        // do not stop `capc lock` (a session here does not load the file).
                        FileKind::Settings if decl::settings::refused_mode(&node).is_some() => {
                            let why = "Claude Code refuses this settings file: its `permissions.defaultMode` is not a mode it knows";
                            not_loaded.get_or_insert_with(|| (path.clone(), why.to_string()));
                        }
                        FileKind::Settings => {
                            if let Some(map) = node.get("hooks") {
                                crate::decl::declare::hooks(&mut sink, map, at, &path, &mut decls);
                            }
                            if let Some(permissions) = node.get("permissions") {
                                crate::decl::declare::rules(&mut sink, permissions, at.scope, &path, &mut decls);
                            }
                            crate::decl::declare::settings(&node, at.scope, &path, &mut decls);
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    sink.decls.append(&mut decls);
    let source = hashed(&path, claim.kind, &text, hash);
    let mut suppressions = if is_json { Vec::new() } else { crate::suppress::parse(&text) };
    for s in &mut suppressions {
        s.path = path.clone();
    }
    // Cross-file checks report only into files with MCP server references; suppressions may
    // be reported themselves.
    let keep = !sink.diagnostics.is_empty() || !sink.server_refs.is_empty() || !suppressions.is_empty();
    let file =
        SourceFile { path: path.clone(), kind: claim.kind, scope: claim.owner.scope, name, text: keep.then_some(text) };
    let mut outcome = Outcome::new(sink, Some(file), Some(source), counts, claim.owner.plugin_name.as_deref());
    outcome.suppressions = suppressions;
    outcome.not_loaded = not_loaded;
    outcome.skips_plugin = skips_plugin;
    outcome
}

/// A file's entry in the lock's list of sources.
fn hashed(path: &str, kind: FileKind, text: &str, hash: bool) -> crate::model::Source {
    crate::model::Source {
        path: path.to_string(),
        kind: kind.as_str().to_string(),
        sha256: if hash { crate::secrets::sha256_hex(text.as_bytes()) } else { String::new() },
    }
}

/// `plugin:` in front of a plugin component's name.
fn namespaced(claim: &Claim, name: &str) -> String {
    match &claim.owner.plugin_name {
        Some(plugin) => format!("{plugin}:{name}"),
        None => name.to_string(),
    }
}

/// The path of `rel` below `base`, without `.md`, its folders joined with `:`.
fn relative_name(base: &str, rel: &str) -> String {
    let below = rel.strip_prefix(base).unwrap_or(rel).trim_start_matches('/');
    below.strip_suffix(".md").unwrap_or(below).replace('/', ":")
}

fn frontmatter_name(fields: Option<&Node>) -> Option<&str> {
    fields?.get("name")?.as_str().map(str::trim).filter(|n| !n.is_empty())
}

/// A skill is named after its folder (Claude Code 2.1.332): in a plugin, `<plugin>:<folder>`
/// with every character outside `[A-Za-z0-9_-]` made `-`; a plugin that is one root
/// `SKILL.md` takes its frontmatter `name`, else the plugin folder's name, sanitized alike; a
/// `SKILL.md` inside a commands folder takes the folder's path (`a:b`). The frontmatter `name`
/// of any other skill is its display name, not its name (see `other_names`).
fn skill_name(rel: &str, claim: &Claim, fields: Option<&Node>) -> String {
    let dir = parent(rel);
    if let Some(base) = &claim.base {
        return namespaced(claim, &relative_name(base, dir));
    }
    match (&claim.owner.plugin_name, &claim.owner.plugin_root) {
        (Some(plugin), Some(root)) if root == dir => {
            let folder = if dir.is_empty() { plugin.as_str() } else { file_name(dir) };
            crate::names::plugin_root_skill(plugin, frontmatter_name(fields), folder)
        }
        (Some(plugin), _) => crate::names::plugin_skill(plugin, file_name(dir)),
        (None, _) => file_name(dir).to_string(),
    }
}

/// The display name and aliases Claude Code 2.1.332 gives a skill or command besides its name:
/// a plugin's skills and commands take their frontmatter `name` as display name and, without
/// a `:`, as a bare alias (`kZ`); a skills folder's skill takes it as display name only;
/// legacy `.claude/commands` files ignore it.
fn other_names(command: &mut crate::model::Command, claim: &Claim, kind: MarkdownKind, fields: Option<&Node>) {
    let given = fields.and_then(|f| f.get("name")).and_then(scalar_text);
    if claim.owner.plugin_name.is_some() {
        let names = crate::names::plugin_names(&command.name, given.as_deref().map(str::trim));
        command.display_name = names.display_name;
        command.aliases = names.aliases;
        command.shed_aliases = names.shed;
    } else if kind == MarkdownKind::Skill && claim.base.is_none() {
        command.display_name = crate::names::frontmatter_name(given.as_deref().map(str::trim))
            .filter(|n| *n != command.name)
            .map(str::to_string);
    }
}

/// A scalar frontmatter value as text (Claude Code reads `name: 42` as `"42"`).
fn scalar_text(node: &Node) -> Option<String> {
    use crate::node::NodeKind;
    match &node.kind {
        NodeKind::String(s) => Some(s.clone()),
        NodeKind::Number(n) => Some(n.clone()),
        NodeKind::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A command is named after its path below the commands folder: `frontend/component.md`
/// is `frontend:component` (the loader's rule since Claude Code 1.0.45; the docs still say
/// the subfolder does not count).
fn command_name(rel: &str, claim: &Claim) -> String {
    namespaced(claim, &relative_name(claim.base.as_deref().unwrap_or(parent(rel)), rel))
}

/// An agent is named by its frontmatter `name`, else its file name; a plugin's agents add
/// their subfolders (`review:security`).
fn agent_name(rel: &str, claim: &Claim, fields: Option<&Node>) -> String {
    let stem = file_name(rel).strip_suffix(".md").unwrap_or(file_name(rel));
    let own = frontmatter_name(fields).unwrap_or(stem);
    if claim.owner.plugin_name.is_none() {
        return own.to_string();
    }
    let folders = claim.base.as_deref().map(|base| relative_name(base, parent(rel))).unwrap_or_default();
    if folders.is_empty() {
        namespaced(claim, own)
    } else {
        namespaced(claim, &format!("{folders}:{own}"))
    }
}

/// The largest plugin agent file Claude Code 2.1.332 loads.
const PLUGIN_AGENT_MAX_BYTES: usize = 1_048_576;

/// Turns diagnostics' spans into 1-based (line, column) pairs. Diagnostics come sorted by
/// path, so the line index of a file is built once and reused for all of its findings.
pub struct Positions<'a> {
    checked: &'a Checked,
    current: Option<(&'a str, &'a str, LineIndex)>,
}

impl<'a> Positions<'a> {
    pub fn new(checked: &'a Checked) -> Positions<'a> {
        Positions { checked, current: None }
    }

    /// Start and end of `diagnostic`; a finding without a span (or a file without text) is
    /// placed at 1:1.
    pub fn of(&mut self, diagnostic: &Diagnostic) -> ((usize, usize), (usize, usize)) {
        let Some(span) = diagnostic.span else { return ((1, 1), (1, 1)) };
        if self.current.as_ref().is_none_or(|(path, _, _)| *path != diagnostic.path) {
            let checked = self.checked;
            self.current = checked
                .source(&diagnostic.path)
                .and_then(|f| f.text.as_deref().map(|text| (f.path.as_str(), text, LineIndex::new(text))));
        }
        match &self.current {
            Some((path, text, index)) if *path == diagnostic.path => {
                (index.position(text, span.start), index.position(text, span.end))
            }
            _ => ((1, 1), (1, 1)),
        }
    }
}

/// `path` of a checked folder as a report of several folders shows it: under `prefix/`, unless
/// it belongs to another scope (`~/…`, `<…>/…`) or `prefix` is empty.
pub fn path_under(prefix: &str, path: &str) -> String {
    let prefix = prefix.trim_end_matches('/');
    if prefix.is_empty() || path.starts_with("~/") || path.starts_with('<') {
        path.to_string()
    } else if path.is_empty() {
        prefix.to_string()
    } else {
        format!("{prefix}/{path}")
    }
}

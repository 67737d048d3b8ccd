//! `capc check`: finds every declaration root under a folder, reads each file once (in
//! parallel), and collects what is wrong.
//!
//! Discovery, in order: marketplaces (`.claude-plugin/marketplace.json`) name local plugin
//! folders; plugins are folders with `.claude-plugin/plugin.json` or named by a
//! marketplace; projects are folders with `.claude/` or `.mcp.json`; any `SKILL.md` left
//! unclaimed belongs to a skill collection. Each file is claimed once, by the first root
//! that reaches it, so a file is never read or counted twice.
//!
//! The driver, the results and the claims are here; `discovery.rs` finds the roots and claims
//! their files, `reading.rs` reads each claimed file, `placement.rs` says where a file sits
//! and whether a session here loads it, `cross.rs` holds the checks that relate files.

use crate::decl::{file_name, parent, Counts, FileKind, FileScope};
use crate::diagnostic::{Diagnostic, LineIndex, Severity, Sink};
use crate::model::{Decl, Item, ServerRef};
use crate::walk;
use discovery::check_root;
use placement::{locate_marketplaces, project_keys, Places, Realm};
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::Arc;

mod cache;
mod cross;
mod discovery;
pub mod instructions;
mod placement;
mod reading;

pub use cache::Cache;
pub use placement::locate;

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
    /// Read the instruction files of the `--add-dir` folders, as Claude Code does when
    /// `CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD` is set (the CLI reads that variable).
    pub add_dir_instructions: bool,
    /// Leave the sources' SHA-256 empty: for commands that write no lock (`check`, `ls`,
    /// `explain`, `graph`), hashing is most of the CPU time on a machine without SHA
    /// instructions.
    pub skip_hashes: bool,
    /// Leave [`Checked::sources`] empty: for `capc lsp`, which writes no lock and would copy
    /// an entry per file on every edit.
    pub skip_sources: bool,
    /// Leave local files (`settings.local.json`, `CLAUDE.local.md`) out of the declarations,
    /// instructions and sources (`capc lock` without `--include-local`, in a git work tree);
    /// they are still read and checked.
    pub leave_out_local: bool,
    /// Local files kept all the same, by path as the lock names them: those the git
    /// repository tracks (`diff::revision::tracked_local_files`), which every clone has.
    pub local_kept: Vec<String>,
    /// What the walk of the checked folder leaves out: ignore files and capc.toml's `exclude`
    /// (the extra scopes are read whole). Off by default in the library; the CLI turns it on.
    pub filter: walk::Filter,
    /// Rule severities and per-path ignores from capc.toml (`None`: every rule at its default).
    pub policy: Option<std::sync::Arc<crate::config::Policy>>,
    /// Ignore suppression comments and `per-path-ignores` (`--no-suppressions`, for audits).
    pub no_suppressions: bool,
    /// Where declaration texts are read: the disk, or an editor's buffers over it (`capc lsp`).
    pub texts: walk::Texts,
    /// Findings measured above the compiler once names are resolved (`listing-budget`, from the
    /// runtime's Skill listing); none by default.
    pub measure: Measures,
    /// The MCP tool surface the folder's `capabilities.lock` recorded (`capc lock --connect`),
    /// for `invalid-mcp-tool-name`; `None`: not checked (the library reads no lock itself).
    pub surface: Option<std::sync::Arc<crate::surface::Recorded>>,
    /// What a check may keep for the next one (`capc lsp`); `None`: nothing is kept.
    pub cache: Option<std::sync::Arc<Cache>>,
}

/// Findings a layer above the compiler measures on a resolved check: `capc check` hands the
/// runtime's Skill-listing measurement in here (ARCHITECTURE.md says why it lives there), so
/// its findings go through capc.toml's severities, per-path ignores, suppression comments and
/// baselines as every other finding does.
pub trait Measure: Send + Sync + std::fmt::Debug {
    /// The findings, given the check with its resolution set.
    fn findings(&self, checked: &Checked, options: &Options) -> Vec<Diagnostic>;
}

/// The [`Measure`]s a check runs after resolution (none by default).
#[derive(Clone, Default)]
pub struct Measures(pub Vec<std::sync::Arc<dyn Measure>>);

impl std::fmt::Debug for Measures {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.0.iter()).finish()
    }
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
    /// Shared: a kept reading (`check::Cache`) lends it to every check without a copy.
    pub text: Option<Arc<str>>,
    /// `walk::content_hash` of what was read: with a cache ([`Options::cache`]), so a keeper
    /// of results can tell an unchanged file without its text; without one, for a file whose
    /// text was dropped, so that the text read again ([`SourceFile::reread`]) is taken only
    /// when it is the one checked; 0 otherwise.
    pub stamp: u64,
    /// Where to read the text again, for a file whose text was dropped as clean and that a
    /// finding of the cross-file stage points into (a check from the disk, without a cache):
    /// [`SourceFile::text`] reads it when a report needs it, so the check holds a path, not
    /// the text.
    pub reread: Option<PathBuf>,
}

impl SourceFile {
    /// The file's text: the one kept, or (for a file whose text was dropped) the disk's, read
    /// again now, only when it is still the text that was checked (its [`SourceFile::stamp`]):
    /// a file replaced since, or a link put in its place, shows nothing rather than another
    /// file's lines. `None` when neither is at hand.
    pub fn text(&self) -> Option<Arc<str>> {
        if let Some(text) = &self.text {
            return Some(text.clone());
        }
        match walk::read(self.reread.as_deref()?) {
            walk::Content::Text(text) if walk::text_hash(&text) == self.stamp => Some(text.into()),
            _ => None,
        }
    }
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
    /// Every file read, with its content hash, sorted by path (empty with [`Options::skip_sources`]).
    pub sources: Vec<crate::model::Source>,
    /// Names and precedence resolved (set by [`check`]); shared with the cache that kept it.
    pub resolution: Option<Arc<crate::lock::resolve::Resolution>>,
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
    /// Where each MCP server is declared: `(name, file)` to the span of its name, for findings
    /// about what the server offers (set by [`check`]).
    pub server_spans: BTreeMap<(String, String), crate::span::Span>,
    /// With a cache: what the cross-file stage reads of this root (see `cache`).
    fingerprint: u64,
    /// Kept readings whose declarations are not in `decls` (see [`Checked::absorb_kept`]).
    kept: Vec<Arc<cache::Read>>,
    /// [`Options::skip_sources`]: `sources` stays empty.
    skip_sources: bool,
    /// The instruction files a session started in the checked folder reads, in the order
    /// Claude Code sends them (the lock's `[[instruction]]`).
    pub instructions: Vec<crate::model::Instruction>,
    /// The length of the text each instruction file sends, in UTF-16 code units (as Claude
    /// Code measures it), by path: for `large-instructions`.
    instruction_chars: std::collections::BTreeMap<String, usize>,
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
            server_spans: BTreeMap::new(),
            fingerprint: 0,
            kept: Vec::new(),
            skip_sources: false,
            instructions: Vec::new(),
            instruction_chars: Default::default(),
        }
    }

    /// Adds a kept reading of one file as [`Checked::absorb`] adds an outcome, but for its
    /// declarations, which stay in the reading until the cross-file stage needs them.
    fn absorb_kept(&mut self, read: Arc<cache::Read>) -> ServerUse {
        let outcome = &read.outcome;
        self.files_checked += 1;
        self.declarations += outcome.counts;
        self.diagnostics.extend(outcome.diagnostics.iter().cloned());
        self.files.extend(outcome.file.iter().map(|file| {
            let mut file = file.clone();
            if file.text.is_none() {
                file.text = read.text.get().cloned();
            }
            file
        }));
        if !self.skip_sources {
            self.sources.extend(outcome.source.iter().cloned());
        }
        self.suppressions.extend(outcome.suppressions.iter().cloned());
        self.not_loaded.extend(outcome.not_loaded.iter().cloned());
        // Most files declare and name no server: nothing to copy.
        let servers = match &outcome.servers {
            s if s.declared.is_empty() && s.named.is_empty() => ServerUse::default(),
            s => s.clone(),
        };
        self.kept.push(read);
        servers
    }

    /// Adds one file's outcome; returns the MCP servers it declares and names, for the
    /// cross-file check.
    fn absorb(&mut self, outcome: Outcome) -> ServerUse {
        self.files_checked += 1;
        self.declarations += outcome.counts;
        self.diagnostics.extend(outcome.diagnostics);
        self.files.extend(outcome.file);
        if !self.skip_sources {
            self.sources.extend(outcome.source);
        }
        self.decls.extend(outcome.decls);
        self.suppressions.extend(outcome.suppressions);
        self.not_loaded.extend(outcome.not_loaded);
        outcome.servers
    }

    /// The lock of this check (its sources and resolution).
    pub fn lock(&self) -> crate::model::Lock {
        let mut lock = match &self.resolution {
            Some(r) => crate::model::Lock::clone(&r.lock),
            None => crate::lock::resolve::empty_lock(),
        };
        lock.sources = self.sources.clone();
        lock.instructions = self.instructions.clone();
        lock
    }

    /// The resolved lock, shared with the resolution (no copy): without the sources, which
    /// [`Checked::lock`] adds.
    pub fn shared_lock(&self) -> Arc<crate::model::Lock> {
        match &self.resolution {
            Some(r) => r.lock.clone(),
            None => Arc::new(crate::lock::resolve::empty_lock()),
        }
    }

    /// The lock of this check, moved out of it (no copy unless a cache shares the resolution;
    /// `resolution` keeps the rest: the table, the graph).
    pub fn take_lock(&mut self) -> crate::model::Lock {
        let mut lock = match self.resolution.as_mut() {
            Some(r) => match Arc::get_mut(r) {
                Some(r) => {
                    Arc::unwrap_or_clone(std::mem::replace(&mut r.lock, Arc::new(crate::lock::resolve::empty_lock())))
                }
                None => crate::model::Lock::clone(&r.lock),
            },
            None => crate::lock::resolve::empty_lock(),
        };
        lock.sources = std::mem::take(&mut self.sources);
        lock.instructions = std::mem::take(&mut self.instructions);
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
    /// marketplace leave the session sound (the lock names those files), and so do errors
    /// Claude Code's loader survives ([`Checked::loaded_anyway`]).
    pub fn blocking_errors(&self) -> impl Iterator<Item = &Diagnostic> + '_ {
        self.loaded_errors().filter(|d| !d.loads_anyway)
    }

    /// The errors in what a session here loads that do not block `capc lock`: Claude Code's
    /// loader loads those files as they are (only its official validator rejects them).
    pub fn loaded_anyway(&self) -> impl Iterator<Item = &Diagnostic> + '_ {
        self.loaded_errors().filter(|d| d.loads_anyway)
    }

    /// The errors in files a session here loads.
    fn loaded_errors(&self) -> impl Iterator<Item = &Diagnostic> + '_ {
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

    /// Shows the paths of `--plugin-dir` folders outside the checked folder, which the lock
    /// writes as `<plugin-dir N>/…`, as the files' real paths, for reports a terminal, an
    /// editor and GitHub resolve: relative to `cwd` when below it, else absolute (always
    /// absolute with `absolute`). The lock and the baseline keep the placeholders.
    pub fn show_plugin_dirs(&mut self, options: &Options, cwd: &Path, absolute: bool) {
        if options.plugin_dirs.is_empty() {
            return;
        }
        let cwd = cwd.canonicalize().unwrap_or_else(|_| cwd.to_path_buf());
        let real = |path: &mut String| {
            if !path.starts_with("<plugin-dir ") {
                return;
            }
            let located = locate(options, path);
            let located = std::path::absolute(&located).unwrap_or(located);
            // The plugin's folder resolved (a `..` in the flag, a link), then the file in it.
            let file = match (located.parent().and_then(|p| p.canonicalize().ok()), located.file_name()) {
                (Some(dir), Some(name)) => dir.join(name),
                _ => located,
            };
            let shown = match file.strip_prefix(&cwd) {
                Ok(rel) if !absolute && !rel.as_os_str().is_empty() => rel.to_path_buf(),
                _ => file,
            };
            *path = shown.to_string_lossy().replace('\\', "/");
        };
        self.diagnostics.iter_mut().for_each(|d| real(&mut d.path));
        self.files.iter_mut().for_each(|f| real(&mut f.path));
        self.suppressed = std::mem::take(&mut self.suppressed)
            .into_iter()
            .map(|(mut p, n)| {
                real(&mut p);
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

    /// Reads now the texts a report would read again ([`SourceFile::reread`]): for a check
    /// whose folder goes away before its findings are compared (`--new-since`'s extracted
    /// revision).
    pub fn read_texts_now(&mut self) {
        for file in self.files.iter_mut().filter(|f| f.text.is_none() && f.reread.is_some()) {
            let text = file.text();
            file.text = text;
            file.reread = None;
        }
    }

    pub fn files_of(&self, kind: FileKind) -> usize {
        self.files.iter().filter(|f| f.kind == kind).count()
    }
    pub fn source(&self, path: &str) -> Option<&SourceFile> {
        self.files.binary_search_by(|f| f.path.as_str().cmp(path)).ok().map(|i| &self.files[i])
    }
}

/// `large-instructions`: each file sent at the start longer than Claude Code's per-file
/// threshold, and the largest of the others when they pass its total threshold together
/// (Claude Code with a context window of up to 200,000 tokens).
fn large_instructions(
    instructions: &[crate::model::Instruction],
    chars: &std::collections::BTreeMap<String, usize>,
) -> Vec<crate::diagnostic::Diagnostic> {
    const FILE: usize = 40_000;
    const TOTAL: usize = 120_000;
    let sized: Vec<(&str, usize)> = instructions
        .iter()
        .filter(|i| i.at_start() && i.key.is_none())
        .filter_map(|i| chars.get(&i.path).map(|n| (i.path.as_str(), *n)))
        .collect();
    let thousands = |n: usize| {
        let digits = n.to_string();
        let mut out = String::new();
        for (k, c) in digits.chars().enumerate() {
            if k > 0 && (digits.len() - k).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
        out
    };
    let mut out = Vec::new();
    for (path, n) in sized.iter().filter(|(_, n)| *n > FILE) {
        let mut sink = crate::diagnostic::Sink::new(path);
        sink.report(
            &crate::rules::large_instructions::RULE,
            None,
            format!(
                "`{path}` sends {} characters to the model in every turn; Claude Code warns past {}",
                thousands(*n),
                thousands(FILE)
            ),
        )
        .help("move what only some tasks need into rules with `paths:` or into skills, which load when needed");
        out.extend(sink.diagnostics);
    }
    let total: usize = sized.iter().filter(|(_, n)| *n <= FILE).map(|(_, n)| n).sum();
    if total > TOTAL {
        if let Some((path, _)) = sized.iter().filter(|(_, n)| *n <= FILE).max_by_key(|(_, n)| *n) {
            let mut sink = crate::diagnostic::Sink::new(path);
            sink.report(
                &crate::rules::large_instructions::RULE,
                None,
                format!("the instruction files sent at the start come to {} characters together, the largest this one; Claude Code warns past {}", thousands(total), thousands(TOTAL)),
            )
            .help("move what only some tasks need into rules with `paths:` or into skills, which load when needed");
            out.extend(sink.diagnostics);
        }
    }
    out
}

/// The `claudeMdExcludes` of the settings a session here reads: the project's, its local
/// settings (unless left out), the user's and the managed ones, in that order.
fn exclude_patterns(options: &Options) -> Vec<String> {
    let mut files: Vec<PathBuf> = vec![options.root.join(".claude/settings.json")];
    if !options.leave_out_local || options.local_kept.iter().any(|p| p == ".claude/settings.local.json") {
        files.push(options.root.join(".claude/settings.local.json"));
    }
    if let Some(home) = &options.user_dir {
        files.push(home.join(".claude/settings.json"));
    }
    if let Some(dir) = &options.managed_dir {
        files.push(dir.join("managed-settings.json"));
    }
    let mut patterns = Vec::new();
    for file in files {
        let walk::Content::Text(text) = options.texts.read(&file) else { continue };
        let Ok(settings) = serde_json::from_str::<serde_json::Value>(&text) else { continue };
        if let Some(list) = settings.get("claudeMdExcludes").and_then(serde_json::Value::as_array) {
            patterns.extend(list.iter().filter_map(|p| p.as_str().map(str::to_string)));
        }
    }
    patterns
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
    // With a cache: what each root's cross-file stage reads (see `cache`).
    let mut fingerprints: Vec<u64> = Vec::new();
    let excludes = instructions::Excludes::new(&exclude_patterns(options));
    for (dir, realm) in roots {
        match std::fs::metadata(&dir) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Err(CheckError::NotADirectory(dir)),
            Err(e) => return Err(CheckError::Unreadable(dir, e)),
        }
        let given: &[(usize, String)] = if realm == Realm::Project { &plugin_dirs_inside } else { &[] };
        let filter = if realm == Realm::Project { options.filter.clone() } else { walk::Filter::default() };
        let reading = discovery::Reading {
            filter: &filter,
            texts: &options.texts,
            cache: options.cache.as_deref(),
            skip_sources: options.skip_sources,
            loading: instructions::Loading { excludes: Some(&excludes), add_dirs: options.add_dir_instructions },
        };
        let one = check_root(&dir, realm, !options.skip_hashes, &project_keys, given, reading);
        fingerprints.push(one.fingerprint);
        all.files_checked += one.files_checked;
        all.suppressions.extend(one.suppressions);
        all.ignored += one.ignored;
        all.not_loaded.extend(one.not_loaded);
        all.files.extend(one.files);
        all.declarations += one.declarations;
        all.diagnostics.extend(one.diagnostics);
        all.decls.extend(one.decls);
        all.kept.extend(one.kept);
        all.sources.extend(one.sources);
        all.instructions.extend(one.instructions);
        all.instruction_chars.extend(one.instruction_chars);
    }
    // CLAUDE.local.md (and what it alone imports) is each user's own, as local settings are,
    // unless the repository tracks it ([`Options::local_kept`]).
    if options.leave_out_local {
        let mut kept: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
        let mut local: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
        for i in all.instructions.iter().filter(|i| i.scope == crate::model::Scope::Local) {
            let tracked = options.local_kept.contains(&i.path);
            if tracked || i.imported_by.as_ref().is_some_and(|by| kept.contains(by)) {
                kept.insert(i.path.clone());
            } else {
                local.insert(i.path.clone());
            }
        }
        all.instructions.retain(|i| i.scope != crate::model::Scope::Local || kept.contains(&i.path));
        let instructions = FileKind::Instructions.as_str();
        all.sources.retain(|s| !(s.kind == instructions && local.contains(&s.path)));
    }
    // Managed instructions are sent first, then the user's, the project's, the `--add-dir`
    // folders'; nested folders' files wait for a file below them.
    all.instructions.sort_by_key(|i| match i.scope {
        crate::model::Scope::Managed => 0,
        crate::model::Scope::User => 1,
        _ if i.path.starts_with("<add-dir ") => 3,
        _ => 2,
    });
    all.diagnostics.extend(large_instructions(&all.instructions, &all.instruction_chars));
    for (n, instruction) in all.instructions.iter_mut().enumerate() {
        instruction.order = u32::try_from(n + 1).unwrap_or(u32::MAX);
    }
    if options.leave_out_local {
        all.sources.retain(|s| !left_out_local(options, &s.path));
    }
    all.files.sort_by(|a, b| a.path.cmp(&b.path));
    all.sources.sort_by(|a, b| a.path.cmp(&b.path));
    // Kept readings: their declarations are copied in only if the cross-file stage runs.
    let kept = std::mem::take(&mut all.kept);
    let later = match options.cache.as_deref() {
        None => {
            settle_decls(options, &mut all, &kept);
            cross_stage(options, &mut all)
        }
        Some(cache) => {
            let mut h = cache::hasher();
            cache::hash_debug(
                &(
                    (&options.root, &options.user_dir, &options.managed_dir, &options.add_dirs, &options.plugin_dirs),
                    (options.skip_hashes, options.leave_out_local, &options.local_kept, options.no_suppressions),
                    (&options.filter, &options.policy, &options.measure, &options.surface),
                ),
                &mut h,
            );
            fingerprints.hash(&mut h);
            let key = h.finish();
            match cache.cross(key) {
                Some(kept) => {
                    all.decls.clear();
                    all.not_loaded = kept.not_loaded.clone();
                    all.refused_asked = kept.refused_asked.clone();
                    all.plugin_roots = kept.plugin_roots.clone();
                    all.unloaded_plugins = kept.unloaded_plugins.clone();
                    all.server_spans = kept.server_spans.clone();
                    all.resolution = Some(kept.resolution.clone());
                    kept.later.clone()
                }
                None => {
                    settle_decls(options, &mut all, &kept);
                    let later = cross_stage(options, &mut all);
                    // Not when a read failed for a cancelled source: the stage may lack
                    // what it could not read, under the key of the real texts.
                    if let Some(resolution) = all.resolution.as_ref().filter(|_| !options.texts.cancelled()) {
                        cache.keep_cross(
                            key,
                            Arc::new(cache::Cross {
                                resolution: resolution.clone(),
                                later: later.clone(),
                                not_loaded: all.not_loaded.clone(),
                                refused_asked: all.refused_asked.clone(),
                                plugin_roots: all.plugin_roots.clone(),
                                unloaded_plugins: all.unloaded_plugins.clone(),
                                server_spans: all.server_spans.clone(),
                            }),
                        );
                    }
                    later
                }
            }
        }
    };
    // Findings of the resolver and the measures may point into files whose text was dropped
    // as clean.
    // (`later` is sorted by path, as `files` is: one pass over both.) A check from the disk
    // without a cache notes where to read such a text again when a report needs it (a large
    // tree may have tens of thousands of them); otherwise the text is read here and lent to
    // the kept reading of its file, for the next checks.
    let reread = options.cache.is_none() && options.texts.is_disk();
    let mut lent: BTreeMap<&str, Arc<str>> = BTreeMap::new();
    let mut at = 0;
    for d in later.iter().filter(|d| d.span.is_some()) {
        while at < all.files.len() && all.files[at].path < d.path {
            at += 1;
        }
        let Some(file) = all.files.get_mut(at).filter(|f| f.path == d.path && f.text.is_none()) else { continue };
        if reread {
            if file.reread.is_none() {
                file.reread = Some(locate(options, &d.path));
            }
            continue;
        }
        if let walk::Content::Text(text) = options.texts.read(&locate(options, &d.path)) {
            let text: Arc<str> = text.into();
            file.text = Some(text.clone());
            lent.insert(&d.path, text);
        }
    }
    if !lent.is_empty() {
        for read in &kept {
            if let Some(text) = read.outcome.file.as_ref().and_then(|f| lent.get(f.path.as_str())) {
                let _ = read.text.set(text.clone());
            }
        }
    }
    drop(lent);
    drop(kept);
    all.diagnostics.extend(later);
    apply_policy(options, &mut all);
    sort_diagnostics(&mut all.diagnostics);
    Ok(all)
}

/// Whether the file at `path` (as the lock names it) is local settings a check asked to leave
/// out ([`Options::leave_out_local`], less [`Options::local_kept`]).
fn left_out_local(options: &Options, path: &str) -> bool {
    crate::lock::write::is_local_file(path) && !options.local_kept.iter().any(|kept| kept == path)
}

/// The declarations the cross-file stage reads: those of kept readings copied in, local
/// settings left out when asked, in a stable order whatever order the parallel reads finished
/// in (a file's own declarations keep theirs).
fn settle_decls(options: &Options, all: &mut Checked, kept: &[Arc<cache::Read>]) {
    for read in kept {
        all.decls.extend(read.outcome.decls.iter().cloned());
    }
    if options.leave_out_local {
        all.decls.retain(|d| !left_out_local(options, &d.path));
    }
    all.decls.sort_by(|a, b| (&a.path, a.span.map(|s| s.start)).cmp(&(&b.path, b.span.map(|s| s.start))));
}

/// The cross-file stage of a check: what is loaded, name resolution, the findings that relate
/// files, the measures. Reads `all`'s declarations (moved into the resolution) and files;
/// returns the findings it makes, sorted (see `cache` for what a cache keys it by).
fn cross_stage(options: &Options, all: &mut Checked) -> Vec<Diagnostic> {
    locate_marketplaces(options, &mut all.decls);
    undeclared_marketplaces(all);
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
    // Where each server is declared, for findings about what it offers.
    all.server_spans = all
        .decls
        .iter()
        .filter_map(|d| match &d.item {
            Item::Server(s) => Some(((s.name.clone(), d.path.clone()), d.span?)),
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
    let mut later = resolution.diagnostics.clone();
    if let Some(recorded) = options.surface.as_deref().filter(|r| !r.tools.is_empty()) {
        later.extend(crate::surface::name_findings(recorded, &resolution.lock, &all.server_spans));
    }
    all.resolution = Some(Arc::new(resolution));
    for measure in &options.measure.0 {
        later.extend(measure.findings(all, options));
    }
    // By path (then as the report sorts them), so their files are found in one pass.
    sort_diagnostics(&mut later);
    later
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
    // What the comments hid, by file (counted only when there are comments).
    let mut gone: BTreeMap<String, usize> = BTreeMap::new();
    if !all.suppressions.is_empty() {
        let runs = |rule: &str| policy.is_none_or(|p| p.severity(rule, crate::diagnostic::Severity::Info).is_some());
        let before: BTreeMap<String, usize> =
            count_by_path(&all.diagnostics).into_iter().map(|(p, n)| (p.to_string(), n)).collect();
        let (_, mut about) = crate::suppress::apply(&mut all.diagnostics, &all.suppressions, runs);
        let after = count_by_path(&all.diagnostics);
        for (path, n) in before {
            let hidden = n - after.get(path.as_str()).copied().unwrap_or(0);
            if hidden > 0 {
                gone.insert(path, hidden);
            }
        }
        grade(&mut about);
        per_path(&mut about);
        all.diagnostics.extend(about);
    }
    all.suppressed = count_by_path(&suppressed).into_iter().map(|(p, n)| (p.to_string(), n)).collect();
    for (path, n) in gone {
        *all.suppressed.entry(path).or_default() += n;
    }
}

fn count_by_path(diagnostics: &[Diagnostic]) -> BTreeMap<&str, usize> {
    let mut counts = BTreeMap::new();
    for d in diagnostics {
        *counts.entry(d.path.as_str()).or_default() += 1;
    }
    counts
}

/// Who a file belongs to.
#[derive(Debug, Clone, Hash)]
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

#[derive(Debug, Clone, Hash)]
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

#[derive(Clone)]
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
    /// With a cache: what the cross-file stage may point into (`cache::text_head`); 0 without
    /// a cache, or when there is no text.
    head: u64,
}

#[derive(Debug, Clone, Default)]
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
            head: 0,
        }
    }
}

/// Turns diagnostics' spans into 1-based (line, column) pairs. Diagnostics come sorted by
/// path, so the line index of a file is built once and reused for all of its findings.
pub struct Positions<'a> {
    checked: &'a Checked,
    current: Option<(&'a str, Arc<str>, LineIndex)>,
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
                .and_then(|f| f.text().map(|text| (f.path.as_str(), text.clone(), LineIndex::new(&text))));
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

#[cfg(test)]
mod tests {
    /// A clean file a cross-file finding points into is read again for the report: a file put
    /// in its place since the check (here a link to a file outside the folder) shows nothing,
    /// never the other file's lines.
    #[cfg(unix)]
    #[test]
    fn a_text_read_again_is_taken_only_when_it_is_the_one_checked() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("repo");
        let write = |rel: &str, text: &str| {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("folder");
            std::fs::write(path, text).expect("write");
        };
        write(".claude/commands/deploy.md", "---\ndescription: Deploy it\n---\nhello\n");
        write(".claude/skills/deploy/SKILL.md", "---\nname: deploy\ndescription: Deploy skill\n---\nhi\n");
        let outside = dir.path().join("secret.txt");
        std::fs::write(&outside, "---\nOUTSIDE-SECRET line two\n---\nhello\n").expect("write");
        let checked = super::check(&super::Options { root: root.clone(), ..Default::default() }).expect("check");
        let file = checked.source(".claude/commands/deploy.md").expect("the command's file");
        assert!(
            checked.diagnostics.iter().any(|d| d.path == file.path && d.span.is_some()),
            "{:?}",
            checked.diagnostics
        );
        assert!(file.text().is_some_and(|t| t.contains("Deploy it")), "the unchanged file is read again");
        let command = root.join(".claude/commands/deploy.md");
        std::fs::remove_file(&command).expect("remove");
        std::os::unix::fs::symlink(&outside, &command).expect("link");
        assert_eq!(file.text(), None, "another file's text was taken for the checked one");
        std::fs::remove_file(&command).expect("remove");
        std::fs::write(&command, "---\ndescription: Changed\n---\nhello\n").expect("write");
        assert_eq!(file.text(), None, "a file changed since the check was taken for the checked one");
    }
}

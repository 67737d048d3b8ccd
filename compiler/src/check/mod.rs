//! `capc check`: finds every declaration root under a folder, reads each file once (in
//! parallel), and collects what is wrong.
//!
//! Discovery, in order: marketplaces (`.claude-plugin/marketplace.json`) name local plugin
//! folders; plugins are folders with `.claude-plugin/plugin.json` or named by a
//! marketplace; projects are folders with `.claude/` or `.mcp.json`; any `SKILL.md` left
//! unclaimed belongs to a skill collection. Each file is claimed once, by the first root
//! that reaches it, so a file is never read or counted twice.
//!
//! The driver and the claims are here; `checked.rs` holds the results, `stages.rs` the steps
//! after resolution (the cross checks, capc.toml's policy), `discovery.rs` finds the roots and
//! claims their files, `reading.rs` reads each claimed file, `placement.rs` says where a file
//! sits and whether a session here loads it, `cross.rs` holds the checks that relate files.

use crate::decl::{Counts, FileKind, FileScope};
use crate::diagnostic::{Diagnostic, Sink};
use crate::model::{Decl, ServerRef};
use crate::walk;
use discovery::check_root;
use placement::{project_keys, Realm};
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::sync::Arc;

mod cache;
mod checked;
mod cross;
mod discovery;
pub mod instructions;
mod placement;
mod reading;
mod stages;

pub use cache::Cache;
use checked::sort_diagnostics;
pub use checked::{Checked, Positions, SourceFile};
pub use placement::locate;
use stages::{apply_policy, cross_stage, exclude_patterns, large_instructions, left_out_local, settle_decls};

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

/// Who a file belongs to. Every file of a plugin or project claims the same owner: its
/// strings are shared, not copied per file.
#[derive(Debug, Clone, Hash)]
struct Owner {
    scope: FileScope,
    plugin_root: Option<Arc<str>>,
    /// The plugin's namespace (`plugin.json` name, else the marketplace entry's, else the folder).
    plugin_name: Option<Arc<str>>,
    project_root: Option<Arc<str>>,
}

impl Owner {
    fn plugin(root: &str, name: &str) -> Owner {
        Owner {
            scope: FileScope::Plugin,
            plugin_root: Some(root.into()),
            plugin_name: Some(name.into()),
            project_root: None,
        }
    }
    fn project(scope: FileScope, root: &str) -> Owner {
        Owner { scope, plugin_root: None, plugin_name: None, project_root: Some(root.into()) }
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
        // Most files neither declare nor name a server: they keep no copy of their path for it
        // (as a kept reading gives none, `Checked::absorb_kept`).
        let servers = if sink.declared_servers.is_empty() && sink.server_refs.is_empty() {
            ServerUse::default()
        } else {
            ServerUse {
                path: sink.path().to_string(),
                plugin: plugin.map(str::to_string),
                declared: sink.declared_servers,
                named: sink.server_refs,
            }
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

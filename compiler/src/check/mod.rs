//! `capc check`: finds every declaration root under a folder, reads each file once (in
//! parallel), and collects what is wrong.
//!
//! Discovery, in order: marketplaces (`.claude-plugin/marketplace.json`) name local plugin
//! folders; plugins are folders with `.claude-plugin/plugin.json` or named by a
//! marketplace; projects are folders with `.claude/` or `.mcp.json`; any `SKILL.md` left
//! unclaimed belongs to a skill collection. Each file is claimed once, by the first root
//! that reaches it, so a file is never read or counted twice.
//!
//! A check is a pipeline of stages, each in its own module, each handing the next a value:
//! walk (`walk.rs`: the roots, each listed, [`walk::Walked`]) → claim (`claim/`: which file is
//! what, `Discovered`) → read (`read/`, `instructions/`: each claimed file read by the reader
//! of its kind, `read::Readings`) → cross-check (`cross.rs`: what relates files, resolution,
//! the measures, `cross::Crossed`) → policy (`policy.rs`: capc.toml and suppression comments,
//! `policy::Policed`) → report (`report.rs`: the texts a report shows, the findings in order,
//! [`Checked`]). Below them: this file (the options, the claims, each file's `Outcome`),
//! `placement.rs` (where a file sits and whether a session here loads it), `load.rs` (a
//! file's text and JSON), `cache.rs` (what a check keeps for the next; it wraps whole stages)
//! and `checked.rs` (the results).

use crate::decl::{Counts, FileKind, FileScope};
use crate::diagnostic::{Diagnostic, Sink};
use crate::model::{Decl, ServerRef};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

mod cache;
mod checked;
mod claim;
mod cross;
pub mod instructions;
mod load;
mod placement;
mod policy;
mod read;
mod report;
mod walk;

pub use cache::Cache;
pub use checked::{Checked, Positions};
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
    /// The folder of `root` Claude Code starts in (`capc session --cwd`), relative and
    /// normalized (`a/b`); empty: `root` itself. Started below `root`, the project's settings
    /// are that folder's own `.claude/settings.json` and `settings.local.json` (those of the
    /// folders above it are not read), and the skills, commands and agents of every `.claude/`
    /// from it up to `root` load, the nearer folder's skills first.
    pub start: String,
    /// Read the instruction files of the `--add-dir` folders, as Claude Code does when
    /// `CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD` is set (the CLI reads that variable).
    pub add_dir_instructions: bool,
    /// Leave the sources' SHA-256 empty: for commands that write no lock (`check`, `ls`,
    /// `explain`, `graph`), hashing is most of the CPU time on a machine without SHA
    /// instructions.
    pub skip_hashes: bool,
    /// For commands that write no lock (`capc check`, `capc lsp`): leave [`Checked::sources`]
    /// empty (an entry per file, copied on every edit in `capc lsp`), and do not resolve each
    /// plugin a marketplace lists as installed alone (the lock's `[[marketplace_plugin]]`
    /// components; no finding reads them).
    pub skip_sources: bool,
    /// What the caller reads of the resolution ([`Checked::resolution`]): on a large tree it
    /// is most of what a check holds once its files are read, so what no one reads goes as
    /// soon as the findings are made.
    pub keeps: Keeps,
    /// Leave local files (`settings.local.json`, `CLAUDE.local.md`) out of the declarations,
    /// instructions and sources (`capc lock` without `--include-local`, in a git work tree);
    /// they are still read and checked.
    pub leave_out_local: bool,
    /// Local files kept all the same, by path as the lock names them: those the git
    /// repository tracks (`diff::revision::tracked_local_files`), which every clone has.
    pub local_kept: Vec<String>,
    /// What the walk of the checked folder leaves out: ignore files and capc.toml's `exclude`
    /// (the extra scopes are read whole). Off by default in the library; the CLI turns it on.
    pub filter: crate::walk::Filter,
    /// Rule severities and per-path ignores from capc.toml (`None`: every rule at its default).
    pub policy: Option<std::sync::Arc<crate::config::Policy>>,
    /// Ignore suppression comments and `per-path-ignores` (`--no-suppressions`, for audits).
    pub no_suppressions: bool,
    /// Where declaration texts are read: the disk, or an editor's buffers over it (`capc lsp`).
    pub texts: crate::walk::Texts,
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

/// What a check's caller reads of its resolution ([`Options::keeps`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Keeps {
    /// All of it: the lock, the command table, the tools and the graph (`capc ls`, `explain`,
    /// `graph`).
    #[default]
    Everything,
    /// The command table and the lock without its skills and commands (`capc lsp`'s hovers,
    /// completions, definitions and references read the table for those): the tools, the
    /// graph and the plugins' inventories are freed once the findings are made, the lock's
    /// commands once the measures have read them, and the resolver's findings are moved into
    /// the check's, not copied.
    Table,
    /// The lock only (`capc lock`, `capc serve`'s fresh check, `capc diff` of a revision):
    /// the command table, the tools and the graph are freed once the findings are made.
    Lock,
    /// The findings and the files only (`capc check`): the lock is kept while the measures
    /// read it, the rest freed before they run; then the lock too, before the findings are
    /// policed and sorted.
    Findings,
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

/// `capc check`'s pipeline: each stage takes the value the one before it made and hands the
/// next its own; none calls back into an earlier one (`tests/it/schema/layers.rs` holds them to
/// the order ARCHITECTURE.md lists).
pub fn check(options: &Options) -> Result<Checked, CheckError> {
    let roots = walk::roots(options)?;
    let reading = read::Reading::new(options);
    let mut each_root = Vec::with_capacity(roots.len());
    for root in roots {
        let walked = walk::walk(root, options);
        let claimed = claimed(&walked, options.cache.as_deref());
        each_root.push(read::read(walked, claimed, &reading));
    }
    let readings = read::gather(options, each_root);
    let mut crossed = cross::cross(options, readings);
    if options.keeps == Keeps::Findings {
        crossed.all.resolution = None;
    }
    let policed = policy::police(options, crossed);
    Ok(report::report(options, policed))
}

/// The claim stage of a root, wrapped by the cache (when there is one): kept while the root's
/// listing and manifests are as they were.
fn claimed(walked: &walk::Walked, cache: Option<&Cache>) -> Arc<cache::Discovered> {
    let Some((cache, listing)) = cache.zip(walked.listing) else {
        return Arc::new(claim::claim(walked, false));
    };
    let root = cache::Root {
        dir: &walked.dir,
        tree: &walked.tree,
        realm: walked.realm,
        hash: walked.hash,
        listing,
        project_keys: &[],
    };
    let key = cache::claim_key(&root, &walked.plugin_dirs);
    cache.discovered(&walked.dir, walked.realm, key, &walked.tree.texts, || claim::claim(walked, true))
}

/// Who a file belongs to. Every file of a plugin or project claims the same owner, shared
/// (one pointer per claim, not its strings copied per file: a large tree has a claim per file).
#[derive(Debug, Clone, Hash)]
struct Owner(Arc<Owned>);

#[derive(Debug, Clone, Hash)]
struct Owned {
    scope: FileScope,
    plugin_root: Option<Arc<str>>,
    /// The plugin's namespace (`plugin.json` name, else the marketplace entry's, else the folder).
    plugin_name: Option<Arc<str>>,
    project_root: Option<Arc<str>>,
}

impl std::ops::Deref for Owner {
    type Target = Owned;
    fn deref(&self) -> &Owned {
        &self.0
    }
}

impl Owner {
    fn plugin(root: &str, name: &str) -> Owner {
        Owner(Arc::new(Owned {
            scope: FileScope::Plugin,
            plugin_root: Some(root.into()),
            plugin_name: Some(name.into()),
            project_root: None,
        }))
    }
    fn project(scope: FileScope, root: &str) -> Owner {
        Owner(Arc::new(Owned { scope, plugin_root: None, plugin_name: None, project_root: Some(root.into()) }))
    }
    fn bare(scope: FileScope) -> Owner {
        Owner(Arc::new(Owned { scope, plugin_root: None, plugin_name: None, project_root: None }))
    }
}

#[derive(Debug, Clone, Hash)]
struct Claim {
    kind: FileKind,
    owner: Owner,
    /// For commands and agents: the folder their names are relative to (shared by the files
    /// of one folder).
    base: Option<Arc<str>>,
}

struct Claims(BTreeMap<String, Claim>);

impl Claims {
    /// The claims as Claude Code started in `start` (a folder below the checked one) loads
    /// them: the `.claude/` of each folder from `start` up to the checked one is the project's
    /// (its skills, commands and agents load), but for settings, which only `start`'s own
    /// `.claude/` holds.
    fn started_in(&self, start: &str) -> Claims {
        let on_path = |root: &str| root.is_empty() || root == start || start.starts_with(&format!("{root}/"));
        let mut out = BTreeMap::new();
        for (rel, claim) in &self.0 {
            let mut claim = claim.clone();
            if claim.owner.scope == FileScope::Project {
                if let Some(root) = claim.owner.project_root.clone().filter(|r| on_path(r)) {
                    if claim.kind == FileKind::Settings && &*root != start {
                        continue;
                    }
                    Arc::make_mut(&mut claim.owner.0).project_root = Some(Arc::from(""));
                }
            }
            out.insert(rel.clone(), claim);
        }
        Claims(out)
    }
}

impl Claims {
    /// The claims the read stage reads, in their order (by path): all but the marketplaces'
    /// and plugins' manifests, which the claim stage read.
    fn read_in_order(&self) -> impl Iterator<Item = (&String, &Claim)> {
        self.0.iter().filter(|(_, claim)| !matches!(claim.kind, FileKind::Marketplace | FileKind::PluginManifest))
    }

    /// The first claim on a path wins.
    fn add(&mut self, rel: &str, kind: FileKind, owner: &Owner, base: Option<&Arc<str>>) {
        self.0.entry(rel.to_string()).or_insert_with(|| Claim { kind, owner: owner.clone(), base: base.cloned() });
    }
}

/// A file that was read, with its text for rendering positions.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// The path shown to people: relative to the root, `~/…` for the user scope,
    /// `<managed>/…` for the managed scope.
    pub path: Box<str>,
    pub kind: FileKind,
    pub scope: FileScope,
    /// For skills, commands and agents: the name Claude Code gives it (`plugin:name`,
    /// `frontend:component`, …).
    pub name: Option<Box<str>>,
    /// The SHA-256 of its bytes when hashes are taken ([`Options::skip_hashes`] not set), for
    /// its entry in the lock's list of sources ([`Checked::sources`], made from the files at
    /// the end of a check: a large tree's files would otherwise hold both while read).
    pub(crate) sha256: Option<Box<[u8; 32]>>,
    /// Left out of the list of sources (a `CLAUDE.local.md` the lock leaves out).
    pub(crate) unlisted: bool,
    /// The text, kept only for files something may be reported in (to render the report);
    /// the text of a clean file is dropped as soon as it is read, so memory stays flat.
    /// Shared: a kept reading (`check::Cache`) gives it to every check without a copy.
    pub text: Option<Arc<str>>,
    /// `walk::content_hash` of what was read: with a cache ([`Options::cache`]), so a keeper
    /// of results can tell an unchanged file without its text; without one, for a file whose
    /// text was dropped, so that the text read again ([`SourceFile::reread`]) is taken only
    /// when it is the one checked; 0 otherwise.
    pub stamp: u64,
    /// Where to read the text again, for a file whose text was dropped as clean and that a
    /// finding of the cross-file stage points into (a check from the disk, or one with a
    /// cache): [`SourceFile::text`] reads it when a report needs it, so the check holds a
    /// path, not the text. Set once, through a shared file: a kept reading's file is the
    /// same one in every check that takes it (`check::Cache`), and keeps where it was found.
    pub(crate) reread: once_cell::race::OnceBox<std::path::PathBuf>,
}

impl SourceFile {
    /// The file's text: the one kept, or (for a file whose text was dropped) the disk's, read
    /// again now, only when it is still the text that was checked (its [`SourceFile::stamp`]):
    /// a file replaced since, or a link put in its place, shows nothing rather than another
    /// file's lines. `None` when neither is at hand.
    pub fn text(&self) -> Option<Arc<str>> {
        self.text_in(&crate::walk::Texts::default())
    }

    /// [`SourceFile::text`], a dropped text read again from `texts` (the check's
    /// [`Options::texts`]: `capc lsp`'s open buffers over the disk).
    pub fn text_in(&self, texts: &crate::walk::Texts) -> Option<Arc<str>> {
        if let Some(text) = &self.text {
            return Some(text.clone());
        }
        match texts.read(self.reread.get()?.as_path()) {
            crate::walk::Content::Text(text) if crate::walk::text_hash(&text) == self.stamp => Some(text.into()),
            _ => None,
        }
    }
}

#[derive(Clone)]
struct Outcome {
    file: Option<SourceFile>,
    decls: Vec<Decl>,
    counts: Counts,
    diagnostics: Vec<Diagnostic>,
    /// The MCP servers the file declares and the ones its rules name; `None` for the many
    /// files that declare and name none. The rare fields are boxed: a cache keeps one
    /// `Outcome` per file.
    servers: Option<Box<ServerUse>>,
    suppressions: Vec<crate::suppress::Suppression>,
    /// The file, when a session started in the checked folder does not load it, and why.
    not_loaded: Option<Box<(String, String)>>,
    /// The plugin (its root, as shown) Claude Code refuses to load because of this file, and why.
    skips_plugin: Option<Box<(String, String)>>,
    /// With a cache: what the cross-file stage may point into (`cache::text_head`); 0 without
    /// a cache, or when there is no text.
    head: u64,
    /// The reading hashed another file's bytes (a script its hooks, servers or `!` injections
    /// run): it depends on more than its own text, so a cache never takes it again.
    reads_others: bool,
    /// The reader asked whether other paths are files or folders (`decl::Listing`): the
    /// reading depends on the folder's listing, which a cache keys it by.
    reads_listing: bool,
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
    /// `file` carries the file's hash, taken while its text was at hand (a clean file's text
    /// is dropped).
    fn new(sink: Sink<'_>, file: Option<SourceFile>, counts: Counts, plugin: Option<&str>) -> Outcome {
        // Most files neither declare nor name a server: they keep no copy of their path for it
        // (as a kept reading gives none, `Checked::absorb_kept`).
        let servers = if sink.declared_servers.is_empty() && sink.server_refs.is_empty() {
            None
        } else {
            Some(Box::new(ServerUse {
                path: sink.path().to_string(),
                plugin: plugin.map(str::to_string),
                declared: sink.declared_servers,
                named: sink.server_refs,
            }))
        };
        Outcome {
            file,
            decls: sink.decls,
            counts,
            diagnostics: sink.diagnostics,
            servers,
            suppressions: Vec::new(),
            not_loaded: None,
            skips_plugin: None,
            head: 0,
            reads_others: false,
            reads_listing: false,
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

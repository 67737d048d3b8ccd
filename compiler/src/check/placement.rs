//! Where a file sits: the realm it was found in (the checked folder, a user or managed scope,
//! an added folder), its `Placement`, and why a session started in the checked folder does not
//! load it.

use super::{Claim, Options};
use crate::decl::{file_name, parent, FileKind, FileScope};
use crate::model::{Decl, Item, Placement};
use std::path::{Path, PathBuf};

/// The absolute paths of shown paths, for matching capc.toml's patterns.
pub(super) struct Places<'o> {
    options: &'o Options,
    root: PathBuf,
}

impl<'o> Places<'o> {
    pub(super) fn new(options: &'o Options) -> Places<'o> {
        let root = options.root.canonicalize().unwrap_or_else(|_| options.root.clone());
        Places { options, root }
    }
    pub(super) fn absolute(&self, shown: &str) -> PathBuf {
        if shown.starts_with("~/") || shown.starts_with('<') {
            let path = locate(self.options, shown);
            return std::path::absolute(&path).unwrap_or(path);
        }
        self.root.join(shown)
    }
}

/// Where each `extraKnownMarketplaces` directory source points, as a folder this check reads.
pub(super) fn locate_marketplaces(options: &Options, decls: &mut [Decl]) {
    let mut realms: Vec<(PathBuf, Realm)> = vec![(options.root.clone(), Realm::Project)];
    realms.extend(options.user_dir.iter().map(|d| (d.clone(), Realm::User)));
    realms.extend(options.managed_dir.iter().map(|d| (d.clone(), Realm::Managed)));
    let realms: Vec<(PathBuf, Realm)> =
        realms.into_iter().filter_map(|(d, r)| d.canonicalize().ok().map(|d| (d, r))).collect();
    for d in decls.iter_mut() {
        let Item::KnownMarketplace(known) = &mut d.item else { continue };
        let crate::model::decl::KnownMarketplace { path: Some(path), location, .. } = &mut **known else { continue };
        // Claude Code loads nothing through a relative `path` (measured): only an
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
pub(super) fn project_keys(root: &Path) -> Vec<String> {
    let mut keys: Vec<String> = [std::path::absolute(root).ok(), root.canonicalize().ok()]
        .into_iter()
        .flatten()
        .map(|p| p.to_string_lossy().trim_end_matches('/').to_string())
        .filter(|k| !k.is_empty())
        .collect();
    keys.dedup();
    keys
}

/// Whether `rel` is a plugin's or marketplace's manifest: `name` in a `.claude-plugin/` folder.
pub(super) fn is_manifest(rel: &str, name: &str) -> bool {
    file_name(rel) == name && file_name(parent(rel)) == ".claude-plugin"
}

/// Which folder a walk covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Realm {
    Project,
    User,
    Managed,
    /// The n-th `--add-dir` (from 1).
    AddDir(usize),
    /// The n-th `--plugin-dir` (from 1) outside the checked folder.
    PluginDir(usize),
}

impl Realm {
    pub(super) fn display(self, rel: &str) -> String {
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
pub(super) fn placement<'c>(realm: Realm, rel: &str, claim: &'c Claim) -> Option<Placement<'c>> {
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
pub(super) fn not_loaded_because(realm: Realm, rel: &str, claim: &Claim) -> Option<String> {
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

/// Whether the file at `path` (as the lock names it) is local settings a check asked to leave
/// out ([`Options::leave_out_local`], less [`Options::local_kept`]).
pub(super) fn left_out_local(options: &Options, path: &str) -> bool {
    crate::lock::write::is_local_file(path) && !options.local_kept.iter().any(|kept| kept == path)
}

//! Discovery: the declaration roots under a folder (marketplaces, plugins, projects, skill
//! collections) and the claim on each of their files, then reading every claimed file once.

use super::cache::{Discovered, Read};
use super::cross::{cross_check_entries, is_manifest, undeclared_servers, walk_problems};
use super::placement::Realm;
use super::reading::{read_claim, read_json};
use super::{Cache, Checked, Claim, Claims, Outcome, Owner, ServerUse};
use crate::decl::marketplace::{self, EntryInfo};
use crate::decl::plugin::{self, PluginInfo};
use crate::decl::{file_name, join_rel, manifest, parent, Counts, FileCx, FileKind, FileScope};
use crate::diagnostic::{report_at, Diagnostic, Severity};
use crate::model::{Decl, Item};
use crate::walk::Tree;
use crate::{rules, walk};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::path::Path;
use std::sync::Arc;

/// Where a root's files are read from, and what may be kept between checks.
pub(super) struct Reading<'a> {
    pub(super) filter: &'a walk::Filter,
    pub(super) texts: &'a walk::Texts,
    pub(super) cache: Option<&'a Cache>,
    /// [`Options::skip_sources`](super::Options).
    pub(super) skip_sources: bool,
    /// What else decides which instruction files load.
    pub(super) loading: super::instructions::Loading<'a>,
    /// [`Options::start`](super::Options): the folder Claude Code starts in.
    pub(super) start: &'a str,
}

pub(super) fn check_root(
    dir: &Path,
    realm: Realm,
    hash: bool,
    project_keys: &[String],
    plugin_dirs: &[(usize, String)],
    reading: Reading<'_>,
) -> Checked {
    let Reading { filter, texts, cache, skip_sources, loading, start } = reading;
    let listed = match cache {
        Some(cache) => cache.walk(dir, filter),
        None => walk::walk_filtered(dir, filter),
    };
    let mut tree = listed;
    tree.texts = texts.clone();
    tree.add_unsaved(dir);
    if let Realm::AddDir(_) = realm {
        return check_added_dir(dir, &tree, realm, hash, cache, skip_sources, &loading);
    }
    // With a cache: the listing's fingerprint, a key of discovery and of every file's reading.
    let listing = cache.map(|_| tree.fingerprint());
    let discovered = match cache.zip(listing) {
        None => Arc::new(discover(dir, &tree, realm, hash, plugin_dirs, false)),
        Some((cache, listing)) => {
            // What discovery reads: the listing and the manifests' texts.
            let mut h = super::cache::hasher();
            (dir, realm, hash, plugin_dirs, listing).hash(&mut h);
            for rel in tree.files.iter().filter(|f| is_manifest(f, "marketplace.json") || is_manifest(f, "plugin.json"))
            {
                let path = dir.join(rel);
                let stamp = tree.texts.stamp(&path).unwrap_or_else(|| walk::content_hash(&tree.texts.read(&path)));
                (rel, stamp).hash(&mut h);
            }
            cache.discovered(dir, realm, h.finish(), &tree.texts, || {
                discover(dir, &tree, realm, hash, plugin_dirs, true)
            })
        }
    };
    let Discovered { claims, outcomes, diagnostics, counts, plugin_decls, fingerprint } = &*discovered;
    // Started below the checked folder: the folders on the way are the project's.
    let started = (realm == Realm::Project && !start.is_empty()).then(|| claims.started_in(start));
    let claims = started.as_ref().unwrap_or(claims);
    let (outcomes, diagnostics, counts, plugin_decls) =
        (outcomes.clone(), diagnostics.clone(), *counts, plugin_decls.clone());

    // With a cache, what the cross-file stage reads of each file, in order, for its key
    // (discovery's own part hashed once, when it was made).
    let mut fingerprints: Vec<u64> = match cache {
        Some(_) => vec![*fingerprint],
        None => Vec::new(),
    };
    let claimed: Vec<(&String, &Claim)> = claims
        .0
        .iter()
        .filter(|(_, claim)| !matches!(claim.kind, FileKind::Marketplace | FileKind::PluginManifest))
        .collect();
    let keyed = cache.zip(listing).filter(|_| started.is_none()).map(|(cache, listing)| Keyed {
        cache,
        listing,
        root: Some(&discovered),
    });
    let parsed = read_claims(dir, &tree, &claimed, realm, hash, project_keys, keyed);

    let mut checked = Checked::empty(diagnostics);
    checked.files.reserve(outcomes.len() + parsed.len());
    fingerprints.reserve(parsed.len());
    checked.skip_sources = skip_sources;
    checked.declarations = counts;
    checked.decls = plugin_decls;
    checked.ignored = tree.ignored;
    let mut declared: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    let mut references: Vec<ServerUse> = Vec::new();
    let skipped: BTreeMap<String, String> =
        outcomes.iter().chain(parsed.iter().map(Got::outcome)).filter_map(|o| o.skips_plugin.clone()).collect();
    refuse_skipped(&mut checked.decls, &skipped);
    let mut take = |servers: ServerUse| {
        declared.extend(servers.declared.iter().cloned());
        if !servers.named.is_empty() {
            references.push(servers);
        }
    };
    for outcome in outcomes {
        take(checked.absorb(outcome));
    }
    for got in parsed {
        match got {
            Got::Read(outcome) => take(checked.absorb(*outcome)),
            Got::Kept(read) => {
                fingerprints.push(read.fingerprint);
                take(checked.absorb_kept(read));
            }
        }
    }
    // The instruction files a session started here reads, and the files their imports name.
    if matches!(realm, Realm::Project | Realm::User | Realm::Managed | Realm::AddDir(_)) {
        let claimed = |rel: &str| claims.0.contains_key(rel);
        let found = super::instructions::read_instructions(dir, &tree, realm, hash, &claimed, &loading);
        for outcome in found.outcomes {
            take(checked.absorb(outcome));
        }
        checked.instructions = found.entries;
        checked.instruction_chars = found.chars;
    }
    if let Some(listing) = listing {
        // The plugin declarations are discovery's (in its fingerprint), marked refused by the
        // files read (whose fingerprints say which they skip).
        let mut h = super::cache::hasher();
        (dir, listing, realm, &fingerprints).hash(&mut h);
        checked.fingerprint = h.finish();
    }
    checked.diagnostics.extend(undeclared_servers(&declared, references));
    checked
}

/// What a root holds before its files are read: the marketplaces and plugin manifests read
/// (their outcomes), the plugin and marketplace declarations, the claim on every other file,
/// and the findings about the folders. It reads the listing and the manifests only, so a cache
/// keeps it while those stay as they were. `keyed`: with a cache, which keys the cross-file
/// stage by the discovery's fingerprint (computed only then).
fn discover(
    dir: &Path,
    tree: &Tree,
    realm: Realm,
    hash: bool,
    plugin_dirs: &[(usize, String)],
    keyed: bool,
) -> Discovered {
    // The name of the checked folder itself, for a plugin at the root without a manifest.
    let root_name = dir
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default();
    let mut diagnostics = walk_problems(tree, realm);
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
        let (outcome, info) = read_json(dir, tree, rel, realm, FileKind::Marketplace, hash, |sink, cx, node| {
            marketplace::check_marketplace(sink, cx, node, &marketplace_root)
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
            Some(read_json(dir, tree, rel, realm, FileKind::PluginManifest, hash, |sink, cx, node| {
                let cx = FileCx { plugin_root: Some(root), ..*cx };
                let info = plugin::check_plugin(sink, &cx, node);
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
            // Claude Code refuses a plugin.json that fails its schema (invalid JSON, no
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
                let finding = report_at(
                    &mut diagnostics,
                    realm.display(rel),
                    &rules::reserved_name::RULE,
                    span,
                    format!("plugin name `{name}` is reserved for Anthropic"),
                );
                // Claude Code loads such a plugin from `--plugin-dir` all the same
                // (measured); only its validator rejects the name.
                if matches!(realm, Realm::PluginDir(_)) {
                    finding.loads_anyway();
                }
                finding.help("a third-party plugin may not be `claude`, `anthropic` or `claude-code`, start with `claude-`, `anthropic-` or `cc-plugin-`, or pair `official` with them; name it for what it does");
            } else if manifest::reads_as_anthropic(name) {
                report_at(&mut diagnostics, realm.display(rel), &rules::reserved_name::RULE, span, format!("plugin name `{name}` reads as one of Anthropic's own"))
                    .severity(Severity::Warning)
                    .help("`claude plugin validate` warns about names that mention Claude or Anthropic; name it for what it does");
            }
        }
        let listed_by = entries_by_root.get(root).map(Vec::as_slice).unwrap_or_default();
        cross_check_entries(&mut diagnostics, realm, &info, manifest_rel.as_deref(), listed_by);
        // Claude Code loads a `--plugin-dir` folder as a folder: a marketplace entry naming it
        // gives it neither a name nor component paths (measured), and a folder
        // without plugin.json is a plugin only when something in it loads.
        let entries = if given.contains_key(root) { &[] } else { listed_by };
        if given.contains_key(root) && manifest_rel.is_none() && !holds_components(tree, root) {
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
                manifest_version: match manifest_rel {
                    Some(_) => info.version.clone(),
                    None => entries.iter().find_map(|(_, e)| Some(e.version.clone()?.0)),
                },
                dependencies: info
                    .dependencies
                    .iter()
                    .map(|(id, range, span)| crate::model::decl::Dependency {
                        id: id.clone(),
                        range: range.clone(),
                        path: manifest_rel.as_deref().map(|r| realm.display(r)).unwrap_or_default(),
                        span: Some(*span),
                    })
                    .collect(),
            })),
        });
        // A CLAUDE.md at the checked root is the repository's own memory file when the root is
        // a repository (a marketplace or a project), not when it is only a plugin.
        let is_repository = project_roots.contains(root) || (root.is_empty() && !marketplaces.is_empty());
        let layout = Layout { is_repository, skills_dir: skills_dir.is_some() };
        claim_plugin(tree, &mut claims, root, &name, &paths, &mut diagnostics, realm, layout);
    }

    for root in &project_roots {
        claim_project(tree, &mut claims, root, plugin_roots.contains_key(root.as_str()), realm, &mut diagnostics);
    }
    // `capc check path/to/.claude` (or `~/.claude`): the folder itself is a `.claude` folder;
    // `$CLAUDE_PROJECT_DIR` is its parent, outside the check.
    if root_name == ".claude" && realm == Realm::Project {
        claim_claude_dir(tree, &mut claims, "", &Owner::bare(FileScope::Project), &mut diagnostics, realm);
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

    let fingerprint = keyed.then(|| {
        // A manifest keeps its text: what the cross-file stage may point into.
        for outcome in &mut outcomes {
            if let Some(file) = &outcome.file {
                outcome.head = file.text.as_deref().map_or(0, |text| super::cache::text_head(text, file.kind));
            }
        }
        let mut h = super::cache::hasher();
        outcomes.iter().map(super::cache::fingerprint).collect::<Vec<u64>>().hash(&mut h);
        super::cache::hash_debug(&plugin_decls, &mut h);
        h.finish()
    });
    let fingerprint = fingerprint.unwrap_or(0);
    Discovered { claims, outcomes, diagnostics, counts, plugin_decls, fingerprint }
}

/// A file's reading: made now, or kept in a cache (its declarations are copied out only when
/// the cross-file stage runs).
enum Got {
    Read(Box<Outcome>),
    Kept(Arc<Read>),
}

impl Got {
    fn outcome(&self) -> &Outcome {
        match self {
            Got::Read(outcome) => outcome.as_ref(),
            Got::Kept(read) => &read.outcome,
        }
    }
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

/// What Claude Code looks for at a plugin's root when it has no manifest to list its
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

/// With a cache: the cache, the folder's listing and, for a root whose discovery it keeps, that
/// discovery (whose claims the root's kept rows follow, `cache::Rows`).
struct Keyed<'a> {
    cache: &'a Cache,
    listing: u64,
    root: Option<&'a Arc<Discovered>>,
}

/// Reads the claimed files side by side: with a cache (and the folder listing's fingerprint),
/// a file whose text, claim and folder listing are as before keeps its reading.
fn read_claims(
    dir: &Path,
    tree: &Tree,
    claimed: &[(&String, &Claim)],
    realm: Realm,
    hash: bool,
    project_keys: &[String],
    keyed: Option<Keyed<'_>>,
) -> Vec<Got> {
    let Some(Keyed { cache, listing, root }) = keyed else {
        return claimed
            .par_iter()
            .map(|(rel, claim)| Got::Read(Box::new(read_claim(dir, tree, rel, claim, realm, hash, project_keys, None))))
            .collect();
    };
    // What every file's key shares, hashed once.
    let mut shared = super::cache::hasher();
    (dir, listing, hash, project_keys, realm).hash(&mut shared);
    let shared_key = shared.finish();
    let previous = root
        .and_then(|discovered| cache.rows(dir, realm, discovered))
        .filter(|p| p.shared == shared_key && p.rows.len() == claimed.len());
    let previous = previous.as_deref();
    let rows: Vec<(std::collections::hash_map::DefaultHasher, Arc<Read>)> = claimed
        .par_iter()
        .enumerate()
        .map(|(i, (rel, claim))| {
            let path = dir.join(rel.as_str());
            // The key before the stamp: the same claim at the same place as before has it.
            let h = match previous {
                Some(p) => p.rows[i].0.clone(),
                None => {
                    let mut h = shared.clone();
                    (rel.as_str(), claim).hash(&mut h);
                    h
                }
            };
            // The text's hash as the source knows it, else read now (and kept for the reading).
            let (stamp, mut content) = match tree.texts.stamp(&path) {
                Some(stamp) => (stamp, None),
                None => {
                    let content = tree.texts.read(&path);
                    (walk::content_hash(&content), Some(content))
                }
            };
            let mut keyed = h.clone();
            stamp.hash(&mut keyed);
            let key = keyed.finish();
            if let Some((_, read)) = previous.map(|p| &p.rows[i]).filter(|(_, read)| read.key == key) {
                return (h, read.clone());
            }
            let shown = realm.display(rel);
            if let Some(found) = cache.lookup(&shown, key) {
                return (h, found);
            }
            // Keyed by what is read now, even if the file changed since the source's stamp.
            let (content, stamp, key) = match content.take() {
                Some(content) => (content, stamp, key),
                None => {
                    let (content, stamp) = tree.texts.read_stamped(&path);
                    let mut keyed = h.clone();
                    stamp.hash(&mut keyed);
                    (content, stamp, keyed.finish())
                }
            };
            let head = match &content {
                walk::Content::Text(text) => super::cache::text_head(text, claim.kind),
                _ => 0,
            };
            let mut outcome = read_claim(dir, tree, rel, claim, realm, hash, project_keys, Some(content));
            outcome.head = head;
            if let Some(file) = &mut outcome.file {
                file.stamp = stamp;
            }
            (h, cache.insert(shown, key, outcome, &tree.texts))
        })
        .collect();
    let got = rows.iter().map(|(_, read)| Got::Kept(read.clone())).collect();
    if let Some(discovered) = root.filter(|_| !tree.texts.cancelled()) {
        cache.keep_rows(dir, realm, super::cache::Rows { discovered: discovered.clone(), shared: shared_key, rows });
    }
    got
}

/// An `--add-dir` folder: Claude Code reads the skills, commands and agents of its `.claude/`.
fn check_added_dir(
    dir: &Path,
    tree: &Tree,
    realm: Realm,
    hash: bool,
    cache: Option<&Cache>,
    skip_sources: bool,
    loading: &super::instructions::Loading<'_>,
) -> Checked {
    let mut claims = Claims(BTreeMap::new());
    let mut diagnostics = walk_problems(tree, realm);
    // Claude Code reads an added folder's skills, legacy commands and agents.
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
    let claimed: Vec<(&String, &Claim)> = claims.0.iter().collect();
    let listing = cache.map(|_| tree.fingerprint());
    let keyed = cache.zip(listing).map(|(cache, listing)| Keyed { cache, listing, root: None });
    let outcomes = read_claims(dir, tree, &claimed, realm, hash, &[], keyed);
    let mut checked = Checked::empty(diagnostics);
    checked.skip_sources = skip_sources;
    let mut fingerprints = Vec::new();
    for got in outcomes {
        match got {
            Got::Read(outcome) => {
                checked.absorb(*outcome);
            }
            Got::Kept(read) => {
                fingerprints.push(read.fingerprint);
                checked.absorb_kept(read);
            }
        }
    }
    if let Some(listing) = listing {
        let mut h = super::cache::hasher();
        (dir, listing, fingerprints, realm).hash(&mut h);
        checked.fingerprint = h.finish();
    }
    // Its instruction files, when Claude Code reads them.
    let claimed = |rel: &str| claims.0.contains_key(rel);
    let found = super::instructions::read_instructions(dir, tree, realm, hash, &claimed, loading);
    for outcome in found.outcomes {
        checked.absorb(outcome);
    }
    checked.instructions = found.entries;
    checked
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
    // A root SKILL.md is the plugin's one skill only when it has no skills folder (with one,
    // Claude Code does not read the root file).
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
    // Monitors: the file plugin.json names (or its inline array), else the default file.
    let monitors_set = paths.iter().any(|(f, _)| matches!(*f, "monitors" | "monitors-inline"));
    if !monitors_set && tree.is_file(&at("monitors/monitors.json")) {
        claims.add(&at("monitors/monitors.json"), FileKind::Monitors, &owner, None);
    }
    for path in listed("monitors").filter(|p| tree.is_file(p)) {
        claims.add(path, FileKind::Monitors, &owner, None);
    }
    // LSP servers: `.lsp.json`, and what `lspServers` adds.
    if tree.is_file(&at(".lsp.json")) {
        claims.add(&at(".lsp.json"), FileKind::LspConfig, &owner, None);
    }
    for path in listed("lspServers").filter(|p| tree.is_file(p)) {
        claims.add(path, FileKind::LspConfig, &owner, None);
    }
    // Output styles, themes and workflows: listed paths replace the default folder.
    for (field, folder, kind, suffix, deep) in [
        ("outputStyles", "output-styles", FileKind::OutputStyle, ".md", true),
        ("themes", "themes", FileKind::Theme, ".json", false),
        ("workflows", "workflows", FileKind::Workflow, ".js", false),
    ] {
        let named: Vec<&str> = listed(field).collect();
        let folders: Vec<String> =
            if named.is_empty() { vec![at(folder)] } else { named.iter().map(|p| p.to_string()).collect() };
        for path in folders {
            if tree.is_file(&path) && path.ends_with(suffix) {
                claims.add(&path, kind, &owner, None);
            } else if tree.is_dir(&path) {
                let files: Vec<&String> =
                    tree.files_under(&path).filter(|f| f.ends_with(suffix) && (deep || parent(f) == path)).collect();
                for file in files {
                    claims.add(file, kind, &owner, None);
                }
            }
        }
    }
    if tree.is_file(&at("settings.json")) {
        claims.add(&at("settings.json"), FileKind::PluginSettings, &owner, None);
    }
    // `bin/`: every file directly in it goes on the PATH of the commands Claude Code runs.
    let bin = at("bin");
    let bins: Vec<&String> = tree.files_under(&bin).filter(|f| parent(f) == bin).collect();
    for file in bins {
        claims.add(file, FileKind::PluginBin, &owner, None);
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
    let styles = at("output-styles");
    let files: Vec<&String> = tree.files_under(&styles).filter(|f| f.ends_with(".md")).collect();
    for file in files {
        claims.add(file, FileKind::OutputStyle, owner, None);
    }
}

//! The claim stage's plugins: the marketplaces read (they name plugin folders), the plugin
//! folders (a manifest, a marketplace entry, a `--plugin-dir`), their manifests read, each
//! plugin's declaration, and the claim on each of its files. Checks that only the manifests
//! decide are made here: reserved names, a marketplace entry against its plugin.json.

use super::super::load::read_json;
use super::super::placement::{is_manifest, Realm};
use super::super::walk::Walked;
use super::super::{Claims, Outcome, Owner};
use super::folders::{claim_markdown_tree, claim_skills_dir};
use super::Claiming;
use crate::decl::marketplace::{self, EntryInfo};
use crate::decl::plugin::{self, PluginInfo};
use crate::decl::{file_name, join_rel, manifest, parent, Counts, FileCx, FileKind, FileScope};
use crate::diagnostic::{report_at, Diagnostic, Severity, Sink};
use crate::model::{Decl, Item};
use crate::rules;
use crate::walk::Tree;
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

/// What the marketplaces of a root say.
pub(super) struct Marketplaces {
    /// The marketplace files, by path in the root.
    rels: Vec<String>,
    /// The entries naming each plugin folder, with the marketplace file that lists them.
    entries_by_root: BTreeMap<String, Vec<(String, EntryInfo)>>,
    /// Plugin folders listed by a marketplace that carries a reserved (Anthropic) name.
    anthropic_listed: BTreeSet<String>,
    /// Each marketplace file's name.
    names: BTreeMap<String, String>,
}

/// Reads the root's marketplaces, declares each and claims its file.
pub(super) fn read_marketplaces(c: &mut Claiming<'_>) -> Marketplaces {
    let Walked { dir, tree, realm, hash, .. } = c.walked;
    let (dir, realm, hash) = (dir.as_path(), *realm, *hash);
    let mut entries_by_root: BTreeMap<String, Vec<(String, EntryInfo)>> = BTreeMap::new();
    let mut anthropic_listed: BTreeSet<String> = BTreeSet::new();
    let marketplaces: Vec<String> = tree.files.iter().filter(|f| is_manifest(f, "marketplace.json")).cloned().collect();
    let mut marketplace_names: BTreeMap<String, String> = BTreeMap::new();
    for rel in &marketplaces {
        let marketplace_root = parent(parent(rel)).to_string();
        let (outcome, info) = read_json(dir, tree, rel, realm, FileKind::Marketplace, hash, |sink, cx, node| {
            marketplace::check_marketplace(sink, cx, node, &marketplace_root)
        });
        if outcome.file.is_some() {
            c.counts.marketplaces += 1;
        }
        c.outcomes.push(outcome);
        let reserved = info.as_ref().is_some_and(|i| i.reserved);
        if let Some(name) = info.as_ref().and_then(|i| i.name.clone()) {
            marketplace_names.insert(rel.clone(), name.clone());
            c.plugin_decls.push(marketplace_decl(realm, rel, &marketplace_root, name, info.as_ref()));
        }
        for entry in info.map(|i| i.entries).unwrap_or_default() {
            if let Some(root) = entry.plugin_root.clone() {
                if reserved {
                    anthropic_listed.insert(root.clone());
                }
                entries_by_root.entry(root).or_default().push((rel.clone(), entry));
            }
        }
        c.claims.add(rel, FileKind::Marketplace, &Owner::bare(FileScope::Plugin), None);
    }
    Marketplaces { rels: marketplaces, entries_by_root, anthropic_listed, names: marketplace_names }
}

/// A marketplace's declaration: its name, its folder and the plugins it lists.
fn marketplace_decl(
    realm: Realm,
    rel: &str,
    marketplace_root: &str,
    name: String,
    info: Option<&marketplace::MarketplaceInfo>,
) -> Decl {
    let plugins = info
        .map(|i| {
            i.entries.iter().map(|e| (e.name.clone(), e.plugin_root.as_deref().map(|r| realm.display(r)))).collect()
        })
        .unwrap_or_default();
    let entries = info
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
    let root = realm.display(marketplace_root);
    Decl {
        path: realm.display(rel),
        span: None,
        item: Item::Marketplace(Box::new(crate::model::decl::Marketplace { name, root, plugins, entries })),
    }
}

/// The plugin folders of a root.
pub(super) struct PluginRoots {
    /// Each plugin folder, with its manifest when it has one.
    pub(super) roots: BTreeMap<String, Option<String>>,
    /// The `--plugin-dir` folders among them, with their numbers.
    given: BTreeMap<String, usize>,
}

/// Plugins: manifests and marketplace-named folders, and the `--plugin-dir` folders.
pub(super) fn plugin_roots(walked: &Walked, marketplaces: &Marketplaces) -> PluginRoots {
    let mut plugin_roots: BTreeMap<String, Option<String>> = BTreeMap::new();
    for rel in walked.tree.files.iter().filter(|f| is_manifest(f, "plugin.json")) {
        plugin_roots.insert(parent(parent(rel)).to_string(), Some(rel.clone()));
    }
    for root in marketplaces.entries_by_root.keys() {
        plugin_roots.entry(root.clone()).or_insert(None);
    }
    // A `--plugin-dir` is a plugin, with or without a manifest.
    let given: BTreeMap<String, usize> = match walked.realm {
        Realm::PluginDir(n) => [(String::new(), n)].into_iter().collect(),
        _ => walked.plugin_dirs.iter().map(|(n, rel)| (rel.clone(), *n)).collect(),
    };
    for root in given.keys() {
        plugin_roots.entry(root.clone()).or_insert(None);
    }
    PluginRoots { roots: plugin_roots, given }
}

/// A plugin manifest read: its outcome, and what it says when it parsed.
type Manifest = (Outcome, Option<(PluginInfo, Counts)>);

/// Reads the manifests side by side, declares each plugin in order and claims its files.
pub(super) fn claim_plugins(
    c: &mut Claiming<'_>,
    marketplaces: &Marketplaces,
    plugins: &PluginRoots,
    project_roots: &BTreeSet<String>,
    root_name: &str,
) {
    let Walked { dir, tree, realm, hash, .. } = c.walked;
    let (dir, realm, hash) = (dir.as_path(), *realm, *hash);
    let manifests: Vec<Option<Manifest>> = plugins
        .roots
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
    for ((root, manifest_rel), manifest) in plugins.roots.iter().zip(manifests) {
        let plugin = Plugin { root, manifest_rel: manifest_rel.as_deref() };
        c.claim_plugin_folder(plugin, manifest, marketplaces, plugins, project_roots, root_name);
    }
}

/// One plugin folder, and its manifest's path when it has one.
#[derive(Clone, Copy)]
struct Plugin<'a> {
    root: &'a str,
    manifest_rel: Option<&'a str>,
}

impl Claiming<'_> {
    /// Takes one plugin's manifest, declares the plugin and claims its files.
    fn claim_plugin_folder(
        &mut self,
        plugin: Plugin<'_>,
        manifest: Option<Manifest>,
        marketplaces: &Marketplaces,
        plugins: &PluginRoots,
        project_roots: &BTreeSet<String>,
        root_name: &str,
    ) {
        let (tree, realm) = (&self.walked.tree, self.walked.realm);
        let Plugin { root, manifest_rel } = plugin;
        let given = &plugins.given;
        self.counts.plugins += 1;
        let (info, mut refused) = self.take_manifest(plugin, manifest);
        if let (Some(name), Some(span), Some(rel)) = (&info.name, info.name_span, manifest_rel) {
            if !marketplaces.anthropic_listed.contains(root) {
                check_plugin_name(&mut self.diagnostics, realm, rel, name, span);
            }
        }
        let listed_by = marketplaces.entries_by_root.get(root).map(Vec::as_slice).unwrap_or_default();
        cross_check_entries(&mut self.diagnostics, realm, &info, manifest_rel, listed_by);
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
            .unwrap_or_else(|| if root.is_empty() { root_name.to_string() } else { file_name(root).to_string() });
        let marketplace = entries
            .iter()
            .find_map(|(rel, _)| marketplaces.names.get(rel).cloned())
            .or_else(|| cached_marketplace(root));
        // A plugin inside a skills folder (`.claude/skills/<x>/.claude-plugin/`) loads as
        // `<name>@skills-dir` (user scope always, project scope in a trusted folder).
        let skills_dir = match (realm, parent(root)) {
            (Realm::Project, ".claude/skills") => Some(crate::model::Scope::Project),
            (Realm::User, ".claude/skills") => Some(crate::model::Scope::User),
            _ => None,
        };
        let folder = crate::model::PluginFolder {
            name: name.clone(),
            root: realm.display(root),
            marketplace,
            plugin_dir: given.get(root).copied(),
            skills_dir,
            refused,
            at_root: root.is_empty() && realm == Realm::Project,
            version: info.version.clone().or_else(|| entry_version(entries)),
            manifest_version: match manifest_rel {
                Some(_) => info.version.clone(),
                None => entry_version(entries),
            },
            dependencies: dependencies(realm, manifest_rel, &info),
        };
        self.plugin_decls.push(Decl {
            path: realm.display(manifest_rel.unwrap_or(root)),
            span: info.name_span,
            item: Item::Plugin(Box::new(folder)),
        });
        // A CLAUDE.md at the checked root is the repository's own memory file when the root is
        // a repository (a marketplace or a project), not when it is only a plugin.
        let is_repository = project_roots.contains(root) || (root.is_empty() && !marketplaces.rels.is_empty());
        let layout = Layout { is_repository, skills_dir: skills_dir.is_some() };
        claim_plugin(tree, &mut self.claims, root, &name, &paths, &mut self.diagnostics, realm, layout);
    }

    /// Claims a plugin's manifest and takes what it says: the plugin's info, and why Claude
    /// Code refuses the plugin because of it.
    fn take_manifest(&mut self, plugin: Plugin<'_>, manifest: Option<Manifest>) -> (PluginInfo, Option<String>) {
        let mut info = PluginInfo::default();
        let mut refused = None;
        if let (Some(rel), Some((outcome, read))) = (plugin.manifest_rel, manifest) {
            self.claims.add(rel, FileKind::PluginManifest, &Owner::plugin(plugin.root, ""), None);
            if let Some((read, extra)) = read {
                self.counts += extra;
                info = read;
            }
            // Claude Code refuses a plugin.json that fails its schema (invalid JSON, no
            // or a malformed `name`, a field of the wrong type) and loads nothing of the plugin.
            refused = outcome
                .diagnostics
                .iter()
                .find(|d| d.severity == Severity::Error)
                .map(|d| format!("its plugin.json is refused: {}", d.message))
                .or_else(|| outcome.file.is_none().then(|| "its plugin.json cannot be read".to_string()));
            self.outcomes.push(outcome);
        }
        (info, refused)
    }
}

/// `reserved-name` for a plugin's name (not for one listed by one of Anthropic's own
/// marketplaces: its names are Anthropic's).
fn check_plugin_name(diagnostics: &mut Vec<Diagnostic>, realm: Realm, rel: &str, name: &str, span: crate::span::Span) {
    if manifest::is_reserved_plugin_name(name) {
        let finding = report_at(
            diagnostics,
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
        report_at(
            diagnostics,
            realm.display(rel),
            &rules::reserved_name::RULE,
            span,
            format!("plugin name `{name}` reads as one of Anthropic's own"),
        )
        .severity(Severity::Warning)
        .help("`claude plugin validate` warns about names that mention Claude or Anthropic; name it for what it does");
    }
}

/// The version the first marketplace entry naming a plugin gives.
fn entry_version(entries: &[(String, EntryInfo)]) -> Option<String> {
    entries.iter().find_map(|(_, e)| Some(e.version.clone()?.0))
}

/// The plugins a plugin's manifest says it depends on.
fn dependencies(realm: Realm, manifest_rel: Option<&str>, info: &PluginInfo) -> Vec<crate::model::decl::Dependency> {
    info.dependencies
        .iter()
        .map(|(id, range, span)| crate::model::decl::Dependency {
            id: id.clone(),
            range: range.clone(),
            path: manifest_rel.map(|r| realm.display(r)).unwrap_or_default(),
            span: Some(*span),
        })
        .collect()
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
                claims.add(path, kind, &owner, Some(&parent(path).into()));
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
    claim_plugin_files(tree, claims, &at, paths, &owner);
    layout_findings(tree, &at, out, realm, layout);
}

/// A plugin's output styles, themes, workflows, settings and `bin/` files.
fn claim_plugin_files(
    tree: &Tree,
    claims: &mut Claims,
    at: &dyn Fn(&str) -> String,
    paths: &[(&'static str, String)],
    owner: &Owner,
) {
    let listed = |field: &'static str| paths.iter().filter(move |(f, _)| *f == field).map(|(_, p)| p.as_str());
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
                claims.add(&path, kind, owner, None);
            } else if tree.is_dir(&path) {
                let files: Vec<&String> =
                    tree.files_under(&path).filter(|f| f.ends_with(suffix) && (deep || parent(f) == path)).collect();
                for file in files {
                    claims.add(file, kind, owner, None);
                }
            }
        }
    }
    if tree.is_file(&at("settings.json")) {
        claims.add(&at("settings.json"), FileKind::PluginSettings, owner, None);
    }
    // `bin/`: every file directly in it goes on the PATH of the commands Claude Code runs.
    let bin = at("bin");
    let bins: Vec<&String> = tree.files_under(&bin).filter(|f| parent(f) == bin).collect();
    for file in bins {
        claims.add(file, FileKind::PluginBin, owner, None);
    }
}

/// Layout mistakes Claude Code is silent about: components inside `.claude-plugin/`, a plugin's
/// own CLAUDE.md.
fn layout_findings(tree: &Tree, at: &dyn Fn(&str) -> String, out: &mut Vec<Diagnostic>, realm: Realm, layout: Layout) {
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

/// Marketplace entry vs plugin.json: versions, and strict-mode conflicts.
pub(super) fn cross_check_entries(
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

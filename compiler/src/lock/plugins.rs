//! Which plugins a session loads, in which order, and why, as Claude Code decides it:
//!
//! 1. `--plugin-dir` folders, in the order given (`<name>@inline`);
//! 2. `enabledPlugins` keys set to `true`, merged across user, project, local and managed
//!    settings in that order (a later file's `false` turns off an earlier `true`; the keys keep
//!    the order they first appear in), each resolved through a marketplace that settings make
//!    known (`extraKnownMarketplaces`) — capc follows `directory` sources that lie in a folder
//!    it reads, and plugins the user's cache holds (`~/.claude/plugins/cache/<marketplace>/`);
//!    a marketplace that only project or local settings declare counts only in a trusted
//!    folder, so its plugins load only there;
//! 3. plugins inside a skills folder (`.claude/skills/<x>/.claude-plugin/`, `<name>@skills-dir`):
//!    the user's always, the project's in a trusted folder.
//!
//! A `--plugin-dir` plugin replaces an enabled plugin of the same name wholly; a plugin whose
//! `plugin.json` Claude Code refuses loads nothing. Every other plugin folder is still checked
//! as its own unit, and its inventory is recorded, but nothing of it reaches the session.

use super::range;
use crate::diagnostic::{did_you_mean, report_at, Diagnostic, Severity};
use crate::model::{Decl, Item, Plugin, PluginFolder, Scope};
use crate::rules;
use std::collections::{BTreeMap, BTreeSet};

/// The outcome of loading.
#[derive(Debug, Default)]
pub struct Loading {
    /// One entry per plugin folder: the loaded ones first, in load order, then the others by
    /// folder. Inventories are filled in later.
    pub plugins: Vec<Plugin>,
    /// The folders of plugins a session is asked to load, whether or not it can: given with
    /// `--plugin-dir`, enabled by `enabledPlugins`, placed in a skills folder, or the checked
    /// folder itself. Their errors block `capc lock`; other plugins' do not.
    pub asked: BTreeSet<String>,
}

impl Loading {
    /// The roots of the loaded plugins, in load order.
    pub(crate) fn loaded_roots(&self) -> impl Iterator<Item = &str> {
        self.plugins.iter().filter(|p| p.loaded).map(|p| p.root.as_str())
    }
}

/// The prefix every path (as shown) inside the folder `root` starts with. A scope's own
/// folder is shown as its prefix already (`""` for the checked folder, `<plugin-dir 1>/` for a
/// `--plugin-dir` outside it, `~/`), any other folder without its final `/`.
pub fn prefix(root: &str) -> String {
    if root.is_empty() || root.ends_with('/') {
        root.to_string()
    } else {
        format!("{root}/")
    }
}

/// Whether `path` (as shown) lies in the folder `root`: it starts with [`prefix`]`(root)`,
/// tested without building that prefix, since this runs for every file against every plugin
/// folder.
pub fn inside(path: &str, root: &str) -> bool {
    if root.is_empty() || root.ends_with('/') {
        path.starts_with(root)
    } else {
        path.strip_prefix(root).is_some_and(|rest| rest.starts_with('/'))
    }
}

/// The plugin folder a component file belongs to: the deepest root that holds it.
pub fn owner<'a>(path: &str, roots: &'a [String]) -> Option<&'a str> {
    roots.iter().filter(|r| inside(path, r)).max_by_key(|r| r.len()).map(String::as_str)
}

/// A marketplace found in the tree: its name, its folder, and the plugins it lists (with their
/// folders when local).
type Listed<'d> = (&'d str, &'d str, &'d [(String, Option<String>)]);

struct Known<'d> {
    scope: Scope,
    source: &'d str,
    path: Option<&'d str>,
    location: Option<&'d str>,
    decl: &'d Decl,
}

/// The order in which settings files' `enabledPlugins` merge (later wins).
fn merge_rank(scope: Scope) -> u8 {
    match scope {
        Scope::User => 0,
        Scope::Project => 1,
        Scope::Local => 2,
        Scope::Managed => 3,
        _ => 4,
    }
}

/// What loading reads from the declarations.
struct Found<'d> {
    /// The plugin folders, by folder.
    folders: Vec<&'d PluginFolder>,
    marketplaces: Vec<Listed<'d>>,
    /// The marketplaces settings declare, by name.
    known: BTreeMap<&'d str, Vec<Known<'d>>>,
    /// Merged `enabledPlugins`: key order of first appearance, value of the last file (with
    /// the declaration that gives it).
    merged: Vec<(&'d str, bool, &'d Decl)>,
}

impl<'d> Found<'d> {
    fn of(decls: &'d [Decl]) -> Found<'d> {
        let mut folders: Vec<&PluginFolder> = Vec::new();
        let mut marketplaces: Vec<Listed<'_>> = Vec::new();
        let mut known: BTreeMap<&str, Vec<Known<'_>>> = BTreeMap::new();
        let mut switches: Vec<(&Decl, &str, bool, Scope)> = Vec::new();
        for d in decls {
            match &d.item {
                Item::Plugin(folder) => folders.push(folder),
                Item::Marketplace(m) => marketplaces.push((&m.name, &m.root, &m.plugins)),
                Item::KnownMarketplace(k) => known.entry(&k.name).or_default().push(Known {
                    scope: k.scope,
                    source: &k.source,
                    path: k.path.as_deref(),
                    location: k.location.as_deref(),
                    decl: d,
                }),
                Item::EnablePlugin(e) => switches.push((d, &e.key, e.enabled, e.scope)),
                _ => {}
            }
        }
        folders.sort_by(|a, b| a.root.cmp(&b.root));
        switches.sort_by(|a, b| {
            (merge_rank(a.3), &a.0.path, a.0.span.map(|s| s.start)).cmp(&(
                merge_rank(b.3),
                &b.0.path,
                b.0.span.map(|s| s.start),
            ))
        });
        let mut merged: Vec<(&str, bool, &Decl)> = Vec::new();
        for (d, key, on, _) in &switches {
            match merged.iter_mut().find(|(k, _, _)| k == key) {
                Some(entry) => {
                    entry.1 = *on;
                    entry.2 = d;
                }
                None => merged.push((key, *on, d)),
            }
        }
        Found { folders, marketplaces, known, merged }
    }

    /// Whether a merged `enabledPlugins` entry turns `name@marketplace` off.
    fn switched_off(&self, name: &str, marketplace: &str) -> bool {
        self.merged.iter().any(|(k, on, _)| !on && *k == format!("{name}@{marketplace}"))
    }

    /// The folders whose id is `key`.
    fn with_id<'a>(&'a self, key: &'a str) -> impl Iterator<Item = &'d PluginFolder> + 'a {
        self.folders.iter().copied().filter(move |f| id_of(f) == key)
    }
}

/// The load order as it is decided: each folder that loads, with why and whether it loads
/// only in a trusted folder, and why each folder set aside does not load.
#[derive(Default)]
struct Order<'f> {
    order: Vec<(&'f PluginFolder, String, bool)>,
    why_not: BTreeMap<&'f str, String>,
}

impl<'f> Order<'f> {
    fn loads(&self, f: &PluginFolder) -> bool {
        self.order.iter().any(|(o, _, _)| o.root == f.root)
    }

    /// First, the `--plugin-dir` folders, in the order given.
    fn add_given(&mut self, found: &Found<'f>) {
        let mut given: Vec<&PluginFolder> = found.folders.iter().copied().filter(|f| f.plugin_dir.is_some()).collect();
        given.sort_by_key(|f| f.plugin_dir);
        for f in given {
            match f.refused.clone() {
                Some(why) => {
                    self.why_not.insert(&f.root, why);
                }
                None => self.order.push((f, format!("--plugin-dir {}", f.plugin_dir.unwrap_or_default()), false)),
            }
        }
    }

    /// Then the `enabledPlugins` keys set to `true`, each through its marketplace; a
    /// `--plugin-dir` plugin of the same name replaces it.
    fn add_enabled(
        &mut self,
        found: &Found<'f>,
        refused_marketplaces: &BTreeMap<String, (String, String)>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let by_plugin_dir: BTreeSet<String> = self.order.iter().map(|(f, _, _)| f.name.clone()).collect();
        for (key, on, d) in &found.merged {
            let Some((name, marketplace)) = key.rsplit_once('@') else { continue };
            if !on || matches!(marketplace, "inline" | "skills-dir") {
                continue;
            }
            if let Some((policy, by)) = refused_marketplaces.get(marketplace) {
                for f in found.with_id(key) {
                    self.why_not
                        .entry(&f.root)
                        .or_insert_with(|| format!("its marketplace `{marketplace}` is refused by {policy} in {by}"));
                }
                continue;
            }
            let Some((f, requires_trust)) = resolve_enabled(name, marketplace, d, found, diagnostics) else {
                for f in found.with_id(key) {
                    self.why_not.entry(&f.root).or_insert_with(|| {
                        format!("`enabledPlugins` in {} names it, but its marketplace `{marketplace}` does not resolve (see the finding there)", d.path)
                    });
                }
                continue;
            };
            if self.loads(f) {
                continue;
            }
            if by_plugin_dir.contains(&f.name) {
                self.why_not
                    .insert(&f.root, format!("replaced by the --plugin-dir plugin of the same name `{}`", f.name));
                continue;
            }
            if let Some(why) = f.refused.clone() {
                self.why_not.insert(&f.root, why);
                continue;
            }
            self.order.push((f, format!("enabledPlugins `{key}` in {}", d.path), requires_trust));
        }
    }

    /// Last, the plugins in a skills folder: the user's, then the project's (which need trust).
    fn add_skills_dir(&mut self, found: &Found<'f>) {
        let mut skills_dir: Vec<&PluginFolder> =
            found.folders.iter().copied().filter(|f| f.skills_dir.is_some()).collect();
        skills_dir.sort_by_key(|f| (f.skills_dir != Some(Scope::User), f.root.clone()));
        for f in skills_dir {
            if self.loads(f) {
                continue;
            }
            if let Some(why) = f.refused.clone() {
                self.why_not.insert(&f.root, why);
            } else if found.switched_off(&f.name, "skills-dir") {
                self.why_not.insert(&f.root, format!("turned off by enabledPlugins `{}@skills-dir`", f.name));
            } else {
                let trust = f.skills_dir == Some(Scope::Project);
                self.order.push((f, format!("a plugin in the skills folder {}", parent_of(&f.root)), trust));
            }
        }
    }

    /// Says why a folder an `enabledPlugins` entry turns off does not load, unless something
    /// else already does.
    fn note_turned_off(&mut self, found: &Found<'f>) {
        for (key, on, d) in &found.merged {
            if *on {
                continue;
            }
            for f in found.with_id(key) {
                self.why_not
                    .entry(&f.root)
                    .or_insert_with(|| format!("turned off by enabledPlugins `{key}` in {}", d.path));
            }
        }
    }
}

/// `refused_marketplaces`: the marketplaces managed settings refuse, with the key and the file.
pub fn load(
    decls: &[Decl],
    refused_marketplaces: &BTreeMap<String, (String, String)>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Loading {
    let found = Found::of(decls);
    let mut order = Order::default();
    order.add_given(&found);
    order.add_enabled(&found, refused_marketplaces, diagnostics);
    order.add_skills_dir(&found);
    unsatisfied_dependencies(&mut order.order, &mut order.why_not, diagnostics);
    order.note_turned_off(&found);
    let mut plugins: Vec<Plugin> = order
        .order
        .iter()
        .map(|(f, reason, requires_trust)| plugin_entry(f, true, reason.clone(), *requires_trust))
        .collect();
    for f in found.folders.iter().filter(|f| !order.loads(f)) {
        let reason = not_loaded_reason(f, &order.why_not, &found.marketplaces, diagnostics);
        plugins.push(plugin_entry(f, false, reason, false));
    }
    let mut asked: BTreeSet<String> = found
        .folders
        .iter()
        .filter(|f| f.plugin_dir.is_some() || f.skills_dir.is_some() || f.at_root)
        .map(|f| f.root.clone())
        .collect();
    for (key, on, _) in &found.merged {
        if *on {
            asked.extend(found.with_id(key).map(|f| f.root.clone()));
        }
    }
    asked.extend(plugins.iter().filter(|p| p.loaded).map(|p| p.root.clone()));
    Loading { plugins, asked }
}

/// The lock's entry for a plugin folder; its inventory is filled in later.
fn plugin_entry(f: &PluginFolder, loaded: bool, reason: String, requires_trust: bool) -> Plugin {
    Plugin {
        name: f.name.clone(),
        id: id_of(f),
        root: f.root.clone(),
        loaded,
        reason,
        requires_trust,
        version: f.version.clone(),
        inventory: Default::default(),
        agent: None,
        subagent_status_line: None,
    }
}

/// Why a folder does not load; a folder that nothing lists or enables, and that is neither the
/// checked folder nor a cached copy, is reported.
fn not_loaded_reason(
    f: &PluginFolder,
    why_not: &BTreeMap<&str, String>,
    marketplaces: &[Listed<'_>],
    diagnostics: &mut Vec<Diagnostic>,
) -> String {
    let listed_by = marketplaces
        .iter()
        .find(|(_, _, entries)| entries.iter().any(|(_, root)| root.as_deref() == Some(f.root.as_str())));
    match (why_not.get(f.root.as_str()), listed_by) {
        (_, _) if f.refused.is_some() => f.refused.clone().unwrap_or_default(),
        (Some(why), _) => why.clone(),
        (None, Some((m, _, _))) => {
            format!("listed by marketplace `{m}`; a session here loads it once `enabledPlugins` names `{}@{m}`", f.name)
        }
        (None, None) if f.at_root => "this folder is the plugin; a session loads it with `--plugin-dir`".to_string(),
        // A copy in the user's plugin cache: an installed version no setting enables here.
        (None, None) if f.root.contains(".claude/plugins/cache/") => {
            "an installed copy that no setting enables here".to_string()
        }
        (None, None) => {
            let path = if f.root.is_empty() { ".".to_string() } else { f.root.clone() };
            report_at(
                diagnostics,
                path,
                &rules::unloaded_plugin::RULE,
                None,
                format!("plugin `{}` never loads: no marketplace lists this folder and no setting enables it", f.name),
            )
            .help("list it in a marketplace.json, or load it with `claude --plugin-dir`; a copy kept for reference (a backup) can be ignored");
            "no marketplace lists it and no setting enables it".to_string()
        }
    }
}

/// Claude Code turns off a plugin whose dependency is not among the plugins that load, or
/// whose version is outside the range an object entry gives, then looks again, until nothing
/// changes (so a chain fails from its missing end; a cycle loads): the first failing entry of
/// each plugin is its error. An entry without a marketplace is read in the depending plugin's
/// own marketplace (none for `inline` and `skills-dir` plugins, where any plugin of that name
/// satisfies it and no range is compared); a `--plugin-dir` plugin of the name satisfies
/// `name@marketplace` too, with no range compared (measured).
fn unsatisfied_dependencies<'f>(
    order: &mut Vec<(&'f PluginFolder, String, bool)>,
    why_not: &mut BTreeMap<&'f str, String>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    // What loaded before any was turned off: a dependency among them is "disabled".
    let first_ids: BTreeSet<String> = order.iter().map(|(f, _, _)| id_of(f)).collect();
    let first_names: BTreeSet<String> = order.iter().map(|(f, _, _)| f.name.clone()).collect();
    let versions: BTreeMap<String, Option<String>> =
        order.iter().map(|(f, _, _)| (id_of(f), f.manifest_version.clone())).collect();
    loop {
        let ids: BTreeSet<String> = order.iter().map(|(f, _, _)| id_of(f)).collect();
        let names: BTreeSet<&str> = order.iter().map(|(f, _, _)| f.name.as_str()).collect();
        let failed = order.iter().enumerate().find_map(|(i, (f, _, _))| {
            let own = id_of(f);
            let marketplace = own.rsplit_once('@').map_or("", |(_, m)| m);
            f.dependencies.iter().find_map(|dep| {
                let id = match dep.id.contains('@') || matches!(marketplace, "inline" | "skills-dir") {
                    true => dep.id.clone(),
                    false => format!("{}@{marketplace}", dep.id),
                };
                let Some((name, _)) = id.split_once('@') else {
                    return (!names.contains(id.as_str())).then_some((i, Unmet::Missing(id), dep));
                };
                let stand_in = format!("{name}@inline");
                if ids.contains(&id) {
                    let range = dep.range.as_deref()?;
                    let installed = versions.get(&id).cloned().flatten();
                    (!range::satisfies(installed.as_deref(), range))
                        .then(|| (i, Unmet::Version { id: id.clone(), range: range.to_string(), installed }, dep))
                } else {
                    (!ids.contains(&stand_in)).then_some((i, Unmet::Missing(id), dep))
                }
            })
        });
        let Some((i, failure, dep)) = failed else { return };
        let (f, _, _) = order.remove(i);
        let (message, finding, help, until) = match failure {
            Unmet::Missing(id) => {
                // Claude Code names the `--plugin-dir` plugin that stood for `name@marketplace`.
                let id = match id.split_once('@') {
                    Some((name, _)) if !first_ids.contains(&id) && first_ids.contains(&format!("{name}@inline")) => {
                        format!("{name}@inline")
                    }
                    _ => id,
                };
                let was_loaded = if id.contains('@') { first_ids.contains(&id) } else { first_names.contains(&id) };
                let message = if was_loaded {
                    format!("Dependency \"{id}\" is disabled")
                } else {
                    format!("Dependency \"{id}\" is not installed")
                };
                let finding = format!(
                    "plugin `{}` does not load: its dependency `{id}` is not among the plugins that load",
                    f.name
                );
                let help = format!(
                    "Claude Code turns the plugin off (`{message}`); load or enable `{id}` too, or remove the dependency"
                );
                (message, finding, help, "until its dependency loads")
            }
            Unmet::Version { id, range, installed } => {
                let shown = installed.clone().unwrap_or_else(|| "version unknown".to_string());
                let message = format!("Requires \"{id}\" {range}, installed {shown}");
                let finding = match &installed {
                    Some(v) => format!(
                        "plugin `{}` does not load: its dependency `{id}` is version {v}, outside `{range}`",
                        f.name
                    ),
                    None => format!(
                        "plugin `{}` does not load: its dependency `{id}` gives no `version` to compare with `{range}`",
                        f.name
                    ),
                };
                let help = format!(
                    "Claude Code turns the plugin off (`{message}`); load a version of `{id}` in the range, widen the range, or remove it"
                );
                (message, finding, help, "until its dependency's version is in range")
            }
        };
        report_at(diagnostics, dep.path.clone(), &rules::unsatisfied_dependency::RULE, dep.span, finding).help(help);
        why_not.insert(&f.root, format!("{message}: Claude Code turns it off {until}"));
    }
}

/// Why a dependency does not hold.
enum Unmet {
    /// Not among the plugins that load.
    Missing(String),
    /// Loaded, at a version outside the range (or with none).
    Version { id: String, range: String, installed: Option<String> },
}

fn parent_of(root: &str) -> &str {
    root.rsplit_once('/').map_or("", |(p, _)| p)
}

fn id_of(f: &PluginFolder) -> String {
    let marketplace = if f.plugin_dir.is_some() {
        "inline"
    } else if f.skills_dir.is_some() {
        "skills-dir"
    } else {
        f.marketplace.as_deref().unwrap_or("inline")
    };
    format!("{}@{marketplace}", f.name)
}

/// The plugin folder an `enabledPlugins` key reaches, and whether it loads only in a trusted
/// folder; reports what cannot be followed.
fn resolve_enabled<'f>(
    name: &str,
    marketplace: &str,
    d: &Decl,
    found: &Found<'f>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<(&'f PluginFolder, bool)> {
    // A plugin the user installed: its copy in the cache of that marketplace.
    let cached = found
        .folders
        .iter()
        .copied()
        .filter(|f| f.name == name && f.marketplace.as_deref() == Some(marketplace))
        .find(|f| f.root.contains(".claude/plugins/cache/"));
    let declared = found.known.get(marketplace);
    let Some(declared) = declared.filter(|k| !k.is_empty()) else {
        return cached.map(|f| (f, false)).or_else(|| {
            undeclared(name, marketplace, d, &found.marketplaces, diagnostics);
            None
        });
    };
    // The most trusted declaration wins: user or managed settings need no trust.
    let best =
        declared.iter().min_by_key(|k| (matches!(k.scope, Scope::Project | Scope::Local), k.location.is_none()))?;
    let requires_trust = matches!(best.scope, Scope::Project | Scope::Local);
    let Some(location) = best.location else {
        return cached.map(|f| (f, requires_trust)).or_else(|| {
            unreadable(name, marketplace, d, best, diagnostics);
            None
        });
    };
    let Some((_, _, entries)) = found.marketplaces.iter().find(|(m, root, _)| *m == marketplace && *root == location)
    else {
        report_at(
            diagnostics,
            best.decl.path.clone(),
            &rules::unknown_enabled_plugin::RULE,
            best.decl.span,
            format!("marketplace `{marketplace}` points at `{location}`, which holds no marketplace.json named `{marketplace}`"),
        )
        .help("Claude Code cannot add this marketplace; fix the `path`, or the `name` in its marketplace.json");
        return None;
    };
    let Some((_, root)) = entries.iter().find(|(n, _)| n == name) else {
        not_listed(name, marketplace, entries, d, diagnostics);
        return None;
    };
    let folder = root.as_deref().and_then(|r| found.folders.iter().copied().find(|f| f.root == r));
    match folder {
        Some(f) => Some((f, requires_trust)),
        None => {
            report_at(
                diagnostics,
                d.path.clone(),
                &rules::unknown_enabled_plugin::RULE,
                d.span,
                format!("plugin `{name}` of marketplace `{marketplace}` has a source capc cannot read here"),
            )
            .severity(Severity::Info)
            .help("only plugins whose `source` is a folder of the marketplace are followed offline");
            None
        }
    }
}

/// Reports an `enabledPlugins` key whose marketplace no settings declare (and no cache holds
/// the plugin of): whether the marketplace is here, or lacks the plugin. Anthropic's own
/// marketplaces are added by users themselves; capc cannot read them and says nothing.
fn undeclared(name: &str, marketplace: &str, d: &Decl, marketplaces: &[Listed<'_>], diagnostics: &mut Vec<Diagnostic>) {
    if crate::builtins::is_reserved_marketplace(marketplace) {
        return;
    }
    match marketplaces.iter().find(|(m, _, _)| *m == marketplace) {
        // The marketplace is here but undeclared: still say when it lacks the plugin.
        Some((_, _, entries)) if !entries.iter().any(|(n, _)| n == name) => {
            not_listed(name, marketplace, entries, d, diagnostics);
        }
        found => {
            let message = match found {
                Some(_) => format!("marketplace `{marketplace}` is in this folder but no settings declare it, so `{name}` does not load"),
                None => format!("marketplace `{marketplace}` is not declared anywhere in this check, so `{name}@{marketplace}` does not load here"),
            };
            report_at(diagnostics, d.path.clone(), &rules::unknown_enabled_plugin::RULE, d.span, message)
                .help(format!("declare it under `extraKnownMarketplaces` (`\"{marketplace}\": {{\"source\": {{\"source\": \"directory\", \"path\": …}}}}`) so teammates get it; otherwise `{name}` loads only for those who added the marketplace themselves"));
        }
    }
}

/// Reports a declared marketplace whose source capc does not follow: a relative `path`
/// (Claude Code loads nothing through it), or a source outside what this check reads.
fn unreadable(name: &str, marketplace: &str, d: &Decl, best: &Known<'_>, diagnostics: &mut Vec<Diagnostic>) {
    if let Some(path) = best.path.filter(|p| !p.starts_with('/')) {
        report_at(
            diagnostics,
            best.decl.path.clone(),
            &rules::unknown_enabled_plugin::RULE,
            best.decl.span,
            format!("marketplace `{marketplace}` has a relative `path` (`{path}`): Claude Code loads no plugin through it, so `{name}` does not load"),
        )
        .help("Claude Code follows only an absolute `directory` path; for a marketplace teammates share, use a `github` or `git` source");
        return;
    }
    let what = if best.source == "directory" {
        "a `directory` source outside the folders this check reads".to_string()
    } else if best.source.is_empty() {
        "no `source`".to_string()
    } else {
        format!("a `{}` source, which capc does not fetch", best.source)
    };
    report_at(
        diagnostics,
        d.path.clone(),
        &rules::unknown_enabled_plugin::RULE,
        d.span,
        format!("marketplace `{marketplace}` has {what}, so capc cannot tell what `{name}` holds"),
    )
    .severity(Severity::Info)
    .help(format!(
        "declared in {}; check the marketplace's own repository, or pass its folder to capc",
        best.decl.path
    ));
}

/// `enabledPlugins` names a plugin its marketplace does not list.
fn not_listed(
    name: &str,
    marketplace: &str,
    entries: &[(String, Option<String>)],
    d: &Decl,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let diag = report_at(
        diagnostics,
        d.path.clone(),
        &rules::unknown_enabled_plugin::RULE,
        d.span,
        format!("marketplace `{marketplace}` lists no plugin `{name}`"),
    );
    match did_you_mean(name, entries.iter().map(|(n, _)| n.as_str())) {
        Some(s) => diag.help(format!("did you mean `{s}@{marketplace}`? Claude Code ignores this entry")),
        None => diag.help("Claude Code ignores this entry; check the plugin's `name` in the marketplace"),
    };
}

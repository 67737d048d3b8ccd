//! What resolution takes from the whole set of declarations before it resolves a name: the
//! marketplaces, pins, settings and selected names it records or checks, each plugin folder's
//! own settings, and the split of the components between the session and each plugin folder,
//! whose inventories are resolved side by side.

use super::parts::{inventory, Installed, Parts};
use crate::diagnostic::Diagnostic;
use crate::lock::plugins::owner;
use crate::model::{self, Decl, Item, Scope};
use crate::span::Span;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// A plugin folder's settings: its `settings.json`, else plugin.json's `settings`.
pub(super) struct PluginSettings {
    /// Read from the plugin's own `settings.json` (not from plugin.json).
    own_file: bool,
    agent: Option<String>,
    subagent_status_line: Option<String>,
    path: String,
}

/// What resolution takes from the declarations as a whole, before they are split.
pub(super) struct Gathered {
    /// Marketplaces managed settings declare: their plugins keep their `allowed-tools` under
    /// `allowManagedPermissionRulesOnly`.
    pub(super) managed_marketplaces: Vec<String>,
    /// Every marketplace read: its file, its name and the plugin folders it lists.
    pub(super) marketplaces: Vec<(String, String, Vec<String>)>,
    /// What the marketplaces of the checked folder list (not the user's, not a cache's), by file.
    pub(super) listings: Vec<(String, String, Vec<model::decl::ListedEntry>)>,
    /// The plugin folders whose `plugin.json` Claude Code refuses, with why.
    pub(super) refused: HashMap<String, String>,
    pub(super) pins: Vec<model::Pin>,
    pub(super) settings_not_loaded: Vec<model::SettingsNotLoaded>,
    pub(super) settings: Vec<model::Setting>,
    /// Each plugin's settings, by folder.
    pub(super) plugin_settings: BTreeMap<String, PluginSettings>,
    /// What `outputStyle` and `agent` select: the file, the span, the key and the name.
    pub(super) selects: Vec<(String, Option<Span>, &'static str, String)>,
}

impl Gathered {
    /// Reads them from `decls`; `roots` are every plugin folder, to tell which one a plugin's
    /// settings file belongs to.
    pub(super) fn of(decls: &[Decl], roots: &[String]) -> Gathered {
        let managed_marketplaces = decls
            .iter()
            .filter_map(|d| match &d.item {
                Item::KnownMarketplace(k) if k.scope == Scope::Managed => Some(k.name.clone()),
                _ => None,
            })
            .collect();
        let marketplaces = decls
            .iter()
            .filter_map(|d| match &d.item {
                Item::Marketplace(m) => {
                    Some((d.path.clone(), m.name.clone(), m.plugins.iter().filter_map(|(_, r)| r.clone()).collect()))
                }
                _ => None,
            })
            .collect();
        let mut listings: Vec<(String, String, Vec<model::decl::ListedEntry>)> = decls
            .iter()
            .filter(|d| !d.path.starts_with("~/") && !d.path.starts_with('<'))
            .filter_map(|d| match &d.item {
                Item::Marketplace(m) => Some((d.path.clone(), m.name.clone(), m.entries.clone())),
                _ => None,
            })
            .collect();
        listings.sort_by(|a, b| a.0.cmp(&b.0));
        let refused = decls
            .iter()
            .filter_map(|d| match &d.item {
                Item::Plugin(f) => Some((f.root.clone(), f.refused.clone()?)),
                _ => None,
            })
            .collect();
        let selects = decls
            .iter()
            .filter_map(|d| match &d.item {
                Item::Selects(selects) => Some((d.path.clone(), d.span, selects.key, selects.value.clone())),
                _ => None,
            })
            .collect();
        Gathered {
            managed_marketplaces,
            marketplaces,
            listings,
            refused,
            pins: sorted_unique(decls.iter().filter_map(|d| match &d.item {
                Item::Pin(p) => Some(pin_without_secrets((**p).clone())),
                _ => None,
            })),
            settings_not_loaded: sorted_unique(decls.iter().filter_map(|d| match &d.item {
                Item::SettingsNotLoaded(s) => Some((**s).clone()),
                _ => None,
            })),
            settings: sorted_unique(decls.iter().filter_map(|d| match &d.item {
                Item::Setting(s) => Some((**s).clone()),
                _ => None,
            })),
            plugin_settings: plugin_settings(decls, roots),
            selects,
        }
    }

    /// The plugin folders the marketplaces of the checked folder list.
    pub(super) fn listed_roots(&self) -> BTreeSet<&str> {
        self.listings.iter().flat_map(|(_, _, entries)| entries.iter().filter_map(|e| e.root.as_deref())).collect()
    }
}

/// The items, sorted, each once.
fn sorted_unique<T: Ord>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut items: Vec<T> = items.collect();
    items.sort();
    items.dedup();
    items
}

/// A pin as the lock keeps it: a credential in its package, URL or command
/// (`https://user:TOKEN@host/…`, `?token=…`) replaced by its `sha256:<hex>`, the rest kept so
/// the pin still says where it comes from. The readers report the credential
/// (`literal-secret`); this makes sure no pin, whoever recorded it, carries one into the lock.
fn pin_without_secrets(mut pin: model::Pin) -> model::Pin {
    let hide = |text: &mut String| {
        if let Some(hidden) = crate::secrets::redact_words(text) {
            *text = hidden;
        }
    };
    hide(&mut pin.package);
    pin.requested.iter_mut().for_each(hide);
    pin.exact.iter_mut().for_each(hide);
    pin
}

/// Each plugin's settings, by folder: its `settings.json` before plugin.json's `settings`.
fn plugin_settings(decls: &[Decl], roots: &[String]) -> BTreeMap<String, PluginSettings> {
    let mut found: BTreeMap<String, PluginSettings> = BTreeMap::new();
    for d in decls {
        if let Item::PluginSettings(settings) = &d.item {
            let crate::model::decl::PluginSettings { agent, subagent_status_line, .. } = &**settings;
            let Some(root) = owner(&d.path, roots) else { continue };
            let own_file = !d.path.ends_with("plugin.json");
            let kept = found.get(root).is_some_and(|s| s.own_file && !own_file);
            if !kept {
                found.insert(
                    root.to_string(),
                    PluginSettings {
                        own_file,
                        agent: agent.clone(),
                        subagent_status_line: subagent_status_line.clone(),
                        path: d.path.clone(),
                    },
                );
            }
        }
    }
    found
}

/// Splits the components between the session (what the scopes and the loaded plugins
/// declare) and each plugin folder (all it holds, loaded or not); a loaded plugin's component
/// goes to both, with its plugin's place in the load order (`positions`, by folder).
pub(super) fn split(
    decls: Vec<Decl>,
    roots: &[String],
    positions: &HashMap<String, usize>,
) -> (Parts, BTreeMap<String, Parts>) {
    let mut session = Parts::default();
    let mut units: BTreeMap<String, Parts> = BTreeMap::new();
    for d in decls {
        let (plugin, path) = match &d.item {
            Item::Command(c) => (c.plugin.is_some(), c.path.as_str()),
            Item::Agent(a) => (a.plugin.is_some(), a.path.as_str()),
            Item::Server(s) => (s.plugin.is_some(), s.path.as_str()),
            Item::Hook(h) => (h.plugin.is_some(), h.path.as_str()),
            Item::Run(r) => (r.plugin.is_some(), r.path.as_str()),
            Item::Rule(_) => (false, ""),
            Item::Monitor(m) => (true, m.path.as_str()),
            Item::LspServer(l) => (true, l.path.as_str()),
            Item::PluginBin(b) => (true, b.path.as_str()),
            Item::OutputStyle(o) => (o.plugin.is_some(), o.path.as_str()),
            Item::PluginPart(_) => (true, d.path.as_str()),
            _ => continue,
        };
        match plugin.then(|| owner(path, roots)).flatten() {
            Some(root) => {
                let position = positions.get(root).copied();
                if let Some(position) = position {
                    session.push(d.clone(), Some(position));
                }
                units.entry(root.to_string()).or_default().push(d, position);
            }
            None if plugin => {}
            None => session.push(d, None),
        }
    }
    (session, units)
}

/// Each plugin on its own, side by side: fills in what it holds and adds (when no session
/// loads it) its own clashes, in plugin order; returns, by folder, what each plugin a
/// marketplace of the checked folder lists gives when installed alone.
pub(super) fn plugin_inventories(
    plugins: &mut [model::Plugin],
    mut units: BTreeMap<String, Parts>,
    listed_roots: &BTreeSet<&str>,
    diagnostics: &mut Vec<Diagnostic>,
) -> HashMap<String, Installed> {
    let units: Vec<(Parts, bool, bool)> = plugins
        .iter()
        .map(|p| (units.remove(&p.root).unwrap_or_default(), !p.loaded, listed_roots.contains(p.root.as_str())))
        .collect();
    let inventories: Vec<(model::Inventory, Vec<Diagnostic>, Option<Installed>)> = {
        use rayon::prelude::*;
        units.into_par_iter().map(|(unit, report, install)| inventory(unit, report, install)).collect()
    };
    let mut installed: HashMap<String, Installed> = HashMap::new();
    for (plugin, (held, mut found, alone)) in plugins.iter_mut().zip(inventories) {
        plugin.inventory = held;
        diagnostics.append(&mut found);
        if let Some(alone) = alone {
            installed.insert(plugin.root.clone(), alone);
        }
    }
    installed
}

/// Gives each plugin its settings (`agent`, `subagentStatusLine`) and returns the status line
/// of the last loaded plugin with a `subagentStatusLine`, which gives the one settings do not.
pub(super) fn give_plugin_settings(
    plugins: &mut [model::Plugin],
    mut settings: BTreeMap<String, PluginSettings>,
    positions: &HashMap<String, usize>,
) -> Option<model::Run> {
    let mut status_line: Option<(usize, model::Run)> = None;
    for p in plugins {
        let Some(PluginSettings { agent, subagent_status_line: line, path, .. }) = settings.remove(&p.root) else {
            continue;
        };
        p.agent = agent;
        if let (Some(command), true) = (&line, p.loaded) {
            let position = positions.get(&p.root).copied().unwrap_or(0);
            if status_line.as_ref().is_none_or(|(at, _)| *at <= position) {
                let row = model::Run {
                    kind: model::RunKind::StatusLine,
                    name: "subagentStatusLine".to_string(),
                    run: command.clone(),
                    scope: Scope::Plugin,
                    path,
                    plugin: Some(p.name.clone()),
                    ..model::Run::default()
                };
                status_line = Some((position, row));
            }
        }
        p.subagent_status_line = line;
    }
    status_line.map(|(_, row)| row)
}

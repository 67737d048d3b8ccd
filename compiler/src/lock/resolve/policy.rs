//! Policy switches: what `disableAllHooks`, `allowManagedHooksOnly`,
//! `allowManagedPermissionRulesOnly` and `strictPluginOnlyCustomization` keep out of a session,
//! applied to the session's declarations before anything is resolved (a removed skill hides no
//! other, a removed rule denies nothing), each removal recorded with its key and the file that
//! set it (`[[removed_by_policy]]`). The MCP allow and deny lists are `mcp::ServerPolicy`.
//!
//! Where each switch counts, as Claude Code applies it (measured with managed settings
//! read from the managed folder; docs/security.md has the table):
//! - `allowManagedHooksOnly`, `allowManagedPermissionRulesOnly`, `strictPluginOnlyCustomization`:
//!   managed settings only.
//! - `disableAllHooks`: in managed settings, every hook (managed ones too); in user, project or
//!   local settings (merged, the last scope wins), every hook but the managed ones and those of
//!   plugins managed settings enable: the same as `allowManagedHooksOnly`.
//! - The status lines (`statusLine`, `subagentStatusLine`, a plugin's too) and `fileSuggestion`
//!   follow the hooks: none under managed `disableAllHooks`, only managed settings' own under
//!   `allowManagedHooksOnly` or another scope's `disableAllHooks`.
//! - `disableSkillShellExecution` and `permissions.disableBypassPermissionsMode` in any scope
//!   (merged); the runtime reads them from `[[policy]]`.
//! - `channelsEnabled` and `allowedChannelPlugins` (which channel plugins may push messages
//!   into a session): managed settings only; capc runs no channel, it records them.

use super::Parts;
use crate::model::decl::{MarketplacePolicy, Switch};
use crate::model::{Decl, Item, Plugin, PolicySwitch, RemovedByPolicy, RunKind, Scope};

/// The kind `[[removed_by_policy]]` gives a status line or `fileSuggestion` the hooks'
/// switches keep from running.
pub(crate) const HELPER_REMOVED: &str = "helper";
use std::collections::BTreeMap;

/// The order settings files merge in (later wins): user, project, local, then managed
/// (`managed-settings.json` before the `managed-settings.d/` files, which come in name order).
fn merge_order(scope: Scope, path: &str) -> (u8, bool, String) {
    let rank = match scope {
        Scope::User => 0,
        Scope::Project => 1,
        Scope::Local => 2,
        Scope::Managed => 3,
        _ => 4,
    };
    (rank, !path.ends_with("/managed-settings.json"), path.to_string())
}

/// The switches in force, by key.
pub(super) struct Switches {
    set: BTreeMap<&'static str, PolicySwitch>,
    /// `disableAllHooks` set in managed settings (every hook off), rather than in a user's.
    all_hooks_managed: bool,
}

impl Switches {
    pub(super) fn of(decls: &[Decl]) -> Switches {
        let mut found: Vec<(&Decl, &Switch)> = decls
            .iter()
            .filter_map(|d| match &d.item {
                Item::Switch(switch) => Some((d, &**switch)),
                _ => None,
            })
            .collect();
        found.sort_by_key(|(d, switch)| merge_order(switch.scope, &d.path));
        // The last value of each key, among the managed files and among the others.
        let mut managed: BTreeMap<&'static str, (&str, &str, Option<&str>)> = BTreeMap::new();
        let mut user: BTreeMap<&'static str, (&str, &str, Option<&str>)> = BTreeMap::new();
        for (d, switch) in found {
            let into = if switch.scope == Scope::Managed { &mut managed } else { &mut user };
            into.insert(switch.key, (switch.value.as_str(), d.path.as_str(), switch.why.as_deref()));
        }
        let mut set = BTreeMap::new();
        let mut put = |key: &'static str, (value, path, why): (&str, &str, Option<&str>)| {
            let (value, path, why) = (value.to_string(), path.to_string(), why.map(str::to_string));
            set.insert(key, PolicySwitch { key: key.to_string(), value, path, why });
        };
        let on = |v: &(&str, &str, Option<&str>)| v.0 == "true";
        for key in ["allowManagedHooksOnly", "allowManagedPermissionRulesOnly"] {
            if let Some(v) = managed.get(key).filter(|v| on(v)) {
                put(key, *v);
            }
        }
        if let Some(v) = managed.get("strictPluginOnlyCustomization").filter(|v| !v.0.is_empty()) {
            put("strictPluginOnlyCustomization", *v);
        }
        // Channels: managed settings only, whatever the value (`channelsEnabled: false` is the
        // default it states; `allowedChannelPlugins` may be empty: no channel plugin admitted).
        for key in ["channelsEnabled", "allowedChannelPlugins"] {
            if let Some(v) = managed.get(key) {
                put(key, *v);
            }
        }
        let all_hooks_managed = managed.get("disableAllHooks").is_some_and(on);
        for key in ["disableAllHooks", "disableSkillShellExecution"] {
            if let Some(v) = managed.get(key).filter(|v| on(v)).or_else(|| user.get(key).filter(|v| on(v))) {
                put(key, *v);
            }
        }
        let bypass = "permissions.disableBypassPermissionsMode";
        if let Some(v) = managed.get(bypass).or_else(|| user.get(bypass)).filter(|v| v.0 == "disable") {
            put(bypass, *v);
        }
        Switches { set, all_hooks_managed }
    }

    fn get(&self, key: &str) -> Option<&PolicySwitch> {
        self.set.get(key)
    }

    /// Whether `strictPluginOnlyCustomization` locks `surface`, and the file that says so.
    fn locks(&self, surface: &str) -> Option<&PolicySwitch> {
        self.get("strictPluginOnlyCustomization").filter(|s| s.value.split(", ").any(|v| v == surface))
    }

    pub(super) fn into_lock(self) -> Vec<PolicySwitch> {
        self.set.into_values().collect()
    }
}

/// What the switches take out of the session's declarations, each with its key and file.
pub(super) fn apply(
    switches: &Switches,
    session: &mut Parts,
    plugins: &[Plugin],
    managed_marketplaces: &[String],
) -> Vec<RemovedByPolicy> {
    let mut removed = Removals(Vec::new());
    remove_hooks(switches, session, plugins, &mut removed);
    remove_helpers(switches, session, &mut removed);
    if let Some(switch) = switches.locks("skills") {
        session.commands.retain(|(c, _, _)| {
            let keep = !local(c.scope, &c.plugin);
            if !keep {
                removed.remove("command", c.name.clone(), &c.path, switch);
            }
            keep
        });
    }
    if let Some(switch) = switches.get("allowManagedPermissionRulesOnly") {
        managed_rules_only(switch, session, plugins, managed_marketplaces, &mut removed);
    }
    if let Some(switch) = switches.locks("agents") {
        session.agents.retain(|(a, _)| {
            let keep = !local(a.scope, &a.plugin);
            if !keep {
                removed.remove("agent", a.name.clone(), &a.path, switch);
            }
            keep
        });
    }
    if let Some(switch) = switches.locks("mcp") {
        for (s, _, _) in &mut session.servers {
            if s.blocked_by.is_none() && local(s.scope, &s.plugin) {
                s.blocked_by = Some(format!("strictPluginOnlyCustomization ({})", switch.path));
                removed.remove("mcp-server", s.name.clone(), &s.path, switch);
            }
        }
    }
    removed.0
}

/// What the switches have removed so far, in the order they removed it.
struct Removals(Vec<RemovedByPolicy>);

impl Removals {
    /// Records that `switch` removes the `kind` declaration `name` of the file `path`.
    fn remove(&mut self, kind: &str, name: String, path: &str, switch: &PolicySwitch) {
        self.0.push(RemovedByPolicy {
            kind: kind.to_string(),
            name,
            path: path.to_string(),
            key: switch.key.clone(),
            by: switch.path.clone(),
        });
    }
}

/// Whether a declaration is the user's or the project's own (not managed, not a plugin's):
/// what `strictPluginOnlyCustomization` locks out.
fn local(scope: Scope, plugin: &Option<String>) -> bool {
    plugin.is_none() && matches!(scope, Scope::User | Scope::Project | Scope::Local | Scope::AddDir)
}

/// The loaded plugin a file belongs to: the deepest loaded folder that holds it.
fn loaded_plugin_of<'p>(plugins: &'p [Plugin], path: &str) -> Option<&'p Plugin> {
    plugins.iter().filter(|p| p.loaded && super::super::plugins::inside(path, &p.root)).max_by_key(|p| p.root.len())
}

/// Takes out the hooks the switches turn off, in Claude Code's order of reasons: managed
/// `disableAllHooks`, then `allowManagedHooksOnly`, `strictPluginOnlyCustomization`, a user's
/// `disableAllHooks`. A plugin managed settings enable keeps its hooks under
/// `allowManagedHooksOnly` and a user's `disableAllHooks`.
fn remove_hooks(switches: &Switches, session: &mut Parts, plugins: &[Plugin], removed: &mut Removals) {
    let managed_enabled = |path: &str| {
        loaded_plugin_of(plugins, path)
            .is_some_and(|p| p.reason.starts_with("enabledPlugins ") && p.reason.contains(" in <managed>/"))
    };
    let hooks = std::mem::take(&mut session.hooks);
    for h in hooks {
        let why = if switches.all_hooks_managed {
            switches.get("disableAllHooks")
        } else if h.scope == Scope::Managed || (h.plugin.is_some() && managed_enabled(&h.path)) {
            None
        } else {
            switches
                .get("allowManagedHooksOnly")
                .or_else(|| switches.locks("hooks").filter(|_| h.plugin.is_none()))
                .or_else(|| switches.get("disableAllHooks"))
        };
        match why {
            Some(switch) => {
                let mut name = match &h.matcher {
                    Some(m) if !m.is_empty() => format!("{} {m}", h.event),
                    _ => h.event.clone(),
                };
                if let Some(run) = &h.run {
                    name = format!("{name}: {run}");
                }
                removed.remove("hook", name, &h.path, switch);
            }
            None => session.hooks.push(h),
        }
    }
}

/// Takes out the status lines and `fileSuggestion` the hooks' switches turn off (measured with
/// a status line that writes a marker): managed `disableAllHooks` runs none of them, managed
/// ones included; `allowManagedHooksOnly` or a user's, project's or local `disableAllHooks`
/// runs only the managed settings' own. The other helpers run whatever these switches say.
/// `allowManagedHooksOnly` also keeps out every plugin's hooks module.
fn remove_helpers(switches: &Switches, session: &mut Parts, removed: &mut Removals) {
    let runs = std::mem::take(&mut session.runs);
    for r in runs {
        let display = r.owner.is_none()
            && (r.kind == RunKind::StatusLine || (r.kind == RunKind::Helper && r.name == "fileSuggestion"));
        let why = match display {
            false => None,
            true if switches.all_hooks_managed => switches.get("disableAllHooks"),
            true if r.scope == Scope::Managed => None,
            true => switches.get("allowManagedHooksOnly").or_else(|| switches.get("disableAllHooks")),
        };
        // A plugin's hooks module runs in the user's tier and does not load where only managed
        // hooks may (the bundle's words).
        let why = match r.kind == RunKind::HooksModule && r.owner.is_none() {
            true => switches.get("allowManagedHooksOnly"),
            false => why,
        };
        let kind = if r.kind == RunKind::HooksModule { "hooks-module" } else { HELPER_REMOVED };
        match why {
            Some(switch) => removed.remove(kind, format!("{}: {}", r.name, r.run), &r.path, switch),
            None => session.runs.push(r),
        }
    }
}

/// `allowManagedPermissionRulesOnly`: takes out every permission rule but the managed ones,
/// and the `allowed-tools` of every skill and command that is not managed and comes from no
/// plugin of a marketplace managed settings declare.
fn managed_rules_only(
    switch: &PolicySwitch,
    session: &mut Parts,
    plugins: &[Plugin],
    managed_marketplaces: &[String],
    removed: &mut Removals,
) {
    session.permissions.retain(|(p, _)| {
        let keep = p.scope == Scope::Managed;
        if !keep {
            removed.remove("permission", format!("{} {}", p.behavior.as_str(), p.rule), &p.path, switch);
        }
        keep
    });
    for (c, _, _) in &mut session.commands {
        let vouched = match &c.plugin {
            Some(_) => loaded_plugin_of(plugins, &c.path).is_some_and(|p| {
                p.id.rsplit_once('@').is_some_and(|(_, m)| managed_marketplaces.iter().any(|k| k == m))
            }),
            None => c.scope == Scope::Managed,
        };
        if !vouched && !c.allowed_tools.is_empty() {
            removed.remove("allowed-tools", format!("{} ({})", c.name, c.allowed_tools.join(", ")), &c.path, switch);
            c.allowed_tools.clear();
        }
    }
}

/// The marketplaces managed `blockedMarketplaces` and `strictKnownMarketplaces` refuse, by
/// name (with the key and the file that refuse them), and each refused declaration. A source
/// matches an entry of the same `source` kind whose other fields it has with the same values;
/// an entry's `repo` of the form `owner/*` matches every repository of that owner, and a
/// blocked entry's `ref` also matches any full commit id. A name is refused when every
/// declaration of it is.
pub(super) fn marketplaces(decls: &[Decl]) -> (BTreeMap<String, (String, String)>, Vec<RemovedByPolicy>) {
    type Fields = Vec<(String, String)>;
    let mut strict: Option<(Vec<&Fields>, &str)> = None;
    let mut blocked: Vec<(&Fields, &str)> = Vec::new();
    for d in decls {
        let Item::MarketplacePolicy(policy) = &d.item else { continue };
        let MarketplacePolicy { scope: Scope::Managed, strict: s, blocked: b } = &**policy else {
            continue;
        };
        if let Some(list) = s {
            let entry = strict.get_or_insert_with(|| (Vec::new(), d.path.as_str()));
            entry.0.extend(list.iter());
        }
        blocked.extend(b.iter().map(|e| (e, d.path.as_str())));
    }
    let matches = |entry: &Fields, source: &Fields, block: bool| {
        let value = |fields: &Fields, key: &str| fields.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
        entry.iter().all(|(k, want)| {
            let Some(have) = value(source, k) else { return false };
            match k.as_str() {
                "repo" if want.ends_with("/*") => {
                    have.split_once('/').is_some_and(|(owner, _)| format!("{owner}/*") == *want)
                }
                "ref" if block => have == *want || crate::provenance::is_commit_sha(&have),
                _ => have == *want,
            }
        })
    };
    let mut refused: BTreeMap<String, Vec<Option<(String, String)>>> = BTreeMap::new();
    let mut removed = Vec::new();
    for d in decls {
        let Item::KnownMarketplace(known) = &d.item else { continue };
        let (name, fields) = (&known.name, &known.fields);
        let why = if let Some((_, by)) = blocked.iter().find(|(e, _)| matches(e, fields, true)) {
            Some(("blockedMarketplaces", *by))
        } else {
            strict
                .as_ref()
                .filter(|(list, _)| !list.iter().any(|e| matches(e, fields, false)))
                .map(|(_, by)| ("strictKnownMarketplaces", *by))
        };
        let why = why.map(|(key, by)| (key.to_string(), by.to_string()));
        if let Some((key, by)) = &why {
            removed.push(RemovedByPolicy {
                kind: "marketplace".to_string(),
                name: name.clone(),
                path: d.path.clone(),
                key: key.clone(),
                by: by.clone(),
            });
        }
        refused.entry(name.clone()).or_default().push(why);
    }
    let refused = refused
        .into_iter()
        .filter_map(|(name, whys)| {
            let first = whys.first().cloned().flatten()?;
            whys.iter().all(Option::is_some).then_some((name, first))
        })
        .collect();
    (refused, removed)
}

//! Claude Code's settings schema, as data: `compiler/data/claude-code/settings.json`, which
//! `scripts/claude-code-tables` extracts from a Claude Code release (CONTRIBUTING.md, "A new
//! Claude Code version"). For every key at every level the schema types: its type and enum
//! values, the keys an object requires, what Claude Code does with a value of the wrong type
//! (refuses the whole file, or skips the entry and keeps the rest), the settings files where
//! it ignores the key, and how the key merges across scopes. capc's typed readers
//! (`settings.rs`, `hooks.rs`, `permissions.rs`, `mcp.rs`) give the values their meaning;
//! this table gives the names, types and enums.

use crate::node::{Node, NodeKind};
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::OnceLock;

const DATA: &str = include_str!("../../data/claude-code/settings.json");

/// The settings table of one Claude Code release.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Table {
    /// The release it was extracted from.
    pub claude_code: String,
    pub merge: MergeRule,
    /// The top-level keys.
    pub keys: BTreeMap<String, KeySchema>,
}

/// How Claude Code merges settings across scopes (user, project, local, command line,
/// managed: each into what came before): arrays are concatenated and de-duplicated, objects
/// merged key by key, anything else taken from the later scope; the keys named in `replace`
/// are taken whole from the later scope, and the objects named in `shallow` merged one level
/// deep (an entry of the later scope replaces the earlier one of that name).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct MergeRule {
    pub replace: Vec<String>,
    pub(crate) shallow: Vec<String>,
}

/// One key's type.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct KeySchema {
    /// `string`, `boolean`, `number`, `integer`, `array`, `object` or `any`; absent for a
    /// union (`any_of`) or a constant.
    #[serde(rename = "type")]
    pub ty: Option<String>,
    /// An object's keys.
    pub keys: BTreeMap<String, KeySchema>,
    /// The keys an object must have.
    pub required: Vec<String>,
    /// A map's values (an object whose keys are free).
    pub values: Option<Box<KeySchema>>,
    /// An array's items.
    pub items: Option<Box<KeySchema>>,
    #[serde(rename = "anyOf")]
    pub any_of: Vec<KeySchema>,
    #[serde(rename = "enum")]
    pub(crate) enumeration: Option<Vec<String>>,
    /// The enum's list is known only in part (Claude Code adds values at run time).
    pub(crate) enum_partial: bool,
    #[serde(rename = "const")]
    pub constant: Option<Value>,
    /// `dropped`: a wrong value is skipped and the rest of the file is in effect. Otherwise a
    /// wrong value (here or below, unless a key below drops it) refuses the whole file.
    pub invalid: Option<String>,
    pub(crate) nullable: bool,
    /// An object that keeps keys it does not know.
    pub open: bool,
    /// Settings files where Claude Code ignores the key.
    pub scope: Option<Scope>,
    pub internal: bool,
    /// The environment variable without which Claude Code does not know the key.
    pub(crate) when_env: Option<String>,
    /// `concat-unique`, `deep`, `shallow` or `replace`.
    pub merge: Option<String>,
    /// The value that wins when policy sources disagree, for the keys policy weighs.
    pub(crate) policy_restrictive: Option<Value>,
}

/// Where a key does not count.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Scope {
    /// `user`, `project`, `local`.
    pub(crate) ignored_in: Vec<String>,
    /// Claude Code's own words for it.
    pub because: String,
}

/// The table, parsed once. The data file is committed and tested to parse
/// (`the_table_parses_and_names_its_version`); were it broken, every key would read as
/// unknown rather than capc stopping.
pub fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| serde_json::from_str(DATA).unwrap_or_default())
}

impl KeySchema {
    fn drops(&self) -> bool {
        self.invalid.as_deref() == Some("dropped")
    }

    /// What the entry accepts, in Claude Code's words (`string`, `number`, …).
    fn expected(&self) -> &str {
        match self.ty.as_deref() {
            Some("integer") => "number",
            Some(t) => t,
            None => "a valid value",
        }
    }
}

/// A value Claude Code does not accept.
#[derive(Debug)]
pub struct Mismatch<'n> {
    /// The value (or, for a missing key, the object that lacks it).
    pub node: &'n Node,
    /// Its dotted path from the top (`statusLine.padding`, `companyAnnouncements.0`), as
    /// Claude Code's notice names it.
    pub path: String,
    /// Claude Code's notice for it.
    pub text: String,
    /// A type (`wrong-field-type`) rather than a value (`invalid-field-value`) problem.
    pub wrong_type: bool,
    /// Claude Code skips the entry and keeps the rest of the file (otherwise it refuses the
    /// whole file).
    pub dropped: bool,
    /// For a value outside an enum: the values it may take.
    pub allowed: Vec<String>,
}

/// Zod's name for a value's type, as Claude Code's notice says it.
fn received(node: &Node) -> &'static str {
    match node.kind {
        NodeKind::Null => "null",
        NodeKind::Bool(_) => "boolean",
        NodeKind::Number(_) => "number",
        NodeKind::String(_) => "string",
        NodeKind::Array(_) => "array",
        NodeKind::Object(_) => "object",
    }
}

fn quoted(values: &[String]) -> String {
    values.iter().map(|v| format!("\"{v}\"")).collect::<Vec<_>>().join(", ")
}

fn const_matches(constant: &Value, node: &Node) -> bool {
    match (constant, &node.kind) {
        (Value::String(c), NodeKind::String(s)) => c == s,
        (Value::Bool(c), NodeKind::Bool(b)) => c == b,
        (Value::Number(c), NodeKind::Number(n)) => n.parse::<f64>().ok() == c.as_f64(),
        (Value::Null, NodeKind::Null) => true,
        _ => false,
    }
}

fn const_text(constant: &Value) -> String {
    match constant {
        Value::String(s) => format!("\"{s}\""),
        other => other.to_string(),
    }
}

/// Checks `node` against `entry`; the first value Claude Code does not accept, depth first.
/// `skip` names the paths capc's own readers check (their findings say more).
pub fn mismatch<'n>(
    entry: &KeySchema,
    node: &'n Node,
    path: &str,
    dropped_above: bool,
    skip: &dyn Fn(&str) -> bool,
) -> Option<Mismatch<'n>> {
    let dropped = dropped_above || entry.drops();
    let fail = |text: String, wrong_type: bool| {
        Some(Mismatch { node, path: path.to_string(), text, wrong_type, dropped, allowed: Vec::new() })
    };
    if skip(path) {
        return None;
    }
    if matches!(node.kind, NodeKind::Null) && entry.nullable {
        return None;
    }
    if let Some(constant) = &entry.constant {
        return (!const_matches(constant, node))
            .then(|| fail(format!("Invalid value. Expected one of: {}", const_text(constant)), false))
            .flatten();
    }
    if !entry.any_of.is_empty() {
        let accepted = entry.any_of.iter().any(|option| mismatch(option, node, path, dropped, &|_| false).is_none());
        return (!accepted).then(|| fail("Invalid input".to_string(), false)).flatten();
    }
    let wrong = || fail(format!("Expected {}, but received {}", entry.expected(), received(node)), true);
    match (entry.ty.as_deref(), &node.kind) {
        (None | Some("any"), _) => None,
        (Some("string"), NodeKind::String(s)) => match &entry.enumeration {
            Some(values) if !entry.enum_partial && !values.contains(s) => Some(Mismatch {
                node,
                path: path.to_string(),
                text: format!("Invalid value. Expected one of: {}", quoted(values)),
                wrong_type: false,
                dropped,
                allowed: values.clone(),
            }),
            _ => None,
        },
        (Some("boolean"), NodeKind::Bool(_)) => None,
        (Some("number"), NodeKind::Number(_)) => None,
        (Some("integer"), NodeKind::Number(n)) => {
            (n.parse::<i64>().is_err()).then(|| fail("Expected int, but received number".to_string(), true)).flatten()
        }
        (Some("array"), NodeKind::Array(items)) => {
            let item = entry.items.as_deref()?;
            items.iter().enumerate().find_map(|(i, value)| mismatch(item, value, &format!("{path}.{i}"), dropped, skip))
        }
        (Some("object"), NodeKind::Object(entries)) => {
            for (key, value) in entries {
                let child = format!("{path}.{}", key.name);
                let found = match entry.keys.get(&key.name) {
                    Some(known) => mismatch(known, value, &child, dropped, skip),
                    None if entry.keys.is_empty() => {
                        entry.values.as_deref().and_then(|v| mismatch(v, value, &child, dropped, skip))
                    }
                    None => None,
                };
                if found.is_some() {
                    return found;
                }
            }
            entry.required.iter().filter(|name| node.get(name).is_none()).find_map(|name| {
                let child = entry.keys.get(name)?;
                let text = match &child.constant {
                    Some(c) => format!("Invalid value. Expected one of: {}", const_text(c)),
                    None => format!("Expected {}, but received undefined", child.expected()),
                };
                Some(Mismatch {
                    node,
                    path: format!("{path}.{name}"),
                    text,
                    wrong_type: false,
                    dropped: dropped || child.drops(),
                    allowed: Vec::new(),
                })
            })
        }
        _ => wrong(),
    }
}

/// What Claude Code puts in place of a managed settings value its schema rejects. It reads
/// managed settings with a tolerant schema (measured with them in `/etc/claude-code`; each case
/// has a notice at start): most values it cannot read are ignored, but a policy key is read at
/// its restrictive value, so a mistyped lock fails closed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ManagedReading {
    /// Read as this value: the string `"true"` or `"false"` where a boolean belongs.
    Coerced(Value),
    /// Read as absent: `false` (or `"false"`) for a key whose only value is `"disable"`.
    Absent,
    /// Replaced by the key's restrictive value.
    Restrictive(Value),
    /// An object that is not one: each policy key below it takes its restrictive value (their
    /// names, one level down).
    Locks(Vec<String>),
    /// An allowlist read as empty: it admits nothing (what it then admits, in Claude Code's
    /// words).
    EmptyAllowlist(&'static str),
    /// Ignored: the value takes no effect.
    Ignored,
}

/// The managed allowlists Claude Code enforces empty when it cannot read them (measured), with
/// what that leaves, in its notice's words.
const EMPTY_ALLOWLISTS: &[(&str, &str)] = &[
    ("strictKnownMarketplaces", "no marketplaces admitted"),
    ("allowedMcpServers", "no MCP servers admitted"),
    ("availableModels", "only the default model is available"),
    ("allowedHttpHookUrls", "no HTTP hooks may run"),
    ("httpHookAllowedEnvVars", "no environment variables may be interpolated into HTTP hook headers"),
];

/// The entry at a dotted path (`permissions.disableBypassPermissionsMode`), through objects.
pub(crate) fn entry_at(path: &str) -> Option<&'static KeySchema> {
    let mut parts = path.split('.');
    let mut entry = table().keys.get(parts.next()?)?;
    for part in parts {
        entry = entry.keys.get(part)?;
    }
    Some(entry)
}

/// The restrictive value Claude Code substitutes for an unreadable managed value at `path`,
/// if it substitutes one. At the top level: a key whose restrictive value is a boolean or a
/// string, except `disableAllHooks` and `strictPluginOnlyCustomization` (read their own way)
/// and keys whose wrong value is skipped anyway (measured: `askUserQuestionTimeout` is
/// ignored). Below it: every policy key (the first of several restrictive values) but
/// `sandbox.failIfUnavailable`, which Claude Code ignores ("not treated as true").
fn substitute(path: &str, entry: &KeySchema) -> Option<Value> {
    let restrictive = match entry.policy_restrictive.as_ref()? {
        Value::Array(values) => values.first()?.clone(),
        other => other.clone(),
    };
    let substitutes = match path.contains('.') {
        false => {
            matches!(restrictive, Value::Bool(_) | Value::String(_))
                && !matches!(path, "disableAllHooks" | "strictPluginOnlyCustomization")
                && !entry.drops()
        }
        true => path != "sandbox.failIfUnavailable",
    };
    substitutes.then_some(restrictive)
}

/// The restrictive value of a policy key, whether or not Claude Code substitutes it.
fn restrictive_of(path: &str, entry: &KeySchema) -> Option<Value> {
    match entry.policy_restrictive.as_ref()? {
        Value::Array(values) if path.contains('.') => values.first().cloned(),
        other => Some(other.clone()),
    }
}

/// The keys just below `entry` that hold a policy key (themselves or further down), which
/// Claude Code sets to their restrictive values when the object at `path` is not an object
/// (`sandbox.enabled` and `sandbox.failIfUnavailable` left out, as Claude Code leaves them).
fn locks_below(path: &str, entry: &KeySchema) -> Vec<String> {
    fn holds(path: &str, entry: &KeySchema) -> bool {
        if matches!(path, "sandbox.enabled" | "sandbox.failIfUnavailable") {
            return false;
        }
        entry.policy_restrictive.is_some() || entry.keys.iter().any(|(k, e)| holds(&format!("{path}.{k}"), e))
    }
    entry.keys.iter().filter(|(k, e)| holds(&format!("{path}.{k}"), e)).map(|(k, _)| k.clone()).collect()
}

/// How Claude Code reads `node`, a managed settings value at `path` (dotted, as
/// `Mismatch::path` gives it) that its schema rejects.
pub(crate) fn managed_reading(path: &str, node: &Node) -> ManagedReading {
    if let Some((_, leaves)) = EMPTY_ALLOWLISTS.iter().find(|(key, _)| *key == path) {
        return ManagedReading::EmptyAllowlist(leaves);
    }
    let Some(entry) = entry_at(path) else { return ManagedReading::Ignored };
    let is_substitutable = path.contains('.') || substitute(path, entry).is_some();
    match (restrictive_of(path, entry), &node.kind) {
        (Some(Value::Bool(_)), NodeKind::String(s)) if is_substitutable && (s == "true" || s == "false") => {
            return ManagedReading::Coerced(Value::Bool(s == "true"));
        }
        (Some(Value::String(r)), NodeKind::Bool(false)) if is_substitutable && r == "disable" => {
            return ManagedReading::Absent;
        }
        (Some(Value::String(r)), NodeKind::String(s)) if is_substitutable && r == "disable" && s == "false" => {
            return ManagedReading::Absent;
        }
        _ => {}
    }
    if let Some(value) = substitute(path, entry) {
        return ManagedReading::Restrictive(value);
    }
    if !matches!(node.kind, NodeKind::Object(_)) && entry.ty.as_deref() == Some("object") {
        let locks = locks_below(path, entry);
        if !locks.is_empty() {
            return ManagedReading::Locks(locks);
        }
    }
    ManagedReading::Ignored
}

/// A managed settings boolean or string as Claude Code applies it: `Some(the value)` as
/// written when the schema accepts it, or what its tolerant reading puts in its place (`None`:
/// absent or ignored), with that reading when it is not the value as written.
pub(crate) fn managed_value(path: &str, node: &Node) -> (Option<Value>, Option<ManagedReading>) {
    let Some(entry) = entry_at(path) else { return (None, None) };
    if mismatch(entry, node, path, false, &|_| false).is_none() {
        let value = match &node.kind {
            NodeKind::Bool(b) => Some(Value::Bool(*b)),
            NodeKind::String(s) => Some(Value::String(s.clone())),
            _ => None,
        };
        return (value, None);
    }
    let reading = managed_reading(path, node);
    let value = match &reading {
        ManagedReading::Coerced(v) | ManagedReading::Restrictive(v) => Some(v.clone()),
        _ => None,
    };
    (value, Some(reading))
}

/// How `key` merges across scopes.
pub(crate) fn merge_of(key: &str) -> &'static str {
    let rule = &table().merge;
    if rule.replace.iter().any(|k| k == key) {
        "replace"
    } else if rule.shallow.iter().any(|k| k == key) {
        "shallow"
    } else {
        "default"
    }
}

/// Merges the settings of a later (stronger) scope into what the earlier ones gave, as
/// Claude Code merges settings files: arrays concatenated and de-duplicated (the earlier
/// scope's entries first), objects merged key by key, anything else taken from the later
/// scope; the table's `replace` keys taken whole, its `shallow` objects merged one level deep.
pub fn merge(into: &mut Value, later: &Value) {
    merge_key(into, later, None);
}

fn merge_key(into: &mut Value, later: &Value, key: Option<&str>) {
    match key.map(merge_of).unwrap_or("default") {
        "replace" => *into = later.clone(),
        "shallow" => match (into, later) {
            (Value::Object(have), Value::Object(more)) => {
                have.extend(more.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
            (into, later) => *into = later.clone(),
        },
        _ => match (into, later) {
            (Value::Array(have), Value::Array(more)) => {
                // De-duplicated as a JavaScript `Set` does: equal strings, numbers and
                // booleans once; objects and arrays (distinct values once parsed) all kept.
                let mut seen: Vec<Value> = Vec::with_capacity(have.len() + more.len());
                let items = std::mem::take(have);
                for item in items.into_iter().chain(more.iter().cloned()) {
                    let plain = !matches!(item, Value::Object(_) | Value::Array(_));
                    if plain && seen.contains(&item) {
                        continue;
                    }
                    if plain {
                        seen.push(item.clone());
                    }
                    have.push(item);
                }
            }
            (Value::Object(have), Value::Object(more)) => {
                for (k, v) in more {
                    match have.get_mut(k) {
                        Some(existing) => merge_key(existing, v, Some(k)),
                        None => {
                            have.insert(k.clone(), v.clone());
                        }
                    }
                }
            }
            (into, later) => *into = later.clone(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_table_parses_and_names_its_version() {
        let parsed: Table = serde_json::from_str(DATA).expect("the settings table parses");
        assert_eq!(parsed.claude_code, crate::model::lock::CLAUDE_CODE_VERSION);
        assert!(parsed.keys.len() > 150, "every top-level key, not a sample");
        assert!(table().keys["permissions"].keys.contains_key("blockReadsOutsideWorkingDirectories"));
    }

    /// What Claude Code did with each of these managed values (its notices at start,
    /// managed settings in `/etc/claude-code`).
    #[test]
    fn managed_readings_are_the_measured_ones() {
        use ManagedReading::*;
        let read = |path: &str, json: &str| {
            let node = crate::json::parse(json).expect("json");
            managed_reading(path, &node)
        };
        assert_eq!(read("allowManagedHooksOnly", "\"yes\""), Restrictive(json!(true)));
        assert_eq!(read("allowManagedHooksOnly", "\"True\""), Restrictive(json!(true)));
        assert_eq!(read("allowManagedHooksOnly", "\"false\""), Coerced(json!(false)));
        assert_eq!(read("channelsEnabled", "\"x\""), Restrictive(json!(false)));
        assert_eq!(read("enableAllProjectMcpServers", "\"x\""), Restrictive(json!(false)));
        assert_eq!(read("feedbackDrafts", "5"), Restrictive(json!("off")));
        assert_eq!(read("availableModelsMatch", "3"), Restrictive(json!("exact")));
        assert_eq!(read("disableAllHooks", "\"true\""), Ignored);
        assert_eq!(read("strictKnownMarketplaces", "\"acme\""), EmptyAllowlist("no marketplaces admitted"));
        assert_eq!(read("allowedMcpServers", "5"), EmptyAllowlist("no MCP servers admitted"));
        assert_eq!(read("blockedMarketplaces", "4"), Ignored);
        assert_eq!(read("deniedMcpServers", "\"x\""), Ignored);
        assert_eq!(read("askUserQuestionTimeout", "5"), Ignored);
        assert_eq!(read("remoteMessageReceipts", "5"), Ignored);
        assert_eq!(read("permissions.disableBypassPermissionsMode", "5"), Restrictive(json!("disable")));
        assert_eq!(read("permissions.disableAutoMode", "false"), Absent);
        assert_eq!(read("permissions.denyInsteadOfPrompting", "\"true\""), Coerced(json!(true)));
        assert_eq!(read("permissions.denyInsteadOfPrompting", "\"x\""), Restrictive(json!(true)));
        assert_eq!(read("sandbox.enabled", "\"x\""), Restrictive(json!(true)));
        assert_eq!(read("sandbox.failIfUnavailable", "\"x\""), Ignored);
        assert_eq!(read("sandbox.network.allowLocalBinding", "\"x\""), Restrictive(json!(false)));
        assert_eq!(read("worktree.bgIsolation", "4"), Restrictive(json!("worktree")));
        assert_eq!(read("worktree", "1"), Locks(vec!["bgIsolation".to_string()]));
        assert_eq!(read("remoteTools", "\"x\""), Locks(vec!["allowUnattendedServing".to_string()]));
        let permissions = [
            "blockReadsOutsideWorkingDirectories",
            "blockWritesOutsideWorkingDirectories",
            "denyInsteadOfPrompting",
            "disableAutoMode",
            "disableBypassPermissionsMode",
        ];
        assert_eq!(read("permissions", "5"), Locks(permissions.map(str::to_string).to_vec()));
        let sandbox = [
            "allowAppleEvents",
            "allowNestedUserNamespaces",
            "allowUnsandboxedCommands",
            "autoAllowBashIfSandboxed",
            "credentials",
            "enableWeakerNestedSandbox",
            "enableWeakerNetworkIsolation",
            "filesystem",
            "network",
            "windows",
        ];
        assert_eq!(read("sandbox", "5"), Locks(sandbox.map(str::to_string).to_vec()));
    }

    #[test]
    fn merge_follows_each_keys_rule() {
        let mut merged = json!({});
        for scope in [
            json!({"companyAnnouncements": ["a", "b"], "env": {"A": "1"}, "model": "x", "fallbackModel": ["m1"],
                   "extraKnownMarketplaces": {"acme": {"source": {"source": "github", "repo": "a/b"}, "autoUpdate": true}}}),
            json!({"companyAnnouncements": ["b", "c"], "env": {"B": "2"}, "model": "y", "fallbackModel": ["m2"],
                   "extraKnownMarketplaces": {"acme": {"source": {"source": "git", "url": "https://x"}}}}),
        ] {
            merge(&mut merged, &scope);
        }
        assert_eq!(merged["companyAnnouncements"], json!(["a", "b", "c"]), "arrays: concatenated, de-duplicated");
        assert_eq!(merged["env"], json!({"A": "1", "B": "2"}), "objects: merged key by key");
        assert_eq!(merged["model"], json!("y"), "scalars: the later scope");
        assert_eq!(merged["fallbackModel"], json!(["m2"]), "a replace key: the later scope's whole");
        assert_eq!(
            merged["extraKnownMarketplaces"],
            json!({"acme": {"source": {"source": "git", "url": "https://x"}}}),
            "a shallow key: each entry whole from the later scope"
        );
    }
}

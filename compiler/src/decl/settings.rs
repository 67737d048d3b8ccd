//! `settings.json` / `settings.local.json` (and managed settings). Every key Claude Code knows,
//! at every level its schema types, is checked against its settings table
//! (`settings_schema`): unknown keys (with did-you-mean), values Claude Code refuses (the
//! whole file, or only that entry, as Claude Code does), and keys written in a settings file
//! where Claude Code ignores them (managed-only policy switches in a project). The typed
//! readers here and in `hooks.rs`, `permissions.rs` and `mcp.rs` give permissions, plugin
//! enablement, MCP approval keys and hooks their meaning.

use super::permissions::{self, Use};
use super::settings_schema::{self, KeySchema, Mismatch};
use super::{FileCx, FileScope};
use crate::diagnostic::{Severity, Sink};
use crate::node::Node;
use crate::rules;
use crate::schema::{check_fields_knowing, Unknown};

/// The top-level keys Claude Code knows.
pub fn known_keys() -> Vec<&'static str> {
    settings_schema::table().keys.keys().map(String::as_str).collect()
}

/// The keys Claude Code knows inside the object at `path` (`["permissions"]`,
/// `["sandbox", "network"]`); empty where it types no keys.
pub fn nested_keys(path: &[&str]) -> Vec<&'static str> {
    let mut keys = &settings_schema::table().keys;
    for (i, part) in path.iter().enumerate() {
        let Some(entry) = keys.get(*part) else { return Vec::new() };
        keys = &entry.keys;
        if i + 1 == path.len() {
            return keys.keys().map(String::as_str).collect();
        }
    }
    keys.keys().map(String::as_str).collect()
}

/// Paths whose values capc's own readers check, with findings that say more than a type.
/// `strictPluginOnlyCustomization` is `true`, `false` or a list of surfaces in Claude Code's
/// schema (read by a preprocess the extracted table types as an object).
const READ_ELSEWHERE: &[&str] = &[
    "hooks",
    "allowedMcpServers",
    "deniedMcpServers",
    "managedMcpServers",
    "permissions.defaultMode",
    "strictPluginOnlyCustomization",
];

/// Objects whose keys are not settings names (hook events, plugin ids, variables, servers).
const FREE_KEYS: &[&str] = &["hooks", "env", "enabledPlugins", "managedMcpServers"];

/// The permission modes Claude Code accepts in `permissions.defaultMode`: its schema's list,
/// the modes it adds at run time (`auto`) and the alias `manual`.
const MODES: &[&str] = &["default", "manual", "acceptEdits", "plan", "auto", "dontAsk", "bypassPermissions"];

/// What Claude Code's notice says of a `permissions.defaultMode` it refuses (its
/// schema's list, which leaves out the `manual` it also accepts).
pub(crate) const REFUSED_MODE_MESSAGE: &str =
    "Invalid value. Expected one of: \"acceptEdits\", \"auto\", \"bypassPermissions\", \"default\", \"dontAsk\", \"plan\"";

/// Why Claude Code refuses a settings file whole before reading any key, in its
/// notice's words (`FILE: MESSAGE`): text that is not JSON (`parsed` is `None`; an empty file
/// is read as no settings), or JSON that is not an object.
pub(crate) fn refused_whole(text: &str, parsed: Option<&Node>) -> Option<&'static str> {
    use crate::node::NodeKind;
    match parsed.map(|n| &n.kind) {
        None if text.trim().is_empty() => None,
        None => Some("Invalid or malformed JSON"),
        Some(NodeKind::Object(_)) => None,
        Some(NodeKind::Array(_)) => Some("Expected object, but received array"),
        Some(NodeKind::String(_)) => Some("Expected object, but received string"),
        Some(NodeKind::Number(_)) => Some("Expected object, but received number"),
        Some(NodeKind::Bool(_)) => Some("Expected object, but received boolean"),
        Some(NodeKind::Null) => Some("Expected object, but received null"),
    }
}

/// Why Claude Code refuses a settings file whose JSON is an object: the first value its
/// schema rejects (a dotted path and its notice's words), unless that value is one Claude
/// Code skips and keeps the rest.
/// Managed settings (`managed`) are never refused for a value: Claude Code reads them with a
/// tolerant schema that ignores the field (or the list entry) it cannot read, or takes a policy
/// key's restrictive value, and enforces the rest ("remaining valid policies are still
/// enforced", measured).
pub fn refused(root: &Node, managed: bool) -> Option<(String, String)> {
    if managed {
        return None;
    }
    if refused_mode(root).is_some() {
        return Some(("permissions.defaultMode".to_string(), REFUSED_MODE_MESSAGE.to_string()));
    }
    let table = settings_schema::table();
    let schema = root.as_object().unwrap_or_default().iter().find_map(|(key, value)| {
        let entry = table.keys.get(&key.name)?;
        let m = settings_schema::mismatch(entry, value, &key.name, false, &|p| p == "permissions.defaultMode")?;
        (!m.dropped).then_some((m.path, m.text))
    });
    // An `enabledPlugins` value that is neither a boolean nor a list of versions (the table
    // types the map, not its values).
    schema.or_else(|| {
        let plugins = root.get("enabledPlugins")?.as_object()?;
        let (key, _) = plugins
            .iter()
            .find(|(_, v)| v.as_bool().is_none() && !matches!(v.kind, crate::node::NodeKind::Array(_)))?;
        Some((format!("enabledPlugins.{}", key.name), "Invalid input".to_string()))
    })
}

/// Unknown keys of `object` (with did-you-mean, and a rename when it is certain), then the
/// same inside each known object whose keys Claude Code types.
fn check_keys(
    sink: &mut Sink<'_>,
    object: &Node,
    keys: &'static std::collections::BTreeMap<String, KeySchema>,
    path: &str,
    what: &str,
    unknown: Unknown,
) {
    let known: Vec<&str> = keys.keys().map(String::as_str).collect();
    check_fields_knowing::<crate::schema::Field>(sink, object, &[], &known, what, unknown);
    for (key, value) in object.as_object().unwrap_or_default() {
        let Some(entry) = keys.get(&key.name) else { continue };
        let child = if path.is_empty() { key.name.clone() } else { format!("{path}.{}", key.name) };
        if FREE_KEYS.contains(&child.as_str()) {
            continue;
        }
        check_nested(sink, value, entry, &child);
    }
}

fn check_nested(sink: &mut Sink<'_>, value: &Node, entry: &'static KeySchema, path: &str) {
    // An object of several shapes: the one with keys (`attribution`: `true`, or an object).
    let entry = match entry.any_of.iter().find(|o| !o.keys.is_empty()) {
        Some(object) if value.as_object().is_some() => object,
        _ => entry,
    };
    if value.as_object().is_some() {
        if !entry.keys.is_empty() {
            // An object Claude Code keeps unknown keys of (for newer clients): only a near
            // miss of a known key is a warning there.
            let unknown = if entry.open { Unknown::SuggestOnly } else { Unknown::Warn };
            check_keys(sink, value, &entry.keys, path, &format!("`{path}`"), unknown);
        } else if let Some(values) = entry.values.as_deref() {
            for (key, item) in value.as_object().unwrap_or_default() {
                check_nested(sink, item, values, &format!("{path}.{}", key.name));
            }
        }
    } else if let (Some(items), Some(list)) = (entry.items.as_deref(), value.as_array()) {
        for (i, item) in list.iter().enumerate() {
            check_nested(sink, item, items, &format!("{path}.{i}"));
        }
    }
}

/// A value Claude Code's schema rejects, in its own words, with what Claude Code does then.
fn report_mismatch(sink: &mut Sink<'_>, m: &Mismatch<'_>) {
    let rule = if m.wrong_type { &rules::wrong_field_type::RULE } else { &rules::invalid_field_value::RULE };
    let suggestion = match &m.node.kind {
        crate::node::NodeKind::String(value) if !m.allowed.is_empty() => {
            crate::diagnostic::did_you_mean(value, m.allowed.iter().map(String::as_str))
                .map(|s| format!("did you mean `{s}`? "))
        }
        _ => None,
    }
    .unwrap_or_default();
    if m.dropped {
        sink.report(
            rule,
            m.node.span,
            format!("`{}`: {}; Claude Code skips it and keeps the rest of this file", m.path, m.text),
        )
        .severity(Severity::Warning)
        .help(format!(
            "{suggestion}Claude Code says so on stderr and uses the value of another settings file, or its default"
        ));
    } else {
        sink.report(rule, m.node.span, format!("`{}`: {}; Claude Code ignores this whole settings file", m.path, m.text))
            .severity(Severity::Error)
            .help(format!("{suggestion}Claude Code refuses the file (its rules, hooks and every other setting) with a notice on stderr"));
    }
}

/// Every value under `node` (managed settings) that Claude Code's schema rejects, one per
/// field: its tolerant reading takes each field of an object on its own.
fn managed_mismatches<'n>(
    entry: &'static KeySchema,
    node: &'n Node,
    path: &str,
    skip: &dyn Fn(&str) -> bool,
    out: &mut Vec<Mismatch<'n>>,
) {
    if skip(path) {
        return;
    }
    let before = out.len();
    if let (Some(entries), Some("object"), false) = (node.as_object(), entry.ty.as_deref(), entry.keys.is_empty()) {
        for (key, value) in entries {
            if let Some(child) = entry.keys.get(&key.name) {
                managed_mismatches(child, value, &format!("{path}.{}", key.name), skip, out);
            }
        }
    }
    if out.len() == before {
        out.extend(settings_schema::mismatch(entry, node, path, false, skip));
    }
}

/// The value as written, for a message: a string quoted, anything else its type.
fn written(node: &Node) -> String {
    match &node.kind {
        crate::node::NodeKind::String(s) => format!("the string \"{s}\""),
        crate::node::NodeKind::Number(n) => format!("the number {n}"),
        crate::node::NodeKind::Bool(b) => format!("`{b}`"),
        _ => node.type_name().to_string(),
    }
}

/// A value managed settings hold that Claude Code cannot read, with what it applies instead:
/// the key's restrictive value for a policy key, a boolean for `"true"`/`"false"`, nothing for
/// `false` where the only value is `"disable"`, and otherwise nothing (the value is ignored);
/// the rest of the file is enforced, with a notice at start.
fn report_managed_mismatch(sink: &mut Sink<'_>, m: &Mismatch<'_>) {
    use settings_schema::ManagedReading;
    let rule = if m.wrong_type { &rules::wrong_field_type::RULE } else { &rules::invalid_field_value::RULE };
    let key = m.path.rsplit('.').next().unwrap_or(&m.path);
    let (message, help) = match settings_schema::managed_reading(&m.path, m.node) {
        ManagedReading::Coerced(value) => (
            format!("`{}` holds {} where a boolean belongs; in managed settings Claude Code reads it as `{value}`", m.path, written(m.node)),
            "Claude Code says so at start; write it without quotes".to_string(),
        ),
        ManagedReading::Absent => (
            format!("`{}` is {}; in managed settings Claude Code reads it as absent (the key's only value is \"disable\")", m.path, written(m.node)),
            format!("remove `{key}` to leave it unset, or write `\"disable\"`"),
        ),
        ManagedReading::Restrictive(value) => (
            format!(
                "`{}`: {}; in managed settings Claude Code applies the key's restrictive value, `{}`, and enforces the rest of the file",
                m.path, m.text, value
            ),
            "Claude Code says so at start (\"Managed settings contain invalid entries\"); until the value is fixed the policy is at its strictest: write the value you mean".to_string(),
        ),
        ManagedReading::Locks(locks) => (
            format!(
                "`{}`: {}; in managed settings Claude Code applies the restrictive value of each policy key below it ({}) and enforces the rest of the file",
                m.path,
                m.text,
                locks.iter().map(|l| format!("`{l}`")).collect::<Vec<_>>().join(", ")
            ),
            format!("Claude Code says so at start (\"Managed settings contain invalid entries\"); write `{key}` as an object"),
        ),
        ManagedReading::EmptyAllowlist(leaves) => (
            format!(
                "`{}`: {}; in managed settings Claude Code enforces an empty allowlist instead ({leaves}) and the rest of the file",
                m.path, m.text
            ),
            "Claude Code says so at start (\"Managed settings contain invalid entries\"); write the list you mean".to_string(),
        ),
        ManagedReading::Ignored => (
            format!("`{}`: {}; in managed settings Claude Code ignores this value and enforces the rest of the file", m.path, m.text),
            "Claude Code says so at start (\"Managed settings contain invalid entries\"); write the value its schema takes, or remove it".to_string(),
        ),
    };
    sink.report(rule, m.node.span, message).severity(Severity::Warning).help(help);
}

/// Managed `allowedChannelPlugins`, read as Claude Code's tolerant reading of managed settings
/// reads it (measured): a string `plugin@marketplace` is taken as the object it names, with a
/// notice; another entry is ignored; a value that is not a list, or a list of which no entry
/// can be read, admits no channel plugin at all. The rest of the file is enforced either way.
fn check_channel_plugins(sink: &mut Sink<'_>, list: &Node) {
    const FORM: &str = r#"{"plugin": "NAME", "marketplace": "MARKETPLACE"}"#;
    let Some(entries) = list.as_array() else {
        sink.report(
            &rules::wrong_field_type::RULE,
            list.span,
            format!(
                "`allowedChannelPlugins` must be a list, found {}; Claude Code then admits no channel plugin",
                list.type_name()
            ),
        )
        .severity(Severity::Warning)
        .help(format!("write a list of `{FORM}` objects"));
        return;
    };
    let mut read = 0;
    for (i, entry) in entries.iter().enumerate() {
        match (entry.as_str(), crate::decl::declare::channel_plugin(entry)) {
            (Some(text), Some((plugin, marketplace))) => {
                read += 1;
                let object = format!(r#"{{"plugin": "{plugin}", "marketplace": "{marketplace}"}}"#);
                sink.report(
                    &rules::wrong_field_type::RULE,
                    entry.span,
                    format!("`allowedChannelPlugins.{i}` is the string \"{text}\"; Claude Code accepts it as `{object}` with a notice at start"),
                )
                .severity(Severity::Warning)
                .help(format!("write the documented object form `{object}`"));
            }
            (_, Some(_)) => read += 1,
            (_, None) => {
                let why = match entry.as_str() {
                    Some(text) => format!("the string \"{text}\" is not a `plugin@marketplace` id"),
                    None if entry.as_object().is_some() => "it needs string `plugin` and `marketplace`".to_string(),
                    None => format!("it is {}, not an object", entry.type_name()),
                };
                sink.report(
                    &rules::wrong_field_type::RULE,
                    entry.span,
                    format!("Claude Code ignores `allowedChannelPlugins.{i}`: {why}"),
                )
                .severity(Severity::Warning)
                .help(format!("write `{FORM}`; the other entries are enforced"));
            }
        }
    }
    if read == 0 && !entries.is_empty() {
        sink.report(
            &rules::invalid_field_value::RULE,
            list.span,
            "no entry of `allowedChannelPlugins` can be read; Claude Code then admits no channel plugin",
        )
        .severity(Severity::Warning)
        .help(format!("write each entry as `{FORM}`"));
    }
}

/// Managed `strictPluginOnlyCustomization`: `true`, `false` or a list of the surfaces it locks.
/// Claude Code drops a list entry that names no surface (it locks nothing) and takes any other
/// value as `true`, with a notice.
fn check_strict_customization(sink: &mut Sink<'_>, value: &Node) {
    use crate::decl::declare::SURFACES;
    let known = SURFACES.map(|s| format!("`{s}`")).join(", ");
    match (value.as_bool(), value.as_array()) {
        (Some(_), _) => {}
        (_, Some(list)) => {
            for entry in list.iter().filter(|e| e.as_str().is_none_or(|s| !SURFACES.contains(&s))) {
                sink.report(
                    &rules::invalid_field_value::RULE,
                    entry.span,
                    "this `strictPluginOnlyCustomization` entry names no surface; Claude Code drops it, so it locks nothing",
                )
                .severity(Severity::Warning)
                .help(format!("write one of {known}"));
            }
        }
        _ => {
            sink.report(
                &rules::wrong_field_type::RULE,
                value.span,
                format!(
                    "`strictPluginOnlyCustomization` must be `true`, `false` or a list of surfaces, found {}; Claude Code treats it as `true` (every surface locked)",
                    value.type_name()
                ),
            )
            .severity(Severity::Warning)
            .help(format!("write `true`, or the list of surfaces to lock ({known})"));
        }
    }
}

/// A key written in a settings file where Claude Code ignores it (a policy switch that counts
/// only in managed settings, written in a project).
fn check_scope(sink: &mut Sink<'_>, cx: &FileCx<'_>, key: &crate::node::Key, entry: &KeySchema) {
    let Some(scope) = &entry.scope else { return };
    let here = match cx.scope {
        FileScope::User => "user",
        FileScope::Project if super::file_name(cx.rel) == "settings.local.json" => "local",
        FileScope::Project => "project",
        _ => return,
    };
    if key.name == "managedMcpServers" || !scope.ignored_in.iter().any(|s| s == here) {
        return;
    }
    let counts: Vec<&str> =
        ["user", "project", "local"].into_iter().filter(|s| !scope.ignored_in.iter().any(|i| i == s)).collect();
    let (message, help) = if counts.is_empty() {
        (
            format!("Claude Code ignores `{}` in {here} settings: it counts only in managed settings", key.name),
            "only an administrator's managed settings (managed-settings.json, MDM or server-managed) set it; here it does nothing, so remove it".to_string(),
        )
    } else {
        (
            format!("Claude Code ignores `{}` in {here} settings", key.name),
            format!(
                "it counts only in managed settings and in {} settings; move it there, or remove it",
                counts.join(" and ")
            ),
        )
    };
    sink.report(&rules::ignored_field::RULE, key.span, message).help(help);
}

/// A `permissions.defaultMode` Claude Code does not accept, with its text. Its settings
/// schema validates the mode (after mapping the alias `manual` to `default`), and a settings
/// file that fails the schema is refused whole, so nothing in it loads.
pub(crate) fn refused_mode(root: &Node) -> Option<(&Node, &str)> {
    let mode = root.get("permissions")?.get("defaultMode")?;
    let value = mode.as_str()?;
    (!MODES.contains(&value)).then_some((mode, value))
}

/// Returns the number of hook handlers the settings declare.
pub fn check(sink: &mut Sink<'_>, cx: &FileCx<'_>, root: &Node) -> usize {
    if root.as_object().is_none() {
        sink.report(
            &rules::wrong_field_type::RULE,
            root.span,
            format!("settings must be an object, found {}", root.type_name()),
        );
        return 0;
    }
    let managed = cx.scope == FileScope::Managed;
    check_schema(sink, cx, root);
    super::helpers::check(sink, root);
    check_permissions(sink, cx, root);
    if let Some(list) = root.get("allowedChannelPlugins").filter(|_| managed) {
        check_channel_plugins(sink, list);
    }
    if let Some(value) = root.get("strictPluginOnlyCustomization").filter(|_| managed) {
        check_strict_customization(sink, value);
    }
    check_enabled_plugins(sink, root, managed);
    for list in ["allowedMcpServers", "deniedMcpServers"] {
        for entry in root.get(list).and_then(Node::as_array).unwrap_or_default() {
            check_policy_entry(sink, list, entry);
        }
    }
    if let Some(servers) = root.get("managedMcpServers").filter(|s| s.as_object().is_some()) {
        check_managed_servers(sink, cx, servers);
    }
    for field in ["extraKnownMarketplaces", "additionalMarketplaces"] {
        for (key, value) in root.get(field).and_then(Node::as_object).unwrap_or_default() {
            if let Some(source) = value.get("source") {
                super::marketplace::report_source_secrets(sink, source, &format!("marketplace `{}`", key.name));
            }
        }
    }
    check_env(sink, cx, root);
    match root.get("hooks") {
        Some(hooks) if hooks.as_object().is_some() => super::hooks::check_event_map(sink, cx, hooks, "`hooks`"),
        _ => 0,
    }
}

/// Checks each key against Claude Code's settings schema, and where it counts.
fn check_schema(sink: &mut Sink<'_>, cx: &FileCx<'_>, root: &Node) {
    let table = settings_schema::table();
    let managed = cx.scope == FileScope::Managed;
    check_keys(sink, root, &table.keys, "", "settings", Unknown::Warn);
    for (key, value) in root.as_object().unwrap_or_default() {
        if let Some(entry) = table.keys.get(&key.name) {
            // The MCP lists' entries are checked below; in managed settings a value that is no
            // list at all is read as Claude Code's tolerant reading reads it.
            let whole_list = managed && matches!(key.name.as_str(), "allowedMcpServers" | "deniedMcpServers");
            let whole_list = whole_list && value.as_array().is_none();
            let skip = |path: &str| {
                (READ_ELSEWHERE.contains(&path) && !whole_list) || (managed && path == "allowedChannelPlugins")
            };
            if managed {
                let mut found = Vec::new();
                managed_mismatches(entry, value, &key.name, &skip, &mut found);
                for m in &found {
                    report_managed_mismatch(sink, m);
                }
            } else if let Some(m) = settings_schema::mismatch(entry, value, &key.name, false, &skip) {
                report_mismatch(sink, &m);
            }
            check_scope(sink, cx, key, entry);
        }
    }
}

/// Checks the `allow`, `ask` and `deny` rules and the `defaultMode` of `permissions`.
fn check_permissions(sink: &mut Sink<'_>, cx: &FileCx<'_>, root: &Node) {
    let managed = cx.scope == FileScope::Managed;
    if let Some(permissions) = root.get("permissions").filter(|p| p.as_object().is_some()) {
        let source = cx.json_source.unwrap_or("");
        for (key, usage) in [("allow", Use::Allow), ("ask", Use::Ask), ("deny", Use::Deny)] {
            if let Some(list) = permissions.get(key).filter(|l| l.as_array().is_some()) {
                permissions::check_value(sink, cx, source, list, usage);
            }
        }
        if let Some((mode, value)) = refused_mode(root).filter(|_| !managed) {
            let list = MODES.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", ");
            let d = sink
                .report(
                    &rules::invalid_field_value::RULE,
                    mode.span,
                    format!(
                        "`defaultMode: {value}` is not one of {list}; Claude Code ignores this whole settings file"
                    ),
                )
                .severity(Severity::Error);
            let consequence =
                "Claude Code refuses the file (its rules, hooks and every other setting) with a notice on stderr";
            match crate::diagnostic::did_you_mean(value, MODES.iter().copied()) {
                Some(s) => d.help(format!("did you mean `{s}`? {consequence}")),
                None => d.help(format!("{consequence}; write one of the modes, or remove `defaultMode`")),
            };
        }
    }
}

/// Checks each `enabledPlugins` entry: `true` or `false`, keyed by `plugin@marketplace`.
fn check_enabled_plugins(sink: &mut Sink<'_>, root: &Node, managed: bool) {
    if let Some(plugins) = root.get("enabledPlugins").and_then(Node::as_object) {
        for (key, value) in plugins {
            if value.as_bool().is_none() && !matches!(value.kind, crate::node::NodeKind::Array(_)) {
                let d = sink.report(
                    &rules::wrong_field_type::RULE,
                    value.span,
                    format!("`enabledPlugins.{}` must be `true` or `false`, found {}", key.name, value.type_name()),
                );
                if managed {
                    d.severity(Severity::Warning).help(
                        "in managed settings Claude Code ignores this entry (the plugin is neither force-enabled nor blocked) and keeps the rest",
                    );
                }
            }
            if !key.name.contains('@') {
                sink.report(
                    &rules::invalid_field_value::RULE,
                    key.span,
                    format!("`{}` does not name a marketplace", key.name),
                )
                .help(format!("write `\"{}@<marketplace>\"`", key.name));
            }
        }
    }
}

/// Checks each `env` value: text Claude Code can use, and no literal secret.
fn check_env(sink: &mut Sink<'_>, cx: &FileCx<'_>, root: &Node) {
    if let Some(env) = root.get("env").and_then(Node::as_object) {
        // Local settings are each user's own and untracked: a secret there is where it belongs.
        let local = crate::decl::file_name(cx.rel) == "settings.local.json";
        for (key, value) in env {
            use crate::node::NodeKind;
            // Claude Code loads the file whatever the values are (measured: a number, a
            // boolean, an object or null beside a string variable that took effect, with no
            // notice); a number or a boolean is the variable's text, anything else is no usable
            // value.
            let text = match &value.kind {
                NodeKind::String(s) => Some(s.as_str()),
                NodeKind::Number(n) => Some(n.as_str()),
                NodeKind::Bool(_) => None,
                _ => {
                    sink.report(
                        &rules::wrong_field_type::RULE,
                        value.span,
                        format!(
                            "`env.{}` is {}: Claude Code loads the file, but the variable gets no usable value",
                            key.name,
                            value.type_name()
                        ),
                    )
                    .severity(Severity::Warning)
                    .help("write the value as a string (`\"1\"`, `\"true\"`)");
                    None
                }
            };
            match text {
                None => {}
                Some(text) if crate::secrets::looks_secret(Some(&key.name), text) => {
                    let d = sink
                        .report(
                            &rules::literal_secret::RULE,
                            value.span,
                            format!("`env.{}` holds what looks like a literal secret", key.name),
                        )
                        .secret();
                    if local {
                        d.severity(crate::diagnostic::Severity::Info).help("this file is yours and untracked; still, a secret is safer in the environment or a keychain than in a plain file");
                    } else {
                        d.help("settings files are committed with the repository; set it in your environment or in `.claude/settings.local.json`");
                    }
                }
                Some(_) => {}
            }
        }
    }
}

/// `managedMcpServers`: servers an administrator adds beside everyone else's (Claude Code
/// reads them from managed settings only, and accepts only `http`/`sse` servers with an
/// `https://` URL; it refuses the others and says so).
fn check_managed_servers(sink: &mut Sink<'_>, cx: &FileCx<'_>, servers: &Node) {
    if cx.scope != super::FileScope::Managed {
        let span = servers.span;
        sink.report(&rules::ignored_field::RULE, span, "Claude Code reads `managedMcpServers` only from managed settings")
            .help("declare the servers in `.mcp.json` (project) or `~/.claude.json` (user), or move this to managed-settings.json");
        return;
    }
    let before = sink.decls.len();
    super::mcp::check_servers(sink, cx, servers, "`managedMcpServers`", false);
    let mut refused: Vec<String> = Vec::new();
    for (name, config) in servers.as_object().unwrap_or_default() {
        let why = if let Some(command) = config.get("command") {
            Some((
                command.span,
                "`command` is not allowed in managed settings: only `http` or `sse` servers with an `https://` URL",
            ))
        } else {
            match config.get("url") {
                Some(url) if !url.as_str().is_some_and(|u| u.starts_with("https://")) => {
                    Some((url.span, "managed settings servers must use a valid `https://` URL"))
                }
                _ => None,
            }
        };
        if let Some((span, message)) = why {
            sink.report(&rules::invalid_field_value::RULE, span, format!("managed server `{}`: {message}", name.name))
                .severity(crate::diagnostic::Severity::Error)
                .help("Claude Code refuses this server and starts the others");
            refused.push(name.name.clone());
        }
    }
    // Refused servers never reach the session.
    let mut i = before;
    while i < sink.decls.len() {
        let refuse = matches!(&sink.decls[i].item, crate::model::Item::Server(s) if refused.contains(&s.name));
        if refuse {
            sink.decls.remove(i);
        } else {
            i += 1;
        }
    }
}

/// An `allowedMcpServers` / `deniedMcpServers` entry: an object with exactly one of
/// `serverName`, `serverCommand` (an argv array) and `serverUrl`.
fn check_policy_entry(sink: &mut Sink<'_>, list: &str, entry: &Node) {
    const KEYS: [&str; 3] = ["serverName", "serverCommand", "serverUrl"];
    if entry.as_object().is_none() {
        sink.report(
            &rules::wrong_field_type::RULE,
            entry.span,
            format!("an `{list}` entry must be an object, found {}", entry.type_name()),
        )
        .help("write `{\"serverName\": \"github\"}`, `{\"serverCommand\": [\"npx\", \"-y\", \"pkg\"]}` or `{\"serverUrl\": \"https://*.example.com/*\"}`");
        return;
    }
    let present: Vec<&str> = KEYS.into_iter().filter(|k| entry.get(k).is_some()).collect();
    if present.len() != 1 {
        let found = if present.is_empty() {
            "none of them".to_string()
        } else {
            present.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(" and ")
        };
        sink.report(
            &rules::invalid_field_value::RULE,
            entry.span,
            format!(
                "an `{list}` entry needs exactly one of `serverName`, `serverCommand`, `serverUrl`; it has {found}"
            ),
        )
        .severity(Severity::Error)
        .help("split it into one entry per key; Claude Code ignores the entry (the rest of the file loads), so it never matches");
        return;
    }
    let value = entry.get(present[0]).unwrap_or(entry);
    let problem = match present[0] {
        "serverName" => match value.as_str() {
            None => Some(format!("`serverName` must be a string, found {}", value.type_name())),
            Some(name)
                if list == "allowedMcpServers"
                    && (name.is_empty()
                        || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')) =>
            {
                Some(format!("`serverName: {name}` in an allowlist may use only letters, digits, `-` and `_`"))
            }
            Some("") => Some("`serverName` is empty".to_string()),
            Some(_) => None,
        },
        "serverCommand" => match value.as_array() {
            Some(argv) if !argv.is_empty() && argv.iter().all(|a| a.as_str().is_some()) => None,
            _ => Some("`serverCommand` must be a non-empty array of strings (the exact argv)".to_string()),
        },
        _ => match value.as_str() {
            Some(url) if !url.is_empty() => None,
            _ => Some("`serverUrl` must be a URL pattern string (`*` matches anything)".to_string()),
        },
    };
    if let Some(message) = problem {
        sink.report(&rules::invalid_field_value::RULE, value.span, message)
            .severity(Severity::Error)
            .help("Claude Code ignores the entry (the rest of the file loads), so it never matches");
    }
}

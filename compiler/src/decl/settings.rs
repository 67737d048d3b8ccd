//! `settings.json` / `settings.local.json` (and managed settings): permissions, plugin
//! enablement, MCP approval keys and hooks. Claude Code has well over a hundred settings;
//! capc types the ones that change capabilities and only suggests spellings for the rest.

use super::permissions::{self, Use};
use super::FileCx;
use crate::diagnostic::{Severity, Sink};
use crate::node::Node;
use crate::rules;
use crate::schema::{check_fields, field, Field, Ty, Unknown};

pub const FIELDS: &[Field] = &[
    field("$schema", Ty::String),
    field("permissions", Ty::Object),
    field("enabledPlugins", Ty::Object),
    field("extraKnownMarketplaces", Ty::Object),
    field("additionalMarketplaces", Ty::Object),
    field("enableAllProjectMcpServers", Ty::Bool),
    field("enabledMcpjsonServers", Ty::StringArray),
    field("disabledMcpjsonServers", Ty::StringArray),
    field("allowedMcpServers", Ty::Array),
    field("deniedMcpServers", Ty::Array),
    field("allowManagedMcpServersOnly", Ty::Bool),
    field("managedMcpServers", Ty::Object),
    field("allowManagedHooksOnly", Ty::Bool),
    field("allowManagedPermissionRulesOnly", Ty::Bool),
    field("hooks", Ty::Object),
    field("disableAllHooks", Ty::Bool),
    field("allowedHttpHookUrls", Ty::StringArray),
    field("httpHookAllowedEnvVars", Ty::StringArray),
    field("env", Ty::Object),
    field("model", Ty::String),
    field("availableModels", Ty::StringArray),
    field("fallbackModel", Ty::String),
    field("effortLevel", Ty::String),
    field("outputStyle", Ty::String),
    field("statusLine", Ty::Object),
    field("subagentStatusLine", Ty::Object),
    field("fileSuggestion", Ty::Object),
    field("apiKeyHelper", Ty::String),
    field("awsAuthRefresh", Ty::String),
    field("awsCredentialExport", Ty::String),
    field("cleanupPeriodDays", Ty::Number),
    field("includeCoAuthoredBy", Ty::Bool),
    field("includeGitInstructions", Ty::Bool),
    field("attribution", Ty::Object),
    field("forceLoginMethod", Ty::String),
    field("forceLoginOrgUUID", Ty::Any),
    field("otelHeadersHelper", Ty::String),
    field("language", Ty::String),
    field("alwaysThinkingEnabled", Ty::Bool),
    field("spinnerTipsEnabled", Ty::Bool),
    field("spinnerTipsOverride", Ty::Object),
    field("spinnerVerbs", Ty::Object),
    field("companyAnnouncements", Ty::StringArray),
    field("autoUpdatesChannel", Ty::String),
    field("respectGitignore", Ty::Bool),
    field("sandbox", Ty::Object),
    field("skillOverrides", Ty::Object),
    field("skillListingBudgetFraction", Ty::Number),
    field("skillListingMaxDescChars", Ty::Number),
    field("disableBundledSkills", Ty::Bool),
    field("disableSkillShellExecution", Ty::Bool),
    field("syncClaudeAiSkills", Ty::Bool),
    field("strictPluginOnlyCustomization", Ty::Any),
    field("strictKnownMarketplaces", Ty::Array),
    field("blockedMarketplaces", Ty::Array),
    field("disableCommandPluginSources", Ty::Bool),
    field("disableSideloadFlags", Ty::Bool),
    field("disableClaudeAiConnectors", Ty::Bool),
    field("allowAllClaudeAiMcps", Ty::Bool),
    field("pluginConfigs", Ty::Object),
    field("agent", Ty::String),
    field("disableWorkflows", Ty::Bool),
    field("disableArtifact", Ty::Bool),
    field("disableAgentView", Ty::Bool),
    field("useAutoModeDuringPlan", Ty::Bool),
    field("autoMode", Ty::Object),
    field("worktree", Ty::Object),
    field("plansDirectory", Ty::String),
    field("prefersReducedMotion", Ty::Bool),
    field("showTurnDuration", Ty::Bool),
    field("terminalProgressBarEnabled", Ty::Bool),
    field("teammateMode", Ty::String),
    field("autoMemoryEnabled", Ty::Bool),
    field("claudeMdExcludes", Ty::StringArray),
];

const PERMISSION_FIELDS: &[Field] = &[
    field("allow", Ty::StringArray),
    field("deny", Ty::StringArray),
    field("ask", Ty::StringArray),
    field("additionalDirectories", Ty::StringArray),
    field("defaultMode", Ty::String),
    field("disableBypassPermissionsMode", Ty::String),
    field("disableAutoMode", Ty::String),
];

const MODES: &[&str] = &["default", "manual", "acceptEdits", "plan", "auto", "dontAsk", "bypassPermissions"];

/// What Claude Code 2.1.332's notice says of a `permissions.defaultMode` it refuses (its
/// schema's list, which leaves out the `manual` it also accepts).
pub const REFUSED_MODE_MESSAGE: &str =
    "Invalid value. Expected one of: \"acceptEdits\", \"auto\", \"bypassPermissions\", \"default\", \"dontAsk\", \"plan\"";

/// Why Claude Code 2.1.332 refuses a settings file whole before reading any key, in its
/// notice's words (`FILE: MESSAGE`): text that is not JSON (`parsed` is `None`; an empty file
/// is read as no settings), or JSON that is not an object.
pub fn refused_whole(text: &str, parsed: Option<&Node>) -> Option<&'static str> {
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

/// A `permissions.defaultMode` Claude Code does not accept, with its text. Its settings
/// schema validates the mode (after mapping the alias `manual` to `default`), and a settings
/// file that fails the schema is refused whole, so nothing in it loads.
pub fn refused_mode(root: &Node) -> Option<(&Node, &str)> {
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
    check_fields(sink, root, FIELDS, "settings", Unknown::SuggestOnly);
    super::helpers::check(sink, root);
    if let Some(permissions) = root.get("permissions").filter(|p| p.as_object().is_some()) {
        check_fields(sink, permissions, PERMISSION_FIELDS, "`permissions`", Unknown::Warn);
        let source = cx.json_source.unwrap_or("");
        for (key, usage) in [("allow", Use::Allow), ("ask", Use::Ask), ("deny", Use::Deny)] {
            if let Some(list) = permissions.get(key).filter(|l| l.as_array().is_some()) {
                permissions::check_value(sink, cx, source, list, usage);
            }
        }
        if let Some((mode, value)) = refused_mode(root) {
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
    if let Some(plugins) = root.get("enabledPlugins").and_then(Node::as_object) {
        for (key, value) in plugins {
            if value.as_bool().is_none() && !matches!(value.kind, crate::node::NodeKind::Array(_)) {
                sink.report(
                    &rules::wrong_field_type::RULE,
                    value.span,
                    format!("`enabledPlugins.{}` must be `true` or `false`, found {}", key.name, value.type_name()),
                );
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
    if let Some(env) = root.get("env").and_then(Node::as_object) {
        // Local settings are each user's own and untracked: a secret there is where it belongs.
        let local = crate::decl::file_name(cx.rel) == "settings.local.json";
        for (key, value) in env {
            match value.as_str() {
                None => {
                    sink.report(
                        &rules::wrong_field_type::RULE,
                        value.span,
                        format!("`env.{}` must be a string, found {}", key.name, value.type_name()),
                    );
                }
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
    match root.get("hooks") {
        Some(hooks) if hooks.as_object().is_some() => super::hooks::check_event_map(sink, cx, hooks, "`hooks`"),
        _ => 0,
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
        .help("split it into one entry per key; Claude Code's settings schema rejects the entry");
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
            .help("Claude Code's settings schema rejects the entry");
    }
}

//! Policy switches through the binary, as Claude Code applies them (measured with its
//! managed settings, CONTRIBUTING.md's "Comparing with Claude Code itself"): what `capc lock
//! --managed-dir` records as removed, what `capc ls` says, what a `capc session` turn then does,
//! and `capc diff` calling a loosened policy an escalation.

use crate::support::{stderr, stdout, write_file};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

fn capc(dir: &Path, args: &[&str]) -> Output {
    crate::support::capc_fed(dir, args, "")
}

/// One turn of `capc session . --json ARGS` typing `input` in `context`.
fn turn(dir: &Path, args: &[&str], input: &str, context: Value) -> Value {
    let line = serde_json::json!({"id": 1, "type": "turn", "input": input, "context": context, "include": ["request"]});
    let mut all = vec!["session", ".", "--json"];
    all.extend_from_slice(args);
    let out = crate::support::capc_fed(dir, &all, format!("{line}\n"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    serde_json::from_str(stdout(&out).lines().next().expect("an answer")).expect("json")
}

/// A project with a hook, an allow rule, a deny rule and a command whose `!` injection only the
/// allow rule lets run (the tree of the measurement), and a managed folder.
fn project(managed: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().canonicalize().expect("canonical");
    let (project, managed_dir) = (root.join("project"), root.join("managed"));
    write_file(
        &project,
        ".claude/settings.json",
        r#"{
  "hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "./scripts/log-prompt.sh"}]}]},
  "permissions": {"deny": ["WebFetch"], "allow": ["Bash(touch:*)"]}
}
"#,
    );
    write_file(
        &project,
        ".claude/commands/mark.md",
        "---\ndescription: mark\n---\nOut: !`touch injected.txt && echo injected`\n",
    );
    write_file(&managed_dir, "managed-settings.json", managed);
    (dir, project, managed_dir)
}

fn deferred(answer: &Value) -> Vec<String> {
    let list = answer["request"]["deferred"].as_array().expect("deferred tools");
    list.iter().map(|t| t.as_str().unwrap_or_default().to_string()).collect()
}

/// `allowManagedHooksOnly` and `allowManagedPermissionRulesOnly` in managed settings: the
/// project's hook and both its rules are out of the lock and listed as removed, with the key
/// and the file; `capc ls` says so; a turn keeps `WebFetch` (the deny rule is not applied) and
/// refuses the injection (the allow rule is not applied), as Claude Code did. Without the
/// managed folder the same project denies `WebFetch` and runs the injection.
#[test]
fn managed_only_switches_remove_hooks_and_rules_from_lock_ls_and_session() {
    let (_dir, project, managed) =
        project(r#"{"allowManagedHooksOnly": true, "allowManagedPermissionRulesOnly": true}"#);
    let managed_arg = managed.to_str().expect("utf-8");
    let out = capc(&project, &["lock", ".", "--managed-dir", managed_arg]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("0 hooks, 0 permission rules"), "{}", stderr(&out));
    let lock = std::fs::read_to_string(project.join("capabilities.lock")).expect("lock");
    for (kind, name, key) in [
        ("hook", "UserPromptSubmit: ./scripts/log-prompt.sh", "allowManagedHooksOnly"),
        ("permission", "allow Bash(touch:*)", "allowManagedPermissionRulesOnly"),
        ("permission", "deny WebFetch", "allowManagedPermissionRulesOnly"),
    ] {
        let entry = format!(
            "[[removed_by_policy]]\nkind = \"{kind}\"\nname = \"{name}\"\npath = \".claude/settings.json\"\nkey = \"{key}\"\nby = \"<managed>/managed-settings.json\""
        );
        assert!(lock.contains(&entry), "{entry}\nnot in\n{lock}");
    }
    assert!(lock.contains("[[policy]]\nkey = \"allowManagedHooksOnly\"\nvalue = \"true\""), "{lock}");

    let ls = capc(&project, &["ls", ".", "--managed-dir", managed_arg]);
    let text = stdout(&ls);
    assert!(text.contains("Policy: 3 declarations removed"), "{text}");
    assert!(
        text.contains("✗ permission deny WebFetch (.claude/settings.json): removed by allowManagedPermissionRulesOnly in <managed>/managed-settings.json"),
        "{text}"
    );

    let trusted = serde_json::json!({"trusted": true});
    let hello = turn(&project, &["--managed-dir", managed_arg], "hello", trusted.clone());
    assert!(deferred(&hello).contains(&"WebFetch".to_string()), "{hello}");
    let mark = turn(&project, &["--managed-dir", managed_arg], "/mark", trusted.clone());
    assert_eq!(mark["result"]["kind"], "shell_error", "{mark}");
    assert!(!project.join("injected.txt").exists());

    // The same project without the managed folder.
    let out = capc(&project, &["lock", "."]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!std::fs::read_to_string(project.join("capabilities.lock")).expect("lock").contains("removed_by_policy"));
    let hello = turn(&project, &[], "hello", trusted.clone());
    assert!(!deferred(&hello).contains(&"WebFetch".to_string()), "{hello}");
    let mark = turn(&project, &[], "/mark", trusted);
    assert!(mark["request"]["texts"].to_string().contains("Out: injected"), "{mark}");
}

/// `disableAllHooks` in managed settings removes the managed hooks too; in project settings it
/// spares them.
#[test]
fn disable_all_hooks_spares_managed_hooks_only_when_a_user_sets_it() {
    let managed_hook = r#""hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/opt/acme/audit"}]}]}"#;
    let (_dir, project, managed) = project(&format!("{{\"disableAllHooks\": true, {managed_hook}}}"));
    let managed_arg = managed.to_str().expect("utf-8");
    let out = capc(&project, &["lock", ".", "--managed-dir", managed_arg]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lock = std::fs::read_to_string(project.join("capabilities.lock")).expect("lock");
    assert!(!lock.contains("[[hook]]"), "{lock}");
    assert!(
        lock.contains(
            "name = \"Stop: /opt/acme/audit\"\npath = \"<managed>/managed-settings.json\"\nkey = \"disableAllHooks\""
        ),
        "{lock}"
    );

    write_file(&managed, "managed-settings.json", &format!("{{{managed_hook}}}"));
    let settings = std::fs::read_to_string(project.join(".claude/settings.json")).expect("settings");
    write_file(&project, ".claude/settings.json", &settings.replacen('{', "{\"disableAllHooks\": true,", 1));
    let out = capc(&project, &["lock", ".", "--managed-dir", managed_arg]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lock = std::fs::read_to_string(project.join("capabilities.lock")).expect("lock");
    assert!(lock.contains("[[hook]]\nevent = \"Stop\""), "{lock}");
    assert!(
        lock.contains("name = \"UserPromptSubmit: ./scripts/log-prompt.sh\"\npath = \".claude/settings.json\"\nkey = \"disableAllHooks\"\nby = \".claude/settings.json\""),
        "{lock}"
    );
}

/// `disableSkillShellExecution` and `permissions.disableBypassPermissionsMode` in settings reach
/// the session through the lock: the injection is replaced by Claude Code's placeholder, and a
/// turn asked to bypass permissions is decided in the default mode.
#[test]
fn settings_switches_reach_the_session() {
    let (_dir, project, _) = project("{}");
    write_file(&project, ".claude/settings.json", r#"{"disableSkillShellExecution": true}"#);
    assert_eq!(capc(&project, &["lock", "."]).status.code(), Some(0));
    let mark = turn(&project, &[], "/mark", serde_json::json!({"trusted": true}));
    assert!(
        mark["request"]["texts"].to_string().contains("Out: [shell command execution disabled by policy]"),
        "{mark}"
    );
    assert!(!project.join("injected.txt").exists());

    let bypass = serde_json::json!({"trusted": true, "permission_mode": "bypassPermissions"});
    write_file(&project, ".claude/settings.json", "{}");
    assert_eq!(capc(&project, &["lock", "."]).status.code(), Some(0));
    let mark = turn(&project, &[], "/mark", bypass.clone());
    assert!(mark["request"]["texts"].to_string().contains("Out: injected"), "{mark}");
    std::fs::remove_file(project.join("injected.txt")).expect("the injection ran");

    write_file(&project, ".claude/settings.json", r#"{"permissions": {"disableBypassPermissionsMode": "disable"}}"#);
    assert_eq!(capc(&project, &["lock", "."]).status.code(), Some(0));
    let mark = turn(&project, &[], "/mark", bypass);
    assert_eq!(mark["result"]["kind"], "shell_error", "{mark}");
    assert!(!project.join("injected.txt").exists());
}

/// A lock written under a managed policy against one written without it: each switch gone and
/// each declaration back in force is an escalation.
#[test]
fn diff_calls_a_loosened_managed_policy_an_escalation() {
    let (_dir, project, managed) = project(r#"{"allowManagedHooksOnly": true}"#);
    let managed_arg = managed.to_str().expect("utf-8");
    assert_eq!(capc(&project, &["lock", ".", "--managed-dir", managed_arg]).status.code(), Some(0));
    std::fs::rename(project.join("capabilities.lock"), project.join("old.lock")).expect("rename");
    assert_eq!(capc(&project, &["lock", "."]).status.code(), Some(0));
    let out = capc(&project, &["diff", "old.lock", "capabilities.lock", "--fail-on", "escalation"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}{}", stderr(&out));
    assert!(
        text.contains(
            "policy loosened: `allowManagedHooksOnly` (<managed>/managed-settings.json) is no longer in force"
        ),
        "{text}"
    );
    assert!(
        text.contains("policy loosened: hook `UserPromptSubmit: ./scripts/log-prompt.sh` (.claude/settings.json) is in force again; `allowManagedHooksOnly` in <managed>/managed-settings.json removed it"),
        "{text}"
    );
}

/// The channel keys, read from managed settings only: `capc ls` and the lock record them as
/// policy switches; the project's own `channelsEnabled` records nothing. Managed settings that
/// turn channels on, or admit another channel plugin, escalate; turning them off does not.
#[test]
fn channel_policy_is_recorded_from_managed_settings_and_loosening_it_escalates() {
    let strict =
        r#"{"channelsEnabled": false, "allowedChannelPlugins": [{"plugin": "telegram", "marketplace": "acme"}]}"#;
    let (_dir, project, managed) = project(strict);
    write_file(&project, ".claude/settings.local.json", r#"{"channelsEnabled": true}"#);
    let managed_arg = managed.to_str().expect("utf-8");
    assert_eq!(capc(&project, &["lock", ".", "--managed-dir", managed_arg]).status.code(), Some(0));
    let lock = std::fs::read_to_string(project.join("capabilities.lock")).expect("lock");
    assert!(lock.contains("key = \"channelsEnabled\"\nvalue = \"false\""), "{lock}");
    assert!(lock.contains("key = \"allowedChannelPlugins\"\nvalue = \"telegram@acme\""), "{lock}");
    let ls = stdout(&capc(&project, &["ls", ".", "--managed-dir", managed_arg]));
    assert!(ls.contains("channelsEnabled") && ls.contains("telegram@acme"), "{ls}");
    std::fs::rename(project.join("capabilities.lock"), project.join("old.lock")).expect("rename");

    write_file(
        &managed,
        "managed-settings.json",
        r#"{"channelsEnabled": true, "allowedChannelPlugins": [{"plugin": "telegram", "marketplace": "acme"}, {"plugin": "slack", "marketplace": "acme"}]}"#,
    );
    assert_eq!(capc(&project, &["lock", ".", "--managed-dir", managed_arg]).status.code(), Some(0));
    let out = capc(&project, &["diff", "old.lock", "capabilities.lock", "--fail-on", "escalation"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}{}", stderr(&out));
    assert!(text.contains("policy loosened: `channelsEnabled` is `true` (<managed>/managed-settings.json): channel plugins may push messages into sessions"), "{text}");
    assert!(text.contains("policy loosened: `allowedChannelPlugins` now admits `slack@acme`"), "{text}");

    // Back: tighter than the loosened lock, so nothing escalates.
    let out = capc(&project, &["diff", "capabilities.lock", "old.lock", "--fail-on", "escalation"]);
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));

    // Managed settings without the allowlist: the default one applies.
    std::fs::rename(project.join("old.lock"), project.join("strict.lock")).expect("rename");
    write_file(&managed, "managed-settings.json", r#"{"channelsEnabled": false}"#);
    assert_eq!(capc(&project, &["lock", ".", "--managed-dir", managed_arg]).status.code(), Some(0));
    let text = stdout(&capc(&project, &["diff", "strict.lock", "capabilities.lock"]));
    assert!(
        text.contains(
            "policy loosened: `allowedChannelPlugins` (<managed>/managed-settings.json) is no longer in force"
        ),
        "{text}"
    );
}

/// `deniedMcpServers` as Claude Code matches it: a URL pattern without a query also
/// keeps out the URL with a query or a trailing slash; an entry only the project's settings
/// hold keeps out the project's server but not one the organization provides.
#[test]
fn denied_mcp_servers_match_queries_and_trailing_slashes_and_spare_managed_servers() {
    let (_dir, project, managed) = project(r#"{"deniedMcpServers": [{"serverUrl": "https://mcp.example.com/api"}]}"#);
    write_file(
        &project,
        ".mcp.json",
        r#"{"mcpServers": {
  "query": {"type": "http", "url": "https://mcp.example.com/api?team=1"},
  "slash": {"type": "http", "url": "https://mcp.example.com/api/"},
  "other": {"type": "http", "url": "https://mcp.example.com/apis"},
  "local-tool": {"command": "./bin/tool"}
}}
"#,
    );
    write_file(
        &project,
        ".claude/settings.json",
        r#"{"deniedMcpServers": [{"serverName": "audit"}, {"serverName": "local-tool"}]}"#,
    );
    write_file(
        &managed,
        "managed-mcp.json",
        r#"{"mcpServers": {"audit": {"type": "http", "url": "https://audit.acme.test/mcp"}}}"#,
    );
    let out = capc(&project, &["lock", ".", "--managed-dir", managed.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lock = std::fs::read_to_string(project.join("capabilities.lock")).expect("lock");
    let removed = |name: &str, key: &str| {
        lock.contains(&format!(
            "[[removed_by_policy]]\nkind = \"mcp-server\"\nname = \"{name}\"\npath = \".mcp.json\"\nkey = \"{key}\""
        ))
    };
    assert!(removed("query", "deniedMcpServers") && removed("slash", "deniedMcpServers"), "{lock}");
    assert!(!lock.contains("name = \"other\"\npath = \".mcp.json\"\nkey"), "{lock}");
    assert!(!lock.contains("name = \"audit\"\npath = \"<managed>/managed-mcp.json\"\nkey"), "{lock}");
}

/// Managed settings are read with Claude Code's tolerant reading (measured with them in
/// `/etc/claude-code`): a `plugin@marketplace` string in `allowedChannelPlugins` is accepted as
/// the entry it names (with a notice), an entry it cannot read and a wrong-typed key are ignored,
/// and the rest of the file is still enforced; `check` warns at each with what to write, and the lock
/// records the policy and the deny rule. A list that is not a list admits no channel plugin.
/// The same string in a project's settings refuses that file, as Claude Code refuses it.
#[test]
fn managed_settings_keep_their_policy_past_a_value_claude_code_cannot_read() {
    let managed_json = r#"{"channelsEnabled": true, "model": 3, "permissions": {"deny": ["Bash"]},
 "allowedChannelPlugins": ["telegram@acme", {"plugin": "x"}, 3, {"plugin": "slack", "marketplace": "acme"}]}"#;
    let (_dir, project, managed) = project(managed_json);
    let managed_arg = managed.to_str().expect("utf-8");
    let out = capc(&project, &["check", ".", "--managed-dir", managed_arg, "--format", "json"]);
    let report: Value = serde_json::from_str(&stdout(&out)).expect("json");
    let managed_findings: Vec<(String, String, u64, u64, String)> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["path"].as_str().is_some_and(|p| p.contains("managed-settings.json")))
        .map(|d| {
            let s = |k: &str| d[k].as_str().unwrap_or_default().to_string();
            (s("severity"), s("rule"), d["line"].as_u64().unwrap_or(0), d["column"].as_u64().unwrap_or(0), s("message"))
        })
        .collect();
    assert!(managed_findings.iter().all(|f| f.0 == "warning"), "{managed_findings:#?}");
    let messages: Vec<&str> = managed_findings.iter().map(|f| f.4.as_str()).collect();
    for expected in [
        "`allowedChannelPlugins.0` is the string \"telegram@acme\"; Claude Code accepts it as `{\"plugin\": \"telegram\", \"marketplace\": \"acme\"}` with a notice at start",
        "Claude Code ignores `allowedChannelPlugins.1`: it needs string `plugin` and `marketplace`",
        "Claude Code ignores `allowedChannelPlugins.2`: it is a number, not an object",
        "`model`: Expected string, but received number; in managed settings Claude Code ignores this value and enforces the rest of the file",
    ] {
        assert!(messages.contains(&expected), "{expected}\n{managed_findings:#?}");
    }
    let string_entry = managed_findings.iter().find(|f| f.4.contains("telegram@acme")).expect("the string entry");
    assert_eq!((string_entry.2, string_entry.3), (2, 28), "{string_entry:?}");

    assert_eq!(capc(&project, &["lock", ".", "--managed-dir", managed_arg]).status.code(), Some(0));
    let lock = std::fs::read_to_string(project.join("capabilities.lock")).expect("lock");
    assert!(lock.contains("key = \"allowedChannelPlugins\"\nvalue = \"slack@acme, telegram@acme\""), "{lock}");
    assert!(!lock.contains("[[settings_not_loaded]]"), "{lock}");
    let ls = stdout(&capc(&project, &["ls", ".", "--managed-dir", managed_arg]));
    assert!(ls.contains("removed by deny rules: Bash"), "{ls}");

    let help = report["diagnostics"].as_array().expect("diagnostics").iter().find_map(|d| {
        d["message"].as_str()?.contains("telegram@acme").then(|| d["help"].as_str().unwrap_or_default().to_string())
    });
    assert_eq!(
        help.as_deref(),
        Some(r#"write the documented object form `{"plugin": "telegram", "marketplace": "acme"}`"#)
    );

    // Not a list: no channel plugin admitted, the rest enforced.
    write_file(
        &managed,
        "managed-settings.json",
        r#"{"allowedChannelPlugins": "telegram@acme", "permissions": {"deny": ["Bash"]}}"#,
    );
    assert_eq!(capc(&project, &["lock", ".", "--managed-dir", managed_arg]).status.code(), Some(0));
    let lock = std::fs::read_to_string(project.join("capabilities.lock")).expect("lock");
    assert!(lock.contains("key = \"allowedChannelPlugins\"\nvalue = \"\""), "{lock}");
    let ls = stdout(&capc(&project, &["ls", ".", "--managed-dir", managed_arg]));
    assert!(ls.contains("removed by deny rules: Bash"), "{ls}");

    // In a project's settings the same string refuses the file.
    write_file(&project, ".claude/settings.local.json", r#"{"allowedChannelPlugins": ["telegram@acme"]}"#);
    let out = capc(&project, &["check", ".", "--format", "json"]);
    let report: Value = serde_json::from_str(&stdout(&out)).expect("json");
    let refused = report["diagnostics"].as_array().expect("diagnostics").iter().any(|d| {
        d["severity"] == "error"
            && d["message"]
                == "`allowedChannelPlugins.0`: Expected object, but received string; Claude Code ignores this whole settings file"
    });
    assert!(refused, "{report:#}");
}

/// A managed policy key Claude Code cannot read is read at its restrictive value (measured:
/// `allowManagedHooksOnly: "yes"` keeps the project's hook from running and
/// `allowManagedPermissionRulesOnly: 1` its rules from applying, each with a notice at start;
/// scenario `policy-managed-invalid-switches`). The lock removes what the valid `true` removes
/// and says why the value is `true`; `capc ls` shows it; the finding names the value applied; a
/// turn keeps `WebFetch` and refuses the injection. `capc diff` weighs it as the valid value:
/// from `true` to `"yes"` escalates nothing, from `"yes"` to no policy is a loosened policy.
#[test]
fn managed_policy_keys_claude_code_cannot_read_take_their_restrictive_values() {
    let (_dir, project, managed) =
        project(r#"{"allowManagedHooksOnly": true, "allowManagedPermissionRulesOnly": true}"#);
    let managed_arg = managed.to_str().expect("utf-8");
    assert_eq!(capc(&project, &["lock", ".", "--managed-dir", managed_arg]).status.code(), Some(0));
    let valid = std::fs::read_to_string(project.join("capabilities.lock")).expect("lock");
    std::fs::rename(project.join("capabilities.lock"), project.join("valid.lock")).expect("rename");

    write_file(
        &managed,
        "managed-settings.json",
        r#"{"allowManagedHooksOnly": "yes", "allowManagedPermissionRulesOnly": 1}"#,
    );
    let out = capc(&project, &["check", ".", "--managed-dir", managed_arg, "--format", "json"]);
    let report: Value = serde_json::from_str(&stdout(&out)).expect("json");
    let messages: Vec<&str> =
        report["diagnostics"].as_array().expect("diagnostics").iter().filter_map(|d| d["message"].as_str()).collect();
    assert!(
        messages.contains(&"`allowManagedHooksOnly`: Expected boolean, but received string; in managed settings Claude Code applies the key's restrictive value, `true`, and enforces the rest of the file"),
        "{messages:#?}"
    );
    assert!(
        messages.contains(&"`allowManagedPermissionRulesOnly`: Expected boolean, but received number; in managed settings Claude Code applies the key's restrictive value, `true`, and enforces the rest of the file"),
        "{messages:#?}"
    );

    assert_eq!(capc(&project, &["lock", ".", "--managed-dir", managed_arg]).status.code(), Some(0));
    let lock = std::fs::read_to_string(project.join("capabilities.lock")).expect("lock");
    let removed = |lock: &str| lock.split("[[removed_by_policy]]").skip(1).map(str::to_string).collect::<Vec<_>>();
    assert_eq!(removed(&lock), removed(&valid), "the same removals as `true`");
    assert_eq!(removed(&lock).len(), 3, "{lock}");
    assert!(
        lock.contains("[[policy]]\nkey = \"allowManagedHooksOnly\"\nvalue = \"true\"\npath = \"<managed>/managed-settings.json\"\nwhy = \"written \\\"yes\\\", which Claude Code cannot read: it applies the key's restrictive value\""),
        "{lock}"
    );
    let ls = stdout(&capc(&project, &["ls", ".", "--managed-dir", managed_arg]));
    assert!(
        ls.contains("allowManagedPermissionRulesOnly = true (<managed>/managed-settings.json): written 1, which Claude Code cannot read: it applies the key's restrictive value"),
        "{ls}"
    );
    assert!(ls.contains("Policy: 3 declarations removed"), "{ls}");

    let trusted = serde_json::json!({"trusted": true});
    let hello = turn(&project, &["--managed-dir", managed_arg], "hello", trusted.clone());
    assert!(deferred(&hello).contains(&"WebFetch".to_string()), "{hello}");
    let mark = turn(&project, &["--managed-dir", managed_arg], "/mark", trusted);
    assert_eq!(mark["result"]["kind"], "shell_error", "{mark}");
    assert!(!project.join("injected.txt").exists());

    let out = capc(&project, &["diff", "valid.lock", "capabilities.lock", "--fail-on", "escalation"]);
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    std::fs::rename(project.join("capabilities.lock"), project.join("invalid.lock")).expect("rename");
    assert_eq!(capc(&project, &["lock", "."]).status.code(), Some(0));
    let out = capc(&project, &["diff", "invalid.lock", "capabilities.lock", "--fail-on", "escalation"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}{}", stderr(&out));
    assert!(
        text.contains(
            "policy loosened: `allowManagedHooksOnly` (<managed>/managed-settings.json) is no longer in force"
        ),
        "{text}"
    );
}

/// What else Claude Code's tolerant reading of managed settings does with a switch it cannot
/// read as written (measured): the strings `"true"` and `"false"` are read as the booleans
/// (`"false"` keeps the project's hook), `disableAllHooks` is no policy key of that kind and a
/// value it cannot read is ignored (the hook stays), `disableSkillShellExecution: "True"` is
/// `true` (the injection's placeholder), and a `permissions` that is no object disables the
/// bypass mode while `disableBypassPermissionsMode: false` is read as absent.
#[test]
fn managed_switches_claude_code_cannot_read_are_read_as_it_reads_them() {
    let (_dir, project, managed) = project(
        r#"{"allowManagedHooksOnly": "false", "disableAllHooks": "true", "disableSkillShellExecution": "True"}"#,
    );
    let managed_arg = managed.to_str().expect("utf-8");
    let out = capc(&project, &["lock", ".", "--managed-dir", managed_arg]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lock = std::fs::read_to_string(project.join("capabilities.lock")).expect("lock");
    assert!(lock.contains("[[hook]]\nevent = \"UserPromptSubmit\""), "{lock}");
    assert!(!lock.contains("[[removed_by_policy]]"), "{lock}");
    assert!(!lock.contains("key = \"allowManagedHooksOnly\"") && !lock.contains("key = \"disableAllHooks\""), "{lock}");
    assert!(lock.contains("key = \"disableSkillShellExecution\"\nvalue = \"true\""), "{lock}");
    let out = capc(&project, &["check", ".", "--managed-dir", managed_arg, "--format", "json"]);
    let report: Value = serde_json::from_str(&stdout(&out)).expect("json");
    let messages: Vec<&str> =
        report["diagnostics"].as_array().expect("diagnostics").iter().filter_map(|d| d["message"].as_str()).collect();
    for expected in [
        "`allowManagedHooksOnly` holds the string \"false\" where a boolean belongs; in managed settings Claude Code reads it as `false`",
        "`disableAllHooks`: Expected boolean, but received string; in managed settings Claude Code ignores this value and enforces the rest of the file",
        "`disableSkillShellExecution`: Expected boolean, but received string; in managed settings Claude Code applies the key's restrictive value, `true`, and enforces the rest of the file",
    ] {
        assert!(messages.contains(&expected), "{expected}\n{messages:#?}");
    }
    let mark = turn(&project, &["--managed-dir", managed_arg], "/mark", serde_json::json!({"trusted": true}));
    assert!(
        mark["request"]["texts"].to_string().contains("Out: [shell command execution disabled by policy]"),
        "{mark}"
    );

    let bypass = serde_json::json!({"trusted": true, "permission_mode": "bypassPermissions"});
    write_file(&project, ".claude/settings.json", "{}");
    write_file(&managed, "managed-settings.json", r#"{"permissions": {"disableBypassPermissionsMode": false}}"#);
    assert_eq!(capc(&project, &["lock", ".", "--managed-dir", managed_arg]).status.code(), Some(0));
    let lock = std::fs::read_to_string(project.join("capabilities.lock")).expect("lock");
    assert!(!lock.contains("disableBypassPermissionsMode"), "{lock}");
    let mark = turn(&project, &["--managed-dir", managed_arg], "/mark", bypass.clone());
    assert!(mark["request"]["texts"].to_string().contains("Out: injected"), "{mark}");
    std::fs::remove_file(project.join("injected.txt")).expect("the injection ran");

    write_file(&managed, "managed-settings.json", r#"{"permissions": 5}"#);
    assert_eq!(capc(&project, &["lock", ".", "--managed-dir", managed_arg]).status.code(), Some(0));
    let lock = std::fs::read_to_string(project.join("capabilities.lock")).expect("lock");
    assert!(lock.contains("key = \"permissions.disableBypassPermissionsMode\"\nvalue = \"disable\""), "{lock}");
    let mark = turn(&project, &["--managed-dir", managed_arg], "/mark", bypass);
    assert_eq!(mark["result"]["kind"], "shell_error", "{mark}");
    assert!(!project.join("injected.txt").exists());
}

/// The marketplace lists of managed settings through the CLI, on the tree of the oracle
/// scenario `policy-managed-strict-marketplaces` (a user's directory marketplace whose plugins
/// user and project settings enable): `strictKnownMarketplaces` that does not list it and
/// `blockedMarketplaces` that names it keep it out, so none of its plugins loads, and `capc ls`
/// says which key in which file removed it. A `strictKnownMarketplaces` Claude Code cannot read
/// is an empty allowlist (measured: "enforcing an empty allowlist (no marketplaces admitted)"),
/// and the warning says so; a `blockedMarketplaces` it cannot read is dropped.
#[test]
fn managed_marketplace_lists_keep_a_marketplace_out_as_claude_code_does() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().canonicalize().expect("canonical");
    let scenario =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/scenarios/policy-managed-strict-marketplaces");
    for part in ["home", "tree"] {
        crate::support::copy_tree(&scenario.join(part), &root.join(part));
    }
    let home = root.join("home");
    let user_settings = home.join(".claude/settings.json");
    let text = std::fs::read_to_string(&user_settings).expect("user settings");
    std::fs::write(&user_settings, text.replace("<HOME>", home.to_str().expect("utf-8"))).expect("write");
    let (tree, managed) = (root.join("tree"), root.join("managed"));
    let lock_with = |managed_json: &str| -> (String, String) {
        write_file(&managed, "managed-settings.json", managed_json);
        let args = ["--user-dir", "../home", "--managed-dir", "../managed"];
        let out = capc(&tree, &[&["lock", "."][..], &args].concat());
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let ls = stdout(&capc(&tree, &[&["ls", "."][..], &args].concat()));
        (std::fs::read_to_string(tree.join("capabilities.lock")).expect("lock"), ls)
    };
    let removed = |key: &str| {
        format!("[[removed_by_policy]]\nkind = \"marketplace\"\nname = \"local\"\npath = \"~/.claude/settings.json\"\nkey = \"{key}\"\nby = \"<managed>/managed-settings.json\"")
    };

    let (lock, ls) = lock_with("{}");
    assert!(!lock.contains("[[removed_by_policy]]"), "{lock}");
    assert!(ls.contains("/uplug:hi") && ls.contains("/pplug:hi"), "{ls}");

    for (managed_json, key) in [
        (r#"{"strictKnownMarketplaces": [{"source": "github", "repo": "acme/plugins"}]}"#, "strictKnownMarketplaces"),
        (r#"{"strictKnownMarketplaces": "acme"}"#, "strictKnownMarketplaces"),
        (
            &format!(r#"{{"blockedMarketplaces": [{{"source": "directory", "path": "{}/market"}}]}}"#, home.display()),
            "blockedMarketplaces",
        ),
    ] {
        let (lock, ls) = lock_with(managed_json);
        assert!(lock.contains(&removed(key)), "{managed_json}:\n{lock}");
        assert!(
            ls.contains(&format!(
                "✗ marketplace local (~/.claude/settings.json): removed by {key} in <managed>/managed-settings.json"
            )),
            "{ls}"
        );
        assert!(!ls.contains("/uplug:hi") && !ls.contains("/pplug:hi"), "{ls}");
    }

    let (lock, _) = lock_with(r#"{"blockedMarketplaces": 4}"#);
    assert!(!lock.contains("[[removed_by_policy]]"), "{lock}");

    write_file(&managed, "managed-settings.json", r#"{"strictKnownMarketplaces": "acme"}"#);
    let out = capc(&tree, &["check", ".", "--user-dir", "../home", "--managed-dir", "../managed", "--format", "short"]);
    assert!(
        stdout(&out).contains("`strictKnownMarketplaces`: Expected array, but received string; in managed settings Claude Code enforces an empty allowlist instead (no marketplaces admitted) and the rest of the file"),
        "{}",
        stdout(&out)
    );
}

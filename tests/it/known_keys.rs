//! Keys through `capc check`, as users run it: every frontmatter key of Claude Code's
//! own list (its copy, `compiler/data/claude-code/frontmatter-keys.txt`) is accepted in each
//! kind of file where Claude Code reads frontmatter, and the unknown keys that remain are a
//! warning only when they are probably a typo; every settings key of Claude Code's settings
//! table (`compiler/data/claude-code/settings.json`), at every level, is known, a value Claude
//! Code refuses is reported in its words with what it does then (the whole file, or only that
//! entry), a managed-only key outside managed settings is reported, and settings merge across
//! scopes key by key as Claude Code merges them.

use crate::support::{capc_in, stdout, write_file};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

const KEYS_FILE: &str = include_str!("../../compiler/data/claude-code/frontmatter-keys.txt");

fn claude_code_keys() -> Vec<&'static str> {
    KEYS_FILE.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect()
}

/// `capc check DIR --format json`'s findings.
fn findings(dir: &Path) -> Vec<Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_capc"))
        .args(["check", "--format", "json"])
        .arg(dir)
        .output()
        .expect("run capc");
    let report: Value = serde_json::from_slice(&out.stdout).expect("capc check prints JSON");
    report["diagnostics"].as_array().cloned().unwrap_or_default()
}

/// A frontmatter block holding `keys`, each with a plain string value (wrong types are another
/// rule's business; this is about whether the key is known).
fn frontmatter(keys: &[&str]) -> String {
    let mut text = String::from("---\n");
    for key in keys {
        let value = match *key {
            "name" => "probe",
            _ => "probe value",
        };
        text.push_str(&format!("{key}: {value}\n"));
    }
    text.push_str("---\nDo the thing.\n");
    text
}

const KINDS: [(&str, &str); 3] = [
    ("skill", ".claude/skills/probe/SKILL.md"),
    ("command", ".claude/commands/probe.md"),
    ("agent", ".claude/agents/probe.md"),
];

#[test]
fn the_copy_of_claude_codes_key_list_is_the_one_it_names() {
    let keys = claude_code_keys();
    let stamp = format!("# Claude Code: {}\n", capc_compiler::model::CLAUDE_CODE_VERSION);
    assert!(KEYS_FILE.contains(&stamp), "the copy names the version capc follows");
    assert_eq!(keys.last(), Some(&"hide-from-slash-command-tool"), "the list as the bundle orders it");
    for key in ["author", "homepage", "license", "keywords", "dependencies", "color", "displayName"] {
        assert!(keys.contains(&key), "`{key}` is in Claude Code's list");
    }
}

#[test]
fn every_key_claude_code_knows_is_accepted_in_every_frontmatter_kind() {
    let keys = claude_code_keys();
    let dir = tempfile::tempdir().expect("tempdir");
    for (_, rel) in KINDS {
        write_file(dir.path(), rel, &frontmatter(&keys));
    }
    let unknown: Vec<String> = findings(dir.path())
        .iter()
        .filter(|d| d["rule"] == "unknown-field")
        .map(|d| format!("{}:{}: {}", d["path"].as_str().unwrap_or(""), d["line"], d["message"]))
        .collect();
    assert!(unknown.is_empty(), "keys Claude Code knows, reported unknown:\n{}", unknown.join("\n"));
}

#[test]
fn a_probable_typo_is_a_warning_and_custom_metadata_an_info() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (_, rel) in KINDS {
        write_file(
            dir.path(),
            rel,
            "---\nname: probe\ndescription: probe\ndesciption: typo\nce_platforms: [claude]\n---\nDo it.\n",
        );
    }
    let found = findings(dir.path());
    for (kind, rel) in KINDS {
        let severity = |key: &str| {
            found
                .iter()
                .find(|d| {
                    d["rule"] == "unknown-field"
                        && d["path"] == rel
                        && d["message"].as_str().unwrap_or("").contains(key)
                })
                .map(|d| d["severity"].as_str().unwrap_or("").to_string())
        };
        assert_eq!(severity("`desciption`").as_deref(), Some("warning"), "a typo in a {kind} stays a warning");
        assert_eq!(severity("`ce_platforms`").as_deref(), Some("info"), "custom metadata in a {kind} is an info");
    }
}

const SETTINGS_TABLE: &str = include_str!("../../compiler/data/claude-code/settings.json");

fn settings_table() -> Value {
    serde_json::from_str(SETTINGS_TABLE).expect("the settings table is JSON")
}

/// `capc check DIR --format json` with extra arguments.
fn findings_with(dir: &Path, args: &[&str]) -> Vec<Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_capc"))
        .args(["check", "--format", "json"])
        .args(args)
        .arg(dir)
        .output()
        .expect("run capc");
    let report: Value = serde_json::from_slice(&out.stdout).expect("capc check prints JSON");
    report["diagnostics"].as_array().cloned().unwrap_or_default()
}

/// A value the table's `entry` accepts, with every key it names (so nested keys are probed too).
fn valid_value(entry: &Value) -> Value {
    if let Some(constant) = entry.get("const") {
        return constant.clone();
    }
    if let Some(first) = entry
        .get("anyOf")
        .and_then(Value::as_array)
        .and_then(|o| o.iter().find(|x| x.get("keys").is_some()).or(o.first()))
    {
        return valid_value(first);
    }
    if let Some(values) = entry.get("enum").and_then(Value::as_array) {
        return values[0].clone();
    }
    match entry["type"].as_str().unwrap_or("any") {
        "string" => Value::from("probe"),
        "boolean" => Value::from(true),
        "number" | "integer" => Value::from(1),
        "array" => Value::Array(entry.get("items").map(valid_value).into_iter().collect()),
        "object" => {
            let mut object = serde_json::Map::new();
            for (key, sub) in entry.get("keys").and_then(Value::as_object).into_iter().flatten() {
                object.insert(key.clone(), valid_value(sub));
            }
            if let Some(values) = entry.get("values") {
                object.insert("probe".to_string(), valid_value(values));
            }
            Value::Object(object)
        }
        _ => Value::from("probe"),
    }
}

#[test]
fn the_settings_table_is_the_claude_code_version_capc_follows() {
    let table = settings_table();
    let lock_rs = include_str!("../../compiler/src/model/lock/mod.rs");
    let constant = lock_rs
        .lines()
        .find_map(|l| l.strip_prefix("pub const CLAUDE_CODE_VERSION: &str = \""))
        .and_then(|rest| rest.strip_suffix("\";"))
        .expect("the constant");
    assert_eq!(table["claude_code"], constant, "regenerate the table with scripts/claude-code-tables {constant}");
    let keys = table["keys"].as_object().expect("keys");
    assert!(keys.len() > 190, "every top-level key of Claude Code's settings schema: {}", keys.len());
    for (path, key) in [
        ("permissions", "blockReadsOutsideWorkingDirectories"),
        ("permissions", "denyInsteadOfPrompting"),
        ("sandbox", "network"),
    ] {
        assert!(keys[path]["keys"].get(key).is_some(), "`{path}.{key}` is in the table");
    }
}

#[test]
fn no_settings_key_claude_code_knows_is_unknown_at_any_level() {
    let table = settings_table();
    let mut settings = serde_json::Map::new();
    for (key, entry) in table["keys"].as_object().expect("keys") {
        settings.insert(key.clone(), valid_value(entry));
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let text = serde_json::to_string_pretty(&Value::Object(settings)).expect("JSON");
    write_file(dir.path(), ".claude/settings.json", &text);
    write_file(dir.path(), "managed/managed-settings.json", &text);
    let managed = dir.path().join("managed");
    let found = findings_with(dir.path(), &["--managed-dir", managed.to_str().expect("utf-8")]);
    let unknown: Vec<String> = found
        .iter()
        .filter(|d| d["rule"] == "unknown-field")
        .map(|d| format!("{}:{}: {}", d["path"].as_str().unwrap_or(""), d["line"], d["message"]))
        .collect();
    assert!(unknown.is_empty(), "settings keys Claude Code knows, reported unknown:\n{}", unknown.join("\n"));
    // Every key was there to be checked: the managed-only ones draw their finding in the
    // project's file and none in the managed one.
    let ignored: Vec<&str> =
        found.iter().filter(|d| d["rule"] == "ignored-field").map(|d| d["path"].as_str().unwrap_or("")).collect();
    assert!(ignored.contains(&".claude/settings.json"), "{found:?}");
    assert!(!ignored.iter().any(|p| p.contains("managed-settings")), "{ignored:?}");
}

/// A plugin's root `settings.json` holding every settings key: Claude Code applies `agent` and
/// `subagentStatusLine` from it and drops the rest, so each other key is `ignored-field` (it
/// says Claude Code does not apply it there) and none is `unknown-field`.
#[test]
fn a_plugin_settings_file_ignores_every_key_but_agent_and_subagent_status_line() {
    let table = settings_table();
    let mut settings = serde_json::Map::new();
    for (key, entry) in table["keys"].as_object().expect("keys") {
        settings.insert(key.clone(), valid_value(entry));
    }
    settings.insert("subagentStatusLine".to_string(), serde_json::json!({"type": "command", "command": "./status.sh"}));
    let total = settings.len();
    let dir = tempfile::tempdir().expect("tempdir");
    write_file(dir.path(), ".claude-plugin/plugin.json", r#"{"name": "kit"}"#);
    let text = serde_json::to_string_pretty(&Value::Object(settings)).expect("JSON");
    write_file(dir.path(), "settings.json", &text);
    let found = findings(dir.path());
    let of = |rule: &str| -> Vec<String> {
        found
            .iter()
            .filter(|d| d["rule"] == rule && d["path"] == "settings.json")
            .map(|d| d["message"].as_str().unwrap_or("").to_string())
            .collect()
    };
    assert!(of("unknown-field").is_empty(), "{:?}", of("unknown-field"));
    let ignored = of("ignored-field");
    assert_eq!(ignored.len(), total - 2, "{ignored:#?}");
    assert!(ignored.contains(&"Claude Code does not apply `model` from a plugin's settings".to_string()));
    assert!(!ignored.iter().any(|m| m.contains("`agent`") || m.contains("`subagentStatusLine`")), "{ignored:#?}");
}

#[test]
fn a_settings_typo_is_a_warning_with_the_key_it_meant_at_every_level() {
    let dir = tempfile::tempdir().expect("tempdir");
    write_file(
        dir.path(),
        ".claude/settings.json",
        r#"{"permissions": {"blockReadsOutsideWorkingDirectories": true, "blockWritesOutsideWorkingDirectories": true,
            "denyInsteadOfPromting": true},
          "sandbox": {"network": {"allowedDomain": ["example.com"]}},
          "spinnerTipsEnabld": false}"#,
    );
    let found = findings(dir.path());
    let unknown: Vec<(&str, &str)> = found
        .iter()
        .filter(|d| d["rule"] == "unknown-field")
        .map(|d| (d["message"].as_str().unwrap_or(""), d["severity"].as_str().unwrap_or("")))
        .collect();
    assert_eq!(
        unknown,
        [
            ("unknown field `denyInsteadOfPromting` in `permissions`", "warning"),
            ("unknown field `allowedDomain` in `sandbox.network`", "warning"),
            ("unknown field `spinnerTipsEnabld` in settings", "warning"),
        ],
        "{found:?}"
    );
    let helps: Vec<&str> = found.iter().filter_map(|d| d["help"].as_str()).collect();
    for meant in ["denyInsteadOfPrompting", "allowedDomains", "spinnerTipsEnabled"] {
        assert!(helps.iter().any(|h| h.contains(&format!("did you mean `{meant}`?"))), "{helps:?}");
    }
}

/// The rule, severity and message of each finding of `rule`s at `path`.
fn of(found: &[Value], path: &str) -> Vec<(String, String, String)> {
    found
        .iter()
        .filter(|d| d["path"] == path && d["rule"] != "unknown-field")
        .map(|d| {
            (
                d["rule"].as_str().unwrap_or("").to_string(),
                d["severity"].as_str().unwrap_or("").to_string(),
                d["message"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

#[test]
fn a_value_claude_code_refuses_says_whether_the_file_or_the_entry_goes() {
    // Measured on Claude Code: a wrong type or a value outside an enum refuses the
    // whole file ("These settings did not load"), naming the path and saying why; a key its
    // schema skips when invalid (`teammateMode`) is dropped and the rest stays in effect.
    let dir = tempfile::tempdir().expect("tempdir");
    write_file(
        dir.path(),
        ".claude/settings.json",
        r#"{"permissions": {"deny": ["Write"]}, "cleanupPeriodDays": "soon"}"#,
    );
    write_file(dir.path(), ".claude/settings.local.json", r#"{"worktree": {"baseRef": "heads"}, "teammateMode": 7}"#);
    let found = findings(dir.path());
    assert_eq!(
        of(&found, ".claude/settings.json"),
        [(
            "wrong-field-type".to_string(),
            "error".to_string(),
            "`cleanupPeriodDays`: Expected number, but received string; Claude Code ignores this whole settings file"
                .to_string()
        )]
    );
    assert_eq!(
        of(&found, ".claude/settings.local.json"),
        [
            (
                "invalid-field-value".to_string(),
                "error".to_string(),
                "`worktree.baseRef`: Invalid value. Expected one of: \"fresh\", \"head\"; Claude Code ignores this whole settings file".to_string()
            ),
            (
                "wrong-field-type".to_string(),
                "warning".to_string(),
                "`teammateMode`: Expected string, but received number; Claude Code skips it and keeps the rest of this file"
                    .to_string()
            ),
        ]
    );
    assert!(
        found.iter().any(|d| d["help"].as_str().is_some_and(|h| h.starts_with("did you mean `head`?"))),
        "{found:?}"
    );
    // The lock records the refused file, and nothing in it applies.
    let out = Command::new(env!("CARGO_BIN_EXE_capc")).arg("lock").arg(dir.path()).output().expect("run capc");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let lock: toml::Value =
        std::fs::read_to_string(dir.path().join("capabilities.lock")).expect("written").parse().expect("TOML");
    let refused = &lock["settings_not_loaded"][0];
    assert_eq!(refused["path"].as_str(), Some(".claude/settings.json"));
    assert_eq!(refused["key"].as_str(), Some("cleanupPeriodDays"));
    assert_eq!(refused["message"].as_str(), Some("Expected number, but received string"));
    assert!(lock.get("permission").is_none(), "the refused file's deny rule does not apply: {lock}");
}

#[test]
fn a_managed_only_key_is_reported_where_claude_code_ignores_it() {
    // Measured on Claude Code: in a project's settings, `allowManagedHooksOnly` leaves
    // the project's hooks running and `allowManagedPermissionRulesOnly` leaves its rules in
    // force.
    let dir = tempfile::tempdir().expect("tempdir");
    let policy =
        r#"{"allowManagedHooksOnly": true, "allowManagedPermissionRulesOnly": true, "processWrapper": "wrap"}"#;
    write_file(dir.path(), ".claude/settings.json", policy);
    write_file(dir.path(), "home/.claude/settings.json", policy);
    write_file(dir.path(), "managed/managed-settings.json", policy);
    let home = dir.path().join("home");
    let managed = dir.path().join("managed");
    let found = findings_with(
        dir.path(),
        &["--user-dir", home.to_str().expect("utf-8"), "--managed-dir", managed.to_str().expect("utf-8")],
    );
    let ignored = |path: &str| -> Vec<String> {
        found
            .iter()
            .filter(|d| d["rule"] == "ignored-field" && d["path"] == path)
            .map(|d| format!("{}: {}", d["severity"].as_str().unwrap_or(""), d["message"].as_str().unwrap_or("")))
            .collect()
    };
    assert_eq!(
        ignored(".claude/settings.json"),
        [
            "warning: Claude Code ignores `allowManagedHooksOnly` in project settings: it counts only in managed settings",
            "warning: Claude Code ignores `allowManagedPermissionRulesOnly` in project settings: it counts only in managed settings",
            "warning: Claude Code ignores `processWrapper` in project settings",
        ]
    );
    assert_eq!(ignored("~/.claude/settings.json").len(), 2, "processWrapper counts in user settings: {found:?}");
    assert!(ignored("<managed>/managed-settings.json").is_empty(), "{found:?}");
}

#[test]
fn settings_merge_across_scopes_key_by_key() {
    // The listing's budget reads merged settings: a number from the strongest scope that
    // sets it, `env` and `skillOverrides` merged key by key.
    let dir = tempfile::tempdir().expect("tempdir");
    let skill = |name: &str| {
        format!("---\ndescription: {}\n---\nDo it.\n", "a long description of the skill ".repeat(4) + name)
    };
    for name in ["alpha", "beta", "gamma"] {
        write_file(dir.path(), &format!(".claude/skills/{name}/SKILL.md"), &skill(name));
    }
    write_file(
        dir.path(),
        "home/.claude/settings.json",
        r#"{"skillListingMaxDescChars": 5, "skillOverrides": {"alpha": "off"}, "env": {"SLASH_COMMAND_TOOL_CHAR_BUDGET": "100000"}}"#,
    );
    write_file(
        dir.path(),
        ".claude/settings.json",
        r#"{"skillListingMaxDescChars": 40, "skillOverrides": {"beta": "name-only"}, "env": {"OTHER": "1"}}"#,
    );
    let home = dir.path().join("home");
    let out = capc_in(
        dir.path(),
        &["ls", "--budget", "--format", "json", "--user-dir", home.to_str().expect("utf-8"), "."],
        100,
    );
    let json: Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    let listing = &json["windows"][0]["listing"];
    assert_eq!(listing["budget_override"], true, "env merged key by key keeps the user's variable: {json}");
    assert_eq!(listing["budget"], 100000, "{json}");
    let entries = listing["entries"].as_array().expect("entries");
    let entry = |name: &str| entries.iter().find(|e| e["name"] == name).cloned().unwrap_or(Value::Null);
    assert_eq!(entry("alpha"), Value::Null, "the user's `skillOverrides.alpha: off` still applies: {json}");
    assert_eq!(entry("beta")["description"], "name-only", "the project's override applies too: {json}");
    let full = entry("gamma")["full"].as_u64().unwrap_or(0);
    assert!(full > 30 && full <= 50, "the project's `skillListingMaxDescChars: 40` wins over the user's 5: {json}");
}

#[test]
fn an_enabled_plugins_value_claude_code_refuses_refuses_the_file() {
    // Measured on Claude Code: `"enabledPlugins": {"a@b": "yes"}` refuses the file,
    // "(enabledPlugins.a@b): Invalid input".
    let dir = tempfile::tempdir().expect("tempdir");
    write_file(
        dir.path(),
        ".claude/settings.json",
        r#"{"enabledPlugins": {"a@b": "yes"}, "permissions": {"deny": ["Write"]}}"#,
    );
    let out = Command::new(env!("CARGO_BIN_EXE_capc")).arg("lock").arg(dir.path()).output().expect("run capc");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let lock: toml::Value =
        std::fs::read_to_string(dir.path().join("capabilities.lock")).expect("written").parse().expect("TOML");
    let refused = &lock["settings_not_loaded"][0];
    assert_eq!(refused["key"].as_str(), Some("enabledPlugins.a@b"));
    assert_eq!(refused["message"].as_str(), Some("Invalid input"));
    assert!(lock.get("permission").is_none(), "{lock}");
}

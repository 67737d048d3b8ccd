//! Where capc must agree with Claude Code on files real repositories hold, through the
//! CLI as users run it: frontmatter the official validator rejects, a plugin agent's fallback
//! description, and a settings file refused for its `permissions.defaultMode`.

use crate::support::write_file;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

fn capc(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_capc"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("capc runs")
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("JSON on stdout ({e}): {}", String::from_utf8_lossy(&out.stderr)))
}

/// Frontmatter neither YAML nor Claude Code's lenient retry can read (`a: b: c` then a list).
const BROKEN: &str = "---\ndescription: a: b: c\n  - x\n---\nDo the thing.\n";

/// A plugin `p` whose agent, skill and command frontmatter does not parse.
fn broken_plugin(dir: &Path) {
    write_file(dir, "p/.claude-plugin/plugin.json", r#"{ "name": "p", "version": "1.0.0", "description": "d" }"#);
    write_file(dir, "p/agents/helper.md", BROKEN);
    write_file(dir, "p/skills/s/SKILL.md", BROKEN);
    write_file(dir, "p/commands/c.md", BROKEN);
}

#[test]
fn frontmatter_the_official_validator_rejects_is_an_error_in_every_kind() {
    // `claude plugin validate --json p` Claude Code on this plugin: "success": false, with
    // "YAML frontmatter failed to parse" for the agent, the skill and the command.
    let dir = tempfile::tempdir().expect("tempdir");
    broken_plugin(dir.path());
    let out = capc(&["check", "--format", "json", "p"], dir.path());
    assert_eq!(out.status.code(), Some(1), "capc fails what the validator fails");
    let report = json(&out);
    let mut rejected: Vec<&str> = report["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|d| d["rule"] == "invalid-frontmatter" && d["severity"] == "error")
        .filter_map(|d| d["path"].as_str())
        .collect();
    rejected.sort_unstable();
    assert_eq!(rejected, ["agents/helper.md", "commands/c.md", "skills/s/SKILL.md"]);
}

#[test]
fn a_plugin_agent_without_a_description_is_locked_with_claude_codes_fallback() {
    // Claude Code's plugin agent loader: `description`, else `when_to_use`, else
    // `Agent from <plugin> plugin` (also what an agent whose frontmatter does not parse gets).
    let dir = tempfile::tempdir().expect("tempdir");
    write_file(
        dir.path(),
        "p/.claude-plugin/plugin.json",
        r#"{ "name": "p", "version": "1.0.0", "description": "d" }"#,
    );
    write_file(dir.path(), "p/agents/helper.md", "Just a prompt, no frontmatter.\n");
    write_file(
        dir.path(),
        "p/agents/other.md",
        "---\nname: other\nwhen_to_use: When asked for the other one.\n---\nBody\n",
    );
    // A literal block keeps its last line break; the plugin loader trims it (and blank lines).
    write_file(
        dir.path(),
        "p/agents/block.md",
        "---\nname: block\ndescription: |\n  Reviews code.\n\n  <example>x</example>\n\n---\nBody\n",
    );
    // A project agent's description is not trimmed, but a written `\n` is a line break.
    write_file(
        dir.path(),
        ".claude/agents/local.md",
        "---\nname: local\ndescription: ' First.\\nSecond.'\n---\nBody\n",
    );
    let out = capc(&["lock", "--plugin-dir", "p", "."], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let lock: toml::Value =
        toml::from_str(&std::fs::read_to_string(dir.path().join("capabilities.lock")).expect("lock")).expect("toml");
    let agents = lock["agent"].as_array().cloned().unwrap_or_default();
    let description = |name: &str| {
        agents
            .iter()
            .find(|a| a["name"].as_str() == Some(name))
            .and_then(|a| a.get("description")?.as_str().map(str::to_string))
            .unwrap_or_else(|| panic!("agent `{name}` locked with a description: {agents:?}"))
    };
    assert_eq!(description("p:helper"), "Agent from p plugin");
    assert_eq!(description("p:other"), "When asked for the other one.");
    assert_eq!(description("p:block"), "Reviews code.\n\n<example>x</example>");
    assert_eq!(description("local"), " First.\nSecond.");
}

#[test]
fn settings_with_a_mode_claude_code_does_not_know_are_refused_whole() {
    let dir = tempfile::tempdir().expect("tempdir");
    write_file(
        dir.path(),
        ".claude/settings.json",
        r#"{ "permissions": { "defaultMode": "allowEdits", "allow": ["Bash(npm test)"] } }"#,
    );
    write_file(dir.path(), ".claude/commands/ship.md", "---\ndescription: Ship it\n---\nShip.\n");
    let out = capc(&["check", "--format", "json", "."], dir.path());
    assert_eq!(out.status.code(), Some(1));
    let report = json(&out);
    let finding = report["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|d| d["rule"] == "invalid-field-value")
        .expect("the mode is reported");
    assert_eq!(finding["severity"], "error");
    assert!(finding["message"].as_str().unwrap_or("").contains("ignores this whole settings file"), "{finding}");

    // What a session loads: not that file's rule, and the lock says why it is left out.
    let lock = capc(&["lock", "."], dir.path());
    assert_eq!(lock.status.code(), Some(0), "{}", String::from_utf8_lossy(&lock.stderr));
    let stderr = String::from_utf8_lossy(&lock.stderr);
    assert!(stderr.contains(".claude/settings.json: Claude Code refuses this settings file"), "{stderr}");
    let written = std::fs::read_to_string(dir.path().join("capabilities.lock")).expect("lock written");
    assert!(!written.contains("npm test"), "a refused file's rules are not in the lock:\n{written}");
    assert!(written.contains("ship"), "the rest is locked:\n{written}");

    // `manual` is the alias Claude Code maps to `default` before checking: accepted.
    write_file(
        dir.path(),
        ".claude/settings.json",
        r#"{ "permissions": { "defaultMode": "manual", "allow": ["Bash(npm test)"] } }"#,
    );
    let out = capc(&["check", "--format", "json", "."], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
}

/// Errors Claude Code survives by skipping one declaration (a skill folder named `synced`, a
/// skill in the `anthropic-skills` namespace, an MCP server name it keeps for its own) are
/// reported by `capc check` and do not stop `capc lock`, which records what loads: the rest,
/// without the skipped declaration.
#[test]
fn errors_claude_code_survives_are_reported_and_the_rest_is_locked() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write_file(root, ".claude/skills/synced/SKILL.md", "---\ndescription: Synced\n---\nBody.\n");
    write_file(root, ".claude/skills/anthropic-skills:pdf/SKILL.md", "---\ndescription: Reserved\n---\nBody.\n");
    write_file(root, ".claude/skills/ok/SKILL.md", "---\ndescription: Fine\n---\nBody.\n");
    write_file(root, ".mcp.json", r#"{"mcpServers":{"claude_ai":{"command":"x"},"db":{"command":"y"}}}"#);
    let check = capc(&["check", "--format", "json", "."], root);
    assert_eq!(check.status.code(), Some(1), "errors are errors");
    let report = json(&check);
    let reserved =
        report["diagnostics"].as_array().expect("diagnostics").iter().filter(|d| d["rule"] == "reserved-name").count();
    assert!(reserved >= 2, "{report}");
    let lock = capc(&["lock", "."], root);
    assert_eq!(lock.status.code(), Some(0), "{}", String::from_utf8_lossy(&lock.stderr));
    let text = std::fs::read_to_string(root.join("capabilities.lock")).expect("lock written");
    assert!(text.contains("name = \"ok\"") && text.contains("name = \"db\""), "{text}");
    assert!(!text.contains("name = \"synced\"") && !text.contains("name = \"claude_ai\""), "{text}");
    assert!(!text.contains("[[command]]\nname = \"anthropic-skills:pdf\""), "{text}");
}

/// `skill-description-too-long` measures the text the Skill listing sends: a description of
/// 1,530 characters with three `<` (each sent as `&lt;`, four units) is cut by the listing, and
/// warned about; the same length without them is neither. (It used to count characters of
/// the frontmatter, which let a description the listing cuts pass.)
#[test]
fn the_description_rule_measures_what_the_listing_sends() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let escaped = format!("{}<<<", "x".repeat(1530));
    let plain = "y".repeat(1533);
    write_file(root, ".claude/skills/cut/SKILL.md", &format!("---\ndescription: \"{escaped}\"\n---\nBody.\n"));
    write_file(root, ".claude/skills/whole/SKILL.md", &format!("---\ndescription: {plain}\n---\nBody.\n"));
    let out = capc(&["check", "--format", "json", "."], root);
    let report: Value = serde_json::from_slice(&out.stdout).expect("json");
    let flagged: Vec<&str> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["rule"] == "skill-description-too-long")
        .filter_map(|d| d["path"].as_str())
        .collect();
    assert_eq!(flagged, [".claude/skills/cut/SKILL.md"], "{report}");
    let out = capc(&["lock", "."], root);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let session = Command::new(env!("CARGO_BIN_EXE_capc"))
        .args(["session", ".", "--json"])
        .current_dir(root)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write as _;
            child
                .stdin
                .take()
                .expect("stdin")
                .write_all(b"{\"id\":1,\"type\":\"turn\",\"input\":\"hello\",\"include\":[\"skill_listing\"]}\n")?;
            child.wait_with_output()
        })
        .expect("capc session runs");
    let line =
        String::from_utf8_lossy(&session.stdout).lines().find(|l| l.contains("\"turn\"")).expect("a turn").to_string();
    let turn: Value = serde_json::from_str(&line).expect("json");
    let listing = turn["skill_listing"].as_str().expect("the listing").to_string();
    let cut = listing.lines().find(|l| l.starts_with("- cut: ")).expect("the cut skill is listed");
    assert!(cut.ends_with('…') && cut.encode_utf16().count() == "- cut: ".len() + 1536, "the listing cuts it: {cut}");
    assert!(listing.lines().any(|l| l == format!("- whole: {plain}")), "and keeps the other whole");
}

/// Claude Code loads a settings file whatever its `env` values are (measured: a number,
/// a boolean, an object and null beside `ENABLE_TOOL_SEARCH: "false"`, which took effect, with
/// no notice): a number or a boolean is no error; a value that is no text is a warning; and a
/// count of tokens (`MAX_THINKING_TOKENS`) is no secret, where a credential still is.
#[test]
fn env_values_are_read_as_claude_code_reads_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write_file(
        root,
        ".claude/settings.json",
        r#"{"env": {"MAX_THINKING_TOKENS": 8000, "CLAUDE_CODE_MAX_OUTPUT_TOKENS": "32000", "ON": true, "OBJ": {"a": 1}, "GITHUB_TOKEN": "12345678"}}"#,
    );
    let out = capc(&["check", "--format", "json", "."], root);
    let report: Value = serde_json::from_slice(&out.stdout).expect("json");
    let found: Vec<(String, String, String)> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            let s = |k: &str| d[k].as_str().unwrap_or_default().to_string();
            (s("rule"), s("severity"), s("message"))
        })
        .collect();
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(
        found.iter().any(|(r, s, m)| r == "wrong-field-type" && s == "warning" && m.contains("`env.OBJ`")),
        "{found:#?}"
    );
    assert!(found.iter().any(|(r, _, m)| r == "literal-secret" && m.contains("`env.GITHUB_TOKEN`")), "{found:#?}");
    assert_eq!(out.status.code(), Some(0), "no error: Claude Code loads the file");
}

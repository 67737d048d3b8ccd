//! What `capc check` and `capc ls --budget` read of the tool surface a lock recorded
//! (`capc lock --connect`, tested against a real server in the trials): names the API refuses
//! (`invalid-mcp-tool-name`), what the tools cost per mode, and capc.toml's
//! `max-context-tokens`. The surfaces here are written as `capc lock --connect` writes them,
//! after a plain `capc lock` of the same tree.

use crate::support::{capc_in, stderr, stdout, write_file};
use serde_json::Value;
use std::path::Path;

/// A 40-character tool name: `mcp__knowledge-base-search__` (28) + 40 = 68.
const LONG: &str = "search_documents_by_team_and_date_ranges";

/// `capc lock` of `root`, then each `(server, tool, tokens)` appended as `[[mcp_tool]]`.
fn lock_with_surface(root: &Path, args: &[&str], tools: &[(&str, &str, u64)]) {
    let mut lock_args = vec!["lock"];
    lock_args.extend_from_slice(args);
    lock_args.push(".");
    let out = capc_in(root, &lock_args, 100);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mut text = std::fs::read_to_string(root.join("capabilities.lock")).expect("lock");
    for (server, tool, tokens) in tools {
        text.push_str(&format!(
            "\n[[mcp_tool]]\nserver = \"{server}\"\ntool = \"{tool}\"\nname = \"mcp__x__{tool}\"\n\
             description_sha256 = \"{}\"\ninput_schema_sha256 = \"{}\"\ntokens = {tokens}\n",
            "0".repeat(64),
            "0".repeat(64)
        ));
    }
    std::fs::write(root.join("capabilities.lock"), text).expect("write lock");
}

fn parsed(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}{}", stdout(out), stderr(out)))
}

fn findings<'a>(report: &'a Value, rule: &str) -> Vec<&'a Value> {
    report["diagnostics"].as_array().expect("diagnostics").iter().filter(|d| d["rule"] == rule).collect()
}

#[test]
fn check_reports_a_recorded_tool_the_api_refuses_at_its_servers_name() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    // A plugin loaded from outside the folder, with a server of its own.
    let plugins = tempfile::tempdir().expect("tempdir");
    let plugin = plugins.path().join("kb");
    write_file(&plugin, ".claude-plugin/plugin.json", r#"{"name": "kb"}"#);
    write_file(&plugin, ".mcp.json", r#"{"mcpServers": {"docs": {"command": "docs-mcp"}}}"#);
    let plugin_dir = plugin.to_str().expect("utf-8");
    write_file(
        root,
        ".mcp.json",
        "{\n  \"mcpServers\": {\n    \"knowledge-base-search\": { \"command\": \"kb-mcp\" },\n    \"off\": { \"command\": \"off-mcp\" }\n  }\n}\n",
    );
    write_file(
        root,
        ".claude/settings.json",
        &serde_json::json!({
            "enableAllProjectMcpServers": true,
            "permissions": {"deny": [format!("mcp__knowledge-base-search__denied_{LONG}"), "mcp__off"]},
        })
        .to_string(),
    );
    // `mcp__plugin_kb_docs__` is 21 characters: a 44-character tool name makes 65.
    let plugin_tool = "a".repeat(44);
    lock_with_surface(
        root,
        &["--plugin-dir", plugin_dir],
        &[
            ("knowledge-base-search", LONG, 900),
            ("knowledge-base-search", "ok", 50),
            // Removed by a deny rule on the tool, and by one on the whole server: never offered.
            ("knowledge-base-search", &format!("denied_{LONG}"), 50),
            ("off", LONG, 50),
            ("plugin:kb:docs", &plugin_tool, 70),
            // A server the folder no longer declares.
            ("gone", LONG, 10),
        ],
    );
    let out = capc_in(root, &["check", "--format", "json", "--plugin-dir", plugin_dir, "."], 100);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let report = parsed(&out);
    let found = findings(&report, "invalid-mcp-tool-name");
    let places: Vec<(&str, u64, u64)> = found
        .iter()
        .map(|d| (d["path"].as_str().unwrap(), d["line"].as_u64().unwrap(), d["column"].as_u64().unwrap()))
        .collect();
    assert_eq!(places.len(), 2, "{report:#}");
    assert_eq!(places[0], (".mcp.json", 3, 5), "at the server's name: {report:#}");
    let project = found[0]["message"].as_str().unwrap();
    assert!(
        project.contains(&format!("MCP server `knowledge-base-search` offers a tool `{LONG}`"))
            && project.contains(&format!("`mcp__knowledge-base-search__{LONG}`, which is 68 characters")),
        "{project}"
    );
    assert_eq!(found[0]["severity"], "error");
    // The plugin's server, in the plugin's own file, named as Claude Code names it.
    // Shown at its real path (outside the current folder: absolute), not the lock's placeholder.
    let real = format!("{}/.mcp.json", plugin.canonicalize().expect("canonical").display());
    assert_eq!(places[1], (real.as_str(), 1, 17), "{report:#}");
    let plugin_message = found[1]["message"].as_str().unwrap();
    assert!(
        plugin_message.contains(&format!("`mcp__plugin_kb_docs__{plugin_tool}`, which is 65 characters")),
        "{plugin_message}"
    );
    assert!(found[1]["help"].as_str().unwrap().contains("(or the plugin)"), "{report:#}");

    // The human report points at the line.
    let human = capc_in(root, &["check", "--plugin-dir", plugin_dir, "."], 100);
    assert!(stdout(&human).contains(".mcp.json:3:5"), "{}", stdout(&human));

    // Without a lock (or with one that records no surface) there is nothing to read.
    std::fs::remove_file(root.join("capabilities.lock")).expect("rm");
    let out = capc_in(root, &["check", "--format", "json", "--plugin-dir", plugin_dir, "."], 100);
    assert!(findings(&parsed(&out), "invalid-mcp-tool-name").is_empty());
}

#[cfg(unix)]
#[test]
fn a_lock_that_is_a_link_is_not_followed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("repo");
    write_file(&root, ".mcp.json", r#"{"mcpServers": {"knowledge-base-search": {"command": "kb-mcp"}}}"#);
    lock_with_surface(&root, &[], &[("knowledge-base-search", LONG, 900)]);
    // The lock moved outside the repository, a link left in its place.
    let outside = dir.path().join("elsewhere.lock");
    std::fs::rename(root.join("capabilities.lock"), &outside).expect("mv");
    std::os::unix::fs::symlink(&outside, root.join("capabilities.lock")).expect("ln");
    let out = capc_in(&root, &["check", "--format", "json", "."], 100);
    assert!(findings(&parsed(&out), "invalid-mcp-tool-name").is_empty(), "{}", stdout(&out));
    let budget = parsed(&capc_in(&root, &["ls", "--budget", "--format", "json", "."], 100));
    assert_eq!(budget["mcp"]["recorded"], false, "{budget:#}");
}

/// A folder whose servers are recorded: `big` (deferrable) and `pinned` (`alwaysLoad`).
fn costly(root: &Path, env: Option<&str>) {
    write_file(
        root,
        ".mcp.json",
        "{\n  \"mcpServers\": {\n    \"big\": { \"command\": \"big-mcp\" },\n    \"pinned\": { \"command\": \"pin-mcp\", \"alwaysLoad\": true },\n    \"new\": { \"command\": \"new-mcp\" }\n  }\n}\n",
    );
    let mut settings = serde_json::json!({"enableAllProjectMcpServers": true});
    if let Some(value) = env {
        settings["env"] = serde_json::json!({"ENABLE_TOOL_SEARCH": value});
    }
    write_file(root, ".claude/settings.json", &settings.to_string());
    write_file(
        root,
        ".claude/skills/report/SKILL.md",
        "---\nname: report\ndescription: Writes the weekly report from the team's notes.\n---\nWrite it.\n",
    );
    lock_with_surface(root, &[], &[("big", "search", 60_000), ("big", "fetch", 60_000), ("pinned", "get", 4_000)]);
}

#[test]
fn ls_budget_sums_the_surface_per_server_and_per_mode() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    costly(root, Some("auto:5"));
    let out = capc_in(root, &["ls", "--budget", "."], 120);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    for line in [
        "MCP tool surface, as capabilities.lock recorded it: 3 servers, 3 tools, 124000 tokens",
        "   120000      2  big     deferrable",
        "     4000      1  pinned  alwaysLoad: always up front",
        "        0      0  new     not recorded: run `capc lock --connect`",
    ] {
        assert!(text.lines().any(|l| l == line), "no line {line:?} in\n{text}");
    }
    let json = parsed(&capc_in(root, &["ls", "--budget", "--format", "json", "."], 100));
    assert_eq!(json["mcp"]["setting"], "auto:5");
    let modes: Vec<(String, bool, bool, u64, u64)> = json["mcp"]["windows"][0]["modes"]
        .as_array()
        .expect("modes")
        .iter()
        .map(|m| {
            (
                m["mode"].as_str().unwrap().to_string(),
                m["this_folder"].as_bool().unwrap(),
                m["tool_search"].as_bool().unwrap(),
                m["up_front"].as_u64().unwrap(),
                m["deferred"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        modes,
        [
            ("unset or true".to_string(), false, true, 4_000, 120_000),
            ("false".to_string(), false, false, 124_000, 0),
            // 10% of 1,000,000 tokens is 100,000: 120,000 deferrable tokens are over it.
            ("auto".to_string(), false, true, 4_000, 120_000),
            ("auto:5".to_string(), true, true, 4_000, 120_000),
        ]
    );
    let total = &json["totals"]["windows"][0];
    assert_eq!(total["mcp_up_front"], 4_000);
    assert_eq!(
        total["total"].as_u64().unwrap(),
        total["listing"].as_u64().unwrap() + 4_000 + total["mcp_names"].as_u64().unwrap()
    );
    assert!(total["mcp_names"].as_u64().unwrap() > 0, "the deferred tools' names are announced: {json:#}");

    // A 2,000,000-token window: `auto`'s threshold is 200,000 and every tool is sent.
    write_file(root, "capc.toml", "[listing-budget]\ncontext-windows = [2000000]\n");
    let json = parsed(&capc_in(root, &["ls", "--budget", "--format", "json", "."], 100));
    let auto = &json["mcp"]["windows"][0]["modes"][2];
    assert_eq!((auto["tool_search"].as_bool(), auto["up_front"].as_u64()), (Some(false), Some(124_000)), "{json:#}");
}

#[test]
fn max_context_tokens_fails_the_check_at_the_largest_share() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    costly(root, Some("false"));
    write_file(root, "capc.toml", "max-context-tokens = 50000\n");
    let out = capc_in(root, &["check", "--format", "json", "."], 100);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let report = parsed(&out);
    let found = findings(&report, "max-context-tokens");
    assert_eq!(found.len(), 1, "{report:#}");
    let d = found[0];
    assert_eq!((d["path"].as_str(), d["line"].as_u64(), d["column"].as_u64()), (Some(".mcp.json"), Some(3), Some(5)));
    let message = d["message"].as_str().unwrap();
    assert!(message.contains("over `max-context-tokens` (50000)"), "{message}");
    assert!(message.contains("MCP tools sent up front 124000 (`big` 120000, `pinned` 4000)"), "{message}");
    let help = d["help"].as_str().unwrap();
    assert!(help.contains("let tool search defer the MCP tools") && help.contains("120000 tokens fewer"), "{help}");
    assert!(help.contains("drop `alwaysLoad` from `pinned`"), "{help}");

    // With tool search on (the default), the pinned server and the listing fit.
    costly(root, None);
    let out = capc_in(root, &["check", "--format", "json", "."], 100);
    assert!(findings(&parsed(&out), "max-context-tokens").is_empty(), "{}", stdout(&out));
    // capc.toml's severities apply as to every rule.
    write_file(root, "capc.toml", "max-context-tokens = 100\n[rules]\nmax-context-tokens = \"warning\"\n");
    let out = capc_in(root, &["check", "--format", "json", "."], 100);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let report = parsed(&out);
    let found = findings(&report, "max-context-tokens");
    assert_eq!(found.len(), 1);
    assert_eq!(found[0]["severity"], "warning");
    let text = stdout(&capc_in(root, &["ls", "--budget", "."], 200));
    assert!(text.contains("; over max-context-tokens (100) by"), "{text}");

    // A ceiling of nothing is a configuration error.
    write_file(root, "capc.toml", "max-context-tokens = 0\n");
    let out = capc_in(root, &["check", "."], 100);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("capc.toml:1:1: `max-context-tokens` is a positive number"), "{}", stderr(&out));
}

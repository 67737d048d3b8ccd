//! The `capc` binary as users run it: exit codes, formats, and the rules commands.

use crate::support::session::{connected_session, none_left, settle, Transcript};
use crate::support::{capc_in, stderr, stdout};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn capc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_capc")).args(args).env("NO_COLOR", "1").output().expect("capc runs")
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name).join("in")
}

#[test]
fn clean_tree_exits_zero() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join(".claude/skills/deploy")).expect("mkdir");
    std::fs::write(
        dir.path().join(".claude/skills/deploy/SKILL.md"),
        "---\ndescription: Deploy the app to staging\n---\nRun `make deploy`.\n",
    )
    .expect("write");
    let out = capc(&["check", dir.path().to_str().expect("utf-8 path")]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(stdout(&out), "checked 1 file: 0 errors, 0 warnings, 0 infos\n");
}

#[test]
fn errors_exit_one_and_render_the_source() {
    let out = capc(&["check", fixture("invalid-json").to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(text.contains("[invalid-json] trailing comma before `}`"), "{text}");
    assert!(text.contains(".claude-plugin/plugin.json:3:"), "{text}");
}

#[test]
fn json_format_is_versioned_and_relative() {
    let root = fixture("invalid-json");
    let out = capc(&["check", "--format", "json", root.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(1));
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    assert_eq!(value["version"], 1);
    assert_eq!(value["files_checked"], 1);
    assert_eq!(value["declarations"]["plugins"], 1);
    let d = &value["diagnostics"][0];
    assert_eq!(d["rule"], "invalid-json");
    assert_eq!(d["severity"], "error");
    assert_eq!(d["path"], ".claude-plugin/plugin.json");
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64(), d["end_line"].as_u64(), d["end_column"].as_u64()),
        (Some(3), Some(21), Some(3), Some(22))
    );
    assert_eq!(value["summary"]["errors"], 1);
    assert!(!stdout(&out).contains(root.to_str().expect("utf-8")), "absolute paths leak into JSON");
}

#[test]
fn missing_path_exits_two_with_one_line() {
    let out = capc(&["check", "/nonexistent/capc-test"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: cannot read `/nonexistent/capc-test`"), "{err}");
}

#[test]
fn bad_flag_exits_two() {
    let out = capc(&["check", "--frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn rules_lists_every_rule_and_prints_docs() {
    let out = capc(&["rules"]);
    assert_eq!(out.status.code(), Some(0));
    let list = stdout(&out);
    assert_eq!(list.lines().count(), capc_compiler::rules::RULES.len());
    assert!(list.lines().any(|l| l.starts_with("invalid-json ") && l.contains("error")), "{list}");
    let docs = capc(&["rules", "unknown-hook-event"]);
    assert_eq!(docs.status.code(), Some(0));
    assert!(stdout(&docs).contains("### What it does"));
    let typo = capc(&["rules", "unknown-hook-evnt"]);
    assert_eq!(typo.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&typo.stderr).contains("did you mean `unknown-hook-event`?"));
}

#[test]
fn readme_lists_every_rule() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let mut table = String::from("| rule | severity | summary |\n| --- | --- | --- |\n");
    for rule in capc_compiler::rules::RULES {
        table.push_str(&format!("| `{}` | {} | {} |\n", rule.id, rule.severity.as_str(), rule.summary));
    }
    crate::support::golden::assert_section(&path, "<!-- rules:start", "<!-- rules:end -->", &table);
}

#[test]
fn examples_check_as_documented() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let clean = capc(&["check", root.join("team-repo").to_str().expect("utf-8")]);
    assert_eq!(clean.status.code(), Some(0), "{}", stdout(&clean));
    let report = stdout(&clean);
    assert!(report.contains("[required-env-variable] server `github` needs `GITHUB_TOKEN`"), "{report}");
    assert!(report.contains("[unknown-enabled-plugin] marketplace `acme` has a `github` source"), "{report}");
    assert!(report.ends_with("checked 13 files: 0 errors, 0 warnings, 2 infos\n"), "{report}");
    let monorepo = capc(&["check", root.join("monorepo").to_str().expect("utf-8")]);
    assert_eq!(monorepo.status.code(), Some(0), "{}", stdout(&monorepo));
    assert!(stdout(&monorepo).ends_with("checked 13 files: 0 errors, 5 warnings, 3 infos\n"), "{}", stdout(&monorepo));
    let ls = stdout(&capc(&["ls", root.join("monorepo").to_str().expect("utf-8")]));
    let manual =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/lock.md")).expect("docs/lock.md");
    assert!(manual.contains(&ls), "docs/lock.md's `capc ls examples/monorepo` output is stale:\n{ls}");
    let broken = capc(&["check", "--format", "json", root.join("broken-plugin").to_str().expect("utf-8")]);
    assert_eq!(broken.status.code(), Some(1));
    let value: serde_json::Value = serde_json::from_slice(&broken.stdout).expect("JSON");
    let mut rules: Vec<&str> =
        value["diagnostics"].as_array().expect("array").iter().map(|d| d["rule"].as_str().expect("rule")).collect();
    rules.sort_unstable();
    rules.dedup();
    assert_eq!(
        rules,
        [
            "component-path-format",
            "hooks-at-top-level",
            "invalid-field-value",
            "invalid-frontmatter",
            "invalid-hook-handler",
            "loose-skill-file",
            "unknown-field",
            "unknown-hook-event",
            "wrong-field-type",
        ]
    );
}

#[test]
fn list_files_names_declarations_as_claude_code_does() {
    let out = capc(&["check", "--list-files", fixture("names").to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stdout(&out),
        "\
.claude/agents/review/security.md\tagent\tsecurity-auditor
.claude/commands/frontend/component.md\tcommand\tfrontend:component
.claude/commands/tools/lint/SKILL.md\tskill\ttools:lint
plugins/kit/.claude-plugin/plugin.json\tplugin manifest
plugins/kit/agents/review/perf.md\tagent\tkit:review:perf
plugins/kit/commands/release.md\tcommand\tkit:release
plugins/kit/skills/fmt/SKILL.md\tskill\tkit:fmt
"
    );
}

#[test]
fn a_claude_folder_can_be_checked_directly() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/invalid-field-value/in/.claude");
    let out = capc(&["check", "--list-files", dir.to_str().expect("utf-8")]);
    assert_eq!(
        stdout(&out),
        "agents/migration-planner.md\tagent\tmigration-planner\nsettings.json\tsettings\nskills/legacy-import/SKILL.md\tskill\tlegacy-import\nskills/perf-audit/SKILL.md\tskill\tperf-audit\n"
    );
}

/// Runs capc with `input` on its stdin (closed after it), in the package's folder.
fn capc_with_input(args: &[&str], input: &str) -> Output {
    crate::support::capc_fed(Path::new(env!("CARGO_MANIFEST_DIR")), args, input)
}

/// A scratch copy of a precedence story's project folder.
fn story_copy(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/precedence").join(name).join("project");
    crate::support::copy_tree(&from, dir.path());
    dir
}

#[test]
fn lock_check_reports_missing_stale_and_fresh() {
    let dir = story_copy("skill-beats-command");
    let root = dir.path().to_str().expect("utf-8");
    let missing = capc(&["lock", "--check", root]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(stderr(&missing).contains("does not exist; run `capc lock`"), "{}", stderr(&missing));
    assert!(!dir.path().join("capabilities.lock").exists(), "--check wrote a lock");

    let written = capc(&["lock", root]);
    assert_eq!(written.status.code(), Some(0), "{}", stderr(&written));
    assert!(stderr(&written).contains("created"), "{}", stderr(&written));
    let again = capc(&["lock", root]);
    assert!(stderr(&again).contains("unchanged"), "{}", stderr(&again));
    let fresh = capc(&["lock", "--check", root]);
    assert_eq!(fresh.status.code(), Some(0), "{}", stderr(&fresh));
    assert!(stderr(&fresh).contains("is up to date"));

    std::fs::write(
        dir.path().join(".claude/skills/deploy/SKILL.md"),
        "---\ndescription: Deploy, rewritten\n---\nNew.\n",
    )
    .expect("edit");
    let stale = capc(&["lock", "--check", root]);
    assert_eq!(stale.status.code(), Some(1));
    assert!(stderr(&stale).contains("is stale"), "{}", stderr(&stale));
    let diff = stdout(&stale);
    assert!(diff.contains("-description = \"Deploy with the new pipeline\""), "{diff}");
    assert!(diff.contains("+description = \"Deploy, rewritten\""), "{diff}");
    let lock = std::fs::read_to_string(dir.path().join("capabilities.lock")).expect("lock");
    assert!(lock.contains("Deploy with the new pipeline"), "--check rewrote the lock");
}

#[test]
fn lock_refuses_to_write_over_errors() {
    // An error in what the session loads (the project's own MCP file) blocks the lock.
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join(".mcp.json"), "{\"mcpServers\": {\"a\": {\"command\": \"x\",}}}").expect("write");
    let out = capc(&["lock", dir.path().to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("not writing capabilities.lock"), "{}", stderr(&out));
    assert!(!dir.path().join("capabilities.lock").exists());
}

#[test]
fn lock_of_a_plugin_claude_code_refuses_is_written_and_succeeds() {
    // The folder is a plugin whose plugin.json Claude Code refuses: a session loads nothing of
    // it, and Claude Code still runs. The lock records the plugin as not loaded, with why, and
    // the run succeeds: `capc lock` refuses only what would make the lock lie.
    let dir = tempfile::tempdir().expect("tempdir");
    let src = fixture("invalid-json").join(".claude-plugin/plugin.json");
    std::fs::create_dir(dir.path().join(".claude-plugin")).expect("mkdir");
    std::fs::copy(src, dir.path().join(".claude-plugin/plugin.json")).expect("copy");
    let out = capc(&["lock", dir.path().to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("is asked to load but Claude Code skips it, and the lock records it as not loaded: its plugin.json is refused"),
        "{}",
        stderr(&out)
    );
    let lock = std::fs::read_to_string(dir.path().join("capabilities.lock")).expect("written");
    assert!(lock.contains("loaded = false"), "{lock}");
    // `capc check` still fails on the error, as `claude plugin validate` does.
    assert_eq!(capc(&["check", dir.path().to_str().expect("utf-8")]).status.code(), Some(1));
}

#[test]
fn lock_records_agents_whose_frontmatter_claude_code_reads_leniently() {
    // Agent frontmatter that is not YAML: Claude Code quotes `key: a: b` values and
    // reads a tab that starts a line as two spaces, in one retry, and loads the agent with its
    // name and description; one even that retry cannot read is skipped (a project agent) or
    // listed under its file name (a plugin agent). The lock records exactly that, so it is
    // written, and `capc check` still reports the unreadable file, as the validator does.
    let dir = tempfile::tempdir().expect("tempdir");
    let tabby = "---\nname: tabby\ndescription: Use this agent when: tabs\nmetadata:\n\towner: docs\n---\nBody.\n";
    let blocky = "---\nname: blocky\ndescription: |\n  Blocks\nmodel: a: b\n---\nBody.\n";
    for (path, text) in [
        (".claude/agents/tabby.md", tabby),
        (".claude/agents/blocky.md", blocky),
        ("plug/.claude-plugin/plugin.json", "{\"name\": \"plug\"}"),
        ("plug/agents/tabby.md", tabby),
        ("plug/agents/blocky.md", blocky),
    ] {
        let file = dir.path().join(path);
        std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
        std::fs::write(file, text).expect("write");
    }
    let out = capc_in(dir.path(), &["lock", ".", "--plugin-dir", "plug"], 80);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("do not block the lock"), "{}", stderr(&out));
    let lock: toml::Value =
        std::fs::read_to_string(dir.path().join("capabilities.lock")).expect("written").parse().expect("TOML");
    let agents: Vec<(String, String)> = lock["agent"]
        .as_array()
        .expect("agents")
        .iter()
        .map(|a| {
            let text = |k: &str| a.get(k).and_then(toml::Value::as_str).unwrap_or_default().to_string();
            (text("name"), text("description"))
        })
        .collect();
    for (name, description) in [
        ("tabby", "Use this agent when: tabs"),
        ("plug:tabby", "Use this agent when: tabs"),
        ("plug:blocky", "Agent from plug plugin"),
    ] {
        assert!(agents.contains(&(name.to_string(), description.to_string())), "{name}: {agents:?}");
    }
    assert!(!agents.iter().any(|(n, _)| n == "blocky"), "Claude Code skips the project agent: {agents:?}");
    let check = capc_in(dir.path(), &["check", ".", "--plugin-dir", "plug", "--format", "json"], 80);
    assert_eq!(check.status.code(), Some(1), "{}", stdout(&check));
    let report: serde_json::Value = serde_json::from_slice(&check.stdout).expect("JSON");
    let invalid: Vec<&str> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["rule"] == "invalid-frontmatter")
        .filter_map(|d| d["path"].as_str())
        .collect();
    assert_eq!(invalid.len(), 2, "{invalid:?}");
    assert!(invalid.iter().all(|p| p.ends_with("blocky.md")), "tabby loads as written: {invalid:?}");
}

#[test]
fn check_passes_files_claude_code_loads() {
    // A skill whose `metadata` is a string (Claude Code drops the value and lists the
    // skill; its validator warns) and `MultiEdit` in `allowed-tools` and an agent's `tools`
    // (Claude Code still names it among its edit tools) are no errors: CI passes.
    let dir = tempfile::tempdir().expect("tempdir");
    for (path, text) in [
        (
            ".claude/skills/meta/SKILL.md",
            "---\ndescription: Skill with string metadata\nmetadata: owned by docs\nallowed-tools: MultiEdit, Read\n---\nDo it.\n",
        ),
        (".claude/agents/editor.md", "---\nname: editor\ndescription: Edits in bulk\ntools: Read, MultiEdit\n---\nYou edit.\n"),
    ] {
        let file = dir.path().join(path);
        std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
        std::fs::write(file, text).expect("write");
    }
    let out = capc(&["check", dir.path().to_str().expect("utf-8"), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let findings: Vec<(String, String)> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            (d["rule"].as_str().unwrap_or_default().to_string(), d["severity"].as_str().unwrap_or_default().to_string())
        })
        .collect();
    assert!(findings.contains(&("wrong-field-type".to_string(), "warning".to_string())), "{findings:?}");
    assert!(
        findings.iter().filter(|(rule, _)| rule == "unknown-tool-in-rule").all(|(_, severity)| severity == "info"),
        "{findings:?}"
    );
    assert!(!findings.iter().any(|(_, severity)| severity == "error"), "{findings:?}");
}

#[test]
fn explain_names_the_winner_and_the_rule() {
    let dir = story_copy("skill-beats-command");
    let out = capc(&["explain", "/deploy", dir.path().to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let skill = text.find(".claude/skills/deploy/SKILL.md  ← runs").expect("the skill runs");
    let command = text.find(".claude/commands/deploy.md").expect("the command is listed");
    assert!(skill < command, "winner first:\n{text}");
    assert!(text.contains("[skills-before-commands]"), "{text}");
    let unknown = capc(&["explain", "deplyo", dir.path().to_str().expect("utf-8")]);
    assert_eq!(unknown.status.code(), Some(1));
    assert!(stderr(&unknown).contains("did you mean `deploy`?"), "{}", stderr(&unknown));
}

#[test]
fn ls_json_and_graph_formats() {
    let dir = story_copy("skill-beats-command");
    let root = dir.path().to_str().expect("utf-8");
    let ls: serde_json::Value = serde_json::from_slice(&capc(&["ls", "--format", "json", root]).stdout).expect("json");
    assert_eq!(ls["version"], 2);
    let commands = ls["commands"].as_array().expect("commands");
    assert_eq!(commands[0]["name"], "deploy");
    assert_eq!(commands[0]["origin"], "skill");
    assert_eq!(commands[0]["shadowed_by"], serde_json::Value::Null);
    let hidden = commands.iter().find(|c| c["path"] == ".claude/commands/deploy.md").expect("listed");
    assert_eq!(hidden["shadowed_by"]["path"], ".claude/skills/deploy/SKILL.md");
    assert!(commands.iter().any(|c| c["name"] == "clear" && c["origin"] == "builtin" && c["type"] == "local"));
    assert!(ls["tools"].as_array().expect("tools").iter().any(|t| t["name"] == "Bash"));
    let dot = stdout(&capc(&["graph", root]));
    assert!(dot.starts_with("digraph capabilities {") && dot.contains("shadows\\nskills-before-commands"), "{dot}");
    let graph: serde_json::Value =
        serde_json::from_slice(&capc(&["graph", "--format", "json", root]).stdout).expect("json");
    assert!(graph["edges"].as_array().expect("edges").iter().any(|e| e["kind"] == "shadows"));
}

/// A session holds its lock without the marketplaces' entries (which load nothing), and never
/// reads them from the lock file; `--verify` still compares the whole file with its sources.
#[test]
fn a_session_leaves_the_marketplace_entries_out_and_verify_still_compares_them() {
    let dir = story_copy("marketplace-alias-clash");
    let root = dir.path().to_str().expect("utf-8");
    assert_eq!(capc(&["lock", root]).status.code(), Some(0));
    let lock = dir.path().join("capabilities.lock");
    let text = std::fs::read_to_string(&lock).expect("the lock");
    assert!(text.contains("[[marketplace_plugin.command]]\nname = \"zeta:lint\""), "{text}");
    let session =
        |input: &str| capc_with_input(&["session", "--lock", lock.to_str().expect("utf-8"), "--verify"], input);
    let status = "{\"id\":1,\"type\":\"status\"}\n";
    let out = session(status);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("\"ok\":true"), "{}", stdout(&out));
    // An entry the session never decodes, edited, is still a lock its sources do not write.
    std::fs::write(&lock, text.replace("name = \"zeta:lint\"", "name = \"zeta:edited\"")).expect("edit");
    let out = session(status);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("was it edited?") && stderr(&out).contains("zeta:edited"), "{}", stderr(&out));
    // Without --verify the session runs from it.
    let out = capc_with_input(&["session", "--lock", lock.to_str().expect("utf-8")], status);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn session_speaks_ndjson_and_verify_refuses_a_stale_lock() {
    let dir = story_copy("skill-beats-command");
    let root = dir.path().to_str().expect("utf-8");
    assert_eq!(capc(&["lock", root]).status.code(), Some(0));
    let lock = dir.path().join("capabilities.lock");
    let run = |extra: &[&str], input: &str| {
        let mut args = vec!["session", "--lock", lock.to_str().expect("utf-8")];
        args.extend_from_slice(extra);
        capc_with_input(&args, input)
    };
    let out = run(&["--verify"], "{\"id\":1,\"type\":\"turn\",\"input\":\"/deploy now\",\"include\":[]}\nnot json\n");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lines: Vec<serde_json::Value> =
        stdout(&out).lines().map(|l| serde_json::from_str(l).expect("one JSON object per line")).collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["id"], 1);
    // What Claude Code sends: the command block, then the skill's folder and its body.
    assert_eq!(
        lines[0]["result"]["texts"][0],
        "<command-message>deploy</command-message>\n<command-name>/deploy</command-name>\n<command-args>now</command-args>\n"
    );
    let prompt = lines[0]["result"]["texts"][1].as_str().expect("the prompt block");
    assert!(prompt.starts_with("Base directory for this skill: /"), "{prompt}");
    assert!(
        prompt.ends_with("/.claude/skills/deploy\n\nFollow the team's steps for this task.\n\n\nARGUMENTS: now"),
        "{prompt}"
    );
    assert_eq!(lines[1]["ok"], false);

    std::fs::write(dir.path().join(".claude/commands/deploy.md"), "---\ndescription: changed\n---\nNew body.\n")
        .expect("edit");
    let stale = run(&["--verify"], "");
    assert_eq!(stale.status.code(), Some(1));
    assert!(stderr(&stale).contains("`.claude/commands/deploy.md` changed"), "{}", stderr(&stale));
    // Without --verify the session starts; an unchanged body is used, a changed one refused.
    std::fs::write(dir.path().join(".claude/skills/deploy/SKILL.md"), "---\ndescription: x\n---\nrm -rf\n")
        .expect("edit");
    let lazy = run(
        &[],
        "{\"id\":2,\"type\":\"turn\",\"input\":\"/db:migrate\",\"include\":[]}\n{\"id\":3,\"type\":\"turn\",\"input\":\"/deploy\",\"include\":[]}\n",
    );
    assert_eq!(lazy.status.code(), Some(0));
    let text = stdout(&lazy);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].contains("\"kind\":\"prompt\""), "{}", lines[0]);
    assert!(lines[1].contains("the lock is stale: `.claude/skills/deploy/SKILL.md` changed"), "{}", lines[1]);
}

#[test]
fn the_repl_answers_people() {
    let dir = story_copy("skill-beats-command");
    let root = dir.path().to_str().expect("utf-8");
    assert_eq!(capc(&["lock", root]).status.code(), Some(0));
    let lock = dir.path().join("capabilities.lock");
    let out = capc_with_input(
        &["session", "--repl", "--no-shell", "--lock", lock.to_str().expect("utf-8")],
        "/deploy now\n:why deploy\n:tools\n/nope\n:comands\n:commands\n/help\n/mcp\n:entry headless\n/help\n:quit\n/never reached\n",
    );
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert!(text.contains("── prompt for /deploy ──\n<command-message>deploy</command-message>"), "{text}");
    assert!(text.contains("Follow the team's steps for this task."), "{text}");
    assert!(
        text.contains(".claude/commands/deploy.md (project) is hidden by .claude/skills/deploy/SKILL.md"),
        "{text}"
    );
    assert!(text.contains("\nBash\n"), "{text}");
    assert!(text.contains("/nope is not a command here"), "{text}");
    // An unknown REPL command is an error with the closest one, never a message to the model.
    assert!(text.contains("error: no REPL command `:comands`; did you mean `:commands`?"), "{text}");
    // The hidden row is marked with the row a typed `/deploy` runs.
    let rows: Vec<&str> = text
        .lines()
        .map(|l| l.trim_start_matches("capc> "))
        .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        .collect();
    let hidden = rows.iter().find(|l| l.contains(".claude/commands/deploy.md")).expect("the command's row");
    assert!(hidden.ends_with("[hidden: /deploy runs row 1 (.claude/skills/deploy/SKILL.md)]"), "{hidden}");
    let winner = rows.iter().find(|l| l.contains(".claude/skills/deploy/SKILL.md"));
    assert!(winner.is_some_and(|l| !l.contains("hidden")), "{text}");
    // Built-ins answer as the terminal interface does, in words, not JSON; `/deploy` once.
    assert!(text.contains("Commands and skills here:\n  /deploy"), "{text}");
    let help = &text[text.find("Commands and skills here:").expect("help")..];
    let help = &help[..help.find("Bundled skills:").expect("bundled")];
    assert_eq!(help.matches("/deploy ").count(), 1, "{help}");
    assert!(text.contains("Built-in commands:\n  /add-dir"), "{text}");
    assert!(!text.contains("\"kind\""), "raw JSON in the REPL: {text}");
    // As `claude -p`, /help is not available.
    assert!(
        text.contains("answering as `claude -p` (headless)\ncapc> /help isn't available in this environment."),
        "{text}"
    );
    assert!(!text.contains("never"), "input after :quit was read: {text}");
}

/// The REPL sees the live connections: `:status` names each server's state and why it failed.
#[test]
fn the_repl_shows_live_server_states() {
    use std::io::Write as _;
    let faulty = Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime/tests/servers/faulty.cjs");
    let (_dir, mut child) = connected_session(
        serde_json::json!({
            "tools": {"command": "node", "args": [faulty.to_str().expect("utf-8")]},
            "broken": {"command": "sh", "args": ["-c", "echo 'fatal: no API key' >&2; exit 2"]},
            "legacy": {"type": "sse", "url": "http://127.0.0.1:9/sse"}
        }),
        "--repl",
    );
    let mut stdin = child.stdin.take().expect("stdin");
    let out = Transcript::of(&mut child);
    // A status is whole once the next prompt follows it; ask until one shows no server pending.
    let settled = |text: &str| -> Option<String> {
        let statuses: Vec<&str> = text.split("capc> lock:").skip(1).collect();
        let whole = statuses.iter().enumerate().filter(|(i, s)| i + 1 < statuses.len() || s.contains("capc> "));
        whole.map(|(_, s)| s.to_string()).find(|s| s.contains("MCP servers:") && !s.contains("pending"))
    };
    out.wait_for(
        "the servers to connect or fail",
        || writeln!(stdin, ":status").expect("write"),
        |t| settled(t).is_some(),
    );
    drop(stdin);
    assert_eq!(child.wait().expect("capc exits").code(), Some(0));
    let text = out.finish();
    let first = text.split("capc> lock:").nth(1).expect("a status");
    assert!(first.contains("MCP servers:"), "{first}");
    let later = settled(&text).expect("a settled status");
    assert!(later.contains("tools   connected   9 tools, 0 prompts, 0 resources, protocol 2025-06-18"), "{later}");
    assert!(later.contains("broken  failed      the server exited during initialize (exit status: 2)\n"), "{later}");
    assert!(later.contains("                      stderr: fatal: no API key"), "{later}");
    assert!(later.contains("legacy  failed      `sse` servers are not supported"), "{later}");
    // docs/session.md shows this status: each of its lines is one the REPL printed.
    let manual = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/session.md")).expect("docs");
    let shown = manual.split("```text\ncapc> :status\n").nth(1).and_then(|b| b.split("```").next()).expect("the block");
    let printed = format!("lock:{later}");
    for line in shown.lines() {
        assert!(
            printed.lines().any(|l| l == line),
            "docs/session.md's `:status` shows `{line}`, not printed:\n{printed}"
        );
    }
}

/// Killed with SIGTERM, `capc session --connect` ends its servers' process groups first (they
/// are out of the terminal's reach) and exits with 143.
#[test]
fn a_terminated_session_leaves_no_server_behind() {
    let faulty = Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime/tests/servers/faulty.cjs");
    let marker = format!("capc-sigterm-check-{}", std::process::id());
    // After the server, its wrapper starts a process that outlives stdin closing.
    let script = format!("node {} {marker}; node -e 'setTimeout(() => {{}}, 60000)' {marker}", faulty.display());
    let (_dir, mut child) =
        connected_session(serde_json::json!({"wrapped": {"command": "sh", "args": ["-c", script]}}), "--json");
    let mut stdin = child.stdin.take().expect("stdin");
    let out = Transcript::of(&mut child);
    settle(&mut stdin, &out);
    assert!(out.text().contains("\"status\":\"connected\""), "{}", out.text());
    let running = |m: &str| {
        let out = Command::new("pgrep").args(["-f", m]).output().expect("pgrep runs");
        String::from_utf8_lossy(&out.stdout).lines().count()
    };
    assert!(running(&marker) >= 2, "the server runs");
    let killed = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().expect("kill runs");
    assert!(killed.success());
    assert_eq!(child.wait().expect("capc exits").code(), Some(143), "exits as terminated");
    drop(stdin);
    out.finish();
    none_left(&marker, "server processes left behind");
}

/// Killed with SIGTERM while a `!` injection runs, `capc session` (without `--connect`) ends the
/// injection's process group first and exits with 143.
#[test]
fn a_terminated_session_leaves_no_injection_behind() {
    use std::io::Write as _;
    let dir = tempfile::tempdir().expect("tempdir");
    let marker = 90_000 + std::process::id() % 9_000;
    let skill = dir.path().join(".claude/skills/wait");
    std::fs::create_dir_all(&skill).expect("mkdir");
    // `sleep` is read-only, so no rule is needed; it outlives the signal unless its group is killed.
    std::fs::write(skill.join("SKILL.md"), format!("---\ndescription: waits\n---\nWaited: !`sleep {marker}`\n"))
        .expect("SKILL.md");
    assert_eq!(capc(&["lock", dir.path().to_str().expect("utf-8")]).status.code(), Some(0));
    let lock = dir.path().join("capabilities.lock");
    let mut child = Command::new(env!("CARGO_BIN_EXE_capc"))
        .args(["session", "--json", "--trust", "--lock", lock.to_str().expect("utf-8")])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("capc runs");
    let mut stdin = child.stdin.take().expect("stdin");
    writeln!(stdin, "{{\"id\":1,\"type\":\"turn\",\"input\":\"/wait\",\"include\":[]}}").expect("write");
    let pattern = format!("^sleep {marker}$");
    let running = || {
        let out = Command::new("pgrep").args(["-f", &pattern]).output().expect("pgrep runs");
        String::from_utf8_lossy(&out.stdout).lines().count()
    };
    // Up to 30 s for the turn to start it.
    for _ in 0..600 {
        if running() > 0 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(running(), 1, "the injection runs");
    let killed = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().expect("kill runs");
    assert!(killed.success());
    let out = child.wait_with_output().expect("capc exits");
    drop(stdin);
    assert_eq!(out.status.code(), Some(143), "exits as terminated");
    none_left(&pattern, "the injection outlived the session");
}

/// A project with `n` commands, each with a probable typo (a warning) and custom metadata (an
/// info); `errors` of them also hold a permission rule that does not parse (an error in what a
/// session loads).
fn noisy_project(n: usize, errors: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let commands = dir.path().join(".claude/commands");
    std::fs::create_dir_all(&commands).expect("mkdir");
    for i in 0..n {
        let tools = if i < errors { "bash(ls" } else { "Read" };
        std::fs::write(
            commands.join(format!("c{i:02}.md")),
            format!("---\ndescription: Command {i}\nallowed-tools: {tools}\nallowed_tools: Read\nteam: infra\n---\nDo {i}.\n"),
        )
        .expect("write");
    }
    dir
}

#[test]
fn lock_prints_a_summary_of_the_findings_not_the_report() {
    let dir = noisy_project(30, 0);
    let root = dir.path().to_str().expect("utf-8");
    let out = capc(&["lock", root]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(
        lines,
        [
            format!("warning: found 30 warnings, 30 infos; `capc check {root}` shows them").as_str(),
            format!("{root}/capabilities.lock created: 30 commands, 0 agents, 0 MCP servers, 0 hooks, 0 permission rules from 30 files").as_str(),
        ],
        "{err}"
    );
    assert!(stdout(&out).is_empty(), "{}", stdout(&out));
}

#[test]
fn a_refused_lock_names_the_first_errors_with_their_place() {
    let dir = noisy_project(30, 14);
    let root = dir.path().to_str().expect("utf-8");
    let out = capc(&["lock", root]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(!dir.path().join("capabilities.lock").exists());
    let err = stderr(&out);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines[0], "error: not writing capabilities.lock: 14 errors in what a session here loads:", "{err}");
    // The first ten, one line each, `path:line:col: error[rule] message`, in report order.
    assert!(
        lines[1]
            .starts_with("  .claude/commands/c00.md:3:16: error[invalid-permission-rule] permission rule `bash(ls`"),
        "{err}"
    );
    assert!(lines[10].starts_with("  .claude/commands/c09.md:3:16: error[invalid-permission-rule]"), "{err}");
    assert_eq!(lines[11], "  … and 4 more", "{err}");
    assert_eq!(
        lines[12],
        format!(
            "help: `capc check {root}` shows every finding (14 errors, 30 warnings, 30 infos) with its source and help"
        ),
        "{err}"
    );
    assert_eq!(lines.len(), 13, "no report, no source snippets: {err}");
    // `-q` keeps the errors.
    let quiet = capc(&["-q", "lock", root]);
    assert_eq!(quiet.status.code(), Some(1));
    assert_eq!(stderr(&quiet), err, "-q silences no error");
}

#[test]
fn quiet_prints_only_findings_and_errors() {
    let dir = noisy_project(2, 0);
    let root = dir.path().to_str().expect("utf-8");
    // check: the findings without the summary line; a clean folder prints nothing.
    let loud = capc(&["check", "--format", "short", root]);
    let quiet = capc(&["check", "--format", "short", "--quiet", root]);
    assert_eq!(quiet.status.code(), loud.status.code());
    assert_eq!(stdout(&loud).lines().last(), Some("checked 2 files: 0 errors, 2 warnings, 2 infos"));
    let expected: String =
        stdout(&loud).lines().filter(|l| !l.starts_with("checked ")).map(|l| format!("{l}\n")).collect();
    assert_eq!(stdout(&quiet), expected);
    assert_eq!(stdout(&quiet).lines().count(), 4);
    let hidden = capc(&["-q", "check", "--severity", "warning", root]);
    assert!(!stdout(&hidden).contains("not shown"), "{}", stdout(&hidden));
    let empty = tempfile::tempdir().expect("tempdir");
    let nothing = capc(&["check", "-q", empty.path().to_str().expect("utf-8")]);
    assert_eq!((nothing.status.code(), stdout(&nothing), stderr(&nothing)), (Some(0), String::new(), String::new()));
    // JSON is output, never silenced.
    let json = capc(&["-q", "check", "--format", "json", root]);
    assert_eq!(stdout(&json), stdout(&capc(&["check", "--format", "json", root])));
    // lock: nothing at all when it is written.
    let lock = capc(&["lock", "-q", root]);
    assert_eq!((lock.status.code(), stderr(&lock)), (Some(0), String::new()));
    assert!(dir.path().join("capabilities.lock").is_file());
    let fresh = capc(&["-q", "lock", "--check", root]);
    assert_eq!((fresh.status.code(), stderr(&fresh)), (Some(0), String::new()));
    // session: no untrusted-folder note; the answers are output.
    std::fs::write(dir.path().join(".claude/settings.json"), "{\"permissions\": {\"allow\": [\"Bash(ls)\"]}}")
        .expect("write");
    assert_eq!(capc(&["lock", "-q", root]).status.code(), Some(0));
    let status = "{\"id\":1,\"type\":\"status\"}\n";
    let noted = capc_with_input(&["session", root], status);
    assert!(stderr(&noted).contains("1 project allow rule does not hold"), "{}", stderr(&noted));
    let silent = capc_with_input(&["session", "-q", root], status);
    assert_eq!(stderr(&silent), "");
    assert_eq!(stdout(&silent), stdout(&noted));
    // --help says what -q silences.
    let short = stdout(&capc(&["-h"]));
    assert!(
        short.contains("-q, --quiet    Print only results and errors: no notes, hints or summary lines"),
        "{short}"
    );
    let long = stdout(&capc(&["check", "--help"])).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(long.contains("`capc check`'s `checked N files: …` line"), "{long}");
    assert!(long.contains("The exit code is unchanged."), "{long}");
}

#[test]
fn session_takes_a_path_like_every_subcommand() {
    let dir = story_copy("skill-beats-command");
    let root = dir.path().to_str().expect("utf-8");
    let status = "{\"id\":1,\"type\":\"status\"}\n";
    // No lock yet: an error naming the lock, and the command that writes it.
    let missing = capc_with_input(&["session", root], status);
    assert_eq!(missing.status.code(), Some(2));
    let err = stderr(&missing);
    assert!(err.contains(&format!("error: no lock at `{root}/capabilities.lock`")), "{err}");
    assert!(err.contains(&format!("help: run `capc lock {root}` to write it")), "{err}");
    assert_eq!(capc(&["lock", root]).status.code(), Some(0));
    // PATH (the folder), PATH (the lock file), --lock FILE and the current folder agree.
    let by_folder = capc_with_input(&["session", root], status);
    assert_eq!(by_folder.status.code(), Some(0), "{}", stderr(&by_folder));
    assert!(stdout(&by_folder).contains("\"ok\":true"), "{}", stdout(&by_folder));
    let lock = dir.path().join("capabilities.lock");
    let lock = lock.to_str().expect("utf-8");
    assert_eq!(stdout(&capc_with_input(&["session", lock], status)), stdout(&by_folder));
    assert_eq!(stdout(&capc_with_input(&["session", "--lock", lock], status)), stdout(&by_folder));
    let here = crate::support::capc_fed(dir.path(), &["session", "--json"], status);
    assert_eq!(stdout(&here), stdout(&by_folder));
    // PATH and --lock name the same thing twice: refused.
    assert_eq!(capc(&["session", root, "--lock", lock]).status.code(), Some(2));
}

#[test]
fn counts_in_messages_are_singular_for_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join(".claude/commands")).expect("mkdir");
    std::fs::write(dir.path().join(".claude/commands/ship.md"), "---\ndescription: Ship it\n---\nShip.\n")
        .expect("write");
    std::fs::write(dir.path().join(".claude/settings.json"), "{\"permissions\": {\"allow\": [\"Bash(ls)\"]}}")
        .expect("write");
    let root = dir.path().to_str().expect("utf-8");
    let out = capc(&["lock", root]);
    assert!(
        stderr(&out).contains("created: 1 command, 0 agents, 0 MCP servers, 0 hooks, 1 permission rule from 2 files"),
        "{}",
        stderr(&out)
    );
    let ls = stdout(&capc(&["session", "--repl", root]));
    assert!(ls.contains("capc session: 1 command, 0 agents, 0 MCP servers in the lock"), "{ls}");
}

/// `capc ls --budget` on a folder whose settings make the listing's budget small: the budget,
/// how far over it the listing is, every entry by cost with what is kept, and what would fit.
#[test]
fn ls_budget_shows_each_entry_and_what_is_dropped() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/listing-budget/in");
    let out = capc_in(&root, &["ls", "--budget", "."], 100);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    crate::support::golden::assert(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/listing-budget/ls-budget.txt"),
        &stdout(&out),
    );
    let json: serde_json::Value =
        serde_json::from_slice(&capc_in(&root, &["ls", "--budget", "--format", "json", "."], 100).stdout)
            .expect("json");
    assert_eq!(json["version"], 1);
    let listing = &json["windows"][0]["listing"];
    assert_eq!(listing["over"], listing["full"].as_u64().unwrap() - listing["budget"].as_u64().unwrap());
    let dropped =
        listing["entries"].as_array().expect("entries").iter().filter(|e| e["description"] == "dropped").count();
    assert_eq!(dropped, 4, "{json}");
    let both = capc_in(&root, &["ls", "--budget", "--all", "."], 100);
    assert_eq!(both.status.code(), Some(2), "--all and --budget conflict");
}

#[test]
fn lock_records_settings_claude_code_refuses_and_is_written() {
    // Settings Claude Code refuses whole (not JSON, not an object, an unknown defaultMode)
    // declare nothing; Claude Code runs the session without them and prints a notice. The lock
    // records them in `[[settings_not_loaded]]` and is written; `capc check` still fails, and
    // an empty settings file (read as no settings) is only a warning.
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join(".claude")).expect("mkdir");
    for (name, text) in [
        ("settings.json", "{\"permissions\": {\"deny\": [\"Bash(rm:*)\"],}}\n"),
        ("settings.local.json", "[\"Bash\"]\n"),
    ] {
        std::fs::write(dir.path().join(".claude").join(name), text).expect("write");
    }
    let root = dir.path().to_str().expect("utf-8");
    let out = capc(&["lock", root, "--include-local"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lock: toml::Value =
        std::fs::read_to_string(dir.path().join("capabilities.lock")).expect("written").parse().expect("TOML");
    let refused: Vec<(&str, &str)> = lock["settings_not_loaded"]
        .as_array()
        .expect("settings_not_loaded")
        .iter()
        .map(|s| (s["path"].as_str().unwrap_or_default(), s["message"].as_str().unwrap_or_default()))
        .collect();
    assert_eq!(
        refused,
        [
            (".claude/settings.json", "Invalid or malformed JSON"),
            (".claude/settings.local.json", "Expected object, but received array")
        ]
    );
    assert!(lock.get("permission").is_none(), "nothing of a refused file applies: {lock}");
    assert_eq!(capc(&["check", root]).status.code(), Some(1));
    std::fs::write(dir.path().join(".claude/settings.json"), "").expect("write");
    std::fs::remove_file(dir.path().join(".claude/settings.local.json")).expect("remove");
    let check = capc(&["check", root]);
    assert_eq!(check.status.code(), Some(0), "{}", stdout(&check));
    assert!(stdout(&check).contains("[invalid-json] file is empty"), "{}", stdout(&check));
}

/// `THP_enabled` of a process's /proc status: 0 once it gave up transparent huge pages.
#[cfg(target_os = "linux")]
fn thp_enabled(status: &str) -> &str {
    let line = status.lines().find(|l| l.starts_with("THP_enabled:")).unwrap_or_else(|| panic!("{status}"));
    line["THP_enabled:".len()..].trim()
}

/// A command that starts no process of the user's (one that reports and exits, `capc lsp`)
/// gives up transparent huge pages (src/alloc.rs), and the flag passes to what it starts:
/// `git`, here a stand-in that records its own status. `capc serve` gives them up only until it
/// starts a process of the user's, so the MCP servers and `!` commands it starts are as the
/// user's shell would start them.
#[cfg(target_os = "linux")]
#[test]
fn only_commands_that_start_no_process_give_up_huge_pages() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().canonicalize().expect("canonical");
    let (repo, bin) = (root.join("repo"), root.join("bin"));
    std::fs::create_dir_all(repo.join(".git")).expect("mkdir");
    std::fs::create_dir_all(repo.join(".claude/commands")).expect("mkdir");
    std::fs::write(repo.join(".claude/commands/ship.md"), "Ship it.\n").expect("write");
    std::fs::create_dir_all(&bin).expect("mkdir");
    let recorded = root.join("git-status");
    let git = format!("#!/bin/sh\ncat /proc/self/status > '{}'\nexit 1\n", recorded.display());
    std::fs::write(bin.join("git"), git).expect("write");
    std::fs::set_permissions(bin.join("git"), std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let out = Command::new(env!("CARGO_BIN_EXE_capc"))
        .args(["diff", "HEAD", "."])
        .current_dir(&repo)
        .env("PATH", &path)
        .env_remove("MIMALLOC_ALLOW_THP")
        .output()
        .expect("capc runs");
    assert_eq!(out.status.code(), Some(2), "git failed, so the diff cannot run: {}", stderr(&out));
    let status = std::fs::read_to_string(&recorded).expect("capc diff ran git");
    assert_eq!(thp_enabled(&status), "0", "capc diff gave up huge pages before it started git");

    // `capc serve` runs without them until it starts a process of the user's: its load (whose
    // check of the sources runs git, to know the local files it tracks) and its answers; the
    // first `!` injection it runs gets them as the test has them, and so does the server after.
    std::fs::create_dir_all(repo.join(".claude/skills/thp")).expect("mkdir");
    let skill = "---\ndescription: Reports huge pages\n---\nStatus: !`./thp.sh`\n";
    std::fs::write(repo.join(".claude/skills/thp/SKILL.md"), skill).expect("write");
    std::fs::write(repo.join("thp.sh"), "#!/bin/sh\ngrep THP_enabled /proc/self/status\n").expect("write");
    std::fs::set_permissions(repo.join("thp.sh"), std::fs::Permissions::from_mode(0o755)).expect("chmod");
    std::fs::write(repo.join(".claude/settings.json"), r#"{"permissions":{"allow":["Bash(./thp.sh)"]}}"#)
        .expect("write");
    let lock = Command::new(env!("CARGO_BIN_EXE_capc")).arg("lock").current_dir(&repo).output().expect("capc runs");
    assert!(lock.status.success(), "capc lock: {}", stderr(&lock));
    std::fs::remove_file(&recorded).ok();
    let own = std::fs::read_to_string("/proc/self/status").expect("the test's status");
    let own = thp_enabled(&own).to_string();
    // Given up only when they were on; a flag set already stays set.
    let until_started = if own == "1" { "0" } else { own.as_str() };
    let wait = std::time::Duration::from_secs(60);
    let env = [("PATH", path.as_str()), ("MIMALLOC_ALLOW_THP", "")];
    let mut server = crate::support::serve::StdioServer::start_with(&repo, &["serve", "--trust", "."], wait, &env);
    let status = std::fs::read_to_string(&recorded).expect("capc serve's load ran git");
    assert_eq!(thp_enabled(&status), "0", "capc serve gave up huge pages while it loaded");
    let serve_status = || std::fs::read_to_string(format!("/proc/{}/status", server.pid())).expect("its status");
    assert_eq!(thp_enabled(&serve_status()), until_started, "capc serve runs without them until it starts a process");
    let got = server.request("prompts/get", serde_json::json!({"name": "thp"}));
    let text = got["result"]["messages"].to_string();
    assert!(text.contains(&format!("THP_enabled:\\t{own}")), "the injection has them as capc found them: {got}");
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.pid())).expect("its status");
    assert_eq!(thp_enabled(&status), own, "capc serve has them back once it started a process");
    drop(server);

    let server = crate::support::serve::StdioServer::start(&repo, &["serve", "--tree", "."], wait);
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.pid())).expect("its status");
    assert_eq!(thp_enabled(&status), until_started, "capc serve --tree runs without them until it starts a process");
    drop(server);

    // `capc lsp` starts no process of the user's: it gives them up as a command that exits does
    // (read once it has answered `initialize`, so once `main` has set the flag).
    use std::io::{BufRead, Read, Write};
    let mut lsp = Command::new(env!("CARGO_BIN_EXE_capc"))
        .arg("lsp")
        .current_dir(&repo)
        .env_remove("MIMALLOC_ALLOW_THP")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("capc lsp runs");
    let body = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}});
    let body = body.to_string();
    let mut stdin = lsp.stdin.take().expect("its stdin");
    write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write");
    stdin.flush().expect("flush");
    let mut answer = std::io::BufReader::new(lsp.stdout.take().expect("its stdout"));
    let mut header = String::new();
    answer.read_line(&mut header).expect("a header");
    let length: usize = header.trim().trim_start_matches("Content-Length:").trim().parse().expect("a length");
    answer.read_line(&mut String::new()).expect("the blank line");
    let mut reply = vec![0; length];
    answer.read_exact(&mut reply).expect("its answer");
    assert!(String::from_utf8_lossy(&reply).contains("\"capabilities\""), "{}", String::from_utf8_lossy(&reply));
    let status = std::fs::read_to_string(format!("/proc/{}/status", lsp.id())).expect("its status");
    assert_eq!(thp_enabled(&status), until_started, "capc lsp gives them up");
    drop(stdin);
    let _ = lsp.kill();
    let _ = lsp.wait();
}

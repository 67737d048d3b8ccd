//! The data of `builtins.rs` against what it was extracted or measured from: every measured file
//! is of the version capc follows, every command row agrees with the bundle's command objects,
//! and every row shows in the recording of the oracle scenario it names.

use super::*;
use crate::model::CLAUDE_CODE_VERSION;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A table `scripts/claude-code-tables` extracts into `compiler/data/claude-code/`.
fn extracted(text: &str) -> Value {
    let data: Value = serde_json::from_str(text).expect("the extracted table parses");
    assert_eq!(
        data["claude_code"], CLAUDE_CODE_VERSION,
        "regenerate it: scripts/claude-code-tables {CLAUDE_CODE_VERSION}"
    );
    data
}

fn scenario(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/oracle/scenarios").join(name)
}

/// What a scenario recorded for one input (`expected/<input>.json`).
fn recorded(name: &str, input: &str) -> Value {
    let path = scenario(name).join("expected").join(format!("{input}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).expect("a recording parses")
}

fn strings(value: &Value) -> Vec<&str> {
    value.as_array().into_iter().flatten().filter_map(Value::as_str).collect()
}

#[test]
fn the_measured_files_parse_and_are_of_this_version() {
    let re_measure = "re-measure it (CONTRIBUTING.md, \"Moving to a new Claude Code version\")";
    let commands: Measured<CommandRow> = serde_json::from_str(MEASURED_COMMANDS).expect("measured/commands.json");
    let skills: Measured<SkillRow> = serde_json::from_str(MEASURED_SKILLS).expect("measured/bundled-skills.json");
    let agents: Measured<AgentRow> = serde_json::from_str(MEASURED_AGENTS).expect("measured/agents.json");
    let reserved: ReservedNames = serde_json::from_str(RESERVED_NAMES).expect("measured/reserved-names.json");
    let objects: CommandsFile = serde_json::from_str(COMMANDS_FILE).expect("commands.json");
    for (file, version) in [
        ("commands", &commands.claude_code),
        ("bundled-skills", &skills.claude_code),
        ("agents", &agents.claude_code),
        ("reserved-names", &reserved.claude_code),
    ] {
        assert_eq!(version, CLAUDE_CODE_VERSION, "measured/{file}.json: {re_measure}");
    }
    assert_eq!(objects.claude_code, CLAUDE_CODE_VERSION);
    assert_eq!(builtins().len(), commands.rows.len());
    assert_eq!(bundled_skills().len(), skills.rows.len());
    assert_eq!(builtin_agents().len(), agents.rows.len());
    assert!(builtins().len() > 100 && bundled_skills().len() > 15 && builtin_agents().len() >= 5);
    assert!(reserved.mcp_servers.names.len() > 10 && reserved.marketplaces.names.len() > 10);
}

/// Command rows Claude Code builds with a function (a prompt command, a command moved to a
/// plugin) rather than as an object literal, so the extracted command table cannot hold them.
const BUILT_BY_A_FUNCTION: &[&str] = &["login", "security-review", "vim"];

#[test]
fn every_command_row_is_a_command_of_the_extracted_table_and_gives_only_what_it_lacks() {
    let commands = &command_objects().commands;
    for row in measured_commands().rows.iter().filter(|r| r.kind == BuiltinKind::Command) {
        let Some(object) = commands.get(&row.name) else {
            assert!(
                BUILT_BY_A_FUNCTION.contains(&row.name.as_str()),
                "`/{}` is not a command of Claude Code",
                row.name
            );
            assert!(
                row.aliases.is_some() && row.command_type.is_some() && row.availability.is_some() && row.note.is_some(),
                "`/{}` is no command object: its row gives aliases, type and availability, and says where they were read",
                row.name
            );
            continue;
        };
        assert!(row.aliases.is_none(), "`/{}`'s aliases are the command object's", row.name);
        match (object.types.as_slice(), row.command_type) {
            ([_], given) => assert!(given.is_none(), "`/{}` has one type, the command object's", row.name),
            (types, Some(given)) => assert!(types.contains(&given), "`/{}` runs as one of {types:?}", row.name),
            (types, None) => panic!("`/{}` has {types:?}: the row says which it runs as", row.name),
        }
        if let Some(given) = row.availability {
            assert_ne!(given, Availability::of_object(&object.availability), "`/{}`: no override needed", row.name);
            assert!(row.note.is_some(), "`/{}`'s availability override says where it was read", row.name);
        }
    }
    for name in BUILT_BY_A_FUNCTION {
        assert!(commands.get(*name).is_none(), "`/{name}` is now an object of the table: take it from there");
    }
    // The aliases keep the bundle's order.
    assert_eq!(named("clear").map(|b| b.aliases), Some(&["reset", "new"][..]));
    assert_eq!(named("install-github-app").map(|b| b.availability), Some(Availability::FirstParty));
}

#[test]
fn every_bundled_skill_is_registered_in_the_extracted_table() {
    let data = extracted(include_str!("../../data/claude-code/bundled-skills.json"));
    let registered = strings(&data["registered"]);
    // `claude-api` is registered by a loader of its own (its text is fetched when used).
    for skill in bundled_skills().iter().filter(|b| b.source == BundledSource::Bundled && b.name != "claude-api") {
        assert!(registered.contains(&skill.name), "`{}` is registered as a bundled skill", skill.name);
    }
    for row in builtins().iter().filter(|b| b.kind == BuiltinKind::BundledSkill) {
        assert!(bundled_skill(row.name).is_some(), "`{}` has a row in measured/bundled-skills.json", row.name);
    }
}

/// Whether a sign-in may use a built-in and its bundled-skill gate holds (`claude_ai`: a
/// claude.ai sign-in, else an API key), with no switch set.
fn in_headless_table(b: &Builtin, claude_ai: bool) -> bool {
    let available = match b.availability {
        Availability::Everyone | Availability::FirstParty => true,
        Availability::ClaudeAi => claude_ai,
    };
    let skill = bundled_skill(b.name);
    let gate = skill.is_none_or(|s| s.gate != Gate::ClaudeAi || claude_ai);
    b.headless && available && gate && skill.is_none_or(|s| s.user_invocable)
}

#[test]
fn the_headless_rows_are_the_recorded_command_tables_in_order() {
    // The scenarios the rows name, with their sign-in; each is a plain folder.
    let scenarios = [("turn-baseline", false), ("turn-auth-oauth", true)];
    for row in &measured_commands().rows {
        assert!(scenarios.iter().any(|(s, _)| *s == row.scenario), "`{}` names {}", row.name, row.scenario);
    }
    for (name, claude_ai) in scenarios {
        let init = &recorded(name, "hello")["init"];
        let recorded: Vec<&str> = strings(&init["slash_commands"]).into_iter().filter(|n| named(n).is_some()).collect();
        let rows: Vec<&str> = builtins().iter().filter(|b| in_headless_table(b, claude_ai)).map(|b| b.name).collect();
        assert_eq!(rows, recorded, "{name}");
    }
}

#[test]
fn the_bundled_skills_show_in_their_scenarios() {
    for row in &measured_skills().rows {
        let skill = bundled_skill(&row.name).expect("a skill of the file");
        let claude_ai = row.scenario == "turn-auth-oauth";
        let input = match row.name.as_str() {
            "init" | "security-review" => row.name.as_str(),
            _ => "hello",
        };
        let recording = recorded(&row.scenario, input);
        let listing = strings(&recording["skill_listing"]).join("\n");
        let line = format!("- {}:", row.name);
        let shown = listing.lines().any(|l| l.starts_with(&line));
        let gate = skill.gate != Gate::ClaudeAi || claude_ai;
        assert_eq!(shown, skill.listed && gate, "`{}` in the Skill listing of {}", row.name, row.scenario);
        if shown {
            let mut text = format!("{line} {}", skill.description.unwrap_or_default());
            if let Some(when) = skill.when_to_use {
                text = format!("{text} - {when}");
            }
            assert!(listing.contains(&text), "`{}`'s listed text, as {} sent it", row.name, row.scenario);
        }
        let texts = strings(&recording["texts"]);
        if let Some(prompt) = skill.prompt {
            assert!(texts.contains(&prompt), "`/{}`'s prompt, as {} sent it", row.name, row.scenario);
        }
        if let Some(prompt) = &row.prompt_outside_git {
            assert!(texts.contains(&prompt.replace("{cwd}", "<TREE>").as_str()), "`/{}` outside git", row.name);
        }
    }
    assert!(security_review_outside_git().contains("{cwd}"));
}

#[test]
fn the_built_in_agents_are_the_recorded_listing() {
    for row in &measured_agents().rows {
        assert_eq!(row.scenario, "turn-baseline", "`{}`", row.name);
    }
    let recording = recorded("turn-baseline", "hello");
    let listed: Vec<String> =
        builtin_agents().iter().map(|a| format!("- {}: {} (Tools: {})", a.name, a.description, a.tools)).collect();
    assert_eq!(listed, strings(&recording["agent_listing"]));
    assert_eq!(strings(&recording["init"]["agents"]), builtin_agents().iter().map(|a| a.name).collect::<Vec<_>>());
}

#[test]
fn the_reserved_server_names_are_the_ones_the_scenario_shows_refused() {
    let names = &reserved_names().mcp_servers;
    let name = names.scenario.as_deref().expect("the scenario that shows them");
    let config = std::fs::read_to_string(scenario(name).join("tree/.mcp.json")).expect("the scenario's .mcp.json");
    let config: Value = serde_json::from_str(&config).expect("JSON");
    let servers = config["mcpServers"].as_object().expect("servers");
    let recording = recorded(name, "hello");
    let loaded: Vec<&str> =
        recording["init"]["mcp_servers"].as_array().into_iter().flatten().filter_map(|s| s["name"].as_str()).collect();
    let mut refused = 0;
    for server in servers.keys() {
        // Names Claude Code refuses for another reason (duplicates once normalized) are left out.
        if loaded.contains(&server.as_str()) || is_reserved_mcp_name(server) {
            assert_eq!(!loaded.contains(&server.as_str()), is_reserved_mcp_name(server), "`{server}`");
            refused += usize::from(is_reserved_mcp_name(server));
        }
    }
    assert!(refused >= 5, "{refused} reserved names tried");
    assert!(reserved_names().marketplaces.note.is_some());
    assert!(is_reserved_marketplace("claude-plugins-official") && !is_reserved_marketplace("acme"));
}

#[test]
fn the_hook_events_are_the_extracted_table() {
    let data = extracted(include_str!("../../data/claude-code/hook-events.json"));
    let in_file = data["events"].as_array().expect("events").len();
    assert_eq!(crate::decl::hooks::hook_events_data().claude_code, CLAUDE_CODE_VERSION);
    assert_eq!(crate::decl::hooks::EVENTS.len(), in_file, "every event of the file is read");
    assert!(in_file > 30, "{in_file} events");
    for event in ["PreToolUse", "SessionStart", "PreSkillShellCommand", "WorktreeRemove"] {
        assert!(crate::decl::hooks::EVENTS.contains(&event), "`{event}`");
    }
    assert!(crate::decl::hooks::EVENTS.is_sorted(), "sorted, as did-you-mean reads them");
}

#[test]
fn the_read_only_flag_table_is_of_this_version() {
    // Read by capc-grammar (which does not know the version); its version line is checked here.
    let text = include_str!("../../data/claude-code/bash-read-only-flags.tsv");
    let version = text.lines().find_map(|l| l.strip_prefix("# Claude Code: ")).expect("a version line");
    assert_eq!(version, CLAUDE_CODE_VERSION, "regenerate it: scripts/claude-code-tables {CLAUDE_CODE_VERSION}");
}

#[test]
fn bundled_skills_are_unique_and_listed_ones_have_their_text() {
    let skills = bundled_skills();
    for (i, b) in skills.iter().enumerate() {
        assert!(skills[..i].iter().all(|o| o.name != b.name), "`{}` twice", b.name);
        assert!(!b.listed || b.model_invocable && b.description.is_some(), "`{}` is listed without its text", b.name);
    }
    assert_eq!(bundled_skill("batch").map(|b| b.model_invocable), Some(false));
    assert!(bundled_skill("simplify").is_some_and(|b| b.model_invocable && b.description.is_some()));
    assert_eq!(bundled_skill("init").map(|b| b.prompt.is_some()), Some(true));
    assert!(builtin_agent("Explore").is_some() && builtin_agent("explore").is_none());
}

#[test]
fn names_and_aliases_are_unique() {
    let mut seen = std::collections::BTreeSet::new();
    for b in builtins() {
        for name in std::iter::once(&b.name).chain(b.aliases) {
            assert!(seen.insert(*name), "`{name}` is taken twice");
        }
    }
}

#[test]
fn lookups() {
    assert_eq!(builtin("review").map(|b| (b.name, b.kind)), Some(("code-review", BuiltinKind::BundledSkill)));
    assert_eq!(builtin("clear").map(|b| (b.name, b.kind)), Some(("clear", BuiltinKind::Command)));
    assert_eq!(builtin("checkup").map(|b| b.name), Some("doctor"));
    assert_eq!(builtin("deep-research").map(|b| b.kind), Some(BuiltinKind::BundledWorkflow));
    assert_eq!(builtin("marketplace").map(|b| b.name), Some("plugin"));
    assert_eq!(builtin("bashes").map(|b| b.name), Some("tasks"));
    assert!(is_taken("downtime"), "a switched-off command's alias still counts");
    assert_eq!(builtin("deploy").map(|b| b.name), None);
    assert!(is_command("init") && !is_command("loop"));
}

//! Every key of capc's field tables (`compiler/src/decl/fields.rs`) is where its entry says in
//! `capabilities.lock`: two trees use every key of every table with a value of its own — a
//! marketplace repository (its marketplace.json, a plugin using every plugin.json key with a
//! hooks file, and an entry using every entry key) and a project around it (skill, agent,
//! output style, `.mcp.json`, settings enabling the repository's plugin, with a hook handler of
//! each type) — each is locked, and
//! each key's value is found at its lock path; a key "not locked" leaves no trace of its value. A key added
//! to a table fails here until it has a sample below and lands where its entry says.

use crate::support::{capc_in, stderr, write_file};
use capc_compiler::decl::fields::{self, Key, Lands};
use std::path::Path;

/// For each key of a table: the text its value puts in the lock (a `Lands::At` key), or the
/// text of its value that must not appear there (a `Lands::Not` key; `None` when the value is
/// one a lock holds anyway, such as `true`).
type Samples = &'static [(&'static str, Option<&'static str>)];

const SKILL_MD: &str = r#"---
name: sk-name
description: sk-description
when_to_use: sk-when
argument-hint: "[sk-hint]"
arguments: [sk_first, sk_second]
disable-model-invocation: true
user-invocable: false
allowed-tools: Bash(sk-allowed:*)
disallowed-tools: Bash(sk-disallowed:*)
model: claude-sk-model
effort: xhigh
context: fork
agent: sk-agent
background: true
hooks:
  PreToolUse:
    - matcher: Bash
      hooks:
        - type: command
          command: echo sk-hook
paths: "sk-paths/**"
shell: powershell
metadata: {sk-metadata: 1}
license: sk-license
compatibility: sk-compatibility
version: 9.8.7
---
Use $sk_first.
"#;

const SKILL: Samples = &[
    ("name", Some("sk-name")),
    ("description", Some("sk-description")),
    ("when_to_use", Some("sk-when")),
    ("argument-hint", Some("[sk-hint]")),
    ("arguments", Some("sk_second")),
    ("disable-model-invocation", Some("true")),
    ("user-invocable", Some("false")),
    ("allowed-tools", Some("Bash(sk-allowed:*)")),
    ("disallowed-tools", Some("sk-disallowed")),
    ("model", Some("claude-sk-model")),
    ("effort", Some("xhigh")),
    ("context", Some("fork")),
    ("agent", Some("sk-agent")),
    ("background", None),
    ("hooks", Some("echo sk-hook")),
    ("paths", Some("sk-paths")),
    ("shell", Some("powershell")),
    ("metadata", Some("sk-metadata")),
    ("license", Some("sk-license")),
    ("compatibility", Some("sk-compatibility")),
    ("version", Some("9.8.7")),
];

const AGENT_MD: &str = r#"---
name: ag-name
description: ag-description
tools: AgTool, Read
disallowedTools: AgDisallowed
model: claude-ag-model
permissionMode: plan
maxTurns: 7
skills: ag-skill
mcpServers:
  - ag-inline:
      command: ag-server-command
hooks:
  Stop:
    - hooks:
        - type: command
          command: echo ag-hook
memory: project
background: true
omitClaudeMd: true
effort: low
isolation: worktree
color: cyan
initialPrompt: ag-initial
---
Review the change.
"#;

const AGENT: Samples = &[
    ("name", Some("ag-name")),
    ("description", Some("ag-description")),
    ("tools", Some("AgTool")),
    ("disallowedTools", Some("AgDisallowed")),
    ("model", Some("claude-ag-model")),
    ("permissionMode", Some("plan")),
    ("maxTurns", None),
    ("skills", Some("ag-skill")),
    ("mcpServers", Some("ag-server-command")),
    ("hooks", Some("echo ag-hook")),
    ("memory", Some("project")),
    ("background", None),
    ("omitClaudeMd", Some("true")),
    ("effort", None),
    ("isolation", Some("worktree")),
    ("color", Some("cyan")),
    ("initialPrompt", Some("ag-initial")),
];

const OUTPUT_STYLE_MD: &str = "---\nname: os-name\ndescription: os-description\nkeep-coding-instructions: true\nforce-for-plugin: true\n---\nBe terse.\n";

const OUTPUT_STYLE: Samples = &[
    ("name", Some("os-name")),
    ("description", Some("os-description")),
    ("keep-coding-instructions", Some("true")),
    ("force-for-plugin", Some("true")),
];

const MCP_JSON: &str = r#"{
  "$schema": "https://mc-schema.example/mcp.json",
  "mcpServers": {
    "mc-local": {"type": "stdio", "command": "mc-command", "args": ["mc-arg"], "env": {"MC_ENV": "mc-env"}, "cwd": "mc-cwd", "timeout": 4242, "alwaysLoad": true},
    "mc-remote": {"type": "http", "url": "https://mc-remote.example/mcp", "headers": {"X-Mc": "mc-header"}, "headersHelper": "mc-helper", "oauth": {"clientId": "mc-client"}}
  }
}
"#;

const MCP_FILE: Samples = &[("mcpServers", Some("mc-local")), ("$schema", Some("mc-schema.example"))];

const MCP_SERVER: Samples = &[
    ("type", Some("http")),
    ("command", Some("mc-command")),
    ("args", Some("mc-arg")),
    ("env", Some("mc-env")),
    ("cwd", Some("mc-cwd")),
    ("url", Some("mc-remote.example")),
    ("headers", Some("mc-header")),
    ("headersHelper", Some("mc-helper")),
    ("oauth", Some("mc-client")),
    ("timeout", Some("4242")),
    ("alwaysLoad", Some("true")),
];

/// The project's settings; `MARKET` is where the marketplace repository is (Claude Code reads
/// a `directory` source only as an absolute path, and capc follows it into a folder it reads:
/// the repository is a folder of the project).
const SETTINGS_JSON: &str = r#"{
  "permissions": {"allow": ["Bash(set-allow:*)"], "ask": ["Bash(set-ask:*)"], "deny": ["Bash(set-deny:*)"], "defaultMode": "acceptEdits"},
  "enabledPlugins": {"pl-name@mk-name": true},
  "extraKnownMarketplaces": {"mk-name": {"source": {"source": "directory", "path": "MARKET"}}, "set-remote": {"source": {"source": "github", "repo": "set-org/set-repo"}}},
  "enabledMcpjsonServers": ["mc-local"],
  "disabledMcpjsonServers": ["mc-remote"],
  "enableAllProjectMcpServers": true,
  "model": "claude-set-model",
  "hooks": {"PreToolUse": [{"matcher": "SetMatcher", "hooks": [
    {"type": "command", "command": "echo set-hook", "args": ["hc-arg"], "async": true, "asyncRewake": true, "rewakeMessage": "hc-rewake-message",
     "rewakeSummary": "hc-rewake-summary", "shell": "bash", "if": "Bash(hc-if:*)", "timeout": 31, "statusMessage": "hc-status", "once": true},
    {"type": "http", "url": "https://hh.example/hook", "headers": {"X-Hh": "hh-header"}, "allowedEnvVars": ["HH_VAR"]},
    {"type": "mcp_tool", "server": "hm-server", "tool": "hm-tool", "input": {"hm-input": 1}},
    {"type": "prompt", "prompt": "hp-prompt", "model": "claude-hp-model"}
  ]}]}
}
"#;

const SETTINGS: Samples = &[
    ("permissions", Some("Bash(set-allow:*)")),
    ("permissions.allow", Some("Bash(set-allow:*)")),
    ("permissions.ask", Some("Bash(set-ask:*)")),
    ("permissions.deny", Some("Bash(set-deny:*)")),
    ("permissions.defaultMode", Some("acceptEdits")),
    ("enabledPlugins", Some("enabledPlugins `pl-name@mk-name`")),
    ("extraKnownMarketplaces", Some("set-remote")),
    ("enableAllProjectMcpServers", Some("approved")),
    ("enabledMcpjsonServers", Some("approved")),
    ("disabledMcpjsonServers", Some("disabled")),
    ("model", Some("claude-set-model")),
    ("hooks", Some("PreToolUse")),
];

const HOOK_GROUP: Samples = &[("matcher", Some("SetMatcher")), ("hooks", Some("command"))];

const HOOK_HANDLER: Samples = &[
    ("type", Some("mcp_tool")),
    ("if", Some("Bash(hc-if:*)")),
    ("timeout", None),
    ("statusMessage", Some("hc-status")),
    ("once", None),
];

const HOOK_COMMAND: Samples = &[
    ("command", Some("echo set-hook")),
    ("args", Some("hc-arg")),
    ("async", None),
    ("asyncRewake", None),
    ("rewakeMessage", Some("hc-rewake-message")),
    ("rewakeSummary", Some("hc-rewake-summary")),
    ("shell", None),
];

const HOOK_HTTP: Samples =
    &[("url", Some("hh.example/hook")), ("headers", Some("hh-header")), ("allowedEnvVars", Some("HH_VAR"))];

const HOOK_MCP_TOOL: Samples = &[("server", Some("hm-server")), ("tool", Some("hm-tool")), ("input", Some("hm-input"))];

const HOOK_PROMPT: Samples = &[("prompt", Some("hp-prompt")), ("model", Some("claude-hp-model"))];

const MARKETPLACE_JSON: &str = r#"{
  "$schema": "https://mk-schema.example/marketplace.json",
  "name": "mk-name",
  "owner": {"name": "mk-owner"},
  "description": "mk-description",
  "version": "7.7.7",
  "metadata": {"description": "mk-metadata"},
  "allowCrossMarketplaceDependenciesOn": ["mk-cross"],
  "renames": {"mk-old-name": "pl-name"},
  "forceRemoveDeletedPlugins": true,
  "plugins": [
    {"name": "pl-name", "source": "./pl"},
    {"name": "en-name", "source": "./en-folder", "strict": false, "category": "en-category", "tags": ["en-tag"],
     "relevance": {"signals": {"files": ["en-signal"]}}, "id": "en-id", "headers": {"X-En": "en-header"}, "headersHelper": "en-helper", "commands": ["./en-command.md"]}
  ]
}
"#;

const MARKETPLACE: Samples = &[
    ("name", Some("mk-name")),
    ("owner", Some("mk-owner")),
    ("plugins", Some("en-name@mk-name")),
    ("$schema", Some("mk-schema.example")),
    ("description", Some("mk-description")),
    ("version", Some("7.7.7")),
    ("metadata", Some("mk-metadata")),
    ("allowCrossMarketplaceDependenciesOn", Some("mk-cross")),
    ("renames", Some("mk-old-name")),
    ("forceRemoveDeletedPlugins", None),
];

const MARKETPLACE_ENTRY: Samples = &[
    ("source", Some("./en-folder")),
    ("category", Some("en-category")),
    ("tags", Some("en-tag")),
    ("strict", Some("false")),
    ("relevance", Some("en-signal")),
    ("id", Some("en-id")),
    ("headers", Some("en-header")),
    ("headersHelper", Some("en-helper")),
];

const PLUGIN_JSON: &str = r#"{
  "name": "pl-name",
  "$schema": "https://pl-schema.example/plugin.json",
  "displayName": "Pl Display",
  "version": "1.2.3",
  "description": "pl-description",
  "author": {"name": "pl-author"},
  "homepage": "https://pl-home.example",
  "repository": "https://pl-repository.example",
  "license": "pl-license",
  "keywords": ["pl-keyword"],
  "metadata": {"pl-metadata": 1},
  "defaultEnabled": true,
  "skills": "./pl-skills",
  "commands": "./pl-commands",
  "agents": ["./pl-agents/pl-agent.md"],
  "workflows": "./pl-workflows",
  "hooks": "./pl-hooks/hooks.json",
  "mcpServers": {"pl-server": {"command": "pl-server-command"}},
  "outputStyles": "./pl-styles",
  "lspServers": {"pl-lsp": {"command": "pl-lsp-command", "extensionToLanguage": {".pl": "perl"}}},
  "experimental": {},
  "themes": "./pl-themes",
  "monitors": [{"name": "pl-monitor", "command": "tail -f pl.log", "description": "pl-monitor-description"}],
  "userConfig": {"pl_option": {"type": "string", "title": "Option", "description": "An option"}},
  "channels": [],
  "dependencies": [],
  "optionalDependencies": [],
  "engines": {},
  "network": {},
  "settings": {"agent": "pl-settings-agent"},
  "types": {},
  "binaries": {}
}
"#;

const PLUGIN: Samples = &[
    ("name", Some("pl-name")),
    ("$schema", Some("pl-schema.example")),
    ("displayName", Some("Pl Display")),
    ("version", Some("1.2.3")),
    ("description", Some("pl-description")),
    ("author", Some("pl-author")),
    ("homepage", Some("pl-home.example")),
    ("repository", Some("pl-repository.example")),
    ("license", Some("pl-license")),
    ("keywords", Some("pl-keyword")),
    ("metadata", Some("pl-metadata")),
    ("defaultEnabled", None),
    ("skills", Some("pl-skill")),
    ("commands", Some("pl-command")),
    ("agents", Some("pl-agent")),
    ("workflows", None),
    ("hooks", Some("PostToolUse")),
    ("mcpServers", Some("pl-server")),
    ("outputStyles", Some("pl-style")),
    ("lspServers", Some("pl-lsp")),
    ("experimental", None),
    ("themes", Some("pl-theme")),
    ("monitors", Some("pl-monitor")),
    ("userConfig", Some("pl_option")),
    ("channels", None),
    ("dependencies", None),
    ("optionalDependencies", None),
    ("engines", None),
    ("network", None),
    ("settings", Some("pl-settings-agent")),
    ("types", None),
    ("binaries", None),
];

const HOOKS_JSON: &str = r#"{
  "description": "hk-description",
  "$schema": "https://hk-schema.example/hooks.json",
  "modules": ["./hk-module.js"],
  "hooks": {"PostToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "echo hk-hook"}]}]}
}
"#;

const HOOKS_FILE: Samples = &[
    ("description", Some("hk-description")),
    ("hooks", Some("PostToolUse")),
    ("modules", Some("hk-module.js")),
    ("$schema", Some("hk-schema.example")),
];

fn markdown(description: &str) -> String {
    format!("---\ndescription: {description}\n---\nDo it.\n")
}

/// The marketplace repository: its marketplace, the plugin using every key, and the entry's
/// plugin folder.
fn marketplace_repository(root: &Path) {
    write_file(root, ".claude-plugin/marketplace.json", MARKETPLACE_JSON);
    write_file(root, "pl/.claude-plugin/plugin.json", PLUGIN_JSON);
    write_file(root, "pl/pl-skills/pl-skill/SKILL.md", &markdown("A skill"));
    write_file(root, "pl/pl-commands/pl-command.md", &markdown("A command"));
    write_file(root, "pl/pl-agents/pl-agent.md", "---\nname: pl-agent\ndescription: An agent\n---\nHelp.\n");
    write_file(root, "pl/pl-workflows/pl-workflow.md", &markdown("A workflow"));
    write_file(root, "pl/pl-styles/pl-style.md", &OUTPUT_STYLE_MD.replace("os-name", "pl-style"));
    write_file(root, "pl/pl-themes/pl-theme.json", "{\"name\": \"pl-theme\"}\n");
    write_file(root, "pl/pl-hooks/hooks.json", HOOKS_JSON);
    write_file(root, "pl/pl-hooks/hk-module.js", "export default {};\n");
    write_file(root, "en-folder/en-command.md", &markdown("An entry's command"));
}

fn project(root: &Path, market: &Path) {
    write_file(root, ".claude/skills/probe/SKILL.md", SKILL_MD);
    write_file(root, ".claude/agents/probe.md", AGENT_MD);
    write_file(root, ".claude/output-styles/probe.md", OUTPUT_STYLE_MD);
    write_file(root, ".mcp.json", MCP_JSON);
    let market = market.to_str().expect("a UTF-8 temporary path");
    write_file(root, ".claude/settings.json", &SETTINGS_JSON.replace("MARKET", market));
}

/// `capc lock` in `dir`, parsed.
fn lock(dir: &Path) -> (String, toml::Value) {
    let out = capc_in(dir, &["lock", "."], 100);
    let text = std::fs::read_to_string(dir.join("capabilities.lock"))
        .unwrap_or_else(|e| panic!("capc lock wrote no lock ({e}): {}", stderr(&out)));
    let value = toml::from_str(&text).expect("the lock is TOML");
    (text, value)
}

/// The scalars at `path` (`plugin.inventory.commands.name`): every entry of every array of
/// tables on the way, every element of a list, and both the keys and values of a map.
fn values_at(lock: &toml::Value, path: &str) -> Vec<String> {
    let mut here = vec![lock];
    for part in path.split('.') {
        here = here
            .into_iter()
            .flat_map(|v| match v {
                toml::Value::Array(items) => items.iter().collect(),
                other => vec![other],
            })
            .filter_map(|v| v.get(part))
            .collect();
    }
    let mut out = Vec::new();
    let mut stack = here;
    while let Some(v) = stack.pop() {
        match v {
            toml::Value::String(s) => out.push(s.clone()),
            toml::Value::Array(items) => stack.extend(items),
            toml::Value::Table(map) => {
                out.extend(map.keys().cloned());
                stack.extend(map.values());
            }
            other => out.push(other.to_string()),
        }
    }
    out
}

/// Each key of `table` against its sample: the sample list is the table's, every key is in
/// `written` (the fixture), and each lands where its entry says.
fn check(kind: &str, table: &[(&str, Lands)], samples: Samples, written: &str, locks: &[&(String, toml::Value)]) {
    let names: Vec<&str> = table.iter().map(|(n, _)| *n).collect();
    let sampled: Vec<&str> = samples.iter().map(|(n, _)| *n).collect();
    assert_eq!(sampled, names, "the {kind} samples follow the {kind} table of decl/fields.rs, key for key");
    let mut wrong = Vec::new();
    for ((name, lands), (_, shows)) in table.iter().zip(samples) {
        let last = name.rsplit('.').next().unwrap_or(name);
        if !written.contains(&format!("\"{last}\":")) && !written.contains(&format!("\n{last}:")) {
            wrong.push(format!("`{name}` is not in the {kind} fixture"));
        }
        match (lands, shows) {
            (Lands::At(path), Some(shows)) => {
                let found: Vec<String> = locks.iter().flat_map(|(_, v)| values_at(v, path)).collect();
                if !found.iter().any(|v| v.contains(shows)) {
                    wrong.push(format!("{kind} `{name}`: `{shows}` is not at `{path}` (there: {found:?})"));
                }
            }
            (Lands::At(path), None) => {
                wrong.push(format!("{kind} `{name}` lands at `{path}`: give it a value to find"))
            }
            (Lands::Not(_), Some(shows)) => {
                if locks.iter().any(|(text, _)| text.contains(shows)) {
                    wrong.push(format!("{kind} `{name}` is said not to be locked, but `{shows}` is in the lock"));
                }
            }
            (Lands::Not(_), None) => {}
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

fn keys(table: &[Key]) -> Vec<(&'static str, Lands)> {
    table.iter().map(|k| (k.name, k.lock)).collect()
}

#[test]
fn every_key_of_every_table_lands_where_its_entry_says() {
    let project_dir = tempfile::tempdir().expect("tempdir");
    let market = project_dir.path().join("market");
    marketplace_repository(&market);
    project(project_dir.path(), &market);
    let in_project = lock(project_dir.path());
    let in_market = lock(&market);
    let both = [&in_project, &in_market];
    check("skill", &keys(fields::SKILL), SKILL, SKILL_MD, &both);
    check("agent", &keys(fields::AGENT), AGENT, AGENT_MD, &both);
    check("output style", &keys(fields::OUTPUT_STYLE), OUTPUT_STYLE, OUTPUT_STYLE_MD, &both);
    check("mcp file", &keys(fields::MCP_FILE), MCP_FILE, MCP_JSON, &both);
    check("mcp server", &keys(fields::MCP_SERVER), MCP_SERVER, MCP_JSON, &both);
    let settings: Vec<(&str, Lands)> = fields::SETTINGS.iter().map(|k| (k.path, k.lock)).collect();
    check("settings", &settings, SETTINGS, SETTINGS_JSON, &both);
    check("hook group", &keys(fields::HOOK_GROUP), HOOK_GROUP, SETTINGS_JSON, &both);
    check("hook handler", &keys(fields::HOOK_HANDLER), HOOK_HANDLER, SETTINGS_JSON, &both);
    check("command hook", &keys(fields::HOOK_COMMAND), HOOK_COMMAND, SETTINGS_JSON, &both);
    check("http hook", &keys(fields::HOOK_HTTP), HOOK_HTTP, SETTINGS_JSON, &both);
    check("mcp_tool hook", &keys(fields::HOOK_MCP_TOOL), HOOK_MCP_TOOL, SETTINGS_JSON, &both);
    check("prompt hook", &keys(fields::HOOK_PROMPT), HOOK_PROMPT, SETTINGS_JSON, &both);
    check("plugin", &keys(fields::PLUGIN), PLUGIN, PLUGIN_JSON, &both);
    check("hooks file", &keys(fields::HOOKS_FILE), HOOKS_FILE, HOOKS_JSON, &both);
    check("marketplace", &keys(fields::MARKETPLACE), MARKETPLACE, MARKETPLACE_JSON, &both);
    check("marketplace entry", &keys(fields::MARKETPLACE_ENTRY), MARKETPLACE_ENTRY, MARKETPLACE_JSON, &both);
}

/// The test above reaches every table of `decl/fields.rs`.
#[test]
fn every_table_is_sampled() {
    let sampled: [&[Key]; 15] = [
        fields::SKILL,
        fields::AGENT,
        fields::OUTPUT_STYLE,
        fields::PLUGIN,
        fields::MARKETPLACE,
        fields::MARKETPLACE_ENTRY,
        fields::MCP_FILE,
        fields::MCP_SERVER,
        fields::HOOKS_FILE,
        fields::HOOK_GROUP,
        fields::HOOK_HANDLER,
        fields::HOOK_COMMAND,
        fields::HOOK_HTTP,
        fields::HOOK_MCP_TOOL,
        fields::HOOK_PROMPT,
    ];
    for (kind, table) in fields::TABLES {
        assert!(sampled.iter().any(|t| std::ptr::eq(*t, *table)), "the table of {kind} has no samples here");
    }
}

/// `docs/lock.md`'s list of where each field lands is the tables' (`CAPC_BLESS=1 cargo test
/// --test it -- fields::` writes it).
#[test]
fn the_lock_docs_list_every_field_where_it_lands() {
    let lands = |lock: Lands| match lock {
        Lands::At(path) => format!("`{path}`"),
        Lands::Not(why) => format!("not locked: {why}"),
    };
    let mut out = String::new();
    for (kind, table) in fields::TABLES {
        out.push_str(&format!("\n#### {}{}\n\n", kind[..1].to_uppercase(), &kind[1..]));
        out.push_str("| key | value capc checks | in the lock |\n| --- | --- | --- |\n");
        for k in *table {
            out.push_str(&format!("| `{}` | {} | {} |\n", k.name, k.ty.describe(), lands(k.lock)));
        }
    }
    out.push_str("\n#### Settings keys capc says more about\n\n");
    out.push_str("Every settings key, with its type, is in Claude Code's settings table; these are the ones capc\n");
    out.push_str("explains on hover.\n\n| key | in the lock |\n| --- | --- |\n");
    for k in fields::SETTINGS {
        out.push_str(&format!("| `{}` | {} |\n", k.path, lands(k.lock)));
    }
    out.push('\n');
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/lock.md");
    crate::support::golden::assert_section(&path, "<!-- fields:start", "<!-- fields:end -->", &out);
}

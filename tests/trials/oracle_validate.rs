//! capc against Claude Code's own validator and loader, on the shared corpora
//! (`../shared/corpora`). The verdicts were recorded offline by `tests/oracle/validate.py` into
//! `tests/oracle/validate/<corpus>.json`; no `claude` is needed here.
//!
//! For every plugin the validator accepts, capc's inventory (skills, commands, agents) equals
//! the validator's `provides`, and capc reports no error in its files; for every file the
//! validator rejects, capc reports an error in it. Exceptions are listed, each with its reason,
//! in `tests/oracle/validate-allowlist.toml`.
//!
//! Through the CLI, as plugin authors run it: every plugin folder of a corpus is loaded with
//! `--plugin-dir` from an empty folder elsewhere, and `capc ls` must list what Claude Code's
//! own `claude --plugin-dir DIR plugin list --json` / `plugin details` recorded (loaded or not and
//! why not: its error types, a dependency's with Claude Code's words;
//! its id, skills and commands, agents, MCP servers, hook events); `capc lock` in that folder
//! must write a lock and `capc session --verify --plugin-dir DIR` accept it. Differences are
//! allowlisted like the others (kinds `plugin-dir` and `plugin-dir-lock`).
//!
//! Each corpus is its own test (`plugins_are_what_claude_codes_validator_says::<corpus>`,
//! `plugin_dirs_load_as_claude_code_loads_them::<corpus>`). This
//! target has its own harness (libtest-mimic, `harness = false`, see `harness/mod.rs`): when the
//! corpora, or one corpus, are absent, its tests are reported as ignored, marked
//! `[missing corpora]` or `[missing corpus]`, never as passed; with `CI` set they fail.

use crate::support::harness::{self, Missing};
use capc_compiler::{check, Options, Severity};
use libtest_mimic::Trial;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn corpora() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora")
}

/// An entry of the allowlist (its `reason` is required, and checked, by `oracle_allowlist`).
#[derive(Debug, serde::Deserialize)]
struct Allowed {
    corpus: String,
    /// The plugin folder or file the exception is about.
    path: String,
    /// `inventory`, `error` (capc reports an error validate does not) or `missed` (validate
    /// rejects a file capc does not report).
    kind: String,
}

fn allowlist() -> Vec<Allowed> {
    crate::support::oracle_allowlist("validate-allowlist.toml", "allow")
}

fn names(v: &Value) -> BTreeSet<String> {
    v.as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_string).collect()
}

fn inside(path: &str, root: &str) -> bool {
    root.is_empty() || path == root || path.strip_prefix(root).is_some_and(|rest| rest.starts_with('/'))
}

/// One trial per validated corpus and question.
pub(crate) fn trials() -> Vec<Trial> {
    let absent = (!corpora().is_dir()).then(|| Missing {
        label: "corpora",
        why: "the shared corpora are not beside the repository (../shared/corpora)".to_string(),
    });
    if let Some(absent) = &absent {
        harness::note(absent);
    }
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/validate"))
            .expect("validate folder")
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
    files.sort();
    let mut trials = Vec::new();
    // Every corpus has its recording, so a corpus added to the shared corpora is not left out.
    let recorded: Vec<String> =
        files.iter().filter_map(|f| f.file_stem().map(|s| s.to_string_lossy().into_owned())).collect();
    let corpora_missing = absent.iter().cloned().collect::<Vec<_>>();
    trials.push(harness::trial("oracle_validate::every_corpus_is_recorded", &corpora_missing, move || {
        let unrecorded: Vec<String> =
            crate::support::corpus_names(&corpora()).into_iter().filter(|name| !recorded.contains(name)).collect();
        assert!(
            unrecorded.is_empty(),
            "corpora without Claude Code's verdicts (record them: CLAUDE_BIN=… tests/oracle/validate.py --only CORPUS): {unrecorded:?}"
        );
    }));
    for file in files {
        let truth: Value = serde_json::from_str(&std::fs::read_to_string(&file).expect("read")).expect("json");
        let corpus = truth["corpus"].as_str().expect("corpus name").to_string();
        let missing = match &absent {
            Some(absent) => vec![absent.clone()],
            None if !corpora().join(&corpus).is_dir() => vec![Missing {
                label: "corpus",
                why: format!(
                    "the corpus {corpus} is absent (tests/trials/corpora.rs's every_corpus_is_pinned fails too)"
                ),
            }],
            None => Vec::new(),
        };
        let name = format!("oracle_validate::plugins_are_what_claude_codes_validator_says::{corpus}");
        let (c, t) = (corpus.clone(), truth.clone());
        trials.push(harness::trial(name, &missing, move || plugins_are_what_claude_codes_validator_says(&c, &t)));
        let name = format!("oracle_validate::plugin_dirs_load_as_claude_code_loads_them::{corpus}");
        trials
            .push(harness::trial(name, &missing, move || plugin_dirs_load_as_claude_code_loads_them(&corpus, &truth)));
    }
    trials
}

/// One corpus's plugins, as capc reads them, against the validator's verdicts on them (`truth`).
fn plugins_are_what_claude_codes_validator_says(corpus: &str, truth: &Value) {
    let allowed = allowlist();
    let is_allowed = |corpus: &str, path: &str, kind: &str| {
        allowed.iter().any(|a| a.corpus == corpus && a.path == path && a.kind == kind)
    };
    let mut failures = Vec::new();
    let (mut accepted, mut equal, mut rejected_files) = (0, 0, 0);
    let checked = check(&Options { root: corpora().join(corpus), ..Options::default() }).expect("corpus");
    let lock = checked.lock();
    let errors: Vec<(&str, &str)> = checked
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| (d.path.as_str(), d.rule))
        .collect();
    for target in truth["targets"].as_array().into_iter().flatten().filter(|t| t["kind"] == "plugin") {
        let path = target["path"].as_str().unwrap_or_default();
        let root = if path == "." { "" } else { path };
        let validate = &target["validate"];
        if validate["success"] == Value::Bool(true) && !validate["provides"].is_null() {
            accepted += 1;
            let provides = &validate["provides"];
            let mut expected = names(&provides["skills"]);
            expected.extend(names(&provides["commands"]));
            let expected_agents = names(&provides["agents"]);
            let plugin = lock.plugins.iter().find(|p| p.root == root);
            // The other kinds of `provides`, by name, against the inventory's.
            let expected_kinds = other_kinds(provides);
            let got_kinds = plugin.map(|p| inventory_kinds(&p.inventory)).unwrap_or_default();
            if got_kinds != expected_kinds && !is_allowed(corpus, path, "inventory") {
                failures.push(format!(
                    "{corpus} {path}: the kinds beyond skills, commands and agents differ\n    Claude Code: {expected_kinds:?}\n    capc:        {got_kinds:?}"
                ));
            }
            let (got, got_agents): (BTreeSet<String>, BTreeSet<String>) = match plugin {
                Some(p) => (
                    p.inventory.commands.iter().map(|c| c.name.clone()).collect(),
                    p.inventory.agents.iter().cloned().collect(),
                ),
                None => Default::default(),
            };
            if (got != expected || got_agents != expected_agents) && !is_allowed(corpus, path, "inventory") {
                let only = |a: &BTreeSet<String>, b: &BTreeSet<String>| a.difference(b).cloned().collect::<Vec<_>>();
                failures.push(format!(
                    "{corpus} {path}: inventory differs\n    only Claude Code: {:?} {:?}\n    only capc:        {:?} {:?}",
                    only(&expected, &got),
                    only(&expected_agents, &got_agents),
                    only(&got, &expected),
                    only(&got_agents, &expected_agents)
                ));
            } else {
                equal += 1;
            }
            for (file, rule) in errors.iter().filter(|(p, _)| inside(p, root)) {
                if !is_allowed(corpus, file, "error") {
                    failures.push(format!(
                        "{corpus} {file}: capc reports `{rule}` as an error in a plugin Claude Code accepts"
                    ));
                }
            }
        }
        for e in validate["all_errors"].as_array().into_iter().flatten() {
            let Some(file) = e["file"].as_str() else { continue };
            rejected_files += 1;
            if !errors.iter().any(|(p, _)| *p == file) && !is_allowed(corpus, file, "missed") {
                failures.push(format!(
                    "{corpus} {file}: Claude Code rejects it (\"{}\"); capc reports no error",
                    e["message"].as_str().unwrap_or_default()
                ));
            }
        }
    }
    let marketplaces = marketplaces_are_what_the_validator_says(corpus, truth, &errors, &is_allowed, &mut failures);
    assert!(
        failures.is_empty(),
        "{} difference(s) with `claude plugin validate` Claude Code:\n{}\n({corpus}: {accepted} accepted plugins, {equal} with capc's inventory equal to `provides`; {rejected_files} rejected files; {marketplaces} marketplaces)",
        failures.len(),
        failures.join("\n")
    );
}

/// The kinds of the validator's `provides` beyond skills, commands and agents, each as the set
/// of names Claude Code gives them (`lspServers` and `monitors` by `name`, `modules` by `path`),
/// empty kinds left out.
fn other_kinds(provides: &Value) -> std::collections::BTreeMap<String, BTreeSet<String>> {
    let mut kinds = std::collections::BTreeMap::new();
    for kind in
        ["hooks", "mcpServers", "lspServers", "monitors", "outputStyles", "themes", "workflows", "bin", "modules"]
    {
        let set: BTreeSet<String> = provides[kind]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| match v {
                Value::String(s) => Some(s.clone()),
                // Hooks by event, servers by name, modules by path.
                _ => v["event"].as_str().or(v["name"].as_str()).or(v["path"].as_str()).map(str::to_string),
            })
            .collect();
        if !set.is_empty() && !matches!(kind, "hooks" | "mcpServers") {
            kinds.insert(kind.to_string(), set);
        }
    }
    kinds
}

/// The same kinds of a plugin's inventory in capc's lock.
fn inventory_kinds(
    inventory: &capc_compiler::model::Inventory,
) -> std::collections::BTreeMap<String, BTreeSet<String>> {
    let mut kinds = std::collections::BTreeMap::new();
    for (kind, names) in [
        ("lspServers", &inventory.lsp_servers),
        ("monitors", &inventory.monitors),
        ("outputStyles", &inventory.output_styles),
        ("themes", &inventory.themes),
        ("workflows", &inventory.workflows),
        ("bin", &inventory.bin),
        ("modules", &inventory.modules),
    ] {
        if !names.is_empty() {
            kinds.insert(kind.to_string(), names.iter().cloned().collect());
        }
    }
    kinds
}

/// What one plugin provides, by kind, as sets of names (plugin prefixes stripped).
#[derive(Debug, Default, PartialEq, Eq)]
struct Provides {
    loaded: bool,
    id: Option<String>,
    skills_and_commands: BTreeSet<String>,
    agents: BTreeSet<String>,
    mcp_servers: BTreeSet<String>,
    hook_events: BTreeSet<String>,
    /// LSP servers, monitors, output styles, themes, workflows, `bin/` files and hooks modules
    /// (`other_kinds`).
    others: std::collections::BTreeMap<String, BTreeSet<String>>,
    /// Why it does not load: `plugin list`'s error types (`generic-error` for a refused
    /// manifest), a dependency's with Claude Code's words (`dependency-unsatisfied: Dependency
    /// "base" is not installed`).
    errors: BTreeSet<String>,
}

/// A `plugin list` error as `Provides::errors` keeps it.
fn error_kind(kind: &str, message: &str) -> String {
    match kind {
        "dependency-unsatisfied" | "dependency-version-unsatisfied" => format!("{kind}: {message}"),
        _ => kind.to_string(),
    }
}

/// What Claude Code recorded for one plugin loaded with `--plugin-dir`: `plugin list --json`
/// (whether it loaded, its id) and `plugin details` (its inventory). Agents are named as the
/// validator's `provides` names them (their frontmatter `name`) where it has them: `details`
/// prints file names.
fn claude_code_provides(target: &Value) -> Provides {
    let list = &target["plugin_list"];
    let inventory = &list["details"]["inventory"];
    let kind = |k: &str| names(&inventory[k]["names"]);
    let loaded = list["loaded"] == Value::Bool(true);
    let id = list["entries"].as_array().and_then(|e| e.first()).and_then(|e| e["id"].as_str()).map(str::to_string);
    let mut skills_and_commands = kind("Skills");
    skills_and_commands.extend(kind("Commands"));
    let provided = &target["validate"]["provides"];
    let agents = if provided["agents"].is_array() {
        names(&provided["agents"])
            .into_iter()
            .map(|a| a.split_once(':').map_or(a.clone(), |(_, n)| n.to_string()))
            .collect()
    } else {
        kind("Agents")
    };
    if !loaded {
        let mut errors = BTreeSet::new();
        for entry in list["entries"].as_array().into_iter().flatten() {
            let messages: Vec<&str> =
                entry["errors"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
            for (i, detail) in entry["errorDetails"].as_array().into_iter().flatten().enumerate() {
                let kind = detail["type"].as_str().unwrap_or_default();
                errors.insert(error_kind(kind, messages.get(i).copied().unwrap_or_default()));
            }
        }
        return Provides { loaded, errors, ..Provides::default() };
    }
    // The loader's own inventory names LSP servers; the validator's `provides` names every kind
    // (when it describes the plugin at all).
    let mut others = if provided.is_object() { other_kinds(provided) } else { Default::default() };
    let lsp = kind("LSP servers");
    if !lsp.is_empty() {
        others.insert("lspServers".to_string(), lsp);
    }
    Provides {
        loaded,
        id,
        skills_and_commands,
        agents,
        mcp_servers: kind("MCP servers"),
        hook_events: kind("Hooks"),
        others,
        errors: BTreeSet::new(),
    }
}

/// What `capc ls --plugin-dir DIR` and the lock it writes in the empty folder `empty` say the
/// plugin provides; the lock's hook events come from `lock` (its text), when one was written.
fn capc_provides(ls: &Value, lock: Option<&str>) -> Provides {
    let Some(plugin) = ls["plugins"].as_array().into_iter().flatten().find(|p| p["root"] == "<plugin-dir 1>/") else {
        return Provides::default();
    };
    let name = plugin["name"].as_str().unwrap_or_default();
    let strip = |n: &str| n.strip_prefix(&format!("{name}:")).unwrap_or(n).to_string();
    let loaded = plugin["loaded"] == Value::Bool(true);
    if !loaded {
        // capc's reason opens with Claude Code's words for a dependency, or says the manifest
        // is refused (a folder Claude Code does not take as a plugin has no entry, no error).
        let reason = plugin["reason"].as_str().unwrap_or_default();
        let words = reason.split_once(": Claude Code turns it off").map_or(reason, |(w, _)| w);
        let errors = if words.starts_with("Dependency ") {
            BTreeSet::from([error_kind("dependency-unsatisfied", words)])
        } else if words.starts_with("Requires ") {
            BTreeSet::from([error_kind("dependency-version-unsatisfied", words)])
        } else if words.starts_with("its plugin.json is refused") {
            BTreeSet::from(["generic-error".to_string()])
        } else {
            BTreeSet::new()
        };
        return Provides { errors, ..Provides::default() };
    }
    let inventory = &plugin["inventory"];
    let skills_and_commands =
        inventory["commands"].as_array().into_iter().flatten().filter_map(|c| c["name"].as_str()).map(strip).collect();
    let agents = inventory["agents"].as_array().into_iter().flatten().filter_map(Value::as_str).map(strip).collect();
    let mcp_servers = ls["mcp_servers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| s["path"].as_str().is_some_and(|p| p.starts_with("<plugin-dir 1>/")))
        .filter_map(|s| s["name"].as_str())
        .map(|n| n.strip_prefix(&format!("plugin:{name}:")).unwrap_or(n).to_string())
        .collect();
    let hook_events = lock
        .and_then(|text| toml::from_str::<toml::Value>(text).ok())
        .and_then(|lock| lock.get("hook")?.as_array().cloned())
        .into_iter()
        .flatten()
        .filter(|h| h.get("path").and_then(toml::Value::as_str).is_some_and(|p| p.starts_with("<plugin-dir 1>/")))
        .filter_map(|h| h.get("event").and_then(toml::Value::as_str).map(str::to_string))
        .collect();
    let inventory: capc_compiler::model::Inventory =
        serde_json::from_value(plugin["inventory"].clone()).unwrap_or_default();
    Provides {
        loaded,
        id: plugin["id"].as_str().map(str::to_string),
        skills_and_commands,
        agents,
        mcp_servers,
        hook_events,
        others: inventory_kinds(&inventory),
        errors: BTreeSet::new(),
    }
}

/// Every plugin folder of one corpus, loaded with `--plugin-dir` from an empty folder elsewhere:
/// `capc ls` against Claude Code's record, then `capc lock` there and `capc session --verify`.
fn plugin_dirs_load_as_claude_code_loads_them(corpus: &str, truth: &Value) {
    let allowed = allowlist();
    let is_allowed =
        |path: &str, kind: &str| allowed.iter().any(|a| a.corpus == corpus && a.path == path && a.kind == kind);
    let mut failures = Vec::new();
    let (mut plugins, mut equal, mut locked) = (0, 0, 0);
    for target in truth["targets"].as_array().into_iter().flatten().filter(|t| t["kind"] == "plugin") {
        let path = target["path"].as_str().unwrap_or_default();
        let folder = corpora().join(corpus).join(path).canonicalize().expect("plugin folder");
        let folder = folder.to_string_lossy().into_owned();
        let empty = tempfile::tempdir().expect("tempdir");
        plugins += 1;
        let ls = crate::support::capc_in(empty.path(), &["ls", ".", "--format", "json", "--plugin-dir", &folder], 100);
        let ls: Value = serde_json::from_slice(&ls.stdout).unwrap_or(Value::Null);
        let expected = claude_code_provides(target);
        // An empty lock is what a session that loads nothing has.
        let lock = crate::support::capc_in(empty.path(), &["lock", ".", "--allow-empty", "--plugin-dir", &folder], 100);
        let text = std::fs::read_to_string(empty.path().join("capabilities.lock")).ok();
        let got = capc_provides(&ls, text.as_deref());
        if got == expected {
            equal += 1;
        } else if !is_allowed(path, "plugin-dir") {
            failures.push(format!(
                "{corpus} {path}: loaded with --plugin-dir\n    Claude Code: {expected:?}\n    capc:        {got:?}"
            ));
        }
        let session = text
            .as_ref()
            .map(|_| crate::support::capc_in(empty.path(), &["session", "--verify", "--plugin-dir", &folder], 100));
        let accepted = session.as_ref().is_some_and(|s| s.status.success());
        // `capc lock` exits 1 when a plugin it is asked to load does not load; the lock is written.
        let lock_ok = matches!(lock.status.code(), Some(0)) || (!expected.loaded && lock.status.code() == Some(1));
        if lock_ok && accepted {
            locked += 1;
        } else if !is_allowed(path, "plugin-dir-lock") {
            let why = match &session {
                None => String::from_utf8_lossy(&lock.stderr).lines().rev().take(3).collect::<Vec<_>>().join(" | "),
                Some(s) => String::from_utf8_lossy(&s.stderr).into_owned(),
            };
            failures.push(format!(
                "{corpus} {path}: `capc lock` then `capc session --verify` with --plugin-dir fail: {why}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} difference(s) with Claude Code loading plugins with --plugin-dir:\n{}\n({corpus}: {plugins} plugins, {equal} equal, {locked} locked and accepted)",
        failures.len(),
        failures.join("\n")
    );
}

/// The corpus's marketplaces against the validator's verdicts on them: capc reports an error
/// in every file a rejection names (a listed plugin's plugin.json when the validator blames it
/// through the entry, `plugins[N] plugin.json → …`), and none in the marketplace.json of a
/// marketplace it accepts. Returns how many marketplaces were compared.
fn marketplaces_are_what_the_validator_says(
    corpus: &str,
    truth: &Value,
    errors: &[(&str, &str)],
    is_allowed: &dyn Fn(&str, &str, &str) -> bool,
    failures: &mut Vec<String>,
) -> usize {
    let mut compared = 0;
    for target in truth["targets"].as_array().into_iter().flatten().filter(|t| t["kind"] == "marketplace") {
        compared += 1;
        let path = target["path"].as_str().unwrap_or_default();
        let join = |rel: &str| if path == "." { rel.to_string() } else { format!("{path}/{rel}") };
        let manifest = join(".claude-plugin/marketplace.json");
        let validate = &target["validate"];
        for e in validate["all_errors"].as_array().into_iter().flatten() {
            let file = match blamed_plugin(e["path"].as_str().unwrap_or_default()) {
                Some(index) => {
                    let entry = target["entries"].as_array().into_iter().flatten().find(|x| x["index"] == index);
                    match entry.and_then(|x| x["path"].as_str()) {
                        Some(".") => ".claude-plugin/plugin.json".to_string(),
                        Some(root) => format!("{root}/.claude-plugin/plugin.json"),
                        None => manifest.clone(),
                    }
                }
                None => e["file"].as_str().map_or(manifest.clone(), str::to_string),
            };
            if !errors.iter().any(|(p, _)| *p == file) && !is_allowed(corpus, &file, "missed") {
                failures.push(format!(
                    "{corpus} {file}: Claude Code's validator rejects marketplace `{path}` for it (\"{}\" at {}); capc reports no error",
                    e["message"].as_str().unwrap_or_default(),
                    e["path"].as_str().unwrap_or_default()
                ));
            }
        }
        if validate["success"] == Value::Bool(true) {
            for (file, rule) in errors.iter().filter(|(p, _)| *p == manifest) {
                if !is_allowed(corpus, file, "error") {
                    failures.push(format!(
                        "{corpus} {file}: capc reports `{rule}` as an error in a marketplace Claude Code accepts"
                    ));
                }
            }
        }
    }
    compared
}

/// The entry index of a marketplace error the validator found in a listed plugin's
/// plugin.json (`plugins[91] plugin.json → agents.0`).
fn blamed_plugin(path: &str) -> Option<u64> {
    let rest = path.strip_prefix("plugins[")?;
    let (index, after) = rest.split_once(']')?;
    after.trim_start().starts_with("plugin.json").then(|| index.parse().ok()).flatten()
}

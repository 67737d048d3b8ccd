//! capc against Claude Code itself: for every scenario of `tests/oracle/scenarios/` and
//! every input, the request capc's session says Claude Code sends must equal the request
//! Claude Code really sent (`expected/*.json`, recorded offline by `tests/oracle/regen.py`), field
//! by field: `tools`, `deferred`, `skill_listing`, `agent_listing`, `commands`, `texts`, and
//! `stderr`, `stdout` and whether a request was made at all.
//!
//! Each input runs as regen.py ran it: tree and home are copied to a scratch folder, `<TREE>`,
//! `<HOME>` and `<SERVERS>` in their `*.json` files are replaced, the home's `.claude.json`
//! gets the scenario's trust and MCP approvals; then the tree is compiled
//! (`capc_compiler::check`, the home as `--user-dir`), a session starts from the lock — its MCP
//! servers connected for real — and the input is sent as a `turn` with the context of the
//! scenario's `[capc]` table and `include: ["request"]`. Paths are compared as `<TREE>` and
//! `<HOME>`. Scenarios of real plugins or projects, scenarios started in a subfolder (`cwd`) and
//! the instruction-file scenarios (`instructions-*`) run through the binary instead, as users
//! run them: `capc lock`, then `capc session` (`--cwd`, `--add-dir`, `--user-dir`,
//! `--managed-dir`) fed the same `turn` line.
//!
//! A difference fails the test unless `tests/oracle/allowlist.toml` lists it (scenario, input,
//! field, reason); an allowlist entry that no longer differs fails it too. The servers come from
//! `runtime/tests/servers` (`.ci/run` installs them).
//!
//! Each scenario is its own test (`capc_sends_what_claude_code_2_1_332_sends::<scenario>`). This
//! target has its own harness (libtest-mimic, `harness = false`, see `harness/mod.rs`): a
//! scenario whose MCP server (or `node`) is absent is reported as ignored, marked
//! `[missing server-everything]`, never as passed; with `CI` set it fails.

use crate::support::harness::{self, Missing};
use libtest_mimic::Trial;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

mod request;
use request::run;

/// Scenarios this test leaves to another test, with why (none today).
const SKIPPED: &[(&str, &str)] = &[];

/// Scenarios whose recorded Skill listing `capc check` measures (`listing-budget`): real plugins
/// over the default budget, project skills over it, a budget made small by settings, and
/// `name-only` overrides (which are no finding).
const LISTING_BUDGET: &[&str] =
    &["budget-real-plugins-over", "turn-skills-over-budget", "turn-skills-listing-settings", "turn-skill-overrides"];

/// The fields compared, in the order they are reported.
const FIELDS: &[&str] =
    &["request", "tools", "deferred", "skill_listing", "agent_listing", "commands", "texts", "stderr", "stdout"];

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn servers_dir() -> PathBuf {
    repo().join("runtime/tests/servers")
}

/// `regen.py`'s file name for an input.
pub(crate) fn slug(text: &str) -> String {
    let mut out = String::new();
    let mut dash = false;
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            if dash && !out.is_empty() {
                out.push('-');
            }
            dash = false;
            out.push(c.to_ascii_lowercase());
        } else {
            dash = true;
        }
    }
    if out.is_empty() {
        out.push_str("empty");
    }
    out.chars().take(60).collect()
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("scratch folder");
    for entry in std::fs::read_dir(from).expect("read scenario folder").flatten() {
        let path = entry.path();
        let target = to.join(entry.file_name());
        let kind = entry.file_type().expect("file type");
        if kind.is_dir() {
            copy_tree(&path, &target);
        } else if kind.is_symlink() {
            let link = std::fs::read_link(&path).expect("read link");
            #[cfg(unix)]
            std::os::unix::fs::symlink(link, &target).expect("copy link");
        } else {
            std::fs::copy(&path, &target).expect("copy file");
        }
    }
}

/// Replaces the placeholders in every `*.json` file under `root`, as regen.py does.
fn substitute(root: &Path, mapping: &[(&str, String)]) {
    let Ok(entries) = std::fs::read_dir(root) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let kind = entry.file_type().expect("file type");
        if kind.is_dir() {
            substitute(&path, mapping);
        } else if kind.is_file() && path.extension().is_some_and(|e| e == "json") {
            let text = std::fs::read_to_string(&path).expect("read json");
            let mut new = text.clone();
            for (key, value) in mapping {
                new = new.replace(key, value);
            }
            if new != text {
                std::fs::write(&path, new).expect("write json");
            }
        }
    }
}

fn to_json(value: &toml::Value) -> Value {
    serde_json::to_value(value).expect("TOML is JSON")
}

/// One scenario's `scenario.toml`.
pub(crate) struct Scenario {
    pub(crate) name: String,
    pub(crate) dir: PathBuf,
    inputs: Vec<String>,
    trusted: bool,
    approve_mcp: Vec<String>,
    context: Value,
    add_dirs: Vec<String>,
    /// `--plugin-dir` folders, relative to the tree, in order.
    plugin_dirs: Vec<String>,
    /// Then `--plugin-dir` folders of real plugins, relative to the shared corpora (outside the
    /// tree, as a plugin author loads theirs). A scenario with any runs through the CLI.
    corpus_plugin_dirs: Vec<String>,
    /// A corpus whose copy is the tree (`tree/` is not read): a real project, through the CLI.
    corpus_tree: Option<String>,
    /// `[capc] untrusted_injections = "run"`: the session runs `!` injections in a folder that
    /// is not trusted as headless Claude Code does (`--untrusted-injections run`).
    run_untrusted: bool,
    /// `CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD` in the recording's environment: the
    /// `--add-dir` folders' instruction files load.
    add_dir_instructions: bool,
    /// `cwd`: the folder of the tree Claude Code started in (`capc session --cwd`).
    cwd: Option<String>,
}

pub(crate) fn scenario(dir: &Path) -> Scenario {
    let name = dir.file_name().expect("name").to_string_lossy().into_owned();
    let text = std::fs::read_to_string(dir.join("scenario.toml")).expect("scenario.toml");
    let spec: toml::Table = text.parse().unwrap_or_else(|e| panic!("{name}/scenario.toml: {e}"));
    let strings = |v: Option<&toml::Value>| -> Vec<String> {
        v.and_then(toml::Value::as_array)
            .map(|a| a.iter().filter_map(|s| s.as_str().map(str::to_string)).collect())
            .unwrap_or_default()
    };
    let capc = spec
        .get("capc")
        .and_then(toml::Value::as_table)
        .unwrap_or_else(|| panic!("{name}/scenario.toml has no [capc] table naming the session's context"));
    Scenario {
        inputs: strings(spec.get("inputs")),
        trusted: spec.get("trusted").and_then(toml::Value::as_bool).unwrap_or(false),
        approve_mcp: strings(spec.get("approve_mcp")),
        context: capc.get("context").map(to_json).unwrap_or_else(|| json!({})),
        // `--add-dir` as the recording passed it (`args`), or as `[capc]` names it.
        add_dirs: {
            let args = strings(spec.get("args"));
            let mut dirs: Vec<String> = args.windows(2).filter(|w| w[0] == "--add-dir").map(|w| w[1].clone()).collect();
            dirs.extend(strings(capc.get("add_dirs")));
            dirs.dedup();
            dirs
        },
        plugin_dirs: {
            let mut dirs = strings(spec.get("plugin_dirs"));
            dirs.extend(strings(capc.get("plugin_dirs")));
            dirs.dedup();
            dirs
        },
        corpus_plugin_dirs: strings(spec.get("corpus_plugin_dirs")),
        corpus_tree: spec.get("corpus_tree").and_then(toml::Value::as_str).map(str::to_string),
        run_untrusted: match capc.get("untrusted_injections").map(|v| v.as_str()) {
            None | Some(Some("skip")) => false,
            Some(Some("run")) => true,
            Some(other) => panic!("{name}/scenario.toml: untrusted_injections is \"skip\" or \"run\", not {other:?}"),
        },
        add_dir_instructions: spec
            .get("env")
            .and_then(|env| env.get("CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD"))
            .and_then(toml::Value::as_str)
            .is_some_and(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "1" | "true" | "yes" | "on")),
        cwd: spec.get("cwd").and_then(toml::Value::as_str).map(str::to_string),
        name,
        dir: dir.to_path_buf(),
    }
}

/// Whether any `*.json` file under `root` names server-everything in `runtime/tests/servers`.
fn names_everything(root: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(root) else { return false };
    entries.flatten().any(|entry| {
        let path = entry.path();
        let kind = entry.file_type().expect("file type");
        if kind.is_dir() {
            names_everything(&path)
        } else {
            kind.is_file()
                && path.extension().is_some_and(|e| e == "json")
                && std::fs::read_to_string(&path).is_ok_and(|t| t.contains(EVERYTHING))
        }
    })
}

/// server-everything's entry point, under `runtime/tests/servers` (`<SERVERS>` in a scenario).
const EVERYTHING: &str = "<SERVERS>/node_modules/@modelcontextprotocol/server-everything/dist/index.js";

/// What a scenario needs that is absent: the corpora its real plugins come from;
/// server-everything and `node`, when its files name it.
fn what_is_missing(s: &Scenario) -> Vec<Missing> {
    if !s.corpus_plugin_dirs.is_empty() {
        let corpora = crate::support::corpora_path();
        let absent: Vec<&String> = s.corpus_plugin_dirs.iter().filter(|d| !corpora.join(d).is_dir()).collect();
        if !absent.is_empty() {
            return vec![Missing {
                label: "corpora",
                why: format!("{} is not in the shared corpora ({})", absent[0], corpora.display()),
            }];
        }
    }
    if !names_everything(&s.dir.join("tree")) && !names_everything(&s.dir.join("home")) {
        return Vec::new();
    }
    let mut missing = Vec::new();
    let everything = EVERYTHING.replace("<SERVERS>", &servers_dir().to_string_lossy());
    if !Path::new(&everything).is_file() {
        missing.push(Missing {
            label: "server-everything",
            why: format!("{everything} is not installed (npm ci --prefix runtime/tests/servers)"),
        });
    }
    let on_path = |program: &str| {
        std::env::var_os("PATH").is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(program).is_file()))
    };
    if !on_path("node") {
        missing.push(Missing { label: "node", why: "`node` is not on PATH (install Node.js)".to_string() });
    }
    missing
}

/// Whether two `stdout`s both refuse the turn because a `!` command failed. Claude Code runs a
/// text's injections at once and names whichever fails first in time, which varies from run to
/// run when several fail (every git command, in a folder that is no repository); capc names the
/// first in the text. That the turn is refused, and why, is compared; which command is named
/// is not.
fn same_failed_injection(want: &Value, got: &Value) -> bool {
    const FAILED: &str = "Shell command failed for pattern ";
    let one = |v: &Value| v.as_array().filter(|a| a.len() == 1).and_then(|a| a[0].as_str()).map(str::to_string);
    matches!((one(want), one(got)), (Some(w), Some(g)) if w.starts_with(FAILED) && g.starts_with(FAILED))
}

/// `texts` with each run of `.claude/rules/` files in the instructions reminder put in name
/// order. Claude Code sends a folder's rules in the order the file system lists them (hash
/// order on ext4, another on each machine and copy); capc sends them sorted by name, so only the
/// set of rules and their texts can be compared.
fn rules_by_name(texts: &Value) -> Value {
    const HEAD: &str = "<system-reminder>\nCodebase and user instructions";
    const SEP: &str = "\n\nContents of ";
    const TAIL: &str = "\n</system-reminder>";
    let sorted = |text: &str| -> String {
        let Some(end) = text.rfind(TAIL) else { return text.to_string() };
        let (body, tail) = text.split_at(end);
        let mut parts: Vec<&str> = body.split(SEP).collect();
        let rule = |part: &str| part.split(" (").next().is_some_and(|path| path.contains("/.claude/rules/"));
        let mut i = 1;
        while i < parts.len() {
            let start = i;
            while i < parts.len() && rule(parts[i]) {
                i += 1;
            }
            parts[start..i].sort_unstable();
            i += usize::from(i == start);
        }
        format!("{}{tail}", parts.join(SEP))
    };
    match texts {
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|t| match t.as_str() {
                    Some(text) if text.starts_with(HEAD) => Value::String(sorted(text)),
                    _ => t.clone(),
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// capc's value of a field, in the expected file's shape.
fn field(actual: &Value, name: &str) -> Value {
    match name {
        "request" => actual["sent"].clone(),
        "stdout" if actual["sent"] == true => json!([]),
        _ => actual[name].clone(),
    }
}

/// A line-by-line account of two lists.
fn diff(expected: &Value, actual: &Value) -> String {
    let lines = |v: &Value| -> Vec<String> {
        match v {
            Value::Array(items) => {
                items.iter().map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_string)).collect()
            }
            other => vec![other.to_string()],
        }
    };
    let (e, a) = (lines(expected), lines(actual));
    let mut out = String::new();
    for l in e.iter().filter(|l| !a.contains(l)) {
        out.push_str(&format!("      - {}\n", l.chars().take(200).collect::<String>()));
    }
    for l in a.iter().filter(|l| !e.contains(l)) {
        out.push_str(&format!("      + {}\n", l.chars().take(200).collect::<String>()));
    }
    if out.is_empty() {
        out.push_str("      (same lines, another order)\n");
    }
    out
}

/// A difference an allowlist accepts: the scenario, the input (`*`: every input) and the field,
/// with why capc cannot equal Claude Code there.
#[derive(Debug, Clone, serde::Deserialize)]
pub(crate) struct Allowed {
    pub(crate) scenario: String,
    pub(crate) input: String,
    pub(crate) field: String,
    pub(crate) reason: String,
    /// For `texts`: the start of the one text the difference is in; every other text must be
    /// equal.
    #[serde(default)]
    pub(crate) text: Option<String>,
}

/// One trial per scenario, and the allowlist's check.
pub(crate) fn trials() -> Vec<Trial> {
    let allowlist: Vec<Allowed> = crate::support::oracle_allowlist("allowlist.toml", "difference");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(repo().join("tests/oracle/scenarios"))
        .expect("scenarios")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("scenario.toml").is_file())
        .collect();
    dirs.sort();
    let mut trials = Vec::new();
    let mut compared: Vec<String> = Vec::new();
    let mut noted: Vec<&str> = Vec::new();
    for dir in dirs {
        let s = scenario(&dir);
        let name = format!("oracle::capc_sends_what_claude_code_2_1_332_sends::{}", s.name);
        if let Some((_, why)) = SKIPPED.iter().find(|(prefix, _)| s.name.starts_with(prefix)) {
            let why = why.to_string();
            trials.push(
                Trial::test(name, move || Err(why.into())).with_kind("left to another test").with_ignored_flag(true),
            );
            continue;
        }
        compared.push(s.name.clone());
        let missing = what_is_missing(&s);
        for m in &missing {
            if !noted.contains(&m.label) {
                noted.push(m.label);
                harness::note(m);
            }
        }
        let entries: Vec<Allowed> = allowlist.iter().filter(|a| a.scenario == s.name).cloned().collect();
        trials.push(harness::trial(name, &missing, move || capc_sends_what_claude_code_2_1_332_sends(&s, &entries)));
    }
    for name in LISTING_BUDGET {
        let s = scenario(&repo().join("tests/oracle/scenarios").join(name));
        let missing = what_is_missing(&s);
        let trial = format!("oracle::listing_budget_flags_what_claude_code_2_1_332_dropped::{name}");
        trials.push(harness::trial(trial, &missing, move || listing_budget_flags_what_claude_code_dropped(&s)));
    }
    let named: Vec<String> = allowlist
        .iter()
        .filter(|a| !compared.contains(&a.scenario))
        .map(|a| format!("{} `{}` {}: {}", a.scenario, a.input, a.field, a.reason))
        .collect();
    trials.push(Trial::test("oracle::every_allowlist_entry_names_a_compared_scenario", move || {
        if named.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "{} allowlist entr(ies) name no scenario this test compares (remove them):\n{}",
                named.len(),
                named.join("\n")
            )
            .into())
        }
    }));
    trials
}

/// Claude Code ran offline: an MCP server `npx` would have to download failed to start there
/// (monorepo-deploy's postgres), and must here too, network or not, cache or not. Called by
/// `main` before any test runs, while it is the only thread; npm reads this empty cache for the
/// whole run (no other trial runs `npm` or `npx`). Keep the folder until the run ends.
pub(crate) fn offline_npm() -> tempfile::TempDir {
    let npm_cache = tempfile::tempdir().expect("tempdir");
    std::env::set_var("npm_config_offline", "true");
    std::env::set_var("npm_config_cache", npm_cache.path());
    npm_cache
}

/// For every input of one scenario, the request capc's session says Claude Code sends equals the
/// one Claude Code sent, but for the differences `allowlist` (this scenario's entries) lists; each
/// of those entries must still differ.
fn capc_sends_what_claude_code_2_1_332_sends(s: &Scenario, allowlist: &[Allowed]) {
    let compared = compare(s, allowlist);
    let mut summary = format!("{}: compared {} inputs: {} equal", s.name, compared.inputs, compared.equal);
    for (reason, n) in &compared.by_reason {
        summary.push_str(&format!("\n  {n} allowlisted: {reason}"));
    }
    assert!(
        compared.failures.is_empty() && compared.stale.is_empty(),
        "{} difference(s) from Claude Code not in tests/oracle/allowlist.toml:\n{}\n{} allowlist entr(ies) no longer differ (remove them):\n{}\n({summary})",
        compared.failures.len(),
        compared.failures.join(""),
        compared.stale.len(),
        compared.stale.join("\n")
    );
}

/// What comparing one scenario's inputs found.
pub(crate) struct Compared {
    /// Inputs compared.
    pub(crate) inputs: usize,
    /// Inputs whose every field equals Claude Code's.
    pub(crate) equal: usize,
    /// Inputs that differ only as allowlisted, by reason.
    pub(crate) by_reason: BTreeMap<String, usize>,
    /// Each difference no allowlist entry names, with both sides.
    pub(crate) failures: Vec<String>,
    /// Each allowlist entry of the scenario that no longer differs.
    pub(crate) stale: Vec<String>,
}

/// For every input of one scenario, the request capc's session says Claude Code sends against
/// the one recorded in `expected/`, but for the differences `allowlist` (this scenario's
/// entries) lists.
pub(crate) fn compare(s: &Scenario, allowlist: &[Allowed]) -> Compared {
    let mut used = vec![false; allowlist.len()];
    let (mut compared, mut equal) = (0, 0);
    let mut by_reason: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures: Vec<String> = Vec::new();
    for input in &s.inputs {
        let expected_path = s.dir.join("expected").join(format!("{}.json", slug(input)));
        let expected: Value =
            serde_json::from_str(&std::fs::read_to_string(&expected_path).expect("expected file")).expect("JSON");
        let actual = run(s, input);
        compared += 1;
        let mut differs = false;
        let mut reasons: Vec<String> = Vec::new();
        for name in FIELDS {
            let want = match expected.get(*name) {
                Some(value) => value.clone(),
                // A stream-json run that made no request records Claude Code's answer as its
                // `result`, one text: what a session prints instead of sending.
                None if *name == "stdout" => expected.get("result").map_or_else(|| json!([]), |r| json!([r])),
                None => json!([]),
            };
            let got = field(&actual, name);
            let (want, got) = if *name == "texts" { (rules_by_name(&want), rules_by_name(&got)) } else { (want, got) };
            if want == got || same_failed_injection(&want, &got) {
                continue;
            }
            let applies =
                |a: &Allowed| a.scenario == s.name && (a.input == *input || a.input == "*") && a.field == *name;
            // An entry that names one text excuses that text alone: the others must be equal.
            if let Some(i) = allowlist.iter().position(|a| applies(a) && a.text.is_some()) {
                let prefix = allowlist[i].text.as_deref().unwrap_or_default();
                let rest = |v: &Value| -> Value {
                    v.as_array()
                        .map(|a| {
                            a.iter().filter(|t| !t.as_str().is_some_and(|t| t.starts_with(prefix))).cloned().collect()
                        })
                        .unwrap_or_else(|| v.clone())
                };
                let (want_rest, got_rest) = (rest(&want), rest(&got));
                if want_rest == got_rest {
                    used[i] = true;
                    reasons.push(allowlist[i].reason.clone());
                } else {
                    differs = true;
                    failures.push(format!("{} `{input}` {name}:\n{}", s.name, diff(&want_rest, &got_rest)));
                }
                continue;
            }
            let allowed = allowlist.iter().position(|a| applies(a) && a.text.is_none());
            match allowed {
                Some(i) => {
                    used[i] = true;
                    reasons.push(allowlist[i].reason.clone());
                }
                None => {
                    differs = true;
                    failures.push(format!("{} `{input}` {name}:\n{}", s.name, diff(&want, &got)));
                }
            }
        }
        if !differs {
            if reasons.is_empty() {
                equal += 1;
            } else {
                reasons.sort();
                reasons.dedup();
                for r in reasons {
                    *by_reason.entry(r).or_default() += 1;
                }
            }
        }
    }
    let stale: Vec<String> = allowlist
        .iter()
        .zip(&used)
        .filter(|(_, used)| !**used)
        .map(|(a, _)| format!("{} `{}` {}: {}", a.scenario, a.input, a.field, a.reason))
        .collect();
    Compared { inputs: compared, equal, by_reason, failures, stale }
}

/// `capc check` of a scenario's tree (its `--plugin-dir`s as recorded) flags with
/// `listing-budget` exactly the skills whose description Claude Code left out of the
/// recorded listing (`- name` alone): every such entry but the bundled skills (no file to
/// report at) and the ones the tree's settings list `name-only`.
fn listing_budget_flags_what_claude_code_dropped(s: &Scenario) {
    let hello = |dir: &Path| -> Vec<String> {
        let text = std::fs::read_to_string(dir.join("expected/hello.json")).expect("a recorded plain turn");
        let recorded: Value = serde_json::from_str(&text).expect("JSON");
        recorded["skill_listing"]
            .as_array()
            .expect("a listing")
            .iter()
            .filter_map(|l| l.as_str().map(str::to_string))
            .collect()
    };
    // The bundled skills' entries, as a folder with nothing in it lists them.
    let bundled: Vec<String> = hello(&repo().join("tests/oracle/scenarios/turn-baseline"))
        .iter()
        .map(|l| l.trim_start_matches("- ").split([':', ' ']).next().unwrap_or_default().to_string())
        .collect();
    let name_only: Vec<String> = std::fs::read_to_string(s.dir.join("tree/.claude/settings.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .and_then(|v| v["skillOverrides"].as_object().cloned())
        .map(|o| o.into_iter().filter(|(_, v)| v == "name-only").map(|(k, _)| k).collect())
        .unwrap_or_default();
    // Every entry Claude Code listed as `- name` alone that no override makes name-only, the
    // bundled skills included.
    let mut cut: Vec<String> = hello(&s.dir)
        .iter()
        .filter_map(|l| l.strip_prefix("- ").filter(|n| !n.contains(' ')).map(str::to_string))
        .filter(|n| !name_only.contains(n))
        .collect();
    cut.sort();
    let mut dropped: Vec<String> = cut.iter().filter(|n| !bundled.contains(n)).cloned().collect();
    dropped.sort();
    let scratch = tempfile::tempdir().expect("tempdir");
    let tree = scratch.path().join("tree");
    if s.dir.join("tree").is_dir() {
        copy_tree(&s.dir.join("tree"), &tree);
    } else {
        std::fs::create_dir_all(&tree).expect("tree");
    }
    let corpora = crate::support::corpora_path();
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_capc"));
    command.args(["check", "--format", "json", "--select", "listing-budget"]).arg(&tree);
    for dir in s.plugin_dirs.iter().map(|d| tree.join(d)).chain(s.corpus_plugin_dirs.iter().map(|d| corpora.join(d))) {
        command.arg("--plugin-dir").arg(dir);
    }
    let out = command.output().expect("capc check runs");
    // `capc ls --budget` shows the same listing: the entries it marks `dropped` are those.
    let mut ls = std::process::Command::new(env!("CARGO_BIN_EXE_capc"));
    ls.args(["ls", "--budget", "--format", "json"]).arg(&tree);
    for dir in s.plugin_dirs.iter().map(|d| tree.join(d)).chain(s.corpus_plugin_dirs.iter().map(|d| corpora.join(d))) {
        ls.arg("--plugin-dir").arg(dir);
    }
    let listed = ls.output().expect("capc ls --budget runs");
    assert!(listed.status.success(), "{}: capc ls --budget: {}", s.name, String::from_utf8_lossy(&listed.stderr));
    let listed: Value = serde_json::from_slice(&listed.stdout).expect("ls --budget JSON");
    let entries = listed["windows"][0]["listing"]["entries"].as_array().expect("the default window's entries");
    // The names of the entries `capc ls --budget` lists with `description` `kept`, sorted.
    let shown = |kept: &str| -> Vec<String> {
        let mut names: Vec<String> = entries
            .iter()
            .filter(|e| e["description"] == kept)
            .map(|e| e["name"].as_str().unwrap_or_default().to_string())
            .collect();
        names.sort();
        names
    };
    assert_eq!(
        shown("dropped"),
        cut,
        "{}: `capc ls --budget`'s dropped entries (left) and Claude Code's (right)",
        s.name
    );
    let mut overridden: Vec<String> =
        name_only.iter().filter(|n| entries.iter().any(|e| e["name"] == **n)).cloned().collect();
    overridden.sort();
    assert_eq!(shown("name-only"), overridden, "{}: `capc ls --budget`'s name-only entries", s.name);
    let report: Value = serde_json::from_slice(&out.stdout).expect("a JSON report");
    let mut flagged: Vec<String> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            let message = d["message"].as_str().unwrap_or_default();
            message.split('`').nth(1).unwrap_or_default().to_string()
        })
        .collect();
    flagged.sort();
    assert_eq!(
        flagged, dropped,
        "{}: the skills `capc check` flags (left) and those Claude Code listed without a description (right)",
        s.name
    );
    // Only the overrides scenario fits its budget (its `- name` entries are overrides).
    assert_eq!(dropped.is_empty(), s.name == "turn-skill-overrides", "{}: the recording cuts the listing", s.name);
}

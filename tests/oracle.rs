//! capc against Claude Code 2.1.332 itself: for every scenario of `tests/oracle/scenarios/` and
//! every input, the request capc's session says Claude Code sends must equal the request
//! 2.1.332 really sent (`expected/*.json`, recorded offline by `tests/oracle/regen.py`), field
//! by field: `tools`, `deferred`, `skill_listing`, `agent_listing`, `commands`, `texts`, and
//! `stderr`, `stdout` and whether a request was made at all.
//!
//! Each input runs as regen.py ran it: tree and home are copied to a scratch folder, `<TREE>`,
//! `<HOME>` and `<SERVERS>` in their `*.json` files are replaced, the home's `.claude.json`
//! gets the scenario's trust and MCP approvals; then the tree is compiled
//! (`capc_compiler::check`, the home as `--user-dir`), a session starts from the lock — its MCP
//! servers connected for real — and the input is sent as a `turn` with the context of the
//! scenario's `[capc]` table and `include: ["request"]`. Paths are compared as `<TREE>` and
//! `<HOME>`.
//!
//! A difference fails the test unless `tests/oracle/allowlist.toml` lists it (scenario, input,
//! field, reason); an allowlist entry that no longer differs fails it too. The servers come from
//! `runtime/tests/servers` (`.ci/run` installs them): outside CI a scenario whose server is
//! missing is skipped with a message, in CI it fails.

use capc_runtime::connect::{launches, Live, Settings};
use capc_runtime::loaded::{Loaded, Roots};
use capc_runtime::mcp::Status;
use capc_runtime::session::Session;
use capc_runtime::turn::Entry;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Scenarios this test leaves to another test, with why (none today).
const SKIPPED: &[(&str, &str)] = &[];

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
fn slug(text: &str) -> String {
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
struct Scenario {
    name: String,
    dir: PathBuf,
    inputs: Vec<String>,
    trusted: bool,
    approve_mcp: Vec<String>,
    context: Value,
    add_dirs: Vec<String>,
    /// `--plugin-dir` folders, relative to the tree, in order.
    plugin_dirs: Vec<String>,
}

fn scenario(dir: &Path) -> Scenario {
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
        name,
        dir: dir.to_path_buf(),
    }
}

/// The request capc's session says Claude Code sends for `input`, paths as `<TREE>`/`<HOME>`;
/// `None` when a server it needs is not installed (outside CI).
fn run(s: &Scenario, input: &str) -> Option<Value> {
    let scratch = tempfile::tempdir().expect("tempdir");
    let base = scratch.path().canonicalize().expect("canonical scratch");
    let (tree, home) = (base.join("tree"), base.join("home"));
    copy_tree(&s.dir.join("tree"), &tree);
    if s.dir.join("home").is_dir() {
        copy_tree(&s.dir.join("home"), &home);
    } else {
        std::fs::create_dir_all(&home).expect("home");
    }
    let servers = servers_dir().to_string_lossy().into_owned();
    let mapping = [
        ("<TREE>", tree.to_string_lossy().into_owned()),
        ("<HOME>", home.to_string_lossy().into_owned()),
        ("<SERVERS>", servers.clone()),
    ];
    substitute(&tree, &mapping);
    substitute(&home, &mapping);
    let config_path = home.join(".claude.json");
    let mut config: Value = std::fs::read_to_string(&config_path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_else(|| json!({}));
    let project = &mut config["projects"][tree.to_string_lossy().as_ref()];
    if !project.is_object() {
        *project = json!({});
    }
    if s.trusted {
        project["hasTrustDialogAccepted"] = json!(true);
    }
    if !s.approve_mcp.is_empty() {
        project["enabledMcpjsonServers"] = json!(s.approve_mcp);
    }
    std::fs::write(&config_path, serde_json::to_string_pretty(&config).expect("json")).expect("write .claude.json");

    let uses_everything = std::fs::read_to_string(tree.join(".mcp.json")).is_ok_and(|t| t.contains(&servers));
    let everything = servers_dir().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    if uses_everything && !everything.exists() {
        assert!(
            std::env::var_os("CI").is_none(),
            "{} is not installed: npm ci --prefix runtime/tests/servers",
            everything.display()
        );
        return None;
    }

    let add_dirs: Vec<PathBuf> = s.add_dirs.iter().map(|d| tree.join(d)).collect();
    let plugin_dirs: Vec<PathBuf> = s.plugin_dirs.iter().map(|d| tree.join(d)).collect();
    let options = capc_compiler::Options {
        root: tree.clone(),
        user_dir: Some(home.clone()),
        add_dirs: add_dirs.clone(),
        plugin_dirs: plugin_dirs.clone(),
        ..Default::default()
    };
    let lock = capc_compiler::check(&options).expect("the scratch tree exists").lock();
    let roots = Roots { root: tree.clone(), user_dir: Some(home.clone()), add_dirs, plugin_dirs, ..Roots::default() };
    let mut session = Session::new(Loaded::new(lock, roots));
    // Trusted as a user's session is: when their own `.claude.json` (the scenario's home) says so.
    session.trusted = session.loaded.roots.user_trusts();
    let live = if session.loaded.lock.mcp_servers.is_empty() {
        None
    } else {
        // The servers a headless session starts (a whole-server deny keeps one from starting).
        let started: Vec<String> = launches(&session.loaded.lock, |_| None, Entry::Headless, session.trusted)
            .into_iter()
            .map(|(name, _)| name)
            .collect();
        let live = Live::start(&mut session, Settings::from_env(|_| None), Entry::Headless).expect("connections start");
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            session.sync();
            let waiting = session.mcp.servers().any(|s| started.contains(&s.name) && s.status == Status::Pending);
            if !waiting || Instant::now() > deadline {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(live)
    };
    let request = json!({"id": 1, "type": "turn", "input": input, "context": s.context, "include": ["request"]});
    let response = capc_runtime::protocol::handle(&mut session, &request.to_string());
    if let Some(live) = live {
        live.shutdown();
    }
    assert_eq!(response["ok"], true, "{}: {input}: {response}", s.name);
    let text = response["request"].to_string();
    let (tree, home) = (tree.to_string_lossy().into_owned(), home.to_string_lossy().into_owned());
    // Longer path first, so neither hides the other.
    let mut pairs = [(tree, "<TREE>"), (home, "<HOME>")];
    pairs.sort_by_key(|(path, _)| std::cmp::Reverse(path.len()));
    let mut text = text;
    for (path, name) in &pairs {
        text = text.replace(path.as_str(), name);
    }
    Some(serde_json::from_str(&text).expect("still JSON"))
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

#[derive(Debug, serde::Deserialize)]
struct Allowed {
    scenario: String,
    input: String,
    field: String,
    reason: String,
}

#[test]
fn capc_sends_what_claude_code_2_1_332_sends() {
    // Claude Code ran offline: an MCP server `npx` would have to download failed to start there
    // (monorepo-deploy's postgres), and must here too, network or not, cache or not.
    let npm_cache = tempfile::tempdir().expect("tempdir");
    std::env::set_var("npm_config_offline", "true");
    std::env::set_var("npm_config_cache", npm_cache.path());
    let allowlist: Vec<Allowed> = {
        let text = std::fs::read_to_string(repo().join("tests/oracle/allowlist.toml")).expect("allowlist.toml");
        let table: toml::Table = text.parse().expect("allowlist.toml parses");
        table.get("difference").cloned().map(|v| v.try_into().expect("[[difference]] entries")).unwrap_or_default()
    };
    let mut used = vec![false; allowlist.len()];
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(repo().join("tests/oracle/scenarios"))
        .expect("scenarios")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("scenario.toml").is_file())
        .collect();
    dirs.sort();
    let (mut compared, mut equal) = (0, 0);
    let mut by_reason: BTreeMap<String, usize> = BTreeMap::new();
    let mut skipped: Vec<String> = Vec::new();
    let mut failures: Vec<String> = Vec::new();
    for dir in dirs {
        let s = scenario(&dir);
        if let Some((_, why)) = SKIPPED.iter().find(|(prefix, _)| s.name.starts_with(prefix)) {
            skipped.push(format!("{} ({why})", s.name));
            continue;
        }
        for input in &s.inputs {
            let expected_path = dir.join("expected").join(format!("{}.json", slug(input)));
            let expected: Value =
                serde_json::from_str(&std::fs::read_to_string(&expected_path).expect("expected file")).expect("JSON");
            let Some(actual) = run(&s, input) else {
                skipped.push(format!("{} `{input}` (its MCP server is not installed)", s.name));
                continue;
            };
            compared += 1;
            let mut differs = false;
            let mut reasons: Vec<String> = Vec::new();
            for name in FIELDS {
                let want = expected.get(*name).cloned().unwrap_or_else(|| json!([]));
                let got = field(&actual, name);
                if want == got {
                    continue;
                }
                let allowed = allowlist
                    .iter()
                    .position(|a| a.scenario == s.name && (a.input == *input || a.input == "*") && a.field == *name);
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
    }
    let stale: Vec<String> = allowlist
        .iter()
        .zip(&used)
        .filter(|(_, used)| !**used)
        .map(|(a, _)| format!("{} `{}` {}: {}", a.scenario, a.input, a.field, a.reason))
        .collect();
    println!("compared {compared} inputs: {equal} equal");
    for (reason, n) in &by_reason {
        println!("  {n} allowlisted: {reason}");
    }
    for s in &skipped {
        println!("  skipped: {s}");
    }
    assert!(
        failures.is_empty() && stale.is_empty(),
        "{} difference(s) from Claude Code 2.1.332 not in tests/oracle/allowlist.toml:\n{}\n{} allowlist entr(ies) no longer differ (remove them):\n{}",
        failures.len(),
        failures.join(""),
        stale.len(),
        stale.join("\n")
    );
}

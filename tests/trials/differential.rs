//! The live differential suite: Claude Code itself, run now, beside `capc session` on every real
//! tree of the shared corpora, turn by turn.
//!
//! The recorded scenarios (`oracle`) hold what Claude Code sent for trees written to show one
//! behaviour. This suite asks the same question of trees nobody here wrote: for each corpus it
//! writes scenarios into a scratch folder, records them with the real binary (`regen.py`, which
//! runs it offline through `../shared/oracle`), and compares capc's turn with each recording as
//! `oracle` compares, field by field (tools, deferred tools, listings, expanded texts, the
//! instruction block, stderr notices, or what is printed instead of a request).
//!
//! The sample is fixed, so every run asks the same questions: per corpus,
//! - the corpus as a project (a copy of it, links kept), trusted: `hello`, then the first two
//!   commands or skills its own table adds to the built-ins (Claude Code's `init` message, in
//!   table order), typed bare and with an argument, and `summarize @README.md` when it has one;
//! - the same folder untrusted, and trusted with `ENABLE_TOOL_SEARCH=false`: `hello`;
//! - up to three of its plugins (the first, the middle and the last folder holding
//!   `.claude-plugin/plugin.json`, sorted), each loaded with `--plugin-dir` from an empty
//!   folder elsewhere: `hello`, then its first command or skill with an argument.
//!
//! Each corpus is one trial (`differential::every_turn_equals_claude_code::<corpus>`), which
//! prints `N/M turns equal Claude Code <version>` and fails on a difference that
//! `tests/oracle/differential-allowlist.toml` does not list (scenario `<corpus>/<variant>`,
//! input or `*`, field, reason), and on an entry that no longer differs.
//!
//! It needs the Claude Code binary (`tests/oracle/claude`, installed by `.ci/run` from npm,
//! pinned in its `package-lock.json`; or `CLAUDE_BIN`), the offline runner in `../shared/oracle`,
//! `python3` and the corpora; without one the trials are reported as ignored (failed under
//! `CI`). `CLAUDE_CODE_VERSION` names the version the binary must report (see docs/session.md
//! for running the suite against another release).

use crate::oracle::{self, Allowed};
use crate::support::harness::{self, Missing};
use libtest_mimic::Trial;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The Claude Code version the binary must report, and the suite's summary names.
fn version() -> String {
    std::env::var("CLAUDE_CODE_VERSION").unwrap_or_else(|_| capc_compiler::model::CLAUDE_CODE_VERSION.to_string())
}

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The Claude Code binary: `CLAUDE_BIN`, else the one `.ci/run` installs under `tests/oracle/claude`.
fn claude_bin() -> PathBuf {
    match std::env::var_os("CLAUDE_BIN") {
        Some(bin) => PathBuf::from(bin),
        None => repo().join("tests/oracle/claude/node_modules/@anthropic-ai/claude-code-linux-x64/claude"),
    }
}

/// The offline runner beside the repository.
fn oracle_dir() -> PathBuf {
    match std::env::var_os("ORACLE_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => repo().join("../shared/oracle"),
    }
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(program).is_file()))
}

/// What the suite needs that is absent.
fn missing() -> Vec<Missing> {
    let mut out = Vec::new();
    if !crate::support::corpora_path().is_dir() {
        out.push(Missing { label: "corpora", why: "the shared corpora are not beside the repository".to_string() });
    }
    if !claude_bin().is_file() {
        out.push(Missing {
            label: "claude",
            why: format!(
                "{} is not installed (npm ci --prefix tests/oracle/claude, or set CLAUDE_BIN)",
                claude_bin().display()
            ),
        });
    }
    if !oracle_dir().join("claude-offline").is_file() {
        out.push(Missing {
            label: "oracle",
            why: format!("the offline runner {} is absent", oracle_dir().join("claude-offline").display()),
        });
    }
    if !on_path("python3") {
        out.push(Missing { label: "python3", why: "`python3` is not on PATH".to_string() });
    }
    out
}

/// One trial per corpus.
pub(crate) fn trials() -> Vec<Trial> {
    let missing = missing();
    for m in &missing {
        harness::note(m);
    }
    let allowlist: Vec<Allowed> = crate::support::oracle_allowlist("differential-allowlist.toml", "difference");
    let corpora = crate::support::corpora_path();
    let names = crate::support::corpus_names(&corpora);
    let mut trials = Vec::new();
    for corpus in names.clone() {
        let entries: Vec<Allowed> =
            allowlist.iter().filter(|a| a.scenario.split('/').next() == Some(corpus.as_str())).cloned().collect();
        let name = format!("differential::every_turn_equals_claude_code::{corpus}");
        trials.push(harness::trial(name, &missing, move || every_turn_equals_claude_code(&corpus, &entries)));
    }
    let unknown: Vec<String> = allowlist
        .iter()
        .filter(|a| !names.iter().any(|n| a.scenario.split('/').next() == Some(n.as_str())))
        .map(|a| format!("{} `{}` {}", a.scenario, a.input, a.field))
        .collect();
    let absent = !corpora.is_dir();
    trials.push(Trial::test("differential::every_allowlist_entry_names_a_corpus", move || {
        if unknown.is_empty() || absent {
            Ok(())
        } else {
            Err(format!("allowlist entries that name no corpus (remove them):\n{}", unknown.join("\n")).into())
        }
    }));
    trials
}

/// The plugin folders of a corpus (`corpora::plugin_folders`), relative, sorted as text; the
/// corpus root itself is `""`.
fn plugin_folders(root: &Path) -> Vec<String> {
    let mut out: Vec<String> = crate::corpora::plugin_folders(root)
        .iter()
        .map(|dir| dir.strip_prefix(root).unwrap_or(dir).to_string_lossy().replace('\\', "/"))
        .collect();
    out.sort();
    out
}

/// The first, middle and last of `items`, each once.
fn sample(items: &[String]) -> Vec<String> {
    let mut picked: Vec<String> = Vec::new();
    if let (Some(first), Some(last)) = (items.first(), items.last()) {
        for item in [first, &items[items.len() / 2], last] {
            if !picked.contains(item) {
                picked.push(item.clone());
            }
        }
    }
    picked
}

/// A TOML string literal.
fn quoted(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}

/// Writes `<dir>/<name>/scenario.toml`.
fn write_scenario(dir: &Path, name: &str, body: &str) {
    let folder = dir.join(name);
    std::fs::create_dir_all(&folder).expect("scenario folder");
    std::fs::write(folder.join("scenario.toml"), body).expect("write scenario.toml");
}

/// `scenario.toml`'s `inputs = […]` line.
fn inputs_line(inputs: &[String]) -> String {
    format!("inputs = [{}]\n", inputs.iter().map(|i| quoted(i)).collect::<Vec<_>>().join(", "))
}

/// Records the scenarios `names` of `dir` with the real binary, keeping what is recorded.
fn record(dir: &Path, names: &[String]) {
    let out = Command::new("python3")
        .arg(repo().join("tests/oracle/regen.py"))
        .arg("--keep")
        .args(names)
        .env("CLAUDE_BIN", claude_bin())
        .env("CAPC_SCENARIOS", dir)
        .env("ORACLE_DIR", oracle_dir())
        .env("CORPORA_DIR", crate::support::corpora_path())
        .env("CLAUDE_CODE_VERSION", version())
        .output()
        .expect("python3 runs regen.py");
    assert!(
        out.status.success(),
        "regen.py could not record {names:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The names Claude Code's command table lists for an empty folder: the built-ins and bundled
/// skills, recorded once (`turn-baseline`).
fn built_in_names() -> Vec<String> {
    let text = std::fs::read_to_string(repo().join("tests/oracle/scenarios/turn-baseline/expected/hello.json"))
        .expect("the baseline recording");
    let recorded: Value = serde_json::from_str(&text).expect("JSON");
    names_of(&recorded)
}

fn names_of(recorded: &Value) -> Vec<String> {
    recorded["init"]["slash_commands"]
        .as_array()
        .map(|a| a.iter().filter_map(|n| n.as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

/// The first `n` names a scenario's recorded `hello` adds to the built-ins, in table order.
fn added_names(dir: &Path, scenario: &str, n: usize, built_ins: &[String]) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(dir.join(scenario).join("expected/hello.json")) else { return Vec::new() };
    let recorded: Value = serde_json::from_str(&text).expect("JSON");
    names_of(&recorded).into_iter().filter(|name| !built_ins.contains(name)).take(n).collect()
}

/// An argument a user would type after a command.
const ARGUMENT: &str = "src/app.ts add input validation";

/// A turn that mentions a file of the project.
const MENTION: &str = "summarize @README.md";

/// Every sampled turn of one corpus equals Claude Code's, but for the allowlisted differences.
fn every_turn_equals_claude_code(corpus: &str, allowlist: &[Allowed]) {
    let scratch = tempfile::tempdir().expect("tempdir");
    let dir = scratch.path();
    let root = crate::support::corpora_path().join(corpus);
    let names = write_scenarios(dir, corpus, &root);
    record(dir, &names);
    // Then what the user can type, from Claude Code's own table of each recorded folder.
    let retyped = add_typed_inputs(dir, &root, &names);
    if !retyped.is_empty() {
        record(dir, &retyped);
    }

    let (mut turns, mut equal) = (0, 0);
    let mut failures = Vec::new();
    let mut stale = Vec::new();
    let mut reasons = Vec::new();
    for name in &names {
        let mut s = oracle::scenario(&dir.join(name));
        // Allowlist entries and reports name the scenario `<corpus>/<variant>`.
        s.name = format!("{corpus}/{name}");
        let entries: Vec<Allowed> = allowlist.iter().filter(|a| a.scenario == s.name).cloned().collect();
        let compared = oracle::compare(&s, &entries);
        turns += compared.inputs;
        equal += compared.equal;
        failures.extend(compared.failures);
        stale.extend(compared.stale);
        for (reason, n) in compared.by_reason {
            reasons.push(format!("  {n} allowlisted: {reason}"));
        }
    }
    let version = version();
    println!("{corpus}: {equal}/{turns} turns equal Claude Code {version}");
    for reason in &reasons {
        println!("{reason}");
    }
    assert!(
        failures.is_empty() && stale.is_empty(),
        "{corpus}: {equal}/{turns} turns equal Claude Code {version}\n{} difference(s) not in tests/oracle/differential-allowlist.toml:\n{}\n{} allowlist entr(ies) no longer differ (remove them):\n{}",
        failures.len(),
        failures.join(""),
        stale.len(),
        stale.join("\n")
    );
}

/// The input every scenario records first.
fn hello() -> Vec<String> {
    vec!["hello".to_string()]
}

/// Writes the scenarios of one corpus in `dir` (the project trusted, untrusted and with tool
/// search off, and a sample of its plugins under `root`, each typing `hello`); their names.
fn write_scenarios(dir: &Path, corpus: &str, root: &Path) -> Vec<String> {
    let hello = hello();
    let project = |trusted: bool, extra: &str, context: &str| {
        format!(
            "corpus_tree = {}\ntrusted = {trusted}\n{extra}{}\n[capc]\ncontext = {context}\n",
            quoted(corpus),
            inputs_line(&hello)
        )
    };
    write_scenario(dir, "project-trusted", &project(true, "", "{ trusted = true }"));
    write_scenario(dir, "project-untrusted", &project(false, "", "{ trusted = false }"));
    write_scenario(
        dir,
        "project-tool-search-off",
        &project(
            true,
            "env = { ENABLE_TOOL_SEARCH = \"false\" }\n",
            "{ trusted = true, flags = { ENABLE_TOOL_SEARCH = \"false\" } }",
        ),
    );
    let mut names: Vec<String> =
        ["project-trusted", "project-untrusted", "project-tool-search-off"].map(String::from).into();
    let plugins = sample(&plugin_folders(root));
    for (i, plugin) in plugins.iter().enumerate() {
        let rel = if plugin.is_empty() { corpus.to_string() } else { format!("{corpus}/{plugin}") };
        let name = format!("plugin-{}", i + 1);
        write_scenario(
            dir,
            &name,
            &format!(
                "# {rel}\ncorpus_plugin_dirs = [{}]\ntrusted = true\n{}\n[capc]\ncontext = {{ trusted = true }}\n",
                quoted(&rel),
                inputs_line(&hello)
            ),
        );
        names.push(name);
    }
    names
}

/// Adds to the recorded scenarios `names` of `dir` the names Claude Code's table added to the
/// built-ins, typed with an argument (and the trusted project's first bare, and an `@` mention
/// of its README when `root` has one); the scenarios that changed, to record again.
fn add_typed_inputs(dir: &Path, root: &Path, names: &[String]) -> Vec<String> {
    let hello = hello();
    let built_ins = built_in_names();
    let typed = |scenario: &str, n: usize, bare: bool| -> Vec<String> {
        let mut inputs = hello.clone();
        for (i, name) in added_names(dir, scenario, n, &built_ins).iter().enumerate() {
            if bare && i == 0 {
                inputs.push(format!("/{name}"));
            }
            inputs.push(format!("/{name} {ARGUMENT}"));
        }
        inputs
    };
    let mut retyped = Vec::new();
    let mut trusted_inputs = typed("project-trusted", 2, true);
    // An `@` mention of a file the project has: its README, when it has one.
    if root.join("README.md").is_file() {
        trusted_inputs.push(MENTION.to_string());
    }
    if trusted_inputs.len() > 1 {
        let text = std::fs::read_to_string(dir.join("project-trusted/scenario.toml")).expect("scenario");
        let text = text.replace(&inputs_line(&hello), &inputs_line(&trusted_inputs));
        write_scenario(dir, "project-trusted", &text);
        retyped.push("project-trusted".to_string());
    }
    for name in names.iter().filter(|n| n.starts_with("plugin-")) {
        let inputs = typed(name, 1, false);
        if inputs.len() > 1 {
            let text = std::fs::read_to_string(dir.join(name).join("scenario.toml")).expect("scenario");
            write_scenario(dir, name, &text.replace(&inputs_line(&hello), &inputs_line(&inputs)));
            retyped.push(name.clone());
        }
    }
    retyped
}

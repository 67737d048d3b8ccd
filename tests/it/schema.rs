//! The JSON Schema of `capabilities.lock`: `schema/capabilities.lock.schema.json` must equal
//! what the lock model generates, every fixture's and example's lock must satisfy it (and
//! read back unchanged), so must every committed precedence story's lock, and locks the
//! model refuses must fail it too. Likewise `schema/capc.toml.schema.json` against the
//! configuration's reader, and `schema/capc-session.schema.json` against the session's golden
//! transcripts.
//!
//! To accept a changed schema, run `CAPC_BLESS=1 cargo test --test it -- schema::` and read the diff.
//!
//! Also here, as a check of the repository's own structure: `layers`, the crates' module
//! layers against the list in ARCHITECTURE.md.

mod layers;

use capc_compiler::lock::schema::lock_schema;
use capc_compiler::lock::write::{decode, encode};
use capc_compiler::model::Lock;
use capc_compiler::{check, Options};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn validator() -> jsonschema::Validator {
    let schema: Value = serde_json::from_str(&lock_schema()).expect("the schema is JSON");
    jsonschema::validator_for(&schema).expect("the schema compiles")
}

/// Every error of `instance`, one per line, with where it is.
fn errors(validator: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    validator.iter_errors(instance).map(|e| format!("{}: {e}", e.instance_path())).collect()
}

/// The folders locked by the tests: each fixture's `in/` (with its `user/` and `managed/`
/// beside it when present) and each example.
fn trees() -> Vec<(String, Options)> {
    let mut trees = Vec::new();
    let fixtures = repo().join("tests/fixtures");
    for dir in subfolders(&fixtures).into_iter().filter(|d| d.join("in").is_dir()) {
        let name = format!("tests/fixtures/{}", file_name(&dir));
        trees.push((name, options(dir.join("in"), &dir)));
    }
    for dir in subfolders(&repo().join("examples")) {
        let name = format!("examples/{}", file_name(&dir));
        trees.push((name, options(dir.clone(), &dir)));
    }
    trees
}

fn subfolders(dir: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

fn file_name(dir: &Path) -> String {
    dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

fn options(root: PathBuf, dir: &Path) -> Options {
    let existing = |name: &str| Some(dir.join(name)).filter(|p| p.is_dir());
    Options { root, user_dir: existing("user"), managed_dir: existing("managed"), ..Options::default() }
}

#[test]
fn committed_schema_is_the_generated_one() {
    let path = repo().join("schema/capabilities.lock.schema.json");
    let generated = lock_schema();
    crate::support::golden::assert(&path, &generated);
}

#[test]
fn schema_is_a_valid_draft_7_schema_of_lock_version_2() {
    let schema: Value = serde_json::from_str(&lock_schema()).expect("the schema is JSON");
    if let Err(e) = jsonschema::meta::validate(&schema) {
        panic!("the schema does not satisfy its meta-schema: {e}");
    }
    assert_eq!(schema["$schema"], "http://json-schema.org/draft-07/schema#");
    assert_eq!(schema["$id"], "urn:capc:capabilities.lock:v2");
    assert_eq!(schema["properties"]["version"]["const"], 2);
    assert_eq!(schema["additionalProperties"], false, "unknown top-level keys are refused, as by the model");
}

#[test]
fn every_fixture_and_example_lock_satisfies_the_schema_and_reads_back_unchanged() {
    let validator = validator();
    let mut failures = Vec::new();
    // Which tables the locks had, so the check is known not to be vacuous.
    let mut tables_seen = std::collections::BTreeSet::new();
    let trees = trees();
    assert!(trees.len() > 10, "found only {} trees to lock", trees.len());
    for (name, options) in &trees {
        let checked = check(options).unwrap_or_else(|e| panic!("{name}: check failed: {e:?}"));
        let lock = checked.lock();
        let text = encode(&lock);
        let read = match decode(&text) {
            Ok(read) => read,
            Err(e) => {
                failures.push(format!("{name}: its lock does not read back: {e}\n{text}"));
                continue;
            }
        };
        if read != lock {
            failures.push(format!("{name}: its lock reads back different:\n{text}"));
        }
        let value = serde_json::to_value(&read).expect("a lock is JSON");
        tables_seen.extend(value.as_object().into_iter().flat_map(|o| o.keys().cloned()));
        let errors = errors(&validator, &value);
        if !errors.is_empty() {
            failures.push(format!("{name}: its lock breaks the schema:\n  {}\n{value:#}", errors.join("\n  ")));
        }
    }
    assert!(failures.is_empty(), "{} lock(s) failed:\n{}", failures.len(), failures.join("\n\n"));
    for table in ["source", "plugin", "command", "agent", "mcp_server", "hook", "permission", "pin"] {
        assert!(tables_seen.contains(table), "no fixture's lock has a `{table}` table: {tables_seen:?}");
    }
}

#[test]
fn every_committed_precedence_lock_satisfies_the_schema() {
    let validator = validator();
    let mut failures = Vec::new();
    let locks: Vec<PathBuf> = subfolders(&repo().join("tests/precedence"))
        .into_iter()
        .map(|dir| dir.join("capabilities.lock"))
        .filter(|path| path.is_file())
        .collect();
    assert!(!locks.is_empty(), "no tests/precedence/*/capabilities.lock found");
    for path in &locks {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
        let lock = match decode(&text) {
            Ok(lock) => lock,
            Err(e) => {
                failures.push(format!("{}: does not read: {e}", path.display()));
                continue;
            }
        };
        let value = serde_json::to_value(&lock).expect("a lock is JSON");
        let errors = errors(&validator, &value);
        if !errors.is_empty() {
            failures.push(format!("{}: breaks the schema:\n  {}", path.display(), errors.join("\n  ")));
        }
    }
    assert!(failures.is_empty(), "{} lock(s) failed:\n{}", failures.len(), failures.join("\n\n"));
}

/// A small lock with one of each table, which the schema and the model both accept.
fn valid_lock() -> Value {
    json!({
        "version": 2,
        "claude_code": capc_compiler::model::CLAUDE_CODE_VERSION,
        "builtins": capc_compiler::model::CLAUDE_CODE_VERSION,
        "source": [{ "path": ".claude/skills/deploy/SKILL.md", "kind": "skill", "sha256": "00" }],
        "plugin": [{
            "name": "kit", "id": "kit@inline", "root": "plugins/kit", "loaded": true, "reason": "--plugin-dir 1",
            "inventory": { "commands": [{ "name": "kit:release", "display_name": "kit:ship", "aliases": ["ship"] }], "agents": ["kit:reviewer"] }
        }],
        "command": [{
            "name": "deploy", "display_name": "deploy-prod", "origin": "skill", "scope": "project", "form": "skill",
            "path": ".claude/skills/deploy/SKILL.md", "content_length": 12,
            "shadows": [{ "name": "deploy", "origin": "command", "scope": "user", "path": "~/.claude/commands/deploy.md", "rule": "scope-order" }]
        }],
        "agent": [{ "name": "reviewer", "scope": "plugin", "path": "plugins/kit/agents/reviewer.md", "plugin": "kit" }],
        "mcp_server": [{
            "name": "github", "normalized": "github", "scope": "project", "transport": "stdio",
            "path": ".mcp.json", "command": "gh-mcp", "timeout": 30, "env": { "TOKEN": "${GITHUB_TOKEN}" }
        }],
        "hook": [{ "event": "PreToolUse", "type": "command", "run": "scripts/check.sh", "scope": "project", "path": ".claude/settings.json" }],
        "permission": [{ "rule": "Bash(rm:*)", "behavior": "deny", "scope": "managed", "path": "<managed>/managed-settings.json" }]
    })
}

#[test]
fn the_schema_accepts_what_the_model_reads_and_refuses_what_it_refuses() {
    let validator = validator();
    let valid = valid_lock();
    assert_eq!(errors(&validator, &valid), Vec::<String>::new(), "the sample lock is valid");
    serde_json::from_value::<Lock>(valid.clone()).expect("the model reads the sample lock");

    let mut cases: Vec<(&str, Value)> = Vec::new();
    let mut unknown_top = valid.clone();
    unknown_top["generated_at"] = json!("2026-01-01");
    cases.push(("an unknown top-level field", unknown_top));
    let mut unknown_nested = valid.clone();
    unknown_nested["command"][0]["hidden"] = json!(true);
    cases.push(("an unknown field in a command", unknown_nested));
    let mut unknown_in_ref = valid.clone();
    unknown_in_ref["command"][0]["shadows"][0]["why"] = json!("because");
    cases.push(("an unknown field in a shadowed reference", unknown_in_ref));
    let mut bad_scope = valid.clone();
    bad_scope["command"][0]["scope"] = json!("global");
    cases.push(("a scope that does not exist", bad_scope));
    let mut snake_scope = valid.clone();
    snake_scope["permission"][0]["scope"] = json!("add_dir");
    cases.push(("a scope in snake_case (the file uses kebab-case)", snake_scope));
    let mut bad_origin = valid.clone();
    bad_origin["command"][0]["origin"] = json!("marketplace");
    cases.push(("an origin that does not exist", bad_origin));
    let mut missing = valid.clone();
    missing.as_object_mut().expect("an object").remove("claude_code");
    cases.push(("a missing required field", missing));
    let mut wrong_type = valid.clone();
    wrong_type["mcp_server"][0]["timeout"] = json!("30s");
    cases.push(("a timeout that is not a number", wrong_type));
    let mut negative = valid.clone();
    negative["command"][0]["content_length"] = json!(-1);
    cases.push(("a negative length", negative));

    for (what, lock) in &cases {
        assert!(!validator.is_valid(lock), "the schema accepts {what}:\n{lock:#}");
        assert!(serde_json::from_value::<Lock>(lock.clone()).is_err(), "the model reads {what}, the schema does not");
    }

    // The version: the model's type takes any number, `decode` (and the schema) only 2.
    let mut version_1 = valid;
    version_1["version"] = json!(1);
    assert!(!validator.is_valid(&version_1), "the schema accepts version 1");
}

/// Every ```toml block of a Markdown file that starts with `# capc.toml`, its indentation (a
/// block inside a list item) taken off.
fn capc_toml_examples(markdown: &str) -> Vec<String> {
    let mut examples = Vec::new();
    let mut lines = markdown.lines().peekable();
    while let Some(line) = lines.next() {
        let indent = line.len() - line.trim_start().len();
        if line.trim() != "```toml" || !lines.peek().is_some_and(|l| l.trim_start().starts_with("# capc.toml")) {
            continue;
        }
        let mut example = String::new();
        for line in lines.by_ref().take_while(|l| l.trim() != "```") {
            example.push_str(line.get(indent..).unwrap_or(line.trim_start()));
            example.push('\n');
        }
        examples.push(example);
    }
    examples
}

/// `schema/capc.toml.schema.json` is what the configuration's types generate; it accepts the
/// capc.toml examples of the README and docs/configuration.md and refuses what `capc` refuses.
#[test]
fn committed_config_schema_is_the_generated_one_and_agrees_with_the_reader() {
    let path = repo().join("schema/capc.toml.schema.json");
    let generated = capc_compiler::config::schema();
    crate::support::golden::assert(&path, &generated);
    let schema: Value = serde_json::from_str(&generated).expect("the schema is JSON");
    jsonschema::meta::validate(&schema).expect("a valid schema");
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let dir = std::env::temp_dir();
    let read = |text: &str| capc_compiler::config::Config::parse(&dir, &dir.join("capc.toml"), text);
    for doc in ["README.md", "docs/configuration.md"] {
        let examples = capc_toml_examples(&std::fs::read_to_string(repo().join(doc)).expect(doc));
        assert!(!examples.is_empty(), "{doc} has a capc.toml example");
        for example in &examples {
            read(example).unwrap_or_else(|e| panic!("{doc}'s example does not read: {e}\n{example}"));
            let value: Value = toml::from_str(example).expect("TOML");
            assert_eq!(errors(&validator, &value), Vec::<String>::new(), "{doc}'s example breaks the schema");
        }
    }
    for bad in [
        "selct = []",
        "select = [\"unknown-feild\"]",
        "[rules]\nunknown-field = \"loud\"",
        "[rules]\nunknown-feild = \"off\"",
        "claude-code = \"2.1.400\"",
        "[per-path-ignores]\n\"x/\" = [\"nope\"]",
    ] {
        let value: Value = toml::from_str(bad).expect("TOML");
        assert!(!validator.is_valid(&value), "the schema accepts {bad}");
        assert!(read(bad).is_err(), "capc accepts {bad}");
    }
}

/// `schema/capc-session.schema.json` is what the session protocol's types generate
/// (`capc_runtime::protocol::schema`). It is a valid draft-7 schema, and it agrees with the
/// session on the golden transcripts (`runtime/tests/transcripts`) and the example of
/// docs/session.md: every response fits `#/definitions/response`, every request the session
/// answers fits `#/definitions/request`, and every request it refuses as malformed does not.
#[test]
fn committed_session_schema_is_the_generated_one_and_agrees_with_the_transcripts() {
    let path = repo().join("schema/capc-session.schema.json");
    let generated = capc_runtime::protocol::schema();
    crate::support::golden::assert(&path, &generated);
    let schema: Value = serde_json::from_str(&generated).expect("the schema is JSON");
    if let Err(e) = jsonschema::meta::validate(&schema) {
        panic!("the schema does not satisfy its meta-schema: {e}");
    }
    assert_eq!(schema["$schema"], "http://json-schema.org/draft-07/schema#");
    let part = |name: &str| {
        let mut part = schema.clone();
        part["oneOf"] = json!([{"$ref": format!("#/definitions/{name}")}]);
        jsonschema::validator_for(&part).expect("the schema compiles")
    };
    let (requests, responses) = (part("request"), part("response"));
    let mut transcripts: Vec<PathBuf> = std::fs::read_dir(repo().join("runtime/tests/transcripts"))
        .expect("runtime/tests/transcripts")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    transcripts.sort();
    transcripts.push(repo().join("docs/session.md"));
    let (mut failures, mut answered, mut refused) = (Vec::new(), 0, 0);
    for path in &transcripts {
        let text = std::fs::read_to_string(path).expect("read a transcript");
        let mut request: Option<&str> = None;
        for line in text.lines() {
            if let Some(sent) = line.strip_prefix("→ ") {
                request = Some(sent);
                continue;
            }
            let Some(answer) = line.strip_prefix("← ") else { continue };
            let name = file_name(path);
            let response: Value = serde_json::from_str(answer).expect("a response is JSON");
            let broken = errors(&responses, &response);
            if !broken.is_empty() {
                failures.push(format!("{name}: a response breaks the schema:\n  {}\n{answer}", broken.join("\n  ")));
            }
            let Some(sent) = request.take() else { continue };
            // A line that is not JSON fits no schema; the session says so with a parse_error.
            let Ok(sent) = serde_json::from_str::<Value>(sent) else { continue };
            let malformed =
                ["invalid_request", "unknown_type"].contains(&response["error"]["code"].as_str().unwrap_or(""));
            if response["ok"] == true {
                answered += 1;
                let errors = errors(&requests, &sent);
                if !errors.is_empty() {
                    failures.push(format!(
                        "{name}: an answered request breaks the schema:\n  {}\n{sent}",
                        errors.join("\n  ")
                    ));
                }
            } else if malformed {
                refused += 1;
                if requests.is_valid(&sent) {
                    failures
                        .push(format!("{name}: the schema accepts a request the session refuses:\n{sent}\n{answer}"));
                }
            }
        }
    }
    assert!(answered > 50 && refused >= 5, "too few requests checked: {answered} answered, {refused} refused");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

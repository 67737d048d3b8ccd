//! `capc serve` driven by real MCP clients: the official Python SDK (PyPI `mcp`, in
//! `runtime/tests/servers/.venv`, through `runtime/tests/serve_client.py`) over stdio and
//! Streamable HTTP, and the MCP Inspector CLI (npm `@modelcontextprotocol/inspector-cli`, in
//! `runtime/tests/servers/node_modules`). What they get is compared with what `capc session`
//! answers for the same lock and input, on real corpus commands and skills copied into a
//! temporary project. Raw JSON-RPC lines and HTTP requests test the bad input and the guards.

mod ask;

use crate::support::harness;
use libtest_mimic::Trial;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub(super) fn servers() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime/tests/servers")
}

pub(super) fn python() -> PathBuf {
    servers().join(".venv/bin/python")
}

fn inspector() -> PathBuf {
    servers().join("node_modules/@modelcontextprotocol/inspector-cli/build/index.js")
}

fn everything() -> PathBuf {
    servers().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
}

fn corpora() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora")
}

#[derive(Clone, Copy)]
enum Need {
    Sdk,
    Inspector,
    Everything,
    Corpora,
    Git,
}

fn missing(needs: &[Need]) -> Vec<harness::Missing> {
    needs
        .iter()
        .filter_map(|n| match n {
            Need::Sdk => (!python().is_file()).then(|| harness::Missing {
                label: "python-sdk",
                why: "the Python MCP SDK is not installed (python3 -m venv runtime/tests/servers/.venv && runtime/tests/servers/.venv/bin/pip install --no-deps -r runtime/tests/servers/requirements.txt)".to_string(),
            }),
            Need::Inspector => (!inspector().is_file()).then(|| harness::Missing {
                label: "inspector-cli",
                why: "the MCP Inspector CLI is not installed (npm ci --prefix runtime/tests/servers)".to_string(),
            }),
            Need::Everything => (!everything().is_file()).then(|| harness::Missing {
                label: "server-everything",
                why: "server-everything is not installed (npm ci --prefix runtime/tests/servers)".to_string(),
            }),
            Need::Corpora => (!corpora().join("obra__superpowers").is_dir()).then(|| harness::Missing {
                label: "corpora",
                why: "the shared corpora are not next to the repository (../shared/corpora)".to_string(),
            }),
            Need::Git => (Command::new("git").arg("--version").output().is_err())
                .then(|| harness::Missing { label: "git", why: "`git` is not on PATH".to_string() }),
        })
        .collect()
}

pub(crate) fn trials() -> Vec<Trial> {
    use Need::{Corpora, Everything, Git, Inspector, Sdk};
    let t = |name: &str, needs: &[Need], test: fn()| harness::trial(format!("live::{name}"), &missing(needs), test);
    vec![
        t(
            "serve_prompts_are_what_a_session_sends_for_real_commands_and_skills",
            &[Sdk, Corpora],
            prompts_match_session,
        ),
        t("serve_skill_tool_and_skill_files_over_stdio", &[Sdk, Corpora], skill_tool_and_resources),
        t("serve_runs_bang_injections_only_in_a_trusted_folder", &[Sdk, Corpora, Git], trust_decides_injections),
        t("serve_answers_bad_json_rpc_and_keeps_serving", &[], bad_input_keeps_serving),
        t("serve_over_http_with_a_token_and_origin_checks", &[Sdk, Corpora], http_guards),
        t("serve_with_the_mcp_inspector_cli", &[Inspector, Corpora], inspector_lists_and_gets),
        t("serve_watch_sends_list_changed", &[Sdk, Corpora], watch_sends_list_changed),
        t("serve_connect_is_a_gateway_to_the_locks_mcp_servers", &[Sdk, Everything], gateway),
        t("serve_http_stopped_by_sigterm_ends_its_servers_and_exits_143", &[Sdk], http_sigterm),
        t(
            "lock_connect_records_the_tool_surface_and_diff_weighs_its_changes",
            &[Sdk],
            super::surface::lock_connect_records_and_diff_weighs_the_surface,
        ),
        t(
            "serve_prompts_are_what_claude_code_2_1_332_sends_for_its_own_commands",
            &[Sdk, Corpora],
            claude_code_records,
        ),
        t("serve_asks_the_clients_user_once_or_for_the_session", &[Sdk], ask::asks_once_or_for_the_session),
        t("serve_always_saves_the_rule_where_claude_code_does", &[Sdk], ask::always_saves_the_rule),
        t("serve_no_decline_and_cancel_run_nothing", &[Sdk], ask::no_decline_and_cancel_run_nothing),
        t("serve_without_elicitation_refuses_and_names_the_rule", &[Sdk], ask::without_elicitation_refuses),
        t("serve_asks_before_a_gateway_call_no_rule_allows", &[Sdk, Everything], ask::asks_before_a_gateway_call),
        t("serve_without_a_lock_serves_a_plugin_folder_live", &[Sdk], serves_a_plugin_folder_live),
        t("serve_asks_claude_code_2_1_332_as_recorded", &[Sdk], ask::claude_code_answers_as_recorded),
        t("serve_asks_over_http_too", &[Sdk], ask::asks_over_http),
        t("serve_a_yes_allows_only_the_command_asked_about", &[Sdk], ask::a_yes_allows_only_that_command),
    ]
}

/// A project of real corpus files: three commit commands (with `!` injections and
/// allowed-tools), superpowers skills with supporting files, an example skill; locked.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let official = corpora().join("anthropics__claude-plugins-official/plugins");
    std::fs::create_dir_all(root.join(".claude/commands")).expect("mkdir");
    std::fs::create_dir_all(root.join(".claude/skills")).expect("mkdir");
    for command in ["commit.md", "commit-push-pr.md", "clean_gone.md"] {
        copy(&official.join("commit-commands/commands").join(command), &root.join(".claude/commands"));
    }
    for skill in ["brainstorming", "systematic-debugging"] {
        copy(&corpora().join("obra__superpowers/skills").join(skill), &root.join(".claude/skills"));
    }
    copy(&official.join("example-plugin/skills/example-skill"), &root.join(".claude/skills"));
    writable(root);
    lock(root);
    dir
}

/// `cp -r FROM TO`.
fn copy(from: &Path, to: &Path) {
    let status = Command::new("cp").arg("-r").arg(from).arg(to).status().expect("cp runs");
    assert!(status.success(), "copy {}", from.display());
}

/// The corpora are read-only; copies of them are the test's to edit.
fn writable(root: &Path) {
    Command::new("chmod").args(["-R", "u+w"]).arg(root).status().expect("chmod");
}

fn lock(root: &Path) {
    let out = Command::new(env!("CARGO_BIN_EXE_capc")).arg("lock").arg(root).output().expect("capc lock");
    assert!(out.status.success(), "capc lock: {}", String::from_utf8_lossy(&out.stderr));
}

/// Runs the Python SDK client with `plan` against `capc serve ARGS` over stdio.
fn sdk_stdio(plan: &Value, args: &[&str]) -> Vec<Value> {
    let mut command = Command::new(python());
    command.arg(client()).arg(plan.to_string()).arg("stdio").arg(env!("CARGO_BIN_EXE_capc")).arg("serve").args(args);
    answers(command)
}

/// Runs the Python SDK client with `plan` against `capc serve --http` at `url`. The client ends
/// its session with a DELETE when it closes, and the SDK warns on stderr unless the server
/// answers 200 or 204: the client must close without that warning.
fn sdk_http(plan: &Value, url: &str, token: Option<&str>) -> Vec<Value> {
    let mut command = Command::new(python());
    command.arg(client()).arg(plan.to_string()).arg("http").arg(url).args(token);
    let out = command.output().expect("the client runs");
    let (text, errors) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "client failed:\n{text}\n{errors}");
    assert!(
        !errors.contains("Session termination failed"),
        "the SDK's DELETE of its session was not answered 200 or 204:\n{errors}"
    );
    text.lines().map(|l| serde_json::from_str(l).expect("one JSON answer a line")).collect()
}

fn client() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime/tests/serve_client.py")
}

fn answers(mut command: Command) -> Vec<Value> {
    let out = command.output().expect("the client runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "client failed:\n{text}\n{}", String::from_utf8_lossy(&out.stderr));
    text.lines().map(|l| serde_json::from_str(l).expect("one JSON answer a line")).collect()
}

/// The user texts `capc session` records for `input`, or what it prints instead.
fn session_texts(root: &Path, input: &str, extra: &[&str]) -> (Vec<String>, Vec<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_capc"))
        .args(["session", "--json", "--lock"])
        .arg(root.join("capabilities.lock"))
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("capc session");
    let request = json!({"id": 1, "type": "turn", "input": input, "include": ["request"]});
    writeln!(child.stdin.take().expect("stdin"), "{request}").expect("write");
    let out = child.wait_with_output().expect("session ends");
    let answer: Value = serde_json::from_slice(&out.stdout).expect("one JSON answer");
    let strings =
        |v: &Value| v.as_array().expect("array").iter().map(|t| t.as_str().expect("text").to_string()).collect();
    (strings(&answer["request"]["texts"]), strings(&answer["request"]["stdout"]))
}

fn message_texts(result: &Value) -> Vec<String> {
    let messages = result["ok"]["messages"].as_array().unwrap_or_else(|| panic!("messages: {result}"));
    for m in messages {
        assert_eq!(m["role"], "user", "{m}");
    }
    messages.iter().map(|m| m["content"]["text"].as_str().expect("text").to_string()).collect()
}

fn prompts_match_session() {
    let dir = project();
    let root = dir.path().to_str().expect("utf-8");
    let inputs: [(&str, Value, &str); 5] = [
        ("commit", json!({"arguments": "fix the login bug"}), "/commit fix the login bug"),
        ("commit-push-pr", json!({}), "/commit-push-pr"),
        (
            "brainstorming",
            json!({"arguments": "a CLI for \"capc\" with 'quotes'"}),
            "/brainstorming a CLI for \"capc\" with 'quotes'",
        ),
        (
            "systematic-debugging",
            json!({"arguments": "flaky test\nsecond line"}),
            "/systematic-debugging flaky test\nsecond line",
        ),
        ("example-skill", json!({}), "/example-skill"),
    ];
    let mut plan = vec![json!({"op": "list_prompts"})];
    plan.extend(inputs.iter().map(|(name, args, _)| json!({"op": "get_prompt", "name": name, "arguments": args})));
    let answers = sdk_stdio(&json!(plan), &[root]);
    let names: Vec<&str> = answers[0]["ok"]["prompts"]
        .as_array()
        .expect("prompts")
        .iter()
        .map(|p| p["name"].as_str().expect("name"))
        .collect();
    for (name, _, _) in &inputs {
        assert!(names.contains(name), "{name} is served: {names:?}");
    }
    // Only the folder's declarations: no built-in command, no bundled skill.
    assert!(!names.contains(&"help") && !names.contains(&"init"), "{names:?}");
    let commit =
        answers[0]["ok"]["prompts"].as_array().expect("prompts").iter().find(|p| p["name"] == "commit").cloned();
    assert_eq!(commit.expect("commit")["arguments"][0]["name"], "arguments");
    for ((_, _, input), answer) in inputs.iter().zip(&answers[1..]) {
        let (texts, stdout) = session_texts(dir.path(), input, &[]);
        assert!(stdout.is_empty(), "{input} makes a request: {stdout:?}");
        assert_eq!(message_texts(answer), texts, "prompts/get for {input} differs from capc session");
    }
}

fn skill_tool_and_resources() {
    let dir = project();
    let root = dir.path().to_str().expect("utf-8");
    let skill_md = "skill://systematic-debugging/SKILL.md";
    let script = "skill://systematic-debugging/root-cause-tracing.md";
    let plan = json!([
        {"op": "list_tools"},
        {"op": "call_tool", "name": "Skill", "arguments": {"skill": "systematic-debugging", "args": "the flaky test"}},
        {"op": "call_tool", "name": "Skill", "arguments": {"skill": "systematic-debuging"}},
        {"op": "call_tool", "name": "Skil", "arguments": {"skill": "x"}},
        {"op": "get_prompt", "name": "comit", "arguments": {}},
        {"op": "list_resources"},
        {"op": "read_resource", "uri": skill_md},
        {"op": "read_resource", "uri": script},
        {"op": "read_resource", "uri": "skill://systematic-debugging/../../etc/passwd"},
    ]);
    let a = sdk_stdio(&plan, &[root]);
    let tools = a[0]["ok"]["tools"].as_array().expect("tools");
    assert_eq!(tools.len(), 1);
    let description = tools[0]["description"].as_str().expect("description");
    // The Skill listing a session sends, line for line.
    let listing = session_listing(dir.path());
    assert!(
        description.ends_with(&listing),
        "the description ends with the Skill listing:\n{description}\n---\n{listing}"
    );
    assert!(listing.contains("- systematic-debugging: "), "{listing}");
    let content = a[1]["ok"]["content"].as_array().expect("content");
    assert_eq!(content[0]["text"], "Launching skill: systematic-debugging", "{}", a[1]);
    let (texts, _) = session_texts(dir.path(), "/systematic-debugging the flaky test", &[]);
    assert_eq!(content[1]["text"].as_str(), Some(texts[1].as_str()), "the skill's prompt, as the session expands it");
    assert_eq!(a[2]["ok"]["isError"], true, "{}", a[2]);
    assert!(a[2]["ok"]["content"][0]["text"].as_str().unwrap_or("").contains("Unknown skill"), "{}", a[2]);
    assert!(a[3]["error"]["message"].as_str().unwrap_or("").contains("did you mean `Skill`"), "{}", a[3]);
    assert!(a[4]["error"]["message"].as_str().unwrap_or("").contains("did you mean `commit`"), "{}", a[4]);
    let resources = a[5]["ok"]["resources"].as_array().expect("resources");
    let uris: Vec<&str> = resources.iter().map(|r| r["uri"].as_str().expect("uri")).collect();
    assert!(uris.contains(&skill_md) && uris.contains(&script), "{uris:?}");
    let lock = std::fs::read_to_string(dir.path().join("capabilities.lock")).expect("lock");
    let listed = resources.iter().find(|r| r["uri"] == skill_md).expect("SKILL.md");
    let sha = listed["description"].as_str().expect("sha").trim_start_matches("sha256:");
    assert!(lock.contains(sha), "SKILL.md's hash is the lock's");
    let on_disk =
        std::fs::read_to_string(dir.path().join(".claude/skills/systematic-debugging/SKILL.md")).expect("read");
    assert_eq!(a[6]["ok"]["contents"][0]["text"].as_str(), Some(on_disk.as_str()));
    let supporting =
        std::fs::read_to_string(dir.path().join(".claude/skills/systematic-debugging/root-cause-tracing.md"))
            .expect("read");
    assert_eq!(a[7]["ok"]["contents"][0]["text"].as_str(), Some(supporting.as_str()), "{}", a[7]);
    assert!(a[8]["error"]["message"].as_str().unwrap_or("").contains("unknown resource"), "{}", a[8]);
    // A SKILL.md edited after the lock is refused, not served.
    std::fs::write(dir.path().join(".claude/skills/systematic-debugging/SKILL.md"), "changed").expect("write");
    let a = sdk_stdio(&json!([{"op": "read_resource", "uri": skill_md}]), &[root]);
    assert!(a[0]["error"]["message"].as_str().unwrap_or("").contains("changed since the lock"), "{}", a[0]);
}

fn session_listing(root: &Path) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_capc"))
        .args(["session", "--json", "--lock"])
        .arg(root.join("capabilities.lock"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("capc session");
    let request = json!({"id": 1, "type": "turn", "input": "hi", "include": ["skill_listing"]});
    writeln!(child.stdin.take().expect("stdin"), "{request}").expect("write");
    let answer: Value = serde_json::from_slice(&child.wait_with_output().expect("ends").stdout).expect("JSON");
    answer["skill_listing"].as_str().unwrap_or_else(|| panic!("{answer}")).to_string()
}

fn trust_decides_injections() {
    let dir = project();
    let root = dir.path();
    let git = |args: &[&str]| {
        let out = Command::new("git").args(args).current_dir(root).output().expect("git");
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    git(&["init", "-q", "-b", "main"]);
    git(&["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "start"]);
    let plan = json!([{"op": "get_prompt", "name": "commit", "arguments": {"arguments": "now"}}]);
    let path = root.to_str().expect("utf-8");
    let untrusted = message_texts(&sdk_stdio(&plan, &[path])[0]);
    assert!(untrusted[1].contains("[shell command not run: the folder is not trusted]"), "{}", untrusted[1]);
    let trusted = message_texts(&sdk_stdio(&plan, &[path, "--trust"])[0]);
    assert!(trusted[1].contains("On branch main"), "git status ran: {}", trusted[1]);
    let (texts, _) = session_texts(root, "/commit now", &["--trust"]);
    assert_eq!(trusted, texts, "the same texts as a trusted session");
}

/// Raw JSON-RPC lines on stdin: a malformed message gets an error, a line that is not JSON or
/// is over 16 MiB a parse error, and the next request is still answered.
fn bad_input_keeps_serving() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join(".claude/commands")).expect("mkdir");
    std::fs::write(dir.path().join(".claude/commands/hello.md"), "Say hello to $ARGUMENTS.\n").expect("write");
    std::fs::create_dir_all(dir.path().join(".claude/skills/greet")).expect("mkdir");
    std::fs::write(dir.path().join(".claude/skills/greet/SKILL.md"), "---\ndescription: Greets\n---\nGreet them.\n")
        .expect("write");
    lock(dir.path());
    let mut child = Command::new(env!("CARGO_BIN_EXE_capc"))
        .arg("serve")
        .arg(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("capc serve");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let mut send = |text: &str| {
        stdin.write_all(text.as_bytes()).expect("write");
        stdin.write_all(b"\n").expect("write");
        stdin.flush().expect("flush");
    };
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}});
    send(&init.to_string());
    let reply: Value = serde_json::from_str(&lines.next().expect("reply").expect("line")).expect("JSON");
    assert_eq!(reply["result"]["serverInfo"]["name"], "capc", "{reply}");
    send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
    // JSON that is not a JSON-RPC message gets Invalid Request.
    send(r#"{"jsonrpc":"2.0","id":7,"method":42}"#);
    let reply: Value = serde_json::from_str(&lines.next().expect("reply").expect("line")).expect("JSON");
    assert_eq!(reply["error"]["code"], -32600, "an error for a malformed message: {reply}");
    // A line that is not JSON gets a parse error (id null: it has none to read).
    send("{this is not json");
    let reply: Value = serde_json::from_str(&lines.next().expect("reply").expect("line")).expect("JSON");
    assert_eq!(reply["error"]["code"], -32700, "{reply}");
    assert_eq!(reply["id"], Value::Null, "{reply}");
    // Blank lines are skipped.
    send("");
    // 17 MiB in one message: over the cap, answered without being held, the server still up.
    let huge = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"prompts/get\",\"params\":{{\"name\":\"{}\"}}}}",
        "x".repeat(17 << 20)
    );
    send(&huge);
    let reply: Value = serde_json::from_str(&lines.next().expect("reply").expect("line")).expect("JSON");
    assert_eq!(reply["error"]["code"], -32700, "{reply}");
    assert!(reply["error"]["message"].as_str().unwrap_or("").contains("at most 16777216 bytes"), "{reply}");
    send(&json!({"jsonrpc": "2.0", "id": 3, "method": "prompts/get", "params": {"name": "helo"}}).to_string());
    let reply: Value = serde_json::from_str(&lines.next().expect("reply").expect("line")).expect("JSON");
    assert_eq!(reply["id"], 3, "{reply}");
    assert!(reply["error"]["message"].as_str().unwrap_or("").contains("did you mean `hello`"), "{reply}");
    send(&json!({"jsonrpc": "2.0", "id": 4, "method": "prompts/get", "params": {"name": "hello", "arguments": {"arguments": "you"}}}).to_string());
    let reply: Value = serde_json::from_str(&lines.next().expect("reply").expect("line")).expect("JSON");
    assert!(
        reply["result"]["messages"][1]["content"]["text"].as_str().unwrap_or("").contains("Say hello to you."),
        "{reply}"
    );
    // The Skills extension: the skill, its SKILL.md digest the lock's.
    send(&json!({"jsonrpc": "2.0", "id": 6, "method": "skills/list", "params": {}}).to_string());
    let reply: Value = serde_json::from_str(&lines.next().expect("reply").expect("line")).expect("JSON");
    let skill = &reply["result"]["skills"][0];
    assert_eq!(skill["uri"], "skill://greet/SKILL.md", "{reply}");
    assert_eq!(skill["frontmatter"]["description"], "Greets", "{reply}");
    let lock = std::fs::read_to_string(dir.path().join("capabilities.lock")).expect("lock");
    let digest = skill["resources"][0]["digest"].as_str().unwrap_or_default();
    assert!(lock.contains(digest.trim_start_matches("sha256:")) && digest.len() == 71, "{reply}");
    send(&json!({"jsonrpc": "2.0", "id": 5, "method": "no/such", "params": {}}).to_string());
    let reply: Value = serde_json::from_str(&lines.next().expect("reply").expect("line")).expect("JSON");
    assert_eq!(reply["error"]["code"], -32601, "{reply}");
    drop(stdin);
    let status = child.wait().expect("capc ends when stdin closes");
    assert!(status.success(), "{status}");
}

/// `capc serve --http`: the server, and the URL it listens on.
fn serve_http(root: &Path, extra: &[&str], envs: &[(&str, &str)]) -> (crate::support::serve::Serving, String) {
    crate::support::serve::http(root, extra, envs)
}

/// One raw HTTP/1.1 POST; the status code.
fn post(url: &str, headers: &[&str]) -> u16 {
    let address = url.trim_start_matches("http://").trim_end_matches("/mcp");
    let mut stream = std::net::TcpStream::connect(address).expect("connect");
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}})
    .to_string();
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for h in headers {
        request.push_str(h);
        request.push_str("\r\n");
    }
    request.push_str("\r\n");
    request.push_str(&body);
    stream.write_all(request.as_bytes()).expect("send");
    let mut status = [0u8; 12];
    stream.read_exact(&mut status).expect("status line");
    String::from_utf8_lossy(&status[9..12]).parse().expect("a status code")
}

fn http_guards() {
    let dir = project();
    let (server, url) = serve_http(dir.path(), &["--token-env", "CAPC_TEST_TOKEN"], &[("CAPC_TEST_TOKEN", "s3cret")]);
    let plan = json!([
        {"op": "list_prompts"},
        {"op": "get_prompt", "name": "brainstorming", "arguments": {"arguments": "over http"}},
    ]);
    let a = sdk_http(&plan, &url, Some("s3cret"));
    assert!(a[0]["ok"]["prompts"].as_array().is_some_and(|p| !p.is_empty()), "{}", a[0]);
    let (texts, _) = session_texts(dir.path(), "/brainstorming over http", &[]);
    assert_eq!(message_texts(&a[1]), texts);
    assert_eq!(post(&url, &[]), 401, "no token");
    assert_eq!(post(&url, &["Authorization: Bearer wrong"]), 401, "a wrong token");
    assert_eq!(post(&url, &["Authorization: Bearer s3cret", "Origin: https://evil.example"]), 403, "a foreign page");
    assert_eq!(post(&url, &["Authorization: Bearer s3cret", "Origin: http://localhost:3000"]), 200, "a local page");
    // A client that goes away mid-request leaves the server serving the next one.
    let address = url.trim_start_matches("http://").trim_end_matches("/mcp");
    let mut cut = std::net::TcpStream::connect(address).expect("connect");
    cut.write_all(b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":").expect("send");
    drop(cut);
    assert_eq!(post(&url, &["Authorization: Bearer s3cret"]), 200, "still serving");
    drop(server);
    // Not on a non-loopback address unless told.
    let out = Command::new(env!("CARGO_BIN_EXE_capc"))
        .arg("serve")
        .arg(dir.path())
        .args(["--http", "0.0.0.0:0"])
        .output()
        .expect("capc");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--allow-remote"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn inspector_lists_and_gets() {
    let dir = project();
    let run = |args: &[&str]| -> Value {
        // The CLI finds its own package.json relative to the working folder: run it from its own.
        let out = Command::new("node")
            .current_dir(inspector().parent().expect("build folder"))
            .arg(inspector())
            .arg(env!("CARGO_BIN_EXE_capc"))
            .arg("serve")
            .arg(dir.path())
            .args(args)
            .output()
            .expect("the inspector runs");
        assert!(out.status.success(), "inspector {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).expect("JSON")
    };
    let prompts = run(&["--method", "prompts/list"]);
    assert!(prompts["prompts"].as_array().expect("prompts").iter().any(|p| p["name"] == "commit"), "{prompts}");
    let tools = run(&["--method", "tools/list"]);
    assert_eq!(tools["tools"][0]["name"], "Skill", "{tools}");
    let got = run(&["--method", "prompts/get", "--prompt-name", "brainstorming", "--prompt-args", "arguments=a plan"]);
    let (texts, _) = session_texts(dir.path(), "/brainstorming a plan", &[]);
    let messages: Vec<&str> = got["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|m| m["content"]["text"].as_str().expect("text"))
        .collect();
    assert_eq!(messages, texts);
}

fn watch_sends_list_changed() {
    let dir = project();
    let root = dir.path().to_str().expect("utf-8");
    let lock_before = std::fs::read(dir.path().join("capabilities.lock")).expect("lock");
    let new_skill = dir.path().join(".claude/skills/fresh-skill");
    std::fs::create_dir_all(&new_skill).expect("mkdir");
    let plan = json!([
        {"op": "write", "path": new_skill.join("SKILL.md"), "text": "---\nname: fresh-skill\ndescription: Added while served\n---\nFresh body.\n"},
        {"op": "wait", "kinds": ["prompts", "resources"], "timeout_ms": 60000},
        {"op": "get_prompt", "name": "fresh-skill", "arguments": {}},
        {"op": "write", "path": dir.path().join(".claude/skills/systematic-debugging/notes.md"), "text": "a new supporting file\n"},
        {"op": "wait", "kinds": ["resources"], "timeout_ms": 60000},
    ]);
    let a = sdk_stdio(&plan, &[root, "--watch"]);
    let kinds = &a[1]["ok"]["kinds"];
    assert!(
        kinds.as_array().is_some_and(|k| k.contains(&json!("prompts")) && k.contains(&json!("resources"))),
        "{}",
        a[1]
    );
    // How soon it arrives is a benchmark's business (bench/serve.py), not a test's: the wait
    // above only bounds a hang.
    assert!(a[1]["ok"]["ms"].as_u64().is_some(), "a notification arrived: {}", a[1]);
    assert!(message_texts(&a[2])[1].contains("Fresh body."), "{}", a[2]);
    // A supporting file changes the resources only.
    assert_eq!(a[4]["ok"]["kinds"], json!(["resources"]), "{}", a[4]);
    assert_eq!(
        std::fs::read(dir.path().join("capabilities.lock")).expect("lock"),
        lock_before,
        "the lock is not rewritten"
    );
}

/// `capc serve --connect` over a project whose .mcp.json names server-everything and the
/// Python SDK's `dynamic.py` (tools that come and go), the latter started through `sh` so the
/// test can kill it: tools under Claude Code's names, the permission rules, prompts passed
/// on, an upstream list change forwarded, a killed server restarted and its lists refreshed.
fn gateway() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let pidfile = root.join("dynamic.pid");
    let mcp = json!({"mcpServers": {
        "everything": {"command": "node", "args": [everything(), "stdio"]},
        "dynamic": {"command": "sh", "args": ["-c", format!(
            "echo $$ > '{}'; exec '{}' '{}'", pidfile.display(), python().display(), servers().join("dynamic.py").display()
        )]},
    }});
    std::fs::write(root.join(".mcp.json"), mcp.to_string()).expect("write");
    std::fs::create_dir_all(root.join(".claude/commands")).expect("mkdir");
    std::fs::write(root.join(".claude/commands/hi.md"), "Say hi to $ARGUMENTS.\n").expect("write");
    let settings = json!({"permissions": {
        "allow": ["mcp__dynamic", "mcp__everything__echo"],
        "deny": ["mcp__everything__get-env"],
    }});
    std::fs::write(root.join(".claude/settings.json"), settings.to_string()).expect("write");
    lock(root);
    let path = root.to_str().expect("utf-8");
    let ready =
        json!({"op": "until_tools", "present": ["mcp__everything__echo", "mcp__dynamic__hello"], "timeout_ms": 20000});
    // An untrusted folder starts none of its own servers: only capc's tool.
    let a = sdk_stdio(&json!([{"op": "list_tools"}]), &[path, "--connect"]);
    assert_eq!(a[0]["ok"]["tools"].as_array().map(Vec::len), Some(1), "{}", a[0]);
    // 14 + 51 characters: one over what MCP clients accept.
    let long = "a".repeat(51);
    let plan = json!([
        ready,
        {"op": "list_prompts"},
        {"op": "call_tool", "name": "mcp__everything__echo", "arguments": {"message": "through capc"}},
        {"op": "call_tool", "name": "mcp__everything__get-env", "arguments": {}},
        {"op": "call_tool", "name": "mcp__everything__get-sum", "arguments": {"a": 1, "b": 2}},
        {"op": "call_tool", "name": "mcp__everything__ech", "arguments": {}},
        {"op": "get_prompt", "name": "mcp__everything__args-prompt", "arguments": {"city": "Paris"}},
        {"op": "mark"},
        {"op": "call_tool", "name": "mcp__dynamic__add_tool", "arguments": {"name": "fresh"}},
        {"op": "wait", "kinds": ["tools"], "timeout_ms": 5000},
        {"op": "until_tools", "present": ["mcp__dynamic__fresh"], "timeout_ms": 1000},
        {"op": "kill", "pidfile": pidfile},
        {"op": "wait", "kinds": ["tools"], "timeout_ms": 20000},
        {"op": "until_tools", "present": ["mcp__dynamic__hello"], "absent": ["mcp__dynamic__fresh"], "timeout_ms": 20000},
        {"op": "call_tool", "name": "mcp__dynamic__hello", "arguments": {}},
        {"op": "call_tool", "name": "mcp__dynamic__add_tool", "arguments": {"name": long}},
        {"op": "call_tool", "name": "mcp__dynamic__add_tool", "arguments": {"name": "second"}},
        {"op": "until_tools", "present": ["mcp__dynamic__second"], "absent": [format!("mcp__dynamic__{long}")], "timeout_ms": 5000},
    ]);
    let a = sdk_stdio(&plan, &[path, "--connect", "--trust"]);
    assert_eq!(a[0]["ok"]["matched"], true, "both servers' tools are served: {}", a[0]);
    let tools: Vec<&str> =
        a[0]["ok"]["tools"].as_array().expect("tools").iter().map(|t| t.as_str().expect("name")).collect();
    assert!(!tools.contains(&"mcp__everything__get-env"), "a denied tool is not listed: {tools:?}");
    assert!(tools.iter().all(|t| t.len() <= 64), "{tools:?}");
    let prompts: Vec<&str> =
        a[1]["ok"]["prompts"].as_array().expect("prompts").iter().map(|p| p["name"].as_str().expect("name")).collect();
    assert!(prompts.contains(&"hi") && prompts.contains(&"mcp__everything__args-prompt"), "{prompts:?}");
    assert_eq!(a[2]["ok"]["content"][0]["text"], "Echo: through capc", "{}", a[2]);
    assert_eq!(a[2]["ok"]["structuredContent"]["permission"]["rule"], "mcp__everything__echo (.claude/settings.json)");
    let denied = a[3]["ok"]["content"][0]["text"].as_str().unwrap_or_default();
    assert_eq!(a[3]["ok"]["isError"], true, "{}", a[3]);
    assert!(denied.contains("denied by mcp__everything__get-env (.claude/settings.json)"), "{denied}");
    // No rule: Claude Code would ask; a headless run cannot.
    assert_eq!(a[4]["ok"]["isError"], true, "{}", a[4]);
    assert_eq!(a[4]["ok"]["structuredContent"]["permission"]["behavior"], "ask", "{}", a[4]);
    assert!(
        a[5]["error"]["message"].as_str().unwrap_or("").contains("did you mean `mcp__everything__echo`"),
        "{}",
        a[5]
    );
    assert!(message_texts(&a[6]).iter().any(|t| t.contains("Paris")), "the server's own prompt: {}", a[6]);
    assert!(a[9]["ok"]["kinds"].as_array().is_some_and(|k| k.contains(&json!("tools"))), "forwarded: {}", a[9]);
    assert_eq!(a[10]["ok"]["matched"], true, "{}", a[10]);
    assert!(a[12]["ok"]["kinds"].as_array().is_some_and(|k| k.contains(&json!("tools"))), "reconnected: {}", a[12]);
    assert_eq!(a[13]["ok"]["matched"], true, "the restarted server's list: {}", a[13]);
    assert_eq!(a[14]["ok"]["content"][0]["text"], "hello", "{}", a[14]);
    assert_eq!(a[17]["ok"]["matched"], true, "an over-long name is left out (and reported): {}", a[17]);
}

/// `capc serve --http --connect` stopped by SIGTERM ends the servers it started and exits as
/// `capc session` does (143), so a supervisor sees that it was stopped.
fn http_sigterm() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let pidfile = root.join("dynamic.pid");
    let mcp = json!({"mcpServers": {"dynamic": {"command": "sh", "args": ["-c", format!(
        "echo $$ > '{}'; exec '{}' '{}'", pidfile.display(), python().display(), servers().join("dynamic.py").display()
    )]}}});
    std::fs::write(root.join(".mcp.json"), mcp.to_string()).expect("write");
    lock(root);
    let (mut server, _url) = serve_http(root, &["--connect", "--trust"], &[]);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let upstream = loop {
        if let Some(pid) = std::fs::read_to_string(&pidfile).ok().and_then(|p| p.trim().parse::<u32>().ok()) {
            break pid;
        }
        assert!(std::time::Instant::now() < deadline, "the upstream server never started");
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let alive = |pid: u32| Command::new("kill").args(["-0", &pid.to_string()]).status().is_ok_and(|s| s.success());
    assert!(alive(upstream), "the upstream server runs while capc serves");
    let term = Command::new("kill").args(["-TERM", &server.0.id().to_string()]).status().expect("kill");
    assert!(term.success());
    let status = server.0.wait().expect("capc ends");
    assert_eq!(status.code(), Some(143), "{status}");
    // capc reaps the server before it exits, so it is gone now; the wait only bounds a hang.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while alive(upstream) {
        assert!(std::time::Instant::now() < deadline, "the upstream server {upstream} outlived capc serve");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// The records of `tests/oracle/serve-mcp.py`: Claude Code with `--mcp-config` naming
/// `capc serve`, typed `/mcp__capc__NAME ARGS`, sent its own wrapper block and then exactly the
/// texts it sends for `/NAME ARGS` in the same folder; and it offered capc's Skill tool. Today's
/// `capc serve` must still give those texts.
fn claude_code_records() {
    let records = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/serve");
    let read = |p: &Path| -> Value {
        serde_json::from_str(&std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
            .expect("JSON")
    };
    let cases = read(&records.join("cases.json"));
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("tree");
    copy(&records.join("tree"), &root);
    for (from, to) in cases["copies"].as_object().expect("copies") {
        let to = root.join(to.as_str().expect("path"));
        std::fs::create_dir_all(to.parent().expect("parent")).expect("mkdir");
        copy(&corpora().join(from), &to);
    }
    writable(&root);
    lock(&root);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&records)
        .expect("records")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .filter(|p| !["cases.json", "tools-hello.json"].iter().any(|n| p.ends_with(n)))
        .collect();
    files.sort();
    assert_eq!(files.len(), cases["inputs"].as_array().map_or(0, Vec::len), "one record per input");
    let recorded: Vec<Value> = files.iter().map(|p| read(p)).collect();
    let plan: Vec<Value> = recorded
        .iter()
        .map(|r| json!({"op": "get_prompt", "name": r["name"], "arguments": {"arguments": r["arguments"]}}))
        .collect();
    let answers = sdk_stdio(&json!(plan), &[root.to_str().expect("utf-8")]);
    let tree = root.canonicalize().expect("canonical").to_string_lossy().into_owned();
    for (r, answer) in recorded.iter().zip(&answers) {
        let (name, arguments) = (r["name"].as_str().expect("name"), r["arguments"].as_str().expect("arguments"));
        let strings = |v: &Value| -> Vec<String> {
            v.as_array().expect("texts").iter().map(|t| t.as_str().expect("text").to_string()).collect()
        };
        let (native, served) = (strings(&r["native"]["texts"]), strings(&r["mcp"]["texts"]));
        let wrapper = format!(
            "<command-message>mcp__capc__{name}</command-message>\n<command-name>/mcp__capc__{name}</command-name>\n\
             <command-args>{arguments}</command-args>\n"
        );
        assert_eq!(served.first(), Some(&wrapper), "Claude Code's own block for the MCP prompt");
        assert_eq!(served[1..], native[..], "/mcp__capc__{name} {arguments}: Claude Code sent other texts");
        let now: Vec<String> = message_texts(answer).iter().map(|t| t.replace(&tree, "<TREE>")).collect();
        assert_eq!(now, native, "prompts/get {name} {arguments:?} is no longer what Claude Code sends");
    }
    let hello = read(&records.join("tools-hello.json"));
    let deferred: Vec<&str> =
        hello["mcp"]["deferred"].as_array().expect("deferred").iter().filter_map(Value::as_str).collect();
    assert!(deferred.contains(&"mcp__capc__Skill"), "Claude Code offers capc's Skill tool: {deferred:?}");
    assert_eq!(
        hello["mcp"]["init"]["mcp_servers"][0],
        json!({"name": "capc", "status": "connected", "source": "dynamic"})
    );
}

/// `capc serve --plugin-dir DIR` in a plugin's own folder, which has no lock: the plugin is
/// served as Claude Code loads it, a save is announced with `list_changed` and served, and no
/// lock is written.
fn serves_a_plugin_folder_live() {
    let dir = tempfile::tempdir().expect("tempdir");
    let plugin = dir.path();
    std::fs::create_dir_all(plugin.join(".claude-plugin")).expect("mkdir");
    std::fs::create_dir_all(plugin.join("skills/hello")).expect("mkdir");
    std::fs::write(plugin.join(".claude-plugin/plugin.json"), r#"{"name": "acme", "version": "0.1.0"}"#)
        .expect("write");
    std::fs::write(plugin.join("skills/hello/SKILL.md"), "---\ndescription: Say hello\n---\nHello $ARGUMENTS.\n")
        .expect("write");
    std::fs::create_dir_all(plugin.join("skills/bye")).expect("mkdir");
    let path = plugin.to_str().expect("utf-8");
    let plan = json!([
        {"op": "list_prompts"},
        {"op": "get_prompt", "name": "acme:hello", "arguments": {"arguments": "world"}},
        {"op": "write", "path": plugin.join("skills/bye/SKILL.md"), "text": "---\ndescription: Say bye\n---\nBye $ARGUMENTS.\n"},
        {"op": "wait", "kinds": ["prompts"], "timeout_ms": 5000},
        {"op": "get_prompt", "name": "acme:bye", "arguments": {"arguments": "now"}},
        {"op": "write", "path": plugin.join("skills/hello/SKILL.md"), "text": "---\ndescription: Say hello\n---\nHi there $ARGUMENTS.\n"},
        {"op": "wait", "kinds": ["resources"], "timeout_ms": 5000},
        {"op": "get_prompt", "name": "acme:hello", "arguments": {"arguments": "again"}},
    ]);
    let a = sdk_stdio(&plan, &[path, "--plugin-dir", path]);
    let names: Vec<&str> =
        a[0]["ok"]["prompts"].as_array().expect("prompts").iter().map(|p| p["name"].as_str().expect("name")).collect();
    assert_eq!(names, ["acme:hello"], "{}", a[0]);
    assert!(message_texts(&a[1])[1].ends_with("Hello world.\n"), "{}", a[1]);
    assert!(a[3]["ok"]["kinds"].as_array().is_some_and(|k| k.contains(&json!("prompts"))), "{}", a[3]);
    assert!(message_texts(&a[4])[1].ends_with("Bye now.\n"), "{}", a[4]);
    assert!(a[6]["ok"]["kinds"].as_array().is_some_and(|k| !k.is_empty()), "{}", a[6]);
    assert!(message_texts(&a[7])[1].ends_with("Hi there again.\n"), "the saved body is served: {}", a[7]);
    assert!(!plugin.join("capabilities.lock").exists(), "no lock is written");
}

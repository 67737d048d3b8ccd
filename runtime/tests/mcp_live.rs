//! Live MCP connections with rmcp against real servers nobody here wrote —
//! `@modelcontextprotocol/server-everything` (npm, stdio and Streamable HTTP) and a server on the
//! PyPI `mcp` package (`tests/servers/dynamic.py`) — and against servers that fail the ways
//! real ones do (`tests/servers/faulty.cjs`, plain JSON-RPC lines, no SDK). Every server
//! listens on 127.0.0.1 only.
//!
//! `.ci/run` installs the test servers. This target has its own harness (libtest-mimic,
//! `harness = false`) so that a test whose server or tool is absent is reported as *ignored*,
//! with what is missing in brackets, and counted in cargo's summary as ignored, never as
//! passed; with `CI` set, it fails instead. `--include-ignored` runs them anyway (and they
//! fail, saying what to install).

use capc_compiler::model::{McpServer, Scope, Transport};
use capc_runtime::batch::{Batcher, Shared, Versioned, WINDOW};
use capc_runtime::connect::{Backoff, Negotiation, Servers, Settings};
use capc_runtime::launch::prepare;
use capc_runtime::mcp::{McpState, Status};
use libtest_mimic::{Arguments, Trial};
use std::future::Future;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

// The harness `tests/` shares: a missing server is reported ignored, failed under `CI`.
#[path = "../../tests/support/harness.rs"]
mod harness;

fn servers_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/servers")
}

/// What a test needs besides the code under test.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Need {
    /// `node` on PATH (faulty.cjs and server-everything run on it).
    Node,
    /// server-everything, installed by npm.
    Everything,
    /// The Python venv with PyPI `mcp`.
    Python,
}

impl Need {
    /// A short name for the test line: `test [missing server-everything] name ... ignored`.
    fn label(self) -> &'static str {
        match self {
            Need::Node => "node",
            Need::Everything => "server-everything",
            Need::Python => "python-venv",
        }
    }

    /// `None` when present, else what is missing and how to install it.
    fn missing(self) -> Option<String> {
        match self {
            Need::Node => (!on_path("node")).then(|| "`node` is not on PATH (install Node.js)".to_string()),
            Need::Everything => (!everything_path().is_file()).then(|| {
                "server-everything is not installed (npm ci --prefix runtime/tests/servers)".to_string()
            }),
            Need::Python => (!python_path().is_file()).then(|| {
                "the Python test server is not installed (python3 -m venv runtime/tests/servers/.venv && runtime/tests/servers/.venv/bin/pip install --no-deps -r runtime/tests/servers/requirements.txt)".to_string()
            }),
        }
    }
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
}

fn everything_path() -> PathBuf {
    servers_dir().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
}

fn python_path() -> PathBuf {
    servers_dir().join(".venv/bin/python")
}

fn everything() -> String {
    everything_path().to_string_lossy().into_owned()
}

fn python() -> String {
    python_path().to_string_lossy().into_owned()
}

/// What of `needs` is absent, as the harness reports it.
fn absent(needs: &[Need]) -> Vec<harness::Missing> {
    needs.iter().filter_map(|n| n.missing().map(|why| harness::Missing { label: n.label(), why })).collect()
}

/// A test on a runtime like `#[tokio::test(flavor = "multi_thread", worker_threads = 2)]`'s,
/// ignored (or, under `CI`, failed) when something it needs is missing.
fn trial<F: Future<Output = ()> + 'static>(name: &str, needs: &[Need], test: fn() -> F) -> Trial {
    harness::trial(name, &absent(needs), move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a tokio runtime");
        runtime.block_on(test());
    })
}

fn main() {
    use Need::{Everything, Node, Python};
    let args = Arguments::from_args();
    let trials = vec![
        trial("server_everything_connects_and_lists", &[Node, Everything], server_everything_connects_and_lists),
        trial(
            "servers_that_fail_say_why_and_the_others_connect",
            &[Node],
            servers_that_fail_say_why_and_the_others_connect,
        ),
        trial(
            "a_stdio_server_that_crashes_mid_session_is_failed_with_its_exit_and_stderr",
            &[Node],
            a_stdio_server_that_crashes_mid_session_is_failed_with_its_exit_and_stderr,
        ),
        trial(
            "malformed_lines_invalid_schemas_and_huge_descriptions",
            &[Node],
            malformed_lines_invalid_schemas_and_huge_descriptions,
        ),
        trial(
            "a_list_changed_flood_is_at_most_one_state_change_per_window",
            &[Node],
            a_list_changed_flood_is_at_most_one_state_change_per_window,
        ),
        trial(
            "tool_calls_are_cut_at_100000_characters_and_time_out",
            &[Node],
            tool_calls_are_cut_at_100000_characters_and_time_out,
        ),
        trial(
            "server_everything_over_streamable_http_survives_a_restart",
            &[Node, Everything],
            server_everything_over_streamable_http_survives_a_restart,
        ),
        trial(
            "a_failed_call_makes_a_restarted_server_reconnect_without_waiting_for_the_ping",
            &[Node, Everything],
            a_failed_call_makes_a_restarted_server_reconnect_without_waiting_for_the_ping,
        ),
        trial(
            "a_remote_server_that_stays_down_is_retried_with_back_off_then_failed",
            &[Node, Everything],
            a_remote_server_that_stays_down_is_retried_with_back_off_then_failed,
        ),
        trial(
            "a_python_mcp_server_adds_and_removes_tools_in_both_protocols",
            &[Python],
            a_python_mcp_server_adds_and_removes_tools_in_both_protocols,
        ),
        trial("no_server_process_outlives_the_session", &[Node], no_server_process_outlives_the_session),
        trial(
            "a_headers_helper_sets_headers_at_each_connection",
            &[],
            a_headers_helper_sets_headers_at_each_connection,
        ),
    ];
    absent(&[Node, Everything, Python]).iter().for_each(harness::note);
    libtest_mimic::run(&args, trials).exit();
}

fn faulty() -> String {
    servers_dir().join("faulty.cjs").to_string_lossy().into_owned()
}

fn stdio(name: &str, command: &str, args: &[&str]) -> McpServer {
    McpServer {
        name: name.into(),
        normalized: name.into(),
        scope: Scope::User,
        transport: Transport::Stdio,
        path: ".claude.json".into(),
        command: Some(command.into()),
        args: args.iter().map(|a| a.to_string()).collect(),
        ..McpServer::default()
    }
}

fn http(name: &str, url: &str) -> McpServer {
    McpServer { transport: Transport::Http, command: None, url: Some(url.into()), ..stdio(name, "", &[]) }
}

/// Connections to `entries`, feeding one batched state.
struct Harness {
    shared: Shared,
    servers: Servers,
}

fn start(entries: &[McpServer], settings: Settings) -> Harness {
    let mut lock = capc_compiler::lock::resolve::empty_lock();
    lock.mcp_servers = entries.to_vec();
    let shared = Arc::new(Mutex::new(Versioned { state: McpState::from_lock(&lock), ..Versioned::default() }));
    let batcher = Batcher::spawn(shared.clone(), WINDOW);
    let launches = entries
        .iter()
        .map(|e| (e.name.clone(), prepare(e, |name| std::env::var(name).ok()).expect("prepares")))
        .collect();
    Harness { shared, servers: Servers::start(launches, settings, &batcher) }
}

/// What the state says of one server.
#[derive(Debug, Clone)]
struct Seen {
    status: Status,
    protocol: Option<String>,
    error: Option<String>,
    tools: Vec<String>,
}

impl Harness {
    fn seen(&self, name: &str) -> Seen {
        let guard = self.shared.lock().expect("state");
        let s = guard.state.servers().find(|s| s.name == name).expect("server in state");
        Seen {
            status: s.status,
            protocol: s.protocol.clone(),
            error: s.error.clone(),
            tools: s.tools.iter().map(|t| t.name.to_string()).collect(),
        }
    }

    /// Waits (up to `within`) until `name`'s state satisfies `test`; the last state either way.
    async fn until(&self, name: &str, within: Duration, test: impl Fn(&Seen) -> bool) -> Seen {
        let deadline = Instant::now() + within;
        loop {
            let seen = self.seen(name);
            if test(&seen) || Instant::now() > deadline {
                return seen;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Waits (up to `within`) until `name` is connected, and fails the test when it is not.
    async fn connected(&self, name: &str, within: Duration) -> Seen {
        let seen = self.until(name, within, |s| s.status == Status::Connected).await;
        assert_eq!(seen.status, Status::Connected, "{name}: {seen:?}");
        seen
    }

    /// Calls a tool through the session's caller (which blocks, so off the async threads).
    async fn call(&self, server: &str, tool: &str, arguments: serde_json::Value) -> String {
        let caller = self.servers.caller(tokio::runtime::Handle::current());
        let (server, tool) = (server.to_string(), tool.to_string());
        let arguments = arguments.as_object().cloned();
        tokio::task::spawn_blocking(move || caller.call(&server, &tool, arguments, Duration::from_secs(10)))
            .await
            .expect("joins")
            .expect("the call succeeds")
            .text
    }
}

fn quick() -> Settings {
    Settings { connect_timeout: Duration::from_secs(20), ..Settings::default() }
}

async fn server_everything_connects_and_lists() {
    let script = everything();
    let h = start(&[stdio("everything", "node", &[&script, "stdio"])], quick());
    // It announces more tools right after `initialized`; the re-list follows.
    let seen = h.until("everything", Duration::from_secs(20), |s| s.tools.len() >= 10).await;
    assert_eq!(seen.status, Status::Connected, "{:?}", seen.error);
    assert!(seen.tools.contains(&"mcp__everything__echo".to_string()), "{:?}", seen.tools);
    // `auto` negotiation falls back to `initialize`: the TypeScript SDK 1.x has no discover.
    assert_eq!(seen.protocol.as_deref(), Some("2025-11-25"));
    {
        let guard = h.shared.lock().expect("state");
        let names: Vec<&str> = guard.state.tools().iter().map(|t| &*t.name).collect();
        assert!(names.windows(2).all(|w| w[0] <= w[1]), "tools are kept sorted");
        let server = guard.state.servers().next().expect("one server");
        assert!(!server.prompts.is_empty(), "it offers prompts");
        assert!(server.prompts.iter().all(|p| p.starts_with("mcp__everything__")), "{:?}", server.prompts);
    }
    assert_eq!(h.call("everything", "echo", serde_json::json!({"message": "hi"})).await, "Echo: hi");
    h.servers.shutdown().await;
}

async fn servers_that_fail_say_why_and_the_others_connect() {
    let entries = [
        stdio("missing", "capc-no-such-mcp-server", &[]),
        stdio("exits", "sh", &["-c", "echo 'fatal: missing API key' >&2; exit 1"]),
        stdio("hangs", "sh", &["-c", "sleep 30"]),
        stdio("healthy", "node", &[&faulty()]),
    ];
    let settings = Settings { connect_timeout: Duration::from_secs(3), local_window: 4, ..Settings::default() };
    let h = start(&entries, settings);
    let failed = |s: &Seen| s.status == Status::Failed;
    let missing = h.until("missing", Duration::from_secs(5), failed).await;
    assert!(
        missing.error.as_deref().is_some_and(|e| e.contains("cannot start `capc-no-such-mcp-server`")),
        "{missing:?}"
    );
    let exits = h.until("exits", Duration::from_secs(5), failed).await;
    let error = exits.error.unwrap_or_default();
    assert!(error.contains("exited during initialize (exit status: 1)"), "the exit status: {error}");
    assert!(error.contains("fatal: missing API key"), "the stderr tail: {error}");
    let hangs = h.until("hangs", Duration::from_secs(5), failed).await;
    assert!(hangs.error.as_deref().is_some_and(|e| e.contains("no answer to initialize within 3 s")), "{hangs:?}");
    let healthy = h.connected("healthy", Duration::from_secs(5)).await;
    assert!(healthy.tools.contains(&"mcp__healthy__echo".to_string()), "{healthy:?}");
    h.servers.shutdown().await;
}

async fn a_stdio_server_that_crashes_mid_session_is_failed_with_its_exit_and_stderr() {
    // The fault server, in a node process that exits 1.5 s after it starts.
    let code = format!(
        "setTimeout(() => {{ console.error('fatal: lost the database'); process.exit(3) }}, 1500); require({:?})",
        faulty()
    );
    let h = start(&[stdio("crashy", "node", &["-e", &code]), stdio("steady", "node", &[&faulty()])], quick());
    h.connected("crashy", Duration::from_secs(10)).await;
    let seen = h.until("crashy", Duration::from_secs(10), |s| s.status == Status::Failed).await;
    assert!(seen.tools.is_empty(), "a failed server's tools are cleared");
    let error = seen.error.unwrap_or_default();
    assert!(error.contains("closed the connection (it exited: exit status: 3)"), "{error}");
    assert!(error.contains("fatal: lost the database"), "{error}");
    // stdio servers are not reconnected; the other server is untouched.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(h.seen("crashy").status, Status::Failed);
    assert_eq!(h.seen("steady").status, Status::Connected);
    h.servers.shutdown().await;
}

async fn malformed_lines_invalid_schemas_and_huge_descriptions() {
    let script = faulty();
    let entries = [
        stdio("junk", "node", &[&script, "--junk"]),
        stdio("schema", "node", &[&script, "--bad-schema"]),
        stdio("huge", "node", &[&script, "--huge-description", "50"]),
    ];
    let h = start(&entries, quick());
    // Beside them, with a short timeout: a server whose tools/list answer never parses.
    let broken = start(
        &[stdio("broken", "node", &[&script, "--broken-list"])],
        Settings { connect_timeout: Duration::from_secs(2), ..Settings::default() },
    );
    // Lines that are not JSON are skipped; the answers between them are read.
    let junk = h.connected("junk", Duration::from_secs(10)).await;
    assert!(junk.tools.contains(&"mcp__junk__echo".to_string()), "{junk:?}");
    assert_eq!(junk.error, None);
    // A tools/list answer that does not fit the schema: connected, no tools, and why.
    let schema = h.connected("schema", Duration::from_secs(10)).await;
    assert!(schema.tools.is_empty(), "{schema:?}");
    assert!(schema.error.as_deref().is_some_and(|e| e.contains("tools/list failed")), "{schema:?}");
    // A 50 MB description is read, then cut at 2,048 characters with Claude Code's marker.
    let huge = h.until("huge", Duration::from_secs(10), |s| s.status != Status::Pending).await;
    assert_eq!(huge.status, Status::Connected, "{huge:?}");
    {
        let guard = h.shared.lock().expect("state");
        let tool = guard.state.tools().iter().find(|t| &*t.name == "mcp__huge__huge").expect("the huge tool");
        assert_eq!(tool.description.chars().count(), 2048 + "… [truncated]".chars().count());
        assert!(tool.description.ends_with("… [truncated]"));
    }
    // An answer that never parses is a listing that never ends.
    let seen = broken.until("broken", Duration::from_secs(10), |s| s.status == Status::Failed).await;
    assert!(seen.error.as_deref().is_some_and(|e| e.contains("listing took over 2 s")), "{seen:?}");
    h.servers.shutdown().await;
    broken.servers.shutdown().await;
}

async fn a_list_changed_flood_is_at_most_one_state_change_per_window() {
    let script = faulty();
    let h = start(&[stdio("flood", "node", &[&script]), stdio("calm", "node", &[&script])], quick());
    for name in ["flood", "calm"] {
        h.connected(name, Duration::from_secs(10)).await;
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    let before = h.shared.lock().expect("state").version;
    let started = Instant::now();
    // 1,000 tools/list_changed in one second, then a real change at the end.
    h.call("flood", "flood", serde_json::json!({"count": 1000})).await;
    tokio::time::sleep(Duration::from_millis(1200)).await;
    h.call("flood", "add_tool", serde_json::json!({"name": "after_the_flood"})).await;
    let seen =
        h.until("flood", Duration::from_secs(5), |s| s.tools.contains(&"mcp__flood__after_the_flood".into())).await;
    let elapsed = started.elapsed();
    let changes = h.shared.lock().expect("state").version - before;
    let windows = elapsed.as_millis() as u64 / WINDOW.as_millis() as u64 + 1;
    assert!(changes <= windows, "{changes} state changes in {elapsed:?} ({windows} windows)");
    assert!(changes >= 2, "the flood was seen: {changes}");
    assert_eq!(seen.status, Status::Connected, "{seen:?}");
    assert_eq!(h.seen("calm").status, Status::Connected);
    h.servers.shutdown().await;
}

async fn tool_calls_are_cut_at_100000_characters_and_time_out() {
    let h = start(&[stdio("tools", "node", &[&faulty()])], quick());
    h.connected("tools", Duration::from_secs(10)).await;
    let caller = h.servers.caller(tokio::runtime::Handle::current());
    let (big, stalled, fits) = tokio::task::spawn_blocking(move || {
        let args = |chars: u32| serde_json::json!({ "chars": chars }).as_object().cloned();
        (
            caller.call("tools", "big", args(150_000), Duration::from_secs(10)),
            caller.call("tools", "stall", None, Duration::from_millis(300)),
            caller.call("tools", "big", args(100_000), Duration::from_secs(10)),
        )
    })
    .await
    .expect("joins");
    let big = big.expect("answers");
    assert!(big.truncated);
    assert!(big.text.starts_with(&"y".repeat(100_000)));
    assert!(
        big.text.ends_with("[result truncated: 150000 characters, the first 100000 shown]"),
        "{}",
        &big.text[100_000..]
    );
    let fits = fits.expect("answers");
    assert!(!fits.truncated && fits.text.len() == 100_000);
    assert_eq!(stalled.expect_err("times out"), "`stall` did not answer within 0.3 s");
    // The server is still there after a call it never answered.
    assert_eq!(h.call("tools", "echo", serde_json::json!({"text": "still here"})).await, "still here");
    h.servers.shutdown().await;
}

/// A free port on 127.0.0.1 (the listener is dropped before the server takes it).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port()
}

/// server-everything over Streamable HTTP on 127.0.0.1:`port` (a preload keeps it off other
/// interfaces); waits until it listens.
async fn everything_http(script: &str, port: u16) -> tokio::process::Child {
    let child = tokio::process::Command::new("node")
        .arg("--require")
        .arg(servers_dir().join("loopback.cjs"))
        .arg(script)
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("node starts");
    listening(port).await;
    child
}

async fn listening(port: u16) {
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("nothing listens on 127.0.0.1:{port}");
}

async fn server_everything_over_streamable_http_survives_a_restart() {
    let script = everything();
    let port = free_port();
    let mut server = everything_http(&script, port).await;
    let mut entry = http("remote", &format!("http://127.0.0.1:{port}/mcp"));
    entry.headers = [("X-Team".to_string(), "${CAPC_TEST_TEAM:-qa}".to_string())].into();
    assert_eq!(prepare(&entry, |_| None).expect("prepares").headers["X-Team"], "qa");
    let settings = Settings { ping_every: Duration::from_millis(200), ..quick() };
    let h = start(&[entry], settings);
    let seen = h.connected("remote", Duration::from_secs(10)).await;
    assert!(seen.tools.len() >= 5, "{seen:?}");
    // The server restarts: the next ping fails, the server is pending while it reconnects
    // (1 s, then 2 s, ...), and once it is back everything is listed again.
    server.kill().await.expect("kills");
    let down = h.until("remote", Duration::from_secs(5), |s| s.status == Status::Pending).await;
    assert!(down.error.as_deref().is_some_and(|e| e.contains("reconnecting in 1 s (attempt 1 of 5)")), "{down:?}");
    let mut server = everything_http(&script, port).await;
    let back = h.connected("remote", Duration::from_secs(15)).await;
    assert_eq!(back.error, None);
    assert_eq!(back.tools.len(), seen.tools.len());
    assert_eq!(h.call("remote", "echo", serde_json::json!({"message": "again"})).await, "Echo: again");
    h.servers.shutdown().await;
    server.kill().await.expect("kills");
}

async fn a_failed_call_makes_a_restarted_server_reconnect_without_waiting_for_the_ping() {
    let script = everything();
    let port = free_port();
    let mut server = everything_http(&script, port).await;
    // The periodic ping is too far away to matter here.
    let settings = Settings { ping_every: Duration::from_secs(600), ping_timeout: Duration::from_secs(1), ..quick() };
    let h = start(&[http("remote", &format!("http://127.0.0.1:{port}/mcp"))], settings);
    h.connected("remote", Duration::from_secs(10)).await;
    server.kill().await.expect("kills");
    let mut server = everything_http(&script, port).await;
    // The restarted server does not know the session. It answers with an error rmcp cannot
    // match to the request, so the call runs into its timeout.
    let caller = h.servers.caller(tokio::runtime::Handle::current());
    let failed = tokio::task::spawn_blocking(move || {
        let args = serde_json::json!({"message": "lost?"}).as_object().cloned();
        caller.call("remote", "echo", args, Duration::from_secs(2))
    })
    .await
    .expect("joins");
    assert!(failed.is_err(), "{failed:?}");
    // The failure made the supervisor check at once: pending, then connected again.
    let down = h.until("remote", Duration::from_secs(5), |s| s.status == Status::Pending).await;
    assert!(down.error.as_deref().is_some_and(|e| e.contains("reconnecting in 1 s")), "{down:?}");
    h.connected("remote", Duration::from_secs(15)).await;
    assert_eq!(h.call("remote", "echo", serde_json::json!({"message": "found"})).await, "Echo: found");
    h.servers.shutdown().await;
    server.kill().await.expect("kills");
}

async fn a_remote_server_that_stays_down_is_retried_with_back_off_then_failed() {
    let script = everything();
    let port = free_port();
    let mut server = everything_http(&script, port).await;
    let backoff = Backoff { tries: 5, first: Duration::from_millis(100), cap: Duration::from_millis(400) };
    let settings = Settings { ping_every: Duration::from_millis(100), backoff, ..quick() };
    let h = start(&[http("gone", &format!("http://127.0.0.1:{port}/mcp"))], settings);
    h.connected("gone", Duration::from_secs(10)).await;
    server.kill().await.expect("kills");
    // Each attempt is announced as pending; they come 100, 200, 400, 400 and 400 ms apart.
    let mut attempts = Vec::new();
    let started = Instant::now();
    let failed = loop {
        let seen = h.seen("gone");
        if seen.status == Status::Failed {
            break seen;
        }
        if let Some(at) = seen.error.as_deref().and_then(|e| e.find("(attempt ")) {
            let attempt = seen.error.as_deref().unwrap_or_default()[at..].to_string();
            if attempts.last() != Some(&attempt) {
                attempts.push(attempt);
            }
        }
        assert!(started.elapsed() < Duration::from_secs(20), "never failed: {seen:?}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    };
    let elapsed = started.elapsed();
    assert_eq!(attempts, (1..=5).map(|n| format!("(attempt {n} of 5)")).collect::<Vec<_>>());
    assert!(elapsed >= Duration::from_millis(100 + 200 + 400 + 400 + 400), "{elapsed:?}");
    assert!(failed.tools.is_empty());
    let error = failed.error.unwrap_or_default();
    assert!(error.contains("gave up after 5 reconnection attempts"), "{error}");
    assert!(error.contains("Connection refused"), "the cause is named: {error}");
    h.servers.shutdown().await;
}

async fn a_python_mcp_server_adds_and_removes_tools_in_both_protocols() {
    let python = python();
    let script = servers_dir().join("dynamic.py").to_string_lossy().into_owned();
    // `legacy` negotiates 2025-11-25 (list_changed notifications); `auto` negotiates
    // 2026-07-28 with mcp 2.x, where changes come only on a subscriptions/listen stream —
    // over stdio and over Streamable HTTP.
    for (negotiation, over_http) in
        [(Negotiation::Legacy, false), (Negotiation::Auto, false), (Negotiation::Auto, true)]
    {
        let case = format!("{negotiation:?}, {}", if over_http { "http" } else { "stdio" });
        let mut http_server = None;
        let entry = if over_http {
            let port = free_port();
            http_server = Some(
                tokio::process::Command::new(&python)
                    .args([script.as_str(), "http", &port.to_string()])
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::null())
                    .kill_on_drop(true)
                    .spawn()
                    .expect("python starts"),
            );
            listening(port).await;
            http("dynamic", &format!("http://127.0.0.1:{port}/mcp"))
        } else {
            stdio("dynamic", &python, &[&script])
        };
        let h = start(&[entry], Settings { negotiation, ..quick() });
        let seen = h.until("dynamic", Duration::from_secs(20), |s| s.status == Status::Connected).await;
        assert_eq!(seen.status, Status::Connected, "{case}: {seen:?}");
        assert!(seen.tools.contains(&"mcp__dynamic__hello".to_string()), "{case}: {seen:?}");
        let protocol = if negotiation == Negotiation::Auto { "2026-07-28" } else { "2025-11-25" };
        assert_eq!(seen.protocol.as_deref(), Some(protocol), "{case}");
        assert_eq!(
            h.call("dynamic", "add_tool", serde_json::json!({"name": "weather.now"})).await,
            "added weather.now"
        );
        let added = "mcp__dynamic__weather_now".to_string();
        let seen = h.until("dynamic", Duration::from_secs(5), |s| s.tools.contains(&added)).await;
        assert!(seen.tools.contains(&added), "{case}: the new tool is listed, normalized: {seen:?}");
        assert_eq!(h.call("dynamic", "weather.now", serde_json::json!({})).await, "weather.now");
        h.call("dynamic", "remove_tool", serde_json::json!({"name": "hello"})).await;
        let gone = |s: &Seen| !s.tools.contains(&"mcp__dynamic__hello".into());
        let seen = h.until("dynamic", Duration::from_secs(5), gone).await;
        assert!(gone(&seen), "{case}: {seen:?}");
        assert_eq!(seen.error, None, "{case}");
        h.servers.shutdown().await;
        if let Some(mut server) = http_server {
            server.kill().await.expect("kills");
        }
    }
}

/// The processes whose command line contains `marker`.
fn processes_with(marker: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        if let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) {
            if String::from_utf8_lossy(&cmdline).contains(marker) {
                found.push(pid);
            }
        }
    }
    found
}

async fn no_server_process_outlives_the_session() {
    let marker = format!("capc-orphan-check-{}", std::process::id());
    // A wrapper shell whose server child would survive if only the shell were killed, a
    // server still in initialize, and a connected one.
    let script = faulty();
    let entries = [
        stdio("wrapped", "sh", &["-c", &format!("node {script} {marker}-a; true")]),
        stdio("starting", "node", &["-e", "setTimeout(() => {}, 60000)", &format!("{marker}-b")]),
        // Still in initialize at the end, behind a shell that ignores SIGTERM (so does its child).
        stdio(
            "shielded",
            "sh",
            &["-c", &format!("trap '' TERM; node -e 'setTimeout(() => {{}}, 60000)' {marker}-d; true")],
        ),
        stdio("direct", "node", &[&script, &format!("{marker}-c")]),
    ];
    let h = start(&entries, Settings { local_window: 4, ..quick() });
    for name in ["wrapped", "direct"] {
        h.connected(name, Duration::from_secs(10)).await;
    }
    assert!(processes_with(&marker).len() >= 6, "the servers run: {:?}", processes_with(&marker));
    h.servers.shutdown().await;
    let deadline = Instant::now() + Duration::from_secs(5);
    while !processes_with(&marker).is_empty() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(processes_with(&marker), Vec::<u32>::new(), "orphans after shutdown");
}

/// Answers every HTTP request on 127.0.0.1 with 401 and hands over each request's head.
async fn recording_server() -> (u16, tokio::sync::mpsc::UnboundedReceiver<String>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let (heads, received) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let mut buf = vec![0u8; 16 * 1024];
            let n = socket.read(&mut buf).await.unwrap_or(0);
            let _ = heads.send(String::from_utf8_lossy(&buf[..n]).to_lowercase());
            let _ =
                socket.write_all(b"HTTP/1.1 401 Unauthorized\r\ncontent-length: 0\r\nconnection: close\r\n\r\n").await;
        }
    });
    (port, received)
}

async fn a_headers_helper_sets_headers_at_each_connection() {
    let (port, mut heads) = recording_server().await;
    let url = format!("http://127.0.0.1:{port}/mcp");
    let mut helped = http("helped", &url);
    helped.headers =
        [("X-Team".to_string(), "static".to_string()), ("X-Static".to_string(), "kept".to_string())].into();
    helped.headers_helper = Some(r#"printf '{"Authorization": "Bearer from-helper", "X-Team": "%s"}' helper"#.into());
    let mut failing = http("failing", &url);
    failing.headers_helper = Some("echo 'token service down' >&2; exit 4".into());
    let mut garbled = http("garbled", &url);
    garbled.headers_helper = Some(r#"echo '{"Authorization": 42}'"#.into());
    let h = start(&[helped, failing, garbled], quick());
    let failed = |s: &Seen| s.status == Status::Failed;
    let seen = h.until("helped", Duration::from_secs(10), failed).await;
    let error = seen.error.unwrap_or_default();
    assert!(error.contains("HTTP 401") && error.contains("the server wants credentials"), "{error}");
    let head = tokio::time::timeout(Duration::from_secs(5), heads.recv()).await.expect("a request").expect("a head");
    assert!(head.contains("authorization: bearer from-helper"), "{head}");
    assert!(head.contains("x-team: helper") && !head.contains("x-team: static"), "the helper wins: {head}");
    assert!(head.contains("x-static: kept"), "{head}");
    let seen = h.until("failing", Duration::from_secs(10), failed).await;
    assert_eq!(seen.error.as_deref(), Some("`headersHelper` failed (exit status: 4)"));
    let seen = h.until("garbled", Duration::from_secs(10), failed).await;
    let error = seen.error.unwrap_or_default();
    assert!(error.contains("must print a JSON object whose values are strings") && !error.contains("42"), "{error}");
    h.servers.shutdown().await;
}

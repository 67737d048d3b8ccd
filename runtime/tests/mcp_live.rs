//! Live MCP connections over stdio, with rmcp, against `@modelcontextprotocol/server-everything`
//! (installed by `.ci/run`: `npm ci --prefix runtime/tests/servers`) and against servers that
//! fail in the ways real ones do. In CI (`CI` set) a missing test server is a failure; elsewhere
//! the live test says it is skipped.

use capc_compiler::lock::model::{McpServer, Scope, Transport};
use capc_runtime::batch::{Batcher, Shared, Versioned, WINDOW};
use capc_runtime::connect::connect_stdio;
use capc_runtime::launch::prepare;
use capc_runtime::mcp::{McpState, Status};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn everything() -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    if path.is_file() {
        return Some(path);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "server-everything is not installed: run `npm ci --prefix runtime/tests/servers` (.ci/run does)"
    );
    eprintln!("skipped: server-everything is not installed (npm ci --prefix runtime/tests/servers)");
    None
}

fn server(name: &str, command: &str, args: &[&str]) -> McpServer {
    McpServer {
        name: name.into(),
        normalized: name.into(),
        scope: Scope::Project,
        transport: Transport::Stdio,
        path: ".mcp.json".into(),
        command: Some(command.into()),
        args: args.iter().map(|a| a.to_string()).collect(),
        ..McpServer::default()
    }
}

fn shared(servers: &[McpServer]) -> Shared {
    let mut lock = capc_compiler::lock::resolve::resolve(Vec::new()).lock;
    lock.mcp_servers = servers.to_vec();
    Arc::new(Mutex::new(Versioned { state: McpState::from_lock(&lock), ..Versioned::default() }))
}

async fn settle() {
    tokio::time::sleep(WINDOW * 4).await;
}

fn status(shared: &Shared, name: &str) -> (Status, Option<String>, usize) {
    let guard = shared.lock().expect("state");
    let s = guard.state.servers().find(|s| s.name == name).expect("server in state");
    (s.status, s.error.clone(), s.tools.len())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_everything_connects_and_lists() {
    let Some(script) = everything() else { return };
    let script = script.to_string_lossy().into_owned();
    let entry = server("everything", "node", &[&script, "stdio"]);
    let shared = shared(std::slice::from_ref(&entry));
    let batcher = Batcher::spawn(shared.clone(), WINDOW);
    let launch = prepare(&entry, |name| std::env::var(name).ok()).expect("prepares");
    let connection = connect_stdio("everything", &launch, Duration::from_secs(20), &batcher).await.expect("connects");
    // It announces more tools right after `initialized`; give the re-list a moment.
    tokio::time::sleep(Duration::from_millis(800)).await;
    settle().await;
    let (state, error, tools) = status(&shared, "everything");
    assert_eq!(state, Status::Connected, "{error:?}");
    assert!(tools >= 5, "server-everything lists its tools: {tools}");
    {
        let guard = shared.lock().expect("state");
        let names: Vec<&str> = guard.state.tools().iter().map(|t| &*t.name).collect();
        assert!(names.contains(&"mcp__everything__echo"), "{names:?}");
        assert!(names.windows(2).all(|w| w[0] <= w[1]), "tools are kept sorted");
        let server = guard.state.servers().next().expect("one server");
        assert!(!server.prompts.is_empty(), "it offers prompts");
        assert!(server.prompts.iter().all(|p| p.starts_with("mcp__everything__")), "{:?}", server.prompts);
    }
    connection.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn servers_that_fail_say_why() {
    let missing = server("missing", "capc-no-such-mcp-server", &[]);
    let exits = server("exits", "sh", &["-c", "echo 'fatal: missing API key' >&2; exit 1"]);
    let hangs = server("hangs", "sh", &["-c", "sleep 30"]);
    let shared = shared(&[missing.clone(), exits.clone(), hangs.clone()]);
    let batcher = Batcher::spawn(shared.clone(), WINDOW);
    let timeout = Duration::from_millis(1500);
    let (l1, l2, l3) = (
        prepare(&missing, |_| None).expect("prepares"),
        prepare(&exits, |_| None).expect("prepares"),
        prepare(&hangs, |_| None).expect("prepares"),
    );
    let results = tokio::join!(
        connect_stdio("missing", &l1, timeout, &batcher),
        connect_stdio("exits", &l2, timeout, &batcher),
        connect_stdio("hangs", &l3, timeout, &batcher),
    );
    assert!(results.0.is_none() && results.1.is_none() && results.2.is_none());
    settle().await;
    let (state, error, _) = status(&shared, "missing");
    assert_eq!(state, Status::Failed);
    assert!(error.as_deref().is_some_and(|e| e.contains("cannot start `capc-no-such-mcp-server`")), "{error:?}");
    let (state, error, _) = status(&shared, "exits");
    assert_eq!(state, Status::Failed);
    assert!(error.as_deref().is_some_and(|e| e.contains("fatal: missing API key")), "the stderr tail: {error:?}");
    let (state, error, _) = status(&shared, "hangs");
    assert_eq!(state, Status::Failed);
    assert!(error.as_deref().is_some_and(|e| e.contains("no answer to initialize within 1.5 s")), "{error:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_crashes_mid_session_is_failed_with_its_stderr() {
    let Some(script) = everything() else { return };
    // server-everything, in a node process that exits 1.5 s after it starts.
    let code = format!(
        "setTimeout(() => {{ console.error('fatal: lost the database'); process.exit(3) }}, 1500); \
         process.argv.splice(1, 0, 'x'); import('file://{}')",
        script.display()
    );
    let entry = server("crashy", "node", &["-e", &code, "stdio"]);
    let shared = shared(std::slice::from_ref(&entry));
    let batcher = Batcher::spawn(shared.clone(), WINDOW);
    let launch = prepare(&entry, |_| None).expect("prepares");
    let connection = connect_stdio("crashy", &launch, Duration::from_secs(20), &batcher).await.expect("connects");
    settle().await;
    assert_eq!(status(&shared, "crashy").0, Status::Connected);
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let (state, error, tools) = status(&shared, "crashy");
    assert_eq!(state, Status::Failed);
    assert_eq!(tools, 0, "a failed server's tools are cleared");
    let error = error.unwrap_or_default();
    assert!(error.contains("closed the connection") && error.contains("fatal: lost the database"), "{error}");
    connection.close().await;
}

/// A free port on 127.0.0.1 (the listener is dropped before the server takes it).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_everything_over_streamable_http() {
    let Some(script) = everything() else { return };
    let port = free_port();
    let preload = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/servers/loopback.cjs");
    let mut child = tokio::process::Command::new("node")
        .arg("--require")
        .arg(&preload)
        .arg(&script)
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("node starts");
    // Wait until it listens (on loopback only).
    let mut up = false;
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
            up = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(up, "server-everything did not listen on 127.0.0.1:{port}");
    let entry = McpServer {
        transport: Transport::Http,
        command: None,
        url: Some(format!("http://127.0.0.1:{port}/mcp")),
        headers: [("X-Team".to_string(), "${CAPC_TEST_TEAM:-qa}".to_string())].into(),
        ..server("remote", "", &[])
    };
    let shared = shared(std::slice::from_ref(&entry));
    let batcher = Batcher::spawn(shared.clone(), WINDOW);
    let launch = prepare(&entry, |_| None).expect("prepares");
    assert_eq!(launch.headers["X-Team"], "qa");
    let connection = capc_runtime::connect::connect_http("remote", &launch, Duration::from_secs(10), &batcher)
        .await
        .expect("connects");
    settle().await;
    let (state, error, tools) = status(&shared, "remote");
    assert_eq!(state, Status::Connected, "{error:?}");
    assert!(tools >= 5, "{tools} tools");
    connection.close().await;
    let _ = child.kill().await;
}

//! Live MCP connections against real servers: `cargo bench -p capc-runtime --bench mcp`
//! (needs Node.js and `npm ci --prefix runtime/tests/servers`; without them it says so and
//! exits 0). It prints one plain-text table:
//!
//! 1. connect + first listing (tools, prompts, resources) of one stdio
//!    `@modelcontextprotocol/server-everything`: from `Servers::start` until the batched state
//!    says `Connected` (so it includes the ≤ 16 ms batching window), median of 5 runs;
//! 2. the same for 20 such servers with a concurrency window of 20, 3 (Claude Code's default)
//!    and 1, until all 20 are `Connected`, median of 3 runs each;
//! 3. state changes under a `tools/list_changed` flood (`tests/servers/faulty.cjs`, 2,000 at
//!    1,000/s) against the bound of one change per 16 ms window, and the smallest gap seen
//!    between two consecutive changes;
//! 4. memory per connected server: this process's RSS growth over 20 connections, and the
//!    servers' own RSS (and PSS, which shares the node binary's pages fairly).
//!
//! Run by `cargo test --benches` (no `--bench` argument) it only says how to run it.

use capc_compiler::model::{McpServer, Scope, Transport};
use capc_runtime::batch::{Batcher, Shared, Versioned, WINDOW};
use capc_runtime::connect::{Servers, Settings};
use capc_runtime::launch::prepare;
use capc_runtime::mcp::{McpState, Status};
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The longest any phase (one run, one shutdown) may take before the bench gives up.
const PHASE: Duration = Duration::from_secs(60);
const FLOOD: u64 = 2000;
const FLOOD_RATE: f64 = 1000.0;

fn main() {
    // cargo passes `--bench` and perhaps a filter; neither selects anything here.
    if !std::env::args().any(|a| a == "--bench") {
        println!("mcp bench: skipped in test mode; run `cargo bench -p capc-runtime --bench mcp`");
        return;
    }
    if !on_path("node") {
        println!("mcp bench: skipped, `node` is not on PATH: install Node.js, then the test servers");
        println!("with `npm ci --prefix runtime/tests/servers`.");
        return;
    }
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/servers");
    let everything = dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    if !everything.exists() {
        println!("mcp bench: skipped, {} is not installed.", everything.display());
        println!("Install the test servers with `npm ci --prefix runtime/tests/servers` (needs Node.js).");
        return;
    }
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a tokio runtime");
    runtime.block_on(run(&everything, &dir.join("faulty.cjs")));
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
}

/// `future`, or a panic naming `what` after [`PHASE`].
async fn within<T>(what: &str, future: impl Future<Output = T>) -> T {
    tokio::time::timeout(PHASE, future).await.unwrap_or_else(|_| panic!("mcp bench: {what} took over {PHASE:?}"))
}

fn stdio(name: &str, script: &Path, args: &[&str]) -> McpServer {
    let mut all = vec![script.to_string_lossy().into_owned()];
    all.extend(args.iter().map(|a| a.to_string()));
    McpServer {
        name: name.into(),
        normalized: name.into(),
        scope: Scope::User,
        transport: Transport::Stdio,
        path: ".claude.json".into(),
        command: Some("node".into()),
        args: all,
        ..McpServer::default()
    }
}

fn everything_servers(script: &Path, n: usize) -> Vec<McpServer> {
    (0..n).map(|i| stdio(&format!("everything{i:02}"), script, &["stdio"])).collect()
}

/// Starts `entries` feeding one batched state; the clock starts just before `Servers::start`.
fn start(entries: &[McpServer], settings: Settings) -> (Shared, Servers, Instant) {
    let mut lock = capc_compiler::lock::resolve::empty_lock();
    lock.mcp_servers = entries.to_vec();
    let shared = Arc::new(Mutex::new(Versioned { state: McpState::from_lock(&lock), ..Versioned::default() }));
    let batcher = Batcher::spawn(shared.clone(), WINDOW);
    let launches =
        entries.iter().map(|e| (e.name.clone(), prepare(e, |v| std::env::var(v).ok()).expect("prepares"))).collect();
    let started = Instant::now();
    (shared.clone(), Servers::start(launches, settings, &batcher), started)
}

/// Polls the state every 1–2 ms until every server is `Connected`; the time since `started`.
async fn all_connected(shared: &Shared, started: Instant) -> Duration {
    loop {
        {
            let guard = shared.lock().expect("state");
            if let Some(s) = guard.state.servers().find(|s| s.status == Status::Failed) {
                panic!("mcp bench: server {} failed: {}", s.name, s.error.as_deref().unwrap_or_default());
            }
            let waiting: Vec<&str> =
                guard.state.servers().filter(|s| s.status != Status::Connected).map(|s| &*s.name).collect();
            if waiting.is_empty() {
                return started.elapsed();
            }
            assert!(started.elapsed() < PHASE, "mcp bench: not connected after {PHASE:?}: {waiting:?}");
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

/// The median of `runs` connections of `entries`, each shut down before the next.
async fn median_connect(entries: &[McpServer], settings: &Settings, runs: usize) -> Duration {
    let mut times = Vec::new();
    for _ in 0..runs {
        let (shared, servers, started) = start(entries, settings.clone());
        times.push(all_connected(&shared, started).await);
        within("shutdown", servers.shutdown()).await;
    }
    times.sort();
    times[times.len() / 2]
}

/// A `/proc/<pid>/<file>` field in kB (`VmRSS:` of `status`, `Pss:` of `smaps_rollup`).
fn kb(pid: &str, file: &str, field: &str) -> u64 {
    let text = std::fs::read_to_string(format!("/proc/{pid}/{file}")).unwrap_or_default();
    let line = text.lines().find(|l| l.starts_with(field)).unwrap_or_default();
    line[field.len().min(line.len())..].trim().trim_end_matches("kB").trim().parse().unwrap_or(0)
}

/// The pids of this process's children running `script` (capc_runtime does not expose them).
fn children_running(script: &Path) -> Vec<String> {
    let me = std::process::id().to_string();
    let script = script.to_string_lossy();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let pid = entry.file_name().to_string_lossy().into_owned();
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // `pid (comm) state ppid ...`; comm may hold spaces and parentheses.
        let ppid = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().nth(1).map(str::to_string));
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if ppid.as_deref() == Some(me.as_str()) && String::from_utf8_lossy(&cmdline).contains(&*script) {
            found.push(pid);
        }
    }
    found
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

async fn run(everything: &Path, faulty: &Path) {
    let twenty = everything_servers(everything, 20);
    // 4 first, in a fresh process: once 20 connections have come and gone, the allocator
    // keeps their memory and the growth would read as zero. It also warms node's file cache.
    let memory = memory_rows(everything, &twenty).await;
    let mut rows = connect_rows(&twenty).await;
    rows.extend(flood_rows(faulty).await);
    rows.extend(memory);
    let width = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0);
    println!("\nMCP connections (capc-runtime, real servers)\n{}", "-".repeat(width + 30));
    for (what, value) in &rows {
        println!("{what:<width$}  {value}");
    }
}

/// Row 4: this process's RSS growth and the servers' own RSS and PSS, per server, with the 20
/// servers of `twenty` (running `everything`) connected at once.
async fn memory_rows(everything: &Path, twenty: &[McpServer]) -> Vec<(String, String)> {
    let parallel = Settings { local_window: 20, ..Settings::default() };
    let before = kb("self", "status", "VmRSS:");
    let (shared, servers, started) = start(twenty, parallel);
    all_connected(&shared, started).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let after = kb("self", "status", "VmRSS:");
    let pids = children_running(everything);
    assert_eq!(pids.len(), 20, "mcp bench: expected 20 server processes, found {pids:?}");
    let rss: u64 = pids.iter().map(|p| kb(p, "status", "VmRSS:")).sum();
    let pss: u64 = pids.iter().map(|p| kb(p, "smaps_rollup", "Pss:")).sum();
    within("shutdown", servers.shutdown()).await;
    vec![
        (
            "20 servers: client RSS per server".to_string(),
            format!("{:.0} kB ({before} → {after} kB)", after.saturating_sub(before) as f64 / 20.0),
        ),
        (
            "20 servers: server RSS per server".to_string(),
            format!("{:.0} kB (PSS {:.0} kB)", rss as f64 / 20.0, pss as f64 / 20.0),
        ),
    ]
}

/// Rows 1 and 2: the median connect + first listing of one server, and of the 20 of `twenty`
/// with concurrency windows of 20, 3 and 1.
async fn connect_rows(twenty: &[McpServer]) -> Vec<(String, String)> {
    let mut rows: Vec<(String, String)> = Vec::new();
    let one = median_connect(&twenty[..1], &Settings::default(), 5).await;
    rows.push(("1 server: connect + first listing (median of 5)".to_string(), ms(one)));
    let mut windows = Vec::new();
    for window in [20, 3, 1] {
        let settings = Settings { local_window: window, ..Settings::default() };
        let time = median_connect(twenty, &settings, 3).await;
        rows.push((format!("20 servers, window {window:>2} (median of 3)"), ms(time)));
        windows.push(time);
    }
    rows.push((
        "speed-up of window 20 over window 1".to_string(),
        format!("{:.1}×", windows[2].as_secs_f64() / windows[0].as_secs_f64()),
    ));
    rows
}

/// Row 3: the state changes of one `faulty` server flooding `tools/list_changed`, their rate
/// against the batching bound, and the smallest gap between two.
async fn flood_rows(faulty: &Path) -> Vec<(String, String)> {
    // Each sample reads the version between two clock readings, so a change happened after
    // the `before` of the last sample that saw the old version and by the `after` of the first
    // that saw the new one. The gap between two changes is thus surely at least (`before` of
    // the last sample before the later change − `after` of the first sample after the earlier
    // one), printed as "surely ≥"; the observed gap (between first samples after) is off by
    // at most a sampling interval either way. Changes merged into one sample (counted) hide
    // their gap: that way polling can over-estimate the smallest gap, never make it smaller.
    let (shared, servers, started) = start(&[stdio("flood", faulty, &[])], Settings::default());
    all_connected(&shared, started).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let sample = || {
        let before = Instant::now();
        let version = shared.lock().expect("state").version;
        (before, version, Instant::now())
    };
    let caller = servers.caller(tokio::runtime::Handle::current());
    let arguments = serde_json::json!({ "count": FLOOD }).as_object().cloned();
    let (mut previous, mut last, _) = sample();
    let flood_start = Instant::now();
    let call = tokio::task::spawn_blocking(move || caller.call("flood", "flood", arguments, Duration::from_secs(10)));
    // (`before` of the last sample with the old version, `after` of the first with the new).
    let mut seen: Vec<(Instant, Instant)> = Vec::new();
    let (mut merged, mut changes, mut widest) = (0u64, 0u64, Duration::ZERO);
    let flood_time = Duration::from_secs_f64(FLOOD as f64 / FLOOD_RATE);
    within("the flood", async {
        loop {
            let (before, version, after) = sample();
            if version != last {
                seen.push((previous, after));
                changes += version - last;
                merged += u64::from(version - last > 1);
                last = version;
            }
            widest = widest.max(before - previous);
            previous = before;
            let quiet_since = seen.last().map_or(flood_start, |s| s.1);
            if after - flood_start > flood_time && after - quiet_since > Duration::from_millis(500) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    })
    .await;
    let answer = within("the flood call", call).await.expect("joins").expect("the flood call succeeds");
    assert_eq!(answer.text, "flooding", "mcp bench: unexpected answer to `flood`");
    within("shutdown", servers.shutdown()).await;
    let duration = seen.last().map_or(Duration::ZERO, |s| s.1 - flood_start);
    let observed = seen.windows(2).map(|w| w[1].1 - w[0].1).min().unwrap_or_default();
    let lower = seen.windows(2).map(|w| w[1].0.saturating_duration_since(w[0].1)).min().unwrap_or_default();
    vec![
        ("flood: list_changed notifications sent".to_string(), format!("{FLOOD} at {FLOOD_RATE}/s")),
        (
            "flood: state changes observed".to_string(),
            format!("{changes} in {} ({merged} merged samples)", ms(duration)),
        ),
        (
            "flood: state changes per second".to_string(),
            format!("{:.1}/s (bound: 1 per {} = 62.5/s)", changes as f64 / duration.as_secs_f64(), ms(WINDOW)),
        ),
        (
            "flood: smallest gap between changes".to_string(),
            format!("{} (surely ≥ {}; samples ≤ {} apart)", ms(observed), ms(lower), ms(widest)),
        ),
    ]
}

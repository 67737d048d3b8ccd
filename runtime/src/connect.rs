//! Connecting a stdio MCP server with rmcp and keeping its listing live: the child runs in
//! its own process group with its stderr drained (the tail kept for errors), `initialize`
//! has a timeout, tools/prompts/resources are listed together and sent as one [`Update`]
//! to the [`Batcher`]; each `list_changed` notification re-lists that kind. A server that
//! fails to start or dies reports `failed` with the reason and its stderr tail.
//!
//! Streamable HTTP servers connect the same way (`connect_http`). Not here yet: reconnecting a
//! remote server with back-off.

use crate::batch::Batcher;
use crate::launch::{Launch, StderrTail};
use crate::mcp::{Status, ToolSpec, Update};
use rmcp::model::ClientConfig;
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::AsyncReadExt;
use tokio::sync::mpsc;

/// Which list a notification says changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Tools,
    Prompts,
    Resources,
}

/// Forwards list-changed notifications to one task that re-lists (rmcp runs each callback on
/// its own task, so their order is not guaranteed).
#[derive(Clone)]
struct Handler {
    changed: mpsc::UnboundedSender<Kind>,
}

impl ClientHandler for Handler {
    async fn on_tool_list_changed(&self, _cx: NotificationContext<RoleClient>) {
        let _ = self.changed.send(Kind::Tools);
    }
    async fn on_prompt_list_changed(&self, _cx: NotificationContext<RoleClient>) {
        let _ = self.changed.send(Kind::Prompts);
    }
    async fn on_resource_list_changed(&self, _cx: NotificationContext<RoleClient>) {
        let _ = self.changed.send(Kind::Resources);
    }
    fn get_info(&self) -> ClientConfig {
        ClientConfig::default()
    }
}

/// A live connection; dropping it leaves the server running until [`Connection::close`].
pub struct Connection {
    service: RunningService<RoleClient, Handler>,
    watcher: tokio::task::JoinHandle<()>,
}

impl Connection {
    /// Ends the session with the server (stdin closed, then the process group stopped).
    pub async fn close(self) {
        self.watcher.abort();
        let _ = self.service.cancel().await;
    }
}

/// How many bytes of a server's stderr are kept for its failure report.
pub const STDERR_TAIL: usize = 4096;

fn failed(server: &str, why: String, tail: &Mutex<StderrTail>) -> Update {
    let tail = tail.lock().map(|t| t.text()).unwrap_or_default();
    let error = if tail.is_empty() { why } else { format!("{why}\nstderr: {tail}") };
    Update { server: server.to_string(), status: Some(Status::Failed), error: Some(error), ..Update::default() }
}

/// Starts a stdio server, lists what it offers and keeps the listing live. Every state change
/// goes to `batcher`; the result is `None` when the server failed (and its update says why).
pub async fn connect_stdio(server: &str, launch: &Launch, timeout: Duration, batcher: &Batcher) -> Option<Connection> {
    let tail = Arc::new(Mutex::new(StderrTail::new(STDERR_TAIL)));
    let Some(program) = launch.command.as_deref() else {
        batcher.send(failed(server, "the server has no `command`".into(), &tail));
        return None;
    };
    let mut command = process_wrap::tokio::CommandWrap::with_new(program, |c| {
        c.args(&launch.args).envs(&launch.env);
        if let Some(dir) = &launch.cwd {
            c.current_dir(dir);
        }
    });
    command.wrap(process_wrap::tokio::ProcessGroup::leader());
    let (transport, stderr) = match TokioChildProcess::builder(command).stderr(std::process::Stdio::piped()).spawn() {
        Ok(pair) => pair,
        Err(e) => {
            batcher.send(failed(server, format!("cannot start `{program}`: {e}"), &tail));
            return None;
        }
    };
    // Always drain stderr: an undrained pipe deadlocks a chatty server (MCP.md §6).
    if let Some(mut stderr) = stderr {
        let tail = tail.clone();
        tokio::spawn(async move {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stderr.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                if let Ok(mut t) = tail.lock() {
                    t.push(&buf[..n]);
                }
            }
        });
    }
    let (changed, changes) = mpsc::unbounded_channel();
    let service = match tokio::time::timeout(timeout, Handler { changed }.serve(transport)).await {
        Ok(Ok(service)) => service,
        Ok(Err(e)) => {
            batcher.send(failed(server, format!("initialize failed: {e}"), &tail));
            return None;
        }
        Err(_) => {
            batcher.send(failed(server, format!("no answer to initialize within {} s", timeout.as_secs_f32()), &tail));
            return None;
        }
    };
    finish(server, service, changes, timeout, batcher, tail).await
}

/// Connects a Streamable HTTP server (`headers` sent with every request) and keeps its listing
/// live like a stdio one. Reconnecting after the server goes away is not done yet: the server
/// is then `failed`.
pub async fn connect_http(server: &str, launch: &Launch, timeout: Duration, batcher: &Batcher) -> Option<Connection> {
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    use rmcp::transport::StreamableHttpClientTransport;
    let tail = Arc::new(Mutex::new(StderrTail::new(STDERR_TAIL)));
    let Some(url) = launch.url.as_deref() else {
        batcher.send(failed(server, "the server has no `url`".into(), &tail));
        return None;
    };
    let mut headers = std::collections::HashMap::new();
    for (name, value) in &launch.headers {
        match (http::HeaderName::try_from(name.as_str()), http::HeaderValue::try_from(value.as_str())) {
            (Ok(n), Ok(v)) => {
                headers.insert(n, v);
            }
            _ => {
                batcher.send(failed(server, format!("header `{name}` is not a valid HTTP header"), &tail));
                return None;
            }
        }
    }
    let config = StreamableHttpClientTransportConfig::with_uri(url.to_string()).custom_headers(headers);
    let transport = StreamableHttpClientTransport::from_config(config);
    let (changed, changes) = mpsc::unbounded_channel();
    let service = match tokio::time::timeout(timeout, Handler { changed }.serve(transport)).await {
        Ok(Ok(service)) => service,
        Ok(Err(e)) => {
            batcher.send(failed(server, format!("cannot connect to {url}: {e}"), &tail));
            return None;
        }
        Err(_) => {
            batcher.send(failed(server, format!("no answer from {url} within {} s", timeout.as_secs_f32()), &tail));
            return None;
        }
    };
    finish(server, service, changes, timeout, batcher, tail).await
}

/// After `initialize`: the first listing, then the watcher that re-lists on `list_changed`
/// and reports a closed connection.
async fn finish(
    server: &str,
    service: RunningService<RoleClient, Handler>,
    mut changes: mpsc::UnboundedReceiver<Kind>,
    timeout: Duration,
    batcher: &Batcher,
    tail: Arc<Mutex<StderrTail>>,
) -> Option<Connection> {
    let instructions = service.peer_info().and_then(|info| info.instructions.clone());
    let peer = service.peer().clone();
    let first = list(server, &peer, &[Kind::Tools, Kind::Prompts, Kind::Resources], timeout).await;
    match first {
        Ok(mut update) => {
            update.status = Some(Status::Connected);
            update.instructions = instructions;
            batcher.send(update);
        }
        Err(why) => {
            batcher.send(failed(server, why, &tail));
            let _ = service.cancel().await;
            return None;
        }
    }
    // Re-list on list_changed; a burst of notifications is drained into one re-list.
    let batcher = batcher.clone();
    let name = server.to_string();
    let watcher = tokio::spawn(async move {
        // A stdio server that exits is `failed` for good: Claude Code reconnects only remote
        // servers (SEMANTICS §6.4).
        let mut tick = tokio::time::interval(Duration::from_millis(100));
        loop {
            let kind = tokio::select! {
                kind = changes.recv() => kind,
                _ = tick.tick() => {
                    if peer.is_transport_closed() {
                        batcher.send(failed(&name, "the server closed the connection (it exited)".into(), &tail));
                        break;
                    }
                    continue;
                }
            };
            let Some(kind) = kind else { break };
            let mut kinds = vec![kind];
            while let Ok(more) = changes.try_recv() {
                kinds.push(more);
            }
            kinds.sort();
            kinds.dedup();
            match list(&name, &peer, &kinds, timeout).await {
                Ok(update) => {
                    batcher.send(update);
                }
                Err(why) => {
                    batcher.send(failed(&name, why, &tail));
                    break;
                }
            }
        }
    });
    Some(Connection { service, watcher })
}

/// Lists the given kinds (concurrently) into one update.
async fn list(
    server: &str,
    peer: &rmcp::Peer<RoleClient>,
    kinds: &[Kind],
    timeout: Duration,
) -> Result<Update, String> {
    let mut update = Update { server: server.to_string(), ..Update::default() };
    let want = |k: Kind| kinds.contains(&k);
    let listing = async {
        let tools = async {
            if want(Kind::Tools) {
                peer.list_all_tools().await.map(Some)
            } else {
                Ok(None)
            }
        };
        let prompts = async {
            if want(Kind::Prompts) {
                peer.list_all_prompts().await.map(Some)
            } else {
                Ok(None)
            }
        };
        let resources = async {
            if want(Kind::Resources) {
                peer.list_all_resources().await.map(Some)
            } else {
                Ok(None)
            }
        };
        tokio::join!(tools, prompts, resources)
    };
    let (tools, prompts, resources) = tokio::time::timeout(timeout, listing)
        .await
        .map_err(|_| format!("listing took over {} s", timeout.as_secs_f32()))?;
    // A server without a capability answers "method not found": that list is empty.
    update.tools = tools.ok().flatten().map(|tools| {
        tools
            .into_iter()
            .map(|t| {
                let meta = t.meta.as_ref();
                let hint =
                    meta.and_then(|m| m.get("anthropic/searchHint")).and_then(|v| v.as_str()).map(str::to_string);
                let always_load = meta
                    .and_then(|m| m.get("anthropic/alwaysLoad"))
                    .and_then(serde_json::Value::as_bool)
                    .unwrap_or(false);
                ToolSpec {
                    name: t.name.to_string(),
                    description: t.description.map(|d| d.to_string()).unwrap_or_default(),
                    search_hint: hint,
                    always_load,
                }
            })
            .collect()
    });
    update.prompts = prompts.ok().flatten().map(|p| p.into_iter().map(|p| p.name).collect());
    update.resources = resources.ok().flatten().map(|r| r.into_iter().map(|r| r.uri).collect());
    Ok(update)
}

/// The live connections of a session: a tokio runtime, the batcher and every connection.
pub struct Live {
    runtime: tokio::runtime::Runtime,
    connections: Arc<Mutex<Vec<Connection>>>,
    peers: Peers,
}

/// Each connected server's peer, by server name, for tool calls.
type Peers = Arc<Mutex<std::collections::BTreeMap<String, rmcp::Peer<RoleClient>>>>;

/// Claude Code's `maxResultSizeChars` for MCP tool results (SEMANTICS §6.5).
pub const MAX_RESULT_CHARS: usize = 100_000;

/// Calls tools on the live connections from outside the runtime (the session's thread).
#[derive(Clone)]
pub struct Caller {
    handle: tokio::runtime::Handle,
    peers: Peers,
}

/// What a tool call returned: its text (cut at 100,000 characters with a notice) and whether
/// the server marked it an error.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct CallOutcome {
    pub text: String,
    pub is_error: bool,
    pub truncated: bool,
}

impl Caller {
    pub fn call(
        &self,
        server: &str,
        tool: &str,
        arguments: Option<serde_json::Map<String, serde_json::Value>>,
        timeout: Duration,
    ) -> Result<CallOutcome, String> {
        let peer = self
            .peers
            .lock()
            .map_err(|_| "the connection table is poisoned".to_string())?
            .get(server)
            .cloned()
            .ok_or_else(|| format!("MCP server `{server}` is not connected"))?;
        let mut params = rmcp::model::CallToolRequestParams::new(tool.to_string());
        params.arguments = arguments;
        let result = self
            .handle
            .block_on(async { tokio::time::timeout(timeout, peer.call_tool(params)).await })
            .map_err(|_| format!("`{tool}` did not answer within {} s", timeout.as_secs_f32()))?
            .map_err(|e| format!("`{tool}` failed: {e}"))?;
        let mut text = String::new();
        for block in &result.content {
            let value = serde_json::to_value(block).unwrap_or_default();
            if !text.is_empty() {
                text.push('\n');
            }
            match value.get("text").and_then(serde_json::Value::as_str) {
                Some(t) => text.push_str(t),
                None => text.push_str(&value.to_string()),
            }
        }
        let total = text.chars().count();
        let truncated = total > MAX_RESULT_CHARS;
        if truncated {
            let cut = text.char_indices().nth(MAX_RESULT_CHARS).map_or(text.len(), |(i, _)| i);
            text.truncate(cut);
            text.push_str(&format!("\n\n[result truncated: {total} characters, the first {MAX_RESULT_CHARS} shown]"));
        }
        Ok(CallOutcome { text, is_error: result.is_error.unwrap_or(false), truncated })
    }
}

impl Live {
    /// Connects every server of the session that Claude Code would start (stdio and
    /// Streamable HTTP) except project servers waiting for approval: those stay `pending`, as
    /// Claude Code asks first. SSE and WebSocket servers are reported `failed` with the reason.
    pub fn start(session: &mut crate::session::Session, timeout: Duration) -> std::io::Result<Live> {
        use capc_compiler::lock::model::{Approval, Scope, Transport};
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
        let shared: crate::batch::Shared =
            Arc::new(Mutex::new(crate::batch::Versioned { state: session.mcp.clone(), ..Default::default() }));
        let batcher = runtime.block_on(async { Batcher::spawn(shared.clone(), crate::batch::WINDOW) });
        let connections = Arc::new(Mutex::new(Vec::new()));
        let peers: Peers = Arc::new(Mutex::new(std::collections::BTreeMap::new()));
        for entry in session.loaded.lock.mcp_servers.iter().filter(|s| s.shadowed_by.is_none()) {
            let waiting = entry.scope == Scope::Project && entry.approval != Some(Approval::Approved);
            if waiting || entry.approval == Some(Approval::Disabled) || entry.denied_by.is_some() {
                continue;
            }
            let launch = match crate::launch::prepare(entry, |name| std::env::var(name).ok()) {
                Ok(launch) => launch,
                Err(e) => {
                    batcher.send(Update {
                        server: entry.name.clone(),
                        status: Some(Status::Failed),
                        error: Some(e.to_string()),
                        ..Update::default()
                    });
                    continue;
                }
            };
            let (batcher, connections, peers, name) =
                (batcher.clone(), connections.clone(), peers.clone(), entry.name.clone());
            let http = entry.transport == Transport::Http;
            runtime.spawn(async move {
                let connection = if http {
                    connect_http(&name, &launch, timeout, &batcher).await
                } else {
                    connect_stdio(&name, &launch, timeout, &batcher).await
                };
                if let Some(c) = connection {
                    if let Ok(mut all) = peers.lock() {
                        all.insert(name.clone(), c.service.peer().clone());
                    }
                    if let Ok(mut all) = connections.lock() {
                        all.push(c);
                    }
                }
            });
        }
        session.live = Some(shared);
        session.caller = Some(Caller { handle: runtime.handle().clone(), peers: peers.clone() });
        Ok(Live { runtime, connections, peers })
    }

    /// Closes every connection (each server's process group ends) and stops the runtime.
    pub fn shutdown(self) {
        if let Ok(mut peers) = self.peers.lock() {
            peers.clear();
        }
        let connections: Vec<Connection> =
            self.connections.lock().map(|mut all| std::mem::take(&mut *all)).unwrap_or_default();
        self.runtime.block_on(async {
            for c in connections {
                c.close().await;
            }
        });
        self.runtime.shutdown_timeout(Duration::from_secs(2));
    }
}

//! Live MCP connections with rmcp (SEMANTICS §6.3–6.4, measured notes in
//! `../shared/spec/MCP.md`). Each server has one supervisor task that:
//!
//! 1. starts it — a stdio server as a child in its own process group (stdin/stdout carry
//!    JSON-RPC lines of up to [`Settings::max_message_bytes`], stderr drained into a tail kept
//!    for errors), a Streamable HTTP server over reqwest with rustls — and negotiates the
//!    protocol (`server/discover` with a fallback to `initialize`, Claude Code's `auto`), within
//!    the connect timeout and a per-class concurrency window (3 local, 20 remote);
//! 2. lists tools, prompts and resources together and sends them as one [`Update`] to the
//!    [`Batcher`]; on `notifications/*/list_changed` — or, on a 2026-07-28 session, on its
//!    `subscriptions/listen` stream — re-lists that kind (a failed refresh keeps the previous
//!    list, as Claude Code does since v2.1.214);
//! 3. watches the connection: a stdio server that exits is `failed` with its exit status and
//!    stderr tail (Claude Code never reconnects stdio servers); a remote server that stops
//!    answering (a periodic ping, or any failed request) is reconnected with back-off — each
//!    attempt `pending`, 5 tries, 1 s doubling to 30 s — and `failed` after the last;
//! 4. on shutdown closes the session and ends the server's whole process group.

use crate::batch::Batcher;
use crate::launch::{Launch, LaunchError, StderrTail};
use crate::mcp::{Status, ToolSpec, Update};
use capc_compiler::model::Transport;
use rmcp::model::{ClientConfig, Implementation, ProtocolVersion, ServerNotification, SubscriptionFilter};
use rmcp::service::{ClientLifecycleMode, NotificationContext, RunningService};
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::{ClientHandler, ClientServiceExt, RoleClient};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::AsyncReadExt;
use tokio::sync::{mpsc, watch, Semaphore};

/// How many bytes of a server's stderr are kept for its failure report.
pub const STDERR_TAIL: usize = 4096;

/// Claude Code's `maxResultSizeChars` for MCP tool results (SEMANTICS §6.5).
pub const MAX_RESULT_CHARS: usize = 100_000;

/// Reconnection back-off: `min(first · 2^(n−1), cap)` before attempt `n`, `tries` attempts
/// (Claude Code's `MAX_RECONNECT_ATTEMPTS` = 5, 1 s doubling, 30 s cap).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    pub tries: u32,
    pub first: Duration,
    pub cap: Duration,
}

impl Default for Backoff {
    fn default() -> Backoff {
        Backoff { tries: 5, first: Duration::from_secs(1), cap: Duration::from_secs(30) }
    }
}

impl Backoff {
    /// The wait before attempt `attempt` (1-based).
    pub fn delay(&self, attempt: u32) -> Duration {
        let doubled = self.first.saturating_mul(1u32.checked_shl(attempt.saturating_sub(1)).unwrap_or(u32::MAX));
        doubled.min(self.cap)
    }
}

/// How the client starts a session with a server (`MCP_PROTOCOL_NEGOTIATION`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Negotiation {
    /// `server/discover` for the 2026-07-28 protocol, falling back to `initialize` (Claude
    /// Code's default since v2.1.232).
    Auto,
    /// `initialize` only.
    Legacy,
}

/// What the connections need to know; [`Settings::from_env`] reads Claude Code's variables.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Start-up (connect + `initialize`) and listing timeout: `MCP_TIMEOUT`, 30 s.
    pub connect_timeout: Duration,
    pub negotiation: Negotiation,
    pub backoff: Backoff,
    /// How often a connected remote server is pinged to notice that it went away (a restarted
    /// HTTP server does not tell its clients).
    pub ping_every: Duration,
    /// How long a ping may take before the server counts as gone. A restarted server-everything
    /// answers a stale session with an error rmcp cannot match to the request, which then
    /// never ends: only this timeout notices.
    pub ping_timeout: Duration,
    /// The largest JSON-RPC message read from a server (rmcp's default is 16 MiB; Claude Code
    /// has no such cap, so a 50 MB tool description must still be read, then cut). A longer
    /// line is dropped by rmcp, and the request it answered then times out.
    pub max_message_bytes: usize,
    /// Servers connecting at once: stdio (`MCP_SERVER_CONNECTION_BATCH_SIZE`, 3) and remote
    /// (`MCP_REMOTE_SERVER_CONNECTION_BATCH_SIZE`, 20).
    pub local_window: usize,
    pub remote_window: usize,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            connect_timeout: Duration::from_secs(30),
            negotiation: Negotiation::Auto,
            backoff: Backoff::default(),
            ping_every: Duration::from_secs(30),
            ping_timeout: Duration::from_secs(10),
            max_message_bytes: 128 * 1024 * 1024,
            local_window: 3,
            remote_window: 20,
        }
    }
}

impl Settings {
    /// The defaults, overridden by Claude Code's environment variables where set and valid.
    pub fn from_env(lookup: impl Fn(&str) -> Option<String>) -> Settings {
        let number = |name: &str| lookup(name).and_then(|v| v.trim().parse::<u64>().ok()).filter(|n| *n > 0);
        let mut settings = Settings::default();
        if let Some(ms) = number("MCP_TIMEOUT") {
            settings.connect_timeout = Duration::from_millis(ms);
        }
        if let Some(n) = number("MCP_SERVER_CONNECTION_BATCH_SIZE") {
            settings.local_window = n as usize;
        }
        if let Some(n) = number("MCP_REMOTE_SERVER_CONNECTION_BATCH_SIZE") {
            settings.remote_window = n as usize;
        }
        if lookup("MCP_PROTOCOL_NEGOTIATION").is_some_and(|v| v.trim().eq_ignore_ascii_case("legacy")) {
            settings.negotiation = Negotiation::Legacy;
        }
        settings
    }
}

/// Which list a notification says changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Tools,
    Prompts,
    Resources,
}

const ALL: [Kind; 3] = [Kind::Tools, Kind::Prompts, Kind::Resources];

/// Forwards list-changed notifications to the one task that re-lists (rmcp runs each callback
/// on its own task, so their order is not guaranteed).
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
    /// The capabilities Claude Code 2.1.332 declares, roots and elicitation (form and URL), so a
    /// server offers capc the tools it offers Claude Code (server-everything's
    /// `get-roots-list`, `trigger-elicitation-request`, `trigger-url-elicitation` depend on
    /// them). capc answers `roots/list` with no roots and declines every elicitation.
    fn get_info(&self) -> ClientConfig {
        use rmcp::model::{
            ElicitationCapability, FormElicitationCapability, RootsCapabilities, UrlElicitationCapability,
        };
        let mut config = ClientConfig::default();
        config.client_info = Implementation::new("capc", env!("CARGO_PKG_VERSION"));
        config.capabilities.roots = Some(RootsCapabilities::default());
        config.capabilities.elicitation = Some(
            ElicitationCapability::new()
                .with_form(FormElicitationCapability::new())
                .with_url(UrlElicitationCapability::new()),
        );
        config
    }
}

type Tail = Arc<Mutex<StderrTail>>;
type Service = RunningService<RoleClient, Handler>;
type Child = Box<dyn process_wrap::tokio::ChildWrapper>;

/// `why`, followed by the server's last stderr lines when it wrote any.
fn with_tail(why: String, tail: &Tail) -> String {
    let tail = tail.lock().map(|t| t.text()).unwrap_or_default();
    if tail.is_empty() {
        why
    } else {
        format!("{why}\nstderr: {tail}")
    }
}

/// One live session with a server.
struct Connection {
    service: Service,
    /// A stdio server's process group.
    process: Option<Process>,
    changes: mpsc::UnboundedReceiver<Kind>,
    /// The handler's sender, for the listen stream.
    changed: mpsc::UnboundedSender<Kind>,
    /// A 2026-07-28 session's `subscriptions/listen` reader.
    listener: Option<tokio::task::JoinHandle<()>>,
}

fn lifecycle(negotiation: Negotiation) -> ClientLifecycleMode {
    match negotiation {
        Negotiation::Auto => ClientLifecycleMode::Auto {
            preferred_versions: vec![ProtocolVersion::LATEST],
            legacy_version: Some(ProtocolVersion::LATEST_WITH_INITIALIZE),
        },
        Negotiation::Legacy => ClientLifecycleMode::Initialize,
    }
}

/// Negotiates a session over `transport` within the connect timeout (`Err` when it ran out):
/// a connection without a process yet.
async fn negotiate<T, E, A>(
    transport: T,
    settings: &Settings,
) -> Result<Result<Connection, rmcp::service::ClientInitializeError>, tokio::time::error::Elapsed>
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let (changed, changes) = mpsc::unbounded_channel();
    let handler = Handler { changed: changed.clone() };
    let serving = handler.serve_with_lifecycle(transport, lifecycle(settings.negotiation));
    let started = tokio::time::timeout(settings.connect_timeout, serving).await?;
    Ok(started.map(|service| Connection { service, process: None, changes, changed, listener: None }))
}

/// Starts a stdio server and negotiates a session with it.
async fn open_stdio(launch: &Launch, settings: &Settings, tail: &Tail) -> Result<Connection, String> {
    use process_wrap::tokio::{CommandWrap, KillOnDrop, ProcessGroup};
    use std::process::Stdio;
    let Some(program) = launch.command.as_deref() else {
        return Err("the server has no `command`".into());
    };
    let mut command = CommandWrap::with_new(program, |c| {
        c.args(&launch.args).envs(&launch.env).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        if let Some(dir) = &launch.cwd {
            c.current_dir(dir);
        }
    });
    command.wrap(ProcessGroup::leader()).wrap(KillOnDrop);
    let mut child = command.spawn().map_err(|e| format!("cannot start `{program}`: {e}"))?;
    // Always drain stderr: an undrained pipe deadlocks a chatty server (MCP.md §6).
    let stderr = child.stderr().take().map(|mut stderr| {
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
        })
    });
    let (stdout, stdin) = (child.stdout().take(), child.stdin().take());
    let mut process = Process { child, stderr };
    let (Some(stdout), Some(stdin)) = (stdout, stdin) else {
        process.end().await;
        return Err("the server's stdin/stdout could not be opened".into());
    };
    let transport =
        AsyncRwTransport::<RoleClient, _, _>::new(stdout, stdin).with_max_line_length(settings.max_message_bytes);
    match negotiate(transport, settings).await {
        Ok(Ok(connection)) => Ok(Connection { process: Some(process), ..connection }),
        Ok(Err(e)) => {
            let exited = process.exited().await;
            process.end().await;
            Err(match exited {
                Some(status) => format!("the server exited during initialize ({status})"),
                None => format!("initialize failed: {e}"),
            })
        }
        Err(_) => {
            process.end().await;
            Err(format!("no answer to initialize within {}", seconds(settings.connect_timeout)))
        }
    }
}

/// Connects a Streamable HTTP server (`headers` sent with every request).
async fn open_http(launch: &Launch, settings: &Settings) -> Result<Connection, String> {
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    use rmcp::transport::StreamableHttpClientTransport;
    let Some(url) = launch.url.as_deref() else {
        return Err("the server has no `url`".into());
    };
    let mut all = launch.headers.clone();
    if let Some(helper) = &launch.headers_helper {
        all.extend(run_headers_helper(helper, launch.cwd.as_deref()).await?);
    }
    let mut headers = std::collections::HashMap::new();
    for (name, value) in &all {
        match (http::HeaderName::try_from(name.as_str()), http::HeaderValue::try_from(value.as_str())) {
            (Ok(n), Ok(v)) => {
                headers.insert(n, v);
            }
            _ => return Err(format!("header `{name}` is not a valid HTTP header")),
        }
    }
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.to_string())
        .custom_headers(headers)
        // A restarted server forgets the session: get a typed error and reconnect (re-listing
        // everything) rather than rmcp's silent re-initialization (MCP.md §6.7).
        .reinit_on_expired_session(false);
    config.max_json_response_size = settings.max_message_bytes;
    config.max_sse_event_size = settings.max_message_bytes;
    let transport = StreamableHttpClientTransport::from_config(config);
    match negotiate(transport, settings).await {
        Ok(Ok(connection)) => Ok(connection),
        Ok(Err(e)) => {
            let cause = init_cause(&e);
            // Claude Code would offer an OAuth sign-in here; a session from the lock cannot.
            let hint = if cause.contains("HTTP 401") || cause.contains("HTTP 403") {
                "; the server wants credentials: send them with `headers` (a `${VAR}` reference) or `headersHelper` (OAuth sign-in is not supported)"
            } else {
                ""
            };
            Err(format!("cannot connect to {url}: {cause}{hint}"))
        }
        Err(_) => Err(format!("no answer from {url} within {}", seconds(settings.connect_timeout))),
    }
}

/// Claude Code's limit for a `headersHelper`.
pub const HEADERS_HELPER_TIMEOUT: Duration = Duration::from_secs(10);

/// Runs a server's `headersHelper` (`sh -c`, 10 s) and reads the JSON object of string
/// headers it prints. Its output is never shown: it holds credentials.
async fn run_headers_helper(helper: &str, cwd: Option<&str>) -> Result<BTreeMap<String, String>, String> {
    let mut command = tokio::process::Command::new("sh");
    command.arg("-c").arg(helper).stdin(std::process::Stdio::null()).kill_on_drop(true);
    if let Some(dir) = cwd {
        command.current_dir(dir);
    }
    let output = tokio::time::timeout(HEADERS_HELPER_TIMEOUT, command.output())
        .await
        .map_err(|_| format!("`headersHelper` did not finish within {}", seconds(HEADERS_HELPER_TIMEOUT)))?
        .map_err(|e| format!("`headersHelper` could not run: {e}"))?;
    if !output.status.success() {
        return Err(format!("`headersHelper` failed ({})", output.status));
    }
    serde_json::from_slice::<BTreeMap<String, String>>(&output.stdout)
        .map_err(|_| "`headersHelper` must print a JSON object whose values are strings".to_string())
}

/// An error with every `source()` in its chain, each once.
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut next = error.source();
    while let Some(cause) = next {
        let more = cause.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        next = cause.source();
    }
    text
}

/// The cause of a failed HTTP request, which rmcp's transport error does not chain (MCP.md
/// §6.9): "error sending request" becomes "... tcp connect error: Connection refused".
fn transport_cause(error: &rmcp::transport::DynamicTransportError) -> Option<String> {
    use rmcp::transport::streamable_http_client::StreamableHttpError;
    match error.error.downcast_ref::<StreamableHttpError<reqwest::Error>>()? {
        StreamableHttpError::Client(e) => Some(chain(e)),
        other => Some(chain(other)),
    }
}

/// Why `initialize` (or `server/discover`) failed, with the transport's cause when it has one.
fn init_cause(error: &rmcp::service::ClientInitializeError) -> String {
    use rmcp::service::ClientInitializeError;
    if let ClientInitializeError::TransportError { error, context } = error {
        if let Some(cause) = transport_cause(error) {
            return format!("{cause} (when {context})");
        }
    }
    chain(error)
}

/// Why a request failed, likewise.
fn request_cause(error: &rmcp::ServiceError) -> String {
    match error {
        rmcp::ServiceError::TransportSend(e) => transport_cause(e).unwrap_or_else(|| chain(error)),
        _ => chain(error),
    }
}

fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        format!("{s} s")
    }
}

const SIGTERM: i32 = 15;
const SIGKILL: i32 = 9;

/// A stdio server's process group and the task draining its stderr into the tail.
struct Process {
    child: Child,
    stderr: Option<tokio::task::JoinHandle<()>>,
}

/// How long to wait for an exiting server's status, and for its last stderr bytes.
const EXIT_GRACE: Duration = Duration::from_millis(300);

impl Process {
    /// Waits briefly for the server to exit and for the last of its stderr; its exit status.
    async fn exited(&mut self) -> Option<std::process::ExitStatus> {
        let status = tokio::time::timeout(EXIT_GRACE, self.child.wait()).await.ok().and_then(Result::ok);
        self.drained().await;
        status
    }

    async fn drained(&mut self) {
        if let Some(task) = self.stderr.as_mut() {
            // A finished task must not be polled again.
            if tokio::time::timeout(EXIT_GRACE, task).await.is_ok() {
                self.stderr = None;
            }
        }
    }

    /// Ends a server whose stdin is closed: a moment to exit on its own, then SIGTERM, then
    /// SIGKILL — always to the whole process group, so `npx`/`uvx`/`sh -c` wrappers leave no
    /// server behind.
    async fn end(mut self) {
        async fn wait(child: &mut Child, ms: u64) -> bool {
            tokio::time::timeout(Duration::from_millis(ms), child.wait()).await.is_ok()
        }
        if !wait(&mut self.child, 500).await {
            let _ = self.child.signal(SIGTERM);
            if !wait(&mut self.child, 1000).await {
                let _ = self.child.start_kill();
                wait(&mut self.child, 1000).await;
            }
        }
        // Whatever else the server started in its group.
        let _ = self.child.signal(SIGKILL);
        self.drained().await;
        if let Some(task) = self.stderr.take() {
            task.abort();
        }
    }
}

impl Drop for Process {
    /// A connection dropped half-way (the session ended during `initialize`) still ends the
    /// whole group: process-wrap's kill-on-drop reaches only the direct child, and a wrapper
    /// shell's server would outlive it.
    fn drop(&mut self) {
        let _ = self.child.signal(SIGKILL);
    }
}

/// Why a stdio server's connection closed: its exit status when it has one.
async fn exit_reason(process: Option<&mut Process>) -> String {
    let status = match process {
        Some(process) => process.exited().await,
        None => None,
    };
    match status {
        Some(status) => format!("the server closed the connection (it exited: {status})"),
        None => "the server closed the connection".to_string(),
    }
}

/// What a listing found: one update (the lists that could be read) and what went wrong.
struct Listing {
    update: Update,
    problems: Vec<String>,
}

/// Lists the given kinds concurrently into one update. A server without a capability answers
/// "method not found": that list is empty. Another error leaves that list out (`None`: a
/// refresh keeps the previous one) and is named in `problems`.
async fn list(
    server: &str,
    peer: &rmcp::Peer<RoleClient>,
    kinds: &[Kind],
    timeout: Duration,
) -> Result<Listing, String> {
    fn read<T>(
        kind: &str,
        result: Option<Result<Vec<T>, rmcp::ServiceError>>,
        problems: &mut Vec<String>,
    ) -> Option<Vec<T>> {
        match result? {
            Ok(list) => Some(list),
            Err(rmcp::ServiceError::McpError(e)) if e.code == rmcp::model::ErrorCode::METHOD_NOT_FOUND => {
                Some(Vec::new())
            }
            Err(e) => {
                problems.push(format!("{kind}/list failed: {e}"));
                None
            }
        }
    }
    let want = |k: Kind| kinds.contains(&k);
    let listing = async {
        let tools = async {
            if want(Kind::Tools) {
                Some(peer.list_all_tools().await)
            } else {
                None
            }
        };
        let prompts = async {
            if want(Kind::Prompts) {
                Some(peer.list_all_prompts().await)
            } else {
                None
            }
        };
        let resources = async {
            if want(Kind::Resources) {
                Some(peer.list_all_resources().await)
            } else {
                None
            }
        };
        tokio::join!(tools, prompts, resources)
    };
    let (tools, prompts, resources) =
        tokio::time::timeout(timeout, listing).await.map_err(|_| format!("listing took over {}", seconds(timeout)))?;
    let mut problems = Vec::new();
    let mut update = Update { server: server.to_string(), ..Update::default() };
    update.tools = read("tools", tools, &mut problems).map(|tools| {
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
                // Cut here, not only in the state: a 50 MB description is not kept twice.
                let description = t.description.map(|d| crate::mcp::truncate_description(&d)).unwrap_or_default();
                ToolSpec { name: t.name.to_string(), description, search_hint: hint, always_load }
            })
            .collect()
    });
    update.prompts = read("prompts", prompts, &mut problems).map(|p| {
        p.into_iter()
            .map(|p| crate::mcp::PromptSpec::Full {
                name: p.name,
                arguments: p.arguments.unwrap_or_default().into_iter().map(|a| a.name).collect(),
            })
            .collect()
    });
    update.resources = read("resources", resources, &mut problems).map(|r| r.into_iter().map(|r| r.uri).collect());
    Ok(Listing { update, problems })
}

/// On a 2026-07-28 session, list_changed notifications come only on a `subscriptions/listen`
/// stream (MCP.md §3). It is opened before the first listing (a change in between is not
/// lost) and reopened up to [`LISTEN_REOPENS`] times when the server ends it.
async fn listen(conn: &mut Connection, timeout: Duration) -> Result<(), String> {
    let modern = conn.service.peer_info().is_some_and(|info| !info.protocol_version.has_initialize());
    if !modern {
        return Ok(());
    }
    let peer = conn.service.peer().clone();
    let filter =
        SubscriptionFilter::builder().tools_list_changed().prompts_list_changed().resources_list_changed().build();
    let open = move |peer: rmcp::Peer<RoleClient>, filter: SubscriptionFilter| async move {
        tokio::time::timeout(timeout, peer.listen(filter))
            .await
            .map_err(|_| format!("subscriptions/listen took over {}", seconds(timeout)))?
            .map_err(|e| format!("subscriptions/listen failed: {e}"))
    };
    let mut subscription = open(peer.clone(), filter.clone()).await?;
    let changed = conn.changed.clone();
    conn.listener = Some(tokio::spawn(async move {
        let mut reopens = 0;
        loop {
            match subscription.next().await {
                Ok(Some(notification)) => {
                    let kind = match notification {
                        ServerNotification::ToolListChangedNotification(_) => Kind::Tools,
                        ServerNotification::PromptListChangedNotification(_) => Kind::Prompts,
                        ServerNotification::ResourceListChangedNotification(_) => Kind::Resources,
                        _ => continue,
                    };
                    if changed.send(kind).is_err() {
                        return;
                    }
                }
                // Notifications were dropped: every list may have changed.
                Err(rmcp::ServiceError::SubscriptionLagged { .. }) => {
                    for kind in ALL {
                        let _ = changed.send(kind);
                    }
                }
                Ok(None) | Err(_) => {
                    if peer.is_transport_closed() || reopens == LISTEN_REOPENS {
                        return;
                    }
                    reopens += 1;
                    match open(peer.clone(), filter.clone()).await {
                        Ok(again) => subscription = again,
                        Err(_) => return,
                    }
                }
            }
        }
    }));
    Ok(())
}

/// How often a `subscriptions/listen` stream the server ended is reopened.
pub const LISTEN_REOPENS: u32 = 3;

impl Connection {
    /// Ends the session: the listen reader, the MCP session (stdin closed, or an HTTP DELETE),
    /// then a stdio server's process group.
    async fn close(mut self) {
        if let Some(listener) = self.listener.take() {
            listener.abort();
        }
        let _ = tokio::time::timeout(Duration::from_secs(5), self.service.cancel()).await;
        if let Some(process) = self.process.take() {
            process.end().await;
        }
    }
}

/// Opens a connection and makes its first listing, inside the server's concurrency window.
async fn connect(
    server: &str,
    launch: &Launch,
    settings: &Settings,
    window: &Semaphore,
    tail: &Tail,
) -> Result<(Connection, Update), String> {
    let _permit = window.acquire().await.map_err(|_| "the session is ending".to_string())?;
    let mut conn = match launch.transport {
        Transport::Http => open_http(launch, settings).await?,
        _ => open_stdio(launch, settings, tail).await?,
    };
    let mut problems = Vec::new();
    if let Err(why) = listen(&mut conn, settings.connect_timeout).await {
        problems.push(format!("{why}; list changes will not be seen"));
    }
    let listing = match list(server, conn.service.peer(), &ALL, settings.connect_timeout).await {
        Ok(listing) => listing,
        Err(why) => {
            conn.close().await;
            return Err(why);
        }
    };
    let mut update = listing.update;
    problems.extend(listing.problems);
    update.status = Some(Status::Connected);
    let info = conn.service.peer_info();
    update.instructions = info.as_ref().and_then(|info| info.instructions.clone());
    update.protocol = info.map(|info| info.protocol_version.to_string());
    update.error = (!problems.is_empty()).then(|| problems.join("; "));
    Ok((conn, update))
}

/// Why a connection's watch ended.
enum Ended {
    Stopped,
    Lost(String),
}

/// Resolves once the session is ending (or its owner is gone).
async fn stopped(stop: &mut watch::Receiver<bool>) {
    while !*stop.borrow_and_update() {
        if stop.changed().await.is_err() {
            return;
        }
    }
}

/// Whether the server still answers: a `ping` within `timeout`, or why not.
async fn ping_once(peer: &rmcp::Peer<RoleClient>, timeout: Duration) -> Result<(), String> {
    let request = rmcp::model::ClientRequest::PingRequest(Default::default());
    match tokio::time::timeout(timeout, peer.send_request(request)).await {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(e)) => Err(format!("the server stopped answering: {}", request_cause(&e))),
        Err(_) => Err(format!("no answer to ping within {}", seconds(timeout))),
    }
}

/// Keeps a connection's lists live until it is lost or the session ends.
async fn watch_connection(
    server: &str,
    conn: &mut Connection,
    settings: &Settings,
    batcher: &Batcher,
    check: &tokio::sync::Notify,
    stop: &mut watch::Receiver<bool>,
) -> Ended {
    let peer = conn.service.peer().clone();
    let remote = conn.process.is_none();
    let mut tick = tokio::time::interval(Duration::from_millis(100));
    let mut ping = tokio::time::interval_at(tokio::time::Instant::now() + settings.ping_every, settings.ping_every);
    loop {
        tokio::select! {
            () = stopped(stop) => return Ended::Stopped,
            kind = conn.changes.recv() => {
                let Some(kind) = kind else { return Ended::Lost("the session with the server ended".into()) };
                // A burst of notifications is one re-list of the kinds it named.
                let mut kinds = vec![kind];
                while let Ok(more) = conn.changes.try_recv() {
                    kinds.push(more);
                }
                kinds.sort();
                kinds.dedup();
                let refreshed = list(server, &peer, &kinds, settings.connect_timeout).await;
                if peer.is_transport_closed() {
                    return Ended::Lost(exit_reason(conn.process.as_mut()).await);
                }
                // A remote server whose refresh failed may be gone (a restart is silent): ask now
                // rather than at the next ping.
                let failed = refreshed.as_ref().map_or(true, |l| !l.problems.is_empty());
                if remote && failed {
                    if let Err(why) = ping_once(&peer, settings.ping_timeout).await {
                        return Ended::Lost(why);
                    }
                }
                let mut update = match refreshed {
                    Ok(listing) => {
                        let mut update = listing.update;
                        if !listing.problems.is_empty() {
                            update.error = Some(format!("{}; the previous list is kept", listing.problems.join("; ")));
                        }
                        update
                    }
                    Err(why) => Update {
                        server: server.to_string(),
                        error: Some(format!("{why}; the previous lists are kept")),
                        ..Update::default()
                    },
                };
                update.status = Some(Status::Connected);
                batcher.send(update);
            }
            _ = tick.tick() => {
                if peer.is_transport_closed() {
                    return Ended::Lost(exit_reason(conn.process.as_mut()).await);
                }
            }
            // The periodic ping, or one a failed tool call asked for.
            () = async { tokio::select! { _ = ping.tick() => {}, () = check.notified() => {} } }, if remote => {
                if let Err(why) = ping_once(&peer, settings.ping_timeout).await {
                    return Ended::Lost(why);
                }
            }
        }
    }
}

/// A connected server as tool calls reach it: its peer, and a nudge that makes its supervisor
/// check the connection at once (a failed call may be the first sign that it is gone).
#[derive(Clone)]
struct Reachable {
    peer: rmcp::Peer<RoleClient>,
    check: Arc<tokio::sync::Notify>,
}

/// Each connected server, by name, for tool calls.
type Peers = Arc<Mutex<BTreeMap<String, Reachable>>>;

/// One server's life: connect, stay live, and — for a remote server whose connection is lost
/// — reconnect with back-off until it works or the tries run out.
async fn supervise(
    server: String,
    launch: Launch,
    settings: Arc<Settings>,
    window: Arc<Semaphore>,
    batcher: Batcher,
    peers: Peers,
    mut stop: watch::Receiver<bool>,
) {
    let remote = launch.transport != Transport::Stdio;
    let fail = |why: String| Update {
        server: server.clone(),
        status: Some(Status::Failed),
        error: Some(why),
        ..Update::default()
    };
    let mut was_connected = false;
    let mut attempt = 0;
    loop {
        let tail: Tail = Arc::new(Mutex::new(StderrTail::new(STDERR_TAIL)));
        let opened = tokio::select! {
            opened = connect(&server, &launch, &settings, &window, &tail) => opened,
            () = stopped(&mut stop) => return,
        };
        let why = match opened {
            Ok((mut conn, update)) => {
                attempt = 0;
                was_connected = true;
                let check = Arc::new(tokio::sync::Notify::new());
                if let Ok(mut all) = peers.lock() {
                    all.insert(server.clone(), Reachable { peer: conn.service.peer().clone(), check: check.clone() });
                }
                batcher.send(update);
                let ended = watch_connection(&server, &mut conn, &settings, &batcher, &check, &mut stop).await;
                if let Ok(mut all) = peers.lock() {
                    all.remove(&server);
                }
                conn.close().await;
                match ended {
                    Ended::Stopped => return,
                    Ended::Lost(why) => with_tail(why, &tail),
                }
            }
            Err(why) => with_tail(why, &tail),
        };
        // Claude Code reconnects only remote servers, and only after they were connected.
        if !remote || !was_connected {
            batcher.send(fail(why));
            return;
        }
        attempt += 1;
        if attempt > settings.backoff.tries {
            batcher.send(fail(format!("{why} (gave up after {} reconnection attempts)", settings.backoff.tries)));
            return;
        }
        let delay = settings.backoff.delay(attempt);
        batcher.send(Update {
            server: server.clone(),
            status: Some(Status::Pending),
            error: Some(format!(
                "{why}; reconnecting in {} (attempt {attempt} of {})",
                seconds(delay),
                settings.backoff.tries
            )),
            ..Update::default()
        });
        tokio::select! {
            () = tokio::time::sleep(delay) => {}
            () = stopped(&mut stop) => return,
        }
    }
}

/// The supervised servers of a session. Start and shut down on a tokio runtime.
pub struct Servers {
    stopper: Stopper,
    peers: Peers,
}

/// Ends every supervisor of a [`Servers`]; cheap to clone (a signal handler holds one).
#[derive(Clone)]
pub struct Stopper {
    stop: Arc<watch::Sender<bool>>,
    tasks: Arc<Mutex<Vec<tokio::task::JoinHandle<()>>>>,
}

impl Stopper {
    /// Closes every connection (each stdio server's process group ends) and waits for the
    /// supervisors, at most 10 s.
    pub async fn stop(&self) {
        let _ = self.stop.send(true);
        let tasks = self.tasks.lock().map(|mut t| std::mem::take(&mut *t)).unwrap_or_default();
        let all = async {
            for task in tasks {
                let _ = task.await;
            }
        };
        let _ = tokio::time::timeout(Duration::from_secs(10), all).await;
    }
}

impl Servers {
    /// Starts a supervisor for each server; every state change goes to `batcher`.
    pub fn start(servers: Vec<(String, Launch)>, settings: Settings, batcher: &Batcher) -> Servers {
        let (stop, watching) = watch::channel(false);
        let local = Arc::new(Semaphore::new(settings.local_window.max(1)));
        let remote = Arc::new(Semaphore::new(settings.remote_window.max(1)));
        let settings = Arc::new(settings);
        let peers: Peers = Arc::default();
        let tasks = servers
            .into_iter()
            .map(|(name, launch)| {
                let window = if launch.transport == Transport::Stdio { local.clone() } else { remote.clone() };
                tokio::spawn(supervise(
                    name,
                    launch,
                    settings.clone(),
                    window,
                    batcher.clone(),
                    peers.clone(),
                    watching.clone(),
                ))
            })
            .collect();
        Servers { stopper: Stopper { stop: Arc::new(stop), tasks: Arc::new(Mutex::new(tasks)) }, peers }
    }

    /// Calls tools on these servers from outside the runtime that `handle` names.
    pub fn caller(&self, handle: tokio::runtime::Handle) -> Caller {
        Caller { handle, peers: self.peers.clone() }
    }

    pub fn stopper(&self) -> Stopper {
        self.stopper.clone()
    }

    /// Closes every connection and waits for the supervisors (see [`Stopper::stop`]).
    pub async fn shutdown(self) {
        self.stopper.stop().await;
    }
}

/// How long a tool call may take (FORMATS §4.7): the server's `timeout` (values under 1,000 ms
/// are ignored), else `MCP_TOOL_TIMEOUT`, else 100,000,000 ms; a remote server's request also
/// stops at 60 s unless one of those two is at least 60 s.
pub fn tool_timeout(server: &capc_compiler::model::McpServer, lookup: impl Fn(&str) -> Option<String>) -> Duration {
    let from_env = lookup("MCP_TOOL_TIMEOUT").and_then(|v| v.trim().parse::<u64>().ok()).filter(|ms| *ms > 0);
    let configured = server.timeout.filter(|ms| *ms >= 1000).or(from_env);
    let wall = configured.unwrap_or(100_000_000);
    let remote = server.transport != Transport::Stdio;
    let ms = if remote && configured.is_none_or(|ms| ms < 60_000) { wall.min(60_000) } else { wall };
    Duration::from_millis(ms)
}

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
    /// Sends one request (`what`, for errors) to `server` and waits at most `timeout`. A failure
    /// or a timeout makes the server's supervisor check it now and reconnect if it is gone (a
    /// restarted HTTP server forgets the session; a remote server that stopped answering times
    /// out).
    fn request<T, F>(
        &self,
        server: &str,
        what: &str,
        timeout: Duration,
        send: impl FnOnce(rmcp::Peer<RoleClient>) -> F,
    ) -> Result<T, String>
    where
        F: std::future::Future<Output = Result<T, rmcp::ServiceError>>,
    {
        let Reachable { peer, check } = self
            .peers
            .lock()
            .map_err(|_| "the connection table is poisoned".to_string())?
            .get(server)
            .cloned()
            .ok_or_else(|| format!("MCP server `{server}` is not connected"))?;
        match self.handle.block_on(async { tokio::time::timeout(timeout, send(peer)).await }) {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(e)) => {
                check.notify_one();
                Err(format!("{what} failed: {}", request_cause(&e)))
            }
            Err(_) => {
                check.notify_one();
                Err(format!("{what} did not answer within {}", seconds(timeout)))
            }
        }
    }

    pub fn call(
        &self,
        server: &str,
        tool: &str,
        arguments: Option<serde_json::Map<String, serde_json::Value>>,
        timeout: Duration,
    ) -> Result<CallOutcome, String> {
        let mut params = rmcp::model::CallToolRequestParams::new(tool.to_string());
        params.arguments = arguments;
        let result =
            self.request(server, &format!("`{tool}`"), timeout, |peer| async move { peer.call_tool(params).await })?;
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

impl Caller {
    /// `prompts/get` of `prompt` on `server` with `arguments`: the text of each message.
    pub fn prompt(
        &self,
        server: &str,
        prompt: &str,
        arguments: serde_json::Map<String, serde_json::Value>,
        timeout: Duration,
    ) -> Result<Vec<String>, String> {
        let params = rmcp::model::GetPromptRequestParams::new(prompt.to_string()).with_arguments(arguments);
        let result = self.request(server, &format!("prompt `{prompt}`"), timeout, |peer| async move {
            peer.get_prompt(params).await
        })?;
        Ok(result
            .messages
            .iter()
            .map(|m| {
                let value = serde_json::to_value(&m.content).unwrap_or_default();
                value.get("text").and_then(serde_json::Value::as_str).map_or_else(|| value.to_string(), str::to_string)
            })
            .collect())
    }
}

/// The servers of a lock that a session connects: Claude Code's choice (not hidden by another
/// server, not disabled or denied), each ready to start or with the reason it cannot be. A
/// project server that is neither approved nor turned off starts in a headless session
/// (`claude -p` approves it, trusted folder or not); an interactive one leaves it `pending`,
/// as Claude Code asks first.
pub fn launches(
    lock: &capc_compiler::model::Lock,
    lookup: impl Fn(&str) -> Option<String>,
    entry: crate::context::Entry,
    trusted: bool,
) -> Vec<(String, Result<Launch, LaunchError>)> {
    candidates(lock, entry)
        .filter(|s| trusted || !crate::trust::server_needs_trust(s))
        .map(|s| (s.name.clone(), crate::launch::prepare(s, &lookup)))
        .collect()
}

/// The servers [`launches`] would start in a trusted folder but leaves alone in an untrusted
/// one: the repository's own.
pub fn held_back(lock: &capc_compiler::model::Lock, entry: crate::context::Entry) -> Vec<String> {
    candidates(lock, entry).filter(|s| crate::trust::server_needs_trust(s)).map(|s| s.name.clone()).collect()
}

/// The servers Claude Code would connect, trust aside.
fn candidates(
    lock: &capc_compiler::model::Lock,
    entry: crate::context::Entry,
) -> impl Iterator<Item = &capc_compiler::model::McpServer> {
    use capc_compiler::model::{Approval, Scope};
    let headless = entry == crate::context::Entry::Headless;
    lock.mcp_servers
        .iter()
        .filter(|s| s.shadowed_by.is_none() && s.denied_by.is_none() && s.blocked_by.is_none())
        .filter(|s| s.approval != Some(Approval::Disabled))
        .filter(move |s| s.scope != Scope::Project || headless || s.approval == Some(Approval::Approved))
}

/// A session's live connections, on their own tokio runtime (the session itself is
/// synchronous).
pub struct Live {
    runtime: tokio::runtime::Runtime,
    servers: Servers,
    shared: crate::batch::Shared,
}

impl Live {
    /// Connects a session's servers (see [`launches`]), starting from its MCP state `state`;
    /// SSE and WebSocket servers and entries holding hashed secrets are `failed` with the
    /// reason. `Session::connect` hands the session [`Live::state`] and [`Live::caller`].
    pub fn start(
        lock: &capc_compiler::model::Lock,
        state: crate::mcp::McpState,
        trusted: bool,
        settings: Settings,
        entry: crate::context::Entry,
    ) -> std::io::Result<Live> {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
        let shared: crate::batch::Shared =
            Arc::new(Mutex::new(crate::batch::Versioned { state, ..Default::default() }));
        let servers = runtime.block_on(async {
            let batcher = Batcher::spawn(shared.clone(), crate::batch::WINDOW);
            let mut ready = Vec::new();
            for (name, launch) in launches(lock, |name| std::env::var(name).ok(), entry, trusted) {
                match launch {
                    Ok(launch) => ready.push((name, launch)),
                    Err(e) => {
                        batcher.send(Update {
                            server: name,
                            status: Some(Status::Failed),
                            error: Some(e.to_string()),
                            ..Update::default()
                        });
                    }
                }
            }
            if !trusted {
                for name in held_back(lock, entry) {
                    batcher.send(Update {
                        server: name,
                        error: Some(
                            "not started: the folder is not trusted (pass --trust, or accept the folder in Claude Code)"
                                .to_string(),
                        ),
                        ..Update::default()
                    });
                }
            }
            Servers::start(ready, settings, &batcher)
        });
        end_on_signals(&runtime, Some(servers.stopper()));
        Ok(Live { runtime, servers, shared })
    }

    /// The state the connections update, for the session to copy before each request.
    pub fn state(&self) -> crate::batch::Shared {
        self.shared.clone()
    }

    /// Calls the connected servers' tools.
    pub fn caller(&self) -> Caller {
        self.servers.caller(self.runtime.handle().clone())
    }

    /// Closes every connection (each server's process group ends) and stops the runtime.
    pub fn shutdown(self) {
        let Live { runtime, servers, .. } = self;
        runtime.block_on(servers.shutdown());
        runtime.shutdown_timeout(Duration::from_secs(2));
    }
}

/// Killed by a signal, the session would leave its servers and a running `!` injection behind
/// (each sits in its own process group, out of the terminal's reach): at SIGINT, SIGTERM or
/// SIGHUP, end them first, then exit as killed (130, 143, 129).
fn end_on_signals(runtime: &tokio::runtime::Runtime, stopper: Option<Stopper>) {
    #[cfg(unix)]
    runtime.spawn(async move {
        use tokio::signal::unix::{signal, SignalKind};
        let (Ok(mut int), Ok(mut term), Ok(mut hup)) =
            (signal(SignalKind::interrupt()), signal(SignalKind::terminate()), signal(SignalKind::hangup()))
        else {
            return;
        };
        let code = tokio::select! {
            _ = int.recv() => 130,
            _ = term.recv() => 143,
            _ = hup.recv() => 129,
        };
        crate::shell::end_all();
        if let Some(stopper) = stopper {
            stopper.stop().await;
        }
        std::process::exit(code);
    });
    #[cfg(not(unix))]
    let _ = (runtime, stopper);
}

/// The signal handling of a session without live connections ([`Live`] has its own): a `!`
/// injection running when the session is stopped is ended with it.
pub struct Signals {
    _runtime: tokio::runtime::Runtime,
}

impl Signals {
    pub fn install() -> std::io::Result<Signals> {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build()?;
        end_on_signals(&runtime, None);
        Ok(Signals { _runtime: runtime })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn back_off_doubles_from_one_second_to_thirty() {
        let backoff = Backoff::default();
        let delays: Vec<u64> = (1..=backoff.tries).map(|n| backoff.delay(n).as_secs()).collect();
        assert_eq!(delays, [1, 2, 4, 8, 16]);
        assert_eq!(backoff.delay(6), Duration::from_secs(30), "capped");
        assert_eq!(backoff.delay(40), Duration::from_secs(30), "no overflow");
    }

    #[test]
    fn sessions_start_only_the_servers_claude_code_would() {
        use capc_compiler::model::{Approval, McpServer, Scope};
        let server = |name: &str, scope: Scope, approval: Option<Approval>| McpServer {
            name: name.into(),
            normalized: name.into(),
            scope,
            approval,
            path: ".mcp.json".into(),
            command: Some("x".into()),
            ..McpServer::default()
        };
        let mut lock = capc_compiler::lock::resolve::resolve(Vec::new()).lock;
        lock.mcp_servers = vec![
            server("approved", Scope::Project, Some(Approval::Approved)),
            server("waiting", Scope::Project, Some(Approval::Pending)),
            server("turned-off", Scope::User, Some(Approval::Disabled)),
            McpServer {
                blocked_by: Some("deniedMcpServers serverName `policy`".into()),
                ..server("policy", Scope::User, None)
            },
            McpServer { denied_by: Some("mcp__denied".into()), ..server("denied", Scope::User, None) },
            server("mine", Scope::Local, None),
        ];
        let names = |entry, trusted| {
            launches(&lock, |_| None, entry, trusted).into_iter().map(|(name, _)| name).collect::<Vec<_>>()
        };
        assert_eq!(names(crate::context::Entry::Interactive, true), ["approved", "mine"]);
        assert_eq!(
            names(crate::context::Entry::Headless, true),
            ["approved", "waiting", "mine"],
            "-p approves project servers"
        );
        assert_eq!(
            names(crate::context::Entry::Headless, false),
            ["mine"],
            "an untrusted folder's own servers never start; the user's do"
        );
        let state = crate::mcp::McpState::from_lock(&lock);
        let policy = state.servers().find(|s| s.name == "policy").expect("listed");
        assert_eq!(policy.status, Status::Disabled);
        assert_eq!(policy.error.as_deref(), Some("not loaded, MCP policy: deniedMcpServers serverName `policy`"));
        assert_eq!(state.servers().find(|s| s.name == "turned-off").map(|s| s.status), Some(Status::Disabled));
    }

    #[test]
    fn tool_calls_time_out_as_in_claude_code() {
        use capc_compiler::model::McpServer;
        let stdio = McpServer { transport: Transport::Stdio, ..McpServer::default() };
        let http = McpServer { transport: Transport::Http, ..McpServer::default() };
        let none = |_: &str| None;
        let env = |ms: &'static str| move |name: &str| (name == "MCP_TOOL_TIMEOUT").then(|| ms.to_string());
        assert_eq!(tool_timeout(&stdio, none), Duration::from_millis(100_000_000));
        assert_eq!(tool_timeout(&http, none), Duration::from_secs(60), "remote requests stop at 60 s");
        assert_eq!(tool_timeout(&http, env("90000")), Duration::from_secs(90), "raised by MCP_TOOL_TIMEOUT ≥ 60 s");
        assert_eq!(tool_timeout(&http, env("30000")), Duration::from_secs(30));
        let own = |ms| McpServer { timeout: Some(ms), ..stdio.clone() };
        assert_eq!(tool_timeout(&own(5000), env("90000")), Duration::from_secs(5), "the server's own wins");
        assert_eq!(tool_timeout(&own(500), env("90000")), Duration::from_secs(90), "under 1,000 ms is ignored");
        let remote_own = McpServer { timeout: Some(120_000), ..http.clone() };
        assert_eq!(tool_timeout(&remote_own, none), Duration::from_secs(120));
    }

    #[test]
    fn settings_read_claude_codes_variables() {
        let env = |name: &str| match name {
            "MCP_TIMEOUT" => Some("4500".to_string()),
            "MCP_SERVER_CONNECTION_BATCH_SIZE" => Some("8".to_string()),
            "MCP_REMOTE_SERVER_CONNECTION_BATCH_SIZE" => Some("zero".to_string()),
            "MCP_PROTOCOL_NEGOTIATION" => Some("legacy".to_string()),
            _ => None,
        };
        let s = Settings::from_env(env);
        assert_eq!(s.connect_timeout, Duration::from_millis(4500));
        assert_eq!((s.local_window, s.remote_window), (8, 20), "an invalid value keeps the default");
        assert_eq!(s.negotiation, Negotiation::Legacy);
        assert_eq!(Settings::from_env(|_| None).negotiation, Negotiation::Auto);
    }
}

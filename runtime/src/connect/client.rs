//! The client side of one connection: rmcp's handler (the capabilities capc declares, list
//! changes forwarded), a negotiated [`Connection`] and its close, and the causes of rmcp's
//! errors as one line.

use super::process::{Process, Reap};
use super::{Negotiation, Settings};
use crate::launch::StderrTail;
use rmcp::model::{
    ClientConfig, ClientRequest, Implementation, JsonRpcError, JsonRpcMessage, ProtocolVersion, RequestId,
};
use rmcp::service::{ClientLifecycleMode, NotificationContext, RunningService, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::{IntoTransport, Transport};
use rmcp::{ClientHandler, ClientServiceExt, RoleClient};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;

/// Which list a notification says changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Kind {
    Tools,
    Prompts,
    Resources,
}

pub(super) const ALL: [Kind; 3] = [Kind::Tools, Kind::Prompts, Kind::Resources];

/// Forwards list-changed notifications to the one task that re-lists (rmcp runs each callback
/// on its own task, so their order is not guaranteed).
#[derive(Clone)]
pub(super) struct Handler {
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
    /// The capabilities Claude Code declares, roots and elicitation (form and URL), so a
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

pub(super) type Tail = Arc<Mutex<StderrTail>>;
pub(super) type Service = RunningService<RoleClient, Handler>;

/// `why`, followed by the server's last stderr lines when it wrote any.
pub(super) fn with_tail(why: String, tail: &Tail) -> String {
    let tail = tail.lock().map(|t| t.text()).unwrap_or_default();
    if tail.is_empty() {
        why
    } else {
        format!("{why}\nstderr: {tail}")
    }
}

/// One live session with a server.
pub(super) struct Connection {
    pub(super) service: Service,
    /// A stdio server's process group.
    pub(super) process: Option<Process>,
    pub(super) changes: mpsc::UnboundedReceiver<Kind>,
    /// The handler's sender, for the listen stream.
    pub(super) changed: mpsc::UnboundedSender<Kind>,
    /// A 2026-07-28 session's `subscriptions/listen` reader.
    pub(super) listener: Option<tokio::task::JoinHandle<()>>,
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
pub(super) async fn negotiate<T, E, A>(
    transport: T,
    settings: &Settings,
) -> Result<Result<Connection, rmcp::service::ClientInitializeError>, tokio::time::error::Elapsed>
where
    T: IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let (changed, changes) = mpsc::unbounded_channel();
    let handler = Handler { changed: changed.clone() };
    let transport = LateProbe::new(transport.into_transport());
    let serving = handler.serve_with_lifecycle(transport, lifecycle(settings.negotiation));
    let started = tokio::time::timeout(settings.connect_timeout, serving).await?;
    Ok(started.map(|service| Connection { service, process: None, changes, changed, listener: None }))
}

/// A transport that drops the late answer to a `server/discover` probe given up on. rmcp's
/// `auto` lifecycle waits 10 s for the probe, then sends `initialize` on the same transport and
/// takes the next response as its answer: a server that speaks only the older protocol but is
/// slower than that to start (an `npx` download, many servers starting at once on a loaded
/// machine) answers the probe first ("method not found"), and the connection failed with
/// "uncorrelated error response: expected id 1, error response carried 0". Claude Code's SDK
/// drops an answer to a request it no longer waits for; this drops the probe's once
/// `initialize` has been sent, and lets everything else through.
struct LateProbe<T> {
    inner: T,
    /// The ids of the `server/discover` requests sent.
    probes: Vec<RequestId>,
    /// `initialize` was sent: the probes are no longer waited for.
    fell_back: bool,
}

impl<T> LateProbe<T> {
    fn new(inner: T) -> LateProbe<T> {
        LateProbe { inner, probes: Vec::new(), fell_back: false }
    }

    /// Whether `message` answers a probe given up on (ids compared as text: a server may echo
    /// the number 0 as the string "0").
    fn stale(&self, message: &RxJsonRpcMessage<RoleClient>) -> bool {
        let id = match message {
            JsonRpcMessage::Response(response) => &response.id,
            JsonRpcMessage::Error(JsonRpcError { id: Some(id), .. }) => id,
            _ => return false,
        };
        self.fell_back && self.probes.iter().any(|probe| probe.to_string() == id.to_string())
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for LateProbe<T> {
    type Error = T::Error;

    fn name() -> std::borrow::Cow<'static, str> {
        T::name()
    }

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        if let JsonRpcMessage::Request(request) = &item {
            match request.request {
                ClientRequest::DiscoverRequest(_) => self.probes.push(request.id.clone()),
                ClientRequest::InitializeRequest(_) => self.fell_back = true,
                _ => {}
            }
        }
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        loop {
            let message = self.inner.receive().await?;
            if !self.stale(&message) {
                return Some(message);
            }
        }
    }

    fn close(&mut self) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

impl Connection {
    /// Ends the session: the listen reader, the MCP session (stdin closed, or an HTTP DELETE),
    /// then a stdio server's process group, waiting for it as `reap` says.
    pub(super) async fn close(mut self, reap: Reap) {
        if let Some(listener) = self.listener.take() {
            listener.abort();
        }
        let _ = tokio::time::timeout(Duration::from_secs(5), self.service.cancel()).await;
        if let Some(process) = self.process.take() {
            process.end(reap).await;
        }
    }
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

/// The cause of a failed HTTP request, which rmcp's transport error does not chain: "error sending request" becomes "... tcp connect error: Connection refused".
fn transport_cause(error: &rmcp::transport::DynamicTransportError) -> Option<String> {
    use rmcp::transport::streamable_http_client::StreamableHttpError;
    match error.error.downcast_ref::<StreamableHttpError<reqwest::Error>>()? {
        StreamableHttpError::Client(e) => Some(chain(e)),
        other => Some(chain(other)),
    }
}

/// Why `initialize` (or `server/discover`) failed, with the transport's cause when it has one.
pub(super) fn init_cause(error: &rmcp::service::ClientInitializeError) -> String {
    use rmcp::service::ClientInitializeError;
    if let ClientInitializeError::TransportError { error, context } = error {
        if let Some(cause) = transport_cause(error) {
            return format!("{cause} (when {context})");
        }
    }
    chain(error)
}

/// Why a request failed, likewise.
pub(super) fn request_cause(error: &rmcp::ServiceError) -> String {
    match error {
        rmcp::ServiceError::TransportSend(e) => transport_cause(e).unwrap_or_else(|| chain(error)),
        _ => chain(error),
    }
}

pub(super) fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        format!("{s} s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::transport::async_rw::AsyncRwTransport;
    use serde_json::json;
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    /// A server of the older protocol (no `server/discover`) over an in-memory pipe. It answers
    /// the probe "method not found" at once, or, when `late`, only after the client gave up on
    /// it and sent `initialize`, as a server slower to start than the probe's wait does; then
    /// the `initialize` result. Whether it answered a probe.
    async fn legacy_server(io: tokio::io::DuplexStream, late: bool) -> bool {
        let (read, mut write) = tokio::io::split(io);
        let mut lines = BufReader::new(read).lines();
        let (mut probe, mut answered) = (None, false);
        while let Ok(Some(line)) = lines.next_line().await {
            let message: serde_json::Value = serde_json::from_str(&line).expect("a JSON-RPC line");
            let not_found =
                |id| json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "Method not found"}});
            let mut reply = String::new();
            match message["method"].as_str() {
                Some("server/discover") if late => probe = Some(message["id"].clone()),
                Some("server/discover") => reply = format!("{}\n", not_found(message["id"].clone())),
                Some("initialize") => {
                    if let Some(id) = probe.take() {
                        reply = format!("{}\n", not_found(id));
                    }
                    let result = json!({"jsonrpc": "2.0", "id": message["id"], "result": {
                        "protocolVersion": "2025-11-25",
                        "capabilities": {},
                        "serverInfo": {"name": "legacy", "version": "1.0.0"},
                    }});
                    reply.push_str(&format!("{result}\n"));
                }
                _ => {}
            }
            answered |= reply.contains("-32601");
            write.write_all(reply.as_bytes()).await.expect("writes");
        }
        answered
    }

    /// Negotiates with [`legacy_server`] on paused time; the negotiated protocol and how long
    /// it took on that clock.
    async fn negotiate_with_legacy(late: bool) -> (String, Duration) {
        let (client, server) = tokio::io::duplex(64 * 1024);
        let server = tokio::spawn(legacy_server(server, late));
        let (read, write) = tokio::io::split(client);
        let started = tokio::time::Instant::now();
        let connection = negotiate(AsyncRwTransport::<RoleClient, _, _>::new(read, write), &Settings::default())
            .await
            .expect("within the connect timeout")
            .unwrap_or_else(|e| panic!("initialize fails: {}", init_cause(&e)));
        let took = started.elapsed();
        let protocol = connection.service.peer_info().map(|info| info.protocol_version.to_string());
        connection.close(Reap::Awaited).await;
        assert!(server.await.expect("the server ends"), "the server answered the probe");
        (protocol.unwrap_or_default(), took)
    }

    #[tokio::test(start_paused = true)]
    async fn a_probe_answered_after_the_fallback_is_dropped_and_initialize_succeeds() {
        let (protocol, took) = negotiate_with_legacy(true).await;
        assert_eq!(protocol, "2025-11-25");
        assert!(took >= Duration::from_secs(10), "it fell back after rmcp's wait for the probe: {took:?}");
    }

    #[tokio::test(start_paused = true)]
    async fn a_probe_answered_in_time_falls_back_at_once() {
        let (protocol, took) = negotiate_with_legacy(false).await;
        assert_eq!(protocol, "2025-11-25");
        assert!(took < Duration::from_secs(10), "the answer was not dropped: {took:?}");
    }
}

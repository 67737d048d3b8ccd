//! The client side of one connection: rmcp's handler (the capabilities capc declares, list
//! changes forwarded), a negotiated [`Connection`] and its close, and the causes of rmcp's
//! errors as one line.

use super::process::Process;
use super::{Negotiation, Settings};
use crate::launch::StderrTail;
use rmcp::model::{ClientConfig, Implementation, ProtocolVersion};
use rmcp::service::{ClientLifecycleMode, NotificationContext, RunningService};
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
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let (changed, changes) = mpsc::unbounded_channel();
    let handler = Handler { changed: changed.clone() };
    let serving = handler.serve_with_lifecycle(transport, lifecycle(settings.negotiation));
    let started = tokio::time::timeout(settings.connect_timeout, serving).await?;
    Ok(started.map(|service| Connection { service, process: None, changes, changed, listener: None }))
}

impl Connection {
    /// Ends the session: the listen reader, the MCP session (stdin closed, or an HTTP DELETE),
    /// then a stdio server's process group.
    pub(super) async fn close(mut self) {
        if let Some(listener) = self.listener.take() {
            listener.abort();
        }
        let _ = tokio::time::timeout(Duration::from_secs(5), self.service.cancel()).await;
        if let Some(process) = self.process.take() {
            process.end().await;
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

//! `capc serve --http ADDR`: rmcp's Streamable HTTP service at `/mcp`, on a hyper HTTP/1.1
//! listener. capc answers before rmcp for a wrong path (404) and a missing or wrong bearer
//! token (401); rmcp refuses a `Host` that is not the loopback's (DNS rebinding) and a
//! browser `Origin` that is not a loopback page's (403).
//!
//! Every input has a bound ([`Limits`]): a request's head and its body must each arrive within
//! the request timeout (408), a body is at most [`MAX_MESSAGE_BYTES`] (413) and a head at most
//! [`MAX_HEAD_BYTES`] (431); at most `max_connections` connections are open at once (a further
//! one gets 503 and is closed), and at most `max_sessions` MCP sessions live at once (a further
//! `initialize` gets 429; rmcp ends a session idle for 5 minutes). When the system refuses to
//! accept (no file descriptors left), the accept loop waits before it tries again.

use super::{Options, Server, Shared, MAX_MESSAGE_BYTES};
use bytes::Bytes;
use http_body_util::{combinators::BoxBody, BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

/// The one endpoint.
pub const PATH: &str = "/mcp";

/// The largest request head (request line and headers) read.
pub(crate) const MAX_HEAD_BYTES: usize = 64 * 1024;

/// How much `capc serve --http` takes from its clients; [`Limits::from_env`] reads the
/// variables that change it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// How long a request's head may take to arrive, and then its body
    /// (`CAPC_SERVE_REQUEST_TIMEOUT_MS`, 30 s); an idle kept-alive connection is closed after it.
    pub(crate) request_timeout: std::time::Duration,
    /// Connections open at once (`CAPC_SERVE_MAX_CONNECTIONS`, 64).
    pub(crate) max_connections: usize,
    /// MCP sessions alive at once (`CAPC_SERVE_MAX_SESSIONS`, 32).
    pub(crate) max_sessions: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { request_timeout: std::time::Duration::from_secs(30), max_connections: 64, max_sessions: 32 }
    }
}

impl Limits {
    /// The defaults, each overridden by its variable when that is a positive whole number.
    pub fn from_env(lookup: impl Fn(&str) -> Option<String>) -> Limits {
        let number = |name: &str| lookup(name).and_then(|v| v.trim().parse::<u64>().ok()).filter(|n| *n > 0);
        let mut limits = Limits::default();
        if let Some(ms) = number("CAPC_SERVE_REQUEST_TIMEOUT_MS") {
            limits.request_timeout = std::time::Duration::from_millis(ms);
        }
        if let Some(n) = number("CAPC_SERVE_MAX_CONNECTIONS") {
            limits.max_connections = usize::try_from(n).unwrap_or(usize::MAX);
        }
        if let Some(n) = number("CAPC_SERVE_MAX_SESSIONS") {
            limits.max_sessions = usize::try_from(n).unwrap_or(usize::MAX);
        }
        limits
    }
}

/// Pages allowed to call the server from a browser: those served from this machine.
const LOOPBACK_ORIGINS: [&str; 6] = [
    "http://localhost:*",
    "http://127.0.0.1:*",
    "http://[::1]:*",
    "https://localhost:*",
    "https://127.0.0.1:*",
    "https://[::1]:*",
];

type Body = BoxBody<Bytes, Infallible>;

/// Why an address is refused before anything listens.
pub fn check_address(addr: SocketAddr, allow_remote: bool) -> Result<(), String> {
    if addr.ip().is_loopback() || allow_remote {
        return Ok(());
    }
    Err(format!(
        "{addr} is not a loopback address: anyone who can reach it could run this repository's prompts \
         (use 127.0.0.1, or add --allow-remote, preferably with --token-env)"
    ))
}

/// Listens on `addr` and serves until SIGINT, SIGTERM or SIGHUP, and gives the exit status of a
/// process that signal ended (130, 143, 129), as `capc session` exits. Prints the address it
/// listens on (with the port the system chose for port 0) on stderr.
pub async fn serve(shared: Arc<Shared>, addr: SocketAddr, options: &Options) -> std::io::Result<u8> {
    check_address(addr, options.allow_remote).map_err(std::io::Error::other)?;
    let listener = tokio::net::TcpListener::bind(addr).await?;
    eprintln!("capc: serving MCP on http://{}{PATH}", listener.local_addr()?);
    let mut config = StreamableHttpServerConfig::default()
        .with_allowed_origins(LOOPBACK_ORIGINS)
        .enforce_origin_validation()
        .with_max_request_body_bytes(MAX_MESSAGE_BYTES);
    if options.allow_remote {
        // Reached under any host name; the token is the guard then.
        config = config.disable_allowed_hosts();
    }
    let sessions = Arc::new(LocalSessionManager::default());
    let service = StreamableHttpService::new(move || Ok(Server { shared: shared.clone() }), sessions.clone(), config);
    let guard = Arc::new(Guard {
        token: options.token.as_deref().map(|t| Arc::from(t.as_bytes())),
        limits: options.limits,
        sessions,
    });
    let connections = Arc::new(tokio::sync::Semaphore::new(options.limits.max_connections));
    let turned_away = Arc::new(tokio::sync::Semaphore::new(options.limits.max_connections));
    let stop = stop_signal();
    tokio::pin!(stop);
    // After a failed accept, the wait before the next try: doubled up to a second while they
    // keep failing, so a full descriptor table is not spun on.
    let mut pause = std::time::Duration::ZERO;
    loop {
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => {
                    pause = std::time::Duration::ZERO;
                    accepted
                }
                // A client that went away before being accepted, or no file descriptors left:
                // said once per run of failures.
                Err(e) => {
                    if pause.is_zero() {
                        eprintln!("capc: accept failed: {e} (waiting before accepting again)");
                    }
                    pause = (pause * 2).clamp(std::time::Duration::from_millis(10), std::time::Duration::from_secs(1));
                    tokio::select! {
                        _ = tokio::time::sleep(pause) => continue,
                        code = &mut stop => return Ok(code),
                    }
                }
            },
            code = &mut stop => return Ok(code),
        };
        // Replies are small and written in pieces (headers, then the body): without this, Nagle's
        // algorithm holds the body back until the client acknowledges the headers (about 40 ms
        // for a client that delays its acknowledgements).
        let _ = stream.set_nodelay(true);
        let Ok(permit) = connections.clone().try_acquire_owned() else {
            // Told why, while as many are being told as may connect; past that, closed at once.
            if let Ok(telling) = turned_away.clone().try_acquire_owned() {
                tokio::spawn(async move {
                    let _telling = telling;
                    turn_away(stream, StatusCode::SERVICE_UNAVAILABLE, TOO_MANY_CONNECTIONS).await;
                });
            }
            continue;
        };
        let (service, guard) = (service.clone(), guard.clone());
        tokio::spawn(async move {
            let _permit = permit;
            let timeout = guard.limits.request_timeout;
            // The first request's head must arrive in time (later ones: hyper's own timeout).
            let head = match read_head(&stream, timeout).await {
                Ok(head) => head,
                Err(status) => return turn_away(stream, status, reason(status)).await,
            };
            let handler = hyper::service::service_fn(move |request: Request<Incoming>| {
                let (mut service, guard) = (service.clone(), guard.clone());
                async move {
                    let request = match guard.admit(request).await {
                        Ok(request) => request,
                        Err(refusal) => return Ok::<_, Infallible>(refusal),
                    };
                    let delete = request.method() == hyper::Method::DELETE;
                    let mut response = tower_service::Service::call(&mut service, request).await?;
                    // rmcp answers a session's end with 202 Accepted; the session is gone by then,
                    // and the MCP Python SDK takes only 200 or 204 as done (and warns otherwise).
                    if delete && response.status() == StatusCode::ACCEPTED {
                        *response.status_mut() = StatusCode::OK;
                    }
                    Ok(response)
                }
            });
            let io = hyper_util::rt::TokioIo::new(Prefixed { head, stream });
            // A client that disconnects mid-request ends only its own connection.
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(timeout)
                .max_buf_size(MAX_HEAD_BYTES.max(8192))
                .serve_connection(io, handler)
                .await;
        });
    }
}

/// What each request is checked against before rmcp sees it.
struct Guard {
    token: Option<Arc<[u8]>>,
    limits: Limits,
    sessions: Arc<LocalSessionManager>,
}

impl Guard {
    /// The request with its body read whole (within the timeout and the size cap), or capc's
    /// answer instead: 404, 401, 408, 413, or 429 for a new session past the cap.
    async fn admit(&self, request: Request<Incoming>) -> Result<Request<Full<Bytes>>, Response<Body>> {
        if let Some(refusal) = refuse(&request, self.token.as_deref()) {
            return Err(refusal);
        }
        let new_session = request.method() == hyper::Method::POST && !request.headers().contains_key("mcp-session-id");
        if new_session && self.sessions.sessions.read().await.len() >= self.limits.max_sessions {
            let mut response = plain(
                StatusCode::TOO_MANY_REQUESTS,
                "too many MCP sessions: capc serve keeps at most CAPC_SERVE_MAX_SESSIONS; end one (DELETE with its Mcp-Session-Id) or try again later\n",
            );
            response.headers_mut().insert(hyper::header::RETRY_AFTER, hyper::header::HeaderValue::from_static("1"));
            return Err(response);
        }
        // A declared length over the cap is refused before anything is read.
        if hyper::body::Body::size_hint(request.body()).lower() > MAX_MESSAGE_BYTES as u64 {
            return Err(closing(StatusCode::PAYLOAD_TOO_LARGE, reason(StatusCode::PAYLOAD_TOO_LARGE)));
        }
        let (parts, body) = request.into_parts();
        let limited = http_body_util::Limited::new(body, MAX_MESSAGE_BYTES);
        let bytes = match tokio::time::timeout(self.limits.request_timeout, limited.collect()).await {
            Err(_) => return Err(closing(StatusCode::REQUEST_TIMEOUT, reason(StatusCode::REQUEST_TIMEOUT))),
            Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => {
                return Err(closing(StatusCode::PAYLOAD_TOO_LARGE, reason(StatusCode::PAYLOAD_TOO_LARGE)))
            }
            Ok(Err(e)) => {
                return Err(closing(StatusCode::BAD_REQUEST, &format!("the request body could not be read: {e}\n")))
            }
            Ok(Ok(collected)) => collected.to_bytes(),
        };
        let bytes = if new_session { bounded_client_info(bytes) } else { bytes };
        // A request of a session rmcp keeps whose parameters rmcp cannot read: answered
        // "invalid params" here, as the stdio transport's filter answers it.
        let session = parts.headers.get("mcp-session-id").and_then(|id| id.to_str().ok());
        if let Some(session) = session.filter(|_| parts.method == hyper::Method::POST) {
            let known = self.sessions.sessions.read().await.contains_key(session);
            let message = serde_json::from_slice::<serde_json::Value>(&bytes).ok().filter(|_| known);
            if let Some(answer) = message.and_then(|m| super::params::invalid(&m)) {
                let mut response = Response::new(Full::new(Bytes::from(answer)).boxed());
                response
                    .headers_mut()
                    .insert(hyper::header::CONTENT_TYPE, hyper::header::HeaderValue::from_static("application/json"));
                return Err(response);
            }
        }
        Ok(Request::from_parts(parts, Full::new(bytes)))
    }
}

const TOO_MANY_CONNECTIONS: &str =
    "too many connections: capc serve takes at most CAPC_SERVE_MAX_CONNECTIONS at once; try again\n";

/// The text of capc's answer for a status it gives on its own.
fn reason(status: StatusCode) -> &'static str {
    match status {
        StatusCode::REQUEST_TIMEOUT => "the request did not arrive in time (CAPC_SERVE_REQUEST_TIMEOUT_MS)\n",
        StatusCode::PAYLOAD_TOO_LARGE => "the request body is over 16777216 bytes\n",
        StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE => "the request head is over 65536 bytes\n",
        _ => "bad request\n",
    }
}

/// An answer after which the connection is closed (its request was not read whole).
fn closing(status: StatusCode, text: &str) -> Response<Body> {
    let mut response = plain(status, text);
    response.headers_mut().insert(hyper::header::CONNECTION, hyper::header::HeaderValue::from_static("close"));
    response
}

/// The longest text kept of each `clientInfo` field: rmcp keeps a session's `clientInfo` for
/// its life.
const CLIENT_INFO_CHARS: usize = 256;

/// An `initialize` body whose `clientInfo` keeps only its short text fields (`name`, `version`,
/// `title`, each cut to [`CLIENT_INFO_CHARS`]); any other body as it is.
fn bounded_client_info(bytes: Bytes) -> Bytes {
    let Ok(mut message) = serde_json::from_slice::<serde_json::Value>(&bytes) else { return bytes };
    let Some(info) = message.pointer_mut("/params/clientInfo").and_then(serde_json::Value::as_object_mut) else {
        return bytes;
    };
    let kept: serde_json::Map<String, serde_json::Value> = ["name", "version", "title"]
        .iter()
        .filter_map(|key| {
            let text = info.get(*key)?.as_str()?;
            Some((key.to_string(), serde_json::Value::String(text.chars().take(CLIENT_INFO_CHARS).collect())))
        })
        .collect();
    *info = kept;
    serde_json::to_vec(&message).map(Bytes::from).unwrap_or(bytes)
}

/// Reads a connection's first request head (up to its blank line) within `timeout`: the bytes
/// read, or the status to turn the client away with (408 late, 431 too long).
async fn read_head(stream: &tokio::net::TcpStream, timeout: std::time::Duration) -> Result<Vec<u8>, StatusCode> {
    let mut head = Vec::new();
    let read = async {
        loop {
            if head.windows(4).any(|w| w == b"\r\n\r\n") {
                return Ok(());
            }
            if head.len() >= MAX_HEAD_BYTES {
                return Err(StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE);
            }
            if stream.readable().await.is_err() {
                return Ok(());
            }
            let mut buf = [0u8; 8192];
            match stream.try_read(&mut buf) {
                // The client closed: hyper sees the end.
                Ok(0) => return Ok(()),
                Ok(n) => head.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(_) => return Ok(()),
            }
        }
    };
    match tokio::time::timeout(timeout, read).await {
        Ok(Ok(())) => Ok(head),
        Ok(Err(status)) => Err(status),
        Err(_) => Err(StatusCode::REQUEST_TIMEOUT),
    }
}

/// Answers `status` with `text` on a connection hyper does not serve, and closes it once the
/// client has had a moment to read the answer (what it still sends is read and dropped).
async fn turn_away(mut stream: tokio::net::TcpStream, status: StatusCode, text: &str) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let answer = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n{text}",
        status.as_u16(),
        status.canonical_reason().unwrap_or(""),
        text.len()
    );
    let _ = tokio::time::timeout(std::time::Duration::from_secs(1), async {
        stream.write_all(answer.as_bytes()).await?;
        stream.shutdown().await?;
        let mut sink = [0u8; 4096];
        let mut drained = 0;
        while drained < MAX_HEAD_BYTES {
            match stream.read(&mut sink).await? {
                0 => break,
                n => drained += n,
            }
        }
        Ok::<_, std::io::Error>(())
    })
    .await;
}

/// A connection whose first bytes were already read: those first, then the stream.
struct Prefixed {
    head: Vec<u8>,
    stream: tokio::net::TcpStream,
}

impl tokio::io::AsyncRead for Prefixed {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        if !self.head.is_empty() {
            let n = self.head.len().min(buf.remaining());
            buf.put_slice(&self.head[..n]);
            self.head.drain(..n);
            return std::task::Poll::Ready(Ok(()));
        }
        std::pin::Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl tokio::io::AsyncWrite for Prefixed {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::pin::Pin::new(&mut self.stream).poll_write(cx, buf)
    }
    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.stream).poll_flush(cx)
    }
    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// capc's own refusals: another path, or a missing or wrong token.
fn refuse(request: &Request<Incoming>, token: Option<&[u8]>) -> Option<Response<Body>> {
    if request.uri().path() != PATH {
        return Some(plain(StatusCode::NOT_FOUND, &format!("not found: the MCP endpoint is {PATH}\n")));
    }
    let token = token?;
    let given = request
        .headers()
        .get(hyper::header::AUTHORIZATION)
        .and_then(|v| v.as_bytes().strip_prefix(b"Bearer "))
        .unwrap_or_default();
    if bool::from(subtle::ConstantTimeEq::ct_eq(given, token)) {
        return None;
    }
    let mut response = plain(StatusCode::UNAUTHORIZED, "a bearer token is required (Authorization: Bearer …)\n");
    response.headers_mut().insert(hyper::header::WWW_AUTHENTICATE, hyper::header::HeaderValue::from_static("Bearer"));
    Some(response)
}

fn plain(status: StatusCode, text: &str) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(text.to_string())).boxed());
    *response.status_mut() = status;
    response
}

/// The exit status of the signal that stops the server; never, if signals cannot be watched
/// (the server then runs until killed).
async fn stop_signal() -> u8 {
    match crate::connect::stop_signal().await {
        Some(code) => code,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_listens_unless_told() {
        assert!(check_address("127.0.0.1:0".parse().expect("addr"), false).is_ok());
        assert!(check_address("[::1]:0".parse().expect("addr"), false).is_ok());
        let refused = check_address("0.0.0.0:8080".parse().expect("addr"), false).expect_err("refused");
        assert!(refused.contains("--allow-remote"), "{refused}");
        assert!(check_address("0.0.0.0:8080".parse().expect("addr"), true).is_ok());
    }

    #[test]
    fn limits_read_their_variables() {
        let env = |name: &str| match name {
            "CAPC_SERVE_REQUEST_TIMEOUT_MS" => Some("250".to_string()),
            "CAPC_SERVE_MAX_CONNECTIONS" => Some("0".to_string()),
            "CAPC_SERVE_MAX_SESSIONS" => Some("3".to_string()),
            _ => None,
        };
        let limits = Limits::from_env(env);
        assert_eq!(limits.request_timeout, std::time::Duration::from_millis(250));
        assert_eq!(limits.max_connections, 64, "zero keeps the default");
        assert_eq!(limits.max_sessions, 3);
    }

    #[test]
    fn a_client_info_keeps_only_short_text() {
        let body = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "clientInfo": {"name": "n".repeat(100_000), "version": "1", "icons": [{"src": "x".repeat(1000)}]}}});
        let kept = bounded_client_info(Bytes::from(body.to_string()));
        let kept: serde_json::Value = serde_json::from_slice(&kept).expect("JSON");
        let info = &kept["params"]["clientInfo"];
        assert_eq!(info["name"].as_str().map(str::len), Some(CLIENT_INFO_CHARS));
        assert_eq!(info["version"], "1");
        assert!(info.get("icons").is_none(), "{info}");
        let other = Bytes::from_static(b"not json");
        assert_eq!(bounded_client_info(other.clone()), other);
    }
}

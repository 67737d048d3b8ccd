//! `capc serve --http ADDR`: rmcp's Streamable HTTP service at `/mcp`, on a hyper HTTP/1.1
//! listener. capc answers before rmcp for a wrong path (404) and a missing or wrong bearer
//! token (401); rmcp refuses a `Host` that is not the loopback's (DNS rebinding) and a
//! browser `Origin` that is not a loopback page's (403).

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
    let service = StreamableHttpService::new(
        move || Ok(Server { shared: shared.clone() }),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let token: Option<Arc<[u8]>> = options.token.as_deref().map(|t| Arc::from(t.as_bytes()));
    let stop = stop_signal();
    tokio::pin!(stop);
    loop {
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                // A client that went away before being accepted (or no file descriptors left).
                Err(e) => { eprintln!("capc: accept failed: {e}"); continue; }
            },
            code = &mut stop => return Ok(code),
        };
        // Replies are small and written in pieces (headers, then the body): without this, Nagle's
        // algorithm holds the body back until the client acknowledges the headers (about 40 ms
        // for a client that delays its acknowledgements).
        let _ = stream.set_nodelay(true);
        let (service, token) = (service.clone(), token.clone());
        tokio::spawn(async move {
            let handler = hyper::service::service_fn(move |request: Request<Incoming>| {
                let (mut service, token) = (service.clone(), token.clone());
                async move {
                    if let Some(refusal) = refuse(&request, token.as_deref()) {
                        return Ok::<_, Infallible>(refusal);
                    }
                    let response = tower_service::Service::call(&mut service, request).await?;
                    Ok(response)
                }
            });
            let io = hyper_util::rt::TokioIo::new(stream);
            // A client that disconnects mid-request ends only its own connection.
            let _ = hyper::server::conn::http1::Builder::new().serve_connection(io, handler).await;
        });
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
}

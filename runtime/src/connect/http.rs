//! A Streamable HTTP server connected with its `headers` and `headersHelper`.

use super::client::{init_cause, negotiate, seconds, Connection};
use super::Settings;
use crate::launch::Launch;
use std::collections::BTreeMap;
use std::time::Duration;

/// Connects a Streamable HTTP server (`headers` sent with every request).
pub(super) async fn open_http(launch: &Launch, settings: &Settings) -> Result<Connection, String> {
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
        // everything) rather than rmcp's silent re-initialization.
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
pub(crate) const HEADERS_HELPER_TIMEOUT: Duration = Duration::from_secs(10);

/// Runs a server's `headersHelper` (`sh -c`, 10 s) and reads the JSON object of string
/// headers it prints. Its output is never shown: it holds credentials.
async fn run_headers_helper(helper: &str, cwd: Option<&str>) -> Result<BTreeMap<String, String>, String> {
    let mut command = tokio::process::Command::new("sh");
    command.arg("-c").arg(helper).stdin(std::process::Stdio::null()).kill_on_drop(true);
    if let Some(dir) = cwd {
        command.current_dir(dir);
    }
    crate::launch::starting();
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

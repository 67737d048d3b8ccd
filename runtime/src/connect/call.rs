//! Calls from the session's thread to the connected servers: tools (with Claude Code's
//! timeouts and its 100,000-character cut) and `prompts/get`.

use super::client::{request_cause, seconds};
use super::MAX_RESULT_CHARS;
use capc_compiler::model::Transport;
use rmcp::RoleClient;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A connected server as tool calls reach it: its peer, and a nudge that makes its supervisor
/// check the connection at once (a failed call may be the first sign that it is gone).
#[derive(Clone)]
pub(super) struct Reachable {
    pub(super) peer: rmcp::Peer<RoleClient>,
    pub(super) check: Arc<tokio::sync::Notify>,
}

/// Each connected server, by name, for tool calls.
pub(super) type Peers = Arc<Mutex<BTreeMap<String, Reachable>>>;

/// How long a tool call may take: the server's `timeout` (values under 1,000 ms
/// are ignored), else `MCP_TOOL_TIMEOUT`, else 100,000,000 ms; a remote server's request also
/// stops at 60 s unless one of those two is at least 60 s.
pub(crate) fn tool_timeout(
    server: &capc_compiler::model::McpServer,
    lookup: impl Fn(&str) -> Option<String>,
) -> Duration {
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
    pub(super) handle: tokio::runtime::Handle,
    pub(super) peers: Peers,
}

/// What a tool call returned: its text (cut at 100,000 characters with a notice) and whether
/// the server marked it an error.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct CallOutcome {
    pub text: String,
    pub(crate) is_error: bool,
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
        let result = self.get_prompt(server, prompt, arguments, timeout)?;
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

impl Caller {
    /// `prompts/get` of `prompt` on `server`: the server's whole answer (`capc serve --connect`
    /// passes it on).
    pub fn get_prompt(
        &self,
        server: &str,
        prompt: &str,
        arguments: serde_json::Map<String, serde_json::Value>,
        timeout: Duration,
    ) -> Result<rmcp::model::GetPromptResult, String> {
        let params = rmcp::model::GetPromptRequestParams::new(prompt.to_string()).with_arguments(arguments);
        self.request(
            server,
            &format!("prompt `{prompt}`"),
            timeout,
            |peer| async move { peer.get_prompt(params).await },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}

//! Live MCP connections with rmcp. Each server has one supervisor task that:
//!
//! 1. starts it — a stdio server as a child in its own process group (stdin/stdout carry
//!    JSON-RPC lines of up to [`Settings::max_message_bytes`], stderr drained into a tail kept
//!    for errors), a Streamable HTTP server over reqwest with rustls — and negotiates the
//!    protocol (`server/discover` with a fallback to `initialize`, Claude Code's `auto`), within
//!    the connect timeout and a per-class concurrency window (3 local, 20 remote);
//! 2. lists tools, prompts and resources together and sends them as one
//!    [`Update`](crate::mcp::Update) to the [`Batcher`](crate::batch::Batcher); on
//!    `notifications/*/list_changed` — or, on a 2026-07-28 session, on its
//!    `subscriptions/listen` stream — re-lists that kind (a failed refresh keeps the previous
//!    list, as Claude Code does since v2.1.214);
//! 3. watches the connection: a stdio server that exits is `failed` with its exit status and
//!    stderr tail (Claude Code never reconnects stdio servers); a remote server that stops
//!    answering (a periodic ping, or any failed request) is reconnected with back-off — each
//!    attempt `pending`, 5 tries, 1 s doubling to 30 s — and `failed` after the last;
//! 4. on shutdown closes the session and ends the server's whole process group (SIGTERM, then
//!    SIGKILL), and waits until it is reaped, within the shutdown's 10 s; a server that fails
//!    to start or is lost is waited for at most 10 s after SIGKILL, then left to be reaped
//!    when it exits, with a note on stderr.
//!
//! The files: `client` (rmcp's client handler, one connection, the causes of its errors),
//! `process` (a stdio server's process group), `stdio` and `http` (each transport opened and
//! negotiated), `listing` (tools, prompts and resources, and the `subscriptions/listen`
//! stream), `supervise` (one server's life and reconnection; [`Servers`]), `call` (tool calls
//! and `prompts/get` from the session's thread), `live` (which servers a session starts, and
//! [`Live`], their runtime and signal handling) and `surface` (what the servers offer, listed
//! once for the lock's `[[mcp_tool]]`).

mod call;
mod client;
mod http;
mod listing;
mod live;
#[cfg(unix)]
pub(crate) use live::stop_signal;
mod process;
mod stdio;
mod supervise;
pub mod surface;

pub(crate) use call::tool_timeout;
pub use call::{CallOutcome, Caller};
pub use live::{launches, Live, Signals};
pub use supervise::Servers;

use std::time::Duration;

/// How many bytes of a server's stderr are kept for its failure report.
pub(crate) const STDERR_TAIL: usize = 4096;

/// Claude Code's `maxResultSizeChars` for MCP tool results.
pub(crate) const MAX_RESULT_CHARS: usize = 100_000;

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
    pub(crate) fn delay(&self, attempt: u32) -> Duration {
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
    /// Reconnect a stdio server that exited, with the same back-off as a remote one. Claude
    /// Code does not (off for `capc session`); a long-running gateway (`capc serve --connect`)
    /// does.
    pub reconnect_local: bool,
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
            reconnect_local: false,
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

//! What a lock's MCP servers offer, listed live once (`capc lock --connect`, `capc verify
//! --connect`): the servers a headless session starts are connected as [`Live`] connects them,
//! awaited until none is pending, and their tools turned into the lock's `[[mcp_tool]]`
//! entries ([`capc_compiler::surface`] hashes and estimates them).

use super::{Live, Settings};
use crate::mcp::{McpState, Status};
use capc_compiler::model::{Lock, McpFailed, McpToolEntry};
use std::time::{Duration, Instant};

/// The tools of the servers that connected, and the servers that did not, each sorted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Surface {
    pub tools: Vec<McpToolEntry>,
    pub failed: Vec<McpFailed>,
    /// Why each failed server failed, by name (for stderr, never for the lock).
    pub reasons: Vec<(String, String)>,
}

/// Connects the servers a headless session in a `trusted` folder starts, waits until each is
/// connected or failed (the connect timeout, plus a margin, at most), lists what they offer,
/// and ends them.
pub fn list(lock: &Lock, trusted: bool, settings: Settings) -> std::io::Result<Surface> {
    let entry = crate::context::Entry::Headless;
    let started: Vec<String> =
        super::launches(lock, |name| std::env::var(name).ok(), entry, trusted).into_iter().map(|(n, _)| n).collect();
    let deadline = Instant::now() + settings.connect_timeout.saturating_mul(2) + Duration::from_secs(5);
    let live = Live::start(lock, McpState::from_lock(lock), trusted, settings, entry)?;
    let shared = live.state();
    let state = loop {
        let state = shared.lock().unwrap_or_else(std::sync::PoisonError::into_inner).state.clone();
        let pending = state.servers().any(|s| started.contains(&s.name) && s.status == Status::Pending);
        if !pending || Instant::now() >= deadline {
            break state;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    live.shutdown();
    let mut surface = Surface::default();
    for server in state.servers().filter(|s| started.contains(&s.name)) {
        if server.status != Status::Connected {
            surface.failed.push(McpFailed { server: server.name.clone() });
            let why = server.error.clone().unwrap_or_else(|| format!("still {}", server.status.as_str()));
            surface.reasons.push((server.name.clone(), why));
            continue;
        }
        for tool in &server.tools {
            let schema = tool
                .input_schema
                .as_ref()
                .map(|s| serde_json::Value::Object(s.as_ref().clone()))
                .unwrap_or_else(|| serde_json::json!({}));
            surface.tools.push(McpToolEntry {
                server: server.name.clone(),
                tool: tool.original.clone(),
                name: tool.name.to_string(),
                description_sha256: capc_compiler::secrets::sha256_hex(tool.description.as_bytes()),
                input_schema_sha256: capc_compiler::surface::schema_sha256(&schema),
                tokens: capc_compiler::surface::estimate_tokens(&tool.name, &tool.description, &schema),
                always_load: tool.listed_always_load,
                annotations: tool.annotations.clone(),
            });
        }
    }
    capc_compiler::surface::sort(&mut surface.tools, &mut surface.failed);
    surface.reasons.sort();
    Ok(surface)
}

//! Batching MCP server updates into state changes: the first update starts
//! a 16 ms window; every update that arrives before it closes is applied, in arrival order,
//! as one state change. A turn reads the state between changes, so the turn in flight never
//! sees a half-applied batch, and a flood of `list_changed` notifications costs at most one
//! state change per window.
//!
//! Groundwork for the MCP connection issue: connections send [`Update`]s to a [`Batcher`];
//! the session reads [`Shared`] at the start of each turn.

use crate::mcp::{McpState, Update};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;

/// Claude Code's `MCP_BATCH_FLUSH_MS`.
pub const WINDOW: Duration = Duration::from_millis(16);

/// The MCP state and how many state changes it has seen.
#[derive(Debug, Default)]
pub struct Versioned {
    pub state: McpState,
    /// Incremented once per applied batch.
    pub version: u64,
    /// Updates for servers the lock does not know (dropped, counted).
    pub rejected: u64,
    /// Told after each applied batch, for one listener that follows the state (`capc serve
    /// --connect` re-lists; a change made while it is busy is kept for its next wait).
    pub changed: Arc<tokio::sync::Notify>,
}

pub type Shared = Arc<Mutex<Versioned>>;

/// Sends updates to the batching task.
#[derive(Debug, Clone)]
pub struct Batcher {
    sender: mpsc::UnboundedSender<Update>,
}

impl Batcher {
    /// Starts the batching task on the current tokio runtime.
    pub fn spawn(shared: Shared, window: Duration) -> Batcher {
        let (sender, receiver) = mpsc::unbounded_channel();
        tokio::spawn(run(shared, receiver, window));
        Batcher { sender }
    }

    /// Queues an update; `false` once the batching task has stopped.
    pub fn send(&self, update: Update) -> bool {
        self.sender.send(update).is_ok()
    }
}

async fn run(shared: Shared, mut receiver: mpsc::UnboundedReceiver<Update>, window: Duration) {
    while let Some(first) = receiver.recv().await {
        let mut pending = vec![first];
        let deadline = tokio::time::Instant::now() + window;
        // Until the window closes or every sender is gone; then apply what came.
        while let Ok(Some(update)) = tokio::time::timeout_at(deadline, receiver.recv()).await {
            pending.push(update);
        }
        apply(&shared, pending);
    }
}

/// Applies a batch as one state change: each update in arrival order; an update for an
/// unknown server is dropped without stopping the others.
fn apply(shared: &Shared, pending: Vec<Update>) {
    let mut guard = shared.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    for update in pending {
        if guard.state.apply(vec![update]).is_err() {
            guard.rejected += 1;
        }
    }
    guard.version += 1;
    guard.changed.notify_one();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::{Status, ToolSpec};
    use capc_compiler::model::{McpServer, Scope, Transport};

    fn state() -> Shared {
        let mut lock = capc_compiler::lock::resolve::empty_lock();
        lock.mcp_servers = ["alpha", "beta"]
            .iter()
            .map(|n| McpServer {
                name: n.to_string(),
                normalized: n.to_string(),
                scope: Scope::Project,
                transport: Transport::Stdio,
                path: ".mcp.json".into(),
                command: Some("x".into()),
                ..McpServer::default()
            })
            .collect();
        Arc::new(Mutex::new(Versioned { state: McpState::from_lock(&lock), ..Versioned::default() }))
    }

    fn tools(server: &str, names: &[&str]) -> Update {
        Update {
            server: server.into(),
            status: Some(Status::Connected),
            tools: Some(names.iter().map(|n| ToolSpec { name: n.to_string(), ..ToolSpec::default() }).collect()),
            ..Update::default()
        }
    }

    #[tokio::test(start_paused = true)]
    async fn updates_within_a_window_are_one_state_change() {
        let shared = state();
        let batcher = Batcher::spawn(shared.clone(), WINDOW);
        batcher.send(tools("alpha", &["a"]));
        tokio::time::sleep(Duration::from_millis(5)).await;
        batcher.send(tools("beta", &["b"]));
        tokio::time::sleep(Duration::from_millis(5)).await;
        batcher.send(tools("alpha", &["a2"]));
        assert_eq!(shared.lock().expect("lock").version, 0, "nothing applied before the window closes");
        tokio::time::sleep(Duration::from_millis(10)).await;
        let guard = shared.lock().expect("lock");
        assert_eq!(guard.version, 1);
        // Arrival order: alpha's second list replaced its first.
        let names: Vec<&str> = guard.state.tools().iter().map(|t| &*t.name).collect();
        assert_eq!(names, ["mcp__alpha__a2", "mcp__beta__b"]);
    }

    #[tokio::test(start_paused = true)]
    async fn a_flood_costs_at_most_one_change_per_window() {
        let shared = state();
        let batcher = Batcher::spawn(shared.clone(), WINDOW);
        // 1,000 list_changed refreshes in one second.
        for i in 0..1000u32 {
            batcher.send(tools("alpha", &[&format!("t{i}")]));
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        let guard = shared.lock().expect("lock");
        let windows = 1000 / 16 + 2;
        assert!(guard.version <= windows, "{} state changes for {windows} windows", guard.version);
        assert!(guard.version >= 1000 / 17, "batches should close every window: {}", guard.version);
        assert_eq!(guard.state.tools().len(), 1);
        assert_eq!(&*guard.state.tools()[0].name, "mcp__alpha__t999");
    }

    #[tokio::test(start_paused = true)]
    async fn an_unknown_server_does_not_stop_the_batch() {
        let shared = state();
        let batcher = Batcher::spawn(shared.clone(), WINDOW);
        batcher.send(tools("ghost", &["x"]));
        batcher.send(tools("beta", &["b"]));
        tokio::time::sleep(Duration::from_millis(20)).await;
        let guard = shared.lock().expect("lock");
        assert_eq!((guard.version, guard.rejected), (1, 1));
        assert_eq!(guard.state.tools().len(), 1);
    }
}

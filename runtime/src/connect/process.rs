//! A stdio server's process group: its exit status and stderr drained, and its end — SIGTERM,
//! then SIGKILL, always to the whole group.

use std::time::Duration;

type Child = Box<dyn process_wrap::tokio::ChildWrapper>;

const SIGTERM: i32 = 15;
const SIGKILL: i32 = 9;

/// A stdio server's process group and the task draining its stderr into the tail.
pub(super) struct Process {
    pub(super) child: Child,
    pub(super) stderr: Option<tokio::task::JoinHandle<()>>,
}

/// How long to wait for an exiting server's status, and for its last stderr bytes.
const EXIT_GRACE: Duration = Duration::from_millis(300);

impl Process {
    /// Waits briefly for the server to exit and for the last of its stderr; its exit status.
    pub(super) async fn exited(&mut self) -> Option<std::process::ExitStatus> {
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
    pub(super) async fn end(mut self) {
        async fn wait(child: &mut Child, ms: u64) -> bool {
            tokio::time::timeout(Duration::from_millis(ms), child.wait()).await.is_ok()
        }
        if !wait(&mut self.child, 500).await {
            let _ = self.child.signal(SIGTERM);
            if !wait(&mut self.child, 1000).await {
                let _ = self.child.start_kill();
                // SIGKILL cannot be refused: wait until it is reaped, however loaded the machine
                // (the caller bounds the whole shutdown).
                let _ = self.child.wait().await;
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
pub(super) async fn exit_reason(process: Option<&mut Process>) -> String {
    let status = match process {
        Some(process) => process.exited().await,
        None => None,
    };
    match status {
        Some(status) => format!("the server closed the connection (it exited: {status})"),
        None => "the server closed the connection".to_string(),
    }
}

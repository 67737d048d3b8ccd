//! A stdio server's process group: its exit status and stderr drained, and its end — SIGTERM,
//! then SIGKILL, always to the whole group.

use std::time::Duration;

type Child = Box<dyn process_wrap::tokio::ChildWrapper>;

const SIGTERM: i32 = 15;
const SIGKILL: i32 = 9;

/// A stdio server's process group and the task draining its stderr into the tail.
pub(super) struct Process {
    /// The server's name, for the note when it outlives SIGKILL.
    pub(super) server: String,
    pub(super) child: Child,
    pub(super) stderr: Option<tokio::task::JoinHandle<()>>,
}

/// How long to wait for an exiting server's status, and for its last stderr bytes.
const EXIT_GRACE: Duration = Duration::from_millis(300);

/// How long [`Reap::Bounded`] waits for a server sent SIGKILL.
pub(super) const REAP_BOUND: Duration = Duration::from_secs(10);

/// How long [`Process::end`] waits for a server it sent SIGKILL to be reaped. A killed process
/// goes at once unless it is stuck in the kernel (uninterruptible sleep: a hung NFS mount, a
/// device), and then nothing can hurry it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reap {
    /// Until it is reaped: the session is stopping, capc must not exit before its servers are
    /// gone, and [`Stopper::stop`](super::supervise::Stopper::stop) bounds the whole shutdown.
    Awaited,
    /// At most [`REAP_BOUND`], for the paths nothing else bounds (a failed start, a lost
    /// connection): a server stuck there must not hold its supervisor, and the concurrency window
    /// a start holds, forever. One still there is noted on stderr and left to tokio's orphan
    /// reaper, which reaps it when it does exit.
    Bounded,
}

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
    /// server behind — and waits for it to be reaped as `reap` says.
    pub(super) async fn end(mut self, reap: Reap) {
        async fn wait(child: &mut Child, within: Duration) -> bool {
            tokio::time::timeout(within, child.wait()).await.is_ok()
        }
        if !wait(&mut self.child, Duration::from_millis(500)).await {
            let _ = self.child.signal(SIGTERM);
            if !wait(&mut self.child, Duration::from_secs(1)).await {
                let _ = self.child.start_kill();
                match reap {
                    // SIGKILL cannot be refused: however loaded the machine, it is reaped.
                    Reap::Awaited => {
                        let _ = self.child.wait().await;
                    }
                    Reap::Bounded if !wait(&mut self.child, REAP_BOUND).await => {
                        let pid = self.child.id().map(|pid| format!(" (pid {pid})")).unwrap_or_default();
                        eprintln!(
                            "capc: MCP server `{}`{pid} did not exit within {} s of SIGKILL; it is left to be reaped when it does",
                            capc_compiler::printable::escape(&self.server),
                            REAP_BOUND.as_secs()
                        );
                    }
                    Reap::Bounded => {}
                }
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

#[cfg(test)]
mod tests {
    use super::*;
    use process_wrap::tokio::ChildWrapper;
    use std::future::Future;
    use std::pin::Pin;
    use tokio::process::{ChildStderr, ChildStdin, ChildStdout};

    /// A server stuck in the kernel: every signal is delivered and changes nothing, and it never
    /// exits. No process is started.
    #[derive(Debug, Default)]
    struct Stuck {
        stdin: Option<ChildStdin>,
        stdout: Option<ChildStdout>,
        stderr: Option<ChildStderr>,
    }

    impl ChildWrapper for Stuck {
        fn inner(&self) -> &dyn ChildWrapper {
            self
        }
        fn inner_mut(&mut self) -> &mut dyn ChildWrapper {
            self
        }
        fn into_inner(self: Box<Self>) -> Box<dyn ChildWrapper> {
            self
        }
        fn stdin(&mut self) -> &mut Option<ChildStdin> {
            &mut self.stdin
        }
        fn stdout(&mut self) -> &mut Option<ChildStdout> {
            &mut self.stdout
        }
        fn stderr(&mut self) -> &mut Option<ChildStderr> {
            &mut self.stderr
        }
        fn id(&self) -> Option<u32> {
            None
        }
        fn start_kill(&mut self) -> std::io::Result<()> {
            Ok(())
        }
        fn try_wait(&mut self) -> std::io::Result<Option<std::process::ExitStatus>> {
            Ok(None)
        }
        fn wait(&mut self) -> Pin<Box<dyn Future<Output = std::io::Result<std::process::ExitStatus>> + Send + '_>> {
            Box::pin(std::future::pending())
        }
        fn signal(&self, _signal: i32) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn stuck() -> Process {
        Process { server: "stuck".to_string(), child: Box::new(Stuck::default()), stderr: None }
    }

    #[tokio::test(start_paused = true)]
    async fn a_server_that_outlives_sigkill_is_waited_for_a_bounded_time_where_nothing_else_bounds_it() {
        let started = tokio::time::Instant::now();
        let ended = tokio::time::timeout(Duration::from_secs(3600), stuck().end(Reap::Bounded)).await;
        assert!(ended.is_ok(), "it still waits after an hour");
        // 500 ms to exit on its own, 1 s after SIGTERM, then the bound after SIGKILL (on the
        // paused clock, which moves only to the next timer).
        let took = started.elapsed();
        let expected = Duration::from_millis(1500) + REAP_BOUND;
        assert!(took >= expected && took < expected + Duration::from_secs(1), "{took:?}");
    }

    #[tokio::test(start_paused = true)]
    async fn a_stopping_session_waits_until_its_server_is_reaped() {
        let waited = tokio::time::timeout(Duration::from_secs(3600), stuck().end(Reap::Awaited)).await;
        assert!(waited.is_err(), "it stopped waiting for a server sent SIGKILL");
    }
}

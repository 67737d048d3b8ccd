//! A stdio server started as a child in its own process group, its stderr drained into the
//! tail, and a session negotiated over its stdin and stdout.

use super::client::{negotiate, seconds, Connection, Tail};
use super::process::{Process, Reap};
use super::Settings;
use crate::launch::Launch;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::RoleClient;
use tokio::io::AsyncReadExt;

/// Starts the stdio server `server` and negotiates a session with it. A start that fails ends
/// the server's group, waiting a bounded time for it ([`Reap::Bounded`]).
pub(super) async fn open_stdio(
    server: &str,
    launch: &Launch,
    settings: &Settings,
    tail: &Tail,
) -> Result<Connection, String> {
    use process_wrap::tokio::{CommandWrap, KillOnDrop, ProcessGroup};
    use std::process::Stdio;
    let Some(program) = launch.command.as_deref() else {
        return Err("the server has no `command`".into());
    };
    let mut command = CommandWrap::with_new(program, |c| {
        c.args(&launch.args).envs(&launch.env).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        if let Some(dir) = &launch.cwd {
            c.current_dir(dir);
        }
    });
    command.wrap(ProcessGroup::leader()).wrap(KillOnDrop);
    crate::launch::starting();
    let mut child = command.spawn().map_err(|e| format!("cannot start `{program}`: {e}"))?;
    // Always drain stderr: an undrained pipe deadlocks a chatty server.
    let stderr = child.stderr().take().map(|mut stderr| {
        let tail = tail.clone();
        tokio::spawn(async move {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stderr.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                if let Ok(mut t) = tail.lock() {
                    t.push(&buf[..n]);
                }
            }
        })
    });
    let (stdout, stdin) = (child.stdout().take(), child.stdin().take());
    let mut process = Process { server: server.to_string(), child, stderr };
    let (Some(stdout), Some(stdin)) = (stdout, stdin) else {
        process.end(Reap::Bounded).await;
        return Err("the server's stdin/stdout could not be opened".into());
    };
    let transport =
        AsyncRwTransport::<RoleClient, _, _>::new(stdout, stdin).with_max_line_length(settings.max_message_bytes);
    match negotiate(transport, settings).await {
        Ok(Ok(connection)) => Ok(Connection { process: Some(process), ..connection }),
        Ok(Err(e)) => {
            let exited = process.exited().await;
            process.end(Reap::Bounded).await;
            Err(match exited {
                Some(status) => format!("the server exited during initialize ({status})"),
                None => format!("initialize failed: {e}"),
            })
        }
        Err(_) => {
            process.end(Reap::Bounded).await;
            Err(format!("no answer to initialize within {}", seconds(settings.connect_timeout)))
        }
    }
}

//! One supervisor task per server: connect, keep its lists live, watch the connection, and
//! reconnect a remote server with back-off; [`Servers`] owns the supervisors.

use super::call::{Caller, Peers, Reachable};
use super::client::{request_cause, seconds, with_tail, Connection, Tail, ALL};
use super::http::open_http;
use super::listing::{list, listen};
use super::process::{exit_reason, Reap};
use super::stdio::open_stdio;
use super::{Settings, STDERR_TAIL};
use crate::batch::Batcher;
use crate::launch::{Launch, StderrTail};
use crate::mcp::{Status, Update};
use capc_compiler::model::Transport;
use rmcp::RoleClient;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{watch, Semaphore};

/// Opens a connection and makes its first listing, inside the server's concurrency window.
async fn connect(
    server: &str,
    launch: &Launch,
    settings: &Settings,
    window: &Semaphore,
    tail: &Tail,
) -> Result<(Connection, Update), String> {
    let _permit = window.acquire().await.map_err(|_| "the session is ending".to_string())?;
    let mut conn = match launch.transport {
        Transport::Http => open_http(launch, settings).await?,
        _ => open_stdio(server, launch, settings, tail).await?,
    };
    let mut problems = Vec::new();
    if let Err(why) = listen(&mut conn, settings.connect_timeout).await {
        problems.push(format!("{why}; list changes will not be seen"));
    }
    let listing = match list(server, conn.service.peer(), &ALL, settings.connect_timeout).await {
        Ok(listing) => listing,
        Err(why) => {
            conn.close(Reap::Bounded).await;
            return Err(why);
        }
    };
    let mut update = listing.update;
    problems.extend(listing.problems);
    update.status = Some(Status::Connected);
    let info = conn.service.peer_info();
    update.instructions = info.as_ref().and_then(|info| info.instructions.clone());
    update.protocol = info.map(|info| info.protocol_version.to_string());
    update.error = (!problems.is_empty()).then(|| problems.join("; "));
    Ok((conn, update))
}

/// Why a connection's watch ended.
enum Ended {
    Stopped,
    Lost(String),
}

/// Resolves once the session is ending (or its owner is gone).
async fn stopped(stop: &mut watch::Receiver<bool>) {
    while !*stop.borrow_and_update() {
        if stop.changed().await.is_err() {
            return;
        }
    }
}

/// Whether the server still answers: a `ping` within `timeout`, or why not.
async fn ping_once(peer: &rmcp::Peer<RoleClient>, timeout: Duration) -> Result<(), String> {
    let request = rmcp::model::ClientRequest::PingRequest(Default::default());
    match tokio::time::timeout(timeout, peer.send_request(request)).await {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(e)) => Err(format!("the server stopped answering: {}", request_cause(&e))),
        Err(_) => Err(format!("no answer to ping within {}", seconds(timeout))),
    }
}

/// Keeps a connection's lists live until it is lost or the session ends.
async fn watch_connection(
    server: &str,
    conn: &mut Connection,
    settings: &Settings,
    batcher: &Batcher,
    check: &tokio::sync::Notify,
    stop: &mut watch::Receiver<bool>,
) -> Ended {
    let peer = conn.service.peer().clone();
    let remote = conn.process.is_none();
    let mut tick = tokio::time::interval(Duration::from_millis(100));
    let mut ping = tokio::time::interval_at(tokio::time::Instant::now() + settings.ping_every, settings.ping_every);
    loop {
        tokio::select! {
            () = stopped(stop) => return Ended::Stopped,
            kind = conn.changes.recv() => {
                let Some(kind) = kind else { return Ended::Lost("the session with the server ended".into()) };
                // A burst of notifications is one re-list of the kinds it named.
                let mut kinds = vec![kind];
                while let Ok(more) = conn.changes.try_recv() {
                    kinds.push(more);
                }
                kinds.sort();
                kinds.dedup();
                let refreshed = list(server, &peer, &kinds, settings.connect_timeout).await;
                if peer.is_transport_closed() {
                    return Ended::Lost(exit_reason(conn.process.as_mut()).await);
                }
                // A remote server whose refresh failed may be gone (a restart is silent): ask now
                // rather than at the next ping.
                let failed = refreshed.as_ref().map_or(true, |l| !l.problems.is_empty());
                if remote && failed {
                    if let Err(why) = ping_once(&peer, settings.ping_timeout).await {
                        return Ended::Lost(why);
                    }
                }
                let mut update = match refreshed {
                    Ok(listing) => {
                        let mut update = listing.update;
                        if !listing.problems.is_empty() {
                            update.error = Some(format!("{}; the previous list is kept", listing.problems.join("; ")));
                        }
                        update
                    }
                    Err(why) => Update {
                        server: server.to_string(),
                        error: Some(format!("{why}; the previous lists are kept")),
                        ..Update::default()
                    },
                };
                update.status = Some(Status::Connected);
                batcher.send(update);
            }
            _ = tick.tick() => {
                if peer.is_transport_closed() {
                    return Ended::Lost(exit_reason(conn.process.as_mut()).await);
                }
            }
            // The periodic ping, or one a failed tool call asked for.
            () = async { tokio::select! { _ = ping.tick() => {}, () = check.notified() => {} } }, if remote => {
                if let Err(why) = ping_once(&peer, settings.ping_timeout).await {
                    return Ended::Lost(why);
                }
            }
        }
    }
}

/// One server's life: connect, stay live, and — for a remote server whose connection is lost
/// — reconnect with back-off until it works or the tries run out.
async fn supervise(
    server: String,
    launch: Launch,
    settings: Arc<Settings>,
    window: Arc<Semaphore>,
    batcher: Batcher,
    peers: Peers,
    mut stop: watch::Receiver<bool>,
) {
    let remote = launch.transport != Transport::Stdio;
    let fail = |why: String| Update {
        server: server.clone(),
        status: Some(Status::Failed),
        error: Some(why),
        ..Update::default()
    };
    let mut was_connected = false;
    let mut attempt = 0;
    loop {
        let tail: Tail = Arc::new(Mutex::new(StderrTail::new(STDERR_TAIL)));
        let opened = tokio::select! {
            opened = connect(&server, &launch, &settings, &window, &tail) => opened,
            () = stopped(&mut stop) => return,
        };
        let why = match opened {
            Ok((mut conn, update)) => {
                attempt = 0;
                was_connected = true;
                let check = Arc::new(tokio::sync::Notify::new());
                if let Ok(mut all) = peers.lock() {
                    all.insert(server.clone(), Reachable { peer: conn.service.peer().clone(), check: check.clone() });
                }
                batcher.send(update);
                let ended = watch_connection(&server, &mut conn, &settings, &batcher, &check, &mut stop).await;
                if let Ok(mut all) = peers.lock() {
                    all.remove(&server);
                }
                // Stopped, the session is ending: capc exits only once the server is reaped (the
                // stop bounds it). Lost: nothing else bounds the wait.
                let reap = if matches!(ended, Ended::Stopped) { Reap::Awaited } else { Reap::Bounded };
                conn.close(reap).await;
                match ended {
                    Ended::Stopped => return,
                    Ended::Lost(why) => with_tail(why, &tail),
                }
            }
            Err(why) => with_tail(why, &tail),
        };
        // Claude Code reconnects only remote servers, and only after they were connected.
        if !(remote || settings.reconnect_local) || !was_connected {
            batcher.send(fail(why));
            return;
        }
        attempt += 1;
        if attempt > settings.backoff.tries {
            batcher.send(fail(format!("{why} (gave up after {} reconnection attempts)", settings.backoff.tries)));
            return;
        }
        let delay = settings.backoff.delay(attempt);
        batcher.send(Update {
            server: server.clone(),
            status: Some(Status::Pending),
            error: Some(format!(
                "{why}; reconnecting in {} (attempt {attempt} of {})",
                seconds(delay),
                settings.backoff.tries
            )),
            ..Update::default()
        });
        tokio::select! {
            () = tokio::time::sleep(delay) => {}
            () = stopped(&mut stop) => return,
        }
    }
}

/// The supervised servers of a session. Start and shut down on a tokio runtime.
pub struct Servers {
    stopper: Stopper,
    peers: Peers,
}

/// Ends every supervisor of a [`Servers`]; cheap to clone (a signal handler holds one).
#[derive(Clone)]
pub(crate) struct Stopper {
    stop: Arc<watch::Sender<bool>>,
    tasks: Arc<Mutex<Vec<tokio::task::JoinHandle<()>>>>,
    /// Set once the supervisors have ended: a second `stop` (the signal handler's and the
    /// session's own end both stop) waits for the first instead of returning at once.
    stopped: Arc<tokio::sync::OnceCell<()>>,
}

impl Stopper {
    /// Closes every connection (each stdio server's process group ends) and waits for the
    /// supervisors, at most 10 s: this bound is the only one on a stopping server, which each
    /// supervisor waits for until it is reaped ([`Reap::Awaited`]). Every caller waits: one that
    /// comes while another is stopping returns when the servers have ended, not before (a
    /// process that exits then would leave a server to be reaped by someone else).
    pub(crate) async fn stop(&self) {
        let _ = self.stop.send(true);
        self.stopped
            .get_or_init(|| async {
                let tasks = self.tasks.lock().map(|mut t| std::mem::take(&mut *t)).unwrap_or_default();
                let all = async {
                    for task in tasks {
                        let _ = task.await;
                    }
                };
                let _ = tokio::time::timeout(Duration::from_secs(10), all).await;
            })
            .await;
    }
}

impl Servers {
    /// Starts a supervisor for each server; every state change goes to `batcher`.
    pub fn start(servers: Vec<(String, Launch)>, settings: Settings, batcher: &Batcher) -> Servers {
        let (stop, watching) = watch::channel(false);
        let local = Arc::new(Semaphore::new(settings.local_window.max(1)));
        let remote = Arc::new(Semaphore::new(settings.remote_window.max(1)));
        let settings = Arc::new(settings);
        let peers: Peers = Arc::default();
        let tasks = servers
            .into_iter()
            .map(|(name, launch)| {
                let window = if launch.transport == Transport::Stdio { local.clone() } else { remote.clone() };
                tokio::spawn(supervise(
                    name,
                    launch,
                    settings.clone(),
                    window,
                    batcher.clone(),
                    peers.clone(),
                    watching.clone(),
                ))
            })
            .collect();
        Servers {
            stopper: Stopper { stop: Arc::new(stop), tasks: Arc::new(Mutex::new(tasks)), stopped: Arc::default() },
            peers,
        }
    }

    /// Calls tools on these servers from outside the runtime that `handle` names.
    pub fn caller(&self, handle: tokio::runtime::Handle) -> Caller {
        Caller { handle, peers: self.peers.clone() }
    }

    pub(crate) fn stopper(&self) -> Stopper {
        self.stopper.clone()
    }

    /// Closes every connection and waits for the supervisors (see [`Stopper::stop`]).
    pub async fn shutdown(self) {
        self.stopper.stop().await;
    }
}

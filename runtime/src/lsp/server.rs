//! The main loop: client messages applied in the order they arrive, checks handed to the
//! checker thread, findings published when they belong to the newest text.

use super::analysis::{self, Analysis, FileUrl, Findings, Job, Scopes};
use super::shown::Words;
use super::text::{apply_change, Buffers, DiskCache};
use super::transport::{Each, Incoming, Outgoing};
use super::{actions, features, references};
use crossbeam_channel::{select, Receiver, Sender};
use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::Notification as _;
use lsp_types::request::Request as _;
use lsp_types::{notification as notif, request as req, Url};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;

/// An open document.
struct Document {
    version: i32,
    text: String,
    /// Its path, when it lies in the workspace (only those are checked).
    path: Option<PathBuf>,
}

pub(crate) struct Server {
    out: Sender<Outgoing>,
    root: PathBuf,
    documents: BTreeMap<Url, Document>,
    /// The open buffers of the workspace as the next check reads them.
    buffers: Arc<Buffers>,
    disk: Arc<DiskCache>,
    /// Bumped by every change of what a check reads.
    generation: u64,
    /// `generation`, shared with the checker so a running check can see it was superseded.
    newest: Arc<std::sync::atomic::AtomicU64>,
    jobs: Sender<Job>,
    results: Receiver<Analysis>,
    /// The check of the newest text, once it has come: the check before is freed when the
    /// next one starts, so that one check is held at a time, not two.
    latest: Option<Analysis>,
    /// What each file was last sent: the document version and the findings (shared with the
    /// check that sent them, as the file's URL is).
    published: BTreeMap<FileUrl, (Option<i32>, Findings)>,
    /// Requests made while a check runs, answered from it when it arrives.
    waiting: Vec<Request>,
    shut_down: bool,
    next_request: i32,
}

/// Runs the server until `exit` (or the end of the input). The first message must be
/// `initialize`; everything before it gets `ServerNotInitialized`.
pub(crate) fn run(out: Sender<Outgoing>, incoming: Receiver<Incoming>) {
    let Some((id, params)) = wait_for_initialize(&out, &incoming) else { return };
    let root = workspace_root(&params);
    let scopes: Scopes = params
        .initialization_options
        .clone()
        .and_then(|o| serde_json::from_value(o).map_err(|e| eprintln!("capc lsp: initializationOptions: {e}")).ok())
        .unwrap_or_default();
    let disk = Arc::new(DiskCache::default());
    let (jobs, results) = analysis::spawn(root.clone(), scopes, disk.clone());
    let result = lsp_types::InitializeResult {
        capabilities: capabilities(),
        server_info: Some(lsp_types::ServerInfo {
            name: "capc".to_string(),
            version: Some(env!("CARGO_PKG_VERSION").to_string()),
        }),
    };
    send(&out, Message::Response(Response::new_ok(id, result)));
    let mut server = Server {
        out,
        root,
        documents: BTreeMap::new(),
        buffers: Arc::new(Buffers::new()),
        disk,
        generation: 0,
        newest: Arc::default(),
        jobs,
        results,
        latest: None,
        published: BTreeMap::new(),
        waiting: Vec::new(),
        shut_down: false,
        next_request: 0,
    };
    if watches_files(&params) {
        server.watch_files();
    }
    server.changed();
    server.serve(&incoming);
}

fn send(out: &Sender<Outgoing>, message: Message) {
    // The writer ends only with the process; a failed send means the client is gone.
    let _ = out.send(Outgoing::Message(message));
}

fn wait_for_initialize(
    out: &Sender<Outgoing>,
    incoming: &Receiver<Incoming>,
) -> Option<(RequestId, lsp_types::InitializeParams)> {
    for frame in incoming {
        match frame {
            Incoming::Message(Message::Request(r)) if r.method == req::Initialize::METHOD => {
                match serde_json::from_value(r.params) {
                    Ok(params) => return Some((r.id, params)),
                    Err(e) => reply_error(out, r.id, ErrorCode::InvalidParams, format!("initialize: {e}")),
                }
            }
            Incoming::Message(Message::Request(r)) => {
                reply_error(out, r.id, ErrorCode::ServerNotInitialized, "initialize first".to_string())
            }
            Incoming::Message(Message::Notification(n)) if n.method == notif::Exit::METHOD => return None,
            Incoming::Message(_) => {}
            Incoming::Malformed { id, code, error } => malformed(out, id, code, error),
        }
    }
    None
}

fn reply_error(out: &Sender<Outgoing>, id: RequestId, code: ErrorCode, message: String) {
    send(out, Message::Response(Response::new_err(id, code as i32, message)));
}

fn malformed(out: &Sender<Outgoing>, id: Option<RequestId>, code: i32, error: String) {
    eprintln!("capc lsp: {error}");
    let _ = out.send(match id {
        Some(id) => Outgoing::Message(Message::Response(Response::new_err(id, code, error))),
        None => Outgoing::NullIdError { code, message: error },
    });
}

/// The folder the client opened: the first workspace folder, else `rootUri`, else the
/// current folder.
fn workspace_root(params: &lsp_types::InitializeParams) -> PathBuf {
    let folder = params.workspace_folders.as_ref().and_then(|f| f.first()).map(|f| f.uri.clone());
    #[allow(deprecated)] // `rootUri` is what older clients send.
    let uri = folder.or_else(|| params.root_uri.clone());
    uri.and_then(|u| u.to_file_path().ok())
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("."))
}

fn watches_files(params: &lsp_types::InitializeParams) -> bool {
    params
        .capabilities
        .workspace
        .as_ref()
        .and_then(|w| w.did_change_watched_files.as_ref())
        .and_then(|w| w.dynamic_registration)
        .unwrap_or(false)
}

fn capabilities() -> lsp_types::ServerCapabilities {
    use lsp_types::*;
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Options(TextDocumentSyncOptions {
            open_close: Some(true),
            change: Some(TextDocumentSyncKind::INCREMENTAL),
            save: Some(TextDocumentSyncSaveOptions::Supported(true)),
            ..Default::default()
        })),
        diagnostic_provider: Some(DiagnosticServerCapabilities::Options(DiagnosticOptions {
            identifier: Some("capc".to_string()),
            inter_file_dependencies: true,
            workspace_diagnostics: false,
            work_done_progress_options: Default::default(),
        })),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX, CodeActionKind::SOURCE_FIX_ALL]),
            ..Default::default()
        })),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![":".into(), " ".into(), ",".into(), "\"".into(), "_".into()]),
            ..Default::default()
        }),
        definition_provider: Some(OneOf::Left(true)),
        document_link_provider: Some(DocumentLinkOptions {
            resolve_provider: None,
            work_done_progress_options: Default::default(),
        }),
        references_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        workspace_symbol_provider: Some(OneOf::Left(true)),
        ..Default::default()
    }
}

impl Server {
    fn serve(&mut self, incoming: &Receiver<Incoming>) {
        loop {
            select! {
                recv(incoming) -> frame => match frame {
                    Ok(Incoming::Message(message)) => {
                        if self.handle(message) {
                            return;
                        }
                    }
                    Ok(Incoming::Malformed { id, code, error }) => malformed(&self.out, id, code, error),
                    // The client closed its end without `exit`.
                    Err(_) => return,
                },
                recv(self.results) -> analysis => match analysis {
                    Ok(analysis) => self.checked(analysis),
                    Err(_) => return,
                },
            }
        }
    }

    /// Handles one message; `true` when the server is to stop.
    fn handle(&mut self, message: Message) -> bool {
        match message {
            Message::Request(request) => {
                let id = request.id.clone();
                let answered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.request(request)));
                if answered.is_err() {
                    self.error(id, ErrorCode::InternalError, "capc lsp failed on this request".to_string());
                }
                false
            }
            Message::Notification(n) if n.method == notif::Exit::METHOD => true,
            Message::Notification(n) => {
                let method = n.method.clone();
                if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.notification(n))).is_err() {
                    eprintln!("capc lsp: failed on a `{method}` notification");
                }
                false
            }
            // Answers to our own requests (the file watcher's registration) need nothing.
            Message::Response(_) => false,
        }
    }

    fn send(&self, message: Message) {
        send(&self.out, message);
    }

    fn reply(&self, id: RequestId, result: impl serde::Serialize) {
        self.send(Message::Response(Response::new_ok(id, result)));
    }

    fn error(&self, id: RequestId, code: ErrorCode, message: String) {
        reply_error(&self.out, id, code, message);
    }

    fn request(&mut self, request: Request) {
        if self.shut_down {
            return self.error(request.id, ErrorCode::InvalidRequest, "the server is shut down".to_string());
        }
        match request.method.as_str() {
            req::Shutdown::METHOD => {
                self.shut_down = true;
                self.reply(request.id, ());
            }
            req::Initialize::METHOD => {
                self.error(request.id, ErrorCode::InvalidRequest, "already initialized".to_string())
            }
            req::DocumentDiagnosticRequest::METHOD
            | req::CodeActionRequest::METHOD
            | req::HoverRequest::METHOD
            | req::Completion::METHOD
            | req::GotoDefinition::METHOD
            | req::DocumentLinkRequest::METHOD
            | req::References::METHOD
            | req::DocumentSymbolRequest::METHOD
            | req::WorkspaceSymbolRequest::METHOD => {
                self.waiting.push(request);
                self.answer_waiting();
            }
            _ => self.error(request.id, ErrorCode::MethodNotFound, format!("unknown method `{}`", request.method)),
        }
    }

    fn notification(&mut self, n: Notification) {
        match n.method.as_str() {
            notif::DidOpenTextDocument::METHOD => {
                let Some(p) = params::<lsp_types::DidOpenTextDocumentParams>(n) else { return };
                let doc = p.text_document;
                let path = self.in_workspace(&doc.uri);
                self.documents.insert(doc.uri.clone(), Document { version: doc.version, text: doc.text, path });
                self.buffer_changed(&doc.uri);
            }
            notif::DidChangeTextDocument::METHOD => {
                let Some(p) = params::<lsp_types::DidChangeTextDocumentParams>(n) else { return };
                let Some(doc) = self.documents.get_mut(&p.text_document.uri) else { return };
                doc.version = p.text_document.version;
                for change in p.content_changes {
                    apply_change(&mut doc.text, change);
                }
                self.buffer_changed(&p.text_document.uri);
            }
            notif::DidCloseTextDocument::METHOD => {
                let Some(p) = params::<lsp_types::DidCloseTextDocumentParams>(n) else { return };
                if let Some(Document { path: Some(path), .. }) = self.documents.remove(&p.text_document.uri) {
                    Arc::make_mut(&mut self.buffers).remove(&path);
                    // The file on disk may differ from the buffer that was closed.
                    self.disk.forget(&path);
                    self.changed();
                }
            }
            notif::DidSaveTextDocument::METHOD => {
                let Some(p) = params::<lsp_types::DidSaveTextDocumentParams>(n) else { return };
                if let Ok(path) = p.text_document.uri.to_file_path() {
                    self.disk.forget(&path);
                }
            }
            notif::DidChangeWatchedFiles::METHOD => {
                let Some(p) = params::<lsp_types::DidChangeWatchedFilesParams>(n) else { return };
                for change in p.changes {
                    match change.uri.to_file_path() {
                        Ok(path) => self.disk.forget(&path),
                        Err(()) => self.disk.forget_all(),
                    }
                }
                self.changed();
            }
            notif::Cancel::METHOD => {
                let Some(p) = params::<lsp_types::CancelParams>(n) else { return };
                let id = match p.id {
                    lsp_types::NumberOrString::Number(n) => RequestId::from(n),
                    lsp_types::NumberOrString::String(s) => RequestId::from(s),
                };
                if let Some(i) = self.waiting.iter().position(|r| r.id == id) {
                    let request = self.waiting.remove(i);
                    self.error(request.id, ErrorCode::RequestCanceled, "cancelled".to_string());
                }
            }
            _ => {}
        }
    }

    /// The path a check reads a document by, for documents inside the workspace.
    fn in_workspace(&self, uri: &Url) -> Option<PathBuf> {
        let path = uri.to_file_path().ok()?;
        path.starts_with(&self.root).then_some(path)
    }

    fn buffer_changed(&mut self, uri: &Url) {
        let Some(Document { path: Some(path), text, .. }) = self.documents.get(uri) else { return };
        Arc::make_mut(&mut self.buffers).insert(path.clone(), Arc::from(text.as_str()));
        self.changed();
    }

    /// What a check reads changed: a new generation, checked on the checker thread. The last
    /// check is freed first: every request is answered from the check of the newest text
    /// (docs/lsp.md, "Which check answers"), so the last one has nothing left to answer.
    fn changed(&mut self) {
        discard(self.latest.take());
        self.generation += 1;
        self.newest.store(self.generation, std::sync::atomic::Ordering::Release);
        let _ = self.jobs.send(Job {
            generation: self.generation,
            buffers: self.buffers.clone(),
            newest: self.newest.clone(),
        });
    }

    fn checked(&mut self, analysis: Analysis) {
        if analysis.generation != self.generation {
            // A check of a text since changed (it finished as the change came): the check of
            // the newest text is on its way.
            return discard(Some(analysis));
        }
        self.latest = Some(analysis);
        self.publish();
        self.answer_waiting();
    }

    /// Sends the findings of every file whose findings (or open version) changed.
    fn publish(&mut self) {
        let Some(analysis) = self.latest.as_ref() else { return };
        let open: BTreeMap<&str, i32> =
            self.documents.iter().filter(|(_, d)| d.path.is_some()).map(|(u, d)| (u.as_str(), d.version)).collect();
        let urls: BTreeSet<FileUrl> = analysis
            .files
            .iter()
            .map(|(url, _)| url)
            .chain(self.published.keys())
            .cloned()
            .chain(open.keys().map(|u| FileUrl::from(*u)))
            .collect();
        // Each file's notification is made as the writer gets to it (`Each`), from its findings
        // as shown and their words (texts shared with the check, which an edit may free first).
        let mut files = Vec::new();
        for url in urls {
            let diagnostics = analysis.shows(&url).map(|s| s.findings.clone()).unwrap_or_default();
            let version = open.get(&*url).copied();
            let same = |d: &Findings| Arc::ptr_eq(d, &diagnostics) || **d == *diagnostics;
            if let Some((v, d)) = self.published.get_mut(&url).filter(|(v, d)| *v == version && same(d)) {
                // The same findings: this check's copy is kept, the one before is freed with it.
                (*v, *d) = (version, diagnostics);
                continue;
            }
            let words: Vec<Option<Words>> = analysis.findings(&url).map(|(_, f)| f.map(Words::of)).collect();
            files.push((url.clone(), version, diagnostics.clone(), words));
            if diagnostics.shown.is_empty() && version.is_none() {
                self.published.remove(&url);
            } else {
                self.published.insert(url, (version, diagnostics));
            }
        }
        if files.is_empty() {
            return;
        }
        let notifications = files.into_iter().filter_map(|(url, version, findings, words)| {
            let uri = Url::parse(&url).ok()?;
            let diagnostics =
                findings.shown.iter().zip(&words).map(|(shown, words)| shown.sent(words.as_ref())).collect();
            let params = lsp_types::PublishDiagnosticsParams { diagnostics, uri, version };
            Some(Message::Notification(Notification::new(notif::PublishDiagnostics::METHOD.into(), params)))
        });
        let _ = self.out.send(Outgoing::Each(Each(Box::new(notifications))));
    }

    /// Answers the waiting requests once the check of the newest text is there.
    fn answer_waiting(&mut self) {
        let Some(analysis) = self.latest.as_ref() else { return };
        let ready = std::mem::take(&mut self.waiting);
        let texts = |url: &Url| -> Option<String> { self.documents.get(url).map(|d| d.text.clone()) };
        for request in ready {
            let id = request.id.clone();
            let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| answer(analysis, &texts, request)));
            let message = match answer {
                Ok(Ok(value)) => Response { id, result: Some(value), error: None },
                Ok(Err(e)) => Response::new_err(id, ErrorCode::InvalidParams as i32, e),
                Err(_) => {
                    Response::new_err(id, ErrorCode::InternalError as i32, "capc lsp failed on this request".into())
                }
            };
            send(&self.out, Message::Response(message));
        }
    }

    /// Asks the client to tell the server about changes to files on disk (all of them: a
    /// declaration can be any file a manifest names).
    fn watch_files(&mut self) {
        use lsp_types::*;
        let options = DidChangeWatchedFilesRegistrationOptions {
            watchers: vec![FileSystemWatcher { glob_pattern: GlobPattern::String("**/*".to_string()), kind: None }],
        };
        let params = RegistrationParams {
            registrations: vec![Registration {
                id: "capc-watched-files".to_string(),
                method: notif::DidChangeWatchedFiles::METHOD.to_string(),
                register_options: serde_json::to_value(options).ok(),
            }],
        };
        self.next_request += 1;
        let id = RequestId::from(format!("capc-{}", self.next_request));
        self.send(Message::Request(Request::new(id, req::RegisterCapability::METHOD.into(), params)));
    }
}

/// Frees a check no longer used on a thread of its own: on a large workspace that takes
/// milliseconds the main loop spends reading the next change instead.
fn discard(analysis: Option<Analysis>) {
    if let Some(analysis) = analysis {
        // When no thread can be started, the closure (and the check) is freed here.
        let _ = std::thread::Builder::new().name("capc-lsp-free".into()).spawn(move || drop(analysis));
    }
}

fn params<P: serde::de::DeserializeOwned>(n: Notification) -> Option<P> {
    let method = n.method.clone();
    serde_json::from_value(n.params).map_err(|e| eprintln!("capc lsp: bad `{method}` parameters: {e}")).ok()
}

/// The answer to a request about the workspace, from a check and the open documents' texts.
fn answer(
    analysis: &Analysis,
    texts: &dyn Fn(&Url) -> Option<String>,
    request: Request,
) -> Result<serde_json::Value, String> {
    fn take<P: serde::de::DeserializeOwned>(request: Request) -> Result<P, String> {
        serde_json::from_value(request.params).map_err(|e| format!("bad `{}` parameters: {e}", request.method))
    }
    let value = match request.method.as_str() {
        req::DocumentDiagnosticRequest::METHOD => {
            let p: lsp_types::DocumentDiagnosticParams = take(request)?;
            let items = analysis.lsp(&p.text_document.uri);
            serde_json::to_value(lsp_types::DocumentDiagnosticReport::Full(
                lsp_types::RelatedFullDocumentDiagnosticReport {
                    related_documents: None,
                    full_document_diagnostic_report: lsp_types::FullDocumentDiagnosticReport { result_id: None, items },
                },
            ))
        }
        req::CodeActionRequest::METHOD => serde_json::to_value(actions::code_actions(analysis, take(request)?)),
        req::HoverRequest::METHOD => serde_json::to_value(features::hover(analysis, texts, take(request)?)),
        req::Completion::METHOD => serde_json::to_value(features::completion(analysis, texts, take(request)?)),
        req::GotoDefinition::METHOD => serde_json::to_value(features::definition(analysis, texts, take(request)?)),
        req::DocumentLinkRequest::METHOD => {
            serde_json::to_value(features::document_links(analysis, texts, take(request)?))
        }
        req::References::METHOD => serde_json::to_value(references::references(analysis, texts, take(request)?)),
        req::DocumentSymbolRequest::METHOD => {
            serde_json::to_value(features::document_symbols(analysis, texts, take(request)?))
        }
        req::WorkspaceSymbolRequest::METHOD => {
            serde_json::to_value(features::workspace_symbols(analysis, take(request)?))
        }
        _ => return Err(format!("unknown method `{}`", request.method)),
    };
    value.map_err(|e| e.to_string())
}

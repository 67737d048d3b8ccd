//! `capc serve`: a session's commands, skills and skill files served over MCP, on rmcp's
//! server side. Prompts are the commands and skills a user can type; `prompts/get` runs the
//! session's own dispatch for `/name args`, so its messages are the texts `capc session`
//! records for that input. The Skill tool is the session's Skill tool. Resources are the skill
//! folders' files, read through the lock's containment rules and checked against their hash.
//!
//! One session answers every client (stdio, or each HTTP client): its state is behind a mutex
//! and each request runs on a blocking thread, since an expansion may run `!` injections.
//! `catalog` holds what is listed; `http` the Streamable HTTP listener and its guards;
//! `stdio` the stdio transport and its line filter; `watch` the live reload; `gateway` the
//! lock's MCP servers served through capc (`--connect`); `ask` the questions put to the
//! client's user where Claude Code would ask; `prompt` answers `prompts/get`; `skill` is the
//! Skill tool.

pub mod ask;
pub mod catalog;
pub mod gateway;
pub mod http;
mod params;
mod prompt;
mod skill;
pub mod stdio;
pub mod watch;

use crate::session::Session;
use catalog::{Catalog, List, SKILL_TOOL};
use prompt::get_prompt;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, GetSkillRequestParams, GetSkillResult, Implementation, JsonObject,
    ListPromptsResult, ListResourcesResult, ListSkillsResult, ListToolsResult, PaginatedRequestParams, ProtocolVersion,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ResourceContents, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{Peer, RoleServer, ServerHandler};
use serde_json::json;
pub(crate) use skill::rule_to_add;
use skill::{shell_question, skill_arguments, skill_tool};
use std::borrow::Cow;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// A single JSON-RPC message over stdio or HTTP may be this large; a larger one is refused.
pub(crate) const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// How `capc serve` listens.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Streamable HTTP on this address (`/mcp`) instead of stdio.
    pub http: Option<std::net::SocketAddr>,
    /// A non-loopback `http` address was asked for on purpose.
    pub allow_remote: bool,
    /// Every HTTP request must carry `Authorization: Bearer <token>`.
    pub token: Option<String>,
    /// Watch the folder and serve a lock recomputed in memory after each save.
    pub watch: bool,
    /// Connect the lock's MCP servers and serve their tools and prompts (the gateway).
    pub connect: bool,
    /// What an HTTP client may take (connections, sessions, time and size of a request).
    pub limits: http::Limits,
}

/// What every connection shares: the session and what it lists, and the clients to tell when
/// a list changes.
pub struct Shared {
    state: Mutex<State>,
    peers: Mutex<Vec<Peer<RoleServer>>>,
}

struct State {
    session: Session,
    catalog: Arc<Catalog>,
    /// Allow rules the user gave at a question (for the session, or always) and, in a trusted
    /// folder, those of the local settings, where an "always" answer is saved: session rules
    /// of every request from now on.
    allowed: Vec<String>,
}

impl State {
    /// The turn every request is answered in, with the rules the user allowed.
    fn context(&self) -> crate::context::TurnContext {
        let mut cx = catalog::context(&self.session);
        cx.session_rules.allow = self.allowed.clone();
        cx
    }
}

/// One attempt at a request, tried again after each answer (see [`Shared::asking`]).
type Attempt<T> = Arc<dyn Fn(&mut Session, &Catalog) -> Step<T> + Send + Sync>;

/// What one attempt at a request came to: its answer, or a question to put to the user
/// first, with the answer when the question cannot be asked (`refused`) and when the user
/// says No (`rejected`).
pub(crate) enum Step<T> {
    Done(T),
    Ask { question: ask::Question, refused: T, rejected: T },
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Shared {
    pub fn new(session: Session) -> Arc<Shared> {
        Shared::allowing(session, Vec::new())
    }

    /// The server `capc serve` starts for `session`: with the allow rules an earlier run saved
    /// from the user's "always" answers, as Claude Code reads them (in a trusted folder only;
    /// files served without a lock hold them already).
    pub fn starting(session: Session) -> Arc<Shared> {
        let allowed =
            if session.trusted && !session.loaded.from_tree { session.loaded.local_allows() } else { Vec::new() };
        Shared::allowing(session, allowed)
    }

    /// A server whose requests start with `allowed` as allow rules of the session (the local
    /// settings' allow rules, where an earlier run saved the user's "always" answers).
    pub(crate) fn allowing(session: Session, allowed: Vec<String>) -> Arc<Shared> {
        let catalog = Arc::new(Catalog::of(&session));
        report(&catalog.problems, &[]);
        let mut state = State { session, catalog, allowed };
        // The Skill tool answers in the turn every request is answered in.
        state.session.last_context = state.context();
        Arc::new(Shared { state: Mutex::new(state), peers: Mutex::new(Vec::new()) })
    }

    /// Takes the live connections' latest state and serves it; returns the lists that changed.
    pub(crate) fn refresh(&self) -> Vec<List> {
        let mut state = lock(&self.state);
        state.session.sync();
        self.rebuild(&mut state)
    }

    fn rebuild(&self, state: &mut State) -> Vec<List> {
        let fresh = Catalog::of(&state.session);
        report(&fresh.problems, &state.catalog.problems);
        let changed = fresh.changed(&state.catalog);
        state.catalog = Arc::new(fresh);
        changed
    }

    fn catalog(&self) -> Arc<Catalog> {
        lock(&self.state).catalog.clone()
    }

    /// The `initialize` result's `instructions`: what capc serves, then the instructions Claude
    /// Code gives the model at the start of a session here (the lock's instruction files, read
    /// now and checked against it), as its reminder holds them.
    fn instructions(&self) -> String {
        let about = "Claude Code's commands and skills of this repository, resolved from its capabilities.lock: \
                     each is a prompt under the name typed after `/`; the Skill tool runs one as Claude Code's Skill \
                     tool does; each skill's files are resources under skill://<skill>/<path>, and each instruction \
                     file (CLAUDE.md, rules, imports) under instruction://<path>.";
        match lock(&self.state).session.loaded.instructions() {
            Ok(Some(reminder)) => {
                let inner = reminder
                    .strip_prefix("<system-reminder>\n")
                    .and_then(|r| r.strip_suffix("\n</system-reminder>"))
                    .unwrap_or(&reminder);
                format!("{about}\n\n{inner}")
            }
            Ok(None) => about.to_string(),
            Err(e) => format!("{about}\n\nThe repository's instructions are not served: {e}"),
        }
    }

    /// Serves `loaded` from now on (`None`: the lock served now, again); returns the lists
    /// that changed.
    pub fn reload(&self, loaded: Option<crate::loaded::Loaded>) -> Vec<List> {
        let mut state = lock(&self.state);
        let session = &mut state.session;
        if let Some(loaded) = loaded {
            session.loaded = loaded;
        }
        // Live connections keep their state: the servers started stay as they are.
        if session.live.is_none() {
            session.mcp = crate::mcp::McpState::from_lock(&session.loaded.lock);
        }
        state.session.last_context = state.context();
        self.rebuild(&mut state)
    }

    /// What deriving the served lock again needs, for the watcher: the lock itself is shared.
    pub fn rederive(&self) -> crate::loaded::Rederive {
        lock(&self.state).session.loaded.rederive()
    }

    /// How many clients have finished their `initialize` handshake and are still connected:
    /// the ones a `list_changed` goes to.
    pub fn clients(&self) -> usize {
        lock(&self.peers).iter().filter(|p| !p.is_transport_closed()).count()
    }

    /// Tells every connected client which lists changed; forgets the ones that are gone.
    pub async fn notify(&self, changed: &[List]) {
        let peers: Vec<Peer<RoleServer>> = lock(&self.peers).clone();
        let mut failed = false;
        for peer in &peers {
            for list in changed {
                let sent = match list {
                    List::Prompts => peer.notify_prompt_list_changed().await,
                    List::Tools => peer.notify_tool_list_changed().await,
                    List::Resources => peer.notify_resource_list_changed().await,
                };
                if sent.is_err() {
                    failed = true;
                    break;
                }
            }
        }
        if failed {
            lock(&self.peers).retain(|p| !p.is_transport_closed());
        }
    }

    /// A gateway `prompts/get`: passed to the server that offers the prompt, its answer as is.
    async fn upstream_prompt(
        self: &Arc<Self>,
        name: String,
        arguments: Option<JsonObject>,
    ) -> Result<GetPromptResult, ErrorData> {
        let shared = self.clone();
        let answer = tokio::task::spawn_blocking(move || {
            let (caller, server, own) = {
                let state = lock(&shared.state);
                let session = &state.session;
                let Some((server, own, _)) = session.mcp.prompt(&name) else {
                    return Err(ErrorData::invalid_params(format!("MCP prompt `{name}` is no longer offered"), None));
                };
                let caller =
                    session.caller.clone().ok_or_else(|| ErrorData::internal_error("no live connections", None))?;
                (caller, server.name.clone(), own)
            };
            caller
                .get_prompt(&server, &own, arguments.unwrap_or_default(), crate::session::PROMPT_TIMEOUT)
                .map_err(|message| ErrorData::internal_error(message, None))
        });
        answer.await.map_err(|e| ErrorData::internal_error(format!("the request was not answered: {e}"), None))?
    }

    /// A gateway `tools/call`: decided by the session (the pool, the permission rules, the
    /// server's timeout), then made without holding it, so a slow tool blocks no other request.
    async fn upstream_tool(
        self: &Arc<Self>,
        name: String,
        arguments: Option<JsonObject>,
        peer: Option<Peer<RoleServer>>,
    ) -> Result<CallToolResult, ErrorData> {
        let served = self.catalog().tools.iter().any(|t| t.name == name);
        let attempt = move |session: &mut Session, catalog: &Catalog| -> Step<Result<Planned, ErrorData>> {
            if !served {
                // A deny rule hides a tool; a call to it says which rule.
                if let Some(rule) =
                    session.mcp.tools().iter().any(|t| *t.name == name).then(|| session.denied_by(&name)).flatten()
                {
                    let permission = crate::outcome::ToolPermission { behavior: "deny".into(), rule: Some(rule) };
                    let refused = crate::outcome::ToolCallResult::Permission { tool: name.clone(), permission };
                    let trusted = session.last_context.trusted;
                    return Step::Done(Ok(Planned::Answer(gateway::result(&refused, trusted))));
                }
                let closest = crate::request::closest(&name, catalog.tools.iter().map(|t| &*t.name));
                return Step::Done(Err(unknown("tool", &name, closest)));
            }
            match session.plan_tool_call(&name) {
                Ok(plan) => Step::Done(Ok(Planned::Plan(plan))),
                Err(refused) => {
                    let question = gateway::question(session, &refused);
                    let refused = Planned::Answer(gateway::result(&refused, session.last_context.trusted));
                    match question {
                        Some(question) => {
                            let rejected = Planned::Answer(rejected(&question));
                            Step::Ask { question, refused: Ok(refused), rejected: Ok(rejected) }
                        }
                        None => Step::Done(Ok(refused)),
                    }
                }
            }
        };
        match self.asking(peer, Arc::new(attempt)).await?? {
            Planned::Plan(plan) => {
                let answer = tokio::task::spawn_blocking(move || plan.run(arguments))
                    .await
                    .map_err(|e| ErrorData::internal_error(format!("the call was not answered: {e}"), None))?;
                // A call made was allowed: its answer names no rule to add.
                Ok(gateway::result(&answer, true))
            }
            Planned::Answer(answer) => Ok(answer),
        }
    }

    /// Runs `f` on the session on a blocking thread: an expansion may run `!` injections.
    async fn with_session<T: Send + 'static>(
        self: &Arc<Self>,
        f: impl FnOnce(&mut Session, &Catalog) -> T + Send + 'static,
    ) -> Result<T, ErrorData> {
        self.with_session_allowing(Vec::new(), f).await
    }

    /// [`Shared::with_session`] with `once` also allowed, for this request only.
    async fn with_session_allowing<T: Send + 'static>(
        self: &Arc<Self>,
        once: Vec<String>,
        f: impl FnOnce(&mut Session, &Catalog) -> T + Send + 'static,
    ) -> Result<T, ErrorData> {
        let shared = self.clone();
        tokio::task::spawn_blocking(move || {
            let mut state = lock(&shared.state);
            let catalog = state.catalog.clone();
            // Requests are independent: one client's skill turn grants nothing to the next.
            state.session.grant = None;
            let mut cx = state.context();
            cx.session_rules.allow.extend(once);
            state.session.last_context = cx;
            let answer = f(&mut state.session, &catalog);
            state.session.last_context = state.context();
            answer
        })
        .await
        .map_err(|e| ErrorData::internal_error(format!("the request failed: {e}"), None))
    }

    /// Runs `attempt` until it is done, asking the client's user each question it raises when
    /// `peer` can ask (see [`ask`]): a yes allows the rule once, for the session or always (saved
    /// to the local settings) and the request is tried again; a No gives `rejected`. A client
    /// that cannot ask, a question asked already in this request, or too many, give `refused`.
    async fn asking<T: Send + 'static>(
        self: &Arc<Self>,
        peer: Option<Peer<RoleServer>>,
        attempt: Attempt<T>,
    ) -> Result<T, ErrorData> {
        let mut once: Vec<String> = Vec::new();
        let mut asked: Vec<String> = Vec::new();
        loop {
            let this = attempt.clone();
            let (question, refused, rejected) =
                match self.with_session_allowing(once.clone(), move |session, catalog| this(session, catalog)).await? {
                    Step::Done(answer) => return Ok(answer),
                    Step::Ask { question, refused, rejected } => (question, refused, rejected),
                };
            let Some(peer) = peer.as_ref().filter(|p| ask::can_ask(p)) else { return Ok(refused) };
            if asked.contains(&question.rule) || asked.len() >= ask::MAX_QUESTIONS {
                return Ok(refused);
            }
            asked.push(question.rule.clone());
            let root = self.root();
            let answer = match ask::ask(peer, &question, &root).await {
                Ok(answer) => answer,
                Err(e) => {
                    eprintln!(
                        "capc: the client did not answer the permission question ({}): refused",
                        capc_compiler::printable::escape(&e)
                    );
                    return Ok(refused);
                }
            };
            match answer {
                ask::Answer::No => return Ok(rejected),
                ask::Answer::Once => once.push(question.rule),
                ask::Answer::Session => self.allow(question.rule),
                ask::Answer::Always => {
                    let rule = question.rule.clone();
                    let saved = tokio::task::spawn_blocking(move || ask::save_allow_rule(&root, &rule)).await;
                    match saved {
                        Ok(Ok(())) => {}
                        Ok(Err(e)) => eprintln!(
                            "capc: {}; allowed for this session only",
                            capc_compiler::printable::escape(&e.to_string())
                        ),
                        Err(e) => eprintln!("capc: the rule was not saved ({e}); allowed for this session only"),
                    }
                    self.allow(question.rule);
                }
            }
        }
    }

    /// Allows `rule` in every request from now on.
    fn allow(&self, rule: String) {
        let mut state = lock(&self.state);
        if !state.allowed.contains(&rule) {
            state.allowed.push(rule);
        }
        state.session.last_context = state.context();
    }

    /// The project folder, absolute.
    fn root(&self) -> std::path::PathBuf {
        let root = lock(&self.state).session.loaded.roots.root.clone();
        std::path::absolute(&root).unwrap_or(root)
    }
}

/// A gateway call decided: to be made, or answered already.
enum Planned {
    Plan(crate::session::ToolCallPlan),
    Answer(CallToolResult),
}

/// What the model gets when its user answers No: Claude Code's words, as a tool error.
fn rejected(question: &ask::Question) -> CallToolResult {
    let mut result = CallToolResult::error(vec![ContentBlock::text(ask::REJECTED)]);
    result.structured_content =
        Some(json!({"permission": {"behavior": "deny", "rule": null}, "asked": question.rule, "answer": "no"}));
    result
}

/// The MCP server of one connection, over the shared session.
#[derive(Clone)]
pub struct Server {
    pub shared: Arc<Shared>,
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_prompts()
            .enable_prompts_list_changed()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_resources()
            .enable_resources_list_changed()
            .enable_skills()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("capc", env!("CARGO_PKG_VERSION")))
            .with_instructions(self.shared.instructions())
    }

    /// Only the revisions with an `initialize` handshake: list changes then go to every
    /// client as plain notifications.
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::LATEST_WITH_INITIALIZE))
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let mut peers = lock(&self.shared.peers);
        peers.retain(|p| !p.is_transport_closed());
        peers.push(context.peer);
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let catalog = self.shared.catalog();
        let (prompts, next) = catalog.prompts.page(cursor(&request)).map_err(|e| ErrorData::invalid_params(e, None))?;
        let mut result = ListPromptsResult::with_all_items(prompts);
        result.next_cursor = next;
        Ok(result)
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let GetPromptRequestParams { name, arguments, .. } = request;
        if name.starts_with("mcp__") && self.shared.catalog().prompts.names().any(|p| p == name) {
            return Ok(self.shared.upstream_prompt(name, arguments).await?.into());
        }
        let attempt =
            move |session: &mut Session, catalog: &Catalog| get_prompt(session, catalog, &name, arguments.clone());
        Ok(self.shared.asking(Some(context.peer), Arc::new(attempt)).await??.into())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.shared.catalog().tools.clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name != SKILL_TOOL {
            let CallToolRequestParams { name, arguments, .. } = request;
            let answer = self.shared.upstream_tool(name.into_owned(), arguments, Some(context.peer)).await?;
            return Ok(CallToolResponse::Complete(answer));
        }
        let (skill, args) = skill_arguments(request.arguments.as_ref())?;
        let attempt = move |session: &mut Session, _: &Catalog| skill_tool(session, &skill, &args);
        Ok(CallToolResponse::Complete(self.shared.asking(Some(context.peer), Arc::new(attempt)).await?))
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let catalog = self.shared.catalog();
        let (resources, next) = catalog.resources(cursor(&request)).map_err(|e| ErrorData::invalid_params(e, None))?;
        let mut result = ListResourcesResult::with_all_items(resources);
        result.next_cursor = next;
        Ok(result)
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        let catalog = self.shared.catalog();
        let (skills, next) = catalog.skills_page(cursor(&request)).map_err(|e| ErrorData::invalid_params(e, None))?;
        let mut result = ListSkillsResult::with_all_items(skills);
        result.next_cursor = next;
        Ok(result)
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        let catalog = self.shared.catalog();
        match catalog.skill(&request.uri) {
            Some(skill) => Ok(GetSkillResult::new(skill)),
            None => {
                let uris = catalog.skill_uris();
                let closest = crate::request::closest(&request.uri, uris.iter().map(String::as_str));
                Err(unknown("skill", &request.uri, closest))
            }
        }
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri;
        let result = self.shared.with_session(move |session, catalog| read_resource(session, catalog, &uri));
        Ok(result.await??.into())
    }
}

/// `resources/read`: a listed skill file, read through the lock's containment rules, refused
/// when its bytes no longer hash as listed.
fn read_resource(session: &mut Session, catalog: &Catalog, uri: &str) -> Result<ReadResourceResult, ErrorData> {
    if let Some(file) = catalog.instructions.iter().find(|f| f.uri == uri) {
        let bytes = session
            .loaded
            .roots
            .read(&file.shown)
            .map_err(|e| ErrorData::invalid_request(format!("{} cannot be read: {e}", file.shown), None))?;
        if capc_compiler::secrets::sha256_hex(&bytes) != file.sha256 {
            return Err(ErrorData::invalid_request(
                format!(
                    "{} changed since the lock was made (run `capc lock` and reconnect, or serve with --watch)",
                    file.shown
                ),
                None,
            ));
        }
        let text = String::from_utf8(bytes)
            .map_err(|_| ErrorData::invalid_request(format!("{} is no longer UTF-8", file.shown), None))?;
        let mut contents = ResourceContents::text(text, uri);
        if let ResourceContents::TextResourceContents { mime_type, .. } = &mut contents {
            *mime_type = Some("text/markdown".to_string());
        }
        return Ok(ReadResourceResult::new(vec![contents]));
    }
    let Some(file) = catalog.files.find(uri) else {
        let uris = catalog.files.get().map(|f| f.uri()).collect::<Vec<_>>();
        let uris = uris.iter().map(String::as_str).chain(catalog.instructions.iter().map(|f| f.uri.as_str()));
        let closest = crate::request::closest(uri, uris);
        let mut error = unknown("resource", uri, closest);
        error.code = rmcp::model::ErrorCode::RESOURCE_NOT_FOUND;
        return Err(error);
    };
    let shown = file.shown();
    let bytes = session
        .loaded
        .roots
        .read(&shown)
        .map_err(|e| ErrorData::invalid_request(format!("{shown} cannot be read: {e}"), None))?;
    if capc_compiler::secrets::sha256_hex(&bytes) != file.sha256() {
        let against = if file.locked() { "the lock" } else { "the list" };
        return Err(ErrorData::invalid_request(
            format!("{shown} changed since {against} was made (run `capc lock` and reconnect, or serve with --watch)"),
            None,
        ));
    }
    let contents = match String::from_utf8(bytes) {
        Ok(text) => ResourceContents::text(text, uri),
        Err(e) => {
            use base64::Engine;
            ResourceContents::blob(base64::engine::general_purpose::STANDARD.encode(e.into_bytes()), uri)
        }
    };
    Ok(ReadResourceResult::new(vec![contents]))
}

/// The cursor a list request gives, if any.
fn cursor(request: &Option<PaginatedRequestParams>) -> Option<&str> {
    request.as_ref().and_then(|r| r.cursor.as_deref())
}

/// An unknown name, with the closest one there is.
fn unknown(what: &str, name: &str, closest: Option<&str>) -> ErrorData {
    let shown = capc_compiler::printable::escape(name);
    match closest {
        Some(c) => ErrorData::invalid_params(
            format!("unknown {what} `{shown}`; did you mean `{c}`?"),
            Some(json!({"closest": c})),
        ),
        None => ErrorData::invalid_params(format!("unknown {what} `{shown}`"), None),
    }
}

/// Prints each problem of `now` that `before` did not have.
fn report(now: &[String], before: &[String]) {
    for problem in now.iter().filter(|p| !before.contains(p)) {
        eprintln!("capc: {problem}");
    }
}

/// Serves `session` over stdio until the client goes away (status 0), or over HTTP until a
/// signal (status 130, 143 or 129, for SIGINT, SIGTERM, SIGHUP). With `connect`, the lock's MCP
/// servers are connected first (as `capc session --connect` connects them, stdio servers also
/// reconnected) and ended last.
pub fn run(mut session: Session, options: Options) -> std::io::Result<u8> {
    let live = if options.connect {
        let mut settings = crate::connect::Settings::from_env(|name| std::env::var(name).ok());
        settings.reconnect_local = true;
        Some(session.connect(settings, crate::context::Entry::Headless)?)
    } else {
        None
    };
    let changes = session.live.as_ref().map(|l| lock(l).changed.clone());
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    let shared = Shared::starting(session);
    let served = runtime.block_on(async move {
        if options.watch {
            // The files as they are before any save, so that a later save of a supporting file
            // is a change to announce (otherwise they are read when first listed).
            shared.catalog().files.get().len();
            watch::start(shared.clone());
        }
        if let Some(changes) = changes {
            tokio::spawn(follow(shared.clone(), changes));
        }
        match options.http {
            Some(addr) => http::serve(shared, addr, &options).await,
            None => stdio::serve(shared).await.map(|()| 0),
        }
    });
    runtime.shutdown_timeout(std::time::Duration::from_secs(2));
    if let Some(live) = live {
        live.shutdown();
    }
    served
}

/// Follows the live connections: after each change of their state (a server connected, lost,
/// reconnected, or a list it re-read after its `list_changed`), serves the new lists and tells
/// every client which changed.
async fn follow(shared: Arc<Shared>, changes: Arc<tokio::sync::Notify>) {
    loop {
        changes.notified().await;
        let refreshed = shared.clone();
        let Ok(changed) = tokio::task::spawn_blocking(move || refreshed.refresh()).await else { return };
        if !changed.is_empty() {
            shared.notify(&changed).await;
        }
    }
}

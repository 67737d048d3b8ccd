//! A session: the loaded lock, the MCP state, and the one thing that outlives a turn by
//! design: a skill turn's `allowedTools`, `model` and `effort`, which apply to that turn's
//! whole query loop and are cleared by the next turn that is not a skill turn. Every request is answered from a view recomputed for it.
//!
//! A turn's input is handled as Claude Code handles it, and the request it would send
//! is recorded ([`Request`]): a slash command's wrapper and prompt blocks, a forked skill's
//! subagent request, an MCP prompt's messages, the reminder before an unknown `/name` in a
//! headless session, and the inputs that make no request at all (`/help` in a headless session,
//! a skill only the model may invoke, one `skillOverrides` turns off).
//!
//! The files: `input` (what a typed line does: slash dispatch, prompt expansion with its `!`
//! injections, built-in and unknown commands, MCP prompts) and `tools` (the model's calls: the
//! Skill tool, ToolSearch, an MCP tool).

mod input;
mod tools;

use crate::context::{Entry, PermissionMode, TurnContext};
use crate::loaded::{LoadError, Loaded};
use crate::mcp::{McpState, Status, Update};
use crate::outcome::TurnResult;
use crate::permissions::{Permissions, Verdict};
use crate::request::Request;
pub use crate::shell::ShellRun;
use crate::turn::{self, TurnView};
use capc_grammar::{MatchContext, ToolCall};
use schemars::JsonSchema;
use serde::Serialize;
use std::time::Duration;
pub(crate) use tools::ToolCallPlan;

/// How long an MCP prompt may take to arrive.
pub(crate) const PROMPT_TIMEOUT: Duration = Duration::from_secs(60);

/// The turn-scoped grant of a skill turn.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Grant {
    /// The skill that granted it.
    pub skill: String,
    /// Rules added to `alwaysAllowRules.command` for this turn.
    pub allowed_tools: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effort: Option<String>,
}

/// What a user turn gives: the view, what the input did, and the request Claude Code sends.
#[derive(Debug, Clone)]
pub struct TurnOutcome {
    pub view: TurnView,
    pub result: TurnResult,
    pub request: Request,
    /// What capc left out of the request that Claude Code would send (an `@` mention of a file
    /// outside the folder, a read it does not reproduce), and what makes the API refuse the
    /// request (a connected server's tool whose composed name is over 64 characters).
    pub notes: Vec<String>,
}

pub struct Session {
    pub loaded: Loaded,
    pub mcp: McpState,
    /// The grant of the current skill turn, if this turn is one.
    pub grant: Option<Grant>,
    /// The user trusts the folder (`capc session --trust`, or their own `~/.claude.json`): the
    /// default of each turn's `trusted`, and whether the repository's MCP servers may start.
    pub trusted: bool,
    pub turns: u64,
    /// The context of the last turn, for requests between turns (tool search, invoke_skill).
    pub(crate) last_context: TurnContext,
    /// `${CLAUDE_SESSION_ID}`.
    pub(crate) session_id: String,
    /// Run `!` injections that the rules allow (off: they are decided but never run).
    pub run_shell: bool,
    /// In a folder that is not trusted, run the `!` injections the command's own
    /// `allowed-tools` and the user's or managed rules allow, as headless Claude Code does
    /// (`--untrusted-injections run`); off, none runs and each says what Claude Code would do.
    pub run_untrusted: bool,
    /// With live connections: the state they update, copied into `mcp` before each request.
    pub live: Option<crate::batch::Shared>,
    /// With live connections: calls their tools.
    pub caller: Option<crate::connect::Caller>,
    /// The version of the live state `mcp` was copied from.
    synced: u64,
    /// Command bodies parsed as templates, by their text: a server answers the same prompt many
    /// times, and parsing is most of the cost of an expansion.
    templates: std::sync::Mutex<std::collections::HashMap<String, std::sync::Arc<capc_grammar::Template>>>,
    /// The notes of the turn under way (see [`TurnOutcome::notes`]).
    notes: Vec<String>,
    /// How many texts at the head of the turn under way are attachments (the reads of `@`
    /// mentions and the rules they bring in): the instructions reminder goes after them.
    attached: usize,
}

/// What `status` answers: the lock's counts, the turn count, the grant, each MCP server.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct StatusReport {
    pub lock: LockSummary,
    pub turns: u64,
    pub grant: Option<Grant>,
    pub mcp_servers: Vec<ServerSummary>,
}

/// The lock's format and Claude Code versions, and how many entries each table has.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct LockSummary {
    pub version: u32,
    pub claude_code: String,
    pub sources: usize,
    pub commands: usize,
    pub agents: usize,
    pub mcp_servers: usize,
    pub hooks: usize,
    pub permissions: usize,
}

/// One MCP server's state, its lists counted.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ServerSummary {
    pub name: String,
    pub status: Status,
    pub error: Option<String>,
    pub tools: usize,
    pub prompts: usize,
    pub resources: usize,
    /// The protocol version negotiated with a connected server.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
}

impl Session {
    pub fn new(loaded: Loaded) -> Session {
        let mcp = McpState::from_lock(&loaded.lock);
        Session {
            loaded,
            mcp,
            grant: None,
            turns: 0,
            trusted: false,
            last_context: TurnContext::default(),
            session_id: "capc-session".to_string(),
            run_shell: true,
            run_untrusted: false,
            live: None,
            caller: None,
            synced: 0,
            templates: Default::default(),
            notes: Vec::new(),
            attached: 0,
        }
    }

    /// The rules of a turn in `cx`, with the current skill's grant.
    pub fn permissions(&self, cx: &TurnContext) -> Permissions {
        let grant = self.grant.as_ref().map(|g| g.allowed_tools.as_slice()).unwrap_or_default();
        Permissions::assemble(&self.loaded, cx, grant)
    }

    pub fn view(&self, cx: &TurnContext) -> TurnView {
        self.assembled(&self.loaded.with_settings(cx.clone())).1
    }

    /// A turn's rules, assembled once, and the view computed with them: what a request
    /// between turns (the Skill tool, an MCP call) decides by and what it sees.
    fn assembled(&self, cx: &TurnContext) -> (Permissions, TurnView) {
        let permissions = self.permissions(cx);
        let view = turn::compute_with(&self.loaded, &self.mcp, cx, &permissions);
        (permissions, view)
    }

    /// The paths rules are matched against: the project root and the home folder.
    fn decide(&self, permissions: &Permissions, call: &ToolCall<'_>) -> Verdict {
        let cwd = self.loaded.roots.root.to_string_lossy();
        let home = self.loaded.home.to_string_lossy();
        permissions.decide(call, &MatchContext { cwd: &cwd, home: &home, settings_dir: None })
    }

    /// One user turn: the view, what the input does, and the request Claude Code sends for it.
    pub fn turn(&mut self, input: &str, cx: TurnContext) -> TurnOutcome {
        self.turns += 1;
        // The locked settings' turn keys, under the host's own flags.
        let mut cx = self.loaded.with_settings(cx);
        // `permissions.disableBypassPermissionsMode: "disable"`: a session asked to bypass
        // permissions starts in the default mode instead.
        if cx.permission_mode == PermissionMode::BypassPermissions
            && self.loaded.policy("permissions.disableBypassPermissionsMode").is_some()
        {
            cx.permission_mode = PermissionMode::Default;
        }
        // `allowManagedPermissionRulesOnly`: `--allowedTools` adds no allow rule either.
        if self.loaded.policy("allowManagedPermissionRulesOnly").is_some() {
            cx.allowed_tools.clear();
        }
        let view = self.view(&cx);
        self.notes.clear();
        self.attached = 0;
        // The instruction files go first in the user turn of every request; a file that changed
        // since the lock stops the turn, as a changed command body does.
        let (result, request) = match self.loaded.instructions() {
            Err(e) => {
                let message = e.to_string();
                (TurnResult::Error { message: message.clone() }, Request::none(&view, vec![message]))
            }
            Ok(reminder) => {
                let (result, mut request) = self.input(input, &view, &cx);
                if let Some(mut reminder) = reminder.filter(|_| request.sent) {
                    // Last of the attachments, it ends its message, and so its line, unless a
                    // reminder joins that message after it (as the last `@` read does).
                    if !input::reminder_follows(&cx, &self.loaded.roots.root) {
                        reminder.push('\n');
                    }
                    let at = self.attached.min(request.texts.len());
                    request.texts.insert(at, reminder);
                }
                (result, request)
            }
        };
        self.note_refused_names(&view);
        // A turn that is not a skill turn clears the last skill's grant.
        if !matches!(result, TurnResult::Prompt { .. }) {
            self.grant = None;
        }
        self.last_context = cx;
        TurnOutcome { view, result, request, notes: std::mem::take(&mut self.notes) }
    }

    /// A tool of the pool whose name the Messages API refuses (`^[a-zA-Z0-9_-]{1,64}$`):
    /// Claude Code offers it all the same, and the API refuses the whole request.
    fn note_refused_names(&mut self, view: &TurnView) {
        for tool in view.tools.iter().filter(|t| t.origin == "mcp") {
            let Some(why) = capc_compiler::surface::name_problem(&tool.name) else { continue };
            let server = self.mcp.tools().iter().find(|t| t.name == tool.name).map(|t| t.server.clone());
            self.notes.push(format!(
                "tool `{}` of MCP server `{}` {why}: the API refuses every request that offers it, so every turn fails",
                capc_compiler::printable::escape(&tool.name),
                capc_compiler::printable::escape(server.as_deref().unwrap_or("?"))
            ));
        }
    }

    pub fn apply_mcp(&mut self, updates: Vec<Update>) -> Result<(), String> {
        if let Some(live) = &self.live {
            let mut guard = live.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            guard.state.apply(updates)?;
            guard.version += 1;
            self.mcp = guard.state.clone();
            self.synced = guard.version;
            return Ok(());
        }
        self.mcp.apply(updates)
    }

    /// Connects the session's MCP servers (`capc session --connect`): from now on their
    /// updates reach it through [`Session::sync`] and its tool calls go to them. The servers
    /// end when the returned [`crate::connect::Live`] is shut down or dropped.
    pub fn connect(
        &mut self,
        settings: crate::connect::Settings,
        entry: Entry,
    ) -> std::io::Result<crate::connect::Live> {
        let live = crate::connect::Live::start(&self.loaded.lock, self.mcp.clone(), self.trusted, settings, entry)?;
        self.live = Some(live.state());
        self.caller = Some(live.caller());
        Ok(live)
    }

    /// Takes the connections' latest state, when it changed since the last request; a request
    /// sees one state from start to end.
    pub fn sync(&mut self) {
        if let Some(live) = &self.live {
            let guard = live.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if guard.version != self.synced {
                self.mcp = guard.state.clone();
                self.synced = guard.version;
            }
        }
    }

    pub fn status(&self) -> StatusReport {
        let lock = &self.loaded.lock;
        StatusReport {
            lock: LockSummary {
                version: lock.version,
                claude_code: lock.claude_code.clone(),
                sources: lock.sources.len(),
                commands: lock.commands.len(),
                agents: lock.agents.len(),
                mcp_servers: lock.mcp_servers.len(),
                hooks: lock.hooks.len(),
                permissions: lock.permissions.len(),
            },
            turns: self.turns,
            grant: self.grant.clone(),
            mcp_servers: self
                .mcp
                .servers()
                .map(|s| ServerSummary {
                    name: s.name.clone(),
                    status: s.status,
                    error: s.error.clone(),
                    tools: s.tools.len(),
                    prompts: s.prompts.len(),
                    resources: s.resources.len(),
                    protocol: s.protocol.clone(),
                })
                .collect(),
        }
    }

    /// `:why NAME` — the lock's record of who won a name and why.
    pub fn why(&self, name: &str) -> String {
        let bare = name.trim_start_matches('/');
        let mut out = Vec::new();
        for c in self.loaded.lock.commands.iter().filter(|c| c.name == bare) {
            match &c.shadowed_by {
                Some(by) => out.push(format!(
                    "{} ({}) is hidden by {} ({}): {}",
                    c.path,
                    c.scope.as_str(),
                    by.path.as_deref().unwrap_or("a built-in"),
                    by.scope.as_str(),
                    capc_compiler::lock::resolve::rule_text(&by.rule)
                )),
                None => out.push(format!("{} ({}) answers to /{bare}", c.path, c.scope.as_str())),
            }
            for s in &c.shadows {
                out.push(format!(
                    "  it hides {} `/{}` ({}): {}",
                    s.origin.as_str(),
                    s.name,
                    s.path.as_deref().unwrap_or("built-in"),
                    capc_compiler::lock::resolve::rule_text(&s.rule)
                ));
            }
        }
        if out.is_empty() {
            out.push(format!("nothing in the lock is named `{bare}`"));
        }
        out.join("\n")
    }
}

/// Errors a caller may show.
pub fn describe(e: &LoadError) -> String {
    e.to_string()
}

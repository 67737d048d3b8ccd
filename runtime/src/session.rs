//! A session: the loaded lock, the MCP state, and the one thing that outlives a turn by
//! design: a skill turn's `allowedTools`, `model` and `effort`, which apply to that turn's
//! whole query loop and are cleared by the next turn that is not a skill turn (SEMANTICS
//! §3.5). Every request is answered from a view recomputed for it.

use crate::loaded::{LoadError, Loaded};
use crate::mcp::{McpState, Update};
use crate::turn::{self, CommandView, TurnContext, TurnView};
use capc_compiler::model::{Command, Origin};
use capc_grammar::{
    decide, parse_template, Behavior, DecisionBehavior, ExpandContext, MatchContext, TemplateVar, ToolCall,
};
use serde::Serialize;
use serde_json::{json, Value};
use std::time::Duration;

/// `Skill(…)` rule contents with the file each is written in.
type RuleContents = Vec<(String, String)>;

/// How long a `!` shell injection may run.
const SHELL_TIMEOUT: Duration = Duration::from_secs(10);

/// The turn-scoped grant of a skill turn.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
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

/// One `!` shell injection: what the permission decision said, and what it printed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ShellRun {
    pub command: String,
    /// `allow`, `ask` or `deny`.
    pub decision: &'static str,
    /// The rule that decided, as written, with its file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// Exit code, when it ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
}

pub struct Session {
    pub loaded: Loaded,
    pub mcp: McpState,
    /// The grant of the current skill turn, if this turn is one.
    pub grant: Option<Grant>,
    pub turns: u64,
    /// The context of the last turn, for requests between turns (tool search, invoke_skill).
    pub last_context: TurnContext,
    /// `${CLAUDE_SESSION_ID}`.
    pub session_id: String,
    /// Run `!` injections that the rules allow (off: they are decided but never run).
    pub run_shell: bool,
    /// With live connections: the state they update, copied into `mcp` before each request.
    pub live: Option<crate::batch::Shared>,
    /// With live connections: calls their tools.
    pub caller: Option<crate::connect::Caller>,
    /// The version of the live state `mcp` was copied from.
    synced: u64,
}

impl Session {
    pub fn new(loaded: Loaded) -> Session {
        let mcp = McpState::from_lock(&loaded.lock);
        Session {
            loaded,
            mcp,
            grant: None,
            turns: 0,
            last_context: TurnContext::default(),
            session_id: "capc-session".to_string(),
            run_shell: true,
            live: None,
            caller: None,
            synced: 0,
        }
    }

    pub fn view(&self, cx: &TurnContext) -> TurnView {
        turn::compute(&self.loaded, &self.mcp, cx)
    }

    /// One user turn: the view, and what the input does.
    pub fn turn(&mut self, input: &str, cx: TurnContext) -> (TurnView, Value) {
        self.turns += 1;
        let view = self.view(&cx);
        let outcome = self.input(input, &view, &cx);
        // A turn that is not a skill turn clears the last skill's grant.
        if outcome.get("kind").and_then(Value::as_str) != Some("prompt") {
            self.grant = None;
        }
        self.last_context = cx;
        (view, outcome)
    }

    fn input(&mut self, input: &str, view: &TurnView, cx: &TurnContext) -> Value {
        let trimmed = input.trim();
        if !trimmed.starts_with('/') {
            return json!({"kind": "message", "text": input});
        }
        let Some(line) = capc_grammar::parse_command_line(input) else {
            return json!({"kind": "error", "message": "Commands are in the form `/command [args]`"});
        };
        let name = line.base_name().to_string();
        let Some(row) = turn::find(&view.commands, &name).cloned() else {
            if let Some(prompt) = self.mcp.prompt_commands().into_iter().find(|p| *p == name) {
                let args: Vec<&str> = line.args.split(' ').filter(|a| !a.is_empty()).collect();
                return json!({"kind": "mcp_prompt", "command": prompt, "args": args});
            }
            if line.looks_like_command() {
                let names =
                    view.commands.iter().flat_map(|c| std::iter::once(&*c.name).chain(c.aliases.iter().copied()));
                let mut out = json!({"kind": "error", "message": format!("Unknown skill: {name}")});
                if let Some(s) = capc_compiler::diagnostic::did_you_mean(&name, names) {
                    out["did_you_mean"] = json!(s);
                }
                return out;
            }
            return json!({"kind": "message", "text": input});
        };
        match row.decl {
            Some(i) => {
                let command = self.loaded.lock.commands[i].clone();
                if !command.user_invocable {
                    return json!({"kind": "error", "message": format!("/{} can only be invoked by Claude, not directly by you", command.name)});
                }
                self.run_prompt(&command, &line.args, cx, false)
            }
            None if row.kind == "prompt" => {
                self.grant = Some(Grant { skill: row.name.to_string(), ..Grant::default() });
                json!({"kind": "prompt", "command": row.name, "origin": row.origin, "text": null,
                       "note": "a bundled skill: its prompt is inside Claude Code"})
            }
            None => self.local(&row, &line.args, view),
        }
    }

    /// The built-in commands capc can answer itself; the others belong to Claude Code's UI.
    fn local(&mut self, row: &CommandView, _args: &str, view: &TurnView) -> Value {
        let output = match &*row.name {
            "help" => Some(view.commands.iter().map(|c| format!("/{}", c.name)).collect::<Vec<_>>().join("\n")),
            "skills" => Some(view.skill_listing.clone()),
            "mcp" => Some(
                self.mcp
                    .servers()
                    .map(|s| {
                        format!(
                            "{}: {}",
                            s.name,
                            serde_json::to_string(&s.status).unwrap_or_default().trim_matches('"')
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            "agents" => Some(
                self.loaded
                    .lock
                    .agents
                    .iter()
                    .filter(|a| a.shadowed_by.is_none() && a.denied_by.is_none())
                    .map(|a| a.name.clone())
                    .chain(capc_compiler::builtins::BUILTIN_AGENTS.iter().map(|a| a.name.to_string()))
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            "permissions" => Some(
                self.loaded
                    .lock
                    .permissions
                    .iter()
                    .map(|p| format!("{} {}", p.behavior.as_str(), p.rule))
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            "clear" => {
                self.grant = None;
                Some(String::new())
            }
            _ => None,
        };
        match output {
            Some(text) => json!({"kind": "local", "command": row.name, "type": row.kind, "output": text}),
            None => json!({"kind": "local", "command": row.name, "type": row.kind, "output": null,
                           "note": "runs inside Claude Code's interface; capc does not reproduce it"}),
        }
    }

    /// A prompt command: expanded (with its `!` injections decided and, when allowed, run),
    /// or handed to a forked agent. `from_model`: the Skill tool, whose grant is added to the
    /// turn's rather than replacing it.
    fn run_prompt(&mut self, command: &Command, args: &str, cx: &TurnContext, from_model: bool) -> Value {
        let body = match self.loaded.body(command) {
            Ok(body) => body,
            Err(e) => return json!({"kind": "error", "message": e.to_string()}),
        };
        let (text, shell) = self.expand(command, &body, args, cx);
        if command.context.as_deref() == Some("fork") {
            return json!({
                "kind": "fork",
                "command": command.name,
                "agent": command.agent.clone().unwrap_or_else(|| "general-purpose".to_string()),
                "prompt": text,
                "allowed_tools": command.allowed_tools,
                "model": command.model,
                "effort": command.effort,
                "shell": shell,
            });
        }
        let grant = Grant {
            skill: command.name.clone(),
            allowed_tools: command.allowed_tools.clone(),
            model: command.model.clone(),
            effort: command.effort.clone(),
        };
        self.grant = match (from_model, self.grant.take()) {
            // The Skill tool's context modifier: a set union with what the turn already has.
            (true, Some(mut current)) => {
                for tool in grant.allowed_tools {
                    if !current.allowed_tools.contains(&tool) {
                        current.allowed_tools.push(tool);
                    }
                }
                current.model = grant.model.or(current.model);
                current.effort = grant.effort.or(current.effort);
                Some(current)
            }
            _ => Some(grant),
        };
        json!({
            "kind": "prompt",
            "command": command.name,
            "origin": command.origin,
            "text": text,
            "allowed_tools": command.allowed_tools,
            "model": command.model,
            "effort": command.effort,
            "shell": shell,
        })
    }

    fn expand(&self, command: &Command, body: &str, args: &str, cx: &TurnContext) -> (String, Vec<ShellRun>) {
        let (template, _) = parse_template(body);
        let file = self.loaded.roots.locate(&command.path);
        let skill_dir = file.parent().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default();
        let project = self.loaded.roots.root.to_string_lossy().into_owned();
        let plugin_root = command
            .plugin
            .as_ref()
            .and_then(|name| self.loaded.lock.plugins.iter().find(|p| &p.name == name))
            .map(|p| self.loaded.roots.locate(&p.root).to_string_lossy().into_owned());
        let mut variables: Vec<(TemplateVar, &str)> = vec![
            (TemplateVar::SkillDir, &skill_dir),
            (TemplateVar::SessionId, &self.session_id),
            (TemplateVar::ProjectDir, &project),
        ];
        if let Some(root) = &plugin_root {
            variables.push((TemplateVar::PluginRoot, root));
        }
        if let Some(effort) = &command.effort {
            variables.push((TemplateVar::Effort, effort));
        }
        let names: Vec<&str> = command.arguments.iter().map(String::as_str).collect();
        let expanded =
            capc_grammar::expand(&template, args, &ExpandContext { argument_names: &names, variables: &variables });
        // `!` injections run after substitution, through the permission decision with the
        // skill's allowed-tools as always-allow rules (SEMANTICS §1, step 6).
        let (rendered, _) = parse_template(&expanded);
        if rendered.shell_commands.is_empty() {
            return (expanded, Vec::new());
        }
        let mut extra = cx.extra_rules();
        extra.extend(command.allowed_tools.iter().map(|t| (Behavior::Allow, t.clone(), "the skill's allowed-tools")));
        let rules = self.loaded.sourced_rules(&extra);
        let mut out = expanded.clone();
        let mut runs = Vec::new();
        for shell in rendered.shell_commands.iter().rev() {
            let cmd = rendered.command(shell).to_string();
            let (word, rule) = permit(&rules, &ToolCall::new("Bash").with_primary(&cmd), cx, &project);
            let disabled = cx.flag("disableSkillShellExecution");
            let (replacement, exit_code) = if word == "allow" && self.run_shell && !disabled {
                run_shell(&cmd, &self.loaded.roots.root)
            } else if disabled {
                ("[shell command not run: disableSkillShellExecution]".to_string(), None)
            } else {
                (format!("[shell command not run: permission {word}]"), None)
            };
            out.replace_range(shell.span.start..shell.span.end, &replacement);
            runs.push(ShellRun { command: cmd, decision: word, rule, exit_code });
        }
        runs.reverse();
        (out, runs)
    }

    /// The Skill tool, called by the model (SEMANTICS §4.2–4.4).
    pub fn invoke_skill(&mut self, skill: &str, args: &str) -> Value {
        let cx = self.last_context.clone();
        let view = self.view(&cx);
        let name = skill.trim().strip_prefix('/').unwrap_or(skill.trim()).to_string();
        if name.is_empty() {
            return json!({"kind": "error", "code": 1, "message": "Invalid skill format"});
        }
        let Some(row) = turn::find(&view.commands, &name).cloned() else {
            return json!({"kind": "error", "code": 2, "message": format!("Unknown skill: {name}")});
        };
        let command = row.decl.map(|i| self.loaded.lock.commands[i].clone());
        let bundled_hidden =
            row.decl.is_none() && capc_compiler::builtins::bundled_skill(&name).is_some_and(|b| !b.model_invocable);
        if bundled_hidden || command.as_ref().is_some_and(|c| c.disable_model_invocation) {
            return json!({"kind": "error", "code": 4, "message": format!("Skill {name} cannot be used with Skill tool due to disable-model-invocation")});
        }
        if row.kind != "prompt" {
            return json!({"kind": "error", "code": 5, "message": format!("Skill {name} is not a prompt-based skill")});
        }
        let (deny, allow) = self.skill_rules(&cx);
        let deny_refs: Vec<&str> = deny.iter().map(|(c, _)| c.as_str()).collect();
        let allow_refs: Vec<&str> = allow.iter().map(|(c, _)| c.as_str()).collect();
        let safe = command.as_ref().is_none_or(|c| c.allowed_tools.is_empty());
        let decision = crate::listing::decide_skill(&row.name, &deny_refs, &allow_refs, safe);
        let (word, rule) = match &decision {
            crate::listing::SkillDecision::Deny { rule } => ("deny", Some(rule.clone())),
            crate::listing::SkillDecision::Allow { rule } => ("allow", rule.clone()),
            crate::listing::SkillDecision::Ask { .. } => ("ask", None),
        };
        let source = |content: &Option<String>, list: &[(String, String)]| {
            content.as_ref().and_then(|c| list.iter().find(|(r, _)| r == c)).map(|(r, s)| format!("Skill({r}) ({s})"))
        };
        let deciding = match word {
            "deny" => source(&rule, &deny),
            "allow" if rule.is_some() => source(&rule, &allow),
            "allow" => Some("safe properties (no allowed-tools or hooks)".to_string()),
            _ => None,
        };
        let permission = match &decision {
            crate::listing::SkillDecision::Ask { suggestions } => {
                json!({"behavior": "ask", "message": format!("Execute skill: {}", row.name), "suggestions": suggestions})
            }
            _ => json!({"behavior": word, "rule": deciding}),
        };
        if word != "allow" {
            return json!({"kind": "permission", "skill": row.name, "permission": permission});
        }
        let Some(command) = command else {
            self.grant = Some(Grant { skill: row.name.to_string(), ..self.grant.clone().unwrap_or_default() });
            return json!({"kind": "prompt", "command": row.name, "text": null, "permission": permission,
                          "note": "a bundled skill: its prompt is inside Claude Code", "tool_result": format!("Launching skill: {}", row.name)});
        };
        let mut result = self.run_prompt(&command, args, &cx, true);
        let tool_result = if command.context.as_deref() == Some("fork") {
            format!("Skill \"{}\" will run in a forked agent", command.name)
        } else {
            format!("Launching skill: {}", command.name)
        };
        if let Some(map) = result.as_object_mut() {
            map.insert("permission".to_string(), permission);
            map.insert("tool_result".to_string(), json!(tool_result));
        }
        result
    }

    /// The contents of `Skill(…)` deny and allow rules, with where each is written.
    fn skill_rules(&self, cx: &TurnContext) -> (RuleContents, RuleContents) {
        let (mut deny, mut allow) = (Vec::new(), Vec::new());
        for rule in self.loaded.sourced_rules(&cx.extra_rules()) {
            if rule.rule.tool.canonical != "Skill" {
                continue;
            }
            let Some(spec) = &rule.rule.specifier else { continue };
            let entry = (spec.text.clone(), rule.source.clone());
            match rule.behavior {
                Behavior::Deny => deny.push(entry),
                Behavior::Allow => allow.push(entry),
                Behavior::Ask => {}
            }
        }
        (deny, allow)
    }

    /// ToolSearch over the last turn's pool.
    pub fn tool_search(&self, query: &str, max_results: usize) -> crate::search::SearchResult {
        let view = self.view(&self.last_context);
        let descriptions: std::collections::HashMap<&str, &crate::mcp::McpTool> =
            self.mcp.tools().iter().map(|t| (&*t.name, t)).collect();
        let tools: Vec<crate::search::SearchTool<'_>> = view
            .tools
            .iter()
            .map(|t| {
                let mcp = descriptions.get(&*t.name);
                crate::search::SearchTool {
                    name: &t.name,
                    description: mcp.map_or("", |m| m.description.as_str()),
                    search_hint: mcp.and_then(|m| m.search_hint.as_deref()),
                    is_mcp: t.origin == "mcp",
                    deferred: t.deferred,
                }
            })
            .collect();
        crate::search::tool_search(query, max_results, &tools, &self.mcp.pending())
    }

    /// A model's MCP tool call: the tool must be in this turn's pool; the permission decision
    /// (deny → ask → allow; no rule means Claude Code asks, as MCP tools pass through) decides
    /// whether it runs; the result is cut at 100,000 characters with a notice.
    pub fn call_tool(&mut self, tool: &str, arguments: Option<serde_json::Map<String, Value>>) -> Value {
        let cx = self.last_context.clone();
        let view = self.view(&cx);
        if !view.tools.iter().any(|t| &*t.name == tool && t.origin == "mcp") {
            return json!({"kind": "error", "message": format!("no MCP tool `{tool}` in this turn's pool")});
        }
        // The server, and its own name for the tool (the pool name is normalized).
        let found = self.mcp.tools().iter().find(|t| &*t.name == tool);
        let Some((server, original)) = found.map(|t| (t.server.to_string(), t.original.clone())) else {
            return json!({"kind": "error", "message": format!("no MCP tool `{tool}`")});
        };
        let rules = self.loaded.sourced_rules(&cx.extra_rules());
        let project = self.loaded.roots.root.to_string_lossy().into_owned();
        let (behavior, rule) = permit(&rules, &ToolCall::new(tool), &cx, &project);
        let permission = json!({"behavior": behavior, "rule": rule});
        if behavior != "allow" {
            return json!({"kind": "permission", "tool": tool, "permission": permission});
        }
        let Some(caller) = &self.caller else {
            return json!({"kind": "error", "message": "no live MCP connections (start the session with --connect)", "permission": permission});
        };
        let timeout = self
            .loaded
            .lock
            .mcp_servers
            .iter()
            .find(|s| s.name == server && s.shadowed_by.is_none())
            .map_or(std::time::Duration::from_secs(60), |s| {
                crate::connect::tool_timeout(s, |name| std::env::var(name).ok())
            });
        match caller.call(&server, &original, arguments, timeout) {
            Ok(outcome) => json!({"kind": "tool_result", "tool": tool, "permission": permission, "result": outcome}),
            Err(message) => json!({"kind": "error", "tool": tool, "permission": permission, "message": message}),
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

    pub fn status(&self) -> Value {
        let lock = &self.loaded.lock;
        json!({
            "lock": {"version": lock.version, "claude_code": lock.claude_code, "sources": lock.sources.len(),
                     "commands": lock.commands.len(), "agents": lock.agents.len(), "mcp_servers": lock.mcp_servers.len(),
                     "hooks": lock.hooks.len(), "permissions": lock.permissions.len()},
            "turns": self.turns,
            "grant": self.grant,
            "mcp_servers": self.mcp.servers().map(|s| {
                let mut server = json!({"name": s.name, "status": s.status, "error": s.error,
                    "tools": s.tools.len(), "prompts": s.prompts.len(), "resources": s.resources.len()});
                if let Some(protocol) = &s.protocol {
                    server["protocol"] = json!(protocol);
                }
                server
            }).collect::<Vec<_>>(),
        })
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

    pub fn origin_of(&self, command: &str) -> Option<Origin> {
        self.loaded.lock.commands.iter().find(|c| c.name == command).map(|c| c.origin)
    }
}

/// The permission decision for a call (deny → ask → allow), as `allow`, `ask` or `deny` with
/// the deciding rule and its file. No matching rule asks, except in `bypassPermissions` mode.
fn permit(
    rules: &[capc_grammar::SourcedRule],
    call: &ToolCall<'_>,
    cx: &TurnContext,
    project: &str,
) -> (&'static str, Option<String>) {
    let home = std::env::var("HOME").unwrap_or_default();
    let decision = decide(rules, call, &MatchContext { cwd: project, home: &home, settings_dir: None });
    let rule = decision.rule.and_then(|i| rules.get(i)).map(|r| format!("{} ({})", rule_text(&r.rule), r.source));
    let bypass = cx.permission_mode.as_deref() == Some("bypassPermissions");
    let word = match decision.behavior {
        DecisionBehavior::Deny => "deny",
        DecisionBehavior::Ask => "ask",
        DecisionBehavior::Allow => "allow",
        DecisionBehavior::Passthrough if bypass => "allow",
        DecisionBehavior::Passthrough => "ask",
    };
    (word, rule)
}

fn rule_text(rule: &capc_grammar::PermissionRule) -> String {
    match &rule.specifier {
        Some(spec) => format!("{}({})", rule.tool.written, spec.text),
        None => rule.tool.written.clone(),
    }
}

/// Runs a shell injection in `dir` with a timeout; returns what replaces it in the prompt.
fn run_shell(command: &str, dir: &std::path::Path) -> (String, Option<i32>) {
    use std::process::{Command, Stdio};
    let child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let child = match child {
        Ok(c) => c,
        Err(e) => return (format!("[shell command failed to start: {e}]"), None),
    };
    let (tx, rx) = std::sync::mpsc::channel();
    let id = child.id();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(SHELL_TIMEOUT) {
        Ok(Ok(output)) => {
            let mut text = String::from_utf8_lossy(&output.stdout).trim_end().to_string();
            if !output.status.success() {
                let err = String::from_utf8_lossy(&output.stderr);
                if !err.trim().is_empty() {
                    text.push_str(&format!("\n{}", err.trim_end()));
                }
            }
            (text, output.status.code())
        }
        Ok(Err(e)) => (format!("[shell command failed: {e}]"), None),
        Err(_) => {
            let _ = Command::new("kill").arg("-9").arg(id.to_string()).status();
            (format!("[shell command timed out after {} s]", SHELL_TIMEOUT.as_secs()), None)
        }
    }
}

/// Errors a caller may show.
pub fn describe(e: &LoadError) -> String {
    e.to_string()
}

//! The model's tool calls between turns, each decided in the last turn's context: the Skill
//! tool, ToolSearch, and an MCP tool.

use super::input::BUNDLED_NOTE;
use super::{Grant, Session};
use crate::commands::{self, CommandView};
use crate::context::Override;
use crate::outcome::{SkillPermission, SkillRefusal, SkillResult, ToolCallResult, ToolPermission, TurnResult};
use crate::permissions::Permissions;
use crate::turn::TurnView;
use capc_compiler::builtins::bundled_skill;
use capc_compiler::model::Command;
use capc_grammar::ToolCall;
use serde_json::Value;

/// A Skill tool call refused with Claude Code's error code and message.
fn refused(code: u8, message: String) -> SkillResult {
    SkillResult::Refused(SkillRefusal::Error { code, message })
}

/// What the permission rules decide for the Skill tool calling `canonical` (`command`: its
/// declaration, `None` for a bundled skill), naming the rule that decided: a skill with no
/// `allowed-tools` is allowed by its safe properties when no rule decides.
fn skill_permission(permissions: &Permissions, canonical: &str, command: Option<&Command>) -> SkillPermission {
    use crate::listing::SkillDecision;
    let (deny, allow) = permissions.skill_rules();
    let deny_refs: Vec<&str> = deny.iter().map(|(c, _)| c.as_str()).collect();
    let allow_refs: Vec<&str> = allow.iter().map(|(c, _)| c.as_str()).collect();
    let safe = command.is_none_or(|c| c.allowed_tools.is_empty());
    let decision = crate::listing::decide_skill(canonical, &deny_refs, &allow_refs, safe);
    let (word, rule) = match &decision {
        SkillDecision::Deny { rule } => ("deny", Some(rule.clone())),
        SkillDecision::Allow { rule } => ("allow", rule.clone()),
        SkillDecision::Ask { .. } => ("ask", None),
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
    match decision {
        SkillDecision::Ask { suggestions } => {
            SkillPermission::Ask { message: format!("Execute skill: {canonical}"), suggestions }
        }
        SkillDecision::Deny { .. } => SkillPermission::Deny { rule: deciding },
        SkillDecision::Allow { .. } => SkillPermission::Allow { rule: deciding },
    }
}

impl Session {
    /// The Skill tool, called by the model.
    pub fn invoke_skill(&mut self, skill: &str, args: &str) -> SkillResult {
        let cx = self.last_context.clone();
        let (permissions, view) = self.assembled(&cx);
        let name = skill.trim().strip_prefix('/').unwrap_or(skill.trim()).to_string();
        if name.is_empty() {
            return refused(1, "Invalid skill format".to_string());
        }
        let row = commands::find(&view.commands, &name).cloned();
        if let Some(refusal) = self.refuse_ambiguous(&view, row.as_ref(), &name) {
            return refusal;
        }
        let command = row.as_ref().and_then(|r| r.decl).map(|i| self.loaded.lock.commands[i].clone());
        let bundled = match &command {
            Some(_) => None,
            None => bundled_skill(&name).filter(|b| commands::bundled_exists(b, &cx)),
        };
        if command.is_none() && bundled.is_none() {
            return match row {
                Some(row) => refused(5, format!("Skill {} is not a prompt-based skill", row.name)),
                None => refused(2, format!("Unknown skill: {name}")),
            };
        }
        let hidden = bundled.is_some_and(|b| !b.model_invocable)
            || command.as_ref().is_some_and(|c| c.disable_model_invocation)
            || matches!(cx.skill_override(&name), Override::Off | Override::UserInvocableOnly);
        if hidden {
            return refused(4, format!("Skill {name} cannot be used with Skill tool due to disable-model-invocation"));
        }
        let canonical = command.as_ref().map_or(name.clone(), |c| c.name.clone());
        let permission = skill_permission(&permissions, &canonical, command.as_ref());
        if !matches!(permission, SkillPermission::Allow { .. }) {
            return SkillResult::Refused(SkillRefusal::Permission { skill: canonical, permission });
        }
        let Some(command) = command else {
            self.grant = Some(Grant { skill: canonical.clone(), ..self.grant.clone().unwrap_or_default() });
            let tool_result = format!("Launching skill: {canonical}");
            let result = TurnResult::Prompt {
                command: canonical,
                origin: None,
                texts: Vec::new(),
                declared: None,
                note: Some(BUNDLED_NOTE.to_string()),
            };
            return SkillResult::Ran { result, permission, tool_result };
        };
        let (result, _) = self.run_prompt(&command, args, &view, &cx, true);
        let tool_result = if let TurnResult::ShellError { message, .. } = &result {
            message.clone()
        } else if command.context.as_deref() == Some("fork") {
            format!("Skill \"{}\" will run in a forked agent", command.name)
        } else {
            format!("Launching skill: {}", command.name)
        };
        SkillResult::Ran { result, permission, tool_result }
    }

    /// The refusal of a name reached through a bare alias (or not at all) when several
    /// model-invocable skills answer to it (an alias, or the part after a `:`), or when it is
    /// unknown and one skill's name ends with it: Claude Code names that one.
    fn refuse_ambiguous(&self, view: &TurnView, row: Option<&CommandView>, name: &str) -> Option<SkillResult> {
        let by_alias = row.is_some_and(|r| *r.name != *name && r.display.as_deref() != Some(name));
        if row.is_some() && !by_alias {
            return None;
        }
        let commands = &self.loaded.lock.commands;
        let mut matches: Vec<&str> = view
            .commands
            .iter()
            .filter_map(|r| r.decl.map(|i| (r, &commands[i])))
            .filter(|(_, c)| !c.disable_model_invocation)
            .filter(|(r, _)| r.aliases.iter().any(|a| **a == *name) || r.name.ends_with(&format!(":{name}")))
            .map(|(r, _)| &*r.name)
            .collect();
        matches.dedup();
        if matches.len() > 1 {
            let message = format!(
                "Unknown skill: {name}. Several skills match that name: {} — invoke one by its full name.",
                matches.join(", ")
            );
            return Some(refused(2, message));
        }
        if let (None, [only]) = (row, matches.as_slice()) {
            let message = format!("Unknown skill: {name}. Did you mean {only}? Invoke it by that full name.");
            return Some(refused(2, message));
        }
        None
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
    pub fn call_tool(&mut self, tool: &str, arguments: Option<serde_json::Map<String, Value>>) -> ToolCallResult {
        match self.plan_tool_call(tool) {
            Ok(plan) => plan.run(arguments),
            Err(refused) => refused,
        }
    }

    /// [`Session::call_tool`] up to the call itself: the pool, the permission decision, the
    /// connection and the timeout, or the result that ends the call before it is made. The plan
    /// runs without the session, so a long call holds nothing (`capc serve --connect`).
    pub(crate) fn plan_tool_call(&self, tool: &str) -> Result<ToolCallPlan, ToolCallResult> {
        let error = |tool: Option<&str>, permission: Option<ToolPermission>, message: String| ToolCallResult::Error {
            tool: tool.map(str::to_string),
            permission,
            message,
        };
        let cx = self.last_context.clone();
        let (permissions, view) = self.assembled(&cx);
        if !view.tools.iter().any(|t| &*t.name == tool && t.origin == "mcp") {
            return Err(error(None, None, format!("no MCP tool `{tool}` in this turn's pool")));
        }
        // The server, and its own name for the tool (the pool name is normalized).
        let found = self.mcp.tools().iter().find(|t| &*t.name == tool);
        let Some((server, original)) = found.map(|t| (t.server.to_string(), t.original.clone())) else {
            return Err(error(None, None, format!("no MCP tool `{tool}`")));
        };
        let verdict = self.decide(&permissions, &ToolCall::new(tool));
        let (behavior, rule) = (verdict.behavior, verdict.rule);
        let permission = ToolPermission { behavior: behavior.to_string(), rule };
        if behavior != "allow" {
            return Err(ToolCallResult::Permission { tool: tool.to_string(), permission });
        }
        let Some(caller) = self.caller.clone() else {
            let message = "no live MCP connections (start the session with --connect)".to_string();
            return Err(error(None, Some(permission), message));
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
        Ok(ToolCallPlan { tool: tool.to_string(), server, original, timeout, permission, caller })
    }

    /// The deny rule that keeps `name` (an `mcp__<server>__<item>` name) out of the last turn,
    /// if one does.
    pub fn denied_by(&self, name: &str) -> Option<String> {
        let permissions = self.permissions(&self.last_context);
        let verdict = self.decide(&permissions, &ToolCall::new(name));
        (verdict.behavior == "deny").then(|| verdict.rule.unwrap_or_else(|| "a deny rule".to_string()))
    }
}

/// An allowed MCP tool call, ready to be made (see [`Session::plan_tool_call`]).
pub(crate) struct ToolCallPlan {
    tool: String,
    server: String,
    original: String,
    timeout: std::time::Duration,
    permission: ToolPermission,
    caller: crate::connect::Caller,
}

impl ToolCallPlan {
    /// Calls the tool within its timeout; blocks the calling thread (not a runtime's).
    pub(crate) fn run(self, arguments: Option<serde_json::Map<String, Value>>) -> ToolCallResult {
        let ToolCallPlan { tool, server, original, timeout, permission, caller } = self;
        match caller.call(&server, &original, arguments, timeout) {
            Ok(result) => ToolCallResult::ToolResult { tool, permission, result },
            Err(message) => ToolCallResult::Error { tool: Some(tool), permission: Some(permission), message },
        }
    }
}

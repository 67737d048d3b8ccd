//! The agent listing as Claude Code sends it (`tests/oracle/scenarios/turn-agents-listing`):
//! after `Available agent types for the Agent tool:`, one line per agent,
//! `- TYPE: DESCRIPTION (Tools: TOOLS)`, every agent (built-in, user, project, plugin) sorted by
//! type as `localeCompare` sorts.
//!
//! * A declared agent replaces a built-in one of the same name (the lock already decided
//!   between declared ones); an `Agent(TYPE)` deny rule removes one; plugins only project
//!   settings enable do not load in an untrusted folder.
//! * `CLAUDE_CODE_DISABLE_EXPLORE_PLAN_AGENTS` removes Explore and Plan,
//!   `CLAUDE_CODE_DISABLE_AGENT_VIEW` removes `claude`.
//! * The description is kept as written, line breaks included.
//! * TOOLS: `tools` minus `disallowedTools` (`None` when nothing is left); `tools` alone;
//!   `All tools except …` for `disallowedTools` alone; `All tools` for neither (or `tools: *`).

use crate::context::TurnContext;
use crate::loaded::Loaded;
use crate::permissions::Permissions;
use capc_compiler::builtins::{builtin_agents, AgentGate};
use capc_compiler::model::Agent;
use std::borrow::Cow;

/// The `(Tools: …)` text of a declared agent.
pub(crate) fn tools_text(agent: &Agent) -> Cow<'static, str> {
    let tools: Vec<&str> = agent.tools.iter().map(String::as_str).filter(|t| *t != "*").collect();
    let all = agent.tools.iter().any(|t| t == "*");
    let disallowed: Vec<&str> = agent.disallowed_tools.iter().map(String::as_str).collect();
    match (tools.is_empty() || all, disallowed.is_empty()) {
        (false, false) => {
            let left: Vec<&str> = tools.into_iter().filter(|t| !disallowed.contains(t)).collect();
            if left.is_empty() {
                Cow::Borrowed("None")
            } else {
                Cow::Owned(left.join(", "))
            }
        }
        (false, true) => Cow::Owned(tools.join(", ")),
        (true, false) => Cow::Owned(format!("All tools except {}", disallowed.join(", "))),
        (true, true) => Cow::Borrowed("All tools"),
    }
}

fn offered(gate: AgentGate, cx: &TurnContext) -> bool {
    match gate {
        AgentGate::Always => true,
        AgentGate::ExplorePlan => !cx.flag("CLAUDE_CODE_DISABLE_EXPLORE_PLAN_AGENTS"),
        AgentGate::AgentView => !cx.flag("CLAUDE_CODE_DISABLE_AGENT_VIEW"),
    }
}

/// The agents of a turn as (type, description, tools), sorted.
pub fn agents<'l>(
    loaded: &'l Loaded,
    cx: &TurnContext,
    permissions: &Permissions,
) -> Vec<(&'l str, &'l str, Cow<'l, str>)> {
    let declared: Vec<(usize, &Agent)> = loaded
        .lock
        .agents
        .iter()
        .enumerate()
        .filter(|(i, a)| a.shadowed_by.is_none() && (cx.trusted || !loaded.agent_needs_trust[*i]))
        .collect();
    let mut out: Vec<(&str, &str, Cow<'_, str>)> = Vec::new();
    for b in builtin_agents() {
        if offered(b.gate, cx) && !declared.iter().any(|(_, a)| a.name == b.name) {
            out.push((b.name, b.description, Cow::Borrowed(b.tools)));
        }
    }
    for (_, a) in &declared {
        out.push((&a.name, a.description.as_deref().unwrap_or_default(), tools_text(a)));
    }
    out.retain(|(name, _, _)| !permissions.denies_agent(name));
    out.sort_by(|a, b| crate::collate::compare(a.0, b.0));
    out
}

/// The agent listing's lines, joined by `\n`.
pub fn agent_listing(loaded: &Loaded, cx: &TurnContext, permissions: &Permissions) -> String {
    agents(loaded, cx, permissions)
        .iter()
        .map(|(name, description, tools)| format!("- {name}: {description} (Tools: {tools})"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agent(tools: &[&str], disallowed: &[&str]) -> Agent {
        Agent {
            tools: tools.iter().map(|t| t.to_string()).collect(),
            disallowed_tools: disallowed.iter().map(|t| t.to_string()).collect(),
            ..Agent::default()
        }
    }

    #[test]
    fn tools_texts() {
        assert_eq!(tools_text(&agent(&["Read", "Bash"], &["Bash"])), "Read");
        assert_eq!(tools_text(&agent(&["Bash"], &["Bash"])), "None");
        assert_eq!(tools_text(&agent(&["Read", "Grep", "Glob"], &[])), "Read, Grep, Glob");
        assert_eq!(tools_text(&agent(&[], &["Bash", "Write"])), "All tools except Bash, Write");
        assert_eq!(tools_text(&agent(&[], &[])), "All tools");
        assert_eq!(tools_text(&agent(&["*"], &[])), "All tools");
    }
}

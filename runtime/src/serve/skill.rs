//! The Skill tool of `capc serve`: the session's Skill tool, its answer as an MCP tool result,
//! and the question a refusal raises where Claude Code would ask.

use super::{ask, rejected, Step};
use crate::outcome::{SkillPermission, SkillRefusal, SkillResult, TurnResult};
use crate::session::Session;
use rmcp::model::{CallToolResult, ContentBlock, ErrorData, JsonObject};
use serde_json::Value;

pub(super) fn skill_arguments(arguments: Option<&JsonObject>) -> Result<(String, String), ErrorData> {
    let field = |key: &str| arguments.and_then(|a| a.get(key));
    let skill = match field("skill") {
        Some(Value::String(s)) => s.clone(),
        _ => return Err(ErrorData::invalid_params("the Skill tool needs `skill`, a string", None)),
    };
    let args = match field("args") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(_) => return Err(ErrorData::invalid_params("`args` must be a string", None)),
    };
    Ok((skill, args))
}

/// The Skill tool: the session's answer, as Claude Code's tool result (the launch line, then
/// the prompt the skill adds) or its refusal; the whole answer as structured content.
pub(super) fn skill_tool(session: &mut Session, skill: &str, args: &str) -> Step<CallToolResult> {
    let answer = session.invoke_skill(skill, args);
    let question = match &answer {
        SkillResult::Refused(SkillRefusal::Permission { skill, permission: SkillPermission::Ask { .. } }) => {
            let description = session
                .loaded
                .lock
                .commands
                .iter()
                .find(|c| c.name == *skill && c.shadowed_by.is_none())
                .and_then(|c| c.description.clone());
            let subject = ask::Subject::Skill { name: skill.clone(), description };
            ask::Question::new(subject, session.last_context.trusted)
        }
        SkillResult::Ran { result, .. } => shell_question(session, result),
        SkillResult::Refused(_) => None,
    };
    let result = skill_result(session, &answer);
    match question {
        Some(question) => {
            let rejected = rejected(&question);
            Step::Ask { question, refused: result, rejected }
        }
        None => Step::Done(result),
    }
}

/// The question a refused `!` injection raises: one whose decision is ask (not deny, not the
/// bare-repository gate), in a folder where it would run.
pub(super) fn shell_question(session: &Session, result: &TurnResult) -> Option<ask::Question> {
    let TurnResult::ShellError { command, message, shell } = result else { return None };
    let last = shell.last()?;
    let runs = session.last_context.trusted && session.run_shell;
    if last.decision != "ask" || !runs || !message.starts_with("Shell command permission check failed") {
        return None;
    }
    let subject = ask::Subject::Shell { command: last.command.clone(), by: command.clone() };
    let question = ask::Question::new(subject, true)?;
    // Only a question whose yes lets the command run: an allow rule does not lift every ask
    // (a redirection into the folder, for one, asks whatever the rules say).
    let mut cx = session.last_context.clone();
    cx.session_rules.allow.push(question.rule.clone());
    let permissions = crate::permissions::Permissions::assemble(&session.loaded, &cx, &[]);
    let cwd = session.loaded.roots.root.to_string_lossy();
    let home = std::env::var("HOME").unwrap_or_default();
    let matching = capc_grammar::MatchContext { cwd: &cwd, home: &home, settings_dir: None };
    let call = capc_grammar::ToolCall::new("Bash").with_primary(&last.command);
    (permissions.decide(&call, &matching).behavior == "allow").then_some(question)
}

/// The Skill tool's answer as an MCP tool result.
fn skill_result(session: &Session, answer: &SkillResult) -> CallToolResult {
    let mut result = match answer {
        SkillResult::Ran { result: TurnResult::Prompt { texts, .. }, tool_result, .. } => {
            let mut content = vec![ContentBlock::text(tool_result.clone())];
            // The command block stays with Claude Code's own turn; the prompt is what the tool adds.
            content.extend(texts.iter().skip(1).cloned().map(ContentBlock::text));
            CallToolResult::success(content)
        }
        SkillResult::Ran { result: TurnResult::Fork { command, prompt, .. }, .. } => CallToolResult::success(vec![
            ContentBlock::text(format!("Skill \"{command}\" will run in a forked agent")),
            ContentBlock::text(prompt.clone()),
        ]),
        SkillResult::Refused(SkillRefusal::Permission { skill, permission }) => {
            let text = permission_text(skill, permission, session.last_context.trusted);
            CallToolResult::error(vec![ContentBlock::text(text)])
        }
        SkillResult::Refused(SkillRefusal::Error { message, .. })
        | SkillResult::Ran { result: TurnResult::Error { message } | TurnResult::ShellError { message, .. }, .. } => {
            CallToolResult::error(vec![ContentBlock::text(message.clone())])
        }
        SkillResult::Ran { .. } => CallToolResult::error(vec![ContentBlock::text(String::new())]),
    };
    // Keys sorted, as the protocol prints them.
    result.structured_content = serde_json::to_value(answer).ok();
    result
}

fn permission_text(skill: &str, permission: &SkillPermission, trusted: bool) -> String {
    match permission {
        SkillPermission::Deny { rule: Some(rule) } => {
            format!("Permission to use Skill({skill}) has been denied by {rule}.")
        }
        SkillPermission::Deny { rule: None } => format!("Permission to use Skill({skill}) has been denied."),
        // A headless run cannot ask: Claude Code refuses and says so; capc names the rule.
        SkillPermission::Ask { message, .. } => format!(
            "Claude requested permissions to use Skill({skill}), but you haven't granted it yet ({message}). {}",
            rule_to_add(&format!("Skill({skill})"), trusted)
        ),
        SkillPermission::Allow { .. } => format!(
            "Claude requested permissions to use Skill({skill}), but you haven't granted it yet (Execute skill)."
        ),
    }
}

/// What a refusal a client cannot answer adds: the allow rule that lifts it, and where.
pub(crate) fn rule_to_add(rule: &str, trusted: bool) -> String {
    if trusted {
        format!("To allow it, add `{rule}` to permissions.allow in {}.", ask::LOCAL_SETTINGS)
    } else {
        format!(
            "To allow it, add `{rule}` to permissions.allow in {} and trust the folder (--trust): an untrusted folder's own allow rules do not hold.",
            ask::LOCAL_SETTINGS
        )
    }
}

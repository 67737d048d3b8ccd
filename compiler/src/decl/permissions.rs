//! Permission rules wherever they are written: `permissions.allow|ask|deny` in settings,
//! `allowed-tools` / `disallowed-tools` in skills and commands, `tools` /
//! `disallowedTools` in subagents, and a hook's `if`. Each rule is parsed with the grammar
//! crate, so a diagnostic points at the exact characters inside the string.

use super::{FileCx, FileScope};
use crate::diagnostic::Sink;
use crate::node::{Node, NodeKind};
use crate::rules;
use crate::span::Span;
use capc_grammar::{parse_permission_rule, PermissionRule, ToolKind};

/// Tools that older Claude Code versions had, with what replaced them.
/// Aliases that still work (`Task`, `KillShell`) are resolved by the grammar instead.
const RETIRED_TOOLS: &[(&str, Option<&str>)] = &[
    ("AgentOutput", Some("TaskOutput")),
    ("BashOutput", Some("TaskOutput")),
    ("LS", Some("Glob")),
    ("NotebookRead", Some("Read")),
    ("SlashCommand", Some("Skill")),
    ("TeamCreate", None),
    ("TeamDelete", None),
    ("View", Some("Read")),
];

/// A name Claude Code keeps in its sets of edit tools though no tool bears it.
const EDIT_SET_ONLY: &str = "MultiEdit";

/// How a list of rules is used; it changes which findings matter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Use {
    Allow,
    Ask,
    Deny,
    /// A skill's or command's `allowed-tools`: pre-approved for the invoking turn.
    PreApprove,
    /// `disallowed-tools` / `disallowedTools`: removed while active.
    Remove,
    /// A subagent's `tools`: the tools it may use.
    AgentTools,
    /// A hook's `if`: exactly one rule.
    HookIf,
}

/// Checks a value holding rules: a JSON or YAML list of strings, or a comma- or
/// space-separated string. The MCP servers the rules name go to `sink.server_refs`.
pub(crate) fn check_value(sink: &mut Sink<'_>, cx: &FileCx<'_>, source: &str, node: &Node, usage: Use) {
    let pieces: Vec<(String, Option<usize>)> = match &node.kind {
        NodeKind::Array(items) => items
            .iter()
            .filter_map(|item| item.as_str().map(|s| (s.to_string(), value_offset(cx, source, item, s))))
            .collect(),
        NodeKind::String(text) => {
            let base = value_offset(cx, source, node, text);
            split_rule_list(text)
                .into_iter()
                .map(|(start, piece)| (piece.to_string(), base.map(|b| b + start)))
                .collect()
        }
        _ => return,
    };
    for (text, offset) in pieces {
        let whole = offset.map_or(node.span, |o| Span::new(o, o + text.len()));
        let at = |span: Span| offset.map_or(node.span, |o| span.shift(o));
        match parse_permission_rule(&text) {
            Ok(rule) if rule.specifier.as_ref().is_some_and(|s| s.text.is_empty()) => {
                let span = rule.specifier.as_ref().map_or(rule.span, |s| s.span);
                sink.report(
                    &rules::invalid_permission_rule::RULE,
                    at(span),
                    format!("permission rule `{text}` has empty parentheses"),
                )
                .severity(crate::diagnostic::Severity::Warning)
                .help(format!(
                    "Claude Code's settings validator rejects `Tool()`; write `{}` for the whole tool",
                    rule.tool.written
                ));
                check_rule(sink, cx, &rule, &text, usage, whole, &at);
            }
            Err(e) => {
                let d = sink.report(
                    &rules::invalid_permission_rule::RULE,
                    at(e.span),
                    format!("permission rule `{text}`: {}", e.message),
                );
                if let Some(help) = &e.help {
                    d.help(help.clone());
                }
            }
            Ok(rule) => check_rule(sink, cx, &rule, &text, usage, whole, &at),
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn check_rule(
    sink: &mut Sink<'_>,
    cx: &FileCx<'_>,
    rule: &PermissionRule,
    text: &str,
    usage: Use,
    whole: Span,
    at: &dyn Fn(Span) -> Span,
) {
    let tool = &rule.tool;
    match &tool.kind {
        ToolKind::Unknown => {
            // Claude Code warns at startup for deny and ask rules that name an unknown tool;
            // names with `_` or `*` are exempt (permissions docs).
            if tool.written == EDIT_SET_ONLY {
                // Claude Code offers no `MultiEdit` tool, yet still counts the name among its edit
                // tools: the entry loads and matches nothing. Worth knowing, never a warning.
                sink.report(
                    &rules::unknown_tool_in_rule::RULE,
                    at(tool.span),
                    "`MultiEdit` names no tool of Claude Code, which edits with `Edit`; the entry loads and matches nothing",
                )
                .severity(crate::diagnostic::Severity::Info)
                .help("write `Edit`, which Claude Code uses for every edit, or remove the entry");
            } else if let Some((_, replacement)) = RETIRED_TOOLS.iter().find(|(name, _)| *name == tool.written) {
                // Claude Code knows these names as tools it no longer offers and drops
                // them without a word; the rest of the rule list works. Worth knowing (the
                // replacement, when there is one), not a warning.
                let d = sink.report(
                    &rules::unknown_tool_in_rule::RULE,
                    at(tool.span),
                    format!(
                        "`{}` is a tool of older Claude Code versions; Claude Code has none by that name",
                        tool.written
                    ),
                );
                d.severity(crate::diagnostic::Severity::Info);
                match replacement {
                    Some(r) => d.help(format!("use `{r}`; as written the entry is dropped")),
                    None => d.help("remove it; as written the entry is dropped"),
                };
            } else if !tool.written.contains('_') {
                let d = sink.report(
                    &rules::unknown_tool_in_rule::RULE,
                    at(tool.span),
                    format!("`{}` is not a Claude Code tool", tool.written),
                );
                match tool.suggestion() {
                    Some(s) => d.help(format!("did you mean `{s}`? The rule matches nothing as written")),
                    None => d.help("the rule matches nothing; tool names are case-sensitive (`capc rules unknown-tool-in-rule` explains)"),
                };
            }
        }
        ToolKind::Glob if matches!(usage, Use::Allow | Use::PreApprove) => {
            sink.report(
                &rules::unknown_tool_in_rule::RULE,
                at(tool.span),
                format!("tool-name glob `{}` is ignored in an allow rule", tool.written),
            )
            .help("only `mcp__<server>__<glob>` with a literal server may use `*` in an allow rule; list the tools");
        }
        ToolKind::Mcp { server, tool: name } => {
            if matches!(usage, Use::Allow | Use::PreApprove) && tool.is_glob() && !tool.is_anchored_glob() {
                sink.report(
                    &rules::unknown_tool_in_rule::RULE,
                    at(tool.span),
                    format!("tool-name glob `{}` is ignored in an allow rule", tool.written),
                )
                .help("name the server literally: `mcp__<server>__<glob>`");
            }
            if !server.contains('*') && !server.is_empty() {
                let _ = name;
                sink.server_refs.push(crate::model::ServerRef { server: server.clone(), span: at(tool.span) });
            }
        }
        _ => {}
    }
    if usage == Use::HookIf {
        return;
    }
    let blanket = rule.is_whole_tool() && matches!(tool.canonical.as_str(), "Bash" | "PowerShell");
    let project = matches!(cx.scope, FileScope::Project);
    if blanket && project && matches!(usage, Use::PreApprove | Use::Allow) {
        let what = if usage == Use::PreApprove {
            "this skill pre-approves every shell command for its turn"
        } else {
            "this project allows every shell command without asking"
        };
        sink.report(&rules::blanket_allow::RULE, whole, format!("`{text}`: {what}"))
            .help(format!("list the commands it needs, such as `{}(git status:*)`", tool.canonical));
    }
}

/// Where the decoded `value` of a string node starts in `source`, if it can be known: JSON
/// strings map through escapes; a YAML scalar written plainly or quoted without escapes maps
/// directly. `None` blames the whole node.
fn value_offset(cx: &FileCx<'_>, source: &str, node: &Node, value: &str) -> Option<usize> {
    if cx.json_source.is_some() {
        return crate::json::string_sub_span(source, node.span, 0..0).map(|s| s.start);
    }
    let raw = source.get(node.span.start..node.span.end)?;
    if raw.starts_with(value) {
        return Some(node.span.start);
    }
    let quoted = raw.strip_prefix(['"', '\''])?;
    quoted.starts_with(value).then_some(node.span.start + 1)
}

/// Splits `Bash(git add:*), Read Edit` into rules at commas and spaces outside parentheses;
/// returns each rule with its byte offset.
pub fn split_rule_list(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start = None;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' => escaped = true,
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' | ' ' | '\t' | '\n' if depth == 0 => {
                if let Some(s) = start.take() {
                    out.push((s, &text[s..i]));
                }
                continue;
            }
            _ => {}
        }
        if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        out.push((s, &text[s..]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_lists() {
        let got: Vec<&str> =
            split_rule_list("Bash(git add:*), Bash(git status:*) Read,Edit").into_iter().map(|(_, s)| s).collect();
        assert_eq!(got, ["Bash(git add:*)", "Bash(git status:*)", "Read", "Edit"]);
        let got: Vec<(usize, &str)> = split_rule_list("Agent(a, b) mcp__x__*").into_iter().collect();
        assert_eq!(got, [(0, "Agent(a, b)"), (12, "mcp__x__*")]);
        assert!(split_rule_list(" , ").is_empty());
    }
}

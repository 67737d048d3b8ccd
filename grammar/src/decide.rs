//! [`decide`]: a tool call against a list of rules. A Bash command goes to Claude Code's whole
//! Bash check (`bash`), everything else to the rules alone (`matching`); this sits above both,
//! since the Bash check itself reads rules through `matching`.

use crate::bash::{decide_bash, BashContext};
use crate::matching::{decide_by_rules, Decision, MatchContext, SourcedRule, ToolCall};
use crate::tools::canonical_tool_name;

/// Deny before ask before allow, the first match deciding (`matching`'s docs say why). A Bash
/// command is decided by [`decide_bash`] in the default mode, with `cx`'s cwd and home.
pub fn decide(rules: &[SourcedRule], call: &ToolCall<'_>, cx: &MatchContext<'_>) -> Decision {
    if let (Some(command), "Bash") = (call.primary, canonical_tool_name(call.tool)) {
        let decision = decide_bash(rules, command, &BashContext::new(cx.cwd, cx.home));
        let source = decision.rule.and_then(|index| rules.get(index)).map(|rule| rule.source.clone());
        return Decision { behavior: Some(decision.behavior), rule: decision.rule, source };
    }
    decide_by_rules(rules, call, cx)
}

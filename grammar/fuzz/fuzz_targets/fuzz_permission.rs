//! Permission rules: no panic, spans in bounds and on char boundaries, and matching any call
//! (including one built from the input itself) never panics either.
#![no_main]

use capc_grammar::{decide, parse_permission_rule, Behavior, MatchContext, SourcedRule, Span, ToolCall};
use libfuzzer_sys::fuzz_target;

fn assert_span(text: &str, span: Span) {
    assert!(span.start <= span.end && span.slice(text).is_some(), "span {span:?} is not a slice of {text:?}");
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let rule = match parse_permission_rule(text) {
        Ok(rule) => rule,
        Err(error) => {
            assert_span(text, error.span);
            assert!(!error.message.is_empty() && !error.message.ends_with('.'));
            return;
        }
    };
    assert_eq!(rule.span, Span::new(0, text.len()));
    assert_span(text, rule.tool.span);
    assert_eq!(rule.tool.span.slice(text), Some(rule.tool.written.as_str()));
    if let Some(specifier) = &rule.specifier {
        assert_span(text, specifier.span);
        assert_span(text, specifier.content_span);
        assert!(specifier.span.start < specifier.content_span.start && specifier.content_span.end < specifier.span.end);
    }
    // Exercise the matchers with the input as every kind of primary field.
    let tool = rule.tool.canonical.clone();
    let params = [("param", text), ("mode", "x")];
    let cx = MatchContext { cwd: "/repo", home: "/home/u", settings_dir: Some("/repo/.claude") };
    for behavior in [Behavior::Allow, Behavior::Ask, Behavior::Deny] {
        let rules = [SourcedRule { rule: rule.clone(), behavior, source: "fuzz".to_owned(), settings_dir: None }];
        for call_tool in
            [tool.as_str(), "Bash", "PowerShell", "Read", "Edit", "Write", "WebFetch", "Skill", "Agent", "mcp__a__b"]
        {
            for primary in [text, "git status && rm -rf / | x; y", "/repo/src/a.ts", "https://a.example.com/x"] {
                let call = ToolCall { tool: call_tool, primary: Some(primary), params: &params };
                let decision = decide(&rules, &call, &cx);
                assert!(decision.rule.is_none_or(|index| index == 0));
            }
        }
    }
});

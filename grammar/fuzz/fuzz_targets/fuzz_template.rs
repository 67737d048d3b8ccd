//! Templates: no panic; parts tile the input; every span is in bounds and on char boundaries;
//! expansion and argument splitting of the same input never panic.
#![no_main]

use capc_grammar::{expand, parse_template, split_arguments, ExpandContext, Span, TemplateVar};
use libfuzzer_sys::fuzz_target;

fn assert_span(text: &str, span: Span) {
    assert!(span.start <= span.end && span.slice(text).is_some(), "span {span:?} is not a slice of {text:?}");
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (template, errors) = parse_template(text);
    let mut at = 0;
    for part in &template.parts {
        assert_eq!(part.span.start, at, "parts leave a gap");
        assert_span(text, part.span);
        at = part.span.end;
    }
    assert_eq!(at, text.len(), "parts stop early");
    for shell in &template.shell_commands {
        assert_span(text, shell.span);
        assert_span(text, shell.command_span);
        assert!(shell.span.start <= shell.command_span.start && shell.command_span.end <= shell.span.end);
    }
    for file in &template.file_refs {
        assert_span(text, file.span);
        assert!(text[file.span.start..].starts_with('@'));
    }
    for error in &errors {
        assert_span(text, error.span);
    }
    let names = ["a", "b-c", "", "0"];
    let variables = [(TemplateVar::SkillDir, "/skill"), (TemplateVar::UserConfig("k".to_owned()), "v")];
    let cx = ExpandContext { argument_names: &names, variables: &variables };
    let half = text.char_indices().nth(text.chars().count() / 2).map_or(text.len(), |(at, _)| at);
    let _ = expand(&template, &text[half..], &cx);
    let _ = split_arguments(text);
});

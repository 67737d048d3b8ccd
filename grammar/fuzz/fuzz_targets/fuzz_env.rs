//! `${VAR}` expansion: no panic; spans in bounds; the hand-written scan reads as the grammar
//! (`env.pest`) does; without references the text is unchanged, and with nothing set and no
//! defaults it is unchanged too.
#![no_main]

use capc_grammar::{expand_env, parse_env_refs, parse_env_refs_pest, Span};
use libfuzzer_sys::fuzz_target;

fn assert_span(text: &str, span: Span) {
    assert!(span.start <= span.end && span.slice(text).is_some(), "span {span:?} is not a slice of {text:?}");
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (refs, errors) = parse_env_refs(text);
    let (grammar_refs, grammar_errors) = parse_env_refs_pest(text);
    assert_eq!((&refs, &errors), (&grammar_refs, &grammar_errors), "input: {text:?}");
    for reference in &refs {
        assert_span(text, reference.span);
        assert_span(text, reference.name_span);
        assert_eq!(reference.name_span.slice(text), Some(reference.name.as_str()));
    }
    for error in &errors {
        assert_span(text, error.span);
    }
    let (unchanged, missing) = expand_env(text, |_| None);
    if refs.iter().all(|reference| reference.default.is_none()) {
        assert_eq!(unchanged, text);
        assert_eq!(missing.len(), refs.len());
    }
    let _ = expand_env(text, |name| (name.len() % 2 == 0).then(|| format!("<{name}>")));
});

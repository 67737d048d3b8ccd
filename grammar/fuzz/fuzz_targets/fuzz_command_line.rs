//! Slash-command lines: no panic, and every span is the slice it claims to be.
#![no_main]

use capc_grammar::parse_command_line;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Some(line) = parse_command_line(text) else { return };
    assert_eq!(line.name_span.slice(text), Some(line.base_name()));
    assert_eq!(line.args_span.slice(text), Some(line.args.as_str()));
    let trimmed = line.span.slice(text).expect("line span is a slice");
    assert!(trimmed.starts_with('/'));
    assert!(line.span.start <= line.name_span.start && line.args_span.end <= line.span.end);
    assert!(!line.base_name().is_empty() && !line.base_name().contains(' '));
    let _ = (line.segments(), line.looks_like_command());
});

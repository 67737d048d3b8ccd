//! The spanned JSON reader: no panic, spans in bounds, and it accepts every document
//! serde_json accepts (differential), unless nesting passes the documented limit.
#![no_main]

use capc_compiler::json;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let ours = json::parse(text);
    match &ours {
        Ok(node) => assert!(node.span.end <= text.len()),
        Err(e) => {
            assert!(e.span.start <= e.span.end && e.span.end <= text.len());
            assert!(text.is_char_boundary(e.span.start) && text.is_char_boundary(e.span.end));
        }
    }
    let stripped = text.strip_prefix('\u{feff}').unwrap_or(text);
    if serde_json::from_str::<serde_json::Value>(stripped).is_ok() {
        if let Err(e) = ours {
            assert!(e.message.contains("nested deeper"), "serde_json accepts what we reject: {e:?}");
        }
    }
});

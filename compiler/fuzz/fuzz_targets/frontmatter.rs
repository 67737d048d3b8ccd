//! The frontmatter splitter and the lenient YAML reader: no panic, no hang, and every
//! span lies inside the text on character boundaries.
#![no_main]

use capc_compiler::frontmatter::{self, Parsed, Split};
use capc_compiler::node::{Node, NodeKind};
use libfuzzer_sys::fuzz_target;

fn check_span(text: &str, start: usize, end: usize) {
    assert!(start <= end && end <= text.len(), "span {start}..{end} outside {}", text.len());
    assert!(text.is_char_boundary(start) && text.is_char_boundary(end));
}

fn check_node(text: &str, node: &Node) {
    check_span(text, node.span.start, node.span.end);
    match &node.kind {
        NodeKind::Array(items) => items.iter().for_each(|i| check_node(text, i)),
        NodeKind::Object(entries) => entries.iter().for_each(|(k, v)| {
            check_span(text, k.span.start, k.span.end);
            check_node(text, v);
        }),
        _ => {}
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    match frontmatter::split(text) {
        Split::None => {}
        Split::Unclosed { opener } => check_span(text, opener.start, opener.end),
        Split::Found(block) => {
            check_span(text, block.yaml.start, block.yaml.end);
            assert!(block.body_start <= text.len());
            match frontmatter::parse(text, &block) {
                Parsed::Fields { node, lenient, .. } => {
                    check_node(text, &node);
                    if let Some(note) = lenient {
                        check_span(text, note.span.start, note.span.end);
                    }
                }
                Parsed::Invalid { span, .. } | Parsed::NotAMapping { span, .. } => check_span(text, span.start, span.end),
            }
        }
    }
});

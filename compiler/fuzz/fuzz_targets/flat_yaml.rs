//! Differential: whenever the frontmatter fast path accepts a block, serde_yaml must read
//! the same fields with the same values (except where its depth guard refuses first).
#![no_main]

use capc_compiler::frontmatter::{self, Block, Parsed};
use capc_compiler::span::Span;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(yaml) = std::str::from_utf8(data) else { return };
    let Some(fast) = frontmatter::flat(yaml, 0) else { return };
    let text = format!("---\n{yaml}\n---\n");
    let block = Block { yaml: Span::new(4, 4 + yaml.len() + 1), whole: Span::new(0, text.len()), body_start: text.len() };
    let slow = frontmatter::parse_with_yaml(&text, &block);
    // The depth guard before YAML counts the brackets of plain scalars too (by design, it
    // may over-count); such a block is read by the fast path, which is what a check does.
    if matches!(&slow, Parsed::Invalid { message, .. } if message.starts_with("nested deeper than")) {
        return;
    }
    let Parsed::Fields { node, lenient: None, .. } = slow else { panic!("fast path accepted what YAML rejects: {yaml:?} → {slow:?}") };
    let values = |n: &capc_compiler::node::Node| -> Vec<(String, String)> {
        n.as_object().unwrap_or_default().iter().map(|(k, v)| (k.name.clone(), format!("{:?}", v.kind))).collect()
    };
    assert_eq!(values(&fast), values(&node), "fast path disagrees with YAML on {yaml:?}");
});

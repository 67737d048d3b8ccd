//! Every declaration reader on arbitrary text: the first byte picks the reader. None may
//! panic, and every diagnostic span must lie inside the text.
#![no_main]

use capc_compiler::decl::markdown::{self, MarkdownKind};
use capc_compiler::decl::{hooks, marketplace, mcp, plugin, settings, FileCx, FileScope};
use capc_compiler::model::{Placement, Scope};
use capc_compiler::diagnostic::Sink;
use capc_compiler::walk::Tree;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let tree = Tree::default();
    let plugin = selector & 0x80 != 0;
    let scope = if plugin { FileScope::Plugin } else { FileScope::Project };
    let json_source = (selector % 9 >= 3).then_some(text);
    // With bit 6, the file's declarations land in the lock too (the readers then also build
    // what the lock keeps, secrets hidden).
    let placement = (selector & 0x40 != 0).then_some(Placement {
        scope: if plugin { Scope::Plugin } else { Scope::Project },
        plugin: plugin.then_some("kit"),
        dynamic: None,
    });
    let cx = FileCx {
        tree: &tree,
        rel: "plugin/x",
        scope,
        plugin_root: Some("plugin"),
        project_root: Some(""),
        json_source,
        plugin_name: Some("kit"),
        placement,
    };
    let mut sink = Sink::new("x");
    match selector % 9 {
        0 => drop(markdown::check(&mut sink, &cx, text, MarkdownKind::Skill)),
        1 => drop(markdown::check(&mut sink, &cx, text, MarkdownKind::Command)),
        2 => drop(markdown::check(&mut sink, &cx, text, MarkdownKind::Agent)),
        n => {
            if let Ok(node) = capc_compiler::json::parse(text) {
                match n {
                    3 => drop(plugin::check_plugin(&mut sink, &cx, &node)),
                    4 => drop(marketplace::check_marketplace(&mut sink, &cx, &node, "")),
                    5 => drop(mcp::check_file(&mut sink, &cx, &node, true)),
                    6 => drop(mcp::check_file(&mut sink, &cx, &node, false)),
                    7 => drop(hooks::check_file(&mut sink, &cx, &node)),
                    _ => drop(settings::check(&mut sink, &cx, &node)),
                }
            }
        }
    }
    for d in &sink.diagnostics {
        if let Some(span) = d.span {
            assert!(span.start <= span.end && span.end <= text.len(), "{d:?}");
            assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end), "{d:?}");
        }
    }
});

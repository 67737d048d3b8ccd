//! Tests of the instruction files' reading: imports, comments, code blocks, rule globs, tokens
//! and extensions.

use super::*;

fn written(text: &str) -> Vec<String> {
    scan(text, 0).imports.into_iter().map(|i| i.written).collect()
}

#[test]
fn imports_are_at_line_starts_or_after_whitespace_outside_code() {
    let text = "Start @a.md here; `@span.md` no.\nword@glued.md (@paren.md)\n- @list.md\n\n```\n@block.md\n```\n@x\\ y.md#frag @./dot.md @~/h.md @/abs.md @@no @#no\n";
    assert_eq!(written(text), ["a.md", "list.md", "x y.md", "./dot.md", "~/h.md", "/abs.md"]);
}

#[test]
fn comment_blocks_are_left_out_with_their_imports() {
    let s = scan("# T\n<!-- note @hid.md -->\nSee @a.md\n", 0);
    assert_eq!(s.sent, "# T\nSee @a.md\n");
    assert_eq!(s.imports.len(), 1);
}

#[test]
fn indented_code_after_a_blank_line_is_code() {
    assert_eq!(written("Text\n\n    @code.md\nback @b.md\n"), ["b.md"]);
}

#[test]
fn rule_paths_match_as_gitignore_globs() {
    let globs = vec!["src/**/*.rs".to_string()];
    assert!(paths_match(&globs, "src/main.rs"));
    assert!(paths_match(&globs, "src/a/b.rs"));
    assert!(!paths_match(&globs, "lib/main.rs"));
    assert!(paths_match(&["*.md".to_string()], "docs/x.md"));
}

#[test]
fn tokens_round_a_quarter_of_utf16_units() {
    assert_eq!(tokens("abcdef"), 2);
    assert_eq!(tokens("abcde"), 1);
    assert_eq!(tokens("😀"), 1);
}

#[test]
fn extensions_as_node_gives_them() {
    assert_eq!(extension("a.md."), ".");
    assert_eq!(extension(".bashrc"), "");
    assert_eq!(extension("Makefile"), "");
    assert_eq!(extension("x.PNG"), ".PNG");
}

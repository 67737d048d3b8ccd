//! Tests of the frontmatter reader: the split, the flat path, the lenient retry, the depth
//! bound and the spans.

use super::*;

#[track_caller]
fn check(text: &str, expected: &str) {
    let actual = match split(text) {
        Split::None => "none".to_string(),
        Split::Unclosed { opener } => format!("unclosed {}..{}", opener.start, opener.end),
        Split::Found(block) => match parse(text, &block) {
            Parsed::Fields { mut node, lenient, spans } => {
                if spans == Spans::Refinable {
                    refine_spans(text, &block, &mut node);
                }
                let mut s = node.debug_tree();
                if let Some(note) = lenient {
                    s.push_str(&format!(" lenient@{}..{}", note.span.start, note.span.end));
                }
                s
            }
            Parsed::Invalid { span, message } => format!("invalid {}..{}: {message}", span.start, span.end),
            Parsed::NotAMapping { found, .. } => format!("not a mapping: {found}"),
        },
    };
    assert_eq!(actual, expected, "input: {text:?}");
}

#[test]
fn splits() {
    check("no frontmatter", "none");
    check("", "none");
    check("---\nname: x\n", "unclosed 0..3");
    check("--- \nname: x\n---  \nbody", r#"{name@5..9: "x"@11..12}@5..13"#);
    check("---\n---\nbody", "{}@4..4");
    check("----\nname: x\n---\n", "none");
    // The first `---` closes the block, even inside a line.
    check("---\ndescription: a --- b\n---\nbody", r#"{description@4..15: "a"@17..18}@4..19"#);
    check("---\nname: x\n----\nbody", r#"{name@4..8: "x"@10..11}@4..12"#);
    for (text, own) in [
        ("---\nname: x\n---\n", true),
        ("---\nname: x\n---  \nb", true),
        ("---\nname: x\n----\n", false),
        ("---\nd: a --- b\n---\n", false),
        ("---\nname: x\n--- b\n", false),
    ] {
        let Split::Found(block) = split(text) else { panic!("{text:?}") };
        assert_eq!(block.closes_on_its_own_line(text), own, "{text:?}");
    }
}

#[test]
fn plain_yaml() {
    check(
        "---\nname: a\ndescription: b c\n---\n",
        r#"{name@4..8: "a"@10..11, description@12..23: "b c"@25..28}@4..29"#,
    );
    check(
        "---\nallowed-tools:\n  - Read\n  - Bash\n---\n",
        r#"{allowed-tools@4..17: ["Read"@23..27, "Bash"@32..36]@21..37}@4..37"#,
    );
}

#[test]
fn lenient_retry_matches_claude_code() {
    // A plain scalar holding `: ` is invalid YAML but Claude Code loads it.
    check(
        "---\ndescription: Use this: when x\n---\n",
        r#"{description@4..15: "Use this: when x"@17..33}@4..34 lenient@17..33"#,
    );
    check("---\ndescription: [unclosed\n---\n", r#"{description@4..15: "[unclosed"@17..26}@4..27 lenient@17..26"#);
    // A value that is a whole flow sequence stays one; `[a] [b]` is no sequence and is quoted.
    check(
        "---\nargument-hint: [env] [version]\narguments: [env, version]\n---\n",
        r#"{argument-hint@4..17: "[env] [version]"@19..34, arguments@35..44: ["env"@46..60, "version"@46..60]@46..60}@4..61 lenient@19..34"#,
    );
    // A line ending in `\r` is never quoted, so CRLF files with such a value fail.
    assert!(check_invalid("---\r\ndescription: a: b\r\n---\r\n"));
    // Quoting `|` breaks the block scalar that follows: still invalid.
    assert!(check_invalid("---\ndescription: |\n  a\nmodel: x: y\n---\n"));
    assert!(check_invalid("---\nname: a\n  description: \"a\" b\n---\n"));
}

#[test]
fn brackets_of_a_plain_scalar_are_read_by_the_fast_path() {
    // Found by the `flat_yaml` fuzz target: `too_deep` counts the `[` and `{` of a plain
    // scalar (it over-counts by design), so the YAML path refuses a block the fast path
    // reads as the one string YAML gives it; `parse` takes the fast path for it.
    let yaml = format!("CLC: with var{}\n", "[w var{i ".repeat(70));
    let text = format!("---\n{yaml}---\n");
    let Split::Found(block) = split(&text) else { panic!("no block in {text:?}") };
    let fast = flat(&yaml, 0).expect("the fast path reads it");
    assert_eq!(fast.get("CLC").and_then(|v| v.as_str()), Some(yaml[5..yaml.len() - 1].trim_end()));
    assert!(matches!(parse(&text, &block), Parsed::Fields { lenient: None, .. }));
    assert!(
        matches!(parse_with_yaml(&text, &block), Parsed::Invalid { message, .. } if message.starts_with("nested deeper"))
    );
}

fn check_invalid(text: &str) -> bool {
    let Split::Found(block) = split(text) else { return false };
    matches!(parse(text, &block), Parsed::Invalid { .. })
}

#[test]
fn flat_fast_path_agrees_with_yaml() {
    // Read by the fast path (exact spans, no YAML library)…
    check(
        "---\nname: a-b\ndescription: Reviews code, fast (and well)\n---\n",
        r#"{name@4..8: "a-b"@10..13, description@14..25: "Reviews code, fast (and well)"@27..56}@4..57"#,
    );
    assert!(flat("name: x\n# note\n\nmodel: sonnet  \n", 0).is_some());
    // Double-quoted values without escapes, values that start with `<`, versions and
    // `true`/`false` are read as serde_yaml reads them, spans included (a quoted value's span
    // has its quotes).
    for yaml in [
        "description: \"Reviews code: fast, #1 (and well)\"\n",
        "description: \"\"\nname: x\n",
        "a: \" padded é \"\nb: c\n",
        "argument-hint: <file> [--fast]\n",
        "argument-hint: \"[file]\"\n",
        "disable-model-invocation: true\nuser-invocable: false\n",
        "version: 0.1.0\nv: 10.20.30.40\n",
    ] {
        let text = format!("---\n{yaml}---\n");
        let Split::Found(block) = split(&text) else { panic!("{yaml:?}") };
        let Parsed::Fields { node: mut slow, .. } = parse_with_yaml(&text, &block) else { panic!("{yaml:?}") };
        let fast = flat(&text[block.yaml.start..block.yaml.end], block.yaml.start).map(|n| n.debug_tree());
        // Top-level values have exact spans before refining, too.
        assert_eq!(fast.as_deref(), Some(slow.debug_tree().as_str()), "{yaml:?}");
        refine_spans(&text, &block, &mut slow);
        assert_eq!(fast, Some(slow.debug_tree()), "{yaml:?}");
    }
    // …and everything it is unsure of goes to serde_yaml.
    for yaml in [
        "a: True",
        "a: yes",
        "a: 1.0",
        "a: 1.0.",
        "a: 1..0",
        "a: .1.0",
        "a: 1.0.0-beta",
        "a: [x]",
        "a: 'x'",
        "a: \"x\\\"y\"",
        "a: \"x\\ny\"",
        "a: \"x\" y",
        "a: \"x\"  ",
        "a: \"x\" #c",
        "a: \"x",
        "a: \"",
        "a: <<",
        "a: x: y",
        "a: x #c",
        "a: |",
        " a: x",
        "a:\n  - x",
        "a: x\r",
        "a: x\na: y",
        "a: Null",
        "1: x",
        "a: ~",
        "True: x",
        "#\0",
        "a: b\u{7f}",
        "# a\u{85}---",
        "a: b\u{2028}c",
    ] {
        assert!(flat(yaml, 0).is_none(), "{yaml:?}");
    }
}

/// Generated blocks built from the characters and words each branch of the fast path turns
/// on (quotes, backslashes, `<`, digits and dots, booleans, comment and indicator signs):
/// whatever the fast path accepts, serde_yaml reads the same, spans included. A fixed seed,
/// so a failure repeats; the fuzz target explores further.
#[test]
fn flat_fast_path_agrees_with_yaml_on_generated_blocks() {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    let pieces = [
        "\"", "\\", "<", "<<", "0", "1", "9", ".", " ", "#", ":", "a", "é", "true", "false", "True", "t", "e", "[",
        "]", "'", "-", "n", "\\\"", "x", ",", "{", "&", "*", "!", "|", ">", "%", "@", "?", "~", "null", "1.0", "0.1.0",
        "e3", "+",
    ];
    let keys = ["name", "description", "a", "version", "model"];
    let mut accepted = 0;
    for _ in 0..20_000 {
        let mut yaml = String::new();
        for _ in 0..1 + next(3) {
            let mut value: String = (0..next(8)).map(|_| pieces[next(pieces.len())]).collect();
            if next(3) == 0 {
                value = format!("\"{value}\"");
            }
            let space = if next(10) == 0 { "" } else { " " };
            let trailing = if next(8) == 0 { "  " } else { "" };
            yaml.push_str(&format!("{}:{space}{value}{trailing}\n", keys[next(keys.len())]));
        }
        let text = format!("---\n{yaml}---\n");
        let Split::Found(block) = split(&text) else { continue };
        let Some(fast) = flat(&text[block.yaml.start..block.yaml.end], block.yaml.start) else { continue };
        accepted += 1;
        let slow = parse_with_yaml(&text, &block);
        let Parsed::Fields { node: mut slow, lenient: None, .. } = slow else {
            panic!("the fast path accepted what YAML reads otherwise: {yaml:?} → {slow:?}")
        };
        refine_spans(&text, &block, &mut slow);
        assert_eq!(fast.debug_tree(), slow.debug_tree(), "{yaml:?}");
    }
    // The generator reaches the fast path often enough to mean something.
    assert!(accepted > 2_000, "{accepted}");
}

#[test]
fn nested_values_have_exact_spans() {
    check(
        "---\nhooks:\n  PreToolUse:\n    - matcher: Bash\n---\n",
        r#"{hooks@4..9: {PreToolUse@13..23: [{matcher@31..38: "Bash"@40..44}@31..45]@29..45}@13..45}@4..45"#,
    );
    check(
        "---\ntools: [Read, \"Bash(git *)\"]\n---\n",
        r#"{tools@4..9: ["Read"@12..16, "Bash(git *)"@18..31]@11..32}@4..33"#,
    );
}

#[test]
fn nesting_is_bounded_before_yaml_sees_it() {
    let deep = |open: &str, close: &str, n: usize| format!("---\na: {}{}\n---\n", open.repeat(n), close.repeat(n));
    let message = |text: &str| {
        let Split::Found(block) = split(text) else { return "no frontmatter".to_string() };
        match parse_with_yaml(text, &block) {
            Parsed::Invalid { message, .. } => message,
            Parsed::Fields { .. } => "loads".to_string(),
            Parsed::NotAMapping { found, .. } => format!("not a mapping: {found}"),
        }
    };
    // 127 flow levels under one block level load; one more is refused, closed or not.
    assert!(!check_invalid(&deep("[", "]", 127)));
    assert_eq!(message(&deep("[", "]", 128)), "nested deeper than 128 levels");
    assert_eq!(message(&deep("{a: ", "}", 200)), "nested deeper than 128 levels");
    assert_eq!(message(&format!("---\nd: {}\n---\n", "[".repeat(100_000))), "nested deeper than 128 levels");
    // Block nesting counts too: mappings, compact sequences, tab indentation.
    let mut mappings = String::from("---\n");
    for i in 0..130 {
        mappings.push_str(&format!("{}k{i}:\n", " ".repeat(i)));
    }
    mappings.push_str("---\n");
    assert_eq!(message(&mappings), "nested deeper than 128 levels");
    assert_eq!(message(&format!("---\n{}x\n---\n", "- ".repeat(129))), "nested deeper than 128 levels");
    let tabs: String = (0..130).map(|i| format!("{}k{i}:\n", "\t".repeat(i))).collect();
    assert_eq!(message(&format!("---\n{tabs}---\n")), "nested deeper than 128 levels");
    // Brackets in quoted scalars, comments and block scalars do not nest.
    let hidden = "[".repeat(300);
    for text in [
        format!("---\na: \"{hidden}\"\n---\n"),
        format!("---\na: '{hidden}'\n---\n"),
        format!("---\na: 1 # {hidden}\n---\n"),
        format!("---\na: |\n  {hidden}\n   {hidden}\nb: x\n---\n"),
        format!("---\nmulti: \"line\n  {hidden}\"\n---\n"),
    ] {
        assert!(!message(&text).contains("nested deeper"), "{text}");
    }
    // A quote that YAML reads as plain text hides nothing: `[a\n'b, [[[…` nests.
    assert_eq!(message(&format!("---\nx: [a\n'b, {}\n---\n", "[".repeat(200))), "nested deeper than 128 levels");
    assert_eq!(message(&format!("---\nx: [-', {}\n---\n", "[".repeat(200))), "nested deeper than 128 levels");
}

#[test]
fn tabs_and_duplicates_as_claude_code_reads_them() {
    // A tab indenting a nested block loads (coarse spans: the exact reader refuses tabs);
    // a tab before a top-level key does not.
    check("---\nmetadata:\n\tteam: web\n---\n", r#"{metadata@4..12: {team@15..24: "web"@15..24}@15..24}@4..25"#);
    assert!(check_invalid("---\nname: t4\n\tdescription: d\n---\n"));
    // Duplicate keys load (the last wins); the field check reports them.
    check("---\nname: a\nname: b\n---\n", r#"{name@4..8: "a"@10..11, name@12..16: "b"@18..19}@4..20"#);
}

#[test]
fn not_a_mapping() {
    check("---\n- a\n---\n", "not a mapping: an array");
}

#[test]
fn alias_bomb_is_bounded() {
    let mut yaml = String::from("---\na0: &a0 [x, x, x, x, x, x, x, x, x]\n");
    for i in 1..30 {
        let prev = i - 1;
        yaml.push_str(&format!(
            "a{i}: &a{i} [*a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}]\n"
        ));
    }
    yaml.push_str("---\n");
    let Split::Found(block) = split(&yaml) else { panic!("no block") };
    // serde_yaml refuses the expansion (as Claude Code's parser does past its alias
    // limit); the retry quotes nothing, because keys with digits are never quoted.
    match parse(&yaml, &block) {
        Parsed::Invalid { message, .. } => assert!(message.contains("repetition limit"), "{message}"),
        other => panic!("unexpected {other:?}"),
    }
}

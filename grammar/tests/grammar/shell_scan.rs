//! `find_shell_commands` finds exactly the shell injections `parse_template` finds, on random
//! texts made of the characters that matter (`!`, backquotes, whitespace of every kind, `$`,
//! `\`, braces) and on the shapes written in real skills.

use capc_grammar::{find_shell_commands, parse_template};
use proptest::prelude::*;

#[track_caller]
fn same(text: &str) {
    let full = parse_template(text).0.shell_commands;
    assert_eq!(find_shell_commands(text), full, "{text:?}");
}

#[test]
fn real_shapes() {
    for text in [
        "",
        "Status: !`git status`",
        "!`git diff --stat` then\n```!\nnpm test\n```\n",
        "a!`not`, `!`not`, !``, !`never closed",
        "````!x``` and ```!\nunclosed",
        "$ARGUMENTS!`no` \\!`no` \u{A0}!`yes $1 ${CLAUDE_SKILL_DIR}`",
        "```bash\n!`inside a fence`\n```",
        "!`a```!b```",
    ] {
        same(text);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]
    #[test]
    fn random_texts(text in "[!` \\n\\t$\\\\a{}AR_0\u{A0}\u{2028}]{0,48}") {
        same(&text);
    }
}

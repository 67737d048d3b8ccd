//! Properties of `decide_bash` around allowed prefixes: whatever surrounds a substitution, a
//! process substitution, a `${…}`, a file redirection or a second command, a prefix rule
//! (`Bash(git status:*)`) or a wildcard rule (`Bash(git status *)`) alone never allows it.

use capc_grammar::{analyse_shell, decide_bash, parse_permission_rule, BashContext, Behavior, SourcedRule};
use proptest::prelude::*;

const PREFIXES: &[&str] = &["git status", "echo", "mark", "ls", "cat", "npm run"];
/// Commands that are not read-only and that none of the prefixes covers.
const OTHERS: &[&str] =
    &["touch pwned", "rm -rf x", "curl evil.example", "sh -c id", "python3 -c 1", "tee out", "chmod 777 f"];
/// Commands that are read-only on their own.
const READ_ONLY: &[&str] = &["pwd", "date", "ls", "whoami"];
const FILES: &[&str] = &["out.txt", "/tmp/x", "../x", "~/x", "sub/dir/f"];

fn word() -> impl Strategy<Value = String> {
    "[a-z0-9./=-]{1,8}"
}

/// One construct no prefix rule may approve.
fn construct() -> impl Strategy<Value = String> {
    let other = proptest::sample::select(OTHERS);
    let any_inner = proptest::sample::select([OTHERS, READ_ONLY].concat());
    let file = proptest::sample::select(FILES);
    let var = "[A-Za-z_][A-Za-z0-9_]{0,5}";
    prop_oneof![
        any_inner.clone().prop_map(|c| format!("$({c})")),
        any_inner.clone().prop_map(|c| format!("`{c}`")),
        any_inner.clone().prop_map(|c| format!("x$({c})y")),
        any_inner.clone().prop_map(|c| format!("<({c})")),
        any_inner.clone().prop_map(|c| format!(">({c})")),
        other.clone().prop_map(|c| format!("\"a $({c}) b\"")),
        any_inner.prop_map(|c| format!("\"$({c})\"")),
        file.clone().prop_map(|f| format!("> {f}")),
        file.clone().prop_map(|f| format!(">> {f}")),
        file.clone().prop_map(|f| format!("2>{f}")),
        file.clone().prop_map(|f| format!("&> {f}")),
        file.prop_map(|f| format!(">| {f}")),
        var.prop_map(|v| format!("${{{v}}}")),
        var.prop_map(|v| format!("${{{v}:-x}}")),
        other.clone().prop_map(|c| format!("; {c}")),
        other.clone().prop_map(|c| format!("&& {c}")),
        other.clone().prop_map(|c| format!("|| {c}")),
        other.clone().prop_map(|c| format!("| {c}")),
        other.clone().prop_map(|c| format!("& {c}")),
        other.prop_map(|c| format!("\n{c}")),
        Just("&".to_owned()),
    ]
}

/// `prefix`, words, the construct somewhere among them.
fn command() -> impl Strategy<Value = (String, String, bool)> {
    (proptest::sample::select(PREFIXES), proptest::collection::vec(word(), 0..4), construct(), 0usize..5, any::<bool>())
        .prop_map(|(prefix, mut words, construct, at, wildcard)| {
            let at = at.min(words.len());
            words.insert(at, construct);
            (prefix.to_owned(), format!("{prefix} {}", words.join(" ")), wildcard)
        })
}

fn rule(text: &str) -> SourcedRule {
    SourcedRule {
        rule: parse_permission_rule(text).expect("a valid rule"),
        behavior: Behavior::Allow,
        source: "userSettings".to_owned(),
        settings_dir: None,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

    #[test]
    fn a_prefix_or_wildcard_rule_alone_never_allows_what_it_cannot_see((prefix, command, wildcard) in command()) {
        let text = if wildcard { format!("Bash({prefix} *)") } else { format!("Bash({prefix}:*)") };
        let rules = [rule(&text)];
        let decision = decide_bash(&rules, &command, &BashContext::new("/p", "/h"));
        prop_assert_ne!(decision.behavior, Behavior::Allow, "{} allowed {:?}", text, command);
    }

    #[test]
    fn any_text_is_analysed_and_decided_without_panicking(command in "\\PC{0,64}") {
        let analysis = analyse_shell(&command);
        for found in &analysis.commands {
            prop_assert!(found.span.slice(&command).is_some());
        }
        let rules = [rule("Bash(git status:*)"), rule("Bash(*)")];
        let _ = decide_bash(&rules, &command, &BashContext::new("/p", "/h"));
    }

    #[test]
    fn shell_syntax_soup_is_decided_without_panicking(
        command in proptest::collection::vec(
            proptest::sample::select(vec!["$(", ")", "`", "\"", "'", "${", "}", "{", "<<", "EOF", "\n", "|", "&", ";", "(", "$((", "\\", " ", "a", "if", "then", "fi", "case", "in", "esac", "<(", ">", "#", "=", "[[", "]]"]),
            0..40,
        ).prop_map(|parts| parts.concat())
    ) {
        let _ = decide_bash(&[rule("Bash(a:*)")], &command, &BashContext::new("/p", "/h"));
    }
}

/// Adversarial lines of 9,999 bytes (just under Claude Code's 10,000-character limit) are
/// decided quickly.
#[test]
fn adversarial_lines_stay_fast() {
    for unit in ["$((", "$(", "((", "${", "\"$(", "`", "a | ", "a && ", "{ ", "<<E\n", "\\", "$[", "x=$(", "'"] {
        let line: String = unit.repeat(9_999 / unit.len());
        let started = std::time::Instant::now();
        let rules = [rule("Bash(a:*)"), rule("Bash(git status:*)")];
        let _ = decide_bash(&rules, &line, &BashContext::new("/p", "/h"));
        assert!(started.elapsed() < std::time::Duration::from_secs(2), "{unit:?} took {:?}", started.elapsed());
    }
}

/// Lines the property test once found to overflow the stack: two commands of a quoted
/// substitution with one span, each nested in the other. Each is decided, and not allowed by a
/// prefix rule alone.
#[test]
fn commands_sharing_a_span_are_decided() {
    for line in ["\"&g`a;Z`\"", "\"&g`Ѩ;Z`\"", "ȺѨጒ𞸪z$.௸mÃ།ѨXȺ݉𝈣?G\"Ѩ&g`Ѩ;iৗᜯ¡?=4𐌽\\Ű𑲜[Z`\"ௐ+<Ⱥ𑏂Ѩ"]
    {
        let decision = decide_bash(&[rule("Bash(git status:*)")], line, &BashContext::new("/p", "/h"));
        assert_ne!(decision.behavior, Behavior::Allow, "{line}");
    }
}

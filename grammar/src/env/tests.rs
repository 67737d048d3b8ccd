//! `${VAR}` references as data.

use super::*;

/// `refs: NAME@a..b[=default] …; errors: a..b message …`
fn render(text: &str) -> String {
    let (refs, errors) = parse_env_refs(text);
    let mut out = Vec::new();
    for reference in &refs {
        assert_eq!(reference.span.slice(text).map(|s| s.starts_with("${") && s.ends_with('}')), Some(true));
        assert_eq!(reference.name_span.slice(text), Some(reference.name.as_str()));
        let mut one = format!("{}@{}..{}", reference.name, reference.span.start, reference.span.end);
        if let Some(default) = &reference.default {
            one.push_str(&format!("={default:?}"));
        }
        out.push(one);
    }
    for error in &errors {
        assert!(error.span.slice(text).is_some(), "error span {:?} out of {text:?}", error.span);
        out.push(format!("error {}..{}: {}", error.span.start, error.span.end, error.message));
    }
    if out.is_empty() {
        "none".to_owned()
    } else {
        out.join("; ")
    }
}

#[track_caller]
fn check(text: &str, expected: &str) {
    assert_eq!(render(text), expected, "input: {text:?}");
}

/// Expansion with `HOME=/home/u`, `EMPTY=` and nothing else set: `output | missing: …`.
#[track_caller]
fn check_expand(text: &str, expected: &str) {
    let lookup = |name: &str| match name {
        "HOME" => Some("/home/u".to_owned()),
        "EMPTY" => Some(String::new()),
        "DOLLAR" => Some("${HOME}".to_owned()),
        _ => None,
    };
    let (out, missing) = expand_env(text, lookup);
    let rendered = if missing.is_empty() { out } else { format!("{out} | missing: {}", missing.join(", ")) };
    assert_eq!(rendered, expected, "input: {text:?}");
}

#[test]
fn references() {
    check("", "none");
    check("plain text", "none");
    check("${HOME}", "HOME@0..7");
    check("a${HOME}b", "HOME@1..8");
    check("${A}${B}", "A@0..4; B@4..8");
    check("${HOME}/bin:${PATH}", "HOME@0..7; PATH@12..19");
    check("--token=${API_TOKEN}", "API_TOKEN@8..20");
    check("${_private1}", "_private1@0..12");
}

#[test]
fn defaults() {
    check("${PORT:-8080}", "PORT@0..13=\"8080\"");
    check("${X:-}", "X@0..6=\"\"");
    check("${CLAUDE_PROJECT_DIR:-.}", "CLAUDE_PROJECT_DIR@0..24=\".\"");
    check("${URL:-http://localhost:3000}", "URL@0..29=\"http://localhost:3000\"");
    // JavaScript's `split(':-', 2)` keeps only the text up to a second `:-`.
    check("${A:-x:-y}", "A@0..10=\"x\"");
    check("${A:-:-}", "A@0..8=\"\"");
    // `:` alone is part of the name, `-` alone too.
    check("${A:x}", "A:x@0..6; error 2..5: `A:x` is not a valid environment variable name");
    check("${A-x}", "A-x@0..6; error 2..5: `A-x` is not a valid environment variable name");
}

#[test]
fn the_first_close_brace_ends_a_reference() {
    check("${A:-${B}}", "A@0..9=\"${B\"");
    check("${${A}}", "${A@0..6; error 2..5: `${A` is not a valid environment variable name");
}

#[test]
fn not_references() {
    check("$HOME", "none");
    check("$", "none");
    check("$$$$", "none");
    check("{HOME}", "none");
    check("$ {HOME}", "none");
    check("}}}", "none");
}

#[test]
fn broken_references() {
    check("${}", "error 0..3: expected a variable name in `${}`");
    check("a${}b${C}", "C@5..9; error 1..4: expected a variable name in `${}`");
    check("${HOME", "error 6..6: expected `}` to close `${`");
    check("x ${A} ${B", "A@2..6; error 10..10: expected `}` to close `${`");
    check("${{{{", "error 5..5: expected `}` to close `${`");
    check("${${${", "error 6..6: expected `}` to close `${`");
    check("${ HOME }", " HOME @0..9; error 2..8: ` HOME ` is not a valid environment variable name");
    check("${1X}", "1X@0..5; error 2..4: `1X` is not a valid environment variable name");
    check("${é}", "é@0..5; error 2..4: `é` is not a valid environment variable name");
    check("${:-x}", "@0..6=\"x\"; error 2..2: `` is not a valid environment variable name");
}

#[test]
fn expansion() {
    check_expand("", "");
    check_expand("no refs", "no refs");
    check_expand("${HOME}/bin", "/home/u/bin");
    check_expand("${MISSING}", "${MISSING} | missing: MISSING");
    check_expand("${MISSING:-fallback}", "fallback");
    check_expand("${HOME:-fallback}", "/home/u");
    check_expand("[${EMPTY}]", "[]");
    check_expand("[${EMPTY:-x}]", "[]");
    check_expand("${A}-${A}", "${A}-${A} | missing: A, A");
    check_expand("${A}${HOME}${B:-b}", "${A}/home/ub | missing: A");
    check_expand("${A:-x:-y}", "x");
    check_expand("${A:-${B}}", "${B}");
    check_expand("${}", "${}");
    check_expand("${HOME", "${HOME");
    check_expand("ünï${HOME}cödé", "ünï/home/ucödé");
    // Values are not expanded again.
    check_expand("${DOLLAR}", "${HOME}");
    check_expand("$HOME", "$HOME");
}

/// The hand-written scan gives what the grammar gives: on every string of up to 5 characters
/// over the characters the grammar turns on (and a two-byte one), on 20,000 longer ones drawn
/// from them, and on a few mixes.
#[test]
fn the_scan_reads_as_the_grammar_does() {
    const ALPHABET: [&str; 7] = ["$", "{", "}", ":", "-", "A", "é"];
    let same = |text: &str| assert_eq!(parse_env_refs(text), parse_env_refs_pest(text), "input: {text:?}");
    let mut text = String::new();
    let mut digits = Vec::new();
    for len in 0..=5 {
        digits.clear();
        digits.resize(len, 0);
        loop {
            text.clear();
            digits.iter().for_each(|&d| text.push_str(ALPHABET[d]));
            same(&text);
            let Some(i) = digits.iter().rposition(|&d| d + 1 < ALPHABET.len()) else { break };
            digits[i] += 1;
            digits[i + 1..].iter_mut().for_each(|d| *d = 0);
        }
    }
    let mut seed: u64 = 22;
    let mut next = |n: u64| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) % n
    };
    for _ in 0..20_000 {
        text.clear();
        for _ in 0..6 + next(19) {
            text.push_str(ALPHABET[next(ALPHABET.len() as u64) as usize]);
        }
        same(&text);
    }
    for text in [
        "python3 ${CLAUDE_PLUGIN_ROOT}/hooks/check.py --token ${TOKEN:-x:-y} $$ ${} ${1X}",
        "node \"${CLAUDE_PLUGIN_ROOT}/server.js\" ${HOME",
        "${A}${B}${C:-${D}}}}${",
    ] {
        same(text);
    }
}

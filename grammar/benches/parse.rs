//! Parse time per byte, from 1 KiB to 64 KiB, for every language, on ordinary and adversarial input.
//!
//! A grammar with backtracking that goes wrong shows up here as ns/byte growing with the size; a
//! linear one keeps the row flat. Run with `cargo bench -p capc-grammar --bench parse`. Timing lives
//! only here: no unit test measures time.

use std::hint::black_box;
use std::time::{Duration, Instant};

use capc_grammar::{
    expand, parse_command_line, parse_env_refs, parse_permission_rule, parse_template, split_arguments, ExpandContext,
};

const SIZES: [usize; 4] = [1 << 10, 4 << 10, 16 << 10, 64 << 10];

/// `prefix`, then `unit` repeated, then `suffix`, cut back to at most `size` bytes on a char boundary.
fn build(prefix: &str, unit: &str, suffix: &str, size: usize) -> String {
    let mut text = String::from(prefix);
    while text.len() + unit.len() + suffix.len() <= size {
        text.push_str(unit);
    }
    text.push_str(suffix);
    text
}

struct Case {
    language: &'static str,
    name: &'static str,
    input: fn(usize) -> String,
    run: fn(&str),
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            language: "permission",
            name: "bash wildcard",
            input: |n| build("Bash(", "git * --flag \\(x\\) ", ")", n),
            run: permission,
        },
        Case { language: "permission", name: "((((((", input: |n| build("", "(", "", n), run: permission },
        Case { language: "permission", name: "Bash(((((", input: |n| build("Bash", "(", "", n), run: permission },
        Case {
            language: "permission",
            name: "Bash(\\\\\\\\)",
            input: |n| build("Bash(", "\\\\", ")", n),
            run: permission,
        },
        Case {
            language: "permission",
            name: "Bash(\\)\\)\\)",
            input: |n| build("Bash(", "\\)", "", n),
            run: permission,
        },
        Case { language: "permission", name: "unmatched )))", input: |n| build("Bash(a", ")", "", n), run: permission },
        Case {
            language: "permission",
            name: "read path",
            input: |n| build("Read(//", "dir/**/", "*.ts)", n),
            run: permission,
        },
        Case { language: "permission", name: ":*:*:*", input: |n| build("Bash(", ":*", ")", n), run: permission },
        Case {
            language: "permission",
            name: "skill * * *",
            input: |n| build("Skill(", "a * ", ")", n),
            run: permission,
        },
        Case { language: "permission", name: "mcp__a__a__", input: |n| build("mcp__", "a__", "x", n), run: permission },
        Case {
            language: "command line",
            name: "args",
            input: |n| build("/review ", "42 --fast ", "", n),
            run: command_line,
        },
        Case { language: "command line", name: "spaces", input: |n| build("/x", " ", "y", n), run: command_line },
        Case {
            language: "command line",
            name: "(MCP) (MCP)",
            input: |n| build("/x", " (MCP)", "", n),
            run: command_line,
        },
        Case { language: "command line", name: "//////", input: |n| build("", "/", "", n), run: command_line },
        Case {
            language: "template",
            name: "skill body",
            input: |n| build("", "Fix #$0 in ${CLAUDE_SKILL_DIR}: !`gh issue view $0` see @src/a.rs\n", "", n),
            run: template,
        },
        Case { language: "template", name: "$$$$", input: |n| build("", "$", "", n), run: template },
        Case { language: "template", name: "${${${", input: |n| build("", "${", "", n), run: template },
        Case { language: "template", name: "\\\\\\\\$1", input: |n| build("", "\\", "$1", n), run: template },
        Case { language: "template", name: " !` !` !`", input: |n| build("", " !`", "", n), run: template },
        Case { language: "template", name: "```!```!", input: |n| build("", "```!", "", n), run: template },
        Case { language: "template", name: "unclosed ```!", input: |n| build("```!", "x $0 ", "", n), run: template },
        Case { language: "template", name: " @\" @\" @\"", input: |n| build("", " @\"", "", n), run: template },
        Case { language: "template", name: "$ARGUMENTS[", input: |n| build("", "$ARGUMENTS[", "", n), run: template },
        Case { language: "template", name: "$a-a-a-a", input: |n| build("$", "a-", "", n), run: template },
        Case {
            language: "template",
            name: "expand",
            input: |n| build("", "$0 $1 $ARGUMENTS[2] $name ", "", n),
            run: expand_template,
        },
        Case {
            language: "arguments",
            name: "quoted words",
            input: |n| build("", "a \"b c\" 'd' ", "", n),
            run: arguments,
        },
        Case { language: "arguments", name: "${${${", input: |n| build("", "${", "", n), run: arguments },
        Case { language: "env", name: "${A:-x}", input: |n| build("", "${HOME:-/x}/bin:", "", n), run: env },
        Case { language: "env", name: "$$$$", input: |n| build("", "$", "", n), run: env },
        Case { language: "env", name: "${${${", input: |n| build("", "${", "", n), run: env },
        Case { language: "env", name: "}}}}", input: |n| build("${", "}", "", n), run: env },
    ]
}

fn permission(text: &str) {
    let _ = black_box(parse_permission_rule(black_box(text)));
}

fn command_line(text: &str) {
    black_box(parse_command_line(black_box(text)));
}

fn template(text: &str) {
    black_box(parse_template(black_box(text)));
}

fn expand_template(text: &str) {
    let (parsed, _) = parse_template(text);
    let names = ["name"];
    black_box(expand(
        &parsed,
        black_box("one 'two three' four"),
        &ExpandContext { argument_names: &names, variables: &[] },
    ));
}

fn arguments(text: &str) {
    black_box(split_arguments(black_box(text)));
}

fn env(text: &str) {
    black_box(parse_env_refs(black_box(text)));
}

/// Nanoseconds per byte: the best of several rounds, each long enough to outlast timer noise.
fn ns_per_byte(run: fn(&str), input: &str) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        let mut iterations = 0u32;
        let start = Instant::now();
        while start.elapsed() < Duration::from_millis(20) || iterations == 0 {
            run(input);
            iterations += 1;
        }
        let per_run = start.elapsed().as_nanos() as f64 / f64::from(iterations);
        best = best.min(per_run / input.len().max(1) as f64);
    }
    best
}

fn main() {
    println!(
        "{:<13} {:<16} {:>9} {:>9} {:>9} {:>9} {:>7}",
        "language", "input", "1 KiB", "4 KiB", "16 KiB", "64 KiB", "64K/1K"
    );
    println!("{:<13} {:<16} {:>9} {:>9} {:>9} {:>9} {:>7}", "", "", "ns/byte", "ns/byte", "ns/byte", "ns/byte", "");
    let mut worst: f64 = 0.0;
    for case in cases() {
        let rates: Vec<f64> = SIZES.iter().map(|&size| ns_per_byte(case.run, &(case.input)(size))).collect();
        let ratio = rates[3] / rates[0];
        worst = worst.max(ratio);
        println!(
            "{:<13} {:<16} {:>9.2} {:>9.2} {:>9.2} {:>9.2} {:>6.2}x",
            case.language, case.name, rates[0], rates[1], rates[2], rates[3], ratio
        );
    }
    // Linear time keeps the ratio near 1; quadratic time would make it near 64.
    println!("\nworst 64 KiB / 1 KiB ratio: {worst:.2}x");
}

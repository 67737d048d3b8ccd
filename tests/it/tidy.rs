//! Tidy checks on the repository's own text, as rust-analyzer's `tidy` does: what a comment or a
//! document points a reader at must be there, and comments say why, not where a change came
//! from.
//!
//! - Every repository path cited in backticks (in a Rust comment, or anywhere in a Markdown
//!   file) exists: relative to the repository, to the crate that holds the file, or to the
//!   file's own folder. A path with a placeholder (`<rule>`, `*`, `{…}`, `…`, `$VAR`) is a
//!   pattern, not a citation.
//! - No Rust comment names an issue by number (`issue #12`, `(#22)`): the tracker is not
//!   part of the repository, and the comment must say what the issue said.
//! - No Rust comment names a minified symbol of Claude Code's bundle (`bU`, `e1n`, `GXs`): they
//!   change with every release; the names a table was found by live in
//!   `compiler/data/claude-code/where-found.json`, per version.
//! - The Claude Code version capc follows is written once, `model::lock::CLAUDE_CODE_VERSION`:
//!   nowhere else in code, comments, scripts or docs, but in the files that record it
//!   ([`VERSION_HOMES`]), a recorded file named after it (`bash-2.1.NNN.json`), and a statement
//!   of what capc follows (`follows Claude Code 2.1.NNN`), which must then be the constant's. An
//!   older or newer release may be named where behaviour differs between releases. The npm pin
//!   of the Claude Code the differential suite runs is the constant's.
//! - No item of `capc-compiler` or `capc-runtime` is `pub` that no other crate names:
//!   `scripts/pub-audit` lists none.

use std::path::{Path, PathBuf};

/// The folders a cited path may start with: the repository's own top-level folders.
const TOPS: &[&str] =
    &["compiler/", "runtime/", "grammar/", "src/", "tests/", "docs/", "bench/", "examples/", "schema/", ".ci/"];

/// Folders whose files are data, not prose: fixtures and recorded trees cite paths of the trees
/// they model, and tool installs are not ours.
const SKIP_DIRS: &[&str] = &[
    "target",
    "node_modules",
    ".venv",
    ".git",
    "fixtures",
    "scenarios",
    "trees",
    "transcripts",
    "fix",
    "precedence",
    "diff",
    "verify",
    "fuzz",
];

/// Paths written as a worked example of something a contributor would add: each with the file
/// that cites it and why it does not exist.
const EXAMPLES: &[(&str, &str, &str)] = &[
    ("CONTRIBUTING.md", "empty_skill_body", "the walk-through of adding a rule names the rule it adds"),
    ("CONTRIBUTING.md", "empty-skill-body", "the walk-through's fixture"),
];

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` and `.md` file of the repository outside the data folders, sorted.
fn sources() -> Vec<PathBuf> {
    let root = repo();
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.filter_map(Result::ok) {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            let Ok(kind) = entry.file_type() else { continue };
            if kind.is_dir() {
                // The top-level `tests/diff` etc. are data; a module folder of that name elsewhere
                // (`compiler/src/diff`) is code.
                let data = SKIP_DIRS.contains(&name.as_str())
                    && !(path.starts_with(root.join("compiler/src")) || path.starts_with(root.join("src")));
                if !data {
                    stack.push(path);
                }
            } else if kind.is_file() && (name.ends_with(".rs") || name.ends_with(".md")) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The folder of the nearest `Cargo.toml` at or above `file`.
fn crate_root(file: &Path) -> PathBuf {
    let mut dir = file.parent();
    while let Some(d) = dir {
        if d.join("Cargo.toml").is_file() {
            return d.to_path_buf();
        }
        dir = d.parent();
    }
    repo()
}

/// The texts of `line` between backticks.
fn code_spans(line: &str) -> Vec<&str> {
    line.split('`').skip(1).step_by(2).collect()
}

/// `line` without its backtick spans.
fn prose(line: &str) -> String {
    line.split('`').step_by(2).collect::<Vec<_>>().join(" ")
}

/// The comment text of a Rust line (`//`, `///`, `//!`), if it has one outside a string.
fn comment(line: &str) -> Option<&str> {
    let trimmed = line.trim_start();
    if trimmed.starts_with("//") {
        return Some(trimmed.trim_start_matches('/'));
    }
    // A trailing comment: `//` after code, not inside a string literal (an even count of quotes
    // before it).
    let at = line.find(" // ")?;
    line[..at].matches('"').count().is_multiple_of(2).then(|| &line[at + 4..])
}

fn is_citation(token: &str) -> bool {
    TOPS.iter().any(|t| token.starts_with(t))
        && !token.contains(|c: char| c.is_whitespace() || "<>*{}…$|()[]?=,".contains(c))
}

/// The path a citation names: without a `:line`, `:line-line` or `#anchor` suffix.
fn cited_path(token: &str) -> &str {
    let token = token.split('#').next().unwrap_or(token);
    match token.rsplit_once(':') {
        Some((path, line)) if line.chars().all(|c| c.is_ascii_digit() || c == '-') => path,
        _ => token,
    }
}

#[test]
fn cited_paths_exist() {
    let root = repo();
    let mut missing = Vec::new();
    for file in sources() {
        let Ok(text) = std::fs::read_to_string(&file) else { continue };
        let rel = file.strip_prefix(&root).unwrap_or(&file).to_string_lossy().replace('\\', "/");
        let markdown = rel.ends_with(".md");
        let mut fenced = false;
        for (n, line) in text.lines().enumerate() {
            if markdown && (line.trim_start().starts_with("```") || line.trim_start().starts_with("~~~")) {
                fenced = !fenced;
                continue;
            }
            let scanned = if markdown {
                if fenced {
                    continue;
                }
                line
            } else {
                match comment(line) {
                    Some(c) => c,
                    None => continue,
                }
            };
            for token in code_spans(scanned).into_iter().filter(|t| is_citation(t)) {
                if EXAMPLES.iter().any(|(f, part, _)| *f == rel && token.contains(part)) {
                    continue;
                }
                let path = cited_path(token);
                let bases = [root.clone(), crate_root(&file), file.parent().map(Path::to_path_buf).unwrap_or_default()];
                if !bases.iter().any(|b| b.join(path).exists()) {
                    missing.push(format!("{rel}:{}: `{token}`", n + 1));
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "paths cited that do not exist (fix the path, or write a pattern):\n{}",
        missing.join("\n")
    );
}

/// Whether `text` names an issue by number: `issue #12`, `issues 3 and 4`, `(#22)`, `#22 classes`.
fn names_an_issue(text: &str) -> bool {
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    let number = |w: &str| {
        let w = w.trim_start_matches('#').trim_end_matches(|c: char| ",.;:)".contains(c));
        !w.is_empty() && w.chars().all(|c| c.is_ascii_digit())
    };
    let after_issue =
        words.windows(2).any(|p| (p[0] == "issue" || p[0] == "issues") && p[1].starts_with('#') && number(p[1]));
    let hash_number = lower.split(|c: char| c.is_whitespace() || c == '(').any(|w| {
        w.strip_prefix('#').is_some_and(|rest| {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            !digits.is_empty() && !rest[digits.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '-')
        })
    });
    after_issue || hash_number
}

/// Each line of every Rust source but this file's, with its repository path and line number
/// (from 1): what the comment rules below read.
fn each_rust_line(mut visit: impl FnMut(&str, usize, &str)) {
    let root = repo();
    for file in sources().into_iter().filter(|f| f.extension().is_some_and(|e| e == "rs")) {
        let Ok(text) = std::fs::read_to_string(&file) else { continue };
        let rel = file.strip_prefix(&root).unwrap_or(&file).to_string_lossy().replace('\\', "/");
        if rel == "tests/it/tidy.rs" {
            continue;
        }
        for (n, line) in text.lines().enumerate() {
            visit(&rel, n + 1, line);
        }
    }
}

#[test]
fn comments_name_no_issue_numbers() {
    let mut found = Vec::new();
    each_rust_line(|rel, n, line| {
        if comment(line).is_some_and(|c| names_an_issue(&prose(c))) {
            found.push(format!("{rel}:{n}: {}", line.trim()));
        }
    });
    assert!(found.is_empty(), "comments that cite an issue number (say what it said instead):\n{}", found.join("\n"));
}

/// Whether a code span of a comment looks like a minified name: 2 to 4 characters, a lower-case
/// letter followed by a capital (`bU`, `rHe`), a letter-digit-letter run (`e1n`, `T2i`), or two
/// capitals and a lower-case letter (`GXs`); words and acronyms (`None`, `LSP`, `IDs`) are not.
fn is_minified(span: &str) -> bool {
    let chars: Vec<char> = span.chars().collect();
    if !(2..=4).contains(&chars.len()) || !chars.iter().all(|c| c.is_ascii_alphanumeric() || *c == '$') {
        return false;
    }
    if ["IDs", "PRs", "URLs", "OSes", "APIs"].contains(&span) || chars[0].is_ascii_digit() || chars[0] == '$' {
        return false;
    }
    let lower_then_upper = chars.windows(2).any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase());
    let digit_inside =
        chars.windows(3).any(|w| w[0].is_ascii_alphabetic() && w[1].is_ascii_digit() && w[2].is_ascii_alphabetic());
    let caps_then_lower = chars.len() == 3
        && chars[0].is_ascii_uppercase()
        && chars[1].is_ascii_uppercase()
        && chars[2].is_ascii_lowercase();
    lower_then_upper || digit_inside || caps_then_lower
}

#[test]
fn comments_name_no_minified_symbols() {
    let mut found = Vec::new();
    each_rust_line(|rel, n, line| {
        let lookalike = |s: &&str| LOOKALIKES.iter().any(|(f, span, _)| *f == rel && span == s);
        if let Some(span) =
            comment(line).and_then(|c| code_spans(c).into_iter().find(|s| is_minified(s) && !lookalike(s)))
        {
            found.push(format!("{rel}:{n}: `{span}`: {}", line.trim()));
        }
    });
    assert!(
        found.is_empty(),
        "comments that name a minified symbol (say what the code does; the names live in where-found.json):\n{}",
        found.join("\n")
    );
}

/// Where the followed version may be written: the constant, the tables extracted from that
/// release, recorded ground truth (scenarios, transcripts, golden locks, measured Bash cases),
/// the changelog, lockfiles, and the schemas generated from the constant.
const VERSION_HOMES: &[&str] = &[
    "compiler/src/model/lock/mod.rs",
    "compiler/data/claude-code/",
    "CHANGELOG.md",
    "tests/oracle/claude/package.json",
    "tests/oracle/claude/package-lock.json",
    "tests/oracle/scenarios/",
    "tests/oracle/validate/",
    "runtime/tests/transcripts/",
    "tests/precedence/",
    "tests/verify/",
    "grammar/tests/data/",
    "schema/",
];

/// Comment spans shaped like a minified name that are not one: each with its file and why.
const LOOKALIKES: &[(&str, &str, &str)] = &[("runtime/src/collate.rs", "bX", "a collation example: `bx`, `bX`, `Bx`")];

/// The version capc follows, as the constant writes it.
fn followed() -> &'static str {
    capc_compiler::model::CLAUDE_CODE_VERSION
}

/// Every text file the version rule reads: sources, scripts, docs and configuration.
fn version_sources() -> Vec<PathBuf> {
    let root = repo();
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.filter_map(Result::ok) {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            let Ok(kind) = entry.file_type() else { continue };
            if kind.is_dir() {
                if !["target", "node_modules", ".venv", ".git"].contains(&name.as_str()) {
                    stack.push(path);
                }
            } else if kind.is_file() {
                let text =
                    [".rs", ".md", ".py", ".toml", ".json", ".sh", ".yml", ".yaml"].iter().any(|e| name.ends_with(e));
                // Scripts without an extension: `scripts/claude-code-tables`, `.ci/run`.
                let folder = path.parent().and_then(Path::file_name).map(|f| f.to_string_lossy().into_owned());
                if text || matches!(folder.as_deref(), Some("scripts" | ".ci")) {
                    out.push(path);
                }
            }
        }
    }
    out.sort();
    out
}

/// The places in `line` where `version` is written, less those that name a recorded file after
/// it (`bash-2.1.NNN.json`) or say which release capc follows.
fn stray_versions(line: &str, version: &str) -> usize {
    line.match_indices(version)
        .filter(|(at, _)| {
            let after = &line[at + version.len()..];
            let before = &line[..*at];
            let digit_after = after.starts_with(|c: char| c.is_ascii_digit());
            let file_name = before.ends_with('-') && after.starts_with('.');
            let follows = before.replace("**", "").trim_end().ends_with("follows Claude Code");
            // A capc.toml pin, which capc itself refuses unless it is the constant's version, or a
            // lock's `claude_code` field shown in an example.
            let pin =
                ["claude-code = \"", "claude_code = \"", "\"claude_code\":\""].iter().any(|p| before.ends_with(p));
            !digit_after && !file_name && !follows && !pin
        })
        .count()
}

#[test]
fn the_followed_version_is_written_once() {
    let root = repo();
    let mut found = Vec::new();
    for file in version_sources() {
        let rel = file.strip_prefix(&root).unwrap_or(&file).to_string_lossy().replace('\\', "/");
        if rel == "tests/it/tidy.rs"
            || VERSION_HOMES.iter().any(|h| rel == *h || (h.ends_with('/') && rel.starts_with(h)))
        {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&file) else { continue };
        let mut previous = "";
        for (n, line) in text.lines().enumerate() {
            // A statement broken over two lines: `(follows Claude` / `Code 2.1.NNN)`.
            let tail: Vec<&str> = previous.split_whitespace().rev().take(2).collect();
            let joined = format!("{} {}", tail.into_iter().rev().collect::<Vec<_>>().join(" "), line.trim_start());
            let stray = stray_versions(line, followed()).min(stray_versions(&joined, followed()));
            if stray > 0 {
                found.push(format!("{rel}:{}: {}", n + 1, line.trim()));
            }
            previous = line;
        }
    }
    assert!(
        found.is_empty(),
        "the Claude Code version capc follows ({}) written outside model::lock::CLAUDE_CODE_VERSION (read the constant, or say \"Claude Code\"; keep a version only where behaviour differs between releases):\n{}",
        followed(),
        found.join("\n")
    );
}

#[test]
fn statements_of_the_followed_version_and_the_npm_pin_are_the_constant() {
    let root = repo();
    let mut wrong = Vec::new();
    for file in version_sources().into_iter().filter(|f| f.extension().is_some_and(|e| e == "md")) {
        let Ok(text) = std::fs::read_to_string(&file) else { continue };
        let flat = text.replace("**", "").split_whitespace().collect::<Vec<_>>().join(" ");
        for (at, _) in flat.match_indices("follows Claude Code 2.") {
            let version: String = flat[at + "follows Claude Code ".len()..]
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '.')
                .collect();
            if version.trim_end_matches('.') != followed() {
                wrong.push(format!(
                    "{}: follows Claude Code {version}",
                    file.strip_prefix(&root).unwrap_or(&file).display()
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "capc follows Claude Code {}, not:\n{}", followed(), wrong.join("\n"));
    let pin: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("tests/oracle/claude/package.json")).expect("the npm pin"),
    )
    .expect("package.json parses");
    assert_eq!(
        pin["dependencies"]["@anthropic-ai/claude-code"],
        followed(),
        "the differential suite runs the Claude Code capc follows"
    );
    let lock: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("tests/oracle/claude/package-lock.json")).expect("the npm lock"),
    )
    .expect("package-lock.json parses");
    assert_eq!(lock["packages"]["node_modules/@anthropic-ai/claude-code"]["version"], followed(), "the npm lock");
}

#[test]
fn the_tidy_checks_see_what_they_look_for() {
    for minified in ["bU", "kZ", "GXs", "e1n", "T2i", "rHe", "gQt", "DCs"] {
        assert!(is_minified(minified), "{minified}");
    }
    for word in ["None", "LSP", "IDs", "cd", "Bash", "$0", "-p", "e2", "Err", "CI"] {
        assert!(!is_minified(word), "{word}");
    }
    assert_eq!(stray_versions("as Claude Code 2.1.332 does", "2.1.332"), 1);
    assert_eq!(stray_versions("`bash-2.1.332.json` and 2.1.3320", "2.1.332"), 0);
    assert_eq!(stray_versions("capc (follows Claude Code 2.1.332)", "2.1.332"), 0);
    assert_eq!(stray_versions("capc follows **Claude Code 2.1.332**, measured", "2.1.332"), 0);
    assert_eq!(stray_versions("claude-code = \"2.1.332\"", "2.1.332"), 0);
    assert_eq!(stray_versions("{\"claude_code\":\"2.1.332\"}", "2.1.332"), 0);
    assert!(names_an_issue("issue #12 says"));
    assert!(names_an_issue("---- #22 classes 1, 2"));
    assert!(names_an_issue("the review (#38)"));
    assert!(names_an_issue("issues #3 and #4"));
    assert!(!names_an_issue("create 14 + issue 14 tokens"));
    assert!(!names_an_issue("reads lines 2 to 3, #L2 and # headings"));
    assert!(!names_an_issue("the #3-rd case"));
    assert!(is_citation("compiler/src/walk.rs"));
    assert!(!is_citation("tests/fixtures/<rule>/"));
    assert_eq!(cited_path("compiler/src/walk.rs:12"), "compiler/src/walk.rs");
    assert_eq!(cited_path("README.md#install"), "README.md");
    assert_eq!(comment("let x = 1; // see `src/main.rs`"), Some("see `src/main.rs`"));
    assert_eq!(comment(r#"let s = "a // b";"#), None);
}

/// Runs `scripts/pub-audit` from `root` (the repository or a scratch copy of its layout).
fn pub_audit(root: &Path, args: &[&str]) -> (bool, String) {
    let out = std::process::Command::new("python3")
        .arg(root.join("scripts/pub-audit"))
        .args(args)
        .output()
        .expect("python3 runs scripts/pub-audit");
    assert!(out.status.code().is_some_and(|c| c <= 1), "pub-audit failed: {}", String::from_utf8_lossy(&out.stderr));
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A library crate's item is `pub` only when another crate names it (ARCHITECTURE.md, "What
/// each crate exports"); `scripts/pub-audit --apply` turns the ones it lists into `pub(crate)`.
#[test]
fn library_items_are_pub_only_for_other_crates() {
    let (clean, listed) = pub_audit(&repo(), &[]);
    assert!(
        clean && listed.is_empty(),
        "`pub` items no other crate names (make them `pub(crate)`, or run scripts/pub-audit --apply):\n{listed}"
    );
}

#[test]
fn the_pub_audit_sees_what_it_looks_for() {
    let scratch = tempfile::tempdir().expect("a scratch folder");
    let root = scratch.path();
    let write = |path: &str, text: &str| {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    };
    write("scripts/pub-audit", &std::fs::read_to_string(repo().join("scripts/pub-audit")).expect("the script"));
    write(
        "compiler/src/lib.rs",
        "pub mod shapes;\nmod inner;\npub use inner::{Reexported, Hidden};\n\
         pub fn build() -> Built { Built }\npub struct Built;\npub fn only_inside() {}\n\
         pub(crate) fn already_crate() {}\n\
         pub struct Options {\n    pub named: u8,\n    pub unnamed: u8,\n}\n\
         pub struct Updated {\n    pub set: u8,\n    pub left: u8,\n}\n",
    );
    write("compiler/src/inner.rs", "pub struct Reexported;\npub struct Hidden;\n");
    write("compiler/src/shapes.rs", "pub const USED_CONST: u8 = 1;\npub const UNUSED_CONST: u8 = 2;\n");
    write("runtime/src/lib.rs", "pub fn runtime_only() {}\n");
    write(
        "src/main.rs",
        "// only_inside is named in a comment, which does not count\n\
         fn main() {\n    let _ = capc_compiler::build();\n    let _ = capc_compiler::Reexported;\n\
         \x20   let _ = capc_compiler::shapes::USED_CONST;\n    let _ = capc_compiler::Options::default().named;\n\
         \x20   let u = Updated { set: 1, ..Updated::default() };\n}\n",
    );
    let (clean, listed) = pub_audit(root, &[]);
    assert!(!clean);
    let names: Vec<&str> = listed.lines().map(|l| l.split(' ').nth(2).expect("a name")).collect();
    assert_eq!(names, ["Hidden", "Hidden", "only_inside", "unnamed", "UNUSED_CONST", "runtime_only"], "{listed}");
    pub_audit(root, &["--apply"]);
    let lib = std::fs::read_to_string(root.join("compiler/src/lib.rs")).expect("lib.rs");
    for line in ["pub use inner::Reexported;", "pub(crate) use inner::Hidden;", "pub(crate) fn only_inside() {}"] {
        assert!(lib.contains(line), "{line} in\n{lib}");
    }
    assert_eq!(pub_audit(root, &[]), (true, String::new()), "applied, nothing is left");
}

/// The workspace denies `unsafe` code; its one exception is `src/alloc.rs` (an option of the
/// allocator, set once at start). This keeps the exception from spreading: an `allow` of the
/// lint, or `unsafe` code, anywhere else fails.
#[test]
fn unsafe_code_is_only_the_allocators() {
    let mut found = Vec::new();
    let mut seen_in_alloc = 0;
    each_rust_line(|rel, n, line| {
        let code = line.split("//").next().unwrap_or(line);
        let is_unsafe = code.contains("unsafe_code")
            || ["unsafe {", "unsafe fn", "unsafe impl", "unsafe extern"].iter().any(|u| code.contains(u));
        match (is_unsafe, rel) {
            (true, "src/alloc.rs") => seen_in_alloc += 1,
            (true, _) => found.push(format!("{rel}:{n}: {}", line.trim())),
            _ => {}
        }
    });
    assert!(found.is_empty(), "unsafe code outside src/alloc.rs:\n{}", found.join("\n"));
    assert!(seen_in_alloc > 0, "this check no longer sees src/alloc.rs's unsafe code");
}

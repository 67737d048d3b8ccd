//! `capc check`'s output formats and the flags that choose what is shown: SARIF (validated
//! against the official SARIF 2.1.0 schema in `tests/sarif/`), GitHub workflow commands,
//! `short`, `--statistics`, `--severity`, `--strict`, long lines cut in the human report,
//! `--version`, and the generated `docs/rules.md` the SARIF help links point at.
//!
//! To accept a changed `docs/rules.md`, run `CAPC_BLESS=1 cargo test --test it -- formats::`.

use crate::support::stdout;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn capc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_capc"))
        .args(args)
        .env("NO_COLOR", "1")
        .env_remove("COLUMNS")
        .output()
        .expect("capc runs")
}

fn broken_plugin() -> String {
    repo().join("examples/broken-plugin").to_string_lossy().into_owned()
}

fn sarif_validator() -> jsonschema::Validator {
    let text = std::fs::read_to_string(repo().join("tests/sarif/sarif-schema-2.1.0.json")).expect("the schema");
    let schema: Value = serde_json::from_str(&text).expect("the schema is JSON");
    jsonschema::options().should_validate_formats(true).build(&schema).expect("the SARIF schema compiles")
}

fn assert_valid_sarif(validator: &jsonschema::Validator, what: &str, sarif: &str) {
    let value: Value = serde_json::from_str(sarif).unwrap_or_else(|e| panic!("{what}: not JSON: {e}"));
    let errors: Vec<String> = validator.iter_errors(&value).map(|e| format!("{}: {e}", e.instance_path())).collect();
    assert!(errors.is_empty(), "{what}: SARIF fails the schema:\n{}", errors.join("\n"));
}

/// Every fixture (each rule's, with its user and managed scopes) renders as valid SARIF.
#[test]
fn sarif_of_every_fixture_satisfies_the_official_schema() {
    let validator = sarif_validator();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(repo().join("tests/fixtures"))
        .expect("fixtures")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("in").is_dir())
        .collect();
    dirs.sort();
    let mut results = 0;
    for dir in dirs {
        let existing = |name: &str| Some(dir.join(name)).filter(|p| p.is_dir());
        let options = capc_compiler::Options {
            root: dir.join("in"),
            user_dir: existing("user"),
            managed_dir: existing("managed"),
            skip_hashes: true,
            ..capc_compiler::Options::default()
        };
        let checked = capc_compiler::check(&options).expect("checks");
        let sarif = capc_compiler::report::to_sarif(&checked);
        assert_valid_sarif(&validator, &dir.display().to_string(), &sarif);
        let value: Value = serde_json::from_str(&sarif).expect("JSON");
        results += value["runs"][0]["results"].as_array().map_or(0, Vec::len);
    }
    assert!(results > 100, "the fixtures make findings of every rule: {results}");
}

#[test]
fn sarif_names_the_tool_every_rule_and_each_finding_s_place() {
    let out = capc(&["check", "--format", "sarif", &broken_plugin()]);
    assert_eq!(out.status.code(), Some(1), "errors still fail the check");
    let text = stdout(&out);
    assert_valid_sarif(&sarif_validator(), "examples/broken-plugin", &text);
    assert_eq!(capc(&["check", "--format", "sarif", &broken_plugin()]).stdout, out.stdout, "deterministic");
    assert!(!text.contains(&broken_plugin()), "no absolute path");
    let log: Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(log["version"], "2.1.0");
    let run = &log["runs"][0];
    let driver = &run["tool"]["driver"];
    assert_eq!(driver["name"], "capc");
    assert_eq!(driver["version"], env!("CARGO_PKG_VERSION"));
    let rules = driver["rules"].as_array().expect("rules");
    assert_eq!(rules.len(), capc_compiler::rules::RULES.len(), "every rule, not only those that fired");
    for (rule, known) in rules.iter().zip(capc_compiler::rules::RULES) {
        assert_eq!(rule["id"], known.id);
        assert!(rule["shortDescription"]["text"].as_str().is_some_and(|t| t.ends_with('.')), "{rule}");
        assert!(
            rule["fullDescription"]["text"].as_str().is_some_and(|t| !t.is_empty() && !t.contains("###")),
            "{rule}"
        );
        assert!(rule["help"]["markdown"].as_str().is_some_and(|t| t.contains("### Why is this bad?")), "{rule}");
        assert_eq!(rule["helpUri"], capc_compiler::rules::docs_url(known.id));
        let level = match known.severity {
            capc_compiler::Severity::Error => "error",
            capc_compiler::Severity::Warning => "warning",
            capc_compiler::Severity::Info => "note",
        };
        assert_eq!(rule["defaultConfiguration"]["level"], level);
    }
    assert_eq!(run["columnKind"], "unicodeCodePoints");
    let results = run["results"].as_array().expect("results");
    let author = results
        .iter()
        .find(|r| r["message"]["text"].as_str().is_some_and(|m| m.starts_with("`author` in plugin.json")))
        .expect("the author finding");
    assert_eq!(author["ruleId"], "wrong-field-type");
    assert_eq!(rules[author["ruleIndex"].as_u64().expect("index") as usize]["id"], "wrong-field-type");
    assert_eq!(author["level"], "error");
    let location = &author["locations"][0]["physicalLocation"];
    // Relative to the folder capc runs in (the repository's top in CI), where GitHub resolves it.
    assert_eq!(location["artifactLocation"]["uri"], "examples/broken-plugin/.claude-plugin/plugin.json");
    assert_eq!(location["artifactLocation"]["uriBaseId"], "%SRCROOT%");
    let region = &location["region"];
    assert_eq!((region["startLine"].as_u64(), region["startColumn"].as_u64()), (Some(5), Some(13)));
    assert_eq!((region["endLine"].as_u64(), region["endColumn"].as_u64()), (Some(5), Some(25)));
    let warning = results.iter().find(|r| r["ruleId"] == "unknown-field").expect("a warning");
    assert_eq!(warning["level"], "warning");
    // The schema does reject what SARIF forbids.
    let mut broken = log.clone();
    broken["runs"][0]["results"][0]["level"] = "fatal".into();
    broken["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0.into();
    assert_eq!(sarif_validator().iter_errors(&broken).count(), 2);
}

/// With `--baseline`, SARIF lists only the new findings, each `baselineState: new`, and says
/// in the run's properties how many the baseline hid; it still satisfies the schema.
#[test]
fn a_baseline_leaves_valid_sarif_of_the_new_findings() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("baseline.toml");
    let file = file.to_str().expect("utf-8");
    let written = capc(&["check", &broken_plugin(), "--select", "wrong-field-type", "--write-baseline", file]);
    assert_eq!(written.status.code(), Some(0), "{}", String::from_utf8_lossy(&written.stderr));
    let recorded = std::fs::read_to_string(file).expect("written");
    assert_eq!(recorded.matches("[[finding]]").count(), 3, "{recorded}");
    // Key paths are relative to the baseline's folder, wherever the check runs from.
    assert!(recorded.contains("examples/broken-plugin/"), "{recorded}");
    let run = capc(&["check", &broken_plugin(), "--baseline", file, "--format", "sarif"]);
    assert_eq!(run.status.code(), Some(1), "the other errors are new");
    assert_valid_sarif(&sarif_validator(), "--baseline", &stdout(&run));
    let sarif: Value = serde_json::from_slice(&run.stdout).expect("JSON");
    let results = sarif["runs"][0]["results"].as_array().cloned().unwrap_or_default();
    assert!(!results.is_empty());
    assert!(results.iter().all(|r| r["baselineState"] == "new" && r["ruleId"] != "wrong-field-type"), "{sarif:#}");
    assert_eq!(sarif["runs"][0]["properties"]["capcBaseline"]["baselined"], 3);
    // Without a baseline, no result carries a baseline state.
    let plain: Value =
        serde_json::from_slice(&capc(&["check", &broken_plugin(), "--format", "sarif"]).stdout).expect("JSON");
    assert!(plain["runs"][0]["results"].as_array().is_some_and(|r| r.iter().all(|r| r.get("baselineState").is_none())));
    assert!(plain["runs"][0].get("properties").is_none());
}

/// Annotations name files from the folder capc runs in (the repository's top in CI), where
/// GitHub attaches them, also when one folder below it is checked.
#[test]
fn github_format_is_workflow_commands() {
    let out = capc(&["check", "--format", "github", &broken_plugin()]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains(
            "::error file=examples/broken-plugin/.claude-plugin/plugin.json,line=5,col=13,endLine=5,endColumn=25,title=capc wrong-field-type::`author` in plugin.json must be an object, found a string\n"
        ),
        "{text}"
    );
    // The help follows on a second line of the annotation (an escaped newline).
    assert!(text.contains("::warning file=examples/broken-plugin/.claude-plugin/plugin.json,line=9,col=3,"), "{text}");
    assert!(text.contains("unknown field `mcp_servers` in plugin.json%0Ahelp: did you mean `mcpServers`?"), "{text}");
    // A finding about a whole file names only the file.
    assert!(
        text.contains("::warning file=examples/broken-plugin/skills/summarize.md,title=capc loose-skill-file::"),
        "{text}"
    );
    for line in text.lines().filter(|l| l.starts_with("::")) {
        let (_, message) = line[2..].split_once("::").expect("command::message");
        assert!(!message.contains('\r'), "{line}");
    }
}

#[test]
fn github_format_escapes_what_the_runner_would_misread() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join(".claude/commands");
    std::fs::create_dir_all(&folder).expect("mkdir");
    // A file name with `,` and `:` (property separators) and `%`.
    std::fs::write(folder.join("a,b:c%d.md"), "---\nallowed-tools: Bash(\n---\nGo.\n").expect("write");
    let out = crate::support::capc_in(dir.path(), &["check", "--format", "github"], 100);
    let text = stdout(&out);
    assert!(text.contains("file=.claude/commands/a%2Cb%3Ac%25d.md,"), "{text}");
}

#[test]
fn short_format_is_one_line_per_finding() {
    let out = capc(&["check", "--format", "short", &broken_plugin()]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines.contains(
            &".claude-plugin/plugin.json:5:13: error[wrong-field-type] `author` in plugin.json must be an object, found a string"
        ),
        "{text}"
    );
    assert!(lines.contains(&"skills/summarize.md:1:1: warning[loose-skill-file] a loose Markdown file in a skills folder is not a skill"), "{text}");
    assert!(lines.last().is_some_and(|l| l.starts_with("checked 5 files: 5 errors")), "{text}");
    let json: Value =
        serde_json::from_slice(&capc(&["check", "--format", "json", &broken_plugin()]).stdout).expect("JSON");
    assert_eq!(lines.len() - 1, json["diagnostics"].as_array().map_or(0, Vec::len), "one line per finding");
}

#[test]
fn statistics_count_findings_per_rule_most_first() {
    let out = capc(&["check", "--statistics", &broken_plugin()]);
    assert_eq!(out.status.code(), Some(1), "the exit code is the check's");
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "3  error    wrong-field-type", "{text}");
    assert_eq!(lines[1], "1  error    component-path-format", "{text}");
    // Counted per rule and severity: the agent's `color: magenta` is an info, the other
    // invalid value a warning.
    assert!(lines.contains(&"1  warning  invalid-field-value"), "{text}");
    assert!(lines.contains(&"1  info     invalid-field-value"), "{text}");
    assert!(lines.last().is_some_and(|l| l.starts_with("checked 5 files")), "{text}");
    let json = capc(&["check", "--statistics", "--format", "json", &broken_plugin()]);
    let value: Value = serde_json::from_slice(&json.stdout).expect("JSON");
    assert_eq!(
        value["statistics"][0],
        serde_json::json!({"rule": "wrong-field-type", "severity": "error", "count": 3})
    );
    let refused = capc(&["check", "--statistics", "--format", "sarif", &broken_plugin()]);
    assert_eq!(refused.status.code(), Some(2));
}

#[test]
fn severity_filters_what_is_shown_not_the_exit_code() {
    let errors = capc(&["check", "--severity", "error", "--format", "short", &broken_plugin()]);
    assert_eq!(errors.status.code(), Some(1));
    let text = stdout(&errors);
    assert!(text.lines().filter(|l| l.contains(": warning[")).count() == 0, "{text}");
    assert_eq!(text.lines().filter(|l| l.contains(": error[")).count(), 5, "{text}");
    assert!(text.ends_with("7 findings below --severity error not shown\n"), "{text}");
    // A tree with only infos: shown by default, hidden at `warning`, exit 0 either way.
    let team = repo().join("examples/team-repo");
    let team = team.to_str().expect("utf-8");
    let quiet = capc(&["check", "--severity", "warning", "--format", "json", team]);
    assert_eq!(quiet.status.code(), Some(0));
    let value: Value = serde_json::from_slice(&quiet.stdout).expect("JSON");
    assert_eq!(value["diagnostics"], serde_json::json!([]));
    let sarif = capc(&["check", "--severity", "warning", "--format", "sarif", team]);
    let value: Value = serde_json::from_slice(&sarif.stdout).expect("JSON");
    assert_eq!(value["runs"][0]["results"], serde_json::json!([]));
}

#[test]
fn strict_fails_on_warnings() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join(".claude/commands")).expect("mkdir");
    // A misspelt field: Claude Code loads the command and ignores the field (a warning).
    std::fs::write(dir.path().join(".claude/commands/x.md"), "---\nallowed_tools: Read\n---\nbody\n").expect("write");
    let path = dir.path().to_str().expect("utf-8");
    let relaxed = capc(&["check", path]);
    assert_eq!(relaxed.status.code(), Some(0), "{}", stdout(&relaxed));
    assert!(stdout(&relaxed).contains("[unknown-field]"));
    assert_eq!(capc(&["check", "--strict", path]).status.code(), Some(1));
    // --strict counts every warning, also those --severity hides.
    assert_eq!(capc(&["check", "--strict", "--severity", "error", path]).status.code(), Some(1));
    let team = repo().join("examples/team-repo");
    assert_eq!(capc(&["check", "--strict", team.to_str().expect("utf-8")]).status.code(), Some(0), "infos pass");
}

/// A minified manifest: one 5,000-character line with a finding in the middle.
#[test]
fn long_lines_are_cut_around_the_span() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join(".claude-plugin")).expect("mkdir");
    let keywords: Vec<String> = (0..400).map(|i| format!("\"word{i:04}\"")).collect();
    let manifest = format!(
        "{{\"name\":\"mini\",\"keywords\":[{}],\"mcp_servers\":{{}},\"homepage\":\"https://example.com/{}\"}}\n",
        keywords.join(","),
        "x".repeat(1000)
    );
    assert!(manifest.len() > 5000);
    std::fs::write(dir.path().join(".claude-plugin/plugin.json"), &manifest).expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_capc"))
        .args(["check", dir.path().to_str().expect("utf-8")])
        .env("NO_COLOR", "1")
        .env("COLUMNS", "80")
        .output()
        .expect("capc runs");
    let text = stdout(&out);
    for line in text.lines() {
        assert!(line.chars().count() <= 80, "a line wider than the terminal ({}): {line}", line.chars().count());
    }
    let column = manifest.find("\"mcp_servers\"").expect("the key") + 1;
    assert!(text.contains(&format!("[.claude-plugin/plugin.json:1:{column}]")), "the file's own column:\n{text}");
    let source = text.lines().find(|l| l.contains("\"mcp_servers\"")).expect("the source line");
    assert!(source.contains('…'), "{source}");
    let under = text.lines().skip_while(|l| !l.contains("\"mcp_servers\"")).nth(1).expect("the underline");
    assert_eq!(under.matches('─').count(), "\"mcp_servers\"".len(), "the span's underline:\n{text}");
}

#[test]
fn version_names_the_claude_code_it_follows() {
    let out = capc(&["--version"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stdout(&out),
        format!(
            "capc {} (follows Claude Code {})\n",
            env!("CARGO_PKG_VERSION"),
            capc_compiler::model::CLAUDE_CODE_VERSION
        )
    );
}

#[test]
fn completions_and_man_pages_come_from_the_cli() {
    for (shell, marker) in [("bash", "complete -F _capc"), ("zsh", "#compdef capc"), ("fish", "complete -c capc")] {
        let out = capc(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let script = stdout(&out);
        assert!(script.contains(marker), "{shell}: {script}");
        for word in ["check", "lock", "session", "format", "sarif", "statistics"] {
            assert!(script.contains(word), "{shell} completes `{word}`");
        }
    }
    let page = stdout(&capc(&["man"]));
    assert!(page.contains(".TH capc 1"), "{page}");
    assert!(page.contains("follows Claude Code"), "{page}");
    for sub in ["check", "lock", "session", "completions", "man"] {
        assert!(page.contains(&format!("capc\\-{sub}(1)")) || page.contains(sub), "`{sub}` listed: {page}");
    }
    let check = capc(&["man", "check"]);
    assert_eq!(check.status.code(), Some(0));
    let check = stdout(&check);
    assert!(check.contains(".TH capc-check 1"), "{check}");
    assert!(check.contains("\\-\\-format") && check.contains("sarif") && check.contains("\\-\\-strict"), "{check}");
    assert_eq!(capc(&["man", "nope"]).status.code(), Some(2));
}

/// `docs/rules.md` is generated from the rules; the SARIF `helpUri`s point at its headings.
#[test]
fn rules_doc_is_fresh() {
    let path = repo().join("docs/rules.md");
    let generated = capc_compiler::rules::docs_markdown();
    crate::support::golden::assert(&path, &generated);
    for rule in capc_compiler::rules::RULES {
        assert!(generated.contains(&format!("\n## {}\n", rule.id)), "a heading (anchor) for `{}`", rule.id);
    }
}

//! The integrations shipped at the repository root, read as their consumers read them:
//! `action.yml` (a composite GitHub Action: its inputs, its steps, and its check step's
//! script run here with bash) and `.pre-commit-hooks.yaml` (the hook's fields and which
//! paths trigger it). `tests/live.rs` runs the hook under the real pre-commit.

use serde_yaml::Value;
use std::path::Path;
use std::process::Command;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn yaml(name: &str) -> Value {
    let text = std::fs::read_to_string(repo().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{name} is not YAML: {e}"))
}

fn str_of<'v>(value: &'v Value, key: &str) -> &'v str {
    value[key].as_str().unwrap_or_else(|| panic!("`{key}` is not a string in {value:?}"))
}

fn action_steps(action: &Value) -> &Vec<Value> {
    action["runs"]["steps"].as_sequence().expect("runs.steps")
}

#[test]
fn action_is_composite_with_documented_inputs() {
    let action = yaml("action.yml");
    assert!(!str_of(&action, "name").is_empty());
    assert!(!str_of(&action, "description").is_empty());
    assert_eq!(str_of(&action["runs"], "using"), "composite");
    let inputs = action["inputs"].as_mapping().expect("inputs");
    let expected =
        [("path", "."), ("args", ""), ("upload", "true"), ("sarif-file", "capc.sarif"), ("category", "capc")];
    assert_eq!(inputs.len(), expected.len(), "{inputs:?}");
    for (name, default) in expected {
        let input = &action["inputs"][name];
        assert!(!str_of(input, "description").is_empty(), "input `{name}` is described");
        assert_eq!(str_of(input, "default"), default, "input `{name}`");
        assert_eq!(input["required"].as_bool(), Some(false), "input `{name}`");
        let readme = std::fs::read_to_string(repo().join("README.md")).expect("README");
        assert!(readme.contains(&format!("`{name}`")), "README documents input `{name}`");
    }
    for output in ["sarif-file", "exit-code"] {
        assert!(str_of(&action["outputs"][output], "value").contains("steps.check.outputs"), "output `{output}`");
    }
}

#[test]
fn action_installs_capc_checks_uploads_and_fails() {
    let action = yaml("action.yml");
    let steps = action_steps(&action);
    let names: Vec<&str> = steps.iter().map(|s| str_of(s, "name")).collect();
    assert_eq!(names, ["Install capc", "Check", "Upload to code scanning", "Fail on findings"]);
    for step in steps {
        if let Some(run) = step["run"].as_str() {
            assert_eq!(str_of(step, "shell"), "bash", "{step:?}");
            // Inputs reach scripts through `env`, never spliced into the script's text.
            assert!(!run.contains("${{"), "an expression in a script: {run}");
        }
    }
    let install = str_of(&steps[0], "run");
    assert!(install.contains("cargo install --locked") && install.contains("--path \"$CAPC_SOURCE\""), "{install}");
    assert_eq!(
        str_of(&steps[0]["env"], "CAPC_SOURCE"),
        "${{ github.action_path }}",
        "installs the action's own source"
    );
    assert!(install.contains(">> \"$GITHUB_PATH\""), "{install}");
    assert_eq!(str_of(&steps[1], "id"), "check");
    assert!(str_of(&steps[1], "run").contains("capc check --format sarif"), "{:?}", steps[1]);
    let upload = &steps[2];
    assert!(str_of(upload, "uses").starts_with("github/codeql-action/upload-sarif@v"), "{upload:?}");
    assert_eq!(str_of(&upload["with"], "sarif_file"), "${{ steps.check.outputs.sarif-file }}");
    assert_eq!(str_of(&upload["with"], "category"), "${{ inputs.category }}");
    assert!(str_of(upload, "if").contains("inputs.upload == 'true'"), "{upload:?}");
    assert!(str_of(&steps[3], "if").contains("steps.check.outputs.exit-code != '0'"));
}

/// The check step's script, run with bash as the runner would (its `env` with the inputs
/// given, `GITHUB_OUTPUT` a file, the built capc on PATH).
fn run_check_step(workspace: &Path, inputs: &[(&str, &str)]) -> (String, std::process::ExitStatus) {
    let action = yaml("action.yml");
    let step = &action_steps(&action)[1];
    let input = |name: &str| {
        inputs
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.to_string())
            .unwrap_or_else(|| str_of(&action["inputs"][name], "default").to_string())
    };
    let output = workspace.join("github-output");
    let _ = std::fs::remove_file(&output);
    let bin = Path::new(env!("CARGO_BIN_EXE_capc")).parent().expect("bin dir").to_path_buf();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let mut command = Command::new("bash");
    command
        .arg("-e")
        .arg("-c")
        .arg(str_of(step, "run"))
        .current_dir(workspace)
        .env("PATH", path)
        .env("GITHUB_OUTPUT", &output);
    for (name, value) in step["env"].as_mapping().expect("env") {
        let value = value.as_str().expect("a string");
        let name_of_input = value.strip_prefix("${{ inputs.").and_then(|v| v.strip_suffix(" }}")).expect("an input");
        command.env(name.as_str().expect("a name"), input(name_of_input));
    }
    let status = command.status().expect("bash runs");
    (std::fs::read_to_string(&output).unwrap_or_default(), status)
}

#[test]
fn action_check_step_writes_sarif_and_the_exit_code() {
    let workspace = tempfile::tempdir().expect("tempdir");
    let plugin = workspace.path().join("tools/.claude-plugin");
    std::fs::create_dir_all(&plugin).expect("mkdir");
    std::fs::write(plugin.join("plugin.json"), "{ \"name\": \"tools\", }\n").expect("write");
    let (outputs, status) = run_check_step(workspace.path(), &[("path", "tools")]);
    assert!(status.success(), "the step records the exit code and goes on to the upload");
    assert_eq!(outputs, "sarif-file=capc.sarif\nexit-code=1\n");
    let sarif: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(workspace.path().join("capc.sarif")).expect("SARIF written"))
            .expect("JSON");
    assert_eq!(sarif["runs"][0]["results"][0]["ruleId"], "invalid-json");
    assert_eq!(
        sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        ".claude-plugin/plugin.json"
    );

    std::fs::write(
        plugin.join("plugin.json"),
        "{ \"name\": \"tools\", \"version\": \"1.0.0\", \"description\": \"Tools\" }\n",
    )
    .expect("write");
    let (outputs, _) = run_check_step(
        workspace.path(),
        &[("path", "tools"), ("args", "--strict --severity warning"), ("sarif-file", "scan.sarif")],
    );
    assert!(outputs.ends_with("exit-code=0\n"), "{outputs}");
    assert!(workspace.path().join("scan.sarif").is_file());
    let (outputs, _) = run_check_step(workspace.path(), &[("path", "missing")]);
    assert!(outputs.ends_with("exit-code=2\n"), "{outputs}");
}

#[test]
fn pre_commit_hook_runs_capc_check_on_declaration_changes() {
    let hooks = yaml(".pre-commit-hooks.yaml");
    let hooks = hooks.as_sequence().expect("a list of hooks");
    assert_eq!(hooks.len(), 1);
    let hook = &hooks[0];
    assert_eq!(str_of(hook, "id"), "capc-check");
    assert_eq!(str_of(hook, "entry"), "capc check");
    assert_eq!(str_of(hook, "language"), "system");
    assert_eq!(hook["pass_filenames"].as_bool(), Some(false), "the whole tree is checked");
    // pre-commit matches `files` with Python's `re.search`; these patterns mean the same in Rust.
    let files = str_of(hook, "files");
    let matches = |path: &str| {
        let out =
            Command::new("grep").args(["-qE", files]).stdin(std::process::Stdio::piped()).spawn().map(|mut child| {
                use std::io::Write as _;
                let _ = child.stdin.take().expect("stdin").write_all(format!("{path}\n").as_bytes());
                child.wait().map(|s| s.success()).unwrap_or(false)
            });
        out.unwrap_or(false)
    };
    for path in [
        ".mcp.json",
        ".claude/settings.json",
        "apps/web/.claude/skills/deploy/SKILL.md",
        "skills/pdf/SKILL.md",
        "plugins/qa/.claude-plugin/plugin.json",
        ".claude-plugin/marketplace.json",
        "plugins/qa/commands/review.md",
        "plugins/qa/agents/triage.md",
        "plugins/qa/hooks/hooks.json",
        "capc.toml",
    ] {
        assert!(matches(path), "`{path}` triggers the hook");
    }
    for path in ["README.md", "src/main.rs", "docs/rules.md", "package.json"] {
        assert!(!matches(path), "`{path}` does not trigger the hook");
    }
}

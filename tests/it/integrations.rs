//! The integrations shipped at the repository root, read as their consumers read them:
//! `action.yml` (a composite GitHub Action: its inputs, its steps, and its check step's
//! script run here with bash) and `.pre-commit-hooks.yaml` (the hook's fields and which
//! paths trigger it). `tests/trials/live.rs` runs the hook under the real pre-commit.

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
    // From the repository's top, where GitHub resolves it: the `path` input in front.
    assert_eq!(
        sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "tools/.claude-plugin/plugin.json"
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

/// The README's GitHub Actions workflows: every ```yaml block of the README with `jobs:`.
fn readme_workflows() -> Vec<(String, Value)> {
    let readme = std::fs::read_to_string(repo().join("README.md")).expect("README.md");
    readme
        .split("```yaml\n")
        .skip(1)
        .map(|rest| rest[..rest.find("```").expect("the block ends")].to_string())
        .filter(|block| block.lines().any(|l| l.starts_with("jobs:")))
        .map(|block| {
            let value =
                serde_yaml::from_str(&block).unwrap_or_else(|e| panic!("a README workflow is not YAML: {e}\n{block}"));
            (block, value)
        })
        .collect()
}

/// The workflows in the README, as pasted: each `uses:` of capc names this release's tag (before
/// the first release, `<commit>`, the placeholder for the commit a reader pins) and only inputs
/// `action.yml` declares, and its `args` are run through the action's own check
/// step; each `run:` line is a `cargo install` of this release's tag or a `capc` command that
/// this capc accepts, run on a copy of `examples/team-repo` (exit 0 or 1, never 2: not an
/// unknown flag, a missing path or an unusable configuration). There is no GitHub runner here,
/// so what GitHub itself does with the workflow (checkout, the SARIF upload) is not run.
#[test]
fn readme_workflows_run_with_this_capc() {
    let workflows = readme_workflows();
    assert!(!workflows.is_empty(), "the README shows a GitHub Actions workflow");
    let pin = crate::support::readme_pin();
    let release = match &pin {
        crate::support::Pin::Tag(tag) => tag.clone(),
        crate::support::Pin::Commit => "<commit>".to_string(),
    };
    let install_flag = if pin == crate::support::Pin::Commit { "--rev" } else { "--tag" };
    let action = yaml("action.yml");
    let workspace = tempfile::tempdir().expect("tempdir");
    let copied = Command::new("cp").arg("-R").arg(repo().join("examples/team-repo/.")).arg(workspace.path()).status();
    assert!(copied.is_ok_and(|s| s.success()), "copy examples/team-repo");
    let (mut uses_capc, mut capc_lines) = (0, 0);
    for (block, workflow) in &workflows {
        let jobs = workflow["jobs"].as_mapping().expect("jobs");
        for job in jobs.values() {
            for step in job["steps"].as_sequence().expect("steps") {
                if let Some(uses) = step["uses"].as_str() {
                    let (name, rev) = uses.split_once('@').unwrap_or_else(|| panic!("`{uses}` names no ref"));
                    if !name.ends_with("/capc") {
                        continue;
                    }
                    uses_capc += 1;
                    assert_eq!(rev, release, "`uses: {uses}` names this release's tag, `{release}`");
                    let with = step["with"].as_mapping().cloned().unwrap_or_default();
                    let mut inputs = Vec::new();
                    for (key, value) in &with {
                        let key = key.as_str().expect("an input name");
                        assert!(
                            action["inputs"][key].is_mapping(),
                            "`with: {key}` is no input of action.yml:\n{block}"
                        );
                        let value = match value {
                            Value::String(s) => s.clone(),
                            Value::Bool(b) => b.to_string(),
                            other => panic!("`{key}`: {other:?}"),
                        };
                        inputs.push((key, value));
                    }
                    let inputs: Vec<(&str, &str)> = inputs.iter().map(|(k, v)| (*k, v.as_str())).collect();
                    let (outputs, status) = run_check_step(workspace.path(), &inputs);
                    assert!(status.success(), "the check step with {inputs:?}");
                    assert!(!outputs.contains("exit-code=2"), "capc could not run with {inputs:?}: {outputs}");
                }
                let Some(script) = step["run"].as_str() else { continue };
                // The README writes `<capc's repository URL>` where a user puts the URL they install from.
                let script = script.replace("<capc's repository URL>", env!("CARGO_PKG_REPOSITORY"));
                for line in script.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
                    assert!(
                        !line.replace("<commit>", "").contains(['"', '\'', '$', '|', '&', ';', '\\', '<', '>']),
                        "keep `{line}` to plain words"
                    );
                    let words: Vec<&str> = line.split_whitespace().collect();
                    match words.as_slice() {
                        ["cargo", "install", rest @ ..] => {
                            assert!(rest.contains(&"--locked"), "`{line}` installs with --locked");
                            let git = rest.windows(2).find(|w| w[0] == "--git").map(|w| w[1]);
                            assert_eq!(
                                git,
                                Some(env!("CARGO_PKG_REPOSITORY")),
                                "`{line}` installs from capc's repository"
                            );
                            assert!(
                                rest.windows(2).any(|w| w == [install_flag, release.as_str()]),
                                "`{line}` installs `{release}`"
                            );
                            assert_eq!(rest.last(), Some(&"capc"), "`{line}` installs the capc crate");
                        }
                        ["capc", args @ ..] => {
                            capc_lines += 1;
                            let out = Command::new(env!("CARGO_BIN_EXE_capc"))
                                .args(args)
                                .current_dir(workspace.path())
                                .env("NO_COLOR", "1")
                                .output()
                                .expect("capc runs");
                            assert!(
                                matches!(out.status.code(), Some(0 | 1)),
                                "`{line}` on examples/team-repo: exit {:?}\n{}",
                                out.status.code(),
                                String::from_utf8_lossy(&out.stderr)
                            );
                        }
                        _ => {
                            panic!("a README workflow runs `{line}`; this test knows `cargo install` and `capc` lines")
                        }
                    }
                }
            }
        }
    }
    assert!(uses_capc > 0, "a README workflow uses the action");
    assert!(capc_lines > 0, "a README workflow runs capc itself");
}

/// The Rust version the workspace declares (`rust-version`, which `cargo install` checks and
/// the README's install section names) is at least what every locked dependency declares it
/// needs: read from `cargo metadata` over Cargo.lock, as cargo itself reads them.
#[test]
fn the_declared_rust_version_covers_every_locked_dependency() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--locked", "--offline"])
        .current_dir(repo())
        .output()
        .expect("cargo metadata runs");
    assert!(out.status.success(), "cargo metadata: {}", String::from_utf8_lossy(&out.stderr));
    let metadata: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    // `1.89` is `1.89.0`.
    let version = |v: &str| -> Vec<u32> {
        let mut parts: Vec<u32> = v.split('.').map(|p| p.parse().unwrap_or(0)).collect();
        parts.resize(3, 0);
        parts
    };
    let packages = metadata["packages"].as_array().expect("packages");
    let declared = packages
        .iter()
        .find(|p| p["name"] == "capc")
        .and_then(|p| p["rust_version"].as_str())
        .expect("capc declares a rust-version");
    let (needed, by) = packages
        .iter()
        .filter_map(|p| {
            Some((p["rust_version"].as_str()?, format!("{} {}", p["name"].as_str()?, p["version"].as_str()?)))
        })
        .max_by_key(|(v, _)| version(v))
        .expect("some package declares one");
    assert!(version(declared) >= version(needed), "rust-version = \"{declared}\", but {by} needs Rust {needed}");
    let readme = std::fs::read_to_string(repo().join("README.md")).expect("README.md");
    let short = declared.trim_end_matches(".0");
    assert!(readme.contains(&format!("(Rust {short} or newer)")), "the README's install section names Rust {short}");
}

/// The release machinery, run here as a release runs it: `.ci/package` makes the archive and
/// its checksum under the names `cargo binstall` (Cargo.toml's `[package.metadata.binstall]`)
/// expects, twice the same bytes, and refuses a binary over 25 MB; `.ci/install-release` (the action's installer) installs the
/// binary from a release laid out as GitHub serves it (here a `file://` folder), refuses an
/// archive that does not match its checksum (exit 1, nothing installed), and answers 3 (build
/// from source) for a tag with no release.
#[cfg(target_os = "linux")]
#[test]
fn a_release_archive_is_what_binstall_and_the_action_install() {
    let target = match std::env::consts::ARCH {
        "x86_64" => "x86_64-unknown-linux-musl",
        "aarch64" => "aarch64-unknown-linux-musl",
        other => panic!("no release target for {other}"),
    };
    let version = env!("CARGO_PKG_VERSION");
    let tag = format!("v{version}");
    let dir = tempfile::tempdir().expect("tempdir");
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).expect("mkdir");
    // A stand-in for the release build (the debug binary is hundreds of megabytes to compress).
    std::fs::write(bin.join("capc"), format!("#!/bin/sh\necho 'capc {version} (release stand-in)'\n")).expect("write");
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(bin.join("capc"), std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    let release = dir.path().join("download").join(&tag);
    let package = || {
        let out = Command::new(repo().join(".ci/package")).arg(target).arg(&bin).arg(&release).arg(&tag).output();
        let out = out.expect(".ci/package runs");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    };
    // A binary over 25 MB is no release: refused before anything is written.
    let big = dir.path().join("big");
    std::fs::create_dir_all(&big).expect("mkdir");
    std::fs::File::create(big.join("capc")).and_then(|f| f.set_len(25_000_001)).expect("a 25 MB file");
    let out = Command::new(repo().join(".ci/package")).arg(target).arg(&big).arg(&release).arg(&tag).output();
    let out = out.expect(".ci/package runs");
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("25000001 bytes, over the 25000000 bytes"), "{out:?}");
    assert!(!release.exists(), "nothing is written for a refused binary");
    package();
    let archive = format!("capc-{tag}-{target}.tar.gz");
    let checksum = std::fs::read_to_string(release.join(format!("{archive}.sha256"))).expect("the checksum");
    package();
    let again = std::fs::read_to_string(release.join(format!("{archive}.sha256"))).expect("the checksum");
    assert_eq!(checksum, again, "the same files make the same archive");
    assert!(checksum.ends_with(&format!("  {archive}\n")), "`sha256sum -c` reads it: {checksum}");

    // What `cargo binstall` would fetch and where it finds the binary in it.
    let manifest: toml::Table =
        std::fs::read_to_string(repo().join("Cargo.toml")).expect("Cargo.toml").parse().expect("TOML");
    let binstall = &manifest["package"]["metadata"]["binstall"];
    let fill = |template: &str| {
        template
            .replace("{ repo }", env!("CARGO_PKG_REPOSITORY"))
            .replace("{ version }", version)
            .replace("{ name }", "capc")
            .replace("{ target }", target)
            .replace("{ archive-suffix }", ".tar.gz")
            .replace("{ bin }", "capc")
            .replace("{ binary-ext }", "")
    };
    let url = fill(binstall["pkg-url"].as_str().expect("pkg-url"));
    assert_eq!(url, format!("{}/releases/download/{tag}/{archive}", env!("CARGO_PKG_REPOSITORY")));
    assert_eq!(binstall["pkg-fmt"].as_str(), Some("tgz"));
    let listed = Command::new("tar").arg("-tzf").arg(release.join(&archive)).output().expect("tar runs");
    let listed = String::from_utf8_lossy(&listed.stdout).into_owned();
    let bin_dir = fill(binstall["bin-dir"].as_str().expect("bin-dir"));
    assert!(listed.lines().any(|l| l == bin_dir), "`{bin_dir}` is in the archive:\n{listed}");
    for file in ["README.md", "CHANGELOG.md"] {
        assert!(listed.lines().any(|l| l == format!("capc-{tag}-{target}/{file}")), "{file}:\n{listed}");
    }

    let base = format!("file://{}", dir.path().join("download").display());
    let install = |tag: &str, dest: &Path| {
        Command::new(repo().join(".ci/install-release"))
            .arg(tag)
            .arg(dest)
            .env("CAPC_RELEASE_BASE", &base)
            .output()
            .expect(".ci/install-release runs")
    };
    let dest = dir.path().join("installed");
    let out = install(&tag, &dest);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let installed = Command::new(dest.join("bin/capc")).arg("--version").output().expect("the installed capc runs");
    assert_eq!(String::from_utf8_lossy(&installed.stdout), format!("capc {version} (release stand-in)\n"));

    let tampered = dir.path().join("tampered");
    std::fs::write(release.join(format!("{archive}.sha256")), format!("{}  {archive}\n", "0".repeat(64)))
        .expect("write");
    let out = install(&tag, &tampered);
    assert_eq!(out.status.code(), Some(1), "a mismatch fails");
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not match its published SHA-256"));
    assert!(!tampered.join("bin/capc").exists(), "nothing is installed");

    let out = install("v99.0.0", &dir.path().join("none"));
    assert_eq!(out.status.code(), Some(3), "no release: build from source instead");
}

/// `.ci/release-notes` gives the release's CHANGELOG section and refuses a tag that is not the
/// crate's version or that has no section (run on a copy of the files it reads).
#[test]
fn release_notes_come_from_the_changelog_section_of_the_tag() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join(".ci")).expect("mkdir");
    std::fs::copy(repo().join(".ci/release-notes"), dir.path().join(".ci/release-notes")).expect("copy");
    std::fs::copy(repo().join("Cargo.toml"), dir.path().join("Cargo.toml")).expect("copy");
    let tag = format!("v{}", env!("CARGO_PKG_VERSION"));
    let notes = |tag: &str| Command::new(dir.path().join(".ci/release-notes")).arg(tag).output().expect("runs");
    std::fs::copy(repo().join("CHANGELOG.md"), dir.path().join("CHANGELOG.md")).expect("copy");
    let out = notes(&tag);
    assert_eq!(out.status.code(), Some(1), "no section yet");
    assert!(String::from_utf8_lossy(&out.stderr).contains(&format!("no `## {tag}` section")));
    let changelog = std::fs::read_to_string(repo().join("CHANGELOG.md")).expect("CHANGELOG.md");
    let released = changelog.replacen("## Unreleased", &format!("## {tag}"), 1) + "\n## v0.0.1\n\nOlder.\n";
    std::fs::write(dir.path().join("CHANGELOG.md"), released).expect("write");
    let out = notes(&tag);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("### Added") && !text.contains("Older."), "{text}");
    let out = notes("v99.0.0");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not the version in Cargo.toml"));
}

/// The release workflow packages every target the installer and `cargo binstall` ask for, the
/// Windows ones as `.zip`.
#[test]
fn the_release_workflow_builds_what_the_installers_fetch() {
    let workflow = yaml(".github/workflows/release.yml");
    let include = workflow["jobs"]["build"]["strategy"]["matrix"]["include"].as_sequence().expect("the matrix");
    let targets: Vec<&str> = include.iter().map(|e| str_of(e, "target")).collect();
    let installer = std::fs::read_to_string(repo().join(".ci/install-release")).expect(".ci/install-release");
    for asked in installer.lines().filter_map(|l| l.split_once(") target=")).map(|(_, t)| t.trim_end_matches(" ;;")) {
        assert!(targets.contains(&asked), "the installer fetches {asked}, which the workflow builds: {targets:?}");
    }
    for wanted in [
        "x86_64-unknown-linux-gnu",
        "aarch64-unknown-linux-gnu",
        "x86_64-unknown-linux-musl",
        "x86_64-apple-darwin",
        "aarch64-apple-darwin",
        "x86_64-pc-windows-msvc",
    ] {
        assert!(targets.contains(&wanted), "{wanted}");
    }
    let manifest: toml::Table =
        std::fs::read_to_string(repo().join("Cargo.toml")).expect("Cargo.toml").parse().expect("TOML");
    let overrides = &manifest["package"]["metadata"]["binstall"]["overrides"];
    for target in targets.iter().filter(|t| t.contains("windows")) {
        assert_eq!(overrides[*target]["pkg-fmt"].as_str(), Some("zip"), "{target}");
    }
    let steps = workflow["jobs"]["build"]["steps"].as_sequence().expect("steps");
    assert!(
        steps.iter().any(|s| s["run"].as_str().is_some_and(|r| r.starts_with(".ci/package "))),
        "each build is packaged"
    );
}

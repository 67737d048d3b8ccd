//! Every fenced block of README.md and docs/*.md, checked: one trial per block, named after its
//! file and the line of its opening fence (`docs::README.md:19`). CONTRIBUTING.md ("Snippets in
//! the docs") says how a block is marked.
//!
//! A block is checked by the mark on the line just before its fence, else by its language:
//!
//! - `<!-- check: run DIR -->` before a `console` block: a transcript. Each `$ ` line is run by
//!   `sh` (`capc` the binary under test) in a scratch copy of `DIR` (a folder of this repository,
//!   `corpora/NAME` for a shared corpus, `corpora` for all of them), and the lines after it are its output (stdout, then
//!   stderr), compared line by line; a line `…` stands for any lines. When `DIR`'s `.mcp.json`
//!   starts `mcp-server-everything` (the MCP project's test server), the test servers' commands
//!   are on PATH, and the trial needs them installed (`npm ci --prefix runtime/tests/servers`).
//! - `<!-- check: output DIR: ARGS -->` before any block: the block is what `capc ARGS` prints
//!   in a scratch copy of `DIR`, compared the same way.
//! - `<!-- check: in PATH -->`: the block's lines appear, in order, in PATH, a file a test pins
//!   (a fixture's expected report); `…` as above.
//! - `<!-- check: by PATH -->`: another test reads this block; PATH must exist and name this
//!   file.
//! - `<!-- check: not yet: REASON -->`: a known debt, reported as an ignored trial with its reason
//!   (also under `CI`), so that the list of what is not checked is `-- docs:: --ignored`.
//! - unmarked `console` (only `$ ` lines, their `\` continuations and `#` comments: output needs a
//!   mark) and
//!   `sh`: every `capc` it runs (also after `cargo run --` and `-- capc`
//!   in another tool's command line) parses as capc's arguments (`capc ARGS --help` exits 0);
//! - unmarked `toml`, `json`, `yaml`, `js`: parses (`js` by `node --check`); a capc.toml is read by `capc rules --config`
//!   without a word on stderr, a baseline by `capc check --baseline`; every capc command line
//!   in it (an editor's or an MCP client's `command`/`args`, a workflow's `run:`, the hook's or
//!   the action's `args`) parses as capc's arguments;
//! - any other unmarked block fails: mark it, or remove it.
//!
//! `docs/rules.md` is generated from the rules' documentation (`formats::`), and its examples are
//! the rules' own; its blocks are not trials here.

use crate::support::harness::{self, Missing};
use libtest_mimic::Trial;
use std::path::Path;
use std::process::{Command, Stdio};

/// A fenced block of a Markdown file.
#[derive(Debug, Clone)]
struct Block {
    /// The file, relative to the repository.
    file: String,
    /// The line of the opening fence, 1-based.
    line: usize,
    /// The first word of the info string.
    lang: String,
    /// What the mark on the line before the fence says, after `check:`.
    mark: Option<String>,
    /// The lines between the fences, the fence's indentation removed.
    text: String,
}

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The documents whose blocks are checked.
fn documents() -> Vec<String> {
    let mut files = vec!["README.md".to_string()];
    let mut docs: Vec<String> = std::fs::read_dir(repo().join("docs"))
        .expect("docs/")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md") && name != "rules.md")
        .map(|name| format!("docs/{name}"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

/// The fenced blocks of `text` (CommonMark fences: three or more backticks or tildes, a
/// backtick fence's info string without a backtick; closed by a run of the same character at
/// least as long).
fn blocks(file: &str, text: &str) -> Vec<Block> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let trimmed = lines[i].trim_start();
        let indent = lines[i].len() - trimmed.len();
        let fence_char = trimmed.chars().next().filter(|c| *c == '`' || *c == '~');
        let run = fence_char.map_or(0, |c| trimmed.chars().take_while(|x| *x == c).count());
        let info = &trimmed[run.min(trimmed.len())..];
        if run < 3 || (fence_char == Some('`') && info.contains('`')) {
            i += 1;
            continue;
        }
        let c = fence_char.expect("a fence");
        let mark = i
            .checked_sub(1)
            .map(|p| lines[p].trim())
            .and_then(|l| l.strip_prefix("<!-- check:"))
            .and_then(|l| l.strip_suffix("-->"))
            .map(|m| m.trim().to_string());
        let mut body = Vec::new();
        let mut j = i + 1;
        while j < lines.len() {
            let t = lines[j].trim();
            if t.len() >= run && t.chars().all(|x| x == c) {
                break;
            }
            let l = lines[j];
            let strip = l.len() - l.trim_start().len();
            body.push(&l[strip.min(indent)..]);
            j += 1;
        }
        out.push(Block {
            file: file.to_string(),
            line: i + 1,
            lang: info.split_whitespace().next().unwrap_or("").to_string(),
            mark,
            text: body.iter().map(|l| format!("{l}\n")).collect(),
        });
        i = j + 1;
    }
    out
}

pub(crate) fn trials() -> Vec<Trial> {
    let corpora = crate::support::corpora_path();
    let mut trials = Vec::new();
    for file in documents() {
        let text = std::fs::read_to_string(repo().join(&file)).expect("a document");
        for block in blocks(&file, &text) {
            let name = format!("docs::{}:{}", block.file, block.line);
            if let Some(why) = block.mark.as_deref().and_then(|m| m.strip_prefix("not yet:")) {
                // A debt, listed: ignored (also under CI), with its reason beside the name.
                let why = why.trim().to_string();
                trials.push(
                    Trial::test(name, move || Err(why.into())).with_kind("not yet checked").with_ignored_flag(true),
                );
                continue;
            }
            let missing = missing(&block, &corpora);
            trials.push(harness::trial(name, &missing, move || check(&block)));
        }
    }
    trials
}

/// What a block's check needs that may be absent: a corpus, git.
fn missing(block: &Block, corpora: &Path) -> Vec<Missing> {
    let mut missing = Vec::new();
    let dir = block.mark.as_deref().and_then(|m| m.strip_prefix("run ").or_else(|| m.strip_prefix("output ")));
    let corpus = dir.and_then(|d| d.split([':', ' ']).next()).and_then(|d| d.strip_prefix("corpora"));
    if let Some(name) = corpus.filter(|n| n.is_empty() || n.starts_with('/')).map(|n| n.trim_start_matches('/')) {
        if !corpora.join(name).is_dir() {
            missing.push(Missing {
                label: "corpora",
                why: format!("the shared corpora (`{name}`) are not beside the repository (../shared/corpora)"),
            });
        }
    }
    if block.text.lines().any(|l| l.starts_with("$ ") && l.contains("git "))
        && block.mark.as_deref().is_some_and(|m| m.starts_with("run "))
        && !crate::support::git::available()
    {
        missing.push(Missing { label: "git", why: "`git` is not on PATH".to_string() });
    }
    let run = block.mark.as_deref().and_then(|m| m.strip_prefix("run ")).map(str::trim);
    if run.is_some_and(needs_everything) && !everything_bin().join("mcp-server-everything").is_file() {
        missing.push(Missing {
            label: "server-everything",
            why: "server-everything is not installed (npm ci --prefix runtime/tests/servers)".to_string(),
        });
    }
    if block.lang == "js" && block.mark.is_none() && Command::new("node").arg("--version").output().is_err() {
        missing.push(Missing { label: "node", why: "`node` is not on PATH (Node.js)".to_string() });
    }
    missing
}

/// The folder of the test servers' commands (`npm ci --prefix runtime/tests/servers`), among them
/// `mcp-server-everything`, the MCP project's test server.
fn everything_bin() -> std::path::PathBuf {
    repo().join("runtime/tests/servers/node_modules/.bin")
}

/// Whether the folder `dir` of the repository has a `.mcp.json` starting server-everything by its
/// command, `mcp-server-everything`: its transcript runs with that command on PATH.
fn needs_everything(dir: &str) -> bool {
    std::fs::read_to_string(repo().join(dir).join(".mcp.json")).is_ok_and(|t| t.contains("\"mcp-server-everything\""))
}

fn check(block: &Block) {
    let at = format!("{}:{}", block.file, block.line);
    match block.mark.as_deref() {
        Some(m) if m.starts_with("run ") => run_transcript(block, m["run ".len()..].trim()),
        Some(m) if m.starts_with("output ") => {
            let (dir, args) = m["output ".len()..].split_once(':').unwrap_or_else(|| panic!("{at}: `output DIR: ARGS`"));
            let words = split_words(args.trim()).into_iter().flatten().collect::<Vec<_>>();
            let args = words.strip_prefix(&["capc".to_string()]).unwrap_or(&words);
            let scratch = scratch(dir.trim());
            let got = run_capc(scratch.path(), args);
            compare(&at, &block.text, &got);
        }
        Some(m) if m.starts_with("in ") => {
            let path = m["in ".len()..].trim();
            let text = std::fs::read_to_string(repo().join(path)).unwrap_or_else(|_| panic!("{at}: `{path}` does not exist"));
            compare(&format!("{at} (in {path})"), &format!("…\n{}…\n", block.text), &text);
        }
        Some(m) if m.starts_with("by ") => {
            let path = m["by ".len()..].trim();
            let text = std::fs::read_to_string(repo().join(path)).unwrap_or_else(|_| panic!("{at}: `{path}` does not exist"));
            let name = Path::new(&block.file).file_name().expect("a name").to_string_lossy();
            assert!(text.contains(&*name), "{at}: `{path}` does not name {name}, so it reads no block of it");
        }
        Some(m) => panic!("{at}: unknown mark `check: {m}` (run DIR, output DIR: ARGS, by PATH)"),
        None => match block.lang.as_str() {
            "console" => {
                let mut continued = false;
                let output = block.text.lines().find(|l| {
                    let command = std::mem::replace(&mut continued, l.trim_end().ends_with('\\')) || l.starts_with("$ ");
                    !command && !l.trim().is_empty() && !l.trim_start().starts_with('#')
                });
                if let Some(line) = output {
                    panic!("{at}: this transcript shows output (`{line}`) that nothing compares: mark it `<!-- check: run DIR -->`");
                }
                for command in commands(&block.text) {
                    capc_invocations(&command).iter().for_each(|args| parses(&at, args));
                }
            }
            "sh" => {
                for command in block.text.lines().filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#')) {
                    capc_invocations(command).iter().for_each(|args| parses(&at, args));
                }
            }
            "toml" => check_toml(&at, &block.text),
            "json" => {
                let value: serde_json::Value =
                    serde_json::from_str(&block.text).unwrap_or_else(|e| panic!("{at}: not JSON: {e}\n{}", block.text));
                json_command_lines(&value).iter().for_each(|args| parses(&at, args));
            }
            "yaml" => {
                let value: serde_yaml::Value =
                    serde_yaml::from_str(&block.text).unwrap_or_else(|e| panic!("{at}: not YAML: {e}\n{}", block.text));
                yaml_command_lines(&value).iter().for_each(|args| parses(&at, args));
            }
            "js" => check_js(&at, &block.text),
            other => panic!(
                "{at}: a ```{other} block that no test checks: mark it (`<!-- check: output DIR: ARGS -->`, `<!-- check: by PATH -->`) or remove it"
            ),
        },
    }
}

/// A scratch copy of `dir`: a folder of the repository, or `corpora/NAME`.
fn scratch(dir: &str) -> tempfile::TempDir {
    let from = match dir.strip_prefix("corpora") {
        Some(name) if name.is_empty() || name.starts_with('/') => {
            crate::support::corpora_path().join(name.trim_start_matches('/'))
        }
        _ => repo().join(dir),
    };
    assert!(from.is_dir(), "`{}` is not a folder", from.display());
    let tmp = tempfile::tempdir().expect("tempdir");
    crate::support::copy_tree(&from, tmp.path());
    tmp
}

/// `capc ARGS` in `dir`, 100 columns, no colour: stdout, then stderr.
fn run_capc(dir: &Path, args: &[String]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_capc"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("COLUMNS", "100")
        .env("HOME", dir)
        .stdin(Stdio::null())
        .output()
        .expect("capc runs");
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// A transcript: `$ ` lines (with their `\\` continuations) run by `sh` in a scratch copy of
/// `dir`, each followed by its output. `capc` is the binary under test; the folder is a git
/// repository with one commit when the transcript runs git; HOME is an empty folder; when the
/// folder's `.mcp.json` starts `mcp-server-everything`, the test servers' commands are on PATH.
fn run_transcript(block: &Block, dir: &str) {
    let at = format!("{}:{}", block.file, block.line);
    let scratch = scratch(dir);
    let tools = tempfile::tempdir().expect("tempdir");
    let home = tempfile::tempdir().expect("tempdir");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_capc"), tools.path().join("capc")).expect("link capc");
    let servers = needs_everything(dir).then(everything_bin);
    let path = std::env::join_paths(
        std::iter::once(tools.path().to_path_buf())
            .chain(servers)
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .expect("PATH");
    let mut steps: Vec<(String, String)> = Vec::new();
    let mut continued = false;
    for line in block.text.lines() {
        if std::mem::replace(&mut continued, line.trim_end().ends_with('\\')) {
            let (command, _) = steps.last_mut().expect("a command before its continuation");
            command.push('\n');
            command.push_str(line);
            continue;
        }
        match line.strip_prefix("$ ") {
            Some(command) => steps.push((command.to_string(), String::new())),
            None => {
                let (_, expected) = steps.last_mut().unwrap_or_else(|| panic!("{at}: a transcript starts with `$ `"));
                expected.push_str(line);
                expected.push('\n');
            }
        }
    }
    let sh = |command: &str| {
        Command::new("sh")
            .arg("-c")
            .arg(command)
            .current_dir(scratch.path())
            .env("PATH", &path)
            .env("HOME", home.path())
            .env("NO_COLOR", "1")
            .env("COLUMNS", "100")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "capc docs")
            .env("GIT_AUTHOR_EMAIL", "docs@example.invalid")
            .env("GIT_COMMITTER_NAME", "capc docs")
            .env("GIT_COMMITTER_EMAIL", "docs@example.invalid")
            .stdin(Stdio::null())
            .output()
            .expect("sh runs")
    };
    if steps.iter().any(|(command, _)| command.contains("git ")) {
        let out = sh("git init -q && git add -A && git commit -qm 'the documented tree'");
        assert!(out.status.success(), "{at}: git: {}", String::from_utf8_lossy(&out.stderr));
    }
    for (command, expected) in steps {
        let out = sh(&command);
        let got = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        compare(&format!("{at}: `$ {command}`"), &expected, &got);
    }
}

/// `expected` against `got`, line by line (trailing spaces and blank lines at the end ignored);
/// a line `…` matches any number of lines.
fn compare(at: &str, expected: &str, got: &str) {
    let lines = |text: &'_ str| -> Vec<String> {
        let mut lines: Vec<String> = text.lines().map(|l| l.trim_end().to_string()).collect();
        while lines.last().is_some_and(String::is_empty) {
            lines.pop();
        }
        lines
    };
    let (want, have) = (lines(expected), lines(got));
    let want: Vec<&str> = want.iter().map(String::as_str).collect();
    let have: Vec<&str> = have.iter().map(String::as_str).collect();
    assert!(
        matches(&want, &have),
        "{at}: the documented output is not what it prints.\n--- documented\n{expected}--- printed\n{got}"
    );
}

fn matches(want: &[&str], have: &[&str]) -> bool {
    match want.split_first() {
        None => have.is_empty(),
        Some((first, rest)) if first.trim() == "…" => (0..=have.len()).any(|skip| matches(rest, &have[skip..])),
        Some((first, rest)) => have.split_first().is_some_and(|(h, more)| h == first && matches(rest, more)),
    }
}

/// The command lines of a `console` block: `$ ` lines, with their `\` continuations.
fn commands(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut open: Option<String> = None;
    for line in text.lines() {
        if let Some(mut current) = open.take() {
            current.push(' ');
            current.push_str(line.trim().trim_end_matches('\\'));
            if line.trim_end().ends_with('\\') {
                open = Some(current);
            } else {
                out.push(current);
            }
            continue;
        }
        if let Some(command) = line.strip_prefix("$ ") {
            if command.trim_end().ends_with('\\') {
                open = Some(command.trim_end().trim_end_matches('\\').to_string());
            } else {
                out.push(command.to_string());
            }
        }
    }
    out.extend(open);
    out
}

/// A shell line as simple commands of words: quotes removed, a `#` word ends the line, and
/// `|`, `||`, `&&`, `;` and redirections (with their target) separate or drop words.
fn split_words(line: &str) -> Vec<Vec<String>> {
    let mut commands = vec![Vec::new()];
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars().peekable();
    let mut redirect = false;
    let push = |word: &mut String, in_word: &mut bool, commands: &mut Vec<Vec<String>>, redirect: &mut bool| {
        if *in_word {
            if *redirect {
                *redirect = false;
            } else {
                commands.last_mut().expect("a command").push(std::mem::take(word));
            }
            word.clear();
            *in_word = false;
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    word.push(q);
                }
            }
            '"' => {
                in_word = true;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => word.extend(chars.next()),
                        _ => word.push(q),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.extend(chars.next());
            }
            '#' if !in_word => break,
            ' ' | '\t' => push(&mut word, &mut in_word, &mut commands, &mut redirect),
            '|' | '&' | ';' => {
                push(&mut word, &mut in_word, &mut commands, &mut redirect);
                if chars.peek() == Some(&c) {
                    chars.next();
                }
                commands.push(Vec::new());
            }
            '>' | '<' => {
                // `2>` and `>&2`: the number is part of the redirection.
                if word == "2" || word == "1" {
                    word.clear();
                    in_word = false;
                }
                push(&mut word, &mut in_word, &mut commands, &mut redirect);
                if chars.peek() == Some(&'&') {
                    chars.next();
                    chars.next();
                } else {
                    redirect = true;
                }
            }
            _ => {
                in_word = true;
                word.push(c);
            }
        }
    }
    push(&mut word, &mut in_word, &mut commands, &mut redirect);
    commands.retain(|c| !c.is_empty());
    commands
}

/// Every capc command line in a shell line: `capc ARGS`, `cargo run … -- ARGS`, `… -- capc ARGS`
/// (another tool starting capc); `for V in WORDS; do … $V …` runs once per word; `…` words
/// (more of the same) are dropped.
fn capc_invocations(line: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut loop_var: Option<(String, Vec<String>)> = None;
    for mut words in split_words(line) {
        if words.first().map(String::as_str) == Some("for") && words.get(2).map(String::as_str) == Some("in") {
            loop_var = Some((words[1].clone(), words[3..].to_vec()));
            continue;
        }
        if matches!(words.first().map(String::as_str), Some("do" | "then")) {
            words.remove(0);
        }
        words.retain(|w| w != "…");
        let args = if words.first().map(String::as_str) == Some("capc") {
            Some(words[1..].to_vec())
        } else if words.starts_with(&["cargo".to_string(), "run".to_string()]) {
            words.iter().position(|w| w == "--").map(|p| words[p + 1..].to_vec())
        } else {
            words.windows(2).position(|w| w[0] == "--" && w[1] == "capc").map(|p| words[p + 2..].to_vec())
        };
        let Some(args) = args else { continue };
        match &loop_var {
            Some((var, values)) if args.iter().any(|a| a.contains(&format!("${var}"))) => {
                for value in values {
                    out.push(
                        args.iter().map(|a| a.replace(&format!("${var}"), value)).filter(|a| !a.is_empty()).collect(),
                    );
                }
            }
            _ => out.push(args),
        }
    }
    out
}

/// `capc ARGS --help` exits 0: every option and value of ARGS is one capc takes (clap reads
/// them in order, so a wrong one is refused before `--help` is reached).
fn parses(at: &str, args: &[String]) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = Command::new(env!("CARGO_BIN_EXE_capc"))
        .args(args)
        .arg("--help")
        .current_dir(tmp.path())
        .stdin(Stdio::null())
        .output()
        .expect("capc runs");
    assert!(
        out.status.success(),
        "{at}: `capc {}` is not a command line capc takes:\n{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A TOML block: a baseline is read by `capc check --baseline`, a capc.toml by `capc rules
/// --config`, an editor's or a client's server table by the command line it starts.
fn check_toml(at: &str, text: &str) {
    let value: toml::Value = toml::from_str(text).unwrap_or_else(|e| panic!("{at}: not TOML: {e}\n{text}"));
    let json = serde_json::to_value(&value).expect("TOML as JSON");
    let lines = json_command_lines(&json);
    if !lines.is_empty() {
        return lines.iter().for_each(|args| parses(at, args));
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let (name, args): (&str, &[&str]) = if value.get("finding").is_some() {
        ("capc-baseline.toml", &["check", "--baseline", "capc-baseline.toml", "."])
    } else {
        ("capc.toml", &["rules", "--config"])
    };
    std::fs::write(tmp.path().join(name), text).expect("write");
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let out = Command::new(env!("CARGO_BIN_EXE_capc"))
        .args(&args)
        .current_dir(tmp.path())
        .env("HOME", tmp.path())
        .stdin(Stdio::null())
        .output()
        .expect("capc runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && (name != "capc.toml" || stderr.trim().is_empty()),
        "{at}: `capc {}` with this block as {name}: exit {:?}\n{stderr}",
        args.join(" "),
        out.status.code()
    );
}

/// The capc command lines in a configuration: an object whose `command` (or `path`) is `capc`,
/// with its `args` (or `arguments`).
fn json_command_lines(value: &serde_json::Value) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    match value {
        serde_json::Value::Object(map) => {
            let command = map.get("command").or_else(|| map.get("path")).and_then(|c| c.as_str());
            if command == Some("capc") {
                let args = map.get("args").or_else(|| map.get("arguments")).and_then(|a| a.as_array());
                out.push(args.into_iter().flatten().filter_map(|a| a.as_str().map(String::from)).collect());
            }
            map.values().for_each(|v| out.extend(json_command_lines(v)));
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| out.extend(json_command_lines(v))),
        _ => {}
    }
    out
}

/// The capc command lines of a workflow or a pre-commit configuration: `run:` lines, the
/// `capc-check` hook's `args`, and the action's `with: args:` (both given to `capc check`).
fn yaml_command_lines(value: &serde_yaml::Value) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    match value {
        serde_yaml::Value::Mapping(map) => {
            let get = |k: &str| map.get(serde_yaml::Value::String(k.to_string()));
            if let Some(run) = get("run").and_then(|r| r.as_str()) {
                run.lines().for_each(|l| out.extend(capc_invocations(l)));
            }
            let is_hook = get("id").and_then(|v| v.as_str()) == Some("capc-check");
            let is_action = get("uses").and_then(|v| v.as_str()).is_some_and(|u| u.contains("/capc@"));
            let args = if is_hook {
                get("args")
                    .and_then(|a| a.as_sequence())
                    .map(|a| a.iter().filter_map(|v| v.as_str().map(String::from)).collect())
            } else if is_action {
                get("with")
                    .and_then(|w| w.get("args"))
                    .and_then(|a| a.as_str())
                    .map(|a| without_expressions(a).split_whitespace().map(String::from).collect())
            } else {
                None
            };
            if let Some(args) = args {
                let mut line = vec!["check".to_string()];
                line.extend::<Vec<String>>(args);
                out.push(line);
            }
            map.values().for_each(|v| out.extend(yaml_command_lines(v)));
        }
        serde_yaml::Value::Sequence(items) => items.iter().for_each(|v| out.extend(yaml_command_lines(v))),
        _ => {}
    }
    out
}

/// A workflow's text with each `${{ … }}` expression as the value it has on a pull request to
/// main: `main`.
fn without_expressions(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${{") {
        out.push_str(&rest[..start]);
        match rest[start..].find("}}") {
            Some(end) => {
                out.push_str("main");
                rest = &rest[start + end + 2..];
            }
            None => {
                rest = &rest[start..];
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A JavaScript block: Node.js parses it (`node --check`), and the capc it starts
/// (`command: 'capc', args: [...]`) takes its arguments.
fn check_js(at: &str, text: &str) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let file = tmp.path().join("snippet.js");
    std::fs::write(&file, text).expect("write");
    let out = Command::new("node").arg("--check").arg(&file).output().expect("node runs");
    assert!(out.status.success(), "{at}: Node.js does not parse it:\n{}", String::from_utf8_lossy(&out.stderr));
    let mut found = false;
    for (i, _) in text.match_indices("command: 'capc'") {
        let rest = &text[i..];
        let args = rest.split_once("args: [").and_then(|(_, a)| a.split_once(']')).map(|(a, _)| a).unwrap_or_default();
        let args: Vec<String> =
            args.split(',').map(|a| a.trim().trim_matches('\'').to_string()).filter(|a| !a.is_empty()).collect();
        parses(at, &args);
        found = true;
    }
    assert!(found || !text.contains("capc"), "{at}: it starts capc in a way this test does not read");
}

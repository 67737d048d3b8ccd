//! One input of an oracle scenario run as regen.py ran it: the scenario's folders copied to a
//! scratch folder with their placeholders written as its paths, the input sent as a `turn` to a
//! session in process or through the binary, and the request it says Claude Code sends, with
//! the scratch paths and dates written as an expected file writes them.

use super::{copy_tree, servers_dir, substitute, Scenario, FIELDS};
use capc_runtime::connect::{launches, Settings};
use capc_runtime::loaded::{Loaded, Roots};
use capc_runtime::mcp::Status;
use capc_runtime::session::Session;
use capc_runtime::turn::Entry;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The request capc's session says Claude Code sends for `input`, paths as `<TREE>`/`<HOME>`.
pub(super) fn run(s: &Scenario, input: &str) -> Value {
    let placed = Placed::new(s);
    let input = placed.placed(input);
    let input = input.as_str();
    write_user_config(s, &placed.home, &placed.tree);
    let add_dirs: Vec<PathBuf> = s.add_dirs.iter().map(|d| placed.tree.join(placed.placed(d))).collect();
    let plugin_dirs: Vec<PathBuf> = s.plugin_dirs.iter().map(|d| placed.tree.join(d)).collect();
    let (tree, home, managed) = (&placed.tree, &placed.home, &placed.managed);
    if through_cli(s) {
        let outside = s.dir.join("outside").is_dir().then_some(placed.outside.as_path());
        return run_cli(s, input, tree, home, &add_dirs, &plugin_dirs, managed.as_deref(), outside);
    }
    let mut session = session(s, &placed, add_dirs, plugin_dirs);
    let live = connect_started(&mut session);
    let request = json!({"id": 1, "type": "turn", "input": input, "context": s.context, "include": ["request"]});
    let response = capc_runtime::protocol::handle(&mut session, &request.to_string());
    if let Some(live) = live {
        live.shutdown();
    }
    assert_eq!(response["ok"], true, "{}: {input}: {response}", s.name);
    let mut paths = vec![(tree.as_path(), "<TREE>"), (home.as_path(), "<HOME>")];
    if let Some(managed) = managed {
        paths.push((managed.as_path(), "/etc/claude-code"));
    }
    if s.dir.join("outside").is_dir() {
        paths.push((placed.outside.as_path(), "<OUTSIDE>"));
    }
    normalized(response["request"].to_string(), &paths)
}

/// A scenario's folders copied into a scratch folder (removed when dropped), the placeholders
/// of their `*.json` files written as the scratch paths.
struct Placed {
    _scratch: tempfile::TempDir,
    tree: PathBuf,
    home: PathBuf,
    /// A folder beside the tree, outside it: an `--add-dir` the user names there.
    outside: PathBuf,
    /// The managed settings, which the recording placed in /etc/claude-code.
    managed: Option<PathBuf>,
    /// Each placeholder with its scratch path.
    mapping: Vec<(&'static str, String)>,
}

impl Placed {
    /// Copies the scenario's tree (or its corpus's), home, `outside` and `managed` folders.
    fn new(s: &Scenario) -> Placed {
        let scratch = tempfile::tempdir().expect("tempdir");
        let base = scratch.path().canonicalize().expect("canonical scratch");
        let (tree, home) = (base.join("tree"), base.join("home"));
        if let Some(corpus) = &s.corpus_tree {
            copy_tree(&crate::support::corpora_path().join(corpus), &tree);
            writable(&tree);
        } else if s.dir.join("tree").is_dir() {
            copy_tree(&s.dir.join("tree"), &tree);
        } else {
            std::fs::create_dir_all(&tree).expect("tree");
        }
        if s.dir.join("home").is_dir() {
            copy_tree(&s.dir.join("home"), &home);
        } else {
            std::fs::create_dir_all(&home).expect("home");
        }
        let outside = base.join("outside");
        let mut mapping = vec![
            ("<TREE>", tree.to_string_lossy().into_owned()),
            ("<HOME>", home.to_string_lossy().into_owned()),
            ("<SERVERS>", servers_dir().to_string_lossy().into_owned()),
        ];
        if s.dir.join("outside").is_dir() {
            copy_tree(&s.dir.join("outside"), &outside);
            mapping.push(("<OUTSIDE>", outside.to_string_lossy().into_owned()));
            substitute(&outside, &mapping);
        }
        substitute(&tree, &mapping);
        substitute(&home, &mapping);
        let managed = s.dir.join("managed").is_dir().then(|| {
            let managed = base.join("managed");
            copy_tree(&s.dir.join("managed"), &managed);
            substitute(&managed, &mapping);
            managed
        });
        Placed { _scratch: scratch, tree, home, outside, managed, mapping }
    }

    /// `text` with `<TREE>` and `<OUTSIDE>` (in an input or a folder) naming the scratch
    /// folders, as in regen.py.
    fn placed(&self, text: &str) -> String {
        let mut text = text.to_string();
        for (key, value) in self.mapping.iter().filter(|(k, _)| matches!(*k, "<TREE>" | "<OUTSIDE>")) {
            text = text.replace(key, value);
        }
        text
    }
}

/// Gives the user's `.claude.json` in `home` the scenario's trust and MCP approvals for `tree`.
fn write_user_config(s: &Scenario, home: &Path, tree: &Path) {
    let config_path = home.join(".claude.json");
    let mut config: Value = std::fs::read_to_string(&config_path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_else(|| json!({}));
    let project = &mut config["projects"][tree.to_string_lossy().as_ref()];
    if !project.is_object() {
        *project = json!({});
    }
    if s.trusted {
        project["hasTrustDialogAccepted"] = json!(true);
    }
    if !s.approve_mcp.is_empty() {
        project["enabledMcpjsonServers"] = json!(s.approve_mcp);
    }
    std::fs::write(&config_path, serde_json::to_string_pretty(&config).expect("json")).expect("write .claude.json");
}

/// A session in process on the lock of the placed tree (home as `--user-dir`), trusted as the
/// user's own `.claude.json` says.
fn session(s: &Scenario, placed: &Placed, add_dirs: Vec<PathBuf>, plugin_dirs: Vec<PathBuf>) -> Session {
    let (tree, home, managed) = (&placed.tree, &placed.home, &placed.managed);
    let options = capc_compiler::Options {
        root: tree.clone(),
        user_dir: Some(home.clone()),
        managed_dir: managed.clone(),
        add_dirs: add_dirs.clone(),
        plugin_dirs: plugin_dirs.clone(),
        add_dir_instructions: s.add_dir_instructions,
        ..Default::default()
    };
    let lock = capc_compiler::check(&options).expect("the scratch tree exists").lock();
    let roots = Roots {
        root: tree.clone(),
        user_dir: Some(home.clone()),
        managed_dir: managed.clone(),
        add_dirs,
        plugin_dirs,
        add_dir_instructions: s.add_dir_instructions,
    };
    let mut loaded = Loaded::new(lock, roots);
    loaded.start = s.cwd.clone().unwrap_or_default();
    let mut session = Session::new(loaded);
    // Trusted as a user's session is: when their own `.claude.json` (the scenario's home) says so.
    session.trusted = session.loaded.roots.user_trusts();
    session.run_untrusted = s.run_untrusted;
    session
}

/// Connects the session's MCP servers, when it has any, and waits (up to a minute) until those
/// a headless session starts are no longer pending.
fn connect_started(session: &mut Session) -> Option<capc_runtime::connect::Live> {
    if session.loaded.lock.mcp_servers.is_empty() {
        return None;
    }
    // The servers a headless session starts (a whole-server deny keeps one from starting).
    let started: Vec<String> = launches(&session.loaded.lock, |_| None, Entry::Headless, session.trusted)
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    let live = session.connect(Settings::from_env(|_| None), Entry::Headless).expect("connections start");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        session.sync();
        let waiting = session.mcp.servers().any(|s| started.contains(&s.name) && s.status == Status::Pending);
        if !waiting || Instant::now() > deadline {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Some(live)
}

/// Gives the owner write access to every folder and file under `root` (a copy of the read-only
/// corpora), as a checkout is: capc may write its lock there, and the copy can be removed.
fn writable(root: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let Ok(meta) = std::fs::symlink_metadata(root) else { return };
        if meta.file_type().is_symlink() {
            return;
        }
        let mode = meta.permissions().mode() | if meta.is_dir() { 0o700 } else { 0o600 };
        std::fs::set_permissions(root, std::fs::Permissions::from_mode(mode)).expect("make the copy writable");
        if meta.is_dir() {
            for entry in std::fs::read_dir(root).expect("read the copy").flatten() {
                writable(&entry.path());
            }
        }
    }
}

/// Whether a scenario runs through the binary ([`run_cli`]) rather than in process: one with
/// real plugins or a real project, one started in a subfolder (`capc session --cwd`), and
/// every instruction-file scenario (`instructions-*`), as users run them.
fn through_cli(s: &Scenario) -> bool {
    !s.corpus_plugin_dirs.is_empty()
        || s.corpus_tree.is_some()
        || s.cwd.is_some()
        || s.name.starts_with("instructions-")
}

/// The request of a scenario as a user gets it ([`through_cli`]): `capc lock` of the tree with
/// the scenario's folders (`--add-dir`, `--plugin-dir`, real plugins from the corpora outside
/// the tree, `--user-dir`, `--managed-dir`), then `capc session` from that lock with the same
/// options (and `--cwd`), the input sent as one `turn` line, with
/// `CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD` as the recording had it. A lock capc refuses
/// is a difference too: every field then says so.
#[allow(clippy::too_many_arguments)]
fn run_cli(
    s: &Scenario,
    input: &str,
    tree: &Path,
    home: &Path,
    add_dirs: &[PathBuf],
    plugin_dirs: &[PathBuf],
    managed: Option<&Path>,
    outside: Option<&Path>,
) -> Value {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    let corpora = crate::support::corpora_path().canonicalize().expect("the corpora folder");
    let mut options: Vec<PathBuf> = Vec::new();
    for dir in add_dirs {
        options.extend([PathBuf::from("--add-dir"), dir.clone()]);
    }
    let real = s.corpus_plugin_dirs.iter().map(|d| corpora.join(d));
    for dir in plugin_dirs.iter().cloned().chain(real) {
        options.extend([PathBuf::from("--plugin-dir"), dir]);
    }
    options.extend([PathBuf::from("--user-dir"), home.to_path_buf()]);
    if let Some(managed) = managed {
        options.extend([PathBuf::from("--managed-dir"), managed.to_path_buf()]);
    }
    let capc = || {
        let mut command = Command::new(env!("CARGO_BIN_EXE_capc"));
        command.env("NO_COLOR", "1").env("HOME", home).env_remove("CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD");
        if s.add_dir_instructions {
            command.env("CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD", "1");
        }
        command
    };
    let lock = capc().arg("lock").arg(tree).args(&options).arg("--quiet").output().expect("capc lock runs");
    if !lock.status.success() {
        let why = format!(
            "capc lock refused the tree: {}{}",
            String::from_utf8_lossy(&lock.stdout),
            String::from_utf8_lossy(&lock.stderr)
        );
        assert!(s.corpus_tree.is_some(), "{}: {why}", s.name);
        return FIELDS
            .iter()
            .chain(&["sent"])
            .map(|f| (f.to_string(), json!(why)))
            .collect::<serde_json::Map<_, _>>()
            .into();
    }
    let mut child = capc()
        .arg("session")
        .arg(tree)
        .args(&options)
        .args(s.run_untrusted.then_some(["--untrusted-injections", "run"]).into_iter().flatten())
        .args(s.cwd.iter().flat_map(|cwd| ["--cwd", cwd.as_str()]))
        .arg("--json")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("capc session runs");
    let request = json!({"id": 1, "type": "turn", "input": input, "context": s.context, "include": ["request"]});
    writeln!(child.stdin.take().expect("stdin"), "{request}").expect("write the turn");
    let out = child.wait_with_output().expect("capc session ends");
    assert!(out.status.success(), "{}: capc session: {}", s.name, String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout.lines().next().unwrap_or_else(|| panic!("{}: capc session answered nothing", s.name));
    let response: Value = serde_json::from_str(line).expect("a JSON response");
    assert_eq!(response["ok"], true, "{}: {input}: {response}", s.name);
    let mut paths = vec![(tree, "<TREE>"), (home, "<HOME>"), (corpora.as_path(), "<CORPORA>")];
    if let Some(managed) = managed {
        paths.push((managed, "/etc/claude-code"));
    }
    if let Some(outside) = outside {
        paths.push((outside, "<OUTSIDE>"));
    }
    normalized(response["request"].to_string(), &paths)
}

/// The JSON `text` of a request with each scratch path written as its name (the longest first,
/// so no path hides another) and its dates as `<DATE>`: the shape of an expected file.
fn normalized(mut text: String, paths: &[(&Path, &str)]) -> Value {
    let mut paths: Vec<(String, &str)> =
        paths.iter().map(|(p, name)| (p.to_string_lossy().into_owned(), *name)).collect();
    paths.sort_by_key(|(path, _)| std::cmp::Reverse(path.len()));
    for (path, name) in &paths {
        text = text.replace(path.as_str(), name);
    }
    serde_json::from_str(&stamps(&dates(&text))).expect("still JSON")
}

/// `text` with every time stamp `date -u +%Y%m%d-%H%M%S` prints (`20YYMMDD-HHMMSS` between
/// word boundaries) written `<STAMP>`, as regen.py writes it.
fn stamps(text: &str) -> String {
    let bytes = text.as_bytes();
    let word = |i: usize| bytes.get(i).is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_');
    let shape = |i: usize| {
        bytes[i..].starts_with(b"20")
            && (0..15).all(|j| if j == 8 { bytes[i + j] == b'-' } else { bytes[i + j].is_ascii_digit() })
    };
    let (mut out, mut i, mut kept) = (String::with_capacity(text.len()), 0, 0);
    while i + 15 <= bytes.len() {
        if shape(i) && (i == 0 || !word(i - 1)) && !word(i + 15) {
            out.push_str(&text[kept..i]);
            out.push_str("<STAMP>");
            i += 15;
            kept = i;
        } else {
            i += 1;
        }
    }
    out.push_str(&text[kept..]);
    out
}

/// `text` with every date (`20YY-MM-DD` between word boundaries) written `<DATE>`, as regen.py
/// writes what Claude Code sent (its own date reminders vary from run to run).
fn dates(text: &str) -> String {
    let bytes = text.as_bytes();
    let word = |i: usize| bytes.get(i).is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_');
    let shape = |i: usize| {
        let d = |j: usize| bytes.get(i + j).is_some_and(u8::is_ascii_digit);
        bytes[i..].starts_with(b"20")
            && d(2)
            && d(3)
            && bytes.get(i + 4) == Some(&b'-')
            && d(5)
            && d(6)
            && bytes.get(i + 7) == Some(&b'-')
            && d(8)
            && d(9)
    };
    let (mut out, mut i, mut kept) = (String::with_capacity(text.len()), 0, 0);
    while i + 10 <= bytes.len() {
        if shape(i) && (i == 0 || !word(i - 1)) && !word(i + 10) {
            out.push_str(&text[kept..i]);
            out.push_str("<DATE>");
            i += 10;
            kept = i;
        } else {
            i += 1;
        }
    }
    out.push_str(&text[kept..]);
    out
}

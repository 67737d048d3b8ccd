//! `capc`: the capability compiler for Claude Code. Each subcommand parses its flags,
//! calls one library function and maps the outcome to an exit code:
//! 0 clean (warnings allowed), 1 errors found, 2 capc itself could not run.

use capc_compiler::lock::{view, write};
use capc_compiler::{report, rules, Checked, Options};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

mod diff;
mod verify;

#[derive(Parser)]
#[command(name = "capc", version, about = "The capability compiler for Claude Code", long_about = None)]
#[command(
    after_help = "Run `capc check` in a repository to lint its skills, commands, agents, plugins, marketplaces, MCP configs and settings."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check every Claude Code declaration under PATH and report what is wrong
    ///
    /// Finds projects (`.claude/`, `.mcp.json`), plugins (`.claude-plugin/plugin.json` or a
    /// folder a marketplace names), marketplaces and skill collections. Exits 0 when no
    /// error was found (warnings allowed), 1 when errors were found, 2 when capc could not run.
    Check {
        /// The folder to check
        #[arg(default_value = ".")]
        path: PathBuf,
        /// Output format: `human` (annotated source) or `json` (stable, version 1)
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
        #[command(flatten)]
        scopes: Scopes,
        /// When to color human output
        #[arg(long, value_enum, default_value_t = Color::Auto)]
        color: Color,
        /// Print the declaration files found (path, kind and, for skills, commands and agents, the name
        /// Claude Code gives them; tab-separated) instead of diagnostics
        #[arg(long)]
        list_files: bool,
    },
    /// Resolve names and precedence and write PATH/capabilities.lock
    ///
    /// Checks PATH as `capc check` does, resolves which skill, command, agent and MCP server
    /// each name reaches (and what it hides), and writes the result with a SHA-256 of every
    /// source file. The file is rewritten only when its content changes. Refuses to write
    /// when the check finds errors. Exits 0 when written or unchanged, 1 on errors or (with
    /// --check) a stale or missing lock, 2 when capc could not run.
    Lock {
        /// The folder to lock
        #[arg(default_value = ".")]
        path: PathBuf,
        /// Write nothing; exit 1 with a diff when the lock on disk is not what `capc lock` would write
        #[arg(long)]
        check: bool,
        #[command(flatten)]
        scopes: Scopes,
    },
    /// Print the resolved command table in lookup order, then agents, MCP servers and tools
    ///
    /// Hidden (shadowed) entries are listed too, with what hides them. In human output,
    /// built-ins nothing hides are summarised (use --all); JSON lists everything.
    Ls {
        /// The folder to resolve
        #[arg(default_value = ".")]
        path: PathBuf,
        /// Output format: `human` or `json` (stable, version 1)
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
        /// List every built-in command and bundled skill too
        #[arg(long)]
        all: bool,
        #[command(flatten)]
        scopes: Scopes,
    },
    /// Show every candidate for a name, the winner first, and the rule that decided
    ///
    /// NAME may be a command (`deploy`, `/deploy`, `my-plugin:review`), an agent, an MCP
    /// server (`github` or `mcp__github`), a built-in tool or a permission rule.
    Explain {
        /// The name to explain
        name: String,
        /// The folder to resolve
        #[arg(default_value = ".")]
        path: PathBuf,
        #[command(flatten)]
        scopes: Scopes,
    },
    /// Print the resolution graph: declarations and who shadows, removes or pre-empts whom
    Graph {
        /// The folder to resolve
        #[arg(default_value = ".")]
        path: PathBuf,
        /// `dot` (Graphviz: `capc graph | dot -Tsvg > graph.svg`) or `json` (version 1)
        #[arg(long, value_enum, default_value_t = GraphFormat::Dot)]
        format: GraphFormat,
        /// Show every built-in command, bundled skill and tool, not only those something touches
        #[arg(long)]
        all: bool,
        #[command(flatten)]
        scopes: Scopes,
    },
    /// Run a session from a lock: newline-delimited JSON on stdin/stdout, or a REPL on a terminal
    ///
    /// Loads capabilities.lock (not the source tree) and answers requests, one JSON object per
    /// line: `turn` (input text and context → the command table, Skill listing, tool pool and
    /// what the input does), `invoke_skill`, `tool_search`, `mcp_update`, `status`. Each
    /// response names the request it answers; a malformed request gets an error response and
    /// the session goes on. On a terminal it is a small REPL: `/cmd args`, `:tools`,
    /// `:commands`, `:skills`, `:why NAME`, `:touch PATH`, `:status`, `:quit`.
    Session {
        /// The lock to run from (its folder is the project root)
        #[arg(long, value_name = "FILE", default_value = "capabilities.lock")]
        lock: PathBuf,
        /// Re-hash every source first and refuse a stale lock, naming the file that changed
        #[arg(long)]
        verify: bool,
        /// Do not run `!` shell injections, even when the permission rules allow them
        #[arg(long)]
        no_shell: bool,
        /// The REPL even when stdin is not a terminal (to script it); `--json` the protocol even on one
        #[arg(long, conflicts_with = "json")]
        repl: bool,
        /// Speak the JSON protocol even on a terminal
        #[arg(long)]
        json: bool,
        /// Connect the lock's MCP servers (stdio and Streamable HTTP; approved ones; `${VAR}` from
        /// the environment) and keep their tools live; without it, server states come only from
        /// `mcp_update` requests
        ///
        /// Remote servers that go away are reconnected (5 attempts, 1 s doubling); `status` says
        /// why a server failed. Claude Code's variables apply: MCP_TIMEOUT (start-up timeout in
        /// ms, 30000), MCP_SERVER_CONNECTION_BATCH_SIZE (3 stdio servers connecting at once),
        /// MCP_REMOTE_SERVER_CONNECTION_BATCH_SIZE (20), MCP_PROTOCOL_NEGOTIATION=legacy (skip
        /// `server/discover`).
        #[arg(long)]
        connect: bool,
        #[command(flatten)]
        scopes: Scopes,
    },
    /// Compare the capabilities of two versions, for reviewing a change
    ///
    /// OLD and NEW are each a lock file, a folder (checked and resolved as `capc lock` would,
    /// nothing written) or a git revision of the repository holding the folder compared (its
    /// committed capabilities.lock, else its tree at that revision, resolved). Reports added,
    /// removed, changed and rerouted commands, agents, MCP servers, hooks, permission rules,
    /// plugins and pins, with the files that cause each, and marks escalations: changes that
    /// give Claude Code more power than before. Exits 0, 1 when --fail-on names a class of
    /// change found, 2 when a side cannot be read.
    Diff {
        /// The older side: a lock file, a folder or a git revision
        #[arg(default_value = "HEAD")]
        old: String,
        /// The newer side: a lock file, a folder or a git revision
        #[arg(default_value = ".")]
        new: String,
        /// `human`, `json` (stable, version 1) or `markdown` (a pull-request comment)
        #[arg(long, value_enum, default_value_t = diff::DiffFormat::Human)]
        format: diff::DiffFormat,
        /// Exit 1 when a change of these classes is found (comma-separated)
        #[arg(long, value_enum, value_delimiter = ',', value_name = "CLASSES")]
        fail_on: Vec<diff::FailOnArg>,
    },
    /// Compare the plugins a user installed with what a repository locked
    ///
    /// Reads only HOME/.claude/plugins/installed_plugins.json, known_marketplaces.json and the
    /// plugin cache folders they point to. For each locked plugin that is installed: the
    /// version, the pinned commit and the installed copy's declaration files (hashed as
    /// `capc lock` hashes them) must match the lock, file by file; each marketplace the lock's
    /// settings declare must be known from the same source. Exits 0 when everything installed
    /// matches, 1 on drift, 2 when capc could not run.
    Verify {
        /// The lock, or the folder holding it
        #[arg(default_value = ".")]
        path: PathBuf,
        /// The home folder whose installed plugins are compared (default: $HOME)
        #[arg(long, value_name = "DIR")]
        user_dir: Option<PathBuf>,
    },
    /// List every rule, or print one rule's documentation
    Rules {
        /// A rule id such as `invalid-json`
        id: Option<String>,
    },
}

/// Scopes outside PATH; nothing outside PATH is read unless one is given.
#[derive(Args, Clone, Default)]
struct Scopes {
    /// Also read a user scope: a home folder whose `.claude/` holds skills, commands, agents and
    /// settings, and whose `.claude.json` holds user MCP servers
    #[arg(long, value_name = "DIR")]
    user_dir: Option<PathBuf>,
    /// Also read a managed scope: the folder of `managed-settings.json` and `managed-mcp.json`
    /// (`/etc/claude-code` on Linux)
    #[arg(long, value_name = "DIR")]
    managed_dir: Option<PathBuf>,
    /// Also read the skills of DIR/.claude/skills, as `claude --add-dir DIR` does (repeatable)
    #[arg(long, value_name = "DIR")]
    add_dir: Vec<PathBuf>,
    /// Load the plugin in DIR, as `claude --plugin-dir DIR` does (repeatable; in order, before
    /// the plugins settings enable)
    #[arg(long, value_name = "DIR")]
    plugin_dir: Vec<PathBuf>,
}

impl Scopes {
    /// Options for a command that writes no lock (no source hashes).
    fn options(self, root: PathBuf) -> Options {
        Options {
            root,
            user_dir: self.user_dir,
            managed_dir: self.managed_dir,
            add_dirs: self.add_dir,
            plugin_dirs: self.plugin_dir,
            skip_hashes: true,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum GraphFormat {
    Dot,
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Human,
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum Color {
    Auto,
    Always,
    Never,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Check { path, format, scopes, color, list_files } => {
            check(scopes.options(path), format, color, list_files)
        }
        Command::Lock { path, check, scopes } => lock(Options { skip_hashes: false, ..scopes.options(path) }, check),
        Command::Ls { path, format, all, scopes } => ls(scopes.options(path), format, all),
        Command::Explain { name, path, scopes } => explain(scopes.options(path), &name),
        Command::Graph { path, format, all, scopes } => graph(scopes.options(path), format, all),
        Command::Session { lock, verify, no_shell, repl, json, connect, scopes } => {
            let repl = repl || (!json && std::io::stdin().is_terminal());
            session(lock, verify, no_shell, repl, connect, scopes)
        }
        Command::Diff { old, new, format, fail_on } => diff::run(&old, &new, format, &fail_on),
        Command::Verify { path, user_dir } => verify::run(&path, user_dir),
        Command::Rules { id } => rules_command(id.as_deref()),
    }
}

/// Runs a check, or says why it could not run.
fn run_check(options: &Options) -> Result<Checked, ExitCode> {
    capc_compiler::check(options).map_err(|e| {
        eprintln!("error: {e}");
        ExitCode::from(2)
    })
}

fn use_color(color: Color, terminal: bool) -> bool {
    match color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => terminal && std::env::var_os("NO_COLOR").is_none(),
    }
}

fn exit(result: std::io::Result<()>, code: u8) -> ExitCode {
    if result.is_err() {
        ExitCode::from(2)
    } else {
        ExitCode::from(code)
    }
}

fn lock(options: Options, check_only: bool) -> ExitCode {
    let mut checked = match run_check(&options) {
        Ok(c) => c,
        Err(code) => return code,
    };
    // Errors block the lock and the whole report is shown; otherwise warnings are only
    // counted (`capc check` shows them), so a lock run stays short and quick.
    if checked.has_errors() {
        let text = report::to_text(&checked, use_color(Color::Auto, std::io::stderr().is_terminal()), terminal_width());
        eprint!("{text}");
        eprintln!("error: not writing {}: fix the errors above first", write::FILE_NAME);
        return ExitCode::from(1);
    }
    let warnings = checked.count(capc_compiler::Severity::Warning);
    if warnings > 0 {
        eprintln!(
            "warning: {warnings} warning{} in the declarations; `capc check {}` shows them",
            if warnings == 1 { "" } else { "s" },
            options.root.display()
        );
    }
    let lock = checked.take_lock();
    let text = write::encode(&lock);
    let path = options.root.join(write::FILE_NAME);
    if check_only {
        return match std::fs::read_to_string(&path) {
            Ok(old) if old == text => {
                eprintln!("{} is up to date", path.display());
                ExitCode::SUCCESS
            }
            Ok(old) => {
                let diff = write::diff(&old, &text, write::FILE_NAME);
                eprintln!("error: {} is stale; run `capc lock` to update it", path.display());
                exit(write_stdout(&diff), 1)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                eprintln!("error: {} does not exist; run `capc lock` to create it", path.display());
                ExitCode::from(1)
            }
            Err(e) => {
                eprintln!("error: cannot read {}: {e}", path.display());
                ExitCode::from(2)
            }
        };
    }
    match write::write(&path, &text) {
        Ok(written) => {
            let verb = match written {
                write::Written::Unchanged => "unchanged",
                write::Written::Created => "created",
                write::Written::Updated => "updated",
            };
            eprintln!(
                "{} {verb}: {} commands, {} agents, {} MCP servers, {} hooks, {} permission rules from {} files",
                path.display(),
                lock.commands.len(),
                lock.agents.len(),
                lock.mcp_servers.len(),
                lock.hooks.len(),
                lock.permissions.len(),
                lock.sources.len()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: cannot write {}: {e}", path.display());
            ExitCode::from(2)
        }
    }
}

fn session(lock: PathBuf, verify: bool, no_shell: bool, repl: bool, connect: bool, scopes: Scopes) -> ExitCode {
    use capc_runtime::loaded::{Loaded, Roots};
    let root =
        lock.parent().filter(|p| !p.as_os_str().is_empty()).map(PathBuf::from).unwrap_or_else(|| PathBuf::from("."));
    let roots = Roots {
        root,
        user_dir: scopes.user_dir,
        managed_dir: scopes.managed_dir,
        add_dirs: scopes.add_dir,
        plugin_dirs: scopes.plugin_dir,
    };
    let loaded = match Loaded::from_file(&lock, roots) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if verify {
        if let Err(e) = loaded.verify() {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    }
    let mut session = capc_runtime::session::Session::new(loaded);
    session.run_shell = !no_shell;
    let live = if connect {
        match capc_runtime::connect::Live::start(
            &mut session,
            capc_runtime::connect::Settings::from_env(|name| std::env::var(name).ok()),
        ) {
            Ok(live) => Some(live),
            Err(e) => {
                eprintln!("error: cannot start the MCP connections: {e}");
                return ExitCode::from(2);
            }
        }
    } else {
        None
    };
    // Without live connections, a signal still ends a running `!` injection's process group.
    let _signals = if live.is_none() { capc_runtime::connect::Signals::install().ok() } else { None };
    let result = if repl {
        capc_runtime::repl::run(&mut session, std::io::stdin().lock(), std::io::stdout().lock())
    } else {
        capc_runtime::protocol::serve(&mut session, std::io::stdin().lock(), std::io::stdout().lock())
    };
    if let Some(live) = live {
        live.shutdown();
    }
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn resolution(checked: &Checked) -> &capc_compiler::lock::resolve::Resolution {
    // `check` always resolves; this is set whenever a check returned.
    checked.resolution.as_ref().unwrap_or_else(|| unreachable!("check() resolves"))
}

fn ls(options: Options, format: Format, all: bool) -> ExitCode {
    let checked = match run_check(&options) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let r = resolution(&checked);
    let text = match format {
        Format::Json => view::ls_json(r),
        Format::Human => view::ls_text(r, all),
    };
    exit(write_stdout(&text), 0)
}

fn explain(options: Options, name: &str) -> ExitCode {
    let checked = match run_check(&options) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let r = resolution(&checked);
    match view::explain(r, name) {
        Some(text) => exit(write_stdout(&text), 0),
        None => {
            let bare = name.trim_start_matches('/');
            let names = view::names(r);
            match capc_compiler::diagnostic::did_you_mean(bare, names.iter().map(String::as_str)) {
                Some(s) => eprintln!("error: nothing here is named `{bare}`; did you mean `{s}`?"),
                None => eprintln!("error: nothing here is named `{bare}`; `capc ls` lists every name"),
            }
            ExitCode::from(1)
        }
    }
}

fn graph(options: Options, format: GraphFormat, all: bool) -> ExitCode {
    let checked = match run_check(&options) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let r = resolution(&checked);
    let text = match format {
        GraphFormat::Dot => view::graph_dot(r, all),
        GraphFormat::Json => view::graph_json(r, all),
    };
    exit(write_stdout(&text), 0)
}

fn check(options: Options, format: Format, color: Color, list_files: bool) -> ExitCode {
    let checked = match run_check(&options) {
        Ok(c) => c,
        Err(code) => return code,
    };
    if list_files {
        let listing: String = checked
            .files
            .iter()
            .map(|f| match &f.name {
                Some(name) => format!("{}\t{}\t{name}\n", f.path, f.kind.as_str()),
                None => format!("{}\t{}\n", f.path, f.kind.as_str()),
            })
            .collect();
        return if write_stdout(&listing).is_ok() { ExitCode::SUCCESS } else { ExitCode::from(2) };
    }
    let output = match format {
        Format::Json => report::to_json(&checked),
        Format::Human => report::to_text(&checked, use_color(color, std::io::stdout().is_terminal()), terminal_width()),
    };
    if write_stdout(&output).is_err() {
        return ExitCode::from(2);
    }
    if checked.has_errors() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn terminal_width() -> usize {
    std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()).unwrap_or(100)
}

fn rules_command(id: Option<&str>) -> ExitCode {
    let output = match id {
        None => {
            let width = rules::RULES.iter().map(|r| r.id.len()).max().unwrap_or(0);
            rules::RULES
                .iter()
                .map(|r| format!("{:width$}  {:7}  {}\n", r.id, r.severity.as_str(), r.summary))
                .collect::<String>()
        }
        Some(id) => match rules::find(id) {
            Some(rule) => format!(
                "# {}\n\nDefault severity: {}. {}.\n\n{}",
                rule.id,
                rule.severity.as_str(),
                capitalize(rule.summary),
                rule.docs
            ),
            None => {
                let suggestion = capc_compiler::diagnostic::did_you_mean(id, rules::RULES.iter().map(|r| r.id));
                match suggestion {
                    Some(s) => eprintln!("error: no rule `{id}`; did you mean `{s}`?"),
                    None => eprintln!("error: no rule `{id}`; `capc rules` lists them all"),
                }
                return ExitCode::from(2);
            }
        },
    };
    if write_stdout(&output).is_err() {
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}

fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    chars.next().map(|c| c.to_uppercase().collect::<String>() + chars.as_str()).unwrap_or_default()
}

/// Writes to stdout; a closed pipe (`capc check | head`) is not an error worth a panic.
pub(crate) fn write_stdout(text: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

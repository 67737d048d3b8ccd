//! `capc`: the capability compiler for Claude Code. Each subcommand parses its flags,
//! calls one library function and maps the outcome to an exit code:
//! 0 clean (warnings allowed), 1 errors found, 2 capc itself could not run.

use capc_compiler::config::{Config, ConfigError};
use capc_compiler::lock::{view, write};
use capc_compiler::plural::count;
use capc_compiler::target::Target;
use capc_compiler::{fix, printable, report, rules, Checked, Options};
use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

mod compare;
/// `-q/--quiet` was given: [`say!`] prints nothing.
static QUIET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

pub(crate) fn quiet() -> bool {
    QUIET.load(std::sync::atomic::Ordering::Relaxed)
}

/// `eprintln!` for capc's own notes, hints and summaries: silenced by `-q/--quiet`. Errors
/// use `eprintln!`.
macro_rules! say {
    ($($arg:tt)*) => {
        if !crate::quiet() {
            eprintln!($($arg)*);
        }
    };
}

mod diff;
mod output;
mod verify;

use output::{run_check, shown, write_stdout};

/// `capc --version`: capc's version and the Claude Code version its rules follow.
static VERSION: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!("{} (follows Claude Code {})", env!("CARGO_PKG_VERSION"), capc_compiler::model::CLAUDE_CODE_VERSION)
});

#[derive(Parser)]
#[command(name = "capc", version = VERSION.as_str(), about = "The capability compiler for Claude Code", long_about = None)]
#[command(
    after_help = "Run `capc check` in a repository to lint its skills, commands, agents, plugins, marketplaces, MCP configs and settings."
)]
struct Cli {
    /// Print only results and errors: no notes, hints or summary lines
    ///
    /// Results are what the command is for, and are never silenced: findings, listings,
    /// diffs, JSON, a session's answers. Errors, and the help attached to them (a refused lock
    /// still names its errors), are kept too. Silenced: capc's notes and hints, its warnings
    /// about the run (not findings), `capc check`'s `checked N files: …` line and `N findings
    /// below --severity not shown`, `capc lock`'s `capabilities.lock created: …`, `is up to
    /// date`, count of findings and list of files left out, `--fix`'s list of fixed files,
    /// `capc diff`'s note on a side with errors, `capc session`'s untrusted-folder note. The
    /// exit code is unchanged.
    #[arg(short, long, global = true)]
    quiet: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check every Claude Code declaration under PATH and report what is wrong
    ///
    /// Finds projects (`.claude/`, `.mcp.json`), plugins (`.claude-plugin/plugin.json` or a
    /// folder a marketplace names), marketplaces and skill collections. A file is checked in
    /// the context of the folder that declares it, and only its findings are reported. Reads
    /// capc.toml (or .capc.toml) from PATH upwards to the repository's top. Exits 0 when no
    /// error was found (warnings allowed), 1 when errors were found, 2 when capc could not run.
    Check {
        /// Folders to check, or files to check in the context of the folder they belong to
        #[arg(default_value = ".")]
        paths: Vec<PathBuf>,
        /// Output format: `human` (annotated source), `json` (stable, version 1), `sarif` (SARIF
        /// 2.1.0, for code scanning), `github` (GitHub Actions annotations) or `short` (one line
        /// per finding: `path:line:col: severity[rule] message`)
        #[arg(long, value_enum, default_value_t = CheckFormat::Human)]
        format: CheckFormat,
        #[command(flatten)]
        scopes: Scopes,
        /// When to color human output
        #[arg(long, value_enum, default_value_t = Color::Auto)]
        color: Color,
        /// Print the declaration files found (path, kind and, for skills, commands and agents, the name
        /// Claude Code gives them; tab-separated) instead of diagnostics
        #[arg(long)]
        list_files: bool,
        #[command(flatten)]
        shown: Shown,
        /// Apply the fixes that are mechanical and certain (a missing `mcpServers` wrapper, hook
        /// events moved under `hooks`, quoted `${CLAUDE_PLUGIN_ROOT}` paths, a component path's
        /// `./`, a misspelt field with one candidate), editing only those bytes; then report what
        /// is left
        #[arg(long)]
        fix: bool,
        /// With --fix: print the changes as a unified diff and change nothing (exit 1 when there
        /// is something to fix)
        #[arg(long, requires = "fix")]
        diff: bool,
        #[command(flatten)]
        reading: Reading,
        #[command(flatten)]
        selection: Selection,
        #[command(flatten)]
        compared: compare::Compared,
    },
    /// Resolve names and precedence and write PATH/capabilities.lock
    ///
    /// Checks PATH as `capc check` does, resolves which skill, command, agent and MCP server
    /// each name reaches (and what it hides), and writes the result with a SHA-256 of every
    /// source file. The file is rewritten only when its content changes. Refuses to write
    /// when the check finds errors in what a session here loads; errors in plugins nothing
    /// loads, skill collections and nested projects are named in the lock's header instead.
    /// Exits 0 when written or unchanged, 1 on errors or (with --check) a stale or missing
    /// lock, 2 when capc could not run (or nothing was found to lock).
    Lock {
        /// Folders to lock (a file stands for the folder it belongs to)
        #[arg(default_value = ".")]
        paths: Vec<PathBuf>,
        /// Write nothing; exit 1 with a diff when the lock on disk is not what `capc lock` would write
        #[arg(long)]
        check: bool,
        /// Also lock `.claude/settings.local.json` (each user's own, untracked settings: their
        /// hooks, permission rules and MCP approvals); without it they are left out of the lock
        #[arg(long)]
        include_local: bool,
        /// Write a lock even when no declaration is found (an empty lock is usually a wrong PATH)
        #[arg(long)]
        allow_empty: bool,
        #[command(flatten)]
        scopes: Scopes,
        #[command(flatten)]
        reading: Reading,
        #[command(flatten)]
        selection: Selection,
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
        #[command(flatten)]
        reading: Reading,
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
        #[command(flatten)]
        reading: Reading,
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
        #[command(flatten)]
        reading: Reading,
    },
    /// Run a session from a lock: newline-delimited JSON on stdin/stdout, or a REPL on a terminal
    ///
    /// Loads PATH/capabilities.lock (not the source tree; `capc lock PATH` writes it) and
    /// answers requests, one JSON object per line: `turn` (input text and context → the command table, listings, tool pool, what the
    /// input does and the request Claude Code 2.1.332 sends for it; by default as a headless run
    /// in an untrusted folder), `invoke_skill`, `tool_search`, `call_tool`, `mcp_update`, `status`. Each
    /// response names the request it answers; a malformed request gets an error response and
    /// the session goes on. On a terminal it is a small REPL: `/cmd args`, `:tools`,
    /// `:commands`, `:skills`, `:why NAME`, `:touch PATH`, `:status`, `:quit`.
    Session {
        /// The folder whose capabilities.lock is run (its project root); a lock file stands for
        /// itself
        #[arg(default_value = ".")]
        path: PathBuf,
        /// The lock to run from instead of PATH/capabilities.lock (its folder is the project root)
        #[arg(long, value_name = "FILE", conflicts_with = "path")]
        lock: Option<PathBuf>,
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
        from: SessionFrom,
    },
    /// Serve the repository's commands, skills and skill files over MCP, to any agent
    ///
    /// Serves PATH/capabilities.lock (or --lock FILE) as an MCP server, over stdio (the default)
    /// or Streamable HTTP (--http ADDR, endpoint /mcp). Prompts: every command and skill a user
    /// can type, under the name typed after `/`, with `arguments` (the whole argument string)
    /// and the named arguments its frontmatter declares; `prompts/get` returns the texts Claude
    /// Code sends for `/name args`, as `capc session` computes them. Tool: `Skill`, Claude Code's
    /// Skill tool. Resources: each skill's files as skill://SKILL/PATH. docs/serve.md shows how
    /// to add it to Claude Code, Codex, Cursor, VS Code and Gemini CLI.
    Serve {
        /// The folder whose capabilities.lock is served (its project root)
        #[arg(default_value = ".")]
        path: PathBuf,
        /// The lock to serve instead of PATH/capabilities.lock (its folder is the project root)
        #[arg(long, value_name = "FILE")]
        lock: Option<PathBuf>,
        /// Streamable HTTP on ADDR (such as 127.0.0.1:8123; port 0 picks one), endpoint /mcp,
        /// instead of stdio; the address is printed on stderr. Only a loopback address unless
        /// --allow-remote; a browser page from elsewhere gets 403
        #[arg(long, value_name = "ADDR")]
        http: Option<std::net::SocketAddr>,
        /// Let --http listen on a non-loopback address (any host name is then accepted: use
        /// --token-env)
        #[arg(long, requires = "http")]
        allow_remote: bool,
        /// Require `Authorization: Bearer TOKEN` on every HTTP request, TOKEN read from the
        /// environment variable VAR (compared in constant time)
        #[arg(long, value_name = "VAR", requires = "http")]
        token_env: Option<String>,
        /// Watch the folder: after a save, serve the lock `capc lock` would write (computed in
        /// memory; the file is not rewritten) and tell clients which lists changed
        #[arg(long)]
        watch: bool,
        #[command(flatten)]
        from: SessionFrom,
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
    /// List every rule, or print one rule's documentation, or the configuration in effect
    Rules {
        /// A rule id such as `invalid-json`
        #[arg(conflicts_with = "config")]
        id: Option<String>,
        /// Print the configuration a check of PATH uses (default `.`): every value after
        /// capc.toml and the defaults are merged, each with where it came from. PATH may also be
        /// a configuration file
        #[arg(long, value_name = "PATH", num_args = 0..=1, default_missing_value = ".")]
        config: Option<PathBuf>,
    },
    /// Serve the Language Server Protocol on stdin/stdout: capc's findings, fixes, hover,
    /// completion and navigation in the editor
    ///
    /// The workspace is the folder the client opens; its capc.toml and ignore files apply as
    /// for `capc check`. Unsaved buffers are checked as they are typed. The other scopes come
    /// from the client's `initializationOptions`: `userDir`, `managedDir`, `addDirs`,
    /// `pluginDirs`. Setup for editors: docs/lsp.md.
    Lsp,
    /// Print a shell completion script (`capc completions bash > ~/.local/share/bash-completion/completions/capc`)
    Completions {
        /// The shell to complete in
        shell: clap_complete::Shell,
    },
    /// Print the manual page in roff (`capc man | man -l -`; `capc man check` for a subcommand's page)
    Man {
        /// A subcommand whose page to print (`capc-check(1)`), instead of `capc(1)`
        command: Option<String>,
    },
}

/// Which findings `capc check` shows, and what fails it.
#[derive(Args, Clone)]
struct Shown {
    /// Show only findings at least this severe (the exit code still counts every finding)
    #[arg(long, value_enum, value_name = "LEVEL", default_value_t = Level::Info)]
    severity: Level,
    /// Warnings fail the check too (exit 1)
    #[arg(long)]
    strict: bool,
    /// Print how many findings each rule made, most first, instead of the findings (`human`,
    /// `short` or `json`)
    #[arg(long)]
    statistics: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Level {
    Error,
    Warning,
    Info,
}

impl Level {
    fn admits(self, severity: capc_compiler::Severity) -> bool {
        use capc_compiler::Severity as S;
        match self {
            Level::Error => severity == S::Error,
            Level::Warning => severity != S::Info,
            Level::Info => true,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum CheckFormat {
    Human,
    Json,
    Sarif,
    Github,
    Short,
}

/// How the checked folder is read: its configuration and ignore files.
#[derive(Args, Clone, Default)]
struct Reading {
    /// Use this configuration file instead of the capc.toml or .capc.toml found from PATH
    /// upwards (up to the repository's top)
    #[arg(long, value_name = "FILE", conflicts_with = "no_config")]
    config: Option<PathBuf>,
    /// Read no configuration file: defaults and flags only
    #[arg(long)]
    no_config: bool,
    /// Also read what .gitignore, .ignore and git's excludes name (left out by default, as
    /// ripgrep leaves them out)
    #[arg(long)]
    no_ignore: bool,
}

/// Which rules report; these flags override capc.toml.
#[derive(Args, Clone, Default)]
struct Selection {
    /// Only these rules report (comma-separated ids; replaces capc.toml's `select`)
    #[arg(long, value_name = "RULES", value_delimiter = ',')]
    select: Vec<String>,
    /// These rules do not report (comma-separated ids; added to capc.toml's `ignore`)
    #[arg(long, value_name = "RULES", value_delimiter = ',')]
    ignore: Vec<String>,
    /// Show what suppression comments and capc.toml's `per-path-ignores` hide (for audits)
    #[arg(long)]
    no_suppressions: bool,
}

/// How a session is loaded from a lock: shared by `capc session` and `capc serve`.
#[derive(Args)]
struct SessionFrom {
    /// Re-derive the whole lock from its sources first (the check `capc lock` runs, with the
    /// scopes given here) and refuse any difference: a changed, missing or new file by name,
    /// an edited entry as a diff
    #[arg(long)]
    verify: bool,
    /// Do not run `!` shell injections, even when the permission rules allow them
    #[arg(long)]
    no_shell: bool,
    /// Trust the folder, as accepting Claude Code's trust dialog does: its project allow
    /// rules hold, its `!` injections may run and its own MCP servers (`.mcp.json`, its
    /// plugins') may start. Without it, a session trusts the folder only when the user's
    /// own `.claude.json` (in `--user-dir`) says so for it or a parent folder; nothing in the
    /// repository can make it trusted
    #[arg(long)]
    trust: bool,
    #[command(flatten)]
    scopes: Scopes,
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
    /// Also read the skills and commands of DIR/.claude, as `claude --add-dir DIR` does (repeatable)
    #[arg(long, value_name = "DIR")]
    add_dir: Vec<PathBuf>,
    /// Load the plugin in DIR, as `claude --plugin-dir DIR` does (repeatable; in order, before
    /// the plugins settings enable)
    #[arg(long, value_name = "DIR")]
    plugin_dir: Vec<PathBuf>,
}

impl Scopes {
    /// Options for a command that writes no lock (no source hashes): the configuration found
    /// for `root`, with these flags over it. Says why not on stderr (exit 2).
    fn options(&self, root: PathBuf, reading: &Reading, selection: &Selection) -> Result<Options, ExitCode> {
        self.options_and_config(root, reading, selection).map(|(options, _)| options)
    }

    /// [`Scopes::options`] and the configuration they come from.
    fn options_and_config(
        &self,
        root: PathBuf,
        reading: &Reading,
        selection: &Selection,
    ) -> Result<(Options, Config), ExitCode> {
        let config = self.config(&root, reading, selection).map_err(|e| {
            eprintln!("error: {}", printable::escape(&e.to_string()));
            ExitCode::from(2)
        })?;
        let options = Options {
            user_dir: scope_dir(config.user_dir.value.clone(), "--user-dir", Some(".claude"))?,
            managed_dir: config.managed_dir.value.clone(),
            add_dirs: scope_dirs(&config.add_dir.value, "--add-dir", ".claude")?,
            plugin_dirs: scope_dirs(&config.plugin_dir.value, "--plugin-dir", ".claude-plugin")?,
            skip_hashes: true,
            leave_out_local: false,
            filter: config.filter(),
            policy: Some(std::sync::Arc::new(config.policy())),
            no_suppressions: selection.no_suppressions,
            texts: Default::default(),
            root,
        };
        Ok((options, config))
    }

    /// The configuration for `root`: the file, then these flags.
    fn config(&self, root: &std::path::Path, reading: &Reading, selection: &Selection) -> Result<Config, ConfigError> {
        let mut config =
            if reading.no_config { Config::defaults(root) } else { Config::load(root, reading.config.as_deref())? };
        if !selection.select.is_empty() {
            config.select_flag(&selection.select)?;
        }
        if !selection.ignore.is_empty() {
            config.ignore_flag(&selection.ignore)?;
        }
        if reading.no_ignore {
            config.respect_ignore_files.set(false, "--no-ignore");
        }
        if let Some(dir) = &self.user_dir {
            config.user_dir.set(Some(dir.clone()), "--user-dir");
        }
        if let Some(dir) = &self.managed_dir {
            config.managed_dir.set(Some(dir.clone()), "--managed-dir");
        }
        if !self.add_dir.is_empty() {
            config.add_dir.set(self.add_dir.clone(), "--add-dir");
        }
        if !self.plugin_dir.is_empty() {
            config.plugin_dir.set(self.plugin_dir.clone(), "--plugin-dir");
        }
        Ok(config)
    }
}

/// Each of `dirs` as the user meant it ([`scope_dir`]).
fn scope_dirs(dirs: &[PathBuf], flag: &str, inner: &str) -> Result<Vec<PathBuf>, ExitCode> {
    dirs.iter().filter_map(|d| scope_dir(Some(d.clone()), flag, Some(inner)).transpose()).collect()
}

/// A scope folder as the user meant it: given the `.claude` folder (or a plugin's
/// `.claude-plugin`) instead of the folder that holds it, the folder that holds it, said on
/// stderr. A folder that does not exist is left for the check to report.
fn scope_dir(dir: Option<PathBuf>, flag: &str, inner: Option<&str>) -> Result<Option<PathBuf>, ExitCode> {
    let Some(dir) = dir else { return Ok(None) };
    let Some(inner) = inner else { return Ok(Some(dir)) };
    if dir.file_name().is_none_or(|n| n != inner) || !dir.is_dir() {
        return Ok(Some(dir));
    }
    let holder = match dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(parent) => parent.to_path_buf(),
        None => PathBuf::from("."),
    };
    if holder.join(inner).join(inner).is_dir() {
        // `x/.claude/.claude`: the given folder is itself a home; take it as given.
        return Ok(Some(dir));
    }
    let what = if inner == ".claude" { "the folder that holds `.claude/`" } else { "the plugin folder" };
    say!(
        "note: {flag} takes {what}; reading `{}` for `{}`",
        printable::escape(&holder.display().to_string()),
        printable::escape(&dir.display().to_string())
    );
    Ok(Some(holder))
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
    QUIET.store(cli.quiet, std::sync::atomic::Ordering::Relaxed);
    match cli.command {
        Command::Check { paths, format, scopes, color, list_files, shown, fix, diff, reading, selection, compared } => {
            let how = CheckHow { format, color, list_files, shown, fix, diff, compared };
            check(&paths, &scopes, &reading, &selection, how)
        }
        Command::Lock { paths, check, include_local, allow_empty, scopes, reading, selection } => {
            let how = LockHow { check_only: check, include_local, allow_empty };
            lock_all(&paths, &scopes, &reading, &selection, how)
        }
        Command::Ls { path, format, all, scopes, reading } => match resolve_options(path, &scopes, &reading) {
            Ok(options) => ls(options, format, all),
            Err(code) => code,
        },
        Command::Explain { name, path, scopes, reading } => match resolve_options(path, &scopes, &reading) {
            Ok(options) => explain(options, &name),
            Err(code) => code,
        },
        Command::Graph { path, format, all, scopes, reading } => match resolve_options(path, &scopes, &reading) {
            Ok(options) => graph(options, format, all),
            Err(code) => code,
        },
        Command::Session { path, lock, repl, json, connect, from } => {
            let repl = repl || (!json && std::io::stdin().is_terminal());
            session(lock_of(path, lock), repl, connect, from)
        }
        Command::Serve { path, lock, http, allow_remote, token_env, watch, from } => {
            serve(&lock_of(path, lock), http, allow_remote, token_env.as_deref(), watch, from)
        }
        Command::Diff { old, new, format, fail_on } => diff::run(&old, &new, format, &fail_on),
        Command::Verify { path, user_dir } => verify::run(&path, user_dir),
        Command::Rules { id, config } => match config {
            Some(path) => config_command(&path),
            None => rules_command(id.as_deref()),
        },
        Command::Lsp => match capc_runtime::lsp::run_stdio() {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: capc lsp: {}", shown(&e));
                ExitCode::from(2)
            }
        },
        Command::Completions { shell } => {
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "capc", &mut out);
            exit(write_stdout(&String::from_utf8_lossy(&out)), 0)
        }
        Command::Man { command } => man(command.as_deref()),
    }
}

/// Options for `ls`, `explain` and `graph`: the folder PATH is (or belongs to, for a file),
/// read as `capc check` reads it.
fn resolve_options(path: PathBuf, scopes: &Scopes, reading: &Reading) -> Result<Options, ExitCode> {
    let root = match capc_compiler::target::targets(std::slice::from_ref(&path)) {
        Ok(mut targets) if targets.len() == 1 => targets.remove(0).root,
        Ok(_) => path,
        Err(e) => {
            eprintln!("error: {}", shown(&e));
            return Err(ExitCode::from(2));
        }
    };
    scopes.options(root, reading, &Selection::default())
}

/// The folders PATH… stand for, or why not (exit 2).
fn targets(paths: &[PathBuf]) -> Result<Vec<Target>, ExitCode> {
    capc_compiler::target::targets(paths).map_err(|e| {
        eprintln!("error: {}", shown(&e));
        ExitCode::from(2)
    })
}

/// `capc rules --config [PATH]`.
fn config_command(path: &std::path::Path) -> ExitCode {
    if let Err(e) = std::fs::metadata(path) {
        eprintln!("error: cannot read `{}`: {e}", printable::escape(&path.display().to_string()));
        return ExitCode::from(2);
    }
    let result = if path.is_file() {
        let root = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
        Config::read(root, path)
    } else {
        Config::load(path, None)
    };
    match result {
        Ok(config) => exit(write_stdout(&config.describe()), 0),
        Err(e) => {
            eprintln!("error: {}", printable::escape(&e.to_string()));
            ExitCode::from(2)
        }
    }
}

/// `capc man [COMMAND]`: the page of capc, or of one subcommand (named `capc-COMMAND`).
fn man(command: Option<&str>) -> ExitCode {
    let mut cli = Cli::command();
    cli.build();
    let page = match command {
        None => cli,
        Some(name) => match cli.find_subcommand(name) {
            Some(sub) => {
                let sub = sub.clone();
                // clap names are `&'static str` (no `string` feature); one page, once per run.
                let title: &'static str = Box::leak(format!("capc-{}", sub.get_name()).into_boxed_str());
                sub.name(title).bin_name(title).version(VERSION.as_str())
            }
            None => {
                let names = cli.get_subcommands().map(|c| c.get_name()).collect::<Vec<_>>().join(", ");
                eprintln!("error: no subcommand `{name}`; pages: {names}");
                return ExitCode::from(2);
            }
        },
    };
    let mut out = Vec::new();
    if clap_mangen::Man::new(page).render(&mut out).is_err() {
        return ExitCode::from(2);
    }
    exit(write_stdout(&String::from_utf8_lossy(&out)), 0)
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

#[derive(Clone, Copy)]
struct LockHow {
    check_only: bool,
    include_local: bool,
    allow_empty: bool,
}

/// `capc lock PATH…`: each folder (a file stands for the folder it belongs to) is locked on its
/// own; the exit code is the worst of them.
fn lock_all(paths: &[PathBuf], scopes: &Scopes, reading: &Reading, selection: &Selection, how: LockHow) -> ExitCode {
    let targets = match targets(paths) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let mut worst = 0u8;
    for target in targets {
        let options = match scopes.options(target.root.clone(), reading, selection) {
            Ok(o) => Options { skip_hashes: false, leave_out_local: !how.include_local, ..o },
            Err(code) => return code,
        };
        let code = lock(options, how, &target);
        worst = worst.max(if code == ExitCode::SUCCESS {
            0
        } else if code == ExitCode::from(1) {
            1
        } else {
            2
        });
    }
    ExitCode::from(worst)
}

/// `capc check FILE` and `capc lock FILE` on files that are no declaration where they are:
/// says so (a lock would otherwise stand for the file's whole folder, and a check would pass
/// a file it never read). The caller exits with code 2.
fn say_not_declarations(target: &Target, not_read: &[&str]) {
    for path in not_read {
        eprintln!(
            "error: `{}` is not a Claude Code declaration: Claude Code reads no file of this kind at this place",
            printable::escape(&shown_path(target, path))
        );
    }
    eprintln!(
        "help: give skills (`SKILL.md`), commands and agents (`.md` under `commands/` or `agents/`), `.mcp.json`, \
         `settings.json`, `hooks.json`, `plugin.json` or `marketplace.json`, or a folder to check all it declares"
    );
}

/// How many blocking errors, and left-out files, `capc lock` lists before `… and N more`.
const LOCK_LISTS: usize = 10;

/// `2 errors, 14 warnings, 6 infos` (the severities found, errors first), `no findings` when
/// there are none.
fn findings(checked: &Checked) -> String {
    use capc_compiler::Severity as S;
    let parts: Vec<String> = [(S::Error, "error"), (S::Warning, "warning"), (S::Info, "info")]
        .into_iter()
        .filter(|(s, _)| checked.count(*s) > 0)
        .map(|(s, noun)| count(checked.count(s), noun))
        .collect();
    if parts.is_empty() {
        "no findings".to_string()
    } else {
        parts.join(", ")
    }
}

fn lock(options: Options, how: LockHow, target: &Target) -> ExitCode {
    let check_only = how.check_only;
    let mut checked = match run_check(&options) {
        Ok(c) => c,
        Err(code) => return code,
    };
    if let Some(files) = &target.files {
        let not_read = checked.not_read(files);
        if !not_read.is_empty() {
            say_not_declarations(target, &not_read);
            return ExitCode::from(2);
        }
    }
    // `capc lock` reports in a few lines, whatever the repository holds: the errors that
    // block it (the first ones, one line each), the files it leaves out, and a count of the
    // rest with the `capc check` that shows them. `capc check` is the report.
    let check_command = format!("capc check {}", printable::escape(&options.root.display().to_string()));
    let blocking: Vec<&capc_compiler::Diagnostic> = checked.blocking_errors().collect();
    if !blocking.is_empty() {
        eprintln!(
            "error: not writing {}: {} in what a session here loads:",
            write::FILE_NAME,
            count(blocking.len(), "error")
        );
        let shown = &blocking[..blocking.len().min(LOCK_LISTS)];
        for line in report::short_lines(&checked, shown.iter().copied()).lines() {
            eprintln!("  {line}");
        }
        if blocking.len() > shown.len() {
            eprintln!("  … and {} more", blocking.len() - shown.len());
        }
        eprintln!("help: `{check_command}` shows every finding ({}) with its source and help", findings(&checked));
        return ExitCode::from(1);
    }
    if checked.files_checked == 0 && !check_only && !how.allow_empty {
        eprintln!(
            "error: no Claude Code declarations found in `{}`; not writing an empty {} (`--allow-empty` writes it)",
            printable::escape(&options.root.display().to_string()),
            write::FILE_NAME
        );
        return ExitCode::from(2);
    }
    let left_out: Vec<(String, String)> =
        checked.left_out().into_iter().map(|(p, w)| (p.to_string(), w.to_string())).collect();
    // A plugin the session is asked to load that Claude Code refuses: the lock says so and is
    // written (Claude Code loads the rest), and the run fails, as cargo writes Cargo.lock and
    // still fails a build with errors.
    let refused_asked = std::mem::take(&mut checked.refused_asked);
    for (name, why) in &refused_asked {
        eprintln!(
            "error: plugin `{}` is asked to load but does not: {}",
            printable::escape(name),
            printable::escape(why)
        );
    }
    if !left_out.is_empty() {
        let n = left_out.len();
        say!(
            "note: {} {} errors that do not block the lock: a session here does not load {} (`{check_command}` shows the errors):",
            count(n, "file"),
            if n == 1 { "has" } else { "have" },
            if n == 1 { "it" } else { "them" }
        );
        for (path, why) in left_out.iter().take(LOCK_LISTS) {
            say!("  {}: {}", printable::escape(path), printable::escape(why));
        }
        if n > LOCK_LISTS {
            say!("  … and {} more", count(n - LOCK_LISTS, "file"));
        }
    }
    if !checked.diagnostics.is_empty() {
        let level = if checked.count(capc_compiler::Severity::Warning) > 0 { "warning" } else { "note" };
        say!("{level}: found {}; `{check_command}` shows them", findings(&checked));
    }
    if options.leave_out_local {
        let local: Vec<&str> =
            checked.files.iter().map(|f| f.path.as_str()).filter(|p| write::is_local_settings(p)).collect();
        if !local.is_empty() {
            say!(
                "note: left out of the lock: {} (local settings; `--include-local` adds them)",
                local.iter().map(|p| format!("`{}`", printable::escape(p))).collect::<Vec<_>>().join(", ")
            );
        }
    }
    // What the check built is not freed: the process ends soon after, and leaving it to the
    // operating system spares freeing tens of thousands of small allocations one by one.
    let lock = std::mem::ManuallyDrop::new(checked.take_lock());
    std::mem::forget(checked);
    let notes: Vec<(&str, &str)> = left_out.iter().map(|(p, w)| (p.as_str(), w.as_str())).collect();
    let text = write::encode_leaving_out(&lock, &notes);
    let path = options.root.join(write::FILE_NAME);
    if check_only {
        // Only a regular file is read (a named pipe would hang the read, a link could put
        // another file's text into the diff).
        return match write::read_file(&path) {
            Ok(Some(old)) if old == text => {
                say!("{} is up to date", shown(&path.display()));
                if refused_asked.is_empty() {
                    ExitCode::SUCCESS
                } else {
                    ExitCode::from(1)
                }
            }
            Ok(Some(old)) => {
                // The lock on disk may hold anything: no control character reaches the terminal.
                let diff = write::diff(&old, &text, write::FILE_NAME);
                let diff = printable::escape_lines(&diff);
                eprintln!("error: {} is stale; run `capc lock` to update it", shown(&path.display()));
                exit(write_stdout(&diff), 1)
            }
            Ok(None) => {
                eprintln!("error: {} does not exist; run `capc lock` to create it", shown(&path.display()));
                ExitCode::from(1)
            }
            Err(e) => {
                eprintln!("error: cannot read {}: {}", shown(&path.display()), shown(&e));
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
            say!(
                "{} {verb}: {}, {}, {}, {}, {} from {}",
                shown(&path.display()),
                count(lock.commands.len(), "command"),
                count(lock.agents.len(), "agent"),
                count(lock.mcp_servers.len(), "MCP server"),
                count(lock.hooks.len(), "hook"),
                count(lock.permissions.len(), "permission rule"),
                count(lock.sources.len(), "file")
            );
            if refused_asked.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(e) => {
            eprintln!("error: cannot write {}: {}", shown(&path.display()), shown(&e));
            ExitCode::from(2)
        }
    }
}

/// The lock `capc session` and `capc serve` run: `--lock FILE`, else PATH when it is a file,
/// else PATH/capabilities.lock.
fn lock_of(path: PathBuf, lock: Option<PathBuf>) -> PathBuf {
    match lock {
        Some(lock) => lock,
        None if path.is_file() => path,
        // `capabilities.lock`, not `./capabilities.lock`, in messages.
        None if path == std::path::Path::new(".") => PathBuf::from(write::FILE_NAME),
        None => path.join(write::FILE_NAME),
    }
}

/// The session `capc session` and `capc serve` run: the lock loaded (and verified when asked),
/// trusted only as the user said. Says why not on stderr.
fn load_session(lock: &std::path::Path, from: SessionFrom) -> Result<capc_runtime::session::Session, ExitCode> {
    use capc_runtime::loaded::{Loaded, Roots};
    let SessionFrom { verify, no_shell, trust, scopes } = from;
    let root =
        lock.parent().filter(|p| !p.as_os_str().is_empty()).map(PathBuf::from).unwrap_or_else(|| PathBuf::from("."));
    if lock.symlink_metadata().is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound) {
        let folder = printable::escape(&root.display().to_string()).into_owned();
        eprintln!("error: no lock at `{}`", printable::escape(&lock.display().to_string()));
        if lock.file_name().is_some_and(|n| n == write::FILE_NAME) && root.is_dir() {
            eprintln!(
                "help: run `capc lock {folder}` to write it (a session runs from the lock, not from the files), \
                 or give another with `--lock FILE`"
            );
        }
        return Err(ExitCode::from(2));
    }
    // Absolute, as the paths a turn sends are (`Base directory for this skill: …`).
    let root = std::path::absolute(&root).unwrap_or(root);
    let roots = Roots {
        root,
        user_dir: scopes.user_dir,
        managed_dir: scopes.managed_dir,
        add_dirs: scopes.add_dir,
        plugin_dirs: scopes.plugin_dir,
    };
    let loaded = match Loaded::from_file(lock, roots) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: {}", printable::escape_lines(&e.to_string()));
            return Err(ExitCode::from(2));
        }
    };
    if verify {
        if let Err(e) = loaded.verify() {
            eprintln!("error: {}", printable::escape_lines(&e.to_string()));
            return Err(ExitCode::from(1));
        }
    }
    let trusted = trust || loaded.roots.user_trusts();
    if let Some(note) = capc_runtime::trust::untrusted_note(&loaded.lock).filter(|_| !trusted) {
        say!("capc: {}", shown(&note));
    }
    let mut session = capc_runtime::session::Session::new(loaded);
    session.trusted = trusted;
    session.run_shell = !no_shell;
    Ok(session)
}

fn session(lock: PathBuf, repl: bool, connect: bool, from: SessionFrom) -> ExitCode {
    let mut session = match load_session(&lock, from) {
        Ok(session) => session,
        Err(code) => return code,
    };
    let live = if connect {
        match session.connect(
            capc_runtime::connect::Settings::from_env(|name| std::env::var(name).ok()),
            capc_runtime::turn::Entry::Headless,
        ) {
            Ok(live) => Some(live),
            Err(e) => {
                eprintln!("error: cannot start the MCP connections: {}", shown(&e));
                return ExitCode::from(2);
            }
        }
    } else {
        None
    };
    // Without live connections, a signal still ends a running `!` injection's process group.
    let _signals = if live.is_none() { capc_runtime::connect::Signals::install().ok() } else { None };
    let result = if repl && std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
        // A person at a terminal: line editing and history.
        capc_runtime::repl::run_terminal(&mut session, std::io::stdout().lock())
    } else if repl {
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
            eprintln!("error: {}", shown(&e));
            ExitCode::from(2)
        }
    }
}

fn serve(
    lock: &std::path::Path,
    http: Option<std::net::SocketAddr>,
    allow_remote: bool,
    token_env: Option<&str>,
    watch: bool,
    from: SessionFrom,
) -> ExitCode {
    if let Some(addr) = http {
        if let Err(e) = capc_runtime::serve::http::check_address(addr, allow_remote) {
            eprintln!("error: {}", shown(&e));
            return ExitCode::from(2);
        }
    }
    let token = match token_env.map(|name| (name, std::env::var(name))) {
        None => None,
        Some((_, Ok(token))) if !token.is_empty() => Some(token),
        Some((name, _)) => {
            eprintln!("error: --token-env {name}: the environment variable {name} is not set (or is empty)");
            return ExitCode::from(2);
        }
    };
    let session = match load_session(lock, from) {
        Ok(session) => session,
        Err(code) => return code,
    };
    let options = capc_runtime::serve::Options { http, allow_remote, token, watch };
    match capc_runtime::serve::run(session, options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", shown(&e));
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
                Some(s) => eprintln!(
                    "error: nothing here is named `{}`; did you mean `{}`?",
                    printable::escape(bare),
                    printable::escape(s)
                ),
                None => {
                    eprintln!("error: nothing here is named `{}`; `capc ls` lists every name", printable::escape(bare))
                }
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

/// How `capc check` runs and shows its findings.
struct CheckHow {
    format: CheckFormat,
    color: Color,
    list_files: bool,
    shown: Shown,
    fix: bool,
    diff: bool,
    compared: compare::Compared,
}

fn check(paths: &[PathBuf], scopes: &Scopes, reading: &Reading, selection: &Selection, how: CheckHow) -> ExitCode {
    let CheckHow { format, color, list_files, shown, fix, diff, compared } = how;
    if shown.statistics && matches!(format, CheckFormat::Sarif | CheckFormat::Github) {
        eprintln!(
            "error: --statistics prints counts as `human`, `short` or `json`, not as `--format sarif` or `github`"
        );
        return ExitCode::from(2);
    }
    let targets = match targets(paths) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let mut options_of = Vec::new();
    let mut configs = Vec::new();
    for target in &targets {
        match scopes.options_and_config(target.root.clone(), reading, selection) {
            Ok((o, c)) => {
                options_of.push(o);
                configs.push(c);
            }
            Err(code) => return code,
        }
    }
    if fix && diff {
        return fix_diff(&targets, &options_of);
    }
    let mut comparison = match compare::Comparison::new(&compared) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let mut parts = Vec::new();
    let mut ignored = 0;
    for ((target, options), config) in targets.iter().zip(&options_of).zip(&configs) {
        let checked = if fix { fix_files(options, target) } else { run_check(options) };
        let mut checked = match checked {
            Ok(c) => c,
            Err(code) => return code,
        };
        ignored += checked.ignored;
        if let Some(files) = &target.files {
            let not_read = checked.not_read(files);
            if !not_read.is_empty() {
                say_not_declarations(target, &not_read);
                return ExitCode::from(2);
            }
            checked.keep_only(files);
        }
        if let Err(code) = comparison.compare(&mut checked, target, options, config, |s| shown.severity.admits(s)) {
            return code;
        }
        checked.show_under(&target.shown);
        parts.push(checked);
    }
    let mut checked = if parts.len() == 1 { parts.remove(0) } else { Checked::merge(parts) };
    match comparison.finish() {
        compare::Finished::Report(applied) => checked.baseline = applied,
        compare::Finished::Exit(code) => return code,
    }
    if list_files {
        let listing: String = checked
            .files
            .iter()
            .map(|f| match &f.name {
                // Tabs and newlines separate the fields: escaped inside them, with every other
                // control character.
                Some(name) => {
                    format!("{}\t{}\t{}\n", printable::escape(&f.path), f.kind.as_str(), printable::escape(name))
                }
                None => format!("{}\t{}\n", printable::escape(&f.path), f.kind.as_str()),
            })
            .collect();
        return if write_stdout(&listing).is_ok() { ExitCode::SUCCESS } else { ExitCode::from(2) };
    }
    // The exit code counts every finding, whatever --severity shows.
    let failed = checked.has_errors() || (shown.strict && checked.count(capc_compiler::Severity::Warning) > 0);
    let total = checked.diagnostics.len();
    checked.diagnostics.retain(|d| shown.severity.admits(d.severity));
    let hidden = total - checked.diagnostics.len();
    let nothing = checked.files_checked == 0 && checked.diagnostics.is_empty();
    let mut output = match (format, shown.statistics) {
        (CheckFormat::Json, true) => report::to_statistics_json(&checked),
        (_, true) => report::to_statistics(&checked),
        (CheckFormat::Json, false) => report::to_json(&checked),
        (CheckFormat::Sarif, false) => report::to_sarif(&checked),
        (CheckFormat::Github, false) => report::to_github(&checked),
        (CheckFormat::Short, false) => report::to_short(&checked),
        // An empty folder (or a wrong PATH) says so instead of "checked 0 files".
        (CheckFormat::Human, false) if nothing && targets.iter().all(|t| t.files.is_none()) => {
            let shown: Vec<String> =
                paths.iter().map(|p| format!("`{}`", printable::escape(&p.display().to_string()))).collect();
            let hint = if ignored > 0 {
                format!(
                    " ({} left out by ignore files or `exclude`; `--no-ignore` reads ignored ones)",
                    count(ignored, "path")
                )
            } else {
                String::new()
            };
            format!("no Claude Code declarations found in {}{hint}\n", shown.join(", "))
        }
        (CheckFormat::Human, false) => {
            report::to_text(&checked, use_color(color, std::io::stdout().is_terminal()), terminal_width())
        }
    };
    if quiet() && matches!(format, CheckFormat::Human | CheckFormat::Short | CheckFormat::Github) {
        // `-q`: the findings only; no summary line, and nothing at all for an empty folder.
        let summary = format!("{}\n", report::summary_line(&checked));
        if nothing && !shown.statistics {
            output.clear();
        } else if let Some(findings) = output.strip_suffix(&summary) {
            output.truncate(findings.len());
        }
    }
    if hidden > 0 && !quiet() && matches!(format, CheckFormat::Human | CheckFormat::Short | CheckFormat::Github) {
        output.push_str(&format!(
            "{} below --severity {} not shown\n",
            count(hidden, "finding"),
            shown.severity.to_possible_value().map(|v| v.get_name().to_string()).unwrap_or_default()
        ));
    }
    if let Some(applied) =
        checked.baseline.as_ref().filter(|_| !matches!(format, CheckFormat::Json | CheckFormat::Sarif))
    {
        output.push_str(&applied.note());
    }
    if write_stdout(&output).is_err() {
        return ExitCode::from(2);
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Rounds of fixes `--fix` applies at most (a fix that waited for an overlapping one goes in
/// the next round, after a fresh check).
const FIX_ROUNDS: usize = 10;

/// `check --fix`: checks, writes the fixes, checks again until nothing is left to fix; says on
/// stderr what it changed. Only the files asked for are fixed when the target names files.
/// Returns the last check, of the fixed files, for the report.
fn fix_files(options: &Options, target: &Target) -> Result<Checked, ExitCode> {
    let mut fixed: std::collections::BTreeMap<String, Vec<&'static str>> = std::collections::BTreeMap::new();
    let mut refused: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    let mut checked = run_check(options)?;
    for _ in 0..FIX_ROUNDS {
        let plans: Vec<_> = fix_plans(&checked, target).into_iter().filter(|p| !refused.contains(&p.path)).collect();
        if plans.is_empty() {
            break;
        }
        for plan in plans {
            match fix::write(&options.root, &plan) {
                Ok(()) => fixed.entry(plan.path).or_default().extend(plan.rules),
                Err(e) => {
                    eprintln!("error: not fixing {}: {e}", printable::escape(&shown_path(target, &plan.path)));
                    refused.insert(plan.path);
                }
            }
        }
        checked = run_check(options)?;
    }
    let n: usize = fixed.values().map(Vec::len).sum();
    if n > 0 {
        say!("fixed {} in {}:", count(n, "finding"), count(fixed.len(), "file"));
        for (path, rules) in &fixed {
            say!("  {}: {}", printable::escape(&shown_path(target, path)), rule_counts(rules));
        }
    }
    Ok(checked)
}

/// The fixes a check offers, for the files the target names (all, for a folder).
fn fix_plans(checked: &Checked, target: &Target) -> Vec<fix::FileFix> {
    let mut plans = fix::plan(checked);
    if let Some(files) = &target.files {
        plans.retain(|p| files.contains(&p.path));
    }
    plans
}

/// A path of a target as the report shows it.
fn shown_path(target: &Target, path: &str) -> String {
    capc_compiler::check::path_under(&target.shown, path)
}

/// `check --fix --diff`: the first round of fixes as a unified diff; nothing is written.
fn fix_diff(targets: &[Target], options_of: &[Options]) -> ExitCode {
    let mut diff = String::new();
    let (mut findings, mut files) = (0, 0);
    for (target, options) in targets.iter().zip(options_of) {
        let checked = match run_check(options) {
            Ok(c) => c,
            Err(code) => return code,
        };
        for mut plan in fix_plans(&checked, target) {
            findings += plan.rules.len();
            files += 1;
            plan.path = shown_path(target, &plan.path);
            diff.push_str(&fix::diff(&plan));
        }
    }
    // The diff shows the repository's text: no control character reaches the terminal raw.
    if write_stdout(&printable::escape_lines(&diff)).is_err() {
        return ExitCode::from(2);
    }
    if findings == 0 {
        say!("nothing to fix");
        return ExitCode::SUCCESS;
    }
    say!("would fix {} in {} (`capc check --fix` applies them)", count(findings, "finding"), count(files, "file"));
    ExitCode::from(1)
}

/// `unknown-field ×2, hooks-at-top-level`
fn rule_counts(rules: &[&str]) -> String {
    let mut counts: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for rule in rules {
        *counts.entry(rule).or_default() += 1;
    }
    counts
        .into_iter()
        .map(|(rule, n)| if n == 1 { rule.to_string() } else { format!("{rule} ×{n}") })
        .collect::<Vec<_>>()
        .join(", ")
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

//! The command line: clap's definition of every subcommand and its flags, in one place as
//! ruff's `args.rs` keeps them, so `--help`, completions and the manual come from one source.

use crate::{compare, diff};
use capc_compiler::config::{Config, ConfigError};
use capc_compiler::{printable, Options};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

/// `capc --version`: capc's version and the Claude Code version its rules follow.
pub(crate) static VERSION: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!("{} (follows Claude Code {})", env!("CARGO_PKG_VERSION"), capc_compiler::model::CLAUDE_CODE_VERSION)
});

#[derive(Parser)]
#[command(name = "capc", version = VERSION.as_str(), about = "The capability compiler for Claude Code", long_about = None)]
#[command(
    after_help = "Run `capc check` in a repository to lint its skills, commands, agents, plugins, marketplaces, MCP configs and settings."
)]
pub(crate) struct Cli {
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
    pub(crate) quiet: bool,
    #[command(subcommand)]
    pub(crate) command: CliCommand,
}

#[derive(Subcommand)]
pub(crate) enum CliCommand {
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
        reading: ReadingFlags,
        #[command(flatten)]
        selection: Selection,
        #[command(flatten)]
        compared: compare::BaselineFlags,
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
        /// Write nothing; exit 1 with a diff when the lock on disk is not what `capc lock` would
        /// write (the lock against the repository; `capc verify` also checks what is installed)
        #[arg(long)]
        check: bool,
        /// Also lock `.claude/settings.local.json` (each user's own, untracked settings: their
        /// hooks, permission rules and MCP approvals); without it they are left out of the lock
        #[arg(long)]
        include_local: bool,
        /// Write a lock even when no declaration is found (an empty lock is usually a wrong PATH)
        #[arg(long)]
        allow_empty: bool,
        /// Also connect the lock's MCP servers (as `capc session --connect` does) and record
        /// what each offers in `[[mcp_tool]]`: names, SHA-256 of each description and input
        /// schema, annotations, estimated tokens. Only in a trusted folder (`--trust`, or the
        /// user's `.claude.json`). Without it, the surface already in the lock is kept
        #[arg(long)]
        connect: bool,
        /// Trust the folder for `--connect`, as `capc session --trust` does
        #[arg(long, requires = "connect")]
        trust: bool,
        #[command(flatten)]
        scopes: Scopes,
        #[command(flatten)]
        reading: ReadingFlags,
        #[command(flatten)]
        selection: Selection,
    },
    /// Print the resolved command table in lookup order, then agents, MCP servers and tools
    ///
    /// Hidden (shadowed) entries are listed too, with what hides them. In human output,
    /// built-ins nothing hides are summarised (use --all); JSON lists everything.
    ///
    /// With --budget, prints the Skill listing a session in the folder sends instead, as `capc
    /// check`'s `listing-budget` measures it: for each context window of capc.toml's
    /// `[listing-budget] context-windows` (default: Claude Code's default model, 1,000,000
    /// tokens × 3 bytes per token), the budget, the listing's size, and every entry by the
    /// characters it costs in full (most first, then by name): `kept` (listed with its
    /// description), `dropped` (listed as `- name` because the listing is over the budget) or
    /// `name-only` (a `skillOverrides` entry).
    Ls {
        /// The folder to resolve
        #[arg(default_value = ".")]
        path: PathBuf,
        /// Output format: `human` or `json` (stable; version 2, and version 1 with --budget or --runs)
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
        /// List every built-in command and bundled skill too
        #[arg(long, conflicts_with = "budget")]
        all: bool,
        /// Show the Skill listing's budget: every entry's characters, most first, and whether
        /// Claude Code keeps its description or lists it by name only
        #[arg(long)]
        budget: bool,
        /// Show what Claude Code may run here instead: every hook, stdio MCP server, settings
        /// helper, status line and `!` injection, with where it is declared, when it runs,
        /// what Claude Code asks first (`none`, `trust`, `mcp-approval`, `permission`), whether
        /// it is sandboxed and what pins it
        #[arg(long, conflicts_with_all = ["budget", "all"])]
        runs: bool,
        #[command(flatten)]
        scopes: Scopes,
        #[command(flatten)]
        reading: ReadingFlags,
    },
    /// Show every candidate for a name, the winner first, and the rule that decided
    ///
    /// NAME may be a command (`deploy`, `/deploy`, `my-plugin:review`), an agent, an MCP
    /// server (`github` or `mcp__github`), a built-in tool, a permission rule, or the path of an
    /// instruction file (`CLAUDE.md`, `.claude/rules/rust.md`): whether, when and through which imports
    /// Claude Code sends it.
    Explain {
        /// The name to explain
        name: String,
        /// The folder to resolve
        #[arg(default_value = ".")]
        path: PathBuf,
        #[command(flatten)]
        scopes: Scopes,
        #[command(flatten)]
        reading: ReadingFlags,
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
        reading: ReadingFlags,
    },
    /// Run a session from a lock: newline-delimited JSON on stdin/stdout, or a REPL on a terminal
    ///
    /// Loads PATH/capabilities.lock (not the source tree; `capc lock PATH` writes it) and
    /// answers requests, one JSON object per line: `turn` (input text and context → the command table, listings, tool pool, what the
    /// input does and the request Claude Code sends for it; by default as a headless run
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
    /// What is served: PATH/capabilities.lock (or --lock FILE) when there is one; otherwise, or
    /// with --tree, the files themselves as Claude Code loads them (local settings included; no
    /// lock is read or written), followed live. Over stdio (the default) or Streamable HTTP
    /// (--http ADDR, endpoint /mcp). Prompts: every command and skill a user can type, under the
    /// name typed after `/`, with `arguments` (the whole argument string) and the named
    /// arguments its frontmatter declares; `prompts/get` returns the texts Claude Code sends for
    /// `/name args`, as `capc session` computes them. Tool: `Skill`, Claude Code's Skill tool.
    /// Resources: each skill's files as skill://SKILL/PATH. Where Claude Code would ask for a
    /// permission, a client that supports MCP elicitation is asked (an "always" answer is saved
    /// to .claude/settings.local.json). docs/serve.md shows how to add it to Claude Code, Codex,
    /// Cursor, VS Code and Gemini CLI.
    Serve {
        /// The project folder: its capabilities.lock is served, or its files when it has none
        #[arg(default_value = ".")]
        path: PathBuf,
        /// The lock to serve instead of PATH/capabilities.lock (its folder is the project root)
        #[arg(long, value_name = "FILE", conflicts_with = "tree")]
        lock: Option<PathBuf>,
        /// Serve the files of PATH (and of --plugin-dir, --add-dir, …) as Claude Code loads them,
        /// even when PATH has a capabilities.lock: nothing is locked, saves are followed (as
        /// --watch) and clients are told which lists changed. The default without a lock
        #[arg(long, conflicts_with = "verify")]
        tree: bool,
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
        /// memory; the file is not rewritten) and tell clients which lists changed (always on
        /// when the files are served without a lock)
        #[arg(long)]
        watch: bool,
        /// Also serve the lock's MCP servers (a gateway): connected as `capc session --connect`
        /// connects them (an untrusted folder starts none of its own), their tools and prompts
        /// served as mcp__SERVER__NAME; deny rules hide a tool, a call goes through the permission
        /// rules and the server's timeout; list changes are passed on; a server that goes away,
        /// stdio ones too, is reconnected (5 attempts, 1 s doubling)
        #[arg(long)]
        connect: bool,
        #[command(flatten)]
        from: SessionFrom,
    },
    /// Compare the capabilities of two versions, for reviewing a change
    ///
    /// OLD and NEW are each a lock file, a folder (checked and resolved as `capc lock` would,
    /// nothing written, with the local settings git tracks) or a git revision of the repository
    /// holding the folder compared (its tree at that revision, resolved from its sources; a
    /// committed capabilities.lock that does not match them is noted). Reports added,
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
        /// The scopes a folder or revision side is resolved with, as `capc lock` takes them (a
        /// lock file side stands for itself). For a revision, a scope folder inside the
        /// compared folder (a plugin developed in the repository: `--plugin-dir .`) is read as
        /// it was at that revision
        #[command(flatten)]
        scopes: Scopes,
    },
    /// Check that the lock still matches the repository, then compare the plugins a user
    /// installed with it
    ///
    /// First, as `capc lock --check` does, the lock must be what `capc lock` writes from its
    /// folder now (`--installed-only` skips this). Then it reads only
    /// HOME/.claude/plugins/installed_plugins.json, known_marketplaces.json and the plugin cache
    /// folders they point to. For each locked plugin that is installed: the version, the pinned
    /// commit and the installed copy's declaration files (hashed as `capc lock` hashes them)
    /// must match the lock, file by file; each marketplace the lock's settings declare must be
    /// known from the same source. Exits 0 when the lock is current and everything installed
    /// matches, 1 when the lock is stale or on drift, 2 when capc could not run.
    Verify {
        /// The lock, or the folder holding it
        #[arg(default_value = ".")]
        path: PathBuf,
        /// The home folder whose installed plugins are compared (default: $HOME)
        #[arg(long, value_name = "DIR")]
        user_dir: Option<PathBuf>,
        /// Also connect the lock's MCP servers (as `capc lock --connect` does) and compare what
        /// they offer now with the lock's `[[mcp_tool]]`: a tool added or removed, a changed
        /// description, schema or annotations is drift. Only in a trusted folder
        #[arg(long)]
        connect: bool,
        /// Trust the lock's folder for `--connect`, as `capc session --trust` does
        #[arg(long, requires = "connect")]
        trust: bool,
        /// Compare only what is installed with the lock, without first checking that the lock
        /// still matches the folder's declarations (`capc lock --check` does that alone)
        #[arg(long)]
        installed_only: bool,
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
pub(crate) struct Shown {
    /// Show only findings at least this severe (the exit code still counts every finding)
    #[arg(long, value_enum, value_name = "LEVEL", default_value_t = MinSeverity::Info)]
    pub(crate) severity: MinSeverity,
    /// Warnings fail the check too (exit 1)
    #[arg(long)]
    pub(crate) strict: bool,
    /// Print how many findings each rule made, most first, instead of the findings (`human`,
    /// `short` or `json`)
    #[arg(long)]
    pub(crate) statistics: bool,
    /// `human`: show every finding in full. By default an info takes one line (and its help),
    /// and a finding repeated word for word is shown once, then each other place it was found
    #[arg(long)]
    pub(crate) verbose: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum MinSeverity {
    Error,
    Warning,
    Info,
}

impl MinSeverity {
    pub(crate) fn admits(self, severity: capc_compiler::Severity) -> bool {
        use capc_compiler::Severity as S;
        match self {
            MinSeverity::Error => severity == S::Error,
            MinSeverity::Warning => severity != S::Info,
            MinSeverity::Info => true,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum CheckFormat {
    Human,
    Json,
    Sarif,
    Github,
    Short,
}

/// How the checked folder is read: its configuration and ignore files.
#[derive(Args, Clone, Default)]
pub(crate) struct ReadingFlags {
    /// Use this configuration file instead of the capc.toml or .capc.toml found from PATH
    /// upwards (up to the repository's top)
    #[arg(long, value_name = "FILE", conflicts_with = "no_config")]
    pub(crate) config: Option<PathBuf>,
    /// Read no configuration file: defaults and flags only
    #[arg(long)]
    pub(crate) no_config: bool,
    /// Also read what .gitignore, .ignore and git's excludes name (left out by default, as
    /// ripgrep leaves them out)
    #[arg(long)]
    pub(crate) no_ignore: bool,
}

/// Which rules report; these flags override capc.toml.
#[derive(Args, Clone, Default)]
pub(crate) struct Selection {
    /// Only these rules report (comma-separated ids; replaces capc.toml's `select`)
    #[arg(long, value_name = "RULES", value_delimiter = ',')]
    pub(crate) select: Vec<String>,
    /// These rules do not report (comma-separated ids; added to capc.toml's `ignore`)
    #[arg(long, value_name = "RULES", value_delimiter = ',')]
    pub(crate) ignore: Vec<String>,
    /// Show what suppression comments and capc.toml's `per-path-ignores` hide (for audits)
    #[arg(long)]
    pub(crate) no_suppressions: bool,
}

/// How a session is loaded from a lock: shared by `capc session` and `capc serve`.
#[derive(Args)]
pub(crate) struct SessionFrom {
    /// Re-derive the whole lock from its sources first (the check `capc lock` runs, with the
    /// scopes given here) and refuse any difference: a changed, missing or new file by name,
    /// an edited entry as a diff
    #[arg(long)]
    pub(crate) verify: bool,
    /// Do not run `!` shell injections, even when the permission rules allow them
    #[arg(long)]
    pub(crate) no_shell: bool,
    /// Trust the folder, as accepting Claude Code's trust dialog does: its project allow
    /// rules hold, its `!` injections may run and its own MCP servers (`.mcp.json`, its
    /// plugins') may start. Without it, a session trusts the folder only when the user's
    /// own `.claude.json` (in `--user-dir`) says so for it or a parent folder; nothing in the
    /// repository can make it trusted
    #[arg(long)]
    pub(crate) trust: bool,
    /// What `!` injections do in a folder that is not trusted: `skip` runs none and says in
    /// each turn which ones Claude Code would run, under which rule; `run` runs those the
    /// command's own `allowed-tools`, the user's or the managed rules allow, as headless Claude
    /// Code (`claude -p`) does (the project's and local allow rules still do not hold)
    #[arg(long, value_enum, value_name = "WHAT", default_value = "skip")]
    pub(crate) untrusted_injections: UntrustedInjections,
    /// Start the session in this folder of the project (relative to it), as Claude Code started
    /// there would: the instruction files of every folder from the project's down to it are
    /// sent at the start, and `@` mentions are taken from it. What else loads is the lock's
    #[arg(long, value_name = "SUBDIR")]
    pub(crate) cwd: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) scopes: Scopes,
}

/// `--untrusted-injections`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum UntrustedInjections {
    /// Run none (the default: nothing a repository asks for runs before its folder is trusted)
    Skip,
    /// Run those the command's own `allowed-tools` and the user's or managed rules allow
    Run,
}

/// Scopes outside PATH; nothing outside PATH is read unless one is given.
#[derive(Args, Clone, Default)]
pub(crate) struct Scopes {
    /// Also read a user scope: a home folder whose `.claude/` holds skills, commands, agents and
    /// settings, and whose `.claude.json` holds user MCP servers
    #[arg(long, value_name = "DIR")]
    pub(crate) user_dir: Option<PathBuf>,
    /// Also read a managed scope: the folder of `managed-settings.json` and `managed-mcp.json`
    /// (`/etc/claude-code` on Linux)
    #[arg(long, value_name = "DIR")]
    pub(crate) managed_dir: Option<PathBuf>,
    /// Also read the skills and commands of DIR/.claude, as `claude --add-dir DIR` does (repeatable)
    #[arg(long, value_name = "DIR")]
    pub(crate) add_dir: Vec<PathBuf>,
    /// Load the plugin in DIR, as `claude --plugin-dir DIR` does (repeatable; in order, before
    /// the plugins settings enable)
    #[arg(long, value_name = "DIR")]
    pub(crate) plugin_dir: Vec<PathBuf>,
}

impl Scopes {
    /// The scope flags as both sides of `capc diff` read them (a `.claude` or `.claude-plugin`
    /// folder given for the folder holding it is taken as that folder, as every subcommand does).
    pub(crate) fn sides(&self) -> Result<capc_compiler::diff::revision::Scopes, ExitCode> {
        Ok(capc_compiler::diff::revision::Scopes {
            user_dir: scope_dir(self.user_dir.clone(), "--user-dir", Some(".claude"))?,
            managed_dir: self.managed_dir.clone(),
            add_dirs: scope_dirs(&self.add_dir, "--add-dir", ".claude")?,
            plugin_dirs: scope_dirs(&self.plugin_dir, "--plugin-dir", ".claude-plugin")?,
        })
    }

    /// Options for a command that writes no lock (no source hashes): the configuration found
    /// for `root`, with these flags over it. Says why not on stderr (exit 2).
    pub(crate) fn options(
        &self,
        root: PathBuf,
        reading: &ReadingFlags,
        selection: &Selection,
    ) -> Result<Options, ExitCode> {
        self.options_and_config(root, reading, selection).map(|(options, _)| options)
    }

    /// [`Scopes::options`] and the configuration they come from.
    pub(crate) fn options_and_config(
        &self,
        root: PathBuf,
        reading: &ReadingFlags,
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
            add_dir_instructions: add_dir_instructions(),
            start: String::new(),
            skip_hashes: true,
            skip_sources: false,
            keeps: capc_compiler::check::Keeps::Everything,
            leave_out_local: false,
            local_kept: Vec::new(),
            filter: config.filter(),
            policy: Some(std::sync::Arc::new(config.policy())),
            no_suppressions: selection.no_suppressions,
            texts: Default::default(),
            measure: Default::default(),
            surface: None,
            cache: None,
            root,
        };
        Ok((options, config))
    }

    /// The configuration for `root`: the file, then these flags.
    pub(crate) fn config(
        &self,
        root: &std::path::Path,
        reading: &ReadingFlags,
        selection: &Selection,
    ) -> Result<Config, ConfigError> {
        let mut config =
            if reading.no_config { Config::defaults(root) } else { Config::load(root, reading.config.as_deref())? };
        // A file found above the checked folder with no repository around it: named, since the
        // user may not know it applies (the search takes only their own, up to their home).
        if let Some(file) = config.file.as_deref().filter(|_| reading.config.is_none()) {
            if capc_compiler::config::outside_repository(root, file) {
                say!(
                    "note: using {}, found above {} (which is in no git repository)",
                    printable::escape(&file.display().to_string()),
                    printable::escape(
                        &root.canonicalize().unwrap_or_else(|_| root.to_path_buf()).display().to_string()
                    )
                );
            }
        }
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
pub(crate) fn scope_dirs(dirs: &[PathBuf], flag: &str, inner: &str) -> Result<Vec<PathBuf>, ExitCode> {
    dirs.iter().filter_map(|d| scope_dir(Some(d.clone()), flag, Some(inner)).transpose()).collect()
}

/// A scope folder as the user meant it: given the `.claude` folder (or a plugin's
/// `.claude-plugin`) instead of the folder that holds it, the folder that holds it, said on
/// stderr. A folder that does not exist is left for the check to report.
pub(crate) fn scope_dir(dir: Option<PathBuf>, flag: &str, inner: Option<&str>) -> Result<Option<PathBuf>, ExitCode> {
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
pub(crate) enum GraphFormat {
    Dot,
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum Format {
    Human,
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum Color {
    Auto,
    Always,
    Never,
}

/// Whether Claude Code reads the instruction files of `--add-dir` folders: the user's
/// environment sets `CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD` to `1`, `true`, `yes` or `on`.
pub(crate) fn add_dir_instructions() -> bool {
    std::env::var("CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD")
        .is_ok_and(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "1" | "true" | "yes" | "on"))
}

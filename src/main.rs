//! `capc`: the capability compiler for Claude Code. Each subcommand parses its flags,
//! calls one library function and maps the outcome to an exit code:
//! 0 clean (warnings allowed), 1 errors found, 2 capc itself could not run.

use capc_compiler::{report, rules, Options};
use clap::{Parser, Subcommand, ValueEnum};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

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
        /// Also check a user scope: a home folder whose `.claude/` holds skills, commands, agents and settings
        #[arg(long, value_name = "DIR")]
        user_dir: Option<PathBuf>,
        /// Also check a managed scope: the folder of `managed-settings.json` (`/etc/claude-code` on Linux)
        #[arg(long, value_name = "DIR")]
        managed_dir: Option<PathBuf>,
        /// When to color human output
        #[arg(long, value_enum, default_value_t = Color::Auto)]
        color: Color,
        /// Print the declaration files found (path, kind and, for skills, commands and agents, the name
        /// Claude Code gives them; tab-separated) instead of diagnostics
        #[arg(long)]
        list_files: bool,
    },
    /// List every rule, or print one rule's documentation
    Rules {
        /// A rule id such as `invalid-json`
        id: Option<String>,
    },
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
        Command::Check { path, format, user_dir, managed_dir, color, list_files } => {
            check(path, format, user_dir, managed_dir, color, list_files)
        }
        Command::Rules { id } => rules_command(id.as_deref()),
    }
}

fn check(
    path: PathBuf,
    format: Format,
    user_dir: Option<PathBuf>,
    managed_dir: Option<PathBuf>,
    color: Color,
    list_files: bool,
) -> ExitCode {
    let options = Options { root: path, user_dir, managed_dir };
    let checked = match capc_compiler::check(&options) {
        Ok(checked) => checked,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
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
        Format::Human => {
            let color = match color {
                Color::Always => true,
                Color::Never => false,
                Color::Auto => std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
            };
            report::to_text(&checked, color, terminal_width())
        }
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
fn write_stdout(text: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

//! `capc session` on a terminal: a small REPL for people, over the same session as the
//! JSON protocol. [`run`] reads lines from any reader (a script, a test); [`run_terminal`]
//! reads them with line editing and history (rustyline).

use crate::context::{Entry, TurnContext};
use crate::outcome::TurnResult;
use crate::session::Session;
use capc_compiler::diagnostic::did_you_mean;
use capc_compiler::plural::count;
use capc_compiler::printable::{escape, escape_lines};
use std::io::{BufRead, Write};
use std::path::PathBuf;

/// The REPL's own commands, with their one-line help.
const COMMANDS: &[(&str, &str)] = &[
    (":commands", "the command table, in lookup order (hidden rows marked)"),
    (":skills", "the Skill tool's listing"),
    (":agents", "the agent listing"),
    (":tools", "the tool pool, in order"),
    (":why NAME", "who answers to NAME and what it hides"),
    (":touch PATH", "mark a file as touched (activates nested and conditional skills)"),
    (
        ":entry MODE",
        "answer as Claude Code's terminal interface (`interactive`, the default) or `claude -p` (`headless`)",
    ),
    (":status", "the lock and the MCP servers (with --connect: live, with why a server failed)"),
    (":help", "this help"),
    (":quit", "leave (also :q, or Ctrl-D)"),
];

fn help() -> String {
    let mut out =
        String::from("/cmd args     run a slash command, as Claude Code would (anything else is a message)\n");
    for (name, what) in COMMANDS {
        out.push_str(&format!("{name:13} {what}\n"));
    }
    out.pop();
    out
}

/// What one line of input gives.
enum Answer {
    Quit,
    Nothing,
    Text(String),
}

/// The REPL's state between lines: the context of the next turn.
struct Repl {
    cx: TurnContext,
}

impl Repl {
    fn new(session: &Session) -> Repl {
        // A person at the REPL stands where Claude Code's terminal interface would: built-ins
        // such as /help and /mcp answer instead of "isn't available in this environment".
        Repl { cx: TurnContext { trusted: session.trusted, entry: Entry::Interactive, ..TurnContext::default() } }
    }

    fn banner(&self, session: &Session) -> String {
        format!(
            "capc session: {}, {}, {} in the lock; answering as Claude Code's {} ({}). :help for help.",
            count(session.loaded.lock.commands.len(), "command"),
            count(session.loaded.lock.agents.len(), "agent"),
            count(session.loaded.lock.mcp_servers.len(), "MCP server"),
            entry_name(self.cx.entry),
            if self.cx.trusted { "trusted folder" } else { "untrusted folder" }
        )
    }

    /// Answers one line on `out`; `false` when the line ends the REPL.
    fn respond(&mut self, session: &mut Session, line: &str, out: &mut impl Write) -> std::io::Result<bool> {
        match self.answer(session, line) {
            Answer::Quit => return Ok(false),
            Answer::Nothing => {}
            // Names, prompts and server messages come from the repository and the servers: no
            // control character reaches the terminal raw (newlines and tabs of the text stay).
            Answer::Text(text) => {
                writeln!(out, "{}", escape_lines(&text))?;
                out.flush()?;
            }
        }
        Ok(true)
    }

    fn answer(&mut self, session: &mut Session, line: &str) -> Answer {
        // What the live connections changed since the last line.
        session.sync();
        let line = line.trim();
        let (word, rest) = line.split_once(char::is_whitespace).map_or((line, ""), |(w, r)| (w, r.trim()));
        let text = match word {
            "" => return Answer::Nothing,
            ":quit" | ":q" | ":exit" => return Answer::Quit,
            ":help" | ":h" | ":?" => help(),
            ":commands" => commands(session, &self.cx),
            ":skills" => or_none(session.view(&self.cx).skill_listing, "(no Skill listing in this context)"),
            ":agents" => or_none(session.view(&self.cx).agent_listing, "(no agent listing in this context)"),
            ":tools" => session
                .view(&self.cx)
                .tools
                .iter()
                .map(|t| if t.deferred { format!("{} (deferred)", t.name) } else { t.name.to_string() })
                .collect::<Vec<_>>()
                .join("\n"),
            ":why" if rest.is_empty() => "usage: :why NAME (a command, skill or agent name)".to_string(),
            ":why" => session.why(rest),
            ":touch" if rest.is_empty() => "usage: :touch PATH (relative to the project)".to_string(),
            ":touch" => {
                self.cx.touched_files.push(rest.to_string());
                format!("touched {rest}")
            }
            ":entry" => match rest {
                "interactive" => {
                    self.cx.entry = Entry::Interactive;
                    "answering as Claude Code's terminal interface".to_string()
                }
                "headless" => {
                    self.cx.entry = Entry::Headless;
                    "answering as `claude -p` (headless)".to_string()
                }
                "" => format!("answering as Claude Code's {}", entry_name(self.cx.entry)),
                other => format!("error: `{other}` is not an entry point; use `interactive` or `headless`"),
            },
            ":status" => status(session),
            _ if word.starts_with(':') => {
                let names: Vec<&str> = COMMANDS.iter().map(|(n, _)| n.split(' ').next().unwrap_or(n)).collect();
                let mut text = format!("error: no REPL command `{word}`");
                if let Some(near) = did_you_mean(word, names.iter().copied()) {
                    text.push_str(&format!("; did you mean `{near}`?"));
                }
                text.push_str(" (:help lists them; a line starting with `/` runs a slash command)");
                text
            }
            _ => turn(session, line, &self.cx),
        };
        Answer::Text(text)
    }
}

fn entry_name(entry: Entry) -> &'static str {
    match entry {
        Entry::Interactive => "terminal interface",
        Entry::Headless => "headless `claude -p`",
    }
}

fn or_none(text: String, none: &str) -> String {
    if text.trim().is_empty() {
        none.to_string()
    } else {
        text
    }
}

/// `:commands`: every row of the table in lookup order. A row another row hides (an earlier
/// one with the same name, which a typed name reaches first) is marked with what hides it.
fn commands(session: &Session, cx: &TurnContext) -> String {
    let view = session.view(cx);
    let mut first: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let mut out = Vec::new();
    for (i, c) in view.commands.iter().enumerate() {
        let mut row = format!(
            "{:>4}  /{:30} {:9} {}",
            i + 1,
            escape(&c.name),
            c.scope.as_str(),
            escape(c.path.as_deref().unwrap_or(c.kind.as_str()))
        );
        let mut also: Vec<String> = Vec::new();
        if let Some(display) = &c.display {
            also.push(format!("shown as /{}", escape(display)));
        }
        if !c.aliases.is_empty() {
            let aliases: Vec<String> = c.aliases.iter().map(|a| format!("/{}", escape(a))).collect();
            also.push(format!("alias {}", aliases.join(", ")));
        }
        if c.dynamic {
            also.push("active: a touched file".to_string());
        }
        match first.get(&*c.name) {
            Some(&j) => {
                let by = &view.commands[j];
                also.push(format!(
                    "hidden: /{} runs row {} ({})",
                    escape(&c.name),
                    j + 1,
                    escape(by.path.as_deref().unwrap_or(by.kind.as_str()))
                ));
            }
            None => {
                first.insert(&c.name, i);
            }
        }
        if !also.is_empty() {
            row.push_str(&format!("  [{}]", also.join("; ")));
        }
        out.push(row);
    }
    out.join("\n")
}

/// A line that is not a REPL command: a turn, told as a person wants to read it.
fn turn(session: &mut Session, line: &str, cx: &TurnContext) -> String {
    let result = session.turn(line, cx.clone()).result;
    match result {
        TurnResult::Prompt { command, texts, .. } => {
            if texts.is_empty() {
                format!("/{command} sends nothing")
            } else {
                format!("── prompt for /{command} ──\n{}", texts.join("\n"))
            }
        }
        TurnResult::Fork { command, agent, prompt, .. } => {
            format!("── /{command} runs in a subagent ({agent}) ──\n{prompt}")
        }
        TurnResult::McpPrompt { command, texts: Some(texts), .. } if !texts.is_empty() => {
            format!("── MCP prompt /{command} ──\n{}", texts.join("\n"))
        }
        TurnResult::ShellError { message, .. } | TurnResult::Error { message } => format!("error: {message}"),
        TurnResult::Message { .. } => "(sent to the model as a message)".to_string(),
        TurnResult::Unknown { command, did_you_mean: closest } => {
            let mut text = format!("/{command} is not a command here");
            if let Some(near) = closest {
                text.push_str(&format!(" (did you mean /{near}?)"));
            }
            text.push_str(match cx.entry {
                Entry::Interactive => "; Claude Code says `Unknown command` and sends nothing",
                Entry::Headless => {
                    "; Claude Code sends the line to the model after a reminder of the commands there are"
                }
            });
            text
        }
        TurnResult::Disabled { command, output } | TurnResult::ModelOnly { command, output } => {
            shown_output(&command, Some(output), None)
        }
        TurnResult::Local { command, output, note, .. } => shown_output(&command, output, note),
        // Keys sorted, as the protocol prints them.
        other => serde_json::to_value(&other).and_then(|v| serde_json::to_string_pretty(&v)).unwrap_or_default(),
    }
}

/// What a command that prints prints, or its note when capc does not reproduce it.
fn shown_output(command: &str, output: Option<String>, note: Option<String>) -> String {
    match (output, note) {
        (Some(output), _) if output.is_empty() => format!("/{command}: (no output)"),
        (Some(output), _) => output,
        (_, Some(note)) => format!("/{command} {note}"),
        _ => format!("/{command}: (no output)"),
    }
}

/// Runs the REPL on lines from `input` until `:quit` or end of input (scripts and tests).
pub fn run(session: &mut Session, mut input: impl BufRead, mut out: impl Write) -> std::io::Result<()> {
    let mut repl = Repl::new(session);
    writeln!(out, "{}", repl.banner(session))?;
    loop {
        write!(out, "capc> ")?;
        out.flush()?;
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            return Ok(());
        }
        if !repl.respond(session, &line, &mut out)? {
            return Ok(());
        }
    }
}

/// Where the REPL keeps its history: `CAPC_HISTORY` (empty: nowhere), else
/// `$XDG_STATE_HOME/capc/session_history`, else `~/.local/state/capc/session_history`.
pub(crate) fn history_file() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("CAPC_HISTORY") {
        return (!path.is_empty()).then(|| PathBuf::from(path));
    }
    let state = std::env::var_os("XDG_STATE_HOME").filter(|d| !d.is_empty()).map(PathBuf::from).or_else(|| {
        std::env::var_os("HOME").filter(|h| !h.is_empty()).map(|h| PathBuf::from(h).join(".local/state"))
    })?;
    Some(state.join("capc/session_history"))
}

/// Runs the REPL on the terminal, with line editing (arrows, Ctrl-A/E, Ctrl-R search) and a
/// history kept across sessions in [`history_file`] (1,000 lines, written owner-only).
/// Ctrl-C clears the line; Ctrl-D on an empty line leaves.
pub fn run_terminal(session: &mut Session, mut out: impl Write) -> std::io::Result<()> {
    use rustyline::error::ReadlineError;
    let config = rustyline::Config::builder()
        .max_history_size(1000)
        .map_err(std::io::Error::other)?
        .history_ignore_dups(true)
        .map_err(std::io::Error::other)?
        .history_ignore_space(true)
        .build();
    let mut editor = rustyline::DefaultEditor::with_config(config).map_err(std::io::Error::other)?;
    let history = history_file();
    if let Some(path) = &history {
        // A missing history is the first session's; any other problem costs only the history.
        let _ = editor.load_history(path);
    }
    let mut repl = Repl::new(session);
    writeln!(out, "{}", repl.banner(session))?;
    loop {
        let line = match editor.readline("capc> ") {
            Ok(line) => line,
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => break,
            Err(e) => return Err(std::io::Error::other(e)),
        };
        if !line.trim().is_empty() {
            let _ = editor.add_history_entry(line.as_str());
        }
        if !repl.respond(session, &line, &mut out)? {
            break;
        }
    }
    if let Some(path) = &history {
        save_history(&mut editor, path);
    }
    Ok(())
}

/// Writes the history owner-only (it may hold what was typed), creating its folder.
fn save_history(editor: &mut rustyline::DefaultEditor, path: &std::path::Path) {
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    if editor.save_history(path).is_ok() {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600));
        }
    }
}

/// `:status` for people: the lock in one line, then each MCP server with what it offers or
/// why it failed.
fn status(session: &Session) -> String {
    let lock = &session.loaded.lock;
    let mut out = format!(
        "lock: {}, {}, {}, {}, {} (follows Claude Code {})\n",
        count(lock.commands.len(), "command"),
        count(lock.agents.len(), "agent"),
        count(lock.mcp_servers.len(), "MCP server"),
        count(lock.hooks.len(), "hook"),
        count(lock.permissions.len(), "permission rule"),
        lock.claude_code
    );
    let servers: Vec<_> = session.mcp.servers().collect();
    if servers.is_empty() {
        out.push_str("MCP servers: none");
        return out;
    }
    out.push_str("MCP servers:");
    let width = servers.iter().map(|s| s.name.len()).max().unwrap_or(0);
    let indent = " ".repeat(width + 16);
    for s in servers {
        let status = s.status.as_str();
        let mut what = match s.status {
            crate::mcp::Status::Connected => {
                let mut what = format!(
                    "{}, {}, {}",
                    count(s.tools.len(), "tool"),
                    count(s.prompts.len(), "prompt"),
                    count(s.resources.len(), "resource")
                );
                if let Some(protocol) = &s.protocol {
                    what.push_str(&format!(", protocol {protocol}"));
                }
                what
            }
            _ => String::new(),
        };
        if let Some(error) = &s.error {
            if !what.is_empty() {
                what.push_str("; ");
            }
            what.push_str(error);
        }
        let what = what.lines().collect::<Vec<_>>().join(&format!("\n{indent}"));
        out.push_str(&format!("\n  {:width$}  {status:<10}  {what}", escape(&s.name)));
    }
    out
}

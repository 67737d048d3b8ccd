//! `capc session` on a terminal: a small REPL for people, over the same session as the
//! JSON protocol.

use crate::session::Session;
use crate::turn::TurnContext;
use capc_compiler::printable::{escape, escape_lines};
use std::io::{BufRead, Write};

const HELP: &str = "/cmd args   run a slash command (or type a message)\n\
:commands   the command table, in lookup order\n\
:skills     the Skill tool's listing\n\
:agents     the agent listing\n\
:tools      the tool pool, in order\n\
:why NAME   who answers to NAME and what it hides\n\
:touch PATH mark a file as touched (activates nested and conditional skills)\n\
:status     the lock and the MCP servers (with --connect: live, with why a server failed)\n\
:quit       leave";

/// Runs the REPL on `input` and `out` until `:quit` or end of input.
pub fn run(session: &mut Session, mut input: impl BufRead, mut out: impl Write) -> std::io::Result<()> {
    let mut cx = TurnContext { trusted: session.trusted, ..TurnContext::default() };
    writeln!(
        out,
        "capc session: {} commands, {} agents, {} MCP servers in the lock. :help for help.",
        session.loaded.lock.commands.len(),
        session.loaded.lock.agents.len(),
        session.loaded.lock.mcp_servers.len()
    )?;
    loop {
        write!(out, "capc> ")?;
        out.flush()?;
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            return Ok(());
        }
        // What the live connections changed since the last line.
        session.sync();
        let line = line.trim();
        let (word, rest) = line.split_once(' ').map_or((line, ""), |(w, r)| (w, r.trim()));
        let text = match word {
            "" => continue,
            ":quit" | ":q" => return Ok(()),
            ":help" => HELP.to_string(),
            ":commands" => session
                .view(&cx)
                .commands
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    format!(
                        "{:>4}  /{:30} {:9} {}",
                        i + 1,
                        c.name,
                        c.scope.as_str(),
                        c.path.as_deref().unwrap_or(c.kind)
                    )
                })
                .collect::<Vec<_>>()
                .join("\n"),
            ":skills" => session.view(&cx).skill_listing,
            ":agents" => session.view(&cx).agent_listing,
            ":tools" => session
                .view(&cx)
                .tools
                .iter()
                .map(|t| if t.deferred { format!("{} (deferred)", t.name) } else { t.name.to_string() })
                .collect::<Vec<_>>()
                .join("\n"),
            ":why" => session.why(rest),
            ":touch" => {
                cx.touched_files.push(rest.to_string());
                format!("touched {rest}")
            }
            ":status" => status(session),
            _ => {
                let result = session.turn(line, cx.clone()).result;
                match result.get("kind").and_then(|k| k.as_str()) {
                    Some("prompt") => match result.get("texts").and_then(|t| t.as_array()) {
                        Some(texts) if !texts.is_empty() => {
                            let texts: Vec<&str> = texts.iter().filter_map(|t| t.as_str()).collect();
                            format!(
                                "── prompt for /{} ──\n{}",
                                result["command"].as_str().unwrap_or(""),
                                texts.join("\n")
                            )
                        }
                        _ => serde_json::to_string_pretty(&result).unwrap_or_default(),
                    },
                    Some("error") => format!("error: {}", result["message"].as_str().unwrap_or("")),
                    Some("message") => "(sent to the model as a message)".to_string(),
                    Some("unknown") => {
                        let mut text = format!(
                            "/{} is not a command here: Claude Code sends the line to the model after a reminder of the commands there are",
                            result["command"].as_str().unwrap_or("")
                        );
                        if let Some(near) = result["did_you_mean"].as_str() {
                            text.push_str(&format!(" (the closest: /{near})"));
                        }
                        text
                    }
                    Some("local" | "disabled" | "model-only") if result["output"].is_string() => {
                        match result["output"].as_str().unwrap_or("") {
                            "" => "(no output)".to_string(),
                            output => output.to_string(),
                        }
                    }
                    _ => serde_json::to_string_pretty(&result).unwrap_or_default(),
                }
            }
        };
        // Names, prompts and server messages come from the repository and the servers: no
        // control character reaches the terminal raw (newlines and tabs of the text stay).
        writeln!(out, "{}", escape_lines(&text))?;
    }
}

/// `:status` for people: the lock in one line, then each MCP server with what it offers or
/// why it failed.
fn status(session: &Session) -> String {
    let lock = &session.loaded.lock;
    let mut out = format!(
        "lock: {} commands, {} agents, {} MCP servers, {} hooks, {} permission rules (Claude Code {})\n",
        lock.commands.len(),
        lock.agents.len(),
        lock.mcp_servers.len(),
        lock.hooks.len(),
        lock.permissions.len(),
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
                let mut what =
                    format!("{} tools, {} prompts, {} resources", s.tools.len(), s.prompts.len(), s.resources.len());
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

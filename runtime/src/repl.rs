//! `capc session` on a terminal: a small REPL for people, over the same session as the
//! JSON protocol.

use crate::session::Session;
use crate::turn::TurnContext;
use std::io::{BufRead, Write};

const HELP: &str = "/cmd args   run a slash command (or type a message)\n\
:commands   the command table, in lookup order\n\
:skills     the Skill tool's listing\n\
:tools      the tool pool, in order\n\
:why NAME   who answers to NAME and what it hides\n\
:touch PATH mark a file as touched (activates nested and conditional skills)\n\
:status     the lock and the MCP servers\n\
:quit       leave";

/// Runs the REPL on `input` and `out` until `:quit` or end of input.
pub fn run(session: &mut Session, mut input: impl BufRead, mut out: impl Write) -> std::io::Result<()> {
    let mut cx = TurnContext::default();
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
            ":status" => serde_json::to_string_pretty(&session.status()).unwrap_or_default(),
            _ => {
                let (_, result) = session.turn(line, cx.clone());
                match result.get("kind").and_then(|k| k.as_str()) {
                    Some("prompt") => result.get("text").and_then(|t| t.as_str()).map_or_else(
                        || serde_json::to_string_pretty(&result).unwrap_or_default(),
                        |t| format!("── prompt for /{} ──\n{t}", result["command"].as_str().unwrap_or("")),
                    ),
                    Some("error") => format!("error: {}", result["message"].as_str().unwrap_or("")),
                    Some("message") => "(sent to the model as a message)".to_string(),
                    _ => serde_json::to_string_pretty(&result).unwrap_or_default(),
                }
            }
        };
        writeln!(out, "{text}")?;
    }
}

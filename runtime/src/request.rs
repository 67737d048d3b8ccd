//! What Claude Code sends for a turn, in the shape `tests/oracle/regen.py` records it
//! from a real request: the `tools` array, the deferred tools announced, the Skill and agent
//! listings line by line, the `<command-name>`s and the user-turn texts — or, for an input
//! that makes no request, what Claude Code prints instead. The session's `request` part.
//!
//! The texts of a slash command: `<command-message>NAME</command-message>\n<command-name>/NAME
//! </command-name>\n` (plus `<command-args>ARGS</command-args>\n` when there are arguments),
//! then a second block, the expanded prompt, which for a skill starts with `Base directory for
//! this skill: DIR\n\n`. An unknown `/name` in a headless session goes to the model as typed,
//! after a reminder naming the commands there are ([`unknown_command_reminder`]).

use crate::turn::TurnView;
use serde::Serialize;
use std::sync::Arc;

/// One turn's request, or what replaced it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Request {
    /// Whether the input makes a request at all.
    pub sent: bool,
    /// The `tools` array, in order.
    pub tools: Vec<Arc<str>>,
    /// The deferred tools the request announces.
    pub deferred: Vec<Arc<str>>,
    /// The Skill listing, line by line as sent (a description may span lines).
    pub skill_listing: Vec<String>,
    /// The agent listing, line by line as sent.
    pub agent_listing: Vec<String>,
    /// The `<command-name>`s of the user turn.
    pub commands: Vec<String>,
    /// The user turn's text blocks.
    pub texts: Vec<String>,
    /// What Claude Code prints instead, when it makes no request.
    pub stdout: Vec<String>,
    /// What Claude Code prints on stderr.
    pub stderr: Vec<String>,
}

fn lines(text: &str) -> Vec<String> {
    if text.is_empty() {
        Vec::new()
    } else {
        text.split('\n').map(str::to_string).collect()
    }
}

/// The `<command-name>` values in `texts`.
fn command_names(texts: &[String]) -> Vec<String> {
    const OPEN: &str = "<command-name>";
    const CLOSE: &str = "</command-name>";
    let mut out = Vec::new();
    for text in texts {
        let mut rest = text.as_str();
        while let Some(start) = rest.find(OPEN) {
            let after = &rest[start + OPEN.len()..];
            let Some(end) = after.find(CLOSE) else { break };
            out.push(after[..end].to_string());
            rest = &after[end + CLOSE.len()..];
        }
    }
    out
}

impl Request {
    /// The main thread's request for this turn, with these user texts.
    pub fn main(view: &TurnView, texts: Vec<String>) -> Request {
        Request {
            sent: true,
            tools: view.sent_tools(),
            deferred: view.deferred(),
            skill_listing: lines(&view.skill_listing),
            agent_listing: lines(&view.agent_listing),
            commands: command_names(&texts),
            texts,
            stdout: Vec::new(),
            stderr: view.notices.clone(),
        }
    }

    /// No request: Claude Code prints `stdout` instead.
    pub fn none(view: &TurnView, stdout: Vec<String>) -> Request {
        Request { stdout, stderr: view.notices.clone(), ..Request::default() }
    }

    /// A turn that sends no attachments: an MCP prompt's turn carries neither the deferred-tools
    /// announcement nor the listings.
    pub(crate) fn without_attachments(mut self) -> Request {
        self.deferred.clear();
        self.skill_listing.clear();
        self.agent_listing.clear();
        self
    }
}

/// The first text block of a slash command's turn.
pub(crate) fn command_block(name: &str, args: &str) -> String {
    let mut out = format!("<command-message>{name}</command-message>\n<command-name>/{name}</command-name>\n");
    if !args.is_empty() {
        out.push_str(&format!("<command-args>{args}</command-args>\n"));
    }
    out
}

/// The prompt block of a skill: its folder, then the expanded body.
pub(crate) fn skill_block(dir: &str, body: &str) -> String {
    format!("Base directory for this skill: {dir}\n\n{body}")
}

/// How many commands of a headless Claude Code session are neither named in the
/// unknown-command reminder nor declared by the user: its built-in commands that work without
/// the terminal and the bundled skills the model may not invoke (measured: 28 in
/// `turn-expand-unknown`, whatever the declarations).
pub(crate) const HEADLESS_BUILTIN_UNNAMED: usize = 28;

/// The most commands the reminder names.
pub(crate) const MAX_NAMED: usize = 40;

/// The reminder before an unknown `/name` in a headless session: up to 40 commands the user
/// may type and the model may run (`named`, `/`-less, in command order), how many more there
/// are, and the closest name.
pub(crate) fn unknown_command_reminder(name: &str, named: &[String], more: usize, closest: Option<&str>) -> String {
    let mut out = format!(
        "<system-reminder>\nThe user's message starts with the slash command /{name}, but no command with that name is available in this session, so it did not run. "
    );
    if let Some(closest) = closest {
        out.push_str(&format!("The closest available command is /{closest}. Ask the user before running it. "));
    }
    let shown = named.len().min(MAX_NAMED);
    let more = more + (named.len() - shown);
    if shown == 0 {
        out.push_str("No slash commands are available in this session.");
    } else {
        let list: Vec<String> = named[..shown].iter().map(|n| format!("/{n}")).collect();
        out.push_str("Slash commands available in this session: ");
        out.push_str(&list.join(", "));
        if more > 0 {
            out.push_str(&format!(", and {more} more"));
        }
        out.push('.');
    }
    out.push_str(" Treat the message as a plain request and do the task with the tools you have. If the task needs that command, tell the user it is not installed in this session. The user can add it as an organization plugin or a project skill. Do not give installation steps you are not sure of. Do not say the command ran.\n</system-reminder>");
    out
}

/// The edit distance of two names (Levenshtein, by character).
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1).min(row[j] + 1).min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

/// The nearest of `candidates` within edit distance 2 (the first of equals).
pub(crate) fn closest<'c>(name: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    candidates
        .into_iter()
        .map(|c| (edit_distance(name, c), c))
        .filter(|(d, _)| *d <= 2)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks() {
        assert_eq!(
            command_block("greet", "\"Ann Lee\" Paris"),
            "<command-message>greet</command-message>\n<command-name>/greet</command-name>\n<command-args>\"Ann Lee\" Paris</command-args>\n"
        );
        assert_eq!(
            command_block("init", ""),
            "<command-message>init</command-message>\n<command-name>/init</command-name>\n"
        );
        assert_eq!(command_names(&[command_block("init", "")]), ["/init"]);
    }

    #[test]
    fn closest_names() {
        let names = ["greet", "noargs", "legacy", "plain", "init", "loop"];
        assert_eq!(closest("gret", names), Some("greet"));
        assert_eq!(closest("lint", names), Some("init"));
        assert_eq!(closest("nope", names), None);
    }

    #[test]
    fn reminder_text() {
        let named = vec!["greet".to_string()];
        let text = unknown_command_reminder("gret", &named, 28, Some("greet"));
        assert!(text.contains("so it did not run. The closest available command is /greet. Ask the user before running it. Slash commands available in this session: /greet, and 28 more. Treat"));
        assert!(unknown_command_reminder("x", &[], 0, None)
            .contains("did not run. No slash commands are available in this session. Treat"));
    }
}

//! Where Claude Code would ask its user, `capc serve` asks the client's user: an MCP
//! `elicitation/create` in form mode, sent only to a client that declared the capability.
//! Three questions: the Skill tool for a skill that needs a permission rule, a gateway tool
//! call no rule allows, and a `!` injection whose decision is ask. Each is worded as Claude
//! Code's permission dialog words it (its title, its "Do you want to proceed?", its
//! "Yes, and don't ask again for … in …" row), with four choices: allow once, allow for the
//! rest of the session, always allow (the rule added to `.claude/settings.local.json`, where
//! Claude Code writes it), and deny. A client without the capability gets the headless
//! refusal, which names the rule to add.
//!
//! [`save_allow_rule`] is the one write `capc serve` makes in the repository, and only on the
//! user's answer: the file is read, the rule added to `permissions.allow` once, and the file
//! written back as Claude Code writes it (its keys in their order, two-space indentation),
//! through a temporary file renamed over it. Nothing is written through a symbolic link, and
//! a file that is not a JSON object is left as it is.

use capc_compiler::json;
use capc_compiler::node::{Node, NodeKind};
use rmcp::model::{
    ConstTitle, ElicitRequestParams, ElicitationAction, ElicitationSchema, EnumSchema, PrimitiveSchemaDefinition,
    SingleSelectEnumSchema, TitledSingleSelectEnumSchema,
};
use rmcp::service::ElicitationMode;
use rmcp::{Peer, RoleServer};
use std::path::{Path, PathBuf};

/// A rule's content as Claude Code writes it: `\\`, `(` and `)` escaped by a backslash.
fn escape_rule_content(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '\\' | '(' | ')') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `rule` parses back as a rule for exactly `subject`: an exact command, an exact skill name,
/// a whole tool named without a glob.
fn names_only(rule: &str, subject: &Subject) -> bool {
    use capc_grammar::{BashPattern, RuleContent, SkillPattern};
    let Ok(parsed) = capc_grammar::parse_permission_rule(rule) else { return false };
    match (subject, &parsed.content) {
        (Subject::Shell { command, .. }, Some(RuleContent::Bash(BashPattern::Exact(exact)))) => exact == command.trim(),
        (Subject::Skill { name, .. }, Some(RuleContent::Skill(SkillPattern::Exact(exact)))) => exact == name,
        (Subject::Tool { name, .. }, None) => parsed.tool.canonical == *name && !name.contains('*'),
        _ => false,
    }
}

/// The form's one field.
pub(crate) const FIELD: &str = "answer";
/// What Claude Code tells the model when its user answers No.
pub const REJECTED: &str = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.";
/// Where Claude Code writes a "don't ask again" answer, relative to the project.
pub(crate) const LOCAL_SETTINGS: &str = ".claude/settings.local.json";
/// The most questions one request may ask (a skill, then each of its `!` injections).
pub(crate) const MAX_QUESTIONS: usize = 16;

/// What is asked about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subject {
    /// The Skill tool for this skill (its name as the table gives it), with its description.
    Skill { name: String, description: Option<String> },
    /// A gateway call of `mcp__<server>__<tool>`.
    Tool { name: String, server: String, tool: String },
    /// A `!` injection of the command or skill `by`.
    Shell { command: String, by: String },
}

/// A question: its subject, the allow rule a yes adds, and whether "always" is offered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    pub subject: Subject,
    pub rule: String,
    /// Offered when the rule would hold in a later session (the folder is trusted: Claude
    /// Code ignores the local settings' allow rules otherwise) and holds no secret.
    pub always: bool,
}

/// The user's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    Once,
    Session,
    Always,
    /// No, declined or dismissed: Claude Code treats all three as No.
    No,
}

impl Answer {
    fn value(self) -> &'static str {
        match self {
            Answer::Once => "yes",
            Answer::Session => "yes-session",
            Answer::Always => "yes-always",
            Answer::No => "no",
        }
    }
}

impl Question {
    /// The question about `subject`, or `None` when no allow rule allows exactly that and
    /// nothing more: in a rule a `*` is a wildcard (and a trailing `:*` a prefix), so a `!`
    /// command, skill or tool whose text holds one has no rule a yes could add without allowing
    /// other commands too (`Bash(tar -czf b.tgz src/*)` allows `tar -czf b.tgz src/
    /// --checkpoint-action=exec=…`). Claude Code offers no "don't ask again" for such a command.
    pub fn new(subject: Subject, trusted: bool) -> Option<Question> {
        let rule = match &subject {
            Subject::Skill { name, .. } => format!("Skill({})", escape_rule_content(name)),
            Subject::Tool { name, .. } => name.clone(),
            Subject::Shell { command, .. } => format!("Bash({})", escape_rule_content(command.trim())),
        };
        if !names_only(&rule, &subject) {
            return None;
        }
        // Claude Code offers "don't ask again" for no command of more than one line either.
        let one_line = !matches!(&subject, Subject::Shell { command, .. } if command.trim().contains('\n'));
        let always = trusted && one_line && capc_compiler::secrets::token_spans(&rule).is_empty();
        Some(Question { subject, rule, always })
    }

    /// The text above the choices: the dialog's title, what it shows, and its question.
    pub fn message(&self) -> String {
        let mut lines: Vec<String> = Vec::new();
        match &self.subject {
            Subject::Skill { name, description } => {
                // Claude Code's dialog is titled with the skill's name.
                lines.push(name.clone());
                lines.push("Claude may use instructions, code, or files from this Skill.".to_string());
                if let Some(d) = description.as_deref().map(str::trim).filter(|d| !d.is_empty()) {
                    lines.push(d.to_string());
                }
            }
            Subject::Tool { server, tool, .. } => {
                lines.push("Tool use".to_string());
                lines.push(format!("{server} - {tool} (MCP)"));
            }
            Subject::Shell { command, by } => {
                lines.push("Bash command".to_string());
                lines.push(command.trim().to_string());
                lines.push(format!("A `!` command of /{by}, run before its prompt is sent"));
            }
        }
        lines.push("Do you want to proceed?".to_string());
        capc_compiler::printable::escape_lines(&lines.join("\n")).into_owned()
    }

    /// The choices, in the dialog's order, each with its label.
    pub fn choices(&self, cwd: &Path) -> Vec<(Answer, String)> {
        let shown = shown_folder(cwd);
        let mut out = vec![(Answer::Once, "Yes".to_string()), (Answer::Session, "Allow for this session".to_string())];
        if self.always {
            let label = match &self.subject {
                Subject::Skill { name, .. } => format!("Yes, and don't ask again for {name} in {shown}"),
                Subject::Tool { server, tool, .. } => {
                    format!("Yes, and don't ask again for {server} - {tool} (MCP) commands in {shown}")
                }
                Subject::Shell { command, .. } => {
                    format!("Yes, and don't ask again for {} commands in {shown}", command.trim())
                }
            };
            out.push((Answer::Always, capc_compiler::printable::escape(&label).into_owned()));
        }
        out.push((Answer::No, "No".to_string()));
        out
    }

    fn schema(&self, cwd: &Path) -> Result<ElicitationSchema, String> {
        let one_of = self.choices(cwd).into_iter().map(|(a, label)| ConstTitle::new(a.value(), label)).collect();
        let mut choice = TitledSingleSelectEnumSchema::new(one_of);
        choice.title = Some("Do you want to proceed?".into());
        let choice = EnumSchema::Single(SingleSelectEnumSchema::Titled(choice));
        ElicitationSchema::builder()
            .required_property(FIELD, PrimitiveSchemaDefinition::Enum(choice))
            .build()
            .map_err(str::to_string)
    }
}

/// `~/…` for a folder in the home folder, as Claude Code shows the folder a rule is for.
fn shown_folder(cwd: &Path) -> String {
    let home = std::env::var_os("HOME").map(PathBuf::from).filter(|h| !h.as_os_str().is_empty());
    match home.as_deref().and_then(|h| cwd.strip_prefix(h).ok()) {
        Some(rest) if rest.as_os_str().is_empty() => "~".to_string(),
        Some(rest) => format!("~/{}", rest.display()),
        None => cwd.display().to_string(),
    }
}

/// The client declared form elicitation: it can ask its user.
pub(crate) fn can_ask(peer: &Peer<RoleServer>) -> bool {
    peer.supported_elicitation_modes().contains(&ElicitationMode::Form)
}

/// Asks the client's user; `Err` when the client could not (an error answer, a broken
/// connection), which the caller treats as a client that cannot ask.
pub async fn ask(peer: &Peer<RoleServer>, question: &Question, cwd: &Path) -> Result<Answer, String> {
    let params = ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: question.message(),
        requested_schema: question.schema(cwd)?,
    };
    let result = peer.create_elicitation(params).await.map_err(|e| e.to_string())?;
    Ok(match result.action {
        ElicitationAction::Accept => {
            let value = result.content.as_ref().and_then(|c| c.get(FIELD)).and_then(|v| v.as_str());
            let offered = question.choices(cwd);
            match offered.iter().find(|(a, _)| Some(a.value()) == value) {
                Some((answer, _)) => *answer,
                // An answer that is not one of the choices allows nothing.
                None => Answer::No,
            }
        }
        // Declined, dismissed, or an action this version does not know.
        _ => Answer::No,
    })
}

/// Why an answer could not be saved.
#[derive(Debug)]
pub(crate) struct NotSaved(pub String);

impl std::fmt::Display for NotSaved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the rule was not saved to {LOCAL_SETTINGS}: {}", self.0)
    }
}

/// Adds `rule` to `permissions.allow` of `root/.claude/settings.local.json` (made when absent),
/// keeping the file's other content; nothing is written when the rule is there already.
/// Refused: a `.claude` or a file that is a symbolic link or not what its name says, a file
/// that is not a JSON object, a `permissions` or `allow` of the wrong type.
pub(crate) fn save_allow_rule(root: &Path, rule: &str) -> Result<(), NotSaved> {
    let fail = |why: String| NotSaved(why);
    let folder = root.join(".claude");
    match std::fs::symlink_metadata(&folder) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Err(fail("`.claude` is not a folder (or is a symbolic link)".to_string())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir(&folder).map_err(|e| fail(format!("cannot make `.claude`: {e}")))?
        }
        Err(e) => return Err(fail(e.to_string())),
    }
    let path = folder.join("settings.local.json");
    let (text, mode) = match std::fs::symlink_metadata(&path) {
        Ok(m) if m.is_file() => {
            let bytes = capc_compiler::walk::read_regular(
                &path,
                capc_compiler::walk::MAX_FILE_BYTES,
                capc_compiler::walk::Links::Refuse,
            )
            .map_err(|e| fail(e.to_string()))?;
            let text = String::from_utf8(bytes).map_err(|_| fail("the file is not UTF-8".to_string()))?;
            (text, Some(m.permissions()))
        }
        Ok(_) => return Err(fail("the file is not a regular file (or is a symbolic link)".to_string())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (String::new(), None),
        Err(e) => return Err(fail(e.to_string())),
    };
    let Some(updated) = with_allow_rule(&text, rule).map_err(fail)? else { return Ok(()) };
    write_replacing(&folder, &path, updated.as_bytes(), mode).map_err(|e| fail(e.to_string()))
}

/// Writes `bytes` to a new file beside `path`, created exclusively, then renames it over `path`.
fn write_replacing(
    folder: &Path,
    path: &Path,
    bytes: &[u8],
    permissions: Option<std::fs::Permissions>,
) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut attempt = 0u32;
    let (temporary, mut file) = loop {
        let candidate = folder.join(format!(".settings.local.json.capc-{}-{attempt}", std::process::id()));
        match std::fs::OpenOptions::new().write(true).create_new(true).open(&candidate) {
            Ok(file) => break (candidate, file),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempt < 100 => attempt += 1,
            Err(e) => return Err(e),
        }
    };
    let written = file.write_all(bytes).and_then(|()| file.sync_all());
    let renamed = written
        .and_then(|()| permissions.map_or(Ok(()), |p| std::fs::set_permissions(&temporary, p)))
        .and_then(|()| std::fs::rename(&temporary, path));
    if renamed.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    renamed
}

/// `text` (a settings file, or empty for none) with `rule` added to `permissions.allow`;
/// `None` when it is there already.
pub(crate) fn with_allow_rule(text: &str, rule: &str) -> Result<Option<String>, String> {
    let mut root = if text.trim().is_empty() {
        Value::Object(Vec::new())
    } else {
        let node = json::parse(text).map_err(|e| format!("the file is not valid JSON ({})", e.message))?;
        Value::of(&node)
    };
    let Value::Object(entries) = &mut root else { return Err("the file is not a JSON object".to_string()) };
    let permissions = entry(entries, "permissions", || Value::Object(Vec::new()));
    let Value::Object(permissions) = permissions else {
        return Err("its `permissions` is not an object".to_string());
    };
    let allow = entry(permissions, "allow", || Value::Array(Vec::new()));
    let Value::Array(allow) = allow else { return Err("its `permissions.allow` is not an array".to_string()) };
    if allow.iter().any(|v| matches!(v, Value::String(s) if s == rule)) {
        return Ok(None);
    }
    allow.push(Value::String(rule.to_string()));
    let mut out = String::new();
    root.write(&mut out, 0);
    // A file that ended with a newline (or a new file) ends with one.
    if text.is_empty() || text.ends_with('\n') {
        out.push('\n');
    }
    Ok(Some(out))
}

/// A JSON value as JavaScript holds it once parsed: an object's keys in the order they first
/// appear, each with its last value.
#[derive(Debug, Clone, PartialEq)]
enum Value {
    /// `null`, `true`, `false` or a number, as written.
    Literal(String),
    String(String),
    Array(Vec<Value>),
    Object(Vec<(String, Value)>),
}

impl Value {
    fn of(node: &Node) -> Value {
        match &node.kind {
            NodeKind::Null => Value::Literal("null".to_string()),
            NodeKind::Bool(b) => Value::Literal(b.to_string()),
            NodeKind::Number(n) => Value::Literal(n.clone()),
            NodeKind::String(s) => Value::String(s.clone()),
            NodeKind::Array(items) => Value::Array(items.iter().map(Value::of).collect()),
            NodeKind::Object(entries) => {
                let mut out: Vec<(String, Value)> = Vec::new();
                for (key, value) in entries {
                    match out.iter_mut().find(|(k, _)| *k == key.name) {
                        Some((_, v)) => *v = Value::of(value),
                        None => out.push((key.name.clone(), Value::of(value))),
                    }
                }
                Value::Object(out)
            }
        }
    }

    /// As `JSON.stringify(value, null, 2)` writes it.
    fn write(&self, out: &mut String, depth: usize) {
        let indent = |out: &mut String, depth: usize| out.extend(std::iter::repeat_n("  ", depth));
        match self {
            Value::Literal(text) => out.push_str(text),
            Value::String(s) => out.push_str(&serde_json::to_string(s).unwrap_or_default()),
            Value::Array(items) if items.is_empty() => out.push_str("[]"),
            Value::Object(entries) if entries.is_empty() => out.push_str("{}"),
            Value::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    out.push_str(if i == 0 { "\n" } else { ",\n" });
                    indent(out, depth + 1);
                    item.write(out, depth + 1);
                }
                out.push('\n');
                indent(out, depth);
                out.push(']');
            }
            Value::Object(entries) => {
                out.push('{');
                for (i, (key, value)) in entries.iter().enumerate() {
                    out.push_str(if i == 0 { "\n" } else { ",\n" });
                    indent(out, depth + 1);
                    out.push_str(&serde_json::to_string(key).unwrap_or_default());
                    out.push_str(": ");
                    value.write(out, depth + 1);
                }
                out.push('\n');
                indent(out, depth);
                out.push('}');
            }
        }
    }
}

/// The value under `key`, added with `make` when absent.
fn entry<'v>(entries: &'v mut Vec<(String, Value)>, key: &str, make: impl FnOnce() -> Value) -> &'v mut Value {
    let at = match entries.iter().position(|(k, _)| k == key) {
        Some(at) => at,
        None => {
            entries.push((key.to_string(), make()));
            entries.len() - 1
        }
    };
    &mut entries[at].1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_joins_the_allow_list_and_the_rest_of_the_file_stays() {
        let text = "{\n  \"env\": {\"B\": \"1\", \"A\": 2.50},\n  \"permissions\": {\"deny\": [\"Bash(rm *)\"], \"allow\": [\"Read\"]},\n  \"zeta\": null\n}\n";
        let out = with_allow_rule(text, "Skill(deploy)").expect("valid").expect("changed");
        assert_eq!(
            out,
            "{\n  \"env\": {\n    \"B\": \"1\",\n    \"A\": 2.50\n  },\n  \"permissions\": {\n    \"deny\": [\n      \"Bash(rm *)\"\n    ],\n    \"allow\": [\n      \"Read\",\n      \"Skill(deploy)\"\n    ]\n  },\n  \"zeta\": null\n}\n"
        );
        assert_eq!(with_allow_rule(&out, "Skill(deploy)").expect("valid"), None, "added once");
    }

    #[test]
    fn a_new_file_holds_only_the_rule() {
        let out = with_allow_rule("", "mcp__github__get_issue").expect("valid").expect("changed");
        assert_eq!(out, "{\n  \"permissions\": {\n    \"allow\": [\n      \"mcp__github__get_issue\"\n    ]\n  }\n}\n");
    }

    #[test]
    fn a_file_of_another_shape_is_left_alone() {
        assert!(with_allow_rule("[1]", "Read").is_err());
        assert!(with_allow_rule("{\"permissions\": []}", "Read").is_err());
        assert!(with_allow_rule("{\"permissions\": {\"allow\": \"Read\"}}", "Read").is_err());
        assert!(with_allow_rule("{\"permissions\": ", "Read").is_err());
    }

    #[test]
    fn a_duplicate_key_keeps_its_first_place_and_last_value() {
        let out = with_allow_rule("{\"a\": 1, \"b\": 2, \"a\": 3}", "Read").expect("valid").expect("changed");
        assert!(out.starts_with("{\n  \"a\": 3,\n  \"b\": 2,\n"), "{out}");
        assert!(!out.ends_with('\n'), "no newline was there");
    }

    #[test]
    fn always_is_not_offered_for_a_rule_with_a_secret_or_in_an_untrusted_folder() {
        let shell = |command: &str| Subject::Shell { command: command.to_string(), by: "deploy".to_string() };
        let question = |subject: Subject, trusted: bool| Question::new(subject, trusted).expect("a question");
        assert!(question(shell("git status"), true).always);
        assert!(!question(shell("git status"), false).always);
        let token = format!("curl -H 'Authorization: Bearer ghp_{}' x", "a".repeat(36));
        assert!(!question(shell(&token), true).always);
        assert!(!question(shell("printf a\nprintf b"), true).always, "more than one line");
    }

    #[test]
    fn a_question_is_only_asked_when_a_rule_names_just_its_subject() {
        let shell = |command: &str| Subject::Shell { command: command.to_string(), by: "deploy".to_string() };
        let skill = |name: &str| Subject::Skill { name: name.to_string(), description: None };
        let tool =
            |name: &str| Subject::Tool { name: name.to_string(), server: "s".to_string(), tool: "t".to_string() };
        for wide in ["tar -czf b.tgz src/*", "npm run:*", "ls *", "echo \\*x*"] {
            assert_eq!(Question::new(shell(wide), true), None, "{wide}");
        }
        for wide in ["*", "a*", "review:*", "deploy *"] {
            assert_eq!(Question::new(skill(wide), true), None, "{wide}");
        }
        assert_eq!(Question::new(tool("mcp__s__*"), true), None);
        assert_eq!(
            Question::new(shell(" echo (a) \\ b "), true).map(|q| q.rule),
            Some("Bash(echo \\(a\\) \\\\ b)".to_string())
        );
        assert_eq!(Question::new(skill("plug:deploy"), true).map(|q| q.rule), Some("Skill(plug:deploy)".to_string()));
        assert_eq!(Question::new(tool("mcp__s__t"), true).map(|q| q.rule), Some("mcp__s__t".to_string()));
    }
}

//! Skills (`SKILL.md`), commands (`commands/**/*.md`) and subagents (`agents/**/*.md`):
//! Markdown with optional YAML frontmatter.

use super::fields;
use super::permissions::{self, Use};
use super::{file_name, parent, FileCx, FileScope};
use crate::diagnostic::{did_you_mean, Severity, Sink};
use crate::frontmatter::{self, Parsed, Split};
use crate::node::{Node, NodeKind};
use crate::rules;
use crate::schema::{check_fields_knowing, Unknown};

/// Claude Code's own list of frontmatter keys, copied from its bundle: one list for
/// skills, commands and subagents, so each of them is known (never `unknown-field`) in all
/// three kinds, whether or not capc checks its value.
const CLAUDE_CODE_KEYS_FILE: &str = include_str!("../../data/claude-code/frontmatter-keys.txt");

/// The keys of [`CLAUDE_CODE_KEYS_FILE`] (one a line, `#` comments).
pub fn claude_code_keys() -> &'static [&'static str] {
    static KEYS: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    KEYS.get_or_init(|| {
        CLAUDE_CODE_KEYS_FILE.lines().map(str::trim).filter(|line| !line.is_empty() && !line.starts_with('#')).collect()
    })
}

const EFFORTS: &[&str] = &["low", "medium", "high", "xhigh", "max"];
pub const PERMISSION_MODES: &[&str] =
    &["default", "manual", "acceptEdits", "auto", "dontAsk", "bypassPermissions", "plan"];
const COLORS: &[&str] = &["red", "blue", "green", "yellow", "purple", "orange", "pink", "cyan"];
const MEMORY: &[&str] = &["user", "project", "local"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkdownKind {
    Skill,
    Command,
    Agent,
}

/// The `!` shell injections of a skill or command body (`` !`cmd` `` and ```` ```! ````
/// blocks) with the span of each command in the body, as the prompt-template grammar reads
/// them (`find_shell_commands` parses only the injections, not the whole body).
pub fn shell_injections(body: &str) -> Vec<(String, crate::span::Span)> {
    if !body.contains("!`") && !body.contains("```!") {
        return Vec::new();
    }
    capc_grammar::find_shell_commands(body)
        .into_iter()
        .map(|shell| (shell.command_span.slice(body).unwrap_or("").to_string(), shell.command_span))
        .collect()
}

/// A `!` injection that downloads a script and runs it (`download-and-run`).
fn check_injections(sink: &mut Sink<'_>, text: &str) {
    let body_start = match frontmatter::split(text) {
        Split::Found(block) => block.body_start,
        _ => 0,
    };
    let body = &text[body_start.min(text.len())..];
    for (command, span) in shell_injections(body) {
        if let Some(shape) = crate::provenance::download_and_run(&command) {
            sink.report(
                &rules::download_and_run::RULE,
                span.shift(body_start),
                format!("this `!` injection downloads a script and runs it (`{shape}`) each time the prompt is expanded"),
            )
            .help("commit the script and run it from the repository (`${CLAUDE_SKILL_DIR}/install.sh`), or pin what it fetches and check its checksum before running it");
        }
        crate::decl::helpers::unpinned(
            sink,
            span.shift(body_start),
            "this `!` injection",
            &command,
            "each time the prompt is expanded",
        );
    }
}

/// A block Claude Code closes at a `---` that is not a line of its own
/// (`frontmatter-closed-mid-line`), reported at that `---`.
fn closed_mid_line(sink: &mut Sink<'_>, text: &str, block: &frontmatter::Block) {
    let at = block.yaml.end;
    let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let rest = text[at + 3..line_end].trim();
    let after = if rest.is_empty() { String::new() } else { format!(" `{rest}` and") };
    sink.report(
        &rules::frontmatter_closed_mid_line::RULE,
        crate::span::Span::new(at, at + 3),
        format!("Claude Code ends the frontmatter at this `---`, which is not a line of its own:{after} everything after it is the body, not fields"),
    )
    .help("put `---` alone on the line that ends the frontmatter, and write something else (`-`, `—`) where a value holds `---`");
}

/// A skill in a folder named `synced` (any case) outside plugins: the name is kept for skills
/// synced from claude.ai, and Claude Code skips the folder's own skill.
pub(crate) fn is_synced_folder(cx: &FileCx<'_>) -> bool {
    matches!(cx.scope, FileScope::Managed | FileScope::User | FileScope::Project)
        && file_name(parent(cx.rel)).eq_ignore_ascii_case("synced")
}

/// Reads one Markdown declaration; returns the frontmatter fields when there are any.
pub fn check(sink: &mut Sink<'_>, cx: &FileCx<'_>, text: &str, kind: MarkdownKind) -> Option<Node> {
    if kind != MarkdownKind::Agent {
        check_injections(sink, text);
    }
    let split = frontmatter::split(text);
    if let Split::Found(block) = &split {
        if !block.closes_on_its_own_line(text) {
            closed_mid_line(sink, text, block);
        }
    }
    let fields = match split {
        Split::None => {
            if text.trim().is_empty() {
                sink.report(&rules::missing_frontmatter::RULE, None, "file is empty").help(empty_help(kind));
            } else if kind != MarkdownKind::Command {
                no_frontmatter(sink, cx, kind, None, "file has no frontmatter");
            }
            return None;
        }
        Split::Unclosed { opener } => {
            no_frontmatter(sink, cx, kind, Some(opener), "frontmatter is opened with `---` but never closed");
            return None;
        }
        Split::Found(block) => match frontmatter::parse(text, &block) {
            Parsed::Fields { node, lenient, spans } => {
                let refinable = spans == frontmatter::Spans::Refinable;
                if let Some(note) = lenient {
                    sink.report(
                        &rules::lenient_frontmatter::RULE,
                        note.span,
                        format!("frontmatter is not valid YAML ({}); Claude Code loads it only by quoting this value", note.yaml_error),
                    )
                    .help("wrap the value in quotes, or use a block scalar (`description: |`), so strict YAML readers and older Claude Code versions agree");
                }
                (node, block, refinable)
            }
            Parsed::Invalid { span, message } => {
                // Only a subagent outside a plugin is skipped; everything else loads with its
                // metadata dropped. Either way `claude plugin validate` rejects the file, so
                // it is an error: capc never passes what the official validator refuses. The
                // lock records what Claude Code loads (the agent left out or under its file
                // name, the body with no metadata), so the error does not keep `capc lock`
                // from writing it — but for frontmatter capc refused to parse (too deep),
                // whose fields Claude Code may read and capc does not know.
                let consequence = match kind {
                    MarkdownKind::Agent if cx.scope == FileScope::Plugin => {
                        "Claude Code loads this agent under its file name with every other field dropped"
                    }
                    MarkdownKind::Agent => "Claude Code skips this agent",
                    _ => "Claude Code loads the body with empty metadata: no description, no allowed-tools",
                };
                let too_deep = message.starts_with("nested deeper than");
                let (message, fix) = explain_yaml_error(text, span, &message);
                let finding = sink.report(&rules::invalid_frontmatter::RULE, span, message);
                finding.help(format!("{consequence}; {fix}"));
                if !too_deep {
                    finding.loads_anyway();
                }
                return None;
            }
            Parsed::NotAMapping { span, found } => {
                sink.report(
                    &rules::invalid_frontmatter::RULE,
                    span,
                    format!("frontmatter must be a mapping of `field: value` lines, found {found}"),
                )
                .help("write one `field: value` per line between the `---` lines, such as `description: …`")
                .loads_anyway();
                return None;
            }
        },
    };
    let (mut fields, block, refinable) = fields;
    let path = sink.path().to_string();
    let mut findings = Sink::new(&path);
    check_fields_of(&mut findings, cx, text, &fields, kind);
    // Nested values carry their entry's span until something is reported; then the file is
    // checked again with exact spans (a second YAML pass that clean files never pay for).
    if refinable && !findings.diagnostics.is_empty() {
        frontmatter::refine_spans(text, &block, &mut fields);
        findings = Sink::new(&path);
        check_fields_of(&mut findings, cx, text, &fields, kind);
    }
    sink.diagnostics.append(&mut findings.diagnostics);
    sink.server_refs.append(&mut findings.server_refs);
    if kind != MarkdownKind::Agent {
        check_named_arguments(sink, text, block.body_start, &fields);
    }
    Some(fields)
}

fn check_fields_of(sink: &mut Sink<'_>, cx: &FileCx<'_>, text: &str, fields: &Node, kind: MarkdownKind) {
    match kind {
        MarkdownKind::Skill => check_skill(sink, cx, fields),
        MarkdownKind::Command => check_command(sink, cx, fields),
        MarkdownKind::Agent => check_agent(sink, cx, fields),
    }
    let rule_fields: &[(&str, Use)] = match kind {
        MarkdownKind::Agent => &[("tools", Use::AgentTools), ("disallowedTools", Use::Remove)],
        _ => &[("allowed-tools", Use::PreApprove), ("disallowed-tools", Use::Remove)],
    };
    for (name, usage) in rule_fields {
        if let Some(value) = fields.get(name) {
            permissions::check_value(sink, cx, text, value, *usage);
        }
    }
    check_common_values(sink, fields);
    if let Some(hooks) = fields.get("hooks") {
        if hooks.as_object().is_some() {
            let before = sink.diagnostics.len();
            super::hooks::check_event_map(sink, cx, hooks, "frontmatter `hooks`");
            if kind == MarkdownKind::Agent && cx.scope == FileScope::Plugin {
                // Claude Code ignores a plugin agent's hooks (`ignored-field` says so): they
                // run nothing, so what they would run is not weighed.
                let runs = [rules::download_and_run::RULE.id, rules::unpinned_package::RULE.id];
                let mut i = 0;
                sink.diagnostics.retain(|d| {
                    i += 1;
                    i <= before || !runs.contains(&d.rule)
                });
            }
        }
    }
}

/// A message and a fix for the YAML errors people actually make.
fn explain_yaml_error(text: &str, span: crate::span::Span, message: &str) -> (String, &'static str) {
    let line_start = text[..span.start.min(text.len())].rfind('\n').map_or(0, |i| i + 1);
    let line = text[line_start..].lines().next().unwrap_or("");
    if line.starts_with('\t') || line.trim_start_matches(' ').starts_with('\t') {
        return (format!("frontmatter is not valid YAML: {message}"), "YAML indents with spaces only; replace the tab");
    }
    if message.starts_with("nested deeper than") {
        return (
            format!("frontmatter is {message}"),
            "flatten it: capc refuses deeper frontmatter before parsing it, as YAML readers slow down or fail on it",
        );
    }
    if message.contains("mapping values are not allowed") {
        return (
            format!("frontmatter is not valid YAML: {message}"),
            "quote the value (`key: \"a: b\"`) or use a block scalar (`key: |`)",
        );
    }
    (format!("frontmatter is not valid YAML: {message}"), "fix the YAML syntax at this point")
}

/// `$word` placeholders in the body of a skill or command that declares `arguments` but not
/// `word`: Claude Code leaves them as literal text. Upper-case words (`$HOME`, `$PATH`) are
/// shell variables, not placeholders, and are not reported.
fn check_named_arguments(sink: &mut Sink<'_>, text: &str, body_start: usize, fields: &Node) {
    let Some(arguments) = fields.get("arguments") else { return };
    let names: Vec<&str> = match &arguments.kind {
        NodeKind::String(s) => s.split_whitespace().collect(),
        NodeKind::Array(items) => items.iter().filter_map(Node::as_str).collect(),
        _ => return,
    };
    // Claude Code drops empty and all-digit names.
    let names: Vec<&str> =
        names.into_iter().filter(|n| !n.is_empty() && !n.chars().all(|c| c.is_ascii_digit())).collect();
    let body = &text[body_start.min(text.len())..];
    let (template, _) = capc_grammar::parse_template(body);
    let mut reported: Vec<String> = Vec::new();
    for part in &template.parts {
        let capc_grammar::TemplatePartKind::Placeholder(capc_grammar::Placeholder::Named(word)) = &part.kind else {
            continue;
        };
        let declared =
            names.iter().any(|n| word.strip_prefix(n).is_some_and(|rest| rest.is_empty() || rest.starts_with('-')));
        let shell_like = word.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
        if declared || shell_like || reported.contains(word) {
            continue;
        }
        reported.push(word.clone());
        let list = names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ");
        sink.report(&rules::undeclared_argument::RULE, part.span.shift(body_start), format!("`${word}` is not one of the declared `arguments` ({list})"))
            .help(format!("Claude Code leaves `${word}` as written; add `{word}` to `arguments`, or write `\\${word}` for a literal `$`"));
    }
}

fn empty_help(kind: MarkdownKind) -> &'static str {
    match kind {
        MarkdownKind::Skill => "a skill needs at least a `description` in frontmatter and instructions in the body",
        MarkdownKind::Command => "a command's body is its prompt; write the prompt or delete the file",
        MarkdownKind::Agent => {
            "a subagent needs `name` and `description` in frontmatter and a system prompt in the body"
        }
    }
}

fn no_frontmatter(
    sink: &mut Sink<'_>,
    cx: &FileCx<'_>,
    kind: MarkdownKind,
    span: Option<crate::span::Span>,
    message: &str,
) {
    let (severity, help) = match kind {
        MarkdownKind::Agent if cx.scope != FileScope::Plugin => (
            Severity::Error,
            "Claude Code skips a subagent without `name` and `description`; add them between `---` lines at the top",
        ),
        MarkdownKind::Agent => (Severity::Warning, "the agent loads under its file name with no description; add `name` and `description` between `---` lines at the top"),
        MarkdownKind::Skill => (Severity::Warning, "without a `description` Claude Code guesses one from the body; add frontmatter between `---` lines at the top"),
        MarkdownKind::Command => (Severity::Warning, "Claude Code reads no frontmatter and the whole file as the prompt; close the block with a `---` line"),
    };
    let help = if span.is_some() {
        "add a `---` line after the last field; until then Claude Code reads no frontmatter and the whole file as the body"
    } else {
        help
    };
    sink.report(&rules::missing_frontmatter::RULE, span, message).severity(severity).help(help);
}

fn check_skill(sink: &mut Sink<'_>, cx: &FileCx<'_>, fields: &Node) {
    check_fields_knowing(sink, fields, fields::SKILL, claude_code_keys(), "skill frontmatter", Unknown::Warn);
    // Measured as the listing measures what it sends (`crate::listed`): joined, escaped, in
    // UTF-16 units. (Without a description the body's first line is listed, which a line
    // cannot make this long.)
    let description = fields.get("description").and_then(Node::as_str);
    let when = fields.get("when_to_use").and_then(Node::as_str);
    let units = crate::listed::listed(description, None, when).map_or(0, |t| crate::listed::units(&t));
    let max = crate::listed::MAX_DESC_UNITS;
    if units > max {
        let span = fields.get("description").or(fields.get("when_to_use")).map(|n| n.span);
        sink.report(
            &rules::skill_description_too_long::RULE,
            span,
            format!(
                "the Skill listing sends `description` and `when_to_use` as {units} characters (UTF-16 units, joined \
                 by ` - `, `<` and `>` escaped) and keeps only the first {max}"
            ),
        )
        .help("put the key use case first and move detail into the body, which loads when the skill runs");
    }
    if is_synced_folder(cx) {
        sink.report(
            &rules::reserved_name::RULE,
            None,
            "the skill folder name `synced` is reserved for skills synced from claude.ai; Claude Code skips this skill",
        )
        .loads_anyway()
        .help("rename the folder");
    }
    let both_off = |name: &str, off: bool| fields.get(name).and_then(bool_value) == Some(off);
    if both_off("disable-model-invocation", true) && both_off("user-invocable", false) {
        let span = fields.get("user-invocable").map(|n| n.span);
        sink.report(
            &rules::invalid_field_value::RULE,
            span,
            "with `disable-model-invocation: true` and `user-invocable: false` nobody can invoke this skill",
        )
        .help("drop one of the two fields");
    }
}

fn check_command(sink: &mut Sink<'_>, cx: &FileCx<'_>, fields: &Node) {
    check_fields_knowing(sink, fields, fields::SKILL, claude_code_keys(), "command frontmatter", Unknown::Warn);
    // A plugin command's `name` is its display name and bare alias (as Claude Code reads it); a
    // legacy `.claude/commands` file's is ignored.
    let in_plugin = cx.scope == crate::decl::FileScope::Plugin;
    let ignored: &[&str] = if in_plugin { &["paths"] } else { &["name", "paths"] };
    for &name in ignored {
        let Some((key, value)) = fields.get_entry(name) else { continue };
        let d = sink.report(
            &rules::ignored_field::RULE,
            key.span,
            format!("Claude Code ignores `{name}` in a command file"),
        );
        if name == "paths" {
            d.help("`paths` works only for skills; move this command to `skills/<name>/SKILL.md`");
        } else if value.as_str().is_some_and(|v| Some(v) == command_name(cx.rel).as_deref()) {
            // The name the file gives the command anyway: ignoring it changes nothing.
            d.severity(Severity::Info)
                .help("the command is named by its file path, here the same name; the key can go");
        } else {
            d.help("a command's name comes from its file path; rename the file, or make it a skill (`skills/<name>/SKILL.md`)");
        }
    }
}

/// The name Claude Code gives a project command file: its path under `commands/`, without
/// `.md`, folders joined with `:` (`commands/db/migrate.md` is `db:migrate`).
fn command_name(rel: &str) -> Option<String> {
    let start = rel.rfind("commands/")? + "commands/".len();
    Some(rel[start..].strip_suffix(".md")?.replace('/', ":"))
}

fn check_agent(sink: &mut Sink<'_>, cx: &FileCx<'_>, fields: &Node) {
    check_fields_knowing(sink, fields, fields::AGENT, claude_code_keys(), "agent frontmatter", Unknown::Warn);
    let plugin = cx.scope == FileScope::Plugin;
    for required in ["name", "description"] {
        if fields.get(required).is_none() {
            let (severity, help) = if plugin {
                (
                    Severity::Warning,
                    format!("the agent loads, but without `{required}` (the name falls back to the file name)"),
                )
            } else {
                (Severity::Error, format!("Claude Code skips a subagent without `{required}`"))
            };
            sink.report(
                &rules::missing_required_field::RULE,
                fields.span,
                format!("agent frontmatter has no `{required}`"),
            )
            .severity(severity)
            .help(help);
        }
    }
    // The plugin agent loader has no name check (measured); project and user agents
    // with such names are skipped.
    if let Some(name_node) = fields.get("name").filter(|_| !plugin) {
        if let Some(name) = name_node.as_str() {
            if name.contains(':') || name.starts_with('-') || name.trim().is_empty() {
                let why = if name.contains(':') {
                    "contains `:`"
                } else if name.starts_with('-') {
                    "starts with `-`"
                } else {
                    "is empty"
                };
                sink.report(&rules::invalid_agent_name::RULE, name_node.span, format!("agent name `{name}` {why}"))
                    .help("Claude Code skips such agents; use lowercase letters, digits and hyphens");
            }
        }
    }
    if plugin {
        for name in ["hooks", "mcpServers", "permissionMode"] {
            if let Some((key, _)) = fields.get_entry(name) {
                sink.report(
                    &rules::ignored_field::RULE,
                    key.span,
                    format!("Claude Code ignores `{name}` in a plugin's agent"),
                )
                .help("set it in the user's or project's own agent definition instead");
            }
        }
    }
    enum_value(sink, fields, "permissionMode", PERMISSION_MODES);

    // Claude Code keeps a color it knows and drops any other, silently: the agent loads and
    // works as written, only its label takes the default color. A probable typo (`gren`)
    // stays a warning; another color (`magenta`) is worth knowing, an info.
    let typo = fields.get("color").and_then(Node::as_str).and_then(|v| did_you_mean(v, COLORS.iter().copied()));
    if let Some(d) = enum_value(sink, fields, "color", COLORS).filter(|_| typo.is_none()) {
        d.severity(Severity::Info)
            .help("Claude Code drops a color it does not know and shows the agent in the default color");
    }
    enum_value(sink, fields, "memory", MEMORY);
    enum_value(sink, fields, "isolation", &["worktree", "remote"]);
    // Only `true` (or the string `true`) turns it on; `yes` or `on` leaves the CLAUDE.md files in.
    if let Some(d) = enum_value(sink, fields, "omitClaudeMd", &["true", "false"]) {
        d.help("Claude Code reads only `true` as on, so the agent still gets the CLAUDE.md files; write `true`");
    }
}

/// Values shared by skills, commands and agents.
fn check_common_values(sink: &mut Sink<'_>, fields: &Node) {
    if let Some(effort) = fields.get("effort") {
        let ok = match &effort.kind {
            NodeKind::String(s) => EFFORTS.contains(&s.as_str()),
            NodeKind::Number(n) => n.parse::<i64>().is_ok(),
            _ => false,
        };
        if !ok {
            sink.report(
                &rules::invalid_field_value::RULE,
                effort.span,
                "`effort` must be one of `low`, `medium`, `high`, `xhigh`, `max`",
            )
            .help("Claude Code ignores any other value");
        }
    }
    if let Some(context) = fields.get("context").and_then(|n| n.as_str().map(|s| (s, n.span))) {
        if context.0 != "fork" {
            sink.report(
                &rules::invalid_field_value::RULE,
                context.1,
                format!("`context: {}` has no effect; only `fork` is recognised", context.0),
            )
            .help("remove `context` to run inline, or write `context: fork`");
        }
    }
    enum_value(sink, fields, "shell", &["bash", "powershell"]);
    if let Some(metadata) = fields.get("metadata") {
        if metadata.as_object().is_none() && !matches!(metadata.kind, NodeKind::Null) {
            // Claude Code drops the value and loads the skill (`claude plugin validate`
            // warns): a warning, never an error that fails a check of a file that loads.
            sink.report(
                &rules::wrong_field_type::RULE,
                metadata.span,
                format!("`metadata` must be a mapping, found {}", metadata.type_name()),
            )
            .severity(Severity::Warning)
            .help("Claude Code drops a `metadata` value that is not a mapping and loads the rest; write `key: value` pairs under `metadata:`");
        }
    }
}

/// Reports a value of `name` outside `allowed`; returns the finding, for a caller that words
/// it differently.
fn enum_value<'s>(
    sink: &'s mut Sink<'_>,
    fields: &Node,
    name: &str,
    allowed: &[&str],
) -> Option<&'s mut crate::diagnostic::Diagnostic> {
    let node = fields.get(name)?;
    let value = node.as_str()?;
    if allowed.contains(&value) {
        return None;
    }
    let list = allowed.iter().map(|a| format!("`{a}`")).collect::<Vec<_>>().join(", ");
    let d =
        sink.report(&rules::invalid_field_value::RULE, node.span, format!("`{name}: {value}` is not one of {list}"));
    match did_you_mean(value, allowed.iter().copied()) {
        Some(s) => d.help(format!("did you mean `{s}`?")),
        None => d.help("Claude Code ignores the value"),
    };
    Some(d)
}

fn bool_value(node: &Node) -> Option<bool> {
    match &node.kind {
        NodeKind::Bool(b) => Some(*b),
        NodeKind::String(s) => crate::schema::bool_like(s),
        _ => None,
    }
}

//! Prompt templates (`template.pest`): skill, command and agent bodies.
//!
//! The grammar follows the skills docs (https://code.claude.com/docs/en/skills: "Available string
//! substitutions", "Inject dynamic context"), and Claude Code's code where the docs are silent:
//!
//! * `$N` is **0-based** (`$0` is the first argument) since v2.1.19, as `$ARGUMENTS[N]` is;
//!   `$ARGUMENTS.N`, the older spelling, is reported.
//! * `\$1`, `\$ARGUMENTS`, `\$name` are literal (docs); `\\$1` still expands; a backslash does not stop
//!   `${CLAUDE_*}`.
//! * `` !`cmd` `` counts only at the start of the text or after whitespace, and may span lines
//!   (`INLINE_PATTERN`); a ```` ```! ```` block runs to the next ```` ``` ````, wherever it opens.
//! * `@path` and `@"path with spaces"` follow `extractAtMentionedFiles`: after whitespace or at the
//!   start, a mention ends at the last word boundary of its run of non-space characters.
//!
//! The result is a flat list of [`TemplatePart`]s that tile the source exactly, plus two overlays: the
//! [`ShellCommand`]s and [`FileRef`]s, whose spans cover parts (a placeholder inside a shell command
//! is still a part, because Claude Code substitutes arguments before it runs the command).

mod args;
mod expand;

#[cfg(test)]
mod tests;

pub use args::split_arguments;
pub use expand::{escape_argument, expand, try_expand, ExpandContext, TooLong, MAX_EXPANDED_CHARS};

use pest::iterators::Pair;
use pest::Parser as _;

use crate::error::{internal_error, span_of, suggest};
use crate::{Span, SyntaxError};

mod grammar {
    // pest_derive makes `Rule` public; the module is private, so it never leaves the crate.
    #![allow(unreachable_pub)]
    #[derive(pest_derive::Parser)]
    #[grammar = "template.pest"]
    pub(crate) struct TemplateParser;
}
use grammar::{Rule, TemplateParser};

/// A parsed template. It owns its source, so [`expand`] can reproduce literal text exactly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    pub source: String,
    /// Text and placeholders, in order, tiling `source` from `0` to its end.
    pub parts: Vec<TemplatePart>,
    /// Inline `` !`cmd` `` and fenced ```` ```! ```` commands.
    pub shell_commands: Vec<ShellCommand>,
    /// `@path` and `@"path"` mentions.
    pub file_refs: Vec<FileRef>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplatePart {
    pub kind: TemplatePartKind,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplatePartKind {
    /// Literal text (including shell and mention delimiters, and variables Claude Code does not know).
    Text,
    Placeholder(Placeholder),
    /// `\` before a placeholder: the placeholder's text, without the backslash, if it would expand.
    Escaped(Placeholder),
    Variable(TemplateVar),
}

/// The argument placeholders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placeholder {
    /// `$ARGUMENTS`: the argument string as typed.
    Arguments,
    /// `$ARGUMENTS[n]`, 0-based. An index that overflows `usize` is `usize::MAX` (no such argument).
    ArgumentIndex(usize),
    /// `$n`, 0-based since v2.1.19.
    Positional(usize),
    /// `$word`: a named argument if `arguments:` declares `word` (or a prefix of it ending before a `-`),
    /// otherwise literal text. Word characters are `[A-Za-z0-9_-]`.
    Named(String),
}

/// The `${…}` variables Claude Code substitutes in templates.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TemplateVar {
    /// `${CLAUDE_SKILL_DIR}`: the directory holding SKILL.md.
    SkillDir,
    /// `${CLAUDE_SESSION_ID}`.
    SessionId,
    /// `${CLAUDE_PLUGIN_ROOT}`: plugin skills only.
    PluginRoot,
    /// `${CLAUDE_PLUGIN_DATA}`: plugin skills only.
    PluginData,
    /// `${CLAUDE_PROJECT_DIR}`: v2.1.196+.
    ProjectDir,
    /// `${CLAUDE_EFFORT}`: `low|medium|high|xhigh|max`.
    Effort,
    /// `${user_config.KEY}`: a non-sensitive plugin userConfig value.
    UserConfig(String),
}

const CLAUDE_VARIABLES: &[(&str, TemplateVar)] = &[
    ("CLAUDE_EFFORT", TemplateVar::Effort),
    ("CLAUDE_PLUGIN_DATA", TemplateVar::PluginData),
    ("CLAUDE_PLUGIN_ROOT", TemplateVar::PluginRoot),
    ("CLAUDE_PROJECT_DIR", TemplateVar::ProjectDir),
    ("CLAUDE_SESSION_ID", TemplateVar::SessionId),
    ("CLAUDE_SKILL_DIR", TemplateVar::SkillDir),
];

impl TemplateVar {
    /// The name between `${` and `}`.
    pub fn name(&self) -> String {
        match self {
            TemplateVar::UserConfig(key) => format!("user_config.{key}"),
            other => CLAUDE_VARIABLES
                .iter()
                .find(|(_, var)| var == other)
                .map(|(name, _)| (*name).to_owned())
                .unwrap_or_default(),
        }
    }
}

/// A shell command Claude Code runs while rendering the template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellCommand {
    pub kind: ShellKind,
    /// The whole construct, delimiters included.
    pub span: Span,
    /// The command, trimmed as Claude Code trims it before running it.
    pub command_span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ShellKind {
    /// `` !`cmd` ``.
    Inline,
    /// ```` ```! ```` … ```` ``` ````.
    Block,
}

/// An `@` mention: Claude Code attaches the file (for local skills and commands).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRef {
    /// The mention without `@` and quotes. It may hold placeholders, substituted before attaching.
    pub path: String,
    /// From `@` to the end of the mention (the closing quote included).
    pub span: Span,
    /// Written as `@"…"`.
    pub quoted: bool,
}

impl Template {
    /// The source text of a part or any other span of this template.
    pub fn text(&self, span: Span) -> &str {
        span.slice(&self.source).unwrap_or("")
    }
    /// The command of a shell injection, as written (placeholders not yet substituted).
    pub fn command(&self, shell: &ShellCommand) -> &str {
        self.text(shell.command_span)
    }
}

/// Parses a template. Never fails: problems come back as errors next to a template that keeps the
/// text concerned literal, as Claude Code does.
pub fn parse_template(text: &str) -> (Template, Vec<SyntaxError>) {
    let mut lowering =
        Lowering { source: text, parts: Vec::new(), shells: Vec::new(), mentions: Vec::new(), errors: Vec::new() };
    match TemplateParser::parse(Rule::template, text) {
        Ok(mut pairs) => {
            if let Some(template) = pairs.next() {
                lowering.items(template);
            }
        }
        Err(error) => {
            lowering.errors.push(internal_error(&error, text.len()));
            lowering.parts = vec![TemplatePart { kind: TemplatePartKind::Text, span: Span::new(0, text.len()) }];
        }
    }
    let file_refs = lowering.mentions.iter().filter_map(|&at| file_ref_at(text, at)).collect();
    let template =
        Template { source: text.to_owned(), parts: lowering.parts, shell_commands: lowering.shells, file_refs };
    (template, lowering.errors)
}

/// The shell injections of a template, as [`parse_template`] finds them, without parsing the
/// whole text: a `` !`…` `` at the start or after whitespace, or a ```` ```! ```` block, is cut
/// out (up to its closing backquote or fence) and only that window is parsed. A body of a few
/// kilobytes with two injections costs two tiny parses instead of a character-by-character
/// pass over all of it (tested against `parse_template` on random texts).
pub fn find_shell_commands(text: &str) -> Vec<ShellCommand> {
    let mut found = Vec::new();
    let mut at = 0;
    let mut previous: Option<char> = None;
    while at < text.len() {
        let rest = &text[at..];
        let window = if let Some(block) = rest.strip_prefix("```!") {
            block.find("```").map(|end| 4 + end + 3)
        } else if let Some(inline) = rest.strip_prefix("!`").filter(|_| previous.is_none_or(is_js_space)) {
            // The body is at least one character; an empty `!``` is text.
            inline.find('`').filter(|&end| end > 0).map(|end| 2 + end + 1)
        } else {
            None
        };
        match window {
            Some(len) => {
                let (template, _) = parse_template(&rest[..len]);
                found.extend(template.shell_commands.into_iter().map(|shell| ShellCommand {
                    kind: shell.kind,
                    span: shell.span.shift(at),
                    command_span: shell.command_span.shift(at),
                }));
                previous = Some('`');
                at += len;
            }
            None => {
                let c = rest.chars().next().unwrap_or(' ');
                // A `$`-placeholder or `\`-escape never holds a backquote, so stepping one
                // character at a time meets every fence and `!` the full parse would.
                previous = Some(c);
                at += c.len_utf8();
            }
        }
    }
    found
}

struct Lowering<'s> {
    source: &'s str,
    parts: Vec<TemplatePart>,
    shells: Vec<ShellCommand>,
    mentions: Vec<usize>,
    errors: Vec<SyntaxError>,
}

impl Lowering<'_> {
    fn items(&mut self, parent: Pair<'_, Rule>) {
        for pair in parent.into_inner() {
            self.item(pair);
        }
    }

    fn item(&mut self, pair: Pair<'_, Rule>) {
        let span = span_of(&pair);
        match pair.as_rule() {
            Rule::arguments_index | Rule::arguments | Rule::positional | Rule::named => {
                let placeholder = self.placeholder(&pair);
                self.push(TemplatePartKind::Placeholder(placeholder), span);
            }
            Rule::escape => match pair.into_inner().next() {
                Some(inner) => {
                    let placeholder = self.placeholder(&inner);
                    self.push(TemplatePartKind::Escaped(placeholder), span);
                }
                None => self.push(TemplatePartKind::Text, span),
            },
            Rule::variable => {
                let kind = self.variable(&pair);
                self.push(kind, span);
            }
            Rule::inline_shell | Rule::block_shell => self.shell(pair),
            Rule::unclosed_inline => {
                self.errors.push(
                    SyntaxError::new(span, "inline shell command is never closed")
                        .with_help("end it with a backquote, as in !`git status`; until then it is plain text"),
                );
                self.push(TemplatePartKind::Text, span);
            }
            Rule::unclosed_block => {
                self.errors.push(
                    SyntaxError::new(span, "shell block opened with ```! is never closed")
                        .with_help("close it with ```; until then it is plain text"),
                );
                self.push(TemplatePartKind::Text, span);
            }
            Rule::file_ref => {
                self.mentions.push(span.start);
                self.push(TemplatePartKind::Text, span);
            }
            Rule::EOI => {}
            _ => self.push(TemplatePartKind::Text, span),
        }
    }

    /// A shell injection: its delimiters become text, its body is lowered like the rest.
    fn shell(&mut self, pair: Pair<'_, Rule>) {
        let span = span_of(&pair);
        let (kind, open, close) = match pair.as_rule() {
            Rule::block_shell => (ShellKind::Block, "```!".len(), "```".len()),
            _ => (ShellKind::Inline, "!`".len(), "`".len()),
        };
        let body = Span::new(span.start + open, span.end - close);
        self.push(TemplatePartKind::Text, Span::new(span.start, body.start));
        if let Some(body_pair) = pair.into_inner().next() {
            self.items(body_pair);
        }
        self.push(TemplatePartKind::Text, Span::new(body.end, span.end));
        // Claude Code trims the command (JavaScript `trim`) before running it.
        let raw = body.slice(self.source).unwrap_or("");
        let leading = raw.len() - raw.trim_start_matches(is_js_space).len();
        let trimmed = raw.trim_matches(is_js_space).len();
        let command_span = Span::new(body.start + leading, body.start + leading + trimmed);
        self.shells.push(ShellCommand { kind, span, command_span });
    }

    fn placeholder(&mut self, pair: &Pair<'_, Rule>) -> Placeholder {
        let index = || {
            let digits = pair.clone().into_inner().find(|p| p.as_rule() == Rule::index).map_or("", |p| p.as_str());
            digits.parse::<usize>().unwrap_or(usize::MAX)
        };
        match pair.as_rule() {
            Rule::arguments_index => Placeholder::ArgumentIndex(index()),
            Rule::positional => Placeholder::Positional(index()),
            Rule::named => Placeholder::Named(pair.as_str().trim_start_matches('$').to_owned()),
            _ => {
                let end = pair.as_span().end();
                let rest = self.source.get(end..).unwrap_or("");
                let digits = rest.strip_prefix('.').map_or(0, |r| r.bytes().take_while(u8::is_ascii_digit).count());
                if digits > 0 {
                    let start = pair.as_span().start();
                    let index = &rest[1..1 + digits];
                    self.errors.push(
                        SyntaxError::new(Span::new(start, end + 1 + digits), format!("`$ARGUMENTS.{index}` is the spelling from before v2.1.19"))
                            .with_help(format!("write `$ARGUMENTS[{index}]`; `$ARGUMENTS.{index}` expands to every argument then `.{index}`")),
                    );
                }
                Placeholder::Arguments
            }
        }
    }

    fn variable(&mut self, pair: &Pair<'_, Rule>) -> TemplatePartKind {
        let span = span_of(pair);
        let name = pair.as_str().trim_start_matches("${").trim_end_matches('}');
        if let Some((_, var)) = CLAUDE_VARIABLES.iter().find(|(known, _)| *known == name) {
            return TemplatePartKind::Variable(var.clone());
        }
        if let Some(key) = name.strip_prefix("user_config.") {
            let valid = key.bytes().next().is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
                && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
            if valid {
                return TemplatePartKind::Variable(TemplateVar::UserConfig(key.to_owned()));
            }
            self.errors.push(
                SyntaxError::new(span, format!("`{key}` is not a valid `user_config` key"))
                    .with_help("userConfig keys are identifiers: letters, digits and `_`"),
            );
        } else if name.starts_with("CLAUDE_") {
            let error = SyntaxError::new(span, format!("unknown variable `${{{name}}}`"));
            self.errors.push(match suggest(name, CLAUDE_VARIABLES.iter().map(|(known, _)| *known)) {
                Some(known) => error.with_help(format!("did you mean `${{{known}}}`?")),
                None => error.with_help("Claude Code leaves unknown variables as written"),
            });
        }
        TemplatePartKind::Text
    }

    /// Appends a part, merging adjacent text so that a part list reads like the source.
    fn push(&mut self, kind: TemplatePartKind, span: Span) {
        if span.is_empty() {
            return;
        }
        if kind == TemplatePartKind::Text {
            if let Some(last) = self.parts.last_mut() {
                if last.kind == TemplatePartKind::Text && last.span.end == span.start {
                    last.span.end = span.end;
                    return;
                }
            }
        }
        self.parts.push(TemplatePart { kind, span });
    }
}

/// JavaScript's `\s`.
pub(crate) fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | ' ' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}' | '\u{2028}' | '\u{2029}' | '\u{202F}' | '\u{205F}' | '\u{3000}' | '\u{FEFF}'
    )
}

fn is_word_byte(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The mention starting with the `@` at byte `at` (Claude Code's `extractAtMentionedFiles`):
/// `@"…"` with at least one character and no `"` inside (an agent mention `@"x (agent)"` is not a
/// file), else the run of non-space characters cut back to its last word boundary (`@([^\s]+)\b`).
fn file_ref_at(source: &str, at: usize) -> Option<FileRef> {
    let rest = source.get(at + 1..)?;
    if let Some(quoted) = rest.strip_prefix('"') {
        let close = quoted.find('"')?;
        let path = &quoted[..close];
        if close == 0 || path.ends_with(" (agent)") {
            return None;
        }
        return Some(FileRef { path: path.to_owned(), span: Span::new(at, at + 2 + close + 1), quoted: true });
    }
    let run_len = rest.find(is_js_space).unwrap_or(rest.len());
    let run = &rest[..run_len];
    // The greedy run backs off to the last position where a word character meets a non-word one.
    let mut end = None;
    let mut previous: Option<char> = None;
    for (offset, c) in run.char_indices() {
        if let Some(p) = previous {
            if is_word_byte(p) != is_word_byte(c) {
                end = Some(offset);
            }
        }
        previous = Some(c);
    }
    if previous.is_some_and(is_word_byte) {
        end = Some(run_len);
    }
    let end = end?;
    Some(FileRef { path: run[..end].to_owned(), span: Span::new(at, at + 1 + end), quoted: false })
}

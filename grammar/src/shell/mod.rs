//! Bash command lines, read the way Claude Code reads them before it decides a Bash call
//! (its tree-sitter-bash walk, measured in `tests/data/bash-2.1.332.json`).
//!
//! [`analyse_shell`] parses a line (`parse.rs`, a hand-written parser: see `GRAMMAR.md` §5 for
//! why not pest) and walks the tree into a [`ShellAnalysis`]: every simple command with its words
//! after quote removal, its leading assignments, its redirections and the operator after it; and
//! the first construct Claude Code refuses to check statically (a [`Refusal`], with Claude Code's
//! wording). A refused line still lists its commands, nested ones included, because deny rules
//! are matched against them.

mod ast;
mod parse;

#[cfg(test)]
mod tests;

use std::collections::BTreeSet;

use self::ast::{CommandList, CommandNode, Compound, Pipeline, Redirect, Simple, Word, WordPart};
pub use self::ast::{Operator, RedirOp};
use crate::Span;

/// Claude Code gives up parsing longer lines.
const MAX_COMMAND_LEN: usize = 10_000;

/// Environment variables that may stand inside double quotes (`"$HOME"`): Claude Code reads them
/// as placeholders rather than refusing the line.
const QUOTED_ENVIRONMENT: &[&str] = &[
    "HOME", "PWD", "OLDPWD", "USER", "LOGNAME", "SHELL", "PATH", "HOSTNAME", "UID", "EUID", "PPID", "TMPDIR", "SHLVL",
];

/// What a Bash command line holds, as far as a permission decision is concerned.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShellAnalysis {
    /// Every simple command, in the order the shell would reach them; a command whose arguments
    /// hold a substitution comes after the substitution's commands.
    pub commands: Vec<SimpleCommand>,
    /// Every redirection, of simple and compound commands.
    pub redirections: Vec<Redirection>,
    /// The first construct that cannot be checked before it runs; `None` when the line can be.
    pub refusal: Option<Refusal>,
    /// A `( … )` subshell was walked into.
    pub subshell: bool,
    /// A command runs in the background (`&`).
    pub background: bool,
    /// Names assigned by a statement that is only assignments (`X=a;`).
    pub bare_assignments: Vec<String>,
    /// When the top level holds `|` or `|&`: the text between them, each segment a command line
    /// of its own (how Claude Code checks pipelines).
    pub pipe_segments: Vec<Span>,
}

/// One simple command: `[assignments] word… [redirections]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimpleCommand {
    /// From its first assignment or word to its last, as written (redirections at the ends left out).
    pub text: String,
    /// Where `text` is in the line (for a command inside backquotes: the backquoted span).
    pub span: Span,
    /// Leading `NAME=value` assignments.
    pub assignments: Vec<ShellAssignment>,
    /// The words after quote removal; the first is the command name.
    pub words: Vec<ShellWord>,
    pub redirections: Vec<Redirection>,
    /// The operator that follows it, if any.
    pub operator: Option<Operator>,
    pub context: CommandContext,
}

/// Where a command stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CommandContext {
    /// In the line's own list, pipelines and `!`.
    TopLevel,
    /// Inside `( … )`.
    Subshell,
    /// In an `if`, `while`, `until` or `for` condition or body.
    Body,
    /// Inside a `$(…)` or `` `…` `` between double quotes: Claude Code checks it as a command of
    /// its own.
    QuotedSubstitution,
    /// Inside a construct that is refused (an unquoted substitution, a function, a group…): only
    /// deny rules look at it.
    Refused,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellAssignment {
    pub name: String,
    /// The value after quote removal (expansions as written).
    pub value: String,
    pub span: Span,
}

/// A word after quote removal. Expansions that Claude Code lets through (`$HOME`, `"$(cmd)"`,
/// `$((1+2))`) stay as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellWord {
    pub text: String,
    pub span: Span,
    /// The word holds an expansion: its value is known only when it runs.
    pub dynamic: bool,
    /// Some of it was quoted or escaped.
    pub quoted: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirection {
    /// The descriptor written before the operator (`2` in `2>err`).
    pub fd: Option<String>,
    pub op: RedirOp,
    /// The target after quote removal (a file, a descriptor, or a here-document's delimiter).
    pub target: String,
    /// The target holds an expansion.
    pub dynamic: bool,
    pub span: Span,
}

impl Redirection {
    /// Does it send output to a file (not `/dev/null`, not another descriptor)?
    pub fn writes_file(&self) -> bool {
        let writes = match self.op {
            RedirOp::Write | RedirOp::Append | RedirOp::Clobber | RedirOp::WriteAll | RedirOp::AppendAll => true,
            RedirOp::ReadWrite => true,
            RedirOp::DupOut => !is_descriptor(&self.target),
            _ => false,
        };
        writes && self.target != "/dev/null"
    }

    /// Does it read a file (`< file`)?
    pub fn reads_file(&self) -> bool {
        matches!(self.op, RedirOp::Read | RedirOp::ReadWrite)
            || (self.op == RedirOp::DupIn && !is_descriptor(&self.target))
    }
}

fn is_descriptor(target: &str) -> bool {
    target == "-" || (!target.is_empty() && target.trim_end_matches('-').bytes().all(|b| b.is_ascii_digit()))
}

/// A command that runs its arguments as another command: its options that take a value, and how
/// many operands come before the command (`timeout 5 cmd`, `taskset 0x1 cmd`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Wrapper {
    pub(crate) name: &'static str,
    pub(crate) valued: &'static [&'static str],
    pub(crate) operands: usize,
}

const fn wrapper(name: &'static str, valued: &'static [&'static str], operands: usize) -> Wrapper {
    Wrapper { name, valued, operands }
}

/// The wrappers Claude Code sees through: allow rules through the first eight (safe
/// ones), deny and ask rules, path checks and refusals through all of them.
pub(crate) const WRAPPERS: &[Wrapper] = &[
    wrapper("timeout", &["-k", "-s", "--kill-after", "--signal"], 1),
    wrapper("time", &["-f", "-o", "--format", "--output"], 0),
    wrapper("nice", &["-n", "--adjustment"], 0),
    wrapper("nohup", &[], 0),
    wrapper("stdbuf", &["-i", "-o", "-e", "--input", "--output", "--error"], 0),
    wrapper("command", &[], 0),
    wrapper("builtin", &[], 0),
    wrapper("noglob", &[], 0),
    wrapper("chrt", &[], 1),
    wrapper("doas", &["-u", "-C"], 0),
    wrapper("env", &["-u", "-C", "-S", "--unset", "--chdir", "--split-string"], 0),
    wrapper("exec", &["-a"], 0),
    wrapper("flock", &["-w", "-E", "--timeout", "--conflict-exit-code"], 1),
    wrapper("ionice", &["-c", "-n", "-p", "-P", "-u", "--class", "--classdata"], 0),
    wrapper("ltrace", &["-o", "-e", "-p", "-s", "-u", "-n", "-a"], 0),
    wrapper("nsenter", &["-t", "-S", "-G", "--target", "--setuid", "--setgid"], 0),
    wrapper("pkexec", &["--user"], 0),
    wrapper("sandbox-exec", &["-f", "-p", "-n", "-D"], 0),
    wrapper("script", &["-c", "-E", "-I", "-O", "-T", "-B", "-m", "--command"], 0),
    wrapper("setsid", &[], 0),
    wrapper("strace", &["-o", "-e", "-p", "-s", "-u", "-a", "-b", "-E", "-I", "-O", "-P", "-S", "-X"], 0),
    wrapper("sudo", &["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "--user", "--group", "--prompt"], 0),
    wrapper("taskset", &[], 1),
    wrapper("unshare", &["-S", "-G", "--setuid", "--setgid"], 0),
    wrapper("watch", &["-n", "-d", "--interval"], 0),
    wrapper("xargs", &["-n", "-I", "-P", "-L", "-d", "-s", "-E", "-a", "--max-args", "--max-procs", "--delimiter"], 0),
];

/// How many words a wrapper and its options and operands take at the start of `words`, or `None`
/// when the first word is not a wrapper.
pub(crate) fn wrapper_len(words: &[&str]) -> Option<usize> {
    let first = *words.first()?;
    let wrapper = WRAPPERS.iter().find(|w| w.name == first)?;
    let mut at = 1;
    let mut operands = wrapper.operands;
    while let Some(&word) = words.get(at) {
        if word == "--" {
            at += 1;
            break;
        }
        if word.starts_with('-') && word.len() > 1 {
            at += if wrapper.valued.contains(&word) { 2 } else { 1 };
        } else if wrapper.name == "env" && is_assignment_word(word) {
            at += 1;
        } else if operands > 0 {
            operands -= 1;
            at += 1;
        } else {
            break;
        }
    }
    Some(at.min(words.len()))
}

fn is_assignment_word(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        name.bytes().next().is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    })
}

impl SimpleCommand {
    /// The wrappers in front of the command that really runs (`timeout 5`, `nice`, `env FOO=1`,
    /// `sudo -u root`, …), as their names.
    pub fn wrappers(&self) -> Vec<&str> {
        let words: Vec<&str> = self.words.iter().map(|w| w.text.as_str()).collect();
        let mut names = Vec::new();
        let mut at = 0;
        while let Some(len) = wrapper_len(&words[at..]) {
            names.push(words[at]);
            at += len;
        }
        names
    }

    /// The words of the command that really runs, wrappers and their options skipped.
    pub fn program_words(&self) -> &[ShellWord] {
        let words: Vec<&str> = self.words.iter().map(|w| w.text.as_str()).collect();
        let mut at = 0;
        while let Some(len) = wrapper_len(&words[at..]) {
            at += len;
        }
        &self.words[at..]
    }
}

/// A construct Claude Code will not check before it runs, and where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub reason: RefusalReason,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RefusalReason {
    /// `$1`, `$?`, `$PATH`: any variable but `$HOME` and one set earlier in the line.
    Variable,
    /// `${…}`.
    BracedVariable,
    /// `$(…)` or `` `…` `` outside double quotes.
    NestedCommand,
    /// `<(…)` or `>(…)`.
    CommandAsFile,
    /// `$'…'`.
    EscapeCodes,
    /// `$"…"`.
    TranslatableText,
    /// `"$(…)"` with at most one other character between the quotes.
    QuotedText,
    /// A statement of assignments only whose value is computed (`X=$(…)`).
    VariableSet,
    /// `{ …; }` or `(( … ))`.
    Group,
    FunctionDefinition,
    CaseStatement,
    SelectLoop,
    /// `for (( … ))`.
    CountingLoop,
    /// `NAME=(…)`.
    ListOfValues,
    /// `{a,b}`, `{1..3}`.
    BraceExpansion,
    /// `a\ b`.
    EscapedWhitespace,
    /// `<<EOF` (the body undergoes expansion).
    UnquotedHeredoc,
    /// `$((X))` or `$[…]`: the first name or non-literal.
    Arithmetic(String),
    /// An unclosed quote, backquote or `${`, or a token where none fits.
    ParseError,
    /// An unclosed `$(`, `<(`, `>(` or `(`: the shells may read the rest differently. Claude Code
    /// treats it as a possible hidden removal, which no rule can approve.
    Ambiguous,
    /// Anything else: control characters, Unicode spaces, nesting over 64 levels, a descriptor
    /// held in a variable, more than 10,000 characters.
    Unchecked,
}

impl RefusalReason {
    /// Claude Code's words for it.
    pub fn message(&self) -> String {
        let label = match self {
            RefusalReason::Variable => "A variable",
            RefusalReason::BracedVariable => "A variable in braces",
            RefusalReason::NestedCommand => "A nested command",
            RefusalReason::CommandAsFile => "A command used as a file",
            RefusalReason::EscapeCodes => "Text with escape codes",
            RefusalReason::TranslatableText => "Translatable text",
            RefusalReason::QuotedText => "Quoted text",
            RefusalReason::VariableSet => "A variable set",
            RefusalReason::Group => "A group in braces or double parentheses",
            RefusalReason::FunctionDefinition => "A function definition",
            RefusalReason::CaseStatement => "A case statement",
            RefusalReason::SelectLoop => "A for or select loop",
            RefusalReason::CountingLoop => "A counting for loop",
            RefusalReason::ListOfValues => "A list of values",
            RefusalReason::BraceExpansion => return "Brace expansion".to_owned(),
            RefusalReason::EscapedWhitespace => return "Contains backslash-escaped whitespace".to_owned(),
            RefusalReason::UnquotedHeredoc => {
                return "Heredoc with unquoted delimiter undergoes shell expansion".to_owned()
            }
            RefusalReason::Arithmetic(token) => {
                return format!("Arithmetic expansion references variable or non-literal: {token}")
            }
            RefusalReason::ParseError => return "Parse error".to_owned(),
            RefusalReason::Ambiguous => return AMBIGUOUS.to_owned(),
            RefusalReason::Unchecked => return "This command can't be checked before it runs".to_owned(),
        };
        format!("{label} in this command can't be checked before it runs")
    }
}

const AMBIGUOUS: &str = "Claude Code can't be sure it read this command the way the shell will, so it can't rule \
out a dangerous removal. This requires explicit approval. A command that deletes nothing can be sent again in plain \
syntax that bash and zsh both read, and that is not a workaround. A command that deletes anything, by rm or any \
other means, needs the user: do not send that part again.";

/// Reads a Bash command line. Never fails: what cannot be read is a [`Refusal`].
pub fn analyse_shell(command: &str) -> ShellAnalysis {
    let mut walk = AstWalk::default();
    if command.len() > MAX_COMMAND_LEN
        || command.chars().any(|c| (c.is_control() && c != '\n' && c != '\t') || (!c.is_ascii() && c.is_whitespace()))
    {
        walk.out.refusal = Some(Refusal { reason: RefusalReason::Unchecked, span: Span::new(0, command.len()) });
        return walk.out;
    }
    let list = match parse::parse(command) {
        Ok(list) => list,
        Err(failure) => {
            let reason = match failure {
                parse::ParseFailure::Syntax => RefusalReason::ParseError,
                parse::ParseFailure::Unclosed => RefusalReason::Ambiguous,
                parse::ParseFailure::TooDeep => RefusalReason::Unchecked,
            };
            walk.out.refusal = Some(Refusal { reason, span: Span::new(0, command.len()) });
            return walk.out;
        }
    };
    let top = Frame { src: command, context: CommandContext::TopLevel, backquoted: None };
    let mut pipes = Vec::new();
    walk.list(&list, &top, Some(&mut pipes));
    if !pipes.is_empty() {
        let mut from = 0;
        for pipe in pipes {
            walk.out.pipe_segments.push(Span::new(from, pipe.start));
            from = pipe.end;
        }
        walk.out.pipe_segments.push(Span::new(from, command.len()));
    }
    walk.out.refusal = walk.early.or(walk.out.refusal);
    walk.out
}

#[derive(Default)]
struct AstWalk {
    out: ShellAnalysis,
    /// Refusals Claude Code finds before walking the tree (escaped whitespace), which win.
    early: Option<Refusal>,
    /// Variables assigned a value earlier in the line.
    assigned: BTreeSet<String>,
}

/// Where the walk is: the text spans point into, and the context of commands found there.
#[derive(Clone, Copy)]
struct Frame<'s> {
    src: &'s str,
    context: CommandContext,
    /// Inside backquotes: their span in the line.
    backquoted: Option<Span>,
}

impl<'s> Frame<'s> {
    fn with(self, context: CommandContext) -> Frame<'s> {
        // Nothing found inside a refused construct is checked as a command.
        let context = if self.context == CommandContext::Refused { self.context } else { context };
        Frame { context, ..self }
    }
    fn slice(&self, span: Span) -> &'s str {
        span.slice(self.src).unwrap_or("")
    }
    fn span(&self, span: Span) -> Span {
        self.backquoted.unwrap_or(span)
    }
}

impl AstWalk {
    fn refuse(&mut self, reason: RefusalReason, span: Span) {
        if self.out.refusal.is_none() {
            self.out.refusal = Some(Refusal { reason, span });
        }
    }

    /// `pipes` collects the top level's `|` operators.
    fn list(&mut self, list: &CommandList, frame: &Frame<'_>, mut pipes: Option<&mut Vec<Span>>) {
        for item in &list.items {
            self.pipeline(&item.first, frame, pipes.as_deref_mut());
            for (operator, _, pipeline) in &item.rest {
                self.set_operator(*operator);
                self.pipeline(pipeline, frame, pipes.as_deref_mut());
            }
            if let Some((operator, _)) = item.separator {
                if operator == Operator::Background {
                    self.out.background = true;
                }
                self.set_operator(operator);
            }
        }
    }

    /// Records `operator` after the command found last.
    fn set_operator(&mut self, operator: Operator) {
        if let Some(last) = self.out.commands.last_mut() {
            last.operator.get_or_insert(operator);
        }
    }

    fn pipeline(&mut self, pipeline: &Pipeline, frame: &Frame<'_>, mut pipes: Option<&mut Vec<Span>>) {
        for (index, command) in pipeline.commands.iter().enumerate() {
            self.command(command, frame);
            if let Some(&(operator, span)) = pipeline.pipes.get(index) {
                self.set_operator(operator);
                if let Some(pipes) = pipes.as_deref_mut() {
                    pipes.push(span);
                }
            }
        }
    }

    fn command(&mut self, command: &CommandNode, frame: &Frame<'_>) {
        match command {
            CommandNode::Simple(simple) => self.simple(simple, frame),
            CommandNode::Compound { kind, redirects, span } => {
                self.compound(kind, *span, frame);
                let redirections: Vec<Redirection> = redirects.iter().map(|r| self.redirect(r, frame)).collect();
                self.out.redirections.extend(redirections);
            }
            CommandNode::FunctionDefinition { body, span } => {
                self.refuse(RefusalReason::FunctionDefinition, frame.span(*span));
                self.command(body, &frame.with(CommandContext::Refused));
            }
        }
    }

    fn compound(&mut self, kind: &Compound, span: Span, frame: &Frame<'_>) {
        let raw = span;
        let span = frame.span(span);
        match kind {
            Compound::Subshell(list) => {
                self.out.subshell = true;
                self.list(list, &frame.with(CommandContext::Subshell), None);
            }
            Compound::Group(list) => {
                self.refuse(RefusalReason::Group, span);
                self.list(list, &frame.with(CommandContext::Refused), None);
            }
            Compound::Arithmetic(_) => self.refuse(RefusalReason::Group, span),
            Compound::If { branches, otherwise } => {
                let body = frame.with(CommandContext::Body);
                for (condition, then) in branches {
                    self.list(condition, &body, None);
                    self.list(then, &body, None);
                }
                if let Some(otherwise) = otherwise {
                    self.list(otherwise, &body, None);
                }
            }
            Compound::Loop { condition, body } => {
                let inner = frame.with(CommandContext::Body);
                self.list(condition, &inner, None);
                self.list(body, &inner, None);
            }
            Compound::For { words, body, select } => {
                if *select {
                    self.refuse(RefusalReason::SelectLoop, span);
                }
                for word in words.iter().flatten() {
                    self.word(word, frame);
                }
                // The loop variable is not a literal: `$i` in the body is refused.
                self.list(body, &frame.with(CommandContext::Body), None);
            }
            Compound::CountingFor { body } => {
                self.refuse(RefusalReason::CountingLoop, span);
                self.list(body, &frame.with(CommandContext::Refused), None);
            }
            Compound::Case { subject, arms } => {
                self.refuse(RefusalReason::CaseStatement, span);
                let inner = frame.with(CommandContext::Refused);
                self.word(subject, &inner);
                for (patterns, body) in arms {
                    for pattern in patterns {
                        self.word(pattern, &inner);
                    }
                    self.list(body, &inner, None);
                }
            }
            // `[[ … ]]` is decided as a command (`[[`, its words, `]]`): bash evaluates an
            // array subscript's substitution in `-v 'x[$(cmd)]'` and in an arithmetic test's
            // operands, so its words must be seen. The operators between them are left out.
            Compound::Test { words } => {
                let bracket = |text: &str, at: usize| ShellWord {
                    text: text.to_owned(),
                    span: frame.span(Span { start: at, end: at + 2 }),
                    dynamic: false,
                    quoted: false,
                };
                let mut shell_words = vec![bracket("[[", raw.start)];
                shell_words.extend(words.iter().map(|word| self.word(word, frame)));
                shell_words.push(bracket("]]", raw.end.saturating_sub(2)));
                self.out.commands.push(SimpleCommand {
                    text: frame.slice(raw).to_owned(),
                    span,
                    assignments: Vec::new(),
                    words: shell_words,
                    redirections: Vec::new(),
                    operator: None,
                    context: frame.context,
                });
            }
        }
    }

    fn simple(&mut self, simple: &Simple, frame: &Frame<'_>) {
        let bare = simple.words.is_empty();
        let mut assignments = Vec::new();
        for assignment in &simple.assignments {
            let span = frame.span(assignment.span);
            if assignment.array {
                self.refuse(RefusalReason::ListOfValues, span);
                continue;
            }
            if bare && assignment.value.as_ref().is_some_and(has_unquoted_substitution) {
                self.refuse(RefusalReason::VariableSet, span);
            }
            let value = match &assignment.value {
                Some(word) => self.word(word, frame).text,
                None => String::new(),
            };
            if bare {
                self.out.bare_assignments.push(assignment.name.clone());
                self.assigned.insert(assignment.name.clone());
            }
            assignments.push(ShellAssignment { name: assignment.name.clone(), value, span });
        }
        let words: Vec<ShellWord> = simple.words.iter().map(|word| self.word(word, frame)).collect();
        let redirections: Vec<Redirection> = simple.redirects.iter().map(|r| self.redirect(r, frame)).collect();
        self.out.redirections.extend(redirections.iter().cloned());
        // `[ … ]` is a command like any other: bash's `[` evaluates an array subscript's
        // substitution (`[ -v 'x[$(cmd)]' ]`), so its words are decided as `test`'s are.
        if words.is_empty() {
            return;
        }
        self.out.commands.push(SimpleCommand {
            text: frame.slice(simple.span).to_owned(),
            span: frame.span(simple.span),
            assignments,
            words,
            redirections,
            operator: None,
            context: frame.context,
        });
    }

    fn redirect(&mut self, redirect: &Redirect, frame: &Frame<'_>) -> Redirection {
        let span = frame.span(redirect.span);
        if redirect.fd_variable {
            self.refuse(RefusalReason::Unchecked, span);
        }
        let (target, dynamic) = match (&redirect.target, redirect.heredoc) {
            (Some(word), Some(heredoc)) => {
                if !heredoc.quoted {
                    self.refuse(RefusalReason::UnquotedHeredoc, span);
                }
                (word.unquoted(), false)
            }
            (Some(word), None) => {
                let word = self.word(word, frame);
                (word.text, word.dynamic)
            }
            (None, _) => (String::new(), false),
        };
        Redirection { fd: redirect.fd.clone(), op: redirect.op, target, dynamic, span }
    }

    /// Quote removal, and the refusals a word can hold.
    fn word(&mut self, word: &Word, frame: &Frame<'_>) -> ShellWord {
        let mut text = String::new();
        let mut dynamic = false;
        let mut quoted = false;
        for part in &word.parts {
            match part {
                WordPart::Literal { text: literal, .. } => text.push_str(literal),
                WordPart::Escaped { character, span } => {
                    if *character == ' ' || *character == '\t' {
                        self.early.get_or_insert(Refusal {
                            reason: RefusalReason::EscapedWhitespace,
                            span: frame.span(*span),
                        });
                    }
                    text.push(*character);
                    quoted = true;
                }
                WordPart::SingleQuoted { text: literal, .. } => {
                    text.push_str(literal);
                    quoted = true;
                }
                WordPart::DoubleQuoted { parts, span } => {
                    quoted = true;
                    dynamic |= self.double_quoted(parts, *span, frame, &mut text);
                }
                _ => {
                    dynamic = true;
                    self.expansion(part, frame, false);
                    text.push_str(frame.slice(part_span(part)));
                }
            }
        }
        if has_brace_expansion(word) {
            self.refuse(RefusalReason::BraceExpansion, frame.span(word.span));
        }
        ShellWord { text, span: frame.span(word.span), dynamic, quoted }
    }

    /// The inside of `"…"`: substitutions are walked as commands of their own. Returns whether it
    /// holds an expansion.
    fn double_quoted(&mut self, parts: &[WordPart], span: Span, frame: &Frame<'_>, text: &mut String) -> bool {
        let mut substitutions = 0;
        let mut other = 0;
        let mut dynamic = false;
        for part in parts {
            match part {
                WordPart::Literal { text: literal, .. } => {
                    other += literal.chars().count();
                    text.push_str(literal);
                }
                _ => {
                    dynamic = true;
                    if matches!(part, WordPart::CommandSubstitution { .. }) {
                        substitutions += 1;
                    }
                    self.expansion(part, frame, true);
                    text.push_str(frame.slice(part_span(part)));
                }
            }
        }
        if substitutions > 0 && other <= 1 {
            self.refuse(RefusalReason::QuotedText, frame.span(span));
        }
        dynamic
    }

    fn expansion(&mut self, part: &WordPart, frame: &Frame<'_>, in_double_quotes: bool) {
        let span = frame.span(part_span(part));
        match part {
            WordPart::Parameter { name, .. } => {
                let known = self.assigned.contains(name)
                    || name == "HOME"
                    || (in_double_quotes && QUOTED_ENVIRONMENT.contains(&name.as_str()));
                if !known {
                    self.refuse(RefusalReason::Variable, span);
                }
            }
            WordPart::BracedParameter { .. } => self.refuse(RefusalReason::BracedVariable, span),
            WordPart::AnsiC { .. } => self.refuse(RefusalReason::EscapeCodes, span),
            WordPart::Translated { .. } => self.refuse(RefusalReason::TranslatableText, span),
            WordPart::Arithmetic { text, legacy, .. } => {
                let offending = if *legacy { Some("$[".to_owned()) } else { non_literal_arithmetic(text) };
                if let Some(token) = offending {
                    self.refuse(RefusalReason::Arithmetic(token), span);
                }
            }
            WordPart::CommandSubstitution { body, text, backquoted, span: own } => {
                let context = if in_double_quotes {
                    CommandContext::QuotedSubstitution
                } else {
                    self.refuse(RefusalReason::NestedCommand, span);
                    CommandContext::Refused
                };
                let inner = if *backquoted {
                    Frame { src: text, context: frame.with(context).context, backquoted: Some(frame.span(*own)) }
                } else {
                    frame.with(context)
                };
                self.list(body, &inner, None);
            }
            WordPart::ProcessSubstitution { body, .. } => {
                self.refuse(RefusalReason::CommandAsFile, span);
                self.list(body, &frame.with(CommandContext::Refused), None);
            }
            WordPart::Literal { .. }
            | WordPart::Escaped { .. }
            | WordPart::SingleQuoted { .. }
            | WordPart::DoubleQuoted { .. } => {}
        }
    }
}

fn part_span(part: &WordPart) -> Span {
    match part {
        WordPart::Literal { span, .. }
        | WordPart::Escaped { span, .. }
        | WordPart::SingleQuoted { span, .. }
        | WordPart::DoubleQuoted { span, .. }
        | WordPart::AnsiC { span }
        | WordPart::Translated { span }
        | WordPart::Parameter { span, .. }
        | WordPart::BracedParameter { span, .. }
        | WordPart::Arithmetic { span, .. }
        | WordPart::CommandSubstitution { span, .. }
        | WordPart::ProcessSubstitution { span, .. } => *span,
    }
}

fn has_unquoted_substitution(word: &Word) -> bool {
    word.parts
        .iter()
        .any(|part| matches!(part, WordPart::CommandSubstitution { .. } | WordPart::ProcessSubstitution { .. }))
}

/// `{a,b}` or `{1..3}` in the unquoted text of a word (quoted parts count as plain characters,
/// so `{"a",b}` is still a brace pattern; escaped braces are not).
fn has_brace_expansion(word: &Word) -> bool {
    let mut shape: Vec<char> = Vec::new();
    for part in &word.parts {
        match part {
            WordPart::Literal { text, .. } => shape.extend(text.chars()),
            _ => shape.push('x'),
        }
    }
    let mut open: Vec<usize> = Vec::new();
    for (index, &c) in shape.iter().enumerate() {
        match c {
            '{' => open.push(index),
            '}' => {
                if let Some(start) = open.pop() {
                    let inside: String = shape[start + 1..index].iter().collect();
                    if inside.contains(',') || inside.contains("..") {
                        return true;
                    }
                }
            }
            _ => {}
        }
    }
    false
}

/// The first token of `$((…))` that is not a number or an operator.
fn non_literal_arithmetic(text: &str) -> Option<String> {
    let mut chars = text.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        if c.is_ascii_digit() {
            // Numbers, also `0x1f` and `2#101`.
            while chars.peek().is_some_and(|&(_, c)| c.is_ascii_alphanumeric() || c == '#') {
                chars.next();
            }
        } else if c.is_whitespace() || "+-*/%()<>=!&|^~?:,".contains(c) {
        } else {
            let mut end = start + c.len_utf8();
            if c.is_ascii_alphabetic() || c == '_' || c == '$' {
                while let Some(&(at, next)) = chars.peek() {
                    if next.is_ascii_alphanumeric() || next == '_' {
                        end = at + next.len_utf8();
                        chars.next();
                    } else {
                        break;
                    }
                }
            }
            return Some(text[start..end].to_owned());
        }
    }
    None
}

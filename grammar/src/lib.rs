//! capc-grammar: the small languages hidden inside Claude Code declarations.
//!
//! Five languages, four with a pest grammar in `src/<language>.pest` that is lowered at once into an
//! owned, typed AST (no pest type appears in a public signature), one (Bash) with a hand-written
//! parser, and each written down again, in EBNF with examples, in `GRAMMAR.md`:
//!
//! * **permission rules** (`permission`): `Bash(npm run:*)`, `Read(//etc/**)`, `mcp__github__*`, …
//!   [`parse_permission_rule`] gives a [`PermissionRule`]; [`PermissionRule::matches`] and [`decide`]
//!   (in `matching` and `decide`) give them Claude Code's meaning against a [`ToolCall`].
//! * **slash-command lines** (`command_line`): `/review 42 --fast` → [`parse_command_line`].
//! * **prompt templates** (`template`): `$ARGUMENTS`, `$0`, `${CLAUDE_SKILL_DIR}`, `` !`cmd` ``, `@file`
//!   → [`parse_template`], then [`expand`] with [`split_arguments`]; [`find_shell_commands`] finds the
//!   injections alone, parsing only them.
//! * **`${VAR}` expansion** in `.mcp.json` (`env`): [`parse_env_refs`] and [`expand_env`].
//! * **Bash command lines** (`shell`): [`analyse_shell`] lists the simple commands, redirections and
//!   operators of a line, and the first construct Claude Code refuses to check before it runs;
//!   [`decide_bash`] (in `bash`) decides the line against permission rules as Claude Code does,
//!   with its messages (measured: `tests/data/bash-2.1.332.json`).
//!
//! Comments cite what each behaviour follows (a measurement, the public docs, a function of Claude
//! Code's); which source wins when they disagree is stated once, in ARCHITECTURE.md ("Sources of
//! truth about Claude Code"). A comment names a Claude Code version only where behaviour differs
//! between versions.
//!
//! **Architecture invariants.** This crate does no I/O and never sees a file path of its own; it never
//! panics on any input (fuzzed, see `fuzz/`); every parse is linear in its input (see `benches/parse.rs`);
//! every span is a byte range on char boundaries of the string that was parsed.

mod bash;
mod command_line;
mod decide;
mod env;
mod error;
mod matching;
mod permission;
mod shell;
mod template;
mod tools;

pub use bash::{decide_bash, BashContext, BashDecision, LinkResolver, PermissionMode};
pub use command_line::{parse_command_line, CommandLine};
pub use decide::decide;
pub use env::{expand_env, parse_env_refs, parse_env_refs_pest, EnvRef};
pub use error::SyntaxError;
pub use matching::{Behavior, Decision, MatchContext, SourcedRule, ToolCall};
pub use permission::{
    parse_permission_rule, BashPattern, PathAnchor, PermissionRule, RuleContent, SkillPattern, Specifier, ToolKind,
    ToolName, WildcardPiece,
};
pub use shell::{
    analyse_shell, CommandContext, Operator, RedirOp, Redirection, Refusal, RefusalReason, ShellAnalysis,
    ShellAssignment, ShellWord, SimpleCommand,
};
pub use template::{
    escape_argument, expand, find_shell_commands, parse_template, split_arguments, try_expand, ExpandContext, FileRef,
    Placeholder, ShellCommand, ShellKind, Template, TemplatePart, TemplatePartKind, TemplateVar, TooLong,
    MAX_EXPANDED_CHARS,
};
pub use tools::{canonical_tool_name, primary_field, BUILTIN_TOOLS, LEGACY_TOOL_ALIASES};

/// A half-open byte range `start..end` into the string that was parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }
    /// Moves a span found inside a substring onto the enclosing text.
    pub fn shift(self, by: usize) -> Span {
        Span { start: self.start + by, end: self.end + by }
    }
    pub fn len(self) -> usize {
        self.end - self.start
    }
    pub fn is_empty(self) -> bool {
        self.start == self.end
    }
    /// An empty span at `offset`, for "expected …" errors that point between two characters.
    pub fn at(offset: usize) -> Span {
        Span { start: offset, end: offset }
    }
    /// The text this span covers in `source`, or `None` if it is out of bounds or not on char boundaries.
    pub fn slice(self, source: &str) -> Option<&str> {
        source.get(self.start..self.end)
    }
}

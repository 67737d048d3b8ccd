//! The syntax tree `parse.rs` builds. Internal: `mod.rs` walks it into the flat, public
//! [`super::ShellAnalysis`]. Spans are byte offsets into the parsed text, except inside a
//! backquoted substitution, whose body is parsed from its unescaped text.

use crate::Span;

/// Commands separated by `;`, `&` or newlines.
#[derive(Debug, Clone, Default)]
pub(crate) struct CommandList {
    pub(crate) items: Vec<ListItem>,
}

/// `pipeline { ("&&" | "||") pipeline }` and the separator after it.
#[derive(Debug, Clone)]
pub(crate) struct ListItem {
    pub(crate) first: Pipeline,
    pub(crate) rest: Vec<(Operator, Span, Pipeline)>,
    pub(crate) separator: Option<(Operator, Span)>,
    #[allow(dead_code)]
    pub(crate) span: Span,
}

#[derive(Debug, Clone)]
pub(crate) struct Pipeline {
    #[allow(dead_code)]
    pub(crate) negated: bool,
    pub(crate) commands: Vec<CommandNode>,
    /// The `|` or `|&` after each command but the last.
    pub(crate) pipes: Vec<(Operator, Span)>,
    #[allow(dead_code)]
    pub(crate) span: Span,
}

#[derive(Debug, Clone)]
pub(crate) enum CommandNode {
    Simple(Simple),
    Compound {
        kind: Compound,
        redirects: Vec<Redirect>,
        span: Span,
    },
    /// `name () body` or `function name body`.
    FunctionDefinition {
        body: Box<CommandNode>,
        span: Span,
    },
}

#[derive(Debug, Clone)]
pub(crate) enum Compound {
    /// `( list )`.
    Subshell(CommandList),
    /// `{ list; }`.
    Group(CommandList),
    /// `(( expression ))`.
    Arithmetic(#[allow(dead_code)] String),
    If {
        branches: Vec<(CommandList, CommandList)>,
        otherwise: Option<CommandList>,
    },
    /// `while` and `until`.
    Loop {
        condition: CommandList,
        body: CommandList,
    },
    /// `for name [in words]; do …; done`, or `select`.
    For {
        words: Option<Vec<Word>>,
        body: CommandList,
        select: bool,
    },
    /// `for (( … )); do …; done`.
    CountingFor {
        body: CommandList,
    },
    Case {
        subject: Word,
        arms: Vec<(Vec<Word>, CommandList)>,
    },
    /// `[[ … ]]`.
    Test {
        words: Vec<Word>,
    },
}

/// `{ assignment | redirect } [ word { word | redirect } ]`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Simple {
    pub(crate) assignments: Vec<Assignment>,
    pub(crate) words: Vec<Word>,
    pub(crate) redirects: Vec<Redirect>,
    /// From the first assignment or word to the end of the last one (redirections at either end excluded).
    pub(crate) span: Span,
}

#[derive(Debug, Clone)]
pub(crate) struct Assignment {
    pub(crate) name: String,
    pub(crate) value: Option<Word>,
    /// `NAME=(a b c)`.
    pub(crate) array: bool,
    pub(crate) span: Span,
}

#[derive(Debug, Clone)]
pub(crate) struct Redirect {
    pub(crate) fd: Option<String>,
    /// `{name}>file`: the descriptor is held in a variable.
    pub(crate) fd_variable: bool,
    pub(crate) op: RedirOp,
    pub(crate) target: Option<Word>,
    pub(crate) heredoc: Option<Heredoc>,
    pub(crate) span: Span,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Heredoc {
    /// The delimiter was quoted (`<<'EOF'`, `<<"EOF"`, `<<\EOF`): the body is literal text.
    pub(crate) quoted: bool,
}

/// A redirection operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RedirOp {
    /// `<`
    Read,
    /// `>`
    Write,
    /// `>>`
    Append,
    /// `>|`
    Clobber,
    /// `&>`
    WriteAll,
    /// `&>>`
    AppendAll,
    /// `<>`
    ReadWrite,
    /// `>&` (a descriptor, `-`, or a file)
    DupOut,
    /// `<&`
    DupIn,
    /// `<<`
    Heredoc,
    /// `<<-`
    HeredocStrip,
    /// `<<<`
    HereString,
}

/// What separates two commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operator {
    /// `;`
    Semicolon,
    /// A newline.
    Newline,
    /// `&`
    Background,
    /// `&&`
    And,
    /// `||`
    Or,
    /// `|`
    Pipe,
    /// `|&`
    PipeAll,
}

#[derive(Debug, Clone)]
pub(crate) struct Word {
    pub(crate) parts: Vec<WordPart>,
    pub(crate) span: Span,
}

#[derive(Debug, Clone)]
pub(crate) enum WordPart {
    /// Unquoted text.
    Literal {
        text: String,
        span: Span,
    },
    /// `\c` outside quotes.
    Escaped {
        character: char,
        span: Span,
    },
    SingleQuoted {
        text: String,
        span: Span,
    },
    /// Literal text and expansions between double quotes.
    DoubleQuoted {
        parts: Vec<WordPart>,
        span: Span,
    },
    /// `$'…'`.
    AnsiC {
        span: Span,
    },
    /// `$"…"`.
    Translated {
        span: Span,
    },
    /// `$name`, `$1`, `$?`, …
    Parameter {
        name: String,
        span: Span,
    },
    /// `${…}`.
    BracedParameter {
        #[allow(dead_code)]
        text: String,
        span: Span,
    },
    /// `$((…))`, or `$[…]` (`legacy`).
    Arithmetic {
        text: String,
        legacy: bool,
        span: Span,
    },
    /// `$(…)` or `` `…` `` (`backquoted`; its body's spans are offsets into `text`).
    CommandSubstitution {
        body: CommandList,
        text: String,
        backquoted: bool,
        span: Span,
    },
    /// `<(…)` or `>(…)`.
    ProcessSubstitution {
        body: CommandList,
        #[allow(dead_code)]
        output: bool,
        span: Span,
    },
}

impl Word {
    /// The word's text when it is plain unquoted text (a loop variable's name).
    pub(crate) fn literal(&self) -> Option<String> {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                WordPart::Literal { text, .. } => out.push_str(text),
                _ => return None,
            }
        }
        Some(out)
    }

    /// The text after quote removal, expansions left out (a here-document delimiter).
    pub(crate) fn unquoted(&self) -> String {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                WordPart::Literal { text, .. } | WordPart::SingleQuoted { text, .. } => out.push_str(text),
                WordPart::Escaped { character, .. } => out.push(*character),
                WordPart::DoubleQuoted { parts, .. } => {
                    for inner in parts {
                        if let WordPart::Literal { text, .. } = inner {
                            out.push_str(text);
                        }
                    }
                }
                _ => {}
            }
        }
        out
    }
}

//! Slash-command lines (`command_line.pest`): `/review 42 --fast`, `/frontend:component Button`,
//! `/mcp__github__pr (MCP) 12`. Follows Claude Code's `parseSlashCommand` exactly, which the
//! slash-commands docs (https://code.claude.com/docs/en/slash-commands) do not contradict; and
//! `looksLikeCommand` of `processSlashCommand`, which decides
//! whether an unknown name is reported as "Unknown skill" or the line goes to the model as a prompt.

use pest::Parser as _;

use crate::error::span_of;
use crate::Span;

mod grammar {
    // pest_derive makes `Rule` public; the module is private, so it never leaves the crate.
    #![allow(unreachable_pub)]
    #[derive(pest_derive::Parser)]
    #[grammar = "command_line.pest"]
    pub(crate) struct CommandLineParser;
}
use grammar::{CommandLineParser, Rule};

/// A parsed slash-command line. Spans are byte offsets into the untrimmed input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandLine {
    /// The name looked up among commands, with ` (MCP)` appended when the line had that marker.
    pub name: String,
    /// The name as typed, without the `/` and the marker.
    pub name_span: Span,
    /// The line had ` (MCP)` as its second word.
    pub is_mcp: bool,
    /// Everything after the separating space, runs of spaces included; empty when there is none.
    pub args: String,
    /// Where the arguments are; an empty span after the name when there are none.
    pub args_span: Span,
    /// The trimmed line.
    pub span: Span,
}

impl CommandLine {
    /// The name's `:`-separated segments: `frontend:component` → `["frontend", "component"]`
    /// (plugin and subdirectory namespaces).
    pub fn segments(&self) -> Vec<&str> {
        self.base_name().split(':').collect()
    }

    /// The name without the ` (MCP)` suffix.
    pub fn base_name(&self) -> &str {
        if self.is_mcp {
            self.name.strip_suffix(" (MCP)").unwrap_or(&self.name)
        } else {
            &self.name
        }
    }

    /// `looksLikeCommand`: the name has only `[a-zA-Z0-9:_-]`. When no command has the name, Claude
    /// Code answers "Unknown skill" for such a name unless `/<name>` exists on disk; a name that does
    /// not look like a command (`/usr/bin/foo`, `/tmp/x.txt`) is sent to the model as a prompt.
    pub fn looks_like_command(&self) -> bool {
        self.base_name().bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b':' | b'_' | b'-'))
    }
}

/// Parses a slash-command line; `None` when the trimmed text does not start with `/` or the name is
/// empty (`/`, `/ foo`), which Claude Code answers with "Commands are in the form `/command [args]`".
pub fn parse_command_line(text: &str) -> Option<CommandLine> {
    let offset = text.len() - text.trim_start_matches(is_js_space).len();
    let trimmed = trim_js(text);
    let line = CommandLineParser::parse(Rule::line, trimmed).ok()?.next()?;
    let (mut name_span, mut name, mut is_mcp, mut args) = (Span::default(), "", false, None);
    for pair in line.into_inner() {
        match pair.as_rule() {
            Rule::name => {
                name = pair.as_str();
                name_span = span_of(&pair).shift(offset);
            }
            Rule::mcp_marker => is_mcp = true,
            Rule::args => args = Some((pair.as_str(), span_of(&pair).shift(offset))),
            _ => {}
        }
    }
    let after_name = if is_mcp { name_span.end + " (MCP)".len() } else { name_span.end };
    let (args, args_span) = args.unwrap_or(("", Span::at(after_name)));
    let name = if is_mcp { format!("{name} (MCP)") } else { name.to_owned() };
    Some(CommandLine {
        name,
        name_span,
        is_mcp,
        args: args.to_owned(),
        args_span,
        span: Span::new(offset, offset + trimmed.len()),
    })
}

/// JavaScript's `String.prototype.trim`: Unicode white space, line terminators and the BOM.
pub(crate) fn trim_js(text: &str) -> &str {
    text.trim_matches(is_js_space)
}

fn is_js_space(c: char) -> bool {
    (c.is_whitespace() && c != '\u{85}') || c == '\u{feff}'
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Renders a parse as one line: `name=… args=… mcp spans…`, or `none`.
    fn render(text: &str) -> String {
        let Some(line) = parse_command_line(text) else { return "none".to_owned() };
        let slice = |span: Span| span.slice(text).map(str::to_owned).unwrap_or_else(|| "<bad span>".to_owned());
        assert_eq!(slice(line.name_span), line.base_name(), "name span of {text:?}");
        assert_eq!(slice(line.args_span), line.args, "args span of {text:?}");
        let mut out = format!("name={:?} args={:?}", line.name, line.args);
        if line.is_mcp {
            out.push_str(" mcp");
        }
        if !line.looks_like_command() {
            out.push_str(" not-a-command");
        }
        if line.segments().len() > 1 {
            out.push_str(&format!(" segments={:?}", line.segments()));
        }
        out.push_str(&format!(" @{}..{}", line.span.start, line.span.end));
        out
    }

    #[track_caller]
    fn check(text: &str, expected: &str) {
        assert_eq!(render(text), expected, "input: {text:?}");
    }

    #[test]
    fn plain_commands() {
        check("/review", r#"name="review" args="" @0..7"#);
        check("/review 42 --fast", r#"name="review" args="42 --fast" @0..17"#);
        check("/search foo bar", r#"name="search" args="foo bar" @0..15"#);
        check("/x", r#"name="x" args="" @0..2"#);
        check("/deploy-staging now", r#"name="deploy-staging" args="now" @0..19"#);
        check("/under_score", r#"name="under_score" args="" @0..12"#);
        check("/CAPS", r#"name="CAPS" args="" @0..5"#);
        check("/v2", r#"name="v2" args="" @0..3"#);
    }

    #[test]
    fn trimming_is_javascript_trim() {
        check("  /review 42  ", r#"name="review" args="42" @2..12"#);
        check("\n\t/review\n", r#"name="review" args="" @2..9"#);
        check("\u{feff}/review", r#"name="review" args="" @3..10"#);
        check("\u{3000}/review\u{3000}", r#"name="review" args="" @3..10"#);
    }

    #[test]
    fn split_on_a_single_space_only() {
        // Runs of spaces leave empty tokens, which survive the re-join.
        check("/review  42", r#"name="review" args=" 42" @0..11"#);
        check("/review   a  b", r#"name="review" args="  a  b" @0..14"#);
        check("/review a ", r#"name="review" args="a" @0..9"#);
        // A tab is not a separator: it belongs to the name.
        check("/review\t42", "name=\"review\\t42\" args=\"\" not-a-command @0..10");
        check("/review\n42", "name=\"review\\n42\" args=\"\" not-a-command @0..10");
    }

    #[test]
    fn namespaces() {
        check(
            "/frontend:component Button",
            r#"name="frontend:component" args="Button" segments=["frontend", "component"] @0..26"#,
        );
        check("/a:b:c", r#"name="a:b:c" args="" segments=["a", "b", "c"] @0..6"#);
        check("/my-plugin:review 1 2", r#"name="my-plugin:review" args="1 2" segments=["my-plugin", "review"] @0..21"#);
        check(
            "/apps/web:deploy",
            r#"name="apps/web:deploy" args="" not-a-command segments=["apps/web", "deploy"] @0..16"#,
        );
        check("/a::b", r#"name="a::b" args="" segments=["a", "", "b"] @0..5"#);
    }

    #[test]
    fn mcp_marker() {
        check("/mcp__github__pr (MCP)", r#"name="mcp__github__pr (MCP)" args="" mcp @0..22"#);
        check(
            "/mcp:tool (MCP) arg1 arg2",
            r#"name="mcp:tool (MCP)" args="arg1 arg2" mcp segments=["mcp", "tool"] @0..25"#,
        );
        check("/x (MCP)  a", r#"name="x (MCP)" args=" a" mcp @0..11"#);
        // Only a whole second word counts.
        check("/x (MCP)y", r#"name="x" args="(MCP)y" @0..9"#);
        check("/x  (MCP)", r#"name="x" args=" (MCP)" @0..9"#);
        check("/x (mcp)", r#"name="x" args="(mcp)" @0..8"#);
        check("/x a (MCP)", r#"name="x" args="a (MCP)" @0..10"#);
        check("/(MCP) (MCP)", r#"name="(MCP) (MCP)" args="" mcp not-a-command @0..12"#);
    }

    #[test]
    fn file_paths_are_not_commands() {
        check("/usr/bin/foo", r#"name="usr/bin/foo" args="" not-a-command @0..12"#);
        check("/tmp/x.txt is broken", r#"name="tmp/x.txt" args="is broken" not-a-command @0..20"#);
        check("/etc", r#"name="etc" args="" @0..4"#);
        check("/héllo", r#"name="héllo" args="" not-a-command @0..7"#);
        check("/a.b", r#"name="a.b" args="" not-a-command @0..4"#);
        check("//double", r#"name="/double" args="" not-a-command @0..8"#);
    }

    #[test]
    fn not_slash_commands() {
        check("", "none");
        check("   ", "none");
        check("review", "none");
        check("/", "none");
        check("/ review", "none");
        check("  / x", "none");
        check("x /review", "none");
        check("\\/review", "none");
    }

    #[test]
    fn unicode_arguments_keep_exact_spans() {
        check("/grüße ünïcode 文字", r#"name="grüße" args="ünïcode 文字" not-a-command @0..25"#);
        check("/r 🎉", r#"name="r" args="🎉" @0..7"#);
    }
}

//! Permission rules (`permission.pest`): `Bash(npm run:*)`, `Read(//etc/**)`, `mcp__github__*`, ….
//!
//! The outer shape is Claude Code's rule parser (`permissionRuleParser.ts`): the tool name ends at
//! the first unescaped `(`, the content at the last unescaped `)`, content `""` and `"*"` mean the whole
//! tool, and `\(`, `\)`, `\\` are unescaped before the content is read. What Claude Code's settings
//! validator (`permissionValidation.ts`) rejects is a [`SyntaxError`] here, because Claude Code drops such a
//! rule; the content languages (`Bash(git *)`, `WebFetch(domain:…)`, `Skill(name *)`, `Tool(param:value)`)
//! follow the permissions docs (https://code.claude.com/docs/en/permissions).

use pest::iterators::Pair;
use pest::Parser as _;

use crate::error::{internal_error, span_of, suggest};
use crate::tools::{canonical_tool_name, is_path_tool, is_shell_tool, BUILTIN_TOOLS};
use crate::{Span, SyntaxError};

#[cfg(test)]
mod tests;

mod grammar {
    // pest_derive makes `Rule` public; the module is private, so it never leaves the crate.
    #![allow(unreachable_pub)]
    #[derive(pest_derive::Parser)]
    #[grammar = "permission.pest"]
    pub(crate) struct PermissionParser;
}
use grammar::{PermissionParser, Rule};

/// One permission rule as written in `permissions.allow`/`ask`/`deny`, `allowed-tools` or `--allowedTools`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PermissionRule {
    pub tool: ToolName,
    /// The parenthesised part, `None` for a bare `Tool`.
    pub specifier: Option<Specifier>,
    /// What the specifier means; `None` for the whole-tool forms `Tool`, `Tool()` and `Tool(*)`.
    pub content: Option<RuleContent>,
    pub span: Span,
}

/// The tool a rule names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolName {
    /// As written, for example `Task`.
    pub written: String,
    /// What Claude Code matches it as, for example `Agent` (see [`crate::LEGACY_TOOL_ALIASES`]).
    pub canonical: String,
    pub kind: ToolKind,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolKind {
    /// One of [`crate::BUILTIN_TOOLS`] (after alias normalisation).
    Builtin,
    /// `mcp__server`, `mcp__server__*`, `mcp__server__tool`; `server` and `tool` may hold `*` globs.
    /// Split like `mcpInfoFromString`: the server ends at the second `__`, the tool is the rest.
    Mcp { server: String, tool: Option<String> },
    /// A tool-name glob that is not an MCP name: `*`, `B*`.
    Glob,
    /// Any other name: a tool of a newer or older Claude Code, or a typo.
    Unknown,
}

/// The `(…)` part of a rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Specifier {
    /// From `(` to `)`, both included.
    pub span: Span,
    /// Between the parentheses, escapes still in place.
    pub content_span: Span,
    /// The content with `\(`, `\)` and `\\` unescaped, as Claude Code stores it. Empty for `Tool()`,
    /// which the settings validator rejects but the rule parser reads as the whole tool.
    pub text: String,
}

/// What a specifier means, by tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleContent {
    /// `Bash(…)` and `PowerShell(…)`.
    Bash(BashPattern),
    /// `Read(…)`, `Edit(…)` and the other file tools: a gitignore-style glob under an anchor.
    Path { anchor: PathAnchor, glob: String },
    /// `WebFetch(domain:host)`; `host` may be `*`, `*.example.com` or use `*` as one label.
    Domain { host: String },
    /// `Skill(…)`.
    Skill(SkillPattern),
    /// `Agent(type)` (also written `Task(type)`).
    AgentType(String),
    /// `Tool(param:value)`: one top-level scalar input field, `*` a wildcard in `value` (permissions
    /// docs: deny and ask only; a rule on the tool's [`crate::primary_field`] is ignored by Claude Code).
    Param { name: String, value: String },
    /// Content of a tool without a dedicated specifier language, kept as written.
    Raw(String),
}

/// A shell command pattern (`shellRuleMatching.ts`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BashPattern {
    /// No unescaped `*`: the command must be exactly this.
    Exact(String),
    /// Legacy `prefix:*`: the command is `prefix` or starts with `prefix ` (a word boundary).
    Prefix(String),
    /// At least one unescaped `*`; leading and trailing whitespace of the pattern is dropped.
    Wildcard(Vec<WildcardPiece>),
}

/// One piece of a wildcard pattern, with `\*` and `\\` already turned into literals.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WildcardPiece {
    Literal(String),
    Star,
}

/// Where a path rule's glob starts (Claude Code's `patternWithRoot`, `filesystem.ts`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PathAnchor {
    /// `//abs`: the filesystem root.
    Root,
    /// `~/x`: the home directory.
    Home,
    /// `/x`: the directory of the settings source that defined the rule (not the filesystem root).
    SettingsDir,
    /// `./x` or `x`: the current directory; without an inner `/` the glob matches at any depth.
    Relative,
}

/// A `Skill(…)` pattern; one leading `/` is dropped, as `SkillTool.checkPermissions` does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkillPattern {
    /// `Skill(name)`.
    Exact(String),
    /// Legacy `Skill(name:*)`: any skill whose name starts with `name`, with no word boundary, so
    /// `review:*` also matches `review-pr`.
    LegacyPrefix(String),
    /// `Skill(name *)`: the skill `name` with any arguments (permissions docs).
    AnyArgs(String),
    /// Any other pattern with an unescaped `*`, matched against the skill name.
    Wildcard(Vec<WildcardPiece>),
}

impl PermissionRule {
    /// `true` for `Tool`, `Tool()` and `Tool(*)`, which match every call of the tool.
    pub fn is_whole_tool(&self) -> bool {
        self.content.is_none()
    }
}

impl ToolName {
    /// `true` when the rule used a legacy name such as `Task` for `Agent`.
    pub fn is_legacy_alias(&self) -> bool {
        self.written != self.canonical
    }
    /// `true` when the name holds a `*` glob (`*`, `mcp__*`, `mcp__github__get_*`).
    pub fn is_glob(&self) -> bool {
        self.written.contains('*')
    }
    /// The only globs an allow rule may use: `mcp__<server>__<glob>` with a literal server.
    pub fn is_anchored_glob(&self) -> bool {
        match &self.kind {
            ToolKind::Mcp { server, tool: Some(_) } => !server.contains('*'),
            _ => false,
        }
    }
    /// The nearest built-in tool name, for `did you mean …?` on an unknown name.
    pub fn suggestion(&self) -> Option<&'static str> {
        if self.kind != ToolKind::Unknown {
            return None;
        }
        suggest(&self.written, BUILTIN_TOOLS.iter().copied())
            .or_else(|| BUILTIN_TOOLS.iter().copied().find(|tool| tool.eq_ignore_ascii_case(&self.written)))
    }
}

/// Parses one permission rule. Spans are byte offsets into `text`.
pub fn parse_permission_rule(text: &str) -> Result<PermissionRule, SyntaxError> {
    if text.trim().is_empty() {
        return Err(SyntaxError::new(Span::new(0, text.len()), "expected a tool name, found an empty rule"));
    }
    // Without parentheses the whole text is the tool name (what `rule` makes of it too),
    // which spares the grammar the most common rules (`Read`, `mcp__github__search`).
    if !text.contains(['(', ')']) {
        let tool = lower_tool_name(text, Span::new(0, text.len()))?;
        return Ok(PermissionRule { tool, specifier: None, content: None, span: Span::new(0, text.len()) });
    }
    parse_with_grammar(text)
}

/// [`parse_permission_rule`] through the `rule` grammar, whatever the text.
fn parse_with_grammar(text: &str) -> Result<PermissionRule, SyntaxError> {
    let rule = PermissionParser::parse(Rule::rule, text)
        .map_err(|error| internal_error(&error, text.len()))?
        .next()
        .ok_or_else(|| SyntaxError::new(Span::at(0), "internal grammar error: no rule"))?;

    let (mut name, mut specifier, mut unclosed, mut stray) = (None, None, None, None);
    for pair in rule.into_inner() {
        match pair.as_rule() {
            Rule::tool_name => name = Some(pair),
            Rule::specifier => specifier = Some(pair),
            Rule::unclosed => unclosed = Some(pair),
            Rule::stray => stray = Some(pair),
            _ => {}
        }
    }
    let Some(name) = name else {
        return Err(SyntaxError::new(Span::at(0), "expected a tool name before `(`")
            .with_help("a rule is `Tool` or `Tool(specifier)`"));
    };
    let tool = lower_tool_name(name.as_str(), span_of(&name))?;
    if let Some(stray) = stray {
        let start = stray.as_span().start();
        return Err(SyntaxError::new(Span::new(start, start + 1), "unmatched `)`"));
    }
    if let Some(unclosed) = unclosed {
        return Err(unclosed_error(text, &tool.written, unclosed.as_span().start()));
    }
    let Some(specifier) = specifier else {
        return Ok(PermissionRule { tool, specifier: None, content: None, span: Span::new(0, text.len()) });
    };
    lower_specifier(text, tool, specifier)
}

/// Splits and checks the tool name. Claude Code checks MCP names first, then that other names start
/// with an uppercase letter; names it cannot match at all (whitespace, `\`) are errors here too.
fn lower_tool_name(written: &str, span: Span) -> Result<ToolName, SyntaxError> {
    if let Some(offset) = written.find(char::is_whitespace) {
        let error = SyntaxError::new(span, format!("tool name `{written}` contains whitespace"));
        let joined: String = written.split_whitespace().collect();
        let help = match suggest(&joined, BUILTIN_TOOLS.iter().copied()) {
            Some(tool) => format!("use the canonical name `{tool}`"),
            None if offset == 0 || written.ends_with(char::is_whitespace) => {
                "remove the whitespace around the rule".to_owned()
            }
            None => "tool names have no spaces; use the canonical name, not the UI label".to_owned(),
        };
        return Err(error.with_help(help));
    }
    if let Some(offset) = written.find('\\') {
        let at = span.start + offset;
        return Err(SyntaxError::new(Span::new(at, at + 1), "unexpected `\\` in tool name"));
    }
    let canonical = canonical_tool_name(written).to_owned();
    let kind = if let Some(mcp) = mcp_parts(written) {
        let (server, tool) = mcp;
        check_mcp_name(written, server, tool, span)?;
        ToolKind::Mcp { server: server.to_owned(), tool: tool.map(str::to_owned) }
    } else {
        check_uppercase(written, span)?;
        if BUILTIN_TOOLS.contains(&canonical.as_str()) {
            ToolKind::Builtin
        } else if written.contains('*') {
            ToolKind::Glob
        } else {
            ToolKind::Unknown
        }
    };
    Ok(ToolName { written: written.to_owned(), canonical, kind, span })
}

/// `mcpInfoFromString`: `mcp`, a non-empty server, then the tool as the rest (which may hold `__`).
pub(crate) fn mcp_parts(name: &str) -> Option<(&str, Option<&str>)> {
    let rest = name.strip_prefix("mcp__")?;
    let (server, tool) = match rest.split_once("__") {
        Some((server, tool)) => (server, Some(tool)),
        None => (rest, None),
    };
    (!server.is_empty()).then_some((server, tool))
}

fn check_mcp_name(written: &str, server: &str, tool: Option<&str>, span: Span) -> Result<(), SyntaxError> {
    if tool == Some("") {
        return Err(SyntaxError::new(span, format!("expected a tool name after `{written}`"))
            .with_help(format!("write `mcp__{server}` or `mcp__{server}__*` for every tool of `{server}`")));
    }
    // Claude Code compares server names after normalising them (`normalizeNameForMCP`), so a rule
    // must be written with the normalised name; `*` stays for tool-name globs.
    let normalise = |part: &str| -> String {
        part.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '*') { c } else { '_' }).collect()
    };
    let normalised_server = normalise(server);
    let normalised_tool = tool.map(normalise);
    if normalised_server != server || normalised_tool.as_deref() != tool {
        let fixed = match normalised_tool {
            Some(tool) => format!("mcp__{normalised_server}__{tool}"),
            None => format!("mcp__{normalised_server}"),
        };
        return Err(SyntaxError::new(span, format!("tool name `{written}` is not normalised"))
            .with_help(format!("Claude Code replaces characters outside `[A-Za-z0-9_-]` with `_`: write `{fixed}`")));
    }
    Ok(())
}

fn check_uppercase(written: &str, span: Span) -> Result<(), SyntaxError> {
    let Some(first) = written.chars().next() else { return Ok(()) };
    // The validator compares the first character with its uppercase form, so `*` and digits pass.
    if first.to_uppercase().eq(std::iter::once(first)) {
        return Ok(());
    }
    let capitalised: String = first.to_uppercase().chain(written.chars().skip(1)).collect();
    let help = BUILTIN_TOOLS
        .iter()
        .find(|tool| tool.eq_ignore_ascii_case(written))
        .map_or(capitalised, |tool| (*tool).to_owned());
    Err(SyntaxError::new(span, format!("tool name `{written}` must start with an uppercase letter"))
        .with_help(format!("did you mean `{help}`?")))
}

/// The error for a `(` that has no `)` at the end of the rule.
fn unclosed_error(text: &str, tool: &str, open: usize) -> SyntaxError {
    match last_unescaped(text, open, ')') {
        Some(close) if close + 1 < text.len() => {
            SyntaxError::new(Span::new(close + 1, text.len()), "unexpected text after `)`")
                .with_help("a rule ends with the `)` that closes its specifier; escape a literal `)` as `\\)`")
        }
        _ => {
            let error = SyntaxError::new(Span::at(text.len()), format!("expected `)` to close `{tool}(`"));
            if text.ends_with(')') {
                error.with_help("the final `)` is escaped by the `\\` before it; write `\\\\)` for a literal backslash")
            } else {
                error
            }
        }
    }
}

/// Byte offsets of unescaped `target`s in `text[from..]`: a character is escaped after an odd number
/// of backslashes. Scanning forward with a toggle is the same test as counting backslashes backwards.
fn unescaped_positions(text: &str, from: usize, target: char) -> impl Iterator<Item = usize> + '_ {
    let mut escaped = false;
    text.get(from..).unwrap_or("").char_indices().filter_map(move |(offset, c)| {
        let hit = !escaped && c == target;
        escaped = !escaped && c == '\\';
        hit.then_some(from + offset)
    })
}

fn last_unescaped(text: &str, from: usize, target: char) -> Option<usize> {
    unescaped_positions(text, from, target).last()
}

fn lower_specifier(text: &str, tool: ToolName, specifier: Pair<'_, Rule>) -> Result<PermissionRule, SyntaxError> {
    let spec_span = span_of(&specifier);
    let content_span = Span::new(spec_span.start + 1, spec_span.end - 1);
    let raw = content_span.slice(text).unwrap_or("");
    check_parentheses(raw, content_span.start)?;
    if let ToolKind::Mcp { server, .. } = &tool.kind {
        return Err(SyntaxError::new(spec_span, "an MCP rule takes no specifier in parentheses")
            .with_help(format!("write `{}`, or `mcp__{server}__*` for every tool of `{server}`", tool.written)));
    }
    let unescaped = unescape(raw);
    let content = match unescaped.as_str() {
        "" | "*" => None,
        _ => Some(lower_content(&tool.canonical, raw, &unescaped, content_span)?),
    };
    let specifier = Specifier { span: spec_span, content_span, text: unescaped };
    Ok(PermissionRule { tool, specifier: Some(specifier), content, span: Span::new(0, text.len()) })
}

/// The validator counts unescaped parentheses over the whole rule and rejects an unescaped `()`.
/// Only the counts must agree, so `Bash(a)(b)` (content `a)(b`) is accepted, as in Claude Code.
fn check_parentheses(raw: &str, offset: usize) -> Result<(), SyntaxError> {
    let opens: Vec<usize> = unescaped_positions(raw, 0, '(').collect();
    let closes: Vec<usize> = unescaped_positions(raw, 0, ')').collect();
    if opens.len() != closes.len() {
        let at = if closes.len() > opens.len() {
            // The first `)` that has no `(` before it to close.
            let mut depth = 0usize;
            let mut first_unmatched = None;
            let mut events: Vec<(usize, bool)> =
                opens.iter().map(|&o| (o, true)).chain(closes.iter().map(|&c| (c, false))).collect();
            events.sort_unstable();
            for (position, is_open) in events {
                if is_open {
                    depth += 1;
                } else if depth == 0 {
                    first_unmatched = Some(position);
                    break;
                } else {
                    depth -= 1;
                }
            }
            first_unmatched.or(closes.first().copied()).unwrap_or(0)
        } else {
            // The last `(` that no later `)` closes.
            let mut depth = 0usize;
            let mut last_unmatched = None;
            let mut events: Vec<(usize, bool)> =
                opens.iter().map(|&o| (o, true)).chain(closes.iter().map(|&c| (c, false))).collect();
            events.sort_unstable_by(|a, b| b.cmp(a));
            for (position, is_open) in events {
                if !is_open {
                    depth += 1;
                } else if depth == 0 {
                    last_unmatched = Some(position);
                    break;
                } else {
                    depth -= 1;
                }
            }
            last_unmatched.or(opens.last().copied()).unwrap_or(0)
        };
        let which = if closes.len() > opens.len() { ")" } else { "(" };
        return Err(SyntaxError::new(Span::new(offset + at, offset + at + 1), format!("unmatched `{which}`"))
            .with_help(format!("escape a literal parenthesis as `\\{which}`")));
    }
    if let Some(at) = opens.iter().find(|&&open| raw.get(open + 1..).is_some_and(|rest| rest.starts_with(')'))) {
        return Err(SyntaxError::new(Span::new(offset + at, offset + at + 2), "empty `()` inside a rule")
            .with_help("Claude Code rejects an unescaped `()`; write `\\(\\)`"));
    }
    Ok(())
}

/// `\(` → `(`, `\)` → `)`, `\\` → `\`; any other backslash stays. Claude Code applies three global
/// replacements in that order; one left-to-right pass gives the same string for every input.
pub(crate) fn unescape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(&next @ ('(' | ')' | '\\')) = chars.peek() {
                out.push(next);
                chars.next();
                continue;
            }
        }
        out.push(c);
    }
    out
}

fn lower_content(tool: &str, raw: &str, content: &str, span: Span) -> Result<RuleContent, SyntaxError> {
    if is_shell_tool(tool) {
        lower_shell(raw, content, span)
    } else if is_path_tool(tool) {
        lower_path(tool, raw, content, span)
    } else {
        match tool {
            "WebFetch" => lower_webfetch(raw, content, span),
            "Skill" => lower_skill(content, span),
            "Agent" => Ok(RuleContent::AgentType(content.to_owned())),
            _ => lower_generic(tool, content, span),
        }
    }
}

fn parse_sub(start: Rule, content: &str) -> Result<Pair<'_, Rule>, SyntaxError> {
    PermissionParser::parse(start, content)
        .map_err(|error| internal_error(&error, content.len()))?
        .next()
        .ok_or_else(|| SyntaxError::new(Span::at(0), "internal grammar error: no content"))
}

fn first_inner<'i>(pair: Pair<'i, Rule>) -> Option<Pair<'i, Rule>> {
    pair.into_inner().find(|inner| inner.as_rule() != Rule::EOI)
}

fn lower_shell(raw: &str, content: &str, span: Span) -> Result<RuleContent, SyntaxError> {
    if content == ":*" {
        return Err(SyntaxError::new(span, "expected a command prefix before `:*`")
            .with_help("write a prefix, as in `Bash(npm run:*)`"));
    }
    if !content.ends_with(":*") {
        if let Some(at) = raw.find(":*") {
            return Err(SyntaxError::new(
                Span::new(span.start + at, span.start + at + 2),
                "`:*` is only recognised at the end of a pattern",
            )
            .with_help("move `:*` to the end for a prefix rule, or use `*` as a wildcard anywhere"));
        }
    }
    let pair = parse_sub(Rule::shell_content, content)?;
    let Some(form) = first_inner(pair) else {
        return Ok(RuleContent::Bash(BashPattern::Exact(content.to_owned())));
    };
    Ok(RuleContent::Bash(match form.as_rule() {
        Rule::legacy_prefix => BashPattern::Prefix(prefix_of(form)),
        _ if has_star(&form) => BashPattern::Wildcard(wildcard_pieces(content.trim())?),
        _ => BashPattern::Exact(content.to_owned()),
    }))
}

fn prefix_of(form: Pair<'_, Rule>) -> String {
    form.into_inner().find(|p| p.as_rule() == Rule::prefix_text).map(|p| p.as_str().to_owned()).unwrap_or_default()
}

fn has_star(pattern: &Pair<'_, Rule>) -> bool {
    pattern.clone().into_inner().any(|piece| piece.as_rule() == Rule::star)
}

/// Reads `text` with the `pattern` rule into literal runs and stars.
fn wildcard_pieces(text: &str) -> Result<Vec<WildcardPiece>, SyntaxError> {
    let pattern = parse_sub(Rule::pattern, text)?;
    let mut pieces: Vec<WildcardPiece> = Vec::new();
    for piece in pattern.into_inner() {
        let literal = match piece.as_rule() {
            Rule::star => {
                pieces.push(WildcardPiece::Star);
                continue;
            }
            Rule::escaped_star => "*",
            Rule::escaped_backslash => "\\",
            _ => piece.as_str(),
        };
        match pieces.last_mut() {
            Some(WildcardPiece::Literal(run)) => run.push_str(literal),
            _ => pieces.push(WildcardPiece::Literal(literal.to_owned())),
        }
    }
    Ok(pieces)
}

fn lower_path(tool: &str, raw: &str, content: &str, span: Span) -> Result<RuleContent, SyntaxError> {
    if let Some(at) = raw.find(":*") {
        return Err(SyntaxError::new(
            Span::new(span.start + at, span.start + at + 2),
            "`:*` is only for Bash prefix rules",
        )
        .with_help(format!("use a glob, as in `{tool}(src/**)` or `{tool}(*.ts)`")));
    }
    let pair = parse_sub(Rule::path_content, content)?;
    let mut anchor = PathAnchor::Relative;
    let mut glob = String::new();
    for part in pair.into_inner() {
        match part.as_rule() {
            Rule::path_anchor => {
                anchor = match part.as_str() {
                    "//" => PathAnchor::Root,
                    "~/" => PathAnchor::Home,
                    "/" => PathAnchor::SettingsDir,
                    _ => PathAnchor::Relative,
                }
            }
            Rule::glob => glob = part.as_str().to_owned(),
            _ => {}
        }
    }
    Ok(RuleContent::Path { anchor, glob })
}

fn lower_webfetch(raw: &str, content: &str, span: Span) -> Result<RuleContent, SyntaxError> {
    if content.contains("://") || content.starts_with("http") {
        let host = content.split_once("://").map_or(content, |(_, rest)| rest);
        let host = host.split(['/', '?', '#']).next().unwrap_or("");
        let error = SyntaxError::new(span, "`WebFetch` rules name a domain, not a URL");
        return Err(if host.is_empty() {
            error.with_help("write `WebFetch(domain:example.com)`")
        } else {
            error.with_help(format!("write `WebFetch(domain:{host})`"))
        });
    }
    let pair = parse_sub(Rule::webfetch_content, content)?;
    let Some(form) = first_inner(pair) else {
        return Err(webfetch_needs_domain(span));
    };
    match form.as_rule() {
        Rule::domain => {
            let host = form.into_inner().next().map(|h| h.as_str()).unwrap_or("");
            let host_start = span.start + raw.find("domain:").map_or(0, |at| at + "domain:".len());
            if host.is_empty() {
                return Err(SyntaxError::new(Span::at(host_start), "expected a host after `domain:`")
                    .with_help("write `domain:example.com`, `domain:*.example.com` or `domain:*`"));
            }
            let is_bad = |c: char| c.is_whitespace() || matches!(c, '/' | '?' | '#' | '@');
            if host.contains(is_bad) {
                // Locate the character in the raw text so the span is exact even after unescaping.
                let raw_host = raw.get(host_start - span.start..).unwrap_or("");
                let bad = raw_host.char_indices().find(|&(_, c)| is_bad(c));
                let bad = bad
                    .map_or(Span::at(host_start), |(at, c)| Span::new(host_start + at, host_start + at + c.len_utf8()));
                return Err(SyntaxError::new(bad, "a `domain:` rule takes a host name only")
                    .with_help("drop the path, query and user part; a domain rule covers every URL on the host"));
            }
            Ok(RuleContent::Domain { host: host.to_owned() })
        }
        Rule::param => Ok(lower_param(form)),
        _ => Err(webfetch_needs_domain(span)),
    }
}

fn webfetch_needs_domain(span: Span) -> SyntaxError {
    SyntaxError::new(span, "`WebFetch` rules must start with `domain:`")
        .with_help("write `WebFetch(domain:example.com)`")
}

fn lower_skill(content: &str, span: Span) -> Result<RuleContent, SyntaxError> {
    let pair = parse_sub(Rule::skill_content, content)?;
    let Some(form) = first_inner(pair) else {
        return Err(SyntaxError::new(span, "expected a skill name after `/`"));
    };
    let name = |form: Pair<'_, Rule>| form.into_inner().next().map(|p| p.as_str().to_owned()).unwrap_or_default();
    Ok(RuleContent::Skill(match form.as_rule() {
        Rule::skill_legacy_prefix => SkillPattern::LegacyPrefix(name(form)),
        Rule::skill_any_args => SkillPattern::AnyArgs(name(form)),
        _ if has_star(&form) => SkillPattern::Wildcard(wildcard_pieces(form.as_str())?),
        _ if form.as_str().is_empty() => return Err(SyntaxError::new(span, "expected a skill name after `/`")),
        _ => SkillPattern::Exact(form.as_str().to_owned()),
    }))
}

fn lower_generic(tool: &str, content: &str, span: Span) -> Result<RuleContent, SyntaxError> {
    let pair = parse_sub(Rule::generic_content, content)?;
    match first_inner(pair) {
        Some(form) if form.as_rule() == Rule::param => Ok(lower_param(form)),
        _ if tool == "WebSearch" && content.contains(['*', '?']) => {
            Err(SyntaxError::new(span, "`WebSearch` rules take no wildcards").with_help("write the exact search terms"))
        }
        _ => Ok(RuleContent::Raw(content.to_owned())),
    }
}

fn lower_param(form: Pair<'_, Rule>) -> RuleContent {
    let (mut name, mut value) = (String::new(), String::new());
    for part in form.into_inner() {
        match part.as_rule() {
            Rule::param_name => name = part.as_str().to_owned(),
            Rule::param_value => value = part.as_str().trim_end().to_owned(),
            _ => {}
        }
    }
    RuleContent::Param { name, value }
}

//! Frontmatter: the YAML between a first line `---` and the next `---`.
//!
//! Claude Code is more lenient than YAML (Claude Code is; older versions, 2.1.197 among them, are
//! not): when the block does not parse, it double-quotes every column-0 `key: value` line
//! whose value holds a YAML-special character (`: `, `#`, `[`, `*`, …), reads each tab that
//! starts a line as two spaces, and tries once more. So `description: Use this: when …` loads,
//! beside a tab-indented `metadata` too, while a block scalar followed by such a line, a tab
//! after spaces or CRLF line endings (JavaScript's `.` stops at `\r`) still fail. The same
//! reading serves skills, commands and subagents (one parser in Claude Code, one here). This
//! module reproduces that two-step parse; the behaviour was measured against `claude plugin
//! validate` and the agent listing Claude Code sends.

use crate::node::{Key, Node, NodeKind};
use crate::span::Span;

/// Where the frontmatter sits in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Split {
    /// No frontmatter: the file does not start with a `---` line.
    None,
    /// A `---` line opens a block that no later `---` line closes. Claude Code then sees no
    /// frontmatter at all, and the `---` and everything after it is the body.
    Unclosed {
        opener: Span,
    },
    Found(Block),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// The YAML text between the delimiter lines.
    pub yaml: Span,
    /// The whole block including both `---` lines.
    pub whole: Span,
    /// Where the Markdown body starts: after the closing `---` and all the whitespace that
    /// follows it (blank lines, the first line's indentation), as Claude Code's frontmatter
    /// pattern `^---\s*\n([\s\S]*?)---\s*\n?` consumes it. Every reader of a body (checks,
    /// the lock's hashes and lengths, the runtime's prompt expansion) starts here.
    pub body_start: usize,
}

pub fn split(text: &str) -> Split {
    let Some(first_end) = line_end(text, 0) else { return Split::None };
    if !is_delimiter(&text[..first_end.content_end]) {
        return Split::None;
    }
    let yaml_start = first_end.next;
    // The block ends at the first `---` after the opening line, wherever it stands: Claude
    // Code's pattern `^---\s*\n([\s\S]*?)---\s*\n?` is not anchored to a line, so a `---` inside
    // a value (`description: a --- b`) or a `----` line closes it too.
    let Some(found) = text.get(yaml_start..).and_then(|rest| rest.find("---")) else {
        return Split::Unclosed { opener: Span::new(0, first_end.content_end) };
    };
    let pos = yaml_start + found;
    let end = line_end(text, pos).map_or(text.len(), |e| e.next);
    Split::Found(Block {
        yaml: Span::new(yaml_start, pos),
        whole: Span::new(0, end),
        body_start: skip_js_whitespace(text, pos + 3),
    })
}

impl Block {
    /// Whether the closing `---` is a line of its own, as a reader expects: not text before it
    /// on its line, nor anything but whitespace after it.
    pub fn closes_on_its_own_line(&self, text: &str) -> bool {
        let at = self.yaml.end;
        let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
        line_start == at && is_delimiter(&text[at..line_end])
    }
}

struct LineEnd {
    /// End of the line's text, before `\n`.
    content_end: usize,
    /// Start of the next line.
    next: usize,
}

fn line_end(text: &str, start: usize) -> Option<LineEnd> {
    if start > text.len() {
        return None;
    }
    match memchr_newline(&text.as_bytes()[start..]) {
        Some(i) => Some(LineEnd { content_end: start + i, next: start + i + 1 }),
        None => Some(LineEnd { content_end: text.len(), next: text.len() }),
    }
}

fn memchr_newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'\n')
}

/// The first byte at or after `from` that is not whitespace as JavaScript's `\s` reads it
/// (`text.len()` when only whitespace is left).
fn skip_js_whitespace(text: &str, from: usize) -> usize {
    let rest = text.get(from..).unwrap_or_default();
    from + rest.find(|c: char| !is_js_whitespace(c)).unwrap_or(rest.len())
}

/// JavaScript's `\s`: ASCII whitespace, no-break and Unicode spaces, line and paragraph
/// separators and the byte-order mark.
fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | ' ' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}' | '\u{2028}' | '\u{2029}' | '\u{202F}' | '\u{205F}' | '\u{3000}' | '\u{FEFF}'
    )
}

/// `---` with optional trailing whitespace (the regex Claude Code uses is `---\s*`).
fn is_delimiter(line: &str) -> bool {
    line.strip_prefix("---").is_some_and(|rest| rest.chars().all(char::is_whitespace))
}

/// The outcome of reading a frontmatter block.
#[derive(Debug, Clone, PartialEq)]
pub enum Parsed {
    /// The fields, as a mapping node (empty when the block is empty).
    Fields { node: Node, lenient: Option<LenientNote>, spans: Spans },
    /// YAML that even the lenient retry cannot read. Claude Code loads the file with
    /// empty metadata (skills, commands) or skips it (subagents).
    Invalid { span: Span, message: String },
    /// Valid YAML that is not a mapping (`- a`, a bare scalar).
    NotAMapping { span: Span, found: &'static str },
}

/// How precise the spans of a parsed block are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spans {
    /// Every value has its own span (the flat fast path).
    Exact,
    /// Nested values share their top-level entry's span; `refine_spans` can make them exact.
    Refinable,
    /// Nested values share their entry's span for good: the text that parsed is not the file's
    /// (the lenient retry quoted values, or tabs were read as spaces).
    Entry,
}

/// The YAML was invalid and loaded only because Claude Code quoted these lines.
#[derive(Debug, Clone, PartialEq)]
pub struct LenientNote {
    /// The first value that needed quoting.
    pub span: Span,
    pub yaml_error: String,
}

/// Parses the YAML of `block` within `text`; spans in the result are file offsets.
pub fn parse(text: &str, block: &Block) -> Parsed {
    let yaml = &text[block.yaml.start..block.yaml.end];
    if let Some(node) = flat(yaml, block.yaml.start) {
        return Parsed::Fields { node, lenient: None, spans: Spans::Exact };
    }
    parse_with_yaml(text, block)
}

/// The full path: serde_yaml, then Claude Code's lenient retry.
pub fn parse_with_yaml(text: &str, block: &Block) -> Parsed {
    let yaml = &text[block.yaml.start..block.yaml.end];
    if let Some(at) = too_deep(yaml) {
        let end = (at + 1..=yaml.len()).find(|&i| yaml.is_char_boundary(i)).unwrap_or(yaml.len());
        return Parsed::Invalid {
            span: Span::new(at, end).shift(block.yaml.start),
            message: format!("nested deeper than {MAX_DEPTH} levels"),
        };
    }
    match load(yaml) {
        Ok(value) => to_fields(text, block, value, None, Spans::Refinable),
        Err(first) => {
            // Claude Code's one retry: it double-quotes the `key: value` lines whose value
            // holds a YAML-special character, then reads each tab that starts a line as two
            // spaces (`metadata:` then `\tkey: x`, which libyaml refuses), and parses again.
            let (quoted, first_quoted) = quote_problematic_values(yaml);
            let retried = expand_line_start_tabs(&quoted);
            if first_quoted.is_some() || retried.is_some() {
                if let Ok(value) = load(retried.as_deref().unwrap_or(&quoted)) {
                    let note = first_quoted.map(|span| LenientNote {
                        span: span.shift(block.yaml.start),
                        yaml_error: first.message.clone(),
                    });
                    return to_fields(text, block, value, note, Spans::Entry);
                }
            }
            Parsed::Invalid { span: first.span.shift(block.yaml.start), message: first.message }
        }
    }
}

/// Frontmatter nested deeper than this (flow brackets and block indentation together) is
/// refused before serde_yaml sees it: libyaml's scanner takes time quadratic in the flow
/// nesting (a 1 MB `[[[[…` ran for minutes), and serde_yaml stops at 128 levels anyway.
pub const MAX_DEPTH: usize = 128;

/// The offset (in `yaml`) of the first character that nests deeper than [`MAX_DEPTH`], in
/// one linear pass. Block levels are the indentation columns open at a line (and the
/// columns after `- ` / `? ` indicators on it); flow levels are the open `[` and `{`
/// outside quoted scalars, comments and block scalars. It may count a bracket inside a plain
/// scalar that YAML would not nest, never the other way round.
fn too_deep(yaml: &str) -> Option<usize> {
    let bytes = yaml.as_bytes();
    let mut columns: Vec<usize> = Vec::new();
    let mut flow = 0usize;
    // Inside a quoted scalar (which may span lines): its quote character.
    let mut quote: Option<u8> = None;
    // Inside a block scalar: the indentation of the line that opened it.
    let mut block_scalar: Option<usize> = None;
    let mut value_start = true;
    let mut start = 0;
    while start < bytes.len() {
        let end = bytes[start..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |i| start + i);
        let line = &bytes[start..end];
        // Tabs count as two columns, as the tab-tolerant retry reads them.
        let indent = line.iter().take_while(|&&b| b == b' ' || b == b'\t').count();
        let column = line[..indent].iter().map(|&b| if b == b'\t' { 2 } else { 1 }).sum::<usize>();
        let blank = line[indent..].iter().all(|b| b.is_ascii_whitespace());
        if let Some(opener) = block_scalar {
            if blank || column > opener {
                start = end + 1;
                continue;
            }
            block_scalar = None;
        }
        let mut at = indent;
        if quote.is_none() && flow == 0 && !blank && line[indent] != b'#' {
            while columns.last().is_some_and(|&c| c >= column) {
                columns.pop();
            }
            columns.push(column);
            // Compact nested sequences and complex keys: `- - - x`, `? - x`.
            while at + 1 < line.len() && matches!(line[at], b'-' | b'?') && line[at + 1] == b' ' {
                at += 1;
                at += line[at..].iter().take_while(|&&b| b == b' ').count();
                columns.push(column + at - indent);
            }
            if columns.len() > MAX_DEPTH {
                return Some(start + at.min(line.len().saturating_sub(1)));
            }
        }
        // A quoted scalar begins only where a value may: at a block line's start, after a flow
        // indicator, or after `-`, `?` or `:` and a space (inside flow collections this
        // carries over from the line before).
        if flow == 0 && quote.is_none() {
            value_start = true;
        }
        let mut i = at;
        while i < line.len() {
            let b = line[i];
            match quote {
                Some(b'"') => match b {
                    b'\\' => i += 1,
                    b'"' => quote = None,
                    _ => {}
                },
                Some(_) => {
                    if b == b'\'' {
                        if line.get(i + 1) == Some(&b'\'') {
                            i += 1;
                        } else {
                            quote = None;
                        }
                    }
                }
                None => match b {
                    b'#' if i == 0 || matches!(line[i - 1], b' ' | b'\t') => break,
                    b'"' | b'\'' if value_start => quote = Some(b),
                    b'[' | b'{' => {
                        flow += 1;
                        if columns.len() + flow > MAX_DEPTH {
                            return Some(start + i);
                        }
                    }
                    b']' | b'}' => flow = flow.saturating_sub(1),
                    _ => {}
                },
            }
            if quote.is_none() && !matches!(b, b' ' | b'\t') {
                let spaced = matches!(line.get(i + 1), None | Some(b' ' | b'\t'));
                value_start = matches!(b, b'[' | b'{' | b',') || (matches!(b, b'-' | b'?' | b':') && spaced);
            }
            i += 1;
        }
        if quote.is_none() && flow == 0 && opens_block_scalar(&line[indent..]) {
            block_scalar = Some(column);
        }
        start = end + 1;
    }
    None
}

/// Whether a line (without its indentation) ends with a block scalar indicator (`key: |`,
/// `- >-`, `|2`), before any comment.
fn opens_block_scalar(content: &[u8]) -> bool {
    let text = String::from_utf8_lossy(content);
    let text = match text.find(" #") {
        Some(i) => &text[..i],
        None => &text,
    };
    let text = text.trim_end();
    let token = text.rsplit(' ').next().unwrap_or("");
    let before = text[..text.len() - token.len()].trim_end();
    let indicator = token.starts_with(['|', '>']) && token[1..].bytes().all(|b| matches!(b, b'-' | b'+' | b'1'..=b'9'));
    indicator && (before.is_empty() || before.ends_with(':') || before.ends_with('-') || before.ends_with('?'))
}

/// The common case read without a YAML library: every line is blank, a `#` comment, or
/// `key: value` at column 0 whose value is unambiguous: a plain string (it starts with a letter
/// or `<`, holds no `: `, ` #` or tab, and is not `null`, `yes`, …), a version such as `0.1.0`, a
/// double-quoted string on one line without escapes, or `true` or `false`. Anything else returns
/// `None` and goes to serde_yaml. A fuzz target checks that both agree on what this accepts.
pub fn flat(yaml: &str, offset: usize) -> Option<Node> {
    // YAML refuses non-printable characters anywhere, comments included; tabs and `\r` have
    // subtle rules. Leave all of those to the real parser.
    // libyaml also breaks lines at NEL, LS and PS (YAML 1.1), even inside comments.
    let line_break = |c: char| matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}');
    if !yaml.chars().all(|c| c == '\n' || (c != '\t' && c != '\r' && !line_break(c) && is_yaml_printable(c))) {
        return None;
    }
    let mut entries: Vec<(Key, Node)> = Vec::new();
    let mut at = 0;
    for line in yaml.split_inclusive('\n') {
        let content = line.strip_suffix('\n').unwrap_or(line);
        let start = at;
        at += line.len();
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        let key_len = content.bytes().take_while(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-').count();
        let first = content.as_bytes()[0];
        if key_len == 0
            || !(first.is_ascii_alphabetic() || first == b'_')
            || content.as_bytes().get(key_len) != Some(&b':')
        {
            return None;
        }
        // YAML caps implicit keys at 1,024 characters (libyaml enforces it).
        if key_len > 1000 {
            return None;
        }
        let key = &content[..key_len];
        // `True:` or `null:` are not string keys in YAML.
        if is_yaml_word(key) {
            return None;
        }
        let rest = &content[key_len + 1..];
        let value = rest.trim_start_matches(' ');
        if value.len() == rest.len() || entries.iter().any(|(k, _)| k.name == key) {
            return None;
        }
        let padded = value.len();
        let value = value.trim_end_matches(' ');
        // A plain scalar is the string as written; a double-quoted one, its inside (the span of
        // a quoted value followed by spaces takes the spaces in: left to serde_yaml).
        let kind = match double_quoted(value) {
            Some(inside) if value.len() == padded => NodeKind::String(inside.to_string()),
            Some(_) => return None,
            // YAML 1.2's booleans, as serde_yaml reads them (`yes`, `True` and the like go to it).
            None if value == "true" || value == "false" => NodeKind::Bool(value == "true"),
            None if is_plain_string(value) || is_dotted_version(value) => NodeKind::String(value.to_string()),
            None => return None,
        };
        let value_start = offset + start + key_len + 1 + (rest.len() - padded);
        entries.push((
            Key { name: key.to_string(), span: Span::new(offset + start, offset + start + key_len) },
            Node { kind, span: Span::new(value_start, value_start + value.len()) },
        ));
    }
    Some(Node { kind: NodeKind::Object(entries), span: Span::new(offset, offset + yaml.len()) })
}

/// The YAML 1.2 printable set (`c-printable`), which libyaml enforces.
fn is_yaml_printable(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{7e}' | '\u{85}' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
        && c != '\u{feff}'
}

/// The inside of a double-quoted scalar that closes on its line and holds no escape (no
/// backslash) and nothing after the closing quote: YAML reads it as exactly that text. The
/// caller has already refused tabs and non-printable characters.
fn double_quoted(value: &str) -> Option<&str> {
    let inside = value.strip_prefix('"')?.strip_suffix('"')?;
    (!inside.contains(['"', '\\'])).then_some(inside)
}

/// `0.1.0`: numbers joined by two dots or more, which no YAML schema reads as a number.
fn is_dotted_version(value: &str) -> bool {
    let mut parts = 0;
    for part in value.split('.') {
        if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
            return false;
        }
        parts += 1;
    }
    parts >= 3
}

/// A plain scalar (without its trailing spaces) that YAML 1.2 (and serde_yaml) reads as exactly
/// this string. Starting with a letter or `<`, it cannot be a number, `.inf` or `.nan`.
fn is_plain_string(value: &str) -> bool {
    let Some(first) = value.chars().next() else { return false };
    // `<` is no YAML indicator (`argument-hint: <file>`); `<<` is kept for the merge key.
    if !(first.is_alphabetic() || (first == '<' && !value.starts_with("<<"))) {
        return false;
    }
    if value.contains(": ") || value.ends_with(':') || value.contains(" #") {
        return false;
    }
    // Control characters (tabs, `\r`), and line or paragraph separators, need the real parser.
    if value.chars().any(|c| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{85}')) {
        return false;
    }
    !is_yaml_word(value)
}

/// A word YAML reads as a boolean or null in some spelling (`True`, `NULL`, `yes`, `n`, …).
fn is_yaml_word(word: &str) -> bool {
    ["true", "false", "null", "yes", "no", "on", "off", "y", "n"].iter().any(|w| word.eq_ignore_ascii_case(w))
}

/// Gives every nested value of `node` (read from `block` without the lenient retry) its
/// exact span. Costs a second parse, so callers do it only when they report something.
pub fn refine_spans(text: &str, block: &Block, node: &mut Node) {
    let top = node.span;
    crate::yaml_spans::refine(node, &text[block.yaml.start..block.yaml.end], block.yaml.start);
    // The mapping itself keeps the whole block as its span.
    node.span = top;
}

struct YamlError {
    span: Span,
    message: String,
}

fn load(yaml: &str) -> Result<Node, YamlError> {
    serde_yaml::from_str::<Loaded>(yaml).map(|l| l.0).map_err(|e| {
        let offset = e.location().map_or(0, |l| l.index().min(yaml.len()));
        let mut start = offset;
        while !yaml.is_char_boundary(start) {
            start -= 1;
        }
        let mut end = (start + 1).min(yaml.len());
        while !yaml.is_char_boundary(end) {
            end += 1;
        }
        // serde_yaml appends " at line L column C"; our span carries that.
        let text = e.to_string();
        let message = match text.find(" at line ") {
            Some(i) => text[..i].to_string(),
            None => text,
        };
        YamlError { span: Span::new(start, end), message }
    })
}

/// `yaml` with each tab at the start of a line (before any other character, as JavaScript's
/// `/^\t+/gm` finds them: after `\n`, `\r`, U+2028 or U+2029) replaced by two spaces, or
/// `None` when no line starts with a tab.
fn expand_line_start_tabs(yaml: &str) -> Option<String> {
    let mut out = String::with_capacity(yaml.len() + 16);
    let (mut line_start, mut changed) = (true, false);
    for c in yaml.chars() {
        if c == '\t' && line_start {
            out.push_str("  ");
            changed = true;
            continue;
        }
        line_start = matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}');
        out.push(c);
    }
    changed.then_some(out)
}

/// The retry Claude Code makes: returns the rewritten YAML and the span (in `yaml`) of the
/// first value it quoted, or `None` when no line qualified (then there is nothing to retry).
fn quote_problematic_values(yaml: &str) -> (String, Option<Span>) {
    let mut out = String::with_capacity(yaml.len() + 16);
    let mut first = None;
    let mut offset = 0;
    for (i, line) in yaml.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        match problematic_value(line) {
            Some((key_len, value_start)) => {
                let value = &line[value_start..];
                first.get_or_insert(Span::new(offset + value_start, offset + line.len()));
                out.push_str(&line[..key_len]);
                out.push_str(": \"");
                for c in value.chars() {
                    if c == '\\' || c == '"' {
                        out.push('\\');
                    }
                    out.push(c);
                }
                out.push('"');
            }
            None => out.push_str(line),
        }
        offset += line.len() + 1;
    }
    (out, first)
}

/// For `key: value` at column 0 whose value needs quoting: (key length, value start).
fn problematic_value(line: &str) -> Option<(usize, usize)> {
    let key_len = line.bytes().take_while(|b| b.is_ascii_alphabetic() || *b == b'_' || *b == b'-').count();
    if key_len == 0 || line.as_bytes().get(key_len) != Some(&b':') {
        return None;
    }
    let after = &line[key_len + 1..];
    let trimmed = after.trim_start_matches(is_js_whitespace);
    if trimmed.len() == after.len() || trimmed.is_empty() {
        return None; // `\s+` needs at least one whitespace, `(.+)` one character
    }
    // JavaScript's `.` does not match line terminators, so such a line is left alone.
    if trimmed.contains(['\r', '\u{2028}', '\u{2029}']) {
        return None;
    }
    let quoted = |q: char| trimmed.len() >= 2 && trimmed.starts_with(q) && trimmed.ends_with(q);
    if quoted('"') || quoted('\'') {
        return None;
    }
    // A flow sequence that reads as one on its own (`arguments: [env, version]`) is left as
    // written (Claude Code does; older versions quoted it into a string).
    if trimmed.starts_with('[')
        && trimmed.ends_with(']')
        && matches!(load(trimmed), Ok(Node { kind: NodeKind::Array(_), .. }))
    {
        return None;
    }
    let special = trimmed.contains(": ") || trimmed.contains(|c| "{}[]*&#!|>%@`".contains(c));
    special.then_some((key_len, line.len() - trimmed.len()))
}

fn to_fields(text: &str, block: &Block, value: Node, lenient: Option<LenientNote>, spans: Spans) -> Parsed {
    match value.kind {
        NodeKind::Null => {
            Parsed::Fields { node: Node { kind: NodeKind::Object(Vec::new()), span: block.yaml }, lenient, spans }
        }
        NodeKind::Object(entries) => {
            let entry_spans = top_level_spans(text, block);
            let entries = entries
                .into_iter()
                .map(|(key, value)| {
                    let (key_span, value_span) = entry_spans
                        .iter()
                        .find(|s| s.name == key.name)
                        .map_or((block.yaml, block.yaml), |s| (s.key, s.value));
                    (Key { name: key.name, span: key_span }, with_span(value, value_span))
                })
                .collect();
            Parsed::Fields { node: Node { kind: NodeKind::Object(entries), span: block.yaml }, lenient, spans }
        }
        kind => Parsed::NotAMapping { span: block.yaml, found: Node { kind, span: block.yaml }.type_name() },
    }
}

/// Nested values share the span of the top-level entry they sit in (until refined).
fn with_span(mut node: Node, span: Span) -> Node {
    node.span = span;
    match &mut node.kind {
        NodeKind::Array(items) => {
            for item in items.iter_mut() {
                *item = with_span(std::mem::replace(item, Node { kind: NodeKind::Null, span }), span);
            }
        }
        NodeKind::Object(entries) => {
            for (key, value) in entries.iter_mut() {
                key.span = span;
                *value = with_span(std::mem::replace(value, Node { kind: NodeKind::Null, span }), span);
            }
        }
        _ => {}
    }
    node
}

/// A YAML document read straight into a `Node` (spans are filled in afterwards).
struct Loaded(Node);

impl<'de> serde::Deserialize<'de> for Loaded {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Loaded, D::Error> {
        deserializer.deserialize_any(NodeVisitor).map(Loaded)
    }
}

struct NodeVisitor;

fn leaf(kind: NodeKind) -> Node {
    Node { kind, span: Span::default() }
}

impl<'de> serde::de::Visitor<'de> for NodeVisitor {
    type Value = Node;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a YAML value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Node, E> {
        Ok(leaf(NodeKind::Bool(v)))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Node, E> {
        Ok(leaf(NodeKind::Number(v.to_string())))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Node, E> {
        Ok(leaf(NodeKind::Number(v.to_string())))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Node, E> {
        Ok(leaf(NodeKind::Number(serde_yaml::Number::from(v).to_string())))
    }
    fn visit_str<E>(self, v: &str) -> Result<Node, E> {
        Ok(leaf(NodeKind::String(v.to_string())))
    }
    fn visit_string<E>(self, v: String) -> Result<Node, E> {
        Ok(leaf(NodeKind::String(v)))
    }
    fn visit_unit<E>(self) -> Result<Node, E> {
        Ok(leaf(NodeKind::Null))
    }
    fn visit_none<E>(self) -> Result<Node, E> {
        Ok(leaf(NodeKind::Null))
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
        d.deserialize_any(NodeVisitor)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(Loaded(item)) = seq.next_element::<Loaded>()? {
            items.push(item);
        }
        Ok(leaf(NodeKind::Array(items)))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut entries: Vec<(Key, Node)> = Vec::new();
        while let Some(Loaded(key)) = map.next_key::<Loaded>()? {
            let Loaded(value) = map.next_value::<Loaded>()?;
            // Duplicate keys are kept: Claude Code loads such frontmatter (the last value
            // wins), and the field check reports the repetition (`duplicate-key`).
            entries.push((Key { name: scalar_key(&key), span: Span::default() }, value));
        }
        Ok(leaf(NodeKind::Object(entries)))
    }
    fn visit_enum<A: serde::de::EnumAccess<'de>>(self, data: A) -> Result<Node, A::Error> {
        // A tagged value (`!tag value`): the tag has no meaning here; keep the value.
        use serde::de::VariantAccess;
        let (_tag, variant) = data.variant::<String>()?;
        variant.newtype_variant::<Loaded>().map(|l| l.0)
    }
}

fn scalar_key(key: &Node) -> String {
    match &key.kind {
        NodeKind::String(s) | NodeKind::Number(s) => s.clone(),
        NodeKind::Bool(b) => b.to_string(),
        NodeKind::Null => "null".to_string(),
        _ => key.debug_tree(),
    }
}

struct EntrySpan {
    name: String,
    key: Span,
    value: Span,
}

/// Finds each column-0 `key:` line and the extent of its value (up to the next column-0
/// line), in file offsets.
fn top_level_spans(text: &str, block: &Block) -> Vec<EntrySpan> {
    let yaml = &text[block.yaml.start..block.yaml.end];
    let mut out: Vec<EntrySpan> = Vec::new();
    let mut offset = 0;
    for line in yaml.split_inclusive('\n') {
        let content = line.trim_end_matches(['\n', '\r']);
        let starts_entry = content.chars().next().is_some_and(|c| !c.is_whitespace() && c != '#' && c != '-');
        if starts_entry {
            if let Some((key_text, key_end)) = entry_key(content) {
                let value_start =
                    key_end + 1 + (content[key_end + 1..].len() - content[key_end + 1..].trim_start().len());
                let abs = block.yaml.start + offset;
                out.push(EntrySpan {
                    name: key_text,
                    key: Span::new(abs, abs + key_end),
                    value: Span::new(abs + value_start, abs + content.len()),
                });
            }
        } else if let Some(last) = out.last_mut() {
            // An indented or blank line continues the previous value.
            if !content.trim().is_empty() && !content.trim_start().starts_with('#') {
                let abs = block.yaml.start + offset;
                if last.value.is_empty() {
                    last.value.start = abs + (content.len() - content.trim_start().len());
                }
                last.value.end = abs + content.len();
            }
        }
        offset += line.len();
    }
    for entry in &mut out {
        if entry.value.is_empty() {
            entry.value = entry.key;
        }
    }
    out
}

/// The key of a `key: value` line and the byte index of its `:`; quoted keys are unquoted.
fn entry_key(line: &str) -> Option<(String, usize)> {
    if let Some(rest) = line.strip_prefix(['"', '\'']) {
        let quote = line.as_bytes()[0] as char;
        let close = rest.find(quote)?;
        let colon = 1 + close + 1;
        return (line.as_bytes().get(colon) == Some(&b':')).then(|| (rest[..close].to_string(), colon));
    }
    let colon = line.find(':')?;
    let after = line.as_bytes().get(colon + 1);
    if after.is_some_and(|b| !b.is_ascii_whitespace()) {
        return None;
    }
    Some((line[..colon].trim_end().to_string(), colon))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(text: &str, expected: &str) {
        let actual = match split(text) {
            Split::None => "none".to_string(),
            Split::Unclosed { opener } => format!("unclosed {}..{}", opener.start, opener.end),
            Split::Found(block) => match parse(text, &block) {
                Parsed::Fields { mut node, lenient, spans } => {
                    if spans == Spans::Refinable {
                        refine_spans(text, &block, &mut node);
                    }
                    let mut s = node.debug_tree();
                    if let Some(note) = lenient {
                        s.push_str(&format!(" lenient@{}..{}", note.span.start, note.span.end));
                    }
                    s
                }
                Parsed::Invalid { span, message } => format!("invalid {}..{}: {message}", span.start, span.end),
                Parsed::NotAMapping { found, .. } => format!("not a mapping: {found}"),
            },
        };
        assert_eq!(actual, expected, "input: {text:?}");
    }

    #[test]
    fn splits() {
        check("no frontmatter", "none");
        check("", "none");
        check("---\nname: x\n", "unclosed 0..3");
        check("--- \nname: x\n---  \nbody", r#"{name@5..9: "x"@11..12}@5..13"#);
        check("---\n---\nbody", "{}@4..4");
        check("----\nname: x\n---\n", "none");
        // The first `---` closes the block, even inside a line.
        check("---\ndescription: a --- b\n---\nbody", r#"{description@4..15: "a"@17..18}@4..19"#);
        check("---\nname: x\n----\nbody", r#"{name@4..8: "x"@10..11}@4..12"#);
        for (text, own) in [
            ("---\nname: x\n---\n", true),
            ("---\nname: x\n---  \nb", true),
            ("---\nname: x\n----\n", false),
            ("---\nd: a --- b\n---\n", false),
            ("---\nname: x\n--- b\n", false),
        ] {
            let Split::Found(block) = split(text) else { panic!("{text:?}") };
            assert_eq!(block.closes_on_its_own_line(text), own, "{text:?}");
        }
    }

    #[test]
    fn plain_yaml() {
        check(
            "---\nname: a\ndescription: b c\n---\n",
            r#"{name@4..8: "a"@10..11, description@12..23: "b c"@25..28}@4..29"#,
        );
        check(
            "---\nallowed-tools:\n  - Read\n  - Bash\n---\n",
            r#"{allowed-tools@4..17: ["Read"@23..27, "Bash"@32..36]@21..37}@4..37"#,
        );
    }

    #[test]
    fn lenient_retry_matches_claude_code() {
        // A plain scalar holding `: ` is invalid YAML but Claude Code loads it.
        check(
            "---\ndescription: Use this: when x\n---\n",
            r#"{description@4..15: "Use this: when x"@17..33}@4..34 lenient@17..33"#,
        );
        check("---\ndescription: [unclosed\n---\n", r#"{description@4..15: "[unclosed"@17..26}@4..27 lenient@17..26"#);
        // A value that is a whole flow sequence stays one; `[a] [b]` is no sequence and is quoted.
        check(
            "---\nargument-hint: [env] [version]\narguments: [env, version]\n---\n",
            r#"{argument-hint@4..17: "[env] [version]"@19..34, arguments@35..44: ["env"@46..60, "version"@46..60]@46..60}@4..61 lenient@19..34"#,
        );
        // A line ending in `\r` is never quoted, so CRLF files with such a value fail.
        assert!(check_invalid("---\r\ndescription: a: b\r\n---\r\n"));
        // Quoting `|` breaks the block scalar that follows: still invalid.
        assert!(check_invalid("---\ndescription: |\n  a\nmodel: x: y\n---\n"));
        assert!(check_invalid("---\nname: a\n  description: \"a\" b\n---\n"));
    }

    #[test]
    fn brackets_of_a_plain_scalar_are_read_by_the_fast_path() {
        // Found by the `flat_yaml` fuzz target: `too_deep` counts the `[` and `{` of a plain
        // scalar (it over-counts by design), so the YAML path refuses a block the fast path
        // reads as the one string YAML gives it; `parse` takes the fast path for it.
        let yaml = format!("CLC: with var{}\n", "[w var{i ".repeat(70));
        let text = format!("---\n{yaml}---\n");
        let Split::Found(block) = split(&text) else { panic!("no block in {text:?}") };
        let fast = flat(&yaml, 0).expect("the fast path reads it");
        assert_eq!(fast.get("CLC").and_then(|v| v.as_str()), Some(yaml[5..yaml.len() - 1].trim_end()));
        assert!(matches!(parse(&text, &block), Parsed::Fields { lenient: None, .. }));
        assert!(
            matches!(parse_with_yaml(&text, &block), Parsed::Invalid { message, .. } if message.starts_with("nested deeper"))
        );
    }

    fn check_invalid(text: &str) -> bool {
        let Split::Found(block) = split(text) else { return false };
        matches!(parse(text, &block), Parsed::Invalid { .. })
    }

    #[test]
    fn flat_fast_path_agrees_with_yaml() {
        // Read by the fast path (exact spans, no YAML library)…
        check(
            "---\nname: a-b\ndescription: Reviews code, fast (and well)\n---\n",
            r#"{name@4..8: "a-b"@10..13, description@14..25: "Reviews code, fast (and well)"@27..56}@4..57"#,
        );
        assert!(flat("name: x\n# note\n\nmodel: sonnet  \n", 0).is_some());
        // Double-quoted values without escapes, values that start with `<`, versions and
        // `true`/`false` are read as serde_yaml reads them, spans included (a quoted value's span
        // has its quotes).
        for yaml in [
            "description: \"Reviews code: fast, #1 (and well)\"\n",
            "description: \"\"\nname: x\n",
            "a: \" padded é \"\nb: c\n",
            "argument-hint: <file> [--fast]\n",
            "argument-hint: \"[file]\"\n",
            "disable-model-invocation: true\nuser-invocable: false\n",
            "version: 0.1.0\nv: 10.20.30.40\n",
        ] {
            let text = format!("---\n{yaml}---\n");
            let Split::Found(block) = split(&text) else { panic!("{yaml:?}") };
            let Parsed::Fields { node: mut slow, .. } = parse_with_yaml(&text, &block) else { panic!("{yaml:?}") };
            let fast = flat(&text[block.yaml.start..block.yaml.end], block.yaml.start).map(|n| n.debug_tree());
            // Top-level values have exact spans before refining, too.
            assert_eq!(fast.as_deref(), Some(slow.debug_tree().as_str()), "{yaml:?}");
            refine_spans(&text, &block, &mut slow);
            assert_eq!(fast, Some(slow.debug_tree()), "{yaml:?}");
        }
        // …and everything it is unsure of goes to serde_yaml.
        for yaml in [
            "a: True",
            "a: yes",
            "a: 1.0",
            "a: 1.0.",
            "a: 1..0",
            "a: .1.0",
            "a: 1.0.0-beta",
            "a: [x]",
            "a: 'x'",
            "a: \"x\\\"y\"",
            "a: \"x\\ny\"",
            "a: \"x\" y",
            "a: \"x\"  ",
            "a: \"x\" #c",
            "a: \"x",
            "a: \"",
            "a: <<",
            "a: x: y",
            "a: x #c",
            "a: |",
            " a: x",
            "a:\n  - x",
            "a: x\r",
            "a: x\na: y",
            "a: Null",
            "1: x",
            "a: ~",
            "True: x",
            "#\0",
            "a: b\u{7f}",
            "# a\u{85}---",
            "a: b\u{2028}c",
        ] {
            assert!(flat(yaml, 0).is_none(), "{yaml:?}");
        }
    }

    /// Generated blocks built from the characters and words each branch of the fast path turns
    /// on (quotes, backslashes, `<`, digits and dots, booleans, comment and indicator signs):
    /// whatever the fast path accepts, serde_yaml reads the same, spans included. A fixed seed,
    /// so a failure repeats; the fuzz target explores further.
    #[test]
    fn flat_fast_path_agrees_with_yaml_on_generated_blocks() {
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let pieces = [
            "\"", "\\", "<", "<<", "0", "1", "9", ".", " ", "#", ":", "a", "é", "true", "false", "True", "t", "e", "[",
            "]", "'", "-", "n", "\\\"", "x", ",", "{", "&", "*", "!", "|", ">", "%", "@", "?", "~", "null", "1.0",
            "0.1.0", "e3", "+",
        ];
        let keys = ["name", "description", "a", "version", "model"];
        let mut accepted = 0;
        for _ in 0..20_000 {
            let mut yaml = String::new();
            for _ in 0..1 + next(3) {
                let mut value: String = (0..next(8)).map(|_| pieces[next(pieces.len())]).collect();
                if next(3) == 0 {
                    value = format!("\"{value}\"");
                }
                let space = if next(10) == 0 { "" } else { " " };
                let trailing = if next(8) == 0 { "  " } else { "" };
                yaml.push_str(&format!("{}:{space}{value}{trailing}\n", keys[next(keys.len())]));
            }
            let text = format!("---\n{yaml}---\n");
            let Split::Found(block) = split(&text) else { continue };
            let Some(fast) = flat(&text[block.yaml.start..block.yaml.end], block.yaml.start) else { continue };
            accepted += 1;
            let slow = parse_with_yaml(&text, &block);
            let Parsed::Fields { node: mut slow, lenient: None, .. } = slow else {
                panic!("the fast path accepted what YAML reads otherwise: {yaml:?} → {slow:?}")
            };
            refine_spans(&text, &block, &mut slow);
            assert_eq!(fast.debug_tree(), slow.debug_tree(), "{yaml:?}");
        }
        // The generator reaches the fast path often enough to mean something.
        assert!(accepted > 2_000, "{accepted}");
    }

    #[test]
    fn nested_values_have_exact_spans() {
        check(
            "---\nhooks:\n  PreToolUse:\n    - matcher: Bash\n---\n",
            r#"{hooks@4..9: {PreToolUse@13..23: [{matcher@31..38: "Bash"@40..44}@31..45]@29..45}@13..45}@4..45"#,
        );
        check(
            "---\ntools: [Read, \"Bash(git *)\"]\n---\n",
            r#"{tools@4..9: ["Read"@12..16, "Bash(git *)"@18..31]@11..32}@4..33"#,
        );
    }

    #[test]
    fn nesting_is_bounded_before_yaml_sees_it() {
        let deep = |open: &str, close: &str, n: usize| format!("---\na: {}{}\n---\n", open.repeat(n), close.repeat(n));
        let message = |text: &str| {
            let Split::Found(block) = split(text) else { return "no frontmatter".to_string() };
            match parse_with_yaml(text, &block) {
                Parsed::Invalid { message, .. } => message,
                Parsed::Fields { .. } => "loads".to_string(),
                Parsed::NotAMapping { found, .. } => format!("not a mapping: {found}"),
            }
        };
        // 127 flow levels under one block level load; one more is refused, closed or not.
        assert!(!check_invalid(&deep("[", "]", 127)));
        assert_eq!(message(&deep("[", "]", 128)), "nested deeper than 128 levels");
        assert_eq!(message(&deep("{a: ", "}", 200)), "nested deeper than 128 levels");
        assert_eq!(message(&format!("---\nd: {}\n---\n", "[".repeat(100_000))), "nested deeper than 128 levels");
        // Block nesting counts too: mappings, compact sequences, tab indentation.
        let mut mappings = String::from("---\n");
        for i in 0..130 {
            mappings.push_str(&format!("{}k{i}:\n", " ".repeat(i)));
        }
        mappings.push_str("---\n");
        assert_eq!(message(&mappings), "nested deeper than 128 levels");
        assert_eq!(message(&format!("---\n{}x\n---\n", "- ".repeat(129))), "nested deeper than 128 levels");
        let tabs: String = (0..130).map(|i| format!("{}k{i}:\n", "\t".repeat(i))).collect();
        assert_eq!(message(&format!("---\n{tabs}---\n")), "nested deeper than 128 levels");
        // Brackets in quoted scalars, comments and block scalars do not nest.
        let hidden = "[".repeat(300);
        for text in [
            format!("---\na: \"{hidden}\"\n---\n"),
            format!("---\na: '{hidden}'\n---\n"),
            format!("---\na: 1 # {hidden}\n---\n"),
            format!("---\na: |\n  {hidden}\n   {hidden}\nb: x\n---\n"),
            format!("---\nmulti: \"line\n  {hidden}\"\n---\n"),
        ] {
            assert!(!message(&text).contains("nested deeper"), "{text}");
        }
        // A quote that YAML reads as plain text hides nothing: `[a\n'b, [[[…` nests.
        assert_eq!(message(&format!("---\nx: [a\n'b, {}\n---\n", "[".repeat(200))), "nested deeper than 128 levels");
        assert_eq!(message(&format!("---\nx: [-', {}\n---\n", "[".repeat(200))), "nested deeper than 128 levels");
    }

    #[test]
    fn tabs_and_duplicates_as_claude_code_reads_them() {
        // A tab indenting a nested block loads (coarse spans: the exact reader refuses tabs);
        // a tab before a top-level key does not.
        check("---\nmetadata:\n\tteam: web\n---\n", r#"{metadata@4..12: {team@15..24: "web"@15..24}@15..24}@4..25"#);
        assert!(check_invalid("---\nname: t4\n\tdescription: d\n---\n"));
        // Duplicate keys load (the last wins); the field check reports them.
        check("---\nname: a\nname: b\n---\n", r#"{name@4..8: "a"@10..11, name@12..16: "b"@18..19}@4..20"#);
    }

    #[test]
    fn not_a_mapping() {
        check("---\n- a\n---\n", "not a mapping: an array");
    }

    #[test]
    fn alias_bomb_is_bounded() {
        let mut yaml = String::from("---\na0: &a0 [x, x, x, x, x, x, x, x, x]\n");
        for i in 1..30 {
            let prev = i - 1;
            yaml.push_str(&format!("a{i}: &a{i} [*a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}]\n"));
        }
        yaml.push_str("---\n");
        let Split::Found(block) = split(&yaml) else { panic!("no block") };
        // serde_yaml refuses the expansion (as Claude Code's parser does past its alias
        // limit); the retry quotes nothing, because keys with digits are never quoted.
        match parse(&yaml, &block) {
            Parsed::Invalid { message, .. } => assert!(message.contains("repetition limit"), "{message}"),
            other => panic!("unexpected {other:?}"),
        }
    }
}

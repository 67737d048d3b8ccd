//! Rendering a template with arguments (Claude Code's `substituteArguments`, amended where the skills
//! docs, https://code.claude.com/docs/en/skills, describe a newer behaviour).
//!
//! One deliberate difference: Claude Code substitutes in passes (named, `$ARGUMENTS[n]`, `$n`,
//! `$ARGUMENTS`, then `${CLAUDE_*}`), so an argument *value* holding `$0` or `${CLAUDE_SESSION_ID}`
//! is substituted again by a later pass. This is one pass over the template: values are inserted
//! as they are. Shell commands are not run here; they come out with their arguments substituted.

use super::{args::split_arguments, Placeholder, Template, TemplatePartKind, TemplateVar};

/// What a template is rendered with, besides the argument string.
#[derive(Debug, Clone, Copy, Default)]
pub struct ExpandContext<'a> {
    /// `arguments:` from frontmatter, in order: the `i`th name is the `i`th argument. Empty and
    /// all-digit names are ignored, as Claude Code ignores them.
    pub argument_names: &'a [&'a str],
    /// Values of `${CLAUDE_*}` and `${user_config.KEY}`; a variable without a value stays as written.
    pub variables: &'a [(TemplateVar, &'a str)],
}

/// Claude Code's cap on a rendered text: the template and every argument value filled into it,
/// counted in UTF-16 code units (each value at the larger of its raw and escaped lengths).
pub const MAX_EXPANDED_CHARS: usize = 4_000_000;

/// A rendering that would pass [`MAX_EXPANDED_CHARS`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooLong {
    pub limit: usize,
}

impl std::fmt::Display for TooLong {
    /// Claude Code's message, word for word.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let digits = self.limit.to_string();
        let mut grouped = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                grouped.push(',');
            }
            grouped.push(c);
        }
        write!(
            f,
            "This skill, command or hook and the arguments filled into it add up to more than {grouped} characters. Use shorter arguments or fewer placeholders such as $ARGUMENTS."
        )
    }
}

impl std::error::Error for TooLong {}

/// Whitespace as a JavaScript regular expression's `\s` knows it.
fn js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}' | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}' | '\u{feff}'
    )
}

/// An argument value as Claude Code fills it in, so that it can never open a `!`
/// injection: a space is put between a backtick and a `!` touching it (`` `! `` → `` ` ! ``,
/// `` !` `` → `` ! ` ``), then a `!` at the value's start, a line's start or after whitespace is
/// written `\!`. `` !`id` `` becomes `` \! `id` ``, and `` ```! `` becomes `` ``` \! ``.
pub fn escape_argument(value: &str) -> String {
    if !value.contains('!') {
        return value.to_owned();
    }
    let spaced = value.replace("`!", "` !").replace("!`", "! `");
    let mut out = String::with_capacity(spaced.len() + 8);
    let mut previous: Option<char> = None;
    for c in spaced.chars() {
        // `^` of a multi-line pattern is also a line start after a line terminator, which `\s`
        // already covers.
        if c == '!' && previous.is_none_or(js_space) {
            out.push('\\');
        }
        out.push(c);
        previous = Some(c);
    }
    out
}

fn utf16_len(text: &str) -> usize {
    text.chars().map(char::len_utf16).sum()
}

/// Renders `template` with `args`, the argument string as typed (empty when there is none).
///
/// * `$ARGUMENTS` is `args`; `$ARGUMENTS[n]` and `$n` the `n`th word of [`split_arguments`]; a
///   missing one stays as written (skills docs; older versions, 2.1.88 among them, made it empty).
/// * `$name` is the argument at the name's position, or empty when there are fewer arguments.
/// * When no argument placeholder was substituted and `args` is not empty, `\n\nARGUMENTS: <args>`
///   is appended.
/// * Every argument value is filled in through [`escape_argument`]: text that came from the
///   arguments never opens a `!` injection.
pub fn expand(template: &Template, args: &str, cx: &ExpandContext<'_>) -> String {
    try_expand(template, args, cx, usize::MAX).unwrap_or_default()
}

/// [`expand`], refused once the template and the values filled into it pass `limit` UTF-16 code
/// units, as Claude Code counts them (see [`MAX_EXPANDED_CHARS`]): before the text is built.
pub fn try_expand(template: &Template, args: &str, cx: &ExpandContext<'_>, limit: usize) -> Result<String, TooLong> {
    let words = split_arguments(args);
    let names: Vec<&str> = cx
        .argument_names
        .iter()
        .copied()
        .filter(|name| !name.trim().is_empty() && !name.bytes().all(|b| b.is_ascii_digit()))
        .collect();
    // The count starts at the template's length (its variables filled in, each value marked
    // with two characters), and grows by each value filled in.
    let mut counted: usize = template
        .parts
        .iter()
        .map(|part| match &part.kind {
            TemplatePartKind::Variable(var) => match cx.variables.iter().find(|(known, _)| known == var) {
                Some((_, value)) => utf16_len(value) + 2,
                None => utf16_len(template.text(part.span)),
            },
            _ => utf16_len(template.text(part.span)),
        })
        .sum();
    let mut fill = |value: &str| -> Result<String, TooLong> {
        let escaped = escape_argument(value);
        counted = counted.saturating_add(utf16_len(value).max(utf16_len(&escaped)));
        if counted > limit {
            return Err(TooLong { limit });
        }
        Ok(escaped)
    };
    let mut out = String::with_capacity(template.source.len() + args.len());
    let mut substituted = false;
    for part in &template.parts {
        let text = template.text(part.span);
        match &part.kind {
            TemplatePartKind::Text => out.push_str(text),
            TemplatePartKind::Placeholder(placeholder) => match resolve(placeholder, args, &words, &names) {
                Some((value, rest)) => {
                    out.push_str(&fill(&value)?);
                    out.push_str(rest);
                    substituted = true;
                }
                None => out.push_str(text),
            },
            TemplatePartKind::Escaped(placeholder) => {
                let unescaped = text.strip_prefix('\\').unwrap_or(text);
                // A named escape stays as written when no name applies: `\$HOME` in a shell snippet.
                let applies = match placeholder {
                    Placeholder::Named(word) => named_position(word, &names).is_some(),
                    _ => true,
                };
                out.push_str(if applies { unescaped } else { text });
            }
            TemplatePartKind::Variable(var) => match cx.variables.iter().find(|(known, _)| known == var) {
                Some((_, value)) => out.push_str(value),
                None => out.push_str(text),
            },
        }
    }
    if !substituted && !args.is_empty() {
        out.push_str("\n\nARGUMENTS: ");
        out.push_str(&fill(args)?);
    }
    Ok(out)
}

/// The value of a placeholder and the literal rest of its word, or `None` to keep it as written.
fn resolve<'w>(
    placeholder: &'w Placeholder,
    args: &str,
    words: &[String],
    names: &[&str],
) -> Option<(String, &'w str)> {
    match placeholder {
        Placeholder::Arguments => Some((args.to_owned(), "")),
        Placeholder::ArgumentIndex(index) | Placeholder::Positional(index) => {
            words.get(*index).map(|word| (word.clone(), ""))
        }
        Placeholder::Named(word) => {
            let (position, name_len) = named_position(word, names)?;
            Some((words.get(position).cloned().unwrap_or_default(), &word[name_len..]))
        }
    }
}

/// The first declared name that `$word` spells (Claude Code replaces names in declaration order, each
/// with `\$name(?![\[\w])`, so a name also matches the start of a word when a `-` follows it).
fn named_position(word: &str, names: &[&str]) -> Option<(usize, usize)> {
    names.iter().enumerate().find_map(|(position, name)| {
        let rest = word.strip_prefix(name)?;
        (rest.is_empty() || rest.starts_with('-')).then_some((position, name.len()))
    })
}

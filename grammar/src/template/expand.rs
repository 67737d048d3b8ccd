//! Rendering a template with arguments (Claude Code's `substituteArguments`, amended where the skills
//! docs, https://code.claude.com/docs/en/skills, describe a newer behaviour).
//!
//! One deliberate difference: Claude Code substitutes in passes (named, `$ARGUMENTS[n]`, `$n`,
//! `$ARGUMENTS`, then `${CLAUDE_*}`), so an argument *value* holding `$0` or `${CLAUDE_SESSION_ID}`
//! is substituted again by a later pass. This is one pass over the template: values are inserted
//! as they are. Shell commands are not run here; they come out with their arguments substituted.

use super::{args::split_arguments, PartKind, Placeholder, Template, TemplateVar};

/// What a template is rendered with, besides the argument string.
#[derive(Debug, Clone, Copy, Default)]
pub struct ExpandContext<'a> {
    /// `arguments:` from frontmatter, in order: the `i`th name is the `i`th argument. Empty and
    /// all-digit names are ignored, as Claude Code ignores them.
    pub argument_names: &'a [&'a str],
    /// Values of `${CLAUDE_*}` and `${user_config.KEY}`; a variable without a value stays as written.
    pub variables: &'a [(TemplateVar, &'a str)],
}

/// Renders `template` with `args`, the argument string as typed (empty when there is none).
///
/// * `$ARGUMENTS` is `args`; `$ARGUMENTS[n]` and `$n` the `n`th word of [`split_arguments`]; a
///   missing one stays as written (skills docs; older versions, 2.1.88 among them, made it empty).
/// * `$name` is the argument at the name's position, or empty when there are fewer arguments.
/// * When no argument placeholder was substituted and `args` is not empty, `\n\nARGUMENTS: <args>`
///   is appended.
pub fn expand(template: &Template, args: &str, cx: &ExpandContext<'_>) -> String {
    let words = split_arguments(args);
    let names: Vec<&str> = cx
        .argument_names
        .iter()
        .copied()
        .filter(|name| !name.trim().is_empty() && !name.bytes().all(|b| b.is_ascii_digit()))
        .collect();
    let mut out = String::with_capacity(template.source.len() + args.len());
    let mut substituted = false;
    for part in &template.parts {
        let text = template.text(part.span);
        match &part.kind {
            PartKind::Text => out.push_str(text),
            PartKind::Placeholder(placeholder) => match resolve(placeholder, args, &words, &names) {
                Some((value, rest)) => {
                    out.push_str(&value);
                    out.push_str(rest);
                    substituted = true;
                }
                None => out.push_str(text),
            },
            PartKind::Escaped(placeholder) => {
                let unescaped = text.strip_prefix('\\').unwrap_or(text);
                // A named escape stays as written when no name applies: `\$HOME` in a shell snippet.
                let applies = match placeholder {
                    Placeholder::Named(word) => named_position(word, &names).is_some(),
                    _ => true,
                };
                out.push_str(if applies { unescaped } else { text });
            }
            PartKind::Variable(var) => match cx.variables.iter().find(|(known, _)| known == var) {
                Some((_, value)) => out.push_str(value),
                None => out.push_str(text),
            },
        }
    }
    if !substituted && !args.is_empty() {
        out.push_str("\n\nARGUMENTS: ");
        out.push_str(args);
    }
    out
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

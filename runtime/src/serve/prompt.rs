//! `prompts/get`: a served prompt run as the session's turn for `/name args`, its arguments
//! joined back into the string Claude Code would have typed.

use super::catalog::{Catalog, ARGUMENTS};
use super::{shell_question, unknown, Step};
use crate::session::Session;
use rmcp::model::{ErrorData, GetPromptResult, JsonObject, PromptMessage, Role};
use serde_json::Value;

/// `prompts/get`: the session's turn for `/name args`, its user texts as user messages.
pub(super) fn get_prompt(
    session: &mut Session,
    catalog: &Catalog,
    name: &str,
    arguments: Option<JsonObject>,
) -> Step<Result<GetPromptResult, ErrorData>> {
    let cx = session.last_context.clone();
    // A display name or alias reaches the entry `/name` reaches, as in Claude Code.
    let served = catalog.reaches.get(name).copied().flatten().and_then(|i| catalog.prompts.get(i));
    let Some(prompt) = served.filter(|_| !name.is_empty() && !name.contains(char::is_whitespace)) else {
        return Step::Done(Err(unknown("prompt", name, catalog.closest_prompt(name))));
    };
    let declared: Vec<String> =
        prompt.arguments.iter().flatten().map(|a| a.name.clone()).filter(|n| n != ARGUMENTS).collect();
    let args = match argument_string(arguments.as_ref(), &declared) {
        Ok(args) => args,
        Err(e) => return Step::Done(Err(e)),
    };
    let input = if args.is_empty() { format!("/{name}") } else { format!("/{name} {args}") };
    let outcome = session.turn(&input, cx);
    if !outcome.request.sent {
        // Claude Code sends nothing for it (a refused `!` injection, a disabled skill): what it
        // prints instead is the error.
        let message = outcome.request.stdout.join("\n");
        let error = ErrorData::invalid_request(message, serde_json::to_value(&outcome.result).ok());
        return match shell_question(session, &outcome.result) {
            // No is what the refusal says: the command is not sent.
            Some(question) => Step::Ask { question, refused: Err(error.clone()), rejected: Err(error) },
            None => Step::Done(Err(error)),
        };
    }
    let messages = outcome.request.texts.into_iter().map(|t| PromptMessage::new_text(Role::User, t)).collect();
    let mut result = GetPromptResult::new(messages);
    result.description = prompt.description.clone();
    Step::Done(Ok(result))
}

/// The argument string of a `prompts/get`: `arguments` as given, then the later arguments'
/// values in their declared order, a word each (a gap before a later value is `''`). Claude Code
/// fills the declared arguments with one typed word each, so joining them gives back what was
/// typed (runs of whitespace become one space); a client that fills `arguments` alone gives the
/// string whole, one that fills names puts each value in its place.
fn argument_string(arguments: Option<&JsonObject>, declared: &[String]) -> Result<String, ErrorData> {
    let Some(arguments) = arguments else { return Ok(String::new()) };
    let text = |key: &str, v: &Value| match v {
        Value::String(s) => Ok(s.clone()),
        Value::Null => Ok(String::new()),
        other => Err(ErrorData::invalid_params(format!("argument `{key}` must be a string, not {other}"), None)),
    };
    if let Some(unknown) = arguments.keys().find(|k| *k != ARGUMENTS && !declared.contains(k)) {
        let candidates = std::iter::once(ARGUMENTS).chain(declared.iter().map(String::as_str));
        let closest = crate::request::closest(unknown, candidates);
        return Err(self::unknown("argument", unknown, closest));
    }
    let mut words = Vec::new();
    for name in declared {
        match arguments.get(name) {
            Some(v) => words.push(word(&text(name, v)?)),
            // A gap keeps the later words in place.
            None => words.push("''".to_string()),
        }
    }
    while words.last().is_some_and(|w| w == "''") {
        words.pop();
    }
    if let Some(whole) = arguments.get(ARGUMENTS).map(|v| text(ARGUMENTS, v)).transpose()? {
        if !whole.is_empty() {
            words.insert(0, whole);
        }
    }
    Ok(words.join(" "))
}

/// A value as one word: as given when it is one already (what Claude Code sends: a typed word,
/// kept as typed), else quoted.
fn word(value: &str) -> String {
    if !value.is_empty() && !value.contains(char::is_whitespace) {
        return value.to_string();
    }
    quote(value)
}

/// One word as Claude Code's argument splitter reads it back: bare when plain, else in single
/// quotes (a `'` inside closes, escapes and reopens them).
fn quote(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./:=@,+%".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        return word.to_string();
    }
    format!("'{}'", word.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn quoted_words_split_back_into_the_same_words() {
        let words = ["plain", "two words", "it's", "", "a\"b", "$HOME", "x;y", "tab\there", "#hash"];
        let line: Vec<String> = words.iter().map(|w| quote(w)).collect();
        assert_eq!(capc_grammar::split_arguments(&line.join(" ")), words);
    }

    #[test]
    fn named_arguments_fill_their_declared_places() {
        let declared = vec!["env".to_string(), "version".to_string()];
        let given = |v: Value| v.as_object().cloned();
        let args = argument_string(given(json!({"version": "1.2"})).as_ref(), &declared).expect("valid");
        assert_eq!(args, "'' 1.2");
        let args = argument_string(given(json!({"arguments": "prod now"})).as_ref(), &declared).expect("valid");
        assert_eq!(args, "prod now");
        let error = argument_string(given(json!({"verison": "1"})).as_ref(), &declared).expect_err("unknown");
        assert!(error.message.contains("did you mean `version`"), "{}", error.message);
    }

    #[test]
    fn claude_codes_words_join_back_into_what_was_typed() {
        // `/mcp__capc__deploy prod don't "x y" now`: one word per declared argument, in order.
        let declared = vec!["env".to_string(), "word3".to_string(), "word4".to_string(), "word5".to_string()];
        let given = json!({"arguments": "prod", "env": "don't", "word3": "\"x", "word4": "y\"", "word5": "now"});
        let args = argument_string(given.as_object(), &declared).expect("valid");
        assert_eq!(args, "prod don't \"x y\" now");
    }
}

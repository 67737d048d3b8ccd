//! Keeping secrets out of the lock and the output: a value (an MCP field, a hook command, a
//! permission rule, frontmatter text) is written as it stands when it is only `${VAR}`
//! references and plain settings; a literal that looks like a credential is replaced by
//! `sha256:<hex>` of its text (whole, in a rule's content, or word by word), so a changed
//! secret still changes the lock without the lock ever holding it. Reports mask
//! credential-shaped words (`token_spans`, `mask_words`).

use sha2::{Digest, Sha256};

/// Lowercase hex SHA-256 of bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for b in digest {
        out.push(char::from_digit(u32::from(b >> 4), 16).unwrap_or('0'));
        out.push(char::from_digit(u32::from(b & 0xf), 16).unwrap_or('0'));
    }
    out
}

/// Words in a key that mark its value as a credential.
const SECRET_KEY_WORDS: &[&str] = &[
    "token",
    "secret",
    "password",
    "passwd",
    "apikey",
    "api_key",
    "api-key",
    "auth",
    "credential",
    "cookie",
    "private_key",
    "access_key",
    "session",
    "bearer",
    "pat",
];

/// Prefixes of well-known token formats.
const TOKEN_PREFIXES: &[&str] = &[
    "sk-",
    "sk_live_",
    "sk_test_",
    "rk_live_",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "glpat-",
    "xoxb-",
    "xoxp-",
    "xoxa-",
    "xapp-",
    "AKIA",
    "ASIA",
    "AIza",
    "ya29.",
    "eyJ",
    "npm_",
    "pypi-",
    "hf_",
    "shpat_",
    "SG.",
];

/// The text of `value` with every `${…}` reference removed: what is literally written.
fn literal_part(value: &str) -> std::borrow::Cow<'_, str> {
    let (refs, _) = capc_grammar::parse_env_refs(value);
    if refs.is_empty() {
        return std::borrow::Cow::Borrowed(value);
    }
    let mut out = String::new();
    let mut at = 0;
    for r in refs {
        out.push_str(&value[at.min(r.span.start)..r.span.start]);
        at = r.span.end;
    }
    out.push_str(&value[at.min(value.len())..]);
    std::borrow::Cow::Owned(out)
}

fn key_is_secret(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    SECRET_KEY_WORDS.iter().any(|w| {
        // `pat` and `session` only as whole words (`PATH` is not a secret).
        if matches!(*w, "pat" | "session") {
            key.split(|c: char| !c.is_ascii_alphanumeric()).any(|part| part == *w)
        } else {
            key.contains(w)
        }
    })
}

/// A run of 32+ token characters mixing letters and digits reads as a generated secret;
/// hex alone (commit ids, UUIDs) does not, unless its key says it is a secret.
fn looks_generated(word: &str) -> bool {
    word.len() >= 32
        && !word.chars().all(|c| c.is_ascii_hexdigit() || c == '-')
        && word.chars().all(|c| c.is_ascii_alphanumeric() || "+/=_-.".contains(c))
        && word.chars().any(|c| c.is_ascii_digit())
        && word.chars().any(|c| c.is_ascii_alphabetic())
}

/// A URL with a password in its authority (`scheme://user:pass@host`).
fn url_with_password(text: &str) -> bool {
    let Some((_, rest)) = text.split_once("://") else { return false };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    authority.rsplit_once('@').is_some_and(|(userinfo, _)| userinfo.contains(':'))
}

/// The shortest token `is_token` accepts: the shortest prefix and 12 characters after it.
const MIN_TOKEN_LEN: usize = 3 + 12;

fn is_token(word: &str) -> bool {
    TOKEN_PREFIXES.iter().any(|p| word.starts_with(p) && word.len() >= p.len() + 12) || looks_generated(word)
}

/// Byte ranges of the credential-shaped words of `text` outside `${…}` references: known
/// token formats, generated-looking runs, URLs with a password. Words are split at spaces
/// and at `= : , / ? &`, and lose surrounding quotes and brackets.
///
/// This runs over every prose field a lock keeps, so it avoids work on the common case: a
/// word shorter than any token (and without `@`, which a URL with a password needs) is
/// passed over without being looked at, and separators are found byte by byte (all of them
/// are ASCII, so a byte match is a character match).
pub fn token_spans(text: &str) -> Vec<crate::span::Span> {
    use crate::span::Span;
    let (refs, _) = capc_grammar::parse_env_refs(text);
    let in_ref = |start: usize, end: usize| refs.iter().any(|r| start < r.span.end && r.span.start < end);
    let mut spans = Vec::new();
    let mut word_start = 0;
    for (at, c) in text.char_indices() {
        if !c.is_whitespace() {
            continue;
        }
        whole_word(text, word_start, at, &in_ref, &mut spans);
        word_start = at + c.len_utf8();
    }
    whole_word(text, word_start, text.len(), &in_ref, &mut spans);
    spans.sort_by_key(|s| s.start);
    spans.dedup();
    return spans;

    fn whole_word(text: &str, start: usize, end: usize, in_ref: &dyn Fn(usize, usize) -> bool, out: &mut Vec<Span>) {
        let word = &text[start..end];
        let has_at = word.contains('@');
        if word.len() < MIN_TOKEN_LEN && !has_at {
            return;
        }
        if has_at && url_with_password(word) && !in_ref(start, end) {
            out.push(Span::new(start, end));
            return;
        }
        let mut part_start = start;
        let separators = word.bytes().enumerate().filter(|(_, b)| matches!(b, b'=' | b':' | b',' | b'/' | b'?' | b'&'));
        for (i, _) in separators.chain(std::iter::once((word.len(), b' '))) {
            let part = &text[part_start..start + i];
            part_start = start + i + 1;
            if part.len() < MIN_TOKEN_LEN {
                continue;
            }
            let trimmed_start = part.len() - part.trim_start_matches(TRIMMED).len();
            let trimmed = part.trim_matches(TRIMMED);
            let s = start + i - part.len() + trimmed_start;
            let e = s + trimmed.len();
            if is_token(trimmed) && !in_ref(s, e) {
                out.push(Span::new(s, e));
            }
        }
    }
}

/// Characters a credential-shaped word loses at its ends.
const TRIMMED: &[char] = &['"', '\'', '(', ')', '[', ']', '{', '}', '<', '>', ';', '.', '`'];

/// Whether a value (under `key`, when it has one) holds a literal credential.
pub fn looks_secret(key: Option<&str>, value: &str) -> bool {
    let literal = literal_part(value);
    let meaningful = literal.trim();
    // A broken reference (`${TOKEN`) is reported as such; it is not a written-out secret.
    if meaningful.is_empty() || literal.contains("${") {
        return false;
    }
    if key.is_some_and(key_is_secret) {
        // `Bearer ${TOKEN}` is a scheme word plus a reference, not a secret.
        let scheme_only = meaningful.eq_ignore_ascii_case("bearer") || meaningful.eq_ignore_ascii_case("basic");
        let placeholder =
            matches!(meaningful.to_ascii_lowercase().as_str(), "true" | "false" | "none" | "null" | "0" | "1");
        if !scheme_only && !placeholder {
            return true;
        }
    }
    url_with_password(&literal) || !token_spans(&literal).is_empty()
}

/// What the lock stores for a value.
pub fn redact(value: &str) -> String {
    format!("sha256:{}", sha256_hex(value.as_bytes()))
}

/// Prose (a description, a hint) with each credential-shaped word replaced by its
/// `sha256:<hex>`, the rest kept; `None` when it has none.
pub fn redact_words(text: &str) -> Option<String> {
    let spans = token_spans(text);
    if spans.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(text.len() + 64);
    let mut at = 0;
    for span in spans {
        out.push_str(&text[at..span.start]);
        out.push_str(&redact(&text[span.start..span.end]));
        at = span.end;
    }
    out.push_str(&text[at..]);
    Some(out)
}

/// `text` with each credential-shaped word replaced by `*`s of its length: for messages that
/// quote a value, on their way out.
pub fn mask_words(text: &str) -> std::borrow::Cow<'_, str> {
    let spans = token_spans(text);
    if spans.is_empty() {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for span in spans {
        out.push_str(&text[at..span.start]);
        out.extend(std::iter::repeat_n('*', text[span.start..span.end].chars().count()));
        at = span.end;
    }
    out.push_str(&text[at..]);
    std::borrow::Cow::Owned(out)
}

/// A permission rule as the lock keeps it when it holds a secret: the tool stays and its
/// content becomes `sha256:<hex>` (`Bash(sha256:…)`), so the rule still names what it is
/// about; a rule without parentheses is hashed whole.
pub fn redact_rule(rule: &str) -> String {
    let tool_end = rule.find('(').filter(|_| rule.ends_with(')'));
    match tool_end {
        Some(open) if open > 0 => format!("{}({})", &rule[..open], redact(&rule[open + 1..rule.len() - 1])),
        _ => redact(rule),
    }
}

/// The tool of a rule [`redact_rule`] hid the content of (`Bash(sha256:<hex>)` → `Bash`).
pub fn hashed_rule_tool(rule: &str) -> Option<&str> {
    let (tool, rest) = rule.split_once('(')?;
    let hash = rest.strip_suffix(')')?.strip_prefix("sha256:")?;
    (hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit()) && !tool.is_empty()).then_some(tool)
}

/// Whether a value is a hash the lock stores in place of a secret (`sha256:<64 hex>`).
pub fn is_redacted(value: &str) -> bool {
    value.strip_prefix("sha256:").is_some_and(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_and_settings_are_kept() {
        for (key, value) in [
            (Some("GITHUB_TOKEN"), "${GITHUB_TOKEN}"),
            (Some("Authorization"), "Bearer ${API_TOKEN}"),
            (Some("API_KEY"), "${API_KEY:-}"),
            (Some("LOG_LEVEL"), "debug"),
            (Some("PATH"), "/usr/bin:/bin"),
            (Some("PWD_DIR"), "/tmp"),
            (Some("DEBUG_AUTH"), "true"),
            (None, "--port=8080"),
            (None, "https://api.example.com/mcp"),
            (None, "postgres://app@localhost/db"),
            (None, "https://example.com/t/123e4567-e89b-12d3-a456-426614174000"),
            (None, "github:org/repo#0123456789abcdef0123456789abcdef01234567"),
        ] {
            assert!(!looks_secret(key, value), "{key:?} = {value} is not a secret");
        }
    }

    #[test]
    fn literal_credentials_are_found() {
        for (key, value) in [
            (Some("GITHUB_TOKEN"), "ghp_0123456789abcdefABCDEF0123456789abcd"),
            (Some("Authorization"), "Bearer abc.def.ghi"),
            (Some("DB_PASSWORD"), "hunter2"),
            (Some("X-Api-Key"), "k-7f3a"),
            (Some("OPENAI"), "sk-proj-0123456789abcdefghij"),
            (None, "--token=ghp_0123456789abcdefABCDEF0123456789abcd"),
            (None, "postgres://app:s3cret@localhost/db"),
            (None, "https://hooks.example.com/T000/B000/XXXXXXXXXXXXXXXXXXXXXXXX12345678"),
        ] {
            assert!(looks_secret(key, value), "{key:?} = {value} is a secret");
        }
    }

    #[test]
    fn tokens_are_found_inside_text_and_replaced_alone() {
        let text = "Deploy with key sk-ant-api03-PLANTEDxxxxxxxxxxxxxxxxxxxxxxxx, then (ghp_0123456789abcdefABCDEF0123456789abcd).";
        let spans: Vec<&str> = token_spans(text).iter().map(|s| &text[s.start..s.end]).collect();
        assert_eq!(spans, ["sk-ant-api03-PLANTEDxxxxxxxxxxxxxxxxxxxxxxxx", "ghp_0123456789abcdefABCDEF0123456789abcd"]);
        let redacted = redact_words(text).expect("has tokens");
        let hash = |t: &str| redact(t);
        assert_eq!(
            redacted,
            format!(
                "Deploy with key {}, then ({}).",
                hash("sk-ant-api03-PLANTEDxxxxxxxxxxxxxxxxxxxxxxxx"),
                hash("ghp_0123456789abcdefABCDEF0123456789abcd")
            )
        );
        assert_eq!(redact_words("Deploy the app to staging: see https://example.com/a?b=c"), None);
        assert_eq!(token_spans("${GITHUB_TOKEN_0123456789abcdefABCDEF0123456789}"), []);
        assert_eq!(token_spans("url https://u:pw@example.com/x").len(), 1);
        assert_eq!(
            mask_words("rule `Bash(curl ghp_0123456789abcdefABCD)`"),
            format!("rule `Bash(curl {})`", "*".repeat(24))
        );
    }

    #[test]
    fn rules_keep_their_tool() {
        let rule = "Bash(curl -H 'x-api-key: sk-ant-api03-PLANTEDxxxxxxxxxxxxxxxxxxxxxxxx' *)";
        let kept = redact_rule(rule);
        assert!(kept.starts_with("Bash(sha256:") && kept.ends_with(')') && kept.len() == "Bash(sha256:)".len() + 64);
        assert_eq!(hashed_rule_tool(&kept), Some("Bash"));
        assert_eq!(hashed_rule_tool("Bash(sha256:abc)"), None);
        assert!(is_redacted(&redact_rule("sk-ant-api03-PLANTEDxxxxxxxxxxxxxxxxxxxxxxxx")));
    }

    #[test]
    fn hashes_are_sha256() {
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert!(redact("x").starts_with("sha256:"));
    }
}

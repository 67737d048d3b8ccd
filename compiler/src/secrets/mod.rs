//! Keeping secrets out of the lock and the output: a value (an MCP field, a hook command, a
//! permission rule, frontmatter text, a plugin or marketplace source) is written as it stands
//! when it is only `${VAR}` references and plain settings; a literal that looks like a
//! credential is replaced by `sha256:<hex>` of its text (whole, in a rule's content, or word
//! by word), so a changed secret still changes the lock without the lock ever holding it.
//! Reports mask credential-shaped words (`token_spans`, `mask_words`).
//!
//! This module is the one place that decides what is a secret; readers, the lock's pins and
//! `capc diff` all ask it. A secret is either shaped like one (a known token format, a long
//! generated-looking run) or placed where one goes: after a `--password`/`--token`/`--api-key`
//! style flag (`--token X`, `--token=X`, `NAME_TOKEN=X`, `sshpass -p X`, `mysql -pX`), in a
//! URL's password or a secret query key (`?api_key=X`, `&sig=X`), after an `Authorization:`
//! or `X-Api-Key:` header name or a `Bearer` scheme. A `${VAR}` or `$VAR` reference, a
//! wildcard and a `<placeholder>` are never secrets.

use sha2::{Digest, Sha256};

/// Lowercase hex SHA-256 of bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&sha256(bytes))
}

/// SHA-256 of bytes.
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// Lowercase hex of a SHA-256.
pub fn hex(digest: &[u8; 32]) -> String {
    let mut out = String::with_capacity(64);
    for &b in digest {
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

/// Whether a name's words (split at anything not a letter or digit) say its value is a
/// credential although no word of [`SECRET_KEY_WORDS`] is in it: a short password word as a
/// word of its own (`DB_PASS`, `MYSQL_PWD`, `ADMIN_PW`), or `key` after a word that makes it a
/// secret one (`SIGNING_KEY`, `ENCRYPTION_KEY`, `client-key`).
fn names_a_credential(name: &str) -> bool {
    const PASSWORD_WORDS: &[&str] = &["pass", "pwd", "pw", "passwd", "passphrase"];
    const KEY_KINDS: &[&str] = &[
        "signing",
        "encryption",
        "encrypt",
        "decryption",
        "master",
        "hmac",
        "jwt",
        "private",
        "secret",
        "access",
        "api",
        "client",
        "license",
        "app",
        "auth",
        "session",
        "crypto",
        "cipher",
    ];
    let words: Vec<String> = name
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    // Where a credential is kept, not the credential (`PWD_DIR`, `DB_PASS_FILE`); `PWD` alone is
    // the shell's working folder.
    const WHERE: &[&str] = &[
        "dir", "path", "file", "url", "uri", "env", "var", "name", "id", "cmd", "command", "type", "endpoint",
        "helper", "stdin", "length", "home", "root", "prompt",
    ];
    if words.last().is_some_and(|w| WHERE.contains(&w.as_str())) || words == ["pwd"] {
        return false;
    }
    words.iter().any(|w| PASSWORD_WORDS.contains(&w.as_str()))
        || words.windows(2).any(|pair| pair[1] == "key" && KEY_KINDS.contains(&pair[0].as_str()))
}

fn key_is_secret(key: &str) -> bool {
    if names_a_credential(key) {
        return true;
    }
    // `TOKENS` counts model tokens (`MAX_THINKING_TOKENS`, `CLAUDE_CODE_MAX_OUTPUT_TOKENS`): a
    // number, not a credential.
    let key: String = key
        .to_ascii_lowercase()
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|part| *part != "tokens")
        .collect::<Vec<_>>()
        .join("_");
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
/// hex alone (commit ids, UUIDs) does not, unless its key says it is a secret, and neither do
/// short words joined by `_`, `-` or `.`, which are names (`mcp__context7__resolve-library-id`,
/// `eslint-plugin-react-hooks-5.2.0`): a generated secret has a long run of its own somewhere.
fn looks_generated(word: &str) -> bool {
    word.len() >= 32
        && !word.chars().all(|c| c.is_ascii_hexdigit() || c == '-')
        && word.chars().all(|c| c.is_ascii_alphanumeric() || "+/=_-.".contains(c))
        && word.chars().any(|c| c.is_ascii_digit())
        && word.chars().any(|c| c.is_ascii_alphabetic())
        && word.split(['_', '-', '.']).any(|part| part.len() >= MIN_GENERATED_RUN)
}

/// The shortest run between `_`, `-` and `.` that a generated secret holds (a name's words are
/// shorter; a 16-character run of random letters and digits is 95 bits).
const MIN_GENERATED_RUN: usize = 16;

/// The shortest token `is_token` accepts: the shortest prefix and 12 characters after it.
const MIN_TOKEN_LEN: usize = 3 + 12;

/// The bytes some token prefix starts with.
const PREFIX_FIRST_BYTES: ByteSet = {
    let mut set = ByteSet([false; 256]);
    let mut i = 0;
    while i < TOKEN_PREFIXES.len() {
        set.0[TOKEN_PREFIXES[i].as_bytes()[0] as usize] = true;
        i += 1;
    }
    set
};

fn is_token(word: &str) -> bool {
    // The first byte before the whole prefix: most parts start with no prefix's.
    (!word.is_empty()
        && PREFIX_FIRST_BYTES.has(word.as_bytes()[0])
        && TOKEN_PREFIXES.iter().any(|p| word.len() >= p.len() + 12 && word.starts_with(p)))
        || looks_generated(word)
}

/// Byte ranges of the secrets in `text` outside `${…}` references, sorted and disjoint: words
/// shaped like tokens (`shaped_tokens`) and values placed where a secret goes (`Context`).
///
/// This runs over every prose field a lock keeps, so it avoids work on the common case: words
/// are cut by bytes (`words`), a word shorter than any token is not split, the placement checks
/// look at a word's first and last bytes before anything else, and `${…}` references are
/// looked for only when something was found.
pub fn token_spans(text: &str) -> Vec<crate::span::Span> {
    use crate::span::Span;
    let mut spans = Vec::new();
    let mut context = Context::default();
    for (start, end, classes) in words(text) {
        shaped_tokens(text, start, end, classes, &mut spans);
        context.word(start, &text[start..end], classes, &mut spans);
    }
    if spans.is_empty() {
        return spans;
    }
    let (refs, _) = capc_grammar::parse_env_refs(text);
    spans.retain(|s: &Span| !refs.iter().any(|r| s.start < r.span.end && r.span.start < s.end));
    merge(spans)
}

/// What a byte of a word says about the word: `words` gathers the classes of a word's bytes
/// as it cuts it, so what follows looks for a byte only in a word known to hold one.
const PRINTABLE: u8 = 1;
/// Where `shaped_tokens` cuts a word into parts: `= : , / ? & @`.
const SEPARATOR: u8 = 2;
/// `:` or `=`: a URL, `NAME=value`, `Name:value`.
const COLON_OR_EQUALS: u8 = 4;
/// `/` or `(`: where the name of a program starts inside a word (`/usr/bin/curl`, `$(curl`).
const PATH: u8 = 8;

/// The classes of each byte; bytes above ASCII have none (they are never whitespace alone:
/// `whitespace_len` reads those).
const CLASSES: [u8; 256] = {
    let mut classes = [0; 256];
    let mut b = b'!';
    while b <= b'~' {
        classes[b as usize] = PRINTABLE;
        b += 1;
    }
    let separators = b"=:,/?&@";
    let mut i = 0;
    while i < separators.len() {
        classes[separators[i] as usize] |= SEPARATOR;
        i += 1;
    }
    classes[b':' as usize] |= COLON_OR_EQUALS;
    classes[b'=' as usize] |= COLON_OR_EQUALS;
    classes[b'/' as usize] |= PATH;
    classes[b'(' as usize] |= PATH;
    classes
};

/// The byte ranges of `text`'s words, each with the classes of its bytes: the pieces
/// `str::split_whitespace` gives, found by looking at bytes instead of decoding every
/// character.
fn words(text: &str) -> impl Iterator<Item = (usize, usize, u8)> + '_ {
    let bytes = text.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        loop {
            if at == bytes.len() {
                return None;
            }
            // Printable ASCII, most of any text, is never whitespace.
            if CLASSES[bytes[at] as usize] & PRINTABLE != 0 {
                break;
            }
            match whitespace_len(&bytes[at..]) {
                0 => break,
                n => at += n,
            }
        }
        let start = at;
        let mut classes = 0;
        loop {
            // Runs of printable ASCII are taken whole.
            while let Some(&b) = bytes.get(at) {
                let class = CLASSES[b as usize];
                if class & PRINTABLE == 0 {
                    break;
                }
                classes |= class;
                at += 1;
            }
            if at == bytes.len() || whitespace_len(&bytes[at..]) != 0 {
                break;
            }
            at += 1;
        }
        Some((start, at, classes))
    })
}

/// The length in bytes of the whitespace character `bytes` starts with (Unicode `White_Space`,
/// what `char::is_whitespace` accepts), or 0. Every such character above ASCII starts with one
/// of the bytes C2, E1, E2 or E3 and is two or three bytes long.
fn whitespace_len(bytes: &[u8]) -> usize {
    match bytes {
        [b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r', ..] => 1,
        // U+0085, U+00A0
        [0xC2, 0x85 | 0xA0, ..] => 2,
        // U+1680
        [0xE1, 0x9A, 0x80, ..] => 3,
        // U+2000 to U+200A, U+2028, U+2029, U+202F; U+205F
        [0xE2, 0x80, 0x80..=0x8A | 0xA8 | 0xA9 | 0xAF, ..] | [0xE2, 0x81, 0x9F, ..] => 3,
        // U+3000
        [0xE3, 0x80, 0x80, ..] => 3,
        _ => 0,
    }
}

/// Sorted spans with overlapping ones joined, so replacing each in turn is well defined.
fn merge(mut spans: Vec<crate::span::Span>) -> Vec<crate::span::Span> {
    spans.sort_by_key(|s| (s.start, s.end));
    let mut out: Vec<crate::span::Span> = Vec::with_capacity(spans.len());
    for span in spans {
        match out.last_mut() {
            Some(last) if span.start <= last.end => last.end = last.end.max(span.end),
            _ => out.push(span),
        }
    }
    out
}

/// The token-shaped parts of the word `text[start..end]` (known token formats,
/// generated-looking runs); parts are split at `= : , / ? & @` and lose surrounding quotes
/// and brackets.
fn shaped_tokens(text: &str, start: usize, end: usize, classes: u8, out: &mut Vec<crate::span::Span>) {
    if end - start < MIN_TOKEN_LEN {
        return;
    }
    // A word without separators is one part.
    if classes & SEPARATOR == 0 {
        shaped_part(text, start, end, out);
        return;
    }
    let word = &text[start..end];
    let mut part_start = start;
    let separators =
        word.bytes().enumerate().filter(|(_, b)| matches!(b, b'=' | b':' | b',' | b'/' | b'?' | b'&' | b'@'));
    for (i, _) in separators.chain(std::iter::once((word.len(), b' '))) {
        shaped_part(text, part_start, start + i, out);
        part_start = start + i + 1;
    }
}

/// `text[start..end]`, a part of a word, when it is shaped like a token.
fn shaped_part(text: &str, start: usize, end: usize, out: &mut Vec<crate::span::Span>) {
    let part = &text[start..end];
    if part.len() < MIN_TOKEN_LEN {
        return;
    }
    let (trimmed_start, trimmed) = TRIMMED.trim(part);
    let s = start + trimmed_start;
    if is_token(trimmed) {
        out.push(crate::span::Span::new(s, s + trimmed.len()));
    }
}
mod placed;

use placed::*;

/// Which arguments of a command line hold a secret: `args` read as the words after `command`,
/// so a flag's value is found in the argument after it (`["--token", "X"]`).
pub(crate) fn secret_args(command: Option<&str>, args: &[&str]) -> Vec<bool> {
    let mut line = command.unwrap_or_default().to_string();
    let mut ranges = Vec::with_capacity(args.len());
    for arg in args {
        line.push(' ');
        ranges.push((line.len(), line.len() + arg.len()));
        line.push_str(arg);
    }
    let spans = token_spans(&line);
    ranges
        .iter()
        .zip(args)
        .map(|(&(start, end), arg)| spans.iter().any(|s| s.start < end && start < s.end) || looks_secret(None, arg))
        .collect()
}

/// Characters a credential-shaped word loses at its ends.
const TRIMMED: ByteSet = ByteSet::of(b"\"'()[]{}<>;.`");
/// The same, and the commas that separate a word from the next (`"sk-…",` in JSON).
const TRIMMED_OR_COMMA: ByteSet = ByteSet::of(b"\"'()[]{}<>;.`,");

/// A set of ASCII bytes, looked up in one step: this runs for every word of every prose field.
struct ByteSet([bool; 256]);

impl ByteSet {
    const fn of(bytes: &[u8]) -> ByteSet {
        let mut set = [false; 256];
        let mut i = 0;
        while i < bytes.len() {
            set[bytes[i] as usize] = true;
            i += 1;
        }
        ByteSet(set)
    }
    fn has(&self, byte: u8) -> bool {
        self.0[byte as usize]
    }
    /// `text` without the set's bytes at either end, and how many it lost at the start. The
    /// set holds only ASCII bytes, so both cuts fall on character boundaries.
    fn trim<'t>(&self, text: &'t str) -> (usize, &'t str) {
        let bytes = text.as_bytes();
        let start = bytes.iter().position(|&b| !self.has(b)).unwrap_or(bytes.len());
        let end = bytes.iter().rposition(|&b| !self.has(b)).map_or(start, |i| i + 1);
        (start, &text[start..end])
    }
}

/// Whether a value (under `key`, when it has one) holds a literal credential.
pub(crate) fn looks_secret(key: Option<&str>, value: &str) -> bool {
    let literal = literal_part(value);
    let meaningful = literal.trim();
    // A broken reference (`${TOKEN`) is reported as such; it is not a written-out secret.
    if meaningful.is_empty() || literal.contains("${") {
        return false;
    }
    if key.is_some_and(|k| k.to_ascii_lowercase().contains("webhook")) && webhook_holds_token(meaningful) {
        return true;
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
    !token_spans(&literal).is_empty()
}

/// What the lock stores for a value.
pub(crate) fn redact(value: &str) -> String {
    format!("sha256:{}", sha256_hex(value.as_bytes()))
}

/// Prose (a description, a hint) with each credential-shaped word replaced by its
/// `sha256:<hex>`, the rest kept; `None` when it has none.
pub(crate) fn redact_words(text: &str) -> Option<String> {
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
mod tests;

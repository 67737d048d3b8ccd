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

/// What the words seen so far say about the next one.
#[derive(Default, Clone, Copy, PartialEq, Eq)]
enum Expect {
    #[default]
    Nothing,
    /// The value of a secret flag (`--token X`, `sshpass -p X`): any literal word.
    FlagValue,
    /// What follows a `Bearer` scheme: a credential, so not a plain lowercase word of prose.
    Credential,
    /// What follows a secret header name (`Authorization:`): a scheme word or a credential.
    SchemeOrCredential,
}

/// A left-to-right reading of a text's words that finds values placed where a secret goes:
/// after a secret flag or header name, in `NAME=value` and `Name:value`, in a URL's password
/// and query, and attached to the short flag of a program that takes a password that way.
#[derive(Default)]
struct Context {
    expect: Expect,
    /// The short flags that take a password, of the last program named (`sshpass -p`).
    short_flags: &'static [ShortFlag],
}

/// A short flag of a program that takes a password or other credential.
struct ShortFlag {
    flag: u8,
    /// Only written together with its value (`mysql -pX`: a separate `-p` prompts).
    attached_only: bool,
    /// The value is a secret only as `user:password` (`curl -u user` prompts).
    needs_colon: bool,
}

const fn short(flag: u8, attached_only: bool, needs_colon: bool) -> ShortFlag {
    ShortFlag { flag, attached_only, needs_colon }
}

/// Programs whose short flags take a password, as their manuals document them.
const PROGRAM_SHORT_FLAGS: &[(&str, &[ShortFlag])] = &[
    ("sshpass", &[short(b'p', false, false)]),
    ("mysql", &[short(b'p', true, false)]),
    ("mysqldump", &[short(b'p', true, false)]),
    ("mysqladmin", &[short(b'p', true, false)]),
    ("mariadb", &[short(b'p', true, false)]),
    ("redis-cli", &[short(b'a', false, false)]),
    ("curl", &[short(b'u', false, true)]),
];

impl Context {
    /// Reads the word `raw`, at `start` in the text, whose bytes have `classes`.
    fn word(&mut self, start: usize, raw: &str, classes: u8, out: &mut Vec<crate::span::Span>) {
        // `<your-token>` is a placeholder, whatever precedes it.
        if raw.bytes().find(|b| !matches!(b, b'"' | b'\'' | b'(' | b'[')) == Some(b'<') {
            self.expect = Expect::Nothing;
            return;
        }
        // A word also loses the commas that separate it from the next (`"sk-…",` in JSON).
        let (trimmed_start, word) = TRIMMED_OR_COMMA.trim(raw);
        if word.is_empty() {
            return;
        }
        let at = start + trimmed_start;
        // A value loses its quotes and brackets, and a rule's `:*` prefix wildcard.
        let mut push = |offset: usize, value: &str| {
            let (lead, value) = TRIMMED.trim(value);
            let value = value.strip_suffix(":*").unwrap_or(value);
            out.push(crate::span::Span::new(at + offset + lead, at + offset + lead + value.len()));
        };
        match std::mem::take(&mut self.expect) {
            Expect::SchemeOrCredential if is_scheme(word) => {
                self.expect = Expect::Credential;
                return;
            }
            // A key (`"type":`) is never the value expected; it is read for itself below.
            _ if word.ends_with(':') => {}
            Expect::FlagValue if !word.starts_with('-') => {
                if is_secret_value(word, false) {
                    push(0, word);
                }
                return;
            }
            Expect::Credential | Expect::SchemeOrCredential if !word.starts_with('-') => {
                if is_secret_value(word, true) {
                    push(0, word);
                }
                return;
            }
            _ => {}
        }
        // The program a word names, found once (this runs for every word of every prose field).
        // Looked for only when the word ends as one of the programs does.
        let last = word.as_bytes()[word.len() - 1];
        let program = match PROGRAM_SHORT_FLAGS.iter().any(|(p, _)| p.as_bytes().last() == Some(&last)) {
            false => "",
            true if classes & PATH == 0 => word,
            true => match word.bytes().rposition(|b| b == b'/' || b == b'(') {
                Some(at) => &word[at + 1..],
                None => word,
            },
        };
        if let Some((_, flags)) = PROGRAM_SHORT_FLAGS.iter().find(|(p, _)| program == *p) {
            self.short_flags = flags;
            return;
        }
        if word.eq_ignore_ascii_case("bearer") {
            self.expect = Expect::Credential;
            return;
        }
        if let Some(name) = word.strip_suffix(':') {
            if header_is_secret(name) {
                self.expect = Expect::SchemeOrCredential;
            }
            return;
        }
        let bytes = word.as_bytes();
        if bytes[0] == b'-' {
            if let Some(name) = word.strip_prefix("--").filter(|n| !n.contains('=')) {
                if flag_is_secret(name) {
                    self.expect = Expect::FlagValue;
                }
                return;
            }
            if let Some(flag) = self.short_flags.iter().find(|f| bytes.get(1) == Some(&f.flag)) {
                match &word[2..] {
                    "" if !flag.attached_only => self.expect = Expect::FlagValue,
                    value
                        if !value.is_empty()
                            && (!flag.needs_colon || value.contains(':'))
                            && is_secret_value(value, false) =>
                    {
                        push(2, value)
                    }
                    _ => {}
                }
                return;
            }
        }
        // What is left needs a `:` or `=` (a URL, `NAME=value`, `Name:value`): most words of
        // prose have neither, and skip the searches below.
        // (The bytes a word loses at its ends include neither.)
        if classes & COLON_OR_EQUALS == 0 {
            return;
        }
        if let Some(scheme_end) = word.find("://") {
            url_secrets(word, scheme_end + 3, &mut push);
            return;
        }
        if let Some(pairs) = connection_pairs(word) {
            for (start, name, value) in pairs {
                if connection_key_is_secret(name) && is_secret_value(value, false) {
                    push(start, value);
                    // A quoted value with a space goes on in the next word.
                    let quote = value.as_bytes()[0];
                    if matches!(quote, b'"' | b'\'') && (value.len() == 1 || !value.ends_with(quote as char)) {
                        self.expect = Expect::FlagValue;
                    }
                }
            }
            return;
        }
        if let Some((name, value)) = word.split_once('=') {
            // `Authorization=Bearer TOKEN`, `--auth-header=Token TOKEN`: the next word is the
            // credential whatever the name.
            if ["bearer", "basic", "token"].iter().any(|s| value.eq_ignore_ascii_case(s)) {
                self.expect = Expect::Credential;
                return;
            }
            if flag_is_secret(name) && is_secret_value(value, false) {
                push(name.len() + 1, value);
            }
            return;
        }
        if let Some((name, value)) = word.split_once(':') {
            if header_is_secret(name) {
                if is_scheme(value) {
                    self.expect = Expect::Credential;
                } else if is_secret_value(value, true) {
                    push(name.len() + 1, value);
                }
            }
        }
    }
}

/// The `key=value` pairs of a word written as a connection string (`Server=db;User`,
/// `Id=sa;Password=hunter2;`: ADO.NET, ODBC, Azure storage), each with where its value starts
/// in the word; `None` unless the word holds a `;` and two pairs or more. A value may be
/// quoted (`Password="a;b"`), and then runs to its closing quote.
fn connection_pairs(word: &str) -> Option<Vec<(usize, &str, &str)>> {
    if !word.contains(';') {
        return None;
    }
    let bytes = word.as_bytes();
    let mut pairs = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let Some(eq) = word[at..].find(['=', ';']).map(|i| at + i).filter(|&i| bytes[i] == b'=') else {
            // A part without `=` (`User` of `Server=db;User`, or a stray `;`).
            at = word[at..].find(';').map_or(bytes.len(), |i| at + i + 1);
            continue;
        };
        let name = word[at..eq].trim();
        let start = eq + 1;
        let end = match bytes.get(start) {
            Some(&quote @ (b'"' | b'\'')) => {
                word[start + 1..].find(quote as char).map_or(bytes.len(), |i| start + 1 + i + 1)
            }
            _ => word[start..].find(';').map_or(bytes.len(), |i| start + i),
        };
        pairs.push((start, name, &word[start..end]));
        at = end + 1;
    }
    (pairs.len() >= 2).then_some(pairs)
}

/// A connection string's key whose value is a credential: a secret flag's name (`Password`,
/// `Pwd`) or a storage or API key (`AccountKey`, `SharedAccessKey`).
fn connection_key_is_secret(name: &str) -> bool {
    let key = name.to_ascii_lowercase().replace(' ', "");
    flag_is_secret(&key)
        || matches!(
            key.as_str(),
            "accountkey" | "sharedaccesskey" | "sharedaccesssignature" | "accesskey" | "secretkey" | "apikey"
        )
}

/// Whether a URL (the value of a key naming a webhook) carries a credential of its own: a part of
/// its path or query of 8 characters or more mixing letters and digits (`/hooks/3x9…`), as a
/// webhook's token or id is. `http://localhost:3000` or `https://example.com/webhook` is an
/// address, not a credential.
fn webhook_holds_token(url: &str) -> bool {
    let Some(scheme_end) = url.find("://") else { return false };
    let rest = &url[scheme_end + 3..];
    let Some(path) = rest.find(['/', '?', '#']).map(|at| &rest[at..]) else { return false };
    path.split(['/', '?', '&', '=', '#', ';']).any(|part| {
        part.len() >= 8 && part.bytes().any(|b| b.is_ascii_digit()) && part.bytes().any(|b| b.is_ascii_alphabetic())
    })
}

/// Webhook URLs whose path is the credential (whoever has the URL may post): the host (or a
/// `.`-led suffix of it) and the path prefix after which the rest of the path is secret.
const SECRET_PATHS: &[(&str, &str)] = &[
    ("hooks.slack.com", "/services/"),
    ("hooks.slack.com", "/workflows/"),
    ("hooks.slack.com", "/triggers/"),
    ("discord.com", "/api/webhooks/"),
    ("discordapp.com", "/api/webhooks/"),
    (".discord.com", "/api/webhooks/"),
    ("hooks.zapier.com", "/hooks/catch/"),
    (".webhook.office.com", "/webhookb2/"),
    ("outlook.office.com", "/webhook/"),
    ("api.telegram.org", "/bot"),
];

/// The part of a URL's path that is its credential, for the hosts of [`SECRET_PATHS`]: where it
/// starts in `path` and how long it is.
fn secret_path(host: &str, path: &str) -> Option<(usize, usize)> {
    let host = host.to_ascii_lowercase();
    let (_, prefix) = SECRET_PATHS.iter().find(|(known, prefix)| {
        let matches_host = match known.strip_prefix('.') {
            Some(suffix) => host.ends_with(known) && host.len() > suffix.len() + 1,
            None => host == *known,
        };
        matches_host && path.len() > prefix.len() && path[..prefix.len()].eq_ignore_ascii_case(prefix)
    })?;
    let end = path.find(['?', '#']).unwrap_or(path.len());
    (end > prefix.len()).then(|| (prefix.len(), end - prefix.len()))
}

/// The password of a URL's authority (or a token-shaped user name), the credential a webhook
/// URL's path holds ([`SECRET_PATHS`]), and the values of its secret query, fragment or `;`
/// parameter keys (`?api_key=…`, `#access_token=…`, `;password=…`); `authority` is where the
/// authority starts.
fn url_secrets(url: &str, authority: usize, push: &mut impl FnMut(usize, &str)) {
    let rest = &url[authority..];
    let host_end = rest.find(['/', '?', '#', ';']).unwrap_or(rest.len());
    let mut host = &rest[..host_end];
    if let Some((userinfo, after)) = rest[..host_end].rsplit_once('@') {
        host = after;
        match userinfo.split_once(':') {
            Some((user, password)) if !password.is_empty() && !is_redacted(password) => {
                push(authority + user.len() + 1, password)
            }
            None if is_token(userinfo) => push(authority, userinfo),
            _ => {}
        }
    }
    let host = host.split(':').next().unwrap_or(host);
    if let Some((start, len)) = secret_path(host, &rest[host_end..]) {
        let value = &rest[host_end + start..host_end + start + len];
        if is_secret_value(value, false) {
            push(authority + host_end + start, value);
        }
    }
    let Some(query) = rest[host_end..].find(['?', '#', ';']).map(|q| authority + host_end + q + 1) else { return };
    let mut at = query;
    for pair in url[query..].split(['&', '#', ';']) {
        if let Some((key, value)) = pair.split_once('=') {
            if query_key_is_secret(key) && is_secret_value(value, false) {
                push(at + key.len() + 1, value);
            }
        }
        at += pair.len() + 1;
    }
}

/// An HTTP authentication scheme word (`Authorization: Bearer …`).
fn is_scheme(word: &str) -> bool {
    ["bearer", "basic", "token", "digest"].iter().any(|s| word.eq_ignore_ascii_case(s))
}

/// A flag or variable name whose value is a credential (`--api-key`, `DB_PASSWORD`,
/// `--client_secret`), but not one that names where a credential is kept (`--token-file`,
/// `--password-stdin`, `TOKEN_URL`) or counts tokens (`--max-tokens`).
fn flag_is_secret(name: &str) -> bool {
    const PARTS: &[&str] = &[
        "password",
        "passwd",
        "passphrase",
        "secret",
        "token",
        "api-key",
        "apikey",
        "access-key",
        "private-key",
        "credential",
        "auth-key",
        "authorization",
        "cookie",
    ];
    const WHOLE: &[&str] = &["pass", "pw", "pwd", "auth", "pat", "key-secret"];
    const NOT_A_VALUE: &[&str] = &[
        "-file",
        "-path",
        "-dir",
        "-env",
        "-var",
        "-name",
        "-url",
        "-uri",
        "-stdin",
        "-helper",
        "-cmd",
        "-command",
        "-type",
        "-endpoint",
        "-id",
        "-length",
        "-limit",
        "-ttl",
        "-expiry",
        "-header",
        "-prompt",
    ];
    let name = name.trim_start_matches('-');
    if name.is_empty() || name.len() > 64 {
        return false;
    }
    let name = name.to_ascii_lowercase().replace('_', "-");
    if NOT_A_VALUE.iter().any(|s| name.ends_with(s)) || name.contains("tokens") || name.contains("tokeniz") {
        return false;
    }
    PARTS.iter().any(|p| name.contains(p)) || WHOLE.contains(&name.as_str()) || names_a_credential(&name)
}

/// A header whose value is a credential (`Authorization`, `Cookie`, `X-Api-Key`,
/// `PRIVATE-TOKEN`).
fn header_is_secret(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    matches!(name.as_str(), "authorization" | "proxy-authorization" | "cookie")
        || ["api-key", "apikey", "api_key", "token", "secret", "password"].iter().any(|p| name.contains(p))
}

/// A URL query key whose value is a credential: a secret flag name or a signature or key.
fn query_key_is_secret(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    matches!(key.as_str(), "key" | "sig" | "signature" | "pwd" | "code_verifier")
        || key.ends_with("-signature")
        || key.ends_with("-credential")
        || flag_is_secret(&key)
}

/// Whether a value in a secret's place is a literal secret: not a reference (`$VAR`,
/// `%VAR%`), a wildcard, a `<placeholder>` or `YOUR_TOKEN`, a number, a switch word, or a
/// hash the lock already keeps; a `credential` (after `Bearer` or a header name) is also not a
/// plain lowercase word, which is prose.
fn is_secret_value(value: &str, credential: bool) -> bool {
    let value = TRIMMED.trim(value.trim_end_matches(":*").trim_end_matches('*')).1;
    let placeholder = value.len() < 3
        || value.starts_with(['$', '%', '*', '-'])
        || value.contains("${")
        || (value.starts_with('<') && value.ends_with('>'))
        || value.bytes().all(|b| b.is_ascii_digit())
        || value.bytes().all(|b| b.is_ascii_uppercase() || b == b'_')
        || matches!(value.to_ascii_lowercase().as_str(), "true" | "false" | "none" | "null" | "xxx" | "...")
        || value.starts_with("sha256:");
    let prose = credential && value.bytes().all(|b| b.is_ascii_lowercase());
    !placeholder && !prose
}

/// Which arguments of a command line hold a secret: `args` read as the words after `command`,
/// so a flag's value is found in the argument after it (`["--token", "X"]`).
pub fn secret_args(command: Option<&str>, args: &[&str]) -> Vec<bool> {
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
pub fn looks_secret(key: Option<&str>, value: &str) -> bool {
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
    fn words_are_the_pieces_split_whitespace_gives() {
        // Every character is whitespace to `whitespace_len` exactly when it is to `char`.
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let mut buf = [0; 4];
            let encoded = c.encode_utf8(&mut buf).as_bytes();
            let expected = if c.is_whitespace() { encoded.len() } else { 0 };
            assert_eq!(whitespace_len(encoded), expected, "U+{:04X}", c as u32);
        }
        for text in ["", " ", "a", " a  b\t", "\u{a0}é\u{2003}x\u{3000}\u{85}", "sk-\u{205f}\u{1680}é\u{180e}y\n"] {
            let ours: Vec<&str> = words(text).map(|(start, end, _)| &text[start..end]).collect();
            assert_eq!(ours, text.split_whitespace().collect::<Vec<_>>(), "{text:?}");
        }
    }

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
            (None, "--token ${GITHUB_TOKEN}"),
            (None, "--token=$GITHUB_TOKEN"),
            (None, "--api-key <your-key>"),
            (None, "--token-file /run/secrets/token"),
            (None, "--max-tokens 4096"),
            (None, "--password-stdin"),
            (None, "https://api.example.com/mcp?token=${TOKEN}&region=eu"),
            (None, "https://api.example.com/search?key=*"),
            (None, "Bash(curl -H \"Authorization: Bearer $TOKEN\" *)"),
            (None, "Bearer tokens are sent in the header"),
            (None, "Author: someone"),
            (None, "https://user@bitbucket.org/team/repo.git"),
            (None, "https://x:${GIT_TOKEN}@git.example.com/r.git"),
            (None, "psql -p 5432"),
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
            (None, "deploy --password hunter2horse"),
            (None, "--client_secret=abc123def"),
            (None, "DB_PASSWORD=correct-horse"),
            (None, "https://api.example.com/v1?region=eu&api_key=Zq9mX2pLwQ"),
            (None, "https://blob.example.com/f?sv=2024&sig=Ab12Cd%2Bef"),
            (None, "https://app.example.com/cb#access_token=Tk7Qp2Rm9"),
            (None, "Bash(curl -H \"Authorization: Bearer abcDEF123xyz\" https://api.example.com/*)"),
            (None, "Bash(curl -H 'X-Api-Key: k7f3a9' *)"),
            (None, "Bash(mysql -uroot -pS3cretPass:*)"),
            (None, "sshpass -p hunter2 ssh host"),
            (None, "https://deploy:Tk7Qp2Rm9xyz@git.example.com/team/mk.git"),
            (None, "https://ghp_0123456789abcdefABCDEF0123456789abcd@github.com/o/r.git"),
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
    fn only_the_secret_part_of_a_placed_secret_is_marked() {
        let json = r#"{ "API_KEY": "k7f3a9Qx", "LOG": "x", "api-token": { "type": "secret" } }"#;
        assert_eq!(token_spans(json).iter().map(|s| &json[s.start..s.end]).collect::<Vec<_>>(), ["k7f3a9Qx"]);
        let found = |text: &str| -> Vec<String> {
            token_spans(text).iter().map(|s| text[s.start..s.end].to_string()).collect()
        };
        assert_eq!(found("https://deploy:Tk7Qp2Rm9xyz@git.example.com/team/mk.git"), ["Tk7Qp2Rm9xyz"]);
        assert_eq!(found("https://h.example.com/p?access_token=Tk7Qp2Rm9&sig=Ab12Cd&page=2"), ["Tk7Qp2Rm9", "Ab12Cd"]);
        assert_eq!(found("curl -H \"Authorization: Bearer abcDEF123xyz\" https://x"), ["abcDEF123xyz"]);
        assert_eq!(found("run --token=\"s3cr3t-value\" --verbose"), ["s3cr3t-value"]);
        assert_eq!(found("a https://u:pw@example.com/x b"), ["pw"]);
        // Hashing the password keeps the rest of the URL readable, and a hashed one is not found again.
        let kept = redact_words("https://deploy:Tk7Qp2Rm9xyz@git.example.com/mk.git").expect("a secret");
        assert!(kept.starts_with("https://deploy:sha256:") && kept.ends_with("@git.example.com/mk.git"), "{kept}");
        assert_eq!(found(&kept), Vec::<String>::new());
    }

    #[test]
    fn webhook_urls_and_connection_strings_hide_their_credential() {
        let found = |text: &str| -> Vec<String> {
            token_spans(text).iter().map(|s| text[s.start..s.end].to_string()).collect()
        };
        let slack = "https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/abcdefghijklmnopqrstuvwx";
        assert_eq!(found(slack), ["T0AAAAAAA/B0BBBBBBB/abcdefghijklmnopqrstuvwx"]);
        assert!(looks_secret(Some("SLACK_URL"), slack));
        assert_eq!(found("https://discord.com/api/webhooks/123/tok-EN_x?wait=true"), ["123/tok-EN_x"]);
        assert_eq!(
            found("https://acme.webhook.office.com/webhookb2/abc@def/IncomingWebhook/x/y"),
            ["abc@def/IncomingWebhook/x/y"]
        );
        // A webhook URL under a key that says so, wherever it points; not a setting beside it.
        assert!(looks_secret(Some("ALERTS_WEBHOOK_URL"), "https://chat.example.com/hooks/x7Kq2mP9aZ"));
        assert!(!looks_secret(Some("WEBHOOK_TIMEOUT"), "30"));
        assert!(!looks_secret(Some("WEBHOOK_BASE_URL"), "http://localhost:3000"));
        assert!(!looks_secret(Some("WEBHOOK_URL"), "https://example.com/webhook"));
        assert!(!looks_secret(None, "https://hooks.slack.com/services/${SLACK_PATH}"));
        assert!(!looks_secret(None, "https://hooks.slack.com/"));
        let ado = "Server=db.example.com;User Id=sa;Password=hunter2;";
        assert_eq!(found(ado), ["hunter2"]);
        assert_eq!(found("Driver={ODBC};Server=db;Uid=app;Pwd=s3cret;Encrypt=yes"), ["s3cret"]);
        assert_eq!(found("Server=db;Password=\"a;b\";Database=x"), ["a;b"]);
        assert_eq!(found("Server=db;Password=\"a;b c\";Database=x"), ["a;b", "c\";Database=x"]);
        assert_eq!(
            found("DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=Zm9vYmFy+/==;EndpointSuffix=core"),
            ["Zm9vYmFy+/=="]
        );
        assert_eq!(found("jdbc:sqlserver://db:1433;databaseName=app;user=sa;password=hunter2"), ["hunter2"]);
        assert_eq!(found("Server=db;Password=${DB_PASSWORD};"), Vec::<String>::new());
        assert_eq!(found("Server=db;Database=app;Trusted_Connection=True;"), Vec::<String>::new());
        assert_eq!(secret_args(Some("sql-mcp"), &["--connection-string", ado]), [false, true]);
        assert_eq!(secret_args(Some("sql-mcp"), &["Server=db;User Id=sa;Password=hunter2;"]), [true]);
    }

    #[test]
    fn short_password_words_and_secret_keys_name_credentials() {
        for name in ["DB_PASS", "SMTP_PASS", "MYSQL_PWD", "LDAP_BIND_PW", "ADMIN_PW", "SIGNING_KEY", "ENCRYPTION_KEY"] {
            assert!(looks_secret(Some(name), "hunter2horse"), "{name} names a credential");
        }
        for name in ["PASSAGE", "COMPASS", "PUBLIC_KEY", "SORT_KEY", "PW_DIR", "KEYBOARD"] {
            assert!(!looks_secret(Some(name), "hunter2horse"), "{name} does not");
        }
        let args = ["--db-pass", "hunter2horse", "REDIS_PASS=hunter2horse", "Authorization=Bearer", "hunter2horse"];
        assert_eq!(secret_args(Some("db-mcp"), &args), [false, true, true, false, true]);
        assert_eq!(secret_args(Some("api-mcp"), &["--auth-header=Token", "hunter2horse"]), [false, true]);
        assert_eq!(secret_args(Some("api-mcp"), &["--cookie", "session=hunter2horse"]), [false, true]);
        assert!(redact_rule("Bash(MYSQL_PWD=hunter2horse mysql -u root)").starts_with("Bash(sha256:"));
        assert!(redact_rule("Bash(export DB_PASS=hunter2horse)").starts_with("Bash(sha256:"));
    }

    #[test]
    fn names_made_of_words_are_not_generated_secrets() {
        for name in [
            "mcp__context7__resolve-library-id",
            "mcp__plugin_context7_context7__get-library-docs",
            "eslint-plugin-react-hooks-5.2.0-canary.3",
            "Bash(mcp__github_enterprise2__create_pull_request_review)",
        ] {
            assert!(!looks_secret(None, name), "{name} is a name");
        }
        assert!(looks_secret(None, "Zq9mX2pLwQ7rT4vB8nK3sD6fH1jG5hY0"), "a 32-character run is generated");
    }

    #[test]
    fn arguments_are_read_as_a_command_line() {
        let args = ["--password", "hunter2horse", "--port", "5432", "--header", "Authorization: Bearer Zq9mX2pL"];
        assert_eq!(secret_args(Some("db-mcp"), &args), [false, true, false, false, false, true]);
        assert_eq!(secret_args(Some("/usr/bin/mysql"), &["-uroot", "-pS3cret"]), [false, true]);
        assert_eq!(secret_args(Some("mysql"), &["-p", "mydb"]), [false, false]);
        assert_eq!(secret_args(Some("redis-cli"), &["-a", "hunter2"]), [false, true]);
        assert_eq!(secret_args(Some("server"), &["-p", "8080", "--token", "${TOKEN}"]), [false; 4]);
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

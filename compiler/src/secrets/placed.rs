//! Values placed where a secret goes: after a secret flag (`--token X`, `NAME_TOKEN=X`,
//! `sshpass -p X`, `mysql -pX`), in a URL's password or a secret query key, in a connection
//! string, after an `Authorization:` header name or a `Bearer` scheme (`Context`), and whether
//! such a value is a literal secret (`is_secret_value`).

use super::*;

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
pub(super) struct Context {
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
    pub(super) fn word(&mut self, start: usize, raw: &str, classes: u8, out: &mut Vec<crate::span::Span>) {
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
        if self.expected(word, &mut push) {
            return;
        }
        if let Some((_, flags)) = PROGRAM_SHORT_FLAGS.iter().find(|(p, _)| program(word, classes) == *p) {
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
        if word.starts_with('-') && self.flag(word, &mut push) {
            return;
        }
        // What is left needs a `:` or `=` (a URL, `NAME=value`, `Name:value`): most words of
        // prose have neither, and skip the searches below.
        // (The bytes a word loses at its ends include neither.)
        if classes & COLON_OR_EQUALS == 0 {
            return;
        }
        self.assignment(word, &mut push);
    }

    /// Reads `word` as the value the words before it announced, if it is one; whether it was.
    fn expected(&mut self, word: &str, push: &mut impl FnMut(usize, &str)) -> bool {
        match std::mem::take(&mut self.expect) {
            Expect::SchemeOrCredential if is_scheme(word) => {
                self.expect = Expect::Credential;
                true
            }
            // A key (`"type":`) is never the value expected; it is read for itself.
            _ if word.ends_with(':') => false,
            Expect::FlagValue if !word.starts_with('-') => {
                if is_secret_value(word, false) {
                    push(0, word);
                }
                true
            }
            Expect::Credential | Expect::SchemeOrCredential if !word.starts_with('-') => {
                if is_secret_value(word, true) {
                    push(0, word);
                }
                true
            }
            _ => false,
        }
    }

    /// Reads `word`, which starts with `-`, as a secret long flag or a short flag of the last
    /// program named; whether it was one.
    fn flag(&mut self, word: &str, push: &mut impl FnMut(usize, &str)) -> bool {
        if let Some(name) = word.strip_prefix("--").filter(|n| !n.contains('=')) {
            if flag_is_secret(name) {
                self.expect = Expect::FlagValue;
            }
            return true;
        }
        let Some(flag) = self.short_flags.iter().find(|f| word.as_bytes().get(1) == Some(&f.flag)) else {
            return false;
        };
        match &word[2..] {
            "" if !flag.attached_only => self.expect = Expect::FlagValue,
            value
                if !value.is_empty() && (!flag.needs_colon || value.contains(':')) && is_secret_value(value, false) =>
            {
                push(2, value)
            }
            _ => {}
        }
        true
    }

    /// Reads a word with a `:` or `=`: a URL, a connection string, `NAME=value`, `Name:value`.
    fn assignment(&mut self, word: &str, push: &mut impl FnMut(usize, &str)) {
        if let Some(scheme_end) = word.find("://") {
            url_secrets(word, scheme_end + 3, push);
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

/// The program a word names, or `""`: looked for only when the word ends as one of the programs
/// does (this runs for every word of every prose field), after the last `/` or `(` of a path.
fn program(word: &str, classes: u8) -> &str {
    let last = word.as_bytes()[word.len() - 1];
    match PROGRAM_SHORT_FLAGS.iter().any(|(p, _)| p.as_bytes().last() == Some(&last)) {
        false => "",
        true if classes & PATH == 0 => word,
        true => match word.bytes().rposition(|b| b == b'/' || b == b'(') {
            Some(at) => &word[at + 1..],
            None => word,
        },
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
pub(super) fn webhook_holds_token(url: &str) -> bool {
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

//! Keeping secrets out of the lock: a value in an MCP server's `env`, `headers`, `args` or
//! `url` is written as it stands when it is only `${VAR}` references and plain settings;
//! a literal that looks like a credential is replaced by `sha256:<hex>` of its text, so a
//! changed secret still changes the lock without the lock ever holding it.

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
fn literal_part(value: &str) -> String {
    let (refs, _) = capc_grammar::parse_env_refs(value);
    let mut out = String::new();
    let mut at = 0;
    for r in refs {
        out.push_str(&value[at.min(r.span.start)..r.span.start]);
        at = r.span.end;
    }
    out.push_str(&value[at.min(value.len())..]);
    out
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
    if url_with_password(&literal) {
        return true;
    }
    literal.split_whitespace().flat_map(|w| w.split(['=', ':', ',', '/', '?', '&'])).any(|w| {
        let w = w.trim_matches(|c: char| c == '"' || c == '\'');
        TOKEN_PREFIXES.iter().any(|p| w.starts_with(p) && w.len() >= p.len() + 12) || looks_generated(w)
    })
}

/// What the lock stores for a value.
pub fn redact(value: &str) -> String {
    format!("sha256:{}", sha256_hex(value.as_bytes()))
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
    fn hashes_are_sha256() {
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert!(redact("x").starts_with("sha256:"));
    }
}

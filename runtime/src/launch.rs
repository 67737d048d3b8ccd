//! What starting an MCP server needs, from its lock entry: `${VAR}` references expanded at
//! run time from the environment (the lock keeps them as references, never values), and the
//! tail of a stdio server's stderr kept for the error a failed server reports.
//!
//! Groundwork for the MCP connection issue; connecting lives there.

use capc_compiler::model::{McpServer, Transport};
use capc_grammar::expand_env;
use std::collections::{BTreeMap, VecDeque};
use std::sync::OnceLock;

/// What the binary has done once, before capc starts the first process of the user's (an MCP
/// server, a `!` command, a `headersHelper`): `capc serve` and `capc session` run without
/// transparent huge pages until then, and give them back here, so that the process inherits
/// them as capc found them.
static BEFORE_FIRST_START: OnceLock<fn()> = OnceLock::new();

/// Sets what [`starting`] runs once (the first setting holds).
pub fn before_first_start(hook: fn()) {
    let _ = BEFORE_FIRST_START.set(hook);
}

/// Called where capc starts a process of the user's, before it starts it: the first call runs
/// the hook set by [`before_first_start`]; a call meanwhile on another thread waits for it.
pub(crate) fn starting() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    if let Some(hook) = BEFORE_FIRST_START.get() {
        ONCE.call_once(hook);
    }
}

/// A server ready to start: every field expanded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    pub transport: Transport,
    /// stdio: the program and its arguments.
    pub command: Option<String>,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    pub cwd: Option<String>,
    /// http: the URL and headers.
    pub url: Option<String>,
    pub headers: BTreeMap<String, String>,
    /// http: a shell command printing a JSON object of headers, run at each connection (they
    /// override `headers`).
    pub headers_helper: Option<String>,
    /// Variables that were referenced, unset and without a default: Claude Code leaves the
    /// `${NAME}` text in place, and so does this.
    pub missing: Vec<String>,
}

/// Why a server cannot be started from the lock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LaunchError {
    /// A literal secret was written in the config, and the lock keeps only its hash.
    HashedSecret { field: String },
    /// Legacy SSE and WebSocket servers: rmcp has no client for them.
    Unsupported(Transport),
}

impl std::fmt::Display for LaunchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LaunchError::HashedSecret { field } => write!(
                f,
                "`{field}` was a literal secret in the config, and the lock keeps only its SHA-256; \
                 write it as a `${{VAR}}` reference and set the variable"
            ),
            LaunchError::Unsupported(t) => write!(
                f,
                "`{}` servers are not supported (no client for the legacy transport); use `http` (Streamable HTTP)",
                t.as_str()
            ),
        }
    }
}

impl std::error::Error for LaunchError {}

fn is_hash(value: &str) -> bool {
    capc_compiler::secrets::is_redacted(value)
}

/// Expands a lock entry with `lookup` (the environment, in a real session).
pub fn prepare(server: &McpServer, lookup: impl Fn(&str) -> Option<String>) -> Result<Launch, LaunchError> {
    if matches!(server.transport, Transport::Sse | Transport::Ws) {
        return Err(LaunchError::Unsupported(server.transport));
    }
    let mut missing = Vec::new();
    let mut expand = |field: String, value: &str| -> Result<String, LaunchError> {
        if is_hash(value) {
            return Err(LaunchError::HashedSecret { field });
        }
        let (text, unset) = expand_env(value, &lookup);
        missing.extend(unset);
        Ok(text)
    };
    let command = server.command.as_deref().map(|c| expand("command".into(), c)).transpose()?;
    let args =
        server.args.iter().enumerate().map(|(i, a)| expand(format!("args[{i}]"), a)).collect::<Result<_, _>>()?;
    let mut expand_map = |field: &str, map: &BTreeMap<String, String>| {
        map.iter()
            .map(|(k, v)| Ok((k.clone(), expand(format!("{field}.{k}"), v)?)))
            .collect::<Result<BTreeMap<_, _>, LaunchError>>()
    };
    let env = expand_map("env", &server.env)?;
    let headers = expand_map("headers", &server.headers)?;
    let url = server.url.as_deref().map(|u| expand("url".into(), u)).transpose()?;
    let cwd = server.cwd.as_deref().map(|c| expand("cwd".into(), c)).transpose()?;
    missing.sort();
    missing.dedup();
    // A shell command: the shell expands its `$VAR`s. One the lock keeps only as a hash is
    // refused like any other hashed field.
    if server.headers_helper.as_deref().is_some_and(is_hash) {
        return Err(LaunchError::HashedSecret { field: "headersHelper".to_string() });
    }
    let headers_helper = server.headers_helper.clone();
    Ok(Launch { transport: server.transport, command, args, env, cwd, url, headers, headers_helper, missing })
}

/// The last bytes a server wrote to stderr, for its failure report.
#[derive(Debug, Clone)]
pub struct StderrTail {
    bytes: VecDeque<u8>,
    capacity: usize,
}

impl StderrTail {
    pub fn new(capacity: usize) -> StderrTail {
        StderrTail { bytes: VecDeque::with_capacity(capacity.min(1 << 16)), capacity }
    }

    pub fn push(&mut self, chunk: &[u8]) {
        let chunk = &chunk[chunk.len().saturating_sub(self.capacity)..];
        let overflow = (self.bytes.len() + chunk.len()).saturating_sub(self.capacity);
        self.bytes.drain(..overflow.min(self.bytes.len()));
        self.bytes.extend(chunk);
    }

    /// The tail as text, starting at a line start when one is in it.
    pub fn text(&self) -> String {
        let (a, b) = self.bytes.as_slices();
        let mut all = Vec::with_capacity(a.len() + b.len());
        all.extend_from_slice(a);
        all.extend_from_slice(b);
        let text = String::from_utf8_lossy(&all).into_owned();
        match text.find('\n') {
            Some(i) if all.len() == self.capacity && i + 1 < text.len() => text[i + 1..].trim_end().to_string(),
            _ => text.trim_end().to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use capc_compiler::model::Scope;

    fn server() -> McpServer {
        McpServer {
            name: "db".into(),
            normalized: "db".into(),
            scope: Scope::Project,
            transport: Transport::Stdio,
            path: ".mcp.json".into(),
            command: Some("${TOOLS:-/usr/local/bin}/db-mcp".into()),
            args: vec!["--url".into(), "postgres://${DB_HOST}/app".into()],
            env: [("TOKEN".to_string(), "${DB_TOKEN}".to_string()), ("MODE".to_string(), "ro".to_string())].into(),
            ..McpServer::default()
        }
    }

    #[test]
    fn references_expand_at_run_time() {
        let env = |name: &str| match name {
            "DB_HOST" => Some("localhost".to_string()),
            "DB_TOKEN" => Some("s3cret".to_string()),
            _ => None,
        };
        let launch = prepare(&server(), env).expect("prepares");
        assert_eq!(launch.command.as_deref(), Some("/usr/local/bin/db-mcp"));
        assert_eq!(launch.args, ["--url", "postgres://localhost/app"]);
        assert_eq!(launch.env["TOKEN"], "s3cret");
        assert_eq!(launch.env["MODE"], "ro");
        assert!(launch.missing.is_empty());
    }

    #[test]
    fn unset_references_stay_and_are_listed() {
        let launch = prepare(&server(), |_| None).expect("prepares");
        assert_eq!(launch.args[1], "postgres://${DB_HOST}/app");
        assert_eq!(launch.missing, ["DB_HOST", "DB_TOKEN"]);
    }

    #[test]
    fn hashed_secrets_and_legacy_transports_are_refused() {
        let mut s = server();
        s.env.insert("API_KEY".into(), format!("sha256:{}", "a".repeat(64)));
        assert_eq!(prepare(&s, |_| None), Err(LaunchError::HashedSecret { field: "env.API_KEY".into() }));
        let hash = format!("sha256:{}", "b".repeat(64));
        for (field, hashed) in [
            ("command", McpServer { command: Some(hash.clone()), ..server() }),
            ("cwd", McpServer { cwd: Some(hash.clone()), ..server() }),
            (
                "headersHelper",
                McpServer {
                    transport: Transport::Http,
                    url: Some("https://x/mcp".into()),
                    headers_helper: Some(hash.clone()),
                    ..server()
                },
            ),
        ] {
            assert_eq!(prepare(&hashed, |_| None), Err(LaunchError::HashedSecret { field: field.into() }));
        }
        let sse = McpServer { transport: Transport::Sse, url: Some("https://x/sse".into()), ..server() };
        let err = prepare(&sse, |_| None).expect_err("refused");
        assert!(err.to_string().contains("`sse` servers are not supported"), "{err}");
    }

    #[test]
    fn the_stderr_tail_keeps_the_last_lines() {
        let mut tail = StderrTail::new(32);
        tail.push(b"starting\nloading config\n");
        tail.push(b"error: cannot connect to database at localhost:5432\n");
        let text = tail.text();
        assert!(text.len() <= 32, "{text}");
        assert!(text.ends_with("localhost:5432"), "{text}");
        let mut short = StderrTail::new(1024);
        short.push(b"one\ntwo\n");
        assert_eq!(short.text(), "one\ntwo");
    }
}

//! How a setting widens what Claude Code may do: the effective value of a key, permission modes
//! by what runs unasked, the `env` keys that redirect traffic or credentials, the sandbox keys
//! that loosen it.

use crate::model::{Lock, Scope, Setting};

/// The setting of the highest-precedence scope for a key (`None` when no file sets it).
pub(crate) fn effective<'l>(lock: &'l Lock, key: &str) -> Option<&'l Setting> {
    lock.settings.iter().filter(|s| s.key == key).max_by_key(|s| precedence(s.scope))
}

/// Permission modes by how much runs without asking: `plan` reads only; `default` (and its
/// alias `manual`) and `dontAsk` (which refuses what it would ask) run only what rules allow;
/// `acceptEdits` edits files unasked; `auto` lets a classifier approve; `bypassPermissions`
/// asks nothing.
pub(crate) fn mode_rank(mode: Option<&str>) -> u8 {
    match mode.unwrap_or("default") {
        "plan" => 0,
        "acceptEdits" => 2,
        "auto" => 3,
        "bypassPermissions" => 4,
        _ => 1,
    }
}

/// Environment variables that send Claude Code's traffic or credentials elsewhere, or load
/// code into it and the programs it starts, with why (the names of Claude Code's own
/// lists of endpoint, proxy, certificate and loader variables).
pub(crate) const REDIRECTING_ENV: &[(&str, &str)] = &[
    ("ANTHROPIC_BASE_URL", "sends the model's requests, with the API key, to another endpoint"),
    ("ANTHROPIC_BEDROCK_BASE_URL", "sends Bedrock requests, with AWS credentials, to another endpoint"),
    ("ANTHROPIC_VERTEX_BASE_URL", "sends Vertex requests, with Google credentials, to another endpoint"),
    ("ANTHROPIC_FOUNDRY_BASE_URL", "sends Foundry requests, with their credentials, to another endpoint"),
    ("ANTHROPIC_AWS_BASE_URL", "sends AWS requests, with their credentials, to another endpoint"),
    ("ANTHROPIC_GOOGLE_CLOUD_BASE_URL", "sends Google Cloud requests, with their credentials, to another endpoint"),
    ("ANTHROPIC_BEDROCK_MANTLE_BASE_URL", "sends Bedrock requests, with AWS credentials, to another endpoint"),
    ("_CLAUDE_CODE_ASSUME_FIRST_PARTY_BASE_URL", "treats another endpoint as Anthropic's own"),
    ("ANTHROPIC_CUSTOM_HEADERS", "adds headers to every model request"),
    ("ANTHROPIC_API_KEY", "replaces the API key Claude Code sends"),
    ("ANTHROPIC_AUTH_TOKEN", "replaces the bearer token Claude Code sends"),
    ("ANTHROPIC_UNIX_SOCKET", "sends the model's requests through a local socket"),
    ("CLAUDE_CODE_USE_BEDROCK", "switches the model provider to Bedrock"),
    ("CLAUDE_CODE_USE_VERTEX", "switches the model provider to Vertex"),
    ("CLAUDE_CODE_USE_FOUNDRY", "switches the model provider to Foundry"),
    ("CLAUDE_CODE_USE_GATEWAY", "switches the model provider to a gateway"),
    ("CLAUDE_CODE_SKIP_BEDROCK_AUTH", "sends Bedrock requests without AWS authentication"),
    ("CLAUDE_CODE_SKIP_VERTEX_AUTH", "sends Vertex requests without Google authentication"),
    ("CLAUDE_CODE_MEMORY_API_BASE_URL", "sends memory requests to another endpoint"),
    ("CLAUDE_CODE_MEMORY_API_TOKEN", "replaces the memory service's token"),
    ("HTTPS_PROXY", "sends Claude Code's HTTPS traffic through a proxy"),
    ("HTTP_PROXY", "sends Claude Code's HTTP traffic through a proxy"),
    ("ALL_PROXY", "sends Claude Code's traffic through a proxy"),
    ("NO_PROXY", "changes which hosts bypass the proxy"),
    ("CLAUDE_CODE_HTTPS_PROXY", "sends Claude Code's HTTPS traffic through a proxy"),
    ("CLAUDE_CODE_HTTP_PROXY", "sends Claude Code's HTTP traffic through a proxy"),
    ("NPM_CONFIG_PROXY", "sends package downloads through a proxy"),
    ("NPM_CONFIG_HTTPS_PROXY", "sends package downloads through a proxy"),
    ("NODE_EXTRA_CA_CERTS", "trusts another certificate authority, so a proxy can read TLS traffic"),
    ("SSL_CERT_FILE", "replaces the trusted certificate authorities"),
    ("SSL_CERT_DIR", "replaces the trusted certificate authorities"),
    ("CLAUDE_CODE_CERT_STORE", "changes which certificate authorities are trusted"),
    ("NODE_TLS_REJECT_UNAUTHORIZED", "turns off TLS certificate checks"),
    ("CLAUDE_CODE_CLIENT_CERT", "presents another client certificate"),
    ("CLAUDE_CODE_CLIENT_KEY", "presents another client key"),
    ("NODE_OPTIONS", "loads code into Claude Code and every Node.js program it starts"),
    ("NODE_PATH", "changes where Node.js programs load modules from"),
    ("BUN_OPTIONS", "loads code into Bun programs Claude Code starts"),
    ("LD_PRELOAD", "loads a library into every program Claude Code starts"),
    ("LD_LIBRARY_PATH", "changes where programs Claude Code starts load libraries from"),
    ("LD_AUDIT", "loads a library into every program Claude Code starts"),
    ("DYLD_INSERT_LIBRARIES", "loads a library into every program Claude Code starts"),
    ("DYLD_LIBRARY_PATH", "changes where programs Claude Code starts load libraries from"),
    ("DYLD_FRAMEWORK_PATH", "changes where programs Claude Code starts load frameworks from"),
    ("BASH_ENV", "runs a script before every Bash command"),
    ("ENV", "runs a script when a shell starts"),
    ("ZDOTDIR", "runs another folder's zsh start-up files"),
    ("PROMPT_COMMAND", "runs a command before each shell prompt"),
    ("PATH", "changes which programs every command finds"),
    ("GIT_SSH_COMMAND", "runs another program for git's SSH connections"),
    ("GIT_ASKPASS", "runs another program for git's credentials"),
    ("SSH_ASKPASS", "runs another program for SSH credentials"),
    ("JAVA_TOOL_OPTIONS", "loads code into every Java program Claude Code starts"),
    ("PYTHONSTARTUP", "runs a script when Python starts"),
    ("PYTHONPATH", "changes where Python programs load modules from"),
    ("PERL5OPT", "loads code into every Perl program Claude Code starts"),
    ("RUBYOPT", "loads code into every Ruby program Claude Code starts"),
    ("OTEL_EXPORTER_OTLP_ENDPOINT", "sends telemetry to another endpoint"),
    ("OTEL_EXPORTER_OTLP_HEADERS", "adds headers to telemetry"),
];

/// Why an `env` key redirects traffic or credentials, when it does.
pub fn redirects(name: &str) -> Option<&'static str> {
    let upper = name.to_ascii_uppercase();
    REDIRECTING_ENV.iter().find(|(k, _)| *k == upper).map(|(_, why)| *why).or_else(|| {
        (upper.starts_with("AWS_") || upper.starts_with("GOOGLE_APPLICATION_CREDENTIALS"))
            .then_some("replaces the cloud credentials Claude Code uses")
    })
}

/// How a `sandbox` key loosens the sandbox: a boolean that loosens at the given value
/// (`default` is Claude Code's when unset), or a list whose added (or, for a deny list,
/// removed) entries loosen it.
pub(crate) enum Loosens {
    When { value: bool, default: bool },
    Added,
    Removed,
}

/// The `sandbox` keys of Claude Code's settings schema that loosen it.
pub(crate) const SANDBOX: &[(&str, Loosens)] = &[
    ("sandbox.enabled", Loosens::When { value: false, default: false }),
    ("sandbox.failIfUnavailable", Loosens::When { value: false, default: false }),
    ("sandbox.autoAllowBashIfSandboxed", Loosens::When { value: true, default: false }),
    ("sandbox.allowUnsandboxedCommands", Loosens::When { value: true, default: true }),
    ("sandbox.enableWeakerNestedSandbox", Loosens::When { value: true, default: false }),
    ("sandbox.enableWeakerNetworkIsolation", Loosens::When { value: true, default: false }),
    ("sandbox.allowAppleEvents", Loosens::When { value: true, default: false }),
    ("sandbox.allowNestedUserNamespaces", Loosens::When { value: true, default: false }),
    ("sandbox.network.allowAllUnixSockets", Loosens::When { value: true, default: false }),
    ("sandbox.network.allowLocalBinding", Loosens::When { value: true, default: false }),
    ("sandbox.network.strictAllowlist", Loosens::When { value: false, default: false }),
    ("sandbox.network.allowManagedDomainsOnly", Loosens::When { value: false, default: false }),
    ("sandbox.filesystem.disabled", Loosens::When { value: true, default: false }),
    ("sandbox.filesystem.allowManagedReadPathsOnly", Loosens::When { value: false, default: false }),
    ("sandbox.excludedCommands", Loosens::Added),
    ("sandbox.network.allowedDomains", Loosens::Added),
    ("sandbox.network.allowUnixSockets", Loosens::Added),
    ("sandbox.network.allowMachLookup", Loosens::Added),
    ("sandbox.filesystem.allowWrite", Loosens::Added),
    ("sandbox.filesystem.allowRead", Loosens::Added),
    ("sandbox.network.deniedDomains", Loosens::Removed),
    ("sandbox.filesystem.denyWrite", Loosens::Removed),
    ("sandbox.filesystem.denyRead", Loosens::Removed),
];

/// The settings scopes in the order Claude Code lets them override each other.
pub(super) fn precedence(scope: Scope) -> u8 {
    match scope {
        Scope::User => 1,
        Scope::Project => 2,
        Scope::Local => 3,
        Scope::Managed => 5,
        _ => 0,
    }
}

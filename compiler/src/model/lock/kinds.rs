//! The lock's small vocabularies: scopes, origins, loader forms, transports, approvals and
//! permission behaviours, each written as a kebab-case word.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where a declaration comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    /// The managed-settings folder (`--managed-dir`).
    Managed,
    /// The user's home (`--user-dir`): `~/.claude/`, `~/.claude.json`.
    User,
    /// The locked folder's `.claude/`, `.mcp.json` and nested `.claude/skills/`.
    #[default]
    Project,
    /// `.claude/settings.local.json`, and `~/.claude.json` servers of one project.
    Local,
    /// `--add-dir` folders.
    AddDir,
    /// A plugin's components.
    Plugin,
    /// Claude Code's own commands, skills, agents and tools.
    Builtin,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Managed => "managed",
            Scope::User => "user",
            Scope::Project => "project",
            Scope::Local => "local",
            Scope::AddDir => "add-dir",
            Scope::Plugin => "plugin",
            Scope::Builtin => "builtin",
        }
    }
}

/// What kind of declaration an entry is (the `origin` of `capc ls`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Origin {
    /// A command implemented in Claude Code.
    Builtin,
    /// A skill shipped inside Claude Code.
    Bundled,
    /// A `SKILL.md` in a skills folder.
    #[default]
    Skill,
    /// A legacy `.claude/commands/**.md` file.
    Command,
    /// A plugin's skill or command.
    Plugin,
    /// An MCP server's prompt (known only at run time).
    Mcp,
    /// A subagent definition (`agents/*.md`).
    Agent,
}

impl Origin {
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Builtin => "builtin",
            Origin::Bundled => "bundled",
            Origin::Skill => "skill",
            Origin::Command => "command",
            Origin::Plugin => "plugin",
            Origin::Mcp => "mcp",
            Origin::Agent => "agent",
        }
    }
}

/// Which loader read a skill or command: a skills folder's, or a commands folder's (a
/// `SKILL.md` folder under `commands/` is a command here).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Form {
    /// From a skills folder (`skills/<name>/SKILL.md`).
    #[default]
    Skill,
    /// From a commands folder (`commands/**.md`).
    Command,
}

impl Form {
    pub fn as_str(self) -> &'static str {
        match self {
            Form::Skill => "skill",
            Form::Command => "command",
        }
    }
}

/// How Claude Code talks to an MCP server (`streamable-http` is written `http`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Transport {
    /// A child process speaking on stdin/stdout.
    #[default]
    Stdio,
    /// Streamable HTTP.
    Http,
    /// Legacy server-sent events.
    Sse,
    /// WebSocket.
    Ws,
}

impl Transport {
    pub fn as_str(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::Http => "http",
            Transport::Sse => "sse",
            Transport::Ws => "ws",
        }
    }
}

/// Whether a project server (`.mcp.json`) may start, from the approval settings; for other
/// servers only `disabled`, when `~/.claude.json` turns them off in this project.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Approval {
    /// `enableAllProjectMcpServers` or `enabledMcpjsonServers`.
    Approved,
    /// Claude Code asks the user first.
    Pending,
    /// `disabledMcpjsonServers`.
    Disabled,
}

impl Approval {
    pub fn as_str(self) -> &'static str {
        match self {
            Approval::Approved => "approved",
            Approval::Pending => "pending",
            Approval::Disabled => "disabled",
        }
    }
}

/// What a permission rule does when it matches: the grammar's, which matches the rules.
pub use capc_grammar::Behavior;

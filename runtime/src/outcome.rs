//! What a session's requests come to, as types: a user turn's [`TurnResult`] (tagged by
//! `kind`), the Skill tool's [`SkillResult`] and an MCP tool call's [`ToolCallResult`]. The
//! protocol serializes them as they are (docs/session.md, "The protocol"); the REPL and
//! `capc serve` match on them.

use crate::connect::CallOutcome;
use crate::shell::ShellRun;
use capc_compiler::model::Origin;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};

/// What a user turn's input did.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TurnResult {
    /// Not a command: sent to the model as it is.
    Message { text: String },
    /// The input could not be used (`/` alone, a body that no longer reads).
    Error { message: String },
    /// A skill `skillOverrides` turns off: what Claude Code prints instead.
    Disabled { command: String, output: String },
    /// A `user-invocable: false` skill typed by the user: what Claude Code prints instead.
    #[serde(rename = "model-only")]
    ModelOnly { command: String, output: String },
    /// A prompt command or skill, expanded; or a bundled skill, whose prompt capc may not have.
    Prompt {
        command: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        origin: Option<Origin>,
        /// The user turn's text blocks: the command block, then the prompt.
        texts: Vec<String>,
        /// A declared command's grant and `!` injections (absent for a bundled skill).
        #[serde(flatten)]
        declared: Option<Declared>,
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// A `context: fork` skill, handed to a subagent.
    Fork {
        command: String,
        agent: String,
        prompt: String,
        #[serde(flatten)]
        declared: Declared,
    },
    /// A `!` injection refused or failed: the expansion ends with Claude Code's line.
    ShellError { command: String, message: String, shell: Vec<ShellRun> },
    /// A built-in command that is not a prompt.
    Local {
        command: String,
        /// `local` or `local-jsx`.
        #[serde(rename = "type")]
        kind: String,
        /// What it prints; `null` for one that runs inside Claude Code's interface.
        output: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// An unknown `/name`.
    Unknown {
        command: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        did_you_mean: Option<String>,
    },
    /// An MCP prompt typed as `/mcp__server__prompt ARGS`.
    McpPrompt {
        command: String,
        /// The words of the input, by the prompt's argument names.
        #[serde(skip_serializing_if = "Option::is_none")]
        arguments: Option<Map<String, Value>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        texts: Option<Vec<String>>,
    },
}

/// A declared prompt command's `allowed-tools`, `model` and `effort` (`null` when it has
/// none), and its `!` injections as they were decided and run.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Declared {
    pub allowed_tools: Vec<String>,
    pub model: Option<String>,
    pub effort: Option<String>,
    pub shell: Vec<ShellRun>,
}

/// The Skill tool's answer.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum SkillResult {
    /// Refused before any permission decision, or not allowed by it.
    Refused(SkillRefusal),
    /// Allowed: what the skill gives (a prompt, a fork, or why it failed), with the decision
    /// and the tool result Claude Code returns to the model.
    Ran {
        #[serde(flatten)]
        result: TurnResult,
        permission: SkillPermission,
        tool_result: String,
    },
}

/// A Skill tool call that does not run.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SkillRefusal {
    /// Claude Code's error code and message (1 a bad name, 2 unknown, 4 hidden from the model,
    /// 5 not a prompt).
    Error { code: u8, message: String },
    /// The permission decision says deny or ask.
    Permission { skill: String, permission: SkillPermission },
}

/// The Skill tool's permission decision.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(tag = "behavior", rename_all = "snake_case")]
pub enum SkillPermission {
    /// `rule`: the rule that allowed it (`Skill(X) (source)`), or the safe-properties reason.
    Allow {
        rule: Option<String>,
    },
    Deny {
        rule: Option<String>,
    },
    /// Claude Code asks, offering `suggestions` (`Skill(X)`, `Skill(X:*)`).
    Ask {
        message: String,
        suggestions: Vec<String>,
    },
}

/// An MCP tool call's answer.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ToolCallResult {
    /// Not called: no such tool in the pool, no live connection, or the call failed.
    Error {
        #[serde(skip_serializing_if = "Option::is_none")]
        tool: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        permission: Option<ToolPermission>,
        message: String,
    },
    /// The permission decision says deny or ask.
    Permission { tool: String, permission: ToolPermission },
    /// Called: what the server returned.
    ToolResult { tool: String, permission: ToolPermission, result: CallOutcome },
}

/// The permission decision of an MCP tool call: `behavior` (`allow`, `ask` or `deny`) and the
/// rule that decided, as written, with its file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ToolPermission {
    pub behavior: String,
    pub rule: Option<String>,
}

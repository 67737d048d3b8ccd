//! The MCP part of the session state: each server of the lock with its status and what it
//! offers. A turn reads it; only explicit updates change it (a server's
//! tools, prompts and resources are replaced together; a failed or disabled server's are
//! cleared).

use capc_compiler::model::Lock;
use capc_compiler::names::normalize_server;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Claude Code's cap on tool descriptions and server instructions.
pub(crate) const MAX_DESCRIPTION_CHARS: usize = 2048;
/// What follows a cut description.
pub(crate) const TRUNCATION_MARKER: &str = "… [truncated]";

/// Cuts `text` at 2,048 characters with Claude Code's marker.
pub(crate) fn truncate_description(text: &str) -> String {
    match text.char_indices().nth(MAX_DESCRIPTION_CHARS) {
        Some((at, _)) => format!("{}{TRUNCATION_MARKER}", &text[..at]),
        None => text.to_string(),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Pending,
    Connected,
    Failed,
    Disabled,
}

impl Status {
    /// The word the protocol and the REPL show.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::Connected => "connected",
            Status::Failed => "failed",
            Status::Disabled => "disabled",
        }
    }
}

/// A tool of a connected server, named as the model sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct McpTool {
    /// `mcp__<server>__<tool>`, normalized.
    pub name: Arc<str>,
    pub server: Arc<str>,
    /// The server's position among the state's servers (for per-server decisions).
    #[serde(skip)]
    pub(crate) server_index: usize,
    /// Cut at 2,048 characters.
    pub description: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub search_hint: Option<String>,
    /// Never deferred: the tool's own `_meta` or its server's entry says `alwaysLoad`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub always_load: bool,
    /// The tool's own `_meta` says `alwaysLoad` (what `capc lock --connect` records of it).
    #[serde(skip)]
    pub(crate) listed_always_load: bool,
    /// The name the server gave the tool (before normalization), for calls.
    #[serde(skip)]
    pub(crate) original: String,
    /// The tool's input schema as the server lists it, for `capc serve --connect`.
    #[serde(skip)]
    pub input_schema: Option<Arc<serde_json::Map<String, serde_json::Value>>>,
    /// The tool's annotations as the server lists them, for `capc lock --connect`.
    #[serde(skip)]
    pub annotations: Option<capc_compiler::model::McpToolAnnotations>,
}

/// One server's state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Server {
    pub name: String,
    pub normalized: String,
    pub status: Status,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub tools: Vec<McpTool>,
    /// MCP prompts, as `mcp__<server>__<prompt>` commands.
    pub prompts: Vec<String>,
    pub resources: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// The protocol version negotiated with a connected server.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    /// The server's entry says `alwaysLoad`: none of its tools is deferred.
    #[serde(skip)]
    pub always_load: bool,
    /// A server of a plugin only project settings enable: not loaded in an untrusted folder.
    #[serde(skip)]
    pub(crate) needs_trust: bool,
    /// Each prompt's argument names, in order, by command name.
    #[serde(skip)]
    pub(crate) prompt_arguments: BTreeMap<String, Vec<String>>,
}

/// A server's new state, as a connection reports it.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Update {
    pub server: String,
    pub status: Option<Status>,
    #[serde(default)]
    pub error: Option<String>,
    /// `None` keeps the current tools (unless the server failed or was disabled).
    #[serde(default)]
    pub tools: Option<Vec<ToolSpec>>,
    #[serde(default)]
    pub prompts: Option<Vec<PromptSpec>>,
    #[serde(default)]
    pub resources: Option<Vec<String>>,
    #[serde(default)]
    pub instructions: Option<String>,
    /// The negotiated protocol version (kept until the server fails or is disabled).
    #[serde(default)]
    pub protocol: Option<String>,
}

/// A tool as a server lists it.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolSpec {
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub search_hint: Option<String>,
    #[serde(default)]
    pub always_load: bool,
    /// The input schema a connection read (an update over the protocol carries none).
    #[serde(skip)]
    #[schemars(skip)]
    pub input_schema: Option<Arc<serde_json::Map<String, serde_json::Value>>>,
    /// The annotations a connection read.
    #[serde(skip)]
    #[schemars(skip)]
    pub annotations: Option<capc_compiler::model::McpToolAnnotations>,
}

/// A prompt as a server lists it: its name, or its name with its argument names.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum PromptSpec {
    Name(String),
    Full {
        name: String,
        #[serde(default)]
        arguments: Vec<String>,
    },
}

impl PromptSpec {
    fn parts(self) -> (String, Vec<String>) {
        match self {
            PromptSpec::Name(name) => (name, Vec::new()),
            PromptSpec::Full { name, arguments } => (name, arguments),
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct McpState {
    servers: BTreeMap<String, Server>,
    /// Every tool of every server, a name once (the first server's, in server order), sorted
    /// as Claude Code sorts them (`localeCompare`; rebuilt on update, read every turn).
    sorted: Vec<McpTool>,
    /// Indices into `sorted` in code-unit order of the names (the deferred-tools announcement).
    by_code_unit: Vec<usize>,
}

impl McpState {
    /// The servers of a lock that Claude Code would start: not hidden by another. Those turned
    /// off by approval settings or kept out by the MCP policy are listed as disabled (the
    /// latter with the policy's reason); all others start pending.
    pub fn from_lock(lock: &Lock) -> McpState {
        let mut servers = BTreeMap::new();
        for s in lock.mcp_servers.iter().filter(|s| s.shadowed_by.is_none()) {
            let blocked = s.blocked_by.as_ref().map(|why| match why.as_str() {
                crate::trust::NOT_DECLARED => why.clone(),
                _ => format!("not loaded, MCP policy: {why}"),
            });
            let status = if blocked.is_some() || s.approval == Some(capc_compiler::model::Approval::Disabled) {
                Status::Disabled
            } else {
                Status::Pending
            };
            servers.insert(
                s.name.clone(),
                Server {
                    name: s.name.clone(),
                    normalized: s.normalized.clone(),
                    status,
                    error: blocked,
                    tools: Vec::new(),
                    prompts: Vec::new(),
                    resources: Vec::new(),
                    instructions: None,
                    protocol: None,
                    always_load: s.always_load,
                    needs_trust: s.plugin.is_some() && crate::trust::component_needs_trust(lock, &s.path),
                    prompt_arguments: BTreeMap::new(),
                },
            );
        }
        McpState { servers, sorted: Vec::new(), by_code_unit: Vec::new() }
    }

    /// The servers, in the order `McpTool::server_index` counts them.
    pub fn servers(&self) -> impl Iterator<Item = &Server> {
        self.servers.values()
    }

    /// Applies updates in arrival order, as one state change.
    pub fn apply(&mut self, updates: Vec<Update>) -> Result<(), String> {
        let index: BTreeMap<String, usize> = self.servers.keys().enumerate().map(|(i, k)| (k.clone(), i)).collect();
        for u in updates {
            let server_index = index.get(&u.server).copied().unwrap_or(0);
            let Some(server) = self.servers.get_mut(&u.server) else {
                return Err(format!("no MCP server `{}` in the lock", u.server));
            };
            if let Some(status) = u.status {
                server.status = status;
            }
            server.error = u.error;
            let cleared = matches!(server.status, Status::Failed | Status::Disabled);
            let prefix = format!("mcp__{}__", server.normalized);
            match u.tools {
                Some(tools) => {
                    server.tools = tools
                        .into_iter()
                        .map(|t| McpTool {
                            name: Arc::from(format!("{prefix}{}", normalize_server(&t.name))),
                            server: Arc::from(server.name.as_str()),
                            server_index,
                            description: truncate_description(&t.description),
                            search_hint: t
                                .search_hint
                                .map(|h| h.split_whitespace().collect::<Vec<_>>().join(" "))
                                .filter(|h| !h.is_empty()),
                            always_load: t.always_load || server.always_load,
                            listed_always_load: t.always_load,
                            original: t.name,
                            input_schema: t.input_schema,
                            annotations: t.annotations,
                        })
                        .collect()
                }
                None if cleared => server.tools.clear(),
                None => {}
            }
            match u.prompts {
                Some(prompts) => {
                    server.prompts.clear();
                    server.prompt_arguments.clear();
                    for (name, arguments) in prompts.into_iter().map(PromptSpec::parts) {
                        let command = format!("{prefix}{name}");
                        server.prompt_arguments.insert(command.clone(), arguments);
                        server.prompts.push(command);
                    }
                }
                None if cleared => {
                    server.prompts.clear();
                    server.prompt_arguments.clear();
                }
                None => {}
            }
            match u.resources {
                Some(resources) => server.resources = resources,
                None if cleared => server.resources.clear(),
                None => {}
            }
            if u.protocol.is_some() || cleared {
                server.protocol = u.protocol;
            }
            if let Some(text) = u.instructions {
                server.instructions = Some(truncate_description(&text));
            }
        }
        // A name once: the first server's (in server order), then the first of a server's list.
        let mut seen = std::collections::HashSet::new();
        self.sorted = self
            .servers
            .values()
            .flat_map(|s| s.tools.iter())
            .filter(|t| seen.insert(t.name.clone()))
            .cloned()
            .collect();
        self.sorted.sort_by_cached_key(|t| crate::collate::key(&t.name));
        self.by_code_unit = (0..self.sorted.len()).collect();
        self.by_code_unit.sort_by(|&a, &b| self.sorted[a].name.cmp(&self.sorted[b].name));
        Ok(())
    }

    /// Every tool, in the order Claude Code sends them.
    pub fn tools(&self) -> &[McpTool] {
        &self.sorted
    }

    /// Indices into [`McpState::tools`] in code-unit order of the names.
    pub(crate) fn tools_by_code_unit(&self) -> impl Iterator<Item = usize> + '_ {
        self.by_code_unit.iter().copied()
    }

    /// The server offering a prompt command (`mcp__<server>__<prompt>`), with the prompt's name
    /// as the server knows it and its argument names.
    pub fn prompt(&self, command: &str) -> Option<(&Server, String, &[String])> {
        self.servers.values().filter(|s| s.status == Status::Connected).find_map(|s| {
            let arguments = s.prompt_arguments.get(command)?;
            let name = command.strip_prefix(&format!("mcp__{}__", s.normalized))?.to_string();
            Some((s, name, arguments.as_slice()))
        })
    }

    pub(crate) fn any_pending(&self) -> bool {
        self.servers.values().any(|s| s.status == Status::Pending)
    }

    pub fn pending(&self) -> Vec<String> {
        self.servers.values().filter(|s| s.status == Status::Pending).map(|s| s.name.clone()).collect()
    }

    pub(crate) fn any_resources(&self) -> bool {
        self.servers.values().any(|s| s.status == Status::Connected && !s.resources.is_empty())
    }

    /// `(server, instructions)` of connected servers that have them.
    pub fn instructions(&self) -> Vec<(&str, &str)> {
        self.servers
            .values()
            .filter(|s| s.status == Status::Connected)
            .filter_map(|s| s.instructions.as_deref().map(|i| (s.name.as_str(), i)))
            .collect()
    }

    /// MCP prompts of connected servers, as command names.
    pub(crate) fn prompt_commands(&self) -> Vec<&str> {
        self.servers
            .values()
            .filter(|s| s.status == Status::Connected)
            .flat_map(|s| s.prompts.iter().map(String::as_str))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_are_cut_at_2048_characters() {
        let long = "é".repeat(3000);
        let cut = truncate_description(&long);
        assert_eq!(cut.chars().count(), MAX_DESCRIPTION_CHARS + TRUNCATION_MARKER.chars().count());
        assert!(cut.ends_with(TRUNCATION_MARKER));
        assert_eq!(truncate_description("short"), "short");
    }

    #[test]
    fn status_words_are_the_serialized_ones() {
        for status in [Status::Pending, Status::Connected, Status::Failed, Status::Disabled] {
            assert_eq!(serde_json::to_value(status).expect("serializes"), status.as_str());
        }
    }
}

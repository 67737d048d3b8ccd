//! Claude Code's tool names: the built-in list, the legacy aliases, and which input field a
//! specifier talks about.

/// Canonical built-in tool names (from the tools reference, https://code.claude.com/docs/en/tools-reference),
/// sorted. `TaskOutput` is deprecated and `TodoWrite` legacy (off by default) but both still exist.
pub const BUILTIN_TOOLS: &[&str] = &[
    "Agent",
    "Artifact",
    "AskUserQuestion",
    "Bash",
    "CronCreate",
    "CronDelete",
    "CronList",
    "Edit",
    "EndConversation",
    "EnterPlanMode",
    "EnterWorktree",
    "ExitPlanMode",
    "ExitWorktree",
    "Glob",
    "Grep",
    "LSP",
    "ListAgents",
    "ListMcpResourcesTool",
    "Monitor",
    "NotebookEdit",
    "PowerShell",
    "PushNotification",
    "Read",
    "ReadMcpResourceTool",
    "RemoteTrigger",
    "ReportFindings",
    "ScheduleWakeup",
    "SendMessage",
    "SendUserFile",
    "ShareOnboardingGuide",
    "Skill",
    "TaskCreate",
    "TaskGet",
    "TaskList",
    "TaskOutput",
    "TaskStop",
    "TaskUpdate",
    "TodoWrite",
    "ToolSearch",
    "WaitForMcpServers",
    "WebFetch",
    "WebSearch",
    "Workflow",
    "Write",
];

/// `(legacy, canonical)`: names the permission-rule parser rewrites before matching
/// (`normalizeLegacyToolName`; `Task` became `Agent` in v2.1.63). `Brief` is rewritten only
/// in builds with the KAIROS feature, which is why most users never see `SendUserMessage`.
pub const LEGACY_TOOL_ALIASES: &[(&str, &str)] = &[
    ("AgentOutputTool", "TaskOutput"),
    ("BashOutputTool", "TaskOutput"),
    ("Brief", "SendUserMessage"),
    ("KillShell", "TaskStop"),
    ("Task", "Agent"),
];

/// The name Claude Code matches a rule or a call under: the legacy alias target, or `name` itself.
pub fn canonical_tool_name(name: &str) -> &str {
    LEGACY_TOOL_ALIASES.iter().find(|(legacy, _)| *legacy == name).map_or(name, |(_, canonical)| canonical)
}

/// The input field a tool's specifier is about, which parameter rules may not name
/// (permissions docs: "not allowed for primary fields").
pub fn primary_field(tool: &str) -> Option<&'static str> {
    match canonical_tool_name(tool) {
        "Bash" | "PowerShell" => Some("command"),
        "Read" | "Edit" | "Write" | "MultiEdit" => Some("file_path"),
        "Grep" | "Glob" => Some("path"),
        "NotebookEdit" | "NotebookRead" => Some("notebook_path"),
        "WebFetch" => Some("url"),
        _ => None,
    }
}

/// Tools whose content is a shell command pattern.
pub(crate) fn is_shell_tool(tool: &str) -> bool {
    matches!(tool, "Bash" | "PowerShell")
}

/// Tools whose content is a gitignore-style path (Claude Code's `filePatternTools`, plus `MultiEdit`,
/// whose path rules the permissions docs list as "accepted but never consulted").
pub(crate) fn is_path_tool(tool: &str) -> bool {
    matches!(tool, "Read" | "Edit" | "Write" | "Glob" | "NotebookRead" | "NotebookEdit" | "MultiEdit")
}

/// Calls that `Read(path)` rules govern: every tool that reads files checks read permission.
pub(crate) fn is_read_family(tool: &str) -> bool {
    matches!(tool, "Read" | "Glob" | "Grep" | "NotebookRead" | "LS")
}

/// Calls that `Edit(path)` rules govern ("`Edit` covers every edit tool", permissions doc).
pub(crate) fn is_edit_family(tool: &str) -> bool {
    matches!(tool, "Edit" | "Write" | "MultiEdit" | "NotebookEdit")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_tools_are_sorted_and_unique() {
        let mut sorted = BUILTIN_TOOLS.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted, BUILTIN_TOOLS, "keep `BUILTIN_TOOLS` sorted and free of duplicates");
    }

    #[test]
    fn legacy_aliases_are_sorted_and_point_at_current_names() {
        let mut sorted = LEGACY_TOOL_ALIASES.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, LEGACY_TOOL_ALIASES, "keep `LEGACY_TOOL_ALIASES` sorted");
        for (legacy, canonical) in LEGACY_TOOL_ALIASES {
            assert!(!BUILTIN_TOOLS.contains(legacy), "`{legacy}` is both legacy and current");
            // `SendUserMessage` exists only in KAIROS builds, so it is not in the public list.
            assert!(BUILTIN_TOOLS.contains(canonical) || *canonical == "SendUserMessage");
        }
    }

    #[test]
    fn canonical_names() {
        assert_eq!(canonical_tool_name("Task"), "Agent");
        assert_eq!(canonical_tool_name("KillShell"), "TaskStop");
        assert_eq!(canonical_tool_name("Bash"), "Bash");
        assert_eq!(canonical_tool_name("task"), "task");
    }
}

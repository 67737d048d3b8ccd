//! What a folder's trust changes: a session is untrusted unless `--trust` or the user's own
//! `.claude.json` says so, and untrusted it keeps inert what the repository itself declares —
//! plugins only its settings enable, its own MCP servers, its allow rules — and says so.

use capc_compiler::model::Scope;

/// Whether a plugin component (by its file, as the lock names it) needs a trusted folder:
/// Claude Code does not load a plugin enabled through a marketplace that only the
/// project's (or the local) settings declare, nor a project skills-folder plugin, in a folder
/// whose trust was not accepted (the lock marks those plugins `requires_trust`).
pub fn component_needs_trust(lock: &capc_compiler::model::Lock, path: &str) -> bool {
    lock.plugins
        .iter()
        .filter(|p| p.loaded && p.requires_trust)
        .any(|p| capc_compiler::lock::plugins::inside(path, &p.root))
}

/// What an untrusted folder keeps inert, when the lock has any of it: the project's and local
/// allow rules, the repository's own MCP servers. (`!` injections are refused turn by turn.)
pub fn untrusted_note(lock: &capc_compiler::model::Lock) -> Option<String> {
    let allow = lock
        .permissions
        .iter()
        .filter(|p| {
            p.behavior == capc_compiler::model::Behavior::Allow && matches!(p.scope, Scope::Project | Scope::Local)
        })
        .count();
    let servers = lock.mcp_servers.iter().filter(|s| matches!(s.scope, Scope::Project | Scope::Plugin)).count();
    (allow + servers > 0).then(|| {
        use capc_compiler::plural::count;
        let mut lost = Vec::new();
        if allow > 0 {
            lost.push(format!("{} {} not hold", count(allow, "project allow rule"), if allow == 1 { "does" } else { "do" }));
        }
        if servers > 0 {
            lost.push(format!("{} of its own will not start", count(servers, "MCP server")));
        }
        format!(
            "the folder is not trusted: {}, and no `!` injection runs (pass --trust, or accept the folder in Claude Code)",
            lost.join(", ")
        )
    })
}

/// A repository's own servers (its `.mcp.json`, its plugins') start only once the user trusts
/// the folder: capc runs nothing a repository asks for before that.
pub fn server_needs_trust(server: &capc_compiler::model::McpServer) -> bool {
    matches!(server.scope, Scope::Project | Scope::Plugin)
}

/// The stderr line of Claude Code for allow rules an untrusted folder ignores:
/// `ignored` holds each settings file with how many entries it had.
pub fn ignored_allow_notice(ignored: &[(String, usize)], root: &str, home: &str) -> Option<String> {
    let count: usize = ignored.iter().map(|(_, n)| n).sum();
    if count == 0 {
        return None;
    }
    let files: Vec<&str> = ignored.iter().map(|(path, _)| path.as_str()).collect();
    let entries = if count == 1 { "entry" } else { "entries" };
    Some(format!(
        "Ignoring {count} permissions.allow {entries} from {}: this workspace has not been trusted. Run Claude Code interactively here once and accept the trust dialog, or set projects[\"{root}\"].hasTrustDialogAccepted: true in {home}/.claude.json.",
        files.join(" and ")
    ))
}

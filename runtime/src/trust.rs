//! What a folder's trust changes: a session is untrusted unless `--trust` or the user's own
//! `.claude.json` says so, and untrusted it keeps inert what the repository itself declares —
//! plugins only its settings enable, its own MCP servers, its allow rules — and says so.

use capc_compiler::model::Scope;

/// Whether a plugin component (by its file, as the lock names it) needs a trusted folder:
/// Claude Code does not load a plugin enabled through a marketplace that only the
/// project's (or the local) settings declare, nor a project skills-folder plugin, in a folder
/// whose trust was not accepted (the lock marks those plugins `requires_trust`). A plugin the
/// lock calls not loaded still counts: the lock cannot free a component by that label.
pub(crate) fn component_needs_trust(lock: &capc_compiler::model::Lock, path: &str) -> bool {
    lock.plugins.iter().filter(|p| p.requires_trust).any(|p| capc_compiler::lock::plugins::inside(path, &p.root))
}

/// What an untrusted folder keeps inert, when the lock has any of it: the project's and local
/// allow rules, the repository's own MCP servers, and its `!` injections unless `run_untrusted`
/// (then those allowed run, as headless Claude Code runs them).
pub fn untrusted_note(lock: &capc_compiler::model::Lock, run_untrusted: bool) -> Option<String> {
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
            lost.push(format!(
                "{} {} not hold",
                count(allow, "project allow rule"),
                if allow == 1 { "does" } else { "do" }
            ));
        }
        if servers > 0 {
            lost.push(format!("{} of its own will not start", count(servers, "MCP server")));
        }
        let injections = if run_untrusted {
            "`!` injections run only as their own `allowed-tools` and your rules allow"
        } else {
            "no `!` injection runs"
        };
        format!(
            "the folder is not trusted: {}, and {injections} (pass --trust, or accept the folder in Claude Code)",
            lost.join(", ")
        )
    })
}

/// A repository's own servers (its `.mcp.json`, its plugins') start only once the user trusts
/// the folder: capc runs nothing a repository asks for before that.
pub(crate) fn server_needs_trust(server: &capc_compiler::model::McpServer) -> bool {
    matches!(server.scope, Scope::Project | Scope::Plugin)
}

/// The stderr line of Claude Code for allow rules an untrusted folder ignores:
/// `ignored` holds each settings file with how many entries it had.
pub(crate) fn ignored_allow_notice(ignored: &[(String, usize)], root: &str, home: &str) -> Option<String> {
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

/// Why a lock's MCP server does not start: its sources, read now, do not declare it as the lock
/// does (a lock is the repository's word, and only narrows what its sources say).
pub(crate) const NOT_DECLARED: &str = "not started: its sources do not declare it as the lock does (run `capc lock`; `capc session --verify` shows the difference)";

/// The lock a session runs: `claimed` (the lock file, the repository's word) with everything
/// that decides what runs taken from `fresh` (the lock its sources and the user's own files
/// give now, `None` when they cannot be read): the lock may narrow what the sources say, never
/// widen it. Per entry:
///
/// - an MCP server starts only when the sources declare it with the same name, file and launch
///   fields (command, arguments, environment, URL, headers…); its scope, approval, deny rule,
///   policy block and shadowing are the sources' (a deny, block, shadowing or `disabled` the
///   lock adds still holds); any other server is listed but never started ([`NOT_DECLARED`]);
/// - an allow rule holds only when the sources hold the same rule, in the same file and scope;
///   a deny or ask rule of either holds;
/// - a command's `allowed-tools` hold only as far as its file gives them, and its plugin is the
///   sources' when they name one;
/// - a command's scope is its sources' (a command they do not declare is managed only when
///   its file is in the managed folder); one in a folder outside the lock's own is kept only
///   when the sources declare it there;
/// - a plugin needs a trusted folder when either says so, or when the sources do not list it;
///   it is loaded (its root a folder `@` mentions may read) only when the sources load it;
/// - an instruction file outside the lock's folder is read only when the sources declare it
///   there;
/// - the settings rows (a turn's settings keys and `env`) and the LSP servers (the LSP tool)
///   are the sources'.
///
/// Also returns a note for each claim that was not taken, for stderr.
pub(crate) fn vouch(
    claimed: capc_compiler::model::Lock,
    fresh: Option<&capc_compiler::model::Lock>,
) -> (capc_compiler::model::Lock, Vec<String>) {
    use capc_compiler::model::{Approval, Behavior, McpServer};
    use std::collections::{HashMap, HashSet};
    // The claimed lock becomes the vouched one in place (a large tree's lock is not copied),
    // and entries are matched through maps of the fresh lock's, not by scanning it per entry.
    let mut lock = claimed;
    let mut notes = Vec::new();
    let launch = |s: &McpServer| {
        (
            s.transport,
            s.command.clone(),
            s.args.clone(),
            s.url.clone(),
            s.cwd.clone(),
            s.env.clone(),
            s.headers.clone(),
            s.headers_helper.clone(),
        )
    };
    let empty = Vec::new();
    let fresh_servers = fresh.map_or(&empty, |f| &f.mcp_servers);
    for server in &mut lock.mcp_servers {
        let declared = fresh_servers.iter().find(|f| {
            f.name == server.name && f.plugin == server.plugin && f.path == server.path && launch(f) == launch(server)
        });
        let Some(declared) = declared else {
            if server.blocked_by.is_none() {
                notes.push(format!(
                    "the lock's MCP server `{}` is not what its sources declare: it does not start",
                    server.name
                ));
                server.blocked_by = Some(NOT_DECLARED.to_string());
            }
            continue;
        };
        if declared.scope != server.scope
            || (declared.approval != server.approval && server.approval != Some(Approval::Disabled))
        {
            notes.push(format!(
                "the lock says MCP server `{}` is {}{}; its sources say {}{}: read as they say",
                server.name,
                server.scope.as_str(),
                server.approval.map(|a| format!(" ({})", a.as_str())).unwrap_or_default(),
                declared.scope.as_str(),
                declared.approval.map(|a| format!(" ({})", a.as_str())).unwrap_or_default(),
            ));
        }
        let narrowed = server.clone();
        *server = McpServer { shadows: narrowed.shadows.clone(), ..declared.clone() };
        if narrowed.approval == Some(Approval::Disabled) {
            server.approval = Some(Approval::Disabled);
        }
        server.denied_by = server.denied_by.take().or(narrowed.denied_by);
        server.blocked_by = server.blocked_by.take().or(narrowed.blocked_by);
        server.shadowed_by = server.shadowed_by.take().or(narrowed.shadowed_by);
    }
    let fresh_rules = fresh.map_or(&[][..], |f| &f.permissions[..]);
    let key = |p: &capc_compiler::model::Permission| (p.rule.clone(), p.behavior, p.scope, p.path.clone());
    let fresh_keys: HashSet<_> = fresh_rules.iter().map(key).collect();
    let claimed_keys: HashSet<_> = lock.permissions.iter().map(key).collect();
    lock.permissions.retain(|p| {
        let holds = p.behavior != Behavior::Allow || fresh_keys.contains(&key(p));
        if !holds {
            notes.push(format!(
                "the lock's allow rule `{}` ({}) is not in its sources: it does not hold",
                p.rule, p.path
            ));
        }
        holds
    });
    for f in fresh_rules.iter().filter(|f| f.behavior != Behavior::Allow) {
        if !claimed_keys.contains(&key(f)) {
            lock.permissions.push(f.clone());
        }
    }
    // A command's `allowed-tools` let its `!` injections run, and its plugin decides whether it
    // needs trust: both as its file says.
    let fresh_commands: HashMap<(&str, &str), &capc_compiler::model::Command> = fresh
        .map_or(&[][..], |f| &f.commands[..])
        .iter()
        .rev()
        .map(|f| ((f.name.as_str(), f.path.as_str()), f))
        .collect();
    for command in &mut lock.commands {
        let declared = fresh_commands.get(&(command.name.as_str(), command.path.as_str())).copied();
        let granted = |tool: &String| declared.is_some_and(|f| f.allowed_tools.contains(tool));
        if command.allowed_tools.iter().any(|tool| !granted(tool)) {
            notes.push(format!(
                "the lock's `allowed-tools` of `{}` are not what its file says: only those it says hold",
                command.name
            ));
            command.allowed_tools.retain(granted);
        }
        if let Some(declared) = declared {
            command.plugin = declared.plugin.clone();
        }
        // Its scope decides what policy spares (a managed skill keeps its `!` injections under
        // `disableSkillShellExecution`): the file's, as its sources say; a command they do not
        // declare is managed only when its file is in the managed folder.
        let scope = match declared {
            Some(f) => f.scope,
            None if command.scope == Scope::Managed && !command.path.starts_with("<managed>/") => Scope::Project,
            None => command.scope,
        };
        if scope != command.scope {
            notes.push(format!(
                "the lock says `{}` is {}; its sources say {}: read as they say",
                command.name,
                command.scope.as_str(),
                scope.as_str()
            ));
            command.scope = scope;
        }
    }
    // A command's file and folder are read (its body, hashed; a skill's other files, served as
    // resources): one in a folder outside the lock's own (the user's home, the managed folder,
    // an added or plugin folder) only when the sources declare it there.
    lock.commands.retain(|command| {
        let outside = command.path.starts_with("~/") || command.path.starts_with('<');
        let declared = fresh_commands.contains_key(&(command.name.as_str(), command.path.as_str()));
        if outside && !declared {
            notes.push(format!(
                "the lock's `{}` ({}) is not what its sources declare: it is not served",
                command.name, command.path
            ));
        }
        declared || !outside
    });
    // An instruction file is read and sent at the start of a turn: one in a folder outside the
    // lock's own (the user's home, the managed folder, an added folder) only when the sources
    // declare it there, as for commands.
    let fresh_instructions: HashSet<(&str, Option<&str>)> =
        fresh.map_or(&[][..], |f| &f.instructions[..]).iter().map(|f| (f.path.as_str(), f.key.as_deref())).collect();
    lock.instructions.retain(|i| {
        let outside = i.path.starts_with("~/") || i.path.starts_with('<');
        let declared = fresh_instructions.contains(&(i.path.as_str(), i.key.as_deref()));
        if outside && !declared {
            notes.push(format!(
                "the lock's instruction file `{}` is not what its sources declare: it is not read",
                i.path
            ));
        }
        declared || !outside
    });
    // A loaded plugin's LSP servers offer the model the LSP tool: only those the sources load.
    let fresh_lsp = fresh.map_or(&[][..], |f| &f.lsp_servers[..]);
    lock.lsp_servers.retain(|l| {
        let declared = fresh_lsp.iter().any(|f| f.name == l.name && f.plugin == l.plugin && f.path == l.path);
        if !declared {
            notes.push(format!(
                "the lock's LSP server `{}` ({}) is not what its sources load: it is left out",
                l.name, l.path
            ));
        }
        declared
    });
    // The settings rows give a turn its keys and `env` variables (which tools are offered,
    // which skills are listed or disabled, the listing's limits): the sources' rows, whatever
    // the lock file adds, relabels or leaves out; none when the sources cannot be read.
    let fresh_settings = fresh.map_or(&[][..], |f| &f.settings[..]);
    let same_row = |a: &capc_compiler::model::Setting, b: &capc_compiler::model::Setting| {
        a.key == b.key && a.value == b.value && a.scope == b.scope && a.path == b.path
    };
    for s in lock.settings.iter().filter(|s| !fresh_settings.iter().any(|f| same_row(f, s))) {
        notes.push(format!(
            "the lock's setting `{}` ({}, {}) is not in its sources: it is not taken",
            s.key,
            s.scope.as_str(),
            s.path
        ));
    }
    lock.settings = fresh_settings.to_vec();
    // A policy switch the sources set holds whether or not the lock file records it.
    for f in fresh.map_or(&[][..], |f| &f.policy[..]) {
        if !lock.policy.contains(f) {
            lock.policy.push(f.clone());
        }
    }
    let fresh_plugins = fresh.map_or(&[][..], |f| &f.plugins[..]);
    // A loaded plugin's root is a folder a session may read (`@` mentions): only one the
    // sources load is.
    for plugin in &mut lock.plugins {
        match fresh_plugins.iter().find(|f| f.name == plugin.name && f.root == plugin.root) {
            Some(f) => {
                plugin.requires_trust |= f.requires_trust;
                plugin.loaded &= f.loaded;
            }
            None => {
                plugin.requires_trust = true;
                if plugin.loaded {
                    notes.push(format!(
                        "the lock's plugin `{}` ({}) is not what its sources load: its folder is not read",
                        plugin.name, plugin.root
                    ));
                    plugin.loaded = false;
                }
            }
        }
    }
    (lock, notes)
}

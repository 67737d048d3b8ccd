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
    // The claimed lock becomes the vouched one in place (a large tree's lock is not copied),
    // and entries are matched through maps of the fresh lock's, not by scanning it per entry.
    let mut lock = claimed;
    let mut notes = Vec::new();
    vouch_servers(&mut lock.mcp_servers, fresh.map_or(&[][..], |f| &f.mcp_servers[..]), &mut notes);
    vouch_permissions(&mut lock.permissions, fresh.map_or(&[][..], |f| &f.permissions[..]), &mut notes);
    let fresh_commands = commands_by_name_and_path(fresh.map_or(&[][..], |f| &f.commands[..]));
    vouch_commands(&mut lock.commands, &fresh_commands, &mut notes);
    keep_declared_outside_commands(&mut lock.commands, &fresh_commands, &mut notes);
    keep_declared_outside_instructions(
        &mut lock.instructions,
        fresh.map_or(&[][..], |f| &f.instructions[..]),
        &mut notes,
    );
    keep_loaded_lsp_servers(&mut lock.lsp_servers, fresh.map_or(&[][..], |f| &f.lsp_servers[..]), &mut notes);
    take_fresh_settings(&mut lock.settings, fresh.map_or(&[][..], |f| &f.settings[..]), &mut notes);
    // A policy switch the sources set holds whether or not the lock file records it.
    for f in fresh.map_or(&[][..], |f| &f.policy[..]) {
        if !lock.policy.contains(f) {
            lock.policy.push(f.clone());
        }
    }
    vouch_plugins(&mut lock.plugins, fresh.map_or(&[][..], |f| &f.plugins[..]), &mut notes);
    (lock, notes)
}

/// Whether two MCP servers are launched alike: the same transport, command, arguments, URL,
/// folder, environment, headers and headers helper.
fn same_launch(a: &capc_compiler::model::McpServer, b: &capc_compiler::model::McpServer) -> bool {
    a.transport == b.transport
        && a.command == b.command
        && a.args == b.args
        && a.url == b.url
        && a.cwd == b.cwd
        && a.env == b.env
        && a.headers == b.headers
        && a.headers_helper == b.headers_helper
}

/// Each of the lock's MCP servers becomes the one the sources declare with the same name, file
/// and launch fields (keeping the lock's shadows and any deny, block, shadowing or `disabled` it
/// adds); one they do not declare is blocked with [`NOT_DECLARED`].
fn vouch_servers(
    servers: &mut [capc_compiler::model::McpServer],
    fresh: &[capc_compiler::model::McpServer],
    notes: &mut Vec<String>,
) {
    use capc_compiler::model::{Approval, McpServer};
    for server in servers {
        let declared = fresh.iter().find(|f| {
            f.name == server.name && f.plugin == server.plugin && f.path == server.path && same_launch(f, server)
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
}

/// Keeps an allow rule only when the sources hold the same rule in the same file and scope,
/// and adds the sources' deny and ask rules the lock leaves out.
fn vouch_permissions(
    permissions: &mut Vec<capc_compiler::model::Permission>,
    fresh: &[capc_compiler::model::Permission],
    notes: &mut Vec<String>,
) {
    use capc_compiler::model::Behavior;
    use std::collections::HashSet;
    let key = |p: &capc_compiler::model::Permission| (p.rule.clone(), p.behavior, p.scope, p.path.clone());
    let fresh_keys: HashSet<_> = fresh.iter().map(key).collect();
    let claimed_keys: HashSet<_> = permissions.iter().map(key).collect();
    permissions.retain(|p| {
        let holds = p.behavior != Behavior::Allow || fresh_keys.contains(&key(p));
        if !holds {
            notes.push(format!(
                "the lock's allow rule `{}` ({}) is not in its sources: it does not hold",
                p.rule, p.path
            ));
        }
        holds
    });
    for f in fresh.iter().filter(|f| f.behavior != Behavior::Allow) {
        if !claimed_keys.contains(&key(f)) {
            permissions.push(f.clone());
        }
    }
}

/// The sources' commands by name and file (the first of a repeated pair wins).
fn commands_by_name_and_path(
    fresh: &[capc_compiler::model::Command],
) -> std::collections::HashMap<(&str, &str), &capc_compiler::model::Command> {
    fresh.iter().rev().map(|f| ((f.name.as_str(), f.path.as_str()), f)).collect()
}

/// Narrows each command's `allowed-tools` to those its file gives, and takes its plugin and
/// scope from the sources.
fn vouch_commands(
    commands: &mut [capc_compiler::model::Command],
    fresh: &std::collections::HashMap<(&str, &str), &capc_compiler::model::Command>,
    notes: &mut Vec<String>,
) {
    // A command's `allowed-tools` let its `!` injections run, and its plugin decides whether it
    // needs trust: both as its file says.
    for command in commands {
        let declared = fresh.get(&(command.name.as_str(), command.path.as_str())).copied();
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
}

/// Drops a command in a folder outside the lock's own that the sources do not declare there.
fn keep_declared_outside_commands(
    commands: &mut Vec<capc_compiler::model::Command>,
    fresh: &std::collections::HashMap<(&str, &str), &capc_compiler::model::Command>,
    notes: &mut Vec<String>,
) {
    // A command's file and folder are read (its body, hashed; a skill's other files, served as
    // resources): one in a folder outside the lock's own (the user's home, the managed folder,
    // an added or plugin folder) only when the sources declare it there.
    commands.retain(|command| {
        let outside = command.path.starts_with("~/") || command.path.starts_with('<');
        let declared = fresh.contains_key(&(command.name.as_str(), command.path.as_str()));
        if outside && !declared {
            notes.push(format!(
                "the lock's `{}` ({}) is not what its sources declare: it is not served",
                command.name, command.path
            ));
        }
        declared || !outside
    });
}

/// Drops an instruction file in a folder outside the lock's own that the sources do not
/// declare there.
fn keep_declared_outside_instructions(
    instructions: &mut Vec<capc_compiler::model::Instruction>,
    fresh: &[capc_compiler::model::Instruction],
    notes: &mut Vec<String>,
) {
    // An instruction file is read and sent at the start of a turn: one in a folder outside the
    // lock's own (the user's home, the managed folder, an added folder) only when the sources
    // declare it there, as for commands.
    let fresh: std::collections::HashSet<(&str, Option<&str>)> =
        fresh.iter().map(|f| (f.path.as_str(), f.key.as_deref())).collect();
    instructions.retain(|i| {
        let outside = i.path.starts_with("~/") || i.path.starts_with('<');
        let declared = fresh.contains(&(i.path.as_str(), i.key.as_deref()));
        if outside && !declared {
            notes.push(format!(
                "the lock's instruction file `{}` is not what its sources declare: it is not read",
                i.path
            ));
        }
        declared || !outside
    });
}

/// Keeps only the LSP servers the sources load.
fn keep_loaded_lsp_servers(
    lsp_servers: &mut Vec<capc_compiler::model::LspServer>,
    fresh: &[capc_compiler::model::LspServer],
    notes: &mut Vec<String>,
) {
    // A loaded plugin's LSP servers offer the model the LSP tool: only those the sources load.
    lsp_servers.retain(|l| {
        let declared = fresh.iter().any(|f| f.name == l.name && f.plugin == l.plugin && f.path == l.path);
        if !declared {
            notes.push(format!(
                "the lock's LSP server `{}` ({}) is not what its sources load: it is left out",
                l.name, l.path
            ));
        }
        declared
    });
}

/// Replaces the lock's settings rows by the sources', with a note for each row they lack.
fn take_fresh_settings(
    settings: &mut Vec<capc_compiler::model::Setting>,
    fresh: &[capc_compiler::model::Setting],
    notes: &mut Vec<String>,
) {
    // The settings rows give a turn its keys and `env` variables (which tools are offered,
    // which skills are listed or disabled, the listing's limits): the sources' rows, whatever
    // the lock file adds, relabels or leaves out; none when the sources cannot be read.
    let same_row = |a: &capc_compiler::model::Setting, b: &capc_compiler::model::Setting| {
        a.key == b.key && a.value == b.value && a.scope == b.scope && a.path == b.path
    };
    for s in settings.iter().filter(|s| !fresh.iter().any(|f| same_row(f, s))) {
        notes.push(format!(
            "the lock's setting `{}` ({}, {}) is not in its sources: it is not taken",
            s.key,
            s.scope.as_str(),
            s.path
        ));
    }
    *settings = fresh.to_vec();
}

/// A plugin needs trust when either lock says so or the sources do not list it, and is loaded
/// only when the sources load it.
fn vouch_plugins(
    plugins: &mut [capc_compiler::model::Plugin],
    fresh: &[capc_compiler::model::Plugin],
    notes: &mut Vec<String>,
) {
    // A loaded plugin's root is a folder a session may read (`@` mentions): only one the
    // sources load is.
    for plugin in plugins {
        match fresh.iter().find(|f| f.name == plugin.name && f.root == plugin.root) {
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
}

//! `capc verify [PATH]`: the user's installed plugins and known marketplaces against a lock.

use capc_compiler::lock::write;
use capc_compiler::printable::escape;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `connect` is `Some(trust)` with `--connect`: the live MCP servers are compared with the
/// lock's tool surface too. Unless `installed_only`, the lock is first re-derived from its
/// folder as `capc lock --check` does: a lock that no longer matches the declarations fails
/// the verification (exit 1), since what is installed was compared with an outdated record.
pub(crate) fn run(path: &Path, user_dir: Option<PathBuf>, connect: Option<bool>, installed_only: bool) -> ExitCode {
    let file = if path.is_dir() { path.join(write::FILE_NAME) } else { path.to_path_buf() };
    // A regular file within the lock's size cap, never through a link (a named pipe would
    // hang the read), as a session reads it.
    let decoded = match write::read_decoded(&file) {
        Ok(Some(decoded)) => decoded,
        Ok(None) if path.is_dir() => {
            let path = escape(&path.to_string_lossy()).into_owned();
            eprintln!("error: no {} in {path}; run `capc lock {path}` first", write::FILE_NAME);
            return ExitCode::from(2);
        }
        Ok(None) => {
            eprintln!("error: cannot read {}: no such file", escape(&file.to_string_lossy()));
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("error: cannot read {}: {}", escape(&file.to_string_lossy()), escape(&e.to_string()));
            return ExitCode::from(2);
        }
    };
    let lock = match decoded {
        Ok(lock) => lock,
        Err(e) => {
            // The lock's own text may be quoted in the error.
            let first = e.lines().next().unwrap_or("unreadable");
            eprintln!("error: {}: {}", escape(&file.display().to_string()), escape(first));
            return ExitCode::from(2);
        }
    };
    let Some(home) = user_dir.or_else(|| std::env::var_os("HOME").map(PathBuf::from)) else {
        eprintln!("error: HOME is not set; name the home folder with --user-dir");
        return ExitCode::from(2);
    };
    if !home.is_dir() {
        eprintln!("error: `{}` is not a folder", escape(&home.to_string_lossy()));
        return ExitCode::from(2);
    }
    let stale = if installed_only { false } else { stale(&lock, &file, &home) };
    let report = match capc_compiler::verify::verify(&lock, &home) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("error: {}", escape(&e));
            return ExitCode::from(2);
        }
    };
    let text = capc_compiler::verify::to_text(&report, &file.display().to_string());
    if crate::output::write_stdout(&text).is_err() {
        return ExitCode::from(2);
    }
    let surface_drifts = match connect {
        None => false,
        Some(trust) => match surface(&lock, &file, &home, trust) {
            Ok(drifts) => drifts,
            Err(code) => return code,
        },
    };
    if report.drifts() || surface_drifts || stale {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Whether the lock no longer matches its folder's declarations: the lock `capc lock` would
/// write now, derived in memory (the folder's capc.toml and ignore files apply; the user scope
/// is `home` when the lock has one), compared with it. Says why on stderr. A lock written with
/// scopes `verify` is not given (`--plugin-dir`, `--add-dir`, `--managed-dir`) is not
/// compared, and a note says so.
fn stale(lock: &capc_compiler::model::Lock, file: &Path, home: &Path) -> bool {
    let folder = file.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let user_scope = lock.sources.iter().any(|s| s.path.starts_with("~/"));
    let roots = capc_runtime::loaded::Roots {
        root: std::path::absolute(folder).unwrap_or_else(|_| folder.to_path_buf()),
        user_dir: user_scope.then(|| home.to_path_buf()),
        ..capc_runtime::loaded::Roots::default()
    };
    let shown = escape(&file.display().to_string()).into_owned();
    let loaded = match capc_runtime::loaded::Loaded::from_file(file, roots) {
        Ok(loaded) => loaded,
        Err(e) => {
            eprintln!(
                "note: {shown} was not compared with the declarations ({}); `capc lock --check` with the flags it was written with compares it",
                capc_compiler::printable::escape_lines(&e.to_string())
            );
            return false;
        }
    };
    match loaded.verify() {
        Ok(()) => false,
        Err(e) => {
            let why = e.to_string();
            let why = why.lines().next().unwrap_or_default();
            eprintln!(
                "error: {shown} no longer matches the declarations of its folder, so what is installed was compared with an outdated lock: {}",
                escape(why.strip_prefix("the lock is stale: ").unwrap_or(why))
            );
            eprintln!(
                "help: `capc lock --check` shows the difference; `capc lock` rewrites the lock, to review and commit"
            );
            true
        }
    }
}

/// `capc verify --connect`: the lock's MCP servers, started as `capc lock --connect` starts
/// them, against its `[[mcp_tool]]`. Prints each difference; `Ok(true)` when there is one.
fn surface(lock: &capc_compiler::model::Lock, file: &Path, home: &Path, trust: bool) -> Result<bool, ExitCode> {
    use capc_compiler::diff::{Section, Side};
    let folder = file.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let roots = capc_runtime::loaded::Roots {
        root: std::path::absolute(folder).unwrap_or_else(|_| folder.to_path_buf()),
        user_dir: Some(home.to_path_buf()),
        managed_dir: None,
        add_dirs: Vec::new(),
        plugin_dirs: Vec::new(),
        add_dir_instructions: false,
    };
    if !trust && !roots.user_trusts() {
        eprintln!(
            "error: `capc verify --connect` starts the folder's own MCP servers, and `{}` is not trusted: pass --trust, or accept the folder in Claude Code",
            escape(&folder.display().to_string())
        );
        return Err(ExitCode::from(2));
    }
    // The servers started are the ones the sources declare, as a session starts them: the lock
    // file is the repository's word, which may narrow what its sources say, never widen it.
    let loaded = match capc_runtime::loaded::Loaded::from_file(file, roots) {
        Ok(loaded) => loaded,
        Err(e) => {
            eprintln!("error: {}", capc_compiler::printable::escape_lines(&e.to_string()));
            return Err(ExitCode::from(2));
        }
    };
    for note in &loaded.unvouched {
        eprintln!("capc: {}", escape(note));
    }
    let settings = capc_runtime::connect::Settings::from_env(|name| std::env::var(name).ok());
    let listed = match capc_runtime::connect::surface::list(&loaded.lock, true, settings) {
        Ok(listed) => listed,
        Err(e) => {
            eprintln!("error: cannot start the MCP connections: {}", escape(&e.to_string()));
            return Err(ExitCode::from(2));
        }
    };
    for (server, why) in &listed.reasons {
        eprintln!(
            "warning: MCP server `{}` did not connect: {}",
            escape(server),
            capc_compiler::printable::escape_lines(why)
        );
    }
    let mut live = lock.clone();
    live.mcp_tools = listed.tools;
    live.mcp_failed = listed.failed;
    let side = |arg: &str, read_as: &str| Side {
        arg: arg.to_string(),
        read_as: read_as.to_string(),
        commit: None,
        errors: 0,
        hidden: Vec::new(),
        committed_lock: None,
    };
    let report =
        capc_compiler::diff::diff(lock, &live, side(&file.display().to_string(), "lock"), side("live", "live"));
    let changes: Vec<_> = report.changes.iter().filter(|c| c.section == Section::McpTool).collect();
    let mut out = String::new();
    let servers: std::collections::BTreeSet<&str> = live.mcp_tools.iter().map(|t| t.server.as_str()).collect();
    if changes.is_empty() {
        out.push_str(&format!(
            "MCP tool surface: the {} of {} match the lock\n",
            capc_compiler::plural::count(live.mcp_tools.len(), "tool"),
            capc_compiler::plural::count(servers.len(), "server")
        ));
    } else {
        out.push_str(&format!(
            "MCP tool surface: {} from the lock\n",
            capc_compiler::plural::count(changes.len(), "difference")
        ));
        for c in &changes {
            let what = c.what.as_deref().map(|w| format!(" ({w})")).unwrap_or_default();
            out.push_str(&format!("  {:<8} {}{what}\n", c.class.as_str(), escape(&c.subject)));
            for f in &c.fields {
                let shown = |v: &Option<String>| {
                    v.as_deref().map(|v| escape(v).into_owned()).unwrap_or_else(|| "(none)".into())
                };
                out.push_str(&format!("           {}: {} -> {}\n", f.field, shown(&f.old), shown(&f.new)));
            }
            for why in &c.escalations {
                out.push_str(&format!("           escalation: {}\n", escape(why)));
            }
        }
    }
    if crate::output::write_stdout(&out).is_err() {
        return Err(ExitCode::from(2));
    }
    let names = capc_compiler::surface::name_errors(&live.mcp_tools);
    for line in &names {
        eprintln!("error: {line}");
    }
    Ok(!changes.is_empty() || !names.is_empty())
}

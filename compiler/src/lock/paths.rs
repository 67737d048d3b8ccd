//! Where a lock's paths may point. A lock is committed with a repository, and a cloned
//! repository is untrusted: an edited lock must not make its reader open `/etc/shadow` or
//! `../outside`. So every path a lock holds is checked before anything is read by it:
//! relative, normalized (no `.`, `..` or empty segment) and inside the lock's folder, or under
//! one of the scope prefixes `capc lock` writes — `~/…` (only when a user folder is given),
//! `<managed>/…` (a managed folder), `<add-dir N>/…` (the N-th `--add-dir`) and
//! `<plugin-dir N>/…` (the N-th `--plugin-dir`, when it lies outside the locked folder).

use crate::model::{Lock, LspServer, Monitor, OutputStyle, PluginBin, Ref};

/// The extra folders the reader of a lock was given (a path under a scope that was not given
/// is refused rather than looked up inside the lock's folder).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Given {
    pub user_dir: bool,
    pub managed_dir: bool,
    pub add_dirs: usize,
    pub plugin_dirs: usize,
}

/// Checks every path of `lock`; the error names the entry and says what is wrong.
pub fn check(lock: &Lock, given: Given) -> Result<(), String> {
    let file = |entry: String, path: &str| check_path(path, given, false).map_err(|why| format!("{entry}: {why}"));
    let folder = |entry: String, path: &str| check_path(path, given, true).map_err(|why| format!("{entry}: {why}"));
    let refs = |entry: &str, by: &Option<Box<Ref>>, hidden: &[Ref]| -> Result<(), String> {
        for r in by.as_deref().into_iter().chain(hidden) {
            if let Some(path) = &r.path {
                file(format!("{entry} (its reference to `{}`)", r.name), path)?;
            }
        }
        Ok(())
    };
    for s in &lock.sources {
        file("`[[source]]`".to_string(), &s.path)?;
    }
    for p in &lock.plugins {
        folder(format!("`[[plugin]]` `{}` `root`", p.name), &p.root)?;
    }
    for c in &lock.commands {
        let entry = format!("`[[command]]` `{}`", c.name);
        file(entry.clone(), &c.path)?;
        if let Some(d) = &c.dynamic {
            file(format!("{entry} `dynamic`"), d)?;
        }
        refs(&entry, &c.shadowed_by, &c.shadows)?;
    }
    for a in &lock.agents {
        let entry = format!("`[[agent]]` `{}`", a.name);
        file(entry.clone(), &a.path)?;
        refs(&entry, &a.shadowed_by, &a.shadows)?;
    }
    for s in &lock.mcp_servers {
        let entry = format!("`[[mcp_server]]` `{}`", s.name);
        file(entry.clone(), &s.path)?;
        refs(&entry, &s.shadowed_by, &s.shadows)?;
    }
    for h in &lock.hooks {
        file(format!("`[[hook]]` `{}`", h.event), &h.path)?;
    }
    for p in &lock.permissions {
        file(format!("`[[permission]]` `{}`", p.rule), &p.path)?;
    }
    components(&file, "", (&lock.monitors, &lock.lsp_servers, &lock.plugin_bins, &lock.output_styles))?;
    for m in &lock.marketplace_plugins {
        let entry = format!("`[[marketplace_plugin]]` `{}`", m.id);
        file(entry.clone(), &m.marketplace)?;
        if let Some(root) = &m.root {
            folder(format!("{entry} `root`"), root)?;
        }
        for c in &m.commands {
            file(format!("{entry} command `{}`", c.name), &c.path)?;
            refs(&entry, &c.shadowed_by, &c.shadows)?;
        }
        for a in &m.agents {
            file(format!("{entry} agent `{}`", a.name), &a.path)?;
            refs(&entry, &a.shadowed_by, &a.shadows)?;
        }
        for s in &m.mcp_servers {
            file(format!("{entry} MCP server `{}`", s.name), &s.path)?;
            refs(&entry, &s.shadowed_by, &s.shadows)?;
        }
        for h in &m.hooks {
            file(format!("{entry} hook `{}`", h.event), &h.path)?;
        }
        components(&file, &format!("{entry} "), (&m.monitors, &m.lsp_servers, &m.plugin_bins, &m.output_styles))?;
    }
    Ok(())
}

type Components<'a> = (&'a [Monitor], &'a [LspServer], &'a [PluginBin], &'a [OutputStyle]);

/// The paths of the monitors, LSP servers, `bin/` files and output styles of a lock or of one
/// of its marketplace plugins (`within`, the entry's name and a space, or nothing).
fn components(
    file: &dyn Fn(String, &str) -> Result<(), String>,
    within: &str,
    (monitors, lsp_servers, bins, styles): Components<'_>,
) -> Result<(), String> {
    for m in monitors {
        file(format!("{within}`[[monitor]]` `{}`", m.name), &m.path)?;
    }
    for l in lsp_servers {
        file(format!("{within}`[[lsp_server]]` `{}`", l.name), &l.path)?;
    }
    for b in bins {
        file(format!("{within}`[[plugin_bin]]` `{}`", b.name), &b.path)?;
    }
    for o in styles {
        file(format!("{within}`[[output_style]]` `{}`", o.name), &o.path)?;
    }
    Ok(())
}

/// One path (`folder`: the scope's root itself, `""` or `~/`, is allowed).
pub fn check_path(path: &str, given: Given, folder: bool) -> Result<(), String> {
    let shown = crate::printable::escape(path);
    let (rest, scope_given) = if let Some(rest) = path.strip_prefix("~/") {
        (rest, given.user_dir.then_some(()).ok_or("`~/` paths need the user folder (`--user-dir`)"))
    } else if let Some(rest) = path.strip_prefix("<managed>/") {
        (rest, given.managed_dir.then_some(()).ok_or("`<managed>/` paths need the managed folder (`--managed-dir`)"))
    } else if let Some(rest) = path.strip_prefix("<add-dir ") {
        numbered(rest, &shown, "add-dir", given.add_dirs)?
    } else if let Some(rest) = path.strip_prefix("<plugin-dir ") {
        numbered(rest, &shown, "plugin-dir", given.plugin_dirs)?
    } else {
        (path, Ok(()))
    };
    if let Err(why) = scope_given {
        return Err(format!("path `{shown}`: {why}"));
    }
    if rest.is_empty() && folder {
        return Ok(());
    }
    if rest.starts_with('/') {
        return Err(format!("path `{shown}` is absolute; a lock's paths are relative to its folder"));
    }
    if rest.contains('\0') {
        return Err(format!("path `{shown}` holds a NUL byte"));
    }
    // On Windows `\` and a drive letter would leave the folder too.
    if cfg!(windows) && (rest.contains('\\') || rest.contains(':')) {
        return Err(format!("path `{shown}` uses `\\` or a drive; a lock's paths use `/` only"));
    }
    for segment in rest.split('/') {
        match segment {
            "" => return Err(format!("path `{shown}` has an empty segment")),
            "." | ".." => {
                return Err(format!("path `{shown}` has a `{segment}` segment; a lock's paths are normalized"))
            }
            _ => {}
        }
    }
    Ok(())
}

/// The rest of a `<FLAG N>/…` path after its `FLAG ` (`rest`), and whether the N-th of the
/// `count` folders given with `--FLAG` exists.
fn numbered<'p>(
    rest: &'p str,
    shown: &str,
    flag: &str,
    count: usize,
) -> Result<(&'p str, Result<(), &'static str>), String> {
    let Some((n, rest)) = rest.split_once(">/") else {
        return Err(format!("path `{shown}` is not a `<{flag} N>/…` path"));
    };
    let n: usize = n.parse().map_err(|_| format!("path `{shown}` names no `--{flag}` by number"))?;
    let missing = if flag == "add-dir" {
        "the `--add-dir` it names was not given"
    } else {
        "the `--plugin-dir` it names was not given"
    };
    Ok((rest, (1..=count).contains(&n).then_some(()).ok_or(missing)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn verdict(path: &str, given: Given) -> String {
        match check_path(path, given, false) {
            Ok(()) => "ok".to_string(),
            Err(why) => why,
        }
    }

    #[test]
    fn relative_normalized_paths_inside_the_folder() {
        let none = Given::default();
        for ok in [".claude/settings.json", "a/b/SKILL.md", "..foo/x", "a/.hidden"] {
            assert_eq!(verdict(ok, none), "ok", "{ok}");
        }
        assert_eq!(
            verdict("/etc/hostname", none),
            "path `/etc/hostname` is absolute; a lock's paths are relative to its folder"
        );
        assert_eq!(
            verdict("../outside/x", none),
            "path `../outside/x` has a `..` segment; a lock's paths are normalized"
        );
        assert_eq!(verdict("a/./b", none), "path `a/./b` has a `.` segment; a lock's paths are normalized");
        assert_eq!(verdict("a//b", none), "path `a//b` has an empty segment");
        assert_eq!(verdict("", none), "path `` has an empty segment");
        assert_eq!(verdict("a/", none), "path `a/` has an empty segment");
        assert_eq!(verdict("a\u{1b}[31m/b", none), "ok", "odd but relative");
    }

    #[test]
    fn scope_prefixes_need_their_folder() {
        let none = Given::default();
        let all = Given { user_dir: true, managed_dir: true, add_dirs: 2, plugin_dirs: 2 };
        assert_eq!(verdict("~/.claude/settings.json", all), "ok");
        assert_eq!(
            verdict("~/.claude/settings.json", none),
            "path `~/.claude/settings.json`: `~/` paths need the user folder (`--user-dir`)"
        );
        assert_eq!(
            verdict("~//etc/shadow", all),
            "path `~//etc/shadow` is absolute; a lock's paths are relative to its folder"
        );
        assert_eq!(verdict("~/../x", all), "path `~/../x` has a `..` segment; a lock's paths are normalized");
        assert_eq!(verdict("<managed>/managed-settings.json", all), "ok");
        assert!(verdict("<managed>/x", none).contains("--managed-dir"));
        assert_eq!(verdict("<add-dir 2>/.claude/skills/a/SKILL.md", all), "ok");
        assert_eq!(verdict("<add-dir 3>/x", all), "path `<add-dir 3>/x`: the `--add-dir` it names was not given");
        assert_eq!(verdict("<add-dir 0>/x", all), "path `<add-dir 0>/x`: the `--add-dir` it names was not given");
        assert_eq!(verdict("<add-dir x>/y", all), "path `<add-dir x>/y` names no `--add-dir` by number");
        // A scope's root is a folder path (a plugin at the root of the lock's folder).
        assert_eq!(check_path("", none, true), Ok(()));
        assert_eq!(check_path("~/", all, true), Ok(()));
        assert!(check_path("~/", none, true).is_err());
        assert_eq!(check_path("<plugin-dir 2>/", all, true), Ok(()));
        assert_eq!(verdict("<plugin-dir 1>/skills/a/SKILL.md", all), "ok");
        assert_eq!(
            verdict("<plugin-dir 1>/x", none),
            "path `<plugin-dir 1>/x`: the `--plugin-dir` it names was not given"
        );
        assert_eq!(
            verdict("<plugin-dir 1>/../x", all),
            "path `<plugin-dir 1>/../x` has a `..` segment; a lock's paths are normalized"
        );
        assert_eq!(verdict("<plugin-dir x>/y", all), "path `<plugin-dir x>/y` names no `--plugin-dir` by number");
    }

    #[test]
    fn the_error_names_the_entry() {
        let mut lock = crate::lock::resolve::empty_lock();
        lock.commands.push(crate::model::Command {
            name: "deploy".to_string(),
            path: "/etc/hostname".to_string(),
            ..Default::default()
        });
        assert_eq!(
            check(&lock, Given::default()),
            Err("`[[command]]` `deploy`: path `/etc/hostname` is absolute; a lock's paths are relative to its folder"
                .to_string())
        );
        // A marketplace plugin's entries are checked as well, though no session reads them.
        let mut lock = crate::lock::resolve::empty_lock();
        lock.marketplace_plugins.push(crate::model::MarketplacePlugin {
            id: "lint@acme".to_string(),
            marketplace: ".claude-plugin/marketplace.json".to_string(),
            root: Some("plugins/lint".to_string()),
            hooks: vec![crate::model::Hook {
                event: "Stop".to_string(),
                path: "../x".to_string(),
                ..Default::default()
            }],
            ..Default::default()
        });
        assert_eq!(
            check(&lock, Given::default()),
            Err("`[[marketplace_plugin]]` `lint@acme` hook `Stop`: path `../x` has a `..` segment; a lock's paths are normalized"
                .to_string())
        );
    }
}

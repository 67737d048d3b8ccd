//! `capc verify`: compares what a user has installed with what a repository locked.
//!
//! Claude Code keeps its installed plugins in `~/.claude/plugins/installed_plugins.json`
//! (`{"version": 2, "plugins": {"name@marketplace": [{scope, installPath, version,
//! installedAt, lastUpdated, gitCommitSha?, projectPath?}]}}`) and the marketplaces it knows
//! in `~/.claude/plugins/known_marketplaces.json` (`{name: {source: {source, repo|url|path,
//! ref?}, installLocation, lastUpdated}}`); each installed copy is a folder of the plugin
//! cache (`~/.claude/plugins/cache/<marketplace>/<plugin>/<version>/`). These formats were read
//! from what Claude Code writes (`tests/verify/record.sh` records them). Nothing
//! else of the home is read.
//!
//! For every plugin of the lock (a folder with a marketplace id, or a marketplace entry's
//! remote source pinned under `[[pin]]`) that is installed: the version must be the locked
//! one, the commit the pinned one, and the installed copy's declaration files — found and
//! hashed as `capc lock` finds and hashes a plugin's files — the locked sources under the
//! plugin's folder, file by file. For every marketplace the lock declares (`extraKnownMarketplaces`)
//! that is known: the same source.

use crate::model::{Lock, PinOf};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Debug, Deserialize)]
struct InstalledFile {
    #[serde(default)]
    plugins: BTreeMap<String, Vec<Install>>,
}

/// One installation of a plugin, as `installed_plugins.json` records it.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Install {
    #[serde(default)]
    scope: String,
    install_path: String,
    #[serde(default)]
    version: Option<String>,
    #[serde(default)]
    git_commit_sha: Option<String>,
    #[serde(default)]
    project_path: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Known {
    #[serde(default)]
    source: serde_json::Value,
}

/// What was compared, and every difference.
#[derive(Debug, Default)]
pub struct Verification {
    /// The folder read: `<home>/.claude/plugins`.
    pub(crate) plugins_dir: PathBuf,
    pub marketplaces: Vec<Compared>,
    pub plugins: Vec<Compared>,
    /// Locked plugins and marketplaces the home does not have.
    pub(crate) not_installed: Vec<String>,
}

/// One installed plugin or known marketplace, compared.
#[derive(Debug, Default)]
pub struct Compared {
    pub name: String,
    /// `1.2.0 (user)`, the source of a marketplace.
    pub detail: String,
    /// Files compared and found equal.
    pub(crate) files_equal: usize,
    pub drift: Vec<Drift>,
}

/// One difference: what, and its value on each side.
#[derive(Debug, PartialEq, Eq)]
pub struct Drift {
    /// `version`, `commit`, `source`, `copy`, or a file of the plugin.
    pub what: String,
    pub installed: Option<String>,
    pub locked: Option<String>,
}

impl Verification {
    pub fn drifts(&self) -> bool {
        self.marketplaces.iter().chain(&self.plugins).any(|c| !c.drift.is_empty())
    }
}

/// Reads `installed_plugins.json` and `known_marketplaces.json` under `home/.claude/plugins`
/// and compares them, and the installed copies, with `lock`. Errors are files that exist but
/// cannot be read.
pub fn verify(lock: &Lock, home: &Path) -> Result<Verification, String> {
    let plugins_dir = home.join(".claude/plugins");
    let installed: InstalledFile =
        read_json(&plugins_dir.join("installed_plugins.json"))?.unwrap_or(InstalledFile { plugins: BTreeMap::new() });
    let known: BTreeMap<String, Known> = read_json(&plugins_dir.join("known_marketplaces.json"))?.unwrap_or_default();
    let mut report = Verification { plugins_dir: plugins_dir.clone(), ..Verification::default() };

    for pin in lock.pins.iter().filter(|p| p.of == PinOf::Marketplace) {
        let Some(k) = known.get(&pin.name) else {
            report.not_installed.push(format!("marketplace `{}`", pin.name));
            continue;
        };
        let installed = source_text(&k.source);
        let locked = format!("{} {}", pin.via, pin.package)
            + &pin.requested.as_deref().map(|r| format!(" ({r})")).unwrap_or_default();
        let mut checked = Compared { name: pin.name.clone(), detail: installed.clone(), ..Compared::default() };
        if installed != locked {
            checked.drift.push(Drift { what: "source".to_string(), installed: Some(installed), locked: Some(locked) });
        }
        report.marketplaces.push(checked);
    }

    // Every plugin the lock knows by a marketplace id, with its version, commit and files.
    let mut locked: BTreeMap<String, Locked<'_>> = BTreeMap::new();
    for p in lock.plugins.iter().filter(|p| !p.id.ends_with("@inline") && !p.id.ends_with("@skills-dir")) {
        let entry = locked.entry(p.id.clone()).or_default();
        if entry.root.is_none() {
            entry.root = Some(&p.root);
            entry.version = p.version.as_deref();
        }
    }
    for pin in lock.pins.iter().filter(|p| p.of == PinOf::Plugin) {
        let entry = locked.entry(pin.name.clone()).or_default();
        entry.commit = pin.exact.as_deref().filter(|s| crate::provenance::is_commit_sha(s));
        entry.remote = Some(format!("{} {}", pin.via, pin.package));
    }
    for (id, l) in &locked {
        let Some(installs) = installed.plugins.get(id).filter(|i| !i.is_empty()) else {
            report.not_installed.push(format!("plugin `{id}`"));
            continue;
        };
        for install in installs {
            report.plugins.push(compare_plugin(id, l, install, lock, home));
        }
    }
    Ok(report)
}

#[derive(Debug, Default)]
struct Locked<'a> {
    root: Option<&'a str>,
    version: Option<&'a str>,
    commit: Option<&'a str>,
    remote: Option<String>,
}

fn compare_plugin(id: &str, l: &Locked<'_>, install: &Install, lock: &Lock, home: &Path) -> Compared {
    let scope = match &install.project_path {
        Some(project) => format!("{}, {project}", install.scope),
        None => install.scope.clone(),
    };
    let mut checked = Compared {
        name: id.to_string(),
        detail: format!("{} ({scope})", install.version.as_deref().unwrap_or("no version")),
        ..Compared::default()
    };
    if let (Some(locked), installed) = (l.version, install.version.as_deref()) {
        if installed != Some(locked) {
            checked.drift.push(Drift {
                what: "version".to_string(),
                installed: installed.map(str::to_string),
                locked: Some(locked.to_string()),
            });
        }
    }
    if let Some(locked) = l.commit {
        if install.git_commit_sha.as_deref() != Some(locked) {
            checked.drift.push(Drift {
                what: "commit".to_string(),
                installed: install.git_commit_sha.clone(),
                locked: Some(format!("{locked} ({})", l.remote.as_deref().unwrap_or("pinned source"))),
            });
        }
    }
    let Some(root) = l.root else { return checked };
    let Some(copy) = install_folder(&install.install_path, home) else {
        checked.drift.push(Drift {
            what: "copy".to_string(),
            installed: Some(format!("{} is missing", install.install_path)),
            locked: Some(root.to_string()),
        });
        return checked;
    };
    let prefix = crate::lock::plugins::prefix(root);
    let locked_files: BTreeMap<&str, &str> = lock
        .sources
        .iter()
        .filter_map(|s| Some((s.path.strip_prefix(prefix.as_str())?, s.sha256.as_str())))
        .filter(|(p, _)| !p.starts_with("~/") && !p.starts_with('<'))
        .collect();
    // The copy is read as a `--plugin-dir` folder, which ignores a marketplace.json in it; a
    // copy that carries its marketplace (an entry with `source: "./"`) is read with it, so the
    // entry's component paths apply as they did when it was locked.
    let carries_marketplace = copy.join(".claude-plugin/marketplace.json").is_file();
    let options = crate::Options {
        root: copy.clone(),
        plugin_dirs: if carries_marketplace { Vec::new() } else { vec![copy.clone()] },
        skip_hashes: false,
        keeps: crate::check::Keeps::Lock,
        ..crate::Options::default()
    };
    let installed_files: BTreeMap<String, String> = match crate::check(&options) {
        Ok(mut c) => std::mem::take(&mut c.sources).into_iter().map(|s| (s.path, s.sha256)).collect(),
        Err(e) => {
            checked.drift.push(Drift { what: "copy".to_string(), installed: Some(e.to_string()), locked: None });
            return checked;
        }
    };
    let mut files: Vec<&str> = locked_files.keys().copied().chain(installed_files.keys().map(String::as_str)).collect();
    files.sort_unstable();
    files.dedup();
    for file in files {
        let (i, l) = (installed_files.get(file).map(String::as_str), locked_files.get(file).copied());
        if i == l {
            checked.files_equal += 1;
            continue;
        }
        let hash = |h: Option<&str>| h.map(|h| format!("sha256 {}", h.get(..12).unwrap_or(h)));
        checked.drift.push(Drift { what: file.to_string(), installed: hash(i), locked: hash(l) });
    }
    checked
}

/// The installed copy: `installPath` as written, or, when that folder does not exist (a home
/// moved or restored elsewhere), the same place under this home's `.claude/plugins/`.
fn install_folder(install_path: &str, home: &Path) -> Option<PathBuf> {
    let written = PathBuf::from(install_path);
    if written.is_dir() {
        return Some(written);
    }
    let (_, below) = install_path.split_once("/.claude/plugins/")?;
    let rebased = home.join(".claude/plugins").join(below);
    rebased.is_dir().then_some(rebased)
}

/// A marketplace source as `via package (ref)`, in the lock's words.
fn source_text(source: &serde_json::Value) -> String {
    let field = |k: &str| source.get(k).and_then(serde_json::Value::as_str);
    let via = field("source").unwrap_or("unknown");
    let package =
        field("repo").or_else(|| field("url")).or_else(|| field("path")).or_else(|| field("name")).unwrap_or("");
    let requested = field("ref").map(|r| format!(" ({r})")).unwrap_or_default();
    format!("{via} {package}{requested}")
}

/// A JSON file, `None` when it does not exist.
fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Option<T>, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text).map(Some).map_err(|e| format!("cannot read {}: {e}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

/// The report for people.
///
/// Names, versions, paths and sources come from the lock and from the installed files, so
/// each passes `printable::escape` on its way out.
pub fn to_text(report: &Verification, lock_label: &str) -> String {
    use crate::printable::escape;
    use std::fmt::Write as _;
    let mut out = String::new();
    let plugins_dir = report.plugins_dir.display().to_string();
    let _ = writeln!(out, "capc verify: {} against {}", escape(lock_label), escape(&plugins_dir));
    for (title, list) in [("marketplaces", &report.marketplaces), ("plugins", &report.plugins)] {
        if list.is_empty() {
            continue;
        }
        let _ = writeln!(out, "{title}:");
        for c in list {
            let status = if c.drift.is_empty() { "ok   " } else { "DRIFT" };
            let files = match c.files_equal {
                0 => String::new(),
                n => format!(", {} equal", crate::plural::count(n, "file")),
            };
            let _ = writeln!(out, "  {status}  {}  {}{files}", escape(&c.name), escape(&c.detail));
            for d in &c.drift {
                let line = match (&d.installed, &d.locked) {
                    (Some(i), Some(l)) => format!("installed {i}, locked {l}"),
                    (Some(i), None) => format!("installed {i}, not in the lock"),
                    (None, Some(l)) => format!("locked {l}, not installed"),
                    (None, None) => "differs".to_string(),
                };
                let _ = writeln!(out, "           {}: {}", escape(&d.what), escape(&line));
            }
        }
    }
    if !report.not_installed.is_empty() {
        let _ = writeln!(out, "not installed here: {}", escape(&report.not_installed.join(", ")));
    }
    let count = |list: &[Compared], drift: bool| list.iter().filter(|c| c.drift.is_empty() != drift).count();
    let _ = writeln!(
        out,
        "{} of {} installed plugins and {} of {} known marketplaces drift from the lock",
        count(&report.plugins, true),
        report.plugins.len(),
        count(&report.marketplaces, true),
        report.marketplaces.len()
    );
    out
}

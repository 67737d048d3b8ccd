//! `capc.toml` (or `.capc.toml`): a team's configuration, committed beside the declarations.
//!
//! It is found as ruff and taplo find theirs: in the checked folder, then in each folder above
//! it, stopping after the repository's top (the first folder holding `.git`). The search stops
//! at the repository so that a check gives the same answer in every clone: a `capc.toml` in
//! someone's home folder never changes a repository's report. Outside a repository it climbs
//! only through what the user owns: it stops after the user's home folder, before a folder
//! another user owns (`/tmp`, `/home`, a shared folder), and skips a file another user owns, so
//! a `capc.toml` planted in a shared folder above never turns rules off ([`find`]).
//!
//! Every key is optional and an unknown key, rule id or version is an error (exit 2), so a
//! typo never silently turns a rule back on. Paths are relative to the configuration file's
//! folder. Flags given on the command line override the file; [`Config`] keeps, for each value,
//! where it came from (`capc rules --config` prints it).

use crate::diagnostic::{did_you_mean, LineIndex, Severity};
use crate::rules;
use crate::walk;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The names a configuration file may have, in the order they are looked for.
pub const FILE_NAMES: [&str; 2] = ["capc.toml", ".capc.toml"];

/// A configuration file larger than this is refused.
pub const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// capc.toml as written.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct File {
    /// The Claude Code version whose behaviour the rules follow. capc follows exactly one
    /// version; any other value is an error, so a repository that pins a version is
    /// told when its capc no longer matches it.
    pub claude_code: Option<String>,
    /// Only these rules report (rule ids, as `capc rules` lists them). Without it, every rule
    /// reports.
    pub select: Option<Vec<String>>,
    /// These rules never report, even when `select` names them.
    #[serde(default)]
    pub ignore: Vec<String>,
    /// The severity of a rule: `"error"`, `"warning"`, `"info"`, or `"off"` to turn it off.
    #[serde(default)]
    pub rules: BTreeMap<String, Level>,
    /// Files and folders capc never reads, in gitignore syntax, relative to this file's folder
    /// (`"backups/"`, `"/scratch/**/*.json"`).
    #[serde(default)]
    pub exclude: Vec<String>,
    /// Rules whose findings are suppressed in the files a pattern matches (gitignore syntax,
    /// relative to this file's folder): `"backups/**" = ["unknown-field"]`; `"ALL"` stands for
    /// every rule, as in ruff.
    #[serde(default)]
    pub per_path_ignores: BTreeMap<String, Vec<String>>,
    /// Leave out what `.gitignore` (inside a git repository, with git's excludes) and `.ignore`
    /// files name (default `true`; `--no-ignore` turns it off for one run).
    pub respect_ignore_files: Option<bool>,
    /// A user scope: a home folder whose `.claude/` holds skills, commands, agents and settings
    /// (`--user-dir`).
    pub user_dir: Option<String>,
    /// A managed scope: the folder of `managed-settings.json` (`--managed-dir`).
    pub managed_dir: Option<String>,
    /// Folders whose `.claude/` skills, commands and agents are read, as `claude --add-dir`
    /// reads them (`--add-dir`).
    pub add_dir: Option<Vec<String>>,
    /// Plugin folders loaded as `claude --plugin-dir` loads them, in order (`--plugin-dir`).
    pub plugin_dir: Option<Vec<String>>,
    /// A ceiling on the tokens the folder adds to every turn before the conversation: the Skill
    /// listing as sent and the MCP tools sent up front, as `capc ls --budget` sums them for each
    /// context window of `[listing-budget]` (rule `max-context-tokens`). No ceiling without it.
    pub max_context_tokens: Option<u64>,
    /// The Skill listing's budget (rule `listing-budget`, `capc ls --budget`).
    pub listing_budget: Option<ListingBudgetFile>,
}

/// `[listing-budget]` as written.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ListingBudgetFile {
    /// The context windows the team's sessions run with, each a number of tokens or
    /// `{ tokens = N, bytes-per-token = B }` (Claude Code counts 3 bytes per token for its
    /// current models, 4 for older ones). Default: `[1000000]`, the window of Claude Code's default model.
    pub context_windows: Vec<WindowFile>,
}

/// One context window in `[listing-budget]`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum WindowFile {
    Tokens(u64),
    #[serde(rename_all = "kebab-case")]
    Table {
        tokens: u64,
        bytes_per_token: Option<u64>,
    },
}

/// A context window the Skill listing is measured for: the budget is `tokens` ×
/// `bytes_per_token` × `skillListingBudgetFraction` characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextWindow {
    pub tokens: u64,
    pub bytes_per_token: u64,
}

/// The context window of Claude Code's default model, and the bytes per token its
/// listing budget counts for it.
pub const DEFAULT_CONTEXT_WINDOW: ContextWindow = ContextWindow { tokens: 1_000_000, bytes_per_token: 3 };

/// A rule's severity in capc.toml, or `off`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Error,
    Warning,
    Info,
    Off,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Info => "info",
            Level::Off => "off",
        }
    }
    fn of(severity: Severity) -> Level {
        match severity {
            Severity::Error => Level::Error,
            Severity::Warning => Level::Warning,
            Severity::Info => Level::Info,
        }
    }
    fn severity(self) -> Option<Severity> {
        match self {
            Level::Error => Some(Severity::Error),
            Level::Warning => Some(Severity::Warning),
            Level::Info => Some(Severity::Info),
            Level::Off => None,
        }
    }
}

/// Where an effective value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Default,
    /// The configuration file.
    File,
    /// A command-line flag (its name).
    Flag(&'static str),
}

/// A value and where it came from.
#[derive(Debug, Clone)]
pub struct Valued<T> {
    pub value: T,
    pub origin: Source,
}

impl<T> Valued<T> {
    fn default(value: T) -> Valued<T> {
        Valued { value, origin: Source::Default }
    }
    fn file(value: T) -> Valued<T> {
        Valued { value, origin: Source::File }
    }
    /// A value given by a command-line flag.
    pub fn set(&mut self, value: T, flag: &'static str) {
        *self = Valued { value, origin: Source::Flag(flag) };
    }
}

/// Why a configuration cannot be used (exit 2): one line, with the file and position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

/// The effective configuration: the file's values over the defaults, flags over both.
#[derive(Debug, Clone)]
pub struct Config {
    /// The file read, if any.
    pub file: Option<PathBuf>,
    /// The folder relative paths and patterns are taken from (the file's folder, else the
    /// checked folder), with links resolved.
    pub dir: PathBuf,
    pub claude_code: Valued<String>,
    pub select: Valued<Option<Vec<&'static str>>>,
    pub ignore: Valued<Vec<&'static str>>,
    /// Severity overrides written in `[rules]` (or given by a flag).
    pub rules: BTreeMap<&'static str, Valued<Level>>,
    pub exclude: Valued<Vec<String>>,
    pub per_path_ignores: Valued<Vec<(String, Vec<&'static str>)>>,
    pub respect_ignore_files: Valued<bool>,
    pub user_dir: Valued<Option<PathBuf>>,
    pub managed_dir: Valued<Option<PathBuf>>,
    pub add_dir: Valued<Vec<PathBuf>>,
    pub plugin_dir: Valued<Vec<PathBuf>>,
    /// `[listing-budget] context-windows`.
    pub context_windows: Valued<Vec<ContextWindow>>,
    /// `max-context-tokens` (`None`: no ceiling).
    pub max_context_tokens: Valued<Option<u64>>,
}

/// The configuration file that applies to `start` (a folder): the first `capc.toml` or
/// `.capc.toml` in it or a folder above it, up to the repository's top. Two in one folder is
/// an error: which one counts would be a guess.
///
/// Outside a git repository the folders above `start` are anyone's: the search looks only in
/// those the user owns, up to their home folder (`$HOME`, looked in, not past), and takes there
/// only a file the user owns (on Unix; elsewhere it stops at the home folder).
/// [`outside_repository`] says when a file found is above the checked folder with no
/// repository around it, for the CLI to name it.
pub fn find(start: &Path) -> Result<Option<PathBuf>, ConfigError> {
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
    find_below(start, home.as_deref())
}

/// [`find`], with `home` as the user's home folder.
fn find_below(start: &Path, home: Option<&Path>) -> Result<Option<PathBuf>, ConfigError> {
    let start = start.canonicalize().unwrap_or_else(|_| start.to_path_buf());
    let in_repository = repository_top(&start).is_some();
    let home = home.map(|home| home.canonicalize().unwrap_or_else(|_| home.to_path_buf()));
    for dir in start.ancestors() {
        let above = dir != start;
        if above && !in_repository && !owned_by_user(dir) {
            break;
        }
        if let Some(found) = find_in(dir)? {
            if !above || in_repository || owned_by_user(&found) {
                return Ok(Some(found));
            }
        }
        if std::fs::symlink_metadata(dir.join(".git")).is_ok() || (!in_repository && home.as_deref() == Some(dir)) {
            break;
        }
    }
    Ok(None)
}

/// The folder holding the git repository `dir` is in (the first at or above it with a `.git`).
fn repository_top(dir: &Path) -> Option<&Path> {
    dir.ancestors().find(|d| std::fs::symlink_metadata(d.join(".git")).is_ok())
}

/// Whether `file`, a configuration [`find`] found for the checked folder `root`, is in a folder
/// above `root` with no git repository around `root`: a file the user may not know applies.
pub fn outside_repository(root: &Path, file: &Path) -> bool {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    file.parent().is_some_and(|dir| dir != root) && repository_top(&root).is_none()
}

/// Whether the user running capc owns `path` (not followed if a link).
#[cfg(unix)]
fn owned_by_user(path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(path).is_ok_and(|meta| meta.uid() == nix::unistd::geteuid().as_raw())
}

#[cfg(not(unix))]
fn owned_by_user(_: &Path) -> bool {
    true
}

/// The configuration file in `dir` itself, if any (both names at once is an error).
pub fn find_in(dir: &Path) -> Result<Option<PathBuf>, ConfigError> {
    let found: Vec<PathBuf> = FILE_NAMES.iter().map(|n| dir.join(n)).filter(|p| p.is_file()).collect();
    match found.as_slice() {
        [] => Ok(None),
        [one] => Ok(Some(one.clone())),
        _ => Err(ConfigError(format!("{} holds both capc.toml and .capc.toml; keep one", dir.display()))),
    }
}

impl Config {
    /// The defaults, for a check of `root` with no configuration file.
    pub fn defaults(root: &Path) -> Config {
        Config {
            file: None,
            dir: root.canonicalize().unwrap_or_else(|_| root.to_path_buf()),
            claude_code: Valued::default(crate::model::CLAUDE_CODE_VERSION.to_string()),
            select: Valued::default(None),
            ignore: Valued::default(Vec::new()),
            rules: BTreeMap::new(),
            exclude: Valued::default(Vec::new()),
            per_path_ignores: Valued::default(Vec::new()),
            respect_ignore_files: Valued::default(true),
            user_dir: Valued::default(None),
            managed_dir: Valued::default(None),
            add_dir: Valued::default(Vec::new()),
            plugin_dir: Valued::default(Vec::new()),
            context_windows: Valued::default(vec![DEFAULT_CONTEXT_WINDOW]),
            max_context_tokens: Valued::default(None),
        }
    }

    /// The configuration for a check of `root`: `file` when given, else the one [`find`]
    /// finds, else the defaults.
    pub fn load(root: &Path, file: Option<&Path>) -> Result<Config, ConfigError> {
        let given = file.is_some();
        let file = match file {
            Some(file) => Some(file.to_path_buf()),
            None => find(root)?,
        };
        match (file, given) {
            (Some(file), true) => Config::read(root, &file),
            (Some(file), false) => Config::read_found(root, &file),
            (None, _) => Ok(Config::defaults(root)),
        }
    }

    /// Reads a configuration file that was found, not given: one inside the checked folder or
    /// the repository, written by whoever wrote the repository. Its folder options may name
    /// only folders inside its own folder, since a committed `user-dir = "../.."` would
    /// otherwise make `check` print the user's own settings and `lock` copy their servers into
    /// the lock. The user passes other folders as flags, or the file with `--config`.
    pub fn read_found(root: &Path, path: &Path) -> Result<Config, ConfigError> {
        let shown = path.display().to_string();
        let bytes = walk::read_regular(path, MAX_CONFIG_BYTES, walk::Links::Follow)
            .map_err(|e| ConfigError(format!("cannot read {shown}: {e}")))?;
        let text = String::from_utf8(bytes).map_err(|_| ConfigError(format!("{shown} is not UTF-8 text")))?;
        Config::parse_found(root, path, &text)
    }

    /// Checks the text of a configuration file that was found, not given (see
    /// [`Config::read_found`]): an editor's unsaved capc.toml is checked through this.
    pub fn parse_found(root: &Path, path: &Path, text: &str) -> Result<Config, ConfigError> {
        let shown = path.display().to_string();
        let config = Config::parse(root, path, text)?;
        let written: File = toml::from_str(text).map_err(|e| ConfigError(format!("{shown}: {}", e.message())))?;
        let options = [
            ("user-dir", "--user-dir", written.user_dir.into_iter().collect::<Vec<_>>()),
            ("managed-dir", "--managed-dir", written.managed_dir.into_iter().collect()),
            ("add-dir", "--add-dir", written.add_dir.unwrap_or_default()),
            ("plugin-dir", "--plugin-dir", written.plugin_dir.unwrap_or_default()),
        ];
        for (key, flag, values) in options {
            if let Some(outside) = values.iter().find(|value| !stays_inside(&config.dir, value)) {
                return Err(ConfigError(format!(
                    "{shown}{}: `{key}` names `{outside}`, outside the folder of this capc.toml; a capc.toml found in \
                     the checked folder or its repository may name only folders inside it (a committed one could \
                     read your home folder). Pass `{flag}` on the command line, or this file with `--config`",
                    place_of(text, outside)
                )));
            }
        }
        Ok(config)
    }

    /// Reads and checks one configuration file.
    pub fn read(root: &Path, path: &Path) -> Result<Config, ConfigError> {
        let shown = path.display().to_string();
        let bytes = walk::read_regular(path, MAX_CONFIG_BYTES, walk::Links::Follow)
            .map_err(|e| ConfigError(format!("cannot read {shown}: {e}")))?;
        let text = String::from_utf8(bytes).map_err(|_| ConfigError(format!("{shown} is not UTF-8 text")))?;
        Config::parse(root, path, &text)
    }

    /// Checks the text of a configuration file found at `path`.
    pub fn parse(root: &Path, path: &Path, text: &str) -> Result<Config, ConfigError> {
        let shown = path.display().to_string();
        let written: File = toml::from_str(text).map_err(|e| {
            // toml's message starts with its own position line; keep ours on one line.
            let place = e.span().map(|s| at(text, s.start)).unwrap_or_default();
            let message = e.message().trim().replace('\n', " ");
            ConfigError(format!("{shown}{place}: {message}"))
        })?;
        let dir = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .canonicalize()
            .map_err(|e| ConfigError(format!("cannot read the folder of {shown}: {e}")))?;
        let rule = |id: &str, key: &str| -> Result<&'static str, ConfigError> {
            known_rule(id).map_err(|why| ConfigError(format!("{shown}{}: {why} in `{key}`", place_of(text, id))))
        };
        let mut config = Config::defaults(root);
        config.file = Some(path.to_path_buf());
        config.dir = dir.clone();
        if let Some(version) = written.claude_code {
            check_version(&version)
                .map_err(|why| ConfigError(format!("{shown}{}: {why}", place_of(text, &version))))?;
            config.claude_code = Valued::file(version);
        }
        if let Some(select) = written.select {
            let ids = select.iter().map(|id| rule(id, "select")).collect::<Result<Vec<_>, _>>()?;
            config.select = Valued::file(Some(ids));
        }
        if !written.ignore.is_empty() {
            let ids = written.ignore.iter().map(|id| rule(id, "ignore")).collect::<Result<Vec<_>, _>>()?;
            config.ignore = Valued::file(ids);
        }
        for (id, level) in written.rules {
            config.rules.insert(rule(&id, "rules")?, Valued::file(level));
        }
        if !written.exclude.is_empty() {
            matcher(&dir, &written.exclude).map_err(|why| ConfigError(format!("{shown}: `exclude`: {why}")))?;
            config.exclude = Valued::file(written.exclude);
        }
        if !written.per_path_ignores.is_empty() {
            let mut entries = Vec::new();
            for (pattern, ids) in written.per_path_ignores {
                matcher(&dir, std::slice::from_ref(&pattern))
                    .map_err(|why| ConfigError(format!("{shown}: `per-path-ignores`: {why}")))?;
                let ids = ids
                    .iter()
                    .map(|id| match id {
                        id if id == ALL => Ok(ALL),
                        id if id.eq_ignore_ascii_case(ALL) => Err(ConfigError(format!(
                            "{shown}{}: no rule `{id}` in `per-path-ignores`; write `ALL` for every rule",
                            place_of(text, id)
                        ))),
                        id => rule(id, "per-path-ignores"),
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                entries.push((pattern, ids));
            }
            config.per_path_ignores = Valued::file(entries);
        }
        if let Some(respect) = written.respect_ignore_files {
            config.respect_ignore_files = Valued::file(respect);
        }
        let resolve = |p: &str| dir.join(p);
        if let Some(p) = written.user_dir {
            config.user_dir = Valued::file(Some(resolve(&p)));
        }
        if let Some(p) = written.managed_dir {
            config.managed_dir = Valued::file(Some(resolve(&p)));
        }
        if let Some(dirs) = written.add_dir {
            config.add_dir = Valued::file(dirs.iter().map(|p| resolve(p)).collect());
        }
        if let Some(dirs) = written.plugin_dir {
            config.plugin_dir = Valued::file(dirs.iter().map(|p| resolve(p)).collect());
        }
        if let Some(max) = written.max_context_tokens {
            if max == 0 {
                return Err(ConfigError(format!(
                    "{shown}{}: `max-context-tokens` is a positive number of tokens (leave it out for no ceiling)",
                    place_of(text, "max-context-tokens")
                )));
            }
            config.max_context_tokens = Valued::file(Some(max));
        }
        if let Some(budget) = written.listing_budget {
            let bad = |why: &str| {
                ConfigError(format!(
                    "{shown}{}: `listing-budget.context-windows`: {why}",
                    place_of(text, "context-windows")
                ))
            };
            if budget.context_windows.is_empty() {
                return Err(bad("name at least one window (or leave the key out for the default, 1000000 tokens)"));
            }
            let mut windows = Vec::new();
            for w in budget.context_windows {
                let window = match w {
                    WindowFile::Tokens(tokens) => {
                        ContextWindow { tokens, bytes_per_token: DEFAULT_CONTEXT_WINDOW.bytes_per_token }
                    }
                    WindowFile::Table { tokens, bytes_per_token } => ContextWindow {
                        tokens,
                        bytes_per_token: bytes_per_token.unwrap_or(DEFAULT_CONTEXT_WINDOW.bytes_per_token),
                    },
                };
                if window.tokens == 0 || window.bytes_per_token == 0 {
                    return Err(bad("a window's `tokens` and `bytes-per-token` are positive numbers"));
                }
                if !windows.contains(&window) {
                    windows.push(window);
                }
            }
            config.context_windows = Valued::file(windows);
        }
        Ok(config)
    }

    /// `--select` on the command line: replaces the file's `select`.
    pub fn select_flag(&mut self, ids: &[String]) -> Result<(), ConfigError> {
        let ids = ids.iter().map(|id| flag_rule(id, "--select")).collect::<Result<Vec<_>, _>>()?;
        self.select.set(Some(ids), "--select");
        Ok(())
    }

    /// `--ignore` on the command line: added to the file's `ignore`.
    pub fn ignore_flag(&mut self, ids: &[String]) -> Result<(), ConfigError> {
        let mut all = self.ignore.value.clone();
        for id in ids {
            all.push(flag_rule(id, "--ignore")?);
        }
        self.ignore.set(all, "--ignore");
        Ok(())
    }

    /// Whether `rule` runs, and at which severity.
    pub fn level(&self, rule: &'static crate::diagnostic::Rule) -> (Level, String) {
        let mut why = String::new();
        let selected = self.select.value.as_ref().is_none_or(|s| s.contains(&rule.id));
        if !selected {
            why = format!("not in `select` ({})", origin_text(&self.select.origin, self));
            return (Level::Off, why);
        }
        if self.ignore.value.contains(&rule.id) {
            why = format!("in `ignore` ({})", origin_text(&self.ignore.origin, self));
            return (Level::Off, why);
        }
        match self.rules.get(rule.id) {
            Some(v) => {
                why.push_str(&origin_text(&v.origin, self));
                if v.value != Level::of(rule.severity) {
                    why.push_str(&format!("; default {}", rule.severity.as_str()));
                }
                (v.value, why)
            }
            None => (Level::of(rule.severity), "default".to_string()),
        }
    }

    /// What a check applies: rule severities and per-path ignores.
    pub fn policy(&self) -> Policy {
        let mut levels = BTreeMap::new();
        for rule in rules::RULES {
            let (level, _) = self.level(rule);
            if level != Level::of(rule.severity) {
                levels.insert(rule.id, level.severity());
            }
        }
        let per_path = self
            .per_path_ignores
            .value
            .iter()
            .filter_map(|(pattern, ids)| {
                let matcher = matcher(&self.dir, std::slice::from_ref(pattern)).ok()?;
                Some(PerPath { pattern: pattern.clone(), matcher, rules: ids.clone() })
            })
            .collect();
        Policy { levels, per_path }
    }

    /// What the walk of the checked folder leaves out.
    pub fn filter(&self) -> walk::Filter {
        let exclude = if self.exclude.value.is_empty() {
            None
        } else {
            matcher(&self.dir, &self.exclude.value).ok().map(Arc::new)
        };
        walk::Filter { ignore_files: self.respect_ignore_files.value, exclude }
    }

    /// The configuration as TOML, each value followed by where it came from.
    pub fn describe(&self) -> String {
        let mut out = String::new();
        match &self.file {
            Some(file) => out.push_str(&format!("# configuration file: {}\n", file.display())),
            None => out.push_str(
                "# no capc.toml or .capc.toml in the folder or above it (up to the repository's top): defaults\n",
            ),
        }
        out.push_str("# each value is followed by where it came from: default, the file, or a flag\n\n");
        let line = |out: &mut String, key: &str, value: String, origin: &Source| {
            out.push_str(&format!("{key} = {value}  # {}\n", origin_text(origin, self)));
        };
        line(&mut out, "claude-code", quote(&self.claude_code.value), &self.claude_code.origin);
        line(
            &mut out,
            "respect-ignore-files",
            self.respect_ignore_files.value.to_string(),
            &self.respect_ignore_files.origin,
        );
        line(&mut out, "exclude", list(self.exclude.value.iter().map(String::as_str)), &self.exclude.origin);
        match &self.select.value {
            Some(ids) => line(&mut out, "select", list(ids.iter().copied()), &self.select.origin),
            None => out.push_str("# select: every rule (default)\n"),
        }
        line(&mut out, "ignore", list(self.ignore.value.iter().copied()), &self.ignore.origin);
        let path = |p: &Path| quote(&p.display().to_string());
        match &self.user_dir.value {
            Some(p) => line(&mut out, "user-dir", path(p), &self.user_dir.origin),
            None => out.push_str("# user-dir: none (default)\n"),
        }
        match &self.managed_dir.value {
            Some(p) => line(&mut out, "managed-dir", path(p), &self.managed_dir.origin),
            None => out.push_str("# managed-dir: none (default)\n"),
        }
        let paths = |ps: &[PathBuf]| format!("[{}]", ps.iter().map(|p| path(p)).collect::<Vec<_>>().join(", "));
        line(&mut out, "add-dir", paths(&self.add_dir.value), &self.add_dir.origin);
        line(&mut out, "plugin-dir", paths(&self.plugin_dir.value), &self.plugin_dir.origin);
        match self.max_context_tokens.value {
            Some(max) => line(&mut out, "max-context-tokens", max.to_string(), &self.max_context_tokens.origin),
            None => out.push_str("# max-context-tokens: none (default)\n"),
        }
        let windows: Vec<String> = self
            .context_windows
            .value
            .iter()
            .map(|w| format!("{{ tokens = {}, bytes-per-token = {} }}", w.tokens, w.bytes_per_token))
            .collect();
        out.push_str("\n[listing-budget]\n");
        line(&mut out, "context-windows", format!("[{}]", windows.join(", ")), &self.context_windows.origin);
        out.push_str("\n[rules]\n");
        for rule in rules::RULES {
            let (level, why) = self.level(rule);
            out.push_str(&format!("{} = {}  # {why}\n", rule.id, quote(level.as_str())));
        }
        out.push_str("\n[per-path-ignores]\n");
        for (pattern, ids) in &self.per_path_ignores.value {
            out.push_str(&format!(
                "{} = {}  # {}\n",
                quote(pattern),
                list(ids.iter().copied()),
                origin_text(&self.per_path_ignores.origin, self)
            ));
        }
        out
    }
}

/// What a check applies of a configuration: severities and per-path ignores.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    /// Rules whose severity differs from their default: `None` turns the rule off.
    pub levels: BTreeMap<&'static str, Option<Severity>>,
    pub per_path: Vec<PerPath>,
}

/// One `per-path-ignores` entry.
#[derive(Debug, Clone)]
pub struct PerPath {
    pub pattern: String,
    pub matcher: Gitignore,
    pub rules: Vec<&'static str>,
}

impl Policy {
    /// The severity `rule` reports at, or `None` when it is off.
    pub fn severity(&self, rule: &str, reported: Severity) -> Option<Severity> {
        match self.levels.get(rule) {
            Some(level) => *level,
            None => Some(reported),
        }
    }

    /// Whether a per-path entry suppresses `rule` in the file at `path` (absolute).
    pub fn ignores(&self, path: &Path, rule: &str) -> bool {
        self.per_path.iter().any(|p| {
            (p.rules.contains(&rule) || p.rules.contains(&ALL))
                && path.starts_with(p.matcher.path())
                && p.matcher.matched_path_or_any_parents(path, false).is_ignore()
        })
    }
}

/// One gitignore-style matcher of `patterns`, rooted at `dir`.
fn matcher(dir: &Path, patterns: &[String]) -> Result<Gitignore, String> {
    let mut builder = GitignoreBuilder::new(dir);
    for pattern in patterns {
        builder.add_line(None, pattern).map_err(|e| format!("pattern `{pattern}`: {e}"))?;
    }
    builder.build().map_err(|e| e.to_string())
}

/// In `[per-path-ignores]`, every rule (ruff's spelling): `"backups/**" = ["ALL"]`.
pub const ALL: &str = "ALL";

/// A rule id as the registry spells it, or why not.
pub fn known_rule(id: &str) -> Result<&'static str, String> {
    match rules::find(id) {
        Some(rule) => Ok(rule.id),
        None => Err(match did_you_mean(id, rules::RULES.iter().map(|r| r.id)) {
            Some(s) => format!("no rule `{id}`; did you mean `{s}`?"),
            None => format!("no rule `{id}` (`capc rules` lists them)"),
        }),
    }
}

fn flag_rule(id: &str, flag: &str) -> Result<&'static str, ConfigError> {
    known_rule(id.trim()).map_err(|why| ConfigError(format!("{flag}: {why}")))
}

/// Whether capc follows the Claude Code version a configuration names.
pub fn check_version(version: &str) -> Result<(), String> {
    let known = crate::model::CLAUDE_CODE_VERSION;
    if version == known {
        return Ok(());
    }
    let well_formed = version.split('.').count() == 3 && version.split('.').all(|p| p.parse::<u32>().is_ok());
    if !well_formed {
        return Err(format!("`claude-code = \"{version}\"` is not a Claude Code version (such as \"{known}\")"));
    }
    Err(format!(
        "`claude-code = \"{version}\"`: this capc follows Claude Code {known} only; set `claude-code = \"{known}\"` or use a capc that follows {version}"
    ))
}

/// `:line:column` of `offset`, 1-based.
fn at(text: &str, offset: usize) -> String {
    let (line, column) = LineIndex::new(text).position(text, offset);
    format!(":{line}:{column}")
}

/// Whether `value`, a path written in a configuration file in `dir` (canonical), names `dir`
/// or a folder inside it: lexically (no `..` climbing out, not absolute elsewhere) and, when it
/// exists, once links are resolved (a committed link to `~` is outside).
fn stays_inside(dir: &Path, value: &str) -> bool {
    let mut lexical = dir.to_path_buf();
    for part in Path::new(value).components() {
        match part {
            std::path::Component::ParentDir => {
                if !lexical.pop() {
                    return false;
                }
            }
            std::path::Component::CurDir => {}
            std::path::Component::Normal(name) => lexical.push(name),
            std::path::Component::RootDir | std::path::Component::Prefix(_) => {
                lexical = PathBuf::from(part.as_os_str())
            }
        }
    }
    if !lexical.starts_with(dir) {
        return false;
    }
    match dir.join(value).canonicalize() {
        Ok(real) => real.starts_with(dir),
        Err(_) => true,
    }
}

/// `:line:column` of the first place `value` is written (quoted, or as a bare key).
fn place_of(text: &str, value: &str) -> String {
    let found = [format!("\"{value}\""), format!("'{value}'")]
        .iter()
        .find_map(|needle| text.find(needle.as_str()))
        .or_else(|| {
            text.lines()
                .scan(0, |start, line| {
                    let here = *start;
                    *start += line.len() + 1;
                    Some((here, line))
                })
                .find(|(_, line)| {
                    line.trim_start().strip_prefix(value).is_some_and(|r| r.trim_start().starts_with('='))
                })
                .map(|(start, line)| start + line.len() - line.trim_start().len())
        });
    found.map(|offset| at(text, offset)).unwrap_or_default()
}

fn origin_text(origin: &Source, config: &Config) -> String {
    match origin {
        Source::Default => "default".to_string(),
        Source::File => config
            .file
            .as_ref()
            .and_then(|f| f.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "capc.toml".to_string()),
        Source::Flag(flag) => (*flag).to_string(),
    }
}

fn quote(s: &str) -> String {
    // TOML basic strings escape like JSON for what a path or pattern may hold.
    serde_json::to_string(s).unwrap_or_default()
}

fn list<'a>(items: impl Iterator<Item = &'a str>) -> String {
    format!("[{}]", items.map(quote).collect::<Vec<_>>().join(", "))
}

/// The JSON Schema of capc.toml (`schema/capc.toml.schema.json`), from the [`File`] type.
pub fn schema() -> String {
    let mut root = schemars::schema_for!(File);
    let meta = root.schema.metadata();
    meta.id = Some("urn:capc:capc.toml".to_string());
    meta.title = Some("capc.toml".to_string());
    meta.description = Some(
        "The configuration of capc, the capability compiler for Claude Code: which rules report, \
         at which severity, which files are read, and the scopes of a check."
            .to_string(),
    );
    // Rule ids are the registry's: listing them lets editors complete and check them.
    let ids: Vec<serde_json::Value> = rules::RULES.iter().map(|r| r.id.into()).collect();
    let text = serde_json::to_string_pretty(&root).unwrap_or_default();
    let mut value: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    let rule_id = serde_json::json!({ "type": "string", "enum": ids });
    if let Some(properties) = value.pointer_mut("/properties") {
        for key in ["select", "ignore"] {
            if let Some(items) = properties.pointer_mut(&format!("/{key}/items")) {
                *items = rule_id.clone();
            }
        }
        if let Some(rules) = properties.pointer_mut("/rules") {
            rules["propertyNames"] = rule_id.clone();
        }
        if let Some(map) = properties.pointer_mut("/per-path-ignores/additionalProperties/items") {
            let mut ids = ids.clone();
            ids.push(ALL.into());
            *map = serde_json::json!({ "type": "string", "enum": ids });
        }
        if let Some(version) = properties.pointer_mut("/claude-code") {
            version["enum"] = serde_json::json!([crate::model::CLAUDE_CODE_VERSION]);
        }
    }
    let mut out = serde_json::to_string_pretty(&value).unwrap_or_default();
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, String> {
        let dir = std::env::temp_dir();
        Config::parse(&dir, &dir.join("capc.toml"), text).map_err(|e| e.0)
    }

    #[test]
    fn an_empty_file_is_the_defaults() {
        let config = parse("").expect("valid");
        assert_eq!(config.claude_code.value, crate::model::CLAUDE_CODE_VERSION);
        assert!(config.respect_ignore_files.value);
        assert!(config.policy().levels.is_empty());
    }

    #[test]
    fn unknown_keys_ids_and_versions_are_errors_with_a_place() {
        let e = parse("selct = []\n").expect_err("unknown key");
        assert!(e.contains("capc.toml:1:1") && e.contains("unknown field `selct`"), "{e}");
        let e = parse("ignore = [\"unknown-feild\"]\n").expect_err("unknown rule");
        assert!(
            e.ends_with("capc.toml:1:11: no rule `unknown-feild`; did you mean `unknown-field`? in `ignore`"),
            "{e}"
        );
        let e = parse("[rules]\nunknown-feild = \"info\"\n").expect_err("unknown rule");
        assert!(e.contains("capc.toml:2:1: no rule `unknown-feild`"), "{e}");
        let e = parse("[rules]\nunknown-field = \"loud\"\n").expect_err("unknown level");
        assert!(e.contains("capc.toml:2:17") && e.contains("unknown variant `loud`"), "{e}");
        let e = parse("claude-code = \"2.1.400\"\n").expect_err("another version");
        assert!(
            e.contains(&format!("this capc follows Claude Code {} only", crate::model::CLAUDE_CODE_VERSION)),
            "{e}"
        );
        let e = parse("claude-code = \"latest\"\n").expect_err("not a version");
        assert!(e.contains("is not a Claude Code version"), "{e}");
    }

    #[test]
    fn select_ignore_and_levels_make_the_policy() {
        let config = parse(
            "select = [\"unknown-field\", \"invalid-json\", \"blanket-allow\"]\nignore = [\"blanket-allow\"]\n[rules]\nunknown-field = \"info\"\ninvalid-json = \"error\"\n",
        )
        .expect("valid");
        let policy = config.policy();
        assert_eq!(policy.severity("unknown-field", Severity::Warning), Some(Severity::Info));
        assert_eq!(policy.severity("invalid-json", Severity::Error), Some(Severity::Error));
        assert_eq!(policy.severity("blanket-allow", Severity::Warning), None, "ignored");
        assert_eq!(policy.severity("duplicate-key", Severity::Warning), None, "not selected");
        let described = config.describe();
        assert!(described.contains("unknown-field = \"info\"  # capc.toml; default warning\n"), "{described}");
        assert!(described.contains("duplicate-key = \"off\"  # not in `select` (capc.toml)\n"), "{described}");
        assert!(described.contains("blanket-allow = \"off\"  # in `ignore` (capc.toml)\n"), "{described}");
    }

    #[test]
    fn per_path_ignores_match_below_the_file_folder() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical");
        let config =
            Config::parse(&root, &root.join("capc.toml"), "[per-path-ignores]\n\"backups/\" = [\"unknown-field\"]\n")
                .expect("valid");
        let policy = config.policy();
        assert!(policy.ignores(&root.join("backups/old/SKILL.md"), "unknown-field"));
        assert!(!policy.ignores(&root.join("backups/old/SKILL.md"), "invalid-json"));
        assert!(!policy.ignores(&root.join("skills/SKILL.md"), "unknown-field"));
        assert!(!policy.ignores(Path::new("/elsewhere/backups/SKILL.md"), "unknown-field"));
    }

    #[test]
    fn outside_a_repository_the_search_stops_at_the_home_folder() {
        let dir = tempfile::tempdir().expect("tempdir");
        let top = dir.path().canonicalize().expect("canonical");
        std::fs::create_dir_all(top.join("home/work/proj")).expect("mkdir");
        std::fs::write(top.join("capc.toml"), "").expect("write");
        let home = Some(top.join("home"));
        let found = find_below(&top.join("home/work/proj"), home.as_deref());
        std::fs::write(top.join("home/capc.toml"), "").expect("write");
        let at_home = find_below(&top.join("home/work/proj"), home.as_deref());
        assert_eq!(found.expect("no error"), None, "the one above the home folder is not used");
        assert_eq!(at_home.expect("no error"), Some(top.join("home/capc.toml")));
        assert!(outside_repository(&top.join("home/work/proj"), &top.join("home/capc.toml")));
        assert!(!outside_repository(&top.join("home"), &top.join("home/capc.toml")));
    }

    #[test]
    fn the_search_stops_at_the_repository() {
        let dir = tempfile::tempdir().expect("tempdir");
        let top = dir.path().canonicalize().expect("canonical");
        std::fs::create_dir_all(top.join("repo/.git")).expect("mkdir");
        std::fs::create_dir_all(top.join("repo/a/b")).expect("mkdir");
        std::fs::write(top.join("capc.toml"), "").expect("write");
        assert_eq!(find(&top.join("repo/a/b")).expect("no error"), None, "the one above the repository is not used");
        std::fs::write(top.join("repo/.capc.toml"), "").expect("write");
        assert_eq!(find(&top.join("repo/a/b")).expect("no error"), Some(top.join("repo/.capc.toml")));
        std::fs::write(top.join("repo/a/capc.toml"), "").expect("write");
        assert_eq!(find(&top.join("repo/a/b")).expect("no error"), Some(top.join("repo/a/capc.toml")));
        std::fs::write(top.join("repo/a/.capc.toml"), "").expect("write");
        assert!(find(&top.join("repo/a/b")).expect_err("two").0.contains("both capc.toml and .capc.toml"));
    }
}

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
//!
//! This file holds the configuration as a check sees it ([`Config`], where each value came
//! from); `file.rs` the file as written and its JSON Schema, `find.rs` where the file is
//! looked for, `policy.rs` what a check applies of it ([`Policy`]).

mod file;
mod find;
mod policy;

pub(crate) use file::MAX_CONFIG_BYTES;
pub use file::{schema, ContextWindow, File, ListingBudgetFile, WindowFile, DEFAULT_CONTEXT_WINDOW, FILE_NAMES};
pub use find::{find, find_in, outside_repository};
pub(crate) use policy::PerPath;
pub use policy::Policy;

use crate::diagnostic::{did_you_mean, LineIndex, Severity};
use crate::rules;
use crate::walk;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
    pub(crate) per_path_ignores: Valued<Vec<(String, Vec<&'static str>)>>,
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
        let file = Reading { shown: &shown, text };
        let mut config = Config::defaults(root);
        config.file = Some(path.to_path_buf());
        config.dir = dir.clone();
        if let Some(version) = written.claude_code {
            check_version(&version)
                .map_err(|why| ConfigError(format!("{shown}{}: {why}", place_of(text, &version))))?;
            config.claude_code = Valued::file(version);
        }
        file.rule_choices(&mut config, written.select, &written.ignore, written.rules)?;
        file.patterns(&mut config, &dir, written.exclude, written.per_path_ignores)?;
        if let Some(respect) = written.respect_ignore_files {
            config.respect_ignore_files = Valued::file(respect);
        }
        config.folders(&dir, written.user_dir, written.managed_dir, written.add_dir, written.plugin_dir);
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
            config.context_windows = Valued::file(file.context_windows(budget)?);
        }
        Ok(config)
    }

    /// Takes the file's folder options, relative to its folder `dir`.
    fn folders(
        &mut self,
        dir: &Path,
        user_dir: Option<String>,
        managed_dir: Option<String>,
        add_dir: Option<Vec<String>>,
        plugin_dir: Option<Vec<String>>,
    ) {
        let resolve = |p: &str| dir.join(p);
        if let Some(p) = user_dir {
            self.user_dir = Valued::file(Some(resolve(&p)));
        }
        if let Some(p) = managed_dir {
            self.managed_dir = Valued::file(Some(resolve(&p)));
        }
        if let Some(dirs) = add_dir {
            self.add_dir = Valued::file(dirs.iter().map(|p| resolve(p)).collect());
        }
        if let Some(dirs) = plugin_dir {
            self.plugin_dir = Valued::file(dirs.iter().map(|p| resolve(p)).collect());
        }
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
                Some(PerPath { matcher, rules: ids.clone() })
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

/// A capc.toml being read: its name as shown and its text, for errors that point into it.
struct Reading<'a> {
    shown: &'a str,
    text: &'a str,
}

impl Reading<'_> {
    /// The rule `id` written in `key`, or the error that names it.
    fn rule(&self, id: &str, key: &str) -> Result<&'static str, ConfigError> {
        known_rule(id)
            .map_err(|why| ConfigError(format!("{}{}: {why} in `{key}`", self.shown, place_of(self.text, id))))
    }

    /// Takes `select`, `ignore` and `[rules]`, each rule id checked.
    fn rule_choices(
        &self,
        config: &mut Config,
        select: Option<Vec<String>>,
        ignore: &[String],
        rules: BTreeMap<String, Level>,
    ) -> Result<(), ConfigError> {
        if let Some(select) = select {
            let ids = select.iter().map(|id| self.rule(id, "select")).collect::<Result<Vec<_>, _>>()?;
            config.select = Valued::file(Some(ids));
        }
        if !ignore.is_empty() {
            let ids = ignore.iter().map(|id| self.rule(id, "ignore")).collect::<Result<Vec<_>, _>>()?;
            config.ignore = Valued::file(ids);
        }
        for (id, level) in rules {
            config.rules.insert(self.rule(&id, "rules")?, Valued::file(level));
        }
        Ok(())
    }

    /// Takes `exclude` and `[per-path-ignores]`, each pattern checked against the file's folder
    /// `dir` and each rule id checked (`ALL` for every rule).
    fn patterns(
        &self,
        config: &mut Config,
        dir: &Path,
        exclude: Vec<String>,
        per_path_ignores: BTreeMap<String, Vec<String>>,
    ) -> Result<(), ConfigError> {
        let shown = self.shown;
        if !exclude.is_empty() {
            matcher(dir, &exclude).map_err(|why| ConfigError(format!("{shown}: `exclude`: {why}")))?;
            config.exclude = Valued::file(exclude);
        }
        if per_path_ignores.is_empty() {
            return Ok(());
        }
        let mut entries = Vec::new();
        for (pattern, ids) in per_path_ignores {
            matcher(dir, std::slice::from_ref(&pattern))
                .map_err(|why| ConfigError(format!("{shown}: `per-path-ignores`: {why}")))?;
            let ids = ids
                .iter()
                .map(|id| match id {
                    id if id == ALL => Ok(ALL),
                    id if id.eq_ignore_ascii_case(ALL) => Err(ConfigError(format!(
                        "{shown}{}: no rule `{id}` in `per-path-ignores`; write `ALL` for every rule",
                        place_of(self.text, id)
                    ))),
                    id => self.rule(id, "per-path-ignores"),
                })
                .collect::<Result<Vec<_>, _>>()?;
            entries.push((pattern, ids));
        }
        config.per_path_ignores = Valued::file(entries);
        Ok(())
    }

    /// The context windows of `[listing-budget]`, each checked, duplicates left out.
    fn context_windows(&self, budget: ListingBudgetFile) -> Result<Vec<ContextWindow>, ConfigError> {
        let bad = |why: &str| {
            ConfigError(format!(
                "{}{}: `listing-budget.context-windows`: {why}",
                self.shown,
                place_of(self.text, "context-windows")
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
        Ok(windows)
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
pub(crate) fn known_rule(id: &str) -> Result<&'static str, String> {
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
pub(crate) fn check_version(version: &str) -> Result<(), String> {
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

#[cfg(test)]
mod tests;

//! `capc check --baseline FILE`, `--write-baseline FILE` and `--new-since REV`: the findings
//! of each checked folder compared with a baseline file, recorded into one, or compared with
//! the findings of the same folder at a git revision (extracted as `capc diff` extracts it).
//! The matching itself is `capc_compiler::baseline`.

use capc_compiler::baseline::{self, Applied, Baseline, Key, Remaining};
use capc_compiler::config::Config;
use capc_compiler::diff::revision;
use capc_compiler::plural::count;
use capc_compiler::printable::escape;
use capc_compiler::target::TargetFolder;
use capc_compiler::{Checked, Options};
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// What `capc check` compares its findings with.
#[derive(Args, Clone, Default)]
pub(crate) struct BaselineFlags {
    /// Report, and fail on, only the findings not recorded in FILE (written by
    /// `--write-baseline`); says how many recorded findings remain and which are gone
    #[arg(long, value_name = "FILE", conflicts_with_all = ["write_baseline", "new_since"])]
    baseline: Option<PathBuf>,
    /// Record the findings of this check (those at least `--severity`) in FILE, for
    /// `--baseline`, and exit 0: TOML, sorted, paths relative to FILE's folder, each finding
    /// by rule, file and a fingerprint of the text it points at (not its line). Writing it
    /// again drops what was fixed
    #[arg(long, value_name = "FILE", conflicts_with_all = ["new_since", "list_files", "statistics"])]
    write_baseline: Option<PathBuf>,
    /// Report, and fail on, only the findings the same folder did not have at the git revision
    /// REV (such as `origin/main`): for pull requests without a committed baseline. REV's tree
    /// is checked with the configuration and flags of this check
    #[arg(long, value_name = "REV", conflicts_with = "list_files")]
    new_since: Option<String>,
}

/// A comparison under way, one checked folder at a time.
pub(crate) enum Comparison {
    None,
    Baseline {
        /// As given, for messages and hints.
        file: String,
        /// The baseline's folder, absolute with links resolved: key paths are relative to it.
        dir: PathBuf,
        remaining: Remaining,
        /// Which key paths the checks covered (gone findings elsewhere are not reported).
        covered: Vec<Covered>,
    },
    Write {
        file: PathBuf,
        dir: PathBuf,
        findings: Vec<(Key, String)>,
    },
    NewSince {
        rev: String,
        commit: Option<String>,
        baselined: usize,
        gone: Vec<baseline::Gone>,
    },
}

/// The key paths one check covered: all under `prefix` (a folder), or these files.
pub(crate) enum Covered {
    Under(String),
    Files(Vec<String>),
    /// The extra scopes (`~/…`, `<…>/…`) the check read.
    Scopes {
        user: bool,
        managed: bool,
        extra: bool,
    },
}

impl Covered {
    fn covers(&self, path: &str) -> bool {
        match self {
            Covered::Under(prefix) => {
                !path.starts_with("~/")
                    && !path.starts_with('<')
                    && (prefix.is_empty()
                        || path == prefix
                        || path.strip_prefix(prefix.as_str()).is_some_and(|rest| rest.starts_with('/')))
            }
            Covered::Files(files) => files.iter().any(|f| f == path),
            Covered::Scopes { user, managed, extra } => {
                (*user && path.starts_with("~/"))
                    || (*managed && path.starts_with("<managed>/"))
                    || (*extra && (path.starts_with("<add-dir ") || path.starts_with("<plugin-dir ")))
            }
        }
    }
}

/// What the check reports once every folder is compared.
pub(crate) enum Finished {
    Report(Option<Applied>),
    /// `--write-baseline`: written (or not), nothing more to report.
    Exit(ExitCode),
}

/// `path` absolute with links resolved, or why not (exit 2).
fn real(path: &Path, what: &str) -> Result<PathBuf, ExitCode> {
    path.canonicalize().map_err(|e| {
        eprintln!("error: cannot read {what} `{}`: {e}", escape(&path.display().to_string()));
        ExitCode::from(2)
    })
}

/// The folder of `file` (which need not exist), absolute with links resolved.
fn folder_of(file: &Path) -> Result<PathBuf, ExitCode> {
    let parent = file.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    real(parent, "the folder of")
}

impl Comparison {
    /// The comparison the flags ask for; a baseline that cannot be read stops the check (exit 2).
    pub(crate) fn new(compared: &BaselineFlags, targets: &[TargetFolder]) -> Result<Comparison, ExitCode> {
        if let Some(file) = &compared.baseline {
            let read = Baseline::read(file).map_err(|e| {
                eprintln!("error: {e}");
                ExitCode::from(2)
            })?;
            return Ok(Comparison::Baseline {
                file: file.display().to_string(),
                dir: folder_of(file)?,
                remaining: Remaining::new(read),
                covered: Vec::new(),
            });
        }
        if let Some(file) = &compared.write_baseline {
            let roots: Vec<&Path> = targets.iter().map(|t| t.root.as_path()).collect();
            if let Err(e) = no_link_inside(file, &roots) {
                eprintln!("error: cannot write the baseline {}: {}", escape(&file.display().to_string()), escape(&e));
                return Err(ExitCode::from(2));
            }
            return Ok(Comparison::Write { file: file.clone(), dir: folder_of(file)?, findings: Vec::new() });
        }
        if let Some(rev) = &compared.new_since {
            return Ok(Comparison::NewSince { rev: rev.clone(), commit: None, baselined: 0, gone: Vec::new() });
        }
        Ok(Comparison::None)
    }

    /// Compares the check of one target (its paths still the folder's own) and removes what is
    /// not new from it; or, for `--write-baseline`, records its findings.
    pub(crate) fn compare(
        &mut self,
        checked: &mut Checked,
        target: &TargetFolder,
        options: &Options,
        config: &Config,
        admits: impl Fn(capc_compiler::Severity) -> bool,
    ) -> Result<(), ExitCode> {
        match self {
            Comparison::None => Ok(()),
            Comparison::Baseline { dir, remaining, covered, .. } => {
                let root = real(&target.root, "the folder")?;
                let keys = baseline::keys(checked, &options.texts, |p| baseline::path_in(dir, &root, p));
                remaining.apply(checked, &keys);
                covered.push(match &target.files {
                    None => Covered::Under(baseline::path_in(dir, &root, "")),
                    Some(files) => Covered::Files(files.iter().map(|f| baseline::path_in(dir, &root, f)).collect()),
                });
                covered.push(Covered::Scopes {
                    user: options.user_dir.is_some(),
                    managed: options.managed_dir.is_some(),
                    extra: !options.add_dirs.is_empty() || !options.plugin_dirs.is_empty(),
                });
                Ok(())
            }
            Comparison::Write { dir, findings, .. } => {
                let root = real(&target.root, "the folder")?;
                let keys = baseline::keys(checked, &options.texts, |p| baseline::path_in(dir, &root, p));
                for (key, d) in keys.into_iter().zip(&checked.diagnostics) {
                    if admits(d.severity) {
                        findings.push((key, d.message.to_string()));
                    }
                }
                Ok(())
            }
            Comparison::NewSince { rev, commit, baselined, gone } => {
                let (old, at) = old_check(rev, target, options, config)?;
                *commit = Some(at);
                let old_keys = baseline::keys(&old, &Default::default(), str::to_string);
                let recorded = Baseline::of(old_keys.into_iter().zip(old.diagnostics.iter().map(|d| &*d.message)));
                let mut remaining = Remaining::new(recorded);
                let keys = baseline::keys(checked, &options.texts, str::to_string);
                remaining.apply(checked, &keys);
                *baselined += remaining.matched;
                gone.extend(remaining.gone(|_| true, |p| capc_compiler::check::path_under(&target.shown, p)));
                Ok(())
            }
        }
    }

    pub(crate) fn finish(self) -> Finished {
        match self {
            Comparison::None => Finished::Report(None),
            Comparison::Baseline { file, remaining, covered, .. } => {
                let gone = remaining.gone(|p| covered.iter().any(|c| c.covers(p)), str::to_string);
                Finished::Report(Some(Applied {
                    against: format!("the baseline `{}`", escape(&file)),
                    file: Some(file),
                    baselined: remaining.matched,
                    gone,
                }))
            }
            Comparison::NewSince { rev, commit, baselined, mut gone } => {
                gone.sort();
                let short = commit.as_deref().map(|c| &c[..c.len().min(12)]).unwrap_or("");
                Finished::Report(Some(Applied {
                    against: format!("`{}` ({short})", escape(&rev)),
                    file: None,
                    baselined,
                    gone,
                }))
            }
            Comparison::Write { file, findings, .. } => Finished::Exit(write(&file, findings)),
        }
    }
}

/// Refuses a file to write whose folders pass through a link inside a checked folder or the git
/// repository holding it: a committed link (`.capc -> /elsewhere`) would make the write replace
/// a file outside the repository. The path is followed as the system follows it, part by part;
/// a link above the repository (a home folder that is a link) is the user's own and followed.
/// The file itself may be a link: it is replaced, never written through.
fn no_link_inside(file: &Path, roots: &[&Path]) -> Result<(), String> {
    use std::path::Component;
    let bounds: Vec<PathBuf> = roots
        .iter()
        .filter_map(|root| root.canonicalize().ok())
        .map(|root| root.ancestors().find(|d| d.join(".git").symlink_metadata().is_ok()).unwrap_or(&root).to_path_buf())
        .collect();
    let absolute = match file.is_absolute() {
        true => file.to_path_buf(),
        false => std::env::current_dir().map_err(|e| format!("cannot read the current folder: {e}"))?.join(file),
    };
    let Some(parent) = absolute.parent() else { return Ok(()) };
    // Always a path with no link in it: the part read so far, resolved.
    let mut at = PathBuf::new();
    for part in parent.components() {
        match part {
            Component::Prefix(_) | Component::RootDir => at.push(part),
            Component::CurDir => {}
            Component::ParentDir => {
                at.pop();
            }
            Component::Normal(name) => {
                let next = at.join(name);
                match next.symlink_metadata() {
                    Ok(meta) if meta.file_type().is_symlink() => {
                        if bounds.iter().any(|bound| next.starts_with(bound)) {
                            let to = std::fs::read_link(&next).map(|t| t.display().to_string()).unwrap_or_default();
                            return Err(format!(
                                "`{}` is a link (to `{to}`) inside the checked folder's repository, and a link there                                  could point anywhere; write the baseline at a path without links",
                                next.display()
                            ));
                        }
                        at = next.canonicalize().map_err(|e| format!("cannot read {}: {e}", next.display()))?;
                    }
                    _ => at = next,
                }
            }
        }
    }
    Ok(())
}

/// Writes the baseline of `findings` to `file` (only when its bytes change, atomically).
fn write(file: &Path, findings: Vec<(Key, String)>) -> ExitCode {
    let files: std::collections::BTreeSet<&str> = findings.iter().map(|(k, _)| k.path.as_str()).collect();
    let files = files.len();
    let recorded = Baseline::of(findings.iter().map(|(k, m)| (k.clone(), m.as_str())));
    let shown = escape(&file.display().to_string()).into_owned();
    let n = recorded.findings();
    let what = format!("{} in {}", count(n, "finding"), count(files, "file"));
    match capc_compiler::lock::write::write(file, &recorded.encode()) {
        Ok(written) => {
            let verb = match written {
                capc_compiler::lock::write::Written::Unchanged => "unchanged",
                capc_compiler::lock::write::Written::Created => "written",
                capc_compiler::lock::write::Written::Updated => "updated",
            };
            eprintln!("baseline {shown} {verb}: {what} (`capc check --baseline {shown}` reports only new ones)");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: cannot write the baseline {shown}: {e}");
            ExitCode::from(2)
        }
    }
}

/// The check of `target` as it was at the revision `rev`: its folder extracted by `capc diff`'s
/// extraction, read with this check's configuration (its `exclude` and `per-path-ignores`
/// rooted at the same place relative to the folder) and scopes. Returns it and the commit.
fn old_check(
    rev: &str,
    target: &TargetFolder,
    options: &Options,
    config: &Config,
) -> Result<(Checked, String), ExitCode> {
    let root = real(&target.root, "the folder")?;
    let name = |p: &Path| p.file_name().map(|n| n.to_os_string()).unwrap_or_else(|| "tree".into());
    // The configuration's folder is the folder itself or one above it: the tree is placed as
    // deep below a folder of that name, so its patterns match the same relative paths.
    let base = &config.dir;
    let (at, old_base) = match root.strip_prefix(base) {
        Ok(rest) if base != &root => (PathBuf::from(name(base)).join(rest), Some(PathBuf::from(name(base)))),
        Ok(_) => (PathBuf::from(name(&root)), Some(PathBuf::from(name(&root)))),
        Err(_) => (PathBuf::from(name(&root)), None),
    };
    let extracted = revision::extract_at(rev, &root, &at).map_err(|e| {
        eprintln!("error: --new-since: {}", escape(&e));
        ExitCode::from(2)
    })?;
    let old_root = extracted.root.clone();
    let mut old_config = config.clone();
    if let Some(old_base) = old_base {
        old_config.dir = extracted.scratch().join(old_base);
    }
    // A scope folder inside the checked folder is read as it was too.
    let inside =
        |dir: &PathBuf| match dir.canonicalize().ok().and_then(|d| d.strip_prefix(&root).ok().map(Path::to_path_buf)) {
            Some(rest) => old_root.join(rest),
            None => dir.clone(),
        };
    let old_options = Options {
        root: old_root.clone(),
        add_dirs: options.add_dirs.iter().map(inside).collect(),
        plugin_dirs: options.plugin_dirs.iter().map(inside).collect(),
        filter: old_config.filter(),
        policy: Some(std::sync::Arc::new(old_config.policy())),
        ..options.clone()
    };
    let mut old = crate::output::run_check(&old_options)?;
    if let Some(files) = &target.files {
        old.keep_only(files);
    }
    // The extracted tree is removed when this returns: the texts its findings point into are
    // read while it is there.
    old.read_texts_now();
    Ok((old, extracted.commit.clone()))
}

//! `capc check PATH…`, `--fix` and `--fix --diff`.

use crate::args::{CheckFormat, Color, ReadingFlags, Scopes, Selection, Shown};
use crate::commands::rules::{rule_counts, terminal_width};
use crate::commands::{say_not_declarations, shown_path, targets, use_color};
use crate::compare;
use crate::output::{quiet, run_check, write_stdout, write_stdout_with};
use capc_compiler::config::Config;
use capc_compiler::plural::count;
use capc_compiler::target::TargetFolder;
use capc_compiler::{fix, printable, report, Checked, Options};
use clap::ValueEnum;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

/// How `capc check` runs and shows its findings.
pub(crate) struct CheckHow {
    pub(crate) format: CheckFormat,
    pub(crate) color: Color,
    pub(crate) list_files: bool,
    pub(crate) shown: Shown,
    pub(crate) fix: bool,
    pub(crate) diff: bool,
    pub(crate) compared: compare::BaselineFlags,
}

/// `capc check PATH…`: each folder checked with its own options, the findings merged into one
/// report in the asked format; exit code 1 when an error (or with `--strict` a warning) is found.
pub(crate) fn check(
    paths: &[PathBuf],
    scopes: &Scopes,
    reading: &ReadingFlags,
    selection: &Selection,
    how: CheckHow,
) -> ExitCode {
    if how.shown.statistics && matches!(how.format, CheckFormat::Sarif | CheckFormat::Github) {
        eprintln!(
            "error: --statistics prints counts as `human`, `short` or `json`, not as `--format sarif` or `github`"
        );
        return ExitCode::from(2);
    }
    let targets = match targets(paths) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let (options_of, configs) = match options_and_configs(&targets, scopes, reading, selection) {
        Ok(found) => found,
        Err(code) => return code,
    };
    if how.fix && how.diff {
        return fix_diff(&targets, &options_of);
    }
    let (mut checked, ignored) = match check_targets(&targets, &options_of, &configs, &how) {
        Ok(found) => found,
        Err(code) => return code,
    };
    if how.list_files {
        return list_files(checked);
    }
    let shown = &how.shown;
    // The exit code counts every finding, whatever --severity shows.
    let failed = checked.has_errors() || (shown.strict && checked.count(capc_compiler::Severity::Warning) > 0);
    let total = checked.diagnostics.len();
    checked.diagnostics.retain(|d| shown.severity.admits(d.severity));
    let hidden = total - checked.diagnostics.len();
    let nothing = checked.files_checked == 0 && checked.diagnostics.is_empty();
    let empty_folder = nothing && targets.iter().all(|t| t.files.is_none());
    let written = if matches!(how.format, CheckFormat::Json) && !shown.statistics {
        // Written as it is made: a large tree's report is not held whole (tens of MB).
        write_stdout_with(|out| report::write_json(&checked, out))
    } else {
        let mut output = rendered(&checked, &how, empty_folder, paths, ignored);
        finish_output(&mut output, &checked, &how, nothing, hidden);
        write_stdout(&output)
    };
    // What the check built is not freed: the process ends soon after, and leaving it to the
    // operating system spares freeing its many small allocations one by one (as `capc lock`).
    std::mem::forget(checked);
    match written {
        Err(_) => ExitCode::from(2),
        Ok(()) if failed => ExitCode::from(1),
        Ok(()) => ExitCode::SUCCESS,
    }
}

/// Each target's options (with the measures and the MCP surface its lock recorded) and the
/// configuration they come from.
fn options_and_configs(
    targets: &[TargetFolder],
    scopes: &Scopes,
    reading: &ReadingFlags,
    selection: &Selection,
) -> Result<(Vec<Options>, Vec<Config>), ExitCode> {
    let mut options_of = Vec::new();
    let mut configs = Vec::new();
    for target in targets {
        let (mut o, c) = scopes.options_and_config(target.root.clone(), reading, selection)?;
        let surface = std::sync::Arc::new(capc_compiler::surface::Recorded::read(
            &target.root.join(capc_compiler::lock::write::FILE_NAME),
        ));
        o.measure = capc_runtime::cost::measures(&c, &surface);
        o.surface = Some(surface);
        // A check writes no lock: no entry per file for its `[[source]]` list; and it reports
        // findings only, no names resolved.
        o.skip_sources = true;
        o.keeps = capc_compiler::check::Keeps::Findings;
        options_of.push(o);
        configs.push(c);
    }
    Ok((options_of, configs))
}

/// Checks (or fixes, then checks) each target, keeps the files it names, compares with the
/// baseline or revision asked for, and shows paths as the format wants them; returns the
/// checks merged, and how many paths ignore files or `exclude` left out.
fn check_targets(
    targets: &[TargetFolder],
    options_of: &[Options],
    configs: &[Config],
    how: &CheckHow,
) -> Result<(Checked, usize), ExitCode> {
    let mut comparison = compare::Comparison::new(&how.compared, targets)?;
    let mut parts = Vec::new();
    let mut ignored = 0;
    for ((target, options), config) in targets.iter().zip(options_of).zip(configs) {
        let mut checked = if how.fix { fix_files(options, target) } else { run_check(options) }?;
        ignored += checked.ignored;
        if let Some(files) = &target.files {
            let not_read = checked.not_read(files);
            if !not_read.is_empty() {
                say_not_declarations(target, &not_read);
                return Err(ExitCode::from(2));
            }
            checked.keep_only(files);
        }
        comparison.compare(&mut checked, target, options, config, |s| how.shown.severity.admits(s))?;
        // GitHub reads annotations' and SARIF's paths from the repository's top, where CI runs
        // capc: a folder checked alone is put in front of its paths there too.
        match how.format {
            CheckFormat::Github | CheckFormat::Sarif if target.shown.is_empty() => {
                checked.show_under(&capc_compiler::target::shown_from_cwd(&target.root))
            }
            _ => checked.show_under(&target.shown),
        }
        let cwd = std::env::current_dir().unwrap_or_default();
        checked.show_plugin_dirs(options, &cwd, matches!(how.format, CheckFormat::Sarif));
        parts.push(checked);
    }
    let mut checked = if parts.len() == 1 { parts.remove(0) } else { Checked::merge(parts) };
    match comparison.finish() {
        compare::Finished::Report(applied) => checked.baseline = applied,
        compare::Finished::Exit(code) => return Err(code),
    }
    Ok((checked, ignored))
}

/// `--list-files`: each file read, its kind and its name, one a line.
fn list_files(checked: Checked) -> ExitCode {
    let listing: String = checked
        .files
        .iter()
        .map(|f| match &f.name {
            // Tabs and newlines separate the fields: escaped inside them, with every other
            // control character.
            Some(name) => format!("{}\t{}\t{}\n", printable::escape(&f.path), f.kind.as_str(), printable::escape(name)),
            None => format!("{}\t{}\n", printable::escape(&f.path), f.kind.as_str()),
        })
        .collect();
    // Not freed, as `check`'s.
    std::mem::forget(checked);
    if write_stdout(&listing).is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    }
}

/// The findings in the asked format, or their counts with `--statistics`; an empty folder (or
/// a wrong PATH) says so in `human` instead of "checked 0 files".
fn rendered(checked: &Checked, how: &CheckHow, empty_folder: bool, paths: &[PathBuf], ignored: usize) -> String {
    match (how.format, how.shown.statistics) {
        (CheckFormat::Json, true) => report::to_statistics_json(checked),
        (_, true) => report::to_statistics(checked),
        // Not reached: `check` writes this one as it is made (`report::write_json`).
        (CheckFormat::Json, false) => report::to_json(checked),
        (CheckFormat::Sarif, false) => report::to_sarif(checked),
        (CheckFormat::Github, false) => report::to_github(checked),
        (CheckFormat::Short, false) => report::to_short(checked),
        (CheckFormat::Human, false) if empty_folder => {
            let shown: Vec<String> =
                paths.iter().map(|p| format!("`{}`", printable::escape(&p.display().to_string()))).collect();
            let hint = if ignored > 0 {
                format!(
                    " ({} left out by ignore files or `exclude`; `--no-ignore` reads ignored ones)",
                    count(ignored, "path")
                )
            } else {
                String::new()
            };
            format!("no Claude Code declarations found in {}{hint}\n", shown.join(", "))
        }
        (CheckFormat::Human, false) => {
            let detail = if how.shown.verbose { report::Detail::Full } else { report::Detail::Brief };
            report::to_text_with(
                checked,
                use_color(how.color, std::io::stdout().is_terminal()),
                terminal_width(),
                detail,
            )
        }
    }
}

/// What the flags change in the text formats' output: `-q` keeps the findings only, the
/// findings below `--severity` are counted, and the baseline applied is noted.
fn finish_output(output: &mut String, checked: &Checked, how: &CheckHow, nothing: bool, hidden: usize) {
    let format = how.format;
    let text = matches!(format, CheckFormat::Human | CheckFormat::Short | CheckFormat::Github);
    if quiet() && text {
        // `-q`: the findings only; no summary line, and nothing at all for an empty folder.
        let summary = format!("{}\n", report::summary_line(checked));
        if nothing && !how.shown.statistics {
            output.clear();
        } else if let Some(findings) = output.strip_suffix(&summary) {
            output.truncate(findings.len());
        }
    }
    if hidden > 0 && !quiet() && text {
        output.push_str(&format!(
            "{} below --severity {} not shown\n",
            count(hidden, "finding"),
            how.shown.severity.to_possible_value().map(|v| v.get_name().to_string()).unwrap_or_default()
        ));
    }
    if let Some(applied) =
        checked.baseline.as_ref().filter(|_| !matches!(format, CheckFormat::Json | CheckFormat::Sarif))
    {
        output.push_str(&applied.note());
    }
}

/// Rounds of fixes `--fix` applies at most (a fix that waited for an overlapping one goes in
/// the next round, after a fresh check).
const FIX_ROUNDS: usize = 10;

/// `check --fix`: checks, writes the fixes, checks again until nothing is left to fix; says on
/// stderr what it changed. Only the files asked for are fixed when the target names files.
/// Returns the last check, of the fixed files, for the report.
fn fix_files(options: &Options, target: &TargetFolder) -> Result<Checked, ExitCode> {
    let mut fixed: std::collections::BTreeMap<String, Vec<&'static str>> = std::collections::BTreeMap::new();
    let mut refused: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    let mut checked = run_check(options)?;
    for _ in 0..FIX_ROUNDS {
        let plans: Vec<_> = fix_plans(&checked, target).into_iter().filter(|p| !refused.contains(&p.path)).collect();
        if plans.is_empty() {
            break;
        }
        for plan in plans {
            match fix::write(&options.root, &plan) {
                Ok(()) => fixed.entry(plan.path).or_default().extend(plan.rules),
                Err(e) => {
                    eprintln!("error: not fixing {}: {e}", printable::escape(&shown_path(target, &plan.path)));
                    refused.insert(plan.path);
                }
            }
        }
        checked = run_check(options)?;
    }
    let n: usize = fixed.values().map(Vec::len).sum();
    if n > 0 {
        say!("fixed {} in {}:", count(n, "finding"), count(fixed.len(), "file"));
        for (path, rules) in &fixed {
            say!("  {}: {}", printable::escape(&shown_path(target, path)), rule_counts(rules));
        }
    }
    Ok(checked)
}

/// The fixes a check offers, for the files the target names (all, for a folder).
fn fix_plans(checked: &Checked, target: &TargetFolder) -> Vec<fix::FileFix> {
    let mut plans = fix::plan(checked);
    if let Some(files) = &target.files {
        plans.retain(|p| files.contains(&p.path));
    }
    plans
}

/// `check --fix --diff`: the first round of fixes as a unified diff; nothing is written.
fn fix_diff(targets: &[TargetFolder], options_of: &[Options]) -> ExitCode {
    let mut diff = String::new();
    let (mut findings, mut files) = (0, 0);
    for (target, options) in targets.iter().zip(options_of) {
        let checked = match run_check(options) {
            Ok(c) => c,
            Err(code) => return code,
        };
        for mut plan in fix_plans(&checked, target) {
            findings += plan.rules.len();
            files += 1;
            plan.path = shown_path(target, &plan.path);
            diff.push_str(&fix::diff(&plan));
        }
    }
    // The diff shows the repository's text: no control character reaches the terminal raw.
    if write_stdout(&printable::escape_lines(&diff)).is_err() {
        return ExitCode::from(2);
    }
    if findings == 0 {
        say!("nothing to fix");
        return ExitCode::SUCCESS;
    }
    say!("would fix {} in {} (`capc check --fix` applies them)", count(findings, "finding"), count(files, "file"));
    ExitCode::from(1)
}

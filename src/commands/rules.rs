//! `capc rules [ID]` and `capc rules --config`.

use crate::commands::exit;
use crate::output::write_stdout;
use capc_compiler::config::Config;
use capc_compiler::{printable, rules};
use std::process::ExitCode;

/// `capc rules --config [PATH]`.
pub(crate) fn config_command(path: &std::path::Path) -> ExitCode {
    if let Err(e) = std::fs::metadata(path) {
        eprintln!("error: cannot read `{}`: {e}", printable::escape(&path.display().to_string()));
        return ExitCode::from(2);
    }
    let result = if path.is_file() {
        let root = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
        Config::read(root, path)
    } else {
        Config::load(path, None)
    };
    match result {
        Ok(config) => exit(write_stdout(&config.describe()), 0),
        Err(e) => {
            eprintln!("error: {}", printable::escape(&e.to_string()));
            ExitCode::from(2)
        }
    }
}

/// `unknown-field ×2, hooks-at-top-level`
pub(crate) fn rule_counts(rules: &[&str]) -> String {
    let mut counts: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for rule in rules {
        *counts.entry(rule).or_default() += 1;
    }
    counts
        .into_iter()
        .map(|(rule, n)| if n == 1 { rule.to_string() } else { format!("{rule} ×{n}") })
        .collect::<Vec<_>>()
        .join(", ")
}

pub(crate) fn terminal_width() -> usize {
    std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()).unwrap_or(100)
}

pub(crate) fn rules_command(id: Option<&str>) -> ExitCode {
    let output = match id {
        None => {
            let width = rules::RULES.iter().map(|r| r.id.len()).max().unwrap_or(0);
            rules::RULES
                .iter()
                .map(|r| format!("{:width$}  {:7}  {}\n", r.id, r.severity.as_str(), r.summary))
                .collect::<String>()
        }
        Some(id) => match rules::find(id) {
            Some(rule) => format!(
                "# {}\n\nDefault severity: {}. {}.\n\n{}",
                rule.id,
                rule.severity.as_str(),
                capitalize(rule.summary),
                rule.docs
            ),
            None => {
                let suggestion = capc_compiler::diagnostic::did_you_mean(id, rules::RULES.iter().map(|r| r.id));
                match suggestion {
                    Some(s) => eprintln!("error: no rule `{id}`; did you mean `{s}`?"),
                    None => eprintln!("error: no rule `{id}`; `capc rules` lists them all"),
                }
                return ExitCode::from(2);
            }
        },
    };
    if write_stdout(&output).is_err() {
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}

fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    chars.next().map(|c| c.to_uppercase().collect::<String>() + chars.as_str()).unwrap_or_default()
}

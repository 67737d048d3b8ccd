//! `capc man [COMMAND]`.

use crate::args::{Cli, VERSION};
use crate::commands::exit;
use crate::output::write_stdout;
use clap::CommandFactory;
use std::process::ExitCode;

/// `capc man [COMMAND]`: the page of capc, or of one subcommand (named `capc-COMMAND`).
pub(crate) fn man(command: Option<&str>) -> ExitCode {
    let mut cli = Cli::command();
    cli.build();
    let page = match command {
        None => cli,
        Some(name) => match cli.find_subcommand(name) {
            Some(sub) => {
                let sub = sub.clone();
                // clap names are `&'static str` (no `string` feature); one page, once per run.
                let title: &'static str = Box::leak(format!("capc-{}", sub.get_name()).into_boxed_str());
                sub.name(title).bin_name(title).version(VERSION.as_str())
            }
            None => {
                let names = cli.get_subcommands().map(|c| c.get_name()).collect::<Vec<_>>().join(", ");
                eprintln!("error: no subcommand `{name}`; pages: {names}");
                return ExitCode::from(2);
            }
        },
    };
    let mut out = Vec::new();
    if clap_mangen::Man::new(page).render(&mut out).is_err() {
        return ExitCode::from(2);
    }
    exit(write_stdout(&String::from_utf8_lossy(&out)), 0)
}

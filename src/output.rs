//! What every subcommand's output goes through.

use std::io::Write;

/// Writes to stdout; a closed pipe (`capc check | head`) is not an error worth a panic.
pub(crate) fn write_stdout(text: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

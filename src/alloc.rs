//! The process's allocator, mimalloc (why: Cargo.toml), and how capc tunes it (its purge delay;
//! no transparent huge pages): the only `unsafe` code in the workspace (`tests/it/tidy.rs`
//! keeps it so).

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay`, the sixteenth of `mimalloc.h`'s `mi_option_e` (the
/// bindings name no constant for it). The test below checks that this option has mimalloc's
/// default purge delay, 1,000 ms, which no other option has.
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// The purge delay capc sets, in milliseconds (see [`tune`]).
const PURGE_AFTER_MS: std::ffi::c_long = 10;

/// Freed memory goes back to the system after 10 ms instead of a second (mimalloc's
/// default), unless `MIMALLOC_PURGE_DELAY` in the environment says otherwise. `capc check`
/// and `capc lock` free one stage's data as the next allocates its own, most of it on other
/// threads: with the second's delay, the freed pages count in the resident set beside the new
/// ones (docs/performance.md, "Memory at scale": about 400 → 214 MiB for `capc check` of a
/// 100,000-file tree). 0 ms saves a few MiB more but costs `capc serve` 8% in time (pages
/// returned and faulted in again while a lock is decoded); 10 ms, mimalloc 2's own default,
/// costs nothing measurable.
///
/// On Linux, a command that starts no process of the user's (all but `capc serve` and `capc
/// session`) also gives up transparent huge pages (`PR_SET_THP_DISABLE`), unless
/// `MIMALLOC_ALLOW_THP` says otherwise: mimalloc asks for them on its arenas, and a huge page
/// is resident whole, 2 MiB, as soon as one byte of it is touched. Measured on the same tree
/// (docs/performance.md, "Huge pages"): `capc check` 183–191 → 170–179 MiB and `capc lock`
/// 200–215 → 173 MiB, no slower; `capc lsp` 328–338 → 315–317 MiB and faster to its first
/// diagnostics (it once measured the other way: 610–618 → 666–681 MiB, when it held several
/// times what it holds now). Not `serve` and `session`: they start the user's MCP servers and
/// `!` commands, which would inherit the flag ([`without_huge_pages_until_a_process_starts`]).
/// mimalloc's own `allow_thp` option cannot do it from here: mimalloc reads it when the process
/// starts, before `main`.
///
/// Called in `main` once the arguments are read, before any other thread.
#[allow(unsafe_code)]
pub(crate) fn tune(starts_no_process: bool) {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: `mi_option_set` takes two integers and writes mimalloc's own option table; no
        // pointer crosses. Only the main thread runs yet, so nothing reads the option meanwhile.
        unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, PURGE_AFTER_MS) }
    }
    #[cfg(target_os = "linux")]
    if starts_no_process && std::env::var_os("MIMALLOC_ALLOW_THP").is_none() {
        set_thp_disabled(true);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = starts_no_process;
}

/// Sets or clears this process's `PR_SET_THP_DISABLE` flag (the processes it starts inherit
/// it).
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn set_thp_disabled(disabled: bool) {
    // SAFETY: `prctl(PR_SET_THP_DISABLE, 0 or 1, 0, 0, 0)` takes integers only and sets a flag
    // of this process; no pointer crosses. Its result is not needed: a kernel without the call
    // leaves huge pages as they were.
    let _ = unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, libc::c_ulong::from(disabled), 0, 0, 0) };
}

/// Gives up transparent huge pages until capc starts a process of the user's, then gives them
/// back: for `capc serve` and `capc session`, which hold a whole check beside the lock they
/// read while they load, and then serve from what they built, but which start the user's MCP
/// servers, `!` commands and `headersHelper`s, which must inherit huge pages as capc found them
/// (the flag passes to a process's children). The runtime calls the hook set here before the
/// first such start (`launch::before_first_start`); what capc runs for itself meanwhile (`git`
/// for the local files a lock keeps) runs without, as under [`tune`]. Measured on a 100,000-file
/// tree (docs/performance.md, "Huge pages"). Nothing is changed when the flag is already set (by
/// the parent, or mimalloc's `MIMALLOC_ALLOW_THP=0`) or when `MIMALLOC_ALLOW_THP` is set.
///
/// Called on the main thread before any other thread starts.
#[allow(unsafe_code)]
pub(crate) fn without_huge_pages_until_a_process_starts() {
    #[cfg(target_os = "linux")]
    {
        if std::env::var_os("MIMALLOC_ALLOW_THP").is_some() {
            return;
        }
        // SAFETY: `prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0)` takes integers and returns the flag
        // of this process (or -1); no pointer crosses.
        let before = unsafe { libc::prctl(libc::PR_GET_THP_DISABLE, 0, 0, 0, 0) };
        if before != 0 {
            return;
        }
        set_thp_disabled(true);
        capc_runtime::launch::before_first_start(give_back_huge_pages);
    }
}

/// Clears the flag [`without_huge_pages_until_a_process_starts`] set (it was clear before).
#[cfg(target_os = "linux")]
fn give_back_huge_pages() {
    set_thp_disabled(false);
}

#[cfg(test)]
mod tests {
    use super::PURGE_DELAY;

    /// The option set is the purge delay: its default, 1,000 ms in mimalloc 3, is no other
    /// option's. A mimalloc whose options moved fails here, not silently in production.
    #[test]
    #[allow(unsafe_code)]
    fn the_option_set_is_mimallocs_purge_delay() {
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
            return;
        }
        // SAFETY: reads mimalloc's option table; no pointer crosses.
        let value = unsafe { libmimalloc_sys::mi_option_get(PURGE_DELAY) };
        assert_eq!(value, 1000, "option {PURGE_DELAY} is not mimalloc's purge delay (default 1000 ms)");
    }
}

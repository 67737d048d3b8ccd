//! The process's allocator, mimalloc (why: Cargo.toml), and the one option capc sets on it:
//! the only `unsafe` code in the workspace (`tests/it/tidy.rs` keeps it so).

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay`, the sixteenth of `mimalloc.h`'s `mi_option_e` (the
/// bindings name no constant for it). The test below checks that this option has mimalloc's
/// default purge delay, 1,000 ms, which no other option has.
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// The purge delay capc sets, in milliseconds (see [`return_freed_memory_soon`]).
const PURGE_AFTER_MS: std::ffi::c_long = 10;

/// Freed memory goes back to the system after 10 ms instead of a second (mimalloc's
/// default), unless `MIMALLOC_PURGE_DELAY` in the environment says otherwise. `capc check`
/// and `capc lock` free one stage's data as the next allocates its own, most of it on other
/// threads: with the second's delay, the freed pages count in the resident set beside the new
/// ones (docs/performance.md, "Memory at scale": about 400 → 214 MiB for `capc check` of a
/// 100,000-file tree). 0 ms saves a few MiB more but costs `capc serve` 8% in time (pages
/// returned and faulted in again while a lock is decoded); 10 ms, mimalloc 2's own default,
/// costs nothing measurable. Called first thing in `main`, before any other thread.
#[allow(unsafe_code)]
pub(crate) fn return_freed_memory_soon() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
        return;
    }
    // SAFETY: `mi_option_set` takes two integers and writes mimalloc's own option table; no
    // pointer crosses. Only the main thread runs yet, so nothing reads the option meanwhile.
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, PURGE_AFTER_MS) }
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

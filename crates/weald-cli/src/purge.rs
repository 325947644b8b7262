//! mimalloc's purge delay: how long freed memory stays with the process before it goes back
//! to the OS. Shared by the `weald` binary and the examples that time repeated work
//! (`#[path]`-included there), so they measure with the allocator settings `weald` uses.

/// mimalloc's `purge_delay` option (the index of `mi_option_purge_delay` in mimalloc.h).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Set mimalloc's purge delay (milliseconds before freed memory goes back to the OS), unless
/// `MIMALLOC_PURGE_DELAY` in the environment says otherwise.
pub(crate) fn set_purge_delay(ms: i64) {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: sets a plain integer option; mimalloc reads it on its next purge.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, ms as _) };
    }
}

/// Loading a file: return freed memory at once. Each phase frees what the next one does not
/// need (the read buffer and parsed blocks, then the edge list) just before the next phase
/// allocates its arrays, which touch few other allocations — so a delayed purge would not run
/// in time, and the freed memory would add to the peak (+86 MiB on RMAT scale 20 at 2
/// threads). Commands that repeat work switch to [`keep_freed_memory`].
pub(crate) fn return_freed_memory() {
    set_purge_delay(0);
}

/// Keep freed memory for a second before returning it to the OS (mimalloc's default is 10 ms):
/// a writer that frees the nodes of retired versions and allocates the next batch's would
/// otherwise hand pages back and fault them in again (zeroed) batch after batch — 25–35% of a
/// small batch's time; trials of an algorithm re-allocate their state the same way. Commands
/// that apply batches call this from the start, `run` once its graph is loaded.
pub(crate) fn keep_freed_memory() {
    set_purge_delay(1000);
}

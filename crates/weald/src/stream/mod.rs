//! # Streaming: concurrent ingest and queries, a write-ahead log, checkpoints, recovery and
//! historical versions
//!
//! A [`Store`] is a versioned C-tree graph kept in a *data directory*:
//!
//! ```text
//! DIR/WEALD                 manifest: format version, weight type, direction, b, combine rule
//! DIR/LOCK                  held (flock) by the process that has the store open
//! DIR/wal/<v>.wal           log segments; <v> = first version the segment may hold
//! DIR/checkpoints/<v>.wgb   checkpoints (Weald binary graphs with a metadata section)
//! DIR/pins                  `name version` lines (versions kept by name)
//! ```
//!
//! **Ingest.** [`Producer`]s (clonable, usable from any thread) send [`Update`]s. One writer
//! thread groups them into batches — sealed at `batch_size` updates, or `max_wait` after the
//! first, or (the default, `max_wait = 0`) as soon as nothing more is waiting — appends each
//! batch to the log as one checksummed record (group commit), applies it to the versioned
//! graph as the next version, and only then acknowledges it ([`Ticket::wait`] returns the
//! version). Readers [`Store::acquire`] the newest version wait-free. A batch — and so every
//! message, which is never split — is applied atomically, and its effect equals applying its
//! updates one by one in arrival order (runs of updates whose order does not matter go through
//! one parallel C-tree batch each; a `+ e` after a `- e` starts a new run).
//!
//! **Durability** ([`Fsync`]): `always` — acknowledged means on stable storage; `interval`
//! (default, 10 ms) — acknowledged means written to the OS, flushed within the interval;
//! `never` — written to the OS, flushed when the OS decides (and at clean close). Every policy
//! survives the process being killed; only `always` survives power loss with nothing lost.
//!
//! **Checkpoints** run in a background thread on a snapshot (ingest continues), after
//! `checkpoint_every` updates or on [`Store::checkpoint`]; each is installed atomically
//! (temporary file, `fsync`, rename, directory `fsync`). The two newest readable checkpoints are
//! kept (so a damaged newest one loses nothing) plus pinned ones, and log segments wholly older than
//! the older kept checkpoint are removed.
//!
//! **Recovery** ([`Store::open`]): the newest checkpoint that reads back, then every log record
//! after it, in order, each checked by its CRC. A torn tail (an incomplete or failing last
//! record with nothing valid after it) is cut off (a copy of the bytes cut is kept as a
//! `*.wal.tail-OFFSET.damaged` file) and reported in the [`RecoveryReport`];
//! damage with valid records after it is an error unless `salvage` is set, which keeps the
//! valid prefix in the log (the damaged segment is cut after it) and sets the rest aside as
//! `*.wal.damaged` files (a copy of the damaged segment, the later segments renamed).
//!
//! **History**: versions are kept in memory by a [`Retention`] rule (the last K, or those
//! newer than T) and on disk when pinned by name; [`Store::snapshot_at`],
//! [`Store::snapshot_at_time`] and [`Store::versions`] query them.

mod any;
pub mod checkpoint;
mod history;
mod replay;
mod store;
mod update;
mod wal;

pub use any::{AnyStore, At};
pub use checkpoint::CheckpointMeta;
pub use history::{
    format_time_ns, latest_ns_at_seconds, parse_time_ns, time_seconds, Retention, VersionInfo,
};
pub(crate) use store::apply_in_order;
pub use store::{
    Callback, Commit, Dropped, Event, Layout, Manifest, Producer, RecoveryReport, Store,
    StoreOptions, StreamStats, Ticket, DATA_FORMAT,
};
pub use update::{parse_vertex, Update};
pub use wal::Fsync;

/// `x` (in `unit`s, `per_second` of them in a second) as a duration, or an `Invalid` error
/// naming `what`: negative, NaN, infinite and too-large values are refused (the conversion
/// in `std` panics on them). The `weald stream` flags and Python's `Store` arguments go
/// through it.
pub fn duration_arg(
    what: &str,
    x: f64,
    per_second: f64,
    unit: &str,
) -> crate::Result<std::time::Duration> {
    std::time::Duration::try_from_secs_f64(x / per_second).map_err(|_| {
        // The largest duration, about 5.8e11 years: 1e20 seconds is finite but beyond it.
        let max = std::time::Duration::MAX.as_secs_f64() * per_second;
        crate::WealdError::Invalid(format!(
            "{what} must be a number of {unit} from 0 to {max:.1e} (got {x:?})"
        ))
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_duration_argument_outside_the_range_names_the_range() {
        let ms = super::duration_arg("--max-wait", 2.5, 1e3, "milliseconds").unwrap();
        assert_eq!(ms, std::time::Duration::from_micros(2500));
        for x in [-1.0, f64::NAN, f64::INFINITY, 1e20] {
            let e = super::duration_arg("--keep-seconds", x, 1.0, "seconds")
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("--keep-seconds must be a number of seconds from 0 to 1.8e19"),
                "{x}: {e}"
            );
        }
        let e = super::duration_arg("--max-wait", 1e300, 1e3, "milliseconds")
            .unwrap_err()
            .to_string();
        assert!(e.contains("from 0 to 1.8e22 (got 1e300)"), "{e}");
    }
}

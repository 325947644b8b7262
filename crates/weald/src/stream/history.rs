//! Historical versions: which versions are kept, and their listing.
//!
//! C-tree versions share all unchanged structure, so keeping a version costs only the nodes
//! later versions replaced. A version is kept in memory while the [`Retention`] rule says so;
//! a version *pinned* by name is also written as a checkpoint, so it survives restarts (it is
//! read back from disk when asked for). Dropping a version from the history frees its memory
//! once no reader holds a snapshot of it.

use std::collections::BTreeMap;
use std::time::{Duration, UNIX_EPOCH};
use weald_graph::Weight;
use weald_storage::ctree::Snapshot;

/// Which versions to keep for historical queries (a version is kept if any clause keeps it;
/// the newest version is always kept).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Retention {
    /// Keep the newest `last` versions.
    pub last: usize,
    /// Keep every version committed less than this long ago.
    pub newer_than: Option<Duration>,
}

impl Retention {
    /// The commit time from which on the `newer_than` clause keeps versions, at `now_ns`.
    pub(crate) fn horizon(&self, now_ns: u64) -> Option<u64> {
        self.newer_than
            .map(|d| now_ns.saturating_sub(u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)))
    }
}

impl Default for Retention {
    fn default() -> Self {
        Retention {
            last: 16,
            newer_than: None,
        }
    }
}

/// One retained version, as listed by [`super::Store::versions`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VersionInfo {
    pub version: u64,
    /// Commit time, nanoseconds since the Unix epoch.
    pub time_ns: u64,
    /// The tag of the batch (the producer's position in its input; 0 if none).
    pub tag: u64,
    /// Stored arcs (each undirected edge counts twice) and edges.
    pub arcs: u64,
    pub edges: u64,
    /// Names pinning this version.
    pub pins: Vec<String>,
    /// Held in memory (otherwise read from its checkpoint when asked for).
    pub in_memory: bool,
    /// A checkpoint of this version is on disk.
    pub on_disk: bool,
}

#[derive(Clone)]
pub(crate) struct Kept<W: Weight> {
    pub snap: Snapshot<W>,
    pub time_ns: u64,
    pub tag: u64,
}

/// The in-memory part of the history.
pub(crate) struct History<W: Weight> {
    pub kept: BTreeMap<u64, Kept<W>>,
    pub rule: Retention,
}

impl<W: Weight> History<W> {
    pub(crate) fn new(rule: Retention) -> Self {
        History {
            kept: BTreeMap::new(),
            rule,
        }
    }

    /// Record a new version and hand back what the rule no longer keeps (`pinned`: versions
    /// that stay regardless); the caller chooses when to free them.
    #[must_use = "dropping the result frees the versions"]
    pub(crate) fn push(
        &mut self,
        k: Kept<W>,
        now_ns: u64,
        pinned: &dyn Fn(u64) -> bool,
    ) -> Vec<Kept<W>> {
        self.kept.insert(k.snap.version(), k);
        let newest = *self.kept.keys().next_back().unwrap();
        let last = self.rule.last.max(1) as u64;
        let horizon = self.rule.horizon(now_ns);
        self.kept
            .extract_if(.., |&v, k| {
                !(v + last > newest || horizon.is_some_and(|h| k.time_ns >= h) || pinned(v))
            })
            .map(|(_, k)| k)
            .collect()
    }
}

/// A commit time (nanoseconds since the Unix epoch, as [`VersionInfo::time_ns`]) as RFC 3339
/// UTC, to the nanosecond: `2026-12-01T22:00:02.462349098Z`. Every digit is kept, so that the
/// time read back ([`parse_time_ns`]) is the commit time itself: one cut to the microsecond
/// falls before its own version's commit and picks the version before it.
pub fn format_time_ns(ns: u64) -> String {
    humantime::format_rfc3339_nanos(UNIX_EPOCH + Duration::from_nanos(ns)).to_string()
}

/// A time as nanoseconds since the Unix epoch, from those nanoseconds (digits only) or from a
/// UTC time: RFC 3339 (`2026-12-01T10:00:00Z`), or with a space for the `T` and without the
/// `Z` (`2026-12-01 10:00:00.25`), any number of fractional digits; no offsets. `None` if it
/// is neither, or outside 1970 to 2554 (the range of `u64` nanoseconds).
pub fn parse_time_ns(s: &str) -> Option<u64> {
    let t = s.trim();
    if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
        return t.parse().ok();
    }
    let at = humantime::parse_rfc3339_weak(t).ok()?;
    u64::try_from(at.duration_since(UNIX_EPOCH).ok()?.as_nanos()).ok()
}

/// A time in nanoseconds since the Unix epoch as float seconds (what Python's
/// `Store.versions()` reports as `time`).
pub fn time_seconds(ns: u64) -> f64 {
    ns as f64 / 1e9
}

/// The largest time in nanoseconds whose [`time_seconds`] are at most `t` seconds (`t` finite
/// and at least 0): the versions committed at or before it are exactly those whose time in
/// seconds is at most `t`, so a listed `time` picks its own version. (`t * 1e9` alone can land
/// up to a float's spacing, ~240 ns today, below the time it was made from, and pick the
/// version before.) `time_seconds` never decreases as `ns` grows, so the answer is bracketed
/// by steps that double and then found by halving.
pub fn latest_ns_at_seconds(t: f64) -> u64 {
    let fits = |ns: u64| time_seconds(ns) <= t;
    let mut lo = (t * 1e9) as u64; // saturates
    let mut step = 1u64;
    while lo > 0 && !fits(lo) {
        lo = lo.saturating_sub(step);
        step = step.saturating_mul(2);
    }
    // fits(lo) (0 fits every t ≥ 0); step up to an hi that does not fit.
    let (mut hi, mut step) = (lo.saturating_add(1), 1u64);
    while fits(hi) {
        if hi == u64::MAX {
            return hi;
        }
        lo = hi;
        step = step.saturating_mul(2);
        hi = hi.saturating_add(step);
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_parse_and_format_in_utc() {
        let ns = 1_796_162_402_462_349_098;
        assert_eq!(format_time_ns(ns), "2026-12-01T22:00:02.462349098Z");
        assert_eq!(format_time_ns(0), "1970-01-01T00:00:00.000000000Z");
        assert_eq!(parse_time_ns("1796162402462349098"), Some(ns));
        assert_eq!(
            parse_time_ns("2026-12-01T22:00:02.462349098Z"),
            Some(ns),
            "every fractional digit is kept"
        );
        assert_eq!(
            parse_time_ns(" 2026-12-01 22:00:02.5 "),
            Some(1_796_162_402_500_000_000)
        );
        assert_eq!(parse_time_ns(&format_time_ns(ns)), Some(ns));
        assert_eq!(parse_time_ns("1970-01-01T00:00:00Z"), Some(0));
        for bad in [
            "",
            "yesterday",
            "1969-12-31T23:59:59Z",
            "2026-13-01T00:00:00Z",
            "2026-12-01T10:00:00+01:00",
            "-5",
        ] {
            assert_eq!(parse_time_ns(bad), None, "{bad:?}");
        }
        // Past u64 nanoseconds (the year 2554).
        assert_eq!(parse_time_ns("18446744073709551616"), None);
        assert_eq!(parse_time_ns("2600-01-01T00:00:00Z"), None);
    }

    #[test]
    fn a_time_in_seconds_picks_every_nanosecond_it_stands_for() {
        let now = 1_796_162_402_462_349_098u64;
        for ns in (now..now + 2_000).chain([0, 1, 999_999_999, 1_000_000_000]) {
            let t = time_seconds(ns);
            let at = latest_ns_at_seconds(t);
            // The time it was made from is at or before it (`t * 1e9` alone falls short for
            // some: checked below), and it is the last nanosecond with those seconds.
            assert!(at >= ns, "{ns}: {at}");
            assert!(
                time_seconds(at) <= t && time_seconds(at + 1) > t,
                "{ns}: {at}"
            );
        }
        assert!(
            (now..now + 2_000).any(|ns| ((time_seconds(ns) * 1e9) as u64) < ns),
            "the plain conversion falls short somewhere (what this function is for)"
        );
        assert_eq!(latest_ns_at_seconds(f64::MAX), u64::MAX);
    }
}

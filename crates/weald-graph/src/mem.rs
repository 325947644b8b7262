//! Refusing work that cannot fit in memory before starting it.
//!
//! Rust aborts the process when an allocation fails, and on Linux a large allocation usually
//! succeeds and the process is killed later, when the memory is touched. Neither can be
//! reported as an error, so code that allocates by a size the caller chose (a vertex count, a
//! number of edges to generate) first checks a *lower bound* of what it will allocate against
//! the memory the machine has available: work that certainly cannot fit fails cleanly with
//! [`WealdError::OutOfMemory`]; work that might fit is never refused.

use crate::{Result, WealdError};

/// Work needing less than this is not checked.
const CHECK_FROM: u64 = 1 << 30;

/// Bytes of memory available to a new allocation: `MemAvailable + SwapFree` from
/// `/proc/meminfo` (`None` where that cannot be read, e.g. not on Linux).
pub fn available_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_meminfo(&text)
}

fn parse_meminfo(text: &str) -> Option<u64> {
    let field = |name: &str| -> Option<u64> {
        let line = text.lines().find(|l| l.starts_with(name))?;
        let kb: u64 = line[name.len()..]
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .ok()?;
        Some(kb * 1024)
    };
    Some(field("MemAvailable:")? + field("SwapFree:").unwrap_or(0))
}

/// Fail with [`WealdError::OutOfMemory`] if `bytes` (a lower bound of what `what` allocates;
/// `None` when computing it overflowed) exceeds the memory available.
pub fn ensure_fits(bytes: Option<u64>, what: impl FnOnce() -> String) -> Result<()> {
    if bytes.is_some_and(|b| b < CHECK_FROM) {
        return Ok(()); // not worth reading /proc/meminfo (snapshots call this each time)
    }
    let available = available_bytes();
    check(bytes, available, what)
}

fn check(bytes: Option<u64>, available: Option<u64>, what: impl FnOnce() -> String) -> Result<()> {
    let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
    match (bytes, available) {
        (None, _) => Err(WealdError::OutOfMemory(format!(
            "{} needs more memory than any machine has",
            what()
        ))),
        (Some(b), Some(a)) if b > a => Err(WealdError::OutOfMemory(format!(
            "{} needs at least {:.1} GiB of memory; {:.1} GiB are available",
            what(),
            gib(b),
            gib(a)
        ))),
        _ => Ok(()),
    }
}

/// `count * per` bytes, `None` on overflow (for [`ensure_fits`]).
pub fn bytes_for(count: u64, per: u64) -> Option<u64> {
    count.checked_mul(per)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meminfo_parses_and_the_check_refuses_only_what_cannot_fit() {
        let text = "MemTotal:       24684096 kB\nMemFree: 1 kB\nMemAvailable:   1000 kB\nSwapTotal: 0 kB\nSwapFree:   24 kB\n";
        assert_eq!(parse_meminfo(text), Some(1024 * 1024));
        assert_eq!(parse_meminfo("MemTotal: 5 kB\n"), None);
        let what = || "building it".to_string();
        assert!(check(Some(10), Some(10), what).is_ok());
        assert!(check(Some(10), None, what).is_ok());
        let e = check(Some(11 << 30), Some(1 << 30), what).unwrap_err();
        assert!(matches!(e, WealdError::OutOfMemory(_)));
        assert_eq!(
            e.to_string(),
            "building it needs at least 11.0 GiB of memory; 1.0 GiB are available"
        );
        assert!(check(None, Some(u64::MAX), what).is_err());
        assert!(ensure_fits(Some(CHECK_FROM - 1), what).is_ok());
        assert!(ensure_fits(None, what).is_err());
        assert_eq!(bytes_for(u64::MAX, 2), None);
        assert!(available_bytes().is_some_and(|a| a > 0) || !cfg!(target_os = "linux"));
    }
}

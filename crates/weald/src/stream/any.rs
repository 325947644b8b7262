//! [`AnyStore`]: a store of whatever weight type its data directory holds.

use super::history::VersionInfo;
use super::store::{Layout, Manifest, RecoveryReport, Store, StoreOptions};
use crate::any::AnyGraph;
use std::path::Path;
use weald_graph::{Result, WealdError, Weight};
use weald_storage::csr::{AnyCsr, Csr};
use weald_storage::ctree::CTreeGraph;

/// Which version of a store to read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum At {
    /// The newest version.
    Newest,
    /// This version (retained or pinned: [`Store::snapshot_at`]).
    Version(u64),
    /// The newest retained version committed at or before this time, in nanoseconds since
    /// the Unix epoch ([`Store::snapshot_at_time`]).
    TimeNs(u64),
}

/// A [`Store`] of the weight type found in the data directory's manifest.
pub enum AnyStore {
    Unweighted(Store<()>),
    Int(Store<i32>),
    Float(Store<f64>),
}

/// Run `$body` with `$s` bound to the concrete `Store<W>` inside an [`AnyStore`].
#[macro_export]
macro_rules! with_store {
    ($any:expr, $s:ident => $body:expr) => {
        match $any {
            $crate::stream::AnyStore::Unweighted($s) => $body,
            $crate::stream::AnyStore::Int($s) => $body,
            $crate::stream::AnyStore::Float($s) => $body,
        }
    };
}

impl AnyStore {
    /// Whether `dir` can receive a new store: it does not exist or is empty.
    pub fn is_fresh(dir: &Path) -> Result<bool> {
        Ok(!dir.exists()
            || std::fs::read_dir(dir)
                .map_err(|e| WealdError::io(dir, e))?
                .next()
                .is_none())
    }

    /// Create a data directory holding `base` (an empty graph if `None`) as version 0.
    /// `weight` is the stored weight type, `none`, `i32` or `f64` (default: the base's, else
    /// `none`); a base with other weights is an error. The layout's direction is the base's.
    /// With `original_ids`, a base with an id map (a relabelled file) is stored in those ids
    /// ([`CTreeGraph::try_from_csr_in_original_ids`]: the command line, whose updates name a
    /// file's ids); without, in its vertices `0..n` (Python, whose ids are a Graph's).
    pub fn create(
        dir: &Path,
        mut layout: Layout,
        weight: Option<&str>,
        base: Option<&AnyCsr>,
        original_ids: bool,
        opts: StoreOptions,
    ) -> Result<AnyStore> {
        fn make<W: Weight>(
            dir: &Path,
            layout: Layout,
            base: Option<&Csr<W>>,
            original_ids: bool,
            opts: StoreOptions,
        ) -> Result<Store<W>>
        where
            AnyCsr: From<Csr<W>>,
        {
            // Parallel arcs of a multigraph base are merged by the store's own rule.
            let (b, rule) = (layout.b, layout.combine);
            let g = base
                .map(|c| {
                    if original_ids {
                        CTreeGraph::try_from_csr_in_original_ids(c, b, rule)
                    } else {
                        CTreeGraph::try_from_csr_merging(c, b, rule)
                    }
                })
                .transpose()?;
            Store::create(dir, layout, g, opts)
        }
        if let Some(b) = base {
            layout.directed = b.is_directed();
        }
        let weight = weight.unwrap_or_else(|| base.map_or("none", |g| g.weight_name()));
        let mismatch = || {
            WealdError::WeightMismatch(format!(
                "weight type `{weight}` differs from the base graph's weights ({})",
                base.map_or("none", |g| g.weight_name())
            ))
        };
        Ok(match (weight, base) {
            ("none", None) => AnyStore::Unweighted(make::<()>(dir, layout, None, false, opts)?),
            ("i32", None) => AnyStore::Int(make::<i32>(dir, layout, None, false, opts)?),
            ("f64", None) => AnyStore::Float(make::<f64>(dir, layout, None, false, opts)?),
            ("none", Some(AnyCsr::Unweighted(g))) => {
                AnyStore::Unweighted(make(dir, layout, Some(g), original_ids, opts)?)
            }
            ("i32", Some(AnyCsr::Int(g))) => {
                AnyStore::Int(make(dir, layout, Some(g), original_ids, opts)?)
            }
            ("f64", Some(AnyCsr::Float(g))) => {
                AnyStore::Float(make(dir, layout, Some(g), original_ids, opts)?)
            }
            ("none" | "i32" | "f64", Some(_)) => return Err(mismatch()),
            (w, _) => {
                return Err(WealdError::Invalid(format!(
                    "unknown weight type `{w}` (expected none, i32 or f64)"
                )))
            }
        })
    }

    /// Open (and recover) the data directory `dir`.
    pub fn open(dir: &Path, opts: StoreOptions) -> Result<AnyStore> {
        let m = Manifest::read(dir)?;
        Ok(match m.weight.as_str() {
            "i32" => AnyStore::Int(Store::open(dir, opts)?),
            "f64" => AnyStore::Float(Store::open(dir, opts)?),
            _ => AnyStore::Unweighted(Store::open(dir, opts)?),
        })
    }

    pub fn recovery(&self) -> &RecoveryReport {
        with_store!(self, s => s.recovery())
    }

    pub fn manifest(&self) -> &Manifest {
        with_store!(self, s => s.manifest())
    }

    pub fn versions(&self) -> Result<Vec<VersionInfo>> {
        with_store!(self, s => s.versions())
    }

    /// The graph of the version `at` picks, with that version's number, as an [`AnyGraph`]
    /// (see [`crate::any::flat_of_version`] for its ids).
    pub fn graph(&self, at: At) -> Result<(u64, AnyGraph)> {
        with_store!(self, s => {
            let snap = match at {
                At::Newest => s.acquire(),
                At::Version(v) => s.snapshot_at(v)?,
                At::TimeNs(t) => s.snapshot_at_time(t)?,
            };
            Ok((snap.version(), AnyGraph::of_version(snap.graph())?))
        })
    }

    /// Stop the writer and sync the log.
    pub fn close(self) -> Result<()> {
        with_store!(self, s => s.close().map(|_| ()))
    }
}

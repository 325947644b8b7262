//! [`AnyStore`]: a store of whatever weight type its data directory holds.

use super::history::VersionInfo;
use super::store::{Manifest, RecoveryReport, Store, StoreOptions};
use crate::any::{AnyFlat, AnyGraph};
use std::path::Path;
use weald_graph::Result;
use weald_storage::ctree::FlatSnapshot;

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

    /// The graph of `version` (the newest if `None`) as an [`AnyGraph`].
    pub fn graph(&self, version: Option<u64>) -> Result<(u64, AnyGraph)> {
        macro_rules! flat {
            ($s:expr, $variant:ident) => {{
                let snap = match version {
                    Some(v) => $s.snapshot_at(v)?,
                    None => $s.acquire(),
                };
                (
                    snap.version(),
                    AnyGraph::CTree(AnyFlat::$variant(FlatSnapshot::new(snap.graph())), None),
                )
            }};
        }
        Ok(match self {
            AnyStore::Unweighted(s) => flat!(s, Unweighted),
            AnyStore::Int(s) => flat!(s, Int),
            AnyStore::Float(s) => flat!(s, Float),
        })
    }

    /// Stop the writer and sync the log.
    pub fn close(self) -> Result<()> {
        with_store!(self, s => s.close().map(|_| ()))
    }
}

//! Checkpoints: one version of the graph in Weald's binary format (`.wgb`, readable by every
//! `weald` command), with a metadata section holding what the CSR cannot: the version number,
//! its commit time and tag, the chunk parameter, and the vertices that are absent although
//! their id is below `n`.
//!
//! Installed atomically: written to a temporary file `checkpoints/<version>.wgb.<unique>.tmp`
//! (unique per write, so a pin and a background checkpoint of the same version never write one
//! file), `fsync`ed, renamed to `checkpoints/<version, 20 digits>.wgb`, and the directory
//! `fsync`ed. A leftover `.tmp` file (a crash during the write) is ignored, and removed at the
//! next open, before anything can be writing one.

use super::wal::sync_dir;
use std::fs;
use std::path::{Path, PathBuf};
use weald_graph::batch::Combine;
use weald_graph::codec::{get_varint, put_varint};
use weald_graph::{Graph, InGraph, Result, Vertex, WealdError, Weight};
use weald_io::binary;
use weald_storage::csr::{AnyCsr, Csr};
use weald_storage::ctree::CTreeGraph;

const META_MAGIC: [u8; 8] = *b"WEALDCKP";
/// The newest metadata version written and read. Version 1 holds the version's id space
/// `0..n` and lists the absent ids below `n`; version 2 (written only when the ids are sparse,
/// [`CTreeGraph::ids_are_sparse`], so that a dense checkpoint stays readable by builds that
/// know only version 1) holds the present vertices relabelled, with the file's id map giving
/// their ids, and lists no absent ids.
const META_VERSION: u32 = 2;

/// What a checkpoint records about its version.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CheckpointMeta {
    pub version: u64,
    pub time_ns: u64,
    pub tag: u64,
}

/// The checkpoint file name of `version`.
pub(crate) fn file_name(version: u64) -> String {
    format!("{version:020}.wgb")
}

/// The checkpoints in `dir`, sorted by version (temporary files are not listed).
pub(crate) fn list(dir: &Path) -> Result<Vec<(u64, PathBuf)>> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).map_err(|e| WealdError::io(dir, e))? {
        let e = e.map_err(|e| WealdError::io(dir, e))?;
        let name = e.file_name().to_string_lossy().into_owned();
        if let Some(num) = name.strip_suffix(".wgb") {
            if let (20, Ok(v)) = (num.len(), num.parse::<u64>()) {
                out.push((v, e.path()));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Remove the temporary files of checkpoint writes a crash interrupted. Only while nothing
/// writes checkpoints (at open, holding the directory lock).
pub(crate) fn remove_leftovers(dir: &Path) -> Result<()> {
    for e in fs::read_dir(dir).map_err(|e| WealdError::io(dir, e))? {
        let e = e.map_err(|e| WealdError::io(dir, e))?;
        if e.file_name().to_string_lossy().ends_with(".tmp") {
            fs::remove_file(e.path()).map_err(|x| WealdError::io(e.path(), x))?;
        }
    }
    Ok(())
}

/// Write `graph` as the checkpoint of `meta.version` and install it atomically (`pause`:
/// testing only, a sleep between writing the temporary file and renaming it).
pub(crate) fn write<W: Weight>(
    dir: &Path,
    graph: &CTreeGraph<W>,
    meta: CheckpointMeta,
    pause: Option<std::time::Duration>,
) -> Result<PathBuf>
where
    AnyCsr: From<Csr<W>>,
{
    let tmp = write_tmp(dir, graph, meta)?;
    if let Some(p) = pause {
        std::thread::sleep(p); // testing: widen the window between writing and installing
    }
    install(dir, &tmp, meta.version)
}

/// Rename a temporary file from [`write_tmp`] to the checkpoint of `version` (replacing one
/// that exists: both hold the same version) and make the rename durable.
pub(crate) fn install(dir: &Path, tmp: &Path, version: u64) -> Result<PathBuf> {
    let path = dir.join(file_name(version));
    fs::rename(tmp, &path).map_err(|e| WealdError::io(&path, e))?;
    sync_dir(dir)?;
    Ok(path)
}

/// Write the checkpoint of `meta.version` to a new temporary file in `dir`, `fsync`ed; returns
/// its path (install it with [`install`]).
pub(crate) fn write_tmp<W: Weight>(
    dir: &Path,
    graph: &CTreeGraph<W>,
    meta: CheckpointMeta,
) -> Result<PathBuf>
where
    AnyCsr: From<Csr<W>>,
{
    static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    // A sparse version is written relabelled (metadata version 2): its size then follows the
    // vertices, not the id space.
    let relabelled = graph.ids_are_sparse().then(|| graph.relabelled());
    // The CSR is built in memory first: refuse one that cannot fit (offsets per vertex slot,
    // targets and weights per arc, twice with in-arcs) instead of aborting on the allocation.
    let n = relabelled
        .as_ref()
        .map_or(graph.num_vertices(), |(_, ids)| ids.len()) as u64;
    let arcs = graph.num_arcs() as u64;
    let sides = 1 + u64::from(graph.is_directed() && graph.has_in_edges());
    let bytes = weald_graph::mem::bytes_for(n + 1, 8)
        .zip(weald_graph::mem::bytes_for(arcs, 4 + W::BYTES as u64))
        .and_then(|(o, a)| o.checked_add(a))
        .and_then(|b| b.checked_mul(sides));
    weald_graph::mem::ensure_fits(bytes, || {
        format!(
            "the checkpoint of version {} ({n} vertex slots, {arcs} arcs)",
            meta.version
        )
    })?;
    let (csr, mv, absent) = match relabelled {
        None => (Csr::from_graph(graph), 1u32, absent_ids(&graph.vertices())),
        // No absent ids are listed: the id map says which ids are vertices.
        Some((g, ids)) => (crate::any::csr_with_ids(&g, Some(&ids)), 2, Vec::new()),
    };
    let csr = AnyCsr::from(csr);
    let mut m = Vec::new();
    m.extend_from_slice(&META_MAGIC);
    m.extend_from_slice(&mv.to_le_bytes());
    m.extend_from_slice(&meta.version.to_le_bytes());
    m.extend_from_slice(&meta.time_ns.to_le_bytes());
    m.extend_from_slice(&meta.tag.to_le_bytes());
    m.extend_from_slice(&graph.options().b.to_le_bytes());
    // The absent ids below n, difference-coded.
    put_varint(&mut m, absent.len() as u64);
    let mut prev = 0u64;
    for &a in &absent {
        put_varint(&mut m, a as u64 - prev);
        prev = a as u64;
    }
    let unique = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!(
        "{}.{}-{unique}.tmp",
        file_name(meta.version),
        std::process::id()
    ));
    if let Err(e) = binary::write_with_meta(&csr, &tmp, Some(&m), true) {
        let _ = fs::remove_file(&tmp); // a partial file holds nothing of use
        return Err(e);
    }
    Ok(tmp)
}

/// The ids below the largest of `present` (sorted) that are not in it.
fn absent_ids(present: &[Vertex]) -> Vec<Vertex> {
    let mut absent = Vec::new();
    let mut next = 0 as Vertex;
    for &v in present {
        absent.extend(next..v);
        next = v + 1;
    }
    absent
}

/// A checkpoint read back: the graph (of the weight type of the file) and its metadata.
pub(crate) struct Loaded {
    pub graph: AnyCsr,
    pub meta: CheckpointMeta,
    pub b: u32,
    pub absent: Vec<Vertex>,
}

/// Read a checkpoint file, checking everything.
pub(crate) fn read(path: &Path) -> Result<Loaded> {
    let (graph, meta) = binary::read_with_meta(path, None)?;
    let ferr = |message: &str| WealdError::Format {
        path: path.to_path_buf(),
        message: format!("not a valid checkpoint: {message}"),
    };
    let m = meta.ok_or_else(|| ferr("it has no checkpoint metadata section"))?;
    if m.len() < 40 || m[..8] != META_MAGIC {
        return Err(ferr("bad metadata magic"));
    }
    let u64_at = |i: usize| u64::from_le_bytes(m[i..i + 8].try_into().unwrap());
    let mv = u32::from_le_bytes(m[8..12].try_into().unwrap());
    if mv > META_VERSION {
        return Err(ferr(&format!(
            "checkpoint metadata version {mv} is newer than this build reads; upgrade Weald"
        )));
    }
    let meta = CheckpointMeta {
        version: u64_at(12),
        time_ns: u64_at(20),
        tag: u64_at(28),
    };
    let b = u32::from_le_bytes(m[36..40].try_into().unwrap());
    let absent = decode_absent(&m[40..], graph.num_vertices() as u64)
        .ok_or_else(|| ferr("the absent-vertex list does not decode"))?;
    // Version 2 is relabelled (an id map, no absent list); version 1 keeps its ids.
    match (mv, graph.original_ids().is_some(), absent.is_empty()) {
        (2, true, true) | (0 | 1, false, _) => {}
        (2, false, _) => return Err(ferr("a relabelled checkpoint without an id map")),
        (2, true, false) => return Err(ferr("a relabelled checkpoint lists absent ids")),
        _ => return Err(ferr("an id map in a checkpoint of metadata version 1")),
    }
    if b == 0 {
        return Err(ferr("chunk parameter b = 0"));
    }
    Ok(Loaded {
        graph,
        meta,
        b,
        absent,
    })
}

/// Decode the absent-vertex list (a count, then difference-coded ids, strictly increasing and
/// below `n`); `None` if the bytes are not such a list.
fn decode_absent(m: &[u8], n: u64) -> Option<Vec<Vertex>> {
    let mut pos = 0;
    let count = get_varint(m, &mut pos)?;
    // Every entry takes at least one byte: do not trust a count the bytes cannot hold.
    if count > (m.len() - pos) as u64 {
        return None;
    }
    let mut absent = Vec::with_capacity(count as usize);
    let mut next = 0u64; // the smallest id the next entry may have
    for i in 0..count {
        let d = get_varint(m, &mut pos)?;
        let id = if i == 0 {
            d
        } else {
            (next - 1).checked_add(d)?
        };
        if id < next || id >= n {
            return None;
        }
        absent.push(id as Vertex);
        next = id + 1;
    }
    Some(absent)
}

/// Turn a loaded checkpoint into the C-tree graph it was written from, in the ids of its id
/// map if it has one (`OutOfMemory` if its vertex count, read from the file, certainly cannot
/// fit).
pub(crate) fn to_ctree<W: Weight>(
    csr: &Csr<W>,
    b: u32,
    absent: &[Vertex],
) -> Result<CTreeGraph<W>> {
    let g = CTreeGraph::try_from_csr_in_original_ids(csr, b, Combine::Min)?;
    Ok(if absent.is_empty() {
        g
    } else {
        g.delete_vertices(absent).0
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(entries: &[u64]) -> Vec<u8> {
        let mut m = Vec::new();
        put_varint(&mut m, entries.len() as u64);
        for &e in entries {
            put_varint(&mut m, e);
        }
        m
    }

    #[test]
    fn absent_list_decodes_and_rejects_what_the_writer_cannot_produce() {
        assert_eq!(decode_absent(&list(&[]), 10), Some(vec![]));
        assert_eq!(decode_absent(&list(&[2, 1, 5]), 10), Some(vec![2, 3, 8]));
        // An id at or past n, a repeated id, an overflowing difference, a short list.
        assert_eq!(decode_absent(&list(&[2, 8]), 10), None);
        assert_eq!(decode_absent(&list(&[2, 0]), 10), None);
        assert_eq!(decode_absent(&list(&[3, u64::MAX]), u64::MAX), None);
        assert_eq!(decode_absent(&list(&[3, u64::MAX - 2]), u64::MAX), None);
        let mut short = list(&[1, 1]);
        short.pop();
        assert_eq!(decode_absent(&short, 10), None);
        assert_eq!(decode_absent(&[], 10), None);
    }

    /// A checkpoint's id map and its metadata version must agree: version 2 (relabelled) has
    /// an id map and no absent list, version 1 no id map.
    #[test]
    fn metadata_version_and_id_map_must_agree() {
        let t = tempfile::tempdir().unwrap();
        let meta = CheckpointMeta {
            version: 3,
            time_ns: 5,
            tag: 7,
        };
        let top = weald_graph::MAX_VERTEX;
        let sparse = CTreeGraph::<()>::new(Default::default())
            .insert_edges(&[(0, top, ())], Combine::Min)
            .0;
        let dense = CTreeGraph::<()>::new(Default::default())
            .insert_edges(&[(0, 2, ())], Combine::Min)
            .0;
        for (g, mv, ids) in [(&sparse, 2, true), (&dense, 1, false)] {
            let tmp = write_tmp(t.path(), g, meta).unwrap();
            let l = read(&tmp).unwrap();
            assert_eq!(l.meta, meta);
            assert_eq!(l.graph.original_ids().is_some(), ids);
            let (csr, m) = binary::read_with_meta(&tmp, None).unwrap();
            let m = m.unwrap();
            assert_eq!(u32::from_le_bytes(m[8..12].try_into().unwrap()), mv);
            let AnyCsr::Unweighted(c) = &l.graph else {
                panic!("unweighted")
            };
            let back = to_ctree(c, l.b, &l.absent).unwrap();
            assert_eq!(back.vertices(), g.vertices());
            assert_eq!(back.arcs(), g.arcs());
            // The other metadata version on the same graph is refused.
            let mut other = m.clone();
            other[8..12].copy_from_slice(&(3 - mv).to_le_bytes());
            let bad = t.path().join("bad.wgb");
            binary::write_with_meta(&csr, &bad, Some(&other), true).unwrap();
            let err = read(&bad)
                .err()
                .expect("a mismatched checkpoint reads")
                .to_string();
            assert!(err.contains("id map"), "{err}");
        }
    }
}

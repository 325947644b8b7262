//! Fuzzing the text readers: random bytes and random mutations of valid files must give `Ok` or
//! `Err`, never a panic. Bounded to 256 cases per property.

use proptest::prelude::*;
use std::io::Write;
use weald_io::{load, read_edges, Format, LoadOptions};

const SAMPLES: [(Format, &str); 8] = [
    (Format::EdgeList, "# c\n1 2\n2\t3\r\n\n3,1 7\n"),
    (
        Format::EdgeList,
        "% asym posweighted\n% 3 3 3\n1 2 0.5\n2 3 1\n3 1 2e3\n",
    ),
    (Format::Csv, "source,target,w\n1,2,4\n2,3,-1\n"),
    (Format::Temporal, "1 2 100\n2 3 100.5\n3 1 99\n"),
    (
        Format::MatrixMarket,
        "%%MatrixMarket matrix coordinate real symmetric\n% x\n3 3 3\n2 1 1.5\n3 1 2\n3 2 -1\n",
    ),
    (Format::Dimacs, "c x\np sp 3 3\na 1 2 5\na 2 3 1\na 3 1 7\n"),
    (Format::Metis, "% c\n4 2 1\n2 5 3 1\n1 5\n1 1\n\n"),
    (
        Format::Ligra,
        "WeightedAdjacencyGraph\n3\n3\n0\n1\n2\n1\n2\n0\n4\n5\n6\n",
    ),
];

fn try_all(bytes: &[u8], format: Format) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("f");
    std::fs::File::create(&p).unwrap().write_all(bytes).unwrap();
    for weighted in [None, Some(true), Some(false)] {
        for directed in [None, Some(true), Some(false)] {
            let opts = LoadOptions {
                format: Some(format),
                weighted,
                directed,
                ..Default::default()
            };
            // Either result is fine; a panic fails the test.
            let _ = read_edges(&p, &opts);
        }
    }
    let opts = LoadOptions {
        format: Some(format),
        ..Default::default()
    };
    // Building allocates O(n) for the declared n: only build small graphs.
    if read_edges(&p, &opts).is_ok_and(|r| r.edges.num_vertices() < 1 << 20) {
        let _ = load(&p, &opts);
    }
}

#[test]
fn samples_are_valid() {
    for (f, text) in SAMPLES {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, text).unwrap();
        let opts = LoadOptions {
            format: Some(f),
            ..Default::default()
        };
        let g = load(&p, &opts).unwrap_or_else(|e| panic!("{f}: {e}"));
        assert!(g.graph.num_arcs() > 0, "{f}");
    }
}

#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Insert(usize, u8),
    Delete(usize),
    Truncate(usize),
    Duplicate(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let interesting = prop_oneof![
        any::<u8>(),
        Just(b'\n'),
        Just(b'\r'),
        Just(b' '),
        Just(b','),
        Just(b'-'),
        Just(b'%'),
        Just(b'#'),
        Just(b'9'),
        Just(b'0'),
        Just(b'.'),
        Just(b'e'),
    ];
    prop_oneof![
        (any::<usize>(), interesting.clone()).prop_map(|(i, b)| Mutation::Flip(i, b)),
        (any::<usize>(), interesting).prop_map(|(i, b)| Mutation::Insert(i, b)),
        any::<usize>().prop_map(Mutation::Delete),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), 1usize..20).prop_map(|(i, k)| Mutation::Duplicate(i, k)),
    ]
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    if bytes.is_empty() {
        return;
    }
    let len = bytes.len();
    match *m {
        Mutation::Flip(i, b) => bytes[i % len] = b,
        Mutation::Insert(i, b) => bytes.insert(i % (len + 1), b),
        Mutation::Delete(i) => {
            bytes.remove(i % len);
        }
        Mutation::Truncate(i) => bytes.truncate(i % len),
        Mutation::Duplicate(i, k) => {
            let i = i % len;
            let end = (i + k).min(len);
            let piece = bytes[i..end].to_vec();
            for (j, b) in piece.into_iter().enumerate() {
                bytes.insert(end + j, b);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300), f in 0usize..8) {
        try_all(&bytes, SAMPLES[f].0);
    }

    #[test]
    fn random_digit_soup_never_panics(
        bytes in proptest::collection::vec(prop_oneof![Just(b'1'), Just(b'0'), Just(b' '), Just(b'\n'), Just(b'-'), Just(b'9')], 0..200),
        f in 0usize..8,
    ) {
        try_all(&bytes, SAMPLES[f].0);
    }

    #[test]
    fn mutated_samples_never_panic(f in 0usize..8, muts in proptest::collection::vec(mutation(), 1..6)) {
        let (format, text) = SAMPLES[f];
        let mut bytes = text.as_bytes().to_vec();
        for m in &muts {
            apply(&mut bytes, m);
        }
        try_all(&bytes, format);
    }

    /// The parse does not depend on the block size (block boundaries, carried lines).
    #[test]
    fn block_size_does_not_change_results(
        edges in proptest::collection::vec((0u32..500, 0u32..500, -50i32..50), 0..400),
        block in 64usize..600,
    ) {
        let mut text = String::from("# comment\nsrc dst w\n");
        for (u, v, w) in &edges {
            text.push_str(&format!("{u}\t{v} {w}\r\n"));
        }
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("g.txt");
        std::fs::write(&p, &text).unwrap();
        let opts = LoadOptions { weighted: Some(true), ..Default::default() };
        let a = read_edges(&p, &opts).unwrap();
        weald_io::text::set_block_size(block);
        let b = read_edges(&p, &opts);
        weald_io::text::set_block_size(weald_io::text::BLOCK);
        let b = b.unwrap();
        prop_assert_eq!(&a, &b);
        prop_assert_eq!(a.edges.len(), edges.len());
    }
}

/// A small binary graph file (directed, weighted, with in-arcs and an id map).
fn binary_sample() -> Vec<u8> {
    use weald_storage::{BuildOptions, Csr};
    let el = weald_io::gen::add_weights_int(&weald_io::gen::uniform(20, 60, 3), 1, 5, 3);
    let el = weald_graph::EdgeList {
        num_vertices: el.num_vertices * 3,
        src: el.src.iter().map(|v| v * 3).collect(),
        dst: el.dst.iter().map(|v| v * 3).collect(),
        weights: el.weights,
    };
    let (g, _) = Csr::build(
        el,
        &BuildOptions {
            directed: true,
            relabel: true,
            ..Default::default()
        },
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("g.wgb");
    weald_io::save(&g.into(), &p, None).unwrap();
    std::fs::read(&p).unwrap()
}

/// Recompute every section checksum and the header checksum, so that a mutation reaches the
/// structural validation instead of stopping at a checksum.
fn reseal(bytes: &mut [u8]) {
    let k = u32::from_le_bytes(bytes[32..36].try_into().unwrap()) as usize;
    for s in 0..k {
        let e = 64 + 32 * s;
        let off = u64::from_le_bytes(bytes[e + 8..e + 16].try_into().unwrap()) as usize;
        let len = u64::from_le_bytes(bytes[e + 16..e + 24].try_into().unwrap()) as usize;
        let crc = crc32fast::hash(&bytes[off..off + len]);
        bytes[e + 24..e + 28].copy_from_slice(&crc.to_le_bytes());
    }
    let mut h = crc32fast::Hasher::new();
    h.update(&bytes[..36]);
    h.update(&bytes[64..64 + 32 * k]);
    let crc = h.finalize();
    bytes[36..40].copy_from_slice(&crc.to_le_bytes());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    /// Corrupt section contents with valid checksums: structural validation must catch it
    /// (or the graph is still valid); never a panic.
    #[test]
    fn resealed_binary_mutations_never_panic(
        muts in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..4),
        raw in any::<bool>(),
    ) {
        let mut bytes = binary_sample();
        let table_end = 64 + 32 * u32::from_le_bytes(bytes[32..36].try_into().unwrap()) as usize;
        for (i, b) in muts {
            let i = table_end + i % (bytes.len() - table_end);
            bytes[i] = b;
        }
        if !raw {
            reseal(&mut bytes);
        }
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("m.wgb");
        std::fs::write(&p, &bytes).unwrap();
        let r = load(&p, &LoadOptions::default());
        if raw {
            // Unless every mutation rewrote a byte with its own value, a checksum catches it.
            let ok = r.is_ok() || matches!(r, Err(weald_graph::WealdError::Format { .. }));
            prop_assert!(ok, "{:?}", r.err());
        }
    }
}

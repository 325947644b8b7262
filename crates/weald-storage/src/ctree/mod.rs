//! # C-trees (Aspen-style) — a purely-functional, compressed, versioned graph store
//!
//! ## Structure
//!
//! * **C-tree** ([`CTreeSet`], and the edge trees inside the graph): an ordered set of
//!   `(u32 key, W weight)` elements. An element `x` is a *head* iff
//!   `(fmix32(x ^ SEED_HEAD) * b) >> 32 == 0` (probability `1/b`, `b = 256` by default,
//!   configurable per graph); heads live in a treap, each owning the *tail chunk* of
//!   non-heads up to the next head. Non-heads before the first head form the *prefix* chunk,
//!   which is stored inline in the owner (a vertex node), so a vertex whose neighbours hold no
//!   head costs no edge-tree node at all. The chunking is a function of the set only, so equal
//!   sets have equal shapes.
//! * **Balancing**: treaps whose priorities are a second hash of the key
//!   (`fmix32(x ^ SEED_PRIO)`, ties broken by key; the vertex tree ranks block keys first by
//!   the trailing zeros of `key + 1`, so that dense ids make a balanced tree), so shapes are
//!   canonical and no priority is stored. All updates are join-based (`join3`, `join2`) with
//!   path copying; nodes are reference-counted (`Arc`, and `counted::Counted` for vertex-tree
//!   nodes), shared between versions and never mutated.
//! * **Vertex tree** (`vtree.rs`): the same kind of treap, over *blocks* of 16 consecutive
//!   vertex ids. A block node holds a mask of the ids present, a mask of those with edges, and
//!   one shared array of exactly those ids' edge C-trees (16 bytes each: prefix-chunk and root
//!   pointers); a node counts its own block's arcs and its subtree's nodes, and the tree
//!   (`vtree::VTree`) its total arcs, so `num_arcs()` is O(1). A vertex without edges costs
//!   no slot, and the tree has n/16 nodes instead of n.
//!   Symmetric graphs store each edge in both directions; directed graphs store out-trees and,
//!   optionally, a second vertex tree of in-trees.
//!
//! ## Chunk layout (bytes; see `chunk.rs`)
//!
//! One immutable allocation per chunk, reached by an 8-byte thin pointer (null = empty) and
//! shared between versions by reference counting (path copying never copies chunk bytes):
//! `u32 refcount | u32 length | varint count | u8 width | varint zigzag(first - base) |
//! gaps bit-packed at `width` bits each | varint (last - first) | weights (W::BYTES each,
//! little-endian; nothing for W = ())`. `base` is the source vertex for a prefix and the
//! head for a tail, so neighbours close to their source cost few bits. Count and first are
//! O(1) from the header, last from the span after the gaps (whose length the count and
//! width give). Counts are varints (no limit on chunk size or degree). One width per chunk,
//! that of its widest gap (the encoding is canonical: equal sets give equal bytes).
//! A chunk of at most 7 encoded bytes (one unweighted element, or a few close ones) is kept
//! in the pointer's own word instead, tagged by its low bit: no allocation, no count, no
//! line to load. Measured
//! (2026-11-29, Intel Xeon, 1 thread, one process alternating two graphs built with and
//! without it, the batches Python's benchmark inserts: RMAT samples whose ids are permuted,
//! so ~38 % of their arcs land on ids without edges): in-place inserts of 1e5 edges 4–5 %
//! faster (59.0 → 55.9 and 61.1 → 58.7 ms), deletes 0.5–1.5 %; batches of 10 and 1000 and
//! BFS on a snapshot even; the RMAT scale-20 graph's chunk bytes 65.4 → 63.4 MB, 2.80 → 2.74
//! bytes per arc in all (its ~140,000 vertices of degree one hold no allocation).
//!
//! ## Chunk size (b)
//!
//! The default b = 256 is Aspen's, so that the figures compare with its published ones. A
//! larger b gives fewer heads: fewer edge-tree nodes to walk in a scan and to copy in a large
//! batch, and fewer chunks to restart decoding at. But an update that lands in a hub's chunk
//! copies a chunk of ~b elements. Measured 2026-12-07 on an Intel Xeon host, 1 thread,
//! RMAT scale 20, `--chunk-b` (or `B=` for `backends_ab`):
//!
//! | b | bytes per arc | snapshot over the CSR: PageRank / BC / MIS / BFS | hub batches of 10 / 1e3 / 1e5 / 1e6, inserted edges/s |
//! |---|---|---|---|
//! | 256 | 2.76 | 1.46 / 1.41–1.43 / 1.19–1.20 / 1.50–1.53 | 1.6–2.2e5 / 2.4–2.5e5 / 6.7–7.2e5 / 2.3–2.6e6 |
//! | 512 | 2.65 | 1.41 / 1.36 / 1.18 / 1.50 | 2.1–2.2e5 / 2.5e5 / 7.7e5 / 2.6e6 |
//! | 1024 | 2.60 | 1.37 / 1.37 / 1.17 / 1.51 | 2.0e5 / 2.2–2.4e5 / 8.2e5 / 2.8e6 |
//! | 4096 | 2.54 | — / 1.32 / 1.17 / 1.50 | 1.6e5 / 1.8e5 / 8.7–8.9e5 / 3.0e6 |
//!
//! - Kernels: `backends_ab ALGO FILE 11` (3 trials for PageRank), medians of the two backends
//!   alternating in one process.
//! - Hub batches: `weald bench updates FILE --chunk-b B --graph-seed 1`, whose edges come from
//!   the stream that made the graph, so they land on its hubs (1,000 trials at 10 and 1e3,
//!   3 at 1e5 and 1e6; two to four processes each, one for b = 512 at 1e5 and 1e6). Deletes
//!   moved alike. The figures of b = 256 at 10 spread from 1.6e5 to 2.2e5 between processes;
//!   in the round where b = 256, 512 and 1024 alternated closely they were 2.19–2.21e5.
//! - Aspen's batches (an independent vertex permutation, so mostly low-degree vertices whose
//!   arcs all sit in the prefix chunk) were even at all four sizes for b = 256, 512 and 1024
//!   (two processes each; 10: 3.4–4.1e5, 1e6: 4.9–5.1e6 inserted edges/s).
//!
//! So a graph that is mostly analysed, or large hub batches, gain from b = 512–1024: 4–6 %
//! less memory, PageRank 3–6 % and BC 3–5 % faster, batches of 1e5 on hubs 8–23 % faster.
//! Small batches on hubs lose up to 4 % at 512 (even at 1e3) and 2–8 % at 1024 (the closely
//! alternated round). Small hub batches lose about what analysis gains, and b = 256 keeps
//! the figures comparable with Aspen's, so the default stays. BFS does not move: its pulls
//! stop at the first in-neighbour in the frontier, mostly in the prefix chunk.
//!
//! ## Complexity (n = tree size, k = batch size, b = expected chunk size)
//!
//! * find: O(log n + b) expected; degree: O(1) after the O(log n) vertex lookup.
//! * multi-insert / multi-delete of k sorted elements: O(k log(n/k + 1)) nodes copied plus
//!   O(b) work per chunk touched; both sides recurse in parallel (`rayon::join`) above a cutoff.
//! * build from sorted: O(n) chunk encoding plus O(h log h) for h = n/b heads (parallel).
//! * union(A, B): the smaller side is flattened and multi-inserted into the larger;
//!   difference: multi-delete; intersection: filter the smaller by finds in the larger.
//! * graph batches: parallel sort, duplicate merging, grouping by source, then one parallel
//!   multi-update of the vertex tree, each touched vertex doing a multi-insert/-delete, each
//!   touched block copying its array of trees (a count written per other tree of the block).
//!
//! ## Cache misses (what small batches cost)
//!
//! A batch of k random edges touches k root-to-leaf paths of a vertex tree whose lower levels
//! are not in cache, and path copying a vertex-tree node writes three cold lines: the node,
//! the sibling it shares (its count) and its block array's count; the touched block also
//! writes the counts of its other trees (their prefix chunks and edge-tree roots). So:
//! * every copied node (vertex tree and edge trees) prefetches those lines before recursing,
//!   and the recursion clones the unchanged side before descending into the changed one
//!   (the count's locked increment then waits for none of the new nodes' stores; the
//!   reverse order, meant to let the prefetch land, was 2–3 % slower on small batches);
//! * a sequential sub-batch first walks its search paths in lock step, 16 at a time, with
//!   prefetches (`vtree::warm`), then prefetches the trees of the blocks it found, so the
//!   misses of different paths overlap instead of queueing;
//! * a node prefetches its children and array before its fields are dropped, and its block
//!   is dropped first (it is declared first), while that array is still in cache: freeing
//!   the children's subtrees first evicted it (freeing a version replaced by a batch of 1e5
//!   RMAT edges took 13.1 ms instead of 11.9, 1 thread, `small_batches FILE 100000 20
//!   chain`). Prefetching the trees' counts from the array in the drop, and freeing the
//!   subtree through a breadth-first queue with those loads issued 8–16 nodes ahead, each
//!   measured no faster in all (the queue freed large versions 10 % faster but slowed
//!   freeing small ones by 0.5 µs and the next large batch by ~3 ms).
//! * Embedding a block's short prefix chunks in its tree array (one allocation per block,
//!   the chunks' bytes after the trees, a count of 0 marking a chunk the array owns), so
//!   that copying a block copies those bytes instead of writing each chunk's count and
//!   freeing it touches none of them, was measured slower and dropped (2026-11-28, an Intel
//!   Xeon machine, `small_batches FILE 100000 10 chain` against the old binary, three
//!   alternating rounds): batches of 1e5 took 84–123 ms to insert instead of 66–98 (chunks
//!   of at most 64 or 320 bytes embedded alike), freeing the replaced version 13–18 ms
//!   instead of 16–23; batches of 1000 were even. A copied block then writes its whole
//!   content (~1 KB) to freshly allocated lines where it wrote 256 bytes and a count per
//!   other tree, and those fresh lines cost more than the prefetched counts did.
//!
//! On RMAT scale 20 (1 thread, `weald bench updates FILE --trials 1000`) this took batches of
//! 10 from 8.6e4 to 2.6e5 inserted edges/s (116 → 38 µs a batch) and batches of 1000 from
//! 1.5e5 to 3.3e5; a single-edge insert now takes ~5 µs. What remains is the depth of a binary
//! tree: blocks of 16 and balanced priorities took it from ~28 levels (a random treap over
//! 1 M vertices) to ~17 (over 65,536 dense blocks), but a touched block also writes the
//! counts of its other trees (~9 on RMAT); batches of 10 and 1000 gained little in all (see
//! `docs/benchmarks.md`).
//!
//! ## What bounds a batch (measured 2026-11-28, Intel Xeon, 1 thread)
//!
//! `small_batches FILE SIZE ROUNDS` (RMAT scale 20, each batch a new version of the loaded
//! graph) takes 3.40 / 6.18 / 28.1 / 256 µs to insert batches of 1 / 2 / 10 / 100 edges: a
//! constant ~2.8 µs per edge (two arcs), with no per-batch part to amortise and no gain from
//! `warm` overlapping several paths at these sizes. A profile of batches of one edge is the
//! vertex tree's path copy (`update_rec`, `join3`, `warm`: ~45 % of the samples with the
//! version drops, which take another ~20 %): per arc, a dependent walk down ~17 levels
//! whose lower ~7–10 miss, and per level a new node plus the count of the sibling it shares
//! (~100 ns a level in all). A wider index node would shorten the walk but write more
//! sibling counts per copied node (a 16-way node shares 15), so it is not the next step by
//! itself; what would remove the per-level cost is path copying without per-node counts
//! (reclaiming a node once no held version lies between the versions that made and replaced
//! it, as LLAMA does for its snapshots). That rule presumes a line of versions: a node made
//! in version b and replaced in d is then reachable from exactly the versions b..d.
//! [`VersionedGraph`]'s single writer makes such a line, but [`CTreeGraph`]'s persistent
//! updates may branch (a node replaced on one branch is still in use on the others), so a count-free
//! vertex tree would have to be confined to a line of versions, or find dead nodes some
//! other way (a trace from the live roots). On batches of 1e5 (~76,000 distinct sources of
//! 2·10⁵ arcs), sorting with duplicate merging takes 6.5–9.3 ms of 57–61 ms, grouping
//! ~1.5 ms more, and the vertex-tree update the rest. Measured and dropped (alternating
//! binaries, medians of 4–5 rounds, this machine swings ±20 % between runs):
//! * blocks of 32 ids (`Mask = u32`): batches of 1e5 even (86 vs 70 ms, within the noise),
//!   batches of 1000 slower (2.84 vs 2.08 ms: a copied block clones more trees);
//! * blocks of 8 ids (`Mask = u8`; 2026-11-30, AMD EPYC, `weald bench updates` with each
//!   batch a new version, three interleaved rounds of 3000 batches): batches of 10 insert
//!   −1.5 to +3.3 % and delete 3–6 % faster, batches of 1000 4–11 % and 4–16 %, since a
//!   copied block clones half the trees; but 2.99 bytes per arc instead of 2.77 (twice the
//!   blocks, each with its node and counts), at the edge of the memory goal, for a gain far
//!   from the 2–3× the versioned small batches lack;
//! * chunks that cost nothing to share: first an upper bound (chunk counts never written,
//!   no chunk ever freed): batches of 1e5 67 vs 83 ms, freeing the replaced version 7.4 vs
//!   17 ms, batches of 1000 1.93 vs 2.14 ms, batches of 10 even. Then the real thing: the
//!   loaded graph's chunks packed end to end in one arena, in vertex order, a tag bit in the
//!   chunk pointer marking them (no count: cloning and dropping them touch no memory; an
//!   update rewrites a packed chunk into an allocation of its own; the arena freed with the
//!   last version holding it). Model and no-leak tests passed, but `weald bench updates FILE
//!   --threads 1 --trials 20` (three alternating rounds) was even at every size (1e5:
//!   1.26–1.91e6 vs 1.77–1.92e6 inserted edges/s), kernels on the snapshot even (BFS
//!   38–47 vs 40–53 ms, minima), only freeing a replaced version gained (11–14 vs 14–20 ms),
//!   and the report grew from 2.80 to 2.84 bytes per arc (chunks 4-aligned in the arena).
//!   Dropped. Never freeing a chunk alone (counts kept) was even too (batches of 1e5
//!   69–82 vs 65–98 ms, four alternating rounds): neither half reproduced the upper bound,
//!   whose gain may have been partly this machine's swings. The count writes of untouched
//!   trees cost little;
//! * non-atomic chunk counts (a load and a store, unsound, for the measurement only): no
//!   difference beyond the noise, so the counts' cost is their misses, not the locked
//!   instructions;
//! * a varint decoder without a branch on the length (one 8-byte load, the end found from
//!   the continuation bits) for chunk headers, whose first element takes 1–3 bytes in no
//!   predictable order: BFS on the snapshot no faster (minima of 20 runs 42.5–61 vs
//!   39–42 ms, four alternating rounds);
//! * two CPU-side changes to the path copy, measured in one process with the change
//!   switched on in every other round (which cancels this machine's slow phases: the two
//!   halves agree within 1 % when nothing differs), insert µs per batch off / on: skipping
//!   `join3`'s priority checks when both updated children keep their root keys (4.60 / 4.54
//!   at 1 edge, 32.07 / 32.15 at 10, 2523 / 2500 at 1000), and prefetching the siblings and
//!   block arrays for writing (`PREFETCHW`) instead of reading (5.55 / 5.56, 39.6 / 39.5,
//!   2751 / 2754, and 89.8 / 89.7 ms at 1e5). Neither moved: a profile of batches of one
//!   edge puts most of `update_rec`'s own time just after the locked increments of the
//!   siblings' counts (the lock waits for the stores before it, the new nodes' among them),
//!   and `warm` ~19 % of the batch;
//! * cloning an untouched block's array on the way down too (before the recursion makes
//!   new nodes, like the sibling above), or updating a touched block before its children
//!   instead of after: within 1 % (same in-process A/B; at 1e5 the halves of one process
//!   still differ by up to 3 % run to run);
//! * 8-bit radix digits in the batch sort (5 passes instead of 4): the sort took 10.8 ms
//!   instead of 6.5–9.3. On this machine the radix sort of 2·10⁵ random arcs (3.7–5.7 ms)
//!   is about as fast as `sort_unstable` (4.2–4.5 ms) and faster than the stable
//!   `sort_by_key` (5.4–5.7 ms) that merging duplicates in input order needs. Since then
//!   the sort on one thread counts all passes' digits in one read and skips a pass whose
//!   digit every item shares (`parallel::radix_sort_by_key`): 4.1–5.9 ms against
//!   `sort_unstable`'s 7.0–7.4 ms for 2·10⁵ random pairs of 20-bit ids (a throwaway timing
//!   program, three rounds), in-place batches of 2·10⁴ and 2·10⁵ arcs 1–4 % faster. Later
//!   (2026-11-29) the radix sort keys on the source alone (2 passes of 10 bits at scale 20
//!   instead of 4 on source and target packed) and each source's few arcs are then sorted by
//!   target (`graph::sort_arcs`): in-place inserts of 1e5 edges 4–7 % faster at 1 thread,
//!   1e6 7 % (2 threads: 19 %), 1e4 2 %, deletes even to 7 % faster. Then merging the
//!   duplicates, grouping by source and counting self loops became one pass over the sorted
//!   arcs (`graph::sort_merge`; four before, and a fifth for the largest id, which a
//!   symmetric batch's last source is): Python's batches of 1e5 edges in place, alternating
//!   in one process, insert 2–5 % and delete 1–3 % faster at 1 thread, 8 % / 9 % at 2;
//!   batches of 1000 even.
//!
//! **The floor of counted path copying** (2026-12-01, AMD EPYC, 1 thread). The goal for new
//! versions of a graph, 2× Aspen's 7.1e5 inserted edges/s at batches of 10, leaves 7 µs
//! for a batch of 20 arcs: 350 ns an arc, everything included. (Aspen's figure includes
//! freeing the replaced version, which these measurements leave out: see "Aspen's setting"
//! below.) Measured against that:
//! * the batch itself (`small_batches FILE 10 20000`): 21–23 µs a batch of 10 edges on 1,000
//!   distinct batches, 13.1 µs with one batch repeated (`DISTINCT=1`, every line it touches
//!   in cache), 1.87 µs for one edge repeated. So ~650 ns an arc is work done in cache (the
//!   profile puts it on the locked increments of the shared siblings' and arrays' counts in
//!   `update_rec`, and on the first stores to new nodes in `join3` and `update_block`), and the
//!   misses add ~450;
//! * a model of the vertex tree alone (`cargo run --release --example path_copy_floor -p
//!   weald-cli -- 20`: 65,536 blocks, a 160-byte payload per block standing for its array,
//!   nothing else of a batch; three runs): a balanced binary tree of `Arc` nodes costs
//!   288–364 ns a key in cache and 591–740 ns on distinct batches; radix tries of fan-out 4,
//!   8 and 16 (a copied node takes F − 1 counts) 280–366 / 478–521, 363–379 / 534–577 and
//!   426–465 / 612–857 ns; the binary tree with no counts at all (nodes in an arena, linked by
//!   index, nothing freed one by one) 67–118 / 268–321 ns.
//!
//! So no fan-out brings counted path copying near 350 ns an arc once the arc's edge tree and
//! its block are paid for too (a 4-ary vertex tree would save ~20 % of the vertex tree's part,
//! and its in-place paths would all have to be written anew), while dropping the per-node
//! counts and allocations removes ~75 % of the in-cache cost and ~55 % of the cold one. That
//! is the direction left for versioned small batches: nodes without counts, reclaimed by the
//! range of versions that can reach them (see the paragraph above on a line of versions), not
//! a reshaped tree.
//!
//! *Wide nodes, lent* (2026-12-07, AMD EPYC; `path_copy_floor 20 3000`, two runs of two
//! rounds). The argument against fan-out above counted a copied node's F − 1 shared
//! children. A lending copy (below) counts nothing it shares, so a wide node then costs only
//! its bytes: the model's `lent F-ary` tries (nodes of F eight-byte links copied bitwise,
//! payloads in an arena) cost, in ns per key hot / cold: 16-ary 75–88 / 206–331, 64-ary
//! 128–152 / 238–599, 256-ary 247–356 / 342–684 (2 KB nodes: the writes of fresh lines
//! dominate), against 89–128 / 339–347 for the binary shape without counts and 299–389 /
//! 630–855 for the counted binary one in the same runs. A 16-ary radix trie over the block
//! keys (four levels at 65,536 blocks, a 128-byte node) copied by lending is thus the
//! cheapest index the model has measured, a third of the counted binary's cold cost, with a
//! quarter of the nodes per path to allocate and settle. It is not built: it would replace
//! the vertex treap (its in-place paths, block index, lending entries and flat snapshots),
//! and when a reader holds the replaced version the settling counts 15 links per copied node
//! (the counted 16-ary figures, 392–473 / 647–727). Even so the model puts the vertex index
//! alone at ~200–330 ns a key cold, close to the whole 350 ns an arc that 2× Aspen's batches
//! of 10 leave, so no index the model has measured brings this machine to that goal; it is
//! the largest step left for small versioned batches.
//!
//! *Where the lending copy's time goes* (2026-12-07, Intel Xeon, 1 thread, `perf record` of
//! `weald bench updates FILE --batch-sizes 10 --trials 40000`, versioned). `update_rec` takes
//! 30 % of the samples, `reclaim` (the settling walk) 14 %, `warm` 13 %, `update_block` 7 %,
//! and `CountedSlice::drop_slow` 5 %. A batch of 10 random edges copies ~256 vertex-tree
//! nodes (the union of 20 paths down 17 levels). Taking those three functions' 57 % of a
//! 22.4 µs batch (an estimate: the profile also holds the delete batches, which cost about
//! the same, and the untimed drawing of batches), a copied node costs ~50 ns over its walk,
//! copy and settling, 12.8 µs of the batch. No instruction stands out: the first stores to
//! fresh nodes, the reads of the batch's keys, the counts' checks. The number of copied
//! nodes is what to cut:
//! - a 16-ary trie copies ~53 nodes for the same batch;
//! - a table of per-block slots holding version chains (LLAMA's way) copies none.
//!
//! With the trie's 128-byte nodes at ~1.5× this cost each, it would save ~9 µs a batch
//! (13.6 µs: ~1.0× Aspen's 7.1e5 inserted edges/s at batches of 10); the slots, with ~40 ns
//! for each of 20 slots, ~12 µs (10.4 µs: ~1.35×). Neither reaches 2× (7 µs): the blocks'
//! arrays, edge trees, chunks, sort and publication cost the other ~10 µs.
//!
//! *The slots, modelled* (2026-12-08, Intel Xeon). `path_copy_floor` now has a `slots` shape:
//! no tree, a table of one slot per block, each pointing to the newest record of a chain of
//! versions (a version number, the 160-byte payload, the older record). A batch makes one
//! record per key and links it in front. `path_copy_floor 20 3000`, ns per key: hot from one
//! run's second round (the first round pays fresh memory's page faults), cold from three runs
//! of two rounds:
//!
//! | shape | hot | cold |
//! |---|---|---|
//! | slots | 34 | 45–72 |
//! | lent 16-ary trie | 82 | 133–143 |
//! | binary without counts | 140 | 369–384 |
//! | counted binary | 392 | 735–1020 |
//!
//! With batches of 1000 keys (`path_copy_floor 1000 300`), slots cost 58–64 ns cold and the
//! lent 16-ary trie 103–116. The cold batches' payloads (10 MB) fit this host's L3, so cold
//! here means cold in the L2 only. The model leaves out what a real table adds: the readers'
//! walk down a chain, and the reclamation of records that no held version can reach. So the
//! projection above holds: ~45 ns a slot, ~1 µs for the 20 arcs of a batch of 10 in place of
//! the ~12.8 µs the lending copy's vertex tree costs. What remains is the ~10 µs outside the
//! vertex index: block arrays, edge trees, chunks, sort, publication, settling. So even a
//! free index leaves batches of 10 at ~1.4× Aspen by the goal's protocol, and a redesign
//! aiming at 2× has to cut that part by a third as well.
//!
//! *Prefetching the paths through a table of node addresses* (2026-12-07, Intel Xeon; measured
//! and dropped). Over dense block keys the treap is the balanced tree of the keys' trailing
//! zeros, so a key's path is known without reading it: the parent of x = key + 1 is
//! (x − lowbit(x)) | 2·lowbit(x). A table of node addresses by block key was filled by a walk
//! at first use and corrected by each `warm` walk. Before the lock-step walk of a lending
//! copy, each key's entries on the lower 11 levels were prefetched, then the nodes they name,
//! so that the misses of a path's levels overlap instead of following one another. Versioned
//! batches were 2–5 % slower at 10 (3.8e5 against 3.9–4.0e5 inserted edges/s) and 4–7 % at
//! 1e3 (5.2e5 against 5.5–5.6e5; three pairs of processes, 3,000 trials each): the table's
//! prefetches did not pay for its upkeep, `warm` already overlapping most of those misses.
//!
//! ## Aspen's setting (what the versioned figures measure)
//!
//! (2026-12-07) Read closely, Aspen's tool also differs from the experiment as the goal
//! defines it: it inserts each batch's pairs as arcs, one direction each (10 arcs for a batch
//! of 10, where `weald bench updates` inserts 20), repeats one batch in all its trials, draws
//! ids from an unpermuted RMAT over the lower half of the ids, and averages its trials, the
//! cold first one included. `weald bench updates --aspen-tool` runs that protocol
//! (`Sampling::AspenTool`, on the graph taken as its arcs, [`CTreeGraph::into_out_arcs`]); the
//! differences and its figures are in the updates suite of `docs/benchmarks.md`: at 1 thread,
//! medians of the trials about 1.5–2.4× Aspen's published figures except inserts of 1e5 at
//! 1.2–1.4× (runs 90, 91, Intel Xeon); the tool's mean, whose first trial is a process's cold
//! first call, puts inserts of 10 at 0.78–0.96×. In run 91 the experiment as the goal defines
//! it gave 0.58 / 0.85 / 0.87 / 1.58× at 10 / 1e3 / 1e5 / 1e6 inserted. The figures below are
//! of the experiment as the goal defines it.
//!
//! Aspen's tool (`run_batch_updates`) calls `insert_edges_batch` on its versioned graph, which
//! acquires the latest version, builds the next one by path copying, publishes it and
//! releases the version it acquired; nothing else holds that one, so its replaced nodes are
//! freed (`decrement_recursive`) inside the timed call, and the versions form a line.
//! `weald bench updates` until 2026-12-02 inserted every batch into the loaded graph while it
//! stayed held and freed the new versions after the clock stopped: it left out the freeing
//! that Aspen's figure includes. It now runs the same line through [`VersionedGraph::apply`]
//! (`experiments::batch_updates`). Measured on the AMD EPYC machine, 1 thread, one process
//! per size (5,000 / 50 / 6 / 6 trials), inserted / deleted edges per second, the old
//! setting against the new: batches of 10: 4.52e5 / 6.31e5 → 2.86e5 / 3.69e5; 1e3: 6.83e5 /
//! 7.92e5 → 2.93e5 / 3.27e5; 1e5: 2.26e6 / 2.41e6 → 1.68e6 / 1.61e6; 1e6: 7.58e6 / 7.90e6 →
//! 5.48e6 / 4.87e6. So at 1 thread new versions are slower than Aspen's (7.1e5 / 6.6e5 /
//! 2.1e6 / 3.2e6 inserted) up to batches of 1e5 and faster at 1e6. `small_batches FILE 1000
//! 200 chain` splits it: 2944 µs to insert a batch of 1000, 3131 µs to delete it, 1572 µs to
//! free the two versions they replaced (a fifth of the 7.6 ms in all), and copying paths that earlier
//! batches allocated costs more than copying the loaded graph's (2281 µs per insert with the
//! held base). Freeing walks the replaced nodes again after the copy has left the cache; the
//! count-free reclamation above would free a replaced node without touching its children.
//! Updating in place ([`VersionedGraph::apply_in_place`], when no snapshot holds the version)
//! does neither: 2× Aspen or more at every size in run 80, but inserts of 1e5 swing with the
//! machine's hour (1.62× in run 83, 1.7–2.0× in three runs beside it). At 2 threads the first run of the
//! new setting (run 83) inserted batches of 10 at 1.51e5 edges/s, slower than at 1 thread
//! (2.43e5): freeing a version replaced by a small batch forked at the top of the vertex
//! tree, where both children of a node are on the batch's paths and their subtree sizes are
//! the whole tree's, so a few microseconds of freeing paid a hand-off to the other thread.
//! `VersionedGraph::apply` now frees the version a batch of fewer than 64 updates replaced on
//! its own thread (`vtree::sequentially`): batches of 10 at 2 threads 2.58–2.64e5
//! inserted and 3.50–3.54e5 deleted edges/s against 1.53–2.09e5 and 2.56–3.30e5 (separate
//! processes, two interleaved rounds); batches of 100, which still fork, 5.2–6.5e5 either
//! way. In the harness (run 84, batches of 10): 2.88e5 inserted and 3.13e5 deleted edges/s at
//! 2 threads, 2.12e5 and 3.67e5 at 1 (deletes at 2 threads still below 1). A batch with a
//! vertex deletion (a block per neighbour) and a version parked by an earlier publication
//! (which may be a large batch's) are freed as before.
//!
//! ## Lending (path copying in a line of versions)
//!
//! `VersionedGraph::apply` copies a batch of edge insertions only, or of edge deletions only,
//! *lending* (`vtree::Lending`): the new version's nodes take the untouched children, block
//! arrays and edge trees of the copied nodes bitwise, without a count, and a list of entries
//! (one per copied node, in pre-order) records what each lent. After the publication the
//! writer releases the old version and settles the entries: a copied node that nothing else
//! holds is freed without releasing what it lent (no sibling's, array's or tree's count is
//! written, and no subtree is walked), and one that something still holds (a snapshot, a
//! clone, a branch made from it) keeps it, which is then counted. So the counts are right
//! again before anything can trust them: the old version is held until the settling, the
//! new one is not updated before it, and a panic while making it aborts where it starts (the
//! per-vertex update runs under an abort guard; lending is used only for weights that cannot
//! panic, `Weight::CANNOT_PANIC`, so a foreign weight's panic unwinds from a counted copy). This is the
//! count-free reclamation the paragraphs above ask for, confined to the one place where
//! versions form a line, and without changing what a `CTreeGraph` is.
//!
//! An upper bound first (2026-12-02, Intel Xeon, 1 thread, RMAT scale 20, a throwaway build
//! that copied every shared reference bitwise and never freed anything): batches of 10 took
//! 21 + 17 µs to insert and delete against 48 + 40 µs, plus 29 µs of freeing, with counts.
//! The real thing frees the copied nodes (and the allocator hands their memory, now cold, to
//! the next batch), so it gains less. Two graphs in one process, each a line of versions
//! through `VersionedGraph::apply`, lending and counting alternating batch by batch
//! (a throwaway harness; this machine swings ±30 % from one run to the next, the ratios
//! less), inserted / deleted edges per second, lending against counting:
//! * batches of 10, 1 thread: 1.85e5 / 2.39e5 against 1.49e5 / 1.87e5 (+24 % / +28 %), and
//!   1.46e5 / 1.95e5 against 1.20e5 / 1.56e5 in a slower hour; 2 threads 1.61e5 / 2.08e5
//!   against 1.31e5 / 1.64e5;
//! * batches of 1000: 2.42e5 / 3.07e5 against 2.05e5 / 2.41e5 (+18 % / +27 %);
//! * batches of 1e5: 1.11e6 / 1.17e6 against 1.06e6 / 1.04e6 (1 thread), 2.00e6 / 2.20e6
//!   against 1.93e6 / 1.81e6 (2 threads);
//! * batches of 1e6: 3.68e6 / 3.83e6 against 3.53e6 / 3.25e6.
//!
//! And `weald --threads T -q bench updates FILE --batch-sizes S --trials K --json`, the
//! binary before (ce5893e) and after alternating, two rounds, one process each (Intel Xeon,
//! 3000 / 50 / 6 / 4 trials), inserted / deleted edges per second, before → after:
//! * 1 thread: batches of 10 1.11e5 / 1.33e5 → 1.44e5 / 1.81e5 and 1.63e5 / 1.92e5 →
//!   2.09e5 / 2.50e5; 1e3 1.90e5 / 2.07e5 → 3.05e5 / 3.52e5 and 2.46e5 / 2.78e5 → 2.73e5 /
//!   3.12e5; 1e5 1.11e6 / 1.05e6 → 1.15e6 / 1.11e6 and 1.11e6 / 1.04e6 → 1.22e6 / 1.17e6;
//!   1e6 3.78e6 / 3.55e6 → 3.84e6 / 3.82e6 and 2.63e6 / 2.65e6 → 3.88e6 / 3.73e6;
//! * 2 threads: batches of 10 1.39e5 / 1.64e5 → 1.37e5 / 1.71e5 and 1.13e5 / 1.36e5 →
//!   1.32e5 / 1.64e5; 1e3 4.43e5 / 4.88e5 → 4.81e5 / 5.25e5 and 3.63e5 / 4.00e5 → 4.12e5 /
//!   4.81e5; 1e5 2.15e6 / 2.05e6 → 2.20e6 / 2.17e6 and 2.11e6 / 1.97e6 → 1.88e6 / 1.90e6;
//!   1e6 6.65e6 / 6.09e6 → 6.54e6 / 6.16e6 and 5.22e6 / 4.92e6 → 5.91e6 / 5.90e6.
//!
//! So +25–35 % on batches of 10 and 10–60 % on 1e3 at 1 thread, a few per cent on large
//! batches, and even to better at 2 threads (one pair of 1e5 worse, within this machine's
//! swings). Far from the 2× Aspen the goal asks for: on this machine the counted figures are
//! a third below the AMD EPYC machine's (runs 83, 84) and those were below Aspen's.
//!
//! A profile of batches of 10 with lending puts ~10 % of the samples in the settling walk
//! (a compare-exchange on each copied node's count, then its free) and most of the rest in
//! the copy itself (`warm`, `update_rec`, `join3` with the new nodes' first stores, the
//! arrays' `Slots::finish_spare`), which is what remains between these figures and the
//! upper bound.
//!
//! *The settling walk looks ahead* (2026-12-02, AMD EPYC). On batches of 1000 the walk had
//! grown to 18 % of the samples, nearly all of them on two misses: the compare-exchange on
//! each copied node's count (60 % of the walk) and the read of its array's count (17 %), a
//! batch's worth of memory after the copy read them. The entries are in the walk's order and
//! name their nodes, so each visit starts loading the node 16 entries on (its address only:
//! that entry may lie in a subtree another thread is settling) and the array count of the
//! node 8 entries on within its own subtree (alive, its node loaded 8 visits before). The
//! walk fell to 9 % of the samples. `weald --threads T -q bench updates FILE --batch-sizes
//! 10,1000,100000[,1000000] --trials 15 / 11 --json`, the binary before (eb99095) and after
//! alternating, two rounds each, inserted / deleted edges per second, before → after:
//! * 1 thread: 1e3 2.02e5 / 2.13e5 → 2.39e5 / 2.39e5 and 2.16e5 / 2.31e5 → 2.57e5 / 2.58e5
//!   (+12–19 %); 1e5 1.04e6 / 1.08e6 → 1.12e6 / 1.17e6 and 1.10e6 / 1.13e6 → 1.17e6 / 1.19e6
//!   (+5–9 %); batches of 10 even (1.75e5 / 2.34e5 → 1.83e5 / 2.32e5, 1.86e5 / 2.38e5 →
//!   1.76e5 / 2.29e5);
//! * 2 threads: 1e3 4.01e5 / 4.31e5 → 5.02e5 / 4.90e5 and 3.95e5 / 4.33e5 → 4.55e5 / 4.80e5
//!   (+11–25 %); 1e5 2.19e6 / 2.26e6 → 2.29e6 / 2.31e6 and 1.95e6 / 1.99e6 → 2.16e6 /
//!   2.21e6 (+2–11 %); 1e6 5.85e6 / 6.08e6 → 6.06e6 / 6.35e6 and 5.77e6 / 5.88e6 → 6.03e6 /
//!   6.20e6; batches of 10 2–4 % lower (1.83e5 / 2.44e5 → 1.75e5 / 2.38e5 and 1.79e5 /
//!   2.28e5 → 1.73e5 / 2.21e5).
//!
//! The allocator is now the largest single item of the profile of 1000-edge batches (13 %,
//! mimalloc popping its free list, whose blocks are the last batch's freed nodes, scattered),
//! then `join3` (9 %), the walk (9 %) and `warm` (8 %).
//!
//! *A copied node does not read its untouched child; nodes have one count* (2026-12-02, AMD
//! EPYC). `join3` made each copied node of a path, and to keep the treap order it read the
//! key (and `mk` the size) of both children: the child off the path is a line nothing else
//! loads in a lending copy, a miss at each lower level of every path. `vtree::rejoin` makes the
//! node directly when each side's root is the old child or has its key (the priority is a
//! function of the key, so the order holds as before; the size is the old one plus each
//! side's change), and falls back to `join3` when a side's top changed. Then the vertex-tree
//! nodes became `counted::Counted` (an `Arc` without weak references): the last owner frees
//! with a plain load of the count instead of `Arc::try_unwrap`'s compare-exchange and locked
//! decrement (54 % of the settling walk's samples), and a node with its count is one 64-byte
//! line (72 bytes before). `bench updates --batch-sizes 10,1000 --trials 300`, 8 processes of
//! each binary alternating (4 at 2 threads), medians of the processes, inserted / deleted
//! edges per second:
//! * `rejoin` (48aaae5 → 88e4890), 1 thread: 10 1.14e5 / 1.36e5 → 1.42e5 / 1.68e5 (+24 %),
//!   1e3 1.88e5 / 1.92e5 → 2.09e5 / 2.10e5 (+10 %);
//! * `Counted` (88e4890 → 6706fb3), 1 thread: 10 1.86e5 / 2.10e5 → 1.98e5 / 2.19e5 (+4–6 %),
//!   1e3 2.40e5 / 2.36e5 → 2.28e5 / 2.38e5 (−5 %, +1 %: even within the noise); 2 threads:
//!   10 1.54e5 / 1.79e5 → 1.90e5 / 2.20e5 (+23 %), 1e3 3.66e5 / 3.95e5 → 3.84e5 / 4.14e5
//!   (+5 %); 1e5 (1 thread, 9 trials, two processes each) even.
//!
//! The machine's speed wandered by up to 2× between processes that day (the first set's
//! medians are lower than the second's for the same binary), so only figures of the same set
//! compare. The profile of 1000-edge batches after both: mimalloc's free-list pop 21 % (the
//! load of the next free block, the last batch's freed node: a miss the node's first write
//! took before), the settling walk 8 %, `warm` 8 %, `finish_spare` 6 %.
//!
//! *The writer keeps the nodes it frees for its next batch* (`counted::Spare`, 2026-12-02,
//! AMD EPYC). The allocator threads a freed block onto its free list through the block's
//! first word, so the allocation after reads the block to find the next: a miss per node,
//! since the block was freed a batch ago. `VersionedGraph::apply` runs each copy and its
//! settling with the writer's spare in use on its thread: a node freed there (the settling's
//! `try_unwrap`, or a last owner's drop) leaves its allocation on a vector, and a node made
//! there takes the last one, while the line of the eighth from the top is asked for. At most
//! 4 MiB was kept (since raised, below; `VersionedGraph::spare_bytes`, which the leak tests
//! count); other threads (a large batch's forks) use the allocator. Then
//! `Slots::finish_spare` moved the filled slots of a block by their mask's bits instead of a
//! branch per slot (the branch follows
//! which slots are filled, different in each block: 8 % of the time of 1000-edge batches, in
//! its loop alone). `bench updates --batch-sizes 10,1000 --trials 300`, binaries alternating,
//! medians of the processes at 1 thread, inserted / deleted edges per second:
//! * the spare (a407c5c → 8a3f081), 6 processes each: 10 2.14e5 / 2.30e5 → 2.58e5 / 2.76e5
//!   (+21 % / +20 %), 1e3 3.26e5 / 3.41e5 → 3.53e5 / 3.72e5 (+8 % / +9 %); the allocator's pop
//!   went from 21 % of the profile of 1000-edge batches to 7 % (block arrays and chunks,
//!   which still come from the allocator);
//! * the slots (8a3f081 → 0d9a6a0), 5 processes each: 10 2.83e5 / 3.14e5 → 2.99e5 / 3.33e5
//!   (+6 %), 1e3 3.80e5 / 4.08e5 → 4.14e5 / 4.38e5 (+9 % / +7 %);
//! * block arrays kept by the spare too (0d9a6a0 → ab6057f): the arrays became
//!   `counted::CountedSlice` (one count and the length before the trees, as `Counted`), whose
//!   allocations the spare keeps by size (16-byte classes up to 528 bytes, 4 MiB in all). The
//!   pointer is one word instead of an `Arc<[T]>`'s two, so a node shrank to 48 bytes; left at
//!   that (56 with its count, straddling lines), batches of 10 inserted 15 % slower and 1e3
//!   2 % faster, so it is padded back to one 64-byte line: 10 3.31e5 / 3.53e5 → 3.43e5 /
//!   3.66e5 (+4 %), 1e3 4.47e5 / 4.76e5 → 4.73e5 / 5.01e5 (+6 % / +5 %), 5 processes each.
//!   The allocator's pop is then 4 % of the profile (chunks and edge-tree nodes).
//!
//! (The machine ran faster than the day before, and faster in the second set than in the
//! first: the sets do not compare with each other.)
//!
//! After it (2026-12-03, AMD EPYC, 1 thread, 8 processes each, binaries alternating):
//! `vtree::warm` walking 32 paths in lock step instead of 16 (a batch of 10 edges is 20 arcs:
//! one group instead of two) inserted batches of 10 2.8 % faster and deleted them 1.6 %
//! faster, ahead in every pair, and was even to +3 % on 100 and 1000; kept. Asking for the
//! spare's next allocations with `PREFETCHW` (the line fetched owned, for the stores that
//! will fill it) instead of a plain prefetch was slower: batches of 10 2.84e5 / 3.11e5 →
//! 2.63e5 / 2.84e5 (−7 % / −9 %, behind in every pair), 1000 even; not kept.
//!
//! *The spare keeps what a large batch frees* (2026-12-07, AMD EPYC). At first a spare kept at
//! most 4 MiB, more than a batch of 1e4 edges copies; a batch of 1e5 RMAT edges (~76,000
//! distinct sources) copies a large part of the 65,536 blocks' nodes and arrays, so most of
//! its nodes came from the allocator again, whose pop was then 17 % of the profile of
//! 1e5-edge batches (`perf record` of `bench updates --batch-sizes 100000 --trials 40`). The
//! writer now sets its spare's limit before each batch to twice what the batch before freed,
//! at least 4 MiB and at most what freeing the whole vertex tree could give back
//! (`VTree::node_bytes_bound`: nodes × (64 + the 288 bytes of a full array with a spare
//! slot), 23 MB at RMAT scale 20), so the spare holds about what the last batches freed,
//! memory the replaced version held while the batch ran anyway, and gives it back after
//! small batches. The pop fell to 8.5 % (chunks and edge-tree nodes). `weald --threads T -q
//! bench updates FILE --batch-sizes 100000,1000000 --trials 9 --json`, the two binaries
//! alternating (the limit then at the vertex tree's bound), medians of the processes,
//! inserted / deleted edges per second: 1 thread (6 processes each) 1e5 1.89e6 / 1.93e6 →
//! 1.95e6 / 2.08e6, 1e6 5.82e6 / 6.03e6 → 5.95e6 / 6.14e6; 2 threads (3 each) even (1e5
//! 3.56e6 / 3.72e6 → 3.67e6 / 3.83e6, 1e6 1.09e7 / 1.10e7 → 1.06e7 / 1.09e7); the limit
//! following the need measured even against the bound at both sizes (3 processes each).
//! `weald bench updates --json` reports what is held after each size's trials
//! (`held_bytes`): on RMAT scale 20, whose graph takes 86.6 MB, 29 KB after batches of 10,
//! 1.5 MB after 1e3, 14.1 MB after 1e5 and 19.3 MB after 1e6, and 5.7 MB after batches of 10
//! that follow ones of 1e6 (the 4 MiB floor and the address vectors, never shrunk).
//!
//! Measured and dropped with it: loading the replaced trees' chunks and roots in the
//! settling walk ahead of the array that frees them (the array 8 or 16 entries ahead, the
//! trees 4 or 8): the walk's samples moved from freeing the array to reading the slots
//! ahead, even in all. Nor did chunks pay in the spare (a throwaway build: chunk allocations
//! rounded up to 16 bytes, align 8, so that they share the spare's classes; the same A/B, 4
//! processes each): 1e5 2.02e6 / 2.09e6 → 2.06e6 / 2.19e6, 1e6 6.05e6 / 6.21e6 → 6.05e6 /
//! 6.45e6, 1e3 7.19e5 / 8.23e5 → 6.30e5 / 7.77e5, for ~8 bytes more per chunk allocation;
//! not kept.
//!
//! ## In place (what nobody else holds)
//!
//! Every update goes through `CTreeGraph::*_mut` (`apply_mut`, `insert_edges_mut`, ...; the
//! `&self` forms run them on a clone): a vertex-tree node whose count is one (as in PAM) keeps
//! its allocation, and a block array whose count is one has only its touched trees replaced, so
//! the block's other trees are neither cloned nor released later. A touched tree taken out of
//! such an array is handed to the update as its own (`vtree::Cur::Owned`). When the batch
//! brings the tree no new head (the usual case) its shape stays: the edge-tree nodes nothing
//! else holds are kept, and each chunk the elements land in is spliced into its own
//! allocation when nothing else holds it (`Chunk::splice_mut`: the new bytes are built in
//! scratch and written over the old ones, the allocation resized by `realloc`, which keeps it
//! in place when the size class fits), so the memory written is what was just read. A new
//! head rebuilds the chunk it lands in (split there) and the subtree below it, and the
//! nodes above it that it comes to outrank are joined anew (`tree::insert_rec_mut`); the
//! rest of the batch's elements in that tree are still spliced in place. A subtree that loses a head is
//! path-copied. The
//! walk that prefetches the paths (`vtree::warm`) then loads only the touched trees of a block
//! it will edit in place, not all of them. A shared node (a snapshot, a retained version or a
//! clone holds it) is path-copied, so no holder ever sees a change; the shape is the same
//! canonical treap either way. A `&self` update copies everything it touches (the root is
//! shared), but the parts of a mixed batch after the first reuse what the first copied.
//!
//! Measured (`weald bench updates FILE --threads 1 --trials 40 [--in-place]`, RMAT scale 20,
//! four rounds alternating which binary goes first, medians, 2026-11-27, a slow phase of the
//! machine), inserted / deleted edges per second, new versions of a held graph vs the loaded
//! graph updated in place: batches of 10: 4.3e5 / 7.0e5 vs 4.9e5 / 9.4e5; 1e3: 6.5e5 / 8.1e5
//! vs 8.3e5 / 1.04e6; 1e5: 2.39e6 / 2.45e6 vs 2.14e6 / 2.28e6; 1e6: 6.3e6 / 6.5e6 vs 5.2e6 /
//! 5.5e6. Small batches gain what the copies cost. Large ones still lose: the versioned figures
//! leave out freeing the replaced version (after the clock stops), and a large batch rewrites
//! most blocks, which in place are scattered read-modify-writes where new versions write fresh
//! memory in order. Before the chunks were spliced in place (each touched chunk a new
//! allocation, often a cold free-list entry, and the old one freed at once) and before `warm`
//! skipped untouched trees, the in-place figures in the same runs were 4.4e5 / 9.6e5, 7.7e5 /
//! 1.01e6, 1.95e6 / 2.06e6 and 5.0e6 / 5.1e6 (so: +11 % / −2 %, +8 % / +3 %, +10 % / +11 %,
//! +3 % / +7 %; the versioned figures unchanged within noise). Keeping the nodes of multi-chunk
//! (hub) trees too added, in the same way, +5 % / +6 % at 1e3 and 1e5 and, on batches that
//! land on the hubs (`--graph-seed 1`), +41 % / +32 % at 1e3 (2.4e5 → 3.4e5 inserted edges/s)
//! and +10 % / +11 % at 1e5; batches of 10 and 1e6 the same within noise.
//!
//! The in-place walk reads only the search paths: each node's arc count was updated by adding
//! the changes below it (not recomputed from both children, which read the child the batch
//! does not enter), `warm` loads only the next node of each path (path copying also needs the
//! other child and each node's array, whose counts it writes), and fewer than `PAR_ITEMS` items
//! go block by block down their paths (`vtree::update_path_mut`) rather than through the
//! recursion that splits the items at every node. A block array edited in place is also kept
//! when an id gains or loses its edges, as long as the trees fit it (spare slots are empty
//! trees; one is added when an array outgrows itself in place), where a new exact array used
//! to be built and the old one freed: the churn of vertices going from zero edges to one and
//! back. Measured in one process, the versions alternating (`examples/small_batches FILE SIZE
//! ROUNDS in-place`, 1 thread, 2026-11-29, Intel Xeon): the walk and the arc counts took
//! batches of 20 arcs from 48–49 to 45 µs (insert) and 39–40 to 37–38 µs (delete), 200 arcs
//! 6 % and 2000 arcs 4 % faster; the block-by-block descent then 2–4 % at 20 and 200 arcs;
//! the array kept in place 3 % (insert) and 12 % (delete) at 20 arcs, 7–8 % / 17–19 % at
//! 2000 and 1–3 % / 16–17 % at 200,000 (the spare slot another 3–4 % on those inserts).
//! A graph built from sorted trees (from a CSR or a checkpoint) gives every block with an id
//! without edges a spare slot from the start: the first edge of such an id (37.6 % of the
//! arcs of fresh batches of 10 on RMAT scale 20, whose vertices are 40 % isolated) made a new
//! array for 16 % of all arcs, since most blocks had not been touched by any batch yet. With
//! the spare, `weald bench updates FILE --backend ctree --in-place --batch-sizes 10,1000
//! --trials 5000 --threads 1` inserted batches of 10 at 1.46–1.67e6 edges/s against
//! 1.16–1.43e6 (separate processes, three interleaved rounds of both orders, 2026-11-30, AMD
//! EPYC), deletes 2–4 % faster, batches of 1000 (which run after the 5000 batches of 10,
//! when every block has been touched) the same; in place, batches of 1e5 were even. The gain
//! is the first touch of each block: an array that grows in place gets its spare anyway.
//! Memory: 2.74 → 2.77 bytes per arc (one 16-byte slot for nearly every block). In the
//! harness (run 75), in-place inserts of 10 then ran at 1.66e6 edges/s at 1 thread (1.36e6 in
//! run 73): 2.34× Aspen's 7.1e5.
//! Those first edges then still went through the general block update (per-id arrays of
//! sixteen optional trees, built and dropped for one id): in a batch of 1e5 the touched trees
//! number ~70,000, 38 % of them an edgeless id's (a throwaway counter, 2026-11-30). A single
//! id without a tree in an unshared array with a spare now gets its tree in its slot
//! directly, the trees above it moving up a slot into the spare (`update_block_mut`):
//! `weald bench updates … --in-place --threads 1` in separate processes, three interleaved
//! rounds, inserts of 10 / 1000 / 1e5 +0–10 % / +4–8 % / +0.5–4.7 %, deletes even; the
//! harness then gave 1.78e6 / 1.94e6 / 3.64e6 (run 76). Tried in the same hour without gain:
//! a thread-local cache of freed chunk blocks up to 64 bytes in front of `mimalloc` (10 % of
//! an in-place insert of 1e5 is `mimalloc` reading a reused block's free-list link, a cache
//! miss; with the cache the first write to the cold block took the miss instead: 3.47–3.69e6
//! against 3.53–3.72e6).
//! Yet the blocks a batch of 1e5 touches get 2.4 ids each on average (RMAT's sources cluster
//! in id ranges; another throwaway counter: every call of the general path had at least two
//! ids), so most of them still took the per-id arrays. Now every block whose array is
//! unshared updates its ids one by one in their slots (`update_in_slot`) until one has no
//! slot (no spare left), and only the rest goes the general way. Same measurement against
//! the single-id path: 1 thread, 1e5 inserts 3.89–4.00e6 against 3.64–3.70e6 (+7–8 %),
//! deletes 4.27–4.42e6 against 3.92–4.03e6 (+8–10 %); batches of 10 and 1000 even; 2
//! threads, 1e5 +10–28 % (noisy), 1e6 +4–14 %.
//! Then (2026-11-30, same measurement) the allocations of an in-place insert of 1e5: ~20,000
//! new chunk blocks a batch (a throwaway counter), ~9,000 of them a one-arc id's inline
//! chunk growing past 7 bytes, and `mimalloc`'s load of each block's free-list link is
//! ~8 % of the insert. Tried without gain: prefetching the link after each allocation (the
//! stale first word of the block just handed out; inserts −0.1 to +5.6 %, and a profile
//! still put the same share on that load), and keeping a chunk that shrinks to 7 bytes or
//! fewer in place on the heap instead of inline, so that the churn of the next batch
//! reallocates in place (inserts 3–5 % slower: the chunk's line is now read where the
//! inline chunk needed none, and the next batch mostly touches other ids).
//! Through Python, inserting 1e5 RMAT edges into `DynamicGraph.from_graph(rmat-s20)` at 1
//! thread went from 61.4 to 52.6 ms (medians,
//! `bench/run.py --suite python --cases 'insert 100000 (python)'`, NetworKit's `addEdge`
//! loop 48.6 and 47.4 ms in the same runs). A block that a batch gives one id, which has
//! edges, in an array nothing else holds (most blocks of most batches) skips the per-id
//! bookkeeping: its tree is updated in its slot, and if it loses its edges the trees after
//! it move down one slot (`vtree::update_block_mut`). Alternating in one process (same
//! example, 2026-11-29): batches of 10 edges insert 6–9 % and delete 20 % faster, of 1000
//! 7–9 % / 19 %, Python's batches of 1e5 4 % / 4 %.
//!
//! **The block index.** Then the walk itself went: when nothing but the graph holds any
//! node of a vertex tree (every count is one), an array of the nodes by block key
//! (`vtree::BlockIndex`, 8 bytes a block, 0.5 byte a vertex id) reaches each block of a batch
//! directly, 16 blocks at a time with their index entries, nodes, tree slots and chunks
//! loaded ahead. For that, nodes no longer sum their subtrees' arcs (a node counts its own
//! block's, the tree the total): editing a block then touches only its node, so no ancestor
//! needs the update. The index is built by one walk over the nodes (1.2–1.6 ms at RMAT scale
//! 20, 65,536 blocks, 1 thread) at the first in-place update. It is not used while a clone
//! of the tree lives (a clone or a snapshot: the trees cloned from one another share a
//! *lineage* count, and every node comes from one of them), and it is dropped when the tree
//! changes shape (a path copy, a block removed, a level rebuilt to seat a new block; a new
//! block made in an empty subtree only adds a node it lacks); it is built again once the
//! updates made without it reach the tree's node count, so a graph updated while a clone
//! lives at every batch never pays for it. A snapshot taken and released between two batches
//! leaves it in use. Measured in one process, the index
//! switched on in every other round (`examples/small_batches FILE SIZE ROUNDS in-place`, RMAT
//! scale 20, 1 thread, 2026-11-29, Intel Xeon), µs per batch without / with: 10 edges insert
//! 18.3 / 8.9 and 25.9 / 12.2, delete 14.0 / 6.3 and 19.2 / 9.2; 100 edges 185 / 103 and
//! 150 / 75; 1000 edges insert 1690 / 1134 and 1150 / 731, delete 1554 / 944 and 1050 / 584;
//! 5000 edges 5390 / 3930 and 5161 / 3713; 1e5 edges insert 52.9 / 45.7 and 45.8 / 38.2 ms,
//! delete 48.2 / 41.3 and 40.9 / 35.7 ms; 1e6 edges insert 261 / 205 ms, delete 204 / 198
//! ms. The old and new binaries in separate processes (three alternating pairs, 1e5 edges):
//! inserts 67.3 / 64.5 / 49.3 ms before, 57.0 / 45.8 / 48.0 ms after. New versions of a held
//! graph (`chain`), which path-copy and never use the index, are unchanged within noise. A
//! clone starts with its source's credit (a graph cloned out of a flat snapshot and then
//! updated alone builds its index at once if the source never had one), and a block that gains an id with edges has its
//! whole tree array loaded ahead (the trees after the id move; inserts of 10 and 1000 edges
//! 7–9 % faster). `weald bench updates rmat-s20.wgb --threads T --trials 40 --in-place`
//! (2026-11-29, Intel Xeon, the binaries of 377bdd6 and 5c22b75 alternating, two pairs),
//! inserted / deleted edges per second before → after, 1 thread: batches of 10 3.3e5 / 4.9e5
//! → 7.5e5 / 1.6e6 and 2.9e5 / 4.6e5 → 5.5e5 / 1.05e6; 1000: 5.2e5 / 6.4e5 → 1.04e6 / 1.73e6
//! and 4.8e5 / 5.9e5 → 7.2e5 / 9.9e5; 1e5: 1.47e6 / 1.56e6 → 2.29e6 / 2.48e6 and 1.42e6 /
//! 1.48e6 → 1.89e6 / 1.94e6; 1e6: 2.9e6 / 3.0e6 → 4.6e6 / 4.9e6 and 4.2e6 / 4.5e6 → 3.0e6 /
//! 3.2e6 (the machine's swings). 2 threads: batches of 10 3.4e5 / 5.1e5 → 7.8e5 / 1.44e6 and
//! 3.5e5 / 5.4e5 → 8.0e5 / 1.56e6; 1000: 1.09e6 / 1.40e6 → 1.95e6 / 3.07e6 and 1.11e6 /
//! 1.40e6 → 1.97e6 / 3.08e6; 1e5: 3.4e6 / 3.6e6 → 3.7e6 / 3.9e6 and 3.1e6 / 3.2e6 → 4.0e6 /
//! 4.3e6. A batch's blocks without an indexed node (new ones) go down the tree after the
//! others have taken the index. Not done: a new block that outranks the node it lands below
//! rebuilds that level and drops the index, so a graph growing by new ids keeps its index
//! only part of the time; entering the nodes a join makes into the index would serve
//! growing graphs fully.
//!
//! Where an in-place batch of 2·10⁵ arcs (1e5 edges) then spends its time (profile, 1
//! thread, through Python): the vertex-tree update ~81 % (chunk splices ~34 %, of which the
//! `realloc` ~5 %; new heads ~10 %; `warm` ~11 %), the sort ~11 %, grouping ~3.5 %.
//! Measured in the same way and dropped:
//! * inserting a batch's new heads after its other elements (the others spliced in place,
//!   only the heads path-copied, where a batch with a new head then path-copied its whole
//!   tree): inserts of 2·10⁵ arcs −3 to +1.5 % in three runs, and doing the same for deleted
//!   heads made deletes 1.5–3 % slower (a deleted head already path-copies only the subtree
//!   it roots). About half of what new heads cost is allocating the new chunks (a profile
//!   puts it on mimalloc's first touch of a cold free-list block), which this does not
//!   change. What was kept instead (2026-11-30, AMD EPYC): the in-place recursion itself
//!   handles new heads (`tree::insert_rec_mut`: each rebuilds only the chunk it lands in,
//!   a subtree that comes to outrank its parent is rotated above it), no second pass.
//!   `weald bench updates … --in-place --threads 1`, separate processes interleaved:
//!   RMAT batches independent of the graph, 1e5 (four rounds) and 1e6 (two), even; batches
//!   drawn from the graph's own stream (`--graph-seed 1`, updates landing on its hubs, whose
//!   trees a batch nearly always gives a head; five rounds of 20 trials), inserts of 1e5
//!   +0 / +2.3 / +4.5 / +6.4 / +1.7 % (1.08–1.14e6 against 1.06–1.11e6 edges/s);
//! * (in the splice before its walk cut chunks into pieces, see "Chunk edits") counting a
//!   splice's lead 8 gaps at a time (a group decoded by the width's routine and its sum
//!   compared with the first edit, `codec::sum_below`) instead of gap by gap: even to
//!   4 % slower at 2·10⁵ and 2000 arcs; the lead costs its cache lines, not its branches;
//! * (likewise) leaving the lead's gaps where they are in a chunk spliced in place (when its
//!   width, first element and count length stay, only the count and the bytes from the
//!   lead's last whole group of 8 on are written, instead of re-packing the lead into
//!   scratch and copying it all back): within ±2 % at 20, 2000 and 2·10⁵ arcs.
//!
//! ## Chunk edits (what updates on hubs cost)
//!
//! An update that lands in a chunk rewrites it, and the chunk an update lands in is
//! size-biased: about 2b elements, not b. When the edits bring no new head the chunk stays
//! one chunk, and `Chunk::splice` rewrites it without decoding all of it: one walk over the
//! old gaps up to the last edit finds where each edit falls and cuts the chunk into pieces,
//! runs of old elements that no edit removes or replaces and the edits' new elements; the
//! runs' gaps are then copied as bits (56 at a time) when the width does not change, their
//! weights as bytes, and only the gaps between pieces are written one by one. When the new
//! gaps are narrower than the chunk's width the width shrinks only if no kept gap needs it:
//! the widest gap inside the runs is noted on the walk, and the gaps after the last edit
//! are read only until one needs the old width (decoding every kept gap again for this took
//! 5–7 % of in-place batches of 2·10⁵ arcs, 1 thread, inserts and deletes alike: a delete's
//! joined gap is usually still narrower than the widest; 3–5 % at 2000 and 20 arcs).
//! Batches that continue the graph's own RMAT stream (`weald bench updates FILE
//! --graph-seed 1`, updates on the hubs) went from 0.9–1.2e5 to 2.2–2.3e5 inserted edges/s
//! at batches of 1000 and from 3.2–4.0e5 to 6.9–7.3e5 at 1e5 (1 thread, scale 20) when
//! splicing replaced decode-merge-encode (with varint gaps). Bit-packing the gaps kept the
//! hub rates (interleaved runs within noise); batches of 1e5 and 1e6 independent edges
//! (mostly low-degree vertices, small chunks, where the splice's fixed costs weigh more)
//! insert 3–5 % slower than with varint gaps. Copying the runs between edits, where the
//! splice had decoded the old elements from the first edit to the last into a buffer,
//! merged them with the edits into a second one and packed that anew (2026-11-30, AMD EPYC,
//! `weald bench updates FILE --backend ctree --threads 1`, separate processes interleaved,
//! RMAT scale 20): in place, batches from the graph's own stream (`--graph-seed 1`, 1e5,
//! three rounds) insert 1.51–1.52e6 against 1.18–1.19e6 edges/s (+28 %) and delete
//! 1.52–1.55e6 against 1.18–1.19e6; each batch a new version, 1.05–1.06e6 against
//! 0.89–0.90e6 (two rounds); independent batches of 1e5 (four rounds) insert 4.10–4.16e6
//! against 3.87–4.07e6 (+1.4 to +6 %), of 10, 1000 and 1e6 −1.3 to +4.5 %. With the new
//! splice, `SMALL_SPLICE` 16 instead of 32 measured even to 1.5 % slower (1e5, three
//! rounds).
//!
//! Those fixed costs went for the usual case: a chunk that holds, with the insertions, at
//! most 32 elements (most vertices' only chunk) is decoded whole onto the stack, merged with
//! the edits and encoded anew (`chunk::splice_small`). Measured in one process, the short
//! path switched on in every other round (`examples/small_batches FILE SIZE ROUNDS
//! in-place`, RMAT scale 20, 1 thread, 2026-11-29, Intel Xeon), time per batch off → on:
//! the Python benchmark's batches of 1e5 edges insert 50.3 → 46.6 and 39.2 → 36.0 ms, delete
//! 46.9 → 42.4 and 37.7 → 34.7 ms; the example's own batches of 10 edges insert 11.3 → 10.5
//! and 11.7 → 11.0 µs, delete 9.1 → 8.3 and 9.5 → 8.7 µs; of 1000 insert 681 → 642 and
//! 796 → 737 µs, delete 555 → 515 and 686 → 620 µs. A bound of 64 measured the same as 32.
//!
//! And for the commonest case of all, one element into or out of a chunk, nothing is
//! decoded into a buffer or encoded (`Chunk::plan_one`): the chunk's bytes are edited where
//! they lie when nothing else holds it (a shared chunk, on the versioned path, gets an
//! edited copy), when the width stays canonical and the header keeps its shape. An insert
//! between two elements splits one gap into two that fit the width (it stays unless the
//! split gap was the only one that needed it); a delete of an interior element joins two
//! gaps, which keeps the width if the joined one fits. Then the later gaps move by one
//! width (56 bits at a time), the span and the weights by the bytes the gaps gained or
//! lost, and the allocation is resized by `realloc`. Anything else (the first or last
//! element, a count whose varint changes length, a width that would change, a result short
//! enough to live inline) takes the splice above. Measured in one process, alternating
//! rounds with decoding and encoding (a throwaway harness, RMAT scale 20, 1 thread,
//! 2026-11-29, AMD EPYC): in place, inserts of 10 / 1000 / 1e5 edges 3.2 / 6–7 / 1–2.6 %
//! faster, deletes 5–9 / 7–9 / 1–2.6 %; each batch a new version, inserts 2.4–2.5 /
//! 3.8–4.8 / 3.6–5.8 % faster, deletes 3.4–4.4 / 5.3–5.4 / 8–11 %.
//! Chaining such edits, for a chunk that gets two to four (a hub's chunks in a batch of
//! 1e5: each planned on the bytes the one before left, the splice taking over when one would
//! not keep the encoding canonical), was slower in place than one splice (2026-11-30, AMD
//! EPYC, one process, alternating rounds, both arm orders): inserts of 1e5 −3 to −6 %,
//! deletes −2 to −7 % (chains of at most two: −3 % and −1 %). Each plan decodes the chunk
//! from its start up to its element; the splice walks the chunk up to the last edit once.
//! (Sorting each source's arcs of a batch in one sequential pass instead of rayon's
//! `par_chunk_by_mut` measured the same at 1 thread: +0.7 and −0.4 %; nor did sorting each
//! source's run inside `sort_merge`'s pass that merges its duplicates, one read of the arcs
//! fewer: 1e5 inserts −2.7, −1.1, −1.8 and +7.6 % in four interleaved rounds, 2026-11-30.)
//!
//! ## Scans (what global algorithms cost)
//!
//! A kernel on a snapshot reads every vertex's edges through a [`FlatSnapshot`]: an array of
//! bitwise copies of the vertices' `CTree`s (prefix-chunk pointer and root pointer, 16 bytes
//! per vertex, owning no counts), so a vertex costs one miss fewer than through its vertex
//! node. Loops over runs of vertices (edge_map's pull and push, PageRank's pull, Afforest,
//! MIS, Brandes' backward pass, `EdgeScan`) call `Graph::prefetch_out(v + 8)`, which starts
//! loading the chunk of a vertex eight ahead, so that the chunk misses of several vertices
//! overlap. On RMAT scale 20, 1 thread, this took BFS from 0.10 to 0.068 s, MIS from 1.48
//! to 0.64 s, CC from 0.27 to 0.15 s and BC from 1.44 to 1.10 s (medians of 4; a noisy
//! machine, old and new binaries alternating). With it, reaching the chunks costs little (a
//! pass reading every vertex's degree: 14 ms); what remains is decoding. The snapshot also
//! keeps every vertex's degree (4 bytes), read once while flattening: traversals ask for the
//! degrees of whole frontiers before scanning them, and each would otherwise be a chunk
//! header's miss (BFS on RMAT scale 20: 51 -> 40 ms; the snapshot 3.6 -> 12 ms at 1 thread).
//!
//! Loops whose arcs read the neighbour's state at random (SSSP's and k-core's relaxations,
//! edge_map's push, Brandes' backward pass) scan through `Graph::for_each_out_ahead`, which
//! the snapshot implements with a second cursor per chunk (`Chunk::for_each_ahead`): the
//! chunk's first 16 elements are handed to the loop's prefetch at once, then the element 16
//! ahead of the current one, decoded by one out-of-order read of its packed gap. SSSP on the
//! RMAT scale-20 snapshot went from 0.67 to 0.50 s at 1 thread with it (interleaved A/B).
//! The lead cursor keeps the elements it decoded in a ring of 32, from which the scan takes
//! them, instead of the scan decoding every gap a second time: SSSP (RMAT scale 20 weighted,
//! Intel Xeon, interleaved, 1 thread) 654 → 597 ms and 646 → 551 ms, 2 threads 374 → 361 ms;
//! BC 591 → 557 and 624 → 582 ms; k-core and BFS within noise.
//!
//! Gaps are bit-packed, one width per chunk, so that decoding has no branch on the data: each
//! gap is one unaligned 8-byte load, a shift and a mask. Varint gaps (the earlier layout)
//! were one to three bytes in no predictable order for random neighbours, and the
//! byte-at-a-time decoder mispredicted their ends (1.1 ns per element when all gaps took one
//! byte, 4.3 ns when they mixed one and two, 5.6 ns for two and three, in a hot cache; a
//! word-at-a-time varint decoder without length branches did not pay either). A pass summing
//! all neighbour ids on one thread (`cargo run --release --example scan_timing -p weald-io
//! -- FILE`, medians of 9) takes, on RMAT scale 20 (31.4 M arcs), 15 ms on the CSR, 99 ms on
//! varint chunks and 48 ms on bit-packed ones; on a uniform random graph of the same size
//! (33.6 M arcs), 14 ms, 146 ms and 40 ms. Kernels on C-tree snapshots gained with it (RMAT
//! scale 20, 1 thread, interleaved medians): PageRank 2.08 → 1.28 s, MIS 0.36 → 0.28 s,
//! BC 0.41 → 0.32 s, CC 0.078 → 0.067 s, BFS 0.064 → 0.061 s.
//!
//! Eight gaps fill `width` bytes, so in a run of at least 16 gaps the ones after the first 8
//! are decoded a group of 8 at a time (`codec::unpack_bits_at`) by a routine per width whose
//! loads and shifts are constants, into a buffer the loop's closure then reads: fewer
//! instructions per element, which lets a loop whose arcs read the neighbour's state at
//! random (PageRank's pull) keep more of those reads in flight. RMAT scale 20, C-tree
//! snapshot, Intel Xeon, 1 thread, the two decoders alternating in one process: PageRank
//! 3.00 → 2.35 s (2 threads 1.66 → 1.18 s), BC 477 → 428 ms, CC 104 → 98 ms, MIS 402 → 372
//! ms, k-core 1057 → 1036 ms; BFS (whose pull stops after a few in-neighbours) and batch
//! updates unchanged. The first 8 gaps stay one at a time so that a loop that stops early
//! (Afforest's sampling) decodes no more than it reads: groups from the first gap on made CC
//! 6 % slower; and the group decoder is shared, not specialised with each loop's closure
//! (32 copies of every closure: CC, k-core and MIS 5–10 % slower).
//!
//! Where BFS's remaining time over the CSR lies (2026-11-29, Intel Xeon, 1 thread, a throwaway
//! program timing loops over the vertices with in-arcs of RMAT scale 20, in id order, each
//! vertex's arcs prefetched 16 vertices ahead, both backends alternating): reading each
//! vertex's first in-neighbour costs 6.3 ms on the snapshot against 4.6 on the CSR (1.4×),
//! its first four 17–22 ms against 6.5–7.1 (2.7–3.1×), all of them 51–60 against 27–31
//! (1.9×); in random vertex order the first costs 2.6× the CSR's. So the chunk's header is
//! not what costs (the first element comes with it), the next few elements are. Measured
//! and dropped (backends_ab, BFS ratio to the CSR, three alternating runs each): also
//! prefetching the chunk's second line in `prefetch_in` (the first four: 22 → 17 ms; BFS
//! unchanged); chunks allocated with 8 readable bytes past their end so that the decoder
//! needs no tail path (unchanged, 1.80–1.82); with those, a plain one-load-per-gap loop in
//! place of `unpack_bits_at` (1.70–1.71, but full scans ~40 % slower, which PageRank and CC
//! are made of); the plain loop only for chunks of at most 16 elements (1.81–1.83, even).
//! Nor is it where the chunks lie (2026-11-29, AMD EPYC): with every chunk of the bulk load
//! bump-allocated in vertex order into 1 MiB arenas (a throwaway build that never freed
//! them), so that the pull's chunk reads stream through memory as the CSR's do, BFS stayed
//! at 1.90 and 1.92× the CSR against 1.91 and 1.89× with the allocator's placement.
//!
//! What did pay (2026-11-30, AMD EPYC): the flat snapshot keeps each vertex's first
//! neighbour beside its degree (`flat.rs`). On the AMD machine the first in-neighbour of
//! every vertex in id order cost 14–15 ms on the snapshot against 5.7 on the CSR (2.5×, each
//! vertex prefetched 16 ahead; 4.8 against 1.0 ms with all of it in cache, so the header's
//! decoding was most of it there), and in BFS's pulls the first in-neighbour is the parent
//! for four in five of the vertices that find one (the big pull of a BFS from vertex 1:
//! 430 K of 545 K), while ~400 K isolated vertices are candidates in every pull. With the
//! first neighbour and the degree in one 8-byte entry, those pulls touch neither the slot
//! nor the chunk, `prefetch_in` loads no chunk for a vertex of degree one, and an isolated
//! vertex costs one read of its entry. BFS on the snapshot, 1 thread, three rounds of
//! separate processes interleaved (`backends_ab bfs`, 15 trials): 39.3–40.4 ms against
//! 42.8–43.4 (1.70–1.73× the CSR against 1.85–1.87×); in the bench (run 71) 35.0 ms, 1.58×.
//! In one process BC gained 8 % and CC 5.5 % (their pulls stop early too); MIS was even.
//! Storing the slot and the entry as one 24-byte record per vertex was slower (41.6–42.4
//! ms), and loading no chunk ahead at all slower still (+8 %). The cost is in taking the
//! snapshot, which now decodes each prefix chunk's first element too and writes 8 bytes a
//! vertex instead of 4: 18.7 ms at 1 thread and 9.5 at 2 (run 73), against 14.8–15.9 and
//! 8.0–8.3 (runs 69, 70), about what one BFS saves.
//!
//! What did not pay after it (2026-11-30, AMD EPYC, separate processes interleaved, three
//! rounds). *Two neighbours in the entry* (12 bytes unweighted): in the big pull another
//! 88 K of the 545 K find their parent at the second in-neighbour, and only ~30 K vertices
//! (against ~120 K) would read a chunk; yet BFS on the snapshot took 39.7–40.5 ms against
//! 37.4–37.6 (processes running only the snapshot's BFS, 25 trials), so the entries' density
//! counts for more than the chunks they spare. A profile of the pulls (the one-neighbour
//! code, `perf` instruction samples, one process per backend, 40 BFS each) splits the snapshot's pull loop into the look-ahead (entry, slot,
//! chunk prefetch: as many samples as the CSR's offset-and-prefetch), the visit of the entry
//! and first neighbour (more samples than the CSR's whole visit) and the chunk scans (~30 %).
//! *An AVX2 build of the group decoders* (`decode8` with `target_feature`, picked at run
//! time; LLVM gathers the 8 words and shifts them in one `vpsrlvd`): a full in-scan of every
//! vertex 56–57 ms against 60–62, but BC 20 % slower (one process, alternating with the
//! CSR; built without the run-time check, BC over the CSR 1.74–2.09 against 1.56–1.87 in a
//! noisy hour), so not kept. *No division for the group count of `unpack_bits_at`* (the check
//! that the last group's load stays in the slice done by a multiply): no change in a full
//! scan (60.5 against 60.1 ms) or BFS. *A two-stage look-ahead in the pulls*
//! (`visit_candidates` finding the candidates two words ahead and prefetching their entries
//! and slots, the chunks one word ahead as before; the CSR its offsets): both backends
//! slower, the CSR 26.0–26.4 ms against 23.9–24.2 and the snapshot 39.7–40.5 against
//! 38.6–39.8; with the slots alone prefetched early and nothing for the CSR, no better.
//! Measured again (2026-12-02, AMD EPYC) in one process, the two pipelines alternating trial
//! by trial (which cancels this machine's slow phases): the snapshot's BFS took 35.2–44.4 ms
//! with entries and slots prefetched a word earlier against 37.6–50.1 without (7–12 % less
//! in each of five runs of 11–15 trials; 4–7 % at 2 threads), while the CSR's was 4–5 %
//! slower with the deeper pipeline even with nothing of its own prefetched in it. So it is
//! kept for the snapshot only (`InGraph::PULL_INDEX_AHEAD`); the figures of separate
//! processes above were inside this machine's swings. In the same way (a throwaway program
//! running BC's backward fold, each vertex summing a random array over its out-arcs, over all
//! vertices in a random order, the variants alternating in one process, 20 trials each): the
//! snapshot took 154–293 ms with the tree handle prefetched a stage ahead of the chunk
//! against 211–373 without, and the CSR 96–155 (7 % less with its offsets prefetched
//! likewise). BC's sweep and edge_map's sparse push now do it, as `frontier_scatter` did; on
//! BC's own levels, most of them pulled and so in id order, it measured even. Measured and
//! dropped in that program: prefetching the next edge-tree node's tail chunk while a tail is
//! folded (even), a look-ahead of 28 arcs in place of 16 (1.6 % less), the lead too in
//! `prefetch_out_index` (7 % more), and one look-ahead across all the chunks of a tree with
//! edge-tree nodes (an in-order cursor over prefix, heads and tails feeding the ring, so
//! that a tail's first elements are handed ahead while the one before it is summed; 12 %
//! more: the cursor's per-element branches cost more than the restarts it saves; with
//! b = 65,536, no edge trees at all, `backends_ab bc` had given 1.66× the CSR against
//! 1.97×, so the restarts and the tree walk are worth up to ~15 % of BC on RMAT).
//! *BC's backward sweep decoding 16 vertices' arcs into a buffer before summing them*
//! (2026-11-30; every contribution prefetched as its arc is decoded, so that a group's loads
//! are in flight before its first sum): `backends_ab bc` 1.69–1.86× the CSR against
//! 1.71–1.93× (three runs each). A profile of the snapshot's BC puts the sweep's time on
//! the loads of the contributions, as the CSR's, yet it takes about twice the CSR's samples.
//! *A look-ahead fold over in-arcs for BC's dense pulls* (2026-11-30; an `InGraph` method
//! like `fold_out_ahead`, both backends prefetching the σ of the in-neighbour 16 arcs
//! ahead, the snapshot's vertices of degree one read from their lead): a profile of
//! `backends_ab bc` puts most of the snapshot's extra time in the forward pulls
//! (`pull_sigma`: 1.8–1.9× the CSR's samples, the backward sweep 1.4–1.5×), 63 % of the
//! chunk loop's samples on the add that waits for σ. With the look-ahead, 24 rounds
//! interleaved with the base binary (11 trials each) gave a median ratio of 1.79 against
//! 1.89, the new binary ahead in 15 of the 24 pairs and even in a quiet hour (six pairs:
//! 1.77–2.02 against 1.83–1.98): within this machine's swings, not kept. Most pulled vertices
//! have a few in-arcs, whose first σ are read as soon as they are handed ahead. Summing by
//! value (`fold_in`) without the look-ahead: even or slower (1.74–1.95 against 1.72–1.83,
//! three pairs). For MIS,
//! counting the earlier neighbours at the start with `fold_out_ahead` (a fold by value) in
//! place of `for_each_out` was 7–22 % slower on the snapshot (its ring of decoded elements
//! costs more than the lead-first scan), and its dense release step by `fold_in` was even.
//! (2026-12-02: a `Graph::fold_out` by value, the flat snapshot's folding its trees'
//! chunks, used for both of MIS's counts: −5 % and +3 % in two runs of `backends_ab mis` with
//! the variants alternating in one process; not kept.)
//! *What a plain scan costs* (2026-12-02, a throwaway program, both backends alternating in
//! one process, medians of 9, RMAT scale 20, 1 thread): the sum of every vertex's neighbour
//! ids by `for_each_out` took 18.4 ms on the CSR and 60.2 on the snapshot (3.3×);
//! `fold_out_ahead` with nothing prefetched 18.3 and 71.2; reading a random 4-byte entry
//! per arc, prefetched 16 arcs ahead, 33.7 and 99.8. A profile of the snapshot's scan puts
//! ~35 % of it in the tails (`for_each_node`, which decodes them) and the rest spread over
//! the prefix loop, no instruction above 7 %. Decoding a chunk's gaps into a buffer of 256
//! running sums (8 at a time by a routine per width) before the caller's loop, in place of
//! the ring of `for_each_ahead`: the fold 10 % faster, the random reads even to 9 % slower,
//! BC 4 % faster to 7 % slower in three pairs of `backends_ab` runs: not kept. With
//! b = 65,536 (`B=65536 backends_ab`), MIS took 1.33–1.42× the CSR against 1.52–1.64× at
//! b = 256, BFS 1.58× against 1.55–1.63×.
//! (2026-12-07, AMD EPYC) An in-order walk of an edge tree (`tree::for_each_node`,
//! `fold_nodes`: the tails of a vertex with more than one chunk) asks for a node's children
//! and its tail chunk on arriving at it, so the right subtree and the tail load while the left
//! one is walked: `backends_ab`, the binaries alternating, two pairs each, ratio to the CSR
//! before → after: PageRank 2.41 / 2.37 → 2.30 / 2.19, MIS 1.46–1.53 → 1.48–1.51 (even), BC
//! 1.57–1.87 → 1.60–2.09 (this machine's swings were wider than any change).
//!
//! *A pipeline over an edge tree's nodes in `fold_ahead`* (2026-12-07, Intel Xeon; measured
//! and dropped). The in-order walk kept the last four nodes in a ring and folded each one
//! only when the next arrived. Before folding a node, it handed the next node's head and the
//! first 8 elements of that node's tail to the loop's prefetch. So the state a chunk's first
//! elements read was loading a whole chunk ahead, where `Chunk::for_each_ahead` hands them at
//! the chunk's start. `backends_ab bc`, two pairs of processes: 1.45 / 1.46× the CSR against
//! 1.42 / 1.43× without. In a `perf` profile of `backends_ab bc` (both backends, 40 trials
//! each), among the snapshot's symbols are `Chunk::fold_ahead` at 26.5 % of the samples, the
//! hubs' tails at 6.1 % (`tree::for_each_node` 4.7 %, `fold_nodes` 1.4 %), and its pull loop
//! at the same count as the CSR's (15.8 % each).
//!
//! *BC after the backward push* (2026-12-08, Intel Xeon, 1 thread). BC's backward sweep now
//! pushes a step whose next level has few in-arcs (`weald-algo` `bc`, `docs/algorithms.md`),
//! which took both backends' BC on RMAT scale 20 down by a quarter, the CSR's more than the
//! snapshot's. From the harness's source (603380), the snapshot's time is then two scans.
//! - The forward pull into level 3: the in-arcs of 1.02 M unreached vertices, 15.2 M arcs.
//!   65 ms on the CSR, 82 ms on the snapshot, in one process (`backends_ab`).
//! - The backward pull of the 27 K hubs of level 2: 16.2 M out-arcs, 5.2 ns an arc. It took
//!   82–86 ms against the CSR's 38–42 in one process (`backends_ab`, five alternating
//!   trials), and 88 ms in `weald run bc --backend ctree`. Running only the snapshot's BC in
//!   the process, with the CSR kept or dropped, gave 82–93 ms. Earlier in the same hour
//!   `backends_ab` had given 57 ms; that was not reproduced.
//!
//! A `perf` profile of `weald run bc --backend ctree` puts 36 % of the samples in
//! `Chunk::fold_ahead` (the hubs' pull). 42 % of those sit just after the lead cursor's load
//! of the packed gaps, waiting for the chunk's bytes. Measured and dropped: prefetching every
//! line of a chunk on entering it (`for_each_ahead`), `backends_ab bc` 1.33–1.37× the CSR
//! against 1.33–1.35× without (two pairs).
//!
//! ## Memory
//!
//! Per block of 16 ids: one vertex-tree node (`size_of::<VNode<W>>()` = 56 bytes + its 8-byte
//! count, `counted::Counted`, since 2026-12-02; 16 bytes of `Arc` counts before) and its array
//! (a 16-byte header, its count and length, + 16 per vertex with edges); per vertex with edges
//! its prefix chunk (8-byte header + its bytes); per edge-tree node (one per ~b arcs) 40 + 16
//! bytes (+ `W::BYTES` for the head's weight); per arc the chunk's width in bits (a few for
//! clustered neighbours; for random ones about log2(n / degree) plus two or three, the width
//! being that of the chunk's widest gap), plus `W::BYTES`.
//! [`MemoryReport`] counts exactly the bytes requested from the allocator (the no-leak test
//! checks this with a counting allocator), excluding allocator overhead.
//! At RMAT scale 20 (`weald info FILE --backend ctree --json`: 1,048,575 vertices, 38 % of
//! them without edges, 31.4 M arcs): **2.80 bytes per arc** = vertex tree 0.51 (16.1 MB) +
//! chunks 2.08 (65.4 MB; 2.27 with varint gaps) + edge-tree nodes 0.21. A uniform random
//! graph of 2^20 vertices and 33.6 M arcs: 3.55 bytes per arc (3.90 with varint gaps).
//! (Since the spare slots and the single node count, RMAT scale 20: 2.76 bytes per arc,
//! vertex tree 16.6 MB, chunks 63.4 MB, edge-tree nodes 6.5 MB.)
//! With one 64-byte node per vertex (before the blocks) the vertex tree alone took 2.14
//! bytes per arc (4.61 in all).
//!
//! ## Ids
//!
//! A vertex exists once it is inserted explicitly or appears as an edge endpoint, and stops
//! existing when deleted. `num_vertices()` is `1 + max id present` (0 when empty); ids below
//! it that are not present behave as isolated vertices.
//!
//! ## Versions
//!
//! [`VersionedGraph`] publishes versions through an atomic pointer with a wait-free
//! `acquire` (see `version.rs`); [`FlatSnapshot`] flattens one version into an array of
//! per-vertex edge trees. `VersionedGraph::apply_in_place` (which Python's `DynamicGraph`
//! uses) updates the current version through `apply_mut` when no snapshot holds it, instead of
//! copying the touched paths into a new version and freeing the replaced ones; readers arriving
//! meanwhile wait for that batch. Measured with `cargo run --release --example small_batches
//! -p weald-cli -- rmat-s20.wgb SIZE ROUNDS in-place|chain` (1 thread, RMAT scale 20, three
//! rounds alternating the modes, 2026-11-28, Intel Xeon), time per batch, in place vs chain
//! (apply, then free the replaced version): 1e5 inserts 71 / 76 / 88 ms vs 92 / 129 / 115 ms
//! (75 / 106 / 95 ms apply + 17 / 23 / 20 ms free); 1e3 inserts 2.29 / 2.20 / 2.47 ms vs
//! 4.91 / 4.97 / 4.42 ms (3.43 / 3.43 / 2.99 + 1.48 / 1.54 / 1.43 ms). Deletes alike (1e5:
//! 63–80 ms vs 72–104 ms before the free; 1e3: 1.9–2.2 ms vs 3.0–3.5 ms before the free).

mod chunk;
mod counted;
mod flat;
mod graph;
mod set;
mod tree;
mod version;
mod vtree;

#[cfg(test)]
mod tests;

pub use flat::FlatSnapshot;
pub use graph::{CTreeGraph, CTreeOptions, MemoryReport};
pub use set::CTreeSet;
pub use version::{Retired, Snapshot, VersionedGraph};

use std::sync::atomic::{fence, Ordering::Acquire};
use std::sync::Arc;
use weald_graph::Vertex;

/// The default expected chunk size.
pub const DEFAULT_B: u32 = 256;

const SEED_HEAD: u32 = 0x9e37_79b9;
const SEED_PRIO: u32 = 0x85eb_ca6b;

/// The murmur3 32-bit finaliser.
#[inline(always)]
fn fmix32(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^= h >> 16;
    h
}

pub(crate) use crate::prefetch;

/// The values of the C-tree's `Arc`s — edge-tree nodes (vertex-tree nodes and block arrays
/// are `counted::Counted` and `counted::CountedSlice`, which have no weak references at
/// all) — of which the crate never makes a `Weak` (no `Arc::downgrade` of them anywhere; the
/// types are crate-private). [`unique_mut`] takes only these.
pub(crate) trait NoWeak {}
impl<W: weald_graph::Weight> NoWeak for tree::Node<W> {}

/// `Arc::get_mut` without its locked compare-exchange on the weak count (which only locks
/// out a concurrent `Weak::upgrade`, and these `Arc`s have no `Weak`: [`NoWeak`]). The
/// strong count is trusted exactly as `Arc::get_mut` trusts it: the in-place updates descend
/// from a root they hold by `&mut` through owners whose counts are one, and any other holder
/// of a node on the way — a version, a clone of the graph, a snapshot — holds a counted
/// reference at or above it, which makes its count more than one and the update path-copy
/// from there (a `FlatSnapshot`'s uncounted copies of edge trees are covered by its counted
/// clone of the graph's root). The in-place updates that walk the vertex tree ask the same of
/// every node on their paths (`Counted::get_mut`) and this of the arrays and edge-tree nodes;
/// those that reach a block through the block index rely instead on the tree's lineage count
/// (`vtree::BlockIndex`), and ask it of the block's array.
/// One process, batches alternating between this and `Arc::get_mut` (RMAT scale 20, in place,
/// 1 thread, an Intel Xeon): batches of 10 edges insert and delete 2–3 % faster (medians);
/// for batches of 1,000 and 100,000 edges the difference is within noise (medians −6 % to
/// +3 %, means 1–3 % lower).
#[inline(always)]
pub(crate) fn unique_mut<T: ?Sized + NoWeak>(a: &mut Arc<T>) -> Option<&mut T> {
    debug_assert_eq!(Arc::weak_count(a), 0, "a C-tree Arc with a Weak");
    if Arc::strong_count(a) != 1 {
        return None;
    }
    // As in `Arc::get_mut` and `Drop`: every other owner's Release decrement (read above, or
    // an earlier one in its release sequence) happens before what we do with the value.
    fence(Acquire);
    // SAFETY: the count is one and we hold that reference by `&mut`; no `Weak` exists
    // (`NoWeak`), so no other reference can appear while the borrow lives. `Arc::as_ptr`
    // keeps the allocation's mutable provenance (std relies on it for `get_mut`).
    Some(unsafe { &mut *(Arc::as_ptr(a) as *mut T) })
}

/// The head rule of a tree: `x` is a head with probability `1/b`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Heads {
    b: u32,
}

impl Heads {
    pub(crate) fn new(b: u32) -> Self {
        assert!(b >= 1, "chunk size b must be at least 1");
        Heads { b }
    }

    #[inline(always)]
    pub(crate) fn is_head(self, x: Vertex) -> bool {
        ((fmix32(x ^ SEED_HEAD) as u64 * self.b as u64) >> 32) == 0
    }
}

/// Treap priority order: does `a` belong above `b`?
#[inline(always)]
pub(crate) fn higher(a: Vertex, b: Vertex) -> bool {
    let (pa, pb) = (fmix32(a ^ SEED_PRIO), fmix32(b ^ SEED_PRIO));
    pa > pb || (pa == pb && a > b)
}

//! The matching core: Edmonds' primal–dual blossom algorithm for a maximum-weight perfect
//! matching on a sparse general graph, with integer weights and exact dual variables.
//!
//! It follows Galil's presentation of Edmonds' algorithm (vertex duals, blossom duals, S/T
//! labels, blossom shrink and expand), grows alternating trees from every free vertex at once,
//! and works on adjacency lists, so one stage costs O(n + m) and not O(n²). Two things make it
//! fit the pairing engine: a greedy *jump start* (each vertex's dual is lowered until one of its
//! edges is tight, and tight edges between free vertices are matched) that leaves few free
//! vertices for the stages to handle, and access to the final duals, which the pricing step in
//! `solve` uses to prove that edges absent from the candidate graph cannot improve the result.
//!
//! Before the stages, local alternating trees (one root at a time, dual steps confined to the
//! tree) match most of the vertices the greedy start left free, and a re-solve after pricing
//! starts from the previous optimum ([`max_weight_matching_warm`]) instead of from scratch.
//!
//! Internally every weight is doubled and all free vertices' duals share one parity when the
//! stages start (all even after the jump start; the warm repair restores it), so every S
//! vertex has that parity, S–S slacks are even and the half-slack step stays integral: no
//! floating point anywhere.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt::Debug;
use std::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

/// Integer type of costs and duals: `i64` for ordinary models, `i128` for stacked tiers.
pub trait Weight:
    Copy
    + Ord
    + Debug
    + Default
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + Send
    + Sync
    + 'static
{
    const ZERO: Self;
    const MAX: Self;
    fn from_i64(v: i64) -> Self;
    /// Exact halving of an even number.
    fn half(self) -> Self;
    fn to_i128(self) -> i128;
    /// `v`, clamped to the type's range.
    fn from_i128_saturating(v: i128) -> Self;
}

macro_rules! weight_impl {
    ($($t:ty),*) => {$(
        impl Weight for $t {
            const ZERO: Self = 0;
            const MAX: Self = <$t>::MAX;
            fn from_i64(v: i64) -> Self { v as $t }
            fn half(self) -> Self { self / 2 }
            fn to_i128(self) -> i128 { self as i128 }
            fn from_i128_saturating(v: i128) -> Self {
                v.clamp(<$t>::MIN as i128, <$t>::MAX as i128) as $t
            }
        }
    )*};
}
weight_impl!(i64, i128);

const NONE: usize = usize::MAX;

/// A maximum-cardinality matching with its dual solution: when it is perfect, it is a
/// maximum-weight perfect matching and the duals prove it. (When it is not, only its
/// cardinality is maximum: the jump start leaves free vertices with unequal duals.)
///
/// Duals are in the solver's internal units: for an edge (u, v) of weight w the reduced
/// cost is `dual[u] + dual[v] − 4w + 2·Σ z(B)` over the blossoms B containing both ends,
/// and it is ≥ 0 for every edge of the graph at the optimum.
#[derive(Debug, Clone)]
pub struct Solved<W: Weight> {
    /// `mate[v]` is v's partner, or `usize::MAX` when v stayed free.
    pub mate: Vec<usize>,
    /// Vertex duals (2·y in the doubled-weight units).
    pub dual: Vec<W>,
    /// Blossom tree at the end: `parent[b]` for b in 0..2n (vertices then blossoms).
    pub parent: Vec<usize>,
    /// Blossom duals z(B), indexed like `parent` (0 for vertices and unused slots).
    pub z: Vec<W>,
    /// Number of stages run after the jump start (for diagnostics and tests).
    pub stages: usize,
    /// Free vertices when the stages began, after the jump start or the warm repair (each
    /// costs about half a stage; for diagnostics and tests).
    pub free_at_start: usize,
    /// The solver's whole final state, kept so that a re-solve on a larger edge list can start
    /// from it ([`max_weight_matching_warm`]); `None` once dropped.
    warm: Option<Warm<W>>,
}

/// The final solver state carried by a [`Solved`] for a warm re-solve.
#[derive(Clone)]
struct Warm<W: Weight>(Box<State<W>>);

impl<W: Weight> Debug for Warm<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Warm({} vertices, {} edges)",
            self.0.n,
            self.0.weight.len()
        )
    }
}

impl<W: Weight> Solved<W> {
    /// Drops the state kept for a warm re-solve (it is as large as the graph); the matching and
    /// the duals stay.
    pub fn without_warm_start(mut self) -> Self {
        self.warm = None;
        self
    }

    /// The same result with its duals in another weight type (the state kept for a warm
    /// re-solve is dropped): for a solve run in `i64` on costs that fit it, reported in the
    /// caller's `i128`.
    pub fn widen<V: Weight>(self) -> Solved<V> {
        let conv = |x: &W| V::from_i128_saturating(x.to_i128());
        Solved {
            mate: self.mate,
            dual: self.dual.iter().map(conv).collect(),
            parent: self.parent,
            z: self.z.iter().map(conv).collect(),
            stages: self.stages,
            free_at_start: self.free_at_start,
            warm: None,
        }
    }

    /// True when a warm re-solve can start from this result.
    pub fn can_warm_start(&self) -> bool {
        self.warm.is_some()
    }

    /// True when every vertex is matched.
    pub fn is_perfect(&self) -> bool {
        self.mate.iter().all(|&m| m != NONE)
    }

    /// Reduced cost (internal units) of a possible edge (u, v) of weight `w` against the
    /// final duals. Negative means the edge would improve the matching.
    pub fn reduced(&self, u: usize, v: usize, w: W) -> W {
        let s = self.dual[u] + self.dual[v] - W::from_i64(4) * w;
        let z = common_blossom_z(&self.parent, &self.z, u, v);
        s + z + z
    }

    /// Outermost blossom containing v (v itself when it is in none).
    pub fn top(&self, v: usize) -> usize {
        let mut b = v;
        while self.parent[b] != NONE {
            b = self.parent[b];
        }
        b
    }

    /// Outermost blossom of every vertex, computed once for fast pricing.
    pub fn tops(&self) -> Vec<usize> {
        let n = self.mate.len();
        let mut top = vec![NONE; 2 * n];
        let mut out = Vec::with_capacity(n);
        for v in 0..n {
            // Memoised walk up the forest.
            let mut path = Vec::new();
            let mut b = v;
            while top[b] == NONE && self.parent[b] != NONE {
                path.push(b);
                b = self.parent[b];
            }
            let t = if top[b] == NONE { b } else { top[b] };
            top[b] = t;
            for p in path {
                top[p] = t;
            }
            out.push(t);
        }
        out
    }
}

/// Σ z over the blossoms containing both vertices u ≠ v, in a blossom forest given by
/// `parent` (NONE at a root) with the blossom duals in `z`: walk up from the deeper side until
/// the two chains meet, then sum z from the meeting point up.
fn common_blossom_z<W: Weight>(parent: &[usize], z: &[W], u: usize, v: usize) -> W {
    let depth = |mut b: usize| {
        let mut d = 0usize;
        while parent[b] != NONE {
            b = parent[b];
            d += 1;
        }
        d
    };
    let (mut a, mut b) = (u, v);
    let (mut da, mut db) = (depth(a), depth(b));
    while da > db {
        a = parent[a];
        da -= 1;
    }
    while db > da {
        b = parent[b];
        db -= 1;
    }
    // Same depth: the chains meet at the lowest common blossom, or both end at NONE.
    while a != b {
        a = parent[a];
        b = parent[b];
    }
    let mut sum = W::ZERO;
    while a != NONE {
        sum += z[a];
        a = parent[a];
    }
    sum
}

/// A maximum-cardinality matching on `n` vertices and the given edges (u, v, w), u ≠ v, no
/// duplicates; of maximum weight among perfect matchings when it is perfect, which the caller
/// checks with `is_perfect` (see [`Solved`]).
pub fn max_weight_matching<W: Weight>(n: usize, edges: &[(u32, u32, W)]) -> Solved<W> {
    let mut s = State::new(n, edges);
    s.jump_start();
    s.local_trees(LOCAL_TREE, LOCAL_STEPS);
    s.free_at_start = s.free_count();
    s.run();
    s.finish()
}

/// Solves the same problem as [`max_weight_matching`] on `edges`, starting from `prev`, the
/// result of a solve on a prefix of `edges` (the pricing loop only ever appends edges).
///
/// The previous optimum is kept — matching, vertex duals, blossoms and their duals — and only
/// repaired where an appended edge has a negative reduced cost (see [`State::repair`]), so a
/// re-solve after pricing runs a stage per freed pair instead of a whole solve. Falls back to a
/// cold solve when `prev` carries no state or its edges are not a prefix of `edges`. The result
/// is an optimum of `edges` like the cold one; on ties it may be a different optimum.
pub fn max_weight_matching_warm<W: Weight>(
    prev: Solved<W>,
    n: usize,
    edges: &[(u32, u32, W)],
) -> Solved<W> {
    match warm_state(prev, n, edges) {
        Some(mut s) => {
            s.run();
            s.finish()
        }
        None => max_weight_matching(n, edges),
    }
}

/// The re-solve of the pricing loop: warm ([`max_weight_matching_warm`]) or cold, whichever
/// should leave fewer free vertices for the stages (each costs about half a stage).
///
/// More appended edges than vertices (the first pricing pass of a large field): cold, the
/// repair would free most vertices' partners (10,000-player McMahon round, 21,323 edges
/// appended: 1,416 free after the repair, 10 after a fresh start with local trees). More than
/// n / 4: both starts are prepared and the one with fewer free vertices is run (OpenGotha
/// 1,000-player round, 402 edges appended: 50 free warm, 24 fresh; a fresh start costs about
/// two stages at 10,000 players). Fewer: warm.
pub fn max_weight_matching_resolve<W: Weight>(
    prev: Solved<W>,
    n: usize,
    edges: &[(u32, u32, W)],
) -> Solved<W> {
    let added = edges
        .len()
        .saturating_sub(prev.warm.as_ref().map_or(0, |w| w.0.weight.len()));
    if added > n {
        return max_weight_matching(n, edges);
    }
    let Some(mut s) = warm_state(prev, n, edges) else {
        return max_weight_matching(n, edges);
    };
    if added * 4 > n {
        let mut c = State::new(n, edges);
        c.jump_start();
        c.local_trees(LOCAL_TREE, LOCAL_STEPS);
        c.free_at_start = c.free_count();
        if c.free_at_start < s.free_at_start {
            *s = c;
        }
    }
    s.run();
    s.finish()
}

/// `prev`'s state extended with the appended edges and repaired, ready for the stages; `None`
/// when `prev` has no state or its edges are not a prefix of `edges`.
fn warm_state<W: Weight>(
    prev: Solved<W>,
    n: usize,
    edges: &[(u32, u32, W)],
) -> Option<Box<State<W>>> {
    let Warm(mut s) = prev.warm?;
    let m0 = s.weight.len();
    if s.n != n || !s.extend(edges) {
        return None;
    }
    s.stages = 0;
    s.repair(m0);
    s.local_trees(LOCAL_TREE, LOCAL_STEPS);
    s.free_at_start = s.free_count();
    Some(s)
}

/// Limits of the local trees grown before the stages ([`State::local_trees`]): vertices per
/// tree and dual steps per tree. Measured on the OpenGotha 1,000-player round (free vertices
/// left after the greedy jump start: 236; after local trees of 64/8: 34; 256/16: 24;
/// 1,024/32: 24) and at 3,000 (256/16: 64 against 118 for 64/8, 52 for 1,024/32 but slower).
const LOCAL_TREE: usize = 256;
const LOCAL_STEPS: usize = 16;

#[derive(Clone)]
struct State<W: Weight> {
    n: usize,
    /// endpoint[p]: vertex at endpoint p; edge k has endpoints 2k and 2k+1.
    endpoint: Vec<usize>,
    /// Doubled weights.
    weight: Vec<W>,
    /// neighbend[v]: remote endpoints of the edges at v (CSR layout).
    nb_start: Vec<usize>,
    nb: Vec<usize>,
    /// mate[v]: remote endpoint of v's matched edge, or NONE.
    mate: Vec<usize>,
    label: Vec<u8>,
    labelend: Vec<usize>,
    inblossom: Vec<usize>,
    blossomparent: Vec<usize>,
    blossomchilds: Vec<Vec<usize>>,
    blossombase: Vec<usize>,
    blossomendps: Vec<Vec<usize>>,
    bestedge: Vec<usize>,
    blossombestedges: Vec<Option<Vec<usize>>>,
    unusedblossoms: Vec<usize>,
    dualvar: Vec<W>,
    allowedge: Vec<bool>,
    queue: Vec<usize>,
    stages: usize,
    free_at_start: usize,
    /// Scratch for the dual step: the edges it makes tight.
    tight: Vec<usize>,
    /// Scratch for add_blossom, kept to avoid an O(n) allocation per blossom.
    bestedgeto: Vec<usize>,
    bestedgeto_touched: Vec<usize>,
    /// root[b]: the free vertex whose alternating tree holds the labelled top-level blossom b
    /// (meaningless while b is unlabelled). Trees outlive augmentations of other trees, so the
    /// two trees an augmentation consumes are found by their roots.
    root: Vec<usize>,
    /// Scratch for killing the two trees of an augmentation: marks of their vertices, the
    /// vertices, their top blossoms, and the vertices outside them to re-examine.
    dead: Vec<bool>,
    dead_leaves: Vec<usize>,
    dead_tops: Vec<usize>,
    recheck: Vec<usize>,
    /// Δ: the sum of all dual steps of this run. The candidates of the dual step sit in heaps
    /// under keys that do not move with Δ: an S–free edge's slack + Δ (`free_heap`, by the
    /// free vertex), an S–S edge's slack + 2Δ (`ss_heap`, by the S blossom), a T blossom's
    /// z + Δ (`t_heap`). Entries are checked when they reach the top (stale ones dropped or
    /// re-keyed), so a dual step costs O(log n) instead of scans over all vertices.
    delta_sum: W,
    free_heap: BinaryHeap<Reverse<(W, usize)>>,
    ss_heap: BinaryHeap<Reverse<(W, usize)>>,
    t_heap: BinaryHeap<Reverse<(W, usize)>>,
    /// Vertices (free side) and S blossoms whose least-slack edge changed since the last dual
    /// step: they get one heap entry each when the step starts, not one per improvement.
    dirty_free: Vec<usize>,
    dirty_ss: Vec<usize>,
    dirty_mark: Vec<u8>,
    /// Lazy duals inside `run`: `dualvar[x]` is exact at Δ = `stamp[x]`; since then an S
    /// vertex has lost and a T vertex gained Δ − stamp (a top S blossom's z gained it, a T
    /// blossom's lost it), so a dual step is O(1). A vertex or top blossom is made exact
    /// (`fix_*`) before its label or its top blossom changes; outside `run` all are exact.
    stamp: Vec<W>,
    fix_stack: Vec<usize>,
}

impl<W: Weight> State<W> {
    fn new(n: usize, edges: &[(u32, u32, W)]) -> Self {
        let m = edges.len();
        let mut endpoint = Vec::with_capacity(2 * m);
        let mut weight = Vec::with_capacity(m);
        for &(u, v, w) in edges {
            endpoint.push(u as usize);
            endpoint.push(v as usize);
            weight.push(w + w);
        }
        let mut s = State {
            n,
            endpoint,
            weight,
            nb_start: Vec::new(),
            nb: Vec::new(),
            mate: vec![NONE; n],
            label: vec![0; 2 * n],
            labelend: vec![NONE; 2 * n],
            inblossom: (0..n).collect(),
            blossomparent: vec![NONE; 2 * n],
            blossomchilds: vec![Vec::new(); 2 * n],
            blossombase: (0..n).chain(std::iter::repeat_n(NONE, n)).collect(),
            blossomendps: vec![Vec::new(); 2 * n],
            bestedge: vec![NONE; 2 * n],
            blossombestedges: vec![None; 2 * n],
            unusedblossoms: (n..2 * n).rev().collect(),
            dualvar: vec![W::ZERO; 2 * n],
            allowedge: vec![false; m],
            queue: Vec::new(),
            stages: 0,
            free_at_start: 0,
            tight: Vec::new(),
            bestedgeto: vec![NONE; 2 * n],
            bestedgeto_touched: Vec::new(),
            root: vec![NONE; 2 * n],
            dead: vec![false; n],
            dead_leaves: Vec::new(),
            dead_tops: Vec::new(),
            recheck: Vec::new(),
            delta_sum: W::ZERO,
            free_heap: BinaryHeap::new(),
            ss_heap: BinaryHeap::new(),
            t_heap: BinaryHeap::new(),
            dirty_free: Vec::new(),
            dirty_ss: Vec::new(),
            dirty_mark: vec![0; 2 * n],
            stamp: vec![W::ZERO; 2 * n],
            fix_stack: Vec::new(),
        };
        s.build_adjacency();
        s
    }

    /// The CSR adjacency lists from `endpoint` (edge order, so a warm state extended with new
    /// edges has the very lists a cold state on the same edges would have).
    fn build_adjacency(&mut self) {
        let n = self.n;
        let m = self.weight.len();
        let mut deg = vec![0usize; n + 1];
        for &x in &self.endpoint {
            deg[x] += 1;
        }
        let mut nb_start = vec![0usize; n + 1];
        for v in 0..n {
            nb_start[v + 1] = nb_start[v] + deg[v];
        }
        let mut fill = nb_start.clone();
        let mut nb = vec![0usize; 2 * m];
        for k in 0..m {
            let (u, v) = (self.endpoint[2 * k], self.endpoint[2 * k + 1]);
            nb[fill[u]] = 2 * k + 1;
            fill[u] += 1;
            nb[fill[v]] = 2 * k;
            fill[v] += 1;
        }
        self.nb_start = nb_start;
        self.nb = nb;
    }

    fn free_count(&self) -> usize {
        self.mate.iter().filter(|&&p| p == NONE).count()
    }

    #[inline]
    fn slack(&self, k: usize) -> W {
        let w = self.weight[k];
        self.dual(self.endpoint[2 * k]) + self.dual(self.endpoint[2 * k + 1]) - w - w
    }

    /// The current dual of vertex v (see `stamp`).
    #[inline]
    fn dual(&self, v: usize) -> W {
        let d = self.dualvar[v];
        if self.delta_sum == W::ZERO {
            // Before the first dual step (and in the jump start) every dual is exact.
            return d;
        }
        match self.label[self.inblossom[v]] {
            1 => d - (self.delta_sum - self.stamp[v]),
            2 => d + (self.delta_sum - self.stamp[v]),
            _ => d,
        }
    }

    /// The current z of blossom b (only a top-level blossom's z moves).
    fn zval(&self, b: usize) -> W {
        let z = self.dualvar[b];
        if self.blossomparent[b] != NONE {
            return z;
        }
        match self.label[b] {
            1 => z + (self.delta_sum - self.stamp[b]),
            2 => z - (self.delta_sum - self.stamp[b]),
            _ => z,
        }
    }

    /// Makes the top-level blossom (or vertex) b and all its vertices exact at the current Δ.
    fn fix_top(&mut self, b: usize) {
        if b >= self.n {
            self.dualvar[b] = self.zval(b);
            self.stamp[b] = self.delta_sum;
            let mut stack = std::mem::take(&mut self.fix_stack);
            stack.clear();
            self.leaves(b, &mut stack);
            for &v in &stack {
                self.dualvar[v] = self.dual(v);
                self.stamp[v] = self.delta_sum;
            }
            self.fix_stack = stack;
        } else {
            self.dualvar[b] = self.dual(b);
            self.stamp[b] = self.delta_sum;
        }
    }

    #[inline]
    fn neighbours(&self, v: usize) -> std::ops::Range<usize> {
        self.nb_start[v]..self.nb_start[v + 1]
    }

    /// Greedy initial duals and matching (all duals even, every matched edge tight).
    fn jump_start(&mut self) {
        let n = self.n;
        for v in 0..n {
            let mut best: Option<W> = None;
            for i in self.neighbours(v) {
                let w = self.weight[self.nb[i] / 2];
                if best.is_none_or(|b| w > b) {
                    best = Some(w);
                }
            }
            // Doubled weights are even, so is every dual.
            self.dualvar[v] = best.unwrap_or(W::ZERO);
        }
        for v in 0..n {
            if self.mate[v] != NONE {
                continue;
            }
            let mut min: Option<W> = None;
            for i in self.neighbours(v) {
                let s = self.slack(self.nb[i] / 2);
                if min.is_none_or(|m| s < m) {
                    min = Some(s);
                }
            }
            let Some(min) = min else { continue };
            // Lowering v's dual by the smallest slack keeps every edge feasible (v is free,
            // so none of its edges is matched) and makes at least one tight. The slack is
            // even (even duals, doubled weights), so duals stay even.
            self.dualvar[v] -= min;
            for i in self.neighbours(v) {
                let p = self.nb[i];
                let u = self.endpoint[p];
                if self.mate[u] == NONE && self.slack(p / 2) == W::ZERO {
                    self.mate[v] = p;
                    self.mate[u] = p ^ 1;
                    break;
                }
            }
        }
    }

    /// Grows one alternating tree at a time from each free vertex, over tight edges and with
    /// dual steps local to the tree (S duals −δ, T duals +δ: edges inside the tree keep their
    /// slack, edges leaving it only lose what δ allows), and augments when it reaches another
    /// free vertex. A cheap prelude to the stages, which grow every tree at once and pay O(n)
    /// per dual step: most free vertices of a pairing field find a partner within a few
    /// vertices. Trees stay without blossoms: a tree is dropped (its dual moves kept: they are
    /// valid) when it would need one, touches a blossom, grows past `max_tree` vertices or
    /// `max_steps` dual steps, or when the next step would be odd (free vertices must keep one
    /// dual parity). Roots in index order: deterministic.
    fn local_trees(&mut self, max_tree: usize, max_steps: usize) {
        let n = self.n;
        // mark[v] == r while v is in the tree of root r; side 1 = S, 2 = T.
        let mut mark = vec![NONE; n];
        let mut side = vec![0u8; n];
        // lp[t]: the endpoint at T vertex t of the edge that labelled it.
        let mut lp = vec![NONE; n];
        let mut svs: Vec<usize> = Vec::new();
        let mut tvs: Vec<usize> = Vec::new();
        // The edges (endpoint at the far end) that the last dual step made tight, in the
        // order a rescan of the S vertices would meet them.
        let mut fresh: Vec<usize> = Vec::new();
        // The edges from the tree's S vertices to vertices outside it when the S vertex was
        // scanned, keyed by (slack + the tree's Σδ then, position of the S vertex in `svs`,
        // adjacency index): the key's first part does not move while the far end stays
        // outside (its slack drops by each δ), and ties come out in the order a scan of every
        // S vertex would meet them. Entries whose far end has joined the tree since are
        // dropped when they reach the top. The S–S edges' least slack + 2Σδ likewise needs
        // only a running minimum (both ends stay S). So a dual step costs O(log m) per edge
        // it makes tight, not a scan of every S vertex's edges (which was a third of the
        // prelude's work).
        let mut out_heap: BinaryHeap<Reverse<(W, usize, usize)>> = BinaryHeap::new();
        for r in 0..n {
            if self.mate[r] != NONE || self.inblossom[r] != r {
                continue;
            }
            svs.clear();
            tvs.clear();
            mark[r] = r;
            side[r] = 1;
            svs.push(r);
            let mut steps = 0;
            let mut scanned = 0;
            fresh.clear();
            out_heap.clear();
            let mut ss_key: Option<W> = None;
            let mut dsum = W::ZERO;
            'grow: loop {
                // After a dual step, only the edges it made tight can grow the tree from the S
                // vertices already scanned (every edge tight before led into the tree); then
                // the S vertices not scanned yet, over all their tight edges. The same edges
                // in the same order as rescanning every S vertex, without the rescan (which,
                // with the two scans of each step below, was most of the prelude's work).
                let mut k = 0;
                loop {
                    let p = if k < fresh.len() {
                        k += 1;
                        fresh[k - 1]
                    } else if scanned < svs.len() {
                        let s = svs[scanned];
                        let spos = scanned;
                        scanned += 1;
                        fresh.clear();
                        k = 0;
                        for i in self.neighbours(s) {
                            let p = self.nb[i];
                            let sl = self.slack(p / 2);
                            if sl == W::ZERO {
                                fresh.push(p);
                            }
                            let w = self.endpoint[p];
                            if mark[w] != r {
                                out_heap.push(Reverse((sl + dsum, spos, i)));
                            } else if side[w] == 1 {
                                let key = sl + dsum + dsum;
                                if ss_key.is_none_or(|x| key < x) {
                                    ss_key = Some(key);
                                }
                            }
                        }
                        continue;
                    } else {
                        break;
                    };
                    let w = self.endpoint[p];
                    if mark[w] == r {
                        continue;
                    }
                    if self.mate[w] == NONE {
                        // w free: alone, or the free base of its blossom, which may then
                        // be matched outside.
                        self.augment_local(p, &lp);
                        break 'grow;
                    }
                    let w2 = self.endpoint[self.mate[w]];
                    if self.inblossom[w] != w || self.inblossom[w2] != w2 || mark[w2] == r {
                        // A blossom in the way, or an odd cycle through the tree.
                        break 'grow;
                    }
                    if svs.len() + tvs.len() + 2 > max_tree {
                        break 'grow;
                    }
                    mark[w] = r;
                    side[w] = 2;
                    lp[w] = p;
                    tvs.push(w);
                    mark[w2] = r;
                    side[w2] = 1;
                    svs.push(w2);
                }
                fresh.clear();
                if steps == max_steps {
                    break;
                }
                steps += 1;
                // The largest step every edge at the tree allows: the least slack of the edges
                // leaving the tree and half the least slack of the S–S edges inside it (both
                // ends move).
                let out_key = loop {
                    match out_heap.peek() {
                        Some(&Reverse((key, _, i))) => {
                            if mark[self.endpoint[self.nb[i]]] == r {
                                out_heap.pop();
                                continue;
                            }
                            break Some(key);
                        }
                        None => break None,
                    }
                };
                let out = out_key.map(|key| key - dsum);
                let ss = ss_key.map(|key| (key - dsum - dsum).half());
                let delta = match (out, ss) {
                    (Some(a), Some(b)) => a.min(b),
                    (a, b) => match a.or(b) {
                        Some(d) => d,
                        None => break,
                    },
                };
                // An even step keeps the root's parity; an S–S edge made tight would need a
                // blossom, so such a step is not worth taking.
                if delta == W::ZERO || delta.to_i128() % 2 != 0 || ss == Some(delta) {
                    break;
                }
                for &s in &svs {
                    self.dualvar[s] -= delta;
                }
                for &t in &tvs {
                    self.dualvar[t] += delta;
                }
                dsum += delta;
                // The edges the step made tight (delta < ss here, so they all leave the
                // tree), in scan order.
                while let Some(&Reverse((key, _, i))) = out_heap.peek() {
                    if Some(key) != out_key {
                        break;
                    }
                    out_heap.pop();
                    let p = self.nb[i];
                    if mark[self.endpoint[p]] != r {
                        fresh.push(p);
                    }
                }
            }
            for &v in svs.iter().chain(tvs.iter()) {
                mark[v] = NONE;
                side[v] = 0;
            }
        }
    }

    /// Augments along the local tree's path: p is the remote endpoint (a free vertex) of a
    /// tight edge from an S vertex; `lp` leads from T vertices back towards the root.
    fn augment_local(&mut self, p: usize, lp: &[usize]) {
        let w = self.endpoint[p];
        self.mate[w] = p ^ 1;
        let mut s = self.endpoint[p ^ 1];
        let mut sp = p;
        loop {
            let old = self.mate[s];
            self.mate[s] = sp;
            if old == NONE {
                break;
            }
            let t = self.endpoint[old];
            let q = lp[t];
            self.mate[t] = q ^ 1;
            s = self.endpoint[q ^ 1];
            sp = q;
        }
    }

    /// Appends `edges[m0..]` (m0 = the edges already held) after checking that the held edges
    /// are exactly `edges[..m0]`: edge indices are stored in `mate` and in the blossoms, so the
    /// old edges must keep them. False (and nothing changed) when they are not a prefix.
    fn extend(&mut self, edges: &[(u32, u32, W)]) -> bool {
        let m0 = self.weight.len();
        if edges.len() < m0 {
            return false;
        }
        let same = edges[..m0].iter().enumerate().all(|(k, &(u, v, w))| {
            self.endpoint[2 * k] == u as usize
                && self.endpoint[2 * k + 1] == v as usize
                && self.weight[k] == w + w
        });
        if !same {
            return false;
        }
        for &(u, v, w) in &edges[m0..] {
            self.endpoint.push(u as usize);
            self.endpoint.push(v as usize);
            self.weight.push(w + w);
        }
        self.allowedge = vec![false; edges.len()];
        self.build_adjacency();
        true
    }

    /// Makes the kept optimum a valid starting point for the edges appended from `m0` on.
    ///
    /// The state keeps every invariant of the stages except for the appended edges, whose
    /// reduced cost may be negative. For each such edge (in edge order, for determinism) one
    /// endpoint x is chosen and freed, then its reduced cost is raised to zero:
    ///
    /// * freeing x rotates x's outermost blossom so that x is its base (along its tight
    ///   cycles, as an augmentation does) and unmatches x from its partner outside; x is then
    ///   the free base of every blossom around it, so no matched edge leaves any of them;
    /// * the deficit is then taken from the z of the outermost blossom around x, moved into
    ///   its vertices' duals (edges inside keep their reduced cost, edges leaving it gain
    ///   slack, and none of those is matched); a blossom left with z = 0 is dissolved and the
    ///   next one down is used; once x is alone its own dual is raised. Blossoms that also
    ///   hold the other endpoint give nothing to the edge but must be dissolved to reach x.
    ///
    /// Reduced costs only grow on the way, so edges already repaired stay feasible. Finally
    /// the free vertices' duals are brought to one parity (the S–S half step needs it), by the
    /// same z-to-vertex moves.
    fn repair(&mut self, m0: usize) {
        let m = self.weight.len();
        for k in m0..m {
            let r = self.reduced_now(k);
            if r >= W::ZERO {
                continue;
            }
            let (u, v) = (self.endpoint[2 * k], self.endpoint[2 * k + 1]);
            // Freeing a vertex that is already free costs nothing; a vertex in no blossom is
            // raised without dissolving anything.
            let key = |x: usize| (self.mate[x] != NONE, self.inblossom[x] != x);
            let (x, y) = if key(v) < key(u) { (v, u) } else { (u, v) };
            self.free_vertex(x);
            self.lift(x, y, -r);
        }
        self.fix_parity();
    }

    /// Reduced cost of edge k (internal units) with the blossoms as they are now.
    fn reduced_now(&self, k: usize) -> W {
        let (u, v) = (self.endpoint[2 * k], self.endpoint[2 * k + 1]);
        let s = self.slack(k);
        if self.inblossom[u] != self.inblossom[v] {
            return s;
        }
        let z = common_blossom_z(&self.blossomparent, &self.dualvar, u, v);
        s + z + z
    }

    /// Leaves x free and the base of every blossom around it; its partner (or the partner of
    /// its outermost blossom's base) becomes free too. Duals do not change.
    fn free_vertex(&mut self, x: usize) {
        if self.mate[x] == NONE {
            return;
        }
        let b = self.inblossom[x];
        let base = self.blossombase[b];
        // The matched edge leaving b (none when b's base is already free).
        let out = self.mate[base];
        if base != x {
            // Swaps matched and unmatched tight edges from x to the base inside b: the old
            // base is matched inside, x's own entry is left stale and cleared below.
            self.augment_blossom(b, x);
        }
        self.mate[x] = NONE;
        if out != NONE {
            let y = self.endpoint[out];
            self.mate[y] = NONE;
        }
    }

    /// Raises the reduced cost of the edges between the free vertex x and y by `need`
    /// (see [`State::repair`]).
    fn lift(&mut self, x: usize, y: usize, mut need: W) {
        while need > W::ZERO {
            let b = self.inblossom[x];
            if b == x {
                self.dualvar[x] += need;
                return;
            }
            let z = self.dualvar[b];
            if self.inblossom[y] != b {
                let take = need.min(z);
                if take > W::ZERO {
                    self.push_z(b, take);
                    need -= take;
                    if need == W::ZERO {
                        return;
                    }
                }
            } else if z > W::ZERO {
                self.push_z(b, z);
            }
            self.dissolve_top(b);
        }
    }

    /// Moves d of the outermost blossom b's dual into its vertices' duals (b's base is free).
    fn push_z(&mut self, b: usize, d: W) {
        self.dualvar[b] -= d;
        let mut leaves = std::mem::take(&mut self.queue);
        leaves.clear();
        self.leaves(b, &mut leaves);
        for &v in &leaves {
            self.dualvar[v] += d;
        }
        self.queue = leaves;
    }

    /// Dissolves the outermost blossom b (z = 0): its children become outermost, the one with
    /// b's base keeps it, the others stay matched in pairs along the cycle.
    fn dissolve_top(&mut self, b: usize) {
        debug_assert!(self.dualvar[b] == W::ZERO && self.blossomparent[b] == NONE);
        let childs = std::mem::take(&mut self.blossomchilds[b]);
        let mut leaves = std::mem::take(&mut self.queue);
        for &c in &childs {
            self.blossomparent[c] = NONE;
            leaves.clear();
            self.leaves(c, &mut leaves);
            for &v in &leaves {
                self.inblossom[v] = c;
            }
        }
        self.queue = leaves;
        self.blossomendps[b] = Vec::new();
        self.blossombase[b] = NONE;
        self.blossombestedges[b] = None;
        self.bestedge[b] = NONE;
        self.label[b] = 0;
        self.labelend[b] = NONE;
        self.unusedblossoms.push(b);
    }

    /// Brings every free vertex's dual to the majority parity (even on a tie): +1 on a vertex
    /// alone, or 1 moved from its outermost blossom's z to all its vertices (it is the base,
    /// the others are matched inside and share its parity), dissolving blossoms with z = 0.
    fn fix_parity(&mut self) {
        let odd = |d: W| d.to_i128().rem_euclid(2) == 1;
        let free: Vec<usize> = (0..self.n).filter(|&v| self.mate[v] == NONE).collect();
        let odds = free.iter().filter(|&&v| odd(self.dualvar[v])).count();
        let want_odd = 2 * odds > free.len();
        let one = W::from_i64(1);
        for x in free {
            if odd(self.dualvar[x]) == want_odd {
                continue;
            }
            loop {
                let b = self.inblossom[x];
                if b == x {
                    self.dualvar[x] += one;
                    break;
                }
                if self.dualvar[b] >= one {
                    self.push_z(b, one);
                    break;
                }
                self.dissolve_top(b);
            }
        }
    }

    fn leaves(&self, b: usize, out: &mut Vec<usize>) {
        self.leaves_within(b, out, 0);
    }

    /// [`State::leaves`] by recursion over the first levels of nesting (most blossoms are
    /// shallow, and a stack allocated per call was a tenth of the blossom solve's time on a
    /// 200-player round), then on a stack of its own. Same order either way: children in
    /// order, each expanded in full.
    fn leaves_within(&self, b: usize, out: &mut Vec<usize>, depth: usize) {
        const RECURSE: usize = 32;
        if b < self.n {
            out.push(b);
            return;
        }
        if depth < RECURSE {
            for &c in &self.blossomchilds[b] {
                self.leaves_within(c, out, depth + 1);
            }
            return;
        }
        let mut stack = vec![b];
        while let Some(x) = stack.pop() {
            if x < self.n {
                out.push(x);
            } else {
                // Reverse so leaves come out in child order (determinism only).
                for &c in self.blossomchilds[x].iter().rev() {
                    stack.push(c);
                }
            }
        }
    }

    fn leaves_of(&self, b: usize) -> Vec<usize> {
        let mut v = Vec::new();
        self.leaves(b, &mut v);
        v
    }

    /// Labels w's top blossom `t` (1 = S, 2 = T) through endpoint p in the tree of `root`,
    /// and a T blossom's mate S; S vertices go to the scan queue.
    fn assign_label(&mut self, w0: usize, t0: u8, p0: usize, root: usize) {
        let (mut w, mut t, mut p) = (w0, t0, p0);
        loop {
            let b = self.inblossom[w];
            debug_assert!(self.label[w] == 0 && self.label[b] == 0);
            self.fix_top(b);
            self.label[w] = t;
            self.label[b] = t;
            self.root[b] = root;
            self.labelend[w] = p;
            self.labelend[b] = p;
            self.bestedge[w] = NONE;
            self.bestedge[b] = NONE;
            if t == 2 && b >= self.n {
                let key = self.zval(b) + self.delta_sum;
                self.t_heap.push(Reverse((key, b)));
            }
            if t == 1 {
                let mut q = std::mem::take(&mut self.queue);
                self.leaves(b, &mut q);
                self.queue = q;
                return;
            }
            let base = self.blossombase[b];
            let mb = self.mate[base];
            debug_assert!(mb != NONE);
            w = self.endpoint[mb];
            t = 1;
            p = mb ^ 1;
        }
    }

    fn scan_blossom(&mut self, v0: usize, w0: usize) -> usize {
        let mut path = Vec::new();
        let mut base = NONE;
        let (mut v, mut w) = (v0, w0);
        while v != NONE || w != NONE {
            let mut b = self.inblossom[v];
            if self.label[b] & 4 != 0 {
                base = self.blossombase[b];
                break;
            }
            debug_assert_eq!(self.label[b], 1);
            path.push(b);
            self.label[b] = 5;
            if self.labelend[b] == NONE {
                v = NONE;
            } else {
                v = self.endpoint[self.labelend[b]];
                b = self.inblossom[v];
                debug_assert_eq!(self.label[b], 2);
                v = self.endpoint[self.labelend[b]];
            }
            if w != NONE {
                std::mem::swap(&mut v, &mut w);
            }
        }
        for b in path {
            self.label[b] = 1;
        }
        base
    }

    fn add_blossom(&mut self, base: usize, k: usize) {
        let bb = self.inblossom[base];
        // The sub-blossoms stop being top-level (their z freezes) and their vertices change
        // label: make them exact first, walking the same two paths as below.
        for start in [self.endpoint[2 * k], self.endpoint[2 * k + 1]] {
            let mut bx = self.inblossom[start];
            while bx != bb {
                self.fix_top(bx);
                bx = self.inblossom[self.endpoint[self.labelend[bx]]];
            }
        }
        self.fix_top(bb);
        let mut v = self.endpoint[2 * k];
        let mut w = self.endpoint[2 * k + 1];
        let mut bv = self.inblossom[v];
        let mut bw = self.inblossom[w];
        let Some(b) = self.unusedblossoms.pop() else {
            unreachable!("at most n/2 blossoms exist at once")
        };
        self.blossombase[b] = base;
        self.blossomparent[b] = NONE;
        self.blossomparent[bb] = b;
        let mut path = Vec::new();
        let mut endps = Vec::new();
        while bv != bb {
            self.blossomparent[bv] = b;
            path.push(bv);
            endps.push(self.labelend[bv]);
            v = self.endpoint[self.labelend[bv]];
            bv = self.inblossom[v];
        }
        path.push(bb);
        path.reverse();
        endps.reverse();
        endps.push(2 * k);
        while bw != bb {
            self.blossomparent[bw] = b;
            path.push(bw);
            endps.push(self.labelend[bw] ^ 1);
            w = self.endpoint[self.labelend[bw]];
            bw = self.inblossom[w];
        }
        self.label[b] = 1;
        self.labelend[b] = self.labelend[bb];
        self.root[b] = self.root[bb];
        self.dualvar[b] = W::ZERO;
        self.stamp[b] = self.delta_sum;
        self.blossomchilds[b] = path.clone();
        self.blossomendps[b] = endps;
        for v in self.leaves_of(b) {
            if self.label[self.inblossom[v]] == 2 {
                // A former T vertex becomes S: scan it.
                self.queue.push(v);
            }
            self.inblossom[v] = b;
        }
        // Least-slack edges from the new blossom to each neighbouring S-blossom.
        let mut touched = std::mem::take(&mut self.bestedgeto_touched);
        touched.clear();
        for &sub in &path {
            let lists: Vec<usize> = match self.blossombestedges[sub].take() {
                Some(list) => list,
                None => {
                    let mut ks = Vec::new();
                    for leaf in self.leaves_of(sub) {
                        for i in self.neighbours(leaf) {
                            ks.push(self.nb[i] / 2);
                        }
                    }
                    ks
                }
            };
            for kk in lists {
                let (mut i, mut j) = (self.endpoint[2 * kk], self.endpoint[2 * kk + 1]);
                if self.inblossom[j] == b {
                    std::mem::swap(&mut i, &mut j);
                }
                let _ = i;
                let bj = self.inblossom[j];
                if bj != b && self.label[bj] == 1 {
                    let cur = self.bestedgeto[bj];
                    if cur == NONE {
                        touched.push(bj);
                        self.bestedgeto[bj] = kk;
                    } else if self.slack(kk) < self.slack(cur) {
                        self.bestedgeto[bj] = kk;
                    }
                }
            }
            self.bestedge[sub] = NONE;
        }
        touched.sort_unstable();
        let mut list = Vec::with_capacity(touched.len());
        for &bj in &touched {
            list.push(self.bestedgeto[bj]);
            self.bestedgeto[bj] = NONE;
        }
        self.bestedgeto_touched = touched;
        let mut best = NONE;
        for &kk in &list {
            if best == NONE || self.slack(kk) < self.slack(best) {
                best = kk;
            }
        }
        self.blossombestedges[b] = Some(list);
        self.set_s_best(b, best);
    }

    fn expand_blossom(&mut self, b: usize, endstage: bool) {
        if self.blossomparent[b] == NONE {
            self.fix_top(b);
        }
        let childs = self.blossomchilds[b].clone();
        for &s in &childs {
            self.blossomparent[s] = NONE;
            // Its z was frozen while nested: exact now, it moves from here on.
            self.stamp[s] = self.delta_sum;
            if s < self.n {
                self.inblossom[s] = s;
            } else if endstage && self.dualvar[s] == W::ZERO {
                self.expand_blossom(s, endstage);
            } else {
                for v in self.leaves_of(s) {
                    self.inblossom[v] = s;
                }
            }
        }
        if !endstage && self.label[b] == 2 {
            // The expanded T-blossom: relabel the part of its cycle on the even path from the
            // entry child to the base, and unlabel the rest (they may be relabelled later).
            let root = self.root[b];
            let len = childs.len() as isize;
            let entrychild = self.inblossom[self.endpoint[self.labelend[b] ^ 1]];
            let mut j = childs.iter().position(|&c| c == entrychild).unwrap_or(0) as isize;
            let (jstep, endptrick): (isize, usize) = if j & 1 != 0 {
                j -= len;
                (1, 0)
            } else {
                (-1, 1)
            };
            let at = |j: isize| -> usize { j.rem_euclid(len) as usize };
            let mut p = self.labelend[b];
            while j != 0 {
                let q = self.endpoint[p ^ 1];
                self.label[q] = 0;
                let e = self.blossomendps[b][at(j - endptrick as isize)];
                let r = self.endpoint[e ^ endptrick ^ 1];
                self.label[r] = 0;
                self.assign_label(q, 2, p, root);
                self.allowedge[e / 2] = true;
                j += jstep;
                p = self.blossomendps[b][at(j - endptrick as isize)] ^ endptrick;
                self.allowedge[p / 2] = true;
                j += jstep;
            }
            let bv = childs[at(j)];
            let q = self.endpoint[p ^ 1];
            self.label[q] = 2;
            self.label[bv] = 2;
            self.root[bv] = root;
            if bv >= self.n {
                let key = self.zval(bv) + self.delta_sum;
                self.t_heap.push(Reverse((key, bv)));
            }
            self.labelend[q] = p;
            self.labelend[bv] = p;
            self.bestedge[bv] = NONE;
            j += jstep;
            while childs[at(j)] != entrychild {
                let bv = childs[at(j)];
                if self.label[bv] == 1 {
                    j += jstep;
                    continue;
                }
                let mut found = NONE;
                for v in self.leaves_of(bv) {
                    if self.label[v] != 0 {
                        found = v;
                        break;
                    }
                }
                if found != NONE {
                    let v = found;
                    self.label[v] = 0;
                    let mb = self.mate[self.blossombase[bv]];
                    self.label[self.endpoint[mb]] = 0;
                    let le = self.labelend[v];
                    // The S end of that edge may be in another tree than b's.
                    let r = self.root[self.inblossom[self.endpoint[le]]];
                    self.assign_label(v, 2, le, r);
                }
                j += jstep;
            }
            // Children left unlabelled are free again for the dual step: their vertices'
            // least-slack edges (kept while inside the T blossom) go back into the heap.
            for &c in &childs {
                if self.label[c] == 0 {
                    for v in self.leaves_of(c) {
                        let k = self.bestedge[v];
                        if k != NONE {
                            self.set_free_best(v, k);
                        }
                    }
                }
            }
        }
        self.label[b] = 0;
        self.labelend[b] = NONE;
        self.blossomchilds[b] = Vec::new();
        self.blossomendps[b] = Vec::new();
        self.blossombase[b] = NONE;
        self.blossombestedges[b] = None;
        self.bestedge[b] = NONE;
        self.dualvar[b] = W::ZERO;
        self.unusedblossoms.push(b);
    }

    fn augment_blossom(&mut self, b: usize, v: usize) {
        let mut t = v;
        while self.blossomparent[t] != b {
            t = self.blossomparent[t];
        }
        if t >= self.n {
            self.augment_blossom(t, v);
        }
        let len = self.blossomchilds[b].len() as isize;
        let i = self.blossomchilds[b]
            .iter()
            .position(|&c| c == t)
            .unwrap_or(0);
        let mut j = i as isize;
        let (jstep, endptrick): (isize, usize) = if j & 1 != 0 {
            j -= len;
            (1, 0)
        } else {
            (-1, 1)
        };
        let at = |j: isize| -> usize { j.rem_euclid(len) as usize };
        while j != 0 {
            j += jstep;
            let t = self.blossomchilds[b][at(j)];
            let p = self.blossomendps[b][at(j - endptrick as isize)] ^ endptrick;
            if t >= self.n {
                let e = self.endpoint[p];
                self.augment_blossom(t, e);
            }
            j += jstep;
            let t = self.blossomchilds[b][at(j)];
            if t >= self.n {
                let e = self.endpoint[p ^ 1];
                self.augment_blossom(t, e);
            }
            let (a, c) = (self.endpoint[p], self.endpoint[p ^ 1]);
            self.mate[a] = p ^ 1;
            self.mate[c] = p;
        }
        self.blossomchilds[b].rotate_left(i);
        self.blossomendps[b].rotate_left(i);
        self.blossombase[b] = self.blossombase[self.blossomchilds[b][0]];
        debug_assert_eq!(self.blossombase[b], v);
    }

    fn augment_matching(&mut self, k: usize) {
        let (v, w) = (self.endpoint[2 * k], self.endpoint[2 * k + 1]);
        for (s0, p0) in [(v, 2 * k + 1), (w, 2 * k)] {
            let (mut s, mut p) = (s0, p0);
            loop {
                let bs = self.inblossom[s];
                debug_assert_eq!(self.label[bs], 1);
                if bs >= self.n {
                    self.augment_blossom(bs, s);
                }
                self.mate[s] = p;
                if self.labelend[bs] == NONE {
                    break;
                }
                let t = self.endpoint[self.labelend[bs]];
                let bt = self.inblossom[t];
                debug_assert_eq!(self.label[bt], 2);
                s = self.endpoint[self.labelend[bt]];
                let j = self.endpoint[self.labelend[bt] ^ 1];
                if bt >= self.n {
                    self.augment_blossom(bt, j);
                }
                self.mate[j] = self.labelend[bt];
                p = self.labelend[bt] ^ 1;
            }
        }
    }

    /// Examines edge-end p (endpoint[p] = w) from the S vertex v, as the scan of v does: a
    /// tight edge labels w's blossom T, makes a blossom inside one tree, or augments between
    /// two trees (returns true); a loose one updates the least-slack caches.
    fn scan_edge(&mut self, v: usize, p: usize) -> bool {
        let k = p / 2;
        let w = self.endpoint[p];
        let bv = self.inblossom[v];
        let bw = self.inblossom[w];
        if bv == bw {
            return false;
        }
        let mut kslack = W::ZERO;
        if !self.allowedge[k] {
            kslack = self.slack(k);
            if kslack <= W::ZERO {
                self.allowedge[k] = true;
            }
        }
        if self.allowedge[k] {
            if self.label[bw] == 0 {
                let r = self.root[bv];
                self.assign_label(w, 2, p ^ 1, r);
            } else if self.label[bw] == 1 {
                if self.root[bv] != self.root[bw] {
                    self.augment_and_kill(k);
                    return true;
                }
                let base = self.scan_blossom(v, w);
                debug_assert!(base != NONE, "S–S edge inside one tree without a base");
                self.add_blossom(base, k);
            } else if self.label[w] == 0 {
                // w is inside a T blossom and reachable: remembered for its expansion.
                self.label[w] = 2;
                self.labelend[w] = p ^ 1;
            }
        } else if self.label[bw] == 1 {
            if self.bestedge[bv] == NONE || kslack < self.slack(self.bestedge[bv]) {
                self.set_s_best(bv, k);
            }
        } else if self.label[w] == 0
            && (self.bestedge[w] == NONE || kslack < self.slack(self.bestedge[w]))
        {
            self.set_free_best(w, k);
        }
        false
    }

    /// Sets the least-slack S edge of the vertex v (used while v's blossom is unlabelled).
    fn set_free_best(&mut self, v: usize, k: usize) {
        self.bestedge[v] = k;
        if k != NONE && self.dirty_mark[v] & 1 == 0 {
            self.dirty_mark[v] |= 1;
            self.dirty_free.push(v);
        }
    }

    /// Sets the least-slack edge from the S blossom b to another S blossom.
    fn set_s_best(&mut self, b: usize, k: usize) {
        self.bestedge[b] = k;
        if k != NONE && self.dirty_mark[b] & 2 == 0 {
            self.dirty_mark[b] |= 2;
            self.dirty_ss.push(b);
        }
    }

    /// Gives every least-slack edge changed since the last dual step its heap entry (Δ has
    /// not moved since the change, so the key is the one it would have had then). Entries
    /// that no longer apply are dropped when they reach the top.
    fn flush_dirty(&mut self) {
        let mut list = std::mem::take(&mut self.dirty_free);
        for &v in &list {
            self.dirty_mark[v] &= !1;
            let k = self.bestedge[v];
            if k != NONE {
                let key = self.slack(k) + self.delta_sum;
                self.free_heap.push(Reverse((key, v)));
            }
        }
        list.clear();
        self.dirty_free = list;
        let mut list = std::mem::take(&mut self.dirty_ss);
        for &b in &list {
            self.dirty_mark[b] &= !2;
            let k = self.bestedge[b];
            if k != NONE {
                let key = self.slack(k) + self.delta_sum + self.delta_sum;
                self.ss_heap.push(Reverse((key, b)));
            }
        }
        list.clear();
        self.dirty_ss = list;
    }

    /// The least slack of an edge from an S blossom to an unlabelled vertex (its top entry of
    /// `free_heap` checked, stale entries dropped or re-keyed).
    fn free_top(&mut self) -> Option<(W, usize)> {
        while let Some(&Reverse((key, v))) = self.free_heap.peek() {
            let k = self.bestedge[v];
            if self.label[self.inblossom[v]] != 0 || k == NONE {
                self.free_heap.pop();
                continue;
            }
            if !self.free_best_valid(v, k) {
                self.free_heap.pop();
                self.recompute_free_best(v);
                self.flush_dirty();
                continue;
            }
            let d = self.slack(k);
            if key != d + self.delta_sum {
                self.free_heap.pop();
                self.free_heap.push(Reverse((d + self.delta_sum, v)));
                continue;
            }
            return Some((d, v));
        }
        None
    }

    /// Half the least slack of an edge between two S blossoms, from `ss_heap`.
    fn ss_top(&mut self) -> Option<(W, usize)> {
        while let Some(&Reverse((key, b))) = self.ss_heap.peek() {
            let k = self.bestedge[b];
            if self.blossomparent[b] != NONE
                || self.label[b] != 1
                || (b >= self.n && self.blossombase[b] == NONE)
                || k == NONE
            {
                self.ss_heap.pop();
                continue;
            }
            if !self.s_best_valid(b, k) {
                self.ss_heap.pop();
                self.recompute_s_best(b);
                self.flush_dirty();
                continue;
            }
            let ks = self.slack(k);
            let now = ks + self.delta_sum + self.delta_sum;
            if key != now {
                self.ss_heap.pop();
                self.ss_heap.push(Reverse((now, b)));
                continue;
            }
            debug_assert!(ks.to_i128() % 2 == 0, "S–S slack must be even");
            return Some((ks.half(), b));
        }
        None
    }

    /// The least dual z of a top-level T blossom, from `t_heap`.
    fn t_top(&mut self) -> Option<(W, usize)> {
        while let Some(&Reverse((key, b))) = self.t_heap.peek() {
            if self.blossombase[b] == NONE || self.blossomparent[b] != NONE || self.label[b] != 2 {
                self.t_heap.pop();
                continue;
            }
            let z = self.zval(b);
            if key != z + self.delta_sum {
                self.t_heap.pop();
                self.t_heap.push(Reverse((z + self.delta_sum, b)));
                continue;
            }
            return Some((z, b));
        }
        None
    }

    /// Augments along the tight S–S edge k between two trees, then dissolves only those two
    /// trees: every other tree keeps its labels, queue entries and least-slack caches (the
    /// networkx-style loop regrew every tree from scratch after each augmentation, O(m) each).
    fn augment_and_kill(&mut self, k: usize) {
        let n = self.n;
        let ra = self.root[self.inblossom[self.endpoint[2 * k]]];
        let rb = self.root[self.inblossom[self.endpoint[2 * k + 1]]];
        debug_assert!(ra != rb);
        self.augment_matching(k);
        self.stages += 1;
        let mut tops = std::mem::take(&mut self.dead_tops);
        let mut leaves = std::mem::take(&mut self.dead_leaves);
        tops.clear();
        leaves.clear();
        for b in 0..2 * n {
            if self.blossomparent[b] == NONE
                && self.label[b] != 0
                && (b < n || self.blossombase[b] != NONE)
                && (self.root[b] == ra || self.root[b] == rb)
            {
                tops.push(b);
            }
        }
        for &b in &tops {
            self.fix_top(b);
            self.leaves(b, &mut leaves);
        }
        for &v in &leaves {
            self.dead[v] = true;
        }
        // As at the end of a networkx stage, but for the consumed trees only: their S
        // blossoms with a zero dual are dissolved.
        for &b in &tops {
            if b >= n && self.label[b] == 1 && self.dualvar[b] == W::ZERO {
                self.expand_blossom(b, true);
            }
        }
        // Unlabel everything in the dead trees, nested blossoms included: a blossom that is
        // later expanded as T must not see labels of the tree it was formed in.
        tops.clear();
        for &v in &leaves {
            tops.push(self.inblossom[v]);
        }
        tops.sort_unstable();
        tops.dedup();
        let mut stack = Vec::new();
        for &t in &tops {
            stack.push(t);
            while let Some(x) = stack.pop() {
                self.label[x] = 0;
                self.labelend[x] = NONE;
                self.bestedge[x] = NONE;
                if x >= n {
                    self.blossombestedges[x] = None;
                    stack.extend_from_slice(&self.blossomchilds[x]);
                }
            }
        }
        // Their vertices are now matched and unlabelled: every edge from a live S vertex to
        // them is examined again (a tight one labels them T, a loose one is their least-slack
        // S edge), and the caches of other vertices that pointed into them are rebuilt.
        let mut recheck = std::mem::take(&mut self.recheck);
        recheck.clear();
        for &x in &leaves {
            for i in self.neighbours(x) {
                self.allowedge[self.nb[i] / 2] = false;
            }
        }
        for &x in &leaves {
            for i in self.neighbours(x) {
                let p = self.nb[i];
                let u = self.endpoint[p];
                if self.dead[u] {
                    continue;
                }
                let bu = self.inblossom[u];
                if self.label[bu] == 1 {
                    // A live S blossom whose least-slack S–S edge led here needs a new one.
                    if self.bestedge[bu] == p / 2 {
                        recheck.push(bu);
                    }
                    // x's blossom may meanwhile be S (queued: it scans this edge itself).
                    if self.label[self.inblossom[x]] != 1 {
                        let aug = self.scan_edge(u, p ^ 1);
                        debug_assert!(!aug, "an S–non-S edge cannot augment");
                    }
                } else if self.bestedge[u] == p / 2
                    || (self.label[u] == 2
                        && self.labelend[u] != NONE
                        && self.endpoint[self.labelend[u]] == x)
                {
                    recheck.push(u);
                }
            }
        }
        recheck.sort_unstable();
        recheck.dedup();
        for &u in &recheck {
            if u >= n || self.inblossom[u] == u {
                // A top blossom (or a vertex on its own) that was S when queued here.
                if self.blossomparent[u] == NONE && self.label[u] == 1 && self.bestedge[u] != NONE {
                    if self.s_best_valid(u, self.bestedge[u]) {
                        // Its heap entry may have gone with a dual step's tight edges.
                        let k = self.bestedge[u];
                        self.set_s_best(u, k);
                    } else {
                        self.recompute_s_best(u);
                    }
                }
                if u >= n || self.label[u] == 1 {
                    continue;
                }
            }
            let bu = self.inblossom[u];
            if self.label[bu] == 1 {
                continue;
            }
            if self.label[u] == 2
                && self.labelend[u] != NONE
                && self.dead[self.endpoint[self.labelend[u]]]
            {
                self.label[u] = 0;
                self.labelend[u] = NONE;
            }
            self.bestedge[u] = NONE;
            for i in self.neighbours(u) {
                let p = self.nb[i];
                let w = self.endpoint[p];
                let bw = self.inblossom[w];
                if bw != bu && self.label[bw] == 1 {
                    let aug = self.scan_edge(w, p ^ 1);
                    debug_assert!(!aug, "an S–non-S edge cannot augment");
                }
            }
        }
        for &v in &leaves {
            self.dead[v] = false;
        }
        self.recheck = recheck;
        self.dead_tops = tops;
        self.dead_leaves = leaves;
    }

    /// True when the cached least-slack edge k of the unlabelled vertex v still leads to an S
    /// blossom (its far end's tree may have been consumed since).
    fn free_best_valid(&self, v: usize, k: usize) -> bool {
        let (i, j) = (self.endpoint[2 * k], self.endpoint[2 * k + 1]);
        let far = if i == v { j } else { i };
        self.label[self.inblossom[far]] == 1
    }

    /// True when the cached least-slack edge k of the S blossom b still leads to another S
    /// blossom.
    fn s_best_valid(&self, b: usize, k: usize) -> bool {
        let (i, j) = (self.endpoint[2 * k], self.endpoint[2 * k + 1]);
        let far = if self.inblossom[i] == b { j } else { i };
        let bf = self.inblossom[far];
        bf != b && self.label[bf] == 1
    }

    /// Rebuilds an unlabelled vertex's least-slack edge to any S blossom.
    fn recompute_free_best(&mut self, v: usize) {
        let mut best = NONE;
        let mut bs = W::ZERO;
        for i in self.neighbours(v) {
            let p = self.nb[i];
            if self.label[self.inblossom[self.endpoint[p]]] == 1 {
                let s = self.slack(p / 2);
                if best == NONE || s < bs {
                    best = p / 2;
                    bs = s;
                }
            }
        }
        self.set_free_best(v, best);
    }

    /// Rebuilds an S blossom's least-slack edge to other S blossoms from all its vertices'
    /// edges (its per-neighbour list is dropped: a merge then rebuilds it the same way).
    fn recompute_s_best(&mut self, b: usize) {
        let mut best = NONE;
        let mut bs = W::ZERO;
        for v in self.leaves_of(b) {
            for i in self.neighbours(v) {
                let p = self.nb[i];
                let bw = self.inblossom[self.endpoint[p]];
                if bw != b && self.label[bw] == 1 {
                    let s = self.slack(p / 2);
                    if best == NONE || s < bs {
                        best = p / 2;
                        bs = s;
                    }
                }
            }
        }
        if b >= self.n {
            self.blossombestedges[b] = None;
        }
        self.set_s_best(b, best);
    }

    fn run(&mut self) {
        let n = self.n;
        // Entry: no labels (a warm start may have left a matching, duals and blossoms).
        self.label.fill(0);
        self.labelend.fill(NONE);
        self.bestedge.fill(NONE);
        for b in n..2 * n {
            self.blossombestedges[b] = None;
        }
        self.allowedge.fill(false);
        self.queue.clear();
        self.delta_sum = W::ZERO;
        self.stamp.fill(W::ZERO);
        self.free_heap.clear();
        self.ss_heap.clear();
        self.t_heap.clear();
        self.dirty_free.clear();
        self.dirty_ss.clear();
        self.dirty_mark.fill(0);
        for v in 0..n {
            if self.mate[v] == NONE && self.label[self.inblossom[v]] == 0 {
                self.assign_label(v, 1, NONE, v);
            }
        }
        loop {
            // A large field runs thousands of dual steps: stop at the request's budget; the
            // caller sees it too and discards this unfinished matching.
            if crate::budget::expired() {
                return;
            }
            while let Some(v) = self.queue.pop() {
                // Stale entries: the vertex's tree was consumed since it was queued.
                if self.label[self.inblossom[v]] != 1 {
                    continue;
                }
                for i in self.neighbours(v) {
                    if self.scan_edge(v, self.nb[i]) {
                        break;
                    }
                }
            }
            // Dual adjustment: the largest step that keeps every edge feasible. Every edge
            // that the step makes tight is collected, not only the first: most steps of a
            // large field are zero steps between equal slacks.
            let mut deltatype = 0u8;
            let mut delta = W::ZERO;
            let mut deltablossom = NONE;
            let mut tight = std::mem::take(&mut self.tight);
            tight.clear();
            self.flush_dirty();
            let d2 = self.free_top().map(|t| t.0);
            let d3 = self.ss_top().map(|t| t.0);
            let d23 = match (d2, d3) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            match (self.t_top(), d23) {
                // On a tie the edges win, as in the scans this replaces.
                (Some((z, b)), d) if d.is_none_or(|d| z < d) => {
                    delta = z;
                    deltatype = 4;
                    deltablossom = b;
                }
                (_, Some(d)) => {
                    delta = d;
                    deltatype = 2;
                    // Every edge this step makes tight, not only the first: most steps of a
                    // large field are zero steps between equal slacks.
                    while let Some((d, v)) = self.free_top()
                        && d == delta
                    {
                        self.free_heap.pop();
                        tight.push(self.bestedge[v]);
                    }
                    while let Some((d, b)) = self.ss_top()
                        && d == delta
                    {
                        self.ss_heap.pop();
                        tight.push(self.bestedge[b]);
                    }
                }
                _ => {}
            }
            if deltatype == 0 {
                // No augmenting path and no dual move: maximum cardinality reached (or every
                // vertex is matched: no tree is left).
                self.tight = tight;
                // Leave every dual exact for `finish` and the callers.
                for b in 0..2 * n {
                    if self.blossomparent[b] == NONE && (b < n || self.blossombase[b] != NONE) {
                        self.fix_top(b);
                    }
                }
                // Δ back to 0: the state kept for a warm start (`max_weight_matching_warm`)
                // reads duals with labels set as scratch, which must not shift them.
                self.delta_sum = W::ZERO;
                self.stamp.fill(W::ZERO);
                return;
            }
            // Every labelled dual moves by δ through Δ (see `stamp`).
            self.delta_sum += delta;
            if deltatype == 4 {
                self.expand_blossom(deltablossom, false);
            } else {
                // S–free edges (type 2) and S–S edges (type 3) now tight: scan each from its
                // S end.
                for &k in &tight {
                    self.allowedge[k] = true;
                    let i = self.endpoint[2 * k];
                    let s_end = if self.label[self.inblossom[i]] == 1 {
                        i
                    } else {
                        self.endpoint[2 * k + 1]
                    };
                    self.queue.push(s_end);
                }
            }
            self.tight = tight;
        }
    }

    fn finish(self) -> Solved<W> {
        let n = self.n;
        let mate = self
            .mate
            .iter()
            .map(|&p| if p == NONE { NONE } else { self.endpoint[p] })
            .collect();
        let mut z = vec![W::ZERO; 2 * n];
        let mut parent = vec![NONE; 2 * n];
        for b in 0..2 * n {
            if b >= n && self.blossombase[b] == NONE {
                continue;
            }
            parent[b] = self.blossomparent[b];
            if b >= n {
                z[b] = self.dualvar[b];
            }
        }
        Solved {
            mate,
            dual: self.dualvar[..n].to_vec(),
            parent,
            z,
            stages: self.stages,
            free_at_start: self.free_at_start,
            warm: Some(Warm(Box::new(self))),
        }
    }
}

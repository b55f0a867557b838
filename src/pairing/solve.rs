//! Exact minimum-cost perfect matching of a complete graph at sparse-graph speed.
//!
//! The caller describes the graph by a cost oracle ([`PairCosts`]): vertices are in *pairing
//! order* (neighbours in that order are the likely partners), `cost(u, v)` is `None` for a
//! forbidden pair. The solver
//!
//! 1. builds a candidate graph: each vertex with its `k` successors in pairing order, every edge
//!    of the *hub* vertices (the virtual BYE), and a greedy in-order pairing as a safety net;
//! 2. solves it exactly with the blossom algorithm ([`super::blossom`]);
//! 3. prices every absent pair against the optimal duals and adds the pairs whose reduced cost
//!    is negative, then solves again, until no pair is left — at that point the duals are
//!    feasible for the complete graph, which proves the matching optimal for it.
//!
//! If the candidate graph has no perfect matching (many forbidden pairs), it is widened, up to
//! every allowed pair; only then is "no perfect matching" reported.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};

use super::blossom::{Solved, Weight, max_weight_matching, max_weight_matching_resolve};

/// A symmetric cost oracle over vertices `0..len()`, in pairing order. `Sync`: pricing reads
/// it from two threads on large fields.
pub trait PairCosts: Sync {
    type W: Weight;
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Cost of pairing u and v (u < v), `None` when the pair is forbidden.
    fn cost(&self, u: usize, v: usize) -> Option<Self::W>;
    /// A cheap lower bound of `cost(u, v)` (for an allowed pair), used to skip pairs during
    /// pricing without computing the full cost.
    fn lower_bound(&self, u: usize, v: usize) -> Self::W {
        self.cost(u, v).unwrap_or(Self::W::MAX)
    }
    /// A lower bound of `cost(u, v)` that never decreases as v moves away from u (v > u) in
    /// pairing order, e.g. from the score-group difference. Pricing stops scanning u's row at
    /// the first v whose bound already rules out every later pair. `None`: no such bound.
    fn monotone_bound(&self, _u: usize, _v: usize) -> Option<Self::W> {
        None
    }
    /// Extra likely partners of u for the first candidate graph (e.g. the seeding partner
    /// half a score group away). Only a speed hint: the result does not depend on it.
    fn hints(&self, _u: usize, _out: &mut Vec<usize>) {}
    /// Whether the first candidate graph gets long-range links in pairing order (from 800
    /// vertices). A model whose `hints` already tie distant regions together can do without:
    /// for OpenGotha's weight they only slow the solve down. Speed only, like `hints`.
    fn long_links(&self) -> bool {
        true
    }
    /// The largest cost the oracle expects to give, when it knows one cheaply (OpenGotha's
    /// weight: its maximum, less the smallest weight). Only a hint: the `i64` solve of
    /// [`min_cost_perfect_matching_i128`] is not tried when it is above that solve's range.
    fn cost_hint(&self) -> Option<Self::W> {
        None
    }
    /// Vertices whose every edge belongs to the candidate graph (the virtual BYE vertex).
    fn hubs(&self) -> Vec<usize> {
        Vec::new()
    }
    /// Whether u and v (u < v) may be paired: `cost(u, v).is_some()`, which a model can answer
    /// without computing the cost (the feasibility check asks it for up to n² / 2 pairs).
    fn allowed(&self, u: usize, v: usize) -> bool {
        self.cost(u, v).is_some()
    }
}

/// Tuning of the solver; the result is the same exact optimum whatever the values.
#[derive(Debug, Clone, Copy)]
pub struct SolveOptions {
    /// Successors in pairing order joined to each vertex in the first candidate graph.
    pub neighbours: usize,
    /// Solve the complete graph at once (the dense path), without candidates or pricing.
    pub dense: bool,
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            neighbours: 12,
            dense: false,
        }
    }
}

/// An optimal perfect matching.
#[derive(Debug, Clone)]
pub struct Matching<W: Weight> {
    /// `mate[v]`: v's partner.
    pub mate: Vec<usize>,
    /// Total cost (each pair once).
    pub cost: W,
    /// Solves after the first one (pricing found improving pairs, or the graph was widened).
    pub resolves: usize,
    /// Edges in the last graph solved.
    pub edges: usize,
    /// Stages of the last blossom run (after its jump start).
    pub stages: usize,
    /// The optimal primal–dual state of the last solve (`None` for an empty graph): its
    /// duals are feasible for every allowed pair of the complete graph, which is the proof of
    /// optimality; [`check_certificate`] verifies it independently of the solve.
    pub duals: Option<Solved<W>>,
}

/// Why no matching was produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SolveError {
    /// An odd number of vertices (the caller adds the BYE vertex).
    OddVertexCount(usize),
    /// Forbidden pairs leave no perfect matching.
    NoPerfectMatching,
    /// A cost too large for the weight type to solve without overflow.
    CostTooLarge,
    /// The request's time budget ran out, or it was cancelled ([`crate::budget`]).
    OverBudget,
}

impl std::fmt::Display for SolveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SolveError::OddVertexCount(n) => write!(f, "odd number of vertices ({n})"),
            SolveError::NoPerfectMatching => {
                write!(
                    f,
                    "no perfect matching exists: the forbidden pairs leave someone without a partner"
                )
            }
            SolveError::CostTooLarge => write!(f, "a pair cost is too large to solve exactly"),
            SolveError::OverBudget => write!(f, "{}", crate::budget::OverBudget),
        }
    }
}

impl std::error::Error for SolveError {}

impl From<crate::budget::OverBudget> for SolveError {
    fn from(_: crate::budget::OverBudget) -> Self {
        SolveError::OverBudget
    }
}

/// Hasher for the candidate graph's pair keys (u << 32 | v): one multiply instead of SipHash,
/// which took ~7 % of a 10,000-player round. Keys are our own vertex indices, not input an
/// adversary chooses, and the set is only asked for membership (no iteration order escapes).
#[derive(Default)]
struct PairHasher(u64);

impl Hasher for PairHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u64(&mut self, x: u64) {
        // Fibonacci hashing; hashbrown takes the top 7 bits as tags and the low bits as the
        // bucket, so fold the high half down as well.
        let h = (self.0 ^ x).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = h ^ (h >> 32);
    }
}

struct Graph<W> {
    edges: Vec<(u32, u32, W)>,
    seen: HashSet<u64, BuildHasherDefault<PairHasher>>,
    limit: W,
}

impl<W: Weight> Graph<W> {
    /// Whether the pair is in the graph already (asked before computing a cost that `add`
    /// would then drop: a full OpenGotha weight is hundreds of instructions, the look-up tens).
    fn contains(&self, u: usize, v: usize) -> bool {
        let (a, b) = if u < v { (u, v) } else { (v, u) };
        self.seen.contains(&(((a as u64) << 32) | b as u64))
    }

    fn add(&mut self, u: usize, v: usize, cost: W) -> Result<bool, SolveError> {
        let (a, b) = if u < v { (u, v) } else { (v, u) };
        if !self.seen.insert(((a as u64) << 32) | b as u64) {
            return Ok(false);
        }
        if cost > self.limit || cost < -self.limit {
            return Err(SolveError::CostTooLarge);
        }
        self.edges.push((a as u32, b as u32, -cost));
        Ok(true)
    }
}

/// `btop` of a block with no member yet / with members in several outermost blossoms.
const NO_TOP: usize = usize::MAX;
const MIXED: usize = usize::MAX - 1;

fn ordered<C: PairCosts>(c: &C, u: usize, v: usize) -> Option<C::W> {
    if u < v { c.cost(u, v) } else { c.cost(v, u) }
}

/// The exact minimum-cost perfect matching of the complete graph described by `c`.
pub fn min_cost_perfect_matching<C: PairCosts>(
    c: &C,
    opts: SolveOptions,
) -> Result<Matching<C::W>, SolveError> {
    let n = c.len();
    if n % 2 == 1 {
        return Err(SolveError::OddVertexCount(n));
    }
    if n == 0 {
        return Ok(Matching {
            mate: Vec::new(),
            cost: C::W::ZERO,
            resolves: 0,
            edges: 0,
            stages: 0,
            duals: None,
        });
    }
    let limit = cost_limit::<C::W>(n);
    let mut k = if opts.dense {
        n
    } else {
        opts.neighbours.max(1)
    };
    // The first candidate graph holds up to about 2k edges a vertex (neighbours, hints, the
    // greedy net): sized once, not grown and rehashed edge by edge (bounded: the dense path's
    // k is n). Membership only is asked of `seen`, so its capacity changes only the time.
    let expect = n.saturating_mul(2 * k.min(32) + 4);
    let mut g = Graph {
        edges: Vec::with_capacity(expect),
        seen: HashSet::with_capacity_and_hasher(expect, Default::default()),
        limit,
    };
    // A field with no legal pairing at all costs the weighted solve on the candidate graph,
    // then on ever wider ones up to the complete graph (n² / 2 weighted edges), seconds to
    // minutes and gigabytes for 10,000 players, before it can say so; a cardinality check
    // needs no stored edges and no weights, and on a field that can be paired its greedy
    // pass leaves few vertices to search from.
    let feasible = has_perfect_matching(c);
    // The search stops early at the budget, its answer meaningless then.
    crate::budget::check()?;
    if !feasible {
        return Err(SolveError::NoPerfectMatching);
    }
    add_candidates(c, &mut g, k)?;
    let mut resolves = 0;
    // The previous optimum, when the graph only grew by priced pairs since: the next solve
    // starts from it (blossom::max_weight_matching_resolve) when that leaves fewer free vertices.
    let mut prev: Option<Solved<C::W>> = None;
    loop {
        let solved = match prev.take() {
            Some(p) => max_weight_matching_resolve(p, n, &g.edges),
            None => max_weight_matching(n, &g.edges),
        };
        // A solve stops early at the budget, its matching meaningless then.
        crate::budget::check()?;
        if !solved.is_perfect() {
            if k >= n {
                return Err(SolveError::NoPerfectMatching);
            }
            // Too few candidates for the forbidden pairs: widen and solve again (cold: the
            // state of a solve without a perfect matching is no useful start).
            k = if k * 4 >= n { n } else { k * 4 };
            add_candidates(c, &mut g, k)?;
            resolves += 1;
            continue;
        }
        let added = if k >= n {
            0
        } else {
            price(c, &solved, &mut g)?
        };
        if added == 0 {
            let mut cost = C::W::ZERO;
            for (u, &v) in solved.mate.iter().enumerate() {
                if u < v {
                    cost += ordered(c, u, v).ok_or(SolveError::NoPerfectMatching)?;
                }
            }
            return Ok(Matching {
                mate: solved.mate.clone(),
                cost,
                resolves,
                edges: g.edges.len(),
                stages: solved.stages,
                // The certificate only: the state kept for a warm start is as large as the graph.
                duals: Some(solved.without_warm_start()),
            });
        }
        resolves += 1;
        prev = Some(solved);
    }
}

/// The largest |cost| a solve over `n` vertices in weight type `W` accepts. Duals stay within
/// a small multiple of n·max|cost|; this keeps every sum in range.
fn cost_limit<W: Weight>(n: usize) -> W {
    W::from_i128_saturating(W::MAX.to_i128() / (64 * (n as i128 + 2)))
}

/// An `i128` cost oracle read as an `i64` one, for [`min_cost_perfect_matching_i128`]. A value
/// beyond the `i64` solve's cost limit sets `over` (and is answered harmlessly: the solve
/// goes on to no use, its result is thrown away).
struct Narrow<'a, C> {
    inner: &'a C,
    limit: i128,
    over: AtomicBool,
}

impl<C: PairCosts<W = i128>> Narrow<'_, C> {
    /// Whether a value was out of range: the rest of that solve is thrown away, so it should
    /// cost no more full costs.
    fn over(&self) -> bool {
        self.over.load(AtomicOrdering::Relaxed)
    }

    fn fits(&self, x: i128) -> bool {
        let ok = -self.limit <= x && x <= self.limit;
        if !ok {
            self.over.store(true, AtomicOrdering::Relaxed);
        }
        ok
    }
}

impl<C: PairCosts<W = i128>> PairCosts for Narrow<'_, C> {
    type W = i64;
    fn len(&self) -> usize {
        self.inner.len()
    }
    fn cost(&self, u: usize, v: usize) -> Option<i64> {
        if self.over() {
            return None;
        }
        let w = self.inner.cost(u, v)?;
        self.fits(w).then_some(w as i64)
    }
    fn lower_bound(&self, u: usize, v: usize) -> i64 {
        if self.over() {
            return i64::MAX;
        }
        let b = self.inner.lower_bound(u, v);
        if self.fits(b) { b as i64 } else { i64::MAX }
    }
    fn monotone_bound(&self, u: usize, v: usize) -> Option<i64> {
        if self.over() {
            return Some(i64::MAX);
        }
        let b = self.inner.monotone_bound(u, v)?;
        Some(if self.fits(b) { b as i64 } else { i64::MAX })
    }
    fn hints(&self, u: usize, out: &mut Vec<usize>) {
        self.inner.hints(u, out)
    }
    fn long_links(&self) -> bool {
        self.inner.long_links()
    }
    fn hubs(&self) -> Vec<usize> {
        self.inner.hubs()
    }
    fn allowed(&self, u: usize, v: usize) -> bool {
        self.inner.allowed(u, v)
    }
}

/// [`min_cost_perfect_matching`] of an `i128` oracle (OpenGotha's costs, whose bye tier needs
/// the width), solved in `i64` when every cost, bound and limit the solve meets fits the `i64`
/// solve's range, else in `i128`. Integer arithmetic that does not overflow is exact, and the
/// `i64` solve meets only numbers within its own cost limit (which is what keeps its dual
/// sums in range), so it takes the very steps of the `i128` solve with the same numbers: the
/// same matching, not only an optimum of the same cost, in less time (half the bytes per
/// edge, dual and heap key; docs/simulation.md, "Speed"). A field with
/// hub vertices (the BYE, a tier above the pairs), or whose [`PairCosts::cost_hint`] is out of
/// range (OpenGotha's weight from about 275 players), goes to `i128` at once; a value found
/// out of range part-way has the whole solve done again in `i128`.
pub fn min_cost_perfect_matching_i128<C: PairCosts<W = i128>>(
    c: &C,
    opts: SolveOptions,
) -> Result<Matching<i128>, SolveError> {
    let limit = cost_limit::<i64>(c.len()) as i128;
    if c.hubs().is_empty() && c.cost_hint().is_none_or(|h| h <= limit) {
        let narrow = Narrow {
            inner: c,
            limit,
            over: AtomicBool::new(false),
        };
        let r = min_cost_perfect_matching(&narrow, opts);
        if !narrow.over.load(AtomicOrdering::Relaxed) {
            return r.map(|m| Matching {
                mate: m.mate,
                cost: m.cost as i128,
                resolves: m.resolves,
                edges: m.edges,
                stages: m.stages,
                duals: m.duals.map(Solved::widen),
            });
        }
    }
    min_cost_perfect_matching(c, opts)
}

/// Whether the allowed pairs of `c` admit a perfect matching: a greedy matching, then
/// Edmonds' augmenting-path search (blossoms contracted) from each vertex left free. The graph
/// is never stored: a vertex's neighbours are found by asking [`PairCosts::allowed`], so memory
/// is O(n) and time O(n²) per search. One failed search settles it (that vertex is unmatched in
/// every maximum matching); when pairs are mostly allowed, each successful search is short.
pub fn has_perfect_matching<C: PairCosts>(c: &C) -> bool {
    let n = c.len();
    if n % 2 == 1 {
        return false;
    }
    let allowed = |u: usize, v: usize| {
        if u < v {
            c.allowed(u, v)
        } else {
            c.allowed(v, u)
        }
    };
    const FREE: usize = usize::MAX;
    let mut mate = vec![FREE; n];
    for u in 0..n {
        if mate[u] != FREE {
            continue;
        }
        if let Some(v) = (u + 1..n).find(|&v| mate[v] == FREE && allowed(u, v)) {
            mate[u] = v;
            mate[v] = u;
        }
    }
    let mut search = Search {
        parent: vec![FREE; n],
        base: (0..n).collect(),
        used: vec![false; n],
        blossom: vec![false; n],
        queue: std::collections::VecDeque::new(),
    };
    // Least-connected first: a vertex without any allowed partner fails in one scan.
    let mut free: Vec<usize> = (0..n).filter(|&u| mate[u] == FREE).collect();
    free.sort_by_cached_key(|&u| (0..n).filter(|&v| v != u && allowed(u, v)).count());
    for root in free {
        if mate[root] != FREE {
            continue;
        }
        // Each search is O(n²) on a dense field: stop between them at the budget (the
        // caller checks it before reading the answer).
        if crate::budget::expired() {
            return false;
        }
        match search.augmenting_path(root, &mut mate, &allowed) {
            Some(mut v) => {
                while v != FREE {
                    let pv = search.parent[v];
                    let next = mate[pv];
                    mate[v] = pv;
                    mate[pv] = v;
                    v = next;
                }
            }
            None => return false,
        }
    }
    true
}

/// Working arrays of one augmenting-path search (Edmonds' algorithm).
struct Search {
    parent: Vec<usize>,
    base: Vec<usize>,
    used: Vec<bool>,
    blossom: Vec<bool>,
    queue: std::collections::VecDeque<usize>,
}

impl Search {
    const NONE: usize = usize::MAX;

    fn lca(&self, mate: &[usize], mut a: usize, mut b: usize) -> usize {
        let mut seen = vec![false; mate.len()];
        loop {
            a = self.base[a];
            seen[a] = true;
            if mate[a] == Self::NONE {
                break;
            }
            a = self.parent[mate[a]];
        }
        loop {
            b = self.base[b];
            if seen[b] {
                return b;
            }
            b = self.parent[mate[b]];
        }
    }

    fn mark_path(&mut self, mate: &[usize], mut v: usize, b: usize, mut child: usize) {
        while self.base[v] != b {
            self.blossom[self.base[v]] = true;
            self.blossom[self.base[mate[v]]] = true;
            self.parent[v] = child;
            child = mate[v];
            v = self.parent[mate[v]];
        }
    }

    /// The free vertex an augmenting path from `root` ends at (follow `parent` and `mate`
    /// back), or `None`.
    fn augmenting_path(
        &mut self,
        root: usize,
        mate: &mut [usize],
        allowed: &impl Fn(usize, usize) -> bool,
    ) -> Option<usize> {
        let n = mate.len();
        self.used.fill(false);
        self.parent.fill(Self::NONE);
        for (i, b) in self.base.iter_mut().enumerate() {
            *b = i;
        }
        self.used[root] = true;
        self.queue.clear();
        self.queue.push_back(root);
        while let Some(v) = self.queue.pop_front() {
            for to in 0..n {
                if to == v || self.base[v] == self.base[to] || mate[v] == to || !allowed(v, to) {
                    continue;
                }
                if to == root || (mate[to] != Self::NONE && self.parent[mate[to]] != Self::NONE) {
                    let cur = self.lca(mate, v, to);
                    self.blossom.fill(false);
                    self.mark_path(mate, v, cur, to);
                    self.mark_path(mate, to, cur, v);
                    for i in 0..n {
                        if self.blossom[self.base[i]] {
                            self.base[i] = cur;
                            if !self.used[i] {
                                self.used[i] = true;
                                self.queue.push_back(i);
                            }
                        }
                    }
                } else if self.parent[to] == Self::NONE {
                    self.parent[to] = v;
                    if mate[to] == Self::NONE {
                        return Some(to);
                    }
                    let next = mate[to];
                    self.used[next] = true;
                    self.queue.push_back(next);
                }
            }
        }
        None
    }
}

fn add_candidates<C: PairCosts>(c: &C, g: &mut Graph<C::W>, k: usize) -> Result<(), SolveError> {
    let n = c.len();
    // The k cheapest among the next 2k in pairing order: the nearest neighbours are often
    // previous opponents, whose edges are useless. The 2k full costs per vertex are most of
    // this function's work (a 1,000-player OpenGotha round: 24 k of them), and rows are
    // independent: on two threads like pricing, added to the graph in row order after.
    let nearest = |rows: std::ops::Range<usize>| -> Vec<(usize, usize, C::W)> {
        let mut out = Vec::with_capacity(rows.len() * k);
        let mut near = Vec::with_capacity(2 * k);
        for u in rows {
            near.clear();
            for v in u + 1..n.min(u + 1 + 2 * k) {
                if let Some(w) = c.cost(u, v) {
                    near.push((w, v));
                }
            }
            near.sort_unstable();
            out.extend(near.iter().take(k).map(|&(w, v)| (u, v, w)));
        }
        out
    };
    for (u, v, w) in scan_rows(n, &nearest) {
        g.add(u, v, w)?;
    }
    // Long-range links at geometrically growing distances in pairing order. Without them the
    // blossom solve lowers the duals of whole regions that only distant candidate edges tie
    // together, and pricing then finds millions of violated pairs between those regions (a
    // 10,000-player McMahon round: 3.4 M violated pairs after the first solve, 23 k with these
    // ~15 extra edges per vertex). Below ~800 vertices they cost more than they save (timed on
    // a loaded machine: 256-player king-of-the-hill round ~1.0 ms without, 1.2–1.5 ms with
    // them; 500-player McMahon round 2.4 ms against 2.8–3.0 ms; 1,000 players 19 against 12 ms).
    const LONG_LINKS_FROM: usize = 800;
    for u in 0..n {
        if n < LONG_LINKS_FROM || !c.long_links() {
            break;
        }
        let mut d = 2 * k + 1;
        while u + d < n {
            if let Some(w) = c.cost(u, u + d) {
                g.add(u, u + d, w)?;
            }
            d = d * 3 / 2;
        }
    }
    let mut hinted = Vec::new();
    for u in 0..n {
        hinted.clear();
        c.hints(u, &mut hinted);
        for &v in &hinted {
            // Hints overlap each other and the nearest neighbours.
            if v < n
                && v != u
                && !g.contains(u, v)
                && let Some(w) = ordered(c, u, v)
            {
                g.add(u, v, w)?;
            }
        }
    }
    for h in c.hubs() {
        for v in 0..n {
            if v != h
                && !g.contains(h, v)
                && let Some(w) = ordered(c, h, v)
            {
                g.add(h, v, w)?;
            }
        }
    }
    // Safety net: a greedy pairing in order, so a perfect matching usually exists at once.
    let mut used = vec![false; n];
    for u in 0..n {
        if used[u] {
            continue;
        }
        for v in u + 1..n {
            if used[v] {
                continue;
            }
            // A pair in the graph is allowed (only allowed pairs are added): no cost needed.
            if g.contains(u, v) {
                used[u] = true;
                used[v] = true;
                break;
            }
            if let Some(w) = c.cost(u, v) {
                used[u] = true;
                used[v] = true;
                g.add(u, v, w)?;
                break;
            }
        }
    }
    Ok(())
}

/// Adds every allowed pair with a negative reduced cost; returns how many were added.
fn price<C: PairCosts>(c: &C, s: &Solved<C::W>, g: &mut Graph<C::W>) -> Result<usize, SolveError> {
    let n = c.len();
    let tops = s.tops();
    let four = C::W::from_i64(4);
    let mut hub = vec![false; n];
    for h in c.hubs() {
        hub[h] = true;
    }
    let is_hub = |v: usize| hub[v];
    // Suffix minima of the duals: every v' ≥ v has dual ≥ sufmin[v], which lets a monotone
    // cost bound end a row early.
    let mut sufmin = vec![C::W::MAX; n + 1];
    for v in (0..n).rev() {
        sufmin[v] = if is_hub(v) {
            sufmin[v + 1]
        } else {
            sufmin[v + 1].min(s.dual[v])
        };
    }
    // Σ z over the blossoms containing both ends of a pair, through their lowest common
    // ancestor in the blossom forest (nesting can be thousands deep: no walking up).
    let common = CommonZ::new(s, &tops);
    // Blocks of consecutive vertices in pairing order, each with the least dual of its
    // members and, when all of them lie in one outermost blossom, the innermost blossom D
    // holding them all. For u in the same outermost blossom, every pair (u, v) of the block
    // shares the blossoms containing both u and D (their LCA L), so Σ z ≥ Z(L) for all of
    // them: with the monotone bound at the block's first vertex, one comparison rules out the
    // whole block. The sparse duals are far below zero inside deeply nested blossoms (the
    // blossom duals make up for it), so without the Z(L) term few blocks would be skipped.
    const BLOCK: usize = 32;
    let nblocks = n.div_ceil(BLOCK);
    let mut bmin = vec![C::W::MAX; nblocks];
    let mut btop = vec![NO_TOP; nblocks];
    let mut bnode = vec![usize::MAX; nblocks];
    for (v, &t) in tops.iter().enumerate() {
        if is_hub(v) {
            continue;
        }
        let b = v / BLOCK;
        bmin[b] = bmin[b].min(s.dual[v]);
        btop[b] = match btop[b] {
            NO_TOP => t,
            x if x == t && t >= n => t,
            _ => MIXED,
        };
        if btop[b] != MIXED {
            bnode[b] = if bnode[b] == usize::MAX {
                v
            } else {
                common.lca_nodes(bnode[b], v)
            };
        }
    }
    // Per vertex, only the most violated pairs are added: enough to move the optimum, and it
    // keeps the graph small when the sparse duals are far from complete-graph feasibility.
    const PER_VERTEX: usize = 256;
    let limit = g.limit;
    // Pairs already in the graph have a reduced cost ≥ 0 under its optimal duals, so they are
    // never added: skipping them saves their full cost, which the lower bound cannot (the
    // tight ones — every matched pair — have reduced cost 0, so every bound lets them through).
    let seen = &*g;
    // The violated pairs of a range of rows, the most violated first in each row (a closure
    // over shared state only: rows are independent, ready for pricing on several threads).
    let scan = |rows: std::ops::Range<usize>| -> Vec<(usize, usize, C::W)> {
        let mut found = Vec::new();
        let mut row: Vec<(C::W, usize, C::W)> = Vec::new();
        for u in rows {
            if is_hub(u) {
                continue;
            }
            let du = s.dual[u];
            let tu = tops[u];
            row.clear();
            let mut v = u + 1;
            while v < n {
                if (v == u + 1 || v % BLOCK == 0)
                    && let Some(mb) = c.monotone_bound(u, v)
                {
                    if mb > limit || du + sufmin[v] + four * mb >= C::W::ZERO {
                        break;
                    }
                    let b = v / BLOCK;
                    let mut least = bmin[b];
                    if least != C::W::MAX && btop[b] == tu && tu >= n {
                        let z = common.zsum[common.lca_nodes(u, bnode[b])];
                        least += z + z;
                    }
                    if least == C::W::MAX || du + least + four * mb >= C::W::ZERO {
                        v = (b + 1) * BLOCK;
                        continue;
                    }
                }
                if is_hub(v) {
                    v += 1;
                    continue;
                }
                // The dual part of the reduced cost: vertex duals plus twice the z of the
                // blossoms containing both.
                let mut base = du + s.dual[v];
                if tu == tops[v] {
                    let z = common.z(u, v);
                    base += z + z;
                }
                // A cheap cost lower bound settles most pairs before the full cost is computed.
                let lb = c.lower_bound(u, v);
                if lb > limit || base + four * lb >= C::W::ZERO {
                    v += 1;
                    continue;
                }
                if seen.contains(u, v) {
                    v += 1;
                    continue;
                }
                let Some(w) = c.cost(u, v) else {
                    v += 1;
                    continue;
                };
                v += 1;
                if w > limit {
                    continue;
                }
                let r = base + four * w;
                if r < C::W::ZERO {
                    row.push((r, v - 1, w));
                }
            }
            row.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
            for &(_, v, w) in row.iter().take(PER_VERTEX) {
                found.push((u, v, w));
            }
        }
        found
    };
    let found = scan_rows(n, &scan);
    // A pass is O(n²) pair bounds at worst: the budget may have run out meanwhile.
    crate::budget::check()?;
    let mut added = 0;
    for (u, v, w) in found {
        if g.add(u, v, w)? {
            added += 1;
        }
    }
    Ok(added)
}

/// Below this many vertices pricing (and the nearest-neighbour candidates) run on the calling
/// thread: a pass costs little more than starting a thread there. At 1,000 vertices an
/// OpenGotha round's pricing pass is ~47 M instructions (callgrind), worth the second core.
const PARALLEL_PRICING_FROM: usize = 512;

/// Runs `scan` over all rows, on two threads for fields of `PARALLEL_PRICING_FROM` vertices
/// and more. Rows are independent; chunks are handed out in order from a shared counter
/// (later rows are shorter, so a fixed split would be uneven) and the results are put back in
/// row order, so the pairs found — and everything after — are the same on one thread or two.
fn scan_rows<W: Send>(
    n: usize,
    scan: &(impl Fn(std::ops::Range<usize>) -> Vec<(usize, usize, W)> + Sync),
) -> Vec<(usize, usize, W)> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    if n < PARALLEL_PRICING_FROM {
        return scan(0..n);
    }
    // Small enough that two threads share a 1,000-row pass evenly.
    const CHUNK: usize = 64;
    let chunks = n.div_ceil(CHUNK);
    let next = AtomicUsize::new(0);
    let work = || {
        let mut out = Vec::new();
        loop {
            let k = next.fetch_add(1, Ordering::Relaxed);
            if k >= chunks {
                return out;
            }
            out.push((k, scan(k * CHUNK..((k + 1) * CHUNK).min(n))));
        }
    };
    let mut parts = std::thread::scope(|s| {
        // No second thread to be had (a loaded host): this one does every chunk.
        let other = std::thread::Builder::new().spawn_scoped(s, work).ok();
        let mut mine = work();
        if let Some(other) = other {
            // A panic in the other thread is a bug in a cost oracle: pass it on.
            mine.extend(
                other
                    .join()
                    .unwrap_or_else(|e| std::panic::resume_unwind(e)),
            );
        }
        mine
    });
    parts.sort_unstable_by_key(|&(k, _)| k);
    parts.into_iter().flat_map(|(_, found)| found).collect()
}

/// Lowest common ancestors in the blossom forest (Euler tour + sparse table of depths), with
/// the sum of z from each node up to its root.
struct CommonZ<W> {
    first: Vec<u32>,
    /// table[k][i]: the shallowest node of euler[i .. i + 2^k].
    table: Vec<Vec<u32>>,
    depth: Vec<u32>,
    zsum: Vec<W>,
}

impl<W: Weight> CommonZ<W> {
    fn new(s: &Solved<W>, tops: &[usize]) -> Self {
        let total = s.parent.len();
        let n = tops.len();
        // Children lists (CSR), in index order for determinism.
        let mut count = vec![0u32; total + 1];
        for x in 0..total {
            let p = s.parent[x];
            if p != usize::MAX {
                count[p + 1] += 1;
            }
        }
        for x in 0..total {
            count[x + 1] += count[x];
        }
        let mut fill: Vec<u32> = count[..total].to_vec();
        let mut kids = vec![0u32; count[total] as usize];
        for x in 0..total {
            let p = s.parent[x];
            if p != usize::MAX {
                kids[fill[p] as usize] = x as u32;
                fill[p] += 1;
            }
        }
        let mut first = vec![u32::MAX; total];
        let mut depth = vec![0u32; total];
        let mut zsum = vec![W::ZERO; total];
        let mut euler: Vec<u32> = Vec::new();
        let mut stack: Vec<(u32, u32)> = Vec::new();
        for (v, &root) in tops.iter().enumerate() {
            if root == v || first[root] != u32::MAX {
                continue;
            }
            zsum[root] = s.z[root];
            stack.push((root as u32, count[root]));
            first[root] = euler.len() as u32;
            euler.push(root as u32);
            while let Some(top) = stack.last_mut() {
                let (x, next) = (top.0 as usize, top.1);
                if next == count[x + 1] {
                    stack.pop();
                    if let Some(&(p, _)) = stack.last() {
                        euler.push(p);
                    }
                    continue;
                }
                top.1 += 1;
                let ch = kids[next as usize] as usize;
                depth[ch] = depth[x] + 1;
                zsum[ch] = zsum[x] + if ch >= n { s.z[ch] } else { W::ZERO };
                first[ch] = euler.len() as u32;
                euler.push(ch as u32);
                stack.push((ch as u32, count[ch]));
            }
        }
        let mut table = vec![euler];
        let mut span = 1;
        while 2 * span <= table[0].len() {
            let prev = table.last().expect("level 0");
            let next: Vec<u32> = (0..prev.len() - span)
                .map(|i| {
                    let (a, b) = (prev[i], prev[i + span]);
                    if depth[b as usize] < depth[a as usize] {
                        b
                    } else {
                        a
                    }
                })
                .collect();
            table.push(next);
            span *= 2;
        }
        CommonZ {
            first,
            table,
            depth,
            zsum,
        }
    }

    /// The innermost blossom containing both u and v (distinct vertices, same outermost
    /// blossom).
    fn lca(&self, u: usize, v: usize) -> usize {
        self.lca_nodes(u, v)
    }

    /// The lowest common ancestor of two nodes (vertices or blossoms) of the same tree; a node
    /// is its own ancestor.
    fn lca_nodes(&self, u: usize, v: usize) -> usize {
        let (a, b) = (self.first[u], self.first[v]);
        let (l, r) = if a < b { (a, b) } else { (b, a) };
        let len = (r - l + 1) as usize;
        let k = (usize::BITS - 1 - len.leading_zeros()) as usize;
        let (x, y) = (
            self.table[k][l as usize],
            self.table[k][r as usize + 1 - (1 << k)],
        );
        if self.depth[y as usize] < self.depth[x as usize] {
            y as usize
        } else {
            x as usize
        }
    }

    /// Σ z(B) over the blossoms B containing both u and v (distinct vertices, same outermost
    /// blossom).
    fn z(&self, u: usize, v: usize) -> W {
        self.zsum[self.lca(u, v)]
    }
}

/// Verifies the optimality certificate of a matching over the **complete** graph described
/// by `c`: the matching is perfect and uses allowed pairs only, every blossom dual is ≥ 0,
/// every allowed pair has a reduced cost ≥ 0 against the duals and every matched pair 0.
/// By LP duality that proves the matching a minimum-cost perfect matching. O(n²) cost
/// evaluations: for tests and benchmarks, on fields too large for a dense oracle.
pub fn check_certificate<C: PairCosts>(c: &C, m: &Matching<C::W>) -> Result<(), String> {
    let n = c.len();
    let Some(s) = &m.duals else {
        return if n == 0 {
            Ok(())
        } else {
            Err("no duals".to_string())
        };
    };
    if m.mate.len() != n || s.dual.len() != n {
        return Err("sizes differ".to_string());
    }
    for (u, &v) in m.mate.iter().enumerate() {
        if v >= n || v == u || m.mate[v] != u {
            return Err(format!("not a perfect matching at {u}"));
        }
        if ordered(c, u, v).is_none() {
            return Err(format!("forbidden pair {u}–{v} matched"));
        }
    }
    if let Some(b) = (0..s.z.len()).find(|&b| s.z[b] < C::W::ZERO) {
        return Err(format!("blossom {b} has a negative dual"));
    }
    let tops = s.tops();
    let common = CommonZ::new(s, &tops);
    // A blossom with z > 0 must hold (|B| − 1)/2 matched pairs, or its z would not count
    // fully in the dual objective. Pairs are counted at their innermost common blossom and
    // summed up the forest, deepest nodes first.
    let total = s.parent.len();
    let mut inside = vec![0usize; total];
    let mut size = vec![0usize; total];
    for (u, &v) in m.mate.iter().enumerate() {
        size[u] = 1;
        if u < v && tops[u] == tops[v] {
            inside[common.lca(u, v)] += 1;
        }
    }
    let mut nodes: Vec<usize> = (0..total)
        .filter(|&x| common.first[x] != u32::MAX)
        .collect();
    nodes.sort_by_key(|&x| std::cmp::Reverse(common.depth[x]));
    for &x in &nodes {
        let p = s.parent[x];
        if p != usize::MAX {
            inside[p] += inside[x];
            size[p] += size[x];
        }
    }
    for &b in &nodes {
        if b >= n && s.z[b] > C::W::ZERO && 2 * inside[b] + 1 != size[b] {
            return Err(format!(
                "blossom {b} with z > 0 holds {} matched pairs for {} vertices",
                inside[b], size[b]
            ));
        }
    }
    // i128 with saturation: a pair cost may be near the type's maximum, and then the reduced
    // cost is only larger than what saturates.
    for u in 0..n {
        for v in u + 1..n {
            let Some(w) = c.cost(u, v) else { continue };
            let z = if tops[u] == tops[v] {
                common.z(u, v).to_i128()
            } else {
                0
            };
            let r = s.dual[u]
                .to_i128()
                .saturating_add(s.dual[v].to_i128())
                .saturating_add(w.to_i128().saturating_mul(4))
                .saturating_add(z.saturating_mul(2));
            if r < 0 {
                return Err(format!("pair {u}–{v} has reduced cost {r} < 0"));
            }
            if m.mate[u] == v && r != 0 {
                return Err(format!("matched pair {u}–{v} is not tight ({r})"));
            }
        }
    }
    Ok(())
}

/// Exhaustive search over all perfect matchings: the oracle for small inputs (≤ 14 vertices
/// is instant). Returns the optimum cost and mates, `None` when no perfect matching exists.
pub fn brute_force<C: PairCosts>(c: &C) -> Option<(C::W, Vec<usize>)> {
    let n = c.len();
    if n % 2 == 1 {
        return None;
    }
    let mut mate = vec![usize::MAX; n];
    let mut best: Option<(C::W, Vec<usize>)> = None;
    fn rec<C: PairCosts>(
        c: &C,
        mate: &mut Vec<usize>,
        acc: C::W,
        best: &mut Option<(C::W, Vec<usize>)>,
    ) {
        let Some(u) = mate.iter().position(|&m| m == usize::MAX) else {
            if best.as_ref().is_none_or(|(b, _)| acc < *b) {
                *best = Some((acc, mate.clone()));
            }
            return;
        };
        for v in u + 1..mate.len() {
            if mate[v] != usize::MAX {
                continue;
            }
            if let Some(w) = c.cost(u, v) {
                mate[u] = v;
                mate[v] = u;
                rec(c, mate, acc + w, best);
                mate[u] = usize::MAX;
                mate[v] = usize::MAX;
            }
        }
    }
    rec(c, &mut mate, C::W::ZERO, &mut best);
    best
}

/// A cost matrix as a [`PairCosts`] (tests, oracles, small callers).
#[derive(Debug, Clone)]
pub struct DenseCosts<W> {
    pub n: usize,
    /// Row-major n×n; only u < v is read.
    pub cost: Vec<Option<W>>,
    pub hubs: Vec<usize>,
}

impl<W: Weight> PairCosts for DenseCosts<W> {
    type W = W;
    fn len(&self) -> usize {
        self.n
    }
    fn cost(&self, u: usize, v: usize) -> Option<W> {
        self.cost[u * self.n + v]
    }
    fn hubs(&self) -> Vec<usize> {
        self.hubs.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Players 0..club are one club whose members may not meet; everyone else is free.
    struct Club {
        n: usize,
        club: usize,
    }

    impl PairCosts for Club {
        type W = i64;
        fn len(&self) -> usize {
            self.n
        }
        fn cost(&self, u: usize, v: usize) -> Option<i64> {
            (u >= self.club || v >= self.club).then_some((v - u) as i64)
        }
    }

    #[test]
    fn perfect_matching_check_agrees_with_exhaustive_search() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(14);
        for trial in 0..3000 {
            let n = 2 * rng.random_range(1..=6);
            let p_forbid = [0.2, 0.5, 0.7, 0.85][trial % 4];
            let mut cost = vec![None; n * n];
            for u in 0..n {
                for v in u + 1..n {
                    if !rng.random_bool(p_forbid) {
                        cost[u * n + v] = Some(rng.random_range(0..100i64));
                    }
                }
            }
            let c = DenseCosts {
                n,
                cost,
                hubs: vec![],
            };
            assert_eq!(
                has_perfect_matching(&c),
                brute_force(&c).is_some(),
                "trial {trial}: {c:?}"
            );
        }
    }

    #[test]
    fn infeasible_large_fields_are_refused_at_once() {
        // Tutte: a club of more than half the field cannot be paired (its surplus members
        // can only meet each other); exactly half can.
        let n = 6000;
        let start = std::time::Instant::now();
        assert!(has_perfect_matching(&Club { n, club: n / 2 }));
        assert!(!has_perfect_matching(&Club { n, club: n / 2 + 1 }));
        let e = min_cost_perfect_matching(&Club { n, club: n / 2 + 2 }, SolveOptions::default())
            .unwrap_err();
        assert_eq!(e, SolveError::NoPerfectMatching);
        // Generous for a loaded machine; the widening this replaces took tens of seconds.
        assert!(start.elapsed().as_secs() < 20, "{:?}", start.elapsed());
        let m = min_cost_perfect_matching(&Club { n: 400, club: 200 }, SolveOptions::default())
            .unwrap();
        assert!((0..200).all(|u| m.mate[u] >= 200));
    }
}

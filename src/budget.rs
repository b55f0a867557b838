//! A request's time budget and cancellation, as the heavy loops see it.
//!
//! The RPC layer runs a heavy (`Blocking`) call inside [`run`] with a [`Budget`]: a deadline
//! and a cancel flag that the request's future sets when it is dropped (the client went away)
//! or when it gave up waiting (the deadline passed). The domain code does no I/O and knows
//! nothing of requests: its long loops (the pairing solver, SGF parsing, AGA files, scoring,
//! standings) call [`check`] or [`expired`] now and then and stop early when it says so. What
//! they return then does not matter: [`run`] reports that the budget ran out and the caller
//! answers with its own error. The stateful namespaces (`tournament.*`, `matchmaker.*`) run a
//! command's computation under [`run`] too and record nothing when it reports that. Outside
//! [`run`] (tests, the library used on its own) there is no budget and the checks always pass.
//!
//! A check reads an atomic flag and the clock (tens of nanoseconds), so loops call it per unit
//! of real work (a solver stage, a parsed node, a file line), not per innermost step.
//!
//! [`Gate`] is a hook for tests: it holds runs still at their first check, so that a test can
//! act while heavy work is under way (hang up on it, call beside it) whatever the machine's
//! speed, instead of sleeping and hoping the work has started and not yet finished.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// The budget ran out (its deadline passed, or the request was cancelled).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OverBudget;

impl std::fmt::Display for OverBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the request ran out of time or was cancelled")
    }
}

impl std::error::Error for OverBudget {}

/// One request's budget.
#[derive(Debug, Clone)]
pub struct Budget {
    deadline: Option<Instant>,
    /// Its own cancel flag last, its parents' before it ([`Budget::child`]): cancelling a
    /// budget cancels its children, never its parent.
    cancelled: Vec<Arc<AtomicBool>>,
}

impl Budget {
    /// A budget of `limit` from now; `None`: no deadline, only cancellation.
    pub fn new(limit: Option<Duration>) -> Budget {
        Budget {
            deadline: limit.and_then(|d| Instant::now().checked_add(d)),
            cancelled: vec![Arc::new(AtomicBool::new(false))],
        }
    }

    /// A budget within this one: the same deadline, cancelled with this one, and with a
    /// cancel flag of its own, so that one call of a batch (`system.multicall`) can end, and
    /// its guard be dropped, without cancelling the calls after it.
    pub fn child(&self) -> Budget {
        let mut cancelled = self.cancelled.clone();
        cancelled.push(Arc::new(AtomicBool::new(false)));
        Budget {
            deadline: self.deadline,
            cancelled,
        }
    }

    /// A guard that cancels the budget when dropped: the request's future holds it, so the
    /// work stops when the future is dropped (a client that closed its connection) or done.
    pub fn cancel_on_drop(&self) -> CancelOnDrop {
        // `new` and `child` always push one flag; an empty list cannot be built.
        let own = self
            .cancelled
            .last()
            .cloned()
            .unwrap_or_else(|| Arc::new(AtomicBool::new(false)));
        CancelOnDrop(own)
    }

    /// Whether the deadline has passed or the budget was cancelled (for callers that look
    /// between units of work, outside [`run`]).
    pub fn is_over(&self) -> bool {
        self.state().is_some()
    }

    /// Time left until the deadline (zero once past); `None`: no deadline.
    pub fn remaining(&self) -> Option<Duration> {
        self.deadline
            .map(|d| d.saturating_duration_since(Instant::now()))
    }

    fn state(&self) -> Option<Stop> {
        // The deadline first: a request that gave up at its deadline also drops its guard.
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            Some(Stop::Deadline)
        } else if self.cancelled.iter().any(|c| c.load(Ordering::Relaxed)) {
            Some(Stop::Cancelled)
        } else {
            None
        }
    }
}

/// Sets the budget's cancel flag when dropped.
#[derive(Debug)]
pub struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    Deadline,
    Cancelled,
}

struct Current {
    budget: Budget,
    /// The first check that failed, and why.
    stopped: Option<Stop>,
    /// Whether the run has been to the [`Gate`] (held there or let through): once per run.
    gated: bool,
}

thread_local! {
    static CURRENT: RefCell<Option<Current>> = const { RefCell::new(None) };
}

/// Work stopped early by a check, for `/metrics` and for tests that must see cancellation
/// happen (a count, not a flag, so concurrent tests can compare before and after).
static STOPPED_BY_DEADLINE: AtomicU64 = AtomicU64::new(0);
static STOPPED_BY_CANCEL: AtomicU64 = AtomicU64::new(0);

/// How many runs a check stopped so far: (deadline passed, cancelled).
pub fn stopped_counts() -> (u64, u64) {
    (
        STOPPED_BY_DEADLINE.load(Ordering::Relaxed),
        STOPPED_BY_CANCEL.load(Ordering::Relaxed),
    )
}

fn count_stop(stop: Stop) {
    match stop {
        Stop::Deadline => &STOPPED_BY_DEADLINE,
        Stop::Cancelled => &STOPPED_BY_CANCEL,
    }
    .fetch_add(1, Ordering::Relaxed);
}

/// Holds heavy work still, for tests. While a gate is closed, the next `runs` runs (of
/// [`run`]) to reach their first [`check`] wait there — or at their end, if they make no
/// check — each until the gate opens (then it goes on as if nothing happened) or until its
/// own budget is over (then that check fails as it would have, and the stop is counted).
/// A held run is under way and cannot finish, so a test can hang up on it, or call beside
/// it while it holds its turn at heavy work, and know what it acts on.
///
/// Dropping the gate opens it. It is process-wide: a test that closes it must be the only
/// one doing budgeted work in its process while it is closed, and must not close it around
/// work that runs inline on an async worker (it would hold that worker). Nothing in the
/// daemon closes it; while it is open a run pays one atomic load for it.
#[derive(Debug)]
pub struct Gate(());

struct GateState {
    /// How many more runs the closed gate will hold.
    slots: usize,
    /// Runs waiting at it now.
    held: usize,
    /// Counts openings: a held run leaves when it changes.
    opened: u64,
}

static GATE_CLOSED: AtomicBool = AtomicBool::new(false);
static GATE: Mutex<GateState> = Mutex::new(GateState {
    slots: 0,
    held: 0,
    opened: 0,
});
static GATE_MOVED: Condvar = Condvar::new();

impl Gate {
    /// Closes the gate for the next `runs` runs.
    pub fn close(runs: usize) -> Gate {
        let mut g = GATE.lock().unwrap_or_else(PoisonError::into_inner);
        g.slots = runs;
        GATE_CLOSED.store(true, Ordering::SeqCst);
        Gate(())
    }

    /// How many runs are waiting at the gate now.
    pub fn held(&self) -> usize {
        GATE.lock().unwrap_or_else(PoisonError::into_inner).held
    }
}

impl Drop for Gate {
    fn drop(&mut self) {
        let mut g = GATE.lock().unwrap_or_else(PoisonError::into_inner);
        g.slots = 0;
        g.opened += 1;
        GATE_CLOSED.store(false, Ordering::SeqCst);
        GATE_MOVED.notify_all();
    }
}

/// A run's one visit to the gate (see [`Gate`]): waits while the gate holds it; `Some` when it
/// left because its budget was over.
fn at_gate(budget: &Budget) -> Option<Stop> {
    if !GATE_CLOSED.load(Ordering::SeqCst) {
        return None;
    }
    // A run already over its budget does not take a place at the gate: a late run of some
    // earlier call must not stand in for the one a test waits for.
    if let Some(stop) = budget.state() {
        return Some(stop);
    }
    let mut g = GATE.lock().unwrap_or_else(PoisonError::into_inner);
    if g.slots == 0 {
        return None;
    }
    g.slots -= 1;
    g.held += 1;
    let opened = g.opened;
    let stop = loop {
        if g.opened != opened {
            break None;
        }
        if let Some(stop) = budget.state() {
            break Some(stop);
        }
        // A cancel flag wakes nobody: look at the budget again every few milliseconds.
        g = GATE_MOVED
            .wait_timeout(g, Duration::from_millis(5))
            .map(|(g, _)| g)
            .unwrap_or_else(|e| e.into_inner().0);
    };
    g.held -= 1;
    stop
}

/// Runs `f` on this thread under `budget`. `Err(OverBudget)` when a check inside it failed
/// (whatever `f` returned then), else `f`'s value. Nested runs keep the outer budget's state.
pub fn run<T>(budget: Budget, f: impl FnOnce() -> T) -> Result<T, OverBudget> {
    let outer = CURRENT.with(|c| {
        c.borrow_mut().replace(Current {
            budget,
            stopped: None,
            gated: false,
        })
    });
    // Puts the outer budget back, even if `f` unwinds.
    struct Restore(Option<Current>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let outer = self.0.take();
            CURRENT.with(|c| *c.borrow_mut() = outer);
        }
    }
    let restore = Restore(outer);
    let value = f();
    let stopped = CURRENT.with(|c| {
        let mut c = c.borrow_mut();
        let cur = c.as_mut()?;
        // A run that made no check meets the gate at its end.
        if !cur.gated && cur.stopped.is_none() {
            cur.gated = true;
            if let Some(stop) = at_gate(&cur.budget) {
                count_stop(stop);
                cur.stopped = Some(stop);
            }
        }
        cur.stopped
    });
    drop(restore);
    match stopped {
        None => Ok(value),
        Some(_) => Err(OverBudget),
    }
}

/// `Err(OverBudget)` once the current run's deadline has passed or it was cancelled (and from
/// then on); always `Ok` outside [`run`].
pub fn check() -> Result<(), OverBudget> {
    CURRENT.with(|c| {
        let mut c = c.borrow_mut();
        let Some(cur) = c.as_mut() else {
            return Ok(());
        };
        if cur.stopped.is_some() {
            return Err(OverBudget);
        }
        let gate = if cur.gated {
            None
        } else {
            cur.gated = true;
            at_gate(&cur.budget)
        };
        match gate.or_else(|| cur.budget.state()) {
            None => Ok(()),
            Some(stop) => {
                cur.stopped = Some(stop);
                count_stop(stop);
                Err(OverBudget)
            }
        }
    })
}

/// [`check`] as a boolean, for loops whose functions have no error to return: true means stop.
pub fn expired() -> bool {
    check().is_err()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_budget_means_checks_pass() {
        assert_eq!(check(), Ok(()));
        assert!(!expired());
    }

    #[test]
    fn a_passed_deadline_stops_the_run_and_only_it() {
        let r = run(Budget::new(Some(Duration::ZERO)), || {
            assert!(expired());
            // Once stopped, it stays stopped.
            assert_eq!(check(), Err(OverBudget));
            7
        });
        assert_eq!(r, Err(OverBudget));
        assert_eq!(check(), Ok(()), "the budget ends with its run");
    }

    #[test]
    fn a_run_that_never_checks_late_is_ok() {
        let r = run(Budget::new(Some(Duration::from_secs(60))), || {
            check().map(|()| 5)
        });
        assert_eq!(r, Ok(Ok(5)));
    }

    #[test]
    fn dropping_the_guard_cancels() {
        let budget = Budget::new(None);
        let guard = budget.cancel_on_drop();
        let (_, cancelled_before) = stopped_counts();
        let r = run(budget, || {
            assert_eq!(check(), Ok(()));
            drop(guard);
            check()
        });
        assert_eq!(r, Err(OverBudget));
        assert!(stopped_counts().1 > cancelled_before);
    }

    #[test]
    fn a_child_shares_the_deadline_and_its_parents_cancellation_only() {
        let parent = Budget::new(Some(Duration::from_secs(60)));
        let parent_guard = parent.cancel_on_drop();
        let child = parent.child();
        assert_eq!(child.deadline, parent.deadline);
        // A finished child (its guard dropped) leaves its parent and siblings running.
        drop(child.cancel_on_drop());
        assert!(child.is_over());
        assert!(!parent.is_over());
        let sibling = parent.child();
        assert!(!sibling.is_over());
        // A cancelled parent stops every child.
        drop(parent_guard);
        assert!(parent.is_over());
        assert!(sibling.is_over());
        assert_eq!(run(sibling, check), Err(OverBudget));
    }

    #[test]
    fn remaining_counts_down_to_zero() {
        assert_eq!(Budget::new(None).remaining(), None);
        assert_eq!(
            Budget::new(Some(Duration::ZERO)).remaining(),
            Some(Duration::ZERO)
        );
        let r = Budget::new(Some(Duration::from_secs(60))).remaining();
        assert!(r.is_some_and(|r| r > Duration::from_secs(50)), "{r:?}");
    }

    #[test]
    fn nested_runs_restore_the_outer_budget() {
        let r = run(Budget::new(Some(Duration::from_secs(60))), || {
            let inner = run(Budget::new(Some(Duration::ZERO)), expired);
            assert_eq!(inner, Err(OverBudget));
            check()
        });
        assert_eq!(r, Ok(Ok(())));
    }
}

//! The simulation lab: plays whole tournaments in memory with the tournament engine itself
//! (no store, no RPC: `tournament::Tournament`'s commands and fold, its OpenGotha pairing and
//! standings), thousands of times, and measures how well each pairing system and setting
//! ranks players whose true strength is known (docs/simulation.md).
//!
//! A simulation ([`spec::Spec`]) is a field of players ([`field`]), one or more variants (any
//! `tournament.*` settings), a result model ([`model`]) and a number of runs. Each run draws
//! its field from a seed derived from the master seed and the run's index, then plays every
//! variant on that field ([`play`]); the observations ([`metrics`]) are added into streaming
//! accumulators, so memory does not grow with the runs, and the result is the same on any
//! number of threads. [`report`] writes the result as a table, JSON or CSV, [`chart`] as SVG.
//!
//! Pure: no I/O, no clock. Threads are `std::thread::scope` over the runs; the caller
//! watches [`Control`] for progress and may cancel, and may make each run wait for a turn and
//! run under a budget ([`Turns`]: the daemon's heavy-work permits and the simulation's
//! budget).

pub mod chart;
pub mod field;
pub mod metrics;
pub mod model;
pub mod play;
pub mod report;
pub mod spec;

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

pub use report::Report;
pub use spec::{Limits, Prepared, Spec};

use metrics::VariantAcc;

/// Progress and cancellation shared between a running simulation and its caller.
#[derive(Debug, Default)]
pub struct Control {
    /// Runs finished (every variant of the run played and counted).
    pub done: AtomicU64,
    /// Set to stop: workers finish the run they are in and the report covers the runs done.
    pub cancel: AtomicBool,
}

impl Control {
    pub fn done(&self) -> u64 {
        self.done.load(Ordering::Relaxed)
    }

    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
}

/// A turn to compute one run: held while the run plays, given back when dropped.
pub type Turn = Box<dyn Send>;

/// Where a worker waits before each run (the daemon's heavy-work permits, so that a long
/// simulation takes turns with other heavy calls), and how a run's work is done (the daemon's:
/// under the simulation's budget, so that a cancellation or the deadline stops a run part-way
/// at the engine's budget checks).
pub trait Turns: Sync {
    /// A turn for the next run; `None`: stop.
    fn take(&self) -> Option<Turn>;

    /// Does one run's `work`; false when it was stopped part-way (its observations are then
    /// dropped and the simulation stops).
    fn within(&self, work: &mut dyn FnMut()) -> bool {
        work();
        true
    }
}

/// No waiting: every run computes at once (the CLI).
pub struct Free;

impl Turns for Free {
    fn take(&self) -> Option<Turn> {
        Some(Box::new(()))
    }
}

/// Why a simulation gave no report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SimError {
    /// A tournament could not be played (settings no field can be paired under, …).
    Engine {
        variant: String,
        run: u64,
        message: String,
    },
}

impl std::fmt::Display for SimError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SimError::Engine {
                variant,
                run,
                message,
            } => write!(f, "variant {variant:?}, run {run}: {message}"),
        }
    }
}

impl std::error::Error for SimError {}

/// Plays one run (every variant on the run's field) and observes each tournament.
fn one_run(p: &Prepared, run: u64) -> Result<Vec<metrics::Observation>, SimError> {
    let seed = play::run_seed(p.seed, run);
    let field = play::run_field(&p.field, seed, p.strength_sd);
    let mut seen = Vec::with_capacity(p.variants.len());
    for v in &p.variants {
        let played = play::play(
            &v.settings,
            v.pairing_model.as_ref(),
            &field,
            seed,
            &p.model,
        )
        .map_err(|e| SimError::Engine {
            variant: v.name.clone(),
            run,
            message: e.to_string(),
        })?;
        seen.push(metrics::observe(
            &played.tournament.data,
            &field.strength,
            &played.standings,
        ));
    }
    Ok(seen)
}

/// Adds one run's observations (one per variant) to `accs`, all or nothing: a run stopped
/// part-way is never half counted.
fn count_run(seen: &[metrics::Observation], accs: &mut [VariantAcc]) {
    let first_tau = seen.first().and_then(|o| o.tau);
    for (k, (o, acc)) in seen.iter().zip(accs.iter_mut()).enumerate() {
        acc.add(o, if k == 0 { None } else { first_tau });
    }
}

/// One tournament of a simulation played again on its own: run `run` of variant `variant`,
/// with the tournament seed recorded in its `created` event, the run's field (players and true
/// strengths) and the tournament as the simulation counted it. `None` for a variant or run
/// the simulation does not have.
pub fn replay_run(
    p: &Prepared,
    variant: usize,
    run: u64,
) -> Option<Result<(u64, field::RunField, play::Played), SimError>> {
    let v = p.variants.get(variant)?;
    if run >= p.runs {
        return None;
    }
    let seed = play::run_seed(p.seed, run);
    let field = play::run_field(&p.field, seed, p.strength_sd);
    Some(
        play::play(
            &v.settings,
            v.pairing_model.as_ref(),
            &field,
            seed,
            &p.model,
        )
        .map(|played| (seed, field, played))
        .map_err(|e| SimError::Engine {
            variant: v.name.clone(),
            run,
            message: e.to_string(),
        }),
    )
}

/// Runs the simulation on `threads` threads (at least one), taking a turn from `turns`
/// before every run. Stops early, with a report of the runs done, when `control` is
/// cancelled or `turns` gives none; fails on the first tournament the engine refuses.
pub fn run(
    p: &Prepared,
    threads: usize,
    control: &Control,
    turns: &dyn Turns,
) -> Result<Report, SimError> {
    let next = AtomicU64::new(0);
    let failed: Mutex<Option<SimError>> = Mutex::new(None);
    let total: Mutex<Vec<VariantAcc>> = Mutex::new(vec![VariantAcc::default(); p.variants.len()]);
    let work = || {
        let mut accs = vec![VariantAcc::default(); p.variants.len()];
        loop {
            if control.cancelled() {
                break;
            }
            let run = next.fetch_add(1, Ordering::Relaxed);
            if run >= p.runs {
                break;
            }
            let Some(turn) = turns.take() else {
                control.cancel();
                break;
            };
            let mut outcome = None;
            let finished = turns.within(&mut || outcome = Some(one_run(p, run)));
            drop(turn);
            match outcome {
                // Stopped part-way: whatever the engine answered then is not a result.
                _ if !finished => {
                    control.cancel();
                    break;
                }
                None => break,
                Some(Ok(seen)) => {
                    count_run(&seen, &mut accs);
                    control.done.fetch_add(1, Ordering::Relaxed);
                }
                Some(Err(e)) => {
                    if let Ok(mut f) = failed.lock() {
                        f.get_or_insert(e);
                    }
                    control.cancel();
                    break;
                }
            }
        }
        if let Ok(mut t) = total.lock() {
            for (a, b) in t.iter_mut().zip(&accs) {
                a.merge(b);
            }
        }
    };
    std::thread::scope(|s| {
        // Spare threads that cannot be started (a loaded host) leave the work to the others.
        let _helpers: Vec<_> = (1..threads.max(1))
            .filter_map(|_| std::thread::Builder::new().spawn_scoped(s, work).ok())
            .collect();
        work();
    });
    if let Some(e) = failed.into_inner().ok().flatten() {
        return Err(e);
    }
    let accs = total.into_inner().unwrap_or_default();
    Ok(Report::new(p, &accs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn prepared(v: serde_json::Value) -> Prepared {
        Spec::from_value(v)
            .unwrap()
            .prepare(&Limits::default())
            .unwrap()
    }

    #[test]
    fn the_report_does_not_depend_on_the_thread_count() {
        let p = prepared(json!({
            "field": {"generate": {"players": 12, "from": "10k", "to": "2d"}},
            "variants": [{"settings": {"rounds": 3}}, {"settings": {"system": "swiss", "rounds": 3}}],
            "runs": 12, "seed": 4
        }));
        let one = run(&p, 1, &Control::default(), &Free).unwrap();
        let three = run(&p, 3, &Control::default(), &Free).unwrap();
        assert_eq!(one, three);
        assert_eq!(one.runs, 12);
        let other = run(
            &Prepared {
                seed: 5,
                ..p.clone()
            },
            2,
            &Control::default(),
            &Free,
        )
        .unwrap();
        assert_ne!(one.variants[0].kendall_tau, other.variants[0].kendall_tau);
    }

    #[test]
    fn a_cancelled_simulation_reports_the_runs_it_did() {
        let p = prepared(json!({
            "field": {"generate": {"players": 8, "from": "10k", "to": "2d"}},
            "variants": [{"settings": {"rounds": 2}}], "runs": 1000
        }));
        let c = Control::default();
        c.cancel();
        let r = run(&p, 2, &c, &Free).unwrap();
        assert_eq!(r.runs, 0);
        struct Two(AtomicU64);
        impl Turns for Two {
            fn take(&self) -> Option<Turn> {
                (self.0.fetch_add(1, Ordering::SeqCst) < 2).then(|| Box::new(()) as Turn)
            }
        }
        let c = Control::default();
        let r = run(&p, 1, &c, &Two(AtomicU64::new(0))).unwrap();
        assert_eq!((r.runs, c.done()), (2, 2));
        assert!(c.cancelled());
    }

    #[test]
    fn a_run_stopped_part_way_is_not_counted() {
        // The third run's work is done but reported stopped (as a budget check would): the
        // report is the first two runs', every variant alike, and the simulation stops.
        let p = prepared(json!({
            "field": {"generate": {"players": 8, "from": "10k", "to": "2d"}},
            "variants": [{"settings": {"rounds": 2}}, {"settings": {"rounds": 3}}],
            "runs": 50
        }));
        struct StopThird(AtomicU64);
        impl Turns for StopThird {
            fn take(&self) -> Option<Turn> {
                Some(Box::new(()))
            }
            fn within(&self, work: &mut dyn FnMut()) -> bool {
                work();
                self.0.fetch_add(1, Ordering::SeqCst) < 2
            }
        }
        let c = Control::default();
        let r = run(&p, 1, &c, &StopThird(AtomicU64::new(0))).unwrap();
        assert_eq!((r.runs, c.done()), (2, 2));
        assert!(r.variants.iter().all(|v| v.kendall_tau.unwrap().n == 2));
        assert!(c.cancelled());
        let two = run(&Prepared { runs: 2, ..p }, 1, &Control::default(), &Free).unwrap();
        assert_eq!(r.variants, two.variants);
    }
}

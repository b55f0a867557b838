//! Property tests: random games of legal moves never panic, keep stone counts consistent
//! with captures and the incremental hash equal to one computed from scratch, and replay
//! through SGF to the same position; Cinderblock marking keeps its invariants, and marking
//! chain by chain leaves the state that the stateless rebuild from the dead stones gives.

use goswiss::go::{
    Board, Category, GameState, MarkMode, PlayRules, Position, Preset, ReplayOptions, Scorable,
    Stone, Xy, replay,
};
use goswiss::sgf::{Colour, Game};
use proptest::prelude::*;

fn colour(i: usize) -> Colour {
    if i.is_multiple_of(2) {
        Colour::Black
    } else {
        Colour::White
    }
}

/// Plays the candidate moves that are legal (a pass when `None` or after an illegal try),
/// returning the state and the moves actually made.
fn play_out(
    size: u8,
    rules: PlayRules,
    tries: &[Option<(u8, u8)>],
) -> (GameState, Vec<Option<Xy>>) {
    let mut g = GameState::new(Board::new(size).unwrap(), rules);
    let mut made = Vec::new();
    let mut placed = [0u32; 2];
    for (k, t) in tries.iter().enumerate() {
        let c = colour(made.len());
        let mv = t.map(|(x, y)| Xy::new(x % size, y % size));
        let before = g.board.rows();
        let before_hash = g.board.hash();
        match g.play(c, mv) {
            Ok(()) => {
                if mv.is_some() {
                    placed[usize::from(c == Colour::White)] += 1;
                }
                made.push(mv);
            }
            Err(_) => {
                // A rejected move changes nothing.
                assert_eq!(g.board.rows(), before, "move {k}");
                assert_eq!(g.board.hash(), before_hash);
                g.play(c, None).unwrap();
                made.push(None);
            }
        }
        // Stones on the board = stones placed − stones the opponent took.
        assert_eq!(
            g.board.count(Stone::Black) as u32,
            placed[0] - g.board.captures(Colour::White)
        );
        assert_eq!(
            g.board.count(Stone::White) as u32,
            placed[1] - g.board.captures(Colour::Black)
        );
    }
    (g, made)
}

fn other(s: Stone) -> Stone {
    match s {
        Stone::Black => Stone::White,
        Stone::White => Stone::Black,
        Stone::Empty => Stone::Empty,
    }
}

fn alive(s: Stone) -> Category {
    if s == Stone::Black {
        Category::AliveBlack
    } else {
        Category::AliveWhite
    }
}

fn scratch_hash(b: &Board) -> u64 {
    let mut fresh = Board::rect(b.width(), b.height()).unwrap();
    for i in b.points().collect::<Vec<_>>() {
        fresh.set(i, b.at(i));
    }
    fresh.hash()
}

fn rules_strategy() -> impl Strategy<Value = PlayRules> {
    prop_oneof![
        Just(PlayRules::COMPAT),
        Just(Preset::Japanese.rules().play),
        Just(Preset::TrompTaylor.rules().play),
        Just(Preset::Aga.rules().play),
        Just(Preset::NewZealand.rules().play),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn random_games_are_consistent(
        size in 1u8..=25,
        rules in rules_strategy(),
        tries in prop::collection::vec(prop::option::weighted(0.95, (0u8..25, 0u8..25)), 0..300),
    ) {
        let (g, made) = play_out(size, rules, &tries);
        prop_assert_eq!(g.board.hash(), scratch_hash(&g.board));
        // The same game written as SGF replays to the same position.
        let mut sgf = format!("(;SZ[{size}]");
        for (k, m) in made.iter().enumerate() {
            let c = if k % 2 == 0 { "B" } else { "W" };
            match m {
                Some(p) => sgf.push_str(&format!(";{c}[{}]", p.to_sgf())),
                None => sgf.push_str(&format!(";{c}[]")),
            }
        }
        sgf.push(')');
        let game = Game::from_text(&sgf).unwrap();
        let r = replay(&game, ReplayOptions { alternation: true, ..ReplayOptions::new(rules) });
        let r = r.unwrap();
        prop_assert_eq!(r.state.board.rows(), g.board.rows());
        prop_assert_eq!(r.state.moves as usize, made.len());
    }

    #[test]
    fn marking_invariants(
        cells in prop::collection::vec(0u8..3, 1..=49),
        width in 1u8..=7,
        picks in prop::collection::vec(0usize..49, 0..12),
        komi in -10i32..10,
    ) {
        let width = width.min(cells.len() as u8).max(1);
        let height = (cells.len() / width as usize).max(1) as u8;
        let n = width as usize * height as usize;
        let stones: Vec<Stone> = cells[..n].iter().map(|&c| match c {
            1 => Stone::Black, 2 => Stone::White, _ => Stone::Empty,
        }).collect();
        let pos = Position::from_cells(width, height, stones);
        let mut s = Scorable::cinderblock(pos.clone(), f64::from(komi));
        for &p in &picks {
            let i = p % n;
            let before = s.categories().to_vec();
            match s.transanimate(i) {
                None => prop_assert_eq!(pos.at(i), Stone::Empty),
                Some(false) => prop_assert_eq!(s.categories(), &before[..]),
                Some(true) => {}
            }
            // Stones are alive or dead, empty points are never stone categories.
            for j in 0..n {
                let c = s.category(j);
                let stone_cat = matches!(c, Category::AliveBlack | Category::AliveWhite | Category::DeadBlack | Category::DeadWhite);
                prop_assert_eq!(stone_cat, pos.at(j) != Stone::Empty);
            }
            let sc = s.scores();
            let (db, dw) = (s.count(Category::DeadBlack) as f64, s.count(Category::DeadWhite) as f64);
            prop_assert_eq!(sc.white, f64::from(komi) + s.territory(Stone::White) as f64 + db - dw);
            prop_assert_eq!(sc.black, s.territory(Stone::Black) as f64 + dw - db);
        }
        // From the initial state, killing then reviving a stone restores every category.
        let fresh = Scorable::cinderblock(pos.clone(), 0.0);
        for i in 0..n {
            let mut t = fresh.clone();
            if t.deanimate(i) == Some(true) {
                prop_assert_eq!(t.reanimate(i), Some(true));
                prop_assert_eq!(t.categories(), fresh.categories());
            }
        }
    }

    /// `score.toggle_dead` in chain mode rebuilds its session from the dead stones
    /// (`Scorable::with_dead`) at every call: a toggle must leave the state that rebuild gives,
    /// and the region of a dead chain goes to the opponent only when no living stone of the
    /// chain's colour is in it. (One colour's chains are toggled: two colours' dead chains
    /// reaching the same empty point is left to the order they are marked in.)
    #[test]
    fn chain_marking_agrees_with_the_rebuild(
        cells in prop::collection::vec(0u8..4, 1..=49),
        width in 1u8..=7,
        picks in prop::collection::vec(0usize..49, 0..12),
        white in any::<bool>(),
    ) {
        let width = width.min(cells.len() as u8).max(1);
        let height = (cells.len() / width as usize).max(1) as u8;
        let n = width as usize * height as usize;
        let stones: Vec<Stone> = cells[..n].iter().map(|&c| match c {
            1 => Stone::Black, 2 => Stone::White, _ => Stone::Empty,
        }).collect();
        let (own, known_opp) = if white {
            (Stone::White, Category::KnownBlack)
        } else {
            (Stone::Black, Category::KnownWhite)
        };
        let pos = Position::from_cells(width, height, stones);
        let mut s = Scorable::new(pos.clone(), 0.0);
        s.mode = MarkMode::Chain;
        for &p in &picks {
            let i = p % n;
            if pos.at(i) != own {
                continue;
            }
            prop_assert_eq!(s.transanimate(i), Some(true));
            let rebuilt = Scorable::with_dead(pos.clone(), 0.0, &s.dead(own));
            prop_assert_eq!(s.categories(), rebuilt.categories());
            // Conceded points: the empty points reached from a dead stone through anything
            // but the opponent's stones, when no living stone of its colour is reached.
            let mut conceded = vec![false; n];
            for d in s.dead(own) {
                let area: Vec<usize> = pos.flood(d, |t| t != other(own));
                if area.iter().all(|&j| pos.at(j) != own || s.category(j) != alive(own)) {
                    for j in area {
                        conceded[j] |= pos.at(j) == Stone::Empty;
                    }
                }
            }
            for (j, &c) in conceded.iter().enumerate() {
                prop_assert_eq!(s.category(j) == known_opp, c, "point {}", j);
            }
        }
    }
}

//! Property tests: random games of legal moves never panic, keep stone counts consistent
//! with captures and the incremental hash equal to one computed from scratch, and replay
//! through SGF to the same position; Cinderblock marking keeps its invariants.

use goswiss::go::{
    Board, Category, GameState, PlayRules, Position, Preset, ReplayOptions, Scorable, Stone, Xy,
    replay,
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
}

//! Cinderblock's own tests (t/33-scorable.t, from Games::Go::Cinderblock 0.12)
//! reproduced exactly: return values, category counts and `scores()`.

use goswiss::go::{Category, MarkMode, Position, Scorable, Stone, Xy};

fn at(s: &Scorable, row: u8, col: u8) -> usize {
    s.position().index(Xy::new(col, row)).unwrap()
}

/// (dead b, dead w, territory b, territory w, dame).
fn counts(s: &Scorable) -> (usize, usize, usize, usize, usize) {
    (
        s.count(Category::DeadBlack),
        s.count(Category::DeadWhite),
        s.territory(Stone::Black),
        s.territory(Stone::White),
        s.count(Category::Dame),
    )
}

#[test]
fn case_a_two_by_five() {
    let pos = Position::from_rows(&["0 w 0 b b", "0 w w b 0"]).unwrap();
    let mut s = Scorable::cinderblock(pos, 6.5);
    assert_eq!(counts(&s), (0, 0, 1, 2, 1));
    let p = at(&s, 0, 4);
    assert_eq!(s.transanimate(p), Some(true));
    assert_eq!(counts(&s), (3, 0, 0, 4, 0));
    let before = s.categories().to_vec();
    let p = at(&s, 1, 2);
    assert_eq!(s.deanimate(p), Some(false), "clash with known territory");
    assert_eq!(s.categories(), &before[..]);
    let p = at(&s, 1, 3);
    assert_eq!(s.reanimate(p), Some(true));
    assert_eq!(counts(&s), (0, 0, 1, 2, 1));
    let p = at(&s, 1, 2);
    assert_eq!(s.deanimate(p), Some(true));
    assert_eq!(counts(&s), (0, 3, 4, 0, 0));
    let before = s.categories().to_vec();
    let p = at(&s, 1, 3);
    assert_eq!(s.transanimate(p), Some(false));
    assert_eq!(s.categories(), &before[..]);
    let p = at(&s, 1, 2);
    assert_eq!(s.transanimate(p), Some(true));
    assert_eq!(s.node_animated(p), Some(true));
    assert_eq!(counts(&s), (0, 0, 1, 2, 1));
}

#[test]
fn case_b_three_by_three() {
    let pos = Position::from_rows(&["0 w b", "b w b", "w b 0"]).unwrap();
    let mut s = Scorable::cinderblock(pos, 6.5);
    let p = at(&s, 1, 0);
    assert_eq!(s.deanimate(p), Some(true));
    assert_eq!(s.deanimate(p), Some(false));
    assert_eq!(s.reanimate(p), Some(true));
    assert_eq!(s.reanimate(p), Some(false));
}

#[test]
fn case_c_sparse() {
    let pos = Position::from_rows(&["0 w 0", "0 0 0", "0 b 0"]).unwrap();
    let mut s = Scorable::cinderblock(pos, 6.5);
    assert_eq!(s.count(Category::Dame), 7);
    let p = at(&s, 0, 1);
    assert_eq!(s.deanimate(p), Some(true));
    assert_eq!(s.territory(Stone::Black), 7);
    let sc = s.scores();
    assert_eq!((sc.black, sc.white), (8.0, 5.5));
    assert_eq!(s.winner(), Stone::Black);
}

#[test]
fn empty_point_and_ties() {
    let pos = Position::from_rows(&["0 0", "0 0"]).unwrap();
    let mut s = Scorable::cinderblock(pos.clone(), 0.0);
    assert_eq!(s.transanimate(0), None);
    assert_eq!(s.node_animated(0), None);
    // Empty board: Cinderblock says dame, goswiss says neutral; a tie goes to White.
    assert_eq!(s.count(Category::Dame), 4);
    assert_eq!(s.winner(), Stone::White);
    assert_eq!(Scorable::new(pos, 0.0).count(Category::Neutral), 4);
}

#[test]
fn with_dead_rebuilds_the_session_state() {
    let pos = Position::from_rows(&["0 w 0 b b", "0 w w b 0"]).unwrap();
    let mut s = Scorable::cinderblock(pos.clone(), 6.5);
    let p = at(&s, 0, 4);
    s.transanimate(p);
    let dead: Vec<usize> = s.dead(Stone::Black);
    let mut rebuilt = Scorable::with_dead(pos, 6.5, &dead);
    rebuilt.compat = true;
    assert_eq!(rebuilt.categories(), s.categories());
}

#[test]
fn chain_mode_marks_one_chain() {
    // Two black chains in one white-enclosed region: region mode kills both, chain mode one.
    let rows = ["b.b..", "wwwww", ".....", ".....", "....."];
    let pos = Position::from_rows(&rows).unwrap();
    let mut region = Scorable::new(pos.clone(), 0.0);
    assert_eq!(region.deanimate(0), Some(true));
    assert_eq!(region.dead(Stone::Black), vec![0, 2]);
    let mut chain = Scorable::new(pos, 0.0);
    chain.mode = MarkMode::Chain;
    assert_eq!(chain.deanimate(0), Some(true));
    assert_eq!(chain.dead(Stone::Black), vec![0]);
    assert_eq!(chain.reanimate(0), Some(true));
    assert_eq!(chain.dead(Stone::Black), Vec::<usize>::new());
    // Reviving gives the neighbouring empty points back to the categories of a fresh session.
    assert_eq!(
        chain.categories(),
        Scorable::new(chain.position().clone(), 0.0).categories()
    );
}

#[test]
fn a_dead_chain_beside_a_living_stone_of_its_colour_concedes_nothing() {
    // Black's corner group lives with its eye at a1 (top left); a black stone in White's
    // area (f3 from the top) is dead on its own, marked chain by chain. The open lower area
    // joins the two, so the dead stone's region holds Black's living group: that region is
    // not White's, and neither is the living group's eye.
    let rows = [".b.w..", "bb.w..", "...w..", "...w.b", "...w..", "......"];
    let pos = Position::from_rows(&rows).unwrap();
    let fresh = Scorable::new(pos.clone(), 0.0);
    let stone = at(&fresh, 3, 5);
    let rebuilt = Scorable::with_dead(pos.clone(), 0.0, &[stone]);
    assert_eq!(rebuilt.category(stone), Category::DeadBlack);
    for i in (0..pos.len()).filter(|&i| i != stone) {
        assert_eq!(rebuilt.category(i), fresh.category(i), "point {i}");
    }
    assert_eq!(rebuilt.category(at(&fresh, 0, 0)), Category::DerivedBlack);
    assert_eq!(rebuilt.territory(Stone::White), 0);
    // Black: its eye, less the dead stone; White: the dead stone. (goscorer's territory
    // score of this position is the same, B 0 and W 1: tests/it/score/goscorer.rs.)
    let sc = rebuilt.scores();
    assert_eq!((sc.black, sc.white), (0.0, 1.0));
    // A chain-mode session that kills the stone is in the same state, and reviving it gives
    // the fresh one back.
    let mut s = Scorable::new(pos.clone(), 0.0);
    s.mode = MarkMode::Chain;
    assert_eq!(s.deanimate(stone), Some(true));
    assert_eq!(s.categories(), rebuilt.categories());
    assert_eq!(s.reanimate(stone), Some(true));
    assert_eq!(s.categories(), fresh.categories());

    // Once the corner group is marked dead too (a solid block here, no eye), no living
    // black stone shares the region: the dead stones concede it, in the rebuild and in the
    // session alike, and reviving the group takes it back.
    let rows = ["bb.w..", "bb.w..", "...w..", "...w.b", "...w..", "......"];
    let pos = Position::from_rows(&rows).unwrap();
    let corner = pos.index(Xy::new(0, 0)).unwrap();
    let mut s = Scorable::new(pos.clone(), 0.0);
    s.mode = MarkMode::Chain;
    assert_eq!(s.deanimate(stone), Some(true));
    assert_eq!(
        s.territory(Stone::White),
        0,
        "the corner group still shares the region"
    );
    assert_eq!(s.deanimate(corner), Some(true));
    assert_eq!(s.dead(Stone::Black).len(), 5);
    let rebuilt = Scorable::with_dead(pos.clone(), 0.0, &[corner, stone]);
    assert_eq!(s.categories(), rebuilt.categories());
    // Every empty point is White's known territory.
    assert_eq!(s.count(Category::KnownWhite), 26);
    assert_eq!(s.reanimate(corner), Some(true));
    assert_eq!(s.territory(Stone::White), 0);
    assert_eq!(
        s.categories(),
        Scorable::with_dead(pos, 0.0, &[stone]).categories()
    );
}

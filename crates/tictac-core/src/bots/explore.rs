//! Exhaustive exploration of the game tree, as a model checker would: the
//! facts of the game itself, and how a strategy fares against every
//! possible sequence of opponent moves, exploring every choice it allows.

use super::Strategy;
use crate::game::{Board, Cell, Mark};

/// How a finished game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    Won(Mark),
    Drawn,
}

fn end(board: &Board) -> Option<End> {
    [Mark::X, Mark::O]
        .into_iter()
        .find(|&m| board.has_line(m))
        .map(End::Won)
        .or_else(|| board.is_full().then_some(End::Drawn))
}

/// Counts by result: X won, O won, drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Results {
    pub x: u64,
    pub o: u64,
    pub drawn: u64,
}

impl Results {
    fn add(&mut self, e: End) {
        match e {
            End::Won(Mark::X) => self.x += 1,
            End::Won(Mark::O) => self.o += 1,
            End::Drawn => self.drawn += 1,
        }
    }

    pub fn total(&self) -> u64 {
        self.x + self.o + self.drawn
    }
}

/// The facts of tic-tac-toe from the empty board with X first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameFacts {
    /// Every complete game (sequence of moves), by result.
    pub games: Results,
    /// Distinct boards that occur, the empty one included.
    pub positions: u64,
    /// Distinct boards on which a game ends, by result.
    pub terminal: Results,
}

pub fn game_facts() -> GameFacts {
    let mut seen = vec![false; Board::CODES];
    let mut facts =
        GameFacts { games: Results::default(), positions: 0, terminal: Results::default() };
    fn walk(board: Board, mover: Mark, seen: &mut [bool], facts: &mut GameFacts) {
        let k = board.code();
        let first_visit = !seen[k];
        if first_visit {
            seen[k] = true;
            facts.positions += 1;
        }
        if let Some(e) = end(&board) {
            facts.games.add(e);
            if first_visit {
                facts.terminal.add(e);
            }
            return;
        }
        for cell in board.empty_cells() {
            let mut next = board;
            next.set(cell, mover);
            walk(next, mover.other(), seen, facts);
        }
    }
    walk(Board::default(), Mark::X, &mut seen, &mut facts);
    facts
}

/// How a strategy fared: games explored, and their results for it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub games: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

/// A strategy playing `mark` (X moves first) against every opponent move,
/// with every choice it allows; also the first lost game met, opponent moves
/// and choices tried in ascending cell order, as its moves from the start.
pub fn check(strategy: Strategy, mark: Mark) -> (Tally, Option<Vec<Cell>>) {
    struct Search {
        strategy: Strategy,
        mark: Mark,
        tally: Tally,
        path: Vec<Cell>,
        first_loss: Option<Vec<Cell>>,
    }
    impl Search {
        fn walk(&mut self, board: Board, mover: Mark) {
            if let Some(e) = end(&board) {
                self.tally.games += 1;
                match e {
                    End::Won(m) if m == self.mark => self.tally.wins += 1,
                    End::Won(_) => {
                        self.tally.losses += 1;
                        self.first_loss.get_or_insert_with(|| self.path.clone());
                    }
                    End::Drawn => self.tally.draws += 1,
                }
                return;
            }
            let moves: Vec<Cell> = if mover == self.mark {
                self.strategy.moves(&board, mover).iter().collect()
            } else {
                board.empty_cells().collect()
            };
            for cell in moves {
                let mut next = board;
                next.set(cell, mover);
                self.path.push(cell);
                self.walk(next, mover.other());
                self.path.pop();
            }
        }
    }
    let mut search =
        Search { strategy, mark, tally: Tally::default(), path: Vec::new(), first_loss: None };
    search.walk(Board::default(), Mark::X);
    (search.tally, search.first_loss)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_known_facts_of_the_game() {
        let f = game_facts();
        assert_eq!(f.games, Results { x: 131_184, o: 77_904, drawn: 46_080 });
        assert_eq!(f.games.total(), 255_168);
        assert_eq!(f.positions, 5_478);
        assert_eq!(f.terminal, Results { x: 626, o: 316, drawn: 16 });
    }

    #[test]
    fn perfect_never_loses_and_tla_never_loses_as_x() {
        for mark in [Mark::X, Mark::O] {
            let (tally, loss) = check(Strategy::Perfect, mark);
            assert_eq!((tally.losses, loss), (0, None), "perfect as {mark:?}");
            assert!(tally.games > 0);
        }
        assert_eq!(check(Strategy::Tla, Mark::X).0.losses, 0);
    }

    #[test]
    fn perfect_allows_only_its_quickest_wins() {
        // The figures of docs/guide/verify.md: fewer games than every move of equal outcome.
        let tally = |mark| check(Strategy::Perfect, mark).0;
        assert_eq!(tally(Mark::X), Tally { games: 10_640, wins: 7_056, draws: 3_584, losses: 0 });
        assert_eq!(tally(Mark::O), Tally { games: 6_112, wins: 2_528, draws: 3_584, losses: 0 });
    }

    #[test]
    fn random_explores_the_whole_tree_and_elm_loses() {
        let (tally, _) = check(Strategy::Random, Mark::X);
        assert_eq!(tally.games, 255_168);
        assert_eq!((tally.wins, tally.losses, tally.draws), (131_184, 77_904, 46_080));
        let (tally, loss) = check(Strategy::Elm, Mark::X);
        assert!(tally.losses > 0);
        let loss = loss.expect("a lost game");
        assert_eq!(loss.len() % 2, 0, "O made the last move");
    }
}

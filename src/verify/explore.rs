//! Exhaustive exploration of the game tree, as a model checker would: the
//! facts of the game itself, and how a strategy fares against every
//! possible sequence of opponent moves, exploring every choice it allows.
//! Only `tictac verify` needs it, so it lives here, above the core.

use crate::bots::Strategy;
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
pub(crate) struct Results {
    pub(crate) x: u64,
    pub(crate) o: u64,
    pub(crate) drawn: u64,
}

impl Results {
    fn add(&mut self, e: End) {
        match e {
            End::Won(Mark::X) => self.x += 1,
            End::Won(Mark::O) => self.o += 1,
            End::Drawn => self.drawn += 1,
        }
    }

    pub(crate) fn total(&self) -> u64 {
        self.x + self.o + self.drawn
    }
}

/// The facts of tic-tac-toe from the empty board with X first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GameFacts {
    /// Every complete game (sequence of moves), by result.
    pub(crate) games: Results,
    /// Distinct boards that occur, the empty one included.
    pub(crate) positions: u64,
    /// Distinct boards on which a game ends, by result.
    pub(crate) terminal: Results,
}

pub(crate) fn game_facts() -> GameFacts {
    let mut seen = vec![false; Board::CODES];
    let mut facts =
        GameFacts { games: Results::default(), positions: 0, terminal: Results::default() };
    fn walk(board: Board, mover: Mark, seen: &mut [bool], facts: &mut GameFacts) {
        let first_visit = !std::mem::replace(&mut seen[board.code()], true);
        if first_visit {
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
pub(crate) struct Tally {
    pub(crate) games: u64,
    pub(crate) wins: u64,
    pub(crate) draws: u64,
    pub(crate) losses: u64,
}

/// A strategy playing `mark` (X moves first) against every opponent move,
/// with every choice it allows; also the first lost game met, opponent moves
/// and choices tried in ascending cell order, as its moves from the start.
pub(crate) fn check(strategy: Strategy, mark: Mark) -> (Tally, Option<Vec<Cell>>) {
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

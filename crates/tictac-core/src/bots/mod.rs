//! Computer players. A strategy is a pure function of the board and the
//! mark to move, giving the set of moves it allows (a model checker explores
//! them all: `tictac verify`; a bot picks one).

mod autopilot;
mod perfect;

pub use autopilot::{Autopilot, Bot};

use crate::game::board::LINES;
use crate::game::{Board, Cell, Mark};

/// A set of cells, as nine bits (bit k is cell k + 1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cells(u16);

impl Cells {
    pub(crate) fn insert(&mut self, cell: Cell) {
        self.0 |= 1 << (cell.number() - 1);
    }

    pub(crate) fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub(crate) fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// The cells in ascending order.
    pub fn iter(self) -> impl Iterator<Item = Cell> {
        Cell::ALL.into_iter().filter(move |c| self.0 & (1 << (c.number() - 1)) != 0)
    }

    pub(crate) fn first(self) -> Option<Cell> {
        self.iter().next()
    }
}

impl FromIterator<Cell> for Cells {
    fn from_iter<I: IntoIterator<Item = Cell>>(cells: I) -> Self {
        let mut set = Cells::default();
        cells.into_iter().for_each(|c| set.insert(c));
        set
    }
}

/// The computer strategies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// The rule-based player of the TLA+ seed.
    Tla,
    /// The fixed preference list of the Elm seed.
    Elm,
    /// Every move of best game-theoretic value.
    Perfect,
    /// Any empty cell.
    Random,
}

impl Strategy {
    pub const ALL: [Strategy; 4] =
        [Strategy::Tla, Strategy::Elm, Strategy::Perfect, Strategy::Random];

    pub fn name(self) -> &'static str {
        match self {
            Strategy::Tla => "tla",
            Strategy::Elm => "elm",
            Strategy::Perfect => "perfect",
            Strategy::Random => "random",
        }
    }

    pub fn from_name(name: &str) -> Option<Strategy> {
        Strategy::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The moves this strategy allows `mover` on `board` (empty when the
    /// board is full).
    pub fn moves(self, board: &Board, mover: Mark) -> Cells {
        match self {
            Strategy::Tla => tla(board, mover),
            Strategy::Elm => elm(board),
            Strategy::Perfect => perfect::best_moves(board, mover),
            Strategy::Random => board.empty_cells().collect(),
        }
    }
}

/// The empty cells of lines holding exactly `marks` of `mark` and the rest empty.
fn lines_with(board: &Board, mark: Mark, marks: usize) -> Cells {
    let mut found = Cells::default();
    for line in LINES {
        let cells = line.map(|n| Cell::ALL[usize::from(n - 1)]);
        let mine = cells.iter().filter(|&&c| board.get(c) == Some(mark)).count();
        let empty: Vec<Cell> = cells.into_iter().filter(|&c| board.get(c).is_none()).collect();
        if mine == marks && empty.len() == 3 - marks {
            empty.into_iter().for_each(|c| found.insert(c));
        }
    }
    found
}

/// The TLA+ seed's rules, first that applies: start in a corner; complete a
/// line of two; block the opponent's two; take the centre; extend a line of
/// one; anywhere.
fn tla(board: &Board, mover: Mark) -> Cells {
    let empty: Cells = board.empty_cells().collect();
    if empty.len() == 9 {
        return [1, 3, 7, 9].into_iter().filter_map(Cell::new).collect();
    }
    let centre = Cells::from_iter(Cell::new(5).filter(|&c| board.get(c).is_none()));
    [
        lines_with(board, mover, 2),
        lines_with(board, mover.other(), 2),
        centre,
        lines_with(board, mover, 1),
    ]
    .into_iter()
    .find(|c| !c.is_empty())
    .unwrap_or(empty)
}

/// The Elm seed's preference list.
const ELM_ORDER: [u8; 9] = [5, 1, 9, 7, 3, 4, 2, 8, 6];

fn elm(board: &Board) -> Cells {
    ELM_ORDER
        .into_iter()
        .filter_map(Cell::new)
        .find(|&c| board.get(c).is_none())
        .into_iter()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(rows: &str) -> Board {
        let mut b = Board::default();
        for (k, ch) in rows.chars().filter(|c| !c.is_whitespace()).enumerate() {
            let mark = match ch {
                'X' => Mark::X,
                'O' => Mark::O,
                _ => continue,
            };
            b.set(Cell::ALL[k], mark);
        }
        b
    }

    fn numbers(c: Cells) -> Vec<u8> {
        c.iter().map(Cell::number).collect()
    }

    // Every strategy's record against every reply is pinned by `tictac
    // verify`'s figures (tests/it/bots.rs), Elm's answers by
    // acceptance/tictac/32_bot_session; perfect's choice among moves of
    // equal outcome is told here.

    #[test]
    fn perfect_wins_when_it_can_and_blocks_otherwise() {
        // Both win for O, 6 at once and 3 by a double threat: the quickest.
        assert_eq!(numbers(Strategy::Perfect.moves(&board("XX_ OO_ ___"), Mark::O)), [6]);
        assert_eq!(numbers(Strategy::Perfect.moves(&board("XX_ _O_ ___"), Mark::O)), [3]);
        // Every first move draws with best play.
        assert_eq!(Strategy::Perfect.moves(&Board::default(), Mark::X).len(), 9);
    }

    #[test]
    fn perfect_loses_as_late_as_it_can() {
        // O is lost whatever it does (X forks next), but blocking at 3 puts
        // the loss off, where any other cell loses at once.
        assert_eq!(numbers(Strategy::Perfect.moves(&board("XX_ O__ ___"), Mark::O)), [3]);
    }

    #[test]
    fn names_round_trip() {
        for s in Strategy::ALL {
            assert_eq!(Strategy::from_name(s.name()), Some(s));
        }
        assert_eq!(Strategy::from_name("genius"), None);
    }
}

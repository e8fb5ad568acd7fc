//! The 3×3 board: nine cells, each empty or holding a mark.

/// A player's mark. X always belongs to the first player of `new_game`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mark {
    X,
    O,
}

impl Mark {
    /// The opponent's mark.
    pub fn other(self) -> Mark {
        match self {
            Mark::X => Mark::O,
            Mark::O => Mark::X,
        }
    }

    /// 0 for X, 1 for O: an index into per-player arrays.
    pub fn index(self) -> usize {
        match self {
            Mark::X => 0,
            Mark::O => 1,
        }
    }

    /// The letter printed on the board.
    pub fn letter(self) -> u8 {
        match self {
            Mark::X => b'X',
            Mark::O => b'O',
        }
    }
}

/// A cell number, 1..=9, numbered row by row from the top left.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cell(u8);

impl Cell {
    /// All nine cells in ascending order.
    pub const ALL: [Cell; 9] =
        [Cell(1), Cell(2), Cell(3), Cell(4), Cell(5), Cell(6), Cell(7), Cell(8), Cell(9)];

    /// The cell with this number, if it is in 1..=9.
    pub fn new(number: u8) -> Option<Cell> {
        (1..=9).contains(&number).then_some(Cell(number))
    }

    pub fn number(self) -> u8 {
        self.0
    }

    fn slot(self) -> usize {
        usize::from(self.0 - 1)
    }
}

/// The eight lines of three: rows, columns, diagonals (cell numbers).
pub const LINES: [[u8; 3]; 8] =
    [[1, 2, 3], [4, 5, 6], [7, 8, 9], [1, 4, 7], [2, 5, 8], [3, 6, 9], [1, 5, 9], [3, 5, 7]];

/// Nine cells; plain data, cheap to copy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Board {
    cells: [Option<Mark>; 9],
}

impl Board {
    /// How many boards `code` can name: every cell empty, X or O.
    pub const CODES: usize = 19_683;

    /// The board as a number in base 3, cell 1 the most significant digit
    /// (empty 0, X 1, O 2): an index for tables of positions.
    pub fn code(&self) -> usize {
        Cell::ALL.iter().fold(0, |code, &c| {
            code * 3
                + match self.get(c) {
                    None => 0,
                    Some(Mark::X) => 1,
                    Some(Mark::O) => 2,
                }
        })
    }

    /// The board `code` names (the inverse of `code`).
    pub(crate) fn from_code(mut code: usize) -> Board {
        let mut board = Board::default();
        for &cell in Cell::ALL.iter().rev() {
            match code % 3 {
                1 => board.set(cell, Mark::X),
                2 => board.set(cell, Mark::O),
                _ => {}
            }
            code /= 3;
        }
        board
    }

    pub fn get(&self, cell: Cell) -> Option<Mark> {
        self.cells[cell.slot()]
    }

    pub fn set(&mut self, cell: Cell, mark: Mark) {
        self.cells[cell.slot()] = Some(mark);
    }

    pub fn clear(&mut self, cell: Cell) {
        self.cells[cell.slot()] = None;
    }

    pub fn is_full(&self) -> bool {
        self.cells.iter().all(Option::is_some)
    }

    /// The cells still free, in ascending order.
    pub fn empty_cells(&self) -> impl Iterator<Item = Cell> + '_ {
        Cell::ALL.into_iter().filter(|&c| self.get(c).is_none())
    }

    /// How many cells hold `mark`.
    pub fn count(&self, mark: Mark) -> usize {
        self.cells.iter().filter(|&&c| c == Some(mark)).count()
    }

    /// Whether `mark` holds all three cells of some line.
    pub fn has_line(&self, mark: Mark) -> bool {
        self.lines_of(mark).next().is_some()
    }

    /// The lines whose three cells `mark` holds.
    pub fn lines_of(&self, mark: Mark) -> impl Iterator<Item = [u8; 3]> + '_ {
        LINES
            .into_iter()
            .filter(move |line| line.iter().all(|&n| self.cells[usize::from(n - 1)] == Some(mark)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_names_the_board_that_gives_it() {
        for code in 0..Board::CODES {
            assert_eq!(Board::from_code(code).code(), code);
        }
        let mut board = Board::default();
        board.set(Cell::ALL[0], Mark::O);
        board.set(Cell::ALL[8], Mark::X);
        assert_eq!(board.code(), 2 * 3usize.pow(8) + 1);
    }
}

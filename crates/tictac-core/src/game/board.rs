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

    /// Its bit in a bitboard.
    fn bit(self) -> u16 {
        1 << (self.0 - 1)
    }
}

/// The eight lines of three: rows, columns, diagonals (cell numbers).
pub const LINES: [[u8; 3]; 8] =
    [[1, 2, 3], [4, 5, 6], [7, 8, 9], [1, 4, 7], [2, 5, 8], [3, 6, 9], [1, 5, 9], [3, 5, 7]];

/// Each line of `LINES` as a mask of `Board`'s bits.
const LINE_MASKS: [u16; 8] = [0o7, 0o70, 0o700, 0o111, 0o222, 0o444, 0o421, 0o124];

/// Nine cells, as two bitboards: bit `n - 1` of `marks[m]` is set when
/// mark `m` (`Mark::index`) holds cell `n`. Plain data, cheap to copy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Board {
    marks: [u16; 2],
}

impl Board {
    /// How many boards `code` can name: every cell empty, X or O.
    pub const CODES: usize = 19_683;

    /// The board as a number in base 3, cell 1 the most significant digit
    /// (empty 0, X 1, O 2): an index for tables of positions.
    pub fn code(&self) -> usize {
        Cell::ALL.iter().fold(0, |code, &c| code * 3 + self.get(c).map_or(0, |m| m.index() + 1))
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

    /// The bits of the cells each mark holds (bit `n - 1` for cell `n`),
    /// indexed by `Mark::index`.
    pub fn bits(&self) -> [u16; 2] {
        self.marks
    }

    pub fn get(&self, cell: Cell) -> Option<Mark> {
        let bit = cell.bit();
        if self.marks[0] & bit != 0 {
            Some(Mark::X)
        } else if self.marks[1] & bit != 0 {
            Some(Mark::O)
        } else {
            None
        }
    }

    pub fn set(&mut self, cell: Cell, mark: Mark) {
        self.marks[mark.other().index()] &= !cell.bit();
        self.marks[mark.index()] |= cell.bit();
    }

    pub fn clear(&mut self, cell: Cell) {
        self.marks = self.marks.map(|m| m & !cell.bit());
    }

    pub fn is_full(&self) -> bool {
        self.marks[0] | self.marks[1] == 0x1FF
    }

    /// The cells still free, in ascending order.
    pub fn empty_cells(&self) -> impl Iterator<Item = Cell> + '_ {
        Cell::ALL.into_iter().filter(|&c| self.get(c).is_none())
    }

    /// How many cells hold `mark`.
    pub fn count(&self, mark: Mark) -> usize {
        self.marks[mark.index()].count_ones() as usize
    }

    /// Whether `mark` holds all three cells of some line.
    pub fn has_line(&self, mark: Mark) -> bool {
        let held = self.marks[mark.index()];
        LINE_MASKS.iter().any(|&line| line & !held == 0)
    }

    /// The lines whose three cells `mark` holds.
    pub fn lines_of(&self, mark: Mark) -> impl Iterator<Item = [u8; 3]> + '_ {
        let held = self.marks[mark.index()];
        LINES.into_iter().zip(LINE_MASKS).filter(move |&(_, m)| held & m == m).map(|(line, _)| line)
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
        assert_eq!(LINES.map(|l| l.iter().fold(0, |m, n| m | 1 << (n - 1))), LINE_MASKS);
    }
}

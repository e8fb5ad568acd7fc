//! The perfect player: minimax over every position, computed once. Among
//! moves of equal outcome it keeps the quickest win and the slowest loss
//! (a win now rather than a win later, which people read as a blunder).

use std::sync::OnceLock;

use super::Cells;
use crate::game::{Board, Cell, Mark};

/// 3^9 boards, each with either mark to move (O may start a round).
const POSITIONS: usize = Board::CODES;

/// A lost position's value; each move back shrinks a win or a loss by one,
/// so a sooner win is worth more and a later loss less.
const LOST: i8 = -100;

/// The value of a position for the mark to move: positive a win (the
/// larger, the sooner), 0 a draw, negative a loss (the nearer 0, the later).
fn table() -> &'static [i8] {
    static TABLE: OnceLock<Vec<i8>> = OnceLock::new();
    TABLE.get_or_init(|| {
        // Every board, reachable or not, so any position a caller has is known.
        let mut values = vec![i8::MIN; 2 * POSITIONS];
        for code in 0..POSITIONS {
            let board = Board::from_code(code);
            value(&board, Mark::X, &mut values);
            value(&board, Mark::O, &mut values);
        }
        values
    })
}

fn index(board: &Board, mover: Mark) -> usize {
    mover.index() * POSITIONS + board.code()
}

fn value(board: &Board, mover: Mark, values: &mut [i8]) -> i8 {
    let k = index(board, mover);
    if values[k] != i8::MIN {
        return values[k];
    }
    let v = if board.has_line(mover.other()) {
        LOST
    } else if board.has_line(mover) {
        // Only on boards no game reaches: the mover has already won.
        -LOST
    } else if board.is_full() {
        0
    } else {
        let mut best = i8::MIN;
        for cell in board.empty_cells() {
            let mut next = *board;
            next.set(cell, mover);
            best = best.max(-value(&next, mover.other(), values));
        }
        // One move further from the end.
        best - best.signum()
    };
    values[k] = v;
    v
}

/// Every move that keeps the best value for `mover`: the best outcome,
/// soonest if a win, latest if a loss.
pub(crate) fn best_moves(board: &Board, mover: Mark) -> Cells {
    let values = table();
    let after = |cell: Cell| {
        let mut next = *board;
        next.set(cell, mover);
        -values[index(&next, mover.other())]
    };
    let best = board.empty_cells().map(after).max();
    board.empty_cells().filter(|&c| Some(after(c)) == best).collect()
}

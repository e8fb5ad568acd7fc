//! The behaviour catalogue: every distinct thing a `-b` run can show (each
//! message in each situation, each error precedence case, each winning line
//! by each player, each undo/redo boundary, each syntax and type error kind),
//! with an id and a one-line description. The engine reports which one each
//! command showed; the fuzzer steers by them and names divergences after them.
//! After them come the mode behaviours (windows, chunks, the shell, the
//! invocation), which `tictac test --coverage` counts too.

mod classify;

pub use classify::{kept_lines, of_command, of_rejected};

/// Declares the behaviours, in catalogue order, with their ids and texts.
macro_rules! catalogue {
    ($($variant:ident => $id:literal, $what:literal;)*) => {
        /// One behaviour of the catalogue.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum Behaviour {
            $($variant,)*
        }

        impl Behaviour {
            /// Every behaviour, in catalogue order.
            pub const ALL: &'static [Behaviour] = &[$(Behaviour::$variant,)*];

            /// The short id, e.g. `undo-error`.
            pub fn id(self) -> &'static str {
                match self {
                    $(Behaviour::$variant => $id,)*
                }
            }

            /// What it is, in one line.
            pub fn description(self) -> &'static str {
                match self {
                    $(Behaviour::$variant => $what,)*
                }
            }
        }
    };
}

catalogue! {
    InitialState => "initial-state", "the state before any command";
    NewGameFirst => "new-game-first", "new_game starts the first game";
    NewGameInPlay => "new-game-in-play", "new_game replaces a round in play";
    NewGameAfterRound => "new-game-after-round", "new_game after a finished round";
    NewGameSameNames => "new-game-same-names", "new_game with two equal names";
    NewGameSameBadNames => "new-game-same-bad-names", "equal names that start with no letter: equal comes first";
    NewGameBadFirstName => "new-game-bad-first-name", "the first name does not start with a letter";
    NewGameBadSecondName => "new-game-bad-second-name", "only the second name does not start with a letter";
    NewGameEmptyName => "new-game-empty-name", "an empty name (it starts with no letter)";
    PlayBeforeGame => "play-before-game", "play before any game: no such player";
    PlayAfterRound => "play-after-round", "play after the round ended: game is finished";
    PlayUnknownAfterRound => "play-unknown-after-round", "an unknown player after the round ended: game is finished comes first";
    PlayUnknownPlayer => "play-unknown-player", "play by a name that is neither player's";
    PlayWrongTurn => "play-wrong-turn", "play by the player not to move";
    PlayWrongTurnTaken => "play-wrong-turn-taken", "the wrong player on a taken cell: the turn comes first";
    PlayTaken => "play-taken", "play on a taken cell";
    PlayMove => "play-move", "a move that neither wins nor ties";
    WinX123 => "win-x-123", "X wins on the top row";
    WinX456 => "win-x-456", "X wins on the middle row";
    WinX789 => "win-x-789", "X wins on the bottom row";
    WinX147 => "win-x-147", "X wins on the left column";
    WinX258 => "win-x-258", "X wins on the middle column";
    WinX369 => "win-x-369", "X wins on the right column";
    WinX159 => "win-x-159", "X wins on the falling diagonal";
    WinX357 => "win-x-357", "X wins on the rising diagonal";
    WinO123 => "win-o-123", "O wins on the top row";
    WinO456 => "win-o-456", "O wins on the middle row";
    WinO789 => "win-o-789", "O wins on the bottom row";
    WinO147 => "win-o-147", "O wins on the left column";
    WinO258 => "win-o-258", "O wins on the middle column";
    WinO369 => "win-o-369", "O wins on the right column";
    WinO159 => "win-o-159", "O wins on the falling diagonal";
    WinO357 => "win-o-357", "O wins on the rising diagonal";
    WinTwoLines => "win-two-lines", "a move that completes two lines at once";
    WinFullBoard => "win-full-board", "a win with the ninth mark: a winner, not a tie";
    Tie => "tie", "the board is full without a line";
    PlayAgainBeforeGame => "play-again-before-game", "play_again before any game: nothing to finish, the message is ok";
    PlayAgainBeforeGameAfterError => "play-again-before-game-after-error", "play_again before any game after a refused command (a failed new_game, a play): ok replaces the error";
    PlayAgainInPlay => "play-again-in-play", "play_again while a round is in play";
    PlayAgainOStarts => "play-again-o-starts", "play_again after a round X started: O starts";
    PlayAgainXStarts => "play-again-x-starts", "play_again after a round O started: X starts";
    UndoBeforeGame => "undo-before-game", "undo before any game: only the message, ok";
    UndoAfterRound => "undo-after-round", "undo after the round ended: nothing changes, the win or tie message stays";
    UndoAfterRoundError => "undo-after-round-error", "undo after a command refused once the round ended (game is finished, a failed new_game): its error stays";
    UndoAtStart => "undo-at-start", "undo with nothing left to undo in the round";
    UndoMove => "undo-move", "undo takes back a move";
    UndoError => "undo-error", "undo takes back a failed command: its message before comes back";
    RedoBeforeGame => "redo-before-game", "redo before any game: only the message, ok";
    RedoAfterRound => "redo-after-round", "redo after the round ended: nothing changes, the win or tie message stays";
    RedoAfterRoundError => "redo-after-round-error", "redo after a command refused once the round ended (game is finished, a failed new_game): its error stays";
    RedoNothing => "redo-nothing", "redo with nothing undone (or a new command dropped it)";
    RedoMove => "redo-move", "redo plays an undone move again";
    RedoError => "redo-error", "redo runs an undone failed command again";
    SyntaxParse => "syntax-parse", "a token that does not fit: parse error";
    SyntaxEndOfInput => "syntax-end-of-input", "the trace ends inside an event: parse error past the end";
    SyntaxUnterminatedString => "syntax-unterminated-string", "a string with no closing quote: parse error at the quote";
    SyntaxReservedWord => "syntax-reserved-word", "a reserved word or boolean where a name or argument should be";
    SyntaxUnknownIdentifier => "syntax-unknown-identifier", "a bare identifier as an argument";
    SyntaxInvalidNumber => "syntax-invalid-number", "play's button is no 64-bit integer";
    SyntaxColumnMultibyte => "syntax-column-multibyte", "a syntax error after a multi-byte UTF-8 character on its line (`é`, `李`, a zero-width space): its column counts bytes";
    SyntaxColumnTab => "syntax-column-tab", "a syntax error after a tab on its line: its column counts the tab as one";
    TypeUnknownEvent => "type-unknown-event", "an event that is not declared";
    TypeArgumentType => "type-argument-type", "an argument of the wrong type";
    TypeButtonRange => "type-button-range", "play with a whole button outside 1..9";
    TypeArity => "type-arity", "new_game or play with the wrong number of arguments";
    TypeArgumentsOnBare => "type-arguments-on-bare", "arguments to play_again, undo or redo (the ETF oracle crashes)";
    // The mode behaviours: what only a `-w`, `-l`, `-b IN OUT` or `-i` run,
    // or an invocation, shows (SPEC sections 5 and 6). `LAST_BATCH` above them.
    WindowInside => "window-inside", "a window after line 1: the state before line M, then lines M to N-1";
    WindowFromStart => "window-from-start", "a window from line 1: the initial state before the first line that runs";
    WindowFirstLineFails => "window-first-line-fails", "a window from line 1 whose first line fails: its message before the initial state";
    WindowAllFail => "window-all-fail", "a window from line 1 in which every line fails: only their messages";
    WindowLineFails => "window-line-fails", "a line in the window fails: its message in its place, the run goes on";
    WindowErrorBefore => "window-error-before", "a line before the window fails: nothing of it shows";
    WindowSeveralBefore => "window-several-before", "line M-1 holds several commands: the true state before line M";
    WindowEndOpen => "window-end-open", "`_` as the end: through the last line";
    WindowStartRelative => "window-start-relative", "a start <= 0 counts from the end";
    WindowEndRelative => "window-end-relative", "an end <= 0 counts from the end";
    WindowPlusSign => "window-plus-sign", "a start or end written with a `+`";
    WindowStartBelowOne => "window-start-below-one", "a start that counts to before line 1 counts as 1";
    WindowEndPastEnd => "window-end-past-end", "a window that starts within the trace and ends past its last line: through the last line";
    WindowEmpty => "window-empty", "M = N within the trace: only the state before line M";
    WindowFinalState => "window-final-state", "M = N = K + 1: only the final state";
    WindowEndsBeforeStart => "window-ends-before-start", "an end that falls before the start once counted: only the state before line M";
    WindowPastTheEnd => "window-past-the-end", "a window that starts past the last line (but M = N = K + 1): nothing at all";
    WindowEmptyTrace => "window-empty-trace", "a window on a trace with no kept lines: nothing at all";
    WindowLast => "window-last", "-l: the last line with the state before it";
    WindowOutFile => "window-out-file", "-w or -l into a new file OUT";
    WindowBadStart => "window-bad-start", "the start of the window is not a valid integer";
    WindowBadEnd => "window-bad-end", "the end of the window is neither a valid integer nor `_`";
    WindowStartAfterEnd => "window-start-after-end", "a window whose start is after its end";
    WindowNonPositiveStart => "window-non-positive-start", "a start <= 0 with an end > 0";
    ChunksOne => "chunks-one", "-b IN OUT with up to 100 kept lines: one chunk, then the empty last one";
    ChunksSeveral => "chunks-several", "-b IN OUT past 100 kept lines: chunks of 100, the game carries over";
    ChunksFirstFails => "chunks-first-fails", "the first chunk fails: its message, then the initial state before the next that runs";
    ChunksLaterFails => "chunks-later-fails", "a later chunk fails: its message in its place, lines counted in the chunk";
    ChunksAllFail => "chunks-all-fail", "every chunk fails: their messages, then the initial state";
    ChunksEmpty => "chunks-empty", "-b IN OUT on a trace with no kept lines: only the initial state";
    ShellLine => "shell-line", "a shell line of commands: they run, the final state prints without an echo";
    ShellError => "shell-error", "a shell line with an error: its message, nothing runs, the session goes on";
    ShellEmptyLine => "shell-empty-line", "an empty, blank or comment shell line: the state again";
    ShellMan => "shell-man", "`man`: the declarations";
    ShellQuit => "shell-quit", "`quit` ends the session; later lines are not read";
    ShellQuitNotAlone => "shell-quit-not-alone", "`quit` or `man` with more on the line: a trace of its own";
    ShellEndOfInput => "shell-end-of-input", "the input ends without `quit`: the session ends, nothing more prints";
    ShellCrLf => "shell-crlf", "a shell line ending in CR LF: the CR is dropped";
    ShellLastLineOpen => "shell-last-line-open", "a last shell line without a newline still counts";
    InvocationNoMode => "invocation-no-mode", "no arguments: a mode is not specified";
    InvocationBadMode => "invocation-bad-mode", "a first argument that is not a mode";
    InvocationArgumentCount => "invocation-argument-count", "a mode with the wrong number of arguments";
    InputMissing => "input-missing", "IN does not exist";
    InputUnreadable => "input-unreadable", "IN cannot be read (a folder, say)";
}

impl Behaviour {
    /// The behaviour with this id.
    pub fn from_id(id: &str) -> Option<Behaviour> {
        Behaviour::ALL.iter().copied().find(|b| b.id() == id)
    }

    /// Where the ETF oracle itself does something else on purpose (SPEC:
    /// it crashes on wrong arities); left out when fuzzing against it.
    pub fn departs_from_etf(self) -> bool {
        matches!(self, Behaviour::TypeArity | Behaviour::TypeArgumentsOnBare)
    }

    /// The last behaviour a `-b IN` run can show; every one after it needs
    /// another mode (windows, chunks, the shell) or an invocation.
    pub(crate) const LAST_BATCH: Behaviour = Behaviour::TypeArgumentsOnBare;

    /// Whether a `-b IN` run can show it: the fuzzer steers by and counts
    /// only these; `tictac test --coverage` counts them all.
    pub fn in_batch(self) -> bool {
        self <= Behaviour::LAST_BATCH
    }

    fn bit(self) -> u128 {
        1 << (self as u8)
    }
}

// Every behaviour has its bit in a `Coverage`.
const _: () = assert!(Behaviour::ALL.len() <= 128);

/// A set of behaviours (a bitset: cheap enough for the batch hot path).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Coverage(u128);

impl Coverage {
    pub fn insert(&mut self, b: Behaviour) {
        self.0 |= b.bit();
    }

    pub fn contains(&self, b: Behaviour) -> bool {
        self.0 & b.bit() != 0
    }

    pub fn union(self, other: Coverage) -> Coverage {
        Coverage(self.0 | other.0)
    }

    pub fn len(&self) -> usize {
        self.0.count_ones() as usize
    }

    pub fn is_empty(&self) -> bool {
        self.0 == 0
    }

    /// The behaviours in the set, in catalogue order.
    pub fn iter(self) -> impl Iterator<Item = Behaviour> {
        Behaviour::ALL.iter().copied().filter(move |b| self.contains(*b))
    }

    /// The raw bits, e.g. to share between threads in an atomic.
    pub fn bits(self) -> u128 {
        self.0
    }

    pub fn from_bits(bits: u128) -> Coverage {
        Coverage(bits & Coverage::all().0)
    }

    /// The behaviours a `-b IN` run can show.
    pub fn batch() -> Coverage {
        Behaviour::ALL.iter().copied().filter(|b| b.in_batch()).collect()
    }

    /// The behaviours in both sets.
    pub fn intersection(self, other: Coverage) -> Coverage {
        Coverage(self.0 & other.0)
    }

    /// The behaviours in this set and not in `other`.
    pub fn difference(self, other: Coverage) -> Coverage {
        Coverage(self.0 & !other.0)
    }

    /// Every behaviour of the catalogue.
    pub(crate) fn all() -> Coverage {
        Behaviour::ALL.iter().fold(Coverage::default(), |mut c, b| {
            c.insert(*b);
            c
        })
    }
}

impl FromIterator<Behaviour> for Coverage {
    fn from_iter<I: IntoIterator<Item = Behaviour>>(iter: I) -> Self {
        let mut c = Coverage::default();
        iter.into_iter().for_each(|b| c.insert(b));
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn ids_are_unique_kebab_case_and_found_again() {
        let ids: HashSet<_> = Behaviour::ALL.iter().map(|b| b.id()).collect();
        assert_eq!(ids.len(), Behaviour::ALL.len());
        for b in Behaviour::ALL {
            assert!(
                b.id().bytes().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
            );
            assert!(!b.description().is_empty());
            assert_eq!(Behaviour::from_id(b.id()), Some(*b));
        }
        assert_eq!(Behaviour::from_id("no-such"), None);
    }

    #[test]
    fn coverage_is_a_set() {
        let mut c = Coverage::default();
        assert!(c.is_empty());
        c.insert(Behaviour::Tie);
        c.insert(Behaviour::Tie);
        c.insert(Behaviour::InitialState);
        assert_eq!(c.len(), 2);
        assert!(c.contains(Behaviour::Tie) && !c.contains(Behaviour::UndoMove));
        assert_eq!(c.iter().collect::<Vec<_>>(), [Behaviour::InitialState, Behaviour::Tie]);
        assert_eq!(Coverage::all().len(), Behaviour::ALL.len());
        assert_eq!(Coverage::from_bits(c.bits()), c);
        let u = c.union([Behaviour::UndoMove].into_iter().collect());
        assert_eq!(u.len(), 3);
        assert_eq!(
            u.intersection([Behaviour::Tie, Behaviour::ShellMan].into_iter().collect()).len(),
            1
        );
    }

    #[test]
    fn the_batch_behaviours_come_first() {
        let batch = Coverage::batch();
        assert_eq!(batch.len(), Behaviour::LAST_BATCH as usize + 1);
        assert!(batch.contains(Behaviour::InitialState) && batch.contains(Behaviour::TypeArity));
        assert!(!batch.contains(Behaviour::WindowInside) && !batch.contains(Behaviour::ShellQuit));
        assert!(Behaviour::ALL.iter().all(|b| b.in_batch() == batch.contains(*b)));
    }
}

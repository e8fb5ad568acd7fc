//! Traces generated from the language and from the game: mostly valid games
//! (players who exist, free cells, the right turn) aiming at a line, a tie or
//! a special win, with a controlled rate of each kind of game error, undo and
//! redo chains, rounds and new games; now and then one syntax error or a few
//! type errors; numbers in every written form, comments, blank lines,
//! several events on a line, strings and events across lines; and the bytes
//! students' scanners get wrong: multi-byte UTF-8 in names, strings and
//! comments (also on the line of a wrong event, before its error), tabs,
//! carriage returns, zero-width and other invisible characters, line
//! separators and control characters in comments; and bytes that are not
//! UTF-8 (a Latin-1 `é`, `\xFF`, a lone continuation byte, a cut or
//! overlong character, an encoded surrogate), a byte order mark in the
//! middle and NUL, in names and comments and as stray bytes the trace is
//! rejected at: a program that reads its input as text (a Java or Python
//! string) changes or refuses them. Generation steers toward behaviours
//! not yet covered.

use fastrand::Rng;

use super::expect::Expected;
use super::trace::{Item, Trace, replaced};
use crate::behaviour::{Behaviour, Coverage};
use crate::engine::Engine;
use crate::game::board::LINES;
use crate::game::{Cell, Mark, Message, Phase};
use crate::lang;

/// What the generator may produce.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Settings {
    /// The usual bound on a trace's events (each on at most one line).
    pub(crate) max_lines: usize,
    /// Behaviours never to generate.
    pub(crate) exclude: Coverage,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { max_lines: 60, exclude: Coverage::default() }
    }
}

/// Candidates drawn per trace while some behaviour is still to reach; the
/// one that reaches most of them is kept. Once all are reached one is
/// drawn: each candidate costs a generation and an engine run, a fifth of
/// the cost of running the engine as a program (measured), so four would
/// slow a session by a quarter for nothing to steer toward.
const CANDIDATES: usize = 4;

/// The random source of run number `run` of a fuzz session.
pub(crate) fn rng_for(seed: u64, run: u64) -> Rng {
    Rng::with_seed(seed ^ run.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// A trace, its expected run, steered toward `uncovered`.
pub(crate) fn generate(
    rng: &mut Rng,
    settings: &Settings,
    uncovered: Coverage,
) -> (Trace, Expected) {
    let mut best: Option<(usize, Trace, Expected)> = None;
    let wanted = uncovered.difference(settings.exclude);
    let candidates = if wanted.is_empty() { 1 } else { CANDIDATES };
    for k in 0..candidates {
        let errors = k % 2 == 0;
        let (trace, expected) = candidate(rng, settings, uncovered, errors);
        let score = expected.coverage.iter().filter(|b| uncovered.contains(*b)).count();
        if best.as_ref().is_none_or(|(s, _, _)| score > *s) {
            best = Some((score, trace, expected));
        }
    }
    let (_, trace, expected) = best.unwrap_or_else(|| {
        let t = Trace::default();
        let e = Expected::of(b"");
        (0, t, e)
    });
    (trace, expected)
}

/// One trace without excluded behaviours: a game trace is cut before the
/// first command that shows one; a rejected one is drawn again without errors.
fn candidate(
    rng: &mut Rng,
    settings: &Settings,
    uncovered: Coverage,
    errors: bool,
) -> (Trace, Expected) {
    let mut trace = Builder::new(rng, settings, uncovered).build(errors);
    let mut expected = Expected::of(&trace.text());
    if expected.coverage.iter().any(|b| settings.exclude.contains(b)) {
        if expected.status != 0 {
            trace = Builder::new(rng, settings, uncovered).build(false);
            expected = Expected::of(&trace.text());
        }
        if let Some(k) = expected.steps.iter().position(|(_, b)| settings.exclude.contains(*b)) {
            trace.items.truncate(k.saturating_sub(1));
            expected = Expected::of(&trace.text());
        }
    }
    (trace, expected)
}

/// Valid names, the usual ones first; then names of the bytes students'
/// programs get wrong: an escaped quote, a newline, multi-byte UTF-8 (two,
/// three and four bytes), a tab, a carriage return, a no-break and a
/// zero-width space.
const NAMES: [&[u8]; 18] = [
    b"Ann",
    b"Bob",
    b"Cy",
    b"Dee",
    b"x",
    b"Zed9",
    b"A b",
    b"Al_1",
    b"Jo\\\"e",
    b"Mo\nna",
    b"Ann2",
    b"ann",
    "Zoë".as_bytes(),
    "Li李".as_bytes(),
    "Ro🎲".as_bytes(),
    b"Ta\tb",
    b"Cr\rlf",
    "Nb\u{a0}\u{200b}sp".as_bytes(),
];

/// Valid names a string decoder changes or refuses (SPEC §1: a name is the
/// raw bytes between its quotes, echoed as they are): Latin-1, a byte never
/// in UTF-8, a lone continuation byte, a character cut short, an overlong
/// `/`, an encoded surrogate, a byte order mark in the middle, NUL.
const RAW_NAMES: [&[u8]; 8] = [
    b"Ren\xe9e",
    b"Ff\xff",
    b"Lo\x80ne",
    b"Cut\xc3",
    b"Ov\xc0\xafer",
    b"Su\xed\xa0\x80r",
    b"Bo\xef\xbb\xbfm",
    b"Nu\x00l",
];

/// One name in this many (of a new game, of an unknown player) is one of
/// `RAW_NAMES`.
const RAW_NAME_ONE_IN: u32 = 12;

/// Names that start with no letter (`É` is a letter, but not A-Z or a-z;
/// U+FEFF is a byte order mark; `\xC9` is `É` in Latin-1).
const BAD_NAMES: [&[u8]; 9] = [
    b"",
    b"1x",
    b"_a",
    b" Ann",
    b"-",
    b"9",
    "Émile".as_bytes(),
    "\u{feff}Ann".as_bytes(),
    b"\xc9mile",
];

/// Names put before a wrong event's error on its line: multi-byte ones,
/// and one in Latin-1 (one byte, which a decoder makes three or refuses).
const WIDE: [&[u8]; 6] = [
    "Zoë".as_bytes(),
    "Łukasz".as_bytes(),
    "李雷".as_bytes(),
    "Ro🎲".as_bytes(),
    "Ren\u{e9}e\u{200b}".as_bytes(),
    b"Ren\xe9e",
];

/// Comments holding bytes that are not UTF-8: Latin-1, a byte never in
/// UTF-8, a lone continuation byte, an overlong `/`, an encoded surrogate,
/// a byte order mark, a character cut short.
const RAW_COMMENTS: [&[u8]; 2] = [
    b" -- caf\xe9 \xff\xfe \x80 \xc0\xaf\n",
    b"\n-- \xed\xa0\x80 a surrogate, a byte order mark \xef\xbb\xbf, cut \xe6\x9d\n",
];

/// One separator in this many is such a comment: with the names and the
/// stray bytes, about one trace in four holds bytes that are not UTF-8 (113
/// of 400), so a program that cannot read them still shows its other
/// faults on the rest.
const RAW_COMMENT_ONE_IN: u32 = 200;

/// Wrong events, by the behaviour they show.
const SYNTAX: [(Behaviour, &[&[u8]]); 4] = [
    (
        Behaviour::SyntaxParse,
        &[
            b"undo ( )",
            b"play(\"Ann\" 1)",
            b"play(\"Ann\",,1)",
            b"play(\"Ann\", 1))",
            b"new_game(\"Ann\" \"Bob\")",
            b"play(< 1 >, 1)",
            b"play(<<1>, 1)",
            b"play(\"Ann\", -)",
            b"undo\x0c",
            b")",
            // Stray bytes no event may hold: not UTF-8, a byte order mark
            // in the middle, NUL.
            b"undo \xff",
            b"play(\"Ann\",\xe9 1)",
            b"undo\x80",
            b"\xef\xbb\xbfundo",
            b"redo \x00",
        ],
    ),
    (
        Behaviour::SyntaxReservedWord,
        &[
            b"play(INT, 1)",
            b"new_game(STRING, \"Bob\")",
            b"TRUE",
            b"system",
            b"play(\"Ann\", REAL)",
        ],
    ),
    (
        Behaviour::SyntaxUnknownIdentifier,
        &[b"play(Ann, 1)", b"new_game(\"Ann\", Bob)", b"play(\"Ann\", [x])", b"undo(y)"],
    ),
    (
        Behaviour::SyntaxInvalidNumber,
        &[
            b"play(\"Ann\", 1.5)",
            b"play(\"Ann\", 99999999999999999999)",
            b"play(\"Ann\", -0.25)",
            b"play(\"Ann\", - 00012345678901234567890.10)",
        ],
    ),
];

/// Wrong events that only fit at the end of a trace.
const SYNTAX_AT_END: [(Behaviour, &[&[u8]]); 2] = [
    (
        Behaviour::SyntaxEndOfInput,
        &[b"play(\"Ann\", 1", b"new_game(\"Ann\",", b"play(", b"undo(<<"],
    ),
    (Behaviour::SyntaxUnterminatedString, &[b"play(\"Ann, 1)", b"new_game(\"Ann\", \"Bob)"]),
];

const TYPE: [(Behaviour, &[&[u8]]); 5] = [
    (Behaviour::TypeUnknownEvent, &[b"jump", b"Undo", b"play2(\"Ann\", 1)", b"quit", b"new_game2"]),
    (
        Behaviour::TypeArgumentsOnBare,
        &[b"undo(1)", b"redo(\"x\")", b"play_again(1, 2)", b"undo([])"],
    ),
    (
        Behaviour::TypeArity,
        &[b"play(\"Ann\")", b"play(\"Ann\", 1, 2)", b"new_game(\"Ann\")", b"play", b"new_game"],
    ),
    (
        Behaviour::TypeArgumentType,
        &[
            b"play(1, 1)",
            b"play(\"Ann\", \"5\")",
            b"new_game(\"Ann\", 'c')",
            b"new_game(\"Ann\", true)",
            b"play(\"Ann\", [1])",
            b"play(\"Ann\", <<>>)",
            b"new_game(1.5, \"Bob\")",
            b"new_game(\"Ann\", '\xff')",
        ],
    ),
    (
        Behaviour::TypeButtonRange,
        &[b"play(\"Ann\", 0)", b"play(\"Ann\", 10)", b"play(\"Ann\", -3)", b"play(\"Ann\", 10.0)"],
    ),
];

/// Move orders (from the start of a round) for the endings a random game
/// rarely reaches, each shown under any symmetry of the board.
const SEQUENCES: [&[u8]; 3] = [
    &[1, 2, 3, 5, 4, 6, 8, 7, 9], // a tie
    &[1, 2, 3, 4, 7, 6, 9, 8, 5], // a win on two lines
    &[1, 3, 2, 4, 6, 7, 9, 8, 5], // a win with the ninth mark
];

/// The eight symmetries of the board, as cell maps.
const SYMMETRIES: [[u8; 9]; 8] = [
    [1, 2, 3, 4, 5, 6, 7, 8, 9],
    [7, 4, 1, 8, 5, 2, 9, 6, 3],
    [9, 8, 7, 6, 5, 4, 3, 2, 1],
    [3, 6, 9, 2, 5, 8, 1, 4, 7],
    [3, 2, 1, 6, 5, 4, 9, 8, 7],
    [7, 8, 9, 4, 5, 6, 1, 2, 3],
    [1, 4, 7, 2, 5, 8, 3, 6, 9],
    [9, 6, 3, 8, 5, 2, 7, 4, 1],
];

/// What the moves of a round aim at.
enum Plan {
    Anything,
    Line { mark: Mark, line: [u8; 3] },
    Sequence(Vec<u8>),
}

/// Builds one trace while playing it on an engine of its own.
struct Builder<'r> {
    rng: &'r mut Rng,
    settings: &'r Settings,
    uncovered: Coverage,
    engine: Engine,
    plan: Plan,
    items: Vec<Item>,
}

impl<'r> Builder<'r> {
    fn new(rng: &'r mut Rng, settings: &'r Settings, uncovered: Coverage) -> Self {
        Builder {
            rng,
            settings,
            uncovered,
            engine: Engine::new(),
            plan: Plan::Anything,
            items: Vec::new(),
        }
    }

    fn wants(&self, b: Behaviour) -> bool {
        self.uncovered.contains(b) && !self.settings.exclude.contains(b)
    }

    fn allowed(&self, b: Behaviour) -> bool {
        !self.settings.exclude.contains(b)
    }

    fn build(mut self, errors: bool) -> Trace {
        let max = self.settings.max_lines.max(1);
        // Now and then a much longer trace.
        let length = if self.rng.u32(0..40) == 0 {
            self.rng.usize(max..=max * 5)
        } else {
            self.rng.usize(1..=max)
        };
        while self.items.len() < length {
            self.act();
        }
        self.items.truncate(length);
        if errors {
            self.add_errors();
        }
        Trace { items: self.items }
    }

    /// Adds an event: runs it on the builder's engine when it is valid.
    fn push(&mut self, text: impl Into<Vec<u8>>) {
        let text = text.into();
        if let Ok(commands) = lang::check(&text) {
            for c in &commands {
                self.engine.run(c);
                if matches!(
                    self.engine.last(),
                    Behaviour::NewGameFirst
                        | Behaviour::NewGameInPlay
                        | Behaviour::NewGameAfterRound
                        | Behaviour::PlayAgainOStarts
                        | Behaviour::PlayAgainXStarts
                ) {
                    self.plan = self.new_plan();
                }
            }
        }
        let sep = self.separator();
        self.items.push(Item::new(text, sep));
    }

    fn separator(&mut self) -> Vec<u8> {
        let choices: [(u32, &[u8]); 16] = [
            (60, b"\n"),
            (10, b" "),
            (3, b"  "),
            (2, b"\t"),
            (5, b"\r\n"),
            (5, b" -- a comment\n"),
            (4, b"\n\n"),
            (4, b"\n-- a comment line\n"),
            (2, b"\n  \t\n"),
            (1, b" ? "),
            (1, b"\n   -- indented comment\n"),
            (2, " -- café, 李, 🎲\n".as_bytes()),
            (1, b"\r"),
            (1, b"\t\r\n"),
            (1, "\n-- a line\u{2028}separator, a next line\u{85}in a comment\n".as_bytes()),
            (1, b"\n--\x0b\x0c\x00\x1b control characters in a comment\n"),
        ];
        if self.rng.u32(0..RAW_COMMENT_ONE_IN) == 0 {
            return RAW_COMMENTS[self.rng.usize(0..RAW_COMMENTS.len())].to_vec();
        }
        pick_weighted(self.rng, &choices).to_vec()
    }

    /// One step of the game (one event, or an undo/redo chain).
    fn act(&mut self) {
        let state = self.engine.game().state;
        let (x, o) = (self.name(Mark::X), self.name(Mark::O));
        let boost = |wanted: bool, w: u32| if wanted { w * 4 } else { w };
        match state.phase {
            Phase::NoGame => {
                // play_again answers ok before any game; after a refused
                // command it is another behaviour, so steer to the error first.
                let refused = state.message != Message::Ok;
                let after_error = self.wants(Behaviour::PlayAgainBeforeGameAfterError);
                let play_again = if refused {
                    Behaviour::PlayAgainBeforeGameAfterError
                } else {
                    Behaviour::PlayAgainBeforeGame
                };
                let choices = [
                    (60, 0),
                    (
                        boost(
                            self.wants(Behaviour::NewGameSameNames) || (after_error && !refused),
                            10,
                        ),
                        1,
                    ),
                    (boost(self.wants(Behaviour::PlayBeforeGame), 6), 2),
                    (boost(self.wants(play_again), 4), 3),
                    (boost(self.wants(Behaviour::UndoBeforeGame), 4), 4),
                    (boost(self.wants(Behaviour::RedoBeforeGame), 4), 5),
                ];
                match pick_weighted(self.rng, &choices) {
                    0 => self.new_game(),
                    1 => self.bad_new_game(),
                    2 => {
                        let who = self.any_name();
                        let cell = self.rng.u8(1..=9);
                        self.play(&who, cell)
                    }
                    3 => self.push("play_again"),
                    4 => self.push("undo"),
                    _ => self.push("redo"),
                }
            }
            Phase::InPlay => {
                let next = self.name(state.next);
                let other = self.name(state.next.other());
                let choices = [
                    (60, 0),
                    (boost(self.wants(Behaviour::PlayWrongTurn), 6), 1),
                    (boost(self.wants(Behaviour::PlayTaken), 6), 2),
                    (boost(self.wants(Behaviour::PlayUnknownPlayer), 3), 3),
                    (boost(self.wants(Behaviour::UndoMove), 10), 4),
                    (boost(self.wants(Behaviour::RedoNothing), 4), 5),
                    (boost(self.wants(Behaviour::NewGameInPlay), 2), 6),
                    (boost(self.wants(Behaviour::NewGameBadFirstName), 3), 7),
                    (boost(self.wants(Behaviour::PlayAgainInPlay), 3), 8),
                    (boost(self.wants(Behaviour::PlayWrongTurnTaken), 2), 9),
                ];
                match pick_weighted(self.rng, &choices) {
                    0 => {
                        let cell = self.planned_cell();
                        self.play(&next, cell)
                    }
                    1 => {
                        let cell = self.free_cell().unwrap_or(5);
                        self.play(&other, cell)
                    }
                    2 => {
                        let cell = self.taken_cell().unwrap_or(5);
                        self.play(&next, cell)
                    }
                    3 => {
                        let who = self.unknown_name(&x, &o);
                        let cell = self.rng.u8(1..=9);
                        self.play(&who, cell)
                    }
                    4 => self.undo_chain(),
                    5 => self.push("redo"),
                    6 => self.new_game(),
                    7 => self.bad_new_game(),
                    8 => self.push("play_again"),
                    _ => {
                        let cell = self.taken_cell().unwrap_or(5);
                        self.play(&other, cell)
                    }
                }
            }
            Phase::Over => {
                // undo and redo keep the message a finished round shows: the
                // win or tie, or the error of a command refused after it.
                let refused = !matches!(state.message, Message::Winner | Message::Tie);
                let (undo, redo) = if refused {
                    (Behaviour::UndoAfterRoundError, Behaviour::RedoAfterRoundError)
                } else {
                    (Behaviour::UndoAfterRound, Behaviour::RedoAfterRound)
                };
                let after_error = self.wants(Behaviour::UndoAfterRoundError)
                    || self.wants(Behaviour::RedoAfterRoundError);
                let choices = [
                    (40, 0),
                    (boost(self.wants(Behaviour::NewGameAfterRound), 12), 1),
                    (
                        boost(
                            self.wants(Behaviour::PlayAfterRound) || (after_error && !refused),
                            8,
                        ),
                        2,
                    ),
                    (boost(self.wants(Behaviour::PlayUnknownAfterRound), 3), 3),
                    (boost(self.wants(undo), 5), 4),
                    (boost(self.wants(redo), 5), 5),
                    (4, 6),
                ];
                match pick_weighted(self.rng, &choices) {
                    0 => self.push("play_again"),
                    1 => self.new_game(),
                    2 => {
                        let who = if self.rng.bool() { x } else { o };
                        let cell = self.rng.u8(1..=9);
                        self.play(&who, cell)
                    }
                    3 => {
                        let who = self.unknown_name(&x, &o);
                        let cell = self.rng.u8(1..=9);
                        self.play(&who, cell)
                    }
                    4 => self.push("undo"),
                    5 => self.push("redo"),
                    _ => self.bad_new_game(),
                }
            }
        }
    }

    fn name(&self, mark: Mark) -> Vec<u8> {
        self.engine.game().name(mark).to_vec()
    }

    fn any_name(&mut self) -> Vec<u8> {
        NAMES[self.rng.usize(0..4)].to_vec()
    }

    fn unknown_name(&mut self, x: &[u8], o: &[u8]) -> Vec<u8> {
        let raw: &[&[u8]] = if self.rng.u32(0..RAW_NAME_ONE_IN) == 0 { &RAW_NAMES } else { &[] };
        let candidates: Vec<&[u8]> = NAMES
            .iter()
            .chain(&BAD_NAMES)
            .chain(raw)
            .copied()
            .filter(|n| *n != x && *n != o)
            .collect();
        candidates[self.rng.usize(0..candidates.len())].to_vec()
    }

    fn new_game(&mut self) {
        let pool = if self.rng.u32(0..5) == 0 { NAMES.len() } else { 4 };
        let a = self.rng.usize(0..pool);
        let mut b = self.rng.usize(0..pool - 1);
        if b >= a {
            b += 1;
        }
        let (mut a, mut b) = (NAMES[a], NAMES[b]);
        if self.rng.u32(0..RAW_NAME_ONE_IN) == 0 {
            let raw = RAW_NAMES[self.rng.usize(0..RAW_NAMES.len())];
            if self.rng.bool() { a = raw } else { b = raw }
        }
        let text = self.event2("new_game", quote(a), quote(b));
        self.push(text);
    }

    fn bad_new_game(&mut self) {
        let good = NAMES[self.rng.usize(0..4)];
        let bad = BAD_NAMES[self.rng.usize(0..BAD_NAMES.len())];
        let (a, b) = match self.rng.u32(0..4) {
            0 => (good, good),
            1 => (bad, bad),
            2 => (bad, good),
            _ => (good, bad),
        };
        let text = self.event2("new_game", quote(a), quote(b));
        self.push(text);
    }

    fn play(&mut self, who: &[u8], cell: u8) {
        let button = self.button(cell);
        let text = self.event2("play", quote(who), button);
        self.push(text);
    }

    /// An event with two arguments, in one of the ways it may be written.
    fn event2(&mut self, name: &str, a: Vec<u8>, b: Vec<u8>) -> Vec<u8> {
        let (open, comma, close): (&[u8], &[u8], &[u8]) = match self.rng.u32(0..20) {
            0..=11 => (b"(", b",", b")"),
            12..=16 => (b"(", b", ", b")"),
            17 => (b" ( ", b" , ", b" )"),
            18 => (b"(\t", b",\n", b")"),
            _ => (b"(", b" ,", b"  )"),
        };
        [name.as_bytes(), open, &a, comma, &b, close].concat()
    }

    /// A button in one of its written forms.
    fn button(&mut self, n: u8) -> Vec<u8> {
        let written = match self.rng.u32(0..12) {
            0..=6 => n.to_string(),
            7 => format!("0{n}"),
            8 => format!("{n}.0"),
            9 => format!("00{n}.000"),
            10 => format!("{n}.00"),
            _ => format!("000{n}"),
        };
        written.into_bytes()
    }

    fn free_cell(&mut self) -> Option<u8> {
        let free: Vec<u8> =
            self.engine.game().state.board.empty_cells().map(Cell::number).collect();
        (!free.is_empty()).then(|| free[self.rng.usize(0..free.len())])
    }

    fn taken_cell(&mut self) -> Option<u8> {
        let board = self.engine.game().state.board;
        let taken: Vec<u8> =
            Cell::ALL.iter().filter(|c| board.get(**c).is_some()).map(|c| c.number()).collect();
        (!taken.is_empty()).then(|| taken[self.rng.usize(0..taken.len())])
    }

    /// The cell the plan of the round asks for, or any free one.
    fn planned_cell(&mut self) -> u8 {
        let state = self.engine.game().state;
        let board = state.board;
        let free = |n: &u8| Cell::new(*n).is_some_and(|c| board.get(c).is_none());
        let wanted: Vec<u8> = match &self.plan {
            Plan::Anything => Vec::new(),
            Plan::Line { mark, line } if *mark == state.next => {
                line.iter().copied().filter(free).collect()
            }
            Plan::Line { line, .. } => (1..=9).filter(|n| !line.contains(n) && free(n)).collect(),
            Plan::Sequence(cells) => {
                let done = board.count(Mark::X) + board.count(Mark::O);
                cells.get(done).copied().filter(free).into_iter().collect()
            }
        };
        if wanted.is_empty() {
            return self.free_cell().unwrap_or(5);
        }
        wanted[self.rng.usize(0..wanted.len())]
    }

    /// What the moves of a new round aim at: an uncovered win when there is
    /// one, else a random line, a special ending or nothing in particular.
    fn new_plan(&mut self) -> Plan {
        let uncovered_wins: Vec<(Mark, usize)> = [Mark::X, Mark::O]
            .into_iter()
            .flat_map(|m| (0..8).map(move |k| (m, k)))
            .filter(|&(m, k)| {
                let base = if m == Mark::X { Behaviour::WinX123 } else { Behaviour::WinO123 };
                self.wants(Behaviour::ALL[base as usize + k])
            })
            .collect();
        let special = [Behaviour::Tie, Behaviour::WinTwoLines, Behaviour::WinFullBoard];
        let wanted_special: Vec<usize> = (0..3).filter(|&k| self.wants(special[k])).collect();
        let symmetry = SYMMETRIES[self.rng.usize(0..8)];
        let sequence = |k: usize| {
            Plan::Sequence(SEQUENCES[k].iter().map(|&c| symmetry[usize::from(c - 1)]).collect())
        };
        match self.rng.u32(0..20) {
            0..=7 if !uncovered_wins.is_empty() => {
                let (mark, k) = uncovered_wins[self.rng.usize(0..uncovered_wins.len())];
                Plan::Line { mark, line: LINES[k] }
            }
            8..=10 if !wanted_special.is_empty() => {
                sequence(wanted_special[self.rng.usize(0..wanted_special.len())])
            }
            0..=11 => {
                let mark = if self.rng.bool() { Mark::X } else { Mark::O };
                Plan::Line { mark, line: LINES[self.rng.usize(0..8)] }
            }
            12..=14 => sequence(self.rng.usize(0..3)),
            _ => Plan::Anything,
        }
    }

    /// Several undos, then some redos, maybe with a new command between.
    fn undo_chain(&mut self) {
        let undos = self.rng.usize(1..=4);
        for _ in 0..undos {
            self.push("undo");
        }
        if self.rng.u32(0..4) == 0 && self.engine.game().state.phase == Phase::InPlay {
            let next = self.name(self.engine.game().state.next);
            let cell = self.free_cell().unwrap_or(5);
            self.play(&next, cell);
        }
        for _ in 0..self.rng.usize(0..=undos + 1) {
            self.push("redo");
        }
    }

    /// One syntax error, or a few type errors, at random places (an error
    /// that only fits at the end goes there).
    fn add_errors(&mut self) {
        let wanted = |table: &[(Behaviour, &[&[u8]])]| table.iter().any(|(b, _)| self.wants(*b));
        let steer = wanted(&SYNTAX) || wanted(&SYNTAX_AT_END) || wanted(&TYPE);
        let rate = if steer { 5 } else { 16 };
        if self.rng.u32(0..rate) != 0 {
            return;
        }
        if self.rng.bool() {
            let at_end = self.rng.u32(0..3) == 0;
            let table: &[(Behaviour, &[&[u8]])] = if at_end { &SYNTAX_AT_END } else { &SYNTAX };
            if let Some(text) = self.wrong_event(table) {
                let text = self.widen(text);
                let at =
                    if at_end { self.items.len() } else { self.rng.usize(0..=self.items.len()) };
                self.items.insert(at, Item::new(text, "\n"));
            }
        } else {
            for _ in 0..self.rng.usize(1..=3) {
                if let Some(text) = self.wrong_event(&TYPE) {
                    let text = self.widen(text);
                    let at = self.rng.usize(0..=self.items.len());
                    self.items.insert(at, Item::new(text, "\n"));
                }
            }
        }
    }

    /// A wrong event, now and then with multi-byte characters or tabs on
    /// its line before its error (more often while a syntax error after
    /// them is uncovered): the column of a syntax error counts bytes, a
    /// tab as one, and a type error prints its arguments as written.
    fn widen(&mut self, text: Vec<u8>) -> Vec<u8> {
        let wanted =
            self.wants(Behaviour::SyntaxColumnMultibyte) || self.wants(Behaviour::SyntaxColumnTab);
        let wide = WIDE[self.rng.usize(0..WIDE.len())];
        let ann = b"\"Ann\"";
        match self.rng.u32(0..if wanted { 4 } else { 6 }) {
            // The name of the event given in another alphabet.
            0 if memchr::memmem::find(&text, ann).is_some() => {
                replaced(&text, ann, &quote(wide), 1)
            }
            // An event before it on the line.
            0 | 1 => [b"new_game(", &quote(wide)[..], b", \"Bob\") ", &text].concat(),
            // Tabs before it, or inside it.
            2 => match text.iter().position(|&b| b == b'(') {
                Some(open) => [&text[..=open], b"\t", &text[open + 1..]].concat(),
                None => [&b"\t"[..], &text].concat(),
            },
            3 => [&b"undo\t"[..], &text].concat(),
            _ => text,
        }
    }

    /// A wrong event of an allowed kind, an uncovered kind preferred.
    fn wrong_event(&mut self, table: &[(Behaviour, &[&[u8]])]) -> Option<Vec<u8>> {
        let kinds: Vec<&(Behaviour, &[&[u8]])> =
            table.iter().filter(|(b, _)| self.allowed(*b)).collect();
        let wanted: Vec<&&(Behaviour, &[&[u8]])> =
            kinds.iter().filter(|(b, _)| self.wants(*b)).collect();
        let (_, texts) = if !wanted.is_empty() && self.rng.bool() {
            **wanted[self.rng.usize(0..wanted.len())]
        } else if !kinds.is_empty() {
            *kinds[self.rng.usize(0..kinds.len())]
        } else {
            return None;
        };
        Some(texts[self.rng.usize(0..texts.len())].to_vec())
    }
}

fn quote(name: &[u8]) -> Vec<u8> {
    [b"\"", name, b"\""].concat()
}

fn pick_weighted<T: Copy>(rng: &mut Rng, choices: &[(u32, T)]) -> T {
    let total: u32 = choices.iter().map(|c| c.0).sum();
    let mut n = rng.u32(0..total.max(1));
    for &(w, value) in choices {
        if n < w {
            return value;
        }
        n -= w;
    }
    choices[0].1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bots::Autopilot;
    use crate::run::{Job, run_job};

    fn session(seed: u64, runs: u64, settings: &Settings) -> (Coverage, Vec<Trace>) {
        let mut covered = Coverage::default();
        let mut traces = Vec::new();
        for run in 0..runs {
            let mut rng = rng_for(seed, run);
            let uncovered = Coverage::from_bits(!covered.bits());
            let (trace, expected) = generate(&mut rng, settings, uncovered);
            covered = covered.union(expected.coverage);
            traces.push(trace);
        }
        (covered, traces)
    }

    #[test]
    fn the_same_seed_gives_the_same_traces() {
        let s = Settings::default();
        assert_eq!(session(7, 20, &s).1, session(7, 20, &s).1);
        assert_ne!(session(7, 20, &s).1, session(8, 20, &s).1);
    }

    #[test]
    fn a_few_hundred_traces_reach_every_behaviour() {
        let (covered, _) = session(1, 400, &Settings::default());
        let missing: Vec<_> =
            Coverage::batch().iter().filter(|b| !covered.contains(*b)).map(Behaviour::id).collect();
        assert!(missing.is_empty(), "not reached: {missing:?}");
    }

    #[test]
    fn traces_respect_their_bounds_and_exclusions() {
        let exclude: Coverage = [Behaviour::TypeArity, Behaviour::UndoMove, Behaviour::SyntaxParse]
            .into_iter()
            .collect();
        let settings = Settings { max_lines: 10, exclude };
        let (covered, traces) = session(3, 300, &settings);
        assert!(covered.iter().all(|b| !exclude.contains(b)));
        assert!(traces.iter().all(|t| t.len() <= 50 + 1));
        assert!(traces.iter().filter(|t| t.len() <= 10).count() > 250);
    }

    /// Bytes a program reading its input as text changes or refuses (not
    /// UTF-8, a byte order mark in the middle, NUL) are in a fair share of
    /// the traces, in names, comments and as stray bytes, and the expected
    /// output echoes them as they are (attack 38's fuzzboard 1).
    #[test]
    fn bytes_that_are_not_utf8_are_generated_at_a_sensible_rate() {
        let (_, traces) = session(9, 400, &Settings::default());
        let texts: Vec<Vec<u8>> = traces.iter().map(Trace::text).collect();
        let invalid = texts.iter().filter(|t| std::str::from_utf8(t).is_err()).count();
        assert!((60..=180).contains(&invalid), "{invalid} of 400 traces are not UTF-8");
        let has = |needle: &[u8]| texts.iter().any(|t| memchr::memmem::find(t, needle).is_some());
        let wanted: [&[u8]; 9] = [
            b"\"Ff\xff\"",
            b"\"Lo\x80ne\"",
            b"\"Ov\xc0\xafer\"",
            b"\"Su\xed\xa0\x80r\"",
            b"\"Bo\xef\xbb\xbfm\"",
            b"\"Nu\x00l\"",
            b"-- caf\xe9 \xff",
            b"\xff",
            b"'\xff'",
        ];
        for needle in wanted {
            assert!(has(needle), "no trace holds {:?}", String::from_utf8_lossy(needle));
        }
        let echoed = texts
            .iter()
            .map(|t| Expected::of(t).output)
            .filter(|out| std::str::from_utf8(out).is_err())
            .count();
        assert!(echoed >= invalid / 4, "{echoed} outputs of {invalid} traces are not UTF-8");
    }

    /// Each wrong event is of the behaviour its table names it under (the
    /// stray bytes too), so steering toward a behaviour reaches it.
    #[test]
    fn each_wrong_event_shows_the_behaviour_it_is_listed_under() {
        for (behaviour, texts) in SYNTAX.iter().chain(&SYNTAX_AT_END).chain(&TYPE) {
            for text in texts.iter().filter(|t| t.iter().any(|b| !b.is_ascii() || *b == 0)) {
                let shown = Expected::of(&[text, &b"\n"[..]].concat()).steps[0].1;
                assert_eq!(shown, *behaviour, "{:?}", String::from_utf8_lossy(text));
            }
        }
    }

    #[test]
    fn the_expected_output_is_what_batch_prints() {
        let dir = tempfile::tempdir().expect("scratch");
        let path = dir.path().join("t.txt");
        let (_, traces) = session(5, 150, &Settings::default());
        for trace in traces {
            std::fs::write(&path, trace.text()).expect("write");
            let mut out = Vec::new();
            run_job(Job::Whole, &path, &mut out, Autopilot::default()).expect("runs");
            let expected = Expected::of(&trace.text());
            assert_eq!(out, expected.output, "{:?}", String::from_utf8_lossy(&trace.text()));
        }
    }
}

//! A small independent model of the ETF tic-tac-toe program (a history of
//! whole snapshots instead of the engine's operations), with one deliberate
//! mistake chosen by name: the programs `tictac fuzz` is tested against.
//!
//!     mutant NAME -b TRACE
//!
//! NAME (tests/it/differential.rs gives the length of each one's shortest
//! showing trace):
//! `none` (no mistake), `redo-kept` (a new command keeps what was undone),
//! `same-starter` (X starts every round), `precedence` (a taken cell is
//! checked before the turn), `no-diagonal` (the 3-5-7 line does not win),
//! `column` (syntax error columns one too far), `chars` (syntax error
//! columns counted in characters, not bytes: Python's and Java's natural
//! mistake), `tabs` (a tab counted to the next multiple of 8 columns, as an
//! editor shows it), `unescape` (`\"` in a name printed as `"`, as a
//! scanner that decodes escapes prints it), `cr` (a carriage return
//! outside a comment is no blank: a syntax error there, unless the trace
//! has one before it, as a scanner written on Linux rejects a file saved
//! on Windows), `hang` (play_again in play
//! never returns), `crash-on-diagonal` (a win on the 3-5-7 line fails its
//! own check: what was printed so far, 25 lines of a traceback on standard
//! error, exit 3: a student's program as `tictac test` must explain it).

use std::io::{self, Write};

use tictac::behaviour::kept_lines;
use tictac::command::Command;
use tictac::game::view::write_state;
use tictac::game::{Cell, Game, Mark, Message, Phase};

struct Model<'m> {
    mistake: &'m str,
    game: Game,
    /// The operations of the round, each as the state just before it last
    /// ran and the state after it.
    snapshots: Vec<(Game, Game)>,
    cursor: usize,
    /// `crash-on-diagonal` met its win.
    crashed: bool,
}

impl Model<'_> {
    fn run(&mut self, command: &Command) {
        let in_play = self.game.state.phase == Phase::InPlay;
        match *command {
            Command::Undo if in_play && self.cursor > 0 => {
                self.cursor -= 1;
                self.game = self.snapshots[self.cursor].0.clone();
            }
            Command::Redo if in_play && self.cursor < self.snapshots.len() => {
                let (before, after) = &mut self.snapshots[self.cursor];
                *before = self.game.clone();
                self.game = after.clone();
                self.cursor += 1;
            }
            // A finished round keeps even its message (SPEC §3).
            Command::Undo | Command::Redo if self.game.state.phase == Phase::Over => {}
            Command::Undo | Command::Redo => self.game.state.message = Message::Ok,
            Command::NewGame { player1, player2 } => {
                let before = self.game.clone();
                let new_round = self.game.new_game(player1, player2);
                self.keep(before, in_play, new_round == tictac::game::rules::Change::NewRound);
            }
            Command::PlayAgain => {
                if self.mistake == "hang" && in_play {
                    loop {
                        std::thread::sleep(std::time::Duration::from_secs(1));
                    }
                }
                let before = self.game.clone();
                let new_round = self.game.play_again() == tictac::game::rules::Change::NewRound;
                if new_round && self.mistake == "same-starter" {
                    self.game.state.starter = Mark::X;
                    self.game.state.next = Mark::X;
                }
                self.keep(before, in_play, new_round);
            }
            Command::Play { player, press: cell } => {
                let before = self.game.clone();
                self.play(player, cell);
                self.keep(before, in_play, false);
            }
        }
    }

    fn play(&mut self, player: &[u8], cell: Cell) {
        let mark = self.game.mark_of(player);
        let s = &mut self.game.state;
        if self.mistake == "precedence"
            && s.phase == Phase::InPlay
            && mark.is_some()
            && s.board.get(cell).is_some()
        {
            s.message = Message::ButtonTaken;
            return;
        }
        let before = s.board;
        self.game.play(player, cell);
        let s = &mut self.game.state;
        let diagonal = self.mistake == "no-diagonal" || self.mistake == "crash-on-diagonal";
        if diagonal && s.message == Message::Winner && s.board != before {
            let Some(mark) = mark else { return };
            let b = s.board;
            // Without the rising diagonal, does the move still win?
            let on = |n: u8| Cell::new(n).and_then(|c| b.get(c)) == Some(mark);
            let lines = tictac::game::board::LINES;
            let wins = lines.iter().filter(|l| **l != [3, 5, 7]).any(|l| l.iter().all(|&n| on(n)));
            if !wins && self.mistake == "crash-on-diagonal" {
                self.crashed = true;
            } else if !wins {
                s.scores[mark.index()] -= 1;
                if b.is_full() {
                    s.message = Message::Tie;
                } else {
                    s.phase = Phase::InPlay;
                    s.next = mark.other();
                    s.message = Message::Ok;
                }
            }
        }
    }

    /// Records the state after an operation, as the history does.
    fn keep(&mut self, before: Game, in_play: bool, new_round: bool) {
        if new_round {
            self.snapshots.clear();
            self.cursor = 0;
        } else if in_play {
            if self.mistake != "redo-kept" {
                self.snapshots.truncate(self.cursor);
            }
            self.snapshots.insert(self.cursor, (before, self.game.clone()));
            self.cursor += 1;
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(mistake), Some("-b"), Some(path)) =
        (args.get(1), args.get(2).map(String::as_str), args.get(3))
    else {
        eprintln!("usage: mutant NAME -b TRACE");
        std::process::exit(2);
    };
    let Ok(text) = std::fs::read(path) else {
        eprintln!("cannot read {path}");
        std::process::exit(2);
    };
    let kept = kept_lines(&text);
    let mut out = Vec::new();
    let checked = tictac::lang::check(&kept);
    if mistake == "cr"
        && let Some((line, column)) = first_cr(&kept)
    {
        let before = |e: &tictac::lang::TraceError| {
            let mut message = Vec::new();
            let _ = e.write_to(&mut message);
            let at = String::from_utf8_lossy(&message).rsplit_once("(Line ").map(|(_, at)| {
                let numbers: Vec<usize> = at
                    .split(|c: char| !c.is_ascii_digit())
                    .filter_map(|n| n.parse().ok())
                    .collect();
                (numbers.first().copied().unwrap_or(0), numbers.get(1).copied().unwrap_or(0))
            });
            at.is_some_and(|at| at <= (line, column))
        };
        if !checked.as_ref().err().is_some_and(before) {
            let message = format!(
                "Syntax Error: specification of command executions cannot be parsed\nparse error (Line {line}, Column {column})\n"
            );
            let _ = io::stdout().write_all(message.as_bytes());
            std::process::exit(1);
        }
    }
    let status = match checked {
        Err(e) => {
            let _ = e.write_to(&mut out);
            match mistake.as_str() {
                "column" => out = shift_column(&out, |_, n| n + 1),
                "chars" | "tabs" => {
                    out = shift_column(&out, |line, n| recount(&kept, line, n, mistake))
                }
                _ => {}
            }
            1
        }
        Ok(commands) => {
            let mut model = Model {
                mistake,
                game: Game::default(),
                snapshots: Vec::new(),
                cursor: 0,
                crashed: false,
            };
            let _ = write_state(&mut out, &model.game);
            for c in &commands {
                model.run(c);
                if model.crashed {
                    let _ = io::stdout().write_all(&out);
                    for depth in 1..=24 {
                        eprintln!("  at frame {depth} (mutant.rs, line {})", 100 + depth);
                    }
                    eprintln!("AssertionError: the 3-5-7 line is not checked");
                    std::process::exit(3);
                }
                out.extend_from_slice(b"->");
                let _ = c.write_echo(&mut out);
                out.push(b'\n');
                let _ = write_state(&mut out, &model.game);
            }
            0
        }
    };
    if mistake == "unescape" {
        // Each `\"` printed `"`, every other byte as it is (a name that is
        // not UTF-8 too: this mutant makes one mistake).
        let mut plain = Vec::with_capacity(out.len());
        let mut rest = &out[..];
        while let Some(at) = rest.windows(2).position(|w| w == b"\\\"") {
            plain.extend_from_slice(&rest[..at]);
            plain.push(b'"');
            rest = &rest[at + 2..];
        }
        plain.extend_from_slice(rest);
        out = plain;
    }
    let _ = io::stdout().write_all(&out);
    std::process::exit(status);
}

/// The line and byte column (from 1) of the first carriage return of the
/// kept lines before any `--` on its line.
fn first_cr(kept: &[u8]) -> Option<(usize, usize)> {
    kept.split(|&b| b == b'\n').enumerate().find_map(|(k, line)| {
        let code = line.windows(2).position(|w| w == b"--").map_or(line, |end| &line[..end]);
        code.iter().position(|&b| b == b'\r').map(|at| (k + 1, at + 1))
    })
}

/// `(Line L, Column N)` becomes `(Line L, Column f(L, N))`.
fn shift_column(message: &[u8], f: impl Fn(usize, usize) -> usize) -> Vec<u8> {
    let text = String::from_utf8_lossy(message);
    let number = |s: &str| -> (usize, usize) {
        let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
        (digits.parse().unwrap_or(0), digits.len())
    };
    let Some((head, tail)) = text.rsplit_once("Column ") else { return message.to_vec() };
    let line = head.rsplit_once("(Line ").map_or(0, |(_, l)| number(l).0);
    let (n, len) = number(tail);
    format!("{head}Column {}{}", f(line, n), &tail[len..]).into_bytes()
}

/// The column of byte `n` (from 1) on kept line `line` as a program counts
/// that counts characters (`chars`) or screen columns with tab stops every
/// 8 (`tabs`) instead of bytes.
fn recount(kept: &[u8], line: usize, n: usize, mistake: &str) -> usize {
    let text = kept.split(|&b| b == b'\n').nth(line.wrapping_sub(1)).unwrap_or_default();
    let before = &text[..n.saturating_sub(1).min(text.len())];
    if mistake == "chars" {
        return String::from_utf8_lossy(before).chars().count() + 1;
    }
    let mut column = 0;
    for &b in before {
        column = if b == b'\t' { column / 8 * 8 + 8 } else { column + 1 };
    }
    column + 1
}

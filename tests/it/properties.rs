//! Properties over random command sequences (proptest): board invariants,
//! undo/redo laws, a second, independent history that must agree with the
//! engine after every command, and transcripts that replay to themselves.

use crate::common::proptest_config;
use proptest::prelude::*;
use tictac::bots::{Autopilot, Bot, Strategy as BotStrategy};
use tictac::command::Command;
use tictac::engine::Engine;
use tictac::game::rules::Change;
use tictac::game::view::render;
use tictac::game::{Cell, Game, Mark, Message, Phase};
use tictac::run::{Driver, Sink};

/// A command with owned names, as generated.
#[derive(Clone, Debug)]
enum Cmd {
    NewGame(&'static str, &'static str),
    Play(&'static str, u8),
    PlayAgain,
    Undo,
    Redo,
}

impl Cmd {
    fn command(&self) -> Command<'static> {
        match *self {
            Cmd::NewGame(a, b) => Command::NewGame { player1: a.as_bytes(), player2: b.as_bytes() },
            Cmd::Play(p, n) => {
                Command::Play { player: p.as_bytes(), press: Cell::new(n).expect("1..9") }
            }
            Cmd::PlayAgain => Command::PlayAgain,
            Cmd::Undo => Command::Undo,
            Cmd::Redo => Command::Redo,
        }
    }
}

const NAMES: [&str; 5] = ["Ann", "Bob", "Zed", "", "1st"];

fn cmd() -> impl proptest::strategy::Strategy<Value = Cmd> {
    prop_oneof![
        1 => (prop::sample::select(&NAMES[..]), prop::sample::select(&NAMES[..]))
            .prop_map(|(a, b)| Cmd::NewGame(a, b)),
        1 => Just(Cmd::NewGame("Ann", "Bob")),
        10 => (prop::sample::select(&["Ann", "Bob", "Ann", "Bob", "Zed"][..]), 1u8..=9)
            .prop_map(|(p, n)| Cmd::Play(p, n)),
        2 => Just(Cmd::PlayAgain),
        3 => Just(Cmd::Undo),
        3 => Just(Cmd::Redo),
    ]
}

fn session() -> impl proptest::strategy::Strategy<Value = Vec<Cmd>> {
    prop::collection::vec(cmd(), 0..200)
}

/// The reference history: the round's commands and a cursor; the state at
/// the cursor is rebuilt by replaying the first `cursor` commands on the
/// state the round started from. It shares nothing with `history::`.
///
/// One correction to pure replay: SPEC §4 restores the state *just before*
/// an operation last ran, message included, and a no-op `undo`/`redo` in
/// between sets the message to `ok` without being recorded. So the
/// reference also remembers the message each operation found.
struct Reference {
    base: Game,
    ops: Vec<Cmd>,
    /// The message when each operation last ran.
    found: Vec<Message>,
    cursor: usize,
    current: Game,
}

fn apply(game: &mut Game, c: &Cmd) -> Change {
    match *c {
        Cmd::NewGame(a, b) => game.new_game(a.as_bytes(), b.as_bytes()),
        Cmd::Play(p, n) => game.play(p.as_bytes(), Cell::new(n).expect("1..9")),
        Cmd::PlayAgain => game.play_again(),
        Cmd::Undo | Cmd::Redo => unreachable!("not an operation"),
    }
}

impl Reference {
    fn new() -> Self {
        Reference {
            base: Game::default(),
            ops: Vec::new(),
            found: Vec::new(),
            cursor: 0,
            current: Game::default(),
        }
    }

    fn replay(&self, n: usize) -> Game {
        let mut game = self.base.clone();
        for c in &self.ops[..n] {
            apply(&mut game, c);
        }
        game
    }

    fn run(&mut self, c: &Cmd) {
        let in_play = self.current.state.phase == Phase::InPlay;
        match c {
            Cmd::Undo if in_play && self.cursor > 0 => {
                self.cursor -= 1;
                self.current = self.replay(self.cursor);
                self.current.state.message = self.found[self.cursor];
            }
            Cmd::Redo if in_play && self.cursor < self.ops.len() => {
                self.found[self.cursor] = self.current.state.message;
                self.cursor += 1;
                self.current = self.replay(self.cursor);
            }
            // A finished round keeps even its message (SPEC §3).
            Cmd::Undo | Cmd::Redo if self.current.state.phase == Phase::Over => {}
            Cmd::Undo | Cmd::Redo => self.current.state.message = Message::Ok,
            _ => {
                let found = self.current.state.message;
                match apply(&mut self.current, c) {
                    Change::NewRound => {
                        self.base = self.current.clone();
                        self.ops.clear();
                        self.found.clear();
                        self.cursor = 0;
                    }
                    _ if in_play => {
                        self.ops.truncate(self.cursor);
                        self.found.truncate(self.cursor);
                        self.ops.push(c.clone());
                        self.found.push(found);
                        self.cursor += 1;
                    }
                    _ => {}
                }
            }
        }
    }
}

fn shown(game: &Game) -> String {
    String::from_utf8(render(game)).expect("names here are UTF-8")
}

proptest! {
    #![proptest_config(proptest_config(512))]

    #[test]
    fn board_invariants_hold_after_every_command(cmds in session()) {
        let mut engine = Engine::new();
        for c in &cmds {
            let before = engine.game().state.phase;
            let shown_before = shown(engine.game());
            engine.run(&c.command());
            if before == Phase::Over && matches!(c, Cmd::Undo | Cmd::Redo) {
                prop_assert_eq!(&shown(engine.game()), &shown_before, "{:?} changed a finished game", c);
            }
            let s = &engine.game().state;
            let (x, o) = (s.board.count(Mark::X), s.board.count(Mark::O));
            prop_assert!(x.abs_diff(o) <= 1, "{x} X against {o} O");
            prop_assert!(!(s.board.has_line(Mark::X) && s.board.has_line(Mark::O)));
            if before == Phase::Over && !matches!(c, Cmd::PlayAgain | Cmd::NewGame(..)) {
                prop_assert_eq!(s.phase, Phase::Over, "{:?} left a finished game", c);
            }
            if s.phase == Phase::Over {
                let won = s.board.has_line(Mark::X) || s.board.has_line(Mark::O);
                prop_assert!(won || s.board.is_full());
            }
        }
    }

    #[test]
    fn an_independent_history_agrees_after_every_command(cmds in session()) {
        let mut engine = Engine::new();
        let mut reference = Reference::new();
        for (k, c) in cmds.iter().enumerate() {
            engine.run(&c.command());
            reference.run(c);
            prop_assert_eq!(shown(engine.game()), shown(&reference.current), "after command {}: {:?}", k, c);
            prop_assert_eq!(engine.history().undoable(), reference.cursor);
            prop_assert_eq!(engine.history().redoable(), reference.ops.len() - reference.cursor);
        }
    }

    /// Right after an operation is recorded, undo then redo gives back the
    /// printed state. (After a no-op `undo`/`redo` the message is `ok`, and a
    /// redo recomputes the operation's own message, so the law is stated
    /// where it holds.)
    #[test]
    fn undo_then_redo_restores_the_printed_state(cmds in session()) {
        let mut engine = Engine::new();
        for (k, c) in cmds.iter().enumerate() {
            let recorded_before = engine.history().undoable();
            engine.run(&c.command());
            let recorded = !matches!(c, Cmd::Undo | Cmd::Redo)
                && engine.history().undoable() == recorded_before + 1;
            if recorded && engine.game().state.phase == Phase::InPlay {
                let mut probe = Engine::new();
                cmds[..=k].iter().for_each(|c| probe.run(&c.command()));
                let before = shown(probe.game());
                probe.run(&Command::Undo);
                probe.run(&Command::Redo);
                prop_assert_eq!(shown(probe.game()), before);
            }
        }
    }

    #[test]
    fn undoing_all_the_way_returns_the_rounds_starting_state(cmds in session()) {
        let mut engine = Engine::new();
        let mut reference = Reference::new();
        for c in &cmds {
            engine.run(&c.command());
            reference.run(c);
        }
        if engine.game().state.phase == Phase::InPlay {
            while engine.history().undoable() > 0 {
                engine.run(&Command::Undo);
            }
            prop_assert_eq!(shown(engine.game()), shown(&reference.base));
        }
    }

    #[test]
    fn a_transcript_replays_to_itself(cmds in session(), bot in prop::option::of(0usize..4), seed in any::<u64>()) {
        let bots = bot.map(|k| vec![Bot { name: b"Bob".to_vec(), strategy: BotStrategy::ALL[k] }]);
        let first = transcript(&cmds.iter().map(Cmd::command).collect::<Vec<_>>(), bots.unwrap_or_default(), seed);
        // The `->` lines of the transcript, as a trace, and run again.
        let text = String::from_utf8(first.clone()).expect("utf8");
        let trace: String = text.lines().filter_map(|l| l.strip_prefix("->")).map(|l| format!("{l}\n")).collect();
        let replay_commands = tictac::lang::check(trace.as_bytes()).expect("echoes parse");
        let second = transcript(&replay_commands, Vec::new(), 0);
        prop_assert_eq!(String::from_utf8(second).expect("utf8"), text);
    }
}

/// The `-b` transcript of commands, with bots.
fn transcript(commands: &[Command], bots: Vec<Bot>, seed: u64) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut sink = Sink::new(&mut out);
        let mut driver = Driver::new(Autopilot::new(bots, Some(seed)));
        use std::io::Write;
        sink.write_all(&render(driver.engine.game())).expect("vec");
        for c in commands {
            driver.step(c, &mut sink).expect("vec");
        }
        sink.flush().expect("vec");
    }
    out
}

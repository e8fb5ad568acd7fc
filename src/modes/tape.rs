//! Validated commands kept in a compact form during the validating read of
//! `-b IN`, so the run need not read and parse the trace a second time.
//! The tape is bounded: past `LIMIT` bytes, or 256 distinct names, it gives
//! up and the run reads the trace again, so memory stays constant for a
//! trace of any length.

use crate::command::{Button, Command};

/// The most bytes a tape holds (about 1.5 million commands).
pub const LIMIT: usize = 3 * 1024 * 1024;

const UNDO: u8 = 0;
const REDO: u8 = 1;
const PLAY_AGAIN: u8 = 2;
/// Followed by two name indexes.
const NEW_GAME: u8 = 3;
/// `PLAY + button`, followed by a name index.
const PLAY: u8 = 0x10;

#[derive(Default)]
pub struct Tape {
    bytes: Vec<u8>,
    names: Vec<Vec<u8>>,
    gave_up: bool,
}

impl Tape {
    /// Appends a command, unless the tape is full.
    pub fn push(&mut self, command: &Command) {
        if self.gave_up {
            return;
        }
        let start = self.bytes.len();
        let none: &[u8] = &[];
        let (op, names, n) = match *command {
            Command::Undo => (UNDO, [none, none], 0),
            Command::Redo => (REDO, [none, none], 0),
            Command::PlayAgain => (PLAY_AGAIN, [none, none], 0),
            Command::NewGame { player1, player2 } => (NEW_GAME, [player1, player2], 2),
            Command::Play { player, press } => (PLAY + press.get(), [player, none], 1),
        };
        self.bytes.push(op);
        let fits = names[..n].iter().all(|name| self.put_name(name));
        if !fits || self.bytes.len() > LIMIT {
            self.gave_up = true;
            self.bytes.truncate(start);
            self.bytes.shrink_to_fit();
            self.names = Vec::new();
        }
    }

    fn put_name(&mut self, name: &[u8]) -> bool {
        let index = match self.names.iter().position(|n| n == name) {
            Some(k) => k,
            None => {
                self.names.push(name.to_vec());
                self.names.len() - 1
            }
        };
        let Ok(k) = u8::try_from(index) else { return false };
        self.bytes.push(k);
        true
    }

    /// Whether every command pushed is on the tape.
    pub fn is_whole(&self) -> bool {
        !self.gave_up
    }

    /// Hands each command on the tape to `f`, in order.
    pub fn replay<E>(&self, mut f: impl FnMut(&Command) -> Result<(), E>) -> Result<(), E> {
        let name = |k: Option<&u8>| {
            self.names.get(usize::from(*k.unwrap_or(&0))).map_or(&[][..], Vec::as_slice)
        };
        let mut bytes = self.bytes.iter();
        while let Some(&op) = bytes.next() {
            let command = match op {
                UNDO => Command::Undo,
                REDO => Command::Redo,
                PLAY_AGAIN => Command::PlayAgain,
                NEW_GAME => {
                    let player1 = name(bytes.next());
                    Command::NewGame { player1, player2: name(bytes.next()) }
                }
                _ => {
                    let Some(press) = Button::new(i64::from(op.wrapping_sub(PLAY))) else {
                        continue;
                    };
                    Command::Play { player: name(bytes.next()), press }
                }
            };
            f(&command)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commands() -> Vec<Command<'static>> {
        let press = |n| Button::new(n).expect("button");
        vec![
            Command::NewGame { player1: b"Ann", player2: b"B\"ob" },
            Command::Play { player: b"Ann", press: press(5) },
            Command::Play { player: b"Zed", press: press(9) },
            Command::Undo,
            Command::Redo,
            Command::PlayAgain,
            Command::Play { player: b"", press: press(1) },
        ]
    }

    #[test]
    fn a_tape_replays_what_was_pushed() {
        let mut tape = Tape::default();
        commands().iter().for_each(|c| tape.push(c));
        assert!(tape.is_whole());
        let echoes = |each: &mut dyn FnMut(&mut Vec<u8>)| {
            let mut text = Vec::new();
            each(&mut text);
            String::from_utf8(text).expect("utf8")
        };
        let replayed = echoes(&mut |text| {
            tape.replay(|c| c.write_echo(text)).expect("replay");
        });
        let pushed = echoes(&mut |text| {
            commands().iter().for_each(|c| c.write_echo(text).expect("vec"));
        });
        assert_eq!(replayed, pushed);
        assert!(replayed.starts_with("new_game(\"Ann\",\"B\"ob\")play(\"Ann\",5)"));
    }

    #[test]
    fn too_many_names_or_bytes_give_up() {
        let mut tape = Tape::default();
        let names: Vec<Vec<u8>> = (0..300).map(|k| format!("P{k}").into_bytes()).collect();
        for n in &names {
            tape.push(&Command::Play { player: n, press: Button::new(1).expect("button") });
        }
        assert!(!tape.is_whole());
        let mut tape = Tape::default();
        for _ in 0..=LIMIT {
            tape.push(&Command::Undo);
        }
        assert!(!tape.is_whole());
    }
}

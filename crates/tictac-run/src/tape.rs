//! Validated commands kept in a compact form between the validating read of
//! a trace and its run, so the input is read once: 1–3 bytes a command for
//! the usual names, on a spool (memory up to a bound, then a temporary
//! file), so a trace of any length costs constant memory.
//!
//! A name is an index into a dictionary that both sides fill the same way
//! (the first `DICTIONARY` short names, in order of first use), or else
//! written inline.

use std::collections::HashMap;
use std::io::{self, BufRead, Read, Write};

use crate::RunError;
use crate::command::Command;
use crate::game::Cell;
use crate::spool::{Spool, SpoolReader, read_byte, read_varint, truncated, write_varint};

const UNDO: u8 = 0;
const REDO: u8 = 1;
const PLAY_AGAIN: u8 = 2;
/// Followed by two names.
const NEW_GAME: u8 = 3;
/// `PLAY + button`, followed by a name.
const PLAY: u8 = 0x10;
const PLAY_FIRST: u8 = PLAY + 1;
const PLAY_LAST: u8 = PLAY + 9;
/// Bytes from here on are free for the users of the tape (see `Entry::Mark`).
pub(crate) const FIRST_MARK: u8 = 0x20;

/// Names get a one-byte index up to this many; the byte `INLINE` says a
/// name follows in full.
const DICTIONARY: usize = 255;
const INLINE: u8 = 0xFF;
/// Longer names are always written inline (the dictionary stays small).
const LONGEST_INDEXED: usize = 256;

/// An opcode no writer uses.
fn corrupt() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, "the command tape holds an unknown opcode")
}

fn indexed(name: &[u8], entries: usize) -> bool {
    entries < DICTIONARY && name.len() <= LONGEST_INDEXED
}

pub struct Tape {
    spool: Spool,
    names: HashMap<Vec<u8>, u8>,
    /// The last two short names looked up and their indexes: most commands
    /// repeat one of the two players' names, and comparing a few bytes in
    /// line is cheaper than a hash or a `memcmp`.
    recent: [Recent; 2],
}

/// A name of at most `SHORT` bytes and its index (no name: `NO_NAME`).
#[derive(Clone, Copy)]
struct Recent {
    bytes: [u8; SHORT],
    len: usize,
    index: u8,
}

const SHORT: usize = 16;
const NO_NAME: Recent = Recent { bytes: [0; SHORT], len: usize::MAX, index: 0 };

impl Recent {
    #[inline]
    fn is(&self, name: &[u8]) -> bool {
        name.len() == self.len && name.iter().zip(&self.bytes).all(|(a, b)| a == b)
    }
}

/// The tape as `lang::validate`'s keeper: `push` in the stream's loop
/// (a closure calling it is compiled apart, and not inlined without LTO).
impl tictac_core::lang::Keep for &mut Tape {
    #[inline(always)]
    fn keep(&mut self, command: &Command) -> io::Result<()> {
        self.push(command)
    }
}

impl Default for Tape {
    fn default() -> Self {
        Tape { spool: Spool::default(), names: HashMap::new(), recent: [NO_NAME; 2] }
    }
}

impl Tape {
    /// A tape whose spool's buffers hold `block` bytes.
    #[cfg(test)]
    pub(crate) fn with_block(block: usize) -> Self {
        Tape { spool: Spool::with_block(block), ..Tape::default() }
    }

    /// Appends a command, in one write when its names are in the dictionary.
    /// Inlined where the commands are made, so a command goes from the
    /// parser's registers to the spool's buffer without being stored and
    /// copied on the way (a copy read back with other widths stalls).
    #[inline(always)]
    pub fn push(&mut self, command: &Command) -> io::Result<()> {
        match *command {
            Command::Undo => self.spool.write_all(&[UNDO]),
            Command::Redo => self.spool.write_all(&[REDO]),
            Command::PlayAgain => self.spool.write_all(&[PLAY_AGAIN]),
            Command::Play { player, press } => match self.recent(player) {
                // Made as one integer: two bytes stored apart and read
                // back as one stall.
                Some(k) => {
                    let record = u16::from(PLAY + press.number()) | u16::from(k) << 8;
                    self.spool.write_all(&record.to_le_bytes())
                }
                None => self.push_play(player, press),
            },
            Command::NewGame { player1, player2 } => self.push_new_game(player1, player2),
        }
    }

    /// `push` of a play whose name is not one of the last two.
    #[inline(never)]
    fn push_play(&mut self, player: &[u8], press: Cell) -> io::Result<()> {
        if let Some(k) = self.known(player) {
            return self.spool.write_all(&[PLAY + press.number(), k]);
        }
        self.spool.write_all(&[PLAY + press.number()])?;
        self.put_name(player)
    }

    /// `push` of a new game.
    #[inline(never)]
    fn push_new_game(&mut self, player1: &[u8], player2: &[u8]) -> io::Result<()> {
        if let (Some(a), Some(b)) = (self.known(player1), self.known(player2)) {
            return self.spool.write_all(&[NEW_GAME, a, b]);
        }
        self.spool.write_all(&[NEW_GAME])?;
        self.put_name(player1)?;
        self.put_name(player2)
    }

    /// Where the tape stands, to come back to with `rollback`.
    pub(crate) fn checkpoint(&self) -> Checkpoint {
        Checkpoint { len: self.spool.len(), names: self.names.len() }
    }

    /// Takes back everything written since `at`, the names first written
    /// since then included (so a reader still numbers names as this tape
    /// does).
    pub(crate) fn rollback(&mut self, at: Checkpoint) -> io::Result<()> {
        if self.spool.len() == at.len {
            return Ok(());
        }
        self.spool.truncate(at.len)?;
        if self.names.len() > at.names {
            self.names.retain(|_, k| usize::from(*k) < at.names);
            for slot in &mut self.recent {
                if usize::from(slot.index) >= at.names {
                    *slot = NO_NAME;
                }
            }
        }
        Ok(())
    }

    /// Appends a byte of the user's own (`FIRST_MARK` or more).
    pub(crate) fn mark(&mut self, mark: u8) -> io::Result<()> {
        debug_assert!(mark >= FIRST_MARK && mark != INLINE);
        self.spool.write_all(&[mark])
    }

    /// Appends raw bytes (after a mark that says how to read them).
    pub(crate) fn raw(&mut self) -> &mut Spool {
        &mut self.spool
    }

    fn put_name(&mut self, name: &[u8]) -> io::Result<()> {
        if let Some(k) = self.known(name) {
            return self.spool.write_all(&[k]);
        }
        self.spool.write_all(&[INLINE])?;
        write_varint(&mut self.spool, name.len() as u64)?;
        self.spool.write_all(name)?;
        if indexed(name, self.names.len()) {
            let k = self.names.len() as u8;
            self.names.insert(name.to_vec(), k);
            self.remember(name, k);
        }
        Ok(())
    }

    /// The name's index in the dictionary, if it has one.
    fn known(&mut self, name: &[u8]) -> Option<u8> {
        self.recent(name).or_else(|| self.look_up(name))
    }

    /// The name's index if it is one of the last two looked up.
    #[inline(always)]
    fn recent(&self, name: &[u8]) -> Option<u8> {
        self.recent.iter().find(|recent| recent.is(name)).map(|recent| recent.index)
    }

    /// `known` for a name not at hand: in the dictionary, if it has one.
    fn look_up(&mut self, name: &[u8]) -> Option<u8> {
        let k = *self.names.get(name)?;
        self.remember(name, k);
        Some(k)
    }

    /// A short name's index, kept at hand in place of the older one.
    fn remember(&mut self, name: &[u8], index: u8) {
        if name.len() <= SHORT {
            let mut bytes = [0; SHORT];
            bytes[..name.len()].copy_from_slice(name);
            self.recent = [Recent { bytes, len: name.len(), index }, self.recent[0]];
        }
    }

    /// The bytes written so far.
    pub(crate) fn len(&self) -> u64 {
        self.spool.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spool.is_empty()
    }

    /// Reads the tape back from its start.
    pub fn reader(self) -> io::Result<TapeReader> {
        Ok(TapeReader {
            input: self.spool.reader()?,
            names: Vec::new(),
            inline: [Vec::new(), Vec::new()],
        })
    }
}

/// A place on a tape (see `Tape::rollback`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Checkpoint {
    len: u64,
    names: usize,
}

/// What comes next on a tape.
pub enum Entry<'t> {
    Command(Command<'t>),
    Mark(u8),
}

pub struct TapeReader {
    input: SpoolReader,
    names: Vec<Vec<u8>>,
    /// Inline names of the command being read.
    inline: [Vec<u8>; 2],
}

impl TapeReader {
    /// Hands each command to `each`, up to the next mark (returned) or the
    /// end of the tape (`None`); a failed read is a `RunError::Spool`, a
    /// failure of `each` a write's (its result fits a register). The run's
    /// loop: a command whose names are in the dictionary is read as one
    /// record and handed over where it is made, not returned through
    /// `Entry`, whose copies (odd widths stored, other widths read back)
    /// stalled the processor.
    #[inline(always)]
    pub(crate) fn each_command(
        &mut self,
        mut each: impl FnMut(&Command) -> io::Result<()>,
    ) -> Result<Option<u8>, RunError> {
        loop {
            let [op, a, b] = match *self.input.fill_buf().map_err(RunError::Spool)? {
                [op, a, b, ..] => [op, a, b],
                _ => [INLINE; 3],
            };
            let used = match op {
                UNDO | REDO | PLAY_AGAIN => 1,
                PLAY_FIRST..=PLAY_LAST if a != INLINE => 2,
                NEW_GAME if a != INLINE && b != INLINE => 3,
                _ => match self.next_entry().map_err(RunError::Spool)? {
                    Some(Entry::Command(command)) => {
                        each(&command)?;
                        continue;
                    }
                    Some(Entry::Mark(mark)) => return Ok(Some(mark)),
                    None => return Ok(None),
                },
            };
            self.input.consume(used);
            let name = |k: u8| self.names.get(usize::from(k)).map_or(&[][..], Vec::as_slice);
            let command = match op {
                UNDO => Command::Undo,
                REDO => Command::Redo,
                PLAY_AGAIN => Command::PlayAgain,
                NEW_GAME => Command::NewGame { player1: name(a), player2: name(b) },
                // A button of 1 to 9: `PLAY_FIRST..=PLAY_LAST`.
                _ => Command::Play {
                    player: name(a),
                    press: Cell::ALL[usize::from(op - PLAY_FIRST)],
                },
            };
            each(&command)?;
        }
    }

    /// The next entry, or `None` at the end of the tape, read byte by byte
    /// (the run's loop, `each_command`, reads a whole record at once where
    /// it can, and this near the end of the spool's buffer, for inline names
    /// and for marks).
    #[inline(never)]
    pub fn next_entry(&mut self) -> io::Result<Option<Entry<'_>>> {
        let Some(op) = read_byte(&mut self.input)? else { return Ok(None) };
        let command = match op {
            UNDO => Command::Undo,
            REDO => Command::Redo,
            PLAY_AGAIN => Command::PlayAgain,
            NEW_GAME => {
                let first = self.read_name(0)?;
                let second = self.read_name(1)?;
                Command::NewGame { player1: self.name(first, 0), player2: self.name(second, 1) }
            }
            PLAY_FIRST..=PLAY_LAST => {
                let press = Cell::new(op - PLAY).ok_or_else(corrupt)?;
                let name = self.read_name(0)?;
                Command::Play { player: self.name(name, 0), press }
            }
            FIRST_MARK.. => return Ok(Some(Entry::Mark(op))),
            // Nothing writes these: the tape is not what was written.
            _ => return Err(corrupt()),
        };
        Ok(Some(Entry::Command(command)))
    }

    /// Reads a name: its dictionary index, or `None` when it was inline
    /// (then it is in `inline[slot]`).
    fn read_name(&mut self, slot: usize) -> io::Result<Option<usize>> {
        let k = read_byte(&mut self.input)?.ok_or_else(truncated)?;
        if k != INLINE {
            return Ok(Some(usize::from(k)));
        }
        let len = usize::try_from(read_varint(&mut self.input)?).map_err(|_| truncated())?;
        let buf = &mut self.inline[slot];
        buf.clear();
        buf.reserve_exact(len);
        (&mut self.input).take(len as u64).read_to_end(buf)?;
        if buf.len() != len {
            return Err(truncated());
        }
        if indexed(buf, self.names.len()) {
            self.names.push(buf.clone());
            return Ok(Some(self.names.len() - 1));
        }
        Ok(None)
    }

    fn name(&self, index: Option<usize>, slot: usize) -> &[u8] {
        match index {
            Some(k) => self.names.get(k).map_or(&[][..], Vec::as_slice),
            None => self.inline[slot].as_slice(),
        }
    }

    /// The spool itself, to read what follows a mark.
    pub(crate) fn raw(&mut self) -> &mut impl BufRead {
        &mut self.input
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn echoes_of(commands: &[Command], block: usize) -> (Vec<u8>, Vec<u8>) {
        let mut tape = Tape::with_block(block);
        let mut pushed = Vec::new();
        for c in commands {
            tape.push(c).expect("push");
            c.write_echo(&mut pushed).expect("vec");
        }
        let mut replayed = Vec::new();
        let mut reader = tape.reader().expect("reader");
        while let Some(entry) = reader.next_entry().expect("read") {
            match entry {
                Entry::Command(c) => c.write_echo(&mut replayed).expect("vec"),
                Entry::Mark(_) => panic!("no marks were written"),
            }
        }
        (pushed, replayed)
    }

    #[test]
    fn a_tape_replays_what_was_pushed() {
        let press = |n| Cell::new(n).expect("cell");
        let commands = [
            Command::NewGame { player1: b"Ann", player2: b"B\"ob" },
            Command::Play { player: b"Ann", press: press(5) },
            Command::Play { player: b"Zed", press: press(9) },
            Command::Undo,
            Command::Redo,
            Command::PlayAgain,
            Command::Play { player: b"", press: press(1) },
            Command::Play { player: b"Ann", press: press(2) },
        ];
        let (pushed, replayed) = echoes_of(&commands, 1 << 20);
        assert_eq!(replayed, pushed);
        assert!(replayed.starts_with(b"new_game(\"Ann\",\"B\"ob\")play(\"Ann\",5)"));
    }

    #[test]
    fn what_is_rolled_back_is_gone_and_its_names_with_it() {
        let press = Cell::new(4).expect("cell");
        let names: Vec<Vec<u8>> = (0..600).map(|k| format!("N{}", k % 300).into_bytes()).collect();
        for block in [16, 1 << 20] {
            let mut tape = Tape::with_block(block);
            let mut want = Vec::new();
            for (k, pair) in names.chunks(3).enumerate() {
                let at = tape.checkpoint();
                let mut echo = Vec::new();
                for n in pair {
                    let c = Command::Play { player: n, press };
                    tape.push(&c).expect("push");
                    c.write_echo(&mut echo).expect("vec");
                }
                if k % 4 == 1 {
                    tape.rollback(at).expect("rollback");
                } else {
                    want.extend_from_slice(&echo);
                }
            }
            let mut got = Vec::new();
            let mut reader = tape.reader().expect("reader");
            while let Some(Entry::Command(c)) = reader.next_entry().expect("read") {
                c.write_echo(&mut got).expect("vec");
            }
            assert!(got == want, "block {block}");
        }
    }

    #[test]
    fn many_and_long_names_and_a_tape_on_disk_replay_too() {
        let names: Vec<Vec<u8>> = (0..1000)
            .map(|k| if k % 7 == 0 { vec![b'L'; 300 + k] } else { format!("P{k}").into_bytes() })
            .collect();
        let press = Cell::new(3).expect("cell");
        let commands: Vec<Command> = names
            .iter()
            .chain(names.iter().rev())
            .map(|n| Command::Play { player: n, press })
            .collect();
        let (pushed, replayed) = echoes_of(&commands, 64);
        assert_eq!(replayed, pushed);
    }

    #[test]
    fn an_opcode_no_writer_uses_is_an_error_not_a_command() {
        for op in [4, PLAY, PLAY_LAST + 1, FIRST_MARK - 1] {
            let mut tape = Tape::with_block(64);
            tape.raw().write_all(&[op, 0, 0]).expect("write");
            let mut reader = tape.reader().expect("reader");
            let e = reader.next_entry().err().expect("an error");
            assert_eq!(e.kind(), io::ErrorKind::InvalidData, "opcode {op}");
        }
    }
}

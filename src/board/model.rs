//! The terminal board's state and what keys and clicks do to it. Every
//! action is a command to the same engine (through the driver, so bots
//! answer and recordings work as in the shell).

use std::io;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::command::Command;
use crate::engine::Engine;
use crate::game::{Cell, Mark, Phase};
use crate::lang::{Unwritable, writable};
use crate::run::Driver;
use crate::run::record::Recorder;

/// What a key or a click asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Play(Cell),
    /// Ask for two names, then `new_game`.
    NewGame,
    /// `new_game` with the current names.
    Restart,
    PlayAgain,
    Undo,
    Redo,
    Quit,
}

/// The buttons under the board, in order, with their keys.
pub(crate) const BUTTONS: [(Action, char, &str); 6] = [
    (Action::NewGame, 'n', "New game"),
    (Action::Restart, 's', "Restart"),
    (Action::PlayAgain, 'a', "Play again"),
    (Action::Undo, 'u', "Undo"),
    (Action::Redo, 'r', "Redo"),
    (Action::Quit, 'q', "Quit"),
];

/// The name field of `New game`: X's name first, then O's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Prompt {
    /// X's name, once given.
    pub(crate) x_name: Option<String>,
    pub(crate) text: String,
    /// Why the name typed was refused, until the next key.
    pub(crate) refused: Option<Unwritable>,
}

impl Prompt {
    pub(crate) fn asking(&self) -> Mark {
        if self.x_name.is_some() { Mark::O } else { Mark::X }
    }
}

pub(crate) struct App {
    driver: Driver,
    recorder: Recorder,
    pub(crate) prompt: Option<Prompt>,
    pub(crate) quit: bool,
    /// The echo of the last command run (bots' included), for the screen.
    pub(crate) last: Option<String>,
    /// Whether the board fits the terminal; when not, keys only quit.
    pub(crate) fits: bool,
}

impl App {
    pub(crate) fn new(driver: Driver, recorder: Recorder) -> Self {
        App { driver, recorder, prompt: None, quit: false, last: None, fits: true }
    }

    pub(crate) fn engine(&self) -> &Engine {
        &self.driver.engine
    }

    pub(crate) fn key(&mut self, key: KeyEvent) -> io::Result<()> {
        if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
            self.quit = true;
            return Ok(());
        }
        // Nothing shows on a terminal too small: no key may act unseen.
        if !self.fits {
            self.quit = matches!(key.code, KeyCode::Char('q') | KeyCode::Esc);
            return Ok(());
        }
        if let Some(prompt) = &mut self.prompt {
            prompt.refused = None;
            match key.code {
                KeyCode::Esc => self.prompt = None,
                KeyCode::Backspace => {
                    prompt.text.pop();
                }
                KeyCode::Enter => return self.confirm_name(),
                KeyCode::Char(c) => prompt.text.push(c),
                _ => {}
            }
            return Ok(());
        }
        let action = match key.code {
            KeyCode::Char(c @ '1'..='9') => Cell::new(c as u8 - b'0').map(Action::Play),
            KeyCode::Char(c) => BUTTONS.iter().find(|b| b.1 == c).map(|b| b.0),
            KeyCode::Esc => Some(Action::Quit),
            _ => None,
        };
        match action {
            Some(action) => self.act(action),
            None => Ok(()),
        }
    }

    pub(crate) fn act(&mut self, action: Action) -> io::Result<()> {
        let game = self.driver.engine.game();
        match action {
            Action::Play(cell) => {
                let player = game.name(game.state.next).to_vec();
                self.run(&Command::Play { player: &player, press: cell })
            }
            Action::NewGame => {
                self.prompt = Some(Prompt::default());
                Ok(())
            }
            Action::Restart if game.state.phase == Phase::NoGame => self.act(Action::NewGame),
            Action::Restart => {
                let (x, o) = (game.name(Mark::X).to_vec(), game.name(Mark::O).to_vec());
                self.run(&Command::NewGame { player1: &x, player2: &o })
            }
            Action::PlayAgain => self.run(&Command::PlayAgain),
            Action::Undo => self.run(&Command::Undo),
            Action::Redo => self.run(&Command::Redo),
            Action::Quit => {
                self.quit = true;
                Ok(())
            }
        }
    }

    fn confirm_name(&mut self) -> io::Result<()> {
        let Some(prompt) = self.prompt.as_mut() else { return Ok(()) };
        // The name goes into the echo and the recording as `"name"`: one
        // the trace language cannot read back is refused here.
        if let Err(why) = writable(prompt.text.as_bytes()) {
            prompt.refused = Some(why);
            return Ok(());
        }
        let Some(prompt) = self.prompt.take() else { return Ok(()) };
        match prompt.x_name {
            None => {
                let text = String::new();
                self.prompt = Some(Prompt { x_name: Some(prompt.text), text, refused: None });
                Ok(())
            }
            Some(x) => self
                .run(&Command::NewGame { player1: x.as_bytes(), player2: prompt.text.as_bytes() }),
        }
    }

    /// Runs a command (and the bots' answers), recording each.
    fn run(&mut self, command: &Command) -> io::Result<()> {
        let mut record = Vec::new();
        self.driver.act(command, |c, _| {
            c.write_echo(&mut record)?;
            record.push(b'\n');
            Ok::<(), io::Error>(())
        })?;
        let echoes = String::from_utf8_lossy(&record);
        self.last = echoes.lines().last().map(|l| format!("->{l}"));
        self.recorder.keep(&record)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(app: &mut App, code: KeyCode) {
        app.key(KeyEvent::new(code, KeyModifiers::NONE)).expect("key");
    }

    fn typed(app: &mut App, text: &str) {
        text.chars().for_each(|c| press(app, KeyCode::Char(c)));
        press(app, KeyCode::Enter);
    }

    #[test]
    fn keys_start_a_game_play_and_undo() {
        let mut app = App::new(Driver::default(), Recorder::default());
        press(&mut app, KeyCode::Char('n'));
        assert_eq!(app.prompt.as_ref().map(Prompt::asking), Some(Mark::X));
        typed(&mut app, "Ann");
        assert_eq!(app.prompt.as_ref().map(Prompt::asking), Some(Mark::O));
        typed(&mut app, "Bob");
        assert_eq!(app.engine().game().name(Mark::O), b"Bob");
        press(&mut app, KeyCode::Char('5'));
        assert_eq!(app.last.as_deref(), Some("->play(\"Ann\",5)"));
        assert_eq!(app.engine().game().state.next, Mark::O);
        press(&mut app, KeyCode::Char('u'));
        assert_eq!(app.engine().game().state.next, Mark::X);
        press(&mut app, KeyCode::Char('r'));
        press(&mut app, KeyCode::Char('5'));
        assert_eq!(app.engine().game().state.message, crate::game::Message::ButtonTaken);
        press(&mut app, KeyCode::Char('q'));
        assert!(app.quit);
    }

    #[test]
    fn a_name_a_trace_cannot_hold_is_refused_at_the_prompt() {
        let mut app = App::new(Driver::default(), Recorder::default());
        press(&mut app, KeyCode::Char('n'));
        typed(&mut app, "Zed\\");
        let prompt = app.prompt.clone().expect("still asking");
        assert_eq!(
            (prompt.asking(), prompt.refused),
            (Mark::X, Some(Unwritable::TrailingBackslash))
        );
        press(&mut app, KeyCode::Backspace);
        assert_eq!(app.prompt.as_ref().and_then(|p| p.refused), None);
        press(&mut app, KeyCode::Enter);
        typed(&mut app, "O\"Neil");
        assert_eq!(app.prompt.as_ref().and_then(|p| p.refused), Some(Unwritable::Quote));
        for _ in 0..5 {
            press(&mut app, KeyCode::Backspace);
        }
        typed(&mut app, "\\\"Neil");
        let names = app.engine().game().names.clone().map(|n| n.to_vec());
        assert_eq!(names, [b"Zed".to_vec(), b"O\\\"Neil".to_vec()]);
        assert_eq!(app.last.as_deref(), Some("->new_game(\"Zed\",\"O\\\"Neil\")"));
    }

    #[test]
    fn on_a_terminal_too_small_keys_only_quit() {
        let mut app = App::new(Driver::default(), Recorder::default());
        app.fits = false;
        for c in ['5', 's', 'n', 'A', 'u'] {
            press(&mut app, KeyCode::Char(c));
        }
        press(&mut app, KeyCode::Enter);
        assert_eq!((app.prompt.is_none(), app.last.is_none(), app.quit), (true, true, false));
        press(&mut app, KeyCode::Char('q'));
        assert!(app.quit);
    }

    #[test]
    fn escape_cancels_the_name_field_and_restart_keeps_names() {
        let mut app = App::new(Driver::default(), Recorder::default());
        press(&mut app, KeyCode::Char('s'));
        assert!(app.prompt.is_some(), "restart with no game asks for names");
        press(&mut app, KeyCode::Esc);
        assert!(app.prompt.is_none());
        assert!(!app.quit);
        press(&mut app, KeyCode::Char('n'));
        typed(&mut app, "Ann");
        typed(&mut app, "Bob");
        press(&mut app, KeyCode::Char('1'));
        press(&mut app, KeyCode::Char('s'));
        assert_eq!(app.last.as_deref(), Some("->new_game(\"Ann\",\"Bob\")"));
        assert!(app.engine().game().state.board.empty_cells().count() == 9);
    }
}

//! `tictac -g`: the game on a full-screen terminal board, by mouse and
//! keyboard, driving the same engine as every other mode.

pub(crate) mod model;
pub(crate) mod view;

use std::io::{self, IsTerminal, Stdout};
use std::time::Duration;

use crossterm::event::{self, Event, KeyEventKind, MouseButton, MouseEventKind};
use crossterm::terminal::{self, EnterAlternateScreen, LeaveAlternateScreen};
use crossterm::{cursor, execute};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::layout::Rect;

use self::model::App;
use crate::cli::Session;
use crate::run::record::Recorder;
use crate::run::{Driver, RunError};
use crate::status::Status;

/// Puts the terminal back as it was: on quit, on error (by drop) and on
/// panic (by the hook).
struct Restore;

impl Drop for Restore {
    fn drop(&mut self) {
        restore();
    }
}

fn restore() {
    let _ = terminal::disable_raw_mode();
    let _ = execute!(io::stdout(), event::DisableMouseCapture, LeaveAlternateScreen, cursor::Show);
}

pub(crate) fn run(session: &Session) -> Result<Status, RunError> {
    if !(io::stdin().is_terminal() && io::stdout().is_terminal()) {
        return Err(RunError::NoTerminal);
    }
    let recorder = Recorder::open(session.record.as_deref())?;
    // Shown before the board takes the screen, so it is there after quitting.
    let session = crate::run::on_terminal(session);
    let mut app = App::new(Driver::new(session.autopilot()), recorder);

    terminal::enable_raw_mode()?;
    let _restore = Restore;
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        default_hook(info);
    }));
    execute!(io::stdout(), EnterAlternateScreen, event::EnableMouseCapture)?;
    let mut terminal: Terminal<CrosstermBackend<Stdout>> =
        Terminal::new(CrosstermBackend::new(io::stdout()))?;
    terminal.clear()?;
    while !app.quit {
        let size = terminal.size()?;
        app.fits = view::areas(Rect::new(0, 0, size.width, size.height)).is_some();
        terminal.draw(|frame| view::draw(frame, &app))?;
        // Wait for input; a resize simply redraws.
        if !event::poll(Duration::from_millis(500))? {
            continue;
        }
        match event::read()? {
            Event::Key(key) if key.kind != KeyEventKind::Release => app.key(key)?,
            Event::Mouse(mouse) if mouse.kind == MouseEventKind::Down(MouseButton::Left) => {
                let size = terminal.size()?;
                let screen = Rect::new(0, 0, size.width, size.height);
                if app.prompt.is_none()
                    && let Some(action) = view::hit(screen, mouse.column, mouse.row)
                {
                    app.act(action)?;
                }
            }
            _ => {}
        }
    }
    Ok(Status::Ran)
}

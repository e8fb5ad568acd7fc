//! `tictac -g`: the game on a full-screen terminal board, by mouse and
//! keyboard, driving the same engine as every other mode.

pub mod model;
pub mod view;

use std::io::{self, IsTerminal, Stdout};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Sender};
use std::time::Duration;

use crossterm::event::{self, Event, KeyEventKind, MouseButton, MouseEventKind};
use crossterm::terminal::{self, EnterAlternateScreen, LeaveAlternateScreen};
use crossterm::{cursor, execute};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::layout::Rect;

use self::model::App;
use crate::cli::Session;
use crate::platform::signals::{self, Registration};
use crate::run::record::Recorder;
use crate::run::{Driver, RunError};
use crate::status::Status;

/// The longest wait for input before the loop looks at the stop flag again.
const TICK: Duration = Duration::from_millis(100);

/// How long a fatal signal waits for the board to give the terminal back
/// (a terminal that takes no more output cannot hold the process forever).
const RESTORE_WAIT: Duration = Duration::from_secs(2);

/// Puts the terminal back as it was: on quit, on error (by drop), on panic
/// (by the hook), and on a fatal signal (SIGTERM, SIGHUP...), whose cleanup
/// raises `stop` and waits until the loop has left and this has run; the
/// process then dies of the signal. Drawing stays on one thread, so a
/// signal never cuts a frame in half.
struct Restore {
    restored: Sender<()>,
    /// Dropped after the terminal is restored: while a signal's cleanups
    /// run, dropping it waits for the process to end.
    _on_signal: Registration,
}

impl Restore {
    fn new(stop: &Arc<AtomicBool>) -> Restore {
        let (restored, done) = mpsc::channel();
        let stop = Arc::clone(stop);
        let on_signal = signals::on_fatal_signal(move || {
            stop.store(true, Ordering::Relaxed);
            let _ = done.recv_timeout(RESTORE_WAIT);
        });
        Restore { restored, _on_signal: on_signal }
    }
}

impl Drop for Restore {
    fn drop(&mut self) {
        restore();
        let _ = self.restored.send(());
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
    // The board is drawn with escape codes (alternate screen, mouse,
    // colours); a terminal that says it knows none would show them raw.
    if std::env::var_os("TERM").is_some_and(|term| term == "dumb") {
        return Err(RunError::DumbTerminal);
    }
    let recorder = Recorder::open(session.record.as_deref())?;
    // Shown before the board takes the screen, so it is there after quitting.
    let session = crate::run::on_terminal(session);
    let mut app = App::new(Driver::new(session.autopilot()), recorder);

    let stop = Arc::new(AtomicBool::new(false));
    let _restore = Restore::new(&stop);
    terminal::enable_raw_mode()?;
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        default_hook(info);
    }));
    execute!(io::stdout(), EnterAlternateScreen, event::EnableMouseCapture)?;
    let mut terminal: Terminal<CrosstermBackend<Stdout>> =
        Terminal::new(CrosstermBackend::new(io::stdout()))?;
    terminal.clear()?;
    while !app.quit && !stop.load(Ordering::Relaxed) {
        let size = terminal.size()?;
        app.fits = view::areas(Rect::new(0, 0, size.width, size.height)).is_some();
        terminal.draw(|frame| view::draw(frame, &app))?;
        // Wait for input; a resize simply redraws.
        if !event::poll(TICK)? {
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

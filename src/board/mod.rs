//! `tictac -g`: the game on a full-screen terminal board, by mouse and
//! keyboard, driving the same engine as every other mode.

pub mod model;
pub mod view;

use std::io::{self, IsTerminal, Stdout};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::Duration;

use crossterm::event::{
    self, Event, KeyCode, KeyEventKind, KeyModifiers, MouseButton, MouseEventKind,
};
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

/// Takes the terminal for the board: raw, the alternate screen, the mouse,
/// the cursor hidden, the screen cleared (the next frame draws it whole).
fn take(terminal: &mut Terminal<CrosstermBackend<Stdout>>) -> io::Result<()> {
    terminal::enable_raw_mode()?;
    execute!(io::stdout(), EnterAlternateScreen, event::EnableMouseCapture)?;
    terminal.hide_cursor()?;
    terminal.clear()
}

/// Ctrl-Z (read as a key, then SIGTSTP to this process) or a SIGTSTP from
/// elsewhere: the loop puts the terminal back as quitting does and lets the
/// process stop; once it is continued (`fg`), it takes the terminal again
/// and redraws, as vim, less and htop do. The signal's thread only asks
/// and waits: drawing stays on the loop's thread.
struct Suspension {
    asked: Arc<AtomicBool>,
    /// Tells the signal's thread the terminal is back: the process may stop.
    given_back: Sender<()>,
    continued: Receiver<()>,
}

impl Suspension {
    fn new() -> Suspension {
        let asked = Arc::new(AtomicBool::new(false));
        let (given_back, terminal_back) = mpsc::channel();
        let (resumed, continued) = mpsc::channel();
        let asking = Arc::clone(&asked);
        signals::on_suspend(
            move || {
                asking.store(true, Ordering::Relaxed);
                let _ = terminal_back.recv_timeout(RESTORE_WAIT);
            },
            move || {
                let _ = resumed.send(());
            },
        );
        Suspension { asked, given_back, continued }
    }

    /// If a stop was asked for: gives the terminal back, lets the process
    /// stop, and once it is continued takes the terminal again (or, if a
    /// fatal signal came meanwhile, leaves it to `Restore`).
    fn pause_if_asked(
        &self,
        terminal: &mut Terminal<CrosstermBackend<Stdout>>,
        stop: &AtomicBool,
    ) -> io::Result<()> {
        if !self.asked.swap(false, Ordering::Relaxed) {
            return Ok(());
        }
        restore();
        let _ = self.given_back.send(());
        loop {
            match self.continued.recv_timeout(TICK) {
                Err(mpsc::RecvTimeoutError::Timeout) if !stop.load(Ordering::Relaxed) => {}
                _ => break,
            }
        }
        take(terminal)
    }
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
    let suspension = Suspension::new();
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        default_hook(info);
    }));
    let mut terminal: Terminal<CrosstermBackend<Stdout>> =
        Terminal::new(CrosstermBackend::new(io::stdout()))?;
    take(&mut terminal)?;
    while !app.quit && !stop.load(Ordering::Relaxed) {
        suspension.pause_if_asked(&mut terminal, &stop)?;
        let size = terminal.size()?;
        app.fits = view::areas(Rect::new(0, 0, size.width, size.height)).is_some();
        terminal.draw(|frame| view::draw(frame, &app))?;
        // Wait for input; a resize simply redraws.
        if !event::poll(TICK)? {
            continue;
        }
        match event::read()? {
            // Ctrl-Z suspends the board as any full-screen program.
            Event::Key(key)
                if key.code == KeyCode::Char('z')
                    && key.modifiers.contains(KeyModifiers::CONTROL) =>
            {
                signals::suspend()
            }
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

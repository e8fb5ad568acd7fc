//! Console control events on Windows (ctrlc, with its `termination`
//! feature): Ctrl-C, Ctrl-Break and closing the console window run the same
//! cleanups as SIGINT and SIGHUP do on Unix, on a thread of their own. The
//! handler cannot tell the events apart, so each counts as SIGINT: the first
//! one asks a session that reports (`tictac fuzz`) to stop, a second one
//! ends it. When the console is closed, Windows ends the process soon after
//! the event (5 s at most): the cleanups race that end; what they do not
//! finish leaves at most a hidden temporary file, and every program started
//! dies with its Job Object when this process ends (docs/RELIABILITY.md).

use super::{asks_to_stop, die};

/// The numbers `signal.h` gives them on Windows too.
pub(super) const SIGINT: i32 = 2;
pub(super) const SIGTERM: i32 = 15;
#[cfg(test)]
pub(super) const SIGHUP: i32 = 1;

/// How a process stopped by Ctrl-C ends on Windows (STATUS_CONTROL_C_EXIT),
/// as `cmd.exe` and PowerShell expect.
const CONTROL_C_EXIT: u32 = 0xC000_013A;

/// No file size limit raises a signal on Windows: nothing to do.
pub fn survive_file_size_limit() {}

/// A Windows console has no job control (no Ctrl-Z suspending a process):
/// nothing to run before or after.
pub fn on_suspend(_pause: impl Fn() + Send + 'static, _resume: impl Fn() + Send + 'static) {}

/// Nothing suspends a process on Windows: Ctrl-Z stays a key.
pub fn suspend() {}

/// Takes the console's control events from now on. Without a console (or
/// should the handler be refused) the system's default stays: the process
/// ends, leaving at most the hidden temporary file.
pub(super) fn install() {
    let _ = ctrlc::try_set_handler(|| {
        if !asks_to_stop(SIGINT) {
            die(SIGINT)
        }
    });
}

/// Waits for what stops `tictac serve`: Ctrl-C, Ctrl-Break or closing the
/// console (each as good as SIGINT or SIGTERM on Unix).
pub async fn server_stop() {
    use tokio::signal::windows::{ctrl_break, ctrl_close};
    let interrupt = tokio::signal::ctrl_c();
    match (ctrl_break(), ctrl_close()) {
        (Ok(mut brk), Ok(mut close)) => {
            tokio::select! {
                _ = interrupt => {}
                _ = brk.recv() => {}
                _ = close.recv() => {}
            }
        }
        _ => {
            let _ = interrupt.await;
        }
    }
}

/// Ends this process as a console interrupt does.
pub(super) fn end_by(_signal: i32) -> ! {
    std::process::exit(CONTROL_C_EXIT as i32)
}

//! What the test modules share: the built executable, a program in a real
//! terminal (tmux runs it, keys are sent, the screen is read back; `.ci/run`
//! installs tmux; on a machine without it a test says so and passes, except
//! under CI, env `CI` set, where it fails), paths and scripts, and proptest's
//! settings.

#![allow(dead_code)]

use std::process::Command;
use std::thread::sleep;
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_tictac");

/// A tmux server of its own, with one session running a command.
pub struct Tmux {
    socket: String,
}

impl Tmux {
    /// Starts `command` (a shell command line) in a `width`×`height` terminal.
    pub fn start(name: &str, width: u16, height: u16, command: &str) -> Tmux {
        let tmux = Tmux { socket: format!("tictac-{name}-{}", std::process::id()) };
        let (w, h) = (width.to_string(), height.to_string());
        tmux.run(&["new-session", "-d", "-s", "t", "-x", &w, "-y", &h, command]);
        tmux
    }

    pub fn run(&self, args: &[&str]) -> String {
        let out =
            Command::new("tmux").args(["-L", &self.socket]).args(args).output().expect("tmux");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Keys by tmux name (`Enter`, `Right`, `C-c`) or as text.
    pub fn keys(&self, keys: &[&str]) {
        self.run(&[&["send-keys", "-t", "t"][..], keys].concat());
    }

    /// Text typed as is, whatever tmux key names it holds.
    pub fn type_text(&self, text: &str) {
        self.run(&["send-keys", "-t", "t", "-l", text]);
    }

    pub fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", "t"])
    }

    /// Waits until `done` holds for the screen, and returns that screen.
    pub fn wait_until(&self, what: &str, done: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if done(&screen) {
                return screen;
            }
            assert!(start.elapsed() < Duration::from_secs(10), "{what}; the screen:\n{screen}");
            sleep(Duration::from_millis(50));
        }
    }

    /// Waits until the screen shows `text`.
    pub fn wait_for(&self, text: &str) -> String {
        self.wait_until(&format!("no {text:?} on screen"), |s| s.contains(text))
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        self.run(&["kill-server"]);
    }
}

/// Whether tmux can be run; under CI its absence fails the test.
pub fn tmux_available() -> bool {
    let found = Command::new("tmux").arg("-V").output().is_ok_and(|o| o.status.success());
    if !found {
        assert!(std::env::var_os("CI").is_none(), "tmux is missing under CI: .ci/run installs it");
        eprintln!("tmux is not installed: this terminal test is skipped");
    }
    found
}

/// A path as the command line takes it.
pub fn path(dir: &std::path::Path) -> String {
    dir.to_string_lossy().into_owned()
}

/// An executable shell script standing in for a student's program or an
/// oracle.
pub fn script(dir: &std::path::Path, name: &str, body: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let p = dir.join(name);
    std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).expect("write script");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path(&p)
}

/// proptest's settings for a module's properties: `cases` cases unless
/// proptest's own `PROPTEST_CASES` asks for another number, and the failures
/// it finds kept beside the module (`tests/it/NAME.proptest-regressions`;
/// proptest's default would put them in `tests/proptest-regressions/`, since
/// this folder has a `main.rs`).
pub fn proptest_config(cases: u32) -> proptest::test_runner::Config {
    use proptest::test_runner::{Config, FileFailurePersistence};
    let default = Config::default();
    let cases = if std::env::var_os("PROPTEST_CASES").is_some() { default.cases } else { cases };
    let kept = FileFailurePersistence::WithSource("proptest-regressions");
    Config { cases, failure_persistence: Some(Box::new(kept)), ..default }
}

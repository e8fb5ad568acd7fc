//! `tictac -g` end to end in a real terminal: tmux runs it, keys and mouse
//! clicks are sent, the screen is read back. `.ci/run` installs tmux; on a machine without
//! it the test says so and passes, except under CI, where it fails.

use std::path::Path;
use std::thread::sleep;
use std::time::{Duration, Instant};

use crate::common::{BIN, Killed, Tmux, killed_in_tmux, path, temp_dir, tmux_available};
use ratatui::layout::Rect;
use tempfile::TempDir;
use tictac::board::model::Action;
use tictac::board::view::areas;

/// A left click at a 0-based cell of the screen, as the terminal sends it
/// with mouse reporting on (SGR encoding, 1-based).
fn click(tmux: &Tmux, column: u16, row: u16) {
    for end in ['M', 'm'] {
        tmux.type_text(&format!("\x1b[<0;{};{}{end}", column + 1, row + 1));
    }
}

/// `tictac -g ARGS` in a `width`×`height` terminal, and a folder for it
/// (`DIR` in ARGS) where its exit status is written when it quits.
fn board(name: &str, width: u16, height: u16, args: &str) -> (Tmux, TempDir) {
    let dir = temp_dir();
    let args = args.replace("DIR", &path(dir.path()));
    let status = dir.path().join("status");
    let command = format!("{BIN} -g {args}; echo $? > {}; sleep 60", status.display());
    (Tmux::start(name, width, height, &command), dir)
}

/// What `--record DIR/played.txt` recorded.
fn recorded(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("played.txt")).expect("recorded")
}

/// Waits for the board started by `board` to quit, and gives its exit status.
fn exit_status(dir: &Path) -> String {
    let status = dir.join("status");
    let start = Instant::now();
    while !status.exists() {
        assert!(start.elapsed() < Duration::from_secs(10), "tictac -g did not quit");
        sleep(Duration::from_millis(50));
    }
    sleep(Duration::from_millis(100));
    std::fs::read_to_string(&status).expect("status").trim().to_string()
}

#[test]
fn play_by_keys_and_mouse_undo_and_quit() {
    if !tmux_available() {
        return;
    }
    let (tmux, dir) = board("board", 80, 24, "--record DIR/played.txt");
    tmux.wait_for("start new game");
    tmux.keys(&["n"]);
    tmux.wait_for("Name of X");
    tmux.keys(&["Ann", "Enter"]);
    tmux.wait_for("Name of O");
    tmux.keys(&["Bob", "Enter"]);
    tmux.wait_for("x's turn");
    tmux.keys(&["5"]);
    let screen = tmux.wait_for("o's turn");
    assert!(screen.contains("│   X   │"), "{screen}");
    assert!(screen.contains("  ok: => Bob plays next"), "{screen}");
    tmux.keys(&["u"]);
    let screen = tmux.wait_for("x's turn");
    assert!(screen.contains("│   5   │"), "the cell is free again:\n{screen}");
    assert!(screen.contains("  ok: => Ann plays next"), "{screen}");

    // The mouse: a click on cell 4 plays it, a click on Quit quits.
    let layout = areas(Rect::new(0, 0, 80, 24)).expect("80×24 fits");
    let cell4 = layout.cells[3];
    click(&tmux, cell4.x + 3, cell4.y + 1);
    let screen = tmux.wait_for("->play(\"Ann\",4)");
    assert!(screen.contains("o's turn"), "{screen}");
    let (quit, _) = layout.buttons.iter().find(|(_, a)| *a == Action::Quit).expect("a Quit button");
    click(&tmux, quit.x + 1, quit.y);
    assert_eq!(exit_status(dir.path()), "0");
    assert_eq!(
        recorded(dir.path()),
        "new_game(\"Ann\",\"Bob\")\nplay(\"Ann\",5)\nundo\nplay(\"Ann\",4)\n"
    );
}

#[test]
fn a_name_a_trace_cannot_hold_is_refused_at_the_prompt() {
    if !tmux_available() {
        return;
    }
    let (tmux, dir) = board("name", 80, 24, "--record DIR/played.txt");
    tmux.wait_for("start new game");
    tmux.keys(&["n"]);
    tmux.wait_for("Name of X");
    tmux.type_text("Zed\\");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("Not a name a trace can hold: a name may not end with a backslash");
    assert!(screen.contains("Name of X (moves first): Zed\\"), "still asking X:\n{screen}");
    tmux.keys(&["BSpace", "Enter"]);
    tmux.wait_for("Name of O");
    tmux.type_text("O\"Neil");
    tmux.keys(&["Enter"]);
    tmux.wait_for("a \" in a name needs a backslash before it");
    tmux.keys(&["Escape"]);
    // The field closes (a key sent sooner would read as Alt+key).
    tmux.wait_until("Esc did not close the field", |s| !s.contains("Name of O"));
    tmux.keys(&["q"]);
    assert_eq!(exit_status(dir.path()), "0");
    assert_eq!(recorded(dir.path()), "", "nothing ran");
}

#[test]
fn on_a_terminal_too_small_keys_only_quit() {
    if !tmux_available() {
        return;
    }
    let (tmux, dir) = board("small", 60, 20, "--record DIR/played.txt");
    let screen = tmux.wait_for("too small");
    assert!(screen.contains("press q to quit"), "{screen}");
    // Keys that would play, open the name field, or type into it.
    tmux.keys(&["5", "n", "s", "A", "Enter", "u"]);
    sleep(Duration::from_millis(300));
    tmux.run(&["resize-window", "-t", "t", "-x", "80", "-y", "24"]);
    let screen = tmux.wait_for("start new game");
    assert!(!screen.contains("Name of"), "a hidden prompt opened:\n{screen}");
    assert!(screen.contains("│   5   │"), "{screen}");
    tmux.run(&["resize-window", "-t", "t", "-x", "60", "-y", "20"]);
    tmux.wait_for("too small");
    tmux.keys(&["q"]);
    assert_eq!(exit_status(dir.path()), "0");
    assert_eq!(recorded(dir.path()), "", "nothing ran");
}

#[test]
fn the_footer_says_how_to_start_and_long_names_end_with_an_ellipsis() {
    if !tmux_available() {
        return;
    }
    let (tmux, _dir) = board("footer", 80, 24, "");
    tmux.wait_for("Press n to start a new game");
    tmux.keys(&["n"]);
    tmux.wait_for("Name of X");
    tmux.type_text(&"Abcdefghij".repeat(10));
    tmux.keys(&["Enter"]);
    tmux.wait_for("Name of O");
    tmux.type_text("Bob");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("x's turn");
    assert!(screen.contains("1-9 or a click plays"), "{screen}");
    let cut: Vec<&str> = screen.lines().filter(|l| l.trim_end().ends_with('…')).collect();
    assert_eq!(cut.len(), 3, "the status, X's score and the echo are cut:\n{screen}");
    assert!(cut.iter().all(|l| l.contains("Abcdefghij")), "{screen}");
    tmux.keys(&["q"]);
}

#[test]
fn a_random_bot_shows_its_fresh_seed_after_the_board_quits() {
    if !tmux_available() {
        return;
    }
    let (tmux, dir) = board("seed", 80, 24, "--bot Hal=random");
    tmux.wait_for("start new game");
    tmux.keys(&["q"]);
    assert_eq!(exit_status(dir.path()), "0");
    let screen = tmux.wait_for("random seed: ");
    let line = screen.lines().find(|l| l.starts_with("random seed: ")).expect("the seed line");
    assert!(line.trim_end()["random seed: ".len()..].parse::<u64>().is_ok(), "{screen}");
}

#[test]
fn sigterm_and_sighup_give_the_terminal_back_as_quitting_does() {
    if !tmux_available() {
        return;
    }
    for (signal, status) in [("TERM", "143"), ("HUP", "129")] {
        let dir = temp_dir();
        let Killed { tmux, status: said, modes } =
            killed_in_tmux(dir.path(), (80, 24), "", "-g", signal);
        assert_eq!(said, status, "SIG{signal}");
        let flags = "#{alternate_on} #{mouse_any_flag} #{mouse_button_flag} \
                     #{mouse_standard_flag} #{mouse_sgr_flag} #{cursor_flag}";
        let shown = tmux.run(&["display-message", "-p", "-t", "t", flags]);
        // Main screen, no mouse reporting, the cursor shown.
        assert_eq!(shown.trim(), "0 0 0 0 0 1", "SIG{signal}");
        let on = |mode: &str| modes.split_whitespace().any(|m| m == mode);
        assert!(on("echo") && on("icanon"), "SIG{signal}: {modes}");
    }
}

/// A terminal whose TERM says it understands no escape codes gets no
/// full-screen board drawn in raw escape codes: it is refused as no
/// terminal is, with where to go instead (attack 38's C13 e).
#[test]
fn a_dumb_terminal_is_refused_with_the_shell_named() {
    if !tmux_available() {
        return;
    }
    let dir = temp_dir();
    let status = dir.path().join("status");
    let command = format!("TERM=dumb {BIN} -g; echo $? > {}; sleep 60", status.display());
    let tmux = Tmux::start("dumb", 80, 24, &command);
    assert_eq!(exit_status(dir.path()), "2");
    let screen = tmux.joined_screen();
    assert!(
        screen.contains(
            "error: the board (-g) needs a terminal that understands escape codes; TERM is dumb: use -i"
        ),
        "{screen}"
    );
    let shown =
        tmux.run(&["display-message", "-p", "-t", "t", "#{alternate_on} #{mouse_any_flag}"]);
    assert_eq!(shown.trim(), "0 0", "the screen and the mouse were left alone");
}

/// The flags tmux keeps for the pane: alternate screen, mouse reporting,
/// cursor shown.
fn screen_modes(tmux: &Tmux) -> String {
    let flags = "#{alternate_on} #{mouse_any_flag} #{cursor_flag}";
    tmux.run(&["display-message", "-p", "-t", "t", flags]).trim().to_string()
}

/// Stopped by SIGTSTP (`kill -TSTP`, or Ctrl-Z, which the board reads as
/// a key), the board gives the terminal back as quitting does, so the
/// shell gets its own screen, no mouse reporting and the cursor; after
/// `fg` it takes the terminal again (raw: a key acts at once) and redraws
/// (attack 38's C10: the shell was left in the alternate screen with the
/// mouse on, and after `fg` the board ran uncooked, undrawn).
#[test]
fn a_stopped_board_gives_the_terminal_back_and_takes_it_again_after_fg() {
    if !tmux_available() {
        return;
    }
    let dir = temp_dir();
    let pid = dir.path().join("pid");
    let tmux = Tmux::start("suspend", 80, 24, "bash --norc --noprofile -i");
    tmux.type_text(&format!("sh -c 'echo $$ > {}; exec {BIN} -g'", pid.display()));
    tmux.keys(&["Enter"]);
    tmux.wait_for("start new game");
    let pid = std::fs::read_to_string(&pid).expect("pid");
    // The shell says so once for each stop.
    let stopped = |how: &str, times: usize| {
        let screen = tmux.wait_until(&format!("{how}: the shell's Stopped"), |s| {
            s.matches("Stopped").count() == times
        });
        assert_eq!(screen_modes(&tmux), "0 0 1", "{how}: the shell's screen, no mouse:\n{screen}");
    };
    let resumed = |how: &str| {
        tmux.type_text("fg");
        tmux.keys(&["Enter"]);
        tmux.wait_until(&format!("{how}: the board redrawn"), |s| {
            s.contains("start new game") && !s.contains("Stopped")
        });
        assert_eq!(screen_modes(&tmux), "1 1 0", "{how}: the board's screen and mouse");
        // Raw again: a key acts without Enter.
        tmux.keys(&["n"]);
        tmux.wait_for("Name of X");
        tmux.keys(&["Escape"]);
        tmux.wait_until(&format!("{how}: the field closed"), |s| !s.contains("Name of X"));
    };
    let sent =
        std::process::Command::new("kill").args(["-TSTP", pid.trim()]).status().expect("kill");
    assert!(sent.success());
    stopped("kill -TSTP", 1);
    resumed("kill -TSTP");
    tmux.keys(&["C-z"]);
    stopped("Ctrl-Z", 2);
    resumed("Ctrl-Z");
    tmux.keys(&["q"]);
    tmux.wait_until("the board quit", |s| !s.contains("start new game"));
    assert_eq!(screen_modes(&tmux), "0 0 1");
}

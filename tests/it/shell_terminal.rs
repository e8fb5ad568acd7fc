//! `tictac -i` on a real terminal (tmux): the opening line, hints that are
//! never input, Ctrl-C, NO_COLOR, help and exit, completion, pastes, a byte
//! that is not UTF-8, and a history file that cannot be written. Piped sessions are not affected (tests/it/cli.rs,
//! acceptance/).

use crate::common::{
    BIN, Killed, Tmux, file, killed_in_tmux, temp_dir, text, tictac_with_input, tmux_available,
};

const GUIDE: &str = "Type man to list the commands, quit to leave.";

/// `tictac -i ARGS` in tmux, with its history in a folder of its own;
/// None, the test skipped, where tmux cannot be run (`tmux_available`).
fn shell(name: &str, env: &str, args: &str) -> Option<(Tmux, tempfile::TempDir)> {
    if !tmux_available() {
        return None;
    }
    let dir = temp_dir();
    let tmux = shell_with(name, dir.path(), env, args);
    tmux.wait_for("->");
    Some((tmux, dir))
}

/// `ENV tictac -i ARGS` in tmux with `$XDG_DATA_HOME` in `dir`.
fn shell_with(name: &str, dir: &std::path::Path, env: &str, args: &str) -> Tmux {
    let command = format!("XDG_DATA_HOME={} {env} {BIN} -i {args}; sleep 60", dir.display());
    Tmux::start(name, 100, 30, &command)
}

/// The screen's lines, without trailing blanks.
fn lines(screen: &str) -> Vec<&str> {
    screen.lines().map(str::trim_end).collect()
}

#[test]
fn one_opening_line_then_the_state() {
    let Some((tmux, _dir)) = shell("open", "", "") else { return };
    let screen = tmux.wait_for("start new game");
    assert_eq!(lines(&screen)[..2], [GUIDE, "  ok:  => start new game"], "{screen}");
}

#[test]
fn right_arrow_and_end_never_insert_the_hint() {
    let Some((tmux, _dir)) = shell("right", "", "") else { return };
    for (k, key) in ["Right", "End"].into_iter().enumerate() {
        tmux.type_text("play");
        tmux.wait_for("->play(player: NAME");
        tmux.keys(&[key, "Enter"]);
        let screen = tmux.wait_until("no answer", |s| s.matches("Type Error").count() == k + 1);
        assert!(!screen.contains("Syntax Error"), "{key} inserted the hint:\n{screen}");
        assert_eq!(lines(&screen).iter().filter(|l| **l == "->play").count(), k + 1, "{screen}");
    }
}

#[test]
fn ctrl_c_leaves_no_hint_behind() {
    let Some((tmux, _dir)) = shell("ctrlc", "", "") else { return };
    tmux.type_text("play");
    tmux.wait_for("->play(player: NAME");
    tmux.keys(&["C-c"]);
    let prompts = |s: &str| lines(s).iter().filter(|l| l.starts_with("->")).count();
    let screen = tmux.wait_until("no new prompt", |s| prompts(s) == 2);
    assert!(!screen.contains("NAME"), "the hint stayed:\n{screen}");
    assert!(lines(&screen).contains(&"->play"), "{screen}");
}

#[test]
fn no_color_shows_no_hint() {
    let Some((tmux, _dir)) = shell("nocolor", "NO_COLOR=1", "") else { return };
    // Without NO_COLOR, `und` shows the hint `o`.
    tmux.type_text("und");
    tmux.wait_for("->und");
    std::thread::sleep(std::time::Duration::from_millis(300));
    let screen = tmux.screen();
    assert!(lines(&screen).contains(&"->und"), "a hint is shown:\n{screen}");
}

#[test]
fn help_and_exit_get_the_reminder_below_the_engines_message() {
    let Some((tmux, _dir)) = shell("help", "", "") else { return };
    for word in ["help", "exit"] {
        tmux.type_text(word);
        tmux.keys(&["Enter"]);
        let screen = tmux.wait_for(&format!("Error: unknown event name {word}"));
        let l = lines(&screen);
        let at = l.iter().position(|x| *x == format!("Error: unknown event name {word}"));
        let at = at.expect("the engine's message");
        assert_eq!(l.get(at + 1), Some(&GUIDE), "{screen}");
    }
}

#[test]
fn tab_lists_the_events_and_names_leave_out_the_bot() {
    let Some((tmux, _dir)) = shell("tab", "", "--bot Hal=elm") else { return };
    tmux.keys(&["Tab"]);
    tmux.wait_for("play_again");
    tmux.type_text("new_game(\"Ann\",\"Hal\")");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Ann plays next");
    tmux.type_text("play(\"");
    tmux.keys(&["Tab"]);
    // The one person is completed at once (the bot is not a candidate).
    tmux.wait_for("->play(\"Ann\"");
}

/// `tictac -i` in tmux with `$XDG_DATA_HOME` in `dir`, past its first state.
fn shell_in(name: &str, dir: &std::path::Path) -> Tmux {
    let tmux = shell_with(name, dir, "", "");
    tmux.wait_for("start new game");
    tmux
}

/// A paste without bracketed paste arrives key by key: echoing each must not
/// redraw the whole line (with a hint shown, rustyline did: 20 KB wrote
/// hundreds of MB and took seconds). Measured in bytes written, not time:
/// bench/check-paste.sh times it on the release build.
#[test]
fn a_long_paste_is_echoed_without_redrawing_the_line_at_every_key() {
    let Some((tmux, dir)) = shell("paste", "", "") else { return };
    let written = dir.path().join("written");
    tmux.record_output(&written);
    // Hints all along (each `play(` shows one), and a last event to wait for.
    let mut line = "play(\"Ann\",1) ".repeat(1430);
    line.push_str("play(\"Zed\",7)");
    assert!(line.len() > 20_000);
    tmux.paste(&line, 2000);
    let screen = tmux.wait_until("the paste is not echoed whole", |_| {
        tmux.joined_screen().contains("play(\"Ann\",1) play(\"Zed\",7)")
    });
    let bytes = std::fs::metadata(&written).map_or(0, |m| m.len());
    // Each key echoed, and the line redrawn at the end of each row (a few
    // MB); a redraw at every key was 155 MB.
    assert!(bytes < 8 << 20, "{bytes} bytes written for a paste of {}:\n{screen}", line.len());
    tmux.keys(&["Enter"]);
    tmux.wait_for("no such player");
}

/// The session runs as usual: a line gets its answer, `quit` ends it.
fn runs_as_usual(tmux: &Tmux) {
    tmux.type_text("new_game(\"Ann\",\"Bob\")");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Ann plays next");
    tmux.type_text("quit");
    tmux.keys(&["Enter"]);
    std::thread::sleep(std::time::Duration::from_millis(300));
}

#[test]
fn a_history_file_that_cannot_be_written_is_said_once() {
    if !tmux_available() {
        return;
    }
    let dir = temp_dir();
    // A file where the history's folder should be.
    std::fs::write(dir.path().join("tictac"), "").expect("a file in the way");
    let tmux = shell_in("history", dir.path());
    let screen = tmux.joined_screen();
    let said = format!(
        "tictac: the shell's history cannot be kept in {0}/tictac/history: {0}/tictac is a file, not a folder",
        dir.path().display()
    );
    assert_eq!(screen.matches(&said).count(), 1, "{said}\n{screen}");
    assert!(!screen.contains("File exists"), "{screen}");
    runs_as_usual(&tmux);
    let said = "tictac: the shell's history";
    assert_eq!(tmux.screen().matches(said).count(), 1, "said again at the end");
}

#[test]
fn a_history_that_is_a_fifo_is_never_opened() {
    if !tmux_available() {
        return;
    }
    let dir = temp_dir();
    let history = dir.path().join("tictac").join("history");
    std::fs::create_dir(dir.path().join("tictac")).expect("mkdir");
    // mkfifo(1): rustix has no mkfifoat on macOS.
    assert!(std::process::Command::new("mkfifo").arg(&history).status().expect("mkfifo").success());
    // Opening it would wait for a writer (or a reader) before the first line.
    let tmux = shell_in("fifo", dir.path());
    let said = format!(
        "tictac: the shell's history cannot be kept in {}: it is a FIFO, not a regular file",
        history.display()
    );
    let screen = tmux.joined_screen();
    assert_eq!(screen.matches(&said).count(), 1, "{said}\n{screen}");
    runs_as_usual(&tmux);
    assert_eq!(tmux.screen().matches("the shell's history").count(), 1, "said again at the end");
    let kind = std::fs::symlink_metadata(&history).expect("still there").file_type();
    assert!(std::os::unix::fs::FileTypeExt::is_fifo(&kind), "replaced");
}

/// The seed a session showed on its first line, `random seed: N`.
fn shown_seed(screen: &str) -> u64 {
    let line = lines(screen).into_iter().find(|l| l.starts_with("random seed: ")).expect(screen);
    line["random seed: ".len()..].parse().expect("a number")
}

/// The `->play("Hal",k)` line of the bot's first move.
fn first_bot_move(tmux: &Tmux) -> String {
    tmux.type_text("new_game(\"Hal\",\"Ann\")");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("->play(\"Hal\",");
    lines(&screen).into_iter().find(|l| l.starts_with("->play(\"Hal\",")).expect("").to_string()
}

#[test]
fn a_random_bot_gets_a_fresh_seed_that_repeats_the_session() {
    let Some((first, _d1)) = shell("seed1", "", "--bot Hal=random") else { return };
    let screen = first.wait_for("start new game");
    let seed = shown_seed(&screen);
    let played = first_bot_move(&first);
    let Some((second, _d2)) = shell("seed2", "", "--bot Hal=random") else { return };
    assert_ne!(shown_seed(&second.wait_for("start new game")), seed, "a fresh seed each session");

    let Some((again, _d3)) = shell("seed3", "", &format!("--bot Hal=random --seed {seed}")) else {
        return;
    };
    let screen = again.wait_for("start new game");
    assert!(!screen.contains("random seed"), "a given seed is not shown:\n{screen}");
    assert_eq!(first_bot_move(&again), played, "--seed {seed} repeats the session");
}

#[test]
fn bots_that_are_not_random_get_no_seed() {
    let Some((tmux, _dir)) = shell("noseed", "", "--bot Hal=perfect") else { return };
    let screen = tmux.wait_for("start new game");
    assert_eq!(lines(&screen)[0], GUIDE, "{screen}");
}

/// The editor sets the terminal raw at the prompt: a fatal signal there
/// puts it back (Enter ends a line again), and the process dies of it.
#[test]
fn sigterm_and_sighup_at_the_prompt_give_the_terminal_back() {
    if !tmux_available() {
        return;
    }
    for (signal, status) in [("TERM", "143"), ("HUP", "129"), ("QUIT", "131")] {
        let dir = temp_dir();
        let env = format!("XDG_DATA_HOME={}", dir.path().display());
        let Killed { status: said, modes, .. } =
            killed_in_tmux(dir.path(), (100, 30), &env, "-i", signal);
        assert_eq!(said, status, "SIG{signal}");
        let on = |mode: &str| modes.split_whitespace().any(|m| m == mode);
        for mode in ["icanon", "echo", "isig", "icrnl"] {
            assert!(on(mode), "SIG{signal}: {mode} is off: {modes}");
        }
    }
}

/// A game Ann wins, one command a line.
const GAME: &str = "new_game(\"Ann\",\"Bob\")\nplay(\"Ann\",1)\nplay(\"Bob\",4)\n\
play(\"Ann\",2)\nplay(\"Bob\",5)\nplay(\"Ann\",3)\n";

/// The lines a history file keeps, once it holds `last`.
fn history_once_it_holds(tmux: &Tmux, dir: &std::path::Path, last: &str) -> Vec<String> {
    let history = dir.join("tictac").join("history");
    let read = || std::fs::read_to_string(&history).unwrap_or_default();
    tmux.wait_until("no history saved", |_| read().lines().any(|l| l == last));
    read().lines().filter(|l| !l.starts_with('#')).map(String::from).collect()
}

/// A paste, bracketed or not (and so lines typed ahead of their answers):
/// each line is an entry of its own, answered as the same lines piped are,
/// and kept in the history one by one. rustyline dropped every line after
/// the first of a plain paste, and made a bracketed one a single entry.
#[test]
fn a_paste_is_answered_line_by_line_as_piped_lines_are() {
    if !tmux_available() {
        return;
    }
    // The piped session, with each line shown after its prompt.
    let commands: Vec<&str> = GAME.lines().collect();
    let piped = text(&tictac_with_input(&["-i"], GAME.as_bytes()));
    let mut parts = piped.split("->");
    let mut shown = parts.next().expect("the first state").to_string();
    for (k, part) in parts.enumerate() {
        shown += &format!("->{}", commands.get(k).map_or(String::new(), |c| format!("{c}\n")));
        shown += part;
    }
    let expected = format!("{GUIDE}\n{shown}");
    for bracketed in [false, true] {
        let dir = temp_dir();
        let tmux = shell_with(&format!("paste{bracketed}"), dir.path(), "", "");
        tmux.wait_for("start new game");
        let game = file(dir.path(), "game.txt", GAME);
        tmux.run(&["load-buffer", &game]);
        let paste: &[&str] = if bracketed { &["-p"] } else { &[] };
        tmux.run(&[&["paste-buffer", "-t", "t"], paste].concat());
        tmux.wait_for("1: score for \"Ann\"");
        // The session from its start, scrolled off the screen or not.
        let screen = tmux.run(&["capture-pane", "-p", "-S", "-", "-t", "t"]);
        let screen = lines(&screen).join("\n");
        assert!(screen.starts_with(expected.trim_end()), "bracketed {bracketed}:\n{screen}");
        runs_as_usual(&tmux);
        let kept = history_once_it_holds(&tmux, dir.path(), "quit");
        assert_eq!(kept[..6], commands[..], "bracketed {bracketed}");
    }
}

/// One byte that is not UTF-8 (a terminal set to Latin-1): that line is
/// refused, saying why, and the session goes on, its history kept. It
/// ended the session with "writing the output failed", the history lost.
#[test]
fn a_line_that_is_not_utf8_is_refused_and_the_session_goes_on() {
    let Some((tmux, dir)) = shell("latin1", "", "") else { return };
    tmux.wait_for("start new game");
    tmux.type_text("new_game(\"Ann\",\"B");
    tmux.run(&["send-keys", "-t", "t", "-H", "e9"]);
    tmux.type_text("b\")");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("tictac: that line was refused");
    assert!(!screen.contains("failed"), "{screen}");
    runs_as_usual(&tmux);
    let kept = history_once_it_holds(&tmux, dir.path(), "quit");
    assert_eq!(kept, ["new_game(\"Ann\",\"Bob\")", "quit"]);
}

/// A paste whose first line is not UTF-8: the line editor drops what it had
/// read past that line (1 KiB of the paste), so none of the rest runs either
/// (the tail past that 1 KiB ran, out of its context), and the message says
/// so. It said nothing, and lines 53 to 61 of this paste ran.
#[test]
fn a_paste_after_a_line_that_is_not_utf8_is_dropped_whole_and_said() {
    let Some((tmux, dir)) = shell("latin1paste", "", "") else { return };
    tmux.wait_for("start new game");
    let mut paste = b"new_game(\"Ann\",\"B\xe9b\")\n".to_vec();
    for k in 1..=60 {
        paste.extend(format!("new_game(\"P{k}\",\"Q{k}\")\n").bytes());
    }
    let pasted = dir.path().join("paste.txt");
    std::fs::write(&pasted, paste).expect("write");
    tmux.run(&["load-buffer", &pasted.display().to_string()]);
    tmux.run(&["paste-buffer", "-t", "t"]);
    tmux.wait_for("were dropped too, not run: send them again");
    runs_as_usual(&tmux);
    let all = tmux.run(&["capture-pane", "-p", "-J", "-S", "-", "-t", "t"]);
    assert!(!all.contains("(\"P"), "a pasted line ran:\n{all}");
}

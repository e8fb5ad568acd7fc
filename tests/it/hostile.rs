//! Hostile input, through the executable: each gets its message and exit
//! status from SPEC §5, never a panic. (Time linear in size: bench/check-linear.sh.)
//! (Invalid UTF-8 names, a directory as input, an output path in a missing
//! folder, an existing output file and a closed pipe are in `tests/it/cli.rs`.)

use crate::common::{BIN, file, temp_dir, tictac};
use std::fs;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn no_panic(o: &Output) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_ne!(o.status.code(), Some(101), "{err}");
}

fn syntax_error_at(o: &Output, line: usize, column: usize) {
    no_panic(o);
    assert_eq!(o.status.code(), Some(1));
    let expected = format!(
        "Syntax Error: specification of command executions cannot be parsed\nparse error (Line {line}, Column {column})\n"
    );
    assert_eq!(String::from_utf8_lossy(&o.stdout), expected);
}

#[test]
fn nul_and_invalid_bytes_outside_strings_are_parse_errors() {
    let dir = temp_dir();
    let t = file(dir.path(), "nul.txt", b"undo\nredo\x00undo\n");
    syntax_error_at(&tictac(&["-b", &t]), 2, 5);
    let t = file(dir.path(), "ff.txt", b"undo \xff\n");
    syntax_error_at(&tictac(&["-b", &t]), 1, 6);
}

#[test]
fn a_twenty_megabyte_name_runs_whole() {
    let dir = temp_dir();
    let name = "N".repeat(20 * 1024 * 1024);
    let body = format!("new_game(\"{name}\",\"Bob\")\nplay(\"{name}\",5)\n");
    let t = file(dir.path(), "big-name.txt", body.as_bytes());
    let o = tictac(&["-b", &t]);
    no_panic(&o);
    assert_eq!(o.status.code(), Some(0));
    // Quoted in both echoes and the two states' score lines, and once in a
    // hint ("=> NNN... plays next").
    let quoted = format!("\"{}", &name[..63]);
    assert_eq!(memchr::memmem::find_iter(&o.stdout, &quoted).count(), 4);
    assert!(o.stdout.len() > 5 * name.len());
    assert!(o.stdout.len() < 5 * name.len() + 1000);
}

#[test]
fn a_line_of_a_million_parentheses() {
    let dir = temp_dir();
    let body = format!("play{}\n", "(".repeat(1_000_000));
    let t = file(dir.path(), "parens.txt", body.as_bytes());
    syntax_error_at(&tictac(&["-b", &t]), 1, 6);
    let deep = format!("play(\"a\", {})\n", "[".repeat(1_000_000));
    let t = file(dir.path(), "brackets.txt", deep.as_bytes());
    syntax_error_at(&tictac(&["-b", &t]), 1, 11 + 256);
}

#[test]
fn an_unterminated_string_at_the_end_of_the_file() {
    let dir = temp_dir();
    let t = file(dir.path(), "open.txt", b"new_game(\"Ann\",\"Bob\")\nplay(\"Ann,5)");
    syntax_error_at(&tictac(&["-b", &t]), 2, 6);
    let out = dir.path().join("out.txt");
    let o = tictac(&["-b", &t, &out.to_string_lossy()]);
    assert_eq!(o.status.code(), Some(1));
    let written = fs::read_to_string(&out).expect("chunk output");
    assert!(written.starts_with("Syntax Error"), "{written}");
}

#[test]
fn a_hundred_thousand_commands_on_one_line() {
    let dir = temp_dir();
    let body = format!("new_game(\"Ann\",\"Bob\") {}\n", "play(\"Ann\",1) undo ".repeat(50_000));
    let t = file(dir.path(), "one-line.txt", body.as_bytes());
    let o = tictac(&["-b", &t]);
    no_panic(&o);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(o.stdout.windows(3).filter(|w| w == b"\n->").count(), 100_001);
    // In window mode the line is one trace of its own.
    let o = tictac(&["-l", &t]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(o.stdout.windows(3).filter(|w| w == b"\n->").count(), 100_001);
}

#[test]
fn crlf_line_ends_everywhere() {
    let dir = temp_dir();
    let unix = file(dir.path(), "lf.txt", b"new_game(\"Ann\",\"Bob\")\n-- c\n\nplay(\"Ann\",5)\n");
    let dos = file(
        dir.path(),
        "crlf.txt",
        b"new_game(\"Ann\",\"Bob\")\r\n-- c\r\n\r\nplay(\"Ann\",5)\r\n",
    );
    for mode in [&["-b"][..], &["-l"], &["-w", "1", "_"]] {
        let a = tictac(&[mode, &[unix.as_str()]].concat());
        let b = tictac(&[mode, &[dos.as_str()]].concat());
        assert_eq!(a.stdout, b.stdout, "{mode:?}");
    }
    let bad = file(dir.path(), "bad.txt", b"undo\r\nplay(\"Ann\" 5)\r\n");
    syntax_error_at(&tictac(&["-b", &bad]), 2, 12);
}

#[test]
fn an_input_that_opens_but_cannot_be_read() {
    // Reading /proc/self/mem at offset 0 fails; a directory is in tests/it/cli.rs.
    if !Path::new("/proc/self/mem").exists() {
        assert!(std::env::var_os("CI").is_none(), "no /proc/self/mem under CI");
        eprintln!("no /proc/self/mem: skipped");
        return;
    }
    let o = tictac(&["-b", "/proc/self/mem"]);
    no_panic(&o);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "error: '/proc/self/mem' is not readable\n");
}

/// A window counted from the start runs each line as it is read: on an
/// endless input its output comes as the input does, and a reader that goes
/// away ends the run (nothing piles up on a spool meanwhile).
#[test]
fn a_window_from_the_start_on_an_endless_input_stops_when_its_reader_goes() {
    use std::io::{BufRead, BufReader, Write};
    use std::time::{Duration, Instant};
    for window in [["1", "_"], ["3", "2147483647"]] {
        let mut child = Command::new(BIN)
            .args(["-w", window[0], window[1], "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start tictac");
        let mut stdin = child.stdin.take().expect("stdin");
        let writer = std::thread::spawn(move || {
            let block = "undo\n".repeat(1000);
            while stdin.write_all(block.as_bytes()).is_ok() {}
        });
        let stdout = child.stdout.take().expect("stdout");
        let (sender, lines) = std::sync::mpsc::channel();
        // Three lines, then the reader goes away (bounded: the old code
        // printed nothing until the input ended).
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut three = Vec::new();
            for _ in 0..3 {
                let mut line = String::new();
                let _ = reader.read_line(&mut line);
                three.push(line);
            }
            let _ = sender.send(three);
        });
        let Ok(three) = lines.recv_timeout(Duration::from_secs(20)) else {
            let _ = child.kill();
            panic!("-w {} {} printed nothing while its input went on", window[0], window[1]);
        };
        assert!(three.iter().all(|l| l.starts_with("  ")), "{three:?}");
        let start = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().expect("wait") {
                break status;
            }
            if start.elapsed() > Duration::from_secs(20) {
                let _ = child.kill();
                panic!("-w {} {} ran on after its reader went away", window[0], window[1]);
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        assert_eq!(status.code(), Some(0), "-w {} {}", window[0], window[1]);
        writer.join().expect("writer");
    }
}

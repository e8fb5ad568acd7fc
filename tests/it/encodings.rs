//! Traces saved by Windows tools in another encoding than plain UTF-8
//! (Notepad's "UTF-8 with BOM", Windows PowerShell 5.1's `>`, which writes
//! UTF-16): standard output is the oracle's answer to those bytes (a syntax
//! error), byte for byte; standard error names the encoding and says how to
//! save the file as plain UTF-8, in every mode that reads a trace file; and
//! `tictac test` says the same in a failing test's report.

use std::fs;
use std::process::Command;

use crate::common::{BIN, file, run, temp_dir, text, tictac};

fn utf16(text: &str, little: bool) -> Vec<u8> {
    text.encode_utf16()
        .flat_map(|u| if little { u.to_le_bytes() } else { u.to_be_bytes() })
        .collect()
}

const GAME: &str = "new_game(\"Ann\",\"Bob\")\r\nplay(\"Ann\",5)\r\n";

/// Each encoding, the file's bytes and what standard error must name.
fn encoded() -> Vec<(Vec<u8>, &'static str)> {
    vec![
        ([&b"\xEF\xBB\xBF"[..], GAME.as_bytes()].concat(), "begins with a UTF-8 byte order mark"),
        (
            [&[0xFF, 0xFE][..], &utf16(GAME, true)].concat(),
            "is UTF-16 (little-endian, by its byte order mark)",
        ),
        (
            utf16(GAME, true),
            "is UTF-16 (little-endian, by the NUL byte beside each of its letters)",
        ),
        (
            [&[0xFE, 0xFF][..], &utf16(GAME, false)].concat(),
            "is UTF-16 (big-endian, by its byte order mark)",
        ),
    ]
}

const SAVE: &str = "save it as plain UTF-8 (Notepad: File > Save as, Encoding \"UTF-8\"";

#[test]
fn every_mode_keeps_the_oracle_s_output_and_names_the_encoding_on_standard_error() {
    let dir = temp_dir();
    for (k, (bytes, named)) in encoded().into_iter().enumerate() {
        let trace = file(dir.path(), &format!("t{k}.txt"), &bytes);
        let out = dir.path().join(format!("out{k}.txt"));
        let out = out.to_string_lossy();
        for args in [
            vec!["-b", &trace],
            vec!["-b", &trace, &out],
            vec!["-w", "1", "_", &trace],
            vec!["-l", &trace],
        ] {
            let o = tictac(&args);
            let stderr = String::from_utf8_lossy(&o.stderr);
            let hint = format!("tictac: '{trace}' {named}");
            assert!(stderr.starts_with(&hint), "{args:?}: {stderr}");
            assert!(stderr.contains(SAVE), "{stderr}");
            assert!(stderr.contains("Out-File -Encoding utf8") && stderr.contains("Set-Content"));
            assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
            // Standard output and the status are the oracle's answer to the
            // bytes: a syntax error (the same as before this hint).
            if args[0] == "-b" && args.len() == 2 {
                assert_eq!(o.status.code(), Some(1), "{args:?}");
                let column = if named.contains("NUL") { 2 } else { 1 };
                assert_eq!(
                    String::from_utf8_lossy(&o.stdout),
                    format!(
                        "Syntax Error: specification of command executions cannot be parsed\nparse error (Line 1, Column {column})\n"
                    )
                );
            }
        }
    }
    // Plain UTF-8, with CR LF endings or names in other alphabets: nothing said.
    let plain = file(dir.path(), "plain.txt", "new_game(\"Zoë\",\"李\")\r\nundo\n");
    let o = tictac(&["-b", &plain]);
    assert_eq!((o.status.code(), o.stderr.len()), (Some(0), 0), "{}", text(&o));
}

/// From a pipe whose writer gives the mark's first byte, then the rest
/// (two reads): the hint still comes (it was decided on the first read).
#[test]
fn a_byte_order_mark_cut_by_a_pipe_is_named_all_the_same() {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(BIN)
        .args(["-b", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tictac starts");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(b"\xEF").expect("the first byte");
    stdin.flush().expect("flushed");
    // Long enough for tictac to read the byte alone, most of the time; a
    // slower start reads both pieces at once, which passes either way.
    std::thread::sleep(std::time::Duration::from_millis(300));
    stdin.write_all(&[&b"\xBB\xBF"[..], GAME.as_bytes()].concat()).expect("the rest");
    drop(stdin);
    let o = child.wait_with_output().expect("tictac ends");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.starts_with("tictac: '-' begins with a UTF-8 byte order mark"), "{stderr}");
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
}

#[test]
fn a_failing_test_whose_trace_or_expected_file_is_not_plain_utf8_says_so() {
    let dir = temp_dir();
    let suite = dir.path().join("acceptance");
    fs::create_dir(&suite).expect("mkdir");
    let answer = tictac(&["-b", &file(dir.path(), "game.txt", GAME)]).stdout;
    // The trace saved by PowerShell's `>`, the expected output by Notepad.
    fs::write(suite.join("a.txt"), [&[0xFF, 0xFE][..], &utf16(GAME, true)].concat())
        .expect("write");
    fs::write(suite.join("a.expected.txt"), &answer).expect("write");
    fs::write(suite.join("b.txt"), GAME).expect("write");
    fs::write(suite.join("b.expected.txt"), [&b"\xEF\xBB\xBF"[..], &answer].concat())
        .expect("write");
    // A BOM the expected output holds too passes, and is not talked about.
    fs::write(suite.join("c.txt"), b"\xEF\xBB\xBFundo\n").expect("write");
    let c = tictac(&["-b", &suite.join("c.txt").to_string_lossy()]).stdout;
    fs::write(suite.join("c.expected.txt"), c).expect("write");
    let o = run(Command::new(BIN).current_dir(dir.path()).args(["test"]), None);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    let report = |name: &str| {
        out.split(&format!("FAIL {name} ("))
            .nth(1)
            .and_then(|r| r.split("\nFAIL ").next())
            .unwrap_or_default()
            .to_string()
    };
    let a = report("a");
    assert!(a.contains("\n     'acceptance/a.txt' is UTF-16 (little-endian, by its byte order mark): it is read as the bytes it holds, as the ETF oracle reads it, hence the syntax error; save it as plain UTF-8 ("), "{out}");
    let b = report("b");
    assert!(b.contains("\n     'acceptance/b.expected.txt' begins with a UTF-8 byte order mark (EF BB BF): its bytes are expected as they are, which no ETF program prints; save it as plain UTF-8 ("), "{out}");
    assert!(out.contains("PASS c ("), "{out}");
    assert_eq!(out.matches("save it as plain UTF-8").count(), 2, "{out}");
}

//! `--record FILE`: a recording is exactly one session, written as it runs,
//! and it replays in `tictac -b` to the states the session went through.

use std::fs;
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{BIN, path, proptest_config, temp_dir, text, tictac, tictac_with_input};
use proptest::prelude::*;
use tictac::bots::{Autopilot, Bot, Strategy as BotStrategy};
use tictac::game::view::render;
use tictac::run::protocol::{LineProtocol, Reply};
use tictac::run::{Job, Recorder, run_job};
use tictac::status::Status;

#[test]
fn an_existing_file_is_never_recorded_into() {
    let dir = temp_dir();
    let record = dir.path().join("old.txt");
    fs::write(&record, "undo").expect("an earlier session, with no final newline");
    let o = tictac_with_input(&["-i", "--record", &path(&record)], b"new_game(\"A\",\"B\")\n");
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        text(&o),
        format!(
            "Error: recording file {} already exists! --record makes a new file\n",
            path(&record)
        )
    );
    assert_eq!(fs::read_to_string(&record).expect("left alone"), "undo");
}

#[test]
fn a_line_a_file_could_not_replay_is_refused_with_record_only() {
    let line = "new_game(\"Ann\",\"Zed\\\")\n";
    let plain = tictac_with_input(&["-i"], line.as_bytes());
    assert!(text(&plain).contains("  0: score for \"Zed\\\" (as O)"), "{}", text(&plain));

    let dir = temp_dir();
    let record = dir.path().join("session.txt");
    let then = "new_game(\"Ann\",\"Zed\") play(\"Ann\",5)\n";
    let o =
        tictac_with_input(&["-i", "--record", &path(&record)], format!("{line}{then}").as_bytes());
    let shown = text(&o);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        shown.contains(
            "->Not run: --record cannot write \"Zed\\\" to a trace file: a name may not end with \
             a backslash (it would escape the closing quote)\n->  ok: => Zed plays next\n"
        ),
        "{shown}"
    );
    assert!(!shown.contains("score for \"Zed\\\""), "nothing of the refused line ran: {shown}");
    assert_eq!(fs::read_to_string(&record).expect("recorded"), then);
}

#[test]
fn a_recording_replays_names_with_escaped_quotes_and_backslashes() {
    let dir = temp_dir();
    let record = dir.path().join("session.txt");
    let session = "new_game(\"O\\\"Neil\",\"B\\\\x\")  -- names with \\\" and \\\\\n\
                   play(\"O\\\"Neil\", 5) undo redo\nplay(\"B\\\\x\",1)\n";
    let o = tictac_with_input(&["-i", "--record", &path(&record)], session.as_bytes());
    let shell = text(&o);
    assert_eq!(fs::read_to_string(&record).expect("recorded"), session);
    let replay = text(&tictac(&["-b", &path(&record)]));
    // The shell's prompt stands before each state it prints.
    fn last_state(t: &str) -> Vec<&str> {
        let lines = t.trim_end_matches("->").lines().rev().take(6);
        lines.map(|l| l.strip_prefix("->").unwrap_or(l)).collect()
    }
    assert_eq!(last_state(&replay), last_state(&shell), "{shell}\n---\n{replay}");
    assert!(replay.contains("->play(\"B\\\\x\",1)\n  ok: => O\\\"Neil plays next\n"), "{replay}");
}

#[test]
fn a_killed_session_keeps_every_line_that_ran() {
    let dir = temp_dir();
    let record = dir.path().join("session.txt");
    let mut child = Command::new(BIN)
        .args(["-i", "--record", &path(&record)])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(b"new_game(\"Ann\",\"Bob\")\nplay(\"Ann\",5)\n").expect("type");
    stdin.flush().expect("flush");
    // Wait for the third prompt: both lines have run.
    let mut stdout = child.stdout.take().expect("stdout");
    let mut seen = Vec::new();
    let start = Instant::now();
    while seen.windows(2).filter(|w| w == b"->").count() < 3 {
        assert!(start.elapsed() < Duration::from_secs(10), "no third prompt");
        let mut buf = [0; 4096];
        let n = stdout.read(&mut buf).expect("read");
        assert!(n > 0, "the shell ended early");
        seen.extend_from_slice(&buf[..n]);
    }
    child.kill().expect("kill");
    child.wait().expect("reap");
    assert_eq!(
        fs::read_to_string(&record).expect("recorded"),
        "new_game(\"Ann\",\"Bob\")\nplay(\"Ann\",5)\n"
    );
}

/// A name: mostly the players', sometimes with quotes and backslashes.
fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(&["Ann", "Bob", "Hal"][..]).prop_map(String::from),
        2 => "[AB][a\\\\\" -]{0,3}",
    ]
}

/// One event as typed, well-formed or not.
fn event() -> impl Strategy<Value = String> {
    prop_oneof![
        2 => (name(), name()).prop_map(|(a, b)| format!("new_game(\"{a}\",\"{b}\")")),
        6 => (name(), prop::sample::select(&["1", "5", "9", "05", "5.0", " 3"][..]))
            .prop_map(|(a, k)| format!("play(\"{a}\",{k})")),
        1 => Just("play_again".to_string()),
        2 => Just("undo".to_string()),
        2 => Just("redo".to_string()),
        1 => prop::sample::select(&["play(", "x", "\"", "undo(1)", "-- note \""][..])
            .prop_map(String::from),
    ]
}

/// A line of a session: events apart, then maybe a comment.
fn line() -> impl Strategy<Value = String> {
    let events = prop::collection::vec(event(), 0..4);
    let sep = prop::sample::select(&[" ", "  ", "\t", "?", ""][..]);
    let comment = prop::sample::select(&["", "", " -- a \"note\\"][..]);
    (events, sep, comment).prop_map(|(events, sep, comment)| events.join(sep) + comment)
}

/// The state blocks of a transcript: the initial one, then one a command.
fn states(transcript: &[u8]) -> Vec<Vec<u8>> {
    let lines: Vec<&[u8]> = transcript.split_inclusive(|&b| b == b'\n').collect();
    let mut blocks = vec![lines[..6].concat()];
    for step in lines[6..].chunks(7) {
        assert!(step[0].starts_with(b"->"), "{}", String::from_utf8_lossy(transcript));
        blocks.push(step[1..].concat());
    }
    blocks
}

proptest! {
    #![proptest_config(proptest_config(256))]

    /// LineProtocol sessions recorded line by line replay in the batch engine: the
    /// recording validates as one file, and after each line that ran the
    /// batch transcript is in the state the shell was in. Cases: 256, or
    /// PROPTEST_CASES.
    #[test]
    fn recorded_sessions_replay_in_batch_to_the_same_states(
        lines in prop::collection::vec(line(), 0..24),
        with_bot in any::<bool>(),
    ) {
        let dir = temp_dir();
        let file = dir.path().join("session.txt");
        let mut recorder = Recorder::open(Some(&file)).expect("a new file");
        let bots = if with_bot {
            vec![Bot { name: b"Hal".to_vec(), strategy: BotStrategy::Elm }]
        } else {
            Vec::new()
        };
        let mut shell = LineProtocol::new(Autopilot::new(bots, None)).recording(true);
        // After each line that ran: how many commands it recorded, and the state.
        let mut expected = Vec::new();
        for line in &lines {
            let before = render(shell.engine().game());
            let mut shown = Vec::new();
            match shell.line(line.as_bytes(), &mut shown).expect("vec write") {
                Reply::Ran(kept) => {
                    recorder.keep(&kept).expect("record");
                    expected.push((kept, render(shell.engine().game())));
                }
                Reply::Refused if shown.starts_with(b"Not run:") => {
                    prop_assert_eq!(render(shell.engine().game()), before);
                }
                other => prop_assert_ne!(other, Reply::Quit),
            }
        }
        drop(recorder);

        let mut transcript = Vec::new();
        let outcome = run_job(Job::Whole, &file, &mut transcript, Autopilot::default());
        prop_assert_eq!(outcome.ok(), Some(Status::Ran), "{}", String::from_utf8_lossy(&transcript));
        let replayed = states(&transcript);
        let mut at = 0;
        for (kept, state) in &expected {
            at += tictac::lang::check(kept).expect("a recorded line validates alone").len();
            prop_assert!(at < replayed.len(), "the replay ran fewer commands");
            prop_assert_eq!(
                String::from_utf8_lossy(&replayed[at]),
                String::from_utf8_lossy(state),
                "after {:?}", String::from_utf8_lossy(kept)
            );
        }
        prop_assert_eq!(at + 1, replayed.len(), "the replay ran more commands");
    }
}

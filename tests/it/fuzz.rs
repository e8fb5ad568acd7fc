//! A byte-level fuzzer on proptest (cargo-fuzz needs a nightly toolchain,
//! which this project's machines cannot fetch): traces built from the
//! language's tokens and arbitrary bytes. Nothing may panic, and the
//! streaming reader, with buffer edges anywhere, must agree exactly with the
//! in-memory reader of the same kept lines.

use crate::common::proptest_config;
use proptest::prelude::*;
use tictac::behaviour::kept_lines;
use tictac::bots::Autopilot;
use tictac::lang::source::KeptLines;
use tictac::lang::{self, TraceError};
use tictac::run::protocol::LineProtocol;

/// Pieces of traces: tokens, their near misses, and raw bytes.
fn piece() -> impl Strategy<Value = Vec<u8>> {
    let words: Vec<&'static [u8]> = vec![
        b"new_game",
        b"play",
        b"play_again",
        b"undo",
        b"redo",
        b"jump",
        b"STRING",
        b"type",
        b"TRUE",
        b"false",
        b"Ora",
        b"(",
        b")",
        b",",
        b"\"",
        b"\\",
        b"\\\"",
        b"\"Ann\"",
        b"\"Bob\"",
        b"'",
        b"'c'",
        b"[",
        b"]",
        b"<<",
        b">>",
        b"-",
        b"--",
        b"-- note\n",
        b".",
        b"0",
        b"5",
        b"9",
        b"10",
        b"1.50",
        b"007",
        b"99999999999999999999",
        b" ",
        b"\t",
        b"\r",
        b"\n",
        b"\r\n",
        b"?",
        b"\x00",
        b"\xff",
        b"\x0c",
        b"\xc3\xa9",
    ];
    prop_oneof![
        8 => prop::sample::select(words).prop_map(|w| w.to_vec()),
        1 => any::<u8>().prop_map(|b| vec![b]),
    ]
}

fn trace() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(piece(), 0..80).prop_map(|pieces| pieces.concat())
}

/// Blanks between tokens: spaces, line ends, `?`, comments, blank lines.
fn gap() -> impl Strategy<Value = Vec<u8>> {
    let gaps: Vec<&'static [u8]> =
        vec![b"", b"", b" ", b"\n", b"\r\n", b"\t", b"?", b" -- note\n", b"\n\n  \n", b"\n--x\n"];
    prop::sample::select(gaps).prop_map(|g| g.to_vec())
}

fn value() -> impl Strategy<Value = Vec<u8>> {
    let leaf = prop_oneof![
        3 => prop::sample::select(vec!["Ann", "Bob", "", "a\\\"b", "x\ny", "\\"])
            .prop_map(|s| format!("\"{s}\"").into_bytes()),
        3 => (0u8..=11).prop_map(|n| n.to_string().into_bytes()),
        1 => Just(b"- 3".to_vec()),
        1 => Just(b"-\n3".to_vec()),
        1 => Just(b"5.0".to_vec()),
        1 => Just(b"1.5".to_vec()),
        1 => Just(b"'c'".to_vec()),
        1 => Just(b"Ora".to_vec()),
        1 => Just(b"TRUE".to_vec()),
    ];
    leaf.prop_recursive(2, 6, 3, |inner| {
        prop::collection::vec((gap(), inner, gap()), 0..3).prop_map(|items| {
            let items: Vec<Vec<u8>> =
                items.into_iter().map(|(a, v, b)| [a, v, b].concat()).collect();
            [b"[".to_vec(), items.join(&b","[..]), b"]".to_vec()].concat()
        })
    })
}

/// Well-formed events (mostly), with blanks of every kind between tokens.
fn structured() -> impl Strategy<Value = Vec<u8>> {
    let name = prop::sample::select(vec![
        "new_game",
        "play",
        "play",
        "play",
        "play_again",
        "undo",
        "redo",
        "jump",
    ]);
    let args = prop::option::weighted(0.6, prop::collection::vec((gap(), value(), gap()), 1..4));
    let event = (name, gap(), args, gap()).prop_map(|(name, g1, args, g2)| {
        let mut e = name.as_bytes().to_vec();
        e.extend(g1);
        if let Some(args) = args {
            e.push(b'(');
            let parts: Vec<Vec<u8>> =
                args.into_iter().map(|(a, v, b)| [a, v, b].concat()).collect();
            e.extend(parts.join(&b","[..]));
            e.push(b')');
        }
        e.extend(g2);
        e
    });
    prop::collection::vec(event, 0..40).prop_map(|events| events.join(&b"\n"[..]))
}

/// What a reader concluded: the error text, or the echoes of the commands.
fn verdict(result: Result<Vec<Vec<u8>>, TraceError>) -> Vec<u8> {
    match result {
        Ok(echoes) => echoes.concat(),
        Err(e) => {
            let mut text = b"ERROR ".to_vec();
            e.write_to(&mut text).expect("vec");
            text
        }
    }
}

fn in_memory(text: &[u8]) -> Vec<u8> {
    verdict(lang::check(text).map(|commands| {
        commands
            .iter()
            .map(|c| {
                let mut echo = Vec::new();
                c.write_echo(&mut echo).expect("vec");
                echo.push(b'\n');
                echo
            })
            .collect()
    }))
}

/// The streaming reader with buffers of `refill` bytes.
fn streamed(bytes: &[u8], refill: usize) -> Vec<u8> {
    let mut echoes = Vec::new();
    // A tiny buffer: edges everywhere, mid-token too.
    let lines = KeptLines::new(std::io::BufReader::with_capacity(refill, bytes));
    let walked = lang::validate(lines, |c: &tictac::command::Command| {
        let mut echo = Vec::new();
        c.write_echo(&mut echo)?;
        echo.push(b'\n');
        echoes.push(echo);
        Ok(())
    });
    verdict(match walked {
        Ok(Ok(())) => Ok(echoes),
        Ok(Err(rejection)) => Err(rejection.into_trace_error()),
        Err(e) => panic!("reading a slice failed: {e:?}"),
    })
}

proptest! {
    #![proptest_config(proptest_config(2000))]

    #[test]
    fn streaming_agrees_with_memory_at_any_buffer_edge(
        bytes in trace(),
        refill in 1usize..48,
    ) {
        let expected = in_memory(&kept_lines(&bytes));
        prop_assert_eq!(
            String::from_utf8_lossy(&streamed(&bytes, refill)).into_owned(),
            String::from_utf8_lossy(&expected).into_owned()
        );
    }

    #[test]
    fn streaming_agrees_with_memory_on_well_formed_traces(
        bytes in structured(),
        refill in 1usize..48,
    ) {
        prop_assert_eq!(
            String::from_utf8_lossy(&streamed(&bytes, refill)).into_owned(),
            String::from_utf8_lossy(&in_memory(&kept_lines(&bytes))).into_owned()
        );
    }

    #[test]
    fn no_line_or_shell_input_panics(bytes in trace()) {
        // A raw line, as the shell and window mode see it.
        let _ = lang::check(&bytes);
        let mut shell = LineProtocol::new(Autopilot::default());
        let mut out = Vec::new();
        for line in bytes.split(|&b| b == b'\n') {
            shell.line(line, &mut out).expect("vec");
        }
        // The shell's output always ends with a whole state or message.
        prop_assert!(out.is_empty() || out.ends_with(b"\n"));
    }

    #[test]
    fn valid_traces_run_through_the_engine(bytes in trace()) {
        if let Ok(commands) = lang::check(&bytes) {
            let mut engine = tictac::engine::Engine::new();
            commands.iter().for_each(|c| engine.run(c));
        }
    }
}

/// Shrunk cases the properties found: an event spanning blank and
/// whitespace-only lines, then a comment ending the last line.
#[test]
fn events_across_dropped_lines_then_a_last_comment_agree_with_memory() {
    let cases: [(&[u8], usize); 2] = [
        (b"new_game \nplay_again ( [0\n\n  \n]\t)\nnew_game ([\n10 ] ) -- note\n", 4),
        (
            b"play([] )\nplay\r\n( \"Ann\" )\r\n\nplay([] ) \nplay(\n\n  \n[] , [\r\n- 3\n\n  \n] -- note\n)\r\n\nplay ( []\n\n  \n,\r\n[]\n\n  \n) -- note\n",
            7,
        ),
    ];
    for (bytes, refill) in cases {
        let want = String::from_utf8_lossy(&in_memory(bytes)).into_owned();
        assert!(want.starts_with("ERROR Type Error"), "{want}");
        for refill in [refill, 1, 2, 3, 5, 64] {
            let got = String::from_utf8_lossy(&streamed(bytes, refill)).into_owned();
            assert_eq!(got, want, "refill {refill}: {bytes:?}");
        }
    }
}

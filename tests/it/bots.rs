//! Bots and `tictac verify` from outside: the game's figures, lost-game
//! traces that replay, bot sessions that replay as plain traces, and bots
//! that never play out of turn or on a taken cell.

use crate::common::{temp_dir, text, tictac, tictac_with_input};
use std::fs;

/// The commands of a transcript (its `->` lines), as a trace.
fn commands_of(transcript: &str) -> String {
    transcript.lines().filter_map(|l| l.strip_prefix("->")).map(|l| format!("{l}\n")).collect()
}

#[test]
fn verify_prints_the_computed_facts_and_table() {
    let o = tictac(&["verify"]);
    assert!(o.status.success());
    let out = text(&o);
    for fact in [
        "possible games        255168  (won by X 131184, won by O 77904, drawn 46080)",
        "reachable positions     5478",
        "terminal positions       958  (won by X 626, won by O 316, drawn 16)",
    ] {
        assert!(out.contains(fact), "{fact} missing from\n{out}");
    }
    for strategy in ["tla", "elm", "perfect", "random"] {
        assert_eq!(out.lines().filter(|l| l.trim_start().starts_with(strategy)).count(), 2);
    }
    let perfect: Vec<&str> = out.lines().filter(|l| l.contains("perfect")).collect();
    assert!(perfect.iter().all(|l| l.ends_with(" 0")), "perfect never loses: {perfect:?}");
    // The guide's page shows this very output (one run of verify for both).
    let guide = crate::docs::read("docs/guide/verify.md");
    let facts = crate::docs::block(&guide, "Tic-tac-toe from the empty board, X first:");
    let table = crate::docs::block(
        &guide,
        "Each strategy against every sequence of opponent moves (every choice it allows explored):",
    );
    assert_eq!(out, format!("{facts}\n{table}"), "docs/guide/verify.md");
}

#[test]
fn one_strategy_and_its_lost_game_replays_to_the_loss() {
    let dir = temp_dir();
    let trace = dir.path().join("elm-loses.txt");
    let t = trace.to_string_lossy();
    let o = tictac(&["verify", "--strategy", "elm", "--as", "X", "--trace-out", &t]);
    let out = text(&o);
    assert!(out.starts_with("games: 119, wins: 80, draws: 18, losses: 21\n"), "{out}");
    assert!(out.contains("first lost game written to"), "{out}");
    let replay = text(&tictac(&["-b", &t]));
    let last_state: Vec<&str> = replay.lines().rev().take(6).collect();
    assert_eq!(last_state[0], "  1: score for \"Rival\" (as O)", "{replay}");
    assert_eq!(last_state[1], "  0: score for \"Elm\" (as X)", "{replay}");
    assert_eq!(last_state[5], "  there is a winner: => play again or start new game", "{replay}");
    // The file is not overwritten by a second run.
    let again = tictac(&["verify", "--strategy", "elm", "--as", "X", "--trace-out", &t]);
    assert_eq!(again.status.code(), Some(2));
    assert!(text(&again).contains("already exists"));
}

#[test]
fn a_strategy_that_never_loses_writes_no_trace() {
    let dir = temp_dir();
    let trace = dir.path().join("none.txt");
    let t = trace.to_string_lossy();
    let o = tictac(&["verify", "--strategy", "tla", "--as", "X", "--trace-out", &t]);
    assert!(text(&o).starts_with("games: 928, wins: 768, draws: 160, losses: 0\n"), "{}", text(&o));
    assert!(text(&o).contains("no lost game"));
    assert!(!trace.exists());
}

const SESSION: &str = "new_game(\"Ann\",\"Hal\")\nplay(\"Ann\",1)\nplay(\"Ann\",2)\nundo\nredo\nplay(\"Ann\",9)\nplay(\"Ann\",3)\nplay(\"Ann\",7)\nplay_again\nplay(\"Ann\",5)\nundo\nnew_game(\"Hal\",\"Ann\")\nplay(\"Ann\",1)\n";

#[test]
fn bot_sessions_replay_byte_for_byte_as_plain_traces() {
    let dir = temp_dir();
    let trace = dir.path().join("session.txt");
    fs::write(&trace, SESSION).expect("write");
    let t = trace.to_string_lossy();
    for strategy in ["tla", "elm", "perfect", "random"] {
        for seed in [None, Some("3"), Some("11")] {
            let bot = format!("Hal={strategy}");
            let mut args = vec!["-b", &*t, "--bot", &bot];
            if let Some(seed) = seed {
                args.extend(["--seed", seed]);
            }
            let with_bot = text(&tictac(&args));
            let replay_path = dir.path().join("replay.txt");
            fs::write(&replay_path, commands_of(&with_bot)).expect("write");
            let replayed = text(&tictac(&["-b", &replay_path.to_string_lossy()]));
            assert_eq!(replayed, with_bot, "{strategy} {seed:?}");
            assert!(with_bot.contains("->play(\"Hal\","), "the bot played: {with_bot}");
        }
    }
}

#[test]
fn bots_never_play_out_of_turn_or_on_a_taken_cell() {
    let dir = temp_dir();
    let trace = dir.path().join("bots.txt");
    fs::write(&trace, "new_game(\"Hal\",\"Eve\")\nplay_again\nplay_again\nundo\nplay_again\n")
        .expect("write");
    let t = trace.to_string_lossy();
    for seed in 0..30 {
        let seed = seed.to_string();
        let out = text(&tictac(&[
            "-b",
            &t,
            "--bot",
            "Hal=random",
            "--bot",
            "Eve=random",
            "--seed",
            &seed,
        ]));
        let lines: Vec<&str> = out.lines().collect();
        let mut bot_moves = 0;
        for (k, line) in lines.iter().enumerate() {
            if line.starts_with("->play(") {
                bot_moves += 1;
                let status = lines[k + 1];
                assert!(
                    status.starts_with("  ok:")
                        || status.starts_with("  there is a winner:")
                        || status.starts_with("  game ended in a tie:"),
                    "seed {seed}: {line} gave {status}"
                );
            }
        }
        assert!(bot_moves >= 5 * 3, "three rounds were played: {out}");
    }
}

#[test]
fn a_shell_with_a_bot_records_a_trace_that_replays_to_the_same_state() {
    let dir = temp_dir();
    let record = dir.path().join("played.txt");
    let r = record.to_string_lossy();
    let typed =
        "new_game(\"Ann\",\"Hal\")\nplay(\"Ann\",5)\nundo\nplay(\"Ann\",9) play(\"Ann\",1)\n";
    let args = ["--bot", "Hal=perfect", "-i", "--record", &r];
    let shell = text(&tictac_with_input(&args, typed.as_bytes()));
    assert!(shell.contains("->play(\"Hal\","), "{shell}");
    assert!(shell.contains("->undo\n"), "the bot's move is undone with the person's: {shell}");
    let replay = text(&tictac(&["-b", &r]));
    let final_state = |t: &str| t.lines().rev().take(6).map(String::from).collect::<Vec<_>>();
    let shell_final: Vec<String> =
        shell.trim_end_matches("->").lines().rev().take(6).map(String::from).collect();
    assert_eq!(final_state(&replay), shell_final, "{shell}\n---\n{replay}");
}

/// Off a terminal (`-b`, piped `-i`) a `random` bot without `--seed` takes
/// the lowest free cell and nothing is said of a seed: output depends only
/// on the input.
#[test]
fn off_a_terminal_random_without_a_seed_is_repeatable_and_silent() {
    let dir = temp_dir();
    let trace = dir.path().join("t.txt");
    fs::write(&trace, "new_game(\"Hal\",\"Ann\")\n").expect("write");
    let run = tictac(&["-b", &trace.to_string_lossy(), "--bot", "Hal=random"]);
    assert!(run.stderr.is_empty(), "{}", String::from_utf8_lossy(&run.stderr));
    assert!(text(&run).contains("->play(\"Hal\",1)"), "{}", text(&run));

    let shell = tictac_with_input(&["-i", "--bot", "Hal=random"], b"new_game(\"Hal\",\"Ann\")\n");
    assert!(shell.stderr.is_empty(), "{}", String::from_utf8_lossy(&shell.stderr));
    assert!(text(&shell).contains("->play(\"Hal\",1)"), "{}", text(&shell));
}

//! What a request runs, on plain data: a trace in a mode (`/api/run`,
//! through the same `run_input` as the command line) or a game's state
//! after a trace (`/api/state`). Nothing here knows of HTTP. What the
//! state holds, and how the game is drawn into it, is the static site's
//! (`tictac_web::state`): one definition for both.

use std::time::{Duration, Instant};

use serde::Serialize;

use super::error::ApiError;
use super::limits::Capped;
use tictac_web::state::{GameState, Rejected, history, text, view};

use crate::bots::Autopilot;
use crate::game::Phase;
use crate::game::view::write_state;
use crate::lang;
use crate::lang::source::KeptLines;
use crate::run::tape::{Entry, Tape};
use crate::run::{Driver, Input, Job, PipelineError as RunError, run_input, show_step, step};
use crate::status::WriteError;

/// `/api/run`: the output, byte for byte the command line's, and the exit
/// status (1 when a syntax or type error was printed).
#[derive(Debug, Serialize)]
pub(crate) struct RunReply {
    /// Sent after the other fields (see `reply`).
    #[serde(skip)]
    pub(crate) output: String,
    pub(crate) status: u8,
    /// What the command line writes on standard error (a trace that begins
    /// with a byte order mark: how to save it as plain UTF-8).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) stderr: Option<String>,
}

/// When a run must stop, and the bound to name if it does.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Budget {
    pub(crate) deadline: Instant,
    pub(crate) timeout: Duration,
}

impl Budget {
    pub(crate) fn starting_now(timeout: Duration) -> Budget {
        Budget { deadline: Instant::now() + timeout, timeout }
    }
}

pub(crate) fn run(
    trace: &str,
    job: Job,
    autopilot: Autopilot,
    budget: Budget,
) -> Result<RunReply, ApiError> {
    let mut out = Capped::new(budget.deadline);
    let input = Input::memory(trace.as_bytes());
    let stderr = input.hint().map(|hint| hint + "\n");
    let outcome = match run_input(job, input, &mut out, autopilot) {
        Ok(outcome) => outcome,
        Err(RunError::Write(WriteError::Failed(e))) => {
            return Err(ApiError::from_cut(&e, budget.timeout));
        }
        Err(RunError::Spool(e)) => return Err(ApiError::from_spool(&e, budget.timeout)),
        Err(e) => return Err(ApiError::Internal(e.to_string())),
    };
    Ok(RunReply { output: text(out.bytes), status: outcome.code(), stderr })
}

/// The state after `trace`. The trace is the game's whole record, bots'
/// moves included, so the bots answer only after its last command (as
/// often as it is their turn; after an `undo`/`redo` they walk on).
pub(crate) fn state(
    trace: &str,
    autopilot: Autopilot,
    budget: Budget,
) -> Result<Result<GameState, Rejected>, ApiError> {
    let cut = |e: std::io::Error| ApiError::from_cut(&e, budget.timeout);
    let spool = |e: std::io::Error| ApiError::from_spool(&e, budget.timeout);
    let mut out = Capped::new(budget.deadline);
    // Validated as `-b` does, in constant memory (commands on a tape, type
    // errors on a spool): an in-memory check of a 1 MiB trace of errors
    // took tens of MiB, and the server runs several at once.
    let mut tape = Tape::default();
    let mut commands = 0usize;
    let verdict =
        lang::validate(KeptLines::new(trace.as_bytes()), |c: &tictac_core::command::Command| {
            commands += 1;
            tape.push(c)
        });
    match verdict {
        Ok(Ok(())) => {}
        Ok(Err(rejection)) => {
            rejection.write_to(&mut out).map_err(cut)?;
            return Ok(Err(Rejected { error: text(out.bytes), status: 1 }));
        }
        Err(lang::Failure::Read(e) | lang::Failure::Keep(e)) => return Err(spool(e)),
    }
    let mut driver = Driver::new(autopilot);
    let mut answers = Vec::new();
    write_state(&mut out, driver.engine.game()).map_err(cut)?;
    let mut tape = tape.reader().map_err(spool)?;
    let mut k = 0;
    while k + 1 < commands {
        match tape.next_entry().map_err(spool)? {
            Some(Entry::Command(c)) => step(&mut driver.engine, &c, &mut out).map_err(cut)?,
            _ => return Err(spool(crate::run::spool::truncated())),
        }
        k += 1;
    }
    if let Some(Entry::Command(last)) = tape.next_entry().map_err(spool)? {
        let last = &last;
        let mut person = true;
        driver
            .act(last, |c, engine| {
                show_step(c, engine, &mut out)?;
                if !std::mem::take(&mut person) {
                    c.write_echo(&mut answers)?;
                    answers.push(b'\n');
                }
                Ok(())
            })
            .map_err(cut)?;
    }
    let mut trace = trace.to_string();
    if !answers.is_empty() && !trace.is_empty() && !trace.ends_with('\n') {
        trace.push('\n');
    }
    trace.push_str(&String::from_utf8_lossy(&answers));
    let engine = &driver.engine;
    let in_play = engine.game().state.phase == Phase::InPlay;
    Ok(Ok(GameState {
        status: 0,
        can_undo: in_play && engine.history().undoable() > 0,
        can_redo: in_play && engine.history().redoable() > 0,
        history: history(engine.history()),
        cursor: engine.history().undoable(),
        trace,
        transcript: text(out.bytes),
        ..view(engine.game())
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bots::{Bot, Strategy};
    use tictac_web::state::{HISTORY_SHOWN, HistoryEntry};

    fn budget() -> Budget {
        Budget::starting_now(Duration::from_secs(60))
    }

    fn hal(strategy: Strategy) -> Autopilot {
        Autopilot::new(vec![Bot { name: b"Hal".to_vec(), strategy }], None)
    }

    fn game(trace: &str, autopilot: Autopilot) -> GameState {
        state(trace, autopilot, budget()).expect("within bounds").expect("valid trace")
    }

    #[test]
    fn the_state_of_a_game_in_play() {
        let g = game("new_game(\"Ann\",\"Bob\") play(\"Ann\",5)", Autopilot::default());
        assert_eq!((g.banner, g.phase, g.next.as_deref()), ("o's turn", "play", Some("Bob")));
        assert_eq!(g.cells[4], "X");
        assert_eq!(g.status_line, "  ok: => Bob plays next");
        assert_eq!(g.score_lines[1], "  0: score for \"Bob\" (as O)");
        assert_eq!((g.players[0].name.as_str(), g.players[0].mark), ("Ann", "X"));
        assert!(g.can_undo && !g.can_redo);
        assert!(g.transcript.ends_with("->play(\"Ann\",5)\n  ok: => Bob plays next\n  ___\n  _X_\n  ___\n  0: score for \"Ann\" (as X)\n  0: score for \"Bob\" (as O)\n"));
    }

    #[test]
    fn bots_answer_only_after_the_last_command() {
        // Hal (elm) answers Ann's 1 with 5, once: the earlier commands are
        // the record and are not answered again.
        let g = game("new_game(\"Ann\",\"Hal\")\nplay(\"Ann\",1)", hal(Strategy::Elm));
        assert_eq!(g.trace, "new_game(\"Ann\",\"Hal\")\nplay(\"Ann\",1)\nplay(\"Hal\",5)\n");
        let again = game(&format!("{}play(\"Ann\",2)", g.trace), hal(Strategy::Elm));
        assert_eq!(again.cells, ["X", "X", "", "", "O", "", "", "", "O"]);
        // Undo takes back the person's move and the bot's answer.
        let undone = game(&format!("{}undo", again.trace), hal(Strategy::Elm));
        assert_eq!(undone.cells, g.cells);
        assert!(undone.trace.ends_with("play(\"Hal\",9)\nundo\nundo\n"));
        assert!(undone.can_redo);
    }

    #[test]
    fn a_finished_round_can_be_neither_undone_nor_redone() {
        let win = "new_game(\"Ann\",\"Bob\") play(\"Ann\",1) play(\"Bob\",4) play(\"Ann\",2) play(\"Bob\",5) play(\"Ann\",3)";
        let g = game(&format!("{win} undo redo"), Autopilot::default());
        assert_eq!(g.status_line, "  there is a winner: => play again or start new game");
        assert!(!g.can_undo && !g.can_redo);
        let two_bots = || {
            let bot = |name: &[u8]| Bot { name: name.to_vec(), strategy: Strategy::Perfect };
            Autopilot::new(vec![bot(b"Hal"), bot(b"Eve")], Some(7))
        };
        let played = game("new_game(\"Hal\",\"Eve\")", two_bots());
        assert_eq!(played.phase, "over");
        let walked = game(&format!("{}undo\nredo\n", played.trace), two_bots());
        assert_eq!(walked.trace, format!("{}undo\nredo\n", played.trace), "no bot walks back");
        assert_eq!(walked.status_line, played.status_line);
        assert!(!walked.can_undo && !walked.can_redo);
    }

    #[test]
    fn the_history_lists_the_rounds_entries_and_its_cursor() {
        let g = game(
            "new_game(\"Ann\",\"Bob\") play(\"Ann\",5) play(\"Ann\",1) play(\"Bob\",1) undo",
            Autopilot::default(),
        );
        let played = |mark, cell| HistoryEntry::Move { mark, cell };
        let refused = HistoryEntry::Refused { refused: "not this player's turn" };
        assert_eq!(g.history, Some(vec![played("X", 5), refused, played("O", 1)]));
        assert_eq!(g.cursor, 2);
        let json = serde_json::to_string(&g).expect("json");
        assert!(json.contains(r#""history":[{"mark":"X","cell":5},{"refused":"not this player's turn"},{"mark":"O","cell":1}],"cursor":2"#), "{json}");
        let fresh = game(
            "new_game(\"Ann\",\"Bob\") play(\"Ann\",5) new_game(\"Ann\",\"Bob\")",
            Autopilot::default(),
        );
        assert_eq!(
            (fresh.history, fresh.cursor),
            (Some(vec![]), 0),
            "a new round starts a new history"
        );
    }

    #[test]
    fn a_history_past_its_bound_is_not_sent() {
        let mut trace = String::from("new_game(\"Ann\",\"Bob\")\n");
        trace.push_str(&"play(\"Bob\",1)\n".repeat(HISTORY_SHOWN));
        assert_eq!(
            game(&trace, Autopilot::default()).history.map(|h| h.len()),
            Some(HISTORY_SHOWN)
        );
        trace.push_str("play(\"Bob\",1)\n");
        let g = game(&trace, Autopilot::default());
        assert_eq!((g.history, g.cursor), (None, HISTORY_SHOWN + 1));
    }

    #[test]
    fn a_win_names_its_line() {
        let won = "new_game(\"Ann\",\"Bob\") play(\"Ann\",3) play(\"Bob\",1) play(\"Ann\",5) play(\"Bob\",2)";
        assert_eq!(game(won, Autopilot::default()).winning, Vec::<u8>::new());
        assert_eq!(
            game(&format!("{won} play(\"Ann\",7)"), Autopilot::default()).winning,
            [3, 5, 7]
        );
        // One move can make two lines: both are shown, each cell once.
        let two = "new_game(\"Ann\",\"Bob\") play(\"Ann\",2) play(\"Bob\",5) play(\"Ann\",3) play(\"Bob\",6) play(\"Ann\",4) play(\"Bob\",8) play(\"Ann\",7) play(\"Bob\",9) play(\"Ann\",1)";
        let g = game(two, Autopilot::default());
        assert_eq!(g.banner, "x won");
        assert_eq!(g.winning, [1, 2, 3, 4, 7]);
    }

    #[test]
    fn a_bot_that_moves_first_answers_new_game() {
        let g = game("new_game(\"Hal\",\"Ann\")", hal(Strategy::Elm));
        assert_eq!(g.trace, "new_game(\"Hal\",\"Ann\")\nplay(\"Hal\",5)\n");
        assert_eq!(g.next.as_deref(), Some("Ann"));
    }

    #[test]
    fn a_rejected_trace_answers_the_message() {
        let r = state("play(", Autopilot::default(), budget()).expect("bounds").expect_err("bad");
        assert!(r.error.starts_with("Syntax Error"), "{}", r.error);
        assert_eq!(r.status, 1);
    }

    #[test]
    fn run_gives_the_output_and_status() {
        let r = run("undo", Job::Whole, Autopilot::default(), budget()).expect("ran");
        assert_eq!(r.status, 0);
        assert!(r.output.ends_with("->undo\n  ok:  => start new game\n  ___\n  ___\n  ___\n  0: score for \"\" (as X)\n  0: score for \"\" (as O)\n"));
        let r = run("undo(", Job::Whole, Autopilot::default(), budget()).expect("ran");
        assert_eq!(r.status, 1);
    }

    #[test]
    fn a_transcript_over_the_limit_is_refused() {
        let trace = "undo\n".repeat(60_000);
        let e = run(&trace, Job::Whole, Autopilot::default(), budget()).expect_err("too big");
        assert_eq!(e, ApiError::OutputTooBig);
        let e = state(&trace, Autopilot::default(), budget()).expect_err("too big");
        assert_eq!(e, ApiError::OutputTooBig);
    }
}

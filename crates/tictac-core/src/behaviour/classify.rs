//! Which behaviour a command showed, and which a rejected trace showed.

use super::{Behaviour, Coverage};
use crate::command::Command;
use crate::game::board::LINES;
use crate::game::{Cell, Game, Mark, Message, Phase, State};
use crate::lang::ast::{Event, Value};
use crate::lang::events;
use crate::lang::source::{KeptLines, LineSource};
use crate::lang::tokens::{identifier, is_boolean, is_reserved};
use crate::lang::{EventStream, Locator, Rejection, SyntaxKind, validate};

/// The behaviour a command showed: `before` is the state it found, `game`
/// the model after it, `walked` whether an undo or redo moved the cursor.
#[inline]
pub fn of_command(command: &Command, before: &State, game: &Game, walked: bool) -> Behaviour {
    use Behaviour as B;
    let after = &game.state;
    match *command {
        Command::NewGame { player1, player2 } => match (after.message, before.phase) {
            (Message::Ok, Phase::NoGame) => B::NewGameFirst,
            (Message::Ok, Phase::InPlay) => B::NewGameInPlay,
            (Message::Ok, Phase::Over) => B::NewGameAfterRound,
            (Message::NamesMustDiffer, _) if !starts_with_letter(player1) => B::NewGameSameBadNames,
            (Message::NamesMustDiffer, _) => B::NewGameSameNames,
            _ if player1.is_empty() || player2.is_empty() => B::NewGameEmptyName,
            _ if !starts_with_letter(player1) => B::NewGameBadFirstName,
            _ => B::NewGameBadSecondName,
        },
        Command::Play { player, press: cell } => match (before.phase, after.message) {
            (Phase::NoGame, _) => B::PlayBeforeGame,
            (Phase::Over, _) if game.mark_of(player).is_none() => B::PlayUnknownAfterRound,
            (Phase::Over, _) => B::PlayAfterRound,
            (_, Message::NoSuchPlayer) => B::PlayUnknownPlayer,
            (_, Message::NotThisPlayersTurn) if before.board.get(cell).is_some() => {
                B::PlayWrongTurnTaken
            }
            (_, Message::NotThisPlayersTurn) => B::PlayWrongTurn,
            (_, Message::ButtonTaken) => B::PlayTaken,
            (_, Message::Tie) => B::Tie,
            (_, Message::Winner) => win(after, cell),
            _ => B::PlayMove,
        },
        Command::PlayAgain => match before.phase {
            Phase::NoGame if before.message == Message::Ok => B::PlayAgainBeforeGame,
            Phase::NoGame => B::PlayAgainBeforeGameAfterError,
            Phase::InPlay => B::PlayAgainInPlay,
            Phase::Over if after.starter == Mark::O => B::PlayAgainOStarts,
            Phase::Over => B::PlayAgainXStarts,
        },
        Command::Undo => match before.phase {
            Phase::NoGame => B::UndoBeforeGame,
            Phase::Over if ends_round(before.message) => B::UndoAfterRound,
            Phase::Over => B::UndoAfterRoundError,
            Phase::InPlay if !walked => B::UndoAtStart,
            Phase::InPlay if after.board != before.board => B::UndoMove,
            Phase::InPlay => B::UndoError,
        },
        Command::Redo => match before.phase {
            Phase::NoGame => B::RedoBeforeGame,
            Phase::Over if ends_round(before.message) => B::RedoAfterRound,
            Phase::Over => B::RedoAfterRoundError,
            Phase::InPlay if !walked => B::RedoNothing,
            Phase::InPlay if after.board != before.board => B::RedoMove,
            Phase::InPlay => B::RedoError,
        },
    }
}

/// The message a round ends with; any other once the round is over is the
/// error of a command refused after it.
fn ends_round(message: Message) -> bool {
    matches!(message, Message::Winner | Message::Tie)
}

fn starts_with_letter(name: &[u8]) -> bool {
    name.first().is_some_and(u8::is_ascii_alphabetic)
}

/// A winning move on `cell`: which line, by which mark (or the special cases).
fn win(after: &State, cell: Cell) -> Behaviour {
    let Some(mark) = after.board.get(cell) else {
        return Behaviour::PlayMove;
    };
    // The round was in play before the move: every line of `mark` is its doing.
    let mut won = after.board.lines_of(mark);
    let first = won.next().and_then(|line| LINES.iter().position(|&l| l == line)).unwrap_or(0);
    if won.next().is_some() {
        return Behaviour::WinTwoLines;
    }
    if after.board.is_full() {
        return Behaviour::WinFullBoard;
    }
    let base = match mark {
        Mark::X => Behaviour::WinX123 as usize,
        Mark::O => Behaviour::WinO123 as usize,
    };
    Behaviour::ALL[base + first]
}

/// What a unit (a trace, a chunk, a line) that runs nothing shows: the
/// first behaviour, in its order, and all of them. That is what its syntax
/// error's column counts and the error's kind, or the kind of each event
/// that is not type-correct. `None` when it validates (or its type errors
/// could not be kept). `kept` is its kept lines, each with its newline (see
/// `kept_lines`), which the error's position counts in; it is read as a
/// stream, so a unit of any size costs constant memory beyond its text.
pub fn of_rejected(kept: &[u8]) -> Option<(Behaviour, Coverage)> {
    match validate(KeptLines::new(kept), |_: &Command| Ok(())) {
        Ok(Err(Rejection::Syntax(e))) => {
            // The error's line split at its position (past the last line,
            // the end, is empty).
            let line = e.pos.line.checked_sub(1).and_then(|k| kept.split(|&b| b == b'\n').nth(k));
            let line = line.unwrap_or_default();
            let (before, at) = line.split_at(e.pos.column.saturating_sub(1).min(line.len()));
            let kind = match &e.kind {
                SyntaxKind::UnknownIdentifier(_) => Behaviour::SyntaxUnknownIdentifier,
                SyntaxKind::InvalidNumber(_) => Behaviour::SyntaxInvalidNumber,
                SyntaxKind::Parse => parse_error_at(at),
            };
            // What the column counts comes first: a divergence there is
            // named after it, whatever stands at the position.
            let counts = column_counts(before);
            Some((counts.unwrap_or(kind), counts.into_iter().chain([kind]).collect()))
        }
        Ok(Err(Rejection::Type(_))) => {
            let (mut first, mut all) = (None, Coverage::default());
            let _ =
                EventStream::over(KeptLines::new(kept)).for_each(|event: &Event, _: &Locator| {
                    if let Some(b) = type_error(event) {
                        first.get_or_insert(b);
                        all.insert(b);
                    }
                    Ok::<(), ()>(())
                });
            first.map(|b| (b, all))
        }
        _ => None,
    }
}

/// The lines of a whole trace that count, each with a newline: the text
/// `-b` validates, and error positions count in.
pub fn kept_lines(text: &[u8]) -> Vec<u8> {
    let mut kept = Vec::with_capacity(text.len() + 1);
    // Leading blanks of any length are kept; reading memory cannot fail.
    let mut lines = KeptLines::with_long_blanks(text, usize::MAX);
    while let Ok(true) = lines.fill_into(&mut kept, text.len() + 1) {}
    kept
}

/// What a syntax error's column counts that a count of characters, or of
/// screen columns, would get wrong: a multi-byte UTF-8 character (any byte
/// past 0x7F) or a tab before the position on its line.
fn column_counts(before: &[u8]) -> Option<Behaviour> {
    if before.iter().any(|&b| b > 0x7f) {
        Some(Behaviour::SyntaxColumnMultibyte)
    } else if before.contains(&b'\t') {
        Some(Behaviour::SyntaxColumnTab)
    } else {
        None
    }
}

/// What stands at a parse error's position, up to its line's end.
fn parse_error_at(at: &[u8]) -> Behaviour {
    match at.first() {
        None => Behaviour::SyntaxEndOfInput,
        Some(b'"') => Behaviour::SyntaxUnterminatedString,
        _ if identifier(at).is_ok_and(|(_, w)| is_reserved(w) || is_boolean(w)) => {
            Behaviour::SyntaxReservedWord
        }
        _ => Behaviour::SyntaxParse,
    }
}

/// The kind of type error an event shows, if it is not type-correct.
fn type_error(event: &Event) -> Option<Behaviour> {
    if event.command.is_some() {
        return None;
    }
    let args = event.arguments();
    let Some(spec) = events::find(event.name) else { return Some(Behaviour::TypeUnknownEvent) };
    Some(match event.name {
        _ if spec.params.is_empty() => Behaviour::TypeArgumentsOnBare,
        _ if args.len() != spec.params.len() => Behaviour::TypeArity,
        b"play" => match (&args[0].value, &args[1].value) {
            (Value::Str(_), Value::Number { .. }) => Behaviour::TypeButtonRange,
            _ => Behaviour::TypeArgumentType,
        },
        _ => Behaviour::TypeArgumentType,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Engine;
    use crate::lang::check;

    /// The behaviour of each command of a valid trace.
    fn shown(trace: &str) -> Vec<&'static str> {
        let mut engine = Engine::new();
        check(trace.as_bytes())
            .expect("valid trace")
            .iter()
            .map(|c| {
                engine.run(c);
                engine.last().id()
            })
            .collect()
    }

    /// What a rejected trace shows: the first behaviour, then the others
    /// in catalogue order.
    fn rejected(trace: &str) -> Vec<&'static str> {
        let (first, all) = of_rejected(&kept_lines(trace.as_bytes())).expect("rejected trace");
        let others = all.iter().filter(|&b| b != first);
        [first].into_iter().chain(others).map(Behaviour::id).collect()
    }

    const START: &str = "new_game(\"A\",\"B\")\n";

    #[test]
    fn new_game_cases() {
        let t = "new_game(\"1\",\"1\") new_game(\"A\",\"A\") new_game(\"\",\"B\") new_game(\"A\",\"\")
                 new_game(\"1\",\"B\") new_game(\"A\",\"_\") new_game(\"A\",\"B\") new_game(\"A\",\"B\")";
        assert_eq!(
            shown(t),
            [
                "new-game-same-bad-names",
                "new-game-same-names",
                "new-game-empty-name",
                "new-game-empty-name",
                "new-game-bad-first-name",
                "new-game-bad-second-name",
                "new-game-first",
                "new-game-in-play"
            ]
        );
    }

    #[test]
    fn play_errors_and_their_precedence() {
        let t = format!(
            "play(\"A\",1) {START} play(\"C\",1) play(\"B\",1) play(\"A\",1) play(\"A\",1) play(\"B\",1) play(\"B\",2)"
        );
        assert_eq!(
            shown(&t),
            [
                "play-before-game",
                "new-game-first",
                "play-unknown-player",
                "play-wrong-turn",
                "play-move",
                "play-wrong-turn-taken",
                "play-taken",
                "play-move"
            ]
        );
    }

    #[test]
    fn every_line_by_each_mark_and_the_special_wins() {
        let x = |a: u8, b: u8, c: u8| {
            let others: Vec<u8> = (1..=9).filter(|n| ![a, b, c].contains(n)).collect();
            // X on the line, O on two cells off it (two marks make no line).
            format!(
                "{START}play(\"A\",{a}) play(\"B\",{}) play(\"A\",{b}) play(\"B\",{}) play(\"A\",{c}) play(\"A\",1)",
                others[0], others[1]
            )
        };
        for (k, line) in LINES.iter().enumerate() {
            let got = shown(&x(line[0], line[1], line[2]));
            assert_eq!(got[5], Behaviour::ALL[Behaviour::WinX123 as usize + k].id());
            assert_eq!(got[6], "play-after-round");
        }
        let o = format!(
            "{START}play(\"A\",4) play(\"B\",1) play(\"A\",5) play(\"B\",2) play(\"A\",9) play(\"B\",3) play(\"C\",1)"
        );
        assert_eq!(shown(&o)[6..], ["win-o-123", "play-unknown-after-round"]);
        let two = format!(
            "{START}play(\"A\",1) play(\"B\",2) play(\"A\",3) play(\"B\",4) play(\"A\",7) play(\"B\",6) play(\"A\",9) play(\"B\",8) play(\"A\",5)"
        );
        assert_eq!(shown(&two).last(), Some(&"win-two-lines"));
        let full = format!(
            "{START}play(\"A\",1) play(\"B\",2) play(\"A\",3) play(\"B\",5) play(\"A\",4) play(\"B\",7) play(\"A\",6) play(\"B\",9) play(\"A\",8)"
        );
        assert_eq!(shown(&full).last(), Some(&"tie"));
        let full_win = format!(
            "{START}play(\"A\",1) play(\"B\",3) play(\"A\",2) play(\"B\",4) play(\"A\",6) play(\"B\",7) play(\"A\",9) play(\"B\",8) play(\"A\",5)"
        );
        assert_eq!(shown(&full_win).last(), Some(&"win-full-board"));
    }

    #[test]
    fn play_again_starters_and_history_walks() {
        let win = "play(\"A\",1) play(\"B\",4) play(\"A\",2) play(\"B\",5) play(\"A\",3)";
        let win_o =
            "play(\"B\",1) play(\"A\",4) play(\"B\",2) play(\"A\",5) play(\"B\",7) play(\"A\",6)";
        let t = format!(
            "undo redo play_again {START} undo redo play_again {win} undo redo play_again {win_o} play_again"
        );
        let got = shown(&t);
        assert_eq!(
            got[..7],
            [
                "undo-before-game",
                "redo-before-game",
                "play-again-before-game",
                "new-game-first",
                "undo-at-start",
                "redo-nothing",
                "play-again-in-play"
            ]
        );
        assert_eq!(
            got[11..15],
            ["win-x-123", "undo-after-round", "redo-after-round", "play-again-o-starts"]
        );
        assert_eq!(got.last(), Some(&"play-again-x-starts"));
        let t = format!(
            "new_game(\"A\",\"A\") play_again play(\"A\",1) play_again play_again {START}{win} play(\"B\",9) undo redo new_game(\"1\",\"B\") redo undo"
        );
        assert_eq!(
            shown(&t),
            [
                "new-game-same-names",
                "play-again-before-game-after-error",
                "play-before-game",
                "play-again-before-game-after-error",
                "play-again-before-game",
                "new-game-first",
                "play-move",
                "play-move",
                "play-move",
                "play-move",
                "win-x-123",
                "play-after-round",
                "undo-after-round-error",
                "redo-after-round-error",
                "new-game-bad-first-name",
                "redo-after-round-error",
                "undo-after-round-error",
            ]
        );
        let t = format!("{START}play(\"A\",1) play(\"A\",2) undo undo redo redo redo");
        assert_eq!(
            shown(&t)[3..],
            ["undo-error", "undo-move", "redo-move", "redo-error", "redo-nothing"]
        );
    }

    #[test]
    fn syntax_errors_by_what_stands_at_the_position() {
        assert_eq!(rejected("undo(\n"), ["syntax-end-of-input"]);
        assert_eq!(rejected("-- c\n\nplay(\"A\n"), ["syntax-unterminated-string"]);
        assert_eq!(rejected("undo ( )"), ["syntax-parse"]);
        assert_eq!(rejected("play(INT, 1)"), ["syntax-reserved-word"]);
        assert_eq!(rejected("true"), ["syntax-reserved-word"]);
        assert_eq!(rejected("play(A, 1)"), ["syntax-unknown-identifier"]);
        assert_eq!(rejected("play(\"A\", 1.5)"), ["syntax-invalid-number"]);
    }

    #[test]
    fn a_syntax_error_after_a_multi_byte_character_or_a_tab_is_named_by_it_first() {
        let kinds = |t: &str| rejected(t);
        assert_eq!(kinds("play(\"Zoë\" 1)"), ["syntax-column-multibyte", "syntax-parse"]);
        assert_eq!(kinds("play(\t\"A\" 1)"), ["syntax-column-tab", "syntax-parse"]);
        assert_eq!(
            kinds("new_game(\"李\",\tB)"),
            ["syntax-column-multibyte", "syntax-unknown-identifier"]
        );
        assert_eq!(kinds("play(\"A\",\t1.5)"), ["syntax-column-tab", "syntax-invalid-number"]);
        // Only what stands before the position on its line counts.
        assert_eq!(kinds("new_game(\"Zoë\",\t\"B\")\nundo ( )"), ["syntax-parse"]);
        assert_eq!(kinds("undo ( ) -- é\t"), ["syntax-parse"]);
        assert_eq!(kinds("play(\"é\",\n"), ["syntax-end-of-input"]);
    }

    #[test]
    fn type_errors_each_event_first_the_first() {
        let t = "undo(1) jump play(\"A\") play(\"A\", 10) play(1, 1) new_game(\"A\", 'c') play_again undo";
        assert_eq!(
            rejected(t),
            [
                "type-arguments-on-bare",
                "type-unknown-event",
                "type-argument-type",
                "type-button-range",
                "type-arity",
            ]
        );
        // Events past 64 KiB are read in pieces; their kind is the same.
        let long = "x".repeat(70_000);
        let t = format!("undo(\"{long}\") play(\"{long}\", 10) new_game(\"{long}\", [1, [2]])");
        assert_eq!(
            rejected(&t),
            ["type-arguments-on-bare", "type-argument-type", "type-button-range"]
        );
    }
}

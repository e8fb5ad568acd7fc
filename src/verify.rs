//! `tictac verify`: the game's facts and every strategy's record, computed
//! by exhaustive exploration; or one strategy's record, with its first lost
//! game written as a trace that replays with `tictac -b`.

mod explore;

use std::io::Write;

use crate::bots::Strategy;
use crate::cli::VerifyOptions;
use crate::command::Command;
use crate::game::{Cell, Mark};
use crate::run::{OutputFile, RunError};
use crate::status::Status;
use explore::{GameFacts, Tally, check, game_facts};

pub(crate) fn run(options: &VerifyOptions, out: &mut dyn Write) -> Result<Status, RunError> {
    match options.one {
        None => {
            print_facts(out, &game_facts())?;
            writeln!(out)?;
            writeln!(
                out,
                "Each strategy against every sequence of opponent moves (every choice it allows explored):"
            )?;
            writeln!(out, "  strategy  as     games     wins    draws   losses")?;
            for strategy in Strategy::ALL {
                for mark in [Mark::X, Mark::O] {
                    let (t, _) = check(strategy, mark);
                    writeln!(
                        out,
                        "  {:<8}  {:?}  {:>8} {:>8} {:>8} {:>8}",
                        strategy.name(),
                        mark,
                        t.games,
                        t.wins,
                        t.draws,
                        t.losses
                    )?;
                }
            }
        }
        Some((strategy, mark)) => {
            // The file is checked before exploring, as in the other modes.
            let trace_out = match &options.trace_out {
                Some(path) => Some((path, OutputFile::create(path)?)),
                None => None,
            };
            let (tally, loss) = check(strategy, mark);
            let Tally { games, wins, draws, losses } = tally;
            writeln!(out, "games: {games}, wins: {wins}, draws: {draws}, losses: {losses}")?;
            if let Some((path, file)) = trace_out {
                match loss {
                    Some(moves) => {
                        write_trace(file, strategy, mark, &moves)?;
                        writeln!(out, "first lost game written to {}", path.display())?;
                    }
                    // Dropping the unfinished file removes it.
                    None => writeln!(out, "no lost game: {} not written", path.display())?,
                }
            }
        }
    }
    Ok(Status::Ran)
}

fn print_facts(out: &mut dyn Write, f: &GameFacts) -> std::io::Result<()> {
    writeln!(out, "Tic-tac-toe from the empty board, X first:")?;
    let g = f.games;
    writeln!(
        out,
        "  possible games       {:>7}  (won by X {}, won by O {}, drawn {})",
        g.total(),
        g.x,
        g.o,
        g.drawn
    )?;
    writeln!(out, "  reachable positions  {:>7}", f.positions)?;
    let t = f.terminal;
    writeln!(
        out,
        "  terminal positions   {:>7}  (won by X {}, won by O {}, drawn {})",
        t.total(),
        t.x,
        t.o,
        t.drawn
    )
}

/// The lost game as a trace: `new_game` then the moves, X first.
fn write_trace(
    mut file: OutputFile,
    strategy: Strategy,
    mark: Mark,
    moves: &[Cell],
) -> Result<(), RunError> {
    // The strategy's name with a capital: names must start with a letter.
    let name = strategy.name();
    let bot = &format!("{}{}", name[..1].to_ascii_uppercase(), &name[1..]);
    let names = match mark {
        Mark::X => [bot, "Rival"],
        Mark::O => ["Rival", bot],
    };
    let mut text = format!(
        "-- {} as {mark:?} loses: the first such game found by tictac verify\n",
        strategy.name()
    )
    .into_bytes();
    let new_game = Command::NewGame { player1: names[0].as_bytes(), player2: names[1].as_bytes() };
    new_game.write_echo(&mut text)?;
    text.push(b'\n');
    for (k, &press) in moves.iter().enumerate() {
        Command::Play { player: names[k % 2].as_bytes(), press }.write_echo(&mut text)?;
        text.push(b'\n');
    }
    match file.write_all(&text) {
        Ok(()) => Ok(file.persist_noclobber()?),
        Err(e) => Err(file.write_failed(e).into()),
    }
}

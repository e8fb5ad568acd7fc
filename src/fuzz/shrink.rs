//! Shrinking a trace that shows a divergence: remove events (halves, then
//! smaller pieces, down to single ones), then simplify what is left (the
//! layout, each event's written form and arguments, the names), and replace
//! what leads to a position by the shortest game that reaches it, for as
//! long as the trace still shows the same kind of divergence; each pass
//! again until none changes anything. The result is a local minimum: no
//! single event can be removed.

use super::trace::{Item, Trace, replaced};
use crate::engine::Engine;
use crate::game::{Cell, Game, Mark, Phase};
use crate::lang;

/// Shrinks `trace`; `still` says whether a candidate still shows the
/// divergence (it runs the program, so it is the cost to count).
pub(crate) fn shrink(trace: Trace, mut still: impl FnMut(&Trace) -> bool) -> Trace {
    let mut best = shortest_prefix(trace, &mut still);
    loop {
        let before = best.clone();
        best = remove_items(best, &mut still);
        best = remove_pairs(best, &mut still);
        best = simplify_items(best, &mut still);
        best = rename(best, &mut still);
        best = replay_shorter(best, &mut still);
        if best == before {
            return best;
        }
    }
}

/// Most of a long trace comes after its divergence: a binary search for a
/// short prefix that still shows it (a few runs) before the finer passes.
fn shortest_prefix(trace: Trace, still: &mut impl FnMut(&Trace) -> bool) -> Trace {
    let (mut lo, mut hi) = (0, trace.len());
    while lo < hi {
        let mid = (lo + hi) / 2;
        let prefix = Trace { items: trace.items[..mid].to_vec() };
        if still(&prefix) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Trace { items: trace.items[..hi].to_vec() }
}

/// Delta debugging by complements: remove one of n pieces; on success keep
/// the rest, else cut finer, down to single events.
fn remove_items(mut best: Trace, still: &mut impl FnMut(&Trace) -> bool) -> Trace {
    let mut pieces = 2;
    while best.len() >= 1 {
        let len = best.len();
        let size = len.div_ceil(pieces.min(len));
        let mut removed = false;
        let mut start = 0;
        while start < best.len() {
            let mut candidate = best.clone();
            let end = (start + size).min(candidate.len());
            candidate.items.drain(start..end);
            if still(&candidate) {
                best = candidate;
                removed = true;
            } else {
                start += size;
            }
        }
        if removed {
            pieces = (pieces - 1).max(2);
        } else if size == 1 {
            break;
        } else {
            pieces = (pieces * 2).min(best.len());
        }
    }
    best
}

/// Removes two events at once that only go together (an undo and its
/// redo, a move and the one that answers it), a few events apart.
fn remove_pairs(mut best: Trace, still: &mut impl FnMut(&Trace) -> bool) -> Trace {
    const REACH: usize = 4;
    let mut i = 0;
    'outer: while i < best.len() {
        for j in i + 1..best.len().min(i + 1 + REACH) {
            let mut candidate = best.clone();
            candidate.items.remove(j);
            candidate.items.remove(i);
            if still(&candidate) {
                best = candidate;
                continue 'outer;
            }
        }
        i += 1;
    }
    best
}

/// Tries simpler forms of each event and a plain newline after it, each
/// time from the simplest form found so far.
fn simplify_items(mut best: Trace, still: &mut impl FnMut(&Trace) -> bool) -> Trace {
    for k in 0..best.len() {
        'simpler: loop {
            // A plain newline after an event is simpler than any other
            // layout of that size, or none (one command a line, as a
            // report shows it).
            let size = |item: &Item| {
                let newline = item.sep == b"\n";
                (
                    item.text.len() + item.sep.len() - usize::from(newline),
                    item.text.clone(),
                    !newline,
                )
            };
            let now = size(&best.items[k]);
            // Only strictly smaller forms, so this ends.
            for variant in simpler(&best.items[k]).into_iter().filter(|v| size(v) < now) {
                let mut candidate = best.clone();
                candidate.items[k] = variant;
                if still(&candidate) {
                    best = candidate;
                    continue 'simpler;
                }
            }
            break;
        }
    }
    best
}

/// Simpler forms of an item, simplest first.
fn simpler(item: &Item) -> Vec<Item> {
    let mut out = Vec::new();
    let mut add = |text: Vec<u8>, sep: &str| {
        let candidate = Item::new(text, sep);
        if candidate != *item && !out.contains(&candidate) {
            out.push(candidate);
        }
    };
    // The normalised echo of a valid event.
    // (Its bytes as they are: a name that is not UTF-8 stays so.)
    if let Ok(commands) = lang::check(&item.text)
        && let [command] = commands.as_slice()
    {
        let mut echo = Vec::new();
        let _ = command.write_echo(&mut echo);
        add(echo, "\n");
    }
    if let Some((name, args)) = split_event(&item.text) {
        // Without one argument, or with an argument made plain.
        for k in 0..args.len() {
            let mut fewer = args.clone();
            fewer.remove(k);
            add(join_event(name, &fewer), "\n");
        }
        for k in 0..args.len() {
            for plain in [&b"1"[..], b"\"A\""] {
                if args[k] != plain {
                    let mut plainer = args.clone();
                    plainer[k] = plain.to_vec();
                    add(join_event(name, &plainer), "\n");
                }
            }
        }
    }
    add(item.text.clone(), "\n");
    out
}

/// `name(a, b)` as its name and top-level arguments (brackets, arrays and
/// strings kept whole, bytes as they are); `None` without an argument list.
fn split_event(text: &[u8]) -> Option<(&[u8], Vec<Vec<u8>>)> {
    let open = text.iter().position(|&b| b == b'(')?;
    let inner = text[open + 1..].strip_suffix(b")")?;
    let mut args = Vec::new();
    let (mut depth, mut quoted, mut current) = (0i32, false, Vec::new());
    for &b in inner {
        match b {
            b'"' => quoted = !quoted,
            b'[' | b'<' if !quoted => depth += 1,
            b']' | b'>' if !quoted => depth -= 1,
            b',' if !quoted && depth == 0 => {
                args.push(current.trim_ascii().to_vec());
                current.clear();
                continue;
            }
            _ => {}
        }
        current.push(b);
    }
    args.push(current.trim_ascii().to_vec());
    Some((text[..open].trim_ascii(), args))
}

fn join_event(name: &[u8], args: &[Vec<u8>]) -> Vec<u8> {
    if args.is_empty() { name.to_vec() } else { [name, b"(", &args.join(&b","[..]), b")"].concat() }
}

/// `name(a,b)`, its arguments as written.
fn event2(name: &str, a: &[u8], b: &[u8]) -> Vec<u8> {
    [name.as_bytes(), b"(", a, b",", b, b")"].concat()
}

/// Gives each player's name, everywhere at once, the shortest form that
/// still shows the divergence.
fn rename(mut best: Trace, still: &mut impl FnMut(&Trace) -> bool) -> Trace {
    for name in names(&best) {
        for short in [&b"A"[..], b"B", b"C", b"D"] {
            if name.len() <= short.len() || names(&best).iter().any(|n| n == short) {
                continue;
            }
            let (from, to) = ([b"\"", &name[..], b"\""].concat(), [b"\"", short, b"\""].concat());
            let mut candidate = best.clone();
            for item in &mut candidate.items {
                item.text = replaced(&item.text, &from, &to, usize::MAX);
            }
            if still(&candidate) {
                best = candidate;
                break;
            }
        }
    }
    best
}

/// Replaces the events before some point with the shortest game that
/// leaves the same board, names and turn (a round reached through earlier
/// rounds, undos or errors, reached directly): removing events one or two
/// at a time cannot do that, since every event of a round needs the others.
fn replay_shorter(best: Trace, still: &mut impl FnMut(&Trace) -> bool) -> Trace {
    let Some(positions) = positions(&best) else { return best };
    let mut candidates: Vec<(usize, Vec<Item>)> = positions
        .into_iter()
        .enumerate()
        .flat_map(|(k, position)| shorter_games(position).into_iter().map(move |g| (k, g)))
        .filter(|(k, game)| game.len() < *k)
        .collect();
    // The greatest saving first.
    candidates.sort_by_key(|(k, game)| std::cmp::Reverse(k - game.len()));
    for (k, game) in candidates {
        let candidate =
            Trace { items: game.into_iter().chain(best.items[k..].iter().cloned()).collect() };
        if still(&candidate) {
            return candidate;
        }
    }
    best
}

/// A game, and the names of its players as written in the trace.
type Position = (Game, [Vec<u8>; 2]);

/// The position after each prefix of a trace (none for the empty one or
/// before a game), with the written names of its players; `None` when an
/// event does not check on its own (a wrong one: the trace is rejected).
fn positions(trace: &Trace) -> Option<Vec<Option<Position>>> {
    let mut engine = Engine::new();
    let mut names: Option<[Vec<u8>; 2]> = None;
    let mut out = vec![None];
    for item in &trace.items {
        let commands = lang::check(&item.text).ok()?;
        for command in &commands {
            let before = engine.game().names.clone();
            engine.run(command);
            if engine.game().names != before {
                names = split_event(&item.text)
                    .and_then(|(_, args)| <[Vec<u8>; 2]>::try_from(args).ok());
            }
        }
        let game = engine.game();
        out.push(
            names
                .clone()
                .filter(|_| game.state.phase != Phase::NoGame)
                .map(|names| (game.clone(), names)),
        );
    }
    Some(out)
}

/// Games that lead to this position: the shortest that reaches it, and for
/// a round that is over, the quickest win by either player (what follows
/// may need only that the round is over, not how it ended).
fn shorter_games(position: Option<Position>) -> Vec<Vec<Item>> {
    let Some((game, names)) = position else { return Vec::new() };
    let mut games: Vec<Vec<Item>> = Vec::new();
    if game.state.phase == Phase::Over {
        let [first, second] = if game.state.starter == Mark::X {
            names.clone()
        } else {
            [names[1].clone(), names[0].clone()]
        };
        let quick = |moves: &[u8]| {
            let mut items = vec![Item::new(event2("new_game", &first, &second), "\n")];
            for (k, cell) in moves.iter().enumerate() {
                let who = if k % 2 == 0 { &first } else { &second };
                items.push(Item::new(event2("play", who, cell.to_string().as_bytes()), "\n"));
            }
            items
        };
        // The starter on the top row; the other on the middle one.
        games.push(quick(&[1, 4, 2, 5, 3]));
        games.push(quick(&[1, 4, 2, 5, 7, 6]));
    }
    games.extend(shortest_game((game, names)));
    games
}

/// `new_game` and the moves that reach this position, the starter of the
/// round playing X (so a round O started is reached with the names swapped).
fn shortest_game((game, names): Position) -> Option<Vec<Item>> {
    let state = game.state;
    let starter = state.starter;
    let [x, o] = names;
    let (first, second) = if starter == Mark::X { (x, o) } else { (o, x) };
    let cells = |mark: Mark| -> Vec<u8> {
        Cell::ALL
            .iter()
            .filter(|c| state.board.get(**c) == Some(mark))
            .map(|c| c.number())
            .collect()
    };
    let (mut ours, mut theirs) = (cells(starter), cells(starter.other()));
    if state.phase == Phase::Over {
        // The round's last move (by `next`, which a win or a tie leaves as
        // it is) must be the one that ended it: no line before it.
        let last = if state.next == starter { &mut ours } else { &mut theirs };
        let ending = last.iter().position(|&n| {
            let mut before = state.board;
            Cell::new(n).into_iter().for_each(|c| before.clear(c));
            !before.has_line(Mark::X) && !before.has_line(Mark::O)
        })?;
        let cell = last.remove(ending);
        last.push(cell);
    }
    if ours.len() != theirs.len() && ours.len() != theirs.len() + 1 {
        return None;
    }
    let mut items = vec![Item::new(event2("new_game", &first, &second), "\n")];
    for (k, cell) in ours.iter().enumerate() {
        items.push(Item::new(event2("play", &first, cell.to_string().as_bytes()), "\n"));
        if let Some(cell) = theirs.get(k) {
            items.push(Item::new(event2("play", &second, cell.to_string().as_bytes()), "\n"));
        }
    }
    Some(items)
}

/// The string literals of a trace (simple ones: no quote inside), in order.
fn names(trace: &Trace) -> Vec<Vec<u8>> {
    let mut found: Vec<Vec<u8>> = Vec::new();
    for item in &trace.items {
        for (k, piece) in item.text.split(|&b| b == b'"').enumerate() {
            if k % 2 == 1 && !piece.ends_with(b"\\") && !found.iter().any(|n| n == piece) {
                found.push(piece.to_vec());
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::behaviour::Behaviour;
    use crate::fuzz::expect::Expected;

    fn trace(texts: &[&str]) -> Trace {
        Trace { items: texts.iter().map(|t| Item::new(*t, " -- x\n")).collect() }
    }

    #[test]
    fn removes_every_event_that_is_not_needed_and_simplifies_the_rest() {
        let long = trace(&[
            "new_game(\"Alice\", \"Bobby\")",
            "play(\"Alice\", 005.0)",
            "undo",
            "redo",
            "play(\"Bobby\",  1)",
            "play(\"Alice\", 2)",
            "play(\"Bobby\", 5)",
            "undo",
            "play(\"Alice\", 3)",
            "play_again",
        ]);
        // The "divergence": some command shows "button already taken".
        let mut calls = 0;
        let shows =
            |t: &Trace| Expected::of(&t.text()).steps.iter().any(|s| s.1 == Behaviour::PlayTaken);
        assert!(shows(&long));
        let small = shrink(long, |t| {
            calls += 1;
            shows(t)
        });
        assert_eq!(
            String::from_utf8(small.text()).expect("utf8"),
            "new_game(\"A\",\"B\")\nplay(\"A\",5)\nplay(\"B\",5)\n"
        );
        assert!(calls < 200, "{calls} calls");
    }

    #[test]
    fn keeps_the_kind_of_a_wrong_event_and_drops_its_extra_arguments() {
        let t = trace(&["undo", "play(\"Ann\", [1, \"x\"], 3)", "redo"]);
        let kind = |t: &Trace| Expected::of(&t.text()).steps[0].1;
        assert_eq!(kind(&t), Behaviour::TypeArity);
        let small = shrink(t, |c| kind(c) == Behaviour::TypeArity);
        assert_eq!(small.items, [Item::new("play(1,1,1)", "\n")]);
    }

    #[test]
    fn a_round_reached_through_another_is_reached_directly() {
        // X wins, play_again, then a tie in the round O (Bob) starts: no
        // event can go alone, but new_game with the names swapped and the
        // same moves show the tie in 10 events instead of 16.
        let mut texts = vec!["new_game(\"Ann\",\"Bob\")"];
        let win = ["play(\"Ann\",1)", "play(\"Bob\",4)", "play(\"Ann\",2)", "play(\"Bob\",5)"];
        texts.extend(win);
        texts.extend(["play(\"Ann\",3)", "play_again"]);
        let tie = [(true, 1), (false, 2), (true, 3), (false, 5), (true, 4)];
        let tie = tie.into_iter().chain([(false, 6), (true, 8), (false, 7), (true, 9)]);
        let moves: Vec<String> = tie
            .map(|(bob, n)| format!("play(\"{}\",{n})", if bob { "Bob" } else { "Ann" }))
            .collect();
        texts.extend(moves.iter().map(String::as_str));
        let t = trace(&texts);
        let tied = |t: &Trace| Expected::of(&t.text()).steps.iter().any(|s| s.1 == Behaviour::Tie);
        assert!(tied(&t));
        let small = shrink(t, tied);
        assert_eq!(small.len(), 10, "{}", String::from_utf8_lossy(&small.text()));
        assert!(small.items[0].text.starts_with(b"new_game("));
    }

    #[test]
    fn a_round_that_only_needs_to_be_over_is_won_quickly() {
        // A tie, then play_again: what shows is play_again after a round
        // X started; a win in five moves does that in 7 events, not 11.
        let mut texts = vec!["new_game(\"Ann\",\"Bob\")".to_string()];
        for (k, n) in [1, 2, 3, 5, 4, 6, 8, 7, 9].into_iter().enumerate() {
            texts.push(format!("play(\"{}\",{n})", if k % 2 == 0 { "Ann" } else { "Bob" }));
        }
        texts.push("play_again".into());
        let t = trace(&texts.iter().map(String::as_str).collect::<Vec<_>>());
        let shows = |t: &Trace| {
            Expected::of(&t.text()).steps.iter().any(|s| s.1 == Behaviour::PlayAgainOStarts)
        };
        assert!(shows(&t));
        let small = shrink(t, shows);
        assert_eq!(small.len(), 7, "{}", String::from_utf8_lossy(&small.text()));
    }

    #[test]
    fn each_event_ends_on_a_line_of_its_own() {
        let t = Trace { items: vec![Item::new("undo", " "), Item::new("redo", "")] };
        let small = shrink(t, |c| c.len() == 2);
        assert_eq!(small.text(), b"undo\nredo\n");
    }

    #[test]
    fn a_single_needed_event_stays() {
        let t = trace(&["undo"]);
        let small = shrink(t.clone(), |c| !c.items.is_empty());
        assert_eq!(small.items, [Item::new("undo", "\n")]);
    }

    #[test]
    fn events_split_into_arguments() {
        assert_eq!(
            split_event(b"play ( \"a,\xffb\" , [1, 2], <<3,4>>)"),
            Some((
                &b"play"[..],
                vec![b"\"a,\xffb\"".to_vec(), b"[1, 2]".to_vec(), b"<<3,4>>".to_vec()]
            ))
        );
        assert_eq!(split_event(b"undo"), None);
    }

    /// A name that is not UTF-8 is kept byte for byte: by the normalised
    /// echo, the renaming, the shorter games (attack 38's fuzzboard 1).
    #[test]
    fn bytes_that_are_not_utf8_are_kept() {
        let raw = b"Ff\xff\xc0\xaf";
        let t = Trace {
            items: vec![
                Item::new(b"new_game(\"Ann\" , \"Ff\xff\xc0\xaf\")".to_vec(), " -- caf\u{e9}\n"),
                Item::new("play(\"Ann\", 05)", "\n"),
                Item::new("undo", "\n"),
                Item::new(b"play(\"Ff\xff\xc0\xaf\", 01.0)".to_vec(), "\n"),
            ],
        };
        // The name must be a player's, and its move echoed as it is.
        let shows = |t: &Trace| {
            let output = Expected::of(&t.text()).output;
            let echo = [&b"->play(\""[..], raw, b"\",1)\n"].concat();
            let score = [&b"score for \""[..], raw, b"\" (as O)"].concat();
            let holds = |text: &[u8]| memchr::memmem::find(&output, text).is_some();
            holds(&echo) && holds(&score)
        };
        assert!(shows(&t));
        let small = shrink(t, shows);
        assert_eq!(
            small.text(),
            b"new_game(\"A\",\"Ff\xff\xc0\xaf\")\nplay(\"Ff\xff\xc0\xaf\",1)\n",
            "{}",
            String::from_utf8_lossy(&small.text())
        );
    }
}

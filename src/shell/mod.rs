//! Interactive mode (`-i`). On a terminal: line editing with rustyline,
//! history across sessions, completion and hints. Otherwise: the same
//! protocol on plain lines, with no escape codes, so piped sessions are
//! predictable byte for byte.

use std::borrow::Cow;
use std::fs;
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};

use rustyline::completion::{Completer, Pair};
use rustyline::config::{CompletionType, Config};
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::{Hint, Hinter};
use rustyline::history::DefaultHistory;
use rustyline::validate::Validator;
use rustyline::{
    Cmd, ConditionalEventHandler, Context, Editor, Event, EventContext, EventHandler, Helper,
    KeyEvent, RepeatCount,
};

use crate::cli::Session;
use crate::game::Mark;
use crate::lang::TooLong;
use crate::lang::events::{self, EVENTS};
use crate::run::Recorder;
use crate::run::protocol::run_plain;
use crate::run::protocol::{LineProtocol, PROMPT, Reply};
use crate::run::{PipelineError, RunError, describe};
use crate::status::Status;

/// On a terminal only: the first line of a session, and the answer below
/// the engine's own message to a line that is just `help` or `exit`.
const GUIDE: &str = "Type man to list the commands, quit to leave.";

/// Runs the session on standard input and output.
pub(crate) fn run(session: &Session) -> Result<Status, RunError> {
    let mut recorder = Recorder::open(session.record.as_deref())?;
    let recording = recorder.is_on();
    let terminal = io::stdin().is_terminal() && io::stdout().is_terminal();
    let session = if terminal { crate::run::on_terminal(session) } else { session.clone() };
    let shell = || LineProtocol::new(session.autopilot()).recording(recording);
    if terminal {
        let helper = TraceHelper {
            bots: session.bots.iter().map(|b| String::from_utf8_lossy(&b.name).into()).collect(),
            hints: std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
            ..TraceHelper::default()
        };
        if run_terminal(shell(), helper, &mut recorder)? {
            return Ok(Status::Ran);
        }
        // No line editor on this terminal after all: plain lines.
    }
    let mut out = io::stdout().lock();
    run_plain(shell(), io::stdin().lock(), &mut out, &mut recorder, &mut |_, _| {}).map_err(
        |e| {
            // A line holding an event too long to read is the input's fault.
            match e.get_ref().is_some_and(|inner| inner.is::<TooLong>()) {
                true => RunError::from(PipelineError::Read("-".to_string(), e)),
                false => e.into(),
            }
        },
    )?;
    Ok(Status::Ran)
}

/// The shell on a terminal, with its history; `false` when no line editor
/// can be made there (the caller falls back to plain lines).
fn run_terminal(
    mut shell: LineProtocol,
    helper: TraceHelper,
    recorder: &mut Recorder,
) -> Result<bool, RunError> {
    // The editor sets the terminal raw at each prompt and back after it; a
    // fatal signal at the prompt (SIGTERM, SIGHUP...) puts it back too.
    let _modes = crate::platform::terminal::put_back_on_fatal_signal();
    let Ok(mut editor) = editor(helper) else { return Ok(false) };
    let mut history = history_file();
    if let Some(path) = &history {
        if let Err(why) = usable_history(path) {
            eprintln!("tictac: the shell's history cannot be kept in {}: {why}", path.display());
            history = None;
        } else {
            // A first session has no history yet.
            let _ = editor.load_history(path);
        }
    }
    let ended = converse(&mut editor, &mut shell, recorder);
    // Kept however the session ended.
    if let Some(path) = &history {
        // It may have been replaced meanwhile: a FIFO would never be opened.
        let saved = regular_history(path)
            .and_then(|()| editor.save_history(path).map_err(|e| e.to_string()));
        if let Err(why) = saved {
            // Losing the history is no reason to fail the session.
            eprintln!(
                "tictac: the shell's history could not be saved in {}: {why}",
                path.display()
            );
        }
    }
    ended.map(|()| true)
}

type LineEditor = Editor<TraceHelper, DefaultHistory>;

/// The line editor. Bracketed paste is off: a paste arrives as typed keys,
/// so each of its lines is its own entry, answered as a piped line is (a
/// bracketed paste was one entry of many lines, run as one trace); the
/// `buffer-redux` feature keeps what was read past an Enter for the next
/// prompt (without it, rustyline dropped every pasted line but the first).
fn editor(helper: TraceHelper) -> rustyline::Result<LineEditor> {
    let config = Config::builder()
        .history_ignore_dups(true)?
        .bracketed_paste(false)
        .completion_type(CompletionType::List)
        // One Tab lists the candidates when there are several.
        .completion_show_all_if_ambiguous(true)
        .build();
    let mut editor = Editor::with_config(config)?;
    editor.set_helper(Some(helper));
    editor.bind_sequence(KeyEvent::ctrl('C'), EventHandler::Conditional(Box::new(DropHint)));
    Ok(editor)
}

/// Said when a typed or pasted line holds a byte that is not UTF-8 (a
/// terminal set to Latin-1, or a paste of such text): that line is refused.
const NOT_UTF8: &str = "tictac: that line was refused: it holds a byte that is not UTF-8 text, \
and the shell reads UTF-8 from a terminal: set the terminal to UTF-8, or pipe the trace \
to use other bytes (tictac -i < FILE)";

/// Said after [`NOT_UTF8`]: rustyline drops what it read ahead of a line
/// when the line fails (up to 1 KiB of a paste); the shell drops the rest.
const DROPPED_WITH_IT: &str = "; the lines pasted or typed ahead with it were dropped too, \
not run: send them again";

/// How long the terminal must be quiet for a paste to have ended.
const TYPED_AHEAD_QUIET: std::time::Duration = std::time::Duration::from_millis(50);

/// Reads and answers lines until `quit` or the end of input.
fn converse(
    editor: &mut LineEditor,
    shell: &mut LineProtocol,
    recorder: &mut Recorder,
) -> Result<(), RunError> {
    let mut out = io::stdout();
    writeln!(out, "{GUIDE}")?;
    shell.show(&mut out)?;
    loop {
        let entry = match editor.readline(PROMPT) {
            Ok(entry) => entry,
            // Ctrl-C abandons the line being typed.
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => {
                writeln!(out)?;
                return Ok(());
            }
            Err(ReadlineError::Io(e)) if e.kind() == io::ErrorKind::InvalidData => {
                // The editor has ended the line it showed, and dropped what
                // it had read past it: the rest is dropped too, so that no
                // line of a paste runs without those before it.
                crate::platform::terminal::drop_pending_input(TYPED_AHEAD_QUIET);
                eprintln!("{NOT_UTF8}{DROPPED_WITH_IT}");
                continue;
            }
            Err(ReadlineError::Io(e)) => return Err(RunError::Terminal(e)),
            Err(e) => return Err(RunError::Terminal(io::Error::other(e))),
        };
        // An entry holding a line break (a quoted Ctrl-J) is lines, each
        // its own command and history entry, as piped lines are.
        for line in entry.split('\n') {
            editor.add_history_entry(line).map_err(|e| RunError::Terminal(io::Error::other(e)))?;
            match shell.line(line.as_bytes(), &mut out)? {
                Reply::Quit => return Ok(()),
                Reply::Ran(record) => recorder.keep(&record)?,
                Reply::Shown | Reply::Man | Reply::Refused => {}
            }
            if matches!(line, "help" | "exit") {
                writeln!(out, "{GUIDE}")?;
            }
            out.flush()?;
        }
        if let Some(helper) = editor.helper_mut() {
            let game = shell.engine().game();
            helper.players = [Mark::X, Mark::O]
                .map(|m| String::from_utf8_lossy(game.name(m)).into_owned())
                .into_iter()
                .filter(|n| !n.is_empty())
                .collect();
        }
    }
}

/// Makes the history usable, or says plainly why it is not: its folder
/// made, the file a regular one (made if absent). Nothing here waits: a
/// FIFO there is never opened (opening one waits for its other end).
fn usable_history(path: &Path) -> Result<(), String> {
    if let Some(dir) = path.parent()
        && let Err(e) = fs::create_dir_all(dir)
    {
        // The part of the path that is in the way says why, not "File exists".
        let in_the_way = dir.ancestors().find_map(|part| {
            let kind = fs::metadata(part).ok().map(|m| m.file_type()).filter(|k| !k.is_dir());
            kind.map(|kind| format!("{} is {}, not a folder", part.display(), describe(kind)))
        });
        return Err(in_the_way.unwrap_or_else(|| e.to_string()));
    }
    regular_history(path)?;
    // O_NONBLOCK: should a FIFO appear meanwhile, opening it does not wait.
    let file = crate::platform::files::open_without_waiting(
        fs::File::options().append(true).create(true),
        path,
    )
    .map_err(|e| e.to_string())?;
    let kind = file.metadata().map_err(|e| e.to_string())?.file_type();
    if !kind.is_file() {
        return Err(format!("it is {}, not a regular file", describe(kind)));
    }
    Ok(())
}

/// The history must be a regular file, or not exist yet.
fn regular_history(path: &Path) -> Result<(), String> {
    match fs::metadata(path) {
        Ok(m) if !m.is_file() => {
            Err(format!("it is {}, not a regular file", describe(m.file_type())))
        }
        _ => Ok(()),
    }
}

/// Ctrl-C: the hint (shown only with the cursor at the end of the line) is
/// erased before the line is dropped, so the abandoned line shows only
/// what was typed.
struct DropHint;

impl ConditionalEventHandler for DropHint {
    fn handle(&self, _: &Event, _: RepeatCount, _: bool, ctx: &EventContext) -> Option<Cmd> {
        if ctx.has_hint() {
            let mut out = io::stdout();
            let _ = out.write_all(b"\x1b[J").and_then(|()| out.flush());
        }
        Some(Cmd::Interrupt)
    }
}

/// `$XDG_DATA_HOME/tictac/history`, else `~/.local/share/tictac/history`.
fn history_file() -> Option<PathBuf> {
    let data = std::env::var_os("XDG_DATA_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))?;
    Some(data.join("tictac").join("history"))
}

/// Completion of event names and players' names, and declaration hints.
#[derive(Default)]
pub(crate) struct TraceHelper {
    /// The current players' names, offered inside `play("` (but a bot's).
    pub(crate) players: Vec<String>,
    /// The bots' names: they play by themselves, so they are not offered.
    pub(crate) bots: Vec<String>,
    /// Whether to show hints (not with `NO_COLOR`: undimmed, one would look typed).
    pub(crate) hints: bool,
}

/// A hint is text to read: Right arrow or End never insert it.
pub(crate) struct Declaration(String);

impl Hint for Declaration {
    fn display(&self) -> &str {
        &self.0
    }

    fn completion(&self) -> Option<&str> {
        None
    }
}

/// The longest line that shows a hint. rustyline redraws the whole line at
/// every key while a hint is shown (without one, it only echoes the key), so
/// a paste without bracketed paste would cost the square of its length; a
/// line this long is pasted, not typed.
const HINTS_UP_TO: usize = 256;

/// Words of the shell's own, completed after the events.
const SHELL_WORDS: [&str; 2] = ["quit", "man"];

impl TraceHelper {
    /// Candidates for the text before the cursor: where they start, and what.
    pub(crate) fn candidates(&self, before: &str) -> (usize, Vec<String>) {
        let word_start = before
            .char_indices()
            .rev()
            .find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(0, |(k, c)| k + c.len_utf8());
        // Inside `play("`: the players' names, closing the quote.
        if let Some(open) = before.rfind('"') {
            let head = before[..open].trim_end();
            let quotes = before.matches('"').count();
            if quotes % 2 == 1
                && head.ends_with('(')
                && head[..head.len() - 1].trim_end().ends_with("play")
            {
                let typed = &before[open + 1..];
                let names =
                    self.players.iter().filter(|n| n.starts_with(typed) && !self.bots.contains(n));
                return (open + 1, names.map(|n| format!("{n}\"")).collect());
            }
        }
        let word = &before[word_start..];
        // Tab on an empty line: the events.
        if before.trim().is_empty() {
            return (word_start, EVENTS.iter().map(events::Spec::word).collect());
        }
        if word.is_empty() || word.starts_with(|c: char| c.is_ascii_digit()) {
            return (word_start, Vec::new());
        }
        let words = EVENTS.iter().map(events::Spec::word);
        let words = words.chain(SHELL_WORDS.map(String::from)).filter(|w| w.starts_with(word));
        (word_start, words.collect())
    }

    /// A hint for the line so far: the declaration of the event being typed.
    pub(crate) fn declaration_hint(&self, line: &str) -> Option<String> {
        let tail = line.rsplit(')').next()?;
        let (head, after) = tail.split_at(tail.find('(').unwrap_or(tail.len()));
        let name = head.trim_end().rsplit(char::is_whitespace).next()?;
        if name.is_empty() {
            return None;
        }
        let mut matching = EVENTS.iter().filter(|s| s.name.starts_with(name));
        let spec = matching.next()?;
        let (event, declaration) = (spec.name, spec.declaration());
        if after.is_empty() {
            // The name is still being typed: finish it, then its parameters.
            let exact = event.len() == name.len();
            if !exact && matching.next().is_some() {
                return None;
            }
            return Some(declaration[name.len()..].to_string());
        }
        (event.len() == name.len() && event.len() < declaration.len())
            .then(|| format!("   -- {declaration}"))
    }
}

impl Completer for TraceHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let (start, words) = self.candidates(&line[..pos]);
        let pairs =
            words.into_iter().map(|w| Pair { display: w.clone(), replacement: w }).collect();
        Ok((start, pairs))
    }
}

impl Hinter for TraceHelper {
    type Hint = Declaration;

    fn hint(&self, line: &str, pos: usize, _: &Context<'_>) -> Option<Declaration> {
        let shown = self.hints && pos == line.len() && line.len() <= HINTS_UP_TO;
        shown.then(|| self.declaration_hint(line)).flatten().map(Declaration)
    }
}

impl Highlighter for TraceHelper {
    fn highlight_hint<'h>(&self, hint: &'h str) -> Cow<'h, str> {
        // Dim, so the hint reads as a suggestion.
        Cow::Owned(format!("\x1b[2m{hint}\x1b[0m"))
    }
}

impl Validator for TraceHelper {}

impl Helper for TraceHelper {}

#[cfg(test)]
mod tests {
    use super::*;

    fn helper() -> TraceHelper {
        let players = vec!["Ann".into(), "Bob".into(), "Anna".into(), "Hal".into()];
        TraceHelper { players, bots: vec!["Hal".into()], hints: true }
    }

    #[test]
    #[cfg(unix)] // symbolic links, FIFOs and modes as Unix has them
    fn the_history_is_a_regular_file_or_says_plainly_why_not() {
        let dir = tempfile::tempdir().expect("temp dir");
        let history = dir.path().join("tictac").join("history");
        usable_history(&history).expect("made");
        assert!(history.is_file());
        usable_history(&history).expect("kept");
        fs::remove_file(&history).expect("rm");
        // mkfifo(1): rustix has no mkfifoat on macOS.
        assert!(
            std::process::Command::new("mkfifo").arg(&history).status().expect("mkfifo").success()
        );
        assert_eq!(usable_history(&history), Err("it is a FIFO, not a regular file".into()));
        assert_eq!(regular_history(&history), Err("it is a FIFO, not a regular file".into()));
        // A file where a folder should be, at any depth.
        let file = dir.path().join("data");
        fs::write(&file, "").expect("write");
        let said = format!("{} is a file, not a folder", file.display());
        assert_eq!(usable_history(&file.join("history")), Err(said.clone()));
        assert_eq!(usable_history(&file.join("tictac").join("history")), Err(said));
    }

    #[test]
    fn event_names_complete_from_their_start() {
        let (start, words) = helper().candidates("undo pl");
        assert_eq!(start, 5);
        assert_eq!(words, ["play(", "play_again"]);
        assert_eq!(helper().candidates("r").1, ["redo"]);
        assert_eq!(helper().candidates("é→un"), (5, vec!["undo".to_string()]));
        assert!(helper().candidates("play(\"Ann\", 1").1.is_empty());
    }

    #[test]
    fn tab_on_an_empty_line_lists_the_events() {
        let events = ["new_game(", "play(", "play_again", "undo", "redo"];
        assert_eq!(helper().candidates(""), (0, events.map(String::from).to_vec()));
        assert_eq!(helper().candidates("  ").1.len(), 5);
    }

    #[test]
    fn a_long_line_shows_no_hint() {
        let h = helper();
        let ctx_history = rustyline::history::DefaultHistory::new();
        let ctx = Context::new(&ctx_history);
        let line = format!("{}play", "undo ".repeat(50));
        assert!(h.hint(&line, line.len(), &ctx).is_some(), "{} bytes", line.len());
        let line = format!("{}play", "undo ".repeat(51));
        assert!(h.hint(&line, line.len(), &ctx).is_none(), "{} bytes", line.len());
    }

    #[test]
    fn a_hint_is_never_inserted() {
        let hint = Declaration("o".into());
        assert_eq!((hint.display(), hint.completion()), ("o", None));
    }

    #[test]
    fn player_names_complete_inside_play() {
        let (start, words) = helper().candidates("play( \"An");
        assert_eq!(start, 7);
        assert_eq!(words, ["Ann\"", "Anna\""]);
        assert!(helper().candidates("play(\"H").1.is_empty(), "a bot is not offered");
        assert!(helper().candidates("new_game(\"An").1.is_empty());
        assert!(helper().candidates("play(\"Ann\", ").1.is_empty());
    }

    #[test]
    fn hints_show_the_declaration() {
        let h = helper();
        assert_eq!(
            h.declaration_hint("new").as_deref(),
            Some("_game(player1: NAME = STRING ; player2: NAME = STRING)")
        );
        assert_eq!(
            h.declaration_hint("undo play(\"A").as_deref(),
            Some("   -- play(player: NAME = STRING ; press: BUTTON = 1 .. 9)")
        );
        assert_eq!(
            h.declaration_hint("play(\"Ann\", 1").as_deref(),
            Some("   -- play(player: NAME = STRING ; press: BUTTON = 1 .. 9)")
        );
        assert_eq!(h.declaration_hint("play(\"Ann\", 1) "), None);
        assert_eq!(h.declaration_hint("pl"), None);
        assert_eq!(h.declaration_hint("und").as_deref(), Some("o"));
        assert_eq!(h.declaration_hint("zz"), None);
    }
}

//! The command line, as plain data: what to run. The ETF modes (`-b`, `-w`,
//! `-l`, `-i`, `-g`, `-help`, `-version`) are read by hand, as ETF
//! executables read them (`etf`); the commands (`test`, `fuzz`, `verify`,
//! `serve`, `completions`) are described once, with clap (`commands`). The
//! front ends read what comes out; this module imports none of them.

mod commands;
mod errors;
mod etf;
pub(crate) mod nested;
pub(crate) mod options;
pub(crate) mod shown;
mod values;

pub(crate) use commands::{is_command, summaries, write_completions};
pub(crate) use errors::UsageError;
pub(crate) use etf::Session;
pub(crate) use options::{
    AutograderOptions, Format, FuzzOptions, GradeOptions, ServeOptions, TestOptions, VerifyOptions,
};

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The name the executable goes by when it cannot tell (a `-- run:`
/// directive in `tictac test` has no program name of its own), and the
/// one its commands' help and completions use.
pub(crate) const PROGRAM: &str = "tictac";

/// The ways a trace file can be run into an output (the pipeline's).
pub use tictac_run::Job;

/// `-` as OUT: standard output (as `-` as IN is standard input).
pub(crate) const STDOUT: &str = "-";

/// What the program was asked to do.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Invocation {
    Interactive(Session),
    /// `-g`: the full-screen terminal board.
    Board(Session),
    /// `tictac test ...`: the acceptance-test runner.
    Test(TestOptions),
    /// `tictac grade ...`: a suite against every student's program.
    Grade(GradeOptions),
    /// `-b`, `-w`, `-l`: run a trace file, to standard output or to a new file.
    Run {
        job: Job,
        input: PathBuf,
        output: Option<PathBuf>,
        session: Session,
    },
    /// `tictac verify ...`: exhaustive checks of the game and the strategies.
    Verify(VerifyOptions),
    /// `tictac serve ...`: the game and the oracle in a web browser.
    Serve(ServeOptions),
    /// `tictac fuzz ...`: a program against the engine on generated traces.
    Fuzz(FuzzOptions),
    /// `tictac completions SHELL`: the shell's completion script.
    Completions(clap_complete::Shell),
    /// `tictac course-suite DIR`: the built-in course suite, written out.
    CourseSuite(PathBuf),
    /// `-help`: the modes and the list of commands.
    Help,
    /// `tictac autograder ...`: a Gradescope autograder's zip.
    Autograder(AutograderOptions),
    /// `tictac CMD --help` (or `-h`): that command's help, as printed.
    CommandHelp(String),
    Version,
}

/// Reads the arguments after the program name: a command (`test ...`), or
/// an ETF mode with its options anywhere on the line.
pub(crate) fn parse(args: &[OsString]) -> Result<Invocation, UsageError> {
    match args.first().and_then(|a| a.to_str()) {
        Some(word) if commands::is_command(word) => commands::parse(args),
        _ => etf::parse(args),
    }
}

/// The invocation, once the programs it would run (`--program`, `--oracle`)
/// are known to start: one usage error before anything runs, not a failure
/// per test. Apart from `parse`, which reads the arguments only.
pub(crate) fn runnable(invocation: Invocation) -> Result<Invocation, UsageError> {
    let (command, program, oracle) = match &invocation {
        // Gradescope reads results.json whatever happens: a student's program
        // that cannot start scores 0 on every test, each saying why, rather
        // than leave a usage error where the JSON should be.
        Invocation::Test(o) if o.format == options::Format::Gradescope => {
            ("test", None, o.oracle.as_ref())
        }
        // A program --build makes is looked for once built: a test says so.
        Invocation::Test(o) if o.build.is_some() => ("test", None, o.oracle.as_ref()),
        Invocation::Test(o) => ("test", o.program.as_ref(), o.oracle.as_ref()),
        Invocation::Fuzz(o) => ("fuzz", Some(&o.program), o.oracle.as_ref()),
        _ => return Ok(invocation),
    };
    // As the user it runs as (`--user`) would find it, whatever the format
    // and the build: an interpreter that user cannot run is the grader's
    // setup, never a student's 0 (grade checks it so).
    if let Invocation::Test(o) = &invocation
        && let (Some(user), Some(first)) = (&o.user, o.program.as_ref().and_then(|w| w.first()))
        && let Err(why) = crate::platform::process::runnable_as(first, user)
    {
        // `/x/w.sh, which the user nobody cannot run`: the path said once.
        let error = UsageError::NotRunnableAs("--program", why);
        return Err(error.in_command(command.into()));
    }
    // Beside a program run as another user, the oracle runs in a folder of
    // its own: a relative path (the program's folder's file) names nothing.
    if let Invocation::Test(o) = &invocation
        && o.user.is_some()
        && let Some(first) = o.oracle.as_ref().and_then(|w| w.first())
        && first.contains('/')
        && !Path::new(first).is_absolute()
    {
        let why = "with --user it runs in a folder of its own, never in the program's (whose \
                   files it would read as you): name it by its absolute path"
            .to_string();
        let error = UsageError::CannotRun("--oracle", first.clone(), why);
        return Err(error.in_command(command.into()));
    }
    for (option, words) in [("--program", program), ("--oracle", oracle)] {
        let Some(first) = words.and_then(|w| w.first()) else { continue };
        if let Err(mut why) = crate::platform::command_line::locate(first) {
            let words = words.map(Vec::as_slice).unwrap_or_default();
            let here = |p: &Path| Some(Path::new(".").join(p)).filter(|p| p.is_file());
            if let Some(runs_it) = command_in_folder(words, here) {
                why.push_str(&format!("; '{first}' is a file in this folder: {option} {runs_it}"));
            } else if let Some(python3) = python3_instead(words, |p| here(p).is_some()) {
                why.push_str(&match python3 {
                    Python3::RunsIt(runs_it) => format!("; python3 is: {option} {runs_it}"),
                    Python3::NoFile(file) => {
                        format!(" (python3 is); and there is no file '{file}' in this folder")
                    }
                });
            } else if let Some(fix) = not_executable(words) {
                why.push_str(&format!(": {fix}"));
            } else if let Some(found) = nested::nested_program(Path::new("."), first) {
                let found = shown::escape_controls(&found.display().to_string());
                why.push_str(&format!(
                    "; found {found} below this folder: run from the folder that holds it, or name it so"
                ));
            }
            let error = UsageError::CannotRun(option, first.clone(), why);
            return Err(error.in_command(command.into()));
        }
    }
    Ok(invocation)
}

/// The command that runs a file named by a bare first word (`ttt`,
/// `ttt.py`), which is looked for on PATH and not in the folder, when
/// `found` finds it in a folder (its path there), in quotes as an option's value, and what it
/// runs: `"./ttt" runs it` (`after chmod +x ttt` when it is not executable),
/// `"python3 ttt.py"`, `"java -jar ttt.jar"`, the other words after it.
/// None for a word with a folder in it, or no such file.
pub(crate) fn command_in_folder(
    words: &[String],
    found: impl Fn(&Path) -> Option<PathBuf>,
) -> Option<String> {
    let (first, rest) = words.split_first()?;
    if first.contains(['/', '\\']) {
        return None;
    }
    let path = found(Path::new(first))?;
    let here = format!(".{}{first}", std::path::MAIN_SEPARATOR);
    let mut command: Vec<OsString> = match interpreter(first) {
        Some(words) => words.iter().map(Into::into).chain([first.into()]).collect(),
        None => vec![here.clone().into()],
    };
    command.extend(rest.iter().map(Into::into));
    let shown = as_value(&crate::platform::command_line::join(&command));
    let ready = command[0] != *here
        || crate::platform::command_line::locate(&path.to_string_lossy()).is_ok();
    Some(if ready {
        format!("{shown} runs it")
    } else {
        format!("{shown} runs it after chmod +x {first}")
    })
}

/// A command line as one option's value to paste into a shell: in double
/// quotes (`"python3 ttt.py"`) when nothing in it is live there, else in
/// single quotes with each `'` written `'\''` (a `$`, `` ` ``, `"`, `\` or
/// `!` in a file's name: in double quotes the shell would expand it, and
/// the pasted hint run another file, attack 41's F2).
pub(crate) fn as_value(command: &str) -> String {
    if cfg!(windows) || !command.contains(['$', '`', '"', '\\', '!']) {
        format!("\"{command}\"")
    } else {
        format!("'{}'", command.replace('\'', "'\\''"))
    }
}

/// What `python3_instead` says.
pub(crate) enum Python3 {
    /// The command with python3, as an option's value: `"python3 ttt.py" runs it`.
    RunsIt(String),
    /// The script it names is not a file (`found`): its name, shown.
    NoFile(String),
}

/// `python` named where it is not on PATH and `python3` is (Debian, Ubuntu
/// and macOS install no `python`): the command with python3, or, when the
/// script it names (its first word after the options, not after `-m` or
/// `-c`) is not a file as `found` looks for it, that name: two errors said
/// at once, not one after the other. None for anything else.
pub(crate) fn python3_instead(words: &[String], found: impl Fn(&Path) -> bool) -> Option<Python3> {
    let (first, rest) = words.split_first()?;
    let locate = crate::platform::command_line::locate;
    if first != "python" || locate(first).is_ok() || locate("python3").is_err() {
        return None;
    }
    let script = rest
        .iter()
        .take_while(|w| !matches!(w.as_str(), "-m" | "-c" | "-"))
        .find(|w| !w.starts_with('-'));
    if let Some(script) = script
        && !found(Path::new(script))
    {
        return Some(Python3::NoFile(shown::escape_controls(script)));
    }
    let command: Vec<OsString> =
        std::iter::once("python3").chain(rest.iter().map(String::as_str)).map(Into::into).collect();
    let shown = as_value(&crate::platform::command_line::join(&command));
    Some(Python3::RunsIt(format!("{shown} runs it")))
}

/// What runs a program file by its name's extension (`python3 ttt.py`,
/// `java -jar ttt.jar`), before the file's name.
fn interpreter(file: &str) -> Option<&'static [&'static str]> {
    match Path::new(file).extension().and_then(|e| e.to_str()) {
        Some("py") => Some(&["python3"]),
        Some("jar") => Some(&["java", "-jar"]),
        _ => None,
    }
}

/// How to run a program named by its path (`./ttt.py`) that is a file
/// without the execute permission: `chmod +x` it, or name what runs it
/// (`"python3 ./ttt.py"`). None for anything else (finding S8).
fn not_executable(words: &[String]) -> Option<String> {
    let (first, rest) = words.split_first()?;
    // Only Unix has an execute permission to give.
    if std::env::consts::FAMILY != "unix" || !first.contains('/') || !Path::new(first).is_file() {
        return None;
    }
    // Executable already: it cannot start for another reason (a `#!` line
    // ending in \r), which the error says; chmod would change nothing.
    if crate::platform::files::has_execute_bit(Path::new(first)) {
        return None;
    }
    let join = |words: Vec<&str>| {
        let words: Vec<OsString> = words.into_iter().map(Into::into).collect();
        crate::platform::command_line::join(&words)
    };
    let chmod = format!("chmod +x {} makes it one", join(vec![first]));
    let Some(runs) = interpreter(first) else { return Some(chmod) };
    let command =
        runs.iter().copied().chain([first.as_str()]).chain(rest.iter().map(String::as_str));
    Some(format!("{chmod}, or name what runs it: \"{}\"", join(command.collect())))
}

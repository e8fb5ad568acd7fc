//! `tictac autograder`: the zip Gradescope's "Zip file upload" takes. It
//! holds `setup.sh` (run once as root when the image is built: checks that
//! tictac starts there and that a program can run as `nobody`, then makes
//! the folder root's alone), `run_autograder` (grades the submission with
//! `tictac test --format gradescope`, the student's program run as
//! `nobody` with `--user`), the suite under `suite/`, and the running
//! tictac executable. Both scripts find everything from where they are:
//! `run_autograder` from its folder (`/autograder`), `setup.sh` from its
//! own (`/autograder/source`), so the zip runs unpacked anywhere.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

use super::{GradeError, absolute, shown, suite_error};
use crate::cli::AutograderOptions;
use crate::status::Status;
use crate::suite::{self, SuiteError};

/// The user a submission runs as (`tictac test --user`).
const USER: &str = "nobody";

/// The folder of the zip (and of `/autograder/source`) the suite is in.
const SUITE: &str = "suite";

/// Writes the zip, whole, then says what it holds.
pub(crate) fn run(options: &AutograderOptions, out: &mut dyn Write) -> Result<Status, GradeError> {
    let suite = match &options.suite {
        Some(path) => Some(suite_files(path)?),
        None => None,
    };
    let exe = std::env::current_exe().map_err(|e| {
        GradeError::Out(
            shown(options.out.display()),
            format!("cannot be written: tictac cannot find its own executable ({e})"),
        )
    })?;
    let out_path = &options.out;
    if fs::symlink_metadata(out_path).is_ok() {
        return Err(GradeError::Out(
            shown(out_path.display()),
            "exists: name a new file (or remove it first)".into(),
        ));
    }
    let dir = match out_path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let write_error = |e: io::Error| GradeError::Write(shown(out_path.display()), e);
    let temp = tempfile::Builder::new()
        .prefix(".tictac-autograder")
        .suffix(".zip.tmp")
        .tempfile_in(&dir)
        .map_err(write_error)?;
    let zip_error = |e: zip::result::ZipError| write_error(io::Error::other(e));
    let mut zip = ZipWriter::new(BufWriter::new(temp.as_file().try_clone().map_err(write_error)?));
    let script = SimpleFileOptions::default()
        .compression_method(CompressionMethod::Deflated)
        .unix_permissions(0o755);
    let data = script.unix_permissions(0o644);
    zip.start_file("setup.sh", script).map_err(zip_error)?;
    zip.write_all(setup_sh().as_bytes()).map_err(write_error)?;
    zip.start_file("run_autograder", script).map_err(zip_error)?;
    zip.write_all(run_autograder(options).as_bytes()).map_err(write_error)?;
    // Deflate's fastest level: on the 90 MiB debug build, 0.5 s of CPU and
    // 38 MB against the default level's 1.8 s and 28 MB.
    zip.start_file("tictac", script.compression_level(Some(1))).map_err(zip_error)?;
    let mut exe_file = File::open(&exe).map_err(write_error)?;
    io::copy(&mut exe_file, &mut zip).map_err(write_error)?;
    let mut count = 0;
    if let Some((root, files)) = &suite {
        zip.add_directory(format!("{SUITE}/"), data.unix_permissions(0o755)).map_err(zip_error)?;
        for (name, path) in files {
            if name.ends_with('/') {
                zip.add_directory(format!("{SUITE}/{name}"), data.unix_permissions(0o755))
                    .map_err(zip_error)?;
                continue;
            }
            zip.start_file(format!("{SUITE}/{name}"), data).map_err(zip_error)?;
            let mut file = File::open(path).map_err(|e| suite_error(&root.join(name), e))?;
            io::copy(&mut file, &mut zip).map_err(write_error)?;
            count += 1;
        }
    }
    zip.finish().map_err(zip_error)?.flush().map_err(write_error)?;
    // A new file's usual permissions, not a temporary file's 0600.
    if let Some(permissions) = crate::platform::files::permissions_for(None) {
        temp.as_file().set_permissions(permissions).map_err(write_error)?;
    }
    temp.as_file().sync_all().map_err(write_error)?;
    // A file made meanwhile is not replaced.
    temp.persist_noclobber(out_path).map_err(|e| write_error(e.error))?;
    let what = match &suite {
        Some((root, _)) => format!("the suite '{}' ({count} files)", shown(root.display())),
        None => "the built-in course suite".into(),
    };
    writeln!(
        out,
        "Wrote {}: setup.sh, run_autograder, tictac ({}-{}) and {what}.",
        shown(out_path.display()),
        std::env::consts::OS,
        std::env::consts::ARCH
    )
    .map_err(write_error)?;
    if (std::env::consts::OS, std::env::consts::ARCH) != ("linux", "x86_64") {
        writeln!(
            out,
            "note: Gradescope runs Linux on x86_64: setup.sh will stop the image's build. \
             Write the zip with the release's tictac-x86_64-unknown-linux-musl."
        )
        .map_err(write_error)?;
    }
    writeln!(
        out,
        "Upload it to Gradescope as the autograder's \"Zip file upload\"; run_autograder ends \
         within {} s (--total-time): keep the assignment's autograder timeout above that \
         (10 minutes unless set).",
        options.total_time.as_secs_f64()
    )
    .map_err(write_error)?;
    Ok(Status::Ran)
}

/// The suite's folder, and every folder (`NAME/`) and file in it by its
/// name in the zip, after checking that it holds tests that can run.
#[allow(clippy::type_complexity)]
fn suite_files(path: &Path) -> Result<(PathBuf, Vec<(String, PathBuf)>), GradeError> {
    let root = absolute(path).map_err(|e| suite_error(path, e))?;
    let tests = suite::discover(std::slice::from_ref(&root)).map_err(|e| match e {
        SuiteError::NoTests(_) => GradeError::NoTests(shown(root.display())),
        e => e.into(),
    })?;
    // As grade checks it: a suite grade refuses is not shipped.
    super::checked_suite(&tests)?;
    // An expected file no run can read (a broken link, a FIFO, a folder)
    // stops grade at its test; on Gradescope, every student would fail it.
    for test in &tests {
        if let Err(unreadable) = suite::files::open_checked(&test.expected_path()) {
            return Err(GradeError::UnreadableAnswer(shown(&unreadable.why)));
        }
    }
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(&root).follow_links(true).min_depth(1).sort_by_file_name() {
        // What cannot be looked at (a link in a loop, or to nothing) is no
        // test, as `tictac test` finds them: left out, and named.
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                let link = suite::discover::Unfollowed::new(&e, &root);
                eprintln!("{}", link.warning("left out of the zip"));
                continue;
            }
        };
        let relative = entry.path().strip_prefix(&root).unwrap_or(entry.path());
        let Some(name) = relative.to_str() else {
            let why = io::Error::other("its name is not UTF-8, which a zip cannot carry");
            return Err(suite_error(entry.path(), why).into());
        };
        let name = name.replace('\\', "/");
        if entry.file_type().is_dir() {
            files.push((format!("{name}/"), entry.path().to_path_buf()));
        } else if entry.file_type().is_file() {
            files.push((name, entry.path().to_path_buf()));
        }
    }
    Ok((root, files))
}

/// A word as `sh` reads it back unchanged.
fn quoted(word: &str) -> String {
    shell_words::quote(word).into_owned()
}

fn setup_sh() -> String {
    format!(
        r#"#!/bin/sh
# Written by `tictac autograder` ({version}). Gradescope runs it once, as root,
# in /autograder/source when it builds the autograder's image; it needs no network.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
chmod 755 "$here/tictac" "$here/run_autograder"
if ! version=$("$here/tictac" -version 2>&1); then
    echo "setup.sh: tictac does not start on this image: $version" >&2
    echo "setup.sh: write the zip with the release's static Linux build, tictac-x86_64-unknown-linux-musl, which starts on every Linux on x86_64 (tictac autograder puts the tictac that runs it in the zip)" >&2
    exit 1
fi
if ! id {USER} >/dev/null 2>&1; then
    echo "setup.sh: this image has no user {USER}: the submission would run as root and could read the suite" >&2
    exit 1
fi
# The suite and tictac are root's alone: the submission runs as {USER}.
chmod 700 "$here"
echo "setup.sh: $version is ready; submissions will run as {USER}, and $here is root's alone."
"#,
        version = version(),
    )
}

fn run_autograder(options: &AutograderOptions) -> String {
    let suite = match options.suite {
        Some(_) => format!("\"$source/{SUITE}\""),
        None => "--course".into(),
    };
    let mut args = vec![
        suite,
        "--program".into(),
        quoted(&shell_words::join(&options.command)),
        "--user".into(),
        USER.into(),
        "--timeout".into(),
        options.timeout.as_secs_f64().to_string(),
        "--total-time".into(),
        options.total_time.as_secs_f64().to_string(),
    ];
    if let Some(build) = &options.build {
        args.push("--build".into());
        args.push(quoted(&shell_words::join(build)));
    }
    format!(
        r#"#!/bin/sh
# Written by `tictac autograder` ({version}). Gradescope copies it to
# /autograder/run_autograder and runs it there, as root: it grades the
# submission in ./submission with the suite in ./source and writes
# ./results/results.json. The student's program runs as {USER}.
set -u
root=$(cd "$(dirname "$0")" && pwd)
source="$root/source"
# The suite is root's alone (setup.sh did it once; again, should it have changed).
chmod 700 "$source" || exit 2
mkdir -p "$root/results" || exit 2
cd "$root/submission" || exit 2
{executable}"$source/tictac" test {args} --format gradescope > "$root/results/results.json.partial"
status=$?
# 0 every test passed, 1 some failed: the grade is written either way.
if [ "$status" -le 1 ]; then
    mv "$root/results/results.json.partial" "$root/results/results.json" || exit 2
    exit 0
fi
echo "run_autograder: tictac test stopped with status $status (see above): no grade written" >&2
exit "$status"
"#,
        version = version(),
        args = args.join(" "),
        executable = make_executable(&options.command),
    )
}

/// The lines of run_autograder that give the command's program its
/// executable bit when it is a file of the submission: a zip made on Windows
/// or a browser upload keeps no Unix modes, and without the bit every test
/// failed "not an executable file", which the student cannot mend. Nothing
/// for a program looked up on PATH (a word without `/`). The submission is
/// the student's throwaway copy; a path that leads out of it (a symbolic
/// link) is left alone.
fn make_executable(command: &[String]) -> String {
    let Some(program) = command.first().filter(|p| p.contains('/')) else {
        return String::new();
    };
    format!(
        r#"# An upload from Windows or a browser keeps no executable bit: the program is
# given one when it is a file of the submission.
program={program}
real=$(realpath -- "$program" 2>/dev/null) && [ -f "$real" ] && [ ! -x "$real" ] &&
    case "$real" in "$(pwd -P)"/*) chmod a+x -- "$real" ;; esac
"#,
        program = quoted(program),
    )
}

fn version() -> String {
    format!("tictac {}", env!("CARGO_PKG_VERSION"))
}

//! `run` on Unix: one thread types, reads and waits at once with `poll`;
//! containment is `guard`'s (a session, a cgroup, the subreaper's sweeps).

use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::os::fd::AsFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::ExitStatus;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec};

use super::spawn::Pipes;
use super::{
    AtDeadline, Capture, Ending, Finished, Held, Other, Spec, Stopped, TICK, Tail, guard, spawn,
    tree,
};

pub use super::guard::stop_all;

/// Whether `program` can be started: an executable file, looked for on
/// PATH when it names no folder, whose `#!` line (if any) names an
/// interpreter that exists; else why not.
pub fn runnable(program: &str) -> Result<(), String> {
    runnable_path(Path::new(program))
}

fn runnable_path(program: &Path) -> Result<(), String> {
    let runnable =
        |p: &Path| p.is_file() && rustix::fs::access(p, rustix::fs::Access::EXEC_OK).is_ok();
    let named_path = program.as_os_str().as_encoded_bytes().contains(&b'/');
    let found = if named_path {
        Some(program.to_path_buf()).filter(|p| runnable(p))
    } else {
        std::env::var_os("PATH").and_then(|path| {
            std::env::split_paths(&path).map(|d| d.join(program)).find(|p| runnable(p))
        })
    };
    match found {
        Some(found) => interpreter_exists(&found),
        None if named_path && program.is_symlink() && !program.exists() => {
            Err("it is a broken symbolic link (what it points to does not exist)".into())
        }
        None if named_path && !program.exists() => Err("no such file".into()),
        None if named_path && program.is_dir() => Err("it is a folder, not a program".into()),
        None if named_path => Err("not an executable file".into()),
        None => Err("not found on PATH".into()),
    }
}

/// A script whose `#!` line names no interpreter that exists fails to start
/// with the kernel's "No such file or directory", which names the script:
/// say what is missing instead (a `\r` left by Windows line endings, most
/// often).
fn interpreter_exists(script: &Path) -> Result<(), String> {
    let mut head = [0u8; 256];
    let file = std::fs::File::open(script);
    let read = file.as_ref().map_or(0, |mut f| f.read(&mut head).unwrap_or(0));
    let head = &head[..read];
    if head.starts_with(b"\xef\xbb\xbf#!") {
        return Err(BOM_BEFORE_INTERPRETER_LINE.into());
    }
    let Some(line) = head.strip_prefix(b"#!") else {
        let file = file.ok();
        let loader = file.as_ref().and_then(|file| missing_loader(file, head));
        let other =
            || built_elsewhere(head, script).or_else(|| not_a_program(file.as_ref(), head, script));
        return match loader.or_else(other) {
            Some(what) => Err(what),
            None => no_interpreter_line(script),
        };
    };
    let line = line.split(|&b| b == b'\n').next().unwrap_or_default();
    let start = line.iter().position(|b| !b" \t".contains(b)).unwrap_or(line.len());
    let word = &line[start..];
    let word = &word[..word.iter().position(|b| b" \t".contains(b)).unwrap_or(word.len())];
    let interpreter = Path::new(std::ffi::OsStr::from_bytes(word));
    if word.is_empty() || interpreter.is_file() {
        // `#!/usr/bin/env python3\r`: env exists, `python3\r` does not.
        if line.ends_with(b"\r") {
            let shown = String::from_utf8_lossy(line).trim_end().to_string();
            return Err(format!(
                "its first line, `#!{shown}`, ends in \\r: a Windows line ending (save the script with LF line endings)"
            ));
        }
        return Ok(());
    }
    let shown = String::from_utf8_lossy(word).replace('\r', "\\r");
    match word.ends_with(b"\r") {
        true => Err(format!(
            "its first line names the interpreter '{shown}', which does not exist: the \\r is a Windows line ending (save the script with LF line endings)"
        )),
        false => {
            Err(format!("its first line names the interpreter '{shown}', which does not exist"))
        }
    }
}

/// A script saved as "UTF-8 with BOM" (Notepad before 2019, VS Code's
/// choice of that name): the kernel sees no `#!` behind the byte order
/// mark, refuses it (ENOEXEC), and /bin/sh runs it as a shell script.
const BOM_BEFORE_INTERPRETER_LINE: &str = "its first line begins with a UTF-8 byte order mark \
    (the bytes EF BB BF, which editors do not show) before `#!`, so the system does not see the \
    `#!` and /bin/sh would run it as a shell script: save it as UTF-8 without BOM (in VS Code: \
    click \"UTF-8 with BOM\" in the status bar, \"Save with Encoding\", \"UTF-8\")";

/// The first bytes of a macOS program (Mach-O: 32 and 64 bits, either
/// byte order, and fat).
const MACH_O: [[u8; 4]; 5] = [
    [0xfe, 0xed, 0xfa, 0xce],
    [0xfe, 0xed, 0xfa, 0xcf],
    [0xce, 0xfa, 0xed, 0xfe],
    [0xcf, 0xfa, 0xed, 0xfe],
    [0xca, 0xfe, 0xba, 0xbe],
];

/// What a file that is no script is, when it is a program built for
/// another system or processor, or a Java class, by its first bytes: the
/// kernel refuses it (ENOEXEC) and a shell then reads it as a script
/// (`as_shell_would`), whose syntax error would be all a student reads
/// (the tester's C8).
fn built_elsewhere(head: &[u8], file: &Path) -> Option<String> {
    let system = match std::env::consts::OS {
        "macos" => "macOS",
        "linux" => "Linux",
        other => other,
    };
    let what = |program: &str| {
        format!(
            "it is {program}, which does not run on {system}: build it on this system (from its \
             source), or submit the source and a build command"
        )
    };
    if head.starts_with(b"MZ") {
        return Some(what("a Windows program (.exe)"));
    }
    // Java's class files share the fat Mach-O's magic: a class's version
    // (45 and up) follows it where a Mach-O has its count of processors.
    if head.starts_with(&[0xca, 0xfe, 0xba, 0xbe])
        && head.len() >= 8
        && int(&head[4..8], true) >= 45
    {
        let folder = file.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let class = file.file_stem().unwrap_or_default().to_string_lossy();
        return Some(format!(
            "it is a Java class file, which only Java runs: name what runs it (`java -cp {} {class}`)",
            folder.display()
        ));
    }
    if MACH_O.iter().any(|magic| head.starts_with(magic)) && system != "macOS" {
        return Some(what("a macOS program (Mach-O)"));
    }
    if !head.starts_with(b"\x7fELF") || head.len() < 20 {
        return None;
    }
    if system != "Linux" {
        return Some(what("a Linux program (ELF)"));
    }
    let theirs = elf_machine(head)?;
    let ours = std::env::consts::ARCH;
    (!elf_runs_here(theirs)).then(|| {
        format!(
            "it is a Linux program for {theirs}, and this machine is {ours}: build it on this \
             machine (from its source), or submit the source and a build command"
        )
    })
}

/// What a file the kernel refuses to start is, when it is no program nor
/// script at all: an object file (`cc -c`), a core dump, a program cut
/// short, a zip archive (a `.jar`), text saved as UTF-16, or binary data. Handed it, /bin/sh said a syntax error, or
/// "Exec format error", depending on how it was started (attack 42).
fn not_a_program(file: Option<&std::fs::File>, head: &[u8], path: &Path) -> Option<String> {
    // A macOS program, on macOS (elsewhere `built_elsewhere` names it).
    if MACH_O.iter().any(|magic| head.starts_with(magic)) {
        return None;
    }
    if head.starts_with(b"\x7fELF") && head.len() >= 20 {
        return match int(&head[16..18], head[5] == 2) {
            1 => Some(
                "it is an object file (what `cc -c` makes), not a program: link it into one \
                 (build it without -c)"
                    .into(),
            ),
            4 => Some("it is a core dump (what a crash left), not a program".into()),
            _ if file.is_some_and(|file| elf_cut_short(file, head)) => Some(
                "it is a program cut short (a copy or a build that did not finish): build \
                 it again, or copy it whole"
                    .into(),
            ),
            _ => None,
        };
    }
    if head.starts_with(b"PK\x03\x04") {
        let shown = path.file_name().map(Path::new).unwrap_or(path).display();
        let python = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("pyz"));
        let runs = if python { "python3" } else { "java -jar" };
        return Some(format!(
            "it is a zip archive (a Java .jar, a Python .pyz): name what runs it (`{runs} ./{shown}`)"
        ));
    }
    // Notepad's "Unicode": a byte order mark, or ASCII with a NUL after each.
    let utf16 = head.starts_with(&[0xff, 0xfe])
        || head.starts_with(&[0xfe, 0xff])
        || matches!(head, [1..0x80, 0, 1..0x80, 0, ..]);
    if utf16 {
        return Some(
            "it is text saved as UTF-16 (\"Unicode\"), which no shell reads: save it as UTF-8, \
             its first line `#!` and what runs it"
                .into(),
        );
    }
    // As bash tells a binary file: a NUL byte in its first line.
    let line = head.split(|&b| b == b'\n').next().unwrap_or_default();
    line.contains(&0).then(|| {
        "it is binary data, neither a program this system runs nor a script: name the \
         program, or build it"
            .into()
    })
}

/// Whether an ELF program is cut short: its program headers, or a segment
/// read from the file, lie past its end (a copy or a build that did not
/// finish, which the kernel starts and which then crashes). A header
/// `object` cannot read (fields the kernel ignores) is not judged.
fn elf_cut_short(file: &std::fs::File, head: &[u8]) -> bool {
    let Ok(length) = file.metadata().map(|m| m.len()) else { return false };
    match elf_segments(file, head) {
        Ok(segments) => segments.iter().any(|s| s.offset.saturating_add(s.size) > length),
        Err(Unread::Header) => false,
        Err(Unread::Table) => true,
    }
}

/// A program header of an ELF file: its type, and where it is in the file.
struct Segment {
    kind: object::elf::ProgramType,
    offset: u64,
    size: u64,
}

/// Why an ELF file's program headers were not read.
enum Unread {
    /// Its header: `object` does not read it.
    Header,
    /// The table itself: past the file's end.
    Table,
}

/// An ELF file's program headers, read with `object` (only the headers;
/// docs/DECISIONS.md).
fn elf_segments(file: &std::fs::File, head: &[u8]) -> Result<Vec<Segment>, Unread> {
    use object::elf::{FileHeader32, FileHeader64};
    use object::read::elf::{FileHeader, ProgramHeader};
    fn read<'d, H: FileHeader>(data: impl object::ReadRef<'d>) -> Result<Vec<Segment>, Unread> {
        let header = H::parse(data).map_err(|_| Unread::Header)?;
        let endian = header.endian().map_err(|_| Unread::Header)?;
        let segments = header.program_headers(endian, data).map_err(|_| Unread::Table)?;
        Ok(segments
            .iter()
            .map(|s| Segment {
                kind: s.p_type(endian),
                offset: s.p_offset(endian).into(),
                size: s.p_filesz(endian).into(),
            })
            .collect())
    }
    let data = &object::ReadCache::new(file);
    match head.get(4) {
        Some(1) => read::<FileHeader32<object::Endianness>>(data),
        Some(2) => read::<FileHeader64<object::Endianness>>(data),
        _ => Err(Unread::Header),
    }
}

/// The processor an ELF file is for, by its header's `e_machine`, when it
/// is one tictac knows.
fn elf_machine(head: &[u8]) -> Option<&'static str> {
    let machine = int(head.get(18..20)?, head.get(5) == Some(&2));
    Some(match machine {
        3 => "x86",
        8 => "mips",
        20 => "powerpc",
        21 => "powerpc64",
        22 => "s390x",
        40 => "arm",
        62 => "x86_64",
        183 => "aarch64",
        243 => "riscv64",
        258 => "loongarch64",
        _ => return None,
    })
}

/// Whether a program for the processor `theirs` runs on this machine: a
/// 32-bit program of the same family may.
fn elf_runs_here(theirs: &str) -> bool {
    let ours = std::env::consts::ARCH;
    theirs == ours || matches!((theirs, ours), ("x86", "x86_64") | ("arm", "aarch64"))
}

/// A Linux program for this machine whose loader (its `PT_INTERP`, the
/// dynamic linker named at its build) this system lacks: the kernel's
/// "No such file or directory" named the program, which is there. Built
/// on another distribution (NixOS), against musl (Alpine), or 32-bit on
/// a system without 32-bit libraries.
fn missing_loader(file: &std::fs::File, head: &[u8]) -> Option<String> {
    let theirs = head.starts_with(b"\x7fELF").then(|| elf_machine(head)).flatten()?;
    if std::env::consts::OS != "linux" || !elf_runs_here(theirs) {
        return None;
    }
    let loader = elf_loader(file, head)?;
    let loader = Path::new(std::ffi::OsStr::from_bytes(&loader));
    if !loader.is_absolute() || loader.exists() {
        return None;
    }
    let built = match loader.to_string_lossy() {
        l if l.contains("musl") => "against musl (as on Alpine Linux), not this system's C library",
        l if l.starts_with("/nix/") => "on NixOS, whose loaders live in /nix/store",
        _ if theirs != std::env::consts::ARCH => {
            "for 32 bits, which this system has no libraries for"
        }
        _ => "on another system",
    };
    Some(format!(
        "it is a Linux program that needs the loader {}, which this system lacks: it was built \
         {built}; build it on this system (from its source), or link it statically",
        loader.display()
    ))
}

/// The loader an ELF program names (its `PT_INTERP` program header's
/// path), if it names one; a static program names none.
fn elf_loader(file: &std::fs::File, head: &[u8]) -> Option<Vec<u8>> {
    use std::os::unix::fs::FileExt;
    let segments = elf_segments(file, head).ok()?;
    let interp = segments.iter().find(|s| s.kind == object::elf::PT_INTERP)?;
    // A path is short: a header that says otherwise is not read.
    let mut path = vec![0; usize::try_from(interp.size).ok().filter(|&n| n <= 4096)?];
    file.read_exact_at(&mut path, interp.offset).ok()?;
    let end = path.iter().position(|&b| b == 0).unwrap_or(path.len());
    path.truncate(end);
    Some(path)
}

/// The unsigned number `bytes` hold, big-endian or little-endian.
fn int(bytes: &[u8], big: bool) -> u64 {
    let fold = |n: u64, &b: &u8| n << 8 | u64::from(b);
    match big {
        true => bytes.iter().fold(0, fold),
        false => bytes.iter().rev().fold(0, fold),
    }
}

/// The interpreters of scripts named by their extension, which a script
/// without a `#!` line needs named: /bin/sh would run it otherwise.
const SCRIPTS: [(&str, &str); 5] =
    [("py", "python3"), ("rb", "ruby"), ("js", "node"), ("pl", "perl"), ("php", "php")];

/// A script of another language than the shell's without a `#!` line, by
/// its name (`ttt.py`): /bin/sh would run it and report its own syntax
/// error. A file named otherwise may be a shell script, which needs none.
fn no_interpreter_line(script: &Path) -> Result<(), String> {
    let extension = script.extension().and_then(|e| e.to_str()).unwrap_or_default();
    // Windows keeps a name's case loosely: `ttt.PY` is Python too.
    let Some((_, interpreter)) = SCRIPTS.iter().find(|(e, _)| e.eq_ignore_ascii_case(extension))
    else {
        return Ok(());
    };
    let shown = script.file_name().map(Path::new).unwrap_or(script).display();
    Err(format!(
        "it has no `#!` line, so /bin/sh would run it as a shell script: make its first line \
         `#!/usr/bin/env {interpreter}`, or name what runs it (`{interpreter} ./{shown}`)"
    ))
}

/// `argv` started in `dir`: posix_spawn has no portable change of folder
/// (`addchdir_np` is glibc's and nix does not offer it; `unsafe` is
/// forbidden), so `sh` changes folder and then becomes the program (same
/// process, same session). The program is checked first, as found from
/// `dir`, so that one that cannot start says why, as without a folder.
fn in_folder(argv: &[OsString], dir: &Path) -> io::Result<Vec<OsString>> {
    check_in(argv, dir)?;
    // `cd` would leave the runner's folder in OLDPWD, for the program to find.
    // `sh` is its name in what it says (`sh: 1: exec: ...`), not the folder.
    let script = "cd -- \"$1\" || exit 127; shift; unset OLDPWD; exec \"$@\"";
    let head = ["/bin/sh", "-c", script, "sh"].map(OsString::from);
    Ok(head.into_iter().chain([dir.as_os_str().to_owned()]).chain(argv.iter().cloned()).collect())
}

/// `argv` started by `sh`, as a shell starts a command: a file the kernel
/// cannot start is read as a shell script.
fn as_shell_would(argv: &[OsString]) -> Vec<OsString> {
    let head = ["/bin/sh", "-c", "exec \"$@\"", "sh"].map(OsString::from);
    head.into_iter().chain(argv.iter().cloned()).collect()
}

/// Whether `argv`'s program, as found from `dir`, can start; else why not.
fn check_in(argv: &[OsString], dir: &Path) -> io::Result<()> {
    let program = Path::new(argv.first().ok_or(io::ErrorKind::InvalidInput)?);
    let found = match program.as_os_str().as_encoded_bytes().contains(&b'/') {
        true => dir.join(program),
        false => program.to_path_buf(),
    };
    runnable_path(&found).map_err(|why| io::Error::new(io::ErrorKind::NotFound, why))
}

/// How long a program found ended past its deadline has for its output to
/// be read.
const DRAIN: Duration = Duration::from_secs(1);

/// The signal that ended a program, if one did.
pub fn signal_of(status: ExitStatus) -> Option<i32> {
    status.signal()
}

/// The name of signal number `signal` (`SIGSEGV`), if it has one.
pub fn signal_name(signal: i32) -> Option<&'static str> {
    nix::sys::signal::Signal::try_from(signal).ok().map(|s| s.as_str())
}

/// None: an exit code here is a program's own (0 to 255); a crash is a
/// signal.
pub fn exception_of(_code: i32) -> Option<super::Exception> {
    None
}

/// Runs the program to its end (or the deadline, the cap, a stop); an error
/// only when it could not be started or watched. When this returns, its
/// process group and every tagged descendant have been stopped.
pub fn run(spec: &Spec) -> io::Result<Finished> {
    let deadline = Instant::now().checked_add(spec.timeout);
    let in_dir;
    let argv = match (spec.dir, spec.user) {
        (dir, Some(run)) => {
            let dir = dir.unwrap_or(Path::new("."));
            check_in(spec.argv, dir)?;
            in_dir = super::user::start_as(spec.argv, dir, run.user, run.home, run.tmp);
            &in_dir
        }
        (None, None) => spec.argv,
        (Some(dir), None) => {
            in_dir = in_folder(spec.argv, dir)?;
            &in_dir
        }
    };
    let typed = spec.input.is_some();
    let program = Path::new(argv.first().map_or("".as_ref(), |p| p.as_os_str()));
    let spawned = guard::spawn(argv, typed).or_else(|e| match e.raw_os_error() {
        // A file the kernel cannot start, with no `#!` line: a shell runs
        // it as a shell script (as `in_folder`'s `sh` does), unless it is
        // something else (a `.py`, a Windows program), said below.
        Some(nix::libc::ENOEXEC) if runnable_path(program).is_ok() => {
            guard::spawn(&as_shell_would(argv), typed)
        }
        _ => Err(e),
    });
    let (mut started, pipes) = spawned.map_err(|e| {
        // The kernel's "No such file" names the script even when its `#!`
        // interpreter is what is missing, and "Exec format error" says not
        // what the file is: say why, as `in_folder` does.
        let unclear = matches!(e.kind(), io::ErrorKind::NotFound | io::ErrorKind::PermissionDenied)
            || e.raw_os_error() == Some(nix::libc::ENOEXEC);
        match unclear.then(|| runnable_path(program).err()).flatten() {
            Some(why) => io::Error::new(io::ErrorKind::NotFound, why),
            None => e,
        }
    })?;
    let mut held = None;
    let watched = watch(&mut started, pipes, spec, deadline, &mut held);
    // Looked at before the run is stopped, as it stood.
    let at_deadline = match &watched {
        Ok((Ending::TimedOut, ..)) => Some(at_deadline(&started.child)),
        _ => None,
    };
    let status = guard::finish(&mut started);
    let (ending, stdout, stderr) = watched?;
    let ending = match ending {
        Ending::Exited(_) => Ending::Exited(status?),
        other => other,
    };
    let stderr_lines_dropped = stderr.lines_dropped;
    Ok(Finished { ending, stdout, stderr: stderr.kept, stderr_lines_dropped, held, at_deadline })
}

/// How a run that did not end stands: whether it is stopped, the program
/// itself (`waitid`, which gives the signal, leaving the stop to be waited
/// for) or a process of its session (`/proc`'s state `T`), and the CPU time
/// its session's processes used and waited for.
fn at_deadline(child: &spawn::Child) -> AtDeadline {
    use rustix::process::{WaitId, WaitIdOptions};
    let pid = child.id() as i32;
    let session = tree::session_of(pid);
    let options = WaitIdOptions::STOPPED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
    let own = rustix::process::Pid::from_raw(pid)
        .and_then(|p| rustix::process::waitid(WaitId::Pid(p), options).ok().flatten())
        .filter(|status| status.stopped())
        .map(|status| Stopped { signal: status.stopping_signal(), process: None });
    let other = || {
        let stopped = session.iter().find(|p| p.state == 'T')?;
        let process = (stopped.pid != pid)
            .then(|| Other { pid: stopped.pid as u32, name: stopped.name.clone() });
        Some(Stopped { signal: None, process })
    };
    let waited: Vec<Duration> =
        session.iter().filter_map(|p| tree::waited_for_cpu(p.pid)).collect();
    AtDeadline {
        stopped: own.or_else(other),
        cpu: (!session.is_empty()).then(|| session.iter().map(|p| p.cpu).sum()),
        waited: (!waited.is_empty()).then(|| waited.into_iter().sum()),
    }
}

/// What was left in a program's standard output when it exited: read to
/// its end, or found still held open by a process it started, which is
/// then named (`/proc`; the run's session). Reads a bounded number of
/// times: one writing without pause holds it.
enum Drained {
    Ended,
    Held(Held),
    /// Still open, and no process of the run found holding it.
    Unknown,
    TooMuch,
}

fn drain(
    stdout: &mut std::fs::File,
    out: &mut Capture,
    buf: &mut [u8],
    session: i32,
) -> io::Result<Drained> {
    for _ in 0..16 {
        match read_some(stdout, buf) {
            Some(0) => return Ok(Drained::Ended),
            Some(n) if !out.push(&buf[..n])? => return Ok(Drained::TooMuch),
            Some(_) => {}
            None => break,
        }
    }
    // Told only when a process of the run is found holding it: a runner's
    // thread starting another program holds a copy of the pipe for a
    // moment (until that program's exec), which is no news of this one.
    let inode = rustix::fs::fstat(&*stdout)?.st_ino as u64;
    let by = tree::session_of(session)
        .into_iter()
        .find(|p| tree::holds_pipe(p.pid, inode))
        .map(|p| Other { pid: p.pid as u32, name: p.name });
    Ok(match by {
        Some(by) => Drained::Held(Held { by: Some(by) }),
        None => Drained::Unknown,
    })
}

/// Types, reads and waits at once on this one thread: a program may answer
/// before it has read its input, so neither side may block the other.
fn watch(
    started: &mut guard::Started,
    mut pipes: Pipes,
    spec: &Spec,
    deadline: Option<Instant>,
    held: &mut Option<Held>,
) -> io::Result<(Ending, Capture, Tail)> {
    let mut typed = spec.input.unwrap_or_default();
    if typed.is_empty() {
        pipes.stdin = None;
    }
    for fd in [pipes.stdin.as_ref().map(|p| p.as_fd()), pipes.stdout.as_ref().map(|p| p.as_fd())]
        .into_iter()
        .chain([pipes.stderr.as_ref().map(|p| p.as_fd())])
        .flatten()
    {
        rustix::io::ioctl_fionbio(fd, true)?;
    }
    let mut out = Capture::new(spec.cap);
    let mut err = Tail::default();
    let mut buf = vec![0u8; 64 * 1024];
    let mut exited = false;
    let mut pause = Duration::from_micros(100);
    // Readable when the child exits, so its end is seen without polling the
    // clock (absent on old kernels: then looked at now and then).
    let mut exit_fd = pid_fd(&started.child);
    // Time the runner spent stopped (Ctrl-Z) is not the program's.
    let suspended = guard::time_suspended();
    // A runner stopped by SIGSTOP (which it cannot see, unlike Ctrl-Z) may
    // wake past the deadline to find the program ended meanwhile, its
    // output still in the pipes: that is read, for at most `DRAIN` more.
    let mut drain_until: Option<Instant> = None;
    loop {
        if spec.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            return Ok((Ending::Stopped, out, err));
        }
        let now = Instant::now();
        let moved = guard::time_suspended().saturating_sub(suspended);
        let left = match deadline.and_then(|d| d.checked_add(moved)) {
            Some(d) if now >= d => {
                if !exited && drain_until.is_none() && started.child.try_wait()?.is_some() {
                    drain_until = now.checked_add(DRAIN);
                }
                match drain_until {
                    Some(until) if now < until => until - now,
                    _ => return Ok((Ending::TimedOut, out, err)),
                }
            }
            Some(d) => d - now,
            None => TICK,
        };
        if !exited && let Some(status) = started.child.try_wait()? {
            exited = true;
            exit_fd = None;
            if let Some(stdout) = &mut pipes.stdout {
                match drain(stdout, &mut out, &mut buf, started.child.id() as i32)? {
                    Drained::Ended => pipes.stdout = None,
                    Drained::Held(who) => *held = Some(who),
                    Drained::Unknown => {}
                    Drained::TooMuch => return Ok((Ending::PrintedTooMuch, out, err)),
                }
            }
            // Whatever it left behind must not hold its pipes open.
            guard::stop_descendants(started);
            if pipes.stdout.is_none() && pipes.stderr.is_none() {
                return Ok((Ending::Exited(status), out, err));
            }
        }
        if pipes.stdout.is_none() && pipes.stderr.is_none() {
            if exited {
                let status = started.child.try_wait()?.ok_or(io::ErrorKind::Other)?;
                return Ok((Ending::Exited(status), out, err));
            }
            // Output closed, exit not seen yet: wait for it.
            if let Some(fd) = &exit_fd {
                wait_for_exit(fd, left.min(TICK))?;
            } else {
                std::thread::sleep(pause.min(left));
                pause = (pause * 2).min(Duration::from_millis(10));
            }
            continue;
        }
        wait_for_pipes(&pipes, !typed.is_empty(), left.min(TICK))?;
        if let Some(stdin) = &mut pipes.stdin {
            match stdin.write(typed) {
                Ok(n) => typed = &typed[n..],
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                // It closed its input (a shell that quit early): not an error.
                Err(_) => typed = &[],
            }
            if typed.is_empty() {
                pipes.stdin = None;
            }
        }
        if let Some(stdout) = &mut pipes.stdout {
            match read_some(stdout, &mut buf) {
                Some(0) => pipes.stdout = None,
                // Kept as read; past the cap, the run ends.
                Some(n) if !out.push(&buf[..n])? => return Ok((Ending::PrintedTooMuch, out, err)),
                _ => {}
            }
        }
        if let Some(stderr) = &mut pipes.stderr {
            match read_some(stderr, &mut buf) {
                Some(0) => pipes.stderr = None,
                Some(n) => err.push(&buf[..n]),
                None => {}
            }
        }
    }
}

/// Bytes read (0 at the end), or None when nothing is ready now.
fn read_some(pipe: &mut impl Read, buf: &mut [u8]) -> Option<usize> {
    match pipe.read(buf) {
        Ok(n) => Some(n),
        Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted) => {
            None
        }
        // A broken pipe is an end.
        Err(_) => Some(0),
    }
}

/// A descriptor that becomes readable when `child` exits (Linux 5.3+).
fn pid_fd(child: &spawn::Child) -> Option<std::os::fd::OwnedFd> {
    #[cfg(target_os = "linux")]
    {
        let pid = rustix::process::Pid::from_raw(child.id() as i32)?;
        rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()).ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = child;
        None
    }
}

fn wait_for_exit(fd: &std::os::fd::OwnedFd, wait: Duration) -> io::Result<()> {
    let mut fds = [PollFd::new(fd, PollFlags::IN)];
    poll_for(&mut fds, wait)
}

fn wait_for_pipes(pipes: &Pipes, typing: bool, wait: Duration) -> io::Result<()> {
    let mut fds = Vec::with_capacity(3);
    if let (Some(stdin), true) = (&pipes.stdin, typing) {
        fds.push(PollFd::new(stdin, PollFlags::OUT));
    }
    if let Some(stdout) = &pipes.stdout {
        fds.push(PollFd::new(stdout, PollFlags::IN));
    }
    if let Some(stderr) = &pipes.stderr {
        fds.push(PollFd::new(stderr, PollFlags::IN));
    }
    poll_for(&mut fds, wait)
}

/// Waits at most `wait` (under a second) for one of `fds` to be ready.
fn poll_for(fds: &mut [PollFd], wait: Duration) -> io::Result<()> {
    let timeout = Timespec { tv_sec: 0, tv_nsec: wait.subsec_nanos().into() };
    match rustix::event::poll(fds, Some(&timeout)) {
        Ok(_) | Err(rustix::io::Errno::INTR) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    /// What names a file that is no program (an object file, a program cut
    /// short, binary data) refuses none of this system's programs: every
    /// file of /usr/bin may start, but for a script whose interpreter is
    /// missing.
    #[test]
    fn no_program_of_this_system_is_refused() {
        let mut checked = 0;
        for entry in std::fs::read_dir("/usr/bin").expect("/usr/bin") {
            let path = entry.expect("an entry").path();
            if !path.is_file() || !crate::files::has_execute_bit(&path) {
                continue;
            }
            if let Err(why) = super::runnable_path(&path) {
                assert!(why.contains("interpreter"), "{}: {why}", path.display());
            }
            checked += 1;
        }
        assert!(checked >= 10, "{checked} programs in /usr/bin");
    }
}

//! Programs run as another user (`tictac grade` run as root): who that is,
//! what it may reach, giving it a run's scratch folder, and the start
//! itself. posix_spawn cannot change users, so the program is started
//! through this executable (`/proc/self/exe`, whatever its name now) with
//! `RUN_AS` first: it drops to the user with std's safe
//! `CommandExt::uid`/`gid` (which also clears the supplementary groups),
//! moves into the folder as that user, and becomes the program.

use std::ffi::{OsStr, OsString};
use std::io::{self, Read};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};

use super::RunAs;

/// The first argument that makes this executable start a program as
/// another user (no person types it).
const RUN_AS: &str = "\u{1}tictac-run-as";

/// What the grading process is called while it runs programs as another
/// user (its `comm`, 15 bytes at most): a tictac started below it refuses
/// to answer for them (Linux only: elsewhere a process's ancestors are not
/// read).
#[cfg(target_os = "linux")]
const GRADER: &str = "tictac-grader";

/// The user named, as programs run as it; never root.
pub fn lookup(name: &str) -> Result<RunAs, String> {
    let user = match nix::unistd::User::from_name(name) {
        Ok(Some(user)) => user,
        Ok(None) => return Err(format!("there is no user '{name}' on this system")),
        Err(e) => return Err(format!("cannot look up the user '{name}': {e}")),
    };
    if user.uid.is_root() {
        return Err(format!("'{name}' is root: programs run as an unprivileged user"));
    }
    Ok(RunAs { name: name.to_string(), uid: user.uid.as_raw(), gid: user.gid.as_raw() })
}

/// Whether this process may run programs as another user.
pub fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// This process's own user id.
pub fn own_uid() -> u32 {
    rustix::process::getuid().as_raw()
}

/// Gives `path` and all it holds to `user` (links themselves, not what
/// they point to). A file with more than one name is left as it is: it may
/// be another's, linked in by a program that had the folder (a build given
/// back to its user for each test).
pub fn give(path: &Path, user: &RunAs) -> io::Result<()> {
    let owner = Some(rustix::fs::Uid::from_raw(user.uid));
    let group = Some(rustix::fs::Gid::from_raw(user.gid));
    for entry in walkdir::WalkDir::new(path).follow_links(false) {
        let entry = entry.map_err(io::Error::other)?;
        let linked =
            !entry.file_type().is_dir() && entry.metadata().map_err(io::Error::other)?.nlink() > 1;
        if linked {
            continue;
        }
        let flags = rustix::fs::AtFlags::SYMLINK_NOFOLLOW;
        rustix::fs::chownat(rustix::fs::CWD, entry.path(), owner, group, flags)?;
    }
    Ok(())
}

/// Gives `path` and all it holds back to this process's own user and
/// group, from the user it was given to.
pub fn take_back(path: &Path) -> io::Result<()> {
    let own =
        RunAs { name: String::new(), uid: own_uid(), gid: rustix::process::getgid().as_raw() };
    give(path, &own)
}

/// The permission bits `user` gets on a file of this mode and owner (it
/// has no supplementary groups): read 4, write 2, execute 1.
fn bits(meta: &std::fs::Metadata, user: &RunAs) -> u32 {
    let mode = meta.mode();
    match (meta.uid() == user.uid, meta.gid() == user.gid) {
        (true, _) => (mode >> 6) & 7,
        (false, true) => (mode >> 3) & 7,
        _ => mode & 7,
    }
}

/// The first folder on the way to `path` (itself included when `want`
/// asks for its bits) that `user` may not pass; None when it may.
fn blocked(path: &Path, user: &RunAs, want: u32) -> Option<PathBuf> {
    let mut ancestors: Vec<&Path> = path.ancestors().skip(1).collect();
    ancestors.reverse();
    for folder in ancestors {
        if std::fs::metadata(folder).is_ok_and(|m| bits(&m, user) & 1 == 0) {
            return Some(folder.to_path_buf());
        }
    }
    match std::fs::metadata(path) {
        Ok(m) if bits(&m, user) & want != want => Some(path.to_path_buf()),
        _ => None,
    }
}

/// How deep `#!` lines are followed (the kernel follows a few, too).
const INTERPRETERS: usize = 4;

/// Why `user` cannot run the file at `path` (its folders, the file, then
/// the interpreter its `#!` line names, `depth` of them at most), if it
/// cannot.
fn cannot_run(path: &Path, user: &RunAs, depth: usize) -> Option<String> {
    let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    for (at, want) in [(path, 0), (canonical.as_path(), 1)] {
        if let Some(wall) = blocked(at, user, want) {
            return Some(match wall == at {
                true => format!("{} may not be run by it", wall.display()),
                false => format!("{} is closed to it", wall.display()),
            });
        }
    }
    let depth = depth.checked_sub(1)?;
    let mut head = [0u8; 256];
    let read = std::fs::File::open(&canonical).and_then(|mut f| f.read(&mut head)).unwrap_or(0);
    let line = head[..read].strip_prefix(b"#!")?.split(|&b| b == b'\n').next()?;
    // A script is read by its interpreter, as the user.
    if blocked(&canonical, user, 4).is_some() {
        return Some(format!("{} may not be read by it", canonical.display()));
    }
    let mut words = line.split(|b| b" \t\r".contains(b)).filter(|w| !w.is_empty());
    let interpreter = Path::new(OsStr::from_bytes(words.next()?));
    if let Some(why) = cannot_run(interpreter, user, depth) {
        return Some(why);
    }
    // `#!/usr/bin/env python3`: python3 as the user finds it.
    match (interpreter.file_name() == Some(OsStr::new("env")), words.next()) {
        (true, Some(name)) if !name.starts_with(b"-") => {
            runnable_within(&OsStr::from_bytes(name).to_string_lossy(), user, depth).err()
        }
        _ => None,
    }
}

/// Whether `user` can run `program` as it would find it: on PATH (the
/// folders it may not enter passed over, as `execvp` passes them), or at
/// the path named from the root; a relative path is not checked (below).
/// The error names the file found and why the user cannot run it.
pub fn runnable_as(program: &str, user: &RunAs) -> Result<(), String> {
    // `./ttt` names a file of the folder the program runs in, which runs as
    // `user` in a copy `user` owns (`tictac grade`, `test --user`).
    if program.contains('/') && !program.starts_with('/') {
        return Ok(());
    }
    runnable_within(program, user, INTERPRETERS)
}

fn runnable_within(program: &str, user: &RunAs, depth: usize) -> Result<(), String> {
    let named = Path::new(program);
    let candidates: Vec<PathBuf> = match program.contains('/') {
        true => vec![named.to_path_buf()],
        false => std::env::var_os("PATH")
            .map(|path| std::env::split_paths(&path).map(|d| d.join(program)).collect())
            .unwrap_or_default(),
    };
    let mut refused = None;
    for candidate in candidates.iter().filter(|c| c.is_file()) {
        match cannot_run(candidate, user, depth) {
            None => return Ok(()),
            Some(why) => {
                let found = match candidate == named {
                    true => String::new(),
                    false => format!(" is {}", candidate.display()),
                };
                refused.get_or_insert(format!(
                    "{program}{found}, which the user {} cannot run ({why})",
                    user.name
                ));
            }
        }
    }
    match refused {
        Some(why) => Err(why),
        // Not found at all: said as before, when its test runs.
        None => Ok(()),
    }
}

/// Whether `user` could read what `path` holds: a folder's entries (enter
/// it and list it), a file's bytes. Links on the way are the caller's to
/// resolve: the folders checked are the path's own.
pub fn can_read(path: &Path, user: &RunAs) -> bool {
    let want = if path.is_dir() { 5 } else { 4 };
    blocked(path, user, want).is_none()
}

/// Whether `path` (what a link there names) belongs to `user`, who may
/// then write in it whatever its mode says.
pub fn owned_by(path: &Path, user: &RunAs) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.uid() == user.uid)
}

/// Whether `user` could change `path`: write the file, or make, remove
/// and rename what the folder holds (its folders passable on the way).
pub fn can_change(path: &Path, user: &RunAs) -> bool {
    let want = match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => 3,
        Ok(m) if m.is_file() => 2,
        // A link's own bits mean nothing; what it names is checked apart.
        _ => return false,
    };
    blocked(path, user, want).is_none()
}

/// Names this process so that a tictac started below it knows it is run
/// by a program under grading (Linux; elsewhere nothing is known).
pub fn mark_grader() {
    #[cfg(target_os = "linux")]
    {
        let name = std::ffi::CString::new(GRADER).unwrap_or_default();
        let _ = nix::sys::prctl::set_name(&name);
    }
}

/// Whether a grading tictac running programs as another user is among
/// this process's ancestors, and runs as another user than this process:
/// a program under grading started tictac (by PATH, by its path, by
/// `/proc/PID/exe`, or a copy of it), and tictac answers nothing for it.
/// The grader's own children (an `--oracle`, a build) run as the grader
/// and are answered: a program under grading never runs as the grader's
/// user (only root runs programs as another user, and never as root). An
/// ancestor of that name run as this process's user is passed over, not
/// taken for the grader: a program may name a copy of a shell so.
pub fn under_grading() -> bool {
    #[cfg(target_os = "linux")]
    {
        let mut pid = std::process::id();
        for _ in 0..4096 {
            let Ok(stat) = std::fs::read(format!("/proc/{pid}/stat")) else { return false };
            // `PID (COMM) STATE PPID ...`: COMM may hold spaces and parentheses.
            let (Some(open), Some(close)) =
                (stat.iter().position(|&b| b == b'('), stat.iter().rposition(|&b| b == b')'))
            else {
                return false;
            };
            if pid != std::process::id()
                && &stat[open + 1..close] == GRADER.as_bytes()
                && real_uid(pid) != Some(rustix::process::getuid().as_raw())
            {
                return true;
            }
            let rest = String::from_utf8_lossy(&stat[close + 1..]).into_owned();
            match rest.split_whitespace().nth(1).and_then(|p| p.parse().ok()) {
                Some(parent) if parent > 1 => pid = parent,
                _ => return false,
            }
        }
        false
    }
    #[cfg(not(target_os = "linux"))]
    false
}

/// The real user id of process `pid` (its `Uid:` line, which anyone may
/// read), or None once it is gone.
#[cfg(target_os = "linux")]
fn real_uid(pid: u32) -> Option<u32> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find_map(|l| l.strip_prefix("Uid:"))?;
    line.split_whitespace().next()?.parse().ok()
}

/// What a tictac started under grading says, on standard error; the
/// runner finds it there and notes it under the test.
pub const REFUSAL: &str =
    "tictac: a program under grading ran tictac itself, which answers nothing for it";

/// The arguments that start `argv` in `dir` as `user`, with `home` and
/// `tmp` as its HOME and TMPDIR, through this executable.
pub fn start_as(
    argv: &[OsString],
    dir: &Path,
    user: &RunAs,
    home: &Path,
    tmp: &Path,
) -> Vec<OsString> {
    // Linux's name of this process's executable, good in the child before
    // its exec even once the file is renamed or rebuilt.
    #[cfg(target_os = "linux")]
    let this = OsString::from("/proc/self/exe");
    #[cfg(not(target_os = "linux"))]
    let this = std::env::current_exe().map(OsString::from).unwrap_or_default();
    let head = [
        this,
        RUN_AS.into(),
        user.uid.to_string().into(),
        user.gid.to_string().into(),
        user.name.clone().into(),
        dir.into(),
        home.into(),
        tmp.into(),
    ];
    head.into_iter().chain(argv.iter().cloned()).collect()
}

/// When this process was started by `start_as`: becomes the program (or
/// says why it cannot, exit 127). None otherwise.
pub fn started_as(args: &[OsString]) -> Option<i32> {
    if args.get(1).map(OsString::as_os_str) != Some(OsStr::new(RUN_AS)) {
        return None;
    }
    let [uid, gid, name, dir, home, tmp, program, rest @ ..] = &args[2..] else {
        eprintln!("tictac: starting a program as another user: too few arguments");
        return Some(127);
    };
    let (Ok(uid), Ok(gid)) = (uid.to_string_lossy().parse(), gid.to_string_lossy().parse()) else {
        eprintln!("tictac: starting a program as another user: not a user id");
        return Some(127);
    };
    let e = std::process::Command::new(program)
        .args(rest)
        .uid(uid)
        .gid(gid)
        .current_dir(dir)
        .env("HOME", home)
        .env("TMPDIR", tmp)
        .env("USER", name)
        .env("LOGNAME", name)
        .env_remove("OLDPWD")
        .exec();
    eprintln!("tictac: cannot run {}: {e}", Path::new(program).display());
    Some(match e.kind() {
        io::ErrorKind::PermissionDenied => 126,
        _ => 127,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn write(path: &Path, text: &str, mode: u32) {
        std::fs::write(path, text).expect("write");
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
    }

    #[test]
    fn a_folder_closed_to_the_user_is_named_and_a_loop_of_interpreters_ends() {
        // Another user than this one, in no group of its files.
        let other = RunAs { name: "other".into(), uid: own_uid() ^ 1, gid: u32::MAX - 7 };
        let dir = tempfile::tempdir().expect("dir");
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700))
            .expect("chmod");
        let shim = dir.path().join("python3");
        write(&shim, "#!/bin/sh\nexec true\n", 0o755);
        let why = runnable_as(&shim.to_string_lossy(), &other).expect_err("closed");
        assert!(why.contains(&format!("{} is closed to it", dir.path().display())), "{why}");
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))
            .expect("chmod");
        assert_eq!(runnable_as(&shim.to_string_lossy(), &other), Ok(()));
        assert!(can_read(dir.path(), &other));
        // Two scripts naming each other: checked a few deep, then let be.
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        write(&a, &format!("#!{}\n", b.display()), 0o755);
        write(&b, &format!("#!{}\n", a.display()), 0o755);
        assert_eq!(runnable_as(&a.to_string_lossy(), &other), Ok(()));
        write(&a, "#!/bin/sh\n", 0o700);
        let why = runnable_as(&a.to_string_lossy(), &other).expect_err("its own");
        assert!(why.contains("may not be run by it"), "{why}");
    }
}

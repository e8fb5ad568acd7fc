//! Where a worker's program runs: a private copy of the folder the session
//! was started in (`suite::workdir`, as `tictac test` runs each test), so
//! that runs going on at once never share a scratch file a program writes
//! there, no run finds what an earlier one left, and nothing is left in
//! the folder. A copy is kept from run to run while neither it nor the
//! folder changed (a copy a run costs more than the run of a small
//! program): after each run the copy's watch (`process::FolderWatch`) says
//! whether anything happened in it, and only then is the copy listed (where
//! there is no watch, after every run); the folder is listed at most once
//! every `LOOK_EVERY`. A folder that cannot be copied whole is run in as it
//! is, one run at a time, as `tictac test` does.

use std::path::{Path, PathBuf};
use std::sync::MutexGuard;
use std::time::{Duration, Instant, SystemTime};

use super::FuzzError;
use super::program::Launched;
use crate::platform::process;
use crate::suite::workdir::{self, Listing, Place};

/// How often the folder is listed to see whether it changed (a rebuild):
/// each run's listing of it cost the session a tenth of its rate.
const LOOK_EVERY: Duration = Duration::from_secs(1);

/// How long a file of the folder must have been left alone before a copy
/// of it is trusted with a divergence (a rebuild writes a program in
/// pieces milliseconds apart).
const SETTLED: Duration = Duration::from_secs(1);

/// How many times in a row the folder may change while a copy's trust is
/// checked before its copies are trusted as they come.
const UNSETTLED: usize = 3;

/// One worker's place to run the program.
pub(crate) struct Workplace {
    /// The folder the session was started in (none: it cannot be named,
    /// and the program runs where tictac runs).
    folder: Option<PathBuf>,
    /// The session's scratch folder, where the copies are made (never
    /// copied itself).
    scratch: PathBuf,
    /// The worker's name for its copies (`work-N`).
    name: String,
    /// Copies made so far: each has a name of its own, so a copy the
    /// program made impossible to remove is left for the end.
    made: u64,
    /// The copy in use, if one was made.
    copy: Option<Copy>,
    /// How many copies in a row were not trusted (`current`).
    unsettled: usize,
    /// The program's words as given, and as they run in a copy.
    command: Vec<String>,
    in_copy: Vec<String>,
}

/// A worker's copy of the folder, kept from run to run.
struct Copy {
    path: PathBuf,
    /// The folder's listing when the copy was made, and when that was.
    listed: Listing,
    made: SystemTime,
    /// Trusted with a divergence (`Workplace::current`).
    trusted: bool,
    /// When the folder was last listed.
    looked: Instant,
    /// What happens in the copy, where it can be watched.
    watch: Option<process::FolderWatch>,
}

impl Copy {
    fn new(path: PathBuf, listed: Listing, made: SystemTime) -> Copy {
        let watch = process::FolderWatch::new(&path);
        Copy { path, listed, made, trusted: false, looked: Instant::now(), watch }
    }

    /// Whether the copy is still as made: nothing happened in it, or its
    /// listing is the folder's and each of its files holds the folder's
    /// bytes (a scratch file written and removed; not a file rewritten with
    /// its length and modification time put back, which lists the same).
    /// After something happened the watch is made again: a folder may have
    /// been replaced by another of the same listing. Where there is no
    /// watch, only the listing is compared, after every run.
    fn as_made(&mut self, folder: &Path, scratch: &Path) -> bool {
        let Some(watch) = &self.watch else {
            return workdir::listing(&self.path, scratch).as_ref() == Some(&self.listed);
        };
        if watch.untouched() {
            return true;
        }
        let same = workdir::listing(&self.path, scratch).as_ref() == Some(&self.listed)
            && same_files(&self.path, folder);
        if same {
            self.watch = process::FolderWatch::new(&self.path);
        }
        same
    }
}

/// Whether each file of `copy` holds the bytes of the same file in
/// `folder` (read only after a run that changed something in the copy: at
/// most the copy's limit, 32 MiB, as much as a new copy would cost).
fn same_files(copy: &Path, folder: &Path) -> bool {
    walkdir::WalkDir::new(copy).follow_links(false).into_iter().all(|entry| {
        let Ok(entry) = entry else { return false };
        if !entry.file_type().is_file() {
            return true;
        }
        let Ok(inside) = entry.path().strip_prefix(copy) else { return false };
        match (std::fs::read(entry.path()), std::fs::read(folder.join(inside))) {
            (Ok(copied), Ok(there)) => copied == there,
            _ => false,
        }
    })
}

/// Where one run happens: the program's words, the folder it runs in,
/// and, for a folder run in as it is, the hold that keeps other runs out.
pub(crate) struct Room {
    pub(crate) command: Vec<String>,
    pub(crate) dir: Option<PathBuf>,
    /// The copy it runs in, and the folder it is a copy of.
    copy: Option<(PathBuf, PathBuf)>,
    /// Why the program runs in the folder itself, if it does.
    pub(crate) note: Option<String>,
    _alone: Option<MutexGuard<'static, ()>>,
}

impl Room {
    /// A run of `command` in this process's folder (the oracle's, as
    /// `tictac test` runs an oracle).
    pub(crate) fn here(command: &[String]) -> Room {
        Room { command: command.to_vec(), dir: None, note: None, copy: None, _alone: None }
    }

    /// `launch`'s run of the room's command in the room: with this thread in
    /// it where a thread can have a folder of its own (no shell started to
    /// change folder, a third of a run), else naming it to `launch`.
    pub(crate) fn run(
        &self,
        launch: impl Fn(&[String], Option<&Path>) -> Launched,
    ) -> Result<Launched, FuzzError> {
        let Some(dir) = self.dir.as_deref() else { return Ok(launch(&self.command, None)) };
        let launch = |dir| launch(&self.command, dir);
        match process::within(dir, || launch(None)) {
            Some(launched) => {
                launched.map_err(|e| FuzzError::FolderNotEntered(dir.display().to_string(), e))
            }
            None => Ok(launch(Some(dir))),
        }
    }

    /// What a run in this room says on standard error, the copy's path in
    /// it named as the folder's (`can't open file '/home/ann/ttt.py'`, not
    /// a scratch folder's): the student knows the folder, not the copy.
    pub(crate) fn as_in_folder(&self, launched: Launched) -> Launched {
        let Some((copy, folder)) = &self.copy else { return launched };
        match launched {
            Launched::Finished { output, exit, stderr } => Launched::Finished {
                output,
                exit,
                stderr: workdir::as_in_folder(&stderr, copy, folder),
            },
            other => other,
        }
    }
}

impl Workplace {
    /// A worker's place, its copies made of the folder this process runs in.
    pub(crate) fn new(command: &[String], scratch: &Path, name: &str) -> Workplace {
        Workplace::of(std::env::current_dir().ok(), command, scratch, name)
    }

    fn of(folder: Option<PathBuf>, command: &[String], scratch: &Path, name: &str) -> Workplace {
        let in_copy = match &folder {
            Some(folder) => workdir::command_in_copy(command, folder),
            None => command.to_vec(),
        };
        Workplace {
            folder,
            scratch: scratch.to_path_buf(),
            name: name.to_string(),
            made: 0,
            copy: None,
            unsettled: 0,
            command: command.to_vec(),
            in_copy,
        }
    }

    /// The room for the next run: the copy in use when neither it nor the
    /// folder changed, a new copy otherwise, or the folder itself, held
    /// for this run alone, when it cannot be copied whole. An error when
    /// the system runs out (of disk, of files) while copying.
    pub(crate) fn enter(&mut self) -> Result<Room, FuzzError> {
        let Some(folder) = &self.folder else {
            return Ok(self.room(None, None, None));
        };
        if let Some(copy) = &mut self.copy {
            let mut same = copy.as_made(folder, &self.scratch);
            if same && copy.looked.elapsed() >= LOOK_EVERY {
                same = workdir::listing(folder, &self.scratch).as_ref() == Some(&copy.listed);
                copy.looked = Instant::now();
            }
            if same {
                let path = copy.path.clone();
                return Ok(self.room(Some(path), None, None));
            }
            // Whatever is left of it goes with the scratch folder.
            let _ = std::fs::remove_dir_all(&copy.path);
            self.copy = None;
        }
        self.made += 1;
        let to = self.scratch.join(format!("{}-{}", self.name, self.made));
        let not_copied = |e| FuzzError::FolderNotCopied(folder.display().to_string(), e);
        // Listed before it is copied: a change meanwhile makes another copy.
        let made = SystemTime::now();
        let listed = workdir::listing(folder, &self.scratch);
        let placed = workdir::place(folder, &to, &self.scratch).map_err(not_copied)?;
        match placed {
            Place::Copy(copy) => {
                if let Some(listed) = listed {
                    self.copy = Some(Copy::new(copy.clone(), listed, made));
                }
                Ok(self.room(Some(copy), None, None))
            }
            Place::Itself(alone, why) => {
                let note = format!(
                    "note: the program ran in {} itself, one run at a time: {why} (what one run \
                     leaves there, the next finds)",
                    folder.display()
                );
                Ok(self.room(Some(folder.clone()), Some(note), Some(alone)))
            }
        }
    }

    /// Whether the copy in use (if any) can be trusted with a divergence;
    /// one that cannot is dropped, and the next run gets a new copy. A
    /// copy of a folder left alone for `SETTLED` before it was made is
    /// trusted; else (a rebuild may have been writing the program, and the
    /// copy holds half of it) it is once the folder has been left alone that
    /// long still listing as it did. A folder that does not settle
    /// `UNSETTLED` times in a row (a file written there every moment) is
    /// trusted from then on: its divergences are not put off for ever.
    pub(crate) fn current(&mut self) -> bool {
        let (Some(folder), Some(copy)) = (&self.folder, &mut self.copy) else { return true };
        if copy.trusted || self.unsettled >= UNSETTLED {
            return true;
        }
        // A time ahead of this clock (another machine's) is not waited for.
        let now = SystemTime::now();
        if let Some(newest) = copy.listed.newest().filter(|&newest| newest <= now)
            && copy.made < newest + SETTLED
        {
            if let Ok(wait) = (newest + SETTLED).duration_since(now) {
                std::thread::sleep(wait);
            }
            copy.looked = Instant::now();
            if workdir::listing(folder, &self.scratch).as_ref() != Some(&copy.listed) {
                let _ = std::fs::remove_dir_all(&copy.path);
                self.copy = None;
                self.unsettled += 1;
                return false;
            }
        }
        copy.trusted = true;
        self.unsettled = 0;
        true
    }

    fn room(
        &self,
        dir: Option<PathBuf>,
        note: Option<String>,
        alone: Option<MutexGuard<'static, ()>>,
    ) -> Room {
        let (command, copy) = match (&dir, &alone, &self.folder) {
            (Some(dir), None, Some(folder)) => {
                (self.in_copy.clone(), Some((dir.clone(), folder.clone())))
            }
            _ => (self.command.clone(), None),
        };
        Room { command, dir, note, copy, _alone: alone }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    /// What one run leaves in its copy, the next never finds: whatever a
    /// run changed makes a new copy, down to a file rewritten in a folder
    /// that replaced one of the same listing; a run that changed nothing,
    /// or only wrote and removed a scratch file, keeps the copy.
    #[test]
    fn what_a_run_leaves_in_its_copy_makes_a_new_one() {
        let dir = tempfile::tempdir().expect("dir");
        let (folder, scratch) = (dir.path().join("folder"), dir.path().join("scratch"));
        fs::create_dir_all(folder.join("lib")).expect("mkdir");
        fs::create_dir(&scratch).expect("mkdir");
        fs::write(folder.join("lib").join("ttt.sh"), "echo").expect("write");
        let mut place = Workplace::of(Some(folder), &["./ttt.sh".into()], &scratch, "work-1");
        let mut enter = || {
            let room = place.enter().expect("entered");
            assert!(room.note.is_none());
            room.dir.expect("a copy")
        };
        let first = enter();
        assert_eq!(enter(), first);
        fs::write(first.join("lib").join("scratch.out"), "x").expect("write");
        fs::remove_file(first.join("lib").join("scratch.out")).expect("rm");
        assert_eq!(enter(), first);
        fs::write(first.join("left.out"), "").expect("write");
        let second = enter();
        assert_ne!(second, first);
        assert!(!second.join("left.out").exists());
        // `lib` replaced by a folder of the same listing: the copy is kept,
        // and what is changed in the new `lib` is seen.
        let script = second.join("lib").join("ttt.sh");
        let modified = fs::metadata(&script).and_then(|m| m.modified()).expect("time");
        fs::remove_dir_all(second.join("lib")).expect("rm");
        fs::create_dir(second.join("lib")).expect("mkdir");
        fs::write(&script, "echo").expect("write");
        fs::File::options()
            .write(true)
            .open(&script)
            .and_then(|f| f.set_modified(modified))
            .expect("time");
        assert_eq!(enter(), second);
        fs::write(&script, "ohce").expect("rewritten");
        let third = enter();
        assert_ne!(third, second);
        assert_eq!(fs::read(third.join("lib").join("ttt.sh")).expect("read"), b"echo");
    }

    /// A file of the copy rewritten with as many bytes and its modification
    /// time put back lists the same: where the copy is watched, its bytes
    /// tell, and the next run gets a new copy (attack 37's A15: the next
    /// run found "LEFT BY ANOTHER RUN").
    #[test]
    fn a_file_rewritten_with_its_length_and_time_put_back_makes_a_new_copy() {
        let dir = tempfile::tempdir().expect("dir");
        let (folder, scratch) = (dir.path().join("folder"), dir.path().join("scratch"));
        fs::create_dir(&folder).expect("mkdir");
        fs::create_dir(&scratch).expect("mkdir");
        if process::FolderWatch::new(&scratch).is_none() {
            return; // Not watched here: only the listing is compared (the guide's limit).
        }
        fs::write(folder.join("state"), "0").expect("write");
        let mut place = Workplace::of(Some(folder), &["./ttt.sh".into()], &scratch, "work-1");
        let first = place.enter().expect("entered").dir.expect("a copy");
        let state = first.join("state");
        let modified = fs::metadata(&state).and_then(|m| m.modified()).expect("time");
        fs::write(&state, "1").expect("rewritten");
        fs::File::options()
            .write(true)
            .open(&state)
            .and_then(|f| f.set_modified(modified))
            .expect("time");
        let second = place.enter().expect("entered").dir.expect("a copy");
        assert_ne!(second, first);
        assert_eq!(fs::read(second.join("state")).expect("read"), b"0");
    }

    /// A copy made of a file written less than a second before is trusted
    /// with a divergence only once the file has been left alone for that
    /// second: a rebuild writing it meanwhile makes a new copy (attack 42's
    /// F1: a half-written program's divergence saved, and shrunk on it).
    #[test]
    fn a_copy_of_a_file_being_written_is_trusted_only_once_it_settles() {
        let dir = tempfile::tempdir().expect("dir");
        let (folder, scratch) = (dir.path().join("folder"), dir.path().join("scratch"));
        fs::create_dir(&folder).expect("mkdir");
        fs::create_dir(&scratch).expect("mkdir");
        let program = folder.join("ttt");
        fs::write(&program, "half").expect("write");
        let mut place = Workplace::of(Some(folder.clone()), &["./ttt".into()], &scratch, "work-1");
        let first = place.enter().expect("entered").dir.expect("a copy");
        let writer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            fs::write(&program, "whole").expect("the rest");
        });
        assert!(!place.current(), "the rest was written after the copy");
        writer.join().expect("written");
        let second = place.enter().expect("entered").dir.expect("a copy");
        assert_ne!(second, first);
        assert_eq!(fs::read(second.join("ttt")).expect("read"), b"whole");
        // Left alone long since: trusted at once.
        let long_ago = SystemTime::now() - Duration::from_secs(60);
        fs::File::options()
            .write(true)
            .open(folder.join("ttt"))
            .and_then(|f| f.set_modified(long_ago))
            .expect("time");
        assert!(!place.current(), "its time changed");
        let third = place.enter().expect("entered").dir.expect("a copy");
        assert_ne!(third, second);
        let began = Instant::now();
        assert!(place.current());
        assert!(began.elapsed() < SETTLED, "no wait for a file left alone");
        assert_eq!(place.enter().expect("entered").dir.expect("a copy"), third);
        // A folder that never settles (a file written there every moment)
        // is trusted after `UNSETTLED` tries in a row, without a wait.
        fs::write(folder.join("log"), "1").expect("write");
        let mut place = Workplace::of(Some(folder), &["./ttt".into()], &scratch, "work-2");
        place.enter().expect("entered");
        place.unsettled = UNSETTLED;
        let began = Instant::now();
        assert!(place.current());
        assert!(began.elapsed() < SETTLED, "no wait");
    }

    #[test]
    fn a_copy_is_kept_while_neither_it_nor_the_folder_changes() {
        let dir = tempfile::tempdir().expect("dir");
        let (from, scratch) = (dir.path().join("from"), dir.path().join("scratch"));
        fs::create_dir_all(from.join("lib")).expect("mkdir");
        fs::create_dir(&scratch).expect("mkdir");
        fs::write(from.join("ttt.sh"), "echo").expect("write");
        let copy = scratch.join("copy");
        let Place::Copy(copy) = workdir::place(&from, &copy, &scratch).expect("place") else {
            panic!("a small folder is copied")
        };
        let listed = |dir: &Path| workdir::listing(dir, &scratch).expect("listed");
        assert_eq!(listed(&from), listed(&copy));
        // A scratch file the program wrote in the copy.
        fs::write(copy.join("lib").join("scratch.out"), "x").expect("write");
        assert_ne!(listed(&from), listed(&copy));
        fs::remove_file(copy.join("lib").join("scratch.out")).expect("rm");
        assert_eq!(listed(&from), listed(&copy));
        // A file of the folder rewritten (a rebuild): another length.
        fs::write(from.join("ttt.sh"), "echo 2").expect("write");
        assert_ne!(listed(&from), listed(&copy));
    }
}

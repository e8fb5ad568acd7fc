//! A working folder of the calling thread's own, where the system gives a
//! thread one (Linux: `unshare(CLONE_FS)`): a program `posix_spawn`ed from
//! that thread starts in it, without the `sh -c 'cd DIR; exec ...'` that
//! `Spec::dir` costs on Unix (one more program started each run: the
//! fuzzer ran at 60 % of its rate, measured). Elsewhere the caller names
//! the folder in `Spec::dir`.

use std::io;
use std::path::Path;

/// Runs `run` with this thread in folder `dir`, then puts it back where it
/// was; the other threads stay where they are. None where a thread cannot
/// have a folder of its own (there, name `dir` in `Spec::dir`); an error
/// when the thread cannot go to `dir` or come back.
#[cfg(target_os = "linux")]
pub fn within<T>(dir: &Path, run: impl FnOnce() -> T) -> Option<io::Result<T>> {
    use std::cell::RefCell;
    use std::path::PathBuf;
    thread_local! {
        /// Where this thread comes back to, once its folder is its own.
        static BACK: RefCell<Option<PathBuf>> = const { RefCell::new(None) };
    }
    let back = BACK.with(|back| {
        let mut back = back.borrow_mut();
        if back.is_none() {
            let here = std::env::current_dir().ok()?;
            nix::sched::unshare(nix::sched::CloneFlags::CLONE_FS).ok()?;
            *back = Some(here);
        }
        back.clone()
    })?;
    if let Err(e) = std::env::set_current_dir(dir) {
        return Some(Err(e));
    }
    let result = run();
    Some(std::env::set_current_dir(back).map(|()| result))
}

/// None: no thread has a folder of its own here.
#[cfg(not(target_os = "linux"))]
pub fn within<T>(_dir: &Path, _run: impl FnOnce() -> T) -> Option<io::Result<T>> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_in_a_folder_of_its_own_leaves_the_others_where_they_are() {
        let dir = tempfile::tempdir().expect("dir");
        let before = std::env::current_dir().expect("here");
        let inside = std::thread::spawn({
            let dir = dir.path().to_path_buf();
            move || within(&dir, || std::env::current_dir().expect("there"))
        })
        .join()
        .expect("thread");
        assert_eq!(std::env::current_dir().expect("here"), before);
        if let Some(inside) = inside {
            let inside = inside.expect("went and came back");
            assert_eq!(inside.canonicalize().ok(), dir.path().canonicalize().ok());
        }
    }
}

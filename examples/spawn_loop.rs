//! The bare loop behind `tictac fuzz`'s rate figure (bench/check-fuzz.sh):
//! takes the traces a fuzz session kept (`--save-traces FILE`: each is its
//! length, a newline, then its bytes), writes each to a file of its own
//! (before the clock starts; in /dev/shm when there is one, as the fuzzer
//! does), then runs `PROGRAM [ARGS...] -b TRACE` on every one, N at a time,
//! and only reads what each prints and waits for it (`Command::output`): no
//! process group, no clean-up, no comparison. Prints the rate.
//!
//!     spawn_loop -j 2 TRACES target/release/tictac

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (jobs, traces, program) = match args.as_slice() {
        [j, n, traces, program @ ..] if j == "-j" && !program.is_empty() => {
            (n.parse::<usize>().ok().filter(|&n| n > 0), traces.as_str(), program)
        }
        _ => (None, "", &[][..]),
    };
    let Some(jobs) = jobs else {
        fail("usage: spawn_loop -j N TRACES PROGRAM [ARGS...]");
    };
    let kept =
        std::fs::read(traces).unwrap_or_else(|e| fail(&format!("cannot read {traces}: {e}")));
    let memory = Path::new("/dev/shm");
    let dir = if memory.is_dir() { tempfile::tempdir_in(memory) } else { tempfile::tempdir() }
        .unwrap_or_else(|e| fail(&format!("no scratch folder: {e}")));
    let files = split(&kept, dir.path());

    let next = AtomicUsize::new(0);
    let failed = AtomicUsize::new(0);
    let start = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                while let Some(file) = files.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let ran = Command::new(&program[0])
                        .args(&program[1..])
                        .arg("-b")
                        .arg(file)
                        .stdin(Stdio::null())
                        .output();
                    if ran.is_err() {
                        failed.fetch_add(1, Ordering::Relaxed);
                    }
                }
            });
        }
    });
    let secs = start.elapsed().as_secs_f64();
    let failed = failed.into_inner();
    if failed > 0 {
        fail(&format!("{failed} runs could not be started"));
    }
    println!(
        "Bare spawn loop: {} runs in {secs:.2} s, {:.0} runs/s",
        files.len(),
        files.len() as f64 / secs.max(1e-9)
    );
}

/// Writes each kept trace to `dir/N.txt`, in order.
fn split(mut kept: &[u8], dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    while !kept.is_empty() {
        let newline = kept.iter().position(|&b| b == b'\n');
        let len = newline.and_then(|n| std::str::from_utf8(&kept[..n]).ok()?.parse::<usize>().ok());
        let (Some(n), Some(len)) = (newline, len) else { fail("the traces file is damaged") };
        let Some(trace) = kept.get(n + 1..n + 1 + len) else {
            fail("the traces file is cut short")
        };
        let file = dir.join(format!("{}.txt", files.len()));
        std::fs::write(&file, trace).unwrap_or_else(|e| fail(&format!("cannot write: {e}")));
        files.push(file);
        kept = &kept[n + 1 + len..];
    }
    files
}

fn fail(why: &str) -> ! {
    eprintln!("spawn_loop: {why}");
    std::process::exit(2);
}

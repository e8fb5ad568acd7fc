//! The static site's engine (`crates/tictac-web`, compiled to WebAssembly
//! by dist/site.sh) against the command line: asked as the pages ask it
//! (`api::answer`, a request's JSON and the trace's bytes), it prints what
//! `tictac -b IN`, `-b IN OUT`, `-w M N IN` and `-l IN` print, byte for
//! byte, with the same exit status, on every acceptance trace and on traces
//! made to reach what they do not (several chunks, CR LF, bytes that are
//! not UTF-8, parse errors mid-line): both run the same pipeline
//! (`tictac-run`), the site on a trace in memory. Its API answers as the server's do:
//! tests/it/serve.rs (`the_static_sites_engine_answers_as_the_server_does`).
//! The browser test (bench/check-site-browser.sh) runs the built module.

use std::fs;
use std::path::{Path, PathBuf};

use tictac::run::Job as Mode;
use tictac_core::window::{Window, WindowEnd};
use tictac_web::api::{Call, answer};

use crate::common::{temp_dir, tictac};

/// The windows tried on every trace: `-l`, from the start, the middle,
/// one line, from the end, empty.
const WINDOWS: [(i32, Option<i32>); 8] = [
    (-1, Some(0)),
    (1, None),
    (2, Some(4)),
    (3, Some(3)),
    (-2, Some(0)),
    (-3, Some(-1)),
    (0, Some(0)),
    (1, Some(1)),
];

/// The engine's output and status for `trace` in `mode`, asked as the
/// playground asks it, with `more` of the request's JSON (the bots).
fn web(trace: &[u8], mode: Mode, more: &str) -> (Vec<u8>, u8) {
    let (output, status, _) = web_with_stderr(trace, mode, more);
    (output, status)
}

/// The same, and what it says on standard error.
fn web_with_stderr(trace: &[u8], mode: Mode, more: &str) -> (Vec<u8>, u8, String) {
    let bound = |n: Option<i32>| n.map_or(r#""_""#.to_string(), |n| n.to_string());
    let request = match mode {
        Mode::Whole => r#"{"mode": "b""#.to_string(),
        Mode::Chunks => r#"{"mode": "chunks""#.to_string(),
        Mode::Window(Window { start, end }) => {
            let end = match end {
                WindowEnd::Line(n) => Some(n),
                WindowEnd::Unbounded => None,
            };
            format!(r#"{{"mode": "window", "start": {start}, "end": {}"#, bound(end))
        }
    } + more
        + "}";
    let answered = answer(Call::Run, request.as_bytes(), trace);
    let json: serde_json::Value = serde_json::from_slice(&answered.json).expect("JSON");
    assert!(answered.ok, "{request}: {json}");
    let status = json["status"].as_u64().expect("a status");
    let stderr = json["stderr"].as_str().unwrap_or_default().to_string();
    (answered.output, u8::try_from(status).expect("a status"), stderr)
}

/// What the command line prints for the trace file `path` in `mode`, and its status.
fn command_line(path: &Path, mode: Mode, scratch: &Path) -> (Vec<u8>, u8) {
    let out = scratch.join("chunks.out");
    let _ = fs::remove_file(&out);
    let args = arguments(mode, path.to_str().expect("a UTF-8 path"), &out);
    let ran = tictac(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let status = ran.status.code().expect("exited") as u8;
    match mode {
        Mode::Chunks => (fs::read(&out).expect("OUT written"), status),
        _ => (ran.stdout, status),
    }
}

/// The command line's arguments for `file` in `mode`, `out` the chunks' OUT.
fn arguments(mode: Mode, file: &str, out: &Path) -> Vec<String> {
    match mode {
        Mode::Whole => vec!["-b".into(), file.into()],
        Mode::Chunks => vec!["-b".into(), file.into(), out.to_str().expect("UTF-8").into()],
        Mode::Window(w) => {
            let end = match w.end {
                WindowEnd::Line(n) => n.to_string(),
                WindowEnd::Unbounded => "_".to_string(),
            };
            vec!["-w".into(), w.start.to_string(), end, file.into()]
        }
    }
}

/// `-b IN`, `-b IN OUT`, and the `WINDOWS` whose indexes are in `windows`.
fn modes(windows: &[usize]) -> Vec<Mode> {
    let windows = windows.iter().map(|&k| {
        let (start, end) = WINDOWS[k];
        Mode::Window(Window { start, end: end.map_or(WindowEnd::Unbounded, WindowEnd::Line) })
    });
    [Mode::Whole, Mode::Chunks].into_iter().chain(windows).collect()
}

fn traces_in(dir: &Path) -> Vec<PathBuf> {
    let mut traces: Vec<PathBuf> = fs::read_dir(dir)
        .expect("a folder of traces")
        .map(|e| e.expect("an entry").path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.ends_with(".txt") && !name.ends_with(".expected.txt")
        })
        .collect();
    traces.sort();
    traces
}

/// Traces the acceptance suites leave out: several chunks with an error in
/// the second, CR LF, a name that is not UTF-8, a parse error mid-line
/// (windows), type errors, comments, `?` and blank lines.
fn made_traces(dir: &Path) -> Vec<PathBuf> {
    let mut long = String::from("new_game(\"Ann\",\"Bob\")\n");
    for k in 0..260 {
        long.push_str(match k % 4 {
            0 => "play(\"Ann\",5)\n",
            1 => "-- a comment\n",
            2 => "undo ?\n",
            _ => "\n",
        });
        if k == 150 {
            long.push_str("play(\"Ann\",10)\n");
        }
    }
    let made: [(&str, &[u8]); 5] = [
        ("chunks.txt", long.as_bytes()),
        ("crlf.txt", b"new_game(\"Ann\",\"Bob\")\r\nplay(\"Ann\",5)\r\n\r\nundo\r\nredo\r\n"),
        ("bytes.txt", b"new_game(\"A\xffn\",\"Bob\")\nplay(\"A\xffn\",1)\nplay(\"Bob\",\xff)\n"),
        (
            "midline.txt",
            b"new_game(\"Ann\",\"Bob\")\nplay(\"Ann\",1) play( undo\nplay(\"Bob\",2)\n?\nredo\n",
        ),
        ("types.txt", b"new_game(\"Ann\",\"Bob\") play(\"Ann\",\"x\")\nplay(1,2)\nundo\n"),
    ];
    made.iter()
        .map(|(name, bytes)| {
            let path = dir.join(name);
            fs::write(&path, bytes).expect("written");
            path
        })
        .collect()
}

#[test]
fn the_sites_engine_prints_what_the_command_line_prints_in_every_mode() {
    let scratch = temp_dir();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("acceptance");
    // Every window on the traces of errors and edges; the course's games,
    // whose windows reach no path those do not, from the middle and from
    // the end (each command line run is a start of tictac: all ten modes
    // on all 80 traces were 800 of them, 6 s).
    let all: Vec<usize> = (0..WINDOWS.len()).collect();
    let games = traces_in(&root.join("course"));
    assert!(games.len() >= 40, "{} games", games.len());
    let mut traces: Vec<(PathBuf, &[usize])> =
        games.into_iter().map(|p| (p, &[2, 5][..])).collect();
    let edges = [traces_in(&root.join("tictac")), made_traces(scratch.path())].concat();
    assert!(edges.len() >= 30, "{} traces", edges.len());
    traces.extend(edges.into_iter().map(|p| (p, &all[..])));
    for (path, windows) in &traces {
        let trace = fs::read(path).expect("a trace");
        for mode in modes(windows) {
            let want = command_line(path, mode, scratch.path());
            let got = web(&trace, mode, "");
            assert!(
                got == want,
                "{} in {mode:?}: the site's engine printed (status {})\n{}\nthe command line (status {})\n{}",
                path.display(),
                got.1,
                String::from_utf8_lossy(&got.0),
                want.1,
                String::from_utf8_lossy(&want.0)
            );
        }
    }
}

#[test]
fn bots_answer_in_the_sites_engine_as_with_bot() {
    let scratch = temp_dir();
    let trace = scratch.path().join("bots.txt");
    fs::write(&trace, "new_game(\"Ann\",\"Hal\")\nplay(\"Ann\",1)\nplay(\"Ann\",9)\nundo\nredo\n")
        .expect("written");
    let file = trace.to_str().expect("UTF-8");
    for strategy in ["tla", "elm", "perfect", "random"] {
        let bot = format!("Hal={strategy}");
        let want = tictac(&["-b", file, "--bot", &bot, "--seed", "7"]);
        let bots = format!(r#", "bots": {{"Hal": "{strategy}"}}, "seed": 7"#);
        let (out, _) = web(&fs::read(&trace).expect("read"), Mode::Whole, &bots);
        assert_eq!(
            String::from_utf8_lossy(&out),
            String::from_utf8_lossy(&want.stdout),
            "{strategy}"
        );
    }
}

/// An event over 1 MiB: the command line prints its message on standard
/// error, nothing on standard output (but what a window printed before),
/// and exits 2, `-b IN OUT` writing no OUT (SPEC §5); the site's engine
/// answers that output, standard error and status (it answered no output
/// and no status, an "engine error"), the trace named as the site has it.
#[test]
fn an_event_over_one_mib_is_refused_as_the_command_line_refuses_it() {
    let scratch = temp_dir();
    let path = scratch.path().join("long.txt");
    let name = "N".repeat(1 << 20);
    let trace = format!("new_game(\"Ann\",\"Bob\")\nplay(\"Ann\",5)\nnew_game(\"{name}\",\"B\")\n");
    fs::write(&path, &trace).expect("written");
    let file = path.to_str().expect("UTF-8");
    let out = scratch.path().join("chunks.out");
    let windows = [(1, Some(4)), (2, None), (-1, Some(0))].map(|(start, end)| {
        Mode::Window(Window { start, end: end.map_or(WindowEnd::Unbounded, WindowEnd::Line) })
    });
    for mode in [Mode::Whole, Mode::Chunks].into_iter().chain(windows) {
        let args = arguments(mode, file, &out);
        let ran = tictac(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(!out.exists(), "OUT written");
        let said = String::from_utf8(ran.stderr).expect("UTF-8").replace(file, "the trace");
        assert_eq!(ran.status.code(), Some(2), "{mode:?}: {said}");
        assert!(said.contains("is longer than 1 MiB"), "{mode:?}: {said}");
        if matches!(mode, Mode::Whole | Mode::Chunks) {
            assert!(ran.stdout.is_empty(), "{mode:?}: {}", String::from_utf8_lossy(&ran.stdout));
        }
        let (output, status, stderr) = web_with_stderr(trace.as_bytes(), mode, "");
        assert_eq!((output, status, stderr), (ran.stdout, 2, said), "{mode:?}");
    }
}

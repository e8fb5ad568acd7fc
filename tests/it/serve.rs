//! `tictac serve` end to end: the binary started with `--port 0`, spoken to
//! over loopback. The API's output must be byte-identical to the command
//! line's for every acceptance trace; bad input gets its status and a JSON
//! message; bounds hold; SIGTERM stops it cleanly.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{BIN, run, temp_dir, tictac};
use serde_json::{Value, json};

/// A running `tictac serve`, stopped when dropped.
struct Server {
    child: Child,
    stdout: BufReader<ChildStdout>,
    base: String,
    agent: ureq::Agent,
}

impl Server {
    fn start(extra: &[&str]) -> Server {
        Server::spawn(Command::new(BIN).args(["serve", "--port", "0"]).args(extra))
    }

    /// Starts `command`, a `tictac serve --port 0` (or what runs one).
    fn spawn(command: &mut Command) -> Server {
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("tictac serve starts");
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut line = String::new();
        stdout.read_line(&mut line).expect("the first line");
        let base = line
            .strip_prefix("tictac: serving on http://")
            .and_then(|rest| rest.strip_suffix("/\n"))
            .unwrap_or_else(|| panic!("first line: {line:?}"))
            .to_string();
        let agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
        Server { child, stdout, base, agent }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.base)
    }

    /// POSTs a body; the status and the body as JSON.
    fn post(&self, path: &str, body: &str) -> (u16, Value) {
        let mut response = self
            .agent
            .post(&self.url(path))
            .header("content-type", "application/json")
            .send(body)
            .expect("the request is answered");
        let status = response.status().as_u16();
        let text = response.body_mut().read_to_string().expect("a body");
        let value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        (status, value)
    }

    fn post_json(&self, path: &str, body: &Value) -> (u16, Value) {
        self.post(path, &body.to_string())
    }

    fn get(&self, path: &str) -> (u16, String, ureq::http::HeaderMap) {
        let mut response = self.agent.get(&self.url(path)).call().expect("answered");
        let headers = response.headers().clone();
        let text = response.body_mut().read_to_string().expect("a body");
        (response.status().as_u16(), text, headers)
    }

    fn terminate(&self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success());
    }

    /// Waits for the server to exit; its exit code and the rest of its output.
    fn wait(&mut self, limit: Duration) -> (Option<i32>, String) {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                let mut rest = String::new();
                self.stdout.read_to_string(&mut rest).expect("output");
                return (status.code(), rest);
            }
            assert!(start.elapsed() < limit, "the server did not stop in {limit:?}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What a trace's `-- run:` line asks for, as command-line arguments and as
/// the API's request fields; `None` for the interactive shell and for the
/// command line's own errors.
fn run_line(trace: &Path) -> Option<(Vec<String>, Value)> {
    let text = std::fs::read_to_string(trace).expect("trace");
    let words: Vec<&str> = match text.lines().next().and_then(|l| l.strip_prefix("-- run:")) {
        Some(line) => line.split_whitespace().collect(),
        None => vec!["-b", "IN"],
    };
    let mut request = json!({ "trace": text });
    let mut bots = serde_json::Map::new();
    let mut args = Vec::new();
    let mut i = 0;
    while i < words.len() {
        match words[i] {
            "-i" => return None,
            "--bot" => {
                let (name, strategy) = words[i + 1].split_once('=').expect("NAME=S");
                bots.insert(name.into(), strategy.into());
                args.extend(["--bot".to_string(), words[i + 1].to_string()]);
                i += 1;
            }
            "--seed" => {
                request["seed"] = json!(words[i + 1].parse::<u64>().expect("seed"));
                args.extend(["--seed".to_string(), words[i + 1].to_string()]);
                i += 1;
            }
            word => args.push(word.to_string()),
        }
        i += 1;
    }
    if !bots.is_empty() {
        request["bots"] = Value::Object(bots);
    }
    // The command line's own errors (no mode, a bad one, a wrong argument
    // count, IN that is not the trace) have no form in the API.
    let files = args.iter().filter(|a| *a == "IN" || *a == "OUT").count();
    let counts = match args.first().map(String::as_str) {
        Some("-b" | "-l") => files + 1,
        Some("-w") => files + 3,
        _ => 0,
    };
    // `--bot NAME=S` and `--seed N`, two words each.
    let options = 2 * args.iter().filter(|a| a.starts_with("--")).count();
    if !args.iter().any(|a| a == "IN") || args.len() != counts + options {
        return None;
    }
    match args[0].as_str() {
        "-b" if files == 2 => request["mode"] = json!("chunks"),
        "-b" => request["mode"] = json!("b"),
        "-l" => {
            request["mode"] = json!("window");
            request["start"] = json!(-1);
            request["end"] = json!(0);
        }
        "-w" => {
            request["mode"] = json!("window");
            request["start"] = match args[1].parse::<i32>() {
                Ok(n) => json!(n),
                Err(_) => json!(args[1]),
            };
            request["end"] = match args[2].parse::<i32>() {
                Ok(n) => json!(n),
                Err(_) => json!(args[2]),
            };
        }
        other => panic!("{}: unknown mode {other}", trace.display()),
    }
    Some((args, request))
}

/// The command line's output for a trace (from OUT when it writes one) and
/// its exit status.
fn command_line(trace: &Path, args: &[String]) -> (String, i32) {
    let dir = temp_dir();
    let out = dir.path().join("out.txt");
    let args: Vec<PathBuf> = args
        .iter()
        .map(|a| match a.as_str() {
            "IN" => trace.to_path_buf(),
            "OUT" => out.clone(),
            _ => PathBuf::from(a),
        })
        .collect();
    let run = run(Command::new(BIN).args(&args), None);
    let printed = if out.exists() {
        std::fs::read_to_string(&out).expect("OUT")
    } else {
        String::from_utf8(run.stdout).expect("utf8")
    };
    (printed, run.status.code().expect("an exit code"))
}

fn traces_in(dir: &Path) -> Vec<PathBuf> {
    let mut traces: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("a folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| {
            let name = p.to_string_lossy();
            name.ends_with(".txt") && !name.ends_with(".expected.txt")
        })
        .collect();
    traces.sort();
    traces
}

fn assert_api_matches_command_line(server: &Server, traces: &[PathBuf]) -> usize {
    let mut compared = 0;
    for trace in traces {
        let Some((args, request)) = run_line(trace) else { continue };
        let (expected, code) = command_line(trace, &args);
        let (status, reply) = server.post_json("/api/run", &request);
        if code == 2 {
            // An invocation error (a window out of order): 400, same words.
            let first = expected.lines().next().unwrap_or_default();
            assert_eq!(
                (status, reply["error"].as_str()),
                (400, Some(first)),
                "{}",
                trace.display()
            );
            compared += 1;
            continue;
        }
        assert_eq!(status, 200, "{}: {reply}", trace.display());
        assert_eq!(reply["output"].as_str(), Some(expected.as_str()), "{}", trace.display());
        assert_eq!(reply["status"], json!(code), "{}", trace.display());
        compared += 1;
    }
    compared
}

#[test]
fn the_api_prints_what_the_command_line_prints_for_every_acceptance_trace() {
    let server = Server::start(&[]);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("acceptance");
    let traces = [traces_in(&dir.join("course")), traces_in(&dir.join("tictac"))].concat();
    let compared = assert_api_matches_command_line(&server, &traces);
    assert!(compared >= 45, "only {compared} traces compared");
}

#[test]
fn the_api_prints_what_the_command_line_prints_for_the_customers_examples() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/oracle");
    if !dir.is_dir() {
        assert!(std::env::var_os("CI").is_none(), "{} is missing", dir.display());
        eprintln!("no {}: skipped", dir.display());
        return;
    }
    let server = Server::start(&[]);
    assert!(assert_api_matches_command_line(&server, &traces_in(&dir)) >= 2);
}

#[test]
fn seeded_random_bots_choose_as_on_the_command_line() {
    let server = Server::start(&[]);
    let dir = temp_dir();
    let trace = dir.path().join("t.txt");
    let text = "new_game(\"Ann\",\"Hal\")\nplay(\"Ann\",5)\nplay(\"Ann\",1)\n";
    std::fs::write(&trace, text).expect("write");
    for seed in [1, 7, 12345] {
        let args: Vec<String> = ["-b", "IN", "--bot", "Hal=random", "--seed", &seed.to_string()]
            .map(String::from)
            .into();
        let (expected, _) = command_line(&trace, &args);
        let request = json!({"trace": text, "bots": {"Hal": "random"}, "seed": seed});
        let (status, reply) = server.post_json("/api/run", &request);
        assert_eq!((status, reply["output"].as_str()), (200, Some(expected.as_str())));
    }
}

#[test]
fn the_state_is_what_the_transcript_shows_and_bots_answer_once() {
    let server = Server::start(&[]);
    let bots = json!({"Hal": "perfect"});
    let (status, s) = server.post_json(
        "/api/state",
        &json!({"trace": "new_game(\"Ann\",\"Hal\")\nplay(\"Ann\",1)", "bots": bots}),
    );
    assert_eq!(status, 200, "{s}");
    assert_eq!(s["status"], 0);
    assert_eq!(s["banner"], "x's turn");
    assert_eq!(s["next"], "Ann");
    assert_eq!(s["cells"].as_array().map(|c| c.iter().filter(|c| *c == "O").count()), Some(1));
    assert_eq!(s["players"][1], json!({"name": "Hal", "mark": "O", "score": 0}));
    assert_eq!(s["status_line"], "  ok: => Ann plays next");
    let trace = s["trace"].as_str().expect("trace").to_string();
    assert!(trace.lines().last().is_some_and(|l| l.starts_with("play(\"Hal\",")), "{trace}");

    // The transcript is what `tictac -b` prints for the returned trace.
    let dir = temp_dir();
    let file = dir.path().join("t.txt");
    std::fs::write(&file, &trace).expect("write");
    let (printed, _) = command_line(&file, &["-b".into(), "IN".into()]);
    assert_eq!(s["transcript"].as_str(), Some(printed.as_str()));

    // Sending it back with an undo takes back Ann's move and Hal's answer.
    let (_, undone) =
        server.post_json("/api/state", &json!({"trace": format!("{trace}undo"), "bots": bots}));
    assert_eq!(undone["cells"], json!(["", "", "", "", "", "", "", "", ""]));
    assert_eq!(
        (undone["can_undo"].clone(), undone["can_redo"].clone()),
        (json!(false), json!(true))
    );
    assert!(undone["trace"].as_str().is_some_and(|t| t.ends_with("undo\nundo\n")));
}

#[test]
fn a_trace_with_an_error_answers_the_message_with_status_1() {
    let server = Server::start(&[]);
    let (status, reply) = server.post_json("/api/state", &json!({"trace": "play(\"Ann\", 10)"}));
    assert_eq!(status, 200);
    assert_eq!(reply["status"], 1);
    assert!(reply["error"].as_str().is_some_and(|e| e.starts_with("Type Error")), "{reply}");
    let (status, reply) = server.post_json("/api/run", &json!({"trace": "undo("}));
    assert_eq!((status, reply["status"].clone()), (200, json!(1)));
    assert!(reply["output"].as_str().is_some_and(|e| e.starts_with("Syntax Error")), "{reply}");
}

#[test]
fn bad_requests_answer_400_saying_what_is_wrong() {
    let server = Server::start(&[]);
    let cases = [
        ("/api/run", "{\"trace\": ", "invalid request"),
        ("/api/run", "[]", "invalid request"),
        ("/api/run", r#"{"trace": "", "colour": "red"}"#, "unknown field `colour`"),
        ("/api/run", r#"{"trace": "", "mode": "fast"}"#, "unknown variant `fast`"),
        ("/api/run", r#"{"trace": 12}"#, "invalid type: integer"),
        ("/api/run", r#"{"trace": "", "bots": {"Hal": "genius"}}"#, "unknown strategy 'genius'"),
        (
            "/api/run",
            r#"{"trace": "", "mode": "window", "start": 1, "end": 2, "bots": {"H": "elm"}}"#,
            "bots play",
        ),
        ("/api/run", r#"{"trace": "", "mode": "window", "start": 0, "end": 2}"#, "non-positive"),
        ("/api/run", r#"{"trace": "", "mode": "window"}"#, "needs \"start\" and \"end\""),
        ("/api/state", r#"{"trace": "", "mode": "b"}"#, "unknown field `mode`"),
        ("/api/state", r#"{"trace": "", "bots": {"Hal": 3}}"#, "invalid type"),
        ("/api/state", r#"{"trace": "", "seed": 1}"#, "with bots"),
        // Bot names the command line refuses, in its words.
        ("/api/run", r#"{"trace": "", "bots": {"": "elm"}}"#, "the bot name '' can never play"),
        ("/api/run", r#"{"trace": "", "bots": {"1x": "elm"}}"#, "the bot name '1x' can never"),
        ("/api/state", r#"{"trace": "", "bots": {" Hal": "tla"}}"#, "the bot name ' Hal' can"),
    ];
    for (path, body, says) in cases {
        let (status, reply) = server.post(path, body);
        assert_eq!(status, 400, "{body}: {reply}");
        let error = reply["error"].as_str().unwrap_or_default();
        assert!(error.contains(says), "{body}: {error}");
    }
}

#[test]
fn bodies_and_transcripts_past_their_limits_answer_413() {
    let server = Server::start(&[]);
    let big = json!({"trace": "-".repeat(1 << 20)}).to_string();
    let response = server.agent.post(&server.url("/api/run")).send(&big).expect("answered");
    assert_eq!(response.headers().get("connection").map(|v| v.as_bytes()), Some(&b"close"[..]));
    let status = response.status().as_u16();
    let reply: Value =
        serde_json::from_str(&response.into_body().read_to_string().expect("body")).expect("json");
    assert_eq!(status, 413, "{reply}");
    assert!(reply["error"].as_str().is_some_and(|e| e.contains("1 MiB")), "{reply}");
    // 200,000 undos fit in a megabyte but print 20 MB.
    let long = json!({"trace": "undo\n".repeat(200_000)});
    for path in ["/api/run", "/api/state"] {
        let (status, reply) = server.post_json(path, &long);
        assert_eq!(status, 413, "{reply}");
        assert!(reply["error"].as_str().is_some_and(|e| e.contains("command line")), "{reply}");
    }
    // (On a new connection: the server may close one whose body it refused.)
    let fresh = ureq::get(&server.url("/healthz")).call().expect("answered");
    assert_eq!(fresh.into_body().read_to_string().expect("body"), "ok", "still serving");
}

/// A client that sends the whole of a refused body before it reads (as most
/// do) gets its 413: the server shuts its side after the answer and reads
/// and drops what still comes (a lingering close), where closing at once
/// reset the connection and the client's write failed with a broken pipe.
#[test]
fn a_refused_body_sent_on_after_its_413_is_read_and_dropped() {
    let server = Server::start(&[]);
    let mut stream = TcpStream::connect(&server.base).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    let body = vec![b'-'; 2 << 20];
    write!(
        stream,
        "POST /api/run HTTP/1.1\r\nHost: localhost\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .expect("head");
    stream.write_all(&body[..(1 << 20) + (64 << 10)]).expect("the body's start");
    // The answer, then the end of the server's side: it has closed, or
    // shut its side to linger.
    let mut answer = Vec::new();
    let read = stream.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer);
    assert!(read.is_ok() && answer.starts_with("HTTP/1.1 413"), "{read:?}: {answer}");
    assert!(answer.contains("1 MiB"), "{answer}");
    stream
        .write_all(&body[(1 << 20) + (64 << 10)..])
        .expect("the server reads the rest of the body");
    stream.shutdown(std::net::Shutdown::Write).expect("half close");
    assert_eq!(stream.read(&mut [0; 16]).expect("the server closes"), 0);
}

/// A body declared longer than 1 MiB is refused as declared, before any
/// of it comes: it was cut as a stalled body (408) a second later.
#[test]
fn a_body_declared_past_the_limit_is_refused_before_it_comes() {
    let server = Server::start(&[]);
    let mut stream = TcpStream::connect(&server.base).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    let head = "POST /api/run HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1048577\r\n\r\n";
    stream.write_all(head.as_bytes()).expect("head");
    let mut answer = [0; 512];
    let n = stream.read(&mut answer).expect("an answer");
    let answer = String::from_utf8_lossy(&answer[..n]);
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
}

/// A request whose body never comes is answered 503 when the time bound
/// passes, and holds nothing after.
#[test]
fn a_request_past_the_time_bound_answers_503() {
    let server = Server::start(&["--timeout", "0.3"]);
    let mut stream = TcpStream::connect(&server.base).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    write!(stream, "POST /api/run HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\n{{")
        .expect("w");
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(answer.contains("longer than 0.3 s"), "{answer}");
}

/// Connections that declare a large body and send none of it hold nothing:
/// a declared length is counted against the shared budget only as its
/// bytes come (attack E3: 70 such connections stalled every request until
/// the 5 s time bound let them go).
#[test]
fn idle_connections_declaring_large_bodies_keep_no_one_waiting() {
    let server = Server::start(&[]);
    let idle: Vec<TcpStream> = (0..100)
        .map(|_| {
            let mut stream = TcpStream::connect(&server.base).expect("connect");
            let head =
                "POST /api/run HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1048576\r\n\r\n";
            stream.write_all(head.as_bytes()).expect("head");
            stream
        })
        .collect();
    // Every head read by the server before the ordinary request comes.
    std::thread::sleep(Duration::from_millis(300));
    let asked = Instant::now();
    let (status, reply) = server.post("/api/run", r#"{"trace": "undo"}"#);
    let took = asked.elapsed();
    assert_eq!((status, reply["status"].as_u64()), (200, Some(0)), "{reply}");
    assert!(took < Duration::from_secs(2), "answered after {took:?}");
    drop(idle);
}

/// Bodies sent nearly whole and then stalled, about 100 MiB of them, hold
/// the whole budget (and its one-body overdraft): a small request is still
/// answered at once, and a stalled body is cut (408) after a second with
/// nothing, giving back what it held (attack41 F3: every small request
/// waited for the time bound, as long as the stalled bodies were kept).
#[test]
fn bodies_that_stall_keep_no_small_request_waiting() {
    let server = Server::start(&["--timeout", "10"]);
    let head = "POST /api/run HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1048576\r\n\r\n";
    let stalled: Vec<_> = (0..100)
        .map(|_| {
            let mut stream = TcpStream::connect(&server.base).expect("connect");
            std::thread::spawn(move || {
                // Blocked while the server reads no more of it; ended when
                // the server cuts it or stops.
                let _ = stream.write_all(head.as_bytes());
                let _ = stream.write_all(&vec![b' '; 1023 << 10]);
                let mut answer = String::new();
                let _ = stream.read_to_string(&mut answer);
                answer
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    let asked = Instant::now();
    let (status, reply) = server.post("/api/run", r#"{"trace": "undo"}"#);
    let took = asked.elapsed();
    assert_eq!((status, reply["status"].as_u64()), (200, Some(0)), "{reply}");
    assert!(took < Duration::from_secs(3), "answered after {took:?}");
    // The first stalled body, which the server read to its stall, is cut.
    let answer = stalled.into_iter().next().expect("one").join().expect("joined");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("stopped coming"), "{answer}");
}

/// A connection that sends nothing, or stays idle after a request, is
/// closed when the time bound passes; a huge request head is refused.
#[test]
fn idle_connections_are_closed_and_huge_heads_refused() {
    let server = Server::start(&["--timeout", "0.3"]);
    let started = Instant::now();
    let mut silent = TcpStream::connect(&server.base).expect("connect");
    silent.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    let mut answer = Vec::new();
    let _ = silent.read_to_end(&mut answer);
    assert!(started.elapsed() < Duration::from_secs(5), "closed after {:?}", started.elapsed());

    let mut idle = TcpStream::connect(&server.base).expect("connect");
    idle.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    write!(idle, "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n").expect("request");
    let mut answer = String::new();
    let _ = idle.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 200") && answer.ends_with("ok"), "{answer}");

    let mut huge = TcpStream::connect(&server.base).expect("connect");
    huge.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    let header = "a".repeat(100_000);
    let _ = write!(huge, "GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: {header}\r\n\r\n");
    let mut answer = String::new();
    let _ = huge.read_to_string(&mut answer);
    assert!(answer.is_empty() || answer.starts_with("HTTP/1.1 431"), "{answer}");
    assert_eq!(server.get("/healthz").1, "ok", "still serving");
}

/// A client that sends its request and shuts its writing side still gets
/// every answer (an attacker saw 16 of 20 such requests go unanswered).
#[test]
fn a_client_that_half_closes_gets_its_answer() {
    let server = Server::start(&[]);
    for _ in 0..20 {
        let mut stream = TcpStream::connect(&server.base).expect("connect");
        stream.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
        write!(stream, "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n").expect("request");
        stream.shutdown(std::net::Shutdown::Write).expect("half close");
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        assert!(answer.starts_with("HTTP/1.1 200") && answer.ends_with("ok"), "{answer:?}");
    }
}

#[test]
fn healthz_unknown_paths_and_methods() {
    let server = Server::start(&[]);
    let (status, body, headers) = server.get("/healthz");
    assert_eq!((status, body.as_str()), (200, "ok"));
    let csp = headers.get("content-security-policy").expect("CSP").to_str().expect("text");
    assert!(csp.contains("script-src 'self'") && csp.contains("frame-ancestors 'none'"));
    assert_eq!(headers.get("x-content-type-options").map(|v| v.as_bytes()), Some(&b"nosniff"[..]));
    assert_eq!(headers.get("x-frame-options").map(|v| v.as_bytes()), Some(&b"DENY"[..]));
    let (status, body, _) = server.get("/nowhere");
    assert_eq!(status, 404);
    assert!(body.contains("no such page"));
    // Every error is JSON, 405 too, with the methods allowed.
    let (status, body, headers) = server.get("/api/run");
    assert_eq!(status, 405);
    let reply: Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body:?}"));
    assert!(reply["error"].as_str().is_some_and(|e| e.contains("POST")), "{reply}");
    assert_eq!(headers.get("allow").map(|v| v.as_bytes()), Some(&b"POST"[..]));
    for path in ["/healthz", "/", "/oracle"] {
        let (status, reply) = server.post(path, "");
        assert_eq!(status, 405, "{path}");
        assert!(reply["error"].as_str().is_some_and(|e| e.contains("GET")), "{path}: {reply}");
    }
}

#[test]
fn sigterm_lets_a_request_in_flight_finish_then_stops() {
    let mut server = Server::start(&[]);
    let body = json!({"trace": "new_game(\"Ann\",\"Bob\")"}).to_string();
    let mut stream = TcpStream::connect(&server.base).expect("connect");
    write!(
        stream,
        "POST /api/state HTTP/1.1\r\nHost: localhost\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .expect("headers");
    stream.write_all(&body.as_bytes()[..5]).expect("part of the body");
    std::thread::sleep(Duration::from_millis(200));
    server.terminate();
    std::thread::sleep(Duration::from_millis(200));
    stream.write_all(&body.as_bytes()[5..]).expect("the rest");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("answer");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("\"next\":\"Ann\""), "{answer}");
    let (code, rest) = server.wait(Duration::from_secs(10));
    assert_eq!(code, Some(0));
    assert_eq!(rest, "tictac: stopped\n");
}

#[test]
fn a_port_in_use_and_bad_options_exit_2() {
    let server = Server::start(&[]);
    let port = server.base.rsplit(':').next().expect("port");
    let taken = tictac(&["serve", "--port", port]);
    assert_eq!(taken.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&taken.stdout).contains("cannot listen on 127.0.0.1:"));
    let bad = tictac(&["serve", "--port", "x"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stdout).starts_with("Error: --port takes"));
}

#[test]
fn the_pages_and_their_assets_are_served_from_the_binary() {
    let server = Server::start(&[]);
    let pages = [
        ("/", "assets/game.js"),
        ("/index.html", "assets/game.js"),
        ("/oracle", "assets/oracle.js"),
        ("/oracle.html", "assets/oracle.js"),
    ];
    for (page, script) in pages {
        let (status, html, headers) = server.get(page);
        assert_eq!(status, 200);
        assert_eq!(
            headers.get("content-type").map(|v| v.as_bytes()),
            Some(&b"text/html; charset=utf-8"[..])
        );
        // The engine's backend, then the page's script: the static site's
        // pages are these, with its own assets/engine.js (dist/site.sh).
        let scripts = format!(
            "<script src=\"assets/common.js\" defer></script>\n<script src=\"assets/engine.js\" defer></script>\n<script src=\"{script}\" defer></script>"
        );
        assert!(html.contains(&scripts), "{page}");
        // Nothing inline (the CSP forbids it) and nothing from elsewhere;
        // links relative, so that the pages work from disk as the static site.
        assert!(
            !html.contains("<script>") && !html.contains("style=") && !html.contains("onclick")
        );
        assert!(!html.contains("href=\"/") && !html.contains("src=\"/"), "{page}");
        for asset in html.split("\"assets/").skip(1).filter_map(|s| s.split('"').next()) {
            let (status, body, headers) = server.get(&format!("/assets/{asset}"));
            assert_eq!(status, 200, "{asset}");
            // (An SVG names its XML namespace with a URL; it fetches nothing.)
            let body = body.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
            assert!(!body.contains("http://") && !body.contains("https://"), "{asset} fetches");
            let kind = headers.get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("");
            assert!(
                ["text/css", "text/javascript", "image/svg+xml"]
                    .iter()
                    .any(|k| kind.starts_with(k))
            );
        }
    }
    let engine = server.get("/assets/engine.js").1;
    let version = format!("version: \"{}\",", env!("CARGO_PKG_VERSION"));
    assert!(engine.contains(&version) && !engine.contains("@VERSION@"), "{engine}");
    // The body's bound and its refusal, the server's own.
    assert!(engine.contains("const BODY_LIMIT = 1048576;"), "{engine}");
    assert!(
        engine.contains("{ error: \"the request is over 1 MiB; run a trace this long"),
        "{engine}"
    );
    assert_eq!(server.get("/assets/nothing.js").0, 404);
}

/// A request on a connection of its own, asking to close after it; the
/// status line and headers of the answer, its body left unread.
#[cfg(target_os = "linux")]
fn request_head(base: &str, path: &str, body: &str) -> (TcpStream, String) {
    let mut stream = TcpStream::connect(base).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(30))).expect("timeout");
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .expect("request");
    let mut head = Vec::new();
    let mut byte = [0u8];
    while !head.ends_with(b"\r\n\r\n") {
        let n = stream.read(&mut byte).expect("the head");
        assert_eq!(n, 1, "the connection closed within the head: {head:?}");
        head.push(byte[0]);
    }
    (stream, String::from_utf8(head).expect("a text head").to_lowercase())
}

/// `tictac serve ARGS` whose temporary folder `dir` is a tmpfs of `mib`
/// MiB, mounted in a mount namespace of its own (so nothing stays mounted
/// after it); this process reaches that tmpfs at `/proc/PID/root/DIR`.
/// `None`, said, where a tmpfs cannot be mounted (not root, no `unshare`):
/// under CI, that fails the test.
#[cfg(target_os = "linux")]
fn server_on_a_small_tmpfs(dir: &Path, mib: u32, args: &[&str]) -> Option<Server> {
    let mount = format!("mount -t tmpfs -o size={mib}m tictac-spool {}", dir.display());
    let tried = Command::new("unshare").args(["--mount", "sh", "-c", &mount]).output();
    if !tried.as_ref().is_ok_and(|o| o.status.success()) {
        let why =
            tried.map_or_else(|e| e.to_string(), |o| String::from_utf8_lossy(&o.stderr).into());
        assert!(std::env::var_os("CI").is_none(), "no tmpfs can be mounted under CI: {why}");
        eprintln!("a tmpfs cannot be mounted here (root and unshare needed): skipped: {why}");
        return None;
    }
    let script =
        format!("{mount} && TMPDIR={} exec {BIN} serve --port 0 {}", dir.display(), args.join(" "));
    Some(Server::spawn(Command::new("unshare").args(["--mount", "sh", "-c", &script])))
}

/// One client's unread long answers fill at most half of a small
/// temporary folder (what it had free at start); past that, long answers
/// are 503 with `Retry-After`, short ones still served; when something else
/// fills the folder, a long answer is a 503 too, never a 500.
#[cfg(target_os = "linux")]
#[test]
fn unread_long_answers_never_fill_a_small_temporary_folder() {
    let dir = temp_dir();
    let Some(server) = server_on_a_small_tmpfs(dir.path(), 16, &["--timeout", "30"]) else {
        return;
    };
    let seen = PathBuf::from(format!("/proc/{}/root{}", server.child.id(), dir.path().display()));
    let used = || {
        let stats = rustix::fs::statvfs(&seen).expect("the tmpfs");
        (stats.f_blocks - stats.f_bfree) * stats.f_frsize
    };
    let status = |head: &str| head.split(' ').nth(1).unwrap_or_default().to_string();
    // A 3.7 MB transcript on disk, 22 MB once escaped: far past what the
    // kernel's buffers take of an answer not read. Four would fit in the
    // 16 MiB, two in its half.
    let name = format!("A{}", "\u{1}".repeat(160_000));
    let long = json!({ "trace": format!("new_game(\"{name}\",\"B\")\n{}", "undo\n".repeat(10)) });
    let mut held = Vec::new();
    let mut statuses = Vec::new();
    for _ in 0..5 {
        let (stream, head) = request_head(&server.base, "/api/run", &long.to_string());
        if status(&head) == "503" {
            assert!(head.contains("\r\nretry-after: 30\r\n"), "{head}");
        }
        statuses.push(status(&head));
        held.push(stream);
    }
    assert_eq!(statuses, ["200", "200", "503", "503", "503"]);
    assert!(used() <= 8 << 20, "{} bytes used of 16 MiB", used());
    // Short answers are still served.
    let (code, reply) = server.post_json("/api/run", &json!({"trace": "undo"}));
    assert_eq!((code, reply["status"].as_u64()), (200, Some(0)), "{reply}");
    // Something else fills the folder: a long answer that fits the budget
    // left is refused for want of room, to retry; short ones are served.
    let mut filler = std::fs::File::create(seen.join("filler")).expect("a file in the tmpfs");
    let block = vec![0u8; 1 << 16];
    while filler.write_all(&block).is_ok() {}
    let (code, reply) = server.post_json("/api/run", &json!({"trace": "undo\n".repeat(5_000)}));
    assert_eq!(code, 503, "{reply}");
    let error = reply["error"].as_str().unwrap_or_default();
    assert!(error.contains("temporary folder is full") && error.contains("30 s"), "{reply}");
    let (code, _) = server.post_json("/api/state", &json!({"trace": "undo"}));
    assert_eq!(code, 200);
    drop(held);
}

/// A request to `address` with this `Host` (and `Origin`, if any), on a
/// connection of its own: the status and the body.
fn ask(address: &str, method: &str, host: &str, origin: Option<&str>) -> (u16, String) {
    let mut stream = TcpStream::connect(address).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    let (path, body) = match method {
        "GET" => ("/healthz", String::new()),
        _ => ("/api/run", json!({"trace": "undo"}).to_string()),
    };
    let origin = origin.map(|o| format!("Origin: {o}\r\n")).unwrap_or_default();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\n{origin}Connection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .expect("request");
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    let status = answer.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = answer.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default();
    (status, body)
}

/// On loopback, a page elsewhere cannot use the server: a request naming
/// another host (DNS rebinding) or sent by another site's page is refused
/// with 403, saying why and naming `--allow-host`; `localhost`, the address
/// and the names allowed are answered, whatever the port.
#[test]
fn on_loopback_only_its_own_names_and_their_pages_are_answered() {
    let server = Server::start(&["--allow-host", "MyBox.Local"]);
    let at = server.base.as_str();
    let port = at.rsplit(':').next().expect("a port");
    for host in
        [at.to_string(), format!("localhost:{port}"), "localhost".into(), "mybox.local:9".into()]
    {
        assert_eq!(ask(at, "GET", &host, None), (200, "ok".to_string()), "{host}");
    }
    let (status, body) = ask(at, "GET", &format!("evil.example:{port}"), None);
    assert_eq!(status, 403, "{body}");
    let reply: Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}"));
    let error = reply["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("DNS rebinding") && error.contains("--allow-host evil.example"),
        "{error}"
    );
    let (status, body) = ask(at, "POST", at, Some("https://evil.example"));
    assert_eq!(status, 403, "a cross-origin POST: {body}");
    assert!(body.contains("--allow-host"), "{body}");
    assert_eq!(ask(at, "POST", at, Some(&format!("http://{at}"))).0, 200, "the server's own page");
    assert_eq!(ask(at, "POST", at, None).0, 200, "a script");
}

/// Bound to every interface, the server is reached by whatever names its
/// network gives it: every one is answered.
#[test]
fn bound_to_every_interface_any_name_is_answered() {
    let server = Server::start(&["--bind", "0.0.0.0"]);
    let port = server.base.rsplit(':').next().expect("a port");
    let at = format!("127.0.0.1:{port}");
    assert_eq!(ask(&at, "GET", "tictac.lab.example", None), (200, "ok".to_string()));
    assert_eq!(ask(&at, "POST", &at, Some("https://elsewhere.example")).0, 200);
}

/// The static site's engine (crates/tictac-web, the pages' WebAssembly)
/// takes the API's requests, the trace given apart, and answers as the
/// server does: the same output and status, the same state, and what it
/// refuses in the same words (serde's position within the JSON, and the
/// field `trace` in its list, aside: the site's JSON holds no trace).
#[test]
fn the_static_sites_engine_answers_as_the_server_does() {
    use tictac_web::api::{Call, answer};
    let server = Server::start(&[]);
    let game = "new_game(\"Ann\",\"Hal\")\nplay(\"Ann\",1)\nplay(\"Ann\",9)\nundo\n";
    let won = "new_game(\"Ann\",\"Bob\") play(\"Ann\",1) play(\"Bob\",4) play(\"Ann\",2) play(\"Bob\",5) play(\"Ann\",3)";
    let requests = [
        (Call::Run, json!({"trace": game, "mode": "b"})),
        (Call::Run, json!({"trace": game, "mode": "chunks", "bots": {"Hal": "perfect"}})),
        (Call::Run, json!({"trace": game, "mode": "window", "start": -1, "end": 0})),
        (Call::Run, json!({"trace": game, "mode": "window", "start": 2, "end": "_"})),
        (Call::Run, json!({"trace": "play(", "mode": "b"})),
        (Call::Run, json!({"trace": game, "bots": {"Hal": "random"}, "seed": 7})),
        // The command line's hint on standard error, as "stderr".
        (Call::Run, json!({"trace": format!("\u{feff}{game}"), "mode": "b"})),
        (Call::State, json!({"trace": game, "bots": {"Hal": "tla"}})),
        (Call::State, json!({"trace": game, "bots": {"Hal": "elm"}})),
        (Call::State, json!({"trace": game, "bots": {"Hal": "random"}, "seed": 3})),
        (Call::State, json!({"trace": won})),
        (
            Call::State,
            json!({"trace": "new_game(\"Hal\",\"Eve\")", "bots": {"Hal": "perfect", "Eve": "perfect"}}),
        ),
        (Call::State, json!({"trace": "play(\"Ann\",10)"})),
        (Call::State, json!({"trace": ""})),
        // Refused, each in its words.
        (Call::Run, json!({"trace": "", "mode": "w"})),
        (Call::Run, json!({"trace": "", "x": 1})),
        (Call::Run, json!({"trace": "", "start": 1})),
        (Call::Run, json!({"trace": "", "mode": "window", "start": 1})),
        (Call::Run, json!({"trace": "", "mode": "window", "start": 1, "end": "x"})),
        (Call::Run, json!({"trace": "", "mode": "window", "start": 1.5, "end": 2})),
        (Call::Run, json!({"trace": "", "mode": "window", "start": 3, "end": 2})),
        (Call::Run, json!({"trace": "", "mode": "window", "start": 0, "end": 2})),
        (
            Call::Run,
            json!({"trace": "", "mode": "window", "start": 1, "end": 2, "bots": {"H": "elm"}}),
        ),
        (Call::Run, json!({"trace": "", "bots": {"Hal": "genius"}})),
        (Call::Run, json!({"trace": "", "seed": 3})),
        (Call::State, json!({"trace": "", "bots": {"1x": "elm", "Bob": "genius"}})),
        (Call::State, json!({"trace": "", "bots": {"1x": "elm"}})),
        (Call::State, json!({"trace": "", "bots": {" Hal": "elm"}})),
        (Call::State, json!({"trace": "", "bots": []})),
    ];
    // (The site's JSON holds no trace: its list of fields does not name it.)
    let positionless =
        |e: &str| e.split(" at line ").next().unwrap_or(e).replace("`trace`, ", "").to_string();
    for (call, request) in requests {
        let path = if call == Call::Run { "/api/run" } else { "/api/state" };
        let (status, served) = server.post_json(path, &request);
        let trace = request["trace"].as_str().expect("a trace").to_string();
        let mut rest = request.clone();
        rest.as_object_mut().expect("an object").remove("trace");
        let got = answer(call, rest.to_string().as_bytes(), trace.as_bytes());
        let reply: Value = serde_json::from_slice(&got.json).expect("JSON");
        if status != 200 {
            assert!(!got.ok, "{request}: the server refused it ({served}), the site ran it");
            let (want, said) = (served["error"].as_str(), reply["error"].as_str());
            assert_eq!(said.map(positionless), want.map(positionless), "{request}");
            continue;
        }
        assert!(got.ok, "{request}: the site refused it: {reply}");
        if trace.starts_with('\u{feff}') {
            let said = served["stderr"].as_str().unwrap_or_default();
            assert!(said.starts_with("tictac: 'the trace' begins with a UTF-8 byte order mark"));
        }
        if call == Call::Run {
            let mut reply = reply;
            reply["output"] = json!(String::from_utf8(got.output).expect("UTF-8"));
            assert_eq!(reply, served, "{request}");
        } else {
            assert_eq!(reply, served, "{request}");
        }
    }
}

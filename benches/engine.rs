//! Per-command costs of the pipeline's steps: parsing, validation, the
//! engine, and formatting the view. Run with `cargo bench`; the figures are
//! in docs/PERFORMANCE.md.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tictac::command::Command;
use tictac::engine::Engine;
use tictac::game::view::write_state;
use tictac::lang::parser::next_event;
use tictac::lang::tokens::Extent;
use tictac::lang::{self, Checker, Locator};

/// A trace of `n` valid commands: the mix of `examples/gen_trace`.
fn trace(n: usize) -> Vec<u8> {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = |bound: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % bound
    };
    let mut text = b"new_game(\"Ann\",\"Bob\")\n".to_vec();
    for _ in 1..n {
        let line = match next(100) {
            0..=69 => {
                let who = if next(2) == 0 { "Ann" } else { "Bob" };
                format!("play(\"{who}\",{})\n", next(9) + 1)
            }
            70..=79 => "undo\n".into(),
            80..=87 => "redo\n".into(),
            88..=97 => "play_again\n".into(),
            _ => "new_game(\"Ann\",\"Bob\")\n".into(),
        };
        text.extend_from_slice(line.as_bytes());
    }
    text
}

const N: usize = 10_000;

fn benches(c: &mut Criterion) {
    let text = trace(N);
    let commands = lang::check(&text).expect("a valid trace");
    let mut group = c.benchmark_group("per command");
    group.throughput(Throughput::Elements(N as u64));

    group.bench_function("parse", |b| {
        b.iter(|| {
            let mut rest = &text[..];
            let mut n = 0;
            while let Ok((after, Some(event))) = next_event(rest, Extent::Final) {
                black_box(&event);
                rest = after;
                n += 1;
            }
            assert_eq!(n, N);
        })
    });

    group.bench_function("parse and check", |b| {
        b.iter(|| {
            let events = lang::stream::parse_text(&text).expect("parses");
            let locator = Locator::new(&text);
            let mut checker = Checker::default();
            for e in &events {
                checker.event(e, |rest| locator.pos(rest));
            }
            black_box(checker.finish().is_ok_and(|v| v.is_ok()))
        })
    });

    group.bench_function("engine run", |b| {
        b.iter(|| {
            let mut engine = Engine::new();
            for c in &commands {
                engine.run(black_box(c));
            }
            black_box(engine.game().state.scores)
        })
    });

    let mut engine = Engine::new();
    engine.run(&Command::NewGame { player1: b"Ann", player2: b"Bob" });
    let mut out = Vec::with_capacity(256);
    group.bench_function("write state", |b| {
        b.iter(|| {
            out.clear();
            write_state(&mut out, black_box(engine.game())).expect("vec");
            black_box(out.len())
        })
    });
    group.finish();
}

criterion_group!(engine, benches);
criterion_main!(engine);

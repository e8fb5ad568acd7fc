//! Writes a trace of N valid commands to standard output, for benchmarks:
//! a mix of plays (many of them game errors), undo, redo, play_again and
//! new_game, from a seed (default 1) so every run writes the same trace.
//!
//!     cargo run --release --example gen_trace -- 1000000 > big.txt
//!     cargo run --release --example gen_trace -- 200 7 > t7.txt

use std::io::{self, BufWriter, Write};

fn main() -> io::Result<()> {
    let number = |k: usize, default: Option<u64>| match std::env::args().nth(k) {
        Some(a) => a.parse().ok(),
        None => default,
    };
    let (Some(n), Some(seed)) = (number(1, None), number(2, Some(1))) else {
        eprintln!("usage: gen_trace N [SEED]");
        std::process::exit(2);
    };
    let mut out = BufWriter::new(io::stdout().lock());
    // A small xorshift generator: deterministic and dependency-free.
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15 ^ seed.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    let mut next = |bound: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % bound
    };
    writeln!(out, "new_game(\"Ann\",\"Bob\")")?;
    for _ in 1..n {
        match next(100) {
            0..=69 => {
                let who = if next(2) == 0 { "Ann" } else { "Bob" };
                writeln!(out, "play(\"{who}\",{})", next(9) + 1)?
            }
            70..=79 => writeln!(out, "undo")?,
            80..=87 => writeln!(out, "redo")?,
            88..=97 => writeln!(out, "play_again")?,
            _ => writeln!(out, "new_game(\"Ann\",\"Bob\")")?,
        }
    }
    out.flush()
}

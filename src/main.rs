//! Arguments in, one front end run, exit status out (see `tictac::main`).

fn main() -> std::process::ExitCode {
    tictac::main(std::env::args_os().collect())
}

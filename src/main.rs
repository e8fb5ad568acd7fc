//! Arguments in, one front end run, exit status out (see `tictac::app`).

fn main() -> std::process::ExitCode {
    tictac::app::main(std::env::args_os().collect())
}

//! The course suite (`acceptance/course/`) is compiled into the executable
//! by `include_dir!`, which cargo cannot see on a stable compiler: a trace
//! added, changed or removed there rebuilds the crate through this script.

fn main() {
    println!("cargo:rerun-if-changed=acceptance/course");
}

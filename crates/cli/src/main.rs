//! The `schedlab` binary: the command line of [`schedlab_cli`].

use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(schedlab_cli::main_with_args(std::env::args_os()))
}

//! The exit status a command ends with.
//!
//! Commands return a plain status byte rather than `std::process::ExitCode` so that both fronts
//! can use it: the `schedlab` binary turns it into the process's exit code, and the Python entry
//! point (`schedlab._native.cli_main`, installed as the wheel's `schedlab` script) returns it to
//! `sys.exit`.

/// A command's exit status: 0 success, 1 failure, other values as each command documents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Status(pub(crate) u8);

impl Status {
    /// The command did what was asked.
    pub(crate) const SUCCESS: Status = Status(0);
    /// The command failed; the error was printed on stderr.
    pub(crate) const FAILURE: Status = Status(1);
}

impl From<u8> for Status {
    fn from(code: u8) -> Status {
        Status(code)
    }
}

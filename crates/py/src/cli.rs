//! `schedlab._native.cli_main`: the `schedlab` command line inside the Python package, so the
//! wheel's `schedlab` console script (`python/schedlab/_cli.py`) is the same program as the
//! `schedlab` binary — the same `schedlab_cli::main_with_args`, the same output, messages and
//! exit statuses.
//!
//! Three things differ from a process whose `main` is Rust's, and are handled here:
//! - **The GIL** is released for the whole command (commands may run for minutes and use every
//!   core; other Python threads keep running).
//! - **Standard output** is flushed when the command returns: Rust flushes its buffered stdout
//!   at the exit of a Rust `main`, which never runs inside Python, so a last line without a
//!   newline would otherwise be lost.
//! - **SIGINT.** Python handles Ctrl-C with a C-level handler that only records the signal for
//!   the interpreter (`KeyboardInterrupt` once Python code runs again). Two commands replace it
//!   while they run, as in the binary: `run` (the runtime's capture, which restores the previous
//!   handler itself) and `experiment` (`ctrlc`, whose handler stays installed for the life of
//!   the process and can be installed only once per process). After the command, Python's
//!   handler is installed again (from the main thread, the only one where Python allows it), so
//!   Ctrl-C in an interactive interpreter raises `KeyboardInterrupt` again. The console script
//!   sets SIGINT to its default action before calling in, as in a Rust binary; the effects in
//!   an interactive interpreter are described in docs/python.md ("The command line from Python").

use crate::err;
use pyo3::prelude::*;
use std::ffi::OsString;
use std::io::Write;
use std::panic::AssertUnwindSafe;

/// Runs the `schedlab` command line with `argv` (`argv[0]` is the program name, as in
/// `sys.argv`) and returns its exit status: 0 success, 1 failure (the message is on stderr),
/// 2 a usage error, 101 a panic (as the binary), other values as each command documents.
#[pyfunction]
pub(crate) fn cli_main(py: Python<'_>, argv: Vec<OsString>) -> PyResult<u8> {
    if argv.is_empty() {
        return Err(err(
            "argv: empty; give the program name first, as in sys.argv (e.g. [\"schedlab\", \"--version\"])",
        ));
    }
    let sigint = PythonSigint::save(py)?;
    let status = py.allow_threads(|| {
        // A panic (a bug) ends the command as it ends the binary: the panic hook's message on
        // stderr and status 101, rather than a `PanicException` traceback.
        let status =
            std::panic::catch_unwind(AssertUnwindSafe(|| schedlab_cli::main_with_args(argv)))
                .unwrap_or(101);
        // A closed stdout (`schedlab … | head`) cannot be told anything more.
        let _ = std::io::stdout().flush();
        status
    });
    sigint.restore()?;
    Ok(status)
}

/// Python's SIGINT handler as `signal.getsignal` reports it, to install again after a command
/// that replaced the C-level handler.
struct PythonSigint<'py> {
    /// `None` off the main thread (Python refuses `signal.signal` there) or when the handler
    /// was not installed from Python (`getsignal` returns `None`).
    saved: Option<(Bound<'py, PyModule>, Bound<'py, PyAny>)>,
}

impl<'py> PythonSigint<'py> {
    fn save(py: Python<'py>) -> PyResult<PythonSigint<'py>> {
        let threading = py.import("threading")?;
        let main = threading.call_method0("main_thread")?;
        if !main.is(&threading.call_method0("current_thread")?) {
            return Ok(PythonSigint { saved: None });
        }
        let signal = py.import("signal")?;
        let handler = signal.call_method1("getsignal", (signal.getattr("SIGINT")?,))?;
        if handler.is_none() {
            return Ok(PythonSigint { saved: None });
        }
        Ok(PythonSigint {
            saved: Some((signal, handler)),
        })
    }

    /// `signal.signal(SIGINT, handler)`: installs the C-level handler again even when Python's
    /// own record says it is unchanged. `signal.signal` first runs the handlers of signals that
    /// came meanwhile and stops if one raises (Ctrl-C during the command: `KeyboardInterrupt`);
    /// the second call then finds none pending, installs the handler, and the exception is
    /// raised to the caller.
    fn restore(self) -> PyResult<()> {
        let Some((signal, handler)) = self.saved else {
            return Ok(());
        };
        let install = || signal.call_method1("signal", (signal.getattr("SIGINT")?, &handler));
        if let Err(pending) = install() {
            install()?;
            return Err(pending);
        }
        Ok(())
    }
}

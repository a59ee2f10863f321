//! Standard output that never panics: `print!` panics when the reader has gone away (e.g.
//! `schedlab analyze … | head`); these write through a checked handle instead, and `main`
//! treats a closed pipe as a quiet, successful end, as Unix tools do.

use std::io::Write;

/// Writes formatted text to standard output.
pub(crate) fn write_out(args: std::fmt::Arguments<'_>) -> std::io::Result<()> {
    std::io::stdout().lock().write_fmt(args)
}

/// Whether `e` (anywhere in its chain) is a closed-pipe error.
pub(crate) fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// `print!` that returns an error instead of panicking.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::output::write_out(format_args!($($arg)*))
    };
}

/// `println!` that returns an error instead of panicking.
macro_rules! outln {
    () => { $crate::output::write_out(format_args!("\n")) };
    ($($arg:tt)*) => {
        $crate::output::write_out(format_args!("{}\n", format_args!($($arg)*)))
    };
}

pub(crate) use {out, outln};

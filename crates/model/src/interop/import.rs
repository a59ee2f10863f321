//! One entry point for every import format: [`import_str`] and [`import_file`], the format
//! named ([`Source::parse`]) or inferred from the file's extension, else its content
//! ([`Source::infer`]), and the bounds every reader shares.

use super::{csv, simso, Imported, InteropError};
use std::io::Read;
use std::path::Path;

/// Bytes an import reads (16 MiB: a SimSo file of 100 000 tasks is about 40 MB; one of
/// 10 000 tasks, about 4 MB).
pub const MAX_IMPORT_BYTES: usize = 16 << 20;
/// Tasks an import reads.
pub const MAX_IMPORT_TASKS: usize = 100_000;

/// How an `unmapped` line says which `--duration` reproduces the source's simulation.
pub const DURATION_HINT: &str = "simulate with --duration ";
/// How an `unmapped` line says which `--partition` heuristic reproduces the source's packer.
pub const PARTITION_HINT: &str = "use --partition ";

/// The `schedlab simulate` arguments (after the task file) that run an import as its source
/// would: the policy (`P`, a placeholder, when the source names none), `--priorities given` when the policy is fixed-priority and every task
/// has a priority, and the `--partition` and `--duration` its `unmapped` lines name.
///
/// ```
/// # use schedlab_model::interop::import::{import_str, simulate_arguments, Source};
/// let xml = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/simso/fp-4tasks.xml")).unwrap();
/// let imported = import_str(&xml, Source::Simso).unwrap();
/// assert_eq!(simulate_arguments(&imported), ["--policy", "gfp", "--priorities", "given", "--duration", "400ms"]);
/// ```
pub fn simulate_arguments(imported: &Imported) -> Vec<String> {
    let mut args = Vec::new();
    let Some(policy) = &imported.policy else {
        // The format names no scheduler: the policy is the user's choice.
        return vec!["--policy".to_string(), "P".to_string()];
    };
    args.extend(["--policy".to_string(), policy.clone()]);
    let fixed_priority = matches!(policy.as_str(), "gfp" | "pfp");
    if fixed_priority && imported.file.tasks.iter().all(|t| t.priority.is_some()) {
        args.extend(["--priorities".to_string(), "given".to_string()]);
    }
    let word_after = |hint: &str| {
        imported.unmapped.iter().find_map(|l| {
            let rest = &l[l.find(hint)? + hint.len()..];
            rest.split([' ', ',', ';', ')']).next().map(str::to_string)
        })
    };
    for (flag, hint) in [
        ("--partition", PARTITION_HINT),
        ("--duration", DURATION_HINT),
    ] {
        if let Some(value) = word_after(hint).filter(|v| !v.is_empty()) {
            args.extend([flag.to_string(), value]);
        }
    }
    args
}

/// A format schedlab imports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// SimSo's XML configuration ([`simso`]).
    Simso,
    /// A SchedCAT-style CSV task list ([`csv`]).
    Csv,
    /// An rt-app JSON workload (periodic `run`/`timer` tasks).
    RtApp,
}

impl Source {
    /// The names `--from` takes.
    pub const NAMES: &'static [&'static str] = &["simso", "csv", "rt-app"];

    /// The format named `name` (`simso`, `csv`, `rt-app`).
    pub fn parse(name: &str) -> Result<Source, InteropError> {
        match name.trim().to_ascii_lowercase().as_str() {
            "simso" | "xml" => Ok(Source::Simso),
            "csv" | "schedcat" => Ok(Source::Csv),
            "rt-app" | "rtapp" | "rt_app" => Ok(Source::RtApp),
            _ => Err(InteropError::UnknownFormat(name.to_string())),
        }
    }

    /// Its name as `--from` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Source::Simso => "simso",
            Source::Csv => "csv",
            Source::RtApp => "rt-app",
        }
    }

    /// How messages name the format.
    pub fn format(self) -> &'static str {
        match self {
            Source::Simso => simso::FORMAT,
            Source::Csv => csv::FORMAT,
            Source::RtApp => "rt-app JSON",
        }
    }

    /// The format a path's extension names (`.xml`, `.csv`, `.json`), if any.
    pub fn from_path(path: &Path) -> Option<Source> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "xml" => Some(Source::Simso),
            "csv" => Some(Source::Csv),
            "json" => Some(Source::RtApp),
            _ => None,
        }
    }

    /// The format the content looks like: XML starts with `<`, rt-app's JSON with `{`, and
    /// anything else is read as CSV.
    pub fn sniff(text: &str) -> Source {
        match text
            .trim_start_matches('\u{feff}')
            .trim_start()
            .as_bytes()
            .first()
        {
            Some(b'<') => Source::Simso,
            Some(b'{') => Source::RtApp,
            _ => Source::Csv,
        }
    }

    /// The format of `path` with content `text`: its extension's, else its content's.
    pub fn infer(path: &Path, text: &str) -> Source {
        Source::from_path(path).unwrap_or_else(|| Source::sniff(text))
    }
}

/// Refuses a text longer than [`MAX_IMPORT_BYTES`].
pub fn check_size(format: &'static str, len: usize) -> Result<(), InteropError> {
    if len > MAX_IMPORT_BYTES {
        return Err(InteropError::TooLarge {
            format,
            what: "the text".to_string(),
            got: format!("{len} bytes"),
            limit: format!("{MAX_IMPORT_BYTES} bytes"),
        });
    }
    Ok(())
}

/// Imports `text` written in `source`'s format.
pub fn import_str(text: &str, source: Source) -> Result<Imported, InteropError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match source {
        Source::Simso => simso::import(text),
        Source::Csv => csv::import(text),
        Source::RtApp => super::rt_app::import(text),
    }
}

/// Reads and imports the file at `path` (at most [`MAX_IMPORT_BYTES`]); the format is
/// `source`, else inferred ([`Source::infer`]). Returns the format read and the import.
pub fn import_file(
    path: &Path,
    source: Option<Source>,
) -> Result<(Source, Imported), InteropError> {
    let io = |e: std::io::Error| InteropError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    };
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .map_err(io)?
        .take(MAX_IMPORT_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    let text = String::from_utf8(bytes).map_err(|e| InteropError::Io {
        path: path.display().to_string(),
        message: format!(
            "not UTF-8 text (byte {} is not part of a UTF-8 character)",
            e.utf8_error().valid_up_to()
        ),
    })?;
    let source = source.unwrap_or_else(|| Source::infer(path, &text));
    if text.len() > MAX_IMPORT_BYTES {
        return Err(InteropError::TooLarge {
            format: source.format(),
            what: format!("{}", path.display()),
            got: format!("more than {MAX_IMPORT_BYTES} bytes"),
            limit: format!("{MAX_IMPORT_BYTES} bytes"),
        });
    }
    Ok((source, import_str(&text, source)?))
}

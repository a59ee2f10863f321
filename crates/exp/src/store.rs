//! The durable output folder of an experiment.
//!
//! ```text
//! DIR/manifest.json            the experiment (validated config), its hash, seed, version, machine
//! DIR/chunks/<chunk>.jsonl     one finished chunk: one JSON line per task set (SetResult)
//! DIR/summary.csv, sets.csv, acceptance.svg/.png, report.md, report.html   (outputs)
//! ```
//!
//! Every file is written to a temporary name in the same folder, flushed to disk (`fsync`),
//! renamed into place and the folder itself flushed: a file under its final name is always
//! complete, so a crash or `kill -9` at any moment leaves either the whole chunk or nothing
//! (stray temporary files are removed when the folder is opened again). A chunk whose file
//! exists is never computed again. A folder whose manifest has a different config hash is
//! refused.

use crate::chunk::{Chunk, SetResult};
use crate::config::Experiment;
use crate::error::ExpError;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Version of the folder layout.
pub const FORMAT: u32 = 1;
/// The git revision the crate was built from (`unknown` outside a git checkout).
pub const GIT_REVISION: &str = env!("SCHEDLAB_GIT_REVISION");

/// The machine an experiment started on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    /// Host name (`unknown` if it cannot be read).
    pub hostname: String,
    /// Operating system (`linux`, …).
    pub os: String,
    /// CPU architecture.
    pub arch: String,
    /// Logical CPUs available to the process.
    pub cpus: usize,
}

impl Machine {
    /// This machine.
    pub fn this() -> Machine {
        let hostname = fs::read_to_string("/proc/sys/kernel/hostname")
            .ok()
            .or_else(|| std::env::var("HOSTNAME").ok())
            .or_else(|| std::env::var("COMPUTERNAME").ok())
            .map(|h| h.trim().to_string())
            .filter(|h| !h.is_empty())
            .unwrap_or_else(|| "unknown".into());
        Machine {
            hostname,
            os: std::env::consts::OS.into(),
            arch: std::env::consts::ARCH.into(),
            cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }
}

/// `DIR/manifest.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Layout version ([`FORMAT`]).
    pub format: u32,
    /// Hash of the validated config ([`Experiment::config_hash`]).
    pub config_hash: String,
    /// The experiment seed.
    pub seed: u64,
    /// schedlab version.
    pub schedlab_version: String,
    /// git revision of the build.
    pub git_revision: String,
    /// Where it started.
    pub machine: Machine,
    /// Start time, seconds since the Unix epoch.
    pub started_unix: u64,
    /// Start time, UTC (`YYYY-MM-DDTHH:MM:SSZ`).
    pub started_utc: String,
    /// The experiment file it was started from.
    pub experiment_file: String,
    /// The validated experiment.
    pub config: Experiment,
}

/// An open output folder.
#[derive(Debug)]
pub struct Store {
    dir: PathBuf,
    chunks: PathBuf,
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Writes `bytes` to `path` atomically and durably (temporary file, fsync, rename, fsync of
/// the folder).
pub fn write_durably(path: &Path, bytes: &[u8]) -> Result<(), ExpError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(
        ".{name}.tmp-{}-{}",
        std::process::id(),
        TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let write = || -> std::io::Result<()> {
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        fs::rename(&tmp, path)?;
        sync_dir(dir)
    };
    write().map_err(|e| {
        let _ = fs::remove_file(&tmp);
        ExpError::io(path, e)
    })
}

/// A file written through a buffer under a temporary name and put in place by
/// [`DurableWriter::commit`] (fsync, rename, fsync of the folder); dropped without commit,
/// it leaves nothing under the final name.
pub struct DurableWriter {
    path: PathBuf,
    tmp: PathBuf,
    out: std::io::BufWriter<File>,
}

impl DurableWriter {
    /// Starts writing `path`.
    pub fn create(path: &Path) -> Result<DurableWriter, ExpError> {
        let dir = path.parent().unwrap_or(Path::new("."));
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tmp = dir.join(format!(
            ".{name}.tmp-{}-{}",
            std::process::id(),
            TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let f = File::create(&tmp).map_err(|e| ExpError::io(&tmp, e))?;
        Ok(DurableWriter {
            path: path.to_path_buf(),
            tmp,
            out: std::io::BufWriter::new(f),
        })
    }

    /// The buffered writer.
    pub fn writer(&mut self) -> &mut dyn Write {
        &mut self.out
    }

    /// Flushes, syncs and renames the file into place.
    pub fn commit(self) -> Result<PathBuf, ExpError> {
        let DurableWriter { path, tmp, out } = self;
        let finish = || -> std::io::Result<()> {
            let f = out.into_inner().map_err(|e| e.into_error())?;
            f.sync_all()?;
            drop(f);
            fs::rename(&tmp, &path)?;
            sync_dir(path.parent().unwrap_or(Path::new(".")))
        };
        finish().map_err(|e| {
            let _ = fs::remove_file(&tmp);
            ExpError::io(&path, e)
        })?;
        Ok(path)
    }
}

#[cfg(unix)]
fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}

#[cfg(not(unix))]
fn sync_dir(_dir: &Path) -> std::io::Result<()> {
    Ok(())
}

/// Seconds since the epoch as `YYYY-MM-DDTHH:MM:SSZ` (proleptic Gregorian, UTC).
pub fn utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Howard Hinnant's days-from-civil inverse.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Whether `name` (an entry of an experiment folder without a manifest) is what a creation
/// interrupted before its manifest was in place leaves behind: the `chunks` folder (still
/// empty: no chunk is stored before the manifest) or a temporary of the manifest.
fn is_creation_leftover(dir: &Path, name: &str) -> bool {
    if name.starts_with(".manifest.json.tmp-") {
        return true;
    }
    name == "chunks"
        && fs::read_dir(dir.join(name)).is_ok_and(|mut entries| entries.next().is_none())
}

/// Refuses a folder without a manifest that holds anything but the leftovers of an
/// interrupted creation (a SIGKILL between creating the folder and renaming the manifest into
/// place): such a folder is not an experiment folder, and writing into it could mix files.
fn refuse_foreign_folder(dir: &Path) -> Result<(), ExpError> {
    if !dir.exists() {
        return Ok(());
    }
    let entries = fs::read_dir(dir).map_err(|e| ExpError::io(dir, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| ExpError::io(dir, e))?;
        if !is_creation_leftover(dir, &entry.file_name().to_string_lossy()) {
            return Err(ExpError::Corrupt {
                path: dir.to_path_buf(),
                message: "the folder exists, is not empty and has no manifest.json: not an experiment folder (choose another --out)".into(),
            });
        }
    }
    Ok(())
}

/// Removes the manifest temporaries an interrupted creation left (see
/// [`refuse_foreign_folder`], which has accepted the folder).
fn remove_creation_leftovers(dir: &Path) -> Result<(), ExpError> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        if entry
            .file_name()
            .to_string_lossy()
            .starts_with(".manifest.json.tmp-")
        {
            let path = entry.path();
            fs::remove_file(&path).map_err(|e| ExpError::io(&path, e))?;
        }
    }
    Ok(())
}

fn read_manifest(path: &Path) -> Result<Manifest, ExpError> {
    let text = fs::read_to_string(path).map_err(|e| ExpError::io(path, e))?;
    serde_json::from_str(&text).map_err(|e| ExpError::Corrupt {
        path: path.to_path_buf(),
        message: format!("not a schedlab experiment manifest: {e}"),
    })
}

impl Store {
    /// Whether `dir` can take `experiment`'s results without writing anything: absent or empty,
    /// or a folder of the same experiment (same config hash) to resume. The errors are those
    /// of [`Store::create_or_open`].
    pub fn check_resumable(dir: &Path, experiment: &Experiment) -> Result<(), ExpError> {
        let manifest_path = dir.join("manifest.json");
        if manifest_path.exists() {
            let manifest = read_manifest(&manifest_path)?;
            let expected = experiment.config_hash();
            if manifest.config_hash != expected {
                return Err(ExpError::DifferentExperiment {
                    dir: dir.to_path_buf(),
                    found: manifest.config_hash,
                    expected,
                });
            }
            return Ok(());
        }
        refuse_foreign_folder(dir)
    }

    /// Opens `dir` for `experiment`: creates it with a manifest, or reopens a folder of the
    /// same experiment (same config hash) to resume it. Refuses a folder of a different
    /// experiment, and a non-empty folder that is not an experiment folder.
    pub fn create_or_open(
        dir: &Path,
        experiment: &Experiment,
        experiment_file: &str,
    ) -> Result<(Store, Manifest), ExpError> {
        let manifest_path = dir.join("manifest.json");
        let store = Store {
            dir: dir.to_path_buf(),
            chunks: dir.join("chunks"),
        };
        if manifest_path.exists() {
            let manifest = read_manifest(&manifest_path)?;
            let expected = experiment.config_hash();
            if manifest.config_hash != expected {
                return Err(ExpError::DifferentExperiment {
                    dir: dir.to_path_buf(),
                    found: manifest.config_hash,
                    expected,
                });
            }
            fs::create_dir_all(&store.chunks).map_err(|e| ExpError::io(&store.chunks, e))?;
            store.remove_temporaries()?;
            return Ok((store, manifest));
        }
        refuse_foreign_folder(dir)?;
        remove_creation_leftovers(dir)?;
        fs::create_dir_all(&store.chunks).map_err(|e| ExpError::io(&store.chunks, e))?;
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let manifest = Manifest {
            format: FORMAT,
            config_hash: experiment.config_hash(),
            seed: experiment.seed,
            schedlab_version: env!("CARGO_PKG_VERSION").into(),
            git_revision: GIT_REVISION.into(),
            machine: Machine::this(),
            started_unix: now,
            started_utc: utc(now),
            experiment_file: experiment_file.into(),
            config: experiment.clone(),
        };
        let text = serde_json::to_string_pretty(&manifest).map_err(|e| ExpError::Corrupt {
            path: manifest_path.clone(),
            message: e.to_string(),
        })?;
        if let Some(parent) = dir.parent() {
            let _ = sync_dir(if parent.as_os_str().is_empty() {
                Path::new(".")
            } else {
                parent
            });
        }
        write_durably(&manifest_path, text.as_bytes())?;
        Ok((store, manifest))
    }

    /// Opens an existing experiment folder (for re-plotting).
    pub fn open(dir: &Path) -> Result<(Store, Manifest), ExpError> {
        let manifest = read_manifest(&dir.join("manifest.json"))?;
        Ok((
            Store {
                dir: dir.to_path_buf(),
                chunks: dir.join("chunks"),
            },
            manifest,
        ))
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn remove_temporaries(&self) -> Result<(), ExpError> {
        for dir in [&self.chunks, &self.dir] {
            self.remove_temporaries_in(dir)?;
        }
        Ok(())
    }

    fn remove_temporaries_in(&self, dir: &Path) -> Result<(), ExpError> {
        for entry in fs::read_dir(dir).map_err(|e| ExpError::io(dir, e))? {
            let entry = entry.map_err(|e| ExpError::io(dir, e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') && name.contains(".tmp-") {
                fs::remove_file(entry.path()).map_err(|e| ExpError::io(entry.path(), e))?;
            }
        }
        Ok(())
    }

    /// File names of the finished chunks.
    pub fn finished(&self) -> Result<HashSet<String>, ExpError> {
        let mut out = HashSet::new();
        let entries = match fs::read_dir(&self.chunks) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
            Err(e) => return Err(ExpError::io(&self.chunks, e)),
        };
        for entry in entries {
            let entry = entry.map_err(|e| ExpError::io(&self.chunks, e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.ends_with(".jsonl") && !name.starts_with('.') {
                out.insert(name);
            }
        }
        Ok(out)
    }

    /// The chunks of `all` that have not finished yet.
    pub fn pending(&self, all: &[Chunk]) -> Result<Vec<Chunk>, ExpError> {
        let done = self.finished()?;
        Ok(all
            .iter()
            .filter(|c| !done.contains(&c.file_name()))
            .copied()
            .collect())
    }

    /// The text stored for a chunk: one JSON line per set.
    pub fn encode(results: &[SetResult]) -> String {
        let mut text = String::new();
        for r in results {
            if let Ok(line) = serde_json::to_string(r) {
                text.push_str(&line);
                text.push('\n');
            }
        }
        text
    }

    /// Reads chunk text back (every line must parse; floats are read back exactly, the
    /// `float_roundtrip` parser of serde_json).
    pub fn decode(path: &Path, text: &str) -> Result<Vec<SetResult>, ExpError> {
        text.lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(i, l)| {
                serde_json::from_str(l).map_err(|e| ExpError::Corrupt {
                    path: path.to_path_buf(),
                    message: format!("line {}: {e}", i + 1),
                })
            })
            .collect()
    }

    /// Stores a finished chunk durably.
    pub fn write_chunk(&self, chunk: &Chunk, results: &[SetResult]) -> Result<(), ExpError> {
        write_durably(
            &self.chunks.join(chunk.file_name()),
            Store::encode(results).as_bytes(),
        )
    }

    /// Stores chunk text produced by [`Store::encode`] elsewhere (a Dask worker) as it is,
    /// after checking that every line parses.
    pub fn write_chunk_text(&self, chunk: &Chunk, text: &str) -> Result<(), ExpError> {
        let path = self.chunks.join(chunk.file_name());
        Store::decode(&path, text)?;
        write_durably(&path, text.as_bytes())
    }

    /// Reads a finished chunk.
    pub fn read_chunk(&self, chunk: &Chunk) -> Result<Vec<SetResult>, ExpError> {
        let path = self.chunks.join(chunk.file_name());
        let text = fs::read_to_string(&path).map_err(|e| ExpError::io(&path, e))?;
        Store::decode(&path, &text)
    }

    /// Writes an output file into the folder (durably).
    pub fn write_output(&self, name: &str, bytes: &[u8]) -> Result<PathBuf, ExpError> {
        let path = self.dir.join(name);
        write_durably(&path, bytes)?;
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_dates() {
        // 0 is the epoch; 951_782_400 = 2000-02-29 00:00:00 (a leap day: 11 016 days).
        assert_eq!(utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc(951_782_400 + 86_399), "2000-02-29T23:59:59Z");
    }
}

//! The schedlab trace file format (`.trace`), byte by byte in `docs/traces.md`.
//!
//! A 32-byte little-endian header (magic `SLTRACE\0`, format version, flags, record count,
//! record size, metadata length), a UTF-8 JSON metadata blob padded to a multiple of 8 bytes,
//! then fixed-size 40-byte little-endian records, one per [`Event`] (cf. feather-trace's
//! fixed-size `st_event_record`). A record count of 0 means "records until end of file", so a
//! runtime writer can write the header first and append records as it goes: after a crash the
//! file is readable up to the last whole record ([`TraceReader::allow_partial_tail`]).
//!
//! Reading never panics and never trusts a length field for an allocation: every malformed
//! input is a [`TraceError`].

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

use serde_json::{Map, Value};

use crate::event::{Event, Kind};

/// The 8 magic bytes at offset 0.
pub const MAGIC: [u8; 8] = *b"SLTRACE\0";
/// The format version this crate writes (and the only one it reads).
pub const VERSION: u32 = 1;
/// Size of the fixed header in bytes.
pub const HEADER_SIZE: usize = 32;
/// Size of one record in bytes.
pub const RECORD_SIZE: usize = 40;
/// Largest metadata blob a reader accepts (bytes); guards against absurd length fields.
pub const MAX_META_LEN: u32 = 64 << 20;
/// Flag bits 16..31 are "must understand": a reader rejects a file with an unknown one set.
/// Bits 0..15 are informational and ignored when unknown. Version 1 defines none.
pub const REQUIRED_FLAGS_MASK: u32 = 0xFFFF_0000;

/// Why a trace file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// An I/O error of the underlying reader or writer.
    #[error("trace I/O: {0}")]
    Io(#[from] std::io::Error),
    /// The file does not start with `SLTRACE\0`.
    #[error("not a schedlab trace (bad magic)")]
    BadMagic,
    /// The format version is not [`VERSION`].
    #[error("unsupported trace format version {0} (this build reads {VERSION})")]
    UnsupportedVersion(u32),
    /// A must-understand flag bit this build does not know is set.
    #[error("unsupported trace flags {0:#010x}")]
    UnsupportedFlags(u32),
    /// The header announces a record size other than [`RECORD_SIZE`].
    #[error("unsupported record size {0} (expected {RECORD_SIZE})")]
    BadRecordSize(u32),
    /// The file ends inside the named part.
    #[error("trace file truncated in the {0}")]
    Truncated(&'static str),
    /// The metadata blob is larger than [`MAX_META_LEN`].
    #[error("metadata blob of {0} bytes is too large")]
    MetadataTooLarge(u32),
    /// The metadata blob is not a UTF-8 JSON object of the documented shape.
    #[error("bad metadata: {0}")]
    BadMetadata(String),
    /// A record carries a kind code that is not a [`Kind`].
    #[error("record {index}: unknown event kind code {code}")]
    UnknownKind {
        /// 0-based record index.
        index: u64,
        /// The code found.
        code: u16,
    },
    /// The header announced `count` records but more bytes follow them.
    #[error("bytes after the {0} records announced by the header")]
    TrailingBytes(u64),
    /// A writer was given a different number of events than its header announced.
    #[error("header announced {announced} records but {written} were written")]
    CountMismatch {
        /// Count in the header.
        announced: u64,
        /// Records actually written.
        written: u64,
    },
}

/// Per-task metadata (all fields optional).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TaskMeta {
    /// Display name.
    pub name: Option<String>,
    /// Relative deadline in ns (used to draw deadline markers).
    pub deadline_ns: Option<u64>,
    /// Period (minimum inter-arrival time) in ns, as the run was given.
    pub period_ns: Option<u64>,
    /// Worst-case execution time in ns, as the run was given (what each job is asked to
    /// execute under the default execution model).
    pub wcet_ns: Option<u64>,
    /// Offset of the first release in ns from the run's start, as the run was given.
    pub offset_ns: Option<u64>,
    /// The parts of a split task in execution order (empty: the task is whole), as the
    /// semi-partitioned policy ran them [RTPS §III].
    pub split: Vec<PartMeta>,
}

/// One part of a split task: its CPU and execution budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PartMeta {
    /// The CPU that hosts the part.
    pub cpu: u32,
    /// Its budget (ns).
    pub budget_ns: u64,
}

/// What a part is called by its position: `head` (the first), `tail` (the last), `body`.
pub fn part_kind(part: usize, parts: usize) -> &'static str {
    match part {
        0 => "head",
        k if k + 1 == parts => "tail",
        _ => "body",
    }
}

/// The metadata blob: what produced the trace and how to label it.
///
/// Known keys are typed; any other key is kept verbatim in `extra`, so the runtime can add
/// keys without a format change.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Meta {
    /// `"sim"` or `"runtime"`.
    pub engine: Option<String>,
    /// Number of CPUs of the run.
    pub cpus: Option<u32>,
    /// Policy name (`gedf`, …).
    pub policy: Option<String>,
    /// Per-task metadata, by task index.
    pub tasks: Vec<TaskMeta>,
    /// Any other keys.
    pub extra: Map<String, Value>,
}

impl Meta {
    /// The metadata of a run of either engine, built here once for both: `engine` (`"sim"` or
    /// `"runtime"`), the number of CPUs, the policy, every task's name and relative deadline
    /// (the trace tools' job accounting needs them) with its period, WCET and offset (so
    /// `trace costs` reads the task set as it was given rather than back from the events),
    /// and `duration_ns` (the horizon, so the tools account jobs as the engine did). An engine
    /// adds its own keys to `extra`.
    pub fn of_run(
        engine: &str,
        policy: &str,
        cpus: u32,
        tasks: &schedlab_model::TaskSet,
        duration: schedlab_model::Duration,
    ) -> Meta {
        let mut meta = Meta {
            engine: Some(engine.into()),
            cpus: Some(cpus),
            policy: Some(policy.into()),
            tasks: tasks
                .iter()
                .map(|t| TaskMeta {
                    name: t.name.clone(),
                    deadline_ns: Some(t.deadline.as_ns()),
                    period_ns: Some(t.period.as_ns()),
                    wcet_ns: Some(t.wcet.as_ns()),
                    offset_ns: Some(t.offset.as_ns()),
                    split: Vec::new(),
                })
                .collect(),
            ..Meta::default()
        };
        meta.extra
            .insert("duration_ns".into(), Value::from(duration.as_ns()));
        meta
    }

    /// The display name of task `task`: its name from the metadata, else `τ{task}`.
    pub fn task_name(&self, task: u32) -> String {
        usize::try_from(task)
            .ok()
            .and_then(|i| self.tasks.get(i))
            .and_then(|t| t.name.clone())
            .unwrap_or_else(|| format!("τ{task}"))
    }

    /// Records that task `task` ran split into `parts` (CPU, budget ns) in execution order
    /// (ignored for a task the metadata does not list).
    pub fn set_split(&mut self, task: usize, parts: impl IntoIterator<Item = (u32, u64)>) {
        if let Some(t) = self.tasks.get_mut(task) {
            t.split = parts
                .into_iter()
                .map(|(cpu, budget_ns)| PartMeta { cpu, budget_ns })
                .collect();
        }
    }

    /// The part of split task `task` that runs on `cpu`: its 0-based position, the number of
    /// parts, and the part (`None` for a whole task or a CPU that hosts none of its parts).
    pub fn part_on(&self, task: u32, cpu: u32) -> Option<(usize, usize, PartMeta)> {
        let parts = &self.tasks.get(usize::try_from(task).ok()?)?.split;
        let k = parts.iter().position(|p| p.cpu == cpu)?;
        Some((k, parts.len(), *parts.get(k)?))
    }

    /// The relative deadline of task `task`, if known.
    pub fn deadline(&self, task: u32) -> Option<u64> {
        usize::try_from(task)
            .ok()
            .and_then(|i| self.tasks.get(i))
            .and_then(|t| t.deadline_ns)
    }

    /// The JSON object written into the file.
    pub fn to_json(&self) -> Value {
        let mut m = self.extra.clone();
        if let Some(e) = &self.engine {
            m.insert("engine".into(), Value::from(e.clone()));
        }
        if let Some(c) = self.cpus {
            m.insert("cpus".into(), Value::from(c));
        }
        if let Some(p) = &self.policy {
            m.insert("policy".into(), Value::from(p.clone()));
        }
        if !self.tasks.is_empty() {
            let tasks = self
                .tasks
                .iter()
                .map(|t| {
                    let mut o = Map::new();
                    if let Some(n) = &t.name {
                        o.insert("name".into(), Value::from(n.clone()));
                    }
                    for (key, value) in [
                        ("deadline_ns", t.deadline_ns),
                        ("period_ns", t.period_ns),
                        ("wcet_ns", t.wcet_ns),
                        ("offset_ns", t.offset_ns),
                    ] {
                        if let Some(v) = value {
                            o.insert(key.into(), Value::from(v));
                        }
                    }
                    if !t.split.is_empty() {
                        let parts = t
                            .split
                            .iter()
                            .map(|p| serde_json::json!({"cpu": p.cpu, "budget_ns": p.budget_ns}))
                            .collect();
                        o.insert("split".into(), Value::Array(parts));
                    }
                    Value::Object(o)
                })
                .collect();
            m.insert("tasks".into(), Value::Array(tasks));
        }
        Value::Object(m)
    }

    /// Parses the JSON object of a file.
    pub fn from_json(v: Value) -> Result<Meta, TraceError> {
        let bad = |s: &str| TraceError::BadMetadata(s.to_string());
        let Value::Object(mut m) = v else {
            return Err(bad("not a JSON object"));
        };
        let mut meta = Meta::default();
        if let Some(e) = m.remove("engine") {
            meta.engine = Some(e.as_str().ok_or_else(|| bad("engine"))?.to_string());
        }
        if let Some(c) = m.remove("cpus") {
            let c = c.as_u64().and_then(|c| u32::try_from(c).ok());
            meta.cpus = Some(c.ok_or_else(|| bad("cpus"))?);
        }
        if let Some(p) = m.remove("policy") {
            meta.policy = Some(p.as_str().ok_or_else(|| bad("policy"))?.to_string());
        }
        if let Some(t) = m.remove("tasks") {
            let Value::Array(ts) = t else {
                return Err(bad("tasks is not an array"));
            };
            for t in ts {
                let Value::Object(o) = t else {
                    return Err(bad("a task is not an object"));
                };
                let name = match o.get("name") {
                    None | Some(Value::Null) => None,
                    Some(n) => Some(n.as_str().ok_or_else(|| bad("task name"))?.to_string()),
                };
                let ns = |key: &str| match o.get(key) {
                    None | Some(Value::Null) => Ok(None),
                    Some(d) => d
                        .as_u64()
                        .map(Some)
                        .ok_or_else(|| bad(&format!("task {key}"))),
                };
                let (deadline_ns, period_ns) = (ns("deadline_ns")?, ns("period_ns")?);
                let (wcet_ns, offset_ns) = (ns("wcet_ns")?, ns("offset_ns")?);
                let split = match o.get("split") {
                    None | Some(Value::Null) => Vec::new(),
                    Some(v) => parts_from_json(v).ok_or_else(|| bad("task split"))?,
                };
                meta.tasks.push(TaskMeta {
                    name,
                    deadline_ns,
                    period_ns,
                    wcet_ns,
                    offset_ns,
                    split,
                });
            }
        }
        meta.extra = m;
        Ok(meta)
    }
}

/// The `split` of a task in the metadata: `[{"cpu", "budget_ns"}, …]`.
fn parts_from_json(v: &Value) -> Option<Vec<PartMeta>> {
    v.as_array()?
        .iter()
        .map(|p| {
            Some(PartMeta {
                cpu: u32::try_from(p.get("cpu")?.as_u64()?).ok()?,
                budget_ns: p.get("budget_ns")?.as_u64()?,
            })
        })
        .collect()
}

/// A whole trace in memory.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    /// The metadata.
    pub meta: Meta,
    /// The events, in file order.
    pub events: Vec<Event>,
}

/// Encodes one event as its 40-byte record.
pub fn encode(e: &Event) -> [u8; RECORD_SIZE] {
    let mut b = [0u8; RECORD_SIZE];
    b[0..8].copy_from_slice(&e.time.to_le_bytes());
    b[8..16].copy_from_slice(&e.seq.to_le_bytes());
    b[16..24].copy_from_slice(&e.arg.to_le_bytes());
    b[24..28].copy_from_slice(&e.task.to_le_bytes());
    b[28..32].copy_from_slice(&e.cpu.to_le_bytes());
    b[32..34].copy_from_slice(&(e.kind as u16).to_le_bytes());
    // 34..36 reserved, zero.
    b[36..40].copy_from_slice(&e.strand.to_le_bytes());
    b
}

/// Decodes a 40-byte record (`index` only labels the error).
pub fn decode(b: &[u8; RECORD_SIZE], index: u64) -> Result<Event, TraceError> {
    let u64_at = |o: usize| {
        let mut x = [0u8; 8];
        x.copy_from_slice(&b[o..o + 8]);
        u64::from_le_bytes(x)
    };
    let u32_at = |o: usize| {
        let mut x = [0u8; 4];
        x.copy_from_slice(&b[o..o + 4]);
        u32::from_le_bytes(x)
    };
    let code = u16::from_le_bytes([b[32], b[33]]);
    let kind = Kind::from_code(code).ok_or(TraceError::UnknownKind { index, code })?;
    Ok(Event {
        time: u64_at(0),
        seq: u64_at(8),
        arg: u64_at(16),
        task: u32_at(24),
        cpu: u32_at(28),
        kind,
        strand: u32_at(36),
    })
}

/// Streaming writer: writes the header on creation, then one record per [`push`](Self::push).
pub struct TraceWriter<W: Write> {
    w: W,
    announced: u64,
    written: u64,
    header_len: u64,
}

impl<W: Write> TraceWriter<W> {
    /// Writes the header and metadata. `count` = the number of events that will follow, or
    /// `None` for "until end of file" (count 0 in the header; crash-safe appending).
    pub fn new(mut w: W, meta: &Meta, count: Option<u64>) -> Result<Self, TraceError> {
        let blob = serde_json::to_vec(&meta.to_json())
            .map_err(|e| TraceError::BadMetadata(e.to_string()))?;
        let len = u32::try_from(blob.len())
            .ok()
            .filter(|l| *l <= MAX_META_LEN)
            .ok_or(TraceError::MetadataTooLarge(u32::MAX))?;
        let announced = count.unwrap_or(0);
        let mut h = [0u8; HEADER_SIZE];
        h[0..8].copy_from_slice(&MAGIC);
        h[8..12].copy_from_slice(&VERSION.to_le_bytes());
        // 12..16 flags = 0
        h[16..24].copy_from_slice(&announced.to_le_bytes());
        h[24..28].copy_from_slice(&(RECORD_SIZE as u32).to_le_bytes());
        h[28..32].copy_from_slice(&len.to_le_bytes());
        w.write_all(&h)?;
        w.write_all(&blob)?;
        let pad = padding(len);
        w.write_all(&[0u8; 8][..pad])?;
        Ok(TraceWriter {
            w,
            announced,
            written: 0,
            header_len: HEADER_SIZE as u64 + u64::from(len) + pad as u64,
        })
    }

    /// Appends one record.
    pub fn push(&mut self, e: &Event) -> Result<(), TraceError> {
        self.w.write_all(&encode(e))?;
        self.written += 1;
        Ok(())
    }

    /// Records written so far.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Size of header plus padded metadata, i.e. the file offset of record 0.
    pub fn records_offset(&self) -> u64 {
        self.header_len
    }

    /// Flushes and returns the inner writer; checks the announced count, if any.
    pub fn finish(mut self) -> Result<W, TraceError> {
        self.w.flush()?;
        if self.announced != 0 && self.announced != self.written {
            return Err(TraceError::CountMismatch {
                announced: self.announced,
                written: self.written,
            });
        }
        Ok(self.w)
    }
}

impl<W: Write + Seek> TraceWriter<W> {
    /// Like [`finish`](Self::finish), but first patches the record count into the header
    /// (for a writer created with `count = None` that ends cleanly). Leaves the position at
    /// the end of the file. The stream must start at the trace header.
    pub fn finish_with_count(mut self) -> Result<W, TraceError> {
        self.w.flush()?;
        let end = self.w.stream_position()?;
        let start = end.saturating_sub(self.header_len + self.written * RECORD_SIZE as u64);
        self.w.seek(SeekFrom::Start(start + 16))?;
        self.w.write_all(&self.written.to_le_bytes())?;
        self.w.seek(SeekFrom::Start(end))?;
        self.announced = self.written;
        self.finish()
    }
}

/// Streaming reader: reads the header on creation, then yields events one by one.
pub struct TraceReader<R: Read> {
    r: R,
    meta: Meta,
    /// Records announced (0 = until EOF).
    count: u64,
    index: u64,
    partial_tail_ok: bool,
    done: bool,
}

impl<R: Read> TraceReader<R> {
    /// Reads and checks the header and the metadata.
    pub fn new(mut r: R) -> Result<Self, TraceError> {
        let mut h = [0u8; HEADER_SIZE];
        match read_full(&mut r, &mut h)? {
            n if n >= 8 && h[0..8] != MAGIC => return Err(TraceError::BadMagic),
            n if n < 8 && h[..n] != MAGIC[..n] => return Err(TraceError::BadMagic),
            n if n < HEADER_SIZE => return Err(TraceError::Truncated("header")),
            _ => {}
        }
        let u32_at = |o: usize| u32::from_le_bytes([h[o], h[o + 1], h[o + 2], h[o + 3]]);
        let version = u32_at(8);
        if version != VERSION {
            return Err(TraceError::UnsupportedVersion(version));
        }
        let flags = u32_at(12);
        if flags & REQUIRED_FLAGS_MASK != 0 {
            return Err(TraceError::UnsupportedFlags(flags));
        }
        let mut c = [0u8; 8];
        c.copy_from_slice(&h[16..24]);
        let count = u64::from_le_bytes(c);
        let rsize = u32_at(24);
        if rsize as usize != RECORD_SIZE {
            return Err(TraceError::BadRecordSize(rsize));
        }
        let len = u32_at(28);
        if len > MAX_META_LEN {
            return Err(TraceError::MetadataTooLarge(len));
        }
        let total = u64::from(len) + padding(len) as u64;
        let mut blob = Vec::new();
        (&mut r).take(total).read_to_end(&mut blob)?;
        if blob.len() as u64 != total {
            return Err(TraceError::Truncated("metadata"));
        }
        blob.truncate(len as usize);
        let meta = if blob.is_empty() {
            Meta::default()
        } else {
            let v: Value = serde_json::from_slice(&blob)
                .map_err(|e| TraceError::BadMetadata(e.to_string()))?;
            Meta::from_json(v)?
        };
        Ok(TraceReader {
            r,
            meta,
            count,
            index: 0,
            partial_tail_ok: false,
            done: false,
        })
    }

    /// Accept (and drop) a partial last record in a count-0 file instead of reporting
    /// [`TraceError::Truncated`]: the recovery mode for traces of crashed runs.
    pub fn allow_partial_tail(mut self, yes: bool) -> Self {
        self.partial_tail_ok = yes;
        self
    }

    /// The metadata.
    pub fn meta(&self) -> &Meta {
        &self.meta
    }

    /// Records announced by the header (`None` = until end of file).
    pub fn announced(&self) -> Option<u64> {
        (self.count != 0).then_some(self.count)
    }

    /// The next event, `Ok(None)` at the end.
    pub fn next_event(&mut self) -> Result<Option<Event>, TraceError> {
        if self.done {
            return Ok(None);
        }
        let mut b = [0u8; RECORD_SIZE];
        if self.count != 0 && self.index == self.count {
            self.done = true;
            let mut one = [0u8; 1];
            return match read_full(&mut self.r, &mut one)? {
                0 => Ok(None),
                _ => Err(TraceError::TrailingBytes(self.count)),
            };
        }
        let n = read_full(&mut self.r, &mut b)?;
        if n == 0 && self.count == 0 {
            self.done = true;
            return Ok(None);
        }
        if n < RECORD_SIZE {
            self.done = true;
            if self.count == 0 && self.partial_tail_ok {
                return Ok(None);
            }
            return Err(TraceError::Truncated("records"));
        }
        let e = decode(&b, self.index)?;
        self.index += 1;
        Ok(Some(e))
    }

    /// Reads all remaining events.
    pub fn read_all(mut self) -> Result<Trace, TraceError> {
        // Never trust the header's count for the allocation.
        let mut events = Vec::with_capacity(self.count.min(1 << 16) as usize);
        while let Some(e) = self.next_event()? {
            events.push(e);
        }
        Ok(Trace {
            meta: self.meta,
            events,
        })
    }
}

/// Writes a whole trace (with its exact record count) to `w`.
pub fn write<W: Write>(w: W, meta: &Meta, events: &[Event]) -> Result<W, TraceError> {
    let mut tw = TraceWriter::new(w, meta, Some(events.len() as u64))?;
    for e in events {
        tw.push(e)?;
    }
    tw.finish()
}

/// Writes a whole trace to the file at `path` (created or truncated).
pub fn write_file(path: &Path, meta: &Meta, events: &[Event]) -> Result<(), TraceError> {
    let w = write(BufWriter::new(File::create(path)?), meta, events)?;
    w.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    Ok(())
}

/// Reads a whole trace from `r`.
pub fn read<R: Read>(r: R) -> Result<Trace, TraceError> {
    TraceReader::new(r)?.read_all()
}

/// Reads a whole trace from the file at `path`.
pub fn read_file(path: &Path) -> Result<Trace, TraceError> {
    read(BufReader::new(File::open(path)?))
}

/// Zero bytes after a metadata blob of `len` bytes, to align records to 8 bytes.
fn padding(len: u32) -> usize {
    ((8 - len % 8) % 8) as usize
}

/// Reads until `buf` is full or EOF; returns the bytes read.
fn read_full<R: Read>(r: &mut R, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests;

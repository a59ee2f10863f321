//! The fast path of reading a JSON task file: a hand-written scanner for the task-file schema
//! that goes from bytes straight to [`Task`]s, with no intermediate value and no allocation but
//! the tasks themselves and their names, and none at all when it is given the tasks of a
//! previous file to fill again ([`super::Reader`]).
//!
//! `schedlab analyze` reads one file per task set, so reading must cost little next to a
//! schedulability test (a few hundred instructions per task); a generic JSON value, or even
//! serde's typed visitors, cost several times that (docs/benchmarks.md, "File path").
//!
//! The scanner only ever *accepts*: it reads the common, well-formed file and declines anything
//! else (an unknown or repeated key, an escaped string, a value of an unexpected kind, a bad
//! time, a task set that fails validation, malformed JSON, …) without saying why.
//! [`super::parse_str`] then reads the text through the precise validator
//! ([`super::precise`]), which owns every message. Hence the two cannot disagree on a message,
//! and they must agree on every file this one accepts: the same conversions as the precise path
//! (integers as nanoseconds, strings through [`parse_ns`] and [`parse_bytes`], small integers
//! as `serde_json::Value::as_u64`, utilities as `as_f64`); the tests compare them on generated
//! files.

use crate::file::TaskFile;
use crate::parallel::{
    ParallelRegion, ParallelStructure, MAX_PARALLEL_REGIONS, MAX_PARALLEL_THREADS,
    MAX_REGION_THREADS,
};
use crate::platform::Platform;
use crate::size::parse_bytes;
use crate::task::{SplitPart, Task};
use crate::taskset::TaskSet;
use crate::time::{parse_ns, Duration};

/// Reads a JSON task file; `None` when the scanner declines (see the module doc). The tasks of
/// `spare` (a previous file's, or none) are overwritten in place, so that their names' buffers
/// and the list itself are reused.
pub(super) fn parse_json(text: &str, spare: Vec<Task>) -> Option<TaskFile> {
    let mut cursor = Cursor::new(text);
    let (tasks, platform) = cursor.file(spare)?;
    let tasks = TaskSet::new(tasks).ok()?;
    if let Some(p) = &platform {
        p.validate().ok()?;
    }
    Some(TaskFile { tasks, platform })
}

/// A position in the text. Every method returns `None` to decline.
struct Cursor<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
}

/// One bit per key of a map, to decline a repeated key (the precise path keeps the last one).
#[derive(Default)]
struct Seen(u32);

impl Seen {
    fn first(&mut self, bit: u32) -> Option<()> {
        if self.0 & bit != 0 {
            return None;
        }
        self.0 |= bit;
        Some(())
    }
}

impl<'a> Cursor<'a> {
    fn new(text: &'a str) -> Cursor<'a> {
        Cursor {
            text,
            bytes: text.as_bytes(),
            pos: 0,
        }
    }

    /// The bytes not yet read.
    fn rest(&self) -> &'a [u8] {
        self.bytes.get(self.pos..).unwrap_or_default()
    }

    /// The next byte that is not JSON whitespace, not consumed.
    #[inline]
    fn peek(&mut self) -> Option<u8> {
        loop {
            let b = *self.bytes.get(self.pos)?;
            // Every JSON whitespace byte is ≤ b' ': one comparison in the common case.
            if b > b' ' || !matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                return Some(b);
            }
            self.pos += 1;
            self.skip_spaces();
        }
    }

    /// Skips a run of spaces (the indentation of pretty-printed files) eight bytes at a time.
    #[inline]
    fn skip_spaces(&mut self) {
        const SPACES: u64 = u64::from_le_bytes([b' '; 8]);
        while let Some(chunk) = self.bytes.get(self.pos..self.pos + 8) {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            // Zero bytes of `different` are spaces; the first nonzero one ends the run.
            let different = u64::from_le_bytes(word) ^ SPACES;
            if different != 0 {
                self.pos += different.trailing_zeros() as usize / 8;
                return;
            }
            self.pos += 8;
        }
    }

    /// Consumes `expected` (after whitespace).
    #[inline]
    fn eat(&mut self, expected: u8) -> Option<()> {
        (self.peek()? == expected).then(|| self.pos += 1)
    }

    /// After an element of an object or list: `true` at a `,`, `false` at `close` (consumed).
    #[inline]
    fn more(&mut self, close: u8) -> Option<bool> {
        let b = self.peek()?;
        self.pos += 1;
        match b {
            b',' => Some(true),
            _ if b == close => Some(false),
            _ => None,
        }
    }

    /// Walks the members of an object, calling `member` with each key (the cursor then at its
    /// value, past the `:`); an empty object is fine.
    fn object(&mut self, mut member: impl FnMut(&mut Self, &'a [u8]) -> Option<()>) -> Option<()> {
        self.eat(b'{')?;
        if self.peek()? == b'}' {
            self.pos += 1;
            return Some(());
        }
        loop {
            let key = self.key()?;
            self.eat(b':')?;
            member(self, key)?;
            if !self.more(b'}')? {
                return Some(());
            }
        }
    }

    /// Walks the elements of a list, calling `element` at each.
    fn list(&mut self, mut element: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.eat(b'[')?;
        if self.peek()? == b']' {
            self.pos += 1;
            return Some(());
        }
        loop {
            element(self)?;
            if !self.more(b']')? {
                return Some(());
            }
        }
    }

    /// A string without escapes (an escape or a control character declines). The quotes are
    /// ASCII, so the contents is a slice of the text on character boundaries.
    #[inline]
    fn str(&mut self) -> Option<&'a str> {
        if self.peek()? != b'"' {
            return None;
        }
        let start = self.pos + 1;
        let mut end = start;
        // Eight bytes at a time while eight remain, then byte by byte.
        while let Some(word) = self.word_at(end) {
            match first_special_byte(word) {
                Some(i) => {
                    end += i;
                    break;
                }
                None => end += 8,
            }
        }
        loop {
            match *self.bytes.get(end)? {
                b'"' => break,
                b'\\' | 0..0x20 => return None,
                _ => end += 1,
            }
        }
        self.pos = end + 1;
        self.text.get(start..end)
    }

    /// A key: as [`Cursor::str`], as bytes, with a shortcut for keys of up to seven bytes
    /// (every key of the schema but three): one word read, no byte loop.
    #[inline]
    fn key(&mut self) -> Option<&'a [u8]> {
        if self.peek()? != b'"' {
            return None;
        }
        let start = self.pos + 1;
        if let Some(len) = self.word_at(start).and_then(first_special_byte) {
            if self.bytes.get(start + len) == Some(&b'"') {
                self.pos = start + len + 1;
                return self.bytes.get(start..start + len);
            }
        }
        self.str().map(str::as_bytes)
    }

    /// The eight bytes at `at` as a little-endian word, if there are eight.
    #[inline]
    fn word_at(&self, at: usize) -> Option<u64> {
        let chunk: [u8; 8] = self.bytes.get(at..at + 8)?.try_into().ok()?;
        Some(u64::from_le_bytes(chunk))
    }

    /// A JSON integer `≥ 0` that fits in 64 bits: `0`, or digits without a leading zero, not
    /// followed by a fraction or an exponent (the precise path reads those as floats).
    #[inline]
    fn uint(&mut self) -> Option<u64> {
        let first = self.peek()?;
        if !first.is_ascii_digit() {
            return None;
        }
        self.pos += 1;
        let mut n = u64::from(first - b'0');
        while let Some(&b) = self.bytes.get(self.pos) {
            if !b.is_ascii_digit() {
                break;
            }
            if first == b'0' {
                return None;
            }
            n = n.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
            self.pos += 1;
        }
        match self.bytes.get(self.pos) {
            Some(b'.' | b'e' | b'E') => None,
            _ => Some(n),
        }
    }

    /// An integer from 0 to 2^32-1.
    #[inline]
    fn small_int(&mut self) -> Option<u32> {
        u32::try_from(self.uint()?).ok()
    }

    /// A time: an integer number of nanoseconds or a string with a unit.
    #[inline]
    fn time(&mut self) -> Option<Duration> {
        let ns = match self.peek()? {
            b'"' => match self.plain_time() {
                Some(ns) => ns,
                None => parse_ns(self.str()?).ok()?,
            },
            _ => self.uint()?,
        };
        Some(Duration::from_ns(ns))
    }

    /// At a string: the common form of a time, digits then a unit (`"393ns"`, `"10ms"`,
    /// `"1500"`), read in one pass. `None` for any other form, or on overflow, leaving the
    /// cursor where it was: [`parse_ns`] then reads the string (and gives the message). Where
    /// this answers, it answers as [`parse_ns`] does (tested).
    #[inline]
    fn plain_time(&mut self) -> Option<u64> {
        let start = self.pos + 1;
        let mut end = start;
        let mut n: u64 = 0;
        while let Some(&b) = self.bytes.get(end).filter(|b| b.is_ascii_digit()) {
            n = n.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
            end += 1;
        }
        if end == start {
            return None;
        }
        // Units are at most three bytes (`µs` is two characters, three bytes).
        let unit_len = self
            .bytes
            .get(end..)?
            .iter()
            .take(4)
            .position(|&b| b == b'"')?;
        let scale: u64 = match self.bytes.get(end..end + unit_len)? {
            b"" | b"ns" => 1,
            // `µs` with the micro sign (U+00B5) or the Greek mu (U+03BC), in UTF-8.
            b"us" | [0xC2, 0xB5, b's'] | [0xCE, 0xBC, b's'] => 1_000,
            b"ms" => 1_000_000,
            b"s" => 1_000_000_000,
            _ => return None,
        };
        let ns = n.checked_mul(scale)?;
        self.pos = end + unit_len + 1;
        Some(ns)
    }

    /// A finite number ≥ 0, converted by serde_json itself so that it equals the precise path's
    /// `as_f64` bit for bit.
    fn utility(&mut self) -> Option<f64> {
        self.peek()?;
        let rest = self.rest();
        let len = rest
            .iter()
            .take_while(|&&b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E'))
            .count();
        let token = self.text.get(self.pos..self.pos + len)?;
        self.pos += len;
        let value: f64 = serde_json::from_str(token).ok()?;
        (value.is_finite() && value >= 0.0).then_some(value)
    }

    /// `true` or `false`.
    fn boolean(&mut self) -> Option<bool> {
        self.peek()?;
        let rest = self.rest();
        let (value, len) = if rest.starts_with(b"true") {
            (true, 4)
        } else if rest.starts_with(b"false") {
            (false, 5)
        } else {
            return None;
        };
        // A literal ends at a delimiter (`truex` is malformed: declined).
        if rest
            .get(len)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
        {
            return None;
        }
        self.pos += len;
        Some(value)
    }

    /// A byte count: an integer or a size string.
    fn bytes_value(&mut self) -> Option<u64> {
        if self.peek()? == b'"' {
            parse_bytes(self.str()?).ok()
        } else {
            self.uint()
        }
    }

    /// The whole file: one object, then only whitespace.
    fn file(&mut self, spare: Vec<Task>) -> Option<(Vec<Task>, Option<Platform>)> {
        let mut seen = Seen::default();
        let mut spare = Some(spare);
        let mut tasks = None;
        let mut platform = None;
        self.object(|c, key| {
            match key {
                b"tasks" => {
                    seen.first(1)?;
                    tasks = Some(c.tasks(spare.take()?)?);
                }
                b"platform" => {
                    seen.first(2)?;
                    platform = Some(c.platform()?);
                }
                _ => return None,
            }
            Some(())
        })?;
        if self.peek().is_some() {
            return None;
        }
        Some((tasks?, platform))
    }

    /// The task list, into the slots of `tasks` (reused) and new ones past them.
    fn tasks(&mut self, mut tasks: Vec<Task>) -> Option<Vec<Task>> {
        if tasks.is_empty() {
            // Room for every task at once: each is an object, so the number of `{` bounds their
            // count; so does the text's length (a task takes at least 21 bytes), whatever the
            // text holds. Counting is cheap (vectorised) next to regrowing a list of 208-byte
            // tasks.
            let rest = self.rest();
            let braces = rest.iter().fold(0usize, |n, &b| n + usize::from(b == b'{'));
            tasks.reserve(braces.min(rest.len() / 21));
        }
        let mut count = 0;
        self.list(|c| {
            let name = match tasks.get_mut(count) {
                Some(slot) => reset(slot),
                None => {
                    tasks.push(Task::new_unchecked(
                        Duration::ZERO,
                        Duration::ZERO,
                        Duration::ZERO,
                    ));
                    None
                }
            };
            count += 1;
            c.task(tasks.get_mut(count - 1)?, name)
        })?;
        tasks.truncate(count);
        Some(tasks)
    }

    /// One task, into `task` (fresh from `Task::new_unchecked`), its name into `name_buffer`
    /// if there is one (a previous name's); validated later, with the whole set.
    fn task(&mut self, task: &mut Task, name_buffer: Option<String>) -> Option<()> {
        let mut name_buffer = name_buffer;
        let mut seen = Seen::default();
        let mut deadline = None;
        self.object(|c, key| {
            let field = TaskField::of(key)?;
            seen.first(1 << field as u32)?;
            match field {
                TaskField::Name => {
                    let name = c.str()?;
                    task.name = Some(match name_buffer.take() {
                        Some(mut buffer) => {
                            buffer.clear();
                            buffer.push_str(name);
                            buffer
                        }
                        None => name.to_owned(),
                    });
                }
                TaskField::Wcet => task.wcet = c.time()?,
                TaskField::Period => task.period = c.time()?,
                TaskField::Deadline => deadline = Some(c.time()?),
                TaskField::Offset => task.offset = c.time()?,
                TaskField::Priority => task.priority = Some(c.small_int()?),
                TaskField::Utility => task.utility = Some(c.utility()?),
                TaskField::Wss => task.wss = Some(c.bytes_value()?),
                TaskField::Cpu => task.cpu = Some(c.small_int()?),
                TaskField::Cluster => task.cluster = Some(c.small_int()?),
                TaskField::Affinity => {
                    let mut cpus = Vec::new();
                    c.list(|c| {
                        cpus.push(c.small_int()?);
                        Some(())
                    })?;
                    task.affinity = Some(cpus);
                }
                TaskField::Split => task.split = Some(c.split()?),
                TaskField::Abortable => task.abortable = c.boolean()?,
                TaskField::AbortCost => task.abort_cost = c.time()?,
                // Named resources are numbered across the set, and TUFs have three shapes:
                // the precise path reads these (utility-accrual files are few and small).
                // Sets with groups are read by the precise path alone (files/groups.rs).
                TaskField::Tuf | TaskField::CriticalSections | TaskField::Group => return None,
                TaskField::Parallel => task.parallel = Some(c.parallel()?),
            }
            Some(())
        })?;
        // Both required (a zero would fail validation anyway, but the message is the precise
        // path's: "missing field"), but a parallel task's WCET, which is then its work.
        (seen.0 & TaskField::Period.bit() != 0).then_some(())?;
        if seen.0 & TaskField::Wcet.bit() == 0 {
            task.wcet = task.parallel.as_ref()?.work();
        }
        task.deadline = deadline.unwrap_or(task.period);
        Some(())
    }

    /// The regions of `parallel`: lists of thread lengths, within the size bounds (checked
    /// as the elements come, before the lists grow past them) and the structure's
    /// invariants; checked against the task later, with the task.
    fn parallel(&mut self) -> Option<ParallelStructure> {
        let mut regions = Vec::new();
        let mut total = 0usize;
        self.list(|c| {
            (regions.len() < MAX_PARALLEL_REGIONS).then_some(())?;
            let mut threads = Vec::new();
            c.list(|c| {
                (threads.len() < MAX_REGION_THREADS && total < MAX_PARALLEL_THREADS)
                    .then_some(())?;
                threads.push(c.time()?);
                total += 1;
                Some(())
            })?;
            regions.push(ParallelRegion::new(threads));
            Some(())
        })?;
        ParallelStructure::new(regions).ok()
    }

    /// The parts of `split`: a list of `{"cpu", "budget"}` objects (checked with the task).
    fn split(&mut self) -> Option<Vec<SplitPart>> {
        let mut parts = Vec::new();
        self.list(|c| {
            let mut seen = Seen::default();
            let (mut cpu, mut budget) = (None, None);
            c.object(|c, key| {
                match key {
                    b"cpu" => {
                        seen.first(1)?;
                        cpu = Some(c.small_int()?);
                    }
                    b"budget" => {
                        seen.first(2)?;
                        budget = Some(c.time()?);
                    }
                    _ => return None,
                }
                Some(())
            })?;
            parts.push(SplitPart {
                cpu: cpu?,
                budget: budget?,
            });
            Some(())
        })?;
        Some(parts)
    }

    /// The `platform` object, not yet validated.
    fn platform(&mut self) -> Option<Platform> {
        let mut seen = Seen::default();
        let (mut cpus, mut cluster_size) = (None, None);
        self.object(|c, key| {
            match key {
                b"cpus" => {
                    seen.first(1)?;
                    cpus = Some(c.small_int()?);
                }
                b"cluster_size" => {
                    seen.first(2)?;
                    cluster_size = Some(c.small_int()?);
                }
                _ => return None,
            }
            Some(())
        })?;
        Some(Platform {
            cpus: cpus?,
            cluster_size,
        })
    }
}

/// The fields of a task, as keys in files ([`super::TASK_FIELDS`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TaskField {
    Name,
    Wcet,
    Period,
    Deadline,
    Offset,
    Priority,
    Utility,
    Wss,
    Cpu,
    Cluster,
    Affinity,
    Split,
    Tuf,
    Abortable,
    AbortCost,
    CriticalSections,
    Parallel,
    Group,
}

impl TaskField {
    /// The field a key names. By length first, then as a fixed-size array, so that a key costs
    /// one or two integer comparisons rather than a string comparison per known field.
    fn of(key: &[u8]) -> Option<TaskField> {
        use TaskField::*;
        match key.len() {
            3 => match <[u8; 3]>::try_from(key).ok()? {
                [b'c', b'p', b'u'] => Some(Cpu),
                [b'w', b's', b's'] => Some(Wss),
                [b't', b'u', b'f'] => Some(Tuf),
                _ => None,
            },
            4 => match &<[u8; 4]>::try_from(key).ok()? {
                b"name" => Some(Name),
                b"wcet" => Some(Wcet),
                _ => None,
            },
            5 => match &<[u8; 5]>::try_from(key).ok()? {
                b"split" => Some(Split),
                b"group" => Some(Group),
                _ => None,
            },
            6 => match &<[u8; 6]>::try_from(key).ok()? {
                b"period" => Some(Period),
                b"offset" => Some(Offset),
                _ => None,
            },
            7 => match &<[u8; 7]>::try_from(key).ok()? {
                b"utility" => Some(Utility),
                b"cluster" => Some(Cluster),
                _ => None,
            },
            8 => match &<[u8; 8]>::try_from(key).ok()? {
                b"deadline" => Some(Deadline),
                b"priority" => Some(Priority),
                b"affinity" => Some(Affinity),
                b"parallel" => Some(Parallel),
                _ => None,
            },
            9 if key == b"abortable" => Some(Abortable),
            10 if key == b"abort_cost" => Some(AbortCost),
            17 if key == b"critical_sections" => Some(CriticalSections),
            _ => None,
        }
    }

    fn bit(self) -> u32 {
        1 << self as u32
    }
}

/// The index of the first byte of `word` (little-endian) that ends or breaks a plain string —
/// `"`, `\\` or a control character below 0x20 — if any. Bit tricks on the whole word (the
/// classic "has zero byte" test: `(x - 0x01…) & !x & 0x80…` flags the lowest zero byte
/// exactly), so a short key costs a handful of instructions, not a loop.
#[inline]
fn first_special_byte(word: u64) -> Option<usize> {
    const ONES: u64 = u64::from_le_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);
    let zero_byte = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    let quote = zero_byte(word ^ (ONES * u64::from(b'"')));
    let backslash = zero_byte(word ^ (ONES * u64::from(b'\\')));
    // Bytes below 0x20: subtracting 0x20 borrows into their high bit (ASCII only: `!word`).
    let control = word.wrapping_sub(ONES * 0x20) & !word & HIGHS;
    let special = quote | backslash | control;
    (special != 0).then(|| special.trailing_zeros() as usize / 8)
}

/// Makes a previous file's task as fresh as `Task::new_unchecked(0, 0, 0)`, keeping its
/// name's buffer, which it hands back. Field by field (cheaper than dropping and rebuilding
/// a 208-byte task), through an exhaustive pattern so that a new field of `Task` cannot be
/// forgotten here.
fn reset(task: &mut Task) -> Option<String> {
    let Task {
        name,
        wcet,
        deadline,
        period,
        offset,
        priority,
        utility,
        wss,
        cpu,
        cluster,
        split,
        affinity,
        parallel,
        group,
        critical_sections,
        tuf,
        abortable,
        abort_cost,
    } = task;
    (*wcet, *deadline, *period, *offset) = (
        Duration::ZERO,
        Duration::ZERO,
        Duration::ZERO,
        Duration::ZERO,
    );
    (*priority, *cpu, *cluster) = (None, None, None);
    (*utility, *wss) = (None, None);
    if affinity.is_some() {
        *affinity = None;
    }
    if split.is_some() {
        *split = None;
    }
    if parallel.is_some() {
        *parallel = None;
    }
    if group.is_some() {
        *group = None;
    }
    critical_sections.clear();
    if tuf.is_some() {
        *tuf = None;
    }
    (*abortable, *abort_cost) = (true, Duration::ZERO);
    name.take()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn names_the_same_task_fields_as_the_precise_path() {
        for (i, key) in super::super::TASK_FIELDS.iter().enumerate() {
            let field = TaskField::of(key.as_bytes()).unwrap();
            assert_eq!(field as usize, i, "{key}");
        }
        for unknown in ["", "nam", "names", "perod", "Wcet", "cpus", "deadlines"] {
            assert_eq!(TaskField::of(unknown.as_bytes()), None, "{unknown}");
        }
    }

    #[test]
    fn knows_every_field_of_the_schema() {
        // Each known field is read (one file with all of them, in two tasks: `cpu` and
        // `split` exclude each other); an unknown one declines.
        let member = |f: &str| {
            let value = match f {
                "name" => "\"a\"",
                "affinity" => "[0, 1]",
                "split" => r#"[{"cpu": 0, "budget": "1ms"}, {"budget": "1ms", "cpu": 1}]"#,
                "wcet" | "period" | "deadline" | "offset" => "\"2ms\"",
                "abortable" => "true",
                "abort_cost" => "\"1us\"",
                // Its work is the wcet above, 2ms.
                "parallel" => r#"[["1ms"], ["500us", 500000]]"#,
                _ => "1",
            };
            format!("\"{f}\": {value}")
        };
        let fields = super::super::TASK_FIELDS;
        // `tuf`, `critical_sections` and `group` are left to the precise path (declined,
        // below).
        let declined = ["tuf", "critical_sections", "group"];
        let mut whole: Vec<String> = fields
            .iter()
            .filter(|f| **f != "split" && !declined.contains(f))
            .map(|f| member(f))
            .collect();
        let split: Vec<String> = ["wcet", "period", "split"]
            .iter()
            .map(|f| member(f))
            .collect();
        let text = format!(
            r#"{{"tasks": [{{{}}}, {{{}}}], "platform": {{"cpus": 2, "cluster_size": 1}}}}"#,
            whole.join(", "),
            split.join(", ")
        );
        let file = parse_json(&text, Vec::new());
        assert!(file.is_some(), "{text}");
        assert_eq!(
            file.and_then(|f| f.tasks[1].split.clone()).map(|p| p.len()),
            Some(2)
        );
        for field in declined {
            let text = format!(r#"{{"tasks": [{{{}, "{field}": []}}]}}"#, whole.join(", "));
            assert!(parse_json(&text, Vec::new()).is_none(), "{text}");
        }
        whole.push("\"colour\": 1".into());
        let text = format!(r#"{{"tasks": [{{{}}}]}}"#, whole.join(", "));
        assert!(parse_json(&text, Vec::new()).is_none());
    }

    #[test]
    fn integers_are_json_integers() {
        let c = |s: &str| Cursor::new(s).uint();
        assert_eq!(c("0"), Some(0));
        assert_eq!(c(" 18446744073709551615,"), Some(u64::MAX));
        for declined in [
            "18446744073709551616",
            "01",
            "-0",
            "-1",
            "1.0",
            "1e3",
            "",
            "x",
        ] {
            assert_eq!(c(declined), None, "{declined}");
        }
    }

    #[test]
    fn finds_the_first_special_byte_of_a_word() {
        let word = |s: &[u8; 8]| u64::from_le_bytes(*s);
        assert_eq!(first_special_byte(word(b"name\": \"")), Some(4));
        assert_eq!(first_special_byte(word(b"abcdefgh")), None);
        assert_eq!(first_special_byte(word(b"ab\\cd\"ef")), Some(2));
        assert_eq!(first_special_byte(word(b"abc\ndef\"")), Some(3));
        assert_eq!(
            first_special_byte(word(&[0xC2, 0xB5, b's', b'"', 0, 0, 0, 0])),
            Some(3)
        );
        assert_eq!(
            first_special_byte(word(&[0xFF, 0x80, 0x9F, b' ', b'~', 0x7F, b'!', 0x1F])),
            Some(7)
        );
    }

    proptest! {
        #[test]
        fn keys_read_as_strings(body in "[ -~\u{80}-\u{10FFFF}]{0,12}", tail in "\"?[a-z ]{0,9}") {
            let text = format!("\"{body}{tail}");
            let (mut a, mut b) = (Cursor::new(&text), Cursor::new(&text));
            prop_assert_eq!(a.key(), b.str().map(str::as_bytes));
            prop_assert_eq!(a.pos, b.pos);
        }

        #[test]
        fn strings_read_alike_a_word_or_a_byte_at_a_time(body in "[ -~\\\\\\n\u{80}-\u{10FFFF}]{0,20}", tail in "\"?[a-z ]{0,9}") {
            let text = format!("\"{body}{tail}");
            let expected = {
                let end = text.bytes().skip(1).position(|b| b == b'"' || b == b'\\' || b < 0x20);
                end.filter(|&e| text.as_bytes()[1 + e] == b'"').map(|e| &text[1..1 + e])
            };
            prop_assert_eq!(Cursor::new(&text).str(), expected);
        }
    }

    #[test]
    fn reused_tasks_are_as_fresh_as_new_ones() {
        let mut task = Task::new_unchecked(
            Duration::from_ns(1),
            Duration::from_ns(2),
            Duration::from_ns(3),
        )
        .named("x");
        task.offset = Duration::from_ns(4);
        (task.priority, task.utility, task.wss) = (Some(1), Some(2.0), Some(3));
        (task.cpu, task.cluster, task.affinity) = (Some(4), Some(5), Some(vec![6]));
        task.split = Some(vec![SplitPart {
            cpu: 0,
            budget: Duration::from_ns(1),
        }]);
        task.parallel =
            Some(ParallelStructure::from_threads(vec![vec![Duration::from_ns(1)]; 2]).unwrap());
        task.critical_sections
            .push(crate::extensions::CriticalSection {
                resource: 1,
                start: Duration::ZERO,
                length: Duration::from_ns(1),
            });
        assert_eq!(reset(&mut task).as_deref(), Some("x"));
        assert_eq!(
            task,
            Task::new_unchecked(Duration::ZERO, Duration::ZERO, Duration::ZERO)
        );
    }

    proptest! {
        #[test]
        fn plain_times_read_as_parse_ns_reads_them(text in "[0-9]{0,22}(ns|us|µs|μs|ms|s|m|)") {
            let quoted = format!("\"{text}\"");
            let mut cursor = Cursor::new(&quoted);
            if let Some(ns) = cursor.plain_time() {
                prop_assert_eq!(parse_ns(&text), Ok(ns));
                prop_assert_eq!(cursor.pos, quoted.len());
            } else {
                // Declined only for no digits, `m` or overflow, which parse_ns rejects too.
                prop_assert!(parse_ns(&text).is_err(), "{}", text);
                prop_assert_eq!(cursor.pos, 0);
            }
        }
    }
}

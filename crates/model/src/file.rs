//! Task-set files in JSON and TOML, one schema (documented in `docs/task-files.md`):
//!
//! ```json
//! {"platform": {"cpus": 4},
//!  "tasks": [{"name": "t1", "wcet": "2ms", "period": "10ms", "deadline": "8ms"}]}
//! ```
//!
//! Both formats accept exactly the same files and give the same messages: a typed fast path
//! ([`typed`]) reads well-formed files without building an intermediate value, and the precise
//! validator ([`precise`]) reads whatever the fast path declines and says what is wrong. Unknown
//! fields are errors that name the likely intended field. Times are integers (ns) or strings
//! with a unit (see [`crate::time`]).

mod groups;
mod par;
mod precise;
mod scan;
mod typed;
mod ua;

pub use groups::groups_value;
pub use par::parallel_value;
pub use precise::{from_value, task_from_value, task_from_value_in};
pub use ua::{sections_value, tuf_value, Resources};

use crate::error::ModelError;
use crate::platform::Platform;
use crate::size::format_bytes;
use crate::task::Task;
use crate::taskset::TaskSet;
use crate::time::format_ns;
use serde_json::{Map, Value};
use std::path::Path;

/// File format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// JSON.
    Json,
    /// TOML.
    Toml,
}

impl Format {
    /// The format a path's extension names (`.json`, `.toml`), if any.
    pub fn from_path(path: &Path) -> Option<Format> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "json" => Some(Format::Json),
            "toml" => Some(Format::Toml),
            _ => None,
        }
    }
    /// Guesses from content: JSON starts with `{`.
    pub fn sniff(text: &str) -> Format {
        if text.trim_start().starts_with('{') {
            Format::Json
        } else {
            Format::Toml
        }
    }
}

/// The contents of a task-set file.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskFile {
    /// The tasks, validated.
    pub tasks: TaskSet,
    /// The platform, if the file gives one.
    pub platform: Option<Platform>,
}

/// Field names a task accepts.
pub const TASK_FIELDS: &[&str] = &[
    "name",
    "wcet",
    "period",
    "deadline",
    "offset",
    "priority",
    "utility",
    "wss",
    "cpu",
    "cluster",
    "affinity",
    "split",
    "tuf",
    "abortable",
    "abort_cost",
    "critical_sections",
    "parallel",
    "group",
];
/// Field names the top level accepts.
pub const TOP_FIELDS: &[&str] = &["tasks", "platform", "groups"];
/// Field names a reservation group accepts.
pub const GROUP_FIELDS: &[&str] = &["name", "budget", "period", "cpus", "parent"];
/// Field names `platform` accepts.
pub const PLATFORM_FIELDS: &[&str] = &["cpus", "cluster_size"];

/// Parses a task-set file from text.
///
/// Two paths, one behaviour: a fast path reads well-formed files straight into tasks (JSON: the
/// scanner of [`scan`]; TOML: the typed visitors of [`typed`]); anything it declines is read
/// again by the precise validator ([`precise`]), which gives the message naming the task and
/// the field.
pub fn parse_str(text: &str, format: Format) -> Result<TaskFile, ModelError> {
    parse_reusing(text, format, Vec::new())
}

/// [`parse_str`], filling the tasks of `spare` (a previous file's) in place.
fn parse_reusing(text: &str, format: Format, spare: Vec<Task>) -> Result<TaskFile, ModelError> {
    let fast = match format {
        Format::Json => scan::parse_json(text, spare),
        Format::Toml => typed::parse_toml(text),
    };
    match fast {
        Some(file) => Ok(file),
        None => precise::parse_str(text, format),
    }
}

/// Reads a task-set file; the format comes from the extension, else from the content.
pub fn load(path: &Path) -> Result<TaskFile, ModelError> {
    Reader::default().load(path)
}

/// Reads many task-set files one after another, reusing memory: the text buffer, and the tasks
/// of the file given back with [`Reader::recycle`] (their list and their names' buffers), so
/// that reading a file of the same size as the last allocates nothing. This is how
/// `schedlab analyze` reads thousands of files; each result is the same as [`load`]'s.
///
/// ```
/// # use schedlab_model::file::{Reader, Format};
/// let mut reader = Reader::default();
/// for text in [r#"{"tasks": [{"name": "a", "wcet": 1, "period": 4}]}"#,
///              r#"{"tasks": [{"name": "b", "wcet": 2, "period": 5}]}"#] {
///     let file = reader.parse(text, Format::Json).unwrap();
///     assert_eq!(file.tasks.len(), 1);
///     reader.recycle(file);
/// }
/// ```
#[derive(Debug, Default)]
pub struct Reader {
    text: String,
    spare: Vec<Task>,
}

impl Reader {
    /// Reads a task-set file; the format comes from the extension, else from the content.
    pub fn load(&mut self, path: &Path) -> Result<TaskFile, ModelError> {
        let io = |e: std::io::Error| ModelError::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        };
        self.text.clear();
        std::fs::File::open(path)
            .and_then(|mut f| std::io::Read::read_to_string(&mut f, &mut self.text))
            .map_err(io)?;
        let format = Format::from_path(path).unwrap_or_else(|| Format::sniff(&self.text));
        let spare = std::mem::take(&mut self.spare);
        parse_reusing(&self.text, format, spare).map_err(|e| match e {
            ModelError::Syntax(m) => ModelError::Syntax(format!("{}: {m}", path.display())),
            other => other,
        })
    }

    /// Parses a task-set file from text, as [`parse_str`].
    pub fn parse(&mut self, text: &str, format: Format) -> Result<TaskFile, ModelError> {
        parse_reusing(text, format, std::mem::take(&mut self.spare))
    }

    /// Gives back a file read earlier, whose memory the next file's tasks reuse.
    pub fn recycle(&mut self, file: TaskFile) {
        self.spare = file.tasks.into_tasks();
    }
}

/// The file's JSON value (times as exact strings in the most readable unit).
pub fn to_value(file: &TaskFile) -> Value {
    let name = |id: u32| file.tasks.resource_name(id);
    let tasks: Vec<Value> = file.tasks.iter().map(|t| task_to_value(t, name)).collect();
    let mut top = Map::new();
    if let Some(p) = &file.platform {
        let mut pm = Map::new();
        pm.insert("cpus".into(), Value::from(p.cpus));
        if let Some(k) = p.cluster_size {
            pm.insert("cluster_size".into(), Value::from(k));
        }
        top.insert("platform".into(), Value::Object(pm));
    }
    if !file.tasks.groups().is_empty() {
        top.insert(
            "groups".into(),
            groups::groups_value(file.tasks.groups(), |d| Value::from(format_ns(d.as_ns()))),
        );
    }
    top.insert("tasks".into(), Value::Array(tasks));
    Value::Object(top)
}

fn task_to_value(t: &Task, resource_name: impl Fn(u32) -> String) -> Value {
    let mut m = Map::new();
    if let Some(n) = &t.name {
        m.insert("name".into(), Value::from(n.clone()));
    }
    m.insert("wcet".into(), Value::from(format_ns(t.wcet.as_ns())));
    m.insert("period".into(), Value::from(format_ns(t.period.as_ns())));
    if t.deadline != t.period {
        m.insert(
            "deadline".into(),
            Value::from(format_ns(t.deadline.as_ns())),
        );
    }
    if !t.offset.is_zero() {
        m.insert("offset".into(), Value::from(format_ns(t.offset.as_ns())));
    }
    if let Some(p) = t.priority {
        m.insert("priority".into(), Value::from(p));
    }
    if let Some(u) = t.utility {
        m.insert("utility".into(), Value::from(u));
    }
    if let Some(w) = t.wss {
        m.insert("wss".into(), Value::from(format_bytes(w)));
    }
    if let Some(c) = t.cpu {
        m.insert("cpu".into(), Value::from(c));
    }
    if let Some(c) = t.cluster {
        m.insert("cluster".into(), Value::from(c));
    }
    if let Some(a) = &t.affinity {
        m.insert("affinity".into(), Value::from(a.clone()));
    }
    if let Some(parts) = &t.split {
        let parts = parts
            .iter()
            .map(|p| {
                let mut part = Map::new();
                part.insert("cpu".into(), Value::from(p.cpu));
                part.insert("budget".into(), Value::from(format_ns(p.budget.as_ns())));
                Value::Object(part)
            })
            .collect();
        m.insert("split".into(), Value::Array(parts));
    }
    ua::write_fields(t, &mut m, resource_name);
    if let Some(p) = &t.parallel {
        let regions = parallel_value(p, |d| Value::from(format_ns(d.as_ns())));
        m.insert("parallel".into(), regions);
    }
    if let Some(g) = &t.group {
        m.insert("group".into(), Value::from(g.clone()));
    }
    Value::Object(m)
}

/// Writes the file as text in `format`.
pub fn to_string(file: &TaskFile, format: Format) -> Result<String, ModelError> {
    let value = to_value(file);
    match format {
        Format::Json => serde_json::to_string_pretty(&value)
            .map(|s| s + "\n")
            .map_err(|e| ModelError::Syntax(e.to_string())),
        Format::Toml => toml::to_string(&value).map_err(|e| ModelError::Syntax(e.to_string())),
    }
}

/// Writes the file to `path`; the format comes from the extension (JSON if none).
pub fn save(file: &TaskFile, path: &Path) -> Result<(), ModelError> {
    let text = to_string(file, Format::from_path(path).unwrap_or(Format::Json))?;
    std::fs::write(path, text).map_err(|e| ModelError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    })
}

#[cfg(test)]
mod groups_tests;
#[cfg(test)]
mod par_tests;
#[cfg(test)]
mod ua_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Duration;
    use proptest::prelude::*;

    /// The fast path accepts `text` and reads exactly what the precise path reads.
    fn both_paths_read(text: &str, format: Format) -> TaskFile {
        let fast = match format {
            Format::Json => scan::parse_json(text, Vec::new()),
            Format::Toml => typed::parse_toml(text),
        };
        let precise = precise::parse_str(text, format).unwrap();
        assert_eq!(fast.as_ref(), Some(&precise), "{text}");
        precise
    }

    #[test]
    fn the_fast_path_reads_what_the_precise_path_reads() {
        let every_field = r#"{"platform": {"cpus": 4, "cluster_size": 2}, "tasks": [
            {"name": "a", "wcet": "1.5ms", "period": "10ms", "deadline": "8ms", "offset": 7,
             "priority": 3, "utility": 2.5, "wss": "64KiB", "cpu": 1, "cluster": 0,
             "affinity": [0, 2]},
            {"name": "bé", "wcet": 1000, "period": "1_000us", "utility": 4, "wss": 4096},
            {"wcet": "2 ms", "period": "1s", "deadline": "2s"}]}"#;
        let f = both_paths_read(every_field, Format::Json);
        assert_eq!(f.tasks[1].name.as_deref(), Some("bé"));
        assert_eq!(f.tasks[0].affinity, Some(vec![0, 2]));
        let toml_text = to_string(&f, Format::Toml).unwrap();
        assert_eq!(both_paths_read(&toml_text, Format::Toml), f);
        // An escaped name is read by the precise path alone, alike.
        let escaped = r#"{"tasks": [{"name": "b\u00e9", "wcet": 1, "period": 2}]}"#;
        assert_eq!(scan::parse_json(escaped, Vec::new()), None);
        assert_eq!(
            parse_str(escaped, Format::Json).unwrap().tasks[0]
                .name
                .as_deref(),
            Some("bé")
        );
        let compact =
            r#"{"tasks":[{"name":"t0","wcet":3,"period":17},{"name":"t1","wcet":1,"period":10}]}"#;
        both_paths_read(compact, Format::Json);
        let toml_ints = "[[tasks]]\nwcet = 3\nperiod = 17\npriority = 1\nutility = 2\n";
        both_paths_read(toml_ints, Format::Toml);
    }

    #[test]
    fn a_reader_reads_what_parse_str_reads() {
        let texts = [
            r#"{"tasks": [{"name": "a", "wcet": 1, "period": 4}, {"name": "bb", "wcet": 2, "period": 5, "wss": 64}]}"#,
            r#"{"tasks": [{"wcet": 3, "period": 9, "priority": 2}, {"name": "a much longer name", "wcet": 1, "period": 2}, {"name": "c", "wcet": 1, "period": 3}]}"#,
            r#"{"tasks": [{"name": "z", "wcet": "1ms", "period": "3ms", "affinity": [1]}]}"#,
            r#"{"tasks": [{"name": "z", "wcet": 5, "period": 3}]}"#,
            r#"{"tasks": [{"name": "y", "wcet": 1, "period": 3}, {"name": "x", "wcet": 1, "period": 3}]}"#,
            "[[tasks]]\nname = \"t\"\nwcet = 1\nperiod = 2\n",
        ];
        let mut reader = Reader::default();
        for text in texts.iter().chain(texts.iter().rev()) {
            let format = Format::sniff(text);
            let read = reader.parse(text, format);
            assert_eq!(read, parse_str(text, format), "{text}");
            if let Ok(file) = read {
                reader.recycle(file);
            }
        }
    }

    #[test]
    fn the_fast_path_declines_what_it_does_not_read_the_same_way() {
        // Repeated keys (the precise path keeps the last), null, a float time, a negative
        // integer, a date-time: all go to the precise path.
        for text in [
            r#"{"tasks": [{"wcet": 1, "period": 5, "period": 6}]}"#,
            r#"{"tasks": [{"wcet": 1, "period": 5, "deadline": null}]}"#,
            r#"{"tasks": [{"wcet": 1.0, "period": 5}]}"#,
            r#"{"tasks": [{"wcet": 1, "period": 5, "priority": -1}]}"#,
            r#"{"tasks": [{"wcet": 1, "period": 5}], "tasks": []}"#,
        ] {
            assert_eq!(scan::parse_json(text, Vec::new()), None, "{text}");
        }
        assert_eq!(
            typed::parse_toml("[[tasks]]\nwcet = 1979-05-27T07:32:00Z\nperiod = 5\n"),
            None
        );
        // …where a repeated key is read as its last value.
        let f = parse_str(
            r#"{"tasks": [{"wcet": 1, "period": 5, "period": 6}]}"#,
            Format::Json,
        )
        .unwrap();
        assert_eq!(f.tasks[0].period, Duration::from_ns(6));
    }

    #[test]
    fn reads_the_documented_example() {
        let f = parse_str(
            r#"{"platform": {"cpus": 4}, "tasks": [{"name": "t1", "wcet": "2ms", "period": "10ms", "deadline": "8ms"}, {"wcet": 1000, "period": "1.5ms"}]}"#,
            Format::Json,
        )
        .unwrap();
        assert_eq!(f.platform.as_ref().map(|p| p.cpus), Some(4));
        assert_eq!(f.tasks[0].deadline, Duration::from_ms(8).unwrap());
        assert_eq!(f.tasks[1].deadline, Duration::from_ns(1_500_000));
        let toml_text = to_string(&f, Format::Toml).unwrap();
        let again = parse_str(&toml_text, Format::Toml).unwrap();
        assert_eq!(again, f);
        let json_text = to_string(&f, Format::Json).unwrap();
        assert_eq!(parse_str(&json_text, Format::Json).unwrap(), f);
    }

    #[test]
    fn toml_form() {
        let f = parse_str(
            "[platform]\ncpus = 2\n\n[[tasks]]\nname = \"a\"\nwcet = \"1ms\"\nperiod = \"4ms\"\nwss = \"64KiB\"\n",
            Format::Toml,
        )
        .unwrap();
        assert_eq!(f.tasks[0].wss, Some(65_536));
    }

    fn error_of(text: &str) -> String {
        parse_str(text, Format::sniff(text))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn messages_name_task_and_field() {
        assert_eq!(
            error_of(r#"{"tasks": [{"name": "t1", "wcet": "2ms", "perod": "10ms"}]}"#),
            "task 0 (`t1`): unknown field `perod` (did you mean `period`?)"
        );
        assert_eq!(
            error_of(r#"{"tasks": [{"wcet": "2ms"}]}"#),
            "task 0: missing field `period`"
        );
        assert_eq!(
            error_of(r#"{"tasks": [{"name": "x", "wcet": "20ms", "period": "10ms"}]}"#),
            "task 0 (`x`): wcet 20ms exceeds period 10ms (the implicit deadline)"
        );
        assert_eq!(
            error_of(
                r#"{"tasks": [{"name": "x", "wcet": "20ms", "period": "30ms", "deadline": "10ms"}]}"#
            ),
            "task 0 (`x`): wcet 20ms exceeds deadline 10ms"
        );
        assert_eq!(
            error_of("[[tasks]]\nwcet = \"2ms\"\nperiod = \"1ms\"\n"),
            "task 0: wcet 2ms exceeds period 1ms (the implicit deadline)"
        );
        assert_eq!(
            error_of(r#"{"tasks": [{"name": "x", "wcet": "0ms", "period": "10ms"}]}"#),
            "task 0 (`x`): field `wcet`: must be greater than zero"
        );
        assert!(error_of(r#"{"tasks": [{"wcet": -3, "period": 10}]}"#).contains("negative"));
        assert!(error_of(r#"{"tasks": [{"wcet": 1.5, "period": 10}]}"#).contains("not an integer"));
        assert!(
            error_of(r#"{"tasks": [{"wcet": "2 parsecs", "period": 10}]}"#)
                .contains("field `wcet`")
        );
        assert!(
            error_of(r#"{"tasks": [{"wcet": "99999999999s", "period": 10}]}"#)
                .contains("too large")
        );
        assert!(error_of(r#"{"tasks": [], "platfrom": {}}"#).contains("did you mean `platform`"));
        assert!(
            error_of(r#"{"tasks": [{"wcet": 1, "period": 2}], "platform": {"cpus": 0}}"#)
                .contains("cpus")
        );
        // One rule for every front end: a task set has at least one task.
        for empty in [
            r#"{"tasks": []}"#,
            r#"{"tasks": [], "platform": {"cpus": 0}}"#,
            "tasks = []",
        ] {
            assert_eq!(
                error_of(empty),
                "empty task set: a task set needs at least one task"
            );
        }
        assert!(error_of(r#"{"tasks": [1, 2]"#).contains("malformed JSON"));
        assert!(error_of("tasks = 3").contains("must be a list"));
        assert!(error_of(r#"{"tasks": [{"name": "a", "wcet": 1, "period": 2}, {"name": "a", "wcet": 1, "period": 2}]}"#)
            .contains("duplicate task name `a`"));
    }

    /// `split` reads alike from JSON and TOML (fast and precise paths), prints and reads back.
    #[test]
    fn split_tasks_read_in_both_formats() {
        let json = r#"{"tasks": [
            {"name": "s", "wcet": "5ms", "period": "10ms",
             "split": [{"cpu": 0, "budget": "3ms"}, {"cpu": 1, "budget": 2000000}]},
            {"name": "w", "wcet": "1ms", "period": "10ms", "cpu": 1}]}"#;
        let f = both_paths_read(json, Format::Json);
        let ms = |x| Duration::from_ms(x).unwrap();
        assert_eq!(
            f.tasks[0].split,
            Some(vec![
                crate::SplitPart {
                    cpu: 0,
                    budget: ms(3)
                },
                crate::SplitPart {
                    cpu: 1,
                    budget: ms(2)
                }
            ])
        );
        assert_eq!(f.tasks[1].split, None);
        let toml_text = "[[tasks]]\nname = \"s\"\nwcet = \"5ms\"\nperiod = \"10ms\"\n\
            split = [{cpu = 0, budget = \"3ms\"}, {cpu = 1, budget = \"2ms\"}]\n\n\
            [[tasks]]\nname = \"w\"\nwcet = \"1ms\"\nperiod = \"10ms\"\ncpu = 1\n";
        assert_eq!(both_paths_read(toml_text, Format::Toml), f);
        let printed = to_string(&f, Format::Toml).unwrap();
        assert_eq!(both_paths_read(&printed, Format::Toml), f, "{printed}");
        let printed = to_string(&f, Format::Json).unwrap();
        assert_eq!(both_paths_read(&printed, Format::Json), f, "{printed}");
    }

    #[test]
    fn split_errors_name_task_and_field() {
        let with = |split: &str, extra: &str| {
            error_of(&format!(
                r#"{{"tasks": [{{"name": "s", "wcet": "5ms", "period": "10ms", "split": {split}{extra}}}]}}"#
            ))
        };
        assert_eq!(
            with(
                r#"[{"cpu": 0, "budget": "3ms"}, {"cpu": 1, "budget": "3ms"}]"#,
                ""
            ),
            "task 0 (`s`): field `split`: the part budgets add up to 6ms, but wcet is 5ms"
        );
        assert_eq!(
            with(r#"[{"cpu": 2, "budget": "5ms"}]"#, ""),
            "task 0 (`s`): field `split`: a split on one CPU is no split; use `cpu = 2`"
        );
        assert_eq!(
            with(
                r#"[{"cpu": 0, "budget": "1ms"}, {"cpu": 1, "budget": "1ms"}, {"cpu": 0, "budget": "3ms"}]"#,
                ""
            ),
            "task 0 (`s`): field `split`: parts 0 and 2 are both on CPU 0 (a cyclic split: each part needs its own CPU)"
        );
        assert_eq!(
            with(
                r#"[{"cpu": 0, "budget": 0}, {"cpu": 1, "budget": "5ms"}]"#,
                ""
            ),
            "task 0 (`s`): field `split`: part 0 (CPU 0): budget must be greater than zero"
        );
        assert_eq!(
            with(r#"[{"cpu": 0, "budget": "3ms"}, {"cpu": 1, "budget": "2ms"}]"#, r#", "cpu": 0"#),
            "task 0 (`s`): field `split`: a task has either `cpu` (here 0) or `split`, not both: give `split` alone for a split task, `cpu` alone for a whole one"
        );
        assert_eq!(
            with("[]", ""),
            "task 0 (`s`): field `split`: a split needs at least two parts, got none"
        );
        assert_eq!(
            with(r#"[{"cpu": 0, "budgt": "3ms"}]"#, ""),
            "task 0 (`s`): field `split`: part 0: unknown field `budgt` (did you mean `budget`?)"
        );
        assert_eq!(
            with(r#"[{"cpu": 0, "budget": "3ms"}, {"cpu": 1}]"#, ""),
            "task 0 (`s`): field `split`: part 1: missing field `budget`"
        );
        assert!(with(r#"[{"cpu": -1, "budget": "3ms"}]"#, "")
            .contains("part 0: `cpu` must be an integer"));
        assert!(with(r#"[{"cpu": 0, "budget": "3 parsecs"}]"#, "").contains("part 0: `budget`:"));
        assert!(with("3", "").contains("must be a list of parts"));
        assert!(with("[3]", "").contains("part 0: must be a table/object"));
        // TOML gives the same message.
        assert_eq!(
            error_of("[[tasks]]\nname = \"s\"\nwcet = \"5ms\"\nperiod = \"10ms\"\nsplit = [{cpu = 0, budget = \"1ms\"}, {cpu = 1, budget = \"1ms\"}]\n"),
            "task 0 (`s`): field `split`: the part budgets add up to 2ms, but wcet is 5ms"
        );
    }

    #[test]
    fn arbitrary_deadlines_are_valid() {
        let f = parse_str(
            r#"{"tasks": [{"wcet": 3, "period": 10, "deadline": 20}]}"#,
            Format::Json,
        )
        .unwrap();
        assert!(!f.tasks.has_only_constrained_deadlines());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn never_panics_on_arbitrary_text(s in "\\PC{0,200}") {
            let _ = parse_str(&s, Format::Json);
            let _ = parse_str(&s, Format::Toml);
        }

        #[test]
        fn never_panics_on_task_shaped_json(
            wcet in prop_oneof![Just("\"2ms\"".to_string()), "-?[0-9]{0,22}(\\.[0-9]{0,3})?", "\"[0-9.a-zµ -]{0,10}\"".prop_map(|s| s)],
            period in prop_oneof![Just("10".to_string()), "-?[0-9]{0,22}", "\"[0-9.a-z]{0,10}\""],
            extra in "[a-z_]{0,9}",
            value in prop_oneof![Just("null".to_string()), Just("[]".to_string()), Just("{}".to_string()), "-?[0-9]{1,25}", "\"[^\"\\\\]{0,8}\""],
        ) {
            let text = format!(r#"{{"tasks": [{{"wcet": {wcet}, "period": {period}, "{extra}": {value}}}], "platform": {{"cpus": {value}}}}}"#);
            let _ = parse_str(&text, Format::Json);
        }

        #[test]
        fn whatever_the_fast_path_reads_the_precise_path_reads_alike(
            wcet in prop_oneof![Just("\"2ms\"".to_string()), "-?[0-9]{1,21}(\\.[0-9]{0,2})?", "\"[0-9._]{1,6}(ns|us|ms|s| ms|)\""],
            period in prop_oneof!["[0-9]{1,21}", "\"[0-9._]{1,6}(ns|us|µs|ms|s)\""],
            key in prop_oneof![Just("deadline"), Just("offset"), Just("priority"), Just("utility"), Just("wss"), Just("cpu"), Just("affinity"), Just("name"), Just("perod"), Just("split"), Just("abortable"), Just("abort_cost"), Just("tuf"), Just("critical_sections"), Just("parallel")],
            value in prop_oneof![Just("null".to_string()), Just("[1, 2]".to_string()), Just("\"t\"".to_string()), Just("true".to_string()), Just("false".to_string()), Just(r#"{"kind": "step", "value": 2}"#.to_string()), Just(r#"[{"resource": "r", "start": 0, "length": 1}]"#.to_string()), Just("[[1], [2, 3]]".to_string()), Just("[[\"1ns\"], []]".to_string()), "-?[0-9]{1,21}(\\.[0-9]{1,2})?(e[0-9])?", "\"[0-9.]{1,5}(KiB|ns|ms|x|)\"", "\\[\\{\"cpu\": [0-2], \"budget\": [0-9]{1,2}\\}(, \\{\"budget\": \"[0-9]{1,2}ns\", \"cpu\": [0-2]\\}){0,2}\\]"],
            cpus in prop_oneof![Just("1".to_string()), "-?[0-9]{1,11}"],
        ) {
            let text = format!(r#"{{"tasks": [{{"wcet": {wcet}, "period": {period}, "{key}": {value}}}], "platform": {{"cpus": {cpus}}}}}"#);
            if let Some(fast) = scan::parse_json(&text, Vec::new()) {
                prop_assert_eq!(Ok(fast), precise::parse_str(&text, Format::Json));
            }
            if let Ok(file) = parse_str(&text, Format::Json) {
                let toml_text = to_string(&file, Format::Toml).unwrap();
                if let Some(fast) = typed::parse_toml(&toml_text) {
                    prop_assert_eq!(Ok(fast), precise::parse_str(&toml_text, Format::Toml));
                }
            }
        }
    }
}

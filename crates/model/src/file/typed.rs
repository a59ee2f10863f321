//! The fast path of reading a TOML task file: typed serde visitors that go straight from the
//! parsed document to [`Task`]s, with no intermediate JSON value. (JSON files have a faster
//! path still, the scanner of [`super::scan`].)
//!
//! This path only ever *accepts*: it takes the common, well-formed file and declines anything
//! else (an unknown or repeated key, a value of an unexpected kind, a bad time, a task set that
//! fails validation, …) without saying why. [`super::parse_str`] then reads the text again
//! through the precise validator ([`super::precise`]), which owns every message. So the two
//! paths cannot disagree on a message, and they must agree on every file this one accepts: the
//! same conversions as the precise path (integers as nanoseconds, strings through
//! [`parse_ns`] and [`parse_bytes`], `as_u64`-style small integers, `as_f64`-style utilities);
//! the tests compare them.

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
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// Reads a TOML task file on the fast path; `None` when it declines.
pub(super) fn parse_toml(text: &str) -> Option<TaskFile> {
    let Typed(file) = toml::from_str(text).ok()?;
    Some(file)
}

/// A task file read by the typed visitors, validated.
struct Typed(TaskFile);

/// The reason given to serde when declining; never shown to anyone (the precise path speaks).
const DECLINED: &str = "declined by the fast path";

fn decline<E: de::Error>() -> E {
    E::custom(DECLINED)
}

/// Implements `Visitor::expecting` (only used in serde's own messages, which are discarded).
macro_rules! expecting {
    ($what:literal) => {
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str($what)
        }
    };
}

/// The keys of one kind of map, matched without allocating.
trait Fields: Sized + Copy {
    /// The field `key` names, or `None` (the precise path then names the unknown field).
    fn from_key(key: &str) -> Option<Self>;
    /// A distinct bit per field, to notice a repeated key.
    fn bit(self) -> u32;
}

/// Deserializes a map key into a field of `F` (an unknown key declines).
struct Key<F>(F);

impl<'de, F: Fields> Deserialize<'de> for Key<F> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor<F>(std::marker::PhantomData<F>);
        impl<F: Fields> Visitor<'_> for KeyVisitor<F> {
            type Value = Key<F>;
            expecting!("a known field name");
            fn visit_str<E: de::Error>(self, key: &str) -> Result<Key<F>, E> {
                F::from_key(key).map(Key).ok_or_else(decline)
            }
        }
        deserializer.deserialize_identifier(KeyVisitor(std::marker::PhantomData))
    }
}

/// Generates a field enum and its [`Fields`] impl from `Variant = "key"` pairs (the keys are
/// those of [`super::TOP_FIELDS`], [`super::TASK_FIELDS`], [`super::PLATFORM_FIELDS`]; a test
/// checks that the lists agree).
macro_rules! fields {
    ($name:ident { $($variant:ident = $key:literal),+ $(,)? }) => {
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        enum $name { $($variant),+ }
        impl Fields for $name {
            fn from_key(key: &str) -> Option<Self> {
                match key {
                    $($key => Some($name::$variant),)+
                    _ => None,
                }
            }
            fn bit(self) -> u32 {
                1 << (self as u32)
            }
        }
        impl $name {
            #[cfg(test)]
            const KEYS: &[&str] = &[$($key),+];
        }
    };
}

fields!(TopField {
    Tasks = "tasks",
    Platform = "platform",
    Groups = "groups"
});
fields!(TaskField {
    Name = "name",
    Wcet = "wcet",
    Period = "period",
    Deadline = "deadline",
    Offset = "offset",
    Priority = "priority",
    Utility = "utility",
    Wss = "wss",
    Cpu = "cpu",
    Cluster = "cluster",
    Affinity = "affinity",
    Split = "split",
    Tuf = "tuf",
    Abortable = "abortable",
    AbortCost = "abort_cost",
    CriticalSections = "critical_sections",
    Parallel = "parallel",
    Group = "group",
});
fields!(PartField {
    Cpu = "cpu",
    Budget = "budget"
});
fields!(PlatformField {
    Cpus = "cpus",
    ClusterSize = "cluster_size"
});

/// Remembers which keys of one map were seen, to decline a repeated key (the precise path
/// decides what a repeated key means).
#[derive(Default)]
struct Seen(u32);

impl Seen {
    fn first<F: Fields, E: de::Error>(&mut self, field: F) -> Result<F, E> {
        let bit = field.bit();
        if self.0 & bit != 0 {
            return Err(decline());
        }
        self.0 |= bit;
        Ok(field)
    }
}

impl<'de> Deserialize<'de> for Typed {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(FileVisitor)
    }
}

struct FileVisitor;

impl<'de> Visitor<'de> for FileVisitor {
    type Value = Typed;
    expecting!("a task-set file");
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Typed, A::Error> {
        let mut seen = Seen::default();
        let mut tasks = None;
        let mut platform = None;
        while let Some(Key(field)) = map.next_key()? {
            match seen.first(field)? {
                TopField::Tasks => tasks = Some(map.next_value::<Tasks>()?.0),
                TopField::Platform => platform = Some(map.next_value::<PlatformValue>()?.0),
                // Sets with groups are read by the precise path alone.
                TopField::Groups => return Err(decline()),
            }
        }
        let tasks = TaskSet::new(tasks.ok_or_else(decline)?).map_err(|_| decline())?;
        if let Some(p) = &platform {
            p.validate().map_err(|_| decline())?;
        }
        Ok(Typed(TaskFile { tasks, platform }))
    }
}

/// The `tasks` list.
struct Tasks(Vec<Task>);

impl<'de> Deserialize<'de> for Tasks {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ListVisitor;
        impl<'de> Visitor<'de> for ListVisitor {
            type Value = Tasks;
            expecting!("a list of tasks");
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Tasks, A::Error> {
                let mut tasks = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 12));
                while let Some(TaskValue(task)) = seq.next_element()? {
                    tasks.push(task);
                }
                Ok(Tasks(tasks))
            }
        }
        deserializer.deserialize_seq(ListVisitor)
    }
}

/// One task; validated later, with the whole set.
struct TaskValue(Task);

impl<'de> Deserialize<'de> for TaskValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(TaskVisitor)
    }
}

struct TaskVisitor;

impl<'de> Visitor<'de> for TaskVisitor {
    type Value = TaskValue;
    expecting!("a task");
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TaskValue, A::Error> {
        let mut seen = Seen::default();
        let mut task = Task::new_unchecked(Duration::ZERO, Duration::ZERO, Duration::ZERO);
        let (mut wcet, mut period, mut deadline) = (None, None, None);
        while let Some(Key(field)) = map.next_key()? {
            match seen.first(field)? {
                TaskField::Name => task.name = Some(map.next_value::<Name>()?.0),
                TaskField::Wcet => wcet = Some(map.next_value::<TimeValue>()?.0),
                TaskField::Period => period = Some(map.next_value::<TimeValue>()?.0),
                TaskField::Deadline => deadline = Some(map.next_value::<TimeValue>()?.0),
                TaskField::Offset => task.offset = map.next_value::<TimeValue>()?.0,
                TaskField::Priority => task.priority = Some(map.next_value::<SmallInt>()?.0),
                TaskField::Cpu => task.cpu = Some(map.next_value::<SmallInt>()?.0),
                TaskField::Cluster => task.cluster = Some(map.next_value::<SmallInt>()?.0),
                TaskField::Utility => task.utility = Some(map.next_value::<Utility>()?.0),
                TaskField::Wss => task.wss = Some(map.next_value::<Bytes>()?.0),
                TaskField::Affinity => task.affinity = Some(map.next_value::<Cpus>()?.0),
                TaskField::Split => task.split = Some(map.next_value::<Parts>()?.0),
                TaskField::Abortable => task.abortable = map.next_value::<bool>()?,
                TaskField::AbortCost => task.abort_cost = map.next_value::<TimeValue>()?.0,
                // Named resources are numbered across the set, and TUFs have three shapes:
                // the precise path reads these (utility-accrual files are few and small).
                // Sets with groups are read by the precise path alone.
                TaskField::Tuf | TaskField::CriticalSections | TaskField::Group => {
                    return Err(decline())
                }
                TaskField::Parallel => task.parallel = Some(map.next_value::<Regions>()?.0),
            }
        }
        // A parallel task's WCET may be left out: it is then the work of its threads.
        task.wcet = match (wcet, &task.parallel) {
            (Some(wcet), _) => wcet,
            (None, Some(p)) => p.work(),
            (None, None) => return Err(decline()),
        };
        task.period = period.ok_or_else(decline)?;
        task.deadline = deadline.unwrap_or(task.period);
        Ok(TaskValue(task))
    }
}

/// A task's name: a string.
struct Name(String);

impl<'de> Deserialize<'de> for Name {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NameVisitor;
        impl Visitor<'_> for NameVisitor {
            type Value = Name;
            expecting!("a name");
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Name, E> {
                Ok(Name(v.to_owned()))
            }
        }
        deserializer.deserialize_str(NameVisitor)
    }
}

/// A time: an integer number of nanoseconds or a string with a unit.
struct TimeValue(Duration);

impl<'de> Deserialize<'de> for TimeValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TimeVisitor;
        impl Visitor<'_> for TimeVisitor {
            type Value = TimeValue;
            expecting!("a time");
            fn visit_u64<E: de::Error>(self, ns: u64) -> Result<TimeValue, E> {
                Ok(TimeValue(Duration::from_ns(ns)))
            }
            fn visit_i64<E: de::Error>(self, ns: i64) -> Result<TimeValue, E> {
                let ns = u64::try_from(ns).map_err(|_| decline())?;
                self.visit_u64(ns)
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<TimeValue, E> {
                parse_ns(text)
                    .map(|ns| TimeValue(Duration::from_ns(ns)))
                    .map_err(|_| decline())
            }
        }
        deserializer.deserialize_any(TimeVisitor)
    }
}

/// An integer from 0 to 2^32-1 (priority, CPU, cluster, CPU count).
struct SmallInt(u32);

impl<'de> Deserialize<'de> for SmallInt {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct IntVisitor;
        impl Visitor<'_> for IntVisitor {
            type Value = SmallInt;
            expecting!("an integer");
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<SmallInt, E> {
                u32::try_from(v).map(SmallInt).map_err(|_| decline())
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<SmallInt, E> {
                u32::try_from(v).map(SmallInt).map_err(|_| decline())
            }
        }
        deserializer.deserialize_any(IntVisitor)
    }
}

/// A utility: a finite number ≥ 0 (integers converted as `serde_json::Value::as_f64` does).
struct Utility(f64);

impl<'de> Deserialize<'de> for Utility {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct UtilityVisitor;
        impl Visitor<'_> for UtilityVisitor {
            type Value = Utility;
            expecting!("a number");
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Utility, E> {
                if v.is_finite() && v >= 0.0 {
                    Ok(Utility(v))
                } else {
                    Err(decline())
                }
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Utility, E> {
                self.visit_f64(v as f64)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Utility, E> {
                self.visit_f64(v as f64)
            }
        }
        deserializer.deserialize_any(UtilityVisitor)
    }
}

/// A byte count: an integer or a size string such as `"64KiB"`.
struct Bytes(u64);

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct BytesVisitor;
        impl Visitor<'_> for BytesVisitor {
            type Value = Bytes;
            expecting!("a size");
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Bytes, E> {
                Ok(Bytes(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Bytes, E> {
                u64::try_from(v).map(Bytes).map_err(|_| decline())
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Bytes, E> {
                parse_bytes(v).map(Bytes).map_err(|_| decline())
            }
        }
        deserializer.deserialize_any(BytesVisitor)
    }
}

/// A list of CPU numbers.
struct Cpus(Vec<u32>);

impl<'de> Deserialize<'de> for Cpus {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct CpusVisitor;
        impl<'de> Visitor<'de> for CpusVisitor {
            type Value = Cpus;
            expecting!("a list of CPU numbers");
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Cpus, A::Error> {
                let mut cpus = Vec::new();
                while let Some(SmallInt(c)) = seq.next_element()? {
                    cpus.push(c);
                }
                Ok(Cpus(cpus))
            }
        }
        deserializer.deserialize_seq(CpusVisitor)
    }
}

/// The parts of `split`, in order; checked against the WCET later, with the task.
struct Parts(Vec<SplitPart>);

impl<'de> Deserialize<'de> for Parts {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PartsVisitor;
        impl<'de> Visitor<'de> for PartsVisitor {
            type Value = Parts;
            expecting!("a list of split parts");
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Parts, A::Error> {
                let mut parts = Vec::new();
                while let Some(PartValue(p)) = seq.next_element()? {
                    parts.push(p);
                }
                Ok(Parts(parts))
            }
        }
        deserializer.deserialize_seq(PartsVisitor)
    }
}

/// One `{cpu, budget}` part.
struct PartValue(SplitPart);

impl<'de> Deserialize<'de> for PartValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PartVisitor;
        impl<'de> Visitor<'de> for PartVisitor {
            type Value = PartValue;
            expecting!("a split part");
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<PartValue, A::Error> {
                let mut seen = Seen::default();
                let (mut cpu, mut budget) = (None, None);
                while let Some(Key(field)) = map.next_key()? {
                    match seen.first(field)? {
                        PartField::Cpu => cpu = Some(map.next_value::<SmallInt>()?.0),
                        PartField::Budget => budget = Some(map.next_value::<TimeValue>()?.0),
                    }
                }
                Ok(PartValue(SplitPart {
                    cpu: cpu.ok_or_else(decline)?,
                    budget: budget.ok_or_else(decline)?,
                }))
            }
        }
        deserializer.deserialize_map(PartVisitor)
    }
}

/// The regions of `parallel` (lists of thread lengths), within the size bounds and the
/// structure's invariants; checked against the task later, with the task.
struct Regions(ParallelStructure);

impl<'de> Deserialize<'de> for Regions {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct RegionsVisitor;
        impl<'de> Visitor<'de> for RegionsVisitor {
            type Value = Regions;
            expecting!("a list of regions");
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Regions, A::Error> {
                let mut regions = Vec::new();
                let mut total = 0usize;
                while let Some(Threads(threads)) = seq.next_element()? {
                    total += threads.len();
                    if regions.len() >= MAX_PARALLEL_REGIONS || total > MAX_PARALLEL_THREADS {
                        return Err(decline());
                    }
                    regions.push(ParallelRegion::new(threads));
                }
                ParallelStructure::new(regions)
                    .map(Regions)
                    .map_err(|_| decline())
            }
        }
        deserializer.deserialize_seq(RegionsVisitor)
    }
}

/// The thread lengths of one region, at most [`MAX_REGION_THREADS`].
struct Threads(Vec<Duration>);

impl<'de> Deserialize<'de> for Threads {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ThreadsVisitor;
        impl<'de> Visitor<'de> for ThreadsVisitor {
            type Value = Threads;
            expecting!("a list of thread lengths");
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Threads, A::Error> {
                let mut threads = Vec::new();
                while let Some(TimeValue(t)) = seq.next_element()? {
                    if threads.len() >= MAX_REGION_THREADS {
                        return Err(decline());
                    }
                    threads.push(t);
                }
                Ok(Threads(threads))
            }
        }
        deserializer.deserialize_seq(ThreadsVisitor)
    }
}

/// The `platform` table, not yet validated.
struct PlatformValue(Platform);

impl<'de> Deserialize<'de> for PlatformValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PlatformVisitor;
        impl<'de> Visitor<'de> for PlatformVisitor {
            type Value = PlatformValue;
            expecting!("a platform");
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<PlatformValue, A::Error> {
                let mut seen = Seen::default();
                let (mut cpus, mut cluster_size) = (None, None);
                while let Some(Key(field)) = map.next_key()? {
                    let value = map.next_value::<SmallInt>()?.0;
                    match seen.first(field)? {
                        PlatformField::Cpus => cpus = Some(value),
                        PlatformField::ClusterSize => cluster_size = Some(value),
                    }
                }
                Ok(PlatformValue(Platform {
                    cpus: cpus.ok_or_else(decline)?,
                    cluster_size,
                }))
            }
        }
        deserializer.deserialize_map(PlatformVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knows_the_same_fields_as_the_precise_path() {
        assert_eq!(TopField::KEYS, super::super::TOP_FIELDS);
        assert_eq!(TaskField::KEYS, super::super::TASK_FIELDS);
        assert_eq!(PlatformField::KEYS, super::super::PLATFORM_FIELDS);
        assert_eq!(PartField::KEYS, super::super::precise::SPLIT_FIELDS);
    }
}

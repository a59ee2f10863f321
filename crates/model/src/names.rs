//! Finding a repeated task name: the duplicate-name check of [`crate::TaskSet::validate`], which
//! runs on every file read, so it must cost little next to parsing the file (a few
//! instructions per name), and stay `O(n log n)` whatever names an input holds.
//!
//! An open-addressing table of task indices with a multiplicative hash of the name's bytes
//! (linear probing, at most half full) answers in one probe or two per name. The hash is fixed,
//! not keyed, so names crafted to collide could make probing quadratic: past a probe budget
//! linear in `n`, the check switches to sorting the names, which has no bad inputs.

use crate::task::Task;

/// The first task whose name an earlier task already has, as `(earlier, later)` task indices:
/// `later` is the smallest index that repeats a name, `earlier` the first task with that name.
pub(crate) fn first_repeated_name(tasks: &[Task]) -> Option<(usize, usize)> {
    first_repeated_name_hashed(tasks, hash)
}

/// [`first_repeated_name`] with the hash as a parameter (the tests make every name collide).
fn first_repeated_name_hashed(tasks: &[Task], hash: fn(&str) -> u64) -> Option<(usize, usize)> {
    let named = tasks.iter().filter(|t| t.name.is_some()).count();
    if named < 2 {
        return None;
    }
    // Task indices as `u32` (a set of more tasks sorts), at most 2/3 full.
    let Ok(last) = u32::try_from(tasks.len()) else {
        return first_repeated_name_by_sorting(tasks);
    };
    let bits = (named + named / 2).next_power_of_two().trailing_zeros();
    let mask = (1usize << bits) - 1;
    let mut table = vec![u32::MAX; mask + 1];
    let mut probe_budget = 4 * named + 64;
    for (i, task) in tasks.iter().enumerate() {
        let Some(name) = task.name.as_deref() else {
            continue;
        };
        let mut slot = (hash(name) >> (64 - bits)) as usize;
        loop {
            match table[slot] {
                u32::MAX => {
                    // `i < tasks.len() <= last`, so it fits.
                    table[slot] = u32::try_from(i).unwrap_or(last);
                    break;
                }
                j if tasks[j as usize].name.as_deref() == Some(name) => {
                    return Some((j as usize, i))
                }
                _ => {}
            }
            probe_budget = match probe_budget.checked_sub(1) {
                Some(left) => left,
                None => return first_repeated_name_by_sorting(tasks),
            };
            slot = (slot + 1) & mask;
        }
    }
    None
}

/// The same answer as [`first_repeated_name`], by sorting `(name, index)` pairs: in `O(n log n)`
/// whatever the names.
fn first_repeated_name_by_sorting(tasks: &[Task]) -> Option<(usize, usize)> {
    let mut named: Vec<(&str, usize)> = tasks
        .iter()
        .enumerate()
        .filter_map(|(i, t)| t.name.as_deref().map(|n| (n, i)))
        .collect();
    named.sort_unstable();
    // Within a run of equal names the indices ascend; the pair with the smallest later index is
    // the first two of some run.
    named
        .windows(2)
        .filter(|w| w[0].0 == w[1].0)
        .map(|w| (w[0].1, w[1].1))
        .min_by_key(|&(_, later)| later)
}

/// A multiplicative hash of the name's bytes, eight at a time; the table takes its top bits.
fn hash(name: &str) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let bytes = name.as_bytes();
    let mut h = (bytes.len() as u64).wrapping_mul(K);
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(K);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut word = [0u8; 8];
        word[..rest.len()].copy_from_slice(rest);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(K);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Duration;
    use proptest::prelude::*;

    fn named(names: &[Option<&str>]) -> Vec<Task> {
        names
            .iter()
            .map(|n| {
                let t = Task::new_unchecked(
                    Duration::from_ns(1),
                    Duration::from_ns(2),
                    Duration::from_ns(2),
                );
                match n {
                    Some(n) => t.named(*n),
                    None => t,
                }
            })
            .collect()
    }

    #[test]
    fn finds_the_first_repeat() {
        let tasks = named(&[Some("a"), Some("b"), None, Some("c"), Some("b"), Some("a")]);
        assert_eq!(first_repeated_name(&tasks), Some((1, 4)));
        assert_eq!(first_repeated_name_by_sorting(&tasks), Some((1, 4)));
        let unique: Vec<String> = (0..1000).map(|i| format!("t{i}")).collect();
        let tasks = named(&unique.iter().map(|n| Some(n.as_str())).collect::<Vec<_>>());
        assert_eq!(first_repeated_name(&tasks), None);
        assert_eq!(first_repeated_name(&named(&[None, None, Some("x")])), None);
        assert_eq!(
            first_repeated_name(&named(&[
                Some("a long name, longer than 8"),
                Some("a long name, longer than 8")
            ])),
            Some((0, 1))
        );
    }

    #[test]
    fn colliding_names_fall_back_to_sorting() {
        // Distinct names that all hash alike exhaust the probe budget: the same answers.
        let names: Vec<String> = (0..300).map(|i| format!("n{i:04}")).collect();
        let mut list: Vec<Option<&str>> = names.iter().map(|n| Some(n.as_str())).collect();
        let unique = named(&list);
        assert_eq!(first_repeated_name_hashed(&unique, |_| 0), None);
        list.push(Some("n0007"));
        let repeated = named(&list);
        assert_eq!(first_repeated_name_hashed(&repeated, |_| 0), Some((7, 300)));
        assert_eq!(first_repeated_name(&repeated), Some((7, 300)));
    }

    proptest! {
        #[test]
        fn both_ways_agree(names in proptest::collection::vec(proptest::option::of("[a-c]{0,3}"), 0..40)) {
            let tasks = named(&names.iter().map(|n| n.as_deref()).collect::<Vec<_>>());
            prop_assert_eq!(first_repeated_name(&tasks), first_repeated_name_by_sorting(&tasks));
        }
    }
}

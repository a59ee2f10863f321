//! A TOML reader that keeps going after a problem: every value is read from the span-carrying
//! document of the `toml` crate ([`toml::de::DeTable`]), and each problem (wrong type, unknown
//! key, missing key) is recorded with its line instead of stopping at the first one, so that
//! one run of the validator reports everything that is wrong with an experiment file.

use crate::error::Problem;
use schedlab_model::error::suggest;
use std::cell::RefCell;
use std::ops::Range;
use toml::de::{DeTable, DeValue};
use toml::Spanned;

/// Collects the problems of one file; turns byte offsets into line numbers.
pub(crate) struct Reader<'s> {
    source: &'s str,
    problems: RefCell<Vec<Problem>>,
}

impl<'s> Reader<'s> {
    pub(crate) fn new(source: &'s str) -> Reader<'s> {
        Reader {
            source,
            problems: RefCell::new(Vec::new()),
        }
    }

    /// The 1-based line of byte offset `at`.
    pub(crate) fn line_of(&self, at: usize) -> usize {
        let end = at.min(self.source.len());
        self.source
            .as_bytes()
            .get(..end)
            .map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count())
            + 1
    }

    /// Records a problem at the start of `span`.
    pub(crate) fn problem(&self, span: &Range<usize>, message: impl Into<String>) {
        self.problems.borrow_mut().push(Problem {
            line: self.line_of(span.start),
            message: message.into(),
        });
    }

    /// Number of problems so far.
    pub(crate) fn count(&self) -> usize {
        self.problems.borrow().len()
    }

    /// The problems, sorted by line (stable: same-line problems keep their order).
    pub(crate) fn into_problems(self) -> Vec<Problem> {
        let mut p = self.problems.into_inner();
        p.sort_by_key(|p| p.line);
        p
    }
}

/// One table of the document with the keys read so far (to report the unknown ones).
pub(crate) struct Table<'r, 's, 't, 'i> {
    reader: &'r Reader<'s>,
    /// Dotted path for messages (`generator`, `analysis[2]`); empty at the top level.
    pub(crate) path: String,
    table: &'t DeTable<'i>,
    /// Where the table starts (for "missing key" problems).
    pub(crate) span: Range<usize>,
    known: RefCell<Vec<&'static str>>,
}

/// A value with where it is.
pub(crate) type At<T> = (T, Range<usize>);

impl<'r, 's, 't, 'i> Table<'r, 's, 't, 'i> {
    pub(crate) fn new(
        reader: &'r Reader<'s>,
        path: String,
        table: &'t DeTable<'i>,
        span: Range<usize>,
    ) -> Self {
        Table {
            reader,
            path,
            table,
            span,
            known: RefCell::new(Vec::new()),
        }
    }

    /// The reader that collects this table's problems.
    pub(crate) fn reader(&self) -> &'r Reader<'s> {
        self.reader
    }

    /// `key` qualified by the table's path, for messages.
    pub(crate) fn name(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    fn raw(&self, key: &'static str) -> Option<&'t Spanned<DeValue<'i>>> {
        self.known.borrow_mut().push(key);
        self.table
            .iter()
            .find(|(k, _)| k.get_ref().as_ref() == key)
            .map(|(_, v)| v)
    }

    fn wrong(&self, key: &str, v: &Spanned<DeValue<'i>>, expected: &str) {
        self.reader.problem(
            &v.span(),
            format!(
                "`{}` must be {expected}, not a {}",
                self.name(key),
                v.get_ref().type_str()
            ),
        );
    }

    /// Records that `key` is missing.
    pub(crate) fn missing(&self, key: &str, what: &str) {
        self.reader
            .problem(&self.span, format!("missing `{}` ({what})", self.name(key)));
    }

    /// An optional string.
    pub(crate) fn str(&self, key: &'static str) -> Option<At<String>> {
        let v = self.raw(key)?;
        match v.get_ref() {
            DeValue::String(s) => Some((s.to_string(), v.span())),
            _ => {
                self.wrong(key, v, "a string");
                None
            }
        }
    }

    /// An optional boolean.
    pub(crate) fn bool(&self, key: &'static str) -> Option<At<bool>> {
        let v = self.raw(key)?;
        match v.get_ref() {
            DeValue::Boolean(b) => Some((*b, v.span())),
            _ => {
                self.wrong(key, v, "true or false");
                None
            }
        }
    }

    /// An optional non-negative integer.
    pub(crate) fn u64(&self, key: &'static str) -> Option<At<u64>> {
        let v = self.raw(key)?;
        match integer(v.get_ref()) {
            Some(Some(x)) => Some((x, v.span())),
            Some(None) => {
                self.reader.problem(
                    &v.span(),
                    format!("`{}` must be a non-negative integer", self.name(key)),
                );
                None
            }
            None => {
                self.wrong(key, v, "an integer");
                None
            }
        }
    }

    /// An optional finite number (integer or float).
    pub(crate) fn f64(&self, key: &'static str) -> Option<At<f64>> {
        let v = self.raw(key)?;
        match number(v.get_ref()) {
            Some(x) if x.is_finite() => Some((x, v.span())),
            Some(_) => {
                self.reader
                    .problem(&v.span(), format!("`{}` must be finite", self.name(key)));
                None
            }
            None => {
                self.wrong(key, v, "a number");
                None
            }
        }
    }

    /// An optional array of finite numbers (each element checked).
    pub(crate) fn f64_list(&self, key: &'static str) -> Option<At<Vec<f64>>> {
        let v = self.raw(key)?;
        let DeValue::Array(items) = v.get_ref() else {
            self.wrong(key, v, "an array of numbers");
            return None;
        };
        let before = self.reader.count();
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            match number(item.get_ref()) {
                Some(x) if x.is_finite() => out.push(x),
                _ => self.reader.problem(
                    &item.span(),
                    format!(
                        "`{}[{i}]` must be a finite number, not {}",
                        self.name(key),
                        item.get_ref().type_str()
                    ),
                ),
            }
        }
        (self.reader.count() == before).then_some((out, v.span()))
    }

    /// An optional array of strings, each with where it is (each element checked).
    pub(crate) fn str_list(&self, key: &'static str) -> Option<At<Vec<At<String>>>> {
        let v = self.raw(key)?;
        let DeValue::Array(items) = v.get_ref() else {
            self.wrong(key, v, "an array of strings");
            return None;
        };
        let before = self.reader.count();
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            match item.get_ref() {
                DeValue::String(s) => out.push((s.to_string(), item.span())),
                other => self.reader.problem(
                    &item.span(),
                    format!(
                        "`{}[{i}]` must be a string, not {}",
                        self.name(key),
                        other.type_str()
                    ),
                ),
            }
        }
        (self.reader.count() == before).then_some((out, v.span()))
    }

    /// An optional sub-table.
    pub(crate) fn table(&self, key: &'static str) -> Option<Table<'r, 's, 't, 'i>> {
        let v = self.raw(key)?;
        match v.get_ref() {
            DeValue::Table(t) => Some(Table::new(self.reader, self.name(key), t, v.span())),
            _ => {
                self.wrong(key, v, "a table");
                None
            }
        }
    }

    /// An optional array of tables (`[[key]]`); `None` and `Some(empty)` both mean absent.
    pub(crate) fn tables(&self, key: &'static str) -> Vec<Table<'r, 's, 't, 'i>> {
        let Some(v) = self.raw(key) else {
            return Vec::new();
        };
        let DeValue::Array(items) = v.get_ref() else {
            self.wrong(key, v, &format!("an array of tables (`[[{key}]]`)"));
            return Vec::new();
        };
        items
            .iter()
            .enumerate()
            .filter_map(|(i, item)| match item.get_ref() {
                DeValue::Table(t) => Some(Table::new(
                    self.reader,
                    format!("{}[{i}]", self.name(key)),
                    t,
                    item.span(),
                )),
                _ => {
                    self.reader.problem(
                        &item.span(),
                        format!("`{}[{i}]` must be a table", self.name(key)),
                    );
                    None
                }
            })
            .collect()
    }

    /// Reports every key that was never asked for, with a suggestion.
    pub(crate) fn finish(&self) {
        let known = self.known.borrow();
        for (k, _) in self.table.iter() {
            let key: &str = k.get_ref().as_ref();
            if known.contains(&key) {
                continue;
            }
            let hint = match suggest(key, &known) {
                Some(s) => format!("; did you mean `{s}`?"),
                None => format!(" (known: {})", known.join(", ")),
            };
            self.reader
                .problem(&k.span(), format!("unknown key `{}`{hint}", self.name(key)));
        }
    }
}

/// `Some(Some(x))` for a non-negative integer, `Some(None)` for a negative or too large one,
/// `None` for a value that is not an integer.
fn integer(v: &DeValue<'_>) -> Option<Option<u64>> {
    let DeValue::Integer(i) = v else {
        return None;
    };
    let digits: String = i.as_str().chars().filter(|&c| c != '_').collect();
    Some(u64::from_str_radix(digits.trim_start_matches('+'), i.radix()).ok())
}

/// The value of an integer or float.
fn number(v: &DeValue<'_>) -> Option<f64> {
    match v {
        DeValue::Integer(i) => {
            let digits: String = i.as_str().chars().filter(|&c| c != '_').collect();
            i64::from_str_radix(&digits, i.radix())
                .ok()
                .map(|x| x as f64)
        }
        DeValue::Float(f) => {
            let text: String = f.as_str().chars().filter(|&c| c != '_').collect();
            text.parse::<f64>().ok()
        }
        _ => None,
    }
}

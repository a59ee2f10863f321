//! Reading one element's attributes with errors that name the format, the element and the
//! attribute.

use super::decimal::{self, Ns};
use super::FORMAT;
use crate::interop::InteropError;
use roxmltree::Node;

/// An element and how messages name it (`task 2 (`T3`)`, `<sched>`).
pub(crate) struct Element<'a, 'input> {
    pub(crate) node: Node<'a, 'input>,
    pub(crate) place: String,
}

impl<'a, 'input> Element<'a, 'input> {
    pub(crate) fn new(node: Node<'a, 'input>, place: impl Into<String>) -> Self {
        Element {
            node,
            place: place.into(),
        }
    }

    /// The error for attribute `name`.
    pub(crate) fn error(&self, name: &str, message: impl Into<String>) -> InteropError {
        InteropError::Field {
            format: FORMAT,
            place: self.place.clone(),
            field: format!("attribute `{name}`"),
            message: message.into(),
        }
    }

    /// Attribute `name`, if present.
    pub(crate) fn get(&self, name: &str) -> Option<&'a str> {
        self.node.attribute(name)
    }

    /// Attribute `name`, required.
    pub(crate) fn require(&self, name: &str) -> Result<&'a str, InteropError> {
        self.get(name)
            .ok_or_else(|| self.error(name, "missing (SimSo requires it)"))
    }

    /// A whole number (SimSo reads it with Python's `int`).
    pub(crate) fn int(&self, name: &str) -> Result<Option<i64>, InteropError> {
        self.get(name)
            .map(|v| {
                v.trim()
                    .parse::<i64>()
                    .map_err(|_| self.error(name, format!("`{v}` is not a whole number")))
            })
            .transpose()
    }

    /// A count of cycles (SimSo reads overheads with `int(float(…))`), as written.
    pub(crate) fn cycles(&self, name: &str) -> Result<Option<f64>, InteropError> {
        self.get(name)
            .map(|v| match v.trim().parse::<f64>() {
                Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
                _ => Err(self.error(
                    name,
                    format!("`{v}` is not a non-negative number of cycles"),
                )),
            })
            .transpose()
    }

    /// A number for reports and defaults (never for scheduling decisions).
    pub(crate) fn float(&self, name: &str) -> Result<Option<f64>, InteropError> {
        self.get(name)
            .map(|v| match v.trim().parse::<f64>() {
                Ok(x) if x.is_finite() => Ok(x),
                _ => Err(self.error(name, format!("`{v}` is not a finite number"))),
            })
            .transpose()
    }

    /// A time in milliseconds, as whole nanoseconds (see [`decimal`]).
    pub(crate) fn ms(&self, name: &str) -> Result<Option<Ns>, InteropError> {
        self.get(name)
            .map(|v| {
                decimal::to_ns(v, 6).map_err(|m| self.error(name, format!("{m} (milliseconds)")))
            })
            .transpose()
    }
}

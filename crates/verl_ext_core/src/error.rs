//! Errors of the core; the binding crate maps each variant to a `verl_ext.exceptions` class.

use thiserror::Error;

#[derive(Debug, Clone, Error, PartialEq, Eq)]
pub enum CoreError {
    /// An input has a type the scorer cannot take (verl raises `AttributeError`/`TypeError` there).
    #[error("{field} for data source {data_source:?} must be a str, got {got}")]
    NotText { field: &'static str, data_source: String, got: String },
    /// A format-reward specification that cannot be compiled.
    #[error("invalid format reward specification: {0}")]
    InvalidFormatSpec(String),
    /// Inconsistent batch arguments.
    #[error("{0}")]
    InvalidArgument(String),
}

//! verl-ext core: pure Rust, no Python types and no `unsafe` (the sandbox, which needs raw system calls,
//! is the crate `verl_ext_sandbox`). The PyO3 binding lives in `verl_ext_py`.

#![forbid(unsafe_code)]

pub mod dispatch;
pub mod error;
pub mod mathverify;
pub mod parallel;
pub mod scorers;
pub mod text;

pub use dispatch::{score, score_batch, Outcome, Sample, Score, Scored, Scorer, Value};
pub use error::CoreError;
pub use scorers::format::FormatSpec;
pub use scorers::math_dapo::DapoScore;

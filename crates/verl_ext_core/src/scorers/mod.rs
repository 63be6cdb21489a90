//! Rule-based scorers, each a faithful port of one verl module.

pub mod format;
pub mod gsm8k;
pub mod math_dapo;
pub mod math_reward;

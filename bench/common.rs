//! What the benchmark programs share: their flags and their percentiles.

use std::time::Duration;

/// The value after `name` in `args`, parsed; `None` when absent or
/// unparsable.
pub fn flag<T: std::str::FromStr>(args: &[String], name: &str) -> Option<T> {
    let at = args.iter().position(|a| a == name)?;
    args.get(at + 1)?.parse().ok()
}

/// The `p`-th percentile (nearest rank).
#[allow(dead_code)] // not every benchmark reports percentiles
pub fn quantile(values: &[Duration], p: usize) -> Duration {
    let mut sorted = values.to_vec();
    sorted.sort();
    let at = ((sorted.len() * p).div_ceil(100)).clamp(1, sorted.len()) - 1;
    sorted[at]
}

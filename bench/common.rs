//! What the benchmark programs share: their flags, their percentiles, and
//! what `/proc` says of a process. Not every benchmark uses every piece.
#![allow(dead_code)]

use std::time::Duration;

/// The value after `name` in `args`, parsed; `None` when absent or
/// unparsable.
pub fn flag<T: std::str::FromStr>(args: &[String], name: &str) -> Option<T> {
    let at = args.iter().position(|a| a == name)?;
    args.get(at + 1)?.parse().ok()
}

/// The `p`-th percentile (nearest rank).
pub fn quantile(values: &[Duration], p: usize) -> Duration {
    let mut sorted = values.to_vec();
    sorted.sort();
    let at = ((sorted.len() * p).div_ceil(100)).clamp(1, sorted.len()) - 1;
    sorted[at]
}

/// The CPU a process has used (user + system), in clock ticks, from
/// `/proc/PID/stat`; `None` once it is gone.
pub fn cpu_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command name (which may hold spaces) start at
    // its closing parenthesis; utime and stime are the 14th and 15th of
    // the whole line.
    let (_, rest) = stat.rsplit_once(')')?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
}

/// The kernel's clock ticks per second (`getconf CLK_TCK`), asked once.
pub fn clock_ticks() -> u64 {
    static TICKS: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *TICKS.get_or_init(|| {
        let out = std::process::Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .expect("getconf CLK_TCK");
        String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .expect("a number of clock ticks")
    })
}

/// (`VmRSS`, `VmHWM`) of a process in KiB, from `/proc/PID/status`; `None`
/// once it is gone.
pub fn memory_kib(pid: u32) -> Option<(u64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    Some((field("VmRSS:"), field("VmHWM:")))
}

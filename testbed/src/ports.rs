//! Free loopback ports. A port handed out is one nothing listens on, taken
//! from below the kernel's ephemeral range: a port the kernel picks for
//! `bind(0)` comes from that range, and so does the local port of every
//! outgoing connection on the machine, so between the moment a test picks
//! such a port and the moment a member or a delay proxy binds it, any
//! connection may take it (`Address already in use`, seen in CI). Below
//! the range only listeners compete, and a process-wide set makes sure two
//! clusters in one test binary never get the same port.

use std::collections::HashSet;
use std::net::TcpListener;
use std::sync::{Mutex, OnceLock};

use crate::Result;

fn handed_out() -> &'static Mutex<HashSet<u16>> {
    static PORTS: OnceLock<Mutex<HashSet<u16>>> = OnceLock::new();
    PORTS.get_or_init(|| Mutex::new(HashSet::new()))
}

/// A port on 127.0.0.1 that nothing listens on right now, below the
/// ephemeral range.
pub fn free_port() -> Result<u16> {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let (low, high) = outside_ephemeral();
    let span = u32::from(high - low) + 1;
    // Each test process starts somewhere else in the span, so that two
    // processes at once rarely try the same ports.
    let start = std::process::id().wrapping_mul(7919) % span;
    for _ in 0..span.min(5000) {
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        let offset = u16::try_from((start + n) % span).map_err(|e| e.to_string())?;
        let port = low + offset;
        {
            let set = handed_out()
                .lock()
                .map_err(|_| "port set poisoned".to_string())?;
            if set.contains(&port) {
                continue;
            }
        }
        if TcpListener::bind(("127.0.0.1", port)).is_err() {
            continue;
        }
        let mut set = handed_out()
            .lock()
            .map_err(|_| "port set poisoned".to_string())?;
        if set.insert(port) {
            return Ok(port);
        }
    }
    Err(format!("no free port in {low}-{high}"))
}

/// The ports the test bed hands out: from 10000 up to the first port of
/// the kernel's ephemeral range (`net.ipv4.ip_local_port_range`), or
/// 10000–29999 where that cannot be read or leaves too little room.
fn outside_ephemeral() -> (u16, u16) {
    const LOW: u16 = 10_000;
    let first = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|text| text.split_whitespace().next()?.parse::<u16>().ok());
    match first {
        Some(first) if first > LOW + 2_000 => (LOW, first - 1),
        _ => (LOW, 29_999),
    }
}

/// A loopback address of its own (127.A.B.C) on which both etcd's standard
/// ports, 2379 and 2380, are free, so that a member can listen exactly where
/// an operator-managed Pod would. `A` is derived from the process id, so
/// concurrent test processes use different ranges.
pub fn free_loopback_ip() -> Result<String> {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let a = 20 + std::process::id() % 200;
    for _ in 0..1000 {
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        let ip = format!("127.{a}.{}.{}", (n / 250) % 250, n % 250 + 2);
        let free = [2379u16, 2380]
            .iter()
            .all(|p| TcpListener::bind(format!("{ip}:{p}")).is_ok());
        if free {
            return Ok(ip);
        }
    }
    Err("no free loopback address with ports 2379/2380".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_are_distinct_bindable_and_below_the_ephemeral_range() {
        let (low, high) = outside_ephemeral();
        let mut seen = HashSet::new();
        for _ in 0..50 {
            let port = free_port().unwrap();
            assert!((low..=high).contains(&port), "{port} outside {low}-{high}");
            assert!(seen.insert(port), "{port} handed out twice");
            TcpListener::bind(("127.0.0.1", port)).unwrap();
        }
        if let Ok(text) = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range") {
            let first: u16 = text.split_whitespace().next().unwrap().parse().unwrap();
            assert!(
                high < first,
                "{high} reaches the ephemeral range at {first}"
            );
        }
    }
}

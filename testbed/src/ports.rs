//! Free loopback ports. The kernel picks a free port; a process-wide set
//! makes sure two clusters in one test binary never get the same one even
//! if the kernel hands it out again before the first cluster binds it.

use std::collections::HashSet;
use std::net::TcpListener;
use std::sync::{Mutex, OnceLock};

use crate::Result;

fn handed_out() -> &'static Mutex<HashSet<u16>> {
    static PORTS: OnceLock<Mutex<HashSet<u16>>> = OnceLock::new();
    PORTS.get_or_init(|| Mutex::new(HashSet::new()))
}

/// A port on 127.0.0.1 that nothing listens on right now.
pub fn free_port() -> Result<u16> {
    for _ in 0..100 {
        let listener =
            TcpListener::bind("127.0.0.1:0").map_err(|e| format!("bind 127.0.0.1:0: {e}"))?;
        let port = listener
            .local_addr()
            .map_err(|e| format!("local_addr: {e}"))?
            .port();
        drop(listener);
        let mut set = handed_out()
            .lock()
            .map_err(|_| "port set poisoned".to_string())?;
        if set.insert(port) {
            return Ok(port);
        }
    }
    Err("no free port after 100 tries".into())
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

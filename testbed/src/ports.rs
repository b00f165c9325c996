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

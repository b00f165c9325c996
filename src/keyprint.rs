//! Keys held as 128-bit fingerprints: reading a snapshot tracks every key
//! it holds (which are live, which record is each one's newest), and a
//! snapshot holds millions. A fingerprint with what is kept of the key
//! takes a fixed slot, where the key itself is often 60 to 100 bytes plus
//! its allocation.
//!
//! Two keys share a fingerprint with odds of about n²/2¹²⁹ (10⁻²⁵ for ten
//! million keys); they would count as one.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, DefaultHasher, Hasher};

/// A key's SipHash-1-3 under two salts: the same on every run.
pub type Fingerprint = (u64, u64);

/// Fingerprints mapped to what is kept of their keys.
pub type PrintMap<V> = HashMap<Fingerprint, V, BuildHasherDefault<Prehashed>>;

/// A set of fingerprints.
pub type PrintSet = HashSet<Fingerprint, BuildHasherDefault<Prehashed>>;

pub fn fingerprint(key: &[u8]) -> Fingerprint {
    let half = |salt: u8| {
        let mut h = DefaultHasher::new();
        h.write_u8(salt);
        h.write(key);
        h.finish()
    };
    (half(0), half(1))
}

/// The table's hasher: a fingerprint is a hash already, so its halves are
/// folded rather than hashed again.
#[derive(Debug, Default)]
pub struct Prehashed(u64);

impl Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = self.0.rotate_left(32) ^ n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_tell_keys_apart_and_are_the_same_every_run() {
        let prints: PrintSet = (0..100_000)
            .map(|i| fingerprint(format!("/registry/pods/ns/p{i}").as_bytes()))
            .collect();
        assert_eq!(prints.len(), 100_000);
        assert_eq!(fingerprint(b"/a"), fingerprint(b"/a"));
        assert_ne!(fingerprint(b"/a"), fingerprint(b"/a\0"));
        assert_ne!(fingerprint(b""), fingerprint(b"\0"));
        // The halves differ: two salts, not one hash twice.
        let (a, b) = fingerprint(b"/registry/leases/x");
        assert_ne!(a, b);
    }
}

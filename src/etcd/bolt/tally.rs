//! What the walk makes of the buckets' entries, visited in key order: the
//! figures `etcdutl snapshot status` prints but the size (the hash, the
//! key counts, the revision, the storage version), and each record of the
//! `key` bucket, handed to the caller.

use super::{show, user_key, Crc32c, DbStatus, BUCKET_LEAF};
use crate::keyprint::{self, PrintSet};

/// The figures added up so far, and the top-level bucket being visited.
pub(super) struct Tally {
    crc: Crc32c,
    total_keys: u64,
    // Visited in revision order, so the last put or delete of a key wins.
    // Held as fingerprints: a snapshot holds millions of keys.
    live: PrintSet,
    revision: i64,
    storage_version: Option<String>,
    /// The bucket's name, for errors.
    bucket: Vec<u8>,
    is_key: bool,
    is_meta: bool,
    /// The bucket's last key: each key must come after it.
    previous: Option<Vec<u8>>,
}

impl Tally {
    pub(super) fn new() -> Self {
        Tally {
            crc: Crc32c::new(),
            total_keys: 0,
            live: PrintSet::default(),
            revision: 0,
            storage_version: None,
            bucket: Vec::new(),
            is_key: false,
            is_meta: false,
            previous: None,
        }
    }

    /// Starts the top-level bucket `name`: its name goes into the hash
    /// before its entries, as etcdutl hashes it.
    pub(super) fn enter(&mut self, name: &[u8]) {
        self.crc.update(name);
        self.bucket = name.to_vec();
        self.is_key = name == b"key";
        self.is_meta = name == b"meta";
        self.previous = None;
    }

    /// Adds one entry of the bucket entered last, after checking it comes
    /// after the one before: its key, and its value unless it is a nested
    /// bucket, go into the hash, and it counts as a key. An entry of the
    /// `key` bucket is also a record ([`Tally::record`]); the `meta`
    /// bucket's `storageVersion` is the storage version.
    pub(super) fn entry(
        &mut self,
        key: &[u8],
        flags: u32,
        value: &[u8],
        on_record: &mut dyn FnMut(&[u8], u64, bool),
    ) -> Result<(), String> {
        if let Some(previous) = &self.previous {
            if key <= previous.as_slice() {
                return Err(format!(
                    "bucket {}: keys out of order ({} after {})",
                    show(&self.bucket),
                    show(key),
                    show(previous)
                ));
            }
        }
        self.previous = Some(key.to_vec());
        self.crc.update(key);
        // why: bolt hands a nested bucket's entry to ForEach with a nil
        // value, so only plain values reach etcdutl's hash.
        let nested = flags & BUCKET_LEAF != 0;
        if !nested {
            self.crc.update(value);
        }
        self.total_keys = self
            .total_keys
            .checked_add(1)
            .ok_or_else(|| "the key count overflows".to_string())?;
        if self.is_key {
            self.record(key, value, on_record)?;
        }
        if self.is_meta && !nested && key == b"storageVersion" {
            self.storage_version = std::str::from_utf8(value)
                .ok()
                .filter(|v| !v.is_empty())
                .map(str::to_string);
        }
        Ok(())
    }

    /// An entry of the `key` bucket: its revision is the latest so far, its
    /// user key is live unless this is a tombstone, and `on_record` gets
    /// the user key, the bytes the entry takes and whether it is a
    /// tombstone.
    fn record(
        &mut self,
        key: &[u8],
        value: &[u8],
        on_record: &mut dyn FnMut(&[u8], u64, bool),
    ) -> Result<(), String> {
        // A key in the `key` bucket is an mvcc revision: main (8 bytes,
        // big-endian), '_', sub (8 bytes), and 't' for a tombstone.
        let main = key
            .get(..8)
            .and_then(|b| <[u8; 8]>::try_from(b).ok())
            .ok_or_else(|| {
                format!(
                    "the key bucket holds a key of {} bytes, too short for a revision",
                    key.len()
                )
            })?;
        let revision = i64::from_be_bytes(main);
        self.revision = revision;
        let user = user_key(value).ok_or_else(|| {
            format!("the key bucket's entry at revision {revision} holds no readable key")
        })?;
        // A tombstone's revision key ends in 't' after main_sub.
        let tombstone = key.len() == 18 && key.get(17) == Some(&b't');
        let print = keyprint::fingerprint(user);
        if tombstone {
            self.live.remove(&print);
        } else {
            self.live.insert(print);
        }
        on_record(user, (key.len() + value.len()) as u64, tombstone);
        Ok(())
    }

    /// The database's figures, its size (`total_size`) from the meta page.
    pub(super) fn status(self, total_size: u64) -> DbStatus {
        DbStatus {
            hash: self.crc.finish(),
            revision: self.revision,
            total_keys: self.total_keys,
            live_keys: self.live.len() as u64,
            total_size,
            storage_version: self.storage_version,
        }
    }
}

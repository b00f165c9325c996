//! Reading an etcd snapshot or backend file (a bbolt database) ourselves,
//! without `etcdutl`: the numbers `etcdutl snapshot status` prints (hash,
//! revision, total keys, total size, storage version), and the check of the
//! SHA-256 trailer that etcd's Snapshot RPC appends to the database bytes.
//!
//! The file is only ever read through positioned reads of single pages
//! (`ReadAt`), so an 8 GB snapshot is never loaded whole. Every structure
//! read from the file is bounds-checked: a truncated, corrupted or foreign
//! file yields an error sentence, never a panic.
//!
//! The bbolt on-disk format, as far as it matters here (little-endian):
//! - a page starts with a 16-byte header {id u64, flags u16, count u16,
//!   overflow u32} and spans (overflow + 1) pages at offset id × page size;
//! - pages 0 and 1 hold the two meta copies (the struct starts at byte 16):
//!   {magic, version, page size, flags: u32; root bucket {root, sequence}:
//!   u64; freelist, high-water page id, txid, checksum: u64}, the checksum
//!   being FNV-1a 64 over the 56 bytes before it;
//! - a branch element is {pos u32, ksize u32, child pgid u64}, a leaf element
//!   {flags u32, pos u32, ksize u32, vsize u32}; `pos` counts from the
//!   element itself, and a leaf's value follows its key;
//! - a bucket's value starts with {root pgid u64, sequence u64}; root 0 means
//!   an inline bucket whose (leaf) page follows that header inside the value.

mod tally;

use std::io;

use tally::Tally;

/// Random-access reads of the file (a positioned read), so an 8 GB snapshot is never loaded whole.
// why no `is_empty`: the length only bounds reads; an empty file is just
// "not a bolt database", which `status` reports like any other short file.
#[allow(clippy::len_without_is_empty)]
pub trait ReadAt {
    /// Fills `buf` from `offset`; an error (as text) when the file is shorter.
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()>;
    fn len(&self) -> io::Result<u64>;
}

// why unix only: `pread` through `FileExt`; the tool runs where kubectl and
// etcd run (Linux, macOS).
impl ReadAt for std::fs::File {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        std::os::unix::fs::FileExt::read_exact_at(self, buf, offset)
    }

    fn len(&self) -> io::Result<u64> {
        Ok(self.metadata()?.len())
    }
}

impl ReadAt for [u8] {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        let src = usize::try_from(offset)
            .ok()
            .and_then(|start| Some(start..start.checked_add(buf.len())?))
            .and_then(|range| self.get(range));
        match src {
            Some(src) => {
                buf.copy_from_slice(src);
                Ok(())
            }
            None => Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "{} bytes at offset {offset} are past the end of {} bytes",
                    buf.len(),
                    <[u8]>::len(self)
                ),
            )),
        }
    }

    fn len(&self) -> io::Result<u64> {
        Ok(<[u8]>::len(self) as u64)
    }
}

/// What `etcdutl snapshot status` reports about a database.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct DbStatus {
    /// CRC-32C (Castagnoli) over every top-level bucket name, then each of its keys and values, in key order: the number `etcdutl snapshot status` prints as "hash".
    pub hash: u32,
    /// The main revision of the last key in the `key` bucket (0 when empty).
    pub revision: i64,
    /// Entries in all top-level buckets: etcdutl 3.5's totalKey.
    pub total_keys: u64,
    /// The user keys that exist at `revision`: distinct keys in the `key`
    /// bucket whose newest revision is not a tombstone. etcdutl 3.6 prints
    /// this as totalKey (3.5 printed `total_keys` under the same name).
    pub live_keys: u64,
    /// The database size bolt reports: high-water page id × page size (etcdutl's totalSize).
    pub total_size: u64,
    /// The storage version etcd 3.6 writes in the `meta` bucket under `storageVersion` (None for 3.5 and older).
    pub storage_version: Option<String>,
}

/// The state of the SHA-256 trailer of a snapshot file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Integrity {
    /// The file ends with the 32-byte SHA-256 that etcd's Snapshot RPC appends, and it matches the database bytes before it.
    Verified,
    /// It ends with such a trailer that does NOT match (bytes changed after etcd sent them).
    Mismatch,
    /// No trailer: a plain backend file (e.g. copied from a data dir's member/snap/db).
    Absent,
}

const MAGIC: u32 = 0xED0C_DAED;
const VERSION: u32 = 2;
const PAGE_HEADER: usize = 16;
const ELEMENT: usize = 16;
/// The meta struct, checksum included; the checksum covers the bytes before it.
const META_LEN: usize = 64;
const META_CHECKSUMMED: usize = 56;
const BUCKET_HEADER: usize = 16;

const BRANCH_PAGE: u16 = 0x01;
const LEAF_PAGE: u16 = 0x02;
const META_PAGE: u16 = 0x04;
const FREELIST_PAGE: u16 = 0x10;
/// Leaf element flag: the value is a nested bucket, not plain data.
const BUCKET_LEAF: u32 = 0x01;

/// bbolt trees are a handful of levels deep; anything deeper is a loop the
/// page-reuse check did not catch, or garbage.
const MAX_DEPTH: u32 = 64;
/// The page sizes bolt can have written: it probes the second meta page up to
/// 16 MiB, and pages smaller than 512 bytes do not exist on any platform.
const MIN_PAGE_SIZE: u32 = 512;
const MAX_PAGE_SIZE: u32 = 16 << 20;

/// etcdutl's rule for an appended SHA-256 (`size % 512 == sha256.Size`).
const TRAILER_LEN: u64 = 32;
const TRAILER_MODULUS: u64 = 512;
/// The read size when streaming the file into SHA-256.
const CHUNK: usize = 1 << 20;

/// Walks the database. Errors are one plain sentence naming what is wrong (not a bolt file, bad magic, both meta pages fail their checksum, a page id beyond the file, a page of the wrong type where a branch/leaf was expected, a cycle or depth > 64, ...). Never panics on any input (use checked slicing everywhere: `get(..)`, checked arithmetic).
pub fn status(file: &(impl ReadAt + ?Sized)) -> Result<DbStatus, String> {
    walk_db(file, &mut |_, _, _| {}).map(|(status, _)| status)
}

/// The database's figures and how its pages are used, for `snapshot usage`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Walked {
    pub status: DbStatus,
    pub page_size: u64,
    /// Pages the trees reach (branches, leaves, overflow), with the two meta
    /// pages: what is in use. The rest below the high-water mark is free
    /// (and the freelist's own pages, a handful).
    pub pages_in_use: u64,
}

/// Walks the database as [`status`] does, and hands every entry of the
/// `key` bucket to `record` in revision order: the user key, the bytes the
/// entry takes (revision key and stored record), and whether it is a
/// deletion (a tombstone).
pub fn records(
    file: &(impl ReadAt + ?Sized),
    record: &mut dyn FnMut(&[u8], u64, bool),
) -> Result<Walked, String> {
    let (status, (page_size, reached)) = walk_db(file, record)?;
    Ok(Walked {
        status,
        page_size,
        pages_in_use: reached + 2,
    })
}

/// The walk behind [`status`] and [`records`]; also answers the page size
/// and how many pages the trees reached.
fn walk_db(
    file: &(impl ReadAt + ?Sized),
    on_record: &mut dyn FnMut(&[u8], u64, bool),
) -> Result<(DbStatus, (u64, u64)), String> {
    let file_len = file
        .len()
        .map_err(|e| format!("cannot read the file's length: {e}"))?;
    let page_size = detect_page_size(file, file_len)?;
    let meta = current_meta(file, file_len, page_size)?;
    let total_size = database_size(&meta, page_size, file_len)?;
    let mut walker = Walker::new(file, page_size, meta.high_water)?;

    // The root bucket's entries are the top-level buckets; there are a dozen
    // in etcd, so they are collected before each one is walked.
    let buckets = walker.top_level_buckets(meta.root)?;
    let mut tally = Tally::new();
    for (name, header) in &buckets {
        tally.enter(name);
        walker.bucket(name, header, &mut |key: &[u8], flags: u32, value: &[u8]| {
            tally.entry(key, flags, value, on_record)
        })?;
    }

    let reached = walker.seen.iter().map(|w| u64::from(w.count_ones())).sum();
    Ok((tally.status(total_size), (u64::from(page_size), reached)))
}

/// The database's size, high-water page id × page size, once the meta
/// page is found to fit the file: no more bytes than the file has, and the
/// root bucket's page below the high-water mark.
fn database_size(meta: &Meta, page_size: u32, file_len: u64) -> Result<u64, String> {
    let total_size = meta
        .high_water
        .checked_mul(u64::from(page_size))
        .ok_or_else(|| format!("the high-water page id {} overflows", meta.high_water))?;
    // why: a snapshot holds exactly `total_size` bytes of database (plus the
    // trailer); fewer means the copy was cut short, even if the pages this
    // walk reaches happen to lie in what is left.
    if total_size > file_len {
        return Err(format!(
            "the file is truncated: its meta page describes a {total_size}-byte database but the file has {file_len} bytes"
        ));
    }
    if meta.root >= meta.high_water {
        return Err(format!(
            "the root bucket's page {} is beyond the high-water mark {}",
            meta.root, meta.high_water
        ));
    }
    Ok(total_size)
}

/// The user key inside a stored `mvccpb.KeyValue`: field 1 (length-delimited,
/// tag 0x0a), which etcd's marshaller writes first.
fn user_key(value: &[u8]) -> Option<&[u8]> {
    if *value.first()? != 0x0a {
        return None;
    }
    let mut len: u64 = 0;
    let mut at = 1;
    for shift in (0..64).step_by(7) {
        let byte = *value.get(at)?;
        at += 1;
        len |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            let end = at.checked_add(usize::try_from(len).ok()?)?;
            return value.get(at..end);
        }
    }
    None
}

/// Checks the appended SHA-256: a file whose length % 512 == 32 carries one (that is the rule etcdutl uses: `hasHash := size % 512 == sha256.Size`). Streams the file in chunks (e.g. 1 MiB) into SHA-256.
pub fn integrity(file: &(impl ReadAt + ?Sized)) -> Result<Integrity, String> {
    let len = file
        .len()
        .map_err(|e| format!("cannot read the file's length: {e}"))?;
    if len % TRAILER_MODULUS != TRAILER_LEN {
        return Ok(Integrity::Absent);
    }
    // `len % 512 == 32` implies len >= 32.
    let db_len = len - TRAILER_LEN;
    let mut trailer = [0u8; TRAILER_LEN as usize];
    read(file, &mut trailer, db_len)?;

    let mut sha = ring::digest::Context::new(&ring::digest::SHA256);
    let mut buf = vec![0u8; CHUNK];
    let mut offset = 0u64;
    while offset < db_len {
        let n = usize::try_from(db_len - offset).map_or(CHUNK, |left| left.min(CHUNK));
        let chunk = buf.get_mut(..n).unwrap_or_default();
        read(file, chunk, offset)?;
        sha.update(chunk);
        offset += n as u64;
    }
    if sha.finish().as_ref() == trailer.as_slice() {
        Ok(Integrity::Verified)
    } else {
        Ok(Integrity::Mismatch)
    }
}

fn read(file: &(impl ReadAt + ?Sized), buf: &mut [u8], offset: u64) -> Result<(), String> {
    file.read_exact_at(buf, offset)
        .map_err(|e| format!("cannot read {} bytes at offset {offset}: {e}", buf.len()))
}

/// The fields of a meta page this module uses.
#[derive(Debug, Clone, Copy)]
struct Meta {
    page_size: u32,
    root: u64,
    high_water: u64,
    txid: u64,
}

/// Why a meta copy was rejected, in the order bolt checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BadMeta {
    Short,
    Magic(u32),
    Version(u32),
    Checksum,
}

impl std::fmt::Display for BadMeta {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BadMeta::Short => write!(f, "the file ends before it"),
            BadMeta::Magic(m) => write!(f, "bad magic {m:#010x} (a bolt file has {MAGIC:#010x})"),
            BadMeta::Version(v) => write!(f, "bolt format version {v}, not {VERSION}"),
            BadMeta::Checksum => write!(f, "its checksum does not match"),
        }
    }
}

/// Parses and validates the meta struct of the page that starts `page`.
fn parse_meta(page: &[u8]) -> Result<Meta, BadMeta> {
    let m = page
        .get(PAGE_HEADER..PAGE_HEADER + META_LEN)
        .ok_or(BadMeta::Short)?;
    let magic = le_u32(m, 0).ok_or(BadMeta::Short)?;
    if magic != MAGIC {
        return Err(BadMeta::Magic(magic));
    }
    let version = le_u32(m, 4).ok_or(BadMeta::Short)?;
    if version != VERSION {
        return Err(BadMeta::Version(version));
    }
    let checksum = le_u64(m, META_CHECKSUMMED).ok_or(BadMeta::Short)?;
    if fnv1a64(m.get(..META_CHECKSUMMED).unwrap_or_default()) != checksum {
        return Err(BadMeta::Checksum);
    }
    Ok(Meta {
        page_size: le_u32(m, 8).ok_or(BadMeta::Short)?,
        root: le_u64(m, 16).ok_or(BadMeta::Short)?,
        high_water: le_u64(m, 40).ok_or(BadMeta::Short)?,
        txid: le_u64(m, 48).ok_or(BadMeta::Short)?,
    })
}

/// Reads up to `max` bytes at `offset` (fewer at the end of the file).
fn read_upto(
    file: &(impl ReadAt + ?Sized),
    file_len: u64,
    offset: u64,
    max: usize,
) -> Result<Vec<u8>, String> {
    let left = file_len.saturating_sub(offset);
    let n = usize::try_from(left).map_or(max, |left| left.min(max));
    let mut buf = vec![0u8; n];
    read(file, &mut buf, offset)?;
    Ok(buf)
}

/// The page size, as bolt finds it: from meta page 0, else from a valid
/// meta page at one of the sizes bolt can use (1 KiB … 16 MiB).
fn detect_page_size(file: &(impl ReadAt + ?Sized), file_len: u64) -> Result<u32, String> {
    let first = read_upto(file, file_len, 0, 0x1000)?;
    if first.len() < PAGE_HEADER + META_LEN {
        return Err(format!(
            "not a bolt database: the file has only {file_len} bytes"
        ));
    }
    let from_first = parse_meta(&first);
    let page_size = match from_first {
        Ok(meta) => Some(meta.page_size),
        Err(_) => (0..=14u32)
            .map(|shift| 1024u64 << shift)
            .take_while(|pos| file_len.checked_sub(1024).is_some_and(|end| *pos < end))
            .find_map(|pos| {
                let page = read_upto(file, file_len, pos, 0x1000).ok()?;
                parse_meta(&page).ok().map(|m| m.page_size)
            }),
    };
    match (page_size, from_first) {
        (Some(size), _) if (MIN_PAGE_SIZE..=MAX_PAGE_SIZE).contains(&size) => Ok(size),
        (Some(size), _) => Err(format!(
            "the meta page gives a page size of {size} bytes, outside what bolt writes ({MIN_PAGE_SIZE} to {MAX_PAGE_SIZE})"
        )),
        (None, Err(BadMeta::Magic(m))) => Err(format!(
            "not a bolt database: bad magic {m:#010x} at the start of the file (a bolt file has {MAGIC:#010x})"
        )),
        (None, Err(BadMeta::Checksum)) => Err(
            "both meta pages fail their checksum: the database is corrupted".to_string(),
        ),
        (None, Err(reason)) => Err(format!("not a usable bolt database: meta page 0: {reason}")),
        // Unreachable: a valid first meta always gives a page size.
        (None, Ok(_)) => Err("no valid meta page".to_string()),
    }
}

/// The meta copy bolt would use: the valid one with the higher txid.
fn current_meta(
    file: &(impl ReadAt + ?Sized),
    file_len: u64,
    page_size: u32,
) -> Result<Meta, String> {
    let at = |offset: u64| -> Result<Meta, BadMeta> {
        if file_len < offset.saturating_add((PAGE_HEADER + META_LEN) as u64) {
            return Err(BadMeta::Short);
        }
        let page = read_upto(file, file_len, offset, PAGE_HEADER + META_LEN)
            .map_err(|_| BadMeta::Short)?;
        parse_meta(&page)
    };
    match (at(0), at(u64::from(page_size))) {
        (Ok(m0), Ok(m1)) => Ok(if m1.txid > m0.txid { m1 } else { m0 }),
        (Ok(m), Err(_)) | (Err(_), Ok(m)) => Ok(m),
        (Err(BadMeta::Checksum), Err(BadMeta::Checksum)) => {
            Err("both meta pages fail their checksum: the database is corrupted".to_string())
        }
        (Err(e0), Err(e1)) => Err(format!(
            "neither meta page is valid: page 0: {e0}; page 1: {e1}"
        )),
    }
}

/// Where a page being walked came from, for bounds and error messages.
#[derive(Debug, Clone, Copy)]
enum PageRef {
    Stored(u64),
    /// The page inside an inline bucket's value.
    Inline,
}

impl std::fmt::Display for PageRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PageRef::Stored(id) => write!(f, "page {id}"),
            PageRef::Inline => write!(f, "the inline bucket page"),
        }
    }
}

/// A top-level bucket as the root holds it: its name, and its value (the
/// bucket's header).
type TopBucket = (Vec<u8>, Vec<u8>);

/// What a leaf entry is handed to: key, element flags, value.
type Visit<'v> = dyn FnMut(&[u8], u32, &[u8]) -> Result<(), String> + 'v;

struct Walker<'f, F: ReadAt + ?Sized> {
    file: &'f F,
    page_size: u64,
    high_water: u64,
    /// One bit per page id below the high-water mark: already read. A page
    /// reached twice is a cycle or two trees sharing a page; either way the
    /// file is corrupt, and the walk stays bounded by the file's size.
    seen: Vec<u64>,
}

impl<'f, F: ReadAt + ?Sized> Walker<'f, F> {
    /// A walker of the pages below `high_water`, none of them read yet.
    fn new(file: &'f F, page_size: u32, high_water: u64) -> Result<Self, String> {
        Ok(Walker {
            file,
            page_size: u64::from(page_size),
            high_water,
            seen: vec![
                0;
                usize::try_from(high_water.div_ceil(64))
                    .map_err(|_| "the database is too large for this machine".to_string())?
            ],
        })
    }

    /// The top-level buckets, in order, from the root bucket at page
    /// `root`: each one's name and its value (the bucket's header). Every
    /// entry of the root must be a bucket, after the one before it.
    fn top_level_buckets(&mut self, root: u64) -> Result<Vec<TopBucket>, String> {
        let page = self.page(root)?;
        let mut buckets: Vec<TopBucket> = Vec::new();
        self.walk(
            &page,
            PageRef::Stored(root),
            0,
            &mut |name, flags, value| {
                if flags & BUCKET_LEAF == 0 {
                    return Err(format!("the top-level key {} is not a bucket", show(name)));
                }
                if let Some((last, _)) = buckets.last() {
                    if name <= last.as_slice() {
                        return Err(format!(
                            "the top-level buckets are out of order: {} after {}",
                            show(name),
                            show(last)
                        ));
                    }
                }
                buckets.push((name.to_vec(), value.to_vec()));
                Ok(())
            },
        )?;
        Ok(buckets)
    }

    /// Hands every entry of the top-level bucket `name` to `visit`, from
    /// its `header`: under its root page, or in the inline page that
    /// follows the header when the root is 0. Errors name the bucket.
    fn bucket(&mut self, name: &[u8], header: &[u8], visit: &mut Visit<'_>) -> Result<(), String> {
        if header.len() < BUCKET_HEADER {
            return Err(format!(
                "bucket {}: its header is {} bytes, shorter than {BUCKET_HEADER}",
                show(name),
                header.len()
            ));
        }
        let bucket_root = le_u64(header, 0).unwrap_or_default();
        let walked = if bucket_root == 0 {
            let inline = header.get(BUCKET_HEADER..).unwrap_or_default();
            self.walk(inline, PageRef::Inline, 0, visit)
        } else {
            self.page(bucket_root)
                .and_then(|page| self.walk(&page, PageRef::Stored(bucket_root), 0, visit))
        };
        walked.map_err(|e| format!("bucket {}: {e}", show(name)))
    }

    /// Reads page `id` with its overflow pages, after checking it is a page
    /// this walk may visit.
    fn page(&mut self, id: u64) -> Result<Vec<u8>, String> {
        if id < 2 {
            return Err(format!("a tree points at page {id}, which is a meta page"));
        }
        if id >= self.high_water {
            return Err(format!(
                "a tree points at page {id}, beyond the high-water mark {}",
                self.high_water
            ));
        }
        let offset = id
            .checked_mul(self.page_size)
            .ok_or_else(|| format!("page {id}'s offset overflows"))?;
        let mut header = [0u8; PAGE_HEADER];
        read(self.file, &mut header, offset).map_err(|e| format!("page {id}: {e}"))?;
        let labelled = le_u64(&header, 0).unwrap_or_default();
        if labelled != id {
            return Err(format!(
                "page {id} is labelled as page {labelled}: the tree points at something that is not the start of a page"
            ));
        }
        let overflow = u64::from(le_u32(&header, 12).unwrap_or_default());
        let last = id
            .checked_add(overflow)
            .filter(|last| *last < self.high_water)
            .ok_or_else(|| {
                format!(
                    "page {id} claims {overflow} overflow pages, running past the high-water mark {}",
                    self.high_water
                )
            })?;
        for p in id..=last {
            if self.mark(p) {
                return Err(format!(
                    "page {p} is reached twice (a cycle, or two trees sharing a page)"
                ));
            }
        }
        // `last < high_water` and high_water × page size fits the file, so
        // this neither overflows nor reads past the end.
        let span = usize::try_from((overflow + 1) * self.page_size)
            .map_err(|_| format!("page {id} is too large for this machine"))?;
        let mut buf = Vec::new();
        buf.try_reserve_exact(span)
            .map_err(|_| format!("page {id} ({span} bytes) does not fit in memory"))?;
        buf.resize(span, 0);
        read(self.file, &mut buf, offset).map_err(|e| format!("page {id}: {e}"))?;
        Ok(buf)
    }

    /// Sets page `id`'s bit; true when it was already set.
    fn mark(&mut self, id: u64) -> bool {
        let word = usize::try_from(id / 64)
            .ok()
            .and_then(|w| self.seen.get_mut(w));
        match word {
            Some(word) => {
                let bit = 1u64 << (id % 64);
                let was = *word & bit != 0;
                *word |= bit;
                was
            }
            // Unreachable: ids are checked against the high-water mark first.
            None => true,
        }
    }

    /// Hands every leaf entry under `page` to `visit`, in key order.
    fn walk(
        &mut self,
        page: &[u8],
        at: PageRef,
        depth: u32,
        visit: &mut Visit<'_>,
    ) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err(format!(
                "the tree is more than {MAX_DEPTH} levels deep at {at}"
            ));
        }
        let (flags, count) = le_u16(page, 8)
            .zip(le_u16(page, 10))
            .ok_or_else(|| format!("{at} is shorter than a page header"))?;
        match (flags, at) {
            (LEAF_PAGE, _) => {
                for i in 0..usize::from(count) {
                    let (elem, key, value) = leaf_element(page, i)
                        .ok_or_else(|| format!("{at}: leaf element {i} points outside the page"))?;
                    visit(key, elem, value)?;
                }
                Ok(())
            }
            (BRANCH_PAGE, PageRef::Stored(_)) => {
                if count == 0 {
                    return Err(format!("{at} is a branch page with no elements"));
                }
                for i in 0..usize::from(count) {
                    let child = branch_child(page, i).ok_or_else(|| {
                        format!("{at}: branch element {i} points outside the page")
                    })?;
                    let child_page = self
                        .page(child)
                        .map_err(|e| format!("{e} (a child of {at})"))?;
                    self.walk(&child_page, PageRef::Stored(child), depth + 1, visit)?;
                }
                Ok(())
            }
            (BRANCH_PAGE, PageRef::Inline) => Err(format!(
                "{at} is a branch page; inline buckets hold one leaf"
            )),
            (other, _) => Err(format!(
                "{at} is {} where a branch or leaf page was expected",
                page_type(other)
            )),
        }
    }
}

/// Leaf element `i` of `page`: its flags, key and value.
fn leaf_element(page: &[u8], i: usize) -> Option<(u32, &[u8], &[u8])> {
    let at = i.checked_mul(ELEMENT)?.checked_add(PAGE_HEADER)?;
    let elem = page.get(at..at.checked_add(ELEMENT)?)?;
    let flags = le_u32(elem, 0)?;
    let pos = usize::try_from(le_u32(elem, 4)?).ok()?;
    let ksize = usize::try_from(le_u32(elem, 8)?).ok()?;
    let vsize = usize::try_from(le_u32(elem, 12)?).ok()?;
    let key_start = at.checked_add(pos)?;
    let value_start = key_start.checked_add(ksize)?;
    let key = page.get(key_start..value_start)?;
    let value = page.get(value_start..value_start.checked_add(vsize)?)?;
    Some((flags, key, value))
}

/// The child page id of branch element `i` of `page`.
fn branch_child(page: &[u8], i: usize) -> Option<u64> {
    let at = i.checked_mul(ELEMENT)?.checked_add(PAGE_HEADER)?;
    let elem = page.get(at..at.checked_add(ELEMENT)?)?;
    le_u64(elem, 8)
}

fn page_type(flags: u16) -> String {
    match flags {
        META_PAGE => "a meta page".to_string(),
        FREELIST_PAGE => "a freelist page".to_string(),
        other => format!("a page of unknown type {other:#06x}"),
    }
}

/// A name or key for an error message: quoted, with non-text bytes escaped.
fn show(bytes: &[u8]) -> String {
    format!("{:?}", String::from_utf8_lossy(bytes))
}

fn le_u16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(
        b.get(at..at.checked_add(2)?)?.try_into().ok()?,
    ))
}

fn le_u32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(
        b.get(at..at.checked_add(4)?)?.try_into().ok()?,
    ))
}

fn le_u64(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(
        b.get(at..at.checked_add(8)?)?.try_into().ok()?,
    ))
}

/// FNV-1a, 64 bits: bolt's meta page checksum.
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// CRC-32C (Castagnoli) over pieces fed in turn, by the `crc32c` crate.
struct Crc32c(u32);

impl Crc32c {
    fn new() -> Self {
        Crc32c(0)
    }

    fn update(&mut self, bytes: &[u8]) {
        self.0 = crc32c::crc32c_append(self.0, bytes);
    }

    fn finish(&self) -> u32 {
        self.0
    }
}

#[cfg(test)]
mod tests;

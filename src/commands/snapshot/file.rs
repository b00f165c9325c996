//! The file `snapshot save` writes: FILE checked before anything is
//! dialed, a partial file beside it (owner-only, removed unless
//! committed), the bytes hashed as they are written (etcd's appended
//! SHA-256 checked), and the commit (FILE and FILE.sha256 renamed into
//! place and synced). Whoever sends the bytes, etcd directly or an agent
//! on a control plane's node, the file is written here the same way.

use std::path::{Path, PathBuf};

use ring::digest::{Context, SHA256};
use tokio::io::AsyncWriteExt;

use crate::error::{Error, Result};

/// The length of the SHA-256 etcd appends to a Snapshot stream.
pub(super) const TRAILER: usize = 32;

/// The partial file being written, with its digests.
pub(super) struct Writing {
    file: tokio::io::BufWriter<tokio::fs::File>,
    pub digests: Digests,
    /// The length the sender announced (the database and its checksum).
    pub expected: Option<u64>,
}

impl Writing {
    pub async fn open(temp: &Partial) -> Result<Writing> {
        Ok(Writing {
            file: tokio::io::BufWriter::with_capacity(1 << 20, temp.open_async().await?),
            digests: Digests::new(),
            expected: None,
        })
    }

    pub async fn write(&mut self, temp: &Partial, chunk: &[u8]) -> Result<()> {
        self.file
            .write_all(chunk)
            .await
            .map_err(|e| temp.write_error(e))?;
        self.digests.update(chunk);
        Ok(())
    }

    /// Flushes and syncs the file: its digests and the announced length.
    pub async fn done(mut self, temp: &Partial) -> Result<(Digests, Option<u64>)> {
        self.file.flush().await.map_err(|e| temp.write_error(e))?;
        let file = self.file.into_inner();
        file.sync_all().await.map_err(|e| temp.write_error(e))?;
        Ok((self.digests, self.expected))
    }
}

/// FILE as given, refused (exit 2, before anything is dialed) when it is a
/// directory, its folder does not exist, or it exists and `--force` is not
/// given.
pub(super) fn check_destination(file: &Path, force: bool) -> Result<PathBuf> {
    let shown = file.display();
    if file.file_name().is_none() {
        return Err(Error::usage(format!("{shown}: FILE must name a file")));
    }
    let dir = parent_of(file);
    if !dir.is_dir() {
        return Err(Error::usage(format!(
            "{shown}: the folder {} does not exist",
            dir.display()
        )));
    }
    if file.is_dir() {
        return Err(Error::usage(format!(
            "{shown} is a folder; FILE must name a file"
        )));
    }
    if file.exists() && !force {
        return Err(Error::usage(format!(
            "{shown} exists; pass --force to replace it"
        )));
    }
    writable(file, &dir)?;
    Ok(file.to_path_buf())
}

/// Whether a file can be made in FILE's folder: one is made there and
/// removed at once (a read-only or foreign folder, or one like /proc that
/// takes no new files, is bad input, said of FILE and its folder before
/// anything is dialed, never of the hidden partial file).
fn writable(file: &Path, dir: &Path) -> Result<()> {
    let probe = dir.join(format!(".kubectl-etcd-probe-{}", std::process::id()));
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
    {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(e) => Err(Error::usage(format!(
            "{}: cannot write a file in the folder {}: {}",
            file.display(),
            dir.display(),
            crate::error::io_reason(&e)
        ))),
    }
}

pub(super) fn parent_of(file: &Path) -> PathBuf {
    match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The SHA-256 of the whole file (what `sha256sum` prints), and of all but
/// its last 32 bytes, which must equal those 32 bytes (etcd's checksum of
/// the database it sent).
pub(super) struct Digests {
    whole: Context,
    database: Context,
    /// The last bytes seen, not yet known to be database rather than the
    /// checksum.
    tail: Vec<u8>,
    pub bytes: u64,
}

impl Digests {
    pub fn new() -> Digests {
        Digests {
            whole: Context::new(&SHA256),
            database: Context::new(&SHA256),
            tail: Vec::with_capacity(2 * TRAILER),
            bytes: 0,
        }
    }

    pub fn update(&mut self, chunk: &[u8]) {
        self.whole.update(chunk);
        self.bytes += chunk.len() as u64;
        if chunk.len() >= TRAILER {
            // Everything held back, and the chunk but its last 32 bytes,
            // is database.
            self.database.update(&self.tail);
            let (body, last) = chunk.split_at(chunk.len() - TRAILER);
            self.database.update(body);
            self.tail.clear();
            self.tail.extend_from_slice(last);
        } else {
            self.tail.extend_from_slice(chunk);
            let spill = self.tail.len().saturating_sub(TRAILER);
            self.database.update(&self.tail[..spill]);
            self.tail.drain(..spill);
        }
    }

    pub fn trailer_matches(&self) -> bool {
        self.tail.len() == TRAILER && self.database.clone().finish().as_ref() == self.tail
    }

    pub fn whole_hex(&self) -> String {
        hex(self.whole.clone().finish().as_ref())
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The temporary file a transfer writes, removed on drop unless committed.
pub(super) struct Partial {
    path: PathBuf,
    target: PathBuf,
    committed: bool,
}

impl Partial {
    /// `.FILE.part-<pid>` beside FILE, new, readable by its owner only (a
    /// snapshot holds every Secret of a Kubernetes cluster).
    pub fn create(target: &Path) -> Result<Partial> {
        use std::os::unix::fs::OpenOptionsExt;
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let path = parent_of(target).join(format!(".{name}.part-{}", std::process::id()));
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
            .map_err(|source| {
                Error::Failed(format!(
                    "cannot write {} (its partial file {}): {}",
                    target.display(),
                    path.display(),
                    crate::error::io_reason(&source)
                ))
            })?;
        Ok(Partial {
            path,
            target: target.to_path_buf(),
            committed: false,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub async fn open_async(&self) -> Result<tokio::fs::File> {
        tokio::fs::OpenOptions::new()
            .write(true)
            .open(&self.path)
            .await
            .map_err(|e| self.write_error(e))
    }

    pub fn write_error(&self, source: std::io::Error) -> Error {
        Error::Failed(format!(
            "cannot write the snapshot to {}: {source}; nothing was saved",
            self.path.display()
        ))
    }

    /// Writes FILE.sha256, renames the snapshot and its checksum into place
    /// and syncs the folder, so both survive a crash once this returns.
    pub fn commit(mut self, sha256: &str) -> Result<()> {
        let name = self
            .target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let sum_path = PathBuf::from(format!("{}.sha256", self.target.display()));
        let sum_temp = PathBuf::from(format!("{}.part", self.path.display()));
        let failed = |what: &str, e: std::io::Error| {
            Error::Failed(format!("cannot {what}: {e}; nothing was saved"))
        };
        let written = std::fs::write(&sum_temp, format!("{sha256}  {name}\n"))
            .and_then(|()| std::fs::File::open(&sum_temp)?.sync_all());
        if let Err(e) = written {
            let _ = std::fs::remove_file(&sum_temp);
            return Err(failed(&format!("write {}", sum_temp.display()), e));
        }
        std::fs::rename(&self.path, &self.target).map_err(|e| {
            let _ = std::fs::remove_file(&sum_temp);
            failed(&format!("rename it to {}", self.target.display()), e)
        })?;
        self.committed = true;
        std::fs::rename(&sum_temp, &sum_path).map_err(|e| {
            let _ = std::fs::remove_file(&sum_temp);
            Error::Failed(format!(
                "the snapshot is in {}, but its checksum could not be put in {}: {e}",
                self.target.display(),
                sum_path.display()
            ))
        })?;
        let _ = std::fs::File::open(parent_of(&self.target)).and_then(|d| d.sync_all());
        Ok(())
    }
}

impl Drop for Partial {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sha(bytes: &[u8]) -> Vec<u8> {
        ring::digest::digest(&SHA256, bytes).as_ref().to_vec()
    }

    /// A stream as etcd sends it: the database, then its SHA-256.
    fn stream(db: &[u8]) -> Vec<u8> {
        let mut all = db.to_vec();
        all.extend(sha(db));
        all
    }

    fn digest_in_chunks(bytes: &[u8], size: usize) -> Digests {
        let mut d = Digests::new();
        for chunk in bytes.chunks(size.max(1)) {
            d.update(chunk);
        }
        d
    }

    #[test]
    fn the_trailer_matches_whatever_the_chunking() {
        let db: Vec<u8> = (0..5000u32).map(|i| (i * 7 % 251) as u8).collect();
        let all = stream(&db);
        for size in [1, 5, 31, 32, 33, 64, 4096, 100_000] {
            let d = digest_in_chunks(&all, size);
            assert!(d.trailer_matches(), "chunks of {size}");
            assert_eq!(d.bytes, all.len() as u64);
            assert_eq!(d.whole_hex(), hex(&sha(&all)), "chunks of {size}");
        }
    }

    #[test]
    fn a_changed_byte_or_a_short_stream_does_not_match() {
        let db = vec![7u8; 3000];
        let mut all = stream(&db);
        all[100] ^= 1;
        assert!(!digest_in_chunks(&all, 512).trailer_matches());
        assert!(!digest_in_chunks(&stream(&db)[..2000], 512).trailer_matches());
        assert!(!digest_in_chunks(&[1, 2, 3], 1).trailer_matches());
    }

    #[test]
    fn the_destination_is_checked_before_anything_is_dialed() {
        let dir = std::env::temp_dir().join(format!("kubectl-etcd-dest-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let existing = dir.join("old.db");
        std::fs::write(&existing, b"x").unwrap();
        let msg = |r: Result<PathBuf>| r.unwrap_err().to_string();
        assert_eq!(
            msg(check_destination(&existing, false)),
            format!("{} exists; pass --force to replace it", existing.display())
        );
        assert!(check_destination(&existing, true).is_ok());
        assert!(msg(check_destination(&dir, true)).contains("is a folder"));
        assert!(msg(check_destination(&dir.join("no/such.db"), false)).contains("does not exist"));
        assert!(check_destination(&dir.join("new.db"), false).is_ok());
        // The probe leaves nothing behind.
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        // A folder that takes no new files is said of FILE and its folder
        // (issue 46: /proc named the hidden partial file, exit 1).
        assert_eq!(
            msg(check_destination(Path::new("/proc/backup.db"), false)),
            "/proc/backup.db: cannot write a file in the folder /proc: no such file or directory"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_uncommitted_partial_file_is_removed_and_is_owner_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("kubectl-etcd-part-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let target = dir.join("s.db");
        let partial = Partial::create(&target).unwrap();
        let path = partial.path().to_path_buf();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        drop(partial);
        assert!(!path.exists());
        assert!(!target.exists());
        let partial = Partial::create(&target).unwrap();
        partial.commit("ab").unwrap();
        assert!(target.exists());
        assert_eq!(
            std::fs::read_to_string(dir.join("s.db.sha256")).unwrap(),
            "ab  s.db\n"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

//! `snapshot save` and `snapshot status`.
//!
//! `save` streams one member's backend (the member `plan::backup` picks)
//! into a temporary file beside the target, owner-only, hashing as it goes.
//! Only a transfer that is complete (as many bytes as the member announced),
//! whose appended SHA-256 matches, that reads back as a bolt database and is
//! synced to disk is renamed into place; anything else (Ctrl-C, SIGTERM or
//! SIGHUP, a full disk, a member that stops sending) removes the temporary
//! file, so FILE is either the previous file or a whole, checked snapshot.
//!
//! `status` reads a file with `etcd::bolt`, without etcdutl.

use std::path::{Path, PathBuf};
use std::time::Instant;

use futures::StreamExt;
use ring::digest::{Context, SHA256};
use tokio::io::AsyncWriteExt;

use crate::error::{Error, ExitStatus, Result};
use crate::etcd::bolt::{self, DbStatus, Integrity};
use crate::etcd::EtcdOps;
use crate::exec::signals::{self, Notices, SignalWatch};
use crate::exec::RunControl;
use crate::output;
use crate::report::{SnapshotContents, SnapshotSaveReport, SnapshotStatusReport};
use crate::settings::command::SnapshotSave as SnapshotSaveArgs;
use crate::settings::Global;

/// The length of the SHA-256 etcd appends to a Snapshot stream.
const TRAILER: usize = 32;

pub async fn save(global: &Global, args: &SnapshotSaveArgs) -> Result<ExitStatus> {
    let target_file = check_destination(&args.file, args.force)?;
    let session = crate::session::open(&global.reach, args.cluster.as_deref()).await?;
    let (ops, target) = (&session.clients, &session.target);
    let look = crate::etcd::take::look(ops, target).await?;
    let super::ReadSource { source, dial, .. } = super::read_source(&look, args.member.as_deref())?;

    // Watched before the partial file exists, so no signal can kill the
    // process and leave it behind. The transfer only reads: the first
    // signal ends it at once.
    let control = RunControl::default();
    let watch = SignalWatch::start(
        &control,
        Notices {
            first: "removing the partial snapshot; nothing was saved".into(),
            hint: None,
            second: "removing the partial snapshot; nothing was saved".into(),
        },
        crate::logging::message,
    )?;
    let temp = Partial::create(&target_file)?;
    let progress =
        output::progress::Transfer::new(global.output, &format!("saving from {}", source.name));
    let started = Instant::now();
    let transfer = stream_into(ops, &dial, &source.name, &temp, &progress);
    let outcome = tokio::select! {
        outcome = transfer => outcome,
        _ = control.cancel.cancelled() => {
            progress.finish();
            drop(temp);
            return Ok(stopped(watch));
        }
    };
    progress.finish();
    let (digests, expected) = outcome?;
    let seconds = started.elapsed().as_secs_f64();
    let bytes = digests.bytes;
    if expected != Some(bytes) {
        return Err(Error::refused(format!(
            "{} ended the snapshot after {bytes} of {} bytes; nothing was saved, try again",
            source.name,
            expected.map_or_else(|| "the announced".into(), |e| e.to_string())
        )));
    }
    if !digests.trailer_matches() {
        return Err(Error::refused(format!(
            "the snapshot from {} does not match the SHA-256 etcd appended (corrupted in transit or on disk); nothing was saved, try again",
            source.name
        )));
    }
    let contents = match read_status(temp.path()).await? {
        Ok(status) => status,
        Err(why) => {
            return Err(Error::refused(format!(
                "the snapshot from {} is not a readable database ({why}); nothing was saved",
                source.name
            )))
        }
    };
    let sha256 = digests.whole_hex();
    // A signal during the checks still wins: nothing is saved. From here
    // on one is ignored until the file is in place (a rename and a sync).
    if watch.received().is_some() {
        drop(temp);
        return Ok(stopped(watch));
    }
    drop(watch);
    temp.commit(&sha256)?;

    let report = SnapshotSaveReport {
        cluster: target.cluster.clone(),
        member: source.name.clone(),
        role: source.role,
        file: target_file.display().to_string(),
        bytes,
        sha256,
        etcd_checksum_verified: true,
        seconds,
        bytes_per_second: (bytes as f64 / seconds.max(1e-3)) as u64,
        contents: contents_of(contents),
    };
    output::print(&report, global.output)?;
    Ok(ExitStatus::Success)
}

/// Streams `member`'s Snapshot into the partial file, counting and hashing
/// as it goes: the digests, and the length etcd announced (the database
/// plus its checksum).
async fn stream_into(
    ops: &crate::etcd::EtcdClients,
    dial: &crate::reach::Dial,
    member: &str,
    temp: &Partial,
    progress: &output::progress::Transfer,
) -> Result<(Digests, Option<u64>)> {
    let mut stream = ops
        .snapshot(dial)
        .await
        .map_err(|e| Error::etcd(format!("start a snapshot of {member}"), e))?;
    let mut file = tokio::io::BufWriter::with_capacity(1 << 20, temp.open_async().await?);
    let mut digests = Digests::new();
    let mut expected = None;
    while let Some(chunk) = stream.next().await {
        let chunk =
            chunk.map_err(|e| Error::etcd(format!("stream the snapshot of {member}"), e))?;
        if expected.is_none() {
            // `remaining` counts the database only; etcd's checksum
            // follows it.
            let total = chunk.blob.len() as u64 + chunk.remaining + TRAILER as u64;
            expected = Some(total);
            progress.total(total);
            tracing::info!(
                "streaming {total} bytes from {member} into {}",
                temp.path().display()
            );
        }
        file.write_all(&chunk.blob)
            .await
            .map_err(|e| temp.write_error(e))?;
        digests.update(&chunk.blob);
        progress.advance(chunk.blob.len() as u64);
    }
    file.flush().await.map_err(|e| temp.write_error(e))?;
    let file = file.into_inner();
    file.sync_all().await.map_err(|e| temp.write_error(e))?;
    Ok((digests, expected))
}

/// After a signal stopped `save` (the partial file already removed): 130
/// for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP.
fn stopped(watch: SignalWatch) -> ExitStatus {
    signals::exit_status(watch.finish(), ExitStatus::Failed, ExitStatus::Interrupted)
}

pub async fn status(global: &Global, file: &std::path::Path) -> Result<ExitStatus> {
    let path = file.to_path_buf();
    let read = tokio::task::spawn_blocking(move || {
        let file = std::fs::File::open(&path)?;
        let bytes = file.metadata()?.len();
        Ok::<_, std::io::Error>((bolt::status(&file), bolt::integrity(&file), bytes))
    })
    .await
    .map_err(|e| Error::Failed(format!("reading the snapshot stopped: {e}")))?;
    let (db, integrity, bytes) = read.map_err(|source| Error::ReadFile {
        flag: "snapshot",
        path: file.display().to_string(),
        source,
    })?;
    let file = file.display().to_string();
    let db = db.map_err(|why| Error::usage(format!("{file} is not an etcd snapshot: {why}")))?;
    let integrity = integrity.map_err(|why| Error::usage(format!("{file}: {why}")))?;
    let report = SnapshotStatusReport {
        file: file.clone(),
        bytes,
        etcd_checksum: match integrity {
            Integrity::Verified => "verified",
            Integrity::Mismatch => "mismatch",
            Integrity::Absent => "absent",
        },
        contents: contents_of(db),
    };
    output::print(&report, global.output)?;
    if integrity == Integrity::Mismatch {
        return Err(Error::refused(format!(
            "{file} does not match the SHA-256 etcd appended when it was saved: it changed since; do not restore it"
        )));
    }
    Ok(ExitStatus::Success)
}

fn contents_of(db: DbStatus) -> SnapshotContents {
    SnapshotContents {
        hash: db.hash,
        revision: db.revision,
        keys: db.live_keys,
        entries: db.total_keys,
        total_size: db.total_size,
        storage_version: db.storage_version,
    }
}

/// Reads the saved file back as a bolt database, off the async threads.
async fn read_status(path: &Path) -> Result<std::result::Result<DbStatus, String>> {
    let path = path.to_path_buf();
    let shown = path.display().to_string();
    tokio::task::spawn_blocking(move || std::fs::File::open(&path).map(|f| bolt::status(&f)))
        .await
        .map_err(|e| Error::Failed(format!("reading {shown} back stopped: {e}")))?
        .map_err(|e| Error::Failed(format!("cannot read {shown} back: {e}")))
}

/// FILE as given, refused (exit 2, before anything is dialed) when it is a
/// directory, its folder does not exist, or it exists and `--force` is not
/// given.
fn check_destination(file: &Path, force: bool) -> Result<PathBuf> {
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
    Ok(file.to_path_buf())
}

fn parent_of(file: &Path) -> PathBuf {
    match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The SHA-256 of the whole file (what `sha256sum` prints), and of all but
/// its last 32 bytes, which must equal those 32 bytes (etcd's checksum of
/// the database it sent).
struct Digests {
    whole: Context,
    database: Context,
    /// The last bytes seen, not yet known to be database rather than the
    /// checksum.
    tail: Vec<u8>,
    bytes: u64,
}

impl Digests {
    fn new() -> Digests {
        Digests {
            whole: Context::new(&SHA256),
            database: Context::new(&SHA256),
            tail: Vec::with_capacity(2 * TRAILER),
            bytes: 0,
        }
    }

    fn update(&mut self, chunk: &[u8]) {
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

    fn trailer_matches(&self) -> bool {
        self.tail.len() == TRAILER && self.database.clone().finish().as_ref() == self.tail
    }

    fn whole_hex(&self) -> String {
        hex(self.whole.clone().finish().as_ref())
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The temporary file a transfer writes, removed on drop unless committed.
struct Partial {
    path: PathBuf,
    target: PathBuf,
    committed: bool,
}

impl Partial {
    /// `.FILE.part-<pid>` beside FILE, new, readable by its owner only (a
    /// snapshot holds every Secret of a Kubernetes cluster).
    fn create(target: &Path) -> Result<Partial> {
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
                Error::Failed(format!("cannot create {}: {source}", path.display()))
            })?;
        Ok(Partial {
            path,
            target: target.to_path_buf(),
            committed: false,
        })
    }

    fn path(&self) -> &Path {
        &self.path
    }

    async fn open_async(&self) -> Result<tokio::fs::File> {
        tokio::fs::OpenOptions::new()
            .write(true)
            .open(&self.path)
            .await
            .map_err(|e| self.write_error(e))
    }

    fn write_error(&self, source: std::io::Error) -> Error {
        Error::Failed(format!(
            "cannot write the snapshot to {}: {source}; nothing was saved",
            self.path.display()
        ))
    }

    /// Writes FILE.sha256, renames the snapshot and its checksum into place
    /// and syncs the folder, so both survive a crash once this returns.
    fn commit(mut self, sha256: &str) -> Result<()> {
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

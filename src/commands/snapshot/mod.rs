//! `snapshot save` and `snapshot status`.
//!
//! `save` streams one member's backend (the member `plan::backup` picks)
//! into a temporary file beside the target, owner-only, hashing as it goes
//! ([`file`]). Only a transfer that is complete (as many bytes as the
//! member announced), whose appended SHA-256 matches, that reads back as a
//! bolt database and is synced to disk is renamed into place; anything
//! else (Ctrl-C, SIGTERM or SIGHUP, a full disk, a member that stops
//! sending) removes the temporary file, so FILE is either the previous
//! file or a whole, checked snapshot. A control plane's etcd is streamed
//! by an agent on its node ([`agent`]) and written here the same way.
//!
//! `status` reads a file with `etcd::bolt`, without etcdutl.

mod agent;
mod file;

pub use agent::{serve, via_agent};

use std::path::Path;
use std::time::Instant;

use futures::StreamExt;

use crate::error::{Error, ExitStatus, Result};
use crate::etcd::bolt::{self, DbStatus, Integrity};
use crate::etcd::EtcdOps;
use crate::exec::signals::{self, Notices, SignalWatch};
use crate::exec::RunControl;
use crate::output;
use crate::report::{SnapshotContents, SnapshotSaveReport, SnapshotStatusReport};
use crate::settings::command::SnapshotSave as SnapshotSaveArgs;
use crate::settings::Global;
use file::{check_destination, Partial, Writing, TRAILER};

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
    let watch = SignalWatch::start(&control, notices(), crate::logging::message)?;
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
    let received = Received {
        temp,
        digests,
        expected,
        member: source.name.clone(),
        role: source.role,
        seconds: started.elapsed().as_secs_f64(),
    };
    let Some(report) = keep(received, target.cluster.clone(), &target_file, || {
        watch.received().is_some()
    })
    .await?
    else {
        return Ok(stopped(watch));
    };
    drop(watch);
    output::print(&report, global.output)?;
    Ok(ExitStatus::Success)
}

/// What the first and second signal during a transfer do.
fn notices() -> Notices {
    Notices {
        first: "removing the partial snapshot; nothing was saved".into(),
        hint: None,
        second: "removing the partial snapshot; nothing was saved".into(),
    }
}

/// A transfer that ended: the partial file, what was written to it, and
/// where it came from.
struct Received {
    temp: Partial,
    digests: file::Digests,
    /// The length announced: the database plus its checksum.
    expected: Option<u64>,
    member: String,
    role: crate::plan::backup::Role,
    seconds: f64,
}

/// Keeps what was received as FILE when it is whole (as long as
/// announced, etcd's checksum matches, a readable database), unless
/// `stopped` says a signal came first (`None`: nothing saved); its report.
async fn keep(
    received: Received,
    cluster: Option<crate::reach::ClusterRef>,
    target_file: &Path,
    stopped: impl Fn() -> bool,
) -> Result<Option<SnapshotSaveReport>> {
    let Received {
        temp,
        digests,
        expected,
        member,
        role,
        seconds,
    } = received;
    let bytes = digests.bytes;
    if expected != Some(bytes) {
        return Err(Error::refused(format!(
            "{member} ended the snapshot after {bytes} of {} bytes; nothing was saved, try again",
            expected.map_or_else(|| "the announced".into(), |e| e.to_string())
        )));
    }
    if !digests.trailer_matches() {
        return Err(Error::refused(format!(
            "the snapshot from {member} does not match the SHA-256 etcd appended (corrupted in transit or on disk); nothing was saved, try again"
        )));
    }
    let contents = match read_status(temp.path()).await? {
        Ok(status) => status,
        Err(why) => {
            return Err(Error::refused(format!(
                "the snapshot from {member} is not a readable database ({why}); nothing was saved"
            )))
        }
    };
    let sha256 = digests.whole_hex();
    // A signal during the checks still wins: nothing is saved. From here
    // on one is ignored until the file is in place (a rename and a sync).
    if stopped() {
        return Ok(None);
    }
    temp.commit(&sha256)?;
    Ok(Some(SnapshotSaveReport {
        cluster,
        member,
        role,
        file: target_file.display().to_string(),
        bytes,
        sha256,
        etcd_checksum_verified: true,
        seconds,
        bytes_per_second: (bytes as f64 / seconds.max(1e-3)) as u64,
        contents: contents_of(contents),
    }))
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
) -> Result<(file::Digests, Option<u64>)> {
    let mut stream = ops
        .snapshot(dial)
        .await
        .map_err(|e| Error::etcd(format!("start a snapshot of {member}"), e))?;
    let mut writing = Writing::open(temp).await?;
    while let Some(chunk) = stream.next().await {
        let chunk =
            chunk.map_err(|e| Error::etcd(format!("stream the snapshot of {member}"), e))?;
        if writing.expected.is_none() {
            let total = announced(chunk.blob.len(), chunk.remaining);
            writing.expected = Some(total);
            progress.total(total);
            tracing::info!(
                "streaming {total} bytes from {member} into {}",
                temp.path().display()
            );
        }
        writing.write(temp, &chunk.blob).await?;
        progress.advance(chunk.blob.len() as u64);
    }
    writing.done(temp).await
}

/// The whole length of a Snapshot stream whose first chunk holds `first`
/// bytes and says `remaining` follow: `remaining` counts the database
/// only; etcd's checksum follows it. Pure.
fn announced(first: usize, remaining: u64) -> u64 {
    first as u64 + remaining + TRAILER as u64
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

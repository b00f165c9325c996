//! `snapshot save` of a control plane's etcd: the member is streamed by
//! an agent on its node ([`serve`], in the agent's Pod) to this tool
//! ([`via_agent`]) through `pods/portforward`, never through the Pod's log
//! (`crate::agent::serve` says why and how the one connection is kept to
//! this tool), and written here as any snapshot is.
//!
//! On the tunnel, after the token: one JSON line ([`Announced`]: the
//! member, its role, the whole length), then the Snapshot stream's bytes
//! as etcd sent them, its checksum included.

use std::path::Path;
use std::time::Instant;

use futures::StreamExt;
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

use super::file::{check_destination, Partial, Writing};
use super::{keep, notices, Received};
use crate::agent::serve::{self as agent_serve, Token, SERVE_ENV};
use crate::error::{Error, ExitStatus, Result};
use crate::etcd::EtcdOps;
use crate::exec::signals::SignalWatch;
use crate::exec::RunControl;
use crate::output;
use crate::report::SnapshotSaveReport;
use crate::settings::command::SnapshotSave as SnapshotSaveArgs;
use crate::settings::Global;

/// What the agent says before the bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Announced {
    member: String,
    role: crate::plan::backup::Role,
    /// The database and etcd's checksum, in bytes.
    bytes: u64,
}

/// How long the tunnel may carry nothing before it is given up: the
/// agent's own stream from etcd gives up after 15 s of silence, and the
/// tunnel crosses the API server and the kubelet besides.
const TUNNEL_IDLE: std::time::Duration = std::time::Duration::from_secs(30);

/// The longest first line a sender may write.
const ANNOUNCED_LIMIT: u64 = 4096;

/// In an agent's Pod: picks the member as `save` does, listens on the
/// node's loopback, and streams its Snapshot to the one connection that
/// presents the token `key` is the SHA-256 of.
pub async fn serve(global: &Global, args: &SnapshotSaveArgs, key: &str) -> Result<ExitStatus> {
    let session = crate::session::open(&global.reach, args.cluster.as_deref()).await?;
    let (ops, target) = (&session.clients, &session.target);
    let look = crate::etcd::take::look(ops, target).await?;
    let super::super::ReadSource { source, dial, .. } =
        super::super::read_source(&look, args.member.as_deref())?;
    let control = RunControl::default();
    let watch = SignalWatch::start(&control, notices(), crate::logging::message)?;
    let (listener, port) = agent_serve::listen().await?;
    output::write_stdout(agent_serve::announce(port).as_bytes())?;
    let sending = async {
        let socket = agent_serve::accept(listener, key).await?;
        send(ops, &dial, &source, socket).await
    };
    tokio::select! {
        sent = sending => sent?,
        () = control.cancel.cancelled() => return Ok(super::stopped(watch)),
    }
    Ok(ExitStatus::Success)
}

/// Streams `source`'s Snapshot to `socket`: [`Announced`], then the bytes.
async fn send(
    ops: &crate::etcd::EtcdClients,
    dial: &crate::reach::Dial,
    source: &crate::plan::backup::Source,
    mut socket: tokio::net::TcpStream,
) -> Result<()> {
    let member = &source.name;
    let mut stream = ops
        .snapshot(dial)
        .await
        .map_err(|e| Error::etcd(format!("start a snapshot of {member}"), e))?;
    let lost = |e: std::io::Error| {
        Error::Failed(format!(
            "agent: the tool's connection broke while {member}'s snapshot was sent: {e}"
        ))
    };
    let mut first = true;
    while let Some(chunk) = stream.next().await {
        let chunk =
            chunk.map_err(|e| Error::etcd(format!("stream the snapshot of {member}"), e))?;
        if first {
            first = false;
            let announced = Announced {
                member: member.clone(),
                role: source.role,
                bytes: super::announced(chunk.blob.len(), chunk.remaining),
            };
            let mut line =
                serde_json::to_vec(&announced).map_err(|e| Error::Failed(format!("agent: {e}")))?;
            line.push(b'\n');
            socket.write_all(&line).await.map_err(lost)?;
        }
        socket.write_all(&chunk.blob).await.map_err(lost)?;
    }
    socket.shutdown().await.map_err(lost)
}

/// Here: `snapshot save FILE` of a control plane's etcd, run by an agent
/// on its node (`args` as typed), written to FILE on this machine.
pub async fn via_agent(
    global: &Global,
    args: &SnapshotSaveArgs,
    typed: Vec<String>,
    kube: &crate::k8s::Kube,
    on_node: &crate::source::controlplane::OnNode,
) -> Result<ExitStatus> {
    let target_file = check_destination(&args.file, args.force)?;
    let token = Token::new()?;
    let env = vec![(SERVE_ENV.to_string(), token.key())];
    let cluster = on_node.cluster.clone();
    let format = global.output;
    let outcome = crate::agent::serve(
        kube,
        &global.agent,
        on_node,
        (typed, env),
        notices(),
        |served, control| receive(served, &token, &target_file, control, (format, cluster)),
    )
    .await?;
    match outcome.used {
        Some(Some(report)) => {
            if outcome.status != ExitStatus::Success {
                crate::logging::message(&format!(
                    "warning: the agent ended with {:?} after the snapshot was saved",
                    outcome.status
                ));
            }
            output::print(&report, global.output)?;
            Ok(ExitStatus::Success)
        }
        // Stopped by a signal here, or the agent never served (it said
        // why): its status.
        Some(None) | None => Ok(outcome.status),
    }
}

/// Receives the agent's snapshot into a partial file beside FILE and keeps
/// it when whole; `None` when a signal stopped it (nothing saved).
async fn receive(
    served: crate::agent::Served,
    token: &Token,
    target_file: &Path,
    control: RunControl,
    (format, cluster): (crate::output::OutputFormat, crate::reach::ClusterRef),
) -> Result<Option<SnapshotSaveReport>> {
    let temp = Partial::create(target_file)?;
    let started = Instant::now();
    let what = format!(
        "port-forward to the agent Pod {}:{}",
        served.pod, served.port
    );
    let mut forward = served
        .pods
        .portforward(&served.pod, &[served.port])
        .await
        .map_err(|e| {
            let access = "(see docs/cli.md, \"The control plane's etcd\", for the access it needs)";
            Error::kube(format!("{what} {access}"), &served.server, e)
        })?;
    let error = forward.take_error(served.port);
    let Some(stream) = forward.take_stream(served.port) else {
        return Err(Error::Failed(format!("{what}: no stream")));
    };
    let mut stream = BufReader::with_capacity(1 << 20, stream);
    let transfer = async {
        stream
            .get_mut()
            .write_all(token.bytes())
            .await
            .map_err(|e| Error::Failed(format!("{what}: {e}")))?;
        let mut line = Vec::new();
        let mut limited = (&mut stream).take(ANNOUNCED_LIMIT);
        let first = limited.read_until(b'\n', &mut line);
        // Silence is taken as a tunnel that carried nothing (below).
        if let Ok(read) = tokio::time::timeout(TUNNEL_IDLE, first).await {
            read.map_err(|e| Error::Failed(format!("{what}: {e}")))?;
        }
        let Ok(announced) = serde_json::from_slice::<Announced>(&line) else {
            return Ok(None);
        };
        let progress = output::progress::Transfer::new(
            format,
            &format!("saving from {} through the agent", announced.member),
        );
        progress.total(announced.bytes);
        let mut writing = Writing::open(&temp).await?;
        writing.expected = Some(announced.bytes);
        let mut buf = vec![0u8; 1 << 20];
        loop {
            let n = tokio::time::timeout(TUNNEL_IDLE, stream.read(&mut buf))
                .await
                .map_err(|_| {
                    Error::Failed(format!(
                        "{what} carried nothing for {} s; nothing was saved, try again",
                        TUNNEL_IDLE.as_secs()
                    ))
                })?
                .map_err(|e| Error::Failed(format!("{what}: {e}")))?;
            if n == 0 {
                break;
            }
            writing.write(&temp, &buf[..n]).await?;
            progress.advance(n as u64);
        }
        progress.finish();
        Ok::<_, Error>(Some((announced, writing.done(&temp).await?)))
    };
    let transferred = tokio::select! {
        t = transfer => t?,
        () = control.cancel.cancelled() => return Ok(None),
    };
    forward.abort();
    let Some((announced, (digests, expected))) = transferred else {
        // The tunnel closed before a word: the kubelet's reason, if any.
        let why = match error {
            Some(e) => tokio::time::timeout(std::time::Duration::from_millis(500), e)
                .await
                .ok()
                .flatten(),
            None => None,
        };
        return Err(Error::Failed(format!(
            "{what} carried no snapshot{}; nothing was saved",
            why.map(|w| format!(" ({w})")).unwrap_or_default()
        )));
    };
    let received = Received {
        temp,
        digests,
        expected,
        member: announced.member,
        role: announced.role,
        seconds: started.elapsed().as_secs_f64(),
    };
    keep(received, Some(cluster), target_file, || {
        control.cancel.is_cancelled()
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_announced_line_reads_back() {
        let announced = Announced {
            member: "cp-1".into(),
            role: crate::plan::backup::Role::Follower,
            bytes: 20_480_032,
        };
        let line = serde_json::to_string(&announced).unwrap();
        assert_eq!(
            line,
            r#"{"member":"cp-1","role":"follower","bytes":20480032}"#
        );
        assert_eq!(serde_json::from_str::<Announced>(&line).unwrap(), announced);
    }
}

//! The agent's side, in its Pod: runs the command line it was given as a
//! child (this same program, without [`RELAY_ENV`]), writes what the
//! child writes to stdout and stderr as numbered frames on its own stdout
//! (the Pod's log), then the child's exit code, and exits with it.
//!
//! A stop signal (the Pod being stopped: SIGTERM) is passed on to the
//! child, which stops as on Ctrl-C: finishes what is in flight and
//! reports; its report is framed like everything else. The relay is the
//! container's first process, which the kernel spares from any signal it
//! has no handler for: it has one for each.

use std::io::Write;
use std::process::Stdio;

use tokio::io::AsyncReadExt;
use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::mpsc;

use super::frame::{encode, Frame};
use super::job::RELAY_ENV;

/// Bytes per frame: well under the 16 KiB a container runtime writes on
/// one log line, once in base64.
const CHUNK: usize = 4096;

/// Whether this process is an agent's relay.
pub fn is_relay() -> bool {
    std::env::var_os(RELAY_ENV).is_some()
}

/// Runs the relay; returns the exit code.
pub fn main() -> u8 {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build();
    match runtime {
        Ok(rt) => rt.block_on(relay()),
        Err(e) => fail(&format!("agent: cannot start its runtime: {e}")),
    }
}

/// Says `why` in a frame of its own (so the tool that started the agent
/// shows it) and ends with 1.
fn fail(why: &str) -> u8 {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "{}",
        encode(1, &Frame::Stderr(format!("{why}\n").into_bytes()))
    );
    let _ = writeln!(out, "{}", encode(2, &Frame::Exit(1)));
    let _ = out.flush();
    1
}

async fn relay() -> u8 {
    let program = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => return fail(&format!("agent: cannot find its own program: {e}")),
    };
    let spawned = tokio::process::Command::new(program)
        .args(std::env::args_os().skip(1))
        .env_remove(RELAY_ENV)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => return fail(&format!("agent: cannot run its command: {e}")),
    };
    if let Some(pid) = child.id().and_then(|p| i32::try_from(p).ok()) {
        pass_signals_on(nix::unistd::Pid::from_raw(pid));
    }
    let (tx, mut rx) = mpsc::channel::<Frame>(64);
    if let Some(out) = child.stdout.take() {
        tokio::spawn(read_into(out, tx.clone(), Frame::Stdout));
    }
    if let Some(err) = child.stderr.take() {
        tokio::spawn(read_into(err, tx.clone(), Frame::Stderr));
    }
    drop(tx);
    let mut seq = 0u64;
    let mut out = std::io::stdout();
    while let Some(frame) = rx.recv().await {
        seq += 1;
        let _ = writeln!(out, "{}", encode(seq, &frame));
        let _ = out.flush();
    }
    let code = match child.wait().await {
        Ok(status) => exit_code(status),
        Err(_) => 1,
    };
    let _ = writeln!(out, "{}", encode(seq + 1, &Frame::Exit(code)));
    let _ = out.flush();
    code
}

/// The code a shell would report for `status`: its own, or 128 + the
/// signal that ended it.
fn exit_code(status: std::process::ExitStatus) -> u8 {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => u8::try_from(code).unwrap_or(1),
        (None, Some(signal)) => u8::try_from(128 + signal).unwrap_or(1),
        (None, None) => 1,
    }
}

/// Reads `from` until it ends, sending what it reads as frames.
async fn read_into<R: tokio::io::AsyncRead + Unpin>(
    mut from: R,
    tx: mpsc::Sender<Frame>,
    wrap: fn(Vec<u8>) -> Frame,
) {
    let mut buf = vec![0u8; CHUNK];
    loop {
        match from.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if tx.send(wrap(buf[..n].to_vec())).await.is_err() {
                    return;
                }
            }
        }
    }
}

/// Passes SIGTERM, SIGINT and SIGHUP on to `child` as they come.
fn pass_signals_on(child: nix::unistd::Pid) {
    use nix::sys::signal::{kill, Signal};
    for (kind, sig) in [
        (SignalKind::terminate(), Signal::SIGTERM),
        (SignalKind::interrupt(), Signal::SIGINT),
        (SignalKind::hangup(), Signal::SIGHUP),
    ] {
        if let Ok(mut stream) = signal(kind) {
            tokio::spawn(async move {
                while stream.recv().await.is_some() {
                    let _ = kill(child, sig);
                }
            });
        }
    }
}

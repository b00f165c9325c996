//! Stop signals, one watcher for every command that changes something or
//! runs long.
//!
//! SIGINT (Ctrl-C), SIGTERM (`kill`'s default, and what Kubernetes sends a
//! Pod it stops) and SIGHUP (the terminal went away) mean the same thing:
//! the first is a stop request ([`RunControl::stop`]: every wait ends at
//! once, a call in flight is awaited, nothing further is started), the
//! second stops waiting for the call in flight too
//! ([`RunControl::abandon_now`]). Without the watcher the first SIGTERM
//! would kill the process mid-change with nothing printed.
//!
//! The watcher remembers which signal came first: SIGTERM and SIGHUP end
//! the command with 128 + their number (143, 129), the code a supervisor
//! expects; Ctrl-C keeps the codes each command documents
//! ([`exit_status`]).

use std::future::Future;
use std::sync::{Arc, OnceLock};

use tokio::signal::unix::{signal, Signal, SignalKind};

use super::RunControl;
use crate::error::{Error, ExitStatus, Result};

/// A signal that stops a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopSignal {
    /// SIGINT: Ctrl-C.
    Interrupt,
    /// SIGTERM: `kill`, or Kubernetes stopping the Pod.
    Terminate,
    /// SIGHUP: the terminal went away.
    Hangup,
}

impl StopSignal {
    /// The signal's name, as `kill -l` prints it with the `SIG` prefix.
    pub fn name(self) -> &'static str {
        match self {
            StopSignal::Interrupt => "SIGINT",
            StopSignal::Terminate => "SIGTERM",
            StopSignal::Hangup => "SIGHUP",
        }
    }

    /// How a message opens when this signal is the first: Ctrl-C keeps the
    /// word people know from every other tool; the others name the signal.
    pub fn said(self) -> &'static str {
        match self {
            StopSignal::Interrupt => "interrupted",
            StopSignal::Terminate => "terminated (SIGTERM)",
            StopSignal::Hangup => "hung up (SIGHUP)",
        }
    }

    /// How a message opens when this signal is the second.
    fn said_again(self) -> &'static str {
        match self {
            StopSignal::Interrupt => "interrupted again",
            StopSignal::Terminate => "terminated again (SIGTERM)",
            StopSignal::Hangup => "hung up again (SIGHUP)",
        }
    }

    /// How to send it again.
    fn again(self) -> &'static str {
        match self {
            StopSignal::Interrupt => "Ctrl-C again",
            StopSignal::Terminate => "SIGTERM again",
            StopSignal::Hangup => "SIGHUP again",
        }
    }
}

/// How a command ends once `signal` (the first one received, if any) has
/// been handled. `finished` is the status the command would end with
/// anyway; `on_ctrl_c` the one it documents for Ctrl-C. SIGTERM ends with
/// 143 and SIGHUP with 129 whatever was done (the report says what), so a
/// supervisor sees why the process ended. Pure.
pub fn exit_status(
    signal: Option<StopSignal>,
    finished: ExitStatus,
    on_ctrl_c: ExitStatus,
) -> ExitStatus {
    match signal {
        None => finished,
        Some(StopSignal::Interrupt) => on_ctrl_c,
        Some(StopSignal::Terminate) => ExitStatus::Terminated,
        Some(StopSignal::Hangup) => ExitStatus::HungUp,
    }
}

/// What a command says when a signal arrives, after the signal's own words
/// ("interrupted", "terminated (SIGTERM)", …).
#[derive(Debug, Clone)]
pub struct Notices {
    /// The first signal: what happens now ("stopping after the member
    /// being defragmented answers again").
    pub first: String,
    /// What a second signal would stop waiting for ("to stop waiting for
    /// it"), shown after how to send it; `None` when there is nothing left
    /// to wait for.
    pub hint: Option<String>,
    /// The second signal: what is given up.
    pub second: String,
}

impl Notices {
    /// The reason line for the first signal. Pure.
    pub fn first_line(&self, signal: StopSignal) -> String {
        match &self.hint {
            Some(hint) => format!(
                "{}: {} ({} {hint})",
                signal.said(),
                self.first,
                signal.again()
            ),
            None => format!("{}: {}", signal.said(), self.first),
        }
    }

    /// The line for the second signal. Pure.
    pub fn second_line(&self, signal: StopSignal) -> String {
        format!("{}: {}", signal.said_again(), self.second)
    }
}

/// The watcher: running from [`SignalWatch::start`] until
/// [`SignalWatch::finish`] (or drop).
pub struct SignalWatch {
    task: tokio::task::JoinHandle<()>,
    first: Arc<OnceLock<StopSignal>>,
}

impl SignalWatch {
    /// Starts watching SIGINT, SIGTERM and SIGHUP for `control`, saying
    /// `notices` through `say` (one line per signal). Start it before the
    /// first change is made, so that no signal can kill the process in the
    /// middle of one; from then on the process never dies of these signals
    /// (the handlers stay installed until it exits).
    pub fn start(
        control: &RunControl,
        notices: Notices,
        say: impl Fn(&str) + Send + 'static,
    ) -> Result<SignalWatch> {
        let watch = |kind: SignalKind, name: &str| {
            signal(kind).map_err(|source| Error::Local {
                action: format!("cannot watch for {name}"),
                source,
            })
        };
        let mut signals = Signals {
            interrupt: watch(SignalKind::interrupt(), "SIGINT (Ctrl-C)")?,
            terminate: watch(SignalKind::terminate(), "SIGTERM")?,
            hangup: watch(SignalKind::hangup(), "SIGHUP")?,
        };
        let first = Arc::new(OnceLock::new());
        let seen = Arc::clone(&first);
        let control = control.clone();
        let task = tokio::spawn(async move {
            let Some(signal) = signals.next().await else {
                return;
            };
            // Recorded before the stop is requested: whoever sees the stop
            // also sees which signal asked for it.
            let _ = seen.set(signal);
            control.stop();
            say(&notices.first_line(signal));
            if let Some(again) = signals.next().await {
                control.abandon_now();
                say(&notices.second_line(again));
            }
        });
        Ok(SignalWatch { task, first })
    }

    /// The first signal received so far.
    pub fn received(&self) -> Option<StopSignal> {
        self.first.get().copied()
    }

    /// Stops watching; returns the first signal received, if any. A signal
    /// that arrives later is ignored (the process is about to exit).
    pub fn finish(self) -> Option<StopSignal> {
        self.task.abort();
        self.received()
    }
}

impl Drop for SignalWatch {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The three signals' streams.
struct Signals {
    interrupt: Signal,
    terminate: Signal,
    hangup: Signal,
}

impl Signals {
    /// The next signal of any of the three (`None` once the runtime is
    /// shutting down).
    async fn next(&mut self) -> Option<StopSignal> {
        tokio::select! {
            s = self.interrupt.recv() => s.map(|()| StopSignal::Interrupt),
            s = self.terminate.recv() => s.map(|()| StopSignal::Terminate),
            s = self.hangup.recv() => s.map(|()| StopSignal::Hangup),
        }
    }
}

/// Awaits `call`, a request that changes something: a stop request does
/// not cut it short (the change is made or refused, and reported); only
/// abandoning does. `None` when abandoned, the outcome unknown.
pub async fn unless_abandoned<F: Future>(control: &RunControl, call: F) -> Option<F::Output> {
    tokio::select! {
        out = call => Some(out),
        _ = control.abandon.cancelled() => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_signal_decides_the_exit_code() {
        use ExitStatus::*;
        use StopSignal::*;
        let cases = [
            // (first signal, finished with, documented for Ctrl-C, exit)
            (None, Success, Interrupted, Success),
            (None, Failed, Interrupted, Failed),
            (Some(Interrupt), Success, Interrupted, Interrupted),
            // defrag: a first Ctrl-C keeps the report's own verdict.
            (Some(Interrupt), Failed, Failed, Failed),
            (Some(Terminate), Success, Interrupted, Terminated),
            (Some(Terminate), Failed, Failed, Terminated),
            (Some(Terminate), Interrupted, Interrupted, Terminated),
            (Some(Hangup), Success, Interrupted, HungUp),
            (Some(Hangup), Failed, Failed, HungUp),
        ];
        for (signal, finished, on_ctrl_c, want) in cases {
            assert_eq!(
                exit_status(signal, finished, on_ctrl_c),
                want,
                "{signal:?} {finished:?} {on_ctrl_c:?}"
            );
        }
        assert_eq!(Terminated.code(), 143);
        assert_eq!(HungUp.code(), 129);
        assert_eq!(Interrupted.code(), 130);
    }

    #[test]
    fn the_reason_line_names_the_signal() {
        let notices = Notices {
            first: "stopping after the member being defragmented answers again".into(),
            hint: Some("to stop waiting for it".into()),
            second: "no longer waiting".into(),
        };
        assert_eq!(
            notices.first_line(StopSignal::Interrupt),
            "interrupted: stopping after the member being defragmented answers again (Ctrl-C again to stop waiting for it)"
        );
        assert_eq!(
            notices.first_line(StopSignal::Terminate),
            "terminated (SIGTERM): stopping after the member being defragmented answers again (SIGTERM again to stop waiting for it)"
        );
        assert_eq!(
            notices.first_line(StopSignal::Hangup),
            "hung up (SIGHUP): stopping after the member being defragmented answers again (SIGHUP again to stop waiting for it)"
        );
        assert_eq!(
            notices.second_line(StopSignal::Interrupt),
            "interrupted again: no longer waiting"
        );
        assert_eq!(
            notices.second_line(StopSignal::Terminate),
            "terminated again (SIGTERM): no longer waiting"
        );
        let plain = Notices {
            hint: None,
            ..notices
        };
        assert_eq!(
            plain.first_line(StopSignal::Terminate),
            "terminated (SIGTERM): stopping after the member being defragmented answers again"
        );
    }
}

//! What the kubelet does to a member: the etcd container's liveness and
//! startup probes as plain data, and when the kubelet's prober restarts a
//! container whose probe keeps failing.
//!
//! The timing follows the kubelet's own prober (`pkg/kubelet/prober/worker.go`
//! in kubernetes 1.37): one worker per probe asks, waits for the answer or
//! the probe's `timeoutSeconds`, then waits for the next tick of a
//! `periodSeconds` ticker. A Go ticker keeps one tick for a slow reader, so
//! while every probe runs into its timeout a new one starts every
//! `max(period, timeout)`. After `failureThreshold` failures in a row, a
//! failing liveness (or startup) probe has the container killed and
//! restarted.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Which of the container's probes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProbeKind {
    Liveness,
    Startup,
}

impl ProbeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ProbeKind::Liveness => "liveness",
            ProbeKind::Startup => "startup",
        }
    }
}

/// What a probe asks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "type")]
pub enum Handler {
    /// `httpGet`: a path on a port (a number or a container port's name).
    HttpGet { path: String, port: String },
    /// `tcpSocket`: a connect to a port.
    TcpSocket { port: String },
    /// `grpc`: the gRPC health service on a port (`service` empty: the
    /// server as a whole).
    Grpc { port: i32, service: String },
    /// `exec`: a command inside the container.
    Exec { command: Vec<String> },
}

impl fmt::Display for Handler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Handler::HttpGet { path, port } => write!(f, "GET {path} on port {port}"),
            Handler::TcpSocket { port } => write!(f, "a TCP connect to port {port}"),
            Handler::Grpc { port, service } if service.is_empty() => {
                write!(f, "gRPC health on port {port}")
            }
            Handler::Grpc { port, service } => {
                write!(f, "gRPC health of {service:?} on port {port}")
            }
            Handler::Exec { command } => write!(f, "exec `{}`", command.join(" ")),
        }
    }
}

/// One probe of the etcd container, with the API server's defaults filled
/// in where the Pod leaves a field out (period 10 s, timeout 1 s, three
/// failures).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Probe {
    pub kind: ProbeKind,
    pub handler: Handler,
    pub period_seconds: u32,
    pub timeout_seconds: u32,
    pub failure_threshold: u32,
}

/// The kubelet's defaults for a probe's fields (`SetDefaults_Probe`).
pub const DEFAULT_PERIOD_SECONDS: u32 = 10;
pub const DEFAULT_TIMEOUT_SECONDS: u32 = 1;
pub const DEFAULT_FAILURE_THRESHOLD: u32 = 3;

/// How long a probe that fails every time takes to have the container
/// restarted, counted from when it started failing: `earliest` when a
/// probe is asked at that very moment, `latest` when one had just been
/// answered (it then waits a period before the first failing one).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RestartWindow {
    pub earliest_seconds: f64,
    pub latest_seconds: f64,
}

impl Probe {
    /// Seconds between the starts of two probes that both run into their
    /// timeout: the ticker's period, or the timeout when that is longer.
    pub fn failing_interval(&self) -> f64 {
        f64::from(self.period_seconds.max(self.timeout_seconds).max(1))
    }

    /// When the kubelet restarts the container once this probe fails on
    /// every ask (see the module text). The budget, `period ×
    /// failureThreshold + timeout`, is `latest` whenever the timeout is
    /// within the period.
    pub fn restart_window(&self) -> RestartWindow {
        let interval = self.failing_interval();
        let threshold = f64::from(self.failure_threshold.max(1));
        let timeout = f64::from(self.timeout_seconds.max(1));
        let earliest = (threshold - 1.0) * interval + timeout;
        RestartWindow {
            earliest_seconds: earliest,
            latest_seconds: earliest + f64::from(self.period_seconds.max(1)),
        }
    }

    /// `liveness GET /livez on port 2381 every 10s, timeout 15s, 8 failures`.
    pub fn describe(&self) -> String {
        format!(
            "{} probe ({}, every {}s, timeout {}s, {} failure{})",
            self.kind.as_str(),
            self.handler,
            self.period_seconds,
            self.timeout_seconds,
            self.failure_threshold,
            if self.failure_threshold == 1 { "" } else { "s" }
        )
    }
}

/// The probes of one member's etcd container, as its Pod declares them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodProbes {
    pub pod: String,
    /// The container they belong to (`etcd`, else the Pod's only one).
    pub container: String,
    /// The container status's `started`: `Some(false)` while its startup
    /// probe has not passed yet; `None` when the kubelet has not said.
    pub started: Option<bool>,
    pub liveness: Option<Probe>,
    pub startup: Option<Probe>,
}

impl PodProbes {
    /// The probe that can restart the container now: the startup probe
    /// while the container has not started (the kubelet runs no liveness
    /// probe until it has), else the liveness probe.
    pub fn in_charge(&self) -> Option<&Probe> {
        match (self.started, &self.startup) {
            (Some(false), Some(startup)) => Some(startup),
            _ => self.liveness.as_ref(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(period: u32, timeout: u32, threshold: u32) -> Probe {
        Probe {
            kind: ProbeKind::Liveness,
            handler: Handler::HttpGet {
                path: "/livez".into(),
                port: "2381".into(),
            },
            period_seconds: period,
            timeout_seconds: timeout,
            failure_threshold: threshold,
        }
    }

    #[test]
    fn restart_windows_follow_the_kubelets_prober() {
        for (period, timeout, threshold, earliest, latest, what) in [
            (
                10,
                1,
                3,
                21.0,
                31.0,
                "Kubernetes defaults: 2 periods + timeout",
            ),
            (
                10,
                15,
                8,
                120.0,
                130.0,
                "kubeadm: timeout over period, one probe per 15s",
            ),
            (10, 15, 24, 360.0, 370.0, "kubeadm's startup probe"),
            (1, 1, 1, 1.0, 2.0, "the smallest the API allows"),
            (5, 5, 2, 10.0, 15.0, "timeout equal to the period"),
        ] {
            let w = probe(period, timeout, threshold).restart_window();
            assert_eq!(
                (w.earliest_seconds, w.latest_seconds),
                (earliest, latest),
                "{what}"
            );
        }
        // The formula is the latest case when timeout <= period.
        let p = probe(10, 1, 3);
        assert_eq!(p.restart_window().latest_seconds, 10.0 * 3.0 + 1.0);
    }

    #[test]
    fn the_startup_probe_is_in_charge_only_until_the_container_started() {
        let mut pods = PodProbes {
            pod: "m1".into(),
            container: "etcd".into(),
            started: Some(false),
            liveness: Some(probe(10, 15, 8)),
            startup: Some(Probe {
                kind: ProbeKind::Startup,
                ..probe(10, 15, 24)
            }),
        };
        assert_eq!(pods.in_charge().map(|p| p.kind), Some(ProbeKind::Startup));
        pods.started = Some(true);
        assert_eq!(pods.in_charge().map(|p| p.kind), Some(ProbeKind::Liveness));
        pods.started = None;
        assert_eq!(pods.in_charge().map(|p| p.kind), Some(ProbeKind::Liveness));
        pods.liveness = None;
        assert_eq!(pods.in_charge(), None);
    }

    #[test]
    fn probes_describe_themselves_with_their_numbers() {
        assert_eq!(
            probe(10, 15, 8).describe(),
            "liveness probe (GET /livez on port 2381, every 10s, timeout 15s, 8 failures)"
        );
        let tcp = Probe {
            handler: Handler::TcpSocket {
                port: "2380".into(),
            },
            ..probe(10, 1, 1)
        };
        assert_eq!(
            tcp.describe(),
            "liveness probe (a TCP connect to port 2380, every 10s, timeout 1s, 1 failure)"
        );
    }
}

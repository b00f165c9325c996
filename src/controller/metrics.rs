//! `defrag --watch` observability: the controller's Prometheus metrics and a
//! tiny HTTP server on the `--metrics-address` that serves them with
//! `/healthz` and `/readyz`.
//!
//! Every metric is named `kubectl_etcd_watch_*`. The labels that locate a
//! run are `etcddefrag_namespace` and `etcdcluster`, never `namespace` or
//! `cluster`: Prometheus (and the Prometheus operator) set those from the
//! scrape target and would rename ours to `exported_*`.
//!
//! The server is `crate::exposition`'s, shared with `doctor --serve`.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use kube::runtime::reflector::Store;
use kube::ResourceExt;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::{Registry, Unit};
use tokio_util::sync::CancellationToken;

use super::phase::CheckedReason;
use crate::k8s::crd::{DefragPhase, EtcdDefrag};
use crate::report::{DefragReport, MemberResult, Outcome};

/// The prefix of every metric name.
pub const PREFIX: &str = "kubectl_etcd_watch";

/// Which EtcdDefrag of which cluster a sample is about.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub struct RunLabels {
    pub etcddefrag_namespace: String,
    pub etcdcluster: String,
}

impl RunLabels {
    /// The labels of `run`: its namespace and the EtcdCluster it names.
    pub fn of(run: &EtcdDefrag) -> RunLabels {
        RunLabels {
            etcddefrag_namespace: run.namespace().unwrap_or_default(),
            etcdcluster: run.spec.cluster_ref.name.clone(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct PhaseLabels {
    #[prometheus(flatten)]
    run: RunLabels,
    phase: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct ReasonLabels {
    #[prometheus(flatten)]
    run: RunLabels,
    reason: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct BuildLabels {
    version: String,
}

type HistogramFamily = Family<RunLabels, Histogram, fn() -> Histogram>;

/// Defragment RPCs: 10 ms … about 5.5 min (the RPC timeout is 5 min).
fn defrag_histogram() -> Histogram {
    Histogram::new(exponential_buckets(0.01, 2.0, 16))
}

/// Whole sweeps: 100 ms … about 55 min (a run's deadline is 45 min).
fn sweep_histogram() -> Histogram {
    Histogram::new(exponential_buckets(0.1, 2.0, 16))
}

/// The watcher's metrics, and whether it is ready.
pub struct Metrics {
    registry: Registry,
    runs: Family<PhaseLabels, Counter>,
    running: Family<RunLabels, Gauge>,
    members_defragmented: Family<RunLabels, Counter>,
    reclaimed: Family<RunLabels, Counter>,
    defrag_seconds: HistogramFamily,
    sweep_seconds: HistogramFamily,
    deferrals: Family<ReasonLabels, Counter>,
    lease_held: Family<LeaseLabels, Gauge>,
    ready: AtomicBool,
}

/// Which Lease, held by whom: `lease` is `<namespace>/<name>`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub struct LeaseLabels {
    pub lease: String,
    pub identity: String,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl Metrics {
    /// Every metric registered, none observed yet; not ready.
    pub fn new() -> Metrics {
        let mut registry = Registry::with_prefix(PREFIX);
        let runs = Family::<PhaseLabels, Counter>::default();
        registry.register(
            "runs",
            "EtcdDefrag runs this watcher moved into a phase: Running (started), Complete or Failed",
            runs.clone(),
        );
        let running = Family::<RunLabels, Gauge>::default();
        registry.register(
            "runs_running",
            "EtcdDefrag runs whose sweep this watcher is driving now (phase Running)",
            running.clone(),
        );
        let members_defragmented = Family::<RunLabels, Counter>::default();
        registry.register(
            "members_defragmented",
            "Members defragmented by EtcdDefrag runs",
            members_defragmented.clone(),
        );
        let reclaimed = Family::<RunLabels, Counter>::default();
        registry.register_with_unit(
            "reclaimed",
            "Backend space reclaimed by defragmentation (size before minus size after)",
            Unit::Bytes,
            reclaimed.clone(),
        );
        let defrag_seconds: HistogramFamily = Family::new_with_constructor(defrag_histogram);
        registry.register_with_unit(
            "defrag_duration",
            "How long one member's Defragment RPC took (or until it timed out)",
            Unit::Seconds,
            defrag_seconds.clone(),
        );
        let sweep_seconds: HistogramFamily = Family::new_with_constructor(sweep_histogram);
        registry.register_with_unit(
            "sweep_duration",
            "Wall time of one sweep of the engine over a cluster's members",
            Unit::Seconds,
            sweep_seconds.clone(),
        );
        let deferrals = Family::<ReasonLabels, Counter>::default();
        registry.register(
            "deferrals",
            "Reconcile passes that deferred a run, by DefragChecked reason (ClusterNotHealthy, Queued)",
            deferrals.clone(),
        );
        let lease_held = Family::<LeaseLabels, Gauge>::default();
        registry.register(
            "lease_held",
            "1 while this watcher holds the Lease that elects the one active watcher (identity: this watcher), else 0",
            lease_held.clone(),
        );
        let build = Family::<BuildLabels, Gauge>::default();
        build
            .get_or_create(&BuildLabels {
                version: env!("CARGO_PKG_VERSION").to_string(),
            })
            .set(1);
        registry.register(
            "build_info",
            "Always 1; the version label is this kubectl-etcd's",
            build,
        );
        Metrics {
            registry,
            runs,
            running,
            members_defragmented,
            reclaimed,
            defrag_seconds,
            sweep_seconds,
            deferrals,
            lease_held,
            ready: AtomicBool::new(false),
        }
    }

    /// A run this watcher moved into `phase` (its status write succeeded).
    pub fn entered(&self, run: &RunLabels, phase: DefragPhase) {
        self.runs
            .get_or_create(&PhaseLabels {
                run: run.clone(),
                phase: phase.as_str().to_string(),
            })
            .inc();
    }

    /// Counts a run as Running until the returned guard is dropped.
    pub fn running(&self, run: &RunLabels) -> RunningGuard {
        let gauge = self.running.get_or_create_owned(run);
        gauge.inc();
        RunningGuard { gauge }
    }

    /// A member the engine is done with: its Defragment duration when an
    /// RPC was sent; the member and its reclaimed bytes when defragmented.
    pub fn member_finished(&self, run: &RunLabels, result: &MemberResult) {
        if let Some(ms) = result.duration_ms {
            self.defrag_seconds
                .get_or_create(run)
                .observe(Duration::from_millis(ms).as_secs_f64());
        }
        if result.outcome == Outcome::Defragmented {
            self.members_defragmented.get_or_create(run).inc();
            self.reclaimed
                .get_or_create(run)
                .inc_by(result.reclaimed_bytes.unwrap_or(0));
        }
    }

    /// A sweep the engine returned from.
    pub fn sweep_finished(&self, run: &RunLabels, report: &DefragReport) {
        self.sweep_seconds
            .get_or_create(run)
            .observe(Duration::from_millis(report.wall_ms).as_secs_f64());
    }

    /// A pass that deferred the run with the DefragChecked `reason`.
    pub fn deferred(&self, run: &RunLabels, reason: CheckedReason) {
        self.deferrals
            .get_or_create(&ReasonLabels {
                run: run.clone(),
                reason: reason.as_str().to_string(),
            })
            .inc();
    }

    /// Whether this watcher holds the Lease `lease` (as `identity`).
    pub fn lease_held(&self, lease: &LeaseLabels, held: bool) {
        self.lease_held.get_or_create(lease).set(i64::from(held));
    }

    /// The controller has received its first watch list.
    pub fn set_ready(&self) {
        self.ready.store(true, Ordering::SeqCst);
    }

    pub fn is_ready(&self) -> bool {
        self.ready.load(Ordering::SeqCst)
    }

    /// The exposition in OpenMetrics (with its `# EOF`) or Prometheus text.
    pub fn render(&self, openmetrics: bool) -> String {
        let mut text = String::new();
        let encoded = if openmetrics {
            prometheus_client::encoding::text::encode(&mut text, &self.registry)
        } else {
            prometheus_client::encoding::prometheus_text::encode(&mut text, &self.registry)
        };
        if let Err(e) = encoded {
            tracing::warn!("cannot encode the metrics: {e}");
        }
        text
    }
}

/// Marks `metrics` ready once the controller's store has received its
/// first watch list. The store wakes only its latest waiter (the
/// controller's own), so this looks again every 200 ms.
pub async fn ready_when_listed(store: Store<EtcdDefrag>, metrics: Arc<Metrics>) {
    loop {
        let waited =
            tokio::time::timeout(Duration::from_millis(200), store.wait_until_ready()).await;
        match waited {
            Ok(Ok(())) => return metrics.set_ready(),
            Ok(Err(_)) => return,
            Err(_) => {}
        }
    }
}

/// Keeps a run counted in `runs_running`; uncounts it when dropped.
pub struct RunningGuard {
    gauge: Gauge,
}

impl Drop for RunningGuard {
    fn drop(&mut self) {
        self.gauge.dec();
    }
}

impl crate::exposition::Exposition for Metrics {
    fn render(&self, openmetrics: bool) -> String {
        Metrics::render(self, openmetrics)
    }

    fn ready(&self) -> bool {
        self.is_ready()
    }

    fn not_ready(&self) -> &'static str {
        "not ready: neither listed EtcdDefrags under the Lease nor standing by behind its holder yet, or stopping\n"
    }
}

/// Serves the watcher's metrics on `address` (`--metrics-address`) until
/// the returned server is dropped; `/readyz` is 503 once `draining` is
/// cancelled.
pub async fn start(
    address: SocketAddr,
    metrics: Arc<Metrics>,
    draining: CancellationToken,
) -> crate::Result<crate::exposition::Server> {
    crate::exposition::start("--metrics-address", address, metrics, draining).await
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::plan::defrag::Role;

    fn labels() -> RunLabels {
        RunLabels {
            etcddefrag_namespace: "ops".into(),
            etcdcluster: "db".into(),
        }
    }

    fn defragmented(name: &str, reclaimed: u64, ms: u64) -> MemberResult {
        MemberResult {
            name: name.into(),
            id: "0000000000000001".into(),
            role: Role::Follower,
            outcome: Outcome::Defragmented,
            reason: None,
            detail: None,
            db_size_before: 100 + reclaimed,
            db_size_in_use: 100,
            db_size_after: Some(100),
            reclaimed_bytes: Some(reclaimed),
            predicted_reclaim: reclaimed,
            duration_ms: Some(ms),
            recovered_ms: Some(5),
        }
    }

    /// The lines of `text` that are samples (not `#` comments) of `name`.
    fn samples<'a>(text: &'a str, name: &str) -> Vec<&'a str> {
        text.lines()
            .filter(|l| l.starts_with(name) && l[name.len()..].starts_with(['{', ' ']))
            .collect()
    }

    #[test]
    fn renders_every_metric_with_its_labels() {
        let m = Metrics::new();
        let run = labels();
        m.entered(&run, DefragPhase::Running);
        m.entered(&run, DefragPhase::Complete);
        {
            let _running = m.running(&run);
            let text = m.render(false);
            assert_eq!(
                samples(&text, "kubectl_etcd_watch_runs_running"),
                ["kubectl_etcd_watch_runs_running{etcddefrag_namespace=\"ops\",etcdcluster=\"db\"} 1"]
            );
        }
        m.member_finished(&run, &defragmented("db-0", 1000, 250));
        m.member_finished(&run, &defragmented("db-1", 24, 1500));
        let mut skipped = defragmented("db-2", 0, 0);
        skipped.outcome = Outcome::Skipped;
        skipped.duration_ms = None;
        m.member_finished(&run, &skipped);
        m.deferred(&run, CheckedReason::ClusterNotHealthy);
        m.deferred(&run, CheckedReason::Queued);
        m.deferred(&run, CheckedReason::Queued);
        let lease = LeaseLabels {
            lease: "ops/kubectl-etcd-watch".into(),
            identity: "pod-a-7".into(),
        };
        m.lease_held(&lease, true);

        let text = m.render(true);
        let sel = "{etcddefrag_namespace=\"ops\",etcdcluster=\"db\"";
        for want in [
            "# TYPE kubectl_etcd_watch_runs counter".to_string(),
            format!("kubectl_etcd_watch_runs_total{sel},phase=\"Running\"}} 1"),
            format!("kubectl_etcd_watch_runs_total{sel},phase=\"Complete\"}} 1"),
            format!("kubectl_etcd_watch_runs_running{sel}}} 0"),
            format!("kubectl_etcd_watch_members_defragmented_total{sel}}} 2"),
            "# UNIT kubectl_etcd_watch_reclaimed_bytes bytes".to_string(),
            format!("kubectl_etcd_watch_reclaimed_bytes_total{sel}}} 1024"),
            "# TYPE kubectl_etcd_watch_defrag_duration_seconds histogram".to_string(),
            format!("kubectl_etcd_watch_defrag_duration_seconds_count{sel}}} 2"),
            format!("kubectl_etcd_watch_defrag_duration_seconds_sum{sel}}} 1.75"),
            "kubectl_etcd_watch_defrag_duration_seconds_bucket{le=\"0.32\",etcddefrag_namespace=\"ops\",etcdcluster=\"db\"} 1".to_string(),
            "kubectl_etcd_watch_defrag_duration_seconds_bucket{le=\"+Inf\",etcddefrag_namespace=\"ops\",etcdcluster=\"db\"} 2".to_string(),
            format!("kubectl_etcd_watch_deferrals_total{sel},reason=\"ClusterNotHealthy\"}} 1"),
            format!("kubectl_etcd_watch_deferrals_total{sel},reason=\"Queued\"}} 2"),
            "kubectl_etcd_watch_lease_held{lease=\"ops/kubectl-etcd-watch\",identity=\"pod-a-7\"} 1".to_string(),
            format!(
                "kubectl_etcd_watch_build_info{{version=\"{}\"}} 1",
                env!("CARGO_PKG_VERSION")
            ),
        ] {
            assert!(
                text.lines().any(|l| l == want),
                "no line {want:?} in\n{text}"
            );
        }
        assert!(text.ends_with("# EOF\n"), "{text}");
        // No sweep yet: the family is declared, without samples.
        assert!(samples(&text, "kubectl_etcd_watch_sweep_duration_seconds_count").is_empty());
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            assert!(line.starts_with("kubectl_etcd_watch_"), "{line}");
            assert!(
                !line.contains("{namespace=") && !line.contains(",namespace="),
                "{line}"
            );
            assert!(
                !line.contains("{cluster=") && !line.contains(",cluster="),
                "{line}"
            );
        }

        // The Prometheus text format: the same samples, no EOF marker.
        let text = m.render(false);
        assert!(!text.contains("# EOF"), "{text}");
        assert!(text
            .lines()
            .any(|l| l == format!("kubectl_etcd_watch_members_defragmented_total{sel}}} 2")));
    }

    #[test]
    fn sweeps_are_observed_in_seconds() {
        let m = Metrics::new();
        let report = DefragReport {
            cluster: None,
            dry_run: false,
            rule: crate::plan::rule::DefragRule::default(),
            members: Vec::new(),
            leader: None,
            stopped: None,
            refusal: Vec::new(),
            compacted_at: None,
            already_compacted: false,
            in_use_not_refreshed: None,
            wall_ms: 12_500,
            defrag_ms: 0,
            alarms: Vec::new(),
            hash_check: None,
            notes: Vec::new(),
            run: None,
        };
        m.sweep_finished(&labels(), &report);
        let text = m.render(false);
        assert!(
            text.contains("kubectl_etcd_watch_sweep_duration_seconds_sum{etcddefrag_namespace=\"ops\",etcdcluster=\"db\"} 12.5"),
            "{text}"
        );
    }
}

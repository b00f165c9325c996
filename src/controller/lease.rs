//! Exactly one active watcher: leader election through a
//! `coordination.k8s.io` Lease, and the fence every write and Defragment is
//! checked against.
//!
//! A watcher acts only while it holds the Lease. It renews every third of
//! the lease duration; its hold is valid until the last successful renewal
//! plus the duration, measured on its own monotonic clock. Anything it is
//! about to do — persist a row, send a Defragment — first asks the
//! [`Fence`]; a process that was stopped (SIGSTOP, a long GC pause, a
//! partition) past that point finds the fence closed the moment it resumes,
//! before it can act on a run another watcher has taken over.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta};
use k8s_openapi::jiff::{SignedDuration, Timestamp};
use kube::api::{Api, PostParams};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// What to do with the Lease as read. Pure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeaseStep {
    /// No Lease yet: create it, holding it.
    Create,
    /// Free or expired: take it (a guarded update).
    Acquire,
    /// Ours: renew it.
    Renew,
    /// Held by another until this time.
    Wait { until: Timestamp },
}

/// Decides from the Lease as read, who we are, and the time. A Lease with
/// no holder, or whose last renewal plus its duration has passed, is free.
pub fn decide(lease: Option<&LeaseSpec>, me: &str, now: Timestamp) -> LeaseStep {
    let Some(spec) = lease else {
        return LeaseStep::Create;
    };
    match spec.holder_identity.as_deref() {
        Some(holder) if holder == me => LeaseStep::Renew,
        None | Some("") => LeaseStep::Acquire,
        Some(_) => {
            let renewed = spec.renew_time.as_ref().map(|t| t.0);
            let duration = SignedDuration::from_secs(i64::from(
                spec.lease_duration_seconds.unwrap_or(0).max(0),
            ));
            match renewed.and_then(|r| r.checked_add(duration).ok()) {
                Some(until) if until > now => LeaseStep::Wait { until },
                _ => LeaseStep::Acquire,
            }
        }
    }
}

/// Where the Lease is and how it is held.
#[derive(Debug, Clone)]
pub struct LeaseSettings {
    pub namespace: String,
    pub name: String,
    /// This watcher's identity (the Pod name in a Deployment).
    pub identity: String,
    pub duration: Duration,
}

/// Whether this watcher may still act: open until the hold expires on the
/// local monotonic clock, or the renewer saw the Lease taken.
#[derive(Debug, Clone)]
pub struct Fence {
    valid_until: Arc<Mutex<Instant>>,
    lost: CancellationToken,
    /// Fences this one also depends on ([`Fence::and`]).
    parts: Vec<Fence>,
}

impl Fence {
    /// A fence that never closes (tests, or a watcher run without a Lease).
    pub fn open() -> Fence {
        Fence {
            valid_until: Arc::new(Mutex::new(
                Instant::now() + Duration::from_secs(100 * 365 * 86_400),
            )),
            lost: CancellationToken::new(),
            parts: Vec::new(),
        }
    }

    /// Open while both `self` and `other` are: a pass on one cluster acts
    /// only while the watcher holds its election Lease and the cluster's.
    /// Its own [`Fence::lost`] is cancelled once a check finds either
    /// closed.
    pub fn and(&self, other: &Fence) -> Fence {
        let mut both = Fence::open();
        both.parts = vec![self.clone(), other.clone()];
        both
    }

    /// Whether the hold is still valid now. Closing is sticky.
    pub fn is_open(&self) -> bool {
        if self.lost.is_cancelled() {
            return false;
        }
        if !self.parts.iter().all(Fence::is_open) {
            self.lost.cancel();
            return false;
        }
        let valid = match self.valid_until.lock() {
            Ok(until) => Instant::now() < *until,
            Err(_) => false,
        };
        if !valid {
            self.lost.cancel();
        }
        valid
    }

    /// Cancelled once the hold is lost.
    pub fn lost(&self) -> CancellationToken {
        self.lost.clone()
    }

    fn extend(&self, until: Instant) {
        if let Ok(mut v) = self.valid_until.lock() {
            *v = until;
        }
    }
}

/// A held Lease: the renewer runs until the hold is lost or released.
pub struct Held {
    pub fence: Fence,
    renewer: tokio::task::JoinHandle<()>,
    api: Api<Lease>,
    settings: LeaseSettings,
}

/// Waits until this watcher holds the Lease (or `stopping` is cancelled:
/// `None`). API errors are retried; the wait is bounded by the holder's
/// renewal time. `standing_by` is called each time the Lease is found
/// held by another watcher: this one is then a working standby.
pub async fn acquire(
    client: kube::Client,
    settings: &LeaseSettings,
    stopping: &CancellationToken,
    standing_by: impl Fn(),
) -> crate::Result<Option<Held>> {
    let mut announced = false;
    loop {
        if stopping.is_cancelled() {
            return Ok(None);
        }
        match try_take(client.clone(), settings).await {
            Ok(Ok(held)) => return Ok(Some(held)),
            Ok(Err(holder)) => {
                standing_by();
                if !announced {
                    crate::logging::message(&format!(
                        "Lease {}/{} is held by {holder}: waiting to take over",
                        settings.namespace, settings.name
                    ));
                    announced = true;
                }
            }
            Err(e) => tracing::warn!("Lease {}/{}: {e}", settings.namespace, settings.name),
        }
        tokio::select! {
            _ = stopping.cancelled() => return Ok(None),
            _ = tokio::time::sleep(settings.duration / 4) => {}
        }
    }
}

/// One attempt, without waiting, to hold the Lease `settings` names:
/// held (and renewed until released or lost), or `Err(holder)` while
/// another holds it.
pub async fn try_take(
    client: kube::Client,
    settings: &LeaseSettings,
) -> Result<Result<Held, String>, kube::Error> {
    let api: Api<Lease> = Api::namespaced(client, &settings.namespace);
    let started = Instant::now();
    let written = match try_hold(&api, settings).await? {
        Ok(written) => written,
        Err(holder) => return Ok(Err(holder)),
    };
    let fence = Fence::open();
    fence.extend(started + settings.duration);
    let renewer = tokio::spawn(renew(api.clone(), settings.clone(), fence.clone(), written));
    Ok(Ok(Held {
        fence,
        renewer,
        api,
        settings: settings.clone(),
    }))
}

/// The Lease that says which of our processors acts on the cluster
/// `cluster` (in the cluster's namespace): whatever their scopes (`-A`,
/// `-n`, several Deployments), two watchers never drive the runs of one
/// cluster at once.
pub fn cluster_lease_name(cluster: &str) -> String {
    format!("{}{cluster}", crate::contract::CLUSTER_LEASE_PREFIX)
}

/// One attempt to create, take or renew the Lease, reading it first:
/// the Lease as written, or `Ok(Err(holder))` when another watcher holds
/// it.
async fn try_hold(
    api: &Api<Lease>,
    settings: &LeaseSettings,
) -> Result<Result<Lease, String>, kube::Error> {
    let now = Timestamp::now();
    let current = api.get_opt(&settings.name).await?;
    let step = decide(
        current.as_ref().and_then(|l| l.spec.as_ref()),
        &settings.identity,
        now,
    );
    let seconds = i32::try_from(settings.duration.as_secs()).unwrap_or(i32::MAX);
    match (step, current) {
        (LeaseStep::Create, _) => {
            let lease = Lease {
                metadata: ObjectMeta {
                    name: Some(settings.name.clone()),
                    namespace: Some(settings.namespace.clone()),
                    ..ObjectMeta::default()
                },
                spec: Some(LeaseSpec {
                    holder_identity: Some(settings.identity.clone()),
                    lease_duration_seconds: Some(seconds),
                    acquire_time: Some(MicroTime(now)),
                    renew_time: Some(MicroTime(now)),
                    lease_transitions: Some(0),
                    ..LeaseSpec::default()
                }),
            };
            match api.create(&PostParams::default(), &lease).await {
                Ok(written) => Ok(Ok(written)),
                Err(kube::Error::Api(s)) if s.code == 409 => Ok(Err("another watcher".into())),
                Err(e) => Err(e),
            }
        }
        (LeaseStep::Wait { .. }, Some(lease)) => Ok(Err(lease
            .spec
            .and_then(|s| s.holder_identity)
            .unwrap_or_default())),
        (step, Some(mut lease)) => {
            let spec = lease.spec.get_or_insert_with(LeaseSpec::default);
            if step == LeaseStep::Acquire {
                spec.holder_identity = Some(settings.identity.clone());
                spec.acquire_time = Some(MicroTime(now));
                spec.lease_transitions = Some(spec.lease_transitions.unwrap_or(0) + 1);
            }
            spec.lease_duration_seconds = Some(seconds);
            spec.renew_time = Some(MicroTime(now));
            // Guarded by the resourceVersion read: of two watchers taking
            // an expired Lease at once, one gets 409.
            match api
                .replace(&settings.name, &PostParams::default(), &lease)
                .await
            {
                Ok(written) => Ok(Ok(written)),
                Err(kube::Error::Api(s)) if s.code == 409 => Ok(Err("another watcher".into())),
                Err(e) => Err(e),
            }
        }
        (_, None) => Ok(Err("nobody (it vanished)".into())),
    }
}

/// Renews every third of the duration; closes the fence when another
/// watcher holds the Lease or the hold ran out without a renewal.
///
/// A renewal is one guarded update of the Lease as last written: its
/// resourceVersion still matching proves nobody took it meanwhile. Only a
/// conflict (someone else wrote it) costs a read and a fresh decision, so
/// an idle watcher makes one request per renewal.
async fn renew(api: Api<Lease>, settings: LeaseSettings, fence: Fence, written: Lease) {
    let mut last = Some(written);
    loop {
        tokio::select! {
            _ = fence.lost.cancelled() => return,
            _ = tokio::time::sleep(settings.duration / 3) => {}
        }
        if !fence.is_open() {
            return;
        }
        let started = Instant::now();
        let attempt = match last.take() {
            Some(lease) => match renew_written(&api, &settings, lease).await {
                Err(kube::Error::Api(s)) if s.code == 409 => try_hold(&api, &settings).await,
                other => other.map(Ok),
            },
            None => try_hold(&api, &settings).await,
        };
        match attempt {
            Ok(Ok(written)) => {
                fence.extend(started + settings.duration);
                last = Some(written);
            }
            Ok(Err(holder)) => {
                crate::logging::message(&format!(
                    "lost Lease {}/{} to {holder}: stopping after the member in flight",
                    settings.namespace, settings.name
                ));
                fence.lost.cancel();
                return;
            }
            Err(e) => tracing::warn!(
                "renewing Lease {}/{}: {e}",
                settings.namespace,
                settings.name
            ),
        }
    }
}

/// Renews the Lease as this watcher last wrote it, guarded by its
/// resourceVersion.
async fn renew_written(
    api: &Api<Lease>,
    settings: &LeaseSettings,
    mut lease: Lease,
) -> Result<Lease, kube::Error> {
    let spec = lease.spec.get_or_insert_with(LeaseSpec::default);
    spec.renew_time = Some(MicroTime(Timestamp::now()));
    spec.lease_duration_seconds =
        Some(i32::try_from(settings.duration.as_secs()).unwrap_or(i32::MAX));
    api.replace(&settings.name, &PostParams::default(), &lease)
        .await
}

/// The per-cluster Leases this process holds, shared by its passes: two
/// runs of one cluster reconciled at once (one driving, one finding itself
/// queued) share one hold, and it is handed back when the last of them
/// ends, never while one still acts.
#[derive(Default)]
pub struct ClusterHolds(tokio::sync::Mutex<std::collections::HashMap<String, Shared>>);

struct Shared {
    held: Held,
    passes: usize,
    generation: u64,
}

/// A pass's share of a cluster's hold: its fence, and what
/// [`ClusterHolds::leave`] needs.
pub struct Entered {
    pub fence: Fence,
    key: String,
    generation: u64,
}

impl ClusterHolds {
    /// Joins this process's hold on the Lease `settings` names, taking it
    /// first when no pass holds it: `Err(holder)` while another processor
    /// holds it.
    pub async fn enter(
        &self,
        client: kube::Client,
        settings: &LeaseSettings,
    ) -> Result<Result<Entered, String>, kube::Error> {
        static GENERATION: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let key = format!("{}/{}", settings.namespace, settings.name);
        let mut holds = self.0.lock().await;
        if let Some(shared) = holds.get_mut(&key) {
            if shared.held.fence.is_open() {
                shared.passes += 1;
                return Ok(Ok(Entered {
                    fence: shared.held.fence.clone(),
                    key,
                    generation: shared.generation,
                }));
            }
            // Lost: the passes still on it stop by their fence; this one
            // takes the Lease anew.
            holds.remove(&key);
        }
        let held = match try_take(client, settings).await? {
            Ok(held) => held,
            Err(holder) => return Ok(Err(holder)),
        };
        let generation = GENERATION.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let fence = held.fence.clone();
        holds.insert(
            key.clone(),
            Shared {
                held,
                passes: 1,
                generation,
            },
        );
        Ok(Ok(Entered {
            fence,
            key,
            generation,
        }))
    }

    /// Ends a pass's share; the last one hands the Lease back.
    pub async fn leave(&self, entered: Entered) {
        let mut holds = self.0.lock().await;
        let last = match holds.get_mut(&entered.key) {
            Some(shared) if shared.generation == entered.generation => {
                shared.passes = shared.passes.saturating_sub(1);
                shared.passes == 0
            }
            _ => false,
        };
        if last {
            if let Some(shared) = holds.remove(&entered.key) {
                shared.held.release().await;
            }
        }
    }
}

impl Drop for Held {
    /// A hold dropped without [`Held::release`] (the watcher stopping on
    /// a lost election) stops renewing; the Lease then expires.
    fn drop(&mut self) {
        self.renewer.abort();
    }
}

impl Held {
    /// Stops renewing and hands the Lease back (no holder), so another
    /// watcher takes over at once instead of after the duration.
    pub async fn release(self) {
        self.renewer.abort();
        if !self.fence.is_open() {
            return;
        }
        if let Ok(Some(mut lease)) = self.api.get_opt(&self.settings.name).await {
            let ours = lease
                .spec
                .as_ref()
                .and_then(|s| s.holder_identity.as_deref())
                == Some(self.settings.identity.as_str());
            if ours {
                if let Some(spec) = lease.spec.as_mut() {
                    spec.holder_identity = None;
                }
                let _ = self
                    .api
                    .replace(&self.settings.name, &PostParams::default(), &lease)
                    .await;
            }
        }
        self.fence.lost.cancel();
    }
}

/// This process's identity: the host name (a Pod's name) and the pid.
pub fn identity() -> String {
    let host = std::env::var("HOSTNAME")
        .ok()
        .filter(|h| !h.is_empty())
        .or_else(|| {
            std::fs::read_to_string("/etc/hostname")
                .ok()
                .map(|h| h.trim().to_string())
        })
        .unwrap_or_else(|| "kubectl-etcd".into());
    format!("{host}-{}", std::process::id())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn spec(holder: Option<&str>, renewed: i64, secs: i32) -> LeaseSpec {
        LeaseSpec {
            holder_identity: holder.map(str::to_string),
            renew_time: Some(MicroTime(Timestamp::from_second(renewed).unwrap())),
            lease_duration_seconds: Some(secs),
            ..LeaseSpec::default()
        }
    }

    #[test]
    fn who_may_hold_the_lease() {
        let now = Timestamp::from_second(1_000).unwrap();
        let at = |s: i64| Timestamp::from_second(s).unwrap();
        let cases = [
            ("no lease", None, LeaseStep::Create),
            ("ours", Some(spec(Some("me"), 990, 15)), LeaseStep::Renew),
            (
                "ours even if expired",
                Some(spec(Some("me"), 900, 15)),
                LeaseStep::Renew,
            ),
            ("released", Some(spec(None, 999, 15)), LeaseStep::Acquire),
            (
                "empty holder",
                Some(spec(Some(""), 999, 15)),
                LeaseStep::Acquire,
            ),
            (
                "another's, still valid",
                Some(spec(Some("them"), 990, 15)),
                LeaseStep::Wait { until: at(1_005) },
            ),
            (
                "another's, just expired",
                Some(spec(Some("them"), 985, 15)),
                LeaseStep::Acquire,
            ),
            (
                "another's, never renewed",
                Some(LeaseSpec {
                    holder_identity: Some("them".into()),
                    ..LeaseSpec::default()
                }),
                LeaseStep::Acquire,
            ),
        ];
        for (name, lease, want) in cases {
            assert_eq!(decide(lease.as_ref(), "me", now), want, "{name}");
        }
    }

    #[tokio::test(start_paused = true)]
    async fn the_fence_closes_when_the_hold_runs_out() {
        let fence = Fence::open();
        fence.extend(Instant::now() + Duration::from_secs(15));
        assert!(fence.is_open());
        tokio::time::advance(Duration::from_secs(14)).await;
        assert!(fence.is_open());
        tokio::time::advance(Duration::from_secs(2)).await;
        assert!(!fence.is_open());
        assert!(fence.lost().is_cancelled(), "closing cancels the token");
        // Sticky: a late extension does not reopen it.
        fence.extend(Instant::now() + Duration::from_secs(15));
        assert!(!fence.is_open());
    }
}

//! Issue 25, the fault soak of `defrag --watch`: each round publishes a
//! fresh fragmented mTLS cluster as EtcdCluster `db` in a namespace of its
//! own on the real kube-apiserver, starts one watcher (two when the holder
//! is to be stopped past its Lease), creates an EtcdDefrag, and injects
//! faults at random moments (`soak::plan_watch_round`): the member faults
//! of the one-shot soak, the holder SIGKILLed and a new watcher started,
//! the holder SIGSTOPped past the Lease, the EtcdDefrag deleted, edited, or
//! joined by a second one for the same cluster, an EtcdDefragPolicy
//! stamping runs meanwhile, kube-apiserver restarted. The round is judged by
//! `soak::check` on the members' own logs and the EtcdDefrag objects as
//! the API server holds them, never by the watchers' word.
//!
//! A round replays alone:
//!
//!     SOAK_SEED=S SOAK_FROM=R SOAK_ROUNDS=1 cargo test --test k8s_soak_watch -- --ignored --nocapture
//!
//! `scripts/soak.sh --target watch` is the long run.
//!
//! Its own test binary: it installs an API server of its own (with an
//! audit log) as the binary's, which must come before any other test
//! starts one, and restarts it mid-round.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_macros)]

mod support;

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::coordination::v1::Lease;
use kube::api::{Api, DeleteParams, DynamicObject, Patch, PatchParams, PostParams};
use kube::{Client, ResourceExt};
use kubectl_etcd_testbed::soak::run::{judge, now, Harness, RoundResult};
use kubectl_etcd_testbed::soak::{plan_watch_round, WatchFault, WatchPlan};
use serde_json::{json, Value};
use support::k8s::*;
use support::watch::{create_run, runs};
use support::{ClusterSpec, EtcdVersion, Security};
use tokio::sync::Mutex;

const FRAGMENT_MB: u64 = 80;
const SPAN_MS: u64 = 3000;
const LEASE: &str = "--lease-duration=3s";

/// The watchers of a round: each a process with its stderr in a file, and
/// a user of its own (a ServiceAccount it impersonates, with admin rights
/// in the round's namespace), so that the audit log tells them apart.
struct Watchers {
    ns: String,
    dir: std::path::PathBuf,
    running: Vec<tokio::process::Child>,
    started: usize,
}

impl Watchers {
    async fn spawn(&mut self, client: &Client) {
        let log = self.dir.join(format!("watcher-{}.log", self.started));
        let account = format!("watcher-{}", self.started);
        self.started += 1;
        // A watcher started again may meet the API server restarting.
        let bindings: Api<k8s_openapi::api::rbac::v1::RoleBinding> =
            Api::namespaced(client.clone(), &self.ns);
        let binding = binding("cluster-admin", &account, &self.ns);
        let post = PostParams::default();
        let bound = retried(&[409], || bindings.create(&post, &binding)).await;
        assert!(bound, "the RoleBinding of {account} could not be created");
        // And the RBAC read by which it rules out another processor.
        let (role, read) = processors_read(&self.ns, &account);
        let roles: Api<k8s_openapi::api::rbac::v1::ClusterRole> = Api::all(client.clone());
        let reads: Api<k8s_openapi::api::rbac::v1::ClusterRoleBinding> = Api::all(client.clone());
        assert!(retried(&[409], || roles.create(&post, &role)).await);
        assert!(
            retried(&[409], || reads.create(&post, &read)).await,
            "the RBAC read of {account} could not be granted"
        );
        let kubeconfig = kubeconfig_as(
            &format!("{}-{account}.yaml", self.ns),
            &self.ns,
            &format!("system:serviceaccount:{}:{account}", self.ns),
        );
        let file = std::fs::File::create(&log).unwrap();
        let child = tokio::process::Command::new(tool())
            .arg(format!("--kubeconfig={}", kubeconfig.display()))
            .args([
                "--connect=direct",
                "-n",
                &self.ns,
                "-v",
                "defrag",
                "--watch",
                LEASE,
            ])
            .env_remove("KUBECONFIG")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(file)
            .kill_on_drop(true)
            .spawn()
            .expect("spawn a watcher");
        self.running.push(child);
    }

    /// The running watcher that holds the Lease, by its index.
    async fn holder(&self, client: &Client) -> Option<usize> {
        let leases: Api<Lease> = Api::namespaced(client.clone(), &self.ns);
        let holder = leases
            .get_opt("kubectl-etcd-watch")
            .await
            .ok()??
            .spec?
            .holder_identity?;
        self.running.iter().position(|c| {
            c.id()
                .is_some_and(|pid| holder.ends_with(&format!("-{pid}")))
        })
    }

    /// What the watchers said (-v), for the evidence.
    fn account(&self) -> String {
        (0..self.started)
            .map(|i| {
                let text = std::fs::read_to_string(self.dir.join(format!("watcher-{i}.log")))
                    .unwrap_or_default();
                format!("--- watcher {i}\n{text}")
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

fn signal(child: &tokio::process::Child, sig: nix::sys::signal::Signal) {
    if let Some(pid) = child.id() {
        let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid as i32), sig);
    }
}

/// Waits until some watcher holds the Lease (at most 30 s).
async fn wait_for_holder(client: &Client, watchers: &Mutex<Watchers>) -> Option<usize> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while tokio::time::Instant::now() < deadline {
        if let Some(i) = watchers.lock().await.holder(client).await {
            return Some(i);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    None
}

/// The Lease holder's process, taken out of the running watchers (waits
/// up to 30 s for a holder).
async fn take_holder(client: &Client, watchers: &Mutex<Watchers>) -> Option<tokio::process::Child> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while tokio::time::Instant::now() < deadline {
        let mut w = watchers.lock().await;
        if let Some(i) = w.holder(client).await.filter(|&i| i < w.running.len()) {
            return Some(w.running.remove(i));
        }
        drop(w);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    None
}

/// Carries out one fault done to the watchers or to the EtcdDefrag.
async fn inject(
    fault: WatchFault,
    client: &Client,
    watchers: &Mutex<Watchers>,
    defrags: &Api<DynamicObject>,
    deleted_at: &Mutex<Option<f64>>,
) {
    use nix::sys::signal::Signal;
    match fault {
        WatchFault::Member(_) => {}
        WatchFault::KillWatcher { down_ms, .. } => {
            // Found and taken under one lock: two kills overlapping must
            // not both take the same holder (seed 28 round 119).
            let Some(mut child) = take_holder(client, watchers).await else {
                return;
            };
            let _ = child.start_kill();
            let _ = child.wait().await;
            tokio::time::sleep(Duration::from_millis(down_ms)).await;
            watchers.lock().await.spawn(client).await;
        }
        WatchFault::PauseHolder { for_ms, .. } => {
            let Some(i) = wait_for_holder(client, watchers).await else {
                return;
            };
            let w = watchers.lock().await;
            if let Some(child) = w.running.get(i) {
                signal(child, Signal::SIGSTOP);
            }
            drop(w);
            tokio::time::sleep(Duration::from_millis(for_ms)).await;
            let w = watchers.lock().await;
            if let Some(child) = w.running.get(i) {
                signal(child, Signal::SIGCONT);
            }
        }
        // Another client retries what the API server refused while it
        // was down, as any client would.
        WatchFault::DeleteRun { .. } => {
            let params = DeleteParams::default();
            let deleted = retried(&[404], || defrags.delete("first", &params)).await;
            if deleted {
                deleted_at.lock().await.get_or_insert(now());
            }
        }
        WatchFault::SecondRun { .. } => {
            let spec = json!({"clusterRef": {"name": "db"}, "rule": {"all": true}});
            let object: DynamicObject = serde_json::from_value(json!({
                "apiVersion": "etcd-operator.cozystack.io/v1alpha2",
                "kind": "EtcdDefrag",
                "metadata": {"name": "second"},
                "spec": spec,
            }))
            .unwrap();
            let post = PostParams::default();
            let created = retried(&[409], || defrags.create(&post, &object)).await;
            assert!(created, "the second EtcdDefrag could not be created");
        }
        // A policy stamping a run every 2 s for the cluster (after `first`,
        // by the Forbid concurrency policy), suspended after `for_ms`.
        WatchFault::Policy { for_ms, .. } => {
            let policies = support::k8s::dynamic(
                client,
                &watchers.lock().await.ns,
                "EtcdDefragPolicy",
                "etcddefragpolicies",
            );
            let object: DynamicObject = serde_json::from_value(json!({
                "apiVersion": "etcd-operator.cozystack.io/v1alpha2",
                "kind": "EtcdDefragPolicy",
                "metadata": {"name": "soak"},
                "spec": {
                    "clusterRef": {"name": "db"},
                    "schedule": "@every 2s",
                    "rule": {"all": true},
                    "historyLimit": 100,
                },
            }))
            .unwrap();
            let post = PostParams::default();
            let created = retried(&[409], || policies.create(&post, &object)).await;
            assert!(created, "the EtcdDefragPolicy could not be created");
            tokio::time::sleep(Duration::from_millis(for_ms)).await;
            let suspend = json!({"spec": {"suspend": true}});
            let (params, suspend) = (PatchParams::default(), Patch::Merge(&suspend));
            let suspended = retried(&[], || policies.patch("soak", &params, &suspend)).await;
            assert!(suspended, "the EtcdDefragPolicy could not be suspended");
        }
        WatchFault::RestartApiServer { down_ms, .. } => {
            let server = apiserver().await;
            let pid = server
                .restart(Duration::from_millis(down_ms))
                .await
                .expect("restart kube-apiserver");
            kubectl_etcd_testbed::apiserver::watchdog(&[pid], &[]).expect("watchdog");
        }
        WatchFault::EditRun { at_ms } => {
            let patch = json!({"metadata": {"labels": {"soak-edited": at_ms.to_string()}}});
            // Deleted meanwhile (404): nothing to edit.
            let (params, patch) = (PatchParams::default(), Patch::Merge(&patch));
            retried(&[404], || defrags.patch("first", &params, &patch)).await;
        }
    }
}

/// Runs `call` until it succeeds or the API server answers one of the
/// `settled` codes (already created, already gone), for at most 30 s;
/// whether it did.
async fn retried<T, F, Fut>(settled: &[u16], call: F) -> bool
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Result<T, kube::Error>>,
{
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while tokio::time::Instant::now() < deadline {
        match call().await {
            Ok(_) => return true,
            Err(kube::Error::Api(e)) if settled.contains(&e.code) => return true,
            Err(_) => {}
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    false
}

/// A run's last status seen, and whether it is gone.
#[derive(Debug, Clone, Default)]
struct Seen {
    status: Value,
    gone: bool,
    /// Its creation (Unix seconds).
    created: i64,
}

fn terminal(seen: &Seen) -> bool {
    seen.gone || matches!(seen.status["phase"].as_str(), Some("Complete" | "Failed"))
}

async fn watch_round(
    client: &Client,
    audit: &std::path::Path,
    version: EtcdVersion,
    seed: u64,
    round: u64,
) -> (WatchPlan, RoundResult) {
    let plan = plan_watch_round(seed, round, SPAN_MS);
    let ns = format!("soak-{seed}-{round}");
    let names = member_names("db", plan.members);
    let mut spec = ClusterSpec::new(plan.members, Security::MutualTls)
        .version(version)
        .operator_style("db", &ns, &names);
    spec.log_level = "info";
    let etcd = support::Cluster::start(spec).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let fx = publish(client, &ns, "db", Mode::Mtls, etcd, names).await;
    let mut harness = Harness::start(fx.etcd, FRAGMENT_MB, plan.small_quota())
        .await
        .unwrap();

    let watchers = Arc::new(Mutex::new(Watchers {
        ns: ns.clone(),
        dir: dir.path().to_path_buf(),
        running: Vec::new(),
        started: 0,
    }));
    for _ in 0..plan.watchers {
        watchers.lock().await.spawn(client).await;
    }
    assert!(
        wait_for_holder(client, &watchers).await.is_some(),
        "no watcher took the Lease"
    );

    let defrags = runs(client, &ns);
    harness.mark_start();
    create_run(client, &ns, "first", "db", json!({"all": true})).await;
    for fault in plan.member_faults() {
        harness.inject(fault, None);
    }
    let deleted_at = Arc::new(Mutex::new(None::<f64>));
    let mut tasks = Vec::new();
    for fault in plan.faults.clone() {
        let (client, watchers, defrags, deleted_at) = (
            client.clone(),
            watchers.clone(),
            defrags.clone(),
            deleted_at.clone(),
        );
        tasks.push(tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(fault.at_ms())).await;
            inject(fault, &client, &watchers, &defrags, &deleted_at).await;
        }));
    }

    // Every run to a terminal phase (or gone), as the API server has it:
    // `first`, a second one, a policy's stamped ones; the last status seen
    // of each is what the round reports.
    let mut seen: std::collections::BTreeMap<String, Seen> = std::collections::BTreeMap::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(150);
    let mut faults_done = false;
    let mut unfinished = None;
    loop {
        if let Ok(list) = defrags.list(&Default::default()).await {
            let listed: Vec<String> = list.items.iter().map(|r| r.name_any()).collect();
            for run in list.items {
                let created = run
                    .metadata
                    .creation_timestamp
                    .as_ref()
                    .map(|t| t.0.as_second());
                seen.insert(
                    run.name_any(),
                    Seen {
                        status: run.data["status"].clone(),
                        gone: false,
                        created: created.unwrap_or(0),
                    },
                );
            }
            for (name, s) in seen.iter_mut() {
                if !listed.contains(name) {
                    s.gone = true;
                }
            }
            // `first` deleted before the first list.
            seen.entry("first".into()).or_insert(Seen {
                status: Value::Null,
                gone: true,
                created: 0,
            });
        }
        if !faults_done && tasks.iter().all(|t| t.is_finished()) {
            faults_done = true;
            continue;
        }
        if faults_done && seen.values().all(terminal) {
            break;
        }
        if tokio::time::Instant::now() > deadline {
            unfinished = Some(format!(
                "the runs did not finish within 150 s: {:?}",
                seen.iter()
                    .map(|(n, s)| format!("{n}: {}", s.status["phase"]))
                    .collect::<Vec<_>>()
            ));
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // In the order they acted (creation, then name).
    let mut runs_in_order: Vec<(String, Seen)> = seen.into_iter().collect();
    runs_in_order.sort_by(|a, b| (a.1.created, &a.0).cmp(&(b.1.created, &b.0)));
    let seen: Vec<Seen> = runs_in_order.iter().map(|(_, s)| s.clone()).collect();
    for t in tasks {
        t.await.unwrap();
    }
    let account = {
        let w = watchers.lock().await;
        format!(
            "--- runs\n{}\n{}",
            seen.iter()
                .map(|s| s.status.to_string())
                .collect::<Vec<_>>()
                .join("\n"),
            w.account()
        )
    };
    for child in &mut watchers.lock().await.running {
        signal(child, nix::sys::signal::Signal::SIGCONT);
        let _ = child.start_kill();
    }

    if let Some(at) = *deleted_at.lock().await {
        harness.stopped(at).await;
    }
    let member_names = harness.names.clone();
    let (mut observed, logs) = harness.finish().await.unwrap();
    let deleted = deleted_at.lock().await.is_some();
    let complete = seen.iter().all(|s| s.status["phase"] == "Complete");
    observed.exit = if deleted {
        -2
    } else if complete {
        0
    } else {
        1
    };
    (observed.lease_writes, observed.run_writes) = watcher_writes(audit, &ns);
    // The holder took the Lease and wrote the run's rows: an empty record
    // means the audit log was not read right, and fencing went unjudged.
    let deleted_early = deleted_at.lock().await.is_some();
    if observed.lease_writes.is_empty() || (observed.run_writes.is_empty() && !deleted_early) {
        unfinished = Some(format!(
            "the audit log has no Lease ({}) or EtcdDefrag ({}) writes by the watchers",
            observed.lease_writes.len(),
            observed.run_writes.len()
        ));
    }
    // A later run acts only once the one before has ended: each one's last
    // status write is the line between them.
    observed.run_bounds = runs_in_order
        .iter()
        .take(runs_in_order.len().saturating_sub(1))
        .filter_map(|(name, _)| last_status_write(audit, &ns, name))
        .collect();
    observed.reported_defragmented = seen
        .iter()
        .flat_map(|s| s.status["members"].as_array().cloned().unwrap_or_default())
        .filter(|row| row["outcome"] == "Defragmented")
        .filter_map(|row| member_names.iter().position(|n| row["name"] == n.as_str()))
        .collect();
    // A Failed run says why: a failed row, or its condition's message.
    observed.reason_given = deleted
        || complete
        || seen.iter().all(|s| {
            s.status["phase"] == "Complete"
                || s.status["members"]
                    .as_array()
                    .is_some_and(|rows| rows.iter().any(|r| r["outcome"] == "Failed"))
                || s.status["conditions"].as_array().is_some_and(|c| {
                    c.iter()
                        .any(|c| c["message"].as_str().is_some_and(|m| !m.is_empty()))
                })
        });
    if let Some(why) = unfinished {
        observed.unhealthy_after = Some(match observed.unhealthy_after.take() {
            Some(other) => format!("{why}; {other}"),
            None => why,
        });
    }
    let result = judge(plan.as_round(), observed, &logs, &account);
    let _ = kube::api::Api::<k8s_openapi::api::core::v1::Namespace>::all(client.clone())
        .delete(&ns, &DeleteParams::default())
        .await;
    (plan, result)
}

/// This binary's API server, with an audit log: the record of when each
/// EtcdDefrag's status was written.
async fn audited() -> &'static std::path::Path {
    support::k8s::audited("soak").await
}

/// When run `name` of `ns` was last written (its status), from the API
/// server's audit log.
fn last_status_write(audit: &std::path::Path, ns: &str, name: &str) -> Option<f64> {
    let text = std::fs::read_to_string(audit).ok()?;
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| {
            let o = &e["objectRef"];
            e["stage"] == "ResponseComplete"
                && o["resource"] == "etcddefrags"
                && o["subresource"] == "status"
                && o["namespace"] == ns
                && o["name"] == name
                && e["responseStatus"]["code"]
                    .as_u64()
                    .is_some_and(|c| c < 300)
        })
        .filter_map(|e| kubectl_etcd_testbed::cluster::log_time(&e["stageTimestamp"]))
        .reduce(f64::max)
}

/// (when, who) of writes, from the audit log.
type Writes = Vec<(f64, String)>;

/// The watchers' successful writes in `ns`, from the audit log: of their
/// Lease (when each took effect) and of EtcdDefrags (when each was
/// received), with who wrote.
fn watcher_writes(audit: &std::path::Path, ns: &str) -> (Writes, Writes) {
    let text = std::fs::read_to_string(audit).unwrap_or_default();
    let (mut lease, mut runs) = (Vec::new(), Vec::new());
    let prefix = format!("system:serviceaccount:{ns}:watcher-");
    for e in text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
    {
        let o = &e["objectRef"];
        let Some(who) = e["impersonatedUser"]["username"].as_str() else {
            continue;
        };
        let written = e["stage"] == "ResponseComplete"
            && matches!(e["verb"].as_str(), Some("create" | "update" | "patch"))
            && e["responseStatus"]["code"]
                .as_u64()
                .is_some_and(|c| c < 300)
            && o["namespace"] == ns
            && who.starts_with(&prefix);
        if !written {
            continue;
        }
        let time = |field: &str| kubectl_etcd_testbed::cluster::log_time(&e[field]);
        match o["resource"].as_str() {
            Some("leases") if o["name"] == "kubectl-etcd-watch" => {
                lease.extend(time("stageTimestamp").map(|t| (t, who.to_string())))
            }
            Some("etcddefrags") => {
                runs.extend(time("requestReceivedTimestamp").map(|t| (t, who.to_string())))
            }
            _ => {}
        }
    }
    (lease, runs)
}

/// Runs `rounds` and fails with every violation (and each round's
/// records) at the end.
async fn soak(version: EtcdVersion, rounds: &[(u64, u64)]) {
    let audit = audited().await;
    let client = admin().await;
    let mut failures = Vec::new();
    for &(seed, r) in rounds {
        let (plan, result) = watch_round(&client, audit, version, seed, r).await;
        let kinds: Vec<String> = plan
            .faults
            .iter()
            .map(|f| format!("{}@{}ms", f.kind(), f.at_ms()))
            .collect();
        println!(
            "seed {seed} round {r}: {} members, {} watcher(s), faults [{}]{}, exit {}, {} defrag(s) logged, {} violation(s)",
            plan.members,
            plan.watchers,
            kinds.join(", "),
            if result.fired.is_empty() { String::new() } else { format!(" ({})", result.fired.join(", ")) },
            result.exit,
            result.defragmented,
            result.violations.len()
        );
        if let Some(evidence) = &result.evidence {
            let keep = std::env::temp_dir().join(format!("soak-watch-{seed}-{r}.txt"));
            std::fs::write(&keep, evidence).unwrap();
            let records = evidence.split("--- runs").next().unwrap_or("");
            failures.push(format!(
                "seed {seed} round {r}: {:?} (evidence in {})\n{records}",
                result.violations,
                keep.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The CI-sized run: fixed rounds covering every watcher fault.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_watcher_breaks_no_invariant_under_random_faults() {
    // Kinds: 1 the holder paused past its Lease and killed, an edit; 2
    // five members, the run deleted; 4 a member killed, an edit, the run
    // deleted; 10 the watcher killed, a second run; 12 CORRUPT; 15 five
    // members, NOSPACE at once, a kill, a pause; 27 the watcher killed,
    // leadership moved, a policy stamping runs. Rounds 4, 10 and 12 also
    // restart kube-apiserver.
    let rounds = [1, 2, 4, 10, 12, 15, 27];
    soak(EtcdVersion::V3_6, &rounds.map(|r| (25, r))).await;
}

/// The watchers' binary: this build's, or SOAK_TOOL's (a long run keeps a
/// copy, so that building meanwhile does not change what it soaks).
fn tool() -> String {
    std::env::var("SOAK_TOOL").unwrap_or_else(|_| env!("CARGO_BIN_EXE_kubectl-etcd").to_string())
}

/// The long run (`scripts/soak.sh --target watch`): SOAK_SEED, SOAK_FROM,
/// SOAK_ROUNDS, SOAK_VERSION and SOAK_TOOL from the environment.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore]
async fn long_watch_soak() {
    let var = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let seed = var("SOAK_SEED", 25);
    let from = var("SOAK_FROM", 0);
    let count = var("SOAK_ROUNDS", 100);
    let version =
        EtcdVersion::parse(&std::env::var("SOAK_VERSION").unwrap_or("3.6".into())).unwrap();
    println!("seed {seed}");
    let rounds: Vec<(u64, u64)> = (from..from + count).map(|r| (seed, r)).collect();
    soak(version, &rounds).await;
}

//! Never two defrags at once, whoever starts them (issue 37), on the test
//! bed's real node with the etcd-operator that ships its own EtcdDefrag and
//! EtcdDefragPolicy controllers: a policy of each of two clusters ticking
//! every minute, one-shot sweeps run back to back through the real
//! kubectl (one cluster, then `-A` over both), and the watcher's
//! Deployment installed beside them. Judged from each member's own log:
//! no two defrags of one cluster overlap, and no member is defragmented
//! twice within one of our sweeps or one of the operator's runs.
//!
//! The operator's controllers are also a fault source, at moments drawn
//! from a seed: the second cluster's policy ticks every 40–80 s (`@every`),
//! so its ticks fall anywhere in our sweeps, and runs are created by hand
//! at random moments — between sweeps, or in the middle of one, between
//! two members or during a member's defrag. A run created while one of our
//! members is defragmenting is the one overlap an outside tool cannot rule
//! out (the operator offers no lock; only `--via-operator` does): such an
//! overlap is counted and excused only when the hand-made run was created
//! inside our member's defrag; every other overlap is a violation.
//!
//! `KUBECTL_ETCD_BESIDE_MINUTES` sets how long the sweeps go on (default
//! 3; the proof ran 10), `KUBECTL_ETCD_BESIDE_SEED` the seed
//! (default: the clock, printed). The figures are printed at the end.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, ListParams, LogParams};
use kubectl_etcd_testbed::cluster::{defrags_in_logs, LoggedDefrag};
use serde_json::{json, Value};
use support::k8s::*;
use support::operator::*;

const NS: &str = "etcd";
const CLUSTERS: [&str; 2] = ["one", "two"];

fn seconds_of(time: &Value) -> Option<f64> {
    let text = time.as_str()?;
    let t: jiff::Timestamp = text.parse().ok()?;
    Some(t.as_millisecond() as f64 / 1000.0)
}

/// One sweep of ours: when it ran and what it reported per cluster.
struct Sweep {
    start: f64,
    end: f64,
    /// (cluster, outcome or stop reason, refusal codes)
    outcomes: Vec<(String, String, Vec<String>)>,
}

/// (cluster, outcome, refusal codes) of each cluster a report covers: a
/// fleet's entries as they are, one cluster's report as `Completed` or
/// `Refused`/`Failed` by its stop reason.
fn sweep_outcomes(doc: &Value) -> Vec<(String, String, Vec<String>)> {
    let codes = |report: &Value| -> Vec<String> {
        report["refusal"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|r| r["code"].as_str().map(str::to_string))
            .collect()
    };
    match doc["clusters"].as_array() {
        Some(clusters) => clusters
            .iter()
            .map(|c| {
                (
                    c["cluster"]["name"].as_str().unwrap_or("?").to_string(),
                    c["outcome"].as_str().unwrap_or("?").to_string(),
                    codes(&c["report"]),
                )
            })
            .collect(),
        None => {
            let outcome = match doc["stopReason"].as_str() {
                None => "Completed",
                Some("GateRefused") => "Refused",
                Some(_) => "Failed",
            };
            vec![(
                doc["cluster"]["name"].as_str().unwrap_or("?").to_string(),
                outcome.to_string(),
                codes(doc),
            )]
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn sweeps_policies_and_a_watcher_beside_the_operators_controller_never_overlap() {
    let minutes: u64 = std::env::var("KUBECTL_ETCD_BESIDE_MINUTES")
        .ok()
        .and_then(|m| m.parse().ok())
        .unwrap_or(3);
    let mut bed = Bed::start(NS).await;
    let image = support::tool_image(&mut bed.node);
    for cluster in CLUSTERS {
        bed.create_cluster(cluster, 3, "2Gi", Value::Null).await;
    }
    for cluster in CLUSTERS {
        bed.wait_ready(cluster, 3).await;
        // Enough in use that one member's defragmentation lasts a while.
        fragment(bed.plain_client(cluster).await, 16 << 20, 96 << 20).await;
    }

    // The watcher's Deployment, as shipped: beside the operator's
    // controller it must refuse to start, every time the kubelet restarts it.
    let mut docs = Vec::new();
    for doc in manifest("deploy/watch") {
        if doc["kind"] == "Deployment" {
            assert_eq!(
                doc["spec"]["template"]["spec"]["containers"][0]["image"],
                image.as_str()
            );
        }
        docs.push(doc);
    }
    bed.apply(docs).await;

    let seed: u64 = std::env::var("KUBECTL_ETCD_BESIDE_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| now() as u64);
    let mut rng = kubectl_etcd_testbed::soak::Rng::new(seed, 0);

    // A policy per cluster, each run kept for a while to be judged: the
    // first every minute (UTC), the second every 40–80 s from the seed.
    let every = rng.between(40, 80);
    let policies = dynamic(&bed.client, NS, "EtcdDefragPolicy", "etcddefragpolicies");
    for (cluster, schedule) in CLUSTERS
        .iter()
        .zip(["* * * * *".to_string(), format!("@every {every}s")])
    {
        create(
            &policies,
            json!({
                "apiVersion": "etcd-operator.cozystack.io/v1alpha2",
                "kind": "EtcdDefragPolicy",
                "metadata": {"name": format!("{cluster}-often"), "namespace": NS},
                "spec": {"clusterRef": {"name": cluster}, "schedule": schedule,
                         "rule": {"all": true}, "ttlSecondsAfterFinished": 3600},
            }),
        )
        .await;
    }

    // One-shot sweeps back to back: one cluster, then every cluster.
    let began = now();
    let until = began + (minutes * 60) as f64;
    // Runs by hand, at moments from the seed, beside the sweeps.
    let runs_api = dynamic(&bed.client, NS, "EtcdDefrag", "etcddefrags");
    let mut hand_rng = rng.clone();
    let by_hand = tokio::spawn(async move {
        let mut made: Vec<(String, String, f64)> = Vec::new();
        let mut n = 0;
        loop {
            let pause = hand_rng.between(5_000, 30_000);
            tokio::time::sleep(std::time::Duration::from_millis(pause)).await;
            if now() >= until - 20.0 {
                return made;
            }
            let cluster = CLUSTERS[(hand_rng.next_u64() % 2) as usize];
            n += 1;
            let name = format!("by-hand-{n}");
            let at = now();
            create(
                &runs_api,
                json!({
                    "apiVersion": "etcd-operator.cozystack.io/v1alpha2",
                    "kind": "EtcdDefrag",
                    "metadata": {"name": name, "namespace": NS},
                    "spec": {"clusterRef": {"name": cluster}, "rule": {"all": true},
                             "ttlSecondsAfterFinished": 3600},
                }),
            )
            .await;
            made.push((name, cluster.to_string(), at));
        }
    });
    let mut sweeps: Vec<Sweep> = Vec::new();
    let mut turn = 0usize;
    while now() < until {
        let fleet = turn % 2 == 1;
        let args: Vec<&str> = if fleet {
            vec!["etcd", "defrag", "-A", "--all", "--yes", "-o", "json"]
        } else {
            vec![
                "etcd",
                "defrag",
                CLUSTERS[turn / 2 % 2],
                "-n",
                NS,
                "--all",
                "--yes",
                "-o",
                "json",
            ]
        };
        turn += 1;
        let start = now();
        let run = bed.kubectl(&args).await;
        let end = now();
        assert!(
            run.code == 0 || run.code == 1,
            "{args:?} exited {}: {}",
            run.code,
            run.stderr
        );
        let doc: Value = serde_json::from_str(&run.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", run.stdout));
        let outcomes = sweep_outcomes(&doc);
        for (cluster, outcome, codes) in &outcomes {
            // Completed, or refused for another processor's reasons only.
            let beside = !codes.is_empty()
                && codes
                    .iter()
                    .all(|c| c == "DefragRunActive" || c == "PolicyTickDue");
            assert!(
                outcome == "Completed" || (outcome == "Refused" && beside),
                "{cluster}: {outcome} {codes:?}: {}",
                run.stdout
            );
        }
        sweeps.push(Sweep {
            start,
            end,
            outcomes,
        });
    }

    let hand_made = by_hand.await.unwrap();

    // The watcher never started: each of its Pods' logs says why.
    let pods: Api<Pod> = Api::namespaced(bed.client.clone(), NS);
    let watchers = pods
        .list(&ListParams::default().labels("app.kubernetes.io/component=defrag-watch"))
        .await
        .unwrap();
    assert!(!watchers.items.is_empty());
    for pod in &watchers.items {
        let name = pod.metadata.name.clone().unwrap();
        let log = match pods.logs(&name, &LogParams::default()).await {
            Ok(log) if !log.is_empty() => log,
            _ => pods
                .logs(
                    &name,
                    &LogParams {
                        previous: true,
                        ..LogParams::default()
                    },
                )
                .await
                .unwrap_or_default(),
        };
        assert!(
            log.contains("another EtcdDefrag processor is installed")
                && log.contains("etcd-operator-system/etcd-operator"),
            "{name}: {log}"
        );
    }
    let deployments: Api<Deployment> = Api::namespaced(bed.client.clone(), NS);
    let ready = deployments
        .get("kubectl-etcd-watch")
        .await
        .unwrap()
        .status
        .and_then(|s| s.ready_replicas)
        .unwrap_or(0);
    assert_eq!(
        ready, 0,
        "a watcher became ready beside the operator's controller"
    );

    // The operator's runs, as it wrote them: the window each acted in.
    let runs = dynamic(&bed.client, NS, "EtcdDefrag", "etcddefrags");
    let all_runs = runs.list(&ListParams::default()).await.unwrap().items;
    let operator_windows = |cluster: &str| -> Vec<(String, f64, f64)> {
        all_runs
            .iter()
            .filter(|r| r.data["spec"]["clusterRef"]["name"] == cluster)
            .filter_map(|r| {
                let status = &r.data["status"];
                let name = r.metadata.name.clone().unwrap_or_default();
                // Times are whole seconds, cut down: a run began at or
                // after its startedAt and after it was created (known to
                // the millisecond for a run made here), and ended before
                // its completedAt's next second.
                let created = hand_made
                    .iter()
                    .find(|(n, _, _)| *n == name)
                    .map(|h| h.2)
                    .or_else(|| {
                        r.metadata
                            .creation_timestamp
                            .as_ref()
                            .map(|t| t.0.as_millisecond() as f64 / 1000.0)
                    })
                    .unwrap_or(0.0);
                Some((
                    name,
                    seconds_of(&status["startedAt"])?.max(created),
                    seconds_of(&status["completedAt"])? + 1.0,
                ))
            })
            .collect()
    };
    let mut operator_runs = 0;
    let mut report = String::new();
    let mut smallest_gap = f64::INFINITY;
    let mut per_member: Vec<String> = Vec::new();
    let mut violations: Vec<String> = Vec::new();
    let mut excused_overlaps = 0;
    let mut interleaved: Vec<String> = Vec::new();
    for cluster in CLUSTERS {
        let members = bed.members(cluster).await;
        let logs = bed.logs(&members).await;
        let defrags: Vec<LoggedDefrag> = defrags_in_logs(&logs)
            .into_iter()
            .filter(|d| d.start >= began - 5.0)
            .collect();
        let windows = operator_windows(cluster);
        operator_runs += windows.len();
        let by_operator = |d: &LoggedDefrag| {
            windows
                .iter()
                .any(|(_, start, end)| d.start >= *start && d.end <= *end)
        };
        // A hand-made run of this cluster created while `d` (ours) was in
        // flight, whose window holds `other`: the documented exception.
        // `d` is ours and a hand-made run of this cluster was created
        // while it was in flight (or in the second before it started:
        // after our last look), and `other`, begun after `d`, is that
        // run's. `d` may fall in that run's window (it opens at
        // creation), not in another's.
        let created_inside = |d: &LoggedDefrag, other: &LoggedDefrag| {
            hand_made.iter().any(|(name, c, at)| {
                let in_window = |x: &LoggedDefrag, w: &str| {
                    windows
                        .iter()
                        .any(|(n, start, end)| n == w && x.start >= *start && x.end <= *end)
                };
                let in_another = windows
                    .iter()
                    .any(|(n, start, end)| n != name && d.start >= *start && d.end <= *end);
                c == cluster
                    && *at >= d.start - 1.0
                    && *at <= d.end
                    && d.start <= other.start
                    && in_window(other, name)
                    && !in_another
            })
        };
        // 1. Never two members of one cluster at once, but for a run made
        // by hand during our member's defrag.
        for pair in defrags.windows(2) {
            smallest_gap = smallest_gap.min(pair[1].start - pair[0].end);
            if pair[0].end > pair[1].start {
                let (first, second) = (&pair[0], &pair[1]);
                let excused = created_inside(first, second) || created_inside(second, first);
                if excused {
                    excused_overlaps += 1;
                } else {
                    violations.push(format!("{cluster}: two members at once: {pair:?}"));
                }
            }
        }
        for (i, m) in members.iter().enumerate() {
            let mine = defrags.iter().filter(|d| d.member == i);
            per_member.push(format!(
                "{m}: {} ({} by the operator)",
                mine.clone().count(),
                mine.filter(|d| by_operator(d)).count()
            ));
        }
        // 2. No member twice within one of our sweeps of this cluster
        // (the operator's defrags inside our sweep's time, while it waited
        // out a tick before refusing, are the operator's).
        for sweep in &sweeps {
            if !sweep.outcomes.iter().any(|(c, _, _)| c == cluster) {
                continue;
            }
            for (i, member) in members.iter().enumerate() {
                let inside = defrags
                    .iter()
                    .filter(|d| d.member == i && d.start >= sweep.start && d.end <= sweep.end)
                    .filter(|d| !by_operator(d))
                    .count();
                if inside > 1 {
                    violations.push(format!("{member} twice in our sweep at {}", sweep.start));
                }
            }
        }
        // 3. ... nor within one of the operator's runs. Two of its runs of
        // one cluster acting in one window are the operator serializing
        // wrongly on its own (it orders runs by creation second, then name,
        // from its cache: a run made by hand in the second its policy
        // stamped one, with a smaller name, went first while the stamped
        // one was already acting — seed 1764900001); their members are
        // defragmented once per run, by the operator alone. Counted and
        // printed, not held against us.
        for (name, start, end) in &windows {
            let others: Vec<&String> = windows
                .iter()
                .filter(|(n, s, e)| n != name && s < end && e > start)
                .map(|(n, _, _)| n)
                .collect();
            if !others.is_empty() {
                interleaved.push(format!("{name} with {others:?}"));
                continue;
            }
            // Either side of an overlap excused in 1 (ours, begun in the
            // moment a run was made by hand, beside the run's first) is
            // not the run's: the operator defragments one member at a
            // time, and the exception cannot tell which of the two is ours
            // (seed 1796483600: ours of two-f2km7 began 26 ms after
            // by-hand-2 was made, and the run then defragmented two-f2km7
            // itself).
            let excused = |d: &LoggedDefrag| {
                defrags.iter().any(|o| {
                    !std::ptr::eq(o, d)
                        && o.start < d.end
                        && d.start < o.end
                        && (created_inside(d, o) || created_inside(o, d))
                })
            };
            // The run's work ends with the first defrag, in its window, of
            // the last of the members its status says it defragmented: a
            // defrag begun after that is not the run's, though its window
            // runs on to the end of the second of its completedAt (seed
            // 1796494534: ours of two-8js4f began 0.28 s after by-hand-15's
            // last member ended, in that second). A defrag between the
            // run's members still counts.
            let done_by_run: Vec<usize> = all_runs
                .iter()
                .find(|r| r.metadata.name.as_deref() == Some(name.as_str()))
                .and_then(|r| r.data["status"]["members"].as_array().cloned())
                .unwrap_or_default()
                .iter()
                .filter(|row| row["outcome"] == "Defragmented")
                .filter_map(|row| members.iter().position(|m| row["name"] == m.as_str()))
                .collect();
            let first_in = |i: usize| {
                defrags
                    .iter()
                    .filter(|d| d.member == i && d.start >= *start && d.end <= *end)
                    .map(|d| (d.start, d.end))
                    .min_by(|a, b| a.0.total_cmp(&b.0))
                    .map(|(_, end)| end)
            };
            let work_end = match done_by_run.is_empty() {
                true => None,
                false => done_by_run
                    .iter()
                    .map(|&i| first_in(i))
                    .collect::<Option<Vec<f64>>>()
                    .and_then(|ends| ends.into_iter().reduce(f64::max)),
            };
            for (i, member) in members.iter().enumerate() {
                let inside = defrags
                    .iter()
                    .filter(|d| d.member == i && d.start >= *start && d.end <= *end)
                    .filter(|d| work_end.is_none_or(|w| d.start < w))
                    .filter(|d| !excused(d))
                    .count();
                if inside > 1 {
                    let ours: Vec<String> = sweeps
                        .iter()
                        .filter(|s| s.end >= *start && s.start <= *end)
                        .map(|s| format!("{:.3}..{:.3} {:?}", s.start, s.end, s.outcomes))
                        .collect();
                    let all_in: Vec<String> = defrags
                        .iter()
                        .filter(|d| d.start >= *start && d.end <= *end)
                        .map(|d| format!("{}@{:.3}..{:.3}", members[d.member], d.start, d.end))
                        .collect();
                    let made = hand_made.iter().find(|(n, _, _)| n == name).map(|h| h.2);
                    let rows = all_runs
                        .iter()
                        .find(|r| r.metadata.name.as_deref() == Some(name.as_str()))
                        .map(|r| r.data["status"].to_string())
                        .unwrap_or_default();
                    violations.push(format!(
                        "{member} twice in run {name} [{start:.3}..{end:.3}, made at {made:?}]: defrags {all_in:?}; our sweeps then: {ours:?}; its status: {rows}"
                    ));
                }
            }
        }
        report.push_str(&format!(
            "{cluster}: {} defrags in the logs\n",
            defrags.len()
        ));
    }
    let completed: usize = sweeps
        .iter()
        .flat_map(|s| &s.outcomes)
        .filter(|(_, o, _)| o == "Completed")
        .count();
    let refused: usize = sweeps
        .iter()
        .flat_map(|s| &s.outcomes)
        .filter(|(_, o, _)| o != "Completed")
        .count();
    // The figures, for the closing note and docs/reliability.md (shown
    // with --nocapture; the test harness keeps a passing test's output).
    use std::io::Write as _;
    let _ = writeln!(
        std::io::stderr(),
        "beside the operator for {minutes} min (seed {seed}, second policy @every {every}s): {} sweeps ({completed} cluster sweeps completed, {refused} refused or stopped for another processor), {operator_runs} operator runs finished ({} made by hand), defrags per member [{}], smallest gap between two defrags of one cluster {smallest_gap:.3}s, overlaps with a run made by hand during our member's defrag: {excused_overlaps}, the operator's own runs acting in one window: {interleaved:?}\n{report}",
        sweeps.len(),
        hand_made.len(),
        per_member.join(", ")
    );
    assert!(violations.is_empty(), "seed {seed}: {violations:#?}");
    assert!(completed > 0, "no sweep of ours ever completed");
    let runs_seen: Vec<String> = all_runs
        .iter()
        .map(|r| {
            format!(
                "{}: {}",
                r.metadata.name.as_deref().unwrap_or("?"),
                r.data["status"]
            )
        })
        .collect();
    let operator_log = {
        let pods: Api<Pod> = Api::namespaced(bed.client.clone(), "etcd-operator-system");
        let mut text = String::new();
        for pod in pods.list(&ListParams::default()).await.unwrap().items {
            let name = pod.metadata.name.unwrap_or_default();
            let log = pods
                .logs(
                    &name,
                    &LogParams {
                        tail_lines: Some(40),
                        ..LogParams::default()
                    },
                )
                .await
                .unwrap_or_default();
            text.push_str(&log);
        }
        text
    };
    assert!(
        operator_runs > 0,
        "the operator's policy never ran to the end:\n{}\noperator log:\n{operator_log}",
        runs_seen.join("\n")
    );
}

//! The CronJob of `deploy/cronjob` where users run it (issue
//! 22): on the test bed's real node, from the image the project's
//! `Containerfile` makes, against an EtcdCluster the real etcd-operator
//! runs, with `--connect direct` from inside the Pod (the kubelet mounts
//! the ServiceAccount token, the cluster DNS resolves the members). The
//! manifest is applied as committed, with only its schedule changed.
//!
//! First `status` and `doctor` run in Pods of the same image with
//! `--connect direct`. Then, from the CronJob (`kubectl create job
//! --from=cronjob/…`, as an SRE starts one by hand), one Job meets a
//! stopped member and fails naming it, and one has its Pod deleted
//! mid-sweep: the kubelet's SIGTERM finishes the member in flight and
//! starts no other. Then the CronJob's own schedule starts a Job that
//! defragments the rest and exits 0. Each member's own log and the Pods'
//! recorded exit codes decide.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::time::Duration;

use futures::{AsyncBufReadExt, StreamExt};
use k8s_openapi::api::batch::v1::{CronJob, Job};
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, DeleteParams, ListParams, LogParams, Patch, PatchParams};
use kubectl_etcd_testbed::cluster::defrags_in_logs;
use nix::sys::signal::{kill, Signal};
use serde_json::{json, Value};
use support::k8s::manifest;
use support::operator::*;
use support::rows;

/// The manifest's namespace, and its cluster's name (`defrag etcd`).
const NS: &str = "etcd";
const CRONJOB: &str = "kubectl-etcd-defrag";

/// The JSON report in a Job Pod's log (stdout and stderr interleaved):
/// from a line `{` to the line `}`.
fn report_in(log: &str) -> Value {
    let lines: Vec<&str> = log.lines().collect();
    let start = lines.iter().position(|l| *l == "{");
    let end = lines.iter().rposition(|l| *l == "}");
    match (start, end) {
        (Some(s), Some(e)) if s < e => serde_json::from_str(&lines[s..=e].join("\n"))
            .unwrap_or_else(|err| panic!("report is not JSON ({err}):\n{log}")),
        _ => panic!("no JSON report in the log:\n{log}"),
    }
}

fn outcomes(report: &Value) -> Vec<String> {
    rows(report)
        .iter()
        .map(|r| r["outcome"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// Waits until Job `name` exists and has succeeded or failed (here in
/// 9-18 s; the limits below are far above that, a safety net for a
/// loaded CI machine, never a timing assertion). Past `limit` it fails with what the API server holds of the Job and its
/// Pods (their phase, container state and log), so a CI run that ends
/// here says where the time went.
#[allow(clippy::disallowed_macros)] // the test's own record, on its output
async fn finished_job(jobs: &Api<Job>, pods: &Api<Pod>, name: &str, limit: Duration) -> Job {
    let started = tokio::time::Instant::now();
    let deadline = started + limit;
    loop {
        if let Ok(Some(job)) = jobs.get_opt(name).await {
            let status = job.status.clone().unwrap_or_default();
            if status.succeeded.unwrap_or(0) > 0 || status.failed.unwrap_or(0) > 0 {
                println!(
                    "Job {name} finished after {:.1}s",
                    started.elapsed().as_secs_f64()
                );
                return job;
            }
        }
        if tokio::time::Instant::now() >= deadline {
            panic!(
                "Job {name} did not finish in {}s\n{}",
                limit.as_secs(),
                job_story(jobs, pods, name).await
            );
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// What the API server holds of Job `name` and its Pods, for a failure.
async fn job_story(jobs: &Api<Job>, pods: &Api<Pod>, name: &str) -> String {
    let mut story = match jobs.get_opt(name).await {
        Ok(Some(job)) => format!(
            "Job status: {}\n",
            serde_json::to_string(&job.status).unwrap_or_default()
        ),
        other => format!("Job: {other:?}\n"),
    };
    let listed = pods
        .list(&ListParams::default().labels(&format!("batch.kubernetes.io/job-name={name}")))
        .await;
    for pod in listed.map(|l| l.items).unwrap_or_default() {
        let pod_name = pod.metadata.name.clone().unwrap_or_default();
        let status = pod.status.as_ref();
        story.push_str(&format!(
            "Pod {pod_name}: phase {:?}, started {:?}, containers {}\n",
            status.and_then(|s| s.phase.clone()),
            status.and_then(|s| s.start_time.clone()),
            serde_json::to_string(&status.and_then(|s| s.container_statuses.clone()))
                .unwrap_or_default()
        ));
        match pods.logs(&pod_name, &LogParams::default()).await {
            Ok(log) => story.push_str(&format!("log of {pod_name}:\n{log}\n")),
            Err(e) => story.push_str(&format!("no log of {pod_name}: {e}\n")),
        }
    }
    story
}

/// The one Pod of Job `job`.
async fn pod_of(pods: &Api<Pod>, job: &str) -> Pod {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let list = pods
            .list(&ListParams::default().labels(&format!("batch.kubernetes.io/job-name={job}")))
            .await
            .unwrap();
        if let Some(p) = list.items.into_iter().next() {
            return p;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no Pod for Job {job}"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

/// The exit code the kubelet recorded for the Pod's container, once it
/// has ended.
async fn exit_code(pods: &Api<Pod>, name: &str) -> i32 {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    loop {
        let pod = pods.get(name).await.unwrap();
        let terminated = pod
            .status
            .and_then(|s| s.container_statuses)
            .and_then(|c| c.into_iter().next())
            .and_then(|c| c.state)
            .and_then(|s| s.terminated);
        if let Some(t) = terminated {
            return t.exit_code;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "Pod {name} did not end"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

/// `kubectl create job NAME --from=cronjob/kubectl-etcd-defrag`.
async fn start_job(bed: &Bed, name: &str) {
    bed.kubectl(&[
        "create",
        "job",
        name,
        &format!("--from=cronjob/{CRONJOB}"),
        "-n",
        NS,
    ])
    .await
    .expect_code(0);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_cronjob_defragments_on_schedule_fails_on_a_stopped_member_and_stops_on_sigterm() {
    let mut bed = Bed::start(NS).await;
    let image = support::tool_image(&mut bed.node);
    bed.create_cluster("etcd", 3, "4Gi", Value::Null).await;
    bed.wait_ready("etcd", 3).await;
    let members = bed.members("etcd").await;
    // More reclaimable than the default rule's 200Mi, and enough kept
    // that one member's defragmentation lasts seconds (etcd copies what is
    // in use, 6-13 s per GB here): longer than the kubelet takes to act on
    // a deleted Pod (up to 2 s seen).
    let etcd = bed.plain_client("etcd").await;
    fragment(etcd, 224 << 20, 512 << 20).await;

    // The committed manifests, with a schedule that waits for the end.
    let mut docs = Vec::new();
    for mut doc in manifest("deploy/cronjob") {
        if doc["kind"] == "CronJob" {
            let containers = &doc["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"];
            assert_eq!(
                containers[0]["image"],
                image.as_str(),
                "the image the manifest runs"
            );
            doc["spec"]["schedule"] = json!("0 0 1 1 *");
        }
        docs.push(doc);
    }
    bed.apply(docs).await;

    let jobs: Api<Job> = Api::namespaced(bed.client.clone(), NS);
    let pods: Api<Pod> = Api::namespaced(bed.client.clone(), NS);

    // 0. The read-only commands with `--connect direct` from a Pod of the
    // same image and ServiceAccount: every member answers at its Pod's
    // address, and doctor finds nothing failing.
    for (name, args) in [
        (
            "status-direct",
            ["status", "etcd", "--connect=direct", "-o", "json"],
        ),
        (
            "doctor-direct",
            ["doctor", "etcd", "--connect=direct", "-o", "json"],
        ),
    ] {
        let pod: Pod = serde_json::from_value(json!({
            "metadata": {"name": name},
            "spec": {
                "serviceAccountName": "kubectl-etcd",
                "restartPolicy": "Never",
                "securityContext": {"runAsNonRoot": true, "runAsUser": 65532},
                "containers": [{"name": "tool", "image": image, "args": args}],
            },
        }))
        .unwrap();
        pods.create(&Default::default(), &pod).await.unwrap();
        let code = exit_code(&pods, name).await;
        let log = pods.logs(name, &LogParams::default()).await.unwrap();
        assert_eq!(code, 0, "{name}:\n{log}");
        let doc = report_in(&log);
        if name == "status-direct" {
            let rows = rows(&doc);
            assert_eq!(rows.len(), 3, "{doc}");
            let ips = bed.pod_ips(&members).await;
            for row in &rows {
                assert_eq!(row["reachable"], true, "{doc}");
                let at = members
                    .iter()
                    .position(|m| row["name"] == m.as_str())
                    .unwrap_or_else(|| panic!("not a member: {row}"));
                assert_eq!(
                    row["endpoint"],
                    format!("http://{}:2379", ips[at]),
                    "reached at its Pod's address"
                );
            }
        } else {
            assert!(!log.contains("\"fail\""), "doctor:\n{log}");
        }
    }

    // 1. A member stopped (its etcd process frozen): the gate refuses, the
    // Job fails, the last line of its log names the member, and nothing
    // was defragmented.
    let stopped = &members[0];
    let pid = bed.member_pid(stopped).await;
    kill(pid, Signal::SIGSTOP).unwrap();
    start_job(&bed, "with-a-member-stopped").await;
    let job = finished_job(
        &jobs,
        &pods,
        "with-a-member-stopped",
        Duration::from_secs(600),
    )
    .await;
    let pod = pod_of(&pods, "with-a-member-stopped").await;
    let pod_name = pod.metadata.name.clone().unwrap();
    let log = pods.logs(&pod_name, &LogParams::default()).await.unwrap();
    kill(pid, Signal::SIGCONT).unwrap();
    assert_eq!(
        job.status.as_ref().unwrap().failed,
        Some(1),
        "the Job did not fail:\n{log}"
    );
    assert_eq!(exit_code(&pods, &pod_name).await, 1, "{log}");
    let last = log.lines().rev().find(|l| !l.trim().is_empty()).unwrap();
    assert!(
        last.contains(stopped.as_str()),
        "the last line names {stopped}: {last:?}\n{log}"
    );
    assert_eq!(
        defrags_in_logs(&bed.logs(&members).await),
        [],
        "a member was defragmented while one was stopped"
    );
    bed.wait_ready("etcd", 3).await;

    // 2. The Pod deleted once the first member is being defragmented: the
    // kubelet sends SIGTERM; the member in flight is finished, no other is
    // started, the partial report is logged and the exit code is 143. The
    // Job controller does not count a deleted Pod as failed: it starts a
    // replacement, only once the first has ended, which finishes the
    // sweep.
    let mark = bed.defrag_mark(&members).await;
    start_job(&bed, "deleted-mid-sweep").await;
    let cronjobs: Api<CronJob> = Api::namespaced(bed.client.clone(), NS);
    let pod = pod_of(&pods, "deleted-mid-sweep").await;
    let pod_name = pod.metadata.name.clone().unwrap();
    // Keep the Pod object (and its recorded exit code) after it ends.
    pods.patch(
        &pod_name,
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"finalizers": ["testbed.kubectl-etcd.io/keep"]}})),
    )
    .await
    .unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    let stream = loop {
        match pods
            .log_stream(
                &pod_name,
                &LogParams {
                    follow: true,
                    ..LogParams::default()
                },
            )
            .await
        {
            Ok(s) => break s,
            Err(e) => {
                assert!(
                    tokio::time::Instant::now() < deadline,
                    "no log of {pod_name}: {e}"
                );
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    };
    // The whole log, read until the container ends.
    let reader = tokio::spawn(async move {
        let mut lines = stream.lines();
        let mut log = String::new();
        while let Some(Ok(line)) = lines.next().await {
            log.push_str(&line);
            log.push('\n');
        }
        log
    });
    // A member's own log says when its defragmentation starts.
    bed.wait_for_a_defrag(&members, &mark).await;
    let deleted_at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    pods.delete(&pod_name, &DeleteParams::default())
        .await
        .unwrap();
    let log = tokio::time::timeout(Duration::from_secs(400), reader)
        .await
        .expect("the Pod did not end")
        .unwrap();
    let code = exit_code(&pods, &pod_name).await;
    let ended = pods.get(&pod_name).await.ok().and_then(|p| {
        p.status?
            .container_statuses?
            .into_iter()
            .next()?
            .state?
            .terminated?
            .finished_at
    });
    pods.patch(
        &pod_name,
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"finalizers": null}})),
    )
    .await
    .unwrap();
    let after = defrags_in_logs(&bed.logs(&members).await);
    // When the kubelet stopped the container, from its own log.
    let killed_at = bed.kubelet_stopped(&pod_name, deleted_at);
    assert_eq!(code, 143, "{log}");
    let report = report_in(&log);
    assert_eq!(report["stopReason"], "Interrupted", "{report}");
    // Every member etcd saw defragmented had started before the SIGTERM
    // (a few ms of delivery aside), the report says exactly those, and the
    // rest were never started.
    for d in &after {
        assert!(
            d.start < killed_at + 0.2,
            "{} started {:.3}s after the SIGTERM",
            members[d.member],
            d.start - killed_at
        );
    }
    let interrupted = outcomes(&report);
    let defragmented = interrupted.iter().filter(|o| *o == "Defragmented").count();
    assert_eq!(defragmented, after.len(), "{report}");
    assert!(
        (1..3).contains(&defragmented),
        "SIGTERM (deleted at {deleted_at:.3}, stopped at {killed_at:.3}) came mid-sweep: \
         {after:?}\n{report}"
    );
    assert_eq!(
        interrupted.iter().filter(|o| *o == "Pending").count(),
        3 - defragmented,
        "{report}"
    );
    let done: Vec<String> = after.iter().map(|d| members[d.member].clone()).collect();
    // The replacement: created after the first Pod ended, it defragments
    // the members the first did not reach and skips the others.
    let job = finished_job(&jobs, &pods, "deleted-mid-sweep", Duration::from_secs(600)).await;
    let replacement = pods
        .list(&ListParams::default().labels("batch.kubernetes.io/job-name=deleted-mid-sweep"))
        .await
        .unwrap()
        .items
        .into_iter()
        .find(|p| p.metadata.name.as_deref() != Some(pod_name.as_str()))
        .expect("the Job's replacement Pod");
    let created = replacement.metadata.creation_timestamp.clone().unwrap();
    let ended = ended.expect("the first Pod's end");
    assert!(
        created.0 >= ended.0,
        "the replacement was created at {created:?}, before the first Pod ended at {ended:?}"
    );
    let log = pods
        .logs(
            replacement.metadata.name.as_deref().unwrap(),
            &LogParams::default(),
        )
        .await
        .unwrap();
    assert_eq!(job.status.as_ref().unwrap().succeeded, Some(1), "{log}");
    let report = report_in(&log);
    for row in rows(&report) {
        let want = if done.iter().any(|m| row["name"] == m.as_str()) {
            "Skipped"
        } else {
            "Defragmented"
        };
        assert_eq!(row["outcome"], want, "{report}");
    }
    one_each_never_together(&members, &bed.logs(&members).await);
    bed.wait_ready("etcd", 3).await;

    // 3. On schedule, every minute, after a client fragmented the cluster
    // again: the CronJob controller starts a Job; its Pod defragments
    // every member and exits 0 with the JSON report in its log.
    fragment(bed.plain_client("etcd").await, 224 << 20, 0).await;
    cronjobs
        .patch(
            CRONJOB,
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"schedule": "* * * * *"}})),
        )
        .await
        .unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(100);
    let scheduled = loop {
        let list = jobs.list(&ListParams::default()).await.unwrap();
        // Owned by the CronJob and not started by hand (`kubectl create
        // job --from` sets the owner too, and this annotation).
        let owned = list.items.into_iter().find(|j| {
            let manual = j
                .metadata
                .annotations
                .as_ref()
                .and_then(|a| a.get("cronjob.kubernetes.io/instantiate"))
                .is_some_and(|v| v == "manual");
            !manual
                && j.metadata
                    .owner_references
                    .iter()
                    .flatten()
                    .any(|o| o.kind == "CronJob" && o.name == CRONJOB)
        });
        if let Some(job) = owned {
            break job.metadata.name.unwrap();
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the CronJob started no Job"
        );
        tokio::time::sleep(Duration::from_secs(1)).await;
    };
    cronjobs
        .patch(
            CRONJOB,
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"schedule": "0 0 1 1 *"}})),
        )
        .await
        .unwrap();
    let job = finished_job(&jobs, &pods, &scheduled, Duration::from_secs(600)).await;
    let pod = pod_of(&pods, &scheduled).await;
    let pod_name = pod.metadata.name.clone().unwrap();
    let log = pods.logs(&pod_name, &LogParams::default()).await.unwrap();
    assert_eq!(
        job.status.as_ref().unwrap().succeeded,
        Some(1),
        "the scheduled Job failed:\n{log}"
    );
    assert_eq!(exit_code(&pods, &pod_name).await, 0, "{log}");
    let report = report_in(&log);
    assert_eq!(outcomes(&report), ["Defragmented"; 3], "{report}");
    // Over the test: each member twice (the interrupted sweep and its
    // replacement, then the scheduled run), never two at once.
    let defrags = defrags_in_logs(&bed.logs(&members).await);
    assert_eq!(defrags.len(), 6, "{defrags:?}");
    never_together(&defrags);
}

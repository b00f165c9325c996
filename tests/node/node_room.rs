//! Room on the disk to defragment, on the real node: an EtcdCluster the
//! real operator made with its data in memory (`spec.storage.medium:
//! Memory`: a tmpfs emptyDir of `spec.storage.size` per member, a
//! size-limited filesystem), one member's volume filled (snapshot files
//! written beside its data) until the free space the real kubelet measures
//! is short of what a defrag needs. `doctor` says so with the kubelet's
//! figures, `defrag` (through real kubectl) and `--watch` hold that member
//! back, and the members with room are defragmented as before: judged
//! from every member's own log and the run read back from the API server.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::collections::BTreeMap;
use std::time::Duration;

use kubectl_etcd_testbed::cluster::defrags_in_logs;
use serde_json::{json, Value};

use support::operator::{fragment, Bed, Operator};
use support::row;
use support::watch::{create_run, events, spawn_watcher, wait_phase};

const NS: &str = "room";
const CLUSTER: &str = "room";
const MI: u64 = 1 << 20;

/// What the kubelet's Summary API says of each member's `data` volume:
/// (availableBytes, when it was measured).
async fn measured(bed: &Bed) -> BTreeMap<String, (u64, String)> {
    let run = bed
        .kubectl(&[
            "get",
            "--raw",
            "/api/v1/nodes/testbed-node/proxy/stats/summary",
        ])
        .await;
    run.expect_code(0);
    let summary: Value = serde_json::from_str(&run.stdout).unwrap();
    let mut out = BTreeMap::new();
    for pod in summary["pods"].as_array().into_iter().flatten() {
        if pod["podRef"]["namespace"] != NS {
            continue;
        }
        for v in pod["volume"].as_array().into_iter().flatten() {
            if v["name"] == "data" {
                out.insert(
                    pod["podRef"]["name"].as_str().unwrap().to_string(),
                    (
                        v["availableBytes"].as_u64().unwrap(),
                        v["time"].as_str().unwrap_or_default().to_string(),
                    ),
                );
            }
        }
    }
    out
}

/// Each member's in-use size, as the member reports it.
async fn in_use(bed: &Bed, members: &[String]) -> Vec<u64> {
    let mut out = Vec::new();
    for ip in bed.pod_ips(members).await {
        let mut etcd = etcd_client::Client::connect([format!("http://{ip}:2379")], None)
            .await
            .unwrap();
        let status = etcd
            .status()
            .await
            .unwrap_or_else(|e| panic!("status of {ip}: {e}"));
        out.push(status.raft_used_db_size() as u64);
    }
    out
}

fn count_per_member(logs: &[String]) -> Vec<usize> {
    let mut out = vec![0; logs.len()];
    for d in defrags_in_logs(logs) {
        out[d.member] += 1;
    }
    out
}

// The measured room is printed (with --nocapture) for the closing note.
#[allow(clippy::disallowed_macros)]
#[tokio::test(flavor = "multi_thread")]
async fn a_member_whose_volume_lacks_room_is_held_back_by_the_sweep_and_the_watch() {
    // The operator without its own EtcdDefrag controller: `--watch` is the
    // one processing the runs.
    let bed = Bed::start_with(NS, Operator::Inert).await;
    bed.create_cluster_spec(
        CLUSTER,
        json!({"replicas": 3, "version": support::operator::VERSION,
               "storage": {"medium": "Memory", "size": "512Mi"}}),
    )
    .await;
    bed.wait_ready(CLUSTER, 3).await;
    let members = bed.members(CLUSTER).await;
    // About 60 MB that stays and 20 MB deleted: a defrag needs about
    // 57 MiB + a 64 MiB WAL segment free.
    fragment(bed.plain_client(CLUSTER).await, 20 << 20, 60 << 20).await;
    // Two snapshots of its data written into the first member's volume
    // fill it (the image has etcdctl, and nothing to delete them with).
    let short = &members[0];
    for i in 0..2 {
        bed.kubectl(&[
            "exec",
            "-n",
            NS,
            short,
            "-c",
            "etcd",
            "--",
            "etcdctl",
            "--endpoints=http://127.0.0.1:2379",
            "snapshot",
            "save",
            &format!("/var/lib/etcd/filler-{i}.db"),
        ])
        .await
        .expect_code(0);
    }
    let used = in_use(&bed, &members).await;
    let needed: Vec<u64> = used.iter().map(|u| u + 64 * MI).collect();
    // The kubelet measures a Pod's volumes about once a minute: wait for a
    // figure taken after the fillers.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(240);
    let room = loop {
        let room = measured(&bed).await;
        let filled = room.get(short).is_some_and(|(free, _)| *free < needed[0]);
        if filled && room.len() == members.len() {
            break room;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the kubelet never measured {short}'s volume short of {} MiB: {room:?}",
            needed[0] / MI
        );
        tokio::time::sleep(Duration::from_secs(5)).await;
    };
    for (i, m) in members.iter().enumerate().skip(1) {
        assert!(
            room[m].0 >= needed[i],
            "calibration: {m} has {} MiB free, needs {} MiB: {room:?}",
            room[m].0 / MI,
            needed[i] / MI
        );
    }
    println!(
        "room (free MiB, needed MiB): {:?}",
        members
            .iter()
            .enumerate()
            .map(|(i, m)| (room[m].0 / MI, needed[i] / MI))
            .collect::<Vec<_>>()
    );

    // doctor: critical for the short member only, with the kubelet's
    // figure; the others fit.
    let run = bed
        .etcd(&["doctor", CLUSTER, "-o", "json", "--fail-on", "never"])
        .await;
    run.expect_code(0);
    let doc = run.json();
    let space: Vec<&Value> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["check"] == "defrag-space")
        .collect();
    assert_eq!(space.len(), 1, "{doc}");
    assert_eq!(
        (space[0]["severity"].as_str(), space[0]["member"].as_str()),
        (Some("critical"), Some(short.as_str())),
        "{doc}"
    );
    let said = space[0]["message"].as_str().unwrap().to_string();
    assert!(
        said.contains("(the kubelet's statistics of volume data on node testbed-node, measured ")
            && said.contains("free of 512 MiB"),
        "{said}"
    );
    assert_eq!(doc["unread"], json!([]), "{doc}");

    // defrag through real kubectl: the short member held back with the
    // same numbers, the others defragmented; exit 1 naming it.
    let run = bed
        .etcd(&["defrag", CLUSTER, "--all", "-y", "-o", "json"])
        .await;
    run.expect_code(1);
    let report = run.json();
    let held = row(&report, short);
    assert_eq!(
        (held["outcome"].as_str(), held["reason"].as_str()),
        (Some("Skipped"), Some("NoDiskRoom")),
        "{report}"
    );
    let detail = held["detail"].as_str().unwrap();
    assert!(detail.contains("held back"), "{detail}");
    assert_eq!(
        said.split(", so a defrag").next(),
        detail.split("; held back").next(),
        "doctor and the sweep disagree"
    );
    for m in &members[1..] {
        assert_eq!(row(&report, m)["outcome"], "Defragmented", "{report}");
    }
    assert!(
        run.stderr.contains(&format!(
            "{short} held back: its data volume lacks the free space a defrag needs"
        )),
        "{}",
        run.stderr
    );
    let logs = bed.logs(&members).await;
    assert_eq!(
        count_per_member(&logs),
        vec![0, 1, 1],
        "the members' own logs"
    );

    // --watch: the run's row says NoDiskRoom, an event has the numbers,
    // the run completes with the others defragmented once more.
    let mut watcher = spawn_watcher(&bed.kubeconfig, NS, &[]);
    create_run(&bed.client, NS, "short", CLUSTER, json!({"all": true})).await;
    let status = wait_phase(&bed.client, NS, "short", &["Complete", "Failed"]).await;
    watcher.kill().await.unwrap();
    assert_eq!(status["phase"], "Complete", "{status}");
    let rows = status["members"].as_array().unwrap();
    let r0 = rows.iter().find(|r| r["name"] == short.as_str()).unwrap();
    assert_eq!(
        (r0["outcome"].as_str(), r0["reason"].as_str()),
        (Some("Skipped"), Some("NoDiskRoom")),
        "{status}"
    );
    let logs = bed.logs(&members).await;
    assert_eq!(
        count_per_member(&logs),
        vec![0, 2, 2],
        "the members' own logs"
    );
    let events = events(&bed.client, NS, "short").await;
    let (_, why) = events
        .iter()
        .find(|(reason, _)| reason == "DefragHeldBack")
        .unwrap_or_else(|| panic!("no DefragHeldBack event: {events:?}"));
    assert!(
        why.starts_with(&format!("member {short} was not defragmented: "))
            && why.contains("the kubelet's statistics of volume data"),
        "{why}"
    );
}

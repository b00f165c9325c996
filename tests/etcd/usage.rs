//! `usage` and `snapshot usage` against real etcd (3.6; 3.4, the oldest
//! Range and Watch supported; 3.7, the newest).
//!
//! Still prefixes are written once; a writer rewrites one prefix fast while
//! `usage` samples. Judged by the servers: the writes counted are at most
//! the revisions the member advanced meanwhile, the byte total is compared
//! with the member's own `dbSizeInUse` (Status), and a snapshot of the same
//! cluster, read offline, gives the same live ranking record for record.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use etcd_client::{Txn, TxnOp};
use support::*;

/// The still data: prefix, keys, value bytes.
const STILL: [(&str, usize, usize); 4] = [
    ("/registry/configmaps/prod/cm", 600, 2000),
    ("/registry/secrets/prod/s", 300, 1200),
    ("/registry/pods/default/p", 200, 700),
    ("/app/settings/k", 50, 100),
];

/// The rewritten prefix.
const HOT: &str = "/registry/leases/kube-node-lease/node-";

async fn write_still(cluster: &Cluster) {
    let mut c = cluster.client(0).await.unwrap();
    for (prefix, keys, bytes) in STILL {
        let value = vec![b'v'; bytes];
        for chunk in (0..keys).collect::<Vec<_>>().chunks(100) {
            let ops: Vec<TxnOp> = chunk
                .iter()
                .map(|i| TxnOp::put(format!("{prefix}{i:04}"), value.clone(), None))
                .collect();
            c.txn(Txn::new().and_then(ops)).await.unwrap();
        }
    }
}

/// Rewrites 5 keys under `HOT` until `stop` is set.
async fn rewrite_hot(cluster: &Cluster, stop: Arc<AtomicBool>) -> tokio::task::JoinHandle<u64> {
    let mut c = cluster.client(0).await.unwrap();
    tokio::spawn(async move {
        let mut n = 0u64;
        while !stop.load(Ordering::Relaxed) {
            c.put(format!("{HOT}{}", n % 5), vec![b'h'; 300], None)
                .await
                .unwrap();
            n += 1;
        }
        n
    })
}

async fn revision(cluster: &Cluster, i: usize) -> i64 {
    let mut c = cluster.client(i).await.unwrap();
    c.status().await.unwrap().header().unwrap().revision()
}

/// Member `name`'s own in-use size once it has settled: a member computes
/// it when it commits its backend (every 100 ms while it applies), so right
/// after a burst of writes a follower may still show the size from before.
async fn in_use(cluster: &Cluster, name: &str) -> u64 {
    let i = cluster.members.iter().position(|m| m.name == name).unwrap();
    let mut c = cluster.client(i).await.unwrap();
    let mut last = 0;
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let now = c.status().await.unwrap().raft_used_db_size() as u64;
        if now == last {
            return now;
        }
        last = now;
    }
    panic!("{name}'s in-use size did not settle: {last}")
}

fn usage(cluster: &Cluster, extra: &[&str]) -> Vec<String> {
    let mut a = one_seed(cluster);
    a.extend(args(&["usage", "-o", "json"]));
    a.extend(args(extra));
    a
}

fn group<'a>(doc: &'a serde_json::Value, prefix: &str) -> &'a serde_json::Value {
    doc["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["prefix"] == prefix)
        .unwrap_or_else(|| panic!("no group {prefix}: {doc}"))
}

#[tokio::test(flavor = "multi_thread")]
async fn usage_ranks_space_and_churn_and_a_snapshot_agrees_v3_6() {
    ranks_space_and_churn(EtcdVersion::V3_6).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn usage_ranks_space_and_churn_and_a_snapshot_agrees_v3_7() {
    ranks_space_and_churn(EtcdVersion::V3_7).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn usage_ranks_space_and_churn_and_a_snapshot_agrees_v3_4() {
    ranks_space_and_churn(EtcdVersion::V3_4).await;
}

async fn ranks_space_and_churn(version: EtcdVersion) {
    let cluster = start(ClusterSpec::new(3, Security::MutualTls).version(version)).await;
    write_still(&cluster).await;

    // No history yet: the live records are what the member holds in use,
    // less bbolt's page overhead.
    let run = tool(&usage(&cluster, &["--window", "0"]), &[]).await;
    run.expect_code(0);
    let doc = run.json();
    assert_eq!(doc["role"], "follower", "a follower is read: {doc}");
    assert_eq!(doc["complete"], true);
    let still_keys: u64 = STILL.iter().map(|(_, k, _)| *k as u64).sum();
    assert_eq!(doc["keys"], still_keys, "{doc}");
    let source = doc["source"].as_str().unwrap().to_string();
    let members_in_use = in_use(&cluster, &source).await;
    let bytes = doc["bytes"].as_u64().unwrap();
    let pages = doc["pageBytes"].as_u64().unwrap();
    let share = pages as f64 / members_in_use as f64;
    assert!(
        (0.90..=1.0).contains(&share),
        "the pages the live records fill ({pages} B; records {bytes} B) should be 90-100% of {source}'s in-use size ({members_in_use} B): {share:.3}"
    );
    let order: Vec<String> = usage_groups(&doc).into_iter().map(|r| r.0).collect();
    assert_eq!(
        order,
        [
            "/registry/configmaps/",
            "/registry/secrets/",
            "/registry/pods/",
            "/app/"
        ],
        "{doc}"
    );
    // Each record: 17-byte revision key, the key and value, and the four
    // revision fields (one or two bytes each at these revisions).
    let cm = group(&doc, "/registry/configmaps/");
    assert_eq!(cm["keys"], 600);
    let per_key = cm["bytes"].as_u64().unwrap() / 600;
    assert!((2040..=2060).contains(&per_key), "{cm}");

    // A writer rewrites the hot prefix while usage samples.
    let stop = Arc::new(AtomicBool::new(false));
    let writer = rewrite_hot(&cluster, stop.clone()).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let i = cluster
        .members
        .iter()
        .position(|m| m.name == source)
        .unwrap();
    let before = revision(&cluster, i).await;
    let run = tool(&usage(&cluster, &["--window", "3s"]), &[]).await;
    let after = revision(&cluster, i).await;
    stop.store(true, Ordering::Relaxed);
    let written = writer.await.unwrap();
    run.expect_code(0);
    let doc = run.json();
    let writes = doc["writes"].as_u64().unwrap();
    assert!(
        writes > 0 && writes as i64 <= after - before,
        "{writes} writes counted; {source} advanced {} revisions meanwhile (the writer wrote {written})",
        after - before
    );
    let hot = group(&doc, "/registry/leases/");
    assert_eq!(
        hot["churn"]["puts"], writes,
        "every write is the hot prefix's: {doc}"
    );
    assert_eq!(hot["churn"]["keysWritten"], 5, "{hot}");
    assert!(
        hot["churn"]["hottestKey"]
            .as_str()
            .unwrap()
            .starts_with(HOT),
        "{hot}"
    );
    for prefix in [
        "/registry/configmaps/",
        "/registry/secrets/",
        "/registry/pods/",
        "/app/",
    ] {
        assert_eq!(
            group(&doc, prefix)["churn"]["puts"],
            0,
            "{prefix} is still: {doc}"
        );
    }

    // The writer stopped: a snapshot of the same member gives the same live
    // ranking, record for record, and the history of the rewrites.
    let live = tool(
        &usage(&cluster, &["--window", "0", "--member", &source]),
        &[],
    )
    .await;
    live.expect_code(0);
    let live = live.json();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.db");
    let mut save = one_seed(&cluster);
    save.extend(args(&["snapshot", "save", "--member", &source]));
    save.push(file.display().to_string());
    tool(&save, &[]).await.expect_code(0);
    let offline = tool(
        &[
            args(&["snapshot", "usage", "-o", "json"]),
            vec![file.display().to_string()],
        ]
        .concat(),
        &[],
    )
    .await;
    offline.expect_code(0);
    let offline = offline.json();
    assert_eq!(offline["revision"], live["revision"], "{offline}\n{live}");
    assert_eq!(
        usage_groups(&offline),
        usage_groups(&live),
        "{offline}\n{live}"
    );
    let hot = group(&offline, "/registry/leases/");
    assert_eq!(hot["keys"], 5);
    assert!(
        hot["historyRevisions"].as_u64().unwrap() + 5 >= written,
        "every rewrite but the newest of each key is history: {hot}, {written} written"
    );
    assert_eq!(
        group(&offline, "/registry/configmaps/")["historyRevisions"],
        0
    );
    // The live records' pages and the history's records against the pages
    // the file's trees reach (bbolt's own count).
    let kept = offline["pageBytes"].as_u64().unwrap() + offline["historyBytes"].as_u64().unwrap();
    let pages = offline["dbSizeInUse"].as_u64().unwrap();
    let share = kept as f64 / pages as f64;
    assert!(
        (0.90..=1.0).contains(&share),
        "live pages and history records {kept} B against {pages} B of pages in use ({share:.3}): {offline}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn usage_narrows_by_prefix_and_depth_and_counts_keys_only() {
    let cluster = start(ClusterSpec::new(1, Security::Plain)).await;
    write_still(&cluster).await;
    let run = tool(
        &usage(&cluster, &["--window", "0", "--prefix", "/registry/"]),
        &[],
    )
    .await;
    run.expect_code(0);
    let doc = run.json();
    assert_eq!(doc["keys"], 1100, "only keys under the prefix: {doc}");
    assert_eq!(
        doc["role"], "leader",
        "a one-member cluster is read from its leader"
    );
    let run = tool(&usage(&cluster, &["--window", "0", "--depth", "3"]), &[]).await;
    let doc = run.json();
    assert_eq!(
        group(&doc, "/registry/configmaps/prod/")["keys"],
        600,
        "{doc}"
    );
    assert_eq!(group(&doc, "/app/settings/k0000")["keys"], 1, "{doc}");
    let run = tool(&usage(&cluster, &["--window", "0", "--keys-only"]), &[]).await;
    run.expect_code(0);
    let doc = run.json();
    assert_eq!(doc["keys"], 1150);
    assert!(doc.get("bytes").is_none(), "no bytes without values: {doc}");
    assert_eq!(group(&doc, "/registry/secrets/")["keys"], 300);

    // On a terminal, a spinner says what is being read, then goes.
    let mut a = one_seed(&cluster);
    a.extend(args(&["usage", "--window", "1s"]));
    let (code, screen) = tool_on_terminal(&a, &[], &[]).await;
    assert_eq!(code, 0, "{screen}");
    assert!(
        screen.contains("reading the keys from m0, counting its writes for 1s"),
        "{screen}"
    );
    assert!(screen.contains("BY SIZE"), "{screen}");
    // Without one (a CronJob's log, a pipe), the wait is said once on
    // stderr before it starts (issue 46: ten silent seconds).
    let mut a = one_seed(&cluster);
    a.extend(args(&["usage", "--window", "1s", "-o", "json"]));
    let run = tool(&a, &[]).await;
    run.expect_code(0);
    assert_eq!(
        run.stderr.trim_end(),
        "kubectl-etcd: reading the keys from m0, counting its writes for 1s (--window 0s: no sample)"
    );

    // The table names the next step, and it runs as printed.
    let mut a = one_seed(&cluster);
    a.extend(args(&["usage", "--window", "0"]));
    let run = tool(&a, &[]).await;
    run.expect_code(0);
    let next = run
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("Narrow it down: kubectl etcd usage"))
        .unwrap_or_else(|| panic!("{}", run.stdout))
        .to_string();
    assert_eq!(next, " --prefix /registry/configmaps/", "{}", run.stdout);
    let mut a = one_seed(&cluster);
    a.extend(args(&["usage", "--window", "0", "-o", "json"]));
    a.extend(next.split_whitespace().map(str::to_string));
    let doc = tool(&a, &[]).await.json();
    assert_eq!(
        usage_groups(&doc),
        [(
            "/registry/configmaps/prod/".to_string(),
            600,
            usage_groups(&doc)[0].2
        )]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn usage_refuses_bad_input_and_stops_on_sigterm() {
    let cluster = start(ClusterSpec::new(3, Security::Plain)).await;
    let run = tool(&usage(&cluster, &["--member", "nosuch"]), &[]).await;
    run.expect_code(2);
    assert!(run.stderr.contains("nosuch"), "{}", run.stderr);
    let run = tool(&usage(&cluster, &["--depth", "0"]), &[]).await;
    run.expect_code(2);
    assert!(run.stderr.contains("--depth"), "{}", run.stderr);
    let run = tool(&args(&["snapshot", "usage", "/nonexistent/s.db"]), &[]).await;
    run.expect_code(2);
    assert!(run.stderr.contains("/nonexistent/s.db"), "{}", run.stderr);

    // SIGTERM during a 60 s sample: the report comes, with the window as
    // far as it went, and the exit code says so.
    let running = spawn_tool(&usage(&cluster, &["--window", "60s", "-v"]));
    tokio::time::sleep(Duration::from_secs(2)).await;
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(running.pid() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    let run = running.finish().await;
    run.expect_code(143);
    let doc = run.json();
    assert!(doc["windowSeconds"].as_f64().unwrap() < 60.0, "{doc}");
}

/// A compaction past the revision being read (the API server compacts
/// every 5 minutes; a large read spans several) moves the rest of the read
/// to the newest revision: no key is lost, and both revisions are named.
#[tokio::test(flavor = "multi_thread")]
async fn a_compaction_during_the_read_moves_it_on() {
    let cluster = start(ClusterSpec::new(1, Security::Plain)).await;
    let mut c = cluster.client(0).await.unwrap();
    let value = vec![b'x'; 1000];
    for chunk in (0..40_000).collect::<Vec<_>>().chunks(100) {
        let ops: Vec<TxnOp> = chunk
            .iter()
            .map(|i| TxnOp::put(format!("/bulk/k{i:05}"), value.clone(), None))
            .collect();
        c.txn(Txn::new().and_then(ops)).await.unwrap();
    }
    // A compactor: a write, then a compaction at its revision, over and over.
    let stop = Arc::new(AtomicBool::new(false));
    let compactor = {
        let stop = stop.clone();
        let mut c = cluster.client(0).await.unwrap();
        tokio::spawn(async move {
            let mut compactions = 0u64;
            while !stop.load(Ordering::Relaxed) {
                let put = c.put("/tick", "t", None).await.unwrap();
                let at = put.header().unwrap().revision();
                c.compact(at, None).await.unwrap();
                compactions += 1;
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            compactions
        })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    let run = tool(&usage(&cluster, &["--window", "0"]), &[]).await;
    stop.store(true, Ordering::Relaxed);
    let compactions = compactor.await.unwrap();
    run.expect_code(0);
    let doc = run.json();
    assert_eq!(doc["keys"], 40_001, "every key, /tick too: {doc}");
    assert_eq!(group(&doc, "/bulk/")["keys"], 40_000);
    assert!(
        doc["lastRevision"].as_i64().unwrap() > doc["revision"].as_i64().unwrap(),
        "{compactions} compactions ran during the read: {doc}"
    );
    assert_eq!(doc["complete"], true);
}

//! Issue 9 regressions against real etcd: a run that loses every endpoint
//! mid-sweep keeps its partial report (exit 1), a second Ctrl-C prints what
//! was done (exit 130), and every exit 1 says why on stderr, whatever the
//! output format.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::time::Duration;

use support::*;

const MB: u64 = 1024 * 1024;

fn defrag_args(cluster: &Cluster, extra: &[&str]) -> Vec<String> {
    let mut a = one_seed(cluster);
    a.extend(args(&["-v", "defrag", "--yes", "-o", "json"]));
    a.extend(args(extra));
    a
}

/// The member named in a "defragmenting <name> (…" progress line.
fn member_in(line: &str) -> String {
    line.split("defragmenting ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap()
        .to_string()
}

fn index_of(cluster: &Cluster, name: &str) -> usize {
    cluster.members.iter().position(|m| m.name == name).unwrap()
}

fn outcome<'a>(doc: &'a serde_json::Value, name: &str) -> &'a str {
    doc["members"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == name)
        .and_then(|m| m["outcome"].as_str())
        .unwrap_or_else(|| panic!("no member {name} in {doc}"))
}

/// Every endpoint stops answering after one member was defragmented: the
/// run ends with that member in the report, a typed stop reason and exit 1
/// (it used to end with exit 2, "nothing was changed", and no report).
///
/// How it gets there for real: while the first member defragments, a
/// CORRUPT alarm is raised, so the next step's gate refuses and
/// `--wait-healthy` waits; then every member is stopped, so the snapshots
/// taken while waiting find no endpoint at all.
#[tokio::test(flavor = "multi_thread")]
async fn issue9_every_endpoint_lost_mid_sweep_keeps_the_partial_report() {
    let cluster = fragmented(ClusterSpec::new(3, Security::Plain), 400 * MB, 0.5).await;
    // Ids first: asking for them once a member is defragmenting would wait
    // for that member, and the alarm would come too late.
    let ids = cluster.member_ids().await.unwrap();
    let mut run = spawn_tool(&defrag_args(
        &cluster,
        &[
            "--all",
            "--move-leader=never",
            "--wait-healthy=6s",
            "--command-timeout=1s",
        ],
    ));
    let line = run
        .wait_for("the first defragmentation", |l| {
            l.contains("defragmenting ")
        })
        .await;
    let first = member_in(&line);
    let other = (0..3).find(|i| cluster.members[*i].name != first).unwrap();
    let mut c = cluster.client(other).await.unwrap();
    let mut options = etcd_client::AlarmOptions::new();
    options.with_member(ids[other]);
    c.alarm(
        etcd_client::AlarmAction::Activate,
        etcd_client::AlarmType::Corrupt,
        Some(options),
    )
    .await
    .unwrap();
    run.wait_for("the refusal while waiting", |l| {
        l.contains("health gate refused") && l.contains("retrying")
    })
    .await;
    for i in 0..3 {
        cluster.pause(i).unwrap();
    }
    let done = run.finish().await;
    for i in 0..3 {
        cluster.resume(i).unwrap();
    }
    assert_eq!(done.code, 1, "{done:?}");
    let doc = done.json();
    assert_eq!(doc["stopReason"], "ClusterUnreachable", "{doc}");
    assert!(
        doc["stopped"]
            .as_str()
            .unwrap()
            .contains("no member answers"),
        "{doc}"
    );
    assert_eq!(outcome(&doc, &first), "Defragmented", "{doc}");
    let pending = doc["members"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["outcome"] == "Pending")
        .count();
    assert_eq!(pending, 2, "{doc}");
    assert!(
        done.stderr.contains("stopped: no member answers"),
        "{}",
        done.stderr
    );
    assert_eq!(cluster.logged_defrags().len(), 1, "one member only");
}

/// Ctrl-C twice while a member is stuck in its defragmentation: the run
/// stops waiting for it, prints what was done (JSON on stdout) and exits
/// 130, instead of leaving with nothing printed.
#[tokio::test(flavor = "multi_thread")]
async fn issue9_second_ctrl_c_prints_what_was_done_and_exits_130() {
    let cluster = fragmented(ClusterSpec::new(3, Security::Plain), 200 * MB, 0.5).await;
    let mut run = spawn_tool(&defrag_args(&cluster, &["--all", "--move-leader=never"]));
    let line = run
        .wait_for("the first defragmentation", |l| {
            l.contains("defragmenting ")
        })
        .await;
    let first = member_in(&line);
    let stuck = index_of(&cluster, &first);
    // Act only once etcd itself has started: a Ctrl-C before the RPC is
    // sent stops the run with nothing in flight, which is not this case.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while !cluster.log(stuck).contains("\"msg\":\"defragmenting\"") {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{first} never started defragmenting: {}",
            cluster.log_tail(stuck, 20)
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    // The member freezes mid-defragmentation: its RPC cannot return.
    cluster.pause(stuck).unwrap();
    run.interrupt();
    run.wait_for("the first interrupt's message", |l| {
        l.contains("interrupted: stopping after")
    })
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    run.interrupt();
    let done = run.finish().await;
    cluster.resume(stuck).unwrap();
    assert_eq!(done.code, 130, "{done:?}");
    let doc = done.json();
    assert_eq!(doc["stopReason"], "Abandoned", "{doc}");
    assert_eq!(outcome(&doc, &first), "Failed", "{doc}");
    let row = doc["members"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == first.as_str())
        .unwrap();
    assert!(
        row["detail"]
            .as_str()
            .unwrap_or("")
            .contains("may still be"),
        "{row}"
    );
    let untouched = doc["members"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["outcome"] == "Pending")
        .count();
    assert_eq!(untouched, 2, "{doc}");
    assert!(
        done.stderr.contains("stopped: interrupted twice"),
        "{}",
        done.stderr
    );
}

/// With `-o json` stdout is the report only; an exit 1 still writes one
/// line on stderr naming the reason, so a CronJob's log says why.
#[tokio::test(flavor = "multi_thread")]
async fn issue9_exit_1_says_why_on_stderr_in_json_mode() {
    let cluster = start(ClusterSpec::new(3, Security::Plain)).await;
    raise_alarm(&cluster, 0, 1, etcd_client::AlarmType::Corrupt).await;
    let base = one_seed(&cluster);
    let with = |rest: &[&str]| {
        let mut a = base.clone();
        a.extend(args(rest));
        a
    };
    for (what, argv, needle) in [
        (
            "defrag",
            with(&["defrag", "--yes", "-o", "json"]),
            "stopped: the health gate refused",
        ),
        (
            "defrag --dry-run",
            with(&["defrag", "--dry-run", "-o", "yaml"]),
            "health gate would refuse",
        ),
        (
            "status --check",
            with(&["status", "--check", "-o", "json"]),
            "health gate refused",
        ),
        (
            "alarm disarm",
            with(&["alarm", "disarm", "--yes", "-o", "json"]),
            "alarm(s) remain",
        ),
    ] {
        let run = tool(&argv, &[]).await;
        assert_eq!(run.code, 1, "{what}: {run:?}");
        assert!(!run.stdout.trim().is_empty(), "{what}: no report");
        let last = run.stderr.lines().last().unwrap_or("");
        assert!(last.contains(needle), "{what}: {}", run.stderr);
        assert!(last.contains("CORRUPT"), "{what}: {}", run.stderr);

        // With --log-format json the same line is an object at WARN (a
        // refusal) or ERROR (a failure), never INFO: alerting on the log
        // sees it (issue 46, item 9).
        let mut json = vec!["--log-format".to_string(), "json".to_string()];
        json.extend(argv.iter().cloned());
        let run = tool(&json, &[]).await;
        assert_eq!(run.code, 1, "{what}: {run:?}");
        let last: serde_json::Value = serde_json::from_str(run.stderr.lines().last().unwrap_or(""))
            .unwrap_or_else(|e| panic!("{what}: {e}: {}", run.stderr));
        let message = last["message"].as_str().unwrap_or("");
        assert!(message.contains(needle), "{what}: {last}");
        assert!(
            last["level"] == "WARN" || last["level"] == "ERROR",
            "{what}: {last}"
        );
    }
}

/// Seconds since the Unix epoch, as etcd's log records carry them.
fn epoch_now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

/// Issue 21, done is done: with `--move-leader always`, a member that was
/// defragmented earlier is frozen (SIGSTOP) while the last member
/// defragments, so the cluster would not pass the gate after it. Every
/// member's log shows its defragmentation, and the run says so: exit 0, no
/// stop reason, and the frozen member named by the check after the sweep
/// (it used to end with exit 1, "stopped: the health gate refused").
#[tokio::test(flavor = "multi_thread")]
async fn issue21_a_sweep_whose_members_are_all_done_exits_0() {
    let spec = ClusterSpec::new(3, Security::Plain).version(EtcdVersion::V3_4);
    let cluster = fragmented(spec, 200 * MB, 0.5).await;
    let mut run = spawn_tool(&defrag_args(
        &cluster,
        &["--all", "--move-leader=always", "--command-timeout=2s"],
    ));
    let mut order = Vec::new();
    for nth in ["first", "second", "third"] {
        let line = run
            .wait_for(&format!("the {nth} defragmentation"), |l| {
                l.contains("defragmenting ")
            })
            .await;
        order.push(member_in(&line));
    }
    // The second member is a follower (leadership went to the first).
    let frozen = index_of(&cluster, &order[1]);
    cluster.pause(frozen).unwrap();
    let done = run.finish().await;
    cluster.resume(frozen).unwrap();

    let logged = cluster.logged_defrags();
    let members: Vec<usize> = logged.iter().map(|d| d.member).collect();
    let expected: Vec<usize> = order.iter().map(|n| index_of(&cluster, n)).collect();
    assert_eq!(members, expected, "{logged:?}");
    for w in logged.windows(2) {
        assert!(w[0].end <= w[1].start, "overlap: {logged:?}");
    }
    assert_eq!(done.code, 0, "{done:?}");
    let doc = done.json();
    assert!(doc["stopReason"].is_null(), "{doc}");
    for name in &order {
        assert_eq!(outcome(&doc, name), "Defragmented", "{doc}");
    }
    let note = doc["hashCheck"]["note"].as_str().unwrap_or_default();
    assert!(
        note.contains(&format!("{} did not answer", order[1])),
        "{doc}"
    );
}

/// Issue 21, one look is one moment: the leader is frozen while the first
/// follower is defragmented; the look after that follower asks every
/// member at once, the two followers answer at once that the frozen member
/// leads, a new leader is elected (and, if need be, leadership moved to
/// the other follower, so the member a stale look would take next is the
/// one that leads), and then the old leader is resumed and answers from
/// what it saw before it froze. Judged by the members' own logs: no member
/// is defragmented while it leads before every other member is done.
#[tokio::test(flavor = "multi_thread")]
async fn issue21_a_look_across_an_election_never_takes_the_leader_for_a_follower() {
    let mut spec = ClusterSpec::new(3, Security::Plain).version(EtcdVersion::V3_4);
    spec.log_level = "info";
    let cluster = start(spec).await;
    let ids = cluster.member_ids().await.unwrap();
    let old = cluster.leader().await.unwrap();
    let mut run = spawn_tool(&defrag_args(
        &cluster,
        &["--all", "--move-leader=never", "--command-timeout=10s"],
    ));
    let line = run
        .wait_for("the first defragmentation", |l| {
            l.contains("defragmenting ")
        })
        .await;
    let first = index_of(&cluster, &member_in(&line));
    let frozen_at = epoch_now();
    cluster.pause(old).unwrap();
    let other = (0..3).find(|i| *i != old && *i != first).unwrap();

    // Wait for the election, then make sure `other` leads.
    let elected = |after: f64| {
        cluster
            .logged_leadership()
            .into_iter()
            .filter(|e| {
                e.event == kubectl_etcd_testbed::LeadershipEvent::BecameLeader && e.at > after
            })
            .map(|e| e.member)
            .next_back()
    };
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    let mut leader = None;
    while leader.is_none() && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
        leader = elected(frozen_at);
    }
    let leader = leader.expect("no election while the leader was frozen");
    if leader == first {
        let moved_at = epoch_now();
        let mut c = cluster.client(first).await.unwrap();
        c.move_leader(ids[other]).await.unwrap();
        while elected(moved_at) != Some(other) && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    cluster.resume(old).unwrap();
    let done = run.finish().await;

    let logged = cluster.logged_defrags();
    assert_eq!(logged.len(), 3, "{logged:?}\n{}", done.stderr);
    for w in logged.windows(2) {
        assert!(w[0].end <= w[1].start, "overlap: {logged:?}");
    }
    // Who led when each defragmentation started, from the logs: the
    // leader before the freeze, then whoever became leader last.
    let changes = cluster.logged_leadership();
    let leading_at = |t: f64| {
        changes
            .iter()
            .filter(|e| e.event == kubectl_etcd_testbed::LeadershipEvent::BecameLeader && e.at <= t)
            .map(|e| e.member)
            .next_back()
            .unwrap_or(old)
    };
    for (n, d) in logged.iter().enumerate().take(logged.len() - 1) {
        assert_ne!(
            d.member,
            leading_at(d.start),
            "defragmentation {n} was of the leader while followers were still to do: {logged:?}; leadership: {changes:?}; stderr:\n{}",
            done.stderr
        );
    }
    assert_eq!(done.code, 0, "{done:?}");
    assert_eq!(logged[0].member, first);
    assert_eq!(logged[2].member, other, "{logged:?}");
}

//! Issue 20, item 7 (rough edges a new user hit), against real etcd 3.6 and
//! 3.4: `move-leader --to` by hex or decimal id and the member list when it
//! names nobody; `member remove` of a member added but never started,
//! pointed to and done by its id; `compact` with nothing to compact; the
//! NOSPACE line under `status`; and member names offered by completion in
//! standalone mode. Each is judged by what etcd says afterwards (its
//! leader, its member list, its compacted revision, a write refused).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::time::Duration;

use support::*;

fn command(cluster: &Cluster, words: &[&str]) -> Vec<String> {
    let mut a = one_seed(cluster);
    a.extend(args(words));
    a
}

/// (hex id, name) of every member, as etcd lists them.
async fn listed(cluster: &Cluster) -> Vec<(String, String)> {
    let mut c = cluster.client(0).await.unwrap();
    c.member_list()
        .await
        .unwrap()
        .members()
        .iter()
        .map(|m| (format!("{:016x}", m.id()), m.name().to_string()))
        .collect()
}

/// The revision etcd says it is compacted up to (0: never).
async fn compacted(cluster: &Cluster) -> i64 {
    let mut c = cluster.client(0).await.unwrap();
    c.hash_kv(0).await.unwrap().compact_version().max(0)
}

/// `move-leader --to` takes the hex id `status` shows and the decimal id
/// etcdctl's JSON prints, as well as the name; a value that names nobody
/// is exit 2 with every member's name and id, and leadership stays.
#[tokio::test(flavor = "multi_thread")]
async fn move_leader_to_an_id_v3_6() {
    move_leader_to_an_id(EtcdVersion::V3_6).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn move_leader_to_an_id_v3_7() {
    move_leader_to_an_id(EtcdVersion::V3_7).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn move_leader_to_an_id_v3_4() {
    move_leader_to_an_id(EtcdVersion::V3_4).await;
}

async fn move_leader_to_an_id(version: EtcdVersion) {
    let cluster = start(ClusterSpec::new(3, Security::Plain).version(version)).await;
    let ids = cluster.member_ids().await.unwrap();
    let leader = cluster.leader().await.unwrap();

    // Nobody by that name or id: the members listed, nothing moved.
    let run = tool(
        &command(&cluster, &["move-leader", "--to", "m9", "--yes"]),
        &[],
    )
    .await;
    run.expect_code(2);
    for (i, m) in cluster.members.iter().enumerate() {
        let shown = format!("{} ({:016x})", m.name, ids[i]);
        assert!(run.stderr.contains(&shown), "{shown} in {}", run.stderr);
    }
    assert!(
        run.stderr.contains("--to m9: no such member (members: "),
        "{}",
        run.stderr
    );
    assert_eq!(cluster.leader().await.unwrap(), leader);

    // By hex id, as `status` shows it.
    let first = (leader + 1) % 3;
    let hex = format!("{:016x}", ids[first]);
    let run = tool(
        &command(
            &cluster,
            &["move-leader", "--to", &hex, "--yes", "-o", "json"],
        ),
        &[],
    )
    .await;
    run.expect_code(0);
    assert_eq!(run.json()["to"], cluster.members[first].name.as_str());
    cluster.wait_ready(Duration::from_secs(20)).await.unwrap();
    assert_eq!(cluster.leader().await.unwrap(), first, "etcd's leader");

    // By decimal id, as `etcdctl member list -w json` prints it.
    let second = (first + 1) % 3;
    let decimal = ids[second].to_string();
    let run = tool(
        &command(&cluster, &["move-leader", "--to", &decimal, "--yes"]),
        &[],
    )
    .await;
    run.expect_code(0);
    cluster.wait_ready(Duration::from_secs(20)).await.unwrap();
    assert_eq!(cluster.leader().await.unwrap(), second, "etcd's leader");

    // To the leader itself: already true, exit 0, nothing moved (issue
    // 46: was exit 2).
    let name = cluster.members[second].name.as_str();
    let run = tool(
        &command(&cluster, &["move-leader", "--to", name, "--yes"]),
        &[],
    )
    .await;
    let run = run.expect_code(0);
    assert_eq!(
        run.stdout,
        format!("{name} leads already; nothing to move.\n")
    );
    let run = tool(
        &command(
            &cluster,
            &["move-leader", "--to", name, "--yes", "-o", "json"],
        ),
        &[],
    )
    .await;
    let doc = run.expect_code(0).json();
    assert_eq!(
        (doc["from"].as_str(), doc["to"].as_str()),
        (Some(name), Some(name))
    );
    assert_eq!(cluster.leader().await.unwrap(), second, "etcd's leader");
}

/// A member added but never started has no name in etcd's member list:
/// `member remove NAME` (the name given to `member add`) says so and
/// prints the command that names it by id; that command, run exactly as
/// printed (on a terminal, answering its question), removes it.
#[tokio::test(flavor = "multi_thread")]
async fn an_unstarted_member_is_removed_by_its_id_v3_6() {
    an_unstarted_member_is_removed_by_its_id(EtcdVersion::V3_6).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unstarted_member_is_removed_by_its_id_v3_7() {
    an_unstarted_member_is_removed_by_its_id(EtcdVersion::V3_7).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unstarted_member_is_removed_by_its_id_v3_4() {
    an_unstarted_member_is_removed_by_its_id(EtcdVersion::V3_4).await;
}

async fn an_unstarted_member_is_removed_by_its_id(version: EtcdVersion) {
    let mut cluster = start(ClusterSpec::new(3, Security::Plain).version(version)).await;
    // etcd refuses membership changes until its members have been
    // connected for 5 s.
    tokio::time::sleep(Duration::from_secs(6)).await;
    let new = cluster.plan_member("m3").unwrap();
    let peer = cluster.members[new].peer_url.clone();
    let env = vec![(
        "ETCDCTL_ENDPOINTS".to_string(),
        cluster.endpoints()[0].clone(),
    )];
    let run = tool(
        &args(&[
            "member",
            "add",
            "m3",
            "--peer-urls",
            &peer,
            "--yes",
            "-o",
            "json",
        ]),
        &env,
    )
    .await;
    run.expect_code(0);
    let id = run.json()["id"].as_str().unwrap().to_string();

    assert!(
        listed(&cluster)
            .await
            .contains(&(id.clone(), String::new())),
        "etcd lists the new member with no name"
    );

    let run = tool(&args(&["member", "remove", "m3", "--yes"]), &env).await;
    run.expect_code(2);
    assert!(
        run.stderr.contains(&format!("{id} (added, never started)")),
        "{}",
        run.stderr
    );
    let advice = format!("kubectl etcd member remove {id})");
    assert!(run.stderr.contains(&advice), "{advice} in {}", run.stderr);
    assert_eq!(listed(&cluster).await.len(), 4, "nothing changed");

    // The advice, word for word after `kubectl etcd`.
    let printed = advice.trim_end_matches(')');
    let words = args(&printed.split_whitespace().skip(2).collect::<Vec<_>>());
    let (code, screen) = tool_on_terminal(&words, &env, &[("?", "y")]).await;
    assert_eq!(code, 0, "{screen}");
    assert!(screen.contains(&format!("Removed voter {id}")), "{screen}");
    let after = listed(&cluster).await;
    assert_eq!(after.len(), 3, "{after:?}");
    assert!(!after.iter().any(|(i, _)| *i == id), "{after:?}");
}

/// `compact` when everything asked for is compacted already: exit 0,
/// "nothing to compact: already compacted at revision N", and etcd's
/// compacted revision unchanged. `--keep 0` says what it keeps: only the
/// current revision (each key's latest value), which etcd still reads.
#[tokio::test(flavor = "multi_thread")]
async fn nothing_to_compact_is_success_v3_6() {
    nothing_to_compact_is_success(EtcdVersion::V3_6).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn nothing_to_compact_is_success_v3_7() {
    nothing_to_compact_is_success(EtcdVersion::V3_7).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn nothing_to_compact_is_success_v3_4() {
    nothing_to_compact_is_success(EtcdVersion::V3_4).await;
}

async fn nothing_to_compact_is_success(version: EtcdVersion) {
    let cluster = start(ClusterSpec::new(3, Security::Plain).version(version)).await;
    let mut c = cluster.client(0).await.unwrap();
    let mut current = 0;
    for i in 0..20 {
        let r = c.put("edge", format!("v{i}"), None).await.unwrap();
        current = r.header().unwrap().revision();
    }
    let readable = |revision: i64| {
        let cluster = &cluster;
        async move {
            let mut c = cluster.client(0).await.unwrap();
            c.get(
                "edge",
                Some(etcd_client::GetOptions::new().with_revision(revision)),
            )
            .await
            .is_ok()
        }
    };

    let run = tool(
        &command(&cluster, &["compact", "--keep", "0", "--yes"]),
        &[],
    )
    .await;
    run.expect_code(0);
    assert!(
        run.stdout.contains(&format!(
            "only revision {current}, the current one, stays: each key's latest value, no history"
        )),
        "{}",
        run.stdout
    );
    assert_eq!(compacted(&cluster).await, current);
    assert!(readable(current).await && !readable(current - 1).await);

    // Again: nothing to compact, and said so.
    for extra in [
        &["--keep", "0"][..],
        &["--keep", "10"],
        &["--revision", "5"],
    ] {
        let mut words = vec!["compact"];
        words.extend_from_slice(extra);
        words.push("--yes");
        let run = tool(&command(&cluster, &words), &[]).await;
        run.expect_code(0);
        assert_eq!(
            run.stdout,
            format!(
                "Nothing to compact: already compacted at revision {current}, the current revision.\n"
            ),
            "{extra:?}"
        );
        assert!(run.stderr.is_empty(), "{extra:?}: {}", run.stderr);
    }
    let run = tool(
        &command(&cluster, &["compact", "--keep", "0", "--yes", "-o", "json"]),
        &[],
    )
    .await;
    run.expect_code(0);
    let doc = run.json();
    assert_eq!(
        doc["nothingToCompact"],
        format!(
            "nothing to compact: already compacted at revision {current}, the current revision"
        ),
        "{doc}"
    );
    assert_eq!(doc["revision"], current, "{doc}");
    assert_eq!(compacted(&cluster).await, current, "nothing was compacted");

    // A revision past the current one is still refused.
    let future = (current + 5).to_string();
    let run = tool(
        &command(&cluster, &["compact", "--revision", &future, "--yes"]),
        &[],
    )
    .await;
    run.expect_code(2);
}

/// NOSPACE raised for real (a small quota, filled): `status` keeps every
/// verdict (the gate tolerates NOSPACE) and says under the table that the
/// cluster refuses writes until the alarm is disarmed; etcd does refuse one.
#[tokio::test(flavor = "multi_thread")]
async fn status_says_writes_are_refused_under_nospace_v3_6() {
    status_says_writes_are_refused_under_nospace(EtcdVersion::V3_6).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn status_says_writes_are_refused_under_nospace_v3_7() {
    status_says_writes_are_refused_under_nospace(EtcdVersion::V3_7).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn status_says_writes_are_refused_under_nospace_v3_4() {
    status_says_writes_are_refused_under_nospace(EtcdVersion::V3_4).await;
}

async fn status_says_writes_are_refused_under_nospace(version: EtcdVersion) {
    let cluster = start(
        ClusterSpec::new(3, Security::Plain)
            .version(version)
            .quota(16 * 1024 * 1024),
    )
    .await;
    let run = tool(&command(&cluster, &["status"]), &[]).await;
    run.expect_code(0);
    assert!(!run.stdout.contains("NOSPACE"), "{}", run.stdout);

    let mut c = cluster.client(0).await.unwrap();
    let value = vec![b'v'; 512 * 1024];
    let mut raised = false;
    for i in 0..200 {
        if let Err(e) = c.put(format!("big/{i:04}"), value.clone(), None).await {
            assert!(e.to_string().contains("database space exceeded"), "{e}");
            raised = true;
            break;
        }
    }
    assert!(raised, "NOSPACE was never raised");

    let run = tool(&command(&cluster, &["status"]), &[]).await;
    run.expect_code(0);
    assert!(
        run.stdout.contains("NOSPACE is raised (on m")
            && run.stdout.contains(
                "the cluster refuses writes (puts) until the alarm is disarmed; run `kubectl etcd doctor` for the remedy"
            ),
        "{}",
        run.stdout
    );
    let run = tool(&command(&cluster, &["status", "-o", "json"]), &[]).await;
    run.expect_code(0);
    let doc = run.json();
    for m in rows(&doc) {
        assert_eq!(m["verdict"], "healthy", "{doc}");
    }
    assert!(
        c.put("after", "x", None).await.is_err(),
        "etcd refuses the write, as the line says"
    );
}

/// Completion in standalone mode offers the members' names after
/// `--member` and `--to`, read from etcd's MemberList with the flags typed
/// (or `ETCDCTL_ENDPOINTS`), and through the bash script too.
#[tokio::test(flavor = "multi_thread")]
async fn completion_offers_member_names_from_etcd() {
    let cluster = start(ClusterSpec::new(3, Security::MutualTls)).await;
    let names = ["m0", "m1", "m2"];
    let mut words = vec!["__complete".to_string(), "defrag".to_string()];
    words.extend(one_seed(&cluster));
    words.extend(args(&["--member", ""]));
    let run = tool(&words, &[]).await;
    run.expect_code(0);
    assert_eq!(run.stdout, "m0\nm1\nm2\n:4\n");

    // The same from the variables, with a prefix.
    let run = tool(
        &args(&["__complete", "move-leader", "--to", "m1"]),
        &cluster.env(),
    )
    .await;
    run.expect_code(0);
    assert_eq!(run.stdout, "m1\n:4\n");

    // Through the bash script, as a shell runs it.
    let script = tool(&args(&["completion", "bash"]), &[]).await.stdout;
    let file = cluster.dir().join("completion.bash");
    std::fs::write(&file, script).unwrap();
    let mut line = vec!["kubectl-etcd".to_string(), "defrag".to_string()];
    line.extend(one_seed(&cluster));
    line.extend(args(&["--member", ""]));
    let cword = line.len() - 1;
    let program = format!(
        "source '{}'; COMP_WORDS=({}); COMP_CWORD={cword}; _kubectl_etcd kubectl-etcd '' '--member'; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        file.display(),
        line.iter()
            .map(|w| format!("'{w}'"))
            .collect::<Vec<_>>()
            .join(" "),
    );
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_kubectl-etcd"));
    let out = tokio::process::Command::new("bash")
        .arg("-c")
        .arg(program)
        .env(
            "PATH",
            format!(
                "{}:{}",
                bin.parent().unwrap().display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .env_remove("ETCDCTL_ENDPOINTS")
        .output()
        .await
        .unwrap();
    let offered: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(offered, names, "{}", String::from_utf8_lossy(&out.stderr));
}

/// A follower frozen for 12 s in the middle of its defrag (SIGSTOP, as a
/// starved or stalled node would be): that time neither drives the
/// leader's predicted defrag (which comes from the other follower, so
/// `--move-leader auto` above 5 s defragments the leader in place) nor
/// hands leadership to the member that froze. etcd's logs show three
/// defrags and no transfer.
#[tokio::test(flavor = "multi_thread")]
async fn a_frozen_defrag_does_not_drive_the_leader_handling() {
    let mut spec = ClusterSpec::new(3, Security::Plain);
    spec.log_level = "info";
    let cluster = start(spec).await;
    // About 80 MB in use and as much to reclaim on every member: each
    // defrag takes about a second, long enough to freeze one in flight.
    cluster.fragment(160 * 1000 * 1000, 0.5).await.unwrap();
    let leader = cluster.leader().await.unwrap();
    let run = spawn_tool(&command(
        &cluster,
        &[
            "defrag",
            "--all",
            "--yes",
            "-o",
            "json",
            "--move-leader",
            "auto",
            "--move-leader-above",
            "5s",
        ],
    ));
    let started = tokio::time::Instant::now();
    let frozen = loop {
        if let Some(i) = (0..3).find(|&i| cluster.defrag_started(i)) {
            break i;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no defrag started"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    };
    assert_ne!(frozen, leader, "followers go first");
    cluster.pause(frozen).unwrap();
    tokio::time::sleep(Duration::from_secs(12)).await;
    cluster.resume(frozen).unwrap();
    let done = run.finish().await;
    done.expect_code(0);
    let doc = done.json();
    let name = cluster.members[frozen].name.as_str();
    let took = doc["members"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == name)
        .unwrap()["durationMs"]
        .as_u64()
        .unwrap();
    assert!(took >= 12_000, "{name} froze during its defrag: {doc}");
    let choice = &doc["leader"];
    assert_eq!(choice["transfer"], false, "{doc}");
    assert!(
        choice["predictedSeconds"].as_f64().unwrap() < 5.0,
        "the other follower's pace, not the freeze: {doc}"
    );
    assert_eq!(cluster.logged_defrags().len(), 3);
    assert!(
        !cluster
            .logged_leadership()
            .iter()
            .any(|e| e.event == kubectl_etcd_testbed::LeadershipEvent::TransferStarting),
        "etcd logged a transfer"
    );
}

//! The laptop path: `--connect port-forward` (what `auto` means outside a
//! Pod) through the real API server's `pods/portforward` subresource, to a
//! kubelet API for the member Pods' Node (the test bed's fake kubelet, which
//! connects each forwarded stream to the member's loopback address).
//!
//! Proven: status, a defrag and traffic show in every TLS mode; a forward
//! that breaks mid-sweep (the sweep stops with a partial report, exit 1);
//! and that every tunnel and local listener is gone when a run ends —
//! including inside a long-running `--watch`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::collections::BTreeSet;
use std::time::Duration;

use support::k8s::*;
use support::*;

/// The tool through port-forwards, with kubectl's `--request-timeout` of
/// one second: it bounds each request until it is answered, never a
/// tunnel's stream, which carries every etcd call for the whole command.
fn forwarded(kubeconfig: &std::path::Path, rest: &[&str]) -> Vec<String> {
    let mut a = vec![
        format!("--kubeconfig={}", kubeconfig.display()),
        "--connect=port-forward".to_string(),
        "--request-timeout=1".to_string(),
    ];
    a.extend(rest.iter().map(|s| s.to_string()));
    a
}

/// (opened, closed) stream lines the kubelet logged for `namespace`.
fn streams(log: &str, namespace: &str) -> (usize, usize) {
    let mine = |l: &&str| l.contains(&format!(": {namespace}/"));
    let opened = log
        .lines()
        .filter(mine)
        .filter(|l| l.ends_with(" opened"))
        .count();
    let ended = log
        .lines()
        .filter(mine)
        .filter(|l| l.ends_with(" closed") || l.contains(" cut"))
        .count();
    (opened, ended)
}

/// Waits until every stream the kubelet opened for `namespace` has ended
/// (the client closed its tunnels), and returns how many there were.
async fn all_streams_end(namespace: &str) -> usize {
    let kubelet = kubelet().await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let (opened, ended) = streams(&kubelet.log(), namespace);
        if opened > 0 && opened == ended {
            return opened;
        }
        if tokio::time::Instant::now() > deadline {
            panic!(
                "{namespace}: {opened} streams opened, {ended} ended; kubelet log:\n{}",
                kubelet.log()
            );
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Status, a defrag (every member, one at a time) and traffic show, through
/// port-forward only, in every TLS mode the operator offers; every tunnel
/// is closed when each command exits.
#[tokio::test(flavor = "multi_thread")]
async fn every_tls_mode_through_port_forward() {
    let client = admin().await;
    for (i, mode) in [
        Mode::Plain,
        Mode::ServerTls,
        Mode::Mtls,
        Mode::MtlsCertManager,
        Mode::MtlsAuth,
    ]
    .into_iter()
    .enumerate()
    {
        let ns = format!("pf-mode-{i}");
        let fx = fixture_logged(&client, &ns, "etcd", mode).await;
        forward_members(&fx).await;
        services_fixture(&client, &ns, "etcd-traffic", true).await;
        let kc = kubeconfig(&format!("pf-mode-{i}.yaml"), &[&ns]);

        let status = tool(&forwarded(&kc, &["status", "etcd", "-o", "json"]), &[]).await;
        status.expect_code(0);
        let doc = status.json();
        for name in &fx.members {
            let m = row(&doc, name);
            assert_eq!(m["reachable"], true, "{mode:?}: {m}");
        }
        assert_eq!(doc["gate"]["passed"], true, "{mode:?}: {doc}");
        let leader = fx.etcd.leader().await.unwrap();
        let ids = fx.etcd.member_ids().await.unwrap();
        assert_eq!(doc["leader"], format!("{:016x}", ids[leader]), "{mode:?}");

        let defrag = tool(
            &forwarded(&kc, &["defrag", "etcd", "--all", "--yes", "-o", "json"]),
            &[],
        )
        .await;
        defrag.expect_code(0);
        let logged = fx.etcd.logged_defrags();
        assert_eq!(logged.len(), 3, "{mode:?}: {logged:?}\n{}", defrag.stdout);
        let members: BTreeSet<usize> = logged.iter().map(|d| d.member).collect();
        assert_eq!(members.len(), 3, "each member once: {logged:?}");
        for m in rows(&defrag.json()) {
            assert_eq!(m["outcome"], "Defragmented", "{mode:?}: {m}");
        }

        let traffic = tool(
            &forwarded(&kc, &["traffic", "show", "etcd-traffic", "-o", "json"]),
            &[],
        )
        .await;
        traffic.expect_code(0);
        assert_eq!(traffic.json()["service"], "etcd-traffic-client");

        // status dialled 3 members, the defrag as many again per probe: all
        // through the kubelet, all closed now that the processes are gone.
        let streams = all_streams_end(&ns).await;
        assert!(streams >= 6, "{mode:?}: only {streams} forwarded streams");
    }
}

/// The sweep's order, from its `plan:` line.
fn plan_order(line: &str) -> Vec<String> {
    line.split("plan: defragment ")
        .nth(1)
        .unwrap()
        .split(" → ")
        .map(|s| s.trim().to_string())
        .collect()
}

fn defrag_args(kc: &std::path::Path) -> Vec<String> {
    forwarded(
        kc,
        &[
            "defrag",
            "etcd",
            "--all",
            "--yes",
            "--move-leader=never",
            "-o",
            "json",
            "-v",
        ],
    )
}

/// The forwards to the other members break while the second one is
/// defragmented (every tunnel to them cut, new ones refused, as when their
/// node goes away): the second member finishes, the gate then refuses the
/// third step because it cannot see the others, and the sweep stops there
/// with a partial report, exit 1, saying why.
#[tokio::test(flavor = "multi_thread")]
async fn forwards_that_break_mid_sweep_stop_it_with_a_partial_report() {
    let client = admin().await;
    let ns = "pf-break";
    let fx = fixture_logged(&client, ns, "etcd", Mode::Mtls).await;
    fx.etcd.fragment(300 * 1024 * 1024, 0.5).await.unwrap();
    let kubelet = forward_members(&fx).await;
    let kc = kubeconfig("pf-break.yaml", &[ns]);

    let mut run = spawn_tool(&defrag_args(&kc));
    let order = plan_order(
        &run.wait_for("the plan", |l| l.contains("plan: defragment "))
            .await,
    );
    run.wait_for("the first member finished", |l| {
        l.contains(&format!("member {} Defragmented", order[0]))
    })
    .await;
    for pod in [&order[0], &order[2]] {
        kubelet.map(ns, pod, 2379, "refuse").unwrap();
    }
    let done = run.finish().await;
    done.expect_code(1);

    let logged = fx.etcd.logged_defrags();
    let touched: Vec<&String> = logged.iter().map(|d| &fx.members[d.member]).collect();
    assert_eq!(touched, [&order[0], &order[1]], "{logged:?}");
    let doc = done.json();
    assert_eq!(row(&doc, &order[0])["outcome"], "Defragmented", "{doc}");
    assert_eq!(row(&doc, &order[1])["outcome"], "Defragmented", "{doc}");
    assert_ne!(row(&doc, &order[2])["outcome"], "Defragmented", "{doc}");
    assert!(doc["stopped"].is_string(), "a stop reason: {doc}");
    assert!(
        done.stderr.contains(&format!(
            "port-forward to Pod {ns}/{}:2379 failed",
            order[2]
        )),
        "the broken forward is named with the kubelet's reason:\n{}",
        done.stderr
    );
    all_streams_end(ns).await;
}

/// The forward to the member being defragmented breaks and comes back (a
/// laptop's network blip): the sweep waits for that member, saying why,
/// touches nobody else meanwhile, and goes on once the member answers
/// through a new tunnel.
#[tokio::test(flavor = "multi_thread")]
async fn a_forward_that_breaks_and_comes_back_lets_the_sweep_go_on() {
    let client = admin().await;
    let ns = "pf-blip";
    let fx = fixture_logged(&client, ns, "etcd", Mode::Mtls).await;
    fx.etcd.fragment(300 * 1024 * 1024, 0.5).await.unwrap();
    let kubelet = forward_members(&fx).await;
    let kc = kubeconfig("pf-blip.yaml", &[ns]);

    let mut run = spawn_tool(&defrag_args(&kc));
    let order = plan_order(
        &run.wait_for("the plan", |l| l.contains("plan: defragment "))
            .await,
    );
    // Once the second member's Defragment has reached it, break them all.
    let second = fx.members.iter().position(|m| *m == order[1]).unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while !fx.etcd.defrag_started(second) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{} never started",
            order[1]
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    kubelet.retarget_namespace(ns, "refuse").unwrap();
    let waiting = run
        .wait_for("the wait for the second member", |l| {
            l.contains(&format!("waiting for {} to answer", order[1]))
        })
        .await;
    let third = fx.members.iter().position(|m| *m == order[2]).unwrap();
    assert!(
        !fx.etcd.defrag_started(third),
        "nobody else is touched while it waits"
    );
    forward_members(&fx).await;
    let done = run.finish().await;
    // Its Defragment call failed with the tunnel, so it is reported Failed
    // (exit 1) with what it showed once back; the sweep went on after it.
    done.expect_code(1);
    assert_eq!(fx.etcd.logged_defrags().len(), 3);
    let doc = done.json();
    assert_eq!(row(&doc, &order[0])["outcome"], "Defragmented", "{doc}");
    let second = row(&doc, &order[1]);
    assert_eq!(second["outcome"], "Failed", "{doc}");
    assert!(
        second["detail"]
            .as_str()
            .unwrap()
            .contains("answered again"),
        "{second}"
    );
    assert_eq!(row(&doc, &order[2])["outcome"], "Defragmented", "{doc}");
    let said = &done.stderr;
    assert!(
        waiting
            .split("): ")
            .nth(1)
            .is_some_and(|why| !why.trim().is_empty()),
        "the wait says why: {waiting}"
    );
    assert!(
        said.contains(&format!(
            "port-forward to Pod {ns}/{}:2379 failed",
            order[1]
        )),
        "{said}"
    );
    assert!(said.contains("works again"), "{said}");
    all_streams_end(ns).await;
}

/// A long-running `--watch` opens forwards for a run and closes them after
/// it: no listener or tunnel outlives the pass that needed it.
#[tokio::test(flavor = "multi_thread")]
async fn the_watcher_closes_its_forwards_after_each_run() {
    let client = admin().await;
    let ns = "pf-watch";
    let fx = fixture_logged(&client, ns, "db", Mode::Mtls).await;
    forward_members(&fx).await;
    let kc = kubeconfig("pf-watch.yaml", &[ns]);
    let mut watcher = spawn_tool(&forwarded(
        &kc,
        &["defrag", "--watch", "-n", ns, "--lease-duration=3s", "-v"],
    ));
    watcher
        .wait_for("the Lease", |l| l.contains("holding Lease"))
        .await;
    let pid = watcher.pid();
    let baseline = listening_sockets(pid);
    // Sample the listeners while the run goes, to see the forwards open.
    let most = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let sampler = tokio::spawn({
        let most = most.clone();
        async move {
            loop {
                most.fetch_max(
                    listening_sockets(pid).len(),
                    std::sync::atomic::Ordering::Relaxed,
                );
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        }
    });

    support::watch::create_spec(
        &client,
        ns,
        "once",
        serde_json::json!({"clusterRef": {"name": "db"}, "rule": {"all": true}}),
    )
    .await;
    support::watch::wait_phase(&client, ns, "once", &["Complete"]).await;
    sampler.abort();
    assert_eq!(fx.etcd.logged_defrags().len(), 3);
    assert_eq!(
        most.load(std::sync::atomic::Ordering::Relaxed),
        baseline.len() + 3,
        "one local listener per member while the run needed them"
    );

    let streams = all_streams_end(ns).await;
    assert!(streams >= 3, "{streams} forwarded streams");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while listening_sockets(pid) != baseline {
        assert!(
            tokio::time::Instant::now() < deadline,
            "listeners left after the run: {:?} (before: {baseline:?})",
            listening_sockets(pid)
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    watcher.interrupt();
    watcher.finish().await;
}

/// The TCP sockets `pid` holds that are listening (their inodes).
fn listening_sockets(pid: u32) -> BTreeSet<u64> {
    let mut held = BTreeSet::new();
    if let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) {
        for fd in fds.flatten() {
            if let Ok(target) = std::fs::read_link(fd.path()) {
                let t = target.to_string_lossy();
                if let Some(inode) = t.strip_prefix("socket:[").and_then(|r| r.strip_suffix(']')) {
                    held.insert(inode.parse::<u64>().unwrap());
                }
            }
        }
    }
    let mut listening = BTreeSet::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let text = std::fs::read_to_string(table).unwrap_or_default();
        for line in text.lines().skip(1) {
            let cols: Vec<&str> = line.split_whitespace().collect();
            // st 0A is LISTEN; column 9 is the inode.
            if cols.get(3) == Some(&"0A") {
                if let Some(inode) = cols.get(9).and_then(|i| i.parse::<u64>().ok()) {
                    if held.contains(&inode) {
                        listening.insert(inode);
                    }
                }
            }
        }
    }
    listening
}

//! A control plane's own etcd (issue 42) on the test bed's real node, laid
//! out by the real kubeadm's own phases (`NodeSpec::kubeadm`: its
//! certificates and static Pod manifest, the kubelet running the Pod from
//! the bed's etcd image under kubeadm's name): found from the API alone
//! with no EtcdCluster in sight, and reached through the tool's agent Pod
//! on the node, through the real kubectl. Judged by what the servers
//! hold: etcd's own member list and log (read with the node's own
//! certificates, as only a test on the node may), and the API server's
//! Jobs and Pods after every command (no agent left behind, however the
//! command ended).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::time::Duration;

use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, ListParams, LogParams};
use kubectl_etcd_testbed::cluster::defrags_in_logs;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use serde_json::Value;
use support::operator::{fragment, Bed};
use support::{row, rows};

const AGENT: &str = "kubectl-etcd.io/agent-of";
const MEMBER: &str = "testbed-node";
const POD: &str = "etcd-testbed-node";

/// The agent Jobs and Pods the API server holds, by name.
async fn agents(bed: &Bed) -> Vec<String> {
    let params = ListParams::default().labels(AGENT);
    let jobs: Api<Job> = Api::namespaced(bed.client.clone(), "kube-system");
    let pods: Api<Pod> = Api::namespaced(bed.client.clone(), "kube-system");
    let mut out: Vec<String> = jobs
        .list(&params)
        .await
        .unwrap()
        .items
        .into_iter()
        .filter_map(|j| j.metadata.name.map(|n| format!("job/{n}")))
        .collect();
    out.extend(
        pods.list(&params)
            .await
            .unwrap()
            .items
            .into_iter()
            .filter_map(|p| p.metadata.name.map(|n| format!("pod/{n}"))),
    );
    out
}

async fn none_left(bed: &Bed, after: &str) {
    let left = agents(bed).await;
    assert!(left.is_empty(), "after {after}: {left:?}");
}

/// Waits until the kubelet reports kubeadm's etcd Pod `pod` ready.
async fn etcd_ready(bed: &Bed, pod: &str) {
    let pods: Api<Pod> = Api::namespaced(bed.client.clone(), "kube-system");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(180);
    loop {
        let ready = pods.get_opt(pod).await.unwrap().is_some_and(|p| {
            p.status
                .and_then(|s| s.conditions)
                .unwrap_or_default()
                .iter()
                .any(|c| c.type_ == "Ready" && c.status == "True")
        });
        if ready {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{pod} not ready in 180 s"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// `kubectl create job NAME --from=cronjob/…` of deploy/kubeadm's CronJob,
/// waited for: whether it succeeded, and its Pod's log.
async fn cronjob_run(bed: &Bed, name: &str) -> (bool, String) {
    bed.kubectl(&[
        "create",
        "job",
        name,
        "--from=cronjob/kubectl-etcd-defrag-control-plane",
        "-n",
        "kube-system",
    ])
    .await
    .expect_code(0);
    let jobs: Api<Job> = Api::namespaced(bed.client.clone(), "kube-system");
    let pods: Api<Pod> = Api::namespaced(bed.client.clone(), "kube-system");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(300);
    loop {
        let status = jobs.get(name).await.unwrap().status.unwrap_or_default();
        let done = status.succeeded.unwrap_or(0) > 0 || status.failed.unwrap_or(0) > 0;
        if done {
            let pod = pods
                .list(&ListParams::default().labels(&format!("job-name={name}")))
                .await
                .unwrap()
                .items
                .remove(0);
            let log = pods
                .logs(&pod.metadata.name.unwrap(), &LogParams::default())
                .await
                .unwrap();
            return (status.succeeded.unwrap_or(0) > 0, log);
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "Job {name} did not finish: {status:?}"
        );
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// Waits until an agent Pod of the command runs.
async fn agent_running(bed: &Bed) {
    let pods: Api<Pod> = Api::namespaced(bed.client.clone(), "kube-system");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let running = pods
            .list(&ListParams::default().labels(AGENT))
            .await
            .unwrap()
            .items
            .iter()
            .any(|p| p.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Running"));
        if running {
            return;
        }
        assert!(tokio::time::Instant::now() < deadline, "no agent ran");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_kubeadm_control_planes_etcd_is_reached_through_an_agent_on_its_node() {
    let mut bed = Bed::start_kubeadm("default", 1).await;
    // The default --agent-image: this release's image, as deploy/ names it.
    let image = support::tool_image(&mut bed.node);
    assert_eq!(image, kubectl_etcd::cli::agent::DEFAULT_IMAGE);
    etcd_ready(&bed, POD).await;
    let mut etcd = bed.kubeadm_etcd().await;
    let listed = etcd.member_list().await.unwrap();
    let id = listed.members()[0].id();

    // No EtcdCluster in sight: `status` shows the control plane's etcd.
    let run = bed.etcd(&["status", "-o", "json"]).await;
    let doc = run.expect_code(0).json();
    assert_eq!(doc["cluster"]["namespace"], "kube-system", "{doc}");
    assert_eq!(doc["cluster"]["name"], "etcd", "{doc}");
    assert_eq!(rows(&doc).len(), 1, "{doc}");
    let member = row(&doc, MEMBER);
    assert_eq!(member["reachable"], true, "{doc}");
    assert_eq!(member["id"], format!("{id:016x}"), "{doc}");
    // The quota kubeadm's extraArgs gave the member, as the member says.
    assert_eq!(member["quota"]["bytes"], 268435456, "{doc}");
    none_left(&bed, "status -o json").await;

    // The table, named as plugin mode names it, and nothing of the frames.
    let run = bed
        .kubectl(&["etcd", "status", "etcd", "-n", "kube-system"])
        .await;
    let run = run.expect_code(0);
    assert!(run.stdout.contains(MEMBER), "{}", run.stdout);
    assert!(
        !run.stderr.contains(" o ") && !run.stdout.contains(" x 0"),
        "{run:?}"
    );
    none_left(&bed, "status").await;

    // doctor: every member answered (read by the agent, on the node).
    let run = bed.etcd(&["doctor", "-o", "json"]).await;
    let report: Value = run.json();
    assert!(run.code == 0 || run.code == 1, "{run:?}");
    // The gate's only word is the one voter (no member unreachable).
    let gate: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["check"].as_str().unwrap().starts_with("gate/"))
        .filter(|f| f["check"] != "gate/QuorumMargin")
        .collect();
    assert!(gate.is_empty(), "{gate:?}\n{report}");
    none_left(&bed, "doctor").await;

    // snapshot save: streamed by the agent through a port-forward (never
    // its log), written here, and restored by etcd's own etcdutl, holding
    // what was written before it.
    let put = etcd
        .put("kubectl-etcd-test/snapshot", "before", None)
        .await
        .unwrap();
    let revision = put.header().unwrap().revision();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("control-plane.db");
    let run = bed
        .etcd(&["snapshot", "save", file.to_str().unwrap(), "-o", "json"])
        .await;
    let report = run.expect_code(0).json();
    assert_eq!(report["member"], MEMBER, "{report}");
    assert_eq!(report["cluster"]["name"], "etcd", "{report}");
    assert_eq!(report["etcdChecksumVerified"], true, "{report}");
    let bytes = std::fs::read(&file).unwrap();
    assert_eq!(report["bytes"], bytes.len() as u64, "{report}");
    let sum = std::fs::read_to_string(dir.path().join("control-plane.db.sha256")).unwrap();
    assert!(sum.starts_with(report["sha256"].as_str().unwrap()), "{sum}");
    let etcdutl =
        kubectl_etcd_testbed::bins::etcdutl(kubectl_etcd_testbed::EtcdVersion::V3_7).unwrap();
    let out = std::process::Command::new(&etcdutl)
        .args(["snapshot", "status", "-w", "json"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let status: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(status["revision"].as_i64().unwrap() >= revision, "{status}");
    let restored = dir.path().join("restored");
    let out = std::process::Command::new(&etcdutl)
        .args(["snapshot", "restore"])
        .arg(&file)
        .arg("--data-dir")
        .arg(&restored)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(restored.join("member/snap/db").is_file());
    // The key is in it, as the tool's own reader of a snapshot sees it.
    let run = bed
        .etcd(&[
            "snapshot",
            "usage",
            file.to_str().unwrap(),
            "--prefix",
            "kubectl-etcd-test/",
            "-o",
            "json",
        ])
        .await;
    let usage = run.expect_code(0).json();
    assert!(
        usage.to_string().contains("kubectl-etcd-test/snapshot"),
        "{usage}"
    );
    none_left(&bed, "snapshot save").await;
    // A member the cluster does not have: the agent's refusal, relayed
    // with its exit code; no file.
    let missing = dir.path().join("missing.db");
    let run = bed
        .etcd(&[
            "snapshot",
            "save",
            missing.to_str().unwrap(),
            "--member",
            "no-such-member",
        ])
        .await;
    run.expect_code(2);
    assert!(run.stderr.contains("no-such-member"), "{}", run.stderr);
    assert!(!missing.exists());
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        3,
        "FILE, FILE.sha256, restored/"
    );
    none_left(&bed, "snapshot save --member").await;

    // deploy/kubeadm/agent, as committed, is all a maintainer
    // needs: `status` and `snapshot save` work with its group alone, and
    // nothing does without it.
    apply(&bed, "deploy/kubeadm/agent").await;
    let as_maintainer = ["--as", "alice", "--as-group", "control-plane-maintainers"];
    let with_role = dir.path().join("with-role.db");
    for args in [
        vec!["etcd", "status", "etcd", "-n", "kube-system"],
        vec![
            "etcd",
            "snapshot",
            "save",
            with_role.to_str().unwrap(),
            "etcd",
            "-n",
            "kube-system",
        ],
    ] {
        let mut args = args;
        args.extend(as_maintainer);
        let run = bed.kubectl(&args).await;
        run.expect_code(0);
        none_left(&bed, &args.join(" ")).await;
    }
    assert!(with_role.is_file());
    let run = bed
        .kubectl(&[
            "etcd",
            "status",
            "etcd",
            "-n",
            "kube-system",
            "--as",
            "alice",
        ])
        .await;
    assert_ne!(run.code, 0, "{run:?}");
    assert!(run.stderr.contains("forbidden"), "{}", run.stderr);
    none_left(&bed, "status without the role").await;

    // What it cannot do is refused before anything is made.
    let run = bed.etcd(&["traffic", "show"]).await;
    run.expect_code(2);
    assert!(run.stderr.contains("no client Service"), "{}", run.stderr);
    none_left(&bed, "traffic show").await;

    // A fragmented member: one member is the whole control plane, which
    // the gate refuses without consent; with it, the member's own log
    // records the defragmentation.
    fragment(etcd.clone(), 48 << 20, 8 << 20).await;
    // The plan says what the one member's defrag stops, for how long.
    let run = bed
        .etcd(&["defrag", "--dry-run", "--allow-quorum-loss", "-o", "json"])
        .await;
    let plan = run.expect_code(0).json();
    let notes = plan["notes"].to_string();
    assert!(
        notes.contains("only member") && notes.contains("s predicted"),
        "{plan}"
    );
    // The static Pod's probes (kubeadm's, on 2381), read here and handed
    // to the agent, are weighed against the predicted defrag.
    assert!(
        notes.contains("liveness probe (GET /livez on port 2381"),
        "{plan}"
    );
    // The bed's API server is not on the node: this kubectl does not go
    // through the one that stalls.
    assert!(
        notes.contains(&format!(
            "this kubectl goes through {}, which is none of these nodes",
            kubectl_etcd_testbed::node::HOST_IP
        )),
        "{plan}"
    );
    none_left(&bed, "defrag --dry-run").await;
    let run = bed.etcd(&["defrag", "--yes"]).await;
    run.expect_code(1);
    assert!(run.stderr.contains("--allow-quorum-loss"), "{}", run.stderr);
    none_left(&bed, "defrag refused").await;
    let run = bed
        .etcd(&["defrag", "--yes", "--allow-quorum-loss", "-o", "json"])
        .await;
    let report = run.expect_code(0).json();
    assert_eq!(report["cluster"]["name"], "etcd", "{report}");
    let pods: Api<Pod> = Api::namespaced(bed.client.clone(), "kube-system");
    let log = pods.logs(POD, &LogParams::default()).await.unwrap();
    let defrags = kubectl_etcd_testbed::cluster::defrags_in_logs(&[log]);
    assert_eq!(defrags.len(), 1, "etcd's own log: {defrags:?}\n{report}");
    none_left(&bed, "defrag").await;

    // deploy/kubeadm's CronJob, as committed: the gated sweep on the node,
    // its report in the log; a one-node control plane is refused without
    // the flag its comment names, and defragmented with it.
    apply(&bed, "deploy/kubeadm/cronjob").await;
    fragment(etcd.clone(), 48 << 20, 0).await;
    let (succeeded, log) = cronjob_run(&bed, "by-hand-1").await;
    assert!(!succeeded, "{log}");
    let last = log.lines().last().unwrap_or_default();
    assert!(last.contains("--allow-quorum-loss"), "{log}");
    bed.kubectl(&[
        "patch",
        "cronjob",
        "kubectl-etcd-defrag-control-plane",
        "-n",
        "kube-system",
        "--type=json",
        "-p",
        r#"[{"op":"add","path":"/spec/jobTemplate/spec/template/spec/containers/0/args/-","value":"--allow-quorum-loss"}]"#,
    ])
    .await
    .expect_code(0);
    let (succeeded, log) = cronjob_run(&bed, "by-hand-2").await;
    assert!(succeeded, "{log}");
    // The report (stdout) among the notes (stderr): from its first line.
    let start = log
        .find("{\n")
        .unwrap_or_else(|| panic!("no report: {log}"));
    let report: Value = serde_json::Deserializer::from_str(&log[start..])
        .into_iter::<Value>()
        .next()
        .unwrap()
        .unwrap();
    assert_eq!(report["members"][0]["outcome"], "Defragmented", "{report}");
    let log = pods.logs(POD, &LogParams::default()).await.unwrap();
    let defrags = kubectl_etcd_testbed::cluster::defrags_in_logs(&[log]);
    assert_eq!(defrags.len(), 2, "etcd's own log: {defrags:?}");

    // SIGTERM to the plugin mid-command: the agent's command is stopped
    // too, what it says is relayed, the plugin ends with 143 and leaves
    // no agent.
    // (doctor samples the writes for its window when a member needs a
    // defrag: fragmented again.)
    fragment(etcd.clone(), 48 << 20, 0).await;
    let (code, stderr) = signalled_mid_doctor(&bed, Signal::SIGTERM).await;
    assert_eq!(code, Some(143), "{stderr}");
    assert!(stderr.contains("terminated (SIGTERM)"), "{stderr}");
    none_left(&bed, "SIGTERM").await;

    // Ctrl-C takes the same way: exit 130, nothing left.
    let (code, stderr) = signalled_mid_doctor(&bed, Signal::SIGINT).await;
    assert_eq!(code, Some(130), "{stderr}");
    none_left(&bed, "Ctrl-C").await;

    // The API server stalls mid-command (its process stopped for 8 s, as
    // the one beside a defragmenting member stalls): the agent carries on
    // without it, and its whole report arrives once it answers again.
    let child = bed.spawn_etcd(&["doctor", "--churn-window", "10s", "-o", "json"]);
    agent_running(&bed).await;
    let api = Pid::from_raw(bed.node.api.pids()[0] as i32);
    kill(api, Signal::SIGSTOP).unwrap();
    tokio::time::sleep(Duration::from_secs(8)).await;
    kill(api, Signal::SIGCONT).unwrap();
    let out = tokio::time::timeout(Duration::from_secs(120), child.wait_with_output())
        .await
        .expect("the plugin ended after the API server answered again")
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{stderr}");
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{stderr}", String::from_utf8_lossy(&out.stdout)));
    assert_eq!(report["cluster"]["name"], "etcd", "{report}");
    assert!(
        !report["findings"].as_array().unwrap().is_empty(),
        "{report}"
    );
    none_left(&bed, "the API server stalled").await;

    // The plugin killed outright (the user's connection gone): the agent
    // ends by itself, and the Job's TTL removes it and its Pod.
    let mut child = bed.spawn_etcd(&["doctor", "--churn-window", "5s"]);
    agent_running(&bed).await;
    child.start_kill().unwrap();
    let _ = child.wait().await;
    assert!(
        !agents(&bed).await.is_empty(),
        "the agent outlives a killed plugin"
    );
    let deadline = tokio::time::Instant::now() + Duration::from_secs(180);
    while !agents(&bed).await.is_empty() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the agent's TTL did not remove it: {:?}",
            agents(&bed).await
        );
        tokio::time::sleep(Duration::from_secs(2)).await;
    }

    // SIGTERM mid-sweep: the member in flight is finished (its log says
    // so), the plugin ends with 143 and leaves no agent.
    // Most of it kept: each defrag copies it, so it lasts long enough to
    // be seen starting.
    fragment(etcd.clone(), 32 << 20, 160 << 20).await;
    let one = [MEMBER.to_string()];
    let (before, _, _, code, stderr) =
        sigterm_mid_sweep(&bed, &one, &["defrag", "--yes", "--allow-quorum-loss"]).await;
    assert_eq!(code, Some(143), "{stderr}");
    let after = defrags_in_logs(&member_logs(&bed, &one).await).len();
    assert_eq!(after, before + 1, "the defrag in flight was finished");
    none_left(&bed, "SIGTERM mid-sweep").await;
}

/// `doctor` through the agent, sent `signal` 2 s after its agent runs:
/// the plugin's exit code and stderr.
async fn signalled_mid_doctor(bed: &Bed, signal: Signal) -> (Option<i32>, String) {
    let child = bed.spawn_etcd(&["doctor", "--churn-window", "40s"]);
    agent_running(bed).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    signal_and_wait(child, signal).await
}

/// `ARGS…` (a sweep) through the agent, sent SIGTERM as soon as the
/// `members`' own logs show a defrag started beyond those they had
/// finished before: that count, the agent's Pod, when the signal was sent
/// (seconds since the epoch), the plugin's exit code and stderr.
async fn sigterm_mid_sweep(
    bed: &Bed,
    members: &[String],
    args: &[&str],
) -> (usize, String, f64, Option<i32>, String) {
    let before = defrags_in_logs(&member_logs(bed, members).await).len();
    let child = bed.spawn_etcd(args);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    while defrags_in_logs_started(&member_logs(bed, members).await) <= before {
        assert!(tokio::time::Instant::now() < deadline, "no defrag started");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let agent = agents(bed)
        .await
        .into_iter()
        .find_map(|a| a.strip_prefix("pod/").map(String::from))
        .expect("the agent's Pod runs the sweep");
    let signalled_at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    let (code, stderr) = signal_and_wait(child, Signal::SIGTERM).await;
    (before, agent, signalled_at, code, stderr)
}

/// Sends `signal` to the plugin `child` and waits for it to end: its exit
/// code and stderr.
async fn signal_and_wait(child: tokio::process::Child, signal: Signal) -> (Option<i32>, String) {
    kill(Pid::from_raw(child.id().unwrap() as i32), signal).unwrap();
    let out = tokio::time::timeout(Duration::from_secs(120), child.wait_with_output())
        .await
        .unwrap_or_else(|_| panic!("the plugin did not end after {signal}"))
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `kubectl apply -k` of a unit of `deploy/`, as committed.
async fn apply(bed: &Bed, unit: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(unit);
    bed.kubectl(&["apply", "-k", path.to_str().unwrap()])
        .await
        .expect_code(0);
}

/// The etcd Pods' logs, in `members`' order, as their kubelets serve them.
async fn member_logs(bed: &Bed, members: &[String]) -> Vec<String> {
    let pods: Api<Pod> = Api::namespaced(bed.client.clone(), "kube-system");
    let mut logs = Vec::new();
    for m in members {
        logs.push(
            pods.logs(&format!("etcd-{m}"), &LogParams::default())
                .await
                .unwrap(),
        );
    }
    logs
}

#[tokio::test(flavor = "multi_thread")]
async fn three_kubeadm_control_plane_nodes_are_swept_one_member_at_a_time_through_the_agent() {
    use support::operator::one_each_never_together;
    let mut bed = Bed::start_kubeadm("default", 3).await;
    support::tool_image(&mut bed.node);
    let members: Vec<String> = [MEMBER, "testbed-node-2", "testbed-node-3"]
        .map(String::from)
        .to_vec();
    for m in &members {
        etcd_ready(&bed, &format!("etcd-{m}")).await;
    }
    let mut etcd = bed.kubeadm_etcd().await;
    let listed = etcd.member_list().await.unwrap();
    assert_eq!(listed.members().len(), 3, "{listed:?}");

    // status: the three members, each on its node, read by the agent.
    let run = bed.etcd(&["status", "-o", "json"]).await;
    let doc = run.expect_code(0).json();
    assert_eq!(rows(&doc).len(), 3, "{doc}");
    for m in &members {
        assert_eq!(row(&doc, m)["reachable"], true, "{doc}");
    }
    none_left(&bed, "status").await;
    let run = bed.etcd(&["doctor", "-o", "json"]).await;
    assert!(run.code == 0 || run.code == 1, "{run:?}");
    let report: Value = run.json();
    let unreachable: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["check"].as_str().unwrap_or_default().starts_with("gate/"))
        .collect();
    assert!(unreachable.is_empty(), "{unreachable:?}\n{report}");
    none_left(&bed, "doctor").await;
    examined_on_its_node(&bed, &mut etcd, &listed).await;

    // The plan: followers first, the leader last, each with the API server
    // that stalls beside it; this kubectl's API server is none of them.
    let leader_id = etcd.status().await.unwrap().header().unwrap().member_id();
    let leader = listed
        .members()
        .iter()
        .find(|m| m.id() == leader_id)
        .unwrap()
        .name()
        .to_string();
    fragment(etcd.clone(), 48 << 20, 8 << 20).await;
    let run = bed.etcd(&["defrag", "--dry-run", "-o", "json"]).await;
    let plan = run.expect_code(0).json();
    let notes = plan["notes"].to_string();
    assert!(
        notes.contains(&format!(
            "then {leader} defragments, the kube-apiserver on its node stalls"
        )),
        "{plan}"
    );
    assert!(notes.contains("which is none of these nodes"), "{plan}");
    none_left(&bed, "defrag --dry-run").await;

    // The sweep, judged by each member's own log: one at a time, the
    // leader last.
    let run = bed.etcd(&["defrag", "--yes", "-o", "json"]).await;
    let report = run.expect_code(0).json();
    let logs = member_logs(&bed, &members).await;
    let order = one_each_never_together(&members, &logs);
    assert_eq!(order.last(), Some(&leader), "{order:?}\n{report}");
    none_left(&bed, "defrag").await;

    // snapshot save from the most caught-up follower, restored by etcdutl.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("three.db");
    let run = bed
        .etcd(&["snapshot", "save", file.to_str().unwrap(), "-o", "json"])
        .await;
    let report = run.expect_code(0).json();
    assert_eq!(report["role"], "follower", "{report}");
    let etcdutl =
        kubectl_etcd_testbed::bins::etcdutl(kubectl_etcd_testbed::EtcdVersion::V3_7).unwrap();
    let out = std::process::Command::new(&etcdutl)
        .args(["snapshot", "restore"])
        .arg(&file)
        .arg("--data-dir")
        .arg(dir.path().join("restored"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    none_left(&bed, "snapshot save").await;

    // SIGTERM mid-sweep: the member in flight finishes, the sweep stops
    // (no member starts once the signal has reached the node), the plugin
    // ends with 143 and leaves no agent.
    // Most of it kept: each defrag copies it, so it lasts long enough to
    // be seen starting.
    fragment(etcd.clone(), 32 << 20, 160 << 20).await;
    let (before, agent, signalled_at, code, stderr) =
        sigterm_mid_sweep(&bed, &members, &["defrag", "--yes"]).await;
    // Two members are left to sweep when the signal comes: the agent is
    // still running when the kubelet stops it, which its log says.
    let killed_at = bed.kubelet_stopped(&agent, signalled_at);
    assert_eq!(code, Some(143), "{stderr}");
    none_left(&bed, "SIGTERM mid-sweep").await;
    let after = defrags_in_logs(&member_logs(&bed, &members).await);
    let new: Vec<_> = after.iter().skip(before).collect();
    assert!(
        !new.is_empty() && new.len() < 3,
        "the sweep stopped after the member in flight: {new:?}"
    );
    support::operator::never_together(&after);
    // The signal reaches the agent's command through the API server and
    // the kubelet (its Pod deleted with its grace period): a member may
    // start until the kubelet stops the agent's container (its own log
    // says when), never later than the runtime and the agent's relay take
    // to pass SIGTERM on.
    for d in &new[1..] {
        assert!(
            d.start < killed_at + 0.5,
            "a member started {:.3}s after the kubelet stopped the agent: {new:?}",
            d.start - killed_at
        );
    }
}

/// `deploy/monitoring/control-plane` as committed (only
/// pinned to the first node, which alone holds the tool's image here, and
/// examining every 5 s): `doctor --serve` on a control-plane node, with
/// the node's own certificates, serves the three-member control plane's
/// etcd under the name and kind `doctor -A` lists it by, each member's
/// figures as the members give them; the Pod the API server holds has the
/// three files, read-only, and no token. Deleted again at the end.
async fn examined_on_its_node(
    bed: &Bed,
    etcd: &mut etcd_client::Client,
    listed: &etcd_client::MemberListResponse,
) {
    const UNIT: &str = "deploy/monitoring/control-plane";
    const NAME: &str = "kubectl-etcd-doctor-control-plane";
    let mut docs = Vec::new();
    for mut doc in support::k8s::manifest(UNIT) {
        if doc["kind"] == "Deployment" {
            let pod = &mut doc["spec"]["template"]["spec"];
            pod["nodeSelector"]["kubernetes.io/hostname"] = MEMBER.into();
            let args = pod["containers"][0]["args"].as_array_mut().unwrap();
            let interval = args.iter().position(|a| a == "--interval=1m").unwrap();
            args[interval] = "--interval=5s".into();
        }
        docs.push(doc);
    }
    bed.apply(docs).await;
    bed.wait_deployment_ready("kube-system", NAME).await;
    let pods: Api<Pod> = Api::namespaced(bed.client.clone(), "kube-system");
    let pod = pods
        .list(&ListParams::default().labels("app.kubernetes.io/component=doctor-control-plane"))
        .await
        .unwrap()
        .items
        .remove(0);
    let spec = pod.spec.clone().unwrap();
    assert_eq!(spec.automount_service_account_token, Some(false));
    let mut files: Vec<String> = spec
        .volumes
        .unwrap_or_default()
        .into_iter()
        .map(|v| v.host_path.expect("hostPath volumes only").path)
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "/etc/kubernetes/pki/etcd/ca.crt",
            "/etc/kubernetes/pki/etcd/healthcheck-client.crt",
            "/etc/kubernetes/pki/etcd/healthcheck-client.key",
        ]
    );
    let mounts = spec.containers[0].volume_mounts.clone().unwrap_or_default();
    assert!(
        mounts.iter().all(|m| m.read_only == Some(true)),
        "{mounts:?}"
    );
    let ip = pod.status.and_then(|s| s.host_ip).unwrap();
    assert_eq!(ip, kubectl_etcd_testbed::node::NODE_IP);

    let text = support::metrics_at(&format!("{ip}:9465")).await;
    let labels =
        "etcdcluster_namespace=\"kube-system\",etcdcluster=\"etcd\",kind=\"control-plane\"";
    let value = |family: &str, extra: &str| -> f64 {
        let series = format!("{family}{{{labels}{extra}}} ");
        let line = text.lines().find(|l| l.starts_with(&series));
        let line = line.unwrap_or_else(|| panic!("no {series} in:\n{text}"));
        line[series.len()..].trim().parse().unwrap()
    };
    assert_eq!(value("kubectl_etcd_examination_up", ""), 1.0);
    assert_eq!(value("kubectl_etcd_cluster_members_voting", ""), 3.0);
    assert_eq!(value("kubectl_etcd_cluster_members_answering", ""), 3.0);
    assert_eq!(value("kubectl_etcd_cluster_quorum_margin", ""), 1.0);
    assert_eq!(value("kubectl_etcd_cluster_leader_present", ""), 1.0);
    for m in listed.members() {
        let member = format!(",member=\"{}\"", m.name());
        assert_eq!(
            value("kubectl_etcd_member_up", &member),
            1.0,
            "{}",
            m.name()
        );
    }
    // The first node's member, as it says of itself (nothing writes to
    // it meanwhile).
    let status = etcd.status().await.unwrap();
    let first = format!(",member=\"{MEMBER}\"");
    assert_eq!(
        value("kubectl_etcd_member_db_size_bytes", &first),
        status.db_size() as f64
    );
    assert_eq!(
        value("kubectl_etcd_member_quota_bytes", &first),
        268435456.0,
        "the quota kubeadm's extraArgs gave the members"
    );
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(UNIT);
    bed.kubectl(&["delete", "-k", path.to_str().unwrap(), "--wait"])
        .await
        .expect_code(0);
}

/// How many defragmentations the logs show started (finished or not).
fn defrags_in_logs_started(logs: &[String]) -> usize {
    logs.iter()
        .map(|log| {
            log.lines()
                .filter(|l| l.contains("\"msg\":\"defragmenting\""))
                .count()
        })
        .sum()
}

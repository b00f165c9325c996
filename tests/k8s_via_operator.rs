//! `defrag --via-operator` where nobody processes EtcdDefrag (issue 37):
//! on the test bed's real kube-apiserver with the operator's CRDs and no
//! controller. A run nobody takes up is withdrawn; a follow stopped by a
//! signal says what happens to the run, and on a terminal offers to delete
//! one that has not started. Judged by the EtcdDefrags the API server
//! holds afterwards. (The operator's controller driving a run to its end
//! is `tests/node/operator.rs`'s, on the real node.)
//!
//! Its own test binary: doctor's test grants a ServiceAccount EtcdDefrag
//! status by a ClusterRoleBinding, the operator's mark, and every
//! `defrag --watch` on that API server then refuses to start.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use kube::api::{Api, DynamicObject, ListParams};
use support::k8s::*;
use support::*;

const NS: &str = "handover";

/// The EtcdDefrags in the namespace.
async fn runs_in(api: &Api<DynamicObject>) -> Vec<DynamicObject> {
    api.list(&ListParams::default()).await.unwrap().items
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_nobody_takes_up_is_withdrawn_and_a_stopped_follow_says_what_happens() {
    let client = admin().await;
    let _fx = fixture(&client, NS, "main", Mode::Plain).await;
    let kc = kubeconfig("handover.yaml", &[NS]);
    let runs = dynamic(&client, NS, "EtcdDefrag", "etcddefrags");
    let via = |extra: &[&str]| {
        let mut args = vec!["defrag", "main", "--via-operator"];
        args.extend_from_slice(extra);
        plugin(&kc, &args)
    };

    // --dry-run: the object, checked by the API server, nothing created.
    let dry = tool(&via(&["--all", "--dry-run"]), &[]).await;
    dry.expect_code(0);
    let object: serde_json::Value = serde_yaml::from_str(&dry.stdout).unwrap();
    assert_eq!(object["kind"], "EtcdDefrag", "{}", dry.stdout);
    assert_eq!(object["spec"]["clusterRef"]["name"], "main");
    assert_eq!(object["spec"]["rule"]["all"], true);
    assert_eq!(object["spec"]["ttlSecondsAfterFinished"], 86_400);
    assert_eq!(object["metadata"]["generateName"], "main-defrag-");
    assert!(dry.stderr.contains("nothing was created"), "{dry:?}");
    assert!(runs_in(&runs).await.is_empty());

    // What the CRD's own rules refuse is refused before anything is
    // stored, exit 2: by the tool where its rules are the CRD's, by the
    // API server (its words) where only the installed CRD knows. This
    // bed's CRD is the newest schema, whose quotaUsageAbove stops at 99%.
    let zero = tool(&via(&["--free-space-above", "0", "--yes"]), &[]).await;
    zero.expect_code(2);
    assert!(
        zero.stderr
            .contains("--free-space-above must be greater than 0"),
        "{zero:?}"
    );
    let full = tool(&via(&["--quota-usage-above", "100%", "--yes"]), &[]).await;
    full.expect_code(2);
    assert!(
        full.stderr
            .contains("the API server refuses the EtcdDefrag (the CRD's own validation)")
            && full.stderr.contains("quotaUsageAbove"),
        "{full:?}"
    );
    let refused = tool(&via(&["--compact", "--yes"]), &[]).await;
    refused.expect_code(2);
    assert!(
        refused
            .stderr
            .contains("--compact cannot be used with --via-operator"),
        "{refused:?}"
    );
    let no_such = tool(
        &plugin(&kc, &["defrag", "nosuch", "--via-operator", "--yes"]),
        &[],
    )
    .await;
    no_such.expect_code(2);
    assert!(no_such.stderr.contains("nosuch"), "{no_such:?}");
    assert!(runs_in(&runs).await.is_empty());

    // Nobody processes EtcdDefrag here: the run is withdrawn after the
    // claim timeout, exit 1, and the advice names what to do.
    let unclaimed = tool(&via(&["--all", "--yes", "--claim-timeout", "3s"]), &[]).await;
    unclaimed.expect_code(1);
    assert!(
        unclaimed
            .stderr
            .contains("nobody took up EtcdDefrag handover/main-defrag-")
            && unclaimed.stderr.contains("deleted again; nothing changed")
            && unclaimed.stderr.contains("drop --via-operator"),
        "{unclaimed:?}"
    );
    assert!(runs_in(&runs).await.is_empty(), "the run was withdrawn");

    // SIGTERM (Kubernetes stopping the Pod) while following: exit 143, the
    // run stays queued for the operator, and the lines to withdraw or
    // follow it name it.
    let mut running = spawn_tool(&via(&["--all", "--yes"]));
    let created = running
        .wait_for("the run created", |l| l.contains("created EtcdDefrag"))
        .await;
    let name = created
        .split("created EtcdDefrag handover/")
        .nth(1)
        .and_then(|rest| rest.split(';').next())
        .unwrap()
        .to_string();
    running.terminate();
    let stopped = running.finish().await;
    stopped.expect_code(143);
    assert!(
        stopped.stderr.contains(&format!(
            "has not started and stays queued for the operator: `kubectl delete etcddefrag {name} -n handover` withdraws it"
        )),
        "{stopped:?}"
    );
    let left = runs_in(&runs).await;
    assert_eq!(left.len(), 1, "the run stays: {left:?}");
    assert_eq!(left[0].metadata.name.as_deref(), Some(name.as_str()));
    assert_eq!(left[0].data["spec"]["rule"]["all"], true);
    // `status` shows the run waiting: the one that would act next, not
    // yet picked up; `status -A` says so in its RUN column.
    let status = tool(&plugin(&kc, &["status", "main", "-o", "json"]), &[])
        .await
        .expect_code(0)
        .json();
    let active = &status["defrag"]["active"];
    assert_eq!(active["name"], name.as_str(), "{status}");
    assert_eq!(active["phase"], "Pending", "{status}");
    assert_eq!(active["driver"], "not picked up by any processor yet");
    let table = tool(&plugin(&kc, &["status", "main"]), &[]).await;
    table.expect_code(0);
    assert!(
        table.stdout.contains(&format!(
            "now: {name} Pending (not picked up by any processor yet)"
        )),
        "{}",
        table.stdout
    );
    let all = tool(&plugin(&kc, &["status", "-A"]), &[]).await;
    all.expect_read_or_others_unread();
    let row = all
        .stdout
        .lines()
        .find(|l| l.starts_with("handover "))
        .unwrap_or_else(|| panic!("{}", all.stdout));
    // The RUN column, found by its header (KIND is there only when the
    // clusters are of more than one kind).
    let header = all.stdout.lines().next().unwrap_or_default();
    let run = header
        .split_whitespace()
        .position(|h| h == "RUN")
        .unwrap_or_else(|| panic!("{}", all.stdout));
    assert!(
        row.split_whitespace().nth(run) == Some("Pending"),
        "{}",
        all.stdout
    );

    // The advice, run as printed.
    let kubectl = kubectl_etcd_testbed::bins::kubectl().unwrap();
    let out = std::process::Command::new(kubectl)
        .arg(format!("--kubeconfig={}", kc.display()))
        .args(["delete", "etcddefrag", &name, "-n", NS])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(runs_in(&runs).await.is_empty());

    // Ctrl-C on a terminal: the run has not started, so deleting it is
    // offered, and answered yes it is gone.
    let args = via(&["--all", "--yes"]);
    let (code, screen) = tool_on_terminal(
        &args,
        &[],
        &[
            ("following it", "\u{3}"),
            ("has not started; delete it?", "y"),
        ],
    )
    .await;
    assert_eq!(code, 130, "{screen}");
    assert!(screen.contains("no member was touched"), "{screen}");
    assert!(runs_in(&runs).await.is_empty(), "deleted: {screen}");
}

/// The finding in `doc` with check `check`.
fn finding<'a>(doc: &'a serde_json::Value, check: &str) -> Option<&'a serde_json::Value> {
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["check"] == check)
}

/// `doctor` judges who else defragments the cluster, from the objects the
/// API server holds: a policy whose rule cannot fire on this quota, the
/// last three runs failed or deferred (status written as the operator
/// writes it, under its field manager), and the operator's controller
/// installed beside a `--watch` Deployment. Each remedy, run as printed,
/// clears its finding.
#[tokio::test(flavor = "multi_thread")]
async fn doctor_judges_the_runs_the_policies_and_the_processors() {
    let ns = "doctor-runs";
    let client = admin().await;
    let _fx = fixture(&client, ns, "main", Mode::Plain).await;
    let kc = kubeconfig("doctor-runs.yaml", &[ns]);
    let doctor = || async {
        let run = tool(
            &plugin(&kc, &["doctor", "main", "-o", "json", "--fail-on", "never"]),
            &[],
        )
        .await;
        run.expect_code(0);
        run.json()
    };
    let calm = doctor().await;
    for check in ["defrag/policy-rule", "defrag/runs", "defrag/processors"] {
        assert!(finding(&calm, check).is_none(), "{check}: {calm}");
    }

    // A policy whose free-space threshold is above the quota (2 GiB here).
    let policies = dynamic(&client, ns, "EtcdDefragPolicy", "etcddefragpolicies");
    create(
        &policies,
        serde_json::json!({
            "apiVersion": "etcd-operator.cozystack.io/v1alpha2",
            "kind": "EtcdDefragPolicy",
            "metadata": {"name": "huge", "namespace": ns},
            "spec": {"clusterRef": {"name": "main"}, "schedule": "0 3 1 1 *", "rule": {"freeSpaceAbove": "100Gi"}},
        }),
    )
    .await;
    // Three runs the operator failed or deferred.
    let runs = dynamic(&client, ns, "EtcdDefrag", "etcddefrags");
    let as_operator = kube::api::PatchParams {
        field_manager: Some("manager".into()),
        ..Default::default()
    };
    for (name, phase, reason) in [
        ("n1", "Failed", "MemberFailed"),
        ("n2", "Failed", "DeadlineExceeded"),
        ("n3", "Pending", "ClusterNotHealthy"),
    ] {
        create(
            &runs,
            serde_json::json!({
                "apiVersion": "etcd-operator.cozystack.io/v1alpha2",
                "kind": "EtcdDefrag",
                "metadata": {"name": name, "namespace": ns},
                "spec": {"clusterRef": {"name": "main"}},
            }),
        )
        .await;
        runs.patch_status(
            name,
            &as_operator,
            &kube::api::Patch::Merge(serde_json::json!({"status": {
                "phase": phase,
                "conditions": [{"type": "DefragChecked", "status": "False", "reason": reason,
                                "message": format!("{reason} here"), "lastTransitionTime": "2026-12-05T00:00:00Z"}],
            }})),
        )
        .await
        .unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(1100)).await; // distinct creation seconds
    }
    // The operator's grant and a --watch Deployment.
    let grant_rules = serde_json::json!([{"apiGroups": ["etcd-operator.cozystack.io"], "resources": ["etcddefrags/status"], "verbs": ["update", "patch"]}]);
    let roles: Api<k8s_openapi::api::rbac::v1::ClusterRole> = Api::all(client.clone());
    roles
        .create(
            &Default::default(),
            &serde_json::from_value(serde_json::json!({"metadata": {"name": "doctor-runs-operator"}, "rules": grant_rules})).unwrap(),
        )
        .await
        .unwrap();
    let bindings: Api<k8s_openapi::api::rbac::v1::ClusterRoleBinding> = Api::all(client.clone());
    bindings
        .create(
            &Default::default(),
            &serde_json::from_value(serde_json::json!({
                "metadata": {"name": "doctor-runs-operator"},
                "subjects": [{"kind": "ServiceAccount", "name": "etcd-operator", "namespace": ns}],
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "doctor-runs-operator"},
            }))
            .unwrap(),
        )
        .await
        .unwrap();
    let deployments: Api<k8s_openapi::api::apps::v1::Deployment> =
        Api::namespaced(client.clone(), ns);
    let labels = serde_json::json!({"app.kubernetes.io/name": "kubectl-etcd", "app.kubernetes.io/component": "defrag-watch"});
    deployments
        .create(
            &Default::default(),
            &serde_json::from_value(serde_json::json!({
                "metadata": {"name": "kubectl-etcd-watch", "labels": labels},
                "spec": {"replicas": 0, "selector": {"matchLabels": labels},
                         "template": {"metadata": {"labels": labels},
                                      "spec": {"containers": [{"name": "watch", "image": "kubectl-etcd:test", "args": ["defrag", "--watch"]}]}}},
            }))
            .unwrap(),
        )
        .await
        .unwrap();

    let worried = doctor().await;
    let policy = finding(&worried, "defrag/policy-rule").unwrap_or_else(|| panic!("{worried}"));
    assert_eq!(policy["severity"], "warning");
    assert!(
        policy["message"]
            .as_str()
            .unwrap()
            .contains("EtcdDefragPolicy huge can never defragment"),
        "{policy}"
    );
    let failing = finding(&worried, "defrag/runs").unwrap_or_else(|| panic!("{worried}"));
    let message = failing["message"].as_str().unwrap();
    assert!(
        message.contains("n1 Failed (MemberFailed: MemberFailed here); n2 Failed (DeadlineExceeded: DeadlineExceeded here); n3 deferred (ClusterNotHealthy: ClusterNotHealthy here)"),
        "{message}"
    );
    let both = finding(&worried, "defrag/processors").unwrap_or_else(|| panic!("{worried}"));
    assert!(
        both["message"]
            .as_str()
            .unwrap()
            .contains("doctor-runs/kubectl-etcd-watch"),
        "{both}"
    );
    assert_eq!(unread_but_room(&worried), Vec::<String>::new(), "{worried}");

    // The remedies, run as printed.
    paste(
        &kc,
        policy["remedy"]
            .as_str()
            .unwrap()
            .split("e.g. ")
            .nth(1)
            .unwrap(),
    );
    paste(
        &kc,
        both["remedy"].as_str().unwrap().split(": ").nth(1).unwrap(),
    );
    let better = doctor().await;
    assert!(finding(&better, "defrag/policy-rule").is_none(), "{better}");
    assert!(finding(&better, "defrag/processors").is_none(), "{better}");
    roles
        .delete("doctor-runs-operator", &Default::default())
        .await
        .unwrap();
    bindings
        .delete("doctor-runs-operator", &Default::default())
        .await
        .unwrap();
}

/// The etcd-operator's own plugin's habits (its `-p POD`, its verbs) on a
/// real cluster: what means the same here runs, reading the Pod's
/// EtcdCluster and member from the API server; what does not is refused
/// with the command that does it, and that command runs as printed.
#[tokio::test(flavor = "multi_thread")]
async fn the_operator_plugins_habits_work_or_say_what_does() {
    let ns = "plugin-habits";
    let client = admin().await;
    let fx = fixture(&client, ns, "main", Mode::Plain).await;
    let kc = kubeconfig("plugin-habits.yaml", &[ns]);
    let pod = fx.members[1].clone();
    let k = format!("-k={}", kc.display());
    let run = |args: Vec<String>| async move { tool(&args, &[]).await };
    let line = |words: &[&str]| -> Vec<String> {
        let mut a = vec![k.clone(), "--connect=direct".to_string()];
        a.extend(words.iter().map(|w| w.to_string()));
        a
    };

    let status = run(line(&["status", "-p", &pod, "-o", "json"])).await;
    status.expect_code(0);
    assert_eq!(rows(&status.json()).len(), 3, "{status:?}");
    assert!(
        status.stderr.contains(&format!(
            "-p {pod} is member {pod} of EtcdCluster plugin-habits/main"
        )),
        "{status:?}"
    );

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("b.db");
    let snap = run(line(&[
        "snapshot",
        file.to_str().unwrap(),
        "-p",
        &pod,
        "-o",
        "json",
    ]))
    .await;
    snap.expect_code(0);
    assert!(file.exists(), "{snap:?}");
    assert!(
        snap.stderr.contains("spelling of `snapshot save"),
        "{snap:?}"
    );
    assert!(
        snap.stdout.contains(&pod),
        "taken from the Pod's member: {}",
        snap.stdout
    );

    let compact = run(line(&["compact", "-p", &pod, "--dry-run"])).await;
    compact.expect_code(0);
    assert!(compact.stderr.contains("`compact --keep 0`"), "{compact:?}");

    let forfeit = run(line(&["forfeit-leadership", "-p", &pod, "--dry-run"])).await;
    forfeit.expect_code(0);

    // A one-Pod defrag without the gate is not this tool's: refused, with
    // the gated command, which runs as printed.
    let defrag = run(line(&["defrag", "-p", &pod])).await;
    defrag.expect_code(2);
    let advice = defrag
        .stderr
        .split('`')
        .find(|s| s.starts_with("kubectl etcd defrag"))
        .unwrap_or_else(|| panic!("{defrag:?}"))
        .to_string();
    assert_eq!(
        advice,
        format!("kubectl etcd defrag main -n plugin-habits --member {pod} --all")
    );
    let mut printed: Vec<String> = vec![k.clone(), "--connect=direct".into()];
    printed.extend(advice.split_whitespace().skip(2).map(String::from));
    printed.extend(["--dry-run".to_string(), "-o".into(), "json".into()]);
    let planned = run(printed).await;
    planned.expect_code(0);
    let plan = planned.json();
    let pending: Vec<&str> = plan["members"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["outcome"] == "Pending")
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(pending, [pod.as_str()], "{plan}");

    for (words, says) in [
        (
            vec!["add-member", "http://10.0.0.9:2380", "-p", pod.as_str()],
            "member add NAME --peer-urls http://10.0.0.9:2380",
        ),
        (
            vec!["status", "-s", "etcd-creds"],
            "the EtcdCluster names its own credentials Secret",
        ),
        (
            vec!["status", "-p", "not-a-member"],
            "Pod not-a-member in namespace plugin-habits runs no member",
        ),
        (
            vec!["traffic", "show", "-p", pod.as_str()],
            "is not used by this command",
        ),
    ] {
        let refused = run(line(&words)).await;
        refused.expect_code(2);
        assert!(refused.stderr.contains(says), "{words:?}: {refused:?}");
    }
    drop(fx);
}

/// The follow, against a run whose status and events are written as the
/// operator's controller writes them (its field manager, its condition
/// reasons, core/v1 Events naming the run): each change and each event is
/// said as it comes, and the run's end is reported like a direct sweep,
/// exit 0 for Complete. Even with `--ttl-after-finished 0s` the end is seen
/// (here the "operator" deletes the run the moment it completes).
#[tokio::test(flavor = "multi_thread")]
async fn the_follow_says_each_change_and_event_and_reports_the_end() {
    use k8s_openapi::api::core::v1::Event;
    let ns = "handover-follow";
    let client = admin().await;
    let fx = fixture(&client, ns, "main", Mode::Plain).await;
    let kc = kubeconfig("handover-follow.yaml", &[ns]);
    let runs = dynamic(&client, ns, "EtcdDefrag", "etcddefrags");
    let mut running = spawn_tool(&plugin(
        &kc,
        &[
            "defrag",
            "main",
            "--via-operator",
            "--all",
            "--yes",
            "--ttl-after-finished",
            "0s",
            "-o",
            "json",
        ],
    ));
    let created = running
        .wait_for("the run created", |l| l.contains("created EtcdDefrag"))
        .await;
    let name = created
        .split(&format!("created EtcdDefrag {ns}/"))
        .nth(1)
        .and_then(|rest| rest.split(';').next())
        .unwrap()
        .to_string();
    let run = runs.get(&name).await.unwrap();
    assert_eq!(run.data["spec"]["ttlSecondsAfterFinished"], 0);
    let uid = run.metadata.uid.clone().unwrap();
    let as_operator = kube::api::PatchParams {
        field_manager: Some("manager".into()),
        ..Default::default()
    };
    let status = |body: serde_json::Value| {
        let runs = runs.clone();
        let params = as_operator.clone();
        let name = name.clone();
        async move {
            runs.patch_status(
                &name,
                &params,
                &kube::api::Patch::Merge(serde_json::json!({"status": body})),
            )
            .await
            .unwrap();
        }
    };
    let condition = |reason: &str, message: &str| {
        serde_json::json!([{"type": "DefragChecked", "status": "False", "reason": reason,
                            "message": message, "lastTransitionTime": "2026-12-05T00:00:00Z"}])
    };
    // Deferred on an unhealthy cluster, with the operator's Warning event.
    status(serde_json::json!({"phase": "Pending", "conditions": condition("ClusterNotHealthy",
        "a defragmentation is due but the cluster is not fully healthy; deferring to protect quorum: member main-b7xq2 is unreachable")})).await;
    let events: Api<Event> = Api::namespaced(client.clone(), ns);
    events
        .create(
            &Default::default(),
            &serde_json::from_value(serde_json::json!({
                "metadata": {"name": format!("{name}.deferred")},
                "involvedObject": {"apiVersion": "etcd-operator.cozystack.io/v1alpha2", "kind": "EtcdDefrag",
                                   "name": name, "namespace": ns, "uid": uid},
                "type": "Warning", "reason": "DefragDeferred", "count": 1,
                "message": "deferring to protect quorum: member main-b7xq2 is unreachable",
                "source": {"component": "etcd-operator"},
            }))
            .unwrap(),
        )
        .await
        .unwrap();
    // The condition (from the watch) and the event (from the events read
    // every 2 s) come in either order.
    let deferral = format!("{name}: ClusterNotHealthy: a defragmentation is due");
    let event = format!("{name}: event Warning DefragDeferred: deferring to protect quorum");
    let (mut said_deferral, mut said_event) = (false, false);
    while !(said_deferral && said_event) {
        let line = running
            .wait_for("the deferral and its event", |l| {
                l.contains(&deferral) || l.contains(&event)
            })
            .await;
        said_deferral |= line.contains(&deferral);
        said_event |= line.contains(&event);
    }
    // Running: the plan, then a member at a time.
    let members = &fx.members;
    let row = |m: &str, role: &str, outcome: &str| serde_json::json!({"name": m, "role": role, "outcome": outcome});
    status(serde_json::json!({"phase": "Running", "startedAt": "2026-12-05T00:00:01Z",
        "conditions": condition("Running", "defragmenting members"),
        "members": [row(&members[0], "follower", "Pending"), row(&members[1], "follower", "Pending"), row(&members[2], "leader", "Pending")]})).await;
    running
        .wait_for("the order", |l| {
            l.contains(&format!(
                "{name}: order: {} (follower) → {} (follower) → {} (leader)",
                members[0], members[1], members[2]
            ))
        })
        .await;
    let done = |m: &str, role: &str| {
        serde_json::json!({"name": m, "role": role, "outcome": "Defragmented", "dbSizeBefore": 3145728,
                           "dbSizeAfter": 1048576, "reclaimedBytes": 2097152, "finishedAt": "2026-12-05T00:00:02Z"})
    };
    status(serde_json::json!({"defragmented": 1,
        "members": [done(&members[0], "follower"), row(&members[1], "follower", "Pending"), row(&members[2], "leader", "Pending")]})).await;
    running
        .wait_for("a member done", |l| {
            l.contains(&format!(
                "{name}: {} (follower): Defragmented: 3.0 MiB → 1.0 MiB, 2.0 MiB reclaimed",
                members[0]
            ))
        })
        .await;
    // Complete, and deleted at once (ttlSecondsAfterFinished 0).
    status(serde_json::json!({"phase": "Complete", "completedAt": "2026-12-05T00:00:05Z", "defragmented": 3,
        "conditions": condition("Complete", "3/3 members defragmented"),
        "members": [done(&members[0], "follower"), done(&members[1], "follower"), done(&members[2], "leader")]})).await;
    runs.delete(&name, &Default::default()).await.unwrap();
    let finished = running.finish().await;
    finished.expect_code(0);
    let report = finished.json();
    assert_eq!(report["run"]["phase"], "Complete", "{report}");
    assert_eq!(report["run"]["name"], name.as_str());
    let outcomes: Vec<&str> = report["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes, ["Defragmented"; 3], "{report}");
    assert_eq!(report["members"][2]["role"], "leader");
    assert_eq!(report["members"][0]["reclaimedBytes"], 2_097_152);
    assert!(
        report["members"][0]["id"].as_str().unwrap().len() == 16,
        "{report}"
    );
}

//! `doctor` (and `snapshot save`) in plugin mode, against a real
//! kube-apiserver and real etcd. Doctor:
//! what only the EtcdCluster, its Pods, its Nodes and its client Service
//! can tell — auto-compaction too lax, a defrag that would not fit the
//! member's volume, StopGRPCServiceOnDefrag in some Pods' arguments, a
//! trafficDistribution whose nodes carry no zone — and `doctor -A`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use k8s_openapi::api::core::v1::{Pod, Service};
use kube::api::{Api, PostParams};
use serde_json::json;

use support::k8s::*;
use support::*;

fn has(doc: &serde_json::Value, severity: &str, check: &str, member: &str) -> bool {
    doc["findings"].as_array().unwrap().iter().any(|f| {
        f["severity"] == severity
            && f["check"] == check
            && f["member"].as_str().unwrap_or("") == member
    })
}

fn message<'a>(doc: &'a serde_json::Value, check: &str) -> &'a str {
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["check"] == check)
        .unwrap_or_else(|| panic!("no {check} finding: {doc}"))["message"]
        .as_str()
        .unwrap()
}

/// Replaces member `member`'s Pod with one whose etcd runs with `args`,
/// in the operator's layout: every flag in `command`, after `etcd`.
async fn with_args(pods: &Api<Pod>, cluster: &str, member: &str, ip: &str, args: &[&str]) {
    let command: Vec<&str> = std::iter::once("etcd")
        .chain(args.iter().copied())
        .collect();
    replace_pod(
        pods,
        cluster,
        member,
        ip,
        json!({"name": "etcd", "image": "quay.io/coreos/etcd:v3.6.16", "command": command}),
    )
    .await;
}

/// Issue 45, item 4: an ok finding states only what was verified. On etcd
/// 3.4 members (which have no StopGRPCServiceOnDefrag) doctor said "every
/// member stops serving gRPC health while it defragments", and Pods on
/// Nodes the API server does not have were said to sit on nodes "with no
/// zone label".
#[tokio::test(flavor = "multi_thread")]
async fn doctor_says_only_what_it_verified() {
    let client = admin().await;
    let ns = "doctor-verified";
    let fx = fixture_with(&client, ns, "old", Mode::Plain, EtcdVersion::V3_4, 3).await;
    let pods: Api<Pod> = Api::namespaced(client.clone(), ns);
    for (i, member) in fx.members.iter().enumerate() {
        replace_pod_on(
            &pods,
            "old",
            member,
            &fx.etcd.host(i),
            "ghost-node",
            json!({"name": "etcd", "image": "quay.io/coreos/etcd:v3.4.23",
                   "command": ["etcd", format!("--name={member}")]}),
        )
        .await;
    }
    let services: Api<Service> = Api::namespaced(client.clone(), ns);
    let svc: Service = serde_json::from_value(json!({
        "metadata": {"name": "old-client"},
        "spec": {"selector": {"etcd-operator.cozystack.io/cluster": "old"},
                 "ports": [{"name": "client", "port": 2379}],
                 "trafficDistribution": "PreferSameZone"},
    }))
    .unwrap();
    services.create(&PostParams::default(), &svc).await.unwrap();

    let kc = kubeconfig("doctor-verified.yaml", &[ns]);
    let run = tool(
        &[
            format!("--kubeconfig={}", kc.display()),
            "--connect=direct".into(),
            "doctor".into(),
            "old".into(),
            "-o".into(),
            "json".into(),
            "--fail-on".into(),
            "never".into(),
        ],
        &[],
    )
    .await;
    run.expect_code(0);
    let doc = run.json();
    let grpc = message(&doc, "stop-grpc-on-defrag");
    assert!(!grpc.contains("every member"), "{grpc}");
    for member in &fx.members {
        assert!(grpc.contains(&format!("{member} (3.4.")), "{grpc}");
    }
    assert!(
        grpc.ends_with("run etcd 3.4, which has no StopGRPCServiceOnDefrag: clients sending to it wait for the whole defrag"),
        "{grpc}"
    );
    let traffic = message(&doc, "traffic");
    assert!(!traffic.contains("zone label"), "{traffic}");
    assert!(
        traffic.contains("nodes ghost-node (runs ")
            && traffic.contains("do not exist in the API server"),
        "{traffic}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn what_only_kubernetes_can_tell() {
    let client = admin().await;
    kubelet().await; // registers the Node the Pods run on (no zone label)
    let ns = "doctor";
    let names = member_names("etcd", 3);
    let etcd =
        Cluster::start(ClusterSpec::new(3, Security::MutualTls).operator_style("etcd", ns, &names))
            .await
            .unwrap();
    let fx = publish_with_spec(
        &client,
        ns,
        "etcd",
        Mode::Mtls,
        etcd,
        names.clone(),
        json!({"options": {"autoCompactionMode": "periodic", "autoCompactionRetention": "72h"},
               "storage": {"size": "256Mi"}}),
    )
    .await;
    // 150 MB per member, half deleted: about 72 MiB in use, so a defrag
    // needs about 136 MiB free.
    fx.etcd.fragment(150 << 20, 0.5).await.unwrap();

    // One member's Pod sets the feature gate, the others do not.
    let pods: Api<Pod> = Api::namespaced(client.clone(), ns);
    let ip = |i: usize| fx.etcd.host(i);
    with_args(
        &pods,
        "etcd",
        &names[0],
        &ip(0),
        &[
            &format!("--name={}", names[0]),
            "--feature-gates=StopGRPCServiceOnDefrag=true",
        ],
    )
    .await;
    with_args(
        &pods,
        "etcd",
        &names[1],
        &ip(1),
        &[&format!("--name={}", names[1])],
    )
    .await;
    with_args(
        &pods,
        "etcd",
        &names[2],
        &ip(2),
        &[&format!("--name={}", names[2])],
    )
    .await;

    // The client Service prefers same-zone endpoints.
    let services: Api<Service> = Api::namespaced(client.clone(), ns);
    let svc: Service = serde_json::from_value(json!({
        "metadata": {"name": "etcd-client"},
        "spec": {"selector": {"etcd-operator.cozystack.io/cluster": "etcd"},
                 "ports": [{"name": "client", "port": 2379}],
                 "trafficDistribution": "PreferSameZone"},
    }))
    .unwrap();
    services.create(&PostParams::default(), &svc).await.unwrap();

    let kc = kubeconfig("doctor.yaml", &[ns]);
    let run = tool(
        &[
            format!("--kubeconfig={}", kc.display()),
            "--connect=direct".into(),
            "doctor".into(),
            "etcd".into(),
            "-o".into(),
            "json".into(),
        ],
        &[],
    )
    .await;
    run.expect_code(0);
    let doc = run.json();
    assert_eq!(doc["cluster"]["name"], "etcd", "{doc}");
    assert_eq!(unread_but_room(&doc), Vec::<String>::new(), "{doc}");
    // Retention of 72h.
    assert!(has(&doc, "warning", "auto-compaction", ""), "{doc}");
    assert!(
        message(&doc, "auto-compaction").contains("keeps 72h (periodic)"),
        "{doc}"
    );
    // spec.storage.size is not the free space: doctor judges a defrag's
    // room only from what was measured (tests/node/node_room.rs).
    assert!(
        !doc["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["check"] == "defrag-space"),
        "{doc}"
    );
    // The two Pods without the gate are named, and the one with it: each
    // member said for what was verified of it (issue 45).
    let grpc = message(&doc, "stop-grpc-on-defrag");
    assert!(
        grpc.starts_with(&format!(
            "{} set StopGRPCServiceOnDefrag in their Pod arguments",
            names[0]
        )) && grpc.contains(&format!(
            "; {}, {} do not set StopGRPCServiceOnDefrag",
            names[1], names[2]
        )),
        "{grpc}"
    );
    // The Node has no zone label.
    assert!(has(&doc, "warning", "traffic", ""), "{doc}");
    assert!(
        message(&doc, "traffic").contains(&format!("nodes {NODE} (runs {})", names[0])),
        "{doc}"
    );
    // The remedies name the cluster the way kubectl would.
    let frag = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["check"] == "fragmentation");
    if let Some(f) = frag.filter(|f| f["severity"] == "warning") {
        assert_eq!(f["remedy"], "kubectl etcd defrag etcd -n doctor");
    }

    // -A: this cluster among every EtcdCluster, each with its own report.
    let run = tool(
        &[
            format!("--kubeconfig={}", kc.display()),
            "--connect=direct".into(),
            "doctor".into(),
            "-A".into(),
            "-o".into(),
            "json".into(),
            "--fail-on".into(),
            "never".into(),
        ],
        &[],
    )
    .await;
    run.expect_code(0);
    let all = run.json();
    let ours = all["clusters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["cluster"]["namespace"] == ns && c["cluster"]["name"] == "etcd")
        .unwrap_or_else(|| panic!("{all}"));
    assert_eq!(ours["worst"], doc["worst"], "{ours}\n{doc}");
    assert_eq!(ours["worst"], "warning");
}

/// `snapshot save` through an EtcdCluster (plugin mode): the same choice of
/// member and the same checks as standalone, with TLS from the Secrets.
#[tokio::test(flavor = "multi_thread")]
async fn snapshot_through_an_etcdcluster() {
    let client = admin().await;
    let fx = fixture(&client, "snapshot", "etcd", Mode::Mtls).await;
    let mut c = fx.etcd.client(0).await.unwrap();
    for i in 0..200 {
        c.put(format!("k{i}"), format!("v{i}"), None).await.unwrap();
    }
    let leader = fx.etcd.members[fx.etcd.leader().await.unwrap()]
        .name
        .clone();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("etcd.db");
    let kc = kubeconfig("snapshot.yaml", &["snapshot"]);
    let run = tool(
        &[
            format!("--kubeconfig={}", kc.display()),
            "--connect=direct".into(),
            "snapshot".into(),
            "save".into(),
            file.display().to_string(),
            "etcd".into(),
            "-o".into(),
            "json".into(),
        ],
        &[],
    )
    .await;
    run.expect_code(0);
    let doc = run.json();
    assert_eq!(doc["cluster"]["name"], "etcd", "{doc}");
    assert_eq!(doc["role"], "follower", "{doc}");
    assert_ne!(doc["member"], leader.as_str(), "{doc}");
    assert_eq!(doc["etcdChecksumVerified"], true, "{doc}");
    assert!(doc["contents"]["keys"].as_u64().unwrap() >= 200, "{doc}");
    assert_eq!(doc["bytes"], std::fs::metadata(&file).unwrap().len());
    assert!(dir.path().join("etcd.db.sha256").exists());
}

/// Doctor reads a cluster's Pods with one LIST (side by side with its
/// EtcdMembers, every Node at once), and falls back to a GET per Pod where
/// a role may only get them: with a role that may list Pods but not get
/// them, and with one that may get but not list, doctor reads everything
/// (nothing unread), as the API server's authorizer decides.
#[tokio::test(flavor = "multi_thread")]
async fn doctor_reads_pods_with_one_list_and_a_get_only_role_still_reads_each() {
    use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, PolicyRule};
    let client = admin().await;
    kubelet().await; // the Node the Pods run on
    let ns = "doctor-reads";
    let fx = fixture(&client, ns, "etcd", Mode::Mtls).await;
    let rule = |group: &str, resources: &[&str], verbs: &[&str]| PolicyRule {
        api_groups: Some(vec![group.into()]),
        resources: Some(resources.iter().map(|r| r.to_string()).collect()),
        verbs: verbs.iter().map(|v| v.to_string()).collect(),
        ..Default::default()
    };
    let base = vec![
        rule(
            "etcd-operator.cozystack.io",
            &["etcdclusters"],
            &["get", "list"],
        ),
        rule("etcd-operator.cozystack.io", &["etcdmembers"], &["list"]),
        rule(
            "etcd-operator.cozystack.io",
            &["etcddefrags", "etcddefragpolicies"],
            &["list"],
        ),
        rule("", &["secrets", "services"], &["get"]),
    ];
    // Nodes are cluster-scoped, and so is who may process EtcdDefrag (the
    // roles and bindings) and where a --watch Deployment runs: a
    // ClusterRoleBinding for both accounts.
    let nodes: ClusterRole = serde_json::from_value(json!({
        "metadata": {"name": "doctor-reads-nodes"},
        "rules": [
            {"apiGroups": [""], "resources": ["nodes"], "verbs": ["get"]},
            {"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["clusterroles", "clusterrolebindings", "roles", "rolebindings"], "verbs": ["list"]},
            {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["list"]},
        ],
    }))
    .unwrap();
    Api::<ClusterRole>::all(client.clone())
        .create(&PostParams::default(), &nodes)
        .await
        .unwrap();
    let accounts = ["pods-list-only", "pods-get-only"];
    let binding: ClusterRoleBinding = serde_json::from_value(json!({
        "metadata": {"name": "doctor-reads-nodes"},
        "subjects": accounts.iter().map(|a| json!({"kind": "ServiceAccount", "name": a, "namespace": ns})).collect::<Vec<_>>(),
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "doctor-reads-nodes"},
    }))
    .unwrap();
    Api::<ClusterRoleBinding>::all(client.clone())
        .create(&PostParams::default(), &binding)
        .await
        .unwrap();
    for (account, verb) in accounts.iter().zip(["list", "get"]) {
        let mut rules = base.clone();
        rules.push(rule("", &["pods"], &[verb]));
        let kc = grant(&client, ns, &format!("doctor-{account}"), rules, account).await;
        let doc = doctor_json(&kc).await;
        assert_eq!(doc["cluster"]["name"], "etcd", "{account}: {doc}");
        // Everything but the room on the members' volumes: the kubelet's
        // volume statistics need get on nodes/proxy, which neither role
        // has, and the refusal says so.
        let unread: Vec<&str> = doc["unread"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|u| u.as_str())
            .collect();
        assert_eq!(unread.len(), fx.members.len(), "{account}: {doc}");
        for (u, member) in unread.iter().zip(&fx.members) {
            assert!(
                u.starts_with(&format!("the free space on {member}'s data volume (reading the kubelet's volume statistics needs get on nodes/proxy"))
                    && u.contains("kubectl auth can-i get nodes --subresource=proxy"),
                "{account}: {u}"
            );
        }
    }

    // A user who may read the Pods but not the Nodes: the Pods are read
    // (their arguments judged) and what was refused is named as the
    // Node's zone, in the API server's words, never as the members' Pods.
    let services: Api<Service> = Api::namespaced(client.clone(), ns);
    let svc: Service = serde_json::from_value(json!({
        "metadata": {"name": "etcd-client"},
        "spec": {"selector": {"etcd-operator.cozystack.io/cluster": "etcd"},
                 "ports": [{"name": "client", "port": 2379}],
                 "trafficDistribution": "PreferSameZone"},
    }))
    .unwrap();
    services.create(&PostParams::default(), &svc).await.unwrap();
    let mut rules = base.clone();
    rules.push(rule("", &["pods"], &["list"]));
    let kc = grant(&client, ns, "doctor-no-nodes", rules, "no-nodes").await;
    let doc = doctor_json(&kc).await;
    let unread: Vec<&str> = doc["unread"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|u| u.as_str())
        .collect();
    assert!(
        !unread.iter().any(|u| u.contains("the members' Pods")),
        "{doc}"
    );
    let node = unread
        .iter()
        .find(|u| u.starts_with(&format!("the zone of Node {NODE} (")))
        .unwrap_or_else(|| panic!("{unread:?}"));
    assert!(
        node.contains("forbidden") && node.contains("system:serviceaccount:doctor-reads:no-nodes"),
        "{node}"
    );
    drop(fx);
}

/// `doctor etcd -o json --fail-on never` as the kubeconfig's identity,
/// which must exit 0: its report.
async fn doctor_json(kc: &std::path::Path) -> serde_json::Value {
    let run = tool(
        &args(&[
            &format!("--kubeconfig={}", kc.display()),
            "--connect=direct",
            "doctor",
            "etcd",
            "-o",
            "json",
            "--fail-on",
            "never",
        ]),
        &[],
    )
    .await;
    run.expect_code(0);
    run.json()
}

/// `doctor --upgrade-to 3.7` in plugin mode reads each member Pod's etcd
/// arguments: members of a real 3.6 cluster started with flags 3.7
/// removed (its Pods say so) are each a blocker naming them and their new
/// names (that etcd 3.7.3 exits 2 on each is
/// `tests/etcd/doctor.rs::the_removed_flags_are_the_ones_the_binaries_refuse`).
#[tokio::test(flavor = "multi_thread")]
async fn upgrade_to_names_the_flags_a_member_would_not_start_with() {
    let client = admin().await;
    kubelet().await;
    let ns = "doctor-upgrade";
    let names = member_names("up", 3);
    let flags = [
        "--experimental-compact-hash-check-enabled=true",
        "--experimental-initial-corrupt-check=true",
    ];
    let etcd = Cluster::start(
        ClusterSpec::new(3, Security::Plain)
            .version(EtcdVersion::V3_6)
            .arg(flags[0])
            .arg(flags[1])
            .operator_style("up", ns, &names),
    )
    .await
    .unwrap();
    let fx = publish_with_spec(
        &client,
        ns,
        "up",
        Mode::Plain,
        etcd,
        names.clone(),
        json!({}),
    )
    .await;
    let pods: Api<Pod> = Api::namespaced(client.clone(), ns);
    let m = &fx.members;
    for (i, member) in m.iter().enumerate() {
        with_args(
            &pods,
            "up",
            member,
            &fx.etcd.host(i),
            &[&format!("--name={member}"), flags[0], flags[1]],
        )
        .await;
    }
    let kc = kubeconfig("doctor-upgrade.yaml", &[ns]);
    let doctor_up = |to: &str| {
        args(&[
            &format!("--kubeconfig={}", kc.display()),
            "--connect=direct",
            "doctor",
            "up",
            "--upgrade-to",
            to,
            "-o",
            "json",
        ])
    };
    let run = tool(&doctor_up("3.7"), &[]).await;
    run.expect_code(1);
    let doc = run.json();
    let found: Vec<&serde_json::Value> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["check"] == "upgrade/flags")
        .collect();
    assert_eq!(found.len(), 3, "{doc}");
    for (f, member) in found.iter().zip(m) {
        assert_eq!(f["severity"], "critical");
        assert_eq!(f["member"], member.as_str());
        assert_eq!(
            f["message"],
            format!("{member} is started with --experimental-compact-hash-check-enabled (now --feature-gates=CompactHashCheck=true), --experimental-initial-corrupt-check (now --feature-gates=InitialCorruptCheck=true), which etcd 3.7 no longer accepts: it would not start")
        );
    }
    // The bed's 3.6.16 is past the 3.7 floor: nothing else blocks.
    assert!(!has(&doc, "critical", "upgrade/patch-floor", ""), "{doc}");
    // To 3.6.16 (where these flags still work): nothing to block.
    let run = tool(&doctor_up("3.6.16"), &[]).await;
    let doc = run.json();
    assert!(has(&doc, "ok", "upgrade/ready", ""), "{doc}");
}

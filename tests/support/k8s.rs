//! Plugin-mode fixtures on the real API server of the test bed: one API
//! server per test binary (killed by a watchdog when the binary exits), a
//! namespace per test, and for each EtcdCluster the real objects the
//! operator would have made — TLS and credential Secrets, EtcdMembers with
//! their status, member Pods whose status IP points at a real etcd member
//! listening on its own loopback address at port 2379.

use std::path::PathBuf;

use k8s_openapi::api::core::v1::{Namespace, Pod, Secret, Service};
use kube::api::{Api, Patch, PatchParams, PostParams};
use kube::Client;
use kubectl_etcd_testbed::{
    ApiServer, Cluster, ClusterSpec, Context, EtcdVersion, KubeRelease, Kubelet, Security,
};
use serde_json::json;
use tokio::sync::OnceCell;

/// The CRDs `shared/crds/README.md` says to install, and the etcd
/// project's operator's EtcdCluster (`operator.etcd.io`) from its source.
pub fn crd_files() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/crds");
    [
        "etcd-operator.cozystack.io_etcdclusters.yaml",
        "etcd-operator.cozystack.io_etcdmembers.yaml",
        "etcd-operator.cozystack.io_etcdsnapshots.yaml",
        "etcd-operator.cozystack.io_etcddefrags-defrag-metrics-branch.yaml",
        "etcd-operator.cozystack.io_etcddefragpolicies-policy-branch.yaml",
    ]
    .iter()
    .map(|f| dir.join(f))
    .chain([PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/anchors/etcd-io-etcd-operator/config/crd/bases/operator.etcd.io_etcdclusters.yaml")])
    .collect()
}

static SERVER: OnceCell<ApiServer> = OnceCell::const_new();

/// The test binary's API server, started on first use.
pub async fn apiserver() -> &'static ApiServer {
    SERVER
        .get_or_init(|| async { start_apiserver(KubeRelease::Current, "").await })
        .await
}

/// This binary's API server, with an audit log (`name` tells the log's
/// file apart): the record of who asked what, and when. A binary whose
/// tests count requests in it starts every test with it, so that it is
/// the binary's API server; the log is removed once the binary is gone.
pub async fn audited(name: &str) -> &'static std::path::Path {
    static AUDIT: OnceCell<PathBuf> = OnceCell::const_new();
    AUDIT
        .get_or_init(|| async {
            let audit = std::env::temp_dir().join(format!(
                "kubectl-etcd-{name}-audit-{}.log",
                std::process::id()
            ));
            kubectl_etcd_testbed::apiserver::watchdog(&[], std::slice::from_ref(&audit))
                .expect("watchdog for the audit log");
            let server =
                ApiServer::start_with(KubeRelease::Current, &crd_files(), "", Some(&audit))
                    .await
                    .expect("test bed API server");
            install_apiserver(server).await;
            audit
        })
        .await
}

/// Makes `server` the binary's API server (a benchmark's, started with
/// its own options) instead of starting one on first use.
pub async fn install_apiserver(server: ApiServer) {
    kubectl_etcd_testbed::apiserver::watchdog(&server.pids(), &server.dirs()).expect("watchdog");
    if SERVER.set(server).is_err() {
        panic!("the API server was started already");
    }
}

/// Starts an extra API server of `release` with `feature_gates`, watched
/// like the shared one.
pub async fn start_apiserver(release: KubeRelease, feature_gates: &str) -> ApiServer {
    let server = ApiServer::start_release(release, &crd_files(), feature_gates)
        .await
        .unwrap_or_else(|e| panic!("test bed API server {release:?} {feature_gates}: {e}"));
    kubectl_etcd_testbed::apiserver::watchdog(&server.pids(), &server.dirs()).expect("watchdog");
    server
}

/// An admin client for this test's runtime.
pub async fn admin() -> Client {
    apiserver()
        .await
        .admin_client(None)
        .await
        .expect("admin client")
}

/// Creates a namespace (idempotent).
pub async fn namespace(client: &Client, name: &str) {
    let api: Api<Namespace> = Api::all(client.clone());
    let ns: Namespace = serde_json::from_value(json!({"metadata": {"name": name}})).unwrap();
    match api.create(&PostParams::default(), &ns).await {
        Ok(_) => {}
        Err(kube::Error::Api(e)) if e.code == 409 => {}
        Err(e) => panic!("create namespace {name}: {e}"),
    }
}

/// A kubeconfig with an admin context per namespace (`ctx-<ns>`), the first
/// current.
pub fn kubeconfig(file: &str, namespaces: &[&str]) -> PathBuf {
    kubeconfig_on(SERVER.get().expect("apiserver() first"), file, namespaces)
}

/// [`kubeconfig`] whose server address is `url` (a delay proxy in front of
/// the API server) instead of the API server's own.
pub fn kubeconfig_via(url: &str, file: &str, namespaces: &[&str]) -> PathBuf {
    let path = kubeconfig(file, namespaces);
    point_at(&path, url);
    path
}

/// Rewrites the kubeconfig at `path` (one of the shared API server's) to
/// reach the server at `url` (a delay proxy in front of it).
pub fn point_at(path: &std::path::Path, url: &str) {
    let server = SERVER.get().expect("apiserver() first");
    let text = std::fs::read_to_string(path).unwrap();
    let moved = text.replace(
        &format!("server: {}\n", server.url),
        &format!("server: {url}\n"),
    );
    assert_ne!(moved, text, "no server line in {}", path.display());
    std::fs::write(path, moved).unwrap();
}

/// A delay proxy in front of the shared API server (started first).
pub async fn apiserver_proxy(
    delay: kubectl_etcd_testbed::delay::Delay,
) -> kubectl_etcd_testbed::delay::Proxy {
    let server = apiserver().await;
    let upstream = server
        .url
        .trim_start_matches("https://")
        .parse()
        .expect("the API server's address");
    kubectl_etcd_testbed::delay::Proxy::start("127.0.0.1:0".parse().unwrap(), upstream, delay)
        .await
        .expect("a delay proxy for the API server")
}

/// [`kubeconfig`] for another API server.
pub fn kubeconfig_on(server: &ApiServer, file: &str, namespaces: &[&str]) -> PathBuf {
    let contexts: Vec<Context> = namespaces
        .iter()
        .map(|ns| Context {
            name: format!("ctx-{ns}"),
            namespace: Some(ns.to_string()),
            impersonate: None,
        })
        .collect();
    server
        .write_kubeconfig(file, &contexts)
        .expect("kubeconfig")
}

/// A kubeconfig whose only context impersonates `user`.
pub fn kubeconfig_as(file: &str, namespace: &str, user: &str) -> PathBuf {
    SERVER
        .get()
        .expect("apiserver() first")
        .write_kubeconfig(
            file,
            &[Context {
                name: "impersonated".into(),
                namespace: Some(namespace.into()),
                impersonate: Some(user.into()),
            }],
        )
        .expect("kubeconfig")
}

/// How the EtcdCluster secures its client plane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Plain,
    /// BYO server Secret only.
    ServerTls,
    /// BYO server + operator-client Secrets.
    Mtls,
    /// cert-manager issuers: Secrets named `<cluster>-server-tls` and
    /// `<cluster>-operator-client-tls`.
    MtlsCertManager,
    /// BYO mTLS plus auth with a basic-auth root Secret.
    MtlsAuth,
}

/// A real etcd cluster published through the API as an EtcdCluster.
pub struct Fixture {
    pub namespace: String,
    pub name: String,
    pub members: Vec<String>,
    pub etcd: Cluster,
}

/// The benchmarks' fleet: `clusters` EtcdClusters `etcd-00`, `etcd-01`, …
/// over five namespaces `bench-0` … `bench-4`, each its own real etcd 3.6
/// cluster of `members` members in mutual TLS (behind `delay` when given);
/// with the namespaces they are in.
#[allow(dead_code)] // the benchmarks' only
pub async fn bench_fleet(
    client: &Client,
    clusters: usize,
    members: usize,
    delay: Option<kubectl_etcd_testbed::delay::Delay>,
) -> (Vec<Fixture>, Vec<String>) {
    const NAMESPACES: usize = 5;
    let mut fixtures = Vec::new();
    for i in 0..clusters {
        let ns = format!("bench-{}", i % NAMESPACES);
        let name = format!("etcd-{i:02}");
        fixtures.push(
            fixture_at(
                client,
                &ns,
                &name,
                Mode::Mtls,
                EtcdVersion::V3_6,
                members,
                delay,
            )
            .await,
        );
    }
    let namespaces = (0..NAMESPACES.min(clusters))
        .map(|i| format!("bench-{i}"))
        .collect();
    (fixtures, namespaces)
}

/// Member names in the operator's style: `<cluster>-<5 chars>`.
pub fn member_names(cluster: &str, n: usize) -> Vec<String> {
    const SUFFIXES: [&str; 5] = ["b7xq2", "k9w4m", "p3zt8", "r5nv1", "d2hc6"];
    SUFFIXES[..n]
        .iter()
        .map(|s| format!("{cluster}-{s}"))
        .collect()
}

/// Publishes a real 3-member etcd cluster as EtcdCluster `name` in `ns`.
pub async fn fixture(client: &Client, ns: &str, name: &str, mode: Mode) -> Fixture {
    fixture_with(client, ns, name, mode, EtcdVersion::V3_7, 3).await
}

pub async fn fixture_with(
    client: &Client,
    ns: &str,
    name: &str,
    mode: Mode,
    version: EtcdVersion,
    members: usize,
) -> Fixture {
    fixture_at(client, ns, name, mode, version, members, None).await
}

/// [`fixture_with`] whose members sit `delay` away from their clients
/// (behind the test bed's delay proxy), when given.
pub async fn fixture_at(
    client: &Client,
    ns: &str,
    name: &str,
    mode: Mode,
    version: EtcdVersion,
    members: usize,
    delay: Option<kubectl_etcd_testbed::delay::Delay>,
) -> Fixture {
    let names = member_names(name, members);
    let mut spec = operator_spec(ns, name, mode, &names).version(version);
    spec.delay = delay;
    start_and_publish(client, ns, name, mode, spec, names).await
}

/// [`fixture`] with the members logging at `info`, so that
/// [`Cluster::logged_defrags`] sees every defragmentation (the shared
/// fixture runs etcd at `warn`, where etcd does not log them).
pub async fn fixture_logged(client: &Client, ns: &str, name: &str, mode: Mode) -> Fixture {
    fixture_logged_on(client, ns, name, mode, EtcdVersion::V3_7, None).await
}

/// [`fixture_logged`] of etcd `version`, with a backend quota when given.
pub async fn fixture_logged_on(
    client: &Client,
    ns: &str,
    name: &str,
    mode: Mode,
    version: EtcdVersion,
    quota: Option<u64>,
) -> Fixture {
    let names = member_names(name, 3);
    let mut spec = operator_spec(ns, name, mode, &names).version(version);
    spec.quota_backend_bytes = quota;
    spec.log_level = "info";
    start_and_publish(client, ns, name, mode, spec, names).await
}

/// The members of EtcdCluster `name` in `ns`, as the operator would run
/// them, with the security `mode` implies.
fn operator_spec(ns: &str, name: &str, mode: Mode, names: &[String]) -> ClusterSpec {
    ClusterSpec::new(names.len(), security(mode)).operator_style(name, ns, names)
}

async fn start_and_publish(
    client: &Client,
    ns: &str,
    name: &str,
    mode: Mode,
    spec: ClusterSpec,
    names: Vec<String>,
) -> Fixture {
    let etcd = Cluster::start(spec)
        .await
        .unwrap_or_else(|e| panic!("test bed: {e}"));
    publish(client, ns, name, mode, etcd, names).await
}

/// The member-side security a client-plane mode needs.
fn security(mode: Mode) -> Security {
    match mode {
        Mode::Plain => Security::Plain,
        Mode::ServerTls => Security::ServerTls,
        Mode::Mtls | Mode::MtlsCertManager => Security::MutualTls,
        Mode::MtlsAuth => Security::MutualTlsAuth,
    }
}

/// Publishes the running `etcd` (members `names`, started operator-style
/// with the security `mode` implies) as EtcdCluster `name`: its Secrets,
/// the EtcdCluster and its status, an EtcdMember and a Pod per member.
pub async fn publish(
    client: &Client,
    ns: &str,
    name: &str,
    mode: Mode,
    etcd: Cluster,
    names: Vec<String>,
) -> Fixture {
    publish_with_spec(client, ns, name, mode, etcd, names, json!({})).await
}

/// [`publish`] with `extra` merged into the EtcdCluster's spec (e.g.
/// `{"options": {…}, "storage": {"size": "200Mi"}}`).
pub async fn publish_with_spec(
    client: &Client,
    ns: &str,
    name: &str,
    mode: Mode,
    etcd: Cluster,
    names: Vec<String>,
    extra: serde_json::Value,
) -> Fixture {
    publish_objects(client, ns, name, mode, &etcd, &names, &extra).await;
    Fixture {
        namespace: ns.to_string(),
        name: name.to_string(),
        members: names,
        etcd,
    }
}

impl Fixture {
    /// Publishes this fixture's etcd on another API server too (as
    /// EtcdCluster `name` in `ns` there), with the security `mode` it was
    /// published with: one real cluster seen from two kubeconfig contexts.
    pub async fn publish_on(&self, client: &Client, ns: &str, name: &str, mode: Mode) {
        publish_objects(
            client,
            ns,
            name,
            mode,
            &self.etcd,
            &self.members,
            &json!({}),
        )
        .await;
    }
}

/// The objects the operator would have made for the running `etcd`: its
/// Secrets, the EtcdCluster and its status, an EtcdMember and a Pod per
/// member.
async fn publish_objects(
    client: &Client,
    ns: &str,
    name: &str,
    mode: Mode,
    etcd: &Cluster,
    names: &[String],
    extra: &serde_json::Value,
) {
    namespace(client, ns).await;
    let members = names.len();

    // Secrets, as BYO or cert-manager would have written them.
    let secrets: Api<Secret> = Api::namespaced(client.clone(), ns);
    let read = |p: &PathBuf| std::fs::read_to_string(p).unwrap();
    let (server_secret, client_secret) = match mode {
        Mode::MtlsCertManager => (
            format!("{name}-server-tls"),
            format!("{name}-operator-client-tls"),
        ),
        _ => (format!("{name}-server"), format!("{name}-client")),
    };
    if let Some(pki) = &etcd.pki {
        create_secret(
            &secrets,
            &server_secret,
            "kubernetes.io/tls",
            &[
                ("ca.crt", read(&pki.ca)),
                ("tls.crt", read(&pki.server_cert)),
                ("tls.key", read(&pki.server_key)),
            ],
        )
        .await;
        if matches!(mode, Mode::Mtls | Mode::MtlsCertManager | Mode::MtlsAuth) {
            create_secret(
                &secrets,
                &client_secret,
                "kubernetes.io/tls",
                &[
                    ("ca.crt", read(&pki.ca)),
                    ("tls.crt", read(&pki.client_cert)),
                    ("tls.key", read(&pki.client_key)),
                ],
            )
            .await;
        }
    }
    if mode == Mode::MtlsAuth {
        create_secret(
            &secrets,
            &format!("{name}-root"),
            "kubernetes.io/basic-auth",
            &[
                ("username", "root".into()),
                ("password", etcd.password.clone().unwrap()),
            ],
        )
        .await;
    }

    // The EtcdCluster and its status.
    let tls = match mode {
        Mode::Plain => json!(null),
        Mode::ServerTls => json!({"client": {"serverSecretRef": {"name": server_secret}}}),
        Mode::Mtls | Mode::MtlsAuth => json!({"client": {
            "serverSecretRef": {"name": server_secret},
            "operatorClientSecretRef": {"name": client_secret}}}),
        Mode::MtlsCertManager => json!({"client": {"certManager": {
            "serverIssuerRef": {"name": "ca-issuer"},
            "operatorClientIssuerRef": {"name": "ca-issuer"}}}}),
    };
    // The version the members run, as the operator would have it: status
    // and doctor hold the EtcdCluster's version against the members'.
    let running = running_version(etcd).await;
    let mut spec = merged(
        json!({"replicas": members, "version": running, "storage": {"size": "1Gi"}}),
        extra,
    );
    if !tls.is_null() {
        spec["tls"] = tls;
    }
    if mode == Mode::MtlsAuth {
        spec["auth"] =
            json!({"enabled": true, "rootCredentialsSecretRef": {"name": format!("{name}-root")}});
    }
    let clusters = dynamic(client, ns, "EtcdCluster", "etcdclusters");
    create(
        &clusters,
        json!({
            "apiVersion": "etcd-operator.cozystack.io/v1alpha2",
            "kind": "EtcdCluster",
            "metadata": {"name": name, "namespace": ns},
            "spec": spec,
        }),
    )
    .await;
    patch_status(
        &clusters,
        name,
        json!({"status": {
            "observed": {"replicas": members, "version": running, "storage": {"size": "1Gi"}},
            "readyMembers": members,
            // Written only when true (the operator's omitempty).
            "authEnabled": (mode == Mode::MtlsAuth).then_some(true),
            "selector": format!("etcd-operator.cozystack.io/cluster={name}"),
        }}),
    )
    .await;

    // EtcdMembers and Pods pointing at the real members.
    let ids = etcd.member_ids().await.unwrap();
    let member_api = dynamic(client, ns, "EtcdMember", "etcdmembers");
    let pods: Api<Pod> = Api::namespaced(client.clone(), ns);
    for (i, member) in names.iter().enumerate() {
        add_member(
            &member_api,
            ns,
            name,
            member,
            json!({"memberID": format!("{:016x}", ids[i]), "podName": member, "isVoter": true}),
        )
        .await;
        add_pod(&pods, name, member, Some(&etcd.host(i))).await;
    }
}

/// A bare EtcdCluster object (3 replicas, no status): no members, nothing
/// behind it.
pub async fn create_cluster_object(api: &Api<kube::api::DynamicObject>, ns: &str, name: &str) {
    create(
        api,
        json!({
            "apiVersion": "etcd-operator.cozystack.io/v1alpha2",
            "kind": "EtcdCluster",
            "metadata": {"name": name, "namespace": ns},
            "spec": {"replicas": 3, "version": "3.6.16", "storage": {"size": "1Gi"}},
        }),
    )
    .await;
}

/// The labels the operator puts on a cluster's objects (its Services,
/// PodDisruptionBudget): `clusterLabels` in its controllers/helpers.go.
pub fn cluster_labels(cluster: &str) -> serde_json::Value {
    json!({
        "app.kubernetes.io/name": "etcd",
        "app.kubernetes.io/instance": cluster,
        "app.kubernetes.io/managed-by": "etcd-operator",
        "etcd-operator.cozystack.io/cluster": cluster,
    })
}

/// The labels the operator puts on a member's EtcdMember and Pod
/// (`memberLabels`); a voter's Pod also carries the role.
pub fn member_labels(cluster: &str, member: &str) -> serde_json::Value {
    let mut labels = cluster_labels(cluster);
    labels["app.kubernetes.io/component"] = json!(member);
    labels
}

/// An EtcdMember of `cluster` with the given status.
pub async fn add_member(
    api: &Api<kube::api::DynamicObject>,
    ns: &str,
    cluster: &str,
    member: &str,
    status: serde_json::Value,
) {
    create(
        api,
        json!({
            "apiVersion": "etcd-operator.cozystack.io/v1alpha2",
            "kind": "EtcdMember",
            "metadata": {"name": member, "namespace": ns,
                         "labels": member_labels(cluster, member)},
            "spec": {"clusterName": cluster, "version": "3.6.16", "storage": {"size": "1Gi"},
                     "clusterToken": format!("{ns}-{cluster}-testbed"),
                     "initialCluster": format!("{member}=http://{member}.{cluster}.{ns}.svc:2380")},
        }),
    )
    .await;
    patch_status(api, member, json!({"status": status})).await;
}

/// The Node every member Pod is bound to; `kubelet()` serves it.
pub const NODE: &str = "testbed-node";

static KUBELET: OnceCell<Kubelet> = OnceCell::const_new();

/// The fake kubelet of [`NODE`] on the binary's API server, started on
/// first use (watched like the server), so `--connect port-forward` works.
pub async fn kubelet() -> &'static Kubelet {
    KUBELET
        .get_or_init(|| async {
            let kubelet = apiserver()
                .await
                .start_kubelet(NODE)
                .await
                .unwrap_or_else(|e| panic!("test bed kubelet: {e}"));
            kubectl_etcd_testbed::apiserver::watchdog(
                &kubelet.pid().into_iter().collect::<Vec<_>>(),
                &[kubelet.dir()],
            )
            .expect("watchdog");
            kubelet
        })
        .await
}

/// Routes port-forwards to each member Pod of `fx` (port 2379) to that
/// member's own loopback address.
pub async fn forward_members(fx: &Fixture) -> &'static Kubelet {
    let kubelet = kubelet().await;
    for (i, pod) in fx.members.iter().enumerate() {
        kubelet
            .map(
                &fx.namespace,
                pod,
                2379,
                &format!("{}:2379", fx.etcd.host(i)),
            )
            .unwrap();
    }
    kubelet
}

/// Replaces `member`'s Pod with a voter's Pod whose one container is
/// `container` (a Pod's command and probes cannot be edited in place), and
/// gives it `ip` as the fixture's Pods have.
pub async fn replace_pod(
    pods: &Api<Pod>,
    cluster: &str,
    member: &str,
    ip: &str,
    container: serde_json::Value,
) {
    replace_pod_on(pods, cluster, member, ip, NODE, container).await
}

/// [`replace_pod`] on the node `node` (which need not exist).
pub async fn replace_pod_on(
    pods: &Api<Pod>,
    cluster: &str,
    member: &str,
    ip: &str,
    node: &str,
    container: serde_json::Value,
) {
    replace_pod_with(
        pods,
        cluster,
        member,
        ip,
        node,
        container,
        data_volume(member),
    )
    .await
}

/// [`replace_pod`] whose data volume is the folder `path` of its node (a
/// hostPath volume, as kubeadm's static Pods have).
pub async fn replace_pod_with_host_data(
    pods: &Api<Pod>,
    cluster: &str,
    member: &str,
    ip: &str,
    path: &str,
) {
    let container = json!({"name": "etcd", "image": "quay.io/coreos/etcd:v3.7.3",
                           "command": ["etcd", format!("--name={member}")]});
    let volume = json!({"name": "data", "hostPath": {"path": path, "type": "Directory"}});
    replace_pod_with(pods, cluster, member, ip, NODE, container, volume).await
}

async fn replace_pod_with(
    pods: &Api<Pod>,
    cluster: &str,
    member: &str,
    ip: &str,
    node: &str,
    container: serde_json::Value,
    volume: serde_json::Value,
) {
    pods.delete(
        member,
        &kube::api::DeleteParams {
            grace_period_seconds: Some(0),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    for _ in 0..50 {
        if pods.get_opt(member).await.unwrap().is_none() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let mut labels = member_labels(cluster, member);
    labels["etcd-operator.cozystack.io/role"] = json!("voter");
    let container = with_data_volume(container);
    let pod: Pod = serde_json::from_value(json!({
        "metadata": {"name": member, "labels": labels},
        "spec": {"hostname": member, "subdomain": cluster, "nodeName": node,
                 "containers": [container], "volumes": [volume]},
    }))
    .unwrap();
    pods.create(&PostParams::default(), &pod).await.unwrap();
    pods.patch_status(
        member,
        &PatchParams::default(),
        &Patch::Merge(json!({"status": {"phase": "Running", "podIP": ip, "podIPs": [{"ip": ip}]}})),
    )
    .await
    .unwrap();
}

/// `member`'s data volume, as etcd-operator names it.
fn data_volume(member: &str) -> serde_json::Value {
    json!({"name": "data", "persistentVolumeClaim": {"claimName": format!("data-{member}")}})
}

/// Where the member Pods keep etcd's data (`--data-dir`), as etcd-operator
/// mounts it.
pub const DATA_DIR: &str = "/var/lib/etcd";

/// `container` with the data volume mounted at [`DATA_DIR`] and
/// `--data-dir` in its command, as etcd-operator's Pods have them.
fn with_data_volume(mut container: serde_json::Value) -> serde_json::Value {
    container["volumeMounts"] = json!([{"name": "data", "mountPath": DATA_DIR}]);
    let mut command: Vec<serde_json::Value> = container["command"]
        .as_array()
        .cloned()
        .unwrap_or_else(|| vec![json!("etcd")]);
    command.push(json!(format!("--data-dir={DATA_DIR}")));
    container["command"] = json!(command);
    container
}

/// A member Pod (a voter's) whose status carries `ip`.
pub async fn add_pod(pods: &Api<Pod>, cluster: &str, member: &str, ip: Option<&str>) {
    let mut labels = member_labels(cluster, member);
    labels["etcd-operator.cozystack.io/role"] = json!("voter");
    // The operator's first arguments, as its Pods have them.
    let container = with_data_volume(json!({
        "name": "etcd",
        "image": "quay.io/coreos/etcd:v3.6.16",
        "command": ["etcd", format!("--name={member}")],
    }));
    let pod: Pod = serde_json::from_value(json!({
        "metadata": {"name": member, "labels": labels},
        "spec": {"hostname": member, "subdomain": cluster, "nodeName": NODE,
                 "containers": [container], "volumes": [data_volume(member)]},
    }))
    .unwrap();
    pods.create(&PostParams::default(), &pod).await.unwrap();
    if let Some(ip) = ip {
        pods.patch_status(
            member,
            &PatchParams::default(),
            &Patch::Merge(
                json!({"status": {"phase": "Running", "podIP": ip, "podIPs": [{"ip": ip}]}}),
            ),
        )
        .await
        .unwrap();
    }
}

pub async fn create_secret(api: &Api<Secret>, name: &str, type_: &str, data: &[(&str, String)]) {
    let string_data: serde_json::Map<String, serde_json::Value> = data
        .iter()
        .map(|(k, v)| (k.to_string(), json!(v)))
        .collect();
    let secret: Secret = serde_json::from_value(json!({
        "metadata": {"name": name}, "type": type_, "stringData": string_data,
    }))
    .unwrap();
    api.create(&PostParams::default(), &secret)
        .await
        .unwrap_or_else(|e| panic!("create Secret {name}: {e}"));
}

/// An `Api` for an etcd-operator kind.
pub fn dynamic(
    client: &Client,
    ns: &str,
    kind: &str,
    plural: &str,
) -> Api<kube::api::DynamicObject> {
    let resource = kube::api::ApiResource {
        group: "etcd-operator.cozystack.io".into(),
        version: "v1alpha2".into(),
        api_version: "etcd-operator.cozystack.io/v1alpha2".into(),
        kind: kind.into(),
        plural: plural.into(),
    };
    Api::namespaced_with(client.clone(), ns, &resource)
}

pub async fn create(api: &Api<kube::api::DynamicObject>, object: serde_json::Value) {
    let obj: kube::api::DynamicObject = serde_json::from_value(object.clone()).unwrap();
    api.create(&PostParams::default(), &obj)
        .await
        .unwrap_or_else(|e| panic!("create {object}: {e}"));
}

pub async fn patch_status(
    api: &Api<kube::api::DynamicObject>,
    name: &str,
    patch: serde_json::Value,
) {
    api.patch_status(name, &PatchParams::default(), &Patch::Merge(patch))
        .await
        .unwrap_or_else(|e| panic!("patch status of {name}: {e}"));
}

/// An EtcdCluster with no members (the traffic commands never reach etcd)
/// plus, when `services`, its client and headless Services as the operator
/// creates them (contract §2.1).
pub async fn services_fixture(client: &Client, ns: &str, name: &str, services: bool) {
    namespace(client, ns).await;
    create_cluster_object(
        &dynamic(client, ns, "EtcdCluster", "etcdclusters"),
        ns,
        name,
    )
    .await;
    if !services {
        return;
    }
    let api: Api<Service> = Api::namespaced(client.clone(), ns);
    let selector = json!({"etcd-operator.cozystack.io/cluster": name});
    let labels = cluster_labels(name);
    let headless: Service = serde_json::from_value(json!({
        "metadata": {"name": name, "labels": labels},
        "spec": {"clusterIP": "None", "publishNotReadyAddresses": true, "selector": selector,
                 "ports": [{"name": "client", "port": 2379}, {"name": "peer", "port": 2380}]},
    }))
    .unwrap();
    let client_svc: Service = serde_json::from_value(json!({
        "metadata": {"name": format!("{name}-client"), "labels": labels},
        "spec": {"type": "ClusterIP", "selector": selector,
                 "ports": [{"name": "client", "port": 2379}]},
    }))
    .unwrap();
    for svc in [headless, client_svc] {
        api.create(&PostParams::default(), &svc)
            .await
            .unwrap_or_else(|e| panic!("create Service {:?}: {e}", svc.metadata.name));
    }
}

/// The documents of a manifest file in the repository, or of a unit of
/// `deploy/` (a kustomization folder) as `kubectl apply -k` sends them.
pub fn manifest(path: &str) -> Vec<serde_json::Value> {
    use serde::Deserialize;
    let full = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    let text = if full.is_dir() {
        kustomize(&full)
    } else {
        std::fs::read_to_string(&full).unwrap()
    };
    serde_yaml::Deserializer::from_str(&text)
        .map(|doc| serde_json::Value::deserialize(doc).unwrap())
        .filter(|v| !v.is_null())
        .collect()
}

/// What `kubectl apply -k DIR` would send: `kubectl kustomize DIR` of the
/// test bed's real kubectl (its built-in kustomize), rendered once per
/// test binary (the in-cluster tests read the watcher's unit dozens of
/// times, and each render is a process).
pub fn kustomize(dir: &std::path::Path) -> String {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static RENDERED: OnceLock<Mutex<HashMap<PathBuf, String>>> = OnceLock::new();
    let rendered = RENDERED.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(text) = rendered.lock().unwrap().get(dir) {
        return text.clone();
    }
    let out = std::process::Command::new(super::plugin::kubectl_bin())
        .arg("kustomize")
        .arg(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "kubectl kustomize {}: {}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    rendered
        .lock()
        .unwrap()
        .insert(dir.to_path_buf(), text.clone());
    text
}

/// Binds ClusterRole `role` to ServiceAccount `account` in `ns`.
pub async fn bind(client: &Client, ns: &str, role: &str, account: &str) {
    let bindings: Api<k8s_openapi::api::rbac::v1::RoleBinding> =
        Api::namespaced(client.clone(), ns);
    bindings
        .create(&PostParams::default(), &binding(role, account, ns))
        .await
        .unwrap();
}

/// The RoleBinding `bind` creates: ClusterRole `role` for ServiceAccount
/// `account` of `ns`.
pub fn binding(role: &str, account: &str, ns: &str) -> k8s_openapi::api::rbac::v1::RoleBinding {
    serde_json::from_value(json!({
        "metadata": {"name": format!("{role}-{account}")},
        "subjects": [{"kind": "ServiceAccount", "name": account, "namespace": ns}],
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
    }))
    .unwrap()
}

/// The ClusterRole of a manifest file in `deploy/`.
pub fn manifest_role(path: &str) -> k8s_openapi::api::rbac::v1::ClusterRole {
    let doc = manifest(path)
        .into_iter()
        .find(|d| d["kind"] == "ClusterRole")
        .unwrap_or_else(|| panic!("{path} has no ClusterRole"));
    serde_json::from_value(doc).unwrap()
}

/// Creates ClusterRole `name` with `rules`, binds it to ServiceAccount
/// `account` in `ns`, and returns a kubeconfig that impersonates that
/// account.
pub async fn grant(
    client: &Client,
    ns: &str,
    name: &str,
    rules: Vec<k8s_openapi::api::rbac::v1::PolicyRule>,
    account: &str,
) -> PathBuf {
    let role = k8s_openapi::api::rbac::v1::ClusterRole {
        metadata: kube::api::ObjectMeta {
            name: Some(name.into()),
            ..Default::default()
        },
        rules: Some(rules),
        ..Default::default()
    };
    Api::<k8s_openapi::api::rbac::v1::ClusterRole>::all(client.clone())
        .create(&PostParams::default(), &role)
        .await
        .unwrap_or_else(|e| panic!("create ClusterRole {name}: {e}"));
    bind(client, ns, name, account).await;
    kubeconfig_as(
        &format!("{ns}-{account}.yaml"),
        ns,
        &format!("system:serviceaccount:{ns}:{account}"),
    )
}

/// The tool's arguments in plugin mode against the test bed's API
/// server: `--kubeconfig` and direct connections to the member Pods.
pub fn plugin(kubeconfig: &std::path::Path, rest: &[&str]) -> Vec<String> {
    let mut a = vec![
        format!("--kubeconfig={}", kubeconfig.display()),
        "--connect=direct".to_string(),
    ];
    a.extend(rest.iter().map(|s| s.to_string()));
    a
}

/// Seconds since the epoch, as the members' logs time their records.
pub fn now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

/// The entry of `ns/name` in a fleet report.
pub fn entry<'a>(doc: &'a serde_json::Value, ns: &str, name: &str) -> &'a serde_json::Value {
    doc["clusters"]
        .as_array()
        .and_then(|a| {
            a.iter()
                .find(|c| c["cluster"]["namespace"] == ns && c["cluster"]["name"] == name)
        })
        .unwrap_or_else(|| panic!("no cluster {ns}/{name} in {doc}"))
}

/// Asserts `defrags` (from `fx`'s members' own logs) hold each member of
/// `fx` exactly once.
pub fn every_member_once(fx: &Fixture, defrags: &[kubectl_etcd_testbed::LoggedDefrag]) {
    let mut members: Vec<usize> = defrags.iter().map(|d| d.member).collect();
    members.sort();
    assert_eq!(
        members,
        (0..fx.members.len()).collect::<Vec<_>>(),
        "{}/{}: {defrags:?}",
        fx.namespace,
        fx.name
    );
}

/// `deploy/watch/rbac.yaml`'s second ClusterRole (who may write EtcdDefrag
/// status: the watcher refuses to start without reading it) and a
/// ClusterRoleBinding of it for ServiceAccount `account` of `ns`.
pub fn processors_read(
    ns: &str,
    account: &str,
) -> (
    k8s_openapi::api::rbac::v1::ClusterRole,
    k8s_openapi::api::rbac::v1::ClusterRoleBinding,
) {
    let role = manifest("deploy/watch/rbac.yaml")
        .into_iter()
        .find(|d| {
            d["kind"] == "ClusterRole" && d["metadata"]["name"] == "kubectl-etcd-watch-processors"
        })
        .expect("deploy/watch/rbac.yaml has kubectl-etcd-watch-processors");
    let binding = json!({
        "metadata": {"name": format!("kubectl-etcd-watch-processors-{ns}-{account}")},
        "subjects": [{"kind": "ServiceAccount", "name": account, "namespace": ns}],
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                    "name": "kubectl-etcd-watch-processors"},
    });
    (
        serde_json::from_value(role).unwrap(),
        serde_json::from_value(binding).unwrap(),
    )
}

/// Grants [`processors_read`] (the ClusterRole once per API server).
pub async fn grant_processors_read(client: &Client, ns: &str, account: &str) {
    use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding};
    let (role, binding) = processors_read(ns, account);
    match Api::<ClusterRole>::all(client.clone())
        .create(&PostParams::default(), &role)
        .await
    {
        Ok(_) => {}
        Err(kube::Error::Api(e)) if e.code == 409 => {}
        Err(e) => panic!("create ClusterRole kubectl-etcd-watch-processors: {e}"),
    }
    Api::<ClusterRoleBinding>::all(client.clone())
        .create(&PostParams::default(), &binding)
        .await
        .unwrap();
}

/// Runs `line`, a `kubectl …` advice the tool printed, through a shell
/// with `kubeconfig`, as a user pastes it; fails the test when it fails.
pub fn paste(kubeconfig: &std::path::Path, line: &str) {
    let kubectl = kubectl_etcd_testbed::bins::kubectl().unwrap();
    let pasted = format!(
        "{} --kubeconfig {} {}",
        kubectl.display(),
        kubeconfig.display(),
        line.trim_start_matches("kubectl ")
    );
    let out = std::process::Command::new("sh")
        .args(["-c", &pasted])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{pasted}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A doctor report's `unread`, less the free space on the members' data
/// volumes that the fast suite cannot read: its API server's node proxy
/// refuses the fake kubelet's loopback address (`address not allowed`),
/// or, in a binary that started no fake kubelet, has no Node of that name;
/// the kubelet's volume statistics are read on the real node only
/// (`tests/node/node_room.rs`). Any other reason stays in.
pub fn unread_but_room(doc: &serde_json::Value) -> Vec<String> {
    doc["unread"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|u| u.as_str())
        .filter(|u| {
            !(u.starts_with("the free space on ")
                && (u.contains("address not allowed")
                    || u.contains(&format!("nodes \"{NODE}\" not found"))))
        })
        .map(str::to_string)
        .collect()
}

/// The etcd project's operator's kind (`operator.etcd.io/v1alpha1`).
pub fn etcdio_clusters(client: &Client, ns: &str) -> Api<kube::api::DynamicObject> {
    let resource = kube::api::ApiResource {
        group: "operator.etcd.io".into(),
        version: "v1alpha1".into(),
        api_version: "operator.etcd.io/v1alpha1".into(),
        kind: "EtcdCluster".into(),
        plural: "etcdclusters".into(),
    };
    Api::namespaced_with(client.clone(), ns, &resource)
}

/// The member names the etcd project's operator gives: its StatefulSet's
/// Pods, `<cluster>-<i>`.
pub fn etcdio_names(cluster: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{cluster}-{i}")).collect()
}

/// A real plain-HTTP etcd cluster (members `<name>-<i>`, logging at
/// `info`) published as the etcd project's operator publishes one
/// (`internal/controller/utils.go` at 77c7f10): EtcdCluster `name` with
/// `spec` merged into `{size, version}` and its status (members with hex
/// IDs, the leader, ready replicas, the `Available` condition), and a Pod
/// per member labelled `app=<name>,controller=<name>` with the operator's
/// arguments (`spec.etcdOptions` appended) and its data volume. No
/// EtcdMember, no client Service.
pub async fn etcdio_fixture(
    client: &Client,
    ns: &str,
    name: &str,
    members: usize,
    spec: serde_json::Value,
) -> Fixture {
    etcdio_fixture_as(client, ns, name, members, spec, Security::Plain).await
}

/// [`etcdio_fixture`] whose members serve mutual TLS on their client port,
/// as that operator's clusters will once its TLS lands (its issues 372 and
/// 373): `spec.tls` set, `https://` client URLs and the server
/// certificate's flags in `spec.etcdOptions`, and the Secret
/// `<name>-client-tls` (`ca.crt`, `tls.crt`, `tls.key`) it makes. The
/// members' certificates name `*.<name>.<ns>.svc.cluster.local`.
pub async fn etcdio_tls_fixture(client: &Client, ns: &str, name: &str, members: usize) -> Fixture {
    let options = json!([
        "--listen-client-urls=https://0.0.0.0:2379",
        format!("--advertise-client-urls=https://$(POD_NAME).{name}.$(POD_NAMESPACE).svc.cluster.local:2379"),
        "--cert-file=/etc/etcd/server/tls.crt",
        "--key-file=/etc/etcd/server/tls.key",
        "--client-cert-auth",
        "--trusted-ca-file=/etc/etcd/server/ca.crt",
    ]);
    let spec = json!({"tls": {"provider": "auto"}, "etcdOptions": options});
    let fx = etcdio_fixture_as(client, ns, name, members, spec, Security::MutualTls).await;
    let pki = fx.etcd.pki.as_ref().expect("a TLS cluster's certificates");
    let read = |p: &PathBuf| std::fs::read_to_string(p).unwrap();
    create_secret(
        &Api::namespaced(client.clone(), ns),
        &format!("{name}-client-tls"),
        "kubernetes.io/tls",
        &[
            ("ca.crt", read(&pki.ca)),
            ("tls.crt", read(&pki.client_cert)),
            ("tls.key", read(&pki.client_key)),
        ],
    )
    .await;
    fx
}

async fn etcdio_fixture_as(
    client: &Client,
    ns: &str,
    name: &str,
    members: usize,
    spec: serde_json::Value,
    security: Security,
) -> Fixture {
    namespace(client, ns).await;
    let names = etcdio_names(name, members);
    let mut cluster_spec = ClusterSpec::new(members, security).operator_style(name, ns, &names);
    cluster_spec
        .extra_sans
        .push(format!("*.{name}.{ns}.svc.cluster.local"));
    cluster_spec.log_level = "info";
    let etcd = Cluster::start(cluster_spec)
        .await
        .unwrap_or_else(|e| panic!("test bed: {e}"));
    let running = running_version(&etcd).await;
    let full = merged(
        json!({"size": members, "version": format!("v{running}")}),
        &spec,
    );
    let api = etcdio_clusters(client, ns);
    create(
        &api,
        json!({
            "apiVersion": "operator.etcd.io/v1alpha1",
            "kind": "EtcdCluster",
            "metadata": {"name": name, "namespace": ns},
            "spec": full,
        }),
    )
    .await;
    let ids = etcd.member_ids().await.unwrap();
    let leader = etcd.leader().await.unwrap();
    let statuses: Vec<serde_json::Value> = names
        .iter()
        .enumerate()
        .map(|(i, m)| {
            json!({"name": m, "id": format!("{:x}", ids[i]), "version": running,
                   "isHealthy": true, "isLeader": i == leader})
        })
        .collect();
    api.patch_status(
        name,
        &PatchParams::default(),
        &Patch::Merge(json!({"status": {
            "readyReplicas": members, "currentReplicas": members, "memberCount": members,
            "currentVersion": running, "leaderID": format!("{:x}", ids[leader]),
            "members": statuses,
            "conditions": [{"type": "Available", "status": "True", "reason": "ClusterAvailable",
                            "message": "Cluster is available", "lastTransitionTime": "2026-12-01T00:00:00Z"}],
        }})),
    )
    .await
    .unwrap_or_else(|e| panic!("patch status of {name}: {e}"));
    let options: Vec<serde_json::Value> =
        full["etcdOptions"].as_array().cloned().unwrap_or_default();
    let pods: Api<Pod> = Api::namespaced(client.clone(), ns);
    for (i, member) in names.iter().enumerate() {
        let mut pod = etcdio_pod(name, member, &format!("v{running}"), &options);
        pod["spec"]["nodeName"] = json!(NODE);
        let pod: Pod = serde_json::from_value(pod).unwrap();
        pods.create(&PostParams::default(), &pod).await.unwrap();
        let ip = etcd.host(i);
        pods.patch_status(
            member,
            &PatchParams::default(),
            &Patch::Merge(
                json!({"status": {"phase": "Running", "podIP": ip, "podIPs": [{"ip": ip}]}}),
            ),
        )
        .await
        .unwrap();
    }
    Fixture {
        namespace: ns.to_string(),
        name: name.to_string(),
        members: names,
        etcd,
    }
}

/// A member Pod as the etcd project's operator makes it (its StatefulSet's
/// template, `createOrPatchStatefulSet` at 77c7f10, with
/// `spec.storageSpec` set): what the fast suite's fixture publishes, and
/// what the real-node test holds the operator's own Pods to.
pub fn etcdio_pod(
    name: &str,
    member: &str,
    version: &str,
    options: &[serde_json::Value],
) -> serde_json::Value {
    let mut args = vec![
        json!("--name=$(POD_NAME)"),
        json!("--listen-peer-urls=http://0.0.0.0:2380"),
        json!("--listen-client-urls=http://0.0.0.0:2379"),
        json!(format!("--initial-advertise-peer-urls=http://$(POD_NAME).{name}.$(POD_NAMESPACE).svc.cluster.local:2380")),
        json!(format!("--advertise-client-urls=http://$(POD_NAME).{name}.$(POD_NAMESPACE).svc.cluster.local:2379")),
    ];
    args.extend(options.iter().cloned());
    json!({
        "metadata": {"name": member, "labels": {"app": name, "controller": name}},
        "spec": {"hostname": member, "subdomain": name,
                 "containers": [{
                     "name": "etcd", "image": format!("localhost/etcd:{version}"),
                     "command": ["/usr/local/bin/etcd"], "args": args,
                     "envFrom": [{"configMapRef": {"name": format!("{name}-state")}}],
                     "volumeMounts": [{"name": "etcd-data", "mountPath": "/var/lib/etcd", "subPathExpr": "$(POD_NAME)"}],
                 }],
                 "volumes": [{"name": "etcd-data", "persistentVolumeClaim": {"claimName": format!("etcd-data-{member}")}}]},
    })
}

/// The release member 0 of `etcd` runs, as its Status says (`3.7.3`): what
/// an operator records as the cluster's version.
async fn running_version(etcd: &Cluster) -> String {
    etcd.client(0)
        .await
        .expect("a client of member 0")
        .status()
        .await
        .expect("member 0's Status")
        .version()
        .to_string()
}

/// `base` with `extra`'s top-level fields set over it (a spec's defaults
/// and a test's own fields).
fn merged(mut base: serde_json::Value, extra: &serde_json::Value) -> serde_json::Value {
    if let (Some(base), Some(extra)) = (base.as_object_mut(), extra.as_object()) {
        for (k, v) in extra {
            base.insert(k.clone(), v.clone());
        }
    }
    base
}

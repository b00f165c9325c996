//! `defrag --watch` on the in-cluster code path, with exactly the RBAC of
//! `deploy/watch/rbac.yaml`: the binary runs in a private mount namespace
//! with a real ServiceAccount token (TokenRequest), the API server's CA and
//! the namespace at `/var/run/secrets/kubernetes.io/serviceaccount/`, and
//! `KUBERNETES_SERVICE_HOST/PORT` — no kubeconfig, no impersonation.
//!
//! With the manifest's rules the watcher takes the Lease, completes a run,
//! deletes it after its TTL, and lets a policy stamp a run and record its
//! event, with no request refused. Each rule (every verb of every resource)
//! then has a named test that removes only it and waits for the server to
//! refuse exactly that call, so a rule the code stopped needing, or a call
//! the manifest does not allow, fails a test by name.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::api::authentication::v1::TokenRequest;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::ServiceAccount;
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, PolicyRule, RoleBinding};
use kube::api::{Api, PostParams};
use kube::Client;
use serde_json::json;
use support::k8s::*;
use support::watch::{create_spec, events, runs, wait_phase};
use tokio::io::{AsyncBufReadExt, BufReader};

const MANIFEST: &str = "deploy/watch";
const ACCOUNT: &str = "kubectl-etcd-watch";

/// Every (resource, verb) the manifest grants, in its order.
fn granted(rules: &[PolicyRule]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for rule in rules {
        for resource in rule.resources.as_deref().unwrap_or_default() {
            for verb in &rule.verbs {
                out.push((resource.clone(), verb.clone()));
            }
        }
    }
    out
}

/// The manifest's rules without `verb` on `resource`.
fn without(rules: &[PolicyRule], resource: &str, verb: &str) -> Vec<PolicyRule> {
    let mut out = Vec::new();
    for rule in rules {
        let resources = rule.resources.clone().unwrap_or_default();
        if !resources.iter().any(|r| r == resource) {
            out.push(rule.clone());
            continue;
        }
        let others: Vec<String> = resources.into_iter().filter(|r| r != resource).collect();
        if !others.is_empty() {
            out.push(PolicyRule {
                resources: Some(others),
                ..rule.clone()
            });
        }
        let verbs: Vec<String> = rule.verbs.iter().filter(|v| *v != verb).cloned().collect();
        if !verbs.is_empty() {
            out.push(PolicyRule {
                resources: Some(vec![resource.to_string()]),
                verbs,
                ..rule.clone()
            });
        }
    }
    out
}

/// The manifest's ServiceAccount and RoleBinding in `ns`, bound to a
/// ClusterRole `role` holding `rules`; returns a token for the account.
async fn service_account(client: &Client, ns: &str, role: &str, rules: Vec<PolicyRule>) -> String {
    account_of(client, ns, MANIFEST, ACCOUNT, role, rules).await
}

/// Creates ClusterRole `role` with `rules`, then the ServiceAccount and
/// RoleBinding of `manifest` in `ns` (bound to `role`), and returns a
/// TokenRequest token for `account`.
async fn account_of(
    client: &Client,
    ns: &str,
    manifest_path: &str,
    account: &str,
    role: &str,
    rules: Vec<PolicyRule>,
) -> String {
    let cluster_role = ClusterRole {
        metadata: kube::api::ObjectMeta {
            name: Some(role.into()),
            ..Default::default()
        },
        rules: Some(rules),
        ..Default::default()
    };
    Api::<ClusterRole>::all(client.clone())
        .create(&PostParams::default(), &cluster_role)
        .await
        .unwrap_or_else(|e| panic!("create ClusterRole {role}: {e}"));
    for mut doc in manifest(manifest_path) {
        doc["metadata"]["namespace"] = json!(ns);
        match doc["kind"].as_str().unwrap() {
            "ServiceAccount" => {
                let account: ServiceAccount = serde_json::from_value(doc).unwrap();
                Api::<ServiceAccount>::namespaced(client.clone(), ns)
                    .create(&PostParams::default(), &account)
                    .await
                    .unwrap();
            }
            "RoleBinding" => {
                doc["roleRef"]["name"] = json!(role);
                for subject in doc["subjects"].as_array_mut().unwrap() {
                    subject["namespace"] = json!(ns);
                }
                let binding: RoleBinding = serde_json::from_value(doc).unwrap();
                Api::<RoleBinding>::namespaced(client.clone(), ns)
                    .create(&PostParams::default(), &binding)
                    .await
                    .unwrap();
            }
            // The manifest's other ClusterRoles (the RBAC reads that rule
            // out another processor) as they are, once per API server, and
            // their ClusterRoleBindings for this namespace's account.
            "ClusterRole"
                if doc["metadata"]["name"]
                    != manifest_role(manifest_path)
                        .metadata
                        .name
                        .as_deref()
                        .unwrap() =>
            {
                let other: ClusterRole = serde_json::from_value(doc).unwrap();
                match Api::<ClusterRole>::all(client.clone())
                    .create(&PostParams::default(), &other)
                    .await
                {
                    Ok(_) => {}
                    Err(kube::Error::Api(e)) if e.code == 409 => {}
                    Err(e) => panic!("create ClusterRole: {e}"),
                }
            }
            "ClusterRoleBinding" => {
                let name = format!("{}-{ns}", doc["metadata"]["name"].as_str().unwrap());
                doc["metadata"]["name"] = json!(name);
                for subject in doc["subjects"].as_array_mut().unwrap() {
                    subject["namespace"] = json!(ns);
                }
                let binding: ClusterRoleBinding = serde_json::from_value(doc).unwrap();
                Api::<ClusterRoleBinding>::all(client.clone())
                    .create(&PostParams::default(), &binding)
                    .await
                    .unwrap();
            }
            _ => {}
        }
    }
    token(client, ns, account).await
}

/// A TokenRequest token for ServiceAccount `account` of `ns`, for an hour.
async fn token(client: &Client, ns: &str, account: &str) -> String {
    let request: TokenRequest = serde_json::from_value(json!({
        "apiVersion": "authentication.k8s.io/v1",
        "kind": "TokenRequest",
        "spec": {"expirationSeconds": 3600},
    }))
    .unwrap();
    let issued: TokenRequest = Api::<ServiceAccount>::namespaced(client.clone(), ns)
        .create_subresource("token", account, &PostParams::default(), &request)
        .await
        .expect("TokenRequest for the ServiceAccount");
    issued.status.and_then(|s| s.token).expect("token issued")
}

/// Mounts a tmpfs on /run in a private mount namespace (only this process
/// sees it), writes the ServiceAccount files where a Pod has them, and
/// execs the command.
const IN_POD: &str = r#"set -e
mount -t tmpfs -o mode=0755,size=1m tmpfs /run
d=/var/run/secrets/kubernetes.io/serviceaccount
mkdir -p "$d"
printf '%s' "$SA_TOKEN" > "$d/token"
printf '%s' "$SA_CA" > "$d/ca.crt"
printf '%s' "$SA_NAMESPACE" > "$d/namespace"
unset SA_TOKEN SA_CA SA_NAMESPACE
exec "$@"
"#;

/// The watcher as the Deployment's Pod runs it (its arguments, so no `-n`:
/// the namespace file decides), its stderr collected.
struct InPod {
    child: tokio::process::Child,
    stderr: Arc<Mutex<String>>,
}

/// The container arguments of `deploy/watch`'s Deployment, listening
/// for metrics on a free loopback port instead.
fn deployment_args() -> Vec<String> {
    let doc = manifest(MANIFEST)
        .into_iter()
        .find(|d| d["kind"] == "Deployment")
        .unwrap();
    let args = &doc["spec"]["template"]["spec"]["containers"][0]["args"];
    args.as_array()
        .unwrap()
        .iter()
        .map(|a| {
            let a = a.as_str().unwrap();
            if a.starts_with("--metrics-address=") {
                "--metrics-address=127.0.0.1:0".to_string()
            } else {
                a.to_string()
            }
        })
        .collect()
}

async fn in_pod(token: &str, ns: &str) -> InPod {
    let mut args = deployment_args();
    args.extend(["--lease-duration=3s".to_string(), "-v".to_string()]);
    let mut command = in_pod_command(token, ns, &args).await;
    command.stdout(Stdio::null()).stderr(Stdio::piped());
    let mut child = command
        .spawn()
        .expect("unshare (util-linux) runs the watcher in a mount namespace");
    let stderr = Arc::new(Mutex::new(String::new()));
    let pipe = child.stderr.take().unwrap();
    tokio::spawn({
        let stderr = stderr.clone();
        async move {
            let mut lines = BufReader::new(pipe).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let mut all = stderr.lock().unwrap();
                all.push_str(&line);
                all.push('\n');
            }
        }
    });
    InPod { child, stderr }
}

/// The tool with `args` as a Pod of ServiceAccount `token` in `ns` runs
/// it: in a private mount namespace holding the ServiceAccount files, with
/// the in-cluster environment and nothing else to find a cluster by.
async fn in_pod_command(token: &str, ns: &str, args: &[String]) -> tokio::process::Command {
    let server = apiserver().await;
    let port = server.url.rsplit(':').next().unwrap().trim_end_matches('/');
    // Root can make a mount namespace; anyone else maps themselves to root
    // in a user namespace first.
    let root = std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(1) == Some("0"));
    let mut command = tokio::process::Command::new("unshare");
    if !root {
        command.arg("--map-root-user");
    }
    command
        .args(["--mount", "--propagation", "private", "--", "sh", "-c"])
        .arg(IN_POD)
        .arg("in-pod")
        .arg(env!("CARGO_BIN_EXE_kubectl-etcd"))
        .args(args)
        .env_remove("KUBECONFIG")
        .env("HOME", "/nonexistent")
        .env("KUBERNETES_SERVICE_HOST", "127.0.0.1")
        .env("KUBERNETES_SERVICE_PORT", port)
        .env("SA_TOKEN", token)
        .env("SA_CA", server.ca_pem())
        .env("SA_NAMESPACE", ns)
        .stdin(Stdio::null())
        .kill_on_drop(true);
    command
}

impl InPod {
    fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }
}

/// What every case does: a run with a TTL of 3 s (completed, then deleted)
/// and a policy stamping a run every 2 s (created, its event recorded, its
/// status written).
async fn scenario(client: &Client, ns: &str) {
    create_spec(
        client,
        ns,
        "once",
        json!({"clusterRef": {"name": "db"}, "rule": {"all": true}, "ttlSecondsAfterFinished": 3}),
    )
    .await;
    create(
        &dynamic(client, ns, "EtcdDefragPolicy", "etcddefragpolicies"),
        json!({
            "apiVersion": "etcd-operator.cozystack.io/v1alpha2",
            "kind": "EtcdDefragPolicy",
            "metadata": {"name": "often", "namespace": ns},
            "spec": {"clusterRef": {"name": "db"}, "schedule": "@every 2s", "rule": {"all": true}, "historyLimit": 1},
        }),
    )
    .await;
}

/// With exactly the manifest's rules, on the in-cluster path: the Lease is
/// held, a run completes and is deleted after its TTL, a policy stamps a
/// run that completes and records `StampedRun`, nothing is refused; on
/// SIGTERM the watcher exits 0 and hands the Lease back.
#[tokio::test(flavor = "multi_thread")]
async fn in_cluster_with_the_manifest_rules_does_everything() {
    let client = admin().await;
    let ns = "incluster";
    let _fx = fixture(&client, ns, "db", Mode::Mtls).await;
    let rules = manifest_role(MANIFEST).rules.unwrap();
    let token = service_account(&client, ns, "kubectl-etcd-watch-incluster", rules).await;
    let mut watcher = in_pod(&token, ns).await;
    scenario(&client, ns).await;

    // The TTL'd run completes, then is gone.
    let status = wait_phase(&client, ns, "once", &["Complete", "Failed"]).await;
    assert_eq!(status["phase"], "Complete", "{status}");
    assert_eq!(status["defragmented"], 3, "{status}");
    wait_for(Duration::from_secs(30), "the TTL'd run deleted", || async {
        runs(&client, ns).get_opt("once").await.unwrap().is_none()
    })
    .await;

    // The policy's runs complete; its status and event are written.
    let policies = dynamic(&client, ns, "EtcdDefragPolicy", "etcddefragpolicies");
    wait_for(
        Duration::from_secs(60),
        "a stamped run completed",
        || async {
            let policy = policies.get("often").await.unwrap();
            policy.data["status"]["lastSuccessfulTime"].is_string()
        },
    )
    .await;
    let stamped = runs(&client, ns).list(&Default::default()).await.unwrap();
    let stamped = stamped.items.iter().find(|r| {
        r.metadata
            .name
            .as_deref()
            .unwrap_or("")
            .starts_with("often-")
    });
    let stamped = stamped
        .expect("a stamped run")
        .metadata
        .name
        .clone()
        .unwrap();
    let policy_events = events(&client, ns, "often").await;
    assert!(
        policy_events
            .iter()
            .any(|(reason, _)| reason == "StampedRun"),
        "{policy_events:?} (stamped {stamped})"
    );

    // The Lease names this watcher.
    let leases: Api<Lease> = Api::namespaced(client.clone(), ns);
    let lease = leases.get(ACCOUNT).await.unwrap();
    let holder = lease.spec.unwrap().holder_identity.unwrap_or_default();
    assert!(!holder.is_empty());

    let stderr = watcher.stderr();
    assert!(
        !stderr.contains("forbidden") && !stderr.contains("cannot "),
        "a request was refused:\n{stderr}"
    );
    // --log-format json: every line on stderr is one object with a
    // timestamp, a level and a message, the watcher's own messages too.
    let lines: Vec<serde_json::Value> = stderr
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    for line in &lines {
        assert!(line["timestamp"].is_string(), "{line}");
        assert!(line["level"].is_string(), "{line}");
    }
    assert!(
        lines.iter().any(|l| l["message"]
            .as_str()
            .unwrap_or("")
            .contains(&format!("watching EtcdDefrag objects in namespace {ns}"))),
        "the namespace comes from the ServiceAccount mount:\n{stderr}"
    );

    // SIGTERM: exit 0, Lease handed back.
    let pid = watcher.child.id().unwrap();
    signal(pid, "TERM");
    let code = tokio::time::timeout(Duration::from_secs(30), watcher.child.wait())
        .await
        .expect("the watcher stops on SIGTERM")
        .unwrap();
    assert_eq!(code.code(), Some(0), "{}", watcher.stderr());
    let lease = leases.get(ACCOUNT).await.unwrap();
    let holder = lease.spec.unwrap().holder_identity.unwrap_or_default();
    assert!(holder.is_empty(), "Lease still held by {holder}");
}

/// Sends SIGTERM (or another signal) to the process: `unshare` and `sh`
/// exec, so the pid is the watcher's.
fn signal(pid: u32, name: &str) {
    let status = std::process::Command::new("kill")
        .arg(format!("-{name}"))
        .arg(pid.to_string())
        .status()
        .unwrap();
    assert!(status.success());
}

async fn wait_for<F, Fut>(limit: Duration, what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = tokio::time::Instant::now() + limit;
    while !check().await {
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// Removes `verb` on `resource` from the manifest's rules and runs the
/// scenario: the server must refuse exactly that call (its message names
/// the verb and resource, which the watcher logs or exits with; the
/// owner-reference admission check names neither, and the watcher adds
/// which rule it wants).
async fn refused_without(resource: &str, verb: &str) {
    let client = admin().await;
    let ns = format!("without-{}-{verb}", resource.replace('/', "-"));
    let _fx = fixture(&client, &ns, "db", Mode::Mtls).await;
    let rules = manifest_role(MANIFEST).rules.unwrap();
    assert!(
        granted(&rules).contains(&(resource.to_string(), verb.to_string())),
        "{MANIFEST} no longer grants {verb} on {resource}: drop its test"
    );
    let token = service_account(
        &client,
        &ns,
        &format!("kubectl-etcd-{ns}"),
        without(&rules, resource, verb),
    )
    .await;
    let watcher = in_pod(&token, &ns).await;
    scenario(&client, &ns).await;
    let (want, want_plain) = if resource.ends_with("/finalizers") {
        let text = format!("needs {verb} on {resource}");
        (text.clone(), text)
    } else {
        (
            format!("cannot {verb} resource \\\"{resource}\\\""),
            format!("cannot {verb} resource \"{resource}\""),
        )
    };
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let stderr = watcher.stderr();
        if stderr.contains(&want) || stderr.contains(&want_plain) {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "without {verb} on {resource} nothing was refused in 60 s: the rule looks unneeded\n{stderr}"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// Without the manifest's RBAC read (its second ClusterRole and the
/// ClusterRoleBinding of it), the watcher cannot rule out the operator's
/// own EtcdDefrag controller and refuses to start (exit 2), naming what
/// to grant; nothing is written.
#[tokio::test(flavor = "multi_thread")]
async fn without_the_rbac_read_the_watcher_refuses_to_start() {
    let client = admin().await;
    let ns = "without-processors-read";
    namespace(&client, ns).await;
    let rules = manifest_role(MANIFEST).rules.unwrap();
    // The main role only: account_of for a manifest of its first two
    // documents (the ClusterRole and the ServiceAccount), bound in `ns`.
    let token = {
        let cluster_role = ClusterRole {
            metadata: kube::api::ObjectMeta {
                name: Some(format!("kubectl-etcd-{ns}")),
                ..Default::default()
            },
            rules: Some(rules),
            ..Default::default()
        };
        Api::<ClusterRole>::all(client.clone())
            .create(&PostParams::default(), &cluster_role)
            .await
            .unwrap();
        let account: ServiceAccount =
            serde_json::from_value(json!({"metadata": {"name": ACCOUNT, "namespace": ns}}))
                .unwrap();
        Api::<ServiceAccount>::namespaced(client.clone(), ns)
            .create(&PostParams::default(), &account)
            .await
            .unwrap();
        bind(&client, ns, &format!("kubectl-etcd-{ns}"), ACCOUNT).await;
        token(&client, ns, ACCOUNT).await
    };
    let out = tokio::time::timeout(
        Duration::from_secs(60),
        in_pod_command(&token, ns, &deployment_args())
            .await
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output(),
    )
    .await
    .expect("the watcher refuses at once")
    .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "cannot tell whether the etcd-operator's own EtcdDefrag controller is installed"
        ) && stderr.contains("kubectl-etcd-watch-processors"),
        "{stderr}"
    );
    let leases: Api<Lease> = Api::namespaced(client.clone(), ns);
    assert!(
        leases.get_opt(ACCOUNT).await.unwrap().is_none(),
        "a Lease was taken"
    );
}

/// One named test per (resource, verb) of the manifest.
macro_rules! every_rule_is_needed {
    ($($name:ident: $resource:literal $verb:literal,)*) => {
        $(
            #[tokio::test(flavor = "multi_thread")]
            async fn $name() {
                refused_without($resource, $verb).await;
            }
        )*
        const CASES: &[(&str, &str)] = &[$(($resource, $verb)),*];
    };
}

every_rule_is_needed! {
    needs_etcddefrags_get: "etcddefrags" "get",
    needs_etcddefrags_list: "etcddefrags" "list",
    needs_etcddefrags_watch: "etcddefrags" "watch",
    needs_etcddefrags_delete: "etcddefrags" "delete",
    needs_etcddefrags_patch: "etcddefrags" "patch",
    needs_etcddefrags_create: "etcddefrags" "create",
    needs_etcddefrags_status_update: "etcddefrags/status" "update",
    needs_etcddefragpolicies_get: "etcddefragpolicies" "get",
    needs_etcddefragpolicies_list: "etcddefragpolicies" "list",
    needs_etcddefragpolicies_watch: "etcddefragpolicies" "watch",
    needs_etcddefragpolicies_status_update: "etcddefragpolicies/status" "update",
    needs_etcddefragpolicies_finalizers_update: "etcddefragpolicies/finalizers" "update",
    needs_etcdclusters_get: "etcdclusters" "get",
    needs_etcdmembers_list: "etcdmembers" "list",
    needs_etcdsnapshots_list: "etcdsnapshots" "list",
    needs_pods_get: "pods" "get",
    needs_secrets_get: "secrets" "get",
    needs_events_create: "events" "create",
    needs_leases_get: "leases" "get",
    needs_leases_create: "leases" "create",
    needs_leases_update: "leases" "update",
}

/// The named tests above cover the manifest exactly: a rule added to it
/// without a test, or a test left for a rule removed, fails here.
#[test]
fn every_rule_of_the_manifest_has_a_named_test() {
    let mut granted = granted(&manifest_role(MANIFEST).rules.unwrap());
    granted.sort();
    let mut tested: Vec<(String, String)> = CASES
        .iter()
        .map(|(r, v)| (r.to_string(), v.to_string()))
        .collect();
    tested.sort();
    assert_eq!(granted, tested);
}

const CRONJOB: &str = "deploy/cronjob";

/// The CronJob's Pod spec.
fn cronjob_pod() -> serde_json::Value {
    let doc = manifest(CRONJOB)
        .into_iter()
        .find(|d| d["kind"] == "CronJob")
        .unwrap();
    assert_eq!(
        doc["spec"]["concurrencyPolicy"], "Forbid",
        "never two sweeps at once"
    );
    let job = &doc["spec"]["jobTemplate"]["spec"];
    assert_eq!(job["backoffLimit"], 0, "a refusal (exit 1) is not retried");
    let pod = job["template"]["spec"].clone();
    assert_eq!(pod["restartPolicy"], "Never");
    pod
}

/// The CronJob applied to the real API server (server-side), and its
/// command run as its Pod would: in-cluster, as its own
/// ServiceAccount bound (by its RoleBinding) to exactly the role its unit
/// creates (kubectl-etcd-operate), stdin not a terminal. It defragments the
/// fragmented cluster without a prompt (exit 0, a JSON report on stdout);
/// with a member down the gate refuses, nothing is touched, and it exits 1
/// with the reason as the last line of its log — a failed Job.
#[tokio::test(flavor = "multi_thread")]
async fn the_cronjob_command_runs_in_cluster_with_its_service_account() {
    let client = admin().await;
    let ns = "cronjob";
    let pod = cronjob_pod();
    let args: Vec<String> = pod["containers"][0]["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect();
    let cluster = args[1].clone();
    let fx = fixture_logged(&client, ns, &cluster, Mode::Mtls).await;
    fx.etcd.fragment(400 * 1024 * 1024, 0.25).await.unwrap();
    let rules = manifest_role(CRONJOB).rules.unwrap();
    let account = pod["serviceAccountName"].as_str().unwrap();
    let token = account_of(
        &client,
        ns,
        CRONJOB,
        account,
        "kubectl-etcd-status-cronjob",
        rules,
    )
    .await;

    // The CronJob itself, applied for real (server-side apply) next to its
    // ServiceAccount and RoleBinding, and read back as the server keeps it.
    let mut cron = manifest(CRONJOB)
        .into_iter()
        .find(|d| d["kind"] == "CronJob")
        .unwrap();
    cron["metadata"]["namespace"] = json!(ns);
    let name = cron["metadata"]["name"].as_str().unwrap().to_string();
    let cronjobs: Api<k8s_openapi::api::batch::v1::CronJob> = Api::namespaced(client.clone(), ns);
    cronjobs
        .patch(
            &name,
            &kube::api::PatchParams::apply("kubectl-etcd-tests"),
            &kube::api::Patch::Apply(&cron),
        )
        .await
        .unwrap_or_else(|e| panic!("server-side apply of the CronJob: {e}"));
    let kept = cronjobs.get(&name).await.unwrap().spec;
    assert_eq!(kept.concurrency_policy.as_deref(), Some("Forbid"));
    assert_eq!(
        kept.job_template
            .spec
            .unwrap()
            .template
            .spec
            .unwrap()
            .service_account_name
            .as_deref(),
        Some(account)
    );

    let run = in_pod_command(&token, ns, &args)
        .await
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(0), "{stdout}\n{stderr}");
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let outcomes: Vec<&str> = doc["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes, ["Defragmented"; 3], "{doc}");
    assert_eq!(fx.etcd.logged_defrags().len(), 3);

    fx.etcd.pause(0).unwrap();
    let refused = in_pod_command(&token, ns, &args)
        .await
        .output()
        .await
        .unwrap();
    fx.etcd.resume(0).unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(1), "{stderr}");
    assert_eq!(
        fx.etcd.logged_defrags().len(),
        3,
        "a refused run touches nothing"
    );
    let last = stderr.lines().last().unwrap_or_default();
    assert!(
        last.contains(&fx.members[0]),
        "the Job's log ends with why, naming the member: {stderr}"
    );
}

//! A real kube-apiserver on loopback (built by `testbed/build.sh` from
//! `k8s.io/kubernetes`), on its own single-member etcd, with RBAC on, an
//! admin identity in `system:masters`, and the etcd-operator CRDs installed
//! and established.
//!
//! The flag set follows what the Kubernetes project's envtest uses to run an
//! API server without a cluster. There is no scheduler or
//! controller-manager: objects are real, but nothing acts on them. A fake
//! kubelet (`crate::kubelet`) can be started for one Node, so that
//! `pods/portforward` reaches member Pods bound to it.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, PostParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Client, Config};

use crate::bins::KubeRelease;
use crate::certs::{signing_key, Ca, Issued};
use crate::cluster::{Cluster, ClusterSpec, Security};
use crate::ports::free_port;
use crate::Result;

/// A running API server. Dropping it kills the server and its etcd.
pub struct ApiServer {
    pub url: String,
    dir: tempfile::TempDir,
    ca_pem: String,
    admin_cert: String,
    admin_key: String,
    /// The serving certificate a kubelet of this test bed presents (signed
    /// by the server's CA, for 127.0.0.1), which `--kubelet-certificate-authority`
    /// verifies.
    pub(crate) kubelet_serving: Issued,
    /// The kube-apiserver process; behind a lock so that a server shared
    /// from a `static` can be restarted (`restart`).
    child: std::sync::Mutex<Option<Child>>,
    /// How it was started, for `restart`.
    binary: PathBuf,
    args: Vec<String>,
    log_path: PathBuf,
    etcd: Cluster,
}

/// Where the server listens and what it admits. The default is the
/// loopback server the fast suite uses: no ServiceAccount admission (no
/// controller-manager makes tokens), kubelets on 127.0.0.1.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// The address it binds to and advertises (the `kubernetes` Service's
    /// endpoint).
    pub bind: String,
    pub service_cidr: String,
    /// Admit Pods with ServiceAccount tokens (a real node mounts them).
    pub service_accounts: bool,
    /// The addresses a kubelet's serving certificate is for (one
    /// certificate for every node's kubelet).
    pub kubelet_ips: Vec<String>,
    /// More names and addresses for the serving certificate (the
    /// `kubernetes` Service's ClusterIP and DNS names).
    pub extra_names: Vec<String>,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            bind: "127.0.0.1".into(),
            service_cidr: "10.0.0.0/24".into(),
            service_accounts: false,
            kubelet_ips: vec!["127.0.0.1".into()],
            extra_names: Vec::new(),
        }
    }
}

/// A context to write into a kubeconfig.
#[derive(Debug, Clone)]
pub struct Context {
    pub name: String,
    pub namespace: Option<String>,
    /// Impersonate this user (`as:` in the kubeconfig).
    pub impersonate: Option<String>,
}

/// One context of a kubeconfig whose contexts reach several API servers
/// ([`kubeconfig_across`]).
pub struct ContextOn<'a> {
    pub name: &'a str,
    /// The API server whose CA and admin identity the context uses.
    pub server: &'a ApiServer,
    /// Where the context reaches it, when not at its own address (a delay
    /// proxy in front of it, or an address nothing listens on).
    pub url: Option<String>,
    pub namespace: Option<&'a str>,
}

/// A kubeconfig whose contexts each reach their own API server as its
/// admin (a cluster and a user per context, named after it); the first
/// context is current.
pub fn kubeconfig_across(contexts: &[ContextOn]) -> String {
    let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
    let mut clusters = String::from("clusters:\n");
    let mut users = String::from("users:\n");
    let mut named = String::from("contexts:\n");
    for c in contexts {
        let url = c.url.clone().unwrap_or_else(|| c.server.url.clone());
        clusters.push_str(&format!(
            "- name: {0}\n  cluster:\n    server: {url}\n    certificate-authority-data: {1}\n",
            c.name,
            b64(&c.server.ca_pem)
        ));
        users.push_str(&format!(
            "- name: {0}\n  user:\n    client-certificate-data: {1}\n    client-key-data: {2}\n",
            c.name,
            b64(&c.server.admin_cert),
            b64(&c.server.admin_key)
        ));
        named.push_str(&format!(
            "- name: {0}\n  context:\n    cluster: {0}\n    user: {0}\n",
            c.name
        ));
        if let Some(ns) = c.namespace {
            named.push_str(&format!("    namespace: {ns}\n"));
        }
    }
    let current = contexts
        .first()
        .map(|c| format!("current-context: {}\n", c.name))
        .unwrap_or_default();
    format!("apiVersion: v1\nkind: Config\n{clusters}{users}{named}{current}")
}

impl ApiServer {
    /// Starts etcd and kube-apiserver, waits for `/readyz`, installs the CRDs
    /// found in `crd_files`, and waits until each is Established.
    /// `feature_gates` is passed as `--feature-gates` when non-empty.
    pub async fn start(crd_files: &[PathBuf], feature_gates: &str) -> Result<ApiServer> {
        ApiServer::start_release(KubeRelease::Current, crd_files, feature_gates).await
    }

    /// [`ApiServer::start`] with a chosen kube-apiserver release.
    pub async fn start_release(
        release: KubeRelease,
        crd_files: &[PathBuf],
        feature_gates: &str,
    ) -> Result<ApiServer> {
        ApiServer::start_with(release, crd_files, feature_gates, None).await
    }

    /// [`ApiServer::start_release`], writing an audit log to `audit_log`
    /// when given, for counting who asks what: level Metadata, stages
    /// ResponseStarted (only long-running requests such as watches have it)
    /// and ResponseComplete — the stages that name an impersonated user.
    pub async fn start_with(
        release: KubeRelease,
        crd_files: &[PathBuf],
        feature_gates: &str,
        audit_log: Option<&Path>,
    ) -> Result<ApiServer> {
        ApiServer::start_for(
            release,
            crd_files,
            feature_gates,
            audit_log,
            &ServerOptions::default(),
        )
        .await
    }

    /// [`ApiServer::start_with`] with the addresses and admission a real
    /// node needs (`ServerOptions`).
    pub async fn start_for(
        release: KubeRelease,
        crd_files: &[PathBuf],
        feature_gates: &str,
        audit_log: Option<&Path>,
        options: &ServerOptions,
    ) -> Result<ApiServer> {
        let binary = crate::bins::kube_apiserver(release)?;
        let etcd = Cluster::start(ClusterSpec::new(1, Security::Plain)).await?;
        let dir = tempfile::Builder::new()
            .prefix("kubectl-etcd-apiserver-")
            .tempdir()
            .map_err(|e| e.to_string())?;
        let port = free_port()?;
        let ca = Ca::new("kubectl-etcd testbed kubernetes CA")?;
        let mut hosts = vec!["127.0.0.1", "localhost"];
        for name in std::iter::once(&options.bind).chain(&options.extra_names) {
            if !hosts.contains(&name.as_str()) {
                hosts.push(name);
            }
        }
        let serving = ca.issue("kube-apiserver", None, &hosts)?;
        let admin = ca.issue("testbed-admin", Some("system:masters"), &[])?;
        // The API server's identity towards kubelets (pods/portforward and
        // the other node proxies), and a kubelet's own serving certificate:
        // both from the same CA, so each side verifies the other.
        let kubelet_client = ca.issue("kube-apiserver-kubelet-client", None, &[])?;
        let kubelet_ips: Vec<&str> = options.kubelet_ips.iter().map(String::as_str).collect();
        let kubelet_serving = ca.issue("testbed-kubelet", None, &kubelet_ips)?;
        let (sa_private, sa_public) = signing_key()?;
        let write = |name: &str, text: &str| -> Result<String> {
            let path = dir.path().join(name);
            std::fs::write(&path, text).map_err(|e| format!("write {}: {e}", path.display()))?;
            Ok(path.display().to_string())
        };
        let ca_file = write("ca.crt", &ca.pem())?;
        let cert_file = write("apiserver.crt", &serving.cert_pem)?;
        let key_file = write("apiserver.key", &serving.key_pem)?;
        let sa_key = write("sa.key", &sa_private)?;
        let sa_pub = write("sa.pub", &sa_public)?;
        let kubelet_cert = write("kubelet-client.crt", &kubelet_client.cert_pem)?;
        let kubelet_key = write("kubelet-client.key", &kubelet_client.key_pem)?;
        let mut args = vec![
            format!("--etcd-servers={}", etcd.endpoints()[0]),
            format!("--cert-dir={}", dir.path().display()),
            format!("--tls-cert-file={cert_file}"),
            format!("--tls-private-key-file={key_file}"),
            format!("--secure-port={port}"),
            format!("--bind-address={}", options.bind),
            format!("--advertise-address={}", options.bind),
            format!("--service-cluster-ip-range={}", options.service_cidr),
            "--allow-privileged=true".into(),
            "--authorization-mode=RBAC".into(),
            format!("--client-ca-file={ca_file}"),
            format!("--service-account-issuer=https://{}:{port}/", options.bind),
            format!("--service-account-key-file={sa_pub}"),
            format!("--service-account-signing-key-file={sa_key}"),
            // As OpenShift and hardened clusters run it: an owner reference
            // with blockOwnerDeletion needs `update` on the owner's
            // finalizers, so the RBAC manifests are proven against it.
            "--enable-admission-plugins=OwnerReferencesPermissionEnforcement".into(),
            "--enable-priority-and-fairness=false".into(),
            format!("--kubelet-client-certificate={kubelet_cert}"),
            format!("--kubelet-client-key={kubelet_key}"),
            format!("--kubelet-certificate-authority={ca_file}"),
            "--kubelet-preferred-address-types=InternalIP".into(),
            "--v=0".into(),
        ];
        // From 1.37 an advertised loopback address is refused by the
        // endpoint reconciler (it would publish 127.0.0.1 as the
        // `kubernetes` Service's endpoint); on loopback nothing routes to
        // that Service, so it keeps no endpoints. The real node binds a
        // routable address and keeps the reconciler.
        if options.bind.starts_with("127.") || options.bind == "::1" {
            args.push("--endpoint-reconciler-type=none".into());
        }
        if !options.service_accounts {
            args.push("--disable-admission-plugins=ServiceAccount".into());
        }
        if !feature_gates.is_empty() {
            args.push(format!("--feature-gates={feature_gates}"));
        }
        if let Some(audit_log) = audit_log {
            let policy = write(
                "audit-policy.yaml",
                "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived, Panic]\nrules:\n  - level: Metadata\n",
            )?;
            args.push(format!("--audit-policy-file={policy}"));
            args.push(format!("--audit-log-path={}", audit_log.display()));
            args.push("--audit-log-format=json".into());
            args.push("--audit-log-maxbackup=0".into());
        }
        let log_path = dir.path().join("kube-apiserver.log");
        let log = File::create(&log_path).map_err(|e| e.to_string())?;
        let log2 = log.try_clone().map_err(|e| e.to_string())?;
        let child = Command::new(&binary)
            .args(&args)
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(log2)
            .spawn()
            .map_err(|e| format!("spawn {}: {e}", binary.display()))?;
        let server = ApiServer {
            url: format!("https://{}:{port}", options.bind),
            dir,
            ca_pem: ca.pem(),
            admin_cert: admin.cert_pem,
            admin_key: admin.key_pem,
            kubelet_serving,
            child: std::sync::Mutex::new(Some(child)),
            binary,
            args,
            log_path: log_path.clone(),
            etcd,
        };
        server.wait_ready().await?;
        server.install_crds(crd_files).await?;
        Ok(server)
    }

    /// Stops kube-apiserver (SIGKILL), and after `down` starts it again
    /// with the same flags, port and etcd, waiting until it is ready.
    /// Returns the new process's pid (for a watchdog of its own).
    pub async fn restart(&self, down: Duration) -> Result<u32> {
        if let Some(mut child) = self.lock_child().take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        tokio::time::sleep(down).await;
        let log = File::options()
            .append(true)
            .open(&self.log_path)
            .map_err(|e| e.to_string())?;
        let log2 = log.try_clone().map_err(|e| e.to_string())?;
        let child = Command::new(&self.binary)
            .args(&self.args)
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(log2)
            .spawn()
            .map_err(|e| format!("spawn {}: {e}", self.binary.display()))?;
        let pid = child.id();
        *self.lock_child() = Some(child);
        self.wait_ready().await?;
        Ok(pid)
    }

    fn lock_child(&self) -> std::sync::MutexGuard<'_, Option<Child>> {
        self.child.lock().unwrap_or_else(|e| e.into_inner())
    }

    async fn wait_ready(&self) -> Result<()> {
        let log = self.log_path.as_path();
        let client = self.admin_client(None).await?;
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let request = http::Request::get("/readyz")
                .body(Vec::new())
                .map_err(|e| e.to_string())?;
            if let Ok(text) = client.request_text(request).await {
                if text.trim() == "ok" {
                    return Ok(());
                }
            }
            let exited = self
                .lock_child()
                .as_mut()
                .and_then(|c| c.try_wait().ok().flatten());
            if let Some(status) = exited {
                let tail = std::fs::read_to_string(log).unwrap_or_default();
                let tail: Vec<&str> = tail.lines().rev().take(20).collect();
                return Err(format!(
                    "kube-apiserver exited ({status}); last lines:\n{}",
                    tail.into_iter().rev().collect::<Vec<_>>().join("\n")
                ));
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "kube-apiserver not ready after 120s; log: {}",
                    log.display()
                ));
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    async fn install_crds(&self, files: &[PathBuf]) -> Result<()> {
        let client = self.admin_client(None).await?;
        let api: Api<CustomResourceDefinition> = Api::all(client);
        // A later file that defines the same CRD replaces an earlier one.
        let mut crds: Vec<(String, CustomResourceDefinition)> = Vec::new();
        for file in files {
            let text = std::fs::read_to_string(file)
                .map_err(|e| format!("read CRD {}: {e}", file.display()))?;
            let crd: CustomResourceDefinition = serde_yaml::from_str(&text)
                .map_err(|e| format!("parse CRD {}: {e}", file.display()))?;
            let name = crd.metadata.name.clone().unwrap_or_default();
            crds.retain(|(n, _)| *n != name);
            crds.push((name, crd));
        }
        let mut names = Vec::new();
        for (name, crd) in crds {
            api.create(&PostParams::default(), &crd)
                .await
                .map_err(|e| format!("create CRD {name}: {e}"))?;
            names.push(name);
        }
        let deadline = Instant::now() + Duration::from_secs(60);
        for name in names {
            loop {
                let crd = api.get(&name).await.map_err(|e| e.to_string())?;
                let established = crd
                    .status
                    .and_then(|s| s.conditions)
                    .unwrap_or_default()
                    .iter()
                    .any(|c| c.type_ == "Established" && c.status == "True");
                if established {
                    break;
                }
                if Instant::now() > deadline {
                    return Err(format!("CRD {name} not Established after 60s"));
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
        Ok(())
    }

    /// A kubeconfig with one cluster, the admin user, and `contexts` (the
    /// first is current).
    pub fn kubeconfig_yaml(&self, contexts: &[Context]) -> String {
        let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
        let mut text = format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: testbed\n  cluster:\n    server: {}\n    certificate-authority-data: {}\nusers:\n- name: admin\n  user:\n    client-certificate-data: {}\n    client-key-data: {}\n",
            self.url,
            b64(&self.ca_pem),
            b64(&self.admin_cert),
            b64(&self.admin_key)
        );
        for c in contexts.iter().filter(|c| c.impersonate.is_some()) {
            text.push_str(&format!(
                "- name: as-{}\n  user:\n    client-certificate-data: {}\n    client-key-data: {}\n    as: {}\n",
                c.name,
                b64(&self.admin_cert),
                b64(&self.admin_key),
                c.impersonate.clone().unwrap_or_default()
            ));
        }
        text.push_str("contexts:\n");
        for c in contexts {
            let user = match &c.impersonate {
                Some(_) => format!("as-{}", c.name),
                None => "admin".to_string(),
            };
            text.push_str(&format!(
                "- name: {}\n  context:\n    cluster: testbed\n    user: {user}\n",
                c.name
            ));
            if let Some(ns) = &c.namespace {
                text.push_str(&format!("    namespace: {ns}\n"));
            }
        }
        if let Some(first) = contexts.first() {
            text.push_str(&format!("current-context: {}\n", first.name));
        }
        text
    }

    /// Writes a kubeconfig into the server's folder and returns its path.
    pub fn write_kubeconfig(&self, file: &str, contexts: &[Context]) -> Result<PathBuf> {
        let path = self.dir.path().join(file);
        std::fs::write(&path, self.kubeconfig_yaml(contexts)).map_err(|e| e.to_string())?;
        Ok(path)
    }

    /// A client with the admin identity (optionally impersonating a user).
    pub async fn admin_client(&self, impersonate: Option<&str>) -> Result<Client> {
        let contexts = [Context {
            name: "admin".into(),
            namespace: None,
            impersonate: impersonate.map(str::to_string),
        }];
        let kubeconfig =
            Kubeconfig::from_yaml(&self.kubeconfig_yaml(&contexts)).map_err(|e| e.to_string())?;
        let config = Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
            .await
            .map_err(|e| e.to_string())?;
        Client::try_from(config).map_err(|e| e.to_string())
    }

    /// The folder holding the server's certificates and keys (`ca.crt`,
    /// `sa.key`, …).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The etcd this API server stores its objects in.
    pub fn etcd(&self) -> &Cluster {
        &self.etcd
    }

    /// The PEM of the CA that signed the server's certificate (what a Pod
    /// finds in `ca.crt` of its ServiceAccount mount).
    pub fn ca_pem(&self) -> &str {
        &self.ca_pem
    }

    /// The pids of the server and its etcd, for a watchdog.
    pub fn pids(&self) -> Vec<u32> {
        let mut pids: Vec<u32> = self.lock_child().iter().map(|c| c.id()).collect();
        pids.extend(self.etcd.members.iter().filter_map(|m| m.pid()));
        pids
    }

    /// The folders the server and its etcd write to, for a watchdog.
    pub fn dirs(&self) -> Vec<PathBuf> {
        vec![self.dir.path().to_path_buf(), self.etcd.dir().to_path_buf()]
    }
}

impl Drop for ApiServer {
    fn drop(&mut self) {
        if let Some(mut child) = self.lock_child().take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The shell line of a watchdog's loop that keeps in `$pids` only the
/// processes still there.
pub(crate) const FORGET_GONE: &str = r#"alive=""; for p in $pids; do kill -0 "$p" 2>/dev/null && alive="$alive $p"; done; pids=$alive"#;

/// Starts a small process that SIGKILLs `pids` and removes `dirs` as soon as
/// this process is gone. For servers shared by a whole test binary (held in
/// a `static`, which is never dropped), so that nothing outlives the tests.
///
/// A pid seen gone meanwhile (a server stopped by its test, or restarted)
/// is forgotten, not killed at the end: by then the system may have given
/// its number to another process (`pid_max` can be as low as 32768, and a
/// test binary that runs many suites lives long).
pub fn watchdog(pids: &[u32], dirs: &[PathBuf]) -> Result<()> {
    let list: Vec<String> = pids.iter().map(|p| p.to_string()).collect();
    let script = format!(
        r#"pids="{list}"
while kill -0 {parent} 2>/dev/null; do
  {forget}
  sleep 0.5
done
[ -z "$pids" ] || kill -9 $pids 2>/dev/null
sleep 0.5
rm -rf -- "$@"
exit 0"#,
        list = list.join(" "),
        parent = std::process::id(),
        forget = FORGET_GONE,
    );
    Command::new("sh")
        .arg("-c")
        .arg(&script)
        .arg("watchdog")
        .args(dirs)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map(|_| ())
        .map_err(|e| format!("spawn watchdog: {e}"))
}

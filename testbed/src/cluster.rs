//! Starting, faulting and stopping real etcd clusters on loopback.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use etcd_client::{Certificate, Client, ConnectOptions, Identity, TlsOptions};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

use crate::bins::{self, EtcdVersion};
use crate::certs::{self, Pki};
use crate::delay::{Counts, Delay, Proxy};
use crate::ports::{free_loopback_ip, free_port};
use crate::Result;

/// How clients reach the members.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Security {
    /// http, no auth.
    Plain,
    /// https; any client may connect.
    ServerTls,
    /// https; clients must present a certificate signed by the CA.
    MutualTls,
    /// Mutual TLS plus etcd auth with a `root` user and a password.
    MutualTlsAuth,
}

impl Security {
    pub fn parse(text: &str) -> Result<Security> {
        match text {
            "plain" => Ok(Security::Plain),
            "tls" => Ok(Security::ServerTls),
            "mtls" => Ok(Security::MutualTls),
            "mtls-auth" => Ok(Security::MutualTlsAuth),
            other => Err(format!(
                "unknown security {other:?}: plain, tls, mtls or mtls-auth"
            )),
        }
    }

    fn tls(self) -> bool {
        self != Security::Plain
    }
}

/// What to start.
#[derive(Debug, Clone)]
pub struct ClusterSpec {
    pub members: usize,
    pub security: Security,
    pub version: EtcdVersion,
    /// `--quota-backend-bytes` for every member.
    pub quota_backend_bytes: Option<u64>,
    /// Keep the data and certificates here instead of a temporary folder.
    pub dir: Option<PathBuf>,
    /// Member names (default m0, m1, …).
    pub names: Option<Vec<String>>,
    /// Give each member its own loopback address with etcd's standard ports
    /// 2379/2380, as a member Pod has (plugin-mode tests dial `<ip>:2379`).
    pub standard_ports: bool,
    /// Extra subject alternative names on the server certificate (e.g. the
    /// operator's `*.<cluster>.<ns>.svc`).
    pub extra_sans: Vec<String>,
    /// etcd's `--log-level` (default `warn`; `info` records defragmentations).
    pub log_level: &'static str,
    /// More flags for every member (e.g. `--snapshot-count=100`).
    pub extra_args: Vec<String>,
    /// Put each member's client port behind a delay proxy: members
    /// advertise the proxy, so whoever discovers them through MemberList
    /// is as far away as this (the test bed's own clients go direct).
    pub delay: Option<Delay>,
}

impl ClusterSpec {
    pub fn new(members: usize, security: Security) -> Self {
        ClusterSpec {
            members,
            security,
            version: EtcdVersion::V3_7,
            quota_backend_bytes: None,
            dir: None,
            names: None,
            standard_ports: false,
            extra_sans: Vec::new(),
            log_level: "warn",
            extra_args: Vec::new(),
            delay: None,
        }
    }

    /// Members named like EtcdMembers, each on its own loopback address with
    /// ports 2379/2380, with `*.<cluster>.<namespace>.svc` in the certificate.
    pub fn operator_style(mut self, cluster: &str, namespace: &str, names: &[String]) -> Self {
        self.members = names.len();
        self.names = Some(names.to_vec());
        self.standard_ports = true;
        self.extra_sans = vec![
            format!("*.{cluster}.{namespace}.svc"),
            format!("{cluster}-client.{namespace}.svc"),
        ];
        self
    }

    pub fn version(mut self, version: EtcdVersion) -> Self {
        self.version = version;
        self
    }

    pub fn quota(mut self, bytes: u64) -> Self {
        self.quota_backend_bytes = Some(bytes);
        self
    }

    /// Members as far from their clients as `delay` says.
    pub fn delay(mut self, delay: Delay) -> Self {
        self.delay = Some(delay);
        self
    }

    /// One more flag for every member.
    pub fn arg(mut self, flag: &str) -> Self {
        self.extra_args.push(flag.to_string());
        self
    }
}

/// One member process.
#[derive(Debug)]
pub struct Member {
    pub name: String,
    /// The URL it advertises: clients reach it there.
    pub client_url: String,
    /// Where it listens: `client_url`, unless a delay proxy is in front.
    pub listen_client_url: String,
    pub peer_url: String,
    args: Vec<String>,
    log: PathBuf,
    child: Option<Child>,
    /// Another etcd release than the cluster's (a member joined mid-upgrade).
    binary: Option<PathBuf>,
}

impl Member {
    /// The process id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(|c| c.id())
    }
}

/// A running cluster. Dropping it kills every member.
#[derive(Debug)]
pub struct Cluster {
    pub spec: ClusterSpec,
    pub members: Vec<Member>,
    pub pki: Option<Pki>,
    /// The root password when auth is on.
    pub password: Option<String>,
    /// The delay proxies in front of the members, in member order.
    proxies: Vec<Proxy>,
    /// The round trips through them, counted across all of them.
    rounds: std::sync::Arc<crate::delay::Rounds>,
    etcd: PathBuf,
    dir: PathBuf,
    _temp: Option<tempfile::TempDir>,
}

/// The password of the `root` user on auth clusters.
pub const ROOT_PASSWORD: &str = "testbed-root-password";

impl Cluster {
    /// Starts the members, waits until they agree on a leader, and turns auth
    /// on when asked. Fails (and kills what it started) after 60 s.
    pub async fn start(spec: ClusterSpec) -> Result<Cluster> {
        let etcd = bins::etcd(spec.version)?;
        let (temp, dir) = match &spec.dir {
            Some(d) => {
                std::fs::create_dir_all(d).map_err(|e| format!("create {}: {e}", d.display()))?;
                (None, d.clone())
            }
            None => {
                let t = tempfile::Builder::new()
                    .prefix("kubectl-etcd-testbed-")
                    .tempdir()
                    .map_err(|e| format!("tempdir: {e}"))?;
                let p = t.path().to_path_buf();
                (Some(t), p)
            }
        };
        let mut hosts: Vec<String> = vec!["127.0.0.1".into(), "localhost".into()];
        hosts.extend(spec.extra_sans.iter().cloned());
        let pki = if spec.security.tls() {
            let hosts: Vec<&str> = hosts.iter().map(String::as_str).collect();
            Some(certs::generate(&dir, &hosts)?)
        } else {
            None
        };
        let scheme = if spec.security.tls() { "https" } else { "http" };
        let mut members = Vec::new();
        let mut proxies = Vec::new();
        let rounds = std::sync::Arc::new(crate::delay::Rounds::new(
            spec.delay.unwrap_or_default().each_way,
        ));
        for i in 0..spec.members {
            let name = spec
                .names
                .as_ref()
                .and_then(|n| n.get(i).cloned())
                .unwrap_or_else(|| format!("m{i}"));
            let (mut client_url, peer_url) = if spec.standard_ports {
                let ip = free_loopback_ip()?;
                (format!("{scheme}://{ip}:2379"), format!("http://{ip}:2380"))
            } else {
                (
                    format!("{scheme}://127.0.0.1:{}", free_port()?),
                    format!("http://127.0.0.1:{}", free_port()?),
                )
            };
            // Behind a proxy, the member listens on another port of the same
            // host, and the proxy takes the advertised one.
            let listen_client_url = match spec.delay {
                Some(_) => {
                    let (host, _) = host_port(&client_url)?;
                    format!("{scheme}://{host}:{}", free_port()?)
                }
                None => client_url.clone(),
            };
            // On 127.0.0.1 the proxy binds first, on a port the kernel
            // picks, and that port is advertised: a port picked and bound
            // later can be taken in between (CI's `Address already in
            // use`). On a member's own address it takes 2379, checked free
            // with the address.
            if let (Some(delay), false) = (spec.delay, spec.standard_ports) {
                let (up_host, up_port) = host_port(&listen_client_url)?;
                let upstream = format!("{up_host}:{up_port}")
                    .parse::<std::net::SocketAddr>()
                    .map_err(|e| format!("{up_host}:{up_port}: {e}"))?;
                let any = "127.0.0.1:0"
                    .parse::<std::net::SocketAddr>()
                    .map_err(|e| e.to_string())?;
                let proxy = Proxy::start_counting(any, upstream, delay, rounds.clone()).await?;
                client_url = format!("{scheme}://127.0.0.1:{}", proxy.addr().port());
                proxies.push(proxy);
            }
            members.push(Member {
                log: dir.join(format!("{name}.log")),
                name,
                client_url,
                listen_client_url,
                peer_url,
                args: vec![],
                child: None,
                binary: None,
            });
        }
        let initial: Vec<String> = members
            .iter()
            .map(|m| format!("{}={}", m.name, m.peer_url))
            .collect();
        let token = format!("testbed-{}", std::process::id());
        for m in &mut members {
            m.args = member_args(
                &spec,
                pki.as_ref(),
                &dir,
                m,
                &initial.join(","),
                "new",
                &token,
            );
        }
        if let (Some(delay), true) = (spec.delay, spec.standard_ports) {
            for m in &members {
                let (host, port) = host_port(&m.client_url)?;
                let (up_host, up_port) = host_port(&m.listen_client_url)?;
                let addr = |h: &str, p: u16| {
                    format!("{h}:{p}")
                        .parse::<std::net::SocketAddr>()
                        .map_err(|e| format!("{h}:{p}: {e}"))
                };
                let (listen, upstream) = (addr(&host, port)?, addr(&up_host, up_port)?);
                proxies.push(Proxy::start_counting(listen, upstream, delay, rounds.clone()).await?);
            }
        }
        let mut cluster = Cluster {
            spec,
            members,
            pki,
            password: None,
            proxies,
            rounds,
            etcd,
            dir,
            _temp: temp,
        };
        for i in 0..cluster.members.len() {
            cluster.spawn(i)?;
        }
        cluster.wait_ready(Duration::from_secs(60)).await?;
        if cluster.spec.security == Security::MutualTlsAuth {
            cluster.enable_auth().await?;
        }
        Ok(cluster)
    }

    fn spawn(&mut self, i: usize) -> Result<()> {
        let m = &mut self.members[i];
        let etcd = m.binary.clone().unwrap_or_else(|| self.etcd.clone());
        let log = File::options()
            .create(true)
            .append(true)
            .open(&m.log)
            .map_err(|e| format!("open {}: {e}", m.log.display()))?;
        let log2 = log.try_clone().map_err(|e| e.to_string())?;
        let child = Command::new(&etcd)
            .args(&m.args)
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(log2)
            .spawn()
            .map_err(|e| format!("spawn {}: {e}", etcd.display()))?;
        m.child = Some(child);
        Ok(())
    }

    /// A member that is not in the cluster yet, for `member add`: free
    /// loopback URLs and a command line joining this cluster. Returns its
    /// index; `join` starts it.
    pub fn plan_member(&mut self, name: &str) -> Result<usize> {
        let scheme = if self.spec.security.tls() {
            "https"
        } else {
            "http"
        };
        // Not behind a proxy, even in a delayed cluster.
        let client_url = format!("{scheme}://127.0.0.1:{}", free_port()?);
        let m = Member {
            name: name.to_string(),
            listen_client_url: client_url.clone(),
            client_url,
            peer_url: format!("http://127.0.0.1:{}", free_port()?),
            log: self.dir.join(format!("{name}.log")),
            args: vec![],
            child: None,
            binary: None,
        };
        self.members.push(m);
        Ok(self.members.len() - 1)
    }

    /// [`Cluster::join`] with another etcd release than the cluster's, as
    /// during a rolling upgrade.
    pub fn join_version(
        &mut self,
        i: usize,
        initial_cluster: &str,
        version: EtcdVersion,
    ) -> Result<()> {
        self.members[i].binary = Some(bins::etcd(version)?);
        self.join(i, initial_cluster)
    }

    /// Starts planned member `i` with `--initial-cluster-state=existing`
    /// and `initial_cluster` (`name=peer,…`, as `member add` prints it).
    pub fn join(&mut self, i: usize, initial_cluster: &str) -> Result<()> {
        let token = format!("testbed-{}", std::process::id());
        self.members[i].args = member_args(
            &self.spec,
            self.pki.as_ref(),
            &self.dir,
            &self.members[i],
            initial_cluster,
            "existing",
            &token,
        );
        self.spawn(i)
    }

    /// The folder holding data, logs and certificates.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Every member's client URL.
    pub fn endpoints(&self) -> Vec<String> {
        self.members.iter().map(|m| m.client_url.clone()).collect()
    }

    /// Flags that give kubectl-etcd (or etcdctl) this cluster's TLS and
    /// auth, without `--endpoints`.
    pub fn security_flags(&self) -> Vec<String> {
        let mut flags = Vec::new();
        if let Some(p) = &self.pki {
            flags.push(format!("--cacert={}", p.ca.display()));
            if matches!(
                self.spec.security,
                Security::MutualTls | Security::MutualTlsAuth
            ) {
                flags.push(format!("--cert={}", p.client_cert.display()));
                flags.push(format!("--key={}", p.client_key.display()));
            }
        }
        if let Some(pw) = &self.password {
            flags.push("--user=root".to_string());
            flags.push(format!("--password={pw}"));
        }
        flags
    }

    /// The same as `ETCDCTL_*` variables, with all endpoints.
    pub fn env(&self) -> Vec<(String, String)> {
        let mut env = vec![("ETCDCTL_ENDPOINTS".to_string(), self.endpoints().join(","))];
        if let Some(p) = &self.pki {
            env.push(("ETCDCTL_CACERT".into(), p.ca.display().to_string()));
            if matches!(
                self.spec.security,
                Security::MutualTls | Security::MutualTlsAuth
            ) {
                env.push(("ETCDCTL_CERT".into(), p.client_cert.display().to_string()));
                env.push(("ETCDCTL_KEY".into(), p.client_key.display().to_string()));
            }
        }
        if let Some(pw) = &self.password {
            env.push(("ETCDCTL_USER".into(), "root".into()));
            env.push(("ETCDCTL_PASSWORD".into(), pw.clone()));
        }
        env
    }

    /// A client connected to member `i` only (10 s request timeout).
    pub async fn client(&self, i: usize) -> Result<Client> {
        self.client_with_timeout(i, Duration::from_secs(10)).await
    }

    /// A client connected to member `i` only, with a request timeout.
    pub async fn client_with_timeout(&self, i: usize, timeout: Duration) -> Result<Client> {
        let mut options = ConnectOptions::new()
            .with_connect_timeout(Duration::from_secs(2))
            .with_timeout(timeout);
        if let Some(p) = &self.pki {
            let ca = std::fs::read(&p.ca).map_err(|e| e.to_string())?;
            // Every test-bed certificate names localhost; members on their
            // own loopback address are not named by IP (as in a real
            // operator-managed cluster, whose certificates name DNS names).
            let mut tls = TlsOptions::new()
                .ca_certificate(Certificate::from_pem(ca))
                .domain_name("localhost");
            if matches!(
                self.spec.security,
                Security::MutualTls | Security::MutualTlsAuth
            ) {
                let cert = std::fs::read(&p.client_cert).map_err(|e| e.to_string())?;
                let key = std::fs::read(&p.client_key).map_err(|e| e.to_string())?;
                tls = tls.identity(Identity::from_pem(cert, key));
            }
            options = options.with_tls(tls);
        }
        if let Some(pw) = &self.password {
            options = options.with_user("root", pw.clone());
        }
        Client::connect([self.members[i].listen_client_url.as_str()], Some(options))
            .await
            .map_err(|e| format!("connect to {}: {e}", self.members[i].name))
    }

    /// Member ids, in member order.
    pub async fn member_ids(&self) -> Result<Vec<u64>> {
        let mut ids = Vec::new();
        for i in 0..self.members.len() {
            let mut c = self.client(i).await?;
            let s = c.status().await.map_err(|e| e.to_string())?;
            ids.push(s.header().map(|h| h.member_id()).unwrap_or(0));
        }
        Ok(ids)
    }

    /// Waits until every running (not paused) member agrees on one leader;
    /// returns the leader's index in `members`.
    pub async fn wait_ready(&self, limit: Duration) -> Result<usize> {
        let deadline = Instant::now() + limit;
        loop {
            let last = match self.leader_view().await {
                Ok(Some(i)) => return Ok(i),
                Ok(None) => "members do not agree on a leader yet".to_string(),
                Err(e) => e,
            };
            if Instant::now() > deadline {
                return Err(format!(
                    "cluster not ready after {limit:?}: {last}; logs in {}",
                    self.dir.display()
                ));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    async fn leader_view(&self) -> Result<Option<usize>> {
        let mut leaders = Vec::new();
        let mut ids = Vec::new();
        for i in 0..self.members.len() {
            let mut c = self.client(i).await?;
            let s = tokio::time::timeout(Duration::from_secs(2), c.status())
                .await
                .map_err(|_| format!("{} status timed out", self.members[i].name))?
                .map_err(|e| format!("{} status: {e}", self.members[i].name))?;
            leaders.push(s.leader());
            ids.push(s.header().map(|h| h.member_id()).unwrap_or(0));
        }
        let first = leaders[0];
        if first == 0 || leaders.iter().any(|&l| l != first) {
            return Ok(None);
        }
        Ok(ids.iter().position(|&id| id == first))
    }

    /// What crossed each member's delay proxy so far (empty without one).
    pub fn traffic(&self) -> Vec<Counts> {
        self.proxies.iter().map(Proxy::counts).collect()
    }

    /// The round trips made through the members' delay proxies since the
    /// last [`Cluster::reset_round_trips`], counted across members by
    /// causal depth ([`crate::delay::Rounds`]; meaningful only with a
    /// delay).
    pub fn round_trips(&self) -> u64 {
        self.rounds.deepest()
    }

    /// Starts counting [`Cluster::round_trips`] afresh.
    pub fn reset_round_trips(&self) {
        self.rounds.reset();
    }

    /// The loopback address member `i` listens on.
    pub fn host(&self, i: usize) -> String {
        host_port(&self.members[i].client_url)
            .map(|(h, _)| h)
            .unwrap_or_default()
    }

    /// Index of the current leader (members must be running).
    pub async fn leader(&self) -> Result<usize> {
        self.wait_ready(Duration::from_secs(20)).await
    }

    async fn enable_auth(&mut self) -> Result<()> {
        let mut c = self.client(0).await?;
        let _ = c.role_add("root").await;
        c.user_add("root", ROOT_PASSWORD, None)
            .await
            .map_err(|e| format!("user add root: {e}"))?;
        c.user_grant_role("root", "root")
            .await
            .map_err(|e| format!("grant root: {e}"))?;
        c.auth_enable()
            .await
            .map_err(|e| format!("auth enable: {e}"))?;
        self.password = Some(ROOT_PASSWORD.to_string());
        Ok(())
    }

    fn signal(&self, i: usize, signal: Signal) -> Result<()> {
        let pid = self.members[i]
            .pid()
            .ok_or_else(|| format!("{} is not running", self.members[i].name))?;
        let pid = i32::try_from(pid).map_err(|e| e.to_string())?;
        kill(Pid::from_raw(pid), signal).map_err(|e| format!("kill -{signal:?}: {e}"))
    }

    /// SIGSTOP: the member hangs, as if partitioned from everyone.
    pub fn pause(&self, i: usize) -> Result<()> {
        self.signal(i, Signal::SIGSTOP)
    }

    /// SIGCONT after `pause`.
    pub fn resume(&self, i: usize) -> Result<()> {
        self.signal(i, Signal::SIGCONT)
    }

    /// SIGKILL and reap member `i`.
    pub fn kill(&mut self, i: usize) -> Result<()> {
        if let Some(mut child) = self.members[i].child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        Ok(())
    }

    /// Starts member `i` again on its data directory.
    pub fn restart(&mut self, i: usize) -> Result<()> {
        self.kill(i)?;
        self.spawn(i)
    }

    /// Restarts every member, one at a time and each once the cluster is
    /// ready again, running with `--quota-backend-bytes=bytes` from now on.
    pub async fn requota(&mut self, bytes: u64) -> Result<()> {
        self.spec.quota_backend_bytes = Some(bytes);
        for i in 0..self.members.len() {
            let args = &mut self.members[i].args;
            args.retain(|a| !a.starts_with("--quota-backend-bytes="));
            args.push(format!("--quota-backend-bytes={bytes}"));
            self.restart(i)?;
            self.wait_ready(Duration::from_secs(30)).await?;
        }
        Ok(())
    }

    /// Fragments every member's backend: writes `total_bytes` of 3800-byte
    /// values (one page each), keeps `keep` of them, deletes the rest and
    /// compacts (physically), so that a defrag has `(1 - keep) * total`
    /// to reclaim. Writes go in 128-op transactions, 8 at a time. Returns
    /// the compacted revision.
    pub async fn fragment(&self, total_bytes: u64, keep: f64) -> Result<i64> {
        let count = (total_bytes / FRAGMENT_VALUE as u64) as usize;
        let kept = ((count as f64) * keep) as usize;
        self.write_delete_compact(count, kept)
            .await
            .map_err(|e| self.post_mortem(e))
    }

    /// `error` with what the members' side says of it: whether each
    /// member's process still runs, its last log lines (a member that
    /// died of a full disk or memory says so there) and the room left
    /// where the members keep their data.
    pub fn post_mortem(&self, error: String) -> String {
        let mut text = format!("{error}\n");
        for (i, m) in self.members.iter().enumerate() {
            let state = match m.pid() {
                None => "not running".to_string(),
                Some(pid) => match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
                    // The state follows the command's closing parenthesis.
                    Ok(stat) => match stat.rsplit_once(") ").and_then(|(_, r)| r.chars().next()) {
                        Some('Z') | Some('X') => format!("pid {pid} exited"),
                        Some(_) => format!("pid {pid} running"),
                        None => format!("pid {pid}"),
                    },
                    Err(_) => format!("pid {pid} gone"),
                },
            };
            text.push_str(&format!(
                "member {} ({state}), last log lines:\n{}\n",
                m.name,
                self.log_tail(i, 3)
            ));
        }
        if let Ok(df) = std::process::Command::new("df")
            .arg("-h")
            .arg(&self.dir)
            .output()
        {
            text.push_str(&String::from_utf8_lossy(&df.stdout));
        }
        text
    }

    /// Fragments again after `fragment`, writing only what is deleted:
    /// `drop_bytes` of values that are deleted and compacted away, while the
    /// kept keys (and so the in-use size, which a defrag's time follows)
    /// stay as they are. A fraction of `fragment`'s time for a large
    /// in-use share.
    pub async fn refragment(&self, drop_bytes: u64) -> Result<i64> {
        let count = (drop_bytes / FRAGMENT_VALUE as u64) as usize;
        self.write_delete_compact(count, 0)
            .await
            .map_err(|e| self.post_mortem(e))
    }

    /// Writes `count` values, the first `kept` under `frag/keep/`, the rest
    /// under `frag/drop/`; deletes `frag/drop/`, compacts physically and
    /// waits for every member's in-use size to settle.
    async fn write_delete_compact(&self, count: usize, kept: usize) -> Result<i64> {
        use etcd_client::{Txn, TxnOp};
        const PER_TXN: usize = 128;
        let value = vec![b'x'; FRAGMENT_VALUE];
        // Bulk writes of a large backend can take a while to fsync.
        let client = self
            .client_with_timeout(0, Duration::from_secs(120))
            .await?;
        let batches: Vec<Vec<usize>> = (0..count)
            .collect::<Vec<_>>()
            .chunks(PER_TXN)
            .map(|c| c.to_vec())
            .collect();
        let mut pending = Vec::new();
        for batch in batches {
            let mut c = client.clone();
            let value = value.clone();
            pending.push(tokio::spawn(async move {
                let ops: Vec<TxnOp> = batch
                    .iter()
                    .map(|i| {
                        let prefix = if *i < kept {
                            "frag/keep/"
                        } else {
                            "frag/drop/"
                        };
                        TxnOp::put(format!("{prefix}{i:08}"), value.clone(), None)
                    })
                    .collect();
                c.txn(Txn::new().and_then(ops)).await.map(|_| ())
            }));
            if pending.len() >= 4 {
                let first = pending.remove(0);
                first
                    .await
                    .map_err(|e| e.to_string())?
                    .map_err(|e| e.to_string())?;
            }
        }
        for p in pending {
            p.await
                .map_err(|e| e.to_string())?
                .map_err(|e| e.to_string())?;
        }
        let mut c = client.clone();
        let deleted = c
            .delete(
                "frag/drop/",
                Some(etcd_client::DeleteOptions::new().with_prefix()),
            )
            .await
            .map_err(|e| e.to_string())?;
        let revision = deleted.header().map(|h| h.revision()).unwrap_or(0);
        c.compact(
            revision,
            Some(etcd_client::CompactionOptions::new().with_physical()),
        )
        .await
        .map_err(|e| e.to_string())?;
        // Physical compaction runs on every member separately: wait until the
        // in-use sizes stop changing.
        let mut last: Vec<i64> = Vec::new();
        for _ in 0..100 {
            let mut now = Vec::new();
            for i in 0..self.members.len() {
                let mut m = self.client(i).await?;
                now.push(
                    m.status()
                        .await
                        .map_err(|e| e.to_string())?
                        .raft_used_db_size(),
                );
            }
            if now == last {
                break;
            }
            last = now;
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
        Ok(revision)
    }

    /// Every defragmentation etcd recorded in the members' own logs (needs
    /// `log_level = "info"`), in start order. A defragmentation starts with a
    /// `defragmenting` record and ends with `finished defragmenting
    /// directory` (3.5, 3.6) or `defragmented` (3.4).
    pub fn logged_defrags(&self) -> Vec<LoggedDefrag> {
        let logs: Vec<String> = (0..self.members.len()).map(|i| self.log(i)).collect();
        defrags_in_logs(&logs)
    }

    /// Every change of leadership etcd recorded in the members' own logs
    /// (needs `log_level = "info"`), in time order: a leader starting a
    /// transfer (`leadership transfer starting`, logged by MoveLeader on
    /// 3.5 and 3.6; raft's `starts to transfer leadership` on 3.4) and a
    /// member becoming leader (raft's `became leader at term`).
    pub fn logged_leadership(&self) -> Vec<LoggedLeadership> {
        let mut out = Vec::new();
        for i in 0..self.members.len() {
            let mut transfer_logged_at = None;
            for (at, msg) in self.log_records(i) {
                let kind = if msg == "leadership transfer starting"
                    || msg.contains("starts to transfer leadership")
                {
                    // Both records are written for one transfer on 3.5+.
                    if transfer_logged_at.is_some_and(|t: f64| at - t < 1.0) {
                        continue;
                    }
                    transfer_logged_at = Some(at);
                    LeadershipEvent::TransferStarting
                } else if msg.contains("became leader at term") {
                    LeadershipEvent::BecameLeader
                } else {
                    continue;
                };
                out.push(LoggedLeadership {
                    member: i,
                    at,
                    event: kind,
                });
            }
        }
        out.sort_by(|a, b| a.at.total_cmp(&b.at));
        out
    }

    /// Member `i`'s log records as (time, message).
    fn log_records(&self, i: usize) -> Vec<(f64, String)> {
        log_records(&self.log(i))
    }

    /// Whether member `i` has logged the start of a defragmentation (needs
    /// `log_level = "info"`): its Defragment call reached it.
    pub fn defrag_started(&self, i: usize) -> bool {
        self.log(i).lines().any(|line| {
            serde_json::from_str::<serde_json::Value>(line)
                .is_ok_and(|v| v["msg"] == "defragmenting")
        })
    }

    /// Member `i`'s whole log (etcd writes JSON lines).
    pub fn log(&self, i: usize) -> String {
        std::fs::read_to_string(&self.members[i].log).unwrap_or_default()
    }

    /// The last `lines` lines of member `i`'s log, for failure messages.
    pub fn log_tail(&self, i: usize, lines: usize) -> String {
        let text = std::fs::read_to_string(&self.members[i].log).unwrap_or_default();
        let all: Vec<&str> = text.lines().collect();
        all[all.len().saturating_sub(lines)..].join("\n")
    }
}

/// The records of an etcd log (JSON lines) as (time, message), skipping
/// lines that are not JSON or carry no time or message.
pub fn log_records(log: &str) -> Vec<(f64, String)> {
    log.lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter_map(|v| Some((log_time(&v["ts"])?, v["msg"].as_str()?.to_string())))
        .collect()
}

/// Every defragmentation recorded in members' logs (`logs[i]` is member
/// `i`'s, JSON lines at level info or lower), in start order. One starts
/// with a `defragmenting` record and ends with `finished defragmenting
/// directory` (3.5, 3.6) or `defragmented` (3.4). For members the test bed
/// did not start, e.g. Pods whose logs the kubelet serves.
pub fn defrags_in_logs(logs: &[String]) -> Vec<LoggedDefrag> {
    let mut out = Vec::new();
    for (i, log) in logs.iter().enumerate() {
        let mut start = None;
        for (t, msg) in log_records(log) {
            match msg.as_str() {
                "defragmenting" => start = Some(t),
                "finished defragmenting directory" | "defragmented" => {
                    if let Some(s) = start.take() {
                        out.push(LoggedDefrag {
                            member: i,
                            start: s,
                            end: t,
                        });
                    }
                }
                _ => {}
            }
        }
    }
    out.sort_by(|a, b| a.start.total_cmp(&b.start));
    out
}

/// The value size `fragment` writes: 3800 bytes fill one page each.
const FRAGMENT_VALUE: usize = 3800;

/// A defragmentation as etcd logged it: the member index and when it started
/// and finished, in seconds since the Unix epoch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoggedDefrag {
    pub member: usize,
    pub start: f64,
    pub end: f64,
}

/// A change of leadership as etcd logged it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeadershipEvent {
    /// The leader began handing leadership over (MoveLeader).
    TransferStarting,
    /// The member became leader.
    BecameLeader,
}

/// One leadership record: the member index, when (seconds since the Unix
/// epoch) and what.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoggedLeadership {
    pub member: usize,
    pub at: f64,
    pub event: LeadershipEvent,
}

/// Parses etcd's log timestamp: epoch seconds, or ISO 8601 in UTC
/// (`2026-11-30T15:40:01.123456Z`) or with the local offset etcd writes
/// when `TZ` is not UTC (`2026-11-30T16:40:01.123+0100`, also `+01:00`).
pub fn log_time(v: &serde_json::Value) -> Option<f64> {
    if let Some(n) = v.as_f64() {
        return Some(n);
    }
    let s = v.as_str()?;
    let (date, time) = s.split_once('T')?;
    // Split off the zone: `Z`, `±hhmm` or `±hh:mm` (seconds east of UTC).
    let (time, offset) = match time.find(['Z', '+', '-']) {
        Some(at) => {
            let zone = &time[at..];
            let offset = if zone == "Z" {
                0.0
            } else {
                let sign = if zone.starts_with('-') { -1.0 } else { 1.0 };
                let digits: String = zone[1..].chars().filter(|c| *c != ':').collect();
                if digits.len() != 4 || !digits.chars().all(|c| c.is_ascii_digit()) {
                    return None;
                }
                let hours: f64 = digits[..2].parse().ok()?;
                let minutes: f64 = digits[2..].parse().ok()?;
                sign * (hours * 3600.0 + minutes * 60.0)
            };
            (&time[..at], offset)
        }
        None => (time, 0.0),
    };
    let mut hms = time.split(':');
    let h: f64 = hms.next()?.parse().ok()?;
    let m: f64 = hms.next()?.parse().ok()?;
    let sec: f64 = hms.next()?.parse().ok()?;
    let mut ymd = date.split('-');
    let (y, mo, d): (i64, i64, i64) = (
        ymd.next()?.parse().ok()?,
        ymd.next()?.parse().ok()?,
        ymd.next()?.parse().ok()?,
    );
    // Days since the epoch of a proleptic Gregorian date.
    let y2 = if mo <= 2 { y - 1 } else { y };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days as f64 * 86400.0 + h * 3600.0 + m * 60.0 + sec - offset)
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for m in &mut self.members {
            if let Some(mut child) = m.child.take() {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
    }
}

/// The host and port of `scheme://host:port`.
fn host_port(url: &str) -> Result<(String, u16)> {
    let rest = url.split("://").nth(1).unwrap_or(url);
    let (host, port) = rest
        .rsplit_once(':')
        .ok_or_else(|| format!("{url}: no port"))?;
    let port = port.parse().map_err(|e| format!("{url}: port: {e}"))?;
    Ok((host.to_string(), port))
}

/// The command line of member `m`: its data dir under `dir`, its URLs, the
/// initial cluster (`name=peer,…`) and state (`new`, or `existing` for a
/// member added to a running cluster), TLS as the spec asks.
fn member_args(
    spec: &ClusterSpec,
    pki: Option<&Pki>,
    dir: &Path,
    m: &Member,
    initial: &str,
    state: &str,
    token: &str,
) -> Vec<String> {
    let mut args = vec![
        format!("--name={}", m.name),
        format!(
            "--data-dir={}",
            dir.join(format!("{}.etcd", m.name)).display()
        ),
        format!("--listen-client-urls={}", m.listen_client_url),
        format!("--advertise-client-urls={}", m.client_url),
        format!("--listen-peer-urls={}", m.peer_url),
        format!("--initial-advertise-peer-urls={}", m.peer_url),
        format!("--initial-cluster={initial}"),
        format!("--initial-cluster-state={state}"),
        format!("--initial-cluster-token={token}"),
        format!("--log-level={}", spec.log_level),
    ];
    if spec.version.line() == EtcdVersion::V3_4 {
        // 3.4 logs plain text through capnslog by default (and warns
        // that it is deprecated); zap gives the JSON lines 3.5 and
        // 3.6 write, which `logged_defrags` reads.
        args.push("--logger=zap".into());
    }
    if let Some(p) = pki {
        args.push(format!("--cert-file={}", p.server_cert.display()));
        args.push(format!("--key-file={}", p.server_key.display()));
        if matches!(spec.security, Security::MutualTls | Security::MutualTlsAuth) {
            args.push("--client-cert-auth".into());
            args.push(format!("--trusted-ca-file={}", p.ca.display()));
        }
    }
    if let Some(q) = spec.quota_backend_bytes {
        args.push(format!("--quota-backend-bytes={q}"));
    }
    args.extend(spec.extra_args.iter().cloned());
    args
}

#[cfg(test)]
mod tests {
    use super::log_time;
    use serde_json::json;

    #[test]
    fn log_time_reads_utc_and_offsets() {
        // 2026-11-30T15:40:01.5Z
        let utc = 1_796_053_201.5;
        assert_eq!(log_time(&json!("2026-11-30T15:40:01.500000Z")), Some(utc));
        assert_eq!(log_time(&json!("2026-11-30T15:40:01.500Z")), Some(utc));
        assert_eq!(log_time(&json!("2026-11-30T16:40:01.500+0100")), Some(utc));
        assert_eq!(log_time(&json!("2026-11-30T16:40:01.500+01:00")), Some(utc));
        assert_eq!(log_time(&json!("2026-11-30T10:10:01.500-0530")), Some(utc));
        assert_eq!(log_time(&json!(utc)), Some(utc));
        assert_eq!(log_time(&json!("2026-11-30T15:40:01.500+1")), None);
        assert_eq!(log_time(&json!("yesterday")), None);
    }
}

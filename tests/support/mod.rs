//! Shared helpers for the integration tests: run the real `kubectl-etcd`
//! binary against real clusters from the test bed and parse what it says.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::process::Stdio;
use std::time::Duration;

#[allow(unused_imports)]
pub mod k8s;
pub mod operator;
pub mod plugin;
pub mod watch;

#[allow(unused_imports)]
pub use kubectl_etcd_testbed::{Cluster, ClusterSpec, EtcdVersion, Security};

/// What one run of the tool produced.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// stdout parsed as JSON (panics with both streams when it is not).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}):\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
        })
    }

    /// Asserts that a fleet command (`status -A`) read everything it was
    /// asked, or failed only for clusters that could not be read, which
    /// it says at the end (exit 1): on the shared API server of the k8s
    /// suite, other tests keep broken clusters of their own. The caller
    /// checks its own clusters' rows.
    pub fn expect_read_or_others_unread(&self) -> &Self {
        let others = self.code == 1
            && self
                .stderr
                .lines()
                .last()
                .is_some_and(|l| l.contains("clusters could not be read ("));
        assert!(
            self.code == 0 || others,
            "exit code {}\nstdout:\n{}\nstderr:\n{}",
            self.code,
            self.stdout,
            self.stderr
        );
        self
    }

    /// Asserts the exit code, showing both streams on failure.
    pub fn expect_code(&self, code: i32) -> &Self {
        assert_eq!(
            self.code, code,
            "exit code\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self
    }
}

const ENV_VARS: [&str; 11] = [
    "KUBECONFIG",
    "ETCDCTL_WRITE_OUT",
    "KUBECTL_ETCD_ACKNOWLEDGE",
    "ETCDCTL_ENDPOINTS",
    "ETCDCTL_CACERT",
    "ETCDCTL_CERT",
    "ETCDCTL_KEY",
    "ETCDCTL_USER",
    "ETCDCTL_PASSWORD",
    "ETCDCTL_DIAL_TIMEOUT",
    "ETCDCTL_COMMAND_TIMEOUT",
];

/// Runs the tool with exactly `args` and `env` (inherited `ETCDCTL_*`
/// variables are removed). A run that has not ended after 60 s is killed and
/// fails the test: nothing the tool does should hang.
pub async fn tool(args: &[String], env: &[(String, String)]) -> Run {
    // A command over every namespace or context reaches other tests'
    // clusters too: it waits while one of them counts its own traffic.
    let _beside = if reaches_every_cluster(args) {
        Some(EVERY_CLUSTER.read().await)
    } else {
        None
    };
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_kubectl-etcd"));
    for var in ENV_VARS {
        command.env_remove(var);
    }
    command
        .args(args)
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let child = command.spawn().expect("spawn kubectl-etcd");
    let output = tokio::time::timeout(Duration::from_secs(60), child.wait_with_output())
        .await
        .unwrap_or_else(|_| panic!("kubectl-etcd {args:?} did not finish within 60s"))
        .expect("wait for kubectl-etcd");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Held (shared) by every run of a command over all namespaces or contexts
/// ([`tool`] takes it), which on a suite's shared API server reaches every
/// test's clusters; [`counting_alone`] holds it alone.
static EVERY_CLUSTER: tokio::sync::RwLock<()> = tokio::sync::RwLock::const_new(());

/// Whether `args` ask for every namespace or every context.
fn reaches_every_cluster(args: &[String]) -> bool {
    args.iter()
        .any(|a| a == "-A" || a == "--all-contexts" || a.starts_with("--all-namespaces"))
}

/// Keeps every command over all namespaces or contexts from running until
/// the guard is dropped: a test that counts what crosses its own members
/// (connections, round trips) counts only its own commands then. Without
/// it, a `status -A` of another test once opened a second connection to
/// each member of the round-trip test's cluster, and its exchanges were
/// counted as that test's rounds.
pub async fn counting_alone() -> tokio::sync::RwLockWriteGuard<'static, ()> {
    EVERY_CLUSTER.write().await
}

/// The sum of the lines of member `i`'s own `/metrics` that start with
/// `prefix` (plain members; read from where the member listens, past any
/// delay proxy, so that the read is not counted as the tool's traffic).
pub async fn metric(cluster: &Cluster, i: usize, prefix: &str) -> f64 {
    let url = &cluster.members[i].listen_client_url;
    metrics_at(url.trim_start_matches("http://"))
        .await
        .lines()
        .filter(|l| l.starts_with(prefix))
        .filter_map(|l| l.split_whitespace().last()?.parse::<f64>().ok())
        .sum()
}

/// The `/metrics` text a plain member serves at `addr` (`host:port`).
pub async fn metrics_at(addr: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr)
        .await
        .expect("connect to the member's metrics");
    stream
        .write_all(format!("GET /metrics HTTP/1.0\r\nHost: {addr}\r\n\r\n").as_bytes())
        .await
        .expect("ask for metrics");
    let mut text = String::new();
    stream
        .read_to_string(&mut text)
        .await
        .expect("read metrics");
    text
}

/// The `/metrics` text member `i` of a server-TLS cluster serves, read
/// where it listens (past any delay proxy, so the read is not counted as
/// the tool's traffic), over a TLS connection of the test's own that
/// trusts the cluster's CA.
pub async fn metrics_tls(cluster: &Cluster, i: usize) -> String {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, ServerName};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let pki = cluster.pki.as_ref().expect("a TLS cluster");
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_file_iter(&pki.ca).expect("the CA file") {
        roots.add(cert.expect("a CA certificate")).expect("the CA");
    }
    let config = rustls::ClientConfig::builder_with_provider(std::sync::Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .expect("TLS versions")
    .with_root_certificates(roots)
    .with_no_client_auth();
    let addr = cluster.members[i]
        .listen_client_url
        .trim_start_matches("https://")
        .to_string();
    let tcp = tokio::net::TcpStream::connect(&addr)
        .await
        .expect("connect to the member");
    let name = ServerName::try_from("127.0.0.1").expect("a server name");
    let mut stream = tokio_rustls::TlsConnector::from(std::sync::Arc::new(config))
        .connect(name, tcp)
        .await
        .expect("TLS handshake with the member");
    stream
        .write_all(format!("GET /metrics HTTP/1.0\r\nHost: {addr}\r\n\r\n").as_bytes())
        .await
        .expect("ask for metrics");
    let mut text = Vec::new();
    // etcd may end a TLS connection without close_notify: what was read
    // before that is the whole answer of an HTTP/1.0 exchange.
    let _ = stream.read_to_end(&mut text).await;
    String::from_utf8_lossy(&text).into_owned()
}

/// How many `/metrics` requests member `i` of a server-TLS cluster has
/// answered (`promhttp_metric_handler_requests_total`, which counts a
/// request once it is answered: a reading does not count itself).
pub async fn metrics_served_tls(cluster: &Cluster, i: usize) -> u64 {
    metrics_tls(cluster, i)
        .await
        .lines()
        .filter(|l| l.starts_with("promhttp_metric_handler_requests_total"))
        .filter_map(|l| l.split_whitespace().last()?.parse::<f64>().ok())
        .sum::<f64>() as u64
}

/// The `metric` prefix of HashKV calls a member answered.
pub const HASHKV_OK: &str = "grpc_server_handled_total{grpc_code=\"OK\",grpc_method=\"HashKV\"";

/// `args` as owned strings.
pub fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// Flags that point the tool at `cluster` through the first member only
/// (a seed; the rest must be discovered).
pub fn one_seed(cluster: &Cluster) -> Vec<String> {
    let mut flags = vec![format!("--endpoints={}", cluster.endpoints()[0])];
    flags.extend(cluster.security_flags());
    flags
}

/// Starts a cluster or fails the test with the test bed's message.
pub async fn start(spec: ClusterSpec) -> Cluster {
    Cluster::start(spec)
        .await
        .unwrap_or_else(|e| panic!("test bed: {e}"))
}

/// Starts `spec` logging at info (etcd's defrag and compaction records)
/// and fragments it: `bytes` written, `keep` of them kept
/// ([`Cluster::fragment`]).
pub async fn fragmented(spec: ClusterSpec, bytes: u64, keep: f64) -> Cluster {
    let mut spec = spec;
    spec.log_level = "info";
    let cluster = start(spec).await;
    cluster
        .fragment(bytes, keep)
        .await
        .expect("fragment the cluster");
    cluster
}

/// Raises `kind` on member `member` through the Alarm RPC's ACTIVATE action
/// (sent to member `via`), the way tests raise CORRUPT or NOSPACE on demand.
pub async fn raise_alarm(
    cluster: &Cluster,
    via: usize,
    member: usize,
    kind: etcd_client::AlarmType,
) {
    let ids = cluster.member_ids().await.expect("member ids");
    let mut c = cluster.client(via).await.expect("client");
    let mut options = etcd_client::AlarmOptions::new();
    options.with_member(ids[member]);
    c.alarm(etcd_client::AlarmAction::Activate, kind, Some(options))
        .await
        .expect("raise alarm");
}

/// Adds etcd user `user` (password `password`) holding one role, `reader`,
/// that may read every key and nothing else: no root role (through the
/// root user of an auth cluster).
pub async fn add_reader(cluster: &Cluster, user: &str, password: &str) {
    let mut root = cluster.client(0).await.expect("a root client");
    root.user_add(user, password, None)
        .await
        .expect("add the user");
    root.role_add("reader").await.expect("add the role");
    root.role_grant_permission("reader", etcd_client::Permission::read("").with_all_keys())
        .await
        .expect("grant read on every key");
    root.user_grant_role(user, "reader")
        .await
        .expect("grant the role");
}

/// The alarms etcd lists (AlarmList through `client`), as (member id,
/// alarm): etcd's own word on what is raised.
pub async fn alarms_listed(client: &mut etcd_client::Client) -> Vec<(u64, i32)> {
    client
        .alarm(
            etcd_client::AlarmAction::Get,
            etcd_client::AlarmType::None,
            None,
        )
        .await
        .expect("AlarmList")
        .alarms()
        .iter()
        .map(|a| (a.member_id(), a.alarm() as i32))
        .collect()
}

/// The member rows of a `status -o json` document, by name.
pub fn rows(doc: &serde_json::Value) -> Vec<serde_json::Value> {
    doc["members"].as_array().cloned().unwrap_or_default()
}

/// The row named `name`.
pub fn row<'a>(doc: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    doc["members"]
        .as_array()
        .and_then(|a| a.iter().find(|m| m["name"] == name))
        .unwrap_or_else(|| panic!("no member {name} in {doc}"))
}

/// A tool run in progress, whose stderr can be read line by line (to act
/// on the cluster at a precise point of a sweep).
pub struct Running {
    child: tokio::process::Child,
    lines: tokio::io::Lines<tokio::io::BufReader<tokio::process::ChildStderr>>,
    seen: Vec<String>,
}

/// Starts the tool with stderr streamed.
pub fn spawn_tool(args: &[String]) -> Running {
    use tokio::io::AsyncBufReadExt;
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_kubectl-etcd"));
    for var in ENV_VARS {
        command.env_remove(var);
    }
    command
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut child = command.spawn().expect("spawn kubectl-etcd");
    let stderr = child.stderr.take().expect("stderr");
    Running {
        child,
        lines: tokio::io::BufReader::new(stderr).lines(),
        seen: Vec::new(),
    }
}

impl Running {
    /// Waits (at most 120 s) for a stderr line that matches, and returns it.
    pub async fn wait_for(&mut self, what: &str, matches: impl Fn(&str) -> bool) -> String {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
        loop {
            let next = tokio::time::timeout_at(deadline, self.lines.next_line()).await;
            match next {
                Ok(Ok(Some(line))) => {
                    self.seen.push(line.clone());
                    if matches(&line) {
                        return line;
                    }
                }
                _ => panic!("no stderr line {what}; seen:\n{}", self.seen.join("\n")),
            }
        }
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id().expect("running")
    }

    /// Sends SIGINT, as Ctrl-C would.
    pub fn interrupt(&self) {
        let pid = self.child.id().expect("running") as i32;
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGINT,
        )
        .expect("SIGINT");
    }

    /// Sends SIGTERM, as Kubernetes does to a Pod it stops.
    pub fn terminate(&self) {
        let pid = self.child.id().expect("running") as i32;
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGTERM,
        )
        .expect("SIGTERM");
    }

    /// Waits for the run to end (at most 300 s) and collects its output.
    pub async fn finish(mut self) -> Run {
        use tokio::io::AsyncReadExt;
        let mut stdout = String::new();
        if let Some(mut out) = self.child.stdout.take() {
            let read = out.read_to_string(&mut stdout);
            let rest = async {
                while let Ok(Some(line)) = self.lines.next_line().await {
                    self.seen.push(line);
                }
            };
            let both = async { tokio::join!(read, rest) };
            tokio::time::timeout(Duration::from_secs(300), both)
                .await
                .expect("kubectl-etcd did not finish within 300s")
                .0
                .expect("read stdout");
        }
        let status = self.child.wait().await.expect("wait");
        Run {
            code: status.code().unwrap_or(-1),
            stdout,
            stderr: self.seen.join("\n"),
        }
    }
}

/// Runs the tool on a terminal (`script` gives it one for stdin and
/// stderr), with exactly `args` and `env`, answering each prompt in
/// `answers` (text to wait for, then the reply, sent with a carriage
/// return) in order. Returns the exit code and everything the terminal
/// showed. Fails the test when a prompt does not come or the run does
/// not end within 60 s.
pub async fn tool_on_terminal(
    args: &[String],
    env: &[(String, String)],
    answers: &[(&str, &str)],
) -> (i32, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut line = vec![env!("CARGO_BIN_EXE_kubectl-etcd").to_string()];
    line.extend(args.iter().cloned());
    let quoted: Vec<String> = line.iter().map(|w| format!("'{w}'")).collect();
    let mut command = tokio::process::Command::new("script");
    for var in ENV_VARS {
        command.env_remove(var);
    }
    let mut child = command
        .args(["-qefc", &quoted.join(" "), "/dev/null"])
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("script");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut seen = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    for (prompt, reply) in answers {
        while !String::from_utf8_lossy(&seen).contains(prompt) {
            let mut buf = [0u8; 512];
            let n = tokio::time::timeout_at(deadline, stdout.read(&mut buf))
                .await
                .unwrap_or_else(|_| {
                    panic!("no prompt {prompt:?}: {}", String::from_utf8_lossy(&seen))
                })
                .expect("read the terminal");
            assert!(
                n > 0,
                "ended before asking {prompt:?}: {}",
                String::from_utf8_lossy(&seen)
            );
            seen.extend_from_slice(&buf[..n]);
        }
        reading(child.id(), deadline).await;
        // A control character (Ctrl-C is "\x03") is typed alone: the
        // terminal turns it into a signal, and a carriage return after it
        // would be read as the answer to the next prompt.
        let typed = if reply.starts_with(|c: char| c.is_ascii_control()) {
            reply.to_string()
        } else {
            format!("{reply}\r")
        };
        stdin.write_all(typed.as_bytes()).await.expect("answer");
        stdin.flush().await.expect("answer");
    }
    // Read to the end in pieces, so that a run that does not end shows
    // everything the terminal printed (an echoed answer included).
    loop {
        let mut buf = [0u8; 512];
        let n = match tokio::time::timeout_at(deadline, stdout.read(&mut buf)).await {
            Ok(read) => read.expect("read the terminal"),
            Err(_) => panic!("did not end: {}", String::from_utf8_lossy(&seen)),
        };
        if n == 0 {
            break;
        }
        seen.extend_from_slice(&buf[..n]);
    }
    let status = child.wait().await.expect("wait for script");
    (
        status.code().unwrap_or(-1),
        String::from_utf8_lossy(&seen).into_owned(),
    )
}

/// Waits (at most 5 s, and never past `deadline`) until the terminal of
/// the process tree under `root` has echo off: the state a password prompt
/// and a single-key confirmation read in. A password prompt prints its
/// text first and then switches the terminal with a flush (TCSAFLUSH) that
/// discards whatever was typed in between, so an answer sent as soon as
/// the text shows can be lost on a busy machine. A prompt that keeps echo
/// on is answered after the 5 s.
async fn reading(root: Option<u32>, deadline: tokio::time::Instant) {
    let Some(root) = root else { return };
    let until = deadline.min(tokio::time::Instant::now() + Duration::from_secs(5));
    while tokio::time::Instant::now() < until {
        if let Some(tty) = terminal_of(root) {
            let out = std::process::Command::new("stty")
                .args(["-F", &tty, "-a"])
                .output();
            if let Ok(out) = out {
                let flags = String::from_utf8_lossy(&out.stdout);
                if flags.split_whitespace().any(|f| f == "-echo") {
                    return;
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The terminal (`/dev/pts/N`) that a process under `root` reads from.
fn terminal_of(root: u32) -> Option<String> {
    let mut family = vec![root];
    let mut grew = true;
    while grew {
        grew = false;
        for entry in std::fs::read_dir("/proc").ok()?.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            if family.contains(&pid) {
                continue;
            }
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                continue;
            };
            // The parent is the second field after the parenthesised name.
            let parent = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(1))
                .and_then(|p| p.parse::<u32>().ok());
            if parent.is_some_and(|p| family.contains(&p)) {
                family.push(pid);
                grew = true;
            }
        }
    }
    family.iter().skip(1).find_map(|pid| {
        let tty = std::fs::read_link(format!("/proc/{pid}/fd/0")).ok()?;
        let tty = tty.to_str()?.to_string();
        tty.starts_with("/dev/pts/").then_some(tty)
    })
}

/// The alarms etcd has raised (AlarmList, asked of member 0): member id
/// and kind.
pub async fn alarms(cluster: &Cluster) -> Vec<(u64, etcd_client::AlarmType)> {
    let mut c = cluster.client(0).await.expect("client");
    let r = c
        .alarm(
            etcd_client::AlarmAction::Get,
            etcd_client::AlarmType::None,
            None,
        )
        .await
        .expect("alarm list");
    r.alarms()
        .iter()
        .map(|a| (a.member_id(), a.alarm()))
        .collect()
}

/// The release archive `scripts/release.sh` makes for linux/amd64 (the
/// unoptimised `quick` profile, static musl), built once into the target
/// dir's scratch space (the krew test builds in the same target dir).
pub fn release_archive() -> std::path::PathBuf {
    let tmp = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let out = tmp.join("tool-release");
    let run = std::process::Command::new(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/release.sh"),
    )
    .args([
        "--profile",
        "quick",
        "--targets",
        "x86_64-unknown-linux-musl",
        "--no-write-manifest",
        "--out",
    ])
    .arg(&out)
    // A target dir of its own: the outer `cargo test` holds the lock of
    // the one it builds in.
    .env("CARGO_TARGET_DIR", tmp.join("release-target"))
    .output()
    .expect("run scripts/release.sh");
    assert!(
        run.status.success(),
        "scripts/release.sh: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    out.join(format!(
        "kubectl-etcd_v{}_linux_amd64.tar.gz",
        env!("CARGO_PKG_VERSION")
    ))
}

/// The tool's image, made by `Containerfile` from [`release_archive`]
/// and imported into `node` under the name the manifests in `deploy/`
/// use (`kubectl-etcd:v<version>`, which the kubelet reads as
/// `docker.io/library/…`). Returns that short name.
pub fn tool_image(node: &mut kubectl_etcd_testbed::node::Node) -> String {
    let archive = release_archive();
    let work = tempfile::tempdir().unwrap();
    let short = format!("kubectl-etcd:v{}", env!("CARGO_PKG_VERSION"));
    let full = format!("docker.io/library/{short}");
    let containerfile = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("Containerfile");
    let image =
        kubectl_etcd_testbed::tool_image::build(&containerfile, &archive, work.path(), &full)
            .unwrap_or_else(|e| panic!("{e}"));
    node.import_archive(&image, &full)
        .unwrap_or_else(|e| panic!("{e}"));
    short
}

/// (prefix, keys, bytes) of every group of a `usage` or `snapshot usage`
/// document, in the report's order (bytes 0 with `--keys-only`).
pub fn usage_groups(doc: &serde_json::Value) -> Vec<(String, u64, u64)> {
    doc["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["prefix"].as_str().unwrap().to_string(),
                g["keys"].as_u64().unwrap(),
                g["bytes"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

/// Every command a text suggests (`kubectl etcd …` up to the next
/// parenthesis, semicolon or end), without repeats.
pub fn suggested(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (i, _) in text.match_indices("kubectl etcd ") {
        let rest = &text[i..];
        let end = rest
            .find(['(', ';', ')', '\n', '`', ','])
            .unwrap_or(rest.len());
        let command = rest[..end].trim().to_string();
        if !out.contains(&command) {
            out.push(command);
        }
    }
    out
}

/// The tool's words for a suggested `kubectl etcd …` command.
pub fn words(command: &str) -> Vec<String> {
    command
        .strip_prefix("kubectl etcd ")
        .unwrap_or_else(|| panic!("not a kubectl etcd command: {command}"))
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

/// Writes history: `rounds` overwrites of `keys` keys (`h/<k>`), one
/// transaction per round, each value 3800 bytes (a page each). Nothing is
/// compacted: every old version stays in use until something compacts.
pub async fn overwrite_history(cluster: &Cluster, keys: u32, rounds: u32) {
    let mut c = cluster.client(0).await.expect("a client of member 0");
    for round in 0..rounds {
        let ops: Vec<etcd_client::TxnOp> = (0..keys)
            .map(|k| {
                etcd_client::TxnOp::put(
                    format!("h/{k}"),
                    format!("{round:04}{}", "v".repeat(3796)),
                    None,
                )
            })
            .collect();
        c.txn(etcd_client::Txn::new().and_then(ops))
            .await
            .expect("a round of overwrites");
    }
}

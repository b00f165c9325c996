//! The agent's cost: time to the first line of `kubectl etcd status` on a
//! kubeadm control plane (the command run on the node, in an agent Pod),
//! against the community's way, `kubectl exec etcd-<node> -n kube-system
//! -- etcdctl … endpoint status --cluster`, in the same run. Run through
//! `bench/agent.sh` (a release build).
//!
//! On the test bed's real node laid out by kubeadm's own phases
//! (`testbed node up --kubeadm`), the tool's image present on the node (as
//! after a first run; pulling it is the registry's time, not the tool's).
//! Interleaved (tool, exec, tool, exec, …) after one warm-up of each, both
//! through the real kubectl; each must exit 0. Prints, for each, the
//! median and p90 of the time to the first line on stdout and of the
//! whole command, and their ratios; and where the agent's time goes, from
//! its Job's and Pod's own timestamps (Job created → Pod scheduled →
//! container started).
//!
//! Then `snapshot save` of 64 MiB kept in the member: through the agent
//! (the bytes over a port-forward to it) against etcd's own `etcdctl
//! snapshot save` from this machine, dialing the member directly with the
//! node's own certificate (what the agent exists to avoid: the key off
//! the node; here only as the floor), interleaved, the median of each and
//! their ratio.

// A benchmark program: its report is what it prints.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_macros)]

#[path = "common.rs"]
mod common;

#[path = "../tests/support/mod.rs"]
mod support;

use common::{flag, quantile};
use std::time::{Duration, Instant};

use support::operator::Bed;
use tokio::io::AsyncBufReadExt;

const POD: &str = "etcd-testbed-node";

/// Runs `kubectl ARGS…` on the bed; returns (first stdout line, whole).
async fn timed(bed: &Bed, args: &[&str]) -> (Duration, Duration) {
    let kc = bed.kubeconfig.display().to_string();
    let t0 = Instant::now();
    let mut child = tokio::process::Command::new(support::plugin::kubectl_bin())
        .env_clear()
        .env("PATH", &bed.path.path)
        .env("HOME", std::env::temp_dir())
        .env("KUBECONFIG", kc)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next_line().await.unwrap();
    let to_first = t0.elapsed();
    assert!(first.is_some(), "{args:?}: nothing on stdout");
    while lines.next_line().await.unwrap().is_some() {}
    let status = child.wait().await.unwrap();
    assert!(status.success(), "{args:?}: {status}");
    (to_first, t0.elapsed())
}

fn report(name: &str, first: &[Duration], whole: &[Duration]) {
    println!(
        "{name:<44} first line median {:>6} ms p90 {:>6} ms   whole median {:>6} ms p90 {:>6} ms",
        quantile(first, 50).as_millis(),
        quantile(first, 90).as_millis(),
        quantile(whole, 50).as_millis(),
        quantile(whole, 90).as_millis()
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let runs: usize = flag(&args, "--runs").unwrap_or(10);
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
        .block_on(bench(runs));
}

async fn bench(runs: usize) {
    let started = Instant::now();
    let mut bed = Bed::start_kubeadm("default", 1).await;
    support::tool_image(&mut bed.node);
    println!(
        "kubeadm bed Ready with the tool's image in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let pki = "/etc/kubernetes/pki/etcd";
    let ca = format!("--cacert={pki}/ca.crt");
    let cert = format!("--cert={pki}/healthcheck-client.crt");
    let key = format!("--key={pki}/healthcheck-client.key");
    let tool = ["etcd", "status", "etcd", "-n", "kube-system"];
    let exec = [
        "exec",
        POD,
        "-n",
        "kube-system",
        "--",
        "etcdctl",
        "--endpoints=https://127.0.0.1:2379",
        &ca,
        &cert,
        &key,
        "endpoint",
        "status",
        "--cluster",
        "-w",
        "table",
    ];
    // Until the etcd Pod serves exec and the agent can start.
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let run = bed.kubectl(&exec).await;
        if run.code == 0 {
            break;
        }
        assert!(Instant::now() < deadline, "{run:?}");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    timed(&bed, &tool).await;
    timed(&bed, &exec).await;
    let (mut tool_first, mut tool_whole, mut exec_first, mut exec_whole) =
        (vec![], vec![], vec![], vec![]);
    for _ in 0..runs {
        let (f, w) = timed(&bed, &tool).await;
        tool_first.push(f);
        tool_whole.push(w);
        let (f, w) = timed(&bed, &exec).await;
        exec_first.push(f);
        exec_whole.push(w);
    }
    println!("{runs} runs each, interleaved");
    report(
        "kubectl etcd status (agent on the node)",
        &tool_first,
        &tool_whole,
    );
    report(
        "kubectl exec … etcdctl endpoint status",
        &exec_first,
        &exec_whole,
    );
    let ratio = |a: &[Duration], b: &[Duration]| {
        quantile(a, 50).as_secs_f64() / quantile(b, 50).as_secs_f64()
    };
    println!(
        "ratio tool/exec: first line {:.2}, whole {:.2}",
        ratio(&tool_first, &exec_first),
        ratio(&tool_whole, &exec_whole)
    );
    // Where the agent's time goes: the tool's own log of one more run.
    let mut words = tool.to_vec();
    words.push("-v");
    let run = bed.kubectl(&words).await;
    for line in run.stderr.lines().filter(|l| l.contains("agent")) {
        println!("  {line}");
    }
    snapshot_bench(&bed, runs.min(5)).await;
}

/// `snapshot save` through the agent against etcdctl's, dialing directly.
async fn snapshot_bench(bed: &Bed, runs: usize) {
    let pki = bed.kubeadm_pki();
    let url = bed.kubeadm_url();
    let etcd = bed.kubeadm_etcd().await;
    support::operator::fragment(etcd, 0, 64 << 20).await;
    let dir = tempfile::tempdir().unwrap();
    let ours = dir.path().join("agent.db");
    let theirs = dir.path().join("etcdctl.db");
    let tool = [
        "etcd",
        "snapshot",
        "save",
        ours.to_str().unwrap(),
        "etcd",
        "-n",
        "kube-system",
        "--force",
    ];
    let etcdctl =
        kubectl_etcd_testbed::bins::etcdctl(kubectl_etcd_testbed::EtcdVersion::V3_7).unwrap();
    let direct = || {
        let _ = std::fs::remove_file(&theirs);
        let t0 = Instant::now();
        let out = std::process::Command::new(&etcdctl)
            .arg(format!("--endpoints={url}"))
            .arg(format!("--cacert={}", pki.join("ca.crt").display()))
            .arg(format!(
                "--cert={}",
                pki.join("healthcheck-client.crt").display()
            ))
            .arg(format!(
                "--key={}",
                pki.join("healthcheck-client.key").display()
            ))
            .args(["snapshot", "save"])
            .arg(&theirs)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        t0.elapsed()
    };
    timed(bed, &tool).await;
    direct();
    let (mut agent, mut etcdctl_times) = (vec![], vec![]);
    for _ in 0..runs {
        agent.push(timed(bed, &tool).await.1);
        etcdctl_times.push(direct());
    }
    let mib = std::fs::metadata(&ours).unwrap().len() as f64 / f64::from(1 << 20);
    let line = |name: &str, times: &[Duration]| {
        let median = quantile(times, 50).as_secs_f64();
        println!(
            "{name:<52} median {median:>6.2} s p90 {:>6.2} s  {:>6.1} MiB/s",
            quantile(times, 90).as_secs_f64(),
            mib / median
        );
    };
    println!("snapshot save of {mib:.1} MiB, {runs} runs each, interleaved");
    line("kubectl etcd snapshot save (through the agent)", &agent);
    line(
        "etcdctl snapshot save (direct, the node's key here)",
        &etcdctl_times,
    );
    println!(
        "ratio agent/etcdctl: {:.2}",
        quantile(&agent, 50).as_secs_f64() / quantile(&etcdctl_times, 50).as_secs_f64()
    );
}

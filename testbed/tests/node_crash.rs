//! A node whose process is killed outright (SIGKILL: no Drop runs) leaves
//! nothing behind once its watchdog has run: not a process it started
//! (control plane, containerd, the shims, a Pod's container), not its
//! network namespace, cgroups or folders (issue 22: "a crash ... leaves
//! nothing behind").

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use tokio::io::AsyncBufReadExt;

/// Every process (not a zombie) whose command line contains `needle`.
fn processes_mentioning(needle: &str) -> Vec<(u32, String)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        if zombie_or_gone(pid) {
            continue;
        }
        let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        if cmd.contains(needle) {
            out.push((pid, cmd));
        }
    }
    out
}

fn zombie_or_gone(pid: u32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    match stat.rsplit_once(')') {
        Some((_, rest)) => rest.trim_start().starts_with('Z'),
        None => true,
    }
}

/// `root` and every process descended from it.
fn descendants(root: u32) -> BTreeSet<u32> {
    let mut family = BTreeSet::from([root]);
    loop {
        let before = family.len();
        for e in std::fs::read_dir("/proc").unwrap().flatten() {
            let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
                continue;
            };
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let parent = stat
                .rsplit_once(')')
                .and_then(|(_, r)| r.split_whitespace().nth(1))
                .and_then(|p| p.parse::<u32>().ok());
            if parent.is_some_and(|p| family.contains(&p)) {
                family.insert(pid);
            }
        }
        if family.len() == before {
            return family;
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_killed_node_process_leaves_nothing_behind() {
    let work = tempfile::tempdir().unwrap();
    let env_file = work.path().join("node.env");
    let mut up = tokio::process::Command::new(env!("CARGO_BIN_EXE_testbed"))
        .args(["node", "up", "--env-file"])
        .arg(&env_file)
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let pid = up.id().unwrap();
    let mut lines = tokio::io::BufReader::new(up.stderr.take().unwrap()).lines();
    let mut seen = Vec::new();
    let ready = loop {
        let line = tokio::time::timeout(Duration::from_secs(180), lines.next_line())
            .await
            .unwrap_or_else(|_| panic!("no Ready line: {seen:?}"))
            .unwrap()
            .unwrap_or_else(|| panic!("testbed ended: {seen:?}"));
        if line.contains("node Ready in") {
            break line;
        }
        seen.push(line);
    };
    let node_dir = ready
        .rsplit_once('(')
        .and_then(|(_, d)| d.strip_suffix(')'))
        .unwrap()
        .to_string();
    let env = std::fs::read_to_string(&env_file).unwrap();
    let kubeconfig = env
        .lines()
        .find_map(|l| l.strip_prefix("export KUBECONFIG='"))
        .and_then(|l| l.strip_suffix('\''))
        .unwrap()
        .to_string();
    let api_dir = Path::new(&kubeconfig).parent().unwrap().to_path_buf();

    // A running Pod, so there is a shim and a container to clean up.
    let kubectl = kubectl_etcd_testbed::bins::kubectl().unwrap();
    let run = std::process::Command::new(&kubectl)
        .env("KUBECONFIG", &kubeconfig)
        .args([
            "run",
            "sleeper",
            "--image=localhost/pause:testbed",
            "--image-pull-policy=Never",
        ])
        .output()
        .unwrap();
    assert!(run.status.success(), "{run:?}");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(90);
    loop {
        let out = std::process::Command::new(&kubectl)
            .env("KUBECONFIG", &kubeconfig)
            .args(["get", "pod", "sleeper", "-o", "jsonpath={.status.phase}"])
            .output()
            .unwrap();
        if out.stdout == b"Running" {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "{out:?}");
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let netns = format!("kubectl-etcd-node-{pid}");
    let cgroups: Vec<_> = std::fs::read_dir("/sys/fs/cgroup")
        .unwrap()
        .flatten()
        .map(|h| h.path().join(&netns))
        .filter(|p| p.exists())
        .collect();
    assert!(!cgroups.is_empty());
    assert!(Path::new(&format!("/run/netns/{netns}")).exists());
    let mut started: BTreeSet<u32> = descendants(pid);
    started.extend(processes_mentioning(&node_dir).iter().map(|(p, _)| *p));
    assert!(started.len() >= 10, "{started:?}");

    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    let _ = up.wait().await;

    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let alive: Vec<u32> = started
            .iter()
            .copied()
            .filter(|p| *p != pid && !zombie_or_gone(*p))
            .collect();
        let left = (
            alive,
            processes_mentioning(&node_dir),
            Path::new(&format!("/run/netns/{netns}")).exists(),
            cgroups.iter().filter(|c| c.exists()).count(),
            Path::new(&node_dir).exists() || api_dir.exists(),
        );
        if left.0.is_empty() && left.1.is_empty() && !left.2 && left.3 == 0 && !left.4 {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "left 30 s after the kill (processes, by command line, netns, cgroups, folders): {left:?}"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

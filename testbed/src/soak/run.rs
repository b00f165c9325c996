//! The fault soak's runner for the one-shot sweep: one round is a
//! fragmented mTLS cluster, `kubectl-etcd defrag --all` against it, the
//! round's faults at their moments, a client writing all along; then the
//! members' own logs become an [`Observed`] for [`check`].

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tokio::sync::Mutex;

use super::{check, plan_round, Defrag, Fault, Observed, Outage, RoundPlan, Violation};
use crate::cluster::log_time;
use crate::{Cluster, ClusterSpec, EtcdVersion, Result, Security};

/// How one soak runs.
#[derive(Debug, Clone)]
pub struct Settings {
    pub seed: u64,
    pub version: EtcdVersion,
    /// The `kubectl-etcd` binary under test.
    pub tool: PathBuf,
    /// Faults fall within this many ms of the tool's start.
    pub span_ms: u64,
    /// MB written per member before the run (30% kept).
    pub fragment_mb: u64,
}

/// What one round gave.
#[derive(Debug)]
pub struct RoundResult {
    pub plan: RoundPlan,
    pub exit: i32,
    pub violations: Vec<Violation>,
    pub defragmented: usize,
}

/// A Status answer takes at most this long before the gate counts the
/// member as unreachable (the tool's default --dial-timeout 2 s plus its
/// first attempt), and the sweep takes a look before every step: a member
/// down for longer than this when a step starts is one the gate saw.
pub const GATE_PROBE_SECONDS: f64 = 5.0;

fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// Runs round `round` of `settings.seed`.
pub async fn round(settings: &Settings, round: u64) -> Result<RoundResult> {
    let plan = plan_round(settings.seed, round, settings.span_ms);
    let mut spec = ClusterSpec::new(plan.members, Security::MutualTls).version(settings.version);
    spec.log_level = "info";
    let cluster = Cluster::start(spec).await?;
    cluster.fragment(settings.fragment_mb << 20, 0.3).await?;
    let names: Vec<String> = cluster.members.iter().map(|m| m.name.clone()).collect();
    let env = cluster.env();

    // A client writing all along, one key at a time, to each member in turn.
    let mut writers = Vec::new();
    for i in 0..plan.members {
        writers.push(
            cluster
                .client_with_timeout(i, Duration::from_secs(2))
                .await?,
        );
    }
    let cluster = Arc::new(Mutex::new(cluster));
    let writing = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let writer = {
        let writing = writing.clone();
        tokio::spawn(async move {
            let mut acknowledged = Vec::new();
            let mut n = 0u64;
            while writing.load(std::sync::atomic::Ordering::Relaxed) {
                let i = (n as usize) % writers.len();
                let key = format!("soak-{n:08}");
                let put = writers[i].put(key.clone(), "v", None);
                if let Ok(Ok(_)) = tokio::time::timeout(Duration::from_secs(2), put).await {
                    acknowledged.push(key);
                }
                n += 1;
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            acknowledged
        })
    };

    let started = now();
    let mut tool = tokio::process::Command::new(&settings.tool)
        .args([
            "defrag",
            "--all",
            "-y",
            "-o",
            "json",
            "--wait-healthy",
            "20s",
        ])
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("spawn {}: {e}", settings.tool.display()))?;
    let stderr = tool.stderr.take().map(|mut err| {
        tokio::spawn(async move {
            use tokio::io::AsyncReadExt;
            let mut text = String::new();
            let _ = err.read_to_string(&mut text).await;
            text
        })
    });
    let tool_pid = tool.id();

    // The faults, each at its moment; outages as they happened.
    let outages = Arc::new(Mutex::new(Vec::<Outage>::new()));
    let stopped_at = Arc::new(Mutex::new(None::<f64>));
    let mut injected = Vec::new();
    for fault in plan.faults.clone() {
        let (cluster, outages, stopped_at) = (cluster.clone(), outages.clone(), stopped_at.clone());
        injected.push(tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(fault.at_ms())).await;
            inject(fault, &cluster, &outages, &stopped_at, tool_pid).await
        }));
    }
    let output = tokio::time::timeout(Duration::from_secs(240), async {
        let mut stdout = String::new();
        if let Some(mut out) = tool.stdout.take() {
            use tokio::io::AsyncReadExt;
            let _ = out.read_to_string(&mut stdout).await;
        }
        let status = tool.wait().await;
        (stdout, status)
    })
    .await
    .map_err(|_| format!("round {round}: the tool did not end within 240 s"))?;
    let exit = output.1.map_err(|e| e.to_string())?.code().unwrap_or(-1);
    for task in injected {
        task.await.map_err(|e| e.to_string())??;
    }
    writing.store(false, std::sync::atomic::Ordering::Relaxed);
    let acknowledged = writer.await.map_err(|e| e.to_string())?;
    let round_end = now();

    let cluster = cluster.lock().await;
    cluster.wait_ready(Duration::from_secs(30)).await?;
    let mut reader = cluster.client(0).await?;
    let found_keys = reader
        .get(
            "soak-",
            Some(
                etcd_client::GetOptions::new()
                    .with_prefix()
                    .with_keys_only(),
            ),
        )
        .await
        .map_err(|e| format!("read the writer's keys: {e}"))?;
    let found: std::collections::BTreeSet<String> = found_keys
        .kvs()
        .iter()
        .map(|kv| String::from_utf8_lossy(kv.key()).into_owned())
        .collect();
    let outages = without_overlap(outages.lock().await.clone());
    let logs: Vec<String> = (0..plan.members).map(|i| cluster.log(i)).collect();
    let defrags = defrags_in(&logs, &outages, started);
    let reported_defragmented = reported(&output.0, &names);
    let observed = Observed {
        defrags,
        outages,
        round_end,
        exit,
        reported_defragmented,
        members: plan.members,
        acknowledged: acknowledged.len() as u64,
        found: acknowledged.iter().filter(|k| found.contains(*k)).count() as u64,
        stopped_at: *stopped_at.lock().await,
    };
    let violations = check(&observed, GATE_PROBE_SECONDS);
    let tool_log = match stderr {
        Some(task) => task.await.unwrap_or_default(),
        None => String::new(),
    };
    if !violations.is_empty() {
        // What a violation is judged on, kept for whoever looks into it:
        // the tool's own account (-v), the members' logs, the outages.
        let keep = format!("soak-{}-{round}.txt", settings.seed);
        let text = format!(
            "started {started:.3}\noutages {:?}\ndefrags {:?}\n--- tool stderr\n{tool_log}\n{}",
            observed.outages,
            observed.defrags,
            logs.iter()
                .enumerate()
                .map(|(i, l)| format!("--- m{i}\n{l}"))
                .collect::<Vec<_>>()
                .join("\n")
        );
        std::fs::write(&keep, text).map_err(|e| format!("write {keep}: {e}"))?;
    }
    Ok(RoundResult {
        defragmented: observed.defrags.iter().filter(|d| d.end.is_some()).count(),
        plan,
        exit,
        violations,
    })
}

/// Carries out one fault, recording the outage it causes.
async fn inject(
    fault: Fault,
    cluster: &Mutex<Cluster>,
    outages: &Mutex<Vec<Outage>>,
    stopped_at: &Mutex<Option<f64>>,
    tool: Option<u32>,
) -> Result<()> {
    match fault {
        Fault::Pause { member, for_ms, .. } => {
            let from = now();
            // Faults overlap: a member killed meanwhile is not running, and
            // one restarted meanwhile is a new process that was never
            // stopped. Neither is an error of the round.
            let paused = cluster.lock().await.pause(member).is_ok();
            tokio::time::sleep(Duration::from_millis(for_ms)).await;
            let _ = cluster.lock().await.resume(member);
            if paused {
                outages.lock().await.push(Outage {
                    member,
                    from,
                    to: now(),
                });
            }
        }
        Fault::KillRestart {
            member, down_ms, ..
        } => {
            let from = now();
            cluster.lock().await.kill(member)?;
            tokio::time::sleep(Duration::from_millis(down_ms)).await;
            cluster.lock().await.restart(member)?;
            outages.lock().await.push(Outage {
                member,
                from,
                to: now(),
            });
        }
        Fault::MoveLeader { .. } => {
            let guard = cluster.lock().await;
            // A leader that cannot be found (a member down) is no fault
            // to inject now.
            if let Ok(leader) = guard.leader().await {
                let ids = guard.member_ids().await?;
                let target = (leader + 1) % ids.len();
                if let Ok(mut client) = guard.client(leader).await {
                    let _ = client.move_leader(ids[target]).await;
                }
            }
        }
        Fault::StopTool { term, twice, .. } => {
            if let Some(pid) = tool {
                let signal = if term {
                    nix::sys::signal::Signal::SIGTERM
                } else {
                    nix::sys::signal::Signal::SIGINT
                };
                let pid = nix::unistd::Pid::from_raw(pid as i32);
                // Sent to a tool that had already ended, it stops nothing.
                if nix::sys::signal::kill(pid, signal).is_ok() {
                    stopped_at.lock().await.get_or_insert(now());
                }
                if twice {
                    tokio::time::sleep(Duration::from_millis(300)).await;
                    let _ = nix::sys::signal::kill(pid, signal);
                }
            }
        }
    }
    Ok(())
}

/// A pause that a kill of the same member ended: the member was stopped
/// only until the kill (the restarted process was never paused), so the
/// pause's outage ends there and the kill's covers the rest.
fn without_overlap(mut outages: Vec<Outage>) -> Vec<Outage> {
    let starts: Vec<(usize, f64)> = outages.iter().map(|o| (o.member, o.from)).collect();
    for o in &mut outages {
        if let Some(kill) = starts
            .iter()
            .filter(|(m, from)| *m == o.member && *from > o.from && *from < o.to)
            .map(|(_, from)| *from)
            .reduce(f64::min)
        {
            o.to = kill;
        }
    }
    outages
}

/// Each member's defrags since `since`, from its own log: a start without
/// an end is cut at the first kill of that member after it.
fn defrags_in(logs: &[String], outages: &[Outage], since: f64) -> Vec<Defrag> {
    let mut out = Vec::new();
    for (member, log) in logs.iter().enumerate() {
        let mut start: Option<f64> = None;
        let records = log
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter_map(|v| Some((log_time(&v["ts"])?, v["msg"].as_str()?.to_string())));
        for (t, msg) in records {
            if t < since {
                continue;
            }
            match msg.as_str() {
                "defragmenting" => {
                    if let Some(s) = start.replace(t) {
                        out.push(cut(member, s, outages));
                    }
                }
                "finished defragmenting directory" | "defragmented" => {
                    if let Some(s) = start.take() {
                        out.push(Defrag {
                            member,
                            start: s,
                            end: Some(t),
                            cut: None,
                        });
                    }
                }
                _ => {}
            }
        }
        if let Some(s) = start {
            out.push(cut(member, s, outages));
        }
    }
    out.sort_by(|a, b| a.start.total_cmp(&b.start));
    out
}

fn cut(member: usize, start: f64, outages: &[Outage]) -> Defrag {
    Defrag {
        member,
        start,
        end: None,
        cut: outages
            .iter()
            .filter(|o| o.member == member && o.from >= start)
            .map(|o| o.from)
            .reduce(f64::min),
    }
}

/// The members the tool's JSON report calls Defragmented, by index.
fn reported(stdout: &str, names: &[String]) -> Vec<usize> {
    let Ok(doc) = serde_json::from_str::<serde_json::Value>(stdout) else {
        return Vec::new();
    };
    doc["members"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["outcome"] == "Defragmented")
        .filter_map(|m| names.iter().position(|n| m["name"] == n.as_str()))
        .collect()
}

//! The fault soak's runner for the one-shot sweep: one round is a
//! fragmented mTLS cluster, `kubectl-etcd defrag --all` against it, the
//! round's faults at their moments, a client writing all along; then the
//! members' own logs become an [`Observed`] for [`check`].

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tokio::sync::Mutex;

use super::{check, plan_round, Defrag, Fault, Observed, Outage, RoundPlan, Violation};
use crate::cluster::log_records;
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
    /// Alarm faults that took effect ("NOSPACE raised", "CORRUPT held 1x").
    pub fired: Vec<String>,
    /// With a violation: the round's records, the tool's output and the
    /// members' logs, as one text.
    pub evidence: Option<String>,
}

/// A Status answer takes at most this long before the gate counts the
/// member as unreachable (the tool's default --dial-timeout 2 s plus its
/// first attempt), and the sweep takes a look before every step: a member
/// down for longer than this when a step starts is one the gate saw.
pub const GATE_PROBE_SECONDS: f64 = 5.0;

/// Seconds since the Unix epoch, as etcd's log records count.
pub fn now() -> f64 {
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
    let env = cluster.env();
    let mut harness = Harness::start(cluster, settings.fragment_mb, plan.small_quota()).await?;
    let names = harness.names.clone();

    harness.mark_start();
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
    for fault in plan.faults.clone() {
        harness.inject(fault, tool_pid);
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
    // A process killed by a signal exits, as a shell or the kubelet
    // reports it, with 128 + the signal's number.
    let status = output.1.map_err(|e| e.to_string())?;
    let killed_by = std::os::unix::process::ExitStatusExt::signal(&status);
    let exit = status
        .code()
        .or(killed_by.map(|signal| 128 + signal))
        .unwrap_or(-1);
    let tool_log = match stderr {
        Some(task) => task.await.unwrap_or_default(),
        None => String::new(),
    };
    let (mut observed, logs) = harness.finish().await?;
    observed.exit = exit;
    observed.reported_defragmented = reported(&output.0, &names);
    // Killed by the stop signal it was sent before it watched for one: by
    // design only before it changed anything, and the signal is the reason.
    let stopped_early =
        killed_by.is_some() && observed.stopped_at.is_some() && observed.defrags.is_empty();
    observed.reason_given = exit == 0 || stopped_early || reason_given(&output.0, &tool_log);
    let account = format!("--- tool stdout\n{}\n--- tool stderr\n{tool_log}", output.0);
    Ok(judge(plan, observed, &logs, &account))
}

/// Judges a round: its violations, the alarm faults that took effect,
/// and with a violation the evidence (`account`: what the tool said).
pub fn judge(plan: RoundPlan, observed: Observed, logs: &[String], account: &str) -> RoundResult {
    let violations = check(&observed, GATE_PROBE_SECONDS);
    // What a violation is judged on, kept for whoever looks into it: the
    // records, the tool's own account (-v) and report, the members' logs.
    let evidence = (!violations.is_empty()).then(|| {
        format!(
            "violations {violations:?}\nplan {plan:?}\nobserved {observed:#?}\n{account}\n{}",
            logs.iter()
                .enumerate()
                .map(|(i, l)| format!("--- m{i}\n{l}"))
                .collect::<Vec<_>>()
                .join("\n")
        )
    });
    let mut fired = Vec::new();
    if observed.nospace_at.is_some() {
        fired.push("NOSPACE raised".to_string());
    }
    if !observed.corrupt.is_empty() {
        fired.push(format!("CORRUPT held {}x", observed.corrupt.len()));
    }
    RoundResult {
        defragmented: observed.defrags.iter().filter(|d| d.end.is_some()).count(),
        plan,
        exit: observed.exit,
        violations,
        fired,
        evidence,
    }
}

/// One round's cluster, once fragmented: a client writing all along, the
/// member faults injected at their moments, and at the end what the
/// servers recorded. Shared by the one-shot sweep's rounds and the
/// watcher's (`tests/k8s_soak_watch.rs`).
pub struct Harness {
    pub cluster: Arc<Mutex<Cluster>>,
    pub ids: Vec<u64>,
    pub names: Vec<String>,
    /// When the work under test started (seconds since the epoch).
    pub started: f64,
    records: Arc<Mutex<Records>>,
    writing: Arc<std::sync::atomic::AtomicBool>,
    writer: tokio::task::JoinHandle<Vec<String>>,
    injected: Vec<tokio::task::JoinHandle<Result<()>>>,
}

impl Harness {
    /// Fragments `cluster` (`fragment_mb` written, 30% kept), with
    /// `small_quota` restarts it with a quota just above its size, and
    /// starts a client writing one key at a time to each member in turn.
    pub async fn start(
        mut cluster: Cluster,
        fragment_mb: u64,
        small_quota: bool,
    ) -> Result<Harness> {
        cluster.fragment(fragment_mb << 20, 0.3).await?;
        if small_quota {
            quota_just_above_size(&mut cluster).await?;
        }
        let names: Vec<String> = cluster.members.iter().map(|m| m.name.clone()).collect();
        let ids = cluster.member_ids().await?;
        let mut writers = Vec::new();
        for i in 0..names.len() {
            writers.push(
                cluster
                    .client_with_timeout(i, Duration::from_secs(2))
                    .await?,
            );
        }
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
        Ok(Harness {
            cluster: Arc::new(Mutex::new(cluster)),
            ids,
            names,
            started: now(),
            records: Arc::new(Mutex::new(Records::default())),
            writing,
            writer,
            injected: Vec::new(),
        })
    }

    /// The work under test starts now: fault moments count from here.
    pub fn mark_start(&mut self) {
        self.started = now();
    }

    /// Injects `fault` at its moment from now (`tool`: the process a
    /// StopTool fault signals).
    pub fn inject(&mut self, fault: Fault, tool: Option<u32>) {
        let (cluster, records, ids) =
            (self.cluster.clone(), self.records.clone(), self.ids.clone());
        self.injected.push(tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(fault.at_ms())).await;
            inject(fault, &cluster, &records, &ids, tool).await
        }));
    }

    /// Records that the work was told to stop at `at` (a deleted run).
    pub async fn stopped(&self, at: f64) {
        self.records.lock().await.stopped_at.get_or_insert(at);
    }

    /// Waits for the faults to end and the writer to stop, then reads
    /// what the servers recorded: the `Observed` with every field but the
    /// tool's (`exit`, `reported_defragmented`, `reason_given`), and the
    /// members' logs.
    pub async fn finish(self) -> Result<(Observed, Vec<String>)> {
        for task in self.injected {
            task.await.map_err(|e| e.to_string())??;
        }
        self.writing
            .store(false, std::sync::atomic::Ordering::Relaxed);
        let acknowledged = self.writer.await.map_err(|e| e.to_string())?;
        let round_end = now();

        let cluster = self.cluster.lock().await;
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
        let records = self.records.lock().await.clone();
        let outages = outages_of(&records.signals);
        let logs: Vec<String> = (0..self.names.len()).map(|i| cluster.log(i)).collect();
        let after = after_round(&cluster, &self.ids, &records.corrupt_unsure).await;
        let observed = Observed {
            defrags: defrags_in(&logs, &outages, self.started),
            leaderships: leaderships_in(&logs, &outages, self.started, round_end),
            outages,
            round_end,
            members: self.names.len(),
            acknowledged: acknowledged.len() as u64,
            found: acknowledged.iter().filter(|k| found.contains(*k)).count() as u64,
            stopped_at: records.stopped_at,
            corrupt: records.corrupt.clone(),
            corrupt_cleared_by_other: records.corrupt_cleared_by_other,
            nospace_at: records.nospace_at,
            nospace_raised: records.nospace_raised.clone(),
            nospace_left: after.nospace_left,
            sizes_after: after
                .sizes
                .iter()
                .map(|s| s.zip(cluster.spec.quota_backend_bytes))
                .collect(),
            unhealthy_after: after.unhealthy,
            ..Observed::default()
        };
        Ok((observed, logs))
    }
}

/// What the faults did, as they did it.
#[derive(Debug, Clone, Default)]
struct Records {
    /// Each signal a member's process got, as it was sent.
    signals: Vec<(usize, f64, Signal)>,
    stopped_at: Option<f64>,
    corrupt: Vec<Outage>,
    corrupt_cleared_by_other: bool,
    /// Members whose CORRUPT raise was never answered: etcd may still
    /// apply it after the harness disarmed, so what is left of it is the
    /// third party's, not the tool's.
    corrupt_unsure: Vec<u64>,
    /// Each disarm the harness sent: member id, when.
    corrupt_disarms: Vec<(u64, f64)>,
    nospace_at: Option<f64>,
    nospace_raised: Vec<usize>,
}

/// Restarts every member, one at a time, with a quota 1 MiB above the
/// largest member's size: the writer's small puts still fit (they reuse
/// the free pages fragmentation left), the filler's one large put does
/// not.
async fn quota_just_above_size(cluster: &mut Cluster) -> Result<()> {
    let mut largest = 0;
    for i in 0..cluster.members.len() {
        let mut c = cluster.client(i).await?;
        let s = c.status().await.map_err(|e| e.to_string())?;
        largest = largest.max(u64::try_from(s.db_size()).unwrap_or(0));
    }
    cluster.requota(largest + FILL_BYTES / 2).await
}

/// The filler's one put: more than the room the quota leaves, within
/// etcd's default 1.5 MiB request limit.
const FILL_BYTES: u64 = 1_300_000;

/// The cluster after a round, from the members themselves.
struct After {
    nospace_left: Vec<usize>,
    sizes: Vec<Option<u64>>,
    unhealthy: Option<String>,
}

async fn after_round(cluster: &Cluster, ids: &[u64], corrupt_unsure: &[u64]) -> After {
    let mut after = After {
        nospace_left: Vec::new(),
        sizes: vec![None; ids.len()],
        unhealthy: None,
    };
    let mut problems = Vec::new();
    for (i, size) in after.sizes.iter_mut().enumerate() {
        match cluster.client(i).await {
            Ok(mut c) => match tokio::time::timeout(Duration::from_secs(5), c.status()).await {
                Ok(Ok(s)) => *size = u64::try_from(s.db_size()).ok(),
                _ => problems.push(format!("m{i} did not answer Status")),
            },
            Err(e) => problems.push(e),
        }
    }
    if let Ok(mut c) = cluster.client(0).await {
        use etcd_client::{AlarmAction, AlarmType};
        match c.alarm(AlarmAction::Get, AlarmType::None, None).await {
            Ok(list) => {
                for a in list.alarms() {
                    let member = ids.iter().position(|id| *id == a.member_id());
                    match (a.alarm(), member) {
                        (AlarmType::Nospace, Some(m)) => after.nospace_left.push(m),
                        // The harness's own raise, applied after its disarm
                        // (seed 20261205 round 97): it clears it, as the
                        // third party that raised it.
                        (AlarmType::Corrupt, Some(_))
                            if corrupt_unsure.contains(&a.member_id()) =>
                        {
                            let mut options = etcd_client::AlarmOptions::new();
                            options.with_member(a.member_id());
                            if let Err(e) = c
                                .alarm(AlarmAction::Deactivate, AlarmType::Corrupt, Some(options))
                                .await
                            {
                                problems.push(format!("disarm the late CORRUPT raise: {e}"));
                            }
                        }
                        (kind, _) => problems
                            .push(format!("alarm {kind:?} left on member {:x}", a.member_id())),
                    }
                }
            }
            Err(e) => problems.push(format!("AlarmList: {e}")),
        }
    }
    if !problems.is_empty() {
        after.unhealthy = Some(problems.join("; "));
    }
    after
}

/// Whether the tool's output says why it did not exit 0.
fn reason_given(stdout: &str, stderr: &str) -> bool {
    let Ok(doc) = serde_json::from_str::<serde_json::Value>(stdout) else {
        return stderr.contains("error:");
    };
    doc.get("stopReason").is_some()
        || doc["members"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|m| m["outcome"] == "Failed" || m["reason"] == "ProbeBudget")
        || doc["alarms"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|a| a["result"] == "failed" || a["result"] == "kept")
        || doc["hashCheck"]["verdict"] == "disagree"
}

/// Notes that `member`'s process got `signal` now.
async fn signalled(records: &Mutex<Records>, member: usize, signal: Signal) {
    records.lock().await.signals.push((member, now(), signal));
}

/// Carries out one fault, recording what it did.
async fn inject(
    fault: Fault,
    cluster: &Mutex<Cluster>,
    records: &Mutex<Records>,
    ids: &[u64],
    tool: Option<u32>,
) -> Result<()> {
    match fault {
        // Faults overlap: a member killed meanwhile is not running, and one
        // restarted meanwhile is a new process. Each signal is recorded
        // when it was sent; `outages_of` works out when a member was down.
        Fault::Pause { member, for_ms, .. } => {
            if cluster.lock().await.pause(member).is_ok() {
                signalled(records, member, Signal::Stop).await;
            }
            tokio::time::sleep(Duration::from_millis(for_ms)).await;
            if cluster.lock().await.resume(member).is_ok() {
                signalled(records, member, Signal::Cont).await;
            }
        }
        Fault::KillRestart {
            member, down_ms, ..
        } => {
            cluster.lock().await.kill(member)?;
            signalled(records, member, Signal::Kill).await;
            tokio::time::sleep(Duration::from_millis(down_ms)).await;
            cluster.lock().await.restart(member)?;
            signalled(records, member, Signal::Start).await;
        }
        Fault::MoveLeader { .. } => {
            let guard = cluster.lock().await;
            // A leader that cannot be found at once (a member down) is no
            // fault to inject now; the lock is not held for long, so that
            // the other faults fire on time.
            if let Ok(leader) = guard.wait_ready(Duration::from_secs(2)).await {
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
                    records.lock().await.stopped_at.get_or_insert(now());
                }
                if twice {
                    tokio::time::sleep(Duration::from_millis(300)).await;
                    let _ = nix::sys::signal::kill(pid, signal);
                }
            }
        }
        Fault::Corrupt { member, for_ms, .. } => {
            corrupt(cluster, records, ids[member], member, for_ms).await?
        }
        Fault::Nospace { .. } => fill(cluster, records, ids).await,
    }
    Ok(())
}

/// A client of the first member that answers within `limit`: a third
/// party goes to whichever member it can reach.
async fn any_client(cluster: &Mutex<Cluster>, limit: Duration) -> Option<etcd_client::Client> {
    let guard = cluster.lock().await;
    for i in 0..guard.members.len() {
        let Ok(mut c) = guard.client_with_timeout(i, limit).await else {
            continue;
        };
        if tokio::time::timeout(limit, c.status())
            .await
            .is_ok_and(|s| s.is_ok())
        {
            return Some(c);
        }
    }
    None
}

/// Raises CORRUPT for the member (etcd's Alarm ACTIVATE, as its corruption
/// check would), then after `for_ms` disarms it, noting whether it was
/// still raised then.
async fn corrupt(
    cluster: &Mutex<Cluster>,
    records: &Mutex<Records>,
    id: u64,
    member: usize,
    for_ms: u64,
) -> Result<()> {
    use etcd_client::{AlarmAction, AlarmOptions, AlarmType};
    let limit = Duration::from_secs(3);
    let mut options = AlarmOptions::new();
    options.with_member(id);
    // A cluster with a member down may not answer in time. A raise whose
    // answer never came may still be applied once the cluster has a
    // quorum again: it is disarmed all the same, but its span is not
    // known, so it is not judged.
    let Some(mut c) = any_client(cluster, limit).await else {
        return Ok(());
    };
    let raise = c.alarm(
        AlarmAction::Activate,
        AlarmType::Corrupt,
        Some(options.clone()),
    );
    let confirmed = matches!(tokio::time::timeout(limit, raise).await, Ok(Ok(_)));
    if !confirmed {
        records.lock().await.corrupt_unsure.push(id);
    }
    let from = now();
    tokio::time::sleep(Duration::from_millis(for_ms)).await;
    // Disarmed for sure, even with members down meanwhile.
    for _ in 0..60 {
        if let Some(mut c) = any_client(cluster, limit).await {
            let listed =
                tokio::time::timeout(limit, c.alarm(AlarmAction::Get, AlarmType::None, None)).await;
            if let Ok(Ok(list)) = listed {
                let raised = list
                    .alarms()
                    .iter()
                    .any(|a| a.member_id() == id && a.alarm() == AlarmType::Corrupt);
                let to = now();
                // Another CORRUPT fault on this member may have disarmed
                // it meanwhile: that one raise-and-disarm ended both
                // (seed 20261204 round 218). Each disarm is noted before
                // it is sent, so one that could have come before this
                // listing is seen.
                let disarmed_by_harness = {
                    let mut r = records.lock().await;
                    let earlier = r
                        .corrupt_disarms
                        .iter()
                        .filter(|&&(m, at)| m == id && from <= at && at <= to)
                        .map(|&(_, at)| at)
                        .reduce(f64::min);
                    r.corrupt_disarms.push((id, now()));
                    earlier
                };
                let disarm = c.alarm(
                    AlarmAction::Deactivate,
                    AlarmType::Corrupt,
                    Some(options.clone()),
                );
                if matches!(tokio::time::timeout(limit, disarm).await, Ok(Ok(_))) {
                    if confirmed {
                        let mut r = records.lock().await;
                        // Still raised at the listing: until then. Gone: since
                        // the first disarm the harness sent after the raise.
                        let to = match disarmed_by_harness {
                            Some(at) if !raised => at,
                            _ => to,
                        };
                        r.corrupt.push(Outage { member, from, to });
                        r.corrupt_cleared_by_other |= !raised && disarmed_by_harness.is_none();
                    }
                    return Ok(());
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    Err(format!(
        "CORRUPT raised for m{member} could not be disarmed"
    ))
}

/// One put larger than the room the quota leaves: the member that serves
/// it refuses it with NOSPACE, and members not yet defragmented raise
/// NOSPACE as they apply it. Records when NOSPACE was first seen raised.
///
/// A member that applies the put over its quota raises the alarm in the
/// background (etcd proposes it after the apply), so a put that the member
/// serving it accepted shows the alarm only a moment later: the alarms are
/// listed until one shows, for up to `limit`.
async fn fill(cluster: &Mutex<Cluster>, records: &Mutex<Records>, ids: &[u64]) {
    use etcd_client::{AlarmAction, AlarmType};
    let limit = Duration::from_secs(3);
    let Some(mut c) = any_client(cluster, limit).await else {
        return;
    };
    let value = vec![b'f'; FILL_BYTES as usize];
    let _ = tokio::time::timeout(limit, c.put("soak-fill", value, None)).await;
    let until = tokio::time::Instant::now() + limit;
    while tokio::time::Instant::now() < until {
        let listed =
            tokio::time::timeout(limit, c.alarm(AlarmAction::Get, AlarmType::None, None)).await;
        if let Ok(Ok(list)) = listed {
            let raised: Vec<usize> = list
                .alarms()
                .iter()
                .filter(|a| a.alarm() == AlarmType::Nospace)
                .filter_map(|a| ids.iter().position(|id| *id == a.member_id()))
                .collect();
            if !raised.is_empty() {
                let mut r = records.lock().await;
                r.nospace_at.get_or_insert(now());
                r.nospace_raised = raised;
                return;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// What a fault did to a member's process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Signal {
    Stop,
    Cont,
    Kill,
    Start,
}

/// When each member was down, from the signals its processes got: stopped
/// from a SIGSTOP while running until the next SIGCONT (SIGSTOPs do not
/// nest: the first SIGCONT of two overlapping pauses ends both), dead from
/// a SIGKILL until it was started again (a kill ends a stop; the new
/// process was never stopped).
fn outages_of(signals: &[(usize, f64, Signal)]) -> Vec<Outage> {
    let mut sorted = signals.to_vec();
    sorted.sort_by(|a, b| a.1.total_cmp(&b.1));
    let members: std::collections::BTreeSet<usize> = sorted.iter().map(|s| s.0).collect();
    let mut out = Vec::new();
    for member in members {
        let mut down: Option<(f64, bool)> = None; // (since, dead)
        for &(_, t, signal) in sorted.iter().filter(|s| s.0 == member) {
            match (signal, down) {
                (Signal::Stop, None) => down = Some((t, false)),
                (Signal::Cont, Some((from, false))) | (Signal::Start, Some((from, true))) => {
                    out.push(Outage {
                        member,
                        from,
                        to: t,
                    });
                    down = None;
                }
                (Signal::Kill, Some((from, false))) => {
                    out.push(Outage {
                        member,
                        from,
                        to: t,
                    });
                    down = Some((t, true));
                }
                (Signal::Kill, None) => down = Some((t, true)),
                _ => {}
            }
        }
        if let Some((from, _)) = down {
            out.push(Outage {
                member,
                from,
                to: f64::INFINITY,
            });
        }
    }
    out
}

/// Each member's defrags since `since`, from its own log: a start without
/// an end is cut at the first kill of that member after it.
fn defrags_in(logs: &[String], outages: &[Outage], since: f64) -> Vec<Defrag> {
    let mut out = Vec::new();
    for (member, log) in logs.iter().enumerate() {
        let mut start: Option<f64> = None;
        let records = log_records(log);
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

/// Each member's spans as leader since `since`, from its own raft
/// records: from "became leader" until it became anything else, or died.
fn leaderships_in(logs: &[String], outages: &[Outage], since: f64, end: f64) -> Vec<Outage> {
    let mut out = Vec::new();
    for (member, log) in logs.iter().enumerate() {
        let mut from: Option<f64> = None;
        let records = log_records(log);
        for (t, msg) in records {
            if msg.contains(" became leader at term ") {
                from = Some(t);
            } else if msg.contains(" became follower at term ")
                || msg.contains(" became candidate at term ")
                || msg.contains(" became pre-candidate at term ")
                || msg.starts_with("newRaft ")
            {
                if let Some(f) = from.take() {
                    // A restarted member's first records follow a death.
                    let to = first_outage(outages, member, f)
                        .filter(|d| *d <= t)
                        .unwrap_or(t);
                    out.push(Outage {
                        member,
                        from: f,
                        to,
                    });
                }
            }
        }
        if let Some(f) = from {
            let to = first_outage(outages, member, f).unwrap_or(end);
            out.push(Outage {
                member,
                from: f,
                to,
            });
        }
    }
    out.retain(|l| l.to >= since);
    out
}

fn cut(member: usize, start: f64, outages: &[Outage]) -> Defrag {
    Defrag {
        member,
        start,
        end: None,
        cut: first_outage(outages, member, start),
    }
}

/// When `member` was first stopped or killed at or after `since`.
fn first_outage(outages: &[Outage], member: usize, since: f64) -> Option<f64> {
    outages
        .iter()
        .filter(|o| o.member == member && o.from >= since)
        .map(|o| o.from)
        .reduce(f64::min)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn record(ts: f64, msg: &str) -> String {
        serde_json::json!({"level": "info", "ts": ts, "logger": "raft", "msg": msg}).to_string()
    }

    #[test]
    fn leadership_spans_come_from_raft_records_and_end_at_a_death() {
        let m0 = [
            record(1.0, "aa became leader at term 2"),
            record(4.0, "aa became follower at term 3"),
            record(6.0, "aa became leader at term 5"),
        ]
        .join("\n");
        // m1 led until it was killed at 3.0; its restart logs newRaft.
        let m1 = [
            record(2.0, "bb became leader at term 3"),
            record(3.5, "newRaft bb [peers: [], term: 3]"),
        ]
        .join("\n");
        let kill = Outage {
            member: 1,
            from: 3.0,
            to: 3.4,
        };
        let spans = leaderships_in(&[m0, m1], &[kill], 0.0, 9.0);
        let got: Vec<(usize, f64, f64)> = spans.iter().map(|s| (s.member, s.from, s.to)).collect();
        assert_eq!(got, [(0, 1.0, 4.0), (0, 6.0, 9.0), (1, 2.0, 3.0)]);
    }

    /// Soak seed 20261204, round 190: two pauses of m4 overlapped; the
    /// first SIGCONT ended both, though the second's came 26 s later.
    #[test]
    fn a_member_is_down_from_a_stop_or_kill_to_the_first_cont_or_start() {
        use Signal::*;
        let got = |signals: &[(usize, f64, Signal)]| -> Vec<(usize, f64, f64)> {
            outages_of(signals)
                .iter()
                .map(|o| (o.member, o.from, o.to))
                .collect()
        };
        // Overlapping pauses: down from the first STOP to the first CONT.
        assert_eq!(
            got(&[
                (4, 1.0, Stop),
                (4, 2.0, Stop),
                (4, 3.0, Cont),
                (4, 9.0, Cont)
            ]),
            [(4, 1.0, 3.0)]
        );
        // A kill during a pause ends the stop; dead until started again.
        assert_eq!(
            got(&[
                (1, 1.0, Stop),
                (1, 2.0, Kill),
                (1, 4.0, Start),
                (1, 5.0, Cont)
            ]),
            [(1, 1.0, 2.0), (1, 2.0, 4.0)]
        );
        // Members apart; a stop never ended lasts to the end.
        assert_eq!(
            got(&[(0, 1.0, Kill), (2, 1.5, Stop), (0, 2.0, Start)]),
            [(0, 1.0, 2.0), (2, 1.5, f64::INFINITY)]
        );
    }

    #[test]
    fn a_reason_is_a_stop_a_failure_a_hold_back_or_an_error_line() {
        assert!(reason_given(
            r#"{"stopReason":"Interrupted","members":[]}"#,
            ""
        ));
        assert!(reason_given(
            r#"{"members":[{"outcome":"Skipped","reason":"ProbeBudget"}]}"#,
            ""
        ));
        assert!(reason_given(r#"{"members":[{"outcome":"Failed"}]}"#, ""));
        assert!(reason_given("", "error: no member answered"));
        assert!(reason_given(
            r#"{"members":[],"alarms":[{"alarm":"CORRUPT","result":"kept"}]}"#,
            ""
        ));
        assert!(!reason_given(
            r#"{"members":[{"outcome":"Defragmented"}],"alarms":[]}"#,
            ""
        ));
        assert!(!reason_given("", "warning: something"));
    }
}

//! `doctor --serve`: `doctor` that never sleeps. Every cluster in scope is
//! examined as `doctor` examines it, each on its own clock (`--interval`
//! plus up to a tenth at random, so that clusters listed together drift
//! apart), at most `--max-concurrent` at once and each for at most
//! `--examine-timeout`: one slow or unreachable cluster never holds up the
//! rest. The clusters are listed again every interval. What was found is
//! on the board (`board.rs`), which `/metrics` renders at each scrape.
//! Ctrl-C or SIGTERM: examinations in flight are dropped (they only read),
//! `/readyz` turns 503, and the command exits 0.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use futures::stream::{FuturesUnordered, StreamExt};
use tokio::time::Instant;

use super::board::{Board, Examination, Key, Outcome};
use super::{examine, unreachable_report, Examined, Processors, ProcessorsOf};
use crate::error::{ExitStatus, Result};
use crate::exec::signals::{Notices, SignalWatch};
use crate::exec::RunControl;
use crate::reach::ClusterRef;
use crate::session::fleet::{self, Listed, Scope};
use crate::settings::command::{Doctor, DoctorServe};
use crate::settings::Global;

/// What is examined: the clusters a listing finds, or the one cluster the
/// command names (or its flags reach, standalone). Cheap to clone: each
/// examination holds the listing it started from.
#[derive(Clone)]
enum Clusters {
    Listed {
        listed: Arc<Listed>,
        processors: Arc<Vec<Processors>>,
    },
    One,
}

pub async fn run(global: &Global, args: &Doctor, serve: &DoctorServe) -> Result<ExitStatus> {
    let control = RunControl::default();
    let _signals = SignalWatch::start(
        &control,
        Notices {
            first: "examinations in flight are dropped (they only read); stopping".into(),
            hint: None,
            second: "stopping".into(),
        },
        crate::logging::message,
    )?;
    let stopping = control.cancel.clone();
    let board = Arc::new(Board::new(env!("CARGO_PKG_VERSION")));
    // Listen first: an --serve address that cannot be used fails before
    // anything is read.
    let _server =
        crate::exposition::start("--serve", serve.address, board.clone(), stopping.clone()).await?;
    let one = args.cluster.is_some() || !global.reach.endpoints.is_empty();
    let mut clusters = match one {
        true => Clusters::One,
        false => list(global, args).await?,
    };
    let mut due: BTreeMap<Key, (Instant, Option<fleet::Entry>)> = BTreeMap::new();
    let mut waiting_first = schedule(global, &clusters, &mut due, &board, args);
    if waiting_first.is_empty() {
        board.set_ready();
    }
    let mut relist_at = Instant::now() + serve.interval;
    let mut running = FuturesUnordered::new();
    let mut busy: BTreeSet<Key> = BTreeSet::new();
    loop {
        // Start what is due, as room allows, earliest first.
        let now = Instant::now();
        let mut ready: Vec<(Instant, Key)> = due
            .iter()
            .filter(|(k, (at, _))| *at <= now && !busy.contains(*k))
            .map(|(k, (at, _))| (*at, k.clone()))
            .collect();
        ready.sort();
        for (_, key) in ready {
            if busy.len() >= serve.max_concurrent {
                break;
            }
            let entry = due.get(&key).and_then(|(_, e)| e.clone());
            busy.insert(key.clone());
            running.push(one_examination(
                global,
                args,
                serve.examine_timeout,
                clusters.clone(),
                key,
                entry,
            ));
        }
        let next_due = due
            .iter()
            .filter(|(k, _)| !busy.contains(*k))
            .map(|(_, (at, _))| *at)
            .min()
            .unwrap_or(relist_at)
            .min(relist_at);
        tokio::select! {
            _ = stopping.cancelled() => break,
            Some((key, shown, examination)) = running.next(), if !running.is_empty() => {
                busy.remove(&key);
                if let Some((at, _)) = due.get_mut(&key) {
                    *at = Instant::now() + with_jitter(serve.interval);
                    say_change(&shown, &examination, board.post(&shown, examination.clone()));
                }
                waiting_first.remove(&key);
                if waiting_first.is_empty() {
                    board.set_ready();
                }
            }
            _ = tokio::time::sleep_until(next_due) => {}
        }
        if Instant::now() >= relist_at {
            relist_at = Instant::now() + serve.interval;
            if let Clusters::Listed { .. } = clusters {
                match list(global, args).await {
                    Ok(fresh) => {
                        clusters = fresh;
                        let added = schedule(global, &clusters, &mut due, &board, args);
                        waiting_first.retain(|k| due.contains_key(k));
                        waiting_first.extend(added);
                    }
                    Err(e) => tracing::warn!("listing the clusters again: {e}"),
                }
            }
        }
    }
    Ok(ExitStatus::Success)
}

/// Logs a cluster that stops being examined, and one examined again.
fn say_change(key: &Key, now: &Examination, before: Option<Outcome>) {
    let name = match &key.context {
        Some(c) => format!("{c}: {}/{}", key.namespace, key.name),
        None if key.namespace.is_empty() => key.name.clone(),
        None => format!("{}/{}", key.namespace, key.name),
    };
    match (before, now.outcome) {
        (Some(Outcome::Examined) | None, Outcome::Examined) => {}
        (_, Outcome::Examined) => tracing::info!("{name}: examined again"),
        (Some(was), outcome) if was == outcome => {}
        (_, Outcome::OnNode) => {
            tracing::info!("{name}: not examined from here (a control plane's etcd)")
        }
        (_, _) => tracing::warn!(
            "{name}: not examined: {}",
            now.why.as_deref().unwrap_or("no reason given")
        ),
    }
}

/// Lists the clusters in scope, and who processes their runs.
async fn list(global: &Global, args: &Doctor) -> Result<Clusters> {
    let scope = Scope {
        all_namespaces: args.all_namespaces,
        selector: None,
        shared: false,
        control_planes: true,
    };
    let listed = Listed::read(&global.reach, scope).await?;
    let processors = Processors::read_each(&listed).await;
    Ok(Clusters::Listed {
        listed: Arc::new(listed),
        processors: Arc::new(processors),
    })
}

/// Brings `due` in line with `clusters`: a cluster listed now is due at
/// once if new, one no longer listed leaves the schedule and the board.
/// Returns the clusters new to the schedule.
fn schedule(
    global: &Global,
    clusters: &Clusters,
    due: &mut BTreeMap<Key, (Instant, Option<fleet::Entry>)>,
    board: &Board,
    args: &Doctor,
) -> BTreeSet<Key> {
    let now = Instant::now();
    let listed: Vec<(Key, Option<fleet::Entry>)> = match clusters {
        Clusters::Listed { listed, .. } => listed
            .clusters()
            .into_iter()
            .map(|e| (key_of(Some(&e.cluster)), Some(e)))
            .collect(),
        Clusters::One => vec![(one_key(global, args), None)],
    };
    let keys: Vec<Key> = listed.iter().map(|(k, _)| k.clone()).collect();
    due.retain(|k, _| keys.contains(k));
    if let Clusters::Listed { .. } = clusters {
        board.keep(&keys);
    }
    let mut added = BTreeSet::new();
    for (key, entry) in listed {
        match due.get_mut(&key) {
            Some((_, kept)) => *kept = entry,
            None => {
                due.insert(key.clone(), (now, entry));
                added.insert(key);
            }
        }
    }
    added
}

fn key_of(cluster: Option<&ClusterRef>) -> Key {
    match cluster {
        Some(c) => Key {
            context: c.context.clone(),
            namespace: c.namespace.clone(),
            name: c.name.clone(),
        },
        None => Key {
            context: None,
            namespace: String::new(),
            name: String::new(),
        },
    }
}

/// The one cluster's place in the schedule: `--serve-as`'s name, else its
/// name as given, else (standalone) the first endpoint given. The board
/// shows a cluster named without `--serve-as` under what its examination
/// found (its namespace, once opened).
fn one_key(global: &Global, args: &Doctor) -> Key {
    if let Some(named) = serve_as(args) {
        return key_of(Some(named));
    }
    let name = match &args.cluster {
        Some(name) => name.clone(),
        None => global.reach.endpoints.first().cloned().unwrap_or_default(),
    };
    Key {
        context: None,
        namespace: String::new(),
        name,
    }
}

/// `--serve-as`: the name the one cluster is served under.
fn serve_as(args: &Doctor) -> Option<&ClusterRef> {
    args.serve.as_ref().and_then(|s| s.serve_as.as_ref())
}

/// The `kind` label of the one cluster: with `--serve-as`, `--kind`'s
/// (a control plane's etcd examined on its node is `control-plane`, as
/// `doctor -A` lists it), else what reached it.
fn one_kind(global: &Global, args: &Doctor) -> &'static str {
    match (serve_as(args).is_some(), global.reach.kind) {
        (true, Some(kind)) => kind.as_str(),
        _ => "endpoints",
    }
}

/// The interval plus up to a tenth of it, at random.
fn with_jitter(interval: Duration) -> Duration {
    let mut byte = [0u8; 2];
    let spread = match ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut byte) {
        Ok(()) => f64::from(u16::from_le_bytes(byte)) / f64::from(u16::MAX),
        Err(_) => 0.0,
    };
    interval + interval.mul_f64(spread / 10.0)
}

/// Examines one cluster within `limit`: what to post on the board.
async fn one_examination(
    global: &Global,
    args: &Doctor,
    limit: Duration,
    clusters: Clusters,
    key: Key,
    entry: Option<fleet::Entry>,
) -> (Key, Key, Examination) {
    let started = Instant::now();
    let kind = entry
        .as_ref()
        .map_or_else(|| one_kind(global, args), |e| e.kind.as_str());
    let work = async {
        match (&clusters, &entry) {
            (Clusters::Listed { listed, processors }, Some(entry)) => {
                let opened = listed.open(entry).await;
                let cluster = Some(entry.cluster.clone());
                match opened {
                    Ok(session) => {
                        let place = &listed.places[entry.place];
                        let facts =
                            Some((&place.kube, ProcessorsOf::Read(&processors[entry.place])));
                        examined(&session, facts, args).await
                    }
                    Err(crate::error::Error::OnNode { .. }) => (
                        Outcome::OnNode,
                        Examined::unreached(super::on_its_node_report(entry.cluster.clone()), None),
                    ),
                    Err(e) => (
                        Outcome::Unreachable,
                        Examined::unreached(not_opened(cluster, &e), None),
                    ),
                }
            }
            _ => match crate::session::open(&global.reach, args.cluster.as_deref()).await {
                Ok(session) => {
                    let facts = session.kube.as_ref().map(|k| (k, ProcessorsOf::ReadHere));
                    examined(&session, facts, args).await
                }
                Err(e) => (
                    Outcome::Unreachable,
                    Examined::unreached(not_opened(None, &e), None),
                ),
            },
        }
    };
    let (outcome, found) = match tokio::time::timeout(limit, work).await {
        Ok(done) => done,
        Err(_) => (
            Outcome::TimedOut,
            Examined::unreached(
                unreachable_report(
                    None,
                    format!(
                        "the examination took longer than --examine-timeout {}",
                        crate::quantity::format_duration(limit)
                    ),
                ),
                None,
            ),
        ),
    };
    let shown = match (&entry, &found.report.cluster) {
        (None, Some(cluster)) if serve_as(args).is_none() => key_of(Some(cluster)),
        _ => key.clone(),
    };
    let seconds = started.elapsed().as_secs_f64();
    let ended = jiff::Timestamp::now().as_millisecond() as f64 / 1000.0;
    let why = (outcome != Outcome::Examined)
        .then(|| found.report.findings.first().map(|f| f.message.clone()))
        .flatten();
    let examination = Examination {
        kind,
        gauges: found.gauges,
        outcome,
        ended,
        seconds,
        why,
    };
    (key, shown, examination)
}

/// Examines an opened cluster as `doctor` does, and says whether its
/// members were reached.
async fn examined(
    session: &crate::session::Session,
    facts: Option<(&crate::k8s::Kube, ProcessorsOf<'_>)>,
    args: &Doctor,
) -> (Outcome, Examined) {
    let found = examine(session, facts, args).await;
    let outcome = match found.reached {
        true => Outcome::Examined,
        false => Outcome::Unreachable,
    };
    (outcome, found)
}

/// A cluster that could not be opened: its Secrets forbidden, or anything
/// else.
fn not_opened(cluster: Option<ClusterRef>, e: &crate::error::Error) -> crate::report::DoctorReport {
    if super::super::secret_forbidden(e) {
        return super::not_dialed_report(cluster, e);
    }
    unreachable_report(cluster, e.to_string())
}

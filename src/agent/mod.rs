//! Commands about a control plane's own etcd, run on one of its nodes.
//!
//! A control plane's etcd (kubeadm's static Pods) trusts client
//! certificates that exist on its nodes only, never in a Secret, and the
//! key must not leave the node. So plugin mode does not dial it: when the
//! cluster a command means turns out to be one (`Error::OnNode` from
//! `source`), `commands::run` hands the command line here, and it runs as
//! it was typed, in standalone mode, in a short-lived Pod on a node of
//! that control plane ([`job`]): the member's loopback URL and the files
//! its own flags name as `ETCDCTL_*`. Its output comes back through the
//! Pod's log in numbered frames ([`frame`]) and is written here as the
//! command wrote it, stdout to stdout, stderr to stderr, with its exit
//! code.
//!
//! The agent keeps going when the API server stalls (the one beside a
//! member being defragmented does): its command needs no API server, and
//! the log is read again, from where it was left, once the API server
//! answers. The agent's life ends with the command's however it ends:
//! - it finishes: the Job and its Pod are deleted;
//! - the first Ctrl-C or SIGTERM here: the Job is suspended and its Pod
//!   deleted with its grace period, so its command gets SIGTERM at once,
//!   finishes what is in flight and reports, and the report is still
//!   relayed; the second stops relaying and deletes it at once;
//! - this process dies or loses the API server for good: the Job's
//!   deadline stops the Pod, and the TTL controller deletes the finished
//!   Job and Pod ([`job::TTL_SECONDS`]).
//!
//! In the Pod, [`relay`] runs the command as a child and writes its
//! frames. An answer that must not go through a log (`snapshot save`:
//! every Secret of the cluster) is served instead on a port of the node's
//! loopback to the one connection that holds this tool's token, reached
//! through `pods/portforward` ([`serve`], [`serve()`]).

pub mod frame;
pub mod job;
pub mod relay;
pub mod serve;

use std::future::Future;
use std::io::Write;
use std::time::Duration;

use futures::{AsyncBufReadExt, TryStreamExt};
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{
    Api, DeleteParams, ListParams, LogParams, Patch, PatchParams, PostParams, PropagationPolicy,
};
use tokio::sync::mpsc;

use crate::error::{Error, ExitStatus, Result};
use crate::exec::signals::{Notices, SignalWatch, StopSignal};
use crate::exec::RunControl;
use crate::k8s::{describe, Kube};
use crate::settings::AgentSettings;
use crate::source::controlplane::OnNode;
use frame::{Frame, Reader};
use job::AgentSpec;

/// How long an agent may take to start (its image pulled, its container
/// started) before the command gives up.
const START_LIMIT: Duration = Duration::from_secs(120);

/// The longest an agent Pod runs: its Job's deadline.
const DEADLINE: Duration = Duration::from_secs(6 * 3600);

/// What to run in the agent: the command line as given (without the
/// program), and whether to ask here first (a change on a terminal
/// without `--yes`: the plan is shown by a `--dry-run` agent, the person
/// answers here, and a `--yes` agent makes the change).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentCommand {
    pub args: Vec<String>,
    pub ask_first: Option<String>,
}

/// Runs `command` in an agent on a node of `on_node`, relays what it
/// writes, and ends with its exit code.
pub async fn run(
    kube: &Kube,
    settings: &AgentSettings,
    on_node: &OnNode,
    command: AgentCommand,
) -> Result<ExitStatus> {
    let facts = read_facts(kube, on_node).await;
    let spec = |args: Vec<String>| spec_of(settings, on_node, args, &facts, Vec::new());
    let Some(question) = command.ask_first else {
        return run_one(kube, &spec(command.args)?).await;
    };
    let mut dry = command.args.clone();
    dry.push("--dry-run".into());
    let shown = run_one(kube, &spec(dry)?).await?;
    if shown != ExitStatus::Success {
        return Ok(shown);
    }
    if !crate::output::prompt::confirm_async(question).await? {
        crate::logging::message("nothing was changed");
        return Ok(ExitStatus::Success);
    }
    let mut yes = command.args;
    yes.push("--yes".into());
    run_one(kube, &spec(yes)?).await
}

/// The agent for `args` on a node of `on_node`, with `env` besides the
/// variables every agent has; or why none can run there.
fn spec_of(
    settings: &AgentSettings,
    on_node: &OnNode,
    args: Vec<String>,
    facts: &crate::reach::AgentFacts,
    mut env: Vec<(String, String)>,
) -> Result<AgentSpec> {
    if let Ok(json) = serde_json::to_string(facts) {
        env.push((crate::reach::flags::AGENT_FACTS_ENV.into(), json));
    }
    let (node, endpoint, tls) = job::place(&on_node.members).map_err(|why| {
        Error::Refused(format!(
            "{} cannot be reached from its nodes: {why}",
            on_node.cluster.label()
        ))
    })?;
    Ok(AgentSpec {
        name: job_name(),
        namespace: settings.namespace.clone(),
        image: settings.image.clone(),
        cluster: on_node.cluster.clone(),
        node,
        endpoint,
        tls,
        args,
        env,
        deadline: DEADLINE,
    })
}

/// What an agent serves on its node's loopback ([`serve`]): the Pod and
/// the port, reached through `pods/portforward`.
pub struct Served {
    pub pods: Api<Pod>,
    pub pod: String,
    pub port: u16,
    /// The API server, for what its errors name.
    pub server: String,
}

/// How an agent that serves ended: what `use_it` made of its service, or
/// `None` when it never served (why is what it said, relayed); and the
/// exit status as for any agent.
pub struct ServeOutcome<T> {
    pub used: Option<T>,
    pub status: ExitStatus,
}

/// Runs `args` in an agent whose command serves one connection on its
/// node's loopback and announces the port on its stdout
/// ([`serve::announce`]); `use_it` is given the port once announced, and
/// the run's control (stop at once when it is cancelled: a signal came).
/// What the agent writes to stderr is relayed; an error of `use_it` stops
/// the agent and is returned. `env` is added to the agent's variables.
pub async fn serve<T, F, Fut>(
    kube: &Kube,
    settings: &AgentSettings,
    on_node: &OnNode,
    (args, env): (Vec<String>, Vec<(String, String)>),
    notices: Notices,
    use_it: F,
) -> Result<ServeOutcome<T>>
where
    F: FnOnce(Served, RunControl) -> Fut,
    Fut: Future<Output = Result<T>>,
{
    let facts = read_facts(kube, on_node).await;
    let spec = spec_of(settings, on_node, args, &facts, env)?;
    let running = Running::start(kube, &spec, notices).await?;
    let (tx, rx) = mpsc::unbounded_channel();
    let relay = relay_agent(
        &running.jobs,
        &running.pods,
        &spec,
        &running.control,
        Some(tx),
    );
    let served = (running.pods.clone(), kube.server.clone());
    let used = use_served(rx, served, running.control.clone(), use_it);
    let (relayed, used) = tokio::join!(relay, used);
    let signal = running.end(&spec.name).await;
    let status = status_of(relayed?, signal);
    Ok(ServeOutcome {
        used: used?,
        status,
    })
}

/// Reads the agent's stdout until it announces its port, then hands it to
/// `use_it`; `None` when the agent ended without announcing one.
async fn use_served<T, F, Fut>(
    mut heard: mpsc::UnboundedReceiver<Heard>,
    (pods, server): (Api<Pod>, String),
    control: RunControl,
    use_it: F,
) -> Result<Option<T>>
where
    F: FnOnce(Served, RunControl) -> Fut,
    Fut: Future<Output = Result<T>>,
{
    let (mut pod, mut line) = (None, Vec::new());
    let port = loop {
        match heard.recv().await {
            Some(Heard::Pod(name)) => pod = Some(name),
            Some(Heard::Stdout(bytes)) => line.extend(bytes),
            None => return Ok(None),
        }
        if let Some(end) = line.iter().position(|b| *b == b'\n') {
            match serve::announced(&line[..end]) {
                Some(port) => break port,
                None => {
                    control.abandon_now();
                    return Err(Error::Failed(format!(
                        "the agent said {:?} where it names its port: is --agent-image this release of the tool?",
                        String::from_utf8_lossy(&line[..end])
                    )));
                }
            }
        }
    };
    let Some(pod) = pod else {
        return Ok(None);
    };
    let served = Served {
        pods,
        pod,
        port,
        server,
    };
    let used = use_it(served, control.clone()).await;
    if used.is_err() {
        // Nothing more is wanted of its command, nor its words: the
        // error is this side's. It is deleted at once.
        control.abandon_now();
    }
    used.map(Some)
}

/// What the agent's command is told of `on_node` (`job::facts`), with the
/// control plane's Node objects read for their addresses; without them
/// (no `get` on nodes) where the user's API server is stays unknown.
async fn read_facts(kube: &Kube, on_node: &OnNode) -> crate::reach::AgentFacts {
    use k8s_openapi::api::core::v1::Node;
    let nodes: Api<Node> = Api::all(kube.client.clone());
    let mut names: Vec<String> = on_node
        .members
        .iter()
        .filter_map(|m| m.node.clone())
        .collect();
    names.sort();
    names.dedup();
    // One read per node, at once: they are on the way to every agent.
    let read = futures::future::join_all(names.iter().map(|name| nodes.get(name))).await;
    let mut addresses = Vec::new();
    for (name, node) in names.into_iter().zip(read) {
        match node {
            Ok(node) => {
                let listed = node.status.and_then(|s| s.addresses).unwrap_or_default();
                addresses.push((name, listed.into_iter().map(|a| a.address).collect()));
            }
            Err(e) => {
                tracing::debug!(
                    "node {name} not read ({e}): where this kubectl's API server is stays unknown"
                );
                return job::facts(&on_node.members, &kube.server, None);
            }
        }
    }
    job::facts(&on_node.members, &kube.server, Some(&addresses))
}

/// A Job name of its own: `kubectl-etcd-agent-` and eight hex digits.
fn job_name() -> String {
    let mut bytes = [0u8; 4];
    let _ = ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut bytes);
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("kubectl-etcd-agent-{hex}")
}

/// One agent: created, relayed, deleted.
async fn run_one(kube: &Kube, spec: &AgentSpec) -> Result<ExitStatus> {
    let notices = Notices {
        first: "the agent on the node finishes what is in flight and reports".into(),
        hint: Some("to stop waiting for its report".into()),
        second: "no longer waiting for the agent; it is being deleted".into(),
    };
    let running = Running::start(kube, spec, notices).await?;
    let relayed = relay_agent(&running.jobs, &running.pods, spec, &running.control, None).await;
    let signal = running.end(&spec.name).await;
    Ok(status_of(relayed?, signal))
}

/// An agent's Job made, and the signals here watched for it.
struct Running {
    jobs: Api<Job>,
    pods: Api<Pod>,
    control: RunControl,
    watch: SignalWatch,
}

impl Running {
    async fn start(kube: &Kube, spec: &AgentSpec, notices: Notices) -> Result<Running> {
        let jobs: Api<Job> = Api::namespaced(kube.client.clone(), &spec.namespace);
        let pods: Api<Pod> = Api::namespaced(kube.client.clone(), &spec.namespace);
        jobs.create(&PostParams::default(), &job::job(spec))
            .await
            .map_err(|e| {
                describe(
                    kube,
                    &format!(
                        "create the agent Job {}/{} (see docs/cli.md, \"The control plane's etcd\", for the access it needs)",
                        spec.namespace, spec.name
                    ),
                    e,
                )
            })?;
        tracing::info!(job = %spec.name, node = %spec.node, "agent started");
        let control = RunControl::default();
        let watch = SignalWatch::start(&control, notices, crate::logging::message)?;
        Ok(Running {
            jobs,
            pods,
            control,
            watch,
        })
    }

    /// Deletes the agent; the first stop signal received here, if any.
    async fn end(self, name: &str) -> Option<StopSignal> {
        let signal = self.watch.finish();
        remove(&self.jobs, &self.pods, name).await;
        signal
    }
}

/// The exit status for the agent's exit `code` (`None`: not known), the
/// first stop signal received here being `signal`. Pure.
pub fn status_of(code: Option<u8>, signal: Option<StopSignal>) -> ExitStatus {
    match (signal, code) {
        // The agent was stopped on this process's behalf: the signal
        // received here decides, as it does for a command run here.
        (Some(StopSignal::Interrupt), Some(0 | 143) | None) => ExitStatus::Interrupted,
        (Some(StopSignal::Terminate), _) => ExitStatus::Terminated,
        (Some(StopSignal::Hangup), _) => ExitStatus::HungUp,
        (_, Some(0)) => ExitStatus::Success,
        (_, Some(2)) => ExitStatus::Usage,
        (_, Some(130)) => ExitStatus::Interrupted,
        (_, Some(129)) => ExitStatus::HungUp,
        (_, Some(143)) => ExitStatus::Terminated,
        _ => ExitStatus::Failed,
    }
}

/// Deletes the Job and its Pod, now: the command has ended, and its
/// report has been relayed (or will not be).
async fn remove(jobs: &Api<Job>, pods: &Api<Pod>, name: &str) {
    let now = DeleteParams {
        grace_period_seconds: Some(0),
        propagation_policy: Some(PropagationPolicy::Background),
        ..DeleteParams::default()
    };
    if let Err(e) = jobs.delete(name, &now).await {
        crate::logging::message(&format!(
            "warning: could not delete the agent Job {name} ({e}); its TTL removes it {} s after it ends",
            job::TTL_SECONDS
        ));
    }
    // Its Pod too, without waiting for the garbage collector.
    let listed = pods
        .list(&ListParams::default().labels(&format!("job-name={name}")))
        .await;
    for pod in listed.map(|l| l.items).unwrap_or_default() {
        if let Some(pod_name) = pod.metadata.name {
            let _ = pods.delete(&pod_name, &now).await;
        }
    }
}

/// Waits for the agent's Pod, relays its frames until its exit frame, and
/// returns its exit code (`None` when it could not be learned).
async fn relay_agent(
    jobs: &Api<Job>,
    pods: &Api<Pod>,
    spec: &AgentSpec,
    control: &RunControl,
    heard: Option<mpsc::UnboundedSender<Heard>>,
) -> Result<Option<u8>> {
    let pod = started(pods, spec, control).await?;
    tracing::info!(pod = %pod, "agent running");
    if let Some(heard) = &heard {
        let _ = heard.send(Heard::Pod(pod.clone()));
    }
    let mut reader = Reader::default();
    let mut stopping = false;
    loop {
        if control.abandon.is_cancelled() {
            return Ok(None);
        }
        if control.cancel.is_cancelled() && !stopping {
            stopping = true;
            // SIGTERM to the agent's command: it finishes what is in
            // flight and reports. The Job suspended starts no other Pod;
            // its Pod deleted here (with its grace period) has the kubelet
            // send SIGTERM now, without waiting for the Job controller to
            // act on the suspension: the sooner the command hears it, the
            // less a sweep may start after the signal.
            // Both at once: the deletion is what the command waits on.
            let suspend = Patch::Merge(serde_json::json!({"spec": {"suspend": true}}));
            let (patch, delete) = (PatchParams::default(), DeleteParams::default());
            let _ = tokio::join!(
                pods.delete(&pod, &delete),
                jobs.patch(&spec.name, &patch, &suspend),
            );
        }
        let params = LogParams {
            follow: true,
            ..LogParams::default()
        };
        let stream = tokio::select! {
            s = pods.log_stream(&pod, &params) => s,
            () = control.abandon.cancelled() => return Ok(None),
            () = control.cancel.cancelled(), if !stopping => continue,
        };
        if let Ok(stream) = stream {
            let mut lines = stream.lines();
            loop {
                let line = tokio::select! {
                    l = lines.try_next() => l,
                    () = control.abandon.cancelled() => return Ok(None),
                    () = control.cancel.cancelled(), if !stopping => break,
                };
                match line {
                    Ok(Some(line)) => {
                        let before = reader.last;
                        relay_line(&mut reader, &line, heard.as_ref())?;
                        if before == 0 && reader.last > 0 {
                            tracing::info!("agent's first frame");
                        }
                        if reader.exit.is_some() {
                            return Ok(reader.exit);
                        }
                    }
                    Ok(None) | Err(_) => break,
                }
            }
        }
        // The stream ended before the exit frame: the Pod ended (its code
        // is its container's), or the API server lost the stream (read the
        // log again once it answers).
        match pods.get_opt(&pod).await {
            Ok(Some(p)) if ended(&p).is_some() => {
                // Its last lines may have come after the stream broke.
                if let Ok(log) = pods.logs(&pod, &LogParams::default()).await {
                    for line in log.lines() {
                        relay_line(&mut reader, line, heard.as_ref())?;
                    }
                }
                return Ok(reader.exit.or_else(|| ended(&p)));
            }
            Ok(None) => return Ok(reader.exit),
            _ => {
                let _ = control.sleep(Duration::from_millis(500)).await;
            }
        }
    }
}

/// What a command of this tool hears of its agent: its Pod's name once
/// it runs, then what its command writes to stdout.
enum Heard {
    Pod(String),
    Stdout(Vec<u8>),
}

/// Takes the frame on a log `line`, when it is one `reader` has not
/// taken, and writes it where the command wrote it (stdout to `heard`
/// when given and still heard).
fn relay_line(
    reader: &mut Reader,
    line: &str,
    heard: Option<&mpsc::UnboundedSender<Heard>>,
) -> Result<()> {
    match reader.take(line) {
        Some(Frame::Stdout(bytes)) => match heard {
            Some(heard) => match heard.send(Heard::Stdout(bytes)) {
                Ok(()) => Ok(()),
                Err(mpsc::error::SendError(Heard::Stdout(bytes))) => {
                    crate::output::write_stdout(&bytes).map(|_| ())
                }
                Err(_) => Ok(()),
            },
            None => crate::output::write_stdout(&bytes).map(|_| ()),
        },
        Some(Frame::Stderr(bytes)) => {
            let mut err = std::io::stderr().lock();
            match err.write_all(&bytes).and_then(|()| err.flush()) {
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                other => other.map_err(Error::Output),
            }
        }
        Some(Frame::Exit(_)) | None => Ok(()),
    }
}

/// The agent container's exit code once it has ended.
fn ended(pod: &Pod) -> Option<u8> {
    let statuses = pod.status.as_ref()?.container_statuses.as_ref()?;
    let code = statuses
        .iter()
        .find_map(|s| s.state.as_ref()?.terminated.as_ref().map(|t| t.exit_code))?;
    Some(u8::try_from(code).unwrap_or(1))
}

/// Waits until the agent's Pod has started its container (or ended), and
/// returns its name; fails at once on what will not pass by itself (its
/// image cannot be pulled or run, the Job failed), naming the remedy.
async fn started(pods: &Api<Pod>, spec: &AgentSpec, control: &RunControl) -> Result<String> {
    use kube::runtime::{watcher, WatchStreamExt};
    // Watched, not polled: the container's start is seen as the kubelet
    // reports it.
    let config = watcher::Config::default().labels(&format!("job-name={}", spec.name));
    let stream = watcher(pods.clone(), config)
        .default_backoff()
        .applied_objects();
    futures::pin_mut!(stream);
    let limit = tokio::time::sleep(START_LIMIT);
    tokio::pin!(limit);
    loop {
        let pod = tokio::select! {
            next = stream.try_next() => next,
            () = &mut limit => {
                return Err(Error::Failed(format!(
                    "the agent Job {}/{} had no running Pod on node {} after {} s",
                    spec.namespace,
                    spec.name,
                    spec.node,
                    START_LIMIT.as_secs()
                )))
            }
            () = control.cancel.cancelled() => {
                return Err(Error::Failed(
                    "stopped before the agent started; nothing was run".into(),
                ))
            }
        };
        let pod = match pod {
            Ok(Some(pod)) => pod,
            Ok(None) => return Err(Error::Failed("the agent's Pod could not be watched".into())),
            Err(e) => {
                tracing::debug!("watching the agent's Pod: {e}");
                continue;
            }
        };
        let name = pod.metadata.name.clone().unwrap_or_default();
        match start_state(&pod) {
            Start::Running => return Ok(name),
            Start::Waiting => {}
            Start::Stuck(why) => {
                return Err(Error::Failed(format!(
                    "the agent Pod {}/{name} on node {} cannot start: {why}; --agent-image names the image of this tool the node runs (now {})",
                    spec.namespace, spec.node, spec.image
                )))
            }
        }
    }
}

/// Where an agent Pod is in its start.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Start {
    Running,
    Waiting,
    Stuck(String),
}

/// Reasons a container waits with that do not pass by themselves.
const STUCK: [&str; 6] = [
    "ErrImagePull",
    "ImagePullBackOff",
    "InvalidImageName",
    "ErrImageNeverPull",
    "CreateContainerConfigError",
    "CreateContainerError",
];

fn start_state(pod: &Pod) -> Start {
    let Some(status) = pod.status.as_ref() else {
        return Start::Waiting;
    };
    for s in status.container_statuses.iter().flatten() {
        let Some(state) = &s.state else { continue };
        if state.running.is_some() || state.terminated.is_some() {
            return Start::Running;
        }
        if let Some(w) = &state.waiting {
            let reason = w.reason.clone().unwrap_or_default();
            if STUCK.contains(&reason.as_str()) {
                return Start::Stuck(format!(
                    "{reason}: {}",
                    w.message.clone().unwrap_or_default()
                ));
            }
        }
    }
    if status.phase.as_deref() == Some("Failed") {
        return Start::Stuck(format!(
            "the Pod failed: {}",
            status.message.clone().unwrap_or_default()
        ));
    }
    Start::Waiting
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exit_code_is_the_agents_unless_a_signal_here_decides() {
        use ExitStatus::*;
        use StopSignal::*;
        let cases = [
            (Some(0), None, Success),
            (Some(1), None, Failed),
            (Some(2), None, Usage),
            (Some(130), None, Interrupted),
            (Some(143), None, Terminated),
            (Some(7), None, Failed),
            (None, None, Failed),
            // Ctrl-C here: the agent was stopped (143) or had just ended.
            (Some(143), Some(Interrupt), Interrupted),
            (Some(0), Some(Interrupt), Interrupted),
            (Some(1), Some(Interrupt), Failed),
            (Some(0), Some(Terminate), Terminated),
            (None, Some(Hangup), HungUp),
        ];
        for (code, signal, want) in cases {
            assert_eq!(status_of(code, signal), want, "{code:?} {signal:?}");
        }
    }
}

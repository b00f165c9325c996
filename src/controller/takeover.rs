//! Refusing to fight another processor (issue 10, contract §5.11): two
//! controllers acting on the same EtcdDefrag both defragment. At start-up,
//! status written recently by a field manager other than ours means one is
//! active; the watcher refuses unless `--force-takeover` says otherwise.

use k8s_openapi::jiff::{SignedDuration, Timestamp};
use kube::api::{Api, ListParams};

use crate::error::{Error, Result};
use crate::k8s::{self, crd::EtcdDefrag};

/// How far back a foreign status write counts as "another processor is
/// active": longer than the operator's 10 s requeue and a few defrags.
pub const RECENT: SignedDuration = SignedDuration::from_mins(15);

/// A status write by another manager.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForeignWriter {
    pub manager: String,
    pub run: String,
    pub at: Timestamp,
}

/// The status writes of `run`: (field manager, when).
fn status_writes(run: &EtcdDefrag) -> impl Iterator<Item = (&str, Option<Timestamp>)> {
    run.metadata
        .managed_fields
        .iter()
        .flatten()
        .filter(|e| e.subresource.as_deref() == Some("status"))
        .filter_map(|e| Some((e.manager.as_deref()?, e.time.as_ref().map(|t| t.0))))
}

/// The field manager other than `ours` that has written `run`'s status,
/// whenever it did: another processor drives this run, and `--watch`
/// must never send a Defragment for it (issue 37). Pure.
pub fn other_status_writer(run: &EtcdDefrag, ours: &str) -> Option<String> {
    status_writes(run)
        .filter(|(manager, _)| *manager != ours)
        .max_by_key(|(_, at)| *at)
        .map(|(manager, _)| manager.to_string())
}

/// The most recent status write in `runs` by a manager other than `ours`
/// within [`RECENT`] of `now`. Pure.
pub fn foreign_status_writer(
    runs: &[EtcdDefrag],
    ours: &str,
    now: Timestamp,
) -> Option<ForeignWriter> {
    runs.iter()
        .flat_map(|run| {
            let name = format!(
                "{}/{}",
                run.metadata.namespace.as_deref().unwrap_or(""),
                run.metadata.name.as_deref().unwrap_or("")
            );
            status_writes(run)
                .filter(|(manager, _)| *manager != ours)
                .filter_map(move |(manager, at)| {
                    Some(ForeignWriter {
                        manager: manager.to_string(),
                        run: name.clone(),
                        at: at?,
                    })
                })
        })
        .filter(|w| now.duration_since(w.at) <= RECENT)
        .max_by_key(|w| w.at)
}

/// Refuses to start when another field manager wrote EtcdDefrag status in
/// scope recently (two processors both defragment), unless forced.
pub async fn refuse_to_fight(kube: &k8s::Kube, namespace: Option<&str>, force: bool) -> Result<()> {
    let runs: Api<EtcdDefrag> = match namespace {
        Some(ns) => Api::namespaced(kube.client.clone(), ns),
        None => Api::all(kube.client.clone()),
    };
    let scope = namespace.map_or("all namespaces".to_string(), |ns| format!("namespace {ns}"));
    let list = runs
        .list(&ListParams::default())
        .await
        .map_err(|e| Error::kube(format!("list EtcdDefrags in {scope}"), &kube.server, e))?;
    let Some(other) =
        foreign_status_writer(&list.items, super::context::FIELD_MANAGER, Timestamp::now())
    else {
        return Ok(());
    };
    let what = format!(
        "field manager {:?} wrote the status of EtcdDefrag {} at {} (within the last 15 minutes)",
        other.manager, other.run, other.at
    );
    if force {
        crate::logging::message(&format!("taking over: {what} (--force-takeover)"));
        return Ok(());
    }
    Err(Error::usage(format!(
        "another processor is active in {scope}: {what}; two processors would both defragment: stop it (e.g. the operator's defrag controller) or pass --force-takeover"
    )))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ManagedFieldsEntry, Time};

    fn run(name: &str, writes: &[(&str, &str, i64)]) -> EtcdDefrag {
        let mut r = EtcdDefrag::new(name, Default::default());
        r.metadata.namespace = Some("ns".into());
        r.metadata.managed_fields = Some(
            writes
                .iter()
                .map(|(manager, sub, secs)| ManagedFieldsEntry {
                    manager: Some(manager.to_string()),
                    subresource: (!sub.is_empty()).then(|| sub.to_string()),
                    time: Some(Time(Timestamp::from_second(*secs).unwrap())),
                    ..Default::default()
                })
                .collect(),
        );
        r
    }

    /// (case, runs, the writer named: manager and run).
    type Case = (
        &'static str,
        Vec<EtcdDefrag>,
        Option<(&'static str, &'static str)>,
    );

    #[test]
    fn another_status_writer_is_named_whenever_it_wrote() {
        let cases: Vec<(&str, EtcdDefrag, Option<&str>)> = vec![
            ("nothing written", run("a", &[]), None),
            (
                "only ours",
                run("a", &[("kubectl-etcd", "status", 1)]),
                None,
            ),
            (
                "a spec edit is not a status write",
                run("a", &[("kubectl-client-side-apply", "", 5)]),
                None,
            ),
            (
                "the operator's, however long ago",
                run(
                    "a",
                    &[("manager", "status", 1), ("kubectl-etcd", "status", 9)],
                ),
                Some("manager"),
            ),
            (
                "the latest of two others",
                run("a", &[("manager", "status", 1), ("someone", "status", 3)]),
                Some("someone"),
            ),
        ];
        for (name, r, want) in cases {
            assert_eq!(
                other_status_writer(&r, "kubectl-etcd").as_deref(),
                want,
                "{name}"
            );
        }
    }

    #[test]
    fn only_recent_status_writes_by_others_count() {
        let now = Timestamp::from_second(10_000).unwrap();
        let cases: Vec<Case> = vec![
            ("nothing written", vec![run("a", &[])], None),
            (
                "our own writes",
                vec![run("a", &[("kubectl-etcd", "status", 9_990)])],
                None,
            ),
            (
                "the operator's status write",
                vec![run("a", &[("manager", "status", 9_990)])],
                Some(("manager", "ns/a")),
            ),
            (
                "spec edits are not processing",
                vec![run("a", &[("kubectl-client-side-apply", "", 9_990)])],
                None,
            ),
            (
                "too old to matter",
                vec![run("a", &[("manager", "status", 10_000 - 16 * 60)])],
                None,
            ),
            (
                "the most recent one is named",
                vec![
                    run("a", &[("old-one", "status", 9_000)]),
                    run("b", &[("etcd-operator", "status", 9_500)]),
                ],
                Some(("etcd-operator", "ns/b")),
            ),
        ];
        for (name, runs, want) in cases {
            let got = foreign_status_writer(&runs, "kubectl-etcd", now);
            assert_eq!(
                got.as_ref().map(|w| (w.manager.as_str(), w.run.as_str())),
                want,
                "{name}"
            );
        }
    }
}

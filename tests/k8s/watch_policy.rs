//! `defrag --watch` and EtcdDefragPolicy (operator contract §5.12) against
//! the real kube-apiserver and real etcd: the watcher (the real binary,
//! run in a far-off time zone) stamps `<policy>-<unix seconds>` runs for the
//! right UTC tick, with the labels, owner reference and copied spec, and
//! holds off when suspended, when a run is still active (Forbid), or when
//! the schedule does not parse. Everything is read back from the server.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::process::Stdio;
use std::time::Duration;

use jiff::Timestamp;
use kube::api::{Api, DynamicObject, ListParams};
use kube::Client;
use serde_json::{json, Value};
use support::k8s::*;
use support::watch::runs;

const POLICY_LABEL: &str = "etcd-operator.cozystack.io/defrag-policy";

/// The watcher for `ns`, in time zone Pacific/Kiritimati (UTC+14), killed
/// when dropped.
fn watch(kubeconfig: &std::path::Path, ns: &str) -> tokio::process::Child {
    tokio::process::Command::new(env!("CARGO_BIN_EXE_kubectl-etcd"))
        .args([
            &format!("--kubeconfig={}", kubeconfig.display()),
            "--connect=direct",
            "-n",
            ns,
            "-v",
            "defrag",
            "--watch",
        ])
        .env_remove("KUBECONFIG")
        // Ticks are UTC whatever the process's zone: run it 14 hours east.
        .env("TZ", "Pacific/Kiritimati")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn the watcher")
}

fn policies(client: &Client, ns: &str) -> Api<DynamicObject> {
    dynamic(client, ns, "EtcdDefragPolicy", "etcddefragpolicies")
}

async fn create_policy(client: &Client, ns: &str, name: &str, spec: Value) {
    create(
        &policies(client, ns),
        json!({
            "apiVersion": "etcd-operator.cozystack.io/v1alpha2",
            "kind": "EtcdDefragPolicy",
            "metadata": {"name": name, "namespace": ns},
            "spec": spec,
        }),
    )
    .await;
}

/// Sets `status.lastScheduleTime` (through `/status`).
async fn set_last_schedule(client: &Client, ns: &str, name: &str, at: i64) {
    patch_status(
        &policies(client, ns),
        name,
        json!({"status": {"lastScheduleTime": rfc3339(at)}}),
    )
    .await;
}

fn rfc3339(unix: i64) -> String {
    Timestamp::from_second(unix).unwrap().to_string()
}

fn now() -> i64 {
    Timestamp::now().as_second()
}

/// The runs stamped by `policy`, by name.
async fn stamped(client: &Client, ns: &str, policy: &str) -> Vec<DynamicObject> {
    let mut items = runs(client, ns)
        .list(&ListParams::default().labels(&format!("{POLICY_LABEL}={policy}")))
        .await
        .unwrap()
        .items;
    items.sort_by_key(|r| r.metadata.name.clone());
    items
}

/// `f` polled every 200 ms until it gives `Some` (at most `limit`).
async fn wait_for<T, F, Fut>(limit: Duration, what: &str, f: F) -> T
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Result<T, String>>,
{
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        match f().await {
            Ok(v) => return v,
            Err(last) => assert!(
                tokio::time::Instant::now() < deadline,
                "never {what} within {limit:?}: {last}"
            ),
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Events recorded against the EtcdDefragPolicy `name`: (type, reason,
/// message).
async fn events(client: &Client, ns: &str, name: &str) -> Vec<(String, String, String)> {
    let api: Api<k8s_openapi::api::core::v1::Event> = Api::namespaced(client.clone(), ns);
    api.list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter(|e| {
            e.involved_object.name.as_deref() == Some(name)
                && e.involved_object.kind.as_deref() == Some("EtcdDefragPolicy")
        })
        .map(|e| {
            (
                e.type_.unwrap_or_default(),
                e.reason.unwrap_or_default(),
                e.message.unwrap_or_default(),
            )
        })
        .collect()
}

fn active_condition(status: &Value) -> Option<&Value> {
    status["conditions"]
        .as_array()?
        .iter()
        .find(|c| c["type"] == "Active")
}

/// The policy's status once its `Active` condition has `reason`.
async fn wait_active(client: &Client, ns: &str, name: &str, reason: &str) -> Value {
    wait_for(
        Duration::from_secs(30),
        &format!("Active/{reason}"),
        || async {
            let status = policies(client, ns).get(name).await.unwrap().data["status"].clone();
            match active_condition(&status) {
                Some(c) if c["reason"] == reason => Ok(status),
                _ => Err(status.to_string()),
            }
        },
    )
    .await
}

/// A `* * * * *` policy last scheduled two minutes ago gets exactly one
/// catch-up run, for the latest whole UTC minute; a daily `0 3 * * *` one
/// gets its run for 03:00 UTC (not 03:00 in the watcher's UTC+14). The
/// run carries the labels, the controller owner reference and the copied
/// spec, completes the normal way, and the policy records `StampedRun` and
/// `lastSuccessfulTime`.
#[tokio::test(flavor = "multi_thread")]
async fn a_policy_stamps_one_catch_up_run_for_the_latest_utc_tick() {
    let client = admin().await;
    let ns = "watch-policy-stamp";
    let kc = kubeconfig("watch-policy-stamp.yaml", &[ns]);
    let _fx = fixture(&client, ns, "db", Mode::Plain).await;

    create_policy(
        &client,
        ns,
        "minutely",
        json!({
            "clusterRef": {"name": "db"},
            "schedule": "* * * * *",
            "rule": {"all": true},
            "ttlSecondsAfterFinished": 300,
        }),
    )
    .await;
    let started = now();
    let minute = started - started.rem_euclid(60);
    set_last_schedule(&client, ns, "minutely", minute - 120).await;
    // 03:00 UTC daily, last acted on two days before the latest 03:00.
    let day = 86_400;
    let three = started - (started - 3 * 3600).rem_euclid(day);
    create_policy(
        &client,
        ns,
        "daily",
        json!({"clusterRef": {"name": "absent"}, "schedule": "0 3 * * *"}),
    )
    .await;
    set_last_schedule(&client, ns, "daily", three - 2 * day).await;
    let policy = policies(&client, ns).get("minutely").await.unwrap();
    let _watcher = watch(&kc, ns);

    let run = wait_for(Duration::from_secs(30), "a stamped run", || async {
        stamped(&client, ns, "minutely")
            .await
            .into_iter()
            .next()
            .ok_or_else(|| "none".to_string())
    })
    .await;
    let name = run.metadata.name.clone().unwrap();
    let tick: i64 = name
        .strip_prefix("minutely-")
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("run name {name}"));
    // The latest whole minute when the watcher acted (the minute may have
    // turned over since the test started), never the older missed tick.
    assert_eq!(tick % 60, 0, "{name}");
    assert!(tick >= minute && tick <= now(), "{name}: minute {minute}");
    let labels = run.metadata.labels.clone().unwrap();
    assert_eq!(labels[POLICY_LABEL], "minutely", "{labels:?}");
    assert_eq!(labels["etcd-operator.cozystack.io/cluster"], "db");
    let owners = run.metadata.owner_references.clone().unwrap();
    assert_eq!(owners.len(), 1, "{owners:?}");
    assert_eq!(owners[0].kind, "EtcdDefragPolicy");
    assert_eq!(owners[0].api_version, "etcd-operator.cozystack.io/v1alpha2");
    assert_eq!(owners[0].name, "minutely");
    assert_eq!(Some(&owners[0].uid), policy.metadata.uid.as_ref());
    assert_eq!(owners[0].controller, Some(true));
    assert_eq!(owners[0].block_owner_deletion, Some(true));
    assert_eq!(
        run.data["spec"],
        json!({"clusterRef": {"name": "db"}, "rule": {"all": true}, "ttlSecondsAfterFinished": 300})
    );

    // The run goes the normal way, and its policy hears of it.
    let done = wait_for(Duration::from_secs(90), "Complete", || async {
        let status = runs(&client, ns).get(&name).await.unwrap().data["status"].clone();
        match status["phase"].as_str() {
            Some("Complete") => Ok(status),
            Some("Failed") => panic!("the stamped run failed: {status}"),
            _ => Err(status.to_string()),
        }
    })
    .await;
    assert_eq!(done["defragmented"], 3, "{done}");
    let status = wait_for(Duration::from_secs(30), "lastSuccessfulTime", || async {
        let status = policies(&client, ns).get("minutely").await.unwrap().data["status"].clone();
        if status["lastSuccessfulTime"] == done["completedAt"] {
            Ok(status)
        } else {
            Err(status.to_string())
        }
    })
    .await;
    let c = active_condition(&status).unwrap();
    assert_eq!(c["status"], "True", "{status}");
    assert_eq!(c["reason"], "Scheduled", "{status}");
    assert_eq!(c["message"], "policy is scheduling runs", "{status}");
    assert!(
        status["lastScheduleTime"].as_str().unwrap() >= rfc3339(tick).as_str(),
        "{status}"
    );

    let seen = events(&client, ns, "minutely").await;
    let expected = (
        "Normal".to_string(),
        "StampedRun".to_string(),
        format!(
            "stamped EtcdDefrag \"{name}\" for scheduled time {}",
            rfc3339(tick)
        ),
    );
    assert!(seen.contains(&expected), "{seen:?}");
    // One catch-up run for the two missed ticks; later runs only for
    // minutes that have begun since.
    // A minute that began in the last few seconds may not be stamped yet
    // (the watcher stamps shortly after the tick): count it as optional.
    let settled = now() - 5;
    let all = stamped(&client, ns, "minutely").await;
    let latest = now();
    let ticks: Vec<i64> = all
        .iter()
        .map(|r| {
            r.metadata.name.as_ref().unwrap()["minutely-".len()..]
                .parse()
                .unwrap()
        })
        .collect();
    assert!(ticks.iter().all(|t| *t >= tick), "{ticks:?}");
    let distinct: std::collections::BTreeSet<&i64> = ticks.iter().collect();
    assert_eq!(distinct.len(), ticks.len(), "one run per tick: {ticks:?}");
    let (least, most) = (1 + (settled - tick) / 60, 1 + (latest - tick) / 60);
    assert!(
        (least..=most).contains(&(ticks.len() as i64)),
        "one run per tick acted on ({least}..={most}): {ticks:?}"
    );

    // The daily policy: 03:00 UTC, whatever the watcher's zone.
    let daily = wait_for(Duration::from_secs(30), "a daily run", || async {
        stamped(&client, ns, "daily")
            .await
            .into_iter()
            .next()
            .ok_or_else(|| "none".to_string())
    })
    .await;
    assert_eq!(
        daily.metadata.name.unwrap(),
        format!("daily-{three}"),
        "03:00 UTC is {}",
        rfc3339(three)
    );
    assert_eq!(stamped(&client, ns, "daily").await.len(), 1);
}

/// `suspend: true`: Active=False/Suspended, and no run is stamped even
/// with ticks missed; `lastScheduleTime` stays where it was.
#[tokio::test(flavor = "multi_thread")]
async fn a_suspended_policy_stamps_nothing() {
    let client = admin().await;
    let ns = "watch-policy-suspend";
    let kc = kubeconfig("watch-policy-suspend.yaml", &[ns]);
    namespace(&client, ns).await;
    create_policy(
        &client,
        ns,
        "paused",
        json!({"clusterRef": {"name": "db"}, "schedule": "* * * * *", "suspend": true}),
    )
    .await;
    let started = now();
    let last = started - started.rem_euclid(60) - 120;
    set_last_schedule(&client, ns, "paused", last).await;
    let _watcher = watch(&kc, ns);

    let status = wait_active(&client, ns, "paused", "Suspended").await;
    let c = active_condition(&status).unwrap();
    assert_eq!(c["status"], "False", "{status}");
    assert_eq!(c["message"], "scheduling is suspended", "{status}");
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert!(stamped(&client, ns, "paused").await.is_empty());
    let status = policies(&client, ns).get("paused").await.unwrap().data["status"].clone();
    assert_eq!(status["lastScheduleTime"], rfc3339(last), "{status}");
    assert!(events(&client, ns, "paused").await.is_empty());
}

/// Forbid (the default): with a member SIGSTOPped the first stamped run
/// stays deferred, so the next `@every 2s` tick is skipped with a Normal
/// `ConcurrencyForbidden` event and no second run exists.
#[tokio::test(flavor = "multi_thread")]
async fn forbid_skips_ticks_while_a_run_is_active() {
    let client = admin().await;
    let ns = "watch-policy-forbid";
    let kc = kubeconfig("watch-policy-forbid.yaml", &[ns]);
    let fx = fixture(&client, ns, "db", Mode::Plain).await;
    fx.etcd.pause(2).unwrap();
    create_policy(
        &client,
        ns,
        "busy",
        json!({"clusterRef": {"name": "db"}, "schedule": "@every 2s", "rule": {"all": true}}),
    )
    .await;
    let _watcher = watch(&kc, ns);

    let first = wait_for(Duration::from_secs(15), "a stamped run", || async {
        stamped(&client, ns, "busy")
            .await
            .into_iter()
            .next()
            .ok_or_else(|| "none".to_string())
    })
    .await;
    let first = first.metadata.name.unwrap();
    let skipped = wait_for(Duration::from_secs(8), "ConcurrencyForbidden", || async {
        let seen = events(&client, ns, "busy").await;
        seen.iter()
            .find(|(_, r, _)| r == "ConcurrencyForbidden")
            .cloned()
            .ok_or_else(|| format!("{seen:?}"))
    })
    .await;
    assert_eq!(skipped.0, "Normal", "{skipped:?}");
    assert!(
        skipped.2.starts_with("skipped scheduled time ")
            && skipped.2.ends_with("Z: 1 run(s) still active"),
        "{skipped:?}"
    );
    let all: Vec<String> = stamped(&client, ns, "busy")
        .await
        .into_iter()
        .map(|r| r.metadata.name.unwrap())
        .collect();
    assert_eq!(all, vec![first.clone()]);
    let status = policies(&client, ns).get("busy").await.unwrap().data["status"].clone();
    assert_eq!(status["active"], json!([{"name": first}]), "{status}");
    let phase = runs(&client, ns).get(&first).await.unwrap().data["status"]["phase"].clone();
    assert!(phase != "Complete" && phase != "Failed", "{phase}");
    fx.etcd.resume(2).unwrap();
}

/// A schedule robfig rejects: Active=False/InvalidSchedule with its text.
#[tokio::test(flavor = "multi_thread")]
async fn an_invalid_schedule_is_reported() {
    let client = admin().await;
    let ns = "watch-policy-invalid";
    let kc = kubeconfig("watch-policy-invalid.yaml", &[ns]);
    namespace(&client, ns).await;
    create_policy(
        &client,
        ns,
        "broken",
        json!({"clusterRef": {"name": "db"}, "schedule": "60 * * * *"}),
    )
    .await;
    let _watcher = watch(&kc, ns);
    let status = wait_active(&client, ns, "broken", "InvalidSchedule").await;
    let c = active_condition(&status).unwrap();
    assert_eq!(c["status"], "False", "{status}");
    assert_eq!(
        c["message"],
        "cannot parse schedule \"60 * * * *\": end of range (60) above maximum (59): 60",
        "{status}"
    );
    assert!(stamped(&client, ns, "broken").await.is_empty());
}

/// `deploy/watch` covers the policy controller: with exactly its
/// rules (impersonating the ServiceAccount) a due policy stamps its run and
/// writes its status; without the policy rule nothing happens, without the
/// status rule no status is written, without `create` no run is stamped.
#[tokio::test(flavor = "multi_thread")]
async fn the_watch_role_lets_policies_stamp_and_each_policy_rule_is_needed() {
    let client = admin().await;
    let role = manifest_role("deploy/watch");
    let rules = role.rules.clone().unwrap();
    let cases = [
        ("all", None),
        ("no-policies", Some(("etcddefragpolicies", "watch"))),
        ("no-status", Some(("etcddefragpolicies/status", "update"))),
        ("no-create", Some(("etcddefrags", "create"))),
    ];
    let mut watchers = Vec::new();
    let mut minutes = Vec::new();
    for (case, without) in cases {
        let ns = format!("watch-policy-rbac-{case}");
        namespace(&client, &ns).await;
        let reduced: Vec<_> = rules
            .iter()
            .filter(|r| {
                without.is_none_or(|(resource, verb)| {
                    !(r.resources
                        .as_ref()
                        .unwrap()
                        .contains(&resource.to_string())
                        && r.verbs.contains(&verb.to_string()))
                })
            })
            .cloned()
            .collect();
        if without.is_some() {
            assert_eq!(reduced.len(), rules.len() - 1, "{case}");
        }
        let kc = grant(
            &client,
            &ns,
            &format!("kubectl-etcd-watch-policy-{case}"),
            reduced,
            "kubectl-etcd-watch",
        )
        .await;
        grant_processors_read(&client, &ns, "kubectl-etcd-watch").await;
        create_policy(
            &client,
            &ns,
            "minutely",
            json!({"clusterRef": {"name": "absent"}, "schedule": "* * * * *"}),
        )
        .await;
        let started = now();
        let minute = started - started.rem_euclid(60);
        set_last_schedule(&client, &ns, "minutely", minute - 120).await;
        minutes.push(minute);
        watchers.push(watch(&kc, &ns));
    }

    // Exactly the manifest's rules: the run is stamped, the status written.
    let ns = "watch-policy-rbac-all";
    let status = wait_active(&client, ns, "minutely", "Scheduled").await;
    let runs = stamped(&client, ns, "minutely").await;
    assert_eq!(runs.len(), 1, "{status}");
    let tick: i64 = runs[0].metadata.name.as_ref().unwrap()["minutely-".len()..]
        .parse()
        .unwrap();
    assert!(tick >= minutes[0], "{tick}");
    assert!(status["lastScheduleTime"].as_str().unwrap() >= rfc3339(tick).as_str());
    let seen = events(&client, ns, "minutely").await;
    assert!(seen.iter().any(|(_, r, _)| r == "StampedRun"), "{seen:?}");

    tokio::time::sleep(Duration::from_secs(5)).await;
    let get = |ns: &'static str| {
        let client = client.clone();
        async move {
            let status =
                policies(&client, ns).get("minutely").await.unwrap().data["status"].clone();
            (status, stamped(&client, ns, "minutely").await.len())
        }
    };
    let (status, n) = get("watch-policy-rbac-no-policies").await;
    assert!(
        active_condition(&status).is_none() && n == 0,
        "{status} {n}"
    );
    let (status, _) = get("watch-policy-rbac-no-status").await;
    assert!(active_condition(&status).is_none(), "{status}");
    let (status, n) = get("watch-policy-rbac-no-create").await;
    assert!(
        active_condition(&status).is_none() && n == 0,
        "{status} {n}"
    );
    drop(watchers);
}

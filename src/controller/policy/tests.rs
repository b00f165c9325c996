use super::*;
use crate::k8s::crd::DefragRuleSpec;

fn ts(text: &str) -> Timestamp {
    text.parse().unwrap()
}

fn policy(schedule: &str) -> PolicyView {
    PolicyView {
        name: "nightly".into(),
        generation: Some(1),
        created: ts("2026-11-01T00:00:00Z"),
        spec: EtcdDefragPolicySpec {
            cluster_ref: NameRef { name: "db".into() },
            schedule: schedule.into(),
            ..EtcdDefragPolicySpec::default()
        },
        status: EtcdDefragPolicyStatus::default(),
    }
}

fn last_scheduled(mut p: PolicyView, at: &str) -> PolicyView {
    p.status.last_schedule_time = Some(Time(ts(at)));
    p
}

fn run(name: &str, phase: Option<DefragPhase>, completed: Option<&str>, created: &str) -> RunInfo {
    RunInfo {
        name: name.into(),
        phase,
        completed_at: completed.map(ts),
        created: Some(ts(created)),
    }
}

fn active_of(status: &EtcdDefragPolicyStatus) -> &Condition {
    status
        .conditions
        .iter()
        .find(|c| c.type_ == CONDITION_TYPE)
        .unwrap()
}

fn names(status: &EtcdDefragPolicyStatus) -> Vec<&str> {
    status.active.iter().map(|r| r.name.as_str()).collect()
}

#[test]
fn suspend_holds_last_schedule_time_and_does_not_requeue() {
    let mut p = last_scheduled(policy("0 * * * *"), "2026-12-01T00:00:00Z");
    p.spec.suspend = Some(true);
    let pass = decide(&p, &[], ts("2026-12-01T05:30:00Z"));
    assert_eq!(pass.decision, Decision::Suspended);
    assert_eq!(pass.decision.requeue(), None);
    assert_eq!(
        pass.status.last_schedule_time,
        Some(Time(ts("2026-12-01T00:00:00Z")))
    );
    let c = active_of(&pass.status);
    assert_eq!(
        (c.status.as_str(), c.reason.as_str(), c.message.as_str()),
        ("False", "Suspended", "scheduling is suspended")
    );
    assert_eq!(c.observed_generation, Some(1));
}

#[test]
fn one_catch_up_run_after_resume_then_wait_for_the_next_tick() {
    // Suspended from 00:00 to 05:30: five hourly ticks missed, one run.
    let p = last_scheduled(policy("0 * * * *"), "2026-12-01T00:00:00Z");
    let now = ts("2026-12-01T05:30:00Z");
    let pass = decide(&p, &[], now);
    let tick = ts("2026-12-01T05:00:00Z");
    assert_eq!(
        pass.decision,
        Decision::Stamp {
            tick,
            name: format!("nightly-{}", tick.as_second()),
            event: PolicyEvent {
                reason: PolicyEventReason::StampedRun,
                message: format!(
                    "stamped EtcdDefrag \"nightly-{}\" for scheduled time 2026-12-01T05:00:00Z",
                    tick.as_second()
                ),
            },
            requeue: Some(Duration::from_secs(1800)),
        }
    );
    assert_eq!(pass.status.last_schedule_time, Some(Time(tick)));
    let c = active_of(&pass.status);
    assert_eq!(
        (c.status.as_str(), c.reason.as_str(), c.message.as_str()),
        ("True", "Scheduled", "policy is scheduling runs")
    );
    // The next pass: nothing due until 06:00.
    let again = PolicyView {
        status: pass.status.clone(),
        ..p
    };
    let next = decide(&again, &[], ts("2026-12-01T05:30:01Z"));
    assert_eq!(
        next.decision,
        Decision::NotYet {
            requeue: Duration::from_secs(1799)
        }
    );
    assert_eq!(next.status.last_schedule_time, Some(Time(tick)));
}

#[test]
fn the_first_tick_is_anchored_at_creation_and_requeues_at_least_a_second() {
    let p = policy("0 3 * * *");
    let pass = decide(&p, &[], ts("2026-11-01T00:00:00.500Z"));
    assert_eq!(
        pass.decision,
        Decision::NotYet {
            requeue: Duration::from_millis(3 * 3600 * 1000 - 500)
        }
    );
    assert_eq!(pass.status.last_schedule_time, None);
    // A tick a hair ahead: a one-second requeue, never a spin.
    let soon = decide(&p, &[], ts("2026-11-01T02:59:59.900Z"));
    assert_eq!(
        soon.decision,
        Decision::NotYet {
            requeue: Duration::from_secs(1)
        }
    );
    // Process time zones play no part: 03:00 is 03:00 UTC.
    let due = decide(&p, &[], ts("2026-11-01T03:00:00Z"));
    assert!(
        matches!(due.decision, Decision::Stamp { tick, .. } if tick == ts("2026-11-01T03:00:00Z")),
        "{:?}",
        due.decision
    );
}

#[test]
fn a_backlog_of_102_ticks_acts_on_now() {
    let now = ts("2026-12-01T10:00:30.750Z");
    // 101 missed minutes: the latest tick.
    let p = last_scheduled(policy("* * * * *"), "2026-12-01T08:19:00Z");
    let pass = decide(&p, &[], now);
    assert!(
        matches!(&pass.decision, Decision::Stamp { tick, .. } if *tick == ts("2026-12-01T10:00:00Z")),
        "{:?}",
        pass.decision
    );
    // 102: `now`, at whole seconds, names the run.
    let p = last_scheduled(policy("* * * * *"), "2026-12-01T08:18:00Z");
    let pass = decide(&p, &[], now);
    let at = ts("2026-12-01T10:00:30Z");
    match &pass.decision {
        Decision::Stamp {
            tick,
            name,
            requeue,
            ..
        } => {
            assert_eq!(*tick, at);
            assert_eq!(*name, format!("nightly-{}", at.as_second()));
            assert_eq!(*requeue, Some(Duration::from_millis(29_250)));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(pass.status.last_schedule_time, Some(Time(at)));
}

#[test]
fn the_starting_deadline_is_exclusive() {
    let mut p = last_scheduled(policy("0 * * * *"), "2026-12-01T00:00:00Z");
    p.spec.starting_deadline_seconds = Some(30);
    let on = decide(&p, &[], ts("2026-12-01T01:00:30Z"));
    assert!(
        matches!(on.decision, Decision::Stamp { .. }),
        "{:?}",
        on.decision
    );
    let past = decide(&p, &[], ts("2026-12-01T01:00:31Z"));
    assert_eq!(
        past.decision,
        Decision::Missed {
            tick: ts("2026-12-01T01:00:00Z"),
            event: PolicyEvent {
                reason: PolicyEventReason::MissedSchedule,
                message:
                    "skipped scheduled time 2026-12-01T01:00:00Z: past the 30s starting deadline"
                        .into(),
            },
            requeue: Some(Duration::from_secs(3600 - 31)),
        }
    );
    assert_eq!(PolicyEventReason::MissedSchedule.event_type(), "Warning");
    assert_eq!(
        past.status.last_schedule_time,
        Some(Time(ts("2026-12-01T01:00:00Z")))
    );
    // The deadline comes before concurrency: a skipped tick is Missed
    // even with a run active.
    let busy = [run(
        "nightly-1",
        Some(DefragPhase::Running),
        None,
        "2026-12-01T00:00:00Z",
    )];
    let past = decide(&p, &busy, ts("2026-12-01T01:00:31Z"));
    assert!(matches!(past.decision, Decision::Missed { .. }));
}

#[test]
fn forbid_skips_while_a_run_is_active_and_allow_stamps() {
    let p = last_scheduled(policy("0 * * * *"), "2026-12-01T00:00:00Z");
    let now = ts("2026-12-01T01:00:05Z");
    let busy = [
        run("nightly-2", None, None, "2026-12-01T00:00:01Z"),
        run(
            "nightly-1",
            Some(DefragPhase::Pending),
            None,
            "2026-12-01T00:00:00Z",
        ),
        run(
            "nightly-0",
            Some(DefragPhase::Failed),
            Some("2026-11-30T23:00:00Z"),
            "2026-11-30T23:00:00Z",
        ),
    ];
    for concurrency in [None, Some(""), Some("Forbid")] {
        let mut p = p.clone();
        p.spec.concurrency_policy = concurrency.map(str::to_string);
        let pass = decide(&p, &busy, now);
        assert_eq!(
            pass.decision,
            Decision::Forbidden {
                tick: ts("2026-12-01T01:00:00Z"),
                event: PolicyEvent {
                    reason: PolicyEventReason::ConcurrencyForbidden,
                    message: "skipped scheduled time 2026-12-01T01:00:00Z: 2 run(s) still active"
                        .into(),
                },
                requeue: Some(Duration::from_secs(3595)),
            },
            "{concurrency:?}"
        );
        assert_eq!(
            PolicyEventReason::ConcurrencyForbidden.event_type(),
            "Normal"
        );
        assert_eq!(
            pass.status.last_schedule_time,
            Some(Time(ts("2026-12-01T01:00:00Z")))
        );
        assert_eq!(names(&pass.status), ["nightly-1", "nightly-2"]);
    }
    let mut allow = p.clone();
    allow.spec.concurrency_policy = Some("Allow".into());
    let pass = decide(&allow, &busy, now);
    assert!(
        matches!(pass.decision, Decision::Stamp { .. }),
        "{:?}",
        pass.decision
    );
    // Nothing active: Forbid stamps.
    let done = [busy[2].clone()];
    let pass = decide(&p, &done, now);
    assert!(matches!(pass.decision, Decision::Stamp { .. }));
    assert!(pass.status.active.is_empty());
}

#[test]
fn history_deletes_the_oldest_finished_runs() {
    let runs = [
        run(
            "nightly-a",
            Some(DefragPhase::Complete),
            Some("2026-12-01T03:00:00Z"),
            "2026-12-01T00:00:00Z",
        ),
        run(
            "nightly-b",
            Some(DefragPhase::Failed),
            Some("2026-12-01T01:00:00Z"),
            "2026-12-01T00:30:00Z",
        ),
        // No completedAt: its creation orders it.
        run(
            "nightly-c",
            Some(DefragPhase::Failed),
            None,
            "2026-12-01T02:00:00Z",
        ),
        run(
            "nightly-d",
            Some(DefragPhase::Running),
            None,
            "2026-11-01T00:00:00Z",
        ),
        run("nightly-e", None, None, "2026-10-01T00:00:00Z"),
    ];
    let now = ts("2026-12-01T04:00:00Z");
    let mut p = policy("0 5 * * *");
    let cases: [(Option<i32>, &[&str]); 5] = [
        (None, &[]),
        (Some(3), &[]),
        (Some(2), &["nightly-b"]),
        (Some(1), &["nightly-b", "nightly-c"]),
        (Some(0), &["nightly-b", "nightly-c", "nightly-a"]),
    ];
    for (limit, expected) in cases {
        p.spec.history_limit = limit;
        let pass = decide(&p, &runs, now);
        assert_eq!(pass.delete, expected, "{limit:?}");
        assert_eq!(names(&pass.status), ["nightly-d", "nightly-e"]);
    }
    // History is trimmed whatever else the pass does.
    p.spec.history_limit = Some(1);
    p.spec.suspend = Some(true);
    assert_eq!(decide(&p, &runs, now).delete, ["nightly-b", "nightly-c"]);
    p.spec.suspend = None;
    p.spec.schedule = "bogus".into();
    assert_eq!(decide(&p, &runs, now).delete, ["nightly-b", "nightly-c"]);
}

#[test]
fn last_successful_time_is_the_latest_complete_run() {
    let mut p = policy("0 5 * * *");
    p.status.last_successful_time = Some(Time(ts("2026-11-01T00:00:00Z")));
    let now = ts("2026-12-01T04:00:00Z");
    let runs = [
        run(
            "nightly-a",
            Some(DefragPhase::Complete),
            Some("2026-12-01T01:00:00Z"),
            "2026-12-01T00:00:00Z",
        ),
        run(
            "nightly-b",
            Some(DefragPhase::Complete),
            Some("2026-12-01T02:00:00Z"),
            "2026-12-01T00:00:00Z",
        ),
        // Failed runs do not count.
        run(
            "nightly-c",
            Some(DefragPhase::Failed),
            Some("2026-12-01T03:00:00Z"),
            "2026-12-01T00:00:00Z",
        ),
    ];
    let pass = decide(&p, &runs, now);
    assert_eq!(
        pass.status.last_successful_time,
        Some(Time(ts("2026-12-01T02:00:00Z")))
    );
    // None Complete: the stored value stays.
    let pass = decide(&p, &runs[2..], now);
    assert_eq!(
        pass.status.last_successful_time,
        Some(Time(ts("2026-11-01T00:00:00Z")))
    );
}

#[test]
fn an_invalid_schedule_is_reported_with_robfigs_text() {
    let p = last_scheduled(policy("60 * * * *"), "2026-12-01T00:00:00Z");
    let pass = decide(&p, &[], ts("2026-12-01T05:00:00Z"));
    assert_eq!(pass.decision, Decision::InvalidSchedule);
    assert_eq!(pass.decision.requeue(), None);
    let c = active_of(&pass.status);
    assert_eq!(
        (c.status.as_str(), c.reason.as_str(), c.message.as_str()),
        (
            "False",
            "InvalidSchedule",
            "cannot parse schedule \"60 * * * *\": end of range (60) above maximum (59): 60"
        )
    );
    assert_eq!(
        pass.status.last_schedule_time,
        Some(Time(ts("2026-12-01T00:00:00Z")))
    );
}

#[test]
fn a_schedule_that_never_fires_does_nothing() {
    let p = policy("0 0 30 2 *");
    let pass = decide(&p, &[], ts("2026-12-01T05:00:00Z"));
    assert_eq!(pass.decision, Decision::Never);
    assert_eq!(pass.decision.requeue(), None);
    assert_eq!(active_of(&pass.status).status, "True");
}

#[test]
fn the_active_condition_moves_its_transition_time_only_on_a_status_change() {
    let t0 = ts("2026-12-01T00:00:00Z");
    let mut p = policy("0 * * * *");
    let first = decide(&p, &[], t0);
    assert_eq!(active_of(&first.status).last_transition_time, Time(t0));

    // Still True an hour later: the time stays.
    p.status = first.status;
    let t1 = ts("2026-12-01T00:30:00Z");
    let same = decide(&p, &[], t1);
    assert_eq!(active_of(&same.status).last_transition_time, Time(t0));

    // Suspended: False, moved.
    p.status = same.status;
    p.spec.suspend = Some(true);
    let t2 = ts("2026-12-01T00:40:00Z");
    let suspended = decide(&p, &[], t2);
    assert_eq!(active_of(&suspended.status).last_transition_time, Time(t2));

    // Suspended → InvalidSchedule: both False, the time stays; the
    // reason and message change.
    p.status = suspended.status;
    p.spec.suspend = None;
    p.spec.schedule = "@fortnightly".into();
    let invalid = decide(&p, &[], ts("2026-12-01T00:50:00Z"));
    let c = active_of(&invalid.status);
    assert_eq!(c.last_transition_time, Time(t2));
    assert_eq!(c.reason, "InvalidSchedule");
    assert_eq!(
        c.message,
        "cannot parse schedule \"@fortnightly\": unrecognized descriptor: @fortnightly"
    );
    assert_eq!(invalid.status.conditions.len(), 1);

    // Fixed: True again, moved.
    p.status = invalid.status;
    p.spec.schedule = "0 * * * *".into();
    let t4 = ts("2026-12-01T00:55:00Z");
    let back = decide(&p, &[], t4);
    assert_eq!(active_of(&back.status).last_transition_time, Time(t4));
}

#[test]
fn a_stamped_run_is_appended_after_the_sorted_active_runs() {
    let p = last_scheduled(policy("0 * * * *"), "2026-12-01T00:00:00Z");
    let mut allow = p;
    allow.spec.concurrency_policy = Some("Allow".into());
    let runs = [
        run("nightly-z", None, None, "2026-12-01T00:00:00Z"),
        run("nightly-a", None, None, "2026-12-01T00:00:00Z"),
    ];
    let pass = decide(&allow, &runs, ts("2026-12-01T01:00:00Z"));
    let Decision::Stamp { name, .. } = &pass.decision else {
        panic!("{:?}", pass.decision)
    };
    let status = with_stamped(pass.status.clone(), name);
    assert_eq!(names(&status), ["nightly-a", "nightly-z", name.as_str()]);
    // Already listed: not twice.
    assert_eq!(with_stamped(status.clone(), name), status);
}

#[test]
fn the_stamped_run_carries_labels_owner_and_the_copied_spec() {
    let mut policy = EtcdDefragPolicy::new(
        "nightly",
        EtcdDefragPolicySpec {
            cluster_ref: NameRef { name: "db".into() },
            schedule: "0 3 * * *".into(),
            rule: Some(DefragRuleSpec {
                free_space_above: Some("100Mi".into()),
                quota_usage_above: Some("80%".into()),
                min_reclaim: Some("10Mi".into()),
                ..DefragRuleSpec::default()
            }),
            ttl_seconds_after_finished: Some(600),
            history_limit: Some(3),
            ..EtcdDefragPolicySpec::default()
        },
    );
    policy.metadata.namespace = Some("etcd".into());
    policy.metadata.uid = Some("0b5c".into());
    let run = stamped_run(&policy, "nightly-1795924800");
    assert_eq!(run.metadata.name.as_deref(), Some("nightly-1795924800"));
    assert_eq!(run.metadata.namespace.as_deref(), Some("etcd"));
    let labels = run.metadata.labels.clone().unwrap();
    assert_eq!(labels.len(), 2);
    assert_eq!(labels[POLICY_LABEL], "nightly");
    assert_eq!(labels["etcd-operator.cozystack.io/cluster"], "db");
    let owners = run.metadata.owner_references.clone().unwrap();
    assert_eq!(owners.len(), 1);
    let owner = &owners[0];
    assert_eq!(owner.api_version, "etcd-operator.cozystack.io/v1alpha2");
    assert_eq!(owner.kind, "EtcdDefragPolicy");
    assert_eq!(owner.name, "nightly");
    assert_eq!(owner.uid, "0b5c");
    assert_eq!(owner.controller, Some(true));
    assert_eq!(owner.block_owner_deletion, Some(true));
    assert_eq!(
        serde_json::to_value(&run.spec).unwrap(),
        serde_json::json!({
            "clusterRef": {"name": "db"},
            "rule": {"freeSpaceAbove": "100Mi", "quotaUsageAbove": "80%", "minReclaim": "10Mi"},
            "ttlSecondsAfterFinished": 600,
        })
    );
    assert_eq!(
        run_name("nightly", ts("2026-12-01T00:00:00Z")),
        "nightly-1796083200"
    );
    assert_eq!(
        rfc3339(ts("2026-12-01T00:00:00.999Z")),
        "2026-12-01T00:00:00Z"
    );
}

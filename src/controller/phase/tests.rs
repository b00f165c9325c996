#![allow(clippy::unwrap_used, clippy::expect_used)]

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;

use super::*;
use crate::k8s::crd::DefragPhase::{Complete, Failed, Pending, Running};
use crate::k8s::crd::MemberDefragStatus;
use crate::plan::defrag::Role;
use crate::plan::gate::GateReason;
use crate::report::MemberReason;

const BASE: i64 = 1_800_000_000;

/// `BASE + s` seconds.
fn at(s: i64) -> Timestamp {
    Timestamp::from_second(BASE + s).unwrap()
}

fn deadline_secs() -> i64 {
    i64::try_from(DEADLINE.as_secs()).unwrap()
}

fn view(name: &str, created: i64) -> RunView {
    RunView {
        name: name.into(),
        namespace: "ns".into(),
        cluster: "c".into(),
        created: Some(at(created)),
        generation: Some(1),
        ttl_seconds_after_finished: None,
        status: EtcdDefragStatus::default(),
        invalid_spec: None,
    }
}

fn healthy() -> Reach {
    Reach::Probed {
        running: 3,
        desired: 3,
        verdict: GateVerdict::default(),
    }
}

fn refused(members: &[&str]) -> Reach {
    Reach::Probed {
        running: 3,
        desired: 3,
        verdict: GateVerdict {
            reasons: members.iter().map(|m| unreachable(m)).collect(),
            leader: Some(1),
        },
    }
}

fn unreachable(member: &str) -> GateReason {
    GateReason::MemberUnreachable {
        member: member.into(),
        cause: "timed out".into(),
    }
}

fn deferred(sentence: &str) -> String {
    format!(
        "a defragmentation is due but the cluster is not fully healthy; deferring to protect quorum: {sentence}"
    )
}

/// Every fact gathered: the cluster exists, no other run, a healthy
/// gate, no snapshot.
fn ready(run: RunView, now: i64) -> Observation {
    Observation {
        now: at(now),
        run,
        cluster_exists: Some(true),
        siblings: Some(vec![]),
        reach: Some(healthy()),
        etcd_snapshots: Some(EtcdSnapshots::Idle),
    }
}

fn sibling(name: &str, created: i64, phase: Option<DefragPhase>) -> Sibling {
    Sibling {
        name: name.into(),
        created: Some(at(created)),
        phase,
    }
}

fn row(name: &str, role: &str, outcome: &str, reason: &str) -> MemberDefragStatus {
    MemberDefragStatus {
        name: name.into(),
        role: role.into(),
        outcome: outcome.into(),
        reason: reason.into(),
        db_size_before: (outcome != "Pending").then_some(100),
        finished_at: (outcome != "Pending").then(|| Time(at(1))),
        ..Default::default()
    }
}

/// A started run with these rows.
fn running(rows: Vec<MemberDefragStatus>, started: i64) -> RunView {
    let mut v = view("d", 0);
    v.status.phase = Some(Running);
    v.status.started_at = Some(Time(at(started)));
    v.status.members = rows;
    v.status.defragmented = defragmented_rows(&v.status);
    v
}

fn cond(status: &EtcdDefragStatus) -> (&str, &str, &str) {
    let c = checked(status).expect("a DefragChecked condition");
    (c.status.as_str(), c.reason.as_str(), c.message.as_str())
}

fn ltt(status: &EtcdDefragStatus) -> Timestamp {
    checked(status).unwrap().last_transition_time.0
}

fn status_of(t: &Transition) -> &EtcdDefragStatus {
    match t {
        Transition::Fail { status, .. }
        | Transition::Queue { status, .. }
        | Transition::Defer { status, .. }
        | Transition::Run { status, .. }
        | Transition::Finalize { status, .. } => status,
        other => panic!("no status in {other:?}"),
    }
}

/// The next pass after the reconciler wrote `t`'s status, at `now`.
fn after(obs: &Observation, t: &Transition, now: i64) -> Observation {
    let mut next = obs.clone();
    next.run.status = status_of(t).clone();
    next.now = at(now);
    next
}

#[test]
fn facts_are_asked_for_in_contract_order() {
    let mut obs = Observation::new(view("d", 0), at(1));
    assert_eq!(next(&obs), Transition::Gather(Need::Cluster));
    obs.cluster_exists = Some(true);
    assert_eq!(next(&obs), Transition::Gather(Need::Siblings));
    obs.siblings = Some(vec![]);
    assert_eq!(next(&obs), Transition::Gather(Need::Probe));
    obs.reach = Some(healthy());
    assert_eq!(next(&obs), Transition::Gather(Need::EtcdSnapshots));
    obs.etcd_snapshots = Some(EtcdSnapshots::Idle);
    assert!(matches!(next(&obs), Transition::Run { .. }));
}

#[test]
fn empty_to_pending_when_queued_written_only_when_changed() {
    let mut obs = ready(view("b", 10), 20);
    obs.siblings = Some(vec![sibling("a", 5, Some(Running))]);
    // A queued run is decided without dialing anything.
    obs.reach = None;
    obs.etcd_snapshots = None;
    let t = next(&obs);
    let Transition::Queue {
        active,
        status,
        write,
    } = &t
    else {
        panic!("{t:?}")
    };
    assert_eq!(active, "a");
    assert!(write);
    assert_eq!(status.phase, Some(Pending));
    assert_eq!(
        cond(status),
        ("False", "Queued", "waiting for EtcdDefrag \"a\" to finish")
    );
    assert_eq!(ltt(status), at(20));
    assert_eq!(checked(status).unwrap().observed_generation, Some(1));
    // Never polled: a change of the run ahead wakes it.
    assert_eq!(t.requeue_after(), None);

    // Second pass, nothing changed: no write, so the object's
    // resourceVersion stays as it was.
    let second = after(&obs, &t, 30);
    let t2 = next(&second);
    assert!(
        matches!(&t2, Transition::Queue { write: false, status, .. } if *status == second.run.status),
        "{t2:?}"
    );

    // A spec edit (new generation) changes the condition: written, and
    // lastTransitionTime stays because the status stayed False.
    let mut edited = second.clone();
    edited.run.generation = Some(2);
    let t3 = next(&edited);
    assert!(
        matches!(t3, Transition::Queue { write: true, .. }),
        "{t3:?}"
    );
    assert_eq!(ltt(status_of(&t3)), at(20));

    // Another run becomes the one to wait for: a new message, written.
    let mut other = second;
    other.siblings = Some(vec![
        sibling("a", 5, Some(Complete)),
        sibling("a2", 7, None),
    ]);
    let t4 = next(&other);
    assert!(matches!(&t4, Transition::Queue { write: true, active, .. } if active == "a2"));
    assert_eq!(
        cond(status_of(&t4)).2,
        "waiting for EtcdDefrag \"a2\" to finish"
    );
}

#[test]
fn serialization_order_is_creation_then_name_ignoring_terminal_runs() {
    let me = view("m", 10);
    let cases: Vec<(&str, Vec<Sibling>, &str)> = vec![
        ("alone", vec![], "m"),
        ("older sibling acts", vec![sibling("z", 9, None)], "z"),
        ("younger sibling waits", vec![sibling("a", 11, None)], "m"),
        (
            "same second: by name",
            vec![sibling("a", 10, Some(Pending)), sibling("n", 10, None)],
            "a",
        ),
        (
            "same second, later name",
            vec![sibling("n", 10, Some(Running))],
            "m",
        ),
        (
            "terminal older siblings do not count",
            vec![
                sibling("a", 1, Some(Complete)),
                sibling("b", 2, Some(Failed)),
            ],
            "m",
        ),
        (
            "the run itself in the list is not a rival",
            vec![sibling("m", 0, Some(Running))],
            "m",
        ),
        (
            "zero creation time sorts first",
            vec![Sibling {
                name: "zz".into(),
                created: None,
                phase: None,
            }],
            "zz",
        ),
    ];
    for (name, siblings, want) in cases {
        assert_eq!(active_run(&me, &siblings), want, "{name}");
    }
}

#[test]
fn empty_to_pending_when_deferred_before_start() {
    let mut obs = ready(view("d", 0), 5);
    obs.reach = Some(refused(&["m2", "m3"]));
    obs.etcd_snapshots = None;
    let t = next(&obs);
    let Transition::Defer {
        status,
        write,
        event,
    } = &t
    else {
        panic!("{t:?}")
    };
    let message = deferred("member m2 is unreachable: timed out");
    assert!(write);
    assert_eq!(status.phase, Some(Pending));
    assert_eq!(status.started_at, None);
    assert_eq!(
        cond(status),
        ("False", "ClusterNotHealthy", message.as_str())
    );
    assert_eq!(
        event,
        &Some(Event {
            reason: EventReason::DefragDeferred,
            message
        })
    );
    assert_eq!(t.requeue_after(), Some(REQUEUE));
}

#[test]
fn defrag_deferred_once_per_condition_change() {
    let mut obs = ready(view("d", 0), 5);
    obs.reach = Some(refused(&["m2"]));
    let first = next(&obs);
    assert!(matches!(
        &first,
        Transition::Defer {
            event: Some(_),
            write: true,
            ..
        }
    ));

    // Same reason again: no event, nothing to write.
    let same = after(&obs, &first, 15);
    let t = next(&same);
    assert!(
        matches!(
            &t,
            Transition::Defer {
                event: None,
                write: false,
                ..
            }
        ),
        "{t:?}"
    );

    // A different first reason is a new message: a new event carrying it
    // (never the old message, which kube's Recorder would have kept).
    let mut changed = same.clone();
    changed.reach = Some(refused(&["m3", "m2"]));
    let t = next(&changed);
    let Transition::Defer {
        event: Some(e),
        write: true,
        ..
    } = &t
    else {
        panic!("{t:?}")
    };
    assert_eq!(e.message, deferred("member m3 is unreachable: timed out"));

    // A spec edit changes observedGeneration: emitted again
    // (docs/contract.md#conditions-and-events).
    let mut edited = same;
    edited.run.generation = Some(2);
    assert!(matches!(
        next(&edited),
        Transition::Defer { event: Some(_), .. }
    ));
}

#[test]
fn the_operators_replica_check_comes_first() {
    let two = GateVerdict {
        reasons: vec![unreachable("m1"), unreachable("m2")],
        leader: None,
    };
    let ok = GateVerdict::default();
    let cases: Vec<(usize, usize, &GateVerdict, Option<String>)> = vec![
        (3, 3, &ok, None),
        (2, 3, &two, Some("have 2 running members, want 3".into())),
        (4, 3, &ok, Some("have 4 running members, want 3".into())),
        (0, 0, &ok, Some("have 0 running members, want 0".into())),
        (
            3,
            3,
            &two,
            Some("member m1 is unreachable: timed out".into()),
        ),
    ];
    for (running, desired, verdict, want) in cases {
        assert_eq!(
            gate_refusal(running, desired, verdict),
            want,
            "{running}/{desired}"
        );
    }
    // Scaling: the run defers with the operator's sentence.
    let mut obs = ready(view("d", 0), 5);
    obs.reach = Some(Reach::Probed {
        running: 2,
        desired: 3,
        verdict: GateVerdict::default(),
    });
    assert_eq!(
        cond(status_of(&next(&obs))).2,
        deferred("have 2 running members, want 3")
    );
}

#[test]
fn pending_to_running_stamps_started_at_once() {
    let obs = ready(view("d", 0), 100);
    let t = next(&obs);
    let Transition::Run {
        status,
        write,
        start,
        finished,
        deadline_in,
    } = &t
    else {
        panic!("{t:?}")
    };
    assert!(write);
    assert_eq!(*start, Some(at(100)));
    assert!(finished.is_empty());
    assert_eq!(*deadline_in, DEADLINE);
    assert_eq!(status.phase, Some(Running));
    assert_eq!(status.started_at, Some(Time(at(100))));
    assert_eq!(cond(status), ("True", "Running", "defragmenting members"));

    // Running → Pending: an older run now names this cluster (the spec
    // is mutable), so this one is queued; startedAt stays.
    let mut queued = after(&obs, &t, 200);
    queued.siblings = Some(vec![sibling("a", -1, None)]);
    let t2 = next(&queued);
    assert_eq!(status_of(&t2).phase, Some(Pending));
    assert_eq!(status_of(&t2).started_at, Some(Time(at(100))));

    // Deferred meanwhile: a started run is not put back to Pending.
    let mut unhealthy = after(&queued, &t2, 250);
    unhealthy.siblings = Some(vec![]);
    unhealthy.reach = Some(refused(&["m1"]));
    let t3 = next(&unhealthy);
    assert_eq!(status_of(&t3).phase, Some(Pending));
    assert_eq!(status_of(&t3).started_at, Some(Time(at(100))));

    // Pending → Running again: never restamped; the deadline runs from
    // the first start.
    let again = after(&unhealthy, &t3, 300);
    let mut again = again;
    again.reach = Some(healthy());
    let t4 = next(&again);
    let Transition::Run {
        status,
        write,
        start,
        deadline_in,
        ..
    } = &t4
    else {
        panic!("{t4:?}")
    };
    assert!(write);
    assert_eq!(*start, None);
    assert_eq!(status.started_at, Some(Time(at(100))));
    assert_eq!(status.phase, Some(Running));
    assert_eq!(*deadline_in, DEADLINE - Duration::from_secs(200));

    // A resumed Running pass with nothing new writes nothing.
    let resumed = after(&again, &t4, 310);
    assert!(matches!(
        next(&resumed),
        Transition::Run {
            write: false,
            start: None,
            ..
        }
    ));
}

#[test]
fn running_deferred_stays_running() {
    let mut obs = ready(
        running(vec![row("m1", "follower", "Defragmented", "")], 50),
        60,
    );
    obs.reach = Some(refused(&["m2"]));
    let t = next(&obs);
    let Transition::Defer { status, event, .. } = &t else {
        panic!("{t:?}")
    };
    assert_eq!(status.phase, Some(Running));
    assert_eq!(status.started_at, Some(Time(at(50))));
    assert_eq!(status.members, obs.run.status.members);
    assert!(event.is_some());
}

#[test]
fn resumed_run_passes_finished_rows_to_the_engine() {
    let obs = ready(
        running(
            vec![
                row("m1", "follower", "Defragmented", ""),
                row("m2", "follower", "Skipped", "BelowThreshold"),
                row("m3", "leader", "Pending", ""),
            ],
            50,
        ),
        60,
    );
    let Transition::Run { finished, .. } = next(&obs) else {
        panic!()
    };
    let names: Vec<_> = finished.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["m1", "m2"]);
    assert_eq!(finished[1].reason, Some(MemberReason::BelowThreshold));
}

#[test]
fn finalize_complete_or_member_failed() {
    struct Case {
        name: &'static str,
        rows: Vec<MemberDefragStatus>,
        phase: DefragPhase,
        condition: (&'static str, &'static str, &'static str),
        disarm: bool,
    }
    let cases = vec![
        Case {
            name: "Running → Complete",
            rows: vec![
                row("m1", "follower", "Defragmented", ""),
                row("m2", "follower", "Skipped", "BelowThreshold"),
                row("m3", "leader", "Defragmented", "AfterSizeUnavailable"),
            ],
            phase: Complete,
            condition: ("True", "Complete", "2/3 members defragmented"),
            disarm: true,
        },
        Case {
            name: "Running → Failed(MemberFailed)",
            rows: vec![
                row("m1", "follower", "Defragmented", ""),
                row("m2", "follower", "Failed", "RPCError"),
                row("m3", "leader", "Defragmented", ""),
            ],
            phase: Failed,
            condition: ("False", "MemberFailed", "2/3 members defragmented"),
            disarm: true,
        },
        Case {
            name: "nothing over the threshold",
            rows: vec![
                row("m1", "follower", "Skipped", "BelowThreshold"),
                row("m2", "follower", "Skipped", "BelowThreshold"),
                row("m3", "leader", "Skipped", "BelowThreshold"),
            ],
            phase: Complete,
            condition: ("True", "Complete", "0/3 members defragmented"),
            disarm: false,
        },
    ];
    for case in cases {
        let mut obs = ready(running(case.rows, 50), 90);
        // Finalizing defragments nothing, so snapshots are not looked at.
        obs.etcd_snapshots = None;
        let t = next(&obs);
        let Transition::Finalize {
            phase,
            reason,
            message,
            status,
            disarm,
        } = &t
        else {
            panic!("{}: {t:?}", case.name)
        };
        assert_eq!(*phase, case.phase, "{}", case.name);
        assert_eq!(reason.as_str(), case.condition.1, "{}", case.name);
        assert_eq!(message, case.condition.2, "{}", case.name);
        assert_eq!(*disarm, case.disarm, "{}", case.name);
        assert_eq!(status.phase, Some(case.phase), "{}", case.name);
        assert_eq!(status.completed_at, Some(Time(at(90))), "{}", case.name);
        assert_eq!(status.started_at, Some(Time(at(50))), "{}", case.name);
        assert_eq!(cond(status), case.condition, "{}", case.name);
        assert_eq!(t.requeue_after(), None);
        // Sticky from now on.
        let done = after(&obs, &t, 100);
        assert_eq!(next(&done), Transition::Ignore, "{}", case.name);
    }
}

#[test]
fn finalize_only_in_a_pass_whose_gate_passed() {
    let mut obs = ready(
        running(vec![row("m1", "leader", "Defragmented", "")], 50),
        90,
    );
    obs.reach = Some(refused(&["m1"]));
    let t = next(&obs);
    assert!(matches!(&t, Transition::Defer { .. }), "{t:?}");
    assert_eq!(status_of(&t).phase, Some(Running));
}

#[test]
fn cluster_not_found_fails_before_serialization() {
    let mut obs = Observation::new(view("b", 10), at(20));
    obs.cluster_exists = Some(false);
    let t = next(&obs);
    let message = "EtcdCluster \"c\" not found in namespace \"ns\"";
    let Transition::Fail {
        reason,
        message: m,
        status,
        event,
        disarm,
    } = &t
    else {
        panic!("{t:?}")
    };
    assert_eq!(*reason, CheckedReason::ClusterNotFound);
    assert_eq!(m, message);
    assert!(!disarm);
    assert_eq!(
        event,
        &Some(Event {
            reason: EventReason::ClusterNotFound,
            message: message.into()
        })
    );
    assert_eq!(status.phase, Some(Failed));
    assert_eq!(status.completed_at, Some(Time(at(20))));
    assert_eq!(status.started_at, None);
    assert!(status.members.is_empty());
    assert_eq!(cond(status), ("False", "ClusterNotFound", message));

    // A queued run (an older one exists) whose cluster vanished fails at
    // once, too.
    let mut queued = obs.clone();
    queued.siblings = Some(vec![sibling("a", 1, Some(Running))]);
    assert!(matches!(next(&queued), Transition::Fail { .. }));

    // Decided again with the condition already written (a lost phase
    // write): no second event.
    let mut again = obs.clone();
    again.run.status.conditions = status.conditions.clone();
    assert!(matches!(next(&again), Transition::Fail { event: None, .. }));
}

/// Issue 45: a spec the CRD accepts but no rule can be built from fails on
/// the first pass, before the cluster is read or the queue is looked at,
/// and names the field; a started run that somehow holds one fails too,
/// with nothing disarmed.
#[test]
fn an_invalid_spec_fails_at_once_naming_the_field() {
    for why in [
        "spec.rule.freeSpaceAbove: \"100Ei\": too large",
        "spec.rule.minReclaim: \"1e400\": too large",
    ] {
        let mut view = view("bad", 0);
        view.invalid_spec = Some(why.into());
        // Nothing gathered first: not the cluster, not the siblings.
        let obs = Observation::new(view, at(20));
        let Transition::Fail {
            reason,
            message,
            status,
            event,
            disarm,
        } = next(&obs)
        else {
            panic!("{why}: not failed")
        };
        assert_eq!(reason, CheckedReason::InvalidSpec);
        assert!(!disarm);
        assert_eq!(
            message,
            format!("invalid spec: {why}; no member was touched (create a new EtcdDefrag with a value that fits)")
        );
        assert_eq!(status.phase, Some(Failed));
        assert_eq!(cond(&status), ("False", "InvalidSpec", message.as_str()));
        assert_eq!(
            event,
            Some(Event {
                reason: EventReason::InvalidSpec,
                message: message.clone()
            })
        );
    }
    // A valid rule is no reason.
    let mut ok = view("fine", 0);
    ok.invalid_spec = None;
    assert!(matches!(
        next(&Observation::new(ok, at(1))),
        Transition::Gather(Need::Cluster)
    ));
    // Already Running (a spec edited under a run): failed, rows kept.
    let mut started = running(vec![row("m1", "follower", "Defragmented", "")], 5);
    started.invalid_spec = Some("spec.rule.minReclaim: \"1e400\": bad".into());
    let t = next(&Observation::new(started, at(10)));
    assert!(
        matches!(&t, Transition::Fail { reason: CheckedReason::InvalidSpec, status, .. } if status.members.len() == 1),
        "{t:?}"
    );
}

#[test]
fn deadline_from_started_at_else_creation_with_both_messages() {
    let d = deadline_secs();
    let did_not_complete = "defragmentation did not complete within 45m15s";
    let could_not_start =
        "defragmentation could not start within 45m15s (cluster never became healthy)";
    let some_done = || {
        running(
            vec![
                row("m1", "follower", "Defragmented", ""),
                row("m2", "leader", "Pending", ""),
            ],
            100,
        )
    };

    // startedAt clock: exactly D after the start still runs (strict >).
    let t = next(&ready(some_done(), 100 + d));
    assert!(
        matches!(t, Transition::Run { deadline_in, .. } if deadline_in == Duration::ZERO),
        "{t:?}"
    );
    let t = next(&ready(some_done(), 101 + d));
    let Transition::Fail {
        reason,
        message,
        disarm,
        event,
        status,
    } = &t
    else {
        panic!("{t:?}")
    };
    assert_eq!(*reason, CheckedReason::DeadlineExceeded);
    assert_eq!(message, did_not_complete);
    assert!(disarm, "a member was defragmented: NOSPACE is disarmed");
    assert_eq!(
        event.as_ref().unwrap().reason,
        EventReason::DeadlineExceeded
    );
    assert_eq!(
        cond(status),
        ("False", "DeadlineExceeded", did_not_complete)
    );
    assert_eq!(status.phase, Some(Failed));

    // Nothing defragmented: no disarm.
    let none_done = running(vec![row("m1", "leader", "Pending", "")], 100);
    assert!(matches!(
        next(&ready(none_done, 101 + d)),
        Transition::Fail { disarm: false, .. }
    ));

    // Creation clock when never started, even while the gate refuses.
    let mut never = ready(view("d", 0), d + 1);
    never.reach = Some(refused(&["m1"]));
    let t = next(&never);
    assert!(
        matches!(&t, Transition::Fail { message, disarm: false, .. } if message == could_not_start),
        "{t:?}"
    );
    assert!(matches!(
        next(&ready(view("d", 0), d)),
        Transition::Run { .. }
    ));

    // startedAt wins over an old creation time.
    let late_start = running(vec![], 1000);
    let t = next(&ready(late_start, d + 1));
    assert!(
        matches!(t, Transition::Run { deadline_in, .. } if deadline_in == Duration::from_secs(999)),
        "{t:?}"
    );

    // Zero creation time and no start: no deadline at all.
    let mut zero = view("d", 0);
    zero.created = None;
    assert!(matches!(
        next(&ready(zero, 100 * d)),
        Transition::Run { .. }
    ));

    // A queued run is not failed by the deadline (serialization first).
    let mut queued = ready(view("d", 0), 10 * d);
    queued.siblings = Some(vec![sibling("a", -5, Some(Running))]);
    assert!(matches!(next(&queued), Transition::Queue { .. }));
}

#[test]
fn dial_failure_retries_until_the_deadline_then_fails_without_disarm() {
    let d = deadline_secs();
    let dial_failed = Reach::DialFailed {
        error: "tls: unknown authority".into(),
    };
    let mut before = ready(
        running(vec![row("m1", "follower", "Defragmented", "")], 0),
        d,
    );
    before.reach = Some(dial_failed.clone());
    before.etcd_snapshots = None;
    let t = next(&before);
    assert_eq!(
        t,
        Transition::RetryLater {
            error: "tls: unknown authority".into()
        }
    );
    assert_eq!(t.requeue_after(), Some(REQUEUE));

    let mut past = before.clone();
    past.now = at(d + 1);
    let t = next(&past);
    assert!(
        matches!(&t, Transition::Fail { reason: CheckedReason::DeadlineExceeded, disarm: false, message, .. }
            if message == "defragmentation did not complete within 45m15s"),
        "{t:?}"
    );

    let mut never_started = ready(view("d", 0), d + 1);
    never_started.reach = Some(dial_failed);
    assert!(
        matches!(next(&never_started), Transition::Fail { message, .. } if message.contains("could not start"))
    );
}

#[test]
fn ttl_after_a_terminal_phase() {
    let terminal = |phase, completed: Option<i64>, ttl: Option<i32>, now: Timestamp| {
        let mut v = view("d", 0);
        v.status.phase = Some(phase);
        v.status.completed_at = completed.map(|s| Time(at(s)));
        v.ttl_seconds_after_finished = ttl;
        // Nothing gathered: a terminal run needs no read.
        next(&Observation::new(v, now))
    };
    let half = at(100)
        .checked_add(SignedDuration::from_millis(500))
        .unwrap();
    let cases: Vec<(&str, Transition)> = vec![
        (
            "no ttl: kept",
            terminal(Complete, Some(100), None, at(10_000)),
        ),
        (
            "no completedAt: kept",
            terminal(Failed, None, Some(0), at(10_000)),
        ),
        (
            "before expiry",
            terminal(Complete, Some(100), Some(60), at(130)),
        ),
        ("sub-second", terminal(Failed, Some(100), Some(60), half)),
        (
            "at expiry",
            terminal(Complete, Some(100), Some(60), at(160)),
        ),
        (
            "after expiry",
            terminal(Failed, Some(100), Some(60), at(500)),
        ),
        ("ttl 0", terminal(Complete, Some(100), Some(0), at(100))),
    ];
    let want = [
        Transition::Ignore,
        Transition::Ignore,
        Transition::RequeueAfter(Duration::from_secs(30)),
        Transition::RequeueAfter(Duration::from_millis(59_500)),
        Transition::Delete,
        Transition::Delete,
        Transition::Delete,
    ];
    for ((name, got), want) in cases.into_iter().zip(want) {
        assert_eq!(got, want, "{name}");
    }
    assert_eq!(
        Transition::RequeueAfter(Duration::from_secs(30)).requeue_after(),
        Some(Duration::from_secs(30))
    );
}

#[test]
fn terminal_phases_are_sticky() {
    for phase in [Complete, Failed] {
        let mut v = running(vec![row("m1", "leader", "Pending", "")], 0);
        v.status.phase = Some(phase);
        v.status.completed_at = Some(Time(at(1)));
        // Everything that would otherwise fail, queue or run the run.
        let mut obs = ready(v, 100 * deadline_secs());
        obs.cluster_exists = Some(false);
        obs.siblings = Some(vec![sibling("a", -1, None)]);
        obs.reach = Some(refused(&["m1"]));
        assert_eq!(next(&obs), Transition::Ignore, "{phase:?}");
    }
}

#[test]
fn a_snapshot_in_progress_defers_the_run() {
    let mut obs = ready(view("d", 0), 5);
    obs.etcd_snapshots = Some(EtcdSnapshots::InProgress {
        name: "nightly".into(),
    });
    let t = next(&obs);
    let want = deferred("EtcdSnapshot \"nightly\" of this cluster is in progress");
    let Transition::Defer { status, event, .. } = &t else {
        panic!("{t:?}")
    };
    assert_eq!(status.phase, Some(Pending));
    assert_eq!(cond(status), ("False", "ClusterNotHealthy", want.as_str()));
    assert_eq!(event.as_ref().unwrap().message, want);

    // A started run stays Running while it waits.
    let mut started = ready(running(vec![row("m1", "follower", "Pending", "")], 1), 5);
    started.etcd_snapshots = obs.etcd_snapshots.clone();
    assert_eq!(status_of(&next(&started)).phase, Some(Running));
}

#[test]
fn last_transition_time_moves_only_with_the_status() {
    let first = checked_condition(
        false,
        CheckedReason::Queued,
        "waiting".into(),
        Some(1),
        None,
        at(1),
    );
    assert_eq!(first.last_transition_time, Time(at(1)));
    assert_eq!(first.type_, CONDITION_TYPE);
    let same_status = checked_condition(
        false,
        CheckedReason::ClusterNotHealthy,
        "x".into(),
        Some(2),
        Some(&first),
        at(5),
    );
    assert_eq!(same_status.last_transition_time, Time(at(1)));
    assert_eq!(same_status.observed_generation, Some(2));
    let flipped = checked_condition(
        true,
        CheckedReason::Running,
        "defragmenting members".into(),
        Some(2),
        Some(&same_status),
        at(9),
    );
    assert_eq!(flipped.last_transition_time, Time(at(9)));
    assert_eq!(flipped.status, "True");

    // What counts as a change.
    let mut later = first.clone();
    later.last_transition_time = Time(at(99));
    assert!(!condition_changed(Some(&first), &later), "time alone");
    assert!(condition_changed(None, &first), "new");
    for edit in [
        |c: &mut Condition| c.status = "True".into(),
        |c: &mut Condition| c.reason = "Other".into(),
        |c: &mut Condition| c.message = "other".into(),
        |c: &mut Condition| c.observed_generation = Some(7),
    ] {
        let mut c = first.clone();
        edit(&mut c);
        assert!(condition_changed(Some(&first), &c), "{c:?}");
    }
}

#[test]
fn other_condition_types_are_left_alone() {
    let mut v = view("d", 0);
    let mut other = checked_condition(true, CheckedReason::Running, "x".into(), None, None, at(0));
    other.type_ = "SomethingElse".into();
    v.status.conditions = vec![other.clone()];
    let t = next(&ready(v, 5));
    let conditions = &status_of(&t).conditions;
    assert_eq!(conditions.len(), 2);
    assert_eq!(conditions[0], other);
    assert_eq!(conditions[1].type_, CONDITION_TYPE);
}

fn result(
    name: &str,
    role: Role,
    outcome: Outcome,
    reason: Option<MemberReason>,
    before: u64,
    after: Option<u64>,
) -> MemberResult {
    MemberResult {
        name: name.into(),
        id: "0000000000000001".into(),
        role,
        outcome,
        reason,
        detail: Some("details stay in the report".into()),
        db_size_before: before,
        db_size_in_use: 10,
        db_size_after: after,
        reclaimed_bytes: None,
        predicted_reclaim: 0,
        duration_ms: Some(5),
        recovered_ms: None,
    }
}

#[test]
fn engine_results_map_to_status_rows() {
    use MemberReason::*;
    use Outcome::{Defragmented as D, Failed as F, Pending as P, Skipped as S};
    type Sizes = (Option<i64>, Option<i64>, Option<i64>);
    /// Result in; role, outcome and reason, sizes and whether
    /// `finishedAt` is set out.
    type Case = (
        &'static str,
        MemberResult,
        (&'static str, &'static str, &'static str),
        Sizes,
        bool,
    );
    let now = at(42);
    let cases: Vec<Case> = vec![
        (
            "defragmented",
            result("a", Role::Follower, D, None, 100, Some(60)),
            ("follower", "Defragmented", ""),
            (Some(100), Some(60), Some(40)),
            true,
        ),
        (
            "size afterwards unknown: never 0",
            result("a", Role::Leader, D, Some(AfterSizeUnavailable), 100, None),
            ("leader", "Defragmented", "AfterSizeUnavailable"),
            (Some(100), None, None),
            true,
        ),
        (
            "nothing reclaimed: omitted",
            result("a", Role::Follower, D, None, 100, Some(100)),
            ("follower", "Defragmented", ""),
            (Some(100), Some(100), None),
            true,
        ),
        (
            "grew: no reclaimed",
            result("a", Role::Follower, D, None, 100, Some(120)),
            ("follower", "Defragmented", ""),
            (Some(100), Some(120), None),
            true,
        ),
        (
            "below threshold",
            result("a", Role::Follower, S, Some(BelowThreshold), 100, None),
            ("follower", "Skipped", "BelowThreshold"),
            (Some(100), None, None),
            true,
        ),
        (
            "rpc error",
            result("a", Role::Follower, F, Some(RpcError), 100, None),
            ("follower", "Failed", "RPCError"),
            (Some(100), None, None),
            true,
        ),
        (
            "member gone: no sizes",
            result("a", Role::Follower, F, Some(MemberGone), 100, None),
            ("follower", "Failed", "MemberGone"),
            (None, None, None),
            true,
        ),
        (
            "learner",
            result("a", Role::Learner, S, Some(Learner), 100, None),
            ("learner", "Skipped", "Learner"),
            (Some(100), None, None),
            true,
        ),
        (
            "unknown size before",
            result("a", Role::Follower, F, Some(NoEndpoint), 0, None),
            ("follower", "Failed", "NoEndpoint"),
            (None, None, None),
            true,
        ),
        (
            "pending: name, role and outcome only",
            result("a", Role::Leader, P, None, 100, None),
            ("leader", "Pending", ""),
            (None, None, None),
            false,
        ),
    ];
    for (name, r, (role, outcome, reason), sizes, finished) in cases {
        let row = row_from_result(&r, now);
        assert_eq!(
            (row.role.as_str(), row.outcome.as_str(), row.reason.as_str()),
            (role, outcome, reason),
            "{name}"
        );
        assert_eq!(
            (row.db_size_before, row.db_size_after, row.reclaimed_bytes),
            sizes,
            "{name}"
        );
        assert_eq!(row.finished_at, finished.then_some(Time(now)), "{name}");
    }
    let json = serde_json::to_value(row_from_result(
        &result("a", Role::Leader, D, None, 100, Some(60)),
        now,
    ))
    .unwrap();
    assert_eq!(
        json,
        serde_json::json!({
            "name": "a", "role": "leader", "outcome": "Defragmented",
            "dbSizeBefore": 100, "dbSizeAfter": 60, "reclaimedBytes": 40,
            "finishedAt": "2027-01-15T08:00:42Z"
        })
    );
}

#[test]
fn finished_rows_map_back_for_the_engine() {
    let mut weird = row("w", "", "Unheard", "Odd");
    weird.db_size_before = None;
    let rows = vec![
        MemberDefragStatus {
            db_size_after: Some(60),
            reclaimed_bytes: Some(40),
            ..row("a", "follower", "Defragmented", "")
        },
        row("b", "leader", "Failed", "RPCError"),
        row("c", "learner", "Skipped", "Learner"),
        row("p", "leader", "Pending", ""),
        weird,
    ];
    let back = finished_from_rows(&rows);
    let view: Vec<_> = back
        .iter()
        .map(|r| (r.name.as_str(), r.role, r.outcome, r.reason))
        .collect();
    assert_eq!(
        view,
        [
            ("a", Role::Follower, Outcome::Defragmented, None),
            (
                "b",
                Role::Leader,
                Outcome::Failed,
                Some(MemberReason::RpcError)
            ),
            (
                "c",
                Role::Learner,
                Outcome::Skipped,
                Some(MemberReason::Learner)
            ),
            ("w", Role::Follower, Outcome::Skipped, None),
        ]
    );
    assert_eq!(
        (
            back[0].db_size_before,
            back[0].db_size_after,
            back[0].reclaimed_bytes
        ),
        (100, Some(60), Some(40))
    );
    assert_eq!(back[3].db_size_before, 0);
    // A finished row written back from its result is the same row.
    let mut again = row_from_result(&back[0], at(1));
    again.finished_at = rows[0].finished_at.clone();
    assert_eq!(again, rows[0]);
}

/// The names serde reads a unit enum's variants by (the enum's own
/// list, renames applied): a Deserializer that only records what
/// `deserialize_enum` is handed.
fn serde_names<T: serde::de::DeserializeOwned>() -> &'static [&'static str] {
    use serde::de::{self, Visitor};
    struct Names(&'static [&'static str]);
    impl<'de> de::Deserializer<'de> for &mut Names {
        type Error = de::value::Error;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(de::Error::custom("not an enum"))
        }
        fn deserialize_enum<V: Visitor<'de>>(
            self,
            _: &'static str,
            variants: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Self::Error> {
            self.0 = variants;
            Err(de::Error::custom("names read"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
            bytes byte_buf option unit unit_struct newtype_struct seq tuple
            tuple_struct map struct identifier ignored_any
        }
    }
    let mut names = Names(&[]);
    let _ = T::deserialize(&mut names);
    names.0
}

/// Every outcome and every reason serde knows (so a variant is in the
/// table the moment it is declared), with its status spelling: written
/// into a status row and read back, it is the same variant.
#[test]
fn every_outcome_and_reason_round_trips_through_a_status_row() {
    assert_eq!(
        serde_names::<Outcome>(),
        ["Pending", "Skipped", "Defragmented", "Failed"]
    );
    assert_eq!(
        serde_names::<MemberReason>(),
        [
            "BelowThreshold",
            "Learner",
            "NotSelected",
            "AlreadyReclaimed",
            "RPCError",
            "AfterSizeUnavailable",
            "MemberGone",
            "NoEndpoint",
            "Unreachable",
            "ProbeBudget",
            "NoDiskRoom",
        ]
    );
    let reasons: Vec<MemberReason> = serde_names::<MemberReason>()
        .iter()
        .map(|name| MemberReason::parse(name).unwrap())
        .collect();
    for reason in &reasons {
        assert_eq!(MemberReason::parse(reason.as_str()), Some(*reason));
    }
    for name in serde_names::<Outcome>() {
        let outcome = Outcome::parse(name).unwrap();
        assert_eq!(outcome.as_str(), *name);
        for reason in reasons.iter().copied().map(Some).chain([None]) {
            let written = result("a", Role::Follower, outcome, reason, 100, Some(60));
            let row = row_from_result(&written, at(1));
            assert_eq!(
                (
                    Outcome::parse(&row.outcome),
                    MemberReason::parse(&row.reason)
                ),
                (Some(outcome), reason),
                "{row:?}"
            );
            match result_from_row(&row) {
                // A Pending row is not a result: the member is still to do.
                None => assert_eq!(outcome, Outcome::Pending),
                Some(back) => assert_eq!((back.outcome, back.reason), (outcome, reason)),
            }
        }
    }
}

#[test]
fn recording_results_never_rewrites_a_finished_row() {
    let mut status = EtcdDefragStatus {
        members: vec![
            row("a", "follower", "Defragmented", ""),
            row("b", "follower", "Pending", ""),
        ],
        ..Default::default()
    };
    let results = vec![
        // The engine reports finished input rows first, as they were.
        result("a", Role::Leader, Outcome::Defragmented, None, 999, Some(1)),
        // Leadership moved: b was the leader when it was defragmented.
        result(
            "b",
            Role::Leader,
            Outcome::Defragmented,
            None,
            100,
            Some(50),
        ),
        result(
            "c",
            Role::Follower,
            Outcome::Skipped,
            Some(MemberReason::BelowThreshold),
            10,
            None,
        ),
    ];
    record_results(&mut status, &results, at(50));
    assert_eq!(status.members[0], row("a", "follower", "Defragmented", ""));
    assert_eq!(status.members[1].role, "leader");
    assert_eq!(status.members[1].finished_at, Some(Time(at(50))));
    assert_eq!(status.members[1].reclaimed_bytes, Some(50));
    assert_eq!(status.members[2].name, "c");
    assert_eq!(status.defragmented, 2);
    // Recording the same results again changes nothing.
    let before = status.clone();
    record_results(&mut status, &results, at(60));
    assert_eq!(status, before);
}

#[test]
fn a_row_the_engine_never_reached_becomes_member_gone() {
    let mut v = running(
        vec![
            row("a", "follower", "Defragmented", ""),
            row("gone", "follower", "Pending", ""),
        ],
        0,
    );
    mark_gone(&mut v.status, at(30));
    assert_eq!(
        v.status.members[0],
        row("a", "follower", "Defragmented", "")
    );
    let gone = &v.status.members[1];
    assert_eq!(
        (gone.outcome.as_str(), gone.reason.as_str()),
        ("Failed", "MemberGone")
    );
    assert_eq!(
        (gone.db_size_before, gone.finished_at.clone()),
        (None, Some(Time(at(30))))
    );
    let t = next(&ready(v, 40));
    assert!(
        matches!(&t, Transition::Finalize { phase: Failed, message, .. } if message == "1/2 members defragmented"),
        "{t:?}"
    );
}

#[test]
fn deadline_is_derived_from_seven_members() {
    assert_eq!(DEADLINE, Duration::from_secs(45 * 60 + 15));
    assert_eq!(DEADLINE_TEXT, "45m15s");
}

#[test]
fn event_messages() {
    assert_eq!(Event::TYPE, "Warning");
    assert_eq!(
        Event::defrag_failed("m1", "context deadline exceeded"),
        Event {
            reason: EventReason::DefragFailed,
            message: "defragmentation of member m1 failed: context deadline exceeded".into()
        }
    );
    let e = Event::alarm_disarm_failed("member 1: boom");
    assert_eq!(e.reason.as_str(), "AlarmDisarmFailed");
    assert_eq!(
        e.message,
        "reclaimed backend space but could not disarm NOSPACE alarm; cluster may stay read-only: member 1: boom"
    );
}

#[test]
fn status_writes_omit_zero_and_empty_fields() {
    let status = EtcdDefragStatus {
        members: vec![MemberDefragStatus {
            name: "m1".into(),
            role: "follower".into(),
            outcome: "Skipped".into(),
            reason: "BelowThreshold".into(),
            db_size_before: Some(5),
            db_size_after: Some(0),
            ..Default::default()
        }],
        ..Default::default()
    };
    assert_eq!(
        serde_json::to_value(&status).unwrap(),
        serde_json::json!({"members": [{
            "name": "m1", "role": "follower", "outcome": "Skipped",
            "reason": "BelowThreshold", "dbSizeBefore": 5
        }]})
    );
    assert_eq!(
        serde_json::to_value(EtcdDefragStatus::default()).unwrap(),
        serde_json::json!({})
    );
}

#[test]
fn objects_of_every_crd_revision_read() {
    let obj: EtcdDefrag = serde_json::from_value(serde_json::json!({
        "apiVersion": "etcd-operator.cozystack.io/v1alpha2",
        "kind": "EtcdDefrag",
        "metadata": {"name": "d", "namespace": "ns", "generation": 2,
                     "creationTimestamp": "2026-01-02T03:00:00Z"},
        "spec": {
            "clusterRef": {"name": "c"},
            "rule": {"freeSpaceAbove": 1000, "quotaUsageAbove": "100%", "minReclaim": "1Mi", "future": 1},
            "ttlSecondsAfterFinished": 60,
            "somethingNew": true
        },
        "status": {
            "phase": "",
            "startedAt": "2026-01-02T03:04:05Z",
            "defragmented": 1,
            "members": [{"name": "m1", "outcome": "Defragmented", "dbSizeBefore": 10, "extra": 1}],
            "conditions": [{"type": "DefragChecked", "status": "True", "reason": "Running",
                            "message": "defragmenting members",
                            "lastTransitionTime": "2026-01-02T03:04:05Z",
                            "observedGeneration": 2}]
        }
    }))
    .unwrap();
    let rule = obj.spec.rule.clone().unwrap();
    assert_eq!(rule.free_space_above.as_deref(), Some("1000"));
    assert_eq!(rule.min_reclaim.as_deref(), Some("1Mi"));
    let v = RunView::of(&obj);
    assert_eq!(
        (v.name.as_str(), v.namespace.as_str(), v.cluster.as_str()),
        ("d", "ns", "c")
    );
    assert_eq!(v.generation, Some(2));
    assert_eq!(v.ttl_seconds_after_finished, Some(60));
    assert_eq!(v.created, Some("2026-01-02T03:00:00Z".parse().unwrap()));
    assert_eq!(v.status.phase, None);
    assert_eq!(v.status.phase_or_pending(), Pending);
    assert_eq!(v.status.members[0].db_size_before, Some(10));
    assert_eq!(
        serde_json::to_value(&v.status.started_at).unwrap(),
        serde_json::json!("2026-01-02T03:04:05Z")
    );
    assert_eq!(Sibling::of(&obj).phase, None);
    let unknown: EtcdDefragStatus =
        serde_json::from_value(serde_json::json!({"phase": "Weird"})).unwrap();
    assert_eq!(unknown.phase, None);
    let done: EtcdDefragStatus =
        serde_json::from_value(serde_json::json!({"phase": "Failed"})).unwrap();
    assert!(done.is_terminal());
    assert_eq!(
        serde_json::to_value(&done).unwrap(),
        serde_json::json!({"phase": "Failed"})
    );
}

#[test]
fn a_change_wakes_the_unfinished_runs_of_the_same_cluster_only() {
    fn run(ns: &str, name: &str, cluster: &str, phase: Option<DefragPhase>) -> EtcdDefrag {
        let mut r: EtcdDefrag = serde_json::from_value(serde_json::json!({
            "apiVersion": "etcd-operator.cozystack.io/v1alpha2",
            "kind": "EtcdDefrag",
            "metadata": {"name": name, "namespace": ns},
            "spec": {"clusterRef": {"name": cluster}},
        }))
        .unwrap();
        r.status = phase.map(|p| EtcdDefragStatus {
            phase: Some(p),
            ..EtcdDefragStatus::default()
        });
        r
    }
    let all = [
        run("ops", "active", "db", Some(Running)),
        run("ops", "queued", "db", Some(Pending)),
        run("ops", "new", "db", None),
        run("ops", "done", "db", Some(Complete)),
        run("ops", "failed", "db", Some(Failed)),
        run("ops", "other-cluster", "cache", Some(Pending)),
        run("dev", "other-namespace", "db", Some(Pending)),
    ];
    // (changed run, woken runs)
    let cases: [(&EtcdDefrag, &[&str]); 4] = [
        (&all[0], &["queued", "new"]),
        (&all[3], &["active", "queued", "new"]),
        (&all[5], &[]),
        (&all[6], &[]),
    ];
    for (changed, want) in cases {
        assert_eq!(
            queued_behind(changed, &all),
            want,
            "{:?}",
            changed.metadata.name
        );
    }
}

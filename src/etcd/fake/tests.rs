use super::*;

#[tokio::test(start_paused = true)]
async fn snapshot_take_works_unchanged_against_the_fake() {
    let fake = FakeCluster::new(&[("a", 500, 100), ("b", 400, 100), ("c", 300, 100)]);
    fake.set_leader("b");
    let snap = crate::etcd::take::look(&fake, &fake.target())
        .await
        .unwrap();
    let names: Vec<&str> = snap.members.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["a", "b", "c"]);
    for m in &snap.members {
        let s = m.status().unwrap();
        assert_eq!(s.leader, fake.id("b"));
        assert_eq!(Some(s.member_id), m.id);
    }
    assert_eq!(snap.members[0].status().unwrap().db_size, 500 * MI);
}

#[tokio::test(start_paused = true)]
async fn probes_handed_over_by_name_reach_the_members_found_by_discovery() {
    // An agent's target: discovery from its node's member, the probes
    // the tool that started it read from the static Pods.
    let fake = FakeCluster::new(&[("a", 500, 100), ("b", 400, 100), ("c", 300, 100)]);
    let probes = crate::kubelet::PodProbes {
        pod: "etcd-b".into(),
        container: "etcd".into(),
        started: Some(true),
        liveness: None,
        startup: None,
    };
    let mut target = fake.target();
    target.probes_by_name = vec![("b".into(), probes.clone())];
    let snap = crate::etcd::take::look(&fake, &target).await.unwrap();
    let of = |name: &str| {
        snap.members
            .iter()
            .find(|m| m.name == name)
            .and_then(|m| m.probes.clone())
    };
    assert_eq!(of("b"), Some(probes));
    assert_eq!(of("a"), None);
    assert_eq!(of("c"), None);
}

#[tokio::test(start_paused = true)]
async fn defragment_shrinks_and_blocks_status_until_done() {
    let fake = FakeCluster::new(&[("a", 500, 100), ("b", 400, 100), ("c", 300, 100)]);
    fake.defrag_takes("b", Duration::from_secs(60));
    let dial = fake.target().dials[1].clone();
    let t0 = Instant::now();
    let e = fake
        .defragment(&dial, Duration::from_secs(10), &|| true)
        .await
        .unwrap_err();
    assert_eq!(
        e.cause,
        FailureCause::Timeout {
            after: Duration::from_secs(10)
        }
    );
    assert_eq!(t0.elapsed(), Duration::from_secs(10));
    // Still defragmenting: Status runs into its timeout.
    let e = fake.status(&dial).await.unwrap_err();
    assert!(matches!(e.cause, FailureCause::Timeout { .. }), "{e}");
    assert_eq!(fake.db_size("b"), 400 * MI);
    // Within 5 s of the end, Status waits for it and sees the new size.
    tokio::time::sleep_until(t0 + Duration::from_secs(56)).await;
    let s = fake.status(&dial).await.unwrap();
    assert_eq!(t0.elapsed(), Duration::from_secs(60));
    assert_eq!(s.db_size, 100 * MI);
    assert!(fake.overlaps().is_empty());
}

#[tokio::test(start_paused = true)]
async fn scripted_failures_changes_leadership_and_hashes() {
    let fake = FakeCluster::new(&[("a", 500, 100), ("b", 400, 100)]);
    let [a, b] = [0, 1].map(|i| fake.target().dials[i].clone());
    fake.fail("a", Op::Status, FailureCause::Refused, 2);
    fake.after_defrags(1, Change::LeaderTo("b".into()));
    fake.after_defrags(1, Change::Remove("a".into()));
    assert!(fake.status(&a).await.is_err());
    assert!(fake.status(&a).await.is_err());
    assert!(fake.status(&a).await.is_ok());

    // MoveLeader only from the leader.
    assert!(fake.move_leader(&b, fake.id("a")).await.is_err());
    fake.move_leader(&a, fake.id("b")).await.unwrap();
    assert_eq!(fake.leader(), "b");
    fake.set_leader("a");

    fake.defragment(&b, Duration::from_secs(5), &|| true)
        .await
        .unwrap();
    assert_eq!(fake.leader(), "b");
    let list = fake.member_list(&b).await.unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(
        fake.status(&a).await.unwrap_err().cause,
        FailureCause::Refused
    );

    fake.set_revision("b", 120);
    fake.set_compacted(110);
    assert_eq!(fake.hash_kv(&b, 0).await.unwrap().revision, 120);
    assert!(matches!(
        fake.hash_kv(&b, 105).await.unwrap_err().cause,
        FailureCause::RevisionUnavailable { .. }
    ));
    assert_eq!(fake.hash_kv(&b, 115).await.unwrap().revision, 115);

    let ops: Vec<(Op, String)> = fake
        .calls()
        .into_iter()
        .map(|c| (c.op, c.member))
        .take(4)
        .collect();
    assert_eq!(
        ops,
        [
            (Op::Status, "a".to_string()),
            (Op::Status, "a".to_string()),
            (Op::Status, "a".to_string()),
            (Op::MoveLeader, "b".to_string()),
        ]
    );

    fake.go_silent();
    let t0 = Instant::now();
    assert!(matches!(
        fake.member_list(&b).await.unwrap_err().cause,
        FailureCause::Timeout { .. }
    ));
    assert_eq!(t0.elapsed(), PROBE_TIMEOUT);
}

//! The exit-code contract of docs/cli.md, walked command by command on a
//! real cluster (issue 46, item 3): a user without the role a call needs is
//! exit 2 in every command that changes something, as a bad flag is; a
//! person answering "no" (or typing something else than asked) is exit 1,
//! "not confirmed; nothing changed", everywhere; consent nobody could give
//! (no terminal and no `--yes`, a `--confirm` naming another member) is
//! exit 2. Each time, what the members recorded says nothing changed: no
//! defragmentation in their logs, the same members and leader, the alarm
//! still raised, the old revisions still readable, no snapshot file.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use support::*;

/// What the servers hold that any of the walked commands could change.
#[derive(Debug, PartialEq)]
struct Held {
    members: Vec<u64>,
    leader: usize,
    alarms: usize,
    /// Whether revision 2 can still be read (nothing was compacted).
    history: bool,
}

async fn held(cluster: &Cluster) -> Held {
    let mut c = cluster.client(0).await.unwrap();
    let mut members = cluster.member_ids().await.unwrap();
    members.sort();
    let alarms = alarms_listed(&mut c).await.len();
    let history = c
        .get(
            "exit-codes/0",
            Some(etcd_client::GetOptions::new().with_revision(2)),
        )
        .await
        .is_ok();
    Held {
        members,
        leader: cluster.leader().await.unwrap(),
        alarms,
        history,
    }
}

/// A cluster with history (revision 2 onwards) and NOSPACE raised on its
/// last member, so that every command has something it would change.
async fn prepared(security: Security) -> Cluster {
    let mut spec = ClusterSpec::new(3, security);
    spec.log_level = "info";
    let cluster = start(spec).await;
    let mut c = cluster.client(0).await.unwrap();
    for i in 0..5 {
        c.put(format!("exit-codes/{i}"), "v", None).await.unwrap();
    }
    raise_alarm(&cluster, 0, 2, etcd_client::AlarmType::Nospace).await;
    cluster
}

/// The commands that change something, as `(what, arguments)`, for a
/// cluster whose leader is member `leader`; `file` is where a snapshot
/// would go.
fn changing(cluster: &Cluster, leader: usize, file: &str) -> Vec<(&'static str, Vec<String>)> {
    let follower = cluster.members[(leader + 1) % 3].name.clone();
    vec![
        ("defrag", args(&["defrag", "--all"])),
        ("compact", args(&["compact", "--keep", "1"])),
        ("move-leader", args(&["move-leader", "--to", &follower])),
        ("member remove", args(&["member", "remove", &follower])),
        (
            "member add",
            args(&[
                "member",
                "add",
                "m9",
                "--peer-urls",
                "https://127.0.0.1:1",
                "--learner",
            ]),
        ),
        ("alarm disarm", args(&["alarm", "disarm"])),
        ("snapshot save", args(&["snapshot", "save", file])),
    ]
}

/// A user who may read every key and holds no other role: every command
/// that changes something stops at etcd's refusal with exit 2, naming the
/// role, as `defrag` always did (`snapshot save` was exit 1).
#[tokio::test(flavor = "multi_thread")]
async fn a_missing_role_is_exit_2_in_every_command() {
    let cluster = prepared(Security::MutualTlsAuth).await;
    add_reader(&cluster, "alice", "alice-pw").await;
    let before = held(&cluster).await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("backup.db").display().to_string();
    let pki = cluster.pki.as_ref().unwrap();
    let base = vec![
        format!("--endpoints={}", cluster.endpoints()[0]),
        format!("--cacert={}", pki.ca.display()),
        format!("--cert={}", pki.client_cert.display()),
        format!("--key={}", pki.client_key.display()),
        "--user=alice:alice-pw".to_string(),
    ];
    for (what, command) in changing(&cluster, before.leader, &file) {
        let mut a = base.clone();
        a.extend(command);
        if what != "snapshot save" {
            a.push("--yes".into());
        }
        let run = tool(&a, &[]).await;
        assert_eq!(run.code, 2, "{what}: {run:?}");
        assert!(run.stderr.contains("root role"), "{what}: {}", run.stderr);
    }
    assert_eq!(held(&cluster).await, before);
    assert!(cluster.logged_defrags().is_empty());
    assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none());
}

/// At a terminal, "n" to each command's question is exit 1 and the one
/// sentence "not confirmed; nothing changed"; so is a wrong typed
/// confirmation (`member remove --force`, CORRUPT's `alarm disarm`). With
/// nobody to ask, no `--yes` is exit 2, and so is a `--confirm` that names
/// another member.
#[tokio::test(flavor = "multi_thread")]
async fn no_is_exit_1_and_consent_nobody_could_give_is_exit_2() {
    let cluster = prepared(Security::Plain).await;
    let before = held(&cluster).await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("backup.db").display().to_string();
    let base = one_seed(&cluster);
    for (what, command) in changing(&cluster, before.leader, &file) {
        let mut a = base.clone();
        a.extend(command);
        if what == "snapshot save" {
            // Reads only: it asks nothing.
            continue;
        }
        let (code, screen) = tool_on_terminal(&a, &[], &[("[y/N]", "n")]).await;
        assert_eq!(code, 1, "{what}: {screen}");
        assert!(
            screen.contains("not confirmed; nothing changed"),
            "{what}: {screen}"
        );
        let run = tool(&a, &[]).await;
        assert_eq!(run.code, 2, "{what}: {run:?}");
        assert!(
            run.stderr.contains("without --yes"),
            "{what}: {}",
            run.stderr
        );
    }

    // Typed confirmations: a wrong word at the prompt is a "no"; a flag
    // naming another member is bad input.
    let follower = cluster.members[(before.leader + 1) % 3].name.clone();
    // No member is called this: a flag naming it names no member asked.
    let other = "m-none";
    let mut force = base.clone();
    force.extend(args(&["member", "remove", &follower, "--force", "--yes"]));
    let (code, screen) = tool_on_terminal(&force, &[], &[("to confirm", "nope")]).await;
    assert_eq!(code, 1, "{screen}");
    assert!(
        screen.contains("not confirmed; nothing changed"),
        "{screen}"
    );
    let mut wrong = force.clone();
    wrong.push(format!("--confirm={other}"));
    let run = tool(&wrong, &[]).await;
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("--confirm"), "{}", run.stderr);

    raise_alarm(&cluster, 0, 1, etcd_client::AlarmType::Corrupt).await;
    let mut disarm = base.clone();
    disarm.extend(args(&["alarm", "disarm", "--force", "--yes"]));
    let (code, screen) = tool_on_terminal(&disarm, &[], &[("to confirm", "nope")]).await;
    assert_eq!(code, 1, "{screen}");
    assert!(
        screen.contains("not confirmed; nothing changed"),
        "{screen}"
    );
    disarm.push(format!("--confirm-corrupt={other}"));
    let run = tool(&disarm, &[]).await;
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("--confirm-corrupt"), "{}", run.stderr);

    let after = held(&cluster).await;
    assert_eq!(
        after,
        Held {
            alarms: before.alarms + 1,
            ..before
        }
    );
    assert!(cluster.logged_defrags().is_empty());
    assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none());
}

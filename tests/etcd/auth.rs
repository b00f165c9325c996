//! Credentials against real etcd with authentication on (issue 20, item 3):
//! a password is never printed, a flag beats its variable, a user without a
//! password is asked for it on a terminal and refused without one,
//! credentials given to a cluster without auth are ignored with a warning,
//! and a user without the root role stops a sweep at the first refusal.
//! What etcd itself recorded (its defragmentation log records) is the
//! judge where something could have changed.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use support::*;

/// A password that must never appear in anything the tool writes.
const WRONG: &str = "never-print-this-9f1c";

/// `--endpoints` (first member) and the TLS flags, without any user.
fn tls_only(cluster: &Cluster) -> Vec<String> {
    let pki = cluster.pki.as_ref().unwrap();
    let mut a = vec![format!("--endpoints={}", cluster.endpoints()[0])];
    a.push(format!("--cacert={}", pki.ca.display()));
    if matches!(
        cluster.spec.security,
        Security::MutualTls | Security::MutualTlsAuth
    ) {
        a.push(format!("--cert={}", pki.client_cert.display()));
        a.push(format!("--key={}", pki.client_key.display()));
    }
    a
}

fn with(mut base: Vec<String>, extra: &[&str]) -> Vec<String> {
    base.extend(args(extra));
    base
}

/// Variables for one run of the tool.
type Env = Vec<(String, String)>;

fn env(pairs: &[(&str, &str)]) -> Env {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// A wrong password is reported with the user name alone, in text and in
/// JSON logs at every verbosity, and with `ETCDCTL_PASSWORD` set too (which
/// used to turn `--user root:PASSWORD` into the user name
/// `"root:PASSWORD"`, printed in the error).
#[tokio::test(flavor = "multi_thread")]
async fn a_wrong_password_is_never_printed() {
    for version in [EtcdVersion::V3_7, EtcdVersion::V3_6, EtcdVersion::V3_4] {
        let cluster = start(ClusterSpec::new(3, Security::MutualTlsAuth).version(version)).await;
        let user = format!("--user=root:{WRONG}");
        let cases: Vec<(Vec<String>, Env)> = vec![
            (with(tls_only(&cluster), &[&user, "status"]), vec![]),
            (
                with(tls_only(&cluster), &[&user, "status"]),
                env(&[("ETCDCTL_PASSWORD", "also-wrong")]),
            ),
            (
                with(
                    tls_only(&cluster),
                    &[&user, "--log-format", "json", "-v", "status"],
                ),
                vec![],
            ),
            (
                with(tls_only(&cluster), &[&user, "-vvv", "status", "-o", "json"]),
                vec![],
            ),
            (
                with(tls_only(&cluster), &["status", "--log-format=json", "-vv"]),
                env(&[("ETCDCTL_USER", "root"), ("ETCDCTL_PASSWORD", WRONG)]),
            ),
        ];
        for (argv, vars) in cases {
            let run = tool(&argv, &vars).await;
            assert_eq!(run.code, 2, "{version:?} {argv:?}: {run:?}");
            assert!(
                run.stderr
                    .contains("authentication failed for user \\\"root\\\"")
                    || run
                        .stderr
                        .contains("authentication failed for user \"root\""),
                "{version:?} {argv:?}: {}",
                run.stderr
            );
            assert!(
                !run.stdout.contains(WRONG) && !run.stderr.contains(WRONG),
                "{version:?} {argv:?}: the password was printed:\n{}\n{}",
                run.stdout,
                run.stderr
            );
        }

        // The right password at the highest verbosity is not printed either.
        let right = cluster.password.clone().unwrap();
        let run = tool(
            &with(
                tls_only(&cluster),
                &[&format!("--user=root:{right}"), "-vvv", "status"],
            ),
            &[],
        )
        .await;
        run.expect_code(0);
        assert!(
            !run.stdout.contains(&right) && !run.stderr.contains(&right),
            "{version:?}: the password was printed at -vvv"
        );
    }
}

/// A flag beats its variable: `--user root:PASSWORD` beats a wrong
/// `ETCDCTL_PASSWORD` (and `ETCDCTL_USER`), `--password` beats
/// `ETCDCTL_PASSWORD`; a variable's password is not used for another user.
#[tokio::test(flavor = "multi_thread")]
async fn a_flag_beats_its_variable() {
    let cluster = start(ClusterSpec::new(3, Security::MutualTlsAuth)).await;
    let right = cluster.password.clone().unwrap();
    let wrong_env = env(&[("ETCDCTL_USER", "root"), ("ETCDCTL_PASSWORD", WRONG)]);

    let run = tool(
        &with(
            tls_only(&cluster),
            &[&format!("--user=root:{right}"), "status", "-o", "json"],
        ),
        &wrong_env,
    )
    .await;
    run.expect_code(0);
    assert_eq!(rows(&run.json()).len(), 3);

    let run = tool(
        &with(
            tls_only(&cluster),
            &["--user=root", &format!("--password={right}"), "status"],
        ),
        &wrong_env,
    )
    .await;
    run.expect_code(0);

    // And the other way round: the right password in the variables, a
    // wrong one on the command line, which wins (and fails).
    let right_env = env(&[("ETCDCTL_USER", "root"), ("ETCDCTL_PASSWORD", &right)]);
    let run = tool(
        &with(
            tls_only(&cluster),
            &[&format!("--user=root:{WRONG}"), "status"],
        ),
        &right_env,
    )
    .await;
    run.expect_code(2);
    assert!(
        run.stderr.contains("authentication failed"),
        "{}",
        run.stderr
    );

    // ETCDCTL_PASSWORD belongs to ETCDCTL_USER: `--user alice` does not
    // borrow root's password (and with no terminal, it is refused).
    let run = tool(
        &with(tls_only(&cluster), &["--user=alice", "status"]),
        &right_env,
    )
    .await;
    run.expect_code(2);
    assert!(
        run.stderr.contains("--user alice gives no password"),
        "{}",
        run.stderr
    );
}

/// `--user root` without a password and without a terminal: exit 2 at
/// once, naming `--password` and `ETCDCTL_PASSWORD`, before any dial.
#[tokio::test(flavor = "multi_thread")]
async fn a_user_without_password_and_no_terminal_is_refused() {
    for (argv, vars, named) in [
        (
            args(&["--endpoints=http://127.0.0.1:1", "--user=root", "status"]),
            vec![],
            "--user root gives no password",
        ),
        (
            args(&["status"]),
            env(&[
                ("ETCDCTL_ENDPOINTS", "http://127.0.0.1:1"),
                ("ETCDCTL_USER", "root"),
            ]),
            "ETCDCTL_USER=root gives no password",
        ),
    ] {
        let run = tool(&argv, &vars).await;
        run.expect_code(2);
        let lines: Vec<&str> = run.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{}", run.stderr);
        for want in [named, "no terminal", "--password", "ETCDCTL_PASSWORD"] {
            assert!(lines[0].contains(want), "{:?} lacks {want:?}", lines[0]);
        }
    }
}

/// On a terminal, `--user root` asks for the password without echoing it
/// (as etcdctl does), and the command then works.
#[tokio::test(flavor = "multi_thread")]
async fn a_user_without_password_is_asked_on_a_terminal() {
    let cluster = start(ClusterSpec::new(3, Security::MutualTlsAuth)).await;
    let right = cluster.password.clone().unwrap();
    // `script` gives the tool a terminal (stdin and stderr), fed from here.
    let (code, text) = tool_on_terminal(
        &with(tls_only(&cluster), &["--user=root", "status"]),
        &[],
        &[("Password for etcd user root", right.as_str())],
    )
    .await;
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("m0") && text.contains("m2"), "{text}");
    assert!(!text.contains(&right), "the password was echoed: {text}");
}

/// Credentials for a cluster that has no authentication: etcdctl works, so
/// do we, with one warning line (this used to be exit 2 with raw gRPC
/// text).
#[tokio::test(flavor = "multi_thread")]
async fn credentials_on_a_cluster_without_auth_are_ignored_with_a_warning() {
    for version in [EtcdVersion::V3_7, EtcdVersion::V3_6, EtcdVersion::V3_4] {
        let cluster = start(ClusterSpec::new(3, Security::MutualTls).version(version)).await;
        let run = tool(
            &with(
                tls_only(&cluster),
                &[&format!("--user=root:{WRONG}"), "status", "-o", "json"],
            ),
            &[],
        )
        .await;
        run.expect_code(0);
        assert_eq!(rows(&run.json()).len(), 3, "{version:?}");
        let warnings: Vec<&str> = run
            .stderr
            .lines()
            .filter(|l| l.contains("authentication is not enabled"))
            .collect();
        assert_eq!(warnings.len(), 1, "{version:?}: {}", run.stderr);
        assert_eq!(run.stderr.lines().count(), 1, "{version:?}: {}", run.stderr);
        assert!(!run.stderr.contains(WRONG), "{version:?}: {}", run.stderr);
    }
}

/// A user without the root role: the first Defragment is refused, the run
/// stops there with exit 2 and says which role is needed, and etcd logged
/// no defragmentation on any member.
#[tokio::test(flavor = "multi_thread")]
async fn a_user_without_the_root_role_stops_at_the_first_refusal() {
    for version in [EtcdVersion::V3_7, EtcdVersion::V3_6, EtcdVersion::V3_4] {
        let mut spec = ClusterSpec::new(3, Security::MutualTlsAuth).version(version);
        spec.log_level = "info";
        let cluster = start(spec).await;
        add_reader(&cluster, "alice", "alice-pw").await;

        let run = tool(
            &with(
                tls_only(&cluster),
                &["--user=alice:alice-pw", "defrag", "--all", "--yes"],
            ),
            &[],
        )
        .await;
        assert_eq!(run.code, 2, "{version:?}: {run:?}");
        assert!(
            run.stderr.contains("needs the root role")
                && run.stderr.contains("user \"alice\"")
                && run.stderr.contains("etcdctl user grant-role alice root"),
            "{version:?}: {}",
            run.stderr
        );
        assert!(
            !run.stdout.contains("defragmented in place"),
            "{version:?}: {}",
            run.stdout
        );
        // One member was asked, and refused; no other was.
        assert_eq!(
            run.stdout.matches("permission denied").count(),
            1,
            "{version:?}: {}",
            run.stdout
        );
        assert!(cluster.logged_defrags().is_empty(), "{version:?}");

        let doc = tool(
            &with(
                tls_only(&cluster),
                &[
                    "--user=alice:alice-pw",
                    "defrag",
                    "--all",
                    "--yes",
                    "-o",
                    "json",
                ],
            ),
            &[],
        )
        .await
        .json();
        assert_eq!(doc["stopReason"], "PermissionDenied", "{version:?}: {doc}");
        assert!(cluster.logged_defrags().is_empty(), "{version:?}");
    }
}

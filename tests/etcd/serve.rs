//! `doctor --serve` on real etcd 3.6 (issue 43): what it serves is what
//! the members say of themselves — each member's size, in-use size, quota
//! and leadership against its own `/metrics`, a frozen member and then a
//! lost quorum as the members' answers show them, NOSPACE as etcd's own
//! alarm list shows it — and SIGTERM stops it with exit 0, nothing left
//! listening. Bad input is exit 2 naming the flag.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::time::Duration;

use support::*;

/// A quota the history fills in a few dozen writes.
const QUOTA: u64 = 48_000_000;

/// GETs `path` from `addr`: (status line, body).
async fn get(addr: &str, path: &str) -> Option<(String, String)> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await.ok()?;
    stream
        .write_all(format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes())
        .await
        .ok()?;
    let mut text = String::new();
    stream.read_to_string(&mut text).await.ok()?;
    let (head, body) = text.split_once("\r\n\r\n")?;
    Some((head.lines().next()?.to_string(), body.to_string()))
}

/// The value of the one sample of `name` whose labels include every one
/// of `labels` (`key="value"`).
fn sample(text: &str, name: &str, labels: &[&str]) -> Option<f64> {
    text.lines()
        .filter(|l| l.starts_with(&format!("{name}{{")) || l.starts_with(&format!("{name} ")))
        .find(|l| labels.iter().all(|want| l.contains(want)))
        .and_then(|l| l.rsplit(' ').next()?.parse().ok())
}

/// Scrapes until `ok` holds (at most 60 s); the last scrape.
async fn scrape_until(addr: &str, what: &str, ok: impl Fn(&str) -> bool) -> String {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let text = get(addr, "/metrics")
            .await
            .map(|(_, b)| b)
            .unwrap_or_default();
        if ok(&text) {
            return text;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "never {what}:\n{text}"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// `promtool check metrics` finds nothing to say of `text`.
fn promtool_accepts(text: &str) {
    use std::io::Write;
    let tool = kubectl_etcd_testbed::bins::prometheus("promtool").unwrap();
    let mut child = std::process::Command::new(tool)
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success() && said.trim().is_empty(),
        "{said}\n{text}"
    );
}

fn member(name: &str) -> String {
    format!("member=\"{name}\"")
}

#[tokio::test(flavor = "multi_thread")]
async fn serves_what_the_members_say_and_stops_on_sigterm() {
    let spec = ClusterSpec::new(3, Security::Plain)
        .version(EtcdVersion::V3_6)
        .quota(QUOTA);
    let cluster = fragmented(spec, 8 << 20, 0.25).await;
    let mut flags = one_seed(&cluster);
    flags.extend(args(&[
        "doctor",
        "--serve",
        "127.0.0.1:0",
        "--interval",
        "1s",
        "--churn-window",
        "0s",
    ]));
    let mut run = spawn_tool(&flags);
    let line = run
        .wait_for("saying where it serves", |l| l.contains("serving /metrics"))
        .await;
    let addr = line.rsplit("http://").next().unwrap().trim().to_string();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while get(&addr, "/readyz").await.map(|(s, _)| s) != Some("HTTP/1.1 200 OK".into()) {
        assert!(tokio::time::Instant::now() < deadline, "never ready");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    // Each member's figures, against its own /metrics; and the exposition
    // as the real promtool lints it (names, units, types).
    let text = get(&addr, "/metrics").await.unwrap().1;
    promtool_accepts(&text);
    for (i, m) in cluster.members.iter().enumerate() {
        let who = member(&m.name);
        let own = |prefix: &'static str| metric(&cluster, i, prefix);
        let pairs = [
            (
                "kubectl_etcd_member_db_size_bytes",
                own("etcd_mvcc_db_total_size_in_bytes ").await,
            ),
            (
                "kubectl_etcd_member_db_in_use_bytes",
                own("etcd_mvcc_db_total_size_in_use_in_bytes ").await,
            ),
            (
                "kubectl_etcd_member_quota_bytes",
                own("etcd_server_quota_backend_bytes ").await,
            ),
            (
                "kubectl_etcd_member_leader",
                own("etcd_server_is_leader ").await,
            ),
            ("kubectl_etcd_member_up", 1.0),
        ];
        for (name, want) in pairs {
            assert_eq!(
                sample(&text, name, &[&who]),
                Some(want),
                "{name} {who}:\n{text}"
            );
        }
    }
    assert_eq!(
        sample(&text, "kubectl_etcd_cluster_quorum_margin", &[]),
        Some(1.0)
    );
    assert_eq!(
        sample(&text, "kubectl_etcd_cluster_gate_open", &[]),
        Some(1.0)
    );
    assert_eq!(sample(&text, "kubectl_etcd_examination_up", &[]), Some(1.0));

    // One member frozen: it no longer answers, one more lost loses quorum,
    // and the gate names it.
    let frozen = member(&cluster.members[2].name);
    cluster.pause(2).unwrap();
    let text = scrape_until(&addr, "seeing the frozen member", |t| {
        sample(t, "kubectl_etcd_member_up", &[&frozen]) == Some(0.0)
    })
    .await;
    assert_eq!(
        sample(&text, "kubectl_etcd_cluster_quorum_margin", &[]),
        Some(0.0),
        "{text}"
    );
    assert_eq!(
        sample(
            &text,
            "kubectl_etcd_cluster_gate_refusal",
            &["reason=\"MemberUnreachable\""]
        ),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        sample(&text, "kubectl_etcd_member_db_size_bytes", &[&frozen]),
        None
    );
    // Two frozen: quorum is lost.
    cluster.pause(1).unwrap();
    scrape_until(&addr, "seeing quorum lost", |t| {
        sample(t, "kubectl_etcd_cluster_quorum_margin", &[]) == Some(-1.0)
    })
    .await;
    cluster.resume(1).unwrap();
    cluster.resume(2).unwrap();
    scrape_until(&addr, "seeing every member back", |t| {
        sample(t, "kubectl_etcd_cluster_quorum_margin", &[]) == Some(1.0)
    })
    .await;

    // NOSPACE, raised by etcd itself when the history fills the quota.
    let mut c = cluster.client(0).await.unwrap();
    let value = vec![b'v'; 512 * 1024];
    for i in 0..400 {
        if c.put(format!("hist/{}", i % 8), value.clone(), None)
            .await
            .is_err()
        {
            break;
        }
    }
    let raised = alarms(&cluster).await;
    assert!(
        raised
            .iter()
            .any(|(_, k)| *k == etcd_client::AlarmType::Nospace),
        "{raised:?}"
    );
    let text = scrape_until(&addr, "seeing NOSPACE", |t| {
        sample(t, "kubectl_etcd_cluster_alarms", &["alarm=\"NOSPACE\""])
            == Some(raised.len() as f64)
    })
    .await;
    assert_eq!(
        sample(
            &text,
            "kubectl_etcd_doctor_check_severity",
            &["check=\"alarm/NOSPACE\""]
        ),
        Some(2.0),
        "{text}"
    );
    assert_eq!(
        sample(&text, "kubectl_etcd_cluster_alarms", &["alarm=\"CORRUPT\""]),
        Some(0.0)
    );

    run.terminate();
    let done = run.finish().await;
    done.expect_code(0);
    assert!(
        done.stderr.contains("terminated (SIGTERM)"),
        "{}",
        done.stderr
    );
    assert!(get(&addr, "/healthz").await.is_none(), "still listening");
}

#[tokio::test]
async fn bad_serve_flags_are_usage_errors_naming_the_flag() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let cases = [
        (vec!["doctor", "--interval", "5s"], "--serve"),
        (vec!["doctor", "--serve", "9464"], "--serve"),
        (
            vec!["doctor", "--serve", "127.0.0.1:0", "--interval", "0s"],
            "--interval",
        ),
        (
            vec!["doctor", "--serve", "127.0.0.1:0", "--max-concurrent", "0"],
            "--max-concurrent",
        ),
    ];
    for (words, flag) in cases {
        let mut a = args(&["--endpoints", "http://127.0.0.1:9"]);
        a.extend(args(&words));
        let run = tool(&a, &[]).await;
        run.expect_code(2);
        assert!(run.stderr.contains(flag), "{words:?}: {}", run.stderr);
    }
    let address = format!("127.0.0.1:{port}");
    let run = tool(
        &args(&[
            "--endpoints",
            "http://127.0.0.1:9",
            "doctor",
            "--serve",
            &address,
        ]),
        &[],
    )
    .await;
    run.expect_code(2);
    assert!(
        run.stderr
            .contains(&format!("--serve {address}: cannot listen")),
        "{}",
        run.stderr
    );
}

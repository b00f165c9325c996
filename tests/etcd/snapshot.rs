//! `snapshot save` and `snapshot status` against real etcd 3.6 and 3.5.
//!
//! The saved file is restored with `etcdutl` of the member's own release
//! into a new data dir, a member is started on it, and every key and value
//! is compared with the source cluster. `snapshot status` is compared field
//! by field with `etcdutl snapshot status`. The failure paths (an existing
//! file, Ctrl-C, a member that stops sending, a full disk, a changed file)
//! are run for real and leave no file behind.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::path::Path;
use std::time::Duration;

use kubectl_etcd_testbed::{bins, ports::free_port};
use support::*;

/// Writes `n` keys with values of varied sizes (some over a bolt page, so
/// overflow pages are in the file), overwrites some and deletes others.
async fn write_keys(cluster: &Cluster, n: usize) {
    let mut c = cluster.client(0).await.unwrap();
    for i in 0..n {
        let size = match i % 7 {
            0 => 6000,
            1 => 1,
            _ => 40 + i % 300,
        };
        let value: String = (0..size)
            .map(|j| (b'a' + ((i + j) % 26) as u8) as char)
            .collect();
        c.put(format!("/registry/k{i:05}"), value, None)
            .await
            .unwrap();
    }
    for i in (0..n).step_by(5) {
        c.put(format!("/registry/k{i:05}"), format!("again {i}"), None)
            .await
            .unwrap();
    }
    for i in (0..n).step_by(11) {
        c.delete(format!("/registry/k{i:05}"), None).await.unwrap();
    }
}

/// Every key and value, in key order.
async fn everything(client: &mut etcd_client::Client) -> Vec<(Vec<u8>, Vec<u8>)> {
    let all = client
        .get("", Some(etcd_client::GetOptions::new().with_all_keys()))
        .await
        .unwrap();
    all.kvs()
        .iter()
        .map(|kv| (kv.key().to_vec(), kv.value().to_vec()))
        .collect()
}

fn save(cluster: &Cluster, file: &Path, extra: &[&str]) -> Vec<String> {
    let mut a = one_seed(cluster);
    a.extend(args(&["snapshot", "save"]));
    a.push(file.display().to_string());
    a.extend(args(extra));
    a
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn sha256sum(file: &Path) -> String {
    let out = std::process::Command::new("sha256sum")
        .arg(file)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .unwrap()
        .to_string()
}

/// Which of our counts etcdutl of `version` prints as totalKey: 3.6 counts
/// the live keys, 3.5 every bucket entry.
fn keys_as(version: EtcdVersion) -> &'static str {
    match version.line() {
        EtcdVersion::V3_5 => "entries",
        _ => "keys",
    }
}

fn etcdutl_status(version: EtcdVersion, file: &Path) -> serde_json::Value {
    let out = std::process::Command::new(bins::etcdutl(version).unwrap())
        .args(["snapshot", "status", "-w", "json"])
        .arg(file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `snapshot status FILE [extra…]`.
async fn status_of(file: &Path, extra: &[&str]) -> Run {
    let mut a = args(&["snapshot", "status"]);
    a.push(file.display().to_string());
    a.extend(args(extra));
    tool(&a, &[]).await
}

/// Our figures for a file (`ours`: the report's contents, or a `snapshot
/// status` document) against etcdutl's of `version`.
fn assert_as_etcdutl(version: EtcdVersion, ours: &serde_json::Value, theirs: &serde_json::Value) {
    for (field, key) in [
        ("hash", "hash"),
        ("revision", "revision"),
        (keys_as(version), "totalKey"),
        ("totalSize", "totalSize"),
    ] {
        assert_eq!(
            ours[field], theirs[key],
            "{field}: ours {ours}, etcdutl {theirs}"
        );
    }
}

/// Restores `file` with etcdutl into a new data dir and starts a one-member
/// etcd on it; returns the process and its client URL.
async fn restore_and_start(
    version: EtcdVersion,
    file: &Path,
    dir: &Path,
) -> (std::process::Child, String) {
    let peer = format!("http://127.0.0.1:{}", free_port().unwrap());
    let client = format!("http://127.0.0.1:{}", free_port().unwrap());
    let data = dir.join("restored.etcd");
    let out = std::process::Command::new(bins::etcdutl(version).unwrap())
        .args(["snapshot", "restore"])
        .arg(file)
        .arg(format!("--data-dir={}", data.display()))
        .args([
            "--name=restored",
            &format!("--initial-cluster=restored={peer}"),
        ])
        .arg(format!("--initial-advertise-peer-urls={peer}"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "etcdutl snapshot restore: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let log = std::fs::File::create(dir.join("restored.log")).unwrap();
    let child = std::process::Command::new(bins::etcd(version).unwrap())
        .arg("--name=restored")
        .arg(format!("--data-dir={}", data.display()))
        .arg(format!("--listen-client-urls={client}"))
        .arg(format!("--advertise-client-urls={client}"))
        .arg(format!("--listen-peer-urls={peer}"))
        .arg(format!("--initial-advertise-peer-urls={peer}"))
        .arg(format!("--initial-cluster=restored={peer}"))
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .unwrap();
    (child, client)
}

#[tokio::test(flavor = "multi_thread")]
async fn save_restore_and_status_v3_6() {
    save_restore_and_status(EtcdVersion::V3_6).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn save_restore_and_status_v3_7() {
    save_restore_and_status(EtcdVersion::V3_7).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn save_restore_and_status_v3_5() {
    save_restore_and_status(EtcdVersion::V3_5).await;
}

async fn save_restore_and_status(version: EtcdVersion) {
    let cluster = start(ClusterSpec::new(3, Security::MutualTls).version(version)).await;
    write_keys(&cluster, 1500).await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("backup.db");

    let run = tool(&save(&cluster, &file, &["-o", "json"]), &[]).await;
    run.expect_code(0);
    let doc = run.json();
    // From the most caught-up follower, never the leader by default.
    let leader = cluster.members[cluster.leader().await.unwrap()]
        .name
        .clone();
    assert_eq!(doc["role"], "follower", "{doc}");
    assert_ne!(doc["member"], leader.as_str(), "{doc}");
    assert_eq!(doc["etcdChecksumVerified"], true, "{doc}");

    // The file, its checksum file, nothing else; readable by its owner only.
    assert_eq!(files_in(dir.path()), ["backup.db", "backup.db.sha256"]);
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&file).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "snapshot mode {mode:o}");
    let sum = sha256sum(&file);
    assert_eq!(doc["sha256"], sum.as_str(), "{doc}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("backup.db.sha256")).unwrap(),
        format!("{sum}  backup.db\n")
    );
    assert_eq!(
        doc["bytes"],
        std::fs::metadata(&file).unwrap().len(),
        "{doc}"
    );

    // What we read in the file is what etcdutl reads.
    let theirs = etcdutl_status(version, &file);
    let contents = &doc["contents"];
    assert_as_etcdutl(version, contents, &theirs);
    let run = status_of(&file, &["-o", "json"]).await;
    run.expect_code(0);
    let status = run.json();
    assert_eq!(status["etcdChecksum"], "verified", "{status}");
    assert_as_etcdutl(version, &status, &theirs);
    let run = status_of(&file, &[]).await;
    run.expect_code(0);
    assert!(run.stdout.contains("ETCD CHECKSUM"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains(&format!("{:x}", theirs["hash"].as_u64().unwrap())),
        "{}",
        run.stdout
    );

    // etcdutl restores it, and a member started on it has every key and
    // value the cluster has.
    let mut source = cluster.client(0).await.unwrap();
    let want = everything(&mut source).await;
    assert!(want.len() > 1000, "{} keys", want.len());
    assert_eq!(
        contents["keys"],
        want.len(),
        "the live keys are the cluster's keys"
    );
    let (mut restored, url) = restore_and_start(version, &file, dir.path()).await;
    let mut client = None;
    for _ in 0..100 {
        if let Ok(mut c) = etcd_client::Client::connect([url.as_str()], None).await {
            if c.status().await.is_ok() {
                client = Some(c);
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let mut client = client.expect("the restored member answers");
    let got = everything(&mut client).await;
    let _ = restored.kill();
    let _ = restored.wait();
    assert_eq!(got.len(), want.len());
    assert!(
        got == want,
        "the restored keys and values differ from the cluster's"
    );

    // An existing file is never overwritten without --force (exit 2,
    // before anything is dialed), and is left as it was.
    let run = tool(&save(&cluster, &file, &[]), &[]).await;
    run.expect_code(2);
    assert!(
        run.stderr.contains("exists; pass --force"),
        "{}",
        run.stderr
    );
    assert_eq!(sha256sum(&file), sum);
    // --force replaces it; --member picks the source, even the leader.
    let run = tool(
        &save(
            &cluster,
            &file,
            &["--force", "--member", &leader, "-o", "json"],
        ),
        &[],
    )
    .await;
    run.expect_code(0);
    let doc = run.json();
    assert_eq!(doc["member"], leader.as_str(), "{doc}");
    assert_eq!(doc["role"], "leader", "{doc}");
    assert_eq!(doc["sha256"], sha256sum(&file).as_str());
    assert_eq!(
        files_in(dir.path()).len(),
        2 + 2,
        "{:?}",
        files_in(dir.path())
    );

    // A member name that is not there: exit 2, naming the members.
    let other = dir.path().join("other.db");
    let run = tool(&save(&cluster, &other, &["--member", "nope"]), &[]).await;
    run.expect_code(2);
    assert!(
        run.stderr
            .contains("--member nope: no such member; the members are"),
        "{}",
        run.stderr
    );
    assert!(!other.exists());
}

/// `snapshot status` on a file changed after it was saved (exit 1), on a
/// member's own backend file (no checksum appended), and on something that
/// is not a database (exit 2).
#[tokio::test(flavor = "multi_thread")]
async fn status_of_changed_plain_and_foreign_files() {
    let version = EtcdVersion::V3_6;
    let cluster = start(ClusterSpec::new(1, Security::Plain).version(version)).await;
    write_keys(&cluster, 200).await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.db");
    tool(&save(&cluster, &file, &[]), &[]).await.expect_code(0);

    // One byte changed in the middle of the database.
    let changed = dir.path().join("changed.db");
    let mut bytes = std::fs::read(&file).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x55;
    std::fs::write(&changed, &bytes).unwrap();
    let run = status_of(&changed, &["-o", "json"]).await;
    run.expect_code(1);
    assert_eq!(run.json()["etcdChecksum"], "mismatch");
    assert!(run.stderr.contains("do not restore it"), "{}", run.stderr);

    // The member's backend file itself: no checksum, same figures as etcdutl.
    let backend = cluster
        .dir()
        .join(format!("{}.etcd/member/snap/db", cluster.members[0].name));
    let copy = dir.path().join("backend.db");
    std::fs::copy(&backend, &copy).unwrap();
    let run = status_of(&copy, &["-o", "json"]).await;
    run.expect_code(0);
    let doc = run.json();
    assert_eq!(doc["etcdChecksum"], "absent", "{doc}");
    let theirs = etcdutl_status(version, &copy);
    assert_as_etcdutl(version, &doc, &theirs);

    // Not a database at all, and a missing file: exit 2, naming the file.
    let foreign = dir.path().join("notes.txt");
    std::fs::write(&foreign, "hello ".repeat(2000)).unwrap();
    let run = status_of(&foreign, &[]).await;
    run.expect_code(2);
    assert!(
        run.stderr.contains("notes.txt is not an etcd snapshot"),
        "{}",
        run.stderr
    );
    let run = status_of(&dir.path().join("missing.db"), &[]).await;
    run.expect_code(2);
    assert!(run.stderr.contains("missing.db"), "{}", run.stderr);
}

/// A transfer cut short leaves nothing behind: Ctrl-C (exit 130), the
/// member going silent mid-stream (exit 1 after the inactivity limit), and
/// a full disk (exit 1, the system's reason named).
#[tokio::test(flavor = "multi_thread")]
async fn an_interrupted_or_failed_transfer_leaves_no_file() {
    let cluster = start(ClusterSpec::new(3, Security::Plain)).await;
    // Enough data that the transfer is still running when the test acts.
    cluster.fragment(300 << 20, 1.0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.db");
    let leader = cluster.leader().await.unwrap();
    let follower = (0..3).find(|&i| i != leader).unwrap();
    let name = cluster.members[follower].name.clone();

    // Ctrl-C once the first bytes have arrived.
    let mut running = spawn_tool(&save(&cluster, &file, &["-v", "--member", &name]));
    running
        .wait_for("the transfer starting", |l| l.contains("streaming"))
        .await;
    running.interrupt();
    let run = running.finish().await;
    run.expect_code(130);
    assert!(run.stderr.contains("nothing was saved"), "{}", run.stderr);
    assert!(
        files_in(dir.path()).is_empty(),
        "{:?}",
        files_in(dir.path())
    );

    // The member stops sending mid-stream.
    let mut running = spawn_tool(&save(&cluster, &file, &["-v", "--member", &name]));
    running
        .wait_for("the transfer starting", |l| l.contains("streaming"))
        .await;
    cluster.pause(follower).unwrap();
    let run = running.finish().await;
    cluster.resume(follower).unwrap();
    run.expect_code(1);
    assert!(
        run.stderr
            .contains(&format!("stream the snapshot of {name}")),
        "{}",
        run.stderr
    );
    assert!(
        files_in(dir.path()).is_empty(),
        "{:?}",
        files_in(dir.path())
    );

    // A full disk: a 1 MiB tmpfs in a private mount namespace.
    let small = dir.path().join("small");
    std::fs::create_dir(&small).unwrap();
    let target = small.join("s.db");
    let script = r#"mount -t tmpfs -o size=1m tmpfs "$1" || exit 99
shift; dir="$1"; shift
"$@"; echo "exit=$?"; ls -A "$dir""#;
    let mut command = std::process::Command::new("unshare");
    command
        .args([
            "--mount",
            "--propagation",
            "private",
            "--",
            "sh",
            "-c",
            script,
            "sh",
        ])
        .arg(&small)
        .arg(&small)
        .arg(env!("CARGO_BIN_EXE_kubectl-etcd"))
        .args(save(&cluster, &target, &[]))
        .env("NO_COLOR", "1");
    let out = command.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stdout.trim(),
        "exit=1",
        "stdout: {stdout}\nstderr: {stderr}"
    );
    assert!(stderr.contains("No space left on device"), "{stderr}");
    assert!(stderr.contains("nothing was saved"), "{stderr}");
}

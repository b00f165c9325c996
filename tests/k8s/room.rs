//! Room on the disk read from the filesystem itself, where the tool runs
//! on the members' node (as kubeadm's static Pods, with their data in a
//! hostPath folder, and a CronJob or agent beside them with `NODE_NAME`
//! set): a real kube-apiserver, real etcd 3.7, and a real size-limited
//! filesystem (an 80 MiB tmpfs mounted for the test and unmounted after)
//! as one member's data folder. `doctor` is critical for that member with
//! the filesystem's figures, and `defrag` holds it back and defragments
//! the others, as their own `/metrics` count. (The kubelet's figures, on
//! the real node: `tests/node/node_room.rs`.)

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use k8s_openapi::api::core::v1::Pod;
use kube::api::Api;
use serde_json::Value;

use support::k8s::*;
use support::watch::defrag_count;
use support::*;

/// A tmpfs of `size` mounted at a new folder; unmounted when dropped.
struct SmallFs {
    dir: tempfile::TempDir,
}

impl SmallFs {
    fn mount(size: &str) -> SmallFs {
        let dir = tempfile::Builder::new()
            .prefix("kubectl-etcd-room-")
            .tempdir()
            .unwrap();
        let status = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .status()
            .unwrap();
        assert!(
            status.success(),
            "mount a tmpfs at {}",
            dir.path().display()
        );
        SmallFs { dir }
    }

    fn path(&self) -> String {
        self.dir.path().display().to_string()
    }
}

impl Drop for SmallFs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg(self.dir.path())
            .status();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn on_the_members_node_the_room_is_read_from_the_filesystem_itself() {
    let client = admin().await;
    kubelet().await;
    let ns = "room";
    let kc = kubeconfig("room.yaml", &[ns]);
    let fx = fixture(&client, ns, "db", Mode::Plain).await;
    // About 50 MB in use on every member: a defrag needs about 112 MiB.
    fx.etcd.fragment(100 << 20, 0.5).await.unwrap();
    let small = SmallFs::mount("80m");
    let roomy = tempfile::tempdir().unwrap();
    let pods: Api<Pod> = Api::namespaced(client.clone(), ns);
    let m = &fx.members;
    let folders = [
        small.path(),
        roomy.path().display().to_string(),
        roomy.path().display().to_string(),
    ];
    for (i, member) in m.iter().enumerate() {
        replace_pod_with_host_data(&pods, "db", member, &fx.etcd.host(i), &folders[i]).await;
    }
    let on_node = [("NODE_NAME".to_string(), NODE.to_string())];
    let tool_in = |extra: &[&str]| {
        let mut a = vec![
            format!("--kubeconfig={}", kc.display()),
            "--connect=direct".into(),
            "-n".into(),
            ns.into(),
        ];
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };

    let doc = tool(
        &tool_in(&["doctor", "db", "-o", "json", "--fail-on", "never"]),
        &on_node,
    )
    .await
    .json();
    let space: Vec<&Value> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["check"] == "defrag-space")
        .collect();
    assert_eq!(space.len(), 1, "{doc}");
    assert_eq!(
        (space[0]["severity"].as_str(), space[0]["member"].as_str()),
        (Some("critical"), Some(m[0].as_str())),
        "{doc}"
    );
    let said = space[0]["message"].as_str().unwrap();
    assert!(
        said.contains("free of 80 MiB (the filesystem of ")
            && said.contains(&format!(
                "{}, read on node {NODE} where this tool runs",
                small.path()
            )),
        "{said}"
    );
    assert_eq!(unread_but_room(&doc), Vec::<String>::new(), "{doc}");

    let before: Vec<u64> =
        futures::future::join_all((0..3).map(|i| defrag_count(&fx.etcd, i))).await;
    let run = tool(
        &tool_in(&["defrag", "db", "--all", "-y", "-o", "json"]),
        &on_node,
    )
    .await;
    run.expect_code(1);
    let report = run.json();
    let held = row(&report, &m[0]);
    assert_eq!(
        (held["outcome"].as_str(), held["reason"].as_str()),
        (Some("Skipped"), Some("NoDiskRoom")),
        "{report}"
    );
    for other in &m[1..] {
        assert_eq!(row(&report, other)["outcome"], "Defragmented", "{report}");
    }
    let after: Vec<u64> =
        futures::future::join_all((0..3).map(|i| defrag_count(&fx.etcd, i))).await;
    assert_eq!(
        after,
        vec![before[0], before[1] + 1, before[2] + 1],
        "the members' own /metrics"
    );
}

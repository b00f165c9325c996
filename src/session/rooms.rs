//! The room on each member's data volume, in plugin mode, from where it
//! can really be known: the filesystem itself when the tool runs on the
//! member's node and its data volume is a hostPath folder this process
//! sees (kubeadm's and rke2's static Pods; a CronJob or an agent on the
//! control-plane node with that folder mounted, `NODE_NAME` set from the
//! downward API), else the kubelet's volume statistics of the volume
//! holding the member's `--data-dir` (`source::DataVolume`), read through
//! the API server, one request per node (`k8s::volumes`). The engine asks
//! it beside every look (`exec::RoomReader`); `doctor` reads it once.

use std::collections::{BTreeMap, BTreeSet};

use futures::future::BoxFuture;

use crate::k8s::{volumes, Kube};
use crate::look::{DiskRoom, Room};
use crate::source::MemberPod;

/// Reads the members' room from the filesystem here or their nodes'
/// kubelets.
#[derive(Clone)]
pub struct MemberRooms {
    kube: Kube,
    pods: Vec<MemberPod>,
    /// The node this tool runs on (`NODE_NAME`, else the host name).
    here: Option<String>,
}

impl std::fmt::Debug for MemberRooms {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "MemberRooms({} members)", self.pods.len())
    }
}

impl MemberRooms {
    pub fn new(kube: &Kube, pods: &[MemberPod]) -> MemberRooms {
        let here = std::env::var("NODE_NAME")
            .ok()
            .filter(|n| !n.is_empty())
            .or_else(|| {
                std::fs::read_to_string("/proc/sys/kernel/hostname")
                    .ok()
                    .map(|h| h.trim().to_string())
            });
        MemberRooms {
            kube: kube.clone(),
            pods: pods.to_vec(),
            here,
        }
    }

    /// Each member's room now: its folder's filesystem where this tool
    /// sees it, else its node's kubelet, every node asked at once.
    pub async fn read_now(&self) -> BTreeMap<String, Room> {
        let local: BTreeMap<&str, Room> = self
            .pods
            .iter()
            .filter_map(|p| {
                let path = local_folder(p, self.here.as_deref())?;
                Some((p.member.as_str(), statfs(path, p.node.as_deref()?)?))
            })
            .collect();
        let nodes: BTreeSet<&str> = self
            .pods
            .iter()
            .filter(|p| p.data_volume.is_some() && p.pod.is_some())
            .filter(|p| !local.contains_key(p.member.as_str()))
            .filter_map(|p| p.node.as_deref())
            .collect();
        let stats: BTreeMap<&str, Result<volumes::NodeVolumes, String>> =
            futures::future::join_all(
                nodes
                    .into_iter()
                    .map(|n| async move { (n, node_volumes(&self.kube, n).await) }),
            )
            .await
            .into_iter()
            .collect();
        self.pods
            .iter()
            .map(|p| {
                let room = match local.get(p.member.as_str()) {
                    Some(room) => room.clone(),
                    None => room_of(p, &stats),
                };
                (p.member.clone(), room)
            })
            .collect()
    }
}

/// How long a node's volume statistics may take: they are read beside
/// every look of the sweep, which acts only on a look younger than
/// `exec::ACT_WITHIN`.
const KUBELET_LIMIT: std::time::Duration = std::time::Duration::from_millis(1000);

/// Node `node`'s volume statistics, or why not (a kubelet slower than
/// [`KUBELET_LIMIT`] leaves the room not known).
async fn node_volumes(kube: &Kube, node: &str) -> Result<volumes::NodeVolumes, String> {
    tokio::time::timeout(KUBELET_LIMIT, volumes::of_node(kube, node))
        .await
        .unwrap_or_else(|_| {
            Err(format!(
                "node {node}'s kubelet did not give its volume statistics within {} ms",
                KUBELET_LIMIT.as_millis()
            ))
        })
}

/// The member's hostPath data folder, when this tool runs on its node.
/// Pure.
fn local_folder<'a>(p: &'a MemberPod, here: Option<&str>) -> Option<&'a str> {
    let path = p.data_volume.as_ref()?.host_path.as_deref()?;
    (p.node.is_some() && p.node.as_deref() == here).then_some(path)
}

/// The free space of the filesystem holding `path` (statvfs), or `None`
/// when this process does not see that folder (a Pod without it mounted).
fn statfs(path: &str, node: &str) -> Option<Room> {
    let st = nix::sys::statvfs::statvfs(path).ok()?;
    let unit = st.fragment_size();
    Some(Room::Read(DiskRoom {
        free_bytes: (st.blocks_available() as u64).saturating_mul(unit),
        capacity_bytes: Some((st.blocks() as u64).saturating_mul(unit)),
        source: format!("the filesystem of {path}, read on node {node} where this tool runs"),
    }))
}

/// One member's room from its node's statistics. Pure.
fn room_of(p: &MemberPod, stats: &BTreeMap<&str, Result<volumes::NodeVolumes, String>>) -> Room {
    let unknown = |why: String| Room::Unknown { why };
    let (Some((namespace, pod)), Some(node)) = (&p.pod, &p.node) else {
        return unknown("its Pod is missing or not scheduled".into());
    };
    let Some(volume) = &p.data_volume else {
        return unknown(format!(
            "no volume of Pod {pod} is mounted where its --data-dir is"
        ));
    };
    let found = match stats.get(node.as_str()) {
        Some(Ok(volumes)) => volumes.get(&(namespace.clone(), pod.clone(), volume.name.clone())),
        Some(Err(why)) => return unknown(why.clone()),
        None => None,
    };
    match found {
        Some(v) => Room::Read(DiskRoom {
            free_bytes: v.available_bytes,
            capacity_bytes: Some(v.capacity_bytes),
            source: format!(
                "the kubelet's statistics of volume {} on node {node}{}",
                volume.name,
                v.time
                    .as_deref()
                    .map(|t| format!(", measured {t}"))
                    .unwrap_or_default()
            ),
        }),
        None => unknown(format!(
            "node {node}'s kubelet reports no statistics for volume {} of Pod {pod} ({}): it measures a Pod's volumes about a minute after the Pod starts, and never a hostPath volume",
            volume.name,
            if volume.host_path.is_some() { "hostPath" } else { "not measured yet, or a driver without volume statistics" }
        )),
    }
}

impl crate::exec::RoomReader for MemberRooms {
    fn read(&self) -> BoxFuture<'_, BTreeMap<String, Room>> {
        Box::pin(self.read_now())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::DataVolume;

    fn pod(member: &str, node: Option<&str>, volume: Option<&str>) -> MemberPod {
        MemberPod {
            member: member.into(),
            node: node.map(Into::into),
            pod: Some(("prod".into(), member.into())),
            data_volume: volume.map(|v| DataVolume {
                name: v.into(),
                host_path: None,
            }),
            ..MemberPod::default()
        }
    }

    #[test]
    fn the_folder_is_read_here_only_on_the_members_node() {
        let mut p = pod("m0", Some("cp-1"), Some("etcd-data"));
        assert_eq!(local_folder(&p, Some("cp-1")), None, "not a hostPath");
        if let Some(v) = p.data_volume.as_mut() {
            v.host_path = Some("/var/lib/etcd".into());
        }
        assert_eq!(local_folder(&p, Some("cp-1")), Some("/var/lib/etcd"));
        assert_eq!(local_folder(&p, Some("cp-2")), None);
        assert_eq!(local_folder(&p, None), None);
        p.node = None;
        assert_eq!(local_folder(&p, None), None);
        // A folder this process does not see is not read here.
        assert!(statfs("/nonexistent/etcd", "cp-1").is_none());
        let Some(Room::Read(room)) = statfs("/", "cp-1") else {
            panic!("/ is readable")
        };
        assert!(room.capacity_bytes.is_some_and(|c| c >= room.free_bytes));
    }

    #[test]
    fn each_member_gets_its_volume_or_why_not() {
        let mut n1 = volumes::NodeVolumes::new();
        n1.insert(
            ("prod".into(), "m0".into(), "data".into()),
            volumes::VolumeStats {
                available_bytes: 5 << 20,
                capacity_bytes: 64 << 20,
                time: Some("2026-12-05T10:00:00Z".into()),
            },
        );
        let stats: BTreeMap<&str, Result<volumes::NodeVolumes, String>> = [
            ("n1", Ok(n1)),
            (
                "n2",
                Err("reading the kubelet's volume statistics needs get on nodes/proxy".into()),
            ),
        ]
        .into_iter()
        .collect();
        let cases = [
            (pod("m0", Some("n1"), Some("data")), "read 5242880 of 67108864: the kubelet's statistics of volume data on node n1, measured 2026-12-05T10:00:00Z"),
            (pod("m1", Some("n1"), Some("data")), "unknown: node n1's kubelet reports no statistics for volume data of Pod m1"),
            (pod("m2", Some("n2"), Some("data")), "unknown: reading the kubelet's volume statistics needs get on nodes/proxy"),
            (pod("m3", None, Some("data")), "unknown: its Pod is missing or not scheduled"),
            (pod("m4", Some("n1"), None), "unknown: no volume of Pod m4 is mounted where its --data-dir is"),
        ];
        for (p, want) in cases {
            let got = match room_of(&p, &stats) {
                Room::Read(r) => format!(
                    "read {} of {}: {}",
                    r.free_bytes,
                    r.capacity_bytes.unwrap_or(0),
                    r.source
                ),
                Room::Unknown { why } => format!("unknown: {why}"),
            };
            assert!(got.starts_with(want), "{}: {got}", p.member);
        }
    }
}

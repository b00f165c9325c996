//! The habits of the etcd-operator's own Go `kubectl-etcd` (its
//! `cmd/kubectl-etcd`, shipped with every operator release): its verbs and
//! its `-p POD`, read as spellings of this tool's commands where the
//! meaning is the same, and refused, with the command that does it, where
//! it is not. Pure: the Pod is looked up by the caller.

use std::ffi::OsString;

use crate::cli::{AlarmCommand, Command, MemberCommand, SnapshotCommand};
use crate::error::{Error, Result};

/// What `snapshot` takes as its first word here.
const SNAPSHOT_VERBS: [&str; 4] = ["save", "status", "usage", "help"];

/// The plugin's `snapshot PATH` as `snapshot save PATH`, and its
/// `compact -p POD` (which compacts at the current revision) as `compact
/// --keep 0 -p POD`, each with a note saying so; every other command line
/// unchanged.
pub fn rewrite_argv(args: Vec<OsString>) -> (Vec<OsString>, Option<String>) {
    let words: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let has = |flag: &str| {
        words
            .iter()
            .any(|w| w == flag || w.starts_with(&format!("{flag}=")))
    };
    let pod = words.iter().any(|w| {
        w == "-p"
            || w == "--pod"
            || w.starts_with("--pod=")
            || w.starts_with("-p") && w.len() > 2 && !w.starts_with("--")
    });
    if pod
        && words.iter().any(|w| w == "compact")
        && !has("--revision")
        && !has("--keep")
        && !has("--keep-duration")
    {
        let mut args = args;
        args.push(OsString::from("--keep"));
        args.push(OsString::from("0"));
        return (
            args,
            Some("the etcd-operator plugin's `compact -p POD` compacts at the current revision: `compact --keep 0`".into()),
        );
    }
    let at = args.iter().position(|a| a == "snapshot");
    let Some(at) = at else {
        return (args, None);
    };
    let next = args.get(at + 1).map(|a| a.to_string_lossy().into_owned());
    match next {
        Some(word) if !word.starts_with('-') && !SNAPSHOT_VERBS.contains(&word.as_str()) => {
            let mut args = args;
            args.insert(at + 1, OsString::from("save"));
            (
                args,
                Some(format!(
                    "`snapshot {word}` is the etcd-operator plugin's spelling of `snapshot save {word}`"
                )),
            )
        }
        _ => (args, None),
    }
}

/// A Pod's place: the EtcdCluster it belongs to and the member it runs,
/// in `namespace`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodMember {
    pub namespace: String,
    pub cluster: String,
    pub member: String,
}

/// Applies `-p POD` to `command`: the Pod's EtcdCluster becomes its
/// CLUSTER (a different CLUSTER given too is refused) and, where the
/// command picks a member, its member. Returns the note that says what it
/// was read as; refuses (exit 2, with the command to run) where the
/// plugin's meaning is not this tool's.
pub fn apply_pod(command: &mut Command, pod: &str, at: &PodMember) -> Result<String> {
    let PodMember {
        namespace,
        cluster,
        member,
    } = at;
    let mut note = format!("-p {pod} is member {member} of EtcdCluster {namespace}/{cluster}");
    let slot: &mut Option<String> = match command {
        Command::Status(a) => {
            note.push_str("; status shows every member");
            &mut a.cluster.cluster
        }
        Command::Members(a) | Command::Member(MemberCommand::List(a)) => &mut a.cluster.cluster,
        Command::Alarm(AlarmCommand::List(a)) => &mut a.cluster.cluster,
        Command::Alarm(AlarmCommand::Disarm(a)) => {
            note.push_str(
                "; only NOSPACE on members back under their quota is cleared (the operator's plugin clears every alarm; CORRUPT needs --force here)",
            );
            &mut a.cluster.cluster
        }
        Command::MoveLeader(a) => {
            note.push_str(
                "; leadership moves from the leader to the most caught-up healthy voter, whichever Pod -p names (as the operator's plugin's forfeit-leadership)",
            );
            &mut a.cluster.cluster
        }
        Command::Compact(a) => &mut a.cluster.cluster,
        Command::Snapshot(SnapshotCommand::Save(a)) => {
            if a.member.is_none() {
                a.member = Some(member.clone());
                note.push_str(&format!("; the snapshot is taken from {member}"));
            }
            &mut a.cluster.cluster
        }
        Command::Member(MemberCommand::Remove(a)) | Command::RemoveMember(a) => {
            &mut a.cluster.cluster
        }
        Command::Doctor(a) => &mut a.cluster.cluster,
        Command::Usage(a) => &mut a.cluster.cluster,
        Command::Leave(_) => return Ok(format!("{note}; leave is `member remove {member}`")),
        Command::Defrag(_) => {
            return Err(Error::usage(format!(
                "defrag -p {pod}: the etcd-operator's plugin defragments that one Pod, whatever it holds, with no health check; here every defrag is gated: `kubectl etcd defrag {cluster} -n {namespace} --member {member} --all` defragments {member} alone, whatever it holds, once the gate passes (without --all, only if the rule finds space to reclaim; without --member, every member, one at a time)"
            )))
        }
        _ => {
            return Err(Error::usage(format!(
                "-p {pod} (an etcd member's Pod) is not used by this command: name the EtcdCluster ({cluster} -n {namespace}) instead"
            )))
        }
    };
    match slot {
        Some(given) if given != cluster => Err(Error::usage(format!(
            "-p {pod} is a member of EtcdCluster {cluster}, not of {given}: give one of them"
        ))),
        _ => {
            *slot = Some(cluster.clone());
            Ok(note)
        }
    }
}

/// The plugin's `add-member URL`: the refusal, with the command here.
pub fn add_member_refusal(url: &str) -> Error {
    Error::usage(format!(
        "add-member {url}: etcd needs the new member's name as well, so here it is `kubectl etcd member add NAME --peer-urls {url} CLUSTER` (with --learner to add it as a learner first); on an EtcdCluster the operator owns membership: raise spec.replicas instead"
    ))
}

/// `-s/--credentials-secret`: the refusal.
pub fn credentials_secret_refusal(secret: &str) -> Error {
    Error::usage(format!(
        "-s {secret}: the EtcdCluster names its own credentials Secret (spec.auth), which is read from there; standalone, use --user NAME (the password is asked for, or read from ETCDCTL_PASSWORD)"
    ))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn parse(line: &str) -> crate::cli::Cli {
        let (args, _) = rewrite_argv(line.split_whitespace().map(OsString::from).collect());
        crate::cli::parse(args).unwrap()
    }

    fn at() -> PodMember {
        PodMember {
            namespace: "prod".into(),
            cluster: "etcd".into(),
            member: "etcd-k9w4m".into(),
        }
    }

    #[test]
    fn snapshot_path_is_snapshot_save() {
        let words = |line: &str| -> (Vec<String>, bool) {
            let (args, note) = rewrite_argv(line.split_whitespace().map(OsString::from).collect());
            (
                args.iter()
                    .map(|a| a.to_string_lossy().into_owned())
                    .collect(),
                note.is_some(),
            )
        };
        assert_eq!(
            words("k snapshot /tmp/b.db -p etcd-0"),
            (
                ["k", "snapshot", "save", "/tmp/b.db", "-p", "etcd-0"]
                    .map(String::from)
                    .to_vec(),
                true
            )
        );
        for unchanged in [
            "k snapshot save b.db",
            "k snapshot status b.db",
            "k snapshot --help",
            "k status",
        ] {
            assert!(!words(unchanged).1, "{unchanged}");
        }
    }

    #[test]
    fn each_plugin_command_maps_or_is_refused() {
        for (line, cluster_set) in [
            ("k status -p etcd-0", true),
            ("k members -p etcd-0", true),
            ("k alarm list -p etcd-0", true),
            ("k alarm disarm -p etcd-0", true),
            ("k forfeit-leadership -p etcd-0", true),
            ("k compact -p etcd-0", true),
            ("k snapshot /tmp/b.db -p etcd-0", true),
            ("k remove-member 8e9e05c52164694d -p etcd-0", true),
            ("k leave -p etcd-0", false),
        ] {
            let mut cli = parse(line);
            assert_eq!(cli.global.pod.as_deref(), Some("etcd-0"), "{line}");
            let note = apply_pod(&mut cli.command, "etcd-0", &at()).unwrap();
            assert!(
                note.starts_with("-p etcd-0 is member etcd-k9w4m of EtcdCluster prod/etcd"),
                "{note}"
            );
            if cluster_set {
                assert!(
                    format!("{:?}", cli.command).contains("cluster: Some(\"etcd\")"),
                    "{line}: {:?}",
                    cli.command
                );
            }
        }
        let mut compact = parse("k compact -p etcd-0");
        apply_pod(&mut compact.command, "etcd-0", &at()).unwrap();
        let Command::Compact(a) = &compact.command else {
            panic!()
        };
        assert_eq!(a.keep, Some(0));
        let mut keep = parse("k compact --keep 100 -p etcd-0");
        apply_pod(&mut keep.command, "etcd-0", &at()).unwrap();
        let Command::Compact(a) = &keep.command else {
            panic!()
        };
        assert_eq!(a.keep, Some(100));
        let mut snap = parse("k snapshot /tmp/b.db -p etcd-0");
        apply_pod(&mut snap.command, "etcd-0", &at()).unwrap();
        let Command::Snapshot(SnapshotCommand::Save(a)) = &snap.command else {
            panic!()
        };
        assert_eq!(a.member.as_deref(), Some("etcd-k9w4m"));

        let mut defrag = parse("k defrag -p etcd-0");
        let refused = apply_pod(&mut defrag.command, "etcd-0", &at())
            .unwrap_err()
            .to_string();
        assert!(
            refused.contains("`kubectl etcd defrag etcd -n prod --member etcd-k9w4m --all`"),
            "{refused}"
        );
        let mut other = parse("k status other -p etcd-0");
        let refused = apply_pod(&mut other.command, "etcd-0", &at())
            .unwrap_err()
            .to_string();
        assert!(refused.contains("not of other"), "{refused}");
        let mut traffic = parse("k traffic show -p etcd-0");
        assert!(apply_pod(&mut traffic.command, "etcd-0", &at()).is_err());
        assert!(add_member_refusal("http://10.0.0.4:2380")
            .to_string()
            .contains("member add NAME --peer-urls http://10.0.0.4:2380"));
        // -k is --kubeconfig.
        assert_eq!(
            parse("k status -k /tmp/kc").global.kubeconfig.as_deref(),
            Some("/tmp/kc")
        );
    }
}

//! Where the operator's EtcdCluster status disagrees with what the members
//! answered (issue 45): `status` and `doctor` read the members themselves,
//! and said nothing when the operator reported `Available=False`, fewer
//! ready members, or another version. Pure.

use crate::look::{ClusterLook, OperatorSays};

/// Each disagreement, in words. Nothing when they agree, or when the
/// operator says nothing on a point.
pub fn disagreements(says: &OperatorSays, look: &ClusterLook) -> Vec<String> {
    let listed = look.members.len();
    let answering = look.members.iter().filter(|m| m.status().is_some()).count();
    let leaders: std::collections::BTreeSet<u64> = look
        .members
        .iter()
        .filter_map(|m| m.status())
        .map(|s| s.leader)
        .filter(|l| *l != 0)
        .collect();
    let all_answer = listed > 0 && answering == listed && leaders.len() == 1;
    let mut out = Vec::new();
    match &says.available {
        Some((false, reason, message)) if all_answer => out.push(format!(
            "the operator reports Available=False ({reason}: {message}), but all {listed} members answer and agree on a leader"
        )),
        Some((true, reason, _)) if answering < listed => out.push(format!(
            "the operator reports Available=True ({reason}), but {} of {listed} members do not answer",
            listed - answering
        )),
        _ => {}
    }
    if let (Some(ready), Some(wanted)) = (says.ready_members, says.replicas) {
        let ready = usize::try_from(ready).unwrap_or(0);
        if ready < answering && answering >= usize::try_from(wanted).unwrap_or(0) {
            out.push(format!(
                "the operator counts {ready} of {wanted} members ready, but {answering} answer"
            ));
        }
    }
    if let Some(wanted) = says.version.as_deref().map(|v| v.trim_start_matches('v')) {
        let other: Vec<String> = look
            .members
            .iter()
            .filter_map(|m| Some((m.name.as_str(), m.status()?.version.as_str())))
            .filter(|(_, v)| !v.is_empty() && v.trim_start_matches('v') != wanted)
            .map(|(n, v)| format!("{n} ({v})"))
            .collect();
        if !other.is_empty() {
            out.push(format!(
                "the operator's EtcdCluster is at version {wanted}, but {} run another",
                other.join(", ")
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::look::{MemberLook, MemberStatus, Probe};

    fn members(versions: &[Option<&str>]) -> ClusterLook {
        ClusterLook {
            members: versions
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    let id = i as u64 + 1;
                    let probe = match v {
                        Some(v) => Probe::Answered(MemberStatus {
                            member_id: id,
                            leader: 1,
                            version: v.to_string(),
                            ..Default::default()
                        }),
                        None => Probe::NotProbed("stopped".into()),
                    };
                    MemberLook::listed_for_test(&format!("m{i}"), id, false, probe)
                })
                .collect(),
            member_list_known: true,
            alarms: vec![],
            alarm_list_error: None,
        }
    }

    fn says(available: Option<bool>, ready: i32, version: &str) -> OperatorSays {
        OperatorSays {
            available: available.map(|a| {
                (
                    a,
                    if a { "QuorumHealthy" } else { "QuorumLost" }.into(),
                    "msg".into(),
                )
            }),
            ready_members: Some(ready),
            replicas: Some(3),
            version: Some(version.into()),
        }
    }

    #[test]
    fn the_operators_word_against_the_members() {
        let all = members(&[Some("3.6.16"), Some("3.6.16"), Some("3.6.16")]);
        let one_down = members(&[Some("3.6.16"), Some("3.6.16"), None]);
        let mixed = members(&[Some("3.6.16"), Some("3.5.21"), Some("3.6.16")]);
        let cases: Vec<(&str, OperatorSays, &ClusterLook, Vec<&str>)> = vec![
            ("agree", says(Some(true), 3, "3.6.16"), &all, vec![]),
            (
                "says unavailable",
                says(Some(false), 3, "3.6.16"),
                &all,
                vec!["the operator reports Available=False (QuorumLost: msg), but all 3 members answer and agree on a leader"],
            ),
            (
                "says available, one does not answer",
                says(Some(true), 2, "3.6.16"),
                &one_down,
                vec!["the operator reports Available=True (QuorumHealthy), but 1 of 3 members do not answer"],
            ),
            (
                "counts fewer ready",
                says(Some(true), 1, "3.6.16"),
                &all,
                vec!["the operator counts 1 of 3 members ready, but 3 answer"],
            ),
            (
                "another version",
                says(None, 3, "3.6.16"),
                &mixed,
                vec!["the operator's EtcdCluster is at version 3.6.16, but m1 (3.5.21) run another"],
            ),
            ("says nothing", OperatorSays::default(), &mixed, vec![]),
        ];
        for (name, says, look, want) in cases {
            assert_eq!(disagreements(&says, look), want, "{name}");
        }
    }
}

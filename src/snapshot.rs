//! `ClusterSnapshot`: one consistent-enough look at every member — Status of
//! each member concurrently, MemberList, AlarmList — taken through `EtcdOps`.
//!
//! This is the only I/O stage before a decision; the gate, the plan and the
//! reports are pure functions over the snapshot. A member that does not
//! answer becomes a row with the failure, never an aborted command; only
//! when no endpoint at all can be used is the snapshot an error (exit 2).

use std::collections::BTreeSet;

use futures::future::join_all;
use futures::stream::{FuturesUnordered, StreamExt};

use crate::error::{Error, Result};
use crate::etcd::{
    parse_alarm_entry, Alarm, ConnectFailure, EtcdOps, ListedMember, MemberStatus, RpcError,
};
use crate::target::{Dial, Endpoint, QuotaFallback, QuotaSource, Scheme, Target};

/// What probing one member produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Probe {
    /// The member answered Status.
    Answered(MemberStatus),
    /// The member was dialed and failed or timed out.
    Failed(RpcError),
    /// The member was not dialed; the text says why.
    NotProbed(String),
}

/// One member as the snapshot saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberSnapshot {
    /// The member's name in MemberList; the endpoint when it is unknown.
    pub name: String,
    /// Member id from MemberList or from the Status header.
    pub id: Option<u64>,
    /// Where it was dialed.
    pub dial: Option<Dial>,
    /// Its MemberList entry, when MemberList answered and lists it.
    pub listed: Option<ListedMember>,
    pub probe: Probe,
    /// The quota that applies to it, and where that figure came from.
    pub quota_bytes: u64,
    pub quota_source: QuotaSource,
}

#[cfg(test)]
impl MemberSnapshot {
    /// For tests: a member MemberList lists as `name`/`id`, whose probe is
    /// `probe`, with etcd's default 2 GiB quota (struct update to change it).
    pub(crate) fn listed_for_test(
        name: &str,
        id: u64,
        is_learner: bool,
        probe: Probe,
    ) -> MemberSnapshot {
        MemberSnapshot {
            name: name.into(),
            id: Some(id),
            dial: None,
            listed: Some(ListedMember {
                id,
                name: name.into(),
                peer_urls: vec![],
                client_urls: vec![],
                is_learner,
            }),
            probe,
            quota_bytes: 2 << 30,
            quota_source: QuotaSource::Default,
        }
    }
}

impl MemberSnapshot {
    /// The Status answer, if any.
    pub fn status(&self) -> Option<&MemberStatus> {
        match &self.probe {
            Probe::Answered(s) => Some(s),
            _ => None,
        }
    }

    /// Whether MemberList (or, failing that, the member itself) says learner.
    pub fn is_learner(&self) -> bool {
        match (&self.listed, self.status()) {
            (Some(l), _) => l.is_learner,
            (None, Some(s)) => s.is_learner,
            (None, None) => false,
        }
    }
}

/// Everything a decision needs, taken at one moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterSnapshot {
    /// In MemberList order (then any probed endpoint MemberList did not list).
    pub members: Vec<MemberSnapshot>,
    /// Whether MemberList answered; without it the voter set is unknown.
    pub member_list_known: bool,
    /// Alarms from AlarmList and from every member's Status errors, merged.
    pub alarms: Vec<Alarm>,
    /// Why AlarmList failed, when it did.
    pub alarm_list_error: Option<String>,
}

impl ClusterSnapshot {
    /// The member with this id.
    pub fn member_by_id(&self, id: u64) -> Option<&MemberSnapshot> {
        self.members.iter().find(|m| m.id == Some(id))
    }

    /// A readable name for a member id (its name, else the hex id).
    pub fn name_of(&self, id: u64) -> String {
        self.member_by_id(id)
            .map(|m| m.name.clone())
            .unwrap_or_else(|| format!("{id:x}"))
    }
}

/// Asks the seeds for MemberList, concurrently; the first seed to answer
/// wins (every member returns the same list), so a hung seed costs nothing
/// when another answers. When none answers, the error lists every seed with
/// its cause (exit 2: nothing could be inspected).
pub async fn member_list<O: EtcdOps>(
    ops: &O,
    target: &Target,
) -> Result<(Dial, Vec<ListedMember>)> {
    let mut pending: FuturesUnordered<_> = target
        .dials
        .iter()
        .enumerate()
        .map(|(i, d)| async move { (i, ops.member_list(d).await) })
        .collect();
    let mut failures: Vec<(usize, ConnectFailure)> = Vec::new();
    while let Some((i, answer)) = pending.next().await {
        match answer {
            Ok(members) => return Ok((target.dials[i].clone(), members)),
            Err(e) => failures.push((
                i,
                ConnectFailure {
                    endpoint: target.dials[i].endpoint.to_string(),
                    cause: e.cause,
                },
            )),
        }
    }
    failures.sort_by_key(|(i, _)| *i);
    Err(Error::NoEndpointAnswered(
        failures.into_iter().map(|(_, f)| f).collect(),
    ))
}

/// Takes a snapshot of the cluster `target` points at.
///
/// With discovery, the seeds are asked for MemberList and every listed member
/// is probed at its advertised client URL (a seed that matches that URL is
/// reused as is). Without discovery, exactly the seeds are probed and
/// MemberList only supplies names and the voter set.
pub async fn take<O: EtcdOps>(ops: &O, target: &Target) -> Result<ClusterSnapshot> {
    let (list_dial, list) = member_list(ops, target).await?;

    // Decide whom to probe.
    let mut rows: Vec<(Option<ListedMember>, Option<Dial>, Option<String>)> = Vec::new();
    if target.discover {
        for member in &list {
            match dial_for_listed(member, &target.dials) {
                Ok(dial) => rows.push((Some(member.clone()), Some(dial), None)),
                Err(why) => rows.push((Some(member.clone()), None, Some(why))),
            }
        }
    } else {
        for dial in &target.dials {
            rows.push((None, Some(dial.clone()), None));
        }
    }

    // Round 2: Status of every member and AlarmList, concurrently.
    let statuses = join_all(rows.iter().map(|(_, dial, _)| async move {
        match dial {
            Some(d) => Some(ops.status(d).await),
            None => None,
        }
    }));
    let (statuses, alarm_answer) = futures::join!(statuses, ops.alarm_list(&list_dial));

    let mut members: Vec<MemberSnapshot> = Vec::new();
    for ((listed_member, dial, not_probed), status) in rows.into_iter().zip(statuses) {
        let probe = match (status, not_probed) {
            (Some(Ok(s)), _) => Probe::Answered(s),
            (Some(Err(e)), _) => Probe::Failed(e),
            (None, why) => Probe::NotProbed(why.unwrap_or_else(|| "not dialed".into())),
        };
        // Without discovery, match the probed endpoint to MemberList by the
        // id in the Status header.
        let listed_member = listed_member.or_else(|| match &probe {
            Probe::Answered(s) => list.iter().find(|m| m.id == s.member_id).cloned(),
            _ => None,
        });
        members.push(member_row(listed_member, dial, probe, target.quota));
    }
    if !target.discover {
        // Voters the user left out still count for the gate.
        let probed: BTreeSet<u64> = members.iter().filter_map(|m| m.id).collect();
        for member in list.iter().filter(|m| !probed.contains(&m.id)) {
            members.push(member_row(
                Some(member.clone()),
                None,
                Probe::NotProbed("not in --endpoints and --no-discover is set".into()),
                target.quota,
            ));
        }
    }

    let mut alarms: BTreeSet<Alarm> = BTreeSet::new();
    let alarm_list_error = match alarm_answer {
        Ok(list) => {
            alarms.extend(list);
            None
        }
        Err(e) => Some(e.to_string()),
    };
    for m in &members {
        if let Some(s) = m.status() {
            alarms.extend(s.errors.iter().filter_map(|e| parse_alarm_entry(e)));
        }
    }

    Ok(ClusterSnapshot {
        members,
        member_list_known: true,
        alarms: alarms.into_iter().collect(),
        alarm_list_error,
    })
}

/// Adds every member's dial to the target's seeds (with discovery on), so
/// that later snapshots still work when the endpoint first given goes down —
/// a sweep must survive its seed being stopped or defragmented.
pub fn with_members_as_seeds(target: &Target, snapshot: &ClusterSnapshot) -> Target {
    let mut target = target.clone();
    if target.discover {
        for dial in snapshot.members.iter().filter_map(|m| m.dial.clone()) {
            if !target.dials.contains(&dial) {
                target.dials.push(dial);
            }
        }
    }
    target
}

fn member_row(
    listed: Option<ListedMember>,
    dial: Option<Dial>,
    probe: Probe,
    fallback: QuotaFallback,
) -> MemberSnapshot {
    let status_id = match &probe {
        Probe::Answered(s) if s.member_id != 0 => Some(s.member_id),
        _ => None,
    };
    let id = listed.as_ref().map(|l| l.id).or(status_id);
    let name = match (&listed, &dial) {
        (Some(l), _) if !l.name.is_empty() => l.name.clone(),
        (Some(l), _) => format!("(unstarted {:x})", l.id),
        (None, Some(d)) => d.endpoint.to_string(),
        (None, None) => "(unknown)".into(),
    };
    let (quota_bytes, quota_source) = match &probe {
        Probe::Answered(MemberStatus {
            db_size_quota: Some(q),
            ..
        }) => (*q, QuotaSource::Member),
        _ => (fallback.bytes, fallback.source),
    };
    MemberSnapshot {
        name,
        id,
        dial,
        listed,
        probe,
        quota_bytes,
        quota_source,
    }
}

/// Picks where to dial a listed member: a seed that is one of its client
/// URLs (keeping that seed's TLS name), else its first client URL.
fn dial_for_listed(member: &ListedMember, seeds: &[Dial]) -> std::result::Result<Dial, String> {
    if member.client_urls.is_empty() {
        return Err("member has no client URL yet (added but not started)".into());
    }
    let mut first_error = None;
    let mut first_parsed = None;
    for url in &member.client_urls {
        match Endpoint::parse(url, Scheme::Http) {
            Ok(endpoint) => {
                if let Some(seed) = seeds.iter().find(|s| s.endpoint == endpoint) {
                    return Ok(seed.clone());
                }
                if first_parsed.is_none() {
                    first_parsed = Some(endpoint);
                }
            }
            Err(e) => {
                if first_error.is_none() {
                    first_error = Some(format!("advertised client URL {url:?} is unusable: {e}"));
                }
            }
        }
    }
    match first_parsed {
        Some(endpoint) => Ok(Dial::new(endpoint)),
        None => Err(first_error.unwrap_or_else(|| "no usable client URL".into())),
    }
}

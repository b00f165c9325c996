//! `members` (the member list) and `member add|promote|remove` (what
//! changed, checked against the quorum arithmetic).

use serde::Serialize;

use super::{member_id, ClusterRef};
use crate::look::ListedMember;

/// `members`: the member list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MembersReport {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<ClusterRef>,
    pub members: Vec<MemberListRow>,
}

/// One MemberList entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MemberListRow {
    pub id: String,
    pub name: String,
    pub peer_urls: Vec<String>,
    pub client_urls: Vec<String>,
    pub is_learner: bool,
}

impl MembersReport {
    /// Builds the member-list report. Pure.
    pub fn build(cluster: Option<ClusterRef>, list: &[ListedMember]) -> MembersReport {
        let mut list = list.to_vec();
        list.sort_by(|a, b| a.name.cmp(&b.name).then(a.id.cmp(&b.id)));
        MembersReport {
            cluster,
            members: list
                .iter()
                .map(|m| MemberListRow {
                    id: member_id(m.id),
                    name: m.name.clone(),
                    peer_urls: m.peer_urls.clone(),
                    client_urls: m.client_urls.clone(),
                    is_learner: m.is_learner,
                })
                .collect(),
        }
    }
}

/// What `member add|promote|remove` did (or, with `dryRun`, would do).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MemberChangeReport {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<ClusterRef>,
    pub dry_run: bool,
    /// `add`, `promote` or `remove`.
    pub action: &'static str,
    /// The member's name (for an add, the name it is to start with).
    pub member: String,
    /// Its id in hex; for a dry-run add, not known yet.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub learner: bool,
    /// The quorum arithmetic the change was checked against.
    pub quorum: QuorumView,
    /// Whether `--force` overrode a refusal; `refusal` says which.
    pub forced: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refusal: Option<String>,
    /// For an add: the settings the new member must start with.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub start_with: Vec<(String, String)>,
    /// The member list after the change (empty on a dry run).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub members_after: Vec<MemberListRow>,
    /// For a promotion: known etcd defects of promotion in the members'
    /// releases (`plan::membership::promotion_hazards`), also warned about
    /// on stderr before the change.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub known_defects: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QuorumView {
    pub voters_before: usize,
    pub voters_after: usize,
    pub answering_after: usize,
    pub needed: usize,
}

impl From<crate::plan::membership::Quorum> for QuorumView {
    fn from(q: crate::plan::membership::Quorum) -> Self {
        QuorumView {
            voters_before: q.voters_before,
            voters_after: q.voters_after,
            answering_after: q.answering_after,
            needed: q.needed,
        }
    }
}

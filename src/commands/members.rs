//! `members`: the member list as the cluster reports it.

use super::change::{self, Acted, Change, Decided};
use crate::error::{Error, ExitStatus, Result};
use crate::etcd::EtcdOps;
use crate::exec::signals::{self, Notices};
use crate::exec::RunControl;
use crate::look::{ClusterLook, ListedMember, MemberLook};
use crate::output;
use crate::plan::membership::{self, Named};
use crate::reach::Dial;
use crate::report::{member_id, MemberChangeReport, MembersReport};
use crate::settings::command::{
    MemberAdd as MemberAddArgs, MemberChange as MemberChangeArgs, Membership as MembershipArgs,
    OneCluster as MembersArgs,
};
use crate::settings::{Consent, Global};

pub async fn run(global: &Global, args: &MembersArgs) -> Result<ExitStatus> {
    let session = crate::session::open(&global.reach, args.cluster.as_deref()).await?;
    let (_, list) = crate::etcd::take::member_list(&session.clients, &session.target).await?;
    let report = MembersReport::build(session.target.cluster.clone(), &list);
    output::print(&report, global.output)?;
    Ok(ExitStatus::Success)
}

/// `member add`.
pub async fn add(global: &Global, args: &MemberAddArgs) -> Result<ExitStatus> {
    change::run(global, Which::Add(args)).await
}

/// `member promote`.
pub async fn promote(global: &Global, args: &MemberChangeArgs) -> Result<ExitStatus> {
    change::run(global, Which::Promote(args)).await
}

/// `member remove`.
pub async fn remove(global: &Global, args: &MemberChangeArgs) -> Result<ExitStatus> {
    change::run(global, Which::Remove(args)).await
}

/// Which membership change, with its settings.
#[derive(Clone, Copy)]
enum Which<'a> {
    Add(&'a MemberAddArgs),
    Promote(&'a MemberChangeArgs),
    Remove(&'a MemberChangeArgs),
}

impl<'a> Which<'a> {
    fn flags(self) -> &'a MembershipArgs {
        match self {
            Which::Add(a) => &a.change,
            Which::Promote(a) | Which::Remove(a) => &a.change,
        }
    }

    fn action(self) -> &'static str {
        match self {
            Which::Add(_) => "add",
            Which::Promote(_) => "promote",
            Which::Remove(_) => "remove",
        }
    }
}

/// The change decided on: the member (its id once it exists) as shown,
/// and the cluster opened for it.
struct Step {
    open: Opened,
    id: u64,
    shown: String,
}

/// A membership change is a `change::Change`.
impl Change for Which<'_> {
    type Plan = Step;
    type Report = MemberChangeReport;

    fn verb(&self) -> &'static str {
        match *self {
            Which::Add(_) => "add a member",
            Which::Promote(_) | Which::Remove(_) => "change membership",
        }
    }

    /// `--force` is consented to by the typed confirmation (asked while
    /// deciding), not by a yes/no prompt.
    fn consent(&self) -> Consent {
        let flags = self.flags();
        Consent {
            yes: flags.consent.yes || flags.force,
            dry_run: flags.consent.dry_run,
        }
    }

    async fn decide(&self, global: &Global) -> Result<Decided<Step, MemberChangeReport>> {
        let (step, report) = match *self {
            Which::Add(args) => decide_add(global, args).await?,
            Which::Promote(args) | Which::Remove(args) => {
                decide_change(global, args, self.action()).await?
            }
        };
        Ok(Decided::Act { plan: step, report })
    }

    async fn confirm(&self, step: &Step) -> Result<bool> {
        let verb = verb(self.action());
        output::prompt::confirm_async(format!("{verb} {}?", step.shown)).await
    }

    // The change in flight is never cut short by the first signal (it is
    // made or refused, and reported); a second stops waiting for it.
    fn notices(&self) -> Notices {
        Notices {
            first: "reporting once the membership change in flight is done".into(),
            hint: Some("to stop waiting for it".into()),
            second: "no longer waiting; the membership change may or may not have been made: list the members to see".into(),
        }
    }

    async fn act(
        &self,
        step: Step,
        report: &mut MemberChangeReport,
        control: &RunControl,
    ) -> Result<Acted> {
        let Step {
            mut open,
            id,
            shown,
        } = step;
        match *self {
            Which::Add(args) => {
                let Some(added) = signals::unless_abandoned(
                    control,
                    open.ops()
                        .member_add(&open.via, &args.peer_urls, args.learner),
                )
                .await
                else {
                    return Ok(Acted::Abandoned);
                };
                let (id, after) =
                    added.map_err(|e| refused_by_etcd(format!("add member {}", args.name), e))?;
                report.id = Some(member_id(id));
                report.start_with = start_settings(&args.name, id, &args.peer_urls, &after);
                report.members_after = MembersReport::build(None, &after).members;
            }
            Which::Promote(_) | Which::Remove(_) => {
                let action = self.action();
                if action == "remove" && open.via_id == Some(id) {
                    // Never ask the member being removed: it stops serving
                    // as soon as the removal applies and may not answer.
                    open.via = open.other_than(id).ok_or_else(|| {
                        Error::refused(format!(
                            "no other member answers to send the removal of {shown} to"
                        ))
                    })?;
                }
                let open = &open;
                let Some(changed) = signals::unless_abandoned(control, async {
                    if action == "promote" {
                        open.ops().member_promote(&open.via, id).await
                    } else {
                        open.ops().member_remove(&open.via, id).await
                    }
                })
                .await
                else {
                    return Ok(Acted::Abandoned);
                };
                let after = changed.map_err(|e| refused_by_etcd(format!("{action} {shown}"), e))?;
                report.members_after = MembersReport::build(None, &after).members;
            }
        }
        Ok(Acted::Done)
    }
}

/// `member add`: refused when the name or a peer URL is taken; warns when
/// the new member would take in a backend near its quota.
async fn decide_add(global: &Global, args: &MemberAddArgs) -> Result<(Step, MemberChangeReport)> {
    let change = Proposed {
        global,
        cluster: args.cluster.as_deref(),
        flags: &args.change,
        typed: args.name.clone(),
    };
    let mut open = change.open(Lookup::None).await?;
    if let Some(m) = open.look.members.iter().find(|m| m.name == args.name) {
        return Err(Error::usage(format!(
            "NAME {}: a member by that name exists already ({})",
            args.name,
            member_id(m.id.unwrap_or(0))
        )));
    }
    let taken: Vec<&String> = open
        .look
        .members
        .iter()
        .filter_map(|m| m.listed.as_ref())
        .flat_map(|l| l.peer_urls.iter())
        .filter(|u| args.peer_urls.contains(u))
        .collect();
    if let Some(url) = taken.first() {
        return Err(Error::usage(format!(
            "--peer-urls {url}: another member has that peer URL already"
        )));
    }
    if let Some(warning) = membership::replay_warning(
        &open.look,
        &crate::reach::ClusterRef::command_args(open.session.target.cluster.as_ref()),
    ) {
        crate::logging::warn(&format!("warning: {warning}"));
    }
    let checked = membership::check(
        &open.look,
        membership::Change::Add {
            learner: args.learner,
        },
        None,
        0,
    );
    let report = open
        .settle(&change, "add", &args.name, args.learner, checked)
        .await?;
    let step = Step {
        open,
        id: 0,
        shown: args.name.clone(),
    };
    Ok((step, report))
}

/// `member promote` and `member remove`: the member named, the quorum
/// verdict, and for a promotion the known defects of the releases.
async fn decide_change(
    global: &Global,
    args: &MemberChangeArgs,
    action: &'static str,
) -> Result<(Step, MemberChangeReport)> {
    let change = Proposed {
        global,
        cluster: args.cluster.as_deref(),
        flags: &args.change,
        typed: args.member.clone(),
    };
    let mut open = change.open(Lookup::Member(&args.member)).await?;
    let index = match open.member.clone() {
        Some(Named::One(i)) => i,
        Some(Named::Ambiguous(found)) => {
            let both: Vec<String> = found
                .iter()
                .map(|&i| open.look.members[i].name.clone())
                .collect();
            return Err(Error::usage(format!(
                "MEMBER {}: reads as the id of more than one member ({}); give the name",
                args.member,
                both.join(", ")
            )));
        }
        Some(Named::None) | None => {
            return Err(Error::usage(not_found(
                &open.look,
                action,
                &args.member,
                &open.session.target,
                args.change.force,
            )))
        }
    };
    let member = open.look.members[index].clone();
    let id = member.id.unwrap_or(0);
    let leader_applied = open
        .leader
        .and_then(|l| open.look.member_by_id(l))
        .and_then(|m| m.status())
        .map(|s| s.raft_applied_index);
    let checked = membership::check(
        &open.look,
        if action == "promote" {
            membership::Change::Promote(&member)
        } else {
            membership::Change::Remove(&member)
        },
        leader_applied,
        crate::plan::gate::DEFAULT_MAX_RAFT_LAG,
    );
    let shown = if member.name.is_empty() || membership::never_started(&member) {
        member_id(id)
    } else {
        member.name.clone()
    };
    let hazards = if action == "promote" {
        membership::promotion_hazards(&open.look)
    } else {
        vec![]
    };
    // Said before the prompt, so the promotion is agreed to knowing them.
    for hazard in &hazards {
        crate::logging::warn(&format!("warning: known etcd defect: {hazard}"));
    }
    let mut report = open
        .settle(&change, action, &shown, member.is_learner(), checked)
        .await?;
    report.id = Some(member_id(id));
    report.known_defects = hazards;
    Ok((Step { open, id, shown }, report))
}

/// How MEMBER is to be found in the look.
enum Lookup<'a> {
    None,
    Member(&'a str),
}

/// A membership change being prepared: the flags and what to type.
struct Proposed<'a> {
    global: &'a Global,
    cluster: Option<&'a str>,
    flags: &'a MembershipArgs,
    /// What --force asks to be typed (or given to --confirm).
    typed: String,
}

/// The cluster opened for a change: its snapshot, the member addressed and
/// the member the request goes through.
struct Opened {
    session: crate::session::Session,
    look: ClusterLook,
    leader: Option<u64>,
    member: Option<Named>,
    via: Dial,
    via_id: Option<u64>,
}

impl Proposed<'_> {
    async fn open(&self, lookup: Lookup<'_>) -> Result<Opened> {
        let what = match lookup {
            Lookup::None => "add a member",
            Lookup::Member(_) => "change membership",
        };
        output::prompt::require_consent(
            self.flags.consent.yes || self.flags.force,
            self.flags.consent.dry_run,
            what,
        )?;
        let session = crate::session::open(&self.global.reach, self.cluster).await?;
        if let Some(cluster) = &session.target.cluster {
            if !self.flags.force {
                return Err(Error::usage(format!(
                    "EtcdCluster {ns}/{name} is managed by etcd-operator, which owns its membership: change the EtcdCluster instead (kubectl edit etcdcluster {name} -n {ns}, spec.size); --force acts anyway",
                    ns = cluster.namespace,
                    name = cluster.name
                )));
            }
        }
        let look = crate::etcd::take::look(&session.clients, &session.target).await?;
        let leader = crate::plan::gate::evaluate(&look, &Default::default()).leader;
        let member = match lookup {
            Lookup::None => None,
            Lookup::Member(text) => Some(membership::find_member(&look, text)),
        };
        // Through the leader when it answers (etcd forwards anyway), else
        // any member that answers.
        let answering = |m: &&MemberLook| m.status().is_some();
        let (via, via_id) = leader
            .and_then(|l| look.member_by_id(l))
            .filter(answering)
            .into_iter()
            .chain(look.members.iter().filter(answering))
            .find_map(|m| Some((m.dial.clone()?, m.id)))
            .ok_or_else(|| {
                Error::Refused("no member answers, so no membership change can be made".into())
            })?;
        Ok(Opened {
            session,
            look,
            leader,
            member,
            via,
            via_id,
        })
    }
}

impl Opened {
    fn ops(&self) -> &crate::etcd::EtcdClients {
        &self.session.clients
    }

    /// Another answering member to send a request through.
    fn other_than(&self, id: u64) -> Option<Dial> {
        self.look
            .members
            .iter()
            .filter(|m| m.id != Some(id) && m.status().is_some())
            .find_map(|m| m.dial.clone())
    }

    /// Applies the quorum verdict: a refusal stops (exit 1) unless --force,
    /// and --force needs the typed confirmation (asked here, before
    /// anything is sent). A refusal is the error.
    async fn settle(
        &mut self,
        proposed: &Proposed<'_>,
        action: &'static str,
        name: &str,
        learner: bool,
        checked: std::result::Result<membership::Quorum, membership::Refusal>,
    ) -> Result<MemberChangeReport> {
        let (quorum, refusal) = match checked {
            Ok(q) => (q, None),
            Err(membership::Refusal::Quorum { quorum, change }) if proposed.flags.force => {
                let r = membership::Refusal::Quorum { quorum, change };
                (quorum, Some(r.to_string()))
            }
            Err(r) if r.is_usage() => return Err(Error::usage(r)),
            Err(r) => return Err(Error::refused(r)),
        };
        let report = MemberChangeReport {
            cluster: self.session.target.cluster.clone(),
            dry_run: proposed.flags.consent.dry_run,
            action,
            member: name.to_string(),
            id: None,
            learner,
            quorum: quorum.into(),
            forced: proposed.flags.force,
            refusal,
            start_with: vec![],
            members_after: vec![],
            known_defects: vec![],
        };
        if proposed.flags.consent.dry_run || !proposed.flags.force {
            return Ok(report);
        }
        output::prompt::typed_consent(
            proposed.flags.confirm.as_deref(),
            &proposed.typed,
            format!("--force: {} {name} {}.", verb(action), why_forced(&report)),
            format!(
                "--force needs the member typed to confirm: at the prompt, or --confirm {}; nothing changed",
                proposed.typed
            ),
        )
        .await?;
        Ok(report)
    }
}

/// Why MEMBER names no member, with the members listed. A member added
/// but never started has no name in MemberList (the name given to
/// `member add` is not stored until it starts): the message says so and
/// gives the command that names it by id.
fn not_found(
    look: &ClusterLook,
    action: &str,
    typed: &str,
    target: &crate::reach::Target,
    force: bool,
) -> String {
    let mut text = format!(
        "MEMBER {typed}: no such member (members: {})",
        membership::describe_members(look)
    );
    let unstarted: Vec<u64> = look
        .members
        .iter()
        .filter(|m| membership::never_started(m))
        .filter_map(|m| m.id)
        .collect();
    if let [id] = unstarted.as_slice() {
        text.push_str(&format!(
            "; a member that was added but never started has no name until it starts: name it by its id (kubectl etcd member {action} {}{}{})",
            member_id(*id),
            crate::reach::ClusterRef::command_args(target.cluster.as_ref()),
            if force { " --force" } else { "" }
        ));
    } else if !unstarted.is_empty() {
        text.push_str(
            "; members that were added but never started have no name until they start: name one by its id, as listed",
        );
    }
    text
}

/// etcdctl's advice after `member add`: the settings the new member must
/// start with to join (not to found a new cluster).
fn start_settings(
    name: &str,
    id: u64,
    peer_urls: &[String],
    after: &[ListedMember],
) -> Vec<(String, String)> {
    let initial: Vec<String> = after
        .iter()
        .flat_map(|m| {
            let named = if m.id == id { name } else { m.name.as_str() };
            m.peer_urls
                .iter()
                .filter(move |_| !named.is_empty())
                .map(move |u| format!("{named}={u}"))
        })
        .collect();
    vec![
        ("ETCD_NAME".into(), name.to_string()),
        ("ETCD_INITIAL_CLUSTER".into(), initial.join(",")),
        (
            "ETCD_INITIAL_ADVERTISE_PEER_URLS".into(),
            peer_urls.join(","),
        ),
        ("ETCD_INITIAL_CLUSTER_STATE".into(), "existing".into()),
    ]
}

/// etcd's own membership checks, explained: its strict reconfiguration
/// check answers "unhealthy cluster" until every member it counts has been
/// connected for 5 s (right after a start or a restart, too), and a learner
/// is promoted only once it has caught up.
fn refused_by_etcd(action: String, e: crate::etcd::RpcError) -> Error {
    let text = e.cause.to_string();
    let advice = if text.contains("unhealthy cluster") {
        "etcd accepts a membership change only once the members it needs have been connected for 5 s; try again shortly"
    } else if text.contains("in sync with leader") {
        "the learner has not caught up with the leader yet; try again shortly"
    } else {
        return Error::etcd(action, e);
    };
    Error::Failed(format!("{action}: etcd refused ({text}): {advice}"))
}

fn verb(action: &str) -> &'static str {
    match action {
        "add" => "Add",
        "promote" => "Promote",
        _ => "Remove",
    }
}

fn why_forced(report: &MemberChangeReport) -> String {
    match &report.refusal {
        Some(r) => format!("overrides: {r}"),
        None => "acts on a cluster etcd-operator manages".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_settings_name_every_started_member_and_the_new_one() {
        let list = vec![
            ListedMember {
                id: 1,
                name: "a".into(),
                peer_urls: vec!["http://h1:2380".into()],
                client_urls: vec![],
                is_learner: false,
            },
            ListedMember {
                id: 9,
                name: String::new(),
                peer_urls: vec!["http://h9:2380".into()],
                client_urls: vec![],
                is_learner: true,
            },
        ];
        let s = start_settings("n", 9, &["http://h9:2380".into()], &list);
        assert_eq!(s[1].1, "a=http://h1:2380,n=http://h9:2380");
        assert_eq!(
            s[3],
            ("ETCD_INITIAL_CLUSTER_STATE".into(), "existing".into())
        );
    }
}

//! `alarm list` and `alarm disarm`. Disarm clears NOSPACE per member and
//! only once that member is back under its quota; CORRUPT needs `--force`
//! and a typed confirmation (or `--confirm-corrupt MEMBER`).

use super::change::{self, Acted, Change, Decided};
use crate::error::{Error, ExitStatus, Result};
use crate::exec::signals::{self, Notices};
use crate::exec::{after, RunControl};
use crate::look::{AlarmKind, ClusterLook};
use crate::output;
use crate::plan::alarm::{disarm_decisions, DisarmDecision};
use crate::report::{AlarmAction, AlarmDisarmReport, AlarmListReport, AlarmResult, AlarmRow};
use crate::session::Session;
use crate::settings::command::{AlarmDisarm as AlarmDisarmArgs, OneCluster as AlarmListArgs};
use crate::settings::{Consent, Global};

pub async fn list(global: &Global, args: &AlarmListArgs) -> Result<ExitStatus> {
    let session = crate::session::open(&global.reach, args.cluster.as_deref()).await?;
    let look = crate::etcd::take::look(&session.clients, &session.target).await?;
    let report = AlarmListReport {
        cluster: session.target.cluster.clone(),
        alarms: AlarmRow::all(&look),
    };
    output::print(&report, global.output)?;
    Ok(ExitStatus::Success)
}

pub async fn disarm(global: &Global, args: &AlarmDisarmArgs) -> Result<ExitStatus> {
    change::run(global, Disarm { args }).await
}

/// `alarm disarm`, a `change::Change`.
struct Disarm<'a> {
    args: &'a AlarmDisarmArgs,
}

/// The disarms decided on, with the session and the look they were
/// decided on.
struct Disarming {
    /// How many alarms are disarmed.
    count: usize,
    session: Session,
    look: ClusterLook,
}

impl Change for Disarm<'_> {
    type Plan = Disarming;
    type Report = AlarmDisarmReport;

    fn verb(&self) -> &'static str {
        "disarm alarms"
    }

    fn consent(&self) -> Consent {
        self.args.consent
    }

    async fn decide(&self, global: &Global) -> Result<Decided<Disarming, AlarmDisarmReport>> {
        let args = self.args;
        let session = crate::session::open(&global.reach, args.cluster.as_deref()).await?;
        let look = crate::etcd::take::look(&session.clients, &session.target).await?;
        for name in &args.members {
            if !look.members.iter().any(|m| &m.name == name) {
                return Err(Error::usage(format!("--member {name}: no such member")));
            }
        }
        let cluster = session.target.cluster.clone();
        let decisions = disarm_decisions(&look, &args.members, args.force, cluster.as_ref());
        if !args.consent.dry_run {
            confirm_dangerous(&decisions, args.confirm_corrupt.as_deref()).await?;
        }
        let report = AlarmDisarmReport {
            cluster,
            dry_run: args.consent.dry_run,
            alarms: decisions
                .iter()
                .map(|d| AlarmAction {
                    member: d.member.clone(),
                    member_id: d.member_id.clone(),
                    alarm: d.alarm.clone(),
                    result: if d.disarm {
                        AlarmResult::WouldDisarm
                    } else {
                        AlarmResult::Kept
                    },
                    why: d.why.clone(),
                    denied: false,
                })
                .collect(),
        };
        let count = decisions.iter().filter(|d| d.disarm).count();
        Ok(Decided::Act {
            plan: Disarming {
                count,
                session,
                look,
            },
            report,
        })
    }

    async fn confirm(&self, plan: &Disarming) -> Result<bool> {
        if plan.count == 0 {
            return Ok(true);
        }
        output::prompt::confirm_async(format!("Disarm {} alarm(s)?", plan.count)).await
    }

    // A signal never cuts a disarm short: the disarms are made and
    // reported; a second signal stops waiting for them.
    fn notices(&self) -> Notices {
        Notices {
            first: "reporting once the alarms in flight are disarmed".into(),
            hint: Some("to stop waiting for them".into()),
            second: "no longer waiting; alarms may or may not have been disarmed: list the alarms to see".into(),
        }
    }

    fn untouched(&self, _plan: &Disarming) -> String {
        "no alarm was disarmed".into()
    }

    async fn act(
        &self,
        plan: Disarming,
        report: &mut AlarmDisarmReport,
        control: &RunControl,
    ) -> Result<Acted> {
        let (session, look) = (&plan.session, &plan.look);
        let args = self.args;
        let disarmed = signals::unless_abandoned(
            control,
            after::disarm(
                &session.clients,
                look,
                &args.members,
                args.force,
                session.target.cluster.as_ref(),
            ),
        )
        .await;
        let Some(actions) = disarmed else {
            return Ok(Acted::Abandoned);
        };
        report.alarms = actions;
        Ok(Acted::Done)
    }

    /// Exit 1 when alarms remain, naming them; exit 2 when etcd refused
    /// the user the role a disarm needs (every command meets that alike).
    fn finished(&self, report: &AlarmDisarmReport) -> ExitStatus {
        if let Some(denied) = report.alarms.iter().find(|a| a.denied) {
            crate::logging::error(&format!(
                "disarm {} on {}: {}",
                denied.alarm, denied.member, denied.why
            ));
            return ExitStatus::Usage;
        }
        let remaining: Vec<String> = report
            .alarms
            .iter()
            .filter(|a| matches!(a.result, AlarmResult::Kept | AlarmResult::Failed))
            .map(|a| format!("{} on {}: {}", a.alarm, a.member, a.why))
            .collect();
        if remaining.is_empty() {
            return ExitStatus::Success;
        }
        super::unfinished(format!(
            "{} alarm(s) remain: {}",
            remaining.len(),
            remaining.join("; ")
        ))
    }
}

/// CORRUPT (or unknown) alarms are cleared only with a typed confirmation,
/// `--yes` or not: the member's name, at the prompt or in
/// `--confirm-corrupt`.
async fn confirm_dangerous(decisions: &[DisarmDecision], typed: Option<&str>) -> Result<()> {
    let dangerous = decisions
        .iter()
        .filter(|d| d.disarm && d.raw.kind != AlarmKind::Nospace);
    for d in dangerous {
        output::prompt::typed_consent(
            typed,
            &d.member,
            format!(
                "Clearing {} on {} hides possible data damage; etcd will accept writes again.",
                d.alarm, d.member
            ),
            format!(
                "not clearing {} on {}: it needs a typed confirmation (on a terminal, or --confirm-corrupt {})",
                d.alarm, d.member, d.member
            ),
        )
        .await?;
    }
    Ok(())
}

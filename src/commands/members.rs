//! `members`: the member list as the cluster reports it.

use crate::cli::{GlobalArgs, MembersArgs, OutputFormat};
use crate::error::{ExitStatus, Result};
use crate::output;
use crate::report::MembersReport;
use crate::snapshot;

pub async fn run(global: &GlobalArgs, args: &MembersArgs) -> Result<ExitStatus> {
    let session = crate::reach::session::open(global, args.cluster.cluster.as_deref()).await?;
    let (_, list) = snapshot::member_list(&session.clients, &session.target).await?;
    let report = MembersReport::build(session.target.cluster.clone(), &list);
    let text = match global.output {
        OutputFormat::Table | OutputFormat::Wide => output::table::members(&report),
        format => output::render_data(&report, format)?,
    };
    output::emit(&text)?;
    Ok(ExitStatus::Success)
}

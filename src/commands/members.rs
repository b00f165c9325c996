//! `members`: the member list as the cluster reports it.

use crate::cli::{GlobalArgs, OutputFormat};
use crate::error::{ExitStatus, Result};
use crate::output;
use crate::report::MembersReport;
use crate::snapshot;

pub async fn run(global: &GlobalArgs) -> Result<ExitStatus> {
    let (target, clients) = super::connect(global)?;
    let (_, list) = snapshot::member_list(&clients, &target).await?;
    let report = MembersReport::build(None, &list);
    let text = match global.output {
        OutputFormat::Table | OutputFormat::Wide => output::table::members(&report),
        format => output::render_data(&report, format)?,
    };
    output::emit(&text)?;
    Ok(ExitStatus::Success)
}

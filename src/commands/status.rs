//! `status`: snapshot → gate → report → render. With `--check` the gate's
//! verdict decides the exit code (1 when it would refuse).

use crate::cli::{GateArgs, GlobalArgs, OutputFormat, StatusArgs};
use crate::error::{ExitStatus, Result};
use crate::output;
use crate::plan::gate::{self, GateOptions};
use crate::report::StatusReport;
use crate::snapshot;

impl From<&GateArgs> for GateOptions {
    fn from(args: &GateArgs) -> Self {
        GateOptions {
            allow_quorum_loss: args.allow_quorum_loss,
            max_raft_lag: args.max_raft_lag,
        }
    }
}

pub async fn run(global: &GlobalArgs, args: &StatusArgs) -> Result<ExitStatus> {
    let (target, clients) = super::connect(global)?;
    let snapshot = snapshot::take(&clients, &target).await?;
    let verdict = gate::evaluate(&snapshot, &GateOptions::from(&args.gate));
    let report = StatusReport::build(None, &snapshot, &verdict);
    let text = match global.output {
        OutputFormat::Table => output::table::status(&report, false),
        OutputFormat::Wide => output::table::status(&report, true),
        format => output::render_data(&report, format)?,
    };
    output::emit(&text)?;
    if args.check && !verdict.passed() {
        let reasons: Vec<String> = verdict.reasons.iter().map(|r| r.to_string()).collect();
        crate::logging::message(&format!(
            "health gate refused ({} reason{}): {}",
            reasons.len(),
            if reasons.len() == 1 { "" } else { "s" },
            reasons.join("; ")
        ));
        return Ok(ExitStatus::Failed);
    }
    Ok(ExitStatus::Success)
}

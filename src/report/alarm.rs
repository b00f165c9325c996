//! `alarm list` and `alarm disarm`: the raised alarms, and what was done
//! about each (the rows themselves are shared with `status` and `defrag`).

use serde::Serialize;

use super::{AlarmAction, AlarmRow, ClusterRef};

/// `alarm list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AlarmListReport {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<ClusterRef>,
    pub alarms: Vec<AlarmRow>,
}

/// `alarm disarm`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AlarmDisarmReport {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<ClusterRef>,
    pub dry_run: bool,
    pub alarms: Vec<AlarmAction>,
}

//! kubectl-etcd: health-gated, follower-first etcd maintenance, as a kubectl
//! plugin and a standalone CLI.
//!
//! A run follows the module order:
//! `cli` (flags) → `target` (where the members are, TLS, auth, quota) →
//! `snapshot` (Status/MemberList/AlarmList through `etcd::EtcdOps`) →
//! `plan` (pure decisions: the health gate, the EtcdDefrag rule, the sweep
//! plan and leader handling, alarm disarm) → `exec` (the sweep, one member at
//! a time, re-gated before every step) → `report` (one serialisable result) →
//! `output` (table, JSON, YAML on stdout; progress and prompts on stderr).
//! `commands` wires these stages per command; `error` decides the exit code.

pub mod cli;
pub mod commands;
pub mod complete;
pub mod contract;
pub mod controller;
pub mod error;
pub mod etcd;
pub mod exec;
pub mod failure;
pub mod k8s;
pub mod logging;
pub mod output;
pub mod plan;
pub mod quantity;
pub mod reach;
pub mod report;
pub mod secret;
pub mod session;
pub mod settings;
pub mod snapshot;

pub use error::{Error, ExitStatus, Result};

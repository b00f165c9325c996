//! kubectl-etcd: health-gated, follower-first etcd maintenance, as a kubectl
//! plugin and a standalone CLI.
//!
//! A run passes through the modules in this order (which module may
//! import which is `docs/house.md`'s layer table, checked by
//! `scripts/house.py`):
//! `cli` (clap's definitions only) → `settings` (every command settled
//! once) → `commands` (one file per command, dispatched once in
//! `commands/mod.rs`; commands never import each other) → `session` (opens
//! a cluster: `reach` says where the members are, TLS, auth, quota; `k8s`
//! reads the EtcdCluster; `etcd` makes the per-member channels) →
//! `etcd::take` (Status/MemberList/AlarmList through `etcd::EtcdOps`) →
//! `look` (what that returned, as plain data) → `plan` (pure decisions:
//! the health gate, the EtcdDefrag rule, the sweep plan and leader
//! handling, alarm disarm) → `exec` (the sweep, one member at a time,
//! re-gated before every step) → `report` (one serialisable result per
//! command) → `output` (table, JSON, YAML on stdout; progress and prompts
//! on stderr). `controller` is `--watch` over the same engine; `error`
//! decides the exit code, from `failure`'s plain errors among others;
//! `contract` holds the operator's literals, `defects` etcd's known defects
//! by release, `kubelet` a member Pod's probes and when the kubelet restarts
//! a container whose probe keeps failing.

pub mod agent;
pub mod cli;
pub mod commands;
pub mod complete;
pub mod contract;
pub mod controller;
pub mod defects;
pub mod error;
pub mod etcd;
pub mod exec;
pub mod exposition;
pub mod failure;
pub mod k8s;
pub mod keyprint;
pub mod kubelet;
pub mod logging;
pub mod look;
pub mod output;
pub mod plan;
pub mod quantity;
pub mod reach;
pub mod report;
pub mod secret;
pub mod session;
pub mod settings;
pub mod source;

pub use error::{Error, ExitStatus, Result};

//! Pure decisions over a `ClusterLook`: the health gate now; the defrag
//! rule and the sweep plan build on it. Nothing here performs I/O, so every
//! decision is table-tested without a cluster.

pub mod alarm;
pub mod backup;
pub mod compact;
pub mod defrag;
pub mod doctor;
pub mod gate;
pub mod membership;
pub mod moment;
pub mod notes;
pub mod operator;
pub mod probes;
pub mod room;
pub mod rule;
pub mod schedule;
pub mod traffic;
pub mod usage;

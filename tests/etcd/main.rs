//! The tool against real etcd clusters of the test bed (3.4 to 3.7):
//! standalone mode, and plugin mode where a module needs an EtcdCluster (on
//! the binary's one API server, started on first use). One test binary for
//! all of them (issue 38): `tests/support` is compiled once here, not once
//! per module.
//!
//!     cargo test --test etcd                  # all of them
//!     cargo test --test etcd -- defrag::      # one module
//!
//! Tests run two at a time in one process: what they share is the port set
//! and loopback addresses handed out by `testbed/src/ports.rs` (never the
//! same twice in a process), the API server of `support::k8s` (each module
//! in namespaces of its own), and nothing else: no test sets an environment
//! variable of this process or changes its directory.

#[path = "../support/mod.rs"]
mod support;

mod auth;
mod compact;
mod defrag;
mod doctor;
mod engine;
mod errors;
mod exit_codes;
mod hazards;
mod member_add;
mod members;
mod nospace;
mod rough_edges;
mod round_trips;
mod serve;
mod signals;
mod snapshot;
mod soak;
mod status;
mod usage;

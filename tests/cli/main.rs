//! The command line without any server: clap's definition, help and usage
//! errors, the rendered tables (insta snapshots in `snapshots/`), and the
//! krew manifest and archive. One test binary for all of them (issue 38):
//! each module was a binary of its own, and each linked the whole tool.
//!
//!     cargo test --test cli                 # all of them
//!     cargo test --test cli -- render::     # one module
//!
//! `krew` needs the test bed's kubectl and krew (`testbed/build.sh`) and
//! builds the static musl archive with `scripts/release.sh`.

mod cli;
mod cli_errors;
mod krew;
mod monitoring;
mod render;

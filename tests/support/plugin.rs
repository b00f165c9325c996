//! kubectl with the plugin on its PATH, as users run `kubectl etcd …`.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use super::Run;

/// A PATH holding only kubectl and the plugin (so no other plugin on the
/// machine can make `kubectl plugin list` warn), with the completion
/// executable installed as `Completer` says. The folder goes on drop.
pub struct PluginPath {
    pub dir: PathBuf,
    pub path: String,
}

impl Drop for PluginPath {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// How `kubectl_complete-etcd` is installed.
#[derive(Clone, Copy)]
pub enum Completer {
    /// The script shipped in `completions/`.
    Script,
    /// A symlink to the binary itself.
    Symlink,
}

pub fn plugin_path(tag: &str, completer: Completer) -> PluginPath {
    let dir =
        std::env::temp_dir().join(format!("kubectl-etcd-plugin-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let binary = Path::new(env!("CARGO_BIN_EXE_kubectl-etcd"));
    std::os::unix::fs::symlink(binary, dir.join("kubectl-etcd")).unwrap();
    let completer_path = dir.join("kubectl_complete-etcd");
    match completer {
        Completer::Script => {
            let script =
                Path::new(env!("CARGO_MANIFEST_DIR")).join("completions/kubectl_complete-etcd");
            std::os::unix::fs::symlink(script, &completer_path).unwrap();
        }
        Completer::Symlink => std::os::unix::fs::symlink(binary, &completer_path).unwrap(),
    }
    let kubectl_dir = kubectl_bin().parent().unwrap().to_path_buf();
    let path = format!("{}:{}", dir.display(), kubectl_dir.display());
    PluginPath { dir, path }
}

pub fn kubectl_bin() -> PathBuf {
    kubectl_etcd_testbed::bins::kubectl().unwrap_or_else(|e| panic!("{e}"))
}

/// Runs the test bed's kubectl with `args` and only `env` (plus PATH).
pub async fn kubectl(path: &PluginPath, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut command = tokio::process::Command::new(kubectl_bin());
    command
        .env_clear()
        .env("PATH", &path.path)
        .env("HOME", std::env::temp_dir())
        .env("NO_COLOR", "1")
        .envs(env.iter().copied())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let child = command.spawn().expect("spawn kubectl");
    let output = tokio::time::timeout(Duration::from_secs(60), child.wait_with_output())
        .await
        .unwrap_or_else(|_| panic!("kubectl {args:?} did not finish within 60s"))
        .expect("wait for kubectl");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

//! krew: `krew-manifest.yaml` passes krew's own validator (built from
//! sigs.k8s.io/krew by the test bed), and the plugin installs from the
//! manifest and an archive made by `scripts/release.sh` — a static musl
//! binary — into a scratch KREW_ROOT through `kubectl krew install
//! --manifest --archive`, then runs as `kubectl etcd`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const TARGET: &str = "x86_64-unknown-linux-musl";

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn krew_bin(name: &str) -> PathBuf {
    kubectl_etcd_testbed::bins::krew(name).unwrap_or_else(|e| panic!("{e}"))
}

fn kubectl_dir() -> PathBuf {
    kubectl_etcd_testbed::bins::kubectl()
        .unwrap_or_else(|e| panic!("{e}"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn text(out: &Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A scratch folder under the target dir, emptied first.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs krew's validator on `manifest` (copied as `etcd.yaml`, the name
/// it requires, into the scratch folder `scratch_name`), without its install step (which would download every
/// platform's archive from its uri).
fn validate(manifest: &Path, scratch_name: &str) -> Output {
    let dir = scratch(scratch_name);
    let copy = dir.join("etcd.yaml");
    std::fs::copy(manifest, &copy).unwrap();
    Command::new(krew_bin("validate-krew-manifest"))
        .args(["-manifest", copy.to_str().unwrap(), "-skip-install"])
        .output()
        .unwrap()
}

#[test]
fn the_committed_manifest_passes_krews_validator() {
    let out = validate(
        &repo().join("krew-manifest.yaml"),
        "krew-validate-committed",
    );
    assert!(out.status.success(), "{}", text(&out));

    // The validator is not a rubber stamp: a manifest that breaks krew's
    // rules (here, an uppercase sha256) is refused.
    let bad = scratch("krew-bad").join("manifest.yaml");
    let manifest = std::fs::read_to_string(repo().join("krew-manifest.yaml")).unwrap();
    let at = manifest.find("sha256: \"").unwrap() + "sha256: \"".len();
    let upper = format!(
        "{}{}{}",
        &manifest[..at],
        manifest[at..at + 64].to_uppercase(),
        &manifest[at + 64..]
    );
    assert_ne!(upper, manifest, "the sha256 has hex letters to uppercase");
    std::fs::write(&bad, upper).unwrap();
    let out = validate(&bad, "krew-validate-bad");
    assert!(!out.status.success(), "{}", text(&out));
}

/// The manifest names linux and darwin on amd64 and arm64, each archive
/// named for its platform, with the binary and its LICENSE.
#[test]
fn the_manifest_covers_the_platforms_krew_users_have() {
    let manifest: serde_json::Value =
        serde_yaml::from_str(&std::fs::read_to_string(repo().join("krew-manifest.yaml")).unwrap())
            .unwrap();
    let version = manifest["spec"]["version"].as_str().unwrap();
    assert_eq!(version, format!("v{}", env!("CARGO_PKG_VERSION")));
    let mut seen = Vec::new();
    for p in manifest["spec"]["platforms"].as_array().unwrap() {
        let labels = &p["selector"]["matchLabels"];
        let (os, arch) = (
            labels["os"].as_str().unwrap(),
            labels["arch"].as_str().unwrap(),
        );
        let uri = p["uri"].as_str().unwrap();
        assert!(
            uri.ends_with(&format!(
                "/{version}/kubectl-etcd_{version}_{os}_{arch}.tar.gz"
            )),
            "{uri}"
        );
        assert_eq!(p["bin"], "kubectl-etcd");
        let files: Vec<&str> = p["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["from"].as_str().unwrap())
            .collect();
        assert_eq!(files, ["kubectl-etcd", "LICENSE"]);
        seen.push(format!("{os}/{arch}"));
    }
    seen.sort();
    assert_eq!(
        seen,
        ["darwin/amd64", "darwin/arm64", "linux/amd64", "linux/arm64"]
    );
}

/// scripts/release.sh (unoptimised profile, to keep the test short) makes
/// a static archive and a manifest with its sha256; krew validates that
/// manifest, installs from it and the archive without any network, and
/// `kubectl etcd version` runs the installed binary.
#[test]
fn a_release_archive_installs_with_krew_and_runs_through_kubectl() {
    let out_dir = scratch("release");
    let release = Command::new(repo().join("scripts/release.sh"))
        .args([
            "--profile",
            "quick",
            "--targets",
            TARGET,
            "--no-write-manifest",
            "--out",
            out_dir.to_str().unwrap(),
        ])
        // A target dir of its own: the outer `cargo test` holds the lock
        // of the one it builds in.
        .env(
            "CARGO_TARGET_DIR",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("release-target"),
        )
        .output()
        .unwrap();
    assert!(release.status.success(), "{}", text(&release));
    let version = format!("v{}", env!("CARGO_PKG_VERSION"));
    let archive = out_dir.join(format!("kubectl-etcd_{version}_linux_amd64.tar.gz"));
    let manifest = out_dir.join("etcd.yaml");
    assert!(archive.is_file() && manifest.is_file());

    // The sha256 written for the archive is the archive's.
    let sums = std::fs::read_to_string(out_dir.join("SHA256SUMS")).unwrap();
    let sum = sums.split_whitespace().next().unwrap().to_string();
    let actual = Command::new("sha256sum").arg(&archive).output().unwrap();
    assert!(String::from_utf8_lossy(&actual.stdout).starts_with(&sum));
    assert!(
        std::fs::read_to_string(&manifest)
            .unwrap()
            .contains(&format!("sha256: \"{sum}\"")),
        "the manifest carries the archive's sha256"
    );
    let out = validate(&manifest, "krew-validate-release");
    assert!(out.status.success(), "{}", text(&out));

    // The archive holds exactly the binary and the LICENSE.
    let listing = Command::new("tar")
        .arg("-tzf")
        .arg(&archive)
        .output()
        .unwrap();
    let mut entries: Vec<String> = String::from_utf8_lossy(&listing.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    entries.sort();
    assert_eq!(entries, ["LICENSE", "kubectl-etcd"]);

    // Install through kubectl's plugin mechanism: `kubectl krew` is
    // kubectl-krew on PATH.
    let root = scratch("krew-root");
    let path = format!(
        "{}:{}:{}",
        root.join("bin").display(),
        krew_bin("kubectl-krew").parent().unwrap().display(),
        kubectl_dir().display()
    );
    let kubectl = |args: &[&str]| {
        Command::new(kubectl_dir().join("kubectl"))
            .args(args)
            .env_clear()
            .env("PATH", &path)
            .env("HOME", &root)
            .env("KREW_ROOT", &root)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    };
    let install = kubectl(&[
        "krew",
        "install",
        &format!("--manifest={}", manifest.display()),
        &format!("--archive={}", archive.display()),
    ]);
    assert!(install.status.success(), "{}", text(&install));
    assert!(root.join("bin/kubectl-etcd").exists());

    let run = kubectl(&["etcd", "version"]);
    assert!(run.status.success(), "{}", text(&run));
    assert_eq!(
        String::from_utf8_lossy(&run.stdout).trim(),
        format!("kubectl-etcd {}", env!("CARGO_PKG_VERSION"))
    );
    // krew's receipt of the install (`krew list` would want the index,
    // which needs the network).
    let receipt = std::fs::read_to_string(root.join("receipts/etcd.yaml")).unwrap();
    assert!(receipt.contains("name: etcd"), "{receipt}");

    // krew refuses an archive whose sha256 is not the manifest's.
    let root2 = scratch("krew-root-tampered");
    let tampered = out_dir.join("tampered.tar.gz");
    let mut bytes = std::fs::read(&archive).unwrap();
    bytes.extend_from_slice(b"\0");
    std::fs::write(&tampered, bytes).unwrap();
    let refused = Command::new(krew_bin("kubectl-krew"))
        .args([
            "install",
            &format!("--manifest={}", manifest.display()),
            &format!("--archive={}", tampered.display()),
        ])
        .env("KREW_ROOT", &root2)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(!refused.status.success(), "{}", text(&refused));
    assert!(!root2.join("bin/kubectl-etcd").exists());
}

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

/// The platforms of a manifest (`os/arch`), each checked: its archive
/// named for it and this version, the binary and its LICENSE, and a real
/// sha256 (64 lowercase hex digits, not a placeholder of zeros).
fn platforms(manifest: &Path) -> Vec<(String, String)> {
    let manifest: serde_json::Value =
        serde_yaml::from_str(&std::fs::read_to_string(manifest).unwrap()).unwrap();
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
        let sha = p["sha256"].as_str().unwrap();
        assert!(
            sha.len() == 64
                && sha
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
                && sha.bytes().any(|b| b != b'0'),
            "{os}/{arch}: sha256 {sha:?}"
        );
        seen.push((format!("{os}/{arch}"), sha.to_string()));
    }
    seen
}

/// The committed manifest lists the Linux archives release.sh builds here,
/// each once with its hash, and nothing it did not build (no darwin entry
/// with a placeholder hash: those are added by the script on macOS).
#[test]
fn the_manifest_lists_only_platforms_built_and_hashed() {
    let mut seen: Vec<String> = platforms(&repo().join("krew-manifest.yaml"))
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    seen.sort();
    assert_eq!(seen, ["linux/amd64", "linux/arm64"]);
}

/// scripts/release.sh for the x86_64 target, unoptimised, into `out`,
/// from `manifest` (the committed one when `None`), the repository's
/// manifest left alone.
fn release(out: &Path, manifest: Option<&Path>) -> Output {
    let mut command = Command::new(repo().join("scripts/release.sh"));
    command
        .args([
            "--profile",
            "quick",
            "--targets",
            TARGET,
            "--no-write-manifest",
        ])
        .arg("--out")
        .arg(out);
    if let Some(manifest) = manifest {
        command.arg("--manifest").arg(manifest);
    }
    // A target dir of its own: the outer `cargo test` holds the lock of
    // the one it builds in.
    command
        .env(
            "CARGO_TARGET_DIR",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("release-target"),
        )
        .output()
        .unwrap()
}

/// scripts/release.sh (unoptimised profile, to keep the test short) makes
/// a static archive and a manifest with its sha256; krew validates that
/// manifest, installs from it and the archive without any network, and
/// `kubectl etcd version` runs the installed binary.
#[test]
fn a_release_archive_installs_with_krew_and_runs_through_kubectl() {
    let out_dir = scratch("release");
    let built = release(&out_dir, None);
    assert!(built.status.success(), "{}", text(&built));
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
    // The same version: the platform built replaced, the others kept.
    let committed = platforms(&repo().join("krew-manifest.yaml"));
    let mut want: Vec<(String, String)> = committed
        .iter()
        .map(|(p, s)| match p.as_str() {
            "linux/amd64" => (p.clone(), sum.clone()),
            _ => (p.clone(), s.clone()),
        })
        .collect();
    assert_eq!(platforms(&manifest), want);
    // A manifest without the platform built gets it added, with its hash.
    let text_of = std::fs::read_to_string(repo().join("krew-manifest.yaml")).unwrap();
    let start = text_of.find("  - selector:").unwrap();
    let end = start + 1 + text_of[start + 1..].find("  - selector:").unwrap();
    assert!(text_of[start..end].contains("arch: amd64"));
    let without = scratch("krew-without-amd64").join("manifest.yaml");
    std::fs::write(
        &without,
        format!("{}{}", &text_of[..start], &text_of[end..]),
    )
    .unwrap();
    let from = |source: &Path, name: &str| {
        let dir = scratch(name);
        let run = release(&dir, Some(source));
        assert!(run.status.success(), "{}", text(&run));
        dir.join("etcd.yaml")
    };
    let added = from(&without, "release-added");
    want.rotate_left(1);
    assert_eq!(platforms(&added), want, "appended after the others");
    let out = validate(&added, "krew-validate-added");
    assert!(out.status.success(), "{}", text(&out));
    // Another version's manifest keeps none of its platforms: only the
    // archive built now is listed.
    let older = scratch("krew-older").join("manifest.yaml");
    let version_line = format!("  version: v{}\n", env!("CARGO_PKG_VERSION"));
    assert!(text_of.contains(&version_line));
    std::fs::write(
        &older,
        text_of
            .replace(&version_line, "  version: v0.0.1\n")
            .replace(&format!("v{}", env!("CARGO_PKG_VERSION")), "v0.0.1"),
    )
    .unwrap();
    let fresh = from(&older, "release-fresh");
    assert_eq!(
        platforms(&fresh),
        [("linux/amd64".to_string(), sum.clone())]
    );
    let out = validate(&fresh, "krew-validate-fresh");
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

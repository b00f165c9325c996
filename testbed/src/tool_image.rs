//! The tool's own image, made by the project's `Containerfile` as it
//! stands, with buildah, offline: the only change is its `BASE` build
//! argument, pointed at a local base with distroless static's layout (CA
//! roots, `/etc/passwd` and `/etc/group` naming 65532 `nonroot`, `/tmp`)
//! instead of the registry's. buildah keeps its storage in a folder of the
//! caller's (vfs: plain folders, no mounts), and the result leaves it as a
//! `docker-archive` the node imports.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::image::{write_archive, ImageFile, ImageSpec};
use crate::Result;

/// The offline stand-in for `gcr.io/distroless/static-debian12:nonroot`.
pub fn base() -> Result<ImageSpec> {
    let roots = Path::new("/etc/ssl/certs/ca-certificates.crt");
    let mut files = vec![
        ImageFile::text(
            "etc/passwd",
            "root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n",
        ),
        ImageFile::text("etc/group", "root:x:0:\nnonroot:x:65532:\n"),
    ];
    if roots.is_file() {
        let mut file = ImageFile::executable("etc/ssl/certs/ca-certificates.crt", roots);
        file.mode = 0o644;
        files.push(file);
    }
    Ok(ImageSpec {
        name: "localhost/static-base:testbed".into(),
        files,
        dirs: vec![("tmp".into(), 0o1777), ("home/nonroot".into(), 0o700)],
        user: "65532:65532".into(),
        ..ImageSpec::default()
    })
}

fn buildah(work: &Path, args: &[&str]) -> Result<()> {
    let root = work.join("storage");
    let runroot = work.join("run");
    let out = Command::new("buildah")
        .arg(format!("--root={}", root.display()))
        .arg(format!("--runroot={}", runroot.display()))
        .arg("--storage-driver=vfs")
        .args(args)
        .output()
        .map_err(|e| format!("buildah: {e} (install it: apt-get install buildah)"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "buildah {}: {}\n{}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// Builds `containerfile` with `archive` (a release archive of
/// `scripts/release.sh`: the static binary and its LICENSE) in `work`, and
/// returns the `docker-archive` of the image, named `name` (e.g.
/// `docker.io/library/kubectl-etcd:v0.1.0`, what the manifests' short
/// `kubectl-etcd:v0.1.0` means to the kubelet).
pub fn build(containerfile: &Path, archive: &Path, work: &Path, name: &str) -> Result<PathBuf> {
    let context = work.join("context");
    let dist = context.join("dist");
    std::fs::create_dir_all(&dist).map_err(|e| format!("{}: {e}", dist.display()))?;
    let file = archive
        .file_name()
        .ok_or_else(|| format!("{} is not a file", archive.display()))?;
    std::fs::copy(archive, dist.join(file)).map_err(|e| format!("{}: {e}", archive.display()))?;
    let base_tar = work.join("base.tar");
    write_archive(&base()?, &base_tar)?;
    let out = work.join("kubectl-etcd-image.tar");
    let _ = std::fs::remove_file(&out);
    buildah(
        work,
        &[
            "bud",
            "--isolation=chroot",
            "--pull-never",
            &format!("--build-arg=BASE=oci-archive:{}", base_tar.display()),
            &format!("--build-arg=ARCHIVE=dist/{}", file.to_string_lossy()),
            &format!("--file={}", containerfile.display()),
            &format!("--tag={name}"),
            &context.display().to_string(),
        ],
    )?;
    buildah(
        work,
        &[
            "push",
            name,
            &format!("docker-archive:{}:{name}", out.display()),
        ],
    )?;
    Ok(out)
}

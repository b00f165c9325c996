//! Container images without a registry: an OCI image archive (the layout
//! `ctr images import` takes) written from files on this machine, such as
//! the test bed's static etcd binaries and the tool's own static binary.
//!
//! One uncompressed layer, one platform (linux/amd64), an index whose
//! entry carries the image's name (`io.containerd.image.name`), so an
//! import names it and a Pod's `image:` finds it without a pull.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::json;
use sha2::{Digest, Sha256};

use crate::Result;

/// Where a file of the image comes from.
#[derive(Debug, Clone)]
pub enum Source {
    /// A file on this machine, copied as it is.
    File(PathBuf),
    /// Bytes written here.
    Bytes(Vec<u8>),
}

/// One file of the image's single layer.
#[derive(Debug, Clone)]
pub struct ImageFile {
    /// The path inside the image, without the leading `/`.
    pub path: String,
    pub source: Source,
    pub mode: u32,
}

/// What an image is made of and how it starts.
#[derive(Debug, Clone, Default)]
pub struct ImageSpec {
    /// The full name, e.g. `localhost/etcd:v3.6.16`.
    pub name: String,
    pub files: Vec<ImageFile>,
    /// Directories to create empty (with their mode), e.g. `tmp` at 0o1777.
    pub dirs: Vec<(String, u32)>,
    pub entrypoint: Vec<String>,
    pub cmd: Vec<String>,
    pub env: Vec<String>,
    /// `uid:gid`, or empty for root.
    pub user: String,
}

impl ImageFile {
    /// An executable copied from `source` to `path`.
    pub fn executable(path: &str, source: &Path) -> ImageFile {
        ImageFile {
            path: path.trim_start_matches('/').to_string(),
            source: Source::File(source.to_path_buf()),
            mode: 0o755,
        }
    }

    /// A file with `text` as its content.
    pub fn text(path: &str, text: &str) -> ImageFile {
        ImageFile {
            path: path.trim_start_matches('/').to_string(),
            source: Source::Bytes(text.as_bytes().to_vec()),
            mode: 0o644,
        }
    }
}

/// The sha256 digest of `bytes` as OCI writes it (`sha256:<hex>`).
fn digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// The image's single layer: every parent directory, then the files, in
/// path order, owned by root, with a fixed time (so the same inputs give
/// the same digest).
fn layer(spec: &ImageSpec) -> Result<Vec<u8>> {
    let mut builder = tar::Builder::new(Vec::new());
    let mut dirs: std::collections::BTreeMap<String, u32> = std::collections::BTreeMap::new();
    for f in &spec.files {
        let mut parent = Path::new(&f.path).parent();
        while let Some(p) = parent.filter(|p| !p.as_os_str().is_empty()) {
            dirs.entry(p.display().to_string()).or_insert(0o755);
            parent = p.parent();
        }
    }
    for (d, mode) in &spec.dirs {
        dirs.insert(d.trim_start_matches('/').to_string(), *mode);
    }
    let header = |size: u64, mode: u32, kind: tar::EntryType| {
        let mut h = tar::Header::new_gnu();
        h.set_size(size);
        h.set_mode(mode);
        h.set_uid(0);
        h.set_gid(0);
        h.set_mtime(0);
        h.set_entry_type(kind);
        h
    };
    for (d, mode) in &dirs {
        let mut h = header(0, *mode, tar::EntryType::Directory);
        builder
            .append_data(&mut h, format!("{d}/"), std::io::empty())
            .map_err(|e| format!("image {}: directory {d}: {e}", spec.name))?;
    }
    let mut files: Vec<&ImageFile> = spec.files.iter().collect();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    for f in files {
        let bytes = match &f.source {
            Source::File(p) => std::fs::read(p)
                .map_err(|e| format!("image {}: read {}: {e}", spec.name, p.display()))?,
            Source::Bytes(b) => b.clone(),
        };
        let mut h = header(bytes.len() as u64, f.mode, tar::EntryType::Regular);
        builder
            .append_data(&mut h, &f.path, bytes.as_slice())
            .map_err(|e| format!("image {}: {}: {e}", spec.name, f.path))?;
    }
    builder
        .into_inner()
        .map_err(|e| format!("image {}: {e}", spec.name))
}

/// Writes `spec` as an OCI image archive (a tar of an OCI image layout) to
/// `out`, and returns the manifest's digest.
pub fn write_archive(spec: &ImageSpec, out: &Path) -> Result<String> {
    let layer = layer(spec)?;
    let layer_digest = digest(&layer);
    let mut config = json!({
        "architecture": "amd64",
        "os": "linux",
        "config": {
            "Entrypoint": spec.entrypoint,
            "Env": spec.env,
        },
        "rootfs": {"type": "layers", "diff_ids": [layer_digest]},
    });
    if !spec.cmd.is_empty() {
        config["config"]["Cmd"] = json!(spec.cmd);
    }
    if !spec.user.is_empty() {
        config["config"]["User"] = json!(spec.user);
    }
    let config = serde_json::to_vec(&config).map_err(|e| e.to_string())?;
    let config_digest = digest(&config);
    let manifest = serde_json::to_vec(&json!({
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {
            "mediaType": "application/vnd.oci.image.config.v1+json",
            "digest": config_digest,
            "size": config.len(),
        },
        "layers": [{
            "mediaType": "application/vnd.oci.image.layer.v1.tar",
            "digest": layer_digest,
            "size": layer.len(),
        }],
    }))
    .map_err(|e| e.to_string())?;
    let manifest_digest = digest(&manifest);
    let tag = spec.name.rsplit_once(':').map_or("latest", |(_, t)| t);
    let index = serde_json::to_vec(&json!({
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.index.v1+json",
        "manifests": [{
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "digest": manifest_digest,
            "size": manifest.len(),
            "platform": {"architecture": "amd64", "os": "linux"},
            "annotations": {
                "io.containerd.image.name": spec.name,
                "org.opencontainers.image.ref.name": tag,
            },
        }],
    }))
    .map_err(|e| e.to_string())?;

    let file = std::fs::File::create(out).map_err(|e| format!("create {}: {e}", out.display()))?;
    let mut archive = tar::Builder::new(std::io::BufWriter::new(file));
    let mut put = |name: &str, bytes: &[u8]| -> Result<()> {
        let mut h = tar::Header::new_gnu();
        h.set_size(bytes.len() as u64);
        h.set_mode(0o644);
        h.set_mtime(0);
        h.set_entry_type(tar::EntryType::Regular);
        archive
            .append_data(&mut h, name, bytes)
            .map_err(|e| format!("write {}: {name}: {e}", out.display()))
    };
    put("oci-layout", br#"{"imageLayoutVersion":"1.0.0"}"#)?;
    put("index.json", &index)?;
    for (d, bytes) in [
        (&layer_digest, &layer),
        (&config_digest, &config),
        (&manifest_digest, &manifest),
    ] {
        put(&format!("blobs/sha256/{}", &d["sha256:".len()..]), bytes)?;
    }
    let mut writer = archive
        .into_inner()
        .map_err(|e| format!("write {}: {e}", out.display()))?;
    writer
        .flush()
        .map_err(|e| format!("write {}: {e}", out.display()))?;
    Ok(manifest_digest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_inputs_give_the_same_digest() {
        let spec = ImageSpec {
            name: "localhost/hello:v1".into(),
            files: vec![ImageFile::text("etc/hello", "hi\n")],
            dirs: vec![("tmp".into(), 0o1777)],
            entrypoint: vec!["/bin/true".into()],
            ..ImageSpec::default()
        };
        let dir = tempfile::tempdir().unwrap();
        let a = write_archive(&spec, &dir.path().join("a.tar")).unwrap();
        let b = write_archive(&spec, &dir.path().join("b.tar")).unwrap();
        assert_eq!(a, b);
        assert!(a.starts_with("sha256:") && a.len() == 71, "{a}");
    }
}

//! Dating revisions, for `compact --keep-duration`.
//!
//! etcd records no time per revision: Status, Range and Watch headers carry
//! the revision and the raft term, nothing else. An etcd behind Kubernetes
//! does hold a clock, though: the Lease objects (`/registry/leases/…`) that
//! kubelets, controllers and API servers renew every few seconds, each with
//! its `spec.renewTime`. Read as of revision `r`, the latest renewTime among
//! them says when `r` was written, to within a renewal interval. That time
//! only grows with `r`, so the revision at a given age is found by binary
//! search: about 20 reads for a million revisions.

use crate::etcd::{EtcdOps, RpcError};
use crate::reach::Dial;

/// Where kube-apiserver keeps Leases with its default `--etcd-prefix`.
pub const LEASES_PREFIX: &str = "/registry/leases/";

/// The most Leases read per probe.
const LIMIT: i64 = 10_000;

/// `spec.renewTime` of a stored Lease, in Unix seconds: Kubernetes'
/// protobuf storage (`k8s\0` + runtime.Unknown) or JSON.
pub fn renew_time(value: &[u8]) -> Option<i64> {
    if let Some(envelope) = value.strip_prefix(b"k8s\x00") {
        // runtime.Unknown: raw (2) is the Lease; Lease: spec (2);
        // LeaseSpec: renewTime (4); MicroTime: seconds (1).
        let lease = field(envelope, 2)?;
        let spec = field(lease, 2)?;
        let renew = field(spec, 4)?;
        return varint_field(renew, 1).map(|s| s as i64);
    }
    let doc: serde_json::Value = serde_json::from_slice(value).ok()?;
    let text = doc.get("spec")?.get("renewTime")?.as_str()?;
    text.parse::<jiff::Timestamp>().ok().map(|t| t.as_second())
}

/// The latest renewTime among the Leases under `prefix` as of `revision`;
/// `None` when there is none (before the first Lease was written).
pub async fn time_at<O: EtcdOps>(
    ops: &O,
    dial: &Dial,
    prefix: &str,
    revision: i64,
) -> Result<Option<i64>, RpcError> {
    let keys = ops.range_prefix(dial, prefix, revision, LIMIT).await?;
    Ok(keys.iter().filter_map(|k| renew_time(&k.value)).max())
}

/// The newest revision in `low..=high` written no later than `before`
/// (Unix seconds), with its time; `None` when even `low` is newer.
/// Revisions with no Lease yet count as older than any time.
pub async fn revision_before<O: EtcdOps>(
    ops: &O,
    dial: &Dial,
    prefix: &str,
    (low, high): (i64, i64),
    before: i64,
) -> Result<Option<(i64, Option<i64>)>, RpcError> {
    let old_enough = |t: Option<i64>| t.is_none_or(|t| t <= before);
    let at_low = time_at(ops, dial, prefix, low).await?;
    if !old_enough(at_low) {
        return Ok(None);
    }
    let (mut good, mut good_time, mut bad) = (low, at_low, high + 1);
    while bad - good > 1 {
        let mid = good + (bad - good) / 2;
        let t = time_at(ops, dial, prefix, mid).await?;
        if old_enough(t) {
            (good, good_time) = (mid, t);
        } else {
            bad = mid;
        }
    }
    Ok(Some((good, good_time)))
}

/// The first field `number` of a protobuf message that is length-delimited.
fn field(message: &[u8], number: u64) -> Option<&[u8]> {
    fields(message).find_map(|(n, v)| match v {
        Value::Bytes(b) if n == number => Some(b),
        _ => None,
    })
}

/// The first field `number` that is a varint.
fn varint_field(message: &[u8], number: u64) -> Option<u64> {
    fields(message).find_map(|(n, v)| match v {
        Value::Varint(x) if n == number => Some(x),
        _ => None,
    })
}

enum Value<'a> {
    Varint(u64),
    Bytes(&'a [u8]),
    Fixed,
}

/// The (number, value) pairs of a protobuf message; stops at anything
/// malformed.
fn fields(mut message: &[u8]) -> impl Iterator<Item = (u64, Value<'_>)> {
    std::iter::from_fn(move || {
        let (key, rest) = varint(message)?;
        let (number, wire) = (key >> 3, key & 7);
        let (value, rest) = match wire {
            0 => {
                let (v, rest) = varint(rest)?;
                (Value::Varint(v), rest)
            }
            1 => (Value::Fixed, rest.get(8..)?),
            2 => {
                let (len, rest) = varint(rest)?;
                let len = usize::try_from(len).ok()?;
                (Value::Bytes(rest.get(..len)?), rest.get(len..)?)
            }
            5 => (Value::Fixed, rest.get(4..)?),
            _ => return None,
        };
        message = rest;
        Some((number, value))
    })
}

fn varint(input: &[u8]) -> Option<(u64, &[u8])> {
    let mut value = 0u64;
    for (i, byte) in input.iter().enumerate().take(10) {
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Some((value, input.get(i + 1..)?));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn varint_bytes(mut v: u64) -> Vec<u8> {
        let mut out = Vec::new();
        loop {
            let byte = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                out.push(byte);
                return out;
            }
            out.push(byte | 0x80);
        }
    }

    fn bytes_field(number: u64, body: &[u8]) -> Vec<u8> {
        let mut out = varint_bytes(number << 3 | 2);
        out.extend(varint_bytes(body.len() as u64));
        out.extend_from_slice(body);
        out
    }

    fn varint_field_bytes(number: u64, v: u64) -> Vec<u8> {
        let mut out = varint_bytes(number << 3);
        out.extend(varint_bytes(v));
        out
    }

    /// A Lease as kube-apiserver stores it in protobuf.
    fn stored_lease(renew_seconds: u64) -> Vec<u8> {
        let micro = [
            varint_field_bytes(1, renew_seconds),
            varint_field_bytes(2, 500),
        ]
        .concat();
        let spec = [
            bytes_field(1, b"node-1"),
            varint_field_bytes(2, 40),
            bytes_field(3, &varint_field_bytes(1, 1)),
            bytes_field(4, &micro),
        ]
        .concat();
        let lease = [
            bytes_field(1, &bytes_field(1, b"node-1")),
            bytes_field(2, &spec),
        ]
        .concat();
        let type_meta = [
            bytes_field(1, b"coordination.k8s.io/v1"),
            bytes_field(2, b"Lease"),
        ]
        .concat();
        let unknown = [bytes_field(1, &type_meta), bytes_field(2, &lease)].concat();
        [b"k8s\x00".as_slice(), &unknown].concat()
    }

    #[test]
    fn renew_time_from_protobuf_and_json() {
        assert_eq!(
            renew_time(&stored_lease(1_796_126_400)),
            Some(1_796_126_400)
        );
        let json = br#"{"kind":"Lease","spec":{"holderIdentity":"a","renewTime":"2026-12-01T12:00:00.123456Z"}}"#;
        assert_eq!(renew_time(json), Some(1_796_126_400));
    }

    #[test]
    fn anything_else_has_no_time() {
        assert_eq!(renew_time(b""), None);
        assert_eq!(renew_time(b"k8s\x00\xff\xff"), None);
        assert_eq!(renew_time(br#"{"spec":{}}"#), None);
        // A Lease never renewed.
        let spec = bytes_field(1, b"x");
        let lease = bytes_field(2, &spec);
        let unknown = bytes_field(2, &lease);
        assert_eq!(
            renew_time(&[b"k8s\x00".as_slice(), &unknown].concat()),
            None
        );
        // Truncated anywhere: never a panic.
        let whole = stored_lease(42);
        for cut in 0..whole.len() {
            let _ = renew_time(&whole[..cut]);
        }
    }
}

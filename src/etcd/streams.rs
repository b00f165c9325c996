//! What etcd's server streams become for `EtcdOps`: a Snapshot's chunks
//! and a Watch's batches of writes, each failure classified like any RPC's
//! (`failure::classify`), and a key's fields with its value reduced to a
//! length.

use std::time::Duration;

use super::{Change, ChangeStream, FailureCause, KeySize, RpcError, SnapshotChunk, SnapshotStream};
use crate::error::chain_text;
use crate::failure::{classify, AttemptContext};

/// The largest Range page or Watch batch accepted: a page is sized from
/// the bytes per key seen so far, but one key may hold up to etcd's request
/// limit (1.5 MiB by default, more when raised), and tonic's 4 MiB default
/// would refuse a page of a few such keys.
pub const PAGE_DECODE_LIMIT: usize = 256 << 20;

/// A key's fields without its value, whose length is kept (`with_value`).
pub fn key_size(kv: &etcd_client::KeyValue, with_value: bool) -> KeySize {
    KeySize {
        key: kv.key().to_vec(),
        value_len: with_value.then_some(kv.value().len() as u64),
        create_revision: kv.create_revision(),
        mod_revision: kv.mod_revision(),
        version: kv.version(),
        lease: kv.lease(),
    }
}

/// A Snapshot's chunks; failing when none arrives within `idle`.
pub fn snapshot_chunks(
    stream: etcd_client::SnapshotStreaming,
    endpoint: String,
    context: AttemptContext,
    idle: Duration,
) -> SnapshotStream {
    let chunks = futures::stream::try_unfold(stream, move |mut stream| {
        let (endpoint, context) = (endpoint.clone(), context.clone());
        async move {
            let failed = |cause| RpcError {
                endpoint,
                op: "Snapshot",
                cause,
            };
            match tokio::time::timeout(idle, stream.message()).await {
                Err(_) => Err(failed(FailureCause::Timeout { after: idle })),
                Ok(Err(e)) => Err(failed(classify(&chain_text(&e), &context))),
                Ok(Ok(None)) => Ok(None),
                Ok(Ok(Some(m))) => Ok(Some((
                    SnapshotChunk {
                        blob: m.blob().to_vec(),
                        remaining: m.remaining_bytes(),
                    },
                    stream,
                ))),
            }
        }
    });
    Box::pin(chunks)
}

/// A Watch's writes, a batch per answer that carries events; no time limit
/// (a quiet keyspace sends nothing: the caller bounds the wait).
pub fn watch_batches(
    stream: etcd_client::WatchStream,
    endpoint: String,
    context: AttemptContext,
) -> ChangeStream {
    let batches = futures::stream::try_unfold(stream, move |mut stream| {
        let (endpoint, context) = (endpoint.clone(), context.clone());
        async move {
            let failed = |cause| RpcError {
                endpoint,
                op: "Watch",
                cause,
            };
            loop {
                match stream.message().await {
                    Err(e) => return Err(failed(classify(&chain_text(&e), &context))),
                    Ok(None) => return Ok(None),
                    Ok(Some(m)) if m.canceled() => {
                        return Err(failed(FailureCause::Other(format!(
                            "the watch was cancelled: {}",
                            m.cancel_reason()
                        ))))
                    }
                    Ok(Some(m)) if m.events().is_empty() => continue,
                    Ok(Some(m)) => {
                        let changes = m
                            .events()
                            .iter()
                            .filter_map(|e| {
                                Some(Change {
                                    record: key_size(e.kv()?, true),
                                    deleted: e.event_type() == etcd_client::EventType::Delete,
                                })
                            })
                            .collect();
                        return Ok(Some((changes, stream)));
                    }
                }
            }
        }
    });
    Box::pin(batches)
}

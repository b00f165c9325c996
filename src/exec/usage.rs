//! The live read behind `usage` and doctor's churn sample, through
//! `EtcdOps` into a `plan::usage::Tally`.
//!
//! Keys are read from one member in serializable Range pages at one
//! revision, so no page waits for the leader and every page sees the same
//! keyspace. For every page, etcd (3.4 to 3.7) visits every key from the
//! page's start to the end of the range in its index to count them, under
//! the index's read lock, so fewer, larger pages would read faster; but a
//! large page is a burst of work for the member and the machine it shares
//! (marshalling, garbage), which the leader's writers felt: pages of 16 MiB
//! read a million keys in 10.3 s rather than 14.0 s, and a writer on the
//! leader saw stalls of up to 327 ms rather than 37 ms (docs/benchmarks.md).
//! So pages are about 4 MiB (at most 10,000 keys, sized from the bytes per
//! key seen so far). The Watch that counts writes starts after the revision
//! read and runs beside the pages.

use std::time::Duration;

use tokio::time::Instant;

use futures::StreamExt;

use crate::error::{Error, Result};
use crate::etcd::{Change, EtcdOps, FailureCause, KeySize, RangePage, RpcError};
use crate::exec::RunControl;
use crate::plan::usage::{self, ChurnSample, Layout, Tally};
use crate::reach::Dial;

/// The bytes a Range page aims at.
const PAGE_BYTES: u64 = 4 << 20;

/// The live read: Range pages and, beside them, the Watch.
pub struct Read<'a, O: EtcdOps> {
    pub ops: &'a O,
    pub dial: &'a Dial,
    pub member: &'a str,
    pub layout: &'a Layout,
    pub keys_only: bool,
    pub window: Duration,
    pub control: &'a RunControl,
    /// Told how many keys each page brought (progress).
    pub on_keys: &'a (dyn Fn(u64) + Sync),
}

/// What the read found.
pub struct Done {
    pub tally: Tally,
    /// The revision the read began at, and the one it ended at (later when
    /// a compaction moved it on).
    pub revision: i64,
    pub last_revision: i64,
    pub pages: u64,
    pub took: Duration,
    pub complete: bool,
    /// The window the writes were counted over (None: not sampled).
    pub window: Option<Duration>,
}

impl<O: EtcdOps> Read<'_, O> {
    pub async fn run(&self) -> Result<Done> {
        let (start, end) = usage::key_range(&self.layout.prefix);
        let began = Instant::now();
        let mut tally = Tally::new(self.layout.clone());
        // The first page fixes the revision every other page reads at, and
        // the one the Watch starts after.
        let first = self
            .page(&start, &end, 0, 1000)
            .await
            .map_err(|e| self.failed(0, e))?;
        let revision = first.revision;
        let sampling = !self.window.is_zero();
        // A failed page ends the Watch at once, and a failed Watch the
        // pages: neither waits for the other to fail the run.
        let (pages, sampled) = tokio::try_join!(
            async {
                let pages = self.pages(first, &end, revision, &mut tally).await?;
                Ok::<_, Error>((pages, began.elapsed()))
            },
            async {
                if sampling {
                    self.sample(revision + 1).await.map(Some)
                } else {
                    Ok(None)
                }
            }
        )?;
        let (pages, took) = pages;
        let window = sampled.map(|(writes, window)| {
            tally.absorb(writes);
            window
        });
        Ok(Done {
            tally,
            revision,
            last_revision: pages.last_revision,
            pages: pages.count,
            took,
            complete: pages.complete && self.control.halted().is_none(),
            window,
        })
    }

    async fn page(
        &self,
        start: &[u8],
        end: &[u8],
        revision: i64,
        limit: i64,
    ) -> std::result::Result<RangePage, RpcError> {
        self.ops
            .range_page(self.dial, start, end, revision, limit, self.keys_only)
            .await
    }

    fn failed(&self, revision: i64, e: RpcError) -> Error {
        Error::etcd(
            format!("read the keys from {} at revision {revision}", self.member),
            e,
        )
    }

    /// Every page after `first`, read at `revision`. A compaction past that
    /// revision (Kubernetes compacts every 5 minutes) moves the rest of the
    /// read to the member's newest revision instead of failing it: the keys
    /// already read stay counted, and the report names both revisions.
    async fn pages(
        &self,
        first: RangePage,
        end: &[u8],
        revision: i64,
        tally: &mut Tally,
    ) -> Result<Pages> {
        let mut page = first;
        let mut read = Pages {
            count: 1,
            complete: false,
            last_revision: revision,
        };
        loop {
            for k in &page.keys {
                tally.live(&k.key, stored(k));
            }
            (self.on_keys)(page.keys.len() as u64);
            let Some(last) = page.keys.last() else {
                read.complete = true;
                return Ok(read);
            };
            if !page.more {
                read.complete = true;
                return Ok(read);
            }
            if self.control.halted().is_some() {
                return Ok(read);
            }
            // The next key after the last one read.
            let mut next = last.key.clone();
            next.push(0);
            let (keys, bytes, _) = tally.totals();
            let limit = if self.keys_only {
                usage::MAX_PAGE_KEYS as i64
            } else {
                usage::next_page_limit(bytes, keys, PAGE_BYTES)
            };
            let at = read.last_revision;
            let answer = tokio::select! {
                page = self.page(&next, end, at, limit) => page,
                _ = self.control.cancel.cancelled() => return Ok(read),
            };
            page = match answer {
                Ok(page) => page,
                Err(e) if matches!(e.cause, FailureCause::RevisionUnavailable { .. }) => {
                    let newest = self
                        .page(&next, end, 0, limit)
                        .await
                        .map_err(|e| self.failed(0, e))?;
                    read.last_revision = newest.revision;
                    newest
                }
                Err(e) => return Err(self.failed(at, e)),
            };
            read.count += 1;
        }
    }

    /// Counts the writes from `from` for the window; answers them and the
    /// time they were counted over (shorter when a signal cut it).
    async fn sample(&self, from: i64) -> Result<(Tally, Duration)> {
        let mut writes = Tally::new(self.layout.clone());
        let (start, end) = usage::key_range(&self.layout.prefix);
        let mut stream = self
            .ops
            .watch_changes(self.dial, &start, &end, from)
            .await
            .map_err(|e| Error::etcd(format!("watch the writes on {}", self.member), e))?;
        let began = Instant::now();
        let deadline = Instant::now() + self.window;
        loop {
            tokio::select! {
                batch = stream.next() => match batch {
                    Some(Ok(changes)) => count(&mut writes, &changes),
                    Some(Err(e)) => return Err(Error::etcd(format!("watch the writes on {}", self.member), e)),
                    None => break,
                },
                _ = tokio::time::sleep_until(deadline) => break,
                _ = self.control.cancel.cancelled() => break,
            }
        }
        Ok((writes, began.elapsed().min(self.window)))
    }
}

/// The bytes a key's newest revision takes (0 when only keys were read).
fn stored(k: &KeySize) -> u64 {
    match k.value_len {
        Some(value) => usage::record_bytes(
            k.key.len() as u64,
            value,
            k.create_revision,
            k.mod_revision,
            k.version,
            k.lease,
        ),
        None => 0,
    }
}

fn count(writes: &mut Tally, changes: &[Change]) {
    for c in changes {
        let key = &c.record.key;
        let bytes = if c.deleted {
            // A deletion stores a tombstone: its revision key is one byte
            // longer, and the record holds only the key.
            usage::record_bytes(key.len() as u64, 0, 0, 0, 0, 0) + 1
        } else {
            stored(&c.record)
        };
        writes.write(key, bytes, c.deleted);
    }
}

/// How the pages went.
struct Pages {
    count: u64,
    complete: bool,
    last_revision: i64,
}

/// Doctor's sample: the writes on `dial` for `window` from now, grouped the
/// Kubernetes way.
pub async fn churn<O: EtcdOps>(
    ops: &O,
    dial: &Dial,
    member: &str,
    window: Duration,
) -> Result<ChurnSample> {
    let layout = Layout::new("", None);
    let control = RunControl::default();
    let read = Read {
        ops,
        dial,
        member,
        layout: &layout,
        keys_only: true,
        window,
        control: &control,
        on_keys: &|_| {},
    };
    let (writes, window) = read.sample(0).await?;
    let rows = writes.rows(false, Some(window));
    let (_, _, total_writes) = writes.totals();
    let total_bytes_per_second = rows
        .iter()
        .filter_map(|g| g.churn.as_ref().map(|c| c.bytes_per_second))
        .sum();
    Ok(ChurnSample {
        window,
        busiest: usage::by_churn(&rows).into_iter().cloned().collect(),
        total_writes,
        total_bytes_per_second,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::etcd::fake::{FakeCluster, Op};

    /// A 60 s read of `b` (a follower of the fake's `a`), 2,500 keys: three
    /// pages (the first asks for 1,000 keys, the next ones for more).
    async fn read_b(fake: &FakeCluster, control: &RunControl) -> Result<Done> {
        fake.hold_keys(2500);
        let dial = fake.target().dials[1].clone();
        let layout = Layout::new("", Some(1));
        Read {
            ops: fake,
            dial: &dial,
            member: "b",
            layout: &layout,
            keys_only: false,
            window: Duration::from_secs(60),
            control,
            on_keys: &|_| {},
        }
        .run()
        .await
    }

    fn fake() -> FakeCluster {
        FakeCluster::new(&[("a", 100, 50), ("b", 100, 50), ("c", 100, 50)])
    }

    #[tokio::test(start_paused = true)]
    async fn every_page_is_read_and_the_window_is_waited_out() {
        let fake = fake();
        let began = Instant::now();
        let done = read_b(&fake, &RunControl::default()).await.unwrap();
        assert_eq!(done.tally.totals().0, 2500);
        assert_eq!(done.pages, fake.calls_of(Op::Range).len() as u64);
        assert!(done.pages >= 2, "{} pages", done.pages);
        assert!(done.complete);
        assert_eq!(done.window, Some(Duration::from_secs(60)));
        assert!(began.elapsed() >= Duration::from_secs(60));
        assert!(fake.calls().iter().all(|c| c.member == "b"));
    }

    /// A page that fails while the Watch counts writes fails the run at
    /// once: the user learns of it without waiting out the window.
    #[tokio::test(start_paused = true)]
    async fn a_failed_page_fails_the_run_without_waiting_out_the_window() {
        let fake = fake();
        fake.fail_after("b", Op::Range, 1, FailureCause::ConnectionLost, 1);
        let began = Instant::now();
        let Err(e) = read_b(&fake, &RunControl::default()).await else {
            panic!("the second page failed; the run did not");
        };
        let said = e.to_string();
        assert!(said.contains("read the keys from b"), "{said}");
        assert!(
            began.elapsed() < Duration::from_secs(1),
            "the run waited {:?} of the 60 s window",
            began.elapsed()
        );
        assert_eq!(fake.calls_of(Op::Range).len(), 2);
    }

    /// A Watch that fails fails the run before the pages end.
    #[tokio::test(start_paused = true)]
    async fn a_failed_watch_fails_the_run_before_the_pages_end() {
        let fake = fake();
        fake.delay("b", Op::Range, Duration::from_secs(3));
        fake.fail("b", Op::Watch, FailureCause::ConnectionLost, 1);
        let began = Instant::now();
        let Err(e) = read_b(&fake, &RunControl::default()).await else {
            panic!("the Watch failed; the run did not");
        };
        assert!(e.to_string().contains("watch the writes on b"), "{e}");
        // The first page (3 s) came before the Watch; the second was cut.
        assert!(
            began.elapsed() < Duration::from_secs(6),
            "{:?}",
            began.elapsed()
        );
    }

    /// A stop signal during the pages ends them and the window: what was
    /// read is answered, marked incomplete.
    #[tokio::test(start_paused = true)]
    async fn a_stop_ends_the_pages_and_the_window() {
        let fake = fake();
        fake.delay("b", Op::Range, Duration::from_secs(3));
        let control = RunControl::default();
        let cancel = control.cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(4)).await;
            cancel.cancel();
        });
        let began = Instant::now();
        let done = read_b(&fake, &control).await.unwrap();
        assert!(!done.complete);
        assert_eq!(done.tally.totals().0, 1000, "the first page only");
        assert!(
            began.elapsed() < Duration::from_secs(5),
            "{:?}",
            began.elapsed()
        );
        assert_eq!(done.window, Some(Duration::from_secs(1)));
    }
}

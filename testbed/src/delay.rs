//! Distance on loopback: a TCP proxy that holds every byte for a set time
//! in each direction (plus optional jitter), put in front of a member's
//! client port or of the API server, so that the tool sees the round trips
//! a user on a laptop, a bastion or another cluster sees.
//!
//! Each direction is a pipe with latency, not a queue that serves one
//! chunk per delay: what is read at `t` is written at `t + each_way`
//! (never before what was read earlier), so bandwidth is not limited and
//! a request that needs N round trips takes N × 2 × `each_way` longer.
//!
//! The proxy also counts what crossed it: connections (each a TCP
//! handshake, and a TLS one on a TLS port) and the client's flights — a
//! run of bytes from the client after the server spoke, or at the start —
//! which for one conversation at a time is its number of round trips.
//! Several conversations at once (a command asking every member) make
//! flights that say little: a server's unprompted frames (HTTP/2 settings,
//! TLS tickets) split the client's runs where they happen to land. What
//! says how far apart a command's exchanges are is their causal depth
//! ([`Rounds`]), which proxies sharing one tracker count across members.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::Result;

/// How far away: the time each byte takes each way, and up to how much
/// more at random.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Delay {
    pub each_way: Duration,
    pub jitter: Duration,
}

impl Delay {
    /// A round trip of `ms` milliseconds: half of it each way.
    pub fn rtt_ms(ms: u64) -> Delay {
        Delay {
            each_way: Duration::from_micros(ms * 500),
            jitter: Duration::ZERO,
        }
    }

    pub fn with_jitter(mut self, jitter: Duration) -> Delay {
        self.jitter = jitter;
        self
    }

    /// The moment something read at `read` is written: after `each_way`
    /// (and its jitter), and never before what was read earlier (`after`).
    pub fn due(&self, read: Instant, after: Option<Instant>, jitter_draw: f64) -> Instant {
        let extra = self.jitter.mul_f64(jitter_draw.clamp(0.0, 1.0));
        let due = read + self.each_way + extra;
        match after {
            Some(a) if a > due => a,
            _ => due,
        }
    }
}

/// What crossed a proxy since it started.
#[derive(Debug, Default)]
pub struct Traffic {
    connections: AtomicU64,
    flights: AtomicU64,
    bytes_up: AtomicU64,
    bytes_down: AtomicU64,
}

/// A reading of [`Traffic`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
    /// Connections accepted: TCP handshakes (and TLS ones on a TLS port).
    pub connections: u64,
    /// Client flights: runs of client bytes after the server spoke.
    pub flights: u64,
    pub bytes_up: u64,
    pub bytes_down: u64,
}

impl std::ops::Sub for Counts {
    type Output = Counts;
    fn sub(self, earlier: Counts) -> Counts {
        Counts {
            connections: self.connections - earlier.connections,
            flights: self.flights - earlier.flights,
            bytes_up: self.bytes_up - earlier.bytes_up,
            bytes_down: self.bytes_down - earlier.bytes_down,
        }
    }
}

impl std::ops::Add for Counts {
    type Output = Counts;
    fn add(self, other: Counts) -> Counts {
        Counts {
            connections: self.connections + other.connections,
            flights: self.flights + other.flights,
            bytes_up: self.bytes_up + other.bytes_up,
            bytes_down: self.bytes_down + other.bytes_down,
        }
    }
}

/// A running proxy. Dropping it stops it and every connection through it.
#[derive(Debug)]
pub struct Proxy {
    addr: SocketAddr,
    traffic: Arc<Traffic>,
    rounds: Arc<Rounds>,
    task: tokio::task::JoinHandle<()>,
}

impl Proxy {
    /// Listens on `listen` (port 0: any free one) and forwards each
    /// connection to `upstream` with `delay` each way. Must run inside a
    /// Tokio runtime.
    pub async fn start(listen: SocketAddr, upstream: SocketAddr, delay: Delay) -> Result<Proxy> {
        let rounds = Arc::new(Rounds::new(delay.each_way));
        Proxy::start_counting(listen, upstream, delay, rounds).await
    }

    /// [`Proxy::start`], counting the causal depth of what crosses it in
    /// `rounds`, which other proxies may share.
    pub async fn start_counting(
        listen: SocketAddr,
        upstream: SocketAddr,
        delay: Delay,
        rounds: Arc<Rounds>,
    ) -> Result<Proxy> {
        let listener = TcpListener::bind(listen)
            .await
            .map_err(|e| format!("delay proxy: bind {listen}: {e}"))?;
        let addr = listener
            .local_addr()
            .map_err(|e| format!("delay proxy: {e}"))?;
        let traffic = Arc::new(Traffic::default());
        let counted = traffic.clone();
        let kept = rounds.clone();
        let task = tokio::spawn(async move {
            let mut connections = tokio::task::JoinSet::new();
            while let Ok((client, _)) = listener.accept().await {
                counted.connections.fetch_add(1, Ordering::Relaxed);
                connections.spawn(relay(
                    client,
                    upstream,
                    delay,
                    counted.clone(),
                    rounds.clone(),
                ));
                // Reap the finished ones as we go.
                while connections.try_join_next().is_some() {}
            }
        });
        Ok(Proxy {
            addr,
            traffic,
            rounds: kept,
            task,
        })
    }

    /// Where clients connect.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The round trips through it (and the proxies sharing its
    /// [`Rounds`]) since the last reset.
    pub fn round_trips(&self) -> u64 {
        self.rounds.deepest()
    }

    /// Starts counting [`Proxy::round_trips`] afresh.
    pub fn reset_round_trips(&self) {
        self.rounds.reset();
    }

    /// What crossed it so far.
    pub fn counts(&self) -> Counts {
        let t = &self.traffic;
        Counts {
            connections: t.connections.load(Ordering::Relaxed),
            flights: t.flights.load(Ordering::Relaxed),
            bytes_up: t.bytes_up.load(Ordering::Relaxed),
            bytes_down: t.bytes_down.load(Ordering::Relaxed),
        }
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        // Aborting the accept loop drops its JoinSet, which aborts every
        // connection's relay.
        self.task.abort();
    }
}

/// One connection: dials `upstream` and relays both ways until either
/// side closes.
async fn relay(
    client: TcpStream,
    upstream: SocketAddr,
    delay: Delay,
    traffic: Arc<Traffic>,
    rounds: Arc<Rounds>,
) {
    let Ok(server) = TcpStream::connect(upstream).await else {
        return; // the client sees its connection closed, as with a dead member
    };
    // No Nagle on the proxy's own hops: it must add the delay, nothing else.
    let _ = client.set_nodelay(true);
    let _ = server.set_nodelay(true);
    let (client_read, client_write) = client.into_split();
    let (server_read, server_write) = server.into_split();
    // Whether the server spoke last: the client's next bytes start a flight.
    let server_spoke = Arc::new(AtomicBool::new(true));
    // Whether the client hung up: what the server says after that answers
    // nothing the client waits for, and is not a round.
    let client_gone = Arc::new(AtomicBool::new(false));
    let up = one_way(
        client_read,
        server_write,
        delay,
        Direction::Up(server_spoke.clone(), client_gone.clone()),
        traffic.clone(),
        rounds.clone(),
    );
    let down = one_way(
        server_read,
        client_write,
        delay,
        Direction::Down(server_spoke, client_gone),
        traffic,
        rounds,
    );
    // When one direction ends (EOF delivered, or an error), the other goes
    // on until its own end; an error on either drops both.
    let _ = tokio::try_join!(up, down);
}

/// Which way a pipe goes, with whether the server spoke last and whether
/// the client hung up.
enum Direction {
    Up(Arc<AtomicBool>, Arc<AtomicBool>),
    Down(Arc<AtomicBool>, Arc<AtomicBool>),
}

/// Reads from `from`, and writes each chunk to `to` when it is due; EOF is
/// passed on (as a half-close) when it is due too.
async fn one_way(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    delay: Delay,
    direction: Direction,
    traffic: Arc<Traffic>,
    rounds: Arc<Rounds>,
) -> std::io::Result<()> {
    let (send, mut receive) = mpsc::channel::<(Instant, Vec<u8>)>(256);
    let writer = async move {
        while let Some((due, chunk)) = receive.recv().await {
            // Tokio's timer fires on its next millisecond tick even for a
            // deadline already past: with no delay left, write at once.
            if due > Instant::now() {
                tokio::time::sleep_until(due).await;
            }
            if chunk.is_empty() {
                break;
            }
            to.write_all(&chunk).await?;
        }
        to.shutdown().await
    };
    let reader = async move {
        let mut last: Option<Instant> = None;
        let mut jitter = Jitter::new();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = from.read(&mut buf).await?;
            let read = Instant::now();
            match &direction {
                Direction::Up(server_spoke, client_gone) => {
                    if server_spoke.swap(false, Ordering::Relaxed) && n > 0 {
                        traffic.flights.fetch_add(1, Ordering::Relaxed);
                    }
                    if n > 0 {
                        rounds.client_sent(read);
                    } else {
                        client_gone.store(true, Ordering::Relaxed);
                    }
                    traffic.bytes_up.fetch_add(n as u64, Ordering::Relaxed);
                }
                Direction::Down(server_spoke, client_gone) => {
                    server_spoke.store(true, Ordering::Relaxed);
                    if n > 0 && !client_gone.load(Ordering::Relaxed) {
                        rounds.server_sent(read);
                    }
                    traffic.bytes_down.fetch_add(n as u64, Ordering::Relaxed);
                }
            }
            let due = delay.due(read, last, jitter.draw());
            last = Some(due);
            if send.send((due, buf[..n].to_vec())).await.is_err() || n == 0 {
                return Ok::<(), std::io::Error>(());
            }
        }
    };
    tokio::try_join!(reader, writer).map(|_| ())
}

/// The causal depth of the exchanges through the proxies that share it:
/// the round trips a command made, counted from what crossed them rather
/// than from the clock. Bytes the client sent at `t` can depend on what a
/// server sent at `s` only if it reached the client first (`s + each_way
/// <= t`), and a server's bytes only on client bytes that reached it; so a
/// client chunk is one round deeper than the deepest server chunk it could
/// have read, and a server chunk as deep as the deepest client chunk it
/// could have read. A request sent beside another adds no round; a request
/// sent after an answer, on any connection through the sharing proxies,
/// adds one. The count is the deepest server chunk: the last answer the
/// client waited for (what a client sends last, an acknowledgement nobody
/// answers, is not a round trip; nor is what a server says after the client
/// hung up, which the proxy does not count). It needs a delay: with none
/// every chunk could depend on every earlier one, and the depth counts
/// chunks rather than round trips.
#[derive(Debug)]
pub struct Rounds {
    each_way: Duration,
    state: Mutex<RoundState>,
}

#[derive(Debug, Default)]
struct RoundState {
    client: Side,
    server: Side,
    /// The deepest server chunk.
    deepest: u64,
}

/// One side's chunks that the other cannot have read yet, and the deepest
/// of those it can.
#[derive(Debug, Default)]
struct Side {
    pending: VecDeque<(Instant, u64)>,
    settled: u64,
}

impl Side {
    /// Moves the chunks that reached the other side by `now` into
    /// `settled`.
    fn settle(&mut self, now: Instant, each_way: Duration) {
        while let Some(&(sent, depth)) = self.pending.front() {
            if sent + each_way > now {
                break;
            }
            self.settled = self.settled.max(depth);
            self.pending.pop_front();
        }
    }
}

impl Rounds {
    pub fn new(each_way: Duration) -> Rounds {
        Rounds {
            each_way,
            state: Mutex::new(RoundState::default()),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, RoundState> {
        match self.state.lock() {
            Ok(s) => s,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// A client chunk read at `at`.
    pub fn client_sent(&self, at: Instant) {
        let mut s = self.state();
        s.server.settle(at, self.each_way);
        let depth = s.server.settled + 1;
        s.client.pending.push_back((at, depth));
    }

    /// A server chunk read at `at`.
    pub fn server_sent(&self, at: Instant) {
        let mut s = self.state();
        s.client.settle(at, self.each_way);
        let depth = s.client.settled;
        s.server.pending.push_back((at, depth));
        s.deepest = s.deepest.max(depth);
    }

    /// The deepest server chunk since the last [`Rounds::reset`]: the round
    /// trips made.
    pub fn deepest(&self) -> u64 {
        self.state().deepest
    }

    /// Forgets everything before now (between two commands, once the first
    /// has ended).
    pub fn reset(&self) {
        *self.state() = RoundState::default();
    }
}

/// Draws in [0, 1) for the jitter (xorshift, seeded at random per
/// direction; nothing here needs to replay).
struct Jitter(u64);

impl Jitter {
    fn new() -> Jitter {
        use std::hash::{BuildHasher, Hasher};
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(0);
        Jitter(h.finish() | 1)
    }

    fn draw(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jitter_draws_stay_in_range() {
        let mut j = Jitter::new();
        for _ in 0..1000 {
            let x = j.draw();
            assert!((0.0..1.0).contains(&x), "{x}");
        }
    }

    #[test]
    fn due_adds_the_delay_and_keeps_the_order() {
        let d = Delay::rtt_ms(40).with_jitter(Duration::from_millis(10));
        assert_eq!(d.each_way, Duration::from_millis(20));
        let t = Instant::now();
        assert_eq!(d.due(t, None, 0.0), t + Duration::from_millis(20));
        assert_eq!(d.due(t, None, 1.0), t + Duration::from_millis(30));
        assert_eq!(d.due(t, None, 7.0), t + Duration::from_millis(30));
        // A chunk read later but drawn less jitter still waits for the one
        // before it.
        let first = d.due(t, None, 1.0);
        let second = d.due(t + Duration::from_millis(1), Some(first), 0.0);
        assert_eq!(second, first);
        // Bandwidth is not limited: chunks read at once are all due one
        // delay later, not one delay after another.
        let mut after = None;
        for _ in 0..100 {
            let due = d.due(t, after, 0.0);
            assert_eq!(due, t + Duration::from_millis(20));
            after = Some(due);
        }
        let zero = Delay::default();
        assert_eq!(zero.due(t, None, 0.5), t);
    }

    /// An echo server behind the proxy: each exchange takes the round trip,
    /// and the proxy counts one connection and one flight per exchange.
    #[tokio::test]
    async fn each_exchange_costs_one_round_trip_and_one_flight() {
        let echo = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let upstream = echo.local_addr().unwrap();
        tokio::spawn(async move {
            let (mut s, _) = echo.accept().await.unwrap();
            let mut buf = [0u8; 16];
            loop {
                let n = s.read(&mut buf).await.unwrap();
                if n == 0 {
                    break;
                }
                s.write_all(&buf[..n]).await.unwrap();
            }
        });
        let proxy = Proxy::start("127.0.0.1:0".parse().unwrap(), upstream, Delay::rtt_ms(40))
            .await
            .unwrap();
        let mut c = TcpStream::connect(proxy.addr()).await.unwrap();
        c.set_nodelay(true).unwrap();
        let started = std::time::Instant::now();
        let mut buf = [0u8; 4];
        for _ in 0..3 {
            c.write_all(b"ping").await.unwrap();
            c.read_exact(&mut buf).await.unwrap();
            assert_eq!(&buf, b"ping");
        }
        let took = started.elapsed();
        assert!(
            took >= Duration::from_millis(120),
            "three exchanges took {took:?}"
        );
        drop(c);
        let counts = proxy.counts();
        assert_eq!(counts.connections, 1);
        assert_eq!(counts.flights, 3);
        assert_eq!(counts.bytes_up, 12);
        assert_eq!(counts.bytes_down, 12);
    }

    /// Two echo servers behind two proxies sharing one [`Rounds`]:
    /// exchanges sent side by side are one round; one sent after an answer,
    /// on the other connection, is one more; one sent after that on a new
    /// connection, one more again.
    #[tokio::test]
    async fn rounds_count_exchanges_that_wait_on_an_answer_across_proxies() {
        async fn echo() -> SocketAddr {
            let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = l.local_addr().unwrap();
            tokio::spawn(async move {
                while let Ok((mut s, _)) = l.accept().await {
                    tokio::spawn(async move {
                        let mut buf = [0u8; 16];
                        while let Ok(n) = s.read(&mut buf).await {
                            if n == 0 || s.write_all(&buf[..n]).await.is_err() {
                                break;
                            }
                        }
                    });
                }
            });
            addr
        }
        async fn ping(c: &mut TcpStream) {
            let mut buf = [0u8; 4];
            c.write_all(b"ping").await.unwrap();
            c.read_exact(&mut buf).await.unwrap();
        }
        let delay = Delay::rtt_ms(40);
        let rounds = Arc::new(Rounds::new(delay.each_way));
        let any: SocketAddr = "127.0.0.1:0".parse().unwrap();
        let a = Proxy::start_counting(any, echo().await, delay, rounds.clone())
            .await
            .unwrap();
        let b = Proxy::start_counting(any, echo().await, delay, rounds.clone())
            .await
            .unwrap();
        let mut ca = TcpStream::connect(a.addr()).await.unwrap();
        let mut cb = TcpStream::connect(b.addr()).await.unwrap();
        ca.set_nodelay(true).unwrap();
        cb.set_nodelay(true).unwrap();
        tokio::join!(ping(&mut ca), ping(&mut cb));
        assert_eq!(rounds.deepest(), 1);
        ping(&mut cb).await;
        assert_eq!(rounds.deepest(), 2);
        let mut cc = TcpStream::connect(a.addr()).await.unwrap();
        cc.set_nodelay(true).unwrap();
        ping(&mut cc).await;
        assert_eq!(rounds.deepest(), 3);
        rounds.reset();
        tokio::join!(ping(&mut ca), ping(&mut cc));
        assert_eq!(rounds.deepest(), 1);
    }
}

//! Round trips per command (issue 39), counted where they happen: the
//! delay proxy in front of each member counts the connections a command
//! opened to it and the client's flights on them (runs of bytes the client
//! sent after the member spoke: one per round trip of one conversation).
//! Wall time is not asserted (these machines are noisy); a read added after
//! a member's first RPCs adds a flight, a connection of its own adds a
//! connection, and either fails here.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use kubectl_etcd_testbed::delay::{Counts, Delay};
use support::*;

/// The commands that look before they act (or only look), each as a user
/// runs it from one seed, with the round trips it must make at most and
/// the connections it opens to each member:
///
/// - discovery: a TLS handshake and MemberList on the seed (with its
///   Status, which tells the release, so a 3.4 or 3.5 member's /metrics
///   and, where etcd has the applySnapshot race, the leader's /debug/vars
///   go out beside the others' Status), then a handshake and Status on the
///   others: 4 round trips, on every release;
/// - `members`: a handshake and MemberList: 2;
/// - `doctor`: the look, then the compacted revision (HashKV on the
///   leader) and each member's /metrics (read in the look where its
///   release needed them), side by side: 5 (the certificate each member
///   serves is kept from its connection's handshake);
/// - `usage --window 0`: the look, then the first page from the member it
///   chose: 5 (with a window, the Watch follows the first page, to start
///   from exactly the revision the pages read).
const COMMANDS: [(&[&str], u64, [u64; 3]); 8] = [
    (&["status", "-o", "json"], 4, [1, 1, 1]),
    (&["status", "-o", "wide"], 4, [1, 1, 1]),
    (&["members", "-o", "json"], 2, [1, 0, 0]),
    (&["alarm", "list", "-o", "json"], 4, [1, 1, 1]),
    (&["defrag", "--dry-run", "-o", "json"], 4, [1, 1, 1]),
    (&["defrag", "-y", "-o", "json"], 4, [1, 1, 1]),
    (&["doctor", "-o", "json"], 5, [1, 1, 1]),
    (&["usage", "--window", "0", "-o", "json"], 5, [1, 1, 1]),
];

/// What one command cost at each member's proxy, and the round trips it
/// made across them.
async fn counted(cluster: &Cluster, command: &[&str]) -> (Vec<Counts>, u64) {
    let before = cluster.traffic();
    cluster.reset_round_trips();
    let mut argv = one_seed(cluster);
    argv.extend(args(command));
    let out = tool(&argv, &[]).await;
    assert!(matches!(out.code, 0 | 1), "{command:?}: {}", out.stderr);
    let rounds = cluster.round_trips();
    let counts = cluster
        .traffic()
        .into_iter()
        .zip(before)
        .map(|(now, before)| now - before)
        .collect();
    (counts, rounds)
}

/// Every looking command, on every release the bed has a different look
/// for (3.4: quota in /metrics and the applySnapshot race; 3.5: quota in
/// /metrics; 3.7: neither), 200 ms from a user found from one seed, makes
/// the round trips its reads need and opens the connections it needs, as
/// the members' proxies counted them.
#[tokio::test(flavor = "multi_thread")]
async fn each_looking_command_makes_the_round_trips_its_reads_need() {
    for version in [EtcdVersion::V3_4, EtcdVersion::V3_5, EtcdVersion::V3_7] {
        let spec = ClusterSpec::new(3, Security::MutualTls)
            .version(version)
            // Far enough that a client slowed by a loaded machine (tens of
            // milliseconds between two writes of one round) is not counted
            // a round deeper: only a wait for an answer is.
            .delay(Delay::rtt_ms(200));
        let cluster = start(spec).await;
        for (command, rounds, connections) in COMMANDS {
            // A dial given up under load and made again is the machine's,
            // not the command's, and so is a look taken again because the
            // loaded machine let the first age past exec::FRESH_FOR before
            // the sweep began (CI, 2026-12-06: `defrag -y` on 3.5 made 6
            // rounds once): up to three tries, and the fewest round trips
            // of those that opened the command's connections. A command
            // that always makes more still fails.
            let mut seen = Vec::new();
            for _ in 0..3 {
                let (counts, made) = counted(&cluster, command).await;
                let opened: Vec<u64> = counts.iter().map(|c| c.connections).collect();
                let done = opened == connections && made == rounds;
                seen.push((made, opened));
                if done {
                    break;
                }
            }
            let Some(made) = seen
                .iter()
                .filter(|(_, o)| o == &connections)
                .map(|(m, _)| m)
                .min()
            else {
                panic!("{version:?} {command:?}: {connections:?} connections in none of three runs: {seen:?}");
            };
            assert_eq!(
                *made, rounds,
                "{version:?} {command:?}: round trips ({seen:?})"
            );
        }
    }
}

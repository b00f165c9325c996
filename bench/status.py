#!/usr/bin/env python3
"""Benchmark: `kubectl-etcd status -o json` against
`etcdctl endpoint status --cluster -w json` on the same 3-member mTLS
cluster, run interleaved (A, B, A, B, ...) so that machine noise hits both
alike. Prints a Markdown table with medians, p90 and the ratio.

    bench/status.py [--runs 40] [--version 3.6]

Needs: testbed/build.sh done, and `cargo build --release` of the workspace.
"""

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cache_dir():
    base = os.environ.get("KUBECTL_ETCD_TESTBED_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "kubectl-etcd-testbed"
    )
    return os.path.join(base, "current")


def start_cluster(version, work):
    env_file = os.path.join(work, "env")
    log = open(os.path.join(work, "testbed.log"), "w")
    proc = subprocess.Popen(
        [os.path.join(ROOT, "target/release/testbed"), "up", "--members", "3",
         "--security", "mtls", "--version", version, "--env-file", env_file],
        stdout=log, stderr=log)
    deadline = time.time() + 60
    while not (os.path.exists(env_file) and os.path.getsize(env_file) > 0):
        if proc.poll() is not None or time.time() > deadline:
            proc.kill()
            sys.exit("testbed did not start; see " + log.name)
        time.sleep(0.1)
    env = {}
    for line in open(env_file):
        key, _, value = line.removeprefix("export ").strip().partition("=")
        env[key] = value.strip("'")
    return proc, env


def timed(cmd, env):
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{cmd[0]} failed: {done.stderr.decode()}")
    return elapsed


def p90(xs):
    return sorted(xs)[int(0.9 * (len(xs) - 1))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--version", default="3.6")
    opts = parser.parse_args()

    work = tempfile.mkdtemp(prefix="kubectl-etcd-bench-")
    proc, cluster_env = start_cluster(opts.version, work)
    try:
        env = dict(os.environ, **cluster_env)
        # Give etcdctl exactly one seed too, as kubectl-etcd gets: both
        # discover the rest through MemberList.
        seed = cluster_env["ETCDCTL_ENDPOINTS"].split(",")[0]
        env["ETCDCTL_ENDPOINTS"] = seed
        ours = [os.path.join(ROOT, "target/release/kubectl-etcd"), "status", "-o", "json"]
        theirs = [os.path.join(cache_dir(), f"etcd-v{opts.version}", "etcdctl"),
                  "endpoint", "status", "--cluster", "-w", "json"]
        for _ in range(3):  # warm the page cache and the members
            timed(ours, env)
            timed(theirs, env)
        a, b = [], []
        for _ in range(opts.runs):
            a.append(timed(ours, env))
            b.append(timed(theirs, env))
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)

    ma, mb = statistics.median(a), statistics.median(b)
    print(f"| command | median | p90 | runs |")
    print(f"|---|---|---|---|")
    print(f"| `kubectl-etcd status -o json` | {ma*1000:.1f} ms | {p90(a)*1000:.1f} ms | {len(a)} |")
    print(f"| `etcdctl endpoint status --cluster -w json` (etcd {opts.version}) | {mb*1000:.1f} ms | {p90(b)*1000:.1f} ms | {len(b)} |")
    print(f"\nratio kubectl-etcd / etcdctl (medians): **{ma/mb:.2f}**")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Tallies fault-soak transcripts (the stdout of `scripts/soak.sh`, either
target) for docs/reliability.md: rounds, faults by kind and by the moment
they fired (in 1 s steps of the work's first seconds), and the rounds that
reported violations.

    scripts/soak-tally.py TRANSCRIPT [TRANSCRIPT ...]

A round that appears twice (a run resumed with --from-round) counts once,
as its last transcript line says.
"""

import re
import sys
from collections import Counter, defaultdict

ROUND = re.compile(
    r"^(?:seed (?P<seed>\d+) )?round (?P<round>\d+): .*?faults \[(?P<faults>[^\]]*)\]"
    r".*?(?P<violations>\d+) violation\(s\)"
)
SEED = re.compile(r"^seed (\d+)$")


def main(paths):
    rounds = {}
    for path in paths:
        seed = None
        with open(path, errors="replace") as f:
            for line in f:
                line = line.strip()
                m = SEED.match(line)
                if m:
                    seed = m.group(1)
                    continue
                m = ROUND.match(line)
                if not m:
                    continue
                key = (m.group("seed") or seed, int(m.group("round")))
                faults = [x.strip() for x in m.group("faults").split(",") if x.strip()]
                rounds[key] = (faults, int(m.group("violations")))
    by_kind = Counter()
    by_moment = defaultdict(Counter)
    flagged = []
    for key, (faults, violations) in sorted(rounds.items()):
        for fault in faults:
            kind, _, at = fault.partition("@")
            by_kind[kind] += 1
            second = int(at.removesuffix("ms")) // 1000 if at else -1
            by_moment[kind][second] += 1
        if violations:
            flagged.append(key)
    seconds = sorted({s for c in by_moment.values() for s in c})
    print(f"rounds: {len(rounds)}, faults: {sum(by_kind.values())}")
    print("| fault | total | " + " | ".join(f"{s}–{s + 1} s" for s in seconds) + " |")
    print("|---|---|" + "---|" * len(seconds))
    for kind, total in by_kind.most_common():
        cells = " | ".join(str(by_moment[kind][s]) for s in seconds)
        print(f"| {kind} | {total} | {cells} |")
    print("flagged rounds: " + (", ".join(f"{s} {r}" for s, r in flagged) or "none"))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])

#!/usr/bin/env python3
"""ws_timeline_summary_dev.py PROBE_TXT... - what ws_timeline_dev.patch's lines say, per file (one shape's launch):
for each role (0 the producer, 1 and 2 the consumer warpgroups) the mean over the blocks of its pass, loop, waits,
work (a consumer's: the fragments and the wgmmas' issue, then the chain's wait) and epilogue in SM cycles, each as a
share of pass + loop, and the work a pair; the launch's span by %globaltimer (the first block's
start to the last block's end) and the blocks' mean span, in microseconds; the idle consumers apart (a role whose
work is 0)."""
import collections
import re
import sys

LINE = re.compile(r"ws_probe bn (\d+) staging (\d+) split (\d+) block (\d+) (\d+) (\d+) sm (\d+) role (\d+): pass (\d+) "
                  r"loop (\d+) wait (\d+) work (\d+) issue (\d+) chain (\d+) epilogue (\d+) pairs (\d+) tiles (\d+) "
                  r"ns (\d+) (\d+)")


def summary(path):
    rows = [m.groups() for m in map(LINE.search, open(path, errors="replace")) if m]
    if not rows:
        print(f"{path}: no probe lines")
        return
    bn, staging, split = rows[0][:3]
    print(f"{path}: BN {bn}, staging {staging}, K split {split}, {len(rows) // 3} blocks")
    roles = collections.defaultdict(list)
    for r in rows:
        role, pass_, loop, wait, work, issue, chain, epi, pairs, tiles = map(int, r[7:17])
        kind = "idle consumer" if role > 0 and work == 0 else ("producer" if role == 0 else "consumer")
        roles[kind].append((pass_, loop, wait, work, issue, chain, epi, pairs, tiles))
    for kind, v in sorted(roles.items()):
        n = len(v)
        mean = [sum(x[i] for x in v) / n for i in range(9)]
        total = mean[0] + mean[1]
        a_pair = max(mean[7], 1)
        print(f"  {kind:13s} x{n:4d}: pass {mean[0]:8.0f} ({mean[0] / total:4.0%})  loop {mean[1]:8.0f}  "
              f"wait {mean[2]:8.0f} ({mean[2] / total:4.0%})  work {mean[3]:8.0f} ({mean[3] / total:4.0%})  "
              f"epilogue {mean[6]:7.0f} ({mean[6] / total:4.0%})  pairs {mean[7]:.1f} tiles {mean[8]:.1f}  a pair: "
              f"work {mean[3] / a_pair:5.0f}, issue {mean[4] / a_pair:5.0f}, chain {mean[5] / a_pair:5.0f}")
    starts = [int(r[17]) for r in rows]
    ends = [int(r[18]) for r in rows]
    spans = [e - s for s, e in zip(starts, ends)]
    print(f"  launch span {(max(ends) - min(starts)) / 1000:.2f} us, a block's mean {sum(spans) / len(spans) / 1000:.2f}"
          f" us, the last start {(max(starts) - min(starts)) / 1000:.2f} us after the first")


for f in sys.argv[1:]:
    summary(f)

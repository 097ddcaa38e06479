#!/usr/bin/env python3
"""ws_split_fit_dev.py SWEEP_CSV - how well ws_choose (fused_ws_wgmma.cu) picks tf32-v21's (channels, K split) on
the sweep of ws_split_k_run3.sh (results/h100/history/dev/ws_split_sweep_651cd59.csv: every forced pair and the
unforced choice on 48 random shapes): for a grid of its two prices, the exchange a tile (E chunks' worth) and the
fixed price a chunk (F channels' worth), the geometric mean and the worst of the picked pair's time over the
fastest pair's. A copy of ws_choose's estimate at 132 SMs, clusters of 4 taken as three quarters of the SMs' worth."""
import collections
import csv
import math
import re
import sys

PAIRS = [(128, 1), (128, 2), (128, 4), (64, 1), (64, 2)]  # least_cost's order: the first of equal estimates
SMS = 132


def cdiv(a, b):
    return -(-a // b)


def clusters(split):
    return max(1, SMS // split * 3 // 4 if split > 2 else SMS // split)


def estimate(shape, bn, split, exchange, fixed):
    n, cin, cout, h, w, pad = shape
    ho, wo = (h, w) if pad == "same" else (h - 2, w - 2)
    chunks = cdiv(cin, 8)
    if split > 1 and chunks < 2 * split:
        return None
    total, blocks_x = n * cdiv(wo, 16) * cdiv(ho, 8), cdiv(cout, bn)
    x = max(1, clusters(split) // blocks_x)
    blocks = min(x, total)
    busiest = cdiv(total, blocks) * cdiv(blocks * blocks_x, clusters(split))
    return busiest * (cdiv(chunks, split) + (exchange if split > 1 else 0)) * (bn + fixed)


def main():
    times = collections.defaultdict(dict)  # shape -> {pair that ran: GPU ms}
    for r in csv.DictReader(open(sys.argv[1])):
        if "det" not in r["variant"] or r["status"] != "pass" or r["forced"] == "auto":
            continue
        m = re.search(r"x (\d+) ch(?:, K split (\d))?", r["detail"])
        shape = (int(r["n"]), int(r["cin"]), int(r["cout"]), int(r["h"]), int(r["w"]), r["padding"])
        times[shape][(int(m.group(1)), int(m.group(2) or 1))] = float(r["gpu_ms"])
    print("%d shapes" % len(times))
    for exchange in (0, 2, 3, 4, 5, 6, 8, 12):
        for fixed in (0, 32, 48, 64, 96):
            ratios = []
            for shape, t in times.items():
                costs = [(estimate(shape, bn, s, exchange, fixed), bn, s) for bn, s in PAIRS]
                pick = min((c for c in costs if c[0] is not None), key=lambda c: c[0])
                ratios.append(t[pick[1:]] / min(t.values()))
            print("E %2d F %2d: geomean %.4f, worst %.3f" % (
                exchange, fixed, math.exp(sum(map(math.log, ratios)) / len(ratios)), max(ratios)))


if __name__ == "__main__":
    main()

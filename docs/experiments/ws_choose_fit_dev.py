#!/usr/bin/env python3
"""ws_choose_fit_dev.py SWEEP_CSV... - how well ws_choose (fused_ws_wgmma.cu) picks tf32-v21's configuration (channels,
K split, one or two images a tile) on sweeps where every configuration was forced (ws_choose_force_dev.patch; the
CSVs of results/h100/history/dev/ws_split_sweep_651cd59.csv.gz and ws_pair_sweep_f25bcc7.csv.gz, gzipped or not, a
`forced` column first):
for a grid of ws_cost's prices (E: the exchange a tile, chunks' worth; F: the fixed price a chunk, channels' worth;
C: the cp.async window's price a chunk; P: a paired tile's; I: whether a warpgroup right of the image counts as
idle under K split), the geometric mean and the worst of the picked configuration's time over the fastest one's,
per sweep file. A copy of ws_cost at 132 SMs (clusters of 4 taken as three quarters of the SMs' worth, the cp.async
window where W % 4 != 0 or two images share a tile); ws_choose takes two images a tile only where their least
estimate is lower. With --products 3 (3xtf32-v21: a chunk's 27 wgmmas, 64 channels a block only), the grid is
ws_cost's 3xTF32 prices: a chunk's channels count 3 times, F and C around the 3xTF32 fragments' price."""
import argparse
import collections
import csv
import gzip
import itertools
import math
import re
import sys

SMS = 132
CONFIGS = [(bn, split, paired) for paired in (False, True) for bn in (128, 64) for split in (1, 2, 4)]
CURRENT = {1: (5, 32, 16, 0, True), 3: (5, 64, 16, 0, True)}  # ws_cost's prices, tf32 and 3xTF32


def cdiv(a, b):
    return -(-a // b)


def clusters(split):
    return max(1, SMS // split * 3 // 4 if split > 2 else SMS // split)


def cost(shape, config, prices, products=1):
    (n, cin, cout, h, w, pad), (bn, split, paired), (E, F, C, P, idle_aware) = shape, config, prices
    ho, wo = (h, w) if pad == "same" else (h - 2, w - 2)
    chunks = cdiv(cin, 8)
    if (split > 1 and chunks < 2 * split) or (bn == 64 and split == 4):
        return None
    if paired and not (n >= 2 and w + (pad == "same") <= 8):
        return None
    tiles_x = cdiv(wo, 16)
    total, channel_blocks = (cdiv(n, 2) if paired else n) * tiles_x * cdiv(ho, 8), cdiv(cout, bn)
    blocks = min(max(1, clusters(split) // channel_blocks), total)
    busiest = cdiv(total, blocks) * cdiv(blocks * channel_blocks, clusters(split))
    multiplying = 1.0
    if idle_aware and not paired and split > 1 and (wo - 1) % 16 < 8:
        multiplying = 1 - 0.5 / tiles_x
    copied = paired or w % 4 != 0
    price = products * bn * multiplying + F + (C if copied else 0) + (P if paired else 0)
    return busiest * (cdiv(chunks, split) + (E if split > 1 else 0)) * price


def pick(shape, prices, products=1):
    costs = [(cost(shape, c, prices, products), c) for c in CONFIGS if products == 1 or c[0] == 64]
    one = min((x for x in costs if x[0] is not None and not x[1][2]), key=lambda x: x[0])
    two = [x for x in costs if x[0] is not None and x[1][2]]
    if two and min(two, key=lambda x: x[0])[0] < one[0]:
        return min(two, key=lambda x: x[0])[1]
    return one[1]


def load(path):
    times = collections.defaultdict(dict)  # shape -> {configuration that ran: GPU ms}
    opener = gzip.open if path.endswith(".gz") else open
    for r in csv.DictReader(opener(path, "rt")):
        if "det" not in r["variant"] or r["status"] != "pass" or r["forced"] == "auto":
            continue
        m = re.search(r"x (\d+) ch(?:, K split (\d))?", r["detail"])
        config = (int(m.group(1)), int(m.group(2) or 1), "2 images" in r["detail"])
        shape = (int(r["n"]), int(r["cin"]), int(r["cout"]), int(r["h"]), int(r["w"]), r["padding"])
        times[shape][config] = min(float(r["gpu_ms"]), times[shape].get(config, 1e9))
    return times


def score(times, prices, products):
    ratios = [t[pick(s, prices, products)] / min(t.values()) for s, t in times.items()
              if pick(s, prices, products) in t]
    return math.exp(sum(map(math.log, ratios)) / len(ratios)), max(ratios), len(ratios)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--products", type=int, choices=(1, 3), default=1, help="1: tf32-v21, 3: 3xtf32-v21")
    ap.add_argument("sweeps", nargs="+")
    args = ap.parse_args()
    sweeps = [load(p) for p in args.sweeps]
    current = CURRENT[args.products]
    fixed = (16, 32, 48, 64) if args.products == 1 else (32, 48, 64, 96, 128, 160)
    rows = []
    for prices in itertools.product((2, 3, 4, 5, 6, 8), fixed, (0, 16, 32, 48, 64), (0, 16, 32), (False, True)):
        scores = [score(t, prices, args.products) for t in sweeps]
        rows.append((max(s[0] for s in scores), prices, scores))
    rows.sort()
    for worst_geomean, prices, scores in rows[:10] + [r for r in rows if r[1] == current]:
        print("E %d F %2d C %2d P %2d idle %-5s: " % prices +
              ", ".join("geomean %.4f worst %.3f (%d shapes)" % s for s in scores) +
              ("  <- ws_cost" if prices == current else ""))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""bench_compare_dev.py - two builds' `cgp bench --csv` rows side by side, for an experiment's run (the variants of
ws_producer_nofence_run1.sh, fp32_gelu_x2_fine_run1.sh, ...): rows matched by shape, precision and the bench's
variant (fused tf32 det, ...), the base's GPU time over the other's per row, their geometric mean, minimum and
maximum, and whether the errors are bit-identical (rel L2 and max abs error as printed) or how far they moved.

    python3 docs/experiments/bench_compare_dev.py BASE.csv OTHER.csv [--rows N]

Several files a side: BASE and OTHER may each be a comma-separated list (a shape's rows from each, the last file
that has it winning). Rows whose status is not pass on either side are counted apart."""
import argparse
import csv
import gzip
import math


def rows_of(paths):
    rows = {}
    for path in paths.split(","):
        with (gzip.open(path, "rt", newline="") if path.endswith(".gz") else open(path, newline="")) as f:
            for r in csv.DictReader(f):
                key = (r["n"], r["cin"], r["cout"], r["h"], r["w"], r["padding"], r["variant"])
                rows[key] = r
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("base")
    ap.add_argument("other")
    ap.add_argument("--rows", type=int, default=4, help="the slowest and fastest rows to print (default 4 each)")
    args = ap.parse_args()
    base, other = rows_of(args.base), rows_of(args.other)
    pairs, failed, moved = [], 0, []
    for key in sorted(base.keys() & other.keys()):
        b, o = base[key], other[key]
        if b["status"] != "pass" or o["status"] != "pass":
            failed += 1
            continue
        pairs.append((float(b["gpu_ms"]) / float(o["gpu_ms"]), key, b["gpu_ms"], o["gpu_ms"]))
        if (b["rel_l2_error"], b["max_abs_error"]) != (o["rel_l2_error"], o["max_abs_error"]):
            moved.append((key, b["rel_l2_error"], o["rel_l2_error"]))
    print(f"{len(pairs)} rows matched ({len(base)} base, {len(other)} other), {failed} not passing on a side")
    if not pairs:
        return
    geo = math.exp(sum(math.log(p[0]) for p in pairs) / len(pairs))
    pairs.sort()
    print(f"base / other GPU time: geometric mean {geo:.4f}, min {pairs[0][0]:.4f}, max {pairs[-1][0]:.4f}")
    for ratio, key, b_ms, o_ms in pairs[:args.rows] + pairs[-args.rows:]:
        print(f"  {ratio:.4f}  {'x'.join(key[:5])} {key[5]} {key[6]}: {b_ms} -> {o_ms} ms")
    if moved:
        print(f"errors moved on {len(moved)} rows; the largest rel L2 after:")
        for key, b_err, o_err in sorted(moved, key=lambda m: -float(m[2]))[:args.rows]:
            print(f"  {'x'.join(key[:5])} {key[5]} {key[6]}: rel L2 {b_err} -> {o_err}")
    else:
        print("errors bit-identical on every row (rel L2 and max abs error as printed)")


if __name__ == "__main__":
    main()

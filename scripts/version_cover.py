#!/usr/bin/env python3
"""version_cover.py - which kernel versions the library needs, from the measured GPU times of every candidate.

Reads results/h200/selection_candidates.csv (`cgp select`: every version that runs a shape, timed by CUDA-graph
replay, on the zoo and the random sample) and, per precision, removes versions one at a time, each time the one
whose removal costs least: the worst ratio, over the shapes, of the fastest remaining version's GPU time to the
fastest of all. It prints each step (the version removed, the worst ratio after it, how many shapes then lose more
than 5%), so the table says how many versions keep every shape within a margin: the measure of issue 43's "at most
16 versions, each the measured best on some shape". Versions named with --keep (the fallbacks every shape and GPU
needs) are never removed.

    python3 scripts/version_cover.py [--csv results/h200/selection_candidates.csv] [--keep fp32-v1 tf32-v9 ...]

With --without V..., it judges that one set instead: per precision, the worst ratio of the fastest version left to
the fastest of all, the shapes over 2% and over 5%, the geometric mean, and the shapes no version left ran (in an
old sample, those only the removed versions were timed on). The CSV may be gzipped.
"""
import argparse
import collections
import csv
import gzip
import math
import sys


def load(path):
    times = collections.defaultdict(dict)  # (shape..., precision) -> {kernel: gpu_ms}
    with (gzip.open(path, "rt", newline="") if path.endswith(".gz") else open(path, newline="")) as f:
        for row in csv.DictReader(f):
            if row["status"] != "pass":
                continue
            key = tuple(row[c] for c in ("n", "cin", "cout", "h", "w", "padding", "precision"))
            times[key][row["kernel"]] = float(row["gpu_ms"])
    return times


def cost(shapes, kept):
    """(worst ratio, shapes over 5%) with only `kept`, or None where a shape would have no version"""
    worst, over = 1.0, 0
    for by_kernel in shapes:
        remaining = [t for k, t in by_kernel.items() if k in kept]
        if not remaining:
            return None
        ratio = min(remaining) / min(by_kernel.values())
        worst = max(worst, ratio)
        over += ratio > 1.05
    return worst, over


def judge_without(times, removed):
    """prints, per precision, what removing `removed` costs on the sample"""
    for precision in ("fp32", "tf32", "3xtf32"):
        ratios, orphans = [], 0
        for key, by_kernel in times.items():
            if key[-1] != precision:
                continue
            left = [t for k, t in by_kernel.items() if k not in removed]
            if not left:
                orphans += 1
                continue
            ratios.append((min(left) / min(by_kernel.values()), key))
        if not ratios:
            continue
        worst, where = max(ratios)
        print(f"{precision}: {len(ratios)} shapes, worst {worst:.3f}x ({'x'.join(where[:5])} {where[5]}), "
              f"{sum(r > 1.02 for r, _ in ratios)} over 2%, {sum(r > 1.05 for r, _ in ratios)} over 5%, "
              f"geometric mean {math.exp(sum(math.log(r) for r, _ in ratios) / len(ratios)):.4f}"
              f"{f', {orphans} shapes only removed versions ran' if orphans else ''}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--csv", default="results/h200/selection_candidates.csv")
    parser.add_argument("--keep", nargs="*", default=["fp32-v1", "tf32-v9", "3xtf32-v9"],
                        help="versions never removed (default: the generic fallbacks of each precision)")
    parser.add_argument("--without", nargs="*", default=None, help="judge removing exactly these versions")
    args = parser.parse_args()
    times = load(args.csv)
    if not times:
        sys.exit(f"version_cover: no passing rows in {args.csv}")
    if args.without is not None:
        judge_without(times, set(args.without))
        return
    for precision in ("fp32", "tf32", "3xtf32"):
        shapes = [v for k, v in times.items() if k[-1] == precision]
        kept = {k for v in shapes for k in v}
        print(f"{precision}: {len(shapes)} shapes, {len(kept)} versions")
        while True:
            steps = [(cost(shapes, kept - {k}), k) for k in sorted(kept) if k not in args.keep]
            steps = [(c, k) for c, k in steps if c is not None]
            if not steps:
                break
            (worst, over), removed = min(steps)
            kept.discard(removed)
            print(f"  without {removed:<12} worst {worst:.3f}x, {over:3d} shapes over 5%, {len(kept):2d} left")
        print(f"  left: {' '.join(sorted(kept))}")


if __name__ == "__main__":
    main()

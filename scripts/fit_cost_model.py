#!/usr/bin/env python3
"""fit_cost_model.py - fits the heuristic selection's cost model (host/lib/cost_model.c) to measured GPU times.

    python3 scripts/fit_cost_model.py CANDIDATES_CSV... [--out host/lib/cost_model_table.h] [--lambda 1.0]
                                      [--checks-out tests/lib/cost_model_checks.h]
                                      [--trees 100] [--samples-of KERNEL=CSV]
                                      [--judge HELD_OUT_CSV]

Each CANDIDATES_CSV (or its .gz) is what `cgp select --candidates-csv` writes on one GPU: per shape, precision and kernel version,
the GPU time by CUDA-graph replay (status pass). For every version with at least MIN_SAMPLES timed shapes it fits
log(GPU ms) as a linear function of the shape's features (of three of them below FULL_SAMPLES shapes) (features() below, the same list in the same order as
cost_model.c's cost_model_features) by ridge regression (the intercept unpenalised), then, for versions timed on at
least TREE_SAMPLES shapes, gradient-boosted regression trees of depth TREE_DEPTH on what the linear part leaves
(each tree fitted to the residual of the model so far, its leaves scaled by LEARNING_RATE), reports the pick's quality
by two-fold cross-validation (shapes split in halves), in-sample and on every --judge file (a sample it was not
fitted on): the shapes where the predicted-fastest version is within 5% of the fastest measured, those over 1.2x,
and the worst ratio; and writes the coefficients as a C table, with, for tests/cpu/cpu_cost_model.c, the log GPU
time the table as written predicts for a few sample shapes of each version (CHECKS_PER_VERSION). Needs numpy.
--samples-of KERNEL=CSV adds KERNEL's timed rows of another sample to that kernel's fit alone (nothing else is fitted
or judged on them): a path the main sample could not run, such as tf32-v21's cp.async windows (W % 4 != 0), which
came after the H200 samples and were measured on an H100 of the same 132 SMs. Rows of versions that left the library
(library_versions.py) are read as if never measured: no coefficients, and not the fastest a pick is judged against.
Fit on one sample and judge on another: `cgp select` with a different --seed measures the shapes the table is
then checked on (results/h200/selection.csv, tests/cpu/cpu_cost_model.c):
    python3 scripts/fit_cost_model.py results/h200/history/dev/selection_candidates_seed{1,2}_dev.csv.gz \
        --judge results/h200/selection_candidates.csv
"""
import argparse
import collections
import csv
import gzip
import math
import random
import sys

from library_versions import library_versions

LIBRARY = library_versions()  # the versions libcgp holds: the rows of the others are left out (fit and judged)
MIN_SAMPLES = 3     # versions measured on fewer shapes get no coefficients (the preference order picks them)
FULL_SAMPLES = 20   # below this, a version's fit uses the REDUCED features alone (the others' coefficients 0)
REDUCED = (0, 6, 1)  # 1, ln conv FLOP, ln N
TREE_SAMPLES = 40    # versions timed on fewer shapes get the linear part alone
TREE_DEPTH = 3       # every tree complete: 7 splits, 8 leaves (cost_model.c walks it as a heap)
TREE_NODES, TREE_LEAVES = 2 ** TREE_DEPTH - 1, 2 ** TREE_DEPTH
LEARNING_RATE = 0.1  # each tree's leaves are scaled by it
MIN_LEAF = 10        # shapes a split leaves on each side, at least
TREE_LAMBDA = 1.0    # a leaf's value: the residuals' sum / (their count + TREE_LAMBDA)
SPLIT_BINS = 24      # the thresholds a split tries: between the feature's values at these many quantiles
CHECKS_PER_VERSION = 3  # shapes a version whose prediction the C model must reproduce (--checks-out)
# how the table writes each number (what the C model computes with, and the checks predict with)
COEFFICIENT_FORMAT, THRESHOLD_FORMAT, LEAF_FORMAT = "%.9g", "%.12g", "%.6g"
FEATURE_NAMES = [
    "1", "ln N", "ln Cin", "ln Cout", "ln Hout", "ln Wout", "ln conv FLOP", "padding same",
    "ln Cin fill of 8", "ln Cout fill of 32", "ln Cout fill of 64", "ln Hout fill of 16", "ln Wout fill of 16",
    "ln Hout fill of 8", "ln Wout fill of 8", "W % 4 == 0",
    "ln tiles 16x16x64", "ln wave fill 16x16x64", "tiles 16x16x64 < SMs",
    "ln tiles 8x8x64", "ln wave fill 8x8x64", "tiles 8x8x64 < SMs",
    "(ln FLOP)^2 / 100", "ln Cin ln Cout / 10", "ln x elements",
    "hinge ln FLOP 16", "hinge ln FLOP 18", "hinge ln FLOP 20", "hinge ln FLOP 22", "hinge ln FLOP 24",
    "hinge ln FLOP 26", "hinge ln Cin 1.5", "hinge ln Cin 3", "hinge ln Cin 4.5", "hinge ln Cout 2",
    "hinge ln Cout 3.5", "hinge ln Cout 5",
    "ln Cin fill of 4", "ln Cin fill of 16", "ln Cin fill of 32",
    "ln Cout fill of 8", "ln Cout fill of 16", "ln Cout fill of 128",
    "ln waves 8x16x64", "ln wave fill 8x16x64", "ln waves 16x16x32", "ln wave fill 16x16x32",
    "ln waves 16x16x128", "ln wave fill 16x16x128", "ln waves 8x8x32", "ln wave fill 8x8x32",
    "ln waves 64px x64", "ln wave fill 64px x64", "ln waves 128px x64", "ln wave fill 128px x64",
    "ln waves 256px x64", "ln wave fill 256px x64",
    "ln Hout Wout", "ln plane fill of 128 px", "Cout <= 8", "Cout <= 16", "Cin <= 4",
    "(ln Cin)^2 / 10", "(ln Cout)^2 / 10", "ln output pixels",
    "ln output pixels ln Cout fill of 64 / 10", "ln output pixels ln Cin fill of 8 / 10", "Cout <= 4",
]
# the output tiles (rows x columns x channels, then flat pixels x channels) whose waves over the SMs are features
WAVE_TILES = ((8, 16, 64), (16, 16, 32), (16, 16, 128), (8, 8, 32))
FLAT_TILES = (64, 128, 256)


def cdiv(a, b):
    return -(-a // b)


def features(n, cin, cout, h, w, pad, sms):
    """The cost model's features of a shape on a GPU of `sms` SMs (cost_model.c computes the same)."""
    hout, wout = h - 2 + 2 * pad, w - 2 + 2 * pad
    flop = float(n) * hout * wout * cout * cin * 18.0
    lf = math.log(flop)
    f = [1.0, math.log(n), math.log(cin), math.log(cout), math.log(hout), math.log(wout), lf, float(pad),
         math.log(cdiv(cin, 8) * 8 / cin), math.log(cdiv(cout, 32) * 32 / cout), math.log(cdiv(cout, 64) * 64 / cout),
         math.log(cdiv(hout, 16) * 16 / hout), math.log(cdiv(wout, 16) * 16 / wout),
         math.log(cdiv(hout, 8) * 8 / hout), math.log(cdiv(wout, 8) * 8 / wout), 1.0 if w % 4 == 0 else 0.0]
    for tile in (16, 8):
        tiles = n * cdiv(hout, tile) * cdiv(wout, tile) * cdiv(cout, 64)
        f += [math.log(tiles), math.log(cdiv(tiles, sms) * sms / tiles), 1.0 if tiles < sms else 0.0]
    f += [lf * lf / 100.0, math.log(cin) * math.log(cout) / 10.0, math.log(float(n) * cin * h * w)]
    f += [max(0.0, lf - c) for c in (16, 18, 20, 22, 24, 26)]
    f += [max(0.0, math.log(cin) - c) for c in (1.5, 3.0, 4.5)]
    f += [max(0.0, math.log(cout) - c) for c in (2.0, 3.5, 5.0)]
    f += [math.log(cdiv(cin, c) * c / cin) for c in (4, 16, 32)]
    f += [math.log(cdiv(cout, c) * c / cout) for c in (8, 16, 128)]
    tile_counts = [n * cdiv(hout, th) * cdiv(wout, tw) * cdiv(cout, tc) for th, tw, tc in WAVE_TILES]
    tile_counts += [cdiv(n * hout * wout, px) * cdiv(cout, 64) for px in FLAT_TILES]
    for tiles in tile_counts:  # waves of tiles over the SMs (one block an SM) and the last wave's fill
        f += [math.log(cdiv(tiles, sms)), math.log(cdiv(tiles, sms) * sms / tiles)]
    plane, pixels = hout * wout, float(n) * hout * wout
    f += [math.log(plane), math.log(cdiv(plane, 128) * 128 / plane),
          1.0 if cout <= 8 else 0.0, 1.0 if cout <= 16 else 0.0, 1.0 if cin <= 4 else 0.0,
          math.log(cin) ** 2 / 10.0, math.log(cout) ** 2 / 10.0, math.log(pixels),
          math.log(pixels) * math.log(cdiv(cout, 64) * 64 / cout) / 10.0,
          math.log(pixels) * math.log(cdiv(cin, 8) * 8 / cin) / 10.0, 1.0 if cout <= 4 else 0.0]
    assert len(f) == len(FEATURE_NAMES)
    return f


def read(paths, sms):
    """{(shape..., precision): [(kernel, version, gpu_ms or None)]} (the versions that ran the shape, a time where
    the run passed) and {shape key: features}, of every file (a shape
    measured in two files keeps the first file's times)"""
    groups, feats = collections.defaultdict(list), {}
    for path in paths:
        for key, rows in read_one(path).items():
            if key not in groups:
                groups[key] = rows
                feats[key] = features(*key[:6], sms)
    return groups, feats


def read_one(path):
    """{(shape..., precision): [(kernel, version, gpu_ms or None)]} of one file"""
    groups = collections.defaultdict(list)
    with (gzip.open(path, "rt", newline="") if path.endswith(".gz") else open(path, newline="")) as f:
        for r in csv.DictReader(f):
            key = (int(r["n"]), int(r["cin"]), int(r["cout"]), int(r["h"]), int(r["w"]),
                   1 if r["padding"] == "same" else 0, r["precision"])
            if r["status"] == "unsupported" or r["kernel"] not in LIBRARY:  # refused, or left the library
                continue
            ms = float(r["gpu_ms"]) if r["status"] == "pass" and r["gpu_ms"] else None
            groups[key].append((r["kernel"], int(r["version"]), ms))
    return groups


def fit(np, groups, feats, keys, lam, trees, extra=()):
    """{(kernel, version): Model} fitted on the shapes `keys`, and on the (kernel, groups, feats) samples of
    `extra` for that kernel alone"""
    data = collections.defaultdict(lambda: ([], []))
    for key in keys:
        for kernel, version, ms in groups[key]:
            if ms:
                data[(kernel, version)][0].append(feats[key])
                data[(kernel, version)][1].append(math.log(ms))
    for only, other, other_feats in extra:
        for key, rows in other.items():
            for kernel, version, ms in rows:
                if ms and kernel == only:
                    data[(kernel, version)][0].append(other_feats[key])
                    data[(kernel, version)][1].append(math.log(ms))
    out = {}
    for kv, (x, y) in data.items():
        if len(y) < MIN_SAMPLES:
            continue
        x, y = np.array(x), np.array(y)
        keep = list(range(x.shape[1])) if len(y) >= FULL_SAMPLES else list(REDUCED)
        xs = x[:, keep]
        a = xs.T @ xs + lam * np.eye(len(keep))
        a[0, 0] -= lam
        c = np.zeros(x.shape[1])
        c[keep] = np.linalg.solve(a, xs.T @ y)
        out[kv] = Model(c, boost(np, x, y - x @ c, trees) if len(y) >= TREE_SAMPLES else [])
    return out


class Model:
    """one version's cost model: log GPU ms = coefficients . features + the trees' leaves"""

    def __init__(self, coefficients, trees):
        self.coefficients, self.trees = coefficients, trees

    def predict(self, f):
        return float(sum(c * v for c, v in zip(self.coefficients, f))) + sum(leaf_of(t, f) for t in self.trees)


def leaf_of(tree, f):
    """the leaf value `f` reaches in a complete tree (features, thresholds, leaves): from node i, right where the
    feature is above the threshold, to 2 i + 1 or 2 i + 2 (cost_model.c walks it the same way)"""
    features, thresholds, leaves = tree
    i = 0
    while i < TREE_NODES:
        i = 2 * i + (2 if f[features[i]] > thresholds[i] else 1)
    return leaves[i - TREE_NODES]


def split_thresholds(np, column):
    """the thresholds a split of one feature tries: midway between the values at SPLIT_BINS quantiles and the next
    larger value of the sample (so no sample value lies within rounding of one)"""
    values = np.unique(column)
    picks = np.unique(np.quantile(column, np.linspace(0.0, 1.0, SPLIT_BINS + 1)[1:-1], method="lower"))
    nexts = np.searchsorted(values, picks, side="right")
    keep = nexts < len(values)
    return (picks[keep] + values[nexts[keep]]) / 2.0


def boost(np, x, residual, count):
    """`count` trees, each fitted (least squares, leaves shrunk by TREE_LAMBDA) to what the ones before it leave of
    `residual`, its leaves scaled by LEARNING_RATE"""
    thresholds = [split_thresholds(np, x[:, j]) for j in range(x.shape[1])]
    above = [x[:, j][:, None] > t[None, :] for j, t in enumerate(thresholds)]  # per feature: sample x threshold
    trees, r = [], residual.copy()
    for _ in range(count):
        tree = grow(np, above, thresholds, r)
        r -= np.array([leaf_of(tree, row) for row in x])
        trees.append(tree)
    return trees


def grow(np, above, thresholds, r):
    """one complete tree of depth TREE_DEPTH over residuals r; a node no split improves sends every sample left
    (threshold +inf), its right subtree then reached by none"""
    features, cuts = [0] * TREE_NODES, [math.inf] * TREE_NODES
    leaves = [0.0] * TREE_LEAVES
    members = {0: np.ones(len(r), dtype=bool)}
    for i in range(TREE_NODES):
        m = members.pop(i)
        count, total = m.sum(), r[m].sum()
        best = total * total / (count + TREE_LAMBDA) + 1e-12
        for j, a in enumerate(above):
            if not len(thresholds[j]):
                continue
            right = a[m]
            nr = right.sum(axis=0)
            sr = r[m] @ right
            gain = (total - sr) ** 2 / (count - nr + TREE_LAMBDA) + sr ** 2 / (nr + TREE_LAMBDA)
            gain[(nr < MIN_LEAF) | (count - nr < MIN_LEAF)] = -1.0
            k = int(np.argmax(gain))
            if gain[k] > best:
                best, features[i], cuts[i] = gain[k], j, float(thresholds[j][k])
        right = m & above[features[i]][:, list(thresholds[features[i]]).index(cuts[i])] if cuts[i] != math.inf \
            else np.zeros(len(r), dtype=bool)
        members[2 * i + 1], members[2 * i + 2] = m & ~right, right
    for leaf in range(TREE_LEAVES):
        m = members[TREE_NODES + leaf]
        leaves[leaf] = LEARNING_RATE * r[m].sum() / (m.sum() + TREE_LAMBDA)
    return features, cuts, leaves


def judge(np, model, groups, feats, keys):
    """(shapes, picks within 5% of the fastest, picks over 1.2x, worst ratio, picks with no time) of the model's
    picks on `keys`: per shape, the version of lowest prediction among the modelled ones that ran it (as
    cost_model.c picks, tests/cpu/cpu_cost_model.c judges), its GPU time against the fastest measured"""
    within, over, untimed, ratios = 0, 0, 0, []
    for key in keys:
        best = min((ms for _, _, ms in groups[key] if ms), default=None)
        modelled = [(model[(k, v)].predict(feats[key]), ms) for k, v, ms in groups[key] if (k, v) in model]
        if not modelled or best is None:
            continue
        ms = min(modelled, key=lambda pm: pm[0])[1]
        if not ms:
            untimed += 1
            continue
        ratios.append(ms / best)
        within += ms <= 1.05 * best
        over += ms > 1.2 * best
    return len(ratios) + untimed, within, over, max(ratios, default=0.0), untimed


def print_judged(label, j):
    print("%-6s %s: %d of %d shapes within 5%% of the fastest, %d over 1.2x, worst %.2fx%s" % (
        label[0], label[1], j[1], j[0], j[2], j[3], ", %d picks not timed" % j[4] if j[4] else ""))


def as_written(model):
    """the models with every number as write_table prints it (what cost_model.c computes with)"""
    def threshold(c):
        return c if c == math.inf else float(THRESHOLD_FORMAT % c)
    return {kv: Model([float(COEFFICIENT_FORMAT % c) for c in m.coefficients],
                      [(f, [threshold(c) for c in cuts], [float(LEAF_FORMAT % v) for v in leaves])
                       for f, cuts, leaves in m.trees])
            for kv, m in model.items()}


def write_table(path, model, source, lam, trees):
    lines = ["/* cost_model_table.h - generated by scripts/fit_cost_model.py from %s (ridge lambda %g, %d trees of "
             "depth %d," % (source, lam, trees, TREE_DEPTH),
             " * learning rate %g): per kernel version, the coefficients of log(GPU ms) over cost_model.c's features, in"
             " their order, and" % LEARNING_RATE,
             " * its trees (cost_model_trees[first_tree .. first_tree + tree_count)). Do not edit. */",
             "#define COST_MODEL_FEATURES %d" % len(FEATURE_NAMES),
             "#define COST_MODEL_TREE_DEPTH %d" % TREE_DEPTH,
             "static const struct cost_model_entry {",
             "    int version;",
             "    double coefficients[COST_MODEL_FEATURES];",
             "    int first_tree, tree_count;",
             "} cost_model_table[] = {"]
    tree_lines, first = [], 0
    for (kernel, version), m in sorted(model.items(), key=lambda kv: kv[0][1]):
        values = ", ".join(COEFFICIENT_FORMAT % v for v in m.coefficients)
        lines.append("    {%d, {%s}, %d, %d}, /* %s */" % (version, values, first, len(m.trees), kernel))
        for features, cuts, leaves in m.trees:
            tree_lines.append("    {{%s}, {%s}, {%s}}," % (
                ", ".join("%d" % f for f in features),
                ", ".join(THRESHOLD_FORMAT % c if c != math.inf else "HUGE_VAL" for c in cuts),
                ", ".join(LEAF_FORMAT % v for v in leaves)))
        first += len(m.trees)
    lines.append("};")
    lines += ["/* a complete tree: node i (0 .. 2^depth - 2) goes to 2 i + 2 where features[feature[i]] > threshold[i],",
              " * else to 2 i + 1; node 2^depth - 1 + j is leaf[j] */",
              "static const struct cost_model_tree {",
              "    unsigned char feature[(1 << COST_MODEL_TREE_DEPTH) - 1];",
              "    double threshold[(1 << COST_MODEL_TREE_DEPTH) - 1];",
              "    double leaf[1 << COST_MODEL_TREE_DEPTH];",
              "} cost_model_trees[] = {"]
    lines += tree_lines or ["    {{0}, {0}, {0}},"]
    lines.append("};")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def write_checks(path, model, groups, feats, table_path):
    """per version, the log GPU time the table as written predicts for its first CHECKS_PER_VERSION timed shapes (in
    the samples' sorted order), for tests/cpu/cpu_cost_model.c to compare cost_model.c's against"""
    written = as_written(model)
    lines = ["/* cost_model_checks.h - generated by scripts/fit_cost_model.py with %s: per version, the natural log of" %
             table_path.split("/")[-1],
             " * the GPU ms the table predicts for a few of its sample shapes (H200: 132 SMs), which cost_model.c must",
             " * reproduce (tests/cpu/cpu_cost_model.c). Do not edit. */",
             "static const struct cost_model_check {",
             "    int version;",
             "    long long n, cin, cout, h, w;",
             "    int pad;",
             "    double log_ms;",
             "} cost_model_checks[] = {"]
    for (kernel, version), m in sorted(written.items(), key=lambda kv: kv[0][1]):
        shapes = [key for key in sorted(groups) if any(k == kernel and ms for k, _, ms in groups[key])]
        for key in shapes[:CHECKS_PER_VERSION]:
            lines.append("    {%d, %d, %d, %d, %d, %d, %d, %.17g}, /* %s */" % (
                (version,) + key[:6] + (m.predict(feats[key]), kernel)))
    lines.append("};")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("candidates_csv", nargs="+")
    ap.add_argument("--out", default="host/lib/cost_model_table.h")
    ap.add_argument("--lambda", dest="lam", type=float, default=1.0)
    ap.add_argument("--checks-out", default="tests/lib/cost_model_checks.h",
                    help="the predictions tests/cpu/cpu_cost_model.c checks cost_model.c against")
    ap.add_argument("--trees", type=int, default=100, help="boosted trees a version (0: the linear part alone)")
    ap.add_argument("--judge", action="append", default=[], metavar="CSV[,CSV...]",
                    help="also judge the fitted model's picks on these shapes (a sample it was not fitted on)")
    ap.add_argument("--samples-of", action="append", default=[], metavar="KERNEL=CSV",
                    help="also fit KERNEL (e.g. tf32-v21) on its rows of CSV, which nothing else is fitted or judged on "
                         "(a path the main sample could not run)")
    ap.add_argument("--sms", type=int, default=132, help="SMs of the GPU the times come from (an H200: 132)")
    args = ap.parse_args(argv)
    import numpy as np
    groups, feats = read(args.candidates_csv, args.sms)
    extra = [(spec.split("=", 1)[0],) + read([spec.split("=", 1)[1]], args.sms) for spec in args.samples_of]
    judged = [read(path.split(","), args.sms) for path in args.judge]
    for precision in ("fp32", "tf32", "3xtf32"):
        keys = sorted(k for k in groups if k[6] == precision)
        random.Random(0).shuffle(keys)
        half = len(keys) // 2
        a = judge(np, fit(np, groups, feats, keys[:half], args.lam, args.trees, extra), groups, feats, keys[half:])
        b = judge(np, fit(np, groups, feats, keys[half:], args.lam, args.trees, extra), groups, feats, keys[:half])
        print_judged((precision, "two-fold cross-validation"), (a[0] + b[0], a[1] + b[1], a[2] + b[2],
                                                                 max(a[3], b[3]), a[4] + b[4]))
    model = fit(np, groups, feats, list(groups), args.lam, args.trees, extra)
    for precision in ("fp32", "tf32", "3xtf32"):
        print_judged((precision, "in-sample"),
                     judge(np, model, groups, feats, [k for k in groups if k[6] == precision]))
        for path, (other, other_feats) in zip(args.judge, judged):
            print_judged((precision, "on " + path.split("/")[-1]), judge(
                np, model, other, other_feats, [k for k in other if k[6] == precision]))
    source = " and ".join(p.split("/")[-1] for p in args.candidates_csv)
    source += "".join(", %s also on %s" % (s.split("=", 1)[0], s.split("/")[-1]) for s in args.samples_of)
    write_table(args.out, model, source, args.lam, args.trees)
    write_checks(args.checks_out, model, groups, feats, args.out)
    print("wrote %s: %d versions, and %s" % (args.out, len(model), args.checks_out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

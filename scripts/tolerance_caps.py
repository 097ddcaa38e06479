#!/usr/bin/env python3
"""tolerance_caps.py - per-version caps on the relative-L2 bound of tests/lib/tolerance.h, from measured errors.

    python3 scripts/tolerance_caps.py [LOG...] [--margin 4] [--out tests/lib/tolerance_caps.h]

Each LOG (or its .gz; default results/h200/history/make_test_*.log* and results/h100/history/make_test_*.log*: the
H200's and the H100's, which run the same sm_90a code, so a case's error is the same function of its inputs on both) is
what `make test` printed there. Every
GPU check of a y prints "# <case>: rel L2 <e> (bound <b>), max abs <e> (bound <b>), <model> model"; lines of the older
formats (no model named) are skipped. A case names its kernel version by number ("fused v<N> ..." and "path v<N> ..."
in gpu_fused, "gpu_tensorcore [stage split ]<precision> kernel <N> ..." in gpu_tensorcore; kernel 0, a selection, is
left out) or by name ("gpu_random_shapes <name> ..."); the numbers and names are tied by the logs' own lines ("fused v<N>
<name> runs a test shape", "kernel <N> (<name>)"), checked to agree across all logs.

Per (version, model) it takes the worst rel L2 divided by s(Cin), the model's Cin factor (reimplemented here from
test_cin_scale in tolerance.h: the same three forms, by the model's cin_scaling), over every case, shape and seed of every
log, and writes cap = margin x that worst: tolerance.h bounds a version's rel L2 by min(model bound, cap s(Cin)), which
drops the model's allowance for averaging over few pixels (and for the worst version) where a version never needed it.
A version seen in fewer than MIN_CASES cases of a model gets no cap (the model bound alone). A version whose worst case
is one the history logs do not have (a shape measured in one log, one seed) gets SPARSE_MARGIN instead of the margin.
Prints, per version and model, the count of cases, the worst (normalised) error, the cap, the worst path shape's
(tests/lib/path_shapes.h, "path v<N>" cases) error over the cap, the worst case and its log; writes the caps of the
versions the library holds (library_versions.py), those that left it printed as such. Stdlib only.
"""
import argparse
import collections
import glob
import gzip
import math
import os
import re
import sys
import textwrap

from library_versions import library_versions

MIN_CASES = 20       # fewer cases of a version under a model: no cap
SPARSE_MARGIN = 8.0  # the margin where the worst case comes from a shape measured in a single log

# tolerance.h's test_error_models, in its order: (name as the logs print it, enum name, cin_scaling)
MODELS = [
    ("fp32", "TEST_ARITH_FP32", 0),
    ("3xtf32", "TEST_ARITH_TF32X3", 0),
    ("tf32 (rounded inputs)", "TEST_ARITH_TF32_ROUNDED", 1),
    ("tf32", "TEST_ARITH_TF32", 2),
]
MODEL_INDEX = {m[0]: i for i, m in enumerate(MODELS)}

LINE = re.compile(r"^# (?P<case>.*): rel L2 (?P<rel>[0-9.eE+-]+) \(bound [0-9.eE+-]+\), max abs [0-9.eE+-]+ "
                  r"\(bound [0-9.eE+-]+\), (?P<model>[^,]+) model(?:, rel L2 bound v\d+'s cap)?$")
BY_NUMBER = re.compile(r"^(?:fused v|path v|gpu_tensorcore (?:stage split )?(?:fp32|tf32|3xtf32) kernel )(\d+) ")
BY_NAME = re.compile(r"^gpu_random_shapes ((?:fp32|tf32|3xtf32)-v\d+) ")
SHAPE = re.compile(r"\b(\d+)x(\d+)x(\d+)x(\d+)x(\d+)\b")
NAMES = [re.compile(r"\bfused v(\d+) ((?:fp32|tf32|3xtf32)-v\d+) runs a test shape"),
         re.compile(r"\bkernel (\d+) \(((?:fp32|tf32|3xtf32)-v\d+)\)")]


def cin_scale(scaling, cin):
    """test_cin_scale of tolerance.h"""
    c = float(max(cin, 1))
    if scaling == 1:
        return max(1.0, c / 8.0)
    if scaling == 2:
        return math.sqrt(max(1.0, 8.0 / c))
    return math.sqrt(max(1.0, c / 8.0))


def up3(v):
    """v to 3 significant digits, rounded up (a cap never below margin x worst)"""
    text = f"{v:.2e}"
    return text if float(text) >= v else f"{float(text) + 10 ** (math.floor(math.log10(v)) - 2):.2e}"


def read_lines(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", errors="replace") as f:
        return f.read().splitlines()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("logs", nargs="*")
    ap.add_argument("--margin", type=float, default=4.0)
    ap.add_argument("--out")
    a = ap.parse_args()
    logs = a.logs or sorted(glob.glob("results/h200/history/make_test_*.log*") +
                            glob.glob("results/h100/history/make_test_*.log*"))
    if not logs:
        sys.exit("tolerance_caps.py: no logs")
    texts = {path: read_lines(path) for path in logs}

    names = {}  # version -> name, from every log
    for path, lines in texts.items():
        for line in lines:
            for pat in NAMES:
                for num, name in pat.findall(line):
                    if int(num) and names.setdefault(int(num), name) != name:
                        sys.exit(f"{path}: version {num} is {name} here, {names[int(num)]} elsewhere")
    numbers = {name: num for num, name in names.items()}

    # (version, model) -> [cases, worst normalised, worst raw, case, log, shapes seen in one log only?]
    worst = {}
    shape_logs = collections.defaultdict(set)  # (version, model, shape text) -> logs
    used = set()
    path_worst = collections.defaultdict(float)  # (version, model) -> worst rel L2 / s(Cin) of the path shapes
    for path, lines in texts.items():
        for line in lines:
            m = LINE.match(line)
            if not m or m.group("model") not in MODEL_INDEX:
                continue
            case, model = m.group("case"), MODEL_INDEX[m.group("model")]
            num = BY_NUMBER.match(case)
            named = BY_NAME.match(case)
            version = int(num.group(1)) if num else numbers.get(named.group(1)) if named else None
            shape = SHAPE.search(case)
            if not version or not shape:
                continue
            if named is None and version in names and names[version].split("-")[0] not in case.split():
                if not case.startswith("path v"):  # path cases name no precision
                    sys.exit(f"{path}: {case}: version {version} is {names[version]}")
            used.add(path)
            cin = int(shape.group(2))
            rel = float(m.group("rel"))
            norm = rel / cin_scale(MODELS[model][2], cin)
            key = (version, model)
            if case.startswith("path v"):
                path_worst[key] = max(path_worst[key], norm)
            w = worst.setdefault(key, [0, -1.0, 0.0, "", "", cin])
            w[0] += 1
            if norm > w[1]:
                w[1:6] = [norm, rel, case, os.path.basename(path), cin]
            shape_logs[(version, model, re.sub(r" (det|atomic)", "", case.split(" ", 2)[-1]))].add(path)

    rows = []
    library = library_versions()
    print(f"# {len(used)} of {len(logs)} logs have cases in the model format; margin {a.margin:g}, "
          f"{SPARSE_MARGIN:g} where the worst case's shape is in one log; no cap below {MIN_CASES} cases")
    print(f"{'version':>8} {'name':<12} {'model':<22} {'cases':>6} {'worst/s':>9} {'cap':>9} {'paths':>5}  worst case (log)")
    for (version, model), (count, norm, rel, case, log, cin) in sorted(worst.items()):
        once = len(shape_logs[(version, model, re.sub(r" (det|atomic)", "", case.split(" ", 2)[-1]))]) == 1
        margin = SPARSE_MARGIN if once and len(used) > 1 else a.margin
        cap = margin * max(norm, float(f"{norm:.3g}")) if count >= MIN_CASES else 0.0  # over worst as written
        name = names.get(version, "?")
        print(f"{version:>8} {name:<12} {MODELS[model][0]:<22} {count:>6} {norm:>9.3g} "
              f"{cap if cap else float('nan'):>9.3g} {path_worst[(version, model)] / cap if cap else 0:>5.2f}  {case}: {rel:.3g} at Cin {cin} ({log})"
              f"{'; margin ' + format(margin, 'g') if margin != a.margin else ''}{'' if cap else '; no cap'}"
              f"{'' if name in library else '; left the library'}")
        if cap and name in library:
            rows.append((version, model, cap, norm, count, name, margin))

    if a.out:
        with open(a.out, "w") as f:
            def run_name(path):  # the commit, and the device where not the H200
                commit = re.sub(r"^make_test_|[.]log([.]gz)?$", "", os.path.basename(path))
                return commit + (" (H100)" if "/h100/" in path else "")
            commits = " ".join(sorted(run_name(p) for p in used))
            banner = (f"tolerance_caps.h - generated by scripts/tolerance_caps.py (margin {a.margin:g}, {SPARSE_MARGIN:g} "
                      f"where a version's worst case is in one log only; no cap below {MIN_CASES} cases) from the "
                      f"{len(used)} make test logs with cases in the model format, results/h200/history/ and "
                      f"results/h100/history/make_test_<commit>.log*: {commits}. Per kernel version and error "
                      f"model: the cap on the relative-L2 bound over s(Cin), the worst rel L2 / s(Cin) measured, the "
                      f"cases measured. "
                      f"Do not edit.")

            f.write("/*" + "\n *".join(" " + l for l in textwrap.wrap(banner, 112)) + " */\n")
            f.write("static const struct test_version_cap {\n    int version;\n    test_arith arith;\n"
                    "    double cap, worst;\n    int cases;\n} test_version_caps[] = {\n")
            for version, model, cap, norm, count, name, margin in rows:
                f.write(f"    {{{version}, {MODELS[model][1]}, {up3(cap)}, {norm:.3g}, {count}}}, /* {name}"
                        f"{', margin ' + format(margin, 'g') if margin != a.margin else ''} */\n")
            f.write("};\n")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""sass_digest.py - fingerprints of the SASS of every kernel in CUDA objects, and their comparison (a tool
script: it reads build outputs, nothing of the library uses it).

A restructure of the kernel files should leave the machine code alone; this says whether it did.

    scripts/sass_digest.py digest OBJ...  > digest.txt
        one line per kernel: "md5-of-its-SASS-body normalized-mangled-name object-file". The body is the
        instruction text of `cuobjdump --dump-sass` without addresses and encodings; in the name, the
        anonymous namespace (its hash depends on the source path) becomes ANON.

    scripts/sass_digest.py compare [--bodies] --before A.txt [--before A2.txt ...] --after B.txt [...]
        by name and body (default), or by body alone (--bodies: for kernels that moved between files or
        whose template parameter lists changed), each kernel of one side matched to at most one of the
        other. Exit status 0 when every kernel has its match, 1 otherwise, listing the unmatched ones.

    scripts/sass_digest.py delta --before OBJ... --after OBJ...
        what a change added to or removed from each kernel: kernels matched by their name without its
        parameter list (demangled with c++filt, so that a parameter added keeps the match; with the object's
        file name where one side has the name twice); per kernel, the instructions whose count differs
        (registers, predicates and branch targets masked, a uniform-datapath form such as ULDC or UISETP
        counted as its vector form, NOPs left out, order ignored), and one net count for the integer-arithmetic
        and move forms (INTEGER_FORMS) that ptxas picks among for the same work (IADD3, VIADD or IMAD.IADD for
        an add, MOV or IMAD.MOV for a move, ...), which any change reshuffles. Kernels with the same difference
        are listed under it together. Exit status 0 when every kernel has its match.

ptxas is not deterministic for every kernel: the same PTX can come out with other register assignments
from one run to the next (it depends on the address-space layout; `setarch -R` makes one build repeatable,
but any change of the module may still flip it). So each side may be several builds of the same tree
(one digest file each): a kernel's bodies are then every body it had in those builds, and two kernels
match when they share one. A kernel left unmatched after a few builds a side has code that changed.

Needs cuobjdump on PATH (the CUDA toolkit's bin/).
"""
import argparse
import collections
import hashlib
import re
import subprocess
import sys

FUNCTION = re.compile(r"Function : (\S+)")
INSTRUCTION = re.compile(r"\s*/\*[0-9a-f]{4,}\*/\s+(.*?;)")
NOP = re.compile(r"NOP\s*;")
ANON = re.compile(r"(\d+)_GLOBAL__N__")


def normalize(name):
    """The mangled name with each anonymous namespace (a <length><source name> token) replaced by ANON."""
    out, pos = [], 0
    for m in ANON.finditer(name):
        if m.start() < pos:
            continue
        out.append(name[pos:m.start()])
        out.append("ANON")
        pos = m.start() + len(m.group(1)) + int(m.group(1))
    out.append(name[pos:])
    return "".join(out)


def sass_bodies(obj):
    """[(mangled kernel name, [instruction text])] of one object, in cuobjdump's order"""
    try:
        run = subprocess.run(["cuobjdump", "--dump-sass", obj], capture_output=True, text=True)
    except FileNotFoundError:
        sys.exit("sass_digest.py: cuobjdump not found on PATH (the CUDA toolkit's bin/)")
    if run.returncode != 0:
        sys.exit(f"sass_digest.py: cuobjdump --dump-sass {obj}: {run.stderr.strip()}")
    kernels = []
    for line in run.stdout.splitlines():
        m = FUNCTION.search(line)
        if m:
            kernels.append((m.group(1), []))
            continue
        m = INSTRUCTION.match(line)
        if m and kernels:
            kernels[-1][1].append(m.group(1))
    return kernels


def digest(objects):
    for obj in objects:
        for name, body in sass_bodies(obj):
            print(hashlib.md5("\n".join(body).encode()).hexdigest(), normalize(name), obj.split("/")[-1])


def without_parameters(names):
    """{mangled name: its demangled name less the parameter list} (normalize's name where c++filt is missing)"""
    try:
        run = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True)
        demangled = run.stdout.splitlines() if run.returncode == 0 else []
    except FileNotFoundError:
        demangled = []
    if len(demangled) != len(names):
        return {n: normalize(n) for n in names}
    out = {}
    for mangled, text in zip(names, demangled):
        depth, end = 0, len(text)
        for i in range(len(text) - 1, -1, -1):  # the outermost (...) at the end is the parameter list
            depth += {")": 1, "(": -1}.get(text[i], 0)
            if depth == 0:
                end = i
                break
        out[mangled] = text[:end]
    return out


# ptxas's interchangeable forms of integer arithmetic and register moves: counted, not compared one by one
INTEGER_FORMS = re.compile(r"^(MOV|UMOV|IADD3|IADD3\.X|UIADD3|UIADD3\.X|VIADD|IMAD|IMAD\.\S+|UIMAD|UIMAD\.\S+|LEA|"
                           r"LEA\.HI|LEA\.HI\.X|ULEA|SHF\.\S+|USHF\.\S+|HFMA2\.MMA|SEL|USEL|P2R|R2P|CS2R|IABS)$")
MASKS = [(re.compile(r"\bU?R(\d+|Z)\b"), "R"), (re.compile(r"\bU?P(\d|T)\b"), "P"), (re.compile(r"\bB\d+\b"), "B"),
         (re.compile(r"\.reuse\b"), ""), (re.compile(r"\bS2UR\b"), "S2R"),
         (re.compile(r"\bU(LDC|ISETP|LOP3|PLOP3)\b"), r"\1")]  # the uniform datapath's forms as the vector ones
CONTROL = re.compile(r"^((?:@!?P )?(?:BRA|BRA\.DIV|BSSY|CALL\.\S+|RET\.\S+|WARPSYNC\.\S+|BREAK|JMP)\b.*?)0x[0-9a-f]+")


def masked(body):
    """(Counter of masked instructions outside INTEGER_FORMS, count of those in it) of one kernel"""
    counted, integer = collections.Counter(), 0
    for instruction in body:
        text = instruction
        for pattern, mask in MASKS:
            text = pattern.sub(mask, text)
        text = CONTROL.sub(r"\1ADDR", text)
        opcode = text.split()[1] if text.startswith("@") else text.split()[0]
        if INTEGER_FORMS.match(opcode.rstrip(";")):
            integer += 1  # a call's return address is one of them too: a MOV of an address
        else:
            counted[text] += 1
    return counted, integer


def delta(args):
    sides = []
    for objects in (args.before, args.after):
        found = []
        for obj in objects:
            kernels = sass_bodies(obj)
            short = without_parameters([name for name, _ in kernels])
            found += [(short[name], obj.split("/")[-1], [i for i in body if not NOP.fullmatch(i)])
                      for name, body in kernels]
        seen = collections.Counter(name for name, _, _ in found)
        sides.append({name if seen[name] == 1 else f"{name} ({obj})": body for name, obj, body in found})
    before, after = sides
    groups = collections.defaultdict(list)
    for key in sorted(set(before) & set(after)):
        (b, b_int), (a, a_int) = masked(before[key]), masked(after[key])
        change = [f"+{n} {i}" for i, n in sorted((a - b).items())] + [f"-{n} {i}" for i, n in sorted((b - a).items())]
        change.append(f"integer and move forms {a_int - b_int:+d}")
        total = len(after[key]) - len(before[key])
        groups[(f"instructions {total:+d}",) + tuple(change)].append(key)
    for change, kernels in sorted(groups.items(), key=lambda g: -len(g[1])):
        print(f"{len(kernels)} kernel{'s' if len(kernels) > 1 else ''}: " + "; ".join(change))
        for k in kernels:
            print(f"    {k}")
    unmatched = sorted(set(before) ^ set(after))
    for key in unmatched:
        print(f"unmatched ({'before' if key in before else 'after'} only): {key}")
    return 1 if unmatched else 0


def read_side(paths):
    """name -> set of bodies seen for it, over the builds (digest files) of one side"""
    kernels = collections.defaultdict(set)
    for path in paths:
        with open(path) as f:
            for line in f:
                fields = line.split()
                if len(fields) >= 2:
                    kernels[fields[1]].add(fields[0])
    return kernels


def match(before, after, by_name):
    """A maximum matching of after's kernels to before's: same name (unless not by_name) and a shared body."""
    owner = {}  # before name -> after name

    def candidates(a):
        if by_name:
            return [a] if a in before and before[a] & after[a] else []
        return [b for b in before if before[b] & after[a]]

    def augment(a, seen):
        for b in candidates(a):
            if b in seen:
                continue
            seen.add(b)
            if b not in owner or augment(owner[b], seen):
                owner[b] = a
                return True
        return False

    for a in sorted(after):
        augment(a, set())
    return owner


def compare(args):
    before, after = read_side(args.before), read_side(args.after)
    owner = match(before, after, not args.bodies)
    matched_after = set(owner.values())
    lost = sorted(b for b in before if b not in owner)
    new = sorted(a for a in after if a not in matched_after)
    mode = "bodies" if args.bodies else "name and body"
    print(f"{len(before)} kernels before, {len(after)} after, {len(owner)} matched by {mode}")
    for b in lost:
        print(f"  before only: {b}  ({', '.join(sorted(before[b]))})")
    for a in new:
        print(f"  after only:  {a}  ({', '.join(sorted(after[a]))})")
    return 0 if not lost and not new else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("digest", help="md5 of each kernel's SASS body")
    d.add_argument("objects", nargs="+")
    c = sub.add_parser("compare", help="compare digests of two trees")
    c.add_argument("--bodies", action="store_true", help="match by SASS body alone, ignoring names")
    c.add_argument("--before", action="append", required=True, help="digest of a build of the old tree")
    c.add_argument("--after", action="append", required=True, help="digest of a build of the new tree")
    e = sub.add_parser("delta", help="what a change added to or removed from each kernel's SASS")
    e.add_argument("--before", nargs="+", required=True, help="objects of the old tree")
    e.add_argument("--after", nargs="+", required=True, help="objects of the new tree")
    args = parser.parse_args()
    if args.command == "digest":
        digest(args.objects)
        return 0
    return delta(args) if args.command == "delta" else compare(args)


if __name__ == "__main__":
    sys.exit(main())

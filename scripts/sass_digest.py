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


def digest(objects):
    for obj in objects:
        try:
            run = subprocess.run(["cuobjdump", "--dump-sass", obj], capture_output=True, text=True)
        except FileNotFoundError:
            sys.exit("sass_digest.py: cuobjdump not found on PATH (the CUDA toolkit's bin/)")
        if run.returncode != 0:
            sys.exit(f"sass_digest.py: cuobjdump --dump-sass {obj}: {run.stderr.strip()}")
        name, body = None, []

        def flush():
            if name:
                md5 = hashlib.md5("\n".join(body).encode()).hexdigest()
                print(md5, normalize(name), obj.split("/")[-1])

        for line in run.stdout.splitlines():
            m = FUNCTION.search(line)
            if m:
                flush()
                name, body = m.group(1), []
                continue
            m = INSTRUCTION.match(line)
            if m and name:
                body.append(m.group(1))
        flush()


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
    args = parser.parse_args()
    if args.command == "digest":
        digest(args.objects)
        return 0
    return compare(args)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""sass_loops.py - instruction mix of each loop in a SASS listing (cuobjdump --dump-sass output).

Usage: cuobjdump --dump-sass build/obj/kernels/X.cu.o | scripts/sass_loops.py [--function SUBSTRING]
For every function, prints its total instruction mix, then each backward branch's loop body
(from the branch target to the branch) with its instruction count by opcode, and the FFMA share.
"""
import re, sys, collections

def parse(lines):
    funcs, cur = [], None
    for line in lines:
        m = re.search(r"Function : (\S+)", line)
        if m:
            cur = {"name": m.group(1), "ins": []}
            funcs.append(cur)
            continue
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
        if m and cur is not None:
            addr = int(m.group(1), 16)
            text = m.group(2).strip()
            op = re.sub(r"^@!?U?P\w+\s+", "", text).split()[0]
            cur["ins"].append((addr, op, text))
    return funcs

def mix(ins):
    c = collections.Counter(op.split(".")[0] for _, op, _ in ins)
    total = sum(c.values())
    ffma = c.get("FFMA", 0)
    top = ", ".join("%s %d" % kv for kv in c.most_common(12))
    return total, ffma, top

def main():
    want = sys.argv[sys.argv.index("--function") + 1] if "--function" in sys.argv else ""
    for f in parse(sys.stdin):
        if want not in f["name"]:
            continue
        total, ffma, top = mix(f["ins"])
        print("== %s\n   %d instructions, FFMA %d (%.1f%%): %s" % (f["name"], total, ffma, 100.0 * ffma / max(total, 1), top))
        addrs = [a for a, _, _ in f["ins"]]
        for a, op, text in f["ins"]:
            m = re.search(r"BRA\s+(?:`\(\.L_x_\d+\)\s*)?0x([0-9a-f]+)", text) or re.search(r"BRA\s+.*?0x([0-9a-f]+)", text)
            if op.startswith("BRA") and m:
                target = int(m.group(1), 16)
                if target < a:
                    body = [i for i in f["ins"] if target <= i[0] <= a]
                    t, ff, top = mix(body)
                    print("   loop 0x%x-0x%x: %d instructions, FFMA %d (%.1f%%): %s" % (target, a, t, ff, 100.0 * ff / max(t, 1), top))

if __name__ == "__main__":
    main()

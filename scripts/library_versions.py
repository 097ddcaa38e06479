"""library_versions.py - the kernel versions libcgp holds, by name ("fp32-v9", "tf32-v21", "3xtf32-v12"), read from
the table of kernels/fused/dispatch.cu (CGP_KERNEL_VERSIONS' X rows): what the scripts that fit or derive something
per version from recorded runs (fit_cost_model.py, tolerance_caps.py) keep, so a version that left the library
(docs/perf-log.md, "Retired versions") stays out of what they write, however many old runs name it. Stdlib only.
"""
import os
import re

DISPATCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kernels", "fused", "dispatch.cu")
PREFIXES = {"fp32": "fp32", "tf32": "tf32", "tf32x3": "3xtf32"}


def library_versions(path=DISPATCH):
    """the set of version names in the table of dispatch.cu"""
    with open(path) as f:
        rows = re.findall(r"X\(cgp_kernel_(fp32|tf32x3|tf32)_v(\d+)\)", f.read())
    if not rows:
        raise SystemExit(f"{path}: no CGP_KERNEL_VERSIONS rows")
    return {f"{PREFIXES[p]}-v{n}" for p, n in rows}

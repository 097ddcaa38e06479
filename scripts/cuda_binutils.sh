#!/usr/bin/env bash
# cuda_binutils.sh - prints the directory holding cuobjdump and nvdisasm (what tests/cpu/cpu_sass.sh
# reads SASS with), looked for on PATH, beside nvcc, and in site-packages/nvidia/cu13/bin of python3
# (where the PyPI packages nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm put them). Exit 1 if none.
#   bash scripts/cuda_binutils.sh             the directory, or exit 1
#   bash scripts/cuda_binutils.sh --install   first pip-installs the CUDA 13 packages if none is found (CI)
set -euo pipefail
version=13.2.86

find_dir() {
    local d
    for d in "$(dirname "$(command -v cuobjdump 2>/dev/null || echo /nonexistent/x)")" \
             "$(dirname "$(command -v nvcc 2>/dev/null || echo /nonexistent/x)")"; do
        [ -x "$d/cuobjdump" ] && [ -x "$d/nvdisasm" ] && { echo "$d"; return 0; }
    done
    command -v python3 >/dev/null || return 1
    python3 - <<'PY'
import os, site, sys
dirs = site.getsitepackages() + [site.getusersitepackages()]
for d in dirs:
    b = os.path.join(d, "nvidia", "cu13", "bin")
    if all(os.access(os.path.join(b, t), os.X_OK) for t in ("cuobjdump", "nvdisasm")):
        print(b)
        sys.exit(0)
sys.exit(1)
PY
}

if [ "${1:-}" = --install ] && ! find_dir >/dev/null; then
    echo "cuda_binutils: pip install nvidia-cuda-cuobjdump==$version nvidia-cuda-nvdisasm==$version" >&2
    python3 -m pip install --quiet "nvidia-cuda-cuobjdump==$version" "nvidia-cuda-nvdisasm==$version" >&2
fi
find_dir

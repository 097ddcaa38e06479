# cuobjdump.sh - sourced by the SASS tests (tests/cpu/cpu_sass.sh, cpu_probes_sass.sh) from the repository
# root: require_cuobjdump PROGRAM puts the directory of cuobjdump and nvdisasm on PATH (scripts/cuda_binutils.sh
# finds it: on PATH, beside nvcc, or from PyPI in python3's site-packages/nvidia/cu13/bin, where .ci/run
# installs it), or prints PROGRAM's SKIP line for the rest of its cases and exits the test with 0.
require_cuobjdump() {
    local tools
    if tools=$(bash scripts/cuda_binutils.sh); then
        PATH=$tools:$PATH
        return 0
    fi
    echo "SKIP $1: cuobjdump not found on PATH, beside nvcc or in python3's site-packages/nvidia/cu13/bin" \
         "(pip install nvidia-cuda-cuobjdump==13.2.86 nvidia-cuda-nvdisasm==13.2.86) (skips the rest of the program)"
    exit 0
}

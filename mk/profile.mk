# mk/profile.mk - `make profile`: Nsight Compute metrics of the fused kernels (scripts/profile.sh).
#
#   make profile [BUILD=build] [PROFILE_ARGS='...'] [PROFILE_REGEX='fused_|tc_conv'] [NCU=/path/to/ncu]
#
# Runs `cgp bench $(PROFILE_ARGS)` under ncu --clock-control none, profiling the kernels whose
# function name matches PROFILE_REGEX, and prints duration, SM clock, DRAM bytes read and
# written, FFMA executed, FP32- and tensor-pipe utilization, issue-slot utilization, achieved
# occupancy and registers per thread of each launch. The report and the raw output go to
# $(BUILD)/profile/. Says so and succeeds when ncu, a GPU or the performance counters are not
# available; fails when the run itself fails. See docs/roofline.md, "Profiling".

PROFILE_ARGS ?= --baselines none --precision all --iters 1 --warmup 0
PROFILE_REGEX ?= fused_|tc_conv

.PHONY: profile
profile: $(BUILD)/cgp
	PROFILE_REGEX='$(PROFILE_REGEX)' bash scripts/profile.sh $(BUILD)/cgp $(BUILD)/profile $(PROFILE_ARGS)

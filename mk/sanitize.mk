# mk/sanitize.mk - `make sanitize`: compute-sanitizer over every kernel version, both reductions and
# both paddings on small shapes (partial tiles, several input-channel chunks, K split;
# tests/gpu/sanitize_main.c), with each of memcheck, racecheck, synccheck and initcheck, plus memcheck
# on the default problem. Needs a GPU and compute-sanitizer (from the CUDA toolkit). The full log goes
# to $(BUILD)/sanitize.log; the last lines summarise the errors per tool. Fails if a tool reports an
# error or a run fails its check. The runs go at once (separate processes on one GPU), each tool split into
# processes that take the runs as they come free (CGP_SANITIZE_CLAIMS: a directory a tool's processes share, where
# each run is claimed by one): SANITIZE_SHARDS of them; racecheck, the slowest tool (up to 170 s a run where memcheck
# takes 0.5), SANITIZE_RACECHECK_SHARDS, each plan run once (--once).
# CGP_SANITIZE_KERNELS="16 18" (in the environment) limits the runs to those kernel versions.

SANITIZER ?= compute-sanitizer
SANITIZE_DRIVER := $(BUILD)/sanitize_main

# the driver links libcgp_tool.so (the Makefile) and finds it beside itself
$(SANITIZE_DRIVER): TOOL_RPATH = $$ORIGIN
$(SANITIZE_DRIVER): tests/gpu/sanitize_main.c $(TOOL_SO)
	$(CC) $(filter-out -MMD -MP,$(CFLAGS)) -o $@ $< $(TOOL_LINK)

.PHONY: sanitize
# the runs at once, each in its own process with its own log (they share nothing but the GPU; the slowest sets
# the time), then their logs one after the other into $(BUILD)/sanitize.log. A run is tool[--argument][@i.k]: the
# i-th of k processes of tool[--argument], which share the claims directory $(BUILD)/sanitize-claims/tool[--argument].
SANITIZE_SHARDS ?= 2
SANITIZE_RACECHECK_SHARDS ?= 16
sanitize_shards = $(foreach i,$(shell seq 0 $$(($(2) - 1))),$(1)@$(i).$(2))
SANITIZE_RUNS := $(call sanitize_shards,memcheck,$(SANITIZE_SHARDS)) \
                 $(call sanitize_shards,racecheck--once,$(SANITIZE_RACECHECK_SHARDS)) \
                 $(call sanitize_shards,synccheck,$(SANITIZE_SHARDS)) \
                 $(call sanitize_shards,initcheck,$(SANITIZE_SHARDS)) memcheck--default
sanitize: $(SANITIZE_DRIVER)
	@command -v $(SANITIZER) >/dev/null || { echo "sanitize: $(SANITIZER) not found (CUDA toolkit bin/)"; exit 1; }
	@rm -rf $(BUILD)/sanitize.log $(BUILD)/sanitize-*.log $(BUILD)/sanitize-claims; start=$$(date +%s); \
	for run in $(SANITIZE_RUNS); do \
	  spec=$${run%%@*}; claims=$(BUILD)/sanitize-claims/$$spec; mkdir -p $$claims || exit 1; \
	  tool=$${spec%%--*}; args=$$( [ "$$spec" = "$$tool" ] || echo "--$${spec#*--}" ); \
	  part=$$( [ "$$spec" = "$$run" ] || echo "process $${run#*@}, " | tr . /); \
	  ( echo "== compute-sanitizer --tool $$tool $(SANITIZE_DRIVER) $$args ($${part}CGP_SANITIZE_CLAIMS=$$claims)"; \
	    CGP_SANITIZE_CLAIMS=$$claims $(SANITIZER) --tool $$tool --error-exitcode 99 $(SANITIZE_DRIVER) $$args 2>&1; \
	    echo "exit $$?" ) > $(BUILD)/sanitize-$$run.log & \
	done; wait; failed=0; \
	for run in $(SANITIZE_RUNS); do \
	  log=$(BUILD)/sanitize-$$run.log; cat $$log >> $(BUILD)/sanitize.log; \
	  rc=$$(tail -n 1 $$log | sed -n 's/^exit //p'); \
	  summary=$$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" $$log | tail -1); \
	  echo "$$(head -n 1 $$log)"; \
	  echo "   exit $$rc; $$summary; $$(grep -c "^PASS" $$log) checked runs, $$(grep -c "^FAIL" $$log) failed" | \
	    tee -a $(BUILD)/sanitize.log; \
	  [ "$$rc" = 0 ] || failed=1; \
	done; rm -rf $(BUILD)/sanitize-*.log $(BUILD)/sanitize-claims; \
	grep -E "^FAIL" $(BUILD)/sanitize.log; \
	echo "sanitize: $$( [ $$failed -eq 0 ] && echo 'no errors' || echo 'ERRORS (see $(BUILD)/sanitize.log)') in $$(( $$(date +%s) - start )) s"; \
	exit $$failed

# mk/sanitize.mk - `make sanitize`: compute-sanitizer over every kernel version, both reductions and
# both paddings on small shapes (partial tiles, several input-channel chunks, K split;
# tests/gpu/sanitize_main.c), with each of memcheck, racecheck, synccheck and initcheck, plus memcheck
# on the default problem. Needs a GPU and compute-sanitizer (from the CUDA toolkit). The full log goes
# to $(BUILD)/sanitize.log; the last lines summarise the errors per tool. Fails if a tool reports an
# error or a run fails its check.
# CGP_SANITIZE_KERNELS="17 18" (in the environment) limits the runs to those kernel versions.

SANITIZER ?= compute-sanitizer
SANITIZE_DRIVER := $(BUILD)/sanitize_main

$(SANITIZE_DRIVER): tests/gpu/sanitize_main.c $(BUILD)/libcgp_tool.a $(BUILD)/libcgp.a
	$(CC) $(filter-out -MMD -MP,$(CFLAGS)) -o $@ $< $(TOOL_LINK)

.PHONY: sanitize
sanitize: $(SANITIZE_DRIVER)
	@command -v $(SANITIZER) >/dev/null || { echo "sanitize: $(SANITIZER) not found (CUDA toolkit bin/)"; exit 1; }
	@rm -f $(BUILD)/sanitize.log; failed=0; \
	for run in "memcheck" "racecheck" "synccheck" "initcheck" "memcheck --default"; do \
	  set -- $$run; tool=$$1; shift; \
	  echo "== compute-sanitizer --tool $$tool $(SANITIZE_DRIVER) $$*" | tee -a $(BUILD)/sanitize.log; \
	  $(SANITIZER) --tool $$tool --error-exitcode 99 $(SANITIZE_DRIVER) $$* >> $(BUILD)/sanitize.log 2>&1; rc=$$?; \
	  summary=$$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" $(BUILD)/sanitize.log | tail -1); \
	  runs=$$(grep -c "^PASS" $(BUILD)/sanitize.log); \
	  echo "   exit $$rc; $$summary; $$runs checked runs so far" | tee -a $(BUILD)/sanitize.log; \
	  [ $$rc -eq 0 ] || failed=1; \
	done; \
	grep -E "^FAIL" $(BUILD)/sanitize.log; \
	echo "sanitize: $$( [ $$failed -eq 0 ] && echo 'no errors' || echo 'ERRORS (see $(BUILD)/sanitize.log)')"; \
	exit $$failed

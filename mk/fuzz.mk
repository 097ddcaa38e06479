# mk/fuzz.mk - `make fuzz`: libFuzzer runs of the .npy parser, the command-line option parser, the CSV reader and
# the zoo file parser.
#
#   make fuzz [FUZZ_SECONDS=60] [BUILD=build]
#
# Builds $(BUILD)/fuzz/fuzz_<target> for each of FUZZ_TARGETS (tests/fuzz/fuzz_<target>.c) with clang
# -fsanitize=fuzzer,address,undefined, runs each for FUZZ_SECONDS seconds starting from the seed
# corpus tests/fuzz/corpus_<target>/ (new inputs go to $(BUILD)/fuzz/corpus_<target>/; the seeds
# are not touched), prints the executions of each target, and fails if one crashed. A crash input
# is written as $(BUILD)/fuzz/crashes/<target>-crash-<sha1>; rerun it with
# $(BUILD)/fuzz/fuzz_<target> <that file>. Needs clang and the libFuzzer runtime
# (scripts/ci_fuzz_deps.sh installs them). See docs/testing.md.

FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_TARGETS := npy options csv zoo
FUZZ_CFLAGS := -std=c11 -g -O1 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -Ihost/io -Ihost/cli \
               -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

$(FUZZ_DIR)/fuzz_npy: tests/fuzz/fuzz_npy.c host/io/npy.c host/io/message.c host/io/outfile.c host/io/npy.h host/io/outfile.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(filter %.c,$^)

$(FUZZ_DIR)/fuzz_options: tests/fuzz/fuzz_options.c host/cli/options.c host/io/message.c host/cli/options.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(filter %.c,$^) -lm

$(FUZZ_DIR)/fuzz_csv: tests/fuzz/fuzz_csv.c host/io/csv_read.c host/io/message.c host/io/csv_read.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(filter %.c,$^)

# the zoo parser's layer (host/bench) sees include/cgp.h; zoo_load's built-in zoo is the generated one
$(FUZZ_DIR)/fuzz_zoo: tests/fuzz/fuzz_zoo.c host/bench/zoo.c host/io/csv_read.c host/io/message.c $(ZOO_BUILTIN_C) \
                      host/bench/zoo.h host/io/csv_read.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Iinclude -Ihost/bench -o $@ $(filter %.c,$^)

.PHONY: fuzz
fuzz: $(patsubst %,$(FUZZ_DIR)/fuzz_%,$(FUZZ_TARGETS))
	@failed=0; for t in $(FUZZ_TARGETS); do \
	    log=$(FUZZ_DIR)/fuzz_$$t.log; mkdir -p $(FUZZ_DIR)/corpus_$$t $(FUZZ_DIR)/crashes; \
	    echo "== fuzz_$$t: $(FUZZ_SECONDS) s (log $$log)"; \
	    $(FUZZ_DIR)/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 -print_final_stats=1 \
	        -dict=tests/fuzz/$$t.dict -artifact_prefix=$(FUZZ_DIR)/crashes/$$t- \
	        $(FUZZ_DIR)/corpus_$$t tests/fuzz/corpus_$$t >$$log 2>&1; rc=$$?; \
	    execs=$$(sed -n 's/^stat::number_of_executed_units: *//p' $$log); \
	    rate=$$(sed -n 's/^stat::average_exec_per_sec: *//p' $$log); \
	    secs=$$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' $$log); \
	    corpus=$$(ls $(FUZZ_DIR)/corpus_$$t | wc -l); \
	    if [ $$rc -eq 0 ]; then \
	        echo "fuzz_$$t: $${execs:-?} executions in $${secs:-?} s ($${rate:-?}/s), no crash; corpus $$corpus inputs"; \
	    else \
	        failed=1; tail -n 40 $$log; \
	        echo "FAIL fuzz_$$t: exit code $$rc after $${execs:-?} executions; inputs:"; \
	        ls -1 $(FUZZ_DIR)/crashes/$$t-* 2>/dev/null; \
	    fi; \
	done; exit $$failed

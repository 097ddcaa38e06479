/*
 * testlib.h - the few helpers every C test uses. A test prints one line per case:
 *     PASS <name>            FAIL <name>: <why>            SKIP <name>: <why>
 * tests/run_tests.sh counts those lines. A test program exits 1 if any case failed.
 * Skips cannot hide failures:
 *   - TEST_SKIP is a FAIL when CGP_TEST_REQUIRE_GPU=1 (the H200 runs set it): there, every case must run;
 *   - the one exception is TEST_NAMED_REFUSAL, a refusal the test lists by name with its status (the
 *     cuDNN engines cuDNN will not build, tests/gpu/gpu_baselines.c), which stays a SKIP;
 *   - test_skip_rest names the reason a program skips all its remaining cases; its line ends in
 *     TEST_SKIPS_REST, and tests/run_tests.sh counts it as the cases tests/case_counts.txt says the
 *     program has, less those it reported.
 */
#ifndef CGP_TESTLIB_H
#define CGP_TESTLIB_H

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TEST_SKIPS_REST "(skips the rest of the program)"
#define TEST_NAMED_REFUSAL_TAG "named refusal: "

static int testlib_failures;

static inline void test_vreport(const char *status, const char *name, const char *prefix, const char *fmt,
                                va_list ap)
{
    printf("%s %s", status, name);
    if (fmt) {
        printf(": %s", prefix);
        vprintf(fmt, ap);
    }
    printf("\n");
    fflush(stdout);
    if (status[0] == 'F')
        testlib_failures++;
}

static inline void test_report(const char *status, const char *name, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    test_vreport(status, name, "", fmt, ap);
    va_end(ap);
}

static inline int test_require_gpu(void)
{
    const char *v = getenv("CGP_TEST_REQUIRE_GPU");
    return v && v[0] == '1';
}

/* SKIP with the reason, or a FAIL with CGP_TEST_REQUIRE_GPU=1 */
static inline void test_skip(const char *name, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (test_require_gpu())
        test_vreport("FAIL", name, "CGP_TEST_REQUIRE_GPU=1 allows no skip: ", fmt, ap);
    else
        test_vreport("SKIP", name, "", fmt, ap);
    va_end(ap);
}

/* A refusal the test allows by name (with the status it expects): SKIP even with CGP_TEST_REQUIRE_GPU=1. */
static inline void test_named_refusal(const char *name, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    test_vreport("SKIP", name, TEST_NAMED_REFUSAL_TAG, fmt, ap);
    va_end(ap);
}

/* The program skips all its remaining cases for this reason (a FAIL with CGP_TEST_REQUIRE_GPU=1). */
static inline void test_skip_rest(const char *program, const char *why)
{
    test_skip(program, "%s %s", why, TEST_SKIPS_REST);
}

#define TEST_PASS(name) test_report("PASS", (name), NULL)
#define TEST_FAIL(name, ...) test_report("FAIL", (name), __VA_ARGS__)
#define TEST_SKIP(name, ...) test_skip((name), __VA_ARGS__)
#define TEST_NAMED_REFUSAL(name, ...) test_named_refusal((name), __VA_ARGS__)
/* PASS or FAIL on a condition; the message says what was expected */
#define TEST_EXPECT(name, cond, ...)                                                                       \
    do {                                                                                                   \
        if (cond)                                                                                          \
            TEST_PASS(name);                                                                               \
        else                                                                                               \
            TEST_FAIL(name, __VA_ARGS__);                                                                  \
    } while (0)

static inline int test_exit_code(void) { return testlib_failures ? 1 : 0; }

/* The whole file at path, NUL-terminated, in memory the caller frees; NULL when it cannot be opened or read */
static inline char *test_read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
        free(text);
        text = NULL;
    }
    if (text)
        text[n] = '\0';
    fclose(f);
    return text;
}

/* A fresh scratch directory <CGP_TEST_TMP or /tmp>/<program>.XXXXXX into dir (cap bytes). Returns 0, or -1
 * after a FAIL line naming what could not be made. */
static inline int test_scratch_dir(char *dir, size_t cap, const char *program)
{
    const char *tmp = getenv("CGP_TEST_TMP") ? getenv("CGP_TEST_TMP") : "/tmp";
    snprintf(dir, cap, "%s/%s.XXXXXX", tmp, program);
    if (mkdtemp(dir))
        return 0;
    test_report("FAIL", program, "cannot create a scratch directory %s: %s", dir, strerror(errno));
    return -1;
}

/* The seed of a suite's random inputs: time-based, printed, or CGP_TEST_SEED to repeat a run. */
static inline uint64_t test_seed(const char *suite)
{
    const char *s = getenv("CGP_TEST_SEED");
    const uint64_t seed = s && s[0] ? strtoull(s, NULL, 10) : (uint64_t)time(NULL) * 2654435761ULL;
    printf("# %s: fresh random inputs, seed %llu (CGP_TEST_SEED=%llu repeats this run)\n", suite,
           (unsigned long long)seed, (unsigned long long)seed);
    return seed;
}

#endif

/*
 * testlib.h - the few helpers every C test uses. A test prints one line per case:
 *     PASS <name>            FAIL <name>: <why>            SKIP <name>: <why>
 * tests/run_tests.sh counts those lines. A test program exits 1 if any case failed.
 * GPU tests call test_gpu_available(): without a device they SKIP with the reason, unless
 * CGP_TEST_REQUIRE_GPU=1 is set (the H200 run sets it), which turns that into a FAIL.
 */
#ifndef CGP_TESTLIB_H
#define CGP_TESTLIB_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int testlib_failures;

static inline void test_report(const char *status, const char *name, const char *fmt, ...)
{
    printf("%s %s", status, name);
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        printf(": ");
        vprintf(fmt, ap);
        va_end(ap);
    }
    printf("\n");
    fflush(stdout);
    if (status[0] == 'F')
        testlib_failures++;
}

#define TEST_PASS(name) test_report("PASS", (name), NULL)
#define TEST_FAIL(name, ...) test_report("FAIL", (name), __VA_ARGS__)
#define TEST_SKIP(name, ...) test_report("SKIP", (name), __VA_ARGS__)
/* PASS or FAIL on a condition; the message says what was expected */
#define TEST_EXPECT(name, cond, ...)                                                                       \
    do {                                                                                                   \
        if (cond)                                                                                          \
            TEST_PASS(name);                                                                               \
        else                                                                                               \
            TEST_FAIL(name, __VA_ARGS__);                                                                  \
    } while (0)

static inline int test_exit_code(void) { return testlib_failures ? 1 : 0; }

static inline int test_require_gpu(void)
{
    const char *v = getenv("CGP_TEST_REQUIRE_GPU");
    return v && v[0] == '1';
}

#endif

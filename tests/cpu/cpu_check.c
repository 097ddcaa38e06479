/*
 * cpu_check.c - the non-finite rules of host/bench/check.c, which every checked y of the tools and the GPU tests
 * goes through, without a GPU:
 *   - an element still holding the prefill (CHECK_UNWRITTEN_BITS, a NaN) fails as "never written", also where the
 *     reference is NaN (it passed there while NaN against NaN was equal and the prefill was a NaN);
 *   - a NaN the kernel computed (the GPU's canonical 0x7FFFFFFF, its negation 0xFFFFFFFF, C's NAN) passes where the
 *     reference is NaN, and the prefill is none of them;
 *   - an infinity passes only against the same infinity: -inf against +inf fails, in check_compare and in
 *     check_nonfinite_agrees even where a kernel may give NaN for an infinity (gpu_nonfinite's Winograd and
 *     tensor-core versions, which passed any non-finite value there);
 *   - a finite value where the reference is non-finite fails, and the reverse;
 *   - the report counts never-written elements apart from mismatches and points worst_index at the first one.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "testlib.h"

static float from_bits(uint32_t bits)
{
    float v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

/* check_compare of one element y against reference e (tolerance 1e-6) */
static check_report compare_one(float y, double e) { return check_compare(&y, &e, 1, 1e-6); }

int main(void)
{
    const float unwritten = from_bits(CHECK_UNWRITTEN_BITS), canonical = from_bits(0x7FFFFFFFu),
                negated = from_bits(0xFFFFFFFFu);
    const double inf = INFINITY;

    TEST_EXPECT("check the prefill is a NaN", isnan(unwritten), "CHECK_UNWRITTEN_BITS 0x%08X is not a NaN",
                CHECK_UNWRITTEN_BITS);
    TEST_EXPECT("check the prefill is no NaN a kernel computes",
                !check_never_written(canonical) && !check_never_written(negated) && !check_never_written(NAN) &&
                    !check_never_written(-NAN),
                "one of 0x7FFFFFFF, 0xFFFFFFFF, NAN, -NAN reads as never written");

    check_report r = compare_one(unwritten, NAN);
    TEST_EXPECT("check never written where the reference is NaN fails", !r.passed && r.never_written == 1,
                "passed %d, never written %lld", r.passed, (long long)r.never_written);
    r = compare_one(unwritten, 0.25);
    TEST_EXPECT("check never written where the reference is finite fails",
                !r.passed && r.never_written == 1 && r.nonfinite_mismatches == 0, "passed %d, never written %lld, "
                "mismatches %lld", r.passed, (long long)r.never_written, (long long)r.nonfinite_mismatches);
    r = compare_one(unwritten, inf);
    TEST_EXPECT("check never written where the reference is +inf fails", !r.passed && r.never_written == 1,
                "passed %d, never written %lld", r.passed, (long long)r.never_written);

    const float computed[] = {canonical, negated, NAN};
    int all_pass = 1;
    for (size_t i = 0; i < sizeof computed / sizeof computed[0]; ++i)
        all_pass = all_pass && compare_one(computed[i], NAN).passed;
    TEST_EXPECT("check a computed NaN where the reference is NaN passes", all_pass,
                "0x7FFFFFFF, 0xFFFFFFFF or NAN against a NaN reference failed");

    TEST_EXPECT("check +inf where the reference is +inf passes", compare_one(INFINITY, inf).passed, "it failed");
    TEST_EXPECT("check -inf where the reference is -inf passes", compare_one(-INFINITY, -inf).passed, "it failed");
    r = compare_one(-INFINITY, inf);
    TEST_EXPECT("check -inf where the reference is +inf fails", !r.passed && r.nonfinite_mismatches == 1,
                "passed %d, mismatches %lld", r.passed, (long long)r.nonfinite_mismatches);
    TEST_EXPECT("check +inf where the reference is -inf fails", !compare_one(INFINITY, -inf).passed, "it passed");
    TEST_EXPECT("check NaN where the reference is +inf fails", !compare_one(canonical, inf).passed, "it passed");
    TEST_EXPECT("check +inf where the reference is NaN fails", !compare_one(INFINITY, NAN).passed, "it passed");
    TEST_EXPECT("check a finite value where the reference is NaN fails", !compare_one(0.25f, NAN).passed, "it passed");
    TEST_EXPECT("check a finite value where the reference is +inf fails", !compare_one(3e38f, inf).passed,
                "it passed");
    TEST_EXPECT("check NaN where the reference is finite fails", !compare_one(canonical, 0.25).passed, "it passed");

    /* the rule for kernels that mix inputs (gpu_nonfinite): NaN allowed for an infinity, the sign still holds */
    TEST_EXPECT("check mixing kernels: NaN where the reference is +inf agrees", check_nonfinite_agrees(canonical, inf, 1),
                "it does not");
    TEST_EXPECT("check mixing kernels: -inf where the reference is +inf disagrees",
                !check_nonfinite_agrees(-INFINITY, inf, 1), "it agrees");
    TEST_EXPECT("check mixing kernels: +inf where the reference is -inf disagrees",
                !check_nonfinite_agrees(INFINITY, -inf, 1), "it agrees");
    TEST_EXPECT("check mixing kernels: a finite value where the reference is +inf disagrees",
                !check_nonfinite_agrees(1.0f, inf, 1), "it agrees");
    TEST_EXPECT("check mixing kernels: +inf where the reference is NaN disagrees",
                !check_nonfinite_agrees(INFINITY, NAN, 1), "it agrees");
    TEST_EXPECT("check strict rule: NaN where the reference is +inf disagrees", !check_nonfinite_agrees(canonical, inf, 0),
                "it agrees");

    /* a y of 6 outputs, two never written among correct ones: counted apart, worst_index the first of them */
    const double ref[6] = {0.1, NAN, 0.3, inf, 0.5, 0.6};
    const float y[6] = {0.1f, canonical, unwritten, INFINITY, unwritten, 0.6f};
    r = check_compare(y, ref, 6, 1e-6);
    TEST_EXPECT("check report: never written counted apart, worst index the first",
                !r.passed && r.never_written == 2 && r.nonfinite_mismatches == 0 && r.worst_index == 2,
                "passed %d, never written %lld, mismatches %lld, worst index %lld", r.passed,
                (long long)r.never_written, (long long)r.nonfinite_mismatches, (long long)r.worst_index);
    const float written[6] = {0.1f, canonical, 0.3f, INFINITY, 0.5f, 0.6f};
    r = check_compare(written, ref, 6, 1e-6);
    TEST_EXPECT("check report: the same y written passes", r.passed && r.never_written == 0, "passed %d, rel L2 %.3g",
                r.passed, r.rel_l2_error);
    return test_exit_code();
}

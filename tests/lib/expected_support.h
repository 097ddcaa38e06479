/*
 * expected_support.h - what a kernel version must run, must refuse, or may do either with, derived from what it
 * declares (kernel_info.h's cgp_kernel_limits, with its kind's pipe and staging), never from its version number:
 * tests/cpu/cpu_paths.c holds every version's unsupported hook to it over a sweep of shapes on a described H200, and
 * the GPU tests on the GPU they run on.
 *   test_expected_support(k, p, d, wgmma_built)   TEST_MUST_RUN, TEST_MUST_REFUSE or TEST_MAY_RUN for version k,
 *       problem p, device d (wgmma_built: whether the build has sm_90a code, the Makefile's CGP_WGMMA_BUILT). A
 *       version may refuse what its limits allow on a GPU with less shared memory than it declares; past the limits
 *       it must refuse; everything else it must run. The test shapes are far below
 *       the 32-bit and grid limits every version has beyond these.
 */
#ifndef CGP_TEST_EXPECTED_SUPPORT_H
#define CGP_TEST_EXPECTED_SUPPORT_H

#include "kernel_api.h"

enum { TEST_MUST_REFUSE, TEST_MUST_RUN, TEST_MAY_RUN };

static inline int test_expected_support(const cgp_kernel_desc *k, const cgp_problem *p, const cgp_device_info *d,
                                        int wgmma_built)
{
    const cgp_kernel_kind *kind = &k->kind;
    const cgp_kernel_limits *l = &kind->limits;
    if (kind->pipe == CGP_PIPE_WGMMA && (!wgmma_built || d->cc_major != 9 || d->cc_minor != 0))
        return TEST_MUST_REFUSE;
    if (d->cc_major < l->cc_major || (d->cc_major == l->cc_major && d->cc_minor < l->cc_minor))
        return TEST_MUST_REFUSE;
    if ((l->cin_only && p->cin != l->cin_only) || (l->cout_only && p->cout != l->cout_only) ||
        (l->cin_max && p->cin > l->cin_max) || (l->cout_max && p->cout > l->cout_max) ||
        (l->pixels_per_cin && l->pixels_per_cin * p->cin > p->hout * p->wout) ||
        (kind->staging == CGP_STAGING_TMA && (p->w % 4 != 0 || !d->tma_encoder)))
        return TEST_MUST_REFUSE;
    if (d->smem_per_block_optin < l->smem_bytes)
        return TEST_MAY_RUN;
    return TEST_MUST_RUN;
}

#endif

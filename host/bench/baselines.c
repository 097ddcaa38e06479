/* baselines.c - row, memory and error-message helpers of the baseline bench rows (see baselines.h). */
#include "baselines.h"

#include <stdarg.h>
#include <string.h>

int baseline_reserve_rows(const char *family, int count, int max, int rows)
{
    if (count < 0 || max - count < rows) {
        fprintf(stderr, "cgp: no room for the %d %s bench rows (%d of %d rows used)\n", rows, family, count, max);
        return -1;
    }
    return 0;
}

void baseline_row_init(bench_variant *v, const char *name, const char *family, bench_precision precision)
{
    memset(v, 0, sizeof *v);
    snprintf(v->name, sizeof v->name, "%s", name);
    snprintf(v->family, sizeof v->family, "%s", family);
    v->precision = precision;
}

void baseline_row_unavailable(bench_variant *v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->unavailable, sizeof v->unavailable, fmt, ap);
    va_end(ap);
    if (v->unavailable[0] == '\0')
        snprintf(v->unavailable, sizeof v->unavailable, "unavailable");
    v->run = NULL;
    v->destroy = NULL;
    v->state = NULL;
}

int baseline_device_alloc(void **ptr, size_t bytes, const char *what, char *why, size_t why_size)
{
    *ptr = NULL;
    size_t free_bytes = 0, total_bytes = 0;
    cudaError_t err = cudaMemGetInfo(&free_bytes, &total_bytes);
    if (err != cudaSuccess) {
        baseline_cuda_describe(why, why_size, what, "cudaMemGetInfo", __FILE__, __LINE__, err);
        return -1;
    }
    if (bytes > free_bytes) {
        snprintf(why, why_size, "%s needs %zu B (%.2f GiB), only %zu B (%.2f GiB) of device memory free", what,
                 bytes, (double)bytes / (1u << 30), free_bytes, (double)free_bytes / (1u << 30));
        return -1;
    }
    err = cudaMalloc(ptr, bytes ? bytes : 1);
    if (err != cudaSuccess) {
        *ptr = NULL;
        snprintf(why, why_size, "%s: cudaMalloc of %zu B (%.2f GiB, %zu B reported free) failed: %s", what, bytes,
                 (double)bytes / (1u << 30), free_bytes, cudaGetErrorName(err));
        return -1;
    }
    return 0;
}

double baseline_fp32_bytes(int64_t count) { return 4.0 * (double)count; }

void baseline_cuda_describe(char *why, size_t why_size, const char *step, const char *call, const char *file,
                            int line, cudaError_t err)
{
    snprintf(why, why_size, "%s%s%.160s at %s:%d: %s: %s", step ? step : "", step ? ": " : "", call, file, line,
             cudaGetErrorName(err), cudaGetErrorString(err));
}

#if CGP_HAVE_CUDNN
void baseline_cudnn_describe(char *why, size_t why_size, const char *step, const char *call, const char *file,
                             int line, cudnnStatus_t status)
{
    char last[256];
    cudnnGetLastErrorString(last, sizeof last);
    snprintf(why, why_size, "%s%s%.160s at %s:%d: %s%s%s%s", step ? step : "", step ? ": " : "", call, file, line,
             cudnnGetErrorString(status), last[0] ? " (" : "", last, last[0] ? ")" : "");
}
#endif

/*
 * reference.c - CPU reference of the fused operation (see reference.h). Deliberately the plain
 * loop nest: zero padding is handled by skipping taps outside the image, every product and sum
 * is done in double, GELU uses libm erf.
 */
#include "reference.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

double reference_gelu(double v) { return 0.5 * v * (1.0 + erf(v / sqrt(2.0))); }

double reference_forward_one(const float *x, const float *w, const float *b, int64_t cin, int64_t h, int64_t wd,
                             int pad, int64_t n, int64_t c)
{
    const int64_t hout = h + 2 * pad - 2, wout = wd + 2 * pad - 2;
    const float *xn = x + n * cin * h * wd;
    const float *wc = w + c * cin * 9;
    double total = 0.0;
    for (int64_t oy = 0; oy < hout; ++oy) {
        for (int64_t ox = 0; ox < wout; ++ox) {
            double acc = (double)b[c];
            for (int64_t ci = 0; ci < cin; ++ci) {
                for (int ky = 0; ky < 3; ++ky) {
                    const int64_t iy = oy + ky - pad;
                    if (iy < 0 || iy >= h)
                        continue;
                    for (int kx = 0; kx < 3; ++kx) {
                        const int64_t ix = ox + kx - pad;
                        if (ix < 0 || ix >= wd)
                            continue;
                        acc += (double)xn[(ci * h + iy) * wd + ix] * (double)wc[ci * 9 + ky * 3 + kx];
                    }
                }
            }
            total += reference_gelu(acc);
        }
    }
    return total / ((double)hout * (double)wout);
}

typedef struct {
    const float *x, *w, *b;
    int64_t n, cin, cout, h, wd;
    int pad;
    double *y;
    int64_t begin, end; /* range of flattened (n, c) outputs */
} reference_job;

static void *reference_worker(void *arg)
{
    const reference_job *j = arg;
    for (int64_t i = j->begin; i < j->end; ++i)
        j->y[i] = reference_forward_one(j->x, j->w, j->b, j->cin, j->h, j->wd, j->pad, i / j->cout, i % j->cout);
    return NULL;
}

int reference_forward(const float *x, const float *w, const float *b, int64_t n, int64_t cin, int64_t cout,
                      int64_t h, int64_t wd, int pad, double *y, int threads)
{
    if (h + 2 * pad - 2 < 1 || wd + 2 * pad - 2 < 1)
        return -1;
    if (threads <= 0) {
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        threads = online > 0 ? (int)online : 1;
    }
    const int64_t outputs = n * cout;
    if (threads > outputs)
        threads = (int)outputs;
    enum { max_threads = 256 };
    if (threads > max_threads)
        threads = max_threads;
    pthread_t tid[max_threads];
    int created[max_threads];
    reference_job job[max_threads];
    for (int t = 0; t < threads; ++t) {
        job[t] = (reference_job){x, w, b, n, cin, cout, h, wd, pad, y, outputs * t / threads,
                                 outputs * (t + 1) / threads};
        created[t] = threads > 1 && pthread_create(&tid[t], NULL, reference_worker, &job[t]) == 0;
        if (!created[t])
            reference_worker(&job[t]); /* one thread, or no thread could be made: do it here */
    }
    for (int t = 0; t < threads; ++t)
        if (created[t])
            pthread_join(tid[t], NULL);
    return 0;
}

/*
 * torch_case.h - loads the PyTorch reference case, tests/data/torch_case/ (scripts/make_torch_case.py
 * writes it and its provenance README): x, w, b (float32, read by host/io/npy.h) and y_valid, y_same
 * (float64, PyTorch's F.conv2d -> F.gelu -> mean computed in float64; read here, the project's reader
 * being float32-only). $CGP_TEST_DATA points at another fixture directory (default tests/data).
 */
#ifndef CGP_TORCH_CASE_H
#define CGP_TORCH_CASE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npy.h"

enum { TORCH_N = 2, TORCH_CIN = 3, TORCH_COUT = 5, TORCH_H = 7, TORCH_W = 6 };

typedef struct torch_case {
    npy_array x, w, b;
    double y[2][TORCH_N * TORCH_COUT]; /* [padding] */
    char dir[512];
} torch_case;

static inline void torch_case_free(torch_case *t)
{
    npy_free(&t->x);
    npy_free(&t->w);
    npy_free(&t->b);
}

/* A (TORCH_N, TORCH_COUT) little-endian float64 .npy file, format 1.0, as numpy.save writes it. */
static inline int torch_case_read_y(const char *path, double *y, char *err, size_t errlen)
{
    static const int64_t count = TORCH_N * TORCH_COUT;
    unsigned char head[10];
    char header[512], want[160];
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open", path);
        return -1;
    }
    const size_t got = fread(head, 1, sizeof head, f);
    const size_t len = got == sizeof head ? (size_t)head[8] | (size_t)head[9] << 8 : 0;
    int ok = got == sizeof head && memcmp(head, "\x93NUMPY\x01\x00", 8) == 0 && len > 0 && len < sizeof header &&
             fread(header, 1, len, f) == len;
    if (ok) {
        header[len] = '\0';
        snprintf(want, sizeof want, "{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d), }", TORCH_N,
                 TORCH_COUT);
        ok = strncmp(header, want, strlen(want)) == 0 && fread(y, sizeof(double), (size_t)count, f) == (size_t)count &&
             fgetc(f) == EOF;
    }
    fclose(f);
    if (!ok)
        snprintf(err, errlen, "%s: not a (%d, %d) float64 .npy file of format 1.0", path, TORCH_N, TORCH_COUT);
    return ok ? 0 : -1;
}

/* Loads the case: 0, or -1 with err naming the file, and how to make the files when they are missing. */
static inline int torch_case_load(torch_case *t, char *err, size_t errlen)
{
    const char *data = getenv("CGP_TEST_DATA");
    memset(t, 0, sizeof *t);
    snprintf(t->dir, sizeof t->dir, "%s/torch_case", data && data[0] ? data : "tests/data");
    char path[600];
    snprintf(path, sizeof path, "%s/x.npy", t->dir);
    FILE *probe = fopen(path, "rb");
    if (!probe) {
        snprintf(err, errlen, "%s/x.npy is missing: make the case with `python3 scripts/make_torch_case.py DIR` "
                              "(DIR: that directory) on a machine with torch, and commit it", t->dir);
        return -1;
    }
    fclose(probe);
    static const char *names[3] = {"x", "w", "b"};
    npy_array *arrays[3] = {&t->x, &t->w, &t->b};
    const int64_t shapes[3][4] = {{TORCH_N, TORCH_CIN, TORCH_H, TORCH_W}, {TORCH_COUT, TORCH_CIN, 3, 3}, {TORCH_COUT}};
    const int ndims[3] = {4, 4, 1};
    for (int i = 0; i < 3; ++i) {
        snprintf(path, sizeof path, "%s/%s.npy", t->dir, names[i]);
        if (npy_read_f32(path, arrays[i], err, errlen) != 0 ||
            npy_expect_shape(arrays[i], path, ndims[i], shapes[i], names[i], err, errlen) != 0) {
            torch_case_free(t);
            return -1;
        }
    }
    for (int pad = 0; pad <= 1; ++pad) {
        snprintf(path, sizeof path, "%s/y_%s.npy", t->dir, pad ? "same" : "valid");
        if (torch_case_read_y(path, t->y[pad], err, errlen) != 0) {
            torch_case_free(t);
            return -1;
        }
    }
    return 0;
}

#endif

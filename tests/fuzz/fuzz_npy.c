/*
 * fuzz_npy.c - libFuzzer target for the .npy parser (host/io/npy.c, npy_parse_f32: the same code
 * npy_read_f32 runs). Any input must give either an array whose shape, count and data agree and
 * that survives a write-read round trip of its header, or a one-line message naming the file.
 * Built and run by `make fuzz` (mk/fuzz.mk); seeds in tests/fuzz/corpus_npy/.
 *
 *     make fuzz FUZZ_SECONDS=60        or, after it:  build/fuzz/fuzz_npy build/fuzz/crashes/npy-crash-...
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "npy.h"

#define CHECK(cond)                                                                                    \
    do {                                                                                               \
        if (!(cond))                                                                                   \
            __builtin_trap();                                                                          \
    } while (0)

static const char name[] = "fuzz.npy";

static void check_accepted(const npy_array *a)
{
    CHECK(a->ndim >= 0 && a->ndim <= NPY_MAX_DIMS && a->data != NULL);
    int64_t count = 1;
    for (int i = 0; i < a->ndim; ++i) {
        CHECK(a->shape[i] >= 0);
        count *= a->shape[i];
    }
    CHECK(count == a->count);

    /* the header npy_write_f32 would write for this shape, plus the data, parses to the same array */
    unsigned char header[1024];
    const size_t header_len = npy_header_f32(header, sizeof header, a->ndim, a->shape);
    CHECK(header_len > 0 && header_len % 64 == 0);
    const size_t data_bytes = (size_t)a->count * sizeof(float);
    unsigned char *file = malloc(header_len + data_bytes);
    CHECK(file != NULL);
    memcpy(file, header, header_len);
    memcpy(file + header_len, a->data, data_bytes);
    npy_array again;
    char err[512];
    CHECK(npy_parse_f32(file, header_len + data_bytes, name, &again, err, sizeof err) == 0);
    CHECK(again.ndim == a->ndim && again.count == a->count);
    CHECK(memcmp(again.shape, a->shape, sizeof a->shape) == 0);
    CHECK(memcmp(again.data, a->data, data_bytes) == 0);
    npy_free(&again);
    free(file);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    npy_array a;
    char err[512];
    if (npy_parse_f32(data, size, name, &a, err, sizeof err) == 0) {
        check_accepted(&a);
        npy_free(&a);
    } else {
        CHECK(strncmp(err, "fuzz.npy: ", 10) == 0 && strlen(err) > 10 && !strchr(err, '\n'));
        CHECK(a.data == NULL && a.ndim == 0 && a.count == 0);
    }
    return 0;
}

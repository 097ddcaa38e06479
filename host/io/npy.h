/*
 * npy.h - NumPy .npy files holding float32, read and written exactly as numpy.save does.
 *
 * Reading accepts format versions 1.0, 2.0 and 3.0, a header dict with the keys 'descr',
 * 'fortran_order' and 'shape' in any order, descr '<f4' (what numpy writes for float32 on
 * every machine: dtype.str always names the byte order), fortran_order False, 0 to 8
 * dimensions. Anything else is refused with one message "<file>: <problem>". The parser never
 * reads outside the given buffer; tests/fuzz/fuzz_npy.c fuzzes it, tests/cpu/cpu_npy.c tests it.
 *
 * Writing produces format 1.0 with the header numpy.save writes (same bytes), through
 * outfile.h, so a failed write leaves no file.
 */
#ifndef CGP_NPY_H
#define CGP_NPY_H

#include <stddef.h>
#include <stdint.h>

#define NPY_MAX_DIMS 8

typedef struct npy_array {
    int ndim;                     /* 0 (a scalar) to NPY_MAX_DIMS */
    int64_t shape[NPY_MAX_DIMS];  /* shape[0..ndim-1]; the rest are 0 */
    int64_t count;                /* product of the shape (1 for 0-d) */
    float *data;                  /* count floats, C order; malloc'd (never NULL after a read) */
} npy_array;

/* Parses a whole .npy file held in buf[0..len). name is the file name used in messages.
 * Returns 0 and fills out (free with npy_free), or -1 with "<name>: <problem>" in err and out
 * zeroed. */
int npy_parse_f32(const unsigned char *buf, size_t len, const char *name, npy_array *out,
                  char *err, size_t errlen);

/* Reads the .npy file at path (a regular file), with the same header parser and checks as
 * npy_parse_f32; the data is read straight into the array. Returns 0 or -1 (err as above). */
int npy_read_f32(const char *path, npy_array *out, char *err, size_t errlen);

/* Frees the data and zeroes the array; safe on a zeroed or freed array. */
void npy_free(npy_array *a);

/* Writes data (count floats, C order) as a format 1.0 .npy file. Returns 0, or -1 with
 * "<path>: <problem>" in err; on failure nothing is left at path (an old file stays as it was). */
int npy_write_f32(const char *path, const float *data, int ndim, const int64_t *shape, char *err,
                  size_t errlen);

/* The numpy.save header (magic, version 1.0, length, dict, padding, newline) for a float32
 * C-order array of this shape: writes it to buf if it fits in cap and returns its length
 * (a multiple of 64), or returns 0 if ndim or a dimension is out of range or cap is too small. */
size_t npy_header_f32(unsigned char *buf, size_t cap, int ndim, const int64_t *shape);

/* Writes a shape the way Python prints a tuple: "()", "(5,)", "(2, 3)". -1 entries print as
 * "any". Returns buf. */
char *npy_format_shape(char *buf, size_t cap, int ndim, const int64_t *shape);

/* Checks a's shape against an expected one, for callers that know what each input must be.
 * shape[i] == -1 accepts any size in that dimension. what names the array and may add its
 * symbolic shape after a space and "(": with what = "weight (Cout, Cin, 3, 3)" the message is
 *     "W.npy: weight must have shape (Cout, Cin, 3, 3) = (64, 8, 3, 3), got (64, 8, 5, 5)"
 * and with what = "bias" it is "b.npy: bias must have shape (64,), got (32,)".
 * Returns 0 if the shape matches, else -1 with that message in err. */
int npy_expect_shape(const npy_array *a, const char *path, int ndim, const int64_t *shape,
                     const char *what, char *err, size_t errlen);

#endif

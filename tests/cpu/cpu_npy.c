/*
 * cpu_npy.c - tests of host/io/npy.c (.npy reading and writing) and host/io/outfile.c (all-or-nothing
 * output files): round trips, the fixtures numpy wrote in tests/data/ (see its README.md),
 * byte-identical headers, every malformed-input message, and failed writes leaving no file.
 *
 *     make build/tests/cpu_npy && build/tests/cpu_npy      (run from the repository root)
 *
 * Environment: CGP_TEST_DATA (default tests/data), CGP_TEST_TMP (default /tmp) for scratch files.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "npy.h"
#include "outfile.h"
#include "testlib.h"

static char scratch[512]; /* a fresh directory for this run's files */
static const char *data_dir;

static int contains(const char *s, const char *sub) { return strstr(s, sub) != NULL; }

static const char *scratch_path(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "%s/%s", scratch, name);
    return buf;
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* number of "<...>.tmp.XXXXXX" files left in the scratch directory */
static int leftover_temporaries(void)
{
    DIR *d = opendir(scratch);
    int n = 0;
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += contains(e->d_name, ".tmp.");
    closedir(d);
    return n;
}

static long read_whole(const char *path, unsigned char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    const size_t n = fread(buf, 1, cap, f);
    const int more = fgetc(f) != EOF;
    fclose(f);
    return more ? -1 : (long)n;
}

/* a .npy file in memory: preamble for version major.0, the header text as given, then data_bytes
 * bytes of data (floats 0, 1, 2, ... while they fit) */
static size_t make_npy(unsigned char *buf, size_t cap, int major, const char *header, size_t data_bytes)
{
    const size_t hlen = strlen(header), length_bytes = major == 1 ? 2 : 4;
    const size_t prefix = 8 + length_bytes, total = prefix + hlen + data_bytes;
    if (total > cap) {
        fprintf(stderr, "make_npy: buffer too small\n");
        exit(1);
    }
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (unsigned char)major;
    buf[7] = 0;
    for (size_t i = 0; i < length_bytes; ++i)
        buf[8 + i] = (unsigned char)(hlen >> (8 * i));
    memcpy(buf + prefix, header, hlen);
    for (size_t i = 0; i < data_bytes; ++i) {
        const float v = (float)(i / sizeof(float));
        buf[prefix + hlen + i] = ((const unsigned char *)&v)[i % sizeof(float)];
    }
    return total;
}

static int shape_is(const npy_array *a, int ndim, const int64_t *shape)
{
    if (a->ndim != ndim)
        return 0;
    for (int i = 0; i < ndim; ++i)
        if (a->shape[i] != shape[i])
            return 0;
    return 1;
}

/* parsing buf must fail with a message starting "<case>.npy: " and containing each expected part */
static void expect_rejected(const char *name, const unsigned char *buf, size_t len, const char *part1,
                            const char *part2)
{
    char file[96], prefix[112], err[512];
    snprintf(file, sizeof file, "%s.npy", name);
    snprintf(prefix, sizeof prefix, "%s: ", file);
    npy_array a;
    const int rc = npy_parse_f32(buf, len, file, &a, err, sizeof err);
    if (rc == 0) {
        TEST_FAIL(name, "accepted (shape ndim %d, count %" PRId64 ")", a.ndim, a.count);
        npy_free(&a);
    } else if (strncmp(err, prefix, strlen(prefix)) != 0 || !contains(err, part1) ||
               (part2 && !contains(err, part2))) {
        TEST_FAIL(name, "message \"%s\" should start with \"%s\" and contain \"%s\"%s%s", err, prefix, part1,
                  part2 ? " and " : "", part2 ? part2 : "");
    } else if (a.data || a.ndim || a.count) {
        TEST_FAIL(name, "the array is not zeroed after a failure");
    } else {
        TEST_PASS(name);
    }
}

/* a header text with this dict, padded like numpy (spaces, newline) */
static void expect_header_rejected(const char *name, int major, const char *dict, size_t data_bytes,
                                   const char *part1, const char *part2)
{
    char header[1024];
    snprintf(header, sizeof header, "%s     \n", dict);
    unsigned char buf[2048];
    const size_t len = make_npy(buf, sizeof buf, major, header, data_bytes);
    expect_rejected(name, buf, len, part1, part2);
}

static void expect_header_accepted(const char *name, int major, const char *dict, size_t data_bytes,
                                   int ndim, const int64_t *shape)
{
    unsigned char buf[2048];
    const size_t len = make_npy(buf, sizeof buf, major, dict, data_bytes);
    npy_array a;
    char err[512];
    if (npy_parse_f32(buf, len, "ok.npy", &a, err, sizeof err) != 0) {
        TEST_FAIL(name, "%s", err);
        return;
    }
    char got[128], want[128];
    int values_ok = 1;
    for (int64_t i = 0; i < a.count; ++i)
        values_ok &= a.data[i] == (float)i;
    if (!shape_is(&a, ndim, shape))
        TEST_FAIL(name, "shape %s, expected %s", npy_format_shape(got, sizeof got, a.ndim, a.shape),
                  npy_format_shape(want, sizeof want, ndim, shape));
    else
        TEST_EXPECT(name, values_ok && a.data != NULL, "wrong values");
    npy_free(&a);
}

static void test_round_trips(void)
{
    static const struct { const char *name; int ndim; int64_t shape[8]; } cases[] = {
        {"round_trip_0d", 0, {0}},
        {"round_trip_1d", 1, {7}},
        {"round_trip_2d", 2, {3, 5}},
        {"round_trip_4d", 4, {2, 3, 4, 5}},
        {"round_trip_8d", 8, {1, 2, 1, 2, 1, 2, 1, 3}},
        {"round_trip_empty", 2, {0, 3}},
        {"round_trip_long_first_dim", 2, {123456789, 0}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        int64_t count = 1;
        for (int i = 0; i < cases[c].ndim; ++i)
            count *= cases[c].shape[i];
        float data[128];
        for (int64_t i = 0; i < count; ++i)
            data[i] = (float)i * 0.37f - 3.0f;
        if (count >= 3) { /* bit patterns must survive too */
            data[0] = -0.0f;
            data[1] = NAN;
            data[2] = -INFINITY;
        }
        char path[600], err[512];
        scratch_path(path, sizeof path, "round_trip.npy");
        npy_array a;
        if (npy_write_f32(path, data, cases[c].ndim, cases[c].shape, err, sizeof err) != 0) {
            TEST_FAIL(cases[c].name, "write: %s", err);
            continue;
        }
        struct stat st;
        stat(path, &st);
        const long header_bytes = (long)st.st_size - (long)(count * 4);
        if (npy_read_f32(path, &a, err, sizeof err) != 0) {
            TEST_FAIL(cases[c].name, "read: %s", err);
            continue;
        }
        if (!shape_is(&a, cases[c].ndim, cases[c].shape) || a.count != count)
            TEST_FAIL(cases[c].name, "shape or count differ after the round trip");
        else if (count && memcmp(a.data, data, (size_t)count * 4) != 0)
            TEST_FAIL(cases[c].name, "data differ after the round trip");
        else
            TEST_EXPECT(cases[c].name, header_bytes % 64 == 0 && a.data != NULL,
                        "data starts at byte %ld, not a multiple of 64", header_bytes);
        npy_free(&a);
    }
}

/* the fixtures numpy wrote (tests/data/README.md): values are known from the python commands */
static void test_numpy_fixtures(void)
{
    static const struct { const char *file; int ndim; int64_t shape[4]; float scale, offset; } cases[] = {
        {"f32_v1.npy", 2, {2, 3}, 0.25f, 0.0f},
        {"f32_v2.npy", 2, {2, 3}, 0.25f, 0.0f},
        {"f32_v3.npy", 2, {2, 3}, 0.25f, 0.0f},
        {"f32_0d.npy", 0, {0}, 0.0f, 1.5f},
        {"f32_1d.npy", 1, {5}, 1.0f, -2.0f},
        {"f32_4d.npy", 4, {2, 3, 2, 2}, 0.5f, 0.0f},
        {"f32_empty.npy", 2, {0, 3}, 0.0f, 0.0f},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        char path[600], name[96], err[512];
        snprintf(path, sizeof path, "%s/%s", data_dir, cases[c].file);
        snprintf(name, sizeof name, "numpy_fixture_%s", cases[c].file);
        npy_array a;
        if (npy_read_f32(path, &a, err, sizeof err) != 0) {
            TEST_FAIL(name, "%s", err);
            continue;
        }
        int ok = shape_is(&a, cases[c].ndim, cases[c].shape);
        for (int64_t i = 0; ok && i < a.count; ++i)
            ok = a.data[i] == (float)i * cases[c].scale + cases[c].offset;
        TEST_EXPECT(name, ok, "wrong shape or values");

        /* npy_write_f32 must reproduce numpy's bytes exactly (format 1.0 files only) */
        if (cases[c].file[4] == 'v' && cases[c].file[5] != '1') {
            npy_free(&a);
            continue;
        }
        snprintf(name, sizeof name, "same_bytes_as_numpy_%s", cases[c].file);
        char copy[600];
        scratch_path(copy, sizeof copy, "copy.npy");
        unsigned char want[512], got[512];
        const long want_len = read_whole(path, want, sizeof want);
        long got_len = -1;
        if (npy_write_f32(copy, a.data, a.ndim, a.shape, err, sizeof err) == 0)
            got_len = read_whole(copy, got, sizeof got);
        TEST_EXPECT(name, want_len > 0 && got_len == want_len && memcmp(want, got, (size_t)want_len) == 0,
                    "file differs from numpy's (%ld vs %ld bytes)", got_len, want_len);
        npy_free(&a);
    }
}

static void expect_fixture_rejected(const char *file, const char *part1, const char *part2)
{
    char path[600], name[96], err[512];
    snprintf(path, sizeof path, "%s/%s", data_dir, file);
    snprintf(name, sizeof name, "numpy_fixture_rejected_%s", file);
    npy_array a;
    if (npy_read_f32(path, &a, err, sizeof err) == 0) {
        TEST_FAIL(name, "accepted");
        npy_free(&a);
        return;
    }
    TEST_EXPECT(name, contains(err, path) && contains(err, part1) && (!part2 || contains(err, part2)),
                "message \"%s\" should name %s and say \"%s\"", err, path, part1);
    /* the in-memory parser gives the same message for the same bytes */
    unsigned char buf[512];
    const long len = read_whole(path, buf, sizeof buf);
    char err2[512];
    snprintf(name, sizeof name, "parse_same_message_%s", file);
    TEST_EXPECT(name, len > 0 && npy_parse_f32(buf, (size_t)len, path, &a, err2, sizeof err2) != 0 &&
                          strcmp(err, err2) == 0,
                "npy_parse_f32 said \"%s\", npy_read_f32 \"%s\"", err2, err);
}

static void test_rejected_fixtures(void)
{
    expect_fixture_rejected("f64.npy", "dtype '<f8' (float64) is not supported", "expected '<f4'");
    expect_fixture_rejected("f32_be.npy", "dtype '>f4' (big-endian float32) is not supported", NULL);
    expect_fixture_rejected("f32_fortran.npy", "fortran_order is True", NULL);
    expect_fixture_rejected("f32_truncated.npy", "truncated: shape (2, 3) of float32 needs 24 data bytes, found 20",
                            NULL);
}

static void test_malformed(void)
{
    unsigned char buf[256] = {0};
    size_t len;

    /* preamble */
    expect_rejected("empty", buf, 0, "not a .npy file", NULL);
    expect_rejected("bad_magic", (const unsigned char *)"\x93NUMPZ\x01\x00\x00\x00", 10, "not a .npy file", NULL);
    expect_rejected("text_file", (const unsigned char *)"hello", 5, "not a .npy file", NULL);
    expect_rejected("short_magic", (const unsigned char *)"\x93NUM", 4, "truncated", "preamble");
    expect_rejected("short_preamble_v1", (const unsigned char *)"\x93NUMPY\x01\x00\x10", 9, "truncated",
                    "preamble");
    expect_rejected("short_preamble_v2", (const unsigned char *)"\x93NUMPY\x02\x00\x10\x00\x00", 11,
                    "truncated", "preamble");
    len = make_npy(buf, sizeof buf, 4, "{}\n", 0);
    expect_rejected("version_4_0", buf, len, "unsupported .npy format version 4.0", NULL);
    len = make_npy(buf, sizeof buf, 1, "{}\n", 0);
    buf[7] = 1;
    expect_rejected("version_1_1", buf, len, "unsupported .npy format version 1.1", NULL);
    len = make_npy(buf, sizeof buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }\n", 4);
    buf[9] = 0x10; /* header length 4096+ */
    expect_rejected("header_past_end_v1", buf, len, "header length 4", "runs past the end of the file");
    len = make_npy(buf, sizeof buf, 2, "{}\n", 0);
    buf[8] = buf[9] = buf[10] = buf[11] = 0xff;
    expect_rejected("header_past_end_v2", buf, len, "header length 4294967295 runs past the end", NULL);

    /* the dict */
    const char *good_rest = "'fortran_order': False, 'shape': (2, 3), }";
    char dict[512];
    expect_header_rejected("not_a_dict", 1, "['descr', '<f4']", 24, "malformed header", "'{'");
    expect_header_rejected("unclosed_dict", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)", 24,
                           "malformed header", "',' or '}'");
    expect_header_rejected("unquoted_key", 1, "{descr: '<f4'}", 24, "malformed header", "quoted key");
    expect_header_rejected("missing_colon", 1, "{'descr' '<f4'}", 24, "malformed header", "':' after 'descr'");
    expect_header_rejected("missing_shape", 1, "{'descr': '<f4', 'fortran_order': False, }", 24,
                           "header has no 'shape' key", NULL);
    expect_header_rejected("missing_descr", 1, "{'fortran_order': False, 'shape': (2, 3), }", 24,
                           "header has no 'descr' key", NULL);
    snprintf(dict, sizeof dict, "{'descr': '<f4', 'extra': 1, %s", good_rest);
    expect_header_rejected("unknown_key", 1, dict, 24, "header has unknown key 'extra'", NULL);
    snprintf(dict, sizeof dict, "{'descr': '<f4', 'descr': '<f4', %s", good_rest);
    expect_header_rejected("duplicate_key", 1, dict, 24, "header has key 'descr' twice", NULL);
    snprintf(dict, sizeof dict, "{'descr': '<f4', %s 'x'", good_rest);
    expect_header_rejected("text_after_dict", 1, dict, 24, "unexpected text after the dict", NULL);
    snprintf(dict, sizeof dict, "{'descr': f4, %s", good_rest);
    expect_header_rejected("descr_not_string", 1, dict, 24, "'descr' is not a quoted string", NULL);
    expect_header_rejected("descr_unterminated", 1, "{'descr': '<f4}", 24, "'descr' is not a quoted string",
                           NULL);
    snprintf(dict, sizeof dict, "{'descr': [('a', '<f4')], %s", good_rest);
    expect_header_rejected("descr_structured", 1, dict, 24, "structured", NULL);
    snprintf(dict, sizeof dict, "{'descr': '<i4', %s", good_rest);
    expect_header_rejected("dtype_int32", 1, dict, 24, "dtype '<i4' (int32) is not supported", NULL);
    snprintf(dict, sizeof dict, "{'descr': '|u1', %s", good_rest);
    expect_header_rejected("dtype_uint8", 1, dict, 24, "dtype '|u1' (uint8) is not supported", NULL);
    snprintf(dict, sizeof dict, "{'descr': '<f2', %s", good_rest);
    expect_header_rejected("dtype_float16", 1, dict, 24, "dtype '<f2' (float16) is not supported", NULL);
    snprintf(dict, sizeof dict, "{'descr': '=f4', %s", good_rest);
    expect_header_rejected("dtype_native_order", 1, dict, 24, "dtype '=f4' (native-order float32)", NULL);
    snprintf(dict, sizeof dict, "{'descr': 'O', %s", good_rest);
    expect_header_rejected("dtype_object", 1, dict, 24, "dtype 'O' is not supported", NULL);
    expect_header_rejected("fortran_order_bad", 1, "{'descr': '<f4', 'fortran_order': 0, 'shape': (2, 3), }", 24,
                           "'fortran_order' is not True or False", NULL);
    expect_header_rejected("fortran_order_prefix", 1,
                           "{'descr': '<f4', 'fortran_order': Falsey, 'shape': (2, 3), }", 24,
                           "'fortran_order' is not True or False", NULL);

    /* the shape */
    expect_header_rejected("shape_not_tuple", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': [2, 3], }", 24,
                           "'shape' is not a tuple", NULL);
    expect_header_rejected("shape_int_in_parens", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (6), }",
                           24, "'shape' (6) is not a tuple", "(6,)");
    expect_header_rejected("shape_not_int", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 'a'), }",
                           24, "dimension 1 of 'shape' is not an integer", NULL);
    expect_header_rejected("shape_bad_separator", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2; 3), }",
                           24, "expected ',' or ')'", NULL);
    expect_header_rejected("shape_negative", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3), }",
                           24, "dimension 1 is negative (-3)", NULL);
    expect_header_rejected("shape_huge_dimension", 1,
                           "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", 24,
                           "dimension 0 is too large", NULL);
    expect_header_rejected("shape_bytes_overflow", 1,
                           "{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 4), }", 24,
                           "overflows 64 bits", NULL);
    expect_header_rejected("shape_overflow_beside_zero", 1,
                           "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 4294967296, 4294967296), }", 0,
                           "overflows 64 bits", NULL);
    expect_header_rejected("shape_absurd_dimension", 1,
                           "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000000,), }", 24,
                           "truncated: shape (1000000000000,) of float32 needs 4000000000000 data bytes, found 24",
                           NULL);
    expect_header_rejected("shape_9_dims", 1,
                           "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1, 1, 1, 1, 1), }", 4,
                           "shape has more than 8 dimensions", NULL);

    /* the data */
    const char *header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }          \n";
    len = make_npy(buf, sizeof buf, 1, header, 20);
    expect_rejected("data_truncated", buf, len, "truncated: shape (2, 3) of float32 needs 24 data bytes, found 20",
                    NULL);
    len = make_npy(buf, sizeof buf, 1, header, 28);
    expect_rejected("data_trailing_bytes", buf, len,
                    "4 trailing bytes after the data (shape (2, 3) of float32 needs 24 data bytes, found 28)", NULL);
    len = make_npy(buf, sizeof buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }\n", 0);
    expect_rejected("data_missing_0d", buf, len, "truncated: shape () of float32 needs 4 data bytes, found 0", NULL);
}

/* header spellings numpy (or a Python dict literal) allows */
static void test_header_variants(void)
{
    static const int64_t s23[] = {2, 3}, s5[] = {5}, s0[] = {0};
    expect_header_accepted("header_keys_reordered", 1, "{'shape': (2, 3), 'fortran_order': False, 'descr': '<f4'}\n",
                           24, 2, s23);
    expect_header_accepted("header_double_quotes", 1,
                           "{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (2, 3)}", 24, 2, s23);
    expect_header_accepted("header_tight_spacing", 1, "{'descr':'<f4','fortran_order':False,'shape':(2,3)}", 24, 2,
                           s23);
    expect_header_accepted("header_loose_spacing", 2,
                           "{ 'descr' : '<f4' ,\n 'fortran_order' : False ,\t'shape' : ( 2 , 3 , ) , }  \n", 24, 2,
                           s23);
    expect_header_accepted("header_1d_trailing_comma", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }",
                           20, 1, s5);
    expect_header_accepted("header_0d", 3, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }\n", 4, 0, s0);
    expect_header_accepted("header_zero_size", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0,), }\n", 0,
                           1, s0);
}

static void test_read_errors(void)
{
    char path[600], err[512];
    npy_array a;
    scratch_path(path, sizeof path, "does_not_exist.npy");
    TEST_EXPECT("read_missing_file", npy_read_f32(path, &a, err, sizeof err) != 0 && contains(err, path) &&
                                         contains(err, "No such file or directory"),
                "message \"%s\"", err);
    TEST_EXPECT("read_directory",
                npy_read_f32(scratch, &a, err, sizeof err) != 0 && contains(err, scratch) &&
                    contains(err, "not a regular file"),
                "message \"%s\"", err);
    scratch_path(path, sizeof path, "fifo.npy");
    TEST_EXPECT("read_fifo_refused_without_blocking",
                mkfifo(path, 0600) == 0 && npy_read_f32(path, &a, err, sizeof err) != 0 && contains(err, path) &&
                    contains(err, "not a regular file"),
                "message \"%s\"", err);
    /* a file whose header is longer than the first read: the path that reads the header twice */
    char dict[400];
    snprintf(dict, sizeof dict, "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }%300s\n", "");
    unsigned char buf[1024];
    const size_t len = make_npy(buf, sizeof buf, 1, dict, 8);
    scratch_path(path, sizeof path, "f8_long_header.npy");
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(buf, 1, len, f);
        fclose(f);
    }
    TEST_EXPECT("read_long_header", npy_read_f32(path, &a, err, sizeof err) != 0 && contains(err, path) &&
                                        contains(err, "'<f8' (float64)"),
                "message \"%s\"", err);
}

static void test_write_errors(void)
{
    char path[600], err[512];
    const float data[6] = {1, 2, 3, 4, 5, 6};
    const int64_t shape[2] = {2, 3};

    scratch_path(path, sizeof path, "missing_dir/out.npy");
    TEST_EXPECT("write_into_missing_directory",
                npy_write_f32(path, data, 2, shape, err, sizeof err) != 0 && contains(err, path) &&
                    contains(err, "No such file or directory") && !file_exists(path),
                "message \"%s\"", err);

    TEST_EXPECT("write_onto_directory",
                npy_write_f32(scratch, data, 2, shape, err, sizeof err) != 0 && contains(err, scratch) &&
                    contains(err, "not a regular file") && leftover_temporaries() == 0,
                "message \"%s\"", err);

    const int64_t negative[1] = {-1};
    scratch_path(path, sizeof path, "negative.npy");
    TEST_EXPECT("write_negative_dimension",
                npy_write_f32(path, data, 1, negative, err, sizeof err) != 0 && contains(err, path) &&
                    contains(err, "negative") && !file_exists(path),
                "message \"%s\"", err);

    /* a write that fails half way (file size limit): the old file stays, no temporary is left */
    scratch_path(path, sizeof path, "old.npy");
    npy_write_f32(path, data, 2, shape, err, sizeof err);
    unsigned char before[256], after[256];
    const long before_len = read_whole(path, before, sizeof before);
    static float big[4096];
    const int64_t big_shape[1] = {4096};
    struct rlimit old_limit, limit;
    getrlimit(RLIMIT_FSIZE, &old_limit);
    limit = old_limit;
    limit.rlim_cur = 1000;
    void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
    int rc = -1;
    if (setrlimit(RLIMIT_FSIZE, &limit) == 0) {
        rc = npy_write_f32(path, big, 1, big_shape, err, sizeof err);
        setrlimit(RLIMIT_FSIZE, &old_limit);
    }
    signal(SIGXFSZ, old_handler);
    const long after_len = read_whole(path, after, sizeof after);
    TEST_EXPECT("failed_write_keeps_old_file",
                rc != 0 && contains(err, path) && contains(err, "File too large") && after_len == before_len &&
                    memcmp(before, after, (size_t)before_len) == 0 && leftover_temporaries() == 0,
                "rc %d, message \"%s\", old file %ld bytes, now %ld, %d temporaries left", rc, err, before_len,
                after_len, leftover_temporaries());
}

static void test_outfile(void)
{
    char path[600], err[512];
    unsigned char buf[256];
    outfile f;
    scratch_path(path, sizeof path, "text.csv");
    int ok = outfile_open(&f, path, OUTFILE_FSYNC, err, sizeof err) == 0;
    if (ok) {
        outfile_printf(&f, "n,c,y\n%d,%d,%.2f\n", 1, 2, 0.5);
        outfile_write(&f, "end\n", 4);
        ok = !file_exists(path) && outfile_commit(&f, err, sizeof err) == 0;
    }
    const long len = read_whole(path, buf, sizeof buf);
    const char *want = "n,c,y\n1,2,0.50\nend\n";
    TEST_EXPECT("outfile_commit", ok && len == (long)strlen(want) && memcmp(buf, want, (size_t)len) == 0 &&
                                      leftover_temporaries() == 0,
                "%s", err);

    struct stat st;
    const mode_t mask = umask(022);
    umask(mask);
    TEST_EXPECT("outfile_permissions", stat(path, &st) == 0 && (st.st_mode & 0777) == (0666 & ~mask),
                "mode %o, expected %o", (unsigned)(st.st_mode & 0777), (unsigned)(0666 & ~mask));

    ok = outfile_open(&f, path, 0, err, sizeof err) == 0;
    if (ok) {
        outfile_printf(&f, "replacement");
        outfile_abort(&f);
    }
    const long len2 = read_whole(path, buf, sizeof buf);
    TEST_EXPECT("outfile_abort_keeps_old_file",
                ok && len2 == len && memcmp(buf, want, (size_t)len) == 0 && leftover_temporaries() == 0, "%s", err);

    TEST_EXPECT("outfile_refuses_device",
                outfile_open(&f, "/dev/null", 0, err, sizeof err) != 0 &&
                    strcmp(err, "/dev/null: exists and is not a regular file") == 0,
                "message \"%s\"", err);
}

static void test_expect_shape(void)
{
    npy_array a = {.ndim = 4, .shape = {64, 8, 5, 5}};
    const int64_t w_shape[4] = {64, 8, 3, 3}, x_shape[4] = {-1, 8, -1, -1}, b_shape[1] = {64};
    char err[512];
    TEST_EXPECT("expect_shape_symbolic",
                npy_expect_shape(&a, "W.npy", 4, w_shape, "weight (Cout, Cin, 3, 3)", err, sizeof err) != 0 &&
                    strcmp(err, "W.npy: weight must have shape (Cout, Cin, 3, 3) = (64, 8, 3, 3), got (64, 8, 5, 5)") ==
                        0,
                "message \"%s\"", err);
    TEST_EXPECT("expect_shape_plain",
                npy_expect_shape(&a, "b.npy", 1, b_shape, "bias", err, sizeof err) != 0 &&
                    strcmp(err, "b.npy: bias must have shape (64,), got (64, 8, 5, 5)") == 0,
                "message \"%s\"", err);
    TEST_EXPECT("expect_shape_wildcards", npy_expect_shape(&a, "x.npy", 4, x_shape, "input", err, sizeof err) == 0,
                "%s", err);
    a.shape[1] = 4;
    TEST_EXPECT("expect_shape_wildcard_message",
                npy_expect_shape(&a, "x.npy", 4, x_shape, "input (N, Cin, H, W)", err, sizeof err) != 0 &&
                    strcmp(err, "x.npy: input must have shape (N, Cin, H, W) = (any, 8, any, any), got (64, 4, 5, 5)") ==
                        0,
                "message \"%s\"", err);
    char shape[64];
    const int64_t s3[3] = {1, 2, 3};
    TEST_EXPECT("format_shape", strcmp(npy_format_shape(shape, sizeof shape, 0, s3), "()") == 0 &&
                                    strcmp(npy_format_shape(shape, sizeof shape, 1, s3), "(1,)") == 0 &&
                                    strcmp(npy_format_shape(shape, sizeof shape, 3, s3), "(1, 2, 3)") == 0 &&
                                    strcmp(npy_format_shape(shape, 5, 3, s3), "(1, ") == 0,
                "got \"%s\"", shape);
}

static void remove_scratch(void)
{
    DIR *d = opendir(scratch);
    if (!d)
        return;
    char path[1024];
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            snprintf(path, sizeof path, "%s/%s", scratch, e->d_name);
            unlink(path);
        }
    closedir(d);
    rmdir(scratch);
}

int main(void)
{
    data_dir = getenv("CGP_TEST_DATA") ? getenv("CGP_TEST_DATA") : "tests/data";
    if (test_scratch_dir(scratch, sizeof scratch, "cpu_npy") != 0)
        return test_exit_code();
    test_round_trips();
    test_numpy_fixtures();
    test_rejected_fixtures();
    test_malformed();
    test_header_variants();
    test_read_errors();
    test_write_errors();
    test_outfile();
    test_expect_shape();
    remove_scratch();
    return test_exit_code();
}

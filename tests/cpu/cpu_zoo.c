/*
 * cpu_zoo.c - tests of the shape zoo reader (host/bench/zoo.c): the built-in public zoo is the
 * twelve shapes of host/bench/zoo.csv, a file of the same form reads the same, columns may come
 * in any order with or without labels, and malformed files are refused with file and line.
 *     make build/tests/cpu_zoo && build/tests/cpu_zoo      (run from the repository root)
 */
#include <string.h>

#include "testlib.h"
#include "zoo.h"

static int same_shape(const zoo_shape *a, int64_t n, int64_t cin, int64_t cout, int64_t h, int64_t w, cgp_padding pad)
{
    return a->shape.n == n && a->shape.cin == cin && a->shape.cout == cout && a->shape.h == h && a->shape.w == w &&
           a->padding == pad;
}

static void test_builtin(void)
{
    char err[512];
    zoo z;
    if (zoo_load(NULL, &z, err, sizeof err) != 0) {
        TEST_FAIL("zoo built-in", "%s", err);
        return;
    }
    TEST_EXPECT("zoo built-in has the 12 public shapes", z.count == 12, "got %d shapes", z.count);
    TEST_EXPECT("zoo built-in starts with the default problem",
                z.count > 0 && same_shape(&z.shapes[0], 128, 8, 64, 256, 256, CGP_PADDING_VALID) &&
                    strcmp(z.shapes[0].label, "the default problem") == 0,
                "first shape or label differs");
    TEST_EXPECT("zoo built-in 8 x 512->512 x 7x7 same",
                z.count > 9 && same_shape(&z.shapes[9], 8, 512, 512, 7, 7, CGP_PADDING_SAME), "10th shape differs");
    zoo f;
    if (zoo_load("host/bench/zoo.csv", &f, err, sizeof err) != 0) {
        TEST_FAIL("zoo file = built-in", "%s", err);
    } else {
        int same = f.count == z.count;
        for (int i = 0; same && i < f.count; ++i)
            same = memcmp(&f.shapes[i].shape, &z.shapes[i].shape, sizeof(cgp_shape)) == 0 &&
                   f.shapes[i].padding == z.shapes[i].padding && strcmp(f.shapes[i].label, z.shapes[i].label) == 0;
        TEST_EXPECT("zoo file = built-in", same, "host/bench/zoo.csv reads differently from the built-in zoo");
        zoo_free(&f);
    }
    zoo_free(&z);
}

static void test_forms(void)
{
    char err[512];
    zoo z;
    const char *reordered = "padding,w,h,cout,cin,n\r\nsame,7,5,3,2,1\r\n\r\nvalid,3,3,1,1,4\r\n";
    if (zoo_parse(reordered, strlen(reordered), "reordered.csv", &z, err, sizeof err) != 0) {
        TEST_FAIL("zoo columns in any order, no label", "%s", err);
        return;
    }
    TEST_EXPECT("zoo columns in any order, no label",
                z.count == 2 && same_shape(&z.shapes[0], 1, 2, 3, 5, 7, CGP_PADDING_SAME) &&
                    same_shape(&z.shapes[1], 4, 1, 1, 3, 3, CGP_PADDING_VALID) && z.shapes[0].label[0] == '\0',
                "read %d shapes, or the wrong ones", z.count);
    zoo_free(&z);
}

/* each malformed text is refused with a message holding `want` */
static void test_refusals(void)
{
    static const struct { const char *name, *text, *want; } bad[] = {
        {"zoo refuses a missing column", "n,cin,cout,h,w\n1,1,1,3,3\n", "padding"},
        {"zoo refuses a missing shape column", "n,cin,h,w,padding\n1,1,3,3,valid\n", "\"cout\""},
        {"zoo refuses a header alone", "n,cin,cout,h,w,padding\n", "no shape"},
        {"zoo refuses zero", "n,cin,cout,h,w,padding\n1,0,1,3,3,valid\n", "bad.csv:2: cin"},
        {"zoo refuses a negative", "n,cin,cout,h,w,padding\n1,1,-4,3,3,valid\n", "cout"},
        {"zoo refuses trailing text", "n,cin,cout,h,w,padding\n1,1,1,3x,3,valid\n", "h must be"},
        {"zoo refuses 2^40 + 1", "n,cin,cout,h,w,padding\n1099511627777,1,1,3,3,valid\n", "n must be"},
        {"zoo refuses an unknown padding", "n,cin,cout,h,w,padding\n1,1,1,3,3,full\n", "\"full\""},
        {"zoo refuses no output pixel", "n,cin,cout,h,w,padding\n1,1,1,2,9,valid\n", "bad.csv:2: H=2 W=9"},
        {"zoo refuses a short record", "n,cin,cout,h,w,padding\n1,1,1,3,3\n", "bad.csv:2"},
        /* fuzz_zoo's first crash: a quoted field holding line breaks made a message of several lines */
        {"zoo names a field with line breaks on one line", "n,cin,cout,h,w,padding\n1,\"\n,\n\n0a\",1,3,3,valid\n",
         "cin must be a whole number from 1 to 2^40, got \"\\x0a,\\x0a\\x0a0a\""},
        {"zoo shortens a long field in its message", "n,cin,cout,h,w,padding\n1,1,1,3,3,"
         "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv\n",
         "got \"vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv...\""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        char err[512] = "";
        zoo z;
        const int rc = zoo_parse(bad[i].text, strlen(bad[i].text), "bad.csv", &z, err, sizeof err);
        TEST_EXPECT(bad[i].name,
                    rc == -1 && z.count == 0 && z.shapes == NULL && strstr(err, bad[i].want) && !strchr(err, '\n'),
                    "rc %d, message \"%s\" (wanted \"%s\")", rc, err, bad[i].want);
    }
    char err[512] = "";
    zoo z;
    TEST_EXPECT("zoo names a missing file", zoo_load("no/such/zoo.csv", &z, err, sizeof err) == -1 &&
                                                strstr(err, "no/such/zoo.csv"),
                "message \"%s\"", err);
}

int main(void)
{
    test_builtin();
    test_forms();
    test_refusals();
    return test_exit_code();
}

/*
 * fuzz_zoo.c - libFuzzer target for the zoo file parser (host/bench/zoo.c, zoo_parse: what `cgp bench --zoo FILE`,
 * `cgp roofline --zoo` and `cgp select --zoo` read, through the CSV reader). Any input must give either shapes
 * that can exist (every dimension in [1, 2^40], padding valid or same, at least one output pixel, a label that is
 * a string of its field) which, written back as a zoo CSV, parse to the same shapes; or a one-line message
 * starting with the name, the zoo left empty.
 * Built and run by `make fuzz` (mk/fuzz.mk); seeds in tests/fuzz/corpus_zoo/.
 *
 *     make fuzz FUZZ_SECONDS=60        or, after it:  build/fuzz/fuzz_zoo build/fuzz/crashes/zoo-crash-...
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zoo.h"

#define CHECK(cond)                                                                                    \
    do {                                                                                               \
        if (!(cond))                                                                                   \
            __builtin_trap();                                                                          \
    } while (0)

static const char name[] = "fuzz.csv";

static int dimension_ok(int64_t v) { return v >= 1 && v <= ((int64_t)1 << 40); }

/* z written back as a zoo CSV (labels quoted, their quotes doubled); its length in *len (malloc'd). */
static char *write_zoo(const zoo *z, size_t *len)
{
    const size_t cap = 64 + (size_t)z->count * (5 * 16 + 8 + 2 * sizeof z->shapes[0].label + 4);
    char *text = malloc(cap), *out = text;
    CHECK(text != NULL);
    out += sprintf(out, "label,n,cin,cout,h,w,padding\n");
    for (int i = 0; i < z->count; ++i) {
        const zoo_shape *s = &z->shapes[i];
        *out++ = '"';
        for (const char *c = s->label; *c; ++c) {
            if (*c == '"')
                *out++ = '"';
            *out++ = *c;
        }
        out += sprintf(out, "\",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%s\n", s->shape.n,
                       s->shape.cin, s->shape.cout, s->shape.h, s->shape.w,
                       s->padding == CGP_PADDING_SAME ? "same" : "valid");
    }
    *len = (size_t)(out - text);
    CHECK(*len < cap);
    return text;
}

static void check_accepted(const zoo *z)
{
    CHECK(z->count >= 1 && z->shapes != NULL);
    for (int i = 0; i < z->count; ++i) {
        const zoo_shape *s = &z->shapes[i];
        CHECK(dimension_ok(s->shape.n) && dimension_ok(s->shape.cin) && dimension_ok(s->shape.cout) &&
              dimension_ok(s->shape.h) && dimension_ok(s->shape.w));
        CHECK(s->padding == CGP_PADDING_VALID || s->padding == CGP_PADDING_SAME);
        const int64_t grow = s->padding == CGP_PADDING_SAME ? 2 : 0;
        CHECK(s->shape.h - 2 + grow >= 1 && s->shape.w - 2 + grow >= 1);
        CHECK(memchr(s->label, '\0', sizeof s->label) != NULL);
    }

    size_t len = 0;
    char *text = write_zoo(z, &len);
    zoo again;
    char err[512];
    CHECK(zoo_parse(text, len, name, &again, err, sizeof err) == 0);
    CHECK(again.count == z->count);
    for (int i = 0; i < z->count; ++i) {
        const zoo_shape *a = &again.shapes[i], *s = &z->shapes[i];
        CHECK(a->shape.n == s->shape.n && a->shape.cin == s->shape.cin && a->shape.cout == s->shape.cout &&
              a->shape.h == s->shape.h && a->shape.w == s->shape.w && a->padding == s->padding);
        CHECK(strcmp(a->label, s->label) == 0);
    }
    zoo_free(&again);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    zoo z;
    char err[512];
    err[0] = '\0';
    if (zoo_parse((const char *)data, size, name, &z, err, sizeof err) == 0) {
        CHECK(err[0] == '\0');
        check_accepted(&z);
        zoo_free(&z);
    } else {
        CHECK(z.shapes == NULL && z.count == 0);
        CHECK(strncmp(err, "fuzz.csv", 8) == 0 && strlen(err) > 10 && !strchr(err, '\n'));
    }
    return 0;
}

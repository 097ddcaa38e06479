/*
 * zoo.c - reads the shape zoo (zoo.h): the built-in public zoo or a CSV file of the same form.
 */
#include "zoo.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv_read.h"
#include "message.h"

static const char *const kShapeColumns[] = {"n", "cin", "cout", "h", "w"};
enum { kShapeColumnCount = sizeof kShapeColumns / sizeof kShapeColumns[0] };

/* A whole decimal number in [1, 2^40]: every dimension of a problem that can exist. */
static int parse_dimension(const char *text, int64_t *out)
{
    if (*text < '0' || *text > '9')
        return -1;
    errno = 0;
    char *end = NULL;
    const long long v = strtoll(text, &end, 10);
    if (errno != 0 || *end != '\0' || v < 1 || v > (1LL << 40))
        return -1;
    *out = v;
    return 0;
}

static int64_t output_size(int64_t size, cgp_padding padding) { return size - 2 + 2 * (int64_t)padding; }

/* A field as a message quotes it: control bytes as \xNN (a quoted field may hold line breaks, and a message is one
 * line), at most 40 bytes of it then "...". */
static const char *field_for_message(const char *field, char *out, size_t cap)
{
    size_t n = 0;
    const size_t shown = 40;
    for (size_t i = 0; field[i] && n + 8 < cap; ++i) {
        if (i == shown) {
            n += (size_t)snprintf(out + n, cap - n, "...");
            break;
        }
        const unsigned char c = (unsigned char)field[i];
        if (c < 0x20 || c == 0x7f)
            n += (size_t)snprintf(out + n, cap - n, "\\x%02x", c);
        else
            out[n++] = (char)c;
    }
    out[n] = '\0';
    return out;
}

/* The shapes of a parsed table; frees the table. Returns 0, or -1 with err set (z is then empty). */
static int zoo_from_table(csv_table t, const char *name, zoo *z, char *err, size_t errlen)
{
    int columns[kShapeColumnCount], padding_column = csv_column(&t, "padding"), label_column = csv_column(&t, "label");
    for (int c = 0; c < kShapeColumnCount; ++c)
        if ((columns[c] = csv_column(&t, kShapeColumns[c])) < 0) {
            message_prefixed(err, errlen, name, "the header has no column \"%s\" (it needs n,cin,cout,h,w,padding)",
                             kShapeColumns[c]);
            csv_free(&t);
            return -1;
        }
    if (padding_column < 0 || t.rows == 0) {
        message_prefixed(err, errlen, name, padding_column < 0 ? "the header has no column \"padding\""
                                                               : "no shape after the header");
        csv_free(&t);
        return -1;
    }
    z->shapes = calloc((size_t)t.rows, sizeof *z->shapes);
    if (!z->shapes) {
        message_prefixed(err, errlen, name, "out of memory for %d shapes", t.rows);
        csv_free(&t);
        return -1;
    }
    for (int r = 0; r < t.rows; ++r) {
        zoo_shape *s = &z->shapes[r];
        char where[512];
        snprintf(where, sizeof where, "%s:%ld", name, t.lines[r]);
        int64_t dims[kShapeColumnCount];
        char shown[200];
        for (int c = 0; c < kShapeColumnCount; ++c)
            if (parse_dimension(csv_cell(&t, r, columns[c]), &dims[c]) != 0) {
                message_prefixed(err, errlen, where, "%s must be a whole number from 1 to 2^40, got \"%s\"",
                                 kShapeColumns[c], field_for_message(csv_cell(&t, r, columns[c]), shown, sizeof shown));
                goto fail;
            }
        const char *padding = csv_cell(&t, r, padding_column);
        if (strcmp(padding, "valid") != 0 && strcmp(padding, "same") != 0) {
            message_prefixed(err, errlen, where, "padding must be valid or same, got \"%s\"",
                             field_for_message(padding, shown, sizeof shown));
            goto fail;
        }
        s->shape = (cgp_shape){dims[0], dims[1], dims[2], dims[3], dims[4]};
        s->padding = strcmp(padding, "same") == 0 ? CGP_PADDING_SAME : CGP_PADDING_VALID;
        if (output_size(s->shape.h, s->padding) < 1 || output_size(s->shape.w, s->padding) < 1) {
            message_prefixed(err, errlen, where, "H=%" PRId64 " W=%" PRId64 " give no output pixel with padding %s",
                             s->shape.h, s->shape.w, padding);
            goto fail;
        }
        if (label_column >= 0)
            snprintf(s->label, sizeof s->label, "%s", csv_cell(&t, r, label_column));
    }
    z->count = t.rows;
    csv_free(&t);
    return 0;
fail:
    csv_free(&t);
    zoo_free(z);
    return -1;
}

int zoo_parse(const char *text, size_t len, const char *name, zoo *z, char *err, size_t errlen)
{
    z->shapes = NULL;
    z->count = 0;
    csv_table t;
    if (csv_parse(text, len, name, &t, err, errlen) != 0)
        return -1;
    return zoo_from_table(t, name, z, err, errlen);
}

int zoo_load(const char *path, zoo *z, char *err, size_t errlen)
{
    if (!path)
        return zoo_parse(cgp_zoo_builtin_csv, strlen(cgp_zoo_builtin_csv), "the built-in zoo", z, err, errlen);
    z->shapes = NULL;
    z->count = 0;
    csv_table t;
    if (csv_read_file(path, &t, err, errlen) != 0)
        return -1;
    return zoo_from_table(t, path, z, err, errlen);
}

void zoo_free(zoo *z)
{
    free(z->shapes);
    z->shapes = NULL;
    z->count = 0;
}

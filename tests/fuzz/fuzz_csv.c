/*
 * fuzz_csv.c - libFuzzer target for the CSV reader (host/io/csv_read.c, csv_parse: the same code csv_read_file
 * runs, which `cgp plot`, `cgp bench --zoo-summary` and the zoo read through). Any input must give either a
 * table whose every record has the header's field count, each field a string of the table's storage, each
 * record's line past the header's, and which, written back with every field quoted, parses to the same fields;
 * or a one-line message starting with the name, the table left empty.
 * Built and run by `make fuzz` (mk/fuzz.mk); seeds in tests/fuzz/corpus_csv/.
 *
 *     make fuzz FUZZ_SECONDS=60        or, after it:  build/fuzz/fuzz_csv build/fuzz/crashes/csv-crash-...
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "csv_read.h"

#define CHECK(cond)                                                                                    \
    do {                                                                                               \
        if (!(cond))                                                                                   \
            __builtin_trap();                                                                          \
    } while (0)

static const char name[] = "fuzz.csv";

/* The field quoted as RFC 4180 writes it ("" for each "), appended at out; returns the end. */
static char *put_quoted(char *out, const char *field)
{
    *out++ = '"';
    for (const char *c = field; *c; ++c) {
        if (*c == '"')
            *out++ = '"';
        *out++ = *c;
    }
    *out++ = '"';
    return out;
}

/* t written back as CSV, every field quoted, records ended by LF; its length in *len (malloc'd). */
static char *write_quoted(const csv_table *t, size_t *len)
{
    size_t cap = 1;
    for (int c = 0; c < t->columns; ++c)
        cap += 2 * strlen(t->header[c]) + 3;
    for (size_t i = 0; i < (size_t)t->rows * (size_t)t->columns; ++i)
        cap += 2 * strlen(t->cells[i]) + 3;
    char *text = malloc(cap), *out = text;
    CHECK(text != NULL);
    for (int r = -1; r < t->rows; ++r)
        for (int c = 0; c < t->columns; ++c) {
            out = put_quoted(out, r < 0 ? t->header[c] : csv_cell(t, r, c));
            *out++ = c + 1 < t->columns ? ',' : '\n';
        }
    *len = (size_t)(out - text);
    return text;
}

static void check_accepted(const csv_table *t, size_t input_len)
{
    CHECK(t->columns >= 1 && t->rows >= 0 && t->header != NULL && t->storage != NULL);
    CHECK(t->rows == 0 || (t->cells != NULL && t->lines != NULL));
    for (int r = 0; r < t->rows; ++r)
        CHECK(t->lines[r] >= 2 && (r == 0 || t->lines[r] > t->lines[r - 1]));
    for (int c = 0; c < t->columns; ++c)
        CHECK(strlen(t->header[c]) <= input_len);
    for (size_t i = 0; i < (size_t)t->rows * (size_t)t->columns; ++i)
        CHECK(t->cells[i] != NULL && strlen(t->cells[i]) <= input_len);

    size_t len = 0;
    char *text = write_quoted(t, &len);
    csv_table again;
    char err[512];
    CHECK(csv_parse(text, len, name, &again, err, sizeof err) == 0);
    CHECK(again.columns == t->columns && again.rows == t->rows);
    for (int c = 0; c < t->columns; ++c)
        CHECK(strcmp(again.header[c], t->header[c]) == 0);
    for (size_t i = 0; i < (size_t)t->rows * (size_t)t->columns; ++i)
        CHECK(strcmp(again.cells[i], t->cells[i]) == 0);
    csv_free(&again);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    csv_table t;
    char err[512];
    err[0] = '\0';
    if (csv_parse((const char *)data, size, name, &t, err, sizeof err) == 0) {
        CHECK(err[0] == '\0');
        check_accepted(&t, size);
        csv_free(&t);
    } else {
        CHECK(t.columns == 0 && t.rows == 0 && t.header == NULL && t.cells == NULL && t.lines == NULL &&
              t.storage == NULL);
        CHECK(strncmp(err, "fuzz.csv:", 9) == 0 && strlen(err) > 10 && !strchr(err, '\n'));
    }
    return 0;
}

/*
 * csv_read.h - reads a CSV file (RFC 4180) into a table of strings, for `cgp plot`.
 *
 *     csv_table t;
 *     if (csv_read_file("sweep.csv", &t, err, sizeof err) != 0) { report(err); return 2; }
 *     const int col = csv_column(&t, "median_ms");
 *     for (int r = 0; r < t.rows; ++r) use(csv_cell(&t, r, col), t.lines[r]);
 *     csv_free(&t);
 *
 * Fields are separated by commas and records by LF or CRLF. A field in double quotes may hold
 * commas, line breaks and doubled quotes ("" is one "). The first record is the header; every
 * record must have as many fields as the header. Empty lines are skipped; a UTF-8 byte-order
 * mark at the start is ignored. Refused, with "<name>:<line>: <problem>": a quote inside an
 * unquoted field, anything but a comma or the end of the line after a closing quote, a quoted
 * field still open at the end of the file, a NUL byte, a record with the wrong number of fields,
 * an empty file. Tested by tests/cpu/cpu_roofline.c.
 */
#ifndef CGP_CSV_READ_H
#define CGP_CSV_READ_H

#include <stddef.h>

typedef struct csv_table {
    int columns;    /* fields in every record (the header's count) */
    int rows;       /* data records, the header not counted */
    char **header;  /* [columns] */
    char **cells;   /* [rows * columns], row-major; empty fields are "" */
    long *lines;    /* [rows]: the line of the file each data record starts on, from 1 */
    char *storage;  /* the text of every field (owned) */
} csv_table;

/* Parses text[0, len). name starts every message. Returns 0, or -1 with err set (t is then empty). */
int csv_parse(const char *text, size_t len, const char *name, csv_table *t, char *err, size_t errlen);

/* Reads and parses a whole file. Returns 0, or -1 with err set ("<path>: <strerror>" when it cannot
 * be read). */
int csv_read_file(const char *path, csv_table *t, char *err, size_t errlen);

void csv_free(csv_table *t);

/* Index of the header field equal to name, or -1. */
int csv_column(const csv_table *t, const char *name);

static inline const char *csv_cell(const csv_table *t, int row, int column)
{
    return t->cells[(size_t)row * (size_t)t->columns + (size_t)column];
}

#endif

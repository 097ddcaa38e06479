/* csv_read.c - see csv_read.h. */
#include "csv_read.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a growable array of bytes or of size_t/long, whichever `item` says */
typedef struct grow {
    void *data;
    size_t count, cap, item;
} grow;

static int grow_push(grow *g, const void *value)
{
    if (g->count == g->cap) {
        const size_t cap = g->cap ? 2 * g->cap : 64;
        void *p = realloc(g->data, cap * g->item);
        if (!p)
            return -1;
        g->data = p;
        g->cap = cap;
    }
    memcpy((char *)g->data + g->count * g->item, value, g->item);
    ++g->count;
    return 0;
}

typedef struct parser {
    const char *text, *name;
    size_t len, pos;
    long line;
    grow chars;   /* field text, each field NUL-terminated */
    grow starts;  /* size_t: offset of each field in chars */
    grow fields;  /* size_t: fields of each record */
    grow lines;   /* long: line each record starts on */
    char *err;
    size_t errlen;
} parser;

static int fail(parser *p, long line, const char *what)
{
    snprintf(p->err, p->errlen, "%s:%ld: %s", p->name, line, what);
    return -1;
}

static int out_of_memory(parser *p)
{
    snprintf(p->err, p->errlen, "%s: out of memory reading the CSV", p->name);
    return -1;
}

static int push_char(parser *p, char c) { return grow_push(&p->chars, &c) == 0 ? 0 : out_of_memory(p); }

/* at a line end (LF or CRLF) at pos: its length, else 0 */
static size_t line_end(const parser *p, size_t pos)
{
    if (pos < p->len && p->text[pos] == '\n')
        return 1;
    if (pos + 1 < p->len && p->text[pos] == '\r' && p->text[pos + 1] == '\n')
        return 2;
    return 0;
}

static int quoted_field(parser *p)
{
    const long start_line = p->line;
    ++p->pos; /* the opening quote */
    for (;;) {
        if (p->pos >= p->len) {
            char what[96];
            snprintf(what, sizeof what, "a quoted field that starts on line %ld is not closed by the end of the file",
                     start_line);
            return fail(p, p->line, what);
        }
        const char c = p->text[p->pos];
        if (c == '"') {
            if (p->pos + 1 < p->len && p->text[p->pos + 1] == '"') {
                if (push_char(p, '"') != 0)
                    return -1;
                p->pos += 2;
                continue;
            }
            ++p->pos;
            break;
        }
        if (c == '\0')
            return fail(p, p->line, "a NUL byte");
        if (c == '\n')
            ++p->line;
        if (push_char(p, c) != 0)
            return -1;
        ++p->pos;
    }
    if (p->pos < p->len && p->text[p->pos] != ',' && !line_end(p, p->pos)) {
        const unsigned char c = (unsigned char)p->text[p->pos];
        char what[128];
        if (c >= 0x20 && c < 0x7f)
            snprintf(what, sizeof what, "'%c' after a closing quote (expected a comma or the end of the line)", c);
        else
            snprintf(what, sizeof what, "byte 0x%02x after a closing quote (expected a comma or the end of the line)", c);
        return fail(p, p->line, what);
    }
    return 0;
}

static int plain_field(parser *p)
{
    while (p->pos < p->len && p->text[p->pos] != ',' && !line_end(p, p->pos)) {
        const char c = p->text[p->pos];
        if (c == '"')
            return fail(p, p->line, "a quote inside an unquoted field (quote the whole field and double the quote)");
        if (c == '\0')
            return fail(p, p->line, "a NUL byte");
        if (push_char(p, c) != 0)
            return -1;
        ++p->pos;
    }
    return 0;
}

/* one record starting at pos (not at an empty line) */
static int record(parser *p)
{
    const long start_line = p->line;
    size_t fields = 0;
    for (;;) {
        const size_t start = p->chars.count;
        if (grow_push(&p->starts, &start) != 0)
            return out_of_memory(p);
        const int rc = (p->pos < p->len && p->text[p->pos] == '"') ? quoted_field(p) : plain_field(p);
        if (rc != 0 || push_char(p, '\0') != 0)
            return -1;
        ++fields;
        if (p->pos < p->len && p->text[p->pos] == ',') {
            ++p->pos;
            continue;
        }
        const size_t end = line_end(p, p->pos);
        if (end) {
            p->pos += end;
            ++p->line;
        }
        break;
    }
    if (fields > INT_MAX)
        return fail(p, start_line, "too many fields");
    if (grow_push(&p->fields, &fields) != 0 || grow_push(&p->lines, &start_line) != 0)
        return out_of_memory(p);
    return 0;
}

static void parser_free(parser *p)
{
    free(p->chars.data);
    free(p->starts.data);
    free(p->fields.data);
    free(p->lines.data);
}

int csv_parse(const char *text, size_t len, const char *name, csv_table *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    parser p = {.text = text, .name = name, .len = len, .line = 1, .err = err, .errlen = errlen};
    p.chars.item = 1;
    p.starts.item = p.fields.item = sizeof(size_t);
    p.lines.item = sizeof(long);
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
        p.pos = 3;
    int rc = 0;
    while (rc == 0 && p.pos < p.len) {
        const size_t end = line_end(&p, p.pos);
        if (end) { /* an empty line */
            p.pos += end;
            ++p.line;
            continue;
        }
        rc = record(&p);
    }
    if (rc == 0 && p.fields.count == 0) {
        snprintf(err, errlen, "%s: empty file (no header line)", name);
        rc = -1;
    }
    if (rc == 0 && p.fields.count - 1 > INT_MAX)
        rc = fail(&p, ((long *)p.lines.data)[p.fields.count - 1], "too many records");
    const size_t *fields = p.fields.data;
    const long *lines = p.lines.data;
    for (size_t r = 1; rc == 0 && r < p.fields.count; ++r)
        if (fields[r] != fields[0]) {
            char what[128];
            snprintf(what, sizeof what, "%zu field%s, the header (line %ld) has %zu", fields[r], fields[r] == 1 ? "" : "s",
                     lines[0], fields[0]);
            rc = fail(&p, lines[r], what);
        }
    if (rc == 0) {
        t->columns = (int)fields[0];
        t->rows = (int)(p.fields.count - 1);
        t->header = malloc(p.starts.count * sizeof(char *));
        t->lines = malloc((size_t)(t->rows ? t->rows : 1) * sizeof(long));
        if (!t->header || !t->lines) {
            free(t->header);
            free(t->lines);
            memset(t, 0, sizeof *t);
            rc = out_of_memory(&p);
        }
    }
    if (rc != 0) {
        parser_free(&p);
        return -1;
    }
    t->storage = p.chars.data; /* kept: the cells point into it */
    const size_t *starts = p.starts.data;
    for (size_t i = 0; i < p.starts.count; ++i)
        t->header[i] = t->storage + starts[i];
    t->cells = t->header + t->columns;
    for (int r = 0; r < t->rows; ++r)
        t->lines[r] = lines[r + 1];
    free(p.starts.data);
    free(p.fields.data);
    free(p.lines.data);
    return 0;
}

int csv_read_file(const char *path, csv_table *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    size_t len = 0, cap = 0;
    char *text = NULL;
    int error = 0;
    for (;;) {
        if (len == cap) {
            const size_t grown = cap ? 2 * cap : 65536;
            char *q = realloc(text, grown);
            if (!q) {
                error = ENOMEM;
                break;
            }
            text = q;
            cap = grown;
        }
        const size_t got = fread(text + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f))
                error = errno ? errno : EIO;
            break;
        }
    }
    fclose(f);
    if (error) {
        free(text);
        snprintf(err, errlen, "%s: %s", path, strerror(error));
        return -1;
    }
    const int rc = csv_parse(text ? text : "", len, path, t, err, errlen);
    free(text);
    return rc;
}

void csv_free(csv_table *t)
{
    free(t->header); /* the cells share this array */
    free(t->lines);
    free(t->storage);
    memset(t, 0, sizeof *t);
}

int csv_column(const csv_table *t, const char *name)
{
    for (int i = 0; i < t->columns; ++i)
        if (strcmp(t->header[i], name) == 0)
            return i;
    return -1;
}

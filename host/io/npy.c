/*
 * npy.c - reading and writing float32 .npy files: see npy.h. The format is described in
 * numpy/lib/format.py: magic "\x93NUMPY", major and minor version bytes, the header length
 * (2 bytes little-endian in 1.0, 4 bytes in 2.0 and 3.0), the header (a Python dict literal,
 * latin-1 in 1.0/2.0, utf-8 in 3.0, padded with spaces and a newline), then the data.
 * Tested by tests/cpu/cpu_npy.c; fuzzed by tests/fuzz/fuzz_npy.c (`make fuzz`).
 */
#include "npy.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "message.h"
#include "outfile.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "npy.c copies '<f4' data as it is: it needs a little-endian host"
#endif

static const unsigned char npy_magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
enum { MAGIC_LEN = 6, PREFIX_MAX = 12, ARRAY_ALIGN = 64, GROWTH_AXIS_MAX_DIGITS = 21 };

/* what the header says, after the checks */
typedef struct npy_header {
    int ndim;
    int64_t shape[NPY_MAX_DIMS];
    int64_t count;
    size_t data_offset; /* where the data starts = end of the header */
    uint64_t data_bytes;
} npy_header;


char *npy_format_shape(char *buf, size_t cap, int ndim, const int64_t *shape)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i <= ndim && used < cap; ++i) {
        const char *before = i == 0 ? "(" : ", ";
        int n;
        if (i == ndim)
            n = snprintf(buf + used, cap - used, "%s)", ndim == 0 ? "(" : ndim == 1 ? "," : "");
        else if (shape[i] < 0)
            n = snprintf(buf + used, cap - used, "%sany", before);
        else
            n = snprintf(buf + used, cap - used, "%s%" PRId64, before, shape[i]);
        if (n < 0)
            break;
        used += (size_t)n;
    }
    return buf;
}

/* ---- the header dict: a Python literal {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } ---- */

typedef struct cursor {
    const unsigned char *text;
    size_t len, pos;
} cursor;

/* "<name>: malformed header: <what> (header byte <where the cursor is>)" into err, what from fmt; returns -1 */
__attribute__((format(printf, 5, 6)))
static int malformed(const cursor *c, const char *name, char *err, size_t errlen, const char *fmt, ...)
{
    char what[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    message_prefixed(err, errlen, name, "malformed header: %s (header byte %zu)", what, c->pos);
    return -1;
}

static void skip_space(cursor *c)
{
    while (c->pos < c->len && (c->text[c->pos] == ' ' || c->text[c->pos] == '\t' ||
                               c->text[c->pos] == '\n' || c->text[c->pos] == '\r'))
        c->pos++;
}

static int peek(const cursor *c) { return c->pos < c->len ? c->text[c->pos] : -1; }

/* A quoted string ('...' or "..."), no escapes: sets *s, *n to its contents. */
static int read_string(cursor *c, const unsigned char **s, size_t *n)
{
    const int quote = peek(c);
    if (quote != '\'' && quote != '"')
        return -1;
    const size_t start = c->pos + 1;
    size_t end = start;
    while (end < c->len && c->text[end] != quote && c->text[end] != '\\' && c->text[end] != '\n')
        end++;
    if (end >= c->len || c->text[end] != quote)
        return -1;
    *s = c->text + start;
    *n = end - start;
    c->pos = end + 1;
    return 0;
}

static int is_digit(int ch) { return ch >= '0' && ch <= '9'; }

static int is_identifier_char(int ch)
{
    return is_digit(ch) || ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

static int read_word(cursor *c, const char *word)
{
    const size_t n = strlen(word);
    if (c->len - c->pos < n || memcmp(c->text + c->pos, word, n) != 0)
        return -1;
    const size_t after = c->pos + n;
    if (after < c->len && is_identifier_char(c->text[after]))
        return -1; /* "Truely" is not True */
    c->pos = after;
    return 0;
}

/* s[0..n) quoted for a message: printable ASCII kept, the rest as '?', long text cut */
static const char *printable(char *buf, size_t cap, const unsigned char *s, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n && o + 4 < cap; ++i)
        buf[o++] = (s[i] >= 0x20 && s[i] < 0x7f) ? (char)s[i] : '?';
    if (o + 4 >= cap && n > o) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o] = '\0';
    return buf;
}

/* "(float64)", "(big-endian float32)" ... for a dtype string numpy writes; "" if unknown */
static void describe_dtype(char *buf, size_t cap, const unsigned char *s, size_t n)
{
    static const struct { char kind; const char *name; int sized; } kinds[] = {
        {'f', "float", 1}, {'i', "int", 1}, {'u', "uint", 1}, {'c', "complex", 1}, {'b', "bool", 0},
        {'S', "bytes", 0}, {'U', "str", 0}, {'V', "void", 0}, {'O', "object", 0},
        {'M', "datetime64", 0}, {'m', "timedelta64", 0}};
    buf[0] = '\0';
    const char *order = "";
    if (n >= 1 && (s[0] == '<' || s[0] == '>' || s[0] == '|' || s[0] == '=')) {
        order = s[0] == '>' ? "big-endian " : "";
        if (s[0] == '=')
            order = "native-order ";
        s++, n--;
    }
    if (n < 2 || n > 4)
        return;
    unsigned bytes = 0;
    for (size_t i = 1; i < n; ++i) {
        if (!is_digit(s[i]))
            return;
        bytes = bytes * 10 + (unsigned)(s[i] - '0');
    }
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k)
        if (kinds[k].kind == (char)s[0]) {
            if (kinds[k].sized)
                snprintf(buf, cap, " (%s%s%u)", order, kinds[k].name, bytes * 8);
            else
                snprintf(buf, cap, " (%s%s)", order, kinds[k].name);
            return;
        }
}

static int parse_descr(cursor *c, const char *name, char *err, size_t errlen)
{
    if (peek(c) == '[') {
        message_prefixed(err, errlen, name, "dtype is a structured (record) dtype; expected '<f4' (float32)");
        return -1;
    }
    const unsigned char *s;
    size_t n;
    if (read_string(c, &s, &n) != 0) {
        return malformed(c, name, err, errlen, "'descr' is not a quoted string");
    }
    if (n == 3 && memcmp(s, "<f4", 3) == 0)
        return 0;
    char shown[48], what[64];
    describe_dtype(what, sizeof what, s, n);
    message_prefixed(err, errlen, name, "dtype '%s'%s is not supported; expected '<f4' (little-endian float32): "
         "save a.astype('<f4')",
         printable(shown, sizeof shown, s, n), what);
    return -1;
}

static int parse_fortran_order(cursor *c, const char *name, char *err, size_t errlen)
{
    if (read_word(c, "False") == 0)
        return 0;
    if (read_word(c, "True") == 0) {
        message_prefixed(err, errlen, name,
             "fortran_order is True; only C-order arrays are supported "
             "(save numpy.ascontiguousarray(a) instead)");
        return -1;
    }
    return malformed(c, name, err, errlen, "'fortran_order' is not True or False");
}

static int parse_shape(cursor *c, npy_header *h, const char *name, char *err, size_t errlen)
{
    if (peek(c) != '(') {
        return malformed(c, name, err, errlen, "'shape' is not a tuple");
    }
    c->pos++;
    skip_space(c);
    int commas = 0;
    while (peek(c) != ')') {
        if (h->ndim == NPY_MAX_DIMS) {
            message_prefixed(err, errlen, name, "shape has more than %d dimensions", NPY_MAX_DIMS);
            return -1;
        }
        const int negative = peek(c) == '-';
        if (negative)
            c->pos++;
        if (!is_digit(peek(c))) {
            return malformed(c, name, err, errlen, "dimension %d of 'shape' is not an integer", h->ndim);
        }
        int64_t value = 0;
        while (is_digit(peek(c))) {
            const int digit = peek(c) - '0';
            if (value > (INT64_MAX - digit) / 10) {
                message_prefixed(err, errlen, name, "dimension %d is too large (more than %" PRId64 ")", h->ndim,
                     INT64_MAX);
                return -1;
            }
            value = value * 10 + digit;
            c->pos++;
        }
        if (negative && value != 0) {
            message_prefixed(err, errlen, name, "dimension %d is negative (-%" PRId64 ")", h->ndim, value);
            return -1;
        }
        h->shape[h->ndim++] = value;
        skip_space(c);
        if (peek(c) == ',') {
            commas++;
            c->pos++;
            skip_space(c);
        } else if (peek(c) != ')') {
            return malformed(c, name, err, errlen, "expected ',' or ')' in 'shape'");
        }
    }
    if (h->ndim == 1 && commas == 0) {
        message_prefixed(err, errlen, name, "malformed header: 'shape' (%" PRId64 ") is not a tuple "
             "(a 1-d shape is written (%" PRId64 ",))", h->shape[0], h->shape[0]);
        return -1;
    }
    c->pos++;
    return 0;
}

/* the dict, from '{' to '}' and the padding after it */
static int parse_dict(cursor *c, npy_header *h, const char *name, char *err, size_t errlen)
{
    static const char *const keys[3] = {"descr", "fortran_order", "shape"};
    int seen[3] = {0, 0, 0};
    skip_space(c);
    if (peek(c) != '{') {
        return malformed(c, name, err, errlen, "it does not start with '{'");
    }
    c->pos++;
    for (;;) {
        skip_space(c);
        if (peek(c) == '}')
            break;
        const unsigned char *key;
        size_t key_len;
        if (read_string(c, &key, &key_len) != 0) {
            return malformed(c, name, err, errlen, "expected a quoted key or '}'");
        }
        int k = 0;
        while (k < 3 && !(strlen(keys[k]) == key_len && memcmp(keys[k], key, key_len) == 0))
            k++;
        if (k == 3) {
            char shown[48];
            message_prefixed(err, errlen, name, "header has unknown key '%s' (expected 'descr', 'fortran_order', "
                 "'shape')", printable(shown, sizeof shown, key, key_len));
            return -1;
        }
        if (seen[k]++) {
            message_prefixed(err, errlen, name, "header has key '%s' twice", keys[k]);
            return -1;
        }
        skip_space(c);
        if (peek(c) != ':') {
            return malformed(c, name, err, errlen, "expected ':' after '%s'", keys[k]);
        }
        c->pos++;
        skip_space(c);
        const int rc = k == 0 ? parse_descr(c, name, err, errlen)
                     : k == 1 ? parse_fortran_order(c, name, err, errlen)
                              : parse_shape(c, h, name, err, errlen);
        if (rc != 0)
            return -1;
        skip_space(c);
        if (peek(c) == ',') {
            c->pos++;
        } else if (peek(c) != '}') {
            return malformed(c, name, err, errlen, "expected ',' or '}' after '%s'", keys[k]);
        }
    }
    c->pos++;
    skip_space(c);
    if (c->pos != c->len) {
        return malformed(c, name, err, errlen, "unexpected text after the dict");
    }
    for (int k = 0; k < 3; ++k)
        if (!seen[k]) {
            message_prefixed(err, errlen, name, "header has no '%s' key", keys[k]);
            return -1;
        }
    return 0;
}

/* element count with checked arithmetic: like numpy, the product of the non-zero dimensions
 * times the item size must fit, even when another dimension is 0 */
static int count_elements(npy_header *h, const char *name, char *err, size_t errlen)
{
    int64_t nonzero_product = 1;
    int has_zero = 0;
    for (int i = 0; i < h->ndim; ++i) {
        if (h->shape[i] == 0) {
            has_zero = 1;
        } else if (nonzero_product > INT64_MAX / (int64_t)sizeof(float) / h->shape[i]) {
            char shape[256];
            message_prefixed(err, errlen, name, "shape %s is too large: its size in bytes overflows 64 bits",
                 npy_format_shape(shape, sizeof shape, h->ndim, h->shape));
            return -1;
        } else {
            nonzero_product *= h->shape[i];
        }
    }
    h->count = has_zero ? 0 : nonzero_product;
    return 0;
}

/*
 * Parses the preamble and the header of a file of file_size bytes whose first avail bytes are in
 * buf. Returns 0 with h filled, -1 with a message, or 1 when the header goes past avail (but not
 * past the file): then h->data_offset is the number of bytes needed, and the caller calls again.
 */
static int parse_header(const unsigned char *buf, size_t avail, uint64_t file_size, const char *name,
                        npy_header *h, char *err, size_t errlen)
{
    memset(h, 0, sizeof *h);
    const size_t have = avail < file_size ? avail : (size_t)file_size;
    if (memcmp(buf, npy_magic, have < MAGIC_LEN ? have : MAGIC_LEN) != 0 || file_size == 0) {
        message_prefixed(err, errlen, name, "not a .npy file (it does not start with \"\\x93NUMPY\")");
        return -1;
    }
    if (file_size < MAGIC_LEN + 2) {
        message_prefixed(err, errlen, name, "truncated: the file ends inside the .npy preamble (%" PRIu64 " bytes)",
             file_size);
        return -1;
    }
    const unsigned major = buf[6], minor = buf[7];
    if ((major != 1 && major != 2 && major != 3) || minor != 0) {
        message_prefixed(err, errlen, name, "unsupported .npy format version %u.%u (supported: 1.0, 2.0, 3.0)", major,
             minor);
        return -1;
    }
    const size_t length_bytes = major == 1 ? 2 : 4;
    const size_t prefix = MAGIC_LEN + 2 + length_bytes;
    if (file_size < prefix) {
        message_prefixed(err, errlen, name, "truncated: the file ends inside the .npy preamble (%" PRIu64 " bytes)",
             file_size);
        return -1;
    }
    uint64_t header_len = (uint64_t)buf[8] | (uint64_t)buf[9] << 8;
    if (length_bytes == 4)
        header_len |= (uint64_t)buf[10] << 16 | (uint64_t)buf[11] << 24;
    if (header_len > file_size - prefix) {
        message_prefixed(err, errlen, name, "header length %" PRIu64 " runs past the end of the file (%" PRIu64
             " bytes after the %zu-byte preamble)", header_len, file_size - prefix, prefix);
        return -1;
    }
    h->data_offset = prefix + (size_t)header_len;
    if (h->data_offset > avail)
        return 1;
    cursor c = {buf + prefix, (size_t)header_len, 0};
    if (parse_dict(&c, h, name, err, errlen) != 0 || count_elements(h, name, err, errlen) != 0)
        return -1;
    h->data_bytes = (uint64_t)h->count * sizeof(float);
    const uint64_t found = file_size - h->data_offset;
    if (found != h->data_bytes) {
        char shape[256];
        npy_format_shape(shape, sizeof shape, h->ndim, h->shape);
        if (found < h->data_bytes)
            message_prefixed(err, errlen, name, "truncated: shape %s of float32 needs %" PRIu64
                 " data bytes, found %" PRIu64, shape, h->data_bytes, found);
        else
            message_prefixed(err, errlen, name, "%" PRIu64 " trailing bytes after the data (shape %s of float32 needs %"
                 PRIu64 " data bytes, found %" PRIu64 ")", found - h->data_bytes, shape, h->data_bytes,
                 found);
        return -1;
    }
    return 0;
}

/* fills out from h and allocates the data (at least one element, so data is never NULL) */
static int allocate_array(const npy_header *h, npy_array *out, const char *name, char *err,
                          size_t errlen)
{
    out->ndim = h->ndim;
    memcpy(out->shape, h->shape, sizeof out->shape);
    out->count = h->count;
    out->data = malloc(h->data_bytes ? (size_t)h->data_bytes : sizeof(float));
    if (!out->data) {
        message_prefixed(err, errlen, name, "out of memory for %" PRIu64 " bytes of data", h->data_bytes);
        memset(out, 0, sizeof *out);
        return -1;
    }
    return 0;
}

int npy_parse_f32(const unsigned char *buf, size_t len, const char *name, npy_array *out, char *err,
                  size_t errlen)
{
    memset(out, 0, sizeof *out);
    npy_header h;
    if (parse_header(buf, len, len, name, &h, err, errlen) != 0)
        return -1; /* never 1: the whole file is in buf */
    if (allocate_array(&h, out, name, err, errlen) != 0)
        return -1;
    if (h.data_bytes)
        memcpy(out->data, buf + h.data_offset, (size_t)h.data_bytes);
    return 0;
}

int npy_read_f32(const char *path, npy_array *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) { /* checked before open: a fifo would block */
        message_prefixed(err, errlen, path, "not a regular file");
        return -1;
    }
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        message_prefixed(err, errlen, path, "%s", strerror(errno));
        return -1;
    }
    unsigned char *header = NULL;
    int rc = -1;
    if (fstat(fileno(fp), &st) != 0) {
        message_prefixed(err, errlen, path, "%s", strerror(errno));
        goto done;
    }
    if (!S_ISREG(st.st_mode)) {
        message_prefixed(err, errlen, path, "not a regular file");
        goto done;
    }
    const uint64_t file_size = (uint64_t)st.st_size;
    unsigned char prefix[PREFIX_MAX];
    const size_t prefix_len = file_size < PREFIX_MAX ? (size_t)file_size : PREFIX_MAX;
    if (fread(prefix, 1, prefix_len, fp) != prefix_len) {
        message_prefixed(err, errlen, path, "read error: %s", ferror(fp) ? strerror(errno) : "file shrank");
        goto done;
    }
    npy_header h;
    int parsed = parse_header(prefix, prefix_len, file_size, path, &h, err, errlen);
    if (parsed == 1) { /* the header is in the file: read all of it and parse again */
        header = malloc(h.data_offset);
        if (!header) {
            message_prefixed(err, errlen, path, "out of memory for a %zu-byte header", h.data_offset);
            goto done;
        }
        memcpy(header, prefix, prefix_len);
        const size_t rest = h.data_offset - prefix_len;
        if (fread(header + prefix_len, 1, rest, fp) != rest) {
            message_prefixed(err, errlen, path, "read error: %s", ferror(fp) ? strerror(errno) : "file shrank");
            goto done;
        }
        parsed = parse_header(header, h.data_offset, file_size, path, &h, err, errlen);
    }
    if (parsed != 0 || allocate_array(&h, out, path, err, errlen) != 0)
        goto done;
    if (fread(out->data, 1, (size_t)h.data_bytes, fp) != h.data_bytes) {
        message_prefixed(err, errlen, path, "read error: %s", ferror(fp) ? strerror(errno) : "file shrank");
        goto done;
    }
    if (fgetc(fp) != EOF) {
        message_prefixed(err, errlen, path, "the file grew while it was read");
        goto done;
    }
    rc = 0;
done:
    if (rc != 0)
        npy_free(out);
    free(header);
    fclose(fp);
    return rc;
}

void npy_free(npy_array *a)
{
    free(a->data);
    memset(a, 0, sizeof *a);
}

size_t npy_header_f32(unsigned char *buf, size_t cap, int ndim, const int64_t *shape)
{
    if (ndim < 0 || ndim > NPY_MAX_DIMS)
        return 0;
    for (int i = 0; i < ndim; ++i)
        if (shape[i] < 0)
            return 0;
    /* numpy: "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", spaces for the first
     * dimension to grow to GROWTH_AXIS_MAX_DIGITS digits, spaces to align, "\n" */
    char dict[512], tuple[256];
    int n = snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }",
                     npy_format_shape(tuple, sizeof tuple, ndim, shape));
    if (ndim > 0) {
        char first[24];
        const int digits = snprintf(first, sizeof first, "%" PRId64, shape[0]);
        n += snprintf(dict + n, sizeof dict - (size_t)n, "%*s", GROWTH_AXIS_MAX_DIGITS - digits, "");
    }
    const size_t prefix = MAGIC_LEN + 2 + 2;
    const size_t text_len = (size_t)n + 1; /* with the newline */
    const size_t pad = ARRAY_ALIGN - (prefix + text_len) % ARRAY_ALIGN;
    const size_t total = prefix + text_len + pad;
    if (total > cap)
        return 0;
    const size_t header_len = text_len + pad;
    memcpy(buf, npy_magic, MAGIC_LEN);
    buf[6] = 1;
    buf[7] = 0;
    buf[8] = (unsigned char)(header_len & 0xff);
    buf[9] = (unsigned char)(header_len >> 8);
    memcpy(buf + prefix, dict, (size_t)n);
    memset(buf + prefix + n, ' ', pad);
    buf[total - 1] = '\n';
    return total;
}

int npy_write_f32(const char *path, const float *data, int ndim, const int64_t *shape, char *err,
                  size_t errlen)
{
    if (ndim < 0 || ndim > NPY_MAX_DIMS) {
        message_prefixed(err, errlen, path, "cannot write %d dimensions (0 to %d are supported)", ndim, NPY_MAX_DIMS);
        return -1;
    }
    npy_header h = {.ndim = ndim};
    for (int i = 0; i < ndim; ++i) {
        if (shape[i] < 0) {
            message_prefixed(err, errlen, path, "cannot write dimension %d = %" PRId64 " (negative)", i, shape[i]);
            return -1;
        }
        h.shape[i] = shape[i];
    }
    if (count_elements(&h, path, err, errlen) != 0)
        return -1;
    if (!data && h.count > 0) {
        message_prefixed(err, errlen, path, "no data to write (NULL) for %" PRId64 " elements", h.count);
        return -1;
    }
    unsigned char header[1024];
    const size_t header_len = npy_header_f32(header, sizeof header, ndim, shape);
    if (header_len == 0) { /* cannot happen for a shape that passed the checks above */
        message_prefixed(err, errlen, path, "internal error: no .npy header for this shape");
        return -1;
    }
    outfile f;
    if (outfile_open(&f, path, 0, err, errlen) != 0)
        return -1;
    outfile_write(&f, header, header_len);
    outfile_write(&f, data, (size_t)h.count * sizeof(float));
    return outfile_commit(&f, err, errlen);
}

int npy_expect_shape(const npy_array *a, const char *path, int ndim, const int64_t *shape,
                     const char *what, char *err, size_t errlen)
{
    int matches = a->ndim == ndim;
    for (int i = 0; matches && i < ndim; ++i)
        matches = shape[i] < 0 || shape[i] == a->shape[i];
    if (matches)
        return 0;
    char want[256], got[256];
    npy_format_shape(want, sizeof want, ndim, shape);
    npy_format_shape(got, sizeof got, a->ndim, a->shape);
    const char *symbolic = strstr(what, " (");
    if (symbolic)
        message_prefixed(err, errlen, path, "%.*s must have shape %s = %s, got %s", (int)(symbolic - what), what,
             symbolic + 1, want, got);
    else
        message_prefixed(err, errlen, path, "%s must have shape %s, got %s", what, want, got);
    return -1;
}

/*
 * outfile.h - write an output file all-or-nothing. The bytes go to a temporary file in the same
 * directory ("<path>.tmp.XXXXXX"); outfile_commit renames it onto <path> only if every write,
 * the flush and the close succeeded. On any failure the temporary is removed, <path> is left as
 * it was, and the message is "<path>: <strerror>".
 *
 *     outfile f;
 *     if (outfile_open(&f, "out.csv", 0, err, sizeof err) != 0) { report(err); return -1; }
 *     outfile_printf(&f, "n,c,y\n");           // errors are sticky: check once, at commit
 *     outfile_write(&f, bytes, nbytes);
 *     if (outfile_commit(&f, err, sizeof err) != 0) { report(err); return -1; }
 *
 * A caller that gives up half way calls outfile_abort (removes the temporary). After commit or
 * abort the outfile holds nothing; both are safe to call once per successful open.
 * The new file gets the usual permissions (0666 less the umask). Paths that exist but are not
 * regular files (/dev/null, a fifo, a directory) are refused rather than replaced.
 */
#ifndef CGP_OUTFILE_H
#define CGP_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

/* outfile_open flags */
#define OUTFILE_FSYNC 1u /* fsync the file and its directory before and after the rename */

typedef struct outfile {
    FILE *stream;    /* the temporary; NULL when closed */
    char *path;      /* final path (owned copy) */
    char *tmp_path;  /* temporary path (owned) */
    unsigned flags;
    int error;       /* errno of the first failed write, 0 if none */
} outfile;

/* Creates the temporary. Returns 0, or -1 with "<path>: <strerror>" in err. */
int outfile_open(outfile *f, const char *path, unsigned flags, char *err, size_t errlen);

/* Whether outfile_open(path) would succeed now, checked before long work so that a typo does not lose its result:
 * creates the temporary and removes it. Returns 0, or -1 with "<path>: <why>" in err. */
int outfile_check(const char *path, char *err, size_t errlen);

/* Appends bytes. Returns 0, or -1 after a failure (this one or an earlier one). */
int outfile_write(outfile *f, const void *data, size_t bytes);

/* Appends formatted text. Returns 0, or -1 after a failure (this one or an earlier one). */
int outfile_printf(outfile *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* s as one CSV field: in double quotes, a quote inside doubled. Returns 0, or -1 (as outfile_write). */
int outfile_csv_text(outfile *f, const char *s);

/* Flushes, optionally fsyncs, closes and renames onto the path. Returns 0, or -1 with
 * "<path>: <strerror>" in err (the temporary is removed, the path untouched). */
int outfile_commit(outfile *f, char *err, size_t errlen);

/* Closes and removes the temporary; the path is untouched. */
void outfile_abort(outfile *f);

#endif

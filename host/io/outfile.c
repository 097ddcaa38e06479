/* outfile.c - all-or-nothing output files: see outfile.h. Tested by tests/cpu/cpu_npy.c. */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void set_error(char *err, size_t errlen, const char *path, int errnum)
{
    snprintf(err, errlen, "%s: %s", path, strerror(errnum));
}

static void release(outfile *f)
{
    free(f->path);
    free(f->tmp_path);
    f->path = f->tmp_path = NULL;
    f->stream = NULL;
}

/* 0666 less the process umask (umask can only be read by setting it, so set it back at once) */
static mode_t new_file_mode(void)
{
    const mode_t mask = umask(022);
    umask(mask);
    return 0666 & ~mask;
}

/* fsync the directory holding path, so that a rename in it is durable */
static int sync_directory(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    if (!dir)
        return ENOMEM;
    int rc = 0;
    const int fd = open(dir, O_RDONLY);
    if (fd < 0 || fsync(fd) != 0)
        rc = errno;
    if (fd >= 0)
        close(fd);
    free(dir);
    return rc;
}

int outfile_open(outfile *f, const char *path, unsigned flags, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    f->flags = flags;
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: exists and is not a regular file", path);
        return -1;
    }
    const size_t len = strlen(path);
    static const char suffix[] = ".tmp.XXXXXX";
    f->path = strdup(path);
    f->tmp_path = malloc(len + sizeof suffix);
    if (!f->path || !f->tmp_path) {
        release(f);
        set_error(err, errlen, path, ENOMEM);
        return -1;
    }
    memcpy(f->tmp_path, path, len);
    memcpy(f->tmp_path + len, suffix, sizeof suffix);
    const int fd = mkstemp(f->tmp_path);
    if (fd < 0) {
        set_error(err, errlen, path, errno);
        release(f);
        return -1;
    }
    if (fchmod(fd, new_file_mode()) != 0 || !(f->stream = fdopen(fd, "wb"))) {
        set_error(err, errlen, path, errno);
        close(fd);
        unlink(f->tmp_path);
        release(f);
        return -1;
    }
    return 0;
}

int outfile_check(const char *path, char *err, size_t errlen)
{
    outfile f;
    if (outfile_open(&f, path, 0, err, errlen) != 0)
        return -1;
    outfile_abort(&f);
    return 0;
}

int outfile_write(outfile *f, const void *data, size_t bytes)
{
    if (f->error)
        return -1;
    errno = 0;
    if (bytes && fwrite(data, 1, bytes, f->stream) != bytes) {
        f->error = errno ? errno : EIO;
        return -1;
    }
    return 0;
}

int outfile_printf(outfile *f, const char *fmt, ...)
{
    if (f->error)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    errno = 0;
    const int n = vfprintf(f->stream, fmt, ap);
    va_end(ap);
    if (n < 0) {
        f->error = errno ? errno : EIO;
        return -1;
    }
    return 0;
}

int outfile_csv_text(outfile *f, const char *s)
{
    int rc = outfile_write(f, "\"", 1);
    for (; *s && rc == 0; ++s)
        rc = outfile_write(f, *s == '"' ? "\"\"" : s, *s == '"' ? 2 : 1);
    return rc == 0 ? outfile_write(f, "\"", 1) : rc;
}

int outfile_commit(outfile *f, char *err, size_t errlen)
{
    int error = f->error;
    if (!error && fflush(f->stream) != 0)
        error = errno;
    if (!error && (f->flags & OUTFILE_FSYNC) && fsync(fileno(f->stream)) != 0)
        error = errno;
    if (fclose(f->stream) != 0 && !error)
        error = errno;
    if (!error && rename(f->tmp_path, f->path) != 0)
        error = errno;
    if (!error && (f->flags & OUTFILE_FSYNC))
        error = sync_directory(f->path);
    if (error) {
        unlink(f->tmp_path); /* fails harmlessly when the rename already happened */
        set_error(err, errlen, f->path, error);
        release(f);
        return -1;
    }
    release(f);
    return 0;
}

void outfile_abort(outfile *f)
{
    if (f->stream) {
        fclose(f->stream);
        unlink(f->tmp_path);
    }
    release(f);
}

/*
 * clilib.h - helpers for tests that run the `cgp` program: run a command line through the shell
 * with stdout and stderr captured to files, and look for text in them. $CGP names the binary
 * (tests/run_tests.sh sets it), $CGP_TEST_TMP a scratch directory.
 */
#ifndef CGP_CLILIB_H
#define CGP_CLILIB_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

typedef struct cli_result {
    int exit_code;   /* -1 if the command could not run or was killed */
    char out[8192];  /* stdout (truncated) */
    char err[8192];  /* stderr (truncated) */
} cli_result;

static inline const char *cli_binary(void)
{
    const char *c = getenv("CGP");
    return c && c[0] ? c : "build/cgp";
}

static inline const char *cli_tmpdir(void)
{
    const char *t = getenv("CGP_TEST_TMP");
    return t && t[0] ? t : "/tmp";
}

static inline void cli_read_file(const char *path, char *buf, size_t cap)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    const size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = '\0';
    fclose(f);
}

/* Runs "$CGP <args>" (args is shell text). */
static inline cli_result cli_run(const char *args)
{
    cli_result r;
    char out_path[512], err_path[512], cmd[4096];
    snprintf(out_path, sizeof out_path, "%s/cli_stdout.txt", cli_tmpdir());
    snprintf(err_path, sizeof err_path, "%s/cli_stderr.txt", cli_tmpdir());
    snprintf(cmd, sizeof cmd, "%s %s >%s 2>%s", cli_binary(), args, out_path, err_path);
    const int status = system(cmd);
    r.exit_code = (status != -1 && WIFEXITED(status)) ? WEXITSTATUS(status) : -1;
    cli_read_file(out_path, r.out, sizeof r.out);
    cli_read_file(err_path, r.err, sizeof r.err);
    return r;
}

static inline int file_exists(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f)
        fclose(f);
    return f != NULL;
}

#endif

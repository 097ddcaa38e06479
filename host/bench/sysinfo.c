/* sysinfo.c - see sysinfo.h. */
#include "sysinfo.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>
#if CGP_HAVE_CUDNN
#include <cudnn.h>
#endif

/* "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ..." */
static int driver_from_proc(char *out, size_t cap)
{
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    if (!f)
        return 0;
    char line[512];
    const int got = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    for (char *save = NULL, *tok = got ? strtok_r(line, " \t\n", &save) : NULL; tok; tok = strtok_r(NULL, " \t\n", &save)) {
        unsigned major = 0, minor = 0;
        if (sscanf(tok, "%u.%u", &major, &minor) == 2 && major >= 100) { /* the first version-looking token */
            snprintf(out, cap, "%s", tok);
            return 1;
        }
    }
    return 0;
}

static void driver_version(char *out, size_t cap)
{
    int v = 0;
    if (driver_from_proc(out, cap))
        return;
    if (cudaDriverGetVersion(&v) == cudaSuccess && v > 0)
        snprintf(out, cap, "CUDA driver API %d.%d", v / 1000, (v % 1000) / 10);
    else
        snprintf(out, cap, "unknown");
}

void sysinfo_collect(sysinfo *s)
{
    memset(s, 0, sizeof *s);
    snprintf(s->device, sizeof s->device, "unknown");
    int dev = 0;
    struct cudaDeviceProp prop;
    if (cudaGetDevice(&dev) == cudaSuccess && cudaGetDeviceProperties(&prop, dev) == cudaSuccess) {
        snprintf(s->device, sizeof s->device, "%s", prop.name);
        s->sm_count = prop.multiProcessorCount;
        s->cc_major = prop.major;
        s->cc_minor = prop.minor;
    }
    driver_version(s->driver, sizeof s->driver);
    snprintf(s->runtime, sizeof s->runtime, "%d.%d", CUDART_VERSION / 1000, (CUDART_VERSION % 1000) / 10);
#if CGP_HAVE_CUDNN
    const size_t v = cudnnGetVersion();
    snprintf(s->cudnn, sizeof s->cudnn, "%zu.%zu.%zu", v / 10000, (v % 10000) / 100, v % 100);
#else
    snprintf(s->cudnn, sizeof s->cudnn, "none");
#endif
    snprintf(s->commit, sizeof s->commit, "%s", cgp_git_commit);
    const time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(s->date, sizeof s->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

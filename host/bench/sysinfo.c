/* sysinfo.c - see sysinfo.h. */
#include "sysinfo.h"

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
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

/* 1 when a file matches pattern, its name into found[] */
static int first_match(const char *pattern, char *found, size_t cap)
{
    glob_t g;
    found[0] = '\0';
    const int hit = glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc > 0;
    if (hit)
        snprintf(found, cap, "%s", g.gl_pathv[0]);
    globfree(&g);
    return hit;
}

int sysinfo_no_device_reason(int error, char *why, size_t cap)
{
    const cudaError_t e = (cudaError_t)error;
    char cuda[256], node[256];
    if (e != cudaSuccess)
        snprintf(cuda, sizeof cuda, "cudaGetDeviceCount: %s (%s)", cudaGetErrorName(e), cudaGetErrorString(e));
    else
        snprintf(cuda, sizeof cuda, "cudaGetDeviceCount counts 0 devices");
    const int present = first_match("/dev/nvidia[0-9]*", node, sizeof node) ||
                        first_match("/proc/driver/nvidia/gpus/*", node, sizeof node);
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    if (present && visible && e == cudaErrorNoDevice) {
        snprintf(why, cap, "the NVIDIA device %s is hidden by CUDA_VISIBLE_DEVICES=\"%s\"; %s", node, visible, cuda);
        return 0;
    }
    if (present)
        snprintf(why, cap, "this machine has an NVIDIA device (%s) but CUDA cannot use it: %s", node, cuda);
    else
        snprintf(why, cap, "no NVIDIA GPU on this machine (no /dev/nvidia<N>, nothing in /proc/driver/nvidia/gpus); %s",
                 cuda);
    return present;
}

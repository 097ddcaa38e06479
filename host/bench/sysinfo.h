/*
 * sysinfo.h - the identity every result carries: device name, driver, CUDA runtime and cuDNN
 * versions, SM count, git commit of the build and the date (UTC).
 */
#ifndef CGP_SYSINFO_H
#define CGP_SYSINFO_H

#include <stddef.h>

typedef struct sysinfo {
    char device[256];
    char driver[64];  /* e.g. "580.159.04" (from /proc/driver/nvidia/version), else the CUDA driver API version */
    char runtime[32]; /* CUDA runtime the tool was built with, e.g. "13.0" */
    char cudnn[32];   /* "9.19.0", or "none" when built without cuDNN */
    char commit[64];
    char date[32];    /* ISO 8601 UTC */
    int sm_count;
    int cc_major, cc_minor;
} sysinfo;

/* Fills what it can; never fails (fields it cannot read say "unknown"). */
void sysinfo_collect(sysinfo *s);

/* Why CUDA has no usable device, after cudaGetDeviceCount gave `error` (or counted 0 with cudaSuccess), into why[]:
 * "no NVIDIA GPU on this machine (...)" when the machine has no device node /dev/nvidia<N> and no GPU in
 * /proc/driver/nvidia/gpus; "the NVIDIA device <node> is hidden by CUDA_VISIBLE_DEVICES=..." when it has one and
 * that variable leaves CUDA none; else "this machine has an NVIDIA device (<node>) but CUDA cannot use it"; each
 * followed by CUDA's error. Returns 1 in the last case (a device CUDA should use: a broken driver), else 0. */
int sysinfo_no_device_reason(int error, char *why, size_t cap);

extern const char *const cgp_git_commit; /* build/gen/version.c */

#endif

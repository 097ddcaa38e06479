/*
 * sysinfo.h - the identity every result carries: device name, driver, CUDA runtime and cuDNN
 * versions, SM count, git commit of the build and the date (UTC).
 */
#ifndef CGP_SYSINFO_H
#define CGP_SYSINFO_H

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

extern const char *const cgp_git_commit; /* build/gen/version.c */

#endif

/*
 * roofline_overlap.c - `cgp roofline --overlap`: the overlap probe of issue 39 (host/bench/probe_overlap.h): does a
 * wgmma loop in one warpgroup run at the same time as a GELU epilogue loop in another? Measures every configuration
 * (wgmma m64n256k8 and m64n128k8, blocks of 2 warpgroups and of 3 with setmaxnreg), prints per configuration the
 * four modes' times, the wgmma and GELU rates alone, both / max(wgmma, gelu), both / (wgmma + gelu) and
 * serial / (wgmma + gelu), and writes them with --csv, one row a mode.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "chart.h"
#include "cli.h"
#include "outfile.h"
#include "probe_overlap.h"
#include "roofline_run.h"
#include "sysinfo.h"

#define COMMAND "cgp roofline --overlap"

/* ",value", or "," alone where v is 0 or not finite (not measured) */
static void csv_number(outfile *o, const char *fmt, double v)
{
    outfile_printf(o, ",");
    if (isfinite(v) && v != 0.0)
        outfile_printf(o, fmt, v);
}

static int write_csv(const char *path, const sysinfo *si, const overlap_result *r, char *err, size_t errlen)
{
    outfile o;
    if (outfile_open(&o, path, 0, err, errlen) != 0)
        return -1;
    outfile_printf(&o, "date,device,sm_count,driver,cuda,commit,n,layout,threads,blocks,mode,wgmma_trips,gelu_passes,"
                       "registers,local_bytes,median_ms,min_ms,max_ms,wgmma_flops,gelus,wgmma_flops_per_s,"
                       "gelus_per_s,gelu_over_wgmma,both_over_max,both_over_sum,serial_over_sum,verdict,status\n");
    for (int k = 0; k < OVERLAP_CONFIGS; ++k) {
        const overlap_result *c = &r[k];
        for (int m = 0; m < OVERLAP_MODES; ++m) {
            if (c->unavailable[0] && m > 0)
                break; /* one row says why */
            outfile_printf(&o, "%s,", si->date);
            outfile_csv_text(&o, si->device);
            outfile_printf(&o, ",%d,", si->sm_count);
            outfile_csv_text(&o, si->driver);
            outfile_printf(&o, ",%s,%s,%d,", si->runtime, si->commit, c->n);
            outfile_csv_text(&o, overlap_layout_name(c->layout));
            outfile_printf(&o, ",%d,%d,%s,%d,%d,%d,%d", c->threads, c->blocks, c->unavailable[0] ? "" : overlap_mode_name(m),
                           c->wgmma_trips, c->gelu_passes, c->registers[m], c->local_bytes[m]);
            const int does_wgmma = m != OVERLAP_GELU, does_gelu = m != OVERLAP_WGMMA;
            const double seconds = c->median_ms[m] * 1e-3;
            csv_number(&o, "%.5f", c->median_ms[m]);
            csv_number(&o, "%.5f", c->min_ms[m]);
            csv_number(&o, "%.5f", c->max_ms[m]);
            csv_number(&o, "%.6g", does_wgmma ? c->wgmma_flops : 0.0);
            csv_number(&o, "%.6g", does_gelu ? c->gelu_count : 0.0);
            csv_number(&o, "%.6g", does_wgmma && seconds > 0.0 ? c->wgmma_flops / seconds : 0.0);
            csv_number(&o, "%.6g", does_gelu && seconds > 0.0 ? c->gelu_count / seconds : 0.0);
            csv_number(&o, "%.4f", c->balance);
            csv_number(&o, "%.4f", c->both_over_max);
            csv_number(&o, "%.4f", c->both_over_sum);
            csv_number(&o, "%.4f", c->serial_over_sum);
            outfile_printf(&o, ",%s,", overlap_verdict(c));
            outfile_csv_text(&o, c->unavailable[0] ? c->unavailable : "measured");
            outfile_printf(&o, "\n");
        }
    }
    return outfile_commit(&o, err, errlen);
}

/* one configuration: a line a mode, the rates spelled out, then the ratios */
static void print_modes(const overlap_result *c)
{
    printf("\nwgmma m64n%dk8 tf32, %s (%d threads a block), %d blocks:", c->n, overlap_layout_name(c->layout),
           c->threads ? c->threads : (c->layout == OVERLAP_TWO_WARPGROUPS ? 256 : 384), c->blocks);
    if (c->unavailable[0]) {
        printf(" not measured: %s\n", c->unavailable);
        return;
    }
    printf(" %d wgmma trips (%d wgmmas a warpgroup), %d GELU passes (%d GELUs a thread); gelu / wgmma time %.3f\n",
           c->wgmma_trips, c->wgmma_trips * OVERLAP_WGMMA_PER_TRIP, c->gelu_passes,
           c->gelu_passes * OVERLAP_GELU_PER_PASS, c->balance);
    printf("  %-7s %10s %10s %10s %5s %6s  %s\n", "mode", "median ms", "min ms", "max ms", "regs", "local",
           "rates (work / median)");
    for (int m = 0; m < OVERLAP_MODES; ++m) {
        const double seconds = c->median_ms[m] * 1e-3;
        char rates[96] = "", q[32];
        if (m != OVERLAP_GELU) {
            chart_format_quantity(c->wgmma_flops / seconds, 4, "FLOP/s", q, sizeof q);
            snprintf(rates, sizeof rates, "wgmma %s", q);
        }
        if (m != OVERLAP_WGMMA) {
            chart_format_quantity(c->gelu_count / seconds, 4, "GELU/s", q, sizeof q);
            const size_t used = strlen(rates);
            snprintf(rates + used, sizeof rates - used, "%sGELU %s", used ? ", " : "", q);
        }
        printf("  %-7s %10.4f %10.4f %10.4f %5d %6d  %s\n", overlap_mode_name(m), c->median_ms[m], c->min_ms[m],
               c->max_ms[m], c->registers[m], c->local_bytes[m], rates);
    }
    printf("  both / max(wgmma, gelu) %.3f, both / (wgmma + gelu) %.3f, serial / (wgmma + gelu) %.3f: %s\n",
           c->both_over_max, c->both_over_sum, c->serial_over_sum, overlap_verdict(c));
}

int roofline_overlap(int warmup, int iters, const char *csv)
{
    if (!cli_require_device(COMMAND))
        return EXIT_FAIL;
    sysinfo si;
    sysinfo_collect(&si);
    printf("%s: %s (%d SMs, cc %d.%d), driver %s, CUDA %s, commit %s, %s\n", COMMAND, si.device, si.sm_count,
           si.cc_major, si.cc_minor, si.driver, si.runtime, si.commit, si.date);
    const char *why = probe_overlap_unsupported(si.cc_major, si.cc_minor);
    if (why) {
        fprintf(stderr, "%s: not measured: %s\n", COMMAND, why);
        return EXIT_FAIL;
    }
    fflush(stdout);
    static overlap_result r[OVERLAP_CONFIGS];
    char err[512];
    if (overlap_measure(warmup, iters, r, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", COMMAND, err);
        return EXIT_FAIL;
    }
    printf("\nwarpgroup 0: the wgmma loop (4 wgmma.mma_async a trip from shared memory, 2 groups in flight); warpgroup 1: "
           "the GELU loop (64 x 128 fp32 fragment in registers: * scale + bias, gelu_x2, column sums, warp butterfly); "
           "one block an SM; each mode %d warm-up launches, then the median of %d timed with CUDA events. "
           "wgmma, gelu: each alone; both: at once in their two warpgroups; serial: warpgroup 0 alone, %d wgmma trips "
           "then their share of the GELU passes, again (the sum reference)\n",
           warmup, iters, OVERLAP_CHUNK_TRIPS);
    int measured = 0;
    for (int k = 0; k < OVERLAP_CONFIGS; ++k) {
        print_modes(&r[k]);
        measured += !r[k].unavailable[0];
    }
    printf("\nverdict (overlap: both <= 1.15 x max(wgmma, gelu); sum: both >= 0.9 x (wgmma + gelu); else partial):");
    for (int k = 0; k < OVERLAP_CONFIGS; ++k)
        printf("%s N=%d %s %s", k ? ";" : "", r[k].n, r[k].layout == OVERLAP_TWO_WARPGROUPS ? "2wg" : "3wg+setmaxnreg",
               overlap_verdict(&r[k]));
    printf("\n");
    int rc = measured > 0 ? EXIT_OK : EXIT_FAIL;
    if (measured == 0)
        fprintf(stderr, "%s: no configuration could be measured (see above)\n", COMMAND);
    if (csv) {
        if (write_csv(csv, &si, r, err, sizeof err) != 0) {
            fprintf(stderr, "%s: %s\n", COMMAND, err);
            rc = EXIT_BAD_INPUT;
        } else {
            printf("wrote %s\n", csv);
        }
    }
    return rc;
}

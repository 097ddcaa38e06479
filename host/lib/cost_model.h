/*
 * cost_model.h - the heuristic selection's cost model: a kernel version's GPU time on a problem, predicted from the
 * problem's features (its size, the fill of the tiles and channel chunks the kernels use, the tiles against the
 * SMs: waves and their fill): per version, a linear part and boosted regression trees on what it leaves, fitted
 * to GPU times measured on one GPU (cost_model_table.h, from scripts/fit_cost_model.py over `cgp select
 * --candidates-csv`). No GPU work and no CUDA
 * call: plain host code, the same answer for the same problem and device, tested on the CPU
 * (tests/cpu/cpu_cost_model.c) against the heuristic picks the GPU run recorded.
 */
#ifndef CGP_COST_MODEL_H
#define CGP_COST_MODEL_H

#include "kernel_info.h"

/* 1 with the predicted GPU milliseconds of version `version` on p in *ms, or 0 when the model has no coefficients
 * for that version (too few measured shapes to fit). */
int cgp_cost_model_ms(int version, const cgp_problem *p, const cgp_device_info *d, double *ms);

#endif

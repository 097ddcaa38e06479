/*
 * path_shapes.h - one fixed shape for every (kernel version, path) pair the versions' hooks can choose on an H200
 * (tests/cpu/cpu_paths.c checks, on the CPU for a described H200, that these reach every pair its sweep reaches;
 * tests/gpu/gpu_fused.c runs each on its version and holds the path its launch recorded against the hook's;
 * tests/gpu/sanitize_main.c runs each under compute-sanitizer). Each the cheapest shape of the sweep reaching its
 * pair, but fp32-v10's 128-channel K split 8, whose sweep shape (1x512x256x33x33: 30 clusters of 8 blocks, 8 chunks
 * a block) ran over 345 s under racecheck: the fewest clusters of a finer search (27, 5 chunks a block), tf32-v21's
 * K split 4, whose cheapest sweep shapes (Cin 128) tie in its cost model with 64 channels split 2: Cin 256, and
 * tf32-v21's two-images-a-tile paths and the one-image paths they took over from narrow planes: shapes of a finer
 * search (W 9 and 12, or N 23 with W 3 and 4 where the estimate keeps one image a tile; an odd N, so that a last pair
 * holds one image, and padding same, whose window column between the two images is both images' padding, where the
 * sweep's cheapest have neither);
 * weights_misaligned: the run's weight pointer 4 bytes past a 16-byte boundary (the 4-byte weight copies of the
 * versions that copy whole chunks 16 bytes at a time otherwise).
 */
#ifndef CGP_PATH_SHAPES_H
#define CGP_PATH_SHAPES_H

#include <stdio.h>

#include "cgp.h"

typedef struct path_shape {
    int version;
    cgp_shape shape;
    cgp_padding padding;
    int weights_misaligned;
} path_shape;

/* "path v<version> NxCINxCOUTxHxW <padding>[, weights + 4 bytes]" */
static inline void path_shape_name(const path_shape *f, char *name, size_t cap)
{
    snprintf(name, cap, "path v%d %lldx%lldx%lldx%lldx%lld %s%s", f->version, (long long)f->shape.n,
             (long long)f->shape.cin, (long long)f->shape.cout, (long long)f->shape.h, (long long)f->shape.w,
             f->padding == CGP_PADDING_SAME ? "same" : "valid", f->weights_misaligned ? ", weights + 4 bytes" : "");
}

static const path_shape path_shapes[] = {
    {9, {1, 8, 64, 3, 3}, CGP_PADDING_VALID, 0}, /* winograd-f4x4 */
    {9, {1, 8, 64, 4, 8}, CGP_PADDING_SAME, 0}, /* winograd-f4x4, shifted window */
    {38, {1, 8, 1, 4, 8}, CGP_PADDING_SAME, 0}, /* TMA winograd-f4x4 16x32 px x 32 ch */
    {38, {1, 56, 1, 16, 16}, CGP_PADDING_SAME, 0}, /* TMA winograd-f4x4 16x32 px x 32 ch, K split 2 */
    {38, {1, 64, 1, 16, 16}, CGP_PADDING_SAME, 0}, /* TMA winograd-f4x4 16x32 px x 32 ch, K split 4 */
    {38, {1, 1, 1, 4, 8}, CGP_PADDING_VALID, 0}, /* TMA winograd-f4x4 16x32 px x 32 ch, 4-byte weights */
    {38, {1, 36, 1, 12, 12}, CGP_PADDING_SAME, 0}, /* TMA winograd-f4x4 ..., K split 2, 4-byte weights */
    {38, {1, 64, 1, 16, 16}, CGP_PADDING_SAME, 1}, /* TMA winograd-f4x4 ..., K split 4, 4-byte weights */
    {38, {1, 8, 1, 5, 7}, CGP_PADDING_SAME, 0}, /* cp.async, winograd-f4x4 16x32 px x 32 ch */
    {38, {1, 56, 1, 15, 15}, CGP_PADDING_SAME, 0}, /* cp.async, winograd-f4x4 16x32 px x 32 ch, K split 2 */
    {38, {1, 64, 1, 17, 17}, CGP_PADDING_SAME, 0}, /* cp.async, winograd-f4x4 16x32 px x 32 ch, K split 4 */
    {38, {1, 1, 1, 5, 7}, CGP_PADDING_VALID, 0}, /* cp.async, winograd-f4x4 16x32 px x 32 ch, 4-byte weights */
    {38, {1, 36, 1, 13, 13}, CGP_PADDING_SAME, 0}, /* cp.async, winograd-f4x4 ..., K split 2, 4-byte weights */
    {38, {1, 64, 1, 17, 17}, CGP_PADDING_SAME, 1}, /* cp.async, winograd-f4x4 ..., K split 4, 4-byte weights */
    {31, {1, 8, 1, 3, 3}, CGP_PADDING_VALID, 0}, /* winograd 8x16 px x 64 ch */
    {31, {2, 8, 1, 100, 100}, CGP_PADDING_VALID, 0}, /* winograd 16x16 px x 32 ch */
    {31, {1, 56, 1, 3, 3}, CGP_PADDING_VALID, 0}, /* winograd 8x16 px x 64 ch, K split 2 */
    {31, {8, 56, 1, 18, 36}, CGP_PADDING_SAME, 0}, /* winograd 16x16 px x 32 ch, K split 2 */
    {31, {1, 64, 1, 3, 3}, CGP_PADDING_VALID, 0}, /* winograd 8x16 px x 64 ch, K split 4 */
    {31, {4, 64, 1, 18, 36}, CGP_PADDING_SAME, 0}, /* winograd 16x16 px x 32 ch, K split 4 */
    {31, {1, 1, 1, 3, 3}, CGP_PADDING_VALID, 0}, /* winograd 8x16 px x 64 ch, 4-byte weights */
    {31, {2, 1, 1, 100, 100}, CGP_PADDING_VALID, 0}, /* winograd 16x16 px x 32 ch, 4-byte weights */
    {31, {1, 36, 1, 3, 3}, CGP_PADDING_VALID, 0}, /* winograd 8x16 px x 64 ch, K split 2, 4-byte weights */
    {31, {8, 36, 1, 18, 36}, CGP_PADDING_SAME, 0}, /* winograd 16x16 px x 32 ch, K split 2, 4-byte weights */
    {31, {1, 64, 1, 3, 3}, CGP_PADDING_VALID, 1}, /* winograd 8x16 px x 64 ch, K split 4, 4-byte weights */
    {31, {4, 64, 1, 18, 36}, CGP_PADDING_SAME, 1}, /* winograd 16x16 px x 32 ch, K split 4, 4-byte weights */
    {10, {2, 1, 40, 128, 128}, CGP_PADDING_VALID, 0}, /* ffma 16x16 px x 64 ch */
    {10, {1, 1, 40, 100, 100}, CGP_PADDING_VALID, 0}, /* ffma 8x16 px x 64 ch */
    {10, {1, 1, 40, 3, 3}, CGP_PADDING_VALID, 0}, /* ffma 8x8 px x 64 ch */
    {10, {4, 1, 512, 33, 33}, CGP_PADDING_SAME, 0}, /* ffma 8x16 px x 128 ch */
    {10, {2, 1, 1, 128, 128}, CGP_PADDING_VALID, 0}, /* ffma 16x16 px x 32 ch */
    {10, {1, 1, 1, 3, 3}, CGP_PADDING_VALID, 0}, /* ffma 8x8 px x 32 ch */
    {10, {16, 128, 40, 12, 64}, CGP_PADDING_VALID, 0}, /* ffma 16x16 px x 64 ch, K split 2 */
    {10, {4, 128, 40, 33, 33}, CGP_PADDING_SAME, 0}, /* ffma 8x16 px x 64 ch, K split 2 */
    {10, {1, 64, 40, 3, 3}, CGP_PADDING_VALID, 0}, /* ffma 8x8 px x 64 ch, K split 2 */
    {10, {16, 128, 1, 12, 64}, CGP_PADDING_VALID, 0}, /* ffma 16x16 px x 32 ch, K split 2 */
    {10, {1, 64, 1, 3, 3}, CGP_PADDING_VALID, 0}, /* ffma 8x8 px x 32 ch, K split 2 */
    {10, {16, 128, 40, 9, 9}, CGP_PADDING_SAME, 0}, /* ffma 16x16 px x 64 ch, K split 8 */
    {10, {2, 128, 40, 17, 17}, CGP_PADDING_SAME, 0}, /* ffma 8x16 px x 64 ch, K split 8 */
    {10, {1, 128, 40, 3, 3}, CGP_PADDING_VALID, 0}, /* ffma 8x8 px x 64 ch, K split 8 */
    {10, {1, 312, 352, 17, 41}, CGP_PADDING_SAME, 0}, /* ffma 8x16 px x 128 ch, K split 8 (27 clusters, not 30) */
    {10, {16, 128, 1, 9, 9}, CGP_PADDING_SAME, 0}, /* ffma 16x16 px x 32 ch, K split 8 */
    {10, {1, 128, 1, 3, 3}, CGP_PADDING_VALID, 0}, /* ffma 8x8 px x 32 ch, K split 8 */
    {7, {1, 8, 64, 3, 3}, CGP_PADDING_VALID, 0}, /* winograd-f2x2 */
    {1, {1, 1, 1, 3, 3}, CGP_PADDING_VALID, 0}, /* generic */
    {18, {1, 1, 1, 4, 8}, CGP_PADDING_VALID, 0}, /* tma */
    {18, {1, 1, 1, 3, 3}, CGP_PADDING_VALID, 0}, /* cp.async */
    {18, {1, 1, 1, 4, 8}, CGP_PADDING_SAME, 0}, /* tma, shifted box */
    {46, {67, 8, 128, 3, 12}, CGP_PADDING_VALID, 0}, /* warp-specialised, register A, TMA window, 8x16 px x 128 ch */
    {46, {1, 8, 64, 3, 4}, CGP_PADDING_VALID, 0}, /* ..., 8x16 px x 64 ch */
    {46, {67, 8, 128, 3, 9}, CGP_PADDING_VALID, 0}, /* warp-specialised, register A, cp.async window, 8x16 px x 128 ch */
    {46, {1, 8, 64, 3, 5}, CGP_PADDING_VALID, 0},   /* ..., 8x16 px x 64 ch */
    {46, {23, 80, 129, 3, 4}, CGP_PADDING_VALID, 0},  /* ..., TMA window, 8x16 px x 128 ch, K split 2 */
    {46, {1, 256, 1, 4, 8}, CGP_PADDING_VALID, 0},    /* ..., TMA window, 8x16 px x 128 ch, K split 4 */
    {46, {1, 96, 1, 4, 8}, CGP_PADDING_VALID, 0},     /* ..., TMA window, 8x16 px x 64 ch, K split 2 */
    {46, {23, 304, 129, 3, 9}, CGP_PADDING_VALID, 0}, /* ..., cp.async window, 8x16 px x 128 ch, K split 2 */
    {46, {1, 256, 1, 3, 3}, CGP_PADDING_VALID, 0},    /* ..., cp.async window, 8x16 px x 128 ch, K split 4 */
    {46, {1, 96, 1, 3, 3}, CGP_PADDING_VALID, 0},     /* ..., cp.async window, 8x16 px x 64 ch, K split 2 */
    {46, {67, 8, 128, 10, 7}, CGP_PADDING_SAME, 0},   /* ..., 2 images a tile, 8x16 px x 128 ch */
    {46, {67, 8, 64, 16, 7}, CGP_PADDING_SAME, 0},    /* ..., 2 images a tile, 8x16 px x 64 ch */
    {46, {67, 300, 65, 5, 5}, CGP_PADDING_SAME, 0},   /* ..., 2 images a tile, 8x16 px x 128 ch, K split 2 */
    {46, {23, 256, 129, 3, 3}, CGP_PADDING_VALID, 0}, /* ..., 2 images a tile, 8x16 px x 128 ch, K split 4 */
    {46, {67, 96, 1, 3, 3}, CGP_PADDING_VALID, 0},    /* ..., 2 images a tile, 8x16 px x 64 ch, K split 2 */
    {47, {1, 8, 64, 3, 4}, CGP_PADDING_VALID, 0},     /* warp-specialised, register A, TMA window, 8x16 px x 64 ch */
    {47, {1, 8, 64, 3, 5}, CGP_PADDING_VALID, 0},     /* ..., cp.async window, 8x16 px x 64 ch */
    {47, {1, 96, 1, 4, 8}, CGP_PADDING_VALID, 0},     /* ..., TMA window, 8x16 px x 64 ch, K split 2 */
    {47, {1, 96, 1, 3, 3}, CGP_PADDING_VALID, 0},     /* ..., cp.async window, 8x16 px x 64 ch, K split 2 */
    {47, {67, 8, 64, 16, 7}, CGP_PADDING_SAME, 0},    /* ..., 2 images a tile, 8x16 px x 64 ch */
    {47, {67, 96, 1, 3, 3}, CGP_PADDING_VALID, 0},    /* ..., 2 images a tile, 8x16 px x 64 ch, K split 2 */
    {41, {2, 8, 40, 100, 100}, CGP_PADDING_VALID, 0}, /* resident, A from registers, 16x16 px x 64 ch */
    {41, {1, 8, 40, 100, 100}, CGP_PADDING_VALID, 0}, /* resident, A from registers, 8x16 px x 64 ch */
    {41, {2, 8, 40, 56, 56}, CGP_PADDING_VALID, 0}, /* resident, A from registers, 8x8 px x 64 ch */
    {41, {2, 8, 1, 100, 100}, CGP_PADDING_VALID, 0}, /* resident, A from registers, 16x16 px x 32 ch */
    {41, {1, 8, 1, 100, 100}, CGP_PADDING_VALID, 0}, /* resident, A from registers, 8x16 px x 32 ch */
    {41, {1, 8, 1, 4, 8}, CGP_PADDING_VALID, 0}, /* resident, A from registers, 8x8 px x 32 ch */
    {41, {2, 1, 40, 100, 100}, CGP_PADDING_VALID, 0}, /* resident, A from registers, 16x16 px x 64 ch, 4-byte weights */
    {41, {1, 1, 40, 100, 100}, CGP_PADDING_VALID, 0}, /* resident, A from registers, 8x16 px x 64 ch, 4-byte weights */
    {41, {2, 1, 40, 56, 56}, CGP_PADDING_VALID, 0}, /* resident, A from registers, 8x8 px x 64 ch, 4-byte weights */
    {41, {2, 1, 1, 100, 100}, CGP_PADDING_VALID, 0}, /* resident, A from registers, 16x16 px x 32 ch, 4-byte weights */
    {41, {1, 1, 1, 100, 100}, CGP_PADDING_VALID, 0}, /* resident, A from registers, 8x16 px x 32 ch, 4-byte weights */
    {41, {1, 1, 1, 4, 8}, CGP_PADDING_VALID, 0}, /* resident, A from registers, 8x8 px x 32 ch, 4-byte weights */
    {42, {2, 1, 40, 100, 100}, CGP_PADDING_VALID, 0}, /* overlapped, TMA 16x16 px x 64 ch */
    {42, {1, 1, 40, 100, 100}, CGP_PADDING_VALID, 0}, /* overlapped, TMA 8x8 px x 64 ch */
    {42, {2, 1, 1, 100, 100}, CGP_PADDING_VALID, 0}, /* overlapped, TMA 16x16 px x 32 ch */
    {42, {1, 1, 1, 4, 8}, CGP_PADDING_VALID, 0}, /* overlapped, TMA 8x8 px x 32 ch */
    {42, {16, 256, 40, 12, 64}, CGP_PADDING_VALID, 0}, /* overlapped, TMA 16x16 px x 64 ch, K split 2 */
    {42, {8, 64, 40, 10, 36}, CGP_PADDING_SAME, 0}, /* overlapped, TMA 8x8 px x 64 ch, K split 2 */
    {42, {16, 256, 1, 12, 64}, CGP_PADDING_VALID, 0}, /* overlapped, TMA 16x16 px x 32 ch, K split 2 */
    {42, {1, 56, 1, 4, 8}, CGP_PADDING_VALID, 0}, /* overlapped, TMA 8x8 px x 32 ch, K split 2 */
    {42, {8, 256, 40, 10, 36}, CGP_PADDING_SAME, 0}, /* overlapped, TMA 16x16 px x 64 ch, K split 4 */
    {42, {4, 64, 40, 10, 36}, CGP_PADDING_SAME, 0}, /* overlapped, TMA 8x8 px x 64 ch, K split 4 */
    {42, {8, 256, 1, 10, 36}, CGP_PADDING_SAME, 0}, /* overlapped, TMA 16x16 px x 32 ch, K split 4 */
    {42, {1, 64, 1, 4, 8}, CGP_PADDING_VALID, 0}, /* overlapped, TMA 8x8 px x 32 ch, K split 4 */
    {39, {32, 8, 40, 17, 17}, CGP_PADDING_SAME, 0}, /* rounded weights, 16x16 px x 64 ch */
    {39, {8, 8, 40, 33, 33}, CGP_PADDING_SAME, 0}, /* rounded weights, 8x8 px x 64 ch */
    {39, {32, 8, 1, 17, 17}, CGP_PADDING_SAME, 0}, /* rounded weights, 16x16 px x 32 ch */
    {39, {1, 8, 1, 3, 3}, CGP_PADDING_VALID, 0}, /* rounded weights, 8x8 px x 32 ch */
    {39, {8, 256, 512, 9, 9}, CGP_PADDING_SAME, 0}, /* rounded weights, 16x16 px x 64 ch, K split 2 */
    {39, {8, 64, 40, 17, 17}, CGP_PADDING_SAME, 0}, /* rounded weights, 8x8 px x 64 ch, K split 2 */
    {39, {16, 256, 1, 33, 33}, CGP_PADDING_VALID, 0}, /* rounded weights, 16x16 px x 32 ch, K split 2 */
    {39, {1, 56, 1, 3, 3}, CGP_PADDING_VALID, 0}, /* rounded weights, 8x8 px x 32 ch, K split 2 */
    {39, {8, 256, 40, 17, 17}, CGP_PADDING_SAME, 0}, /* rounded weights, 16x16 px x 64 ch, K split 4 */
    {39, {4, 64, 40, 17, 17}, CGP_PADDING_SAME, 0}, /* rounded weights, 8x8 px x 64 ch, K split 4 */
    {39, {8, 256, 1, 17, 17}, CGP_PADDING_SAME, 0}, /* rounded weights, 16x16 px x 32 ch, K split 4 */
    {39, {1, 64, 1, 3, 3}, CGP_PADDING_VALID, 0}, /* rounded weights, 8x8 px x 32 ch, K split 4 */
    {39, {2, 1, 40, 100, 100}, CGP_PADDING_VALID, 0}, /* rounded weights, TMA 16x16 px x 64 ch */
    {39, {1, 1, 40, 100, 100}, CGP_PADDING_VALID, 0}, /* rounded weights, TMA 8x8 px x 64 ch */
    {39, {2, 1, 1, 100, 100}, CGP_PADDING_VALID, 0}, /* rounded weights, TMA 16x16 px x 32 ch */
    {39, {1, 1, 1, 4, 8}, CGP_PADDING_VALID, 0}, /* rounded weights, TMA 8x8 px x 32 ch */
    {39, {16, 256, 40, 12, 64}, CGP_PADDING_VALID, 0}, /* rounded weights, TMA 16x16 px x 64 ch, K split 2 */
    {39, {8, 64, 40, 10, 36}, CGP_PADDING_SAME, 0}, /* rounded weights, TMA 8x8 px x 64 ch, K split 2 */
    {39, {16, 256, 1, 12, 64}, CGP_PADDING_VALID, 0}, /* rounded weights, TMA 16x16 px x 32 ch, K split 2 */
    {39, {1, 56, 1, 4, 8}, CGP_PADDING_VALID, 0}, /* rounded weights, TMA 8x8 px x 32 ch, K split 2 */
    {39, {8, 256, 40, 10, 36}, CGP_PADDING_SAME, 0}, /* rounded weights, TMA 16x16 px x 64 ch, K split 4 */
    {39, {4, 64, 40, 10, 36}, CGP_PADDING_SAME, 0}, /* rounded weights, TMA 8x8 px x 64 ch, K split 4 */
    {39, {8, 256, 1, 10, 36}, CGP_PADDING_SAME, 0}, /* rounded weights, TMA 16x16 px x 32 ch, K split 4 */
    {39, {1, 64, 1, 4, 8}, CGP_PADDING_VALID, 0}, /* rounded weights, TMA 8x8 px x 32 ch, K split 4 */
    {39, {32, 1, 40, 17, 17}, CGP_PADDING_SAME, 0}, /* rounded weights, 16x16 px x 64 ch, 4-byte weights */
    {39, {8, 1, 40, 33, 33}, CGP_PADDING_SAME, 0}, /* rounded weights, 8x8 px x 64 ch, 4-byte weights */
    {39, {32, 1, 1, 17, 17}, CGP_PADDING_SAME, 0}, /* rounded weights, 16x16 px x 32 ch, 4-byte weights */
    {39, {1, 1, 1, 3, 3}, CGP_PADDING_VALID, 0}, /* rounded weights, 8x8 px x 32 ch, 4-byte weights */
    {39, {8, 256, 512, 9, 9}, CGP_PADDING_SAME, 1}, /* rounded weights, 16x16 px x 64 ch, K split 2, 4-byte weights */
    {39, {8, 64, 40, 17, 17}, CGP_PADDING_SAME, 1}, /* rounded weights, 8x8 px x 64 ch, K split 2, 4-byte weights */
    {39, {16, 256, 1, 33, 33}, CGP_PADDING_VALID, 1}, /* rounded weights, 16x16 px x 32 ch, K split 2, 4-byte weights */
    {39, {1, 56, 1, 3, 3}, CGP_PADDING_VALID, 1}, /* rounded weights, 8x8 px x 32 ch, K split 2, 4-byte weights */
    {39, {8, 256, 40, 17, 17}, CGP_PADDING_SAME, 1}, /* rounded weights, 16x16 px x 64 ch, K split 4, 4-byte weights */
    {39, {4, 64, 40, 17, 17}, CGP_PADDING_SAME, 1}, /* rounded weights, 8x8 px x 64 ch, K split 4, 4-byte weights */
    {39, {8, 256, 1, 17, 17}, CGP_PADDING_SAME, 1}, /* rounded weights, 16x16 px x 32 ch, K split 4, 4-byte weights */
    {39, {1, 64, 1, 3, 3}, CGP_PADDING_VALID, 1}, /* rounded weights, 8x8 px x 32 ch, K split 4, 4-byte weights */
    {32, {2, 8, 40, 100, 100}, CGP_PADDING_VALID, 0}, /* resident 16x16 px x 64 ch */
    {32, {1, 8, 40, 100, 100}, CGP_PADDING_VALID, 0}, /* resident 8x16 px x 64 ch */
    {32, {2, 8, 40, 56, 56}, CGP_PADDING_VALID, 0}, /* resident 8x8 px x 64 ch */
    {32, {2, 8, 1, 100, 100}, CGP_PADDING_VALID, 0}, /* resident 16x16 px x 32 ch */
    {32, {1, 8, 1, 100, 100}, CGP_PADDING_VALID, 0}, /* resident 8x16 px x 32 ch */
    {32, {1, 8, 1, 3, 3}, CGP_PADDING_VALID, 0}, /* resident 8x8 px x 32 ch */
    {32, {2, 1, 40, 100, 100}, CGP_PADDING_VALID, 0}, /* resident 16x16 px x 64 ch, 4-byte weights */
    {32, {1, 1, 40, 100, 100}, CGP_PADDING_VALID, 0}, /* resident 8x16 px x 64 ch, 4-byte weights */
    {32, {2, 1, 40, 56, 56}, CGP_PADDING_VALID, 0}, /* resident 8x8 px x 64 ch, 4-byte weights */
    {32, {2, 1, 1, 100, 100}, CGP_PADDING_VALID, 0}, /* resident 16x16 px x 32 ch, 4-byte weights */
    {32, {1, 1, 1, 100, 100}, CGP_PADDING_VALID, 0}, /* resident 8x16 px x 32 ch, 4-byte weights */
    {32, {1, 1, 1, 3, 3}, CGP_PADDING_VALID, 0}, /* resident 8x8 px x 32 ch, 4-byte weights */
    {36, {2, 8, 40, 100, 100}, CGP_PADDING_VALID, 0}, /* TMA 16x16 px x 64 ch */
    {36, {1, 8, 40, 100, 100}, CGP_PADDING_VALID, 0}, /* TMA 8x16 px x 64 ch */
    {36, {2, 8, 1, 100, 100}, CGP_PADDING_VALID, 0}, /* TMA 16x16 px x 32 ch */
    {36, {1, 8, 1, 4, 8}, CGP_PADDING_VALID, 0}, /* TMA 8x8 px x 32 ch */
    {36, {16, 88, 40, 10, 36}, CGP_PADDING_SAME, 0}, /* TMA 16x16 px x 64 ch, K split 2 */
    {36, {4, 176, 40, 40, 40}, CGP_PADDING_VALID, 0}, /* TMA 8x16 px x 64 ch, K split 2 */
    {36, {16, 256, 1, 12, 64}, CGP_PADDING_VALID, 0}, /* TMA 16x16 px x 32 ch, K split 2 */
    {36, {1, 56, 1, 4, 8}, CGP_PADDING_VALID, 0}, /* TMA 8x8 px x 32 ch, K split 2 */
    {36, {8, 88, 40, 10, 36}, CGP_PADDING_SAME, 0}, /* TMA 16x16 px x 64 ch, K split 4 */
    {36, {4, 128, 40, 10, 36}, CGP_PADDING_SAME, 0}, /* TMA 8x16 px x 64 ch, K split 4 */
    {36, {8, 256, 1, 10, 36}, CGP_PADDING_SAME, 0}, /* TMA 16x16 px x 32 ch, K split 4 */
    {36, {1, 64, 1, 4, 8}, CGP_PADDING_VALID, 0}, /* TMA 8x8 px x 32 ch, K split 4 */
    {36, {2, 1, 40, 100, 100}, CGP_PADDING_VALID, 0}, /* TMA 16x16 px x 64 ch, 4-byte weights */
    {36, {1, 1, 40, 100, 100}, CGP_PADDING_VALID, 0}, /* TMA 8x16 px x 64 ch, 4-byte weights */
    {36, {2, 1, 1, 100, 100}, CGP_PADDING_VALID, 0}, /* TMA 16x16 px x 32 ch, 4-byte weights */
    {36, {1, 1, 1, 4, 8}, CGP_PADDING_VALID, 0}, /* TMA 8x8 px x 32 ch, 4-byte weights */
    {36, {16, 88, 40, 10, 36}, CGP_PADDING_SAME, 1}, /* TMA 16x16 px x 64 ch, K split 2, 4-byte weights */
    {36, {4, 176, 40, 40, 40}, CGP_PADDING_VALID, 1}, /* TMA 8x16 px x 64 ch, K split 2, 4-byte weights */
    {36, {16, 256, 1, 12, 64}, CGP_PADDING_VALID, 1}, /* TMA 16x16 px x 32 ch, K split 2, 4-byte weights */
    {36, {1, 56, 1, 4, 8}, CGP_PADDING_VALID, 1}, /* TMA 8x8 px x 32 ch, K split 2, 4-byte weights */
    {36, {8, 88, 40, 10, 36}, CGP_PADDING_SAME, 1}, /* TMA 16x16 px x 64 ch, K split 4, 4-byte weights */
    {36, {4, 128, 40, 10, 36}, CGP_PADDING_SAME, 1}, /* TMA 8x16 px x 64 ch, K split 4, 4-byte weights */
    {36, {8, 256, 1, 10, 36}, CGP_PADDING_SAME, 1}, /* TMA 16x16 px x 32 ch, K split 4, 4-byte weights */
    {36, {1, 64, 1, 4, 8}, CGP_PADDING_VALID, 1}, /* TMA 8x8 px x 32 ch, K split 4, 4-byte weights */
    {20, {2, 8, 40, 100, 100}, CGP_PADDING_VALID, 0}, /* 16x16 px x 64 ch */
    {20, {1, 8, 40, 100, 100}, CGP_PADDING_VALID, 0}, /* 8x16 px x 64 ch */
    {20, {2, 8, 1, 100, 100}, CGP_PADDING_VALID, 0}, /* 16x16 px x 32 ch */
    {20, {1, 8, 1, 3, 3}, CGP_PADDING_VALID, 0}, /* 8x8 px x 32 ch */
    {20, {16, 88, 40, 17, 17}, CGP_PADDING_SAME, 0}, /* 16x16 px x 64 ch, K split 2 */
    {20, {4, 176, 40, 33, 33}, CGP_PADDING_SAME, 0}, /* 8x16 px x 64 ch, K split 2 */
    {20, {16, 256, 1, 12, 64}, CGP_PADDING_VALID, 0}, /* 16x16 px x 32 ch, K split 2 */
    {20, {1, 56, 1, 3, 3}, CGP_PADDING_VALID, 0}, /* 8x8 px x 32 ch, K split 2 */
    {20, {8, 88, 40, 17, 17}, CGP_PADDING_SAME, 0}, /* 16x16 px x 64 ch, K split 4 */
    {20, {4, 128, 40, 17, 17}, CGP_PADDING_SAME, 0}, /* 8x16 px x 64 ch, K split 4 */
    {20, {8, 256, 1, 17, 17}, CGP_PADDING_SAME, 0}, /* 16x16 px x 32 ch, K split 4 */
    {20, {1, 64, 1, 3, 3}, CGP_PADDING_VALID, 0}, /* 8x8 px x 32 ch, K split 4 */
    {20, {2, 1, 40, 100, 100}, CGP_PADDING_VALID, 0}, /* 16x16 px x 64 ch, 4-byte weights */
    {20, {1, 1, 40, 100, 100}, CGP_PADDING_VALID, 0}, /* 8x16 px x 64 ch, 4-byte weights */
    {20, {2, 1, 1, 100, 100}, CGP_PADDING_VALID, 0}, /* 16x16 px x 32 ch, 4-byte weights */
    {20, {1, 1, 1, 3, 3}, CGP_PADDING_VALID, 0}, /* 8x8 px x 32 ch, 4-byte weights */
    {20, {16, 88, 40, 17, 17}, CGP_PADDING_SAME, 1}, /* 16x16 px x 64 ch, K split 2, 4-byte weights */
    {20, {4, 176, 40, 33, 33}, CGP_PADDING_SAME, 1}, /* 8x16 px x 64 ch, K split 2, 4-byte weights */
    {20, {16, 256, 1, 12, 64}, CGP_PADDING_VALID, 1}, /* 16x16 px x 32 ch, K split 2, 4-byte weights */
    {20, {1, 56, 1, 3, 3}, CGP_PADDING_VALID, 1}, /* 8x8 px x 32 ch, K split 2, 4-byte weights */
    {20, {8, 88, 40, 17, 17}, CGP_PADDING_SAME, 1}, /* 16x16 px x 64 ch, K split 4, 4-byte weights */
    {20, {4, 128, 40, 17, 17}, CGP_PADDING_SAME, 1}, /* 8x16 px x 64 ch, K split 4, 4-byte weights */
    {20, {8, 256, 1, 17, 17}, CGP_PADDING_SAME, 1}, /* 16x16 px x 32 ch, K split 4, 4-byte weights */
    {20, {1, 64, 1, 3, 3}, CGP_PADDING_VALID, 1}, /* 8x8 px x 32 ch, K split 4, 4-byte weights */
    {19, {1, 8, 40, 9, 9}, CGP_PADDING_SAME, 0}, /* 8x16 px x 64 ch */
    {19, {1, 8, 40, 3, 3}, CGP_PADDING_VALID, 0}, /* 8x8 px x 64 ch */
    {19, {1, 8, 1, 9, 9}, CGP_PADDING_SAME, 0}, /* 8x16 px x 32 ch */
    {19, {1, 8, 1, 3, 3}, CGP_PADDING_VALID, 0}, /* 8x8 px x 32 ch */
    {19, {1, 1, 40, 9, 9}, CGP_PADDING_SAME, 0}, /* 8x16 px x 64 ch, 4-byte weights */
    {19, {1, 1, 40, 3, 3}, CGP_PADDING_VALID, 0}, /* 8x8 px x 64 ch, 4-byte weights */
    {19, {1, 1, 1, 9, 9}, CGP_PADDING_SAME, 0}, /* 8x16 px x 32 ch, 4-byte weights */
    {19, {1, 1, 1, 3, 3}, CGP_PADDING_VALID, 0}, /* 8x8 px x 32 ch, 4-byte weights */
    {16, {1, 1, 1, 4, 8}, CGP_PADDING_VALID, 0}, /* tma */
    {16, {1, 1, 1, 3, 3}, CGP_PADDING_VALID, 0}, /* cp.async */
    {28, {1, 1, 1, 4, 8}, CGP_PADDING_VALID, 0}, /* tma */
    {28, {1, 1, 1, 3, 3}, CGP_PADDING_VALID, 0}, /* cp.async */
    {28, {1, 1, 1, 4, 8}, CGP_PADDING_SAME, 0}, /* tma, shifted box */
    {35, {2, 8, 40, 100, 100}, CGP_PADDING_VALID, 0}, /* resident TMA 16x16 px x 64 ch */
    {35, {1, 8, 40, 100, 100}, CGP_PADDING_VALID, 0}, /* resident TMA 8x16 px x 64 ch */
    {35, {2, 8, 40, 56, 56}, CGP_PADDING_VALID, 0}, /* resident TMA 8x8 px x 64 ch */
    {35, {2, 8, 1, 100, 100}, CGP_PADDING_VALID, 0}, /* resident TMA 16x16 px x 32 ch */
    {35, {1, 8, 1, 100, 100}, CGP_PADDING_VALID, 0}, /* resident TMA 8x16 px x 32 ch */
    {35, {1, 8, 1, 4, 8}, CGP_PADDING_VALID, 0}, /* resident TMA 8x8 px x 32 ch */
    {35, {2, 1, 40, 100, 100}, CGP_PADDING_VALID, 0}, /* resident TMA 16x16 px x 64 ch, 4-byte weights */
    {35, {1, 1, 40, 100, 100}, CGP_PADDING_VALID, 0}, /* resident TMA 8x16 px x 64 ch, 4-byte weights */
    {35, {2, 1, 40, 56, 56}, CGP_PADDING_VALID, 0}, /* resident TMA 8x8 px x 64 ch, 4-byte weights */
    {35, {2, 1, 1, 100, 100}, CGP_PADDING_VALID, 0}, /* resident TMA 16x16 px x 32 ch, 4-byte weights */
    {35, {1, 1, 1, 100, 100}, CGP_PADDING_VALID, 0}, /* resident TMA 8x16 px x 32 ch, 4-byte weights */
    {35, {1, 1, 1, 4, 8}, CGP_PADDING_VALID, 0}, /* resident TMA 8x8 px x 32 ch, 4-byte weights */
    {40, {32, 8, 40, 17, 17}, CGP_PADDING_SAME, 0}, /* rounded weights, 16x16 px x 64 ch */
    {40, {8, 8, 40, 33, 33}, CGP_PADDING_SAME, 0}, /* rounded weights, 8x16 px x 64 ch */
    {40, {32, 8, 1, 17, 17}, CGP_PADDING_SAME, 0}, /* rounded weights, 16x16 px x 32 ch */
    {40, {1, 8, 1, 3, 3}, CGP_PADDING_VALID, 0}, /* rounded weights, 8x8 px x 32 ch */
    {40, {16, 88, 40, 17, 17}, CGP_PADDING_SAME, 0}, /* rounded weights, 16x16 px x 64 ch, K split 2 */
    {40, {4, 176, 40, 33, 33}, CGP_PADDING_SAME, 0}, /* rounded weights, 8x16 px x 64 ch, K split 2 */
    {40, {16, 256, 1, 33, 33}, CGP_PADDING_VALID, 0}, /* rounded weights, 16x16 px x 32 ch, K split 2 */
    {40, {1, 56, 1, 3, 3}, CGP_PADDING_VALID, 0}, /* rounded weights, 8x8 px x 32 ch, K split 2 */
    {40, {8, 88, 40, 17, 17}, CGP_PADDING_SAME, 0}, /* rounded weights, 16x16 px x 64 ch, K split 4 */
    {40, {4, 128, 40, 17, 17}, CGP_PADDING_SAME, 0}, /* rounded weights, 8x16 px x 64 ch, K split 4 */
    {40, {8, 256, 1, 17, 17}, CGP_PADDING_SAME, 0}, /* rounded weights, 16x16 px x 32 ch, K split 4 */
    {40, {1, 64, 1, 3, 3}, CGP_PADDING_VALID, 0}, /* rounded weights, 8x8 px x 32 ch, K split 4 */
    {40, {2, 1, 40, 100, 100}, CGP_PADDING_VALID, 0}, /* rounded weights, TMA 16x16 px x 64 ch */
    {40, {1, 1, 40, 100, 100}, CGP_PADDING_VALID, 0}, /* rounded weights, TMA 8x16 px x 64 ch */
    {40, {2, 1, 1, 100, 100}, CGP_PADDING_VALID, 0}, /* rounded weights, TMA 16x16 px x 32 ch */
    {40, {1, 1, 1, 4, 8}, CGP_PADDING_VALID, 0}, /* rounded weights, TMA 8x8 px x 32 ch */
    {40, {16, 88, 40, 10, 36}, CGP_PADDING_SAME, 0}, /* rounded weights, TMA 16x16 px x 64 ch, K split 2 */
    {40, {4, 176, 40, 40, 40}, CGP_PADDING_VALID, 0}, /* rounded weights, TMA 8x16 px x 64 ch, K split 2 */
    {40, {16, 256, 1, 12, 64}, CGP_PADDING_VALID, 0}, /* rounded weights, TMA 16x16 px x 32 ch, K split 2 */
    {40, {1, 56, 1, 4, 8}, CGP_PADDING_VALID, 0}, /* rounded weights, TMA 8x8 px x 32 ch, K split 2 */
    {40, {8, 88, 40, 10, 36}, CGP_PADDING_SAME, 0}, /* rounded weights, TMA 16x16 px x 64 ch, K split 4 */
    {40, {4, 128, 40, 10, 36}, CGP_PADDING_SAME, 0}, /* rounded weights, TMA 8x16 px x 64 ch, K split 4 */
    {40, {8, 256, 1, 10, 36}, CGP_PADDING_SAME, 0}, /* rounded weights, TMA 16x16 px x 32 ch, K split 4 */
    {40, {1, 64, 1, 4, 8}, CGP_PADDING_VALID, 0}, /* rounded weights, TMA 8x8 px x 32 ch, K split 4 */
    {40, {32, 1, 40, 17, 17}, CGP_PADDING_SAME, 0}, /* rounded weights, 16x16 px x 64 ch, 4-byte weights */
    {40, {8, 1, 40, 33, 33}, CGP_PADDING_SAME, 0}, /* rounded weights, 8x16 px x 64 ch, 4-byte weights */
    {40, {32, 1, 1, 17, 17}, CGP_PADDING_SAME, 0}, /* rounded weights, 16x16 px x 32 ch, 4-byte weights */
    {40, {1, 1, 1, 3, 3}, CGP_PADDING_VALID, 0}, /* rounded weights, 8x8 px x 32 ch, 4-byte weights */
    {40, {16, 88, 40, 17, 17}, CGP_PADDING_SAME, 1}, /* rounded weights, 16x16 px x 64 ch, K split 2, 4-byte weights */
    {40, {4, 176, 40, 33, 33}, CGP_PADDING_SAME, 1}, /* rounded weights, 8x16 px x 64 ch, K split 2, 4-byte weights */
    {40, {16, 256, 1, 33, 33}, CGP_PADDING_VALID, 1}, /* rounded weights, 16x16 px x 32 ch, K split 2, 4-byte weights */
    {40, {1, 56, 1, 3, 3}, CGP_PADDING_VALID, 1}, /* rounded weights, 8x8 px x 32 ch, K split 2, 4-byte weights */
    {40, {8, 88, 40, 17, 17}, CGP_PADDING_SAME, 1}, /* rounded weights, 16x16 px x 64 ch, K split 4, 4-byte weights */
    {40, {4, 128, 40, 17, 17}, CGP_PADDING_SAME, 1}, /* rounded weights, 8x16 px x 64 ch, K split 4, 4-byte weights */
    {40, {8, 256, 1, 17, 17}, CGP_PADDING_SAME, 1}, /* rounded weights, 16x16 px x 32 ch, K split 4, 4-byte weights */
    {40, {1, 64, 1, 3, 3}, CGP_PADDING_VALID, 1}, /* rounded weights, 8x8 px x 32 ch, K split 4, 4-byte weights */
    {33, {2, 8, 40, 100, 100}, CGP_PADDING_VALID, 0}, /* resident 16x16 px x 64 ch */
    {33, {1, 8, 40, 100, 100}, CGP_PADDING_VALID, 0}, /* resident 8x16 px x 64 ch */
    {33, {2, 8, 40, 56, 56}, CGP_PADDING_VALID, 0}, /* resident 8x8 px x 64 ch */
    {33, {2, 8, 1, 100, 100}, CGP_PADDING_VALID, 0}, /* resident 16x16 px x 32 ch */
    {33, {1, 8, 1, 100, 100}, CGP_PADDING_VALID, 0}, /* resident 8x16 px x 32 ch */
    {33, {1, 8, 1, 3, 3}, CGP_PADDING_VALID, 0}, /* resident 8x8 px x 32 ch */
    {33, {2, 1, 40, 100, 100}, CGP_PADDING_VALID, 0}, /* resident 16x16 px x 64 ch, 4-byte weights */
    {33, {1, 1, 40, 100, 100}, CGP_PADDING_VALID, 0}, /* resident 8x16 px x 64 ch, 4-byte weights */
    {33, {2, 1, 40, 56, 56}, CGP_PADDING_VALID, 0}, /* resident 8x8 px x 64 ch, 4-byte weights */
    {33, {2, 1, 1, 100, 100}, CGP_PADDING_VALID, 0}, /* resident 16x16 px x 32 ch, 4-byte weights */
    {33, {1, 1, 1, 100, 100}, CGP_PADDING_VALID, 0}, /* resident 8x16 px x 32 ch, 4-byte weights */
    {33, {1, 1, 1, 3, 3}, CGP_PADDING_VALID, 0}, /* resident 8x8 px x 32 ch, 4-byte weights */
    {37, {2, 8, 40, 100, 100}, CGP_PADDING_VALID, 0}, /* TMA 16x16 px x 64 ch */
    {37, {1, 8, 40, 100, 100}, CGP_PADDING_VALID, 0}, /* TMA 8x16 px x 64 ch */
    {37, {2, 8, 1, 100, 100}, CGP_PADDING_VALID, 0}, /* TMA 16x16 px x 32 ch */
    {37, {1, 8, 1, 4, 8}, CGP_PADDING_VALID, 0}, /* TMA 8x8 px x 32 ch */
    {37, {16, 88, 40, 10, 36}, CGP_PADDING_SAME, 0}, /* TMA 16x16 px x 64 ch, K split 2 */
    {37, {4, 176, 40, 40, 40}, CGP_PADDING_VALID, 0}, /* TMA 8x16 px x 64 ch, K split 2 */
    {37, {16, 256, 1, 12, 64}, CGP_PADDING_VALID, 0}, /* TMA 16x16 px x 32 ch, K split 2 */
    {37, {1, 56, 1, 4, 8}, CGP_PADDING_VALID, 0}, /* TMA 8x8 px x 32 ch, K split 2 */
    {37, {8, 88, 40, 10, 36}, CGP_PADDING_SAME, 0}, /* TMA 16x16 px x 64 ch, K split 4 */
    {37, {4, 128, 40, 10, 36}, CGP_PADDING_SAME, 0}, /* TMA 8x16 px x 64 ch, K split 4 */
    {37, {8, 256, 1, 10, 36}, CGP_PADDING_SAME, 0}, /* TMA 16x16 px x 32 ch, K split 4 */
    {37, {1, 64, 1, 4, 8}, CGP_PADDING_VALID, 0}, /* TMA 8x8 px x 32 ch, K split 4 */
    {37, {2, 1, 40, 100, 100}, CGP_PADDING_VALID, 0}, /* TMA 16x16 px x 64 ch, 4-byte weights */
    {37, {1, 1, 40, 100, 100}, CGP_PADDING_VALID, 0}, /* TMA 8x16 px x 64 ch, 4-byte weights */
    {37, {2, 1, 1, 100, 100}, CGP_PADDING_VALID, 0}, /* TMA 16x16 px x 32 ch, 4-byte weights */
    {37, {1, 1, 1, 4, 8}, CGP_PADDING_VALID, 0}, /* TMA 8x8 px x 32 ch, 4-byte weights */
    {37, {16, 88, 40, 10, 36}, CGP_PADDING_SAME, 1}, /* TMA 16x16 px x 64 ch, K split 2, 4-byte weights */
    {37, {4, 176, 40, 40, 40}, CGP_PADDING_VALID, 1}, /* TMA 8x16 px x 64 ch, K split 2, 4-byte weights */
    {37, {16, 256, 1, 12, 64}, CGP_PADDING_VALID, 1}, /* TMA 16x16 px x 32 ch, K split 2, 4-byte weights */
    {37, {1, 56, 1, 4, 8}, CGP_PADDING_VALID, 1}, /* TMA 8x8 px x 32 ch, K split 2, 4-byte weights */
    {37, {8, 88, 40, 10, 36}, CGP_PADDING_SAME, 1}, /* TMA 16x16 px x 64 ch, K split 4, 4-byte weights */
    {37, {4, 128, 40, 10, 36}, CGP_PADDING_SAME, 1}, /* TMA 8x16 px x 64 ch, K split 4, 4-byte weights */
    {37, {8, 256, 1, 10, 36}, CGP_PADDING_SAME, 1}, /* TMA 16x16 px x 32 ch, K split 4, 4-byte weights */
    {37, {1, 64, 1, 4, 8}, CGP_PADDING_VALID, 1}, /* TMA 8x8 px x 32 ch, K split 4, 4-byte weights */
    {30, {2, 8, 40, 100, 100}, CGP_PADDING_VALID, 0}, /* 16x16 px x 64 ch */
    {30, {1, 8, 40, 100, 100}, CGP_PADDING_VALID, 0}, /* 8x16 px x 64 ch */
    {30, {2, 8, 1, 100, 100}, CGP_PADDING_VALID, 0}, /* 16x16 px x 32 ch */
    {30, {1, 8, 1, 3, 3}, CGP_PADDING_VALID, 0}, /* 8x8 px x 32 ch */
    {30, {16, 88, 40, 17, 17}, CGP_PADDING_SAME, 0}, /* 16x16 px x 64 ch, K split 2 */
    {30, {4, 176, 40, 33, 33}, CGP_PADDING_SAME, 0}, /* 8x16 px x 64 ch, K split 2 */
    {30, {16, 256, 1, 12, 64}, CGP_PADDING_VALID, 0}, /* 16x16 px x 32 ch, K split 2 */
    {30, {1, 56, 1, 3, 3}, CGP_PADDING_VALID, 0}, /* 8x8 px x 32 ch, K split 2 */
    {30, {8, 88, 40, 17, 17}, CGP_PADDING_SAME, 0}, /* 16x16 px x 64 ch, K split 4 */
    {30, {4, 128, 40, 17, 17}, CGP_PADDING_SAME, 0}, /* 8x16 px x 64 ch, K split 4 */
    {30, {8, 256, 1, 17, 17}, CGP_PADDING_SAME, 0}, /* 16x16 px x 32 ch, K split 4 */
    {30, {1, 64, 1, 3, 3}, CGP_PADDING_VALID, 0}, /* 8x8 px x 32 ch, K split 4 */
    {30, {2, 1, 40, 100, 100}, CGP_PADDING_VALID, 0}, /* 16x16 px x 64 ch, 4-byte weights */
    {30, {1, 1, 40, 100, 100}, CGP_PADDING_VALID, 0}, /* 8x16 px x 64 ch, 4-byte weights */
    {30, {2, 1, 1, 100, 100}, CGP_PADDING_VALID, 0}, /* 16x16 px x 32 ch, 4-byte weights */
    {30, {1, 1, 1, 3, 3}, CGP_PADDING_VALID, 0}, /* 8x8 px x 32 ch, 4-byte weights */
    {30, {16, 88, 40, 17, 17}, CGP_PADDING_SAME, 1}, /* 16x16 px x 64 ch, K split 2, 4-byte weights */
    {30, {4, 176, 40, 33, 33}, CGP_PADDING_SAME, 1}, /* 8x16 px x 64 ch, K split 2, 4-byte weights */
    {30, {16, 256, 1, 12, 64}, CGP_PADDING_VALID, 1}, /* 16x16 px x 32 ch, K split 2, 4-byte weights */
    {30, {1, 56, 1, 3, 3}, CGP_PADDING_VALID, 1}, /* 8x8 px x 32 ch, K split 2, 4-byte weights */
    {30, {8, 88, 40, 17, 17}, CGP_PADDING_SAME, 1}, /* 16x16 px x 64 ch, K split 4, 4-byte weights */
    {30, {4, 128, 40, 17, 17}, CGP_PADDING_SAME, 1}, /* 8x16 px x 64 ch, K split 4, 4-byte weights */
    {30, {8, 256, 1, 17, 17}, CGP_PADDING_SAME, 1}, /* 16x16 px x 32 ch, K split 4, 4-byte weights */
    {30, {1, 64, 1, 3, 3}, CGP_PADDING_VALID, 1}, /* 8x8 px x 32 ch, K split 4, 4-byte weights */
    {29, {1, 8, 40, 9, 9}, CGP_PADDING_SAME, 0}, /* 8x16 px x 64 ch */
    {29, {1, 8, 40, 3, 3}, CGP_PADDING_VALID, 0}, /* 8x8 px x 64 ch */
    {29, {1, 8, 1, 9, 9}, CGP_PADDING_SAME, 0}, /* 8x16 px x 32 ch */
    {29, {1, 8, 1, 3, 3}, CGP_PADDING_VALID, 0}, /* 8x8 px x 32 ch */
    {29, {1, 1, 40, 9, 9}, CGP_PADDING_SAME, 0}, /* 8x16 px x 64 ch, 4-byte weights */
    {29, {1, 1, 40, 3, 3}, CGP_PADDING_VALID, 0}, /* 8x8 px x 64 ch, 4-byte weights */
    {29, {1, 1, 1, 9, 9}, CGP_PADDING_SAME, 0}, /* 8x16 px x 32 ch, 4-byte weights */
    {29, {1, 1, 1, 3, 3}, CGP_PADDING_VALID, 0}, /* 8x8 px x 32 ch, 4-byte weights */
    {27, {1, 1, 1, 4, 8}, CGP_PADDING_VALID, 0}, /* tma */
    {27, {1, 1, 1, 3, 3}, CGP_PADDING_VALID, 0}, /* cp.async */
};

#endif

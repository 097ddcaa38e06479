/*
 * zoo.h - the shape zoo: the list of problems `cgp bench --zoo` (and `cgp roofline --zoo`,
 * scripts/torch_compare.py --zoo) measure. The public zoo is host/bench/zoo.csv, built into the
 * tool by the Makefile (build/gen/zoo_builtin.c); `--zoo FILE` reads another CSV of the same form:
 *
 *     n,cin,cout,h,w,padding[,label]
 *     128,8,64,256,256,valid,the default problem
 *
 * a header naming at least the six shape columns (any order, label optional), then one shape a
 * record: positive integers, padding "valid" or "same", a shape with at least one output pixel.
 * Refused with "<name>:<line>: <problem>". Tested by tests/cpu/cpu_zoo.c.
 */
#ifndef CGP_ZOO_H
#define CGP_ZOO_H

#include <stddef.h>
#include "cgp.h"

typedef struct zoo_shape {
    cgp_shape shape;
    cgp_padding padding;
    char label[64]; /* "" when the file gives none */
} zoo_shape;

typedef struct zoo {
    zoo_shape *shapes; /* [count], owned */
    int count;
} zoo;

/* host/bench/zoo.csv as built into the tool */
extern const char cgp_zoo_builtin_csv[];

/* Parses CSV text[0, len); name starts every message. Returns 0, or -1 with err set (z is then empty). */
int zoo_parse(const char *text, size_t len, const char *name, zoo *z, char *err, size_t errlen);

/* The zoo of the CSV file at path, or the built-in public zoo when path is NULL. Returns 0 or -1
 * with err set. */
int zoo_load(const char *path, zoo *z, char *err, size_t errlen);

void zoo_free(zoo *z);

#endif

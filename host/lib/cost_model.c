/* cost_model.c - the heuristic selection's cost model (cost_model.h). */
#include "cost_model.h"

#include <math.h>

#include "cost_model_table.h"

/* the features cost_model_features computes; the table must have been fitted over the same list */
#define FEATURE_COUNT 68
_Static_assert(COST_MODEL_FEATURES == FEATURE_COUNT, "cost_model_table.h fitted over another feature list");

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
static double hinge(double v, double knot) { return v > knot ? v - knot : 0.0; }

/* The FEATURE_COUNT features, in scripts/fit_cost_model.py's order (FEATURE_NAMES there). */
static void cost_model_features(const cgp_problem *p, const cgp_device_info *d, double f[FEATURE_COUNT])
{
    const int64_t n = p->n, cin = p->cin, cout = p->cout, hout = p->hout, wout = p->wout;
    const int64_t sms = d->sm_count > 0 ? d->sm_count : 1;
    const double flop = (double)n * (double)hout * (double)wout * (double)cout * (double)cin * 18.0;
    const double lf = log(flop), lcin = log((double)cin), lcout = log((double)cout);
    int k = 0;
    f[k++] = 1.0;
    f[k++] = log((double)n);
    f[k++] = lcin;
    f[k++] = lcout;
    f[k++] = log((double)hout);
    f[k++] = log((double)wout);
    f[k++] = lf;
    f[k++] = (double)p->pad;
    f[k++] = log((double)(cdiv(cin, 8) * 8) / (double)cin);
    f[k++] = log((double)(cdiv(cout, 32) * 32) / (double)cout);
    f[k++] = log((double)(cdiv(cout, 64) * 64) / (double)cout);
    f[k++] = log((double)(cdiv(hout, 16) * 16) / (double)hout);
    f[k++] = log((double)(cdiv(wout, 16) * 16) / (double)wout);
    f[k++] = log((double)(cdiv(hout, 8) * 8) / (double)hout);
    f[k++] = log((double)(cdiv(wout, 8) * 8) / (double)wout);
    f[k++] = p->w % 4 == 0 ? 1.0 : 0.0;
    static const int64_t tile_sides[] = {16, 8};
    for (int t = 0; t < 2; ++t) { /* tiles of side x side pixels x 64 channels against the SMs */
        const int64_t side = tile_sides[t], tiles = n * cdiv(hout, side) * cdiv(wout, side) * cdiv(cout, 64);
        f[k++] = log((double)tiles);
        f[k++] = log((double)(cdiv(tiles, sms) * sms) / (double)tiles);
        f[k++] = tiles < sms ? 1.0 : 0.0;
    }
    f[k++] = lf * lf / 100.0;
    f[k++] = lcin * lcout / 10.0;
    f[k++] = log((double)n * (double)cin * (double)p->h * (double)p->w);
    static const double flop_knots[] = {16, 18, 20, 22, 24, 26}, cin_knots[] = {1.5, 3.0, 4.5},
                        cout_knots[] = {2.0, 3.5, 5.0};
    for (int i = 0; i < 6; ++i)
        f[k++] = hinge(lf, flop_knots[i]);
    for (int i = 0; i < 3; ++i)
        f[k++] = hinge(lcin, cin_knots[i]);
    for (int i = 0; i < 3; ++i)
        f[k++] = hinge(lcout, cout_knots[i]);
    static const int64_t chunks[] = {4, 16, 32}, cout_tiles[] = {8, 16, 128};
    for (int i = 0; i < 3; ++i)
        f[k++] = log((double)(cdiv(cin, chunks[i]) * chunks[i]) / (double)cin);
    for (int i = 0; i < 3; ++i)
        f[k++] = log((double)(cdiv(cout, cout_tiles[i]) * cout_tiles[i]) / (double)cout);
    /* tiles of rows x columns x channels, then of flat pixels x 64 channels: their waves over the SMs (one block an
     * SM) and the last wave's fill (WAVE_TILES and FLAT_TILES in the script) */
    static const int64_t wave_tiles[][3] = {{8, 16, 64}, {16, 16, 32}, {16, 16, 128}, {8, 8, 32}},
                         flat_tiles[] = {64, 128, 256};
    int64_t tile_counts[7];
    for (int t = 0; t < 4; ++t)
        tile_counts[t] = n * cdiv(hout, wave_tiles[t][0]) * cdiv(wout, wave_tiles[t][1]) * cdiv(cout, wave_tiles[t][2]);
    for (int t = 0; t < 3; ++t)
        tile_counts[4 + t] = cdiv(n * hout * wout, flat_tiles[t]) * cdiv(cout, 64);
    for (int t = 0; t < 7; ++t) {
        const int64_t waves = cdiv(tile_counts[t], sms);
        f[k++] = log((double)waves);
        f[k++] = log((double)(waves * sms) / (double)tile_counts[t]);
    }
    const int64_t plane = hout * wout;
    const double lpixels = log((double)n * (double)plane);
    f[k++] = log((double)plane);
    f[k++] = log((double)(cdiv(plane, 128) * 128) / (double)plane);
    f[k++] = cout <= 8 ? 1.0 : 0.0;
    f[k++] = cout <= 16 ? 1.0 : 0.0;
    f[k++] = cin <= 4 ? 1.0 : 0.0;
    f[k++] = lcin * lcin / 10.0;
    f[k++] = lcout * lcout / 10.0;
    f[k++] = lpixels;
    f[k++] = lpixels * log((double)(cdiv(cout, 64) * 64) / (double)cout) / 10.0;
    f[k++] = lpixels * log((double)(cdiv(cin, 8) * 8) / (double)cin) / 10.0;
    f[k++] = cout <= 4 ? 1.0 : 0.0;
}

/* the leaf of a complete tree that the features reach (the walk scripts/fit_cost_model.py's leaf_of takes) */
static double tree_leaf(const struct cost_model_tree *t, const double f[FEATURE_COUNT])
{
    enum { SPLITS = (1 << COST_MODEL_TREE_DEPTH) - 1 };
    int i = 0;
    while (i < SPLITS)
        i = 2 * i + (f[t->feature[i]] > t->threshold[i] ? 2 : 1);
    return t->leaf[i - SPLITS];
}

int cgp_cost_model_ms(int version, const cgp_problem *p, const cgp_device_info *d, double *ms)
{
    for (size_t i = 0; i < sizeof cost_model_table / sizeof cost_model_table[0]; ++i) {
        if (cost_model_table[i].version != version)
            continue;
        double f[FEATURE_COUNT];
        cost_model_features(p, d, f);
        double log_ms = 0.0;
        for (int k = 0; k < FEATURE_COUNT; ++k)
            log_ms += cost_model_table[i].coefficients[k] * f[k];
        const int first = cost_model_table[i].first_tree;
        for (int t = first; t < first + cost_model_table[i].tree_count; ++t)
            log_ms += tree_leaf(&cost_model_trees[t], f);
        *ms = exp(log_ms);
        return 1;
    }
    return 0;
}

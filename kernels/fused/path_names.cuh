/*
 * path_names.cuh - the names of a kernel family's path ids, composed at compile time from the family's own list of
 * tiles and K splits (library layer), so that a tile added to a family's list names its paths with it.
 *
 *   PathTileName                      a tile as its paths name it: TH x TW pixels x BN channels
 *   tile_path_names(prefix, tiles, [of,] splits)   the names of the family's tiles (of: one as its paths name it;
 *                                     without it, its th, tw and bn fields) x splits, split-major (the order of a
 *                                     family's ids): prefix + "THxTW px x BN ch", then ", K split S" where S > 1
 *   put_tile_path_name(out, prefix, tile, split)   one of those names (for a family whose ids run in another order)
 *   path_name_list(names...)          paths of no tile
 *   CGP_DEFINE_PATH_NAMES(symbol, first, names)   defines the range extern "C" cgp_path_names `symbol`: ids first,
 *                                     first + 1, ... named by `names` (dispatch.cu's cgp_path_name reads every range
 *                                     its PATH_NAME_RANGES lists), and checks that each name, and each with its
 *                                     4-byte-weights variant, fits CGP_PATH_NAME_MAX
 */
#ifndef CGP_PATH_NAMES_CUH
#define CGP_PATH_NAMES_CUH

#include <stddef.h>

#include "kernel_api.h"

struct PathTileName {
    int th, tw, bn;
};

template <int N> struct PathNames {
    static constexpr int count = N;
    char text[N][CGP_PATH_NAME_MAX];
};

/* Writes text at out[at...] (no NUL) and returns the position after it */
constexpr int put_path_text(char *out, int at, const char *text)
{
    for (int i = 0; text[i]; ++i)
        out[at++] = text[i];
    return at;
}

/* Writes v (>= 0) in decimal at out[at...] and returns the position after it */
constexpr int put_path_int(char *out, int at, int v)
{
    char digits[12] = {};
    int count = 0;
    do {
        digits[count++] = (char)('0' + v % 10);
        v /= 10;
    } while (v > 0);
    while (count > 0)
        out[at++] = digits[--count];
    return at;
}

/* Writes a path's name at out: prefix + "THxTW px x BN ch", then ", K split S" where split > 1 */
constexpr void put_tile_path_name(char *out, const char *prefix, PathTileName tile, int split)
{
    int at = put_path_text(out, 0, prefix);
    at = put_path_int(out, at, tile.th);
    at = put_path_text(out, at, "x");
    at = put_path_int(out, at, tile.tw);
    at = put_path_text(out, at, " px x ");
    at = put_path_int(out, at, tile.bn);
    at = put_path_text(out, at, " ch");
    if (split > 1) {
        at = put_path_text(out, at, ", K split ");
        put_path_int(out, at, split);
    }
}
/* The names of the family's tiles x splits, split-major: prefix + "THxTW px x BN ch" (of(tile): the tile as its
 * paths name it), then ", K split S" where S > 1 */
template <int S, class Tile, size_t T, class Of>
constexpr PathNames<(int)T * S> tile_path_names(const char *prefix, const Tile (&tiles)[T], Of of,
                                                const int (&splits)[S])
{
    PathNames<(int)T * S> names{};
    for (int s = 0; s < S; ++s)
        for (int t = 0; t < (int)T; ++t)
            put_tile_path_name(names.text[s * (int)T + t], prefix, of(tiles[t]), splits[s]);
    return names;
}

/* The same for tiles that have th, tw and bn fields, named as they are */
struct TileFields {
    template <class Tile> constexpr PathTileName operator()(const Tile &t) const { return {t.th, t.tw, t.bn}; }
};
template <int S, class Tile, size_t T>
constexpr PathNames<(int)T * S> tile_path_names(const char *prefix, const Tile (&tiles)[T], const int (&splits)[S])
{
    return tile_path_names(prefix, tiles, TileFields(), splits);
}

/* Paths of no tile, named in the order of their ids */
template <class... Names> constexpr PathNames<(int)sizeof...(Names)> path_name_list(Names... list)
{
    PathNames<(int)sizeof...(Names)> names{};
    const char *texts[] = {list...};
    for (int i = 0; i < (int)sizeof...(Names); ++i)
        put_path_text(names.text[i], 0, texts[i]);
    return names;
}

/* Whether every name, with CGP_PATH_WEIGHTS_4B_SUFFIX after it and the NUL, fits CGP_PATH_NAME_MAX */
template <int N> constexpr bool path_names_fit(const PathNames<N> &names)
{
    for (int i = 0; i < N; ++i) {
        int length = 0;
        while (names.text[i][length])
            ++length;
        if (length + (int)sizeof CGP_PATH_WEIGHTS_4B_SUFFIX > CGP_PATH_NAME_MAX)
            return false;
    }
    return true;
}

#define CGP_DEFINE_PATH_NAMES(symbol, first, ...)                                                                   \
    static constexpr auto symbol##_text = __VA_ARGS__;                                                              \
    static_assert(path_names_fit(symbol##_text), #symbol ": every name with its variant below CGP_PATH_NAME_MAX");  \
    extern "C" const cgp_path_names symbol = {(unsigned)(first), decltype(symbol##_text)::count, symbol##_text.text};

#endif

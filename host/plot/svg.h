/*
 * svg.h - the few SVG 1.1 elements the charts of `cgp roofline` and `cgp plot` are drawn with,
 * written through an outfile (host/io/outfile.h). Coordinates are pixels, printed with two
 * decimals ("%.2f"); text is escaped (& < > " ' as entities; bytes that are not UTF-8 and
 * control characters as '?'), so any device or variant name gives well-formed XML.
 * Colours and dash patterns are the callers' constant strings ("#1f77b4", "6,3").
 *
 *     svg_begin(&o, 900, 600);
 *     svg_line(&o, 10, 10, 100, 10, "#000", 1.0, NULL);
 *     svg_text(&o, 50, 30, 12, "middle", 0.0, "#000", "a < b");
 *     svg_end(&o);
 *
 * Tested (well-formed XML, escaping) by tests/cpu/cpu_roofline.c.
 */
#ifndef CGP_SVG_H
#define CGP_SVG_H

#include "outfile.h"

/* The XML declaration, the <svg> root (width, height, viewBox) and a white background. */
void svg_begin(outfile *o, double width, double height);
/* Closes the root. */
void svg_end(outfile *o);

/* Writes text with & < > " ' replaced by entities. */
void svg_escape(outfile *o, const char *text);

/* dash: NULL for a solid stroke, else a stroke-dasharray such as "6,3". */
void svg_line(outfile *o, double x1, double y1, double x2, double y2, const char *stroke, double width,
              const char *dash);
void svg_polyline(outfile *o, const double *x, const double *y, int count, const char *stroke, double width,
                  const char *dash);
/* fill or stroke may be "none". */
void svg_rect(outfile *o, double x, double y, double width, double height, const char *fill, const char *stroke);

/* anchor: "start", "middle" or "end"; rotate: degrees about (x, y), 0 for none. */
void svg_text(outfile *o, double x, double y, double size, const char *anchor, double rotate, const char *fill,
              const char *text);

/* Text extents, for laying text out and for checking it lies inside the picture (tests/cpu/cpu_svg_layout.c).
 * The width is an upper bound for DejaVu Sans, the first font svg_begin asks for and the widest of those it
 * names: per character, 0.42 em for the narrow ones (space . , : ; ' | ! ( ) [ ] / \ - f i j l r t I), 1 em
 * for m w M W % @ and anything not ASCII, 0.84 em for the other capitals and + < = > ^ ~ # & _, 0.64 em for
 * the rest. Above the baseline text reaches at most SVG_TEXT_ASCENT em, below it SVG_TEXT_DESCENT em. */
#define SVG_TEXT_ASCENT 0.95
#define SVG_TEXT_DESCENT 0.25
double svg_text_width(const char *text, double size);
/* The number of bytes of text that fit in `width` at `size`: up to the last space that fits (the space not
 * counted), else as many whole characters as fit, at least one; strlen(text) when all of it fits. */
size_t svg_text_fit(const char *text, double size, double width);

/* A group translated to (x, y), with an optional tooltip (<title>, NULL for none). */
void svg_group_begin(outfile *o, double x, double y, const char *title);
void svg_group_end(outfile *o);

/* A clip rectangle named id, and a group clipped by it. */
void svg_clip_define(outfile *o, const char *id, double x, double y, double width, double height);
void svg_clip_begin(outfile *o, const char *id);
void svg_clip_end(outfile *o);

/* A marker centred on (0, 0) (inside a translated group): shape 0 circle, 1 square, 2 triangle,
 * 3 diamond, 4 inverted triangle (taken modulo 5), filled with fill. */
void svg_marker(outfile *o, int shape, double radius, const char *fill);
/* The same shape hollow: white inside, outlined in stroke. */
void svg_marker_outline(outfile *o, int shape, double radius, const char *stroke);

#endif

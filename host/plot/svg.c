/* svg.c - see svg.h. */
#include "svg.h"

#include <stdio.h>
#include <string.h>

void svg_begin(outfile *o, double width, double height)
{
    outfile_printf(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                      "viewBox=\"0 0 %.0f %.0f\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n",
                   width, height, width, height);
    svg_rect(o, 0.0, 0.0, width, height, "#ffffff", "none");
}

void svg_end(outfile *o) { outfile_printf(o, "</svg>\n"); }

/* length of the valid UTF-8 sequence at s (1 to 4), or 0 when it is not one */
static int utf8_length(const unsigned char *s)
{
    const int len = s[0] < 0x80                ? 1
                    : (s[0] & 0xE0) == 0xC0 ? 2
                    : (s[0] & 0xF0) == 0xE0 ? 3
                    : (s[0] & 0xF8) == 0xF0 ? 4
                                            : 0;
    if (len == 0 || (len == 2 && s[0] < 0xC2) || (len == 4 && s[0] > 0xF4))
        return 0;
    for (int i = 1; i < len; ++i)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if ((len == 3 && s[0] == 0xE0 && s[1] < 0xA0) || (len == 4 && s[0] == 0xF0 && s[1] < 0x90) ||
        (len == 4 && s[0] == 0xF4 && s[1] > 0x8F) || (len == 3 && s[0] == 0xED && s[1] > 0x9F))
        return 0; /* overlong, above U+10FFFF, or a surrogate */
    return len;
}

void svg_escape(outfile *o, const char *text)
{
    const unsigned char *s = (const unsigned char *)text;
    while (*s) {
        const char *entity = *s == '&'    ? "&amp;"
                             : *s == '<'  ? "&lt;"
                             : *s == '>'  ? "&gt;"
                             : *s == '"'  ? "&quot;"
                             : *s == '\'' ? "&apos;"
                                          : NULL;
        const int len = utf8_length(s);
        if (entity)
            outfile_printf(o, "%s", entity);
        else if (len == 0 || (*s < 0x20 && *s != '\t' && *s != '\n'))
            outfile_write(o, "?", 1); /* not UTF-8, or a control character XML 1.0 does not allow */
        else
            outfile_write(o, s, (size_t)len);
        s += len ? len : 1;
    }
}

static void stroke_attributes(outfile *o, const char *stroke, double width, const char *dash)
{
    outfile_printf(o, " stroke=\"%s\" stroke-width=\"%.2f\"", stroke, width);
    if (dash)
        outfile_printf(o, " stroke-dasharray=\"%s\"", dash);
}

void svg_line(outfile *o, double x1, double y1, double x2, double y2, const char *stroke, double width,
              const char *dash)
{
    outfile_printf(o, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"", x1, y1, x2, y2);
    stroke_attributes(o, stroke, width, dash);
    outfile_printf(o, "/>\n");
}

void svg_polyline(outfile *o, const double *x, const double *y, int count, const char *stroke, double width,
                  const char *dash)
{
    outfile_printf(o, "<polyline fill=\"none\" points=\"");
    for (int i = 0; i < count; ++i)
        outfile_printf(o, "%s%.2f,%.2f", i ? " " : "", x[i], y[i]);
    outfile_printf(o, "\"");
    stroke_attributes(o, stroke, width, dash);
    outfile_printf(o, "/>\n");
}

void svg_rect(outfile *o, double x, double y, double width, double height, const char *fill, const char *stroke)
{
    outfile_printf(o, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\" stroke=\"%s\"/>\n", x, y,
                   width, height, fill, stroke);
}

void svg_text(outfile *o, double x, double y, double size, const char *anchor, double rotate, const char *fill,
              const char *text)
{
    outfile_printf(o, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"%.1f\" text-anchor=\"%s\" fill=\"%s\"", x, y, size,
                   anchor, fill);
    if (rotate != 0.0)
        outfile_printf(o, " transform=\"rotate(%.2f %.2f %.2f)\"", rotate, x, y);
    outfile_printf(o, ">");
    svg_escape(o, text);
    outfile_printf(o, "</text>\n");
}

/* the width in em of the character at s (see svg.h), and its length in bytes through *len */
static double char_em(const char *s, int *len)
{
    const unsigned char c = (unsigned char)*s;
    if (c >= 0x80) { /* a multi-byte character (or a stray byte, escaped as '?'): 1 em */
        const int n = utf8_length((const unsigned char *)s);
        *len = n ? n : 1;
        return 1.0;
    }
    *len = 1;
    if (strchr(" .,:;'|!()[]/\\-fijlrtI", c))
        return 0.42;
    if (strchr("mwMW%@", c))
        return 1.0;
    if ((c >= 'A' && c <= 'Z') || strchr("+<=>^~#&_", c))
        return 0.84;
    return 0.64;
}

double svg_text_width(const char *text, double size)
{
    double em = 0.0;
    for (int len = 0; *text; text += len)
        em += char_em(text, &len);
    return em * size;
}

size_t svg_text_fit(const char *text, double size, double width)
{
    double used = 0.0;
    size_t at = 0, last_space = 0;
    int len = 0;
    for (; text[at]; at += (size_t)len) {
        const double w = char_em(text + at, &len) * size;
        if (used + w > width)
            break;
        if (text[at] == ' ')
            last_space = at;
        used += w;
    }
    if (!text[at])
        return at;
    if (last_space > 0)
        return last_space;
    if (at == 0) { /* not even one character fits: take one */
        char_em(text, &len);
        at = (size_t)len;
    }
    return at;
}

void svg_group_begin(outfile *o, double x, double y, const char *title)
{
    outfile_printf(o, "<g transform=\"translate(%.2f,%.2f)\">", x, y);
    if (title) {
        outfile_printf(o, "<title>");
        svg_escape(o, title);
        outfile_printf(o, "</title>");
    }
    outfile_printf(o, "\n");
}

void svg_group_end(outfile *o) { outfile_printf(o, "</g>\n"); }

void svg_clip_define(outfile *o, const char *id, double x, double y, double width, double height)
{
    outfile_printf(o, "<defs><clipPath id=\"%s\"><rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"/>"
                      "</clipPath></defs>\n",
                   id, x, y, width, height);
}

void svg_clip_begin(outfile *o, const char *id) { outfile_printf(o, "<g clip-path=\"url(#%s)\">\n", id); }

void svg_clip_end(outfile *o) { outfile_printf(o, "</g>\n"); }

/* the marker shape, filled with fill, edged with edge (an attribute string) */
static void marker(outfile *o, int shape, double r, const char *fill, const char *edge)
{
    switch (((shape % 5) + 5) % 5) {
    case 0:
        outfile_printf(o, "<circle cx=\"0\" cy=\"0\" r=\"%.2f\" fill=\"%s\" %s/>\n", r, fill, edge);
        break;
    case 1:
        outfile_printf(o, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\" %s/>\n", -0.85 * r,
                       -0.85 * r, 1.7 * r, 1.7 * r, fill, edge);
        break;
    case 2:
        outfile_printf(o, "<polygon points=\"0,%.2f %.2f,%.2f %.2f,%.2f\" fill=\"%s\" %s/>\n", -1.15 * r, r, 0.75 * r,
                       -r, 0.75 * r, fill, edge);
        break;
    case 3:
        outfile_printf(o, "<polygon points=\"0,%.2f %.2f,0 0,%.2f %.2f,0\" fill=\"%s\" %s/>\n", -1.2 * r, 1.2 * r,
                       1.2 * r, -1.2 * r, fill, edge);
        break;
    default:
        outfile_printf(o, "<polygon points=\"0,%.2f %.2f,%.2f %.2f,%.2f\" fill=\"%s\" %s/>\n", 1.15 * r, r, -0.75 * r,
                       -r, -0.75 * r, fill, edge);
    }
}

void svg_marker(outfile *o, int shape, double r, const char *fill)
{
    marker(o, shape, r, fill, "stroke=\"#000000\" stroke-width=\"0.8\"");
}

void svg_marker_outline(outfile *o, int shape, double r, const char *stroke)
{
    char edge[64];
    snprintf(edge, sizeof edge, "stroke=\"%s\" stroke-width=\"1.6\"", stroke);
    marker(o, shape, r, "#ffffff", edge);
}

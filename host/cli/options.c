/* options.c - table-driven command-line options: see options.h. */
#include "options.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "message.h"

/* a parsed value, held until the whole command line is known to be valid */
typedef union option_value {
    int64_t i;
    double d;
    const char *s;
    int index;
} option_value;


static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* the end of the run of decimal digits at p; their number added to *count */
static const char *skip_digits(const char *p, int *count)
{
    while (is_digit(*p))
        p++, (*count)++;
    return p;
}

/* A plain decimal number, the whole text: [-]digits for an integer (real 0), in v->i within int64;
 * [-]digits[.digits][e[+-]digits] (or [-].digits...) for a real (real 1), in v->d and finite. Returns 0, or -1. */
static int parse_number(const char *text, int real, option_value *v)
{
    int digits = 0;
    const char *p = skip_digits(text + (text[0] == '-'), &digits);
    if (real && *p == '.')
        p = skip_digits(p + 1, &digits);
    if (digits == 0)
        return -1;
    if (real && (*p == 'e' || *p == 'E')) {
        int exponent_digits = 0;
        p = skip_digits(p + 1 + (p[1] == '+' || p[1] == '-'), &exponent_digits);
        if (exponent_digits == 0)
            return -1;
    }
    if (*p != '\0')
        return -1;
    errno = 0;
    char *end;
    if (real)
        v->d = strtod(text, &end);
    else
        v->i = strtoll(text, &end, 10);
    return errno == ERANGE || *end != '\0' || (real && !isfinite(v->d)) ? -1 : 0;
}

static int choice_count(const option_spec *s)
{
    int n = 0;
    while (s->choices[n])
        n++;
    return n;
}

/* the choices joined: ("valid", "same") with ", " and " or " -> "valid or same" */
static void list_choices(char *buf, size_t cap, const option_spec *s, const char *sep, const char *last_sep)
{
    const int n = choice_count(s);
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && used < cap; ++i) {
        const int w = snprintf(buf + used, cap - used, "%s%s", i == 0 ? "" : i == n - 1 ? last_sep : sep,
                               s->choices[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

/* what a value must be, for messages: "an integer in [1, 1048576]" */
static void describe_value(char *buf, size_t cap, const option_spec *s)
{
    switch (s->kind) {
    case OPTION_KIND_INT:
        snprintf(buf, cap, "an integer in [%" PRId64 ", %" PRId64 "]", s->int_min, s->int_max);
        break;
    case OPTION_KIND_DOUBLE:
        snprintf(buf, cap, "a number in [%g, %g]", s->double_min, s->double_max);
        break;
    case OPTION_KIND_CHOICE:
        list_choices(buf, cap, s, ", ", " or ");
        break;
    default:
        buf[0] = '\0';
    }
}

/* edit distance between a[0..na) and b, or a large number when a is too long to bother */
static size_t edit_distance(const char *a, size_t na, const char *b)
{
    enum { MAX = 64 };
    const size_t nb = strlen(b);
    if (na >= MAX || nb >= MAX)
        return MAX;
    size_t row[MAX + 1];
    for (size_t j = 0; j <= nb; ++j)
        row[j] = j;
    for (size_t i = 1; i <= na; ++i) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= nb; ++j) {
            const size_t above = row[j];
            size_t best = diagonal + (a[i - 1] != b[j - 1]);
            if (above + 1 < best)
                best = above + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diagonal = above;
        }
    }
    return row[nb];
}

/* the option the user probably meant: a prefix match or an edit distance of at most 2 */
static const char *suggest(const option_spec *specs, const char *name, size_t len)
{
    if (strspn(name, "-") >= len)
        return NULL; /* "--" or "-" alone: nothing to go by */
    const char *best = NULL;
    size_t best_distance = 3;
    for (const option_spec *s = specs; s->name; ++s) {
        const size_t d = len >= 3 && strncmp(s->name, name, len) == 0 ? 1 : edit_distance(name, len, s->name);
        if (d < best_distance) {
            best_distance = d;
            best = s->name;
        }
    }
    return best;
}

static int parse_value(const char *command, const option_spec *s, const char *text, option_value *v,
                       char *err, size_t errlen)
{
    char what[256];
    describe_value(what, sizeof what, s);
    switch (s->kind) {
    case OPTION_KIND_INT:
    case OPTION_KIND_DOUBLE: {
        const int real = s->kind == OPTION_KIND_DOUBLE;
        if (parse_number(text, real, v) == 0 &&
            (real ? v->d >= s->double_min && v->d <= s->double_max : v->i >= s->int_min && v->i <= s->int_max))
            return 0;
        message_prefixed(err, errlen, command, "%s must be %s, got '%s'", s->name, what, text);
        return -1;
    }
    case OPTION_KIND_STRING:
    case OPTION_KIND_FLAG_OR_STRING:
        if (text[0] != '\0') {
            v->s = text;
            return 0;
        }
        message_prefixed(err, errlen, command, "%s needs a value", s->name);
        return -1;
    case OPTION_KIND_CHOICE:
        for (int i = 0; s->choices[i]; ++i)
            if (strcmp(text, s->choices[i]) == 0) {
                v->index = i;
                return 0;
            }
        list_choices(what, sizeof what, s, ", ", ", ");
        message_prefixed(err, errlen, command, "%s must be one of %s; got '%s'", s->name, what, text);
        return -1;
    case OPTION_KIND_FLAG:
        break;
    }
    return -1;
}

static void store(const option_spec *s, const option_value *v)
{
    switch (s->kind) {
    case OPTION_KIND_INT:
        *s->int_target = v->i;
        break;
    case OPTION_KIND_DOUBLE:
        *s->double_target = v->d;
        break;
    case OPTION_KIND_STRING:
        *s->string_target = v->s;
        break;
    case OPTION_KIND_CHOICE:
        *s->choice_target = v->index;
        break;
    case OPTION_KIND_FLAG:
        *s->flag_target = 1;
        break;
    case OPTION_KIND_FLAG_OR_STRING:
        *s->flag_target = 1;
        if (v->s)
            *s->string_target = v->s;
        break;
    }
}

int options_parse(const char *command, const option_spec *specs, int argc, char *const *argv, char *err,
                  size_t errlen)
{
    if (errlen)
        err[0] = '\0';
    int count = 0;
    while (specs[count].name)
        count++;
    if (count > OPTIONS_MAX) {
        message_prefixed(err, errlen, command, "internal error: %d options in one table (at most %d)", count, OPTIONS_MAX);
        return OPTIONS_ERROR;
    }
    for (int i = 0; i < argc; ++i)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return OPTIONS_HELP;

    option_value values[OPTIONS_MAX];
    unsigned char given[OPTIONS_MAX] = {0};
    for (int i = 0; i < argc; ++i) {
        const char *arg = argv[i];
        if (arg[0] != '-' || arg[1] == '\0') {
            message_prefixed(err, errlen, command, "unexpected argument '%s' (options are written --name value)", arg);
            return OPTIONS_ERROR;
        }
        const char *equals = strncmp(arg, "--", 2) == 0 ? strchr(arg, '=') : NULL;
        const size_t name_len = equals ? (size_t)(equals - arg) : strlen(arg);
        int k = 0;
        while (k < count && !(strlen(specs[k].name) == name_len && memcmp(specs[k].name, arg, name_len) == 0))
            k++;
        if (k == count) {
            const char *guess = suggest(specs, arg, name_len);
            if (guess)
                message_prefixed(err, errlen, command, "unknown option '%.*s' (did you mean %s?)", (int)name_len, arg, guess);
            else
                message_prefixed(err, errlen, command, "unknown option '%.*s' (see %s --help)", (int)name_len, arg, command);
            return OPTIONS_ERROR;
        }
        const option_spec *s = &specs[k];
        if (given[k]++) {
            message_prefixed(err, errlen, command, "%s given twice", s->name);
            return OPTIONS_ERROR;
        }
        if (s->kind == OPTION_KIND_FLAG) {
            if (equals) {
                message_prefixed(err, errlen, command, "%s takes no value, got '%s'", s->name, arg);
                return OPTIONS_ERROR;
            }
            continue;
        }
        const char *text;
        if (equals) {
            text = equals + 1;
        } else if (i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0) {
            text = argv[++i];
        } else if (s->kind == OPTION_KIND_FLAG_OR_STRING) {
            values[k].s = NULL; /* the flag alone */
            continue;
        } else {
            char what[256];
            describe_value(what, sizeof what, s);
            if (what[0])
                message_prefixed(err, errlen, command, "%s needs a value (%s)", s->name, what);
            else
                message_prefixed(err, errlen, command, "%s needs a value", s->name);
            return OPTIONS_ERROR;
        }
        if (parse_value(command, s, text, &values[k], err, errlen) != 0)
            return OPTIONS_ERROR;
    }
    for (int k = 0; k < count; ++k)
        if (given[k])
            store(&specs[k], &values[k]);
    return OPTIONS_OK;
}

/* "--n <int>", "--padding valid|same" */
static void option_usage(char *buf, size_t cap, const option_spec *s)
{
    static const char *const value_of_kind[] = {
        [OPTION_KIND_INT] = " <int>",   [OPTION_KIND_DOUBLE] = " <number>",          [OPTION_KIND_STRING] = " <text>",
        [OPTION_KIND_CHOICE] = " ",     [OPTION_KIND_FLAG_OR_STRING] = " [<text>]", [OPTION_KIND_FLAG] = "",
    };
    char choices[256] = "";
    if (s->kind == OPTION_KIND_CHOICE)
        list_choices(choices, sizeof choices, s, "|", "|");
    snprintf(buf, cap, "%s%s%s", s->name, value_of_kind[s->kind], choices);
}

void options_print_help(FILE *out, const char *command, const char *synopsis, const option_spec *specs)
{
    static const char help_usage[] = "-h, --help";
    size_t width = sizeof help_usage - 1;
    char usage[320];
    for (const option_spec *s = specs; s->name; ++s) {
        option_usage(usage, sizeof usage, s);
        if (strlen(usage) > width)
            width = strlen(usage);
    }
    fprintf(out, "usage: %s [options]\n", command);
    if (synopsis)
        fprintf(out, "%s\n", synopsis);
    fprintf(out, "\noptions:\n");
    for (const option_spec *s = specs; s->name; ++s) {
        option_usage(usage, sizeof usage, s);
        fprintf(out, "  %-*s  %s", (int)width, usage, s->help ? s->help : "");
        switch (s->kind) {
        case OPTION_KIND_INT:
            fprintf(out, "; integer in [%" PRId64 ", %" PRId64 "] (default: %" PRId64 ")", s->int_min, s->int_max,
                    *s->int_target);
            break;
        case OPTION_KIND_DOUBLE:
            fprintf(out, "; number in [%g, %g] (default: %g)", s->double_min, s->double_max, *s->double_target);
            break;
        case OPTION_KIND_STRING:
            fprintf(out, " (default: %s)", *s->string_target ? *s->string_target : "none");
            break;
        case OPTION_KIND_CHOICE: {
            const int i = *s->choice_target;
            fprintf(out, " (default: %s)", i >= 0 && i < choice_count(s) ? s->choices[i] : "none");
            break;
        }
        case OPTION_KIND_FLAG:
        case OPTION_KIND_FLAG_OR_STRING:
            break;
        }
        fprintf(out, "\n");
    }
    fprintf(out, "  %-*s  print this help and exit\n", (int)width, help_usage);
}

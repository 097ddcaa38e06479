/*
 * cpu_options.c - tests of host/cli/options.c, the table-driven option parser of every `cgp`
 * subcommand: each kind of option, both "--name value" and "--name=value", --help, defaults left
 * alone when an option is absent or the command line is wrong, and each error message.
 *
 *     make build/tests/cpu_options && build/tests/cpu_options
 */
#include <string.h>

#include "options.h"
#include "testlib.h"

static const char *const paddings[] = {"valid", "same", NULL};
static const char *const reduces[] = {"det", "atomic", NULL};
static const char *const precisions[] = {"fp32", "tf32", "3xtf32", NULL};

/* one set of targets with their defaults, and the spec table pointing at them */
typedef struct settings {
    int64_t n, shift;
    double tol, scale;
    int padding, reduce, precision, csv;
    const char *out;
    option_spec specs[12];
} settings;

static void settings_init(settings *s)
{
    s->n = 128;
    s->shift = 0;
    s->tol = 1e-6;
    s->scale = 1.0;
    s->padding = 1;
    s->reduce = 0;
    s->precision = 0;
    s->csv = 0;
    s->out = NULL;
    const option_spec specs[] = {
        OPTION_INT("--n", &s->n, 1, 1048576, "batch size"),
        OPTION_INT("--shift", &s->shift, -10, 10, "a signed integer"),
        OPTION_DOUBLE("--tol", &s->tol, 0.0, 1.0, "relative L2 error allowed"),
        OPTION_DOUBLE("--scale", &s->scale, -2.0, 2.0, "a signed number"),
        OPTION_CHOICE("--padding", &s->padding, paddings, "padding of the 3x3 convolution"),
        OPTION_CHOICE("--reduce", &s->reduce, reduces, "reduction order"),
        OPTION_CHOICE("--precision", &s->precision, precisions, "arithmetic"),
        OPTION_STRING("--out", &s->out, "output file"),
        OPTION_FLAG("--csv", &s->csv, "print CSV"),
        OPTION_END};
    memcpy(s->specs, specs, sizeof specs);
}

static int is_default(const settings *s)
{
    return s->n == 128 && s->shift == 0 && s->tol == 1e-6 && s->scale == 1.0 && s->padding == 1 && s->reduce == 0 &&
           s->precision == 0 && s->csv == 0 && s->out == NULL;
}

/* parses the NULL-terminated argument list into fresh settings */
static int parse(settings *s, const char *command, char **args, char *err, size_t errlen)
{
    settings_init(s);
    int argc = 0;
    while (args[argc])
        argc++;
    return options_parse(command, s->specs, argc, args, err, errlen);
}

#define ARGS(...) ((char *[]){__VA_ARGS__, NULL})

/* the arguments must be refused with exactly this message, and leave every default alone */
static void expect_error(const char *name, const char *command, char **args, const char *message)
{
    settings s;
    char err[512];
    const int rc = parse(&s, command, args, err, sizeof err);
    if (rc != OPTIONS_ERROR)
        TEST_FAIL(name, "returned %d, expected OPTIONS_ERROR", rc);
    else if (strcmp(err, message) != 0)
        TEST_FAIL(name, "message \"%s\", expected \"%s\"", err, message);
    else
        TEST_EXPECT(name, is_default(&s), "a target changed although the command line was refused");
}

static void test_defaults_and_values(void)
{
    settings s;
    char err[512];
    TEST_EXPECT("no_arguments_keep_defaults", parse(&s, "cgp run", ARGS(NULL), err, sizeof err) == OPTIONS_OK &&
                                                  is_default(&s) && err[0] == '\0',
                "%s", err);

    int rc = parse(&s, "cgp run",
                   ARGS("--n", "5", "--shift", "-3", "--tol", "1e-3", "--scale", "-0.5", "--padding", "valid",
                        "--reduce", "atomic", "--precision", "3xtf32", "--out", "y.npy", "--csv"),
                   err, sizeof err);
    TEST_EXPECT("every_kind_separate_value",
                rc == OPTIONS_OK && s.n == 5 && s.shift == -3 && s.tol == 1e-3 && s.scale == -0.5 && s.padding == 0 &&
                    s.reduce == 1 && s.precision == 2 && s.out && strcmp(s.out, "y.npy") == 0 && s.csv == 1,
                "rc %d: %s", rc, err);

    rc = parse(&s, "cgp run",
               ARGS("--n=7", "--shift=-10", "--tol=.5", "--scale=2", "--padding=same", "--reduce=det",
                    "--precision=tf32", "--out=a=b.npy"),
               err, sizeof err);
    TEST_EXPECT("every_kind_equals_value",
                rc == OPTIONS_OK && s.n == 7 && s.shift == -10 && s.tol == 0.5 && s.scale == 2.0 && s.padding == 1 &&
                    s.reduce == 0 && s.precision == 1 && s.out && strcmp(s.out, "a=b.npy") == 0 && s.csv == 0,
                "rc %d: %s", rc, err);

    rc = parse(&s, "cgp run", ARGS("--tol", "1e-3"), err, sizeof err);
    TEST_EXPECT("absent_options_keep_defaults",
                rc == OPTIONS_OK && s.tol == 1e-3 && s.n == 128 && s.padding == 1 && s.out == NULL && s.csv == 0,
                "rc %d: %s", rc, err);

    rc = parse(&s, "cgp run", ARGS("--n", "1", "--shift", "10", "--tol", "0", "--scale", "-2"), err, sizeof err);
    TEST_EXPECT("range_ends_inclusive_low", rc == OPTIONS_OK && s.n == 1 && s.shift == 10 && s.tol == 0.0,
                "rc %d: %s", rc, err);
    rc = parse(&s, "cgp run", ARGS("--n", "1048576", "--shift=-0", "--tol", "1", "--scale", "2.0"), err, sizeof err);
    TEST_EXPECT("range_ends_inclusive_high", rc == OPTIONS_OK && s.n == 1048576 && s.shift == 0 && s.tol == 1.0,
                "rc %d: %s", rc, err);
    rc = parse(&s, "cgp run", ARGS("--n", "000128", "--tol", "5.", "--scale", "1E0"), err, sizeof err);
    TEST_EXPECT("number_spellings", rc == OPTIONS_ERROR && strcmp(err, "cgp run: --tol must be a number in [0, 1], got '5.'") == 0,
                "rc %d: %s", rc, err);
    rc = parse(&s, "cgp run", ARGS("--n", "000128", "--tol", "1.", "--scale", "1E0"), err, sizeof err);
    TEST_EXPECT("number_spellings_accepted", rc == OPTIONS_OK && s.n == 128 && s.tol == 1.0 && s.scale == 1.0,
                "rc %d: %s", rc, err);
    rc = parse(&s, "cgp run", ARGS("--tol", ".5", "--scale", "-1.5e+0"), err, sizeof err);
    TEST_EXPECT("number_spellings_fraction_and_signed_exponent", rc == OPTIONS_OK && s.tol == 0.5 && s.scale == -1.5,
                "rc %d: %s", rc, err);
    rc = parse(&s, "cgp run", ARGS("--out", "-"), err, sizeof err);
    TEST_EXPECT("string_value_with_dash", rc == OPTIONS_OK && s.out && strcmp(s.out, "-") == 0, "rc %d: %s", rc, err);
}

static void test_help(void)
{
    settings s;
    char err[512];
    TEST_EXPECT("help_long", parse(&s, "cgp run", ARGS("--help"), err, sizeof err) == OPTIONS_HELP, "%s", err);
    TEST_EXPECT("help_short", parse(&s, "cgp run", ARGS("--n", "5", "-h"), err, sizeof err) == OPTIONS_HELP &&
                                  is_default(&s),
                "%s", err);
    TEST_EXPECT("help_wins_over_errors",
                parse(&s, "cgp run", ARGS("--n", "x", "--bogus", "--help"), err, sizeof err) == OPTIONS_HELP &&
                    is_default(&s),
                "%s", err);

    settings_init(&s);
    s.n = 64; /* the help shows the current value as the default */
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    if (!out) {
        TEST_FAIL("print_help", "open_memstream failed");
        return;
    }
    options_print_help(out, "cgp run", "Runs the fused kernel once.", s.specs);
    fclose(out);
    static const char *const expected_lines[] = {
        "usage: cgp run [options]\nRuns the fused kernel once.\n\noptions:\n",
        "\n  --n <int>                     batch size; integer in [1, 1048576] (default: 64)\n",
        "\n  --shift <int>                 a signed integer; integer in [-10, 10] (default: 0)\n",
        "\n  --tol <number>                relative L2 error allowed; number in [0, 1] (default: 1e-06)\n",
        "\n  --padding valid|same          padding of the 3x3 convolution (default: same)\n",
        "\n  --precision fp32|tf32|3xtf32  arithmetic (default: fp32)\n",
        "\n  --out <text>                  output file (default: none)\n",
        "\n  --csv                         print CSV\n",
        "\n  -h, --help                    print this help and exit\n",
    };
    int ok = 1;
    for (size_t i = 0; i < sizeof expected_lines / sizeof expected_lines[0]; ++i)
        if (!strstr(text, expected_lines[i])) {
            TEST_FAIL("print_help", "missing \"%s\" in:\n%s", expected_lines[i], text);
            ok = 0;
            break;
        }
    if (ok)
        TEST_PASS("print_help");
    free(text);
}

static void test_errors(void)
{
    expect_error("int_junk", "cgp bench", ARGS("--n", "12x"), "cgp bench: --n must be an integer in [1, 1048576], got '12x'");
    expect_error("int_plus_sign", "cgp bench", ARGS("--n", "+5"), "cgp bench: --n must be an integer in [1, 1048576], got '+5'");
    expect_error("int_leading_space", "cgp bench", ARGS("--n", " 5"),
                 "cgp bench: --n must be an integer in [1, 1048576], got ' 5'");
    expect_error("int_trailing_space", "cgp bench", ARGS("--n=5 "),
                 "cgp bench: --n must be an integer in [1, 1048576], got '5 '");
    expect_error("int_hex", "cgp bench", ARGS("--n", "0x10"), "cgp bench: --n must be an integer in [1, 1048576], got '0x10'");
    expect_error("int_float", "cgp bench", ARGS("--n", "1e3"), "cgp bench: --n must be an integer in [1, 1048576], got '1e3'");
    expect_error("int_empty", "cgp bench", ARGS("--n="), "cgp bench: --n must be an integer in [1, 1048576], got ''");
    expect_error("int_overflow", "cgp bench", ARGS("--n", "99999999999999999999"),
                 "cgp bench: --n must be an integer in [1, 1048576], got '99999999999999999999'");
    expect_error("int_negative_overflow", "cgp bench", ARGS("--shift", "-9223372036854775809"),
                 "cgp bench: --shift must be an integer in [-10, 10], got '-9223372036854775809'");
    expect_error("int_above_range", "cgp bench", ARGS("--n", "1048577"),
                 "cgp bench: --n must be an integer in [1, 1048576], got '1048577'");
    expect_error("int_below_range", "cgp bench", ARGS("--n", "0"), "cgp bench: --n must be an integer in [1, 1048576], got '0'");
    expect_error("int_negative_as_option", "cgp bench", ARGS("--n", "-1"),
                 "cgp bench: --n must be an integer in [1, 1048576], got '-1'");
    expect_error("int_double_minus", "cgp bench", ARGS("--shift", "--5"),
                 "cgp bench: --shift needs a value (an integer in [-10, 10])");
    expect_error("int_missing_value", "cgp bench", ARGS("--n"), "cgp bench: --n needs a value (an integer in [1, 1048576])");

    expect_error("double_junk", "cgp check", ARGS("--tol", "abc"), "cgp check: --tol must be a number in [0, 1], got 'abc'");
    expect_error("double_inf", "cgp check", ARGS("--tol", "inf"), "cgp check: --tol must be a number in [0, 1], got 'inf'");
    expect_error("double_nan", "cgp check", ARGS("--tol=nan"), "cgp check: --tol must be a number in [0, 1], got 'nan'");
    expect_error("double_hex", "cgp check", ARGS("--tol", "0x1p-3"), "cgp check: --tol must be a number in [0, 1], got '0x1p-3'");
    expect_error("double_overflow", "cgp check", ARGS("--scale", "1e999"),
                 "cgp check: --scale must be a number in [-2, 2], got '1e999'");
    expect_error("double_underflow", "cgp check", ARGS("--tol", "1e-400"),
                 "cgp check: --tol must be a number in [0, 1], got '1e-400'");
    expect_error("double_exponent_sign_only", "cgp check", ARGS("--tol", "1e+"),
                 "cgp check: --tol must be a number in [0, 1], got '1e+'");
    expect_error("double_exponent_only", "cgp check", ARGS("--tol", "1e"), "cgp check: --tol must be a number in [0, 1], got '1e'");
    expect_error("double_no_digits", "cgp check", ARGS("--tol", "."), "cgp check: --tol must be a number in [0, 1], got '.'");
    expect_error("double_above_range", "cgp check", ARGS("--tol", "1.5"), "cgp check: --tol must be a number in [0, 1], got '1.5'");
    expect_error("double_below_range", "cgp check", ARGS("--scale=-2.01"),
                 "cgp check: --scale must be a number in [-2, 2], got '-2.01'");
    expect_error("double_missing_value", "cgp check", ARGS("--tol", "--n", "5"),
                 "cgp check: --tol needs a value (a number in [0, 1])");

    expect_error("choice_invalid", "cgp check", ARGS("--reduce", "fast"), "cgp check: --reduce must be one of det, atomic; got 'fast'");
    expect_error("choice_case_sensitive", "cgp check", ARGS("--padding=SAME"),
                 "cgp check: --padding must be one of valid, same; got 'SAME'");
    expect_error("choice_missing_value", "cgp run", ARGS("--padding"), "cgp run: --padding needs a value (valid or same)");
    expect_error("choice_missing_value_before_option", "cgp run", ARGS("--precision", "--n", "5"),
                 "cgp run: --precision needs a value (fp32, tf32 or 3xtf32)");

    expect_error("string_missing_value", "cgp run", ARGS("--out"), "cgp run: --out needs a value");
    expect_error("string_empty_value", "cgp run", ARGS("--out="), "cgp run: --out needs a value");
    expect_error("flag_with_value", "cgp run", ARGS("--csv=1"), "cgp run: --csv takes no value, got '--csv=1'");

    expect_error("given_twice", "cgp bench", ARGS("--n", "5", "--n=6"), "cgp bench: --n given twice");
    expect_error("flag_given_twice", "cgp bench", ARGS("--csv", "--csv"), "cgp bench: --csv given twice");

    expect_error("unknown_with_suggestion", "cgp run", ARGS("--paddin", "same"),
                 "cgp run: unknown option '--paddin' (did you mean --padding?)");
    expect_error("unknown_equals_form", "cgp run", ARGS("--paddin=same"),
                 "cgp run: unknown option '--paddin' (did you mean --padding?)");
    expect_error("unknown_prefix", "cgp run", ARGS("--prec", "tf32"), "cgp run: unknown option '--prec' (did you mean --precision?)");
    expect_error("unknown_single_dash", "cgp run", ARGS("-n", "5"), "cgp run: unknown option '-n' (did you mean --n?)");
    expect_error("unknown_no_suggestion", "cgp run", ARGS("--frobnicate"),
                 "cgp run: unknown option '--frobnicate' (see cgp run --help)");
    expect_error("unknown_double_dash", "cgp run", ARGS("--"), "cgp run: unknown option '--' (see cgp run --help)");
    expect_error("positional", "cgp run", ARGS("--n", "5", "x.npy"),
                 "cgp run: unexpected argument 'x.npy' (options are written --name value)");
    expect_error("positional_dash", "cgp run", ARGS("-"), "cgp run: unexpected argument '-' (options are written --name value)");
    expect_error("positional_empty", "cgp run", ARGS(""), "cgp run: unexpected argument '' (options are written --name value)");
    expect_error("error_after_valid_options", "cgp run", ARGS("--n", "5", "--csv", "--out", "y.npy", "--padding", "bad"),
                 "cgp run: --padding must be one of valid, same; got 'bad'");

    settings s;
    char err[16];
    TEST_EXPECT("message_truncated_safely",
                parse(&s, "cgp run", ARGS("--n", "12x"), err, sizeof err) == OPTIONS_ERROR &&
                    strcmp(err, "cgp run: --n mu") == 0,
                "got \"%s\"", err);
}

/* a table with an integer and a flag-or-string option, and its targets */
typedef struct zoo_settings {
    int64_t n;
    int flag;
    const char *value;
    option_spec specs[3];
} zoo_settings;

static void zoo_settings_init(zoo_settings *z)
{
    z->n = 128;
    z->flag = 0;
    z->value = NULL;
    const option_spec specs[] = {OPTION_INT("--n", &z->n, 1, 1000, "batch size"),
                                 OPTION_FLAG_OR_STRING("--zoo", &z->flag, &z->value, "the zoo, or the zoo of FILE"),
                                 OPTION_END};
    memcpy(z->specs, specs, sizeof specs);
}

/* "--zoo" alone sets the flag; "--zoo FILE" and "--zoo=FILE" also the string; refusals leave both alone */
static void test_flag_or_string(void)
{
    const struct {
        const char *name;
        char **args;
        int rc, flag, n;
        const char *value; /* NULL: none; an error message when rc is OPTIONS_ERROR */
    } cases[] = {
        {"flag_or_string_absent", ARGS("--n", "3"), OPTIONS_OK, 0, 3, NULL},
        {"flag_or_string_alone", ARGS("--zoo"), OPTIONS_OK, 1, 128, NULL},
        {"flag_or_string_alone_before_option", ARGS("--zoo", "--n", "4"), OPTIONS_OK, 1, 4, NULL},
        {"flag_or_string_value", ARGS("--zoo", "shapes.csv", "--n", "5"), OPTIONS_OK, 1, 5, "shapes.csv"},
        {"flag_or_string_equals", ARGS("--zoo=a=b.csv"), OPTIONS_OK, 1, 128, "a=b.csv"},
        {"flag_or_string_empty", ARGS("--zoo="), OPTIONS_ERROR, 0, 128, "cgp bench: --zoo needs a value"},
        {"flag_or_string_twice", ARGS("--zoo", "--zoo", "x.csv"), OPTIONS_ERROR, 0, 128, "cgp bench: --zoo given twice"},
    };
    zoo_settings z;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        zoo_settings_init(&z);
        int argc = 0;
        while (cases[i].args[argc])
            argc++;
        char err[512];
        const int rc = options_parse("cgp bench", z.specs, argc, cases[i].args, err, sizeof err);
        const int ok = cases[i].rc == OPTIONS_OK
                           ? rc == OPTIONS_OK && z.flag == cases[i].flag && z.n == cases[i].n &&
                                 (cases[i].value ? z.value && strcmp(z.value, cases[i].value) == 0 : z.value == NULL)
                           : rc == OPTIONS_ERROR && strcmp(err, cases[i].value) == 0 && z.flag == 0 && !z.value &&
                                 z.n == 128;
        TEST_EXPECT(cases[i].name, ok, "rc %d, flag %d, n %lld, value %s, message \"%s\"", rc, z.flag, (long long)z.n,
                    z.value ? z.value : "(none)", rc == OPTIONS_ERROR ? err : "");
    }
    zoo_settings_init(&z);
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    if (f) {
        options_print_help(f, "cgp bench", NULL, z.specs);
        fclose(f);
    }
    TEST_EXPECT("flag_or_string_help", buf && strstr(buf, "  --zoo [<text>]  the zoo, or the zoo of FILE\n"), "help: %s",
                buf ? buf : "(none)");
    free(buf);
}

int main(void)
{
    test_defaults_and_values();
    test_flag_or_string();
    test_help();
    test_errors();
    return test_exit_code();
}

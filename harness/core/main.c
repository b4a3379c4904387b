/*
 * rtb_main(): the command line every port shares (docs/records.md), parsed
 * without libc so a board can pass a semihosting or built-in command line
 * through the same code as POSIX argv. Usage errors: one diagnostic line,
 * RTB_EXIT_USAGE.
 */
#include <rtb/runner.h>
#include "calib.h"
#include "stamplog.h"
#include "strutil.h"

struct opts {
    struct rtb_config cfg;
    bool list;
    const char *only[RTB_MAX_ONLY];
};

static char diag_buf[256];

void rtb_diag(const char *a, const char *b, const char *c)
{
    diag_buf[0] = '\0';
    rtb_strlcat(diag_buf, "rtbench-harness: ", sizeof diag_buf);
    rtb_strlcat(diag_buf, a, sizeof diag_buf); /* a cut line ends in "…" */
    rtb_strlcat(diag_buf, b, sizeof diag_buf);
    rtb_strlcat(diag_buf, c, sizeof diag_buf);
    rtb_port_diag(diag_buf);
}

__attribute__((weak)) void rtb_port_diag(const char *line)
{
    size_t n = 0;
    while (line[n])
        n++;
    rtb_port_write(line, n);
    rtb_port_write("\n", 1);
}

/* A whole decimal number in [lo, hi], or false. */
static bool number(const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
    uint64_t v = 0;
    if (!s || !*s)
        return false;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        v = v * 10 + (uint64_t)(*s - '0');
        if (v > hi)
            return false;
    }
    if (v < lo)
        return false;
    *out = (uint32_t)v;
    return true;
}

/* A whole decimal number from 1 to 2^63, or false. */
static bool number64(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    if (!s || !*s)
        return false;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > (UINT64_C(1) << 59))
            return false;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    if (!v)
        return false;
    *out = v;
    return true;
}

/* Split "a,b,c" in place into o->only; every id must be registered. */
static int parse_only(struct opts *o, char *list)
{
    char *p = list;
    while (*p) {
        char *id = p;
        while (*p && *p != ',')
            p++;
        if (*p)
            *p++ = '\0';
        if (!*id)
            continue;
        if (!rtb_registry_find(id)) {
            rtb_diag("--only: unknown metric id '", id, "' (see --list)");
            return -1;
        }
        if (o->cfg.n_only == RTB_MAX_ONLY) {
            rtb_diag("--only: too many ids", "", "");
            return -1;
        }
        o->only[o->cfg.n_only++] = id;
    }
    if (!o->cfg.n_only) {
        rtb_diag("--only: no metric id given", "", "");
        return -1;
    }
    o->cfg.only = o->only;
    return 0;
}

static const struct {
    const char *name;
    uint32_t lo, hi;
    size_t offset;
    const char *range;
} numeric[] = {
    {"--samples", 1, 10000000, __builtin_offsetof(struct rtb_config, samples), "1 to 10000000"},
    {"--warmup", 0, 1000000, __builtin_offsetof(struct rtb_config, warmup), "0 to 1000000"},
    {"--budget-ms", 1, 3600000, __builtin_offsetof(struct rtb_config, budget_ms), "1 to 3600000"},
    {"--calib-pairs", 16, 1000000, __builtin_offsetof(struct rtb_config, calib_pairs), "16 to 1000000"},
};

/* One option at argv[i] (and its value at argv[i + 1]); returns the words
 * consumed, or -1 after a diagnostic. */
static int parse_one(struct opts *o, char *name, char *value)
{
    if (rtb_streq(name, "--list")) {
        o->list = true;
        return 1;
    }
    if (rtb_streq(name, "--cold")) {
        o->cfg.cold = true;
        return 1;
    }
    for (unsigned k = 0; k < sizeof numeric / sizeof numeric[0]; k++) {
        if (!rtb_streq(name, numeric[k].name))
            continue;
        uint32_t *field = (uint32_t *)((char *)&o->cfg + numeric[k].offset);
        if (!number(value, numeric[k].lo, numeric[k].hi, field)) {
            rtb_diag(name, " needs a whole number from ", numeric[k].range);
            return -1;
        }
        return 2;
    }
    if (rtb_streq(name, "--hz")) {
        if (!number64(value, &o->cfg.hz)) {
            rtb_diag(name, " needs a whole number of counter ticks per second, ", "1 or more");
            return -1;
        }
        return 2;
    }
    if (rtb_streq(name, "--core-hz")) {
        if (!number64(value, &o->cfg.core_hz)) {
            rtb_diag(name, " needs a whole number of core cycles per second, ", "1 or more");
            return -1;
        }
        return 2;
    }
    if (rtb_streq(name, "--step")) {
        if (!number64(value, &o->cfg.step)) {
            rtb_diag(name, " needs a whole number of the reported unit, ", "1 or more");
            return -1;
        }
        return 2;
    }
    if ((rtb_streq(name, "--only") || rtb_streq(name, "--profile") ||
         rtb_streq(name, "--stamp-log")) && !value) {
        rtb_diag("missing value for '", name, "'");
        return -1;
    }
    if (rtb_streq(name, "--only"))
        return parse_only(o, value) == 0 ? 2 : -1;
    if (rtb_streq(name, "--profile")) {
        o->cfg.profile = value;
        return 2;
    }
    if (rtb_streq(name, "--stamp-log")) {
        o->cfg.stamp_log = value;
        return 2;
    }
    int used = rtb_port_option(name, value);
    if (used == 0)
        rtb_diag("unknown option '", name, "'");
    else if (used < 0)
        rtb_diag(rtb_port_last_error(), "", "");
    else if (used == 2 && !value) {
        rtb_diag("missing value for '", name, "'");
        return -1;
    }
    return used > 0 ? used : -1;
}

int rtb_main(int argc, char **argv, const struct rtb_build *build)
{
    static struct opts o;
    o.cfg = (struct rtb_config){.samples = 10000, .warmup = 100, .budget_ms = 2000,
                                .calib_pairs = RTB_CALIB_PAIRS,
                                .compiler = build->compiler, .cflags = build->cflags,
                                .build_type = build->build_type, .profile = "rt"};
    o.list = false;
    for (int i = 1; i < argc;) {
        int used = parse_one(&o, argv[i], i + 1 < argc ? argv[i + 1] : 0);
        if (used < 0)
            return RTB_EXIT_USAGE;
        i += used;
    }
    if (rtb_port_setup(o.list) != RTB_OK) {
        rtb_diag(rtb_port_last_error(), "", "");
        return RTB_EXIT_USAGE;
    }
    if (o.cfg.stamp_log && !o.list && rtb_stamplog_open(o.cfg.stamp_log) != RTB_OK) {
        rtb_diag("--stamp-log ", o.cfg.stamp_log,
                 ": not opened (it needs a board under QEMU with semihosting on)");
        return RTB_EXIT_USAGE;
    }
    if (o.list) {
        rtb_list();
        return RTB_EXIT_OK;
    }
    return rtb_run(&o.cfg);
}

int rtb_split_args(char *line, char **argv, int max)
{
    int n = 0;
    char *p = line;
    while (*p && n < max) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
            *p++ = '\0';
        if (!*p)
            break;
        argv[n++] = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
            p++;
    }
    return n;
}

int rtb_board_command_line(char *buf, size_t size, int (*host)(char *buf, size_t size),
                           const char *builtin, char **argv, int max)
{
    int argc = host(buf, size) < 0 ? 0 : rtb_split_args(buf, argv, max);
    if (argc > 1)
        return argc;
    size_t i = 0; /* no host, or a host with nothing after the image's name */
    for (; builtin[i] && i + 1 < size; i++)
        buf[i] = builtin[i];
    buf[i] = '\0';
    return rtb_split_args(buf, argv, max);
}

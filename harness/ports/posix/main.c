/*
 * rtbench-harness for POSIX systems: parse the command line
 * (docs/records.md), set up the process (pinning, SCHED_FIFO, mlockall) and
 * hand over to the portable runner. Usage errors: one line, exit code 2.
 */
#include "posix_port.h"
#include <rtb/runner.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef RTB_COMPILER
#define RTB_COMPILER "unknown"
#endif
#ifndef RTB_CFLAGS
#define RTB_CFLAGS "unknown"
#endif
#ifndef RTB_BUILD_TYPE
#define RTB_BUILD_TYPE "unknown"
#endif

#define MAX_ONLY 2048

struct options {
    struct rtb_config cfg;
    const char *only[MAX_ONLY];
    char only_buf[65536]; /* every id of the catalogue (~400 × ~25 bytes) with room to grow */
    int cpu, no_rt, no_pin, no_mlock, list;
};

static void usage_error(const char *fmt, ...)
{
    va_list ap;
    fputs("rtbench-harness: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(2);
}

static uint32_t number(const char *opt, const char *s, unsigned long lo, unsigned long hi)
{
    char *end;
    errno = 0;
    unsigned long v = s && *s != '-' ? strtoul(s, &end, 10) : 0;
    if (!s || *s == '-' || errno || *end || end == s || v < lo || v > hi)
        usage_error("%s needs a whole number from %lu to %lu, got '%s'", opt, lo, hi, s ? s : "");
    return (uint32_t)v;
}

static void parse_only(struct options *o, const char *list)
{
    if (strlen(list) >= sizeof o->only_buf)
        usage_error("--only: list too long");
    strcpy(o->only_buf, list);
    char *save, *tok = strtok_r(o->only_buf, ",", &save);
    for (; tok; tok = strtok_r(0, ",", &save)) {
        if (!rtb_registry_find(tok))
            usage_error("--only: unknown metric id '%s' (see --list)", tok);
        if (o->cfg.n_only == MAX_ONLY)
            usage_error("--only: more than %d ids", MAX_ONLY);
        o->only[o->cfg.n_only++] = tok;
    }
    if (!o->cfg.n_only)
        usage_error("--only: no metric id given");
    o->cfg.only = o->only;
}

static void parse(struct options *o, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : 0;
        if (!strcmp(a, "--list")) {
            o->list = 1;
            continue;
        }
        if (!strcmp(a, "--no-rt")) {
            o->no_rt = 1;
            continue;
        }
        if (!strcmp(a, "--no-pin")) {
            o->no_pin = 1;
            continue;
        }
        if (!strcmp(a, "--no-mlock")) {
            o->no_mlock = 1;
            continue;
        }
        if (!strcmp(a, "--cold")) {
            o->cfg.cold = true;
            continue;
        }
        if (!v)
            usage_error("unknown option or missing value: '%s'", a);
        i++;
        if (!strcmp(a, "--samples"))
            o->cfg.samples = number(a, v, 1, 10000000);
        else if (!strcmp(a, "--warmup"))
            o->cfg.warmup = number(a, v, 0, 1000000);
        else if (!strcmp(a, "--budget-ms"))
            o->cfg.budget_ms = number(a, v, 1, 3600000);
        else if (!strcmp(a, "--cpu"))
            o->cpu = (int)number(a, v, 0, 4095);
        else if (!strcmp(a, "--only"))
            parse_only(o, v);
        else if (!strcmp(a, "--profile"))
            o->cfg.profile = v;
        else if (!strcmp(a, "--fault"))
            rtb_posix.fault = v;
        else
            usage_error("unknown option '%s'", a);
    }
}

int main(int argc, char **argv)
{
    static struct options o = {
        .cfg = {.samples = 10000, .warmup = 100, .budget_ms = 2000,
                .compiler = RTB_COMPILER, .cflags = RTB_CFLAGS, .build_type = RTB_BUILD_TYPE,
                .profile = "rt"},
        .cpu = -1,
    };
    parse(&o, argc, argv);
    rtb_posix_probe();
    if (o.list) {
        rtb_list();
        return 0;
    }
    char err[192];
    rtb_posix_ts_init();
    if (o.no_pin && o.cpu >= 0)
        usage_error("--no-pin and --cpu contradict each other");
    /* --no-rt: neither SCHED_FIFO nor locked memory (the README's promise) */
    if (rtb_posix_setup(o.no_pin ? -2 : o.cpu, o.no_rt, o.no_mlock || o.no_rt, err, sizeof err) != 0)
        usage_error("%s", err);
    if (rtb_run(&o.cfg) != RTB_OK) { /* nothing measured: say why, never a silent exit 0 */
        fprintf(stderr, "rtbench-harness: cannot run: %s\n", rtb_port_last_error());
        return 1;
    }
    return 0;
}

/*
 * POSIX port: the options only this port has (pinning, real-time policy,
 * memory locking, the fault hook), offered by rtb_main() through
 * rtb_port_option(), and applied by rtb_port_setup() (docs/records.md).
 */
#include "posix_port.h"
#include <rtb/runner.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    int cpu; /* -1: the last allowed CPU */
    int no_rt, no_pin, no_mlock;
} opt = {.cpu = -1};

int rtb_port_option(const char *name, const char *value)
{
    if (!strcmp(name, "--no-rt"))
        return opt.no_rt = 1;
    if (!strcmp(name, "--no-pin"))
        return opt.no_pin = 1;
    if (!strcmp(name, "--no-mlock"))
        return opt.no_mlock = 1;
    if (!strcmp(name, "--fault")) {
        rtb_posix.fault = value;
        return 2;
    }
    if (!strcmp(name, "--cpu")) {
        char *end;
        errno = 0;
        unsigned long v = value && *value != '-' ? strtoul(value, &end, 10) : 0;
        if (!value || *value == '-' || errno || *end || end == value || v > 4095)
            return rtb_posix_unsupported("--cpu needs a whole number from 0 to 4095"), -1;
        opt.cpu = (int)v;
        return 2;
    }
    return 0;
}

int rtb_port_setup(bool list_only)
{
    rtb_posix_probe();
    if (list_only)
        return RTB_OK;
    rtb_posix_ts_init();
    if (opt.no_pin && opt.cpu >= 0)
        return rtb_posix_unsupported("--no-pin and --cpu contradict each other");
    char err[192];
    /* --no-rt: neither SCHED_FIFO nor locked memory (the README's promise) */
    if (rtb_posix_setup(opt.no_pin ? -2 : opt.cpu, opt.no_rt, opt.no_mlock || opt.no_rt, err,
                        sizeof err) != 0)
        return rtb_posix_unsupported(err);
    return RTB_OK;
}

void rtb_port_diag(const char *line)
{
    fprintf(stderr, "%s\n", line);
}

/*
 * rtb/runner.h — what a port's start-up calls.
 *
 * A port's entry point (POSIX main(), an RTOS's runner task) gathers its
 * command line (argv, a semihosting command line, a string built into the
 * image) and calls rtb_main() from a task at priority RTB_PRIO_RUNNER. The
 * core parses the options every port shares (docs/records.md), offers the
 * rest to rtb_port_option(), calls rtb_port_setup(), then lists the
 * registry or runs the selected metrics and emits their records. The port
 * ends the program with the status rtb_main() returns (0 done, 1 the
 * harness could not measure, 2 usage error).
 */
#ifndef RTB_RUNNER_H
#define RTB_RUNNER_H

#include <rtb/bench.h>

#define RTB_HARNESS_VERSION "0.3.0"

#ifndef RTB_MAX_ONLY
#define RTB_MAX_ONLY 2048 /* ids one --only may list: the whole catalogue and room to grow */
#endif

/* How the harness was built, for the session record. */
struct rtb_build {
    const char *compiler;
    const char *cflags;
    const char *build_type;
};

/* What a port's main.c passes to rtb_main: the build as CMake describes it
 * (harness/CMakeLists.txt defines RTB_COMPILER, RTB_CFLAGS and
 * RTB_BUILD_TYPE for every port's executable), "unknown" where it does not. */
#ifndef RTB_COMPILER
#define RTB_COMPILER "unknown"
#endif
#ifndef RTB_CFLAGS
#define RTB_CFLAGS "unknown"
#endif
#ifndef RTB_BUILD_TYPE
#define RTB_BUILD_TYPE "unknown"
#endif
#define RTB_BUILD_INIT {RTB_COMPILER, RTB_CFLAGS, RTB_BUILD_TYPE}

struct rtb_config {
    uint32_t samples;          /* measured samples per metric */
    uint32_t warmup;           /* samples taken first and discarded */
    uint32_t budget_ms;        /* a metric stops collecting after this long */
    uint32_t calib_pairs;      /* back-to-back stamp pairs the overhead is taken from
                                  (--calib-pairs; fewer for an instruction trace) */
    const char *const *only;   /* ids to run; NULL: all */
    unsigned n_only;
    const char *compiler;      /* build facts for the session record */
    const char *cflags;
    const char *build_type;
    const char *profile;       /* name of the measurement profile (session record) */
    const char *stamp_log;     /* --stamp-log: the host file of every sample's stamps
                                  (core/stamplog.h), NULL: none */
    bool cold;                 /* evict caches before every sample */
    uint64_t hz;               /* --hz: the counter frequency an earlier block of the same
                                  run measured (0: measure it) */
    uint64_t core_hz;          /* --core-hz: the core clock an earlier block measured
                                  (0: measure it, where the port has an add chain) */
    uint64_t step;             /* --step: the clock's step an earlier block measured, in
                                  the reported unit (0: measure it); decides rtb_batch */
};

/* Exit statuses of rtb_main(). */
#define RTB_EXIT_OK 0
#define RTB_EXIT_FAILED 1 /* the harness could not measure (a diagnostic says why) */
#define RTB_EXIT_USAGE 2  /* bad command line (a diagnostic says why) */

/* Parse argv (argv[0] is the program name and is skipped), then list or run.
 * Options are separate words: "--samples 100", never "--samples=100". */
int rtb_main(int argc, char **argv, const struct rtb_build *build);

/* The registry in data-sheet order, one step at a time:
 *   struct rtb_registry_walk w = {0};
 *   while ((m = rtb_registry_next(&w))) ...
 * NULL past the end (and on every call after it). */
struct rtb_registry_walk {
    unsigned table;                /* which table `at` is in */
    const struct rtb_metric *at;   /* the metric returned last (NULL: none yet) */
};
const struct rtb_metric *rtb_registry_next(struct rtb_registry_walk *w);
const struct rtb_metric *rtb_registry_find(const char *id);
void rtb_list(void);                       /* one registry record per metric */
/* Session, begin+metric per metric, end. RTB_EXIT_OK, or RTB_EXIT_FAILED
 * (with a diagnostic) when the port cannot give the core its memory. */
int rtb_run(const struct rtb_config *cfg);

/* Split a command line into words at spaces, in place (a semihosting or
 * built-in command line); returns argc, at most max. */
int rtb_split_args(char *line, char **argv, int max);

/* A board's command line, split into argv in `buf`: the host's (`host`
 * copies it into buf and returns its length, or -1 without a host: a
 * board's semihosting), or `builtin` (the line built into the image) when
 * there is no host or the host passed nothing after the image's name (a
 * flashed board a lab powers on). Returns argc. */
int rtb_board_command_line(char *buf, size_t size, int (*host)(char *buf, size_t size),
                           const char *builtin, char **argv, int max);

/* A diagnostic line (not a record): through rtb_port_diag(). */
void rtb_diag(const char *a, const char *b, const char *c);

/* Where diagnostics go: POSIX stderr; a board's console (the same UART as
 * the records: a line not starting with '{' is not a record). Optional:
 * the default writes to rtb_port_write(). */
void rtb_port_diag(const char *line);

#endif

/*
 * rtb/runner.h — what a port's entry point calls: list the registry, or run
 * the selected metrics and emit their records (docs/records.md).
 */
#ifndef RTB_RUNNER_H
#define RTB_RUNNER_H

#include <rtb/bench.h>

#define RTB_HARNESS_VERSION "0.2.0"

struct rtb_config {
    uint32_t samples;          /* measured samples per metric */
    uint32_t warmup;           /* samples taken first and discarded */
    uint32_t budget_ms;        /* a metric stops collecting after this long */
    const char *const *only;   /* ids to run; NULL: all */
    unsigned n_only;
    const char *compiler;      /* build facts for the session record */
    const char *cflags;
    const char *build_type;
    const char *profile;       /* name of the measurement profile (session record) */
    bool cold;                 /* evict caches before every sample */
};

/* The i-th registered metric, or NULL past the end. */
const struct rtb_metric *rtb_registry_at(unsigned i);
const struct rtb_metric *rtb_registry_find(const char *id);
void rtb_list(void);                       /* one registry record per metric */
/* Session, begin+metric per metric, end; RTB_OK, or RTB_ERR before any
 * record when the port cannot give the runner its shared memory
 * (rtb_port_last_error() says why). */
int rtb_run(const struct rtb_config *cfg);

#endif

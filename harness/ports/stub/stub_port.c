/*
 * Stub port: the template a new port starts from, and the proof that the
 * portable core and every scenario build with no C library at all
 * (scripts/freestanding-check.sh builds it for Cortex-M4 and Cortex-M0).
 *
 * It implements only section A of rtb/port.h, the functions every port
 * must have; every optional service is the core's weak default
 * (core/port_defaults.c), so each metric that needs one records
 * "unsupported" with the reason. A new port copies this file, replaces
 * each stub with its kernel's call, then adds optional services one group
 * at a time, setting the RTB_CAP_* bit of each. docs/porting.md walks
 * through the FreeRTOS port as the worked example.
 */
#include <rtb/runner.h>

/* Freestanding C still needs these four from the environment (GCC may emit
 * calls to them for struct copies and initialisations). */
void *memcpy(void *d, const void *s, size_t n)
{
    unsigned char *dp = d;
    const unsigned char *sp = s;
    while (n--)
        *dp++ = *sp++;
    return d;
}
void *memmove(void *d, const void *s, size_t n)
{
    unsigned char *dp = d;
    const unsigned char *sp = s;
    if (dp < sp)
        return memcpy(d, s, n);
    while (n--)
        dp[n] = sp[n];
    return d;
}
void *memset(void *d, int c, size_t n)
{
    unsigned char *dp = d;
    while (n--)
        *dp++ = (unsigned char)c;
    return d;
}
int memcmp(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;
    for (; n; n--, x++, y++)
        if (*x != *y)
            return *x - *y;
    return 0;
}

#define STUB return RTB_ENOTSUP

/* Records go to a RAM buffer a debugger reads; a real port writes a UART. */
static char out[4096];
static size_t out_len;
void rtb_port_write(const char *s, size_t n)
{
    while (n-- && out_len < sizeof out)
        out[out_len++] = *s++;
}

uint32_t rtb_port_caps(void) { return 0; }                 /* no optional service yet */
const char *rtb_port_last_error(void) { return "stub port: service not provided"; }

/* Shared memory: one address space, so a static arena. */
static unsigned char arena[48u * 1024u] __attribute__((aligned(16)));
static size_t arena_used;
void *rtb_port_shared(size_t size)
{
    size = (size + 15u) & ~(size_t)15u;
    if (size > sizeof arena - arena_used)
        return 0;
    arena_used += size;
    return arena + arena_used - size;
}

void rtb_port_info(struct rtb_port_info *o)
{
    o->port = "stub";
    o->ts_source = "DWT CYCCNT";
    o->ref_clock = "";
    o->ts_hz_nominal = 168000000u; /* SystemCoreClock on a real board */
    o->unit = "cycles";
    o->unit_detail = "core clock cycles (DWT CYCCNT), 32 bits: the stub never extends it";
    o->realtime = true;            /* a bare-metal kernel's priorities are real */
    o->policy = "fixed-priority preemptive";
    o->rt_reason = "";
    o->mlock = true;
    o->cpu = 0;
    o->cpus_online = 1;
    o->irq_switch_at_exit = true;
    o->facts = 0;
}

/* Tasks: create ready at prio (higher = more urgent), join waits for return. */
int rtb_port_task_create(int id, int prio, unsigned flags, rtb_task_fn fn, void *arg) { (void)id, (void)prio, (void)flags, (void)fn, (void)arg; STUB; }
int rtb_port_task_join(int id) { (void)id; STUB; }
void rtb_port_task_yield(void) {}
int rtb_port_task_set_prio(int id, int prio) { (void)id, (void)prio; STUB; }
int rtb_port_task_delay(uint32_t us) { (void)us; STUB; }

/* The entry point a board's reset handler calls: a built-in command line. */
void rtb_stub_main(void)
{
    static char line[] = "rtbench-harness --samples 1000 --warmup 10 --budget-ms 1000";
    static const struct rtb_build build = {"arm-none-eabi-gcc", "", "MinSizeRel"};
    char *argv[8];
    int argc = rtb_split_args(line, argv, 8);
    rtb_main(argc, argv, &build);
    for (;;)
        ;
}

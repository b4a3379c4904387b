/*
 * POSIX port: the timestamp read, inline because its cost is in every sample.
 *
 * x86-64 with an invariant TSC: RDTSC fenced by LFENCE on both sides, so the
 * read neither starts before earlier instructions finish nor lets later ones
 * start before it (LFENCE is dispatch-serialising on Intel and, with the
 * kernel's default mitigations, on AMD). Otherwise CLOCK_MONOTONIC_RAW in ns.
 * The choice is made once at start-up (rtb_posix_ts_init); the branch is
 * perfectly predicted and inside the calibrated overhead.
 */
#ifndef RTB_PORT_ARCH_H
#define RTB_PORT_ARCH_H

#include <stdint.h>
#include <time.h>

extern int rtb_posix_use_tsc;

static inline uint64_t rtb_posix_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t rtb_port_ts(void)
{
#if defined(__x86_64__)
    if (__builtin_expect(rtb_posix_use_tsc, 1)) {
        uint32_t lo, hi;
        __asm__ volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
        return ((uint64_t)hi << 32) | lo;
    }
#endif
    return rtb_posix_clock_ns();
}

#endif

/*
 * rtb_zephyr.h — what the Zephyr port's files share: the priority map,
 * timeouts as the port passes them, errors, and the start-up steps.
 */
#ifndef RTB_ZEPHYR_H
#define RTB_ZEPHYR_H

#include <rtb/port.h>
#include <stdint.h>
#include <zephyr/kernel.h>

/* rtbench priority p (1..31, higher more urgent) runs at Zephyr preemptive
 * priority 31 - p (0 most urgent, CONFIG_NUM_PREEMPT_PRIORITIES = 32); the
 * runner (30) at 1, as CONFIG_MAIN_THREAD_PRIORITY says. Priority 31, the
 * lowest an application may use, is the port's busy thread (main.c), so
 * the idle thread never runs and never sleeps (under QEMU a halted CPU
 * wakes for SysTick a period late). */
static inline int rtb_zephyr_prio(int p)
{
    return 31 - (p < 1 ? 1 : p > 31 ? 31 : p);
}

/* A timeout in microseconds as the ticks of a k_timeout_t: RTB_NO_WAIT 0
 * (K_NO_WAIT), RTB_WAIT_FOREVER -1 (K_FOREVER), otherwise whole ticks
 * rounded up (a timed wait never ends early). A word, so a prepared call
 * carries it; a shim makes the k_timeout_t (rtb_zephyr_timeout). */
int32_t rtb_zephyr_ticks(int32_t timeout_us);
static inline k_timeout_t rtb_zephyr_timeout(rtb_word ticks)
{
    return (k_timeout_t){.ticks = (k_ticks_t)(int32_t)ticks};
}

/* done() of a call that returns 0 or a negative errno: 0 is RTB_OK,
 * -EBUSY/-ENOMSG (nothing there, no wait) RTB_EWOULDBLOCK, -EAGAIN (timed
 * out) RTB_ETIMEOUT, anything else a failure named by aux[2] (a string). */
int rtb_zephyr_errno_done(const struct rtb_kcall *c);

/* Record a failure in words (rtb_port_last_error) and return RTB_ERR, or
 * RTB_ENOTSUP for rtb_zephyr_unsupported. */
int rtb_zephyr_fail(const char *what, const char *why);
int rtb_zephyr_unsupported(const char *what);

/* Start-up (main.c): the board's counter and console, the interrupt source. */
void rtb_zephyr_irq_init(void);
/* Keeps text_pad.c's pad in the image (RTB_ZEPHYR_TEXT_PAD; a no-op). */
void rtb_zephyr_keep_text_pad(void);

#if defined(CONFIG_USERSPACE)
/* The memory domain of user-mode tasks (main.c): the default domain's
 * partitions and what their stamps read. */
extern struct k_mem_domain rtb_zephyr_user_domain;
#endif

#endif /* RTB_ZEPHYR_H */

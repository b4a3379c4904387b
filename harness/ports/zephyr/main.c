/*
 * Zephyr port: start-up. Zephyr's main thread is the runner (its priority,
 * CONFIG_MAIN_THREAD_PRIORITY, is RTB_PRIO_RUNNER's, rtb_zephyr.h): it
 * starts the board's counter and the interrupt source, starts the busy
 * thread, reads the command line (semihosting, or the one built into the
 * image) and runs rtb_main; its exit status ends QEMU.
 */
#include <rtb/runner.h>

#if defined(CONFIG_USERSPACE)
#include <zephyr/app_memory/app_memdomain.h>
#endif

#include "rtb_zephyr.h"
#if defined(RTB_BOARD_MPS2)
#include "rtb_board.h"
#endif

#ifndef RTB_ZEPHYR_ARGS
#define RTB_ZEPHYR_ARGS "rtbench-harness"
#endif

#define MAX_ARGS 64
#define BUSY_STACK_BYTES 512

static char cmdline[24 * 1024]; /* --only with every id of the catalogue fits */

/* Below every task: it runs when nothing else can, so the idle thread (and
 * its WFI) never does. Under QEMU a CPU halted in WFI wakes for SysTick a
 * period late, and a halted CPU's virtual time is not instructions; the
 * FreeRTOS and ThreadX images keep a busy idle for the same reason. */
K_THREAD_STACK_DEFINE(busy_stack, BUSY_STACK_BYTES);
static struct k_thread busy_thread;

static void busy(void *a, void *b, void *c)
{
    (void)a, (void)b, (void)c;
    for (;;)
        ;
}

#if defined(CONFIG_USERSPACE)
/* A user-mode thread (the user task of a .process, .k_to_u or .u_to_k row)
 * reaches what rtbench's code touches: all the data of the rtbench library
 * (CMakeLists.txt zephyr_library_app_memory), and the board's counter,
 * read-only, for its stamps.
 *
 * Zephyr reprograms one MPU region per partition of the incoming thread's
 * memory domain on every switch, kernel threads included (41 instructions a
 * partition here), so where a partition goes shows in every switch row.
 * The default domain, which kernel threads stay in, gains rtbench's data
 * alone, as an application's default domain gains its own (latency_measure:
 * its bench partition); the counter, which only user-mode stamps need, is
 * in the domain of user-mode threads alone: the default domain's
 * partitions and the counter (a fairness note of the sheet). */
K_APPMEM_PARTITION_DEFINE(rtb_partition);
#if defined(RTB_BOARD_MPS2)
K_MEM_PARTITION_DEFINE(rtb_counter_partition, 0x40000000, 0x1000, K_MEM_PARTITION_P_RW_U_RO);
#endif
struct k_mem_domain rtb_zephyr_user_domain;

static void user_memory(void)
{
    struct k_mem_partition *parts[CONFIG_MAX_DOMAIN_PARTITIONS];
    uint8_t n = 0;
    int rc = k_mem_domain_add_partition(&k_mem_domain_default, &rtb_partition);
    for (int i = 0; rc == 0 && i < CONFIG_MAX_DOMAIN_PARTITIONS; i++) {
        if (k_mem_domain_default.partitions[i].size != 0)
            parts[n++] = &k_mem_domain_default.partitions[i];
    }
#if defined(RTB_BOARD_MPS2)
    if (n < CONFIG_MAX_DOMAIN_PARTITIONS)
        parts[n++] = &rtb_counter_partition;
    else
        rc = -ENOSPC;
#endif
    if (rc == 0)
        rc = k_mem_domain_init(&rtb_zephyr_user_domain, n, parts);
    if (rc != 0) /* every user-mode row would fault: say why, before any record */
        printk("rtbench-harness: the user-mode memory domain could not be made (%d)\n", rc);
}
#else
static void user_memory(void)
{
}
#endif

#if defined(RTB_BOARD_MPS2)
int main(void)
{
    static const struct rtb_build build = RTB_BUILD_INIT;
    static const char builtin[] = RTB_ZEPHYR_ARGS;
    char *argv[MAX_ARGS];
    _Static_assert(sizeof builtin <= sizeof cmdline, "RTB_ZEPHYR_ARGS is too long");

    rtb_board_init(); /* the console (Zephyr's UART driver), the counter */
    rtb_zephyr_irq_init();
    user_memory();
    rtb_zephyr_keep_text_pad();
    k_thread_system_pool_assign(k_current_get());
    k_thread_create(&busy_thread, busy_stack, K_THREAD_STACK_SIZEOF(busy_stack), busy, NULL, NULL, NULL,
                    K_LOWEST_APPLICATION_THREAD_PRIO, 0, K_NO_WAIT);
    int argc = rtb_board_command_line(cmdline, sizeof cmdline, rtb_board_cmdline, builtin, argv,
                                      MAX_ARGS);
    rtb_board_exit(rtb_main(argc, argv, &build));
    return 0;
}
#else
/* Any other board: the command line built into the image; the status is
 * printed (a flashed board has no host to return to). */
int main(void)
{
    static const struct rtb_build build = RTB_BUILD_INIT;
    char *argv[MAX_ARGS];
    size_t i = 0;
    for (const char *p = RTB_ZEPHYR_ARGS; *p && i + 1 < sizeof cmdline; p++)
        cmdline[i++] = *p;
    cmdline[i] = '\0';
    timing_init();
    timing_start();
    user_memory();
    rtb_zephyr_keep_text_pad();
    k_thread_system_pool_assign(k_current_get());
    k_thread_create(&busy_thread, busy_stack, K_THREAD_STACK_SIZEOF(busy_stack), busy, NULL, NULL, NULL,
                    K_LOWEST_APPLICATION_THREAD_PRIO, 0, K_NO_WAIT);
    int argc = rtb_split_args(cmdline, argv, MAX_ARGS);
    printk("rtbench-harness: exit %d\n", rtb_main(argc, argv, &build));
    return 0;
}
#endif

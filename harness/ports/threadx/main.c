/*
 * ThreadX port start-up: the board first (console, counter), then the
 * kernel (tx_kernel_enter: lowlevel.c, then tx_application_define below),
 * which creates the port's objects and the runner thread at rtbench's
 * runner priority and starts scheduling. The runner reads the harness
 * command line from the host (semihosting: QEMU's -append) or, without a
 * host, the line built into the image (RTB_THREADX_ARGS), hands it to the
 * core (rtb_main) and ends the program with its status.
 */
#include <rtb/runner.h>

#include "rtb_threadx.h"

#ifndef RTB_THREADX_ARGS
#define RTB_THREADX_ARGS "rtbench-harness"
#endif

#define MAX_ARGS 64
#define RUNNER_STACK_BYTES 8192u

static TX_THREAD runner_thread;
static ULONG runner_stack[RUNNER_STACK_BYTES / sizeof(ULONG)];

static VOID runner(ULONG unused)
{
    static const struct rtb_build build = RTB_BUILD_INIT;
    static const char builtin[] = RTB_THREADX_ARGS;
    char *argv[MAX_ARGS];
    _Static_assert(sizeof builtin <= sizeof rtb_board_args, "RTB_THREADX_ARGS is too long");
    (void)unused;
    int argc = rtb_board_command_line(rtb_board_args, sizeof rtb_board_args, rtb_board_cmdline, builtin, argv,
                                      MAX_ARGS);
    rtb_board_exit(rtb_main(argc, argv, &build));
}

VOID tx_application_define(VOID *first_unused)
{
    rtb_threadx_pool_init(first_unused);
    rtb_threadx_tasks_init();
    rtb_threadx_fine_delay_init();
    rtb_threadx_irq_init();
    UINT prio = rtb_threadx_prio(RTB_PRIO_RUNNER);
    if (tx_thread_create(&runner_thread, "runner", runner, 0, runner_stack, sizeof runner_stack,
                         prio, prio, TX_NO_TIME_SLICE, TX_AUTO_START) != TX_SUCCESS) {
        rtb_board_puts("rtbench-harness: cannot create the runner thread\n");
        rtb_board_exit(RTB_EXIT_FAILED);
    }
}

int main(void)
{
    rtb_board_init();
    tx_kernel_enter();
    rtb_board_puts("rtbench-harness: tx_kernel_enter returned\n");
    rtb_board_exit(RTB_THREADX_EXIT_KERNEL_RETURNED);
}

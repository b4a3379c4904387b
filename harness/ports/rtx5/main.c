/*
 * RTX5 port start-up: the board first (console, counter), then the kernel
 * (osKernelInitialize), the port's start-up objects and the runner thread
 * at rtbench's runner priority, then osKernelStart, which starts the tick
 * (CMSIS's os_systick.c) and scheduling. The runner reads the harness
 * command line from the host (semihosting: QEMU's -append) or, without a
 * host, the line built into the image (RTB_RTX5_ARGS), hands it to the core
 * (rtb_main) and ends the program with its status.
 */
#include <rtb/runner.h>

#include "rtb_rtx5.h"

#ifndef RTB_RTX5_ARGS
#define RTB_RTX5_ARGS "rtbench-harness"
#endif

#define MAX_ARGS 64
#define RUNNER_STACK_BYTES 8192u

uint32_t SystemCoreClock; /* os_systick.c's SysTick clock (rtb_rtx5_device.h) */

static osRtxThread_t runner_cb;
static uint64_t runner_stack[RUNNER_STACK_BYTES / sizeof(uint64_t)]; /* 8-byte aligned, as RTX5 needs */

static void runner(void *unused)
{
    static const struct rtb_build build = RTB_BUILD_INIT;
    static const char builtin[] = RTB_RTX5_ARGS;
    char *argv[MAX_ARGS];
    _Static_assert(sizeof builtin <= sizeof rtb_board_args, "RTB_RTX5_ARGS is too long");
    (void)unused;
    int argc = rtb_board_command_line(rtb_board_args, sizeof rtb_board_args, rtb_board_cmdline, builtin, argv,
                                      MAX_ARGS);
    rtb_board_exit(rtb_main(argc, argv, &build));
}

int main(void)
{
    rtb_board_init();
    SystemCoreClock = rtb_board_systick_hz();
    if (osKernelInitialize() != osOK) {
        rtb_board_puts("rtbench-harness: osKernelInitialize failed\n");
        rtb_board_exit(RTB_RTX5_EXIT_INIT);
    }
    rtb_rtx5_fine_delay_init();
    rtb_rtx5_irq_init();
    const osThreadAttr_t attr = {
        .name = "runner",
        .cb_mem = &runner_cb,
        .cb_size = sizeof runner_cb,
        .stack_mem = runner_stack,
        .stack_size = sizeof runner_stack,
        .priority = rtb_rtx5_prio(RTB_PRIO_RUNNER),
    };
    if (osThreadNew(runner, NULL, &attr) == NULL) {
        rtb_board_puts("rtbench-harness: cannot create the runner thread\n");
        rtb_board_exit(RTB_RTX5_EXIT_INIT);
    }
    (void)osKernelStart();
    rtb_board_puts("rtbench-harness: osKernelStart returned\n");
    rtb_board_exit(RTB_RTX5_EXIT_KERNEL_RETURNED);
}

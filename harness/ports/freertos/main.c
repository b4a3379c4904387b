/*
 * FreeRTOS port start-up: the board first (clocks, console, counter), then
 * the runner task at rtbench's runner priority (on static memory, like every
 * task and object the port creates outside the *_heap rows), then the
 * scheduler. The runner reads the harness command line from the host
 * (semihosting: QEMU's -append) or, without a host or when the host gives no
 * argument after the image's name (a lab's emulator booting a flashed
 * image), the line built into the image (RTB_FREERTOS_ARGS), hands it to the
 * core (rtb_main) and ends the program with its status.
 */
#include <rtb/runner.h>

#include "rtb_freertos.h"

/* The command line of an image started without a host, or by a host that
 * gives no arguments (a board flashed and reset): by default every metric,
 * default samples; rtbench's labgrid target builds the run's line in. */
#ifndef RTB_FREERTOS_ARGS
#define RTB_FREERTOS_ARGS "rtbench-harness"
#endif

#define MAX_ARGS 64
#define RUNNER_STACK_WORDS 2048u


static void runner(void *unused)
{
    static const struct rtb_build build = RTB_BUILD_INIT;
    static const char builtin[] = RTB_FREERTOS_ARGS;
    char *argv[MAX_ARGS];
    _Static_assert(sizeof builtin <= sizeof rtb_board_args, "RTB_FREERTOS_ARGS is too long");
    (void)unused;
    int argc = rtb_board_command_line(rtb_board_args, sizeof rtb_board_args, rtb_board_cmdline, builtin, argv,
                                      MAX_ARGS);
    rtb_board_exit(rtb_main(argc, argv, &build));
}

int main(void)
{
    static StaticTask_t runner_tcb;
    static StackType_t runner_stack[RUNNER_STACK_WORDS];
    rtb_board_init();
    rtb_freertos_tasks_init();
    rtb_freertos_fine_delay_init();
    rtb_freertos_irq_init();
    if (!xTaskCreateStatic(runner, "runner", RUNNER_STACK_WORDS, NULL, rtb_freertos_prio(RTB_PRIO_RUNNER),
                           runner_stack, &runner_tcb)) {
        rtb_board_puts("rtbench-harness: cannot create the runner task\n");
        rtb_board_exit(RTB_EXIT_FAILED);
    }
    vTaskStartScheduler();
    rtb_board_puts("rtbench-harness: the FreeRTOS scheduler returned\n");
    rtb_board_exit(RTB_FREERTOS_EXIT_SCHEDULER_RETURNED);
}

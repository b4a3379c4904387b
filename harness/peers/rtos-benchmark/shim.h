/*
 * shim.h — the `rtbench-shim KEY: VALUE` lines both of rtbench's builds of
 * rtos-benchmark print before its own output (board.c for its FreeRTOS
 * port, zephyr/shim_zephyr.c for its Zephyr port), as far as they do not
 * depend on the kernel: shim.c.
 */
#ifndef RTOSBENCH_SHIM_H
#define RTOSBENCH_SHIM_H

/* The iterations, the port's capability switches and the empty window
 * (what two back-to-back reads through its timing calls give, in the unit
 * its figures are printed in). */
void rtosbench_shim_common_lines(void);

#endif

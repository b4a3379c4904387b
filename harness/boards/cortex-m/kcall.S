/*
 * kcall.S — the timing primitives of rtb/kcall.h for this board (ARMv7-M,
 * Thumb-2), replacing the core's C versions: the call's arguments are in
 * their registers (and a[4]..a[7] on the stack) before the first stamp, so
 * between the stamps there is nothing of rtbench's but the call instruction
 * (and, in rtb_kcall_after_stamp, the store of the stamp another task
 * reads). Each stamp is exactly the inline one of rtb_board_ts.h (movw,
 * movt, the sampling load, the inversion), the sequence whose back-to-back
 * cost the core calibrates and subtracts, and is listed in .rtb_stamps
 * like it.
 *
 * struct rtb_kcall (rtb/kcall.h): fn at 0, a[0..7] at 4..32, ret at 36.
 */
    .syntax unified
    .thumb

/* The board's stamp (STAMP: the inline one of its rtb_board_ts.h) and the
 * stamp run's line (RUN_STAMP, RUN_OFFSET): rtb_board_stamp.inc. */
#include "rtb_board_stamp.inc"

/* Load c->fn into ip and the arguments into r0-r3, a[4]..a[7] onto the
 * stack (16 bytes: the stack stays 8-byte aligned), from c in r4. */
.macro LOAD_CALL
    ldr r0, [r4, #20]
    ldr r1, [r4, #24]
    ldr r2, [r4, #28]
    ldr r3, [r4, #32]
    push {r0-r3}
    ldr ip, [r4, #0]
    ldr r0, [r4, #4]
    ldr r1, [r4, #8]
    ldr r2, [r4, #12]
    ldr r3, [r4, #16]
.endm

/* void rtb_kcall_timed(struct rtb_kcall *c, rtb_stamp_t *t0, rtb_stamp_t *t1) */
    .section .text.rtb_kcall_timed, "ax", %progbits
    .global rtb_kcall_timed
    .type rtb_kcall_timed, %function
    .thumb_func
rtb_kcall_timed:
    push {r4-r8, lr}
    mov r4, r0
    mov r5, r1
    mov r6, r2
    LOAD_CALL
    STAMP r7, r8, 0
    blx ip
    STAMP r7, r3, 1
    add sp, sp, #16
    str r8, [r5]
    str r3, [r6]
    str r0, [r4, #36]
    pop {r4-r8, pc}
    .size rtb_kcall_timed, . - rtb_kcall_timed

/* void rtb_kcall_after_stamp(struct rtb_kcall *c, volatile rtb_stamp_t *t0) */
    .section .text.rtb_kcall_after_stamp, "ax", %progbits
    .global rtb_kcall_after_stamp
    .type rtb_kcall_after_stamp, %function
    .thumb_func
rtb_kcall_after_stamp:
    push {r4-r6, lr}
    mov r4, r0
    mov r5, r1
    LOAD_CALL
    STAMP r6, r6, 0
    str r6, [r5]
    blx ip
    add sp, sp, #16
    str r0, [r4, #36]
    pop {r4-r6, pc}
    .size rtb_kcall_after_stamp, . - rtb_kcall_after_stamp

/* void rtb_kcall_shared_timed(struct rtb_kcall *c, volatile rtb_stamp_t *t0,
 *                             rtb_stamp_t *t1) */
    .section .text.rtb_kcall_shared_timed, "ax", %progbits
    .global rtb_kcall_shared_timed
    .type rtb_kcall_shared_timed, %function
    .thumb_func
rtb_kcall_shared_timed:
    push {r4-r8, lr}
    mov r4, r0
    mov r5, r1
    mov r6, r2
    LOAD_CALL
    STAMP r7, r8, 0
    str r8, [r5]
    blx ip
    STAMP r7, r3, 1
    add sp, sp, #16
    str r3, [r6]
    str r0, [r4, #36]
    pop {r4-r8, pc}
    .size rtb_kcall_shared_timed, . - rtb_kcall_shared_timed

/* void rtb_kcall_then_stamp(struct rtb_kcall *c, rtb_stamp_t *t1) */
    .section .text.rtb_kcall_then_stamp, "ax", %progbits
    .global rtb_kcall_then_stamp
    .type rtb_kcall_then_stamp, %function
    .thumb_func
rtb_kcall_then_stamp:
    push {r4-r6, lr}
    mov r4, r0
    mov r5, r1
    LOAD_CALL
    blx ip
    STAMP r3, r3, 1
    add sp, sp, #16
    str r3, [r5]
    str r0, [r4, #36]
    pop {r4-r6, pc}
    .size rtb_kcall_then_stamp, . - rtb_kcall_then_stamp

/* void rtb_port_irq_raise_timed(volatile rtb_stamp_t *t0, rtb_stamp_t *t1)
 * (rtb/port.h): the stamp, its store (another task reads it), the raise of
 * the line rtb_board_soft_irq_select() chose through the NVIC's software
 * trigger, the barriers after which the interrupt has been taken, and the
 * stamp when this task runs again. Everything the raise needs is in its
 * register before the first stamp. */
    .section .text.rtb_port_irq_raise_timed, "ax", %progbits
    .global rtb_port_irq_raise_timed
    .type rtb_port_irq_raise_timed, %function
    .thumb_func
rtb_port_irq_raise_timed:
    push {r4-r7, lr}
    ldr r4, =rtb_board_soft_irq_line
    ldr r4, [r4]
    movw r5, #0xEF00          /* NVIC STIR, 0xE000EF00 */
    movt r5, #0xE000
    STAMP r6, r7, 0
    str r7, [r0]
    str r4, [r5]
    dsb
    isb
    STAMP r6, r3, 1
    str r3, [r1]
    pop {r4-r7, pc}
    .ltorg
    .size rtb_port_irq_raise_timed, . - rtb_port_irq_raise_timed

/* The kernel's tick as a window's opening instant (rtb_board_tick_stamps):
 * while it is on, the SysTick vector is this trampoline, which stamps into
 * rtb_board_tick_stamp and goes on to the kernel's own tick handler, with
 * the registers and the exception return as the exception left them (r0-r3
 * are the hardware's stacked copies). The next handler's address is loaded
 * before the stamp; in the window it opens: the stamp's store and the
 * branch, both listed as rtbench's (kind 3). */
    .section .text.rtb_board_tick_entry, "ax", %progbits
    .global rtb_board_tick_entry
    .type rtb_board_tick_entry, %function
    .thumb_func
rtb_board_tick_entry:
    ldr r3, =rtb_board_tick_next
    ldr r3, [r3]
    ldr r0, =rtb_board_tick_stamp
    STAMP r1, r2, 0
7:  str r2, [r0]
8:  bx r3
    .pushsection .rtb_stamps, "", %progbits
    .word 7b, 3
    .word 8b, 3
    .popsection
    .ltorg
    .size rtb_board_tick_entry, . - rtb_board_tick_entry

/* void rtb_port_stamp_run(rtb_stamp_t *buf, uint32_t n) (rtb/port.h): n
 * closing stamps (at most RUN_MAX) stored one after the other, with no
 * loop: a straight line of RUN_MAX stamps, entered n stamps before its end,
 * so a task interrupted or switched away anywhere in it reads the counter
 * again within one instruction of its own after it runs again (the store
 * of the value it read last). The values are stored as the counter reads
 * them (TIMER0 counts down: RTB_PORT_STAMP_RUN_VALUE turns one into a
 * stamp), so no inversion is in the line. Each load is listed in
 * .rtb_stamps as a closing stamp with no instruction after it. */
#define RUN_MAX 4096
    .section .text.rtb_port_stamp_run, "ax", %progbits
    .global rtb_port_stamp_run
    .type rtb_port_stamp_run, %function
    .thumb_func
rtb_port_stamp_run:
    movw r2, #RUN_MAX
    cmp r1, r2
    it hi
    movhi r1, r2
    RUN_OFFSET r3, r1         /* RUN_BYTES * n: the line's n last stamps */
    ldr r2, =2f               /* the line's end */
    sub r2, r2, r3
    orr r2, r2, #1            /* a Thumb address */
    bx r2
    .ltorg                    /* the end's address, within reach of the load */
    .balign 4
1:  .rept RUN_MAX
    RUN_STAMP
    .endr
2:  bx lr
    .size rtb_port_stamp_run, . - rtb_port_stamp_run

/*
 * seq.S — the instruction sequences whose estimated cycles the test checks
 * against sums written down from the TRMs (tests/test_cycles.py, SEQUENCES),
 * the vector table and the exception handlers they use, and the start-up.
 *
 * Each sequence is a function: set-up, the opening stamp, the body (the
 * window: exactly the instructions between the stamps), the closing stamp,
 * the two values stored. A stamp is the harness's (rtb_board_ts.h): the
 * TIMER0 VALUE register's address in two instructions, the load, listed in
 * .rtb_stamps, the inversion. Bodies use r0-r8 and lr; r9 holds the result
 * pointer, r10, r11 the stamps' values, r12 the counter's address.
 */
    .syntax unified
    .thumb

#define SHAPE ((2 << 8) | (1 << 16))

.macro STAMP vreg, kind
    movw r12, #0x0004
    movt r12, #0x4000
9:  ldr \vreg, [r12]
    .pushsection .rtb_stamps, "", %progbits
    .word 9b, \kind | SHAPE
    .popsection
    mvns \vreg, \vreg
.endm

/* SEQ name: a sequence's function, listed in `sequences`. */
.macro SEQ name
    .pushsection .rodata.seqnames, "a", %progbits
10: .asciz "\name"
    .popsection
    .pushsection .rodata.seqtab, "a", %progbits
    .word 10b, seq_\name
    .popsection
    .section .text.seq_\name, "ax", %progbits
    .global seq_\name
    .type seq_\name, %function
    .thumb_func
seq_\name:
    push {r4-r11, lr}
    mov r9, r0
.endm
.macro OPEN
    STAMP r11, 0
.endm
.macro END name
    STAMP r10, 1
    str r11, [r9]
    str r10, [r9, #4]
    pop {r4-r11, pc}
    .ltorg
    .size seq_\name, . - seq_\name
.endm

/* ---- the sequences ---------------------------------------------------- */
    .section .rodata.seqtab, "a", %progbits
    .global sequences
    .balign 4
sequences:

#ifdef RTB_M4
/* Cortex-M4F (DDI 0439B): first, before any FP instruction ran in thread
 * mode (CONTROL.FPCA clear: a standard frame, the handler's IT-conditional
 * VSTM/VLDM skipped). */
SEQ lazy_fp_skip
    OPEN
    svc #0
END lazy_fp_skip

SEQ long_multiply_m4
    movs r2, #3
    movs r3, #5
    OPEN
    umull r0, r1, r2, r3
    umlal r0, r1, r2, r3
END long_multiply_m4

SEQ dsp_multiply_m4
    movs r1, #3
    movs r2, #5
    OPEN
    smlabb r0, r1, r2, r3
    smull r4, r5, r2, r3
END dsp_multiply_m4

SEQ fp_add_mul
    OPEN
    vadd.f32 s0, s1, s2
    vmul.f32 s3, s0, s1
END fp_add_mul

SEQ fp_mla_div
    vmov.f32 s5, #1.0
    OPEN
    vmla.f32 s0, s1, s2
    vdiv.f32 s3, s4, s5
END fp_mla_div

SEQ fp_load_store
    ldr r1, =buffer
    OPEN
    vldr s0, [r1]
    vstr s0, [r1, #4]
END fp_load_store

SEQ fp_push_pop
    OPEN
    vpush {s16-s19}
    vpop {s16-s19}
END fp_push_pop

/* An FP instruction in thread mode (FPCA set), then an exception: the
 * handler's IT-conditional VSTM runs, the core stacks S0-S15 and FPSCR
 * first (lazy stacking), and the return unstacks them. */
SEQ lazy_fp
    OPEN
    vmov s0, r0
    svc #0
END lazy_fp

#else
/* Cortex-M3 (DDI 0337I). */
SEQ alu
    OPEN
    adds r0, r1, r2
    lsls r3, r0, #2
    movw r4, #1
    movt r4, #2
    clz r5, r4
    ubfx r6, r4, #1, #3
END alu

SEQ multiply
    movs r0, #3
    movs r1, #5
    movs r2, #7
    OPEN
    muls r0, r1, r0
    mla r2, r0, r1, r2
    mls r3, r0, r1, r2
END multiply

SEQ long_multiply
    OPEN
    umull r0, r1, r2, r3
END long_multiply

SEQ long_multiply_accumulate
    OPEN
    umlal r0, r1, r2, r3
END long_multiply_accumulate

SEQ divide
    movs r1, #100
    movs r2, #7
    OPEN
    udiv r0, r1, r2
END divide

SEQ load
    ldr r1, =table
    OPEN
    ldr r0, [r1]
END load

SEQ load_pair
    ldr r1, =table
    OPEN
    ldr r0, [r1]
    ldr r2, [r1, #4]
END load_pair

SEQ load_dependent
    ldr r1, =table
    OPEN
    ldr r0, [r1, #8]
    ldr r2, [r0]
END load_dependent

SEQ load_after_alu
    ldr r1, =table
    OPEN
    adds r1, #0
    ldr r0, [r1]
END load_after_alu

SEQ load_literal
    OPEN
    ldr r0, =0x12345678
END load_literal

SEQ store_immediate
    ldr r1, =buffer
    OPEN
    str r0, [r1]
    str r0, [r1, #4]
END store_immediate

SEQ load_then_store_register
    ldr r1, =buffer
    movs r2, #8
    OPEN
    ldr r0, [r1]
    str r0, [r1, r2]
END load_then_store_register

SEQ store_register
    ldr r1, =buffer
    movs r2, #8
    OPEN
    str r0, [r1, r2]
END store_register

SEQ load_store_double
    ldr r1, =buffer
    OPEN
    ldrd r2, r3, [r1]
    strd r2, r3, [r1, #8]
END load_store_double

SEQ load_store_multiple
    ldr r1, =buffer
    OPEN
    ldm r1, {r2-r5}
    stm r1, {r2-r5}
END load_store_multiple

SEQ push_pop
    OPEN
    push {r0-r3}
    pop {r0-r3}
END push_pop

SEQ branch
    OPEN
    b 1f
    nop
1:  nop
END branch

SEQ branch_taken
    OPEN
    cmp r0, r0
    beq 1f
    nop
1:  nop
END branch_taken

SEQ branch_not_taken
    OPEN
    cmp r0, r0
    bne 1f
    nop
1:  nop
END branch_not_taken

SEQ compare_branch_zero
    OPEN
    movs r0, #0
    cbz r0, 1f
    nop
1:  nop
END compare_branch_zero

SEQ call_return
    OPEN
    bl leaf
END call_return

SEQ call_pop_pc
    OPEN
    bl nested
END call_pop_pc

SEQ table_branch
    OPEN
    movs r0, #1
    tbb [pc, r0]
1:  .byte (2f - 1b) / 2
    .byte (3f - 1b) / 2
2:  nop
3:  nop
END table_branch

SEQ load_pc
    ldr r1, =target
    OPEN
    ldr.w pc, [r1]
    nop
landing:
    nop
END load_pc

SEQ it_folded
    OPEN
    cmp r0, r0
    it eq
    moveq r1, r2
END it_folded

SEQ it_not_folded
    OPEN
    cmp.w r0, r0
    it eq
    moveq r1, r2
END it_not_folded

SEQ it_load_skipped
    ldr r1, =table
    OPEN
    cmp r0, r0
    it ne
    ldrne r0, [r1]
END it_load_skipped

SEQ it_load_run
    ldr r1, =table
    OPEN
    cmp r0, r0
    it eq
    ldreq r0, [r1]
END it_load_run

SEQ it_divide
    movs r1, #100
    movs r2, #7
    OPEN
    cmp r0, r0
    it eq
    udiveq r0, r1, r2
END it_divide

SEQ barriers
    OPEN
    dsb
    isb
    dmb
END barriers

SEQ status
    OPEN
    mrs r0, primask
    cpsid i
    msr primask, r0
END status

SEQ supervisor_call
    OPEN
    svc #0
END supervisor_call

SEQ pendsv
    ldr r0, =0xE000ED04     /* ICSR */
    mov r1, #0x10000000     /* PENDSVSET */
    OPEN
    str r1, [r0]
END pendsv

SEQ tail_chain
    ldr r0, =0xE000ED04     /* ICSR */
    mov r1, #0x14000000     /* PENDSVSET | PENDSTSET: PendSV first, SysTick chained */
    OPEN
    str r1, [r0]
END tail_chain

/* A window opened at a computed instant, as a port reports an interrupt's
 * raise: logged as the opening stamp's value plus 3 ticks, the value a
 * counter read one instruction later would have returned, the instant the
 * PendSV raised by the store is taken (rtb_board_ts.h: such an instant is
 * reported less the stamp's tail). */
SEQ computed_opening
    ldr r0, =0xE000ED04     /* ICSR */
    mov r1, #0x10000000     /* PENDSVSET */
    OPEN
    str r1, [r0]
    STAMP r10, 1
    adds r11, r11, #3
    str r11, [r9]
    str r10, [r9, #4]
    pop {r4-r11, pc}
    .ltorg
    .size seq_computed_opening, . - seq_computed_opening

    .section .text.leaf, "ax", %progbits
    .type leaf, %function
    .thumb_func
leaf:
    bx lr
    .size leaf, . - leaf

    .type nested, %function
    .thumb_func
nested:
    push {r4, lr}
    pop {r4, pc}
    .size nested, . - nested
#endif

    .section .rodata.seqtab, "a", %progbits
    .word 0, 0              /* the table's end */

/* ---- data ----------------------------------------------------------------- */
    .section .rodata.table, "a", %progbits
    .balign 4
table:
    .word 1, 2, table, 3
#ifndef RTB_M4
target:
    .word landing + 1
#endif

    .bss
    .balign 8
buffer:
    .space 64

/* ---- the anchor: the one counter load in rtb_stamplog_begin -------------- */
    .section .text.rtb_stamplog_begin, "ax", %progbits
    .global rtb_stamplog_begin
    .type rtb_stamplog_begin, %function
    .thumb_func
rtb_stamplog_begin:
    STAMP r1, 1
    str r1, [r0]
    bx lr
    .size rtb_stamplog_begin, . - rtb_stamplog_begin

/* ---- exceptions ------------------------------------------------------------ */
    .section .text.handlers, "ax", %progbits
    .type svc_handler, %function
    .thumb_func
svc_handler:
#ifdef RTB_M4
    tst lr, #0x10           /* EXC_RETURN bit 4 clear: the frame holds FP state */
    it eq
    vstmdbeq sp!, {s16-s31}
    it eq
    vldmiaeq sp!, {s16-s31}
#endif
    bx lr
    .size svc_handler, . - svc_handler

    .type pendsv_handler, %function
    .thumb_func
pendsv_handler:
    bx lr
    .size pendsv_handler, . - pendsv_handler

    .type systick_handler, %function
    .thumb_func
systick_handler:
    bx lr
    .size systick_handler, . - systick_handler

    .type fault_handler, %function
    .thumb_func
fault_handler:
    ldr r1, =fault_block    /* end the run: semihosting SYS_EXIT_EXTENDED, status 1 */
    movs r0, #0x20
    bkpt 0xab
    b .
    .ltorg
    .size fault_handler, . - fault_handler
    .section .rodata.fault, "a", %progbits
fault_block:
    .word 0x20026, 1

/* ---- start-up ---------------------------------------------------------------- */
    .section .text.reset_handler, "ax", %progbits
    .global reset_handler
    .type reset_handler, %function
    .thumb_func
reset_handler:
    ldr r0, =0x40000000     /* CMSDK TIMER0: free-running from 0xFFFFFFFF, down */
    mov r1, #0xFFFFFFFF
    str r1, [r0, #8]        /* RELOAD */
    str r1, [r0, #4]        /* VALUE */
    movs r1, #1
    str r1, [r0]            /* CTRL: enable */
#ifdef RTB_M4
    ldr r0, =0xE000ED88     /* CPACR: CP10 and CP11 full access */
    ldr r1, [r0]
    orr r1, r1, #(0xF << 20)
    str r1, [r0]
    dsb
    isb
#endif
    bl main
    b .
    .ltorg
    .size reset_handler, . - reset_handler

    .section .vectors, "a", %progbits
    .word stack_top
    .word reset_handler
    .rept 9                 /* NMI, HardFault, MemManage, BusFault, UsageFault, 4 reserved */
    .word fault_handler
    .endr
    .word svc_handler       /* 11 */
    .word fault_handler     /* 12: DebugMon */
    .word fault_handler     /* 13 */
    .word pendsv_handler    /* 14 */
    .word systick_handler   /* 15 */
    .rept 32
    .word fault_handler
    .endr

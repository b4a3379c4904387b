/*
 * ramvec.c — every Cortex-M board's vector table in RAM: a copy of the
 * table in use (the board's, or a kernel's own: Zephyr's) that VTOR points
 * at while rtbench puts a handler of its own on a line (rtb_board_vector_set)
 * or a trampoline on SysTick (rtb_board_tick_stamps); and the line the
 * interrupt rows raise from software (kcall.S rtb_port_irq_raise_timed).
 * Nothing here is a board's: the table's length is its RTB_BOARD_IRQ_COUNT.
 */
#include <stdbool.h>
#include <stdint.h>

#include "cortex_m.h"
#include "rtb_board.h"

/* ---- the vector table in RAM ------------------------------------------------ */
#define VECTORS (16 + RTB_BOARD_IRQ_COUNT)
/* VTOR needs the table aligned to its size rounded up to a power of two. */
static uint32_t ram_vectors[VECTORS] __attribute__((aligned(RTB_BOARD_VECTORS_ALIGN)));

/* The table VTOR pointed at before the RAM copy (the board's flash table at
 * 0, or a kernel's own: Zephyr's), and whether VTOR is ours: the board's own
 * table sits at address 0, so the table's address cannot say it. */
static uint32_t original_table;
static bool moved;

static void point_vtor(uint32_t table)
{
    uint32_t primask = cm_irq_save();
    CM_SCB_VTOR = table;
    __asm volatile("dsb\n\tisb" ::: "memory");
    cm_irq_restore(primask);
}

/* Exception `exc`'s vector (16 + IRQ for an interrupt) set to `handler` in
 * the RAM copy; returns the one it replaces. */
static uint32_t exception_set(unsigned exc, uint32_t handler)
{
    if (!moved) {
        original_table = CM_SCB_VTOR;
        const uint32_t *from = (const uint32_t *)(uintptr_t)original_table;
        for (int i = 0; i < VECTORS; i++)
            ram_vectors[i] = from[i];
        point_vtor((uint32_t)(uintptr_t)ram_vectors);
        moved = true;
    }
    uint32_t was = ram_vectors[exc];
    ram_vectors[exc] = handler;
    __asm volatile("dsb" ::: "memory");
    return was;
}

void rtb_board_vector_set(unsigned irq, void (*handler)(void))
{
    exception_set(16 + irq, (uint32_t)(uintptr_t)handler);
}

/* ---- the kernel's tick as an instant (kcall.S: rtb_board_tick_entry) -------- */
#define SYSTICK_EXCEPTION 15u
volatile uint32_t rtb_board_tick_stamp;
volatile uint32_t rtb_board_tick_next; /* the kernel's own SysTick handler */

void rtb_board_tick_entry(void);

void rtb_board_tick_stamps(bool on)
{
    uint32_t primask = cm_irq_save(); /* no tick between the two stores */
    if (on && !rtb_board_tick_next) {
        rtb_board_tick_next = exception_set(SYSTICK_EXCEPTION, (uint32_t)(uintptr_t)rtb_board_tick_entry);
    } else if (!on && rtb_board_tick_next) {
        exception_set(SYSTICK_EXCEPTION, rtb_board_tick_next);
        rtb_board_tick_next = 0;
    }
    cm_irq_restore(primask);
}

void rtb_board_vectors_restore(void)
{
    if (moved)
        point_vtor(original_table);
    moved = false;
}

/* ---- interrupts raised from software (kcall.S: rtb_port_irq_raise_timed) ---- */
volatile uint32_t rtb_board_soft_irq_line = RTB_BOARD_SOFT_IRQ_FIRST;

void rtb_board_soft_irq_select(unsigned irq)
{
    rtb_board_soft_irq_line = irq;
}

/*
 * rtb_board.h — what a board gives a kernel port: console, host link,
 * timestamp counter, an asynchronous interrupt source and a one-shot timer.
 *
 * Kernel-independent: no RTOS header is included and no kernel is called. A
 * port (ports/freertos/) builds its services on these; every Cortex-M board
 * (boards/mps2-an385, boards/stm32f4) implements this one header, and says
 * in its README which peripheral serves each part. Every function here may
 * be called before a kernel starts; which ones may be called from an
 * interrupt is said per function.
 */
#ifndef RTB_BOARD_H
#define RTB_BOARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtb_board_ts.h" /* static inline uint64_t rtb_board_ts(void) */

/* Console, counter and the counter's wrap interrupt. Call first in main(),
 * with interrupts as reset left them (enabled, nothing pending). */
void rtb_board_init(void);

/* The clock SysTick counts (CSR.CLKSOURCE = 1, the core clock), in Hz, for
 * the kernel's tick: valid after rtb_board_init(), which may find it at run
 * time (the STM32F4's image runs at 16 MHz on silicon and on QEMU's fixed
 * 168 MHz SysTick: boards/stm32f4/README.md). */
uint32_t rtb_board_systick_hz(void);

/* ---- Console: the board's UART, polled (QEMU: stdout) -------------------- */
void rtb_board_putc(char c);                   /* waits for room; any context */
void rtb_board_write(const char *s, size_t n); /* any context */
void rtb_board_puts(const char *s);            /* no newline added */
int rtb_board_getc(void);                      /* a received byte, or -1 if none */

/* ---- Host link: Arm semihosting (QEMU needs -semihosting-config enable=on)
 * Without a host these trap (HardFault on silicon without a debugger). */

/* End the program with an exit status the host sees (SYS_EXIT_EXTENDED:
 * QEMU exits with status & 0xFF). Statuses the board itself uses: */
#define RTB_BOARD_EXIT_OK 0
#define RTB_BOARD_EXIT_FAIL 1                    /* the program failed a check */
#define RTB_BOARD_EXIT_EXCEPTION(n) (64 + (n))   /* unexpected exception n */
_Noreturn void rtb_board_exit(int status);

/* The harness's command line buffer (the kernel ports' main() use it):
 * where rtbench's GDB loader writes the line of a board without a host,
 * in .noinit (hostargs.c). rtb_board_cmdline() takes it from there first. */
extern char rtb_board_args[RTB_BOARD_CMDLINE_MAX];

/* Copy the host's command line into buf (NUL-terminated) and return its
 * length, or -1 if the host has none or it does not fit in size bytes.
 * QEMU's line is "IMAGE ARG1 ARG2…": the -kernel path, then the words of
 * -append (README.md, "Command line"). */
int rtb_board_cmdline(char *buf, size_t size);

/* A host file, created or emptied (a handle, or -1), and `n` bytes written
 * to it (0, or -1): the stamp log (core/stamplog.h), written by the runner
 * between metrics. */
int rtb_board_host_open(const char *path);
int rtb_board_host_write(int handle, const void *buf, size_t n);

/* ---- Asynchronous interrupt source (AN385: CMSDK TIMER1, IRQ 9) -----------
 * A hardware timer armed to expire a number of counter ticks later, so the
 * interrupt arrives at whatever instruction is running then (unlike a
 * software-pended IRQ, which is taken synchronously). Its handler calls the
 * hook first, so the hook's first timestamp ends the interrupt's response. */
typedef void (*rtb_board_isr_fn)(void *arg);

/* Install fn (runs in the interrupt, NULL for none) at NVIC priority prio
 * (raw 8-bit value, use n << 5). Not from an interrupt. */
void rtb_board_irqsrc_init(rtb_board_isr_fn fn, void *arg, uint8_t prio);
/* Expire ticks (>= 1) counter ticks from now; returns at once. One pending
 * expiry at a time: arming again restarts it. Any context, the hook
 * included (the timer then goes on instead of stopping). */
void rtb_board_irqsrc_arm(uint32_t ticks);
/* From the hook, before it returns or re-arms: the instant the timer
 * expired, in rtb_board_ts() ticks and in the timestamp convention (the
 * value a read whose sampling load ran at the expiry would return, minus
 * the read's fixed tail: see irqsrc.c). */
uint64_t rtb_board_irqsrc_expiry(void);
/* Number of interrupts taken since init. */
uint32_t rtb_board_irqsrc_count(void);
/* ---- Interrupts raised from software: the interrupt rows ------------------
 * Lines no device drives (RTB_BOARD_SOFT_IRQ_FIRST .. + _COUNT - 1),
 * raised through the NVIC's software trigger by rtb_port_irq_raise_timed
 * (kcall.S), which raises the line selected here. A software-raised
 * interrupt needs no acknowledgement: its pending bit clears as it is
 * taken. */
extern volatile uint32_t rtb_board_soft_irq_line;
void rtb_board_soft_irq_select(unsigned irq);
/* `handler` as the vector of IRQ `irq`, through a RAM copy of the vector
 * table in use (the board's, or a kernel's own: Zephyr's), VTOR pointed at
 * it: the interrupt enters the handler directly, as a kernel whose
 * handlers are vectors documents. rtb_board_vectors_restore(): VTOR back
 * at the table it pointed at before. Not from an interrupt. */
void rtb_board_vector_set(unsigned irq, void (*handler)(void));
void rtb_board_vectors_restore(void);

/* The kernel's tick as a window's opening instant: while on, every SysTick
 * exception enters a trampoline (kcall.S) that stamps rtb_board_tick_stamp
 * (an opening stamp) and goes on to the kernel's own handler, through the
 * same RAM vector table. Not from an interrupt. */
extern volatile uint32_t rtb_board_tick_stamp;
void rtb_board_tick_stamps(bool on);
/* One expiry of the same timer taken by a bare handler the kernel never
 * sees (installed through a RAM copy of the vector table for the call):
 * the minimum (assembly; nothing saved beyond the hardware's stacking) or
 * a C function. Returns 0 and, in counter ticks from single counter loads
 * (no read cost in them), prolog = expiry -> the handler's first counter
 * load, epilog = its last counter load -> the interrupted code's next
 * load; -1 where the board cannot (the DWT counter build). Not from an
 * interrupt; the source must not be hooked. */
int rtb_board_irq_bare(bool c_call, int32_t *prolog, int32_t *epilog);

/* ---- One-shot timer: dual timer 1, IRQ 10 --------------------------------
 * For sub-tick delays: fn runs once in the interrupt ticks counter ticks
 * after start (typically to wake a task blocked on a kernel object). */
void rtb_board_oneshot_init(rtb_board_isr_fn fn, void *arg, uint8_t prio);
void rtb_board_oneshot_start(uint32_t ticks); /* ticks >= 1; restarts if running */
void rtb_board_oneshot_cancel(void);          /* no call of fn after this returns */

/* ---- The watchdog's test hook (harness option --fault hang:ID | crash:ID) --
 * Every kernel port on this board offers it the same way: its
 * rtb_port_option() passes the option here, its rtb_port_metric_begin()
 * calls rtb_board_fault_point() with the metric's id. hang: interrupts
 * masked (PRIMASK), then a spin: the board stops answering. crash: a load
 * from an address no bus answers, which the fault handler reports. */
int rtb_board_fault_option(const char *name, const char *value); /* 0: not ours, 2: consumed */
void rtb_board_fault_point(const char *metric_id);

#endif /* RTB_BOARD_H */

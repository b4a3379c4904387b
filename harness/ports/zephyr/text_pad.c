/*
 * Zephyr port: room in rtbench's code that moves the kernel's MPU driver
 * off the one page of every 64 KiB whose QEMU TLB entry it would share with
 * the MPU's registers (rtbench/targets/mpu_window.py: there QEMU 7.2 under
 * -icount makes every later context switch of a userspace build clear
 * 32 MiB, about 50 times slower in wall time; the figures are unchanged).
 * rtbench sets RTB_ZEPHYR_TEXT_PAD when an image it built lies there; the
 * linker places this file's code before the kernel's. Never executed.
 */
#include "rtb_zephyr.h"

#if RTB_ZEPHYR_TEXT_PAD > 0
#define PAD_STR_(x) #x /* the board's header has an RTB_STR_ of its own */
#define PAD_STR(x) PAD_STR_(x)

volatile int rtb_zephyr_text_pad_taken; /* never set: the call below never runs */

__attribute__((noinline)) static void text_pad(void)
{
    __asm__ volatile(".space " PAD_STR(RTB_ZEPHYR_TEXT_PAD));
}

void rtb_zephyr_keep_text_pad(void)
{
    if (rtb_zephyr_text_pad_taken)
        text_pad();
}
#else
void rtb_zephyr_keep_text_pad(void)
{
}
#endif

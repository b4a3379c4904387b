/* boards/stm32f4/counter_pick.c: what an STM32F4 image concludes from two
 * reads of DWT CYCCNT, for both outcomes (QEMU shows only the second). */
#include <string.h>

#include "check.h"
#include "counter_pick.h"

int main(void)
{
    /* It counted: silicon. Cycles of the 16 MHz HSI, SysTick on the core clock. */
    const struct rtb_stm32f4_counter *c = rtb_stm32f4_counter_pick(12u, 57u);
    CHECK(c->dwt);
    CHECK(strcmp(c->unit, "cycles") == 0);
    CHECK(c->ts_hz == 16000000u && c->systick_hz == 16000000u);
    CHECK(strncmp(c->source, "DWT CYCCNT", 10) == 0);

    /* It did not (QEMU reads 0 for ever): TIM2, one count an instruction at
     * shift 7, i.e. 1 GHz / 128 of virtual time; QEMU's SysTick at 168 MHz. */
    c = rtb_stm32f4_counter_pick(0u, 0u);
    CHECK(!c->dwt);
    CHECK(strcmp(c->unit, "instructions") == 0);
    CHECK(c->ts_hz == 7812500u && c->systick_hz == 168000000u);
    CHECK(strncmp(c->source, "TIM2", 4) == 0);

    /* A count that stood still anywhere else is still no count. */
    CHECK(!rtb_stm32f4_counter_pick(0xFFFFFFFFu, 0xFFFFFFFFu)->dwt);
    CHECK(rtb_stm32f4_counter_pick(0xFFFFFFF0u, 0x10u)->dwt); /* wrapped between: it counted */
    return CHECK_DONE();
}

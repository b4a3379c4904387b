/*
 * fine_delay.c — delays shorter than the kernel tick: the task blocks on its
 * delay notification and the board's one-shot interrupt gives it.
 *
 * vTaskDelay() counts whole ticks (1 ms here) and its first tick is partial,
 * so a 50 us wait becomes anything from 0 to 1 ms. The one-shot timer counts
 * PCLK ticks (40 ns), so the task is made ready exactly when asked and runs
 * after the interrupt's and the switch's instructions.
 */
#include "FreeRTOS.h"
#include "task.h"

#include "rtb_board.h"
#include "rtb_freertos.h"

static TaskHandle_t volatile waiter;

static void delay_expired(void *arg)
{
    (void)arg;
    BaseType_t woken = pdFALSE;
    TaskHandle_t task = waiter;
    if (task)
        vTaskNotifyGiveIndexedFromISR(task, RTB_FREERTOS_NOTIFY_DELAY, &woken);
    portYIELD_FROM_ISR(woken);
}

void rtb_freertos_fine_delay_init(void)
{
    rtb_board_oneshot_init(delay_expired, NULL, RTB_FREERTOS_IRQ_PRIORITY);
}

int rtb_freertos_delay_ticks(uint32_t ticks)
{
    TaskHandle_t self = xTaskGetCurrentTaskHandle();

    taskENTER_CRITICAL();
    if (waiter) {
        taskEXIT_CRITICAL();
        return -1;
    }
    waiter = self;
    taskEXIT_CRITICAL();

    /* A give left over from a cancelled delay would end this one at once. */
    (void)ulTaskNotifyTakeIndexed(RTB_FREERTOS_NOTIFY_DELAY, pdTRUE, 0);
    rtb_board_oneshot_start(ticks ? ticks : 1u);
    /* If the interrupt comes before we block, the notification is pending and
     * the take returns at once: no lost wake-up. */
    (void)ulTaskNotifyTakeIndexed(RTB_FREERTOS_NOTIFY_DELAY, pdTRUE, portMAX_DELAY);
    waiter = NULL;
    return 0;
}

/*
 * FreeRTOSConfig.h — FreeRTOS V11 for rtbench on the MPS2 AN385 (Cortex-M3,
 * 25 MHz, port GCC/ARM_CM3, heap_4).
 *
 * Every choice that changes a measured figure is said here with its reason;
 * the data sheet must repeat the ones marked [sheet].
 */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

/* ---- Clock and tick ------------------------------------------------------ */
#define configCPU_CLOCK_HZ 25000000UL /* AN385 HCLK; SysTick counts it */
/* [sheet] 1 ms tick: the common default. Thread-Metric's images (peers/
 * thread-metric) are built with 100: its porting rules ask for a 10 ms tick. */
#ifndef RTB_FREERTOS_TICK_HZ
#define RTB_FREERTOS_TICK_HZ 1000
#endif
#define configTICK_RATE_HZ RTB_FREERTOS_TICK_HZ
#define configTICK_TYPE_WIDTH_IN_BITS TICK_TYPE_WIDTH_32_BITS
#define configUSE_TICKLESS_IDLE 0 /* a tick that stops would move interrupts around */

/* ---- Scheduling ----------------------------------------------------------
 * Preemptive [sheet]. Time slicing OFF [sheet]: with it on, every tick
 * switches between ready tasks of equal priority, so a scenario's
 * equal-priority tasks would be interleaved by the tick at points the
 * benchmark does not choose (a yield test would sometimes time a tick-driven
 * switch; a task that spins waiting for an interrupt would hand the CPU to
 * its peer). With it off, equal-priority tasks switch only when the running
 * one blocks or yields, which is what the scenarios measure; the tick still
 * runs (its cost is visible as the outliers: boards/mps2-an385/README.md, "SysTick in samples"). Zephyr's
 * latency_measure also runs without time slicing. */
#define configUSE_PREEMPTION 1
#define configUSE_TIME_SLICING 0
#define configIDLE_SHOULD_YIELD 1
#define configUSE_PORT_OPTIMISED_TASK_SELECTION 1 /* CLZ: the port's fast path */
#define configMAX_PRIORITIES 32 /* rtbench's 1..31 map one to one; idle is 0 */
#define configMINIMAL_STACK_SIZE 256 /* words */
#define configMAX_TASK_NAME_LEN 12
#define configNUMBER_OF_CORES 1

/* ---- Interrupt priorities -------------------------------------------------
 * Raw NVIC byte values (0 = most urgent). QEMU implements all 8 priority
 * bits, the FPGA 3: values are n << 5 so both behave the same. FreeRTOS V11
 * asserts that bit 0 of the max-syscall priority is clear when 8 bits are
 * implemented (bit 0 is then a sub-priority), hence 5 << 5, not 5.
 * Interrupts that call ...FromISR() must be at 5 << 5 or less urgent. */
#define configKERNEL_INTERRUPT_PRIORITY (7U << 5)       /* SysTick, PendSV */
#define configMAX_SYSCALL_INTERRUPT_PRIORITY (5U << 5)  /* BASEPRI in critical sections */
#define configMAX_API_CALL_INTERRUPT_PRIORITY configMAX_SYSCALL_INTERRUPT_PRIORITY

/* The port's handlers under the names the vector table (startup.c) uses, so
 * the port's check of the installed handlers passes (V11,
 * configCHECK_HANDLER_INSTALLATION) and no trampoline costs instructions. */
#define vPortSVCHandler SVC_Handler
#define xPortPendSVHandler PendSV_Handler
#define xPortSysTickHandler SysTick_Handler

/* ---- Memory -------------------------------------------------------------- */
#define configSUPPORT_DYNAMIC_ALLOCATION 1 /* heap_4 */
#define configSUPPORT_STATIC_ALLOCATION 1  /* ports keep objects in static pools */
#define configKERNEL_PROVIDED_STATIC_MEMORY 1
#define configTOTAL_HEAP_SIZE 262144 /* 256 KiB of 4 MiB RAM */
#define configAPPLICATION_ALLOCATED_HEAP 0
#define configUSE_MALLOC_FAILED_HOOK 1 /* costs nothing until it fires */

/* ---- Services rtbench measures ------------------------------------------- */
#define configUSE_MUTEXES 1
#define configUSE_RECURSIVE_MUTEXES 1
#define configUSE_COUNTING_SEMAPHORES 1
#define configUSE_TASK_NOTIFICATIONS 1
/* Index 0 is the application's; the last one is the fine delay's
 * (ports/freertos/fine_delay.c), so a delay never eats a scenario's notify. */
#define configTASK_NOTIFICATION_ARRAY_ENTRIES 2
#define configUSE_EVENT_GROUPS 1
#define configUSE_STREAM_BUFFERS 1
#define configUSE_QUEUE_SETS 0
#define configQUEUE_REGISTRY_SIZE 0
#define configUSE_TIMERS 1
#define configTIMER_TASK_PRIORITY 31 /* configMAX_PRIORITIES - 1: callbacks preempt tasks */
#define configTIMER_QUEUE_LENGTH 10
#define configTIMER_TASK_STACK_DEPTH (configMINIMAL_STACK_SIZE * 2)
#define configUSE_CO_ROUTINES 0

#define INCLUDE_vTaskPrioritySet 1
#define INCLUDE_uxTaskPriorityGet 1
#define INCLUDE_vTaskDelete 1
#define INCLUDE_vTaskSuspend 1
#define INCLUDE_xTaskResumeFromISR 1
#define INCLUDE_vTaskDelay 1
#define INCLUDE_xTaskDelayUntil 1
#define INCLUDE_xTaskAbortDelay 1
#define INCLUDE_xTaskGetSchedulerState 1
#define INCLUDE_xTaskGetCurrentTaskHandle 1
#define INCLUDE_uxTaskGetStackHighWaterMark 1
#define INCLUDE_eTaskGetState 1
#define INCLUDE_xSemaphoreGetMutexHolder 1
#define INCLUDE_xTimerPendFunctionCall 1

/* ---- Hooks and checks ------------------------------------------------------
 * Idle hook: counts idle iterations and, if RTB_FREERTOS_IDLE_WFI, sleeps in
 * WFI (ports/freertos/hooks.c; boards/mps2-an385/README.md, "Sleep and virtual time"). */
#define configUSE_IDLE_HOOK 1
#define configUSE_TICK_HOOK 0
#define configUSE_TRACE_FACILITY 0
#define configUSE_STATS_FORMATTING_FUNCTIONS 0
#define configGENERATE_RUN_TIME_STATS 0
#define configENABLE_BACKWARD_COMPATIBILITY 0

/* RTB_FREERTOS_ASSERT (CMake option, default OFF) [sheet]: configASSERT and
 * stack-overflow checking (method 2, on every switch). Both add instructions
 * to the kernel paths measured (asserts 4-45 per call), so vendors publish
 * with them off; turn them on to debug a port. */
#if defined(RTB_FREERTOS_ASSERT) && RTB_FREERTOS_ASSERT
void rtb_freertos_assert_failed(const char *file, int line);
#define configASSERT(x)                                                            \
    do {                                                                           \
        if ((x) == 0)                                                              \
            rtb_freertos_assert_failed(__FILE_NAME__, __LINE__);                   \
    } while (0)
#define configCHECK_FOR_STACK_OVERFLOW 2
#else
#define configCHECK_FOR_STACK_OVERFLOW 0
#endif

#endif /* FREERTOS_CONFIG_H */

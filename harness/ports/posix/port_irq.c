/*
 * POSIX port: the interrupt source. User space has no interrupts, so the
 * port uses the nearest real asynchronous event: a signal sent by another
 * CPU. A "device" thread, pinned to a CPU other than the benchmark CPU at
 * the top real-time priority, waits for a request; on one it stamps the
 * counter (the instant the interrupt is raised) and sends a real-time
 * signal with tgkill() to the task that asked. The kernel interrupts that
 * task on the benchmark CPU (an IPI when it is running there) and, on the
 * way back to user mode, runs the hooked handler as its signal handler: the
 * handler runs in the interrupted task's context and interrupts it at an
 * arbitrary instruction, as a hardware interrupt does.
 *
 * So "interrupt response" on Linux = IPI + kernel entry + signal frame set-up
 * + handler dispatch; the time the device thread takes to wake up is before
 * the raise stamp and never measured. Signals target threads, not CPUs:
 * the interrupt goes to the task that called rtb_port_irq_trigger().
 * Needs a second CPU (RTB_CAP_IRQ is clear without one).
 */
#include "posix_port.h"

#include <errno.h>
#include <semaphore.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define IRQ_SIGNAL (SIGRTMIN + 1)

static struct {
    pthread_t device;
    sem_t request;
    volatile pid_t target;
    volatile rtb_ticks_t raised_at;
    volatile bool quit, hooked;
    rtb_irq_fn fn;
    void *arg;
} irq;

static void on_signal(int sig)
{
    (void)sig;
    irq.fn(irq.arg); /* the hooked handler's first instruction follows this call */
}

static void *device(void *unused)
{
    (void)unused;
    pid_t pid = getpid();
    for (;;) {
        while (sem_wait(&irq.request) != 0 && errno == EINTR)
            ;
        if (irq.quit)
            return 0;
        irq.raised_at = rtb_port_ts();
        syscall(SYS_tgkill, pid, irq.target, IRQ_SIGNAL);
    }
}

bool rtb_posix_irq_possible(void)
{
    return rtb_posix.cpus_online > 1;
}

int rtb_port_irq_hook(rtb_irq_fn fn, void *arg)
{
    if (!rtb_posix_irq_possible())
        return rtb_posix_unsupported("irq_hook: the signal source needs a second CPU");
    if (irq.hooked)
        return rtb_posix_fail("irq_hook: already hooked", EBUSY);
    irq.fn = fn;
    irq.arg = arg;
    irq.quit = false;
    irq.raised_at = 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(IRQ_SIGNAL, &sa, 0) != 0)
        return rtb_posix_fail("irq_hook: sigaction", errno);
    if (sem_init(&irq.request, 0, 0) != 0)
        return rtb_posix_fail("irq_hook: sem_init", errno);
    pthread_attr_t a;
    pthread_attr_init(&a);
    int rc = rtb_posix_thread_attrs(&a, RTB_PRIO_MAX, RTB_TASK_OTHER_CPU);
    if (!rc)
        rc = pthread_create(&irq.device, &a, device, 0);
    pthread_attr_destroy(&a);
    if (rc) {
        sem_destroy(&irq.request);
        return rtb_posix_fail("irq_hook: device thread", rc);
    }
    irq.hooked = true;
    return RTB_OK;
}

int rtb_port_irq_trigger(void)
{
    if (!irq.hooked)
        return rtb_posix_fail("irq_trigger: not hooked", EINVAL);
    irq.target = (pid_t)syscall(SYS_gettid);
    return sem_post(&irq.request) ? rtb_posix_fail("irq_trigger: sem_post", errno) : RTB_OK;
}

rtb_ticks_t rtb_port_irq_raised_at(void)
{
    return irq.raised_at;
}

int rtb_port_irq_unhook(void)
{
    if (!irq.hooked)
        return rtb_posix_fail("irq_unhook: not hooked", EINVAL);
    irq.quit = true;
    sem_post(&irq.request);
    pthread_join(irq.device, 0);
    sem_destroy(&irq.request);
    signal(IRQ_SIGNAL, SIG_IGN); /* a late signal must not call a stale handler */
    irq.hooked = false;
    return RTB_OK;
}

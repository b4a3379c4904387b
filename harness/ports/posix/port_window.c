/* The rows whose timed window, on Linux, holds no service of the name they
 * carry (rtb_port_window_holds, rtb/port.h): what each holds instead.
 *
 * Linux has no task start and no thread suspend or resume: port_task.c
 * builds them from a start gate (a sem_t) and a signal whose handler parks
 * the thread, so a start of a task that never ran, or a resume of a thread
 * that is not parked, is a counter or a flag in user memory. And a POSIX
 * semaphore, mutex or reader-writer lock is words of the caller's memory
 * that the kernel sees only when a task has to wait on it (a futex): its
 * create and delete hold no kernel object. Beside a kernel whose call does
 * that work (VxWorks taskActivate, semBCreate), such a figure is 100 times
 * smaller for holding something else, so it is not comparable. The process
 * twins of suspend and resume are kill(2) calls, the service itself. */
#include <rtb/port.h>

#include <fnmatch.h>
#include <stddef.h>

#define NO_KERNEL_OBJECT \
    ": words of the caller's memory; a POSIX object the kernel sees only when a task " \
    "must wait on it (a futex), so no kernel object is made or freed"
#define NOT_PARKED \
    ", so the port's call (Linux has no thread suspend or resume: a signal parks the " \
    "thread) makes no kernel call"

static const struct {
    const char *pattern, *holds;
} rows[] = {
    {"task.start.no_ctx.*",
     "a sem_post of the start gate the created task has not reached yet (it has not run): a "
     "counter in user memory, no kernel call; Linux has no task start"},
    {"task.start.ctx.*",
     "a sem_post that wakes the task blocked on its start gate, and the switch to it: a "
     "semaphore wake (as sem.give.wake_ctx); Linux has no task start"},
    {"task.resume.ready.thread", "an exchange of rtbench's parked flag: the thread is not parked" NOT_PARKED},
    {"task.resume.pended.thread", "an exchange of rtbench's parked flag: the thread is not parked" NOT_PARKED},
    {"task.resume.delayed.thread", "an exchange of rtbench's parked flag: the thread is not parked" NOT_PARKED},
    {"task.suspend.suspended.thread", "a test of rtbench's parked flag: the thread is parked already" NOT_PARKED},
    {"sem.create", "sem_init" NO_KERNEL_OBJECT},
    {"csem.create", "sem_init" NO_KERNEL_OBJECT},
    {"sem.delete", "sem_destroy" NO_KERNEL_OBJECT},
    {"csem.delete", "sem_destroy" NO_KERNEL_OBJECT},
    {"rmutex.create", "pthread_mutex_init" NO_KERNEL_OBJECT},
    {"rmutex.delete", "pthread_mutex_destroy" NO_KERNEL_OBJECT},
    {"rwlock.create", "pthread_rwlock_init" NO_KERNEL_OBJECT},
    {"rwlock.delete", "pthread_rwlock_destroy" NO_KERNEL_OBJECT},
};

const char *rtb_port_window_holds(const char *id)
{
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (fnmatch(rows[i].pattern, id, 0) == 0)
            return rows[i].holds;
    return NULL;
}

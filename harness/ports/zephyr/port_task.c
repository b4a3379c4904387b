/*
 * Zephyr port: threads. Each slot has its own k_thread and stack, defined
 * at build time (K_THREAD_STACK_ARRAY_DEFINE), as Zephyr applications keep
 * them; a thread starts in the scenario's function itself (Zephyr passes
 * three arguments; the function reads the first), and is joined with
 * k_thread_join. A task of a .process row (RTB_TASK_PROCESS, userspace
 * builds) is a user-mode thread, granted the port's kernel objects.
 *
 * Every service is a prepared call (rtb/port.h section C); where Zephyr's
 * API is a system-call wrapper (an inline function), the call is an
 * rtb_kapi_* shim holding that wrapper as an application writes it.
 */
#include "rtb_zephyr.h"

#define STACK_BYTES 2048

K_THREAD_STACK_ARRAY_DEFINE(rtb_zephyr_stacks, RTB_MAX_TASKS, STACK_BYTES);

static struct k_thread thread_obj[RTB_MAX_TASKS] __noinit; /* kernel memory (port_sync.c) */
static struct slot {
    struct k_thread *thread;
    bool used;
} slots[RTB_MAX_TASKS];

#define SLOT_OK(id) ((id) >= 0 && (id) < RTB_MAX_TASKS && slots[id].used)

/* k_thread_create's ten arguments, as an application passes them: a0 the
 * thread, a1 its stack, a2 the stack's size, a3 the function, a4 its
 * argument, a5 the priority, a6 the options, a7 K_NO_WAIT or K_FOREVER
 * (unstarted) as ticks; the slot's thread and stack are found when the
 * call is prepared. */
RTB_KAPI(k_thread_create,
         k_thread_create((struct k_thread *)a0, (k_thread_stack_t *)a1, (size_t)a2, (k_thread_entry_t)a3,
                         (void *)a4, NULL, NULL, (int)a5, (uint32_t)a6, rtb_zephyr_timeout(a7)))

#if defined(CONFIG_USERSPACE)
/* A new thread starts in its creator's memory domain, and a user-mode task
 * must start in the user domain (main.c: its stamps read the counter). A
 * kernel-mode creator (the runner) joins that domain while it prepares the
 * call, and goes back to the default domain in done(): both outside the
 * window. A user-mode creator is in it already (and may not move). */
static void creator_joins(bool user)
{
    if (user && !k_is_user_context())
        k_mem_domain_add_thread(&rtb_zephyr_user_domain, k_current_get());
}

static void creator_leaves(void)
{
    if (!k_is_user_context() && k_current_get()->mem_domain_info.mem_domain != &k_mem_domain_default)
        k_mem_domain_add_thread(&k_mem_domain_default, k_current_get());
}
#else
static void creator_joins(bool user)
{
    (void)user;
}

static void creator_leaves(void)
{
}
#endif

/* Its resource pool is the system heap: k_fifo_alloc_put allocates there.
 * On a userspace build any thread may name it (a user-mode task suspends
 * or re-prioritises another). */
static int created(const struct rtb_kcall *c)
{
    struct k_thread *t = (struct k_thread *)c->a[0];
    creator_leaves();
    k_thread_system_pool_assign(t);
#if defined(CONFIG_USERSPACE)
    k_object_access_all_grant(t);
#endif
    return RTB_OK;
}

int rtb_port_task_create_kcall(int id, int prio, unsigned flags, rtb_task_fn fn, void *arg,
                               struct rtb_kcall *c)
{
    if (id < 0 || id >= RTB_MAX_TASKS || slots[id].used || prio < 1 || prio > RTB_PRIO_MAX)
        return rtb_zephyr_fail("task_create", "bad id or priority, or id in use");
    if (flags & RTB_TASK_OTHER_CPU)
        return rtb_zephyr_unsupported("task_create: one CPU");
    uint32_t options = 0;
    if (flags & RTB_TASK_PROCESS) {
#if defined(CONFIG_USERSPACE)
        options |= K_USER;
#else
        return rtb_zephyr_unsupported("task_create: user mode needs CONFIG_USERSPACE");
#endif
    }
    struct slot *s = &slots[id];
    s->thread = &thread_obj[id];
    s->used = true; /* a task more urgent than the caller runs, and may name itself, at once */
    creator_joins(options & K_USER);
    rtb_kcall_set(c, rtb_kapi_k_thread_create, created, (rtb_word)s->thread, (rtb_word)rtb_zephyr_stacks[id],
                  K_THREAD_STACK_SIZEOF(rtb_zephyr_stacks[0]), (rtb_word)fn);
    c->a[4] = (rtb_word)arg;
    c->a[5] = (rtb_word)rtb_zephyr_prio(prio);
    c->a[6] = options;
    c->a[7] = (flags & RTB_TASK_SUSPENDED) ? (rtb_word)-1 : 0;
    return RTB_OK;
}

/* A call on the slot's thread (a void system call, as a shim): done()
 * frees the slot for a delete. */
RTB_KAPI_STMT(k_thread_start, k_thread_start((k_tid_t)a0))
RTB_KAPI_STMT(k_thread_suspend, k_thread_suspend((k_tid_t)a0))
RTB_KAPI_STMT(k_thread_resume, k_thread_resume((k_tid_t)a0))
RTB_KAPI_STMT(k_thread_abort, k_thread_abort((k_tid_t)a0))
RTB_KAPI_STMT(k_thread_priority_set, k_thread_priority_set((k_tid_t)a0, (int)a1))
RTB_KAPI_STMT(k_yield, k_yield())

static int aborted(const struct rtb_kcall *c)
{
    slots[c->aux[0]].used = false;
    return RTB_OK;
}

static int on_thread(int id,
                     void (*shim)(rtb_word, rtb_word, rtb_word, rtb_word, rtb_word, rtb_word, rtb_word, rtb_word),
                     int (*done)(const struct rtb_kcall *), const char *what, struct rtb_kcall *c)
{
    if (!SLOT_OK(id))
        return rtb_zephyr_fail(what, "no such task");
    rtb_kcall_set(c, RTB_KFN(shim), done, (rtb_word)slots[id].thread, 0, 0, 0);
    c->aux[0] = (rtb_word)id;
    return RTB_OK;
}

int rtb_port_task_start_kcall(int id, struct rtb_kcall *c)
{
    return on_thread(id, rtb_kapi_k_thread_start, 0, "task_start", c);
}

int rtb_port_task_suspend_kcall(int id, struct rtb_kcall *c)
{
    return on_thread(id, rtb_kapi_k_thread_suspend, 0, "task_suspend", c);
}

int rtb_port_task_resume_kcall(int id, struct rtb_kcall *c)
{
    return on_thread(id, rtb_kapi_k_thread_resume, 0, "task_resume", c);
}

int rtb_port_task_delete_kcall(int id, struct rtb_kcall *c)
{
    return on_thread(id, rtb_kapi_k_thread_abort, aborted, "task_delete", c);
}

int rtb_port_task_set_prio_kcall(int id, int prio, struct rtb_kcall *c)
{
    if (prio < 1 || prio > RTB_PRIO_MAX || (id != -1 && !SLOT_OK(id)))
        return rtb_zephyr_fail("task_set_prio", "bad id or priority");
    k_tid_t t = id == -1 ? k_current_get() : slots[id].thread;
    if (k_is_user_context() && rtb_zephyr_prio(prio) < k_thread_priority_get(t))
        return rtb_zephyr_unsupported("task_set_prio: a user-mode thread may only lower a priority "
                                      "(Zephyr)");
    rtb_kcall_set(c, RTB_KFN(rtb_kapi_k_thread_priority_set), 0, (rtb_word)t, (rtb_word)rtb_zephyr_prio(prio),
                  0, 0);
    return RTB_OK;
}

int rtb_port_task_yield_kcall(struct rtb_kcall *c)
{
    rtb_kcall_set(c, RTB_KFN(rtb_kapi_k_yield), 0, 0, 0, 0, 0);
    return RTB_OK;
}

RTB_KCALL_PLAIN(task_create, (int id, int prio, unsigned flags, rtb_task_fn fn, void *arg), id, prio,
                flags, fn, arg)
RTB_KCALL_PLAIN(task_start, (int id), id)
RTB_KCALL_PLAIN(task_delete, (int id), id)
RTB_KCALL_PLAIN(task_suspend, (int id), id)
RTB_KCALL_PLAIN(task_resume, (int id), id)
RTB_KCALL_PLAIN(task_set_prio, (int id, int prio), id, prio)

void rtb_port_task_yield(void)
{
    k_yield();
}

int rtb_port_task_join(int id)
{
    if (!SLOT_OK(id))
        return rtb_zephyr_fail("task_join", "no such task");
    int rc = k_thread_join(slots[id].thread, K_FOREVER);
    slots[id].used = false;
    return rc == 0 ? RTB_OK : rtb_zephyr_fail("k_thread_join", "failed");
}

/* At least `us`: k_usleep rounds up to whole ticks and adds one (Zephyr's
 * rule: never shorter than asked). */
int rtb_port_task_delay(uint32_t us)
{
    (void)k_usleep(us > INT32_MAX ? INT32_MAX : (int32_t)us);
    return RTB_OK;
}

/* k_usleep is a system call: its wrapper, as an application writes it. */
RTB_KAPI(k_usleep, k_usleep((int32_t)a0))

int rtb_port_task_delay_kcall(uint32_t us, struct rtb_kcall *c)
{
    rtb_kcall_set(c, rtb_kapi_k_usleep, 0, us > INT32_MAX ? INT32_MAX : us, 0, 0, 0);
    return RTB_OK;
}

/* ---- the preemption lock -------------------------------------------------- */
int rtb_port_sched_lock_kcall(struct rtb_kcall *c)
{
    if (k_is_user_context())
        return rtb_zephyr_unsupported("sched_lock: k_sched_lock is not a system call");
    rtb_kcall_set(c, RTB_KFN(k_sched_lock), 0, 0, 0, 0, 0);
    return RTB_OK;
}

int rtb_port_sched_unlock_kcall(struct rtb_kcall *c)
{
    if (k_is_user_context())
        return rtb_zephyr_unsupported("sched_unlock: k_sched_unlock is not a system call");
    rtb_kcall_set(c, RTB_KFN(k_sched_unlock), 0, 0, 0, 0, 0);
    return RTB_OK;
}

RTB_KCALL_PLAIN0(sched_lock)
RTB_KCALL_PLAIN0(sched_unlock)

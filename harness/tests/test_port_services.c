/* POSIX port services that no metric exercises yet: timers and event flags.
 * Checks behaviour only; the generous waits detect "never happened", they
 * do not time anything. */
#include "check.h"
#include <rtb/port.h>
#include <stdatomic.h>

static atomic_int fired;

static void on_timer(void *arg)
{
    (void)arg;
    atomic_fetch_add(&fired, 1);
}

/* Wait up to 2 s for at least n callbacks. */
static int wait_fired(int n)
{
    for (int i = 0; i < 2000 && atomic_load(&fired) < n; i++)
        rtb_port_task_delay(1000);
    return atomic_load(&fired);
}

static void test_timer(void)
{
    CHECK(rtb_port_caps() & RTB_CAP_TIMER);
    CHECK(rtb_port_timer_create(0, on_timer, 0) == RTB_OK);
    CHECK(rtb_port_timer_create(0, on_timer, 0) == RTB_ERR); /* id in use */

    rtb_port_timer_start(0, 2000, 0); /* one-shot */
    CHECK(wait_fired(1) == 1);
    rtb_port_task_delay(20000);
    CHECK(atomic_load(&fired) == 1); /* and only once */

    atomic_store(&fired, 0);
    rtb_port_timer_start(0, 1000, 1000); /* periodic */
    CHECK(wait_fired(5) >= 5);
    CHECK(rtb_port_timer_cancel(0) == RTB_OK);
    rtb_port_task_delay(5000); /* a callback already running may finish */
    int after = atomic_load(&fired);
    rtb_port_task_delay(20000);
    CHECK(atomic_load(&fired) == after); /* cancelled: no more */

    CHECK(rtb_port_timer_delete(0) == RTB_OK);
    CHECK(rtb_port_timer_start(0, 1000, 0) == RTB_ERR); /* deleted */
}

static void test_events(void)
{
    uint32_t got = 0;
    CHECK(rtb_port_event_create(0) == RTB_OK);
    CHECK(rtb_port_event_wait(0, 1, RTB_EV_ANY, RTB_NO_WAIT, &got) == RTB_EWOULDBLOCK);
    rtb_port_event_set(0, 1 | 4);
    CHECK(rtb_port_event_wait(0, 1 | 2, RTB_EV_ANY, RTB_NO_WAIT, &got) == RTB_OK && got == 1);
    CHECK(rtb_port_event_wait(0, 1 | 2, RTB_EV_ALL, RTB_NO_WAIT, &got) == RTB_EWOULDBLOCK);
    CHECK(rtb_port_event_wait(0, 1 | 4, RTB_EV_ALL | RTB_EV_CLEAR, RTB_NO_WAIT, &got) == RTB_OK);
    CHECK(got == (1 | 4));
    CHECK(rtb_port_event_wait(0, 1, RTB_EV_ANY, 1000, &got) == RTB_ETIMEOUT); /* cleared */
    CHECK(rtb_port_event_delete(0) == RTB_OK);
}

int main(void)
{
    test_timer();
    test_events();
    return CHECK_DONE();
}

/* POSIX port: queues of words (FIFO/LIFO/stack, alloc nodes), byte pipes and
 * message queue limits. Behaviour only: the waits are timeouts that must
 * expire, never time thresholds. */
#include "check.h"
#include <rtb/port.h>

static void test_order(unsigned kind, const uintptr_t *want)
{
    uintptr_t got = 0;
    CHECK(rtb_port_queue_create(0, kind, 3) == RTB_OK);
    for (uintptr_t i = 1; i <= 3; i++)
        CHECK(rtb_port_queue_put(0, i, false) == RTB_OK);
    CHECK(rtb_port_queue_put(0, 4, false) == RTB_EWOULDBLOCK); /* full */
    for (int i = 0; i < 3; i++) {
        CHECK(rtb_port_queue_get(0, &got, RTB_NO_WAIT) == RTB_OK);
        CHECK(got == want[i]);
    }
    CHECK(rtb_port_queue_get(0, &got, RTB_NO_WAIT) == RTB_EWOULDBLOCK);
    CHECK(rtb_port_queue_get(0, &got, 2000) == RTB_ETIMEOUT);
    CHECK(rtb_port_queue_delete(0) == RTB_OK);
}

static void test_queues(void)
{
    static const uintptr_t fifo[] = {1, 2, 3}, lifo[] = {3, 2, 1};
    CHECK(rtb_port_caps() & RTB_CAP_QUEUE);
    test_order(RTB_QUEUE_FIFO, fifo);
    test_order(RTB_QUEUE_LIFO, lifo);
    test_order(RTB_QUEUE_STACK, lifo);

    /* Alloc nodes come back on get and on delete: far more puts than the
     * node heap holds never exhaust it. Mixed nodes keep FIFO order. */
    uintptr_t got = 0;
    CHECK(rtb_port_queue_create(1, RTB_QUEUE_FIFO, 4) == RTB_OK);
    for (int round = 0; round < 1000; round++) {
        CHECK(rtb_port_queue_put(1, 10, true) == RTB_OK);
        CHECK(rtb_port_queue_put(1, 11, false) == RTB_OK);
        CHECK(rtb_port_queue_get(1, &got, RTB_NO_WAIT) == RTB_OK && got == 10);
        CHECK(rtb_port_queue_get(1, &got, RTB_WAIT_FOREVER) == RTB_OK && got == 11);
    }
    for (int i = 0; i < 4; i++)
        CHECK(rtb_port_queue_put(1, 12, true) == RTB_OK);
    CHECK(rtb_port_queue_delete(1) == RTB_OK);
    CHECK(rtb_port_queue_create(1, RTB_QUEUE_STACK, 4) == RTB_OK);
    CHECK(rtb_port_queue_put(1, 1, true) == RTB_ERR); /* a stack has no nodes */
    CHECK(rtb_port_queue_delete(1) == RTB_OK);
    CHECK(rtb_port_queue_create(1, RTB_QUEUE_FIFO, 1000) == RTB_ERR);
}

static void test_pipes(void)
{
    char in[8] = {0};
    CHECK(rtb_port_caps() & RTB_CAP_PIPE);
    CHECK(rtb_port_pipe_create(0) == RTB_OK);
    CHECK(rtb_port_pipe_read(0, in, 4, RTB_NO_WAIT) == RTB_EWOULDBLOCK);
    CHECK(rtb_port_pipe_read(0, in, 4, 2000) == RTB_ETIMEOUT);
    CHECK(rtb_port_pipe_write(0, "abcd", 4, RTB_NO_WAIT) == RTB_OK);
    CHECK(rtb_port_pipe_write(0, "efgh", 4, RTB_WAIT_FOREVER) == RTB_OK);
    CHECK(rtb_port_pipe_read(0, in, 8, RTB_NO_WAIT) == RTB_OK);
    CHECK(in[0] == 'a' && in[7] == 'h');
    CHECK(rtb_port_pipe_delete(0) == RTB_OK);
    CHECK(rtb_port_pipe_delete(0) == RTB_ERR);
}

/* Many create/delete cycles: nothing accumulates against the mqueue limits. */
static void test_msgq_cycles(void)
{
    int ok = 0;
    for (int i = 0; i < 1000; i++) {
        if (rtb_port_msgq_create(0, 4, 4) != RTB_OK)
            break;
        ok += rtb_port_msgq_delete(0) == RTB_OK;
    }
    CHECK(ok == 1000);
}

int main(void)
{
    test_queues();
    test_pipes();
    test_msgq_cycles();
    return CHECK_DONE();
}

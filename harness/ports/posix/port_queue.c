/* POSIX port: queues of words. Placeholder: answers RTB_ENOTSUP until written. */
#include "posix_port.h"

#define LATER "queues of words: not implemented in the POSIX port yet"

int rtb_port_queue_create(int id, unsigned kind, unsigned depth)
{
    (void)id;
    (void)kind;
    (void)depth;
    return rtb_posix_unsupported(LATER);
}

int rtb_port_queue_delete(int id)
{
    (void)id;
    return rtb_posix_unsupported(LATER);
}

int rtb_port_queue_put(int id, uintptr_t item, bool alloc)
{
    (void)id;
    (void)item;
    (void)alloc;
    return rtb_posix_unsupported(LATER);
}

int rtb_port_queue_get(int id, uintptr_t *item, int32_t timeout_us)
{
    (void)id;
    (void)item;
    (void)timeout_us;
    return rtb_posix_unsupported(LATER);
}

/* POSIX port: condition variables. Placeholder: answers RTB_ENOTSUP until written. */
#include "posix_port.h"

#define LATER "condition variables: not implemented in the POSIX port yet"

int rtb_port_cond_create(int id)
{
    (void)id;
    return rtb_posix_unsupported(LATER);
}

int rtb_port_cond_delete(int id)
{
    (void)id;
    return rtb_posix_unsupported(LATER);
}

int rtb_port_cond_wait(int id, int mutex_id, int32_t timeout_us)
{
    (void)id;
    (void)mutex_id;
    (void)timeout_us;
    return rtb_posix_unsupported(LATER);
}

int rtb_port_cond_signal(int id)
{
    (void)id;
    return rtb_posix_unsupported(LATER);
}

int rtb_port_cond_broadcast(int id)
{
    (void)id;
    return rtb_posix_unsupported(LATER);
}

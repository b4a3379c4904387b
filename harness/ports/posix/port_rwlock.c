/* POSIX port: reader-writer locks. Placeholder: answers RTB_ENOTSUP until written. */
#include "posix_port.h"

#define LATER "reader-writer locks: not implemented in the POSIX port yet"

int rtb_port_rwlock_create(int id)
{
    (void)id;
    return rtb_posix_unsupported(LATER);
}

int rtb_port_rwlock_delete(int id)
{
    (void)id;
    return rtb_posix_unsupported(LATER);
}

int rtb_port_rwlock_rdlock(int id, int32_t timeout_us)
{
    (void)id;
    (void)timeout_us;
    return rtb_posix_unsupported(LATER);
}

int rtb_port_rwlock_wrlock(int id, int32_t timeout_us)
{
    (void)id;
    (void)timeout_us;
    return rtb_posix_unsupported(LATER);
}

int rtb_port_rwlock_unlock(int id)
{
    (void)id;
    return rtb_posix_unsupported(LATER);
}

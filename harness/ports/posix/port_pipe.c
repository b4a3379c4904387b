/* POSIX port: byte pipes. Placeholder: answers RTB_ENOTSUP until written. */
#include "posix_port.h"

#define LATER "byte pipes: not implemented in the POSIX port yet"

int rtb_port_pipe_create(int id)
{
    (void)id;
    return rtb_posix_unsupported(LATER);
}

int rtb_port_pipe_delete(int id)
{
    (void)id;
    return rtb_posix_unsupported(LATER);
}

int rtb_port_pipe_write(int id, const void *buf, size_t n, int32_t timeout_us)
{
    (void)id;
    (void)buf;
    (void)n;
    (void)timeout_us;
    return rtb_posix_unsupported(LATER);
}

int rtb_port_pipe_read(int id, void *buf, size_t n, int32_t timeout_us)
{
    (void)id;
    (void)buf;
    (void)n;
    (void)timeout_us;
    return rtb_posix_unsupported(LATER);
}

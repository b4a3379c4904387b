/*
 * POSIX port: services declared by the porting layer that this port does not
 * provide yet. They answer RTB_ENOTSUP (and their capability bits are clear),
 * so a scenario that needs them is reported as unsupported, with this reason,
 * instead of measuring something else.
 */
#include "posix_port.h"

#define LATER "not implemented in the POSIX port yet"

int rtb_port_timer_create(int id, rtb_timer_fn fn, void *arg)
{
    (void)id, (void)fn, (void)arg;
    return rtb_posix_unsupported("timer_create: " LATER);
}
int rtb_port_timer_start(int id, uint32_t first_us, uint32_t period_us)
{
    (void)id, (void)first_us, (void)period_us;
    return rtb_posix_unsupported("timer_start: " LATER);
}
int rtb_port_timer_cancel(int id)
{
    (void)id;
    return rtb_posix_unsupported("timer_cancel: " LATER);
}
int rtb_port_timer_delete(int id)
{
    (void)id;
    return rtb_posix_unsupported("timer_delete: " LATER);
}
int rtb_port_irq_hook(rtb_irq_fn fn, void *arg)
{
    (void)fn, (void)arg;
    return rtb_posix_unsupported("irq_hook: " LATER);
}
int rtb_port_irq_trigger(void)
{
    return rtb_posix_unsupported("irq_trigger: " LATER);
}
int rtb_port_irq_unhook(void)
{
    return rtb_posix_unsupported("irq_unhook: " LATER);
}

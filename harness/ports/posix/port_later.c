/*
 * POSIX port: the interrupt source, declared by the porting layer but not
 * provided by this port yet. They answer RTB_ENOTSUP (and their capability bits are clear),
 * so a scenario that needs them is reported as unsupported, with this reason,
 * instead of measuring something else.
 */
#include "posix_port.h"

#define LATER "not implemented in the POSIX port yet"

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
rtb_ticks_t rtb_port_irq_raised_at(void)
{
    return 0;
}

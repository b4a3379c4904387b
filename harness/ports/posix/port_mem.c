/* POSIX port: the heap is the C library's malloc/free (glibc's ptmalloc on
 * Debian): what an application on this system allocates from. */
#include "posix_port.h"

#include <stdlib.h>

void *rtb_port_heap_alloc(size_t size)
{
    return malloc(size);
}

void rtb_port_heap_free(void *p)
{
    free(p);
}

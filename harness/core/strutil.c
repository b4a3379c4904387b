#include "strutil.h"

bool rtb_streq(const char *a, const char *b)
{
    while (*a && *a == *b) {
        a++;
        b++;
    }
    return *a == *b;
}

void rtb_strlcat(char *dst, const char *src, size_t cap)
{
    size_t n = 0;
    while (n < cap && dst[n])
        n++;
    while (src && *src && n + 1 < cap)
        dst[n++] = *src++;
    if (n < cap)
        dst[n] = '\0';
}

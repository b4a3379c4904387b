#include "strutil.h"

bool rtb_streq(const char *a, const char *b)
{
    while (*a && *a == *b) {
        a++;
        b++;
    }
    return *a == *b;
}

bool rtb_strlcat(char *dst, const char *src, size_t cap)
{
    size_t n = 0;
    while (n < cap && dst[n])
        n++;
    while (src && *src && n + 1 < cap)
        dst[n++] = *src++;
    if (n < cap)
        dst[n] = '\0';
    if (src && *src) {
        rtb_mark_cut(dst, cap);
        return false;
    }
    return true;
}

void rtb_mark_cut(char *dst, size_t cap)
{
    size_t n = 0;
    while (n < cap && dst[n])
        n++;
    if (n + 4 > cap)
        n = cap - 4; /* room for the three bytes of U+2026 and the NUL */
    while (n > 0 && ((unsigned char)dst[n] & 0xC0) == 0x80)
        n--; /* not inside a character */
    dst[n++] = (char)0xE2;
    dst[n++] = (char)0x80;
    dst[n++] = (char)0xA6;
    dst[n] = '\0';
}

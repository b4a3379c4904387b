/* The two string helpers the core needs, since it has no libc. */
#ifndef RTB_STRUTIL_H
#define RTB_STRUTIL_H
#include <stdbool.h>
#include <stddef.h>

bool rtb_streq(const char *a, const char *b);
/* Append src to the NUL-terminated dst of capacity cap, truncating. */
void rtb_strlcat(char *dst, const char *src, size_t cap);
#endif

/* The two string helpers the core needs, since it has no libc. */
#ifndef RTB_STRUTIL_H
#define RTB_STRUTIL_H
#include <stdbool.h>
#include <stddef.h>

bool rtb_streq(const char *a, const char *b);
/* Append src to the NUL-terminated dst of capacity cap; a src that does not
 * fit whole is cut, and dst then ends in "…" (rtb_mark_cut): no text is cut
 * silently. False when src was cut. */
bool rtb_strlcat(char *dst, const char *src, size_t cap);
/* End the NUL-terminated dst of capacity cap (>= 4) with "…" (U+2026), on a
 * UTF-8 character boundary: a text that was cut says so. */
void rtb_mark_cut(char *dst, size_t cap);
#endif

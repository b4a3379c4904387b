/* The core's string helpers (core/strutil.c): a text that does not fit is
 * cut on a character boundary and says so ("…"), never cut silently. */
#include "check.h"
#include "strutil.h"
#include <string.h>

int main(void)
{
    char buf[16] = "";
    CHECK(rtb_strlcat(buf, "short", sizeof buf) && !strcmp(buf, "short"));
    CHECK(rtb_strlcat(buf, ": ok", sizeof buf) && !strcmp(buf, "short: ok"));
    CHECK(!rtb_strlcat(buf, " and far too long", sizeof buf) && strlen(buf) == 15);
    CHECK(!strcmp(buf, "short: ok an\xE2\x80\xA6")); /* the cut says so by itself */
    CHECK(!rtb_strlcat(buf, "more", sizeof buf) && !strcmp(buf, "short: ok an\xE2\x80\xA6"));

    rtb_mark_cut(buf, sizeof buf); /* marked again: the same text */
    CHECK(!strcmp(buf, "short: ok an\xE2\x80\xA6"));

    char small[8] = "ab";
    rtb_mark_cut(small, sizeof small); /* room to spare: appended */
    CHECK(!strcmp(small, "ab\xE2\x80\xA6"));

    /* a cut inside a multi-byte character backs up to its first byte */
    char utf[8] = "abc\xC3\xA9\xC3\xA9"; /* abcéé: 7 bytes */
    rtb_mark_cut(utf, sizeof utf);
    CHECK(!strcmp(utf, "abc\xE2\x80\xA6"));
    return CHECK_DONE();
}

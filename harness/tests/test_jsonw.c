/* Record writer: number formatting and string escaping, read back from
 * what the port really wrote. */
#include "check.h"
#include "jsonw.h"
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int fmt_is(int (*f)(char *, double), double v, const char *want)
{
    char buf[64];
    int n = f(buf, v);
    buf[n] = 0;
    if (strcmp(buf, want))
        fprintf(stderr, "got %s want %s\n", buf, want);
    return !strcmp(buf, want);
}

int main(void)
{
    char buf[64];
    buf[jw_fmt_u64(buf, 0)] = 0;
    CHECK(!strcmp(buf, "0"));
    buf[jw_fmt_u64(buf, UINT64_MAX)] = 0;
    CHECK(!strcmp(buf, "18446744073709551615"));
    CHECK(fmt_is(jw_fmt_fix3, 1.5, "1.500"));
    CHECK(fmt_is(jw_fmt_fix3, -0.0004, "-0.000"));
    CHECK(fmt_is(jw_fmt_fix3, -12.3456, "-12.346"));
    CHECK(fmt_is(jw_fmt_fix3, 0.0 / 0.0, "0.000"));

    FILE *tmp = tmpfile();
    int saved = dup(1);
    fflush(stdout);
    dup2(fileno(tmp), 1);
    jw_begin("t");
    jw_str("s", "a\"b\\c\n\x01");
    jw_i64("neg", -42);
    jw_bool("b", false);
    jw_arr("x");
    jw_elem_u64x3(1, 2, 3);
    jw_elem_u64x3(4, 5, 6);
    jw_close(']');
    jw_end();
    dup2(saved, 1);
    char out[256] = {0};
    rewind(tmp);
    size_t n = fread(out, 1, sizeof out - 1, tmp);
    out[n] = 0;
    const char *want =
        "{\"type\":\"t\",\"s\":\"a\\\"b\\\\c\\u000a\\u0001\",\"neg\":-42,\"b\":false,"
        "\"x\":[[1,2,3],[4,5,6]]}\n";
    if (strcmp(out, want))
        fprintf(stderr, "got  %swant %s", out, want);
    CHECK(!strcmp(out, want));
    return CHECK_DONE();
}

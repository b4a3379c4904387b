/* rtb_main's command line (core/main.c), shared by every port: usage errors
 * give status 2 before anything is measured; rtb_split_args splits a
 * board's command line. */
#include "check.h"
#include <rtb/runner.h>
#include <string.h>

static int run(const char *line)
{
    static char buf[512];
    char *argv[16];
    static const struct rtb_build b = {"cc", "", "Test"};
    strcpy(buf, line);
    int argc = rtb_split_args(buf, argv, 16);
    return rtb_main(argc, argv, &b);
}

int main(void)
{
    char line[] = "  harness --only a,b\t--samples 10\n";
    char *argv[8];
    CHECK(rtb_split_args(line, argv, 8) == 5);
    CHECK(!strcmp(argv[0], "harness") && !strcmp(argv[2], "a,b") && !strcmp(argv[4], "10"));

    CHECK(run("h --bogus") == RTB_EXIT_USAGE);
    CHECK(run("h --samples 0") == RTB_EXIT_USAGE);
    CHECK(run("h --samples 10000001") == RTB_EXIT_USAGE);
    CHECK(run("h --samples 12x") == RTB_EXIT_USAGE);
    CHECK(run("h --warmup 1000001") == RTB_EXIT_USAGE);
    CHECK(run("h --budget-ms") == RTB_EXIT_USAGE);
    CHECK(run("h --only") == RTB_EXIT_USAGE);
    CHECK(run("h --only ,") == RTB_EXIT_USAGE);
    CHECK(run("h --only method.null,no.such.metric") == RTB_EXIT_USAGE);
    CHECK(run("h --cpu -1") == RTB_EXIT_USAGE);      /* a POSIX port option, checked by the port */
    CHECK(run("h --no-pin --cpu 0") == RTB_EXIT_USAGE);
    return CHECK_DONE();
}

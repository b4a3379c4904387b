/*
 * rtbench-harness for POSIX systems: the process is the runner task. The
 * core parses the command line (rtb_main, docs/records.md); the options
 * only this port has come back through rtb_port_option() (port_options.c).
 * Usage errors: one line on stderr, exit code 2.
 */
#include <rtb/runner.h>

#ifndef RTB_COMPILER
#define RTB_COMPILER "unknown"
#endif
#ifndef RTB_CFLAGS
#define RTB_CFLAGS "unknown"
#endif
#ifndef RTB_BUILD_TYPE
#define RTB_BUILD_TYPE "unknown"
#endif

int main(int argc, char **argv)
{
    static const struct rtb_build build = {RTB_COMPILER, RTB_CFLAGS, RTB_BUILD_TYPE};
    return rtb_main(argc, argv, &build);
}

/*
 * rtbench-harness for POSIX systems: the process is the runner task. The
 * core parses the command line (rtb_main, docs/records.md); the options
 * only this port has come back through rtb_port_option() (port_options.c).
 * Usage errors: one line on stderr, exit code 2.
 */
#include <rtb/runner.h>

int main(int argc, char **argv)
{
    static const struct rtb_build build = RTB_BUILD_INIT;
    return rtb_main(argc, argv, &build);
}

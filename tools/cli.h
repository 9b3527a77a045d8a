/* cli.h — the andgate command line: one file per subcommand. */
#ifndef AG_CLI_H
#define AG_CLI_H

#include <stddef.h>

int cmd_list(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_sim(int argc, char **argv);
/* andgate bench --preload (tools/bench_preload.c), called by cmd_bench with its arguments */
int bench_preload(int argc, char **argv);
/* The library's environment (what ag_config_check validates: ANDGATE_TOPOLOGY, ANDGATE_MEMBARRIER,
 * ANDGATE_ALGO, ANDGATE_WAIT), checked by the library itself before a command that runs it on this
 * machine does anything: a bad value ends the command with one line naming the variable, exit 2
 * (tools/andgate.c). */
void cli_check_env(const char *prog);

#include "json.h"

#endif

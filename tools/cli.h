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

#include "json.h"

#endif

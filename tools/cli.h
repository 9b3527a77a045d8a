/* cli.h — the andgate command line: one file per subcommand. */
#ifndef AG_CLI_H
#define AG_CLI_H

int cmd_list(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_sim(int argc, char **argv);

#include "json.h"

#endif

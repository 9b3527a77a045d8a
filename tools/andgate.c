/* andgate — the CLI: list, info, bench, sim (one file per subcommand). */
#include <stdio.h>
#include <string.h>

#include "andgate.h"
#include "cli.h"
#include "internal.h"
#include "opts.h"

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *help;
} cmds[] = {
    { "list", cmd_list, "every algorithm with its parameters, defaults and source paper [--json]" },
    { "info", cmd_info, "topology (cores, cache groups, NUMA nodes, packages) and usable CPUs [--json];\n"
                        "         --measure [--out FILE]: measure this machine into host.json for andgate sim" },
    { "bench", cmd_bench, "measure every algorithm beside the baselines and the core-to-core limit" },
    { "sim", cmd_sim, "run the algorithm sources on a modeled machine in virtual time (docs/sim.md)" },
};

void cli_check_env(const char *prog)
{
    /* Without this a bad ANDGATE_TOPOLOGY failed every barrier of a bench ("cannot create the harness
     * barrier") and went unsaid by info. */
    char msg[512];
    if (ag_env_verify(msg, sizeof msg))
        ag_usage_error(prog, "%s", msg);
}

static int usage(void)
{
    printf("usage: andgate <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        printf("  %-6s %s\n", cmds[i].name, cmds[i].help);
    printf("\nandgate %s — docs/guide.md has the details\n", ANDGATE_VERSION_STRING);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) { /* bad usage is one line, as every command's; --help has the whole text */
        fprintf(stderr, "andgate: no command given (andgate --help lists the commands)\n");
        return 2;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help"))
        return usage();
    if (!strcmp(argv[1], "--version"))
        return printf("andgate %s\n", ANDGATE_VERSION_STRING), 0;
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (!strcmp(argv[1], cmds[i].name))
            return cmds[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "andgate: unknown command '%s' (andgate --help lists the commands)\n", argv[1]);
    return 2;
}

/* spillgraph — the command line: dispatch to the commands, global --help and
 * --version. Each command lives in cmd_*.c; docs/cli.md is the guide. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli_util.h"

static int cmd_version(int argc, char **argv, const cli_env *env)
{
    (void)env;
    static const char usage[] = "usage: spillgraph version";
    if (cli_wants_help(argc, argv)) {
        printf("%s\n\nPrints the library version (as --version does).\n", usage);
        return CLI_EXIT_OK;
    }
    if (argc > 1) return cli_usage_error("version", usage, "unexpected argument '%s'", argv[1]);
    printf("spillgraph %s\n", sg_version());
    return CLI_EXIT_OK;
}

typedef struct command {
    const char *name;
    cli_cmd_fn fn;
    const char *summary;
} command;

static const command commands[] = {
    {"gen", cmd_gen, "generate a synthetic graph into a store (rmat, ssca2, uniform, grid)"},
    {"convert", cmd_convert, "convert edge lists (el, wel, gr, mtx, bin32, sg, wsg, egr) to a store"},
    {"mst", cmd_mst, "minimum spanning forest (Boruvka)"},
    {"sssp", cmd_sssp, "single-source shortest paths (delta-stepping)"},
    {"bfs", cmd_bfs, "breadth-first search (direction-optimizing)"},
    {"cluster", cmd_cluster, "single-linkage clusters from the minimum spanning forest"},
    {"info", cmd_info, "describe a store: counts, degrees, sizes and compression"},
    {"check", cmd_check, "verify every block checksum and the graph invariants"},
    {"export", cmd_export, "write a store as el, wel, mtx, egr or wsg"},
    {"renumber", cmd_renumber, "rewrite a store with its vertices renumbered or its lists by weight"},
    {"scan", cmd_scan, "read a whole store into memory and report the read rate"},
    {"devices", cmd_devices, "list GPUs (and test the host-to-device copy rate)"},
    {"plan", cmd_plan, "the placement plan for a graph larger than the device budget"},
    {"calibrate", cmd_calibrate, "measure the planner's rates on this machine and cache them"},
    {"version", cmd_version, "print the version"},
    {"help", NULL, "show this help, or a command's: spillgraph help CMD"},
};
enum { N_COMMANDS = sizeof commands / sizeof commands[0] };

static void print_help(FILE *f)
{
    fprintf(f,
            "spillgraph %s: out-of-core graph engine (GPU + CPU) on compressed CSR stores\n"
            "\n"
            "usage: spillgraph COMMAND [ARGS...]\n"
            "       spillgraph COMMAND --help\n"
            "\n"
            "commands:\n",
            sg_version());
    for (int i = 0; i < N_COMMANDS; i++)
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(f,
            "\n"
            "options:\n"
            "  -h, --help     show this help\n"
            "  -V, --version  print the version\n"
            "\n"
            "exit status: 0 success, 1 bad input or failure (the message names the file,\n"
            "shard or block), 2 usage error. See docs/cli.md.\n");
}

static const command *find_command(const char *name)
{
    for (int i = 0; i < N_COMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0) return &commands[i];
    return NULL;
}

static int unknown_command(const char *name)
{
    fprintf(stderr, "spillgraph: unknown command '%s'\n", name);
    fprintf(stderr, "commands:");
    for (int i = 0; i < N_COMMANDS; i++) fprintf(stderr, " %s", commands[i].name);
    fprintf(stderr, "\ntry 'spillgraph --help'\n");
    return CLI_EXIT_USAGE;
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "spillgraph: missing a command\n"
                        "usage: spillgraph COMMAND [ARGS...]\n"
                        "try 'spillgraph --help'\n");
        return CLI_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        print_help(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0) {
        printf("spillgraph %s\n", sg_version());
        return CLI_EXIT_OK;
    }
    if (name[0] == '-') {
        fprintf(stderr, "spillgraph: unknown option '%s' (options come after the command)\n"
                        "try 'spillgraph --help'\n",
                name);
        return CLI_EXIT_USAGE;
    }

    cli_env env = {.full_argc = argc, .full_argv = argv};
    if (strcmp(name, "help") == 0) {
        if (argc < 3) {
            print_help(stdout);
            return CLI_EXIT_OK;
        }
        const command *c = find_command(argv[2]);
        if (!c || !c->fn) return unknown_command(argv[2]);
        /* "help CMD [KIND]" is "CMD [KIND] --help". */
        char help[] = "--help";
        char *sub[4] = {argv[2], argc > 3 ? argv[3] : help, argc > 3 ? help : NULL, NULL};
        return c->fn(argc > 3 ? 3 : 2, sub, &env);
    }
    const command *c = find_command(name);
    if (!c) return unknown_command(name);
    return c->fn(argc - 1, argv + 1, &env);
}

int main(int argc, char **argv)
{
    int rc = dispatch(argc, argv);
    /* Output that could not be written (a full disk, a closed pipe) is a
     * failure, not a success. */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        if (errno != EPIPE) fprintf(stderr, "spillgraph: writing the output: %s\n", strerror(errno));
        if (rc == CLI_EXIT_OK) rc = CLI_EXIT_FAIL;
    }
    return rc;
}

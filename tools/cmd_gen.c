/* spillgraph gen — synthetic graphs straight into a store.
 *
 *   spillgraph gen rmat --scale S -o STORE [options]
 *
 * Kinds: rmat (Graph500 R-MAT). The library does the work (sg_gen_rmat); this
 * file parses options, draws the progress bar and prints the summary. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"

static const char gen_usage[] = "usage: spillgraph gen KIND [OPTIONS] -o STORE   (kinds: rmat)";

static const char rmat_usage[] =
    "usage: spillgraph gen rmat --scale S -o STORE [--edge-factor F] [--seed N]\n"
    "         [--max-weight W] [--force] [--threads N] [--shard-size SIZE]\n"
    "         [--block-size SIZE] [--zstd-level L] [--json] [--quiet]";

static void gen_help(void)
{
    printf("%s\n"
           "\n"
           "Generates a synthetic graph and writes it as a store (a directory).\n"
           "\n"
           "kinds:\n"
           "  rmat   Graph500 R-MAT: 2^S vertices, F*2^S edges drawn, undirected,\n"
           "         weighted; see 'spillgraph gen rmat --help'\n",
           gen_usage);
}

static void rmat_help(void)
{
    printf("%s\n"
           "\n"
           "Generates an undirected Graph500 R-MAT graph (a=.57 b=.19 c=.19) into the\n"
           "store STORE: vertex labels permuted, self-loops dropped, duplicate edges\n"
           "keep the lightest weight, both directions of every edge stored. The graph\n"
           "depends only on the options, never on the thread count.\n"
           "\n"
           "options:\n"
           "  --scale S          2^S vertices, S in 1..32 (required)\n"
           "  --edge-factor F    F*2^S edges drawn (default 16)\n"
           "  --seed N           random seed (default 1)\n"
           "  --max-weight W     weights uniform in [1, W] (default 1048576 = 2^20)\n"
           "  -o, --output STORE the store directory to create (required)\n"
           "  --force            replace STORE if it exists (atomically)\n"
           "  --threads N        worker threads (default: OpenMP's, OMP_NUM_THREADS)\n"
           "  --shard-size SIZE  target raw bytes per shard file, >= 64 (default 256M)\n"
           "  --block-size SIZE  target raw bytes per block, 64 to 64M (default 1M)\n"
           "  --zstd-level L     zstd level 1..22 for every array (default: 9 for A,\n"
           "                     3 for X and W; A decodes faster at 9)\n"
           "  --json             print the summary as one JSON object\n"
           "  --quiet            no progress bar and no text summary\n"
           "  -h, --help         show this help\n"
           "\n"
           "Sizes take K, M, G, T (or KiB, MiB, GiB, TiB) as powers of 1024.\n"
           "Memory: about 8 bytes per directed edge plus 8 per vertex.\n"
           "\n"
           "example:\n"
           "  spillgraph gen rmat --scale 22 -o rmat22.sg\n",
           rmat_usage);
}

enum {
    OPT_SCALE = 1,
    OPT_EDGE_FACTOR,
    OPT_SEED,
    OPT_MAX_WEIGHT,
    OPT_OUTPUT,
    OPT_FORCE,
    OPT_THREADS,
    OPT_SHARD_SIZE,
    OPT_BLOCK_SIZE,
    OPT_ZSTD_LEVEL,
    OPT_JSON,
    OPT_QUIET,
};

static const cli_option rmat_opts[] = {
    {"scale", 0, true, OPT_SCALE},
    {"edge-factor", 0, true, OPT_EDGE_FACTOR},
    {"seed", 0, true, OPT_SEED},
    {"max-weight", 0, true, OPT_MAX_WEIGHT},
    {"output", 'o', true, OPT_OUTPUT},
    {"force", 'f', false, OPT_FORCE},
    {"threads", 't', true, OPT_THREADS},
    {"shard-size", 0, true, OPT_SHARD_SIZE},
    {"block-size", 0, true, OPT_BLOCK_SIZE},
    {"zstd-level", 0, true, OPT_ZSTD_LEVEL},
    {"json", 0, false, OPT_JSON},
    {"quiet", 'q', false, OPT_QUIET},
    {NULL, 0, false, 0},
};

static void print_summary(const char *path, const sg_rmat_options *o, const sg_gen_report *r,
                          double total)
{
    printf("generated R-MAT scale %u, edge factor %u, seed %" PRIu64 ", max weight %" PRIu32
           "\n",
           o->scale, o->edge_factor, o->seed, o->max_weight);
    printf("  vertices               %s\n", cli_count(r->n_vertices).s);
    printf("  edges generated        %s\n", cli_count(r->generated).s);
    printf("  self-loops dropped     %s\n", cli_count(r->self_loops).s);
    printf("  duplicates dropped     %s\n", cli_count(r->duplicates).s);
    printf("  undirected edges       %s\n", cli_count(r->n_edges / 2).s);
    printf("  directed edges stored  %s\n", cli_count(r->n_edges).s);
    printf("  time                   generate %s, build %s, write %s; total %s\n",
           cli_seconds(r->seconds_generate).s, cli_seconds(r->seconds_build).s,
           cli_seconds(r->seconds_write).s, cli_seconds(total).s);
    printf("  store                  %s\n", path);
}

static void print_json(const char *path, const sg_rmat_options *o, const sg_gen_report *r,
                       double total)
{
    cli_json j;
    cli_json_begin(&j, stdout);
    cli_json_str(&j, "command", "gen");
    cli_json_str(&j, "kind", "rmat");
    cli_json_str(&j, "path", path);
    cli_json_u64(&j, "scale", o->scale);
    cli_json_u64(&j, "edge_factor", o->edge_factor);
    cli_json_u64(&j, "seed", o->seed);
    cli_json_u64(&j, "max_weight", o->max_weight);
    cli_json_int(&j, "threads", o->threads);
    cli_json_u64(&j, "n_vertices", r->n_vertices);
    cli_json_u64(&j, "generated", r->generated);
    cli_json_u64(&j, "self_loops", r->self_loops);
    cli_json_u64(&j, "duplicates", r->duplicates);
    cli_json_u64(&j, "undirected_edges", r->n_edges / 2);
    cli_json_u64(&j, "n_edges", r->n_edges);
    cli_json_num(&j, "seconds_generate", r->seconds_generate);
    cli_json_num(&j, "seconds_build", r->seconds_build);
    cli_json_num(&j, "seconds_write", r->seconds_write);
    cli_json_num(&j, "seconds_total", total);
    cli_json_end(&j);
}

static int gen_rmat(int argc, char **argv, const cli_env *env)
{
    static const char cmd[] = "gen rmat";
    if (cli_wants_help(argc, argv)) {
        rmat_help();
        return CLI_EXIT_OK;
    }

    sg_rmat_options o;
    sg_rmat_defaults(&o);
    const char *out = NULL;
    bool have_scale = false, json = false, quiet = false;
    uint64_t v;

    cli_parser p;
    cli_parser_init(&p, cmd, rmat_usage, rmat_opts, argc, argv);
    for (int id; (id = cli_next(&p)) != CLI_END;) {
        switch (id) {
        case CLI_BAD: return CLI_EXIT_USAGE;
        case CLI_POSITIONAL:
            return cli_usage_error(cmd, rmat_usage, "unexpected argument '%s'", p.value);
        case OPT_SCALE:
            if (!cli_value_u64(&p, 1, 32, &v)) return CLI_EXIT_USAGE;
            o.scale = (unsigned)v;
            have_scale = true;
            break;
        case OPT_EDGE_FACTOR:
            if (!cli_value_u64(&p, 1, 1u << 20, &v)) return CLI_EXIT_USAGE;
            o.edge_factor = (unsigned)v;
            break;
        case OPT_SEED:
            if (!cli_value_u64(&p, 0, UINT64_MAX, &o.seed)) return CLI_EXIT_USAGE;
            break;
        case OPT_MAX_WEIGHT:
            if (!cli_value_u64(&p, 1, UINT32_MAX, &v)) return CLI_EXIT_USAGE;
            o.max_weight = (uint32_t)v;
            break;
        case OPT_OUTPUT: out = p.value; break;
        case OPT_FORCE: o.store.force = true; break;
        case OPT_THREADS:
            if (!cli_value_int(&p, 0, 4096, &o.threads)) return CLI_EXIT_USAGE;
            o.store.threads = o.threads;
            break;
        case OPT_SHARD_SIZE:
            if (!cli_value_size(&p, 64, UINT64_MAX, &o.store.shard_bytes)) return CLI_EXIT_USAGE;
            break;
        case OPT_BLOCK_SIZE:
            if (!cli_value_size(&p, 64, 64u << 20, &v)) return CLI_EXIT_USAGE;
            o.store.block_bytes = (uint32_t)v;
            break;
        case OPT_ZSTD_LEVEL:
            if (!cli_value_int(&p, 1, 22, &o.store.zstd_level)) return CLI_EXIT_USAGE;
            break;
        case OPT_JSON: json = true; break;
        case OPT_QUIET: quiet = true; break;
        }
    }
    if (!have_scale) return cli_usage_error(cmd, rmat_usage, "missing --scale");
    if (!out) return cli_usage_error(cmd, rmat_usage, "missing the output store (-o STORE)");
    if (!out[0]) return cli_usage_error(cmd, rmat_usage, "the output path is empty");

    char *creator = cli_command_line(env->full_argc, env->full_argv);
    if (!creator) return cli_fail(cmd, "out of memory");
    o.store.creator = creator;

    cli_progress bar;
    cli_progress_init(&bar, !quiet);
    o.progress = cli_progress_cb;
    o.progress_ctx = &bar;

    sg_gen_report rep;
    memset(&rep, 0, sizeof rep);
    sg_error err = {0};
    double t0 = cli_now();
    sg_status st = sg_gen_rmat(out, &o, &rep, &err);
    double total = cli_now() - t0;
    cli_progress_end(&bar);
    free(creator);
    o.store.creator = NULL;
    if (st != SG_OK) return cli_fail_status(cmd, st, &err);

    if (json)
        print_json(out, &o, &rep, total);
    else if (!quiet)
        print_summary(out, &o, &rep, total);
    return CLI_EXIT_OK;
}

int cmd_gen(int argc, char **argv, const cli_env *env)
{
    static const char cmd[] = "gen";
    /* The kind comes first; "gen --help" is about gen itself. */
    if (argc < 2) return cli_usage_error(cmd, gen_usage, "missing the kind of graph (kinds: rmat)");
    const char *kind = argv[1];
    if (strcmp(kind, "--help") == 0 || strcmp(kind, "-h") == 0) {
        gen_help();
        return CLI_EXIT_OK;
    }
    if (strcmp(kind, "rmat") == 0) return gen_rmat(argc - 1, argv + 1, env);
    if (kind[0] == '-')
        return cli_usage_error(cmd, gen_usage, "the kind of graph comes first, before '%s' "
                                               "(kinds: rmat)",
                               kind);
    return cli_usage_error(cmd, gen_usage, "unknown kind '%s' (kinds: rmat)", kind);
}

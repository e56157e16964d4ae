/* spillgraph gen — synthetic graphs straight into a store.
 *
 *   spillgraph gen rmat --scale S -o STORE [options]
 *   spillgraph gen ssca2 --scale S -o STORE [options]
 *   spillgraph gen uniform --scale S -o STORE [options]
 *   spillgraph gen grid --rows R --cols C -o STORE [options]
 *
 * Kinds: rmat (Graph500 R-MAT), ssca2 (SSCA#2 cliques), uniform (G(n, m)),
 * grid (2-D lattice, optionally with hubs). The library does the work
 * (sg_gen_*); this file parses options, draws the progress bar and prints
 * the summary. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"

#define GEN_KINDS "rmat, ssca2, uniform, grid"

static const char gen_usage[] =
    "usage: spillgraph gen KIND [OPTIONS] -o STORE   (kinds: " GEN_KINDS ")";

static void gen_help(void)
{
    printf("%s\n"
           "\n"
           "Generates a synthetic graph and writes it as a store (a directory).\n"
           "\n"
           "kinds:\n"
           "  rmat     Graph500 R-MAT: 2^S vertices, F*2^S edges drawn, undirected,\n"
           "           weighted; see 'spillgraph gen rmat --help'\n"
           "  ssca2    SSCA#2: cliques of random size joined by inter-clique edges that\n"
           "           grow rarer with distance; 2^S vertices, mean degree about 32\n"
           "  uniform  uniform random edges (G(n, m)): 2^S vertices, F*2^S edges drawn\n"
           "  grid     a rows x cols 4-neighbour lattice (road-like), optionally with\n"
           "           hubs: a fraction of vertices given many random neighbours\n"
           "\n"
           "Every kind writes an undirected, weighted graph that depends only on its\n"
           "options, never on the thread count; 'spillgraph gen KIND --help' for each.\n",
           gen_usage);
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
    OPT_MAX_CLIQUE,
    OPT_INTER_PROB,
    OPT_NO_PERMUTE,
    OPT_ROWS,
    OPT_COLS,
    OPT_HUBS,
    OPT_HUB_DEGREE,
};

/* ---------------------------------------------------------------- what every kind shares
 * The output, seed, weights, threads, store layout and printing options
 * (common_option), the parse (gen_parse), the run (run_gen) and the
 * summary's common part. */

typedef struct gen_common {
    const char *out;
    uint64_t seed;
    uint32_t max_weight;
    int threads;
    sg_write_options store;
    bool json, quiet;
} gen_common;

static void common_init(gen_common *c, uint64_t seed, uint32_t max_weight)
{
    memset(c, 0, sizeof *c);
    c->seed = seed;
    c->max_weight = max_weight;
}

#define COMMON_OPTS                                                                       \
    {"seed", 0, true, OPT_SEED}, {"max-weight", 0, true, OPT_MAX_WEIGHT},                 \
        {"output", 'o', true, OPT_OUTPUT}, {"force", 'f', false, OPT_FORCE},              \
        {"threads", 't', true, OPT_THREADS}, {"shard-size", 0, true, OPT_SHARD_SIZE},     \
        {"block-size", 0, true, OPT_BLOCK_SIZE}, {"zstd-level", 0, true, OPT_ZSTD_LEVEL}, \
        {"json", 0, false, OPT_JSON}, {"quiet", 'q', false, OPT_QUIET}

#define COMMON_HELP                                                                        \
    "  --seed N           random seed (default 1)\n"                                       \
    "  --max-weight W     weights uniform in [1, W] (default 1048576 = 2^20)\n"            \
    "  -o, --output STORE the store directory to create (required)\n"                      \
    "  --force            replace STORE if it exists (atomically)\n"                       \
    "  --threads N        worker threads (default: OpenMP's, OMP_NUM_THREADS)\n"           \
    "  --shard-size SIZE  target raw bytes per shard file, >= 64 (default 256M)\n"         \
    "  --block-size SIZE  target raw bytes per block, 64 to 64M (default 1M)\n"            \
    "  --zstd-level L     zstd level 1..22 for every array (default: 9 for A,\n"           \
    "                     3 for X and W; A decodes faster at 9)\n"                         \
    "  --json             print the summary as one JSON object\n"                          \
    "  --quiet            no progress bar and no text summary\n"                           \
    "  -h, --help         show this help\n"                                                \
    "\n"                                                                                   \
    "Sizes take K, M, G, T (or KiB, MiB, GiB, TiB) as powers of 1024. The graph\n"         \
    "depends only on the options, never on the thread count.\n"

#define COMMON_USAGE                                                             \
    "         [--seed N] [--max-weight W] [--force] [--threads N]\n"             \
    "         [--shard-size SIZE] [--block-size SIZE] [--zstd-level L] [--json] [--quiet]"

/* 1: a common option, parsed; 0: not one; -1: a usage error was printed. */
static int common_option(int id, cli_parser *p, gen_common *c)
{
    uint64_t v;
    switch (id) {
    case OPT_SEED: return cli_value_u64(p, 0, UINT64_MAX, &c->seed) ? 1 : -1;
    case OPT_MAX_WEIGHT:
        if (!cli_value_u64(p, 1, UINT32_MAX, &v)) return -1;
        c->max_weight = (uint32_t)v;
        return 1;
    case OPT_OUTPUT: c->out = p->value; return 1;
    case OPT_FORCE: c->store.force = true; return 1;
    case OPT_THREADS:
        if (!cli_value_int(p, 0, 4096, &c->threads)) return -1;
        c->store.threads = c->threads;
        return 1;
    case OPT_SHARD_SIZE:
        return cli_value_size(p, 64, UINT64_MAX, &c->store.shard_bytes) ? 1 : -1;
    case OPT_BLOCK_SIZE:
        if (!cli_value_size(p, 64, 64u << 20, &v)) return -1;
        c->store.block_bytes = (uint32_t)v;
        return 1;
    case OPT_ZSTD_LEVEL: return cli_value_int(p, 1, 22, &c->store.zstd_level) ? 1 : -1;
    case OPT_JSON: c->json = true; return 1;
    case OPT_QUIET: c->quiet = true; return 1;
    }
    return 0;
}

/* A number in [0, 1] (for fractions and probabilities). */
static bool value_fraction(cli_parser *p, double *out)
{
    char *end = NULL;
    const double v = strtod(p->value, &end);
    if (!p->value[0] || !end || *end || !isfinite(v)) {
        cli_usage_error(p->cmd, p->usage, "--%s: '%s' is not a number", p->spelled, p->value);
        return false;
    }
    if (v < 0.0 || v > 1.0) {
        cli_usage_error(p->cmd, p->usage, "--%s: %s is out of range (0..1)", p->spelled,
                        p->value);
        return false;
    }
    *out = v;
    return true;
}

/* The library call of one kind, on its options. */
typedef sg_status (*gen_call)(const char *path, const void *o, sg_gen_report *rep,
                              sg_error *err);
static sg_status call_rmat(const char *path, const void *o, sg_gen_report *rep, sg_error *err)
{
    return sg_gen_rmat(path, o, rep, err);
}
static sg_status call_ssca2(const char *path, const void *o, sg_gen_report *rep, sg_error *err)
{
    return sg_gen_ssca2(path, o, rep, err);
}
static sg_status call_uniform(const char *path, const void *o, sg_gen_report *rep, sg_error *err)
{
    return sg_gen_uniform(path, o, rep, err);
}
static sg_status call_grid(const char *path, const void *o, sg_gen_report *rep, sg_error *err)
{
    return sg_gen_grid(path, o, rep, err);
}

/* Runs the generator with the command line as creator and the progress bar
 * (the kind's own store, progress and progress_ctx fields are given). */
static int run_gen(const char *cmd, const cli_env *env, const gen_common *c,
                   sg_write_options *store, sg_progress_fn *progress, void **progress_ctx,
                   gen_call call, const void *o, sg_gen_report *rep, double *total)
{
    *store = c->store;
    char *creator = cli_command_line(env->full_argc, env->full_argv);
    if (!creator) return cli_fail(cmd, "out of memory");
    store->creator = creator;
    cli_progress bar;
    cli_progress_init(&bar, !c->quiet);
    *progress = cli_progress_cb;
    *progress_ctx = &bar;
    memset(rep, 0, sizeof *rep);
    sg_error err = {0};
    const double t0 = cli_now();
    const sg_status st = call(c->out, o, rep, &err);
    *total = cli_now() - t0;
    cli_progress_end(&bar);
    free(creator);
    store->creator = NULL;
    *progress = NULL;
    *progress_ctx = NULL;
    if (st != SG_OK) return cli_fail_status(cmd, st, &err);
    return CLI_EXIT_OK;
}

static void summary_lines(const char *path, const sg_gen_report *r, double total)
{
    printf("  vertices               %s\n", cli_count(r->n_vertices).s);
    printf("  edges generated        %s\n", cli_count(r->generated).s);
    printf("  self-loops dropped     %s\n", cli_count(r->self_loops).s);
    printf("  duplicates dropped     %s\n", cli_count(r->duplicates).s);
    printf("  undirected edges       %s\n", cli_count(r->n_edges / 2).s);
    printf("  directed edges stored  %s\n", cli_count(r->n_edges).s);
    printf("  mean degree            %.2f\n",
           r->n_vertices ? (double)r->n_edges / (double)r->n_vertices : 0.0);
    printf("  time                   generate %s, build %s, write %s; total %s\n",
           cli_seconds(r->seconds_generate).s, cli_seconds(r->seconds_build).s,
           cli_seconds(r->seconds_write).s, cli_seconds(total).s);
    printf("  store                  %s\n", path);
}

static void json_begin(cli_json *j, const char *kind, const gen_common *c)
{
    cli_json_begin(j, stdout);
    cli_json_str(j, "command", "gen");
    cli_json_str(j, "kind", kind);
    cli_json_str(j, "path", c->out);
}

static void json_end(cli_json *j, const gen_common *c, const sg_gen_report *r, double total)
{
    cli_json_u64(j, "seed", c->seed);
    cli_json_u64(j, "max_weight", c->max_weight);
    cli_json_int(j, "threads", c->threads);
    cli_json_u64(j, "n_vertices", r->n_vertices);
    cli_json_u64(j, "generated", r->generated);
    cli_json_u64(j, "self_loops", r->self_loops);
    cli_json_u64(j, "duplicates", r->duplicates);
    cli_json_u64(j, "undirected_edges", r->n_edges / 2);
    cli_json_u64(j, "n_edges", r->n_edges);
    cli_json_num(j, "mean_degree",
                 r->n_vertices ? (double)r->n_edges / (double)r->n_vertices : 0.0);
    cli_json_num(j, "seconds_generate", r->seconds_generate);
    cli_json_num(j, "seconds_build", r->seconds_build);
    cli_json_num(j, "seconds_write", r->seconds_write);
    cli_json_num(j, "seconds_total", total);
    cli_json_end(j);
}

/* A kind's own JSON keys, and the first line of its text summary. */
typedef void (*kind_json_fn)(cli_json *j, const void *o);
typedef void (*kind_title_fn)(const void *o);

/* Runs the kind's generator (run_gen) and prints its summary: JSON, text,
 * or nothing (--quiet). */
static int gen_finish(const char *cmd, const cli_env *env, const gen_common *c,
                      sg_write_options *store, sg_progress_fn *progress, void **progress_ctx,
                      gen_call call, const void *o, const char *kind, kind_json_fn json,
                      kind_title_fn title)
{
    sg_gen_report rep;
    double total = 0;
    const int rc = run_gen(cmd, env, c, store, progress, progress_ctx, call, o, &rep, &total);
    if (rc != CLI_EXIT_OK) return rc;
    if (c->json) {
        cli_json j;
        json_begin(&j, kind, c);
        json(&j, o);
        json_end(&j, c, &rep, total);
    } else if (!c->quiet) {
        title(o);
        summary_lines(c->out, &rep, total);
    }
    return CLI_EXIT_OK;
}

/* One kind's own options (past the common ones) into its arguments: 1
 * parsed, 0 not one of its, -1 a usage error was printed. */
typedef int (*kind_option_fn)(int id, cli_parser *p, void *args);

/* Parses a kind's command line: the common options into c, the kind's by
 * `opt` into args. Returns -1 when fine, else the exit code. */
static int gen_parse(const char *cmd, const char *usage, const cli_option *opts, int argc,
                     char **argv, gen_common *c, kind_option_fn opt, void *args)
{
    cli_parser p;
    cli_parser_init(&p, cmd, usage, opts, argc, argv);
    for (int id; (id = cli_next(&p)) != CLI_END;) {
        if (id == CLI_BAD) return CLI_EXIT_USAGE;
        if (id == CLI_POSITIONAL)
            return cli_usage_error(cmd, usage, "unexpected argument '%s'", p.value);
        int r = common_option(id, &p, c);
        if (r == 0) r = opt(id, &p, args);
        if (r < 0) return CLI_EXIT_USAGE;
    }
    return -1;
}

/* --scale S (1..32) and --edge-factor F, for the kinds that take them. */
static int scale_option(int id, cli_parser *p, unsigned *scale, unsigned *edge_factor)
{
    uint64_t v;
    if (id == OPT_SCALE) {
        if (!cli_value_u64(p, 1, 32, &v)) return -1;
        *scale = (unsigned)v;
        return 1;
    }
    if (id == OPT_EDGE_FACTOR && edge_factor) {
        if (!cli_value_u64(p, 1, 1u << 20, &v)) return -1;
        *edge_factor = (unsigned)v;
        return 1;
    }
    return 0;
}

/* Checks what every kind needs after parsing; returns -1 when fine. */
static int common_required(const char *cmd, const char *usage, const gen_common *c)
{
    if (!c->out) return cli_usage_error(cmd, usage, "missing the output store (-o STORE)");
    if (!c->out[0]) return cli_usage_error(cmd, usage, "the output path is empty");
    return -1;
}

/* ------------------------------------------------ rmat */

static const char rmat_usage[] =
    "usage: spillgraph gen rmat --scale S -o STORE [--edge-factor F]\n" COMMON_USAGE;

static void rmat_help(void)
{
    printf("%s\n"
           "\n"
           "Generates an undirected Graph500 R-MAT graph (a=.57 b=.19 c=.19) into the\n"
           "store STORE: vertex labels permuted, self-loops dropped, duplicate edges\n"
           "keep the lightest weight, both directions of every edge stored.\n"
           "\n"
           "options:\n"
           "  --scale S          2^S vertices, S in 1..32 (required)\n"
           "  --edge-factor F    F*2^S edges drawn (default 16)\n" COMMON_HELP
           "Memory: about 8 bytes per directed edge plus 8 per vertex.\n"
           "\n"
           "example:\n"
           "  spillgraph gen rmat --scale 22 -o rmat22.sg\n",
           rmat_usage);
}

static const cli_option rmat_opts[] = {
    {"scale", 0, true, OPT_SCALE},
    {"edge-factor", 0, true, OPT_EDGE_FACTOR},
    COMMON_OPTS,
    {NULL, 0, false, 0},
};

static int rmat_option(int id, cli_parser *p, void *args)
{
    sg_rmat_options *o = args;
    return scale_option(id, p, &o->scale, &o->edge_factor);
}

static void rmat_json(cli_json *j, const void *args)
{
    const sg_rmat_options *o = args;
    cli_json_u64(j, "scale", o->scale);
    cli_json_u64(j, "edge_factor", o->edge_factor);
}

static void rmat_title(const void *args)
{
    const sg_rmat_options *o = args;
    printf("generated R-MAT scale %u, edge factor %u, seed %" PRIu64 ", max weight %" PRIu32 "\n",
           o->scale, o->edge_factor, o->seed, o->max_weight);
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
    gen_common c;
    common_init(&c, o.seed, o.max_weight);
    int rc = gen_parse(cmd, rmat_usage, rmat_opts, argc, argv, &c, rmat_option, &o);
    if (rc >= 0) return rc;
    if (o.scale == 0) return cli_usage_error(cmd, rmat_usage, "missing --scale");
    rc = common_required(cmd, rmat_usage, &c);
    if (rc >= 0) return rc;
    o.seed = c.seed;
    o.max_weight = c.max_weight;
    o.threads = c.threads;

    return gen_finish(cmd, env, &c, &o.store, &o.progress, &o.progress_ctx, call_rmat, &o,
                      "rmat", rmat_json, rmat_title);
}

/* ------------------------------------------------ ssca2 */

static const char ssca2_usage[] =
    "usage: spillgraph gen ssca2 --scale S -o STORE [--max-clique-size M]\n"
    "         [--inter-prob P] [--no-permute]\n" COMMON_USAGE;

static void ssca2_help(void)
{
    printf("%s\n"
           "\n"
           "Generates an undirected SSCA#2 graph (Bader and Madduri) into STORE: the\n"
           "2^S vertices are cut into cliques of sizes uniform in [1, M], every pair in a\n"
           "clique is an edge, and from every vertex v, for k = 0 .. S-1, an edge to\n"
           "v + 2^k (mod 2^S) with probability P^k when that vertex is in another clique.\n"
           "With the defaults the mean degree (directed edges stored per vertex) is about\n"
           "32: 2(M-1)/3 = 31.3 inside cliques plus about 0.5 between them.\n"
           "\n"
           "options:\n"
           "  --scale S          2^S vertices, S in 1..32 (required)\n"
           "  --max-clique-size M  clique sizes uniform in [1, M], 1..65536 (default 48)\n"
           "  --inter-prob P     inter-clique probability per doubling of the distance,\n"
           "                     0..1 (default 0.5, as the spec)\n"
           "  --no-permute       keep cliques on consecutive ids (default: labels are\n"
           "                     permuted by a seed-dependent bijection)\n" COMMON_HELP
           "Memory: about 8 bytes per directed edge plus 16 per vertex.\n"
           "\n"
           "example:\n"
           "  spillgraph gen ssca2 --scale 20 -o ssca20.sg\n",
           ssca2_usage);
}

static const cli_option ssca2_opts[] = {
    {"scale", 0, true, OPT_SCALE},
    {"max-clique-size", 0, true, OPT_MAX_CLIQUE},
    {"inter-prob", 0, true, OPT_INTER_PROB},
    {"no-permute", 0, false, OPT_NO_PERMUTE},
    COMMON_OPTS,
    {NULL, 0, false, 0},
};

static int ssca2_option(int id, cli_parser *p, void *args)
{
    sg_ssca2_options *o = args;
    uint64_t v;
    switch (id) {
    case OPT_MAX_CLIQUE:
        if (!cli_value_u64(p, 1, 65536, &v)) return -1;
        o->max_clique_size = (uint32_t)v;
        return 1;
    case OPT_INTER_PROB: return value_fraction(p, &o->inter_prob) ? 1 : -1;
    case OPT_NO_PERMUTE: o->permute = false; return 1;
    }
    return scale_option(id, p, &o->scale, NULL);
}

static void ssca2_json(cli_json *j, const void *args)
{
    const sg_ssca2_options *o = args;
    cli_json_u64(j, "scale", o->scale);
    cli_json_u64(j, "max_clique_size", o->max_clique_size);
    cli_json_num(j, "inter_prob", o->inter_prob);
    cli_json_bool(j, "permute", o->permute);
}

static void ssca2_title(const void *args)
{
    const sg_ssca2_options *o = args;
    printf("generated SSCA#2 scale %u, max clique size %" PRIu32 ", inter-clique "
           "probability %g, seed %" PRIu64 ", max weight %" PRIu32 "%s\n",
           o->scale, o->max_clique_size, o->inter_prob, o->seed, o->max_weight,
           o->permute ? "" : ", labels not permuted");
}

static int gen_ssca2(int argc, char **argv, const cli_env *env)
{
    static const char cmd[] = "gen ssca2";
    if (cli_wants_help(argc, argv)) {
        ssca2_help();
        return CLI_EXIT_OK;
    }
    sg_ssca2_options o;
    sg_ssca2_defaults(&o);
    gen_common c;
    common_init(&c, o.seed, o.max_weight);
    int rc = gen_parse(cmd, ssca2_usage, ssca2_opts, argc, argv, &c, ssca2_option, &o);
    if (rc >= 0) return rc;
    if (o.scale == 0) return cli_usage_error(cmd, ssca2_usage, "missing --scale");
    rc = common_required(cmd, ssca2_usage, &c);
    if (rc >= 0) return rc;
    o.seed = c.seed;
    o.max_weight = c.max_weight;
    o.threads = c.threads;

    return gen_finish(cmd, env, &c, &o.store, &o.progress, &o.progress_ctx, call_ssca2, &o,
                      "ssca2", ssca2_json, ssca2_title);
}

/* ------------------------------------------------ uniform */

static const char uniform_usage[] =
    "usage: spillgraph gen uniform --scale S -o STORE [--edge-factor F]\n" COMMON_USAGE;

static void uniform_help(void)
{
    printf("%s\n"
           "\n"
           "Generates an undirected uniform random graph (Erdos-Renyi G(n, m) style) into\n"
           "STORE: 2^S vertices and F*2^S edges, both ends of each uniform and\n"
           "independent; self-loops are dropped and repeated edges keep the lightest\n"
           "weight, so slightly fewer are stored (about F self-loops and F^2 repeats).\n"
           "\n"
           "options:\n"
           "  --scale S          2^S vertices, S in 1..32 (required)\n"
           "  --edge-factor F    F*2^S edges drawn (default 16)\n" COMMON_HELP
           "Memory: about 8 bytes per directed edge plus 16 per vertex.\n"
           "\n"
           "example:\n"
           "  spillgraph gen uniform --scale 20 --edge-factor 8 -o u20.sg\n",
           uniform_usage);
}

static const cli_option uniform_opts[] = {
    {"scale", 0, true, OPT_SCALE},
    {"edge-factor", 0, true, OPT_EDGE_FACTOR},
    COMMON_OPTS,
    {NULL, 0, false, 0},
};

static int uniform_option(int id, cli_parser *p, void *args)
{
    sg_uniform_options *o = args;
    return scale_option(id, p, &o->scale, &o->edge_factor);
}

static void uniform_json(cli_json *j, const void *args)
{
    const sg_uniform_options *o = args;
    cli_json_u64(j, "scale", o->scale);
    cli_json_u64(j, "edge_factor", o->edge_factor);
}

static void uniform_title(const void *args)
{
    const sg_uniform_options *o = args;
    printf("generated uniform random scale %u, edge factor %u, seed %" PRIu64
           ", max weight %" PRIu32 "\n",
           o->scale, o->edge_factor, o->seed, o->max_weight);
}

static int gen_uniform(int argc, char **argv, const cli_env *env)
{
    static const char cmd[] = "gen uniform";
    if (cli_wants_help(argc, argv)) {
        uniform_help();
        return CLI_EXIT_OK;
    }
    sg_uniform_options o;
    sg_uniform_defaults(&o);
    gen_common c;
    common_init(&c, o.seed, o.max_weight);
    int rc = gen_parse(cmd, uniform_usage, uniform_opts, argc, argv, &c, uniform_option, &o);
    if (rc >= 0) return rc;
    if (o.scale == 0) return cli_usage_error(cmd, uniform_usage, "missing --scale");
    rc = common_required(cmd, uniform_usage, &c);
    if (rc >= 0) return rc;
    o.seed = c.seed;
    o.max_weight = c.max_weight;
    o.threads = c.threads;

    return gen_finish(cmd, env, &c, &o.store, &o.progress, &o.progress_ctx, call_uniform, &o,
                      "uniform", uniform_json, uniform_title);
}

/* ------------------------------------------------ grid */

static const char grid_usage[] =
    "usage: spillgraph gen grid --rows R --cols C -o STORE\n"
    "         [--hubs F --hub-degree D]\n" COMMON_USAGE;

static void grid_help(void)
{
    printf("%s\n"
           "\n"
           "Generates an undirected R x C 4-neighbour lattice into STORE: vertex r*C + c\n"
           "is joined to the vertices above, left, right and below it (degree 2 at the\n"
           "corners, 3 on the borders, 4 inside), weights uniform in [1, W]: a road-like\n"
           "graph of diameter R + C - 2. With --hubs, round(F*R*C) vertices picked from\n"
           "the seed (hubs) each get D extra edges to vertices uniform over the lattice:\n"
           "an irregular lattice for testing load balance (Liu et al. 2014).\n"
           "\n"
           "options:\n"
           "  --rows R, --cols C lattice size, each >= 1, R*C <= 2^32 (required)\n"
           "  --hubs F           fraction of vertices that are hubs, 0..1 (default 0)\n"
           "  --hub-degree D     extra edges per hub, >= 1 (required with --hubs)\n" COMMON_HELP
           "Memory: without hubs about 40 MiB whatever the size (written as it is\n"
           "made); with hubs about 8 bytes per directed edge plus 16 per vertex.\n"
           "\n"
           "examples:\n"
           "  spillgraph gen grid --rows 4096 --cols 4096 -o grid.sg\n"
           "  spillgraph gen grid --rows 4096 --cols 4096 --hubs 0.001 --hub-degree 1000 "
           "-o hubs.sg\n",
           grid_usage);
}

static const cli_option grid_opts[] = {
    {"rows", 0, true, OPT_ROWS},
    {"cols", 0, true, OPT_COLS},
    {"hubs", 0, true, OPT_HUBS},
    {"hub-degree", 0, true, OPT_HUB_DEGREE},
    COMMON_OPTS,
    {NULL, 0, false, 0},
};

/* The grid's options, and which were given (for the checks after them). */
typedef struct grid_args {
    sg_grid_options *o;
    bool have_rows, have_cols, have_hubs, have_degree;
} grid_args;

static int grid_option(int id, cli_parser *p, void *args)
{
    grid_args *a = args;
    uint64_t v;
    switch (id) {
    case OPT_ROWS:
        a->have_rows = true;
        return cli_value_u64(p, 1, 1ull << 32, &a->o->rows) ? 1 : -1;
    case OPT_COLS:
        a->have_cols = true;
        return cli_value_u64(p, 1, 1ull << 32, &a->o->cols) ? 1 : -1;
    case OPT_HUBS:
        a->have_hubs = true;
        return value_fraction(p, &a->o->hubs) ? 1 : -1;
    case OPT_HUB_DEGREE:
        if (!cli_value_u64(p, 1, UINT32_MAX, &v)) return -1;
        a->o->hub_degree = (uint32_t)v;
        a->have_degree = true;
        return 1;
    }
    return 0;
}

static void grid_json(cli_json *j, const void *args)
{
    const sg_grid_options *o = args;
    cli_json_u64(j, "rows", o->rows);
    cli_json_u64(j, "cols", o->cols);
    cli_json_num(j, "hubs", o->hubs);
    cli_json_u64(j, "hub_degree", o->hub_degree);
}

static void grid_title(const void *args)
{
    const sg_grid_options *o = args;
    printf("generated grid %" PRIu64 " x %" PRIu64 ", seed %" PRIu64 ", max weight %" PRIu32,
           o->rows, o->cols, o->seed, o->max_weight);
    if (o->hubs > 0)
        printf(", hubs %g with %" PRIu32 " extra edges each", o->hubs, o->hub_degree);
    printf("\n");
}

static int gen_grid(int argc, char **argv, const cli_env *env)
{
    static const char cmd[] = "gen grid";
    if (cli_wants_help(argc, argv)) {
        grid_help();
        return CLI_EXIT_OK;
    }
    sg_grid_options o;
    sg_grid_defaults(&o);
    gen_common c;
    common_init(&c, o.seed, o.max_weight);
    grid_args a = {.o = &o};
    int rc = gen_parse(cmd, grid_usage, grid_opts, argc, argv, &c, grid_option, &a);
    if (rc >= 0) return rc;
    if (!a.have_rows || !a.have_cols)
        return cli_usage_error(cmd, grid_usage, "missing %s", a.have_rows ? "--cols" : "--rows");
    if (a.have_hubs && o.hubs > 0 && !a.have_degree)
        return cli_usage_error(cmd, grid_usage, "--hubs needs --hub-degree");
    if (a.have_degree && !a.have_hubs)
        return cli_usage_error(cmd, grid_usage, "--hub-degree needs --hubs");
    if (o.rows > (1ull << 32) / o.cols)
        return cli_usage_error(cmd, grid_usage,
                               "%" PRIu64 " x %" PRIu64 " is more than 2^32 vertices", o.rows,
                               o.cols);
    rc = common_required(cmd, grid_usage, &c);
    if (rc >= 0) return rc;
    o.seed = c.seed;
    o.max_weight = c.max_weight;
    o.threads = c.threads;

    return gen_finish(cmd, env, &c, &o.store, &o.progress, &o.progress_ctx, call_grid, &o,
                      "grid", grid_json, grid_title);
}

int cmd_gen(int argc, char **argv, const cli_env *env)
{
    static const char cmd[] = "gen";
    /* The kind comes first; "gen --help" is about gen itself. */
    if (argc < 2)
        return cli_usage_error(cmd, gen_usage, "missing the kind of graph (kinds: " GEN_KINDS ")");
    const char *kind = argv[1];
    if (strcmp(kind, "--help") == 0 || strcmp(kind, "-h") == 0) {
        gen_help();
        return CLI_EXIT_OK;
    }
    if (strcmp(kind, "rmat") == 0) return gen_rmat(argc - 1, argv + 1, env);
    if (strcmp(kind, "ssca2") == 0) return gen_ssca2(argc - 1, argv + 1, env);
    if (strcmp(kind, "uniform") == 0) return gen_uniform(argc - 1, argv + 1, env);
    if (strcmp(kind, "grid") == 0) return gen_grid(argc - 1, argv + 1, env);
    if (kind[0] == '-')
        return cli_usage_error(cmd, gen_usage, "the kind of graph comes first, before '%s' "
                                               "(kinds: " GEN_KINDS ")",
                               kind);
    return cli_usage_error(cmd, gen_usage, "unknown kind '%s' (kinds: " GEN_KINDS ")", kind);
}

/* spillgraph convert — edge lists to a store.
 *
 *   spillgraph convert INPUT... -o STORE [options]
 *
 * The library does the work (sg_convert); this file parses options, draws a
 * progress line with rate and ETA, and prints what was kept and dropped. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_util.h"

static const char convert_usage[] =
    "usage: spillgraph convert INPUT... -o STORE [--format F] [--directed|--undirected]\n"
    "         [--weights keep|unit|random:MAX] [--seed N] [--ids keep|compact]\n"
    "         [--mem SIZE] [--tmp-dir DIR] [--threads N] [--force] [--shard-size SIZE]\n"
    "         [--block-size SIZE] [--zstd-level L] [--json] [--quiet]";

static void convert_help(void)
{
    printf("%s\n"
           "\n"
           "Converts one or more edge-list files (concatenated) into the store STORE.\n"
           "Self-loops are dropped; of repeated edges the lightest is kept (undirected:\n"
           "{u,v} and {v,u} are the same edge); both directions of every undirected\n"
           "edge are stored. The summary says what was dropped and why.\n"
           "\n"
           "input formats (by extension, after an optional .zst; or --format):\n"
           "  el     \"u v\" per line, '#' and '%%' comments (SNAP)\n"
           "  wel    \"u v w\" per line\n"
           "  gr     DIMACS shortest path (\"p sp n m\", \"a u v w\"), 1-based\n"
           "  mtx    Matrix Market coordinate, general or symmetric, 1-based\n"
           "  bin32  little-endian u32 triples (u, v, w); only with --format bin32\n"
           "  sg     gapbs serialized graph;  wsg  gapbs weighted serialized graph\n"
           "  egr    ECLgraph binary CSR\n"
           "Any of them may be zstd-compressed (name.el.zst).\n"
           "\n"
           "options:\n"
           "  -o, --output STORE   the store directory to create (required)\n"
           "  --format F           the format of every input (default: by extension)\n"
           "  --directed           keep edges as directed (u -> v only)\n"
           "  --undirected         store both directions of every edge (the default)\n"
           "  --weights MODE       keep: the file's weights (unweighted formats: 1;\n"
           "                       integers in [0, 2^32) stored as uint32, anything else\n"
           "                       as float32, negative ones flagged); unit: all 1;\n"
           "                       random:MAX: uniform in [1, MAX], the same for u->v\n"
           "                       and v->u (default keep)\n"
           "  --seed N             seed of --weights random (default 1)\n"
           "  --ids MODE           keep: ids as in the file (< 2^32; vertices = largest\n"
           "                       id + 1 or the header's count); compact: renumber the\n"
           "                       ids that occur to 0..n-1 in order and keep the\n"
           "                       original ids in the store (default keep)\n"
           "  --mem SIZE           memory bound (default: a quarter of RAM); larger\n"
           "                       inputs are sorted externally through run files\n"
           "  --tmp-dir DIR        where run files go (default: beside STORE)\n"
           "  --threads N          worker threads (default: OpenMP's, OMP_NUM_THREADS)\n"
           "  --force              replace STORE if it exists (atomically)\n"
           "  --shard-size SIZE    target raw bytes per shard file, >= 64 (default 256M)\n"
           "  --block-size SIZE    target raw bytes per block, 64 to 64M (default 1M)\n"
           "  --zstd-level L       zstd level 1..22 for every array (default: 9 for A,\n"
           "                       3 for X and W)\n"
           "  --json               print the summary as one JSON object\n"
           "  --quiet              no progress line and no text summary\n"
           "  -h, --help           show this help\n"
           "\n"
           "Sizes take K, M, G, T (or KiB, MiB, GiB, TiB) as powers of 1024.\n"
           "Errors name the file and the line or edge; nothing is left behind on error.\n"
           "\n"
           "examples:\n"
           "  spillgraph convert web.el.zst -o web.sg --ids compact\n"
           "  spillgraph convert part1.wel part2.wel -o g.sg --directed --mem 4G\n"
           "  spillgraph convert g.bin --format bin32 -o g.sg --weights random:1000\n",
           convert_usage);
}

enum {
    OPT_OUTPUT = 1,
    OPT_FORMAT,
    OPT_DIRECTED,
    OPT_UNDIRECTED,
    OPT_WEIGHTS,
    OPT_SEED,
    OPT_IDS,
    OPT_MEM,
    OPT_TMP_DIR,
    OPT_THREADS,
    OPT_FORCE,
    OPT_SHARD_SIZE,
    OPT_BLOCK_SIZE,
    OPT_ZSTD_LEVEL,
    OPT_JSON,
    OPT_QUIET,
};

static const cli_option convert_opts[] = {
    {"output", 'o', true, OPT_OUTPUT},
    {"format", 0, true, OPT_FORMAT},
    {"directed", 0, false, OPT_DIRECTED},
    {"undirected", 0, false, OPT_UNDIRECTED},
    {"weights", 0, true, OPT_WEIGHTS},
    {"seed", 0, true, OPT_SEED},
    {"ids", 0, true, OPT_IDS},
    {"mem", 0, true, OPT_MEM},
    {"tmp-dir", 0, true, OPT_TMP_DIR},
    {"threads", 't', true, OPT_THREADS},
    {"force", 'f', false, OPT_FORCE},
    {"shard-size", 0, true, OPT_SHARD_SIZE},
    {"block-size", 0, true, OPT_BLOCK_SIZE},
    {"zstd-level", 0, true, OPT_ZSTD_LEVEL},
    {"json", 0, false, OPT_JSON},
    {"quiet", 'q', false, OPT_QUIET},
    {NULL, 0, false, 0},
};

/* ------------------------------------------------------------ progress
 * "read   [#######.......]  45.0%  312 MB/s  ETA 12 s" on a terminal. */

typedef struct conv_progress {
    bool on, drawn;
    char phase[16];
    double phase_start, last_draw;
    uint64_t input_bytes;
} conv_progress;

static void conv_progress_cb(void *ctx, const char *phase, double f)
{
    conv_progress *p = ctx;
    if (!p->on) return;
    if (!(f >= 0.0)) f = 0.0;
    if (f > 1.0) f = 1.0;
    const double now = cli_now();
    if (strncmp(p->phase, phase, sizeof p->phase - 1) != 0) {
        snprintf(p->phase, sizeof p->phase, "%s", phase);
        p->phase_start = now;
        p->last_draw = 0;
    }
    if (now - p->last_draw < 0.1 && f < 1.0) return;
    p->last_draw = now;
    const double el = now - p->phase_start;
    enum { W = 24 };
    char bar[W + 1];
    const int full = (int)(f * W + 0.5);
    for (int i = 0; i < W; i++) bar[i] = i < full ? '#' : '.';
    bar[W] = '\0';
    char rate[64] = "";
    if ((strcmp(phase, "read") == 0 || strcmp(phase, "ids") == 0) && el > 0 && p->input_bytes)
        snprintf(rate, sizeof rate, "  %s", cli_rate(f * (double)p->input_bytes, el).s);
    char eta[64] = "";
    if (f > 0.001 && f < 1.0 && el > 0.5)
        snprintf(eta, sizeof eta, "  ETA %s", cli_seconds(el * (1.0 - f) / f).s);
    fprintf(stderr, "\r\033[K%-6s [%s] %5.1f%%%s%s", phase, bar, f * 100.0, rate, eta);
    fflush(stderr);
    p->drawn = true;
}

static void conv_progress_end(conv_progress *p)
{
    if (p->on && p->drawn) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    p->drawn = false;
}

/* ------------------------------------------------------------ summary */

static double edge_rate(const sg_convert_report *r, double total)
{
    return total > 0 ? (double)r->edges_read / total : 0.0;
}

static void print_summary(const char *path, const sg_convert_options *o,
                          const sg_convert_report *r, double total)
{
    printf("converted %" PRIu64 " file%s (%s) into %s\n", r->files, r->files == 1 ? "" : "s",
           cli_bytes(r->input_bytes).s, path);
    if (r->lines)
        printf("  lines                  %s (%s comments or headers)\n", cli_count(r->lines).s,
               cli_count(r->comments).s);
    printf("  edges read             %s\n", cli_count(r->edges_read).s);
    printf("  self-loops dropped     %s\n", cli_count(r->self_loops).s);
    printf("  duplicates dropped     %s (the lightest of each repeated edge kept)\n",
           cli_count(r->duplicates).s);
    printf("  vertices               %s%s\n", cli_count(r->n_vertices).s,
           o->ids == SG_IDS_COMPACT ? " (renumbered; original ids kept in the store)" : "");
    if (o->directed)
        printf("  directed edges         %s\n", cli_count(r->n_edges).s);
    else
        printf("  undirected edges       %s (%s directed edges stored)\n",
               cli_count(r->n_edges / 2).s, cli_count(r->n_edges).s);
    printf("  weights                %s%s\n",
           r->weight_type == SG_WEIGHT_F32 ? "float32" : "uint32",
           r->negative_weights ? " (some negative: flagged in the manifest)" : "");
    if (r->external)
        printf("  memory                 external: %s partitions, %s of run files; peak %s\n",
               cli_count(r->partitions).s, cli_bytes(r->run_bytes).s, cli_bytes(r->peak_bytes).s);
    else
        printf("  memory                 in memory; peak %s\n", cli_bytes(r->peak_bytes).s);
    printf("  time                   read %s, sort %s, write %s; total %s (%.3g edges/s)\n",
           cli_seconds(r->seconds_read).s, cli_seconds(r->seconds_sort).s,
           cli_seconds(r->seconds_write).s, cli_seconds(total).s, edge_rate(r, total));
    printf("  store                  %s\n", path);
}

static void print_json(const char *path, const sg_convert_options *o, const sg_convert_report *r,
                       double total)
{
    cli_json j;
    cli_json_begin(&j, stdout);
    cli_json_str(&j, "command", "convert");
    cli_json_str(&j, "path", path);
    cli_json_bool(&j, "directed", o->directed);
    cli_json_str(&j, "ids", o->ids == SG_IDS_COMPACT ? "compact" : "keep");
    cli_json_str(&j, "weights", o->weights == SG_WEIGHTS_UNIT     ? "unit"
                                : o->weights == SG_WEIGHTS_RANDOM ? "random"
                                                                  : "keep");
    cli_json_u64(&j, "files", r->files);
    cli_json_u64(&j, "input_bytes", r->input_bytes);
    cli_json_u64(&j, "lines", r->lines);
    cli_json_u64(&j, "comments", r->comments);
    cli_json_u64(&j, "edges_read", r->edges_read);
    cli_json_u64(&j, "self_loops", r->self_loops);
    cli_json_u64(&j, "duplicates", r->duplicates);
    cli_json_u64(&j, "n_vertices", r->n_vertices);
    cli_json_u64(&j, "n_edges", r->n_edges);
    if (o->directed)
        cli_json_null(&j, "undirected_edges");
    else
        cli_json_u64(&j, "undirected_edges", r->n_edges / 2);
    cli_json_str(&j, "weight_type", r->weight_type == SG_WEIGHT_F32 ? "f32" : "u32");
    cli_json_bool(&j, "negative_weights", r->negative_weights);
    cli_json_bool(&j, "external", r->external);
    cli_json_u64(&j, "partitions", r->partitions);
    cli_json_u64(&j, "run_bytes", r->run_bytes);
    cli_json_u64(&j, "peak_bytes", r->peak_bytes);
    cli_json_u64(&j, "mem_bytes", o->mem_bytes);
    cli_json_num(&j, "seconds_read", r->seconds_read);
    cli_json_num(&j, "seconds_sort", r->seconds_sort);
    cli_json_num(&j, "seconds_write", r->seconds_write);
    cli_json_num(&j, "seconds_total", total);
    cli_json_num(&j, "edges_per_second", edge_rate(r, total));
    cli_json_end(&j);
}

/* ------------------------------------------------------------ command */

static bool parse_weights(cli_parser *p, sg_convert_options *o)
{
    const char *v = p->value;
    if (strcmp(v, "keep") == 0) {
        o->weights = SG_WEIGHTS_KEEP;
        return true;
    }
    if (strcmp(v, "unit") == 0) {
        o->weights = SG_WEIGHTS_UNIT;
        return true;
    }
    uint64_t max;
    if (strncmp(v, "random:", 7) == 0 && cli_parse_u64(v + 7, &max) && max >= 1 &&
        max <= UINT32_MAX) {
        o->weights = SG_WEIGHTS_RANDOM;
        o->random_max = (uint32_t)max;
        return true;
    }
    if (strcmp(v, "random") == 0) {
        o->weights = SG_WEIGHTS_RANDOM;
        o->random_max = 0;
        return true;
    }
    cli_usage_error(p->cmd, p->usage,
                    "--weights: '%s' is not keep, unit or random:MAX (MAX in 1..4294967295)", v);
    return false;
}

int cmd_convert(int argc, char **argv, const cli_env *env)
{
    static const char cmd[] = "convert";
    if (cli_wants_help(argc, argv)) {
        convert_help();
        return CLI_EXIT_OK;
    }
    sg_convert_options o;
    memset(&o, 0, sizeof o);
    o.seed = 1;
    const char *out = NULL;
    bool json = false, quiet = false, dir_set = false, undir_set = false;
    uint64_t v;
    const char **inputs = calloc((size_t)argc + 1, sizeof *inputs);
    if (!inputs) return cli_fail(cmd, "out of memory");
    int n_in = 0;
    int rc = CLI_EXIT_OK;

    cli_parser p;
    cli_parser_init(&p, cmd, convert_usage, convert_opts, argc, argv);
    for (int id; (id = cli_next(&p)) != CLI_END;) {
        switch (id) {
        case CLI_BAD: rc = CLI_EXIT_USAGE; goto done;
        case CLI_POSITIONAL: inputs[n_in++] = p.value; break;
        case OPT_OUTPUT: out = p.value; break;
        case OPT_FORMAT:
            o.format = sg_input_format_parse(p.value);
            if (o.format == SG_INPUT_AUTO) {
                rc = cli_usage_error(cmd, convert_usage,
                                     "--format: unknown format '%s' (el, wel, gr, mtx, bin32, "
                                     "sg, wsg, egr)",
                                     p.value);
                goto done;
            }
            break;
        case OPT_DIRECTED: o.directed = true; dir_set = true; break;
        case OPT_UNDIRECTED: o.directed = false; undir_set = true; break;
        case OPT_WEIGHTS:
            if (!parse_weights(&p, &o)) { rc = CLI_EXIT_USAGE; goto done; }
            break;
        case OPT_SEED:
            if (!cli_value_u64(&p, 0, UINT64_MAX, &o.seed)) { rc = CLI_EXIT_USAGE; goto done; }
            break;
        case OPT_IDS:
            if (strcmp(p.value, "keep") == 0) o.ids = SG_IDS_KEEP;
            else if (strcmp(p.value, "compact") == 0) o.ids = SG_IDS_COMPACT;
            else {
                rc = cli_usage_error(cmd, convert_usage, "--ids: '%s' is not keep or compact",
                                     p.value);
                goto done;
            }
            break;
        case OPT_MEM:
            if (!cli_value_size(&p, 4096, UINT64_MAX, &o.mem_bytes)) { rc = CLI_EXIT_USAGE; goto done; }
            break;
        case OPT_TMP_DIR: o.tmp_dir = p.value; break;
        case OPT_THREADS:
            if (!cli_value_int(&p, 0, 4096, &o.threads)) { rc = CLI_EXIT_USAGE; goto done; }
            o.store.threads = o.threads;
            break;
        case OPT_FORCE: o.store.force = true; break;
        case OPT_SHARD_SIZE:
            if (!cli_value_size(&p, 64, UINT64_MAX, &o.store.shard_bytes)) { rc = CLI_EXIT_USAGE; goto done; }
            break;
        case OPT_BLOCK_SIZE:
            if (!cli_value_size(&p, 64, 64u << 20, &v)) { rc = CLI_EXIT_USAGE; goto done; }
            o.store.block_bytes = (uint32_t)v;
            break;
        case OPT_ZSTD_LEVEL:
            if (!cli_value_int(&p, 1, 22, &o.store.zstd_level)) { rc = CLI_EXIT_USAGE; goto done; }
            break;
        case OPT_JSON: json = true; break;
        case OPT_QUIET: quiet = true; break;
        }
    }
    if (dir_set && undir_set) {
        rc = cli_usage_error(cmd, convert_usage, "--directed and --undirected exclude each other");
        goto done;
    }
    if (n_in == 0) {
        rc = cli_usage_error(cmd, convert_usage, "missing the input file(s)");
        goto done;
    }
    if (!out) {
        rc = cli_usage_error(cmd, convert_usage, "missing the output store (-o STORE)");
        goto done;
    }
    if (!out[0]) {
        rc = cli_usage_error(cmd, convert_usage, "the output path is empty");
        goto done;
    }
    if (o.format == SG_INPUT_AUTO)
        for (int i = 0; i < n_in; i++)
            if (sg_input_format_of_path(inputs[i]) == SG_INPUT_AUTO) {
                rc = cli_usage_error(cmd, convert_usage,
                                     "%s: unknown extension; give --format (el, wel, gr, mtx, "
                                     "bin32, sg, wsg, egr)",
                                     inputs[i]);
                goto done;
            }

    char *creator = cli_command_line(env->full_argc, env->full_argv);
    if (!creator) {
        rc = cli_fail(cmd, "out of memory");
        goto done;
    }
    o.store.creator = creator;

    conv_progress bar;
    memset(&bar, 0, sizeof bar);
    bar.on = !quiet && isatty(STDERR_FILENO);
    for (int i = 0; i < n_in; i++) {
        struct stat sb;
        if (stat(inputs[i], &sb) == 0) bar.input_bytes += (uint64_t)sb.st_size;
    }
    o.progress = conv_progress_cb;
    o.progress_ctx = &bar;

    sg_convert_report rep;
    memset(&rep, 0, sizeof rep);
    sg_error err = {0};
    const double t0 = cli_now();
    sg_status st = sg_convert(inputs, n_in, out, &o, &rep, &err);
    const double total = cli_now() - t0;
    conv_progress_end(&bar);
    free(creator);
    o.store.creator = NULL;
    if (st != SG_OK) {
        rc = cli_fail_status(cmd, st, &err);
        goto done;
    }
    if (json)
        print_json(out, &o, &rep, total);
    else if (!quiet)
        print_summary(out, &o, &rep, total);
done:
    free(inputs);
    return rc;
}

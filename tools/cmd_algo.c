/* spillgraph mst, sssp, bfs, cluster — the algorithm commands.
 *
 *   spillgraph mst STORE [-o FOREST]
 *   spillgraph sssp STORE --source V|random[:SEED] [-o DIST] [--parents FILE] [--delta D]
 *   spillgraph bfs STORE --source V|random[:SEED] [-o LEVELS] [--parents FILE] [--alpha A] [--beta B]
 *   spillgraph cluster STORE (--k K | --threshold W) -o LABELS
 *
 * Each loads the store into memory (bfs without weights), runs the
 * algorithm on the chosen backend, optionally checks the result against
 * the serial oracle (--verify) and writes the result files (.txt or .bin by
 * extension). The library measures the phases (load, preprocess, compute,
 * write); this file parses options, draws the progress bar and prints the
 * summary or one JSON object. docs/cli.md, "Algorithms", is the guide. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_util.h"

enum {
    OPT_OUTPUT = 1,
    OPT_BACKEND,
    OPT_THREADS,
    OPT_JSON,
    OPT_VERIFY,
    OPT_FORCE,
    OPT_QUIET,
    OPT_SOURCE,
    OPT_PARENTS,
    OPT_DELTA,
    OPT_ALPHA,
    OPT_BETA,
    OPT_K,
    OPT_THRESHOLD,
    OPT_ORIGINAL_IDS,
    OPT_DEVICE_MEM,
    OPT_DEVICE,
    OPT_HOST_MEM,
    OPT_SPLIT,
    OPT_METHOD,
    OPT_SEARCHES,
};

#define COMMON_OPTS                                                                         \
    {"output", 'o', true, OPT_OUTPUT}, {"backend", 0, true, OPT_BACKEND},                   \
        {"threads", 't', true, OPT_THREADS}, {"json", 0, false, OPT_JSON},                  \
        {"verify", 0, false, OPT_VERIFY}, {"force", 'f', false, OPT_FORCE},                 \
        {"quiet", 'q', false, OPT_QUIET}, {"original-ids", 0, false, OPT_ORIGINAL_IDS},     \
        {"device-mem", 0, true, OPT_DEVICE_MEM}, {"device", 0, true, OPT_DEVICE},          \
        {"host-mem", 0, true, OPT_HOST_MEM}, {"split", 0, true, OPT_SPLIT}

#define COMMON_USAGE "         [--backend auto|cpu|gpu|hybrid] [--threads N] [--device-mem SIZE]\n" \
                     "         [--device N] [--host-mem auto|plain|pinned|managed] [--split VX,VA,VW]\n" \
                     "         [--verify] [--force] [--original-ids] [--json] [--quiet]"

#define COMMON_HELP                                                                        \
    "  --backend B        auto (default: gpu when a GPU is present and the graph\n"       \
    "                     fits the device budget, hybrid when it does not but the\n"     \
    "                     working arrays do, else cpu), cpu, gpu or hybrid (the\n"      \
    "                     planner keeps prefixes of X, A, W on the device; the GPU\n"    \
    "                     reads the rest from host memory; docs/plan.md)\n"              \
    "  --threads N        worker threads (default: OpenMP's, OMP_NUM_THREADS)\n"           \
    "  --device-mem SIZE  device memory budget (K, M, G, T suffixes; default: the\n"      \
    "                     GPU's free memory less max(256M, 3%%)); every device\n"          \
    "                     allocation counts against it\n"                                 \
    "  --device N         the GPU to use (default 0; spillgraph devices lists them)\n"    \
    "  --host-mem KIND    host memory of the graph: auto (default: plain, or for a\n"     \
    "                     graph over the device budget managed when it fits under\n"    \
    "                     the device's free memory beyond the budget, else pinned),\n"  \
    "                     plain, pinned or managed\n"                                    \
    "  --split VX,VA,VW   hybrid: keep the offsets of the first VX vertices and the\n"  \
    "                     lists (A, W) of the first VA, VW on the device instead of\n"  \
    "                     the planner's choice (experiments)\n"                          \
    "  --verify           check the result against the serial oracle; a difference\n"     \
    "                     is an error (exit 1) and nothing is written\n"                    \
    "  --force            replace output files that exist\n"                               \
    "  --original-ids     name vertices by their original ids (a store converted\n"        \
    "                     with --ids compact): --source, the summary and text\n"          \
    "                     outputs (\"ORIG VALUE\" lines) use them; .bin keeps\n"          \
    "                     internal ids\n"                                                 \
    "  --json             print the summary as one JSON object\n"                          \
    "  --quiet            no progress bar and no text summary\n"                           \
    "  -h, --help         show this help\n"                                                \
    "\n"                                                                                   \
    "Output files are text (one line per vertex or edge) when they end in .txt,\n"         \
    "binary (docs/format.md, \"Result files\") when they end in .bin.\n"                     \
    "TEPS = directed edges stored / compute seconds.\n"

#define SEARCHES_HELP                                                                      \
    "  --searches K       K searches from roots drawn from --source random:SEED\n"          \
    "                     (seeds SEED, SEED+1, ..., distinct vertices; Graph500 runs\n"      \
    "                     64), on the graph loaded once: the result memory, the\n"           \
    "                     graph's device part and SSSP's light index serve every\n"         \
    "                     search; prints each search and the compute time's min,\n"        \
    "                     median, mean and max (default 1; not with -o, --parents)\n"

/* ------------------------------------------------------------ the frame */

typedef struct algo {
    const char *cmd;
    const char *usage;
    /* options */
    const char *store;
    const char *out;
    const char *parents;
    sg_backend backend;
    int threads;
    bool json, verify, force, quiet;
    bool original_ids;        /* --original-ids */
    uint64_t device_mem;      /* --device-mem (0 = automatic) */
    int device;               /* --device */
    sg_mem_kind host_mem;     /* --host-mem */
    bool force_split;         /* --split */
    uint64_t split[3];
    /* what the run made */
    cli_progress bar;
    sg_run *run;
    sg_graph *g;
    sg_graph_info info;
    double t_start;
    double verify_seconds;
    const char *oracle;       /* set when verified */
    uint64_t searches;        /* --searches (bfs, sssp): compute is their sum */
    sg_memo memo;             /* bfs, sssp: the store's memo (src/memo.c) */
    bool memo_loaded;
} algo;

static void algo_init(algo *a, const char *cmd, const char *usage)
{
    memset(a, 0, sizeof *a);
    a->cmd = cmd;
    a->usage = usage;
    a->backend = SG_BACKEND_AUTO;
    a->host_mem = SG_MEM_AUTO;
    a->searches = 1;
}

static void algo_free(algo *a)
{
    cli_progress_end(&a->bar);
    sg_graph_free(a->g);
    sg_run_free(a->run);
    a->g = NULL;
    a->run = NULL;
}

/* A real number; negative values only when allowed. */
static bool value_double(cli_parser *p, bool allow_negative, double *out)
{
    char *end = NULL;
    const double v = strtod(p->value, &end);
    if (!p->value[0] || !end || *end || !isfinite(v)) {
        cli_usage_error(p->cmd, p->usage, "--%s: '%s' is not a number", p->spelled, p->value);
        return false;
    }
    if (!allow_negative && v < 0) {
        cli_usage_error(p->cmd, p->usage, "--%s: %s is negative", p->spelled, p->value);
        return false;
    }
    *out = v;
    return true;
}

/* 1: a common option or the STORE, parsed; 0: not one; -1: a usage error
 * was printed. */
static int common_option(int id, cli_parser *p, algo *a)
{
    switch (id) {
    case CLI_POSITIONAL:
        if (a->store) {
            cli_usage_error(a->cmd, a->usage, "unexpected argument '%s' (one STORE only)",
                            p->value);
            return -1;
        }
        a->store = p->value;
        return 1;
    case OPT_OUTPUT: a->out = p->value; return 1;
    case OPT_BACKEND:
        if (!sg_backend_parse(p->value, &a->backend)) {
            cli_usage_error(a->cmd, a->usage,
                            "--backend: unknown backend '%s' (auto, cpu, gpu, hybrid)", p->value);
            return -1;
        }
        return 1;
    case OPT_THREADS: return cli_value_int(p, 0, 4096, &a->threads) ? 1 : -1;
    case OPT_JSON: a->json = true; return 1;
    case OPT_VERIFY: a->verify = true; return 1;
    case OPT_FORCE: a->force = true; return 1;
    case OPT_QUIET: a->quiet = true; return 1;
    case OPT_ORIGINAL_IDS: a->original_ids = true; return 1;
    case OPT_DEVICE_MEM: return cli_value_size(p, 1, UINT64_MAX, &a->device_mem) ? 1 : -1;
    case OPT_DEVICE: return cli_value_int(p, 0, 1024, &a->device) ? 1 : -1;
    case OPT_HOST_MEM: {
        if (cli_parse_mem_kind(p->value, &a->host_mem)) return 1;
        cli_usage_error(a->cmd, a->usage,
                        "--host-mem: unknown kind '%s' (auto, plain, pinned, managed)", p->value);
        return -1;
    }
    case OPT_SPLIT: {
        unsigned long long v[3];
        int used = 0;
        if (sscanf(p->value, "%llu,%llu,%llu%n", &v[0], &v[1], &v[2], &used) != 3 ||
            p->value[used] != '\0') {
            cli_usage_error(a->cmd, a->usage,
                            "--split: '%s' is not three vertex counts VX,VA,VW", p->value);
            return -1;
        }
        a->force_split = true;
        for (int k = 0; k < 3; k++) a->split[k] = v[k];
        return 1;
    }
    }
    return 0;
}

/* An output path: a usage error unless it ends in .txt or .bin; a failure
 * when it exists without --force (before any work is done). */
static int check_output(const algo *a, const char *opt, const char *path)
{
    if (!path) return CLI_EXIT_OK;
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    if (!dot || dot == base || (strcmp(dot, ".txt") != 0 && strcmp(dot, ".bin") != 0))
        return cli_usage_error(a->cmd, a->usage,
                               "%s: '%s' must end in .txt (text) or .bin (binary)", opt, path);
    struct stat sb;
    if (!a->force && lstat(path, &sb) == 0)
        return cli_fail(a->cmd, "%s already exists (use --force to replace it)", path);
    return CLI_EXIT_OK;
}

static int check_outputs(const algo *a, bool out_required)
{
    if (!a->store) return cli_usage_error(a->cmd, a->usage, "missing the STORE to read");
    if (out_required && !a->out)
        return cli_usage_error(a->cmd, a->usage, "missing the output file (-o FILE)");
    if (a->out && a->parents && strcmp(a->out, a->parents) == 0)
        return cli_usage_error(a->cmd, a->usage, "-o and --parents name the same file '%s'",
                               a->out);
    int rc = check_output(a, "-o", a->out);
    if (rc == CLI_EXIT_OK) rc = check_output(a, "--parents", a->parents);
    return rc;
}

/* --source V or --source random[:SEED]. */
typedef struct source_arg {
    bool random;     /* draw a vertex with an edge (Graph500 style) */
    uint64_t value;  /* the vertex, or the seed when random */
} source_arg;

/* The source vertex against the store's vertex count (read from the
 * manifest, before the graph is loaded). */
static int check_source(const algo *a, const source_arg *src)
{
    const uint64_t source = src->value;
    sg_store *s = NULL;
    sg_error err = {0};
    const sg_status st = sg_store_open(a->store, &s, &err);
    if (st != SG_OK) return cli_fail_status(a->cmd, st, &err);
    sg_store_info in;
    sg_store_get_info(s, &in);
    sg_store_close(s);
    if (in.n_vertices == 0)
        return cli_fail(a->cmd, "%s has no vertices: there is no source vertex to start from",
                        a->store);
    if (!src->random && !a->original_ids && source >= in.n_vertices)
        return cli_fail(a->cmd,
                        "--source %" PRIu64 " is out of range: %s has %" PRIu64
                        " vertices (0..%" PRIu64 ")",
                        source, a->store, in.n_vertices, in.n_vertices - 1);
    return CLI_EXIT_OK;
}

/* BFS's and SSSP's memo of the store (an earlier search's levels or
 * rounds, for the plan's latency term), unless SPILLGRAPH_MEMO=off. A memo
 * file that cannot be read is named on stderr and left out; no store or no
 * cache directory leaves it out silently (the store's own error follows). */
static void memo_load(algo *a)
{
    if (!sg_memo_enabled()) return;
    sg_error err = {0};
    const sg_status st = sg_memo_load(a->store, &a->memo, &err);
    if (st == SG_OK)
        a->memo_loaded = true;
    else if (st == SG_E_FORMAT)
        fprintf(stderr, "%s: note: the plan leaves out the memo: %s\n", a->cmd, err.msg);
}

/* Records a search's levels (BFS) or rounds (SSSP) in the store's memo; a
 * failure is a note on stderr (the result stands). */
static void memo_record(const algo *a, sg_plan_algo pa, uint64_t steps, uint64_t source)
{
    if (!sg_memo_enabled() || steps == 0) return;
    char note[96];
    snprintf(note, sizeof note, "source %" PRIu64 ", %s", source,
             sg_backend_name(sg_run_backend(a->run)));
    sg_error err = {0};
    if (sg_memo_record(a->store, pa, steps, note, &err) != SG_OK && !a->quiet)
        fprintf(stderr, "%s: note: the memo was not recorded: %s\n", a->cmd, err.msg);
}

/* Makes the run (the backend is resolved, or refused, here) and loads the
 * graph; `prepare`: the first search's result, made ready while it loads
 * (with parents when --parents is given), on runs that may search on a GPU
 * (the CPU's BFS measured slower with its levels faulted in by the helper
 * thread than by its own threads: docs/benchmarks.md); `narrow`: W held in
 * 24 bits where the forest will run hybrid (sg_graph_options). */
static int algo_open(algo *a, bool weights, sg_prepare prepare, sg_narrow narrow)
{
    a->t_start = cli_now();
    cli_progress_init(&a->bar, !a->quiet && !a->json);
    if (prepare == SG_PREPARE_BFS || prepare == SG_PREPARE_SSSP) memo_load(a);
    const sg_run_options ro = {.backend = a->backend,
                               .threads = a->threads,
                               .progress = cli_progress_cb,
                               .progress_ctx = &a->bar,
                               .device = a->device,
                               .device_mem = a->device_mem,
                               .force_split = a->force_split,
                               .split = {a->split[0], a->split[1], a->split[2]},
                               .plan_steps = {a->memo.steps[0], a->memo.steps[1]}};
    sg_error err = {0};
    sg_status st = sg_run_create(&ro, &a->run, &err);
    if (st != SG_OK) return cli_fail_status(a->cmd, st, &err);
    const sg_graph_options go = {
        .mem = a->host_mem,
        .no_weights = !weights,
        .original_ids = a->original_ids,
        .prepare = sg_run_backend(a->run) == SG_BACKEND_CPU ? SG_PREPARE_NONE : prepare,
        .prepare_parents = a->parents != NULL,
        .narrow_weights = narrow,
        .forest = prepare == SG_PREPARE_FOREST};
    st = sg_graph_open(a->run, a->store, &go, &a->g, &err);
    if (st != SG_OK) {
        cli_progress_end(&a->bar);
        return cli_fail_status(a->cmd, st, &err);
    }
    sg_graph_get_info(a->g, &a->info);
    if (a->original_ids) {
        if (!a->info.has_original_ids) {
            cli_progress_end(&a->bar);
            return cli_fail(a->cmd,
                            "--original-ids: %s keeps no original ids (a store converted with "
                            "--ids compact does)", a->store);
        }
        sg_run_name_vertices(a->run, sg_graph_original_ids(a->g), a->info.n_vertices);
    }
    return CLI_EXIT_OK;
}

static int lib_fail(algo *a, sg_status st, const sg_error *err)
{
    cli_progress_end(&a->bar);
    return cli_fail_status(a->cmd, st, err);
}

/* After a verify call: the oracle's name on success, the mismatch as a
 * failure. */
static int verified(algo *a, const char *oracle, sg_status st, const sg_error *err, double t0)
{
    a->verify_seconds += cli_now() - t0; /* summed over --searches */
    if (st == SG_OK) {
        a->oracle = oracle;
        return CLI_EXIT_OK;
    }
    cli_progress_end(&a->bar);
    if (st == SG_E_MISMATCH)
        return cli_fail(a->cmd, "verification against %s failed: %s", oracle, err->msg);
    return cli_fail(a->cmd, "verification against %s could not run: %s", oracle,
                    err->msg[0] ? err->msg : sg_status_name(st));
}

static double compute_seconds(const algo *a) { return sg_run_seconds(a->run, SG_PHASE_COMPUTE); }

/* Per search: the edges stored over the mean compute time of a search. */
static double teps(const algo *a)
{
    const double s = compute_seconds(a);
    return s > 0 ? (double)a->info.n_edges * (double)a->searches / s : NAN;
}

static const char *weight_name(const sg_graph_info *in)
{
    if (!in->has_weights)
        return in->weight_type == SG_WEIGHT_F32 ? "f32 (not loaded)" : "u32 (not loaded)";
    if (in->narrow_weights) return "u32 (held in 24 bits for the hybrid forest)";
    return in->weight_type == SG_WEIGHT_F32 ? "f32" : "u32";
}

/* ------------------------------------------------------------ printing */

/* A counter of the last run by name, 0 when it has none. */
static uint64_t run_counter(const sg_run *r, const char *name)
{
    for (unsigned i = 0; i < sg_run_counter_count(r); i++) {
        uint64_t v = 0;
        const char *k = sg_run_counter(r, i, &v);
        if (k && strcmp(k, name) == 0) return v;
    }
    return 0;
}

/* Bytes the run moved between host and device: the graph's device part
 * copied at load, the list entries the kernels read from host memory, what
 * the CPU threads' share sent up (SSSP's light index) and the results
 * copied back. */
static uint64_t pcie_bytes(const algo *a, const sg_device_report *d)
{
    return d->upload_bytes + run_counter(a->run, "host_list_bytes") +
           run_counter(a->run, "cpu_upload_bytes") + run_counter(a->run, "download_bytes");
}

static void text_head(const algo *a, const char *what)
{
    printf("%s of %s\n", what, a->store);
    printf("  graph      %s vertices, %s directed edges stored, %s, weights %s\n",
           cli_count(a->info.n_vertices).s, cli_count(a->info.n_edges).s,
           a->info.directed ? "directed" : "undirected", weight_name(&a->info));
    printf("  backend    %s, %d threads\n", sg_backend_name(sg_run_backend(a->run)),
           sg_run_threads(a->run));
    sg_device_report d;
    sg_run_device_report(a->run, &d);
    if (d.fallback[0]) printf("  fallback   cpu: %s\n", d.fallback);
    if (d.used && sg_run_backend(a->run) != SG_BACKEND_CPU) {
        printf("  device     GPU %d (%s), peak %s of a %s budget", d.index, d.name,
               cli_bytes(d.peak_bytes).s, cli_bytes(d.budget).s);
        if (d.upload_bytes && d.upload_seconds > 0)
            printf(", graph copied %s at %.1f GB/s", cli_bytes(d.upload_bytes).s,
                   (double)d.upload_bytes / d.upload_seconds / 1e9);
        printf("\n");
        printf("  PCIe       %s moved (graph copy, list reads from host memory, results)\n",
               cli_bytes(pcie_bytes(a, &d)).s);
    }
    sg_plan pl;
    double measured = 0;
    if (sg_run_plan(a->run, &pl, &measured)) {
        const uint64_t n = a->info.n_vertices;
        const bool w = a->info.has_weights;
        if (pl.split[0] >= n && pl.split[1] >= n && (!w || pl.split[2] >= n)) {
            printf("  placement  the whole graph on the device\n");
        } else {
            char wpart[64] = ""; /* W's split, when W is loaded */
            if (w) snprintf(wpart, sizeof wpart, " (A) and %s (W)", cli_count(pl.split[2]).s);
            printf("  placement  on the device: offsets of %s, lists of %s%s of %s vertices;\n"
                   "             the rest in %s host memory\n",
                   cli_count(pl.split[0]).s, cli_count(pl.split[1]).s, wpart, cli_count(n).s,
                   a->info.mem == SG_MEM_MANAGED ? "managed" : "pinned");
        }
        printf("  predicted  %s (upload %s), measured %s on the device;\n"
               "             rates: %s\n",
               cli_seconds(pl.predicted_s).s, cli_seconds(pl.t_upload).s,
               cli_seconds(measured).s, pl.rates_origin);
        cli_rates_hint(pl.rates_origin, 13);
        if (pl.hint_degree_asc)
            printf("  hint       the lists spill and the graph has hubs: a copy in ascending\n"
                   "             degree order runs faster (spillgraph renumber %s -o COPY\n"
                   "             --order degree-asc; spillgraph plan says more)\n",
                   a->store);
    }
}

static void text_tail(const algo *a)
{
    const double total = cli_now() - a->t_start;
    printf("  time       load %s, preprocess %s, compute %s, write %s",
           cli_seconds(sg_run_seconds(a->run, SG_PHASE_LOAD)).s,
           cli_seconds(sg_run_seconds(a->run, SG_PHASE_PREPROCESS)).s,
           cli_seconds(compute_seconds(a)).s, cli_seconds(sg_run_seconds(a->run, SG_PHASE_WRITE)).s);
    if (a->oracle) printf(", verify %s", cli_seconds(a->verify_seconds).s);
    printf("; total %s\n", cli_seconds(total).s);
    const double t = teps(a);
    if (isfinite(t))
        printf("  rate       %.2f MTEPS (directed edges stored / compute time%s)\n", t / 1e6,
               a->searches > 1 ? " of a search" : "");
    else
        printf("  rate       - MTEPS (compute time too short to measure)\n");
    if (a->oracle) printf("verified against %s: ok\n", a->oracle);
}

static void text_outputs(const algo *a, const char *out_what)
{
    if (a->out) printf("  output     %s (%s)\n", a->out, out_what);
    if (a->parents) printf("  parents    %s\n", a->parents);
}

static void json_head(const algo *a, cli_json *j)
{
    cli_json_begin(j, stdout);
    cli_json_str(j, "command", a->cmd);
    cli_json_str(j, "graph", a->store);
    cli_json_u64(j, "n_vertices", a->info.n_vertices);
    cli_json_u64(j, "n_edges", a->info.n_edges);
    cli_json_bool(j, "directed", a->info.directed);
    cli_json_str(j, "weight_type", a->info.weight_type == SG_WEIGHT_F32 ? "f32" : "u32");
    cli_json_bool(j, "weights_loaded", a->info.has_weights);
    if (a->info.has_weights) cli_json_int(j, "weight_bits", a->info.narrow_weights ? 24 : 32);
    cli_json_str(j, "backend", sg_backend_name(sg_run_backend(a->run)));
    cli_json_int(j, "threads", sg_run_threads(a->run));
    sg_device_report d;
    sg_run_device_report(a->run, &d);
    if (d.fallback[0]) cli_json_str(j, "fallback", d.fallback);
    if (d.used) {
        cli_json_object(j, "device");
        cli_json_int(j, "index", d.index);
        cli_json_str(j, "name", d.name);
        cli_json_str(j, "module_loading", d.module_loading);
        cli_json_u64(j, "budget", d.budget);
        cli_json_u64(j, "peak_bytes", d.peak_bytes);
        cli_json_u64(j, "upload_bytes", d.upload_bytes);
        cli_json_num(j, "upload_seconds", d.upload_seconds);
        cli_json_num(j, "upload_gbps", d.upload_seconds > 0
                                           ? (double)d.upload_bytes / d.upload_seconds / 1e9
                                           : 0.0);
        cli_json_u64(j, "pcie_bytes", pcie_bytes(a, &d));
        cli_json_object_end(j);
    }
    cli_json_str(j, "host_mem", cli_mem_kind_name(a->info.mem));
    sg_plan pl;
    double measured = 0;
    if (sg_run_plan(a->run, &pl, &measured)) {
        cli_json_object(j, "plan");
        cli_json_plan(j, &pl);
        cli_json_num(j, "measured_s", measured);
        cli_json_object_end(j);
    }
    if (a->memo_loaded) {
        cli_json_object(j, "memo");
        cli_json_str(j, "path", a->memo.path);
        cli_json_u64(j, "bfs_levels", a->memo.steps[0]);
        cli_json_u64(j, "sssp_rounds", a->memo.steps[1]);
        cli_json_object_end(j);
    }
}

/* Ends the object: outputs, times, counters, TEPS, verification. */
static void json_tail(const algo *a, cli_json *j)
{
    if (a->out) cli_json_str(j, "output", a->out);
    else cli_json_null(j, "output");
    if (a->parents) cli_json_str(j, "parents", a->parents);
    cli_json_object(j, "seconds");
    for (int p = 0; p < SG_NPHASES; p++)
        cli_json_num(j, sg_phase_name((sg_phase)p), sg_run_seconds(a->run, (sg_phase)p));
    if (a->oracle) cli_json_num(j, "verify", a->verify_seconds);
    cli_json_num(j, "total", cli_now() - a->t_start);
    cli_json_object_end(j);
    cli_json_object(j, "counters");
    for (unsigned i = 0; i < sg_run_counter_count(a->run); i++) {
        uint64_t v = 0;
        const char *name = sg_run_counter(a->run, i, &v);
        cli_json_u64(j, name, v);
    }
    cli_json_object_end(j);
    cli_json_num(j, "teps", teps(a));
    if (a->oracle) {
        cli_json_bool(j, "verified", true);
        cli_json_str(j, "oracle", a->oracle);
    } else {
        cli_json_null(j, "verified");
    }
    cli_json_end(j);
}

/* Writes one result file through `write`, adding nothing when path is NULL. */
#define WRITE_RESULT(a, path, call)                                     \
    do {                                                                \
        if (path) {                                                     \
            sg_error werr_ = {0};                                       \
            sg_error *err = &werr_;                                     \
            const sg_status wst_ = (call);                              \
            if (wst_ != SG_OK) {                                        \
                rc = lib_fail((a), wst_, &werr_);                       \
                goto done;                                              \
            }                                                           \
        }                                                               \
    } while (0)

/* ================================================================ mst */

static const char mst_usage[] = "usage: spillgraph mst STORE [-o FOREST]\n" COMMON_USAGE;

static void mst_help(void)
{
    printf("%s\n"
           "\n"
           "Computes the minimum spanning forest of an undirected weighted store\n"
           "(Boruvka; ties broken by (weight, min(u,v), max(u,v)), so the forest is\n"
           "unique) and prints its edge count, trees and total weight.\n"
           "\n"
           "options:\n"
           "  -o, --output FOREST write the forest: FOREST.txt (\"u v w\" per edge,\n"
           "                     u < v, ordered by weight) or FOREST.bin\n"
           COMMON_HELP
           "--verify compares with Kruskal's forest (edge set, trees, total).\n"
           "\n"
           "example:\n"
           "  spillgraph mst g.sg -o forest.txt --verify\n",
           mst_usage);
}

static void print_weight_json(cli_json *j, const char *key, const sg_forest *f)
{
    if (f->weight_type == SG_WEIGHT_F32) cli_json_num(j, key, f->total);
    else cli_json_u64(j, key, f->total_u32);
}

static cli_str weight_text(const sg_forest *f)
{
    cli_str s;
    if (f->weight_type == SG_WEIGHT_F32) snprintf(s.s, sizeof s.s, "%.17g", f->total);
    else snprintf(s.s, sizeof s.s, "%" PRIu64, f->total_u32);
    return s;
}

int cmd_mst(int argc, char **argv, const cli_env *env)
{
    (void)env;
    static const cli_option opts[] = {COMMON_OPTS, {NULL, 0, false, 0}};
    if (cli_wants_help(argc, argv)) {
        mst_help();
        return CLI_EXIT_OK;
    }
    algo a;
    algo_init(&a, "mst", mst_usage);
    cli_parser p;
    cli_parser_init(&p, a.cmd, a.usage, opts, argc, argv);
    for (int id; (id = cli_next(&p)) != CLI_END;) {
        if (id == CLI_BAD) return CLI_EXIT_USAGE;
        const int r = common_option(id, &p, &a);
        if (r < 0) return CLI_EXIT_USAGE;
    }
    int rc = check_outputs(&a, false);
    if (rc != CLI_EXIT_OK) return rc;

    sg_forest *f = NULL;
    sg_error err = {0};
    if ((rc = algo_open(&a, true, SG_PREPARE_FOREST, SG_NARROW_HYBRID_FOREST)) != CLI_EXIT_OK)
        goto done;
    sg_status st = sg_mst(a.run, a.g, &f, &err);
    if (st != SG_OK) {
        rc = lib_fail(&a, st, &err);
        goto done;
    }
    if (a.verify) {
        const double t0 = cli_now();
        st = sg_verify_forest(a.g, f, &err);
        if ((rc = verified(&a, "Kruskal", st, &err, t0)) != CLI_EXIT_OK) goto done;
    }
    WRITE_RESULT(&a, a.out, sg_forest_write(a.run, f, a.out, a.force, err));
    cli_progress_end(&a.bar);

    if (a.json) {
        cli_json j;
        json_head(&a, &j);
        cli_json_object(&j, "result");
        cli_json_u64(&j, "forest_edges", f->n_edges);
        cli_json_u64(&j, "trees", f->n_trees);
        print_weight_json(&j, "total_weight", f);
        cli_json_object_end(&j);
        json_tail(&a, &j);
    } else if (!a.quiet) {
        text_head(&a, "minimum spanning forest");
        printf("  forest     %s edges, %s trees, total weight %s\n", cli_count(f->n_edges).s,
               cli_count(f->n_trees).s, weight_text(f).s);
        text_outputs(&a, "forest edges");
        text_tail(&a);
    }
done:
    sg_forest_free(f);
    algo_free(&a);
    return rc;
}

/* ================================================================ sssp */

static const char sssp_usage[] =
    "usage: spillgraph sssp STORE --source V|random[:SEED] [-o DIST] [--parents FILE] [--delta D]\n"
    "         [--method auto|delta|bellman-ford] [--searches K]\n" COMMON_USAGE;

static void sssp_help(void)
{
    printf("%s\n"
           "\n"
           "Single-source shortest paths by delta-stepping from vertex V, over\n"
           "non-negative weights (u32 distances are exact integers; f32 weights are\n"
           "summed in double). Prints the vertices reached and the largest distance.\n"
           "\n"
           "options:\n"
           "  -s, --source V     the source vertex, 0..n-1, or random[:SEED]: a vertex\n"
           "                     with an edge drawn from SEED (default 1), as\n"
           "                     Graph500 picks its roots (required)\n"
           "  -o, --output DIST  write the distances: DIST.txt (one per vertex, \"inf\"\n"
           "                     when unreached) or DIST.bin\n"
           "  --parents FILE     write a shortest-path tree: the parent of each vertex\n"
           "                     (-1 when unreached; the source's parent is itself)\n"
           "  --delta D          bucket width (default: chosen from weights and degrees;\n"
           "                     the gpu backend picks wider buckets than the cpu)\n"
           "  --method M         auto or delta (delta-stepping buckets, the default) or\n"
           "                     bellman-ford (edge-parallel, gpu backend only)\n"
           SEARCHES_HELP
           COMMON_HELP
           "--verify compares every distance with Dijkstra's and, with --parents, checks\n"
           "the tree.\n"
           "A hybrid search's round count goes to the store's memo in the cache\n"
           "directory; later plans add those rounds' latency (docs/plan.md;\n"
           "SPILLGRAPH_MEMO=off: no memo read or written).\n"
           "\n"
           "example:\n"
           "  spillgraph sssp g.sg --source 0 -o dist.txt --verify\n",
           sssp_usage);
}

/* A whole number (the range is checked against the store), or "random" /
 * "random:SEED" (seed 1 by default). */
static bool value_source(cli_parser *p, source_arg *out)
{
    if (strncmp(p->value, "random", 6) == 0 && (p->value[6] == '\0' || p->value[6] == ':')) {
        out->random = true;
        out->value = 1;
        if (p->value[6] == ':' && !cli_parse_u64(p->value + 7, &out->value)) {
            cli_usage_error(p->cmd, p->usage, "--source %s: the seed after 'random:' must be a whole number",
                            p->value);
            return false;
        }
        return true;
    }
    out->random = false;
    return cli_value_u64(p, 0, UINT64_MAX, &out->value);
}

/* The source vertex of a loaded graph: the one given, or one drawn. */
static int resolve_source(algo *a, const source_arg *src, uint32_t *out)
{
    sg_error err = {0};
    if (!src->random && a->original_ids) {
        const sg_status st = sg_graph_find_original(a->g, src->value, out, &err);
        return st == SG_OK ? CLI_EXIT_OK : lib_fail(a, st, &err);
    }
    if (!src->random) {
        *out = (uint32_t)src->value;
        return CLI_EXIT_OK;
    }
    const sg_status st = sg_graph_random_source(a->g, src->value, out, &err);
    return st == SG_OK ? CLI_EXIT_OK : lib_fail(a, st, &err);
}

/* A vertex as the person named it: its original id with --original-ids. */
static uint64_t shown_id(const algo *a, uint32_t v)
{
    const uint64_t *orig = a->original_ids ? sg_graph_original_ids(a->g) : NULL;
    return orig ? orig[v] : v;
}

/* ------------------------------------------------------------ --searches K
 *
 * K searches on the graph loaded once (Graph500 runs 64 BFS roots): the
 * roots are drawn from --source random:SEED with the seeds SEED, SEED + 1,
 * ... (a vertex drawn before is skipped), the first being the one a single
 * search from that seed takes; each search after the first writes into the
 * first's result (sg_bfs_into, sg_sssp_into), and on a GPU the graph's
 * device part (and SSSP's light index) stays where it is. */

#define SEARCHES_MAX 65536

typedef struct searches {
    uint64_t k;
    uint32_t *src;      /* the roots */
    double *compute;    /* each search's compute and preprocess seconds */
    double *preprocess;
    uint64_t *reached;
    double *extent;     /* deepest level, largest distance */
} searches;

static bool value_searches(cli_parser *p, algo *a)
{
    uint64_t k = 0;
    if (!cli_value_u64(p, 1, SEARCHES_MAX, &k)) return false;
    a->searches = k;
    return true;
}

/* The usage errors of --searches K > 1: outputs write one search, and the
 * roots are drawn. */
static int check_searches(const algo *a, const source_arg *src)
{
    if (a->searches <= 1) return CLI_EXIT_OK;
    if (!src->random)
        return cli_usage_error(a->cmd, a->usage,
                               "--searches %" PRIu64 " needs --source random[:SEED] (the roots "
                               "are drawn from the seed)", a->searches);
    if (a->out || a->parents)
        return cli_usage_error(a->cmd, a->usage,
                               "-o and --parents write one search's result: use them without "
                               "--searches");
    return CLI_EXIT_OK;
}

static void searches_free(searches *s)
{
    free(s->src);
    free(s->compute);
    free(s->preprocess);
    free(s->reached);
    free(s->extent);
    memset(s, 0, sizeof *s);
}

/* The roots of a loaded graph: the one --source names, or K drawn. */
static int searches_open(algo *a, const source_arg *src, searches *s)
{
    memset(s, 0, sizeof *s);
    const uint64_t k = a->searches;
    s->k = k;
    s->src = calloc(k, sizeof *s->src);
    s->compute = calloc(k, sizeof *s->compute);
    s->preprocess = calloc(k, sizeof *s->preprocess);
    s->reached = calloc(k, sizeof *s->reached);
    s->extent = calloc(k, sizeof *s->extent);
    if (!s->src || !s->compute || !s->preprocess || !s->reached || !s->extent) {
        cli_progress_end(&a->bar);
        return cli_fail(a->cmd, "out of memory for %" PRIu64 " searches", k);
    }
    int rc = resolve_source(a, src, &s->src[0]);
    if (rc != CLI_EXIT_OK || k == 1) return rc;
    /* Distinct roots; the seeds run on past a repeat, within a bound. */
    uint64_t got = 1, seed = src->value + 1;
    const uint64_t last = src->value + 64 * k + 4096;
    for (; got < k && seed != last; seed++) {
        uint32_t v = 0;
        sg_error err = {0};
        const sg_status st = sg_graph_random_source(a->g, seed, &v, &err);
        if (st != SG_OK) return lib_fail(a, st, &err);
        bool seen = false;
        for (uint64_t i = 0; i < got && !seen; i++) seen = s->src[i] == v;
        if (!seen) s->src[got++] = v;
    }
    if (got < k) {
        cli_progress_end(&a->bar);
        return cli_fail(a->cmd,
                        "--searches %" PRIu64 ": %s gave only %" PRIu64 " distinct roots in %" PRIu64
                        " draws (too few vertices with an edge)",
                        k, a->store, got, last - src->value);
    }
    return CLI_EXIT_OK;
}

/* Before and after search i of s->k: its compute and preprocess seconds;
 * the progress bar then draws it as step i of one bar over the K. */
static void search_mark(algo *a, const searches *s, uint64_t i, double *c0, double *p0)
{
    a->bar.step = i;
    a->bar.steps = s->k;
    *c0 = sg_run_seconds(a->run, SG_PHASE_COMPUTE);
    *p0 = sg_run_seconds(a->run, SG_PHASE_PREPROCESS);
}

static void search_done(const algo *a, searches *s, uint64_t i, double c0, double p0,
                        uint64_t reached, double extent)
{
    s->compute[i] = sg_run_seconds(a->run, SG_PHASE_COMPUTE) - c0;
    s->preprocess[i] = sg_run_seconds(a->run, SG_PHASE_PREPROCESS) - p0;
    s->reached[i] = reached;
    s->extent[i] = extent;
}

static int cmp_double(const void *x, const void *y)
{
    const double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* min, median, mean, max of v[0..k) (k >= 1). */
static void four_stats(const double *v, uint64_t k, double out[4])
{
    double *t = malloc(k * sizeof *t);
    double sum = 0;
    for (uint64_t i = 0; i < k; i++) sum += v[i];
    if (t) {
        memcpy(t, v, k * sizeof *t);
        qsort(t, k, sizeof *t, cmp_double);
        out[0] = t[0];
        out[1] = k % 2 ? t[k / 2] : (t[k / 2 - 1] + t[k / 2]) / 2;
        out[3] = t[k - 1];
        free(t);
    } else {
        out[0] = out[1] = out[3] = NAN;
    }
    out[2] = sum / (double)k;
}

/* The JSON member "searches" (K > 1): each root, what it reached, its
 * times, and the compute times' min, median, mean and max. */
static void json_searches(const algo *a, cli_json *j, const searches *s, const char *extent)
{
    if (s->k <= 1) return;
    cli_json_object(j, "searches");
    cli_json_u64(j, "count", s->k);
    double c[4], p[4];
    four_stats(s->compute, s->k, c);
    four_stats(s->preprocess, s->k, p);
    static const char *const names[4] = {"min", "median", "mean", "max"};
    cli_json_object(j, "compute");
    for (int q = 0; q < 4; q++) cli_json_num(j, names[q], c[q]);
    cli_json_object_end(j);
    cli_json_object(j, "preprocess");
    for (int q = 0; q < 4; q++) cli_json_num(j, names[q], p[q]);
    cli_json_object_end(j);
    cli_json_array(j, "each");
    for (uint64_t i = 0; i < s->k; i++) {
        cli_json_object(j, NULL);
        cli_json_u64(j, "source", shown_id(a, s->src[i]));
        cli_json_u64(j, "reached", s->reached[i]);
        cli_json_num(j, extent, s->extent[i]);
        cli_json_num(j, "compute", s->compute[i]);
        cli_json_num(j, "preprocess", s->preprocess[i]);
        cli_json_object_end(j);
    }
    cli_json_array_end(j);
    cli_json_object_end(j);
}

/* The text lines of K > 1 searches. */
static void text_searches(const algo *a, const searches *s, const char *extent)
{
    if (s->k <= 1) return;
    double c[4];
    four_stats(s->compute, s->k, c);
    printf("  searches   %" PRIu64 ", compute per search min %s, median %s, mean %s, max %s\n",
           s->k, cli_seconds(c[0]).s, cli_seconds(c[1]).s, cli_seconds(c[2]).s,
           cli_seconds(c[3]).s);
    double later = 0; /* the most preprocessing a search after the first took */
    for (uint64_t i = 1; i < s->k; i++) later = s->preprocess[i] > later ? s->preprocess[i] : later;
    if (s->preprocess[0] > 0 || later > 0)
        printf("             preprocess: the first search %s, the others at most %s\n",
               cli_seconds(s->preprocess[0]).s, cli_seconds(later).s);
    for (uint64_t i = 0; i < s->k; i++)
        printf("  search %-3" PRIu64 " source %" PRIu64 ": reached %s, %s %.*g, compute %s\n", i + 1,
               shown_id(a, s->src[i]), cli_count(s->reached[i]).s, extent,
               s->extent[i] == floor(s->extent[i]) ? 20 : 9, s->extent[i],
               cli_seconds(s->compute[i]).s);
}

int cmd_sssp(int argc, char **argv, const cli_env *env)
{
    (void)env;
    static const cli_option opts[] = {COMMON_OPTS,
                                      {"source", 's', true, OPT_SOURCE},
                                      {"parents", 0, true, OPT_PARENTS},
                                      {"delta", 0, true, OPT_DELTA},
                                      {"method", 0, true, OPT_METHOD},
                                      {"searches", 0, true, OPT_SEARCHES},
                                      {NULL, 0, false, 0}};
    if (cli_wants_help(argc, argv)) {
        sssp_help();
        return CLI_EXIT_OK;
    }
    algo a;
    algo_init(&a, "sssp", sssp_usage);
    source_arg source = {0};
    bool have_source = false;
    double delta = 0;
    sg_sssp_method method = SG_SSSP_AUTO;
    cli_parser p;
    cli_parser_init(&p, a.cmd, a.usage, opts, argc, argv);
    for (int id; (id = cli_next(&p)) != CLI_END;) {
        if (id == CLI_BAD) return CLI_EXIT_USAGE;
        const int r = common_option(id, &p, &a);
        if (r < 0) return CLI_EXIT_USAGE;
        if (r > 0) continue;
        switch (id) {
        case OPT_SOURCE:
            if (!value_source(&p, &source)) return CLI_EXIT_USAGE;
            have_source = true;
            break;
        case OPT_PARENTS: a.parents = p.value; break;
        case OPT_DELTA:
            if (!value_double(&p, false, &delta)) return CLI_EXIT_USAGE;
            break;
        case OPT_METHOD:
            if (!sg_sssp_method_parse(p.value, &method))
                return cli_usage_error(a.cmd, a.usage,
                                       "--method: unknown method '%s' (auto, delta, bellman-ford)",
                                       p.value);
            break;
        case OPT_SEARCHES:
            if (!value_searches(&p, &a)) return CLI_EXIT_USAGE;
            break;
        }
    }
    if (a.store && !have_source) return cli_usage_error(a.cmd, a.usage, "missing --source V");
    int rc = check_outputs(&a, false);
    if (rc != CLI_EXIT_OK) return rc;
    if ((rc = check_searches(&a, &source)) != CLI_EXIT_OK) return rc;
    if ((rc = check_source(&a, &source)) != CLI_EXIT_OK) return rc;

    sg_sssp_result *r = NULL;
    sg_error err = {0};
    searches sr = {0};
    if ((rc = algo_open(&a, true, SG_PREPARE_SSSP, SG_NARROW_NONE)) != CLI_EXIT_OK) goto done;
    if ((rc = searches_open(&a, &source, &sr)) != CLI_EXIT_OK) goto done;
    for (uint64_t i = 0; i < sr.k; i++) {
        const sg_sssp_options so = {.source = sr.src[i],
                                    .delta = delta,
                                    .want_parents = a.parents != NULL,
                                    .method = method};
        double c0, p0;
        search_mark(&a, &sr, i, &c0, &p0);
        sg_status st = i == 0 ? sg_sssp(a.run, a.g, &so, &r, &err)
                              : sg_sssp_into(a.run, a.g, &so, r, &err);
        if (st != SG_OK) {
            rc = lib_fail(&a, st, &err);
            goto done;
        }
        search_done(&a, &sr, i, c0, p0, r->reached, r->max_dist);
        if (a.verify) {
            const double t0 = cli_now();
            st = sg_verify_sssp(a.g, r, &err);
            if ((rc = verified(&a, "Dijkstra", st, &err, t0)) != CLI_EXIT_OK) goto done;
        }
    }
    /* the hybrid executor's delta-stepping rounds: their count follows the
     * bucket width, which it picks by the budget (SSCA2 26: 13,865 rounds
     * at 6 and 12 GiB, 9,705 in core, where no plan is made; the CPU runs
     * at a width of its own) */
    if (sg_run_backend(a.run) == SG_BACKEND_HYBRID && method != SG_SSSP_BELLMAN_FORD)
        memo_record(&a, SG_PLAN_SSSP, run_counter(a.run, "iterations"), shown_id(&a, r->source));
    WRITE_RESULT(&a, a.out, sg_sssp_write(a.run, r, a.out, a.force, err));
    WRITE_RESULT(&a, a.parents,
                 sg_parents_write(a.run, r->parent, r->n_vertices, a.parents, a.force, err));
    cli_progress_end(&a.bar);

    const bool exact = r->dist != NULL;
    if (a.json) {
        cli_json j;
        json_head(&a, &j);
        cli_json_object(&j, "result");
        cli_json_u64(&j, "source", shown_id(&a, r->source));
        cli_json_u64(&j, "reached", r->reached);
        cli_json_num(&j, "max_distance", r->max_dist);
        cli_json_num(&j, "delta", r->delta);
        cli_json_str(&j, "method", method == SG_SSSP_BELLMAN_FORD ? "bellman-ford" : "delta");
        cli_json_object_end(&j);
        json_searches(&a, &j, &sr, "max_distance");
        json_tail(&a, &j);
    } else if (!a.quiet) {
        text_head(&a, "shortest paths");
        if (method == SG_SSSP_BELLMAN_FORD)
            printf("  method     Bellman-Ford\n");
        else
            printf("  delta      %.9g\n", r->delta);
        if (sr.k == 1) {
            printf("  source     %" PRIu64 "\n", shown_id(&a, r->source));
            printf("  reached    %s of %s vertices, largest distance %.*g\n",
                   cli_count(r->reached).s, cli_count(r->n_vertices).s, exact ? 20 : 17,
                   r->max_dist);
        }
        text_searches(&a, &sr, "largest distance");
        text_outputs(&a, "distances");
        text_tail(&a);
    }
done:
    searches_free(&sr);
    sg_sssp_free(r);
    algo_free(&a);
    return rc;
}

/* ================================================================ bfs */

static const char bfs_usage[] =
    "usage: spillgraph bfs STORE --source V|random[:SEED] [-o LEVELS] [--parents FILE]\n"
    "         [--alpha A] [--beta B] [--searches K]\n" COMMON_USAGE;

static void bfs_help(void)
{
    printf("%s\n"
           "\n"
           "Breadth-first search from vertex V, direction-optimizing (Beamer: top-down\n"
           "steps, bottom-up steps while the frontier is large). The store is loaded\n"
           "without its weights. Prints the vertices reached and the deepest level.\n"
           "\n"
           "options:\n"
           "  -s, --source V     the source vertex, 0..n-1, or random[:SEED]: a vertex\n"
           "                     with an edge drawn from SEED (default 1), as\n"
           "                     Graph500 picks its roots (required)\n"
           "  -o, --output LEVELS write the levels: LEVELS.txt (one per vertex, -1 when\n"
           "                     unreached) or LEVELS.bin\n"
           "  --parents FILE     write a BFS tree: the parent of each vertex (-1 when\n"
           "                     unreached; the source's parent is itself)\n"
           "  --alpha A          switch to bottom-up when the frontier's edges exceed\n"
           "                     the unexplored edges / A (default 15)\n"
           "  --beta B           back to top-down below n / B frontier vertices\n"
           "                     (default 18)\n"
           SEARCHES_HELP
           COMMON_HELP
           "--verify compares every level with a serial BFS and, with --parents,\n"
           "validates the tree as Graph500 does.\n"
           "The search's level count goes to the store's memo in the cache directory;\n"
           "later plans add those levels' latency (docs/plan.md; SPILLGRAPH_MEMO=off: no\n"
           "memo read or written).\n"
           "\n"
           "example:\n"
           "  spillgraph bfs g.sg --source 0 -o levels.bin --parents parents.bin\n",
           bfs_usage);
}

int cmd_bfs(int argc, char **argv, const cli_env *env)
{
    (void)env;
    static const cli_option opts[] = {COMMON_OPTS,
                                      {"source", 's', true, OPT_SOURCE},
                                      {"parents", 0, true, OPT_PARENTS},
                                      {"alpha", 0, true, OPT_ALPHA},
                                      {"beta", 0, true, OPT_BETA},
                                      {"searches", 0, true, OPT_SEARCHES},
                                      {NULL, 0, false, 0}};
    if (cli_wants_help(argc, argv)) {
        bfs_help();
        return CLI_EXIT_OK;
    }
    algo a;
    algo_init(&a, "bfs", bfs_usage);
    source_arg source = {0};
    bool have_source = false;
    int alpha = 0, beta = 0;
    cli_parser p;
    cli_parser_init(&p, a.cmd, a.usage, opts, argc, argv);
    for (int id; (id = cli_next(&p)) != CLI_END;) {
        if (id == CLI_BAD) return CLI_EXIT_USAGE;
        const int r = common_option(id, &p, &a);
        if (r < 0) return CLI_EXIT_USAGE;
        if (r > 0) continue;
        switch (id) {
        case OPT_SOURCE:
            if (!value_source(&p, &source)) return CLI_EXIT_USAGE;
            have_source = true;
            break;
        case OPT_PARENTS: a.parents = p.value; break;
        case OPT_ALPHA:
            if (!cli_value_int(&p, 1, 1 << 30, &alpha)) return CLI_EXIT_USAGE;
            break;
        case OPT_BETA:
            if (!cli_value_int(&p, 1, 1 << 30, &beta)) return CLI_EXIT_USAGE;
            break;
        case OPT_SEARCHES:
            if (!value_searches(&p, &a)) return CLI_EXIT_USAGE;
            break;
        }
    }
    if (a.store && !have_source) return cli_usage_error(a.cmd, a.usage, "missing --source V");
    int rc = check_outputs(&a, false);
    if (rc != CLI_EXIT_OK) return rc;
    if ((rc = check_searches(&a, &source)) != CLI_EXIT_OK) return rc;
    if ((rc = check_source(&a, &source)) != CLI_EXIT_OK) return rc;

    sg_bfs_result *r = NULL;
    sg_error err = {0};
    searches sr = {0};
    if ((rc = algo_open(&a, false, SG_PREPARE_BFS, SG_NARROW_NONE)) != CLI_EXIT_OK) goto done;
    if ((rc = searches_open(&a, &source, &sr)) != CLI_EXIT_OK) goto done;
    for (uint64_t i = 0; i < sr.k; i++) {
        const sg_bfs_options bo = {.source = sr.src[i],
                                   .want_parents = a.parents != NULL,
                                   .alpha = alpha,
                                   .beta = beta};
        double c0, p0;
        search_mark(&a, &sr, i, &c0, &p0);
        sg_status st = i == 0 ? sg_bfs(a.run, a.g, &bo, &r, &err)
                              : sg_bfs_into(a.run, a.g, &bo, r, &err);
        if (st != SG_OK) {
            rc = lib_fail(&a, st, &err);
            goto done;
        }
        search_done(&a, &sr, i, c0, p0, r->reached, (double)r->max_level);
        if (a.verify) {
            const double t0 = cli_now();
            st = sg_verify_bfs(a.g, r, &err);
            if ((rc = verified(&a, "serial BFS", st, &err, t0)) != CLI_EXIT_OK) goto done;
        }
    }
    memo_record(&a, SG_PLAN_BFS, (uint64_t)r->max_level + 1, shown_id(&a, r->source));
    WRITE_RESULT(&a, a.out, sg_bfs_write(a.run, r, a.out, a.force, err));
    WRITE_RESULT(&a, a.parents,
                 sg_parents_write(a.run, r->parent, r->n_vertices, a.parents, a.force, err));
    cli_progress_end(&a.bar);

    if (a.json) {
        cli_json j;
        json_head(&a, &j);
        cli_json_object(&j, "result");
        cli_json_u64(&j, "source", shown_id(&a, r->source));
        cli_json_u64(&j, "reached", r->reached);
        cli_json_u64(&j, "max_level", r->max_level);
        cli_json_object_end(&j);
        json_searches(&a, &j, &sr, "max_level");
        json_tail(&a, &j);
    } else if (!a.quiet) {
        text_head(&a, "breadth-first search");
        if (sr.k == 1) {
            printf("  source     %" PRIu64 "\n", shown_id(&a, r->source));
            printf("  reached    %s of %s vertices, deepest level %" PRIu32 "\n",
                   cli_count(r->reached).s, cli_count(r->n_vertices).s, r->max_level);
        }
        text_searches(&a, &sr, "deepest level");
        text_outputs(&a, "levels");
        text_tail(&a);
    }
done:
    searches_free(&sr);
    sg_bfs_free(r);
    algo_free(&a);
    return rc;
}

/* ================================================================ cluster */

static const char cluster_usage[] =
    "usage: spillgraph cluster STORE (--k K | --threshold W) -o LABELS\n" COMMON_USAGE;

static void cluster_help(void)
{
    printf("%s\n"
           "\n"
           "Single-linkage clustering: computes the minimum spanning forest, then cuts\n"
           "its heaviest edges. With --k, exactly K clusters (K between the forest's\n"
           "trees and the vertex count); with --threshold, every forest edge heavier\n"
           "than W is cut. Clusters are numbered 0.. in order of their smallest vertex.\n"
           "Prints the cluster count and the largest sizes.\n"
           "\n"
           "options:\n"
           "  --k K              the number of clusters\n"
           "  --threshold W      cut forest edges with weight > W\n"
           "  -o, --output LABELS write the labels: LABELS.txt (one per vertex) or\n"
           "                     LABELS.bin (required)\n"
           COMMON_HELP
           "--verify compares the forest with Kruskal's before it is cut.\n"
           "\n"
           "example:\n"
           "  spillgraph cluster g.sg --k 10 -o labels.txt\n",
           cluster_usage);
}

/* The `top` largest cluster sizes, largest first, into best[]; returns how
 * many (min(top, clusters)). */
static unsigned largest_sizes(const sg_clusters *c, uint64_t *best, unsigned top)
{
    unsigned k = 0;
    for (uint64_t i = 0; i < c->n_clusters; i++) {
        const uint64_t s = c->size[i];
        if (k == top && s <= best[top - 1]) continue;
        unsigned j = k < top ? k++ : top - 1;
        while (j > 0 && best[j - 1] < s) {
            best[j] = best[j - 1];
            j--;
        }
        best[j] = s;
    }
    return k;
}

int cmd_cluster(int argc, char **argv, const cli_env *env)
{
    (void)env;
    static const cli_option opts[] = {COMMON_OPTS,
                                      {"k", 'k', true, OPT_K},
                                      {"threshold", 0, true, OPT_THRESHOLD},
                                      {NULL, 0, false, 0}};
    if (cli_wants_help(argc, argv)) {
        cluster_help();
        return CLI_EXIT_OK;
    }
    algo a;
    algo_init(&a, "cluster", cluster_usage);
    sg_cluster_options co = {0};
    bool have_k = false, have_threshold = false;
    cli_parser p;
    cli_parser_init(&p, a.cmd, a.usage, opts, argc, argv);
    for (int id; (id = cli_next(&p)) != CLI_END;) {
        if (id == CLI_BAD) return CLI_EXIT_USAGE;
        const int r = common_option(id, &p, &a);
        if (r < 0) return CLI_EXIT_USAGE;
        if (r > 0) continue;
        switch (id) {
        case OPT_K:
            if (!cli_value_u64(&p, 1, UINT64_MAX, &co.k)) return CLI_EXIT_USAGE;
            have_k = true;
            break;
        case OPT_THRESHOLD:
            if (!value_double(&p, true, &co.threshold)) return CLI_EXIT_USAGE;
            have_threshold = true;
            break;
        }
    }
    if (have_k && have_threshold)
        return cli_usage_error(a.cmd, a.usage, "give --k or --threshold, not both");
    if (a.store && !have_k && !have_threshold)
        return cli_usage_error(a.cmd, a.usage, "missing --k K or --threshold W");
    int rc = check_outputs(&a, true);
    if (rc != CLI_EXIT_OK) return rc;

    sg_forest *f = NULL;
    sg_clusters *c = NULL;
    sg_error err = {0};
    if ((rc = algo_open(&a, true, SG_PREPARE_FOREST, SG_NARROW_HYBRID_FOREST)) != CLI_EXIT_OK)
        goto done;
    sg_status st = sg_mst(a.run, a.g, &f, &err);
    if (st != SG_OK) {
        rc = lib_fail(&a, st, &err);
        goto done;
    }
    if (a.verify) {
        const double t0 = cli_now();
        st = sg_verify_forest(a.g, f, &err);
        if ((rc = verified(&a, "Kruskal", st, &err, t0)) != CLI_EXIT_OK) goto done;
    }
    st = sg_cluster(a.run, f, &co, &c, &err);
    if (st != SG_OK) {
        rc = lib_fail(&a, st, &err);
        goto done;
    }
    WRITE_RESULT(&a, a.out, sg_clusters_write(a.run, c, a.out, a.force, err));
    cli_progress_end(&a.bar);

    enum { TOP = 5 };
    uint64_t best[TOP];
    const unsigned nbest = largest_sizes(c, best, TOP);
    if (a.json) {
        cli_json j;
        json_head(&a, &j);
        cli_json_object(&j, "result");
        if (have_k) cli_json_u64(&j, "k", co.k);
        else cli_json_num(&j, "threshold", co.threshold);
        cli_json_u64(&j, "forest_edges", f->n_edges);
        cli_json_u64(&j, "trees", f->n_trees);
        print_weight_json(&j, "total_weight", f);
        cli_json_u64(&j, "clusters", c->n_clusters);
        cli_json_u64(&j, "cut_edges", c->cut_edges);
        cli_json_array(&j, "largest");
        for (unsigned i = 0; i < nbest; i++) cli_json_u64(&j, NULL, best[i]);
        cli_json_array_end(&j);
        cli_json_object_end(&j);
        json_tail(&a, &j);
    } else if (!a.quiet) {
        text_head(&a, "single-linkage clusters");
        printf("  forest     %s edges, %s trees, total weight %s\n", cli_count(f->n_edges).s,
               cli_count(f->n_trees).s, weight_text(f).s);
        printf("  clusters   %s (%s forest edges cut); largest", cli_count(c->n_clusters).s,
               cli_count(c->cut_edges).s);
        for (unsigned i = 0; i < nbest; i++) printf("%s %s", i ? "," : "", cli_count(best[i]).s);
        printf("\n");
        text_outputs(&a, "cluster labels");
        text_tail(&a);
    }
done:
    sg_clusters_free(c);
    sg_forest_free(f);
    algo_free(&a);
    return rc;
}

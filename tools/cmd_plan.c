/* spillgraph plan: the placement planner's plan for a store and an
 * algorithm (split points, memory kinds, CPU/GPU shares, predicted time),
 * also on a machine without a GPU; spillgraph calibrate: the rates it uses,
 * measured here and cached. docs/cli.md is the guide, docs/plan.md the
 * model. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_util.h"

enum { OPT_ALGO = 1, OPT_DEVICE_MEM, OPT_DEVICE_FREE, OPT_HOST_MEM, OPT_RATES, OPT_POINTS, OPT_JSON };

static const char usage[] =
    "usage: spillgraph plan STORE --algo mst|sssp|bfs [--device-mem SIZE] [--device-free SIZE]\n"
    "                       [--host-mem auto|plain|pinned|managed] [--rates FILE] [--points N]\n"
    "                       [--json]";

static void help(void)
{
    printf("%s\n\n"
           "Prints the placement plan for running ALGO on STORE within a device memory\n"
           "budget: for X, A and W the split point (vertices below it stay in device\n"
           "memory), where the rest lives (managed memory with hints, or pinned host\n"
           "memory), which part of the host range the GPU reads and which the CPU threads\n"
           "take, and the predicted time (docs/plan.md has the model).\n\n"
           "  --algo A            mst, sssp or bfs (required)\n"
           "  --device-mem SIZE   device budget (default: the device's free memory less\n"
           "                      max(256 MiB, 3%%))\n"
           "  --device-free SIZE  the device's free memory (default: GPU 0's; without a\n"
           "                      GPU, 79.6 GiB, the H100 host's)\n"
           "  --host-mem KIND     the run's --host-mem: auto (default: managed memory under\n"
           "                      the managed cap, pinned beyond it), managed (the whole\n"
           "                      graph, refused beyond the device's free memory less the\n"
           "                      margin, as a run refuses it), pinned or plain (pinned: a\n"
           "                      hybrid run pins a plain graph in place)\n"
           "  --rates FILE        machine rates, 'key value' lines (default: the rates\n"
           "                      cache file if present, else the built-in defaults)\n"
           "  --points N          candidate split points, evenly spaced (default 1024)\n"
           "  --json              one JSON object\n",
           usage);
}

/* The rates as the JSON object "rates". */
static void json_rates(cli_json *j, const sg_rates *r)
{
    cli_json_object(j, "rates");
    cli_json_num(j, "hbm_gbps", r->hbm_gbps);
    cli_json_num(j, "pcie_gbps", r->pcie_gbps);
    cli_json_num(j, "zc_rand_gbps", r->zc_rand_gbps);
    cli_json_num(j, "managed_rand_gbps", r->managed_rand_gbps);
    cli_json_num(j, "cpu_scan_gbps", r->cpu_scan_gbps);
    cli_json_num(j, "managed_seq_gbps", r->managed_seq_gbps);
    cli_json_num(j, "host_shared_gbps", r->host_shared_gbps);
    if (r->shared_gpu_gbps > 0 || r->shared_cpu_gbps > 0) {
        cli_json_num(j, "shared_gpu_gbps", r->shared_gpu_gbps);
        cli_json_num(j, "shared_cpu_gbps", r->shared_cpu_gbps);
    }
    cli_json_object_end(j);
}

/* The device's free and total memory: GPU 0's, or the H100 host's. */
static void device_memory(uint64_t *free_b, uint64_t *total_b, char *desc, size_t cap)
{
    sg_gpu_info g;
    sg_error err = {0};
    if (sg_gpu_built() && sg_gpu_count() > 0 && sg_gpu_info_get(0, &g, &err) == SG_OK) {
        g.name[sizeof g.name - 1] = '\0';
        *free_b = g.free_bytes;
        *total_b = g.total_bytes;
        snprintf(desc, cap, "GPU 0, %s", g.name);
        return;
    }
    *total_b = 85520809984ull;                 /* 79.6 GiB + a margin: the H100 */
    *free_b = (uint64_t)(79.6 * 1073741824.0); /* free on the H100 host */
    snprintf(desc, cap, "no GPU here: an H100 80 GB assumed");
}

int cmd_plan(int argc, char **argv, const cli_env *env)
{
    (void)env;
    static const char cmd[] = "plan";
    static const cli_option opts[] = {
        {"algo", 0, true, OPT_ALGO},       {"device-mem", 0, true, OPT_DEVICE_MEM},
        {"device-free", 0, true, OPT_DEVICE_FREE}, {"host-mem", 0, true, OPT_HOST_MEM},
        {"rates", 0, true, OPT_RATES},
        {"points", 0, true, OPT_POINTS},   {"json", 0, false, OPT_JSON},
        {NULL, 0, false, 0}};
    if (cli_wants_help(argc, argv)) {
        help();
        return CLI_EXIT_OK;
    }
    const char *store = NULL, *algo_s = NULL, *rates_path = NULL, *host_mem = "auto";
    sg_mem_kind mem = SG_MEM_AUTO; /* host_mem's */
    uint64_t budget = 0, dev_free = 0, points = 1024;
    bool json = false;
    cli_parser p;
    cli_parser_init(&p, cmd, usage, opts, argc, argv);
    for (int id; (id = cli_next(&p)) != CLI_END;) {
        switch (id) {
        case CLI_BAD: return CLI_EXIT_USAGE;
        case CLI_POSITIONAL:
            if (store) return cli_usage_error(cmd, usage, "unexpected argument '%s'", p.value);
            store = p.value;
            break;
        case OPT_ALGO: algo_s = p.value; break;
        case OPT_DEVICE_MEM:
            if (!cli_value_size(&p, 1, UINT64_MAX, &budget)) return CLI_EXIT_USAGE;
            break;
        case OPT_DEVICE_FREE:
            if (!cli_value_size(&p, 1, UINT64_MAX, &dev_free)) return CLI_EXIT_USAGE;
            break;
        case OPT_HOST_MEM:
            if (!cli_parse_mem_kind(p.value, &mem))
                return cli_usage_error(cmd, usage,
                                       "--host-mem: unknown kind '%s' (auto, plain, pinned, "
                                       "managed)",
                                       p.value);
            host_mem = p.value;
            break;
        case OPT_RATES: rates_path = p.value; break;
        case OPT_POINTS:
            if (!cli_value_u64(&p, 2, 1u << 20, &points)) return CLI_EXIT_USAGE;
            break;
        case OPT_JSON: json = true; break;
        }
    }
    if (!store) return cli_usage_error(cmd, usage, "missing STORE");
    sg_plan_algo algo;
    if (!algo_s) return cli_usage_error(cmd, usage, "missing --algo (mst, sssp or bfs)");
    if (!sg_plan_algo_parse(algo_s, &algo))
        return cli_usage_error(cmd, usage, "--algo '%s': expected mst, sssp or bfs", algo_s);

    /* Rates: --rates, else the cache file when it exists, else defaults. */
    sg_rates rates;
    sg_error err = {0};
    sg_status st;
    char cache[1024] = "";
    if (rates_path) {
        st = sg_rates_load(rates_path, &rates, &err);
        if (st != SG_OK) return cli_fail_status(cmd, st, &err);
    } else if (sg_rates_cache_path(cache, sizeof cache, &err) == SG_OK && access(cache, R_OK) == 0) {
        st = sg_rates_load(cache, &rates, &err);
        if (st != SG_OK) return cli_fail_status(cmd, st, &err);
    } else {
        sg_rates_default(&rates);
    }

    uint64_t free_b = dev_free, total_b = dev_free;
    char dev_desc[200] = "--device-free";
    if (!dev_free) device_memory(&free_b, &total_b, dev_desc, sizeof dev_desc);
    const uint64_t margin = sg_device_margin(total_b);
    if (!budget) budget = free_b > margin ? free_b - margin : 0;
    const uint64_t left = free_b > budget ? free_b - budget : 0;
    /* the cap as a run computes it; managed memory forced takes the whole
     * graph (as a run on a managed graph plans; refused below when the
     * device cannot take it), pinned or plain none */
    uint64_t managed_cap = left > margin ? left - margin : 0;
    if (mem == SG_MEM_MANAGED) managed_cap = UINT64_MAX / 4;
    if (mem == SG_MEM_PINNED || mem == SG_MEM_PLAIN) managed_cap = 0;

    sg_store *s = NULL;
    st = sg_store_open(store, &s, &err);
    if (st != SG_OK) return cli_fail_status(cmd, st, &err);
    sg_store_info info;
    sg_store_get_info(s, &info);
    int rc = CLI_EXIT_OK;
    uint64_t *pv = NULL, *pe = NULL;
    const uint64_t n = info.n_vertices, m = info.n_edges;
    if (n == 0) {
        rc = cli_fail(cmd, "%s: the store has no vertices: nothing to place", store);
        goto done;
    }
    if (mem == SG_MEM_MANAGED) {
        /* as a run refuses it (the graph as it loads: X, A, and W unless BFS) */
        const uint64_t bytes = (n + 1) * 8 + m * 4 * (algo == SG_PLAN_BFS ? 1 : 2);
        st = sg_managed_fits(bytes, free_b, total_b, 0, store, &err);
        if (st != SG_OK) {
            rc = cli_fail_status(cmd, st, &err);
            goto done;
        }
    }
    if (points > n + 1) points = n + 1;
    pv = malloc(points * sizeof *pv);
    pe = malloc(points * sizeof *pe);
    if (!pv || !pe) {
        rc = cli_fail(cmd, "out of memory for %" PRIu64 " split points", points);
        goto done;
    }
    /* Evenly spaced vertices 0 = v_0 < ... < v_{K-1} = n and their edges. */
    unsigned k = 0;
    for (uint64_t i = 0; i < points; i++) {
        const uint64_t v = (uint64_t)((unsigned __int128)n * i / (points - 1));
        if (k && v <= pv[k - 1]) continue;
        uint64_t e0 = 0, e1 = 0;
        if (v > 0 && (st = sg_store_edge_range(s, 0, v, &e0, &e1, &err)) != SG_OK) {
            rc = cli_fail_status(cmd, st, &err);
            goto done;
        }
        pv[k] = v;
        pe[k] = v ? e1 : 0;
        k++;
    }
    sg_plan_input in;
    memset(&in, 0, sizeof in);
    in.algo = algo;
    in.n = n;
    in.m = m;
    /* stores hold u32 or f32 weights; the forest's in 24 bits where mst
     * loads them so (with SPILLGRAPH_GPU_ENABLE=narrow-weights; pinned then,
     * where auto would have chosen managed) */
    const bool narrow = algo == SG_PLAN_MST && sg_narrow_store(&info, mem, SG_NARROW_HYBRID_FOREST);
    if (narrow) managed_cap = 0;
    /* and the forest's spilled lists pinned where auto would have chosen
     * managed memory (sg_graph_options.forest, which mst sets) */
    if (algo == SG_PLAN_MST && mem == SG_MEM_AUTO) managed_cap = 0;
    in.weight_bytes = algo == SG_PLAN_BFS ? 0 : narrow ? 3 : 4;
    in.pt_v = pv;
    in.pt_e = pe;
    in.n_pts = k;
    in.device_budget = budget;
    in.managed_cap = managed_cap;
    in.host_bytes = sg_available_memory();
    in.rates = rates;
    /* the forest the hybrid backend runs: the in-place executor over whole
     * lists, or over their heads on a store in weight order with hubs (the
     * planner's rule, from the degrees below; docs/plan.md) */
    in.lists_unsorted = algo == SG_PLAN_MST;
    in.lists_weight_order = algo == SG_PLAN_MST && info.weight_order;
    /* and its speculative contraction, into the forest's arrays that mst
     * pins while it loads (src/plan.c, FOREST_SPEC_*), and its gather's
     * weights deferred to the CPU threads, unless a switch keeps the run
     * from them (as src/gpu_engine.c reads them) */
    in.forest_spec = algo == SG_PLAN_MST && !sg_switch_disabled("spec-contract") &&
                     !sg_switch_disabled("prepare") && !sg_switch_disabled("prepare-pin");
    in.forest_defer = in.forest_spec && !sg_switch_disabled("defer-weights");
    /* SSSP's and BFS's executors have no CPU share: their GPU reads the
     * whole host range; the executors' reserves (SSSP's light index, the
     * forest's contracted list) are the planner's, as for a run
     * (src/plan.c, executor_reserve), SSSP's by the hub rule, from the
     * degrees (which the forest's model reads too: a graph without hubs
     * has its own constants) */
    in.gpu_reads_all = algo != SG_PLAN_MST;
    in.executor_reserves = true;
    in.directed = info.directed;
    {
        sg_degree_stats ds;
        if ((st = sg_store_degree_stats(s, NULL, &ds, &err)) != SG_OK) {
            rc = cli_fail_status(cmd, st, &err);
            goto done;
        }
        in.max_degree = ds.max;
        in.degree_order = ds.descents ? SG_PLAN_DEGREES_OTHER : SG_PLAN_DEGREES_ASCENDING;
    }
    /* the latency of BFS's levels or SSSP's rounds: an earlier search's
     * count from the store's memo (a memo that cannot be read is an error
     * here, naming its file and line, as a bad rates file is) */
    sg_memo memo;
    memset(&memo, 0, sizeof memo);
    bool memo_on = algo != SG_PLAN_MST && sg_memo_enabled();
    if (memo_on) {
        st = sg_memo_load(store, &memo, &err);
        if (st == SG_E_FORMAT) {
            rc = cli_fail_status(cmd, st, &err);
            goto done;
        }
        if (st != SG_OK) memo_on = false; /* no cache directory: as without a memo */
    }
    in.steps = sg_memo_steps(&memo, algo);
    const char *memo_note = memo.note[algo == SG_PLAN_BFS ? 0 : 1]; /* in.steps' note */
    sg_plan pl;
    st = sg_plan_make(&in, &pl, &err);
    if (st != SG_OK) {
        rc = cli_fail_status(cmd, st, &err);
        goto done;
    }

    static const char *const names[3] = {"X", "A", "W"};
    if (json) {
        cli_json j;
        cli_json_begin(&j, stdout);
        cli_json_str(&j, "command", "plan");
        cli_json_str(&j, "graph", store);
        cli_json_str(&j, "algo", sg_plan_algo_name(algo));
        cli_json_u64(&j, "n_vertices", n);
        cli_json_u64(&j, "n_edges", m);
        json_rates(&j, &rates);
        cli_json_str(&j, "device", dev_desc);
        cli_json_u64(&j, "device_free", free_b);
        cli_json_u64(&j, "budget", budget);
        cli_json_str(&j, "host_mem", host_mem);
        if (algo != SG_PLAN_BFS) cli_json_int(&j, "weight_bits", narrow ? 24 : 32);
        cli_json_u64(&j, "managed_cap", managed_cap);
        if (memo_on) {
            cli_json_object(&j, "memo");
            cli_json_str(&j, "path", memo.path);
            if (in.steps) cli_json_str(&j, "note", memo_note);
            else cli_json_null(&j, "note");
            cli_json_object_end(&j);
        }
        cli_json_plan(&j, &pl);
        cli_json_end(&j);
        goto done;
    }
    printf("plan for %s on %s (%s vertices, %s edges)\n", sg_plan_algo_name(algo), store,
           cli_count(n).s, cli_count(m).s);
    printf("rates      %s\n", rates.origin);
    cli_rates_hint(rates.origin, 11);
    printf("device     %s: %s free; budget %s, ", dev_desc, cli_bytes(free_b).s,
           cli_bytes(budget).s);
    if (mem == SG_MEM_AUTO && algo == SG_PLAN_MST)
        printf("host memory pinned (auto: the forest streams its spilled lists)\n");
    else if (mem == SG_MEM_AUTO)
        printf("managed cap %s\n", cli_bytes(managed_cap).s);
    else if (mem == SG_MEM_MANAGED)
        printf("host memory managed (--host-mem: no cap)\n");
    else
        printf("host memory pinned (--host-mem %s)\n", host_mem);
    printf("working    %s on the device (the kernels' arrays and the executor's reserve)\n",
           cli_bytes(pl.work_bytes).s);
    if (narrow)
        printf("weights    in 24 bits, 3 bytes an edge, pinned (as mst loads u32 weights below\n"
               "           2^24; a larger weight makes it load 32-bit ones)\n");
    if (algo == SG_PLAN_MST)
        printf("lists      %s\n",
               pl.forest_heads ? "in weight order: the forest reads their heads, the GPU alone"
               : info.weight_order
                   ? "in weight order, but no hubs: the forest reads them whole, as by id"
                   : "by id: the forest reads them whole");
    printf("array  on the device (vertices)          device       host         spilled to\n");
    for (int a = 0; a < 3; a++) {
        if (a == 2 && pl.device_bytes[2] == 0 && pl.host_bytes[2] == 0) {
            printf("W      not loaded\n");
            continue;
        }
        char share[64];
        snprintf(share, sizeof share, "%s (%.1f%%)", cli_count(pl.split[a]).s,
                 100.0 * (double)pl.split[a] / (double)n);
        printf("%-6s %-33s %-12s %-12s %s\n", names[a], share, cli_bytes(pl.device_bytes[a]).s,
               cli_bytes(pl.host_bytes[a]).s,
               pl.spill_kind[a] == SG_SPILL_NONE ? "-" : sg_spill_kind_name(pl.spill_kind[a]));
    }
    if (pl.host_begin < n && pl.gpu_host_end >= n && pl.gathered)
        printf("host range vertices [%s, %s): the CPU threads gather its lists for the GPU, which\n"
               "           reads a share in place beside them\n",
               cli_count(pl.host_begin).s, cli_count(n).s);
    else if (pl.host_begin < n && pl.gpu_host_end >= n)
        printf("host range vertices [%s, %s): the GPU reads all of it over PCIe (%s has no CPU "
               "share)\n",
               cli_count(pl.host_begin).s, cli_count(n).s, sg_plan_algo_name(algo));
    else if (pl.host_begin < n)
        printf("host range vertices [%s, %s): the GPU reads [%s, %s) over PCIe, the CPU threads\n"
               "           take [%s, %s): %.0f%% of the spilled bytes read per pass\n",
               cli_count(pl.host_begin).s, cli_count(n).s, cli_count(pl.host_begin).s,
               cli_count(pl.gpu_host_end).s, cli_count(pl.gpu_host_end).s, cli_count(n).s,
               100.0 * pl.cpu_share);
    else
        printf("host range none: the graph fits the budget\n");
    /* the in-place forest's pass is its first round (its refills below) */
    printf("%s device %s + GPU over PCIe %s, CPU %s at the same time",
           pl.t_refill > 0 ? "first round" : "per pass   ", cli_seconds(pl.t_device).s,
           cli_seconds(pl.t_gpu_host).s, cli_seconds(pl.t_cpu).s);
    if (pl.t_shared > 0) printf(", both from host memory %s", cli_seconds(pl.t_shared).s);
    printf(" -> %s\n", cli_seconds(pl.predicted_pass_s).s);
    if (algo != SG_PLAN_MST) {
        const char *what = algo == SG_PLAN_BFS ? "levels" : "rounds";
        if (pl.steps)
            printf("latency    %s %s of an earlier search (%s): %s\n", cli_count(pl.steps).s,
                   what, memo_note, cli_seconds(pl.t_steps).s);
        else if (memo_on)
            printf("latency    not known: no earlier %s on this store (%s records its %s in "
                   "%s)\n",
                   sg_plan_algo_name(algo), algo == SG_PLAN_BFS ? "a search" : "a hybrid search",
                   what, memo.path);
        else
            printf("latency    not known (SPILLGRAPH_MEMO=off, or no cache directory)\n");
    }
    if (pl.t_refill > 0)
        printf("predicted  first round %s + refills %.2f passes%s %s",
               cli_seconds(pl.predicted_pass_s).s, pl.refill_passes,
               pl.forest_spec ? " and the speculative gather" : "", cli_seconds(pl.t_refill).s);
    else
        printf("predicted  %.1f passes x %s", pl.passes, cli_seconds(pl.predicted_pass_s).s);
    if (pl.t_rounds > 0) printf(" + rounds %s", cli_seconds(pl.t_rounds).s);
    if (pl.t_index > 0) printf(" + light index %s", cli_seconds(pl.t_index).s);
    if (pl.t_result > 0) printf(" + result copy %s", cli_seconds(pl.t_result).s);
    if (pl.t_steps > 0) printf(" + latency %s", cli_seconds(pl.t_steps).s);
    printf(" = %s (upload of the device part %s)\n", cli_seconds(pl.predicted_s).s,
           cli_seconds(pl.t_upload).s);
    if (pl.t_index > 0)
        printf("           each further search (--searches, the index kept): %s\n",
               cli_seconds(pl.predicted_s - pl.t_index).s);
    if (pl.hint_degree_asc)
        printf("hint       the lists spill and the graph has hubs: a copy in ascending degree\n"
               "           order keeps the short lists on the device and streams the long\n"
               "           ones (at R-MAT 26 and 6G every algorithm ran faster on it; the\n"
               "           prediction above does not see the order). Make one with\n"
               "           spillgraph renumber %s -o COPY --order degree-asc\n"
               "           (it holds about twice the graph in host memory while it runs)\n",
               store);
done:
    free(pv);
    free(pe);
    sg_store_close(s);
    return rc;
}

/* ------------------------------------------------------------ calibrate */

enum { OPT_C_DEVICE = 1, OPT_C_BYTES, OPT_C_THREADS, OPT_C_OUTPUT, OPT_C_JSON };

static const char cal_usage[] =
    "usage: spillgraph calibrate [--device N] [--bytes SIZE] [--threads N] [--output FILE] [--json]";

static void cal_help(void)
{
    printf("%s\n\n"
           "Measures the rates the planner uses and writes them to the rates cache file\n"
           "(or --output): the CPU threads' host-memory read rate, and with a GPU its\n"
           "streamed memory reads, pinned host-to-device copies and random 128-byte reads\n"
           "of pinned and of managed host memory. Without a GPU the GPU rates stay the\n"
           "defaults, and the file says so.\n\n"
           "  --device N     the GPU to measure (default 0)\n"
           "  --bytes SIZE   buffer of each measurement (default 4G, or a quarter of the\n"
           "                 available memory if less; at least 16M). Random reads of\n"
           "                 pinned memory slow down as the span grows: measure with\n"
           "                 a span like the spilled part's\n"
           "  --threads N    CPU threads (default: all)\n"
           "  --output FILE  where to write (default: $SPILLGRAPH_RATES, else\n"
           "                 $XDG_CACHE_HOME/spillgraph/rates-HOST, else\n"
           "                 ~/.cache/spillgraph/rates-HOST)\n"
           "  --json         one JSON object\n",
           cal_usage);
}

int cmd_calibrate(int argc, char **argv, const cli_env *env)
{
    (void)env;
    static const char cmd[] = "calibrate";
    static const cli_option opts[] = {
        {"device", 0, true, OPT_C_DEVICE}, {"bytes", 0, true, OPT_C_BYTES},
        {"threads", 0, true, OPT_C_THREADS}, {"output", 'o', true, OPT_C_OUTPUT},
        {"json", 0, false, OPT_C_JSON},     {NULL, 0, false, 0}};
    if (cli_wants_help(argc, argv)) {
        cal_help();
        return CLI_EXIT_OK;
    }
    sg_calibrate_options o = {.device = 0, .bytes = 4ull << 30, .threads = 0};
    bool bytes_given = false;
    const char *output = NULL;
    bool json = false;
    cli_parser p;
    cli_parser_init(&p, cmd, cal_usage, opts, argc, argv);
    for (int id; (id = cli_next(&p)) != CLI_END;) {
        switch (id) {
        case CLI_BAD: return CLI_EXIT_USAGE;
        case CLI_POSITIONAL:
            return cli_usage_error(cmd, cal_usage, "unexpected argument '%s'", p.value);
        case OPT_C_DEVICE:
            if (!cli_value_int(&p, 0, 1023, &o.device)) return CLI_EXIT_USAGE;
            break;
        case OPT_C_BYTES:
            if (!cli_value_size(&p, 16u << 20, UINT64_MAX, &o.bytes)) return CLI_EXIT_USAGE;
            bytes_given = true;
            break;
        case OPT_C_THREADS:
            if (!cli_value_int(&p, 1, 4096, &o.threads)) return CLI_EXIT_USAGE;
            break;
        case OPT_C_OUTPUT: output = p.value; break;
        case OPT_C_JSON: json = true; break;
        }
    }
    char path[1024];
    sg_error err = {0};
    sg_status st;
    if (output) {
        snprintf(path, sizeof path, "%s", output);
    } else if ((st = sg_rates_cache_path(path, sizeof path, &err)) != SG_OK) {
        return cli_fail_status(cmd, st, &err);
    }
    /* Host memory: the CPU buffer, the pinned one and the managed one. */
    const uint64_t avail = sg_available_memory();
    if (avail && o.bytes > avail / 4) {
        if (bytes_given)
            return cli_fail(cmd, "--bytes %s: three buffers of it need more than 3/4 of the %s "
                            "of memory available",
                            cli_bytes(o.bytes).s, cli_bytes(avail).s);
        o.bytes = avail / 4 > (16u << 20) ? avail / 4 : 16u << 20;
    }
    if (!json) fprintf(stderr, "measuring (about 10 s)...\n");
    sg_rates r;
    st = sg_calibrate(&o, &r, &err);
    if (st != SG_OK) return cli_fail_status(cmd, st, &err);
    st = sg_rates_save(path, &r, &err);
    if (st != SG_OK) return cli_fail_status(cmd, st, &err);
    if (json) {
        cli_json j;
        cli_json_begin(&j, stdout);
        cli_json_str(&j, "command", "calibrate");
        cli_json_str(&j, "origin", r.origin);
        cli_json_str(&j, "file", path);
        cli_json_u64(&j, "bytes", o.bytes);
        json_rates(&j, &r);
        cli_json_end(&j);
        return CLI_EXIT_OK;
    }
    printf("%s\n", r.origin);
    printf("  hbm_gbps           %8.1f  device memory, streamed\n", r.hbm_gbps);
    printf("  pcie_gbps          %8.1f  pinned host-to-device copies\n", r.pcie_gbps);
    printf("  zc_rand_gbps       %8.1f  GPU random 128-byte reads of pinned host memory\n",
           r.zc_rand_gbps);
    printf("  managed_rand_gbps  %8.1f  the same of managed memory with hints\n",
           r.managed_rand_gbps);
    printf("  cpu_scan_gbps      %8.1f  host memory read by the CPU threads\n", r.cpu_scan_gbps);
    printf("  managed_seq_gbps   %8.1f  GPU streamed reads of managed memory\n",
           r.managed_seq_gbps);
    printf("  host_shared_gbps   %8.1f  the two at the same time, summed", r.host_shared_gbps);
    if (r.shared_gpu_gbps > 0 || r.shared_cpu_gbps > 0)
        printf(" (GPU %.1f + CPU %.1f)", r.shared_gpu_gbps, r.shared_cpu_gbps);
    printf("\n");
    printf("written to %s\n", path);
    return CLI_EXIT_OK;
}

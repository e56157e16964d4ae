/* src/plan.c and src/rates.c: the placement planner on synthetic degree
 * tables (no GPU): every budget from "all on the host" to "all on the
 * device", the spill order per algorithm, the device budget never exceeded,
 * managed memory never above its cap, the owner split balancing GPU and CPU,
 * errors; the rates file reader. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../src/internal.h"

#define NP 257

/* A skewed graph of n vertices: vertex v has degree ~ D / (1 + v / 16)
 * (long lists first), breakpoints every n / (NP - 1) vertices. */
typedef struct table {
    uint64_t n, m;
    uint64_t v[NP], e[NP];
} table;

static void make_table(table *t, uint64_t n, uint64_t d)
{
    t->n = n;
    uint64_t e = 0, next = 1;
    t->v[0] = 0;
    t->e[0] = 0;
    for (uint64_t u = 0; u < n; u++) {
        e += d / (1 + u / 16) + 1;
        if (u + 1 == next * n / (NP - 1)) {
            t->v[next] = u + 1;
            t->e[next] = e;
            next++;
        }
    }
    t->m = e;
    assert_int_equal(next, NP);
}

static sg_plan_input input(const table *t, sg_plan_algo a, uint64_t budget, uint64_t cap)
{
    sg_plan_input in;
    memset(&in, 0, sizeof in);
    in.algo = a;
    in.n = t->n;
    in.m = t->m;
    in.weight_bytes = 4;
    in.pt_v = t->v;
    in.pt_e = t->e;
    in.n_pts = NP;
    in.device_budget = budget;
    in.managed_cap = cap;
    sg_rates_default(&in.rates);
    return in;
}

static uint64_t graph_bytes(const table *t, sg_plan_algo a)
{
    return 8 * (t->n + 1) + 4 * t->m + (a == SG_PLAN_BFS ? 0 : 4 * t->m);
}

/* Invariants every plan keeps. */
static void check_plan(const sg_plan_input *in, const sg_plan *p, const char *what)
{
    uint64_t dev = p->work_bytes, host = 0, managed = 0;
    /* the rates it priced are named, for the run's report */
    if (strcmp(p->rates_origin, in->rates.origin[0] ? in->rates.origin : "rates given") != 0)
        fail_msg("%s: rates_origin \"%s\", not \"%s\"", what, p->rates_origin, in->rates.origin);
    for (int k = 0; k < 3; k++) {
        dev += p->device_bytes[k];
        host += p->host_bytes[k];
        if (p->split[k] > in->n) fail_msg("%s: split %d = %llu > n", what, k,
                                          (unsigned long long)p->split[k]);
        if ((p->host_bytes[k] == 0) != (p->spill_kind[k] == SG_SPILL_NONE))
            fail_msg("%s: array %d: %llu host bytes but kind %s", what, k,
                     (unsigned long long)p->host_bytes[k], sg_spill_kind_name(p->spill_kind[k]));
        if (p->spill_kind[k] == SG_SPILL_MANAGED) managed += p->host_bytes[k];
    }
    if (dev > in->device_budget)
        fail_msg("%s: %llu device bytes over the budget %llu", what, (unsigned long long)dev,
                 (unsigned long long)in->device_budget);
    if (managed > in->managed_cap || managed != p->managed_bytes)
        fail_msg("%s: managed %llu (reported %llu), cap %llu", what, (unsigned long long)managed,
                 (unsigned long long)p->managed_bytes, (unsigned long long)in->managed_cap);
    const uint64_t total = graph_bytes(&(table){.n = in->n, .m = in->m}, in->algo);
    if (dev - p->work_bytes + host != total)
        fail_msg("%s: device %llu + host %llu != graph %llu", what,
                 (unsigned long long)(dev - p->work_bytes), (unsigned long long)host,
                 (unsigned long long)total);
    if (!(p->cpu_share >= 0.0 && p->cpu_share <= 1.0)) fail_msg("%s: cpu share %g", what, p->cpu_share);
    if (p->gpu_host_end < p->host_begin || p->gpu_host_end > in->n)
        fail_msg("%s: host range [%llu, %llu, %llu)", what, (unsigned long long)p->host_begin,
                 (unsigned long long)p->gpu_host_end, (unsigned long long)in->n);
    const double pass = fmax(fmax(p->t_device + p->t_gpu_host, p->t_cpu), p->t_shared);
    if (fabs(pass - p->predicted_pass_s) > 1e-12 ||
        fabs(p->passes * pass + p->t_refill + p->t_rounds + p->t_index + p->t_result +
             p->t_steps - p->predicted_s) > 1e-9 * p->predicted_s)
        fail_msg("%s: pass %g, predicted %g, total %g", what, pass, p->predicted_pass_s,
                 p->predicted_s);
    /* both sides share host memory only when both read some */
    if ((p->t_shared > 0.0) != (p->pcie_bytes_per_pass > 0 && p->cpu_share > 0.0))
        fail_msg("%s: shared %g s, %llu PCIe bytes, cpu share %g", what, p->t_shared,
                 (unsigned long long)p->pcie_bytes_per_pass, p->cpu_share);
    /* refills: the in-place forest's only (whole lists), after its first
     * round, the one pass at the pass time */
    const bool inplace = in->algo == SG_PLAN_MST && in->lists_unsorted && !p->forest_heads;
    if ((p->t_refill > 0.0) != inplace || (p->refill_passes > 0.0) != inplace ||
        (inplace && p->passes != 1.0))
        fail_msg("%s: refills %g passes, %g s; passes %g", what, p->refill_passes, p->t_refill,
                 p->passes);
    /* per-round vertex work: the in-place forests' only (whole lists or heads) */
    if ((p->t_rounds > 0.0) != (in->algo == SG_PLAN_MST))
        fail_msg("%s: rounds %g s", what, p->t_rounds);
    /* the light index's passes over the spilled W: SSSP's only, and where
     * the budget holds no index, a second pass instead */
    const bool sssp_spilled = in->algo == SG_PLAN_SSSP && p->host_bytes[2] + p->host_bytes[1] > 0;
    if (p->t_index > 0.0 ? !sssp_spilled : sssp_spilled && p->passes != 2.0)
        fail_msg("%s: light index %g s, %g passes", what, p->t_index, p->passes);
    if (host == 0 && (p->t_cpu != 0.0 || p->pcie_bytes_per_pass != 0 || p->cpu_share != 0.0))
        fail_msg("%s: nothing spilled, yet cpu %g s, %llu PCIe bytes", what, p->t_cpu,
                 (unsigned long long)p->pcie_bytes_per_pass);
}

/* Every budget from the working arrays alone to the whole graph: splits
 * only grow, predicted time only falls, the invariants hold, both ends. */
static void test_budget_sweep(void **state)
{
    (void)state;
    table t;
    make_table(&t, 4096, 400);
    for (int a = 0; a < 3; a++) {
        sg_plan_input in0 = input(&t, (sg_plan_algo)a, UINT64_MAX, UINT64_MAX);
        sg_plan p;
        sg_error err = {0};
        assert_int_equal(sg_plan_make(&in0, &p, &err), SG_OK);
        const uint64_t work = p.work_bytes, total = graph_bytes(&t, (sg_plan_algo)a);
        /* all on the device */
        for (int k = 0; k < 3; k++) {
            assert_int_equal(p.host_bytes[k], 0);
            if (a != SG_PLAN_BFS || k < 2) assert_int_equal(p.split[k], t.n);
        }
        assert_true(p.cpu_share == 0.0);
        check_plan(&in0, &p, "unbounded");
        uint64_t prev_split[3] = {0, 0, 0};
        double prev_t = INFINITY;
        uint64_t prev_dev = 0;
        char what[128];
        for (uint64_t b = work; b <= work + total; b += (total + 63) / 64) {
            sg_plan_input in = input(&t, (sg_plan_algo)a, b, total / 3);
            snprintf(what, sizeof what, "%s, budget %llu", sg_plan_algo_name((sg_plan_algo)a),
                     (unsigned long long)b);
            if (sg_plan_make(&in, &p, &err) != SG_OK) fail_msg("%s: %s", what, err.msg);
            check_plan(&in, &p, what);
            for (int k = 0; k < 3; k++) {
                if (p.split[k] < prev_split[k]) fail_msg("%s: split %d fell", what, k);
                prev_split[k] = p.split[k];
            }
            /* More budget never costs more than streaming the bytes it
             * adds from HBM (the device part can outgrow an idle CPU). */
            uint64_t dev = 0;
            for (int k = 0; k < 3; k++) dev += p.device_bytes[k];
            const double slack = p.passes * (double)(dev - prev_dev) / (in.rates.hbm_gbps * 1e9);
            if (p.predicted_s > prev_t + slack + 1e-15)
                fail_msg("%s: time rose %g -> %g (slack %g)", what, prev_t, p.predicted_s, slack);
            prev_t = p.predicted_s;
            prev_dev = dev;
            if (b == work) /* nothing but the working arrays: all spilled */
                for (int k = 0; k < 2; k++) assert_int_equal(p.split[k], 0);
        }
    }
}

/* The spill order: the forest spills W before A (A stays while W goes),
 * SSSP splits A and W at one vertex, BFS has no W at all. */
static void test_spill_order(void **state)
{
    (void)state;
    table t;
    make_table(&t, 4096, 400);
    sg_error err = {0};
    sg_plan p;
    for (int a = 0; a < 3; a++) {
        const uint64_t total = graph_bytes(&t, (sg_plan_algo)a);
        for (int q = 1; q < 8; q++) {
            sg_plan_input in = input(&t, (sg_plan_algo)a, 73 * t.n + total * q / 8, 0);
            assert_int_equal(sg_plan_make(&in, &p, &err), SG_OK);
            check_plan(&in, &p, "order");
            assert_int_equal(p.split[0], t.n); /* X is small and read most */
            if (a == SG_PLAN_MST) {
                assert_true(p.split[2] <= p.split[1]);
                if (p.split[1] < t.n) assert_int_equal(p.split[2], 0);
            } else if (a == SG_PLAN_SSSP) {
                assert_int_equal(p.split[1], p.split[2]);
            } else {
                assert_int_equal(p.host_bytes[2], 0);
                assert_int_equal(p.device_bytes[2], 0);
                assert_int_equal(p.spill_kind[2], SG_SPILL_NONE);
            }
            /* managed cap 0: everything spilled is pinned */
            for (int k = 0; k < 3; k++)
                if (p.host_bytes[k]) assert_int_equal(p.spill_kind[k], SG_SPILL_PINNED);
        }
    }
    /* the forest over unsorted lists (the in-place executor, 57 bytes per
     * vertex) reads W with A: they split together, and W's reads cost as
     * much as A's */
    for (int q = 1; q < 8; q++) {
        sg_plan_input in = input(&t, SG_PLAN_MST, 73 * t.n + graph_bytes(&t, SG_PLAN_MST) * q / 8, 0);
        sg_plan sorted;
        assert_int_equal(sg_plan_make(&in, &sorted, &err), SG_OK);
        in.lists_unsorted = true;
        assert_int_equal(sg_plan_make(&in, &p, &err), SG_OK);
        check_plan(&in, &p, "unsorted lists");
        assert_int_equal(p.work_bytes, 57 * t.n);
        /* its device walks (a top-K per entry) are priced below HBM rate */
        double stream = 0.0; /* A and W streamed at HBM rate */
        for (int k = 1; k < 3; k++)
            stream += (double)p.device_bytes[k] / (in.rates.hbm_gbps * 1e9);
        if (p.device_bytes[1] > 0) assert_true(p.t_device > 10.0 * stream);
        assert_int_equal(p.split[1], p.split[2]);
        if (p.host_bytes[2] > 0) assert_true(p.predicted_pass_s > sorted.predicted_pass_s);
        /* its first round streams pinned memory by DMA, faster than the
         * GPU reads managed memory: with the lists in managed memory the
         * pass is no shorter and the CPU threads take no less */
        sg_plan managed;
        in.managed_cap = UINT64_MAX;
        assert_int_equal(sg_plan_make(&in, &managed, &err), SG_OK);
        assert_true(managed.predicted_pass_s >= p.predicted_pass_s);
        assert_true(managed.gpu_host_end <= p.gpu_host_end);
        assert_true(managed.cpu_share >= p.cpu_share);
        if (p.host_bytes[1] > 0) {
            assert_int_equal(managed.spill_kind[1], SG_SPILL_MANAGED);
            assert_int_equal(p.spill_kind[1], SG_SPILL_PINNED);
        }
    }
    /* half the budget for sssp: splits match the table exactly */
    sg_plan_input in = input(&t, SG_PLAN_SSSP, UINT64_MAX, UINT64_MAX);
    const uint64_t room = 8 * (t.n + 1) + 8 * t.e[128];
    in.device_budget = 40 * t.n + room;
    assert_int_equal(sg_plan_make(&in, &p, &err), SG_OK);
    assert_int_equal(p.split[1], t.v[128]);
    assert_int_equal(p.device_bytes[1], 4 * t.e[128]);
    assert_int_equal(p.host_bytes[2], 4 * (t.m - t.e[128]));
    assert_int_equal(p.spill_kind[1], SG_SPILL_MANAGED);
    /* SSSP's model (fitted at R-MAT 26, docs/plan.md): one pass; its rounds
     * over device lists below HBM rate and over managed host lists below the
     * calibrated random-read rate (both measured so); its light index's
     * build reads the spilled W twice and A once, the GPU and the CPU
     * threads together, no faster than one host memory serves them */
    {
        sg_plan_input gin = in; /* as the hybrid backend plans it: the GPU reads all */
        gin.gpu_reads_all = true;
        gin.max_degree = t.m; /* a hub */
        sg_plan sp;
        assert_int_equal(sg_plan_make(&gin, &sp, &err), SG_OK);
        check_plan(&gin, &sp, "sssp, the GPU reads all");
        const double spilled = (double)(sp.host_bytes[1] + sp.host_bytes[2]);
        double stream = 0.0;
        for (int k = 0; k < 3; k++) stream += (double)sp.device_bytes[k] / (gin.rates.hbm_gbps * 1e9);
        assert_true(sp.passes == 1.0);
        assert_true(sp.cpu_share == 0.0);
        assert_true(sp.t_device > 10.0 * stream);
        assert_true(sp.t_gpu_host > spilled / (gin.rates.managed_rand_gbps * 1e9));
        /* pinned host lists of a graph with hubs: the same rounds' time
         * (its few large settle passes read in id order); of a hub-free
         * graph: gathered by the CPU threads beside the GPU's side share,
         * 0.11 of the threads' scan rate plus 0.39 of the scattered
         * zero-copy rate, or, where the reserve cannot hold the gather's
         * buffers, read in place at 0.66 of the zero-copy rate (many small
         * passes) */
        sg_plan_input pin = gin;
        pin.managed_cap = 0;
        pin.max_degree = t.m; /* a hub */
        sg_plan pp;
        assert_int_equal(sg_plan_make(&pin, &pp, &err), SG_OK);
        check_plan(&pin, &pp, "sssp, pinned host lists, a hub");
        assert_int_equal(pp.spill_kind[1], SG_SPILL_PINNED);
        assert_true(fabs(pp.t_gpu_host - sp.t_gpu_host) <= 1e-12 * sp.t_gpu_host);
        assert_true(pp.t_gpu_host < spilled / (pin.rates.zc_rand_gbps * 1e9));
        assert_false(pp.gathered);
        pin.max_degree = 1; /* no hub */
        assert_int_equal(sg_plan_make(&pin, &pp, &err), SG_OK);
        check_plan(&pin, &pp, "sssp, pinned host lists, no hub");
        assert_true(pp.gathered);
        const double gathered_gbps =
            0.11 * pin.rates.cpu_scan_gbps + 0.39 * pin.rates.zc_rand_gbps;
        assert_true(fabs(pp.t_gpu_host - spilled / (gathered_gbps * 1e9)) <= 1e-9 * pp.t_gpu_host);
        sg_plan_input tight = pin; /* reserves modelled, no room for the gather */
        tight.executor_reserves = true;
        tight.work_bytes = 1000;
        tight.device_budget = 1000 + sgi_sssp_gather_bytes(tight.n, tight.m, 1) - 1;
        tight.forced = false;
        if (sg_plan_make(&tight, &pp, &err) == SG_OK) {
            check_plan(&tight, &pp, "sssp, pinned host lists, no hub, no room to gather");
            assert_false(pp.gathered);
            assert_true(pp.t_gpu_host > 0.0);
            const double hb = (double)(pp.host_bytes[0] + pp.host_bytes[1] + pp.host_bytes[2]);
            assert_true(fabs(pp.t_gpu_host - hb / (0.66 * pin.rates.zc_rand_gbps * 1e9)) <=
                        1e-9 * pp.t_gpu_host);
        } else {
            fail_msg("sssp, no room to gather: %s", err.msg);
        }
        /* its build reads the spilled W and A once (the fused pass), through one
         * host memory, at less than its whole rate */
        assert_true(sp.t_index > ((double)sp.host_bytes[2] + (double)sp.host_bytes[1]) /
                                     (gin.rates.host_shared_gbps * 1e9) &&
                    sp.t_index < (2.0 * (double)sp.host_bytes[2] + (double)sp.host_bytes[1]) /
                                     (0.5 * gin.rates.host_shared_gbps * 1e9));
        sg_plan_input bin = input(&t, SG_PLAN_BFS, in.device_budget, UINT64_MAX);
        sg_plan bp;
        assert_int_equal(sg_plan_make(&bin, &bp, &err), SG_OK);
        assert_true(bp.t_index == 0.0);
    }
    in.device_budget -= 1; /* one byte less: the split moves down a breakpoint */
    assert_int_equal(sg_plan_make(&in, &p, &err), SG_OK);
    assert_int_equal(p.split[1], t.v[127]);
}

/* Managed memory takes the spilled arrays in priority order while they fit
 * under the cap; pinned after that. */
static void test_managed_cap(void **state)
{
    (void)state;
    table t;
    make_table(&t, 4096, 400);
    sg_error err = {0};
    sg_plan p;
    sg_plan_input in = input(&t, SG_PLAN_MST, 73 * t.n + 8 * (t.n + 1), 0);
    /* X on the device, A and W spilled whole */
    in.managed_cap = 4 * t.m; /* room for A only */
    assert_int_equal(sg_plan_make(&in, &p, &err), SG_OK);
    check_plan(&in, &p, "cap A");
    assert_int_equal(p.split[1], 0);
    assert_int_equal(p.spill_kind[1], SG_SPILL_MANAGED);
    assert_int_equal(p.spill_kind[2], SG_SPILL_PINNED);
    in.managed_cap = 8 * t.m;
    assert_int_equal(sg_plan_make(&in, &p, &err), SG_OK);
    assert_int_equal(p.spill_kind[2], SG_SPILL_MANAGED);
    assert_int_equal(p.managed_bytes, 8 * t.m);
    in.managed_cap = 4 * t.m - 1;
    assert_int_equal(sg_plan_make(&in, &p, &err), SG_OK);
    assert_int_equal(p.spill_kind[1], SG_SPILL_PINNED); /* one byte short: neither fits */
    assert_int_equal(p.spill_kind[2], SG_SPILL_PINNED);
    assert_int_equal(p.managed_bytes, 0);
}

/* The owner split follows the rates: a slow CPU leaves the host range to the
 * GPU, a slow PCIe gives it to the CPU, equal rates share it. */
static void test_owner_split(void **state)
{
    (void)state;
    table t;
    make_table(&t, 4096, 400);
    sg_error err = {0};
    sg_plan p;
    /* a directed BFS: every reached list read once, from managed memory at
     * BFS_GPU_HOST (0.45) of the PCIe rate (src/plan.c) */
    sg_plan_input in = input(&t, SG_PLAN_BFS, 16 * t.n + 8 * (t.n + 1), UINT64_MAX);
    in.directed = true;
    in.rates.cpu_scan_gbps = 1e-6;
    assert_int_equal(sg_plan_make(&in, &p, &err), SG_OK);
    check_plan(&in, &p, "slow cpu");
    assert_int_equal(p.gpu_host_end, t.n);
    assert_true(p.cpu_share == 0.0);
    assert_int_equal(p.pcie_bytes_per_pass, 4 * t.m);
    in.rates.cpu_scan_gbps = 88.0;
    in.rates.pcie_gbps = 1e-6;
    snprintf(in.rates.origin, sizeof in.rates.origin, "slow.rates");
    assert_int_equal(sg_plan_make(&in, &p, &err), SG_OK);
    check_plan(&in, &p, "slow pcie");
    assert_string_equal(p.rates_origin, "slow.rates");
    in.rates.origin[0] = '\0'; /* rates set by a caller, unnamed */
    assert_int_equal(sg_plan_make(&in, &p, &err), SG_OK);
    assert_string_equal(p.rates_origin, "rates given");
    assert_int_equal(p.gpu_host_end, 0);
    assert_true(p.cpu_share == 1.0);
    assert_int_equal(p.pcie_bytes_per_pass, 0);
    in.rates.pcie_gbps = 88.0 / 0.45; /* the GPU's reads at 88 GB/s */
    in.rates.host_shared_gbps = 176.0; /* host memory serves both at their own rates */
    assert_int_equal(sg_plan_make(&in, &p, &err), SG_OK);
    check_plan(&in, &p, "equal rates");
    if (!(p.cpu_share > 0.3 && p.cpu_share < 0.7))
        fail_msg("equal rates: cpu share %g (owner split at %llu)", p.cpu_share,
                 (unsigned long long)p.gpu_host_end);
    /* the balanced split is no slower than either extreme */
    const double both = p.predicted_pass_s;
    assert_true(both <= p.t_cpu + p.t_gpu_host + 1e-12);
    assert_true(both <= 4.0 * t.m / 88e9 + 1e-12);
    /* host memory that serves the two together at less than their sum
     * bounds the pass; the owner split stays while sharing still beats
     * either side alone */
    const sg_plan free_host = p;
    const double host_bytes = (double)free_host.pcie_bytes_per_pass / (1.0 - p.cpu_share);
    in.rates.host_shared_gbps = 100.0;
    assert_int_equal(sg_plan_make(&in, &p, &err), SG_OK);
    check_plan(&in, &p, "shared host memory");
    assert_int_equal(p.gpu_host_end, free_host.gpu_host_end);
    assert_true(fabs(p.t_shared - host_bytes / 100e9) < 1e-6 * p.t_shared);
    assert_true(p.predicted_pass_s == p.t_shared && p.t_shared > both);
    /* below one side's own rate, one side takes it all */
    in.rates.host_shared_gbps = 44.0;
    assert_int_equal(sg_plan_make(&in, &p, &err), SG_OK);
    check_plan(&in, &p, "slow shared host memory");
    assert_true(p.t_shared == 0.0 && (p.cpu_share == 0.0 || p.cpu_share == 1.0));
    assert_true(fabs(p.predicted_pass_s - host_bytes / 88e9) < 1e-6 * p.predicted_pass_s);
}

/* BFS's and SSSP's host reads by the kind of search the graph gets
 * (src/plan.c). BFS: an
 * undirected graph with hubs takes bottom-up steps that read the heads of
 * the lists (a fortieth of the spilled A, at the random-read rate whatever
 * the memory kind); a graph without hubs, or a directed one, reads every
 * list once (managed memory at 0.45 of the PCIe rate, pinned at the
 * random-read rate). BFS and SSSP add the result's copy to the host. */
/* The in-place forest's model (src/plan.c): its first round at the pass
 * time, then the refills, the GPU alone: 0.2 passes with hubs, 1.05
 * without (FOREST_HUBFREE_PASSES, fitted to SSCA2 26), over the device part
 * at 0.078 of the HBM rate (the first round's walks: 0.056) and the
 * spilled part at 0.72 and 0.98 of the PCIe rate;
 * twice the rounds over the vertices without hubs, the device walks as
 * fast per entry; so a plan with every list on the device, and one with
 * some spilled, predict more without hubs. Pinned memory predicts what
 * managed memory does, with hubs or without (measured within 4-10 % of
 * each other both ways). An unknown max_degree (0) keeps the constants
 * fitted with hubs. */
static void test_forest_hub_free(void **state)
{
    (void)state;
    table t;
    make_table(&t, 1u << 20, 24); /* a mean degree of ~30, lists of at most 25 */
    sg_error err = {0};
    const uint64_t n = t.n, m = t.m, hub = 16 * m / n + 1;
    for (int spilled = 0; spilled < 2; spilled++) {
        const uint64_t budget =
            spilled ? 57 * n + graph_bytes(&t, SG_PLAN_MST) / 2 : UINT64_MAX;
        sg_plan_input in = input(&t, SG_PLAN_MST, budget, UINT64_MAX / 4);
        in.lists_unsorted = true;
        sg_plan hubs, free_, unknown;
        in.max_degree = hub;
        assert_int_equal(sg_plan_make(&in, &hubs, &err), SG_OK);
        check_plan(&in, &hubs, "in-place forest, a hub");
        in.max_degree = 0;
        assert_int_equal(sg_plan_make(&in, &unknown, &err), SG_OK);
        check_plan(&in, &unknown, "in-place forest, max degree unknown");
        in.max_degree = hub - 1;
        assert_int_equal(sg_plan_make(&in, &free_, &err), SG_OK);
        check_plan(&in, &free_, "in-place forest, no hub");
        /* the first round, then the refills: 0.2 passes with hubs, 1.05 without */
        assert_true(hubs.passes == 1.0 && unknown.passes == 1.0 && free_.passes == 1.0);
        assert_true(fabs(hubs.refill_passes - 0.2) < 1e-12 &&
                    fabs(unknown.refill_passes - 0.2) < 1e-12 &&
                    fabs(free_.refill_passes - 1.05) < 1e-12);
        assert_true(unknown.predicted_s == hubs.predicted_s);
        /* log2(2^20) = 20: 5 rounds with hubs, 10 without */
        assert_true(fabs(free_.t_rounds - 2.0 * hubs.t_rounds) < 1e-12);
        /* the same placement and device walks */
        for (int k = 0; k < 3; k++) assert_int_equal(free_.split[k], hubs.split[k]);
        assert_true(fabs(free_.t_device - hubs.t_device) < 1e-9 * hubs.t_device + 1e-15);
        if (!spilled) assert_true(hubs.host_bytes[1] == 0 && hubs.t_device > 0.0);
        else assert_true(hubs.host_bytes[1] > 0 && hubs.cpu_share > 0.0);
        assert_true(free_.predicted_s > 1.5 * hubs.predicted_s);
        /* the refills: the device part at a share of the HBM rate, the
         * spilled part at a share of the PCIe rate */
        const sg_plan *pl[2] = {&hubs, &free_};
        const double rr[2] = {0.72, 0.98};
        for (int i = 0; i < 2; i++) {
            const double hb = (double)(pl[i]->host_bytes[0] + pl[i]->host_bytes[1] +
                                       pl[i]->host_bytes[2]);
            /* the device part at 0.078 of HBM, the first round's at 0.056 */
            const double want = pl[i]->refill_passes * (pl[i]->t_device * 0.056 / 0.078 +
                                                        hb / (rr[i] * in.rates.pcie_gbps * 1e9));
            assert_true(fabs(pl[i]->t_refill - want) < 1e-9 * want);
        }
        if (!spilled) continue;
        /* pinned host memory: as managed, with a hub or without */
        sg_plan hubs_p, free_p;
        in.managed_cap = 0;
        in.max_degree = hub;
        assert_int_equal(sg_plan_make(&in, &hubs_p, &err), SG_OK);
        check_plan(&in, &hubs_p, "in-place forest, a hub, pinned");
        in.max_degree = hub - 1;
        assert_int_equal(sg_plan_make(&in, &free_p, &err), SG_OK);
        check_plan(&in, &free_p, "in-place forest, no hub, pinned");
        assert_true(hubs_p.spill_kind[1] == SG_SPILL_PINNED &&
                    free_p.spill_kind[1] == SG_SPILL_PINNED);
        assert_true(fabs(hubs_p.predicted_s - hubs.predicted_s) < 1e-12);
        assert_true(fabs(free_p.predicted_s - free_.predicted_s) < 1e-12);
    }
}

/* The speculative contraction's model (input forest_spec, src/plan.c
 * FOREST_SPEC_*): on the in-place forest without hubs whose A spills, the
 * refills of 0.18 passes, then A's host part once (inside t_refill) at
 * 0.84 of the PCIe rate from pinned memory with the weights deferred
 * (forest_defer, where the plan gives the CPU a share), 0.78 without them,
 * 0.62 from managed, and 6.5 rounds of vertex work; the placement as
 * without it, and a shorter prediction. Not where every list is on the
 * device, nor with hubs, nor without forest_spec: the plans are those of
 * the model without it. */
static double spec_gather_s(const sg_plan *spec, const sg_plan *plain)
{
    return spec->t_refill - plain->t_refill * 0.18 / plain->refill_passes;
}

static void test_forest_spec(void **state)
{
    (void)state;
    table t;
    make_table(&t, 1u << 20, 24); /* lists of at most 25: no hubs */
    sg_error err = {0};
    const uint64_t n = t.n, m = t.m, hub = 16 * m / n + 1;
    for (int spilled = 0; spilled < 2; spilled++)
        for (int managed = 0; managed < 2; managed++)
            for (int hubs = 0; hubs < 2; hubs++)
                for (int defer = 0; defer < 2; defer++) {
                    const uint64_t budget =
                        spilled ? 57 * n + graph_bytes(&t, SG_PLAN_MST) / 2 : UINT64_MAX;
                    sg_plan_input in =
                        input(&t, SG_PLAN_MST, budget, managed ? UINT64_MAX / 4 : 0);
                    in.lists_unsorted = true;
                    in.max_degree = hubs ? hub : hub - 1;
                    sg_plan plain, spec;
                    assert_int_equal(sg_plan_make(&in, &plain, &err), SG_OK);
                    in.forest_spec = true;
                    in.forest_defer = defer;
                    assert_int_equal(sg_plan_make(&in, &spec, &err), SG_OK);
                    check_plan(&in, &spec, "in-place forest, speculative");
                    for (int k = 0; k < 3; k++) assert_int_equal(spec.split[k], plain.split[k]);
                    assert_true(!plain.forest_spec);
                    if (!spilled || hubs) {
                        assert_true(!spec.forest_spec && spec.predicted_s == plain.predicted_s);
                        continue;
                    }
                    assert_true(spec.forest_spec && spec.host_bytes[1] > 0);
                    assert_true(spec.gpu_host_end < n); /* a CPU share: the weights can defer */
                    assert_true(fabs(spec.refill_passes - 0.18) < 1e-12);
                    const double rate = managed ? 0.62 : defer ? 0.84 : 0.78;
                    const double gather =
                        (double)spec.host_bytes[1] / (rate * in.rates.pcie_gbps * 1e9);
                    assert_true(fabs(spec_gather_s(&spec, &plain) - gather) <
                                1e-9 * spec.t_refill);
                    assert_true(fabs(spec.t_rounds - 6.5 * (double)n * 0.19e-9) < 1e-12);
                    assert_true(spec.predicted_s < plain.predicted_s);
                }
    /* The weights stay on the link where the executor cannot defer them:
     * no CPU share (every host list the GPU's), or A's host part past 2^32
     * entries (a position no longer fits a key's word): 0.78 with
     * forest_defer set. */
    for (int kase = 0; kase < 2; kase++) {
        table big = t;
        if (kase == 1) /* the same lists, 8,192 times as long: m past 2^32 */
            for (unsigned i = 0; i < NP; i++) big.e[i] = t.e[i] * 8192;
        big.m = big.e[NP - 1];
        const uint64_t bm = big.m;
        sg_plan_input in = input(&big, SG_PLAN_MST, 57 * n + graph_bytes(&big, SG_PLAN_MST) / 4, 0);
        in.lists_unsorted = true;
        in.max_degree = 16 * bm / n - 1; /* no hubs */
        in.gpu_reads_all = kase == 0;
        sg_plan plain, spec;
        assert_int_equal(sg_plan_make(&in, &plain, &err), SG_OK);
        in.forest_spec = in.forest_defer = true;
        assert_int_equal(sg_plan_make(&in, &spec, &err), SG_OK);
        check_plan(&in, &spec, "in-place forest, speculative, weights not deferred");
        assert_true(spec.forest_spec);
        if (kase == 0) assert_int_equal(spec.gpu_host_end, n);
        else assert_true(spec.gpu_host_end < n && spec.host_bytes[1] / 4 > UINT32_MAX);
        const double gather = (double)spec.host_bytes[1] / (0.78 * in.rates.pcie_gbps * 1e9);
        assert_true(fabs(spec_gather_s(&spec, &plain) - gather) < 1e-9 * spec.t_refill);
    }
}

/* The renumbering hint: only where A spills, the graph has hubs, the
 * degrees are known not to ascend, and the forest reads whole lists; the
 * placement and the times are the same with or without it. */
static void test_degree_hint(void **state)
{
    (void)state;
    table t;
    make_table(&t, 1u << 16, 1u << 16); /* long lists first: hubs, ~130 a vertex */
    sg_error err = {0};
    const uint64_t n = t.n, m = t.m, hub = 16 * m / n + 1;
    const sg_plan_algo algos[] = {SG_PLAN_MST, SG_PLAN_SSSP, SG_PLAN_BFS};
    for (int ai = 0; ai < 3; ai++) {
        const sg_plan_algo a = algos[ai];
        for (int spilled = 0; spilled < 2; spilled++) {
            const uint64_t budget = spilled ? 128 * n + graph_bytes(&t, a) / 4 : UINT64_MAX;
            sg_plan_input in = input(&t, a, budget, UINT64_MAX / 4);
            in.lists_unsorted = a == SG_PLAN_MST;
            in.gpu_reads_all = a != SG_PLAN_MST;
            in.max_degree = hub;
            sg_plan base, p;
            assert_int_equal(sg_plan_make(&in, &base, &err), SG_OK); /* order unknown */
            assert_false(base.hint_degree_asc);
            if (spilled ? base.host_bytes[1] == 0 : base.host_bytes[1] > 0)
                fail_msg("%s, %s: %llu bytes of A spilled", sg_plan_algo_name(a),
                         spilled ? "spilled" : "in core", (unsigned long long)base.host_bytes[1]);
            for (int o = SG_PLAN_DEGREES_UNKNOWN; o <= SG_PLAN_DEGREES_OTHER; o++)
                for (int h = 0; h < 3; h++) { /* a hub, none, not known */
                    in.degree_order = (sg_plan_degree_order)o;
                    in.max_degree = h == 0 ? hub : h == 1 ? hub - 1 : 0;
                    assert_int_equal(sg_plan_make(&in, &p, &err), SG_OK);
                    check_plan(&in, &p, "degree hint");
                    const bool want = spilled && o == SG_PLAN_DEGREES_OTHER && h == 0;
                    if (p.hint_degree_asc != want)
                        fail_msg("%s, %s, order %d, hub case %d: hint %d", sg_plan_algo_name(a),
                                 spilled ? "spilled" : "in core", o, h, p.hint_degree_asc);
                    if (h == 0) {
                        for (int k = 0; k < 3; k++) assert_int_equal(p.split[k], base.split[k]);
                        assert_true(p.predicted_s == base.predicted_s);
                    }
                }
            in.degree_order = SG_PLAN_DEGREES_OTHER;
            in.max_degree = hub;
            if (a == SG_PLAN_MST && spilled) { /* the heads of weight-ordered lists: no hint */
                in.lists_weight_order = true;
                if (sg_plan_make(&in, &p, &err) != SG_OK) fail_msg("heads: %s", err.msg);
                assert_true(p.forest_heads);
                assert_false(p.hint_degree_asc);
            }
        }
    }
    sg_plan_input in = input(&t, SG_PLAN_MST, UINT64_MAX, UINT64_MAX / 4);
    in.degree_order = (sg_plan_degree_order)3;
    sg_plan p;
    assert_int_equal(sg_plan_make(&in, &p, &err), SG_E_INVALID);
    assert_non_null(strstr(err.msg, "degree order 3"));
}

static void test_bfs_model(void **state)
{
    (void)state;
    table t;
    make_table(&t, 4096, 400);
    sg_error err = {0};
    const uint64_t budget = 16 * t.n + 8 * (t.n + 1); /* X and the work: A spilled */
    const double spilled = 4.0 * (double)t.m;
    sg_plan p;
    sg_plan_input in = input(&t, SG_PLAN_BFS, budget, UINT64_MAX);
    const sg_rates r = in.rates;
    /* hubs: a list of 16 mean degrees or more (sgi_hub_free) */
    const uint64_t hub = 16 * t.m / t.n + 1;
    struct {
        uint64_t max_degree;
        bool directed, pinned;
        double frac, gbps;
        const char *what;
    } cases[] = {
        {hub, false, false, 0.025, r.zc_rand_gbps, "hubs, managed"},
        {hub, false, true, 0.025, r.zc_rand_gbps, "hubs, pinned"},
        {t.m, false, false, 0.025, r.zc_rand_gbps, "a star's hub, managed"},
        {hub - 1, false, false, 1.0, 0.45 * r.pcie_gbps, "hub-free, managed"},
        {hub - 1, false, true, 1.0, 0.10 * r.cpu_scan_gbps + 0.38 * r.zc_rand_gbps,
         "hub-free, pinned: gathered"},
        {0, false, true, 1.0, 0.10 * r.cpu_scan_gbps + 0.38 * r.zc_rand_gbps,
         "degree unknown (0), pinned: gathered"},
        {hub, true, false, 1.0, 0.45 * r.pcie_gbps, "directed, managed"},
        {hub, true, true, 1.0, r.zc_rand_gbps, "directed, pinned"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        in = input(&t, SG_PLAN_BFS, budget, cases[i].pinned ? 0 : UINT64_MAX);
        in.max_degree = cases[i].max_degree;
        in.directed = cases[i].directed;
        in.gpu_reads_all = true;
        assert_int_equal(sg_plan_make(&in, &p, &err), SG_OK);
        check_plan(&in, &p, cases[i].what);
        assert_int_equal(p.host_bytes[1], 4 * t.m);
        assert_int_equal(p.spill_kind[1], cases[i].pinned ? SG_SPILL_PINNED : SG_SPILL_MANAGED);
        const double bytes = cases[i].frac * spilled;
        if (fabs((double)p.pcie_bytes_per_pass - bytes) > 1.0 + 1e-9 * bytes ||
            fabs(p.t_gpu_host - bytes / (cases[i].gbps * 1e9)) > 1e-9 * p.t_gpu_host)
            fail_msg("%s: %llu bytes in %g s, wanted %g in %g", cases[i].what,
                     (unsigned long long)p.pcie_bytes_per_pass, p.t_gpu_host, bytes,
                     bytes / (cases[i].gbps * 1e9));
        assert_true(fabs(p.t_result - 4.0 * (double)t.n / (r.pcie_gbps * 1e9)) < 1e-12);
    }
    /* SSSP's rounds: each spilled list once; on a graph with hubs at 0.60
     * of the PCIe rate from either memory kind (large settle passes in id
     * order), without hubs at 0.40 from managed memory and 0.66 of the
     * random-read rate from pinned */
    const uint64_t sbudget = 40 * t.n + 8 * (t.n + 1); /* X and the work: A and W spilled */
    struct {
        uint64_t max_degree;
        bool pinned;
        double gbps;
        const char *what;
    } sc[] = {
        {hub, false, 0.60 * r.pcie_gbps, "sssp, hubs, managed"},
        {hub, true, 0.60 * r.pcie_gbps, "sssp, hubs, pinned"},
        {hub - 1, false, 0.40 * r.pcie_gbps, "sssp, hub-free, managed"},
        {hub - 1, true, 0.11 * r.cpu_scan_gbps + 0.39 * r.zc_rand_gbps,
         "sssp, hub-free, pinned: gathered"},
    };
    for (size_t i = 0; i < sizeof sc / sizeof sc[0]; i++) {
        in = input(&t, SG_PLAN_SSSP, sbudget, sc[i].pinned ? 0 : UINT64_MAX);
        in.max_degree = sc[i].max_degree;
        in.gpu_reads_all = true;
        assert_int_equal(sg_plan_make(&in, &p, &err), SG_OK);
        check_plan(&in, &p, sc[i].what);
        assert_int_equal(p.gathered, sc[i].pinned && sc[i].max_degree < hub);
        const double bytes = 8.0 * (double)t.m;
        assert_int_equal(p.host_bytes[1] + p.host_bytes[2], 8 * t.m);
        if (fabs(p.t_gpu_host - bytes / (sc[i].gbps * 1e9)) > 1e-9 * p.t_gpu_host)
            fail_msg("%s: %g s for %g bytes, wanted %g GB/s", sc[i].what, p.t_gpu_host, bytes,
                     sc[i].gbps);
    }
    /* the result's copy: SSSP 8 bytes a vertex, the forest none */
    in = input(&t, SG_PLAN_SSSP, UINT64_MAX, 0);
    assert_int_equal(sg_plan_make(&in, &p, &err), SG_OK);
    assert_true(fabs(p.t_result - 8.0 * (double)t.n / (r.pcie_gbps * 1e9)) < 1e-12);
    in = input(&t, SG_PLAN_MST, UINT64_MAX, 0);
    assert_int_equal(sg_plan_make(&in, &p, &err), SG_OK);
    assert_true(p.t_result == 0.0);
}

/* The latency of an earlier search's steps: BFS 0.1 ms a level, SSSP 16 us a
 * round, added to the prediction and nothing else; none without a count,
 * and the forest ignores one. */
static void test_latency_steps(void **state)
{
    (void)state;
    table t;
    make_table(&t, 4096, 400);
    sg_error err = {0};
    static const struct {
        sg_plan_algo algo;
        uint64_t budget, steps;
        double per;
    } cases[] = {
        {SG_PLAN_BFS, 16 * 4096 + 8 * 4097, 690, 0.10e-3},   /* A spilled */
        {SG_PLAN_BFS, UINT64_MAX, 8, 0.10e-3},               /* in core */
        {SG_PLAN_SSSP, 40 * 4096 + 8 * 4097, 13865, 16e-6},  /* A and W spilled */
        {SG_PLAN_SSSP, UINT64_MAX, 97, 16e-6},
        {SG_PLAN_MST, UINT64_MAX, 14, 0.0},                  /* ignored */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sg_plan_input in = input(&t, cases[i].algo, cases[i].budget, UINT64_MAX);
        in.gpu_reads_all = cases[i].algo != SG_PLAN_MST;
        in.lists_unsorted = cases[i].algo == SG_PLAN_MST;
        sg_plan without, with;
        assert_int_equal(sg_plan_make(&in, &without, &err), SG_OK);
        in.steps = cases[i].steps;
        assert_int_equal(sg_plan_make(&in, &with, &err), SG_OK);
        check_plan(&in, &with, sg_plan_algo_name(cases[i].algo));
        assert_true(without.t_steps == 0.0 && without.steps == 0);
        const double want = (double)cases[i].steps * cases[i].per;
        if (fabs(with.t_steps - want) > 1e-12 ||
            fabs(with.predicted_s - without.predicted_s - want) > 1e-9 * with.predicted_s)
            fail_msg("%s, %llu steps: %g s of latency, predicted %g against %g",
                     sg_plan_algo_name(cases[i].algo), (unsigned long long)cases[i].steps,
                     with.t_steps, with.predicted_s, without.predicted_s);
        assert_int_equal(with.steps, cases[i].algo == SG_PLAN_MST ? 0 : cases[i].steps);
        for (int k = 0; k < 3; k++) assert_int_equal(with.split[k], without.split[k]);
    }
}

static void test_errors(void **state)
{
    (void)state;
    table t;
    make_table(&t, 4096, 400);
    sg_error err = {0};
    sg_plan p;
    memset(&p, 0x5a, sizeof p);
    const sg_plan before = p;
    sg_plan_input in = input(&t, SG_PLAN_SSSP, 40 * t.n - 1, 0);
    assert_int_equal(sg_plan_make(&in, &p, &err), SG_E_NOMEM);
    if (!strstr(err.msg, "working arrays") || !strstr(err.msg, "--device-mem"))
        fail_msg("\"%s\"", err.msg);
    assert_memory_equal(&p, &before, sizeof p);
    in = input(&t, SG_PLAN_SSSP, UINT64_MAX, 0);
    in.weight_bytes = 0;
    assert_int_equal(sg_plan_make(&in, &p, &err), SG_E_INVALID);
    assert_non_null(strstr(err.msg, "needs weights"));
    in = input(&t, SG_PLAN_MST, UINT64_MAX, 0);
    uint64_t v2[NP];
    memcpy(v2, t.v, sizeof v2);
    v2[5] = v2[4];
    in.pt_v = v2;
    assert_int_equal(sg_plan_make(&in, &p, &err), SG_E_INVALID);
    assert_non_null(strstr(err.msg, "breakpoint 5"));
    in = input(&t, SG_PLAN_MST, UINT64_MAX, 0);
    in.n_pts = NP - 1; /* does not end at (n, m) */
    assert_int_equal(sg_plan_make(&in, &p, &err), SG_E_INVALID);
    assert_non_null(strstr(err.msg, "(n, m)"));
    in = input(&t, SG_PLAN_BFS, UINT64_MAX, 0);
    in.rates.hbm_gbps = 0.0;
    assert_int_equal(sg_plan_make(&in, &p, &err), SG_E_INVALID);
    assert_non_null(strstr(err.msg, "rates"));
    in = input(&t, SG_PLAN_BFS, 16 * t.n, 0); /* all spilled: 16 KiB + 1.6 MB */
    in.host_bytes = 1000;
    assert_int_equal(sg_plan_make(&in, &p, &err), SG_E_NOMEM);
    assert_non_null(strstr(err.msg, "host memory"));
    in.n = 0;
    assert_int_equal(sg_plan_make(&in, &p, &err), SG_E_INVALID);
    assert_int_equal(sg_plan_make(NULL, &p, &err), SG_E_INVALID);
    sg_plan_algo a;
    assert_true(sg_plan_algo_parse("sssp", &a) && a == SG_PLAN_SSSP);
    assert_false(sg_plan_algo_parse("dfs", &a));
    assert_string_equal(sg_plan_algo_name(SG_PLAN_BFS), "bfs");
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static void test_rates_file(void **state)
{
    (void)state;
    sg_rates r, d;
    sg_error err = {0};
    sg_rates_default(&d);
    assert_true(d.hbm_gbps > 0 && d.cpu_scan_gbps > 0 && strstr(d.origin, "defaults"));
    write_file("rates.txt", "# measured\n\npcie_gbps 25.5\n  cpu_scan_gbps\t40\n");
    assert_int_equal(sg_rates_load("rates.txt", &r, &err), SG_OK);
    assert_true(r.pcie_gbps == 25.5 && r.cpu_scan_gbps == 40.0);
    assert_true(r.hbm_gbps == d.hbm_gbps); /* not given: the default */
    assert_string_equal(r.origin, "rates.txt");
    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"pcie_gbps 25\nhbm 3\n", "rates.txt:2: unknown key 'hbm'"},
        {"pcie_gbps fast\n", "rates.txt:1: pcie_gbps: expected a positive number"},
        {"pcie_gbps -1\n", "rates.txt:1: pcie_gbps: expected a positive number"},
        {"pcie_gbps 5 6\n", "rates.txt:1: pcie_gbps: expected a positive number"},
        {"pcie_gbps\n", "rates.txt:1: pcie_gbps: expected a positive number"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_file("rates.txt", bad[i].text);
        sg_rates_default(&r);
        r.pcie_gbps = 7.0;
        assert_int_equal(sg_rates_load("rates.txt", &r, &err), SG_E_FORMAT);
        if (!strstr(err.msg, bad[i].msg)) fail_msg("\"%s\" lacks \"%s\"", err.msg, bad[i].msg);
        assert_true(r.pcie_gbps == 7.0); /* untouched */
    }
    assert_int_equal(sg_rates_load("no-such-rates", &r, &err), SG_E_NOTFOUND);
    assert_non_null(strstr(err.msg, "no-such-rates"));
    char path[512];
    assert_int_equal(setenv("SPILLGRAPH_RATES", "/tmp/x-rates", 1), 0);
    assert_int_equal(sg_rates_cache_path(path, sizeof path, &err), SG_OK);
    assert_string_equal(path, "/tmp/x-rates");
    assert_int_equal(unsetenv("SPILLGRAPH_RATES"), 0);
    assert_int_equal(setenv("XDG_CACHE_HOME", "/c", 1), 0);
    assert_int_equal(sg_rates_cache_path(path, sizeof path, &err), SG_OK);
    assert_true(strncmp(path, "/c/spillgraph/rates-", 20) == 0);
    assert_int_equal(sg_rates_cache_path(path, 8, &err), SG_E_INVALID);
}

/* sg_calibrate measures the CPU rate (and the GPU's where one is present),
 * sg_rates_save writes a file sg_rates_load reads back, creating its
 * directories and replacing an old file whole. */
static void test_calibrate_save(void **state)
{
    (void)state;
    sg_rates r, back;
    sg_error err = {0};
    const sg_calibrate_options o = {.device = 0, .bytes = 16u << 20, .threads = 2};
    if (sg_calibrate(&o, &r, &err) != SG_OK) fail_msg("sg_calibrate: %s", err.msg);
    assert_true(r.cpu_scan_gbps > 0.0 && r.hbm_gbps > 0.0 && r.managed_rand_gbps > 0.0);
    assert_non_null(strstr(r.origin, "CPU measured"));
    if (sg_gpu_count() > 0) {
        assert_non_null(strstr(r.origin, "GPU 0 ("));
        /* the shared rate is the two sides' measured parts summed */
        assert_true(r.shared_gpu_gbps > 0.0 && r.shared_cpu_gbps > 0.0);
        assert_true(fabs(r.host_shared_gbps - r.shared_gpu_gbps - r.shared_cpu_gbps) <
                    1e-9 * r.host_shared_gbps);
    } else {
        assert_non_null(strstr(r.origin, "GPU rates are the defaults (no GPU)"));
        assert_true(r.shared_gpu_gbps == 0.0 && r.shared_cpu_gbps == 0.0);
    }
    assert_int_equal(sg_rates_save("cal/dir/rates", &r, &err), SG_OK);
    assert_int_equal(sg_rates_save("cal/dir/rates", &r, &err), SG_OK); /* replaced */
    assert_int_equal(sg_rates_load("cal/dir/rates", &back, &err), SG_OK);
    const double a[] = {r.hbm_gbps,      r.pcie_gbps,        r.zc_rand_gbps,
                        r.managed_rand_gbps, r.cpu_scan_gbps, r.managed_seq_gbps,
                        r.host_shared_gbps};
    const double b[] = {back.hbm_gbps,      back.pcie_gbps,        back.zc_rand_gbps,
                        back.managed_rand_gbps, back.cpu_scan_gbps, back.managed_seq_gbps,
                        back.host_shared_gbps};
    for (int i = 0; i < 7; i++)
        if (fabs(a[i] - b[i]) > 1e-5 * a[i]) fail_msg("rate %d: saved %g, read %g", i, a[i], b[i]);
    sg_calibrate_options small = o;
    small.bytes = 1u << 20;
    assert_int_equal(sg_calibrate(&small, &r, &err), SG_E_INVALID);
    assert_non_null(strstr(err.msg, "16 MiB"));
    write_file("cal/file", "x");
    assert_int_not_equal(sg_rates_save("cal/file/rates", &back, &err), SG_OK);
    /* a directory it cannot make (a file in the way): an error naming it */
    assert_int_not_equal(sg_rates_save("cal/file/sub/rates", &back, &err), SG_OK);
    assert_non_null(strstr(err.msg, "cal/file/sub"));
}

/* The store's memo (src/memo.c): a record read back, both counts kept, the
 * file replaced whole; a store written again (its manifest changed) gets a
 * fresh memo; SPILLGRAPH_MEMO_DIR, then XDG_CACHE_HOME; lines it cannot
 * read named by file and line; bad arguments; a directory it cannot make. */
static void test_memo(void **state)
{
    (void)state;
    sg_error err = {0};
    sg_memo m;
    assert_int_equal(mkdir("g.sg", 0755), 0);
    write_file("g.sg/manifest.sgm", "manifest one");
    assert_int_equal(setenv("SPILLGRAPH_MEMO_DIR", "memo/dir", 1), 0);
    assert_true(sg_memo_enabled());
    assert_int_equal(sg_memo_load("g.sg", &m, &err), SG_OK); /* none yet */
    assert_true(m.steps[0] == 0 && m.steps[1] == 0);
    assert_int_equal(strncmp(m.path, "memo/dir/graph-", 15), 0);
    assert_int_equal(sg_memo_record("g.sg", SG_PLAN_BFS, 690, "source 5, gpu", &err), SG_OK);
    assert_int_equal(sg_memo_record("g.sg", SG_PLAN_SSSP, 13865, NULL, &err), SG_OK);
    assert_int_equal(sg_memo_record("g.sg", SG_PLAN_BFS, 691, "source 6, hybrid", &err), SG_OK);
    assert_int_equal(sg_memo_load("g.sg", &m, &err), SG_OK);
    assert_int_equal(sg_memo_steps(&m, SG_PLAN_BFS), 691);
    assert_int_equal(sg_memo_steps(&m, SG_PLAN_SSSP), 13865);
    assert_int_equal(sg_memo_steps(&m, SG_PLAN_MST), 0);
    assert_non_null(strstr(m.note[0], "source 6, hybrid, 20"));
    char first[sizeof m.path];
    snprintf(first, sizeof first, "%s", m.path);
    /* the same store by another path: the same memo */
    assert_int_equal(sg_memo_load("./g.sg/", &m, &err), SG_OK);
    assert_string_equal(m.path, first);
    assert_int_equal(m.steps[0], 691);
    /* written again: another memo, empty */
    write_file("g.sg/manifest.sgm", "manifest two, longer");
    assert_int_equal(sg_memo_load("g.sg", &m, &err), SG_OK);
    assert_string_not_equal(m.path, first);
    assert_true(m.steps[0] == 0 && m.steps[1] == 0);
    snprintf(first, sizeof first, "%s", m.path);
    /* lines it cannot read */
    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"# c\nbfs_levels 7 x\nlevels 3\n", ":3: unknown key 'levels'"},
        {"bfs_levels many\n", ":1: bfs_levels: expected a positive count"},
        {"bfs_levels -5 x\n", ":1: bfs_levels: expected a positive count"},
        {"bfs_levels\n", ":1: bfs_levels: expected a positive count"},
        {"sssp_rounds 0 x\n", ":1: sssp_rounds: expected a positive count"},
        {"sssp_rounds 12x\n", ":1: sssp_rounds: expected a positive count"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_file(first, bad[i].text);
        m.steps[0] = 42;
        m.path[0] = '\0';
        assert_int_equal(sg_memo_load("g.sg", &m, &err), SG_E_FORMAT);
        if (!strstr(err.msg, first) || !strstr(err.msg, bad[i].msg))
            fail_msg("\"%s\" lacks \"%s\" or the file", err.msg, bad[i].msg);
        assert_true(m.steps[0] == 42 && m.path[0] == '\0'); /* untouched */
    }
    /* recording over one it cannot read replaces it */
    assert_int_equal(sg_memo_record("g.sg", SG_PLAN_SSSP, 5, NULL, &err), SG_OK);
    assert_int_equal(sg_memo_load("g.sg", &m, &err), SG_OK);
    assert_true(m.steps[0] == 0 && m.steps[1] == 5);
    /* bad arguments, no store */
    assert_int_equal(sg_memo_record("g.sg", SG_PLAN_MST, 5, NULL, &err), SG_E_INVALID);
    assert_int_equal(sg_memo_record("g.sg", SG_PLAN_BFS, 0, NULL, &err), SG_E_INVALID);
    assert_int_not_equal(sg_memo_load("no-such.sg", &m, &err), SG_OK);
    assert_non_null(strstr(err.msg, "no-such.sg"));
    /* a directory it cannot make: a file in the way */
    write_file("memo/file", "x");
    assert_int_equal(setenv("SPILLGRAPH_MEMO_DIR", "memo/file/sub", 1), 0);
    assert_int_not_equal(sg_memo_record("g.sg", SG_PLAN_BFS, 3, NULL, &err), SG_OK);
    assert_non_null(strstr(err.msg, "memo/file"));
    /* the cache directory's default place */
    assert_int_equal(unsetenv("SPILLGRAPH_MEMO_DIR"), 0);
    assert_int_equal(setenv("XDG_CACHE_HOME", "xdg", 1), 0);
    assert_int_equal(sg_memo_path("g.sg", first, sizeof first, &err), SG_OK);
    assert_int_equal(strncmp(first, "xdg/spillgraph/graphs/graph-", 28), 0);
    assert_int_equal(setenv("SPILLGRAPH_MEMO", "off", 1), 0);
    assert_false(sg_memo_enabled());
    assert_int_equal(unsetenv("SPILLGRAPH_MEMO"), 0);
}

/* What the hybrid backend asks for: its own working bytes, the GPU reading
 * every spilled byte (no CPU share), and forced splits evaluated without
 * the budget check; a forced split that is no breakpoint is an error. */
static void test_executor_inputs(void **state)
{
    (void)state;
    static table t;
    make_table(&t, 1u << 16, 4096);
    const uint64_t full = graph_bytes(&t, SG_PLAN_SSSP);
    for (int a = 0; a < 3; a++) {
        sg_plan_input in = input(&t, (sg_plan_algo)a, 3 * full / 4, 0);
        in.work_bytes = 12345;
        in.gpu_reads_all = true;
        sg_plan p;
        sg_error err = {0};
        if (sg_plan_make(&in, &p, &err) != SG_OK) fail_msg("algo %d: %s", a, err.msg);
        assert_int_equal(p.work_bytes, 12345);
        assert_int_equal(p.gpu_host_end, t.n);
        assert_true(p.cpu_share == 0.0 && p.t_cpu == 0.0);
        uint64_t dev = 0;
        for (int k = 0; k < 3; k++) dev += p.device_bytes[k];
        assert_true(dev + p.work_bytes <= in.device_budget);
        /* the work bytes count against the budget */
        in.work_bytes = in.device_budget + 1;
        assert_int_equal(sg_plan_make(&in, &p, &err), SG_E_NOMEM);
        /* forced splits: any breakpoints, whatever the budget */
        in.forced = true;
        in.device_budget = 0;
        const uint64_t f[3] = {t.v[NP - 1], t.v[3], t.v[100]};
        for (int k = 0; k < 3; k++) in.forced_split[k] = f[k];
        if (sg_plan_make(&in, &p, &err) != SG_OK) fail_msg("algo %d forced: %s", a, err.msg);
        assert_int_equal(p.split[0], f[0]);
        assert_int_equal(p.split[1], f[1]);
        if (a == SG_PLAN_BFS) {
            assert_int_equal(p.host_bytes[2], 0); /* no W */
        } else {
            assert_int_equal(p.split[2], f[2]);
            assert_int_equal(p.device_bytes[2], t.e[100] * 4);
        }
        assert_int_equal(p.device_bytes[1], t.e[3] * 4);
        assert_true(p.predicted_s > 0);
        in.forced_split[1] = t.v[3] + 1;
        assert_int_equal(sg_plan_make(&in, &p, &err), SG_E_INVALID);
        if (!strstr(err.msg, "not one of the breakpoints")) fail_msg("\"%s\"", err.msg);
    }
}

/* What the executors keep beside their arrays (executor_reserves): SSSP its
 * light index while the budget holds it (a quarter of m more without hubs),
 * and over pinned host lists without hubs its gathered settle passes'
 * buffers,
 * the in-place forest room for its contracted list up to what the budget
 * leaves; BFS its gathered steps' buffers over pinned host lists. */
static void test_executor_reserves(void **state)
{
    (void)state;
    static table t;
    make_table(&t, 1u << 16, 4096);
    const uint64_t n = t.n, m = t.m, full = graph_bytes(&t, SG_PLAN_SSSP);
    sg_error err = {0};
    sg_plan p;
    /* SSSP: the index's room; more on a graph without hubs */
    const uint64_t idx = 8 * (n + 1) + m + (n + 1) / 4 + 4096 + 65536;
    sg_plan_input in = input(&t, SG_PLAN_SSSP, full, 0);
    in.work_bytes = 1000;
    in.executor_reserves = true;
    in.max_degree = m; /* a hub */
    assert_int_equal(sg_plan_make(&in, &p, &err), SG_OK);
    assert_int_equal(p.work_bytes, 1000 + idx);
    check_plan(&in, &p, "sssp, reserve");
    in.max_degree = 1; /* no hub: pinned lists (input's managed cap 0), gathered */
    const uint64_t gb = sgi_sssp_gather_bytes(n, m, 1);
    assert_int_equal(sg_plan_make(&in, &p, &err), SG_OK);
    assert_int_equal(p.work_bytes, 1000 + idx + m / 4 + gb);
    assert_true(p.t_index > 0.0 && p.passes == 1.0);
    in.managed_cap = UINT64_MAX / 4; /* managed: no gather */
    assert_int_equal(sg_plan_make(&in, &p, &err), SG_OK);
    assert_int_equal(p.work_bytes, 1000 + idx + m / 4);
    in.managed_cap = 0;
    /* a budget that holds the arrays but not the index: no index, so no
     * build, and the rounds read the spilled lists twice (the gather's
     * buffers still fit) */
    in.device_budget = 1000 + idx + m / 4 - 1;
    assert_int_equal(sg_plan_make(&in, &p, &err), SG_OK);
    assert_int_equal(p.work_bytes, 1000 + gb);
    assert_true(p.t_index == 0.0 && p.passes == 2.0);
    assert_true(p.host_bytes[1] + p.host_bytes[2] > 0);
    check_plan(&in, &p, "sssp, no room for the index");
    /* the in-place forest: 20 bytes per 16 edges, or what is left after X */
    in = input(&t, SG_PLAN_MST, full, 0);
    in.lists_unsorted = true;
    in.work_bytes = 1000;
    in.executor_reserves = true;
    assert_int_equal(sg_plan_make(&in, &p, &err), SG_OK);
    assert_int_equal(p.work_bytes, 1000 + 20 * (m / 16));
    check_plan(&in, &p, "forest, reserve");
    in.device_budget = 1000 + 8 * (n + 1) + 100;
    assert_int_equal(sg_plan_make(&in, &p, &err), SG_OK);
    assert_int_equal(p.work_bytes, 1000 + 100);
    /* the forest over the heads of lists in weight order: the same
     * reserve and rounds, half a pass of its model's reads, and pinned
     * memory priced as managed (its reads are a few sectors a list) */
    in = input(&t, SG_PLAN_MST, 1000 + 20 * (m / 16) + 8 * (n + 1) + full / 4, 0);
    in.work_bytes = 1000;
    in.executor_reserves = true;
    sg_plan heads_managed, heads_pinned;
    in.managed_cap = UINT64_MAX / 4;
    assert_int_equal(sg_plan_make(&in, &heads_managed, &err), SG_OK);
    check_plan(&in, &heads_managed, "forest over heads, managed");
    assert_int_equal(heads_managed.work_bytes, 1000 + 20 * (m / 16));
    assert_true(heads_managed.passes == 0.5 && heads_managed.t_rounds > 0.0);
    assert_true(heads_managed.host_bytes[1] > 0 &&
                heads_managed.spill_kind[1] == SG_SPILL_MANAGED);
    in.managed_cap = 0;
    assert_int_equal(sg_plan_make(&in, &heads_pinned, &err), SG_OK);
    check_plan(&in, &heads_pinned, "forest over heads, pinned");
    assert_int_equal(heads_pinned.spill_kind[1], SG_SPILL_PINNED);
    assert_true(heads_pinned.predicted_s == heads_managed.predicted_s);
    in.lists_unsorted = true; /* whole lists: the first round, then refills */
    assert_int_equal(sg_plan_make(&in, &p, &err), SG_OK);
    assert_true(p.passes == 1.0 && fabs(p.refill_passes - 0.2) < 1e-12 && !p.forest_heads);
    /* the rule a run and `plan` follow: the hybrid's forest (whole lists)
     * reads the heads of lists in weight order on a graph with hubs, the
     * GPU alone; without hubs whole lists, with the CPU threads' share */
    in.lists_weight_order = true;
    in.max_degree = m; /* a hub */
    in.managed_cap = UINT64_MAX / 4;
    assert_int_equal(sg_plan_make(&in, &p, &err), SG_OK);
    check_plan(&in, &p, "forest, weight order, hubs");
    assert_true(p.forest_heads && p.passes == 0.5 && p.cpu_share == 0.0);
    assert_true(p.gpu_host_end == n);
    in.max_degree = 2 * m / n; /* no hubs */
    assert_int_equal(sg_plan_make(&in, &p, &err), SG_OK);
    check_plan(&in, &p, "forest, weight order, no hubs");
    assert_true(!p.forest_heads && fabs(p.refill_passes - 1.05) < 1e-12 && p.cpu_share > 0.0);
    /* BFS: room for its gathered steps' two chunk buffers where it spills
     * pinned host lists of an undirected graph; nothing when the graph fits,
     * in managed memory or directed */
    in = input(&t, SG_PLAN_BFS, full, 0);
    in.work_bytes = 1000;
    in.executor_reserves = true;
    assert_int_equal(sg_plan_make(&in, &p, &err), SG_OK);
    assert_int_equal(p.work_bytes, 1000);
    assert_int_equal(p.host_bytes[1], 0);
    in.device_budget = full / 4;
    assert_int_equal(sg_plan_make(&in, &p, &err), SG_OK);
    assert_int_equal(p.work_bytes, 1000 + sgi_bfs_gather_bytes(n, m));
    assert_true(p.host_bytes[1] > 0 && p.spill_kind[1] == SG_SPILL_PINNED);
    check_plan(&in, &p, "bfs, pinned, gather room");
    in.managed_cap = UINT64_MAX / 4;
    assert_int_equal(sg_plan_make(&in, &p, &err), SG_OK);
    assert_int_equal(p.work_bytes, 1000);
    in.managed_cap = 0;
    in.directed = true;
    assert_int_equal(sg_plan_make(&in, &p, &err), SG_OK);
    assert_int_equal(p.work_bytes, 1000);
}

/* --host-mem managed forced: never more managed memory than the device has
 * free less the margin (src/gpu_engine.c, sg_managed_fits); the refusal
 * names the store, the sizes and the way out. */
static void test_managed_fits(void **state)
{
    (void)state;
    sg_error err = {0};
    const uint64_t total = 80ull << 30, free_b = (uint64_t)(79.6 * (double)(1ull << 30));
    const uint64_t room = free_b - sgi_device_margin(total);
    assert_true(sgi_device_margin(total) >= (256ull << 20));
    assert_int_equal(sg_managed_fits(room, free_b, total, 0, "g.sg", &err), SG_OK);
    assert_int_equal(sg_managed_fits(0, free_b, total, 0, "g.sg", &err), SG_OK);
    assert_int_equal(sg_managed_fits(room + 1, free_b, total, 3, "big.sg", &err), SG_E_NOMEM);
    assert_non_null(strstr(err.msg, "big.sg"));
    assert_non_null(strstr(err.msg, "GPU 3"));
    assert_non_null(strstr(err.msg, "--host-mem pinned"));
    /* less free than the margin: no room at all */
    assert_int_equal(sg_managed_fits(1, 100ull << 20, total, 0, "g.sg", &err), SG_E_NOMEM);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_budget_sweep), cmocka_unit_test(test_spill_order),
        cmocka_unit_test(test_managed_cap),  cmocka_unit_test(test_owner_split),
        cmocka_unit_test(test_bfs_model),    cmocka_unit_test(test_forest_hub_free),
        cmocka_unit_test(test_errors),       cmocka_unit_test(test_rates_file),
        cmocka_unit_test(test_calibrate_save), cmocka_unit_test(test_executor_inputs),
        cmocka_unit_test(test_executor_reserves),
        cmocka_unit_test(test_managed_fits),
        cmocka_unit_test(test_latency_steps), cmocka_unit_test(test_memo),
        cmocka_unit_test(test_degree_hint), cmocka_unit_test(test_forest_spec),
    };
    /* The rates-file tests write relative paths: in a directory of their
     * own, removed afterwards, never where the test was started. */
    char *dir = tu_tmpdir("plan");
    char here[4096];
    if (!getcwd(here, sizeof here) || chdir(dir) != 0) {
        perror("test_plan: entering its temporary directory");
        return 1;
    }
    const int rc = cmocka_run_group_tests(tests, NULL, NULL);
    if (chdir(here) != 0) perror("test_plan: returning to the start directory");
    tu_rm_rf(dir);
    free(dir);
    return rc;
}

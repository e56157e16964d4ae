/* spillgraph info, check, export, scan, devices — commands that read a store
 * (or ask about GPUs), and renumber, which rewrites one. Each parses its options, calls the library and prints
 * text or one JSON object; docs/cli.md is the guide. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "cli_util.h"

enum {
    OPT_JSON = 1,
    OPT_THREADS,
    OPT_FORMAT,
    OPT_OUTPUT,
    OPT_FORCE,
    OPT_ARRAYS,
    OPT_DIRECT,
    OPT_MAPPED,
    OPT_URING,
    OPT_QUEUE_DEPTH,
    OPT_REPEAT,
    OPT_SELFTEST,
    OPT_ORDER,
    OPT_LISTS,
    OPT_QUIET,
};

static const char *const array_name[SG_NARRAYS] = {"X", "A", "W"};
static const char *const array_key[SG_NARRAYS] = {"x", "a", "w"};

/* Takes the one STORE argument; a second positional is a usage error. */
static bool take_store(cli_parser *p, const char **store)
{
    if (*store) {
        cli_usage_error(p->cmd, p->usage, "unexpected argument '%s' (one STORE only)", p->value);
        return false;
    }
    *store = p->value;
    return true;
}

static int open_store(const char *cmd, const char *path, sg_store **s)
{
    sg_error err = {0};
    sg_status st = sg_store_open(path, s, &err);
    if (st != SG_OK) return cli_fail_status(cmd, st, &err);
    return CLI_EXIT_OK;
}

static double ratio(uint64_t raw, uint64_t stored)
{
    return stored ? (double)raw / (double)stored : 0.0;
}

/* ================================================================ info */

static const char info_usage[] = "usage: spillgraph info STORE [--json]";

static void info_help(void)
{
    printf("%s\n"
           "\n"
           "Describes a store: vertex and edge counts, directedness, weight type,\n"
           "shards, how and when it was made, degree statistics with a log2 histogram,\n"
           "and raw and stored bytes per array (X offsets, A neighbours, W weights)\n"
           "with the compression ratio raw/stored. Streams X once (O(n) time).\n"
           "\n"
           "options:\n"
           "  --json       print one JSON object with the same facts\n"
           "  -h, --help   show this help\n",
           info_usage);
}

static void info_text(const char *path, const sg_store_info *in, const sg_degree_stats *d)
{
    uint64_t raw = 0, stored = 0, blocks = 0;
    for (int a = 0; a < SG_NARRAYS; a++) {
        raw += in->raw_bytes[a];
        stored += in->stored_bytes[a];
        blocks += in->n_blocks[a];
    }
    printf("store         %s\n", path);
    printf("created       %s\n", cli_utc_time(in->created_unix).s);
    printf("creator       %s\n", in->creator[0] ? in->creator : "(unknown)");
    printf("graph         %s, weights %s%s\n", in->directed ? "directed" : "undirected",
           in->weight_type == SG_WEIGHT_F32 ? "float32" : "uint32",
           in->negative_weights ? " (some negative)" : "");
    printf("vertices      %s\n", cli_count(in->n_vertices).s);
    if (in->directed)
        printf("edges         %s directed\n", cli_count(in->n_edges).s);
    else
        printf("edges         %s undirected (%s directed edges stored)\n",
               cli_count(in->n_edges / 2).s, cli_count(in->n_edges).s);
    printf("shards        %" PRIu32 " (%s blocks)\n", in->n_shards, cli_count(blocks).s);
    if (in->has_original_ids)
        printf("ids           renumbered; original ids kept in the store (ids.u64)\n");
    printf("lists         %s\n", in->weight_order ? "by weight, then neighbour id (weight order)"
                                                   : "by neighbour id");
    if (d->descents == 0)
        printf("vertex order  ascending degree\n");
    else
        printf("vertex order  degrees not ascending (%s vertices below the one before)\n",
               cli_count(d->descents).s);

    double n = in->n_vertices ? (double)in->n_vertices : 1.0;
    printf("%-13s min %" PRIu64 ", max %" PRIu64 ", mean %.2f, isolated %s (%.1f%%)\n",
           in->directed ? "out-degree" : "degree", d->min, d->max, d->mean,
           cli_count(d->isolated).s, 100.0 * (double)d->isolated / n);

    int last = 0;
    uint64_t top = 0;
    for (int k = 0; k < 34; k++) {
        if (d->hist[k]) last = k;
        if (d->hist[k] > top) top = d->hist[k];
    }
    printf("\n%s histogram (vertices)\n", in->directed ? "out-degree" : "degree");
    for (int k = 0; k <= last; k++) {
        char range[32];
        if (k == 0)
            snprintf(range, sizeof range, "0");
        else
            snprintf(range, sizeof range, "[2^%d, 2^%d)", k - 1, k);
        enum { BAR = 24 };
        char bar[BAR + 1];
        int len = top ? (int)((double)d->hist[k] * BAR / (double)top + 0.5) : 0;
        if (len == 0 && d->hist[k] > 0) len = 1;
        memset(bar, '#', (size_t)len);
        bar[len] = '\0';
        printf("  %-12s %14s %6.1f%%  %s\n", range, cli_count(d->hist[k]).s,
               100.0 * (double)d->hist[k] / n, bar);
    }

    printf("\n%-8s %12s %12s %8s %10s\n", "array", "raw", "stored", "ratio", "blocks");
    for (int a = 0; a < SG_NARRAYS; a++)
        printf("  %-6s %12s %12s %7.2fx %10s\n", array_name[a], cli_bytes(in->raw_bytes[a]).s,
               cli_bytes(in->stored_bytes[a]).s, ratio(in->raw_bytes[a], in->stored_bytes[a]),
               cli_count(in->n_blocks[a]).s);
    printf("  %-6s %12s %12s %7.2fx %10s\n", "total", cli_bytes(raw).s, cli_bytes(stored).s,
           ratio(raw, stored), cli_count(blocks).s);
    printf("files         %s on disk (%s bytes, headers and indexes included)\n",
           cli_bytes(in->file_bytes).s, cli_count(in->file_bytes).s);
}

static void json_array_sizes(cli_json *j, const char *key, uint64_t raw, uint64_t stored,
                             uint64_t blocks)
{
    cli_json_object(j, key);
    cli_json_u64(j, "raw_bytes", raw);
    cli_json_u64(j, "stored_bytes", stored);
    cli_json_u64(j, "blocks", blocks);
    cli_json_num(j, "ratio", ratio(raw, stored));
    cli_json_object_end(j);
}

static void info_json(const char *path, const sg_store_info *in, const sg_degree_stats *d)
{
    uint64_t raw = 0, stored = 0, blocks = 0;
    for (int a = 0; a < SG_NARRAYS; a++) {
        raw += in->raw_bytes[a];
        stored += in->stored_bytes[a];
        blocks += in->n_blocks[a];
    }
    cli_json j;
    cli_json_begin(&j, stdout);
    cli_json_str(&j, "path", path);
    cli_json_u64(&j, "n_vertices", in->n_vertices);
    cli_json_u64(&j, "n_edges", in->n_edges);
    if (in->directed)
        cli_json_null(&j, "undirected_edges");
    else
        cli_json_u64(&j, "undirected_edges", in->n_edges / 2);
    cli_json_bool(&j, "directed", in->directed);
    cli_json_str(&j, "weight_type", in->weight_type == SG_WEIGHT_F32 ? "f32" : "u32");
    cli_json_bool(&j, "negative_weights", in->negative_weights);
    cli_json_bool(&j, "original_ids", in->has_original_ids);
    cli_json_str(&j, "lists", in->weight_order ? "weight" : "id");
    cli_json_u64(&j, "n_shards", in->n_shards);
    cli_json_str(&j, "creator", in->creator);
    cli_json_u64(&j, "created_unix", in->created_unix);
    cli_json_str(&j, "created", cli_utc_time(in->created_unix).s);

    cli_json_object(&j, "degree");
    cli_json_u64(&j, "min", d->min);
    cli_json_u64(&j, "max", d->max);
    cli_json_num(&j, "mean", d->mean);
    cli_json_u64(&j, "isolated", d->isolated);
    cli_json_u64(&j, "descents", d->descents);
    int last = 0;
    for (int k = 0; k < 34; k++)
        if (d->hist[k]) last = k;
    cli_json_array(&j, "histogram");
    for (int k = 0; k <= last; k++) {
        cli_json_object(&j, NULL);
        uint64_t lo = k == 0 ? 0 : (uint64_t)1 << (k - 1);
        uint64_t hi = k == 0 ? 0 : ((uint64_t)1 << k) - 1;
        cli_json_u64(&j, "min_degree", lo);
        cli_json_u64(&j, "max_degree", hi);
        cli_json_u64(&j, "count", d->hist[k]);
        cli_json_object_end(&j);
    }
    cli_json_array_end(&j);
    cli_json_object_end(&j);

    cli_json_object(&j, "arrays");
    for (int a = 0; a < SG_NARRAYS; a++)
        json_array_sizes(&j, array_key[a], in->raw_bytes[a], in->stored_bytes[a],
                         in->n_blocks[a]);
    json_array_sizes(&j, "total", raw, stored, blocks);
    cli_json_object_end(&j);
    cli_json_u64(&j, "raw_bytes", raw);
    cli_json_u64(&j, "stored_bytes", stored);
    cli_json_num(&j, "compression_ratio", ratio(raw, stored));
    cli_json_u64(&j, "file_bytes", in->file_bytes);
    cli_json_end(&j);
}

int cmd_info(int argc, char **argv, const cli_env *env)
{
    (void)env;
    static const char cmd[] = "info";
    static const cli_option opts[] = {{"json", 0, false, OPT_JSON}, {NULL, 0, false, 0}};
    if (cli_wants_help(argc, argv)) {
        info_help();
        return CLI_EXIT_OK;
    }
    const char *path = NULL;
    bool json = false;
    cli_parser p;
    cli_parser_init(&p, cmd, info_usage, opts, argc, argv);
    for (int id; (id = cli_next(&p)) != CLI_END;) {
        switch (id) {
        case CLI_BAD: return CLI_EXIT_USAGE;
        case CLI_POSITIONAL:
            if (!take_store(&p, &path)) return CLI_EXIT_USAGE;
            break;
        case OPT_JSON: json = true; break;
        }
    }
    if (!path) return cli_usage_error(cmd, info_usage, "missing the STORE to describe");

    sg_store *s = NULL;
    int rc = open_store(cmd, path, &s);
    if (rc != CLI_EXIT_OK) return rc;
    sg_store_info in;
    sg_store_get_info(s, &in);
    in.creator[sizeof in.creator - 1] = '\0';
    sg_degree_stats d;
    sg_error err = {0};
    sg_status st = sg_store_degree_stats(s, NULL, &d, &err);
    if (st != SG_OK) {
        rc = cli_fail_status(cmd, st, &err);
    } else {
        if (json)
            info_json(path, &in, &d);
        else
            info_text(path, &in, &d);
    }
    sg_store_close(s);
    return rc;
}

/* ================================================================ check */

static const char check_usage[] = "usage: spillgraph check STORE [--threads N] [--json]";

static void check_help(void)
{
    printf("%s\n"
           "\n"
           "Verifies a store: every block's checksum, offsets monotone and matching\n"
           "the shard table, neighbour ids < n, lists strictly increasing, weights\n"
           "finite, and for undirected stores that every edge (u,v,w) has (v,u,w).\n"
           "One pass over the store. Prints\n"
           "  ok: N blocks, V vertices, M edges verified (symmetry checked)\n"
           "and exits 0, or prints the first problem (naming the shard file, block or\n"
           "vertex) and exits 1.\n"
           "\n"
           "options:\n"
           "  --threads N  decode threads (default: OpenMP's)\n"
           "  --json       print one JSON object (\"ok\": true/false, counts, error)\n"
           "  -h, --help   show this help\n",
           check_usage);
}

int cmd_check(int argc, char **argv, const cli_env *env)
{
    (void)env;
    static const char cmd[] = "check";
    static const cli_option opts[] = {{"threads", 't', true, OPT_THREADS},
                                      {"json", 0, false, OPT_JSON},
                                      {NULL, 0, false, 0}};
    if (cli_wants_help(argc, argv)) {
        check_help();
        return CLI_EXIT_OK;
    }
    const char *path = NULL;
    bool json = false;
    sg_read_options ro;
    memset(&ro, 0, sizeof ro);
    cli_parser p;
    cli_parser_init(&p, cmd, check_usage, opts, argc, argv);
    for (int id; (id = cli_next(&p)) != CLI_END;) {
        switch (id) {
        case CLI_BAD: return CLI_EXIT_USAGE;
        case CLI_POSITIONAL:
            if (!take_store(&p, &path)) return CLI_EXIT_USAGE;
            break;
        case OPT_THREADS:
            if (!cli_value_int(&p, 0, 4096, &ro.threads)) return CLI_EXIT_USAGE;
            break;
        case OPT_JSON: json = true; break;
        }
    }
    if (!path) return cli_usage_error(cmd, check_usage, "missing the STORE to check");

    sg_store *s = NULL;
    sg_error err = {0};
    sg_check_report rep;
    memset(&rep, 0, sizeof rep);
    bool directed = false;
    double t0 = cli_now();
    sg_status st = sg_store_open(path, &s, &err);
    if (st == SG_OK) {
        sg_store_info in;
        sg_store_get_info(s, &in);
        directed = in.directed;
        st = sg_store_check(s, &ro, &rep, &err);
    }
    double secs = cli_now() - t0;
    sg_store_close(s);

    if (json) {
        cli_json j;
        cli_json_begin(&j, stdout);
        cli_json_str(&j, "path", path);
        cli_json_bool(&j, "ok", st == SG_OK);
        if (st == SG_OK) {
            cli_json_u64(&j, "blocks", rep.blocks);
            cli_json_u64(&j, "vertices", rep.vertices);
            cli_json_u64(&j, "edges", rep.edges);
            cli_json_bool(&j, "directed", directed);
            cli_json_bool(&j, "symmetry_checked", rep.symmetry_checked);
        } else {
            cli_json_str(&j, "status", sg_status_name(st));
            cli_json_str(&j, "error", err.msg[0] ? err.msg : sg_status_name(st));
        }
        cli_json_num(&j, "seconds", secs);
        cli_json_end(&j);
    }
    if (st != SG_OK) return cli_fail_status(cmd, st, &err);
    if (!json) {
        const char *sym = rep.symmetry_checked ? "symmetry checked"
                          : directed           ? "directed: no symmetry to check"
                                               : "symmetry not checked";
        printf("ok: %" PRIu64 " blocks, %" PRIu64 " vertices, %" PRIu64
               " edges verified (%s)\n",
               rep.blocks, rep.vertices, rep.edges, sym);
    }
    return CLI_EXIT_OK;
}

/* ================================================================ export */

static const char export_usage[] =
    "usage: spillgraph export STORE --format el|wel|mtx|egr|wsg|bin32 -o FILE [--force] [--threads N]";

static void export_help(void)
{
    printf("%s\n"
           "\n"
           "Writes a store in another tool's format, through a temporary file renamed\n"
           "into place (FILE is whole or absent).\n"
           "\n"
           "formats:\n"
           "  el    text, \"u v\" per line, 0-based\n"
           "  wel   text, \"u v w\" per line, 0-based\n"
           "  mtx   Matrix Market coordinate, 1-based (\"symmetric\" for undirected)\n"
           "  egr   ECL-graph binary CSR (int32 counts; both directions)\n"
           "  wsg   GAP benchmark suite serialized weighted graph (both directions)\n"
           "  bin32 raw little-endian (u32 u, u32 v, u32 w) triples, each edge once\n"
           "Undirected stores are written with each edge once in el and wel (u < v)\n"
           "and mtx (lower triangle, \"symmetric\"), and in both directions in egr\n"
           "and wsg, as those tools expect.\n"
           "\n"
           "options:\n"
           "  --format F       one of el, wel, mtx, egr, wsg, bin32 (required)\n"
           "  -o, --output FILE  the file to write (required)\n"
           "  --force          replace FILE if it exists\n"
           "  --threads N      decode threads (default: OpenMP's)\n"
           "  -h, --help       show this help\n",
           export_usage);
}

int cmd_export(int argc, char **argv, const cli_env *env)
{
    (void)env;
    static const char cmd[] = "export";
    static const cli_option opts[] = {
        {"format", 'F', true, OPT_FORMAT},   {"output", 'o', true, OPT_OUTPUT},
        {"force", 'f', false, OPT_FORCE},    {"threads", 't', true, OPT_THREADS},
        {NULL, 0, false, 0},
    };
    if (cli_wants_help(argc, argv)) {
        export_help();
        return CLI_EXIT_OK;
    }
    const char *path = NULL, *out = NULL, *fmt_name = NULL;
    bool force = false;
    int threads = 0;
    cli_parser p;
    cli_parser_init(&p, cmd, export_usage, opts, argc, argv);
    for (int id; (id = cli_next(&p)) != CLI_END;) {
        switch (id) {
        case CLI_BAD: return CLI_EXIT_USAGE;
        case CLI_POSITIONAL:
            if (!take_store(&p, &path)) return CLI_EXIT_USAGE;
            break;
        case OPT_FORMAT: fmt_name = p.value; break;
        case OPT_OUTPUT: out = p.value; break;
        case OPT_FORCE: force = true; break;
        case OPT_THREADS:
            if (!cli_value_int(&p, 0, 4096, &threads)) return CLI_EXIT_USAGE;
            break;
        }
    }
    if (!path) return cli_usage_error(cmd, export_usage, "missing the STORE to export");
    if (!fmt_name) return cli_usage_error(cmd, export_usage, "missing --format");
    sg_export_format fmt = sg_export_format_parse(fmt_name);
    if (fmt == 0)
        return cli_usage_error(cmd, export_usage,
                               "unknown format '%s' (formats: el, wel, mtx, egr, wsg, bin32)", fmt_name);
    if (!out) return cli_usage_error(cmd, export_usage, "missing the output file (-o FILE)");
    if (!out[0]) return cli_usage_error(cmd, export_usage, "the output path is empty");

    sg_store *s = NULL;
    int rc = open_store(cmd, path, &s);
    if (rc != CLI_EXIT_OK) return rc;
    sg_error err = {0};
    double t0 = cli_now();
    sg_status st = sg_store_export(s, fmt, out, force, threads, &err);
    double secs = cli_now() - t0;
    sg_store_close(s);
    if (st != SG_OK) return cli_fail_status(cmd, st, &err);

    struct stat sb;
    if (stat(out, &sb) == 0)
        printf("wrote %s (%s, %s) in %s\n", out, fmt_name, cli_bytes((uint64_t)sb.st_size).s,
               cli_seconds(secs).s);
    else
        printf("wrote %s (%s) in %s\n", out, fmt_name, cli_seconds(secs).s);
    return CLI_EXIT_OK;
}

/* ================================================================ renumber */

static const char renumber_usage[] =
    "usage: spillgraph renumber STORE -o OUT [--order degree|degree-asc|bfs|bfs-rev|none]\n"
    "         [--lists id|weight] [--force] [--threads N] [--json] [--quiet]";

static void renumber_help(void)
{
    printf("%s\n"
           "\n"
           "Writes STORE again as OUT with its vertices renumbered. By degree: new id =\n"
           "rank by degree (descending for 'degree', the default; ascending for\n"
           "'degree-asc'), ties by old id. By locality ('bfs'): new id = the order in\n"
           "which a breadth-first search reaches the vertex, started from each vertex\n"
           "not yet reached in old-id order, so that neighbours get near ids and each\n"
           "component one range; 'bfs-rev' is that order reversed; 'none' keeps the\n"
           "ids. Every list is relabelled and sorted, weights travel with their\n"
           "entries: by neighbour id, or with --lists weight by (weight, neighbour\n"
           "id), the order flagged in the store (the reference papers' preprocessing:\n"
           "the forest then reads only the head of each list, on every backend, and\n"
           "skips its own sort of the lists). The hybrid\n"
           "backend keeps a vertex prefix of the lists in device memory, so the order\n"
           "decides which lists stay there and which stream from the host. Holds the\n"
           "graph twice in memory (40 bytes per vertex and 16 per edge). A store with\n"
           "original ids (convert --ids compact) is refused: its id mapping must stay\n"
           "increasing.\n"
           "\n"
           "options:\n"
           "  -o, --output OUT  the new store\n"
           "  --order ORDER     degree (default), degree-asc, bfs, bfs-rev or none\n"
           "  --lists ORDER     id (default) or weight: the order within each list\n"
           "  --force           replace OUT if it exists (only once it is complete)\n"
           "  --threads N       read and sort threads (default: OpenMP's)\n"
           "  --json            one JSON object\n"
           "  --quiet           no summary and no progress\n"
           "  -h, --help        show this help\n",
           renumber_usage);
}

int cmd_renumber(int argc, char **argv, const cli_env *env)
{
    static const char cmd[] = "renumber";
    static const cli_option opts[] = {
        {"output", 'o', true, OPT_OUTPUT},   {"order", 0, true, OPT_ORDER},
        {"lists", 0, true, OPT_LISTS},
        {"force", 'f', false, OPT_FORCE},    {"threads", 't', true, OPT_THREADS},
        {"json", 0, false, OPT_JSON},        {"quiet", 'q', false, OPT_QUIET},
        {NULL, 0, false, 0},
    };
    if (cli_wants_help(argc, argv)) {
        renumber_help();
        return CLI_EXIT_OK;
    }
    const char *path = NULL, *out = NULL, *order_name = "degree", *lists = "id";
    bool force = false, json = false, quiet = false;
    int threads = 0;
    cli_parser p;
    cli_parser_init(&p, cmd, renumber_usage, opts, argc, argv);
    for (int id; (id = cli_next(&p)) != CLI_END;) {
        switch (id) {
        case CLI_BAD: return CLI_EXIT_USAGE;
        case CLI_POSITIONAL:
            if (!take_store(&p, &path)) return CLI_EXIT_USAGE;
            break;
        case OPT_OUTPUT: out = p.value; break;
        case OPT_ORDER: order_name = p.value; break;
        case OPT_LISTS: lists = p.value; break;
        case OPT_FORCE: force = true; break;
        case OPT_JSON: json = true; break;
        case OPT_QUIET: quiet = true; break;
        case OPT_THREADS:
            if (!cli_value_int(&p, 0, 4096, &threads)) return CLI_EXIT_USAGE;
            break;
        }
    }
    if (!path) return cli_usage_error(cmd, renumber_usage, "missing the STORE to renumber");
    if (!out) return cli_usage_error(cmd, renumber_usage, "missing the output store (-o OUT)");
    if (!out[0]) return cli_usage_error(cmd, renumber_usage, "the output path is empty");
    sg_renumber_options o;
    memset(&o, 0, sizeof o);
    if (!sg_renumber_order_parse(order_name, &o.order))
        return cli_usage_error(cmd, renumber_usage,
                               "unknown order '%s' (orders: degree, degree-asc, bfs, bfs-rev, none)",
                               order_name);
    if (strcmp(lists, "id") != 0 && strcmp(lists, "weight") != 0)
        return cli_usage_error(cmd, renumber_usage, "unknown list order '%s' (id or weight)",
                               lists);
    o.weight_order = strcmp(lists, "weight") == 0;
    o.threads = threads;
    o.store.force = force;
    o.store.threads = threads;
    char *creator = cli_command_line(env->full_argc, env->full_argv);
    if (!creator) return cli_fail(cmd, "out of memory");
    o.store.creator = creator;
    cli_progress bar;
    cli_progress_init(&bar, !quiet && !json);
    o.store.progress = cli_progress_cb;
    o.store.progress_ctx = &bar;
    sg_renumber_report rep;
    sg_error err = {0};
    const double t0 = cli_now();
    const sg_status st = sg_store_renumber(path, out, &o, &rep, &err);
    const double secs = cli_now() - t0;
    cli_progress_end(&bar);
    free(creator);
    if (st != SG_OK) return cli_fail_status(cmd, st, &err);
    if (json) {
        cli_json j;
        cli_json_begin(&j, stdout);
        cli_json_str(&j, "command", "renumber");
        cli_json_str(&j, "graph", path);
        cli_json_str(&j, "output", out);
        cli_json_str(&j, "order", sg_renumber_order_name(o.order));
        cli_json_str(&j, "lists", o.weight_order ? "weight" : "id");
        cli_json_u64(&j, "n_vertices", rep.n_vertices);
        cli_json_u64(&j, "n_edges", rep.n_edges);
        cli_json_u64(&j, "max_degree", rep.max_degree);
        cli_json_u64(&j, "memory_bytes", rep.memory_bytes);
        cli_json_num(&j, "seconds_read", rep.seconds_read);
        cli_json_num(&j, "seconds_permute", rep.seconds_permute);
        cli_json_num(&j, "seconds_write", rep.seconds_write);
        cli_json_num(&j, "seconds_total", secs);
        cli_json_end(&j);
    } else if (!quiet) {
        printf("renumbered %s -> %s by %s%s: %s vertices, %s edges in %s (read %s, permute %s, "
               "write %s; %s held)\n",
               path, out, sg_renumber_order_name(o.order),
               o.weight_order ? ", lists by weight" : "", cli_count(rep.n_vertices).s,
               cli_count(rep.n_edges).s, cli_seconds(secs).s, cli_seconds(rep.seconds_read).s,
               cli_seconds(rep.seconds_permute).s, cli_seconds(rep.seconds_write).s,
               cli_bytes(rep.memory_bytes).s);
    }
    return CLI_EXIT_OK;
}

/* ================================================================ scan */

static const char scan_usage[] =
    "usage: spillgraph scan STORE [--arrays xaw] [--direct | --mapped | --uring]\n"
    "         [--threads N]"
    "         [--queue-depth Q] [--repeat R] [--json]";

static void scan_help(void)
{
    printf("%s\n"
           "\n"
           "The bulk-read benchmark: reads the chosen arrays of the whole store into\n"
           "memory (sg_store_read: io_uring reads, parallel zstd decode, checksums\n"
           "verified) and reports, for each run, the seconds, the stored (compressed)\n"
           "and decoded bytes, both as GB/s (10^9 bytes per second), and whether\n"
           "io_uring, O_DIRECT or the mappings were used. By default the reader\n"
           "decodes straight from the file mappings when the store is in the page\n"
           "cache and reads through io_uring otherwise; --direct measures cold reads\n"
           "(bypassing the page cache), --mapped and --uring force the other modes.\n"
           "\n"
           "Memory: X takes 8(n+1) bytes, A and W 4m each; scan refuses (exit 1)\n"
           "when that exceeds the available memory.\n"
           "\n"
           "options:\n"
           "  --arrays LIST      which arrays: letters of x, a, w (default xaw)\n"
           "  --direct           O_DIRECT reads (bypass the page cache)\n"
           "  --mapped           no reads: decode from the file mappings (warm store)\n"
           "  --uring            buffered io_uring reads even when the store is cached\n"
           "  --threads N        decode threads (default: OpenMP's)\n"
           "  --queue-depth Q    reads in flight (default 64)\n"
           "  --repeat R         runs (default 1)\n"
           "  --json             print one JSON object with every run\n"
           "  -h, --help         show this help\n",
           scan_usage);
}

/* Anonymous memory, faulted in before the timed runs (MAP_POPULATE) so the
 * first run does not pay for page faults. */
static void *scan_alloc(uint64_t bytes, size_t *len)
{
    *len = bytes ? (size_t)bytes : 4096;
    void *p = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
                   -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

int cmd_scan(int argc, char **argv, const cli_env *env)
{
    (void)env;
    static const char cmd[] = "scan";
    static const cli_option opts[] = {
        {"arrays", 0, true, OPT_ARRAYS},       {"direct", 0, false, OPT_DIRECT},
        {"mapped", 0, false, OPT_MAPPED},      {"uring", 0, false, OPT_URING},
        {"threads", 't', true, OPT_THREADS},
        {"queue-depth", 0, true, OPT_QUEUE_DEPTH}, {"repeat", 0, true, OPT_REPEAT},
        {"json", 0, false, OPT_JSON},          {NULL, 0, false, 0},
    };
    if (cli_wants_help(argc, argv)) {
        scan_help();
        return CLI_EXIT_OK;
    }
    const char *path = NULL;
    bool want[SG_NARRAYS] = {true, true, true};
    bool json = false;
    int repeat = 1;
    int qd = 0;
    sg_read_options ro;
    memset(&ro, 0, sizeof ro);
    cli_parser p;
    cli_parser_init(&p, cmd, scan_usage, opts, argc, argv);
    for (int id; (id = cli_next(&p)) != CLI_END;) {
        switch (id) {
        case CLI_BAD: return CLI_EXIT_USAGE;
        case CLI_POSITIONAL:
            if (!take_store(&p, &path)) return CLI_EXIT_USAGE;
            break;
        case OPT_ARRAYS: {
            bool w[SG_NARRAYS] = {false, false, false};
            const char *c = p.value;
            if (!*c)
                return cli_usage_error(cmd, scan_usage, "--arrays: empty (letters of x, a, w)");
            for (; *c; c++) {
                int a = (*c == 'x' || *c == 'X') ? 0 : (*c == 'a' || *c == 'A') ? 1
                                                   : (*c == 'w' || *c == 'W')   ? 2
                                                                                : -1;
                if (a < 0)
                    return cli_usage_error(cmd, scan_usage,
                                           "--arrays: '%c' is not an array (letters of x, a, w)",
                                           *c);
                w[a] = true;
            }
            memcpy(want, w, sizeof want);
            break;
        }
        case OPT_DIRECT: ro.direct = true; break;
        case OPT_MAPPED: ro.mapped = true; break;
        case OPT_URING: ro.uring = true; break;
        case OPT_THREADS:
            if (!cli_value_int(&p, 0, 4096, &ro.threads)) return CLI_EXIT_USAGE;
            break;
        case OPT_QUEUE_DEPTH:
            if (!cli_value_int(&p, 1, 4096, &qd)) return CLI_EXIT_USAGE;
            ro.queue_depth = (unsigned)qd;
            break;
        case OPT_REPEAT:
            if (!cli_value_int(&p, 1, 10000, &repeat)) return CLI_EXIT_USAGE;
            break;
        case OPT_JSON: json = true; break;
        }
    }
    if (!path) return cli_usage_error(cmd, scan_usage, "missing the STORE to scan");
    if ((int)ro.direct + (int)ro.mapped + (int)ro.uring > 1)
        return cli_usage_error(cmd, scan_usage, "--direct, --mapped and --uring exclude each other");

    sg_store *s = NULL;
    int rc = open_store(cmd, path, &s);
    if (rc != CLI_EXIT_OK) return rc;
    sg_store_info in;
    sg_store_get_info(s, &in);

    char arrays[SG_NARRAYS + 1];
    size_t n_arrays = 0;
    uint64_t need[SG_NARRAYS] = {0, 0, 0};
    uint64_t total = 0;
    for (int a = 0; a < SG_NARRAYS; a++) {
        if (!want[a]) continue;
        arrays[n_arrays++] = array_key[a][0];
        need[a] = a == SG_ARRAY_X ? 8 * (in.n_vertices + 1) : 4 * in.n_edges;
        total += need[a];
    }
    arrays[n_arrays] = '\0';
    uint64_t avail = sg_available_memory();
    void *buf[SG_NARRAYS] = {NULL, NULL, NULL};
    size_t len[SG_NARRAYS] = {0, 0, 0};
    sg_read_stats *runs = NULL;
    sg_status st = SG_OK;
    sg_error err = {0};

    if (total > avail || total > (uint64_t)SIZE_MAX / 2) {
        rc = cli_fail(cmd,
                      "reading arrays %s of %s needs %s of memory (X %s, A %s, W %s) but only "
                      "%s is available; choose fewer arrays with --arrays",
                      arrays, path, cli_bytes(total).s, cli_bytes(need[0]).s,
                      cli_bytes(need[1]).s, cli_bytes(need[2]).s, cli_bytes(avail).s);
        goto done;
    }
    for (int a = 0; a < SG_NARRAYS; a++) {
        if (!want[a]) continue;
        buf[a] = scan_alloc(need[a], &len[a]);
        if (!buf[a]) {
            rc = cli_fail(cmd, "allocating %s for array %s: %s", cli_bytes(need[a]).s,
                          array_name[a], strerror(errno));
            goto done;
        }
    }
    runs = calloc((size_t)repeat, sizeof *runs);
    if (!runs) {
        rc = cli_fail(cmd, "out of memory");
        goto done;
    }

    sg_read_request req = {
        .v_begin = 0, .v_end = in.n_vertices, .x = buf[0], .a = buf[1], .w = buf[2]};
    if (!json) {
        printf("scan %s: arrays %s (%s), %s vertices, %s edges; %s, threads %s, queue depth %u\n",
               path, arrays, cli_bytes(total).s, cli_count(in.n_vertices).s,
               cli_count(in.n_edges).s,
               ro.mapped   ? "mapped (no reads)"
               : ro.direct ? "O_DIRECT reads"
               : ro.uring  ? "buffered io_uring reads"
                           : "automatic (mapped if cached, else io_uring)",
               ro.threads ? cli_count((uint64_t)ro.threads).s : "default",
               ro.queue_depth ? ro.queue_depth : 64);
        printf("  %4s %10s %12s %12s %14s %14s  %s\n", "run", "seconds", "stored", "decoded",
               "stored GB/s", "decoded GB/s", "mode");
        fflush(stdout);
    }
    for (int r = 0; r < repeat; r++) {
        sg_read_stats *rs = &runs[r];
        memset(rs, 0, sizeof *rs);
        st = sg_store_read(s, &req, &ro, rs, &err);
        if (st != SG_OK) {
            rc = cli_fail_status(cmd, st, &err);
            goto done;
        }
        if (!json) {
            double sec = rs->seconds;
            printf("  %4d %10.4f %12s %12s %14.3f %14.3f  %s\n", r + 1, sec,
                   cli_bytes(rs->stored_bytes).s, cli_bytes(rs->decoded_bytes).s,
                   sec > 0 ? (double)rs->stored_bytes / sec / 1e9 : 0.0,
                   sec > 0 ? (double)rs->decoded_bytes / sec / 1e9 : 0.0,
                   rs->used_mapped   ? "mapped"
                   : rs->used_direct ? "io_uring O_DIRECT"
                   : rs->used_uring  ? "io_uring"
                                     : "pread");
            fflush(stdout);
        }
    }

    /* The best run (shortest time) is the usual benchmark figure. */
    int best = 0;
    for (int r = 1; r < repeat; r++)
        if (runs[r].seconds < runs[best].seconds) best = r;
    const sg_read_stats *b = &runs[best];
    if (json) {
        cli_json j;
        cli_json_begin(&j, stdout);
        cli_json_str(&j, "path", path);
        cli_json_str(&j, "arrays", arrays);
        cli_json_u64(&j, "n_vertices", in.n_vertices);
        cli_json_u64(&j, "n_edges", in.n_edges);
        cli_json_u64(&j, "buffer_bytes", total);
        cli_json_bool(&j, "direct", ro.direct);
        cli_json_bool(&j, "mapped", ro.mapped);
        cli_json_bool(&j, "uring", ro.uring);
        cli_json_int(&j, "threads", ro.threads);
        cli_json_u64(&j, "queue_depth", ro.queue_depth ? ro.queue_depth : 64);
        cli_json_array(&j, "runs");
        for (int r = 0; r < repeat; r++) {
            const sg_read_stats *rs = &runs[r];
            double sec = rs->seconds;
            cli_json_object(&j, NULL);
            cli_json_num(&j, "seconds", sec);
            cli_json_u64(&j, "stored_bytes", rs->stored_bytes);
            cli_json_u64(&j, "read_bytes", rs->read_bytes);
            cli_json_u64(&j, "decoded_bytes", rs->decoded_bytes);
            cli_json_u64(&j, "blocks", rs->blocks);
            cli_json_u64(&j, "requests", rs->requests);
            cli_json_num(&j, "stored_gbps", sec > 0 ? (double)rs->stored_bytes / sec / 1e9 : 0.0);
            cli_json_num(&j, "decoded_gbps",
                         sec > 0 ? (double)rs->decoded_bytes / sec / 1e9 : 0.0);
            cli_json_bool(&j, "used_uring", rs->used_uring);
            cli_json_bool(&j, "used_direct", rs->used_direct);
            cli_json_bool(&j, "used_mapped", rs->used_mapped);
            cli_json_object_end(&j);
        }
        cli_json_array_end(&j);
        cli_json_num(&j, "best_seconds", b->seconds);
        cli_json_num(&j, "best_stored_gbps",
                     b->seconds > 0 ? (double)b->stored_bytes / b->seconds / 1e9 : 0.0);
        cli_json_num(&j, "best_decoded_gbps",
                     b->seconds > 0 ? (double)b->decoded_bytes / b->seconds / 1e9 : 0.0);
        cli_json_end(&j);
    } else {
        if (repeat > 1)
            printf("best: run %d, %s, %s stored, %s decoded\n", best + 1,
                   cli_seconds(b->seconds).s,
                   cli_rate((double)b->stored_bytes, b->seconds).s,
                   cli_rate((double)b->decoded_bytes, b->seconds).s);
        if (ro.direct && !b->used_direct)
            printf("note: O_DIRECT was asked for but the file system refused it; reads were "
                   "buffered\n");
        if (!b->used_mapped && !b->used_uring)
            printf("note: io_uring is unavailable here; reads used pread\n");
    }

done:
    free(runs);
    for (int a = 0; a < SG_NARRAYS; a++)
        if (buf[a]) munmap(buf[a], len[a]);
    sg_store_close(s);
    return rc;
}

/* ================================================================ devices */

static const char devices_usage[] = "usage: spillgraph devices [--selftest] [--json]";

static void devices_help(void)
{
    printf("%s\n"
           "\n"
           "Lists the GPUs this build can use: index, name, compute capability, SMs,\n"
           "memory total and free, L2 cache, driver and runtime versions. With no GPU\n"
           "(or a build without CUDA) it says so and exits 0: the CPU path is used.\n"
           "\n"
           "options:\n"
           "  --selftest   round-trip 256 MiB through each GPU, check it and print\n"
           "               the host-to-device copy rate\n"
           "  --json       print one JSON object\n"
           "  -h, --help   show this help\n",
           devices_usage);
}

static cli_str cuda_version(int v)
{
    cli_str r;
    if (v <= 0)
        snprintf(r.s, sizeof r.s, "none");
    else
        snprintf(r.s, sizeof r.s, "%d.%d", v / 1000, (v % 1000) / 10);
    return r;
}

int cmd_devices(int argc, char **argv, const cli_env *env)
{
    (void)env;
    static const char cmd[] = "devices";
    static const cli_option opts[] = {{"selftest", 0, false, OPT_SELFTEST},
                                      {"json", 0, false, OPT_JSON},
                                      {NULL, 0, false, 0}};
    if (cli_wants_help(argc, argv)) {
        devices_help();
        return CLI_EXIT_OK;
    }
    bool json = false, selftest = false;
    cli_parser p;
    cli_parser_init(&p, cmd, devices_usage, opts, argc, argv);
    for (int id; (id = cli_next(&p)) != CLI_END;) {
        switch (id) {
        case CLI_BAD: return CLI_EXIT_USAGE;
        case CLI_POSITIONAL:
            return cli_usage_error(cmd, devices_usage, "unexpected argument '%s'", p.value);
        case OPT_JSON: json = true; break;
        case OPT_SELFTEST: selftest = true; break;
        }
    }

    const uint64_t test_bytes = 256ull << 20;
    bool built = sg_gpu_built();
    int count = built ? sg_gpu_count() : 0;
    const char *why = !built ? "this build has no CUDA support"
                             : "built with CUDA, but no usable GPU or driver was found";
    int rc = CLI_EXIT_OK;
    cli_json j;
    if (json) {
        cli_json_begin(&j, stdout);
        cli_json_bool(&j, "cuda_built", built);
        cli_json_int(&j, "count", count);
        if (count == 0) cli_json_str(&j, "message", why);
        cli_json_array(&j, "devices");
    } else if (count == 0) {
        printf("no GPU: the CPU path will be used (%s)\n", why);
    }

    for (int i = 0; i < count; i++) {
        sg_gpu_info g;
        sg_error err = {0};
        sg_status st = sg_gpu_info_get(i, &g, &err);
        if (st != SG_OK) {
            rc = cli_fail_status(cmd, st, &err);
            if (json) {
                cli_json_object(&j, NULL);
                cli_json_int(&j, "index", i);
                cli_json_str(&j, "error", err.msg[0] ? err.msg : sg_status_name(st));
                cli_json_object_end(&j);
            }
            continue;
        }
        g.name[sizeof g.name - 1] = '\0';
        double gbps = 0.0;
        sg_status tst = SG_OK;
        sg_error terr = {0};
        if (selftest) {
            tst = sg_gpu_selftest(i, test_bytes, &gbps, &terr);
            if (tst != SG_OK) rc = cli_fail_status(cmd, tst, &terr);
        }
        if (json) {
            cli_json_object(&j, NULL);
            cli_json_int(&j, "index", g.index);
            cli_json_str(&j, "name", g.name);
            cli_json_int(&j, "cc_major", g.cc_major);
            cli_json_int(&j, "cc_minor", g.cc_minor);
            cli_json_int(&j, "sm_count", g.sm_count);
            cli_json_u64(&j, "total_bytes", g.total_bytes);
            cli_json_u64(&j, "free_bytes", g.free_bytes);
            cli_json_u64(&j, "l2_bytes", g.l2_bytes);
            cli_json_int(&j, "driver_version", g.driver_version);
            cli_json_int(&j, "runtime_version", g.runtime_version);
            cli_json_str(&j, "module_loading", g.module_loading);
            if (selftest) {
                cli_json_object(&j, "selftest");
                cli_json_bool(&j, "ok", tst == SG_OK);
                cli_json_u64(&j, "bytes", test_bytes);
                if (tst == SG_OK)
                    cli_json_num(&j, "h2d_gbps", gbps);
                else
                    cli_json_str(&j, "error", terr.msg[0] ? terr.msg : sg_status_name(tst));
                cli_json_object_end(&j);
            }
            cli_json_object_end(&j);
            continue;
        }
        printf("GPU %d: %s\n", g.index, g.name);
        printf("  compute capability  %d.%d\n", g.cc_major, g.cc_minor);
        printf("  SMs                 %d\n", g.sm_count);
        printf("  memory              %s total, %s free\n", cli_bytes(g.total_bytes).s,
               cli_bytes(g.free_bytes).s);
        printf("  L2 cache            %s\n", cli_bytes(g.l2_bytes).s);
        printf("  driver / runtime    CUDA %s / %s\n", cuda_version(g.driver_version).s,
               cuda_version(g.runtime_version).s);
        printf("  kernels loaded      %s (CUDA_MODULE_LOADING)\n", g.module_loading);
        if (selftest) {
            if (tst == SG_OK)
                printf("  self-test           %s round trip ok, host to device %.1f GB/s\n",
                       cli_bytes(test_bytes).s, gbps);
            else
                printf("  self-test           FAILED (see the message above)\n");
        }
    }
    if (json) {
        cli_json_array_end(&j);
        cli_json_end(&j);
    }
    return rc;
}

#include "testutil.h"

#include "sg_common.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *tu_tmpdir(const char *tag)
{
    char buf[256];
    snprintf(buf, sizeof buf, "tmp-%s-XXXXXX", tag);
    char *p = mkdtemp(buf);
    assert_non_null(p);
    return strdup(p);
}

static int rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb; (void)flag; (void)ftw;
    return remove(p);
}

void tu_rm_rf(const char *path) { nftw(path, rm_cb, 16, FTW_DEPTH | FTW_PHYS); }

bool tu_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

uint64_t tu_file_size(const char *path)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return (uint64_t)st.st_size;
}

void tu_flip_byte(const char *path, uint64_t offset, uint8_t mask)
{
    int fd = open(path, O_RDWR);
    assert_true(fd >= 0);
    uint8_t b;
    assert_int_equal(pread(fd, &b, 1, (off_t)offset), 1);
    b ^= mask ? mask : 0xFF;
    assert_int_equal(pwrite(fd, &b, 1, (off_t)offset), 1);
    close(fd);
}

void tu_truncate(const char *path, uint64_t size) { assert_int_equal(truncate(path, (off_t)size), 0); }

int tu_dir_entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

uint64_t tu_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

typedef struct { uint32_t u, v, w; } trip;
static int cmp_trip(const void *a, const void *b)
{
    const trip *x = a, *y = b;
    if (x->u != y->u) return x->u < y->u ? -1 : 1;
    if (x->v != y->v) return x->v < y->v ? -1 : 1;
    return x->w < y->w ? -1 : x->w > y->w;
}

tu_graph tu_graph_from_edges(uint64_t n, size_t ne, const uint32_t (*edges)[3], bool directed)
{
    trip *t = malloc((2 * ne + 1) * sizeof *t);
    assert_non_null(t);
    size_t k = 0;
    for (size_t i = 0; i < ne; i++) {
        uint32_t u = edges[i][0], v = edges[i][1], w = edges[i][2];
        assert_true(u < n && v < n);
        if (u == v) continue;
        t[k++] = (trip){u, v, w};
        if (!directed) t[k++] = (trip){v, u, w};
    }
    qsort(t, k, sizeof *t, cmp_trip);
    size_t j = 0;
    for (size_t i = 0; i < k; i++)
        if (j == 0 || t[i].u != t[j - 1].u || t[i].v != t[j - 1].v) t[j++] = t[i];
    tu_graph g = {.n = n, .m = j, .directed = directed};
    g.x = calloc(n + 1, sizeof *g.x);
    g.a = malloc((j + 1) * sizeof *g.a);
    g.w = malloc((j + 1) * sizeof *g.w);
    assert_true(g.x && g.a && g.w);
    for (size_t i = 0; i < j; i++) {
        g.x[t[i].u + 1]++;
        g.a[i] = t[i].v;
        g.w[i] = t[i].w;
    }
    for (uint64_t v = 0; v < n; v++) g.x[v + 1] += g.x[v];
    free(t);
    (void)cmp_u64;
    return g;
}

tu_graph tu_random_graph(uint64_t n, uint64_t ne, uint32_t maxw, uint64_t seed, bool directed)
{
    uint32_t (*e)[3] = malloc((ne + 1) * sizeof *e);
    assert_non_null(e);
    uint64_t s = seed;
    for (uint64_t i = 0; i < ne; i++) {
        e[i][0] = (uint32_t)(tu_rand(&s) % n);
        e[i][1] = (uint32_t)(tu_rand(&s) % n);
        e[i][2] = 1 + (uint32_t)(tu_rand(&s) % maxw);
    }
    tu_graph g = tu_graph_from_edges(n, ne, (const uint32_t(*)[3])e, directed);
    free(e);
    return g;
}

void tu_graph_free(tu_graph *g)
{
    free(g->x);
    free(g->a);
    free(g->w);
    memset(g, 0, sizeof *g);
}

bool tu_graph_equal(const tu_graph *a, const tu_graph *b)
{
    if (a->n != b->n || a->m != b->m) return false;
    if (memcmp(a->x, b->x, (a->n + 1) * sizeof *a->x)) return false;
    if (a->m && memcmp(a->a, b->a, a->m * sizeof *a->a)) return false;
    if (a->m && memcmp(a->w, b->w, a->m * sizeof *a->w)) return false;
    return true;
}

void tu_write_store(const char *path, const tu_graph *g, const sg_write_options *o)
{
    sg_write_options opt = {0};
    if (o) opt = *o;
    opt.directed = g->directed;
    sg_store_writer *w = NULL;
    sg_error err = {0};
    sg_status st = sg_store_writer_open(path, g->n, &opt, &w, &err);
    if (st) fail_msg("writer_open: %s", err.msg);
    st = sg_store_writer_append(w, g->n, g->x, g->a, g->w, &err);
    if (st) fail_msg("writer_append: %s", err.msg);
    st = sg_store_writer_finish(w, &err);
    if (st) fail_msg("writer_finish: %s", err.msg);
}

tu_graph tu_read_store(const char *path)
{
    sg_store *s = NULL;
    sg_error err = {0};
    if (sg_store_open(path, &s, &err)) fail_msg("open: %s", err.msg);
    sg_store_info info;
    sg_store_get_info(s, &info);
    tu_graph g = {.n = info.n_vertices, .m = info.n_edges, .directed = info.directed};
    g.x = malloc((g.n + 1) * sizeof *g.x);
    g.a = malloc((g.m + 1) * sizeof *g.a);
    g.w = malloc((g.m + 1) * sizeof *g.w);
    sg_read_request rq = {.v_begin = 0, .v_end = g.n, .x = g.x, .a = g.a, .w = g.w};
    if (sg_store_read(s, &rq, NULL, NULL, &err)) fail_msg("read: %s", err.msg);
    sg_store_close(s);
    return g;
}

bool tu_counter(const sg_run *run, const char *name, uint64_t *value)
{
    for (unsigned i = 0; i < sg_run_counter_count(run); i++) {
        uint64_t v = 0;
        if (strcmp(sg_run_counter(run, i, &v), name) == 0) {
            *value = v;
            return true;
        }
    }
    return false;
}

void tu_expect_rounds(const sg_run *run, uint64_t n, const char *what)
{
    uint64_t rounds = 0;
    if (!tu_counter(run, "iterations", &rounds)) {
        if (n > 0) fail_msg("%s: no iterations counter", what);
        return;
    }
    if (rounds > sgi_boruvka_rounds_max(n))
        fail_msg("%s: %llu rounds for %llu vertices (at most %llu)", what,
                 (unsigned long long)rounds, (unsigned long long)n,
                 (unsigned long long)sgi_boruvka_rounds_max(n));
}

/* sg_convert: edge lists to a store, within a memory bound.
 *
 * Every input edge becomes one 16-byte record {key = u << 32 | v, double w}
 * (two for undirected graphs: u->v and v->u), appended to a buffer of C
 * records, where C is what the memory bound allows for the buffer and an
 * equal sort scratch (32 bytes per record).
 *
 * In memory: when all records fit, the buffer is sorted (parallel LSD radix
 * sort on the key, skipping the bytes that no key varies in), duplicates are
 * reduced to the lightest in one parallel pass that also splits the records
 * into the store's A and W arrays, and the lists go to the store writer in
 * chunks of vertices.
 *
 * External: each time the buffer fills it is sorted, deduplicated and written
 * as one sorted run file in a hidden temporary directory beside the output,
 * and a histogram of records per source vertex bucket is updated. After the
 * input, the histogram cuts the vertex range into partitions of at most C
 * records; for each partition (in vertex order) the matching key range of
 * every run is found by binary search, read into the buffer, radix sorted and
 * written like the in-memory case. So each record is written once and read
 * once, and memory stays at 32 C bytes plus fixed buffers.
 *
 * --ids compact first reads the inputs once to collect the sorted distinct
 * ids (kept in memory: 8 bytes per distinct id), then converts as above with
 * every id replaced by its rank, and stores the ids as the store's mapping. */
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "parse.h"
#include "sg_convert.h"

/* ---------------------------------------------------------------- names */

static const struct {
    const char *name;
    sg_input_format fmt;
} format_names[] = {
    {"el", SG_INPUT_EL},       {"wel", SG_INPUT_WEL}, {"gr", SG_INPUT_GR},
    {"mtx", SG_INPUT_MTX},     {"bin32", SG_INPUT_BIN32}, {"sg", SG_INPUT_SG},
    {"wsg", SG_INPUT_WSG},     {"egr", SG_INPUT_EGR},
};
enum { N_FORMATS = sizeof format_names / sizeof format_names[0] };

sg_input_format sg_input_format_parse(const char *name)
{
    if (!name) return SG_INPUT_AUTO;
    for (int i = 0; i < N_FORMATS; i++)
        if (strcmp(name, format_names[i].name) == 0) return format_names[i].fmt;
    return SG_INPUT_AUTO;
}

const char *sg_input_format_name(sg_input_format f)
{
    for (int i = 0; i < N_FORMATS; i++)
        if (format_names[i].fmt == f) return format_names[i].name;
    return "auto";
}

sg_input_format sg_input_format_of_path(const char *path)
{
    if (!path) return SG_INPUT_AUTO;
    size_t len = strlen(path);
    if (len >= 4 && strcasecmp(path + len - 4, ".zst") == 0) len -= 4;
    size_t dot = len;
    while (dot > 0 && path[dot - 1] != '.' && path[dot - 1] != '/') dot--;
    if (dot == 0 || path[dot - 1] != '.') return SG_INPUT_AUTO;
    char ext[8];
    const size_t el = len - dot;
    if (el == 0 || el >= sizeof ext) return SG_INPUT_AUTO;
    for (size_t i = 0; i < el; i++) {
        char c = path[dot + i];
        ext[i] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    }
    ext[el] = '\0';
    return sg_input_format_parse(ext);
}

/* ---------------------------------------------------------------- records */

typedef struct rec {
    uint64_t key; /* u << 32 | v */
    double w;
} rec;
_Static_assert(sizeof(rec) == 16, "a record is 16 bytes");

#define REC_U(k) ((uint32_t)((k) >> 32))
#define REC_V(k) ((uint32_t)(k))

/* Parallel LSD radix sort of `n` items by a 64-bit key, 8 bits per pass;
 * passes over bytes in which all keys agree are skipped. Sorts a into tmp
 * and back as needed; returns whichever holds the result. cnt: threads*256. */
#define DEFINE_RADIX(NAME, T, KEY)                                                          \
    static T *NAME(T *a, T *tmp, size_t n, int threads, size_t *cnt)                       \
    {                                                                                       \
        if (n < 2) return a;                                                                \
        if (n < ((size_t)1 << 16)) threads = 1;                                             \
        uint64_t k_or = 0, k_and = ~(uint64_t)0;                                            \
        _Pragma("omp parallel for schedule(static) num_threads(threads) reduction(|:k_or) reduction(&:k_and)") \
        for (size_t i = 0; i < n; i++) {                                                    \
            k_or |= KEY(a[i]);                                                              \
            k_and &= KEY(a[i]);                                                             \
        }                                                                                   \
        const uint64_t diff = k_or ^ k_and;                                                 \
        for (int d = 0; d < 8; d++) {                                                       \
            const int sh = 8 * d;                                                           \
            if (((diff >> sh) & 0xFF) == 0) continue;                                       \
            _Pragma("omp parallel num_threads(threads)")                                    \
            {                                                                               \
                const int t = omp_get_thread_num(), nt = omp_get_num_threads();             \
                const size_t lo = n * (size_t)t / (size_t)nt;                               \
                const size_t hi = n * (size_t)(t + 1) / (size_t)nt;                         \
                size_t *h = cnt + 256 * (size_t)t;                                          \
                memset(h, 0, 256 * sizeof *h);                                              \
                for (size_t i = lo; i < hi; i++) h[(KEY(a[i]) >> sh) & 0xFF]++;             \
                _Pragma("omp barrier")                                                      \
                _Pragma("omp single")                                                       \
                {                                                                           \
                    size_t sum = 0;                                                         \
                    for (int b = 0; b < 256; b++)                                           \
                        for (int u = 0; u < nt; u++) {                                      \
                            size_t c = cnt[256 * (size_t)u + (size_t)b];                    \
                            cnt[256 * (size_t)u + (size_t)b] = sum;                         \
                            sum += c;                                                       \
                        }                                                                   \
                }                                                                           \
                for (size_t i = lo; i < hi; i++) tmp[h[(KEY(a[i]) >> sh) & 0xFF]++] = a[i]; \
            }                                                                               \
            T *s = a;                                                                       \
            a = tmp;                                                                        \
            tmp = s;                                                                        \
        }                                                                                   \
        return a;                                                                           \
    }

#define REC_KEY(r) ((r).key)
#define U64_KEY(x) (x)
DEFINE_RADIX(sort_recs, rec, REC_KEY)
DEFINE_RADIX(sort_u64, uint64_t, U64_KEY)

/* ---------------------------------------------------------------- state */

#define BATCH ((size_t)1 << 20)        /* input edges per reader call */
#define X_CHUNK ((uint64_t)1 << 20)    /* vertices per writer append */
#define HIST_MAX ((size_t)1 << 20)     /* histogram buckets (8 MiB) */
#define MIN_RECORDS 64                 /* the smallest buffer, whatever the bound */

typedef struct run {
    uint64_t count;      /* records */
    uint64_t cursor;     /* first record not yet consumed by a partition */
} run;

typedef struct conv {
    const sg_convert_options *o;
    sg_convert_report rep;
    sg_error *err;
    int threads;
    uint64_t mem;

    /* inputs */
    const char *out_path;
    const char *const *inputs;
    int n_inputs;
    uint64_t *file_bytes;   /* per input */
    uint64_t total_bytes;
    uint64_t done_bytes;    /* of the files finished */
    const char *cur_path;   /* for messages */
    uint64_t cur_edge;      /* edges of the current file handed out so far */
    bool cur_symmetric;

    /* records */
    rec *buf, *scratch;
    size_t cap;             /* the most records the bound allows */
    size_t buf_cap, scratch_cap; /* allocated: they grow up to cap */
    size_t n_recs;
    size_t *radix_cnt;
    sgi_in_edge *batch;

    /* what was read */
    bool any_id;
    uint64_t max_id;        /* keep mode */
    uint64_t header_n;      /* the largest vertex count a header declared */
    bool all_int;           /* every kept weight an integer in [0, 2^32) */
    bool float_declared;    /* an input declared or wrote real weights */
    bool any_negative;

    /* compact ids */
    uint64_t *ids;
    uint64_t n_ids;

    /* external path */
    bool external;
    char *tmp_dir;
    run *runs;
    uint32_t n_runs, cap_runs;
    uint64_t *hist;         /* records per bucket of 2^hist_shift source vertices */
    size_t hist_len;
    int hist_shift;

    /* output */
    uint64_t n;
    sg_weight_type wtype;
    sg_store_writer *w;
    uint64_t *xbuf;
    uint64_t v_written;

    /* memory accounting */
    uint64_t live, fixed;
} conv;

static void account(conv *c, int64_t delta)
{
    c->live = (uint64_t)((int64_t)c->live + delta);
    if (c->live + c->fixed > c->rep.peak_bytes) c->rep.peak_bytes = c->live + c->fixed;
}

static void *cv_alloc(conv *c, size_t bytes)
{
    void *p = sgi_huge_alloc(bytes);
    if (p) account(c, (int64_t)bytes);
    return p;
}

static void cv_free(conv *c, void *p, size_t bytes)
{
    if (!p) return;
    sgi_free(p);
    account(c, -(int64_t)bytes);
}

/* Grows c->buf (keeping its records) or c->scratch to hold n <= cap records:
 * doubling from 1M records, so small inputs take small buffers. */
static sg_status ensure_recs(conv *c, bool scratch, size_t n)
{
    rec **p = scratch ? &c->scratch : &c->buf;
    size_t *have = scratch ? &c->scratch_cap : &c->buf_cap;
    if (*have >= n) return SG_OK;
    size_t want = *have ? 2 * *have : ((size_t)1 << 20);
    if (want < n) want = n;
    if (want > c->cap) want = c->cap;
    rec *q = cv_alloc(c, want * sizeof(rec));
    if (!q) return sgi_fail(c->err, SG_E_NOMEM, "out of memory allocating %zu edge records", want);
    if (!scratch && c->n_recs) {
        const rec *src = *p;
        const size_t n = c->n_recs;
#pragma omp parallel for num_threads(c->threads) schedule(static)
        for (size_t i = 0; i < n; i += 65536) memcpy(q + i, src + i, (n - i < 65536 ? n - i : 65536) * sizeof(rec));
    }
    cv_free(c, *p, *have * sizeof(rec));
    *p = q;
    *have = want;
    return SG_OK;
}

/* Radix sorts recs[0..n) of c->buf; afterwards c->buf holds the result
 * (the two buffers swap when the sort ends in the scratch). */
static sg_status sort_buf(conv *c, size_t n)
{
    sg_status st = ensure_recs(c, true, n);
    if (st != SG_OK) return st;
    rec *sorted = sort_recs(c->buf, c->scratch, n, c->threads, c->radix_cnt);
    if (sorted != c->buf) {
        rec *t = c->buf;
        size_t tc = c->buf_cap;
        c->buf = c->scratch;
        c->buf_cap = c->scratch_cap;
        c->scratch = t;
        c->scratch_cap = tc;
    }
    return SG_OK;
}

static void progress(conv *c, const char *phase, double f)
{
    if (c->o->progress) c->o->progress(c->o->progress_ctx, phase, f);
}

static uint64_t splitmix64(uint64_t x)
{
    uint64_t z = x + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Weight of {a, b}: depends only on (seed, min, max), so both directions of
 * an undirected edge agree. Uniform in [1, max]. */
static uint32_t random_weight(uint64_t seed, uint64_t a, uint64_t b, uint32_t max)
{
    const uint64_t lo = a < b ? a : b, hi = a < b ? b : a;
    const uint64_t z = splitmix64(seed ^ splitmix64(lo ^ splitmix64(hi + 0x632BE59BD9B4E019ull)));
    return 1u + (uint32_t)(((z >> 32) * (uint64_t)max) >> 32);
}

/* ---------------------------------------------------------------- temp files */

static sg_status make_tmp_dir(conv *c, const char *out_path)
{
    static atomic_uint counter;
    sg_status st = SG_OK;
    sg_error *err = c->err;
    const char *p = out_path;
    size_t len = strlen(p);
    while (len > 1 && p[len - 1] == '/') len--;
    size_t slash = len;
    while (slash > 0 && p[slash - 1] != '/') slash--;
    char dir[4096];
    if (c->o->tmp_dir && c->o->tmp_dir[0])
        snprintf(dir, sizeof dir, "%s", c->o->tmp_dir);
    else if (slash == 0)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash > 1 ? slash - 1 : 1), p);
    char name[512];
    int nl = snprintf(name, sizeof name, ".%.*s.runs-%ld-%u", (int)(len - slash), p + slash,
                      (long)getpid(), atomic_fetch_add(&counter, 1));
    SG_CHECK(nl > 0 && (size_t)nl < sizeof name, SG_E_INVALID, err, "output name too long: %s",
             p);
    SG_ALLOC(c->tmp_dir, sgi_path_join(dir, name), err, "a path");
    int r = sgi_io_get()->mkdir(c->tmp_dir, 0700);
    if (r < 0) {
        st = sgi_fail_errno(err, -r, "creating the run directory %s", c->tmp_dir);
        sgi_free(c->tmp_dir);
        c->tmp_dir = NULL;
        goto fail;
    }
fail:
    return st;
}

static void run_name(const conv *c, uint32_t i, char *out, size_t cap)
{
    snprintf(out, cap, "%s/run-%06u", c->tmp_dir, i);
}

static sg_status open_run(conv *c, uint32_t i, int flags, int *fd)
{
    char path[4200];
    run_name(c, i, path, sizeof path);
    int r = sgi_io_get()->open(path, flags, 0600);
    if (r < 0) return sgi_fail_errno(c->err, -r, "%s %s", flags & O_CREAT ? "creating" : "opening",
                                     path);
    *fd = r;
    return SG_OK;
}

static sg_status close_fd(conv *c, int fd, uint32_t run_i)
{
    int r = sgi_io_get()->close(fd);
    if (r < 0) {
        char path[4200];
        run_name(c, run_i, path, sizeof path);
        return sgi_fail_errno(c->err, -r, "closing %s", path);
    }
    return SG_OK;
}

/* ---------------------------------------------------------------- dedupe */

/* Reduces runs of equal keys in sorted recs[0..n) to the lightest, counting
 * the dropped ones (undirected: only u < v records count, so a repeated
 * {u,v} counts once). In place; returns the new count. */
static size_t dedupe_in_place(conv *c, rec *r, size_t n)
{
    if (n == 0) return 0;
    size_t k = 0;
    uint64_t dups = 0;
    for (size_t i = 1; i < n; i++) {
        if (r[i].key == r[k].key) {
            if (r[i].w < r[k].w) r[k].w = r[i].w;
            if (c->o->directed || REC_U(r[i].key) < REC_V(r[i].key)) dups++;
        } else {
            r[++k] = r[i];
        }
    }
    c->rep.duplicates += dups;
    return k + 1;
}

/* Sorted recs[0..n) -> deduplicated A (neighbour), W (weight bits) and S
 * (source) arrays, in parallel. Returns the unique count; dups counted. */
static size_t split_unique(conv *c, const rec *r, size_t n, uint32_t *a, uint32_t *w, uint32_t *s)
{
    if (n == 0) return 0;
    int threads = n < ((size_t)1 << 16) ? 1 : c->threads;
    size_t starts[257], counts[257];
    if (threads > 256) threads = 256;
    for (int t = 0; t <= threads; t++) {
        size_t p = n * (size_t)t / (size_t)threads;
        while (p > 0 && p < n && r[p].key == r[p - 1].key) p++;
        starts[t] = p;
    }
    const bool f32 = c->wtype == SG_WEIGHT_F32;
    const bool directed = c->o->directed;
    uint64_t dups = 0;
#pragma omp parallel num_threads(threads) reduction(+ : dups)
    {
        const int t = omp_get_thread_num();
        const int nt = omp_get_num_threads();
        /* If the team is smaller, each thread takes several slices. */
        for (int sl = t; sl < threads; sl += nt) {
            size_t u = 0;
            for (size_t i = starts[sl]; i < starts[sl + 1]; i++)
                if (i == starts[sl] || r[i].key != r[i - 1].key) u++;
            counts[sl] = u;
        }
#pragma omp barrier
#pragma omp single
        {
            size_t sum = 0;
            for (int sl = 0; sl < threads; sl++) {
                size_t k = counts[sl];
                counts[sl] = sum;
                sum += k;
            }
            counts[threads] = sum;
        }
        for (int sl = t; sl < threads; sl += nt) {
            size_t o = counts[sl];
            size_t i = starts[sl];
            const size_t end = starts[sl + 1];
            while (i < end) {
                const uint64_t key = r[i].key;
                double best = r[i].w;
                size_t j = i + 1;
                for (; j < end && r[j].key == key; j++)
                    if (r[j].w < best) best = r[j].w;
                if (directed || REC_U(key) < REC_V(key)) dups += j - i - 1;
                a[o] = REC_V(key);
                s[o] = REC_U(key);
                if (f32) {
                    float f = (float)best;
                    memcpy(&w[o], &f, 4);
                } else {
                    w[o] = (uint32_t)best;
                }
                o++;
                i = j;
            }
        }
    }
    c->rep.duplicates += dups;
    return counts[threads];
}

/* ---------------------------------------------------------------- emit */

/* Writes vertices [v0, v1) whose (unique, sorted) edges are a/w/s[0..m). */
static sg_status emit(conv *c, uint64_t v0, uint64_t v1, const uint32_t *a, const uint32_t *w,
                      const uint32_t *s, size_t m)
{
    sg_status st = SG_OK;
    size_t pos = 0;
    double t0 = sgi_now();
    for (uint64_t v = v0; v < v1;) {
        const uint64_t cnt = v1 - v < X_CHUNK ? v1 - v : X_CHUNK;
        const size_t first = pos;
        for (uint64_t i = 0; i < cnt; i++) {
            c->xbuf[i] = pos - first;
            while (pos < m && s[pos] == v + i) pos++;
        }
        c->xbuf[cnt] = pos - first;
        SG_TRY(sg_store_writer_append(c->w, cnt, c->xbuf, a + first, w + first, c->err));
        v += cnt;
        c->v_written = v;
        if (c->n) progress(c, "write", (double)v / (double)c->n);
    }
    SG_CHECK(pos == m, SG_E_INVALID, c->err,
             "internal error: %zu of %zu edges of vertices [%llu, %llu) placed", pos, m,
             (unsigned long long)v0, (unsigned long long)v1);
fail:
    c->rep.seconds_write += sgi_now() - t0;
    return st;
}

/* Sorts recs[0..n) (in c->buf or c->scratch), deduplicates and writes
 * vertices [v0, v1). */
static sg_status sort_and_emit(conv *c, size_t n, uint64_t v0, uint64_t v1)
{
    double t0 = sgi_now();
    sg_status st = sort_buf(c, n);
    if (st == SG_OK) st = ensure_recs(c, true, 1); /* A, W, S need a buffer even when empty */
    if (st != SG_OK) return st;
    const rec *sorted = c->buf;
    /* A, W and S take 12 bytes per record in the scratch buffer. */
    uint32_t *a = (uint32_t *)(void *)c->scratch;
    uint32_t *w = a + n;
    uint32_t *s = w + n;
    size_t m = split_unique(c, sorted, n, a, w, s);
    c->rep.seconds_sort += sgi_now() - t0;
    c->rep.n_edges += m;
    return emit(c, v0, v1, a, w, s, m);
}

/* ---------------------------------------------------------------- runs */

static sg_status hist_add(conv *c, const rec *r, size_t n)
{
    if (n == 0) return SG_OK;
    const uint64_t top = REC_U(r[n - 1].key);
    while ((top >> c->hist_shift) >= HIST_MAX) {
        /* Coarsen: merge bucket pairs. */
        for (size_t i = 0; i < c->hist_len; i++) {
            if (i % 2 == 0) c->hist[i / 2] = 0;
            c->hist[i / 2] += c->hist[i];
        }
        const size_t old = c->hist_len;
        c->hist_len = (old + 1) / 2;
        memset(c->hist + c->hist_len, 0, (old - c->hist_len) * sizeof *c->hist);
        c->hist_shift++;
    }
    const size_t need = (size_t)(top >> c->hist_shift) + 1;
    if (need > c->hist_len) {
        size_t cap = c->hist_len ? c->hist_len : 1024;
        while (cap < need) cap *= 2;
        if (cap > HIST_MAX) cap = HIST_MAX;
        uint64_t *h = sgi_realloc(c->hist, cap * sizeof *h);
        if (!h) return sgi_fail(c->err, SG_E_NOMEM, "out of memory growing the run histogram");
        account(c, (int64_t)((cap - c->hist_len) * sizeof *h));
        memset(h + c->hist_len, 0, (cap - c->hist_len) * sizeof *h);
        c->hist = h;
        c->hist_len = cap;
    }
    for (size_t i = 0; i < n; i++) c->hist[REC_U(r[i].key) >> c->hist_shift]++;
    return SG_OK;
}

/* Sorts the buffer, reduces duplicates and writes it as the next run. */
static sg_status spill(conv *c)
{
    sg_status st = SG_OK;
    int fd = -1;
    uint32_t id = c->n_runs;
    sg_error *err = c->err;
    if (c->n_recs == 0) return SG_OK;
    const double t0 = sgi_now();
    if (!c->tmp_dir) SG_TRY(make_tmp_dir(c, c->out_path));
    c->external = true;
    if (c->n_runs == c->cap_runs) {
        uint32_t cap = c->cap_runs ? 2 * c->cap_runs : 16;
        run *p = sgi_realloc(c->runs, cap * sizeof *p);
        SG_CHECK(p, SG_E_NOMEM, err, "out of memory growing the run table");
        c->runs = p;
        c->cap_runs = cap;
    }
    SG_TRY(sort_buf(c, c->n_recs));
    const size_t m = dedupe_in_place(c, c->buf, c->n_recs);
    SG_TRY(hist_add(c, c->buf, m));
    c->rep.seconds_sort += sgi_now() - t0;

    SG_TRY(open_run(c, id, O_RDWR | O_CREAT | O_EXCL, &fd));
    char path[4200];
    run_name(c, id, path, sizeof path);
    SG_TRY(sgi_write_all(fd, c->buf, m * sizeof(rec), 0, path, err));
    const int r = fd;
    fd = -1;
    SG_TRY(close_fd(c, r, id));
    c->runs[id] = (run){.count = m, .cursor = 0};
    c->n_runs++;
    c->rep.run_bytes += m * sizeof(rec);
    c->n_recs = 0;
fail:
    if (fd >= 0) sgi_io_get()->close(fd);
    return st;
}

/* First record of run (open as fd) at or after index lo with source >= u. */
static sg_status run_lower_bound(conv *c, int fd, uint32_t id, uint64_t lo, uint64_t u,
                                 uint64_t *out)
{
    char path[4200];
    run_name(c, id, path, sizeof path);
    uint64_t hi = c->runs[id].count;
    const uint64_t key = u << 32;
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        uint64_t k;
        sg_status st = sgi_read_all(fd, &k, sizeof k, mid * sizeof(rec), path, c->err);
        if (st != SG_OK) return st;
        if (k < key) lo = mid + 1;
        else hi = mid;
    }
    *out = lo;
    return SG_OK;
}

/* Loads the records of sources [u0, u1) from every run into c->buf. */
static sg_status load_partition(conv *c, uint64_t u1, bool last, size_t *n_out)
{
    sg_status st = SG_OK;
    size_t n = 0;
    int fd = -1;
    uint32_t i = 0;
    for (i = 0; i < c->n_runs; i++) {
        run *r = &c->runs[i];
        if (r->cursor == r->count) continue;
        SG_TRY(open_run(c, i, O_RDONLY, &fd));
        uint64_t end = r->count;
        if (!last) SG_TRY(run_lower_bound(c, fd, i, r->cursor, u1, &end));
        const uint64_t k = end - r->cursor;
        SG_CHECK(n + k <= c->cap, SG_E_INVALID, c->err,
                 "internal error: partition ending at vertex %llu holds more than %zu records",
                 (unsigned long long)u1, c->cap);
        SG_TRY(ensure_recs(c, false, n + k));
        if (k) {
            char path[4200];
            run_name(c, i, path, sizeof path);
            SG_TRY(sgi_read_all(fd, c->buf + n, k * sizeof(rec), r->cursor * sizeof(rec), path,
                                c->err));
        }
        n += k;
        r->cursor = end;
        const int f = fd;
        fd = -1;
        SG_TRY(close_fd(c, f, i));
    }
    *n_out = n;
fail:
    if (fd >= 0) sgi_io_get()->close(fd);
    return st;
}

/* The external second half: partitions of at most cap records, in vertex
 * order, each loaded, sorted and written. */
static sg_status merge_runs(conv *c)
{
    sg_status st = SG_OK;
    const uint64_t n = c->n;
    /* Count partitions first (for progress and the report). */
    uint64_t parts = 0;
    for (size_t b = 0; b < c->hist_len;) {
        uint64_t sum = 0;
        size_t e = b;
        while (e < c->hist_len && sum + c->hist[e] <= c->cap) sum += c->hist[e++];
        if (e == b) {
            const uint64_t v0 = (uint64_t)b << c->hist_shift;
            SG_CHECK(false, SG_E_NOMEM, c->err,
                     "vertices [%llu, %llu) have %llu edges, more than the %zu records the "
                     "memory bound holds; raise the memory bound",
                     (unsigned long long)v0, (unsigned long long)(v0 + (1ull << c->hist_shift)),
                     (unsigned long long)c->hist[b], c->cap);
        }
        parts++;
        b = e;
    }
    if (parts == 0) parts = 1;
    c->rep.partitions = parts;

    uint64_t v0 = 0, p = 0;
    for (size_t b = 0; b < c->hist_len || v0 < n;) {
        uint64_t sum = 0;
        size_t e = b;
        while (e < c->hist_len && sum + c->hist[e] <= c->cap) sum += c->hist[e++];
        const bool last = e >= c->hist_len;
        uint64_t v1 = last ? n : (uint64_t)e << c->hist_shift;
        if (v1 > n) v1 = n;
        size_t k = 0;
        double t0 = sgi_now();
        SG_TRY(load_partition(c, v1, last, &k));
        c->rep.seconds_sort += sgi_now() - t0;
        SG_TRY(sort_and_emit(c, k, v0, v1));
        v0 = v1;
        b = e;
        p++;
        progress(c, "sort", (double)p / (double)parts);
        if (last) break;
    }
    SG_CHECK(v0 == n, SG_E_INVALID, c->err, "internal error: partitions end at %llu of %llu",
             (unsigned long long)v0, (unsigned long long)n);
fail:
    return st;
}

/* ---------------------------------------------------------------- intake */

static sg_status push(conv *c, uint64_t key, double w)
{
    if (c->n_recs == c->buf_cap) {
        sg_status st = c->buf_cap < c->cap ? ensure_recs(c, false, c->n_recs + 1) : spill(c);
        if (st != SG_OK) return st;
    }
    c->buf[c->n_recs].key = key;
    c->buf[c->n_recs].w = w;
    c->n_recs++;
    return SG_OK;
}

/* Rank of original id x in c->ids (present by construction). */
static bool id_rank(const conv *c, uint64_t x, uint64_t *rank)
{
    uint64_t lo = 0, hi = c->n_ids;
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (c->ids[mid] < x) lo = mid + 1;
        else hi = mid;
    }
    if (lo == c->n_ids || c->ids[lo] != x) return false;
    *rank = lo;
    return true;
}

/* What is wrong with an input edge, if anything. */
typedef enum edge_fault {
    EDGE_OK = 0,
    EDGE_UNSEEN_ID, /* compact: an id the first pass did not see */
    EDGE_BIG_ID,    /* keep: an id beyond 2^32-1 */
    EDGE_NONFINITE, /* a NaN or infinite weight */
    EDGE_FLT_RANGE  /* a weight beyond the float32 range */
} edge_fault;

/* Maps one input edge to its store ids and weight (the options' id and
 * weight modes). Pure: safe to call from many threads. */
static inline edge_fault edge_value(const conv *c, const sgi_in_edge *e, uint32_t rmax,
                                    uint64_t *pu, uint64_t *pv, double *pw)
{
    const sg_convert_options *o = c->o;
    uint64_t u = e->u, v = e->v;
    if (o->ids == SG_IDS_COMPACT) {
        if (!id_rank(c, e->u, &u) || !id_rank(c, e->v, &v)) return EDGE_UNSEEN_ID;
    } else if (u > UINT32_MAX || v > UINT32_MAX) {
        return EDGE_BIG_ID;
    }
    double w = e->w;
    if (o->weights == SG_WEIGHTS_KEEP) {
        if (!isfinite(w)) return EDGE_NONFINITE;
        if (fabs(w) > FLT_MAX) return EDGE_FLT_RANGE;
    } else if (o->weights == SG_WEIGHTS_UNIT) {
        w = 1.0;
    } else {
        w = (double)random_weight(o->seed, e->u, e->v, rmax);
    }
    *pu = u;
    *pv = v;
    *pw = w;
    return EDGE_OK;
}

static sg_status edge_error(conv *c, const sgi_in_edge *e, uint64_t where, edge_fault f)
{
    const unsigned long long at = (unsigned long long)where;
    switch (f) {
    case EDGE_UNSEEN_ID:
        return sgi_fail(c->err, SG_E_INVALID,
                        "%s: edge %llu: an id not seen in the first pass (did the file change "
                        "while converting?)", c->cur_path, at);
    case EDGE_BIG_ID:
        return sgi_fail(c->err, SG_E_RANGE,
                        "%s: edge %llu (%llu %llu): id %llu is beyond 2^32-1 (use --ids compact "
                        "to renumber)", c->cur_path, at, (unsigned long long)e->u,
                        (unsigned long long)e->v,
                        (unsigned long long)(e->u > e->v ? e->u : e->v));
    case EDGE_NONFINITE:
        return sgi_fail(c->err, SG_E_RANGE, "%s: edge %llu: weight is %s", c->cur_path, at,
                        isnan(e->w) ? "NaN" : "infinite");
    case EDGE_FLT_RANGE:
        return sgi_fail(c->err, SG_E_RANGE, "%s: edge %llu: weight %g is beyond the float32 range",
                        c->cur_path, at, e->w);
    case EDGE_OK: break;
    }
    return SG_OK;
}

/* Bookkeeping of one kept (non-loop) edge's weight and ids. */
static inline void note_edge(bool *all_int, bool *neg, uint64_t *mx, uint64_t u, uint64_t v, double w)
{
    if (!(w >= 0.0 && w < 4294967296.0 && w == floor(w))) *all_int = false;
    if (w < 0) *neg = true;
    const uint64_t m = u > v ? u : v;
    if (m > *mx) *mx = m;
}

/* One edge at a time, spilling whenever the buffer is full. */
static sg_status take_edges_serial(conv *c, const sgi_in_edge *e, size_t k)
{
    sg_status st = SG_OK;
    const bool both = !c->o->directed || c->cur_symmetric;
    const uint32_t rmax = c->o->random_max ? c->o->random_max : (1u << 20);
    for (size_t i = 0; i < k; i++) {
        uint64_t u, v;
        double w;
        const edge_fault f = edge_value(c, &e[i], rmax, &u, &v, &w);
        if (f != EDGE_OK) return edge_error(c, &e[i], c->cur_edge + i + 1, f);
        if (c->o->ids != SG_IDS_COMPACT) {
            const uint64_t mx = u > v ? u : v;
            if (!c->any_id || mx > c->max_id) c->max_id = mx;
            c->any_id = true;
        }
        if (u == v) {
            c->rep.self_loops++;
            continue;
        }
        uint64_t ignored = 0;
        note_edge(&c->all_int, &c->any_negative, &ignored, u, v, w);
        SG_TRY(push(c, u << 32 | v, w));
        if (both) SG_TRY(push(c, v << 32 | u, w));
    }
fail:
    return st;
}

/* A batch in parallel, when its records fit the buffer (growing it within
 * the bound first): each thread maps a static slice of the batch, then
 * writes its records at its prefix offset, so the buffer holds exactly
 * what the serial path would put there, in the same order. A faulty edge
 * sends the batch to the serial path, which names it. */
static sg_status take_edges(conv *c, const sgi_in_edge *e, size_t k)
{
    const bool both = !c->o->directed || c->cur_symmetric;
    const size_t per = both ? 2 : 1;
    if (k < 4096 || c->threads < 2) return take_edges_serial(c, e, k);
    if (c->n_recs + per * k > c->buf_cap && c->buf_cap < c->cap) {
        size_t want = c->n_recs + per * k;
        if (want > c->cap) want = c->cap;
        sg_status st = ensure_recs(c, false, want);
        if (st != SG_OK) return st;
    }
    if (c->n_recs + per * k > c->buf_cap) return take_edges_serial(c, e, k);
    const uint32_t rmax = c->o->random_max ? c->o->random_max : (1u << 20);
    enum { MAXT = 256 };
    int nt = c->threads < MAXT ? c->threads : MAXT;
    size_t count[MAXT + 1];
    bool fault = false, all_int = true, neg = false, any = false;
    uint64_t loops = 0, mx = 0;
    rec *const out = c->buf + c->n_recs;
#pragma omp parallel num_threads(nt) reduction(|| : fault, neg, any) reduction(&& : all_int) \
    reduction(+ : loops) reduction(max : mx)
    {
        const int t = omp_get_thread_num(), T = omp_get_num_threads();
        const size_t lo = k * (size_t)t / (size_t)T, hi = k * (size_t)(t + 1) / (size_t)T;
        size_t kept = 0;
        for (size_t i = lo; i < hi; i++) {
            uint64_t u, v;
            double w;
            if (edge_value(c, &e[i], rmax, &u, &v, &w) != EDGE_OK) {
                fault = true;
                break;
            }
            any = true;
            if (u == v) {
                loops++;
                if (u > mx) mx = u;
                continue;
            }
            note_edge(&all_int, &neg, &mx, u, v, w);
            kept++;
        }
        count[t + 1] = kept * per;
#pragma omp barrier
#pragma omp single
        {
            count[0] = 0;
            for (int j = 0; j < T; j++) count[j + 1] += count[j];
        }
        if (!fault) {
            rec *p = out + count[t];
            for (size_t i = lo; i < hi; i++) {
                uint64_t u = 0, v = 0;
                double w = 0.0;
                (void)edge_value(c, &e[i], rmax, &u, &v, &w);
                if (u == v) continue;
                *p++ = (rec){u << 32 | v, w};
                if (per == 2) *p++ = (rec){v << 32 | u, w};
            }
        }
        if (t == T - 1) nt = T;
    }
    if (fault) return take_edges_serial(c, e, k);
    c->n_recs += count[nt];
    c->rep.self_loops += loops;
    if (!all_int) c->all_int = false;
    if (neg) c->any_negative = true;
    if (any && c->o->ids != SG_IDS_COMPACT) {
        if (!c->any_id || mx > c->max_id) c->max_id = mx;
        c->any_id = true;
    }
    return SG_OK;
}

/* Opens input i with the format the options or its name give. */
static sg_status open_input(conv *c, int i, sgi_in_reader **r)
{
    const char *path = c->inputs[i];
    sg_input_format f = c->o->format;
    if (f == SG_INPUT_AUTO) {
        f = sg_input_format_of_path(path);
        if (f == SG_INPUT_AUTO)
            return sgi_fail(c->err, SG_E_INVALID,
                            "%s: unknown input format (extensions: .el .wel .gr .mtx .sg .wsg "
                            ".egr, optionally .zst; or give --format)",
                            path);
    }
    return sgi_in_open(path, f, c->threads, r, c->err);
}

static void read_progress(conv *c, const char *phase, const sgi_in_reader *r)
{
    if (!c->o->progress || c->total_bytes == 0) return;
    progress(c, phase, (double)(c->done_bytes + sgi_in_bytes_done(r)) / (double)c->total_bytes);
}

/* Sorts and de-duplicates the pending ids and merges them into the sorted
 * id set c->ids (--ids compact, pass 1). *pend and *tmp may swap (the sort
 * ends in either). */
static sg_status merge_pending(conv *c, uint64_t **pend, uint64_t **tmp, size_t n_pend)
{
    sg_status st = SG_OK;
    sg_error *err = c->err;
    uint64_t *s = sort_u64(*pend, *tmp, n_pend, c->threads, c->radix_cnt);
    if (s != *pend) {
        *tmp = *pend;
        *pend = s;
    }
    uint64_t *const p = *pend;
    size_t k = 0;
    for (size_t q = 0; q < n_pend; q++)
        if (k == 0 || p[q] != p[k - 1]) p[k++] = p[q];
    uint64_t *merged = NULL;
    SG_ALLOC(merged, cv_alloc(c, (c->n_ids + k) * sizeof *merged), err, "the id set");
    size_t a = 0, b = 0, m = 0;
    while (a < c->n_ids || b < k) {
        uint64_t x;
        if (b == k || (a < c->n_ids && c->ids[a] < p[b])) x = c->ids[a++];
        else if (a == c->n_ids || p[b] < c->ids[a]) x = p[b++];
        else {
            x = c->ids[a++];
            b++;
        }
        merged[m++] = x;
    }
    cv_free(c, c->ids, c->n_ids * sizeof *c->ids);
    c->ids = merged;
    c->n_ids = m;
fail:
    return st;
}

/* Pass 1 of --ids compact: the sorted distinct ids into c->ids. */
static sg_status collect_ids(conv *c)
{
    sg_status st = SG_OK;
    sg_error *err = c->err;
    sgi_in_reader *r = NULL;
    uint64_t *pend = NULL, *tmp = NULL;
    size_t n_pend = 0;
    /* Half the bound for the pending ids (and their sort scratch), the
     * rest for the distinct set and its merge. */
    size_t pcap = (size_t)(c->mem / 4 / sizeof(uint64_t));
    if (pcap < 2 * BATCH) pcap = 2 * BATCH;
    const uint64_t dmax = c->mem / 4 / sizeof(uint64_t);
    SG_ALLOC(pend, cv_alloc(c, pcap * sizeof *pend), err, "the id buffer");
    SG_ALLOC(tmp, cv_alloc(c, pcap * sizeof *tmp), err, "the id buffer");
    c->done_bytes = 0;
    for (int i = 0; i < c->n_inputs; i++) {
        SG_TRY(open_input(c, i, &r));
        for (;;) {
            size_t got = 0;
            SG_TRY(sgi_in_next(r, c->batch, BATCH, &got, err));
            if (got == 0) break;
            for (size_t j = 0; j < got; j++) {
                if (n_pend + 2 > pcap) {
                    SG_TRY(merge_pending(c, &pend, &tmp, n_pend));
                    n_pend = 0;
                    SG_CHECK(c->n_ids <= dmax, SG_E_NOMEM, err,
                             "--ids compact: more than %llu distinct ids do not fit in the "
                             "memory bound (%llu bytes); raise it",
                             (unsigned long long)dmax, (unsigned long long)c->mem);
                }
                pend[n_pend++] = c->batch[j].u;
                pend[n_pend++] = c->batch[j].v;
            }
            read_progress(c, "ids", r);
        }
        c->done_bytes += c->file_bytes[i];
        sgi_in_close(r);
        r = NULL;
    }
    /* The last pending ids. */
    SG_TRY(merge_pending(c, &pend, &tmp, n_pend));
    SG_CHECK(c->n_ids <= (1ull << 32), SG_E_RANGE, err,
             "--ids compact: %llu distinct ids; a store holds at most 2^32 vertices",
             (unsigned long long)c->n_ids);
fail:
    sgi_in_close(r);
    cv_free(c, pend, pcap * sizeof *pend);
    cv_free(c, tmp, pcap * sizeof *tmp);
    return st;
}

/* Reads every input into records (spilling runs when the buffer fills). */
static sg_status read_inputs(conv *c)
{
    sg_status st = SG_OK;
    sgi_in_reader *r = NULL;
    const double t0 = sgi_now();
    c->done_bytes = 0;
    for (int i = 0; i < c->n_inputs; i++) {
        SG_TRY(open_input(c, i, &r));
        const sgi_in_info *info = sgi_in_get_info(r);
        c->cur_path = c->inputs[i];
        c->cur_edge = 0;
        c->cur_symmetric = info->symmetric;
        for (;;) {
            size_t got = 0;
            SG_TRY(sgi_in_next(r, c->batch, BATCH, &got, c->err));
            if (got == 0) break;
            SG_TRY(take_edges(c, c->batch, got));
            c->cur_edge += got;
            c->rep.edges_read += got;
            read_progress(c, "read", r);
        }
        info = sgi_in_get_info(r);
        if (info->float_weights) c->float_declared = true;
        if (info->has_header_counts && info->header_n > c->header_n) c->header_n = info->header_n;
        c->rep.lines += sgi_in_lines(r);
        c->rep.comments += sgi_in_comment_lines(r);
        c->done_bytes += c->file_bytes[i];
        sgi_in_close(r);
        r = NULL;
    }
fail:
    sgi_in_close(r);
    c->rep.seconds_read = sgi_now() - t0 - c->rep.seconds_sort;
    return st;
}

/* Fixed memory outside the record buffers: the writer's block pool and
 * compression contexts, the reader's buffers, the batch, X chunk and the
 * histogram (an estimate, counted in peak_bytes). */
static uint64_t fixed_estimate(const conv *c)
{
    const uint64_t block = c->o->store.block_bytes ? c->o->store.block_bytes : (1u << 20);
    const uint64_t t = (uint64_t)c->threads;
    const uint64_t writer = (3 + 2 * t) * 2 * block + t * (8ull << 20);
    const uint64_t reader = (16ull << 20) + t * (4ull << 20);
    return writer + reader;
}

static sg_status check_options(const char *const *inputs, int n_inputs, const char *out_path,
                               const sg_convert_options *o, sg_error *err)
{
    if (!o) return sgi_fail(err, SG_E_INVALID, "convert: no options given");
    if (!inputs || n_inputs < 1) return sgi_fail(err, SG_E_INVALID, "convert: no input files given");
    for (int i = 0; i < n_inputs; i++)
        if (!inputs[i] || !inputs[i][0])
            return sgi_fail(err, SG_E_INVALID, "convert: input %d has an empty path", i + 1);
    if (!out_path || !out_path[0]) return sgi_fail(err, SG_E_INVALID, "convert: no output path given");
    if ((int)o->format < SG_INPUT_AUTO || (int)o->format > SG_INPUT_EGR)
        return sgi_fail(err, SG_E_INVALID, "convert: unknown input format %d", (int)o->format);
    if ((int)o->weights < SG_WEIGHTS_KEEP || (int)o->weights > SG_WEIGHTS_RANDOM)
        return sgi_fail(err, SG_E_INVALID, "convert: unknown weight mode %d", (int)o->weights);
    if ((int)o->ids != SG_IDS_KEEP && (int)o->ids != SG_IDS_COMPACT)
        return sgi_fail(err, SG_E_INVALID, "convert: unknown id mode %d", (int)o->ids);
    if (o->threads < 0) return sgi_fail(err, SG_E_INVALID, "convert: %d threads", o->threads);
    return SG_OK;
}

static uint64_t physical_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return 4ull << 30;
    return (uint64_t)pages * (uint64_t)page;
}

/* An existing output is an error before hours of reading, unless forced
 * (the writer checks again, atomically, at the end). */
static sg_status check_output(const char *path, bool force, sg_error *err)
{
    struct stat sb;
    if (stat(path, &sb) != 0) return SG_OK;
    if (!force) return sgi_fail(err, SG_E_EXISTS, "%s already exists (use --force to replace it)", path);
    char m[4200];
    snprintf(m, sizeof m, "%s/%s", path, SGI_MANIFEST_NAME);
    struct stat mb;
    if (!S_ISDIR(sb.st_mode) || stat(m, &mb) != 0 || !S_ISREG(mb.st_mode))
        return sgi_fail(err, SG_E_EXISTS,
                        "%s exists and is not a spillgraph store; refusing to replace it", path);
    return SG_OK;
}

static sg_status input_sizes(conv *c)
{
    for (int i = 0; i < c->n_inputs; i++) {
        struct stat sb;
        if (stat(c->inputs[i], &sb) != 0)
            return sgi_fail_errno(c->err, errno, "%s", c->inputs[i]);
        if (S_ISDIR(sb.st_mode))
            return sgi_fail(c->err, SG_E_INVALID, "%s is a directory, not an edge list",
                            c->inputs[i]);
        c->file_bytes[i] = (uint64_t)sb.st_size;
        c->total_bytes += (uint64_t)sb.st_size;
    }
    return SG_OK;
}

sg_status sg_convert(const char *const *inputs, int n_inputs, const char *out_path,
                     const sg_convert_options *opt, sg_convert_report *rep, sg_error *err)
{
    sg_status st = SG_OK;
    conv c;
    memset(&c, 0, sizeof c);
    SG_TRY(check_options(inputs, n_inputs, out_path, opt, err));
    c.o = opt;
    c.err = err;
    c.out_path = out_path;
    c.inputs = inputs;
    c.n_inputs = n_inputs;
    c.threads = opt->threads > 0 ? opt->threads : omp_get_max_threads();
    c.mem = opt->mem_bytes ? opt->mem_bytes : physical_memory() / 4;
    c.all_int = true;
    const double t_start = sgi_now();
    (void)t_start;

    SG_TRY(check_output(out_path, opt->store.force, err));
    SG_ALLOC(c.file_bytes, sgi_calloc((size_t)n_inputs, sizeof *c.file_bytes), err, "input sizes");
    SG_TRY(input_sizes(&c));
    c.rep.files = (uint64_t)n_inputs;
    c.rep.input_bytes = c.total_bytes;

    /* Fixed buffers. */
    c.fixed = fixed_estimate(&c);
    SG_ALLOC(c.batch, cv_alloc(&c, BATCH * sizeof *c.batch), err, "an input batch");
    SG_ALLOC(c.radix_cnt, sgi_calloc((size_t)c.threads * 256, sizeof *c.radix_cnt), err,
             "sort counters");
    account(&c, (int64_t)((size_t)c.threads * 256 * sizeof *c.radix_cnt));

    if (opt->ids == SG_IDS_COMPACT) {
        const double t0 = sgi_now();
        SG_TRY(collect_ids(&c));
        c.rep.seconds_read += sgi_now() - t0;
    }

    /* The record buffer and its sort scratch: what the bound leaves. */
    {
        const uint64_t used = c.fixed + c.live + HIST_MAX * sizeof(uint64_t) +
                              (X_CHUNK + 1) * sizeof(uint64_t);
        const uint64_t budget = c.mem > 2 * used ? c.mem - used : c.mem / 2;
        uint64_t cap = budget / (2 * sizeof(rec));
        if (cap < MIN_RECORDS) cap = MIN_RECORDS;
        /* No more than the input can produce (binary formats know it). */
        if (cap > SIZE_MAX / sizeof(rec) / 2) cap = SIZE_MAX / sizeof(rec) / 2;
        c.cap = (size_t)cap;
    }

    {
        const double t0 = sgi_now();
        SG_TRY(read_inputs(&c));
        c.rep.seconds_read = sgi_now() - t0 - c.rep.seconds_sort + c.rep.seconds_read;
    }

    /* The graph's shape. */
    if (opt->ids == SG_IDS_COMPACT) {
        c.n = c.n_ids;
    } else {
        c.n = c.any_id ? c.max_id + 1 : 0;
        if (c.header_n > c.n) c.n = c.header_n;
    }
    c.rep.n_vertices = c.n;
    c.wtype = (c.all_int && !c.float_declared) || opt->weights != SG_WEIGHTS_KEEP
                  ? SG_WEIGHT_U32
                  : SG_WEIGHT_F32;
    c.rep.weight_type = c.wtype;
    c.rep.negative_weights = c.any_negative && c.wtype == SG_WEIGHT_F32;
    if (c.external) SG_TRY(spill(&c)); /* the rest of the buffer becomes the last run */
    c.rep.external = c.external;

    SG_ALLOC(c.xbuf, cv_alloc(&c, (X_CHUNK + 1) * sizeof *c.xbuf), err, "an offset buffer");
    sg_write_options wo = opt->store;
    wo.directed = opt->directed;
    wo.weight_type = c.wtype;
    if (!wo.threads) wo.threads = c.threads;
    wo.progress = NULL; /* the converter reports "write" itself */
    wo.progress_ctx = NULL;
    SG_TRY(sg_store_writer_open(out_path, c.n, &wo, &c.w, err));
    if (opt->ids == SG_IDS_COMPACT) SG_TRY(sg_store_writer_append_ids(c.w, c.ids, c.n_ids, err));

    if (c.external) {
        SG_TRY(merge_runs(&c));
    } else {
        progress(&c, "sort", 0.0);
        SG_TRY(sort_and_emit(&c, c.n_recs, 0, c.n));
    }
    {
        const double t0 = sgi_now();
        sg_store_writer *w = c.w;
        c.w = NULL;
        SG_TRY(sg_store_writer_finish(w, err));
        c.rep.seconds_write += sgi_now() - t0;
    }
    if (rep) *rep = c.rep;
fail:
    sg_store_writer_abort(c.w);
    if (c.tmp_dir) {
        sgi_remove_tree(c.tmp_dir);
        sgi_free(c.tmp_dir);
    }
    sgi_free(c.runs);
    if (c.hist) sgi_free(c.hist);
    cv_free(&c, c.xbuf, (X_CHUNK + 1) * sizeof *c.xbuf);
    cv_free(&c, c.buf, c.buf_cap * sizeof(rec));
    cv_free(&c, c.scratch, c.scratch_cap * sizeof(rec));
    cv_free(&c, c.ids, c.n_ids * sizeof *c.ids);
    cv_free(&c, c.batch, BATCH * sizeof *c.batch);
    sgi_free(c.radix_cnt);
    sgi_free(c.file_bytes);
    return st;
}

/* Fault injection (SQLite test_vfs style): EIO, ENOSPC and short transfers
 * on the n-th system call, and allocation failures on the n-th allocation.
 * A failed write leaves no partial store and an existing store untouched; a
 * failed read reports the shard file; nothing leaks. */
#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

enum op { OP_NONE, OP_PWRITE, OP_PREAD, OP_FSYNC, OP_OPEN, OP_MKDIR, OP_RENAME, OP_URING };

static struct {
    enum op op;
    long countdown;   /* fail when it reaches 0 */
    int errnum;       /* 0: short transfer instead of an error */
    long hits;        /* matching calls so far */
    bool fired;
} F;

static void arm(enum op op, long n, int errnum)
{
    F.op = op;
    F.countdown = n;
    F.errnum = errnum;
    F.hits = 0;
    F.fired = false;
}

static bool trip(enum op op)
{
    if (F.op != op) return false;
    F.hits++;
    if (F.countdown-- == 0) {
        F.fired = true;
        return true;
    }
    return false;
}

static ssize_t f_pwrite(int fd, const void *b, size_t n, uint64_t off)
{
    if (trip(OP_PWRITE)) {
        if (F.errnum) return -F.errnum;
        n = n > 1 ? n / 2 : n; /* short write: the caller must loop */
        F.countdown = 0;       /* ...and keep being short */
    }
    return sgi_io_posix.pwrite(fd, b, n, off);
}
static ssize_t f_pread(int fd, void *b, size_t n, uint64_t off)
{
    if (trip(OP_PREAD)) {
        if (F.errnum) return -F.errnum;
        n = n > 1 ? n / 2 : n;
        F.countdown = 0;
    }
    return sgi_io_posix.pread(fd, b, n, off);
}
static int f_fsync(int fd) { return trip(OP_FSYNC) ? -F.errnum : sgi_io_posix.fsync(fd); }
static int f_open(const char *p, int fl, mode_t m)
{
    return trip(OP_OPEN) ? -F.errnum : sgi_io_posix.open(p, fl, m);
}
static int f_mkdir(const char *p, mode_t m) { return trip(OP_MKDIR) ? -F.errnum : sgi_io_posix.mkdir(p, m); }
static int f_rename(const char *a, const char *b, bool x)
{
    return trip(OP_RENAME) ? -F.errnum : sgi_io_posix.rename(a, b, x);
}
static int f_uring(int res, size_t requested)
{
    if (!trip(OP_URING) || res <= 0) return res;
    if (F.errnum) return -F.errnum;
    F.countdown = 1; /* every other completion is short */
    return res > 1 ? res / 2 : res;
    (void)requested;
}

/* Static: a failed assertion longjmps out of a test, and the table must
 * outlive it (each test's teardown restores the real one). */
static sgi_io io_tab;

static sgi_io faulty(bool uring)
{
    sgi_io io = sgi_io_posix;
    io.pwrite = f_pwrite;
    io.pread = f_pread;
    io.fsync = f_fsync;
    io.open = f_open;
    io.mkdir = f_mkdir;
    io.rename = f_rename;
    io.uring_result = f_uring;
    io.allow_uring = uring;
    io_tab = io;
    return io;
}

static int restore_io(void **state)
{
    (void)state;
    sgi_io_set(NULL);
    sgi_alloc_fail_after(-1);
    return 0;
}

static const sg_write_options layout = {.block_bytes = 512, .shard_bytes = 16384};

static sg_status write_store(const char *path, const tu_graph *g, bool force, sg_error *err)
{
    sg_write_options o = layout;
    o.force = force;
    sg_store_writer *w = NULL;
    sg_status st = sg_store_writer_open(path, g->n, &o, &w, err);
    if (st) return st;
    st = sg_store_writer_append(w, g->n, g->x, g->a, g->w, err);
    if (st) {
        sg_store_writer_abort(w);
        return st;
    }
    return sg_store_writer_finish(w, err);
}

/* Each write-side call fails in turn; nothing partial may remain. */
static void write_failures_leave_nothing(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("faults");
    char path[512];
    snprintf(path, sizeof path, "%s/g.sg", dir);
    tu_graph g = tu_random_graph(1500, 6000, 1000, 3, false);
    const struct { enum op op; int errnum; sg_status want; } cases[] = {
        {OP_PWRITE, ENOSPC, SG_E_NOSPACE}, {OP_PWRITE, EIO, SG_E_IO},
        {OP_FSYNC, EIO, SG_E_IO},          {OP_OPEN, EACCES, SG_E_IO},
        {OP_MKDIR, ENOSPC, SG_E_NOSPACE},  {OP_RENAME, EIO, SG_E_IO},
    };
    faulty(true);
    sgi_io_set(&io_tab);
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        long failures = 0;
        /* every call among the first 24, then every 5th: all phases (shard
         * blocks, index, footer, header, manifest) are hit either way */
        for (long n = 0;; n += n < 24 ? 1 : 5) {
            long live = sgi_alloc_live();
            arm(cases[c].op, n, cases[c].errnum);
            sg_error err = {0};
            sg_status st = write_store(path, &g, false, &err);
            if (!F.fired) {
                assert_int_equal(st, SG_OK);
                break;
            }
            failures++;
            assert_int_equal(st, cases[c].want);
            assert_true(strlen(err.msg) > 0);
            /* whole or absent: only the last step (syncing the parent
             * directory after the rename) can fail with the store in place */
            if (tu_exists(path)) {
                assert_non_null(strstr(err.msg, "directory"));
                sgi_io_set(NULL);
                tu_graph back = tu_read_store(path);
                assert_true(tu_graph_equal(&g, &back));
                tu_graph_free(&back);
                sgi_io_set(&io_tab);
                tu_rm_rf(path);
            }
            assert_int_equal(tu_dir_entries(dir), 0);
            assert_int_equal(sgi_alloc_live(), live);
        }
        assert_true(failures >= 1);
        if (cases[c].op == OP_PWRITE) assert_true(failures > 5); /* several shards' worth */
        tu_rm_rf(path);
    }
    sgi_io_set(NULL);
    tu_graph_free(&g);
    tu_rm_rf(dir);
    free(dir);
}

static void failed_replacement_keeps_the_old_store(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("faults");
    char path[512];
    snprintf(path, sizeof path, "%s/g.sg", dir);
    tu_graph g1 = tu_random_graph(300, 1000, 10, 1, false), g2 = tu_random_graph(900, 5000, 10, 2, false);
    tu_write_store(path, &g1, &layout);
    faulty(true);
    sgi_io_set(&io_tab);
    for (long n = 0; n < 40; n += 3) {
        arm(OP_PWRITE, n, ENOSPC);
        sg_error err = {0};
        assert_int_equal(write_store(path, &g2, true, &err), SG_E_NOSPACE);
        assert_non_null(strstr(err.msg, "No space left"));
        sgi_io_set(NULL);
        tu_graph back = tu_read_store(path);
        assert_true(tu_graph_equal(&g1, &back));
        tu_graph_free(&back);
        assert_int_equal(tu_dir_entries(dir), 1);
        sgi_io_set(&io_tab);
    }
    sgi_io_set(NULL);
    tu_graph_free(&g1);
    tu_graph_free(&g2);
    tu_rm_rf(dir);
    free(dir);
}

static void short_writes_are_completed(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("faults");
    char path[512];
    snprintf(path, sizeof path, "%s/g.sg", dir);
    tu_graph g = tu_random_graph(1000, 8000, 1000, 4, false);
    faulty(true);
    sgi_io_set(&io_tab);
    arm(OP_PWRITE, 3, 0); /* from the 4th write on, every write is short */
    sg_error err = {0};
    assert_int_equal(write_store(path, &g, false, &err), SG_OK);
    assert_true(F.fired);
    sgi_io_set(NULL);
    tu_graph back = tu_read_store(path);
    assert_true(tu_graph_equal(&g, &back));
    tu_graph_free(&back);
    tu_graph_free(&g);
    tu_rm_rf(dir);
    free(dir);
}

static sg_status read_all(const char *path, const tu_graph *g, const sg_read_options *ro,
                          sg_error *err)
{
    sg_store *s = NULL;
    sg_status st = sg_store_open(path, &s, err);
    if (st) return st;
    uint64_t *x = malloc((g->n + 1) * 8);
    uint32_t *a = malloc(g->m * 4), *w = malloc(g->m * 4);
    sg_read_request rq = {.v_begin = 0, .v_end = g->n, .x = x, .a = a, .w = w};
    st = sg_store_read(s, &rq, ro, NULL, err);
    if (st == SG_OK) {
        assert_memory_equal(x, g->x, (g->n + 1) * 8);
        assert_memory_equal(a, g->a, g->m * 4);
        assert_memory_equal(w, g->w, g->m * 4);
    }
    free(x);
    free(a);
    free(w);
    sg_store_close(s);
    return st;
}

static void read_failures_name_the_shard(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("faults");
    char path[512];
    snprintf(path, sizeof path, "%s/g.sg", dir);
    tu_graph g = tu_random_graph(3000, 30000, 1u << 20, 5, false);
    tu_write_store(path, &g, &layout);
    /* uring: the store is cached, and the default would decode it from the
     * mappings without a single read to fail */
    const sg_read_options ro = {.window_bytes = 32768, .queue_depth = 4, .threads = 2,
                                .uring = true};
    for (int uring = 0; uring < 2; uring++) {
        faulty(uring == 1);
        sgi_io_set(&io_tab);
        enum op op = uring ? OP_URING : OP_PREAD;
        /* EIO on the n-th read, for several n */
        for (long n = 0; n < 30; n += 7) {
            long live = sgi_alloc_live();
            arm(op, n, EIO);
            sg_error err = {0};
            assert_int_equal(read_all(path, &g, &ro, &err), SG_E_IO);
            assert_true(F.fired);
            assert_non_null(strstr(err.msg, "shard-0"));
            assert_non_null(strstr(err.msg, "Input/output error"));
            assert_int_equal(sgi_alloc_live(), live);
        }
        /* short reads are continued and the data is right */
        arm(op, 2, 0);
        sg_error err = {0};
        if (read_all(path, &g, &ro, &err)) fail_msg("short reads (uring=%d): %s", uring, err.msg);
        assert_true(F.fired);
        sgi_io_set(NULL);
    }
    tu_graph_free(&g);
    tu_rm_rf(dir);
    free(dir);
}

/* Let the n-th allocation fail, n = 0, 1, 2, ... until the work succeeds. */
static void allocation_failures_fail_cleanly(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("faults");
    char path[512];
    snprintf(path, sizeof path, "%s/g.sg", dir);
    tu_graph g = tu_random_graph(500, 3000, 100, 6, false);
    long n, failures = 0;
    for (n = 0;; n++) {
        long live = sgi_alloc_live();
        sgi_alloc_fail_after(n);
        sg_error err = {0};
        sg_status st = write_store(path, &g, false, &err);
        sgi_alloc_fail_after(-1);
        assert_int_equal(sgi_alloc_live(), live);
        if (st == SG_OK) break;
        failures++;
        assert_int_equal(st, SG_E_NOMEM);
        assert_non_null(strstr(err.msg, "memory"));
        assert_int_equal(tu_dir_entries(dir), 0);
    }
    assert_true(failures > 10);
    const sg_read_options ro = {.window_bytes = 16384, .threads = 2, .uring = true};
    failures = 0;
    for (n = 0;; n++) {
        long live = sgi_alloc_live();
        sgi_alloc_fail_after(n);
        sg_error err = {0};
        sg_status st = read_all(path, &g, &ro, &err);
        sgi_alloc_fail_after(-1);
        assert_int_equal(sgi_alloc_live(), live);
        if (st == SG_OK) break;
        failures++;
        assert_int_equal(st, SG_E_NOMEM);
    }
    assert_true(failures > 5);
    tu_graph_free(&g);
    tu_rm_rf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(write_failures_leave_nothing, restore_io),
        cmocka_unit_test_teardown(failed_replacement_keeps_the_old_store, restore_io),
        cmocka_unit_test_teardown(short_writes_are_completed, restore_io),
        cmocka_unit_test_teardown(read_failures_name_the_shard, restore_io),
        cmocka_unit_test_teardown(allocation_failures_fail_cleanly, restore_io),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

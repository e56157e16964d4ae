/* common/ and the storage utilities: crc32c, status names, the counted
 * allocator and its failure injection, the I/O helpers, the side share's
 * balance. */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

static void crc32c_known_vectors(void **state)
{
    (void)state;
    /* RFC 3720 B.4 test vectors */
    uint8_t zeros[32] = {0}, ones[32], inc[32];
    memset(ones, 0xFF, sizeof ones);
    for (int i = 0; i < 32; i++) inc[i] = (uint8_t)i;
    assert_int_equal(sgi_crc32c(0, zeros, 32), 0x8A9136AAu);
    assert_int_equal(sgi_crc32c(0, ones, 32), 0x62A8AB43u);
    assert_int_equal(sgi_crc32c(0, inc, 32), 0x46DD794Eu);
    assert_int_equal(sgi_crc32c(0, "123456789", 9), 0xE3069283u);
    /* incremental equals one-shot, at odd split points */
    uint32_t c = sgi_crc32c(0, inc, 5);
    c = sgi_crc32c(c, inc + 5, 27);
    assert_int_equal(c, 0x46DD794Eu);
}

static void status_names_and_errno(void **state)
{
    (void)state;
    for (int s = 0; s >= -12; s--) assert_non_null(sg_status_name((sg_status)s));
    assert_string_equal(sg_status_name(SG_E_CORRUPT), "corrupt data");
    assert_int_equal(sgi_errno_status(ENOSPC), SG_E_NOSPACE);
    assert_int_equal(sgi_errno_status(ENOENT), SG_E_NOTFOUND);
    assert_int_equal(sgi_errno_status(EIO), SG_E_IO);
    sg_error e = {0};
    assert_int_equal(sgi_fail_errno(&e, ENOSPC, "writing %s", "f.sgs"), SG_E_NOSPACE);
    assert_int_equal(e.code, SG_E_NOSPACE);
    assert_non_null(strstr(e.msg, "writing f.sgs: "));
    /* a NULL error pointer is allowed everywhere */
    assert_int_equal(sgi_fail(NULL, SG_E_INVALID, "x"), SG_E_INVALID);
}

static void allocator_counts_and_fails(void **state)
{
    (void)state;
    long live = sgi_alloc_live();
    void *a = sgi_malloc(10), *b = sgi_calloc(3, 4);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(sgi_alloc_live(), live + 2);
    sgi_alloc_fail_after(1);
    void *c = sgi_malloc(1); /* the 0th from now: succeeds */
    void *d = sgi_malloc(1); /* the 1st: fails */
    void *e = sgi_malloc(1); /* failing persists for one call only */
    assert_non_null(c);
    assert_null(d);
    assert_non_null(e);
    sgi_alloc_fail_after(-1);
    sgi_free(a);
    sgi_free(b);
    sgi_free(c);
    sgi_free(e);
    sgi_free(NULL);
    assert_int_equal(sgi_alloc_live(), live);
}

static void read_all_reports_truncation(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("common");
    char path[512];
    snprintf(path, sizeof path, "%s/f", dir);
    int fd = open(path, O_RDWR | O_CREAT, 0644);
    assert_true(fd >= 0);
    sg_error err = {0};
    assert_int_equal(sgi_write_all(fd, "hello", 5, 0, path, &err), SG_OK);
    char buf[8];
    assert_int_equal(sgi_read_all(fd, buf, 5, 0, path, &err), SG_OK);
    assert_memory_equal(buf, "hello", 5);
    assert_int_equal(sgi_read_all(fd, buf, 8, 0, path, &err), SG_E_CORRUPT);
    assert_non_null(strstr(err.msg, "truncated"));
    assert_non_null(strstr(err.msg, path));
    close(fd);
    tu_rm_rf(dir);
    free(dir);
}

/* The first vertex whose list starts at or past an entry
 * (sgi_first_list_from), against a scan: empty lists before, between and
 * after, every entry from 0 to past the end. */
static void first_list_from(void **state)
{
    (void)state;
    static const uint64_t x[] = {0, 0, 3, 3, 3, 7, 8, 8}; /* n = 7 */
    const uint64_t n = 7;
    for (uint64_t e = 0; e <= 9; e++) {
        uint64_t want = 0;
        while (want < n && x[want] < e) want++;
        assert_int_equal(sgi_first_list_from(x, n, e), want);
    }
    assert_int_equal(sgi_first_list_from(x, 0, 5), 0);
}

/* The side share's balance (sgi_side_balance): each side's share of the
 * vertices in proportion to its rate, so that both end together; within
 * the bounds; the low bound where no rate is known. */
static void side_balance(void **state)
{
    (void)state;
    const double eps = 1e-12;
    assert_true(fabs(sgi_side_balance(100, 1, 100, 1, 0.02, 0.8) - 0.5) < eps);
    /* the side twice as fast per vertex: two thirds, and both then take
     * the same time (2/3 n at 200/s and 1/3 n at 100/s) */
    const double f = sgi_side_balance(200, 1, 300, 3, 0.02, 0.8);
    assert_true(fabs(f - 2.0 / 3.0) < eps);
    assert_true(fabs(f / 200.0 - (1.0 - f) / 100.0) < eps);
    assert_true(sgi_side_balance(1000, 1, 1, 1, 0.02, 0.8) == 0.8);   /* the most */
    assert_true(sgi_side_balance(1000, 1, 1, 1, 0.02, 0.35) == 0.35); /* SSSP's most */
    assert_true(sgi_side_balance(1, 1, 1000, 1, 0.02, 0.8) == 0.02);  /* the least */
    assert_true(sgi_side_balance(0, 0, 0, 0, 0.02, 0.8) == 0.02);     /* nothing known */
    assert_true(sgi_side_balance(0, 1, 10, 1, 0.05, 0.8) == 0.05);    /* a stalled side */
    assert_true(fabs(sgi_side_balance(10, 1, 10, 0, 0.02, 0.8) - 0.8) < eps); /* no host time */
}

/* The forest's rounds: bits(n) + 2 for a right run, and the GPU's limit
 * twice that plus 4. */
static void boruvka_round_limit(void **state)
{
    (void)state;
    assert_int_equal(sgi_boruvka_rounds_max(0), 2);
    assert_int_equal(sgi_boruvka_rounds_max(1), 3);
    assert_int_equal(sgi_boruvka_rounds_max(4096), 15);
    assert_int_equal(sgi_boruvka_rounds_max(4095), 14);
    assert_int_equal(sgi_boruvka_round_limit(0), 8);
    assert_int_equal(sgi_boruvka_round_limit(1), 10);
    assert_int_equal(sgi_boruvka_round_limit(2), 12);
    assert_int_equal(sgi_boruvka_round_limit(3), 12);
    assert_int_equal(sgi_boruvka_round_limit(4), 14);
    assert_int_equal(sgi_boruvka_round_limit((uint64_t)1 << 27), 2 * 28 + 8);
    assert_int_equal(sgi_boruvka_round_limit(UINT64_MAX), 2 * 64 + 8);
    for (unsigned b = 1; b < 64; b++) {
        const uint64_t n = (uint64_t)1 << b;
        assert_true(sgi_boruvka_round_limit(n) == 2 * sgi_boruvka_rounds_max(n) + 4);
        assert_true(sgi_boruvka_rounds_max(n) == b + 1 + 2);
        assert_true(sgi_boruvka_round_limit(n - 1) <= sgi_boruvka_round_limit(n));
    }
}

/* The host memory a new allocation may take: some, at most the machine's,
 * through the library's call and the public one. */
static void available_memory(void **state)
{
    (void)state;
    const uint64_t phys = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
    const uint64_t a = sgi_available_memory(), p = sg_available_memory();
    assert_true(a > 0 && a <= phys);
    assert_true(p > 0 && p <= phys);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(crc32c_known_vectors),
        cmocka_unit_test(status_names_and_errno),
        cmocka_unit_test(allocator_counts_and_fails),
        cmocka_unit_test(read_all_reports_truncation),
        cmocka_unit_test(first_list_from),
        cmocka_unit_test(side_balance),
        cmocka_unit_test(available_memory),
        cmocka_unit_test(boruvka_round_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

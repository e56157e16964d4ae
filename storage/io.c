/* System calls behind a table (for fault injection), full-length transfers,
 * directory helpers, crc32c and the clock. -errno becomes sg_status here. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

static int px_open(const char *path, int flags, mode_t mode)
{
    int fd = open(path, flags | O_CLOEXEC, mode);
    return fd < 0 ? -errno : fd;
}
static int px_close(int fd) { return close(fd) < 0 ? -errno : 0; }
static ssize_t px_pread(int fd, void *buf, size_t n, uint64_t off)
{
    ssize_t r;
    do r = pread(fd, buf, n, (off_t)off); while (r < 0 && errno == EINTR);
    return r < 0 ? -errno : r;
}
static ssize_t px_pwrite(int fd, const void *buf, size_t n, uint64_t off)
{
    ssize_t r;
    do r = pwrite(fd, buf, n, (off_t)off); while (r < 0 && errno == EINTR);
    return r < 0 ? -errno : r;
}
static int px_fsync(int fd) { return fsync(fd) < 0 ? -errno : 0; }
static int px_mkdir(const char *p, mode_t m) { return mkdir(p, m) < 0 ? -errno : 0; }
static int px_rename(const char *from, const char *to, bool exchange)
{
    int r = exchange ? renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_EXCHANGE)
                     : rename(from, to);
    return r < 0 ? -errno : 0;
}
static int px_unlink(const char *p) { return unlink(p) < 0 ? -errno : 0; }
static int px_rmdir(const char *p) { return rmdir(p) < 0 ? -errno : 0; }

const sgi_io sgi_io_posix = {
    .open = px_open, .close = px_close, .pread = px_pread, .pwrite = px_pwrite,
    .fsync = px_fsync, .mkdir = px_mkdir, .rename = px_rename, .unlink = px_unlink,
    .rmdir = px_rmdir, .uring_result = NULL, .allow_uring = true,
};

static _Atomic(const sgi_io *) current_io = &sgi_io_posix;

const sgi_io *sgi_io_get(void) { return atomic_load(&current_io); }
void sgi_io_set(const sgi_io *io) { atomic_store(&current_io, io ? io : &sgi_io_posix); }

sg_status sgi_write_all(int fd, const void *buf, size_t n, uint64_t off, const char *what,
                        sg_error *err)
{
    const sgi_io *io = sgi_io_get();
    const uint8_t *p = buf;
    while (n > 0) {
        ssize_t r = io->pwrite(fd, p, n, off);
        if (r < 0) return sgi_fail_errno(err, (int)-r, "writing %s at byte %llu", what,
                                         (unsigned long long)off);
        if (r == 0) return sgi_fail_errno(err, EIO, "writing %s: no progress", what);
        p += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return SG_OK;
}

sg_status sgi_read_all(int fd, void *buf, size_t n, uint64_t off, const char *what,
                       sg_error *err)
{
    const sgi_io *io = sgi_io_get();
    uint8_t *p = buf;
    while (n > 0) {
        ssize_t r = io->pread(fd, p, n, off);
        if (r < 0) return sgi_fail_errno(err, (int)-r, "reading %s at byte %llu", what,
                                         (unsigned long long)off);
        if (r == 0) return sgi_fail(err, SG_E_CORRUPT, "%s: truncated (end of file at byte %llu)",
                                    what, (unsigned long long)off);
        p += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return SG_OK;
}

char *sgi_path_join(const char *dir, const char *name)
{
    size_t la = strlen(dir), lb = strlen(name);
    char *r = sgi_malloc(la + lb + 2);
    if (!r) return NULL;
    memcpy(r, dir, la);
    r[la] = '/';
    memcpy(r + la + 1, name, lb + 1);
    return r;
}

void sgi_remove_tree(const char *dir)
{
    const sgi_io *io = sgi_io_get();
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        char path[4096];
        while ((e = readdir(d)) != NULL) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            io->unlink(path);
        }
        closedir(d);
    }
    io->rmdir(dir);
}

sg_status sgi_fsync_dir(const char *dir, sg_error *err)
{
    const sgi_io *io = sgi_io_get();
    int fd = io->open(dir, O_RDONLY | O_DIRECTORY, 0);
    if (fd < 0) return sgi_fail_errno(err, -fd, "opening directory %s", dir);
    int r = io->fsync(fd);
    io->close(fd);
    if (r < 0) return sgi_fail_errno(err, -r, "fsync of directory %s", dir);
    return SG_OK;
}

/* ---- crc32c (Castagnoli): SSE4.2 instruction where present, else a table */
static uint32_t crc_table[256];
static atomic_int crc_ready;

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1u)));
        crc_table[i] = c;
    }
    atomic_store(&crc_ready, 1);
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t crc_hw(uint32_t crc, const uint8_t *p, size_t n)
{
    uint64_t c = crc;
    while (n >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        c = __builtin_ia32_crc32di(c, v);
        p += 8;
        n -= 8;
    }
    uint32_t c32 = (uint32_t)c;
    while (n--) c32 = __builtin_ia32_crc32qi(c32, *p++);
    return c32;
}
#endif

uint32_t sgi_crc32c(uint32_t crc, const void *buf, size_t n)
{
    const uint8_t *p = buf;
    crc = ~crc;
#if defined(__x86_64__)
    if (__builtin_cpu_supports("sse4.2")) return ~crc_hw(crc, p, n);
#endif
    if (!atomic_load(&crc_ready)) crc_init();
    while (n--) crc = crc_table[(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

void sgi_shard_file_name(char out[64], uint32_t shard)
{
    snprintf(out, 64, "shard-%06u.sgs", shard);
}

/* ------------------------------------------------------------ output files */

/* Whether path names anything (a file, a directory, a dangling link). */
static sg_status target_exists(const sgi_io *io, const char *path, bool *exists, sg_error *err)
{
    const int fd = io->open(path, O_PATH | O_NOFOLLOW, 0);
    if (fd >= 0) {
        io->close(fd);
        *exists = true;
        return SG_OK;
    }
    if (fd == -ENOENT) {
        *exists = false;
        return SG_OK;
    }
    return sgi_fail_errno(err, -fd, "checking the output file %s", path);
}

sg_status sgi_outfile_open(sgi_outfile *f, const char *path, bool force, sg_error *err)
{
    static atomic_uint tmp_serial;
    sg_status st = SG_OK;
    memset(f, 0, sizeof *f);
    f->io = sgi_io_get();
    f->path = path;
    f->force = force;
    f->fd = -1;
    bool exists = false;
    SG_TRY(target_exists(f->io, path, &exists, err));
    SG_CHECK(!exists || force, SG_E_EXISTS, err, "%s already exists (use force to replace it)",
             path);
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const size_t dir_len = slash ? (size_t)(slash - path) : 0;
    SG_ALLOC(f->dir, sgi_malloc(dir_len + 2), err, "a path");
    if (slash) {
        memcpy(f->dir, path, dir_len);
        f->dir[dir_len] = '\0';
        if (dir_len == 0) strcpy(f->dir, "/");
    } else {
        strcpy(f->dir, ".");
    }
    const size_t tmp_cap = strlen(path) + 64;
    SG_ALLOC(f->tmp, sgi_malloc(tmp_cap), err, "a path");
    snprintf(f->tmp, tmp_cap, "%.*s.%s.tmp-%ld-%u", (int)(base - path), path, base,
             (long)getpid(), atomic_fetch_add(&tmp_serial, 1u));
    f->fd = f->io->open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_TRUNC | O_CLOEXEC, 0666);
    if (f->fd < 0) {
        st = sgi_fail_errno(err, -f->fd, "creating a temporary file for %s (%s)", path, f->tmp);
        f->fd = -1;
        goto fail;
    }
    f->created = true;
fail:
    return st;
}

sg_status sgi_outfile_commit(sgi_outfile *f, sg_error *err)
{
    sg_status st = SG_OK;
    int r = f->io->fsync(f->fd);
    if (r < 0) {
        st = sgi_fail_errno(err, -r, "fsync of %s (temporary %s)", f->path, f->tmp);
        goto fail;
    }
    r = f->io->close(f->fd);
    f->fd = -1;
    if (r < 0) {
        st = sgi_fail_errno(err, -r, "closing %s (temporary %s)", f->path, f->tmp);
        goto fail;
    }
    if (!f->force) { /* it may have appeared meanwhile */
        bool exists = false;
        SG_TRY(target_exists(f->io, f->path, &exists, err));
        SG_CHECK(!exists, SG_E_EXISTS, err, "%s already exists (use force to replace it)",
                 f->path);
    }
    r = f->io->rename(f->tmp, f->path, false);
    if (r < 0) {
        st = sgi_fail_errno(err, -r, "renaming %s to %s", f->tmp, f->path);
        goto fail;
    }
    f->renamed = true;
    SG_TRY(sgi_fsync_dir(f->dir, err));
fail:
    return st;
}

void sgi_outfile_abort(sgi_outfile *f)
{
    /* a zeroed one that was never opened has no io (and fd 0, not its own) */
    if (f->io && f->fd >= 0) f->io->close(f->fd);
    f->fd = -1;
    if (f->created && !f->renamed) f->io->unlink(f->tmp);
    f->created = false;
    sgi_free(f->tmp);
    sgi_free(f->dir);
    f->tmp = f->dir = NULL;
}

/* mkdir -p of the directory part of path. */
static sg_status make_parent(const sgi_io *io, const char *path, sg_error *err)
{
    char dir[PATH_MAX];
    const int w = snprintf(dir, sizeof dir, "%s", path);
    if (w < 0 || (size_t)w >= sizeof dir) return sgi_fail(err, SG_E_INVALID, "%s: path too long", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir) return SG_OK;
    *slash = '\0';
    int r;
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if ((r = io->mkdir(dir, 0755)) != 0 && r != -EEXIST)
            return sgi_fail_errno(err, -r, "%s: cannot create the directory", dir);
        *p = '/';
    }
    if ((r = io->mkdir(dir, 0755)) != 0 && r != -EEXIST)
        return sgi_fail_errno(err, -r, "%s: cannot create the directory", dir);
    return SG_OK;
}

sg_status sgi_replace_file(const char *path, const char *text, size_t len, sg_error *err)
{
    sg_status st = SG_OK;
    sgi_outfile out;
    memset(&out, 0, sizeof out);
    SG_TRY(make_parent(sgi_io_get(), path, err));
    SG_TRY(sgi_outfile_open(&out, path, true, err));
    SG_TRY(sgi_write_all(out.fd, text, len, 0, path, err));
    SG_TRY(sgi_outfile_commit(&out, err));
fail:
    sgi_outfile_abort(&out);
    return st;
}


/* spillgraph command line — shared helpers (see cli_util.h). */
#include "cli_util.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------ messages */

int cli_fail(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "spillgraph %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return CLI_EXIT_FAIL;
}

int cli_fail_status(const char *cmd, sg_status st, const sg_error *err)
{
    if (err && err->msg[0])
        return cli_fail(cmd, "%s", err->msg);
    return cli_fail(cmd, "%s", sg_status_name(st));
}

static void usage_verror(const char *cmd, const char *usage, const char *fmt, va_list ap)
{
    fprintf(stderr, "spillgraph %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    if (usage && usage[0]) {
        fputs(usage, stderr);
        if (usage[strlen(usage) - 1] != '\n') fputc('\n', stderr);
    }
    fprintf(stderr, "try 'spillgraph %s --help'\n", cmd);
}

int cli_usage_error(const char *cmd, const char *usage, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    usage_verror(cmd, usage, fmt, ap);
    va_end(ap);
    return CLI_EXIT_USAGE;
}

/* A usage error met while parsing: printed, and CLI_BAD for cli_next. */
__attribute__((format(printf, 2, 3)))
static int parse_error(const cli_parser *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    usage_verror(p->cmd, p->usage, fmt, ap);
    va_end(ap);
    return CLI_BAD;
}

/* ------------------------------------------------------------ options */

void cli_parser_init(cli_parser *p, const char *cmd, const char *usage, const cli_option *opts,
                     int argc, char **argv)
{
    memset(p, 0, sizeof *p);
    p->cmd = cmd;
    p->usage = usage;
    p->opts = opts;
    p->argc = argc;
    p->argv = argv;
    p->next = 1;
}

bool cli_wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) return false;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) return true;
    }
    return false;
}

static const cli_option *find_long(const cli_option *opts, const char *name, size_t len)
{
    for (const cli_option *o = opts; o->name; o++)
        if (strlen(o->name) == len && strncmp(o->name, name, len) == 0) return o;
    return NULL;
}

static const cli_option *find_short(const cli_option *opts, char c)
{
    for (const cli_option *o = opts; o->name; o++)
        if (o->short_name && o->short_name == c) return o;
    return NULL;
}

int cli_next(cli_parser *p)
{
    p->value = NULL;
    p->spelled = NULL;
    if (p->next >= p->argc) return CLI_END;
    const char *arg = p->argv[p->next++];

    if (p->options_done || arg[0] != '-' || arg[1] == '\0') {
        p->value = arg; /* "-" alone is a positional (stdin/stdout by convention) */
        return CLI_POSITIONAL;
    }
    if (strcmp(arg, "--") == 0) {
        p->options_done = true;
        return cli_next(p);
    }

    const cli_option *o;
    const char *inline_value = NULL;
    if (arg[1] == '-') {
        const char *name = arg + 2;
        const char *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        o = find_long(p->opts, name, len);
        if (!o) return parse_error(p, "unknown option '--%.*s'", (int)len, name);
        if (eq) {
            if (!o->has_value) return parse_error(p, "option '--%s' takes no value", o->name);
            inline_value = eq + 1;
        }
    } else {
        o = find_short(p->opts, arg[1]);
        if (!o) return parse_error(p, "unknown option '%s'", arg);
        if (arg[2] != '\0') {
            if (!o->has_value) return parse_error(p, "unknown option '%s'", arg);
            inline_value = arg + 2;
        }
    }
    if (o->has_value) {
        if (inline_value) {
            p->value = inline_value;
        } else if (p->next < p->argc) {
            p->value = p->argv[p->next++];
        } else {
            if (arg[1] != '-') return parse_error(p, "option '-%c' needs a value", o->short_name);
            return parse_error(p, "option '--%s' needs a value", o->name);
        }
    }
    p->spelled = o->name; /* messages about the value name the long option */
    return o->id;
}

bool cli_parse_u64(const char *s, uint64_t *out)
{
    if (!s || !isdigit((unsigned char)s[0])) return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0') return false;
    *out = (uint64_t)v;
    return true;
}

static const char *const mem_kinds[] = {"plain", "pinned", "managed", "auto"}; /* enum order */

const char *cli_mem_kind_name(sg_mem_kind k)
{
    return (unsigned)k < 4 ? mem_kinds[k] : "unknown";
}

bool cli_parse_mem_kind(const char *s, sg_mem_kind *out)
{
    for (int k = 0; k < 4; k++)
        if (s && strcmp(s, mem_kinds[k]) == 0) {
            *out = (sg_mem_kind)k;
            return true;
        }
    return false;
}

bool cli_parse_size(const char *s, uint64_t *out)
{
    if (!s || !isdigit((unsigned char)s[0])) return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0) return false;
    static const struct {
        const char *suffix;
        uint64_t mult;
    } units[] = {
        {"", 1},
        {"B", 1},
        {"K", 1ull << 10},
        {"k", 1ull << 10},
        {"KiB", 1ull << 10},
        {"KB", 1000ull},
        {"kB", 1000ull},
        {"M", 1ull << 20},
        {"MiB", 1ull << 20},
        {"MB", 1000000ull},
        {"G", 1ull << 30},
        {"GiB", 1ull << 30},
        {"GB", 1000000000ull},
        {"T", 1ull << 40},
        {"TiB", 1ull << 40},
        {"TB", 1000000000000ull},
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(end, units[i].suffix) == 0) {
            if (v > UINT64_MAX / units[i].mult) return false;
            *out = (uint64_t)v * units[i].mult;
            return true;
        }
    }
    return false;
}

bool cli_value_u64(cli_parser *p, uint64_t min, uint64_t max, uint64_t *out)
{
    uint64_t v;
    if (!cli_parse_u64(p->value, &v)) {
        cli_usage_error(p->cmd, p->usage, "--%s: '%s' is not a whole number", p->spelled,
                        p->value);
        return false;
    }
    if (v < min || v > max) {
        cli_usage_error(p->cmd, p->usage, "--%s: %s is out of range (%" PRIu64 "..%" PRIu64 ")",
                        p->spelled, p->value, min, max);
        return false;
    }
    *out = v;
    return true;
}

bool cli_value_int(cli_parser *p, int min, int max, int *out)
{
    uint64_t v;
    if (min < 0) min = 0; /* no option of ours takes a negative number */
    if (!cli_value_u64(p, (uint64_t)min, (uint64_t)max, &v)) return false;
    *out = (int)v;
    return true;
}

bool cli_value_size(cli_parser *p, uint64_t min, uint64_t max, uint64_t *out)
{
    uint64_t v;
    if (!cli_parse_size(p->value, &v)) {
        cli_usage_error(p->cmd, p->usage,
                        "--%s: '%s' is not a size (examples: 4096, 64K, 4KiB, 256M, 1G)",
                        p->spelled, p->value);
        return false;
    }
    if (v < min || v > max) {
        if (max == UINT64_MAX)
            cli_usage_error(p->cmd, p->usage, "--%s: %s is too small (at least %s)", p->spelled,
                            p->value, cli_bytes(min).s);
        else
            cli_usage_error(p->cmd, p->usage, "--%s: %s is out of range (%s to %s)",
                            p->spelled, p->value, cli_bytes(min).s, cli_bytes(max).s);
        return false;
    }
    *out = v;
    return true;
}

static bool shell_safe(const char *s)
{
    if (!*s) return false;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (!isalnum(c) && !strchr("_@%+=:,./-", c)) return false;
    }
    return true;
}

char *cli_command_line(int argc, char **argv)
{
    size_t len = 1;
    for (int i = 0; i < argc; i++) {
        len += 3; /* separator and quotes */
        for (const char *c = argv[i]; *c; c++) len += *c == '\'' ? 4 : 1;
    }
    char *out = malloc(len);
    if (!out) return NULL;
    char *o = out;
    for (int i = 0; i < argc; i++) {
        if (i) *o++ = ' ';
        if (shell_safe(argv[i])) {
            size_t n = strlen(argv[i]);
            memcpy(o, argv[i], n);
            o += n;
            continue;
        }
        *o++ = '\'';
        for (const char *c = argv[i]; *c; c++) {
            if (*c == '\'') {
                memcpy(o, "'\\''", 4);
                o += 4;
            } else {
                *o++ = *c;
            }
        }
        *o++ = '\'';
    }
    *o = '\0';
    return out;
}

/* ------------------------------------------------------------ printing */

cli_str cli_bytes(uint64_t b)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    cli_str r;
    if (b < 1024) {
        snprintf(r.s, sizeof r.s, "%" PRIu64 " B", b);
        return r;
    }
    double v = (double)b;
    int u = 0;
    while (v >= 1024.0 && u < 6) {
        v /= 1024.0;
        u++;
    }
    if (v < 10.0)
        snprintf(r.s, sizeof r.s, "%.2f %s", v, unit[u]);
    else if (v < 100.0)
        snprintf(r.s, sizeof r.s, "%.1f %s", v, unit[u]);
    else
        snprintf(r.s, sizeof r.s, "%.0f %s", v, unit[u]);
    return r;
}

cli_str cli_count(uint64_t n)
{
    char digits[32];
    int len = snprintf(digits, sizeof digits, "%" PRIu64, n);
    cli_str r;
    char *o = r.s;
    for (int i = 0; i < len; i++) {
        if (i > 0 && (len - i) % 3 == 0) *o++ = ',';
        *o++ = digits[i];
    }
    *o = '\0';
    return r;
}

cli_str cli_seconds(double s)
{
    cli_str r;
    if (!isfinite(s) || s < 0)
        snprintf(r.s, sizeof r.s, "?");
    else if (s < 1e-3)
        snprintf(r.s, sizeof r.s, "%.0f us", s * 1e6);
    else if (s < 1.0)
        snprintf(r.s, sizeof r.s, "%.1f ms", s * 1e3);
    else if (s < 60.0)
        snprintf(r.s, sizeof r.s, "%.2f s", s);
    else if (s < 3600.0)
        snprintf(r.s, sizeof r.s, "%d min %02d s", (int)(s / 60), (int)fmod(s, 60.0));
    else
        snprintf(r.s, sizeof r.s, "%d h %02d min", (int)(s / 3600), (int)fmod(s / 60, 60.0));
    return r;
}

cli_str cli_rate(double bytes, double seconds)
{
    cli_str r;
    if (!(seconds > 0)) {
        snprintf(r.s, sizeof r.s, "- GB/s");
        return r;
    }
    double g = bytes / seconds / 1e9;
    snprintf(r.s, sizeof r.s, g < 1.0 ? "%.3f GB/s" : "%.2f GB/s", g);
    return r;
}

cli_str cli_utc_time(uint64_t t)
{
    cli_str r;
    time_t tt = (time_t)t;
    struct tm tm;
    if (!gmtime_r(&tt, &tm) || strftime(r.s, sizeof r.s, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        snprintf(r.s, sizeof r.s, "%" PRIu64, t);
    return r;
}

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------ JSON */

/* Length of the valid UTF-8 sequence starting at s, or 0 if invalid. */
static size_t utf8_len(const unsigned char *s)
{
    unsigned char c = s[0];
    if (c < 0x80) return 1;
    size_t n;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
        cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

void cli_json_write_string(FILE *f, const char *str)
{
    const unsigned char *s = (const unsigned char *)(str ? str : "");
    fputc('"', f);
    while (*s) {
        unsigned char c = *s;
        switch (c) {
        case '"': fputs("\\\"", f); s++; continue;
        case '\\': fputs("\\\\", f); s++; continue;
        case '\n': fputs("\\n", f); s++; continue;
        case '\r': fputs("\\r", f); s++; continue;
        case '\t': fputs("\\t", f); s++; continue;
        case '\b': fputs("\\b", f); s++; continue;
        case '\f': fputs("\\f", f); s++; continue;
        default: break;
        }
        if (c < 0x20 || c == 0x7F) {
            fprintf(f, "\\u%04x", c);
            s++;
            continue;
        }
        size_t n = utf8_len(s);
        if (n == 0) {
            fputs("\\ufffd", f);
            s++;
        } else {
            fwrite(s, 1, n, f);
            s += n;
        }
    }
    fputc('"', f);
}

static void json_key(cli_json *j, const char *key)
{
    if (j->comma[j->depth]) fputc(',', j->f);
    j->comma[j->depth] = true;
    if (key) {
        cli_json_write_string(j->f, key);
        fputc(':', j->f);
    }
}

static void json_open(cli_json *j, const char *key, char c)
{
    json_key(j, key);
    fputc(c, j->f);
    if (j->depth + 1 < (int)(sizeof j->comma / sizeof j->comma[0])) j->depth++;
    j->comma[j->depth] = false;
}

static void json_close(cli_json *j, char c)
{
    fputc(c, j->f);
    if (j->depth > 0) j->depth--;
}

void cli_json_begin(cli_json *j, FILE *f)
{
    memset(j, 0, sizeof *j);
    j->f = f;
    fputc('{', f);
    j->depth = 1;
}

void cli_json_end(cli_json *j)
{
    fputs("}\n", j->f);
    j->depth = 0;
}

void cli_json_object(cli_json *j, const char *key) { json_open(j, key, '{'); }
void cli_json_object_end(cli_json *j) { json_close(j, '}'); }
void cli_json_array(cli_json *j, const char *key) { json_open(j, key, '['); }
void cli_json_array_end(cli_json *j) { json_close(j, ']'); }

void cli_json_u64(cli_json *j, const char *key, uint64_t v)
{
    json_key(j, key);
    fprintf(j->f, "%" PRIu64, v);
}

void cli_json_int(cli_json *j, const char *key, long long v)
{
    json_key(j, key);
    fprintf(j->f, "%lld", v);
}

void cli_json_num(cli_json *j, const char *key, double v)
{
    json_key(j, key);
    if (isfinite(v))
        fprintf(j->f, "%.9g", v);
    else
        fputs("null", j->f);
}

void cli_json_bool(cli_json *j, const char *key, bool v)
{
    json_key(j, key);
    fputs(v ? "true" : "false", j->f);
}

void cli_json_str(cli_json *j, const char *key, const char *s)
{
    json_key(j, key);
    cli_json_write_string(j->f, s);
}

void cli_json_null(cli_json *j, const char *key)
{
    json_key(j, key);
    fputs("null", j->f);
}

/* ------------------------------------------------------------ progress */

enum { BAR_WIDTH = 30 };

void cli_progress_init(cli_progress *p, bool wanted)
{
    memset(p, 0, sizeof *p);
    p->on = wanted && isatty(STDERR_FILENO);
    p->permille = -1;
}

void cli_progress_cb(void *ctx, const char *phase, double fraction)
{
    cli_progress *p = ctx;
    if (!p || !p->on) return;
    if (!phase) phase = "";
    if (!(fraction >= 0.0)) fraction = 0.0; /* NaN too */
    if (fraction > 1.0) fraction = 1.0;
    const bool stepped = p->steps > 1 && strcmp(phase, "compute") == 0;
    if (stepped) {
        const uint64_t s = p->step < p->steps ? p->step : p->steps - 1;
        fraction = ((double)s + fraction) / (double)p->steps;
        phase = "searches";
    }

    double now = cli_now();
    bool new_phase = strncmp(p->phase, phase, sizeof p->phase - 1) != 0;
    if (new_phase) {
        snprintf(p->phase, sizeof p->phase, "%s", phase);
        p->phase_start = now;
        p->permille = -1;
    }
    int pm = (int)(fraction * 1000.0);
    if (!new_phase && (pm == p->permille || (now - p->last_draw < 0.1 && pm < 1000))) return;
    p->permille = pm;
    p->last_draw = now;

    char bar[BAR_WIDTH + 1];
    int full = (int)(fraction * BAR_WIDTH + 0.5);
    for (int i = 0; i < BAR_WIDTH; i++) bar[i] = i < full ? '#' : '.';
    bar[BAR_WIDTH] = '\0';
    fprintf(stderr, "\r\033[K%-10s [%s] %5.1f%%  %6.1f s", p->phase, bar, fraction * 100.0,
            now - p->phase_start);
    if (stepped)
        fprintf(stderr, "  %llu/%llu", (unsigned long long)(p->step + 1),
                (unsigned long long)p->steps);
    fflush(stderr);
    p->drawn = true;
}

void cli_progress_end(cli_progress *p)
{
    if (p->on && p->drawn) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    p->drawn = false;
}

void cli_rates_hint(const char *origin, int indent)
{
    if (strncmp(origin, "defaults", 8) != 0) return;
    printf("%*s(`spillgraph calibrate`, about 10 s, measures this machine's\n"
           "%*sand caches them for later runs)\n",
           indent, "", indent, "");
}

void cli_json_plan(cli_json *j, const sg_plan *pl)
{
    static const char *const names[3] = {"X", "A", "W"};
    cli_json_u64(j, "work_bytes", pl->work_bytes);
    cli_json_array(j, "arrays");
    for (int a = 0; a < 3; a++) {
        cli_json_object(j, NULL);
        cli_json_str(j, "array", names[a]);
        cli_json_u64(j, "split", pl->split[a]);
        cli_json_u64(j, "device_bytes", pl->device_bytes[a]);
        cli_json_u64(j, "host_bytes", pl->host_bytes[a]);
        cli_json_str(j, "spill", sg_spill_kind_name(pl->spill_kind[a]));
        cli_json_object_end(j);
    }
    cli_json_array_end(j);
    cli_json_u64(j, "managed_bytes", pl->managed_bytes);
    cli_json_u64(j, "host_begin", pl->host_begin);
    cli_json_u64(j, "gpu_host_end", pl->gpu_host_end);
    cli_json_num(j, "cpu_share", pl->cpu_share);
    cli_json_u64(j, "pcie_bytes_per_pass", pl->pcie_bytes_per_pass);
    cli_json_str(j, "rates_origin", pl->rates_origin);
    cli_json_object(j, "predicted");
    cli_json_num(j, "upload_s", pl->t_upload);
    cli_json_num(j, "device_s", pl->t_device);
    cli_json_num(j, "gpu_host_s", pl->t_gpu_host);
    cli_json_num(j, "cpu_s", pl->t_cpu);
    cli_json_num(j, "shared_s", pl->t_shared);
    cli_json_num(j, "pass_s", pl->predicted_pass_s);
    cli_json_num(j, "passes", pl->passes);
    if (pl->algo == SG_PLAN_MST) {
        cli_json_bool(j, "forest_heads", pl->forest_heads);
        cli_json_num(j, "refill_passes", pl->refill_passes);
        cli_json_num(j, "refill_s", pl->t_refill);
        cli_json_bool(j, "forest_spec", pl->forest_spec);
    }
    cli_json_num(j, "rounds_s", pl->t_rounds);
    cli_json_num(j, "index_s", pl->t_index);
    cli_json_num(j, "result_s", pl->t_result);
    if (pl->algo != SG_PLAN_MST) {
        cli_json_bool(j, "gathered", pl->gathered);
        cli_json_u64(j, "steps", pl->steps);
        cli_json_num(j, "steps_s", pl->t_steps);
    }
    cli_json_num(j, "total_s", pl->predicted_s);
    cli_json_object_end(j);
    if (pl->hint_degree_asc) cli_json_str(j, "hint", "renumber --order degree-asc");
    else cli_json_null(j, "hint");
}

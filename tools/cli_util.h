/* spillgraph command line — shared helpers: option parsing, numbers and sizes,
 * human-readable printing, JSON output and the stderr progress bar.
 *
 * Exit codes of every command: 0 success, 1 bad input or a library error
 * (the message names the file, shard or block), 2 usage error. Messages go to
 * stderr as "spillgraph CMD: message". */
#ifndef SG_CLI_UTIL_H
#define SG_CLI_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "spillgraph.h"

enum { CLI_EXIT_OK = 0, CLI_EXIT_FAIL = 1, CLI_EXIT_USAGE = 2 };

/* What main hands each command: argv[0] is the command's name ("info"),
 * full_argc/full_argv the whole command line as typed (for a store's
 * creator text). */
typedef struct cli_env {
    int full_argc;
    char **full_argv;
} cli_env;

typedef int (*cli_cmd_fn)(int argc, char **argv, const cli_env *env);

/* The commands: cmd_gen.c and cmd_store.c. Each returns the exit code. */
int cmd_gen(int argc, char **argv, const cli_env *env);
int cmd_info(int argc, char **argv, const cli_env *env);
int cmd_check(int argc, char **argv, const cli_env *env);
int cmd_export(int argc, char **argv, const cli_env *env);
int cmd_renumber(int argc, char **argv, const cli_env *env);
int cmd_scan(int argc, char **argv, const cli_env *env);
int cmd_devices(int argc, char **argv, const cli_env *env);
/* cmd_convert.c */
int cmd_convert(int argc, char **argv, const cli_env *env);
/* cmd_algo.c: the algorithm commands */
int cmd_mst(int argc, char **argv, const cli_env *env);
int cmd_sssp(int argc, char **argv, const cli_env *env);
int cmd_bfs(int argc, char **argv, const cli_env *env);
int cmd_cluster(int argc, char **argv, const cli_env *env);
/* cmd_plan.c: the placement planner and its rates */
int cmd_plan(int argc, char **argv, const cli_env *env);
int cmd_calibrate(int argc, char **argv, const cli_env *env);

/* ------------------------------------------------------------ messages */

/* "spillgraph CMD: message" on stderr; returns CLI_EXIT_FAIL. */
int cli_fail(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The library's message (or the status name when it left none); returns
 * CLI_EXIT_FAIL. */
int cli_fail_status(const char *cmd, sg_status st, const sg_error *err);
/* "spillgraph CMD: message", the usage line(s), "try 'spillgraph CMD --help'";
 * returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *usage, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ------------------------------------------------------------ options */

typedef struct cli_option {
    const char *name; /* long name without "--" */
    char short_name;  /* 0: none */
    bool has_value;   /* takes a value: "--name V", "--name=V", "-xV", "-x V" */
    int id;           /* > 0, returned by cli_next */
} cli_option;

enum {
    CLI_END = 0,         /* no arguments left */
    CLI_POSITIONAL = -1, /* p->value is a non-option argument */
    CLI_BAD = -2         /* a usage error was printed: exit CLI_EXIT_USAGE */
};

typedef struct cli_parser {
    const char *cmd;         /* for messages: "gen rmat" */
    const char *usage;       /* short usage line(s) for usage errors */
    const cli_option *opts;  /* terminated by an entry with name NULL */
    int argc;
    char **argv;
    int next;                /* index of the next argument */
    bool options_done;       /* after "--" everything is positional */
    const char *value;       /* value of the last option, or the positional */
    const char *spelled;     /* the last option's long name, for messages */
} cli_parser;

/* Starts parsing argv[1..argc). */
void cli_parser_init(cli_parser *p, const char *cmd, const char *usage, const cli_option *opts,
                     int argc, char **argv);
/* The next option's id, CLI_POSITIONAL, CLI_END or CLI_BAD. */
int cli_next(cli_parser *p);
/* True when "--help" or "-h" appears before any "--" in argv[1..argc). */
bool cli_wants_help(int argc, char **argv);

/* Value parsers for the last option's value. On a bad value they print a
 * usage error naming the option and return false (exit CLI_EXIT_USAGE). */
bool cli_value_u64(cli_parser *p, uint64_t min, uint64_t max, uint64_t *out);
bool cli_value_int(cli_parser *p, int min, int max, int *out);
/* Sizes: "4096", "64K", "256M", "1G", "4KiB", "1MiB", "2T" (binary units);
 * "KB", "MB", "GB", "TB" are decimal (1000^k), as dd reads them. */
bool cli_value_size(cli_parser *p, uint64_t min, uint64_t max, uint64_t *out);

/* Plain parsers (no message): true on success. */
bool cli_parse_u64(const char *s, uint64_t *out);
bool cli_parse_size(const char *s, uint64_t *out);
/* A --host-mem kind: plain, pinned, managed or auto; and its name. */
bool cli_parse_mem_kind(const char *s, sg_mem_kind *out);
const char *cli_mem_kind_name(sg_mem_kind k);
/* After a text report's line naming the rates a plan priced (origin:
 * sg_rates.origin), where they are the defaults: two lines, indented by
 * `indent` spaces, saying that `spillgraph calibrate` measures this
 * machine's and caches them. Nothing for a rates file. */
void cli_rates_hint(const char *origin, int indent);

/* The command line as typed, shell-quoted where needed; malloc'd, NULL when
 * out of memory. */
char *cli_command_line(int argc, char **argv);

/* ------------------------------------------------------------ printing */

typedef struct cli_str {
    char s[48];
} cli_str;

cli_str cli_bytes(uint64_t bytes);   /* "512 B", "1.5 KiB", "3.25 GiB" */
cli_str cli_count(uint64_t n);       /* "16,777,216" */
cli_str cli_seconds(double s);       /* "850 us", "12.3 ms", "4.21 s", "2 min 03 s" */
cli_str cli_rate(double bytes, double seconds); /* "1.73 GB/s" (10^9 bytes per second) */
cli_str cli_utc_time(uint64_t unix_seconds);    /* "2025-11-22T05:30:12Z" */

double cli_now(void); /* monotonic seconds */


/* ------------------------------------------------------------ JSON
 * One object per command, written on one line to `f`:
 *   cli_json j; cli_json_begin(&j, stdout);
 *   cli_json_u64(&j, "n_vertices", n); ... cli_json_end(&j);
 * Keys are NULL for the elements of an array. Strings are escaped and made
 * valid UTF-8 (invalid bytes become U+FFFD); non-finite numbers are null. */
typedef struct cli_json {
    FILE *f;
    int depth;
    bool comma[16];
} cli_json;

void cli_json_begin(cli_json *j, FILE *f);
void cli_json_end(cli_json *j);
void cli_json_object(cli_json *j, const char *key);
void cli_json_object_end(cli_json *j);
void cli_json_array(cli_json *j, const char *key);
void cli_json_array_end(cli_json *j);
void cli_json_u64(cli_json *j, const char *key, uint64_t v);
void cli_json_int(cli_json *j, const char *key, long long v);
void cli_json_num(cli_json *j, const char *key, double v);
void cli_json_bool(cli_json *j, const char *key, bool v);
void cli_json_str(cli_json *j, const char *key, const char *s);
void cli_json_null(cli_json *j, const char *key);
/* A JSON string literal (quotes included). */
void cli_json_write_string(FILE *f, const char *s);
/* The members of a placement plan (work bytes, per-array splits, device and
 * host bytes, spill kinds, the host range and the predicted times), as
 * spillgraph plan prints them and hybrid runs report them. */
void cli_json_plan(cli_json *j, const sg_plan *pl);

/* ------------------------------------------------------------ progress
 * A one-line bar on stderr, drawn only when stderr is a terminal and the
 * caller wants it. Pass cli_progress_cb with the struct as its context.
 * With steps > 1 (a run of searches) the library's "compute" phase of
 * step `step` (0-based) is drawn as the fraction (step + f) / steps of one
 * phase "searches", with "step/steps" after the time, so the bar crosses
 * the whole run once instead of once a search. */
typedef struct cli_progress {
    bool on;
    bool drawn;        /* something is on the line now */
    char phase[32];
    int permille;      /* last drawn, -1 none */
    double phase_start;
    double last_draw;
    uint64_t step, steps;
} cli_progress;

void cli_progress_init(cli_progress *p, bool wanted);
void cli_progress_cb(void *ctx, const char *phase, double fraction);
/* Clears the bar's line. */
void cli_progress_end(cli_progress *p);

#endif

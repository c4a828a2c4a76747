/* error.c: error codes, their text, the single way an API error ends a run,
 * and whether an output file named by a flag can be written. */
#include "internal.h"
#include "contract.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *pld_strerror(int code)
{
    switch (code) {
    case PLD_OK:
        return "success";
#define PLD__ERR_TEXT(name, num, text)                                                             \
    case num:                                                                                      \
        return text;
        PLD_ERRNO_MAP(PLD__ERR_TEXT)
#undef PLD__ERR_TEXT
    }
    return "unknown error";
}

const char *pld_err_name(int code)
{
    switch (code) {
    case PLD_OK:
        return "OK";
#define PLD__ERR_NAME(name, num, text)                                                             \
    case num:                                                                                      \
        return #name;
        PLD_ERRNO_MAP(PLD__ERR_NAME)
#undef PLD__ERR_NAME
    }
    return "EUNKNOWN";
}

int pld_exit_code(int rc)
{
    switch (rc) {
    case PLD_OK:
        return 0;
    case PLD_EUSAGE:
    case PLD_EPLATFORM:
    case PLD_EDEVICES:
    case PLD_ENOTSUP:
        return 2;
    case PLD_EDEADLOCK:
        return 4;
    case PLD_ERACE:
        return 5;
    default:
        return 3;
    }
}

/* Set by pld_embed_set_op_names (embed.c); kept here, beside its one
 * reader, so that every message can show it without calling up. */
const char *(*pld__op_rename)(const char *op);

const char *pld__op_shown(const char *op)
{
    const char *named = op && pld__op_rename ? pld__op_rename(op) : NULL;
    return named ? named : op;
}

int pld__config_error_silent;
int pld__mute_host;

int pld__config_error(int code, const char *fmt, ...)
{
    va_list ap;
    if (pld__config_error_silent)
        return code;
    fflush(stdout);
    fputs("pldsim: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return code;
}

/* The one way an error ends a run: reports it if it is the run's first,
 * then leaves the caller's rank (through an armed pld_guard, if any). */
_Noreturn void pld__vfail(int code, const char *file, int line, const char *op, const char *preface,
                          const char *fmt, va_list ap)
{
    int self = pld__self();
    char who[32];

    if (self >= 0)
        snprintf(who, sizeof who, "rank %d", self);
    else if (self == PLD__HOST)
        snprintf(who, sizeof who, "host");
    else
        snprintf(who, sizeof who, "setup");

    if (self != PLD__NOBODY)
        pld__R->be->settle();
    /* Only the first error is reported: the others are usually its echo
     * (a peer that fails because this rank stopped).  Ranks may be threads,
     * so the first one is decided atomically. */
    int zero = 0;
    int first =
        self == PLD__NOBODY || __atomic_compare_exchange_n(&pld__R->error, &zero, code, 0,
                                                           __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    /* a muted host never claims: the claim is for the process that prints */
    if (first && !(self == PLD__HOST && pld__mute_host) &&
        (!pld__R->be->claim_report || self == PLD__NOBODY || pld__R->be->claim_report())) {
        op = pld__op_shown(op);
        fflush(stdout);
        if (preface)
            fputs(preface, stderr);
        fprintf(stderr, "%s:%d: %s: %s: ", file, line, who, op);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        fflush(stderr);
    }
    if (self == PLD__NOBODY)
        exit(pld_exit_code(code));
    pld__R->be->abort_run();
    __builtin_unreachable();
}

_Noreturn void pld__fail(int code, const char *file, int line, const char *op, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pld__vfail(code, file, line, op, NULL, fmt, ap);
}

void pld__require_level(const char *file, int line, const char *op, unsigned allowed)
{
    int self = pld__self();
    unsigned here;
    const char *where;

    if (self == PLD__NOBODY)
        pld__fail(PLD_EINVAL, file, line, op, "called outside pld_run(); %s",
                  allowed & PLD__LVL_HOST ? "call it from the host function given to pld_run"
                                          : "call it from a kernel run by pl_incore");
    if (self == PLD__HOST) {
        here = PLD__LVL_HOST;
        where = "the host orchestrator";
    } else if (pld__R->ranks[self].kernel) {
        here = PLD__LVL_KERNEL;
        where = "a kernel";
    } else {
        here = PLD__LVL_DEVICE;
        where = "a per-device function";
    }
    if (here & allowed)
        return;
    pld__fail(PLD_EINVAL, file, line, op, "not allowed in %s; it is %s", where,
              allowed == PLD__LVL_HOST     ? "host-only (call it from the host orchestrator)"
              : allowed == PLD__LVL_KERNEL ? "kernel-only (call it inside a pl_incore kernel)"
              : allowed == PLD__LVL_DEVICE ? "for per-device functions (run by pld_dispatch)"
                                           : "not allowed here");
}

struct pld__rank *pld__kernel_rank(const char *file, int line, const char *op)
{
    int self = pld__self(); /* once: every kernel op asks */
    if (self >= 0 && pld__R->ranks[self].kernel)
        return &pld__R->ranks[self];
    pld__require_level(file, line, op, PLD__LVL_KERNEL); /* fails, saying where we are */
    return &pld__R->ranks[self];
}

void pld__check_tensor(const char *file, int line, const char *op, const char *what, pl_tensor t)
{
    if (t.dtype == 0)
        pld__fail(PLD_EINVAL, file, line, op, "%s is not a tensor (uninitialised?)", what);
}

/* Would fopen(path, "w") succeed?  Checked without creating the file;
 * `why` says precisely what stands in the way (an empty name, a
 * directory, a directory that does not exist), not only "cannot write". */
int pld__can_write(const char *path, char *why, size_t len)
{
    struct stat st;
    snprintf(why, len, "%s", "");
    if (!*path) {
        snprintf(why, len, "an empty name");
        return 0;
    }
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            snprintf(why, len, "it is a directory");
            return 0;
        }
        if (access(path, W_OK) != 0) {
            snprintf(why, len, "%s", strerror(errno));
            return 0;
        }
        return 1;
    }
    if (errno != ENOENT && errno != ENOTDIR) {
        snprintf(why, len, "%s", strerror(errno));
        return 0;
    }
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    if (stat(dir, &st) != 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            snprintf(why, len, "directory %.200s does not exist", dir);
        else
            snprintf(why, len, "directory %.200s: %s", dir, strerror(errno));
        return 0;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(why, len, "%.200s is not a directory", dir);
        return 0;
    }
    if (access(dir, W_OK) != 0) {
        snprintf(why, len, "directory %.200s: %s", dir, strerror(errno));
        return 0;
    }
    return 1;
}

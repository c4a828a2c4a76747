/* record.c: a rank's own list of the primitives it ran, as readable lines
 * (op, peer, window[index], count or value) rather than the trace's byte
 * offsets and times: what step 11 prints to reveal a builtin's lowering. */
#include "internal.h"
#include "observe.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static void append(struct pld__rank *rk, const char *fmt, ...)
{
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof line)
        n = sizeof line - 1;
    if (rk->rec_len + (size_t)n + 1 > rk->rec_cap) {
        size_t cap = rk->rec_cap ? 2 * rk->rec_cap : 4096;
        while (cap < rk->rec_len + (size_t)n + 1)
            cap *= 2;
        char *nr = realloc(rk->rec, cap);
        if (!nr)
            return; /* a recording is best effort */
        rk->rec = nr;
        rk->rec_cap = cap;
    }
    memcpy(rk->rec + rk->rec_len, line, (size_t)n + 1);
    rk->rec_len += (size_t)n;
}

void pld__record_op(struct pld__rank *rk, const struct pld__event *e, const pl_tensor *t,
                    int64_t elem_off)
{
    char where[96] = "-", peer[16] = "-", what[32] = "";
    if (e->peer >= 0)
        snprintf(peer, sizeof peer, "r%d", e->peer);
    if (t && t->dtype) {
        /* the element index, unravelled over the view's shape */
        int64_t flat = elem_off / (int64_t)pl_dtype_size(t->dtype), idx[PL_MAX_DIMS];
        for (int i = t->shape.ndim - 1; i >= 0; i--) {
            idx[i] = flat % t->shape.dim[i];
            flat /= t->shape.dim[i];
        }
        pl_shape s = {.ndim = t->shape.ndim};
        memcpy(s.dim, idx, sizeof idx);
        char buf[64];
        snprintf(where, sizeof where, "%s%s", t->name ? t->name : "?",
                 pld__shape_str(s, buf, sizeof buf));
        if (e->value != PLD__MISSING)
            snprintf(
                what, sizeof what, "%s%lld",
                pld__ops[e->id].kind != PLD__KIND_WAIT ? "value " : ">= ", (long long)e->value);
        else if (e->bytes >= 0)
            snprintf(what, sizeof what, "n=%lld",
                     (long long)(e->bytes / (int64_t)pl_dtype_size(t->dtype)));
    } else if (e->bytes >= 0) {
        snprintf(what, sizeof what, "%lld B", (long long)e->bytes);
    }
    char line[160];
    int n = snprintf(line, sizeof line, "%-16s %-4s %-18s %s", e->op, peer, where, what);
    while (n > 0 && line[n - 1] == ' ')
        line[--n] = '\0';
    append(rk, "%s\n", line);
}

void pld_record_begin(void)
{
    pld__require_level("pld_record_begin", 0, "pld_record_begin",
                       PLD__LVL_DEVICE | PLD__LVL_KERNEL);
    struct pld__rank *rk = &pld__R->ranks[pld__self()];
    __atomic_store_n(&pld__R->any_recording, 1, __ATOMIC_RELAXED);
    rk->recording = 1;
    rk->rec_len = 0;
    if (rk->rec)
        rk->rec[0] = '\0';
}

char *pld_record_end(void)
{
    pld__require_level("pld_record_end", 0, "pld_record_end", PLD__LVL_DEVICE | PLD__LVL_KERNEL);
    struct pld__rank *rk = &pld__R->ranks[pld__self()];
    char *out = rk->rec ? rk->rec : calloc(1, 1);
    rk->rec = NULL;
    rk->rec_len = rk->rec_cap = 0;
    rk->recording = 0;
    return out;
}

/* trust.c: how far a run's simulated time can be trusted (issue 53,
 * item 4).  Every op's time is priced by a few keys of the device model,
 * and the model labels each kind of op by its keys' provenance: checked
 * (fitted, and within bounds on held-out runs), fitted, a spec figure, or
 * a guess (models/a2a3.model's trust_* keys; unlabelled: guess).  The run
 * sums its ops' time by kind, over ranks, so the summary can say which
 * share of the time rests on which label.
 *
 * A wait's time is what it waits for, priced by the ops it waits on; only
 * poll_lat, after its cell holds, is its own.  So waits are listed with
 * their label and their time, but left out of the shares. */
#include "internal.h"
#include "observe.h"
#include "units.h"

#include <stddef.h>
#include <string.h>

const char *const pld__trust_kind_names[PLD__TRUST_KINDS] = {
    "gm", "vector", "launch", "cube", "pull", "push", "sdma", "signal", "wait", "dispatch"};

_Static_assert(offsetof(struct pld__device, trust_dispatch) -
                       offsetof(struct pld__device, trust_gm) ==
                   (PLD__TRUST_KINDS - 1) * sizeof(double),
               "the trust_* keys follow each other, in pld__trust_kind_names' order");

int pld__trust_kind(enum pld__op op)
{
    switch (op) {
    case PLD__OP_LOAD:
    case PLD__OP_STORE:
    case PLD__OP_STORE_ADD:
    case PLD__OP_READ:
    case PLD__OP_WRITE:
        return PLD__TRUST_GM;
    case PLD__OP_LAUNCH:
        return PLD__TRUST_LAUNCH;
    case PLD__OP_MATMUL:
    case PLD__OP_CUBE_MOVE:
        return PLD__TRUST_CUBE;
    case PLD__OP_REMOTE_LOAD:
    case PLD__OP_GET:
        return PLD__TRUST_PULL;
    case PLD__OP_REMOTE_STORE:
    case PLD__OP_REMOTE_STORE_ADD:
    case PLD__OP_PUT:
    case PLD__OP_PUT_ADD:
        return PLD__TRUST_PUSH;
    case PLD__OP_PUT_ASYNC:
        return PLD__TRUST_SDMA;
    case PLD__OP_NOTIFY_SET:
    case PLD__OP_NOTIFY_ADD:
        return PLD__TRUST_SIGNAL;
    case PLD__OP_WAIT_EQ:
    case PLD__OP_WAIT_GE:
    case PLD__OP_WAIT_ASYNC:
        return PLD__TRUST_WAIT;
    case PLD__OP_DISPATCH:
        return PLD__TRUST_DISPATCH;
    case PLD__OP_DEFER_WAIT:
        return -1; /* free: it only registers */
    default:
        return pld__ops[op].kind == PLD__KIND_KERNEL ? PLD__TRUST_VECTOR : -1;
    }
}

void pld__trust_account(enum pld__op op, double t0, double t1)
{
    struct pld__run *R = pld__R;
    int k = pld__trust_kind(op);
    /* on threads and mpi a time is the machine's wall, not the model's */
    if (!R || k < 0 || !(R->be->caps & PLD_CAP_TIMED) || !(t1 > t0))
        return;
    int self = pld__self();
    const struct pld__device *d = self >= 0 ? &R->ranks[self].dev : &R->host_dev;
    double v = (&d->trust_gm)[k];
    int label = v >= 0 && v < PLD__NTRUST ? (int)v : PLD__GUESS;
    R->trust_op_s[k] += t1 - t0;
    if (R->trust_label[k] < 0 || label < R->trust_label[k])
        R->trust_label[k] = (signed char)label; /* a kind is as good as its weakest device */
}

void pld__trust_reset(struct pld__run *R)
{
    memset(R->trust_op_s, 0, sizeof R->trust_op_s);
    memset(R->trust_label, -1, sizeof R->trust_label);
}

double pld__trust_shares(const struct pld__run *R, double by_label[])
{
    double priced = 0;
    for (int l = 0; l < PLD__NTRUST; l++)
        by_label[l] = 0;
    for (int k = 0; k < PLD__TRUST_KINDS; k++)
        if (k != PLD__TRUST_WAIT && R->trust_label[k] >= 0) {
            by_label[(int)R->trust_label[k]] += R->trust_op_s[k];
            priced += R->trust_op_s[k];
        }
    return priced;
}

/* The kind labelled `label` that took the most time and is not yet
 * `done` (waits aside), marked done; -1 when none is left. */
static int next_largest(const struct pld__run *R, int label, int done[PLD__TRUST_KINDS])
{
    int best = -1;
    for (int k = 0; k < PLD__TRUST_KINDS; k++)
        if (!done[k] && k != PLD__TRUST_WAIT && R->trust_label[k] == label &&
            R->trust_op_s[k] > 0 && (best < 0 || R->trust_op_s[k] > R->trust_op_s[best]))
            best = k;
    if (best >= 0)
        done[best] = 1;
    return best;
}

int pld__trust_mostly_guessed(const struct pld__run *R, char *buf, size_t len)
{
    double by_label[PLD__NTRUST], priced = pld__trust_shares(R, by_label);
    if (!(priced > 0) || by_label[PLD__GUESS] <= 0.5 * priced)
        return 0;
    int n = snprintf(buf, len, "most of this run's op time (%.0f %%) is priced by guessed costs (",
                     100 * by_label[PLD__GUESS] / priced);
    /* the guessed kinds, the largest first */
    int done[PLD__TRUST_KINDS] = {0}, first = 1;
    for (int best; (best = next_largest(R, PLD__GUESS, done)) >= 0;) {
        if (n >= 0 && (size_t)n < len)
            n += snprintf(buf + n, len - (size_t)n, "%s%s %.0f %%", first ? "" : ", ",
                          pld__trust_kind_names[best], 100 * R->trust_op_s[best] / priced);
        first = 0;
    }
    if (n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n,
                 "); the model's trust_* keys say which costs are fitted (docs/validation.md)");
    return 1;
}

int pld__trust_line(const struct pld__run *R, char *buf, size_t len)
{
    double by_label[PLD__NTRUST], priced = pld__trust_shares(R, by_label);
    if (!(priced > 0) || len == 0)
        return 0;
    size_t n = 0;
    buf[0] = '\0';
    /* the strongest label first; in each, its kinds by time, the largest first */
    for (int l = PLD__NTRUST; l-- > 0;) {
        if (!(by_label[l] > 0))
            continue;
        n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s %.1f %% (", n ? ", " : "",
                              pld__trust_names[l], 100 * by_label[l] / priced);
        int done[PLD__TRUST_KINDS] = {0}, first = 1;
        for (int best; (best = next_largest(R, l, done)) >= 0;) {
            n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s", first ? "" : ", ",
                                  pld__trust_kind_names[best]);
            first = 0;
        }
        n += (size_t)snprintf(buf + n, n < len ? len - n : 0, ")");
    }
    return n < len;
}

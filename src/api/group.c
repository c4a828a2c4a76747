/* group.c: communication groups (upstream's comm domains).  A buffer lives
 * in the window of one group; inside the API every rank is a world rank,
 * and the peers users pass are ranks of the window's group, translated
 * here once, before any backend sees them. */
#include "internal.h"
#include "backend.h"

#include <stdlib.h>
#include <string.h>

static void describe(struct pld__group *g)
{
    size_t len = 0;
    int first = 0;
    int contiguous = g->members[g->n - 1] - g->members[0] == g->n - 1;
    if (contiguous && g->n > 3) {
        snprintf(g->desc, sizeof g->desc, "devices %d..%d", g->members[0], g->members[g->n - 1]);
        return;
    }
    len = (size_t)snprintf(g->desc, sizeof g->desc, "device%s", g->n > 1 ? "s" : "");
    for (int i = 0; i < g->n && len < sizeof g->desc; i++, first = 1) {
        int w =
            snprintf(g->desc + len, sizeof g->desc - len, "%s %d", first ? "," : "", g->members[i]);
        if (w < 0 || (size_t)w >= sizeof g->desc - len) {
            snprintf(g->desc + sizeof g->desc - 5, 5, " ...");
            break;
        }
        len += (size_t)w;
    }
}

/* The group of the ranks marked in `in` (P flags): the existing one with
 * those members, or a new one. */
static pld_group intern(const char *file, int line, const char *op, const unsigned char *in, int n)
{
    struct pld__run *R = pld__R;
    for (struct pld__group *g = R->groups; g; g = g->next) {
        if (g->n != n)
            continue;
        int same = 1;
        for (int i = 0; i < n && same; i++)
            same = in[g->members[i]];
        if (same)
            return (pld_group){.g = g};
    }
    struct pld__group *g = calloc(1, sizeof *g);
    if (!g || !(g->members = malloc((size_t)n * sizeof *g->members)) ||
        !(g->index = malloc((size_t)R->P * sizeof *g->index))) {
        if (g)
            free(g->members);
        free(g);
        pld__fail(PLD_ENOMEM, file, line, op, "out of memory");
    }
    g->n = n;
    for (int r = 0, k = 0; r < R->P; r++) {
        g->index[r] = in[r] ? k : -1;
        if (in[r])
            g->members[k++] = r;
    }
    describe(g);
    g->next = R->groups;
    R->groups = g;
    return (pld_group){.g = g};
}

pld_group pld__group_range(const char *file, int line, int64_t first, int64_t end)
{
    static const char op[] = "pld_group_range";
    pld__require_level(file, line, op, PLD__LVL_HOST);
    int P = pld__R->P;
    if (first < 0 || end <= first)
        pld__fail(PLD_EINVAL, file, line, op,
                  "devices [%lld, %lld): expected 0 <= first < end (a group has at least one "
                  "device)",
                  (long long)first, (long long)end);
    if (end > P)
        pld__fail(PLD_EINVAL, file, line, op,
                  "devices [%lld, %lld) are more than the world: device %lld out of range [0, %d)",
                  (long long)first, (long long)end, (long long)(end - 1), P);
    unsigned char *in = calloc((size_t)P, 1);
    if (!in)
        pld__fail(PLD_ENOMEM, file, line, op, "out of memory");
    for (int64_t r = first; r < end; r++)
        in[r] = 1;
    pld_group g = intern(file, line, op, in, (int)(end - first));
    free(in);
    return g;
}

pld_group pld__group_of(const char *file, int line, int n, const int *ranks)
{
    static const char op[] = "pld_group_of";
    pld__require_level(file, line, op, PLD__LVL_HOST);
    int P = pld__R->P;
    if (n < 1 || !ranks)
        pld__fail(PLD_EINVAL, file, line, op, "%d devices: a group has at least one", n);
    if (n > P)
        pld__fail(PLD_EINVAL, file, line, op, "%d devices are more than the world of %d", n, P);
    unsigned char *in = calloc((size_t)P, 1);
    if (!in)
        pld__fail(PLD_ENOMEM, file, line, op, "out of memory");
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= P) {
            free(in);
            pld__fail(PLD_EINVAL, file, line, op, "device %d out of range [0, %d)", ranks[i], P);
        }
        if (in[ranks[i]]) {
            free(in);
            pld__fail(PLD_EINVAL, file, line, op, "device %d is listed twice", ranks[i]);
        }
        in[ranks[i]] = 1;
    }
    pld_group g = intern(file, line, op, in, n);
    free(in);
    return g;
}

int pld__group_size(const char *file, int line, pld_group g)
{
    pld__require_level(file, line, "pld_group_size",
                       PLD__LVL_HOST | PLD__LVL_DEVICE | PLD__LVL_KERNEL);
    return g.g ? g.g->n : pld__R->P;
}

int pld__group_member(const char *file, int line, pld_group g, int64_t i)
{
    static const char op[] = "pld_group_member";
    pld__require_level(file, line, op, PLD__LVL_HOST | PLD__LVL_DEVICE | PLD__LVL_KERNEL);
    int n = g.g ? g.g->n : pld__R->P;
    if (i < 0 || i >= n)
        pld__fail(PLD_EINVAL, file, line, op, "rank %lld out of range [0, %d) of the group",
                  (long long)i, n);
    return g.g ? g.g->members[i] : (int)i;
}

pld_group pld__window_group(const char *file, int line, pld_dtensor dt)
{
    static const char op[] = "pld_window_group";
    pld__require_level(file, line, op, PLD__LVL_HOST | PLD__LVL_DEVICE | PLD__LVL_KERNEL);
    pld__check_tensor(file, line, op, "argument", dt);
    if (!dt.win)
        pld__fail(PLD_EINVAL, file, line, op,
                  "'%s' is a host tensor; only window views belong to a comm group", dt.name);
    return (pld_group){.g = (struct pld__group *)dt.win->group};
}

int pld__group_rank_of(const struct pld__wbuf *b, int world)
{
    return b->group ? b->group->index[world] : world;
}

int pld__group_n(const struct pld__wbuf *b)
{
    return b->group ? b->group->n : pld__R->P;
}

int pld__peer_rank(const char *file, int line, const char *op, const pl_tensor *t, int64_t peer)
{
    if (peer == PLD__MISSING)
        pld__fail(PLD_EINVAL, file, line, op, "missing required keyword .peer");
    const struct pld__group *g = t->win ? t->win->group : NULL;
    if (!g) {
        if (peer < 0 || peer >= pld__R->P)
            pld__fail(PLD_EINVAL, file, line, op, "peer %lld out of range [0, %d)", (long long)peer,
                      pld__R->P);
        return (int)peer;
    }
    if (peer < 0 || peer >= g->n)
        pld__fail(PLD_EINVAL, file, line, op,
                  "peer %lld out of range [0, %d) of the comm group of '%s' (%s)", (long long)peer,
                  g->n, t->name, g->desc);
    return g->members[peer];
}

void pld__check_member(const char *file, int line, const char *op, const char *what,
                       const pl_tensor *t)
{
    if (!t->win || !t->win->group)
        return;
    int me = pld__self();
    if (me >= 0 && t->win->group->index[me] < 0)
        pld__fail(PLD_EINVAL, file, line, op,
                  "%s '%s' belongs to the comm group of %s; rank %d is not in it, so it has no "
                  "copy of that window",
                  what, t->name, t->win->group->desc, me);
}

void pld__groups_free(struct pld__run *R)
{
    struct pld__group *g = R->groups, *n;
    for (; g; g = n) {
        n = g->next;
        free(g->members);
        free(g->index);
        free(g);
    }
    R->groups = NULL;
}

/* tasks.c: what every backend needs alike: the FIFO of a rank's dispatched
 * tasks, and the one comparison that decides whether a wait holds. */
#include "internal.h"
#include "backend.h"

#include <stdlib.h>

void pld__tasks_push(struct pld__task_queue *q, struct pld__task *t)
{
    t->next = NULL;
    if (q->tail)
        q->tail->next = t;
    else
        q->head = t;
    q->tail = t;
}

struct pld__task *pld__tasks_pop(struct pld__task_queue *q)
{
    struct pld__task *t = q->head;
    if (t && !(q->head = t->next))
        q->tail = NULL;
    return t;
}

void pld__task_free(struct pld__task *t)
{
    if (t) {
        free(t->args);
        free(t);
    }
}

void pld__tasks_free(struct pld__task_queue *q)
{
    for (struct pld__task *t; (t = pld__tasks_pop(q));)
        pld__task_free(t);
}

int pld__wait_holds(int32_t value, pld_wait_cmp cmp, int32_t expected)
{
    return cmp == PLD_WAIT_EQ ? value == expected : value >= expected;
}

/* ops.h: the operation table.  Every primitive the trace can show has one
 * entry: its name in traces, its C API name (as error messages give it) and
 * its kind, which decides its lane in the trace writers and the summary.
 * The front end names operations by this enum, never by string prefixes. */
#ifndef PLD_OPS_H
#define PLD_OPS_H

struct pld__cost;

/* What unit of the device does an operation's work. */
enum pld__kind {
    PLD__KIND_KERNEL,   /* vector unit, GM access, launch */
    PLD__KIND_DATA,     /* bytes between ranks: remote load/store, put, get */
    PLD__KIND_SIGNAL,   /* notify */
    PLD__KIND_DISPATCH, /* the host dispatching a task */
    PLD__KIND_WAIT,     /* wait: a signal operation that blocks */
};

/* X(id, trace name, API name, kind) */
#define PLD__OP_LIST(X)                                                                            \
    X(LOAD, "load", "pl_load", KERNEL)                                                             \
    X(STORE, "store", "pl_store", KERNEL)                                                          \
    X(STORE_ADD, "store_add", "pl_store", KERNEL)                                                  \
    X(READ, "read", "pl_read", KERNEL)                                                             \
    X(WRITE, "write", "pl_write", KERNEL)                                                          \
    X(ADD, "add", "pl_add", KERNEL)                                                                \
    X(MUL, "mul", "pl_mul", KERNEL)                                                                \
    X(MAX, "max", "pl_max", KERNEL)                                                                \
    X(MIN, "min", "pl_min", KERNEL)                                                                \
    X(SUB, "sub", "pl_sub", KERNEL)                                                                \
    X(ADDS, "adds", "pl_adds", KERNEL)                                                             \
    X(MULS, "muls", "pl_muls", KERNEL)                                                             \
    X(MAXS, "maxs", "pl_maxs", KERNEL)                                                             \
    X(MINS, "mins", "pl_mins", KERNEL)                                                             \
    X(SUBS, "subs", "pl_subs", KERNEL)                                                             \
    X(CAST, "cast", "pl_cast", KERNEL)                                                             \
    X(LAUNCH, "launch", "pl_incore", KERNEL)                                                       \
    X(MATMUL, "matmul", "pl_matmul", KERNEL)                                                       \
    X(CUBE_MOVE, "move", "pl_move", KERNEL)                                                        \
    X(REMOTE_LOAD, "remote_load", "pld_tile_remote_load", DATA)                                    \
    X(REMOTE_STORE, "remote_store", "pld_tile_remote_store", DATA)                                 \
    X(REMOTE_STORE_ADD, "remote_store_add", "pld_tile_remote_store", DATA)                         \
    X(PUT, "put", "pld_tensor_put", DATA)                                                          \
    X(PUT_ADD, "put_add", "pld_tensor_put", DATA)                                                  \
    X(GET, "get", "pld_tensor_get", DATA)                                                          \
    X(PUT_ASYNC, "put_async", "pld_tensor_put_async", DATA)                                        \
    X(WAIT_ASYNC, "wait_async", "pld_system_wait_async_event", WAIT)                               \
    X(NOTIFY_SET, "notify_set", "pld_system_notify", SIGNAL)                                       \
    X(NOTIFY_ADD, "notify_add", "pld_system_notify", SIGNAL)                                       \
    X(WAIT_EQ, "wait_eq", "pld_system_wait", WAIT)                                                 \
    X(WAIT_GE, "wait_ge", "pld_system_wait", WAIT)                                                 \
    X(DEFER_WAIT, "defer_wait", "pld_system_defer_wait", SIGNAL)                                   \
    X(DISPATCH, "dispatch", "pld_dispatch", DISPATCH)

enum pld__op {
#define PLD__OP_ENUM(id, trace, api, kind) PLD__OP_##id,
    PLD__OP_LIST(PLD__OP_ENUM)
#undef PLD__OP_ENUM
        PLD__NOPS
};

struct pld__op_info {
    const char *trace; /* as the trace writes it */
    const char *api;   /* as error messages name it */
    enum pld__kind kind;
};

extern const struct pld__op_info pld__ops[PLD__NOPS];

/* The op whose trace name is `name`, or -1. */
int pld__op_by_trace_name(const char *name);

/* The lane of kind `k` in the trace writers: a wait is a signal op. */
static inline int pld__kind_engine(enum pld__kind k)
{
    return k == PLD__KIND_WAIT ? PLD__KIND_SIGNAL : (int)k;
}

/* After the backend has carried out `op` from rank `from` to rank `to`
 * with cost `c` and returned `rc` (events.c, the observation side): reports a missing route at the
 * user's file:line (never returns then), or records the transfer in the trace and the run's
 * counters.  A transfer within one rank records nothing. */
void pld__op_done(const char *file, int line, enum pld__op op, int from, int to, int rc,
                  const struct pld__cost *c);

#endif

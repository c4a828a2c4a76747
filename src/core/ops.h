/* ops.h: the operation table.  Every primitive the trace can show has one
 * entry: its name in traces, its C API name (as error messages give it),
 * its kind, which decides its lane in the trace writers and the summary,
 * and the cost function that prices it.
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

/* X(id, trace name, API name, kind, price): `price` is the cost.c function
 * that prices the op, without its pld__ prefix (cost.c's opening table
 * gives each formula), or none: so that one grep for an op (REMOTE_LOAD)
 * lands on the one row that says everything about it. */
#define PLD__OP_LIST(X)                                                                            \
    X(LOAD, "load", "pl_load", KERNEL, charge_gm)                                                  \
    X(STORE, "store", "pl_store", KERNEL, price_store)                                             \
    X(STORE_ADD, "store_add", "pl_store", KERNEL, price_store)                                     \
    X(READ, "read", "pl_read", KERNEL, charge_gm)                                                  \
    X(WRITE, "write", "pl_write", KERNEL, charge_gm)                                               \
    X(ADD, "add", "pl_add", KERNEL, charge_vector)                                                 \
    X(MUL, "mul", "pl_mul", KERNEL, charge_vector)                                                 \
    X(MAX, "max", "pl_max", KERNEL, charge_vector)                                                 \
    X(MIN, "min", "pl_min", KERNEL, charge_vector)                                                 \
    X(SUB, "sub", "pl_sub", KERNEL, charge_vector)                                                 \
    X(ADDS, "adds", "pl_adds", KERNEL, charge_vector)                                              \
    X(MULS, "muls", "pl_muls", KERNEL, charge_vector)                                              \
    X(MAXS, "maxs", "pl_maxs", KERNEL, charge_vector)                                              \
    X(MINS, "mins", "pl_mins", KERNEL, charge_vector)                                              \
    X(SUBS, "subs", "pl_subs", KERNEL, charge_vector)                                              \
    X(CAST, "cast", "pl_cast", KERNEL, charge_vector)                                              \
    X(LAUNCH, "launch", "pl_incore", KERNEL, charge_launch)                                        \
    X(MATMUL, "matmul", "pl_matmul", KERNEL, charge_cube)                                          \
    X(CUBE_MOVE, "move", "pl_move", KERNEL, charge_cube)                                           \
    X(REMOTE_LOAD, "remote_load", "pld_tile_remote_load", DATA, price_transfer)                    \
    X(REMOTE_STORE, "remote_store", "pld_tile_remote_store", DATA, price_transfer)                 \
    X(REMOTE_STORE_ADD, "remote_store_add", "pld_tile_remote_store", DATA, price_transfer)         \
    X(PUT, "put", "pld_tensor_put", DATA, price_staged)                                            \
    X(PUT_ADD, "put_add", "pld_tensor_put", DATA, price_staged)                                    \
    X(GET, "get", "pld_tensor_get", DATA, price_staged)                                            \
    X(PUT_ASYNC, "put_async", "pld_tensor_put_async", DATA, price_async)                           \
    X(WAIT_ASYNC, "wait_async", "pld_system_wait_async_event", WAIT, charge_poll)                  \
    X(NOTIFY_SET, "notify_set", "pld_system_notify", SIGNAL, price_notify)                         \
    X(NOTIFY_ADD, "notify_add", "pld_system_notify", SIGNAL, price_notify)                         \
    X(WAIT_EQ, "wait_eq", "pld_system_wait", WAIT, charge_poll)                                    \
    X(WAIT_GE, "wait_ge", "pld_system_wait", WAIT, charge_poll)                                    \
    X(DEFER_WAIT, "defer_wait", "pld_system_defer_wait", SIGNAL, none)                             \
    X(DISPATCH, "dispatch", "pld_dispatch", DISPATCH, charge_dispatch)

enum pld__op {
#define PLD__OP_ENUM(id, trace, api, kind, price) PLD__OP_##id,
    PLD__OP_LIST(PLD__OP_ENUM)
#undef PLD__OP_ENUM
        PLD__NOPS
};

struct pld__op_info {
    const char *trace; /* as the trace writes it */
    const char *api;   /* as error messages name it */
    enum pld__kind kind;
    const char *price; /* the cost.c function that prices it, or "none" */
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

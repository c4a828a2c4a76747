/* mpi_calls.h: the MPI functions the mpi backend calls, reached through
 * pointers that pld_mpi_bind() looks up in the MPI library itself.
 *
 * Why not plain calls: libsimgrid, which every pldsim program loads, defines
 * its own MPI_* (SMPI), and the dynamic linker binds a module's undefined
 * symbols to the first definition in the global scope, libsimgrid's.  The
 * backend is a module (pld_mpi.so, loaded only for --backend mpi) so that
 * other runs do not pay for loading MPI; dlsym on the module's own handle
 * searches the module and then its dependencies, where libmpi comes first.
 * Included by mpi.c after <mpi.h>; each call below goes through the table. */
#ifndef PLD_MPI_CALLS_H
#define PLD_MPI_CALLS_H

#include <mpi.h>

#define PLD_MPI_CALLS(X)                                                                           \
    X(Abort)                                                                                       \
    X(Accumulate)                                                                                  \
    X(Allgather)                                                                                   \
    X(Allreduce)                                                                                   \
    X(Barrier)                                                                                     \
    X(Bcast)                                                                                       \
    X(Comm_free)                                                                                   \
    X(Comm_rank)                                                                                   \
    X(Comm_size)                                                                                   \
    X(Comm_split_type)                                                                             \
    X(Compare_and_swap)                                                                            \
    X(Fetch_and_op)                                                                                \
    X(Finalize)                                                                                    \
    X(Finalized)                                                                                   \
    X(Gather)                                                                                      \
    X(Get)                                                                                         \
    X(Init_thread)                                                                                 \
    X(Initialized)                                                                                 \
    X(Iprobe)                                                                                      \
    X(Put)                                                                                         \
    X(Type_commit)                                                                                 \
    X(Type_contiguous)                                                                             \
    X(Type_create_subarray)                                                                        \
    X(Type_free)                                                                                   \
    X(Win_allocate)                                                                                \
    X(Win_allocate_shared)                                                                         \
    X(Win_flush)                                                                                   \
    X(Win_free)                                                                                    \
    X(Win_lock_all)                                                                                \
    X(Win_shared_query)                                                                            \
    X(Win_sync)                                                                                    \
    X(Win_unlock_all)                                                                              \
    X(Wtime)

#define PLD_MPI_FIELD(name) __typeof__(MPI_##name) *name;
extern struct pld_mpi_calls {
    PLD_MPI_CALLS(PLD_MPI_FIELD)
} pld_mpi_fn;
#undef PLD_MPI_FIELD

#define MPI_Abort                (*pld_mpi_fn.Abort)
#define MPI_Accumulate           (*pld_mpi_fn.Accumulate)
#define MPI_Allgather            (*pld_mpi_fn.Allgather)
#define MPI_Allreduce            (*pld_mpi_fn.Allreduce)
#define MPI_Barrier              (*pld_mpi_fn.Barrier)
#define MPI_Bcast                (*pld_mpi_fn.Bcast)
#define MPI_Comm_free            (*pld_mpi_fn.Comm_free)
#define MPI_Comm_rank            (*pld_mpi_fn.Comm_rank)
#define MPI_Comm_size            (*pld_mpi_fn.Comm_size)
#define MPI_Comm_split_type      (*pld_mpi_fn.Comm_split_type)
#define MPI_Compare_and_swap     (*pld_mpi_fn.Compare_and_swap)
#define MPI_Fetch_and_op         (*pld_mpi_fn.Fetch_and_op)
#define MPI_Finalize             (*pld_mpi_fn.Finalize)
#define MPI_Finalized            (*pld_mpi_fn.Finalized)
#define MPI_Gather               (*pld_mpi_fn.Gather)
#define MPI_Get                  (*pld_mpi_fn.Get)
#define MPI_Init_thread          (*pld_mpi_fn.Init_thread)
#define MPI_Initialized          (*pld_mpi_fn.Initialized)
#define MPI_Iprobe               (*pld_mpi_fn.Iprobe)
#define MPI_Put                  (*pld_mpi_fn.Put)
#define MPI_Type_commit          (*pld_mpi_fn.Type_commit)
#define MPI_Type_contiguous      (*pld_mpi_fn.Type_contiguous)
#define MPI_Type_create_subarray (*pld_mpi_fn.Type_create_subarray)
#define MPI_Type_free            (*pld_mpi_fn.Type_free)
#define MPI_Win_allocate         (*pld_mpi_fn.Win_allocate)
#define MPI_Win_allocate_shared  (*pld_mpi_fn.Win_allocate_shared)
#define MPI_Win_flush            (*pld_mpi_fn.Win_flush)
#define MPI_Win_free             (*pld_mpi_fn.Win_free)
#define MPI_Win_lock_all         (*pld_mpi_fn.Win_lock_all)
#define MPI_Win_shared_query     (*pld_mpi_fn.Win_shared_query)
#define MPI_Win_sync             (*pld_mpi_fn.Win_sync)
#define MPI_Win_unlock_all       (*pld_mpi_fn.Win_unlock_all)
#define MPI_Wtime                (*pld_mpi_fn.Wtime)

#endif

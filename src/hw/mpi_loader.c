/* mpi_loader.c: finds and loads the mpi backend module (pld_mpi.so) the
 * first time a run asks for --backend mpi.
 *
 * Why a module: linking libmpi into libpld made every run, simulator
 * included, load Open MPI and its dozen libraries at start-up (about 11 ms
 * of a 45 ms tutorial run).  Where to look, in order: $PLD_MPI_MODULE; next
 * to libpld itself (the build tree's .libs); libpld's directory + /pldsim
 * (an installed tree moved elsewhere); the configured pkglibdir. */
#include "../core/internal.h"
#include "../backend/backend.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef PLD_MODULE_DIR
#define PLD_MODULE_DIR "/usr/local/lib/pldsim"
#endif

static void *try_open(const char *path, char *why, size_t len)
{
    /* RTLD_GLOBAL: Open MPI's own plugins expect libmpi's symbols there */
    void *h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    if (!h && why[0] == '\0') {
        const char *e = dlerror();
        snprintf(why, len, "%s", e ? e : path);
    }
    return h;
}

const struct pld_backend *pld__mpi_backend(char *why, size_t len)
{
    static const struct pld_backend *be;
    void *handle = NULL;
    if (be)
        return be;
    why[0] = '\0';
    const char *env = getenv("PLD_MPI_MODULE");
    if (env && *env) {
        handle = try_open(env, why, len);
    } else {
        char path[4096], dir[4096] = "";
        Dl_info info;
        if (dladdr((void *)pld__mpi_backend, &info) && info.dli_fname) {
            snprintf(dir, sizeof dir, "%s", info.dli_fname);
            char *slash = strrchr(dir, '/');
            if (slash)
                *slash = '\0';
            else
                dir[0] = '\0';
        }
        const char *const tries[] = {"%s/pld_mpi.so", "%s/pldsim/pld_mpi.so"};
        for (size_t i = 0; !handle && dir[0] && i < sizeof tries / sizeof tries[0]; i++) {
            snprintf(path, sizeof path, tries[i], dir);
            if (access(path, R_OK) == 0)
                handle = try_open(path, why, len);
        }
        if (!handle)
            handle = try_open(PLD_MODULE_DIR "/pld_mpi.so", why, len);
    }
    if (!handle)
        return NULL;
    int (*bind)(void *, char *, size_t) =
        (int (*)(void *, char *, size_t))dlsym(handle, "pld_mpi_bind");
    const struct pld_backend *b = dlsym(handle, "pld_backend_mpi");
    if (!bind || !b) {
        snprintf(why, len, "the module has no pld_mpi_bind/pld_backend_mpi");
        return NULL;
    }
    /* a module built against another libpld has another contract: calling
     * through its table would jump to the wrong hooks */
    if (b->size != sizeof(struct pld_backend)) {
        snprintf(why, len,
                 "the module was built for another libpld (its backend table is %zu bytes, "
                 "this libpld's %zu); rebuild pldsim",
                 b->size, sizeof(struct pld_backend));
        return NULL;
    }
    if (bind(handle, why, len) != 0)
        return NULL;
    return be = b;
}

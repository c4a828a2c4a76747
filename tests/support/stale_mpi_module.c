/* stale_mpi_module.c: a pld_mpi.so as a libpld with another backend table
 * would have built it (a smaller table), for check_backends: loading it
 * must be refused with one message, never called through. */
#include <stddef.h>

struct older_backend {
    const char *name;
    size_t size;
};

const struct older_backend pld_backend_mpi = {"mpi", sizeof(struct older_backend)};

int pld_mpi_bind(void *handle, char *why, size_t len)
{
    (void)handle, (void)why, (void)len;
    return 0;
}

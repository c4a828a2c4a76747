/* device.c: the device model's keys, generated from PLD__DEVICE_KEYS
 * (internal.h): a leaf, which model.c's parser builds on (the defaults,
 * read from the a2a3 model, are model.c's).  The keys are one list so that a new
 * device property is one line there: the struct, this parser, the platform
 * writer and the <prop> reader cannot disagree on its name or its unit. */
#include "model.h"

#include <stddef.h>
#include <string.h>

const char *const pld__device_keys[] = {
#define PLD__DEVICE_NAME(key, unit) #key,
    PLD__DEVICE_KEYS(PLD__DEVICE_NAME)
#undef PLD__DEVICE_NAME
        NULL};

static const struct {
    size_t offset;
    int (*parse)(const char *, double *);
} fields[] = {
#define PLD__DEVICE_SLOT(key, unit) {offsetof(struct pld__device, key), pld__parse_##unit},
    PLD__DEVICE_KEYS(PLD__DEVICE_SLOT)
#undef PLD__DEVICE_SLOT
};

double pld__device_get(const struct pld__device *d, int k)
{
    return *(const double *)(const void *)((const char *)d + fields[k].offset);
}

int pld__device_set(struct pld__device *d, const char *key, const char *value)
{
    for (int k = 0; pld__device_keys[k]; k++)
        if (strcmp(key, pld__device_keys[k]) == 0)
            return fields[k].parse(value, (double *)(void *)((char *)d + fields[k].offset)) == 0
                       ? 1
                       : -1;
    return 0;
}

/* What a value of each unit looks like, for the messages. */
static const char *const forms_size = "a size such as 192KiB";
static const char *const forms_bandwidth = "a bandwidth such as 1.6TBps (0, or at least 1Bps)";
static const char *const forms_time = "a time such as 500ns (at most 1e6 s)";
static const char *const forms_rate =
    "a number, with an optional k, M, G or T (0, or from 1 to 1e21)";
static const char *const forms_factor = "a factor from 1e-6 to 1e6, such as 2.5";
static const char *const forms_count = "a whole number from 1 to 65536";
static const char *const forms_trust = "checked, fitted, spec or guess";

const char *pld__device_key_form(const char *key)
{
#define PLD__DEVICE_FORM(k, unit)                                                                  \
    if (strcmp(key, #k) == 0)                                                                      \
        return forms_##unit;
    PLD__DEVICE_KEYS(PLD__DEVICE_FORM)
#undef PLD__DEVICE_FORM
    return NULL;
}

int pld__device_usable(const struct pld__device *d)
{
    return d->hbm_bw > 0 && d->vector_rate > 0 && d->speed_factor > 0 &&
           d->ub_usable_bytes <= d->ub_bytes && d->aiv_cores >= 1 && d->sdma_engines >= 1 &&
           d->aic_cores >= 1;
}

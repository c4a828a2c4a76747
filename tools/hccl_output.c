/* hccl_output.c: what pldsim-hccl-test prints: hccl_test's opening line and
 * its table, in the widths its print_execution_time uses (CANN oam-tools'
 * src/hccl_test, hccl_opbase_rootinfo_base), on stdout; pldsim's notes on
 * stderr, so that a parser of hccl_test's logs reads stdout unchanged. */
#include "hccl.h"

#include <string.h>

/* 10^6 / 10^9: bytes per microsecond to GB/s, hccl_test's B_US_TO_GB_S. */
static const double b_per_us_to_gb_per_s = 1e6 / 1e9;

void hccl_print_opening(const pld_config *cfg)
{
    fprintf(stderr,
            "%s: %d ranks on the %s backend%s%s; aveg_time is %s rank 0's time per call "
            "(hccl_test's stream events)\n",
            H.prog_name, S.P, cfg->backend, cfg->topology ? ", topology " : "",
            cfg->topology ? cfg->topology : "",
            strcmp(cfg->backend, "sim") == 0 ? "simulated:" : "measured:");
}

int hccl_print_results(void)
{
    int failed = 0;
    printf("the minbytes is %lld, maxbytes is %lld, iters is %d, warmup_iters is %d\n",
           (long long)H.minb, (long long)H.maxb, S.iters, S.warmup);
    for (int k = 0; k < S.nsteps; k++) {
        /* as hccl_test: the -o warning at every size, the overflow one once */
        if (H.op_ignored)
            printf("Warning: The -o,--op <sum/prod/min/max> option does not take effect. Check "
                   "the cmd parameter.\n");
        if (H.overflow && k == 0)
            printf("Warning: The calculation result overflows, No verification is performed.\n");
        const struct step *st = &S.steps[k];
        double us = *perf_rank_time(k, S.one_half - 1, 0) * 1e6;
        double bw = us > 0 ? (double)st->size / us * b_per_us_to_gb_per_s : 0;
        long wrong = S.wrong[k * 2 + S.one_half - 1];
        const char *result = S.check_iters == 0 ? "NULL" : wrong ? "failed" : "success";
        failed |= wrong != 0;
        if (k == 0)
            printf("%-15s | %-12s | %-18s | %s\n",
                   "data_size(Bytes):", "aveg_time(us):", "alg_bandwidth(GB/s):", "check_result:");
        printf("%-17lld | %-14.2f | %-20.5f | %s\n", (long long)H.data_size[k], us, bw, result);
    }
    fflush(stdout);
    if (failed)
        fprintf(stderr, "%s: a check failed: the results differ from what the inputs give\n",
                H.prog_name);
    return failed;
}

/* cli/block.c: cgsolve with several right-hand sides (block CG): the columns'
 * aggregate, the summary's line per column, the JSON report's "block" */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <string.h>

#include "cli/cgsolve.h"

void cgsolve_block_aggregate(int nrhs, const mpcg_info *infos, mpcg_info *all)
{
    *all = infos[0];
    all->converged = 1;
    for (int j = 0; j < nrhs; j++) {
        const mpcg_info *c = &infos[j];
        /* converged: the reason of the column that took the most iterations (RTOL or ATOL) */
        if (all->converged && c->iterations > all->iterations) all->reason = c->reason;
        if (!c->converged && all->converged) all->converged = 0, all->reason = c->reason;
        if (c->iterations > all->iterations) all->iterations = c->iterations;
        if (c->true_relres > all->true_relres) all->true_relres = c->true_relres;
        if (c->recurrence_relres > all->recurrence_relres)
            all->recurrence_relres = c->recurrence_relres;
    }
    all->residual_replacements = 0;
    for (int j = 0; j < nrhs; j++) all->residual_replacements += infos[j].residual_replacements;
}

void cgsolve_print_columns(const options *o, int nrhs, const mpcg_info *infos)
{
    FILE *f = cgsolve_human_stream(o);
    fprintf(f, "block       %d right-hand sides, block.method=%s: %lld block products (SpMM), "
               "the largest over the columns above\n",
            nrhs, infos[0].variant, (long long)infos[0].spmvs);
    for (int j = 0; j < nrhs; j++)
        fprintf(f, "column %-4d %s (%s), %lld iterations, true %.6e, recurrence %.6e\n", j,
                infos[j].converged ? "converged" : "NOT converged",
                mpcg_reason_string(infos[j].reason), (long long)infos[j].iterations,
                infos[j].true_relres, infos[j].recurrence_relres);
}

void cgsolve_json_block(FILE *f, int nrhs, const mpcg_info *infos)
{
    fprintf(f, "  \"block\": {\"nrhs\": %d, \"method\": ", nrhs);
    cgsolve_json_str(f, infos[0].variant);
    fprintf(f, ", \"block_products\": %lld, \"columns\": [", (long long)infos[0].spmvs);
    for (int j = 0; j < nrhs; j++) {
        fprintf(f, "%s\n    {\"converged\": %s, \"reason\": ", j ? "," : "",
                infos[j].converged ? "true" : "false");
        cgsolve_json_str(f, mpcg_reason_name(infos[j].reason));
        fprintf(f, ", \"iterations\": %lld, \"true_relres\": ", (long long)infos[j].iterations);
        cgsolve_json_num(f, infos[j].true_relres);
        fprintf(f, ", \"recurrence_relres\": ");
        cgsolve_json_num(f, infos[j].recurrence_relres);
        fprintf(f, ", \"residual_replacements\": %lld}", (long long)infos[j].residual_replacements);
    }
    fprintf(f, "]},\n");
}

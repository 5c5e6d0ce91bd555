/* cli/choice.c: how the SpMV backend was chosen, in cgsolve's -v lines and JSON report,
 * and the directory of auto's cache */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cgsolve.h"

void cgsolve_cache_dir(const options *o, char *buf, size_t size)
{
    /* the XDG base directory rule: XDG_CACHE_HOME if it is an absolute path, else ~/.cache */
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int len = 0;
    if (o->cache_dir)
        len = snprintf(buf, size, "%s", o->cache_dir);
    else if (xdg && xdg[0] == '/')
        len = snprintf(buf, size, "%s/mpcg", xdg);
    else if (home && home[0])
        len = snprintf(buf, size, "%s/.cache/mpcg", home);
    else
        buf[0] = '\0';
    if (len < 0 || (size_t)len >= size) buf[0] = '\0'; /* too long for a path: no cache */
}

static int chosen_here(const mpcg_backend_choice *c, const mpcg_backend_candidate *k)
{
    return !k->skipped && strcmp(k->backend, c->chosen) == 0;
}

void cgsolve_print_choice(FILE *f, const mpcg_backend_choice *c)
{
    const int automatic = !strcmp(c->source, "trial") || !strcmp(c->source, "cache");
    if (!automatic) {
        fprintf(f, "backend     %s: %s\n", c->chosen,
                strcmp(c->source, "cpu") == 0 ? "auto on the CPU, no trial" : "named (--spmv)");
        return;
    }
    int timed = 0;
    for (int i = 0; i < c->ncandidates; i++)
        timed += !c->candidates[i].skipped;
    fprintf(f,
            "backend     %s: auto, %s: %d of %d backends timed (expected %.0f SpMVs; %.4g s "
            "beyond its setup = %.0f SpMVs of %s, %.4g s of it host-to-device copies)\n",
            c->chosen, strcmp(c->source, "trial") == 0 ? "trial" : "cached trial", timed,
            c->ncandidates, c->expected_spmvs, c->trial_s, c->trial_cost_spmv_equivalents,
            c->chosen, c->trial_h2d_s);
    if (c->timed_dot)
        fprintf(f, "            SpMV: with the dot fused (y = A x and x.y), as the iteration "
                "runs it, where a backend has it\n");
    if (c->copy_s > 0)
        fprintf(f, "            candidates built from one device copy of the matrix (%.4g ms)\n",
                1e3 * c->copy_s);
    if (c->note[0]) fprintf(f, "            cache: %s\n", c->note);
    for (int i = 0; i < c->ncandidates; i++) {
        const mpcg_backend_candidate *k = &c->candidates[i];
        if (k->skipped)
            fprintf(f, "            %-12s skipped: %s\n", k->backend, k->reason);
        else
            fprintf(
                f, "            %-12s setup %.4g ms (H2D %.4g ms), SpMV %.4g ms, score %.4g ms%s\n",
                k->backend, 1e3 * k->setup_s, 1e3 * k->setup_h2d_s, 1e3 * k->spmv_s,
                1e3 * k->score_s, chosen_here(c, k) ? "  <- chosen" : "");
    }
}

/* A number of the trial, or null where the choice had none (a named backend, the CPU). */
static void trial_num(FILE *f, const char *key, double v, int automatic)
{
    fprintf(f, ", \"%s\": ", key);
    if (automatic)
        cgsolve_json_num(f, v);
    else
        fputs("null", f);
}

void cgsolve_json_choice(FILE *f, const mpcg_backend_choice *c)
{
    const int automatic = !strcmp(c->source, "trial") || !strcmp(c->source, "cache");
    fprintf(f, "{\"chosen\": ");
    cgsolve_json_str(f, c->chosen);
    fprintf(f, ", \"source\": ");
    cgsolve_json_str(f, c->source);
    trial_num(f, "expected_spmvs", c->expected_spmvs, automatic);
    trial_num(f, "trial_s", c->trial_s, automatic);
    trial_num(f, "trial_h2d_s", c->trial_h2d_s, automatic);
    trial_num(f, "hash_s", c->hash_s, automatic);
    trial_num(f, "copy_s", c->copy_s, automatic);
    fprintf(f, ", \"timed_dot\": %s", c->timed_dot ? "true" : "false");
    trial_num(f, "trial_cost_spmv_equivalents", c->trial_cost_spmv_equivalents, automatic);
    fprintf(f, ", \"cache\": ");
    if (c->note[0])
        cgsolve_json_str(f, c->note);
    else
        fputs("null", f);
    fprintf(f, ",\n               \"candidates\": [");
    for (int i = 0; i < c->ncandidates; i++) {
        const mpcg_backend_candidate *k = &c->candidates[i];
        fprintf(f, "%s\n                 {\"backend\": ", i ? "," : "");
        cgsolve_json_str(f, k->backend);
        fprintf(f, ", \"skipped\": %s, \"reason\": ", k->skipped ? "true" : "false");
        if (k->skipped)
            cgsolve_json_str(f, k->reason);
        else
            fputs("null", f);
        trial_num(f, "setup_s", k->setup_s, !k->skipped || k->setup_s > 0);
        trial_num(f, "setup_h2d_s", k->setup_h2d_s, !k->skipped || k->setup_s > 0);
        trial_num(f, "spmv_s", k->spmv_s, !k->skipped);
        trial_num(f, "score_s", k->score_s, !k->skipped);
        fprintf(f, ", \"chosen\": %s}", chosen_here(c, k) ? "true" : "false");
    }
    fprintf(f, "]}");
}

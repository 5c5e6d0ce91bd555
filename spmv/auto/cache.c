/* spmv/auto/cache.c: auto's decisions on disk: the fingerprint, the record's text, load and store
 */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/cache.h"
#include "core/context.h"
#include "core/csr_view.h"
#include "core/error.h"
#include "spmv/auto/auto.h"

#define MAGIC "mpcg-auto-cache 1\n"
#define RECORD_BYTES 8192

/* The options set on the solver, auto.cache aside (it says whether to look, not what to find). */
static uint64_t options_hash(const mpcgi_options *o)
{
    uint64_t h = MPCGI_HASH_SEED;
    const mpcgi_option_key *cache = &mpcgi_auto_options.keys[MPCGI_OPT_AUTO_CACHE];
    for (int i = 0; o && i < o->count; i++) {
        if (o->set[i].k == cache) continue;
        h = mpcgi_hash_str(h, o->set[i].k->key);
        h = mpcgi_hash_bytes(h, &o->set[i].v, sizeof o->set[i].v);
    }
    return h;
}

/* A's pattern hash (mpcgi_csr_pattern_hash); a device view's as mpcgi_auto_key_make says. */
static mpcg_status pattern_hash(mpcg_context *ctx, mpcgi_csr *A, int full, uint64_t *h)
{
    if (A->dev && full) MPCG_CHECK(ctx, mpcgi_view_mirror(ctx, A, MPCGI_MIRROR_FULL));
    if (!A->dev || A->mirror >= MPCGI_MIRROR_FULL) {
        *h = mpcgi_csr_pattern_hash(A, full);
        return MPCG_SUCCESS;
    }
    mpcgi_pattern_sample s[MPCGI_SAMPLE_ROWS];
    MPCG_CHECK(ctx, mpcgi_view_pattern_samples(ctx, A, s));
    *h = mpcgi_pattern_hash_samples(A->n, A->nnz, s);
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_auto_key_make(mpcg_context *ctx, mpcgi_csr *A, const mpcgi_auto_request *req,
                                mpcgi_auto_key *key)
{
    const int full =
        mpcgi_options_get(req->opts, &mpcgi_auto_options.keys[MPCGI_OPT_AUTO_FINGERPRINT]) ==
        MPCGI_AUTO_FULL;
    uint64_t hash;
    MPCG_CHECK(ctx, pattern_hash(ctx, A, full, &hash));
    snprintf(key->text, sizeof key->text,
             MAGIC "mpcg %d.%d.%d\ndevice %s\nn %lld\nnnz %lld\npattern %s %016llx\n"
                   "precision %s\nblock %d\nrows %d\ndot %d\noptions %016llx\n",
             MPCG_VERSION_MAJOR, MPCG_VERSION_MINOR, MPCG_VERSION_PATCH,
             ctx->device_model[0] ? ctx->device_model : "cpu", (long long)A->n, (long long)A->nnz,
             full ? "full" : "sampled", (unsigned long long)hash,
             mpcg_precision_name(req->precision), req->need_block ? 1 : 0, req->need_rows ? 1 : 0,
             req->fused_dot ? 1 : 0, (unsigned long long)options_hash(req->opts));
    snprintf(key->file, sizeof key->file, "auto-%016llx.txt",
             (unsigned long long)mpcgi_hash_str(MPCGI_HASH_SEED, key->text));
    return MPCG_SUCCESS;
}

void mpcgi_auto_record_format(const mpcgi_auto_key *key, const mpcg_backend_choice *choice,
                              char *buf, size_t size)
{
    size_t len = (size_t)snprintf(buf, size, "%schosen %s\nexpected_spmvs %.17g\n", key->text,
                                  choice->chosen, choice->expected_spmvs);
    for (int i = 0; i < choice->ncandidates && len < size; i++) {
        const mpcg_backend_candidate *c = &choice->candidates[i];
        char reason[sizeof c->reason];
        snprintf(reason, sizeof reason, "%s", c->reason[0] ? c->reason : "-");
        for (char *p = reason; *p; p++)
            if (*p == '\n' || *p == '\r') *p = ' ';
        len +=
            (size_t)snprintf(buf + len, size - len, "candidate %s %d %.9g %.9g %.9g %s\n",
                             c->backend, c->skipped, c->setup_s, c->setup_h2d_s, c->spmv_s, reason);
    }
}

/* One "candidate NAME SKIPPED SETUP_S SETUP_H2D_S SPMV_S REASON" line (line is NUL-ended). */
static int parse_candidate(const char *line, mpcg_backend_candidate *c, char *why, size_t size)
{
    char name[32];
    int skipped, at = 0;
    memset(c, 0, sizeof *c);
    if (sscanf(line, "candidate %31s %d %lf %lf %lf %n", name, &skipped, &c->setup_s,
               &c->setup_h2d_s, &c->spmv_s, &at) != 5 ||
        at == 0) {
        snprintf(why, size, "malformed candidate line \"%.60s\"", line);
        return 0;
    }
    const struct mpcgi_spmv_ops *ops = mpcgi_spmv_find(name);
    if (!ops) {
        snprintf(why, size, "unknown backend \"%s\"", name);
        return 0;
    }
    if ((skipped != 0 && skipped != 1) || !isfinite(c->setup_s) || c->setup_s < 0 ||
        !isfinite(c->setup_h2d_s) || c->setup_h2d_s < 0 || !isfinite(c->spmv_s) || c->spmv_s < 0 ||
        (!skipped && c->spmv_s <= 0)) {
        snprintf(why, size, "bad numbers for backend %s", name);
        return 0;
    }
    c->backend = ops->name;
    c->skipped = skipped;
    snprintf(c->reason, sizeof c->reason, "%s", strcmp(line + at, "-") ? line + at : "");
    return 1;
}

/* The decision lines after the key: chosen, expected_spmvs, candidates. */
static int parse_decision(const char *text, mpcg_backend_choice *d, char *why, size_t size)
{
    char line[512];
    int at_line = 0;
    for (const char *p = text; *p; at_line++) {
        size_t len = strcspn(p, "\n");
        if (len >= sizeof line || p[len] != '\n') {
            snprintf(why, size, "line %d of the decision is too long or unterminated", at_line + 1);
            return 0;
        }
        memcpy(line, p, len);
        line[len] = '\0';
        p += len + 1;
        if (at_line >= 2) {
            if (d->ncandidates == MPCG_BACKEND_CHOICE_MAX) {
                snprintf(why, size, "more than %d candidates", MPCG_BACKEND_CHOICE_MAX);
                return 0;
            }
            if (!parse_candidate(line, &d->candidates[d->ncandidates++], why, size)) return 0;
            continue;
        }
        int ok = at_line == 0 ? sscanf(line, "chosen %31s", d->chosen) == 1
                              : sscanf(line, "expected_spmvs %lf", &d->expected_spmvs) == 1 &&
                                    isfinite(d->expected_spmvs) && d->expected_spmvs >= 0;
        if (!ok) {
            snprintf(why, size, "malformed line \"%.60s\"", line);
            return 0;
        }
    }
    return 1;
}

int mpcgi_auto_record_parse(const char *text, const mpcgi_auto_key *key,
                            mpcg_backend_choice *choice, char *why, size_t size)
{
    mpcg_backend_choice d;
    const size_t klen = strlen(key->text);
    memset(&d, 0, sizeof d);
    if (strncmp(text, key->text, klen) != 0) {
        snprintf(why, size, "%s",
                 strncmp(text, MAGIC, strlen(MAGIC)) == 0 ? "a record of another fingerprint"
                                                          : "not an mpcg auto cache record");
        return 0;
    }
    if (!parse_decision(text + klen, &d, why, size)) return 0;
    const struct mpcgi_spmv_ops *ops = mpcgi_spmv_find(d.chosen);
    int timed = 0;
    for (int i = 0; ops && i < d.ncandidates; i++)
        timed |= d.candidates[i].backend == ops->name && !d.candidates[i].skipped;
    if (!timed) {
        snprintf(why, size, "the chosen backend \"%s\" is not a timed candidate", d.chosen);
        return 0;
    }
    snprintf(choice->chosen, sizeof choice->chosen, "%s", d.chosen);
    choice->expected_spmvs = d.expected_spmvs;
    choice->ncandidates = d.ncandidates;
    memcpy(choice->candidates, d.candidates, sizeof d.candidates);
    mpcgi_auto_decide(choice->candidates, choice->ncandidates, d.expected_spmvs); /* the scores */
    return 1;
}

int mpcgi_auto_cache_load(const char *dir, const mpcgi_auto_key *key, mpcg_backend_choice *choice)
{
    char text[RECORD_BYTES], why[200];
    int rc = mpcgi_cache_read(dir, key->file, text, sizeof text, why, sizeof why);
    if (rc == 0) return 0;
    if (rc > 0 && mpcgi_auto_record_parse(text, key, choice, why, sizeof why)) return 1;
    size_t len = strlen(choice->note);
    snprintf(choice->note + len, sizeof choice->note - len, "%signored %s/%s: %s", len ? "; " : "",
             dir, key->file, why);
    return 0;
}

mpcg_status mpcgi_auto_cache_store(mpcg_context *ctx, const char *dir, const mpcgi_auto_key *key,
                                   const mpcg_backend_choice *choice)
{
    char text[RECORD_BYTES];
    mpcgi_auto_record_format(key, choice, text, sizeof text);
    MPCG_CHECK(ctx, mpcgi_cache_write(ctx, dir, key->file, text));
    return MPCG_SUCCESS;
}

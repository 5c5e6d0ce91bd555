/* core/options.c: checking option values against their keys, and the store of values set */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/options.h"

static int is_pow2(long v) { return v > 0 && (v & (v - 1)) == 0; }

void mpcgi_option_range_text(const mpcgi_option_key *k, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    if (k->kind == MPCGI_OPTION_WORD) {
        for (int i = 0; k->words[i] && len < size; i++)
            len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "", k->words[i]);
        return;
    }
    snprintf(buf, size, "%s%ld .. %ld%s", k->autoable ? "auto or " : "", k->lo, k->hi,
             k->pow2 ? (k->lo == 0 ? ", 0 or a power of two" : ", a power of two") : "");
}

void mpcgi_option_default_text(const mpcgi_option_key *k, char *buf, size_t size)
{
    if (k->def == MPCGI_OPTION_AUTO) snprintf(buf, size, "auto");
    else if (k->kind == MPCGI_OPTION_WORD) snprintf(buf, size, "%s", k->words[k->def]);
    else snprintf(buf, size, "%ld", k->def);
}

mpcg_status mpcgi_option_parse(const mpcg_context *ctx, const mpcgi_option_key *k,
                               const char *value, long *out)
{
    char range[160];
    MPCG_ENSURE(ctx, value, MPCG_ERR_INVALID_ARG, "option %s: the value must not be NULL", k->key);
    mpcgi_option_range_text(k, range, sizeof range);
    if (k->kind == MPCGI_OPTION_WORD) {
        for (long i = 0; k->words[i]; i++)
            if (strcmp(value, k->words[i]) == 0) {
                *out = i;
                return MPCG_SUCCESS;
            }
        MPCG_FAIL(ctx, MPCG_ERR_INVALID_ARG, "option %s=%s: expected one of %s", k->key, value,
                  range);
    }
    if (k->autoable && strcmp(value, "auto") == 0) {
        *out = MPCGI_OPTION_AUTO;
        return MPCG_SUCCESS;
    }
    char *end;
    errno = 0;
    long v = strtol(value, &end, 10);
    int ok = *value && !isspace((unsigned char)*value) && *end == '\0' && errno == 0 &&
             v >= k->lo && v <= k->hi && (!k->pow2 || is_pow2(v) || (v == 0 && k->lo == 0));
    MPCG_ENSURE(ctx, ok, MPCG_ERR_INVALID_ARG, "option %s=%s: expected %s", k->key, value, range);
    *out = v;
    return MPCG_SUCCESS;
}

mpcg_status mpcgi_options_put(const mpcg_context *ctx, mpcgi_options *o, const mpcgi_option_key *k,
                              long v)
{
    for (int i = 0; i < o->count; i++)
        if (o->set[i].k == k) {
            o->set[i].v = v;
            return MPCG_SUCCESS;
        }
    MPCG_ENSURE(ctx, o->count < MPCGI_MAX_OPTIONS, MPCG_ERR_INVALID_ARG,
                "option %s: more than %d options set", k->key, MPCGI_MAX_OPTIONS);
    o->set[o->count].k = k;
    o->set[o->count].v = v;
    o->count++;
    return MPCG_SUCCESS;
}

int mpcgi_options_is_set(const mpcgi_options *o, const mpcgi_option_key *k)
{
    for (int i = 0; o && i < o->count; i++)
        if (o->set[i].k == k) return 1;
    return 0;
}

long mpcgi_options_get(const mpcgi_options *o, const mpcgi_option_key *k)
{
    for (int i = 0; o && i < o->count; i++)
        if (o->set[i].k == k) return o->set[i].v;
    return k->def;
}

const mpcgi_option_key *mpcgi_option_table_find(const mpcgi_option_table *t, const char *key)
{
    for (int i = 0; t && i < t->count; i++)
        if (strcmp(t->keys[i].key, key) == 0) return &t->keys[i];
    return NULL;
}

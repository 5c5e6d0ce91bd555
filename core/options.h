/* core/options.h: dotted option keys ("cg.variant", "adaptive.nt"), their checks and values */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_CORE_OPTIONS_H
#define MPCG_CORE_OPTIONS_H

#include <stddef.h>

#include "mpcg.h"

/*
 * Every tunable of the library is a key in a table that its module owns: the solver's cg.*
 * keys (solver/options.c), each backend's <name>.* keys (the `options` slot of its ops table).
 * Values are checked when they are set (mpcg_solver_set_option, cgsolve -O, MPCG_OPTIONS), so a
 * module reads them without failing: mpcgi_options_get() gives the value set, or the key's
 * default. A word key's value is the index of the word in `words`; an integer key that accepts
 * "auto" gives MPCGI_OPTION_AUTO unless a number was set (the module then applies its rule).
 */

#define MPCGI_OPTION_AUTO (-0x7fffffffL - 1)
#define MPCGI_MAX_OPTIONS 64

typedef enum mpcgi_option_kind { MPCGI_OPTION_INT, MPCGI_OPTION_WORD } mpcgi_option_kind;

typedef struct mpcgi_option_key {
    const char *key;          /* "module.name": lower-case, one dot */
    mpcgi_option_kind kind;
    long def;                 /* default: a number, a word's index, or MPCGI_OPTION_AUTO */
    long lo, hi;              /* INT: the accepted range */
    int pow2;                 /* INT: only powers of two (and 0 when lo is 0) */
    int autoable;             /* INT: "auto" is accepted (MPCGI_OPTION_AUTO) */
    const char *const *words; /* WORD: the choices, NULL-terminated */
    const char *help;         /* one line: what it does, and what auto means */
} mpcgi_option_key;

/* A module's keys: an array and its length; each module exports one. */
typedef struct mpcgi_option_table {
    const mpcgi_option_key *keys;
    int count;
} mpcgi_option_table;

/* The values set on a solver (or for a bench plan): only keys that were set are stored. */
typedef struct mpcgi_options {
    int count;
    struct {
        const mpcgi_option_key *k;
        long v;
    } set[MPCGI_MAX_OPTIONS];
} mpcgi_options;

/* Check `value` against key k: *out is the number, the word's index or MPCGI_OPTION_AUTO.
 * MPCG_ERR_INVALID_ARG naming the key and its valid values otherwise. */
mpcg_status mpcgi_option_parse(const mpcg_context *ctx, const mpcgi_option_key *k,
                               const char *value, long *out);

/* Store v for k (replacing an earlier value). MPCG_ERR_INVALID_ARG when the store is full. */
mpcg_status mpcgi_options_put(const mpcg_context *ctx, mpcgi_options *o, const mpcgi_option_key *k,
                              long v);

/* The value of k: set, or its default. o may be NULL (defaults only). */
long mpcgi_options_get(const mpcgi_options *o, const mpcgi_option_key *k);

/* 1 if k was set in o. */
int mpcgi_options_is_set(const mpcgi_options *o, const mpcgi_option_key *k);

/* The text of k's range ("auto or 1 .. 32, a power of two", "auto, uniform, split") and of its
 * default, for --help-options. */
void mpcgi_option_range_text(const mpcgi_option_key *k, char *buf, size_t size);
void mpcgi_option_default_text(const mpcgi_option_key *k, char *buf, size_t size);

/* The key named `key` in table t, or NULL. */
const mpcgi_option_key *mpcgi_option_table_find(const mpcgi_option_table *t, const char *key);

#endif /* MPCG_CORE_OPTIONS_H */

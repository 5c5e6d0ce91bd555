/* io/generate.c: test matrices from a specification such as "poisson3d:64" */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <string.h>

#include "core/context.h"
#include "core/csr.h"
#include "core/error.h"
#include "core/matrix.h"
#include "io/generate.h"
#include "io/mm_num.h"

/*
 * A generator turns the arguments after "NAME:" into a CSR matrix. To add one, write its build
 * function (io/generate_graph.c holds replicate, powerlaw and biased) and add a row to the table
 * at the end of this file; the error messages list the table's usage strings.
 */
typedef mpcg_status (*build_fn)(mpcg_context *ctx, const char *spec, const char *args,
                                const void *param, mpcgi_csr *out);

typedef struct generator {
    const char *name;  /* the spec up to the first ':' */
    const char *usage; /* e.g. "poisson2d:N" */
    build_fn build;
    const void *param; /* passed to build */
} generator;

static const generator *generators(int *count);

/* "poisson2d:N, poisson3d:N, ..." for messages. */
static const char *known_list(char *buf, size_t size)
{
    int count, len = 0;
    const generator *g = generators(&count);
    buf[0] = '\0';
    for (int k = 0; k < count && len >= 0 && (size_t)len < size; k++)
        len += snprintf(buf + len, size - (size_t)len, "%s%s", k ? ", " : "", g[k].usage);
    return buf;
}

/* An argument that must be a decimal integer in [1, INT64_MAX]. */
static mpcg_status parse_count(const mpcg_context *ctx, const char *spec, const char *arg,
                               const char *what, int64_t *out)
{
    char known[256];
    int rc = mpcgi_parse_i64(arg, arg + strlen(arg), out);
    MPCG_ENSURE(ctx, rc == MPCGI_NUM_OK && *out >= 1, MPCG_ERR_INVALID_ARG,
                "malformed matrix spec '%s': %s must be an integer >= 1 (known generators: %s)",
                spec, what, known_list(known, sizeof known));
    return MPCG_SUCCESS;
}

/* ---------------------------------------------------------------- stencils on an N^d grid */

typedef struct stencil {
    int dims; /* 2 or 3 */
    int full; /* 1: all 3^d - 1 neighbours (27-point); 0: the 2d axis neighbours */
} stencil;

/*
 * The finite-difference Laplacian with Dirichlet boundaries: row i = x + N y + N^2 z has the
 * diagonal (number of stencil points - 1: 4, 6 or 26) and -1 for each neighbour inside the grid,
 * so interior rows sum to 0 and boundary rows to a positive number; the matrix is SPD.
 * Offsets enumerated in (dz, dy, dx) lexicographic order give increasing columns, so each row
 * is written sorted, in O(nnz) and in parallel over rows.
 */
static mpcg_status build_stencil(mpcg_context *ctx, const char *spec, const char *args,
                                 const void *param, mpcgi_csr *out)
{
    const stencil *s = param;
    int64_t N, n = 1, nnz = 0;
    MPCG_CHECK(ctx, parse_count(ctx, spec, args, "N", &N));
    for (int d = 0; d < s->dims; d++) {
        MPCG_ENSURE(ctx, N <= MPCGI_MAX_N / n, MPCG_ERR_INVALID_ARG,
                    "matrix spec '%s': n = N^%d exceeds the largest supported size %d", spec,
                    s->dims, MPCGI_MAX_N);
        n *= N;
    }
    int off[27][3], count = 0, center = 0;
    for (int dz = s->dims == 3 ? -1 : 0; dz <= (s->dims == 3 ? 1 : 0); dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                if (!s->full && (dx != 0) + (dy != 0) + (dz != 0) > 1) continue;
                if (!dx && !dy && !dz) center = count;
                off[count][0] = dx, off[count][1] = dy, off[count][2] = dz;
                /* grid points whose neighbour at this offset exists */
                nnz += (N - (dx != 0)) * (N - (dy != 0)) * (s->dims == 3 ? N - (dz != 0) : 1);
                count++;
            }
    const int64_t nz = s->dims == 3 ? N : 1, N2 = N * N;
    const double diag = count - 1;
    mpcgi_csr A;
    MPCG_CHECK(ctx, mpcgi_csr_alloc(ctx, n, nnz, &A));
    A.row_ptr[0] = 0;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) {
        int64_t x = i % N, y = (i / N) % N, z = i / N2;
        int64_t cx = 1 + (x > 0) + (x < N - 1), cy = 1 + (y > 0) + (y < N - 1);
        int64_t cz = 1 + (z > 0) + (z < nz - 1);
        A.row_ptr[i + 1] = s->full ? cx * cy * cz : cx + cy + cz - 2;
    }
    for (int64_t i = 0; i < n; i++)
        A.row_ptr[i + 1] += A.row_ptr[i];
    MPCG_ASSERT(A.row_ptr[n] == nnz);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) {
        int64_t x = i % N, y = (i / N) % N, z = i / N2, k = A.row_ptr[i];
        for (int t = 0; t < count; t++) {
            int64_t xx = x + off[t][0], yy = y + off[t][1], zz = z + off[t][2];
            if (xx < 0 || xx >= N || yy < 0 || yy >= N || zz < 0 || zz >= nz) continue;
            A.col_idx[k] = (int32_t)(xx + N * yy + N2 * zz);
            A.val[k] = t == center ? diag : -1.0;
            k++;
        }
    }
    *out = A;
    return MPCG_SUCCESS;
}

static const stencil five_point = {2, 0}, seven_point = {3, 0}, twenty_seven_point = {3, 1};

/* ---------------------------------------------------------------- the table */

static const generator *generators(int *count)
{
    static const generator table[] = {
        {"poisson2d", "poisson2d:N", build_stencil, &five_point},
        {"poisson3d", "poisson3d:N", build_stencil, &seven_point},
        {"poisson3d27", "poisson3d27:N", build_stencil, &twenty_seven_point},
        {"replicate", "replicate:FILE:K[:perm]", mpcgi_gen_replicate, NULL},
        {"powerlaw", "powerlaw:N:DEG", mpcgi_gen_powerlaw, NULL},
        {"biased", "biased:N", mpcgi_gen_biased, NULL},
    };
    *count = (int)(sizeof table / sizeof table[0]);
    return table;
}

mpcg_status mpcg_matrix_generate(mpcg_context *ctx, const char *spec, mpcg_matrix **out)
{
    char known[256];
    int count;
    const generator *g = generators(&count);
    MPCG_ENSURE(NULL, mpcgi_context_valid(ctx), MPCG_ERR_INVALID_ARG, "invalid context");
    MPCG_ENSURE(ctx, out, MPCG_ERR_INVALID_ARG, "out must not be NULL");
    *out = NULL;
    MPCG_ENSURE(ctx, spec, MPCG_ERR_INVALID_ARG, "spec must not be NULL (known generators: %s)",
                known_list(known, sizeof known));
    const char *colon = strchr(spec, ':');
    size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
    int k = 0;
    while (k < count && !(strlen(g[k].name) == len && memcmp(g[k].name, spec, len) == 0))
        k++;
    MPCG_ENSURE(ctx, k < count, MPCG_ERR_INVALID_ARG,
                "unknown matrix generator in spec '%s' (known generators: %s)", spec,
                known_list(known, sizeof known));
    MPCG_ENSURE(ctx, colon, MPCG_ERR_INVALID_ARG,
                "malformed matrix spec '%s': expected %s (known generators: %s)", spec, g[k].usage,
                known_list(known, sizeof known));
    mpcgi_csr A;
    MPCG_CHECK(ctx, g[k].build(ctx, spec, colon + 1, g[k].param, &A));
    MPCG_CHECK(ctx, mpcgi_matrix_wrap(ctx, &A, spec, out));
    return MPCG_SUCCESS;
}

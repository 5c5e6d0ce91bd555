/* test/test_cache.c: the pattern hash (stability, sensitivity, thread count, cost) and the cache
 * directory's files (round trip, missing, unreadable, atomic replacement, failures) */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/cache.h"
#include "core/matrix.h"
#include "core/timer.h"
#include "testutil.h"

static mpcg_context *ctx;

/* One word changed, a tail byte changed, a length changed: each a different hash. */
static void test_hash_bytes(void)
{
    uint64_t w[4] = {1, 2, 3, 4}, v[4] = {1, 2, 3, 4};
    const uint64_t h0 = mpcgi_hash_bytes(MPCGI_HASH_SEED, w, sizeof w);

    v[2] ^= 1ull << 40;

    CHECK(mpcgi_hash_bytes(MPCGI_HASH_SEED, w, sizeof w) == h0);
    CHECK(mpcgi_hash_bytes(MPCGI_HASH_SEED, v, sizeof v) != h0);
    CHECK(mpcgi_hash_str(MPCGI_HASH_SEED, "abc") != mpcgi_hash_str(MPCGI_HASH_SEED, "abd"));
    CHECK(mpcgi_hash_bytes(MPCGI_HASH_SEED, "ab", 2) !=
          mpcgi_hash_bytes(MPCGI_HASH_SEED, "ab\0", 3));
    CHECK(mpcgi_hash_bytes(MPCGI_HASH_SEED, "", 0) == MPCGI_HASH_SEED);
}

/* The same pattern hashes the same (another copy, new values); a changed column or row length
 * does not; full and sampled are both stable. */
static void test_pattern_hash(void)
{
    mpcgi_rng g;
    mpcgi_csr A, B;
    mpcgi_rng_seed(&g, test_seed);
    memset(&B, 0, sizeof B);
    CHECK(test_random_csr(&g, 5000, 6, 0, &A) == 0);
    CHECK_OK(ctx, mpcgi_csr_from_user(ctx, A.n, A.row_ptr, A.col_idx, A.val, &B));
    const uint64_t full = mpcgi_csr_pattern_hash(&A, 1), sampled = mpcgi_csr_pattern_hash(&A, 0);

    for (int64_t k = 0; k < B.nnz; k++)
        B.val[k] *= 3.0; /* values do not count */
    const uint64_t full_b = mpcgi_csr_pattern_hash(&B, 1),
                   sampled_b = mpcgi_csr_pattern_hash(&B, 0);
    int64_t k = B.row_ptr[0] + (B.row_ptr[1] - B.row_ptr[0]) / 2; /* row 0 is always sampled */
    B.col_idx[k] = B.col_idx[k] == 0 ? 1 : 0;
    const uint64_t full_c = mpcgi_csr_pattern_hash(&B, 1),
                   sampled_c = mpcgi_csr_pattern_hash(&B, 0);
    B.col_idx[k] = A.col_idx[k];
    k = B.row_ptr[2501]; /* a column of an unsampled row: only the full hash sees it */
    B.col_idx[k] ^= 1;
    const uint64_t full_d = mpcgi_csr_pattern_hash(&B, 1),
                   sampled_d = mpcgi_csr_pattern_hash(&B, 0);

    CHECK(full != sampled);
    CHECK(full_b == full && sampled_b == sampled);
    CHECK(full_c != full && sampled_c != sampled);
    CHECK(full_d != full && sampled_d == sampled);
    mpcgi_csr_free(&A);
    mpcgi_csr_free(&B);
}

/* The full hash of 64 slices does not depend on the thread count; its cost on a large pattern,
 * printed (docs/backends/auto.md quotes it). */
static void test_pattern_hash_threads(void)
{
    mpcg_matrix *M = NULL;
    CHECK_OK(ctx, mpcg_matrix_generate(ctx, "poisson3d:64", &M));
    if (!M) return;
    const mpcgi_csr *A = &M->csr;
    (void)mpcgi_csr_pattern_hash(A, 1); /* the OpenMP threads start */
    double t0 = mpcgi_wtime();
    const uint64_t h = mpcgi_csr_pattern_hash(A, 1);
    double t1 = mpcgi_wtime();
    const uint64_t s = mpcgi_csr_pattern_hash(A, 0);
    double t2 = mpcgi_wtime();
#ifdef _OPENMP
    int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    CHECK(mpcgi_csr_pattern_hash(A, 1) == h);
    omp_set_num_threads(threads > 1 ? threads : 3);
    CHECK(mpcgi_csr_pattern_hash(A, 1) == h);
    omp_set_num_threads(threads);
#endif
    printf("  pattern hash of poisson3d:64 (n = %lld, nnz = %lld): full %.2f ms (%.2f GB/s), "
           "sampled %.3f ms\n",
           (long long)A->n, (long long)A->nnz, 1e3 * (t1 - t0),
           (double)(A->nnz * 4 + (A->n + 1) * 8) / (t1 - t0) * 1e-9, 1e3 * (t2 - t1));
    CHECK(s != h);
    mpcg_matrix_destroy(M);
}

/* The number of entries of dir whose name starts with a dot (temporary files). */
static int hidden_entries(const char *dir)
{
    int count = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        if (e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) count++;
    if (d) closedir(d);
    return count;
}

/* Write, read back, replace with a shorter text; a missing file, an unreadable one, one too
 * long; a directory that cannot be made. No temporary file is ever left. */
static void test_files(void)
{
    char root[] = "/tmp/mpcg-test-cache-XXXXXX", dir[256], buf[64], why[256];
    CHECK(mkdtemp(root) != NULL);
    snprintf(dir, sizeof dir, "%s/a/b", root); /* parents created */

    CHECK_OK(ctx, mpcgi_cache_write(ctx, dir, "one.txt", "first version, long\n"));
    CHECK(mpcgi_cache_read(dir, "one.txt", buf, sizeof buf, why, sizeof why) == 1);
    CHECK(strcmp(buf, "first version, long\n") == 0);
    CHECK_OK(ctx, mpcgi_cache_write(ctx, dir, "one.txt", "second\n"));
    CHECK(mpcgi_cache_read(dir, "one.txt", buf, sizeof buf, why, sizeof why) == 1);
    CHECK(strcmp(buf, "second\n") == 0);
    CHECK(hidden_entries(dir) == 0);

    CHECK(mpcgi_cache_read(dir, "none.txt", buf, sizeof buf, why, sizeof why) == 0);
    CHECK(mpcgi_cache_read(root, "a", buf, sizeof buf, why, sizeof why) == -1); /* a directory */
    CHECK(strstr(why, "/a") != NULL);
    CHECK_OK(ctx, mpcgi_cache_write(ctx, dir, "big.txt",
                                    "0123456789012345678901234567890123456789"
                                    "0123456789012345678901234567890123\n"));
    CHECK(mpcgi_cache_read(dir, "big.txt", buf, sizeof buf, why, sizeof why) == -1);
    CHECK(strstr(why, "longer") != NULL);

    char file_dir[300];
    snprintf(file_dir, sizeof file_dir, "%s/one.txt/sub", dir); /* a parent that is a file */
    CHECK_STATUS(ctx, mpcgi_cache_write(ctx, file_dir, "x.txt", "x\n"), MPCG_ERR_IO);
    CHECK(strstr(mpcg_last_error(ctx), "one.txt/sub") != NULL);
    mpcg_clear_error(ctx);
    CHECK_STATUS(ctx, mpcgi_cache_write(ctx, dir, "a/b", "x\n"), MPCG_ERR_INVALID_ARG);
    mpcg_clear_error(ctx);
    CHECK(hidden_entries(dir) == 0);

    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    CHECK(system(cmd) == 0);
}

int main(void)
{
    test_init_seed("test_cache");
    CHECK_OK(NULL, mpcg_context_create("cpu", &ctx));
    test_hash_bytes();
    test_pattern_hash();
    test_pattern_hash_threads();
    test_files();
    mpcg_context_destroy(ctx);
    return test_finish("test_cache");
}

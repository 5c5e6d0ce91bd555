/* bench/experiments/cg_recurrences_fp32.c: do the persistent loops' two recurrences keep the
 * launched kernels' iteration counts in fp32 and mixed solves? (an experiment, not built by
 * make; plain C on the CPU, no library)
 *
 * Build and run (any C99 compiler; contraction off, so every fma is the one written here):
 *   cc -O2 -std=c99 -ffp-contract=off bench/experiments/cg_recurrences_fp32.c -o cgrec -lm
 *   ./cgrec test/data/nos4.mtx mixed 1e-10     (or: fp32 1e-5)
 *
 * It emulates, on a symmetric Matrix Market file, the arithmetic of the fp32 iteration: fp32
 * vectors and values (hi = (float)a), row sums in float with fmaf in entry order, dots of the
 * widened products summed in double, alpha and beta rounded to float where they multiply a
 * vector, either with CG's recurrences (the launched kernels and the two-barrier loop) or
 * Chronopoulos-Gear's (the single-reduction loop: w = A r, s = w + beta s, p.A p = delta -
 * beta gamma / alpha_old, and at a resume the exact first p.s). Each runs with two orders of the
 * double sums (0: in index order; 1: seven interleaved partial sums), to see how far the order
 * alone moves a count. mixed: solver/cg_mixed.c's reliable updates (mixed.reliable_drop 100)
 * after the fp64 head (D = 8: fp64 on hi + lo until tol 1e8 ||b||), the fp64 iterate, b = ones
 * and uniform random; fp32: solver/cg.c's fp32 solve (fp32 iterate, restarts from the fp64 true
 * residual, stagnation), b_i = cos(0.3 i) + 1.5 as test/test_solver_fp32.c.
 *
 * Bundled matrices, 2026-11-25 (CG order 0 / CG order 1 / CG-CG order 0 / CG-CG order 1):
 *   mixed 1e-10, b = ones: nos4 99/93/96/100, bcsstk05 443/444/649/529, Trefethen_500
 *   256/256/294/294, mesh2em5 116/115/124/122, gr_30_30 44 (all), fv1 33 (all);
 *   b random: bcsstk05 444/407/539/617 (the last: a curvature stop, p.A p <= 0, in its fp32
 *   part), nos4 102/95/102/106, Trefethen_500 233 (all), mesh2em5 117/119/123/122.
 *   fp32 1e-5: every matrix the same count within 1 (nos4 77/77/78/78: the CG-CG solve ends
 *   stagnant at 1.2e-5, tol's border); fp32 1e-10 (all stagnant): nos4 130/130/150/150,
 *   gr_30_30 72/72/94/94.
 * So in mixed solves the sums' order alone moves counts by up to 8%, and the single-reduction
 * recurrences cost up to 46% more on the ill-conditioned matrices (solver/cg_variants.c keeps
 * auto from taking that loop for mixed solves; test/testutil.h's test_iterations_close_*).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int n;
    int *rp, *ci;
    double *v;       /* the fp64 values */
    float *hi, *lo;  /* the mixed storage */
} csr;

static int by_key(const void *a, const void *b)
{
    const long *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

/* A symmetric coordinate Matrix Market file as full CSR, columns sorted in each row. */
static int read_mm(const char *path, csr *m)
{
    FILE *f = fopen(path, "r");
    char line[512];
    int rows, cols, nz, k = 0;
    if (!f) return -1;
    do
        if (!fgets(line, sizeof line, f)) return -1;
    while (line[0] == '%');
    if (sscanf(line, "%d %d %d", &rows, &cols, &nz) != 3) return -1;
    long *key = malloc(sizeof *key * 4 * (size_t)nz);
    double *val = malloc(sizeof *val * 2 * (size_t)nz);
    for (int e = 0, i, j; e < nz && fscanf(f, "%d %d %lf", &i, &j, &val[k]) == 3; e++) {
        key[2 * k] = (long)(i - 1) * rows + (j - 1), key[2 * k + 1] = k, k++;
        if (i != j) val[k] = val[k - 1], key[2 * k] = (long)(j - 1) * rows + (i - 1),
                    key[2 * k + 1] = k, k++;
    }
    fclose(f);
    qsort(key, (size_t)k, 2 * sizeof *key, by_key);
    m->n = rows;
    m->rp = calloc((size_t)rows + 1, sizeof *m->rp), m->ci = malloc(sizeof *m->ci * (size_t)k);
    m->v = malloc(sizeof *m->v * (size_t)k);
    m->hi = malloc(sizeof *m->hi * (size_t)k), m->lo = malloc(sizeof *m->lo * (size_t)k);
    for (int e = 0; e < k; e++) {
        m->ci[e] = (int)(key[2 * e] % rows), m->v[e] = val[key[2 * e + 1]];
        m->rp[key[2 * e] / rows + 1]++;
        m->hi[e] = (float)m->v[e], m->lo[e] = (float)(m->v[e] - m->hi[e]);
    }
    for (int i = 0; i < rows; i++) m->rp[i + 1] += m->rp[i];
    free(key), free(val);
    return 0;
}

static int order; /* of the double sums: 0 in index order, 1 seven interleaved partial sums */
static double *terms;

static double sum(int n)
{
    double s = 0;
    if (order == 0) {
        for (int i = 0; i < n; i++) s += terms[i];
        return s;
    }
    for (int b = 0; b < 7; b++) {
        double p = 0;
        for (int i = b; i < n; i += 7) p += terms[i];
        s += p;
    }
    return s;
}

static double dot32(const float *a, const float *b, int n)
{
    for (int i = 0; i < n; i++) terms[i] = (double)a[i] * (double)b[i];
    return sum(n);
}

static double dot64(const double *a, const double *b, int n)
{
    for (int i = 0; i < n; i++) terms[i] = a[i] * b[i];
    return sum(n);
}

/* y = A x in float on hi */
static void apply32(const csr *m, const float *x, float *y)
{
    for (int i = 0; i < m->n; i++) {
        float s = 0;
        for (int k = m->rp[i]; k < m->rp[i + 1]; k++) s = fmaf(m->hi[k], x[m->ci[k]], s);
        y[i] = s;
    }
}

/* y = A x in double, on the fp64 values (fp32 solves) or hi + lo (mixed) */
static void apply64(const csr *m, int mixed, const double *x, double *y)
{
    for (int i = 0; i < m->n; i++) {
        double s = 0;
        for (int k = m->rp[i]; k < m->rp[i + 1]; k++)
            s += (mixed ? (double)m->hi[k] + (double)m->lo[k] : m->v[k]) * x[m->ci[k]];
        y[i] = s;
    }
}

/* t = b - A x (apply64's values); ||t|| */
static double residual(const csr *m, int mixed, const double *b, const double *x, double *t)
{
    apply64(m, mixed, x, t);
    for (int i = 0; i < m->n; i++) t[i] = b[i] - t[i];
    return sqrt(dot64(t, t, m->n));
}

/* The fp32 iteration's state: r, p and, for Chronopoulos-Gear, w = A r, s = A p. */
typedef struct {
    float *r, *p, *q, *w, *s;
    double rr, beta, delta, alpha_old;
    int primed; /* CG-CG: w, delta and s are current (0 after a start or a resume) */
} iter32;

/* One fp32 iteration from (r, rr, beta, p): x += alpha p (xd or xf), the new r; r.r, or -1 for
 * a curvature stop. gear: Chronopoulos-Gear's recurrences, else CG's. */
static double step(const csr *m, iter32 *it, int gear, double *xd, float *xf)
{
    const int n = m->n;
    const float fb = (float)it->beta;
    double pq;
    if (!gear) {
        for (int i = 0; i < n; i++) it->p[i] = fmaf(fb, it->p[i], it->r[i]);
        apply32(m, it->p, it->q);
        pq = dot32(it->p, it->q, n);
    } else if (!it->primed) { /* w = A r, s = A p_k, the exact first p.s */
        apply32(m, it->r, it->w), apply32(m, it->p, it->s);
        for (int i = 0; i < n; i++)
            terms[i] = (double)fmaf(fb, it->p[i], it->r[i]) * (double)fmaf(fb, it->s[i], it->w[i]);
        pq = sum(n);
        it->delta = dot32(it->w, it->r, n), it->primed = 1;
    } else {
        pq = it->delta - it->beta * it->rr / it->alpha_old;
    }
    if (!(pq > 0)) return -1;
    const double alpha = it->rr / pq;
    const float fa = (float)alpha;
    for (int i = 0; i < n; i++) {
        if (gear) {
            it->p[i] = fmaf(fb, it->p[i], it->r[i]), it->s[i] = fmaf(fb, it->s[i], it->w[i]);
            it->r[i] = fmaf(-fa, it->s[i], it->r[i]);
        } else {
            it->r[i] = fmaf(-fa, it->q[i], it->r[i]);
        }
        if (xd) xd[i] = fma(alpha, (double)it->p[i], xd[i]); /* the fp64 iterate (mixed) */
        else xf[i] = fmaf(fa, it->p[i], xf[i]);
    }
    if (gear) apply32(m, it->r, it->w), it->delta = dot32(it->w, it->r, m->n);
    it->alpha_old = alpha;
    return dot32(it->r, it->r, n);
}

/* The fp64 head of a mixed solve: CG in double on hi + lo until ||r|| <= level; x, r, p. */
static int head(const csr *m, const double *b, double level, double *x, double *r, double *p,
                double *q, double *rr_old)
{
    int n = m->n, k = 0;
    double rr = dot64(b, b, n);
    memcpy(r, b, sizeof *r * (size_t)n), memcpy(p, b, sizeof *p * (size_t)n);
    for (;;) {
        apply64(m, 1, p, q);
        const double alpha = rr / dot64(p, q, n);
        for (int i = 0; i < n; i++) x[i] += alpha * p[i], r[i] -= alpha * q[i];
        const double rr_new = dot64(r, r, n);
        k++;
        if (sqrt(rr_new) <= level) break;
        for (int i = 0; i < n; i++) p[i] = r[i] + rr_new / rr * p[i];
        rr = rr_new;
    }
    *rr_old = rr;
    return k;
}

/* fp32 iterations until the recurrence residual reaches threshold (1), a curvature stop (-1)
 * or k the limit (0); it->rr stays r.r before the last step (the reliable update's beta). */
static int to_threshold(const csr *m, iter32 *it, int gear, double *xd, float *xf,
                        double threshold, int limit, int *k)
{
    while (*k < limit) {
        const double rr_new = step(m, it, gear, xd, xf);
        if (rr_new < 0) return -1;
        ++*k;
        if (sqrt(rr_new) <= threshold) return 1;
        it->beta = rr_new / it->rr, it->rr = rr_new;
    }
    return 0;
}

/* A mixed reliable-update solve to tol after the head; prints its count and end. */
static void mixed(const csr *m, const double *b, double tol, iter32 *it, int gear)
{
    int n = m->n, k, updates = 0;
    double *x = calloc((size_t)n, sizeof *x), *r = malloc(sizeof *r * (size_t)n);
    double *p = malloc(sizeof *p * (size_t)n), *t = malloc(sizeof *t * (size_t)n), rr_old;
    const double bn = sqrt(dot64(b, b, n));
    const char *end = "the limit";
    k = head(m, b, tol * 1e8 * bn, x, r, p, t, &rr_old);
    const int head_k = k;
    double tn = residual(m, 1, b, x, t), last = tn;
    for (int i = 0; i < n; i++) it->r[i] = (float)t[i], it->p[i] = (float)p[i];
    it->rr = tn * tn, it->beta = it->rr / rr_old, it->primed = 0;
    double threshold = fmax(tn / 100, tol * bn);
    for (int got; (got = to_threshold(m, it, gear, x, NULL, threshold, 20 * n, &k)) != 0;) {
        if (got < 0) {
            end = "a curvature stop (the fp64 finish)";
            break;
        }
        tn = residual(m, 1, b, x, t); /* the reliable update */
        if (tn <= tol * bn || tn / last > 0.5) {
            end = tn <= tol * bn ? "converged" : "no progress (the fp64 finish)";
            break;
        }
        for (int i = 0; i < n; i++) it->r[i] = (float)t[i];
        it->beta = tn * tn / it->rr, it->rr = tn * tn, it->primed = 0, updates++, last = tn;
        threshold = fmax(tn / 100, tol * bn);
    }
    printf("%d iterations (head %d), %d updates, %s, true residual %.3e\n", k, head_k, updates,
           end, tn / bn);
    free(x), free(r), free(p), free(t);
}

/* An fp32 solve to tol (fp32 iterate, restarts p = r from the true residual); prints it. */
static void fp32(const csr *m, const double *b, double tol, iter32 *it, int gear)
{
    int n = m->n, k = 0, restarts = 0;
    float *x = calloc((size_t)n, sizeof *x);
    double *xd = malloc(sizeof *xd * (size_t)n), *t = malloc(sizeof *t * (size_t)n), tn = 0;
    const double bn = sqrt(dot64(b, b, n)), threshold = fmax(tol, 1.1920929e-7) * bn;
    double last = INFINITY;
    const char *end = "the limit";
    for (int i = 0; i < n; i++) it->r[i] = (float)b[i], it->p[i] = 0;
    it->rr = dot32(it->r, it->r, n), it->beta = 0, it->primed = 0;
    for (int got; (got = to_threshold(m, it, gear, NULL, x, threshold, 10 * n, &k)) != 0;) {
        if (got < 0) {
            end = "a curvature stop";
            break;
        }
        for (int i = 0; i < n; i++) xd[i] = x[i];
        tn = residual(m, 0, b, xd, t);
        if (tn <= tol * bn || restarts >= 8 || tn >= 0.5 * last) {
            end = tn <= tol * bn ? "converged" : "stagnation";
            break;
        }
        for (int i = 0; i < n; i++) it->r[i] = (float)t[i];
        it->rr = tn * tn, it->beta = 0, it->primed = 0, restarts++, last = tn;
    }
    printf("%d iterations, %d restarts, %s, true residual %.3e\n", k, restarts, end, tn / bn);
    free(x), free(xd), free(t);
}

int main(int argc, char **argv)
{
    csr m;
    if (argc != 4 || (strcmp(argv[2], "mixed") && strcmp(argv[2], "fp32")) ||
        read_mm(argv[1], &m) != 0) {
        fprintf(stderr, "usage: %s A.mtx mixed|fp32 TOL\n", argv[0]);
        return 2;
    }
    const int n = m.n, is_mixed = strcmp(argv[2], "mixed") == 0;
    const double tol = atof(argv[3]);
    double *b = malloc(sizeof *b * (size_t)n);
    iter32 it;
    terms = malloc(sizeof *terms * (size_t)n);
    it.r = malloc(sizeof(float) * (size_t)n), it.p = malloc(sizeof(float) * (size_t)n);
    it.q = malloc(sizeof(float) * (size_t)n), it.w = malloc(sizeof(float) * (size_t)n);
    it.s = malloc(sizeof(float) * (size_t)n);
    for (int kind = 0; kind < (is_mixed ? 2 : 1); kind++) {
        srand(7);
        for (int i = 0; i < n; i++)
            b[i] = !is_mixed ? cos(0.3 * i) + 1.5 : kind ? 2.0 * rand() / RAND_MAX - 1 : 1.0;
        for (int gear = 0; gear < 2; gear++)
            for (order = 0; order < 2; order++) {
                printf("%s %s tol %g%s, %s, order %d: ", argv[1], argv[2], tol,
                       is_mixed ? (kind ? " b random" : " b ones") : "", gear ? "CG-CG" : "CG",
                       order);
                if (is_mixed) mixed(&m, b, tol, &it, gear);
                else fp32(&m, b, tol, &it, gear);
            }
    }
    return 0;
}

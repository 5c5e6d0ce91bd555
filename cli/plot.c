/* cli/plot.c: cgsolve --plot: a self-contained SVG of the residual history (log10
 * relative residual against the iteration) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cgsolve.h"

/*
 * Plain SVG 1.1: no script, no external font (the generic sans-serif family), no reference out
 * of the file. The plot area is a frame with decade ticks on the left (10^k labels) and ticks
 * of 1, 2 or 5 times a power of ten below; the recurrence residual is a path (broken where an
 * entry has none), the true residuals are circles, the stopping level a dashed line labelled at
 * its left end (where a converging curve is high above it), the legend one row under the axis.
 * A block solve's columns are a curve and circles each, in the colours of palette (repeating
 * after ten), named in a row above the legend.
 */

#define W 720.0
#define H 470.0
#define LEFT 84.0   /* plot area: x from LEFT to W - RIGHT, y from TOP to H - BOTTOM */
#define RIGHT 28.0
#define TOP 64.0
#define BOTTOM 86.0

#define C_REC "#1f5fa8"  /* recurrence residual */
#define C_TRUE "#c0392b" /* true residuals */
#define C_TOL "#2e8b57"  /* stopping level */
#define C_GRID "#e3e3e3"
#define C_MARK "#444444" /* the legend's marks when each column has its colour */

static const char *const palette[10] = {"#1f5fa8", "#d9730d", "#8e44ad", "#c0392b", "#16a085",
                                        "#7f6000", "#e377c2", "#555555", "#9a9a00", "#17a2c8"};

/* The data ranges and the map to the page. */
typedef struct frame {
    double xmax, xstep;         /* iterations 0 .. xmax, ticks every xstep */
    int ylo, yhi, ystep;        /* decades ylo .. yhi, labelled at multiples of ystep */
} frame;

static double px(const frame *f, double it) { return LEFT + (W - LEFT - RIGHT) * it / f->xmax; }

static double py(const frame *f, double v)
{
    return TOP + (H - TOP - BOTTOM) * ((double)f->yhi - log10(v)) / (double)(f->yhi - f->ylo);
}

/* A value the log axis can show. */
static int shown(double v) { return isfinite(v) && v > 0.0; }

/* s with &, <, >, " and ' escaped (a file name may hold any of them). */
static void xml_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&apos;", out); break;
        default: fputc(*s, out);
        }
    }
}

/* 1, 2 or 5 times a power of ten, the first at least raw (and at least 1: iterations). */
static double nice_step(double raw)
{
    if (raw <= 1.0) return 1.0;
    double p = pow(10.0, floor(log10(raw)));
    const double m[] = {1.0, 2.0, 5.0, 10.0};
    for (int i = 0; i < 4; i++)
        if (m[i] * p >= raw) return m[i] * p;
    return 10.0 * p;
}

/* The ranges: iterations up to the last entry of any history (at least 1), rounded up to a
 * tick; decades around every value shown and the stopping level. */
static frame frame_of(const cgsolve_history *hs, int nh, double level)
{
    frame f;
    double last = 1.0;
    double lo = shown(level) ? log10(level) : 0.0, hi = lo;
    for (int c = 0; c < nh; c++) {
        const cgsolve_history *h = &hs[c];
        if (h->count > 0 && (double)h->iteration[h->count - 1] > last)
            last = (double)h->iteration[h->count - 1];
        for (int64_t i = 0; i < h->count; i++) {
            const double v[2] = {h->relres[i], h->true_relres[i]};
            for (int j = 0; j < 2; j++) {
                if (!shown(v[j])) continue;
                double l = log10(v[j]);
                lo = l < lo ? l : lo;
                hi = l > hi ? l : hi;
            }
        }
    }
    f.xstep = nice_step(last / 8.0);
    f.xmax = ceil(last / f.xstep) * f.xstep;
    lo = lo < -320.0 ? -320.0 : lo;
    hi = hi > 308.0 ? 308.0 : hi;
    f.ylo = (int)floor(lo);
    f.yhi = (int)ceil(hi);
    if (f.yhi <= f.ylo) f.yhi = f.ylo + 1;
    static const int steps[] = {1, 2, 5, 10, 20, 50, 100}; /* at most about ten labels */
    f.ystep = 100;
    for (int i = 6; i >= 0; i--)
        if ((f.yhi - f.ylo) <= 10 * steps[i]) f.ystep = steps[i];
    return f;
}

static void header(FILE *out, const char *title, const char *subtitle)
{
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
                 "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n",
            W, H, W, H);
    fprintf(out, "<title>");
    xml_text(out, title);
    fprintf(out, "</title>\n<rect width=\"%.0f\" height=\"%.0f\" fill=\"white\"/>\n", W, H);
    fprintf(out, "<text x=\"%.1f\" y=\"26\" text-anchor=\"middle\" font-size=\"15\" "
                 "font-weight=\"bold\">", W / 2);
    xml_text(out, title);
    fprintf(out, "</text>\n<text x=\"%.1f\" y=\"45\" text-anchor=\"middle\" font-size=\"12\" "
                 "fill=\"#444\">", W / 2);
    xml_text(out, subtitle);
    fprintf(out, "</text>\n");
}

/* Grid, ticks with their labels, the frame and the axis titles. */
static void axes(FILE *out, const frame *f)
{
    const double x0 = LEFT, x1 = W - RIGHT, y0 = TOP, y1 = H - BOTTOM;
    fprintf(out, "<g font-size=\"11\" fill=\"#222\">\n");
    /* labels at the multiples of ystep (10^0 among them when in range) */
    const int first = (int)ceil((double)f->ylo / f->ystep) * f->ystep;
    for (int d = first; d <= f->yhi; d += f->ystep) {
        const double y = py(f, pow(10.0, d));
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
                x0, y, x1, y, C_GRID);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#222\"/>\n",
                x0 - 5, y, x0, y);
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">10<tspan dy=\"-6\" "
                     "font-size=\"9\">%s%d</tspan></text>\n",
                x0 - 8, y + 4, d < 0 ? "&#8722;" : "", d < 0 ? -d : d);
    }
    for (double it = 0.0; it <= f->xmax + 0.5 * f->xstep; it += f->xstep) {
        const double x = px(f, it);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
                x, y0, x, y1, C_GRID);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#222\"/>\n",
                x, y1, x, y1 + 5);
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.0f</text>\n", x,
                y1 + 18, it);
    }
    fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
                 "stroke=\"#222\"/>\n", x0, y0, x1 - x0, y1 - y0);
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"12\">"
                 "iteration</text>\n", (x0 + x1) / 2, y1 + 36);
    fprintf(out, "<text x=\"18\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"12\" "
                 "transform=\"rotate(-90 18 %.1f)\">relative residual</text>\n</g>\n",
            (y0 + y1) / 2, (y0 + y1) / 2);
}

/* The recurrence residual as one path: a move where a point follows a gap, points closer than
 * half a pixel to the last one drawn left out (the last entry always drawn). */
static void recurrence(FILE *out, const frame *f, const cgsolve_history *h, const char *colour)
{
    double lx = -1e9, ly = -1e9;
    int pen = 0, open = 0;
    for (int64_t i = 0; i < h->count; i++) {
        if (!shown(h->relres[i])) {
            pen = 0;
            continue;
        }
        const double x = px(f, (double)h->iteration[i]), y = py(f, h->relres[i]);
        const int last = i == h->count - 1;
        if (pen && !last && fabs(x - lx) < 0.5 && fabs(y - ly) < 0.5) continue;
        if (!open) fprintf(out, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\" "
                                "stroke-linejoin=\"round\" d=\"", colour);
        fprintf(out, "%s%.1f %.1f", pen ? " L" : (open ? " M" : "M"), x, y);
        open = pen = 1;
        lx = x, ly = y;
    }
    if (open) fprintf(out, "\"/>\n");
}

static void trues(FILE *out, const frame *f, const cgsolve_history *h, const char *colour)
{
    fprintf(out, "<g fill=\"white\" stroke=\"%s\" stroke-width=\"1.5\">\n", colour);
    for (int64_t i = 0; i < h->count; i++)
        if (shown(h->true_relres[i]))
            fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\"/>\n",
                    px(f, (double)h->iteration[i]), py(f, h->true_relres[i]));
    fprintf(out, "</g>\n");
}

/* The stopping level, dashed across the plot, labelled at its right end. */
static void level_line(FILE *out, const frame *f, double level)
{
    if (!shown(level)) return;
    const double y = py(f, level);
    char v[32];
    snprintf(v, sizeof v, "%.3g", level);
    fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                 "stroke-width=\"1.3\" stroke-dasharray=\"7 4\"/>\n",
            LEFT, y, W - RIGHT, y, C_TOL);
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"%s\">stop at %s"
                 "</text>\n", LEFT + 6, y - 5, C_TOL, v);
}

/* A block solve: a row naming each column's colour (the first 16 columns; the colours repeat
 * after ten). */
static void columns(FILE *out, int nh)
{
    const double y = H - 32;
    fprintf(out, "<g font-size=\"11\" fill=\"#222\">\n<text x=\"%.1f\" y=\"%.1f\">column"
                 "</text>\n", LEFT, y);
    for (int j = 0; j < nh && j < 16; j++) {
        const double x = LEFT + 50 + 36 * j;
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                     "stroke-width=\"2\"/>\n<text x=\"%.1f\" y=\"%.1f\">%d</text>\n",
                x, y - 4, x + 14, y - 4, palette[j % 10], x + 17, y, j);
    }
    if (nh > 16) fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">...</text>\n", LEFT + 626, y);
    fprintf(out, "</g>\n");
}

/* One row under the axis title: a sample of each mark and what it is (rec, tru: their
 * colours). */
static void legend(FILE *out, const char *rec, const char *tru)
{
    const double y = H - 14, x = LEFT;
    fprintf(out, "<g font-size=\"11\" fill=\"#222\">\n");
    fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                 "stroke-width=\"1.6\"/>\n<text x=\"%.1f\" y=\"%.1f\">recurrence "
                 "||r_k|| / ||b||</text>\n", x, y - 4, x + 26, y - 4, rec, x + 32, y);
    fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"white\" stroke=\"%s\" "
                 "stroke-width=\"1.5\"/>\n<text x=\"%.1f\" y=\"%.1f\">true ||b - A x_k|| / "
                 "||b|| (fp64)</text>\n", x + 196, y - 4, tru, x + 206, y);
    fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                 "stroke-width=\"1.3\" stroke-dasharray=\"7 4\"/>\n<text x=\"%.1f\" y=\"%.1f\">"
                 "stop: max(tol, atol / ||b||)</text>\n</g>\n", x + 390, y - 4, x + 416, y - 4,
            C_TOL, x + 422, y);
}

int cgsolve_write_svg(FILE *out, const cgsolve_history *h, int nh, const cgsolve_plot_text *t)
{
    frame f = frame_of(h, nh, t->level);
    int64_t any = 0;
    header(out, t->title, t->subtitle);
    axes(out, &f);
    level_line(out, &f, t->level);
    for (int j = 0; j < nh; j++) {
        recurrence(out, &f, &h[j], nh > 1 ? palette[j % 10] : C_REC);
        trues(out, &f, &h[j], nh > 1 ? palette[j % 10] : C_TRUE);
        any += h[j].count;
    }
    if (any > 0) {
        if (nh > 1) columns(out, nh);
        legend(out, nh > 1 ? C_MARK : C_REC, nh > 1 ? C_MARK : C_TRUE);
    } else {
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"13\" "
                     "fill=\"#444\">no residual history: ",
                (LEFT + W - RIGHT) / 2, (TOP + H - BOTTOM) / 2);
        xml_text(out, t->empty_why ? t->empty_why : "nothing was recorded");
        fprintf(out, "</text>\n");
    }
    fprintf(out, "</svg>\n");
    return !ferror(out);
}

/* stats.c — order statistics (see stats.h). */
#include "stats.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double stats_quantile(const double *s, size_t n, double q)
{
    if (q <= 0)
        return s[0];
    if (q >= 1)
        return s[n - 1];
    double h = q * (double)(n - 1);
    size_t lo = (size_t)floor(h);
    double frac = h - (double)lo;
    return lo + 1 < n ? s[lo] + frac * (s[lo + 1] - s[lo]) : s[lo];
}

void stats_quantiles(const double *s, size_t n, double *out, size_t k)
{
    for (size_t i = 0; i < k; i++)
        out[i] = stats_quantile(s, n, (double)i / (double)(k - 1));
}

struct stats stats_of(double *x, size_t n)
{
    struct stats st = { 0 };
    if (!n)
        return st;
    qsort(x, n, sizeof *x, cmp_double);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    st.n = n;
    st.min = x[0];
    st.max = x[n - 1];
    st.median = stats_quantile(x, n, 0.5);
    st.p99 = stats_quantile(x, n, 0.99);
    st.mean = sum / (double)n;
    return st;
}

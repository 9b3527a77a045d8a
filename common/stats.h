/* stats.h — order statistics of a sample (min, median, p99, mean) and evenly spaced quantiles for CDF
 * plots. Quantiles use linear interpolation between closest ranks (type 7 of Hyndman and Fan, the
 * numpy/R default). */
#ifndef AG_BENCH_STATS_H
#define AG_BENCH_STATS_H

#include <stddef.h>

struct stats {
    size_t n;
    double min, median, p99, max, mean;
};

/* Sorts x in place and summarizes it; all zero for n == 0. */
struct stats stats_of(double *x, size_t n);
/* Quantile q in [0,1] of sorted x (n >= 1). */
double stats_quantile(const double *sorted, size_t n, double q);
/* k quantiles at probabilities 0, 1/(k-1), ..., 1 of sorted x into out (k >= 2, n >= 1). */
void stats_quantiles(const double *sorted, size_t n, double *out, size_t k);

#endif

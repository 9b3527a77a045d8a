/* test_stats.c — the benchmark's order statistics (common/stats.c): type-7 quantiles, summaries. */
#include <math.h>

#include "check.h"
#include "stats.h"

static int near(double a, double b) { return fabs(a - b) < 1e-9 * (1 + fabs(b)); }

int main(void)
{
    double x[] = { 5, 1, 4, 2, 3 }; /* unsorted on purpose */
    struct stats s = stats_of(x, 5);
    CHECK(s.n == 5 && s.min == 1 && s.max == 5, "n/min/max %zu %g %g", s.n, s.min, s.max);
    CHECK(near(s.median, 3) && near(s.mean, 3), "median %g mean %g", s.median, s.mean);
    CHECK(near(s.p99, 4.96), "p99 %g: type 7 interpolates 4 + 0.96", s.p99);
    CHECK(x[0] == 1 && x[4] == 5, "sorted in place");

    double even[] = { 10, 20, 30, 40 };
    s = stats_of(even, 4);
    CHECK(near(s.median, 25), "even median %g", s.median);
    CHECK(near(stats_quantile(even, 4, 0.25), 17.5), "q25 %g", stats_quantile(even, 4, 0.25));
    CHECK(stats_quantile(even, 4, -1) == 10 && stats_quantile(even, 4, 2) == 40, "clamped");

    double q[5];
    double five[] = { 1, 2, 3, 4, 5 };
    stats_quantiles(five, 5, q, 5);
    CHECK(q[0] == 1 && q[1] == 2 && q[2] == 3 && q[3] == 4 && q[4] == 5, "quantiles %g %g %g %g %g", q[0], q[1], q[2],
          q[3], q[4]);
    double many[1001];
    for (int i = 0; i <= 1000; i++)
        many[i] = 1000 - i;
    s = stats_of(many, 1001);
    CHECK(near(s.median, 500) && near(s.p99, 990) && s.min == 0 && s.max == 1000, "1001 values: %g %g", s.median,
          s.p99);
    double q3[3];
    stats_quantiles(many, 1001, q3, 3);
    CHECK(q3[0] == 0 && near(q3[1], 500) && q3[2] == 1000, "3 quantiles");

    double one[] = { 7 };
    s = stats_of(one, 1);
    CHECK(s.min == 7 && s.median == 7 && s.p99 == 7 && s.max == 7 && s.mean == 7, "single value");
    s = stats_of(NULL, 0);
    CHECK(s.n == 0 && s.median == 0 && s.mean == 0, "empty sample is all zero");
    double ties[] = { 2, 2, 2, 9 };
    s = stats_of(ties, 4);
    CHECK(s.median == 2 && near(s.p99, 2 + 0.97 * 7), "ties: median %g p99 %g", s.median, s.p99);
    return check_done();
}

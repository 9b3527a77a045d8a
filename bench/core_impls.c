/* core_impls.c — what bench-core hosts: libandgate, glibc's pthread barrier, Concurrency Kit. */
#include "impl.h"

extern const struct bench_impl bench_impl_andgate, bench_impl_pthread;
#ifdef AG_HAVE_CK
extern const struct bench_impl bench_impl_ck_centralized, bench_impl_ck_combining, bench_impl_ck_dissemination,
    bench_impl_ck_mcs, bench_impl_ck_tournament;
#endif

const struct bench_impl *const bench_impls[] = {
    &bench_impl_andgate, &bench_impl_pthread,
#ifdef AG_HAVE_CK
    &bench_impl_ck_centralized, &bench_impl_ck_combining, &bench_impl_ck_dissemination, &bench_impl_ck_mcs,
    &bench_impl_ck_tournament,
#endif
    NULL,
};

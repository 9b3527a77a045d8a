// impl_std.cpp — baseline: C++20 std::barrier as libstdc++ implements it (g++ -std=c++20).
//
// What libstdc++ 12 does (read in /usr/include/c++/12/barrier and bits/atomic_wait.h):
//  - std::barrier<> is __tree_barrier: threads carry no index, so each starts at the node picked by
//    the hash of its std::thread::id, then climbs a tree of (n+1)/2 nodes, each a 64-byte-aligned
//    array of one-byte phase tickets per round, pairing up with compare-exchange (first of two stops,
//    second goes up); the one that completes the root stores the new phase (release) and calls
//    notify_all on it.
//  - arrive_and_wait waits with std::__atomic_wait_address on that one-byte phase. A one-byte object
//    cannot be a futex word, so waiting goes through a process-wide pool of 16 waiter slots chosen
//    by address: the waiter spins 16 times on the phase (12 with pause, then 4 with sched_yield),
//    then futex_waits on its slot's version counter; notify_all bumps that counter and calls
//    futex_wake only when a waiter is registered in the slot.
#include <barrier>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <new>

#include "impl.h"

namespace {

using barrier_t = std::barrier<>;

int std_init(void **ctx, unsigned n, const char *spec, const char *wait, const int *cpus, char *desc,
             std::size_t desclen)
{
    (void)spec;
    (void)wait;
    (void)cpus;
    *ctx = nullptr;
    if (n == 0 || static_cast<std::ptrdiff_t>(n) > barrier_t::max())
        return EINVAL;
    try {
        *ctx = new barrier_t(static_cast<std::ptrdiff_t>(n));
    } catch (const std::bad_alloc &) {
        return ENOMEM;
    } catch (...) {
        return EINVAL;
    }
    if (desc && desclen) {
#ifdef _GLIBCXX_RELEASE
        std::snprintf(desc, desclen, "std::barrier<>(%u), libstdc++ of GCC %d (__tree_barrier)", n,
                      static_cast<int>(_GLIBCXX_RELEASE));
#else
        std::snprintf(desc, desclen, "std::barrier<>(%u)", n);
#endif
    }
    return 0;
}

void std_wait(void *ctx, unsigned tid)
{
    (void)tid;
    static_cast<barrier_t *>(ctx)->arrive_and_wait();
}

void std_destroy(void *ctx)
{
    delete static_cast<barrier_t *>(ctx);
}

} // namespace

extern "C" {

extern const struct bench_impl bench_impl_std;

const struct bench_impl bench_impl_std = {
    "std::barrier",
    "baseline",
    "libstdc++ std::barrier: tree barrier (threads placed by the hash of their thread id, "
    "pairwise compare-exchange on one-byte phase tickets); waiting is std::__atomic_wait: 16 "
    "spins on the phase (12 with pause, 4 with sched_yield), then futex_wait on a shared "
    "waiter-pool word; the completer futex_wakes only when a waiter is registered "
    "(/usr/include/c++/12/barrier, bits/atomic_wait.h)",
    std_init,
    std_wait,
    std_destroy,
    nullptr,
    nullptr,
};

const struct bench_impl *const bench_impls[] = { &bench_impl_std, nullptr };
}

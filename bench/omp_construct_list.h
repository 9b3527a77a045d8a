/* omp_construct_list.h — the OpenMP constructs omp_constructs.c measures, in the order it runs them:
 * one list read by that program (its table of functions) and by `andgate bench --preload apps`
 * (tools/bench_preload.c: the default --constructs list and what a LIST may name).
 * X(id, name, iters): the program's function is t_<id>; iters 0 is one delay per thread and rep, else a
 * loop of that many delays shared by the team. SEP goes between two entries. */
#ifndef AG_OMP_CONSTRUCT_LIST_H
#define AG_OMP_CONSTRUCT_LIST_H

#define AG_OMP_PFD_ITERS 64 /* parallel-for-dynamic's loop */

#define AG_OMP_CONSTRUCTS(X, SEP)                                                                          \
    X(parallel, "parallel", 0) SEP                                                                         \
    X(parallel_for, "parallel-for", 0) SEP                                                                 \
    X(for, "for", 0) SEP                                                                                   \
    X(for_dynamic, "for-dynamic", 0) SEP                                                                   \
    X(parallel_for_dynamic, "parallel-for-dynamic", AG_OMP_PFD_ITERS) SEP                                  \
    X(barrier, "barrier", 0) SEP                                                                           \
    X(single, "single", 0) SEP                                                                             \
    X(reduction, "reduction", 0) SEP                                                                       \
    X(doacross, "doacross", 0)

#endif

/* auto.h — algo=auto: the documented rule (docs/guide.md, "Automatic choice"), one function shared by
 * the library (barrier.c, on the process's topology) and the simulator (on the modeled one). */
#ifndef AG_AUTO_H
#define AG_AUTO_H

/* What the rule looks at: n participants; whether the wait policy spins before it sleeps or yields;
 * how many CPUs the participants were placed on by the caller (cfg.cpus; n when the placement is the
 * library's guess, which binds nobody); how many cores they occupy. */
struct ag_auto_in {
    unsigned n;
    int spins;
    unsigned cpu_groups, core_groups;
};

/* From this many spinning participants on, auto is tune: at 2 every candidate is one exchange (auto.c) */
#define AG_AUTO_TUNE_MIN 3u

/* The spec auto stands for. */
const char *ag_auto_algo(const struct ag_auto_in *in);

/* in's core_groups from a shape (shape.h). The library and the simulator both fill it so. */
struct ag_shape;
void ag_auto_from_shape(struct ag_auto_in *in, const struct ag_shape *sh);

#endif

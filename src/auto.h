/* auto.h — algo=auto: the documented rule (docs/guide.md, "Automatic choice"), one function shared by
 * the library (barrier.c, on the process's topology) and the simulator (on the modeled one). */
#ifndef AG_AUTO_H
#define AG_AUTO_H

/* The spec auto stands for: n participants, whether the wait policy spins before it sleeps or yields,
 * and how many cache groups (dense, in topology order) the participants occupy. */
const char *ag_auto_algo(unsigned n, int spins, unsigned cache_groups);

#endif

/* preload.h — what the interposed functions of libandgate-preload.so share: configuration from the
 * environment and reporting on stderr. */
#ifndef AG_PRELOAD_H
#define AG_PRELOAD_H

/* ANDGATE_PRELOAD=0 turns every interposition into a plain forward to the real function. */
int ag_preload_enabled(void);
/* ANDGATE_VERBOSE=1: one line on stderr per barrier created. */
void ag_preload_verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Always printed, once per process: a configuration the shim could not honour. */
void ag_preload_warn_once(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif

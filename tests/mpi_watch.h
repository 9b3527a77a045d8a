/* mpi_watch.h — which thread of this rank makes the MPI calls of libandgate-mpi's episodes, and whether
 * two ever overlap (MPI_THREAD_SERIALIZED forbids it). tests/mpi_watch.c defines the MPI calls the
 * library makes during episodes and forwards them to their PMPI_ names (MPI's profiling interface), so
 * the library's calls land there. Counting starts after mpi_watch_thread; calls from threads that never
 * call it (the main thread) count as tid MPI_WATCH_MAXT. */
#ifndef AG_MPI_WATCH_H
#define AG_MPI_WATCH_H

#define MPI_WATCH_MAXT 16

/* The calling thread is barrier tid `tid` (< MPI_WATCH_MAXT). */
void mpi_watch_thread(unsigned tid);
/* MPI calls made so far by the thread(s) that said they were tid. */
unsigned long mpi_watch_calls(unsigned tid);
/* Calls entered while another call of this process was still inside MPI. */
unsigned long mpi_watch_overlaps(void);

#endif

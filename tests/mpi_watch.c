/* mpi_watch.c — see mpi_watch.h. The wrappers cover every MPI call libandgate-mpi makes inside an
 * episode (src/mpi/inter.c); each counts its caller and checks that no other call of this process is
 * inside MPI at the same time. */
#include "mpi_watch.h"

#include <mpi.h>
#include <stdatomic.h>

static _Thread_local unsigned me = MPI_WATCH_MAXT;
static atomic_ulong calls[MPI_WATCH_MAXT + 1], overlaps;
static atomic_int inside;

void mpi_watch_thread(unsigned tid)
{
    me = tid < MPI_WATCH_MAXT ? tid : MPI_WATCH_MAXT;
}

unsigned long mpi_watch_calls(unsigned tid)
{
    return atomic_load(&calls[tid < MPI_WATCH_MAXT ? tid : MPI_WATCH_MAXT]);
}

unsigned long mpi_watch_overlaps(void)
{
    return atomic_load(&overlaps);
}

static void enter(void)
{
    atomic_fetch_add(&calls[me], 1);
    if (atomic_fetch_add(&inside, 1) != 0)
        atomic_fetch_add(&overlaps, 1);
}

static int leave(int rc)
{
    atomic_fetch_sub(&inside, 1);
    return rc;
}

int MPI_Isend(const void *buf, int n, MPI_Datatype t, int dest, int tag, MPI_Comm c, MPI_Request *r)
{
    enter();
    return leave(PMPI_Isend(buf, n, t, dest, tag, c, r));
}

int MPI_Irecv(void *buf, int n, MPI_Datatype t, int src, int tag, MPI_Comm c, MPI_Request *r)
{
    enter();
    return leave(PMPI_Irecv(buf, n, t, src, tag, c, r));
}

int MPI_Ibarrier(MPI_Comm c, MPI_Request *r)
{
    enter();
    return leave(PMPI_Ibarrier(c, r));
}

int MPI_Test(MPI_Request *r, int *flag, MPI_Status *st)
{
    enter();
    return leave(PMPI_Test(r, flag, st));
}

int MPI_Testall(int n, MPI_Request r[], int *flag, MPI_Status st[])
{
    enter();
    return leave(PMPI_Testall(n, r, flag, st));
}

int MPI_Testsome(int n, MPI_Request r[], int *outcount, int idx[], MPI_Status st[])
{
    enter();
    return leave(PMPI_Testsome(n, r, outcount, idx, st));
}

int MPI_Cancel(MPI_Request *r)
{
    enter();
    return leave(PMPI_Cancel(r));
}

int MPI_Wait(MPI_Request *r, MPI_Status *st)
{
    enter();
    return leave(PMPI_Wait(r, st));
}

int MPI_Request_free(MPI_Request *r)
{
    enter();
    return leave(PMPI_Request_free(r));
}

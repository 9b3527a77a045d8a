"""004's published figures that the simulated workloads are read against (seed 004_bffc6c40a88a61a2),
kept here once for the report (workload.py) and scripts/sim_004_tables.py.

TABLE_XI: 004 §VIII-E, Table XI — average time per call in the one-producer-many-consumers benchmark
(6 threads) on 004's prototype, software primitives (SW) and Subutai's: (row, the record's call, SW ns,
Subutai ns). The calls are the keys of a workload record's "calls" (docs/sim.md).
"""

TABLE_XI_THREADS = 6
TABLE_XI = (
    ("Mutex lock empty", "lock_empty", 1537, 127),
    ("Mutex lock queued", "lock_queued", 64178, 916),
    ("Mutex unlock", "unlock", 4400, 60),
    ("Barrier wait (released)", "barrier_wait", 102467, 1183),
    ("Condition broadcast", "broadcast", 25209, 60),
    ("Condition queued", "cond_wait", 42844, 1022),
)

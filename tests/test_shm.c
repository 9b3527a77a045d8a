/* test_shm.c — process-shared barriers: forked and separately exec'd processes that map one file at
 * different addresses run 10^4 episodes with the counter check; corrupt, truncated or mismatched
 * segments are refused (run under ASan too: nothing outside the mapping is touched); a participant
 * process killed mid-run leaves the others with ETIMEDOUT / AG_EBROKEN; a reset by another process while
 * the participants stay attached starts them afresh. Behaviour only, no timing.
 *
 * Internal mode: test_shm --child FILE TID — one participant of the run described in FILE. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "andgate.h"
#include "check.h"

#define NPROC 3
#define EPISODES 10000
#define PAGE 4096

/* The file: this page, then the barrier segment, then the check area. */
struct run_header {
    size_t seg_size, check_off, total;
    unsigned n, episodes;
    int die_after; /* a participant (the last) kills itself after this many episodes; 0: none */
    unsigned reset_at; /* every participant stops before this episode until the parent has reset; 0: none */
    char algo[64], wait[64];
};

struct check_area {
    _Atomic uint64_t arrived;
    _Atomic unsigned errors, timeouts, broken;
    _Atomic unsigned paused, resumed, reset_rc; /* reset_at: participants stopped; the parent's reset done */
    _Atomic unsigned serial[EPISODES];
};

static char self_exe[4096];

/* Maps the file somewhere else than the last mapping: a throw-away mapping of a few pages first moves
 * the kernel's choice of address. */
static void *map_file(const char *path, size_t total, unsigned shift)
{
    int fd = open(path, O_RDWR);
    if (fd < 0)
        return NULL;
    void *pad = mmap(NULL, (size_t)(1 + shift) * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    void *m = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    (void)pad; /* kept mapped until exit, so the addresses stay apart */
    return m == MAP_FAILED ? NULL : m;
}

/* One participant: attach, run the episodes with the counter check. Exit status 0 = ran them all. */
static int participant(const char *path, unsigned tid)
{
    struct run_header rh;
    int fd = open(path, O_RDONLY);
    if (fd < 0 || read(fd, &rh, sizeof rh) != (ssize_t)sizeof rh)
        return 10;
    close(fd);
    unsigned char *m = map_file(path, rh.total, tid + 1);
    if (!m)
        return 11;
    ag_barrier_t *b;
    if (ag_barrier_attach_shm(&b, m + PAGE, rh.seg_size) != 0)
        return 12;
    struct check_area *ck = (struct check_area *)(void *)(m + rh.check_off);
    int status = 0;
    unsigned seed = 2654435761u * (tid + 1);
    for (unsigned k = 0; k < rh.episodes; k++) {
        if (rh.reset_at) { /* staggered arrivals, so that a participant let through early is seen */
            seed = seed * 1103515245u + 12345u;
            for (unsigned i = (seed >> 16) % 4 == 0 ? (seed >> 8) % 4000 : 0; i > 0; i--)
                __asm__ __volatile__("" ::: "memory");
        }
        if (rh.die_after && tid == rh.n - 1 && k == (unsigned)rh.die_after)
            raise(SIGKILL); /* a participant dies mid-run */
        if (rh.reset_at && k == rh.reset_at) { /* the parent resets the barrier, this handle stays attached */
            atomic_fetch_add(&ck->paused, 1);
            while (!atomic_load(&ck->resumed))
                usleep(1000);
        }
        atomic_fetch_add_explicit(&ck->arrived, 1, memory_order_relaxed);
        /* a short deadline only where a participant is gone: before that, a loaded machine's slow
         * participant must not time out first (the run would end before the kill) */
        struct timespec dl = in_ms(rh.die_after && k >= (unsigned)rh.die_after ? 500 : 60000);
        int rc = ag_barrier_wait_until(b, tid, &dl);
        if (rc == ETIMEDOUT || rc == AG_EBROKEN) {
            atomic_fetch_add(rc == ETIMEDOUT ? &ck->timeouts : &ck->broken, 1);
            status = 3;
            break;
        }
        if (rc == AG_SERIAL)
            atomic_fetch_add_explicit(&ck->serial[k], 1, memory_order_relaxed);
        else if (rc != 0) {
            atomic_fetch_add(&ck->errors, 1);
            status = 4;
            break;
        }
        uint64_t seen = atomic_load_explicit(&ck->arrived, memory_order_relaxed);
        if (seen < (uint64_t)(k + 1) * rh.n || seen >= (uint64_t)(k + 2) * rh.n) {
            atomic_fetch_add(&ck->errors, 1);
            status = 5;
            break;
        }
    }
    ag_barrier_destroy(b); /* detach */
    return status;
}

/* Creates the file for a run; returns its path in path (mkstemp). */
static int make_run(char *path, const char *algo, const char *wait, unsigned episodes, int die_after,
                    unsigned reset_at)
{
    ag_config_t cfg = { .nthreads = NPROC, .algo = algo, .wait = wait, .flags = AG_PSHARED };
    size_t seg = ag_barrier_shm_size(&cfg);
    if (!seg)
        return -1;
    struct run_header rh = { .seg_size = seg, .n = NPROC, .episodes = episodes, .die_after = die_after,
                             .reset_at = reset_at };
    rh.check_off = PAGE + (seg + PAGE - 1) / PAGE * PAGE;
    rh.total = rh.check_off + (sizeof(struct check_area) + PAGE - 1) / PAGE * PAGE;
    snprintf(rh.algo, sizeof rh.algo, "%s", algo);
    snprintf(rh.wait, sizeof rh.wait, "%s", wait);
    strcpy(path, "/tmp/andgate-shm-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0 || ftruncate(fd, (off_t)rh.total) != 0)
        return -1;
    void *m = mmap(NULL, rh.total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return -1;
    memcpy(m, &rh, sizeof rh);
    int rc = ag_barrier_init_shm((unsigned char *)m + PAGE, seg, &cfg);
    munmap(m, rh.total);
    return rc;
}

static struct check_area *read_check(const char *path, struct run_header *rh, void **m)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0 || read(fd, rh, sizeof *rh) != (ssize_t)sizeof *rh)
        return NULL;
    close(fd);
    *m = map_file(path, rh->total, 0);
    return *m ? (struct check_area *)(void *)((unsigned char *)*m + rh->check_off) : NULL;
}

/* A run with reset_at: once every participant has stopped, this process attaches a handle of its own,
 * resets the barrier through it and lets them go on (the result in the check area). */
static void reset_when_paused(const char *path)
{
    struct run_header rh;
    void *m;
    struct check_area *ck = read_check(path, &rh, &m);
    if (!ck || !rh.reset_at) {
        if (m)
            munmap(m, rh.total);
        return;
    }
    for (int ms = 0; atomic_load(&ck->paused) < rh.n && ms < 60000; ms++)
        usleep(1000);
    ag_barrier_t *b;
    int rc = ag_barrier_attach_shm(&b, (unsigned char *)m + PAGE, rh.seg_size);
    if (rc == 0) {
        rc = ag_barrier_reset(b);
        ag_barrier_destroy(b);
    }
    atomic_store(&ck->reset_rc, (unsigned)rc);
    atomic_store(&ck->resumed, 1);
    munmap(m, rh.total);
}

/* n processes, forked (exec = 0) or exec'd, all participants; returns their exit statuses. */
static void run_processes(const char *path, int exec, int *status)
{
    pid_t pid[NPROC];
    for (unsigned t = 0; t < NPROC; t++) {
        pid[t] = fork();
        if (pid[t] == 0) {
            if (exec) {
                char tid[16];
                snprintf(tid, sizeof tid, "%u", t);
                execl(self_exe, self_exe, "--child", path, tid, (char *)NULL);
                _exit(20);
            }
            _exit(participant(path, t));
        }
    }
    reset_when_paused(path);
    for (unsigned t = 0; t < NPROC; t++) {
        int st;
        waitpid(pid[t], &st, 0);
        status[t] = WIFEXITED(st) ? WEXITSTATUS(st) : 100 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    }
}

/* n processes run the barrier; reset_at: another process resets it after that many episodes while they stay
 * attached (0: none). tune hands each participant over to its choice once it has decided (a process-local
 * lane, algo.h); after the reset all of them must tune again: a lane kept would run the old choice on flags
 * put back for the tuning, and hang or miscount. */
static void processes_case(const char *algo, const char *wait, int exec, unsigned reset_at)
{
    char path[64];
    if (make_run(path, algo, wait, EPISODES, 0, reset_at) != 0) {
        CHECK(0, "%s: could not create the run file", algo);
        return;
    }
    int st[NPROC];
    run_processes(path, exec, st);
    struct run_header rh;
    void *m;
    struct check_area *ck = read_check(path, &rh, &m);
    unsigned bad = 0;
    for (unsigned k = 0; ck && k < EPISODES; k++)
        bad += ck->serial[k] != 1;
    CHECK(st[0] == 0 && st[1] == 0 && st[2] == 0, "%s wait=%s %s reset_at=%u: exit statuses %d %d %d", algo, wait,
          exec ? "exec" : "fork", reset_at, st[0], st[1], st[2]);
    CHECK(ck && ck->errors == 0 && bad == 0 && ck->reset_rc == 0, "%s wait=%s %s reset_at=%u: %u counter errors, "
          "%u episodes without exactly one AG_SERIAL, reset returned %u", algo, wait, exec ? "exec" : "fork",
          reset_at, ck ? (unsigned)ck->errors : 0, bad, ck ? (unsigned)ck->reset_rc : 0);
    if (m)
        munmap(m, rh.total);
    unlink(path);
}

static void killed_case(const char *algo)
{
    char path[64];
    if (make_run(path, algo, "auto", EPISODES, 100, 0) != 0) {
        CHECK(0, "%s: run file", algo);
        return;
    }
    int st[NPROC];
    run_processes(path, 0, st);
    struct run_header rh;
    void *m;
    struct check_area *ck = read_check(path, &rh, &m);
    CHECK(st[2] == 100 + SIGKILL, "%s: the last participant should have been killed, status %d", algo, st[2]);
    CHECK(st[0] == 3 && st[1] == 3, "%s: survivors should stop with ETIMEDOUT/AG_EBROKEN, statuses %d %d", algo,
          st[0], st[1]);
    CHECK(ck && ck->timeouts >= 1 && ck->timeouts + ck->broken == 2 && ck->errors == 0,
          "%s: %u timed out, %u saw the barrier broken, %u errors", algo, ck ? (unsigned)ck->timeouts : 0,
          ck ? (unsigned)ck->broken : 0, ck ? (unsigned)ck->errors : 0);
    if (m)
        munmap(m, rh.total);
    unlink(path);
}

static unsigned xorshift(unsigned *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

/* Corrupt segments are refused; they live in exactly-sized heap buffers, so under ASan any access
 * outside them is reported. */
static void corruption_case(const char *algo)
{
    ag_config_t cfg = { .nthreads = 5, .algo = algo, .wait = "block", .flags = AG_PSHARED };
    size_t len = ag_barrier_shm_size(&cfg);
    CHECK(len > 0, "%s: size", algo);
    unsigned char *good = aligned_alloc(64, len), *seg = aligned_alloc(64, len);
    CHECK(ag_barrier_init_shm(good, len - 1, &cfg) == EINVAL, "%s: init into too little memory", algo);
    CHECK(ag_barrier_init_shm(good + 8, len, &cfg) == EINVAL, "%s: init into misaligned memory", algo);
    CHECK(ag_barrier_init_shm(good, len, &cfg) == 0, "%s: init", algo);
    ag_barrier_t *b;
    CHECK(ag_barrier_attach_shm(&b, good, len) == 0, "%s: attach the good segment", algo);
    ag_barrier_destroy(b);
    CHECK(ag_barrier_attach_shm(&b, good, len - 1) == EINVAL, "%s: truncated length", algo);
    CHECK(ag_barrier_attach_shm(&b, good, 16) == EINVAL, "%s: length below the header", algo);
    CHECK(ag_barrier_attach_shm(&b, NULL, len) == EINVAL && ag_barrier_attach_shm(NULL, good, len) == EINVAL,
          "%s: NULL", algo);

    /* wrong version: the field after the magic */
    memcpy(seg, good, len);
    seg[8] ^= 1;
    CHECK(ag_barrier_attach_shm(&b, seg, len) == EINVAL, "%s: wrong version", algo);

    /* every byte of the metadata (header, shape, state and padding: everything before the arena)
     * changed in turn; the arena starts at the first offset whose change still attaches (flag values
     * are data, not metadata) */
    size_t meta = 0;
    {
        for (size_t i = 0; i < len; i++) {
            memcpy(seg, good, len);
            seg[i] ^= 0x5a;
            int rc = ag_barrier_attach_shm(&b, seg, len);
            if (rc == 0) {
                ag_barrier_destroy(b);
                meta = i;
                break;
            }
        }
    }
    CHECK(meta >= 128, "%s: some metadata byte (%zu) was not protected", algo, meta);
    unsigned refused = 0;
    for (size_t i = 0; i < meta; i++) {
        memcpy(seg, good, len);
        seg[i] ^= 0xff;
        refused += ag_barrier_attach_shm(&b, seg, len) == EINVAL;
    }
    CHECK(refused == meta, "%s: %u of %zu single-byte changes of the metadata refused", algo, refused, meta);

    /* random segments, and random segments behind a valid magic and version */
    unsigned seed = 12345;
    for (int r = 0; r < 300; r++) {
        for (size_t i = 0; i < len; i++)
            seg[i] = (unsigned char)xorshift(&seed);
        if (r % 2)
            memcpy(seg, good, 16);
        CHECK(ag_barrier_attach_shm(&b, seg, len) == EINVAL, "%s: random segment %d accepted", algo, r);
    }

    /* garbage in the flags themselves: attach works (they are values), and a wait returns (EBUSY or EINVAL
     * when participant 0's marker reads as inside or arrived: the slot looks held) */
    memcpy(seg, good, len);
    for (size_t i = meta; i < len; i++)
        seg[i] = (unsigned char)xorshift(&seed);
    if (ag_barrier_attach_shm(&b, seg, len) == 0) {
        struct timespec dl = in_ms(20);
        int rc = ag_barrier_wait_until(b, 0, &dl);
        CHECK(rc == ETIMEDOUT || rc == AG_EBROKEN || rc == 0 || rc == AG_SERIAL || rc == EBUSY || rc == EINVAL,
              "%s: wait on garbage flags %d", algo, rc);
        ag_barrier_destroy(b);
    }
    free(good);
    free(seg);
}

/* ag_barrier_shm_check refuses what attach refuses, saying why in one line, and a segment that holds
 * another configuration than the caller's. want: the words the message must hold (NULL: accepted). */
static void expect_check(const void *seg, size_t len, const ag_config_t *cfg, const char *what, const char *want1,
                         const char *want2)
{
    char msg[256] = "x";
    int rc = ag_barrier_shm_check(seg, len, cfg, msg, sizeof msg);
    if (!want1) {
        CHECK(rc == 0 && !msg[0], "check, %s: %d '%s'", what, rc, msg);
        return;
    }
    CHECK(rc == EINVAL && strstr(msg, want1) && (!want2 || strstr(msg, want2)) && !strchr(msg, '\n'),
          "check, %s: %d '%s', want '%s' and '%s'", what, rc, msg, want1, want2 ? want2 : "");
    ag_barrier_t *b;
    CHECK(cfg || ag_barrier_attach_shm(&b, (void *)seg, len) == EINVAL, "check, %s: attach accepts it", what);
}

static void check_case(void)
{
    ag_config_t cfg = { .nthreads = 3, .algo = "combining:arity=2", .wait = "block", .flags = AG_PSHARED };
    size_t len = ag_barrier_shm_size(&cfg);
    unsigned char *seg = aligned_alloc(64, len), *good = malloc(len);
    CHECK(len && seg && good && ag_barrier_init_shm(seg, len, &cfg) == 0, "check: init");
    memcpy(good, seg, len);
    expect_check(seg, len, NULL, "a good segment", NULL, NULL);
    expect_check(seg, len, &cfg, "its own configuration", NULL, NULL);
    ag_config_t other = cfg;
    other.algo = "auto"; /* what the library chooses is not compared */
    expect_check(seg, len, &other, "auto", NULL, NULL);
    other = cfg;
    other.nthreads = 4;
    expect_check(seg, len, &other, "another nthreads", "3 participants", "expected 4");
    other = cfg;
    other.algo = "combining:arity=4";
    expect_check(seg, len, &other, "another algorithm", "combining:arity=2", "expected combining:arity=4");
    other.algo = "combining:arity=0";
    expect_check(seg, len, &other, "a bad expected spec", "arity", "expected");
    seg[8] ^= 1; /* the layout version, after the magic */
    expect_check(seg, len, NULL, "another layout version", "version 5", "version 4");
    memset(seg, 0, len);
    expect_check(seg, len, NULL, "zeros", "not an andgate segment", NULL);
    memcpy(seg, good, len);
    expect_check(seg, len - 1, NULL, "a truncated mapping", "bytes", NULL);
    seg[40] ^= 0x5a; /* a parameter in the header (magic, version, sizes come first): the checksum */
    expect_check(seg, len, NULL, "a corrupt segment", "checksum", NULL);
    expect_check(seg + 1, len - 1, NULL, "misaligned", "aligned", NULL);
    expect_check(NULL, len, NULL, "NULL", "NULL", NULL);
    CHECK(ag_barrier_shm_check(seg, len, NULL, NULL, 0) == EINVAL, "check without a message buffer");
    free(seg);
    free(good);
}

int main(int argc, char **argv)
{
    ssize_t n = readlink("/proc/self/exe", self_exe, sizeof self_exe - 1);
    self_exe[n > 0 ? n : 0] = '\0';
    if (argc == 4 && !strcmp(argv[1], "--child"))
        return participant(argv[2], (unsigned)atoi(argv[3]));

    static const char *const algos[] = { "central", "counting", "ticket", "linear", "combining", "mcs",
                                         "tournament", "stour", "dtour", "dissemination", "hybrid" };
    for (unsigned a = 0; a < sizeof algos / sizeof algos[0]; a++) {
        processes_case(algos[a], "auto", 0, 0);
        processes_case(algos[a], a % 2 ? "block" : "hybrid:spin_ns=2000,yield_ns=2000", 1, 0);
        corruption_case(algos[a]);
    }
    processes_case("tune:block=1,rounds=1", "auto", 0, 200);
    processes_case("tune", "hybrid:spin_ns=2000,yield_ns=2000", 0, 200);
    check_case();
    killed_case("dissemination");
    killed_case("central");
    killed_case("combining");
    return check_done();
}

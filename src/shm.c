/* shm.c — process-shared barriers: the whole state in the caller's shared mapping, offsets only.
 *
 * Segment layout (all offsets from the start of the segment, every part 128-byte aligned):
 *   header   struct shm_header: magic, version, sizes, the resolved configuration, offsets, checksum
 *   shape    uint32_t rank[n], group[3][n]: where participants run (trees and groups follow it)
 *   state    the algorithm's pointer-free state block (flag indices, tables)
 *   arena    the flags, uint64_t[nslots]; each participant's own line holds its episode number, its
 *            inside marker and its owner (the process that entered through it last: owner.c)
 *   sleepers uint32_t[nslots]: futex sleepers per flag (shared futexes)
 *
 * Attaching trusts nothing in the segment: it checks the header's identity (magic, layout version,
 * header size) and size against the mapping length, a 64-bit FNV-1a checksum over everything before the
 * arena (any single changed byte changes it), the configuration's fields, then recomputes the
 * algorithm's layout from that configuration and the validated shape and requires it to equal the
 * stored one, byte for byte (ag_barrier_shm_check runs the same checks and says which one refused). The
 * attached handle uses its own recomputed copy of the state; the arena and sleeper counts are the only
 * shared parts, and they hold values only, never indices or sizes, so nothing in the segment can make
 * the library read or write out of bounds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "shape.h"

#define SHM_MAGIC UINT64_C(0x45544147444e41) /* "ANDGATE" */
/* 2: participant lines carry owner words (pid, start time, namespace key), which ag_barrier_reset
 * reads to tell a participant that died inside from one still waiting; a version-1 process would
 * leave them stale, so the two never share a segment. 3: the wait policy's lead_ns (wait.h). 4: its
 * stall_ns */
#define SHM_VERSION 4u
#define SHM_ALIGN 128u
#define AG_MAX_SHM_THREADS (1u << 20)

struct shm_header {
    uint64_t magic;
    uint32_t version, header_size;
    uint64_t total_size;
    uint32_t nthreads, algo;
    int64_t params[AG_MAXKEYS];
    uint32_t wait_kind, pad0;
    uint64_t wait_ns, wait_yield_ns, wait_lead_ns, wait_stall_ns;
    uint32_t ngroups[3], nslots;
    uint64_t epoch0;
    uint64_t shape_off, state_off, state_size, arena_off, sleepers_off;
    uint64_t checksum; /* FNV-1a over [0, arena_off), this field as 0 */
};

static size_t align_up(size_t x)
{
    return (x + SHM_ALIGN - 1) / SHM_ALIGN * SHM_ALIGN;
}

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * UINT64_C(0x100000001b3);
    return h;
}

/* Over everything before the arena: the header (checksum field as 0), shape, state and the padding
 * between them. */
static uint64_t checksum_of(const unsigned char *mem, const struct shm_header *h)
{
    struct shm_header copy = *h;
    copy.checksum = 0;
    uint64_t c = fnv1a(UINT64_C(0xcbf29ce484222325), &copy, sizeof copy);
    return fnv1a(c, mem + sizeof copy, h->arena_off - sizeof copy);
}

/* Everything about a segment that follows from a configuration: the planned (not placed) handle, its
 * layout, the shape, and the segment offsets. */
struct plan {
    ag_barrier_t *b;
    struct ag_layout L;
    struct ag_shape sh;
    struct shm_header h;
};

static void plan_free(struct plan *p)
{
    free(p->L.state);
    ag_shape_free(&p->sh);
    free(p->b);
    memset(p, 0, sizeof *p);
}

/* Offsets and total size from n, the state size and the arena size; 0 or EINVAL on overflow. */
static int lay_out(struct shm_header *h, unsigned n, size_t state_size, uint32_t nslots)
{
    size_t shape = (size_t)n * 4 * sizeof(uint32_t);
    h->header_size = sizeof *h;
    h->shape_off = align_up(sizeof *h);
    h->state_off = align_up(h->shape_off + shape);
    h->state_size = state_size;
    if (state_size > SIZE_MAX / 4 || nslots > UINT32_MAX / 2)
        return EINVAL;
    h->arena_off = align_up(h->state_off + state_size);
    h->sleepers_off = align_up(h->arena_off + (size_t)nslots * sizeof(uint64_t));
    h->total_size = align_up(h->sleepers_off + (size_t)nslots * sizeof(uint32_t));
    h->nslots = nslots;
    return 0;
}

static int plan_from_config(const ag_config_t *cfg, struct plan *p)
{
    char msg[256];
    struct ag_spec sp;
    struct ag_waitpol wp;
    memset(p, 0, sizeof *p);
    int rc = ag_resolve(cfg, &sp, &wp, &p->sh, msg, sizeof msg);
    if (rc)
        return rc;
    if (!(p->b = ag_handle_alloc(cfg->nthreads))) {
        ag_shape_free(&p->sh);
        return ENOMEM;
    }
    if ((rc = ag_plan(p->b, cfg->nthreads, sp.index, sp.val, &wp, &p->sh, &p->L))) {
        plan_free(p);
        return rc;
    }
    struct shm_header *h = &p->h;
    h->magic = SHM_MAGIC;
    h->version = SHM_VERSION;
    h->nthreads = cfg->nthreads;
    h->algo = sp.index;
    for (int k = 0; k < AG_MAXKEYS; k++)
        h->params[k] = sp.val[k];
    h->wait_kind = (uint32_t)wp.kind;
    h->wait_ns = wp.ns;
    h->wait_yield_ns = wp.yield_ns;
    h->wait_lead_ns = wp.lead_ns;
    h->wait_stall_ns = wp.stall_ns;
    for (int l = 0; l < 3; l++)
        h->ngroups[l] = p->sh.ngroups[l];
    if ((rc = lay_out(h, cfg->nthreads, p->L.state_size, p->L.nslots)))
        plan_free(p);
    return rc;
}

size_t ag_barrier_shm_size(const ag_config_t *cfg)
{
    struct plan p;
    if (plan_from_config(cfg, &p))
        return 0;
    size_t total = p.h.total_size;
    plan_free(&p);
    return total;
}

/* A handle placed on the segment, from a plan whose state it takes over. */
static ag_barrier_t *place(struct plan *p, unsigned char *mem)
{
    ag_barrier_t *b = p->b;
    const struct shm_header *h = &p->h;
    ag_place(b, h->nthreads, (_Atomic uint64_t *)(void *)(mem + h->arena_off),
             ag_wait_may_block(&b->wp) ? (_Atomic uint32_t *)(void *)(mem + h->sleepers_off) : NULL, &p->L,
             h->epoch0, 1);
    b->owns_memory = 0;
    p->b = NULL;
    p->L.state = NULL; /* now the handle's */
    return b;
}

int ag_barrier_init_shm(void *mem, size_t len, const ag_config_t *cfg)
{
    struct plan p;
    if (!mem || ((uintptr_t)mem % 64))
        return EINVAL;
    int rc = plan_from_config(cfg, &p);
    if (rc)
        return rc;
    if (p.h.total_size > len) {
        plan_free(&p);
        return EINVAL; /* too small: ag_barrier_shm_size says how much */
    }
    unsigned char *m = mem;
    unsigned n = p.h.nthreads;
    memset(m, 0, p.h.total_size);
    uint32_t *shape = (uint32_t *)(void *)(m + p.h.shape_off);
    for (unsigned t = 0; t < n; t++) {
        shape[t] = p.sh.rank[t];
        for (int l = 0; l < 3; l++)
            shape[(size_t)(l + 1) * n + t] = p.sh.group[l][t];
    }
    memcpy(m + p.h.state_off, p.L.state, p.L.state_size);
    ag_barrier_t *b = place(&p, m);
    ag_reset_state(b);
    ag_barrier_destroy(b);
    /* the header last, checksum included: a segment is valid only once it is complete */
    p.h.checksum = 0;
    memcpy(m, &p.h, sizeof p.h);
    p.h.checksum = checksum_of(m, &p.h);
    memcpy(m, &p.h, sizeof p.h);
    plan_free(&p);
    return 0;
}

/* Shape arrays from the segment, validated: rank a permutation of 0..n-1, each level's group ids dense
 * from 0 and non-decreasing by at most one along the rank order (contiguous runs). */
static int shape_from_segment(const uint32_t *a, unsigned n, const uint32_t ngroups[3], struct ag_shape *sh)
{
    unsigned *mem = calloc((size_t)n * 5, sizeof *mem);
    if (!mem)
        return ENOMEM;
    *sh = (struct ag_shape){ .n = n, .mem = mem, .rank = mem, .order = mem + n };
    for (unsigned q = 0; q < n; q++)
        sh->order[q] = UINT32_MAX;
    for (unsigned t = 0; t < n; t++) {
        if (a[t] >= n || sh->order[a[t]] != UINT32_MAX)
            goto bad;
        sh->rank[t] = a[t];
        sh->order[a[t]] = t;
    }
    for (int l = 0; l < 3; l++) {
        sh->group[l] = mem + (size_t)(2 + l) * n;
        sh->ngroups[l] = ngroups[l];
        for (unsigned t = 0; t < n; t++)
            sh->group[l][t] = a[(size_t)(l + 1) * n + t];
        for (unsigned q = 0; q < n; q++) {
            unsigned g = sh->group[l][sh->order[q]], prev = q ? sh->group[l][sh->order[q - 1]] : 0;
            if (g >= ngroups[l] || (q == 0 && g != 0) || (q && g != prev && g != prev + 1))
                goto bad;
        }
        if (n && sh->group[l][sh->order[n - 1]] + 1 != ngroups[l])
            goto bad;
    }
    return 0;
bad:
    ag_shape_free(sh);
    return EINVAL;
}

/* The configuration in a header is one ag_barrier_init_shm could have written. */
static int config_sane(const struct shm_header *h)
{
    if (h->nthreads < 1 || h->nthreads > AG_MAX_SHM_THREADS || h->algo >= ag_nalgos || h->wait_kind > AG_W_HYBRID)
        return 0;
    for (int l = 0; l < 3; l++)
        if (h->ngroups[l] < 1 || h->ngroups[l] > h->nthreads)
            return 0;
    /* every key value within what the spec parser accepts */
    const struct ag_kind *k = &ag_algos[h->algo]->k;
    const struct ag_key *key;
    unsigned j = 0;
    for (; (key = ag_spec_key(&ag_algo_table, k, j)); j++) {
        int64_t v = h->params[j], nwords = 0;
        while (key->words && key->words[nwords])
            nwords++;
        if (ag_is_word(v) ? ag_word(v) >= nwords : (key->min > key->max || v < key->min || v > key->max))
            return 0;
    }
    for (; j < AG_MAXKEYS; j++)
        if (h->params[j] != 0)
            return 0;
    /* the offsets are exactly what the sizes give: recompute them */
    struct shm_header want = *h;
    if (lay_out(&want, h->nthreads, h->state_size, h->nslots))
        return 0;
    return want.shape_off == h->shape_off && want.state_off == h->state_off && want.arena_off == h->arena_off &&
           want.sleepers_off == h->sleepers_off && want.total_size == h->total_size;
}

static int refuse(char *msg, size_t msglen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, msglen, fmt, ap);
    va_end(ap);
    return EINVAL;
}

/* The header is one that ag_barrier_init_shm of this library wrote into a mapping of len bytes: 0, or
 * EINVAL and why. Identity and size first; then the checksum over everything before the arena (every
 * changed byte), read only once the arena offset lies within the mapping; then the configuration,
 * which a good checksum leaves wrong only in a segment of another build. */
static int header_check(const unsigned char *m, const struct shm_header *h, size_t len, char *msg, size_t msglen)
{
    if (h->magic != SHM_MAGIC)
        return refuse(msg, msglen, "not an andgate segment (no ANDGATE magic at its start)");
    if (h->version != SHM_VERSION)
        return refuse(msg, msglen, "segment layout version %u; this libandgate reads version %u (made by another "
                      "libandgate)", h->version, SHM_VERSION);
    if (h->header_size != sizeof *h)
        return refuse(msg, msglen, "segment header of %u bytes; this libandgate's has %zu (made by another build)",
                      h->header_size, sizeof *h);
    if (h->total_size > len)
        return refuse(msg, msglen, "the segment needs %llu bytes; the mapping has %zu (truncated, or a wrong len)",
                      (unsigned long long)h->total_size, len);
    if (h->arena_off < sizeof *h || h->arena_off > h->total_size || checksum_of(m, h) != h->checksum)
        return refuse(msg, msglen, "checksum mismatch: the segment is corrupt, or ag_barrier_init_shm has not "
                      "(wholly) laid it out");
    if (!config_sane(h))
        return refuse(msg, msglen, "the segment holds a configuration this libandgate cannot have written");
    return 0;
}

/* Every check of attach, into p (zeroed first; plan_free it in any case): the header, the shape, and the
 * layout recomputed from the stored configuration, which must equal the stored one byte for byte. The
 * handle planned from it is p->b. 0, or EINVAL or ENOMEM and why. */
static int open_segment(const void *mem, size_t len, struct plan *p, char *msg, size_t msglen)
{
    memset(p, 0, sizeof *p);
    if (!mem || (uintptr_t)mem % 64)
        return refuse(msg, msglen, mem ? "mem is not 64-byte aligned" : "mem is NULL");
    if (len < sizeof(struct shm_header))
        return refuse(msg, msglen, "len %zu is below a segment header (%zu bytes)", len,
                      sizeof(struct shm_header));
    const unsigned char *m = mem;
    const struct shm_header *h = &p->h;
    memcpy(&p->h, m, sizeof p->h); /* one snapshot: the checks below and the use are of the same values */
    int rc = header_check(m, h, len, msg, msglen);
    if (rc)
        return rc;
    if ((rc = shape_from_segment((const uint32_t *)(const void *)(m + h->shape_off), h->nthreads, h->ngroups,
                                 &p->sh)))
        return rc == EINVAL ? refuse(msg, msglen, "the participant shape in the segment is not valid") : rc;
    long params[AG_MAXKEYS];
    for (int k = 0; k < AG_MAXKEYS; k++)
        params[k] = (long)h->params[k];
    struct ag_waitpol wp = { (int)h->wait_kind, h->wait_ns, h->wait_yield_ns, h->wait_lead_ns,
                             h->wait_stall_ns };
    if (!(p->b = ag_handle_alloc(h->nthreads)))
        return snprintf(msg, msglen, "out of memory"), ENOMEM;
    if ((rc = ag_plan(p->b, h->nthreads, h->algo, params, &wp, &p->sh, &p->L)))
        return snprintf(msg, msglen, "its layout cannot be planned: %s", ag_strerror(rc)), rc;
    if (p->L.nslots != h->nslots || p->L.state_size != h->state_size ||
        memcmp(p->L.state, m + h->state_off, h->state_size) != 0)
        return refuse(msg, msglen, "the stored layout is not the one its configuration gives");
    return 0;
}

int ag_barrier_attach_shm(ag_barrier_t **out, void *mem, size_t len)
{
    struct plan p;
    int rc = out ? open_segment(mem, len, &p, NULL, 0) : EINVAL;
    if (!rc)
        *out = place(&p, mem);
    if (out)
        plan_free(&p);
    return rc;
}

/* The segment holds cfg's barrier as far as cfg says: its nthreads, and its algorithm with every
 * parameter where cfg->algo is a spec (what auto, or an unset cfg->algo, chose depended on the process
 * that laid it out). */
static int holds(const struct shm_header *h, const ag_config_t *cfg, char *msg, size_t msglen)
{
    if (cfg->nthreads != h->nthreads)
        return refuse(msg, msglen, "the segment holds a barrier of %u participants; expected %u", h->nthreads,
                      cfg->nthreads);
    if (!cfg->algo || !strcmp(cfg->algo, "auto"))
        return 0;
    struct ag_spec sp;
    int rc = ag_spec_parse(&ag_algo_table, cfg->algo, &sp, msg, msglen);
    if (rc)
        return rc;
    long held[AG_MAXKEYS];
    for (int k = 0; k < AG_MAXKEYS; k++)
        held[k] = (long)h->params[k];
    if (sp.index == h->algo && !memcmp(sp.val, held, sizeof held))
        return 0;
    char have[128], want[128];
    ag_kind_format(&ag_algo_table, &ag_algos[h->algo]->k, held, have, sizeof have);
    ag_kind_format(&ag_algo_table, sp.kind, sp.val, want, sizeof want);
    return refuse(msg, msglen, "the segment holds %s; expected %s", have, want);
}

int ag_barrier_shm_check(const void *mem, size_t len, const ag_config_t *cfg, char *msg, size_t msglen)
{
    char dummy[1];
    if (!msg || !msglen)
        msg = dummy, msglen = sizeof dummy;
    msg[0] = '\0';
    struct plan p;
    int rc = open_segment(mem, len, &p, msg, msglen);
    if (!rc && cfg)
        rc = holds(&p.h, cfg, msg, msglen);
    plan_free(&p);
    return rc;
}

/* Per-uid charges and log budgets (bsd_peer.h). */
#include "bsd_peer.h"

#include <stdlib.h>

/* An entry that holds nothing is freed once its bucket would be full again anyway. */
#define BSD_PEER_KEEP_NS ((uint64_t)(BSD_PEER_LOG_BURST / BSD_PEER_LOG_RATE) * 1000000000u)
#define TOKEN 1000u
#define BURST ((uint64_t)BSD_PEER_LOG_BURST * TOKEN)

bsd_peer *bsd_peer_get(bsd_peers *ps, uid_t uid, uint64_t now_ns)
{
    for (bsd_peer *p = ps->head; p != NULL; p = p->next)
        if (p->uid == uid)
            return p;
    bsd_peer *p = (bsd_peer *)calloc(1, sizeof *p);
    if (p == NULL)
        return NULL;
    p->uid = uid;
    p->log_tokens = BURST;
    p->log_refill_ns = now_ns;
    p->last_log_ns = now_ns;
    p->next = ps->head;
    ps->head = p;
    ps->count++;
    return p;
}

static void refill(bsd_peer *p, uint64_t now_ns)
{
    if (now_ns <= p->log_refill_ns)
        return;
    /* RATE lines a second = RATE * TOKEN / 1e9 tokens a nanosecond. */
    uint64_t dt = now_ns - p->log_refill_ns;
    uint64_t add = dt / (1000000000u / (BSD_PEER_LOG_RATE * TOKEN));
    if (add == 0)
        return;
    p->log_tokens = p->log_tokens + add >= BURST ? BURST : p->log_tokens + add;
    p->log_refill_ns = now_ns;
}

/*
 * Says the count of suppressed lines when a token is there for it (it takes that token), at most
 * once a second.
 */
static void say_suppressed(bsd_peer *p, uint64_t now_ns)
{
    if (p->log_suppressed == 0 || p->log_tokens < TOKEN ||
        (p->said_ns != 0 && now_ns - p->said_ns < 1000000000u))
        return;
    p->log_tokens -= TOKEN;
    p->last_log_ns = p->said_ns = now_ns;
    bsd_log("warn", "log_suppressed", "uid=%u suppressed=%llu reason=\"log budget of this uid\"",
            (unsigned)p->uid, (unsigned long long)p->log_suppressed);
    p->log_suppressed = 0;
}

int bsd_peer_log_ok(bsd_peers *ps, bsd_peer *p, uint64_t now_ns)
{
    if (p == NULL)
        return 1;
    refill(p, now_ns);
    say_suppressed(p, now_ns);
    if (p->log_tokens >= TOKEN) {
        p->log_tokens -= TOKEN;
        p->last_log_ns = now_ns;
        return 1;
    }
    p->log_suppressed++;
    ps->suppressed_total++;
    return 0;
}

void bsd_peers_tick(bsd_peers *ps, uint64_t now_ns)
{
    for (bsd_peer **pp = &ps->head; *pp != NULL;) {
        bsd_peer *p = *pp;
        refill(p, now_ns);
        say_suppressed(p, now_ns);
        const int holds = p->clients != 0 || p->sessions != 0 || p->jobs != 0 ||
                          p->queued_bytes != 0 || p->shm_bytes != 0 || p->log_suppressed != 0;
        if (!holds && now_ns - p->last_log_ns > BSD_PEER_KEEP_NS) {
            *pp = p->next;
            ps->count--;
            free(p);
        } else {
            pp = &p->next;
        }
    }
}

void bsd_peers_free(bsd_peers *ps)
{
    while (ps->head != NULL) {
        bsd_peer *p = ps->head;
        ps->head = p->next;
        free(p);
    }
    ps->count = 0;
}

uint64_t bsd_peer_cap(uint64_t configured, uint64_t global)
{
    uint64_t cap = configured != 0 ? configured : global - global / 4;
    /* Never the whole bound: whatever the setting, another uid keeps one at least (of 2 up). */
    const uint64_t most = global > 1 ? global - 1 : 1;
    if (cap > most)
        cap = most;
    return cap > 0 ? cap : 1;
}

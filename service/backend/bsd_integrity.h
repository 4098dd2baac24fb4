/*
 * bsd_integrity.h: the daemon's side of keystream integrity (PROTOCOL.md "Integrity"): each
 * KEYSTREAM job gets a seed and a poison word when it is accepted; its backend seals (digests)
 * the blocks it writes, counting the words still equal to what the window held before: the
 * client's zeroes (the CPU backend) or the poison the backend put there first (CUDA;
 * bsd_backend.h); at completion the job is answered with
 * the digest, or refused when a poisoned word survived. A test hook can make the daemon fault on
 * purpose (BSD_TEST_FAULT, tests only).
 */
#ifndef BSD_INTEGRITY_H
#define BSD_INTEGRITY_H

#include "bsd_backend.h"

/* On the loop thread, when the job is accepted. */
void bsd_job_integrity_init(bsd_job *job, int unchecked);
/*
 * On the loop thread, after the backend finished: 0 and the reply's digest, or -1 when words of
 * the window still hold the poison (*unwritten: how many).
 */
int bsd_job_verdict(const bsd_job *job, uint64_t *digest, uint64_t *unwritten);
/* After a verdict of 0, for a job with pieces: the digest of each piece into out (npieces). */
void bsd_job_piece_digests(const bsd_job *job, uint64_t *out, size_t npieces);

/*
 * Test hook, read once at start from $BSD_TEST_FAULT: "skip" (the backend's stores of the middle
 * block of every job do not land) and "unwritten" (the backend does not write that block) leave
 * it as the window held it before the backend (the CPU backend: the client's zeroes; CUDA: the
 * poison); "wrong" makes every block wrong before it is sealed (a consistently wrong backend);
 * "window" writes into the CUDA backend's window after the device's copy, as a client can (the
 * self-check fails, the device's private recheck agrees: the part is redone, the device stays);
 * "nomem" makes the daemon's allocation of a window's shared pages fail as when the kernel has
 * no memory for them (ENOMEM).
 * Returns the mode's name, or NULL when no fault is set.
 */
const char *bsd_fault_init(void);
enum {
    BSD_FAULT_NONE,
    BSD_FAULT_SKIP,
    BSD_FAULT_UNWRITTEN,
    BSD_FAULT_WRONG,
    BSD_FAULT_WINDOW,
    BSD_FAULT_NOMEM
};
int bsd_fault_mode(void);

#endif

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libsroce-linger.so: LD_PRELOAD it into an unmodified verbs program to
 * keep each QP alive for $SROCE_LINGER_MS milliseconds (default 2000, at
 * most 60000) before ibv_destroy_qp() really destroys it.
 *
 * Why: an RC requester learns that its last message arrived only from the
 * responder's ACK. A program with no closing handshake (ibv_rc_pingpong)
 * destroys its QP as soon as its last receive completes; when that one
 * ACK is lost, the peer's resends find no QP and its send ends in
 * IBV_WC_RETRY_EXC_ERR, on any RDMA device. 99-faults runs the ping-pong
 * over 10 % loss with this library on both sides, so that a retry
 * exhaustion there means the transport failed to recover while both QPs
 * existed (Documentation/selftests.rst, 99-faults.sh). Every QP waits its
 * own delay: a program destroying N QPs in turn waits N times as long.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include <infiniband/verbs.h>

#define LINGER_MS_DEFAULT 2000L
#define LINGER_MS_MAX 60000L

/* $SROCE_LINGER_MS, or the default when unset or not a number */
static long linger_ms(void)
{
	const char *s = getenv("SROCE_LINGER_MS");
	char *end;
	long ms;

	if (!s || !*s)
		return LINGER_MS_DEFAULT;
	errno = 0;
	ms = strtol(s, &end, 10);
	if (errno || *end || ms < 0)
		return LINGER_MS_DEFAULT;
	return ms > LINGER_MS_MAX ? LINGER_MS_MAX : ms;
}

typedef int (*destroy_qp_fn)(struct ibv_qp *);

/* libibverbs' own, looked up once: racing callers find the same pointer */
static destroy_qp_fn real_destroy_qp(void)
{
	static destroy_qp_fn real;
	destroy_qp_fn fn = __atomic_load_n(&real, __ATOMIC_ACQUIRE);

	if (!fn) {
		fn = (destroy_qp_fn)dlsym(RTLD_NEXT, "ibv_destroy_qp");
		__atomic_store_n(&real, fn, __ATOMIC_RELEASE);
	}
	return fn;
}

int ibv_destroy_qp(struct ibv_qp *qp)
{
	destroy_qp_fn real = real_destroy_qp();
	int saved = errno;
	long ms = linger_ms();
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	if (!real)
		return EINVAL;
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	errno = saved;
	return real(qp);
}

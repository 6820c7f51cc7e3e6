// SPDX-License-Identifier: GPL-2.0
/*
 * mpi_pingpong - a two-rank MPI check for selftests/92-mpi.sh.
 *
 * Rank 0 sends a message of each size to rank 1, which checks every byte
 * against the pattern for (size, iteration, direction) and sends back the
 * pattern for the other direction; rank 0 checks it in turn. Sizes cross
 * UCX's eager/rendezvous thresholds, so both the copy and the zero-copy
 * (RDMA READ/WRITE) protocols carry data. Then MPI_Allreduce (sum and max
 * over an int64 vector) is checked against the value computed locally,
 * and an MPI_Bcast from rank 1. Any mismatch is printed and exits 1; on
 * success rank 0 prints one "ok" line per part and the round-trip times
 * (diagnostics only).
 *
 *	mpi_pingpong [ITERS]	(default 4)
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const size_t sizes[] = { 1, 64, 4096, 65536, 1 << 20 };

static unsigned char pattern(size_t size, int iter, int dir, size_t i)
{
	return (unsigned char)(i * 131 + size * 7 + (size_t)iter * 17 + (size_t)dir * 101 + 1);
}

static void fill(unsigned char *buf, size_t size, int iter, int dir)
{
	size_t i;

	for (i = 0; i < size; i++)
		buf[i] = pattern(size, iter, dir, i);
}

/* 0 when buf holds the pattern, else reports the first bad byte */
static int check(const unsigned char *buf, size_t size, int iter, int dir, int rank)
{
	size_t i;

	for (i = 0; i < size; i++) {
		if (buf[i] != pattern(size, iter, dir, i)) {
			fprintf(stderr, "rank %d: size %zu iter %d dir %d: byte %zu is 0x%02x, want 0x%02x\n",
				rank, size, iter, dir, i, buf[i], pattern(size, iter, dir, i));
			return 1;
		}
	}
	return 0;
}

static int pingpong(int rank, int iters, unsigned char *buf)
{
	size_t s;
	int it, bad = 0, peer = !rank;

	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t size = sizes[s];
		double t0;

		MPI_Barrier(MPI_COMM_WORLD);
		t0 = MPI_Wtime();
		for (it = 0; it < iters; it++) {
			if (rank == 0) {
				fill(buf, size, it, 0);
				MPI_Send(buf, (int)size, MPI_BYTE, peer, it, MPI_COMM_WORLD);
				memset(buf, 0, size);
				MPI_Recv(buf, (int)size, MPI_BYTE, peer, it, MPI_COMM_WORLD,
					 MPI_STATUS_IGNORE);
				bad |= check(buf, size, it, 1, rank);
			} else {
				memset(buf, 0, size);
				MPI_Recv(buf, (int)size, MPI_BYTE, peer, it, MPI_COMM_WORLD,
					 MPI_STATUS_IGNORE);
				bad |= check(buf, size, it, 0, rank);
				fill(buf, size, it, 1);
				MPI_Send(buf, (int)size, MPI_BYTE, peer, it, MPI_COMM_WORLD);
			}
		}
		if (rank == 0)
			printf("pingpong %zu B x %d: %.1f us per round trip\n", size, iters,
			       (MPI_Wtime() - t0) * 1e6 / iters);
	}
	return bad;
}

static int allreduce(int rank, int nranks)
{
	enum { N = 1024 };
	static int64_t in[N], sum[N], max[N];
	int i, bad = 0;

	for (i = 0; i < N; i++)
		in[i] = (int64_t)(rank + 1) * (i + 1) - (rank == 1 ? 7 * i : 0);
	MPI_Allreduce(in, sum, N, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
	MPI_Allreduce(in, max, N, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
	for (i = 0; i < N; i++) {
		int64_t s = 0, m = INT64_MIN, v;
		int r;

		for (r = 0; r < nranks; r++) {
			v = (int64_t)(r + 1) * (i + 1) - (r == 1 ? 7 * i : 0);
			s += v;
			if (v > m)
				m = v;
		}
		if (sum[i] != s || max[i] != m) {
			fprintf(stderr, "rank %d: allreduce [%d]: sum %lld (want %lld), max %lld (want %lld)\n",
				rank, i, (long long)sum[i], (long long)s,
				(long long)max[i], (long long)m);
			bad = 1;
			break;
		}
	}
	return bad;
}

static int bcast(int rank)
{
	enum { N = 100000 };
	static unsigned char buf[N];
	int bad;

	if (rank == 1)
		fill(buf, N, 5, 2);
	MPI_Bcast(buf, N, MPI_BYTE, 1, MPI_COMM_WORLD);
	bad = check(buf, N, 5, 2, rank);
	return bad;
}

/* every rank's verdict, so rank 0 reports for all and all exit alike */
static int all_ok(int bad)
{
	int any;

	MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
	return !any;
}

int main(int argc, char **argv)
{
	int rank, nranks, iters = 4, ok = 1, len;
	char name[MPI_MAX_PROCESSOR_NAME];
	unsigned char *buf;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	if (argc > 1)
		iters = atoi(argv[1]);
	if (nranks != 2 || iters < 1) {
		if (rank == 0)
			fprintf(stderr, "need 2 ranks (have %d) and ITERS >= 1\n", nranks);
		MPI_Finalize();
		return 2;
	}
	MPI_Get_processor_name(name, &len);
	printf("rank %d of %d on %s\n", rank, nranks, name);
	fflush(stdout);
	buf = malloc(sizes[sizeof(sizes) / sizeof(sizes[0]) - 1]);
	if (!buf)
		MPI_Abort(MPI_COMM_WORLD, 2);

	if (all_ok(pingpong(rank, iters, buf))) {
		if (rank == 0)
			printf("ok pingpong: every byte checked both ways\n");
	} else {
		ok = 0;
	}
	if (all_ok(allreduce(rank, nranks))) {
		if (rank == 0)
			printf("ok allreduce: sum and max of 1024 int64 checked\n");
	} else {
		ok = 0;
	}
	if (all_ok(bcast(rank))) {
		if (rank == 0)
			printf("ok bcast: 100000 bytes from rank 1 checked\n");
	} else {
		ok = 0;
	}
	free(buf);
	MPI_Finalize();
	return ok ? 0 : 1;
}

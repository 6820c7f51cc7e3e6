// SPDX-License-Identifier: GPL-2.0
/*
 * xrc_open_qp DEVICE: an XRC TGT QP shared between two processes with
 * ibv_open_qp(), as XRC applications (MPI) share one receive QP per node.
 *
 * Process A opens an XRC domain through a file, creates an XRC SRQ and a
 * TGT QP. Process B opens the same domain through the same file and:
 *   - ibv_open_qp() of a QP number that is not A's QP fails;
 *   - ibv_open_qp() of A's QP number succeeds, and the handle is the QP:
 *     B moves it to INIT, A queries INIT;
 *   - posting to the opened handle fails (a TGT QP has no queues);
 * then A closes its own handle (ibv_destroy_qp() of a TGT QP closes the
 * creator's handle: the QP lives while any process holds one), and B still
 * finds the QP in INIT before it closes the last handle.
 * Built by 90-xrc.sh; prints each step, exits 0 when all hold.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "verbs_dev.h"

#define XRC_FILE "/tmp/xrc_open_qp.domain"

static int fail(const char *what, int err)
{
	printf("FAIL: %s: %s\n", what, strerror(err));
	return 1;
}

static struct ibv_xrcd *open_domain(struct ibv_context *ctx, int *fd)
{
	struct ibv_xrcd_init_attr xa = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.oflags = O_CREAT,
	};

	*fd = open(XRC_FILE, O_RDONLY | O_CREAT, 0600);
	if (*fd < 0)
		return NULL;
	xa.fd = *fd;
	return ibv_open_xrcd(ctx, &xa);
}

static int qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;

	if (ibv_query_qp(qp, &attr, IBV_QP_STATE, &init))
		return -1;
	return attr.qp_state;
}

/* B: open A's QP, move it to INIT, try to post, close; report on @out */
static int child(const char *dev, uint32_t qpn, int go, int out)
{
	struct ibv_qp_open_attr oa = {
		.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
			     IBV_QP_OPEN_ATTR_TYPE,
		.qp_type = IBV_QPT_XRC_RECV,
	};
	struct ibv_recv_wr rwr = { .wr_id = 1 }, *bad_rwr;
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	struct ibv_context *ctx;
	struct ibv_xrcd *xrcd;
	struct ibv_qp *qp;
	char c = 'x';
	int fd;

	ctx = open_dev(dev);
	if (!ctx)
		return fail("B: open device", errno);
	xrcd = open_domain(ctx, &fd);
	if (!xrcd)
		return fail("B: open XRC domain", errno);
	oa.xrcd = xrcd;
	oa.qp_num = qpn + 1000;
	if (ibv_open_qp(ctx, &oa))
		return fail("B: a QP number that is not in the domain was opened", 0);
	printf("B: QP %u (not in the domain) refused: %s\n", oa.qp_num, strerror(errno));
	oa.qp_num = qpn;
	qp = ibv_open_qp(ctx, &oa);
	if (!qp)
		return fail("B: ibv_open_qp", errno);
	printf("B: opened QP %u\n", qp->qp_num);
	if (ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		return fail("B: modify the opened QP to INIT", errno);
	if (!ibv_post_recv(qp, &rwr, &bad_rwr))
		return fail("B: posting a receive to a TGT QP succeeded", 0);
	printf("B: moved it to INIT; post_recv refused\n");
	/* let A look while the handle is open, then close it */
	if (write(out, &c, 1) != 1 || read(go, &c, 1) != 1)
		return fail("B: pipe", errno);
	if (qp_state(qp) != IBV_QPS_INIT)
		return fail("B: the QP is gone with its creator's handle", errno);
	printf("B: the QP is still there (INIT) after A closed its handle\n");
	if (ibv_destroy_qp(qp))
		return fail("B: close the opened QP", errno);
	ibv_close_xrcd(xrcd);
	ibv_close_device(ctx);
	close(fd);
	printf("B: closed its handle\n");
	return 0;
}

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_XRC_RECV,
		.comp_mask = IBV_QP_INIT_ATTR_XRCD,
	};
	struct ibv_srq_init_attr_ex sa = {
		.attr = { .max_wr = 16, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_XRCD |
			     IBV_SRQ_INIT_ATTR_CQ | IBV_SRQ_INIT_ATTR_PD,
		.srq_type = IBV_SRQT_XRC,
	};
	int to_a[2], to_b[2], fd, st, err;
	struct ibv_context *ctx;
	struct ibv_xrcd *xrcd;
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	char c;
	pid_t pid;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc != 2) {
		fprintf(stderr, "usage: xrc_open_qp DEVICE\n");
		return 2;
	}
	unlink(XRC_FILE);
	ctx = open_dev(argv[1]);
	if (!ctx)
		return fail("A: open device", errno);
	xrcd = open_domain(ctx, &fd);
	if (!xrcd)
		return fail("A: open XRC domain", errno);
	sa.xrcd = xrcd;
	sa.pd = ibv_alloc_pd(ctx);
	sa.cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	srq = sa.pd && sa.cq ? ibv_create_srq_ex(ctx, &sa) : NULL;
	if (!srq)
		return fail("A: XRC SRQ", errno);
	qa.xrcd = xrcd;
	qp = ibv_create_qp_ex(ctx, &qa);
	if (!qp)
		return fail("A: XRC TGT QP", errno);
	printf("A: TGT QP %u, state %d\n", qp->qp_num, qp_state(qp));
	if (pipe(to_a) || pipe(to_b))
		return fail("pipe", errno);
	pid = fork();
	if (pid < 0)
		return fail("fork", errno);
	if (!pid)
		_exit(child(argv[1], qp->qp_num, to_b[0], to_a[1]));
	if (read(to_a[0], &c, 1) != 1) {
		waitpid(pid, &st, 0);
		return fail("A: B ended early", 0);
	}
	err = 0;
	if (qp_state(qp) != IBV_QPS_INIT)
		err = fail("A: the QP B moved to INIT is not in INIT", 0);
	if (ibv_destroy_qp(qp))
		err = fail("A: close its handle while B holds one", errno);
	printf("A: sees INIT; closed its handle\n");
	if (write(to_b[1], &c, 1) != 1)
		return fail("A: pipe", errno);
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		return fail("A: B failed", 0);
	if (ibv_destroy_srq(srq) || ibv_close_xrcd(xrcd))
		return fail("A: teardown", errno);
	close(fd);
	unlink(XRC_FILE);
	printf("A: all as expected\n");
	return err;
}

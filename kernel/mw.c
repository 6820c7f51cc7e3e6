// SPDX-License-Identifier: GPL-2.0
/*
 * sroce memory windows (IBTA 10.6.7).
 *
 * A window grants remote access to a range of an MR that was registered
 * with IB_ACCESS_MW_BIND, under its own rkey. Type 1 windows are bound
 * with ibv_bind_mw() and serve any QP of their PD; type 2 (2B) windows are
 * bound by a BIND_MW work request, serve only the QP that bound them and
 * are invalidated with LOCAL_INV or a SEND with Invalidate. Both binds run
 * in the requester, in order with the QP's other work requests.
 *
 * Keys share the MR key format (index << 8 | 8-bit key); a window's index
 * has SROCE_MW_INDEX_BIT set, so the responder tells a window's rkey from
 * an MR's by the key alone. The table entry (struct sroce_win) is freed
 * after an RCU grace period; a bound window holds a reference on its MR,
 * and a remote access through it takes one more for the transfer, exactly
 * as an MR lookup does, so deregistering the MR or deallocating the window
 * never waits for a transfer (its next copy fails, see mr_copy.c).
 */
#include <linux/random.h>
#include <linux/overflow.h>

#include "sroce.h"
#include "qp.h"
#include "mw.h"
#include "mr.h"

/**
 * struct sroce_win - a memory window's table entry
 * @rcu: freed after readers of the MW table are gone
 * @lock: bind, invalidation and deallocation against remote lookups
 * @dead: deallocated: no lookup succeeds any more
 * @type: IB_MW_TYPE_1 or IB_MW_TYPE_2 (2B: bound to a QP and its PD)
 * @pd: the MW's PD
 * @key: the rkey the window answers to now
 * @mr: the MR it is bound to (a reference), NULL when unbound
 * @va: first byte of the window (in @mr's address space)
 * @len: bytes in the window
 * @access: IB_ACCESS_REMOTE_* granted through the window
 * @qpn: type 2: the QP it was bound through, the only one it serves
 * @gen: a new value of the device's mw_gen at allocation and at every
 *	unbind, never one another window had: a transfer that began through
 *	the window goes on only while it stays (sroce_mw_copy_skb()), not
 *	through a window allocated at the same index and rkey after a
 *	dealloc_mw
 */
struct sroce_win {
	struct rcu_head rcu;
	spinlock_t lock;	/* bind and invalidation against lookups */
	bool dead;
	enum ib_mw_type type;
	struct ib_pd *pd;
	u32 key;
	struct sroce_mr *mr;
	u64 va;
	u64 len;
	int access;
	u32 qpn;
	u32 gen;
};

#define SROCE_MW_ACCESS	(IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_ATOMIC)

void sroce_mw_init_dev(struct sroce_dev *sdev)
{
	xa_init_flags(&sdev->mw_xa, XA_FLAGS_ALLOC);
	sdev->mw_next = 1;
}

void sroce_mw_cleanup_dev(struct sroce_dev *sdev)
{
	WARN_ON_ONCE(!xa_empty(&sdev->mw_xa));
	xa_destroy(&sdev->mw_xa);
}

static inline struct sroce_mw *sroce_to_mw(struct ib_mw *ibmw)
{
	return container_of(ibmw, struct sroce_mw, ibmw);
}

/**
 * sroce_alloc_mw() - ib_device_ops.alloc_mw
 * @ibmw: the core's MW (type and PD set)
 * @udata: user data (none expected)
 *
 * Return: 0 with ibmw->rkey set, -EINVAL for a type other than 1 or 2,
 * -ENOMEM when the device has SROCE_MAX_MW windows.
 */
int sroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct sroce_dev *sdev = sroce_to_dev(ibmw->device);
	struct sroce_mw *mw = sroce_to_mw(ibmw);
	struct sroce_win *win;
	u32 idx;
	int err;

	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2) {
		sroce_dbg_dev(ibmw->device, "alloc_mw: type %d (1 or 2 only)", ibmw->type);
		return -EINVAL;
	}
	if (udata && udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen)) {
		sroce_dbg_dev(ibmw->device,
			      "alloc_mw: %zu bytes of driver data not zero (takes none)",
			      udata->inlen);
		return -EINVAL;
	}
	if (atomic_inc_return(&sdev->mw_count) > SROCE_MAX_MW) {
		sroce_dbg_dev(ibmw->device, "alloc_mw: the device has max_mw %d MWs already",
			      SROCE_MAX_MW);
		err = -ENOMEM;
		goto err_dec_count;
	}
	win = kzalloc(sizeof(*win), GFP_KERNEL_ACCOUNT);
	if (!win) {
		err = -ENOMEM;
		goto err_dec_count;
	}
	spin_lock_init(&win->lock);
	win->gen = (u32)atomic_inc_return(&sdev->mw_gen);
	win->type = ibmw->type;
	win->pd = ibmw->pd;

	err = xa_alloc_cyclic(&sdev->mw_xa, &idx, NULL, XA_LIMIT(1, SROCE_MAX_MW),
			      &sdev->mw_next, GFP_KERNEL_ACCOUNT);
	if (err < 0) {
		sroce_dbg_dev(ibmw->device, "alloc_mw: no MW index: error %d", err);
		err = err == -EBUSY ? -ENOMEM : err;
		goto err_free_win;
	}
	win->key = ((SROCE_MW_INDEX_BIT | idx) << 8) | (get_random_u32() & 0xff);
	ibmw->rkey = win->key;
	mw->win = win;
	/* a reserved entry reads as NULL; this store publishes the window */
	err = xa_err(xa_store(&sdev->mw_xa, idx, win, GFP_KERNEL_ACCOUNT));
	if (err)
		goto err_erase;
	return 0;

err_erase:
	xa_erase(&sdev->mw_xa, idx);
err_free_win:
	kfree(win);
err_dec_count:
	atomic_dec(&sdev->mw_count);
	return err;
}

/* Forget the binding; returns the MR reference to drop (after the lock). */
static struct sroce_mr *sroce_win_unbind(struct sroce_dev *sdev, struct sroce_win *win)
{
	struct sroce_mr *mr = win->mr;

	lockdep_assert_held(&win->lock);
	win->gen = (u32)atomic_inc_return(&sdev->mw_gen);
	win->mr = NULL;
	win->va = 0;
	win->len = 0;
	win->access = 0;
	return mr;
}

/**
 * sroce_dealloc_mw() - ib_device_ops.dealloc_mw
 * @ibmw: the MW
 *
 * Never waits for a transfer through the window: one already under way
 * holds its own MR reference, and fails at its next packet
 * (sroce_mw_copy_skb()): no WRITE copies through the window once this
 * returns, and no READ response packet is built from it after the one
 * being built, if any (its check and copy are not under the window's
 * lock, nor is an atomic's).
 * Return: 0.
 */
int sroce_dealloc_mw(struct ib_mw *ibmw)
{
	struct sroce_dev *sdev = sroce_to_dev(ibmw->device);
	struct sroce_win *win = sroce_to_mw(ibmw)->win;
	struct sroce_mr *mr;

	xa_erase(&sdev->mw_xa, (win->key >> 8) & ~SROCE_MW_INDEX_BIT);
	spin_lock_bh(&win->lock);
	win->dead = true;
	mr = sroce_win_unbind(sdev, win);
	spin_unlock_bh(&win->lock);
	if (mr)
		sroce_mr_put(mr);
	kfree_rcu(win, rcu);
	atomic_dec(&sdev->mw_count);
	return 0;
}

/*
 * The window @key names, or NULL; the caller holds rcu_read_lock() and
 * must check win->dead under win->lock.
 */
static struct sroce_win *sroce_win_find(struct sroce_dev *sdev, u32 key)
{
	if (!sroce_key_is_mw(key))
		return NULL;
	return xa_load(&sdev->mw_xa, (key >> 8) & ~SROCE_MW_INDEX_BIT);
}

/*
 * May @ibqp bind @win as @b says? The window is live and of the QP's PD.
 * Type 1: named by its current rkey (a key it had before a rebind is
 * stale). Type 2: free (invalidated or never bound), and bound with a
 * length; a bound type 2 window belongs to its QP until invalidated.
 */
static bool sroce_win_bind_ok(const struct sroce_win *win, const struct ib_qp *ibqp,
			      const struct sroce_bind *b, const char **why)
{
	lockdep_assert_held(&win->lock);
	if (win->dead) {
		*why = "the MW is deallocated";
		return false;
	}
	if (win->pd != ibqp->pd) {
		*why = "the MW is of another PD than the QP";
		return false;
	}
	if (win->type == IB_MW_TYPE_1) {
		*why = "a type 1 MW named by a stale rkey";
		return win->key == b->mw_key;
	}
	*why = win->mr ? "a type 2 MW still bound (invalidate it first)" :
			 "a type 2 MW bound with length 0";
	return !win->mr && b->len;
}

/**
 * sroce_mw_bind() - execute a bind (type 1 or 2) posted on @ibqp
 * @sdev: the device
 * @ibqp: the QP the bind was posted on
 * @b: the bind
 *
 * IBTA 10.6.7.2: the window and the MR belong to the QP's PD, the MR was
 * registered with IB_ACCESS_MW_BIND and holds the whole window, a window
 * granting remote write or atomic access needs an MR with local write, the
 * new rkey keeps the window's index, a type 1 window is named by its
 * current rkey, and a type 2 window must be invalid (unbound) to be bound
 * (sroce_win_bind_ok()). A type 1 window bound with length 0 is unbound.
 *
 * Context: transport (BH disabled).
 * Return: 0 or -EINVAL (the bind completes with IB_WC_MW_BIND_ERR).
 */
int sroce_mw_bind(struct sroce_dev *sdev, struct ib_qp *ibqp, const struct sroce_bind *b)
{
	struct sroce_qp *qp = sroce_to_qp(ibqp);
	struct sroce_mr *mr = NULL, *old;
	const char *why = "the rkey names no MW";
	struct sroce_win *win;
	u64 end;
	u32 gen;
	int err = -EINVAL;

	/* local write may come along (it means nothing for a window) */
	if ((b->new_key >> 8) != (b->mw_key >> 8)) {
		sroce_dbg_qp_rl(qp,
				"bind_mw: new rkey 0x%x changes the index of rkey 0x%x (only its low 8 bits may change)",
				b->new_key, b->mw_key);
		return -EINVAL;
	}
	if (b->access & ~(SROCE_MW_ACCESS | IB_ACCESS_LOCAL_WRITE)) {
		sroce_dbg_qp_rl(qp, "bind_mw: mw_access_flags 0x%x: not remote rights 0x%x",
				b->access, b->access & ~(SROCE_MW_ACCESS | IB_ACCESS_LOCAL_WRITE));
		return -EINVAL;
	}
	if (check_add_overflow(b->va, b->len, &end)) {
		sroce_dbg_qp_rl(qp, "bind_mw: addr 0x%llx + length %llu wraps", b->va, b->len);
		return -EINVAL;
	}
	if (b->len) {
		int need = IB_ACCESS_MW_BIND;

		if (b->access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC))
			need |= IB_ACCESS_LOCAL_WRITE;
		mr = sroce_mr_lookup(sdev, b->mr_key, ibqp->pd, need, b->va, b->len, &gen);
		if (IS_ERR(mr)) {
			sroce_dbg_qp_rl(qp,
					"bind_mw: MR lkey 0x%x: none of the QP's PD, or not registered with MW_BIND%s, or [0x%llx, +%llu) outside it (error %ld)",
					b->mr_key, need & IB_ACCESS_LOCAL_WRITE ?
					" and LOCAL_WRITE (remote write or atomic)" : "",
					b->va, b->len, PTR_ERR(mr));
			return -EINVAL;
		}
		if (mr->frmr || !mr->umem) {	/* user MRs only */
			sroce_dbg_qp_rl(qp,
					"bind_mw: MR lkey 0x%x is no user memory MR", b->mr_key);
			sroce_mr_put(mr);
			return -EINVAL;
		}
	}
	rcu_read_lock();
	win = sroce_win_find(sdev, b->mw_key);
	if (win) {
		spin_lock_bh(&win->lock);
		if (sroce_win_bind_ok(win, ibqp, b, &why)) {
			old = sroce_win_unbind(sdev, win);
			win->mr = mr;
			win->va = b->va;
			win->len = b->len;
			win->access = b->access & SROCE_MW_ACCESS;
			win->qpn = ibqp->qp_num;
			WRITE_ONCE(win->key, b->new_key);
			mr = old;
			err = 0;
		}
		spin_unlock_bh(&win->lock);
	}
	rcu_read_unlock();
	if (err)
		sroce_dbg_qp_rl(qp, "bind_mw: rkey 0x%x: %s", b->mw_key, why);
	if (mr)
		sroce_mr_put(mr);
	return err;
}

/**
 * sroce_mw_invalidate() - local (LOCAL_INV) or remote (SEND with
 *	Invalidate) invalidation of a type 2 window
 * @sdev: the device
 * @pd: the PD of the QP asking
 * @qpn: the QP it arrived on (remote) or was posted on (local): a type 2B
 *	window is invalidated only through the QP it is bound to
 * @key: the window's current rkey
 *
 * Context: transport (BH disabled).
 * Return: 0 or -EINVAL.
 */
static int sroce_mw_invalidate(struct sroce_dev *sdev, struct ib_pd *pd, u32 qpn,
			       u32 key)
{
	struct sroce_mr *mr = NULL;
	struct sroce_win *win;
	int err = -EINVAL;

	rcu_read_lock();
	win = sroce_win_find(sdev, key);
	if (win) {
		spin_lock_bh(&win->lock);
		if (!win->dead && win->type == IB_MW_TYPE_2 && win->mr &&
		    win->key == key && win->pd == pd && win->qpn == qpn) {
			mr = sroce_win_unbind(sdev, win);
			err = 0;
		}
		spin_unlock_bh(&win->lock);
	}
	rcu_read_unlock();
	if (err)
		sroce_dbg_dev_rl(&sdev->ib_dev,
				 "invalidate: rkey 0x%x on qp#%u: no bound type 2 MW of that rkey, PD and QP",
				 key, qpn);
	if (mr)
		sroce_mr_put(mr);
	return err;
}

/* Does @win serve this access? Its MR (no reference taken) or an ERR_PTR. */
static struct sroce_mr *sroce_win_check(struct sroce_win *win, u32 key, struct ib_pd *pd,
					u32 qpn, int need_access, u64 iova, u64 len)
{
	u64 end;

	lockdep_assert_held(&win->lock);
	if (win->dead || !win->mr || win->key != key)
		return ERR_PTR(-ENOENT);
	if (win->pd != pd || (need_access & ~win->access) ||
	    (win->type == IB_MW_TYPE_2 && win->qpn != qpn))
		return ERR_PTR(-EACCES);
	if (check_add_overflow(iova, len, &end) || iova < win->va ||
	    end > win->va + win->len)
		return ERR_PTR(-EINVAL);
	return win->mr;
}

/**
 * sroce_mw_lookup() - resolve a remote access through a window
 * @sdev: the device
 * @key: the rkey (an MW's: sroce_key_is_mw())
 * @pd: the PD of the QP the request arrived on
 * @qpn: that QP's number (a type 2 window serves only its own QP)
 * @need_access: IB_ACCESS_REMOTE_* the request needs
 * @iova: first byte accessed
 * @len: bytes accessed
 * @gen: set to the MR's generation, for sroce_mr_copy()
 *
 * Return: the window's MR with a reference (sroce_mr_put()), or an
 * ERR_PTR: -ENOENT no such window or not bound, -EACCES wrong PD or QP or
 * missing access right, -EINVAL range outside the window.
 */
static struct sroce_mr *sroce_mw_lookup(struct sroce_dev *sdev, u32 key, struct ib_pd *pd,
					u32 qpn, int need_access, u64 iova, u64 len,
					u32 *gen)
{
	struct sroce_mr *mr = ERR_PTR(-ENOENT);
	struct sroce_win *win;

	*gen = 0;
	rcu_read_lock();
	win = sroce_win_find(sdev, key);
	if (win) {
		spin_lock_bh(&win->lock);
		mr = sroce_win_check(win, key, pd, qpn, need_access, iova, len);
		if (!IS_ERR(mr))
			refcount_inc(&mr->ref);	/* the window's own keeps it above 0 */
		/* the window's: a user MR's copies ignore it */
		*gen = win->gen;
		spin_unlock_bh(&win->lock);
	}
	rcu_read_unlock();
	return mr;
}

/*
 * Is @win still bound as it was when a transfer through @key began,
 * holding @mr (a reference: no other MR has its address meanwhile)?
 */
static bool sroce_win_still(const struct sroce_win *win, u32 key, u32 gen,
			    const struct sroce_mr *mr)
{
	lockdep_assert_held(&win->lock);
	return !win->dead && win->mr == mr && win->key == key && win->gen == gen;
}

/**
 * sroce_mw_copy_skb() - sroce_rkey_copy_skb() through a window
 * @sdev: the device
 * @key: the window's rkey the transfer's first packet named
 * @mr: the MR sroce_rkey_lookup() gave it
 * @gen: the window's generation it gave
 * @iova: where the bytes go
 * @skb: the packet; NULL: no copy, only the check (sroce_rkey_still())
 * @off: offset of the payload in @skb
 * @len: payload bytes
 *
 * A transfer keeps its MR from its first packet on, but the window may be
 * invalidated, rebound or freed before its next packet; the transfer then
 * fails as one through an invalidated FR MR does. The copy holds the
 * window's lock: none runs once an invalidation, rebind or dealloc_mw has
 * returned.
 *
 * Context: transport (BH disabled).
 * Return: 0, -EACCES when the window's binding is gone, or the copy's error.
 */
int sroce_mw_copy_skb(struct sroce_dev *sdev, u32 key, struct sroce_mr *mr, u32 gen,
		      u64 iova, const struct sk_buff *skb, u32 off, u32 len)
{
	struct sroce_win *win;
	int err = -EACCES;

	rcu_read_lock();
	win = sroce_win_find(sdev, key);
	if (win) {
		spin_lock_bh(&win->lock);
		if (sroce_win_still(win, key, gen, mr))
			err = skb ? sroce_mr_copy_skb(mr, gen, iova, skb, off, len) : 0;
		spin_unlock_bh(&win->lock);
	}
	rcu_read_unlock();
	return err;
}

/**
 * sroce_key_invalidate() - LOCAL_INV or SEND with Invalidate of @key
 * @sdev: the device
 * @pd: the PD of the QP asking
 * @qpn: the QP it arrived on (SEND with Invalidate) or was posted on
 *	(LOCAL_INV)
 * @key: a FR MR's key or a type 2 window's rkey
 *
 * Return: 0 or -EINVAL.
 */
int sroce_key_invalidate(struct sroce_dev *sdev, struct ib_pd *pd, u32 qpn, u32 key)
{
	if (sroce_key_is_mw(key))
		return sroce_mw_invalidate(sdev, pd, qpn, key);
	return sroce_mr_invalidate(sdev, pd, key);
}

/**
 * sroce_rkey_lookup() - sroce_mr_lookup() for an rkey, which may also name
 *	a memory window (sroce_mw_lookup())
 * @sdev: the device
 * @key: the rkey
 * @pd: the PD of the QP the request arrived on
 * @qpn: that QP's number
 * @need_access: IB_ACCESS_REMOTE_* the request needs
 * @iova: first byte accessed
 * @len: bytes accessed
 * @gen: set to the MR's generation, for sroce_mr_copy()
 *
 * Return: as sroce_mr_lookup(): the MR, to be released with sroce_mr_put(),
 * or an ERR_PTR.
 */
struct sroce_mr *sroce_rkey_lookup(struct sroce_dev *sdev, u32 key, struct ib_pd *pd,
				   u32 qpn, int need_access, u64 iova, u64 len, u32 *gen)
{
	if (sroce_key_is_mw(key))
		return sroce_mw_lookup(sdev, key, pd, qpn, need_access, iova, len, gen);
	return sroce_mr_lookup(sdev, key, pd, need_access, iova, len, gen);
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "nccl.h"

#include <arpa/inet.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "completion.h"
#include "pattern.h"
#include "rng.h"

namespace sroce::verify {

namespace {

enum Purpose : uint64_t {
	kSizeRng = 0x4e43434c10,  // "NCCL" and the purpose; + direction
	kData = 0x4e43434c20,
	kBackground = 0x4e43434c30,
	kTag = 0x4e43434c40,
};

// What each MR of an Endpoint holds in an --nccl run (DEPTH slots each).
enum MrUse : uint32_t { kSrcMr = 0, kDstMr = 1, kFifoMr = 2 };

enum class Kind : uint64_t { Data = 1, Cts = 2, Recv = 3 };

constexpr uint32_t kAlign = 128;  // NCCL keeps multi-QP chunks 128-byte multiples
constexpr unsigned kPollBatch = 16;

// A clear-to-send entry, in the receiver's byte order (NCCL's is too: both
// ends run the same code on the same architecture).
struct FifoEntry {
	uint64_t addr;	// where the message goes
	uint32_t rkey;
	uint32_t capacity;  // the receive buffer's size
	uint64_t tag;	    // derived from the request: a check of the entry
	uint64_t unused[4];
	uint64_t idx;  // request + 1; the sender polls for it
};
static_assert(sizeof(FifoEntry) == 64);

constexpr uint64_t kRequestMask = (1ull << 48) - 1;

uint64_t make_wr_id(Kind k, uint32_t dir, uint32_t q, uint64_t request)
{
	return static_cast<uint64_t>(k) << 60 | static_cast<uint64_t>(dir) << 56 |
	       static_cast<uint64_t>(q) << 48 | (request & kRequestMask);
}

const char *dir_name(uint32_t dir)
{
	return dir ? "server -> client" : "client -> server";
}

// NCCL's split of a SIZE-byte message over QPS QPs: QP Q's chunk starts at
// Q * chunk (also when that is past the end: a zero-length chunk).
struct Chunk {
	uint64_t offset;
	uint32_t length;
};

Chunk chunk_of(uint32_t size, uint32_t qps, uint32_t q)
{
	uint64_t chunk = (static_cast<uint64_t>(size) + qps - 1) / qps;
	chunk = (chunk + kAlign - 1) / kAlign * kAlign;
	uint64_t off = chunk * q;
	uint64_t len = off < size ? std::min<uint64_t>(chunk, size - off) : 0;
	return {off, static_cast<uint32_t>(len)};
}

std::string hex2(uint8_t b)
{
	char s[8];
	std::snprintf(s, sizeof(s), "0x%02x", b);
	return s;
}

// One connection's progress, as seen from this side.
struct Direction {
	uint32_t dir = 0;
	bool sending = false;  // this side is the sender (else the receiver)
	uint64_t requests = 0;
	// sender: requests posted and fully completed; per QP the request its
	// next completion is for; per slot the QP completions still due
	uint64_t posted = 0;
	uint64_t completed = 0;
	// receiver: clear-to-send entries written, requests verified
	uint64_t offered = 0;
	uint64_t received = 0;
	uint64_t next_cts_wc = 0;  // the signaled entry whose completion is next
	uint32_t cts_unreaped = 0;
	std::vector<uint64_t> next_wc;
	std::vector<uint32_t> left;

	bool done() const
	{
		return sending ? completed == requests : received == requests && !cts_unreaped;
	}
};

class NcclRun {
public:
	NcclRun(Endpoint &ep, Session &session, Role me, const PeerInfo &peer, const NcclParams &p,
		std::chrono::milliseconds timeout, bool verbose);
	void run();

private:
	bool offer(Direction &d);
	bool send(Direction &d);
	void on_send_wc(const ibv_wc &wc);
	void on_recv_wc(const ibv_wc &wc);
	void verify(const Direction &d, uint64_t request);
	bool poll(ibv_cq *cq, bool send_cq);
	std::string progress() const;

	ibv_qp *qp(uint32_t dir, uint32_t q) const { return ep_.qp(dir * p_.qps + q); }
	std::span<uint8_t> slot(uint32_t mr, uint64_t request)
	{
		return ep_.bytes(mr).subspan((request % p_.depth) * slot_bytes_, slot_bytes_);
	}
	uint64_t key(uint64_t purpose, const Direction &d, uint64_t request) const
	{
		return derive_key(p_.seed, request, purpose + d.dir);
	}
	[[noreturn]] void fail(const Direction &d, uint64_t request, const std::string &what) const;
	std::string describe_entry(const Direction &d, uint64_t r, const FifoEntry &e,
				   const FifoEntry &live) const;

	Endpoint &ep_;
	Session &session_;
	Role me_;
	PeerInfo peer_;
	PeerInfo mine_;
	NcclParams p_;
	std::chrono::milliseconds timeout_;
	bool verbose_;
	uint64_t slot_bytes_;
	Direction dirs_[2];
};

NcclRun::NcclRun(Endpoint &ep, Session &session, Role me, const PeerInfo &peer, const NcclParams &p,
		 std::chrono::milliseconds timeout, bool verbose)
	: ep_(ep), session_(session), me_(me), peer_(peer), mine_(ep.info()), p_(p),
	  timeout_(timeout), verbose_(verbose), slot_bytes_(mr_size(p.max_size))
{
	if (ep_.num_qps() != nccl_endpoint_qps(p_.qps))
		throw Error("--nccl: the endpoint has the wrong number of QPs");
	if (ep_.max_inline() < sizeof(FifoEntry))
		throw Error("--nccl: the QP's max_inline_data " + std::to_string(ep_.max_inline()) +
			    " is below the 64-byte clear-to-send entry NCCL posts inline");
	for (uint32_t i = 0; i < 2; i++) {
		Direction &d = dirs_[i];
		d.dir = i;
		// the client sends on connection 0, the server on connection 1
		d.sending = (i == 0) == (me_ == Role::Client);
		d.requests = nccl_requests(p_, i);
		d.next_wc.assign(p_.qps, 0);
		d.left.assign(p_.depth, 0);
	}
}

void NcclRun::fail(const Direction &d, uint64_t request, const std::string &what) const
{
	throw Error(std::string(role_name(me_)) + ": nccl " + dir_name(d.dir) + " request " +
		    std::to_string(request) + " (" + std::to_string(nccl_size(p_, d.dir, request)) +
		    " bytes over " + std::to_string(p_.qps) + " QPs): " + what);
}

// Receiver: the next clear-to-send entry, if a slot is free.
bool NcclRun::offer(Direction &d)
{
	if (d.offered == d.requests || d.offered - d.received >= p_.depth)
		return false;
	const uint64_t r = d.offered;
	const uint32_t s = static_cast<uint32_t>(r % p_.depth);
	pattern_fill(slot(kDstMr, r), key(kBackground, d, r), 0);
	for (uint32_t q = 0; q < p_.qps; q++) {
		ibv_recv_wr wr{};
		wr.wr_id = make_wr_id(Kind::Recv, d.dir, q, r);
		ibv_recv_wr *bad = nullptr;
		if (int rc = ibv_post_recv(qp(d.dir, q), &wr, &bad))
			throw_errno("nccl: ibv_post_recv", rc);
	}
	FifoEntry e{};
	e.addr = ep_.addr(kDstMr, s * slot_bytes_ + kGuard);
	e.rkey = mine_.mr_rkey[kDstMr];
	e.capacity = p_.max_size;
	e.tag = key(kTag, d, r);
	e.idx = r + 1;
	ibv_sge sge{reinterpret_cast<uintptr_t>(&e), sizeof(e), ep_.lkey(kFifoMr)};
	ibv_send_wr wr{};
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_INLINE;
	// NCCL signals one entry per round of the FIFO, or its SQ never drains
	if (s == 0) {
		wr.send_flags |= IBV_SEND_SIGNALED;
		wr.wr_id = make_wr_id(Kind::Cts, d.dir, 0, r);
		d.cts_unreaped++;
	}
	wr.wr.rdma.remote_addr = peer_.mr_addr[kFifoMr] + s * sizeof(FifoEntry);
	wr.wr.rdma.rkey = peer_.mr_rkey[kFifoMr];
	ibv_send_wr *bad = nullptr;
	if (int rc = ibv_post_send(qp(d.dir, 0), &wr, &bad))
		throw_errno("nccl: ibv_post_send of a clear-to-send entry", rc);
	d.left[s] = p_.qps;
	d.offered++;
	return true;
}

// What a bad clear-to-send entry holds: whose tag, which slot's address,
// and whether it turns right later (placed out of address order) or not.
std::string NcclRun::describe_entry(const Direction &d, uint64_t r, const FifoEntry &e,
				    const FifoEntry &live) const
{
	std::string tag_of = "no request's";
	for (uint64_t o = r >= 4 * p_.depth ? r - 4 * p_.depth : 0; o < r + 4 * p_.depth; o++)
		if (e.tag == key(kTag, d, o))
			tag_of = "request " + std::to_string(o) + "'s";
	const uint64_t base = peer_.mr_addr[kDstMr] + kGuard;
	std::string addr_of =
		e.addr >= base && (e.addr - base) % slot_bytes_ == 0
			? "slot " + std::to_string((e.addr - base) / slot_bytes_) + "'s address"
			: "address " + std::to_string(e.addr);
	std::this_thread::sleep_for(std::chrono::milliseconds(200));
	FifoEntry later;
	std::memcpy(&later, &live, sizeof(later));
	const bool ok_later = later.tag == key(kTag, d, r) && later.idx == r + 1 &&
			      later.addr == base + (r % p_.depth) * slot_bytes_ &&
			      later.rkey == peer_.mr_rkey[kDstMr];
	return "idx " + std::to_string(e.idx) + ", " + tag_of + " tag, " + addr_of + ", rkey " +
	       (e.rkey == peer_.mr_rkey[kDstMr] ? "right" : "wrong") + ", capacity " +
	       std::to_string(e.capacity) +
	       (ok_later ? "; right 200 ms later (idx landed first)"
			 : "; still wrong 200 ms later");
}

// Sender: the next request, if its slot is free and its entry arrived.
bool NcclRun::send(Direction &d)
{
	if (d.posted == d.requests || d.posted - d.completed >= p_.depth)
		return false;
	const uint64_t r = d.posted;
	const uint32_t s = static_cast<uint32_t>(r % p_.depth);
	auto *slot_entry = reinterpret_cast<FifoEntry *>(ep_.bytes(kFifoMr).data()) + s;
	uint64_t idx = std::atomic_ref<uint64_t>(slot_entry->idx).load(std::memory_order_acquire);
	const uint64_t before = r >= p_.depth ? r + 1 - p_.depth : 0;
	if (idx == before)
		return false;
	if (idx != r + 1)
		fail(d, r,
		     "FIFO slot " + std::to_string(s) + " holds idx " + std::to_string(idx) +
			     ", expected " + std::to_string(before) + " (not yet) or " +
			     std::to_string(r + 1));
	FifoEntry e;
	std::memcpy(&e, slot_entry, sizeof(e));
	const uint32_t size = nccl_size(p_, d.dir, r);
	const uint64_t want_addr = peer_.mr_addr[kDstMr] + s * slot_bytes_ + kGuard;
	if (e.tag != key(kTag, d, r) || e.addr != want_addr || e.rkey != peer_.mr_rkey[kDstMr] ||
	    e.capacity != p_.max_size)
		fail(d, r,
		     "clear-to-send entry corrupt in FIFO slot " + std::to_string(s) + ": " +
			     describe_entry(d, r, e, *slot_entry));
	if (size > e.capacity)
		fail(d, r, "message larger than the receive buffer");

	auto src = slot(kSrcMr, r).subspan(kGuard, size);
	pattern_fill(src, key(kData, d, r), 0);
	const bool ar = size > p_.ar_threshold;
	for (uint32_t q = 0; q < p_.qps; q++) {
		Chunk c = chunk_of(size, p_.qps, q);
		ibv_sge sge{reinterpret_cast<uintptr_t>(src.data()) + c.offset, c.length,
			    ep_.lkey(kSrcMr)};
		ibv_send_wr wrs[2]{};
		wrs[0].sg_list = c.length ? &sge : nullptr;
		wrs[0].num_sge = c.length ? 1 : 0;
		wrs[0].wr.rdma.remote_addr = e.addr + c.offset;
		wrs[0].wr.rdma.rkey = e.rkey;
		// adaptive routing: the data may land in any order, so the
		// completion comes from a separate zero-length WRITE_WITH_IMM
		// (NCCL leaves its address and rkey 0)
		wrs[0].opcode = ar ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_WRITE_WITH_IMM;
		ibv_send_wr &last = ar ? wrs[1] : wrs[0];
		if (ar)
			wrs[0].next = &wrs[1];
		last.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		last.imm_data = htonl(size);
		last.send_flags = IBV_SEND_SIGNALED;
		last.wr_id = make_wr_id(Kind::Data, d.dir, q, r);
		ibv_send_wr *bad = nullptr;
		if (int rc = ibv_post_send(qp(d.dir, q), wrs, &bad))
			throw_errno("nccl: ibv_post_send of request " + std::to_string(r), rc);
	}
	if (verbose_)
		std::cout << "nccl " << dir_name(d.dir) << " request " << r << ": " << size
			  << " bytes over " << p_.qps << " QPs" << (ar ? ", adaptive routing" : "")
			  << std::endl;
	d.left[s] = p_.qps;
	d.posted++;
	return true;
}

void NcclRun::on_send_wc(const ibv_wc &wc)
{
	const auto kind = static_cast<Kind>(wc.wr_id >> 60);
	const uint32_t dir = (wc.wr_id >> 56) & 0xf;
	if (dir > 1 || (kind != Kind::Data && kind != Kind::Cts))
		throw Error(std::string(role_name(me_)) +
			    ": nccl: send completion of no request: " + wc_text(wc));
	Direction &d = dirs_[dir];
	if (kind == Kind::Cts) {
		ExpectedWc e;
		e.wr_id = make_wr_id(Kind::Cts, dir, 0, d.next_cts_wc);
		e.opcode = IBV_WC_RDMA_WRITE;
		e.qp_num = qp(dir, 0)->qp_num;
		if (d.sending || !d.cts_unreaped)
			fail(d, d.next_cts_wc, "unexpected clear-to-send completion");
		if (auto bad = check_completion(wc, e))
			fail(d, d.next_cts_wc, "clear-to-send write: " + *bad);
		d.next_cts_wc += p_.depth;
		d.cts_unreaped--;
		return;
	}
	const uint32_t q = (wc.wr_id >> 48) & 0xff;
	if (!d.sending || q >= p_.qps)
		throw Error(std::string(role_name(me_)) +
			    ": nccl: stray send completion: " + wc_text(wc));
	const uint64_t r = d.next_wc[q];
	ExpectedWc e;
	e.wr_id = make_wr_id(Kind::Data, dir, q, r);
	e.opcode = IBV_WC_RDMA_WRITE;
	e.qp_num = qp(dir, q)->qp_num;
	if (r >= d.posted)
		fail(d, r, "send completion on QP " + std::to_string(q) + " before the post");
	if (auto bad = check_completion(wc, e))
		fail(d, r, "QP " + std::to_string(q) + ": " + *bad);
	d.next_wc[q]++;
	if (--d.left[r % p_.depth])
		return;
	// per QP in order, so a request's last QP completion comes in order too
	if (r != d.completed)
		fail(d, r, "completed before request " + std::to_string(d.completed));
	d.completed++;
}

void NcclRun::on_recv_wc(const ibv_wc &wc)
{
	const uint32_t dir = (wc.wr_id >> 56) & 0xf;
	const uint32_t q = (wc.wr_id >> 48) & 0xff;
	if (static_cast<Kind>(wc.wr_id >> 60) != Kind::Recv || dir > 1 || dirs_[dir].sending ||
	    q >= p_.qps)
		throw Error(std::string(role_name(me_)) +
			    ": nccl: stray receive completion: " + wc_text(wc));
	Direction &d = dirs_[dir];
	const uint64_t r = d.next_wc[q];
	if (r >= d.offered)
		fail(d, r, "receive completion on QP " + std::to_string(q) + " before the post");
	const uint32_t size = nccl_size(p_, dir, r);
	ExpectedWc e;
	e.wr_id = make_wr_id(Kind::Recv, dir, q, r);
	e.opcode = IBV_WC_RECV_RDMA_WITH_IMM;
	e.qp_num = qp(dir, q)->qp_num;
	// the WRITE_WITH_IMM's own length: the chunk, or 0 for the marker
	e.byte_len = size > p_.ar_threshold ? 0 : chunk_of(size, p_.qps, q).length;
	e.check_imm = true;
	e.imm = size;
	if (auto bad = check_completion(wc, e))
		fail(d, r, "QP " + std::to_string(q) + " receive: " + *bad);
	d.next_wc[q]++;
	if (--d.left[r % p_.depth])
		return;
	if (r != d.received)
		fail(d, r, "received before request " + std::to_string(d.received));
	verify(d, r);
	d.received++;
}

// The whole receive slot: background, the message at kGuard, background.
void NcclRun::verify(const Direction &d, uint64_t request)
{
	auto buf = slot(kDstMr, request);
	const uint32_t size = nccl_size(p_, d.dir, request);
	const uint64_t bg = key(kBackground, d, request);
	struct Part {
		uint64_t begin, end, key, pos;
		const char *what;
	} parts[] = {
		{0, kGuard, bg, 0, "guard before the buffer"},
		{kGuard, kGuard + size, key(kData, d, request), 0, "message"},
		{kGuard + size, buf.size(), bg, kGuard + size, "buffer after the message"},
	};
	for (const Part &pt : parts) {
		auto span = buf.subspan(pt.begin, pt.end - pt.begin);
		auto at = pattern_mismatch(span, pt.key, pt.pos);
		if (!at)
			continue;
		fail(d, request,
		     std::string("data mismatch in the ") + pt.what + " at slot offset " +
			     std::to_string(pt.begin + *at) + ": expected " +
			     hex2(pattern_byte(pt.key, pt.pos + *at)) + ", got " + hex2(span[*at]));
	}
}

bool NcclRun::poll(ibv_cq *cq, bool send_cq)
{
	ibv_wc wcs[kPollBatch];
	int n = ibv_poll_cq(cq, kPollBatch, wcs);
	if (n < 0)
		throw Error("nccl: ibv_poll_cq failed");
	for (int i = 0; i < n; i++)
		send_cq ? on_send_wc(wcs[i]) : on_recv_wc(wcs[i]);
	return n > 0;
}

std::string NcclRun::progress() const
{
	std::string s;
	for (const Direction &d : dirs_) {
		if (!d.requests)
			continue;
		s += std::string(s.empty() ? "" : "; ") + dir_name(d.dir) + ": ";
		if (d.sending)
			s += "sent " + std::to_string(d.posted) + ", completed " +
			     std::to_string(d.completed);
		else
			s += "offered " + std::to_string(d.offered) + ", received " +
			     std::to_string(d.received);
		s += " of " + std::to_string(d.requests);
	}
	return s;
}

void NcclRun::run()
{
	auto last = std::chrono::steady_clock::now();
	unsigned idle = 0;
	for (;;) {
		bool busy = false, done = true;
		for (Direction &d : dirs_) {
			while (d.sending ? send(d) : offer(d))
				busy = true;
			done = done && d.done();
		}
		if (done)
			return;
		busy |= poll(ep_.send_cq(), true);
		busy |= poll(ep_.recv_cq(), false);
		if (busy) {
			idle = 0;
			last = std::chrono::steady_clock::now();
			continue;
		}
		if (++idle < 64)
			continue;
		// back off: under emulation the peer and the driver need the CPU
		session_.poll_peer();
		if (std::chrono::steady_clock::now() - last >= timeout_)
			throw Error(std::string(role_name(me_)) + ": nccl: no progress within " +
				    std::to_string(timeout_.count() / 1000) + " s (" + progress() +
				    ")");
		std::this_thread::sleep_for(std::chrono::microseconds(idle < 1024 ? 20 : 200));
	}
}

}  // namespace

uint64_t nccl_requests(const NcclParams &p, uint32_t dir)
{
	switch (p.senders) {
	case Initiators::Client: return dir == 0 ? p.iterations : 0;
	case Initiators::Server: return dir == 1 ? p.iterations : 0;
	case Initiators::Any: break;
	}
	// both at once: the client's connection gets the odd one
	return dir == 0 ? p.iterations - p.iterations / 2 : p.iterations / 2;
}

uint32_t nccl_size(const NcclParams &p, uint32_t dir, uint64_t request)
{
	Rng rng(derive_key(p.seed, request, kSizeRng + dir));
	uint32_t size;
	// messages just around the adaptive-routing threshold, else the
	// tool's usual mix (zero, tiny, packet boundaries, log-uniform)
	if (p.ar_threshold <= p.max_size && rng.chance(15))
		size = static_cast<uint32_t>(
			std::min<uint64_t>(rng.between(p.ar_threshold >= 2 ? p.ar_threshold - 2 : 0,
						       p.ar_threshold + 2ull),
					   p.max_size));
	else
		size = pick_size(rng, p.max_size, p.mtu);
	if (size < p.min_size)
		size = static_cast<uint32_t>(rng.between(p.min_size, p.max_size));
	return size;
}

uint64_t run_nccl(Endpoint &ep, Session &session, Role me, const PeerInfo &peer,
		  const NcclParams &p, std::chrono::milliseconds timeout, bool verbose)
{
	NcclRun(ep, session, me, peer, p, timeout, verbose).run();
	uint64_t bytes = 0;
	for (uint32_t dir = 0; dir < 2; dir++)
		for (uint64_t r = 0; r < nccl_requests(p, dir); r++)
			bytes += nccl_size(p, dir, r);
	return bytes;
}

}  // namespace sroce::verify

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The process's uverbs mappings (rings, device memory) from
// /proc/self/maps, an anonymous memory region, and the ring header
// accessors (kernel/uapi/sroce-abi.h: producer at 0, consumer at 64,
// flags at 128, entries at 256).
#pragma once

#include <sroce-abi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace sroce::hostile {

struct Mapping {
	std::uintptr_t start = 0;
	std::size_t len = 0;
	bool writable = false;
	std::byte *base() const { return reinterpret_cast<std::byte *>(start); }
};

// Every mapping of /dev/infiniband/uverbs* of this process.
std::vector<Mapping> uverbs_mappings();

// The mappings in @after that are not in @before (by start address).
std::vector<Mapping> new_mappings(const std::vector<Mapping> &before,
				  const std::vector<Mapping> &after);

// One u32 of a shared ring, accessed atomically (the kernel reads it).
inline std::atomic_ref<std::uint32_t> ring_word(const Mapping &m, std::size_t off)
{
	return std::atomic_ref<std::uint32_t>(*reinterpret_cast<std::uint32_t *>(m.base() + off));
}

constexpr std::size_t kProducerOff = offsetof(sroce_ring_hdr, producer);
constexpr std::size_t kConsumerOff = offsetof(sroce_ring_hdr, consumer);
constexpr std::size_t kFlagsOff = offsetof(sroce_ring_hdr, flags);

// An anonymous private mapping, unmapped on destruction.
class AnonRegion {
public:
	AnonRegion() = default;
	explicit AnonRegion(std::size_t len);
	~AnonRegion();
	AnonRegion(AnonRegion &&o) noexcept;
	AnonRegion &operator=(AnonRegion &&o) noexcept;
	AnonRegion(const AnonRegion &) = delete;
	AnonRegion &operator=(const AnonRegion &) = delete;

	bool valid() const { return addr_ != nullptr; }
	std::byte *data() const { return addr_; }
	std::size_t size() const { return len_; }

private:
	std::byte *addr_ = nullptr;
	std::size_t len_ = 0;
};

}  // namespace sroce::hostile

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "mapping.h"

#include <sys/mman.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

namespace sroce::hostile {

std::vector<Mapping> uverbs_mappings()
{
	std::vector<Mapping> out;
	std::ifstream maps("/proc/self/maps");
	std::string line;

	while (std::getline(maps, line)) {
		if (line.find("/dev/infiniband/uverbs") == std::string::npos)
			continue;
		std::istringstream in(line);
		std::string range, perms;
		in >> range >> perms;
		const auto dash = range.find('-');
		if (dash == std::string::npos)
			continue;
		Mapping m;
		m.start = std::stoull(range.substr(0, dash), nullptr, 16);
		m.len = std::stoull(range.substr(dash + 1), nullptr, 16) - m.start;
		m.writable = perms.size() > 1 && perms[1] == 'w';
		out.push_back(m);
	}
	return out;
}

std::vector<Mapping> new_mappings(const std::vector<Mapping> &before,
				  const std::vector<Mapping> &after)
{
	std::vector<Mapping> out;
	for (const auto &m : after)
		if (std::none_of(before.begin(), before.end(),
				 [&](const Mapping &b) { return b.start == m.start; }))
			out.push_back(m);
	return out;
}

AnonRegion::AnonRegion(std::size_t len)
{
	void *p = mmap(nullptr, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p != MAP_FAILED) {
		addr_ = static_cast<std::byte *>(p);
		len_ = len;
	}
}

AnonRegion::~AnonRegion()
{
	if (addr_)
		munmap(addr_, len_);
}

AnonRegion::AnonRegion(AnonRegion &&o) noexcept
	: addr_(std::exchange(o.addr_, nullptr)), len_(std::exchange(o.len_, 0))
{}

AnonRegion &AnonRegion::operator=(AnonRegion &&o) noexcept
{
	if (this != &o) {
		if (addr_)
			munmap(addr_, len_);
		addr_ = std::exchange(o.addr_, nullptr);
		len_ = std::exchange(o.len_, 0);
	}
	return *this;
}

}  // namespace sroce::hostile

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Big-endian encoding of the handshake and control messages.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace sroce::verify {

class WireWriter {
public:
	void u32(uint32_t v);
	void u64(uint64_t v);
	void bytes(std::span<const uint8_t> b);
	std::span<const uint8_t> data() const { return buf_; }

private:
	std::vector<uint8_t> buf_;
};

// Throws Error when the message is too short.
class WireReader {
public:
	explicit WireReader(std::span<const uint8_t> b) : buf_(b) {}
	uint32_t u32();
	uint64_t u64();
	void bytes(std::span<uint8_t> out);

private:
	std::span<const uint8_t> take(size_t n);
	std::span<const uint8_t> buf_;
};

}  // namespace sroce::verify

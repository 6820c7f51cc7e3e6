// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// UniqueFd: owns a file descriptor and closes it.
#pragma once

namespace sroce {

class UniqueFd {
public:
	UniqueFd() = default;
	explicit UniqueFd(int fd) : fd_(fd) {}
	~UniqueFd();
	UniqueFd(UniqueFd &&o) noexcept : fd_(o.release()) {}
	UniqueFd &operator=(UniqueFd &&o) noexcept;
	UniqueFd(const UniqueFd &) = delete;
	UniqueFd &operator=(const UniqueFd &) = delete;

	int get() const { return fd_; }
	bool valid() const { return fd_ >= 0; }
	int release()
	{
		int fd = fd_;
		fd_ = -1;
		return fd;
	}

private:
	int fd_ = -1;
};

}  // namespace sroce

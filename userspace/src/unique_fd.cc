// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "unique_fd.h"

#include <unistd.h>

namespace sroce {

UniqueFd::~UniqueFd()
{
	if (fd_ >= 0)
		::close(fd_);
}

UniqueFd &UniqueFd::operator=(UniqueFd &&o) noexcept
{
	if (this != &o) {
		if (fd_ >= 0)
			::close(fd_);
		fd_ = o.release();
	}
	return *this;
}

}  // namespace sroce

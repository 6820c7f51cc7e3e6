// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "verbs_handles.h"

#include <cerrno>
#include <cstring>

namespace sroce::verify {

void throw_errno(const std::string &what, int err)
{
	throw Error(what + ": " + std::strerror(err));
}

ContextPtr open_device(const std::string &device)
{
	int n = 0;
	DeviceListPtr list(ibv_get_device_list(&n));
	if (!list)
		throw_errno("ibv_get_device_list", errno);
	for (int i = 0; i < n; i++) {
		ibv_device *dev = list.get()[i];
		if (!device.empty() && device != ibv_get_device_name(dev))
			continue;
		ContextPtr ctx(ibv_open_device(dev));
		if (!ctx)
			throw_errno("ibv_open_device " + std::string(ibv_get_device_name(dev)),
				    errno);
		return ctx;
	}
	throw Error(device.empty() ? "no RDMA device found"
				   : "RDMA device " + device + " not found");
}

}  // namespace sroce::verify

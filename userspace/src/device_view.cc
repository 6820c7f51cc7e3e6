// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "device_view.h"

#include "gid.h"
#include "sroce_proto.h"
#include "sysfs.h"

namespace sroce {

std::optional<unsigned> active_mtu_bytes(unsigned netdev_mtu)
{
	unsigned bytes = sroce_ib_mtu_bytes(sroce_ib_mtu_from_netdev_mtu(netdev_mtu));
	if (!bytes)
		return std::nullopt;
	return bytes;
}

DeviceView make_device_view(const nldev::Device &dev, const nldev::Port &port,
			    const std::filesystem::path &sysfs_root)
{
	DeviceView v;
	v.name = dev.name;
	v.index = dev.index;
	v.node_guid = format_guid(dev.node_guid);
	v.port = port.port;
	v.state = nldev::port_state_name(port.state);
	v.physical_state = nldev::phys_state_name(port.phys_state);
	v.netdev = port.ndev_name;
	v.netdev_index = port.ndev_index;
	if (v.netdev) {
		if (auto mtu = sysfs::netdev_mtu(sysfs_root, *v.netdev)) {
			v.netdev_mtu = *mtu;
			v.active_mtu = active_mtu_bytes(*mtu);
		}
	}
	for (const auto &e : sysfs::gid_table(sysfs_root, dev.name, port.port))
		v.gids.push_back({e.index, format_gid(e.gid), e.type, gid_ipv4(e.gid)});
	return v;
}

}  // namespace sroce

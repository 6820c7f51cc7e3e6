// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "render.h"

#include "json.h"

namespace sroce {

std::string render_human(std::span<const DeviceView> devices)
{
	std::string out;
	for (const auto &d : devices) {
		out += std::to_string(d.index) + ": " + d.name + ": node_guid " + d.node_guid +
		       "\n";
		out += "    link " + d.name + "/" + std::to_string(d.port) + " state " + d.state +
		       " physical_state " + d.physical_state;
		if (d.netdev) {
			out += " netdev " + *d.netdev;
			if (d.netdev_index)
				out += " netdev_index " + std::to_string(*d.netdev_index);
		}
		out += "\n";
		out += "    mtu " + (d.netdev_mtu ? std::to_string(*d.netdev_mtu) : "-") +
		       " active_mtu " + (d.active_mtu ? std::to_string(*d.active_mtu) : "-") + "\n";
		for (const auto &g : d.gids) {
			out += "    gid " + std::to_string(g.index) + " " + g.gid + " " +
			       (g.type ? *g.type : "-");
			if (g.ipv4)
				out += " ipv4 " + *g.ipv4;
			out += "\n";
		}
	}
	return out;
}

std::string render_json(std::span<const DeviceView> devices)
{
	JsonWriter w;
	w.begin_array();
	for (const auto &d : devices) {
		w.begin_object();
		w.key("ifname").value(d.name);
		w.key("ifindex").value(d.index);
		w.key("node_guid").value(d.node_guid);
		w.key("port").value(d.port);
		w.key("state").value(d.state);
		w.key("physical_state").value(d.physical_state);
		w.key("netdev").value(d.netdev);
		w.key("netdev_index").value(d.netdev_index);
		w.key("netdev_mtu").value(d.netdev_mtu);
		w.key("active_mtu").value(d.active_mtu);
		w.key("gids").begin_array();
		for (const auto &g : d.gids) {
			w.begin_object();
			w.key("index").value(g.index);
			w.key("gid").value(g.gid);
			w.key("type").value(g.type);
			w.key("ipv4").value(g.ipv4);
			w.end_object();
		}
		w.end_array();
		w.end_object();
	}
	w.end_array();
	return w.str() + "\n";
}

std::string render_links_human(std::span<const DeviceView> devices, bool details)
{
	std::string out;
	for (const auto &d : devices) {
		const std::string port = std::to_string(d.port);
		out += std::to_string(d.index) + "/" + port + ": " + d.name + "/" + port +
		       ": state " + d.state + " physical_state " + d.physical_state;
		if (d.netdev) {
			out += " netdev " + *d.netdev;
			if (details && d.netdev_index)
				out += " netdev_index " + std::to_string(*d.netdev_index);
		}
		out += "\n";
	}
	return out;
}

std::string render_links_json(std::span<const DeviceView> devices)
{
	JsonWriter w;
	w.begin_array();
	for (const auto &d : devices) {
		w.begin_object();
		w.key("ifindex").value(d.index);
		w.key("ifname").value(d.name);
		w.key("port").value(d.port);
		w.key("state").value(d.state);
		w.key("physical_state").value(d.physical_state);
		if (d.netdev) {
			w.key("netdev").value(*d.netdev);
			if (d.netdev_index)
				w.key("netdev_index").value(*d.netdev_index);
		}
		w.end_object();
	}
	w.end_array();
	return w.str() + "\n";
}

std::string render_stats_human(std::span<const StatView> stats)
{
	std::string out;
	for (const auto &s : stats) {
		out += "link " + s.name + "/" + std::to_string(s.port);
		for (const auto &[name, value] : s.counters)
			out += " " + name + " " + std::to_string(value);
		out += "\n";
	}
	return out;
}

std::string render_stats_json(std::span<const StatView> stats)
{
	JsonWriter w;
	w.begin_array();
	for (const auto &s : stats) {
		w.begin_object();
		w.key("ifname").value(s.name);
		w.key("port").value(s.port);
		for (const auto &[name, value] : s.counters)
			w.key(name).value(value);
		w.end_object();
	}
	w.end_array();
	return w.str() + "\n";
}

}  // namespace sroce

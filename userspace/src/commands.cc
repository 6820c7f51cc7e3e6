// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "commands.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "device_view.h"
#include "nl_socket.h"
#include "nldev.h"
#include "nldev_res.h"
#include "qp_render.h"
#include "render.h"
#include "sysfs.h"

namespace sroce::cli {

namespace {

constexpr std::uint32_t kPort = 1;  // sroce devices have exactly one port

int report(Streams io, const std::string &what, int err)
{
	io.err << "sroce: " << what << ": " << std::strerror(err) << "\n";
	if (err == EPROTONOSUPPORT)
		io.err << "sroce: hint: this kernel has no RDMA netlink (is ib_core loaded?)\n";
	return kExitFailure;
}

Result<std::vector<nldev::Device>> list_devices(nl::Socket &sk)
{
	auto msg = nldev::build_get_dump();
	if (!msg)
		return Errno{msg.error()};
	std::vector<nldev::Device> devs;
	int err = sk.transact(msg->get(), [&devs](const nlmsghdr &nlh) {
		auto d = nldev::parse_device(nlh);
		if (!d)
			return d.error();
		devs.push_back(std::move(d).value());
		return 0;
	});
	if (err)
		return Errno{err};
	std::sort(devs.begin(), devs.end(),
		  [](const auto &a, const auto &b) { return a.index < b.index; });
	return devs;
}

Result<nldev::Device> find_device(nl::Socket &sk, std::string_view name)
{
	auto devs = list_devices(sk);
	if (!devs)
		return Errno{devs.error()};
	for (auto &d : *devs)
		if (d.name == name)
			return std::move(d);
	return Errno{ENODEV};
}

Result<nldev::Port> query_port(nl::Socket &sk, std::uint32_t index, std::uint32_t port)
{
	auto msg = nldev::build_port_get(index, port);
	if (!msg)
		return Errno{msg.error()};
	std::optional<nldev::Port> result;
	int err = sk.transact(msg->get(), [&result](const nlmsghdr &nlh) {
		auto p = nldev::parse_port(nlh);
		if (!p)
			return p.error();
		result = std::move(p).value();
		return 0;
	});
	if (err)
		return Errno{err};
	if (!result)
		return Errno{EPROTO};
	return std::move(*result);
}

Result<std::vector<nldev::QpEntry>> dump_qps(nl::Socket &sk, std::uint32_t index)
{
	auto msg = nldev::build_res_qp_dump(index);
	if (!msg)
		return Errno{msg.error()};
	std::vector<nldev::QpEntry> qps;
	int err = sk.transact(msg->get(), [&qps](const nlmsghdr &nlh) {
		auto part = nldev::parse_res_qp(nlh);
		if (!part)
			return part.error();
		for (auto &q : *part)
			qps.push_back(std::move(q));
		return 0;
	});
	if (err)
		return Errno{err};
	std::sort(qps.begin(), qps.end(),
		  [](const auto &a, const auto &b) { return a.lqpn < b.lqpn; });
	return qps;
}

// Who owns a QP: the kernel module's name, else the process's command
// (as `rdma resource` shows it); none once the process has gone.
std::optional<std::string> qp_owner(const nldev::QpEntry &q, const std::filesystem::path &proc_root)
{
	if (q.kern_name)
		return q.kern_name;
	if (!q.pid)
		return std::nullopt;
	std::ifstream f(proc_root / std::to_string(*q.pid) / "comm");
	std::string comm;
	if (!std::getline(f, comm) || comm.empty())
		return std::nullopt;
	return comm;
}

}  // namespace

int run_link_add(const LinkAdd &cmd, Streams io)
{
	const std::string what = "link add " + cmd.name;
	auto sk = nl::Socket::open_rdma();
	if (!sk)
		return report(io, what, sk.error());
	auto msg = nldev::build_newlink(cmd.name, cmd.netdev);
	if (!msg)
		return report(io, what, msg.error());
	if (int err = sk->transact(msg->get()))
		return report(io, what, err);
	return kExitOk;
}

int run_link_del(const LinkDel &cmd, Streams io)
{
	const std::string what = "link del " + cmd.name;
	auto sk = nl::Socket::open_rdma();
	if (!sk)
		return report(io, what, sk.error());
	auto dev = find_device(*sk, cmd.name);
	if (!dev)
		return report(io, what, dev.error());
	auto msg = nldev::build_dellink(dev->index);
	if (!msg)
		return report(io, what, msg.error());
	if (int err = sk->transact(msg->get()))
		return report(io, what, err);
	return kExitOk;
}

int run_show(const Show &cmd, Streams io, const std::filesystem::path &sysfs_root)
{
	const std::string what = cmd.name ? "show " + *cmd.name : "show";
	std::vector<nldev::Device> devs;
	auto sk = nl::Socket::open_rdma();
	if (sk) {
		auto listed = list_devices(*sk);
		if (!listed)
			return report(io, what, listed.error());
		devs = std::move(listed).value();
	} else if (sk.error() != EPROTONOSUPPORT) {
		return report(io, what, sk.error());
	}
	// else: no RDMA netlink in this kernel, hence no RDMA devices.

	std::vector<DeviceView> views;
	for (const auto &d : devs) {
		if (cmd.name ? d.name != *cmd.name
			     : !cmd.all && !sysfs::is_sroce_device(sysfs_root, d.name))
			continue;
		auto port = query_port(*sk, d.index, kPort);
		if (!port) {
			// A device removed since the dump just drops out of a listing.
			if (!cmd.name && (port.error() == ENODEV || port.error() == EINVAL))
				continue;
			return report(io, what + ": port " + std::to_string(kPort), port.error());
		}
		views.push_back(make_device_view(d, *port, sysfs_root));
	}
	if (cmd.name && views.empty())
		return report(io, what, ENODEV);

	io.out << (cmd.json ? render_json(views) : render_human(views));
	io.out.flush();
	return io.out ? kExitOk : report(io, what, EIO);
}

int run_show_qp(const ShowQp &cmd, Streams io, const std::filesystem::path &sysfs_root,
		const std::filesystem::path &proc_root)
{
	const std::string what = cmd.name ? "show qp " + *cmd.name : "show qp";
	auto sk = nl::Socket::open_rdma();
	if (!sk && (cmd.name || sk.error() != EPROTONOSUPPORT))
		return report(io, what, sk.error());
	// else: no RDMA netlink in this kernel, hence no RDMA devices.
	std::vector<nldev::Device> no_devs;
	auto devs = sk ? list_devices(*sk) : Result<std::vector<nldev::Device>>(no_devs);
	if (!devs)
		return report(io, what, devs.error());

	std::vector<QpView> views;
	bool found = false;
	for (const auto &d : *devs) {
		if (cmd.name ? d.name != *cmd.name : !sysfs::is_sroce_device(sysfs_root, d.name))
			continue;
		found = true;
		auto qps = dump_qps(*sk, d.index);
		if (!qps) {
			// A device removed since the listing just drops out of it.
			if (!cmd.name && (qps.error() == ENODEV || qps.error() == EINVAL))
				continue;
			return report(io, what, qps.error());
		}
		for (auto &q : *qps) {
			auto owner = qp_owner(q, proc_root);
			views.push_back(QpView{std::move(q), std::move(owner)});
		}
	}
	if (cmd.name && !found)
		return report(io, what, ENODEV);

	io.out << (cmd.json ? render_qps_json(views) : render_qps_human(views));
	io.out.flush();
	return io.out ? kExitOk : report(io, what, EIO);
}

int run(const Command &cmd, Streams io)
{
	struct Visitor {
		Streams io;
		int operator()(const Help &) const
		{
			io.out << usage_text();
			return kExitOk;
		}
		int operator()(const Version &) const
		{
			io.out << "sroce " SROCE_VERSION "\n";
			return kExitOk;
		}
		int operator()(const LinkAdd &c) const { return run_link_add(c, io); }
		int operator()(const LinkDel &c) const { return run_link_del(c, io); }
		int operator()(const Show &c) const { return run_show(c, io); }
		int operator()(const ShowQp &c) const { return run_show_qp(c, io); }
	};
	return std::visit(Visitor{io}, cmd);
}

}  // namespace sroce::cli

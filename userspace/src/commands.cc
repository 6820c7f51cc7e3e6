// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "commands.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "device_view.h"
#include "json.h"
#include "nl_socket.h"
#include "nldev.h"
#include "nldev_res.h"
#include "qp_render.h"
#include "render.h"
#include "res_render.h"
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

Result<std::vector<nldev::ResEntry>> dump_res(nl::Socket &sk, nldev::ResKind kind,
					      std::uint32_t index)
{
	auto msg = nldev::build_res_dump(kind, index);
	if (!msg)
		return Errno{msg.error()};
	std::vector<nldev::ResEntry> out;
	int err = sk.transact(msg->get(), [&out, kind](const nlmsghdr &nlh) {
		auto part = nldev::parse_res(kind, nlh);
		if (!part)
			return part.error();
		for (auto &r : *part)
			out.push_back(std::move(r));
		return 0;
	});
	if (err)
		return Errno{err};
	std::sort(out.begin(), out.end(), [](const auto &a, const auto &b) { return a.id < b.id; });
	return out;
}

// Who owns an object: the kernel module's name, else the process's
// command (as `rdma resource` shows it); none once the process has gone.
std::optional<std::string> owner(const std::optional<std::string> &kern_name,
				 const std::optional<std::uint32_t> &pid,
				 const std::filesystem::path &proc_root)
{
	if (kern_name)
		return kern_name;
	if (!pid)
		return std::nullopt;
	std::ifstream f(proc_root / std::to_string(*pid) / "comm");
	std::string comm;
	if (!std::getline(f, comm) || comm.empty())
		return std::nullopt;
	return comm;
}

// The devices a listing covers: `name` only (ENODEV if there is none
// such), else every sroce device, or with --all every RDMA device. No
// RDMA netlink in the kernel means no RDMA devices: an empty listing (or
// ENODEV for `name`), and `sk` left empty.
Result<std::vector<nldev::Device>> pick_devices(std::optional<nl::Socket> &sk,
						const std::optional<std::string> &name, bool all,
						const std::filesystem::path &sys)
{
	auto opened = nl::Socket::open_rdma();
	if (!opened && opened.error() != EPROTONOSUPPORT)
		return Errno{opened.error()};
	if (!opened && name)
		return Errno{ENODEV};
	if (!opened)
		return std::vector<nldev::Device>{};
	sk.emplace(std::move(opened).value());
	auto devs = list_devices(*sk);
	if (!devs)
		return Errno{devs.error()};
	std::vector<nldev::Device> out;
	for (auto &d : *devs)
		if (name ? d.name == *name : all || sysfs::is_sroce_device(sys, d.name))
			out.push_back(std::move(d));
	if (name && out.empty())
		return Errno{ENODEV};
	return out;
}

// A device removed since the listing just drops out of it.
bool vanished(int err, bool named)
{
	return !named && (err == ENODEV || err == EINVAL);
}

int emit(Streams io, const Options &opts, const std::string &what, const std::string &text,
	 const std::string &json)
{
	io.out << (!opts.json ? text : opts.pretty ? json_pretty(json) : json);
	io.out.flush();
	return io.out ? kExitOk : report(io, what, EIO);
}

// The port views of the devices a listing covers, for show and link show.
Result<std::vector<DeviceView>> device_views(const std::optional<std::string> &name,
					     std::uint32_t port, bool all, const Roots &roots)
{
	std::optional<nl::Socket> sk;
	auto devs = pick_devices(sk, name, all, roots.sys);
	if (!devs)
		return Errno{devs.error()};
	std::vector<DeviceView> views;
	for (const auto &d : *devs) {
		auto p = query_port(*sk, d.index, port);
		if (!p) {
			if (vanished(p.error(), name.has_value()))
				continue;
			return Errno{p.error()};
		}
		views.push_back(make_device_view(d, *p, roots.sys));
	}
	return views;
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

int run_show(const Show &cmd, const Options &opts, Streams io, const Roots &roots)
{
	const std::string what = cmd.name ? "show " + *cmd.name : "show";
	auto views = device_views(cmd.name, kPort, opts.all, roots);
	if (!views)
		return report(io, what, views.error());
	return emit(io, opts, what, render_human(*views), render_json(*views));
}

int run_link_show(const LinkShow &cmd, const Options &opts, Streams io, const Roots &roots)
{
	const std::string what = cmd.name ? "link show " + *cmd.name : "link show";
	auto views = device_views(cmd.name, cmd.port.value_or(kPort), opts.all, roots);
	if (!views)
		return report(io, what, views.error());
	return emit(io, opts, what, render_links_human(*views, opts.details > 0),
		    render_links_json(*views));
}

namespace {

nldev::ResKind res_kind(Resource r)
{
	return r == Resource::Cq   ? nldev::ResKind::Cq
	       : r == Resource::Mr ? nldev::ResKind::Mr
				   : nldev::ResKind::Srq;
}

// The QPs, or the CQs, MRs or SRQs, of `devs`, rendered.
Result<std::pair<std::string, std::string>> res_listing(Resource what,
							const std::vector<nldev::Device> &devs,
							nl::Socket *sk, bool named,
							const Roots &roots)
{
	std::vector<QpView> qps;
	std::vector<ResView> objs;
	for (const auto &d : devs) {
		if (what == Resource::Qp) {
			auto got = dump_qps(*sk, d.index);
			if (!got && vanished(got.error(), named))
				continue;
			if (!got)
				return Errno{got.error()};
			for (auto &q : *got) {
				auto comm = owner(q.kern_name, q.pid, roots.proc);
				qps.push_back(QpView{std::move(q), std::move(comm)});
			}
			continue;
		}
		auto got = dump_res(*sk, res_kind(what), d.index);
		if (!got && vanished(got.error(), named))
			continue;
		if (!got)
			return Errno{got.error()};
		for (auto &r : *got) {
			auto comm = owner(r.kern_name, r.pid, roots.proc);
			objs.push_back(ResView{std::move(r), std::move(comm)});
		}
	}
	if (what == Resource::Qp)
		return std::pair{render_qps_human(qps), render_qps_json(qps)};
	return std::pair{render_res_human(objs), render_res_json(objs)};
}

}  // namespace

int run_show_res(const ShowRes &cmd, const Options &opts, Streams io, const Roots &roots)
{
	std::string what = "show " + std::string(resource_name(cmd.what));
	if (cmd.name)
		what += " " + *cmd.name;
	std::optional<nl::Socket> sk;
	auto devs = pick_devices(sk, cmd.name, opts.all, roots.sys);
	if (!devs)
		return report(io, what, devs.error());
	auto out = res_listing(cmd.what, *devs, sk ? &*sk : nullptr, cmd.name.has_value(), roots);
	if (!out)
		return report(io, what, out.error());
	return emit(io, opts, what, out->first, out->second);
}

int run_stat(const Stat &cmd, const Options &opts, Streams io, const Roots &roots)
{
	const std::string what = cmd.name ? "stat " + *cmd.name : "stat";
	std::optional<nl::Socket> sk;
	auto devs = pick_devices(sk, cmd.name, opts.all, roots.sys);
	if (!devs)
		return report(io, what, devs.error());
	std::vector<StatView> stats;
	for (const auto &d : *devs) {
		const std::uint32_t port = cmd.port.value_or(kPort);
		auto counters = sysfs::hw_counters(roots.sys, d.name, port);
		if (!counters) {
			// a device of another driver may have no counters
			if (!cmd.name && counters.error() == ENOENT)
				continue;
			return report(io, what + ": port " + std::to_string(port),
				      counters.error());
		}
		stats.push_back(StatView{d.index, d.name, port, std::move(counters).value()});
	}
	return emit(io, opts, what, render_stats_human(stats), render_stats_json(stats));
}

int run_set(const Set &cmd, Streams io, const Roots &roots)
{
	const std::string what = "set " + (cmd.dev ? *cmd.dev + " " : "") + cmd.knob;
	if (cmd.dev && !sysfs::is_sroce_device(roots.sys, *cmd.dev)) {
		io.err << "sroce: " << what << ": " << *cmd.dev << " is not a sroce device\n";
		return kExitFailure;
	}
	const auto path = sysfs::knob_path(roots.sys, cmd.dev, cmd.knob);
	std::error_code ec;
	if (!cmd.dev && !std::filesystem::exists(path.parent_path(), ec)) {
		io.err << "sroce: " << what << ": sroce.ko is not loaded\n";
		return kExitFailure;
	}
	if (!std::filesystem::exists(path, ec)) {
		io.err << "sroce: " << what << ": the loaded sroce.ko has no such knob ("
		       << path.string() << ")\n";
		return kExitFailure;
	}
	if (int err = sysfs::write_attr(path, cmd.value)) {
		io.err << "sroce: " << what << " " << cmd.value << ": " << std::strerror(err)
		       << (err == EINVAL || err == ERANGE ? " (value refused by sroce.ko)" : "")
		       << "\n";
		return kExitFailure;
	}
	return kExitOk;
}

int run(const Invocation &inv, Streams io)
{
	struct Visitor {
		const Options &opts;
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
		int operator()(const LinkShow &c) const { return run_link_show(c, opts, io); }
		int operator()(const Show &c) const { return run_show(c, opts, io); }
		int operator()(const ShowRes &c) const { return run_show_res(c, opts, io); }
		int operator()(const Stat &c) const { return run_stat(c, opts, io); }
		int operator()(const Set &c) const { return run_set(c, io); }
	};
	return std::visit(Visitor{inv.options, io}, inv.command);
}

}  // namespace sroce::cli

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "sysfs.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <system_error>

#include <fcntl.h>
#include <unistd.h>

#include "unique_fd.h"

namespace sroce::sysfs {

namespace fs = std::filesystem;

namespace {

fs::path ib_dir(const fs::path &root, std::string_view dev)
{
	return root / "class" / "infiniband" / std::string(dev);
}

template <typename T> std::optional<T> to_number(std::string_view s)
{
	T v{};
	auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
	if (ec != std::errc() || end != s.data() + s.size() || s.empty())
		return std::nullopt;
	return v;
}

}  // namespace

Result<std::string> read_attr(const fs::path &path)
{
	UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
	if (!fd.valid())
		return Errno{errno};
	std::string data;
	char buf[4096];
	for (;;) {
		ssize_t n = ::read(fd.get(), buf, sizeof(buf));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return Errno{errno};
		}
		if (n == 0)
			break;
		data.append(buf, static_cast<std::size_t>(n));
	}
	while (!data.empty() && (data.back() == '\n' || data.back() == '\0'))
		data.pop_back();
	return data;
}

std::optional<std::string> hca_type(const fs::path &root, std::string_view dev)
{
	auto r = read_attr(ib_dir(root, dev) / "hca_type");
	if (!r)
		return std::nullopt;
	return std::move(r).value();
}

bool is_sroce_device(const fs::path &root, std::string_view dev)
{
	auto t = hca_type(root, dev);
	return t && *t == kHcaType;
}

Result<unsigned> netdev_mtu(const fs::path &root, std::string_view ifname)
{
	if (ifname.empty() || ifname.find('/') != std::string_view::npos || ifname == "." ||
	    ifname == "..")
		return Errno{EINVAL};
	auto r = read_attr(root / "class" / "net" / std::string(ifname) / "mtu");
	if (!r)
		return Errno{r.error()};
	auto mtu = to_number<unsigned>(*r);
	if (!mtu)
		return Errno{EINVAL};
	return *mtu;
}

std::vector<GidEntry> gid_table(const fs::path &root, std::string_view dev, unsigned port)
{
	const fs::path port_dir = ib_dir(root, dev) / "ports" / std::to_string(port);
	std::vector<unsigned> indices;
	std::error_code ec;
	for (fs::directory_iterator it(port_dir / "gids", ec), end; !ec && it != end;
	     it.increment(ec))
		if (auto i = to_number<unsigned>(it->path().filename().native()))
			indices.push_back(*i);
	std::sort(indices.begin(), indices.end());

	std::vector<GidEntry> table;
	for (unsigned i : indices) {
		const std::string name = std::to_string(i);
		auto text = read_attr(port_dir / "gids" / name);
		if (!text)
			continue;
		auto gid = parse_gid(*text);
		if (!gid || is_zero_gid(*gid))
			continue;
		GidEntry e{i, *gid, std::nullopt};
		if (auto type = read_attr(port_dir / "gid_attrs" / "types" / name);
		    type && !type->empty())
			e.type = std::move(type).value();
		table.push_back(std::move(e));
	}
	return table;
}

Result<std::vector<std::pair<std::string, std::uint64_t>>>
hw_counters(const fs::path &root, std::string_view dev, unsigned port)
{
	const fs::path dir = ib_dir(root, dev) / "ports" / std::to_string(port) / "hw_counters";
	std::error_code ec;
	fs::directory_iterator it(dir, ec);
	if (ec)
		return Errno{ec.value()};
	std::vector<std::pair<std::string, std::uint64_t>> out;
	for (const auto &entry : it) {
		std::string name = entry.path().filename().string();
		if (name == "lifespan")
			continue;
		auto text = read_attr(entry.path());
		if (!text)
			continue;
		if (auto v = to_number<std::uint64_t>(*text))
			out.emplace_back(std::move(name), *v);
	}
	std::sort(out.begin(), out.end());
	return out;
}

fs::path knob_path(const fs::path &root, const std::optional<std::string> &dev,
		   std::string_view knob)
{
	if (dev)
		return ib_dir(root, *dev) / std::string(knob);
	return root / "module" / "sroce" / "parameters" / std::string(knob);
}

int write_attr(const fs::path &path, std::string_view value)
{
	UniqueFd fd(::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC));  // as `echo >`
	if (!fd.valid())
		return errno;
	const std::string line = std::string(value) + "\n";
	for (;;) {
		ssize_t n = ::write(fd.get(), line.data(), line.size());
		if (n >= 0)
			return static_cast<std::size_t>(n) == line.size() ? 0 : EIO;
		if (errno != EINTR)
			return errno;
	}
}

}  // namespace sroce::sysfs

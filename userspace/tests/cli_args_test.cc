// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The argument parser: every form `rdma` users type (link add ... type
// sroce ..., options before or after the object), and the usage errors.
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "cli_args.h"

namespace {

using namespace sroce::cli;
using Parsed = std::variant<Invocation, UsageError>;

Parsed parse(std::initializer_list<std::string_view> a)
{
	std::vector<std::string_view> v(a);
	return parse_args(v);
}

template <typename T> const T *as(const Parsed &r)
{
	const auto *inv = std::get_if<Invocation>(&r);
	return inv ? std::get_if<T>(&inv->command) : nullptr;
}

Options opts(const Parsed &r)
{
	const auto *inv = std::get_if<Invocation>(&r);
	return inv ? inv->options : Options{};
}

bool usage_error(const Parsed &r)
{
	return std::holds_alternative<UsageError>(r);
}

std::string message(const Parsed &r)
{
	const auto *e = std::get_if<UsageError>(&r);
	return e ? e->message : "";
}

TEST(CliArgs, HelpAndVersion)
{
	EXPECT_TRUE(as<Help>(parse({"--help"})));
	EXPECT_TRUE(as<Help>(parse({"-h"})));
	EXPECT_TRUE(as<Help>(parse({"help"})));
	EXPECT_TRUE(as<Version>(parse({"--version"})));
	EXPECT_TRUE(as<Version>(parse({"-V"})));
	EXPECT_TRUE(as<Version>(parse({"version"})));
}

TEST(CliArgs, LinkAddOldForm)
{
	const auto r = parse({"link", "add", "sroce0", "netdev", "eth0"});
	const auto *c = as<LinkAdd>(r);
	ASSERT_TRUE(c);
	EXPECT_EQ(c->name, "sroce0");
	EXPECT_EQ(c->netdev, "eth0");
}

TEST(CliArgs, LinkAddRdmaForm)
{
	// what `rdma link add` takes, pasted as it is
	const auto r = parse({"link", "add", "sroce0", "type", "sroce", "netdev", "eth0"});
	const auto *c = as<LinkAdd>(r);
	ASSERT_TRUE(c);
	EXPECT_EQ(c->name, "sroce0");
	EXPECT_EQ(c->netdev, "eth0");
	// the pairs in either order
	const auto swapped = parse({"link", "add", "sroce0", "netdev", "eth0", "type", "sroce"});
	ASSERT_TRUE(as<LinkAdd>(swapped));
	EXPECT_EQ(as<LinkAdd>(swapped)->netdev, "eth0");
}

TEST(CliArgs, LinkAddUsageErrors)
{
	EXPECT_TRUE(usage_error(parse({"link", "add"})));
	EXPECT_TRUE(usage_error(parse({"link", "add", "sroce0"})));
	EXPECT_TRUE(usage_error(parse({"link", "add", "sroce0", "eth0"})));
	EXPECT_TRUE(usage_error(parse({"link", "add", "sroce0", "dev", "eth0"})));
	EXPECT_TRUE(usage_error(parse({"link", "add", "sroce0", "netdev", "eth0", "x"})));
	EXPECT_TRUE(usage_error(parse({"link", "add", "", "netdev", "eth0"})));
	EXPECT_TRUE(usage_error(parse({"link", "add", "sroce0", "type", "sroce"})));
	EXPECT_TRUE(usage_error(parse({"link", "add", "sroce0", "netdev", "a", "netdev", "b"})));
	EXPECT_TRUE(usage_error(
		parse({"link", "add", "s0", "type", "sroce", "type", "sroce", "netdev", "e"})));
	const auto rxe = parse({"link", "add", "rxe0", "type", "rxe", "netdev", "eth0"});
	EXPECT_NE(message(rxe).find("type sroce only"), std::string::npos) << message(rxe);
	const std::string long_if(16, 'e'), long_dev(64, 'd');
	EXPECT_TRUE(usage_error(parse({"link", "add", "sroce0", "netdev", long_if})));
	EXPECT_TRUE(usage_error(parse({"link", "add", long_dev, "netdev", "eth0"})));
	EXPECT_TRUE(as<LinkAdd>(
		parse({"link", "add", long_dev.substr(1), "netdev", long_if.substr(1)})));
}

TEST(CliArgs, LinkDel)
{
	const auto r = parse({"link", "del", "sroce0"});
	ASSERT_TRUE(as<LinkDel>(r));
	EXPECT_EQ(as<LinkDel>(r)->name, "sroce0");
	EXPECT_TRUE(as<LinkDel>(parse({"link", "delete", "sroce0"})));
	EXPECT_TRUE(usage_error(parse({"link", "del"})));
	EXPECT_TRUE(usage_error(parse({"link", "del", "a", "b"})));
	EXPECT_TRUE(usage_error(parse({"link", "frobnicate"})));
}

TEST(CliArgs, LinkShow)
{
	for (auto r : {parse({"link"}), parse({"link", "show"}), parse({"link", "list"})}) {
		ASSERT_TRUE(as<LinkShow>(r));
		EXPECT_FALSE(as<LinkShow>(r)->name);
		EXPECT_FALSE(as<LinkShow>(r)->port);
	}
	const auto dev = parse({"link", "show", "sroce0"});
	ASSERT_TRUE(as<LinkShow>(dev));
	EXPECT_EQ(as<LinkShow>(dev)->name, "sroce0");
	EXPECT_FALSE(as<LinkShow>(dev)->port);
	const auto port = parse({"link", "show", "sroce0/1"});
	ASSERT_TRUE(as<LinkShow>(port));
	EXPECT_EQ(as<LinkShow>(port)->name, "sroce0");
	EXPECT_EQ(as<LinkShow>(port)->port, 1u);

	EXPECT_TRUE(usage_error(parse({"link", "show", "a", "b"})));
	EXPECT_TRUE(usage_error(parse({"link", "show", "sroce0/"})));
	EXPECT_TRUE(usage_error(parse({"link", "show", "sroce0/0"})));
	EXPECT_TRUE(usage_error(parse({"link", "show", "sroce0/x"})));
	EXPECT_TRUE(usage_error(parse({"link", "show", "/1"})));
}

TEST(CliArgs, OptionsBeforeOrAfter)
{
	// rdma -j link show, rdma link show -j, rdma link -j show ...
	for (auto r : {parse({"-j", "link", "show"}), parse({"link", "show", "-j"}),
		       parse({"link", "-j", "show"}), parse({"--json", "link"})}) {
		ASSERT_TRUE(as<LinkShow>(r)) << message(r);
		EXPECT_TRUE(opts(r).json);
		EXPECT_FALSE(opts(r).pretty);
	}
	const auto r = parse({"-j", "-p", "-dd", "show", "qp", "sroce0"});
	ASSERT_TRUE(as<ShowRes>(r));
	EXPECT_EQ(opts(r), (Options{true, true, 2, false}));
	EXPECT_EQ(opts(parse({"show", "qp", "-jpdd"})), (Options{true, true, 2, false}));
	EXPECT_EQ(opts(parse({"show", "-d", "--details", "--pretty"})),
		  (Options{false, true, 2, false}));
	EXPECT_EQ(opts(parse({"show"})), Options{});
	EXPECT_TRUE(as<Help>(parse({"-j", "--help"})));
	EXPECT_TRUE(as<Version>(parse({"-j", "-V"})));
	// options may follow the device name, as `rdma link show DEV -j`
	const auto after = parse({"link", "show", "sroce0/1", "-d"});
	ASSERT_TRUE(as<LinkShow>(after));
	EXPECT_EQ(as<LinkShow>(after)->name, "sroce0");
	EXPECT_EQ(opts(after).details, 1);
}

TEST(CliArgs, OptionErrors)
{
	EXPECT_TRUE(usage_error(parse({"--jsn"})));
	EXPECT_TRUE(usage_error(parse({"show", "--jsn"})));
	EXPECT_TRUE(usage_error(parse({"show", "-x"})));
	EXPECT_TRUE(usage_error(parse({"show", "-jx"})));
	EXPECT_NE(message(parse({"link", "show", "--bogus"})).find("'--bogus'"), std::string::npos);
	// --all goes with listings only
	EXPECT_TRUE(opts(parse({"show", "-a"})).all);
	EXPECT_TRUE(opts(parse({"link", "show", "--all"})).all);
	EXPECT_TRUE(usage_error(parse({"link", "del", "sroce0", "-a"})));
	EXPECT_TRUE(usage_error(parse({"-a", "set", "loopback", "1"})));
	// "--" ends the options: what follows is a plain word
	const auto dd = parse({"link", "del", "--", "-odd"});
	ASSERT_TRUE(as<LinkDel>(dd)) << message(dd);
	EXPECT_EQ(as<LinkDel>(dd)->name, "-odd");
}

TEST(CliArgs, Show)
{
	const auto plain = parse({"show"});
	ASSERT_TRUE(as<Show>(plain));
	EXPECT_FALSE(as<Show>(plain)->name);

	const auto full = parse({"show", "--json", "sroce0", "--all"});
	ASSERT_TRUE(as<Show>(full));
	EXPECT_EQ(as<Show>(full)->name, "sroce0");
	EXPECT_TRUE(opts(full).json);
	EXPECT_TRUE(opts(full).all);
	EXPECT_EQ(as<Show>(parse({"show", "dev", "sroce0"}))->name, "sroce0");
	// a device called qp: `show dev qp`
	EXPECT_EQ(as<Show>(parse({"show", "dev", "qp"}))->name, "qp");

	EXPECT_TRUE(usage_error(parse({"show", "a", "b"})));
	EXPECT_TRUE(usage_error(parse({"show", "sroce0/1"})));
}

TEST(CliArgs, ShowResources)
{
	for (auto [word, res] : {std::pair{"qp", Resource::Qp}, std::pair{"cq", Resource::Cq},
				 std::pair{"mr", Resource::Mr}, std::pair{"srq", Resource::Srq}}) {
		const auto all = parse({"show", word});
		ASSERT_TRUE(as<ShowRes>(all)) << word;
		EXPECT_EQ(as<ShowRes>(all)->what, res);
		EXPECT_FALSE(as<ShowRes>(all)->name);
		EXPECT_EQ(resource_name(res), word);
		for (auto r :
		     {parse({"show", word, "sroce0"}), parse({"show", word, "dev", "sroce0"}),
		      parse({"show", word, "link", "sroce0/1"}),
		      parse({"-j", "show", word, "sroce0"})}) {
			ASSERT_TRUE(as<ShowRes>(r)) << word << ": " << message(r);
			EXPECT_EQ(as<ShowRes>(r)->what, res);
			EXPECT_EQ(as<ShowRes>(r)->name, "sroce0");
		}
	}
	EXPECT_TRUE(opts(parse({"show", "qp", "sroce0", "-j"})).json);
	EXPECT_TRUE(usage_error(parse({"show", "qp", "a", "b"})));
	EXPECT_TRUE(usage_error(parse({"show", "cq", "sroce0/2"})));
	EXPECT_TRUE(usage_error(parse({"show", "mr", "dev"})));
}

TEST(CliArgs, Stat)
{
	for (auto r : {parse({"stat"}), parse({"stat", "show"}), parse({"statistic", "show"}),
		       parse({"-j", "stat"})}) {
		ASSERT_TRUE(as<Stat>(r)) << message(r);
		EXPECT_FALSE(as<Stat>(r)->name);
	}
	for (auto r : {parse({"stat", "sroce0"}), parse({"stat", "show", "link", "sroce0/1"}),
		       parse({"statistic", "show", "link", "sroce0"})}) {
		ASSERT_TRUE(as<Stat>(r)) << message(r);
		EXPECT_EQ(as<Stat>(r)->name, "sroce0");
	}
	EXPECT_EQ(as<Stat>(parse({"stat", "sroce0/1"}))->port, 1u);
	EXPECT_TRUE(usage_error(parse({"stat", "a", "b"})));
	EXPECT_TRUE(usage_error(parse({"stat", "sroce0/0"})));
}

TEST(CliArgs, SetModuleKnob)
{
	const auto r = parse({"set", "loopback", "0"});
	ASSERT_TRUE(as<Set>(r)) << message(r);
	EXPECT_FALSE(as<Set>(r)->dev);
	EXPECT_EQ(as<Set>(r)->knob, "loopback");
	EXPECT_EQ(as<Set>(r)->value, "0");
	EXPECT_TRUE(as<Set>(parse({"set", "crc", "table"})));
	// a module knob takes no device
	const auto dev = parse({"set", "sroce0", "loopback", "0"});
	EXPECT_NE(message(dev).find("module knob"), std::string::npos) << message(dev);
}

TEST(CliArgs, SetDeviceKnob)
{
	const auto r = parse({"set", "sroce0", "dcqcn_enable", "1"});
	ASSERT_TRUE(as<Set>(r)) << message(r);
	EXPECT_EQ(as<Set>(r)->dev, "sroce0");
	EXPECT_EQ(as<Set>(r)->knob, "dcqcn_enable");
	EXPECT_EQ(as<Set>(r)->value, "1");
	// a device knob needs its device
	const auto nodev = parse({"set", "icrc_skip", "1"});
	EXPECT_NE(message(nodev).find("sroce set DEV icrc_skip VALUE"), std::string::npos)
		<< message(nodev);
}

TEST(CliArgs, SetErrors)
{
	const auto unknown = parse({"set", "frobnicate", "1"});
	ASSERT_TRUE(usage_error(unknown));
	EXPECT_NE(message(unknown).find("unknown knob 'frobnicate'"), std::string::npos);
	EXPECT_NE(message(unknown).find("loopback"), std::string::npos);  // lists the known
	EXPECT_TRUE(usage_error(parse({"set"})));
	EXPECT_TRUE(usage_error(parse({"set", "loopback"})));
	EXPECT_TRUE(usage_error(parse({"set", "a", "b", "c", "d"})));
	EXPECT_TRUE(usage_error(parse({"set", "loopback", ""})));
	EXPECT_TRUE(usage_error(parse({"set", "loopback", "1\n0"})));
	EXPECT_TRUE(usage_error(parse({"set", "sroce0/1", "icrc_skip", "1"})));
	// parameters of the module that are not writable are not knobs
	EXPECT_FALSE(find_knob("hca_type"));
	EXPECT_TRUE(find_knob("tx_gso"));
}

TEST(CliArgs, UnknownOrMissingCommand)
{
	EXPECT_TRUE(usage_error(parse({})));
	EXPECT_TRUE(usage_error(parse({"frob"})));
	EXPECT_TRUE(usage_error(parse({"-j"})));
	EXPECT_NE(message(parse({"frob"})).find("unknown command 'frob'"), std::string::npos);
}

TEST(CliArgs, UsageListsEveryForm)
{
	const std::string text = usage_text();
	EXPECT_EQ(
		text.rfind("usage: sroce [OPTIONS] link add NAME [type sroce] netdev IFNAME\n", 0),
		0u);
	for (std::string_view line : synopsis())
		EXPECT_NE(text.find(line), std::string::npos) << line;
	for (const auto &k : knobs())
		EXPECT_NE(text.find(k.name), std::string::npos) << k.name;
	EXPECT_EQ(short_usage().find("usage: "), 0u);
}

}  // namespace

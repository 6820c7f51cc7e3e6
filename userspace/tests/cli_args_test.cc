// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <initializer_list>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "cli_args.h"

namespace {

using namespace sroce::cli;

std::variant<Command, UsageError> parse(std::initializer_list<std::string_view> a)
{
	std::vector<std::string_view> v(a);
	return parse_args(v);
}

template <typename T>
const T *as(const std::variant<Command, UsageError> &r)
{
	const auto *cmd = std::get_if<Command>(&r);
	return cmd ? std::get_if<T>(cmd) : nullptr;
}

bool usage_error(const std::variant<Command, UsageError> &r)
{
	return std::holds_alternative<UsageError>(r);
}

TEST(CliArgs, HelpAndVersion)
{
	EXPECT_TRUE(as<Help>(parse({"--help"})));
	EXPECT_TRUE(as<Help>(parse({"-h"})));
	EXPECT_TRUE(as<Help>(parse({"help"})));
	EXPECT_TRUE(as<Version>(parse({"--version"})));
	EXPECT_TRUE(as<Version>(parse({"-V"})));
}

TEST(CliArgs, LinkAdd)
{
	const auto r = parse({"link", "add", "sroce0", "netdev", "eth0"});
	const auto *c = as<LinkAdd>(r);
	ASSERT_TRUE(c);
	EXPECT_EQ(c->name, "sroce0");
	EXPECT_EQ(c->netdev, "eth0");
}

TEST(CliArgs, LinkAddUsageErrors)
{
	EXPECT_TRUE(usage_error(parse({"link", "add"})));
	EXPECT_TRUE(usage_error(parse({"link", "add", "sroce0"})));
	EXPECT_TRUE(usage_error(parse({"link", "add", "sroce0", "eth0"})));
	EXPECT_TRUE(usage_error(parse({"link", "add", "sroce0", "dev", "eth0"})));
	EXPECT_TRUE(usage_error(parse({"link", "add", "sroce0", "netdev", "eth0", "x"})));
	EXPECT_TRUE(usage_error(parse({"link", "add", "", "netdev", "eth0"})));
	const std::string long_if(16, 'e'), long_dev(64, 'd');
	EXPECT_TRUE(usage_error(parse({"link", "add", "sroce0", "netdev", long_if})));
	EXPECT_TRUE(usage_error(parse({"link", "add", long_dev, "netdev", "eth0"})));
	EXPECT_TRUE(as<LinkAdd>(parse({"link", "add", long_dev.substr(1), "netdev", long_if.substr(1)})));
}

TEST(CliArgs, LinkDel)
{
	const auto r = parse({"link", "del", "sroce0"});
	ASSERT_TRUE(as<LinkDel>(r));
	EXPECT_EQ(as<LinkDel>(r)->name, "sroce0");
	EXPECT_TRUE(as<LinkDel>(parse({"link", "delete", "sroce0"})));
	EXPECT_TRUE(usage_error(parse({"link", "del"})));
	EXPECT_TRUE(usage_error(parse({"link", "del", "a", "b"})));
	EXPECT_TRUE(usage_error(parse({"link"})));
	EXPECT_TRUE(usage_error(parse({"link", "show"})));
}

TEST(CliArgs, Show)
{
	const auto plain = parse({"show"});
	ASSERT_TRUE(as<Show>(plain));
	EXPECT_FALSE(as<Show>(plain)->name);
	EXPECT_FALSE(as<Show>(plain)->json);
	EXPECT_FALSE(as<Show>(plain)->all);

	const auto full = parse({"show", "--json", "sroce0", "--all"});
	ASSERT_TRUE(as<Show>(full));
	EXPECT_EQ(as<Show>(full)->name, "sroce0");
	EXPECT_TRUE(as<Show>(full)->json);
	EXPECT_TRUE(as<Show>(full)->all);

	EXPECT_TRUE(as<Show>(parse({"show", "-j", "-a"}))->json);
	EXPECT_TRUE(usage_error(parse({"show", "a", "b"})));
	EXPECT_TRUE(usage_error(parse({"show", "--pretty"})));
}

TEST(CliArgs, ShowQp)
{
	const auto plain = parse({"show", "qp"});
	ASSERT_TRUE(as<ShowQp>(plain));
	EXPECT_FALSE(as<ShowQp>(plain)->name);
	EXPECT_FALSE(as<ShowQp>(plain)->json);

	const auto full = parse({"show", "qp", "--json", "sroce0"});
	ASSERT_TRUE(as<ShowQp>(full));
	EXPECT_EQ(as<ShowQp>(full)->name, "sroce0");
	EXPECT_TRUE(as<ShowQp>(full)->json);
	EXPECT_TRUE(as<ShowQp>(parse({"show", "qp", "sroce0", "-j"}))->json);

	// `qp` only means the QP listing as the first word after `show`
	EXPECT_EQ(as<Show>(parse({"show", "-j", "qp"}))->name, "qp");
	EXPECT_TRUE(usage_error(parse({"show", "qp", "a", "b"})));
	EXPECT_TRUE(usage_error(parse({"show", "qp", "--all"})));
}

TEST(CliArgs, UnknownOrMissingCommand)
{
	EXPECT_TRUE(usage_error(parse({})));
	EXPECT_TRUE(usage_error(parse({"frob"})));
	EXPECT_TRUE(usage_error(parse({"--jsn"})));
}

}  // namespace

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// sysfs readers against a fake /sys tree laid out like the kernel's.
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "commands.h"
#include "device_view.h"
#include "sysfs.h"

namespace {

namespace fs = std::filesystem;

class FakeSysfs : public ::testing::Test {
protected:
	void SetUp() override
	{
		std::string tmpl = (fs::temp_directory_path() / "sroce-sysfs-XXXXXX").string();
		ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
		root_ = tmpl;
	}
	void TearDown() override { fs::remove_all(root_); }

	void write(const fs::path &rel, const std::string &content)
	{
		fs::create_directories((root_ / rel).parent_path());
		std::ofstream(root_ / rel) << content;
	}
	fs::path ib(const std::string &dev) { return fs::path("class/infiniband") / dev; }
	void gid(const std::string &dev, int i, const std::string &text, const char *type)
	{
		write(ib(dev) / "ports/1/gids" / std::to_string(i), text + "\n");
		if (type)
			write(ib(dev) / "ports/1/gid_attrs/types" / std::to_string(i),
			      std::string(type) + "\n");
	}

	fs::path root_;
};

TEST_F(FakeSysfs, ReadAttrStripsNewlineAndReportsErrno)
{
	write("a", "hello\n");
	auto r = sroce::sysfs::read_attr(root_ / "a");
	ASSERT_TRUE(r);
	EXPECT_EQ(*r, "hello");
	EXPECT_EQ(sroce::sysfs::read_attr(root_ / "missing").error(), ENOENT);
	EXPECT_EQ(sroce::sysfs::read_attr(root_).error(), EISDIR);
}

TEST_F(FakeSysfs, HcaTypeContract)
{
	write(ib("sroce0") / "hca_type", "sroce\n");
	write(ib("other0") / "hca_type", "MT4115\n");
	fs::create_directories(root_ / ib("rxe0"));  // no hca_type attribute
	EXPECT_TRUE(sroce::sysfs::is_sroce_device(root_, "sroce0"));
	EXPECT_FALSE(sroce::sysfs::is_sroce_device(root_, "other0"));
	EXPECT_FALSE(sroce::sysfs::is_sroce_device(root_, "rxe0"));
	EXPECT_FALSE(sroce::sysfs::is_sroce_device(root_, "absent"));
	EXPECT_EQ(sroce::sysfs::hca_type(root_, "other0"), "MT4115");
}

TEST_F(FakeSysfs, NetdevMtu)
{
	write("class/net/eth0/mtu", "1500\n");
	write("class/net/bad0/mtu", "15x0\n");
	EXPECT_EQ(*sroce::sysfs::netdev_mtu(root_, "eth0"), 1500u);
	EXPECT_EQ(sroce::sysfs::netdev_mtu(root_, "bad0").error(), EINVAL);
	EXPECT_EQ(sroce::sysfs::netdev_mtu(root_, "nope0").error(), ENOENT);
	EXPECT_EQ(sroce::sysfs::netdev_mtu(root_, "../eth0").error(), EINVAL);
}

TEST_F(FakeSysfs, GidTableSkipsZeroAndUnreadableEntries)
{
	gid("sroce0", 0, "fe80:0000:0000:0000:5054:00ff:fe12:3456", "RoCE v2");
	gid("sroce0", 1, "0000:0000:0000:0000:0000:0000:0000:0000", nullptr);
	gid("sroce0", 2, "0000:0000:0000:0000:0000:ffff:0a00:0002", "RoCE v2");
	gid("sroce0", 3, "garbage", "RoCE v2");
	gid("sroce0", 10, "fe80:0000:0000:0000:0000:0000:0000:0001", nullptr);	// no type
	// An entry the kernel refuses to read (EINVAL there; here: a directory).
	fs::create_directories(root_ / ib("sroce0") / "ports/1/gids/4");

	auto t = sroce::sysfs::gid_table(root_, "sroce0", 1);
	ASSERT_EQ(t.size(), 3u);
	EXPECT_EQ(t[0].index, 0u);
	EXPECT_EQ(t[0].type, "RoCE v2");
	EXPECT_EQ(t[1].index, 2u);
	EXPECT_EQ(t[1].gid[15], 2);
	EXPECT_EQ(t[2].index, 10u);  // numeric, not lexical, order
	EXPECT_FALSE(t[2].type);
}

TEST_F(FakeSysfs, GidTableMissing)
{
	EXPECT_TRUE(sroce::sysfs::gid_table(root_, "sroce0", 1).empty());
}

TEST_F(FakeSysfs, DeviceViewCombinesNetlinkAndSysfs)
{
	write("class/net/eth0/mtu", "9000\n");
	gid("sroce0", 0, "fe80:0000:0000:0000:5054:00ff:fe12:3456", "RoCE v2");
	gid("sroce0", 1, "0000:0000:0000:0000:0000:ffff:c0a8:0102", "RoCE v2");

	sroce::nldev::Device dev{3, "sroce0", 1, 0x505400fffe123456ull, "roce"};
	sroce::nldev::Port port{3, "sroce0", 1, 4, 5, 2, "eth0"};
	auto v = sroce::make_device_view(dev, port, root_);
	EXPECT_EQ(v.name, "sroce0");
	EXPECT_EQ(v.index, 3u);
	EXPECT_EQ(v.node_guid, "5054:00ff:fe12:3456");
	EXPECT_EQ(v.state, "ACTIVE");
	EXPECT_EQ(v.physical_state, "LINK_UP");
	EXPECT_EQ(v.netdev, "eth0");
	EXPECT_EQ(v.netdev_index, 2u);
	EXPECT_EQ(v.netdev_mtu, 9000u);
	EXPECT_EQ(v.active_mtu, 4096u);
	ASSERT_EQ(v.gids.size(), 2u);
	EXPECT_EQ(v.gids[0].gid, "fe80:0000:0000:0000:5054:00ff:fe12:3456");
	EXPECT_FALSE(v.gids[0].ipv4);
	EXPECT_EQ(v.gids[1].ipv4, "192.168.1.2");
}

TEST_F(FakeSysfs, DeviceViewWithoutNetdev)
{
	sroce::nldev::Device dev{3, "sroce0", 1, 0, std::nullopt};
	sroce::nldev::Port port{3, "sroce0", 1, 1, 3, std::nullopt, std::nullopt};
	auto v = sroce::make_device_view(dev, port, root_);
	EXPECT_FALSE(v.netdev);
	EXPECT_FALSE(v.netdev_mtu);
	EXPECT_FALSE(v.active_mtu);
	EXPECT_TRUE(v.gids.empty());
}

TEST(ActiveMtu, FromNetdevMtu)
{
	EXPECT_EQ(sroce::active_mtu_bytes(1500), 1024u);
	EXPECT_EQ(sroce::active_mtu_bytes(9000), 4096u);
	EXPECT_FALSE(sroce::active_mtu_bytes(300));
	EXPECT_FALSE(sroce::active_mtu_bytes(0));
}

TEST_F(FakeSysfs, HwCountersSortedWithoutLifespan)
{
	write(ib("sroce0") / "ports/1/hw_counters/tx_pkts", "12\n");
	write(ib("sroce0") / "ports/1/hw_counters/rx_pkts", "7\n");
	write(ib("sroce0") / "ports/1/hw_counters/lifespan", "10\n");
	write(ib("sroce0") / "ports/1/hw_counters/garbled", "x\n");
	auto c = sroce::sysfs::hw_counters(root_, "sroce0", 1);
	ASSERT_TRUE(c) << c.error();
	const std::vector<std::pair<std::string, std::uint64_t>> want = {{"rx_pkts", 7},
									 {"tx_pkts", 12}};
	EXPECT_EQ(*c, want);
	EXPECT_EQ(sroce::sysfs::hw_counters(root_, "sroce0", 2).error(), ENOENT);
	EXPECT_EQ(sroce::sysfs::hw_counters(root_, "nosuch", 1).error(), ENOENT);
}

TEST_F(FakeSysfs, KnobPaths)
{
	EXPECT_EQ(sroce::sysfs::knob_path(root_, std::nullopt, "loopback"),
		  root_ / "module/sroce/parameters/loopback");
	EXPECT_EQ(sroce::sysfs::knob_path(root_, std::string("sroce0"), "tx_gso"),
		  root_ / "class/infiniband/sroce0/tx_gso");
}

TEST_F(FakeSysfs, WriteAttrWritesOneLine)
{
	write("a", "old\n");
	EXPECT_EQ(sroce::sysfs::write_attr(root_ / "a", "1"), 0);
	EXPECT_EQ(*sroce::sysfs::read_attr(root_ / "a"), "1");
	EXPECT_EQ(sroce::sysfs::write_attr(root_ / "missing", "1"), ENOENT);
}

// `sroce set` against the fake tree
class FakeSet : public FakeSysfs {
protected:
	int set(std::optional<std::string> dev, const std::string &knob, const std::string &value)
	{
		out_.str("");
		err_.str("");
		sroce::cli::Set cmd{std::move(dev), knob, value};
		sroce::cli::Roots roots;
		roots.sys = root_;
		return sroce::cli::run_set(cmd, {out_, err_}, roots);
	}
	std::ostringstream out_, err_;
};

TEST_F(FakeSet, ModuleKnob)
{
	EXPECT_EQ(set(std::nullopt, "loopback", "0"), 1);
	EXPECT_EQ(err_.str(), "sroce: set loopback: sroce.ko is not loaded\n");
	write("module/sroce/parameters/zcopy", "Y\n");
	EXPECT_EQ(set(std::nullopt, "loopback", "0"), 1);
	EXPECT_NE(err_.str().find("the loaded sroce.ko has no such knob"), std::string::npos);
	write("module/sroce/parameters/loopback", "Y\n");
	EXPECT_EQ(set(std::nullopt, "loopback", "0"), 0) << err_.str();
	EXPECT_EQ(*sroce::sysfs::read_attr(root_ / "module/sroce/parameters/loopback"), "0");
	EXPECT_EQ(out_.str() + err_.str(), "");
}

TEST_F(FakeSet, DeviceKnob)
{
	write(ib("rxe0") / "hca_type", "rxe\n");
	EXPECT_EQ(set("rxe0", "tx_gso", "1"), 1);
	EXPECT_EQ(err_.str(), "sroce: set rxe0 tx_gso: rxe0 is not a sroce device\n");
	EXPECT_EQ(set("nosuch0", "tx_gso", "1"), 1);
	write(ib("sroce0") / "hca_type", "sroce\n");
	write(ib("sroce0") / "tx_gso", "0\n");
	EXPECT_EQ(set("sroce0", "tx_gso", "1"), 0) << err_.str();
	EXPECT_EQ(*sroce::sysfs::read_attr(root_ / ib("sroce0") / "tx_gso"), "1");
}

}  // namespace

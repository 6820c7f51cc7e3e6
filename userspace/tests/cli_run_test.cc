// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The built `sroce` binary, run as a process: exit codes and messages that
// do not depend on RDMA devices being present (the VM selftests cover real
// devices).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace {

namespace fs = std::filesystem;

struct RunResult {
	int status = -1;  // exit code, or -1 if not exited normally
	std::string out;
	std::string err;
};

std::string slurp(const fs::path &p)
{
	std::ifstream f(p);
	std::stringstream ss;
	ss << f.rdbuf();
	return ss.str();
}

RunResult run_sroce(std::vector<std::string> args)
{
	std::string tmpl = (fs::temp_directory_path() / "sroce-cli-XXXXXX").string();
	if (!::mkdtemp(tmpl.data()))
		return {};
	const fs::path dir = tmpl, out = dir / "out", err = dir / "err";

	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
	posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
	args.insert(args.begin(), SROCE_CLI_PATH);
	std::vector<char *> argv;
	for (auto &a : args)
		argv.push_back(a.data());
	argv.push_back(nullptr);

	RunResult r;
	pid_t pid;
	if (posix_spawn(&pid, SROCE_CLI_PATH, &fa, nullptr, argv.data(), environ) == 0) {
		int st = 0;
		while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
		}
		r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
		r.out = slurp(out);
		r.err = slurp(err);
	}
	posix_spawn_file_actions_destroy(&fa);
	fs::remove_all(dir);
	return r;
}

TEST(CliRun, Help)
{
	auto r = run_sroce({"--help"});
	EXPECT_EQ(r.status, 0);
	EXPECT_NE(r.out.find("usage: sroce [OPTIONS] link add NAME [type sroce] netdev IFNAME"),
		  std::string::npos);
	EXPECT_EQ(r.err, "");
}

TEST(CliRun, Version)
{
	auto r = run_sroce({"--version"});
	EXPECT_EQ(r.status, 0);
	EXPECT_EQ(r.out, "sroce " SROCE_VERSION "\n");
}

TEST(CliRun, UsageErrorsExit2)
{
	for (const auto &args : std::vector<std::vector<std::string>>{
		     {},
		     {"frob"},
		     {"link", "frob"},
		     {"link", "add", "sroce0"},
		     {"link", "add", "s0", "type", "rxe", "netdev", "eth0"},
		     {"show", "--bogus"},
		     {"set", "frobnicate", "1"}}) {
		auto r = run_sroce(args);
		EXPECT_EQ(r.status, 2);
		EXPECT_EQ(r.err.rfind("sroce: ", 0), 0u) << r.err;
		EXPECT_NE(r.err.find("usage:"), std::string::npos);
		EXPECT_EQ(r.out, "");
	}
}

TEST(CliRun, LinkAddFailureIsReported)
{
	// No netdev has this name, so this fails everywhere (no RDMA netlink,
	// no permission, or ENODEV from the kernel) without side effects.
	auto r = run_sroce({"link", "add", "sroce0", "netdev", "sroce-nonex9"});
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(r.err.rfind("sroce: link add sroce0: ", 0), 0u) << r.err;
	EXPECT_EQ(r.out, "");
}

TEST(CliRun, LinkDelOfMissingDeviceFails)
{
	auto r = run_sroce({"link", "del", "sroce-nonexistent9"});
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(r.err.rfind("sroce: link del sroce-nonexistent9: ", 0), 0u) << r.err;
}

TEST(CliRun, ShowJsonIsAnArray)
{
	auto r = run_sroce({"show", "--json"});
	EXPECT_EQ(r.status, 0) << r.err;
	ASSERT_GE(r.out.size(), 3u);
	EXPECT_EQ(r.out.front(), '[');
	EXPECT_EQ(r.out.substr(r.out.size() - 2), "]\n");
}

TEST(CliRun, ShowOfMissingDeviceFails)
{
	auto r = run_sroce({"show", "sroce-nonexistent9"});
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(r.err, "sroce: show sroce-nonexistent9: No such device\n");
}

TEST(CliRun, RdmaLinkAddFormIsParsed)
{
	// `rdma link add`'s words reach the kernel (which then fails: no such
	// netdev), not a usage error
	auto r = run_sroce(
		{"-j", "link", "add", "sroce0", "type", "sroce", "netdev", "sroce-nonex9"});
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(r.err.rfind("sroce: link add sroce0: ", 0), 0u) << r.err;
}

TEST(CliRun, JsonBeforeOrAfterTheCommand)
{
	for (const auto &args : std::vector<std::vector<std::string>>{{"-j", "show"},
								      {"show", "-j"},
								      {"-j", "link", "show"},
								      {"link", "-j"},
								      {"-jp", "show", "qp"},
								      {"show", "cq", "--json"},
								      {"-j", "show", "mr"},
								      {"-j", "show", "srq"},
								      {"-j", "stat"}}) {
		auto r = run_sroce(args);
		EXPECT_EQ(r.status, 0) << args[0] << ": " << r.err;
		ASSERT_GE(r.out.size(), 3u) << args[0];
		EXPECT_EQ(r.out.front(), '[');
		EXPECT_EQ(r.out.substr(r.out.size() - 2), "]\n");
	}
}

TEST(CliRun, SetOfAnUnknownKnobIsAUsageError)
{
	auto r = run_sroce({"set", "frobnicate", "1"});
	EXPECT_EQ(r.status, 2);
	EXPECT_EQ(r.err.rfind("sroce: set: unknown knob 'frobnicate'", 0), 0u) << r.err;
}

}  // namespace

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// What `sroce --help` prints against what is written elsewhere: the man
// page's SYNOPSIS lists the same forms, and the knobs `sroce set` knows
// are the ones kernel/ makes writable.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli_args.h"

namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path &p)
{
	std::ifstream f(p);
	std::stringstream ss;
	ss << f.rdbuf();
	return ss.str();
}

// The words of a roff request line: whitespace-separated, "quoted" ones
// kept whole.
std::vector<std::string> roff_args(const std::string &s)
{
	std::vector<std::string> out;
	std::size_t i = 0;
	while (i < s.size()) {
		if (s[i] == ' ') {
			i++;
			continue;
		}
		std::size_t end;
		if (s[i] == '"') {
			end = s.find('"', i + 1);
			end = end == std::string::npos ? s.size() : end;
			out.push_back(s.substr(i + 1, end - i - 1));
			i = end + 1;
		} else {
			end = s.find(' ', i);
			end = end == std::string::npos ? s.size() : end;
			out.push_back(s.substr(i, end - i));
			i = end;
		}
	}
	return out;
}

// What one roff line prints: .B/.I join their words with spaces, the
// alternating-font requests (.BR, .RI, ...) glue theirs together.
std::string roff_text(const std::string &line)
{
	static const std::set<std::string> alternating = {".BR", ".RB", ".BI", ".IB", ".IR", ".RI"};
	if (line.empty() || line[0] != '.')
		return line;
	const std::size_t sp = line.find(' ');
	const std::string req = line.substr(0, sp);
	const auto args = roff_args(sp == std::string::npos ? "" : line.substr(sp + 1));
	std::string out;
	for (const auto &a : args)
		out += (alternating.count(req) || out.empty() ? "" : " ") + a;
	return out;
}

std::string unescape(std::string s)
{
	s = std::regex_replace(s, std::regex(R"(\\f[BIRP])"), "");
	s = std::regex_replace(s, std::regex(R"(\\-)"), "-");
	s = std::regex_replace(s, std::regex(R"(\\[|&])"), "");
	s = std::regex_replace(s, std::regex(R"(\s+)"), " ");
	return s;
}

// The man page's SYNOPSIS, one entry per form (forms end at .br).
std::vector<std::string> man_synopsis(const std::string &page)
{
	std::istringstream in(page);
	std::string line, cur;
	std::vector<std::string> out;
	bool in_synopsis = false;
	auto flush = [&] {
		if (!cur.empty())
			out.push_back(unescape(cur));
		cur.clear();
	};
	while (std::getline(in, line)) {
		if (line.rfind(".SH", 0) == 0) {
			if (in_synopsis)
				break;
			in_synopsis = line == ".SH SYNOPSIS";
			continue;
		}
		if (!in_synopsis || line.rfind(".\\\"", 0) == 0)
			continue;
		if (line == ".br") {
			flush();
			continue;
		}
		const std::string t = roff_text(line);
		if (!t.empty())
			cur += (cur.empty() ? "" : " ") + t;
	}
	flush();
	return out;
}

TEST(CliDocs, RoffText)
{
	EXPECT_EQ(unescape(roff_text(".RI [ DEV [/ PORT ]]")), "[DEV[/PORT]]");
	EXPECT_EQ(unescape(roff_text(".BR \\-\\-help \" | \" \\-\\-version")),
		  "--help | --version");
	EXPECT_EQ(roff_text(".B link add"), "link add");
	EXPECT_EQ(roff_text(".RB [ \"type sroce\" ]"), "[type sroce]");
}

TEST(CliDocs, ManSynopsisListsWhatHelpPrints)
{
	const std::string page = slurp(fs::path(SROCE_MAN_DIR) / "sroce.1");
	ASSERT_FALSE(page.empty());
	const auto man = man_synopsis(page);
	const std::vector<std::string> help(sroce::cli::synopsis().begin(),
					    sroce::cli::synopsis().end());
	for (const auto &form : help)
		EXPECT_NE(std::find(man.begin(), man.end(), form), man.end())
			<< "--help prints \"" << form << "\"; the man page's SYNOPSIS does not";
	for (const auto &form : man)
		EXPECT_NE(std::find(help.begin(), help.end(), form), help.end())
			<< "the man page's SYNOPSIS has \"" << form << "\"; --help does not";
	EXPECT_EQ(man, help);  // and in the same order
}

TEST(CliDocs, ManDocumentsEveryKnob)
{
	const std::string page = unescape(slurp(fs::path(SROCE_MAN_DIR) / "sroce.1"));
	for (const auto &k : sroce::cli::knobs())
		EXPECT_NE(page.find(std::string(k.name)), std::string::npos) << k.name;
}

// The writable module parameters and device attributes in kernel/*.c.
std::set<std::string> kernel_knobs()
{
	std::set<std::string> out;
	const std::regex param(R"(module_param(?:_named|_cb)?\((\w+),[^;]*,\s*(0\d+)\);)");
	const std::regex dev_bool(R"(^SROCE_DEV_(?:BOOL|UINT)_ATTR\((\w+),)");
	const std::regex dcqcn(R"(^SROCE_DCQCN_ATTR\((\w+),)");
	for (const auto &e : fs::directory_iterator(SROCE_KERNEL_DIR)) {
		if (e.path().extension() != ".c")
			continue;
		std::istringstream in(slurp(e.path()));
		std::string line;
		std::smatch m;
		while (std::getline(in, line)) {
			if (std::regex_search(line, m, param) && ((m[2].str()[1] - '0') & 2))
				out.insert(m[1]);
			else if (std::regex_search(line, m, dev_bool))
				out.insert(m[1]);
			else if (std::regex_search(line, m, dcqcn))
				out.insert("dcqcn_" + m[1].str());
		}
	}
	return out;
}

TEST(CliDocs, KnobsAreTheKernelsWritableOnes)
{
	std::set<std::string> ours;
	for (const auto &k : sroce::cli::knobs())
		ours.insert(std::string(k.name));
	const auto kernel = kernel_knobs();
	ASSERT_FALSE(kernel.empty());
	EXPECT_EQ(ours, kernel);
}

}  // namespace

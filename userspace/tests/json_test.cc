// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "json.h"

namespace {

using sroce::json_quote;
using sroce::JsonWriter;

TEST(JsonQuote, PlainText)
{
	EXPECT_EQ(json_quote(""), "\"\"");
	EXPECT_EQ(json_quote("sroce0"), "\"sroce0\"");
	EXPECT_EQ(json_quote("RoCE v2"), "\"RoCE v2\"");
	EXPECT_EQ(json_quote("a/b"), "\"a/b\"");
}

TEST(JsonQuote, EscapesQuoteAndBackslash)
{
	EXPECT_EQ(json_quote("a\"b"), R"("a\"b")");
	EXPECT_EQ(json_quote("a\\b"), R"("a\\b")");
	EXPECT_EQ(json_quote("\\\""), R"("\\\"")");
}

TEST(JsonQuote, EscapesControlCharacters)
{
	EXPECT_EQ(json_quote("\n\r\t\b\f"), R"("\n\r\t\b\f")");
	EXPECT_EQ(json_quote(std::string("\0", 1)), R"("\u0000")");
	EXPECT_EQ(json_quote("\x01\x1f"), R"("\u0001\u001f")");
	EXPECT_EQ(json_quote("\x7f"), R"("\u007f")");
	EXPECT_EQ(json_quote(" "), "\" \"");
}

TEST(JsonQuote, PassesUtf8Through)
{
	EXPECT_EQ(json_quote("gr\xc3\xbc\xc3\x9f"), "\"gr\xc3\xbc\xc3\x9f\"");
}

TEST(JsonWriter, EmptyContainers)
{
	EXPECT_EQ(JsonWriter().begin_array().end_array().str(), "[]");
	EXPECT_EQ(JsonWriter().begin_object().end_object().str(), "{}");
}

TEST(JsonWriter, NestedValuesAndCommas)
{
	JsonWriter w;
	w.begin_array();
	w.begin_object()
		.key("s")
		.value("x\"y")
		.key("n")
		.value(42)
		.key("neg")
		.value(-1)
		.key("u")
		.value(4294967295u)
		.key("t")
		.value(true)
		.key("z")
		.null()
		.key("a")
		.begin_array()
		.value(1)
		.value(2)
		.end_array()
		.key("o")
		.begin_object()
		.end_object()
		.end_object();
	w.value(std::optional<int>{}).value(std::optional<int>{7});
	w.value(std::optional<std::string>{"k"});
	w.end_array();
	EXPECT_EQ(w.str(), R"([{"s":"x\"y","n":42,"neg":-1,"u":4294967295,"t":true,"z":null,)"
			   R"("a":[1,2],"o":{}},null,7,"k"])");
}

TEST(JsonWriter, KeysAreEscaped)
{
	JsonWriter w;
	w.begin_object().key("a\nb").value(false).end_object();
	EXPECT_EQ(w.str(), R"({"a\nb":false})");
}

TEST(JsonPretty, IndentsMembersAndElements)
{
	EXPECT_EQ(sroce::json_pretty(R"([{"a":1,"b":[2,3],"c":{},"d":[]}])"
				     "\n"),
		  "[\n"
		  "    {\n"
		  "        \"a\": 1,\n"
		  "        \"b\": [\n"
		  "            2,\n"
		  "            3\n"
		  "        ],\n"
		  "        \"c\": {},\n"
		  "        \"d\": []\n"
		  "    }\n"
		  "]\n");
	EXPECT_EQ(sroce::json_pretty("[]\n"), "[]\n");
}

TEST(JsonPretty, LeavesStringsAlone)
{
	EXPECT_EQ(sroce::json_pretty(R"({"k,:{":"v\"[,]:"})"), "{\n    \"k,:{\": \"v\\\"[,]:\"\n}");
}

}  // namespace

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "res_render.h"

#include "json.h"
#include "qp_render.h"

namespace sroce {

namespace {

std::string field_text(const nldev::ResField &f)
{
	if (const auto *n = std::get_if<std::uint64_t>(&f.value))
		return std::to_string(*n);
	if (const auto *s = std::get_if<std::string>(&f.value))
		return *s;
	std::string out;
	for (std::uint32_t q : std::get<std::vector<std::uint32_t>>(f.value))
		out += (out.empty() ? "" : ",") + std::to_string(q);
	return out.empty() ? "-" : out;
}

void field_json(JsonWriter &w, const nldev::ResField &f)
{
	w.key(f.key);
	if (const auto *n = std::get_if<std::uint64_t>(&f.value)) {
		w.value(*n);
	} else if (const auto *s = std::get_if<std::string>(&f.value)) {
		w.value(*s);
	} else {
		w.begin_array();
		for (std::uint32_t q : std::get<std::vector<std::uint32_t>>(f.value))
			w.value(q);
		w.end_array();
	}
}

}  // namespace

std::string render_res_human(std::span<const ResView> objs)
{
	std::string out;
	for (const auto &v : objs) {
		const auto &r = v.res;
		out += r.dev_name;
		for (const auto &f : r.fields)
			out += " " + f.key + " " + field_text(f);
		if (r.pid)
			out += " pid " + std::to_string(*r.pid);
		if (v.comm)
			out += " comm " + *v.comm;
		for (const auto &a : r.driver)
			out += " " + a.name + " " + a.text();
		out += "\n";
	}
	return out;
}

std::string render_res_json(std::span<const ResView> objs)
{
	JsonWriter w;
	w.begin_array();
	for (const auto &v : objs) {
		const auto &r = v.res;
		w.begin_object();
		w.key("ifindex").value(r.dev_index);
		w.key("ifname").value(r.dev_name);
		for (const auto &f : r.fields)
			field_json(w, f);
		if (r.pid)
			w.key("pid").value(*r.pid);
		if (v.comm)
			w.key("comm").value(*v.comm);
		render_driver_json(w, r.driver);
		w.end_object();
	}
	w.end_array();
	return w.str() + "\n";
}

}  // namespace sroce

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "qp_render.h"

#include "json.h"

namespace sroce {

namespace {

void field(std::string &out, std::string_view key, const std::optional<std::uint32_t> &v)
{
	if (v)
		out.append(" ").append(key).append(" ").append(std::to_string(*v));
}

std::optional<std::string> name_of(const std::optional<std::uint8_t> &v,
				   std::string_view (*name)(std::uint8_t))
{
	if (!v)
		return std::nullopt;
	return std::string(name(*v));
}

void driver_value(JsonWriter &w, const nldev::DriverAttr &a)
{
	if (const auto *s = std::get_if<std::string>(&a.value))
		w.value(*s);
	else if (a.hex)
		w.value(a.text());
	else if (const auto *i = std::get_if<std::int64_t>(&a.value))
		w.value(*i);
	else
		w.value(std::get<std::uint64_t>(a.value));
}

}  // namespace

std::string render_qps_human(std::span<const QpView> qps)
{
	std::string out;
	for (const auto &v : qps) {
		const auto &q = v.qp;
		out += q.dev_name + "/" + (q.port ? std::to_string(*q.port) : "-");
		out += " qpn " + std::to_string(q.lqpn);
		out += " type " + name_of(q.type, nldev::qp_type_name).value_or("-");
		out += " state " + name_of(q.state, nldev::qp_state_name).value_or("-");
		field(out, "rqpn", q.rqpn);
		field(out, "sq_psn", q.sq_psn);
		field(out, "rq_psn", q.rq_psn);
		field(out, "pid", q.pid);
		if (v.comm)
			out += " comm " + *v.comm;
		for (const auto &a : q.driver)
			out += " " + a.name + " " + a.text();
		out += "\n";
	}
	return out;
}

std::string render_qps_json(std::span<const QpView> qps)
{
	JsonWriter w;
	w.begin_array();
	for (const auto &v : qps) {
		const auto &q = v.qp;
		w.begin_object();
		w.key("dev").value(q.dev_name);
		w.key("port").value(q.port);
		w.key("qpn").value(q.lqpn);
		w.key("type").value(name_of(q.type, nldev::qp_type_name));
		w.key("state").value(name_of(q.state, nldev::qp_state_name));
		w.key("rqpn").value(q.rqpn);
		w.key("sq_psn").value(q.sq_psn);
		w.key("rq_psn").value(q.rq_psn);
		w.key("pid").value(q.pid);
		w.key("comm").value(v.comm);
		w.key("driver").begin_object();
		for (const auto &a : q.driver) {
			w.key(a.name);
			driver_value(w, a);
		}
		w.end_object();
		w.end_object();
	}
	w.end_array();
	return w.str() + "\n";
}

}  // namespace sroce

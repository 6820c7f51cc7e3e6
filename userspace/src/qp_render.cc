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

template <typename T> void opt_key(JsonWriter &w, std::string_view key, const std::optional<T> &v)
{
	if (v)
		w.key(key).value(*v);
}

}  // namespace

void render_driver_json(JsonWriter &w, std::span<const nldev::DriverAttr> driver)
{
	for (const auto &a : driver) {
		w.key("drv_" + a.name);
		if (const auto *s = std::get_if<std::string>(&a.value))
			w.value(*s);
		else if (const auto *i = std::get_if<std::int64_t>(&a.value))
			w.value(*i);
		else
			w.value(std::get<std::uint64_t>(a.value));  // hex ones too, as rdma
	}
}

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
		w.key("ifindex").value(q.dev_index);
		opt_key(w, "port", q.port);
		w.key("ifname").value(q.dev_name);
		w.key("lqpn").value(q.lqpn);
		opt_key(w, "pdn", q.pdn);
		opt_key(w, "rqpn", q.rqpn);
		opt_key(w, "type", name_of(q.type, nldev::qp_type_name));
		opt_key(w, "state", name_of(q.state, nldev::qp_state_name));
		opt_key(w, "rq-psn", q.rq_psn);
		opt_key(w, "sq-psn", q.sq_psn);
		opt_key(w, "pid", q.pid);
		opt_key(w, "comm", v.comm);
		render_driver_json(w, q.driver);
		w.end_object();
	}
	w.end_array();
	return w.str() + "\n";
}

}  // namespace sroce

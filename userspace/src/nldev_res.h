// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// RDMA netlink resource dumps (`rdma resource show qp|cq|mr|srq`): the
// RES_*_GET requests and their replies, with the driver's attributes
// (RDMA_NLDEV_ATTR_DRIVER). Pure message code, no socket.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <rdma/rdma_netlink.h>

#include "nl_socket.h"
#include "result.h"

struct nlattr;

namespace sroce::nldev {

// One driver attribute as rdma_nl_put_driver_*() writes it: a name, an
// optional print type, one value.
struct DriverAttr {
	std::string name;
	std::variant<std::uint64_t, std::int64_t, std::string> value;
	bool hex = false;  // RDMA_NLDEV_PRINT_TYPE_HEX

	// The value as `rdma` prints it: decimal, 0x-prefixed hex, the string.
	std::string text() const;
	bool operator==(const DriverAttr &) const = default;
};

// One RDMA_NLDEV_ATTR_RES_QP_ENTRY. Fields the kernel left out are empty.
struct QpEntry {
	std::uint32_t dev_index = 0;
	std::string dev_name;
	std::optional<std::uint32_t> port;
	std::uint32_t lqpn = 0;
	std::optional<std::uint32_t> rqpn;
	std::optional<std::uint8_t> type;   // enum ib_qp_type
	std::optional<std::uint8_t> state;  // enum ib_qp_state
	std::optional<std::uint32_t> sq_psn;
	std::optional<std::uint32_t> rq_psn;
	std::optional<std::uint32_t> pdn;
	std::optional<std::uint32_t> pid;      // a user QP's process
	std::optional<std::string> kern_name;  // a kernel QP's owner
	std::vector<DriverAttr> driver;

	// The driver attribute `name`, if the entry has it.
	const DriverAttr *find_driver(std::string_view name) const;
};

// RDMA_NLDEV_CMD_RES_QP_GET {DEV_INDEX, DRIVER_DETAILS = 1} with
// NLM_F_DUMP: every QP of the device, driver-internal ones too (`-dd`).
Result<nl::Message> build_res_qp_dump(std::uint32_t dev_index);

// Decodes one reply message of that dump: it may hold many entries (a
// large dump spans several messages). EPROTO for a message of another
// type, EINVAL for a malformed one.
Result<std::vector<QpEntry>> parse_res_qp(const nlmsghdr &nlh);

// The other resource dumps `sroce show` makes.
enum class ResKind { Cq, Mr, Srq };

// One core field of a CQ, MR or SRQ entry, named as `rdma -j resource
// show` names it: a number, a string, or (an SRQ's QPs) a list.
struct ResField {
	std::string key;
	std::variant<std::uint64_t, std::string, std::vector<std::uint32_t>> value;
	bool operator==(const ResField &) const = default;
};

// One RDMA_NLDEV_ATTR_RES_{CQ,MR,SRQ}_ENTRY.
struct ResEntry {
	std::uint32_t dev_index = 0;
	std::string dev_name;
	std::uint32_t id = 0;  // cqn, mrn or srqn: the listing's order
	// the core's fields but pid and comm, in `rdma`'s order:
	//   CQ:  cqn cqe users poll-ctx ctxn
	//   MR:  mrn rkey lkey iova mrlen pdn
	//   SRQ: srqn type lqpn pdn cqn
	std::vector<ResField> fields;
	std::optional<std::uint32_t> pid;
	std::optional<std::string> kern_name;
	std::vector<DriverAttr> driver;
};

// RDMA_NLDEV_CMD_RES_{CQ,MR,SRQ}_GET {DEV_INDEX, DRIVER_DETAILS = 1} with
// NLM_F_DUMP.
Result<nl::Message> build_res_dump(ResKind kind, std::uint32_t dev_index);

// Decodes one reply message of that dump, as parse_res_qp() does.
Result<std::vector<ResEntry>> parse_res(ResKind kind, const nlmsghdr &nlh);

// Decodes the attributes nested in one RDMA_NLDEV_ATTR_DRIVER table, in
// order. EINVAL for a value without a name, a name without a value, or a
// value of the wrong size; attribute types it does not know are skipped.
Result<std::vector<DriverAttr>> parse_driver_attrs(const nlattr &table);

// "RC", "UD", ... and "RESET", "RTS", ... as `rdma resource` prints them;
// "UNKNOWN" otherwise.
std::string_view qp_type_name(std::uint8_t type);
std::string_view qp_state_name(std::uint8_t state);

}  // namespace sroce::nldev

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// RDMA netlink "nldev" messages: building requests and decoding replies.
// Pure message code, no socket: the unit tests exercise it directly.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <rdma/rdma_netlink.h>

#include "nl_socket.h"
#include "result.h"

namespace sroce::nldev {

// RDMA_NLDEV_ATTR_DRIVER_DETAILS (u8): ask a resource dump for the
// driver's own attributes. The uapi numbering is fixed; headers older than
// Linux 6.7 lack the name (CMakeLists.txt probes for it).
inline constexpr int kAttrDriverDetails = 97;
#ifdef SROCE_HAVE_NLDEV_DRIVER_DETAILS
static_assert(RDMA_NLDEV_ATTR_DRIVER_DETAILS == kAttrDriverDetails);
#endif

// The link type sroce.ko registers with rdma_link_register().
inline constexpr std::string_view kLinkType = "sroce";
// Name limits the kernel's nldev policy enforces (NUL excluded).
inline constexpr std::size_t kDevNameMax = 63;	   // IB_DEVICE_NAME_MAX - 1
inline constexpr std::size_t kNetdevNameMax = 15;  // IFNAMSIZ - 1

constexpr std::uint16_t msg_type(int cmd)
{
	return static_cast<std::uint16_t>(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd));
}

// RDMA_NLDEV_CMD_NEWLINK {DEV_NAME, LINK_TYPE, NDEV_NAME}, NLM_F_ACK.
Result<nl::Message> build_newlink(std::string_view name, std::string_view netdev,
				  std::string_view link_type = kLinkType);
// RDMA_NLDEV_CMD_DELLINK {DEV_INDEX}, NLM_F_ACK.
Result<nl::Message> build_dellink(std::uint32_t index);
// RDMA_NLDEV_CMD_GET with NLM_F_DUMP: one reply per device.
Result<nl::Message> build_get_dump();
// RDMA_NLDEV_CMD_PORT_GET {DEV_INDEX, PORT_INDEX}, NLM_F_ACK.
Result<nl::Message> build_port_get(std::uint32_t index, std::uint32_t port);

struct Device {
	std::uint32_t index = 0;
	std::string name;
	std::uint32_t num_ports = 0;  // RDMA_NLDEV_ATTR_PORT_INDEX in a GET reply
	std::uint64_t node_guid = 0;
	std::optional<std::string> protocol;  // "roce", "ib", "iw" (newer kernels)
};

struct Port {
	std::uint32_t dev_index = 0;
	std::string dev_name;
	std::uint32_t port = 0;
	std::uint8_t state = 0;	      // enum ib_port_state
	std::uint8_t phys_state = 0;  // enum ib_port_phys_state
	std::optional<std::uint32_t> ndev_index;
	std::optional<std::string> ndev_name;
};

// Decodes one RDMA_NLDEV_CMD_GET reply. EPROTO for a message of another
// type, EINVAL for malformed or missing required attributes.
Result<Device> parse_device(const nlmsghdr &nlh);
// Decodes one RDMA_NLDEV_CMD_PORT_GET reply.
Result<Port> parse_port(const nlmsghdr &nlh);

// "ACTIVE", "LINK_UP", ... as `rdma link` prints them; "UNKNOWN" otherwise.
std::string_view port_state_name(std::uint8_t state);
std::string_view phys_state_name(std::uint8_t phys_state);

}  // namespace sroce::nldev

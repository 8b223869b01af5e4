// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Listening addresses: the forms --listen takes, and what it refuses. */
#include <errno.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "lib/netaddr.h"
#include "unit.h"

TEST(netaddr_parse)
{
	static const char *const bad[] = {
		"", "9436", ":9436", "127.0.0.1", "127.0.0.1:", "127.0.0.1:0",
		"127.0.0.1:65536", "127.0.0.1:-1", "127.0.0.1:+80", "127.0.0.1: 80",
		"127.0.0.1:80x", "localhost:9436", "::1:9436", "[::1]", "[::1:9436",
		"::1]:9436", "[]:9436", "[127.0.0.1]:9436", "256.0.0.1:80",
	};
	struct sockaddr_storage sa;
	struct sockaddr_in *in4 = (struct sockaddr_in *)&sa;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&sa;
	socklen_t len;

	CHECK_EQ_INT(netaddr__parse("127.0.0.1:9436", &sa, &len), 0);
	CHECK_EQ_INT(sa.ss_family, AF_INET);
	CHECK_EQ_INT(len, sizeof(*in4));
	CHECK_EQ_INT(ntohs(in4->sin_port), 9436);
	CHECK_EQ_U64(ntohl(in4->sin_addr.s_addr), INADDR_LOOPBACK);
	CHECK_EQ_INT(netaddr__parse("0.0.0.0:65535", &sa, &len), 0);
	CHECK_EQ_INT(ntohs(in4->sin_port), 65535);
	CHECK_EQ_INT(netaddr__parse("[::1]:1", &sa, &len), 0);
	CHECK_EQ_INT(sa.ss_family, AF_INET6);
	CHECK_EQ_INT(len, sizeof(*in6));
	CHECK_EQ_INT(ntohs(in6->sin6_port), 1);
	CHECK(!memcmp(&in6->sin6_addr, &in6addr_loopback, sizeof(in6addr_loopback)));
	CHECK_EQ_INT(netaddr__parse("[::]:9436", &sa, &len), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (netaddr__parse(bad[i], &sa, &len) != -EINVAL)
			unit__fail(__FILE__, __LINE__, "'%s' accepted", bad[i]);
}

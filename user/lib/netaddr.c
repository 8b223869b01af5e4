// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Listening addresses from the command line, see netaddr.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include "lib/netaddr.h"

int netaddr__parse(const char *s, struct sockaddr_storage *sa, socklen_t *len)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)sa;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)sa;
	const char *colon = strrchr(s, ':'), *host = s;
	char buf[INET6_ADDRSTRLEN], *end;
	size_t hlen;
	long port;

	if (!colon)
		return -EINVAL;
	hlen = colon - s;
	if (s[0] == '[') {
		if (hlen < 2 || colon[-1] != ']')
			return -EINVAL;
		host++;
		hlen -= 2;
	}
	if (hlen == 0 || hlen >= sizeof(buf) || colon[1] < '0' || colon[1] > '9')
		return -EINVAL;
	errno = 0;
	port = strtol(colon + 1, &end, 10);
	if (errno || *end || port < 1 || port > 65535)
		return -EINVAL;
	memcpy(buf, host, hlen);
	buf[hlen] = '\0';
	memset(sa, 0, sizeof(*sa));
	if (s[0] == '[') {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		*len = sizeof(*in6);
		return inet_pton(AF_INET6, buf, &in6->sin6_addr) == 1 ? 0 : -EINVAL;
	}
	in4->sin_family = AF_INET;
	in4->sin_port = htons(port);
	*len = sizeof(*in4);
	return inet_pton(AF_INET, buf, &in4->sin_addr) == 1 ? 0 : -EINVAL;
}

bool netaddr__is_loopback(const struct sockaddr_storage *sa)
{
	const struct sockaddr_in *in4 = (const struct sockaddr_in *)sa;
	const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;

	if (sa->ss_family == AF_INET)
		return (ntohl(in4->sin_addr.s_addr) >> 24) == 127;
	if (sa->ss_family != AF_INET6)
		return false;
	if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr))
		return in6->sin6_addr.s6_addr[12] == 127;
	return IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr);
}

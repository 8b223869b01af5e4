/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Listening addresses from the command line: "IPV4:PORT", "[IPV6]:PORT". */
#ifndef LIB_NETADDR_H
#define LIB_NETADDR_H

#include <stdbool.h>
#include <sys/socket.h>

/*
 * Parse "IPV4:PORT" or "[IPV6]:PORT" (literal addresses, port 1-65535)
 * into sa. Prints nothing; -EINVAL when s is not one of those.
 */
int netaddr__parse(const char *s, struct sockaddr_storage *sa, socklen_t *len);

/* Is sa (as parsed) a loopback address: 127.0.0.0/8, ::1, ::ffff:127.x.y.z? */
bool netaddr__is_loopback(const struct sockaddr_storage *sa);

#endif /* LIB_NETADDR_H */

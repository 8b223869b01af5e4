// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The process's capabilities, see caps.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include "lib/caps.h"

#define CAPS_MAX	64

/* capability(7)'s names by number, as far as iostorm's readers care to know them. */
static const char *const cap_names[] = {
	"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER",
	"CAP_FSETID", "CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP",
	"CAP_LINUX_IMMUTABLE", "CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST",
	"CAP_NET_ADMIN", "CAP_NET_RAW", "CAP_IPC_LOCK", "CAP_IPC_OWNER",
	"CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT", "CAP_SYS_PTRACE",
	"CAP_SYS_PACCT", "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE",
	"CAP_SYS_RESOURCE", "CAP_SYS_TIME", "CAP_SYS_TTY_CONFIG", "CAP_MKNOD",
	"CAP_LEASE", "CAP_AUDIT_WRITE", "CAP_AUDIT_CONTROL", "CAP_SETFCAP",
	"CAP_MAC_OVERRIDE", "CAP_MAC_ADMIN", "CAP_SYSLOG", "CAP_WAKE_ALARM",
	"CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ", "CAP_PERFMON", "CAP_BPF",
	"CAP_CHECKPOINT_RESTORE",
};
#define NR_NAMES	(sizeof(cap_names) / sizeof(cap_names[0]))

static int caps_get(struct __user_cap_data_struct data[2])
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };

	memset(data, 0, 2 * sizeof(*data));
	return syscall(SYS_capget, &hdr, data) ? -errno : 0;
}

__u64 caps__effective(void)
{
	struct __user_cap_data_struct data[2];

	if (caps_get(data))
		return 0;
	return (__u64)data[1].effective << 32 | data[0].effective;
}

int caps__drop_all_but(__u64 keep)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	int err = caps_get(data);
	__u64 permitted;

	if (err)
		return err;
	/* The bounding set first: dropping from it needs CAP_SETPCAP, which goes next. */
	for (int cap = 0; cap < CAPS_MAX; cap++)
		if (!(keep & CAPS_BIT(cap)) && prctl(PR_CAPBSET_READ, cap, 0, 0, 0) > 0)
			prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);	/* EPERM without CAP_SETPCAP */
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);	/* EINVAL before 4.3 */
	permitted = ((__u64)data[1].permitted << 32 | data[0].permitted) & keep;
	for (int i = 0; i < 2; i++) {
		data[i].permitted = data[i].effective = (__u32)(permitted >> (32 * i));
		data[i].inheritable = 0;
	}
	if (syscall(SYS_capset, &hdr, data))
		return -errno;
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ? -errno : 0;
}

void caps__names(__u64 set, char *buf, size_t len)
{
	size_t at = 0;

	if (!len)
		return;
	buf[0] = '\0';
	for (int cap = 0; cap < CAPS_MAX && at < len; cap++) {
		if (!(set & CAPS_BIT(cap)))
			continue;
		if (cap < (int)NR_NAMES)
			at += snprintf(buf + at, len - at, "%s%s", at ? ", " : "", cap_names[cap]);
		else
			at += snprintf(buf + at, len - at, "%scap_%d", at ? ", " : "", cap);
	}
	if (!set)
		snprintf(buf, len, "none");
}

int caps__parse_one(const char *name)
{
	if (!strncasecmp(name, "CAP_", 4))
		name += 4;
	for (size_t i = 0; i < NR_NAMES; i++)
		if (!strcasecmp(name, cap_names[i] + 4))
			return i;
	return -EINVAL;
}

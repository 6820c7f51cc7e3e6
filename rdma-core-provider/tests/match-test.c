// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * List the devices libibverbs found and the provider that claimed each one
 * ("<ibdev> <provider>"). With "open" as argument also try ibv_open_device()
 * on the first device claimed by sroce and print "<ibdev> open: <result>".
 * With "dlopen <path>" load <path> the way libibverbs loads a provider
 * (RTLD_NOW, into a process that already has libibverbs) and print
 * "dlopen: ok".
 *
 * Used by load-test.sh; reads the private verbs_device to learn the provider,
 * so it must be built against the same rdma-core headers as the provider.
 */
#include <config.h>

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/driver.h>

int main(int argc, char **argv)
{
	bool do_open = argc > 1 && !strcmp(argv[1], "open");
	struct ibv_device **list;
	int i, n;

	if (argc > 2 && !strcmp(argv[1], "dlopen")) {
		/* libibverbs is already loaded: main() references it */
		if (!dlopen(argv[2], RTLD_NOW)) {
			fprintf(stderr, "dlopen: %s\n", dlerror());
			return 1;
		}
		printf("dlopen: ok\n");
		return 0;
	}

	list = ibv_get_device_list(&n);
	if (!list) {
		perror("ibv_get_device_list");
		return 1;
	}
	for (i = 0; i < n; i++) {
		const struct verbs_device *vdev = verbs_get_device(list[i]);
		struct ibv_context *ctx;

		printf("%s %s\n", list[i]->name, vdev->ops->name);
		if (!do_open || strcmp(vdev->ops->name, "sroce"))
			continue;
		do_open = false;
		ctx = ibv_open_device(list[i]);
		if (ctx) {
			printf("%s open: ok\n", list[i]->name);
			ibv_close_device(ctx);
		} else {
			printf("%s open: %s\n", list[i]->name, strerror(errno));
		}
	}
	fflush(stdout);
	ibv_free_device_list(list);
	return 0;
}

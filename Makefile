# sroce - top-level build. See README.md.
#
#   make [KERNEL=6.1|6.12|newest]  deps, module for KERNEL, provider, C++ tools
#   make run                 boot the VM, create sroce0, show it
#   make check               host unit tests + VM selftests on every kernel
#                            (6.1, 6.12 and newest; KERNELS="6.1 6.12" for two)
#                            + the cluster selftests (6.1 <-> newest:
#                            interop, faults, NVMe-oF; three-node MPI)
#   make cluster [N=2] [KERNELS="6.1 newest"] [IMPL="sroce rxe"] [CMD=...]
#                            N VMs on one virtual L2, one kernel and RDMA
#                            device each; runs CMD on every node (default: a
#                            demo, devices and ibv_rc_pingpong between them)
#   make bench               sroce vs rdma_rxe vs TCP on every kernel (build/bench)
#   make sparse              module under sparse (C=2) for every kernel
#   make format-check        C++ sources match userspace/.clang-format
#   make check-debug         selftests on a KASAN/lockdep/kmemleak 6.1 kernel
#                            built from source (opt-in; TESTS=... to choose)
#   make check-blktests BLKTESTS=DIR [GROUPS="nvme srp"]
#                            blktests (a checkout of it) over sroce and over
#                            rdma_rxe in the VM, every kernel; a per-test
#                            table in build/blktests/report.md (opt-in)
#   make check-clients-rxe   the real-client selftests on rdma_rxe instead of
#                            sroce, every kernel: the rxe column of the
#                            clients matrix (opt-in, build/check-clients-rxe)
#   make sid-root            a Debian sid userland (build/sid-root) with the
#                            newest rdma-core and the provider built for its
#                            private ABI, for the rdma-core 65 selftests
#                            (make check builds it too)
#   make install             provider + module on a real host (see README)
#   make deb                 Debian packages (sroce-dkms, provider, tools)
#                            into build/deb/, lintian-checked
#   make check-deb           the packages installed, upgraded, booted under
#                            systemd and purged in fresh Debian roots and an
#                            Ubuntu 24.04 one (opt-in)
#   make clean

KERNEL ?= 6.12
# newest: Debian's newest kernel (trixie-backports' linux-image-amd64,
# whatever version that is today: build/kernels/newest/version), resolved
# by scripts/deps at run time and built in a trixie build root. See
# Documentation/design.rst, "Supported kernels".
KERNELS := 6.1 6.12 newest
NEWEST := newest
TOP := $(CURDIR)
B := $(TOP)/build
MODSRC := $(TOP)/kernel
MODFILES := $(MODSRC)/Kbuild $(wildcard $(MODSRC)/*.c $(MODSRC)/*.h $(MODSRC)/*.sh $(MODSRC)/proto/*.c $(MODSRC)/proto/*.h $(MODSRC)/uapi/*.h)
JOBS ?= $(shell nproc)

.PHONY: cluster all deps module module-host modules provider sid-root userspace run check check-debug check-clients-rxe check-blktests bench sparse format-check install deb check-deb clean help

all: deps module provider userspace

help:
	@sed -n '2,33p' Makefile | sed 's/^# \{0,1\}//'

# scripts/deps is idempotent and quiet when everything is present; it
# refreshes the kernels of KERNELS (newest: a newer release in the archive)
deps:
	@scripts/deps --packages --kernels "$(sort $(KERNELS) $(KERNEL))" --rdma-core

# --- kernel module -------------------------------------------------------
# Each kernel gets its own object tree under build/kernel/<series>/ made of
# symlinks to kernel/, so the kernels' objects never mix. scripts/kmake runs
# the kernel's make on the host, or in the build root scripts/deps recorded
# for the kernel (newest: a trixie chroot, its headers need gcc-14).
define module_rules
$(B)/kernel/$(1)/sroce.ko: $(MODFILES) $(B)/kernels/$(1)/.done
	@mkdir -p $(B)/kernel/$(1)
	@mkdir -p $(B)/kernel/$(1)/proto
	@cd $(MODSRC) && for f in Kbuild *.c *.h *.sh proto/*.c proto/*.h; do ln -sfn $(MODSRC)/$$$$f $(B)/kernel/$(1)/$$$$f; done
	@ln -sfn $(MODSRC)/uapi $(B)/kernel/$(1)/uapi
	$(TOP)/scripts/kmake $(1) $(MAKE) -C $(B)/kernels/$(1)/build M=$(B)/kernel/$(1) W=1 $(MODFLAGS_$(1)) modules
module-$(1): $(B)/kernel/$(1)/sroce.ko
# sparse: it must be there (on the host, or in the kernel's build root),
# the C=2 build must succeed (its exit status, not tee's: sparse crashing
# or not found fails it) and its log hold no warning or error
sparse-$(1): $(B)/kernels/$(1)/.done
	@mkdir -p $(B)/kernel/$(1)
	$(MAKE) module-$(1)
	@if [ -f $(B)/kernels/$(1)/buildroot ]; then \
		r=$(B)/buildroot/$$$$(cat $(B)/kernels/$(1)/buildroot); \
		[ -x $$$$r/usr/local/bin/sparse ] || [ -x $$$$r/usr/bin/sparse ] || \
			{ echo "sparse-$(1): sparse not found in the build root $$$$r" >&2; exit 1; }; \
	else \
		command -v sparse > /dev/null || \
			{ echo "sparse-$(1): sparse is not installed (scripts/deps --packages installs it)" >&2; exit 1; }; \
	fi
	@st=0; $(TOP)/scripts/kmake $(1) $(MAKE) -C $(B)/kernels/$(1)/build M=$(B)/kernel/$(1) W=1 C=2 modules \
		> $(B)/kernel/$(1)/sparse.log 2>&1 || st=$$$$?; \
	cat $(B)/kernel/$(1)/sparse.log; \
	[ $$$$st -eq 0 ] || { echo "sparse-$(1): the C=2 build failed (exit status $$$$st)" >&2; exit 1; }
	@! grep -E 'warning|error' $(B)/kernel/$(1)/sparse.log
endef
$(foreach k,$(sort $(KERNELS) $(NEWEST)),$(eval $(call module_rules,$(k))))

# The debug kernel (KASAN, lockdep, kmemleak) of `make check-debug`: built
# from Debian's linux-source-6.1 by scripts/debug-kernel, not part of
# KERNELS (so not of make modules/sparse/check). Its sroce.ko carries DWARF
# (-g) so that the reports' sroce frames decode to file:line.
DEBUG_KERNEL := 6.1-debug
MODFLAGS_$(DEBUG_KERNEL) := KCFLAGS=-g
$(eval $(call module_rules,$(DEBUG_KERNEL)))
$(B)/kernels/$(DEBUG_KERNEL)/.done: scripts/debug-kernel.config
	@scripts/debug-kernel

$(B)/kernels/%/.done:
	@scripts/deps --kernels $*

module: module-$(KERNEL)
	@cp $(B)/kernel/$(KERNEL)/sroce.ko $(MODSRC)/sroce.ko

modules: $(foreach k,$(KERNELS),module-$(k))

sparse: $(foreach k,$(KERNELS),sparse-$(k))

# the C++ sources against userspace/.clang-format: lists the files that differ
format-check:
	@cd userspace && bad=$$(for f in $$(git ls-files '*.cc' '*.h'); do \
		clang-format --style=file "$$f" | cmp -s - "$$f" || echo "$$f"; done); \
	[ -z "$$bad" ] || { echo "differ from userspace/.clang-format (clang-format -i them):"; echo "$$bad"; exit 1; }

clean:
	rm -rf $(B)/kernel $(B)/provider $(B)/provider-sid $(B)/userspace $(MODSRC)/sroce.ko
	rm -f $(MODSRC)/*.o $(MODSRC)/proto/*.o $(MODSRC)/.*.cmd $(MODSRC)/proto/.*.cmd \
		$(MODSRC)/*.mod* $(MODSRC)/Module.symvers $(MODSRC)/modules.order

# --- rdma-core provider (against rdma-core's headers, checked against the
# installed libibverbs' private ABI) ---------------------------------------
provider: $(B)/rdma-core/.done
	@cmake -S rdma-core-provider -B $(B)/provider -DRDMA_CORE_SRC=$(B)/rdma-core/src \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo > $(B)/provider.cmake.log 2>&1 || \
		{ cat $(B)/provider.cmake.log; exit 1; }
	@cmake --build $(B)/provider -j $(JOBS)

$(B)/rdma-core/.done:
	@scripts/deps --rdma-core

# scripts/check runs it too, beside its build gates (debootstrap, ~580 MB,
# about four minutes the first time; later runs only rebuild the
# provider): sid's rdma-core source, build/sid-root with sid's rdma-core
# tools and pyverbs, and the provider built and installed in it against
# that source (private ABI 65 today), for 93-rdma-core-65.sh,
# 93-comp-cntr.sh and 93-port-speed.sh. See Documentation/provider.rst.
sid-root:
	@scripts/deps --packages
	@scripts/sid-root

# --- C++ companion tools and host unit tests -------------------------------
userspace:
	@cmake -S userspace -B $(B)/userspace -DCMAKE_BUILD_TYPE=RelWithDebInfo > $(B)/userspace.cmake.log 2>&1 || \
		{ cat $(B)/userspace.cmake.log; exit 1; }
	@cmake --build $(B)/userspace -j $(JOBS)

# --- the two user commands -------------------------------------------------
run: all
	qemu/vm-run --kernel $(KERNEL) -- scripts/demo

# qemu/cluster: N nodes, the kernels of KERNELS in node order (the last
# repeated; default 6.1 and newest unless KERNELS is given), IMPL per node
# (sroce, rxe, none), CMD on every node (default qemu/cluster-demo).
# CLUSTER_ARGS: more qemu/cluster options (--timeout, --mtu, --mem ...).
N ?= 2
IMPL ?= sroce
CMD ?=
CLUSTER_KERNELS := $(if $(filter command line environment,$(origin KERNELS)),$(KERNELS),6.1 $(NEWEST))
# CMD reaches the nodes' sh -c as written ($VAR, quotes): through the
# environment, unexpanded by make.
cluster: export SROCE_CLUSTER_CMD = $(value CMD)
cluster: deps
	@$(MAKE) --no-print-directory $(foreach k,$(sort $(CLUSTER_KERNELS)),module-$(k)) provider userspace
	qemu/cluster --nodes $(N) --kernels "$(CLUSTER_KERNELS)" --impl "$(IMPL)" $(CLUSTER_ARGS) \
		$(if $(value CMD),-- sh -c "$$SROCE_CLUSTER_CMD")

check: deps
	@$(MAKE) --no-print-directory modules provider userspace
	@scripts/check --kernels "$(KERNELS)"

# Opt-in: builds (once, cached in build/kernels/6.1-debug) a 6.1 kernel
# with KASAN, lockdep and kmemleak, runs TESTS on it in one VM, then a
# kmemleak scan; reports in build/check-debug. See Documentation/testing-optin.rst.
DEBUG_TESTS := 10-module 20-link 35-cq-mr 90-rc-pingpong 90-srq 95-rc-errors \
	96-verify 98-loopback 99-hostile 99-teardown 99-fuzz
TESTS ?= $(DEBUG_TESTS)
check-debug:
	@scripts/deps --packages --rdma-core
	@scripts/debug-kernel
	@$(MAKE) --no-print-directory module-$(DEBUG_KERNEL) provider userspace
	@scripts/check-debug $(TESTS)

# Opt-in, not part of check (blktests is not packaged in Debian): the
# nvme and srp groups of a blktests checkout, over sroce and over rdma_rxe
GROUPS ?= nvme srp
check-blktests: deps
	@test -n "$(BLKTESTS)" || { echo "make check-blktests BLKTESTS=/path/to/blktests [GROUPS=...]"; exit 2; }
	@scripts/deps --blktests
	@$(MAKE) --no-print-directory modules provider userspace
	@scripts/check-blktests --blktests "$(BLKTESTS)" --groups "$(GROUPS)" --kernels "$(KERNELS)" \
		--config "$(BLKTESTS_CONFIG)"

# Opt-in, not part of check: the 92-*/97-* client scripts with
# SROCE_CLIENT_IMPL=rxe (selftests/run --impl rxe); a failure there is
# rxe's, reported in the matrix, not a failure of the command.
check-clients-rxe: deps
	@$(MAKE) --no-print-directory modules provider userspace
	@scripts/check-clients --impl rxe --kernels "$(KERNELS)"

# BENCH_ARGS: e.g. --reps 5, --smoke (see scripts/bench --help)
bench: deps
	@$(MAKE) --no-print-directory modules provider userspace
	@scripts/bench --kernels "$(KERNELS)" $(BENCH_ARGS)

# Build against the running kernel's headers (a real host, not the VM).
module-host:
	$(MAKE) -C /lib/modules/$$(uname -r)/build M=$(MODSRC) W=1 modules

install: module-host provider
	install -D -m 644 kernel/sroce.ko /lib/modules/$$(uname -r)/updates/sroce.ko
	depmod -a
	cmake --install $(B)/provider

# --- Debian packages ---------------------------------------------------------
# dpkg-buildpackage -b from a copy of the checkout's files (scripts/deb):
# sroce-dkms, ibverbs-providers-sroce, sroce-tools in build/deb/, then
# lintian (an error fails). scripts/deps --deb installs the build tools;
# the provider needs rdma-core's source tree (build/rdma-core/src, passed
# as RDMA_CORE_SRC to debian/rules).
deb:
	@scripts/deps --deb --rdma-core
	@scripts/deb

# Opt-in, not part of check (~20 min a Debian release, the archive): the
# previous version's packages installed into a fresh debootstrapped Debian
# root (cached in build/deb-test) and upgraded to these, DKMS building the
# module for each kernel of KERNELS, then in the VM that module, the
# installed provider and tools, a systemd boot of the root with
# sroce-link@ units, and apt-get purge; the newest kernel (in KERNELS by
# default) adds a trixie (Debian 13) root, and an Ubuntu 24.04 root is
# booted with Ubuntu's kernel (skipped when its archive does not answer).
# See Documentation/packaging.rst.
check-deb: deb
	@scripts/deps --kernels "$(KERNELS)"
	@scripts/check-deb --kernels "$(KERNELS)"

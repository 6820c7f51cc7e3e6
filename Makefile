# sroce - top-level build. See README.md.
#
#   make [KERNEL=6.1|6.12]   deps, module for KERNEL, provider, C++ tools
#   make run                 boot the VM, create sroce0, show it
#   make check               host unit tests + VM selftests on every kernel
#   make sparse              module under sparse (C=1) for every kernel
#   make bench               performance comparison (see Documentation/)
#   make clean

KERNEL ?= 6.12
KERNELS := 6.1 6.12
TOP := $(CURDIR)
B := $(TOP)/build
MODSRC := $(TOP)/kernel
MODFILES := $(MODSRC)/Kbuild $(wildcard $(MODSRC)/*.c $(MODSRC)/*.h $(MODSRC)/proto/*.c $(MODSRC)/proto/*.h $(MODSRC)/uapi/*.h)
JOBS ?= $(shell nproc)

.PHONY: all deps module modules provider userspace run check unit selftests sparse bench clean help

all: deps module provider userspace

help:
	@sed -n '2,9p' Makefile | sed 's/^# \{0,1\}//'

# scripts/deps is idempotent and quiet when everything is present
deps:
	@scripts/deps

# --- kernel module -------------------------------------------------------
# Each kernel gets its own object tree under build/kernel/<series>/ made of
# symlinks to kernel/, so 6.1 and 6.12 objects never mix.
define module_rules
$(B)/kernel/$(1)/sroce.ko: $(MODFILES) $(B)/kernels/$(1)/.done
	@mkdir -p $(B)/kernel/$(1)
	@mkdir -p $(B)/kernel/$(1)/proto
	@cd $(MODSRC) && for f in Kbuild *.c *.h proto/*.c proto/*.h; do ln -sfn $(MODSRC)/$$$$f $(B)/kernel/$(1)/$$$$f; done
	@ln -sfn $(MODSRC)/uapi $(B)/kernel/$(1)/uapi
	$(MAKE) -C $(B)/kernels/$(1)/build M=$(B)/kernel/$(1) W=1 modules
module-$(1): $(B)/kernel/$(1)/sroce.ko
sparse-$(1): $(B)/kernels/$(1)/.done
	@mkdir -p $(B)/kernel/$(1)
	$(MAKE) module-$(1)
	$(MAKE) -C $(B)/kernels/$(1)/build M=$(B)/kernel/$(1) W=1 C=2 modules 2>&1 | tee $(B)/kernel/$(1)/sparse.log
	@! grep -E 'warning|error' $(B)/kernel/$(1)/sparse.log
endef
$(foreach k,$(KERNELS),$(eval $(call module_rules,$(k))))

$(B)/kernels/%/.done:
	@scripts/deps --kernels $*

module: module-$(KERNEL)
	@cp $(B)/kernel/$(KERNEL)/sroce.ko $(MODSRC)/sroce.ko

modules: $(foreach k,$(KERNELS),module-$(k))

sparse: $(foreach k,$(KERNELS),sparse-$(k))

clean:
	rm -rf $(B)/kernel $(B)/provider $(B)/userspace $(MODSRC)/sroce.ko

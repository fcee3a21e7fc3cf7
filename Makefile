# SPDX-License-Identifier: GPL-2.0
#
# Build perf with `perf kvm-events` from a 6.12 kernel tree.
#
#   make            build ./perf (tree from Debian's linux-source-6.12)
#   make KSRC=DIR   take the base tree from DIR instead (read only)
#   make check      run the tests and checkpatch
#   make run        record the bundled KVM guest and print the reports
#   make series     write the work as a git am-able series to build/series
#   make clean      remove the build folder and ./perf

BUILD     ?= $(CURDIR)/build
BASE      := $(BUILD)/base
TREE      := $(BUILD)/linux
OUT       := $(BUILD)/perf-out
PERF      := $(CURDIR)/perf
JOBS      ?= $(shell nproc)

# Only what the kvm-events command and its tests use; everything else off,
# so that the build needs just libtraceevent, libelf, zlib and pthread.
PERF_FEATURES := NO_LIBPYTHON=1 NO_LIBPERL=1 NO_LIBBPF=1 BUILD_BPF_SKEL=0 \
	NO_LIBUNWIND=1 NO_LIBDW=1 NO_SLANG=1 NO_GTK2=1 NO_LIBNUMA=1 \
	NO_LIBCAP=1 NO_LIBBABELTRACE=1 NO_LIBCRYPTO=1 NO_JVMTI=1 NO_LIBLLVM=1 \
	NO_LIBPFM4=1 NO_LIBZSTD=1 NO_LZMA=1 NO_SDT=1 NO_LIBAUDIT=1 \
	NO_LIBDEBUGINFOD=1 NO_CAPSTONE=1 NO_DEMANGLE=1 NO_LIBTRACEEVENT=0

PERF_MAKE := $(MAKE) -s -C $(TREE)/tools/perf O=$(OUT) -j$(JOBS) \
	$(PERF_FEATURES) $(EXTRA_PERF_FLAGS)

.PHONY: all perf deps tree check run series bench clean FORCE

all: perf

deps:
	@scripts/deps.sh

$(BASE)/.base-version:
	@scripts/deps.sh
	@scripts/base-tree.sh $(BASE) $(KSRC)

tree: $(BASE)/.base-version
	@scripts/lay-tree.sh $(BASE) $(TREE)

perf: deps tree
	@mkdir -p $(OUT)
	@$(PERF_MAKE) >$(BUILD)/perf-build.log 2>&1 || \
		{ grep -E -B2 -A4 'error|Error' $(BUILD)/perf-build.log | head -60; \
		  echo "error: perf build failed, see $(BUILD)/perf-build.log" >&2; exit 1; }
	@ln -sf $(OUT)/perf $(PERF)
	@echo "  PERF   ./perf ($$($(PERF) version))"

check: perf
	@scripts/check.sh $(PERF) $(BASE)

run: perf
	@scripts/run.sh $(PERF)

series: tree
	@scripts/series.sh $(BASE) $(BUILD)/series

bench: perf
	@scripts/bench.sh $(PERF)

clean:
	rm -rf $(BUILD) $(PERF)

# SPDX-License-Identifier: GPL-2.0
#
# Build perf with `perf kvm-events` from a 6.12 kernel tree.
#
#   make            build ./perf (tree from Debian's linux-source-6.12)
#                   and kvmgen, the tests' generator, beside it
#   make KSRC=DIR   take the base tree from DIR instead (read only)
#   make check      run the tests and checkpatch, the test machines' beside
#                   the host's; it ends with a table of where its time went
#   make check-host the host's tests and checkpatch only, for the edit
#                   loop (a few minutes; no test machine)
#   make check SANITIZE=1
#                   the same with a perf built with ASan and UBSan
#   make fuzz [FUZZ_SECONDS=N] [FUZZ_MODE=file|pipe|stdin|dir]
#                   fuzz perf kvm-events report with AFL++ (default 300 s)
#   make vm-check [VM_KERNEL=6.1]
#                   run the guest tests in the test machine: Debian's 6.12
#                   (or 6.1) kernel's KVM on qemu's emulated SVM CPU, for a
#                   host without /dev/kvm (make check does so by itself)
#   make vm-check VM_ARCH=arm64 [VM_KERNEL=6.12-nvhe|6.1]
#                   the arm64 guest tests, with the arm64 perf, in the
#                   arm64 test machine (Debian's arm64 kernel's KVM on
#                   qemu's emulated virtualization extensions)
#   make perf-arm64 cross-build the same perf for arm64, into
#                   build/perf-out-arm64/perf
#   make run        record the bundled KVM guest and print the reports
#   make bench      time the report against upstream's and cat; the table
#                   goes to build/bench.txt (it takes minutes)
#   make deps-optional
#                   install what only some tests use (chromium)
#   make readme-picture
#                   redraw doc/heatmap.png, the README's picture: the
#                   screenshot of the heatmap's browser test (it needs
#                   chromium: make deps-optional)
#   make series     write the work as a git am-able series to build/series
#   make series-check
#                   build perf (and kvmgen, once tests run it)
#                   after each patch of the series, and run checkpatch on
#                   each (it takes about 20 minutes)
#   make install [prefix=/usr/local] [DESTDIR=]
#                   install perf kvm-events beside the distribution's
#                   perf: perf-kvm-events, its man page, the design, the
#                   exporter's units (make uninstall removes them)
#   make deb        the Debian package perf-kvm-events, into build/deb
#                   (make deb-arm64: the same of make perf-arm64's perf)
#   make clean      remove the build folder and ./perf

BUILD     ?= $(CURDIR)/build
BASE      := $(BUILD)/base
TREE      := $(BUILD)/linux
OUT       := $(BUILD)/perf-out
ARM64_OUT := $(BUILD)/perf-out-arm64
SAN_OUT   := $(BUILD)/perf-out-san
FUZZ_OUT  := $(BUILD)/perf-out-fuzz
PERF      := $(CURDIR)/perf
JOBS      ?= $(shell nproc)

# Only what the kvm-events command and its tests use; everything else off,
# so that the build needs just libtraceevent, libelf, zlib and pthread,
# libslang for --tui (without it perf builds, and --tui says why not),
# libmicrohttpd, GnuTLS and libyaml for --metrics-listen (the same), and
# clang for the BPF skeletons of live --use-bpf (BUILD_BPF_SKEL=1: the
# tree's libbpf, built static, and its bootstrap bpftool).  Where clang is
# missing, perf's Makefile.config turns the skeletons off with a warning
# and --use-bpf says what is missing; EXTRA_PERF_FLAGS=BUILD_BPF_SKEL=0
# does the same on purpose.
PERF_FEATURES := NO_LIBPYTHON=1 NO_LIBPERL=1 BUILD_BPF_SKEL=1 \
	NO_LIBUNWIND=1 NO_LIBDW=1 NO_GTK2=1 NO_LIBNUMA=1 \
	NO_LIBCAP=1 NO_LIBBABELTRACE=1 NO_LIBCRYPTO=1 NO_JVMTI=1 NO_LIBLLVM=1 \
	NO_LIBPFM4=1 NO_LIBZSTD=1 NO_LZMA=1 NO_SDT=1 NO_LIBAUDIT=1 \
	NO_LIBDEBUGINFOD=1 NO_CAPSTONE=1 NO_DEMANGLE=1 NO_LIBTRACEEVENT=0

# perf's own make, without this make's command line: make install
# prefix=/usr (install-check.sh, in make check's second lane) passed
# prefix and DESTDIR down, through MAKEFLAGS and the environment (make
# exports its command line's variables), perf was relinked for them, and
# the x86 test machine, running ./perf over 9p at that time, failed to
# exec it (EACCES, ENODATA: CI of stop 58).  What perf's build takes is
# given here, and -j$(JOBS) with it.
TOOLS_MAKE := env -u MAKEFLAGS -u MFLAGS -u DESTDIR -u prefix -u bindir -u mandir \
	-u docdir -u libexecdir -u unitdir -u sysconfdir $(MAKE)

PERF_MAKE := $(TOOLS_MAKE) -s -C $(TREE)/tools/perf O=$(OUT) -j$(JOBS) \
	$(PERF_FEATURES) $(EXTRA_PERF_FLAGS)

# kvmgen writes the generated recordings of the tests, the bench and the
# fuzzer's seeds, with their ground truth.  It is a helper program, not a
# part of perf: built with the system gcc from the laid tree's
# tools/perf/tests/kvm-events-gen, it takes only the tree's headers and
# links no perf object.  Every perf build target also puts a kvmgen in its
# output folder, next to the perf binary, where the shell tests look for
# it (beside the perf found first in PATH): `make perf` builds
# $(OUT)/kvmgen, so check, bench, fuzz and run, which need ./perf, have it.
KVMGEN_SRC = $(TREE)/tools/perf/tests/kvm-events-gen
# (KVMGEN_FLAGS, without the headers: series-check builds kvmgen too, with
# each patch's own)
KVMGEN_FLAGS := -O2 -g -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror \
	-Wno-type-limits -Wmissing-prototypes -Wmissing-declarations \
	-Wstrict-prototypes -Wdeclaration-after-statement -Wshadow
KVMGEN_CFLAGS := $(KVMGEN_FLAGS) \
	-I$(TREE)/tools/include -I$(TREE)/tools/include/uapi \
	-I$(TREE)/tools/perf -I$(TREE)/tools/lib/perf/include

# build-kvmgen DIR: DIR/kvmgen, again only when a source is newer
define build-kvmgen
	@mkdir -p $(1)
	@if [ ! -x $(1)/kvmgen ] || \
	    [ -n "$$(find $(KVMGEN_SRC) -newer $(1)/kvmgen)" ]; then \
		gcc $(KVMGEN_CFLAGS) -o $(1)/kvmgen $(KVMGEN_SRC)/*.c || \
			{ echo "error: kvmgen build failed" >&2; exit 1; }; \
		echo "  CC     $(1)/kvmgen"; \
	fi
endef

.PHONY: all perf perf-arm64 perf-san perf-fuzz deps deps-arm64 deps-optional deps-check \
	tree check check-host vm-check run readme-picture series series-check bench fuzz \
	install uninstall man deb deb-arm64 deps-packaging clean FORCE

all: perf

deps:
	@scripts/deps.sh

# The arm64 cross toolchain and the arm64 builds of perf's libraries
deps-arm64:
	@scripts/deps.sh --arm64

# What make check's tests use: tmux for the browser, Prometheus and
# node_exporter for the metrics.  Where they cannot be installed (not
# root), the tests that need them skip and say why.
deps-check:
	-@scripts/deps.sh --check

# What only some tests use (they skip without it): Chromium
deps-optional:
	@scripts/deps.sh --optional

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
	@# Linked again only when it points elsewhere: the test machines run
	@# ./perf over 9p while make install and make deb, in check's other
	@# lane, come through here, and a link replaced under a running
	@# machine fails its exec (ENODATA, EACCES: CI of stop 58).
	@[ "$$(readlink $(PERF))" = "$(OUT)/perf" ] || ln -sf $(OUT)/perf $(PERF)
	@echo "  PERF   ./perf ($$($(PERF) version))"
	$(call build-kvmgen,$(OUT))

# perf for arm64, cross-built from the same laid tree the way perf's own
# Makefile does it (ARCH and CROSS_COMPILE), with the same features, for
# the arm64 test machine (scripts/vm.sh -a arm64).  There is no
# aarch64-linux-gnu-pkg-config on Debian 12, so pkg-config is pointed at
# the arm64 multiarch .pc files; Makefile.perf would guess the same
# folders, but says so with a warning.  No --tui and no metrics server
# (NO_SLANG, NO_LIBMICROHTTPD): the arm64 machine's root has neither
# library, and no arm64 test needs them; --metrics-file works.  The BPF
# skeletons build as for x86: clang --target=bpf compiles them with
# -D__TARGET_ARCH_arm64, and the bootstrap bpftool that turns them into
# skeletons is built with the host's gcc.  No kvmgen beside it: the tests that generate recordings
# run on the host, with ./perf; in the arm64 machine they skip.
ARM64_PKG_CONFIG_LIBDIR := /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig

perf-arm64: deps deps-arm64 tree
	@mkdir -p $(ARM64_OUT)
	@PKG_CONFIG_LIBDIR=$(ARM64_PKG_CONFIG_LIBDIR) PKG_CONFIG_PATH= \
		$(TOOLS_MAKE) -s -C $(TREE)/tools/perf O=$(ARM64_OUT) -j$(JOBS) \
		ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
		$(PERF_FEATURES) NO_SLANG=1 NO_LIBMICROHTTPD=1 $(EXTRA_PERF_FLAGS) \
		>$(BUILD)/perf-arm64-build.log 2>&1 || \
		{ grep -E -B2 -A4 'error|Error' $(BUILD)/perf-arm64-build.log | head -60; \
		  echo "error: arm64 perf build failed, see $(BUILD)/perf-arm64-build.log" >&2; exit 1; }
	@echo "  PERF   $(ARM64_OUT)/perf (arm64)"

# SANITIZE=1: a second perf, in its own output folder so that ./perf and
# its incremental build stay as they are, with AddressSanitizer and
# UndefinedBehaviorSanitizer.  -O1 -g keeps the stacks readable.  WERROR=0:
# under the sanitizers gcc warns wrongly in upstream files
# (-Wmaybe-uninitialized, -Wformat-overflow), and the normal build already
# keeps the tree free of warnings.  UBSan's checks stay recoverable, as
# only those can be suppressed (scripts/ubsan.supp, for upstream code);
# halt_on_error=1 stops at the first report all the same.
SAN_CFLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined

# Any report fails the run.  Every report goes to $(SAN_LOG).PID, which
# check.sh prints and counts as a failure, even from a perf whose exit
# status a test does not look at.  An ASan or UBSan error also aborts the
# process, so that a shell test sees a signal rather than an error exit.
# gcc's libubsan writes its reports to stderr whatever log_path says, and
# the tests hide stderr: handle_abort=1 has ASan log the stack of the abort
# that follows a UBSan report.
#
# Leaks are checked.  The only leaks in the suite are upstream perf's:
# `perf kvm stat`, the tests' oracle, leaves its threads and event tables
# allocated at exit, and the tests run it without leak checking (their
# `upstream` helper); the host's PMU mappings read on AMD hosts are never
# freed, and a few more that scripts/lsan.supp suppresses by the name of
# the upstream function, so that a leak of kvm-events' own still fails
# the run.  malloc's stacks are taken with the fast unwinder (frame
# pointers, ASan's default): the slow one made upstream's perf kvm stat
# report of 100,000 exits take 47 s instead of 3.4 s, and our report
# three times as long.
SAN_LOG := $(BUILD)/sanitizer/report
SAN_ENV := \
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:halt_on_error=1:handle_abort=1:log_path=$(SAN_LOG) \
	LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan.supp:print_suppressions=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:abort_on_error=1:suppressions=$(CURDIR)/scripts/ubsan.supp:log_path=$(SAN_LOG) \
	SANITIZER_LOG=$(SAN_LOG)

perf-san: deps tree
	@mkdir -p $(SAN_OUT)
	@$(TOOLS_MAKE) -s -C $(TREE)/tools/perf O=$(SAN_OUT) -j$(JOBS) \
		$(PERF_FEATURES) DEBUG=1 WERROR=0 EXTRA_CFLAGS="$(SAN_CFLAGS)" \
		LDFLAGS="-fsanitize=address,undefined" $(EXTRA_PERF_FLAGS) \
		>$(BUILD)/perf-san-build.log 2>&1 || \
		{ grep -E -B2 -A4 'error|Error' $(BUILD)/perf-san-build.log | head -60; \
		  echo "error: sanitized perf build failed, see $(BUILD)/perf-san-build.log" >&2; exit 1; }
	@echo "  PERF   $(SAN_OUT)/perf (ASan, UBSan)"
	$(call build-kvmgen,$(SAN_OUT))

# make check's time table starts with its builds: timed TARGET LABEL makes
# TARGET and writes its seconds to CHECK_TIMES.
CHECK_TIMES := $(BUILD)/check-times
define timed
	@start=$$(date +%s); $(MAKE) --no-print-directory $(1) || exit 1; \
		echo "$$(($$(date +%s) - start)) $(2)" >> $(CHECK_TIMES)
endef

# make check-host: the same without the test machines, for the edit loop
CHECK_ARGS = $(if $(filter check-host,$@),--host)

ifeq ($(SANITIZE),1)
check check-host:
	@mkdir -p $(BUILD) $(dir $(SAN_LOG)) && rm -f $(CHECK_TIMES)
	$(call timed,perf-san,build: the ASan and UBSan perf (and kvmgen))
	$(call timed,deps-check,the tests' packages)
	@$(SAN_ENV) CHECK_TIMES=$(CHECK_TIMES) \
		scripts/check.sh $(CHECK_ARGS) $(SAN_OUT)/perf $(BASE) $(TREE)
else
# and the arm64 guest tests, with the arm64 perf, in the arm64 test
# machine (the sanitized run leaves them out: no arm64 ASan perf).  The
# arm64 perf is built in check.sh's second lane, beside the host's tests.
check check-host:
	@mkdir -p $(BUILD) && rm -f $(CHECK_TIMES)
	$(call timed,perf,build: perf (and kvmgen))
	$(call timed,deps-check,the tests' packages)
	@ARM64_PERF=$(ARM64_OUT)/perf CHECK_TIMES=$(CHECK_TIMES) \
		ARM64_BUILD="$(MAKE) --no-print-directory -C $(CURDIR) perf-arm64" \
		scripts/check.sh $(CHECK_ARGS) $(PERF) $(BASE) $(TREE)
endif

VM_KERNEL ?= 6.12
# x86_64, or arm64: the arm64 guest tests with the arm64 perf
VM_ARCH ?= x86_64
ifeq ($(VM_ARCH),arm64)
vm-check: perf-arm64
	@scripts/vm-check.sh -a arm64 $(ARM64_OUT)/perf $(VM_KERNEL)
else
vm-check: perf
	@scripts/vm-check.sh -a $(VM_ARCH) $(PERF) $(VM_KERNEL)
endif

# The fuzzed perf: AFL++'s instrumentation and ASan, built with clang.
# WERROR=0: the normal build keeps the tree free of gcc's warnings, and a
# warning of clang's in an upstream file must not stop the fuzzing.  ./perf
# makes the seeds, and the sanitized perf runs every input the fuzzers
# kept, for the undefined behaviour that the fuzzed perf does not check.
FUZZ_SECONDS ?= 300
# file, pipe, stdin or dir: see scripts/fuzz.sh
FUZZ_MODE ?= file

perf-fuzz: deps tree
	@scripts/fuzz.sh --deps
	@mkdir -p $(FUZZ_OUT)
	@AFL_USE_ASAN=1 AFL_QUIET=1 $(TOOLS_MAKE) -s -C $(TREE)/tools/perf \
		O=$(FUZZ_OUT) -j$(JOBS) $(PERF_FEATURES) CC=afl-clang-fast \
		WERROR=0 EXTRA_CFLAGS="-g" $(EXTRA_PERF_FLAGS) \
		>$(BUILD)/perf-fuzz-build.log 2>&1 || \
		{ grep -E -B2 -A4 'error|Error' $(BUILD)/perf-fuzz-build.log | head -60; \
		  echo "error: fuzzing perf build failed, see $(BUILD)/perf-fuzz-build.log" >&2; exit 1; }
	@echo "  PERF   $(FUZZ_OUT)/perf (AFL++, ASan)"

fuzz: perf perf-san perf-fuzz
	@FUZZ_MODE=$(FUZZ_MODE) scripts/fuzz.sh $(FUZZ_OUT)/perf $(PERF) \
		$(BUILD)/fuzz-$(FUZZ_MODE) $(FUZZ_SECONDS) $(SAN_OUT)/perf

run: perf
	@scripts/run.sh $(PERF)

# kvm-events-heatmap-browser.sh copies its screenshot to HEATMAP_SHOT
readme-picture: perf
	@mkdir -p doc
	@PATH=$(OUT):$$PATH HEATMAP_SHOT=$(CURDIR)/doc/heatmap.png \
		bash tools/perf/tests/shell/kvm-events-heatmap-browser.sh
	@echo "  PNG    doc/heatmap.png"

series: tree
	@scripts/series.py $(BASE) $(TREE) $(BUILD)/series

series-check: series
	@scripts/series-check.sh $(BASE) $(BUILD)/series $(BUILD)/series-tree \
		$(BUILD)/series-out "-j$(JOBS) $(PERF_FEATURES) $(EXTRA_PERF_FLAGS)" \
		"$(KVMGEN_FLAGS)"

bench: perf
	@scripts/bench.sh $(PERF)

# --- make install, make uninstall, make deb ---------------------------------
#
# perf kvm-events installed beside the distribution's perf: perf runs any
# perf-<name> on PATH as `perf <name>`, and a perf binary started as
# perf-<name> runs its builtin <name>, so ./perf installed as
# perf-kvm-events is both `perf kvm-events` of Debian's perf and a
# command of its own.  The BPF skeletons are inside it; kvmgen, the
# tests' generator, is not installed.  make install puts, under
# $(DESTDIR) (INSTALL_FILES; make uninstall removes exactly these, and
# the two folders of our own, docdir and libexecdir, when empty):
#
#   $(bindir)/perf-kvm-events          ./perf, our commit written into it,
#                                      stripped as dh_strip does (./perf
#                                      keeps its debug info)
#   $(mandir)/man1/perf-kvm-events.1   the man page (perf help kvm-events)
#   $(docdir)/kvm-events-design.txt    the design
#   $(libexecdir)/perf-kvm-events-exporter
#                                      what the units run: live, with BPF
#                                      where it works, serving the metrics
#   $(unitdir)/perf-kvm-events-exporter.service
#                                      /metrics on 127.0.0.1:9465
#   $(unitdir)/perf-kvm-events-textfile.service
#                                      the same into node_exporter's
#                                      textfile folder
#   $(sysconfdir)/default/perf-kvm-events-exporter
#                                      the units' options
#
# The units go to $(prefix)/lib/systemd/system, a folder of systemd's
# unit path for /usr/local too (systemd.unit(5)), and the options to
# /etc/default whatever the prefix, where the units read them.  The man
# page is made by asciidoctor -b manpage with perf's
# asciidoctor-extensions.rb (linkperf:), the way perf's Documentation
# Makefile does with USE_ASCIIDOCTOR=1: one Ruby tool of 14 packages
# where asciidoc with xmlto takes DocBook and its XSL, over 150.
# asciidoctor makes " -- " an em dash: sed puts the "--" back.
#
# make deb (scripts/deb.sh) installs the same with prefix=/usr,
# unitdir=/lib/systemd/system into a staging folder and makes the package
# of it with dpkg-deb; dpkg-shlibdeps gives its Depends, lintian checks
# it.  INSTALL_PERF: the perf binary to install (make deb-arm64: the arm64
# one, with the cross binutils' objcopy).
prefix     ?= /usr/local
bindir     ?= $(prefix)/bin
mandir     ?= $(prefix)/share/man
docdir     ?= $(prefix)/share/doc/perf-kvm-events
libexecdir ?= $(prefix)/lib/perf-kvm-events
unitdir    ?= $(prefix)/lib/systemd/system
sysconfdir ?= /etc
INSTALL_PERF ?= $(PERF)
OBJCOPY    ?= objcopy
PKG_DIR    := $(CURDIR)/packaging
MAN_PAGE   := $(BUILD)/doc/perf-kvm-events.1
INSTALL_FILES = $(bindir)/perf-kvm-events $(mandir)/man1/perf-kvm-events.1 \
	$(docdir)/kvm-events-design.txt $(libexecdir)/perf-kvm-events-exporter \
	$(unitdir)/perf-kvm-events-exporter.service \
	$(unitdir)/perf-kvm-events-textfile.service \
	$(sysconfdir)/default/perf-kvm-events-exporter

# Our commit, for perf-kvm-events --version and the package's version:
# HEAD's, with -dirty when a tracked file differs from it
KVM_EVENTS_COMMIT = $(shell git -C $(CURDIR) rev-parse --short=12 HEAD 2>/dev/null)$(shell \
	git -C $(CURDIR) status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo -dirty)
# @bindir@ ... in the wrapper and the units
PKG_SUBST = sed -e 's|@bindir@|$(bindir)|g' -e 's|@libexecdir@|$(libexecdir)|g' \
	-e 's|@sysconfdir@|$(sysconfdir)|g'

# asciidoctor, dpkg-dev, lintian, binutils, and debootstrap for make
# check's clean root
deps-packaging:
	@scripts/deps.sh --packaging

man: $(MAN_PAGE)

$(MAN_PAGE): tools/perf/Documentation/perf-kvm-events.txt $(BASE)/.base-version
	@scripts/deps.sh --packaging
	@mkdir -p $(dir $@)
	@SOURCE_DATE_EPOCH=$$(git log -1 --format=%ct 2>/dev/null || date +%s) \
		asciidoctor -b manpage -r $(BASE)/tools/perf/Documentation/asciidoctor-extensions.rb \
		-a mansource=perf -a manmanual="perf Manual" \
		-a manversion="$$(sed -n 's/^#define PERF_VERSION "\(.*\)"/\1/p' $(TREE)/PERF-VERSION-FILE)" \
		-o $@.tmp $< && sed -i 's/\\(em/\\-\\-/g' $@.tmp && mv $@.tmp $@
	@echo "  MAN    $@"

install: $(if $(filter $(PERF),$(INSTALL_PERF)),perf) man
	@test -f $(INSTALL_PERF) || { echo "error: no $(INSTALL_PERF)" >&2; exit 1; }
	@mkdir -p $(BUILD)/install
	@{ printf '%s' "$(KVM_EVENTS_COMMIT)"; head -c 64 /dev/zero; } | head -c 64 \
		> $(BUILD)/install/commit
	@cp $$(readlink -f $(INSTALL_PERF)) $(BUILD)/install/perf-kvm-events
	@$(OBJCOPY) --update-section .kvm_events_commit=$(BUILD)/install/commit \
		--strip-unneeded --remove-section=.comment --remove-section=.note \
		$(BUILD)/install/perf-kvm-events
	@$(PKG_SUBST) $(PKG_DIR)/perf-kvm-events-exporter.in > $(BUILD)/install/perf-kvm-events-exporter
	@$(PKG_SUBST) $(PKG_DIR)/perf-kvm-events-exporter.service.in \
		> $(BUILD)/install/perf-kvm-events-exporter.service
	@$(PKG_SUBST) $(PKG_DIR)/perf-kvm-events-textfile.service.in \
		> $(BUILD)/install/perf-kvm-events-textfile.service
	install -D -m 755 $(BUILD)/install/perf-kvm-events $(DESTDIR)$(bindir)/perf-kvm-events
	install -D -m 644 $(MAN_PAGE) $(DESTDIR)$(mandir)/man1/perf-kvm-events.1
	install -D -m 644 tools/perf/Documentation/kvm-events-design.txt \
		$(DESTDIR)$(docdir)/kvm-events-design.txt
	install -D -m 755 $(BUILD)/install/perf-kvm-events-exporter \
		$(DESTDIR)$(libexecdir)/perf-kvm-events-exporter
	install -D -m 644 $(BUILD)/install/perf-kvm-events-exporter.service \
		$(DESTDIR)$(unitdir)/perf-kvm-events-exporter.service
	install -D -m 644 $(BUILD)/install/perf-kvm-events-textfile.service \
		$(DESTDIR)$(unitdir)/perf-kvm-events-textfile.service
	install -D -m 644 $(PKG_DIR)/perf-kvm-events-exporter.default \
		$(DESTDIR)$(sysconfdir)/default/perf-kvm-events-exporter

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALL_FILES))
	-rmdir $(DESTDIR)$(docdir) $(DESTDIR)$(libexecdir) 2>/dev/null

deb: perf
	@scripts/deb.sh amd64 $(PERF) $(BUILD)/deb

deb-arm64: perf-arm64
	@scripts/deb.sh arm64 $(ARM64_OUT)/perf $(BUILD)/deb

clean:
	rm -rf $(BUILD) $(PERF)

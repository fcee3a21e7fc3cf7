#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm.sh [-a x86_64|arm64] [-k 6.12|6.12-nvhe|6.1] [-i] [-r ROOT] [-t SECONDS]
#       [-w DIR] [-p HOSTPORT:GUESTPORT] -- COMMAND [ARG...]
#
# The project's test machine: run COMMAND as root on a real kernel's KVM,
# on a host without /dev/kvm.  qemu emulates (TCG) an AMD CPU with SVM and
# nested paging; Debian's own kernel boots in it, loads kvm_amd, and so
# gives a real /dev/kvm and real kvm tracepoints.  That kernel's root is
# this machine's root over 9p, read only, under a tmpfs overlay: the same
# checkout, the same perf and the same paths.  COMMAND runs in the current
# folder with the caller's environment and standard input from /dev/null
# (with the serial console as its input, perf test hung).  Its output is
# this script's output, and its exit status this script's.
#
#   -a ARCH     the machine: x86_64 (default) or arm64, below
#   -k VERSION  the kernel series: 6.12 (default) or 6.1, whose kvm
#               tracepoint formats differ; on arm64 also 6.12-nvhe, the
#               6.12 kernel with KVM in nVHE mode (kvm-arm.mode=nvhe)
#   -i          its clock counts the instructions it runs (qemu's -icount
#               shift=0,sleep=off: 1 ns each, idle time skipped), so that
#               a time taken inside it measures work, whatever else the
#               host runs; slower
#   -r ROOT     x86_64: boot with the folder ROOT as the root instead of
#               this machine's, read only under the tmpfs overlay as
#               well (scripts/deb-check.sh's clean Debian 12 root); the
#               command runs in it, in the current folder's path, which
#               ROOT must have
#   -t SECONDS  stop the machine after this long (default 1800): exit 124
#   -w DIR      a folder the command may write to and that the host sees
#               (by default only /tmp and the like, which are lost)
#   -p HOSTPORT:GUESTPORT
#               forward the host's 127.0.0.1:HOSTPORT to the machine's
#               GUESTPORT: a network card on qemu's user networking, eth0
#               in the machine at 10.0.2.15/24, for a server in it that a
#               host program asks (a scraper too slow to run in it); the
#               server must listen on 0.0.0.0 or 10.0.2.15.  Without -p
#               the machine has no network card, only loopback.
#
# The kernel package and the initramfs are cached under build/vm/.  The
# packages it needs (qemu-system-x86, busybox-static, cpio, kmod) are
# installed as make installs its own.  When the machine cannot run, it
# says why and exits 3.
#
# TCG runs single-threaded (thread=single): with multi-threaded TCG the
# guest kernel's text patching, done at each tracepoint enable, can oops.
#
# The arm64 machine (-a arm64) is qemu's virt board with the virtualization
# extensions (EL2) and GICv3, on the emulated "max" CPU; Debian's arm64
# kernel boots at EL2 with no firmware, and its KVM, built in, comes up in
# VHE mode (or nVHE with 6.12-nvhe).  pauth-impdef=on: qemu's own pointer
# authentication algorithm, much cheaper to emulate than the architected
# one that every function's return checks.  That machine cannot run the
# host's x86 binaries, so its root is an arm64 userland of Debian's
# packages (scripts/vm-arm64-root.sh, cached in build/vm/arm64-root) under
# a tmpfs overlay, with the host's root read only at /host.  At their host
# paths it shows the checkout (and the current folder, if the arm64 root
# has no folder of that name) each under a tmpfs overlay, and the run's
# and -w's folders, writable; /tmp is the overlay's.  So the arm64 perf
# (make perf-arm64) runs as build/perf-out-arm64/perf, from the same
# folder, with the same tests.  Its qemu (qemu-system-arm), busybox
# (busybox-static:arm64, fetched with apt-get download) and kernel are
# cached and installed as for x86.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
arch=x86_64
series=6.12
timeout=1800
writable=""
icount=()
forward=""
hostroot=/
usage="usage: vm.sh [-a x86_64|arm64] [-k 6.12|6.12-nvhe|6.1] [-i] [-r ROOT] [-t SECONDS] [-w DIR] [-p HOSTPORT:GUESTPORT] -- COMMAND..."
while getopts a:ik:p:r:t:w: opt; do
	case $opt in
	a) arch=$OPTARG ;;
	i) icount=(-icount shift=0,sleep=off) ;;
	k) series=$OPTARG ;;
	p) forward=$OPTARG
	   [[ $forward =~ ^[0-9]+:[0-9]+$ ]] ||
		{ echo "vm.sh: -p takes HOSTPORT:GUESTPORT, not '$forward'" >&2; exit 2; } ;;
	r) hostroot=$(cd "$OPTARG" && pwd) || exit 2 ;;
	t) timeout=$OPTARG ;;
	w) writable=$(cd "$OPTARG" && pwd) || exit 2 ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "$usage" >&2; exit 2; }

cannot() {
	echo "test machine: cannot run: $*" >&2
	exit 3
}

case $arch in
x86_64 | x86 | amd64) arch=x86_64 deb_arch=amd64 ;;
arm64 | aarch64) arch=arm64 deb_arch=arm64 ;;
*) echo "vm.sh: -a takes x86_64 or arm64, not '$arch'" >&2; exit 2 ;;
esac
if [ "$hostroot" != / ] && [ $arch != x86_64 ]; then
	echo "vm.sh: -r is for the x86_64 machine" >&2
	exit 2
fi
kvm_mode=""
case $arch-$series in
*-6.12) pattern="^linux-image-6\\.12\\.[0-9]*\\+deb12-$deb_arch-unsigned\$" ;;
arm64-6.12-nvhe)
	pattern="^linux-image-6\\.12\\.[0-9]*\\+deb12-$deb_arch-unsigned\$"
	kvm_mode=kvm-arm.mode=nvhe ;;
*-6.1) pattern="^linux-image-6\\.1\\.0-[0-9]*-$deb_arch-unsigned\$" ;;
x86_64-*) echo "vm.sh: -k takes 6.12 or 6.1, not '$series'" >&2; exit 2 ;;
*) echo "vm.sh: -k takes 6.12, 6.12-nvhe or 6.1, not '$series'" >&2; exit 2 ;;
esac

# libc6:arm64, which make perf-arm64 has anyway, has deps.sh make arm64 a
# dpkg architecture, so that apt-get download finds the arm64 packages.
if [ $arch = arm64 ]; then
	"$top/scripts/deps.sh" qemu-system-arm cpio kmod xz-utils libc6:arm64
else
	"$top/scripts/deps.sh" qemu-system-x86 busybox-static cpio kmod xz-utils
fi || cannot "the packages above are missing"

# The newest such package the archive has; the cached one when the
# archive cannot be asked.
vmdir=$top/build/vm
pkg=$(apt-cache pkgnames linux-image- 2>/dev/null | grep -E "$pattern" | sort -V | tail -n 1)
if [ -z "$pkg" ]; then
	pkg=$(find "$vmdir" -maxdepth 1 -printf '%f\n' 2> /dev/null | grep -E "$pattern" | sort -V | tail -n 1)
	[ -n "$pkg" ] || cannot "no package matches $pattern (run apt-get update)"
fi
kdir=$vmdir/$pkg

# fetch_kernel: the package's kernel and modules, unpacked into $kdir/root
fetch_kernel() {
	rm -rf "$kdir" && mkdir -p "$kdir/deb" || return 1
	echo "  VM     fetching $pkg" >&2
	(cd "$kdir/deb" && apt-get download -q "$pkg:$deb_arch" > /dev/null 2>&1) ||
		cannot "apt-get download $pkg failed"
	dpkg-deb -x "$kdir"/deb/*.deb "$kdir/root" || cannot "dpkg-deb -x of $pkg failed"
	rm -rf "$kdir/deb"
}

# arm64_busybox: the arm64 busybox-static's busybox, in $vmdir/busybox-arm64
arm64_busybox() {
	local dir=$vmdir/busybox-arm64
	[ -x "$dir/busybox" ] && return 0
	rm -rf "$dir" && mkdir -p "$dir/deb" || return 1
	(cd "$dir/deb" && apt-get download -q busybox-static:arm64 > /dev/null 2>&1) ||
		cannot "apt-get download busybox-static:arm64 failed"
	dpkg-deb -x "$dir"/deb/*.deb "$dir/pkg" && cp "$dir/pkg/bin/busybox" "$dir/busybox" ||
		cannot "no busybox in busybox-static:arm64"
	rm -rf "$dir/deb" "$dir/pkg"
}

# modules_of KVER MODULE...: the modules' files with their dependencies,
# each once, in the order to load them
modules_of() {
	local kver=$1 m
	shift
	for m; do
		modprobe -d "$kdir/root" -S "$kver" --show-depends "$m" 2>/dev/null
	done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }'
}

# add_modules INIT LIST FILE...: each module FILE, uncompressed, into
# INIT/modules, and its name appended to INIT/modules/LIST
add_modules() {
	local init=$1 list=$2 m name
	shift 2
	for m; do
		name=$(basename "$m" .xz)
		xz -dc "$m" > "$init/modules/$name" 2>/dev/null || cp "$m" "$init/modules/$name"
		echo "$name" >> "$init/modules/$list"
	done
}

# make_initramfs: busybox, the modules of kvm_amd (x86; arm64's KVM is
# built in), 9p and overlay with their dependencies, uncompressed for
# busybox's insmod, and the init.  virtio_net and what it needs beyond
# those are a list of their own, "net", that the init loads only for -p:
# without it the machine boots as it did.
make_initramfs() {
	local kver init=$kdir/initramfs m busybox=/bin/busybox mods=kvm_amd
	if [ $arch = arm64 ]; then
		arm64_busybox || return 1
		busybox=$vmdir/busybox-arm64/busybox mods=""
	fi
	kver=$(ls "$kdir/root/lib/modules")
	depmod -b "$kdir/root" "$kver" || return 1
	rm -rf "$init" && mkdir -p "$init"/{bin,dev,proc,sys,mnt,modules} || return 1
	cp "$busybox" "$init/bin/busybox" && ln -s busybox "$init/bin/sh" || return 1
	: > "$init/modules/order"
	: > "$init/modules/net"
	mapfile -t m < <(modules_of "$kver" $mods 9pnet_virtio 9p overlay virtio_pci)
	add_modules "$init" order "${m[@]}"
	mapfile -t m < <(modules_of "$kver" virtio_net | grep -v -x -F -f <(printf '%s\n' "${m[@]}"))
	add_modules "$init" net "${m[@]}"
	cp "$top/scripts/vm-init.sh" "$init/init" && chmod +x "$init/init" || return 1
	(cd "$init" && find . | cpio -o -H newc --quiet | gzip -1) > "$kdir/initrd.img"
}

vmlinuz=$(ls "$kdir"/root/boot/vmlinuz-* 2> /dev/null)
if [ -z "$vmlinuz" ]; then
	fetch_kernel
	vmlinuz=$(ls "$kdir"/root/boot/vmlinuz-*)
fi
if [ ! -f "$kdir/initrd.img" ] || [ "$top/scripts/vm-init.sh" -nt "$kdir/initrd.img" ] ||
   [ "$top/scripts/vm.sh" -nt "$kdir/initrd.img" ]; then
	make_initramfs || cannot "the initramfs of $pkg could not be made"
fi
if [ $arch = arm64 ]; then
	"$top/scripts/vm-arm64-root.sh" "$vmdir/arm64-root" || exit 3
fi

# What the machine runs: the command with the caller's folder and
# environment, written to a folder of its own that the machine mounts
# writable, where it leaves the command's exit status.
run=$(mktemp -d "$vmdir/run.XXXXXX") || exit 1
trap 'rm -rf "$run"' EXIT
{
	export -p | grep -v -E '^declare -x (BASHOPTS|SHELLOPTS|SHLVL|OLDPWD|_|TERM)='
	printf 'cd %q || exit 1\n' "$PWD"
	printf '%q ' "$@"
	printf '< /dev/null\n'
	printf 'echo $? > %q\n' "$run/status"
} > "$run/command"

shares=(-virtfs "local,path=$hostroot,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
	-virtfs "local,path=$run,mount_tag=run,security_model=none")
append="quiet loglevel=3 panic=-1 mitigations=off vm.run=$run"
if [ -n "$writable" ]; then
	shares+=(-virtfs "local,path=$writable,mount_tag=writable,security_model=none")
	append="$append vm.writable=$writable"
fi
# -p: qemu's user networking, its one forward on the host's loopback
net=()
if [ -n "$forward" ]; then
	net=(-nic "user,model=virtio-net-pci,hostfwd=tcp:127.0.0.1:${forward%%:*}-:${forward#*:}")
	append="$append vm.net=1"
fi

if [ $arch = arm64 ]; then
	# The host folders the arm64 root shows at their paths: the
	# checkout, and the current folder when it is elsewhere, the outer
	# one first.
	paths=$top
	case $PWD/ in
	/ | "$top"/*) ;;
	*) case $top/ in
	   "$PWD"/*) paths="$PWD:$top" ;;
	   *) paths="$top:$PWD" ;;
	   esac ;;
	esac
	shares+=(-virtfs "local,path=$vmdir/arm64-root/root,mount_tag=arm64root,security_model=none,readonly=on,multidevs=remap")
	append="console=ttyAMA0 $append vm.arch=arm64 vm.paths=$paths $kvm_mode"
	qemu=(qemu-system-aarch64 -machine "virt,virtualization=on,gic-version=3"
		-cpu "max,pauth-impdef=on" -accel "tcg,thread=single" -smp 2 -m 2G)
else
	# tsc=reliable: no clocksource watchdog.  Under emulation it can
	# find the TSC skewed and mark it unstable; the kernel's sched clock
	# then holds still between ticks, and events a tick apart get the
	# same time: a guest loop's samples then are the same byte for byte,
	# as if perf record had written them twice.
	append="console=ttyS0 tsc=reliable $append"
	qemu=(qemu-system-x86_64 -accel "tcg,thread=single" -cpu max -smp 2 -m 3G)
fi

timeout --foreground -k 10 "$timeout" \
	"${qemu[@]}" "${icount[@]}" \
	-nodefaults -display none -no-reboot -serial stdio -monitor none \
	-kernel "$vmlinuz" -initrd "$kdir/initrd.img" \
	-append "$append" "${shares[@]}" "${net[@]}" < /dev/null | sed -u 's/\r$//'
# The serial console ends each line with \r\n; each line is passed on as
# it comes, for make check to time the tests by.
status=${PIPESTATUS[0]}
if [ $status = 124 ]; then
	echo "test machine: stopped after $timeout s" >&2
	exit 124
fi
[ -f "$run/status" ] || cannot "the machine ended without the command's exit status (qemu: $status)"
exit "$(cat "$run/status")"

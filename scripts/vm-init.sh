#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The init of vm.sh's test machine, run by busybox from its initramfs:
# load kvm_amd and the 9p and overlay modules, mount the host's root read
# only under a tmpfs overlay, mount the run's folder (and the writable
# folder, if any) at their host paths, run the command there as root, and
# leave its exit status in the run's folder (the command does).  With
# vm.net=1 (vm.sh -p), load virtio_net and bring up eth0 at 10.0.2.15/24,
# qemu's user networking's address, which its port forward reaches.
#
# On arm64 (vm.arch=arm64) KVM is built in, and the root is the arm64
# userland vm.sh shares as "arm64root", under a tmpfs overlay; the host's
# root is at /host in it, and each host folder of vm.paths= is at its own
# path under an overlay of its own.
/bin/busybox --install -s /bin
export PATH=/bin

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
# Loopback, for the tests that serve and scrape metrics over HTTP
ip link set lo up 2> /dev/null || ifconfig lo 127.0.0.1 up

fail() {
	echo "test machine: $*"
	poweroff -f
}

# vm.run=, vm.writable=, vm.arch= and vm.paths= from the kernel's command
# line
arch=x86_64
net=""
for arg in $(cat /proc/cmdline); do
	case $arg in
	vm.run=*) run=${arg#vm.run=} ;;
	vm.writable=*) writable=${arg#vm.writable=} ;;
	vm.arch=*) arch=${arg#vm.arch=} ;;
	vm.paths=*) paths=${arg#vm.paths=} ;;
	vm.net=*) net=${arg#vm.net=} ;;
	esac
done

for m in $(cat /modules/order); do
	insmod "/modules/$m" || fail "insmod $m failed"
done
if [ -n "$net" ]; then
	for m in $(cat /modules/net); do
		insmod "/modules/$m" || fail "insmod $m failed"
	done
	ip link set eth0 up && ip addr add 10.0.2.15/24 dev eth0 ||
		fail "eth0 could not be brought up at 10.0.2.15/24"
fi
if [ $arch = arm64 ]; then
	[ -c /dev/kvm ] || fail "no /dev/kvm: the kernel's KVM did not initialize"
else
	[ -c /dev/kvm ] || fail "no /dev/kvm after loading kvm_amd"
fi

# overlay LOWER TOP: LOWER under a tmpfs overlay of its own at TOP
n=0
overlay() {
	n=$((n + 1))
	mkdir -p /mnt/rw/$n/upper /mnt/rw/$n/work "$2"
	mount -t overlay overlay \
		-o "lowerdir=$1,upperdir=/mnt/rw/$n/upper,workdir=/mnt/rw/$n/work" "$2"
}

opts=trans=virtio,version=9p2000.L,msize=512000
mkdir -p /mnt/host /mnt/rw /mnt/root
mount -t tmpfs -o size=75% tmpfs /mnt/rw
root=/mnt/root
if [ $arch = arm64 ]; then
	mkdir -p /mnt/arm64
	mount -t 9p -o "$opts,ro" arm64root /mnt/arm64 || fail "mount of the arm64 root failed"
	overlay /mnt/arm64 $root || fail "the overlay over the arm64 root failed"
	mkdir -p $root/host
	mount -t 9p -o "$opts,ro" hostroot $root/host || fail "mount of the host's root failed"
	# The checkout and the current folder; not a folder of the arm64
	# root's own, whose binaries the host's would hide.
	for p in $(echo "$paths" | tr : ' '); do
		[ -e "$root$p" ] && continue
		overlay "$root/host$p" "$root$p" || fail "the overlay over $p failed"
	done
else
	mount -t 9p -o "$opts,ro" hostroot /mnt/host || fail "mount of the host's root failed"
	overlay /mnt/host $root || fail "the overlay over the host's root failed"
fi

mount -t proc proc $root/proc
mount -t sysfs sysfs $root/sys
mount -t devtmpfs devtmpfs $root/dev
mkdir -p $root/dev/pts $root/dev/shm
# What udev would make: bash's process substitution needs /dev/fd.
ln -sf /proc/self/fd $root/dev/fd
ln -sf /proc/self/fd/0 $root/dev/stdin
ln -sf /proc/self/fd/1 $root/dev/stdout
ln -sf /proc/self/fd/2 $root/dev/stderr
mount -t devpts devpts $root/dev/pts
mount -t tmpfs tmpfs $root/dev/shm
mount -t tracefs tracefs $root/sys/kernel/tracing
mount -t debugfs debugfs $root/sys/kernel/debug
mount -t bpf bpf $root/sys/fs/bpf 2> /dev/null
# No tmpfs over /tmp: the checkout may be there (CI clones into it);
# what is written there goes to the overlay's tmpfs all the same.
# perf mmaps its output: a writable share needs cache=mmap.
mkdir -p "$root$run"
mount -t 9p -o "$opts,cache=mmap" run "$root$run" || fail "mount of the run's folder failed"
if [ -n "${writable:-}" ]; then
	mkdir -p "$root$writable"
	mount -t 9p -o "$opts,cache=mmap" writable "$root$writable" ||
		fail "mount of $writable failed"
fi
hostname kvm-events-vm

# The host's make check times the boot up to here (scripts/check.sh).
echo "test machine: up" > /dev/console
# Through a pipe, not the console: the command's output is no terminal.
chroot $root /bin/bash "$run/command" 2>&1 | cat > /dev/console
sync
poweroff -f

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The init of vm.sh's test machine, run by busybox from its initramfs:
# load kvm_amd and the 9p and overlay modules, mount the host's root read
# only under a tmpfs overlay, mount the run's folder (and the writable
# folder, if any) at their host paths, run the command there as root, and
# leave its exit status in the run's folder (the command does).
/bin/busybox --install -s /bin
export PATH=/bin

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev

fail() {
	echo "test machine: $*"
	poweroff -f
}

for m in $(cat /modules/order); do
	insmod "/modules/$m" || fail "insmod $m failed"
done
[ -c /dev/kvm ] || fail "no /dev/kvm after loading kvm_amd"

# vm.run= and vm.writable= from the kernel's command line
for arg in $(cat /proc/cmdline); do
	case $arg in
	vm.run=*) run=${arg#vm.run=} ;;
	vm.writable=*) writable=${arg#vm.writable=} ;;
	esac
done

opts=trans=virtio,version=9p2000.L,msize=512000
mkdir -p /mnt/host /mnt/rw /mnt/root
mount -t 9p -o "$opts,ro" hostroot /mnt/host || fail "mount of the host's root failed"
mount -t tmpfs -o size=75% tmpfs /mnt/rw
mkdir -p /mnt/rw/upper /mnt/rw/work
mount -t overlay overlay \
	-o lowerdir=/mnt/host,upperdir=/mnt/rw/upper,workdir=/mnt/rw/work /mnt/root ||
	fail "the overlay over the host's root failed"

root=/mnt/root
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
mount -t 9p -o "$opts,cache=mmap" run "$root$run" || fail "mount of the run's folder failed"
if [ -n "${writable:-}" ]; then
	mount -t 9p -o "$opts,cache=mmap" writable "$root$writable" ||
		fail "mount of $writable failed"
fi
hostname kvm-events-vm

# Through a pipe, not the console: the command's output is no terminal.
chroot $root /bin/bash "$run/command" 2>&1 | cat > /dev/console
sync
poweroff -f

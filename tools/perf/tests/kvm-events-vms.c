// SPDX-License-Identifier: GPL-2.0
/*
 * perf kvm-events: the names of the VMs, from the VMMs' command lines and
 * cgroups, from a made-up /proc, through the recording's bytes and in
 * --vm's patterns.
 */
#include <byteswap.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/kernel.h>
#include <linux/types.h>
#include <linux/zalloc.h>

#include "debug.h"
#include "tests.h"
#include "util/kvm-events-vms.h"

#define UUID_UPPER	"6F1C2A3B-4D5E-4F60-8A9B-0C1D2E3F4A5B"
#define UUID		"6f1c2a3b-4d5e-4f60-8a9b-0c1d2e3f4a5b"
#define WEB1_SCOPE	"/machine.slice/machine-qemu\\x2d1\\x2dweb1.scope/libvirt/emulator"
#define SRV_SCOPE	"/machine.slice/machine-qemu\\x2d1\\x2dweb\\x2dsrv.scope/libvirt/emulator"
#define CAFE_SCOPE	"/machine.slice/machine-qemu\\x2d14\\x2dcaf\\xc3\\xa9.scope"
#define LEGACY_SCOPE	"/machine.slice/machine-qemu\\x2dlegacy.scope"
#define ODD_SCOPES	"/machine-qemu\\x2d.scope/machine-qemu\\x2d1\\x2da\\x00.scope"
#define POD		"/kubepods.slice/kubepods-pod8f0e.slice/cri-containerd-1a2b.scope"
#define SESSION		"/user.slice/user-1000.slice/session-2.scope"

static bool str_is(const char *what, const char *s, const char *expected)
{
	if (s == expected || (s && expected && !strcmp(s, expected)))
		return true;
	pr_debug("%s: \"%s\", expected \"%s\"\n", what, s ?: "(null)", expected ?: "(null)");
	return false;
}

/* @vm's source, name and uuid, with what differs said */
static bool vm_is(const struct kvm_events_vm *vm, enum kvm_events_vm_source source,
		  const char *name, const char *uuid)
{
	if (!vm) {
		pr_debug("no VM, expected \"%s\"\n", name ?: "(null)");
		return false;
	}
	if (vm->source != source) {
		pr_debug("source %d, expected %d\n", vm->source, source);
		return false;
	}
	return str_is("name", vm->name, name) && str_is("uuid", vm->uuid, uuid);
}

static bool vm_equal(const struct kvm_events_vm *a, const struct kvm_events_vm *b)
{
	if (!a || !b || a->pid != b->pid) {
		pr_debug("pid %u, expected %u\n", a ? a->pid : 0, b ? b->pid : 0);
		return false;
	}
	return vm_is(a, b->source, b->name, b->uuid) && str_is("cgroup", a->cgroup, b->cgroup) &&
	       str_is("comm", a->comm, b->comm);
}

/*
 * @len bytes of @cmdline parsed from a buffer of exactly that size, so
 * that the sanitizers' build catches a read past it
 */
static int parse_bytes(struct kvm_events_vm *vm, const char *cmdline, size_t len)
{
	char *copy = malloc(len ? len : 1);
	int ret;

	if (!copy)
		return -ENOMEM;
	memcpy(copy, cmdline, len);
	memset(vm, 0, sizeof(*vm));
	ret = kvm_events_vm__parse_cmdline(vm, copy, len);
	free(copy);
	return ret;
}

/* NULL-ended @argv as /proc/PID/cmdline has it, into @buf: its length */
static size_t join_args(char *buf, size_t size, const char * const *argv, bool final_nul)
{
	size_t len = 0;

	for (; *argv; argv++) {
		len += snprintf(buf + len, size - len, "%s", *argv) + 1;
		if (len >= size)
			return 0;
	}
	return len && !final_nul ? len - 1 : len;
}

static int parse(struct kvm_events_vm *vm, bool final_nul, const char * const *argv)
{
	char buf[1024];

	return parse_bytes(vm, buf, join_args(buf, sizeof(buf), argv, final_nul));
}

#define ARGV(...)	((const char * const []){ __VA_ARGS__, NULL })

/* A command line's result, and @vm as it left it, freed */
static bool parsed(int ret, int expected, struct kvm_events_vm *vm,
		   enum kvm_events_vm_source source, const char *name, const char *uuid)
{
	bool ok = ret == expected && vm_is(vm, source, name, uuid);

	if (ret != expected)
		pr_debug("returned %d, expected %d\n", ret, expected);
	kvm_events_vm__exit(vm);
	return ok;
}

static int test__kvm_events_vms_qemu(struct test_suite *test __maybe_unused,
				     int subtest __maybe_unused)
{
	static const char weird[] = "Zo\xc3\xab's \"web\" 1\nline 2";
	struct kvm_events_vm vm;
	int ret;

	ret = parse(&vm, true, ARGV("/usr/bin/qemu-system-x86_64", "-machine", "q35",
				    "-name", "guest=web1,debug-threads=on", "-uuid", UUID_UPPER,
				    "-m", "2048"));
	TEST_ASSERT_VAL("libvirt's -name guest=, -uuid in lower case",
			parsed(ret, 0, &vm, KVM_EVENTS_VM_SOURCE_QEMU, "web1", UUID));
	ret = parse(&vm, false, ARGV("qemu-kvm", "--name", "web2"));
	TEST_ASSERT_VAL("--name, no final NUL",
			parsed(ret, 0, &vm, KVM_EVENTS_VM_SOURCE_QEMU, "web2", NULL));
	ret = parse(&vm, true, ARGV("/usr/libexec/qemu-kvm", "-name", "a,,b"));
	TEST_ASSERT_VAL("a,,b is a,b", parsed(ret, 0, &vm, KVM_EVENTS_VM_SOURCE_QEMU, "a,b", NULL));
	ret = parse(&vm, true, ARGV("kvm", "-name", "process=p,guest=x,,,,y,debug-threads=on"));
	TEST_ASSERT_VAL("guest= after another key",
			parsed(ret, 0, &vm, KVM_EVENTS_VM_SOURCE_QEMU, "x,,y", NULL));
	ret = parse(&vm, true, ARGV("qemu-system-aarch64", "-name=guest=Zo\xc3\xab's \"web\" 1\n"
				    "line 2,debug-threads=on", "-uuid", "6f1c2a3b-4d5e"));
	TEST_ASSERT_VAL("-name=, UTF-8, quotes, a newline; a bad uuid left out",
			parsed(ret, 0, &vm, KVM_EVENTS_VM_SOURCE_QEMU, weird, NULL));
	ret = parse(&vm, true, ARGV("qemu-system-x86_64", "-name", "process=qemu:web3",
				    "--uuid=" UUID));
	TEST_ASSERT_VAL("a first element with a key names nothing; --uuid=",
			parsed(ret, 0, &vm, KVM_EVENTS_VM_SOURCE_NONE, NULL, UUID));
	ret = parse(&vm, true, ARGV("kvm", "-name", "guest=web4,debug-threads"));
	TEST_ASSERT_VAL("a flag after the name",
			parsed(ret, 0, &vm, KVM_EVENTS_VM_SOURCE_QEMU, "web4", NULL));
	ret = parse(&vm, true, ARGV("qemu-system-x86_64", "-name", "first", "-S",
				    "-name", "second"));
	TEST_ASSERT_VAL("the last -name wins",
			parsed(ret, 0, &vm, KVM_EVENTS_VM_SOURCE_QEMU, "second", NULL));
	ret = parse(&vm, true, ARGV("qemu-system-x86_64", "-name", ",process=p", "-name"));
	TEST_ASSERT_VAL("an empty name, -name without a value",
			parsed(ret, 0, &vm, KVM_EVENTS_VM_SOURCE_NONE, NULL, NULL));
	ret = parse(&vm, true, ARGV("/usr/bin/qemu-img", "-name", "img"));
	TEST_ASSERT_VAL("qemu-img is no VMM",
			parsed(ret, 1, &vm, KVM_EVENTS_VM_SOURCE_NONE, NULL, NULL));
	ret = parse(&vm, true, ARGV("/usr/sbin/sshd", "-D", "--id", "x"));
	TEST_ASSERT_VAL("sshd is no VMM",
			parsed(ret, 1, &vm, KVM_EVENTS_VM_SOURCE_NONE, NULL, NULL));
	return TEST_OK;
}

static int test__kvm_events_vms_firecracker(struct test_suite *test __maybe_unused,
					    int subtest __maybe_unused)
{
	struct kvm_events_vm vm;
	int ret;

	ret = parse(&vm, true, ARGV("/usr/bin/firecracker", "--api-sock", "/run/fc1.sock",
				    "--id", "fc1"));
	TEST_ASSERT_VAL("--id NAME",
			parsed(ret, 0, &vm, KVM_EVENTS_VM_SOURCE_FIRECRACKER, "fc1", NULL));
	ret = parse(&vm, false, ARGV("firecracker", "--id=fc2"));
	TEST_ASSERT_VAL("--id=NAME",
			parsed(ret, 0, &vm, KVM_EVENTS_VM_SOURCE_FIRECRACKER, "fc2", NULL));
	ret = parse(&vm, true, ARGV("firecracker", "--name", "no", "--id=", "--id"));
	TEST_ASSERT_VAL("an empty --id, no --id value",
			parsed(ret, 0, &vm, KVM_EVENTS_VM_SOURCE_NONE, NULL, NULL));
	return TEST_OK;
}

/*
 * What is no command line at all: nothing, NULs, every prefix of a real
 * one, bytes of every value
 */
static int test__kvm_events_vms_garbage(struct test_suite *test __maybe_unused,
					int subtest __maybe_unused)
{
	static const char argv0[] = "/usr/bin/qemu-system-";
	struct kvm_events_vm vm;
	char buf[1024], junk[512];
	size_t len, i;
	int ret;

	memset(&vm, 0, sizeof(vm));
	TEST_ASSERT_VAL("NULL", kvm_events_vm__parse_cmdline(&vm, NULL, 0) == 1);
	TEST_ASSERT_VAL("empty", parse_bytes(&vm, "", 0) == 1);
	TEST_ASSERT_VAL("NULs", parse_bytes(&vm, "\0\0\0", 3) == 1);
	ret = parse_bytes(&vm, "qemu-system-x86_64 -name web", 28);
	TEST_ASSERT_VAL("one argument with spaces",
			parsed(ret, 0, &vm, KVM_EVENTS_VM_SOURCE_NONE, NULL, NULL));

	len = join_args(buf, sizeof(buf), ARGV("/usr/bin/qemu-system-x86_64", "-name",
					       "guest=web1,,x,debug-threads=on", "-uuid",
					       UUID), true);
	for (i = 0; i <= len; i++) {
		ret = parse_bytes(&vm, buf, i);
		kvm_events_vm__exit(&vm);
		if (ret != (i >= strlen(argv0) ? 0 : 1)) {
			pr_debug("prefix of %zu bytes: %d\n", i, ret);
			return TEST_FAIL;
		}
	}

	/* A VMM's argv[0], then bytes of every value, ',' '=' '-' and NUL among them */
	memcpy(junk, "kvm", 4);
	for (i = 4; i < sizeof(junk); i++)
		junk[i] = (char)(i * 131 + (i >> 3) * 7);
	for (i = 4; i < sizeof(junk); i += 37)
		memcpy(junk + i, i % 2 ? "-name\0" : "-uuid=", 6);
	for (i = 0; i <= sizeof(junk); i++) {
		ret = parse_bytes(&vm, junk, i);
		kvm_events_vm__exit(&vm);
		if (ret != (i >= 3 ? 0 : 1)) {
			pr_debug("junk of %zu bytes: %d\n", i, ret);
			return TEST_FAIL;
		}
	}
	return TEST_OK;
}

/* @text's cgroup: what it stores and names */
static bool cgroup_is(const char *text, const char *name, enum kvm_events_vm_source source,
		      const char *cgroup)
{
	struct kvm_events_vm vm = {};
	bool ok = !kvm_events_vm__parse_cgroup(&vm, text) &&
		  vm_is(&vm, source, name, NULL) && str_is("cgroup", vm.cgroup, cgroup);

	kvm_events_vm__exit(&vm);
	return ok;
}

static int test__kvm_events_vms_cgroup(struct test_suite *test __maybe_unused,
				       int subtest __maybe_unused)
{
	struct kvm_events_vm vm = {};

	TEST_ASSERT_VAL("libvirt's scope",
			cgroup_is("0::" SRV_SCOPE "\n", "web-srv", KVM_EVENTS_VM_SOURCE_LIBVIRT,
				  SRV_SCOPE));
	TEST_ASSERT_VAL("v2 after v1, UTF-8 escaped, no final newline",
			cgroup_is("12:pids:" WEB1_SCOPE "\n0::" CAFE_SCOPE, "caf\xc3\xa9",
				  KVM_EVENTS_VM_SOURCE_LIBVIRT, CAFE_SCOPE));
	TEST_ASSERT_VAL("libvirt before 3.0: no id",
			cgroup_is("0::" LEGACY_SCOPE "\n", "legacy", KVM_EVENTS_VM_SOURCE_LIBVIRT,
				  LEGACY_SCOPE));
	TEST_ASSERT_VAL("a pod's",
			cgroup_is("0::" POD "\n", NULL, KVM_EVENTS_VM_SOURCE_NONE, POD));
	TEST_ASSERT_VAL("v1 only: the first line",
			cgroup_is("12:pids:" SESSION "\n11:cpu,cpuacct:/user.slice\n"
				  "1:name=systemd:" WEB1_SCOPE "\n",
				  NULL, KVM_EVENTS_VM_SOURCE_NONE, SESSION));
	TEST_ASSERT_VAL("a scope without a name, and \\x00",
			cgroup_is("0::" ODD_SCOPES "\n", "a\\x00", KVM_EVENTS_VM_SOURCE_LIBVIRT,
				  ODD_SCOPES));
	TEST_ASSERT_VAL("nothing", cgroup_is("", NULL, KVM_EVENTS_VM_SOURCE_NONE, NULL));
	TEST_ASSERT_VAL("no line of three fields",
			cgroup_is("garbage\n0:/x\n\n", NULL, KVM_EVENTS_VM_SOURCE_NONE, NULL));
	TEST_ASSERT_VAL("the root", cgroup_is("0::/\n", NULL, KVM_EVENTS_VM_SOURCE_NONE, "/"));

	/* qemu's -name comes before the scope's */
	vm.name = strdup("web1");
	vm.source = KVM_EVENTS_VM_SOURCE_QEMU;
	TEST_ASSERT_VAL("strdup", vm.name);
	TEST_ASSERT_VAL("named already", !kvm_events_vm__parse_cgroup(&vm, "0::" WEB1_SCOPE "\n"));
	TEST_ASSERT_VAL("-name kept", vm_is(&vm, KVM_EVENTS_VM_SOURCE_QEMU, "web1", NULL) &&
			str_is("cgroup", vm.cgroup, WEB1_SCOPE));
	kvm_events_vm__exit(&vm);
	return TEST_OK;
}

/*
 * A made-up /proc
 */

/* clock ticks since boot in the made-up uptime: 5000 s */
#define UPTIME		"5000.00 9000.00\n"
#define UPTIME_SECS	5000

struct fake_proc {
	char	dir[64];
	long	hz;
};

static int write_file(const char *path, const char *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		return -1;
	if (write(fd, text, len) != (ssize_t)len) {
		close(fd);
		return -1;
	}
	return close(fd);
}

/* FILE in the made-up /proc's folder NAME, which it makes */
static int fake__write(struct fake_proc *fp, const char *name, const char *file,
		       const char *text, size_t len)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", fp->dir, name);
	if (mkdir(path, 0755) && errno != EEXIST)
		return -1;
	snprintf(path, sizeof(path), "%s/%s/%s", fp->dir, name, file);
	return write_file(path, text, len);
}

/* PID/FILE in the made-up /proc */
static int fake__pid_write(struct fake_proc *fp, int pid, const char *file, const char *text,
			   size_t len)
{
	char name[16];

	snprintf(name, sizeof(name), "%d", pid);
	return fake__write(fp, name, file, text, len);
}

static int fake__cmdline(struct fake_proc *fp, int pid, const char * const *argv)
{
	char buf[512];

	return fake__pid_write(fp, pid, "cmdline", buf, join_args(buf, sizeof(buf), argv, true));
}

/* stat: pid, comm, state, ppid, pgrp, session, ..., the 22nd field: the start */
#define STAT_FORMAT	"%d (odd) (name) S 1 %d %d 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 %ld 1 2\n"

/* A process @age_ticks old, its comm with a ") " in stat, as a comm may have */
static int fake__stat(struct fake_proc *fp, int pid, long age_ticks)
{
	char buf[256];
	int len;

	len = snprintf(buf, sizeof(buf), STAT_FORMAT, pid, pid, pid,
		       UPTIME_SECS * fp->hz - age_ticks);
	return fake__pid_write(fp, pid, "stat", buf, len);
}

static int fake__process(struct fake_proc *fp, int pid, const char * const *argv,
			 const char *cgroup, const char *comm, bool young)
{
	if (fake__cmdline(fp, pid, argv) ||
	    fake__pid_write(fp, pid, "cgroup", cgroup, strlen(cgroup)) ||
	    fake__pid_write(fp, pid, "comm", comm, strlen(comm)))
		return -1;
	return fake__stat(fp, pid, young ? fp->hz / 10 : 100 * fp->hz);
}

static int rm_one(const char *path, const struct stat *st __maybe_unused,
		  int flag __maybe_unused, struct FTW *ftw __maybe_unused)
{
	return remove(path);
}

static int fake__rm(struct fake_proc *fp, int pid)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%d", fp->dir, pid);
	return nftw(path, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

#define QEMU		"/usr/bin/qemu-system-x86_64"
#define DB_SCOPE	"0::/machine.slice/machine-qemu\\x2d2\\x2ddb.scope/libvirt\n"

/*
 * 100 a libvirt qemu, 200 sshd, 300 firecracker, 400 libvirt's child
 * before it execs qemu (young), 500 exiting as it is read, 700 a young
 * shell that will exec qemu, 800 cron; and what is no process
 */
static int fake__populate(struct fake_proc *fp)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/uptime", fp->dir);
	if (write_file(path, UPTIME, strlen(UPTIME)) ||
	    fake__write(fp, "self", "cmdline", QEMU, sizeof(QEMU)) ||
	    fake__write(fp, "99999999999", "cmdline", QEMU, sizeof(QEMU)))
		return -1;
	if (fake__process(fp, 100, ARGV(QEMU, "-name", "guest=web1,debug-threads=on",
					"-uuid", UUID), "0::" WEB1_SCOPE "\n",
			  "qemu-system-x86\n", false) ||
	    fake__process(fp, 200, ARGV("/usr/sbin/sshd", "-D"),
			  "0::/system.slice/ssh.service\n", "sshd\n", false) ||
	    fake__process(fp, 300, ARGV("/usr/bin/firecracker", "--id", "fc1"),
			  "0::/firecracker.slice/fc1\n", "firecracker", false) ||
	    fake__process(fp, 400, ARGV("/usr/sbin/libvirtd", "--timeout", "120"),
			  DB_SCOPE, "rpc-libvirtd\n", true) ||
	    fake__cmdline(fp, 500, ARGV(QEMU, "-name", "gone")) ||
	    fake__process(fp, 700, ARGV("/bin/sh", "-c", "exec qemu-system-x86_64 -name late"),
			  "0::/user.slice\n", "sh\n", true) ||
	    fake__process(fp, 800, ARGV("/usr/sbin/cron", "-f"),
			  "0::/system.slice/cron.service\n", "cron\n", false))
		return -1;
	return 0;
}

static bool from_proc_is(struct fake_proc *fp, u32 pid, int expected,
			 enum kvm_events_vm_source source, const char *name, const char *comm)
{
	struct kvm_events_vm vm;
	int ret = kvm_events_vm__from_proc(&vm, fp->dir, pid);
	bool ok = ret == expected && vm.pid == pid;

	if (!ok)
		pr_debug("pid %u: %d, expected %d\n", pid, ret, expected);
	if (ok && !expected)
		ok = vm_is(&vm, source, name, vm.uuid) && str_is("comm", vm.comm, comm);
	kvm_events_vm__exit(&vm);
	return ok;
}

static int fake__from_proc(struct fake_proc *fp)
{
	struct kvm_events_vm vm;

	TEST_ASSERT_VAL("qemu", from_proc_is(fp, 100, 0, KVM_EVENTS_VM_SOURCE_QEMU, "web1",
					     "qemu-system-x86"));
	TEST_ASSERT_VAL("qemu's uuid and cgroup",
			!kvm_events_vm__from_proc(&vm, fp->dir, 100) &&
			str_is("uuid", vm.uuid, UUID) && str_is("cgroup", vm.cgroup, WEB1_SCOPE));
	kvm_events_vm__exit(&vm);
	TEST_ASSERT_VAL("sshd", from_proc_is(fp, 200, 1, 0, NULL, NULL));
	TEST_ASSERT_VAL("firecracker, comm without a newline",
			from_proc_is(fp, 300, 0, KVM_EVENTS_VM_SOURCE_FIRECRACKER, "fc1",
				     "firecracker"));
	TEST_ASSERT_VAL("in a libvirt scope",
			from_proc_is(fp, 400, 0, KVM_EVENTS_VM_SOURCE_LIBVIRT, "db",
				     "rpc-libvirtd"));
	TEST_ASSERT_VAL("exits while being named", from_proc_is(fp, 500, -ENOENT, 0, NULL, NULL));
	TEST_ASSERT_VAL("no such pid", from_proc_is(fp, 600, -ENOENT, 0, NULL, NULL));
	return TEST_OK;
}

static bool scan_adds(struct kvm_events_vms *vms, struct fake_proc *fp, int expected,
		      size_t nr)
{
	int ret = kvm_events_vms__scan(vms, fp->dir);

	if (ret != expected || kvm_events_vms__nr(vms) != nr) {
		pr_debug("scan: %d added, %zu VMs; expected %d, %zu\n", ret,
			 kvm_events_vms__nr(vms), expected, nr);
		return false;
	}
	return true;
}

static bool named(struct kvm_events_vms *vms, u32 pid, enum kvm_events_vm_source source,
		  const char *name, const char *uuid)
{
	return vm_is(kvm_events_vms__find(vms, pid), source, name, uuid);
}

static int fake__scan(struct fake_proc *fp, struct kvm_events_vms *vms)
{
	TEST_ASSERT_VAL("first scan", scan_adds(vms, fp, 3, 3));
	TEST_ASSERT_VAL("web1", named(vms, 100, KVM_EVENTS_VM_SOURCE_QEMU, "web1", UUID));
	TEST_ASSERT_VAL("fc1", named(vms, 300, KVM_EVENTS_VM_SOURCE_FIRECRACKER, "fc1", NULL));
	TEST_ASSERT_VAL("db", named(vms, 400, KVM_EVENTS_VM_SOURCE_LIBVIRT, "db", NULL));
	TEST_ASSERT_VAL("sshd", !kvm_events_vms__find(vms, 200));
	TEST_ASSERT_VAL("second scan", scan_adds(vms, fp, 0, 3));

	/* 400 and 700 exec qemu; 200, settled, is not read again */
	TEST_ASSERT_VAL("exec",
			!fake__cmdline(fp, 400, ARGV(QEMU, "-name", "guest=db", "-uuid", UUID)) &&
			!fake__cmdline(fp, 700, ARGV(QEMU, "-name", "late")) &&
			!fake__cmdline(fp, 200, ARGV(QEMU, "-name", "sneaky")));
	TEST_ASSERT_VAL("young ones read again", scan_adds(vms, fp, 1, 4));
	TEST_ASSERT_VAL("db execs", named(vms, 400, KVM_EVENTS_VM_SOURCE_QEMU, "db", UUID));
	TEST_ASSERT_VAL("late", named(vms, 700, KVM_EVENTS_VM_SOURCE_QEMU, "late", NULL));
	TEST_ASSERT_VAL("200 not read", !kvm_events_vms__find(vms, 200));
	kvm_events_vms__forget(vms, 200);
	TEST_ASSERT_VAL("forgotten, read again", scan_adds(vms, fp, 1, 5));
	TEST_ASSERT_VAL("sneaky", named(vms, 200, KVM_EVENTS_VM_SOURCE_QEMU, "sneaky", NULL));

	/* cron and fc1 exit; the VM stays for the recording */
	TEST_ASSERT_VAL("exit", !fake__rm(fp, 800) && !fake__rm(fp, 300));
	TEST_ASSERT_VAL("scan after exits", scan_adds(vms, fp, 0, 5));
	TEST_ASSERT_VAL("fc1 stays", named(vms, 300, KVM_EVENTS_VM_SOURCE_FIRECRACKER, "fc1",
					   NULL));
	/* Their pids come back: cron's as a VM, fc1's as no VM */
	TEST_ASSERT_VAL("reuse",
			!fake__process(fp, 800, ARGV(QEMU, "-name", "reborn"),
				       "0::/user.slice\n", "qemu-system-x86\n", false) &&
			!fake__process(fp, 300, ARGV("/usr/bin/sleep", "9"), "0::/user.slice\n",
				       "sleep\n", false));
	TEST_ASSERT_VAL("scan after reuse", scan_adds(vms, fp, 1, 6));
	TEST_ASSERT_VAL("reborn", named(vms, 800, KVM_EVENTS_VM_SOURCE_QEMU, "reborn", NULL));
	TEST_ASSERT_VAL("fc1 still", named(vms, 300, KVM_EVENTS_VM_SOURCE_FIRECRACKER, "fc1",
					   NULL));
	TEST_ASSERT_VAL("no such procfs",
			kvm_events_vms__scan(vms, "/nonexistent/perf-kvm-events") == -ENOENT);
	return TEST_OK;
}

static int test__kvm_events_vms_proc(struct test_suite *test __maybe_unused,
				     int subtest __maybe_unused)
{
	struct fake_proc fp = { .dir = "/tmp/perf-kvm-events-vms-XXXXXX" };
	struct kvm_events_vms *vms = NULL;
	int ret = TEST_FAIL;

	fp.hz = sysconf(_SC_CLK_TCK);
	TEST_ASSERT_VAL("mkdtemp", mkdtemp(fp.dir));
	if (fake__populate(&fp)) {
		pr_debug("cannot write the made-up /proc in %s\n", fp.dir);
		goto out;
	}
	ret = fake__from_proc(&fp);
	vms = kvm_events_vms__new(false);
	if (ret == TEST_OK && vms)
		ret = fake__scan(&fp, vms);
	else
		ret = TEST_FAIL;
out:
	kvm_events_vms__delete(vms);
	nftw(fp.dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	return ret;
}

/* With from_proc, find() reads the real /proc: perf test is no VM */
static int test__kvm_events_vms_find(struct test_suite *test __maybe_unused,
				     int subtest __maybe_unused)
{
	struct kvm_events_vms *vms = kvm_events_vms__new(true);

	TEST_ASSERT_VAL("new", vms);
	TEST_ASSERT_VAL("perf test", !kvm_events_vms__find(vms, getpid()));
	TEST_ASSERT_VAL("again", !kvm_events_vms__find(vms, getpid()));
	TEST_ASSERT_VAL("no such pid", !kvm_events_vms__find(vms, 0x7fffffff));
	TEST_ASSERT_VAL("no VM", kvm_events_vms__nr(vms) == 0);
	kvm_events_vms__forget(vms, getpid());
	kvm_events_vms__delete(vms);
	return TEST_OK;
}

struct collect {
	u32	pids[8];
	int	nr;
	int	stop_at;
};

static int collect(const struct kvm_events_vm *vm, void *arg)
{
	struct collect *c = arg;

	c->pids[c->nr++] = vm->pid;
	return c->nr == c->stop_at ? 42 : 0;
}

static int test__kvm_events_vms_table(struct test_suite *test __maybe_unused,
				      int subtest __maybe_unused)
{
	struct kvm_events_vms *vms = kvm_events_vms__new(false);
	char name[] = "web1";
	struct kvm_events_vm vm = {
		.pid = 300, .source = KVM_EVENTS_VM_SOURCE_QEMU, .name = name,
		.comm = (char *)"qemu-system-x86",
	};
	const struct kvm_events_vm *found;
	struct collect c = {};

	TEST_ASSERT_VAL("new", vms);
	TEST_ASSERT_VAL("add 300", !kvm_events_vms__add(vms, &vm));
	vm.pid = 100;
	name[3] = '0';
	TEST_ASSERT_VAL("add 100", !kvm_events_vms__add(vms, &vm));
	vm.pid = 200;
	vm.name = NULL;
	vm.source = KVM_EVENTS_VM_SOURCE_NONE;
	TEST_ASSERT_VAL("add 200", !kvm_events_vms__add(vms, &vm));
	TEST_ASSERT_VAL("3 VMs", kvm_events_vms__nr(vms) == 3);
	TEST_ASSERT_VAL("a copy", named(vms, 300, KVM_EVENTS_VM_SOURCE_QEMU, "web1", NULL));
	found = kvm_events_vms__find(vms, 100);
	TEST_ASSERT_VAL("label: the name", found && !strcmp(kvm_events_vm__label(found), "web0"));
	found = kvm_events_vms__find(vms, 200);
	TEST_ASSERT_VAL("label: the comm",
			found && !strcmp(kvm_events_vm__label(found), "qemu-system-x86"));
	TEST_ASSERT_VAL("by pid", !kvm_events_vms__for_each(vms, collect, &c) && c.nr == 3 &&
			c.pids[0] == 100 && c.pids[1] == 200 && c.pids[2] == 300);
	c.nr = 0;
	c.stop_at = 2;
	TEST_ASSERT_VAL("stops", kvm_events_vms__for_each(vms, collect, &c) == 42 && c.nr == 2);

	vm.name = name;
	vm.comm = NULL;
	TEST_ASSERT_VAL("replace 200", !kvm_events_vms__add(vms, &vm) &&
			kvm_events_vms__nr(vms) == 3 &&
			named(vms, 200, KVM_EVENTS_VM_SOURCE_NONE, "web0", NULL) &&
			!kvm_events_vms__find(vms, 200)->comm);
	kvm_events_vms__forget(vms, 200);
	kvm_events_vms__forget(vms, 999);
	TEST_ASSERT_VAL("forget", kvm_events_vms__nr(vms) == 2 && !kvm_events_vms__find(vms, 200));
	kvm_events_vms__delete(vms);

	vm.name = NULL;
	TEST_ASSERT_VAL("label: nothing", !strcmp(kvm_events_vm__label(&vm), ""));
	TEST_ASSERT_VAL("sources",
			!strcmp(kvm_events_vm_source__name(KVM_EVENTS_VM_SOURCE_NONE), "comm") &&
			!strcmp(kvm_events_vm_source__name(KVM_EVENTS_VM_SOURCE_QEMU), "qemu") &&
			!strcmp(kvm_events_vm_source__name(KVM_EVENTS_VM_SOURCE_FIRECRACKER),
				"firecracker") &&
			!strcmp(kvm_events_vm_source__name(KVM_EVENTS_VM_SOURCE_LIBVIRT),
				"libvirt") &&
			!strcmp(kvm_events_vm_source__name(KVM_EVENTS_VM_SOURCE_MAX), "unknown"));
	return TEST_OK;
}

/*
 * The bytes
 */

static const struct kvm_events_vm encoded_vms[] = {
	{ .pid = 4242, .source = KVM_EVENTS_VM_SOURCE_QEMU, .name = (char *)"web1",
	  .uuid = (char *)UUID, .cgroup = (char *)WEB1_SCOPE,
	  .comm = (char *)"qemu-system-x86" },
	{ .pid = 7, .source = KVM_EVENTS_VM_SOURCE_NONE, .cgroup = (char *)"/",
	  .comm = (char *)"" },
	{ .pid = 300, .source = KVM_EVENTS_VM_SOURCE_FIRECRACKER,
	  .name = (char *)"fc,1\n\xc3\xa9", .comm = (char *)"firecracker" },
};

/* encoded_vms by pid, as the bytes hold them */
static const int encoded_order[] = { 1, 2, 0 };

#define NR_ENCODED	ARRAY_SIZE(encoded_vms)

/*
 * The bytes' layout, walked: where each VM starts and ends, and each u32
 * byte-swapped with @swap
 */
static void walk(u8 *buf, size_t *starts, size_t *ends, bool swap)
{
	size_t off = 0, i;
	u32 v;
	int s;

	for (i = 0; i < 2; i++, off += 4) {
		memcpy(&v, buf + off, 4);
		v = swap ? bswap_32(v) : v;
		memcpy(buf + off, &v, 4);
	}
	for (i = 0; i < NR_ENCODED; i++) {
		starts[i] = off;
		for (s = 0; s < 6; s++) {
			u32 len;

			memcpy(&len, buf + off, 4);
			v = swap ? bswap_32(len) : len;
			memcpy(buf + off, &v, 4);
			off += 4;
			if (s >= 2 && len != 0xffffffff)
				off += len;
		}
		ends[i] = off;
	}
}

static bool decoded_is(struct kvm_events_vms *vms, size_t nr)
{
	size_t i;

	if (kvm_events_vms__nr(vms) != nr) {
		pr_debug("%zu VMs decoded, expected %zu\n", kvm_events_vms__nr(vms), nr);
		return false;
	}
	for (i = 0; i < nr; i++) {
		const struct kvm_events_vm *vm = &encoded_vms[encoded_order[i]];

		if (!vm_equal(kvm_events_vms__find(vms, vm->pid), vm))
			return false;
	}
	return true;
}

/* @size bytes of @buf, from a buffer of that size: decode's result, @nr VMs */
static bool decodes(const void *buf, size_t size, bool swap, int expected, size_t nr)
{
	struct kvm_events_vms *vms = kvm_events_vms__new(false);
	void *copy = malloc(size ? size : 1);
	int ret = -ENOMEM;
	bool ok;

	if (vms && copy) {
		memcpy(copy, buf, size);
		ret = kvm_events_vms__decode(vms, copy, size, swap);
	}
	ok = ret == expected && vms && decoded_is(vms, nr);
	if (ret != expected)
		pr_debug("decode of %zu bytes: %d, expected %d\n", size, ret, expected);
	kvm_events_vms__delete(vms);
	free(copy);
	return ok;
}

/* @buf with @n bytes at @off replaced: it is corrupt, its first @nr VMs kept */
static bool patched_decodes(const u8 *buf, size_t size, size_t off, const void *bytes,
			    size_t n, size_t nr)
{
	u8 *copy = malloc(size);
	bool ok;

	if (!copy)
		return false;
	memcpy(copy, buf, size);
	memcpy(copy + off, bytes, n);
	ok = decodes(copy, size, false, -EINVAL, nr);
	free(copy);
	return ok;
}

static int encode_checks(u8 *buf, size_t size)
{
	size_t starts[NR_ENCODED], ends[NR_ENCODED], t, whole;
	u32 head[2], nr_big = 0xffffffff, nr_small = 1, version2 = 2, len_big = 0x7fffffff;
	u32 source_max = KVM_EVENTS_VM_SOURCE_MAX;
	u8 *swapped;

	walk(buf, starts, ends, false);
	memcpy(head, buf, sizeof(head));
	TEST_ASSERT_VAL("version 1, 3 VMs", head[0] == 1 && head[1] == 3);
	TEST_ASSERT_VAL("size", size == ends[NR_ENCODED - 1] &&
			size == 8 + 3 * 24 + strlen("/") + strlen("fc,1\n\xc3\xa9") +
			strlen("firecracker") + strlen("web1") + strlen(UUID) +
			strlen(WEB1_SCOPE) + strlen("qemu-system-x86"));
	TEST_ASSERT_VAL("round trip", decodes(buf, size, false, 0, 3));

	for (t = 0; t < size; t++) {
		for (whole = 0; t >= 8 && whole < NR_ENCODED && ends[whole] <= t; whole++)
			;
		if (!decodes(buf, t, false, -EINVAL, whole)) {
			pr_debug("truncated to %zu bytes\n", t);
			return TEST_FAIL;
		}
	}
	TEST_ASSERT_VAL("nr too big", patched_decodes(buf, size, 4, &nr_big, 4, 3));
	TEST_ASSERT_VAL("nr too small", patched_decodes(buf, size, 4, &nr_small, 4, 1));
	TEST_ASSERT_VAL("version 2", patched_decodes(buf, size, 0, &version2, 4, 0));
	/* The second VM is pid 300's */
	TEST_ASSERT_VAL("unknown source",
			patched_decodes(buf, size, starts[1] + 4, &source_max, 4, 1));
	TEST_ASSERT_VAL("name longer than the bytes",
			patched_decodes(buf, size, starts[1] + 8, &len_big, 4, 1));
	/* pid 300's name, "fc,1...", with a NUL for its comma */
	TEST_ASSERT_VAL("a NUL in a string", patched_decodes(buf, size, starts[1] + 14, "", 1, 1));

	swapped = malloc(size);
	TEST_ASSERT_VAL("malloc", swapped);
	memcpy(swapped, buf, size);
	walk(swapped, starts, ends, true);
	TEST_ASSERT_VAL("swapped bytes, swapped back", decodes(swapped, size, true, 0, 3) &&
			decodes(swapped, size, false, -EINVAL, 0));
	free(swapped);
	return TEST_OK;
}

static int test__kvm_events_vms_encoding(struct test_suite *test __maybe_unused,
					 int subtest __maybe_unused)
{
	struct kvm_events_vms *vms = kvm_events_vms__new(false);
	void *buf = NULL;
	size_t size, i;
	int ret = TEST_FAIL;

	TEST_ASSERT_VAL("new", vms);
	if (kvm_events_vms__encode(vms, &buf, &size) || size != 8 ||
	    !decodes(buf, size, false, 0, 0) || !decodes(buf, size, true, -EINVAL, 0)) {
		pr_debug("an empty table\n");
		goto out;
	}
	zfree(&buf);
	for (i = 0; i < NR_ENCODED; i++) {
		if (kvm_events_vms__add(vms, &encoded_vms[i]))
			goto out;
	}
	if (!kvm_events_vms__encode(vms, &buf, &size))
		ret = encode_checks(buf, size);
	if (ret == TEST_OK && kvm_events_vms__decode(vms, NULL, 0, false) != -EINVAL)
		ret = TEST_FAIL;
out:
	free(buf);
	kvm_events_vms__delete(vms);
	return ret;
}

/*
 * --vm
 */

static const struct kvm_events_vm filter_vms[] = {
	{ .pid = 100, .source = KVM_EVENTS_VM_SOURCE_QEMU, .name = (char *)"web1",
	  .uuid = (char *)UUID, .cgroup = (char *)WEB1_SCOPE,
	  .comm = (char *)"qemu-system-x86" },
	{ .pid = 200, .source = KVM_EVENTS_VM_SOURCE_QEMU, .name = (char *)"web2",
	  .cgroup = (char *)"/user.slice/user-1000.slice/session-3.scope",
	  .comm = (char *)"qemu-system-x86" },
	{ .pid = 300, .source = KVM_EVENTS_VM_SOURCE_FIRECRACKER, .name = (char *)"fc1",
	  .cgroup = (char *)"/firecracker/fc1", .comm = (char *)"firecracker" },
	{ .pid = 400, .cgroup = (char *)"/user.slice", .comm = (char *)"qemu-system-x86" },
};

/*
 * Which of filter_vms @list takes, as a bit per VM (bit 4: the unnamed
 * pid 300 process), and what it leaves unmatched
 */
static bool filter_takes(const char *list, unsigned int expected, const char *unmatched)
{
	struct kvm_events_vm_filter *f = kvm_events_vm_filter__new("report", list);
	unsigned int took = 0;
	char *left;
	size_t i;
	bool ok;

	if (!f) {
		pr_debug("--vm '%s' refused\n", list);
		return false;
	}
	for (i = 0; i < ARRAY_SIZE(filter_vms); i++)
		took |= kvm_events_vm_filter__takes(f, &filter_vms[i], filter_vms[i].pid) << i;
	took |= kvm_events_vm_filter__takes(f, NULL, 300) << 4;
	left = kvm_events_vm_filter__unmatched(f);
	ok = took == expected && str_is("unmatched", left, unmatched);
	if (took != expected)
		pr_debug("--vm '%s' took %#x, expected %#x\n", list, took, expected);
	free(left);
	kvm_events_vm_filter__delete(f);
	return ok;
}

static int test__kvm_events_vms_filter(struct test_suite *test __maybe_unused,
				       int subtest __maybe_unused)
{
	TEST_ASSERT_VAL("glob", filter_takes("web*", 0x3, NULL));
	TEST_ASSERT_VAL("pid, unnamed or not", filter_takes("300", 0x14, NULL));
	TEST_ASSERT_VAL("uuid in upper case", filter_takes(UUID_UPPER, 0x1, NULL));
	TEST_ASSERT_VAL("cgroup glob", filter_takes("machine.slice/*", 0x1, NULL));
	TEST_ASSERT_VAL("cgroup glob from /", filter_takes("/firecracker/*", 0x4, NULL));
	TEST_ASSERT_VAL("the comm of a VM without a name",
			filter_takes("qemu-system-*", 0x8, NULL));
	TEST_ASSERT_VAL("unmatched",
			filter_takes("web2,nope,4242," UUID ",w*1,db*,99999999999999999999999",
				     0x3, "nope, 4242, db*, 99999999999999999999999"));
	TEST_ASSERT_VAL("empty list", !kvm_events_vm_filter__new("report", ""));
	TEST_ASSERT_VAL("no list", !kvm_events_vm_filter__new("report", NULL));
	TEST_ASSERT_VAL("empty pattern", !kvm_events_vm_filter__new("live", "web1,,web2"));
	TEST_ASSERT_VAL("leading comma", !kvm_events_vm_filter__new("report", ",web1"));
	TEST_ASSERT_VAL("trailing comma", !kvm_events_vm_filter__new("report", "web1,"));
	return TEST_OK;
}

static struct test_case kvm_events_vms_tests[] = {
	TEST_CASE("kvm-events vms: qemu's -name and -uuid name its VM", kvm_events_vms_qemu),
	TEST_CASE("kvm-events vms: firecracker's --id names its VM",
		  kvm_events_vms_firecracker),
	TEST_CASE("kvm-events vms: a command line of any bytes is read within them",
		  kvm_events_vms_garbage),
	TEST_CASE("kvm-events vms: the cgroup, and libvirt's scope's name",
		  kvm_events_vms_cgroup),
	TEST_CASE("kvm-events vms: a made-up /proc, read and scanned", kvm_events_vms_proc),
	TEST_CASE("kvm-events vms: find() in the real /proc", kvm_events_vms_find),
	TEST_CASE("kvm-events vms: the table by pid", kvm_events_vms_table),
	TEST_CASE("kvm-events vms: the recording's bytes, whole, swapped, cut, corrupt",
		  kvm_events_vms_encoding),
	TEST_CASE("kvm-events vms: --vm's patterns", kvm_events_vms_filter),
	{ .name = NULL, }
};

struct test_suite suite__kvm_events_vms = {
	.desc = "kvm-events vms: the names of the VMs",
	.test_cases = kvm_events_vms_tests,
};

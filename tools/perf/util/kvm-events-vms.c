// SPDX-License-Identifier: GPL-2.0
/*
 * perf kvm-events: VMs by the names their owners gave them (issue 49).
 *
 * A report that says "qemu-system-x86 4711" leaves the user to find which
 * of the host's VMs that was, while the VM's owner (libvirt, a cloud's
 * agent, a user at a shell) gave it a name when it started it.  The name
 * is in the VMM's command line (qemu's -name and -uuid, firecracker's
 * --id) or in the cgroup its threads run in (libvirt's machine scope), so
 * this reads those from /proc, keeps them by pid, writes the table into
 * the recording (HEADER_KVM_VMS), where the VMs may have exited by report
 * time, and matches --vm's patterns against it.
 */
#include <byteswap.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <linux/compiler.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "debug.h"
#include "hashmap.h"
#include "intlist.h"
#include "kvm-events.h"
#include "kvm-events-vms.h"

/*
 * /proc/PID/cmdline can be as long as the arguments' limit.  libvirt
 * writes -name and -uuid first, so the rest of a longer one is not read.
 */
#define PROC_FILE_MAX		(1024 * 1024)

/*
 * A process is named from /proc once for good only when it is at least
 * this old: a VMM's launcher forks, moves the child into the VM's cgroup
 * and only then execs the VMM, so a scan that reads a younger process may
 * see the launcher's command line and cgroup, not the VM's.
 */
#define SETTLE_SECS		1

/* A piece of a string that is not NUL-terminated: /proc's argv */
struct span {
	const char	*s;
	size_t		len;
};

static bool span__is(struct span sp, const char *str)
{
	return sp.len == strlen(str) && !memcmp(sp.s, str, sp.len);
}

static bool span__starts(struct span sp, const char *prefix)
{
	size_t n = strlen(prefix);

	return sp.len >= n && !memcmp(sp.s, prefix, n);
}

static bool span__ends(struct span sp, const char *suffix)
{
	size_t n = strlen(suffix);

	return sp.len >= n && !memcmp(sp.s + sp.len - n, suffix, n);
}

/* Replaces *@to with a copy of @len bytes of @s: 0 or -ENOMEM */
static int set_str(char **to, const char *s, size_t len)
{
	char *copy = malloc(len + 1);

	if (!copy)
		return -ENOMEM;
	memcpy(copy, s, len);
	copy[len] = '\0';
	free(*to);
	*to = copy;
	return 0;
}

void kvm_events_vm__exit(struct kvm_events_vm *vm)
{
	zfree(&vm->name);
	zfree(&vm->uuid);
	zfree(&vm->cgroup);
	zfree(&vm->comm);
	vm->source = KVM_EVENTS_VM_SOURCE_NONE;
}

/* A VM's strings, in the order the recording's bytes hold them */
static const size_t vm_strs[] = {
	offsetof(struct kvm_events_vm, name),
	offsetof(struct kvm_events_vm, uuid),
	offsetof(struct kvm_events_vm, cgroup),
	offsetof(struct kvm_events_vm, comm),
};

#define VM_STRS		ARRAY_SIZE(vm_strs)

static char **vm__str(struct kvm_events_vm *vm, size_t i)
{
	return (char **)((char *)vm + vm_strs[i]);
}

static const char *vm__cstr(const struct kvm_events_vm *vm, size_t i)
{
	return *(char * const *)((const char *)vm + vm_strs[i]);
}

/* A deep copy of @from into @to: 0 or -ENOMEM, with @to empty */
static int vm__copy(struct kvm_events_vm *to, const struct kvm_events_vm *from)
{
	const char *s;
	size_t i;

	memset(to, 0, sizeof(*to));
	to->pid = from->pid;
	to->source = from->source;
	for (i = 0; i < VM_STRS; i++) {
		s = vm__cstr(from, i);
		if (s && set_str(vm__str(to, i), s, strlen(s))) {
			kvm_events_vm__exit(to);
			return -ENOMEM;
		}
	}
	return 0;
}

/*
 * The command line
 */

/* The arguments of /proc/PID/cmdline: NUL-ended, the last one maybe not */
struct args {
	const char	*p;
	const char	*end;
};

/* The next argument in @arg; false at the end */
static bool args__next(struct args *a, struct span *arg)
{
	const char *nul;

	if (a->p >= a->end)
		return false;
	nul = memchr(a->p, '\0', a->end - a->p);
	arg->s = a->p;
	arg->len = (nul ? nul : a->end) - a->p;
	a->p = arg->s + arg->len + 1;
	return true;
}

/* "8-4-4-4-12" hex digits, as qemu's -uuid takes it */
static bool is_uuid(const char *s, size_t len)
{
	size_t i;

	if (len != 36)
		return false;
	for (i = 0; i < len; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? s[i] != '-' : !isxdigit((unsigned char)s[i]))
			return false;
	}
	return true;
}

/*
 * A QemuOpts value from @p: it runs to the first ',' that is not doubled,
 * a doubled one being a literal ','.  Returns where it ends (its ',' or
 * @end); the unescaped value goes to @out (room for @end - @p bytes), its
 * length to *@out_len.
 */
static const char *qemu_opt_value(const char *p, const char *end, char *out, size_t *out_len)
{
	size_t n = 0;

	while (p < end) {
		if (*p == ',') {
			if (p + 1 == end || p[1] != ',')
				break;
			p++;
		}
		out[n++] = *p++;
	}
	*out_len = n;
	return p;
}

/*
 * -name's value, a QemuOpts string: [guest=]NAME[,process=P][,debug-threads=on].
 * It is split as qemu splits it, so that the name is the one qemu sees:
 * the first element is the guest name when no '=' comes before its first
 * ','; a later element without a '=' is a flag; an empty name is none.
 */
static int qemu_name(struct kvm_events_vm *vm, struct span value)
{
	const char *p = value.s, *end = value.s + value.len;
	char *buf = malloc(value.len + 1);
	bool first = true;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	while (!err && p < end) {
		struct span key = { p, 0 };
		bool implied;
		size_t len;

		while (p + key.len < end && p[key.len] != '=' && p[key.len] != ',')
			key.len++;
		implied = first && (p + key.len == end || p[key.len] == ',');
		first = false;
		if (!implied && (p + key.len == end || p[key.len] == ',')) {
			p += key.len;		/* a flag */
		} else {
			p = qemu_opt_value(implied ? p : p + key.len + 1, end, buf, &len);
			if ((implied || span__is(key, "guest")) && len) {
				err = set_str(&vm->name, buf, len);
				vm->source = KVM_EVENTS_VM_SOURCE_QEMU;
			}
		}
		if (p < end)
			p++;			/* the ',' */
	}
	free(buf);
	return err;
}

/* qemu's -uuid; kept in lower case, as RFC 4122 writes it; a bad one is left out */
static int qemu_uuid(struct kvm_events_vm *vm, struct span value)
{
	size_t i;

	if (!is_uuid(value.s, value.len))
		return 0;
	if (set_str(&vm->uuid, value.s, value.len))
		return -ENOMEM;
	for (i = 0; i < value.len; i++)
		vm->uuid[i] = tolower((unsigned char)vm->uuid[i]);
	return 0;
}

static int firecracker_id(struct kvm_events_vm *vm, struct span value)
{
	if (!value.len)
		return 0;
	vm->source = KVM_EVENTS_VM_SOURCE_FIRECRACKER;
	return set_str(&vm->name, value.s, value.len);
}

/* An option of a VMM whose value names the VM */
struct vmm_option {
	const char	*name;
	int		(*take)(struct kvm_events_vm *vm, struct span value);
};

static const struct vmm_option qemu_options[] = {
	{ "name", qemu_name },
	{ "uuid", qemu_uuid },
	{ NULL, NULL },
};

static const struct vmm_option firecracker_options[] = {
	{ "id", firecracker_id },
	{ NULL, NULL },
};

/* The options of the VMM that @argv0 runs, or NULL for no VMM */
static const struct vmm_option *vmm_options(struct span argv0)
{
	const char *slash = memrchr(argv0.s, '/', argv0.len);
	struct span base = argv0;

	if (slash) {
		base.s = slash + 1;
		base.len = argv0.s + argv0.len - base.s;
	}
	if (span__starts(base, "qemu-system-") || span__is(base, "qemu-kvm") ||
	    span__is(base, "kvm"))
		return qemu_options;
	if (span__is(base, "firecracker"))
		return firecracker_options;
	return NULL;
}

/*
 * @arg's option among @options: "-opt" or "--opt", both of which qemu
 * takes, its value in *@value when written "-opt=value", else with
 * value->s NULL.  NULL for an argument that is none of them.
 */
static const struct vmm_option *vmm_option(const struct vmm_option *options, struct span arg,
					   struct span *value)
{
	const char *eq;
	struct span name;

	if (!span__starts(arg, "-"))
		return NULL;
	name.s = arg.s + (span__starts(arg, "--") ? 2 : 1);
	name.len = arg.s + arg.len - name.s;
	eq = memchr(name.s, '=', name.len);
	value->s = NULL;
	value->len = 0;
	if (eq) {
		value->s = eq + 1;
		value->len = name.s + name.len - value->s;
		name.len = eq - name.s;
	}
	for (; options->name; options++) {
		if (span__is(name, options->name))
			return options;
	}
	return NULL;
}

int kvm_events_vm__parse_cmdline(struct kvm_events_vm *vm, const char *cmdline, size_t len)
{
	const struct vmm_option *options, *opt;
	struct span arg, value;
	struct args a;
	int err = 0;

	if (!cmdline)
		return 1;
	a.p = cmdline;
	a.end = cmdline + len;
	if (!args__next(&a, &arg))
		return 1;
	options = vmm_options(arg);
	if (!options)
		return 1;
	while (!err && args__next(&a, &arg)) {
		opt = vmm_option(options, arg, &value);
		if (!opt)
			continue;
		/* The last one wins, as in qemu */
		if (value.s || args__next(&a, &value))
			err = opt->take(vm, value);
	}
	return err;
}

/*
 * The cgroup
 */

/*
 * systemd's unit name escaping undone: "\xNN" is the byte NN (libvirt's
 * '-' is "\x2d").  Returns the length written to @out (room for @len
 * bytes).  "\x00" stays as it is: a name holds no NUL.
 */
static size_t systemd_unescape(const char *s, size_t len, char *out)
{
	size_t i = 0, n = 0;

	while (i < len) {
		if (i + 4 <= len && s[i] == '\\' && s[i + 1] == 'x' &&
		    isxdigit((unsigned char)s[i + 2]) && isxdigit((unsigned char)s[i + 3]) &&
		    (s[i + 2] != '0' || s[i + 3] != '0')) {
			char hex[3] = { s[i + 2], s[i + 3], '\0' };

			out[n++] = (char)strtoul(hex, NULL, 16);
			i += 4;
		} else {
			out[n++] = s[i++];
		}
	}
	return n;
}

/*
 * The VM name in a libvirt machine scope, a path component
 * "machine-qemu\x2dN\x2dNAME.scope", where qemu-N-NAME is the machine name
 * libvirt gave systemd-machined (N the domain's id).  libvirt before 3.0
 * left out the id: "machine-qemu\x2dNAME.scope"; so a name of the older
 * form that starts with digits and a '-' loses them.  Returns the name's
 * length in @out (room for @comp's), 0 when @comp is no such scope.
 */
static size_t libvirt_scope_name(struct span comp, char *out)
{
	static const char prefix[] = "machine-qemu\\x2d", suffix[] = ".scope";
	size_t len, digits = 0;

	if (!span__starts(comp, prefix) || !span__ends(comp, suffix) ||
	    comp.len < strlen(prefix) + strlen(suffix))
		return 0;
	len = systemd_unescape(comp.s + strlen(prefix),
			       comp.len - strlen(prefix) - strlen(suffix), out);
	while (digits < len && isdigit((unsigned char)out[digits]))
		digits++;
	if (digits && digits + 1 < len && out[digits] == '-') {
		len -= digits + 1;
		memmove(out, out + digits + 1, len);
	}
	return len;
}

/* Names @vm after the first libvirt machine scope of @path, if any */
static int libvirt_name(struct kvm_events_vm *vm, const char *path)
{
	char *buf = malloc(strlen(path) + 1);
	const char *p = path;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	while (*p) {
		struct span comp = { p, strcspn(p, "/") };
		size_t len = libvirt_scope_name(comp, buf);

		if (len) {
			err = set_str(&vm->name, buf, len);
			vm->source = KVM_EVENTS_VM_SOURCE_LIBVIRT;
			break;
		}
		p += comp.len;
		p += *p == '/';
	}
	free(buf);
	return err;
}

/*
 * The path of /proc/PID/cgroup's cgroup v2 line, "0::PATH", or else of its
 * first line (cgroup v1 only: each controller has its own hierarchy, and
 * any of them tells a libvirt VM's scope).  A line without its two ':' is
 * skipped.
 */
static bool cgroup_path(const char *text, struct span *path)
{
	bool found = false;

	while (*text) {
		size_t len = strcspn(text, "\n");
		const char *c1 = memchr(text, ':', len);
		const char *c2 = c1 ? memchr(c1 + 1, ':', text + len - c1 - 1) : NULL;

		if (c2) {
			struct span id = { text, c1 - text };
			bool v2 = span__is(id, "0") && c2 == c1 + 1;

			if (!found || v2) {
				path->s = c2 + 1;
				path->len = text + len - path->s;
				found = true;
			}
			if (v2)
				break;
		}
		text += len;
		text += *text == '\n';
	}
	return found;
}

int kvm_events_vm__parse_cgroup(struct kvm_events_vm *vm, const char *text)
{
	struct span path = { NULL, 0 };

	if (!text || !cgroup_path(text, &path))
		return 0;
	if (set_str(&vm->cgroup, path.s, path.len))
		return -ENOMEM;
	if (vm->name)
		return 0;
	return libvirt_name(vm, vm->cgroup);
}

/*
 * /proc
 */

/*
 * The whole of @path, NUL-terminated, in *@text, and its length.  A
 * process that is gone, or going, makes -ENOENT: its folder is missing or
 * its files say ESRCH.  Any other error reads as an empty file: what
 * cannot be read names nothing.  -ENOMEM too.
 */
static ssize_t read_file(const char *path, char **text)
{
	size_t size = 0, room = 4096;
	char *buf = NULL, *bigger;
	ssize_t n = 0;
	int fd;

	*text = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && (errno == ENOENT || errno == ESRCH || errno == ENOTDIR))
		return -ENOENT;
	while (fd >= 0 && size < PROC_FILE_MAX) {
		if (!buf || size == room) {
			room = buf ? room * 2 : room;
			bigger = realloc(buf, room + 1);
			if (!bigger) {
				n = -ENOMEM;
				break;
			}
			buf = bigger;
		}
		n = read(fd, buf + size, min(room, (size_t)PROC_FILE_MAX) - size);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			n = n < 0 && errno == ESRCH ? -ENOENT : 0;
			break;
		}
		size += n;
	}
	if (fd >= 0)
		close(fd);
	if (n < 0) {
		free(buf);
		return n;
	}
	*text = buf ? buf : strdup("");
	if (!*text)
		return -ENOMEM;
	(*text)[size] = '\0';
	return size;
}

/* PROCFS/PID/FILE, as read_file() */
static ssize_t read_proc(const char *procfs, u32 pid, const char *file, char **text)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%u/%s", procfs, pid, file) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return read_file(path, text);
}

/* comm without its newline; none for an empty one */
static int vm__read_comm(struct kvm_events_vm *vm, const char *procfs)
{
	char *text;
	ssize_t len = read_proc(procfs, vm->pid, "comm", &text);

	if (len < 0)
		return len;
	if (len && text[len - 1] == '\n')
		text[--len] = '\0';
	if (len)
		vm->comm = text;
	else
		free(text);
	return 0;
}

/*
 * comm, what shows a VMM without a name, is read only for a VMM: a scan
 * reads the files of every new process, and most are none.
 */
int kvm_events_vm__from_proc(struct kvm_events_vm *vm, const char *procfs, u32 pid)
{
	int vmm, err;
	ssize_t len;
	char *text;

	memset(vm, 0, sizeof(*vm));
	vm->pid = pid;
	len = read_proc(procfs, pid, "cmdline", &text);
	if (len < 0)
		return len;
	vmm = kvm_events_vm__parse_cmdline(vm, text, len);
	free(text);
	err = vmm < 0 ? vmm : 0;
	if (!err) {
		len = read_proc(procfs, pid, "cgroup", &text);
		err = len < 0 ? len : kvm_events_vm__parse_cgroup(vm, text);
		free(text);
	}
	/* Not a VMM by its command line, nor in a libvirt VM's scope */
	if (!err && vmm == 1 && vm->source != KVM_EVENTS_VM_SOURCE_LIBVIRT)
		err = 1;
	if (!err)
		err = vm__read_comm(vm, procfs);
	if (err) {
		kvm_events_vm__exit(vm);
		return err;
	}
	return 0;
}

/*
 * The table
 */

/*
 * A pid the table knows: a VM, or one known to be none, so that neither
 * find() nor a scan reads its /proc files again.
 */
struct vms_entry {
	struct kvm_events_vm	vm;
	bool			is_vm;
	/* The VM exited: its entry stays, for the recording's events */
	bool			stale;
	/* A scan reads it again: it was young, or its pid was seen to go */
	bool			recheck;
	/* The current scan listed its pid */
	bool			listed;
	/* A process that is no VM: its comm was asked for, and read */
	bool			comm_read;
};

struct kvm_events_vms {
	struct hashmap	*by_pid;
	size_t		nr;		/* the entries that are VMs */
	bool		from_proc;
};

static size_t pid_hash(long key, void *ctx __maybe_unused)
{
	return key;
}

static bool pid_equal(long key1, long key2, void *ctx __maybe_unused)
{
	return key1 == key2;
}

struct kvm_events_vms *kvm_events_vms__new(bool from_proc)
{
	struct kvm_events_vms *vms = zalloc(sizeof(*vms));

	if (!vms)
		return NULL;
	vms->from_proc = from_proc;
	vms->by_pid = hashmap__new(pid_hash, pid_equal, NULL);
	if (IS_ERR(vms->by_pid)) {
		free(vms);
		return NULL;
	}
	return vms;
}

static void entry__delete(struct vms_entry *e)
{
	kvm_events_vm__exit(&e->vm);
	free(e);
}

void kvm_events_vms__delete(struct kvm_events_vms *vms)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (!vms)
		return;
	hashmap__for_each_entry(vms->by_pid, cur, bkt)
		entry__delete(cur->pvalue);
	hashmap__free(vms->by_pid);
	free(vms);
}

static struct vms_entry *vms__entry(const struct kvm_events_vms *vms, u32 pid)
{
	struct vms_entry *e;

	return hashmap__find(vms->by_pid, pid, &e) ? e : NULL;
}

/*
 * Puts @vm, whose strings it takes, into a new entry for its pid,
 * replacing the old one: the entry, or NULL (-ENOMEM) with @vm freed.
 */
static struct vms_entry *vms__put(struct kvm_events_vms *vms, struct kvm_events_vm *vm,
				  bool is_vm)
{
	struct vms_entry *e = zalloc(sizeof(*e)), *old = NULL;

	if (!e || hashmap__set(vms->by_pid, vm->pid, e, NULL, &old)) {
		free(e);
		kvm_events_vm__exit(vm);
		return NULL;
	}
	e->vm = *vm;
	e->is_vm = is_vm;
	vms->nr += is_vm;
	if (old) {
		vms->nr -= old->is_vm;
		entry__delete(old);
	}
	return e;
}

const struct kvm_events_vm *kvm_events_vms__find(struct kvm_events_vms *vms, u32 pid)
{
	struct vms_entry *e = vms__entry(vms, pid);
	struct kvm_events_vm vm;
	int err;

	if (!e && vms->from_proc) {
		/* One that is gone is remembered too: its late events ask no more */
		err = kvm_events_vm__from_proc(&vm, "/proc", pid);
		if (err == -ENOMEM)
			return NULL;
		if (err) {
			memset(&vm, 0, sizeof(vm));
			vm.pid = pid;
		}
		e = vms__put(vms, &vm, !err);
	}
	return e && e->is_vm ? &e->vm : NULL;
}

/*
 * Of a process that is no VMM by its files, such as a test's guest, comm
 * still names it: read at the first ask, not by the scan, which sees every
 * process of the host.
 */
const char *kvm_events_vms__comm(struct kvm_events_vms *vms, u32 pid)
{
	const struct kvm_events_vm *vm = kvm_events_vms__find(vms, pid);
	struct vms_entry *e;

	if (vm)
		return vm->comm;
	e = vms__entry(vms, pid);
	if (!e)
		return NULL;
	if (!e->comm_read && vms->from_proc) {
		e->comm_read = true;
		vm__read_comm(&e->vm, "/proc");
	}
	return e->vm.comm;
}

int kvm_events_vms__add(struct kvm_events_vms *vms, const struct kvm_events_vm *vm)
{
	struct kvm_events_vm copy;

	if (vm__copy(&copy, vm) || !vms__put(vms, &copy, true))
		return -ENOMEM;
	return 0;
}

void kvm_events_vms__forget(struct kvm_events_vms *vms, u32 pid)
{
	struct vms_entry *e;

	if (!hashmap__delete(vms->by_pid, pid, NULL, &e))
		return;
	vms->nr -= e->is_vm;
	entry__delete(e);
}

size_t kvm_events_vms__nr(const struct kvm_events_vms *vms)
{
	return vms->nr;
}

static int vm_cmp(const void *a, const void *b)
{
	const struct kvm_events_vm *vm_a = *(const struct kvm_events_vm * const *)a;
	const struct kvm_events_vm *vm_b = *(const struct kvm_events_vm * const *)b;

	return vm_a->pid < vm_b->pid ? -1 : vm_a->pid > vm_b->pid;
}

/* The VMs, by pid, in an array to free; NULL for none or on -ENOMEM */
static const struct kvm_events_vm **vms__sorted(const struct kvm_events_vms *vms)
{
	const struct kvm_events_vm **sorted;
	struct hashmap_entry *cur;
	size_t bkt, n = 0;

	sorted = calloc(vms->nr ? vms->nr : 1, sizeof(*sorted));
	if (!sorted)
		return NULL;
	hashmap__for_each_entry(vms->by_pid, cur, bkt) {
		struct vms_entry *e = cur->pvalue;

		if (e->is_vm)
			sorted[n++] = &e->vm;
	}
	qsort(sorted, n, sizeof(*sorted), vm_cmp);
	return sorted;
}

int kvm_events_vms__for_each(const struct kvm_events_vms *vms,
			     int (*fn)(const struct kvm_events_vm *vm, void *arg), void *arg)
{
	const struct kvm_events_vm **sorted = vms__sorted(vms);
	size_t i;
	int ret = 0;

	if (!sorted)
		return -ENOMEM;
	for (i = 0; i < vms->nr && !ret; i++)
		ret = fn(sorted[i], arg);
	free(sorted);
	return ret;
}

/*
 * The scan
 */

/* Clock ticks since boot by PROCFS/uptime, 0 when unknown */
static u64 procfs_now(const char *procfs, long hz)
{
	char path[PATH_MAX], *text;
	double secs;
	u64 now = 0;

	if (snprintf(path, sizeof(path), "%s/uptime", procfs) >= (int)sizeof(path))
		return 0;
	if (read_file(path, &text) < 0)
		return 0;
	secs = strtod(text, NULL);
	if (secs > 0)
		now = secs * hz;
	free(text);
	return now;
}

/*
 * When @pid started, in clock ticks since boot: /proc/PID/stat's 22nd
 * field, the 20th after the ')' that ends comm (which may hold any
 * character).  0 when unknown.
 */
static u64 proc_start(const char *procfs, u32 pid)
{
	char *text, *p;
	u64 start = 0;
	int field;

	if (read_proc(procfs, pid, "stat", &text) < 0)
		return 0;
	p = strrchr(text, ')');
	for (field = 2; p && field < 22; field++) {
		p = strchr(p + 1, ' ');
		if (p && field == 21)
			start = strtoull(p + 1, NULL, 10);
	}
	free(text);
	return start;
}

/* Reading @pid now may see its launcher rather than its VMM */
static bool proc_young(const char *procfs, u32 pid, u64 now, long hz)
{
	u64 start;

	if (!now || hz <= 0)
		return false;
	start = proc_start(procfs, pid);
	return start && start + SETTLE_SECS * hz > now;
}

/*
 * Reads @pid, listed by the scan, for the first time or again (@e).
 * Returns 1 when it is a VM the table did not have: a new pid, or one
 * that was none or whose VM exited.  A process that takes a gone VM's pid
 * without being one leaves the VM's entry: it makes no KVM event.
 */
static int vms__scan_pid(struct kvm_events_vms *vms, struct vms_entry *e, const char *procfs,
			 u32 pid, u64 now, long hz)
{
	bool young = proc_young(procfs, pid, now, hz);
	bool added = !e || !e->is_vm || e->stale;
	struct kvm_events_vm vm;
	int err;

	err = kvm_events_vm__from_proc(&vm, procfs, pid);
	if (err == -ENOENT)
		return 0;
	if (err < 0)
		return err;
	if (err == 0 || !e || !e->is_vm) {
		e = vms__put(vms, &vm, !err);
		if (!e)
			return -ENOMEM;
	}
	e->recheck = young;
	e->listed = true;
	return !err && added;
}

/*
 * After a scan: the pids it did not list have exited.  One that was no VM
 * is forgotten, as its number may come back as a VM; a VM stays, stale,
 * for the recording, to be read again should its pid come back.  A scan
 * that failed part way (!@whole) only clears the marks of what it listed.
 */
static void vms__sweep(struct kvm_events_vms *vms, bool whole)
{
	struct hashmap_entry *cur, *tmp;
	size_t bkt;

	hashmap__for_each_entry_safe(vms->by_pid, cur, tmp, bkt) {
		struct vms_entry *e = cur->pvalue;

		if (e->listed || !whole) {
			e->listed = false;
		} else if (e->is_vm) {
			e->stale = true;
			e->recheck = true;
		} else {
			kvm_events_vms__forget(vms, e->vm.pid);
		}
	}
}

/* A /proc entry's pid, false for what is not a process */
static bool pid_of(const char *name, u32 *pid)
{
	unsigned long long n;
	char *end;

	if (!isdigit((unsigned char)*name))
		return false;
	errno = 0;
	n = strtoull(name, &end, 10);
	if (*end || errno || n > UINT32_MAX)
		return false;
	*pid = n;
	return true;
}

/*
 * Only new pids' files are read (and the young ones' again), so that the
 * record's poller can scan every 100 ms: a known pid costs a lookup.  A
 * pid is known for as long as every scan lists it; one that exits and
 * comes back between two scans (the pid space wrapping in a scan's
 * interval) is not seen to have changed.  The start time in its stat tells
 * only whether it is old enough for its reading to be final: comparing
 * it at each scan would read every process's stat each time.
 */
int kvm_events_vms__scan(struct kvm_events_vms *vms, const char *procfs)
{
	long hz = sysconf(_SC_CLK_TCK);
	u64 now = procfs_now(procfs, hz);
	struct dirent *d;
	int added = 0, err = 0;
	DIR *dir;

	dir = opendir(procfs);
	if (!dir)
		return -errno;
	while (err >= 0 && (d = readdir(dir)) != NULL) {
		struct vms_entry *e;
		u32 pid;

		if (!pid_of(d->d_name, &pid))
			continue;
		e = vms__entry(vms, pid);
		if (e && !e->recheck) {
			e->listed = true;
			continue;
		}
		err = vms__scan_pid(vms, e, procfs, pid, now, hz);
		added += err > 0;
	}
	closedir(dir);
	vms__sweep(vms, err >= 0);
	return err < 0 ? err : added;
}

/*
 * The HEADER_KVM_VMS feature's bytes, in the recording host's byte order
 * (the reader swaps them as perf.data's header says):
 *
 *	u32 version		1
 *	u32 nr			the VMs that follow, by pid
 *	nr times:
 *		u32 pid
 *		u32 source	enum kvm_events_vm_source
 *		4 strings	name, uuid, cgroup, comm, each
 *			u32 len		0xffffffff for NULL
 *			u8 bytes[len]	no NUL, none at the end
 *
 * Nothing is padded and nothing may follow.  A source this perf does not
 * know is corruption: a new source comes with a new version.
 */
#define VMS_VERSION		1
#define VMS_NULL_STR		0xffffffffU

/* Where encode() writes */
struct out {
	u8	*p;
};

static void out__u32(struct out *o, u32 v)
{
	memcpy(o->p, &v, sizeof(v));
	o->p += sizeof(v);
}

static void out__str(struct out *o, const char *s)
{
	size_t len = s ? strlen(s) : 0;

	out__u32(o, s ? len : VMS_NULL_STR);
	memcpy(o->p, s ? s : "", len);
	o->p += len;
}

/* A VM's bytes; 0 when a string is too long to say */
static size_t vm__encoded_size(const struct kvm_events_vm *vm)
{
	size_t size = 2 * sizeof(u32), i;

	for (i = 0; i < VM_STRS; i++) {
		const char *s = vm__cstr(vm, i);

		if (s && strlen(s) >= VMS_NULL_STR)
			return 0;
		size += sizeof(u32) + (s ? strlen(s) : 0);
	}
	return size;
}

int kvm_events_vms__encode(const struct kvm_events_vms *vms, void **buf, size_t *size)
{
	const struct kvm_events_vm **sorted = vms__sorted(vms);
	size_t i, s, total = 2 * sizeof(u32), vm_size;
	struct out o;

	*buf = NULL;
	*size = 0;
	if (!sorted)
		return -ENOMEM;
	for (i = 0; i < vms->nr; i++) {
		vm_size = vm__encoded_size(sorted[i]);
		if (!vm_size) {
			free(sorted);
			return -EINVAL;
		}
		total += vm_size;
	}
	o.p = malloc(total);
	if (!o.p) {
		free(sorted);
		return -ENOMEM;
	}
	*buf = o.p;
	*size = total;
	out__u32(&o, VMS_VERSION);
	out__u32(&o, vms->nr);
	for (i = 0; i < vms->nr; i++) {
		out__u32(&o, sorted[i]->pid);
		out__u32(&o, sorted[i]->source);
		for (s = 0; s < VM_STRS; s++)
			out__str(&o, vm__cstr(sorted[i], s));
	}
	free(sorted);
	return 0;
}

/* Where decode() reads: what is left of the buffer */
struct in {
	const u8	*p;
	size_t		left;
	bool		swap;
};

static bool in__u32(struct in *in, u32 *v)
{
	if (in->left < sizeof(*v))
		return false;
	memcpy(v, in->p, sizeof(*v));
	if (in->swap)
		*v = bswap_32(*v);
	in->p += sizeof(*v);
	in->left -= sizeof(*v);
	return true;
}

/* A string into *@s (NULL for the NULL one): 0, -EINVAL or -ENOMEM */
static int in__str(struct in *in, char **s)
{
	u32 len;

	*s = NULL;
	if (!in__u32(in, &len))
		return -EINVAL;
	if (len == VMS_NULL_STR)
		return 0;
	/* A NUL would cut the string short of the bytes it was written with */
	if (len > in->left || memchr(in->p, '\0', len))
		return -EINVAL;
	if (set_str(s, (const char *)in->p, len))
		return -ENOMEM;
	in->p += len;
	in->left -= len;
	return 0;
}

static int in__vm(struct in *in, struct kvm_events_vm *vm)
{
	u32 source;
	size_t i;
	int err = 0;

	memset(vm, 0, sizeof(*vm));
	if (!in__u32(in, &vm->pid) || !in__u32(in, &source) ||
	    source >= KVM_EVENTS_VM_SOURCE_MAX)
		return -EINVAL;
	vm->source = source;
	for (i = 0; i < VM_STRS && !err; i++)
		err = in__str(in, vm__str(vm, i));
	if (err)
		kvm_events_vm__exit(vm);
	return err;
}

/*
 * nr is not trusted for an allocation: the VMs are read one by one, for as
 * long as the bytes last.
 */
int kvm_events_vms__decode(struct kvm_events_vms *vms, const void *buf, size_t size,
			   bool needs_swap)
{
	struct in in = { buf, size, needs_swap };
	struct kvm_events_vm vm;
	u32 version, nr, i;
	int err;

	if (!buf || !in__u32(&in, &version) || version != VMS_VERSION || !in__u32(&in, &nr))
		return -EINVAL;
	for (i = 0; i < nr; i++) {
		err = in__vm(&in, &vm);
		if (err)
			return err;
		if (!vms__put(vms, &vm, true))
			return -ENOMEM;
	}
	return in.left ? -EINVAL : 0;
}

/*
 * --vm's patterns: which VMs a report, live or diff takes
 */

enum vm_pattern_kind {
	VM_PATTERN_PID,
	VM_PATTERN_UUID,
	VM_PATTERN_GLOB,
};

struct vm_pattern {
	char			*text;
	enum vm_pattern_kind	kind;
	/* A pid, or more than any: a number too big for one matches nothing */
	unsigned long long	pid;
	bool			matched;
};

struct kvm_events_vm_filter {
	size_t			nr;
	struct vm_pattern	patterns[];
};

static bool all_digits(const char *s)
{
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s))
			return false;
	}
	return true;
}

static void vm_pattern__init(struct vm_pattern *pat, char *text)
{
	pat->text = text;
	if (all_digits(text)) {
		pat->kind = VM_PATTERN_PID;
		errno = 0;
		pat->pid = strtoull(text, NULL, 10);
		if (errno)
			pat->pid = ULLONG_MAX;
	} else if (is_uuid(text, strlen(text))) {
		pat->kind = VM_PATTERN_UUID;
	} else {
		pat->kind = VM_PATTERN_GLOB;
	}
}

/* Each of @list's patterns in @f: 0, -EINVAL for an empty one, or -ENOMEM */
static int filter__split(struct kvm_events_vm_filter *f, const char *list)
{
	const char *p = list;

	for (;;) {
		size_t len = strcspn(p, ",");
		char *text;

		if (!len)
			return -EINVAL;
		text = strndup(p, len);
		if (!text)
			return -ENOMEM;
		vm_pattern__init(&f->patterns[f->nr++], text);
		p += len;
		if (!*p++)
			return 0;
	}
}

struct kvm_events_vm_filter *kvm_events_vm_filter__new(const char *cmd, const char *list)
{
	struct kvm_events_vm_filter *f;
	size_t nr = 1;
	const char *p;
	int err;

	for (p = list ? list : ""; *p; p++)
		nr += *p == ',';
	f = zalloc(sizeof(*f) + nr * sizeof(f->patterns[0]));
	if (!f)
		return NULL;
	err = filter__split(f, list ? list : "");
	if (err) {
		if (err == -EINVAL)
			pr_err("perf kvm-events %s: --vm '%s': an empty pattern\n",
			       cmd, list ? list : "");
		kvm_events_vm_filter__delete(f);
		return NULL;
	}
	return f;
}

void kvm_events_vm_filter__delete(struct kvm_events_vm_filter *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->nr; i++)
		free(f->patterns[i].text);
	free(f);
}

/* A glob matches the cgroup's path with or without its leading '/' */
static bool glob_takes_cgroup(const char *glob, const char *cgroup)
{
	if (!cgroup)
		return false;
	if (!fnmatch(glob, cgroup, 0))
		return true;
	return *cgroup == '/' && !fnmatch(glob, cgroup + 1, 0);
}

/*
 * A glob is matched against what the report shows (the name, else the
 * comm) and the cgroup
 */
static bool vm_pattern__takes(const struct vm_pattern *pat, const struct kvm_events_vm *vm,
			      u32 pid)
{
	switch (pat->kind) {
	case VM_PATTERN_PID:
		return pat->pid == pid;
	case VM_PATTERN_UUID:
		return vm && vm->uuid && !strcasecmp(pat->text, vm->uuid);
	case VM_PATTERN_GLOB:
		if (!vm)
			return false;
		return !fnmatch(pat->text, kvm_events_vm__label(vm), 0) ||
		       glob_takes_cgroup(pat->text, vm->cgroup);
	default:
		return false;
	}
}

/* Every pattern that takes @vm is marked, not only the first */
bool kvm_events_vm_filter__takes(struct kvm_events_vm_filter *f,
				 const struct kvm_events_vm *vm, u32 pid)
{
	bool takes = false;
	size_t i;

	for (i = 0; i < f->nr; i++) {
		if (vm_pattern__takes(&f->patterns[i], vm, pid)) {
			f->patterns[i].matched = true;
			takes = true;
		}
	}
	return takes;
}

/*
 * A recording's pids are known before its events: a pid pattern counts as
 * matched, as -p's pids do, whether that process had events or not.
 */
int kvm_events_vm_filter__add_pids(struct kvm_events_vm_filter *f, struct intlist *pids)
{
	struct vm_pattern *pat;
	int err;

	for (pat = f->patterns; pat < f->patterns + f->nr; pat++) {
		if (pat->kind != VM_PATTERN_PID || pat->pid > UINT32_MAX)
			continue;
		err = kvm_events_pids__add(pids, pat->pid);
		if (err)
			return err;
		pat->matched = true;
	}
	return 0;
}

char *kvm_events_vm_filter__unmatched(const struct kvm_events_vm_filter *f)
{
	size_t i, size = 1;
	char *list;

	for (i = 0; i < f->nr; i++) {
		if (!f->patterns[i].matched)
			size += strlen(f->patterns[i].text) + 2;
	}
	if (size == 1)
		return NULL;
	list = zalloc(size);
	if (!list)
		return NULL;
	for (i = 0; i < f->nr; i++) {
		if (f->patterns[i].matched)
			continue;
		if (*list)
			strcat(list, ", ");
		strcat(list, f->patterns[i].text);
	}
	return list;
}

const char *kvm_events_vm__label(const struct kvm_events_vm *vm)
{
	if (vm && vm->name)
		return vm->name;
	if (vm && vm->comm)
		return vm->comm;
	return "";
}

/* The vm_source values of the reports and their JSON */
const char *kvm_events_vm_source__name(enum kvm_events_vm_source source)
{
	static const char * const names[] = {
		[KVM_EVENTS_VM_SOURCE_NONE]		= "comm",
		[KVM_EVENTS_VM_SOURCE_QEMU]		= "qemu",
		[KVM_EVENTS_VM_SOURCE_FIRECRACKER]	= "firecracker",
		[KVM_EVENTS_VM_SOURCE_LIBVIRT]		= "libvirt",
	};

	if ((unsigned int)source >= ARRAY_SIZE(names))
		return "unknown";
	return names[source];
}

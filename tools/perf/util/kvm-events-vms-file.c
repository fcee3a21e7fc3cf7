// SPDX-License-Identifier: GPL-2.0
/*
 * perf kvm-events: the VMs' names in a recording (see
 * kvm-events-vms-file.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <linux/compiler.h>
#include <linux/err.h>
#include <linux/zalloc.h>

#include "data.h"
#include "debug.h"
#include "env.h"
#include "header.h"
#include "kvm-events-vms.h"
#include "kvm-events-vms-file.h"
#include "session.h"
#include "tool.h"

/*
 * A VM lives seconds at the least: a look every 100 ms names it, and
 * reads the files of only the processes new since the last look.
 */
#define WATCH_INTERVAL_MS	100

struct kvm_events_vms_watch {
	const char	*procfs;
	pid_t		pid;		/* the watcher */
	int		stop_fd;	/* a byte, or its end, stops the watcher */
	int		result_fd;	/* the watcher's table, encoded, then EOF */
};

static int write_all(int fd, const void *buf, size_t size)
{
	ssize_t n;

	while (size) {
		n = write(fd, buf, size);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		size -= n;
	}
	return 0;
}

/*
 * The watcher is a process of its own, not a thread: perf record forks
 * its workload, and a thread running at that fork would be in the
 * child's copy of the sanitizers' list of threads without being in the
 * child.  It ignores the signals that stop perf record (a Ctrl-C reaches
 * the whole process group) and never ends before it is asked to, which
 * would stop perf record by its SIGCHLD.
 */
static void __noreturn watcher(const char *procfs, int stop_fd, int result_fd)
{
	static const int ignored[] = { SIGINT, SIGTERM, SIGQUIT, SIGHUP, SIGPIPE, SIGUSR2 };
	struct pollfd stop = { .fd = stop_fd, .events = POLLIN };
	struct kvm_events_vms *vms = kvm_events_vms__new(false);
	bool scanning = vms != NULL;
	void *bytes;
	size_t size, i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(ignored); i++)
		signal(ignored[i], SIG_IGN);
	do {
		if (scanning && kvm_events_vms__scan(vms, procfs) < 0)
			scanning = false;
		ret = poll(&stop, 1, scanning ? WATCH_INTERVAL_MS : -1);
	} while (ret == 0 || (ret < 0 && errno == EINTR));
	/* Those that started in its last interval */
	if (scanning)
		kvm_events_vms__scan(vms, procfs);
	if (vms && !kvm_events_vms__encode(vms, &bytes, &size))
		write_all(result_fd, bytes, size);
	_exit(0);
}

struct kvm_events_vms_watch *kvm_events_vms_watch__start(const char *procfs)
{
	struct kvm_events_vms_watch *w = zalloc(sizeof(*w));
	int stop[2] = { -1, -1 }, result[2] = { -1, -1 };

	if (!w || pipe2(stop, O_CLOEXEC) || pipe2(result, O_CLOEXEC))
		goto fail;
	w->procfs = procfs;
	w->pid = fork();
	if (w->pid < 0)
		goto fail;
	if (!w->pid) {
		close(stop[1]);
		close(result[0]);
		watcher(procfs, stop[0], result[1]);
	}
	close(stop[0]);
	close(result[1]);
	w->stop_fd = stop[1];
	w->result_fd = result[0];
	return w;
fail:
	for (int i = 0; i < 2; i++) {
		if (stop[i] >= 0)
			close(stop[i]);
		if (result[i] >= 0)
			close(result[i]);
	}
	free(w);
	return NULL;
}

/* The watcher's table, read to its end, as the watcher ends */
static struct kvm_events_vms *watch__result(struct kvm_events_vms_watch *w)
{
	struct kvm_events_vms *vms = kvm_events_vms__new(false);
	size_t size = 0, room = 4096;
	char *buf = malloc(room), *more;
	ssize_t n;

	while (buf) {
		n = read(w->result_fd, buf + size, room - size);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		size += n;
		if (size == room) {
			more = realloc(buf, room * 2);
			if (!more)
				zfree(&buf);
			buf = more;
			room *= 2;
		}
	}
	if (!vms || !buf || !size || kvm_events_vms__decode(vms, buf, size, false)) {
		kvm_events_vms__delete(vms);
		vms = NULL;
	}
	free(buf);
	return vms;
}

/* The feature sections the file has, read whole before any is moved */
struct header_copy {
	struct feat_copier	fc;
	void			*bytes[HEADER_LAST_FEATURE];
	u64			size[HEADER_LAST_FEATURE];
	int			err;
};

static int read_section(struct perf_file_section *section, struct perf_header *ph __maybe_unused,
			int feat, int fd, void *data)
{
	struct header_copy *hc = data;

	hc->bytes[feat] = malloc(section->size ?: 1);
	if (!hc->bytes[feat] ||
	    pread(fd, hc->bytes[feat], section->size, section->offset) != (ssize_t)section->size) {
		hc->err = -EIO;
		return -1;
	}
	hc->size[feat] = section->size;
	return 0;
}

/* feat_copier.copy: the file's own bytes of every feature but ours */
static int copy_section(struct feat_copier *fc, int feat, struct feat_writer *fw)
{
	struct header_copy *hc = container_of(fc, struct header_copy, fc);

	if (!hc->bytes[feat])
		return 0;
	return fw->write(fw, hc->bytes[feat], hc->size[feat]) ?: 1;
}

static void header_copy__exit(struct header_copy *hc)
{
	int feat;

	for (feat = 0; feat < HEADER_LAST_FEATURE; feat++)
		zfree(&hc->bytes[feat]);
}

/*
 * Writes the header again, as perf inject does, with the same attributes
 * and data in place and the feature sections copied, plus HEADER_KVM_VMS.
 */
static int rewrite_header(struct perf_session *session, int fd)
{
	struct perf_header *header = &session->header;
	struct header_copy hc = { .fc.copy = copy_section };
	int err;

	/* The attributes must fit where they are, before the data. */
	if (perf_session__data_offset(session->evlist) > header->data_offset)
		return -EINVAL;
	err = perf_header__process_sections(header, fd, &hc, read_section);
	if (!err && hc.err)
		err = hc.err;
	if (!err) {
		perf_header__set_feat(header, HEADER_KVM_VMS);
		err = perf_session__inject_header(session, session->evlist, fd, &hc.fc, false);
	}
	header_copy__exit(&hc);
	return err;
}

/* @path's header, given HEADER_KVM_VMS with @vms */
static int store(const struct kvm_events_vms *vms, const char *path)
{
	struct perf_data data = { .path = path, .mode = PERF_DATA_MODE_READ };
	struct perf_env *env;
	struct perf_session *session;
	struct perf_tool tool;
	void *bytes;
	size_t size;
	int fd, err;

	if (kvm_events_vms__encode(vms, &bytes, &size))
		return -ENOMEM;
	perf_tool__init(&tool, /*ordered_events=*/false);
	session = perf_session__new(&data, &tool);
	if (IS_ERR(session)) {
		free(bytes);
		return PTR_ERR(session);
	}
	env = &session->header.env;
	env->kvm_vms.data = bytes;
	env->kvm_vms.size = size;
	/* The header of a folder's recording is in its file "data". */
	fd = open(data.file.path, O_RDWR | O_CLOEXEC);
	err = fd < 0 ? -errno : rewrite_header(session, fd);
	if (fd >= 0)
		close(fd);
	perf_session__delete(session);
	return err;
}

int kvm_events_vms_watch__stop(struct kvm_events_vms_watch *w, const char *path)
{
	struct kvm_events_vms *vms;
	char stop = 0;
	int err = 0;

	if (!w)
		return 0;
	if (write(w->stop_fd, &stop, 1) != 1)
		pr_debug("kvm-events: cannot stop the VMs' watch: %s\n", strerror(errno));
	close(w->stop_fd);
	vms = watch__result(w);
	close(w->result_fd);
	while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
		;
	if (path && vms && kvm_events_vms__nr(vms))
		err = store(vms, path);
	if (err)
		pr_err("perf kvm-events record: %s: cannot store the VMs' names in its header: %s\n",
		       path, strerror(-err));
	kvm_events_vms__delete(vms);
	free(w);
	return err;
}

struct kvm_events_vms *kvm_events_vms__from_header(struct perf_session *session,
						   const char *input)
{
	const struct perf_env *env = &session->header.env;
	struct kvm_events_vms *vms;

	if (!env->kvm_vms.size)
		return NULL;
	vms = kvm_events_vms__new(false);
	if (!vms)
		return NULL;
	if (!kvm_events_vms__decode(vms, env->kvm_vms.data, env->kvm_vms.size,
				    session->header.needs_swap))
		return vms;
	pr_warning("%s: its VMs' names are cut short or corrupt: the VMs are shown by pid\n",
		   input);
	kvm_events_vms__delete(vms);
	return NULL;
}

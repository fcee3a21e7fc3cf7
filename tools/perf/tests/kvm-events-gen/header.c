// SPDX-License-Identifier: GPL-2.0
/*
 * kvmgen: what perf record writes around the samples: the file header,
 * the attributes and their ids, the header features and the tracing data;
 * in a pipe as records, and with --threads as a directory.
 */
#include "kvmgen.h"
#include <stdarg.h>

/*
 * vsnprintf() that returns what it wrote, not what it would have: the
 * format texts are appended piece by piece, and a cut one must stay cut.
 * tools/lib's scnprintf() does this, but no perf object is linked in.
 */
static int __printf(3, 4)
buf_printf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (len < 0 || !size)
		return 0;
	return (size_t)len >= size ? (int)size - 1 : len;
}

static void vcpu_comm(char *buf, size_t size, unsigned int vcpu)
{
	snprintf(buf, size, "CPU %u/KVM", vcpu);
}

/*
 * +switch+system-wide: the threads that run when the vcpu threads do not,
 * whose comm perf record -a synthesizes too: a hog thread per cpu (one
 * process) and a kworker per cpu
 */
static void write_other_comms(struct kvmgen *g)
{
	char comm[24];	/* "kworker/%u:1" with any u32 */
	unsigned int cpu;

	if (!g->layout.switch_events || !g->layout.system_wide)
		return;
	write_comm(g, HOG_PID, HOG_PID, "hog");
	for (cpu = 0; cpu < g->nr_cpus; cpu++)
		write_comm(g, HOG_PID, HOG_PID + 1 + cpu, "hog");
	for (cpu = 0; cpu < g->nr_cpus; cpu++) {
		snprintf(comm, sizeof(comm), "kworker/%u:1", cpu);
		write_comm(g, KWORKER_TID_BASE + cpu, KWORKER_TID_BASE + cpu,
			   comm);
	}
}

static void write_comms(struct kvmgen *g)
{
	char comm[20];	/* "CPU %u/KVM" with any u32 */
	unsigned int vm, i;

	for (vm = 0; vm < g->sc->nr_vms; vm++) {
		const struct vm_desc *d = &g->sc->vms[vm];

		write_comm(g, d->pid, d->pid, d->comm);
		for (i = 0; i < d->nr_vcpus; i++) {
			vcpu_comm(comm, sizeof(comm), i);
			write_comm(g, d->pid, d->tids[i], comm);
		}
	}
	write_other_comms(g);
}

static void write_events(struct kvmgen *g)
{
	struct vcpu *v;

	write_comms(g);
	init_vcpus(g);
	init_switches(g);
	while ((v = next_vcpu(g)) != NULL)
		run_step(g, v);
	if (g->percpu)
		percpu_write_round(g, true);
	write_finished_round(g);
	if (g->layout.lost)
		write_lost_samples(g);
	events_finish(&g->events);
}

/* The kvm tracepoints' evsels, then with -a perf's dummy:u */
static unsigned int nr_evsels(const struct kvmgen *g)
{
	return (g->layout.single ? 1 : g->nr_tps) + g->layout.system_wide;
}

static bool is_dummy(const struct kvmgen *g, unsigned int i)
{
	return g->layout.system_wide && i == nr_evsels(g) - 1;
}

static u64 evsel_id(const struct kvmgen *g, unsigned int i, u32 cpu)
{
	return is_dummy(g, i) ? dummy_id(g, cpu) : sample_id(g, g->tps[i], cpu);
}

/* The evsel that gets the side-band records perf record asks for */
static void set_tracking(const struct kvmgen *g, struct perf_event_attr *attr)
{
	attr->context_switch = g->layout.switch_events;
	attr->mmap = 1;
	attr->comm = 1;
	attr->task = 1;
	attr->mmap2 = 1;
	attr->comm_exec = 1;
	attr->ksymbol = 1;
	attr->bpf_event = 1;
}

/* Evsel i's attr, as perf record sets it */
static void init_evsel_attr(const struct kvmgen *g, unsigned int i,
			    struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->sample_period = 1;
	attr->read_format = g->layout.read_format;
	attr->inherit = 1;
	attr->sample_id_all = 1;
	attr->exclude_guest = 1;
	if (is_dummy(g, i)) {
		attr->type = PERF_TYPE_SOFTWARE;
		attr->config = PERF_COUNT_SW_DUMMY;
		attr->sample_type = DUMMY_SAMPLE_TYPE;
		attr->exclude_kernel = 1;
		attr->exclude_hv = 1;
		set_tracking(g, attr);
		return;
	}
	attr->type = PERF_TYPE_TRACEPOINT;
	attr->config = g->sc->formats[g->tps[i]].id;
	attr->sample_type = g->layout.sample_type;
	attr->disabled = 1;
	if (i == 0 && !g->layout.system_wide)
		set_tracking(g, attr);
	if (attr->sample_type & PERF_SAMPLE_REGS_USER) {
		attr->sample_regs_user = DWARF_REGS_MASK;
		attr->sample_stack_user = DWARF_STACK_SIZE;
		attr->exclude_callchain_user = 1;
	}
}

static void evsel_name(const struct kvmgen *g, unsigned int i, char *buf,
		       size_t size)
{
	if (is_dummy(g, i))
		snprintf(buf, size, "dummy:u");
	else
		snprintf(buf, size, "%s:%s", tp_system(g, g->tps[i]),
			 tp_name(g, g->tps[i]));
}

static void write_evsel_ids(struct kvmgen *g, unsigned int i)
{
	u32 cpu;

	for (cpu = 0; cpu < g->nr_cpus; cpu++)
		out_u64(&g->out, evsel_id(g, i, cpu));
}

/* The attrs section: each attr followed by the location of its ids */
static void write_attrs(struct kvmgen *g, u64 ids_offset)
{
	struct perf_event_attr attr;
	struct perf_file_section ids;
	unsigned int i;

	for (i = 0; i < nr_evsels(g); i++) {
		init_evsel_attr(g, i, &attr);
		ids.offset = ids_offset + i * g->nr_cpus * sizeof(u64);
		ids.size = g->nr_cpus * sizeof(u64);
		out_write(&g->out, &attr, sizeof(attr));
		out_write(&g->out, &ids, sizeof(ids));
	}
}

/* A pipe's PERF_RECORD_HEADER_ATTRs: each attr followed by its ids */
static void write_attr_records(struct kvmgen *g)
{
	struct perf_event_header hdr = {
		.type = PERF_RECORD_HEADER_ATTR,
		.size = sizeof(hdr) + sizeof(struct perf_event_attr) +
			g->nr_cpus * sizeof(u64),
	};
	struct perf_event_attr attr;
	unsigned int i;

	for (i = 0; i < nr_evsels(g); i++) {
		init_evsel_attr(g, i, &attr);
		out_write(&g->out, &hdr, sizeof(hdr));
		out_write(&g->out, &attr, sizeof(attr));
		write_evsel_ids(g, i);
	}
}

/* Feature sections, see perf.data-file-format.txt */
static const char header_page_text[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

static const char header_event_text[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

static size_t format_fields(char *buf, size_t size,
			    const struct tp_field *field)
{
	size_t len = 0;

	for (; field->decl; field++)
		len += buf_printf(buf + len, size - len,
				 "\tfield:%s;\toffset:%u;\tsize:%u;\tsigned:%d;\n",
				 field->decl, field->offset, field->size,
				 field->is_signed);
	return len;
}

/* The text of events/<system>/<name>/format */
static size_t format_tp_text(const struct kvmgen *g, char *buf, size_t size,
			     enum kvm_tp tp)
{
	const struct tp_format *fmt = &g->sc->formats[tp];
	size_t len;

	len = buf_printf(buf, size, "name: %s\nID: %u\nformat:\n",
			tp_name(g, tp), fmt->id);
	len += format_fields(buf + len, size - len, common_fields);
	len += buf_printf(buf + len, size - len, "\n");
	len += format_fields(buf + len, size - len, fmt->fields);
	len += buf_printf(buf + len, size - len, "\nprint fmt: %s\n",
			 fmt->print_fmt);
	return len;
}

static void write_tracing_header(struct out_file *o)
{
	/* 23, 8, 68 and "tracing", then the version string */
	static const char magic[] = "\027\010Dtracing0.6";

	out_write(o, magic, sizeof(magic));
	out_u8(o, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	out_u8(o, sizeof(u64));		/* long of a 64-bit kernel */
	out_u32(o, TRACE_PAGE_SIZE);

	out_write(o, "header_page", sizeof("header_page"));
	out_u64(o, sizeof(header_page_text) - 1);
	out_write(o, header_page_text, sizeof(header_page_text) - 1);
	out_write(o, "header_event", sizeof("header_event"));
	out_u64(o, sizeof(header_event_text) - 1);
	out_write(o, header_event_text, sizeof(header_event_text) - 1);
}

/* Is tracepoint i the first of its system? */
static bool first_of_system(const struct kvmgen *g, unsigned int i)
{
	const char *system = tp_system(g, g->tps[i]);
	unsigned int j;

	for (j = 0; j < i; j++) {
		if (!strcmp(tp_system(g, g->tps[j]), system))
			return false;
	}
	return true;
}

/* The formats of one system: kvm, and kvm_hv on powerpc */
static void write_system_formats(struct kvmgen *g, const char *system)
{
	static char text[FORMAT_TEXT_MAX];
	unsigned int i, n = 0;

	for (i = 0; i < g->nr_tps; i++)
		n += !strcmp(tp_system(g, g->tps[i]), system);
	out_write(&g->out, system, strlen(system) + 1);
	out_u32(&g->out, n);
	for (i = 0; i < g->nr_tps; i++) {
		size_t len;

		if (strcmp(tp_system(g, g->tps[i]), system))
			continue;
		len = format_tp_text(g, text, sizeof(text), g->tps[i]);
		out_u64(&g->out, len);
		out_write(&g->out, text, len);
	}
}

static void write_kvm_formats(struct kvmgen *g)
{
	unsigned int i, nr_systems = 0;

	for (i = 0; i < g->nr_tps; i++)
		nr_systems += first_of_system(g, i);
	out_u32(&g->out, nr_systems);
	for (i = 0; i < g->nr_tps; i++) {
		if (first_of_system(g, i))
			write_system_formats(g, tp_system(g, g->tps[i]));
	}
}

/* saved_cmdlines: "pid comm" lines for the VMs' threads */
static void write_saved_cmdlines(struct kvmgen *g)
{
	char text[512], comm[20];
	size_t len = 0;
	unsigned int vm, i;

	for (vm = 0; vm < g->sc->nr_vms; vm++) {
		const struct vm_desc *d = &g->sc->vms[vm];

		len += buf_printf(text + len, sizeof(text) - len, "%u %s\n",
				 d->pid, d->comm);
		for (i = 0; i < d->nr_vcpus; i++) {
			vcpu_comm(comm, sizeof(comm), i);
			len += buf_printf(text + len, sizeof(text) - len,
					 "%u %s\n", d->tids[i], comm);
		}
	}
	out_u64(&g->out, len);
	out_write(&g->out, text, len);
}

static void write_tracing_data(struct kvmgen *g)
{
	write_tracing_header(&g->out);
	out_u32(&g->out, 0);		/* no ftrace event formats */
	write_kvm_formats(g);
	out_u32(&g->out, 0);		/* empty kallsyms */
	out_u32(&g->out, 0);		/* empty printk formats */
	write_saved_cmdlines(g);
}

static void write_hostname(struct kvmgen *g)
{
	out_header_string(&g->out, "kvmgen");
}

static void write_osrelease(struct kvmgen *g)
{
	out_header_string(&g->out, g->sc->osrelease);
}

static void write_version(struct kvmgen *g)
{
	out_header_string(&g->out, "6.12.0");
}

static void write_arch(struct kvmgen *g)
{
	out_header_string(&g->out, arch_of(g->sc)->machine);
}

static void write_nrcpus(struct kvmgen *g)
{
	out_u32(&g->out, g->nr_cpus);	/* available */
	out_u32(&g->out, g->nr_cpus);	/* online */
}

static void write_cpudesc(struct kvmgen *g)
{
	out_header_string(&g->out, g->sc->cpudesc);
}

static void write_cpuid(struct kvmgen *g)
{
	out_header_string(&g->out, g->sc->cpuid);
}

static void write_event_desc(struct kvmgen *g)
{
	struct perf_event_attr attr;
	char name[64];
	unsigned int i;

	out_u32(&g->out, nr_evsels(g));
	out_u32(&g->out, sizeof(attr));
	for (i = 0; i < nr_evsels(g); i++) {
		init_evsel_attr(g, i, &attr);
		out_write(&g->out, &attr, sizeof(attr));
		out_u32(&g->out, g->nr_cpus);
		evsel_name(g, i, name, sizeof(name));
		out_header_string(&g->out, name);
		write_evsel_ids(g, i);
	}
}

static void write_dir_format(struct kvmgen *g)
{
	out_u64(&g->out, PERF_DIR_VERSION);
}

static void write_sample_time(struct kvmgen *g)
{
	out_u64(&g->out, g->first_sample_time);
	out_u64(&g->out, g->last_time);
}

/*
 * The second VM's name has what a name may hold and each output must
 * escape: a space, quotes, a comma, a backslash, a newline and UTF-8.
 */
const struct vm_name vm_names[] = {
	{ 1, "web1", "5e0f3c52-5b1c-4c8e-9a8f-2f5d7c1e0b41",
	  "/machine.slice/machine-qemu\\x2d1\\x2dweb1.scope" },
	{ 3, "db \"2\", caf\xc3\xa9\\\nx", NULL,
	  "/machine.slice/machine-qemu\\x2d2\\x2ddb.scope" },
};

static void out_vm_string(struct out_file *o, const char *str)
{
	if (!str) {
		out_u32(o, 0xffffffff);
		return;
	}
	out_u32(o, strlen(str));
	out_write(o, str, strlen(str));
}

/*
 * HEADER_KVM_VMS as perf kvm-events record writes it (its layout is in
 * util/kvm-events-vms.c): version 1, the number of VMs, then each VM's
 * pid, source and four strings, name, uuid, cgroup and comm.  +names=cut
 * ends it in the last VM's comm; +names=corrupt gives the last VM a source
 * no perf knows.  Nothing pads it: the reader takes no byte after it.
 */
static void write_kvm_vms(struct kvmgen *g)
{
	const struct scenario *sc = g->sc;
	unsigned int i;

	out_u32(&g->out, 1);
	out_u32(&g->out, sc->nr_vms);
	for (i = 0; i < sc->nr_vms; i++) {
		bool last = i + 1 == sc->nr_vms;

		out_u32(&g->out, sc->vms[i].pid);
		out_u32(&g->out, last && g->layout.names == NAMES_CORRUPT ?
			99 : vm_names[i].source);
		out_vm_string(&g->out, vm_names[i].name);
		out_vm_string(&g->out, vm_names[i].uuid);
		out_vm_string(&g->out, vm_names[i].cgroup);
		if (last && g->layout.names == NAMES_CUT) {
			out_u32(&g->out, strlen(sc->vms[i].comm));
			out_write(&g->out, sc->vms[i].comm, 2);
		} else {
			out_vm_string(&g->out, sc->vms[i].comm);
		}
	}
}

struct feature_writer {
	int feat;
	void (*write)(struct kvmgen *g);
};

/* In feature bit order, as the reader expects the sections */
static const struct feature_writer feature_writers[] = {
	{ HEADER_TRACING_DATA,	write_tracing_data },
	{ HEADER_HOSTNAME,	write_hostname },
	{ HEADER_OSRELEASE,	write_osrelease },
	{ HEADER_VERSION,	write_version },
	{ HEADER_ARCH,		write_arch },
	{ HEADER_NRCPUS,	write_nrcpus },
	{ HEADER_CPUDESC,	write_cpudesc },
	{ HEADER_CPUID,		write_cpuid },
	{ HEADER_EVENT_DESC,	write_event_desc },
	{ HEADER_SAMPLE_TIME,	write_sample_time },
	{ HEADER_DIR_FORMAT,	write_dir_format },
	{ HEADER_KVM_VMS,	write_kvm_vms },
};

static int pwrite_all(int fd, const void *buf, size_t size, u64 offset)
{
	const u8 *data = buf;

	while (size) {
		ssize_t n = pwrite(fd, data, size, offset);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		data += n;
		size -= n;
		offset += n;
	}
	return 0;
}

/* Only a directory has a format, and only +names the VMs' names. */
static bool feature_written(const struct kvmgen *g, int feat)
{
	if (feat == HEADER_DIR_FORMAT)
		return g->layout.threads;
	if (feat == HEADER_KVM_VMS)
		return g->layout.names != NAMES_NONE;
	return true;
}

/*
 * The section table follows the data, the sections follow the table: one
 * entry per feature bit set, in bit order.
 */
static int write_features(struct kvmgen *g, struct perf_file_header *hdr)
{
	struct perf_file_section secs[ARRAY_SIZE(feature_writers)];
	u64 table_offset = out_tell(&g->out);
	unsigned int i, nr = 0;

	for (i = 0; i < ARRAY_SIZE(feature_writers); i++)
		nr += feature_written(g, feature_writers[i].feat);
	out_zeros(&g->out, nr * sizeof(secs[0]));
	for (i = 0, nr = 0; i < ARRAY_SIZE(feature_writers); i++) {
		if (!feature_written(g, feature_writers[i].feat))
			continue;
		secs[nr].offset = out_tell(&g->out);
		feature_writers[i].write(g);
		secs[nr].size = out_tell(&g->out) - secs[nr].offset;
		__set_bit(feature_writers[i].feat, hdr->adds_features);
		nr++;
	}
	out_flush(&g->out);
	if (g->out.error)
		return -g->out.error;
	return pwrite_all(g->out.fd, secs, nr * sizeof(secs[0]), table_offset);
}

/* Writes a record's header at @offset, once its size is known */
static int patch_header(struct kvmgen *g, u64 offset, const void *hdr,
			size_t size)
{
	out_flush(&g->out);
	if (g->out.error)
		return -g->out.error;
	return pwrite_all(g->out.fd, hdr, size, offset);
}

/*
 * A pipe carries its features as PERF_RECORD_HEADER_FEATUREs, those perf
 * synthesizes for a pipe: not the tracing data, event desc or sample time.
 */
static int write_feature_records(struct kvmgen *g)
{
	struct perf_record_header_feature fe = {
		.header.type = PERF_RECORD_HEADER_FEATURE,
		.header.size = sizeof(fe),
		.feat_id = HEADER_LAST_FEATURE,
	};
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(feature_writers); i++) {
		u64 offset = out_tell(&g->out);

		if (feature_writers[i].feat == HEADER_TRACING_DATA ||
		    feature_writers[i].feat == HEADER_EVENT_DESC ||
		    feature_writers[i].feat == HEADER_SAMPLE_TIME ||
		    !feature_written(g, feature_writers[i].feat))
			continue;
		out_zeros(&g->out, sizeof(fe));
		feature_writers[i].write(g);
		fe.header.size = out_tell(&g->out) - offset;
		fe.feat_id = feature_writers[i].feat;
		err = patch_header(g, offset, &fe, sizeof(fe));
		if (err)
			return err;
	}
	/* The end of the features */
	fe.header.size = sizeof(fe);
	fe.feat_id = HEADER_LAST_FEATURE;
	out_write(&g->out, &fe, sizeof(fe));
	return 0;
}

/* PERF_RECORD_HEADER_TRACING_DATA, the tracing data after it */
static int write_tracing_data_record(struct kvmgen *g)
{
	struct perf_record_header_tracing_data td = {
		.header.type = PERF_RECORD_HEADER_TRACING_DATA,
		.header.size = sizeof(td),
	};
	u64 offset = out_tell(&g->out);

	out_zeros(&g->out, sizeof(td));
	write_tracing_data(g);
	out_zeros(&g->out, ALIGN(out_tell(&g->out), sizeof(u64)) - out_tell(&g->out));
	td.size = out_tell(&g->out) - offset - sizeof(td);
	return patch_header(g, offset, &td, sizeof(td));
}

/* +pipe: what perf record -o - writes, in the order it writes it */
static int write_pipe_data(struct kvmgen *g)
{
	struct perf_pipe_file_header hdr = {
		.magic = PERF_FILE_MAGIC,
		.size = sizeof(hdr),
	};
	int err;

	out_write(&g->out, &hdr, sizeof(hdr));
	write_attr_records(g);
	err = write_feature_records(g);
	if (!err)
		err = write_tracing_data_record(g);
	if (err)
		return err;
	write_events(g);
	out_flush(&g->out);
	return g->out.error ? -g->out.error : 0;
}

/*
 * Layout: header, sample ids, attrs, data, feature section table, feature
 * sections.  The header goes in last, when all offsets are known.
 */
int write_perf_data(struct kvmgen *g)
{
	struct perf_file_header hdr;
	u64 ids_offset = sizeof(hdr);
	unsigned int i;
	int err;

	if (g->layout.pipe)
		return write_pipe_data(g);
	memset(&hdr, 0, sizeof(hdr));
	hdr.magic = PERF_FILE_MAGIC;
	hdr.size = sizeof(hdr);
	hdr.attr_size = sizeof(struct perf_event_attr) +
			sizeof(struct perf_file_section);

	out_zeros(&g->out, sizeof(hdr));
	for (i = 0; i < nr_evsels(g); i++)
		write_evsel_ids(g, i);

	hdr.attrs.offset = out_tell(&g->out);
	write_attrs(g, ids_offset);
	hdr.attrs.size = out_tell(&g->out) - hdr.attrs.offset;

	hdr.data.offset = out_tell(&g->out);
	write_events(g);
	hdr.data.size = out_tell(&g->out) - hdr.data.offset;

	err = write_features(g, &hdr);
	if (err)
		return err;
	return pwrite_all(g->out.fd, &hdr, sizeof(hdr), 0);
}

/*
 * A vcpu as .truth names it: its id, or pid/id when there are two VMs, or
 * '?' where the events do not have it (then its tid says which it is).
 */
void vcpu_label(const struct kvmgen *g, const struct vcpu *v,
		       char *buf, size_t size)
{
	if (arch_of(g->sc)->no_vcpu_id)
		snprintf(buf, size, "?");
	else if (g->sc->nr_vms > 1)
		snprintf(buf, size, "%u/%u", v->vm->pid, v->id);
	else
		snprintf(buf, size, "%u", v->id);
}

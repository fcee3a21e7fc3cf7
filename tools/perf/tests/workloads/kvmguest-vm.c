// SPDX-License-Identifier: GPL-2.0
/* The kvmguest workload's VM, which each of its guests runs in */
#include "kvmguest-vm.h"

#ifdef KVMGUEST_VM

#include <fcntl.h>
#include <sys/mman.h>

int kvmguest_print_map(unsigned long base, const struct kvmguest_label *labels, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		printf("%016lx %c %s\n", base + labels[i].offset, i + 1 < nr ? 'T' : 'A',
		       labels[i].name);
	return KVMGUEST_OK;
}

/* @max is what the guest can count to: reject what would not fit. */
static int parse_count(const char *arg, unsigned long max, unsigned long *count)
{
	char *end;

	errno = 0;
	*count = strtoul(arg, &end, 0);
	if (errno || end == arg || *end || arg[0] == '-' || *count > max)
		return kvmguest_err(KVMGUEST_FAIL, "bad count '%s' (at most %lu)\n", arg, max);
	return KVMGUEST_OK;
}

int kvmguest_parse_counts(int argc, const char **argv, unsigned long *counts, int nr,
			  unsigned long max, const char *usage)
{
	int i;

	if (argc > nr) {
		fprintf(stderr, "usage: perf test -w kvmguest %s\n", usage);
		return KVMGUEST_FAIL;
	}
	for (i = 0; i < argc; i++) {
		if (parse_count(argv[i], max, &counts[i]))
			return KVMGUEST_FAIL;
	}
	return KVMGUEST_OK;
}

int kvmguest_parse_halt_args(int argc, const char **argv, struct guest_vm *vm)
{
	if (argc != 2) {
		fprintf(stderr, "usage: perf test -w kvmguest halt N PERIOD_US\n");
		return KVMGUEST_FAIL;
	}
	/* Each guest counts its halts in 32 bits. */
	if (parse_count(argv[0], UINT32_MAX, &vm->halts) ||
	    parse_count(argv[1], UINT32_MAX, &vm->period_us))
		return KVMGUEST_FAIL;
	/* A timer of 0 would never fire. */
	if (!vm->period_us || vm->period_us > GUEST_MAX_PERIOD_US)
		return kvmguest_err(KVMGUEST_FAIL, "PERIOD_US must be 1 to %lu\n",
				    GUEST_MAX_PERIOD_US);
	return KVMGUEST_OK;
}

int kvmguest_check_count(const char *what, unsigned long want, unsigned long seen)
{
	if (want == seen)
		return KVMGUEST_OK;
	return kvmguest_err(KVMGUEST_FAIL, "%s: expected %lu, saw %lu\n", what, want, seen);
}

int kvmguest_ioctl(int fd, unsigned long req, void *arg, const char *name)
{
	if (ioctl(fd, req, arg) >= 0)
		return KVMGUEST_OK;
	return kvmguest_err(KVMGUEST_FAIL, "%s: %s\n", name, strerror(errno));
}

int guest_vm__report_exit(const struct kvm_run *run)
{
	switch (run->exit_reason) {
	case KVM_EXIT_FAIL_ENTRY:
		return kvmguest_err(-1, "entry failed, hardware reason %#llx\n",
			(unsigned long long)run->fail_entry.hardware_entry_failure_reason);
	case KVM_EXIT_INTERNAL_ERROR:
		return kvmguest_err(-1, "KVM internal error, suberror %u\n",
				    run->internal.suberror);
	case KVM_EXIT_SHUTDOWN:
		return kvmguest_err(-1, "guest shut down (triple fault)\n");
	case KVM_EXIT_SYSTEM_EVENT:
		return kvmguest_err(-1, "guest system event %u\n", run->system_event.type);
	default:
		return kvmguest_err(-1, "unexpected exit reason %u\n", run->exit_reason);
	}
}

/* Missing or unusable KVM is the host's limitation, not a test failure. */
static int guest_vm__open(struct guest_vm *vm)
{
	vm->kvm_fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (vm->kvm_fd < 0)
		return kvmguest_err(KVMGUEST_SKIP, "cannot open /dev/kvm: %s\n", strerror(errno));
	if (ioctl(vm->kvm_fd, KVM_GET_API_VERSION, 0) != KVM_API_VERSION)
		return kvmguest_err(KVMGUEST_SKIP, "unsupported KVM API version\n");
	vm->vm_fd = ioctl(vm->kvm_fd, KVM_CREATE_VM, 0);
	if (vm->vm_fd < 0)
		return kvmguest_err(KVMGUEST_SKIP, "cannot create a VM: %s\n", strerror(errno));
	return KVMGUEST_OK;
}

static int guest_vm__add_memory(struct guest_vm *vm, const struct guest_form *form)
{
	struct kvm_userspace_memory_region region = {
		.slot = 0,
		.guest_phys_addr = form->gpa,
		.memory_size = GUEST_MEM_SIZE,
	};

	vm->mem = mmap(NULL, GUEST_MEM_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (vm->mem == MAP_FAILED)
		return kvmguest_err(KVMGUEST_FAIL, "cannot map guest memory: %s\n",
				    strerror(errno));
	memcpy((char *)vm->mem + form->code_offset, form->code, form->size);
	region.userspace_addr = (uintptr_t)vm->mem;
	return KVMGUEST_IOCTL(vm->vm_fd, KVM_SET_USER_MEMORY_REGION, &region);
}

static int guest_vm__add_vcpu(struct guest_vm *vm)
{
	int size;

	vm->vcpu_fd = ioctl(vm->vm_fd, KVM_CREATE_VCPU, 0);
	if (vm->vcpu_fd < 0)
		return kvmguest_err(KVMGUEST_FAIL, "KVM_CREATE_VCPU: %s\n", strerror(errno));
	/* kvm_run is followed by the PIO data page, so map the full size. */
	size = ioctl(vm->kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (size < (int)sizeof(struct kvm_run))
		return kvmguest_err(KVMGUEST_FAIL, "bad vcpu mmap size %d\n", size);
	vm->run_size = size;
	vm->run = mmap(NULL, vm->run_size, PROT_READ | PROT_WRITE, MAP_SHARED, vm->vcpu_fd, 0);
	if (vm->run == MAP_FAILED)
		return kvmguest_err(KVMGUEST_FAIL, "cannot map kvm_run: %s\n", strerror(errno));
	return KVMGUEST_OK;
}

/* Runs the vcpu, passing each exit to @form, until the guest is done */
static int guest_vm__run(struct guest_vm *vm, const struct guest_form *form)
{
	int ret = 0;

	while (!ret) {
		/* A signal only interrupts the run; the guest resumes. */
		if (ioctl(vm->vcpu_fd, KVM_RUN, 0) < 0) {
			if (errno == EINTR)
				continue;
			return kvmguest_err(KVMGUEST_FAIL, "KVM_RUN: %s\n", strerror(errno));
		}
		ret = form->handle_exit(vm);
	}
	return ret < 0 ? KVMGUEST_FAIL : KVMGUEST_OK;
}

static void guest_vm__exit(struct guest_vm *vm)
{
	if (vm->run != MAP_FAILED)
		munmap(vm->run, vm->run_size);
	if (vm->mem != MAP_FAILED)
		munmap(vm->mem, GUEST_MEM_SIZE);
	if (vm->dev_fd >= 0)
		close(vm->dev_fd);
	if (vm->vcpu_fd >= 0)
		close(vm->vcpu_fd);
	if (vm->vm_fd >= 0)
		close(vm->vm_fd);
	if (vm->kvm_fd >= 0)
		close(vm->kvm_fd);
}

int guest_vm__run_form(struct guest_vm *vm, const struct guest_form *form)
{
	int ret;

	vm->kvm_fd = -1;
	vm->vm_fd = -1;
	vm->vcpu_fd = -1;
	vm->dev_fd = -1;
	vm->mem = MAP_FAILED;
	vm->run = MAP_FAILED;

	ret = guest_vm__open(vm);
	ret = ret ?: form->setup_vm(vm);
	ret = ret ?: guest_vm__add_memory(vm, form);
	ret = ret ?: guest_vm__add_vcpu(vm);
	ret = ret ?: form->set_entry(vm);
	ret = ret ?: guest_vm__run(vm, form);
	ret = ret ?: form->check(vm);
	guest_vm__exit(vm);
	return ret;
}

#endif /* KVMGUEST_VM */

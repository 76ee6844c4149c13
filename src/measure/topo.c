// SPDX-License-Identifier: GPL-2.0-or-later
#include "mthpscope.h"
#include "topo.h"
#include "counters.h"
#include "mthpscope.h"
#include "steal.h"

#include <errno.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

static hwloc_topology_t topology;

/*
 * The CPU's brand string from CPUID 0x80000002-4 on x86; "" elsewhere or
 * when the leaves are missing. Read here rather than taken from hwloc, whose
 * CPUModel comes from its x86 backend (this same string) in some runs and
 * from /proc/cpuinfo's "model name" in others: on a Firecracker VM the two
 * were "Oxide Virtual Turin-like Processor" and "AMD EPYC", 2 of 20 runs
 * the latter, and repeated runs must name one CPU.
 */
static void cpuid_brand(char *buf, size_t size)
{
	buf[0] = '\0';
#if defined(__x86_64__) || defined(__i386__)
	{
		unsigned r[12], max = __get_cpuid_max(0x80000000, NULL), i;
		char brand[49] = { 0 };

		if (max < 0x80000004 || size < 2)
			return;
		for (i = 0; i < 3; i++)
			__cpuid(0x80000002 + i, r[4 * i], r[4 * i + 1], r[4 * i + 2], r[4 * i + 3]);
		memcpy(brand, r, 48);
		snprintf(buf, size, "%s", brand);
		ms_squeeze_spaces(buf); /* all spaces: "", and hwloc's name instead */
	}
#else
	(void)size;
#endif
}
static bool loaded;

static int topo_load(void)
{
	if (loaded)
		return 0;
	if (hwloc_topology_init(&topology) < 0)
		return -ENOMEM;
	if (hwloc_topology_load(topology) < 0) {
		hwloc_topology_destroy(topology);
		return -EIO;
	}
	loaded = true;
	return 0;
}

static int count_type(hwloc_obj_type_t t)
{
	int n = hwloc_get_nbobjs_by_type(topology, t);

	return n < 0 ? 0 : n;
}

static unsigned long long cache_size(hwloc_obj_type_t t)
{
	hwloc_obj_t o = hwloc_get_obj_by_type(topology, t, 0);

	return o && o->attr ? o->attr->cache.size : 0;
}

static void read_first_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, (int)size, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

bool topo_midr_emulated(unsigned long midr)
{
	return ((midr >> 24) & 0xff) == 0x00;
}

/* An emulated CPU: x86 TCG announces itself through the hypervisor CPUID
 * leaf ("TCGTCGTCGTCG", QEMU target/i386/cpu.c); QEMU's arm64 'max' CPU
 * under TCG has MIDR_EL1 implementer 0x00 ("reserved for software use",
 * Arm ARM DDI 0487 D23.2) and part 0x051, set by QEMU target/arm/cpu64.c
 * so that no guest mistakes it for a real core. */
static void detect_emulation(struct topo_info *t)
{
#if defined(__x86_64__) || defined(__i386__)
	if (strstr(t->virt_reason, "TCGTCGTCGTCG")) {
		t->emulated = true;
		snprintf(t->emul_reason, sizeof(t->emul_reason),
			 "CPUID hypervisor signature TCGTCGTCGTCG (QEMU TCG)");
	}
#else
	char buf[64];

	read_first_line("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1", buf,
			sizeof(buf));
	if (buf[0] && topo_midr_emulated(strtoul(buf, NULL, 0))) {
		t->emulated = true;
		snprintf(t->emul_reason, sizeof(t->emul_reason),
			 "MIDR_EL1 %s: implementer 0x00, reserved for software use "
			 "(QEMU's TCG 'max' CPU)", buf);
		if (!t->virtualized) {
			t->virtualized = true;
			snprintf(t->virt_reason, sizeof(t->virt_reason),
				 "emulated CPU (MIDR implementer 0x00)");
		}
	}
#endif
	if (!t->emulated)
		snprintf(t->emul_reason, sizeof(t->emul_reason), "no emulator signature found");
}

static void detect_virt(struct topo_info *t)
{
	static const char *const dmi_hv[] = { "QEMU", "KVM", "VMware", "VirtualBox", "Xen",
					      "Microsoft Corporation", "Amazon EC2", "Google",
					      "Firecracker", "Cloud Hypervisor", "Bochs" };
	char buf[128];
	size_t i;
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;

	/* CPUID.1:ECX bit 31 is reserved for hypervisors to announce themselves. */
	if (__get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 31))) {
		char sig[13] = { 0 };
		__cpuid(0x40000000, a, b, c, d);
		memcpy(sig, &b, 4);
		memcpy(sig + 4, &c, 4);
		memcpy(sig + 8, &d, 4);
		t->virtualized = true;
		snprintf(t->virt_reason, sizeof(t->virt_reason), "CPUID hypervisor bit (%s)", sig);
		return;
	}
#endif
	read_first_line("/sys/class/dmi/id/sys_vendor", buf, sizeof(buf));
	if (!buf[0])
		read_first_line("/sys/class/dmi/id/product_name", buf, sizeof(buf));
	for (i = 0; buf[0] && i < sizeof(dmi_hv) / sizeof(dmi_hv[0]); i++) {
		if (strstr(buf, dmi_hv[i])) {
			t->virtualized = true;
			snprintf(t->virt_reason, sizeof(t->virt_reason), "DMI: %s", buf);
			return;
		}
	}
	read_first_line("/sys/hypervisor/type", buf, sizeof(buf));
	if (buf[0]) {
		t->virtualized = true;
		snprintf(t->virt_reason, sizeof(t->virt_reason), "/sys/hypervisor: %s", buf);
		return;
	}
	snprintf(t->virt_reason, sizeof(t->virt_reason), "no hypervisor signature found");
}

int topo_describe(struct topo_info *t)
{
	struct utsname u;
	hwloc_obj_t pkg;
	const char *s;
	int err;

	memset(t, 0, sizeof(*t));
	t->cpu_family = t->cpu_model_number = -1;
	t->page_size = sysconf(_SC_PAGESIZE);
	if (uname(&u) == 0) {
		snprintf(t->kernel, sizeof(t->kernel), "%s", u.release);
		snprintf(t->arch, sizeof(t->arch), "%s", u.machine);
	}
	detect_virt(t);
	detect_emulation(t);
	if ((err = topo_load()))
		return err;
	t->packages = count_type(HWLOC_OBJ_PACKAGE);
	t->cores = count_type(HWLOC_OBJ_CORE);
	t->pus = count_type(HWLOC_OBJ_PU);
	t->numa_nodes = count_type(HWLOC_OBJ_NUMANODE);
	t->l1d_bytes = cache_size(HWLOC_OBJ_L1CACHE);
	t->l2_bytes = cache_size(HWLOC_OBJ_L2CACHE);
	t->l3_bytes = cache_size(HWLOC_OBJ_L3CACHE);
	pkg = hwloc_get_obj_by_type(topology, HWLOC_OBJ_PACKAGE, 0);
	cpuid_brand(t->cpu_model, sizeof(t->cpu_model));
	if (pkg) {
		if (!t->cpu_model[0] && (s = hwloc_obj_get_info_by_name(pkg, "CPUModel")))
			snprintf(t->cpu_model, sizeof(t->cpu_model), "%s", s);
		if ((s = hwloc_obj_get_info_by_name(pkg, "CPUVendor")))
			snprintf(t->cpu_vendor, sizeof(t->cpu_vendor), "%s", s);
		if ((s = hwloc_obj_get_info_by_name(pkg, "CPUFamilyNumber")))
			sscanf(s, "%d", &t->cpu_family);
		if ((s = hwloc_obj_get_info_by_name(pkg, "CPUModelNumber")))
			sscanf(s, "%d", &t->cpu_model_number);
	}
	ms_squeeze_spaces(t->cpu_model);
	{
		int st = steal_reported();

		t->steal_known = st >= 0;
		t->steal_counted = st > 0;
	}
	if (!t->cpu_model[0])
		snprintf(t->cpu_model, sizeof(t->cpu_model), "unknown");
	return 0;
}

int topo_pin_cpu(int cpu)
{
	hwloc_bitmap_t set;
	int err;

	if ((err = topo_load()))
		return err;
	set = hwloc_bitmap_alloc();
	if (!set)
		return -ENOMEM;
	hwloc_bitmap_only(set, (unsigned)cpu);
	err = hwloc_set_cpubind(topology, set, HWLOC_CPUBIND_THREAD | HWLOC_CPUBIND_STRICT);
	if (err < 0)
		err = errno ? -errno : -EINVAL;
	hwloc_bitmap_free(set);
	return err;
}

int topo_default_cpu(void)
{
	hwloc_obj_t pu;
	int n;

	if (topo_load())
		return 0;
	n = count_type(HWLOC_OBJ_PU);
	pu = n > 0 ? hwloc_get_obj_by_type(topology, HWLOC_OBJ_PU, (unsigned)n - 1) : NULL;
	return pu ? (int)pu->os_index : 0;
}

int topo_mem_available(unsigned long long *bytes)
{
	char line[256];
	unsigned long long kb;
	FILE *f = fopen("/proc/meminfo", "re");
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
			*bytes = kb * 1024;
			err = 0;
			break;
		}
	fclose(f);
	return err;
}

/* ---- the host as documents describe it ----------------------------------- */

/* host.pmu: libpfm4's models of this CPU, whether a hardware cycles counter
 * opens here and, when not, why in words with what to do. */
static void pmu_probe(struct results_pmu *p)
{
	struct counters_pmu_model models[RESULTS_MAX_PMU_MODELS];
	int n, i, err;

	memset(p, 0, sizeof(*p));
	n = counters_detect_pmus(models, (int)MS_ARRAY_SIZE(models));
	for (i = 0; i < n; i++)
		snprintf(p->models[p->nr_models++], sizeof(p->models[0]), "%s", models[i].name);
	err = counters_probe_hw();
	p->available = err == 0;
	if (err) {
		char adv[256];

		counters_strerror(err, true, adv, sizeof(adv));
		snprintf(p->reason, sizeof(p->reason),
			 "a hardware cycles counter does not open (%s): %s", strerror(-err), adv);
	}
}

void results_host_describe(struct results_host *h, const struct topo_info *t,
			   const struct thp_settings *s)
{
	memset(h, 0, sizeof(*h));
	h->topo = *t;
	h->pmd_order = s->pmd_order;
	h->pmd_size = s->pmd_size;
	pmu_probe(&h->pmu);
}

json_t *results_host_json(const struct topo_info *t, const struct thp_settings *s)
{
	struct results_host h;

	results_host_describe(&h, t, s);
	return results_host_to_json(&h);
}

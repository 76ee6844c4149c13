/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The THP settings as values: the words of the sysfs files (one string
 * table), the per-size and khugepaged knobs, the whole configuration as one
 * struct. Plain types and parsing only, usable by documents and analysis;
 * reading and writing sysfs, with the journal, is src/measure/thp.c.
 */
#ifndef THP_SETTINGS_H
#define THP_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

#define THP_MAX_SIZES 24
#define THP_MAX_STATS 32

/* Every word the THP sysfs files use; parsed through one string table. */
enum thp_word {
	THP_W_ALWAYS,
	THP_W_INHERIT,
	THP_W_MADVISE,
	THP_W_NEVER,
	THP_W_DEFER,
	THP_W_DEFER_MADVISE,
	THP_W_WITHIN_SIZE,
	THP_W_ADVISE,
	THP_W_DENY,
	THP_W_FORCE,
	THP_W_COUNT,
	THP_W_NONE = -1,
};

const char *thp_word_name(enum thp_word w);
/* Returns the word, or -EINVAL for a word not in the table. */
int thp_word_parse(const char *s);
/* Parse "always [madvise] never": selected word and offered set (bit per
 * word). -EBADMSG when no word or more than one is selected, or a word is
 * unknown. */
int thp_parse_choice(const char *text, enum thp_word *selected, unsigned *offered);

struct thp_stat {
	char name[40];
	unsigned long long value;
};

struct thp_size {
	int order;
	unsigned long kb;
	bool anon;              /* has an "enabled" file: anon mTHP supported */
	enum thp_word enabled;
	unsigned enabled_offered;
	bool shmem;             /* has "shmem_enabled" */
	enum thp_word shmem_enabled;
	int nr_stats;
	struct thp_stat stats[THP_MAX_STATS];
};

struct thp_khugepaged {
	long defrag, max_ptes_none, max_ptes_swap, max_ptes_shared;
	long pages_to_scan, scan_sleep_millisecs, alloc_sleep_millisecs;
	long pages_collapsed, full_scans;
};

struct thp_settings {
	enum thp_word enabled, defrag, shmem_enabled;
	unsigned defrag_offered;
	long page_size;
	unsigned long pmd_size;  /* hpage_pmd_size */
	int pmd_order;
	int nr_sizes;            /* sorted by order */
	struct thp_size sizes[THP_MAX_SIZES];
	struct thp_khugepaged khugepaged;
	bool size_defer;         /* a per-size "enabled" offers "defer" */
	bool mthp_collapse;      /* per-size collapse stats exist below the PMD size */
	/* No hugepages-<N>kB directories (Linux before 6.8): sizes[] holds one
	 * entry, the PMD order, whose "enabled" is the top-level knob. */
	bool legacy_pmd;
};

const struct thp_size *thp_size_by_order(const struct thp_settings *s, int order);
/* Bitmask of orders with anon mTHP support (an "enabled" file). */
unsigned long thp_anon_orders(const struct thp_settings *s);
unsigned long long thp_size_stat(const struct thp_size *z, const char *name, bool *found);

#endif

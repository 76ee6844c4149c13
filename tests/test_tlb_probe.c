// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The probe's inference on made-up times (issue 38): times built from the
 * model under a known merge size, with a little noise, must give that size;
 * a flat profile and noise that swamps the steps must give "cannot tell".
 * The spans come from probe_spans on the table's zen4 geometry, as the
 * command picks them. No hardware, no root.
 */
#include "harness.h"
#include "tlb_model.h"
#include "tlb_probe.h"

#define MIB (1ull << 20)

/* The ideal layout of a variant over 'span' bytes of 4K pages. */
static void ideal_layout(enum probe_variant v, unsigned long long span, struct layout_hist *h)
{
	unsigned long long pages = span >> 12;
	int k, top = v == PROBE_O2 ? 2 : v == PROBE_O3 ? 3 : v == PROBE_O4 ? 4 : 0;

	layout_hist_init(h, 12, 9);
	if (v == PROBE_PMD) {
		h->pmd_maps = span >> 21;
		return;
	}
	if (v == PROBE_C0) {
		/* a PMD folio mapped by PTEs: contiguous and inside one folio */
		for (k = 0; k <= 9; k++)
			h->contig[k] = h->folio[k] = pages >> k;
		return;
	}
	for (k = 0; k <= top; k++)
		h->contig[k] = h->folio[k] = pages >> k;
}

/* A deterministic noise in [-1, 1). */
static double noise(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(*s >> 11) / (double)(1ULL << 52) - 1.0;
}

/*
 * Times under hypothesis h (index into probe_hyp_pages) at the table's
 * capacities: 100 ns + 8 ns per L1 miss + 40 ns per last-level miss, each
 * rep with noise of +-amp ns. h < 0: every variant the same time.
 */
static void make_input(struct probe_input *in, int h, double amp, int reps)
{
	const struct tlb_geometry *zen4 = tlb_geometry_find("zen4");
	uint64_t s = 42;
	int sp, v, r;

	memset(in, 0, sizeof(*in));
	in->base = zen4;
	in->nr_spans = probe_spans(zen4, 2 * MIB, in->span, PROBE_MAX_SPANS);
	in->nr_reps = reps;
	in->seed = 1;
	in->boots = 400;
	for (sp = 0; sp < in->nr_spans; sp++)
		for (v = 0; v < PROBE_NR_VARIANTS; v++) {
			double miss[2] = { 0, 0 }, t;

			ideal_layout((enum probe_variant)v, in->span[sp], &in->layout[sp][v]);
			if (h >= 0 && tlb_probe_miss(zen4, h, 3, 3, &in->layout[sp][v], miss))
				FAIL_AT("model refused span %llu variant %d", in->span[sp], v);
			t = 100 + 8 * miss[0] + 40 * miss[1];
			for (r = 0; r < reps; r++)
				in->ns[sp][v][r] = t + amp * noise(&s);
		}
}

/* zen4: L1 72 entries, L2 3072: the L1 span 2 MiB (512 pages: 128 4-merged
 * entries overflow 72, 64 8-merged fit), the L2 span 72 MiB (18432 pages:
 * 4608 against 2304), the control 24 MiB (1536 4-merged entries fit). */
TEST(spans_from_the_geometry)
{
	unsigned long long spans[PROBE_MAX_SPANS];
	int n = probe_spans(tlb_geometry_find("zen4"), 2 * MIB, spans, PROBE_MAX_SPANS);

	ASSERT_EQ(n, 3);
	EXPECT_EQ(spans[0], 2 * MIB);
	EXPECT_EQ(spans[1], 24 * MIB);
	EXPECT_EQ(spans[2], 72 * MIB);
	/* Intel's 96 / 2048: 2 MiB, 16 MiB, 48 MiB */
	n = probe_spans(tlb_geometry_find("sapphire-rapids"), 2 * MIB, spans, PROBE_MAX_SPANS);
	ASSERT_EQ(n, 3);
	EXPECT_EQ(spans[0], 2 * MIB);
	EXPECT_EQ(spans[1], 16 * MIB);
	EXPECT_EQ(spans[2], 48 * MIB);
}

static void expect_tells(int h)
{
	struct probe_input in;
	struct probe_result r;

	make_input(&in, h, 0.3, 6);
	ASSERT_EQ(tlb_probe_infer(&in, &r), 0);
	EXPECT_EQ((int)r.verdict, (int)PROBE_TELLS);
	EXPECT_EQ(probe_hyp_pages[r.best], probe_hyp_pages[h]);
	EXPECT_TRUE(r.support[h] >= PROBE_MIN_SUPPORT);
	EXPECT_EQ(r.merge_lo, probe_hyp_pages[h]);
	EXPECT_EQ(r.merge_hi, probe_hyp_pages[h]);
	/* the table's capacities made the times: found, inside the interval */
	EXPECT_NEAR(r.capacity[1], 3072.0, 1e-9);
	EXPECT_TRUE(r.capacity_lo[1] <= 3072.0 && r.capacity_hi[1] >= 3072.0);
	printf("  truth %u: support %.2f, misfits %.1f %.1f %.1f %.1f\n", probe_hyp_pages[h],
	       r.support[h], r.misfit[0], r.misfit[1], r.misfit[2], r.misfit[3]);
}

TEST(times_that_fit_8)
{
	expect_tells(2);
}

TEST(times_that_fit_4)
{
	expect_tells(1);
}

TEST(times_that_fit_none)
{
	expect_tells(0);
}

TEST(times_that_fit_16)
{
	expect_tells(3);
}

/* every variant the same time: nothing to tell the hypotheses apart */
TEST(flat_cannot_tell)
{
	struct probe_input in;
	struct probe_result r;

	make_input(&in, -1, 0.3, 6);
	ASSERT_EQ(tlb_probe_infer(&in, &r), 0);
	EXPECT_EQ((int)r.verdict, (int)PROBE_FLAT);
}

/* 8-page steps under noise ten times their size: cannot tell */
TEST(noise_cannot_tell)
{
	struct probe_input in;
	struct probe_result r;

	make_input(&in, 2, 60.0, 4);
	ASSERT_EQ(tlb_probe_infer(&in, &r), 0);
	EXPECT_TRUE(r.verdict == PROBE_AMBIGUOUS || r.verdict == PROBE_FLAT);
	printf("  verdict %d, support of 8: %.2f\n", (int)r.verdict, r.support[2]);
}

/* the order-3 folios came out scattered: 4 and 8 predict the same, so
 * even clean times cannot separate them (nor say the 4-merged ones from
 * 16 at order 4, which is scattered too) */
TEST(scatter_cannot_tell)
{
	struct probe_input in;
	struct probe_result r;
	int sp, k;

	make_input(&in, 1, 0.3, 6);
	for (sp = 0; sp < in.nr_spans; sp++) {
		for (k = 3; k <= 9; k++) {
			in.layout[sp][PROBE_O3].contig[k] = in.layout[sp][PROBE_O3].folio[k] = 0;
			in.layout[sp][PROBE_O4].contig[k] = in.layout[sp][PROBE_O4].folio[k] = 0;
			in.layout[sp][PROBE_C0].contig[k] = in.layout[sp][PROBE_C0].folio[k] = 0;
		}
	}
	ASSERT_EQ(tlb_probe_infer(&in, &r), 0);
	EXPECT_TRUE(r.scattered[PROBE_O3]);
	EXPECT_EQ((int)r.verdict, (int)PROBE_AMBIGUOUS);
}

TEST(too_few_reps)
{
	struct probe_input in;
	struct probe_result r;

	make_input(&in, 2, 0.3, 2);
	ASSERT_EQ(tlb_probe_infer(&in, &r), 0);
	EXPECT_EQ((int)r.verdict, (int)PROBE_TOO_FEW);
}

/* the geometry the result describes reads back from its file form */
TEST(geometry_of_the_result)
{
	struct probe_input in;
	struct probe_result r;
	struct tlb_geometry g, back;
	char text[2048], err[256];
	int n;

	make_input(&in, 2, 0.3, 6);
	ASSERT_EQ(tlb_probe_infer(&in, &r), 0);
	tlb_probe_geometry(&in, &r, "measured", "probe", "measured here: test", &g);
	EXPECT_EQ(tlb_merge_set(&g), 12u);
	n = tlb_geometry_format(&g, text, sizeof(text));
	ASSERT_TRUE(n > 0);
	ASSERT_EQ(tlb_geometry_parse(text, (size_t)n, "t", &back, err, sizeof(err)), 0);
	EXPECT_EQ(tlb_merge_set(&back), 12u);
	EXPECT_EQ(back.level[1].entries, 3072u);
	EXPECT_STREQ(back.merge_cite, "measured here: test");
	tlb_geometry_release(&back);
}

HARNESS_MAIN

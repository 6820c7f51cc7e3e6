// SPDX-License-Identifier: GPL-2.0
/*
 * sroce's per-byte primitives, chosen by measurement when the module loads:
 * the CRC-32 of the ICRC and the payload copy.
 *
 * CRC-32: the kernel's crc32_le(), the crypto API's "crc32" (on x86 the
 * carry-less-multiply crc32-pclmul) or the protocol core's slicing-by-8
 * tables, whichever is fastest here. Kernels before the CRC library rework
 * (6.1, 6.12) compute crc32_le() with tables; their crypto API offers a
 * PCLMULQDQ version of the same CRC. Newer kernels compute crc32_le()
 * itself with PCLMULQDQ where the CPU has it. That is many times faster on
 * hardware, but QEMU's TCG emulates the instruction slowly, and there the
 * tables win by about two to one.
 *
 * Copy: memcpy() or a loop of word moves (sroce_copy(), sroce.h). Where
 * the CPU has ERMS, 6.1's memcpy() is one "rep movsb", which TCG runs a
 * byte per emulated iteration, about a tenth of the loop's rate; on
 * hardware and on later kernels memcpy() is at least as fast.
 *
 * Each candidate is timed on a 16 KiB buffer, the best of a few rounds. The
 * crc and copy parameters force a choice ("auto", "lib", "shash", "table";
 * "auto", "memcpy", "words"), also at run time; /sys/kernel/debug/sroce/crc
 * shows the measurements and the choices.
 */
#include <crypto/hash.h>
#include <linux/crc32.h>
#include <linux/jump_label.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "sroce.h"
#include "crc.h"
#include "sroce_copy.h"
#include "sroce_icrc.h"

/* below this the call overhead of the crypto API outweighs any speed-up */
#define SROCE_CRC_SHASH_MIN	256
#define SROCE_CRC_CAL_LEN	16384
#define SROCE_CRC_CAL_ROUNDS	4

enum sroce_crc_mode {
	SROCE_CRC_AUTO,
	SROCE_CRC_LIB,
	SROCE_CRC_SHASH,
	SROCE_CRC_TABLE,
};

static const char * const sroce_crc_mode_names[] = {
	[SROCE_CRC_AUTO]	= "auto",
	[SROCE_CRC_LIB]		= "lib",
	[SROCE_CRC_SHASH]	= "shash",
	[SROCE_CRC_TABLE]	= "table",
};

enum sroce_copy_mode {
	SROCE_COPY_AUTO,
	SROCE_COPY_MEMCPY,
	SROCE_COPY_WORDS,
};

static const char * const sroce_copy_mode_names[] = {
	[SROCE_COPY_AUTO]	= "auto",
	[SROCE_COPY_MEMCPY]	= "memcpy",
	[SROCE_COPY_WORDS]	= "words",
};

DEFINE_STATIC_KEY_FALSE(sroce_copy_use_words);
static unsigned int sroce_copy_mode;	/* enum sroce_copy_mode */
static u64 sroce_copy_words_mbs;

static DEFINE_STATIC_KEY_FALSE(sroce_crc_use_shash);
static DEFINE_STATIC_KEY_FALSE(sroce_crc_use_table);
static DEFINE_MUTEX(sroce_crc_lock);
static struct crypto_shash *sroce_crc_tfm;
static unsigned int sroce_crc_mode;	/* enum sroce_crc_mode */
/*
 * calibration: MB/s of each, 0 = not measured; and of memcpy() over the
 * same bytes, the floor a CRC is measured against (performance.rst)
 */
static u64 sroce_crc_lib_mbs, sroce_crc_shash_mbs, sroce_crc_table_mbs;
static u64 sroce_crc_copy_mbs;
static bool sroce_crc_ready;

/*
 * The descriptor of a "crc32" update: its state is the raw u32 (checked at
 * load), so a small one on the stack does instead of SHASH_DESC_ON_STACK's
 * few hundred bytes in the receive path.
 */
#define SROCE_CRC_DESCSIZE	8

static u32 sroce_crc32_shash(u32 crc, const u8 *p, size_t len)
{
	char buf[sizeof(struct shash_desc) + SROCE_CRC_DESCSIZE]
		__aligned(__alignof__(struct shash_desc));
	struct shash_desc *desc = (struct shash_desc *)buf;

	desc->tfm = sroce_crc_tfm;
	if (crypto_shash_import(desc, &crc) ||
	    crypto_shash_update(desc, p, len) ||
	    crypto_shash_export(desc, &crc))
		return crc32_le(crc, p, len);
	return crc;
}

/**
 * sroce_crc32_le() - raw reflected CRC-32 update (see sroce_icrc.h)
 * @crc: running value
 * @p: data
 * @len: bytes at @p
 *
 * Callable in any context; both implementations give the same value.
 *
 * Return: the updated value.
 */
u32 sroce_crc32_le(u32 crc, const u8 *p, size_t len)
{
	if (static_branch_unlikely(&sroce_crc_use_table))
		return sroce_crc32_table(crc, p, len);
	if (static_branch_unlikely(&sroce_crc_use_shash) &&
	    len >= SROCE_CRC_SHASH_MIN)
		return sroce_crc32_shash(crc, p, len);
	return crc32_le(crc, p, len);
}

enum sroce_cal_what {
	SROCE_CAL_CRC,
	SROCE_CAL_MEMCPY,
	SROCE_CAL_WORDS,
};

/*
 * MB/s of CRC @fn over @buf (of SROCE_CRC_CAL_LEN bytes), or of a copy of
 * @buf to @dst; the best of a few rounds
 */
static u64 sroce_crc_rate(enum sroce_cal_what what,
			  u32 (*fn)(u32, const u8 *, size_t), const u8 *buf,
			  u8 *dst, u32 *out)
{
	u64 best = U64_MAX;
	int i;

	for (i = 0; i < SROCE_CRC_CAL_ROUNDS; i++) {
		u64 t = ktime_get_ns();

		if (what == SROCE_CAL_CRC)
			*out = fn(~0u, buf, SROCE_CRC_CAL_LEN);
		else if (what == SROCE_CAL_MEMCPY)
			memcpy(dst, buf, SROCE_CRC_CAL_LEN);
		else
			sroce_copy_words(dst, buf, SROCE_CRC_CAL_LEN);
		t = ktime_get_ns() - t;
		best = min(best, t);
		cond_resched();
	}
	/* bytes per ns * 1000 = MB/s */
	return div64_u64((u64)SROCE_CRC_CAL_LEN * 1000, max_t(u64, best, 1));
}

static u32 sroce_crc32_lib(u32 crc, const u8 *p, size_t len)
{
	return crc32_le(crc, p, len);
}

/* time each on the same data; one that disagrees with crc32_le() is not used */
static void sroce_crc_calibrate(void)
{
	u32 lib, sh = 0, tab;
	u8 *buf;
	int i;

	buf = kmalloc(2 * SROCE_CRC_CAL_LEN, GFP_KERNEL);
	if (!buf) {
		/* unchecked against crc32_le(): never used, even when forced */
		if (sroce_crc_tfm)
			crypto_free_shash(sroce_crc_tfm);
		sroce_crc_tfm = NULL;
		return;
	}
	for (i = 0; i < SROCE_CRC_CAL_LEN; i++)
		buf[i] = (u8)(i * 131 + (i >> 7));
	sroce_crc_copy_mbs = sroce_crc_rate(SROCE_CAL_MEMCPY, NULL, buf,
					    buf + SROCE_CRC_CAL_LEN, &lib);
	sroce_copy_words_mbs = sroce_crc_rate(SROCE_CAL_WORDS, NULL, buf,
					      buf + SROCE_CRC_CAL_LEN, &lib);
	if (memcmp(buf, buf + SROCE_CRC_CAL_LEN, SROCE_CRC_CAL_LEN)) {
		pr_warn_once("sroce: word copy differs from memcpy, not used\n");
		sroce_copy_words_mbs = 0;
	}
	sroce_crc_lib_mbs = sroce_crc_rate(SROCE_CAL_CRC, sroce_crc32_lib, buf,
					   NULL, &lib);
	sroce_crc_table_mbs = sroce_crc_rate(SROCE_CAL_CRC, sroce_crc32_table,
					     buf, NULL, &tab);
	if (tab != lib) {
		pr_warn_once("sroce: table CRC-32 disagrees with crc32_le, not used\n");
		sroce_crc_table_mbs = 0;
	}
	if (sroce_crc_tfm)
		sroce_crc_shash_mbs = sroce_crc_rate(SROCE_CAL_CRC,
						     sroce_crc32_shash, buf,
						     NULL, &sh);
	if (sroce_crc_tfm && sh != lib) {
		pr_warn_once("sroce: crypto %s disagrees with crc32_le, not used\n",
			     crypto_shash_driver_name(sroce_crc_tfm));
		crypto_free_shash(sroce_crc_tfm);
		sroce_crc_tfm = NULL;
		sroce_crc_shash_mbs = 0;
	}
	kfree(buf);
}

/* the implementation sroce_crc_mode asks for, if it is usable */
static enum sroce_crc_mode sroce_crc_pick(void)
{
	switch (sroce_crc_mode) {
	case SROCE_CRC_SHASH:
		return sroce_crc_tfm ? SROCE_CRC_SHASH : SROCE_CRC_LIB;
	case SROCE_CRC_TABLE:
		return sroce_crc_table_mbs ? SROCE_CRC_TABLE : SROCE_CRC_LIB;
	case SROCE_CRC_LIB:
		return SROCE_CRC_LIB;
	default:
		break;
	}
	if (sroce_crc_table_mbs > sroce_crc_lib_mbs &&
	    sroce_crc_table_mbs > sroce_crc_shash_mbs)
		return SROCE_CRC_TABLE;
	if (sroce_crc_tfm && sroce_crc_shash_mbs > sroce_crc_lib_mbs)
		return SROCE_CRC_SHASH;
	return SROCE_CRC_LIB;
}

static enum sroce_crc_mode sroce_crc_using(void)
{
	if (static_key_enabled(&sroce_crc_use_table))
		return SROCE_CRC_TABLE;
	if (static_key_enabled(&sroce_crc_use_shash))
		return SROCE_CRC_SHASH;
	return SROCE_CRC_LIB;
}

static void sroce_crc_apply(void)
{
	enum sroce_crc_mode use = sroce_crc_pick();

	lockdep_assert_held(&sroce_crc_lock);
	/* either order is safe: all three give the same CRC */
	if (use == SROCE_CRC_TABLE)
		static_branch_enable(&sroce_crc_use_table);
	else
		static_branch_disable(&sroce_crc_use_table);
	if (use == SROCE_CRC_SHASH)
		static_branch_enable(&sroce_crc_use_shash);
	else
		static_branch_disable(&sroce_crc_use_shash);
	if (sroce_copy_words_mbs &&
	    (sroce_copy_mode == SROCE_COPY_WORDS ||
	     (sroce_copy_mode == SROCE_COPY_AUTO &&
	      sroce_copy_words_mbs > sroce_crc_copy_mbs)))
		static_branch_enable(&sroce_copy_use_words);
	else
		static_branch_disable(&sroce_copy_use_words);
}

/* a mode parameter: its names, indexed by the mode it stores */
struct sroce_mode_param {
	const char * const *names;
	unsigned int n;
	unsigned int *mode;
};

static int sroce_mode_param_set(const char *val, const struct kernel_param *kp)
{
	const struct sroce_mode_param *p = kp->arg;
	int mode = __sysfs_match_string(p->names, p->n, val);

	if (mode < 0)
		return -EINVAL;
	mutex_lock(&sroce_crc_lock);
	*p->mode = mode;
	/* before init, the module's init applies it */
	if (sroce_crc_ready)
		sroce_crc_apply();
	mutex_unlock(&sroce_crc_lock);
	return 0;
}

static int sroce_mode_param_get(char *buf, const struct kernel_param *kp)
{
	const struct sroce_mode_param *p = kp->arg;

	return sysfs_emit(buf, "%s\n", p->names[*p->mode]);
}

static const struct kernel_param_ops sroce_mode_param_ops = {
	.set = sroce_mode_param_set,
	.get = sroce_mode_param_get,
};

static struct sroce_mode_param sroce_crc_param = {
	sroce_crc_mode_names, ARRAY_SIZE(sroce_crc_mode_names), &sroce_crc_mode,
};
module_param_cb(crc, &sroce_mode_param_ops, &sroce_crc_param, 0644);
MODULE_PARM_DESC(crc,
		 "ICRC CRC-32: auto (the fastest, timed at load), lib (crc32_le), shash (the crypto API's crc32, e.g. crc32-pclmul), table (slicing-by-8)");

static struct sroce_mode_param sroce_copy_param = {
	sroce_copy_mode_names, ARRAY_SIZE(sroce_copy_mode_names), &sroce_copy_mode,
};
module_param_cb(copy, &sroce_mode_param_ops, &sroce_copy_param, 0644);
MODULE_PARM_DESC(copy,
		 "payload copies: auto (the faster, timed at load), memcpy, words (a loop of word moves)");

/* the accelerated crypto "crc32" when the CPU has one */
MODULE_SOFTDEP("pre: crc32-pclmul");

/**
 * sroce_crc_show() - the debugfs crc file: measurement and choice
 * @m: the file
 */
void sroce_crc_show(struct seq_file *m)
{
	mutex_lock(&sroce_crc_lock);
	seq_printf(m, "mode %s using %s\nlib crc32_le %llu MB/s\ntable slicing-by-8 %llu MB/s\n",
		   sroce_crc_mode_names[sroce_crc_mode],
		   sroce_crc_mode_names[sroce_crc_using()],
		   sroce_crc_lib_mbs, sroce_crc_table_mbs);
	if (sroce_crc_tfm)
		seq_printf(m, "shash %s %llu MB/s\n",
			   crypto_shash_driver_name(sroce_crc_tfm),
			   sroce_crc_shash_mbs);
	else
		seq_puts(m, "shash none\n");
	seq_printf(m, "copy memcpy %llu MB/s\ncopy words %llu MB/s\ncopy mode %s using %s\n",
		   sroce_crc_copy_mbs, sroce_copy_words_mbs,
		   sroce_copy_mode_names[sroce_copy_mode],
		   static_key_enabled(&sroce_copy_use_words) ? "words" : "memcpy");
	mutex_unlock(&sroce_crc_lock);
}

void sroce_crc_init_module(void)
{
	struct crypto_shash *tfm;

	sroce_crc32_table_init();
	tfm = crypto_alloc_shash("crc32", 0, 0);
	/* a state other than the raw u32 is not one this file can carry */
	if (!IS_ERR(tfm) && crypto_shash_descsize(tfm) <= SROCE_CRC_DESCSIZE &&
	    crypto_shash_statesize(tfm) == sizeof(u32))
		sroce_crc_tfm = tfm;
	else if (!IS_ERR(tfm))
		crypto_free_shash(tfm);
	sroce_crc_calibrate();
	mutex_lock(&sroce_crc_lock);
	sroce_crc_ready = true;
	sroce_crc_apply();
	mutex_unlock(&sroce_crc_lock);
}

void sroce_crc_exit_module(void)
{
	static_branch_disable(&sroce_copy_use_words);
	static_branch_disable(&sroce_crc_use_table);
	static_branch_disable(&sroce_crc_use_shash);
	if (sroce_crc_tfm)
		crypto_free_shash(sroce_crc_tfm);
	sroce_crc_tfm = NULL;
}

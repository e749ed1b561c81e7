/* The program cache against damaged, swapped and foreign entries (issue 25). Each case runs in
 * its own process with its own cache folder: ArgMax on OpenCL must give the CPU path's answer, the
 * spoiled entry must be replaced by a new valid one, and the next context must load that one. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache_util.h"

#include <criterion/parameterized.h>

/* The entries seed_in read, freed with the folders when the test ends. */
static unsigned char *g_seeded[4];
static int g_nseeded;

static void damage_cleanup(void)
{
    while (g_nseeded > 0)
        free(g_seeded[--g_nseeded]);
    cache_cleanup();
}

TestSuite(cache_damage, .fini = damage_cleanup, .timeout = 120);

/* One program's entry in a cache folder: its path, content and key text. */
typedef struct seeded {
    const char *dir;
    char path[1100];
    unsigned char *data;
    size_t size;
    const char *key;
    size_t key_len;
} seeded;

/* Runs type's ArgMax with the cache in dir and takes the entry it wrote (the one not named
 * skip). */
static void seed_in(seeded *s, const char *dir, clmax_type type, const char *skip)
{
    s->dir = dir;
    cache_seed(dir, type);
    if (skip == NULL)
        cache_one_entry(dir, s->path, sizeof s->path);
    else
        cache_other_entry(dir, skip, s->path, sizeof s->path);
    s->data = file_read(s->path, &s->size);
    cr_assert_lt(g_nseeded, 4, "more entries seeded than kept");
    g_seeded[g_nseeded++] = s->data;
    s->key = entry_check(s->data, s->size, &s->key_len);
}

static void seed(seeded *s)
{
    seed_in(s, cache_fresh(), CLMAX_TYPE_FLOAT32, NULL);
}

/* After s's entry was spoiled: the right answer, a new valid entry with s's key text, loaded by
 * the next context. */
static void expect_rebuilt(const seeded *s)
{
    int fd = entry_hold(s->path);
    cache_run(CLMAX_TYPE_FLOAT32);
    entry_replaced(s->path, fd, s->key, s->key_len);
    entry_loaded_next(s->path, CLMAX_TYPE_FLOAT32);
}

/* ---- 4 KiB of random bytes at 64 offsets from the first byte to the last -------------------- */

#define DAMAGE_OFFSETS 64

ParameterizedTestParameters(cache_damage, random_bytes)
{
    static int index[DAMAGE_OFFSETS];
    for (int i = 0; i < DAMAGE_OFFSETS; i++)
        index[i] = i;
    return cr_make_param_array(int, index, DAMAGE_OFFSETS);
}

ParameterizedTest(int *i, cache_damage, random_bytes)
{
    seeded s;
    seed(&s);
    size_t at = (size_t)((uint64_t)(s.size - 1) * (uint64_t)*i / (DAMAGE_OFFSETS - 1));
    size_t n = s.size - at < 4096 ? s.size - at : 4096;
    unsigned char junk[4096];
    test_rng rng;
    rng_seed(&rng, 2500 + (uint64_t)*i);
    for (size_t j = 0; j < n; j++)
        junk[j] = (unsigned char)rng_next(&rng);
    if (memcmp(junk, s.data + at, n) == 0) junk[0] ^= 1;
    cr_log_info("%zu random bytes at %zu of an entry of %zu bytes", n, at, s.size);
    file_patch(s.path, at, junk, n);
    expect_rebuilt(&s);
}

/* ---- Sizes, zeros, header fields ----------------------------------------------------------- */

/* Cuts the entry to size bytes, or extends it with zeros. */
static void spoil_size(const seeded *s, size_t size)
{
    if (size <= s->size) {
        cr_assert_eq(truncate(s->path, (off_t)size), 0);
        return;
    }
    static const unsigned char zeros[4096];
    cr_assert_leq(size - s->size, sizeof zeros);
    file_patch(s->path, s->size, zeros, size - s->size);
}

/* Sets the header field at offset (bytes wide: 4 or 8) to value, with the checksum made right
 * again, so that only the field is wrong. */
static void spoil_field(const seeded *s, size_t offset, size_t bytes, uint64_t value)
{
    unsigned char *copy = test_malloc(s->size);
    memcpy(copy, s->data, s->size);
    unsigned char v[8];
    put_u64(v, value);
    memcpy(copy + offset, v, bytes);
    entry_reseal(copy, s->size);
    file_patch(s->path, 0, copy, s->size);
    free(copy);
}

/* A case: the entry cut to, or extended with zeros to, the size expr (of the seeded s). */
#define SIZE_TEST(name, expr)                                                                      \
    Test(cache_damage, name)                                                                       \
    {                                                                                              \
        seeded s;                                                                                  \
        seed(&s);                                                                                  \
        spoil_size(&s, (expr));                                                                    \
        expect_rebuilt(&s);                                                                        \
    }
SIZE_TEST(truncated_to_0, 0)
SIZE_TEST(truncated_to_1, 1)
SIZE_TEST(truncated_to_half, s.size / 2)
SIZE_TEST(truncated_by_1, s.size - 1)
SIZE_TEST(extended_by_1, s.size + 1)
SIZE_TEST(extended_by_4096, s.size + 4096)

/* A case: the header field at offset (bytes wide) set to expr. */
#define FIELD_TEST(name, offset, bytes, expr)                                                      \
    Test(cache_damage, name)                                                                       \
    {                                                                                              \
        seeded s;                                                                                  \
        seed(&s);                                                                                  \
        spoil_field(&s, (offset), (bytes), (expr));                                                \
        expect_rebuilt(&s);                                                                        \
    }
FIELD_TEST(key_size_plus_1, 16, 8, s.key_len + 1)
FIELD_TEST(key_size_minus_1, 16, 8, s.key_len - 1)
FIELD_TEST(body_size_plus_1, 24, 8, get_u64(s.data + 24) + 1)
FIELD_TEST(body_size_minus_1, 24, 8, get_u64(s.data + 24) - 1)
FIELD_TEST(key_size_huge, 16, 8, UINT64_MAX - 16)
FIELD_TEST(body_size_huge, 24, 8, (uint64_t)1 << 62)
FIELD_TEST(version_0, 12, 4, 0)
FIELD_TEST(version_2, 12, 4, 2)

Test(cache_damage, zeroed)
{
    seeded s;
    seed(&s);
    unsigned char *zeros = calloc(1, s.size);
    file_patch(s.path, 0, zeros, s.size);
    free(zeros);
    expect_rebuilt(&s);
}

/* ---- Two programs' entries swapped --------------------------------------------------------- */

/* The float32 and int32 programs' entries; both must be rebuilt after their files were forged. */
static void seed_two(seeded *a, seeded *b)
{
    seed(a);
    seed_in(b, a->dir, CLMAX_TYPE_INT32, a->path);
}

static void expect_both_rebuilt(const seeded *a, const seeded *b)
{
    int fa = entry_hold(a->path), fb = entry_hold(b->path);
    clmax_context *ctx = cache_open(NULL);
    cache_check(ctx, CLMAX_TYPE_FLOAT32);
    cache_check(ctx, CLMAX_TYPE_INT32);
    clmax_context_destroy(ctx);
    entry_replaced(a->path, fa, a->key, a->key_len);
    entry_replaced(b->path, fb, b->key, b->key_len);
    entry_loaded_next(a->path, CLMAX_TYPE_FLOAT32);
    entry_loaded_next(b->path, CLMAX_TYPE_INT32);
}

Test(cache_damage, swapped_files)
{
    seeded a, b;
    seed_two(&a, &b);
    file_replace(a.path, b.data, b.size);
    file_replace(b.path, a.data, a.size);
    expect_both_rebuilt(&a, &b);
}

/* Each file keeps its header, key text and checksum, with the other's body. */
static void put_body_of(const seeded *to, const seeded *from)
{
    size_t size;
    unsigned char *e = entry_forge(to->key, to->key_len, from->data + ENTRY_HEAD + from->key_len,
                                   (size_t)get_u64(from->data + 24), &size);
    memcpy(e + size - 8, to->data + to->size - 8, 8);
    file_replace(to->path, e, size);
    free(e);
}

Test(cache_damage, swapped_bodies)
{
    seeded a, b;
    seed_two(&a, &b);
    put_body_of(&a, &b);
    put_body_of(&b, &a);
    expect_both_rebuilt(&a, &b);
}

/* ---- A valid entry of another device or generation under this entry's name ----------------- */

/* s's entry with line (0: scope, 1: generation) of its key text replaced by text, resealed. */
static void forge_key_line(const seeded *s, int line, const char *text)
{
    const char *start = s->key, *end = s->key + s->key_len;
    for (int i = 0; i < line; i++)
        start = memchr(start, '\n', (size_t)(end - start)) + 1;
    const char *stop = memchr(start, '\n', (size_t)(end - start));
    cr_assert(start != NULL && stop != NULL, "key text without three lines");
    char key[4096];
    size_t head = (size_t)(start - s->key), tail = (size_t)(end - stop);
    size_t len = head + strlen(text) + tail;
    cr_assert_lt(len, sizeof key);
    memcpy(key, s->key, head);
    memcpy(key + head, text, strlen(text));
    memcpy(key + head + strlen(text), stop, tail);
    size_t size;
    unsigned char *e = entry_forge(key, len, s->data + ENTRY_HEAD + s->key_len,
                                   (size_t)get_u64(s->data + 24), &size);
    file_replace(s->path, e, size);
    free(e);
}

Test(cache_damage, another_device)
{
    seeded s;
    seed(&s);
    forge_key_line(&s, 0, "Another Platform / Another Device");
    expect_rebuilt(&s);
}

Test(cache_damage, another_generation)
{
    seeded s;
    seed(&s);
    forge_key_line(&s, 1, "clmax 0.0.0 / an older driver");
    expect_rebuilt(&s);
}

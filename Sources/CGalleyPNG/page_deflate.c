// A deflate encoder for the rows of drawn pages, written here beside libdeflate.
//
// Why here: a drawn page is mostly rows equal to the row above, long runs of background and
// few colours per row; a general compressor (libdeflate, zlib) searches for matches of any
// distance at every byte, which was most of a page image's encoding time. This encoder looks,
// at each position, where a page's bytes repeat from: the same column of the row above
// (distance = one filtered row), the pixel before (distance = one pixel: a run of background)
// and, at effort 2 and 3, the last two earlier places of the same 3 bytes (an anti-aliased
// pixel or glyph edge repeated along the text line); it takes the longest match greedily and
// codes the symbols with dynamic Huffman codes rebuilt every 16,384 symbols, or stores a block
// that would not shrink. This is the approach of fpnge (github.com/veluca93/fpnge: runs after
// its row filters, one Huffman table from the image's statistics), but fpnge is not in
// Debian, is compiled for AVX2 and PCLMUL (its SSE4.1 fork too, with no runtime detection) and
// writes only 8-bit RGB(A), where Galley stores text pages as grey or palettes: hence this
// portable C, with no SIMD, over the rows whole_image.c has already packed and filtered.
//
// The output is a zlib stream (RFC 1950/1951); equal input and settings give equal bytes.

#include "page_deflate.h"

#include <libdeflate.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PD_MIN_MATCH 3
#define PD_MAX_MATCH 258
#define PD_WINDOW 32768
#define PD_BLOCK_SYMBOLS (1u << 14) /* symbols per block: 0.4% fewer bytes than 1 << 16 */
#define PD_HASH_BITS 14

/* ---- bits ------------------------------------------------------------------------------ */

typedef struct pd_bits {
    unsigned char *out, *end;
    uint64_t buffer;
    int count;
    int overflow;
} pd_bits;

static inline void pd_put(pd_bits *b, uint32_t value, int bits)
{
    b->buffer |= (uint64_t)value << b->count;
    b->count += bits;
    if (b->count >= 32) {
        if (b->end - b->out < 4) {
            b->overflow = 1;
            b->count -= 32;
            b->buffer >>= 32;
            return;
        }
        b->out[0] = (unsigned char)b->buffer;
        b->out[1] = (unsigned char)(b->buffer >> 8);
        b->out[2] = (unsigned char)(b->buffer >> 16);
        b->out[3] = (unsigned char)(b->buffer >> 24);
        b->out += 4;
        b->buffer >>= 32;
        b->count -= 32;
    }
}

/* Writes out whole bytes and the last partial byte, padded with zeros: the stream is then at a
   byte boundary. */
static void pd_align(pd_bits *b)
{
    while (b->count > 0) {
        if (b->out == b->end) {
            b->overflow = 1;
            break;
        }
        *b->out++ = (unsigned char)b->buffer;
        b->buffer >>= 8;
        b->count -= 8;
    }
    b->buffer = 0;
    b->count = 0;
}

/* ---- Huffman codes --------------------------------------------------------------------- */

/* Code lengths of at most `limit` bits for `n` symbols of the given frequencies. Symbols of
   frequency 0 get length 0, unless fewer than two are used: then symbols 0 and 1 are given
   frequency 1 as needed, so that every code is complete (zlib refuses most incomplete ones).
   Lengths come from a Huffman tree built over the symbols sorted by frequency then number
   (so equal frequencies give equal lengths); a tree deeper than `limit` is rebuilt from
   halved frequencies. */
static void pd_lengths(const uint32_t *freq_in, int n, int limit, uint8_t *lengths)
{
    uint32_t freq[288];
    int used = 0;
    for (int i = 0; i < n; i++) {
        freq[i] = freq_in[i];
        used += freq[i] != 0;
    }
    for (int i = 0; used < 2 && i < n; i++)
        if (freq[i] == 0) {
            freq[i] = 1;
            used++;
        }
    for (;;) {
        /* Sorted leaves: (frequency << 9 | symbol), insertion sort over at most 288. */
        uint64_t leaves[288];
        int m = 0;
        for (int i = 0; i < n; i++) {
            if (!freq[i])
                continue;
            uint64_t key = (uint64_t)freq[i] << 9 | (uint64_t)i;
            int j = m++;
            while (j > 0 && leaves[j - 1] > key) {
                leaves[j] = leaves[j - 1];
                j--;
            }
            leaves[j] = key;
        }
        /* Two-queue construction: leaves in order, internal nodes in the order made. */
        uint64_t weight[576];
        int parent[576];
        for (int i = 0; i < m; i++)
            weight[i] = leaves[i] >> 9;
        int next_leaf = 0, next_node = m, made = m;
        for (int k = 0; k < m - 1; k++) {
            int pick[2];
            for (int p = 0; p < 2; p++) {
                if (next_leaf < m && (next_node == made || weight[next_leaf] <= weight[next_node]))
                    pick[p] = next_leaf++;
                else
                    pick[p] = next_node++;
            }
            weight[made] = weight[pick[0]] + weight[pick[1]];
            parent[pick[0]] = parent[pick[1]] = made;
            made++;
        }
        /* Depths from the root (the last node) down. */
        int depth[576];
        depth[made - 1] = 0;
        for (int i = made - 2; i >= 0; i--)
            depth[i] = depth[parent[i]] + 1;
        int deepest = 0;
        for (int i = 0; i < m; i++)
            deepest = depth[i] > deepest ? depth[i] : deepest;
        if (deepest <= limit) {
            memset(lengths, 0, (size_t)n);
            for (int i = 0; i < m; i++)
                lengths[leaves[i] & 511] = (uint8_t)depth[i];
            return;
        }
        for (int i = 0; i < n; i++)
            if (freq[i])
                freq[i] = (freq[i] >> 1) | 1;
    }
}

/* Canonical codes for the lengths (RFC 1951 3.2.2), bit-reversed for writing LSB first. */
static void pd_codes(const uint8_t *lengths, int n, uint16_t *codes)
{
    uint16_t count[16] = {0}, next[16];
    for (int i = 0; i < n; i++)
        count[lengths[i]]++;
    count[0] = 0;
    uint16_t code = 0;
    for (int bits = 1; bits < 16; bits++) {
        code = (uint16_t)((code + count[bits - 1]) << 1);
        next[bits] = code;
    }
    for (int i = 0; i < n; i++) {
        int len = lengths[i];
        if (!len) {
            codes[i] = 0;
            continue;
        }
        uint16_t c = next[len]++, r = 0;
        for (int b = 0; b < len; b++)
            r = (uint16_t)(r << 1 | ((c >> b) & 1));
        codes[i] = r;
    }
}

/* ---- symbols --------------------------------------------------------------------------- */

/* Length 3...258 -> symbol 257...285 and extra bits; distance 1...32768 -> symbol 0...29. */
static const uint16_t pd_length_base[29] = {3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
                                            35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t pd_length_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
                                            3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t pd_dist_base[30] = {1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193,
                                          257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
                                          8193, 12289, 16385, 24577};
static const uint8_t pd_dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6,
                                          7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

typedef struct pd_tables {
    uint8_t length_symbol[259]; /* index: length; value: symbol - 257 */
    uint8_t dist_low[512];      /* distance - 1 < 512 */
    uint8_t dist_high[256];     /* (distance - 1) >> 7 for distance > 512 */
} pd_tables;

static void pd_make_tables(pd_tables *t)
{
    for (int s = 0; s < 29; s++) {
        int end = s == 28 ? 259 : pd_length_base[s + 1];
        for (int len = pd_length_base[s]; len < end; len++)
            t->length_symbol[len] = (uint8_t)s;
    }
    t->length_symbol[258] = 28;
    for (int s = 0; s < 30; s++) {
        int end = s == 29 ? 32769 : pd_dist_base[s + 1];
        for (int d = pd_dist_base[s]; d < end; d++) {
            if (d - 1 < 512)
                t->dist_low[d - 1] = (uint8_t)s;
            else
                t->dist_high[(d - 1) >> 7] = (uint8_t)s;
        }
    }
}

static inline int pd_dist_symbol(const pd_tables *t, uint32_t dist)
{
    return dist <= 512 ? t->dist_low[dist - 1] : t->dist_high[(dist - 1) >> 7];
}

/* A symbol: a literal byte (bit 31 clear) or a match (bit 31, length - 3 in bits 16-23,
   distance - 1 in bits 0-15). */
#define PD_MATCH(len, dist) (0x80000000u | (uint32_t)((len) - 3) << 16 | (uint32_t)((dist) - 1))

typedef struct pd_block {
    uint32_t *symbols;
    uint32_t count;
    uint32_t litlen_freq[286];
    uint32_t dist_freq[30];
    size_t start;   /* first input byte the block covers */
} pd_block;

static const uint8_t pd_clen_order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};

/* Writes a block: dynamic Huffman, or stored when that is smaller. */
static void pd_write_block(pd_bits *b, const pd_tables *t, pd_block *block, const unsigned char *in,
                           size_t end, int last)
{
    block->litlen_freq[256]++;
    uint8_t lengths[286 + 30];
    uint16_t litlen_codes[286], dist_codes[30];
    pd_lengths(block->litlen_freq, 286, 15, lengths);
    pd_lengths(block->dist_freq, 30, 15, lengths + 286);
    int hlit = 286, hdist = 30;
    while (hlit > 257 && lengths[hlit - 1] == 0)
        hlit--;
    while (hdist > 1 && lengths[286 + hdist - 1] == 0)
        hdist--;
    /* The lengths, run-length coded with symbols 16 (repeat the last 3-6 times), 17 (3-10
       zeros) and 18 (11-138 zeros), over litlen then distance lengths. */
    uint8_t all[286 + 30];
    memcpy(all, lengths, (size_t)hlit);
    memcpy(all + hlit, lengths + 286, (size_t)hdist);
    int total = hlit + hdist;
    uint8_t rle[286 + 30], rle_extra[286 + 30];
    int rle_count = 0;
    uint32_t clen_freq[19] = {0};
    for (int i = 0; i < total;) {
        int value = all[i], run = 1;
        while (i + run < total && all[i + run] == value)
            run++;
        int left = run;
        if (value == 0) {
            while (left >= 11) {
                int r = left > 138 ? 138 : left;
                rle[rle_count] = 18;
                rle_extra[rle_count++] = (uint8_t)(r - 11);
                left -= r;
            }
            if (left >= 3) {
                rle[rle_count] = 17;
                rle_extra[rle_count++] = (uint8_t)(left - 3);
                left = 0;
            }
        } else {
            rle[rle_count] = (uint8_t)value;
            rle_extra[rle_count++] = 0;
            left--;
            while (left >= 3) {
                int r = left > 6 ? 6 : left;
                rle[rle_count] = 16;
                rle_extra[rle_count++] = (uint8_t)(r - 3);
                left -= r;
            }
        }
        while (left-- > 0) {
            rle[rle_count] = (uint8_t)value;
            rle_extra[rle_count++] = 0;
        }
        i += run;
    }
    for (int i = 0; i < rle_count; i++)
        clen_freq[rle[i]]++;
    uint8_t clen_lengths[19];
    uint16_t clen_codes[19];
    pd_lengths(clen_freq, 19, 7, clen_lengths);
    pd_codes(clen_lengths, 19, clen_codes);
    int hclen = 19;
    while (hclen > 4 && clen_lengths[pd_clen_order[hclen - 1]] == 0)
        hclen--;

    /* Sizes in bits: dynamic against stored. */
    uint64_t dynamic = 3 + 5 + 5 + 4 + 3 * (uint64_t)hclen;
    for (int i = 0; i < rle_count; i++)
        dynamic += clen_lengths[rle[i]] + (rle[i] == 16 ? 2 : rle[i] == 17 ? 3 : rle[i] == 18 ? 7 : 0);
    for (int s = 0; s < 286; s++)
        dynamic += (uint64_t)block->litlen_freq[s] * (lengths[s] + (s > 256 ? pd_length_extra[s - 257] : 0));
    for (int s = 0; s < 30; s++)
        dynamic += (uint64_t)block->dist_freq[s] * (lengths[286 + s] + pd_dist_extra[s]);
    size_t span = end - block->start;
    uint64_t stored = ((span + 65534) / 65535 + (span == 0)) * 40 + (uint64_t)span * 8 + 7;

    if (stored < dynamic) {
        size_t at = block->start;
        do {
            size_t piece = end - at > 65535 ? 65535 : end - at;
            int final = last && at + piece == end;
            pd_put(b, (uint32_t)final, 3); /* BTYPE 00 */
            pd_align(b);
            if ((size_t)(b->end - b->out) < 4 + piece) {
                b->overflow = 1;
                return;
            }
            b->out[0] = (unsigned char)piece;
            b->out[1] = (unsigned char)(piece >> 8);
            b->out[2] = (unsigned char)~piece;
            b->out[3] = (unsigned char)(~piece >> 8);
            memcpy(b->out + 4, in + at, piece);
            b->out += 4 + piece;
            at += piece;
        } while (at < end);
        return;
    }

    pd_codes(lengths, 286, litlen_codes);
    pd_codes(lengths + 286, 30, dist_codes);
    pd_put(b, (uint32_t)last | 2u << 1, 3); /* BFINAL, BTYPE 10 */
    pd_put(b, (uint32_t)(hlit - 257), 5);
    pd_put(b, (uint32_t)(hdist - 1), 5);
    pd_put(b, (uint32_t)(hclen - 4), 4);
    for (int i = 0; i < hclen; i++)
        pd_put(b, clen_lengths[pd_clen_order[i]], 3);
    for (int i = 0; i < rle_count; i++) {
        pd_put(b, clen_codes[rle[i]], clen_lengths[rle[i]]);
        if (rle[i] >= 16)
            pd_put(b, rle_extra[i], rle[i] == 16 ? 2 : rle[i] == 17 ? 3 : 7);
    }
    const uint8_t *dist_lengths = lengths + 286;
    for (uint32_t i = 0; i < block->count && !b->overflow; i++) {
        uint32_t s = block->symbols[i];
        if (!(s & 0x80000000u)) {
            pd_put(b, litlen_codes[s], lengths[s]);
            continue;
        }
        uint32_t len = ((s >> 16) & 0xFF) + 3, dist = (s & 0xFFFF) + 1;
        int ls = t->length_symbol[len], ds = pd_dist_symbol(t, dist);
        /* At most 15 + 5 + 15 + 13 bits: two puts keep each under 32. */
        pd_put(b, (uint32_t)litlen_codes[257 + ls] | (uint32_t)(len - pd_length_base[ls]) << lengths[257 + ls],
               lengths[257 + ls] + pd_length_extra[ls]);
        pd_put(b, (uint32_t)dist_codes[ds] | (dist - pd_dist_base[ds]) << dist_lengths[ds],
               dist_lengths[ds] + pd_dist_extra[ds]);
    }
    pd_put(b, litlen_codes[256], lengths[256]);
}

/* ---- matching -------------------------------------------------------------------------- */

/* How many bytes from `a` equal those from `b`, at most `limit`. */
static inline uint32_t pd_match_length(const unsigned char *a, const unsigned char *b, uint32_t limit)
{
    uint32_t n = 0;
    while (n + 8 <= limit) {
        uint64_t x, y;
        memcpy(&x, a + n, 8);
        memcpy(&y, b + n, 8);
        uint64_t diff = x ^ y;
        if (diff) {
#if defined(__GNUC__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            return n + (uint32_t)(__builtin_ctzll(diff) >> 3);
#else
            break;
#endif
        }
        n += 8;
    }
    while (n < limit && a[n] == b[n])
        n++;
    return n;
}

/* A hash of the 3 bytes at `p`: three bytes are one RGB pixel, and matching one anti-aliased
   pixel elsewhere made RGB pages 5% smaller than hashing four bytes did. Assembled byte by
   byte so that every machine finds the same matches. */
static inline uint32_t pd_hash(const unsigned char *p)
{
    uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
    return (v * 2654435761u) >> (32 - PD_HASH_BITS);
}

size_t gp_page_deflate_bound(size_t length)
{
    /* Every block is at most its stored form plus a partial byte; a block covers at least
       PD_BLOCK_SYMBOLS bytes unless it is the last. */
    return 2 + 4 + length + 5 * (length / 65535 + 2 * (length / PD_BLOCK_SYMBOLS) + 2) + 64;
}

size_t gp_page_deflate(const unsigned char *in, size_t length, size_t row, size_t pixel, int effort,
                       unsigned char *out, size_t capacity)
{
    if (capacity < 6)
        return 0;
    pd_tables *tables = malloc(sizeof *tables);
    pd_block block = {0};
    block.symbols = malloc(PD_BLOCK_SYMBOLS * sizeof *block.symbols);
    /* Two earlier positions (+ 1; 0 is none) per hash of 3 bytes, the newest first. */
    uint32_t *heads = effort >= 2 ? calloc((size_t)2 << PD_HASH_BITS, sizeof *heads) : NULL;
    if (!tables || !block.symbols || (effort >= 2 && !heads)) {
        free(tables);
        free(block.symbols);
        free(heads);
        return 0;
    }
    pd_make_tables(tables);
    pd_bits b = {out, out + capacity, 0, 0, 0};
    out[0] = 0x78; /* deflate, 32 KB window */
    out[1] = 0x01; /* fastest compression; 0x7801 is a multiple of 31 */
    b.out += 2;

    size_t up = row >= 1 && row <= PD_WINDOW ? row : 0;   /* 0: no matches with the row above */
    size_t left = pixel >= 1 && pixel <= PD_WINDOW ? pixel : 1;
    /* A match found by the hash is taken from 3 bytes in RGB(A) rows (one pixel), from 5 in
       rows of one-byte pixels: three grey or palette pixels that happen to recur in a scan's
       noise cost more as a far match than as literals (a scanned page: 21% larger with 3). */
    uint32_t hash_min = pixel >= 3 ? 3 : 5;
    size_t i = 0;
    while (i < length && !b.overflow) {
        uint32_t limit = length - i < PD_MAX_MATCH ? (uint32_t)(length - i) : PD_MAX_MATCH;
        uint32_t best = 0, dist = 0;
        if (limit >= PD_MIN_MATCH) {
            if (i >= left) {
                best = pd_match_length(in + i, in + i - left, limit);
                dist = (uint32_t)left;
            }
            if (up && i >= up && best < limit) {
                uint32_t n = pd_match_length(in + i, in + i - up, limit);
                if (n > best) {
                    best = n;
                    dist = (uint32_t)up;
                }
            }
            /* A short match of the two: look further back. The positions are kept modulo
               2^32, and a match is taken only after its bytes are compared. */
            if (heads && best < 16 && limit >= 4) {
                uint32_t *bucket = heads + 2 * pd_hash(in + i);
                for (int k = 0; k < 2; k++) {
                    uint32_t candidate = bucket[k];
                    if (candidate && i - (candidate - 1) <= PD_WINDOW) {
                        size_t from = candidate - 1;
                        uint32_t n = pd_match_length(in + i, in + from, limit);
                        if (n > best + 1 && n >= hash_min) {
                            best = n;
                            dist = (uint32_t)(i - from);
                        }
                    }
                }
                bucket[1] = bucket[0];
                bucket[0] = (uint32_t)i + 1;
            }
        }
        if (best >= PD_MIN_MATCH) {
            block.symbols[block.count++] = PD_MATCH(best, dist);
            block.litlen_freq[257 + tables->length_symbol[best]]++;
            block.dist_freq[pd_dist_symbol(tables, dist)]++;
            /* At effort 3 the places inside a short match are hashed too. */
            if (heads && effort >= 3 && best <= 32 && i + best + 4 <= length)
                for (size_t k = i + 1; k < i + best; k++) {
                    uint32_t *bucket = heads + 2 * pd_hash(in + k);
                    bucket[1] = bucket[0];
                    bucket[0] = (uint32_t)k + 1;
                }
            i += best;
        } else {
            block.symbols[block.count++] = in[i];
            block.litlen_freq[in[i]]++;
            i++;
        }
        if (block.count == PD_BLOCK_SYMBOLS && i < length) {
            pd_write_block(&b, tables, &block, in, i, 0);
            block.count = 0;
            memset(block.litlen_freq, 0, sizeof block.litlen_freq);
            memset(block.dist_freq, 0, sizeof block.dist_freq);
            block.start = i;
        }
    }
    if (!b.overflow)
        pd_write_block(&b, tables, &block, in, length, 1);
    pd_align(&b);
    free(tables);
    free(block.symbols);
    free(heads);
    if (b.overflow || b.end - b.out < 4)
        return 0;
    uint32_t adler = libdeflate_adler32(1, in, length);
    b.out[0] = (unsigned char)(adler >> 24);
    b.out[1] = (unsigned char)(adler >> 16);
    b.out[2] = (unsigned char)(adler >> 8);
    b.out[3] = (unsigned char)adler;
    b.out += 4;
    return (size_t)(b.out - out);
}

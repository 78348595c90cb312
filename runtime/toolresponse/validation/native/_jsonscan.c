/*
 * toolresponse.validation.native._jsonscan: what a JSON parser's value no longer shows, read
 * from the text without building the value.
 *
 * orjson keeps the last of two equal member names silently, and when it
 * rejects a text it gives an offset, not the JSON pointer of the member it was
 * reading. The Python scans of toolresponse.validation._ijson answer both questions
 * exactly but cost a regular expression and a Python loop per token; these
 * two functions give the same answers (the test suite checks it on generated
 * texts and every prefix of them):
 *
 *   first_duplicate(data, max_depth)
 *       For well-formed JSON text: None when no object repeats a member name,
 *       else (offset, path): the byte offset of the repeated name's opening
 *       quote and the instance path that ends with that name. ValueError when
 *       objects nest deeper than max_depth.
 *
 *   path_at(data, end, max_depth)
 *       For text well-formed up to byte `end` (where a parser stopped): the
 *       path of the member or item being read there, or None when it lies
 *       deeper than max_depth. A member name cut off at `end` names nothing
 *       yet, and the object is the place.
 *
 *   first_noncharacter(data)
 *       The byte offset of the first noncharacter (U+FDD0-U+FDEF, and U+FFFE and U+FFFF of
 *       every plane) in the UTF-8 text `data`, raw or written as an escape (\uFFFE, or a
 *       surrogate pair such as \uD83F\uDFFE), or None. At an escape the offset is that of
 *       its backslash. I-JSON (RFC 7493 section 2.1) allows none of them.
 *
 *   lines_with_noncharacters(lines)
 *       The indexes of the lines (a list of bytes) that first_noncharacter finds one in.
 *
 *   triage(lines, loads, decode_error, verdict, max_depth, keep)
 *       The validator's loop over a batch of lines, each decoded by `loads`, scanned by the
 *       two scans above and judged by `verdict`, without a turn of the interpreter per line:
 *       (accepted, entries), an entry (index, kind, found) for each line that needs a second
 *       look (kinds as in jsonscan.py: refused, suspect, unreadable; and accepted with `keep`).
 *
 * Paths are tuples of str (member names, escapes decoded) and int (indexes).
 * Member names are compared after decoding their escapes ("\u0061" is "a");
 * a lone surrogate escape decodes to its three-byte form, as Python's
 * "surrogatepass" reads it.
 *
 * first_duplicate runs on every line the validator reads, so it reads 64
 * bytes at a time: a name belongs to the innermost open object and a string
 * is a name exactly when a colon follows it, so outside strings only braces
 * and colons matter. Each block becomes bit masks (quotes, backslashes,
 * braces, colons; with SSE2 where the processor has it); a quote after an
 * odd run of backslashes is escaped; the bits inside strings are the running
 * parity of the other quotes; and only the braces and colons outside strings
 * are visited, in order. Where a repeated name is found, path_at's scan gives
 * its path. path_at reads byte by byte (it runs once per malformed text).
 *
 * On bytes that break the precondition both still return (an answer that
 * means nothing, never a read out of bounds), and both release the GIL while
 * they scan a large text. Memory is bounded by max_depth and the size of the
 * text; no object costs more than linear time (past LINEAR_NAMES names, an
 * object's names are looked up in a hash table).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>
#if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
#define HAVE_SSE2 1
#include <emmintrin.h>
#endif
#if defined(_MSC_VER)
#include <intrin.h>
#endif

#define INLINE_FRAMES 64
#define INLINE_NAMES 64
#define LINEAR_NAMES 16 /* an object with more names than this looks them up in a hash table */
#define BLOCK 64
#define RELEASE_GIL_BYTES (1 << 16) /* a text longer than this is scanned without the GIL */

/* A member name: its bytes in the text, or, when it had escapes, decoded in the arena. */
typedef struct {
    Py_ssize_t start;
    Py_ssize_t length;
    uint64_t head; /* its first eight bytes (fewer, zero-padded): most names differ there */
    int in_arena;
} Name;

/* One open object (first_duplicate), or array or object (path_at). */
typedef struct {
    int is_object;
    int expecting_name; /* path_at: after "{" or a comma of an object */
    Py_ssize_t index;   /* path_at, arrays: the current item */
    Name name;          /* path_at, objects: the current member's name */
    uint64_t serial;    /* first_duplicate: distinct for every object of one scan */
    int hashed;         /* first_duplicate: past LINEAR_NAMES names, which are in the table */
    Py_ssize_t names_start; /* first_duplicate: where its names are on the names stack */
} Frame;

/* A name of a large object: the table is keyed by (serial, decoded name). */
typedef struct {
    uint64_t hash; /* 0: an empty slot */
    uint64_t serial;
    Name name;
} Entry;

typedef struct {
    const unsigned char *text;
    Py_ssize_t max_depth;

    Frame *frames;
    Py_ssize_t depth; /* open frames; only the first max_depth + 1 are stored */
    Py_ssize_t frames_capacity;
    uint64_t serials;

    /* first_duplicate: the names of the open objects that are not hashed, object after object,
     * and one slot more, for the name being read. */
    Name *names;
    Py_ssize_t names_count;
    Py_ssize_t names_capacity;
    Py_ssize_t last_event; /* the last brace or colon find_names visited (-1: none yet) */

    Entry *table; /* NULL until an object needs it */
    size_t table_capacity; /* a power of two */
    size_t table_count;

    unsigned char *arena;
    Py_ssize_t arena_size;
    Py_ssize_t arena_capacity;

    Frame inline_frames[INLINE_FRAMES];
    Name inline_names[INLINE_NAMES];
} Scan;

typedef enum {
    SCAN_DONE,      /* reached the end */
    SCAN_DUPLICATE, /* a repeated name; `found` holds its offset */
    SCAN_TOO_DEEP,  /* objects nested beyond max_depth (first_duplicate) */
    SCAN_NO_MEMORY,
} Outcome;

static void
scan_init(Scan *scan, const unsigned char *text, Py_ssize_t max_depth)
{
    scan->text = text;
    scan->max_depth = max_depth;
    scan->frames = scan->inline_frames;
    scan->depth = 0;
    scan->frames_capacity = INLINE_FRAMES;
    scan->serials = 0;
    scan->names = scan->inline_names;
    scan->names_count = 0;
    scan->names_capacity = INLINE_NAMES;
    scan->last_event = -1;
    scan->table = NULL;
    scan->table_capacity = 0;
    scan->table_count = 0;
    scan->arena = NULL;
    scan->arena_size = 0;
    scan->arena_capacity = 0;
}

static void
scan_free(Scan *scan)
{
    if (scan->frames != scan->inline_frames) {
        PyMem_RawFree(scan->frames);
    }
    if (scan->names != scan->inline_names) {
        PyMem_RawFree(scan->names);
    }
    PyMem_RawFree(scan->table);
    PyMem_RawFree(scan->arena);
}

/* Room for item `count` of a stack that starts in `inline_items`; -1 without memory. */
static int
reserve(void **items, Py_ssize_t count, Py_ssize_t *capacity, void *inline_items, size_t size)
{
    if (count < *capacity) {
        return 0;
    }
    if (*capacity > PY_SSIZE_T_MAX / 2 / (Py_ssize_t)size) {
        return -1;
    }
    Py_ssize_t grown_capacity = *capacity * 2;
    void *grown = PyMem_RawMalloc((size_t)grown_capacity * size);
    if (grown == NULL) {
        return -1;
    }
    memcpy(grown, *items, (size_t)count * size);
    if (*items != inline_items) {
        PyMem_RawFree(*items);
    }
    *items = grown;
    *capacity = grown_capacity;
    return 0;
}

static int
arena_reserve(Scan *scan, Py_ssize_t more)
{
    if (scan->arena_size + more <= scan->arena_capacity) {
        return 0;
    }
    Py_ssize_t capacity = scan->arena_capacity ? scan->arena_capacity : 256;
    while (capacity < scan->arena_size + more) {
        if (capacity > PY_SSIZE_T_MAX / 2) {
            return -1;
        }
        capacity *= 2;
    }
    unsigned char *grown = PyMem_RawRealloc(scan->arena, (size_t)capacity);
    if (grown == NULL) {
        return -1;
    }
    scan->arena = grown;
    scan->arena_capacity = capacity;
    return 0;
}

static const unsigned char *
name_bytes(const Scan *scan, const Name *name)
{
    return (name->in_arena ? scan->arena : scan->text) + name->start;
}

/* The first eight bytes of a name (fewer, zero-padded), assembled in a register. */
static inline uint64_t
head_of(const unsigned char *bytes, Py_ssize_t length)
{
    uint64_t head = 0;
    if (length >= 8) {
        memcpy(&head, bytes, 8);
        return head;
    }
    for (Py_ssize_t i = 0; i < length; i++) {
        head |= (uint64_t)bytes[i] << (8 * i);
    }
    return head;
}

static int
hex_value(unsigned char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

/* The code unit of the \uXXXX escape at `at`, or -1 if there is none. */
static long
unicode_escape(const unsigned char *at, const unsigned char *end)
{
    if (end - at < 6 || at[0] != '\\' || at[1] != 'u') {
        return -1;
    }
    long unit = 0;
    for (int i = 2; i < 6; i++) {
        int digit = hex_value(at[i]);
        if (digit < 0) {
            return -1;
        }
        unit = unit * 16 + digit;
    }
    return unit;
}

static unsigned char *
put_utf8(unsigned char *out, long code)
{
    if (code < 0x80) {
        *out++ = (unsigned char)code;
    }
    else if (code < 0x800) {
        *out++ = (unsigned char)(0xC0 | (code >> 6));
        *out++ = (unsigned char)(0x80 | (code & 0x3F));
    }
    else if (code < 0x10000) {
        *out++ = (unsigned char)(0xE0 | (code >> 12));
        *out++ = (unsigned char)(0x80 | ((code >> 6) & 0x3F));
        *out++ = (unsigned char)(0x80 | (code & 0x3F));
    }
    else {
        *out++ = (unsigned char)(0xF0 | (code >> 18));
        *out++ = (unsigned char)(0x80 | ((code >> 12) & 0x3F));
        *out++ = (unsigned char)(0x80 | ((code >> 6) & 0x3F));
        *out++ = (unsigned char)(0x80 | (code & 0x3F));
    }
    return out;
}

/* Decode the escapes of the string content [from, to) into the arena (UTF-8 never grows). */
static int
decode_name(Scan *scan, const unsigned char *from, const unsigned char *to, Name *name)
{
    if (arena_reserve(scan, to - from) < 0) {
        return -1;
    }
    unsigned char *start = scan->arena + scan->arena_size;
    unsigned char *out = start;
    const unsigned char *p = from;
    while (p < to) {
        if (*p != '\\' || p + 1 >= to) {
            *out++ = *p++;
            continue;
        }
        unsigned char c = p[1];
        long code = unicode_escape(p, to);
        if (code >= 0) {
            p += 6;
            long low = unicode_escape(p, to);
            if (code >= 0xD800 && code < 0xDC00 && low >= 0xDC00 && low < 0xE000) {
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                p += 6;
            }
            out = put_utf8(out, code);
            continue;
        }
        switch (c) {
            case 'b': *out++ = '\b'; break;
            case 'f': *out++ = '\f'; break;
            case 'n': *out++ = '\n'; break;
            case 'r': *out++ = '\r'; break;
            case 't': *out++ = '\t'; break;
            default: *out++ = c; break; /* \" \\ \/, and anything malformed as itself */
        }
        p += 2;
    }
    name->start = scan->arena_size;
    name->length = out - start;
    name->in_arena = 1;
    scan->arena_size += name->length;
    return 0;
}

static int
names_equal(const Scan *scan, const Name *a, const Name *b)
{
    if (a->length != b->length || a->head != b->head) {
        return 0;
    }
    return a->length <= 8
           || memcmp(name_bytes(scan, a) + 8, name_bytes(scan, b) + 8, (size_t)(a->length - 8)) == 0;
}

/* The key of the name hashes, drawn from os.urandom when the module is loaded: the slots of
 * names are not predictable, so no input can make them collide on purpose. */
static uint64_t hash_key[2];

static inline uint64_t
rotate(uint64_t bits, int by)
{
    return (bits << by) | (bits >> (64 - by));
}

#define SIP_ROUND(v0, v1, v2, v3) \
    do { \
        v0 += v1; v1 = rotate(v1, 13); v1 ^= v0; v0 = rotate(v0, 32); \
        v2 += v3; v3 = rotate(v3, 16); v3 ^= v2; \
        v0 += v3; v3 = rotate(v3, 21); v3 ^= v0; \
        v2 += v1; v1 = rotate(v1, 17); v1 ^= v2; v2 = rotate(v2, 32); \
    } while (0)

/* SipHash-1-3 (the keyed hash CPython gives str and bytes) of `length` bytes under (k0, k1). */
static uint64_t
siphash13(uint64_t k0, uint64_t k1, const unsigned char *bytes, Py_ssize_t length)
{
    uint64_t v0 = k0 ^ 0x736f6d6570736575ULL;
    uint64_t v1 = k1 ^ 0x646f72616e646f6dULL;
    uint64_t v2 = k0 ^ 0x6c7967656e657261ULL;
    uint64_t v3 = k1 ^ 0x7465646279746573ULL;
    Py_ssize_t whole = length - length % 8;
    for (Py_ssize_t at = 0; at < whole; at += 8) {
        uint64_t word = 0;
        for (int i = 0; i < 8; i++) {
            word |= (uint64_t)bytes[at + i] << (8 * i); /* little-endian on any processor */
        }
        v3 ^= word;
        SIP_ROUND(v0, v1, v2, v3);
        v0 ^= word;
    }
    uint64_t last = (uint64_t)length << 56;
    for (Py_ssize_t i = 0; i < length % 8; i++) {
        last |= (uint64_t)bytes[whole + i] << (8 * i);
    }
    v3 ^= last;
    SIP_ROUND(v0, v1, v2, v3);
    v0 ^= last;
    v2 ^= 0xff;
    SIP_ROUND(v0, v1, v2, v3);
    SIP_ROUND(v0, v1, v2, v3);
    SIP_ROUND(v0, v1, v2, v3);
    return v0 ^ v1 ^ v2 ^ v3;
}

/* The hash of `name` in object `serial` (never 0, which marks an empty slot). */
static uint64_t
hash_name(const Scan *scan, const Name *name, uint64_t serial)
{
    return siphash13(hash_key[0] ^ serial, hash_key[1], name_bytes(scan, name), name->length) | 1;
}

static int
table_grow(Scan *scan)
{
    size_t capacity = scan->table_capacity ? scan->table_capacity * 2 : 256;
    Entry *grown = PyMem_RawCalloc(capacity, sizeof(Entry));
    if (grown == NULL) {
        return -1;
    }
    for (size_t i = 0; i < scan->table_capacity; i++) {
        Entry *entry = &scan->table[i];
        if (entry->hash == 0) {
            continue;
        }
        size_t slot = (size_t)entry->hash & (capacity - 1);
        while (grown[slot].hash != 0) {
            slot = (slot + 1) & (capacity - 1);
        }
        grown[slot] = *entry;
    }
    PyMem_RawFree(scan->table);
    scan->table = grown;
    scan->table_capacity = capacity;
    return 0;
}

/* Record `name` in object `serial`: 1 if it is new there, 0 if the object had it, -1 without memory. */
static int
table_add(Scan *scan, uint64_t serial, const Name *name)
{
    if ((scan->table_count + 1) * 2 > scan->table_capacity && table_grow(scan) < 0) {
        return -1;
    }
    uint64_t hash = hash_name(scan, name, serial);
    size_t mask = scan->table_capacity - 1;
    size_t slot = (size_t)hash & mask;
    for (;;) {
        Entry *entry = &scan->table[slot];
        if (entry->hash == 0) {
            entry->hash = hash;
            entry->serial = serial;
            entry->name = *name;
            scan->table_count++;
            return 1;
        }
        if (entry->hash == hash && entry->serial == serial && names_equal(scan, &entry->name, name)) {
            return 0;
        }
        slot = (slot + 1) & mask;
    }
}

/* Read the string content [from, to) as a name: in place, or decoded into the arena when it
 * has escapes. -1 without memory. */
static int
read_name(Scan *scan, const unsigned char *from, const unsigned char *to, Name *name)
{
    if (memchr(from, '\\', (size_t)(to - from)) == NULL) {
        *name = (Name){from - scan->text, to - from, head_of(from, to - from), 0};
        return 0;
    }
    if (decode_name(scan, from, to, name) < 0) {
        return -1;
    }
    name->head = head_of(name_bytes(scan, name), name->length);
    return 0;
}

static int
push(Scan *scan, int is_object)
{
    Py_ssize_t depth = scan->depth++;
    if (depth > scan->max_depth) {
        return 0; /* too deep to be reported: only counted */
    }
    if (reserve((void **)&scan->frames, depth, &scan->frames_capacity, scan->inline_frames, sizeof(Frame)) < 0) {
        return -1;
    }
    Frame *frame = &scan->frames[depth];
    frame->is_object = is_object;
    frame->expecting_name = is_object;
    frame->index = 0;
    frame->name = (Name){0, 0, 0, 0};
    frame->serial = ++scan->serials;
    frame->hashed = 0;
    frame->names_start = scan->names_count;
    return 0;
}

/* The frame the next token belongs to, or NULL outside any (or beyond the stored ones). */
static Frame *
top(Scan *scan)
{
    /* depth - 1 > max_depth, not depth > max_depth + 1: max_depth may be PY_SSIZE_T_MAX */
    if (scan->depth == 0 || scan->depth - 1 > scan->max_depth) {
        return NULL;
    }
    return &scan->frames[scan->depth - 1];
}

/* --- path_at: byte by byte, every token that carries structure. --- */

/* Where the string that opens at `open` closes (its quote), or NULL if it runs past `end`:
 * memchr finds each quote; one after an odd run of backslashes is escaped. */
static const unsigned char *
string_end(const unsigned char *open, const unsigned char *end)
{
    const unsigned char *p = open + 1;
    for (;;) {
        const unsigned char *quote = memchr(p, '"', (size_t)(end - p));
        if (quote == NULL) {
            return NULL;
        }
        const unsigned char *back = quote;
        while (back > open + 1 && back[-1] == '\\') {
            back--;
        }
        if ((quote - back) % 2 == 0) {
            return quote;
        }
        p = quote + 1;
    }
}

static Outcome
scan_path(Scan *scan, Py_ssize_t end, Py_ssize_t *found)
{
    (void)found; /* the common signature of scanners; path_at finds nothing */
    const unsigned char *text = scan->text;
    const unsigned char *stop = text + end;
    for (const unsigned char *p = text; p < stop; p++) {
        switch (*p) {
            case '"': {
                const unsigned char *close = string_end(p, stop);
                if (close == NULL) {
                    return SCAN_DONE; /* cut off at `end`: a name that names nothing yet */
                }
                Frame *frame = top(scan);
                if (frame != NULL && frame->expecting_name) {
                    if (read_name(scan, p + 1, close, &frame->name) < 0) {
                        return SCAN_NO_MEMORY;
                    }
                    frame->expecting_name = 0;
                }
                p = close;
                break;
            }
            case '{':
            case '[':
                if (push(scan, *p == '{') < 0) {
                    return SCAN_NO_MEMORY;
                }
                break;
            case '}':
            case ']':
                if (scan->depth > 0) {
                    scan->depth--;
                }
                break;
            case ',': {
                Frame *frame = top(scan);
                if (frame != NULL) {
                    if (frame->is_object) {
                        frame->expecting_name = 1;
                    }
                    else {
                        frame->index++;
                    }
                }
                break;
            }
            default:
                break;
        }
    }
    return SCAN_DONE;
}

/* --- first_duplicate: 64 bytes at a time, only braces and colons outside strings. --- */

/* Add the name in the slot after the stack's top (where find_names read it) to the object
 * `frame`: 1 if it is new there, 0 if the object had it already (the name stays in the slot),
 * -1 without memory. While the object has few names they are compared one by one; past
 * LINEAR_NAMES it moves them into the hash table and keeps on the stack only its last. */
static int
add_name(Scan *scan, Frame *frame)
{
    Name *name = &scan->names[scan->names_count];
    if (frame->hashed) {
        int added = table_add(scan, frame->serial, name);
        if (added == 1) {
            scan->names[frame->names_start] = *name;
        }
        return added;
    }
    for (Py_ssize_t i = frame->names_start; i < scan->names_count; i++) {
        if (names_equal(scan, &scan->names[i], name)) {
            return 0;
        }
    }
    if (scan->names_count - frame->names_start < LINEAR_NAMES) {
        scan->names_count++;
        return 1;
    }
    for (Py_ssize_t i = frame->names_start; i <= scan->names_count; i++) {
        if (table_add(scan, frame->serial, &scan->names[i]) < 0) {
            return -1;
        }
    }
    scan->names[frame->names_start] = *name;
    scan->names_count = frame->names_start + 1;
    frame->hashed = 1;
    return 1;
}

static inline int
lowest_bit(uint64_t bits)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(bits);
#elif defined(_MSC_VER) && defined(_WIN64)
    unsigned long at;
    _BitScanForward64(&at, bits);
    return (int)at;
#else
    int at = 0;
    while (!(bits & 1)) {
        bits >>= 1;
        at++;
    }
    return at;
#endif
}

static inline int
population(uint64_t bits)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_popcountll(bits);
#else
    int count = 0;
    while (bits != 0) {
        bits &= bits - 1;
        count++;
    }
    return count;
#endif
}

/* The bytes of one block that find_names looks at, one bit each. */
typedef struct {
    uint64_t quote;
    uint64_t backslash;
    uint64_t brace; /* { and } */
    uint64_t colon;
} Masks;

static inline void
classify(const unsigned char *block, Masks *masks)
{
#if defined(HAVE_SSE2)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i colon = _mm_set1_epi8(':');
    const __m128i open = _mm_set1_epi8('{');
    const __m128i close = _mm_set1_epi8('}');
    *masks = (Masks){0, 0, 0, 0};
    for (int part = 0; part < BLOCK / 16; part++) {
        __m128i bytes = _mm_loadu_si128((const __m128i *)(block + 16 * part));
        int shift = 16 * part;
        masks->quote |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(bytes, quote)) << shift;
        masks->backslash |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(bytes, backslash)) << shift;
        masks->colon |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(bytes, colon)) << shift;
        __m128i braces = _mm_or_si128(_mm_cmpeq_epi8(bytes, open), _mm_cmpeq_epi8(bytes, close));
        masks->brace |= (uint64_t)(uint16_t)_mm_movemask_epi8(braces) << shift;
    }
#else
    *masks = (Masks){0, 0, 0, 0};
    for (int at = 0; at < BLOCK; at++) {
        uint64_t bit = (uint64_t)1 << at;
        switch (block[at]) {
            case '"': masks->quote |= bit; break;
            case '\\': masks->backslash |= bit; break;
            case ':': masks->colon |= bit; break;
            case '{':
            case '}': masks->brace |= bit; break;
            default: break;
        }
    }
#endif
}

/* The bytes of a block that a backslash escapes: each backslash not itself escaped escapes the
 * byte after it. `*carry` (0 or 1) says the block's first byte is escaped by the last block;
 * it becomes the same for the next block. */
static inline uint64_t
escaped_bytes(uint64_t backslashes, uint64_t *carry)
{
    uint64_t escaped = *carry;
    uint64_t escaping = backslashes & ~escaped;
    *carry = 0;
    while (escaping != 0) {
        int at = lowest_bit(escaping);
        if (at == BLOCK - 1) {
            *carry = 1;
            break;
        }
        uint64_t next = (uint64_t)1 << (at + 1);
        escaped |= next;
        escaping &= ~((next << 1) - 1); /* the escaped byte escapes nothing, even a backslash */
    }
    return escaped;
}

/* Bit i: the number of set bits at or below i is odd (the bytes from an opening quote up to,
 * not including, its closing quote). */
static inline uint64_t
prefix_parity(uint64_t bits)
{
    bits ^= bits << 1;
    bits ^= bits << 2;
    bits ^= bits << 4;
    bits ^= bits << 8;
    bits ^= bits << 16;
    bits ^= bits << 32;
    return bits;
}

static inline int
is_space(unsigned char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* Whether the quote at `quote` is escaped: an odd run of backslashes before it, after `floor`. */
static int
is_escaped(const unsigned char *quote, const unsigned char *floor)
{
    const unsigned char *back = quote;
    while (back > floor && back[-1] == '\\') {
        back--;
    }
    return (quote - back) % 2 == 1;
}

/* The name that the colon at `colon` ends: read into the slot after the stack's top, its opening
 * quote's offset in *open. 0 when the bytes before the colon are no name (broken text). Nothing
 * before `floor` (just after the last brace or colon) is read: in well-formed JSON the name lies
 * after it, and no byte is read twice, whatever the text. */
static int
name_before(Scan *scan, const unsigned char *colon, const unsigned char *floor, Py_ssize_t *open, int *failed)
{
    const unsigned char *close = colon;
    do {
        if (close == floor) {
            return 0;
        }
        close--;
    } while (is_space(*close));
    if (*close != '"' || is_escaped(close, floor)) {
        return 0;
    }
    const unsigned char *quote = close;
    do {
        do {
            if (quote == floor) {
                return 0;
            }
            quote--;
        } while (*quote != '"');
    } while (is_escaped(quote, floor));
    if (reserve((void **)&scan->names, scan->names_count, &scan->names_capacity, scan->inline_names,
                sizeof(Name)) < 0
        || read_name(scan, quote + 1, close, &scan->names[scan->names_count]) < 0) {
        *failed = 1;
        return 0;
    }
    *open = quote - scan->text;
    return 1;
}

/* Visit the braces and colons of a block that lie outside strings, in order. */
static Outcome
visit(Scan *scan, Py_ssize_t base, uint64_t events, Py_ssize_t *found)
{
    const unsigned char *text = scan->text;
    while (events != 0) {
        Py_ssize_t at = base + lowest_bit(events);
        events &= events - 1;
        unsigned char c = text[at];
        const unsigned char *floor = text + scan->last_event + 1;
        scan->last_event = at;
        if (c == '{') {
            if (scan->depth == scan->max_depth) {
                return SCAN_TOO_DEEP;
            }
            if (push(scan, 1) < 0) {
                return SCAN_NO_MEMORY;
            }
        }
        else if (c == '}') {
            if (scan->depth > 0) {
                scan->depth--;
                scan->names_count = scan->frames[scan->depth].names_start;
            }
        }
        else if (scan->depth > 0) {
            Py_ssize_t open = 0;
            int failed = 0;
            if (!name_before(scan, text + at, floor, &open, &failed)) {
                if (failed) {
                    return SCAN_NO_MEMORY;
                }
                continue;
            }
            int added = add_name(scan, &scan->frames[scan->depth - 1]);
            if (added < 0) {
                return SCAN_NO_MEMORY;
            }
            if (added == 0) {
                *found = open;
                return SCAN_DUPLICATE;
            }
        }
    }
    return SCAN_DONE;
}

/* The bytes of a block that may begin a noncharacter: a byte of 0xEF and above (every
 * noncharacter's UTF-8 form begins with 0xEF to 0xF4), and a "u" (of a \u escape, when a
 * backslash escapes it), one bit each. */
static inline void
rare_bytes(const unsigned char *block, uint64_t *high, uint64_t *u)
{
#if defined(HAVE_SSE2)
    const __m128i lead = _mm_set1_epi8((char)0xEF);
    const __m128i letter = _mm_set1_epi8('u');
    *high = 0;
    *u = 0;
    for (int part = 0; part < BLOCK / 16; part++) {
        __m128i bytes = _mm_loadu_si128((const __m128i *)(block + 16 * part));
        int shift = 16 * part;
        __m128i is_high = _mm_cmpeq_epi8(_mm_max_epu8(bytes, lead), bytes);
        *high |= (uint64_t)(uint16_t)_mm_movemask_epi8(is_high) << shift;
        *u |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(bytes, letter)) << shift;
    }
#else
    *high = 0;
    *u = 0;
    for (int at = 0; at < BLOCK; at++) {
        uint64_t bit = (uint64_t)1 << at;
        if (block[at] >= 0xEF) {
            *high |= bit;
        }
        else if (block[at] == 'u') {
            *u |= bit;
        }
    }
#endif
}

/* Where a string runs on from one block into the next. */
typedef struct {
    uint64_t escape_carry; /* 1: the next block's first byte is escaped */
    uint64_t inside;       /* all ones: the next block begins inside a string */
} Strings;

/* What one block of 64 bytes holds, one bit a byte. */
typedef struct {
    Masks masks;
    uint64_t escaped;   /* the bytes a backslash escapes */
    uint64_t in_string; /* the bytes from an opening quote up to, not including, its closing one */
    uint64_t high;      /* with `rare`: the bytes of 0xEF and above */
    uint64_t u;         /* with `rare`: the bytes "u" */
} Block;

/* Read the block at `base` of the text [text, text + size) (the last one padded with zeros),
 * carrying `strings` on to the next block; with `rare`, rare_bytes too. */
static inline void
read_block(const unsigned char *text, Py_ssize_t size, Py_ssize_t base, int rare, Strings *strings, Block *out)
{
    const unsigned char *block = text + base;
    unsigned char tail[BLOCK];
    if (size - base < BLOCK) {
        memset(tail, 0, BLOCK);
        memcpy(tail, block, (size_t)(size - base));
        block = tail;
    }
    classify(block, &out->masks);
    out->escaped = 0;
    if (out->masks.backslash | strings->escape_carry) {
        out->escaped = escaped_bytes(out->masks.backslash, &strings->escape_carry);
    }
    out->in_string = prefix_parity(out->masks.quote & ~out->escaped) ^ strings->inside;
    /* all ones when the block ends inside a string: the top bit, spread by unsigned negation
     * (well defined, unlike a right shift of a negative int64_t) */
    strings->inside = (uint64_t)0 - (out->in_string >> 63);
    out->high = 0;
    out->u = 0;
    if (rare) {
        rare_bytes(block, &out->high, &out->u);
    }
}

static Outcome
find_names(Scan *scan, Py_ssize_t size, Py_ssize_t *found)
{
    Strings strings = {0, 0};
    for (Py_ssize_t base = 0; base < size; base += BLOCK) {
        Block block;
        read_block(scan->text, size, base, 0, &strings, &block);
        uint64_t events = (block.masks.brace | block.masks.colon) & ~block.in_string;
        if (events != 0) {
            Outcome outcome = visit(scan, base, events, found);
            if (outcome != SCAN_DONE) {
                return outcome;
            }
        }
    }
    return SCAN_DONE;
}

static PyObject *
name_object(const Scan *scan, const Name *name)
{
    const char *bytes = (const char *)name_bytes(scan, name);
    PyObject *text = PyUnicode_DecodeUTF8(bytes, name->length, "surrogatepass");
    if (text == NULL && PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) {
        /* Not UTF-8 (the precondition is broken): still a name a message can show. */
        PyErr_Clear();
        text = PyUnicode_DecodeUTF8(bytes, name->length, "backslashreplace");
    }
    return text;
}

/* The slots of the first `count` frames: member names and indexes (a new tuple, or NULL). */
static PyObject *
path_tuple(const Scan *scan, Py_ssize_t count)
{
    PyObject *path = PyTuple_New(count);
    if (path == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        const Frame *frame = &scan->frames[i];
        PyObject *slot = frame->is_object ? name_object(scan, &frame->name) : PyLong_FromSsize_t(frame->index);
        if (slot == NULL) {
            Py_DECREF(path);
            return NULL;
        }
        PyTuple_SET_ITEM(path, i, slot);
    }
    return path;
}

/* A scan over the first `end` bytes of the text: scan_path or find_names. */
typedef Outcome (*Scanner)(Scan *scan, Py_ssize_t end, Py_ssize_t *found);

/* Run `scanner`, without the GIL when the text is large enough for that to be worth it. */
static Outcome
run_scan(Scanner scanner, Scan *scan, Py_ssize_t end, Py_ssize_t *found)
{
    Outcome outcome;
    if (end > RELEASE_GIL_BYTES) {
        Py_BEGIN_ALLOW_THREADS
        outcome = scanner(scan, end, found);
        Py_END_ALLOW_THREADS
    }
    else {
        outcome = scanner(scan, end, found);
    }
    return outcome;
}

/* The path of the member or item being read at byte `end` (path_at's scan), into a new tuple,
 * then `last` if not NULL; None when it lies deeper than max_depth. */
static PyObject *
path_to(const unsigned char *text, Py_ssize_t end, Py_ssize_t max_depth, PyObject *last)
{
    Scan scan;
    scan_init(&scan, text, max_depth);
    Py_ssize_t unused = 0;
    Outcome outcome = run_scan(scan_path, &scan, end, &unused);
    PyObject *result = NULL;
    if (outcome == SCAN_NO_MEMORY) {
        PyErr_NoMemory();
    }
    else if (scan.depth > max_depth) {
        result = Py_NewRef(Py_None);
    }
    else {
        Py_ssize_t count = scan.depth;
        if (count > 0 && scan.frames[count - 1].expecting_name) {
            count--; /* an object between members: the object is the place */
        }
        result = path_tuple(&scan, count);
        if (result != NULL && last != NULL) {
            PyObject *longer = PySequence_Concat(result, last);
            Py_SETREF(result, longer);
        }
    }
    scan_free(&scan);
    return result;
}

static int
parse_depth(PyObject *number, Py_ssize_t *depth)
{
    *depth = PyLong_AsSsize_t(number);
    if (*depth == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (*depth < 0) {
        PyErr_SetString(PyExc_ValueError, "max_depth must not be negative");
        return -1;
    }
    return 0;
}

static PyObject *
first_duplicate(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    Py_ssize_t max_depth;
    Py_buffer data;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "first_duplicate(data, max_depth) takes 2 arguments");
        return NULL;
    }
    if (parse_depth(args[1], &max_depth) < 0 || PyObject_GetBuffer(args[0], &data, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    Scan scan;
    scan_init(&scan, data.buf, max_depth);
    Py_ssize_t found = 0;
    Outcome outcome = run_scan(find_names, &scan, data.len, &found);
    PyObject *result = NULL;
    switch (outcome) {
        case SCAN_DONE:
            result = Py_NewRef(Py_None);
            break;
        case SCAN_DUPLICATE: {
            /* the repeated name is in the slot after the stack's top; its object's path comes
             * from path_at's scan up to the name */
            PyObject *name = name_object(&scan, &scan.names[scan.names_count]);
            PyObject *last = name == NULL ? NULL : PyTuple_Pack(1, name);
            PyObject *path = last == NULL ? NULL : path_to(data.buf, found, PY_SSIZE_T_MAX - 1, last);
            if (path != NULL) {
                result = Py_BuildValue("(nN)", found, path);
            }
            Py_XDECREF(name);
            Py_XDECREF(last);
            break;
        }
        case SCAN_TOO_DEEP:
            PyErr_Format(PyExc_ValueError, "objects nest deeper than %zd levels", max_depth);
            break;
        case SCAN_NO_MEMORY:
            PyErr_NoMemory();
            break;
    }
    scan_free(&scan);
    PyBuffer_Release(&data);
    return result;
}

/* Whether `text` repeats a name: 1, 0, or -1 with an exception set (too deep counts as no). */
static int
repeats_a_name(const unsigned char *text, Py_ssize_t size, Py_ssize_t max_depth)
{
    Scan scan;
    scan_init(&scan, text, max_depth);
    Py_ssize_t found = 0;
    Outcome outcome = find_names(&scan, size, &found);
    scan_free(&scan);
    if (outcome == SCAN_NO_MEMORY) {
        PyErr_NoMemory();
        return -1;
    }
    return outcome == SCAN_DUPLICATE;
}

/* A test of one line: 1 it holds what is looked for, 0 not, -1 an error (set). */
typedef int (*LineTest)(const unsigned char *text, Py_ssize_t size, Py_ssize_t max_depth);

/* Whether `lines` is a list (of bytes, as line_at checks); 0 with a TypeError set if not. */
static int
is_list_of_lines(PyObject *lines)
{
    if (!PyList_CheckExact(lines)) {
        PyErr_SetString(PyExc_TypeError, "lines must be a list of bytes");
        return 0;
    }
    return 1;
}

/* Line `i` of the list `lines` (borrowed), or NULL with a TypeError naming it if it is no bytes. */
static PyObject *
line_at(PyObject *lines, Py_ssize_t i)
{
    PyObject *line = PyList_GET_ITEM(lines, i);
    if (!PyBytes_CheckExact(line)) {
        PyErr_Format(PyExc_TypeError, "line %zd is %.100s, not bytes", i, Py_TYPE(line)->tp_name);
        return NULL;
    }
    return line;
}

/* The indexes of the lines of the list `lines` (bytes only) that `test` finds, as a new list. */
static PyObject *
matching_lines(PyObject *lines, LineTest test, Py_ssize_t max_depth)
{
    PyObject *found = is_list_of_lines(lines) ? PyList_New(0) : NULL;
    if (found == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(lines); i++) {
        PyObject *line = line_at(lines, i);
        if (line == NULL) {
            Py_DECREF(found);
            return NULL;
        }
        int matches = test((const unsigned char *)PyBytes_AS_STRING(line), PyBytes_GET_SIZE(line), max_depth);
        if (matches < 0) {
            Py_DECREF(found);
            return NULL;
        }
        if (matches) {
            PyObject *index = PyLong_FromSsize_t(i);
            if (index == NULL || PyList_Append(found, index) < 0) {
                Py_XDECREF(index);
                Py_DECREF(found);
                return NULL;
            }
            Py_DECREF(index);
        }
    }
    return found;
}

static PyObject *
lines_with_duplicates(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    Py_ssize_t max_depth;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "lines_with_duplicates(lines, max_depth) takes 2 arguments");
        return NULL;
    }
    if (parse_depth(args[1], &max_depth) < 0) {
        return NULL;
    }
    return matching_lines(args[0], repeats_a_name, max_depth);
}

static PyObject *
path_at(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    Py_ssize_t end;
    Py_ssize_t max_depth;
    Py_buffer data;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "path_at(data, end, max_depth) takes 3 arguments");
        return NULL;
    }
    end = PyLong_AsSsize_t(args[1]);
    if ((end == -1 && PyErr_Occurred()) || parse_depth(args[2], &max_depth) < 0
        || PyObject_GetBuffer(args[0], &data, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    end = end < 0 ? 0 : (end > data.len ? data.len : end);
    PyObject *result = path_to(data.buf, end, max_depth, NULL);
    PyBuffer_Release(&data);
    return result;
}

/* --- first_noncharacter: one pass, byte by byte; escapes read in order, so that "\\uFFFE"
 * (an escaped backslash, then "uFFFE") is no escape. --- */

static int
is_noncharacter(long code)
{
    return (code >= 0xFDD0 && code <= 0xFDEF) || (code & 0xFFFE) == 0xFFFE;
}

/* The offset of the first noncharacter of the UTF-8 text [text, text + size), or -1. Outside
 * strings neither a backslash nor a byte above 0x7F appears in JSON, so strings need no
 * tracking: every backslash begins an escape. */
static Py_ssize_t
find_noncharacter(const unsigned char *text, Py_ssize_t size)
{
    const unsigned char *end = text + size;
#if defined(HAVE_SSE2)
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i lead = _mm_set1_epi8((char)0xEF);
#endif
    for (const unsigned char *p = text; p < end; p++) {
#if defined(HAVE_SSE2)
        /* 16 bytes at a time to the next backslash or byte of 0xEF and above */
        while (end - p >= 16) {
            __m128i bytes = _mm_loadu_si128((const __m128i *)p);
            __m128i high = _mm_cmpeq_epi8(_mm_max_epu8(bytes, lead), bytes);
            unsigned mask = (unsigned)_mm_movemask_epi8(_mm_or_si128(high, _mm_cmpeq_epi8(bytes, backslash)));
            if (mask != 0) {
                p += lowest_bit(mask);
                break;
            }
            p += 16;
        }
        if (p >= end) {
            break;
        }
#endif
        unsigned char c = *p;
        if (c < 0xEF && c != '\\') {
            continue; /* every noncharacter's UTF-8 form begins with 0xEF to 0xF4 */
        }
        if (c == '\\') {
            long code = unicode_escape(p, end);
            if (code < 0) {
                p++; /* a two-character escape: its second character is no backslash of ours */
                continue;
            }
            if (code >= 0xD800 && code < 0xDC00) {
                long low = unicode_escape(p + 6, end);
                if (low >= 0xDC00 && low < 0xE000) {
                    long pair = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                    if (is_noncharacter(pair)) {
                        return p - text;
                    }
                    p += 11;
                    continue;
                }
            }
            if (is_noncharacter(code)) {
                return p - text;
            }
            p += 5;
            continue;
        }
        if (c == 0xEF) {
            /* U+FDD0-U+FDEF: EF B7 90-AF; U+FFFE, U+FFFF: EF BF BE-BF */
            if (end - p >= 3
                && ((p[1] == 0xB7 && p[2] >= 0x90 && p[2] <= 0xAF) || (p[1] == 0xBF && (p[2] & 0xFE) == 0xBE))) {
                return p - text;
            }
        }
        else if (c <= 0xF4) {
            /* U+nFFFE, U+nFFFF: a four-byte form whose low sixteen bits are FFFE or FFFF */
            if (end - p >= 4 && (p[1] & 0x0F) == 0x0F && p[2] == 0xBF && (p[3] & 0xFE) == 0xBE) {
                return p - text;
            }
        }
    }
    return -1;
}

static PyObject *
first_noncharacter(PyObject *module, PyObject *arg)
{
    (void)module;
    Py_buffer data;
    if (PyObject_GetBuffer(arg, &data, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    Py_ssize_t at;
    if (data.len > RELEASE_GIL_BYTES) {
        Py_BEGIN_ALLOW_THREADS
        at = find_noncharacter(data.buf, data.len);
        Py_END_ALLOW_THREADS
    }
    else {
        at = find_noncharacter(data.buf, data.len);
    }
    PyBuffer_Release(&data);
    return at < 0 ? Py_NewRef(Py_None) : PyLong_FromSsize_t(at);
}

static int
holds_noncharacter(const unsigned char *text, Py_ssize_t size, Py_ssize_t max_depth)
{
    (void)max_depth;
    return find_noncharacter(text, size) >= 0;
}

static PyObject *
lines_with_noncharacters(PyObject *module, PyObject *lines)
{
    (void)module;
    return matching_lines(lines, holds_noncharacter, 0);
}

/* --- triage: the per-line loop of the validator, in one pass over a batch of lines. --- */

enum { TRIAGE_PASSED = 0, TRIAGE_REFUSED = 1, TRIAGE_SUSPECT = 2, TRIAGE_UNREADABLE = 3 };

static int
is_blank(const unsigned char *text, Py_ssize_t size)
{
    for (Py_ssize_t i = 0; i < size; i++) {
        if (!is_space(text[i])) {
            return 0;
        }
    }
    return 1;
}

/* The exception being raised, taken (no traceback: no Python frame ran between it and us). */
static PyObject *
take_exception(void)
{
#if PY_VERSION_HEX >= 0x030C0000
    return PyErr_GetRaisedException();
#else
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    PyErr_NormalizeException(&type, &value, &traceback);
    Py_XDECREF(type);
    Py_XDECREF(traceback);
    return value;
#endif
}

/* The colons outside strings of the text [text, text + size) (in well-formed JSON, one per
 * member of every object, repeated names included); *rare is set when the text may hold a
 * noncharacter (a byte of 0xEF and above, or a \u escape), and is otherwise left as it was. */
static Py_ssize_t
structural_colons(const unsigned char *text, Py_ssize_t size, int *rare)
{
    Strings strings = {0, 0};
    uint64_t maybe = 0;
    Py_ssize_t colons = 0;
    for (Py_ssize_t base = 0; base < size; base += BLOCK) {
        Block block;
        read_block(text, size, base, 1, &strings, &block);
        colons += population(block.masks.colon & ~block.in_string);
        maybe |= block.high | (block.u & block.escaped);
    }
    if (maybe != 0) {
        *rare = 1;
    }
    return colons;
}

static Py_ssize_t members_of(PyObject *value, Py_ssize_t depth);

/* Add the members of `item` (a member's value or an item) to *count: 0, or -1 when it nests
 * deeper than `depth` more levels. */
static int
add_members(PyObject *item, Py_ssize_t depth, Py_ssize_t *count)
{
    Py_ssize_t inner = members_of(item, depth);
    if (inner < 0) {
        return -1;
    }
    *count += inner;
    return 0;
}

/* The members of every object in the decoded value `value` (a parser keeps one of two equal
 * names, so a text that repeats a name has more colons than its value has members), or -1 when
 * the value nests deeper than `depth` more levels. */
static Py_ssize_t
members_of(PyObject *value, Py_ssize_t depth)
{
    int is_object = PyDict_CheckExact(value);
    if (!is_object && !PyList_CheckExact(value)) {
        return 0;
    }
    if (depth == 0) {
        return -1;
    }
    Py_ssize_t count = 0;
    if (is_object) {
        PyObject *key, *item;
        Py_ssize_t at = 0;
        count = PyDict_GET_SIZE(value);
        while (PyDict_Next(value, &at, &key, &item)) {
            if (add_members(item, depth - 1, &count) < 0) {
                return -1;
            }
        }
        return count;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(value); i++) {
        if (add_members(PyList_GET_ITEM(value, i), depth - 1, &count) < 0) {
            return -1;
        }
    }
    return count;
}

/* Append (index, kind, found) to `out`: 0, or -1 with an exception set. Steals `found`. */
static int
append_entry(PyObject *out, Py_ssize_t index, int kind, PyObject *found)
{
    PyObject *entry = found == NULL ? NULL : Py_BuildValue("(niN)", index, kind, found);
    if (entry == NULL) {
        return -1;
    }
    int failed = PyList_Append(out, entry);
    Py_DECREF(entry);
    return failed;
}

/* One line: decode, scan, judge; its entry (if it gets one) appended to `out`, `*valid` counted.
 * 0, or -1 with an exception set. */
static int
triage_line(PyObject *line, Py_ssize_t index, PyObject *const *args, int keep, PyObject *out, Py_ssize_t *valid,
            Py_ssize_t max_depth)
{
    PyObject *loads = args[1], *decode_error = args[2], *verdict = args[3];
    const unsigned char *text = (const unsigned char *)PyBytes_AS_STRING(line);
    Py_ssize_t size = PyBytes_GET_SIZE(line);
    /* A blank line is skipped before the decoder sees it: the error it would raise costs about a
     * microsecond to build, and a compressed file can hold millions of blank lines. */
    if (is_blank(text, size)) {
        return 0;
    }
    PyObject *value = PyObject_Vectorcall(loads, &line, 1, NULL);
    if (value == NULL) {
        if (!PyErr_ExceptionMatches(decode_error)) {
            return -1;
        }
        return append_entry(out, index, TRIAGE_UNREADABLE, take_exception());
    }
    /* A repeated name shows as a member fewer in the value than colons in the text: only then
     * is the text read name by name (the value is exactly the text's, the parser having read
     * it); only a text with a byte or an escape that can begin a noncharacter is read for one. */
    int rare = 0;
    int suspect = 0;
    if (members_of(value, max_depth) != structural_colons(text, size, &rare)) {
        suspect = repeats_a_name(text, size, max_depth);
        if (suspect < 0) {
            Py_DECREF(value);
            return -1;
        }
    }
    if (!suspect && rare) {
        suspect = find_noncharacter(text, size) >= 0;
    }
    if (suspect) {
        return append_entry(out, index, TRIAGE_SUSPECT, value);
    }
    int accepted = 1;
    if (verdict != Py_None) {
        PyObject *answer = PyObject_Vectorcall(verdict, &value, 1, NULL);
        accepted = answer == NULL ? -1 : PyObject_IsTrue(answer);
        Py_XDECREF(answer);
        if (accepted < 0) {
            Py_DECREF(value);
            return -1;
        }
    }
    if (accepted) {
        ++*valid;
        if (!keep) {
            Py_DECREF(value);
            return 0;
        }
        return append_entry(out, index, TRIAGE_PASSED, value);
    }
    return append_entry(out, index, TRIAGE_REFUSED, value);
}

static PyObject *
triage(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    Py_ssize_t max_depth;
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError,
                        "triage(lines, loads, decode_error, verdict, max_depth, keep) takes 6 arguments");
        return NULL;
    }
    PyObject *lines = args[0];
    if (!is_list_of_lines(lines)) {
        return NULL;
    }
    int keep = PyObject_IsTrue(args[5]);
    if (keep < 0 || parse_depth(args[4], &max_depth) < 0) {
        return NULL;
    }
    keep = keep || args[3] == Py_None;
    PyObject *out = PyList_New(0);
    if (out == NULL) {
        return NULL;
    }
    Py_ssize_t valid = 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(lines); i++) {
        PyObject *line = line_at(lines, i);
        if (line == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        /* The line is held while it is read: the verdict is Python code, which may change the list. */
        Py_INCREF(line);
        int failed = triage_line(line, i, args, keep, out, &valid, max_depth);
        Py_DECREF(line);
        if (failed < 0) {
            Py_DECREF(out);
            return NULL;
        }
    }
    return Py_BuildValue("(nN)", valid, out);
}

static PyMethodDef jsonscan_methods[] = {
    {"first_duplicate", (PyCFunction)(void (*)(void))first_duplicate, METH_FASTCALL,
     "first_duplicate(data, max_depth, /)\n--\n\n"
     "The byte offset and instance path of the first repeated member name of the well-formed\n"
     "JSON text `data`, or None. ValueError when objects nest deeper than `max_depth`."},
    {"lines_with_duplicates", (PyCFunction)(void (*)(void))lines_with_duplicates, METH_FASTCALL,
     "lines_with_duplicates(lines, max_depth, /)\n--\n\n"
     "The indexes of the lines (a list of bytes, each well-formed JSON text) in which some object\n"
     "repeats a member name; a line whose objects nest deeper than `max_depth` is not among them."},
    {"path_at", (PyCFunction)(void (*)(void))path_at, METH_FASTCALL,
     "path_at(data, end, max_depth, /)\n--\n\n"
     "The instance path of the member or item being read at byte `end` of `data` (well-formed\n"
     "up to there), or None when it lies deeper than `max_depth`."},
    {"first_noncharacter", (PyCFunction)first_noncharacter, METH_O,
     "first_noncharacter(data, /)\n--\n\n"
     "The byte offset of the first noncharacter (U+FDD0-U+FDEF, U+nFFFE, U+nFFFF) of the UTF-8\n"
     "text `data`, raw or as an escape (the offset of its backslash), or None."},
    {"lines_with_noncharacters", (PyCFunction)lines_with_noncharacters, METH_O,
     "lines_with_noncharacters(lines, /)\n--\n\n"
     "The indexes of the lines (a list of bytes) that hold a noncharacter, raw or escaped."},
    {"triage", (PyCFunction)(void (*)(void))triage, METH_FASTCALL,
     "triage(lines, loads, decode_error, verdict, max_depth, keep, /)\n--\n\n"
     "Each line of `lines` (a list of bytes) decoded by `loads`, scanned, and judged by `verdict`\n"
     "(None: every line is accepted): (accepted, entries), entries (index, kind, found) in line\n"
     "order for each line refused (1, the value), flagged by a scan (2, the value, not judged) or\n"
     "not decoded (3, the `decode_error` raised; blank lines are skipped), and, with `keep`, for\n"
     "each line accepted (0, the value)."},
    {NULL, NULL, 0, NULL},
};

/* Draw the hash key. (The key is process-wide: the module declares no support for interpreters
 * with a GIL of their own, nor for running without the GIL.) */
static int
jsonscan_exec(PyObject *module)
{
    (void)module;
    PyObject *os = PyImport_ImportModule("os");
    if (os == NULL) {
        return -1;
    }
    PyObject *key = PyObject_CallMethod(os, "urandom", "i", (int)sizeof(hash_key));
    Py_DECREF(os);
    if (key == NULL) {
        return -1;
    }
    if (!PyBytes_CheckExact(key) || PyBytes_GET_SIZE(key) != (Py_ssize_t)sizeof(hash_key)) {
        Py_DECREF(key);
        PyErr_SetString(PyExc_RuntimeError, "os.urandom gave no key");
        return -1;
    }
    memcpy(hash_key, PyBytes_AS_STRING(key), sizeof(hash_key));
    Py_DECREF(key);
    return 0;
}

static struct PyModuleDef_Slot jsonscan_slots[] = {
    {Py_mod_exec, jsonscan_exec},
    {0, NULL},
};

static struct PyModuleDef jsonscan_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "toolresponse.validation.native._jsonscan",
    .m_doc = "The structure of JSON text a parser's value no longer shows: repeated member names, "
             "the path at an offset.",
    .m_size = 0,
    .m_methods = jsonscan_methods,
    .m_slots = jsonscan_slots,
};

PyMODINIT_FUNC
PyInit__jsonscan(void)
{
    return PyModuleDef_Init(&jsonscan_module);
}

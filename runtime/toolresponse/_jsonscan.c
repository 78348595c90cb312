/*
 * toolresponse._jsonscan: what a JSON parser's value no longer shows, read
 * from the text in one pass, without building the value.
 *
 * orjson keeps the last of two equal member names silently, and when it
 * rejects a text it gives an offset, not the JSON pointer of the member it was
 * reading. The pure-Python scans of toolresponse._ijson answer both questions
 * exactly but cost a regular expression and a Python loop per token; these
 * two functions give the same answers (the test suite checks it on generated
 * texts) at the speed of a byte loop:
 *
 *   first_duplicate(data, max_depth)
 *       For well-formed JSON text: None when no object repeats a member name,
 *       else (offset, path): the byte offset of the repeated name's opening
 *       quote and the instance path that ends with that name. ValueError when
 *       arrays and objects nest deeper than max_depth.
 *
 *   path_at(data, end, max_depth)
 *       For text well-formed up to byte `end` (where a parser stopped): the
 *       path of the member or item being read there, or None when it lies
 *       deeper than max_depth. A member name cut off at `end` names nothing
 *       yet, and the object is the place.
 *
 * Paths are tuples of str (member names, escapes decoded) and int (indexes).
 * Member names are compared after decoding their escapes ("\u0061" is "a");
 * a lone surrogate escape decodes to its three-byte form, as Python's
 * "surrogatepass" reads it. Only the structure is read: strings, brackets,
 * commas; numbers, literals, colons and white space are skipped. On bytes
 * that break the precondition both still return (an answer that means
 * nothing, never a read out of bounds), and both release the GIL while they
 * scan. Memory is bounded by max_depth and the size of the text.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define INLINE_FRAMES 64
#define INLINE_NAMES 64
#define LINEAR_NAMES 16       /* an object with more names than this looks them up in a hash table */
#define SHORT_STRING_WORDS 2  /* a string is looked through a word at a time this far, then by memchr */

#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL
/* Nonzero when some byte of the word x is zero (exact as to whether; not as to which). */
#define HAS_ZERO(x) (((x) - ONES) & ~(x) & HIGHS)
#define HAS_BYTE(x, c) HAS_ZERO((x) ^ (ONES * (uint64_t)(c)))

/* A member name: its bytes in the text, or, when it had escapes, decoded in the arena. */
typedef struct {
    Py_ssize_t start;
    Py_ssize_t length;
    uint64_t head; /* its first eight bytes (fewer, zero-padded): most names differ there */
    int in_arena;
} Name;

/* One open array or object. An object's names are on the names stack from names_start on
 * (its last one there is its current member's name; none yet reads as ""), all of them while
 * it has at most LINEAR_NAMES, else only the current one, the rest being in the hash table. */
typedef struct {
    int is_object;
    int expecting_name;
    int hashed;              /* objects past LINEAR_NAMES names */
    uint32_t serial;         /* objects: distinct for every object of one scan */
    Py_ssize_t index;        /* arrays: the current item */
    Py_ssize_t names_start;
} Frame;

/* A name of a large object: the table is keyed by (serial, decoded name). */
typedef struct {
    uint64_t hash; /* 0: an empty slot */
    uint32_t serial;
    Name name;
} Entry;

typedef struct {
    const unsigned char *text;
    Py_ssize_t max_depth;
    int find_duplicates;

    Frame *frames;
    Py_ssize_t depth; /* open arrays and objects; only the first max_depth + 1 are stored */
    Py_ssize_t frames_capacity;
    uint32_t serials;

    /* The names of the open objects, object after object (see Frame). */
    Name *names;
    Py_ssize_t names_count;
    Py_ssize_t names_capacity;

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
    SCAN_TOO_DEEP,  /* nesting beyond max_depth (first_duplicate only) */
    SCAN_NO_MEMORY,
} Outcome;

static void
scan_init(Scan *scan, const unsigned char *text, Py_ssize_t max_depth, int find_duplicates)
{
    scan->text = text;
    scan->max_depth = max_depth;
    scan->find_duplicates = find_duplicates;
    scan->frames = scan->inline_frames;
    scan->depth = 0;
    scan->frames_capacity = INLINE_FRAMES;
    scan->serials = 0;
    scan->names = scan->inline_names;
    scan->names_count = 0;
    scan->names_capacity = INLINE_NAMES;
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

/* Room for one more element in a stack that starts in `inline_items`; -1 without memory. */
static int
reserve(void **items, Py_ssize_t count, Py_ssize_t *capacity, void *inline_items, size_t size)
{
    if (count < *capacity) {
        return 0;
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

static uint64_t
hash_name(const Scan *scan, const Name *name, uint32_t serial)
{
    const unsigned char *bytes = name_bytes(scan, name);
    uint64_t hash = 0xcbf29ce484222325ULL ^ (uint64_t)name->length ^ ((uint64_t)serial << 32);
    for (Py_ssize_t i = 0; i < name->length; i++) {
        hash = (hash ^ bytes[i]) * 0x100000001b3ULL;
    }
    return hash | 1;
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
table_add(Scan *scan, uint32_t serial, const Name *name)
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

/* The slot the next name of the object `frame` is read into (room is reserved for it): after
 * the object's names while they are compared one by one, else over its current name. */
static Name *
name_slot(Scan *scan, Frame *frame)
{
    if (frame->hashed || !scan->find_duplicates) {
        scan->names_count = frame->names_start;
    }
    if (reserve((void **)&scan->names, scan->names_count, &scan->names_capacity, scan->inline_names,
                sizeof(Name)) < 0) {
        return NULL;
    }
    return &scan->names[scan->names_count];
}

/* Take the name just read into name_slot as the object's current one: 1 if it is new there,
 * 0 if the object had it already, -1 without memory. While it has few names they are compared
 * one by one; past LINEAR_NAMES the object moves them into the hash table, so that no object
 * costs more than linear time. */
static int
add_name(Scan *scan, Frame *frame)
{
    Name *name = &scan->names[scan->names_count];
    if (!scan->find_duplicates) {
        scan->names_count++;
        return 1;
    }
    if (frame->hashed) {
        int added = table_add(scan, frame->serial, name);
        scan->names_count += added == 1; /* a repeated name stays in the slot, for its path */
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
    frame->hashed = 0;
    frame->serial = is_object ? ++scan->serials : 0;
    frame->index = 0;
    frame->names_start = scan->names_count;
    return 0;
}

static void
pop(Scan *scan)
{
    if (scan->depth == 0) {
        return;
    }
    scan->depth--;
    if (scan->depth <= scan->max_depth) {
        scan->names_count = scan->frames[scan->depth].names_start;
    }
}

/* The frame the next token belongs to, or NULL outside any (or beyond the stored ones). */
static Frame *
top(Scan *scan)
{
    if (scan->depth == 0 || scan->depth > scan->max_depth + 1) {
        return NULL;
    }
    return &scan->frames[scan->depth - 1];
}

/* The first quote at or after p, or NULL: a word at a time for short strings, memchr for long. */
static inline const unsigned char *
find_quote(const unsigned char *p, const unsigned char *end)
{
    for (int words = 0; words < SHORT_STRING_WORDS && end - p >= 8; words++) {
        uint64_t word;
        memcpy(&word, p, 8);
        if (HAS_BYTE(word, '"')) {
            while (*p != '"') {
                p++;
            }
            return p;
        }
        p += 8;
    }
    return memchr(p, '"', (size_t)(end - p));
}

/* Where the string that opens at `open` closes (its quote), or NULL if it runs past `end`:
 * a quote after an odd run of backslashes is escaped. */
static inline const unsigned char *
string_end(const unsigned char *open, const unsigned char *end)
{
    const unsigned char *p = open + 1;
    for (;;) {
        const unsigned char *quote = find_quote(p, end);
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

/* The first quote or backslash at or after p, or `end`: names are short and rarely escaped. */
static inline const unsigned char *
quote_or_backslash(const unsigned char *p, const unsigned char *end)
{
    while (end - p >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        if (HAS_BYTE(word, '"') | HAS_BYTE(word, '\\')) {
            break;
        }
        p += 8;
    }
    while (p < end && *p != '"' && *p != '\\') {
        p++;
    }
    return p;
}

/* The bytes the scan stops at outside strings: the only ones that carry structure it needs. */
static unsigned char structural[256];

/* The next of those bytes at or after p, or `end`: sixteen bytes at a time where SSE2 is there. */
static inline const unsigned char *
next_structural(const unsigned char *p, const unsigned char *end)
{
#if defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i comma = _mm_set1_epi8(',');
    const __m128i lower = _mm_set1_epi8(0x20);
    const __m128i open = _mm_set1_epi8('{');  /* '[' | 0x20 */
    const __m128i close = _mm_set1_epi8('}'); /* ']' | 0x20 */
    while (end - p >= 16) {
        __m128i block = _mm_loadu_si128((const __m128i *)p);
        __m128i folded = _mm_or_si128(block, lower);
        __m128i hits = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(block, quote), _mm_cmpeq_epi8(block, comma)),
                                    _mm_or_si128(_mm_cmpeq_epi8(folded, open), _mm_cmpeq_epi8(folded, close)));
        int mask = _mm_movemask_epi8(hits);
        if (mask != 0) {
            return p + __builtin_ctz((unsigned int)mask);
        }
        p += 16;
    }
#endif
    while (p < end && !structural[*p]) {
        p++;
    }
    return p;
}

/* Read the member name that opens at `open` into `name`: where it closes, or NULL if it runs
 * past `end` (a name cut off there names nothing yet); `*failed` on a memory error. */
static const unsigned char *
read_name(Scan *scan, const unsigned char *open, const unsigned char *end, Name *name, int *failed)
{
    const unsigned char *from = open + 1;
    const unsigned char *close = quote_or_backslash(from, end);
    if (close < end && *close == '"') {
        /* One assignment: the copies of `name` that follow then load what was stored whole
         * (field-by-field stores stall a wider load that reads them back). */
        *name = (Name){from - scan->text, close - from, head_of(from, close - from), 0};
        return close;
    }
    close = string_end(open, end);
    if (close == NULL) {
        return NULL;
    }
    if (decode_name(scan, from, close, name) < 0) {
        *failed = 1;
        return NULL;
    }
    name->head = head_of(name_bytes(scan, name), name->length);
    return close;
}

static Outcome
scan_text(Scan *scan, Py_ssize_t end, Py_ssize_t *found)
{
    const unsigned char *text = scan->text;
    const unsigned char *stop = text + end;
    const unsigned char *p = text;
    for (;;) {
        p = next_structural(p, stop);
        if (p >= stop) {
            break;
        }
        switch (*p) {
            case '"': {
                Frame *frame = top(scan);
                if (frame == NULL || !frame->expecting_name) {
                    const unsigned char *close = string_end(p, stop);
                    if (close == NULL) {
                        return SCAN_DONE; /* a value cut off at `end` */
                    }
                    p = close + 1;
                    continue;
                }
                Name *name = name_slot(scan, frame);
                if (name == NULL) {
                    return SCAN_NO_MEMORY;
                }
                int failed = 0;
                const unsigned char *close = read_name(scan, p, stop, name, &failed);
                if (close == NULL) {
                    return failed ? SCAN_NO_MEMORY : SCAN_DONE;
                }
                int added = add_name(scan, frame);
                if (added < 0) {
                    return SCAN_NO_MEMORY;
                }
                if (added == 0) {
                    *found = p - text;
                    return SCAN_DUPLICATE;
                }
                frame->expecting_name = 0;
                p = close + 1;
                continue;
            }
            case '{':
            case '[':
                if (push(scan, *p == '{') < 0) {
                    return SCAN_NO_MEMORY;
                }
                if (scan->find_duplicates && scan->depth > scan->max_depth) {
                    return SCAN_TOO_DEEP;
                }
                break;
            case '}':
            case ']':
                pop(scan);
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
        p++;
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

/* The current member name of the object at frames[i] (its last name on the stack). */
static PyObject *
current_name(const Scan *scan, Py_ssize_t i)
{
    Py_ssize_t end = i + 1 < scan->depth ? scan->frames[i + 1].names_start : scan->names_count;
    if (end == scan->frames[i].names_start) {
        return PyUnicode_FromStringAndSize("", 0);
    }
    return name_object(scan, &scan->names[end - 1]);
}

/* The slots of the first `count` frames, then `last` if not NULL (a new reference, or NULL). */
static PyObject *
path_tuple(const Scan *scan, Py_ssize_t count, const Name *last)
{
    PyObject *path = PyTuple_New(count + (last != NULL));
    if (path == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        const Frame *frame = &scan->frames[i];
        PyObject *slot = frame->is_object ? current_name(scan, i) : PyLong_FromSsize_t(frame->index);
        if (slot == NULL) {
            Py_DECREF(path);
            return NULL;
        }
        PyTuple_SET_ITEM(path, i, slot);
    }
    if (last != NULL) {
        PyObject *slot = name_object(scan, last);
        if (slot == NULL) {
            Py_DECREF(path);
            return NULL;
        }
        PyTuple_SET_ITEM(path, count, slot);
    }
    return path;
}

static Outcome
run_scan(Scan *scan, Py_ssize_t end, Py_ssize_t *found)
{
    Outcome outcome;
    if (end > (1 << 16)) {
        Py_BEGIN_ALLOW_THREADS
        outcome = scan_text(scan, end, found);
        Py_END_ALLOW_THREADS
    }
    else {
        outcome = scan_text(scan, end, found);
    }
    return outcome;
}

static PyObject *
first_duplicate(PyObject *module, PyObject *args)
{
    Py_buffer data;
    Py_ssize_t max_depth;
    if (!PyArg_ParseTuple(args, "y*n:first_duplicate", &data, &max_depth)) {
        return NULL;
    }
    if (max_depth < 0) {
        PyBuffer_Release(&data);
        PyErr_SetString(PyExc_ValueError, "max_depth must not be negative");
        return NULL;
    }
    Scan scanner;
    Scan *scan = &scanner;
    scan_init(scan, data.buf, max_depth, 1);
    Py_ssize_t found = 0;
    Outcome outcome = run_scan(scan, data.len, &found);
    PyObject *result = NULL;
    switch (outcome) {
        case SCAN_DONE:
            result = Py_NewRef(Py_None);
            break;
        case SCAN_DUPLICATE: {
            /* the repeated name is the one just read, in the slot after the stack's top */
            PyObject *path = path_tuple(scan, scan->depth - 1, &scan->names[scan->names_count]);
            if (path != NULL) {
                result = Py_BuildValue("(nN)", found, path);
            }
            break;
        }
        case SCAN_TOO_DEEP:
            PyErr_Format(PyExc_ValueError, "arrays and objects nest deeper than %zd levels", max_depth);
            break;
        case SCAN_NO_MEMORY:
            PyErr_NoMemory();
            break;
    }
    scan_free(scan);
    PyBuffer_Release(&data);
    return result;
}

static PyObject *
path_at(PyObject *module, PyObject *args)
{
    Py_buffer data;
    Py_ssize_t end;
    Py_ssize_t max_depth;
    if (!PyArg_ParseTuple(args, "y*nn:path_at", &data, &end, &max_depth)) {
        return NULL;
    }
    if (max_depth < 0) {
        PyBuffer_Release(&data);
        PyErr_SetString(PyExc_ValueError, "max_depth must not be negative");
        return NULL;
    }
    end = end < 0 ? 0 : (end > data.len ? data.len : end);
    Scan scanner;
    Scan *scan = &scanner;
    scan_init(scan, data.buf, max_depth, 0);
    Py_ssize_t found = 0;
    Outcome outcome = run_scan(scan, end, &found);
    PyObject *result = NULL;
    if (outcome == SCAN_NO_MEMORY) {
        PyErr_NoMemory();
    }
    else if (scan->depth > max_depth) {
        result = Py_NewRef(Py_None);
    }
    else {
        Py_ssize_t count = scan->depth;
        if (count > 0 && scan->frames[count - 1].expecting_name) {
            count--;
        }
        result = path_tuple(scan, count, NULL);
    }
    scan_free(scan);
    PyBuffer_Release(&data);
    return result;
}

static PyMethodDef jsonscan_methods[] = {
    {"first_duplicate", first_duplicate, METH_VARARGS,
     "first_duplicate(data, max_depth, /)\n--\n\n"
     "The byte offset and instance path of the first repeated member name of the well-formed\n"
     "JSON text `data`, or None. ValueError when it nests deeper than `max_depth`."},
    {"path_at", path_at, METH_VARARGS,
     "path_at(data, end, max_depth, /)\n--\n\n"
     "The instance path of the member or item being read at byte `end` of `data` (well-formed\n"
     "up to there), or None when it lies deeper than `max_depth`."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef_Slot jsonscan_slots[] = {
#if PY_VERSION_HEX >= 0x030C0000
    {Py_mod_multiple_interpreters, Py_MOD_PER_INTERPRETER_GIL_SUPPORTED},
#endif
#if PY_VERSION_HEX >= 0x030D0000
    {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
    {0, NULL},
};

static struct PyModuleDef jsonscan_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "toolresponse._jsonscan",
    .m_doc = "The structure of JSON text a parser's value no longer shows: repeated member names, "
             "the path at an offset.",
    .m_size = 0,
    .m_methods = jsonscan_methods,
    .m_slots = jsonscan_slots,
};

PyMODINIT_FUNC
PyInit__jsonscan(void)
{
    for (const char *c = "\"{}[],"; *c; c++) {
        structural[(unsigned char)*c] = 1;
    }
    return PyModuleDef_Init(&jsonscan_module);
}

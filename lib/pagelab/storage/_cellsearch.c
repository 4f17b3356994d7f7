/* The storage prototype's C piece: binary search over the cells of a slotted page (slotted.py),
 * the whole descent of a point lookup (BTree.get) built on it, the decoding of a page image and
 * the buffer pool's bookkeeping after a descent (BufferPool.replay), the byte moving of a leaf
 * split or a compaction (cell sizes, and the cells laid out on a fresh page), and put's common
 * case.
 *
 * Why these are in C. A cold point lookup reads a page from the device, searches it once and
 * moves on, so whatever the prototype does between two reads runs right after the process wakes
 * from the read. Measured on the project's 2-vCPU VM (bench/bench_wakeup.py,
 * bench/bench_lookups.py): Python code that runs right after such a wake-up is 2-3x slower than
 * the same code run warm, because while the read was in flight the host ran other work and took
 * the caches. Three steps followed from that:
 *
 *   1. the search (it had been bisect with a Python key function slicing each probed key out of
 *      the page): 3.5 us less per read at 4 KiB pages and 8 us less at 16 KiB;
 *   2. the descent (`descend`): it reads and searches every page of a lookup without returning to
 *      Python, then hands the pool the list of what it did, and the pool's bookkeeping for the
 *      whole lookup (counts, LRU, eviction: BufferPool.replay) runs once, after the last read,
 *      instead of after each one. The prototype's own time per page read with O_DIRECT fell from
 *      ~34 to ~13 us at 4 KiB, which took cold lookups from ~0.79 to ~0.91 of a bare pread
 *      loop's rate (bench_wakeup.py, same minutes);
 *   3. what was left after the last read: decoding each page read into its page object and the
 *      pool's counts, LRU moves and evictions (`decode_page`, `replay`), from 36-50 to 21-31 us per
 *      lookup (three paired runs at each of 4 and 16 KiB, 20,000 cold lookups each): a third of
 *      the bookkeeping. Alone, the decode in C had shown nothing measurable (30 paired rounds)
 *      and the replay in C ~15%; the Python frames between the two were much of the cost.
 *
 * The descent changes nothing the pool or the file decides: pages the pool holds are searched as
 * their page objects are (cells in `data`, slot array in `offsets`), pages it lacks are read from
 * the file with one pread each, and the replay counts and caches them in the order met, with the
 * same evictions as fetching them one by one would give (tests/storage/test_descend.py). Whatever
 * it cannot take (a page that is neither leaf nor interior, an impossible header, a cell past the
 * page end, a short or failed read, the in-memory backend's evicted pages) makes it return None,
 * and the tree's Python descent does the lookup again and names the problem.
 *
 * The split's byte moving is here for the in-memory insert rate (goal: >= 100k/s): one pass
 * over the page's bytes instead of a Python object per cell (a struct unpack for its size, a
 * slice for its bytes, a join). A leaf split of 54 cells at 8 KiB fell from ~50 to ~4 us, and
 * random inserts ran ~17% faster (six alternating runs: 84-96k/s before, 86-118k/s after).
 * Where to split (btree._balanced_split) stays in Python. The common put (`insert_in_gap`, a new
 * key that fits in its leaf's free gap) followed, which took random inserts from 92-132k/s to
 * 111-163k/s (four runs alternating with the commit before it); its own comment says what it
 * leaves to Python.
 *
 * Everything else stays in Python, where it can be read beside the page layout.
 *
 * The cell formats, as drawn at the top of slotted.py (integers little-endian):
 *
 *     leaf cell:      | key length u16 | value length u16 | key bytes | value bytes |
 *     interior cell:  | child page u32 | key length u16   | key bytes |
 *
 * `offsets` is the page's slot array as it is in memory (array('H'), or any buffer of u16 such
 * as a memoryview cast to 'H'; native byte order): the offset of each cell in key order. Keys compare as bytes do in Python (memcmp, then length).
 * A slot that points a cell past the end of the page means a damaged file: ValueError, which
 * slotted.py and nodes.py turn into a StorageError naming the page.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include <limits.h>
#include <unistd.h>

#define LEAF_KEY_AT 4      /* key bytes start after key length u16 + value length u16 */
#define LEAF_LENGTH_AT 0   /* key length u16 */
#define INTERIOR_KEY_AT 6  /* key bytes start after child page u32 + key length u16 */
#define INTERIOR_LENGTH_AT 4
#define HEADER_LINK_AT 12  /* the page header's link field: an interior page's rightmost child */
#define HEADER_SIZE 16
#define HEADER_COUNT_AT 2          /* cell count u16 */
#define HEADER_CONTENT_START_AT 4  /* content start u32 */
#define PAGE_TYPE_LEAF 1
#define PAGE_TYPE_INTERIOR 2

static inline uint32_t read_u16(const unsigned char *at) { return (uint32_t)at[0] | ((uint32_t)at[1] << 8); }

/* A u32 header field (content start, fragmented bytes, link) is held in a long long, never a
 * Py_ssize_t: on a 32-bit build a damaged field of 2^31 and up would turn negative there and pass
 * the checks against the page size. */
static inline uint32_t read_u32(const unsigned char *at) {
    return (uint32_t)at[0] | ((uint32_t)at[1] << 8) | ((uint32_t)at[2] << 16) | ((uint32_t)at[3] << 24);
}

/* Slot `index` of a slot array: native u16 (an in-memory page's array) or little-endian (read from the file). */
static inline Py_ssize_t slot_at(const unsigned char *slots, Py_ssize_t index, int slots_native) {
    return slots_native ? (Py_ssize_t)((const uint16_t *)slots)[index] : (Py_ssize_t)read_u16(slots + 2 * index);
}

typedef struct {
    Py_buffer page, slots, key;
} Operands;

static void release(Operands *operands, int acquired) {
    if (acquired > 0) PyBuffer_Release(&operands->page);
    if (acquired > 1) PyBuffer_Release(&operands->slots);
    if (acquired > 2) PyBuffer_Release(&operands->key);
}

/* A page's bytes and its slot array (a buffer of u16): 0 with both held, or -1 with an exception
 * set and neither held. */
static int acquire_page(PyObject *page, PyObject *slots, const char *name, Py_buffer *page_buffer,
                        Py_buffer *slots_buffer) {
    if (PyObject_GetBuffer(page, page_buffer, PyBUF_SIMPLE) < 0) return -1;
    if (PyObject_GetBuffer(slots, slots_buffer, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(page_buffer);
        return -1;
    }
    if (slots_buffer->itemsize != 2 || slots_buffer->ndim > 1) {
        PyErr_Format(PyExc_TypeError, "%s: offsets must be a buffer of u16, such as array('H')", name);
        PyBuffer_Release(slots_buffer);
        PyBuffer_Release(page_buffer);
        return -1;
    }
    return 0;
}

/* 0 with all three buffers held, or -1 with an exception set and none held. */
static int acquire(PyObject *const *args, Py_ssize_t nargs, const char *name, Operands *operands) {
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "%s(page, offsets, key) takes 3 arguments, got %zd", name, nargs);
        return -1;
    }
    if (acquire_page(args[0], args[1], name, &operands->page, &operands->slots) < 0) return -1;
    if (PyObject_GetBuffer(args[2], &operands->key, PyBUF_SIMPLE) < 0) {
        release(operands, 2);
        return -1;
    }
    return 0;
}

static PyObject *raise_damaged(Py_ssize_t page_size) {
    PyErr_Format(PyExc_ValueError, "a slot points a cell past the end of the %zd-byte page", page_size);
    return NULL;
}

/* The first slot whose key is >= key (right == 0) or > key (right == 1), as bisect_left and
 * bisect_right would find it in the list of the page's keys; -1 with ValueError set if a probed
 * cell runs past the end of the page. `slots` holds `count` u16 offsets, in native byte order
 * (an in-memory page's array) or little-endian (a slot array straight from the file). */
static Py_ssize_t search_cells(const unsigned char *page, Py_ssize_t page_size, const unsigned char *slots,
                               Py_ssize_t count, int slots_native, const unsigned char *key, Py_ssize_t key_length,
                               Py_ssize_t key_at, Py_ssize_t length_at, int right) {
    Py_ssize_t low = 0, high = count;
    while (low < high) {
        Py_ssize_t middle = low + (high - low) / 2;
        Py_ssize_t offset = slot_at(slots, middle, slots_native);
        if (offset + key_at > page_size) goto past_the_end;
        Py_ssize_t cell_key_length = read_u16(page + offset + length_at);
        if (offset + key_at + cell_key_length > page_size) goto past_the_end;
        int order = memcmp(page + offset + key_at, key, cell_key_length < key_length ? cell_key_length : key_length);
        if (order == 0) order = (cell_key_length > key_length) - (cell_key_length < key_length);
        if (right ? order > 0 : order >= 0)
            high = middle;
        else
            low = middle + 1;
    }
    return low;
past_the_end:
    raise_damaged(page_size);
    return -1;
}

/* The slot of the leaf cell holding exactly `key`, -1 if none does, or -2 with ValueError set if
 * a cell looked at runs past the end of the page. */
static Py_ssize_t find_in_leaf(const unsigned char *page, Py_ssize_t page_size, const unsigned char *slots,
                               Py_ssize_t count, int slots_native, const unsigned char *key, Py_ssize_t key_length) {
    Py_ssize_t index = search_cells(page, page_size, slots, count, slots_native, key, key_length, LEAF_KEY_AT,
                                    LEAF_LENGTH_AT, 0);
    if (index < 0) return -2;
    if (index == count) return -1;
    /* the first key >= the one sought: the answer only if it is that key */
    Py_ssize_t offset = slot_at(slots, index, slots_native);
    if (offset + LEAF_KEY_AT > page_size) goto past_the_end;
    if ((Py_ssize_t)read_u16(page + offset + LEAF_LENGTH_AT) != key_length) return -1;
    if (offset + LEAF_KEY_AT + key_length > page_size) goto past_the_end;
    return memcmp(page + offset + LEAF_KEY_AT, key, key_length) == 0 ? index : -1;
past_the_end:
    raise_damaged(page_size);
    return -2;
}

/* The child page of an interior page whose key range holds `key`, or -1 with ValueError set (a
 * damaged page). Past the last key it is the rightmost child: `rightmost` if >= 0, else the one in
 * the header's link field. */
static Py_ssize_t child_in_interior(const unsigned char *page, Py_ssize_t page_size, const unsigned char *slots,
                                    Py_ssize_t count, int slots_native, const unsigned char *key,
                                    Py_ssize_t key_length, long long rightmost) {
    Py_ssize_t index = search_cells(page, page_size, slots, count, slots_native, key, key_length, INTERIOR_KEY_AT,
                                    INTERIOR_LENGTH_AT, 1);
    if (index < 0) return -1;
    if (index == count && rightmost >= 0) return (Py_ssize_t)rightmost;
    Py_ssize_t at = index == count ? HEADER_LINK_AT : slot_at(slots, index, slots_native);
    if (at + 4 > page_size) {
        raise_damaged(page_size);
        return -1;
    }
    return (Py_ssize_t)read_u32(page + at);
}

static PyObject *leaf_find(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs) {
    Operands operands;
    if (acquire(args, nargs, "leaf_find", &operands) < 0) return NULL;
    Py_ssize_t index = find_in_leaf(operands.page.buf, operands.page.len, operands.slots.buf, operands.slots.len / 2,
                                    1, operands.key.buf, operands.key.len);
    release(&operands, 3);
    return index < -1 ? NULL : PyLong_FromSsize_t(index);
}

static PyObject *interior_child(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs) {
    Operands operands;
    if (acquire(args, nargs, "interior_child", &operands) < 0) return NULL;
    Py_ssize_t child = child_in_interior(operands.page.buf, operands.page.len, operands.slots.buf,
                                         operands.slots.len / 2, 1, operands.key.buf, operands.key.len, -1);
    release(&operands, 3);
    return child < 0 ? NULL : PyLong_FromSsize_t(child);
}

/* -- cell sizes and layout, for splits and compaction ------------------------------------------ */

/* The size of the cell at `offset` (header and payload), or -1 with ValueError if it runs past
 * the page end. */
static Py_ssize_t cell_size(const unsigned char *page, Py_ssize_t page_size, Py_ssize_t offset, int is_leaf) {
    Py_ssize_t size;
    if (is_leaf) {
        if (offset + LEAF_KEY_AT > page_size) goto past_the_end;
        size = LEAF_KEY_AT + read_u16(page + offset) + read_u16(page + offset + 2);
    } else {
        if (offset + INTERIOR_KEY_AT > page_size) goto past_the_end;
        size = INTERIOR_KEY_AT + read_u16(page + offset + INTERIOR_LENGTH_AT);
    }
    if (offset + size > page_size) goto past_the_end;
    return size;
past_the_end:
    raise_damaged(page_size);
    return -1;
}

typedef struct {
    Py_buffer page, slots;
    int is_leaf;
} Cells;

/* 0 with the page and its slot array held, or -1 with an exception set and neither held. */
static int acquire_cells(PyObject *page, PyObject *slots, PyObject *is_leaf, const char *name, Cells *cells) {
    if ((cells->is_leaf = PyObject_IsTrue(is_leaf)) < 0) return -1;
    return acquire_page(page, slots, name, &cells->page, &cells->slots);
}

static void release_cells(Cells *cells) {
    PyBuffer_Release(&cells->slots);
    PyBuffer_Release(&cells->page);
}

static PyObject *cell_sizes(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs) {
    Cells cells;
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "cell_sizes(page, offsets, is_leaf) takes 3 arguments, got %zd", nargs);
        return NULL;
    }
    if (acquire_cells(args[0], args[1], args[2], "cell_sizes", &cells) < 0) return NULL;
    Py_ssize_t count = cells.slots.len / 2;
    const uint16_t *offsets = cells.slots.buf;
    PyObject *sizes = PyList_New(count);
    for (Py_ssize_t index = 0; sizes != NULL && index < count; index++) {
        Py_ssize_t size = cell_size(cells.page.buf, cells.page.len, offsets[index], cells.is_leaf);
        PyObject *number = size < 0 ? NULL : PyLong_FromSsize_t(size);
        if (number == NULL) Py_CLEAR(sizes);
        else PyList_SET_ITEM(sizes, index, number);
    }
    release_cells(&cells);
    return sizes;
}

/* lay_out_cells(page, offsets, is_leaf, insert_at, new_cell, first, stop): cells first..stop-1 of
 * the page's cells in key order with `new_cell` inserted at position `insert_at` (-1: none), laid
 * contiguously at the end of a fresh zeroed page in key order, as a split or a compaction writes
 * them. Returns (page bytearray, slot array as native u16 bytes, content start); ValueError if a
 * cell runs past the end of the source page, OverflowError if the cells do not fit a page. */
static PyObject *lay_out_cells(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 7) {
        PyErr_Format(PyExc_TypeError,
                     "lay_out_cells(page, offsets, is_leaf, insert_at, new_cell, first, stop) takes 7 arguments, got %zd", nargs);
        return NULL;
    }
    Py_ssize_t insert_at = PyLong_AsSsize_t(args[3]), first = PyLong_AsSsize_t(args[5]), stop = PyLong_AsSsize_t(args[6]);
    if (PyErr_Occurred()) return NULL;
    Cells cells;
    Py_buffer extra;
    if (acquire_cells(args[0], args[1], args[2], "lay_out_cells", &cells) < 0) return NULL;
    if (PyObject_GetBuffer(args[4], &extra, PyBUF_SIMPLE) < 0) {
        release_cells(&cells);
        return NULL;
    }
    const unsigned char *page = cells.page.buf;
    const uint16_t *offsets = cells.slots.buf;
    Py_ssize_t page_size = cells.page.len, count = cells.slots.len / 2 + (insert_at >= 0);
    PyObject *image = NULL, *slots = NULL, *result = NULL;
    if (insert_at > count - 1 || first < 0 || stop > count || first > stop) {
        PyErr_Format(PyExc_IndexError, "lay_out_cells: cells %zd..%zd (new one at %zd) of a page with %zd", first, stop,
                     insert_at, count - (insert_at >= 0));
        goto done;
    }
    Py_ssize_t total = 0;
    for (Py_ssize_t index = first; index < stop; index++) {
        if (index == insert_at) {
            total += extra.len;
            continue;
        }
        Py_ssize_t size = cell_size(page, page_size, offsets[insert_at >= 0 && index > insert_at ? index - 1 : index], cells.is_leaf);
        if (size < 0) goto done;
        total += size;
    }
    Py_ssize_t start = page_size - total;
    if (start < HEADER_SIZE + 2 * (stop - first)) {
        /* OverflowError, not ValueError: the caller's mistake (the split rules make it impossible), not damage */
        PyErr_Format(PyExc_OverflowError, "%zd cells of %zd bytes do not fit in a %zd-byte page", stop - first, total, page_size);
        goto done;
    }
    image = PyByteArray_FromStringAndSize(NULL, page_size);
    slots = PyBytes_FromStringAndSize(NULL, 2 * (stop - first));
    if (image == NULL || slots == NULL) goto done;
    unsigned char *out = (unsigned char *)PyByteArray_AS_STRING(image);
    uint16_t *out_slots = (uint16_t *)PyBytes_AS_STRING(slots);
    memset(out, 0, (size_t)start);
    Py_ssize_t at = start;
    for (Py_ssize_t index = first; index < stop; index++) {
        const unsigned char *cell;
        Py_ssize_t size;
        if (index == insert_at) {
            cell = extra.buf;
            size = extra.len;
        } else {
            Py_ssize_t offset = offsets[insert_at >= 0 && index > insert_at ? index - 1 : index];
            cell = page + offset;
            size = cell_size(page, page_size, offset, cells.is_leaf); /* checked in the first pass */
        }
        memcpy(out + at, cell, (size_t)size);
        out_slots[index - first] = (uint16_t)at;
        at += size;
    }
    result = Py_BuildValue("(OOn)", image, slots, start);
done:
    Py_XDECREF(image);
    Py_XDECREF(slots);
    PyBuffer_Release(&extra);
    release_cells(&cells);
    return result;
}

/* -- the whole descent of a point lookup ------------------------------------------------------ */

/* Deeper than any real tree: 1 KiB pages of 244-byte keys fan out at least 4 ways, so 2^64 keys
 * need 32 levels. A header claiming more is damaged, which the Python path then reports. */
#define MAX_LEVELS 64
#define MIN_PAGE_SIZE 1024   /* pagefile.PAGE_SIZES */
#define MAX_PAGE_SIZE 65536
#define MAX_FILE_PAGES 0xFFFFFFFFLL /* page numbers are u32 in the format: at 64 KiB, 2^48 bytes, well inside off_t */

static PyObject *name_is_leaf, *name_data, *name_offsets, *name_children;

/* The value of the leaf cell at `offset` as bytes; NULL with ValueError if it runs past the page. */
static PyObject *leaf_value(const unsigned char *page, Py_ssize_t page_size, Py_ssize_t offset) {
    if (offset + LEAF_KEY_AT > page_size) return raise_damaged(page_size);
    Py_ssize_t start = offset + LEAF_KEY_AT + read_u16(page + offset);
    Py_ssize_t length = read_u16(page + offset + 2);
    if (start + length > page_size) return raise_damaged(page_size);
    return PyBytes_FromStringAndSize((const char *)page + start, length);
}

/* One page's step: the next page number (>= 0), or -1 for "leaf reached" with *value set (a new
 * reference: bytes, or None if the key is absent), or -2 with ValueError set (damaged page).
 * `rightmost` is the child past the last key, or -1 to take it from the header's link field. */
static Py_ssize_t step(const unsigned char *page, Py_ssize_t page_size, const unsigned char *slots, Py_ssize_t count,
                       int slots_native, int is_leaf, long long rightmost, const Py_buffer *key, PyObject **value) {
    if (is_leaf) {
        Py_ssize_t index = find_in_leaf(page, page_size, slots, count, slots_native, key->buf, key->len);
        if (index < -1) return -2;
        *value = index < 0 ? Py_NewRef(Py_None) : leaf_value(page, page_size, slot_at(slots, index, slots_native));
        return *value == NULL ? -2 : -1;
    }
    Py_ssize_t child = child_in_interior(page, page_size, slots, count, slots_native, key->buf, key->len, rightmost);
    return child < 0 ? -2 : child;
}

/* 1 for a leaf page object, 0 for an interior one; -1 with an exception set otherwise
 * (AttributeError: a frame that is not a tree page, such as the header page). */
static int frame_is_leaf(PyObject *frame) {
    PyObject *flag = PyObject_GetAttr(frame, name_is_leaf);
    if (flag == NULL) return -1;
    int is_leaf = PyObject_IsTrue(flag);
    Py_DECREF(flag);
    return is_leaf;
}

/* A step over a page object in the buffer pool (slotted.py's TreePage): its cells are kept
 * current in `data` and its slot array in `offsets`; an interior page whose children are decoded
 * keeps its rightmost child there (the header's bytes are only written by image()). */
static Py_ssize_t step_resident(PyObject *frame, const Py_buffer *key, PyObject **value) {
    Py_ssize_t next = -2;
    int is_leaf = -1;
    long long rightmost = -1;
    Py_buffer data, slots;
    is_leaf = frame_is_leaf(frame);
    if (is_leaf < 0) return -2;
    if (!is_leaf) {
        PyObject *children = PyObject_GetAttr(frame, name_children);
        if (children == NULL) return -2;
        if (PyList_Check(children) && PyList_GET_SIZE(children) > 0)
            rightmost = PyLong_AsLongLong(PyList_GET_ITEM(children, PyList_GET_SIZE(children) - 1));
        Py_DECREF(children);
        if (rightmost == -1 && PyErr_Occurred()) return -2;
    }
    PyObject *data_object = PyObject_GetAttr(frame, name_data);
    if (data_object == NULL) return -2;
    PyObject *slots_object = PyObject_GetAttr(frame, name_offsets);
    if (slots_object == NULL) goto drop_data_object;
    if (acquire_page(data_object, slots_object, "descend", &data, &slots) == 0) {
        next = step(data.buf, data.len, slots.buf, slots.len / 2, 1, is_leaf, rightmost, key, value);
        PyBuffer_Release(&slots);
        PyBuffer_Release(&data);
    }
    Py_DECREF(slots_object);
drop_data_object:
    Py_DECREF(data_object);
    return next;
}

/* A step over a page image just read from the file: header and slot array as the file has them. */
static Py_ssize_t step_image(const unsigned char *page, Py_ssize_t page_size, const Py_buffer *key, PyObject **value) {
    Py_ssize_t count = read_u16(page + HEADER_COUNT_AT);
    long long content_start = read_u32(page + HEADER_CONTENT_START_AT); /* u32 in a long long: see read_u32 */
    if (page[0] != PAGE_TYPE_LEAF && page[0] != PAGE_TYPE_INTERIOR) return -3;
    if (HEADER_SIZE + 2 * count > content_start || content_start > page_size) return -3;
    return step(page, page_size, page + HEADER_SIZE, count, 0, page[0] == PAGE_TYPE_LEAF, -1, key, value);
}

/* descend(fd, buffer, resident, root, depth, key) -> (value or None, visits), or None.
 * The lookup of `key` from page `root`, `depth` levels down: the value (None if absent) and what
 * it did page by page (a page object found in `resident`, or a (page_no, image) pair read from
 * `fd` into `buffer` and copied). */
static PyObject *descend(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 6) {
        PyErr_Format(PyExc_TypeError, "descend(fd, buffer, resident, root, depth, key) takes 6 arguments, got %zd", nargs);
        return NULL;
    }
    long fd = PyLong_AsLong(args[0]);
    if (fd == -1 && PyErr_Occurred()) return NULL;
    if (fd < -1 || fd > INT_MAX) {
        PyErr_SetString(PyExc_ValueError, "descend: fd must be a file descriptor, or -1 for no file");
        return NULL;
    }
    PyObject *resident = args[2];
    if (!PyDict_Check(resident)) {
        PyErr_SetString(PyExc_TypeError, "descend: resident must be the pool's dict of pages");
        return NULL;
    }
    Py_ssize_t page_no = PyLong_AsSsize_t(args[3]);
    if (page_no == -1 && PyErr_Occurred()) return NULL;
    if (page_no < 0) {
        PyErr_SetString(PyExc_ValueError, "descend: root must be a page number");
        return NULL;
    }
    Py_ssize_t depth = PyLong_AsSsize_t(args[4]);
    if (depth == -1 && PyErr_Occurred()) return NULL;
    if (depth < 1) {
        PyErr_SetString(PyExc_ValueError, "descend: depth must be 1 or more (1: the root is the only leaf)");
        return NULL;
    }
    Py_buffer buffer, key;
    if (PyObject_GetBuffer(args[1], &buffer, PyBUF_WRITABLE) < 0) return NULL;
    if (fd >= 0 && (buffer.len < MIN_PAGE_SIZE || buffer.len > MAX_PAGE_SIZE)) {
        PyErr_Format(PyExc_ValueError, "descend: the read buffer must be one page, %d to %d bytes, not %zd",
                     MIN_PAGE_SIZE, MAX_PAGE_SIZE, buffer.len);
        PyBuffer_Release(&buffer);
        return NULL;
    }
    if (PyObject_GetBuffer(args[5], &key, PyBUF_SIMPLE) < 0) {
        PyBuffer_Release(&buffer);
        return NULL;
    }
    PyObject *visits = PyList_New(0), *value = NULL, *result = NULL;
    if (visits == NULL) goto done;
    if (depth > MAX_LEVELS) goto fall_back_or_fail;
    for (Py_ssize_t level = 0; level < depth; level++) {
        PyObject *number = PyLong_FromSsize_t(page_no);
        if (number == NULL) goto done;
        PyObject *frame = PyDict_GetItemWithError(resident, number); /* borrowed */
        PyObject *visit;
        if (frame != NULL) {
            Py_DECREF(number);
            if (PyList_Append(visits, frame) < 0) goto done;
            page_no = step_resident(frame, &key, &value);
        } else {
            /* fd < 0: no file to read from (the in-memory backend); a page number past any file
             * whose offset would overflow can only come from a caller's mistake */
            if (PyErr_Occurred() || fd < 0 || page_no > MAX_FILE_PAGES) {
                Py_DECREF(number);
                goto fall_back_or_fail;
            }
            Py_ssize_t got;
            Py_BEGIN_ALLOW_THREADS
            got = pread((int)fd, buffer.buf, (size_t)buffer.len, (off_t)page_no * buffer.len);
            Py_END_ALLOW_THREADS
            PyObject *image = got == buffer.len ? PyByteArray_FromStringAndSize(buffer.buf, buffer.len) : NULL;
            visit = image == NULL ? NULL : PyTuple_Pack(2, number, image);
            Py_DECREF(number);
            Py_XDECREF(image);
            if (visit == NULL || PyList_Append(visits, visit) < 0) {
                Py_XDECREF(visit);
                goto fall_back_or_fail; /* a short read or an I/O error: the Python path reports it */
            }
            Py_DECREF(visit);
            page_no = step_image((const unsigned char *)PyByteArray_AS_STRING(image), buffer.len, &key, &value);
        }
        /* every leaf is depth - 1 levels below the root: anything else is damage (or a cycle) */
        if (page_no < -1 || (page_no == -1) != (level == depth - 1)) goto fall_back_or_fail;
    }
    if (page_no != -1 || value == NULL) goto fall_back_or_fail; /* value is set exactly when a leaf was reached */
    result = PyTuple_Pack(2, value, visits);
    goto done;
fall_back_or_fail:
    /* A damaged page, a cycle, a failed read or a page that only the Python path can fetch: None,
     * and the caller takes the Python path, which reads the same pages again and, for the damage
     * or the failure, raises the error that names it. Errors that are not about the file pass. */
    if (!PyErr_Occurred() || PyErr_ExceptionMatches(PyExc_ValueError) || PyErr_ExceptionMatches(PyExc_OSError) ||
        PyErr_ExceptionMatches(PyExc_AttributeError)) { /* AttributeError: a pool frame that is not a tree page */
        PyErr_Clear();
        result = Py_NewRef(Py_None);
    }
done:
    Py_XDECREF(value);
    Py_XDECREF(visits);
    PyBuffer_Release(&key);
    PyBuffer_Release(&buffer);
    return result;
}

/* ---- put's common case: a new key that fits in its leaf's free gap ----
 *
 * Most inserts change one leaf and nothing else: the new cell goes into the free gap between the
 * slot array and the cells, its key into the page's decoded key list, its offset into the slot
 * array (LeafPage.insert_at). In Python that path, with the descent to the leaf, is about 150
 * bytecodes, which on this VM's 55-65 ns per loop iteration was the whole of the >= 100k/s
 * budget. `insert_in_gap` does it over the pool's page objects as they are (decoded pages only:
 * `_keys`, `_children`), and returns None, having changed nothing, for anything else: a page not
 * resident or not decoded, a key already present (a replace), a cell that does not fit in the gap
 * (compaction or a split), anything off the tree's shape. BTree.put then takes its Python path.
 * The rollback snapshot stays in Python: the C calls the pool's mark_dirty before it changes a
 * leaf the open transaction has not changed yet, as insert_at's caller does. The pool's counts
 * and LRU moves for the pages met are the caller's (BufferPool.count_hits): a hit changes no
 * page, so counting them after the insert instead of before gives the same figures. */

static PyObject *name_keys, *name_content_start, *name_cow_floor, *name_in_txn, *name_unshare, *name_insert;

/* bisect_left (right == 0) or bisect_right (right == 1) over a decoded page's keys, a list of
 * bytes; -1 if an item is not bytes (not a page this code knows: the caller falls back). */
static Py_ssize_t bisect_keys(PyObject *keys, const char *key, Py_ssize_t key_length, int right) {
    Py_ssize_t low = 0, high = PyList_GET_SIZE(keys);
    while (low < high) {
        Py_ssize_t middle = low + (high - low) / 2;
        PyObject *item = PyList_GET_ITEM(keys, middle);
        if (!PyBytes_CheckExact(item)) return -1;
        Py_ssize_t item_length = PyBytes_GET_SIZE(item);
        int order = memcmp(PyBytes_AS_STRING(item), key, item_length < key_length ? item_length : key_length);
        if (order == 0) order = (item_length > key_length) - (item_length < key_length);
        if (right ? order > 0 : order >= 0)
            high = middle;
        else
            low = middle + 1;
    }
    return low;
}

/* An attribute that must be a list (a decoded page's `_keys` or `_children`): a new reference,
 * or NULL, with an exception set only if the lookup failed for a reason other than absence. */
static PyObject *list_attribute(PyObject *frame, PyObject *name) {
    PyObject *list = PyObject_GetAttr(frame, name);
    if (list == NULL) {
        if (PyErr_ExceptionMatches(PyExc_AttributeError)) PyErr_Clear();
        return NULL;
    }
    if (!PyList_CheckExact(list)) Py_CLEAR(list); /* None: not decoded yet */
    return list;
}

/* An attribute that must be a whole number from 0 to 65536 (a page offset); -1 if it is not. */
static Py_ssize_t offset_attribute(PyObject *frame, PyObject *name) {
    PyObject *number = PyObject_GetAttr(frame, name);
    if (number == NULL) return -1;
    Py_ssize_t offset = PyLong_CheckExact(number) ? PyLong_AsSsize_t(number) : -1;
    Py_DECREF(number);
    if (offset == -1 && PyErr_Occurred()) return -1;
    return offset >= 0 && offset <= MAX_PAGE_SIZE ? offset : -1;
}

/* The page's bytes if they are a bytearray that holds `content_start` bytes: a new reference, or NULL. */
static PyObject *page_bytes(PyObject *frame, Py_ssize_t content_start) {
    PyObject *data = PyObject_GetAttr(frame, name_data);
    if (data != NULL && (!PyByteArray_CheckExact(data) || PyByteArray_GET_SIZE(data) < content_start)) Py_CLEAR(data);
    return data;
}

/* insert_in_gap(resident, mark_dirty, root, depth, key, value) -> the pages met, root first, or
 * None (nothing changed; the caller takes the Python path). */
static PyObject *insert_in_gap(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 6) {
        PyErr_Format(PyExc_TypeError,
                     "insert_in_gap(resident, mark_dirty, root, depth, key, value) takes 6 arguments, got %zd", nargs);
        return NULL;
    }
    PyObject *resident = args[0], *mark_dirty = args[1], *key = args[4], *value = args[5];
    Py_ssize_t depth = PyLong_AsSsize_t(args[3]);
    if (depth == -1 && PyErr_Occurred()) return NULL;
    if (!PyDict_Check(resident)) {
        PyErr_SetString(PyExc_TypeError, "insert_in_gap: resident must be the pool's dict of pages");
        return NULL;
    }
    if (depth < 1 || depth > MAX_LEVELS || !PyBytes_CheckExact(key) || !PyBytes_CheckExact(value) ||
        PyBytes_GET_SIZE(key) > 0xFFFF || PyBytes_GET_SIZE(value) > 0xFFFF)
        Py_RETURN_NONE; /* the Python path checks and reports */
    const char *key_bytes = PyBytes_AS_STRING(key);
    Py_ssize_t key_length = PyBytes_GET_SIZE(key), value_length = PyBytes_GET_SIZE(value);
    Py_ssize_t cell_length = LEAF_KEY_AT + key_length + value_length;

    PyObject *pages = PyList_New(depth), *page_no = Py_NewRef(args[2]), *keys = NULL, *data = NULL;
    PyObject *result = NULL, *leaf = NULL, *offsets = NULL;
    if (pages == NULL) goto done;
    for (Py_ssize_t level = 0; level < depth; level++) {
        PyObject *frame = PyDict_GetItemWithError(resident, page_no); /* borrowed; `pages` keeps it */
        if (frame == NULL) goto fall_back_or_fail;
        PyList_SET_ITEM(pages, level, Py_NewRef(frame));
        int is_leaf = frame_is_leaf(frame);
        if (is_leaf < 0) { /* a frame that is not a tree page (the header page): the Python path names it */
            if (PyErr_ExceptionMatches(PyExc_AttributeError)) PyErr_Clear();
            goto fall_back_or_fail;
        }
        if (is_leaf != (level == depth - 1)) goto fall_back; /* off the tree's shape: the Python path names it */
        Py_XSETREF(keys, list_attribute(frame, name_keys));
        if (keys == NULL) goto fall_back_or_fail;
        if (is_leaf) {
            leaf = frame;
            break;
        }
        PyObject *children = list_attribute(frame, name_children);
        if (children == NULL) goto fall_back_or_fail;
        Py_ssize_t child = bisect_keys(keys, key_bytes, key_length, 1);
        if (child >= 0 && PyList_GET_SIZE(children) == PyList_GET_SIZE(keys) + 1)
            Py_SETREF(page_no, Py_NewRef(PyList_GET_ITEM(children, child)));
        Py_DECREF(children);
        if (child < 0 || !PyLong_CheckExact(page_no)) goto fall_back;
    }
    if (leaf == NULL) goto fall_back;

    Py_ssize_t index = bisect_keys(keys, key_bytes, key_length, 0);
    if (index < 0) goto fall_back;
    if (index < PyList_GET_SIZE(keys)) {
        PyObject *next = PyList_GET_ITEM(keys, index);
        if (PyBytes_GET_SIZE(next) == key_length && memcmp(PyBytes_AS_STRING(next), key_bytes, key_length) == 0)
            goto fall_back; /* a replace */
    }
    Py_ssize_t content_start = offset_attribute(leaf, name_content_start);
    if (content_start < 0) goto fall_back_or_fail;
    offsets = PyObject_GetAttr(leaf, name_offsets);
    if (offsets == NULL) goto fall_back_or_fail;
    Py_ssize_t count = PyObject_Size(offsets);
    if (count < 0) goto fall_back_or_fail;
    Py_ssize_t start = content_start - cell_length;
    if (start < HEADER_SIZE + 2 * (count + 1)) goto fall_back; /* not in the gap: compaction or a split */
    data = page_bytes(leaf, content_start);
    if (data == NULL) goto fall_back_or_fail;

    /* The checks are done: from here on the leaf changes, in insert_at's order. */
    PyObject *flag = PyObject_GetAttr(leaf, name_in_txn);
    if (flag == NULL) goto done;
    int in_txn = PyObject_IsTrue(flag);
    Py_DECREF(flag);
    if (in_txn < 0) goto done;
    if (!in_txn) { /* the pool keeps the committed state for rollback before the first change */
        PyObject *marked = PyObject_CallOneArg(mark_dirty, leaf);
        if (marked == NULL) goto done;
        Py_DECREF(marked);
    }
    Py_ssize_t cow_floor = offset_attribute(leaf, name_cow_floor);
    if (cow_floor < 0) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_SystemError, "insert_in_gap: a leaf's cow_floor is not an offset");
        goto done;
    }
    if (content_start > cow_floor) { /* the gap's top is shared with a rollback snapshot: copy first */
        PyObject *unshared = PyObject_CallMethodNoArgs(leaf, name_unshare);
        if (unshared == NULL) goto done;
        Py_DECREF(unshared);
        Py_SETREF(data, page_bytes(leaf, content_start));
        if (data == NULL) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_SystemError, "insert_in_gap: a leaf's copied bytes are short");
            goto done;
        }
    }
    unsigned char *cell = (unsigned char *)PyByteArray_AS_STRING(data) + start;
    cell[0] = (unsigned char)key_length;
    cell[1] = (unsigned char)(key_length >> 8);
    cell[2] = (unsigned char)value_length;
    cell[3] = (unsigned char)(value_length >> 8);
    memcpy(cell + LEAF_KEY_AT, key_bytes, key_length);
    memcpy(cell + LEAF_KEY_AT + key_length, PyBytes_AS_STRING(value), value_length);
    PyObject *start_object = PyLong_FromSsize_t(start), *index_object = NULL;
    if (start_object == NULL || PyObject_SetAttr(leaf, name_content_start, start_object) < 0 ||
        PyList_Insert(keys, index, key) < 0 || (index_object = PyLong_FromSsize_t(index)) == NULL) {
        Py_XDECREF(start_object);
        goto done;
    }
    PyObject *inserted = PyObject_CallMethodObjArgs(offsets, name_insert, index_object, start_object, NULL);
    Py_DECREF(index_object);
    Py_DECREF(start_object);
    if (inserted == NULL) goto done;
    Py_DECREF(inserted);
    result = Py_NewRef(pages);
    goto done;
fall_back_or_fail:
    if (PyErr_Occurred()) goto done; /* not about the page: an error to pass on */
fall_back:
    result = Py_NewRef(Py_None);
done:
    Py_XDECREF(pages);
    Py_XDECREF(page_no);
    Py_XDECREF(keys);
    Py_XDECREF(data);
    Py_XDECREF(offsets);
    return result;
}

/* -- decoding a page image (nodes.decode_tree_page) ---------------------------------------------
 *
 * Every page a cold lookup reads becomes a page object in the pool, and that decoding ran in
 * Python right after the read, with the caches cold. Here it is one C call that sets exactly the
 * fields nodes.py's Python decode sets (a test holds the two to the same fields), and hands every
 * page it does not take, with its page number and image, to that Python decode (`fallback`): a
 * special page (the database's header page), an impossible header, an unknown page type, an image
 * that is neither bytes nor bytearray. So the Python decode stays the one that names damage. */

static PyObject *array_type, *name_type_code_H, *zero_float;
static PyObject *name_page_no, *name_pins, *name_dirty, *name_old, *name_accessed_at, *name_young_clock,
    *name_before, *name_page_size, *name_fragmented, *name_link;

/* The slot array as array('H') in native order, from the image's little-endian u16s. */
static PyObject *slot_array(const unsigned char *page, Py_ssize_t count) {
    PyObject *native = PyBytes_FromStringAndSize(NULL, 2 * count);
    if (native == NULL) return NULL;
    char *out = PyBytes_AS_STRING(native);
    for (Py_ssize_t index = 0; index < count; index++) {
        uint16_t slot = (uint16_t)read_u16(page + HEADER_SIZE + 2 * index);
        memcpy(out + 2 * index, &slot, 2);
    }
    PyObject *offsets = PyObject_CallFunctionObjArgs(array_type, name_type_code_H, native, NULL);
    Py_DECREF(native);
    return offsets;
}

static int set_number(PyObject *object, PyObject *name, long long number) {
    PyObject *value = PyLong_FromLongLong(number);
    if (value == NULL) return -1;
    int result = PyObject_SetAttr(object, name, value);
    Py_DECREF(value);
    return result;
}

/* decode_page(leaf_type, interior_type, fallback, special_page_no, page_no, image) -> page object */
static PyObject *decode_page(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 6) {
        PyErr_Format(PyExc_TypeError, "decode_page(leaf_type, interior_type, fallback, special_page_no, page_no, image) "
                     "takes 6 arguments, got %zd", nargs);
        return NULL;
    }
    PyObject *page_no = args[4], *image = args[5];
    int special = PyObject_RichCompareBool(page_no, args[3], Py_EQ);
    if (special < 0) return NULL;
    const unsigned char *page = NULL;
    Py_ssize_t page_size = 0;
    if (PyByteArray_Check(image)) {
        page = (const unsigned char *)PyByteArray_AS_STRING(image);
        page_size = PyByteArray_GET_SIZE(image);
    } else if (PyBytes_Check(image)) {
        page = (const unsigned char *)PyBytes_AS_STRING(image);
        page_size = PyBytes_GET_SIZE(image);
    }
    if (special || page == NULL || page_size < HEADER_SIZE || !PyType_Check(args[0]) || !PyType_Check(args[1]))
        return PyObject_Vectorcall(args[2], args + 4, 2, NULL);
    int page_type = page[0];
    Py_ssize_t count = read_u16(page + HEADER_COUNT_AT);
    long long content_start = read_u32(page + HEADER_CONTENT_START_AT); /* u32 in a long long: see read_u32 */
    long long fragmented = read_u32(page + 8);
    long long link = read_u32(page + HEADER_LINK_AT);
    if ((page_type != PAGE_TYPE_LEAF && page_type != PAGE_TYPE_INTERIOR) || HEADER_SIZE + 2 * count > content_start ||
        content_start > page_size || fragmented > page_size)
        return PyObject_Vectorcall(args[2], args + 4, 2, NULL);

    PyTypeObject *type = (PyTypeObject *)(page_type == PAGE_TYPE_LEAF ? args[0] : args[1]);
    PyObject *data = PyByteArray_CheckExact(image) ? Py_NewRef(image)  /* the page file's fresh buffer, kept */
                                                   : PyByteArray_FromStringAndSize((const char *)page, page_size);
    PyObject *offsets = data ? slot_array(page, count) : NULL;
    PyObject *frame = offsets ? type->tp_alloc(type, 0) : NULL;
    int failed = frame == NULL ||
        /* Frame.__init__ */
        PyObject_SetAttr(frame, name_page_no, page_no) < 0 || set_number(frame, name_pins, 0) < 0 ||
        PyObject_SetAttr(frame, name_dirty, Py_False) < 0 || PyObject_SetAttr(frame, name_in_txn, Py_False) < 0 ||
        PyObject_SetAttr(frame, name_old, Py_True) < 0 || PyObject_SetAttr(frame, name_accessed_at, zero_float) < 0 ||
        set_number(frame, name_young_clock, 0) < 0 || PyObject_SetAttr(frame, name_before, Py_None) < 0 ||
        /* the tree page's own fields */
        set_number(frame, name_page_size, page_size) < 0 || PyObject_SetAttr(frame, name_data, data) < 0 ||
        set_number(frame, name_content_start, content_start) < 0 || set_number(frame, name_fragmented, fragmented) < 0 ||
        PyObject_SetAttr(frame, name_offsets, offsets) < 0 || PyObject_SetAttr(frame, name_keys, Py_None) < 0 ||
        set_number(frame, name_cow_floor, page_size) < 0 ||
        (page_type == PAGE_TYPE_LEAF ? set_number(frame, name_link, link)
                                     : PyObject_SetAttr(frame, name_children, Py_None)) < 0; /* rightmost child: in the header until decoded */
    Py_XDECREF(offsets);
    Py_XDECREF(data);
    if (failed) Py_CLEAR(frame);
    return frame;
}

/* -- the buffer pool's bookkeeping after a descent (BufferPool.replay) --------------------------
 *
 * After a cold lookup's last read, the pool counts the pages met and caches the ones read, with
 * InnoDB's midpoint insertion and eviction (lru.py draws the lists). In Python that was
 * ~40 us per lookup at 4 KiB pages right after the read, against ~12 us warm: a tenth of the
 * lookup. This is the same sequence of steps as BufferPool.fetch for a page found, and as
 * _make_room, the page file's count_read, the pool's decode and _admit for a page read, written
 * against the pool's own attributes and lists (its dicts and OrderedDicts, the frames' fields),
 * so the pool stays the one owner of its state and the Python methods remain its definition;
 * tests/storage/test_descend.py holds the two to the same counts, evictions and list order.
 * Python is called back for what is not the pool's to decide: the clock, the page file's
 * count_read, decode, writing a dirty page out (_write), the error naming a full pool, and
 * fetch for a page an earlier read of the same lookup evicted. Each list change is a run of C
 * stores with no Python call inside it, so an interrupt (which can only arrive in those calls)
 * finds the lists whole, as the module doc of bufferpool.py requires. */

static PyObject *name_resident, *name_old_list, *name_young_list, *name_dirty_pages, *name_capacity,
    *name_old_blocks_pct, *name_old_blocks_time_s, *name_clock, *name_decode, *name_pagefile,
    *name_young_refresh_after, *name_gets, *name_misses, *name_not_young, *name_made_young, *name_evictions,
    *name_count_read, *name_write, *name_pool_full_error, *name_fetch, *name_move_to_end, *name_reversed, *name_pop;

typedef struct {
    PyObject *pool, *resident, *old, *young; /* the lists: borrowed from the pool for the call */
    Py_ssize_t capacity, old_blocks_pct, young_refresh_after;
} Pool;

static Py_ssize_t number_attribute(PyObject *object, PyObject *name) {
    PyObject *value = PyObject_GetAttr(object, name);
    if (value == NULL) return -1;
    Py_ssize_t number = PyLong_AsSsize_t(value);
    Py_DECREF(value);
    return number;
}

static int truth_attribute(PyObject *object, PyObject *name) {
    PyObject *value = PyObject_GetAttr(object, name);
    if (value == NULL) return -1;
    int truth = PyObject_IsTrue(value);
    Py_DECREF(value);
    return truth;
}

/* pool.<counter> += 1 */
static int count_one(Pool *pool, PyObject *counter) {
    Py_ssize_t value = number_attribute(pool->pool, counter);
    if (value == -1 && PyErr_Occurred()) return -1;
    return set_number(pool->pool, counter, value + 1);
}

/* pool.<method>(argument) (no argument if NULL), its result dropped */
static int call_pool(Pool *pool, PyObject *method, PyObject *argument) {
    PyObject *result = argument ? PyObject_CallMethodOneArg(pool->pool, method, argument)
                                : PyObject_CallMethodNoArgs(pool->pool, method);
    Py_XDECREF(result);
    return result == NULL ? -1 : 0;
}

/* pool._clock() */
static PyObject *now(Pool *pool) {
    PyObject *clock = PyObject_GetAttr(pool->pool, name_clock);
    if (clock == NULL) return NULL;
    PyObject *time = PyObject_CallNoArgs(clock);
    Py_DECREF(clock);
    return time;
}

/* The key at the tail (first) or the head (last) of a sublist; a new reference. */
static PyObject *end_key(PyObject *sublist, int head) {
    PyObject *iterator = head ? PyObject_CallMethodNoArgs(sublist, name_reversed) : PyObject_GetIter(sublist);
    if (iterator == NULL) return NULL;
    PyObject *key = PyIter_Next(iterator);
    Py_DECREF(iterator);
    if (key == NULL && !PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "replay: an LRU sublist is empty");
    return key;
}

/* _old_head_to_young_tail */
static int old_head_to_young_tail(Pool *pool) {
    PyObject *page_no = end_key(pool->old, 1);
    if (page_no == NULL) return -1;
    PyObject *frame = PyObject_GetItem(pool->old, page_no), *moved = NULL;
    if (frame != NULL && PyObject_DelItem(pool->old, page_no) == 0 && PyObject_SetAttr(frame, name_old, Py_False) == 0 &&
        PyObject_SetItem(pool->young, page_no, frame) == 0)
        moved = PyObject_CallMethodObjArgs(pool->young, name_move_to_end, page_no, Py_False, NULL);
    Py_XDECREF(moved);
    Py_XDECREF(frame);
    Py_DECREF(page_no);
    return moved == NULL ? -1 : 0;
}

/* _rebalance */
static int rebalance(Pool *pool) {
    Py_ssize_t target = PyDict_GET_SIZE(pool->resident) * pool->old_blocks_pct / 100;
    while (PyObject_Length(pool->old) > target)
        if (old_head_to_young_tail(pool) < 0) return -1;
    while (PyObject_Length(pool->old) < target && PyObject_Length(pool->young) > 0) {
        PyObject *page_no = end_key(pool->young, 0); /* the young tail becomes the old head */
        if (page_no == NULL) return -1;
        PyObject *frame = PyObject_GetItem(pool->young, page_no);
        int failed = frame == NULL || PyObject_DelItem(pool->young, page_no) < 0 ||
                     PyObject_SetAttr(frame, name_old, Py_True) < 0 || PyObject_SetItem(pool->old, page_no, frame) < 0;
        Py_XDECREF(frame);
        Py_DECREF(page_no);
        if (failed) return -1;
    }
    return 0;
}

/* _insert_at_midpoint */
static int insert_at_midpoint(Pool *pool, PyObject *frame, Py_ssize_t evictions) {
    PyObject *page_no = PyObject_GetAttr(frame, name_page_no), *accessed_at = NULL;
    if (page_no == NULL) return -1;
    int failed = PyObject_SetAttr(frame, name_old, Py_True) < 0 || set_number(frame, name_young_clock, evictions) < 0 ||
                 (accessed_at = now(pool)) == NULL || PyObject_SetAttr(frame, name_accessed_at, accessed_at) < 0;
    Py_XDECREF(accessed_at);
    Py_ssize_t old_target = (PyDict_GET_SIZE(pool->resident) + 1) * pool->old_blocks_pct / 100; /* with the page entering */
    if (!failed) {
        Py_ssize_t old_length = PyObject_Length(pool->old);
        failed = old_length < 0 || (old_length > 0 && old_length >= old_target && old_head_to_young_tail(pool) < 0) ||
                 PyDict_SetItem(pool->resident, page_no, frame) < 0 || PyObject_SetItem(pool->old, page_no, frame) < 0;
    }
    Py_DECREF(page_no);
    if (failed) return -1;
    return PyObject_Length(pool->old) != old_target ? rebalance(pool) : 0;
}

/* _remove */
static int remove_frame(Pool *pool, PyObject *frame, PyObject *page_no) {
    int old = truth_attribute(frame, name_old);
    if (old < 0 || PyDict_DelItem(pool->resident, page_no) < 0 || PyObject_DelItem(old ? pool->old : pool->young, page_no) < 0)
        return -1;
    PyObject *dirty_pages = PyObject_GetAttr(pool->pool, name_dirty_pages);
    PyObject *popped = dirty_pages ? PyObject_CallMethodObjArgs(dirty_pages, name_pop, page_no, Py_None, NULL) : NULL;
    Py_XDECREF(dirty_pages);
    Py_XDECREF(popped);
    return popped == NULL ? -1 : 0;
}

/* _evict: the page nearest the tail, old sublist first, that is neither pinned nor in the open
 * transaction; written first if dirty. */
static int evict(Pool *pool) {
    PyObject *sublists[2] = {pool->old, pool->young};
    for (int which = 0; which < 2; which++) {
        PyObject *iterator = PyObject_GetIter(sublists[which]), *page_no;
        if (iterator == NULL) return -1;
        while ((page_no = PyIter_Next(iterator)) != NULL) {
            PyObject *frame = PyObject_GetItem(sublists[which], page_no);
            Py_ssize_t pins = frame ? number_attribute(frame, name_pins) : -1;
            int in_txn = pins == -1 && PyErr_Occurred() ? -1 : truth_attribute(frame, name_in_txn);
            int dirty = in_txn < 0 ? -1 : truth_attribute(frame, name_dirty);
            if (dirty < 0 || (!pins && !in_txn)) {
                Py_DECREF(iterator); /* the loop ends here, so changing the list is safe */
                int failed = dirty < 0 || (dirty && call_pool(pool, name_write, frame) < 0) ||
                             remove_frame(pool, frame, page_no) < 0 || count_one(pool, name_evictions) < 0;
                Py_XDECREF(frame);
                Py_DECREF(page_no);
                return failed ? -1 : 0;
            }
            Py_DECREF(frame);
            Py_DECREF(page_no);
        }
        Py_DECREF(iterator);
        if (PyErr_Occurred()) return -1;
    }
    PyObject *error = PyObject_CallMethodNoArgs(pool->pool, name_pool_full_error);
    if (error != NULL) {
        PyErr_SetObject((PyObject *)Py_TYPE(error), error);
        Py_DECREF(error);
    }
    return -1;
}

/* A page the descent read: replay's miss (gets, _make_room, count_read, decode, _admit). */
static int replay_read(Pool *pool, PyObject *visit) {
    if (count_one(pool, name_gets) < 0) return -1;
    if (PyDict_GET_SIZE(pool->resident) >= pool->capacity && evict(pool) < 0) return -1;
    PyObject *pagefile = PyObject_GetAttr(pool->pool, name_pagefile);
    PyObject *counted = pagefile ? PyObject_CallMethodNoArgs(pagefile, name_count_read) : NULL;
    Py_XDECREF(pagefile);
    if (counted == NULL) return -1;
    Py_DECREF(counted);
    PyObject *decode = PyObject_GetAttr(pool->pool, name_decode);
    PyObject *frame = decode ? PyObject_Vectorcall(decode, &PyTuple_GET_ITEM(visit, 0), 2, NULL) : NULL;
    Py_XDECREF(decode);
    if (frame == NULL) return -1;
    Py_ssize_t evictions = number_attribute(pool->pool, name_evictions);
    int failed = (evictions == -1 && PyErr_Occurred()) || count_one(pool, name_misses) < 0 ||
                 insert_at_midpoint(pool, frame, evictions) < 0 || (evictions && count_one(pool, name_not_young) < 0);
    Py_DECREF(frame);
    return failed ? -1 : 0;
}

/* _touch_old, then _make_young when the page has been in the pool long enough */
static int touch_old(Pool *pool, PyObject *frame, PyObject *page_no, Py_ssize_t evictions) {
    PyObject *time = now(pool);
    PyObject *accessed_at = time ? PyObject_GetAttr(frame, name_accessed_at) : NULL;
    PyObject *waited = accessed_at ? PyNumber_Subtract(time, accessed_at) : NULL;
    PyObject *threshold = waited ? PyObject_GetAttr(pool->pool, name_old_blocks_time_s) : NULL;
    int long_enough = threshold ? PyObject_RichCompareBool(waited, threshold, Py_GE) : -1;
    Py_XDECREF(threshold);
    Py_XDECREF(waited);
    Py_XDECREF(accessed_at);
    Py_XDECREF(time);
    if (long_enough < 0) return -1;
    if (!long_enough) return count_one(pool, name_not_young);
    if (PyObject_DelItem(pool->old, page_no) < 0 || PyObject_SetAttr(frame, name_old, Py_False) < 0 ||
        set_number(frame, name_young_clock, evictions) < 0 || PyObject_SetItem(pool->young, page_no, frame) < 0 ||
        count_one(pool, name_made_young) < 0)
        return -1;
    return rebalance(pool);
}

/* A page the descent found in the pool: fetch's hit. */
static int replay_hit(Pool *pool, PyObject *visit) {
    PyObject *page_no = PyObject_GetAttr(visit, name_page_no);
    if (page_no == NULL) return -1;
    PyObject *frame = PyDict_GetItemWithError(pool->resident, page_no);
    if (frame == NULL) { /* evicted by an earlier read of this lookup: fetch reads it again, as fetching would have */
        int failed = PyErr_Occurred() || call_pool(pool, name_fetch, page_no) < 0;
        Py_DECREF(page_no);
        return failed ? -1 : 0;
    }
    Py_INCREF(frame);
    Py_ssize_t evictions = count_one(pool, name_gets) < 0 ? -1 : number_attribute(pool->pool, name_evictions);
    int failed = evictions == -1 && PyErr_Occurred();
    if (!failed && evictions) { /* before the first eviction a hit moves nothing */
        int old = truth_attribute(frame, name_old);
        if (old) {
            failed = old < 0 || touch_old(pool, frame, page_no, evictions) < 0;
        } else {
            Py_ssize_t young_clock = number_attribute(frame, name_young_clock);
            failed = young_clock == -1 && PyErr_Occurred();
            if (!failed && evictions - young_clock >= pool->young_refresh_after) {
                PyObject *moved = PyObject_CallMethodOneArg(pool->young, name_move_to_end, page_no);
                failed = moved == NULL || set_number(frame, name_young_clock, evictions) < 0;
                Py_XDECREF(moved);
            }
        }
    }
    Py_DECREF(frame);
    Py_DECREF(page_no);
    return failed ? -1 : 0;
}

/* replay(pool, visits): BufferPool.replay (see above) */
static PyObject *replay(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyList_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "replay(pool, visits) takes a buffer pool and the list of visits descend made");
        return NULL;
    }
    Pool pool = {.pool = args[0]};
    pool.resident = PyObject_GetAttr(pool.pool, name_resident);
    pool.old = pool.resident ? PyObject_GetAttr(pool.pool, name_old_list) : NULL;
    pool.young = pool.old ? PyObject_GetAttr(pool.pool, name_young_list) : NULL;
    int failed = pool.young == NULL;
    if (!failed && !PyDict_CheckExact(pool.resident)) {
        PyErr_SetString(PyExc_TypeError, "replay: the pool's _resident is not a dict");
        failed = 1;
    }
    if (!failed) {
        pool.capacity = number_attribute(pool.pool, name_capacity);
        pool.old_blocks_pct = number_attribute(pool.pool, name_old_blocks_pct);
        pool.young_refresh_after = number_attribute(pool.pool, name_young_refresh_after);
        failed = PyErr_Occurred() != NULL;
    }
    PyObject *visits = args[1];
    for (Py_ssize_t index = 0; !failed && index < PyList_GET_SIZE(visits); index++) {
        /* Owned for the step: the callbacks run Python, which may drop the list's reference. */
        PyObject *visit = Py_NewRef(PyList_GET_ITEM(visits, index));
        failed = (PyTuple_CheckExact(visit) && PyTuple_GET_SIZE(visit) == 2 ? replay_read(&pool, visit)
                                                                             : replay_hit(&pool, visit)) < 0;
        Py_DECREF(visit);
    }
    Py_XDECREF(pool.resident);
    Py_XDECREF(pool.old);
    Py_XDECREF(pool.young);
    if (failed) return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"leaf_find", (PyCFunction)(void (*)(void))leaf_find, METH_FASTCALL,
     "leaf_find(page, offsets, key) -> index of key among the leaf's cells, or -1 if absent"},
    {"interior_child", (PyCFunction)(void (*)(void))interior_child, METH_FASTCALL,
     "interior_child(page, offsets, key) -> the child page whose key range holds key"},
    {"cell_sizes", (PyCFunction)(void (*)(void))cell_sizes, METH_FASTCALL,
     "cell_sizes(page, offsets, is_leaf) -> each cell's size in bytes, in slot order"},
    {"lay_out_cells", (PyCFunction)(void (*)(void))lay_out_cells, METH_FASTCALL,
     "lay_out_cells(page, offsets, is_leaf, insert_at, new_cell, first, stop) -> (page, slots, content_start)"},
    {"descend", (PyCFunction)(void (*)(void))descend, METH_FASTCALL,
     "descend(fd, buffer, resident, root, depth, key) -> (value or None, visits), or None to take the Python path"},
    {"insert_in_gap", (PyCFunction)(void (*)(void))insert_in_gap, METH_FASTCALL,
     "insert_in_gap(resident, mark_dirty, root, depth, key, value) -> the pages met (root first), or None to take "
     "the Python path"},
    {"decode_page", (PyCFunction)(void (*)(void))decode_page, METH_FASTCALL,
     "decode_page(leaf_type, interior_type, fallback, special_page_no, page_no, image) -> the page object "
     "(fallback(page_no, image) for the special page and any image it does not take)"},
    {"replay", (PyCFunction)(void (*)(void))replay, METH_FASTCALL,
     "replay(pool, visits): the pool's counts, LRU moves and evictions for what descend did (BufferPool.replay)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "pagelab.storage._cellsearch",
    "Binary search over an undecoded slotted page's cells (see the comment in _cellsearch.c).", -1, methods,
};

PyMODINIT_FUNC PyInit__cellsearch(void) {
    if ((name_is_leaf = PyUnicode_InternFromString("is_leaf")) == NULL ||
        (name_data = PyUnicode_InternFromString("data")) == NULL ||
        (name_offsets = PyUnicode_InternFromString("offsets")) == NULL ||
        (name_children = PyUnicode_InternFromString("_children")) == NULL ||
        (name_keys = PyUnicode_InternFromString("_keys")) == NULL ||
        (name_content_start = PyUnicode_InternFromString("content_start")) == NULL ||
        (name_cow_floor = PyUnicode_InternFromString("cow_floor")) == NULL ||
        (name_in_txn = PyUnicode_InternFromString("in_txn")) == NULL ||
        (name_unshare = PyUnicode_InternFromString("_unshare")) == NULL ||
        (name_insert = PyUnicode_InternFromString("insert")) == NULL)
        return NULL;
    struct { PyObject **name; const char *text; } names[] = {
        {&name_page_no, "page_no"}, {&name_pins, "pins"}, {&name_dirty, "dirty"}, {&name_old, "old"},
        {&name_accessed_at, "accessed_at"}, {&name_young_clock, "young_clock"}, {&name_before, "before"},
        {&name_page_size, "page_size"}, {&name_fragmented, "fragmented"}, {&name_link, "link"},
        {&name_type_code_H, "H"}, {&name_resident, "_resident"}, {&name_old_list, "_old"},
        {&name_young_list, "_young"}, {&name_dirty_pages, "_dirty"}, {&name_capacity, "capacity"},
        {&name_old_blocks_pct, "old_blocks_pct"}, {&name_old_blocks_time_s, "old_blocks_time_s"},
        {&name_clock, "_clock"}, {&name_decode, "_decode"}, {&name_pagefile, "pagefile"},
        {&name_young_refresh_after, "_young_refresh_after"}, {&name_gets, "gets"}, {&name_misses, "misses"},
        {&name_not_young, "not_young"}, {&name_made_young, "made_young"}, {&name_evictions, "evictions"},
        {&name_count_read, "count_read"}, {&name_write, "_write"}, {&name_pool_full_error, "_pool_full_error"},
        {&name_fetch, "fetch"}, {&name_move_to_end, "move_to_end"}, {&name_reversed, "__reversed__"},
        {&name_pop, "pop"},
    };
    for (size_t index = 0; index < sizeof names / sizeof names[0]; index++)
        if ((*names[index].name = PyUnicode_InternFromString(names[index].text)) == NULL) return NULL;
    PyObject *array_module = PyImport_ImportModule("array");
    array_type = array_module ? PyObject_GetAttrString(array_module, "array") : NULL;
    Py_XDECREF(array_module);
    if (array_type == NULL || (zero_float = PyFloat_FromDouble(0.0)) == NULL) return NULL;
    return PyModule_Create(&module);
}

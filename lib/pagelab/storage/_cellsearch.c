/* Binary search over the cells of a slotted page that has not been decoded (see slotted.py).
 *
 * Why this one piece is in C. A cold point lookup reads a page from the device, searches it once
 * and moves on, so the search runs right after the process wakes from the read. Measured on the
 * project's 2-vCPU VM (bench/bench_wakeup.py, bench/bench_lookups.py): Python code that runs
 * right after such a wake-up is 2-3x slower than the same code run warm, and the search written
 * in Python (bisect with a key function that slices each probed key out of the page) was the
 * largest piece of the prototype's own time per page read. In C it costs 3.5 us less per read
 * at 4 KiB pages and 8 us less at 16 KiB (26 us less at 4 KiB while the VM ran slow), a tenth to
 * a quarter of the prototype's overhead per read.
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
 * slotted.py turns into a StorageError naming the page.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define LEAF_KEY_AT 4      /* key bytes start after key length u16 + value length u16 */
#define LEAF_LENGTH_AT 0   /* key length u16 */
#define INTERIOR_KEY_AT 6  /* key bytes start after child page u32 + key length u16 */
#define INTERIOR_LENGTH_AT 4
#define HEADER_LINK_AT 12  /* the page header's link field: an interior page's rightmost child */

static inline uint32_t read_u16(const unsigned char *at) { return (uint32_t)at[0] | ((uint32_t)at[1] << 8); }

static inline uint32_t read_u32(const unsigned char *at) {
    return (uint32_t)at[0] | ((uint32_t)at[1] << 8) | ((uint32_t)at[2] << 16) | ((uint32_t)at[3] << 24);
}

typedef struct {
    Py_buffer page, slots, key;
} Operands;

static void release(Operands *operands, int acquired) {
    if (acquired > 0) PyBuffer_Release(&operands->page);
    if (acquired > 1) PyBuffer_Release(&operands->slots);
    if (acquired > 2) PyBuffer_Release(&operands->key);
}

/* 0 with all three buffers held, or -1 with an exception set and none held. */
static int acquire(PyObject *const *args, Py_ssize_t nargs, const char *name, Operands *operands) {
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "%s(page, offsets, key) takes 3 arguments, got %zd", name, nargs);
        return -1;
    }
    if (PyObject_GetBuffer(args[0], &operands->page, PyBUF_SIMPLE) < 0) return -1;
    if (PyObject_GetBuffer(args[1], &operands->slots, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) {
        release(operands, 1);
        return -1;
    }
    if (operands->slots.itemsize != 2 || operands->slots.ndim > 1) {
        PyErr_Format(PyExc_TypeError, "%s: offsets must be a buffer of u16, such as array('H')", name);
        release(operands, 2);
        return -1;
    }
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
 * cell runs past the end of the page. */
static Py_ssize_t search(const Operands *operands, Py_ssize_t key_at, Py_ssize_t length_at, int right) {
    const unsigned char *page = operands->page.buf;
    const uint16_t *offsets = operands->slots.buf;
    const unsigned char *key = operands->key.buf;
    Py_ssize_t page_size = operands->page.len, key_length = operands->key.len;
    Py_ssize_t low = 0, high = operands->slots.len / 2;
    while (low < high) {
        Py_ssize_t middle = low + (high - low) / 2;
        Py_ssize_t offset = offsets[middle];
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

/* 1 if the leaf cell at slot `index` holds exactly the key, 0 if not; -1 with ValueError set if
 * the cell runs past the end of the page. */
static int leaf_cell_is_key(const Operands *operands, Py_ssize_t index) {
    Py_ssize_t offset = ((const uint16_t *)operands->slots.buf)[index];
    Py_ssize_t page_size = operands->page.len, key_length = operands->key.len;
    const unsigned char *cell = (const unsigned char *)operands->page.buf + offset;
    if (offset + LEAF_KEY_AT > page_size) goto past_the_end;
    if ((Py_ssize_t)read_u16(cell + LEAF_LENGTH_AT) != key_length) return 0;
    if (offset + LEAF_KEY_AT + key_length > page_size) goto past_the_end;
    return memcmp(cell + LEAF_KEY_AT, operands->key.buf, key_length) == 0;
past_the_end:
    raise_damaged(page_size);
    return -1;
}

static PyObject *leaf_find(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    Operands operands;
    if (acquire(args, nargs, "leaf_find", &operands) < 0) return NULL;
    Py_ssize_t index = search(&operands, LEAF_KEY_AT, LEAF_LENGTH_AT, 0);
    PyObject *found = NULL;
    if (index >= 0) {
        /* the first key >= the one sought: the answer only if it is that key */
        int match = index < operands.slots.len / 2 ? leaf_cell_is_key(&operands, index) : 0;
        if (match >= 0) found = PyLong_FromSsize_t(match ? index : -1);
    }
    release(&operands, 3);
    return found;
}

static PyObject *interior_child(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    Operands operands;
    if (acquire(args, nargs, "interior_child", &operands) < 0) return NULL;
    Py_ssize_t index = search(&operands, INTERIOR_KEY_AT, INTERIOR_LENGTH_AT, 1);
    PyObject *child = NULL;
    if (index >= 0) {
        /* past the last key: the rightmost child, which lives in the header's link field */
        Py_ssize_t at = index == operands.slots.len / 2 ? HEADER_LINK_AT : ((const uint16_t *)operands.slots.buf)[index];
        if (at + 4 > operands.page.len)
            raise_damaged(operands.page.len);
        else
            child = PyLong_FromUnsignedLong(read_u32((const unsigned char *)operands.page.buf + at));
    }
    release(&operands, 3);
    return child;
}

static PyMethodDef methods[] = {
    {"leaf_find", (PyCFunction)(void (*)(void))leaf_find, METH_FASTCALL,
     "leaf_find(page, offsets, key) -> index of key among the leaf's cells, or -1 if absent"},
    {"interior_child", (PyCFunction)(void (*)(void))interior_child, METH_FASTCALL,
     "interior_child(page, offsets, key) -> the child page whose key range holds key"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "pagelab.storage._cellsearch",
    "Binary search over an undecoded slotted page's cells (see the comment in _cellsearch.c).", -1, methods,
};

PyMODINIT_FUNC PyInit__cellsearch(void) { return PyModule_Create(&module); }

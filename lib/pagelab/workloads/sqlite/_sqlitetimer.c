/*
 * _sqlitetimer: experiment 053's benchmarks timed in C against the system's SQLite, the level at which
 * the experiment measured them.
 *
 * Why C. The experiment timed a library whose per-row work is C code calling SQLite (sqlite3_step,
 * then sqlite3_column_* per column). Through Python's sqlite3 module every row becomes a tuple of
 * Python objects and then a dict, and that interpreter work is most of each benchmark's time, so
 * what the page size changes in SQLite is a small share of what is timed. Here a whole sample
 * (every iteration, its clock readings and the untimed clean-up between iterations) runs in C
 * with the GIL released; Python only opens the connection, passes the SQL texts and the rows to
 * write, and reads back the totals.
 *
 * What it offers:
 *
 *     Timer(path, statements, pragmas, table_rows)
 *         opens the existing database at `path` (read-write; never creates one: the page size
 *         is fixed when the file is created, which pagelab does, see database.py), runs each
 *         text of `pragmas` in order (the per-connection settings: synchronous, mmap_size) and
 *         prepares `statements`, a dict with the keys select_all, select_first (one parameter:
 *         the LIMIT), insert (one parameter per value of a row) and delete_after (one parameter:
 *         rows with a larger id are removed). `table_rows` is the table's size between
 *         iterations: a write's rows are deleted again down to it.
 *     timer.sample(kind, rows, iterations, batch=None, reset=True, checksum=False)
 *         runs `iterations` iterations of one benchmark and returns
 *         (wall_ns, cpu_ns, best_wall_ns, checksum): the summed wall-clock time
 *         (CLOCK_MONOTONIC) and this process's CPU time (CLOCK_PROCESS_CPUTIME_ID) of the
 *         iterations, each read right before and after one iteration, the fastest iteration's
 *         wall time, and, if asked, the CRC-32 of the rows the last iteration read (else None).
 *         kind is one of
 *             select_maps    select_all, every row into a row structure (below)
 *             tx_read        BEGIN; select_first with LIMIT `rows`, into row structures; COMMIT
 *             write_tx       BEGIN; insert once per row of `batch` (bind, step, reset); COMMIT
 *             execute_batch  the same: at the C level one execute per row *is* a batch (the
 *                            the experiment's 0.82 against 0.54 ms per 100 rows is its per-call cost
 *                            between Dart and C, which has no counterpart here)
 *         Each iteration must handle exactly `rows` rows (RuntimeError otherwise). After a write,
 *         outside the timed part, delete_after removes the rows it added (unless reset=False,
 *         which a test uses to read what was written).
 *     timer.value(sql)      the first column of the first row of `sql` (a PRAGMA's answer)
 *     timer.close()
 *     library_version()     sqlite3_libversion() of the library this module is linked with
 *     has_dbstat()          whether that library was built with the dbstat virtual table
 *
 * The row structure. A library that returns rows as maps reads each column by its type and keeps
 * the value: here a row is an array of `Value`s (type, and an integer, a double, or the offset
 * and length of its bytes), one per column, with the text and blob bytes copied into one arena.
 * The column names are the statement's, shared by every row as a map's keys would be. Rows and
 * arena are kept between iterations and grown as needed (so an iteration's time is reading and
 * copying, not malloc and free); they are released with the Timer.
 *
 * The checksum is CRC-32 (zlib's polynomial) over the rows in order, each value as one type
 * byte and then: 'i' an int64, 'f' a double (both little-endian, 8 bytes), 't' or 'b' a
 * little-endian uint32 length and the bytes, 'n' nothing. pagelab.workloads.sqlite.native
 * computes the same over Python's rows, so the two paths can be shown to read the same rows.
 *
 * Write parameters: str -> text, float -> double, int -> int64, bytes -> blob, None -> NULL,
 * copied into C memory before the clock starts.
 *
 * Errors raise `Error` with SQLite's message; a write that fails mid-transaction is rolled back.
 *
 * This file is the Python type and the copying of Python objects in and out; the iterations,
 * the row structure and the checksum, which touch no Python object, are sqlite_iterations.c.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <sqlite3.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

static PyObject *TimerError;

#include "sqlite_iterations.h"

typedef struct {
    PyObject_HEAD
    Bench bench;
} Timer;

/* --- Python's side ------------------------------------------------------------------------------ */

static PyObject *raise_message(const char *message) {
    PyErr_SetString(TimerError, message);
    return NULL;
}

static void free_batch(Batch *batch) {
    PyMem_Free(batch->parameters);
    PyMem_Free(batch->bytes);
    memset(batch, 0, sizeof *batch);
}

/* The rows to write, copied out of Python objects (so nothing Python is touched without the GIL). */
static int take_batch(PyObject *rows, Batch *batch) {
    PyObject *sequence = PySequence_Fast(rows, "batch must be a sequence of row tuples");
    if (sequence == NULL)
        return -1;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(sequence), columns = -1;
    size_t byte_count = 0;
    for (Py_ssize_t r = 0; r < count; r++) {
        PyObject *row = PySequence_Fast_GET_ITEM(sequence, r);
        if (!PyTuple_Check(row) || (columns >= 0 && PyTuple_GET_SIZE(row) != columns)) {
            PyErr_SetString(PyExc_TypeError, "every row of a batch must be a tuple of the same length");
            goto failed;
        }
        columns = PyTuple_GET_SIZE(row);
        for (Py_ssize_t c = 0; c < columns; c++) {
            PyObject *item = PyTuple_GET_ITEM(row, c);
            Py_ssize_t size = 0;
            if (PyUnicode_Check(item)) {
                if (PyUnicode_AsUTF8AndSize(item, &size) == NULL)
                    goto failed;
            } else if (PyBytes_Check(item)) {
                size = PyBytes_GET_SIZE(item);
            }
            byte_count += (size_t)size;
        }
    }
    batch->rows = (size_t)count;
    batch->columns = columns < 0 ? 0 : (size_t)columns;
    batch->parameters = PyMem_Calloc(batch->rows * batch->columns + 1, sizeof(Value));
    batch->bytes = PyMem_Malloc(byte_count + 1);
    if (batch->parameters == NULL || batch->bytes == NULL) {
        PyErr_NoMemory();
        goto failed;
    }
    size_t used = 0;
    for (Py_ssize_t r = 0; r < count; r++) {
        PyObject *row = PySequence_Fast_GET_ITEM(sequence, r);
        for (size_t c = 0; c < batch->columns; c++) {
            PyObject *item = PyTuple_GET_ITEM(row, (Py_ssize_t)c);
            Value *p = &batch->parameters[(size_t)r * batch->columns + c];
            const char *bytes = NULL;
            Py_ssize_t size = 0;
            if (item == Py_None) {
                p->type = VALUE_NULL;
            } else if (PyFloat_Check(item)) {
                p->type = VALUE_FLOAT;
                p->as.real = PyFloat_AS_DOUBLE(item);
            } else if (PyLong_Check(item)) {
                p->type = VALUE_INT;
                p->as.integer = PyLong_AsLongLong(item);
                if (p->as.integer == -1 && PyErr_Occurred())
                    goto failed;
            } else if (PyUnicode_Check(item)) {
                p->type = VALUE_TEXT;
                bytes = PyUnicode_AsUTF8AndSize(item, &size);
            } else if (PyBytes_Check(item)) {
                p->type = VALUE_BLOB;
                bytes = PyBytes_AS_STRING(item);
                size = PyBytes_GET_SIZE(item);
            } else {
                PyErr_Format(PyExc_TypeError, "a row value must be str, float, int, bytes or None, not %s",
                             Py_TYPE(item)->tp_name);
                goto failed;
            }
            if (bytes != NULL) {
                memcpy(batch->bytes + used, bytes, (size_t)size);
                p->as.offset = used;
                p->length = (uint32_t)size;
                used += (size_t)size;
            }
        }
    }
    Py_DECREF(sequence);
    return 0;
failed:
    Py_DECREF(sequence);
    free_batch(batch);
    return -1;
}

static int prepare(Bench *t, PyObject *statements, const char *key, sqlite3_stmt **out) {
    PyObject *text = PyDict_GetItemString(statements, key);  /* borrowed */
    if (text == NULL || !PyUnicode_Check(text)) {
        PyErr_Format(PyExc_KeyError, "statements needs the SQL text %s", key);
        return -1;
    }
    /* SQLITE_PREPARE_PERSISTENT: kept for the Timer's life, as a library's statement cache does. */
    if (sqlite3_prepare_v3(t->db, PyUnicode_AsUTF8(text), -1, SQLITE_PREPARE_PERSISTENT, out, NULL) != SQLITE_OK) {
        bench_fail(t, key);
        raise_message(t->message);
        return -1;
    }
    return 0;
}

static void close_timer(Bench *t) {
    sqlite3_stmt **statements[] = {&t->select_all, &t->select_first, &t->insert, &t->delete_after, &t->begin,
                                   &t->commit};
    for (size_t i = 0; i < sizeof statements / sizeof statements[0]; i++) {
        sqlite3_finalize(*statements[i]);
        *statements[i] = NULL;
    }
    if (t->db != NULL) {
        sqlite3_close(t->db);
        t->db = NULL;
    }
    free(t->values);
    free(t->arena);
    t->values = NULL;
    t->arena = NULL;
    t->value_capacity = t->arena_capacity = t->rows_read = 0;
}

static int Timer_init(Timer *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"path", "statements", "pragmas", "table_rows", NULL};
    PyObject *path_object, *statements, *pragmas;
    long long table_rows;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&O!OL", keywords, PyUnicode_FSConverter, &path_object,
                                     &PyDict_Type, &statements, &pragmas, &table_rows))
        return -1;
    close_timer(&self->bench);
    self->bench.table_rows = table_rows;
    int rc = sqlite3_open_v2(PyBytes_AS_STRING(path_object), &self->bench.db, SQLITE_OPEN_READWRITE, NULL);
    Py_DECREF(path_object);
    if (rc != SQLITE_OK) {
        snprintf(self->bench.message, sizeof self->bench.message, "opening the database: %s",
                 self->bench.db ? sqlite3_errmsg(self->bench.db) : sqlite3_errstr(rc));
        close_timer(&self->bench);
        raise_message(self->bench.message);
        return -1;
    }
    PyObject *texts = PySequence_Fast(pragmas, "pragmas must be a sequence of SQL texts");
    if (texts == NULL)
        return -1;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(texts); i++) {
        const char *sql = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(texts, i));
        if (sql == NULL) {
            Py_DECREF(texts);
            return -1;
        }
        if (sqlite3_exec(self->bench.db, sql, NULL, NULL, NULL) != SQLITE_OK) {
            bench_fail(&self->bench, sql);
            Py_DECREF(texts);
            raise_message(self->bench.message);
            return -1;
        }
    }
    Py_DECREF(texts);
    if (prepare(&self->bench, statements, "select_all", &self->bench.select_all) < 0 ||
        prepare(&self->bench, statements, "select_first", &self->bench.select_first) < 0 ||
        prepare(&self->bench, statements, "insert", &self->bench.insert) < 0 ||
        prepare(&self->bench, statements, "delete_after", &self->bench.delete_after) < 0)
        return -1;
    Bench *t = &self->bench;
    if (sqlite3_prepare_v3(t->db, "BEGIN", -1, SQLITE_PREPARE_PERSISTENT, &t->begin, NULL) != SQLITE_OK ||
        sqlite3_prepare_v3(t->db, "COMMIT", -1, SQLITE_PREPARE_PERSISTENT, &t->commit, NULL) != SQLITE_OK) {
        bench_fail(&self->bench, "BEGIN/COMMIT");
        raise_message(self->bench.message);
        return -1;
    }
    return 0;
}

static void Timer_dealloc(Timer *self) {
    close_timer(&self->bench);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int kind_of(const char *name) {
    static const char *names[] = {"select_maps", "tx_read", "write_tx", "execute_batch"};
    for (int i = 0; i < 4; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

static PyObject *Timer_sample(Timer *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"kind", "rows", "iterations", "batch", "reset", "checksum", NULL};
    const char *kind_name;
    int rows, reset = 1, want_checksum = 0;
    Py_ssize_t iterations;
    PyObject *rows_to_write = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "sin|Opp", keywords, &kind_name, &rows, &iterations,
                                     &rows_to_write, &reset, &want_checksum))
        return NULL;
    if (self->bench.db == NULL)
        return raise_message("the Timer is closed");
    int kind = kind_of(kind_name);
    if (kind < 0)
        return PyErr_Format(PyExc_ValueError, "kind must be select_maps, tx_read, write_tx or execute_batch, not %s",
                            kind_name);
    if (iterations < 1 || rows < 1)
        return PyErr_Format(PyExc_ValueError, "iterations and rows must be >= 1");
    int writes = kind == KIND_WRITE_TX || kind == KIND_EXECUTE_BATCH;
    Batch batch = {0};
    if (writes) {
        if (rows_to_write == Py_None)
            return PyErr_Format(PyExc_ValueError, "%s needs the batch of rows to write", kind_name);
        if (take_batch(rows_to_write, &batch) < 0)
            return NULL;
        if (batch.rows != (size_t)rows) {
            free_batch(&batch);
            return PyErr_Format(PyExc_ValueError, "the batch has %zu rows, rows says %d", batch.rows, rows);
        }
    }
    int64_t wall = 0, cpu = 0, best = INT64_MAX;
    size_t done = 0;
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < iterations && !failed; i++) {
        int64_t cpu_started = bench_clock_ns(CLOCK_PROCESS_CPUTIME_ID), started = bench_clock_ns(CLOCK_MONOTONIC);
        failed = bench_iteration(&self->bench, kind, rows, &batch, &done) < 0;
        int64_t ended = bench_clock_ns(CLOCK_MONOTONIC), cpu_ended = bench_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
        if (failed)
            break;
        if (writes && reset)
            failed = bench_delete_added_rows(&self->bench) < 0;
        if (!failed && done != (size_t)rows) {
            snprintf(self->bench.message, sizeof self->bench.message, "%s handled %zu rows, expected %d", kind_name,
                     done, rows);
            failed = 1;
        }
        wall += ended - started;
        cpu += cpu_ended - cpu_started;
        if (ended - started < best)
            best = ended - started;
    }
    Py_END_ALLOW_THREADS
    free_batch(&batch);
    if (failed)
        return raise_message(self->bench.message);
    if (want_checksum && !writes)
        return Py_BuildValue("(LLLk)", (long long)wall, (long long)cpu, (long long)best,
                             (unsigned long)bench_rows_checksum(&self->bench));
    return Py_BuildValue("(LLLO)", (long long)wall, (long long)cpu, (long long)best, Py_None);
}

static PyObject *Timer_value(Timer *self, PyObject *args) {
    const char *sql;
    sqlite3_stmt *statement;
    if (!PyArg_ParseTuple(args, "s", &sql))
        return NULL;
    if (self->bench.db == NULL)
        return raise_message("the Timer is closed");
    if (sqlite3_prepare_v2(self->bench.db, sql, -1, &statement, NULL) != SQLITE_OK) {
        bench_fail(&self->bench, sql);
        return raise_message(self->bench.message);
    }
    PyObject *result;
    int rc = sqlite3_step(statement);
    if (rc == SQLITE_ROW) {
        switch (sqlite3_column_type(statement, 0)) {
        case SQLITE_INTEGER: result = PyLong_FromLongLong(sqlite3_column_int64(statement, 0)); break;
        case SQLITE_FLOAT: result = PyFloat_FromDouble(sqlite3_column_double(statement, 0)); break;
        case SQLITE_NULL: result = Py_NewRef(Py_None); break;
        default: result = PyUnicode_FromString((const char *)sqlite3_column_text(statement, 0));
        }
    } else if (rc == SQLITE_DONE) {
        result = Py_NewRef(Py_None);
    } else {
        bench_fail(&self->bench, sql);
        result = raise_message(self->bench.message);
    }
    sqlite3_finalize(statement);
    return result;
}

static PyObject *Timer_close(Timer *self, PyObject *Py_UNUSED(ignored)) {
    close_timer(&self->bench);
    Py_RETURN_NONE;
}

static PyMethodDef Timer_methods[] = {
    {"sample", (PyCFunction)(void (*)(void))Timer_sample, METH_VARARGS | METH_KEYWORDS,
     "sample(kind, rows, iterations, batch=None, reset=True, checksum=False) -> "
     "(wall_ns, cpu_ns, best_wall_ns, checksum or None)"},
    {"value", (PyCFunction)Timer_value, METH_VARARGS, "value(sql): the first column of the first row"},
    {"close", (PyCFunction)Timer_close, METH_NOARGS, "close the connection"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject TimerType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pagelab.workloads.sqlite._sqlitetimer.Timer",
    .tp_basicsize = sizeof(Timer),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One connection to an existing benchmark database, with its statements (see the module's comment).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Timer_init,
    .tp_dealloc = (destructor)Timer_dealloc,
    .tp_methods = Timer_methods,
};

static PyObject *library_version(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(ignored)) {
    return PyUnicode_FromString(sqlite3_libversion());
}

static PyObject *has_dbstat(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(ignored)) {
    return PyBool_FromLong(sqlite3_compileoption_used("ENABLE_DBSTAT_VTAB"));
}

static PyMethodDef module_methods[] = {
    {"library_version", library_version, METH_NOARGS, "sqlite3_libversion() of the linked SQLite"},
    {"has_dbstat", has_dbstat, METH_NOARGS, "whether the linked SQLite has the dbstat virtual table"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_sqlitetimer",
    "Experiment 053's SQLite benchmarks timed in C (see the comment at the top of _sqlitetimer.c).", -1, module_methods,
};

PyMODINIT_FUNC PyInit__sqlitetimer(void) {
    bench_checksum_init();
    if (PyType_Ready(&TimerType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    TimerError = PyErr_NewException("pagelab.workloads.sqlite._sqlitetimer.Error", PyExc_RuntimeError, NULL);
    if (TimerError == NULL || PyModule_AddObjectRef(m, "Error", TimerError) < 0 ||
        PyModule_AddObjectRef(m, "Timer", (PyObject *)&TimerType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

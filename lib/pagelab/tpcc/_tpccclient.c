/*
 * _tpccclient: the thinnest client a TPC-C terminal can have, so that the driver's share of the
 * CPU is what tpcc-mysql's is.
 *
 * Why C. On a 2-core machine the client and the server share the CPUs: whatever the client
 * spends per statement is taken from the server, and TpmC moves with it. tpcc-mysql's tpcc_start
 * is C over the MySQL client library, one server-side prepared statement per SQL statement of a
 * transaction (~35 per transaction on average), and ~80% of its CPU is the kernel's share of those
 * round trips. A Python connector adds 30-60 us of interpreter work to every statement, which
 * more than doubles the client's CPU per transaction. This module is the same client library, the
 * same binary protocol and the same calls per statement (bind, execute, store the result, fetch).
 * The five transactions run here too (tpcc_transactions.c), whole, between one release of the GIL
 * and the next: the Python terminal draws the inputs, and no interpreter work sits between one
 * round trip and the next.
 *
 * What it offers, per connection (a Session):
 *
 *     Session(host, port, socket, user, password, database, autocommit)
 *     session.prepare(texts)          prepare each text; statement i is texts[i]
 *     session.execute(i, params)      bind params, execute, store: list of row tuples, or the
 *                                     number of affected rows for a statement without a result
 *     session.commit() / rollback()   one round trip each
 *     session.query(sql)              text protocol, every result set read and dropped (CALL)
 *     session.new_order(w, d, c, all_local, lines, now)        the transactions, once the session
 *     session.payment(w, d, c_w, c_d, c, by_name, last,       has prepared STATEMENTS' texts;
 *                     amount_cents, now)                       each returns True when it rolled
 *     session.order_status(w, d, c, by_name, last)             back by design (New-Order's unused
 *     session.delivery(w, carrier, now)                        item), and raises MissingRow when a
 *     session.stock_level(w, d, threshold)                     row tpcc-mysql requires is absent
 *     session.close()
 *
 * STATEMENTS is the tuple of (name, text) of tpcc-mysql's 35 statements, in its order.
 *
 * Why this file is ~700 lines: a CPython extension type is one unit (its struct, methods, method
 * table and module init see each other's statics); what could stand alone, the transactions
 * themselves, already does (tpcc_transactions.c).
 *
 * Parameters: int -> BIGINT, float -> DOUBLE, None -> NULL, str and anything else -> its str()
 * as a string (a Decimal arrives exactly as written, and the server converts it to the column's
 * type, as it does for tpcc-mysql's strings). Result columns: integer types -> int, NULL -> None,
 * every other type -> str (decimals as the server writes them, datetimes as 'YYYY-MM-DD hh:mm:ss').
 *
 * Errors raise `Error(errno, sqlstate, message)`; errno >= 2000 are the client library's own
 * (lost connection and the like), below that the server's. The GIL is released while the server
 * works (connect, execute + store, commit, rollback, query, close), so terminals can be threads.
 * The password is passed in memory to mysql_real_connect and never stored here.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <mysql.h>
#include <string.h>

#include "tpcc_transactions.h"

/* Connect timeout: long enough for a server busy with recovery, short enough to fail a run that
 * names a dead port quickly. */
#define CONNECT_TIMEOUT_S 30

static PyObject *ClientError;
static PyObject *MissingRow;

typedef struct {
    PyObject_HEAD
    MYSQL *mysql;
    MYSQL_STMT **statements;
    Py_ssize_t statement_count;
    int tpcc_prepared; /* the statements are TPCC_STATEMENT_TEXTS, so the transactions may run */
} Session;

static PyObject *raise_error(unsigned int number, const char *sqlstate, const char *message) {
    /* A server message cut short can end inside a UTF-8 sequence: decode it leniently, so the
     * caller always gets the client Error it can classify. */
    message = message ? message : "";
    PyObject *text = PyUnicode_DecodeUTF8(message, (Py_ssize_t)strlen(message), "replace");
    PyObject *args = text ? Py_BuildValue("(IsO)", number, sqlstate ? sqlstate : "", text) : NULL;
    Py_XDECREF(text);
    if (args != NULL) {
        PyErr_SetObject(ClientError, args);
        Py_DECREF(args);
    }
    return NULL;
}

static PyObject *raise_session_error(Session *self) {
    return raise_error(mysql_errno(self->mysql), mysql_sqlstate(self->mysql), mysql_error(self->mysql));
}

static PyObject *raise_statement_error(MYSQL_STMT *statement) {
    return raise_error(mysql_stmt_errno(statement), mysql_stmt_sqlstate(statement), mysql_stmt_error(statement));
}

static int session_is_open(Session *self) {
    if (self->mysql == NULL) {
        raise_error(2006, "HY000", "the session is closed");
        return 0;
    }
    return 1;
}

static void close_statements(Session *self) {
    for (Py_ssize_t i = 0; i < self->statement_count; i++) {
        if (self->statements[i] != NULL)
            mysql_stmt_close(self->statements[i]);
    }
    PyMem_Free(self->statements);
    self->statements = NULL;
    self->statement_count = 0;
    self->tpcc_prepared = 0;
}

static void close_session(Session *self) {
    MYSQL *mysql = self->mysql;
    if (mysql == NULL)
        return;
    close_statements(self);
    self->mysql = NULL;
    Py_BEGIN_ALLOW_THREADS
    mysql_close(mysql);
    Py_END_ALLOW_THREADS
}

static int Session_init(Session *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"host", "port", "socket", "user", "password", "database", "autocommit", NULL};
    const char *host = NULL, *socket = NULL, *user = NULL, *password = NULL, *database = NULL;
    unsigned int port = 0;
    int autocommit = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "zIzszz|p", keywords, &host, &port, &socket, &user,
                                     &password, &database, &autocommit))
        return -1;
    close_session(self);
    MYSQL *mysql = mysql_init(NULL);
    if (mysql == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    unsigned int timeout = CONNECT_TIMEOUT_S;
    mysql_options(mysql, MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
    MYSQL *connected;
    Py_BEGIN_ALLOW_THREADS
    connected = mysql_real_connect(mysql, host, user, password, database, port, socket, 0);
    Py_END_ALLOW_THREADS
    if (connected == NULL) {
        raise_error(mysql_errno(mysql), mysql_sqlstate(mysql), mysql_error(mysql));
        mysql_close(mysql);
        return -1;
    }
    self->mysql = mysql;
    if (mysql_autocommit(mysql, autocommit ? 1 : 0)) {
        raise_session_error(self);
        close_session(self);
        return -1;
    }
    return 0;
}

static void Session_dealloc(Session *self) {
    close_session(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Session_prepare(Session *self, PyObject *texts) {
    if (!session_is_open(self))
        return NULL;
    PyObject *sequence = PySequence_Fast(texts, "prepare takes a sequence of statement texts");
    if (sequence == NULL)
        return NULL;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(sequence);
    close_statements(self);
    self->statements = PyMem_Calloc(count ? count : 1, sizeof(MYSQL_STMT *));
    if (self->statements == NULL) {
        Py_DECREF(sequence);
        return PyErr_NoMemory();
    }
    self->statement_count = count;
    for (Py_ssize_t i = 0; i < count; i++) {
        Py_ssize_t length;
        const char *text = PyUnicode_AsUTF8AndSize(PySequence_Fast_GET_ITEM(sequence, i), &length);
        if (text == NULL)
            goto failed;
        MYSQL_STMT *statement = mysql_stmt_init(self->mysql);
        if (statement == NULL) {
            raise_session_error(self);
            goto failed;
        }
        self->statements[i] = statement;
        /* max_length of each result column after store_result, so a row is fetched whole. */
        my_bool update_max_length = 1;
        mysql_stmt_attr_set(statement, STMT_ATTR_UPDATE_MAX_LENGTH, &update_max_length);
        int failed_prepare;
        Py_BEGIN_ALLOW_THREADS
        failed_prepare = mysql_stmt_prepare(statement, text, (unsigned long)length);
        Py_END_ALLOW_THREADS
        if (failed_prepare) {
            raise_statement_error(statement);
            goto failed;
        }
    }
    self->tpcc_prepared = count == TPCC_STATEMENT_COUNT;
    for (Py_ssize_t i = 0; self->tpcc_prepared && i < count; i++)
        self->tpcc_prepared =
            strcmp(PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(sequence, i)), TPCC_STATEMENT_TEXTS[i]) == 0;
    Py_DECREF(sequence);
    Py_RETURN_NONE;
failed:
    Py_DECREF(sequence);
    close_statements(self);
    return NULL;
}

/* One parameter's storage while a statement executes. */
typedef union {
    long long integer;
    double real;
} Scalar;

static int bind_parameter(PyObject *value, MYSQL_BIND *bind, Scalar *scalar, PyObject **keep) {
    if (value == Py_None) {
        bind->buffer_type = MYSQL_TYPE_NULL;
        return 0;
    }
    if (PyLong_Check(value) && !PyBool_Check(value)) {
        scalar->integer = PyLong_AsLongLong(value);
        if (scalar->integer == -1 && PyErr_Occurred())
            return -1;
        bind->buffer_type = MYSQL_TYPE_LONGLONG;
        bind->buffer = &scalar->integer;
        return 0;
    }
    if (PyFloat_Check(value)) {
        scalar->real = PyFloat_AS_DOUBLE(value);
        bind->buffer_type = MYSQL_TYPE_DOUBLE;
        bind->buffer = &scalar->real;
        return 0;
    }
    PyObject *text = PyUnicode_Check(value) ? Py_NewRef(value) : PyObject_Str(value);
    if (text == NULL)
        return -1;
    *keep = text;
    Py_ssize_t length;
    const char *bytes = PyUnicode_AsUTF8AndSize(text, &length);
    if (bytes == NULL)
        return -1;
    bind->buffer_type = MYSQL_TYPE_STRING;
    bind->buffer = (void *)bytes;
    bind->buffer_length = (unsigned long)length;
    return 0;
}

static int is_integer_type(enum enum_field_types type) {
    return type == MYSQL_TYPE_TINY || type == MYSQL_TYPE_SHORT || type == MYSQL_TYPE_LONG ||
           type == MYSQL_TYPE_INT24 || type == MYSQL_TYPE_LONGLONG || type == MYSQL_TYPE_YEAR;
}

/* The stored result of `statement` as a list of tuples; `metadata` describes its columns. */
static PyObject *fetch_rows(MYSQL_STMT *statement, MYSQL_RES *metadata) {
    unsigned int columns = mysql_num_fields(metadata);
    MYSQL_FIELD *fields = mysql_fetch_fields(metadata);
    MYSQL_BIND *binds = PyMem_Calloc(columns ? columns : 1, sizeof(MYSQL_BIND));
    long long *integers = PyMem_Calloc(columns ? columns : 1, sizeof(long long));
    char **buffers = PyMem_Calloc(columns ? columns : 1, sizeof(char *));
    unsigned long *lengths = PyMem_Calloc(columns ? columns : 1, sizeof(unsigned long));
    my_bool *nulls = PyMem_Calloc(columns ? columns : 1, sizeof(my_bool));
    PyObject *rows = NULL;
    if (!binds || !integers || !buffers || !lengths || !nulls) {
        PyErr_NoMemory();
        goto done;
    }
    for (unsigned int c = 0; c < columns; c++) {
        binds[c].length = &lengths[c];
        binds[c].is_null = &nulls[c];
        if (is_integer_type(fields[c].type)) {
            binds[c].buffer_type = MYSQL_TYPE_LONGLONG;
            binds[c].buffer = &integers[c];
            binds[c].is_unsigned = (fields[c].flags & UNSIGNED_FLAG) != 0;
        } else {
            /* max_length is 0 for a temporal column; 64 holds any date or time as text. */
            unsigned long size = fields[c].max_length + 1 > 64 ? fields[c].max_length + 1 : 64;
            buffers[c] = PyMem_Malloc(size);
            if (buffers[c] == NULL) {
                PyErr_NoMemory();
                goto done;
            }
            binds[c].buffer_type = MYSQL_TYPE_STRING;
            binds[c].buffer = buffers[c];
            binds[c].buffer_length = size;
        }
    }
    if (mysql_stmt_bind_result(statement, binds)) {
        raise_statement_error(statement);
        goto done;
    }
    rows = PyList_New(0);
    if (rows == NULL)
        goto done;
    for (;;) {
        int status = mysql_stmt_fetch(statement);
        if (status == MYSQL_NO_DATA)
            break;
        if (status == 1) {
            raise_statement_error(statement);
            Py_CLEAR(rows);
            goto done;
        }
        PyObject *row = PyTuple_New(columns);
        if (row == NULL) {
            Py_CLEAR(rows);
            goto done;
        }
        for (unsigned int c = 0; c < columns; c++) {
            PyObject *value;
            if (nulls[c])
                value = Py_NewRef(Py_None);
            else if (binds[c].buffer_type == MYSQL_TYPE_LONGLONG)
                value = binds[c].is_unsigned ? PyLong_FromUnsignedLongLong((unsigned long long)integers[c])
                                             : PyLong_FromLongLong(integers[c]);
            else {
                unsigned long length = lengths[c] < binds[c].buffer_length ? lengths[c] : binds[c].buffer_length;
                value = PyUnicode_DecodeUTF8(buffers[c], (Py_ssize_t)length, "replace");
            }
            if (value == NULL) {
                Py_DECREF(row);
                Py_CLEAR(rows);
                goto done;
            }
            PyTuple_SET_ITEM(row, c, value);
        }
        int appended = PyList_Append(rows, row);
        Py_DECREF(row);
        if (appended) {
            Py_CLEAR(rows);
            goto done;
        }
    }
done:
    if (buffers)
        for (unsigned int c = 0; c < columns; c++)
            PyMem_Free(buffers[c]);
    PyMem_Free(binds);
    PyMem_Free(integers);
    PyMem_Free(buffers);
    PyMem_Free(lengths);
    PyMem_Free(nulls);
    return rows;
}

static PyObject *Session_execute(Session *self, PyObject *args) {
    Py_ssize_t index;
    PyObject *params;
    if (!PyArg_ParseTuple(args, "nO!", &index, &PyTuple_Type, &params))
        return NULL;
    if (!session_is_open(self))
        return NULL;
    if (index < 0 || index >= self->statement_count) {
        PyErr_Format(PyExc_IndexError, "no prepared statement %zd (%zd are prepared)", index, self->statement_count);
        return NULL;
    }
    MYSQL_STMT *statement = self->statements[index];
    Py_ssize_t count = PyTuple_GET_SIZE(params);
    if ((unsigned long)count != mysql_stmt_param_count(statement)) {
        PyErr_Format(PyExc_ValueError, "statement %zd takes %lu parameters, got %zd", index,
                     mysql_stmt_param_count(statement), count);
        return NULL;
    }
    MYSQL_BIND *binds = PyMem_Calloc(count ? count : 1, sizeof(MYSQL_BIND));
    Scalar *scalars = PyMem_Calloc(count ? count : 1, sizeof(Scalar));
    PyObject **kept = PyMem_Calloc(count ? count : 1, sizeof(PyObject *));
    PyObject *result = NULL;
    MYSQL_RES *metadata = NULL;
    if (!binds || !scalars || !kept) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < count; i++)
        if (bind_parameter(PyTuple_GET_ITEM(params, i), &binds[i], &scalars[i], &kept[i]))
            goto done;
    if (count && mysql_stmt_bind_param(statement, binds)) {
        raise_statement_error(statement);
        goto done;
    }
    metadata = mysql_stmt_result_metadata(statement);
    int failed;
    Py_BEGIN_ALLOW_THREADS
    failed = mysql_stmt_execute(statement);
    if (!failed && metadata != NULL)
        failed = mysql_stmt_store_result(statement);
    Py_END_ALLOW_THREADS
    if (failed) {
        raise_statement_error(statement);
        goto done;
    }
    if (metadata == NULL) {
        result = PyLong_FromUnsignedLongLong((unsigned long long)mysql_stmt_affected_rows(statement));
    } else {
        result = fetch_rows(statement, metadata);
        mysql_stmt_free_result(statement);
    }
done:
    if (metadata != NULL)
        mysql_free_result(metadata);
    if (kept)
        for (Py_ssize_t i = 0; i < count; i++)
            Py_XDECREF(kept[i]);
    PyMem_Free(binds);
    PyMem_Free(scalars);
    PyMem_Free(kept);
    return result;
}

static PyObject *Session_commit(Session *self, PyObject *Py_UNUSED(ignored)) {
    if (!session_is_open(self))
        return NULL;
    my_bool failed;
    Py_BEGIN_ALLOW_THREADS
    failed = mysql_commit(self->mysql);
    Py_END_ALLOW_THREADS
    if (failed)
        return raise_session_error(self);
    Py_RETURN_NONE;
}

static PyObject *Session_rollback(Session *self, PyObject *Py_UNUSED(ignored)) {
    if (!session_is_open(self))
        return NULL;
    my_bool failed;
    Py_BEGIN_ALLOW_THREADS
    failed = mysql_rollback(self->mysql);
    Py_END_ALLOW_THREADS
    if (failed)
        return raise_session_error(self);
    Py_RETURN_NONE;
}

static PyObject *Session_query(Session *self, PyObject *args) {
    const char *sql;
    Py_ssize_t length;
    if (!PyArg_ParseTuple(args, "s#", &sql, &length))
        return NULL;
    if (!session_is_open(self))
        return NULL;
    int failed;
    Py_BEGIN_ALLOW_THREADS
    failed = mysql_real_query(self->mysql, sql, (unsigned long)length);
    /* A CALL answers with one result per SELECT it returns plus a final status: read them all,
     * or the connection stays busy. */
    while (!failed) {
        MYSQL_RES *result = mysql_store_result(self->mysql);
        if (result != NULL)
            mysql_free_result(result);
        else if (mysql_field_count(self->mysql) != 0) {
            failed = 1;
            break;
        }
        int next = mysql_next_result(self->mysql);
        if (next == -1)
            break;
        if (next > 0)
            failed = 1;
    }
    Py_END_ALLOW_THREADS
    if (failed)
        return raise_session_error(self);
    Py_RETURN_NONE;
}

static PyObject *Session_close(Session *self, PyObject *Py_UNUSED(ignored)) {
    close_session(self);
    Py_RETURN_NONE;
}

static PyObject *Session_closed(Session *self, void *Py_UNUSED(closure)) {
    return PyBool_FromLong(self->mysql == NULL);
}

/* --- the transactions (tpcc_transactions.c), one GIL release each ---------------------------- */

static int ready_for_transactions(Session *self) {
    if (!session_is_open(self))
        return 0;
    if (!self->tpcc_prepared) {
        PyErr_SetString(PyExc_RuntimeError, "prepare(STATEMENTS' texts) before running a transaction");
        return 0;
    }
    return 1;
}

/* Copy a Python text argument into a fixed buffer, refusing one that does not fit. */
static int copy_text(const char *text, char *buffer, size_t size, const char *what) {
    size_t length = strlen(text);
    if (length >= size) {
        PyErr_Format(PyExc_ValueError, "%s is %zu bytes, at most %zu fit", what, length, size - 1);
        return -1;
    }
    memcpy(buffer, text, length + 1);
    return 0;
}

static int check_district(long long district) {
    /* New-Order picks s_dist_<district>: a district outside 1..10 would read past the row. */
    if (district < 1 || district > 10) {
        PyErr_Format(PyExc_ValueError, "district %lld is outside 1..10", district);
        return -1;
    }
    return 0;
}

/* Run one transaction of tpcc_transactions.c on `in` with the GIL released (it touches no Python
 * object), then turn its outcome into the method's result. */
#define RUN_WITHOUT_THE_GIL(transaction)                                                            \
    do {                                                                                           \
        tpcc_outcome out;                                                                          \
        MYSQL *mysql = self->mysql;                                                                \
        MYSQL_STMT **statements = self->statements;                                                \
        Py_BEGIN_ALLOW_THREADS                                                                     \
        transaction(mysql, statements, &in, &out);                                                 \
        Py_END_ALLOW_THREADS                                                                       \
        return transaction_result(&out);                                                           \
    } while (0)

static PyObject *transaction_result(const tpcc_outcome *out) {
    switch (out->status) {
    case TPCC_COMMITTED:
        Py_RETURN_FALSE;
    case TPCC_ROLLED_BACK:
        Py_RETURN_TRUE;
    case TPCC_MISSING_ROW:
        PyErr_SetString(MissingRow, out->message);
        return NULL;
    default:
        return raise_error(out->errnum, out->sqlstate, out->message);
    }
}

static PyObject *Session_new_order(Session *self, PyObject *args) {
    tpcc_new_order_input in;
    PyObject *lines;
    const char *now;
    if (!PyArg_ParseTuple(args, "LLLpOs", &in.warehouse, &in.district, &in.customer, &in.all_local, &lines, &now))
        return NULL;
    if (!ready_for_transactions(self) || check_district(in.district) ||
        copy_text(now, in.now, sizeof in.now, "the timestamp"))
        return NULL;
    PyObject *sequence = PySequence_Fast(lines, "lines is a sequence of (item, supply warehouse, quantity)");
    if (sequence == NULL)
        return NULL;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(sequence);
    if (count < 1 || count > TPCC_MAX_LINES) {
        Py_DECREF(sequence);
        return PyErr_Format(PyExc_ValueError, "a New-Order has 1 to %d lines, not %zd", TPCC_MAX_LINES, count);
    }
    in.line_count = (int)count;
    for (Py_ssize_t i = 0; i < count; i++)
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(sequence, i), "LLL", &in.item[i], &in.supply_warehouse[i],
                              &in.quantity[i])) {
            Py_DECREF(sequence);
            return NULL;
        }
    Py_DECREF(sequence);
    RUN_WITHOUT_THE_GIL(tpcc_new_order);
}

static PyObject *Session_payment(Session *self, PyObject *args) {
    tpcc_payment_input in;
    const char *last, *now;
    if (!PyArg_ParseTuple(args, "LLLLLpsLs", &in.warehouse, &in.district, &in.customer_warehouse,
                          &in.customer_district, &in.customer, &in.by_last_name, &last, &in.amount_cents, &now))
        return NULL;
    if (!ready_for_transactions(self) || copy_text(last, in.last, sizeof in.last, "the last name") ||
        copy_text(now, in.now, sizeof in.now, "the timestamp"))
        return NULL;
    RUN_WITHOUT_THE_GIL(tpcc_payment);
}

static PyObject *Session_order_status(Session *self, PyObject *args) {
    tpcc_order_status_input in;
    const char *last;
    if (!PyArg_ParseTuple(args, "LLLps", &in.warehouse, &in.district, &in.customer, &in.by_last_name, &last))
        return NULL;
    if (!ready_for_transactions(self) || copy_text(last, in.last, sizeof in.last, "the last name"))
        return NULL;
    RUN_WITHOUT_THE_GIL(tpcc_order_status);
}

static PyObject *Session_delivery(Session *self, PyObject *args) {
    tpcc_delivery_input in;
    const char *now;
    if (!PyArg_ParseTuple(args, "LLs", &in.warehouse, &in.carrier, &now))
        return NULL;
    if (!ready_for_transactions(self) || copy_text(now, in.now, sizeof in.now, "the timestamp"))
        return NULL;
    RUN_WITHOUT_THE_GIL(tpcc_delivery);
}

static PyObject *Session_stock_level(Session *self, PyObject *args) {
    tpcc_stock_level_input in;
    if (!PyArg_ParseTuple(args, "LLL", &in.warehouse, &in.district, &in.threshold))
        return NULL;
    if (!ready_for_transactions(self))
        return NULL;
    RUN_WITHOUT_THE_GIL(tpcc_stock_level);
}

static PyMethodDef Session_methods[] = {
    {"prepare", (PyCFunction)Session_prepare, METH_O, "prepare(texts): statement i is texts[i]"},
    {"execute", (PyCFunction)Session_execute, METH_VARARGS,
     "execute(i, params): rows as a list of tuples, or affected rows for a statement without a result"},
    {"commit", (PyCFunction)Session_commit, METH_NOARGS, "commit the open transaction"},
    {"rollback", (PyCFunction)Session_rollback, METH_NOARGS, "roll back the open transaction"},
    {"query", (PyCFunction)Session_query, METH_VARARGS, "query(sql): run a text statement, dropping its results"},
    {"close", (PyCFunction)Session_close, METH_NOARGS, "close the connection (idempotent)"},
    {"new_order", (PyCFunction)Session_new_order, METH_VARARGS,
     "new_order(w, d, c, all_local, lines, now): lines are (item, supply w, quantity) in processing order"},
    {"payment", (PyCFunction)Session_payment, METH_VARARGS,
     "payment(w, d, c_w, c_d, c, by_last_name, last, amount_cents, now)"},
    {"order_status", (PyCFunction)Session_order_status, METH_VARARGS, "order_status(w, d, c, by_last_name, last)"},
    {"delivery", (PyCFunction)Session_delivery, METH_VARARGS, "delivery(w, carrier, now)"},
    {"stock_level", (PyCFunction)Session_stock_level, METH_VARARGS, "stock_level(w, d, threshold)"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Session_getset[] = {
    {"closed", (getter)Session_closed, NULL, "True once closed", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject SessionType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pagelab.tpcc._tpccclient.Session",
    .tp_basicsize = sizeof(Session),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One connection to the server with its prepared statements (see the module's comment).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Session_init,
    .tp_dealloc = (destructor)Session_dealloc,
    .tp_methods = Session_methods,
    .tp_getset = Session_getset,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_tpccclient",
    "A TPC-C terminal's client: prepared statements over MariaDB Connector/C.", -1, NULL,
};

PyMODINIT_FUNC PyInit__tpccclient(void) {
    /* The client library's global state, once, before any thread connects. */
    if (mysql_library_init(0, NULL, NULL)) {
        PyErr_SetString(PyExc_ImportError, "the MariaDB client library could not initialise");
        return NULL;
    }
    if (PyType_Ready(&SessionType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    ClientError = PyErr_NewExceptionWithDoc(
        "pagelab.tpcc._tpccclient.Error",
        "A failed call: args are (errno, sqlstate, message); errno >= 2000 is the client library's own.",
        PyExc_Exception, NULL);
    MissingRow = PyErr_NewExceptionWithDoc(
        "pagelab.tpcc._tpccclient.MissingRow",
        "A row tpcc-mysql requires was not there; like an SQL error, the transaction is retried.",
        PyExc_Exception, NULL);
    PyObject *statements = PyTuple_New(TPCC_STATEMENT_COUNT);
    for (int i = 0; statements != NULL && i < TPCC_STATEMENT_COUNT; i++) {
        PyObject *pair = Py_BuildValue("(ss)", TPCC_STATEMENT_NAMES[i], TPCC_STATEMENT_TEXTS[i]);
        if (pair == NULL)
            Py_CLEAR(statements);
        else
            PyTuple_SET_ITEM(statements, i, pair);
    }
    int added = statements != NULL && PyModule_AddObjectRef(m, "STATEMENTS", statements) == 0;
    Py_XDECREF(statements);
    if (!added || MissingRow == NULL || PyModule_AddObjectRef(m, "MissingRow", MissingRow) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    if (ClientError == NULL || PyModule_AddObjectRef(m, "Error", ClientError) < 0 ||
        PyModule_AddObjectRef(m, "Session", (PyObject *)&SessionType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

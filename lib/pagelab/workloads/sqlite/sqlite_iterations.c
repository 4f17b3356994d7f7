/*
 * The benchmarks' iterations in plain C, on one connection (a Bench), with no Python in them:
 * _sqlitetimer.c (the Python type) runs them with the GIL released. What each kind of iteration
 * does, the row structure and the checksum's format are in _sqlitetimer.c's opening comment;
 * sqlite_iterations.h declares what is shared.
 *
 * Every function that can fail returns 0, or -1 with `message` set (SQLite's error, named by
 * what was being done); a write that fails mid-transaction is rolled back.
 */

#include "sqlite_iterations.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int bench_fail(Bench *t, const char *what) {
    snprintf(t->message, sizeof t->message, "%s: %s", what, sqlite3_errmsg(t->db));
    return -1;
}

static int run_to_done(Bench *t, sqlite3_stmt *statement, const char *what) {
    int rc = sqlite3_step(statement);
    sqlite3_reset(statement);
    return rc == SQLITE_DONE ? 0 : bench_fail(t, what);
}

static int grow(void **buffer, size_t *capacity, size_t needed, size_t unit, Bench *t) {
    if (needed <= *capacity)
        return 0;
    size_t wanted = *capacity ? *capacity : 1024;
    while (wanted < needed)
        wanted *= 2;
    void *bigger = realloc(*buffer, wanted * unit);
    if (bigger == NULL) {
        snprintf(t->message, sizeof t->message, "out of memory for %zu rows' values", needed);
        return -1;
    }
    *buffer = bigger;
    *capacity = wanted;
    return 0;
}

/* Step `statement` to its end, keeping every row as Values; rows_read says how many. */
static int read_rows(Bench *t, sqlite3_stmt *statement, const char *what) {
    int columns = sqlite3_column_count(statement);
    size_t rows = 0;
    int rc;
    t->columns = columns;
    t->arena_used = 0;
    while ((rc = sqlite3_step(statement)) == SQLITE_ROW) {
        if (grow((void **)&t->values, &t->value_capacity, (rows + 1) * (size_t)columns, sizeof(Value), t) < 0) {
            sqlite3_reset(statement);
            return -1;
        }
        Value *row = t->values + rows * (size_t)columns;
        for (int c = 0; c < columns; c++) {
            Value *value = &row[c];
            switch (sqlite3_column_type(statement, c)) {
            case SQLITE_INTEGER:
                value->type = VALUE_INT;
                value->as.integer = sqlite3_column_int64(statement, c);
                break;
            case SQLITE_FLOAT:
                value->type = VALUE_FLOAT;
                value->as.real = sqlite3_column_double(statement, c);
                break;
            case SQLITE_NULL:
                value->type = VALUE_NULL;
                break;
            default: {  /* text or blob: the bytes first, then their length (SQLite's advice) */
                int text = sqlite3_column_type(statement, c) == SQLITE_TEXT;
                const void *bytes = text ? (const void *)sqlite3_column_text(statement, c)
                                         : sqlite3_column_blob(statement, c);
                int length = sqlite3_column_bytes(statement, c);
                if (grow((void **)&t->arena, &t->arena_capacity, t->arena_used + (size_t)length, 1, t) < 0) {
                    sqlite3_reset(statement);
                    return -1;
                }
                if (length > 0)
                    memcpy(t->arena + t->arena_used, bytes, (size_t)length);
                value->type = text ? VALUE_TEXT : VALUE_BLOB;
                value->length = (uint32_t)length;
                value->as.offset = t->arena_used;
                t->arena_used += (size_t)length;
            }
            }
        }
        rows++;
    }
    sqlite3_reset(statement);
    t->rows_read = rows;
    return rc == SQLITE_DONE ? 0 : bench_fail(t, what);
}

static int bind_row(Bench *t, const Batch *batch, size_t row) {
    const Value *parameters = batch->parameters + row * batch->columns;
    for (size_t c = 0; c < batch->columns; c++) {
        const Value *p = &parameters[c];
        int index = (int)c + 1, rc;
        switch (p->type) {
        case VALUE_INT: rc = sqlite3_bind_int64(t->insert, index, p->as.integer); break;
        case VALUE_FLOAT: rc = sqlite3_bind_double(t->insert, index, p->as.real); break;
        case VALUE_TEXT:
            rc = sqlite3_bind_text(t->insert, index, batch->bytes + p->as.offset, (int)p->length, SQLITE_STATIC);
            break;
        case VALUE_BLOB:
            rc = sqlite3_bind_blob(t->insert, index, batch->bytes + p->as.offset, (int)p->length, SQLITE_STATIC);
            break;
        default: rc = sqlite3_bind_null(t->insert, index);
        }
        if (rc != SQLITE_OK)
            return bench_fail(t, "binding a row to the insert");
    }
    return 0;
}

static int rollback_if_open(Bench *t) {
    if (!sqlite3_get_autocommit(t->db))
        sqlite3_exec(t->db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

/* One iteration of `kind`; `done` is the rows it read or wrote. */
int bench_iteration(Bench *t, int kind, int rows, const Batch *batch, size_t *done) {
    switch (kind) {
    case KIND_SELECT_MAPS:
        if (read_rows(t, t->select_all, "select_all") < 0)
            return -1;
        *done = t->rows_read;
        return 0;
    case KIND_TX_READ:
        if (run_to_done(t, t->begin, "BEGIN") < 0)
            return -1;
        if (sqlite3_bind_int(t->select_first, 1, rows) != SQLITE_OK)
            return bench_fail(t, "binding the LIMIT"), rollback_if_open(t);
        if (read_rows(t, t->select_first, "select_first") < 0 || run_to_done(t, t->commit, "COMMIT") < 0)
            return rollback_if_open(t);
        *done = t->rows_read;
        return 0;
    default:  /* write_tx, execute_batch */
        if (run_to_done(t, t->begin, "BEGIN") < 0)
            return -1;
        for (size_t row = 0; row < batch->rows; row++) {
            if (bind_row(t, batch, row) < 0 || run_to_done(t, t->insert, "insert") < 0)
                return rollback_if_open(t);
        }
        if (run_to_done(t, t->commit, "COMMIT") < 0)
            return rollback_if_open(t);
        *done = (size_t)batch->rows;
        return 0;
    }
}

int bench_delete_added_rows(Bench *t) {
    if (sqlite3_bind_int64(t->delete_after, 1, t->table_rows) != SQLITE_OK)
        return bench_fail(t, "binding delete_after");
    return run_to_done(t, t->delete_after, "delete_after");
}

int64_t bench_clock_ns(clockid_t clock) {
    struct timespec now;
    clock_gettime(clock, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

/* --- the checksum: CRC-32, zlib's polynomial (reflected 0xEDB88320) --------------------------- */

static uint32_t crc_table[256];

void bench_checksum_init(void) {
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[n] = c;
    }
}

static uint32_t crc_add(uint32_t crc, const void *data, size_t length) {
    const unsigned char *p = data;
    crc = ~crc;
    while (length--)
        crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return ~crc;
}

static uint32_t crc_little_endian(uint32_t crc, uint64_t bits, int bytes) {
    unsigned char out[8];
    for (int i = 0; i < bytes; i++)
        out[i] = (unsigned char)(bits >> (8 * i));
    return crc_add(crc, out, (size_t)bytes);
}

uint32_t bench_rows_checksum(const Bench *t) {
    uint32_t crc = 0;
    for (size_t i = 0; i < t->rows_read * (size_t)t->columns; i++) {
        const Value *value = &t->values[i];
        crc = crc_add(crc, &value->type, 1);
        uint64_t bits;
        switch (value->type) {
        case VALUE_INT: crc = crc_little_endian(crc, (uint64_t)value->as.integer, 8); break;
        case VALUE_FLOAT:
            memcpy(&bits, &value->as.real, sizeof bits);
            crc = crc_little_endian(crc, bits, 8);
            break;
        case VALUE_TEXT:
        case VALUE_BLOB:
            crc = crc_little_endian(crc, value->length, 4);
            crc = crc_add(crc, t->arena + value->as.offset, value->length);
            break;
        default: break;
        }
    }
    return crc;
}

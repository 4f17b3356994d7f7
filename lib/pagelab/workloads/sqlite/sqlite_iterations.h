/*
 * What _sqlitetimer.c and sqlite_iterations.c share: a connection with its statements and the
 * rows it last read (Bench), the rows to write (Batch), and the iterations. Formats: the opening
 * comment of _sqlitetimer.c.
 */

#ifndef PAGELAB_SQLITE_ITERATIONS_H
#define PAGELAB_SQLITE_ITERATIONS_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

enum { VALUE_NULL = 'n', VALUE_INT = 'i', VALUE_FLOAT = 'f', VALUE_TEXT = 't', VALUE_BLOB = 'b' };

/* One value: of a row read (text and blob bytes in the Bench's arena) or of a row to write (its
 * bytes in the Batch's buffer). */
typedef struct {
    char type;
    uint32_t length;  /* bytes of a text or blob */
    union {
        int64_t integer;
        double real;
        size_t offset;  /* into the arena or the batch's bytes */
    } as;
} Value;

typedef struct {
    Value *parameters;  /* rows x columns */
    size_t rows, columns;
    char *bytes;
} Batch;

enum { KIND_SELECT_MAPS, KIND_TX_READ, KIND_WRITE_TX, KIND_EXECUTE_BATCH };

typedef struct {
    sqlite3 *db;
    sqlite3_stmt *select_all, *select_first, *insert, *delete_after, *begin, *commit;
    sqlite3_int64 table_rows;  /* a write's rows are deleted down to this many */
    Value *values;             /* the last iteration's rows, `columns` values each */
    size_t value_capacity, rows_read;
    int columns;
    char *arena;
    size_t arena_capacity, arena_used;
    char message[512];         /* the error of the last call that failed */
} Bench;

/* One iteration of `kind`: `done` is the rows it read or wrote. */
int bench_iteration(Bench *t, int kind, int rows, const Batch *batch, size_t *done);
/* After a write, untimed: the rows it added deleted again. */
int bench_delete_added_rows(Bench *t);
/* Sets `message` to "what: SQLite's error" and returns -1. */
int bench_fail(Bench *t, const char *what);
int64_t bench_clock_ns(clockid_t clock);
void bench_checksum_init(void);
/* CRC-32 over the rows the last read iteration kept. */
uint32_t bench_rows_checksum(const Bench *t);

#endif

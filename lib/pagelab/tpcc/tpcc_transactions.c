/*
 * The five transactions, statement by statement, as tpcc-mysql's neword.c, payment.c, ordstat.c,
 * delivery.c and slev.c run them. What they do and which of tpcc-mysql's quirks they keep is
 * written once, at the top of pagelab/tpcc/statements.py; this file is the same thing in C.
 *
 * Why C. On 2 cores the client's CPU is taken from the server. With the statement loop in Python
 * the client spent ~0.2-0.3 ms more per transaction than tpcc_start (interpreter work between the
 * round trips), which was enough to move TpmC at 16k by ~10% against tpcc-mysql's. Here a
 * transaction runs between one GIL release and the next, with the client library's own calls:
 * bind, execute, store the result, bind the result, fetch.
 *
 * Money is exact, in integers: prices and balances in cents, tax and discount in 1/10000. A
 * decimal arrives as the server's text and leaves as text, which the server converts to the
 * column's type, as it does for tpcc-mysql's bound strings.
 */

#include "tpcc_transactions.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const TPCC_STATEMENT_NAMES[TPCC_STATEMENT_COUNT] = {
    "new_order_customer_warehouse", "new_order_district", "new_order_district_next",
    "new_order_insert_order", "new_order_insert_new_order", "new_order_item", "new_order_stock",
    "new_order_stock_update", "new_order_insert_line",
    "payment_warehouse_ytd", "payment_warehouse", "payment_district_ytd", "payment_district",
    "payment_name_count", "payment_name_ids", "payment_customer", "payment_customer_data",
    "payment_customer_update_bad_credit", "payment_customer_update", "payment_insert_history",
    "order_status_name_count", "order_status_name_customers", "order_status_customer",
    "order_status_last_order", "order_status_lines",
    "delivery_oldest_new_order", "delivery_delete_new_order", "delivery_order_customer",
    "delivery_order_carrier", "delivery_lines_delivered", "delivery_lines_total", "delivery_customer_balance",
    "stock_level_district_next", "stock_level_recent_items", "stock_level_low_stock",
};

const char *const TPCC_STATEMENT_TEXTS[TPCC_STATEMENT_COUNT] = {
    "SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse "
    "WHERE w_id = ? AND c_w_id = w_id AND c_d_id = ? AND c_id = ?",
    "SELECT d_next_o_id, d_tax FROM district WHERE d_id = ? AND d_w_id = ? FOR UPDATE",
    "UPDATE district SET d_next_o_id = ? + 1 WHERE d_id = ? AND d_w_id = ?",
    "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local) "
    "VALUES(?, ?, ?, ?, ?, ?, ?)",
    "INSERT INTO new_orders (no_o_id, no_d_id, no_w_id) VALUES (?,?,?)",
    "SELECT i_price, i_name, i_data FROM item WHERE i_id = ?",
    "SELECT s_quantity, s_data, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05, s_dist_06, "
    "s_dist_07, s_dist_08, s_dist_09, s_dist_10 FROM stock WHERE s_i_id = ? AND s_w_id = ? FOR UPDATE",
    "UPDATE stock SET s_quantity = ? WHERE s_i_id = ? AND s_w_id = ?",
    "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, "
    "ol_amount, ol_dist_info) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    "UPDATE warehouse SET w_ytd = w_ytd + ? WHERE w_id = ?",
    "SELECT w_street_1, w_street_2, w_city, w_state, w_zip, w_name FROM warehouse WHERE w_id = ?",
    "UPDATE district SET d_ytd = d_ytd + ? WHERE d_w_id = ? AND d_id = ?",
    "SELECT d_street_1, d_street_2, d_city, d_state, d_zip, d_name FROM district WHERE d_w_id = ? AND d_id = ?",
    "SELECT count(c_id) FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ?",
    "SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first",
    "SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_credit, "
    "c_credit_lim, c_discount, c_balance, c_since FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ? "
    "FOR UPDATE",
    "SELECT c_data FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
    "UPDATE customer SET c_balance = ?, c_data = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
    "UPDATE customer SET c_balance = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
    "INSERT INTO history(h_c_d_id, h_c_w_id, h_c_id, h_d_id, h_w_id, h_date, h_amount, h_data) "
    "VALUES(?, ?, ?, ?, ?, ?, ?, ?)",
    "SELECT count(c_id) FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ?",
    "SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? "
    "ORDER BY c_first",
    "SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
    "SELECT o_id, o_entry_d, COALESCE(o_carrier_id,0) FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? "
    "AND o_id = (SELECT MAX(o_id) FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ?)",
    "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line "
    "WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?",
    "SELECT COALESCE(MIN(no_o_id),0) FROM new_orders WHERE no_d_id = ? AND no_w_id = ?",
    "DELETE FROM new_orders WHERE no_o_id = ? AND no_d_id = ? AND no_w_id = ?",
    "SELECT o_c_id FROM orders WHERE o_id = ? AND o_d_id = ? AND o_w_id = ?",
    "UPDATE orders SET o_carrier_id = ? WHERE o_id = ? AND o_d_id = ? AND o_w_id = ?",
    "UPDATE order_line SET ol_delivery_d = ? WHERE ol_o_id = ? AND ol_d_id = ? AND ol_w_id = ?",
    "SELECT SUM(ol_amount) FROM order_line WHERE ol_o_id = ? AND ol_d_id = ? AND ol_w_id = ?",
    "UPDATE customer SET c_balance = c_balance + ? , c_delivery_cnt = c_delivery_cnt + 1 "
    "WHERE c_id = ? AND c_d_id = ? AND c_w_id = ?",
    "SELECT d_next_o_id FROM district WHERE d_id = ? AND d_w_id = ?",
    "SELECT DISTINCT ol_i_id FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id < ? "
    "AND ol_o_id >= (? - 20)",
    "SELECT count(*) FROM stock WHERE s_w_id = ? AND s_i_id = ? AND s_quantity < ?",
};

/* tpcc-mysql restocks by this much when an order would leave too little (its neword.c). */
#define RESTOCK 91
/* The widest statement: New-Order's line insert (9 parameters), the stock read (12 columns) and
 * Payment's customer read (14 columns). */
#define MAX_PARAMS 9
#define MAX_COLUMNS 14
/* The widest text column read: c_data, VARCHAR(500). */
#define TEXT_SIZE 512
/* Distinct items in Stock-Level's 20 orders: at most 20 x 15 lines. */
#define MAX_RECENT_ITEMS (20 * TPCC_MAX_LINES)
/* "-9999999999.99" and the like, with room to spare. */
#define MONEY_TEXT_SIZE 32

typedef struct {
    MYSQL_BIND bind[MAX_PARAMS];
    long long integer[MAX_PARAMS];
    int count;
} params;

typedef struct {
    MYSQL_BIND bind[MAX_COLUMNS];
    long long integer[MAX_COLUMNS];
    char text[MAX_COLUMNS][TEXT_SIZE];
    unsigned long length[MAX_COLUMNS];
    my_bool is_null[MAX_COLUMNS];
    unsigned int columns;
} row;

static void add_int(params *p, long long value) {
    MYSQL_BIND *b = &p->bind[p->count];
    memset(b, 0, sizeof *b);
    p->integer[p->count] = value;
    b->buffer_type = MYSQL_TYPE_LONGLONG;
    b->buffer = &p->integer[p->count];
    p->count++;
}

static void add_text(params *p, const char *text) {
    MYSQL_BIND *b = &p->bind[p->count];
    memset(b, 0, sizeof *b);
    b->buffer_type = MYSQL_TYPE_STRING;
    b->buffer = (void *)text;
    b->buffer_length = (unsigned long)strlen(text);
    p->count++;
}

static int is_integer_type(enum enum_field_types type) {
    return type == MYSQL_TYPE_TINY || type == MYSQL_TYPE_SHORT || type == MYSQL_TYPE_LONG ||
           type == MYSQL_TYPE_INT24 || type == MYSQL_TYPE_LONGLONG || type == MYSQL_TYPE_YEAR;
}

static void sql_error(MYSQL_STMT *statement, tpcc_outcome *out) {
    out->status = TPCC_SQL_ERROR;
    out->errnum = mysql_stmt_errno(statement);
    snprintf(out->sqlstate, sizeof out->sqlstate, "%s", mysql_stmt_sqlstate(statement));
    snprintf(out->message, sizeof out->message, "%s", mysql_stmt_error(statement));
}

static void session_error(MYSQL *mysql, tpcc_outcome *out) {
    out->status = TPCC_SQL_ERROR;
    out->errnum = mysql_errno(mysql);
    snprintf(out->sqlstate, sizeof out->sqlstate, "%s", mysql_sqlstate(mysql));
    snprintf(out->message, sizeof out->message, "%s", mysql_error(mysql));
}

/* `found` as run_first returns it: true when 1; when 0, records which row was missing. */
__attribute__((format(printf, 3, 4)))
static int need(int found, tpcc_outcome *out, const char *what, ...) {
    if (found == 0) {
        out->status = TPCC_MISSING_ROW;
        out->errnum = 0;
        out->sqlstate[0] = '\0';
        va_list args;
        va_start(args, what);
        vsnprintf(out->message, sizeof out->message, what, args);
        va_end(args);
    }
    return found == 1;
}

/* Execute one statement; a statement with a result is stored and its columns bound to `r`.
 * Returns 0, or -1 with `out` filled. */
static int run(MYSQL_STMT *statement, params *p, row *r, tpcc_outcome *out) {
    if (p != NULL && p->count && mysql_stmt_bind_param(statement, p->bind)) {
        sql_error(statement, out);
        return -1;
    }
    if (mysql_stmt_execute(statement)) {
        sql_error(statement, out);
        return -1;
    }
    MYSQL_RES *metadata = mysql_stmt_result_metadata(statement);
    if (metadata == NULL)
        return 0;
    unsigned int columns = mysql_num_fields(metadata);
    MYSQL_FIELD *fields = mysql_fetch_fields(metadata);
    if (columns > MAX_COLUMNS) {  /* mysql_stmt_bind_result would read a bind per column */
        mysql_free_result(metadata);
        out->status = TPCC_SQL_ERROR;
        out->errnum = 0;
        snprintf(out->sqlstate, sizeof out->sqlstate, "HY000");
        snprintf(out->message, sizeof out->message, "a statement returned %u columns, at most %d are read",
                 columns, MAX_COLUMNS);
        return -1;
    }
    memset(r->bind, 0, sizeof r->bind);
    for (unsigned int c = 0; c < columns; c++) {
        r->bind[c].length = &r->length[c];
        r->bind[c].is_null = &r->is_null[c];
        if (is_integer_type(fields[c].type)) {
            r->bind[c].buffer_type = MYSQL_TYPE_LONGLONG;
            r->bind[c].buffer = &r->integer[c];
        } else {
            r->bind[c].buffer_type = MYSQL_TYPE_STRING;
            r->bind[c].buffer = r->text[c];
            r->bind[c].buffer_length = TEXT_SIZE - 1;
        }
    }
    r->columns = columns;
    mysql_free_result(metadata);
    if (mysql_stmt_store_result(statement) || mysql_stmt_bind_result(statement, r->bind)) {
        sql_error(statement, out);
        return -1;
    }
    return 0;
}

/* The next row into `r`: 1, 0 at the end, -1 on an error. A value longer than TEXT_SIZE - 1 is
 * an error, not cut: c_data is read and written back, and must not shrink. */
static int next_row(MYSQL_STMT *statement, row *r, tpcc_outcome *out) {
    int status = mysql_stmt_fetch(statement);
    if (status == MYSQL_NO_DATA)
        return 0;
    if (status == 1) {
        sql_error(statement, out);
        return -1;
    }
    if (status == MYSQL_DATA_TRUNCATED) {
        out->status = TPCC_SQL_ERROR;
        out->errnum = 0;
        snprintf(out->sqlstate, sizeof out->sqlstate, "HY000");
        snprintf(out->message, sizeof out->message, "a column is longer than the %d bytes read", TEXT_SIZE - 1);
        return -1;
    }
    for (unsigned int c = 0; c < r->columns; c++)
        if (r->bind[c].buffer_type == MYSQL_TYPE_STRING) {
            unsigned long n = r->length[c] < TEXT_SIZE - 1 ? r->length[c] : TEXT_SIZE - 1;
            r->text[c][r->is_null[c] ? 0 : n] = '\0';
        }
    return 1;
}

/* Run a statement that returns rows and keep the first: 1 found, 0 none, -1 error. The result
 * is stored whole on the client, so freeing it drops any further rows without a round trip. */
static int run_first(MYSQL_STMT *statement, params *p, row *r, tpcc_outcome *out) {
    if (run(statement, p, r, out))
        return -1;
    int found = next_row(statement, r, out);
    mysql_stmt_free_result(statement);
    return found;
}

static int run_no_result(MYSQL_STMT *statement, params *p, tpcc_outcome *out) {
    return run(statement, p, NULL, out);
}

static long long column_int(const row *r, unsigned int c) {
    if (r->is_null[c])
        return 0;
    return r->bind[c].buffer_type == MYSQL_TYPE_LONGLONG ? r->integer[c] : strtoll(r->text[c], NULL, 10);
}

/* A decimal column's text as an integer in units of 10^-scale ("0.1234" at scale 4 -> 1234). */
static long long column_fixed(const row *r, unsigned int c, int scale) {
    if (r->is_null[c])
        return 0;
    const char *s = r->text[c];
    int negative = *s == '-';
    if (*s == '-' || *s == '+')
        s++;
    long long value = 0;
    for (; *s >= '0' && *s <= '9'; s++)
        value = value * 10 + (*s - '0');
    int digits = 0;
    if (*s == '.')
        for (s++; *s >= '0' && *s <= '9' && digits < scale; s++, digits++)
            value = value * 10 + (*s - '0');
    for (; digits < scale; digits++)
        value *= 10;
    return negative ? -value : value;
}

static const char *money_text(long long cents, char buffer[MONEY_TEXT_SIZE]) {
    long long whole = cents < 0 ? -cents : cents;
    snprintf(buffer, MONEY_TEXT_SIZE, "%s%lld.%02lld", cents < 0 ? "-" : "", whole / 100, whole % 100);
    return buffer;
}

static void commit(MYSQL *mysql, tpcc_outcome *out) {
    if (mysql_commit(mysql))
        session_error(mysql, out);
    else
        out->status = TPCC_COMMITTED;
}

void tpcc_new_order(MYSQL *mysql, MYSQL_STMT **st, const tpcc_new_order_input *in, tpcc_outcome *out) {
    long long w = in->warehouse, d = in->district, c = in->customer;
    params p;
    row r;
    int found;

    p.count = 0, add_int(&p, w), add_int(&p, d), add_int(&p, c);
    if (!need(run_first(st[NEW_ORDER_CUSTOMER_WAREHOUSE], &p, &r, out), out, "customer %lld/%lld/%lld", w, d, c))
        return;
    long long discount = column_fixed(&r, 0, 4), w_tax = column_fixed(&r, 3, 4);

    p.count = 0, add_int(&p, d), add_int(&p, w);
    if (!need(run_first(st[NEW_ORDER_DISTRICT], &p, &r, out), out, "district %lld/%lld", w, d))
        return;
    long long order = column_int(&r, 0), d_tax = column_fixed(&r, 1, 4);

    p.count = 0, add_int(&p, order), add_int(&p, d), add_int(&p, w);
    if (run_no_result(st[NEW_ORDER_DISTRICT_NEXT], &p, out))
        return;
    p.count = 0, add_int(&p, order), add_int(&p, d), add_int(&p, w), add_int(&p, c);
    add_text(&p, in->now), add_int(&p, in->line_count), add_int(&p, in->all_local);
    if (run_no_result(st[NEW_ORDER_INSERT_ORDER], &p, out))
        return;
    p.count = 0, add_int(&p, order), add_int(&p, d), add_int(&p, w);
    if (run_no_result(st[NEW_ORDER_INSERT_NEW_ORDER], &p, out))
        return;

    /* ol_amount = qty * price * (1 + w_tax + d_tax) * (1 - c_discount), rounded half up to the
     * cent: price in cents, the rest in 1/10000, so the product is in 10^-8 cents. */
    long long charge = (10000 + w_tax + d_tax) * (10000 - discount);
    for (int i = 0; i < in->line_count; i++) {
        long long item = in->item[i], supply = in->supply_warehouse[i], quantity = in->quantity[i];
        p.count = 0, add_int(&p, item);
        if ((found = run_first(st[NEW_ORDER_ITEM], &p, &r, out)) < 0)
            return;
        if (found == 0) {  /* the unused item of the 1%: tpcc-mysql rolls back here */
            if (mysql_rollback(mysql))
                session_error(mysql, out);
            else
                out->status = TPCC_ROLLED_BACK;
            return;
        }
        long long price = column_fixed(&r, 0, 2);

        p.count = 0, add_int(&p, item), add_int(&p, supply);
        if (!need(run_first(st[NEW_ORDER_STOCK], &p, &r, out), out, "stock %lld/%lld", supply, item))
            return;
        long long stock = column_int(&r, 0);
        char dist_info[TEXT_SIZE];
        snprintf(dist_info, sizeof dist_info, "%s", r.text[1 + d]);  /* s_dist_01.. follow s_quantity, s_data */
        stock = stock > quantity ? stock - quantity : stock - quantity + RESTOCK;

        p.count = 0, add_int(&p, stock), add_int(&p, item), add_int(&p, supply);
        if (run_no_result(st[NEW_ORDER_STOCK_UPDATE], &p, out))
            return;
        long long amount = (quantity * price * charge + 50000000) / 100000000;
        char amount_text[MONEY_TEXT_SIZE];
        p.count = 0, add_int(&p, order), add_int(&p, d), add_int(&p, w), add_int(&p, i + 1), add_int(&p, item);
        add_int(&p, supply), add_int(&p, quantity), add_text(&p, money_text(amount, amount_text));
        add_text(&p, dist_info);
        if (run_no_result(st[NEW_ORDER_INSERT_LINE], &p, out))
            return;
    }
    commit(mysql, out);
}

/* Clause 2.5.2.2: of the customers with this last name, ordered by first name, the one at
 * position ceil(n / 2). Counts first, then walks the list, as tpcc-mysql does. 1 found, 0 not,
 * -1 error; `r` holds the customer's row. */
static int customer_in_the_middle(MYSQL_STMT *count_statement, MYSQL_STMT *list_statement, long long w,
                                  long long d, const char *last, row *r, tpcc_outcome *out) {
    params p;
    int found;
    p.count = 0, add_int(&p, w), add_int(&p, d), add_text(&p, last);
    if ((found = run_first(count_statement, &p, r, out)) <= 0)
        return found;
    long long count = column_int(r, 0), wanted = (count + 1) / 2;
    if (run(list_statement, &p, r, out))
        return -1;
    long long position = 0;
    while (position < wanted && (found = next_row(list_statement, r, out)) == 1)
        position++;
    mysql_stmt_free_result(list_statement);
    if (found < 0)
        return -1;
    return wanted > 0 && position == wanted;
}

void tpcc_payment(MYSQL *mysql, MYSQL_STMT **st, const tpcc_payment_input *in, tpcc_outcome *out) {
    long long w = in->warehouse, d = in->district, c_w = in->customer_warehouse, c_d = in->customer_district;
    long long c = in->customer;
    char amount[MONEY_TEXT_SIZE], balance[MONEY_TEXT_SIZE];
    money_text(in->amount_cents, amount);
    params p;
    row r;
    int found;

    p.count = 0, add_text(&p, amount), add_int(&p, w);
    if (run_no_result(st[PAYMENT_WAREHOUSE_YTD], &p, out))
        return;
    p.count = 0, add_int(&p, w);
    if (!need(run_first(st[PAYMENT_WAREHOUSE], &p, &r, out), out, "warehouse %lld", w))
        return;
    /* h_data: w_name and d_name cut to 10 each, then four spaces only if the two fill 20. */
    char history_data[32];
    snprintf(history_data, 11, "%.10s", r.text[5]);

    p.count = 0, add_text(&p, amount), add_int(&p, w), add_int(&p, d);
    if (run_no_result(st[PAYMENT_DISTRICT_YTD], &p, out))
        return;
    p.count = 0, add_int(&p, w), add_int(&p, d);
    if (!need(run_first(st[PAYMENT_DISTRICT], &p, &r, out), out, "district %lld/%lld", w, d))
        return;
    size_t used = strlen(history_data);
    snprintf(history_data + used, 11, "%.10s", r.text[5]);
    if (strlen(history_data) == 20)
        strcat(history_data, "    ");

    if (in->by_last_name) {
        found = customer_in_the_middle(st[PAYMENT_NAME_COUNT], st[PAYMENT_NAME_IDS], c_w, c_d, in->last, &r, out);
        if (!need(found, out, "customer %s of %lld/%lld", in->last, c_w, c_d))
            return;
        c = column_int(&r, 0);
    }
    p.count = 0, add_int(&p, c_w), add_int(&p, c_d), add_int(&p, c);
    if (!need(run_first(st[PAYMENT_CUSTOMER], &p, &r, out), out, "customer %lld/%lld/%lld", c_w, c_d, c))
        return;
    int bad_credit = strstr(r.text[9], "BC") != NULL;
    money_text(column_fixed(&r, 12, 2) - in->amount_cents, balance);

    if (bad_credit) {
        p.count = 0, add_int(&p, c_w), add_int(&p, c_d), add_int(&p, c);
        if (!need(run_first(st[PAYMENT_CUSTOMER_DATA], &p, &r, out), out, "customer %lld/%lld/%lld", c_w, c_d, c))
            return;
        p.count = 0, add_text(&p, balance), add_text(&p, r.text[0]);
        add_int(&p, c_w), add_int(&p, c_d), add_int(&p, c);
        if (run_no_result(st[PAYMENT_CUSTOMER_UPDATE_BAD_CREDIT], &p, out))
            return;
    } else {
        p.count = 0, add_text(&p, balance), add_int(&p, c_w), add_int(&p, c_d), add_int(&p, c);
        if (run_no_result(st[PAYMENT_CUSTOMER_UPDATE], &p, out))
            return;
    }
    p.count = 0, add_int(&p, c_d), add_int(&p, c_w), add_int(&p, c), add_int(&p, d), add_int(&p, w);
    add_text(&p, in->now), add_text(&p, amount), add_text(&p, history_data);
    if (run_no_result(st[PAYMENT_INSERT_HISTORY], &p, out))
        return;
    commit(mysql, out);
}

void tpcc_order_status(MYSQL *mysql, MYSQL_STMT **st, const tpcc_order_status_input *in, tpcc_outcome *out) {
    long long w = in->warehouse, d = in->district, c = in->customer;
    params p;
    row r;
    int found;

    if (in->by_last_name) {
        found = customer_in_the_middle(st[ORDER_STATUS_NAME_COUNT], st[ORDER_STATUS_NAME_CUSTOMERS], w, d,
                                       in->last, &r, out);
        if (!need(found, out, "customer %s of %lld/%lld", in->last, w, d))
            return;
    } else {
        p.count = 0, add_int(&p, w), add_int(&p, d), add_int(&p, c);
        if (!need(run_first(st[ORDER_STATUS_CUSTOMER], &p, &r, out), out, "customer %lld/%lld/%lld", w, d, c))
            return;
    }
    /* The statement above returns no c_id, so the last order read is the drawn customer's. */
    p.count = 0, add_int(&p, w), add_int(&p, d), add_int(&p, c), add_int(&p, w), add_int(&p, d), add_int(&p, c);
    if (!need(run_first(st[ORDER_STATUS_LAST_ORDER], &p, &r, out), out, "last order of %lld/%lld/%lld", w, d, c))
        return;
    long long order = column_int(&r, 0);
    p.count = 0, add_int(&p, w), add_int(&p, d), add_int(&p, order);
    if (run_first(st[ORDER_STATUS_LINES], &p, &r, out) < 0)
        return;
    commit(mysql, out);
}

void tpcc_delivery(MYSQL *mysql, MYSQL_STMT **st, const tpcc_delivery_input *in, tpcc_outcome *out) {
    /* A warehouse has 10 districts (clause 1.3), and Delivery commits after each. */
    long long w = in->warehouse;
    params p;
    row r;
    out->status = TPCC_COMMITTED;
    for (long long d = 1; d <= 10; d++) {
        p.count = 0, add_int(&p, d), add_int(&p, w);
        if (!need(run_first(st[DELIVERY_OLDEST_NEW_ORDER], &p, &r, out), out, "new orders of %lld/%lld", w, d))
            return;
        long long order = column_int(&r, 0);
        if (order == 0)
            continue;
        p.count = 0, add_int(&p, order), add_int(&p, d), add_int(&p, w);
        if (run_no_result(st[DELIVERY_DELETE_NEW_ORDER], &p, out))
            return;
        if (!need(run_first(st[DELIVERY_ORDER_CUSTOMER], &p, &r, out), out, "order %lld/%lld/%lld", w, d, order))
            return;
        long long customer = column_int(&r, 0);
        p.count = 0, add_int(&p, in->carrier), add_int(&p, order), add_int(&p, d), add_int(&p, w);
        if (run_no_result(st[DELIVERY_ORDER_CARRIER], &p, out))
            return;
        p.count = 0, add_text(&p, in->now), add_int(&p, order), add_int(&p, d), add_int(&p, w);
        if (run_no_result(st[DELIVERY_LINES_DELIVERED], &p, out))
            return;
        p.count = 0, add_int(&p, order), add_int(&p, d), add_int(&p, w);
        if (!need(run_first(st[DELIVERY_LINES_TOTAL], &p, &r, out), out, "lines of %lld/%lld/%lld", w, d, order))
            return;
        char total[TEXT_SIZE];
        snprintf(total, sizeof total, "%s", r.is_null[0] ? "0" : r.text[0]);
        p.count = 0, add_text(&p, total), add_int(&p, customer), add_int(&p, d), add_int(&p, w);
        if (run_no_result(st[DELIVERY_CUSTOMER_BALANCE], &p, out))
            return;
        commit(mysql, out);
        if (out->status != TPCC_COMMITTED)
            return;
    }
}

void tpcc_stock_level(MYSQL *mysql, MYSQL_STMT **st, const tpcc_stock_level_input *in, tpcc_outcome *out) {
    long long w = in->warehouse, d = in->district;
    params p;
    row r;
    int found;
    p.count = 0, add_int(&p, d), add_int(&p, w);
    if (!need(run_first(st[STOCK_LEVEL_DISTRICT_NEXT], &p, &r, out), out, "district %lld/%lld", w, d))
        return;
    long long next = column_int(&r, 0);

    long long items[MAX_RECENT_ITEMS];
    int item_count = 0;
    p.count = 0, add_int(&p, w), add_int(&p, d), add_int(&p, next), add_int(&p, next);
    if (run(st[STOCK_LEVEL_RECENT_ITEMS], &p, &r, out))
        return;
    while ((found = next_row(st[STOCK_LEVEL_RECENT_ITEMS], &r, out)) == 1)
        if (item_count < MAX_RECENT_ITEMS)
            items[item_count++] = column_int(&r, 0);
    mysql_stmt_free_result(st[STOCK_LEVEL_RECENT_ITEMS]);
    if (found < 0)
        return;
    for (int i = 0; i < item_count; i++) {
        p.count = 0, add_int(&p, w), add_int(&p, items[i]), add_int(&p, in->threshold);
        if (!need(run_first(st[STOCK_LEVEL_LOW_STOCK], &p, &r, out), out, "stock %lld/%lld", w, items[i]))
            return;
    }
    commit(mysql, out);
}

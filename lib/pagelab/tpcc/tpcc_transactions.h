/*
 * The five TPC-C transactions as tpcc-mysql's tpcc_start runs them, in C (tpcc_transactions.c),
 * called by the Python client (_tpccclient.c) with the GIL released for the whole transaction.
 *
 * The statements, the order they run in, their commits and rollbacks, and tpcc-mysql's quirks are
 * described once, at the top of pagelab/tpcc/statements.py. This header declares the statement
 * handles (their texts are in tpcc_transactions.c, exported to Python as _tpccclient.STATEMENTS),
 * the inputs each transaction takes, and what a transaction reports back.
 */

#ifndef PAGELAB_TPCC_TRANSACTIONS_H
#define PAGELAB_TPCC_TRANSACTIONS_H

#include <mysql.h>

/* Statement handles, in tpcc-mysql's order (its main.c prepares them in this order). */
enum tpcc_statement {
    NEW_ORDER_CUSTOMER_WAREHOUSE,
    NEW_ORDER_DISTRICT,
    NEW_ORDER_DISTRICT_NEXT,
    NEW_ORDER_INSERT_ORDER,
    NEW_ORDER_INSERT_NEW_ORDER,
    NEW_ORDER_ITEM,
    NEW_ORDER_STOCK,
    NEW_ORDER_STOCK_UPDATE,
    NEW_ORDER_INSERT_LINE,
    PAYMENT_WAREHOUSE_YTD,
    PAYMENT_WAREHOUSE,
    PAYMENT_DISTRICT_YTD,
    PAYMENT_DISTRICT,
    PAYMENT_NAME_COUNT,
    PAYMENT_NAME_IDS,
    PAYMENT_CUSTOMER,
    PAYMENT_CUSTOMER_DATA,
    PAYMENT_CUSTOMER_UPDATE_BAD_CREDIT,
    PAYMENT_CUSTOMER_UPDATE,
    PAYMENT_INSERT_HISTORY,
    ORDER_STATUS_NAME_COUNT,
    ORDER_STATUS_NAME_CUSTOMERS,
    ORDER_STATUS_CUSTOMER,
    ORDER_STATUS_LAST_ORDER,
    ORDER_STATUS_LINES,
    DELIVERY_OLDEST_NEW_ORDER,
    DELIVERY_DELETE_NEW_ORDER,
    DELIVERY_ORDER_CUSTOMER,
    DELIVERY_ORDER_CARRIER,
    DELIVERY_LINES_DELIVERED,
    DELIVERY_LINES_TOTAL,
    DELIVERY_CUSTOMER_BALANCE,
    STOCK_LEVEL_DISTRICT_NEXT,
    STOCK_LEVEL_RECENT_ITEMS,
    STOCK_LEVEL_LOW_STOCK,
    TPCC_STATEMENT_COUNT
};

extern const char *const TPCC_STATEMENT_NAMES[TPCC_STATEMENT_COUNT];
extern const char *const TPCC_STATEMENT_TEXTS[TPCC_STATEMENT_COUNT];

/* A New-Order has 5 to 15 lines (clause 2.4.1.3). */
#define TPCC_MAX_LINES 15
/* c_last is at most 16 characters (clause 4.3.2.3); the timestamp is 'YYYY-MM-DD hh:mm:ss'. */
#define TPCC_LAST_NAME_SIZE 17
#define TPCC_TIMESTAMP_SIZE 20

typedef struct {
    long long warehouse, district, customer;
    int all_local, line_count;
    /* in tpcc-mysql's processing order (pagelab.tpcc.statements.line_order) */
    long long item[TPCC_MAX_LINES], supply_warehouse[TPCC_MAX_LINES], quantity[TPCC_MAX_LINES];
    char now[TPCC_TIMESTAMP_SIZE];
} tpcc_new_order_input;

typedef struct {
    long long warehouse, district, customer_warehouse, customer_district, customer;
    int by_last_name;
    char last[TPCC_LAST_NAME_SIZE];
    long long amount_cents;
    char now[TPCC_TIMESTAMP_SIZE];
} tpcc_payment_input;

typedef struct {
    long long warehouse, district, customer;
    int by_last_name;
    char last[TPCC_LAST_NAME_SIZE];
} tpcc_order_status_input;

typedef struct {
    long long warehouse, carrier;
    char now[TPCC_TIMESTAMP_SIZE];
} tpcc_delivery_input;

typedef struct {
    long long warehouse, district, threshold;
} tpcc_stock_level_input;

enum tpcc_status {
    TPCC_COMMITTED,
    TPCC_ROLLED_BACK,  /* New-Order's unused item: rolled back by design, counted as done */
    TPCC_SQL_ERROR,    /* errnum, sqlstate and message are the server's or the library's */
    TPCC_MISSING_ROW,  /* a row tpcc-mysql requires was not there; message names it */
};

typedef struct {
    enum tpcc_status status;
    unsigned int errnum;
    char sqlstate[6];
    char message[256];
} tpcc_outcome;

/* Each runs one transaction on `mysql` with the statements prepared from TPCC_STATEMENT_TEXTS.
 * They touch no Python object, so the caller may release the GIL around them. On an error the
 * transaction is left open: the caller rolls back (as tpcc-mysql's retry does). */
void tpcc_new_order(MYSQL *mysql, MYSQL_STMT **statements, const tpcc_new_order_input *in, tpcc_outcome *out);
void tpcc_payment(MYSQL *mysql, MYSQL_STMT **statements, const tpcc_payment_input *in, tpcc_outcome *out);
void tpcc_order_status(MYSQL *mysql, MYSQL_STMT **statements, const tpcc_order_status_input *in, tpcc_outcome *out);
void tpcc_delivery(MYSQL *mysql, MYSQL_STMT **statements, const tpcc_delivery_input *in, tpcc_outcome *out);
void tpcc_stock_level(MYSQL *mysql, MYSQL_STMT **statements, const tpcc_stock_level_input *in, tpcc_outcome *out);

#endif

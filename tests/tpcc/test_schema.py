"""The TPC-C schema matches tpcc-mysql's create_table.sql and add_fkey_idx.sql."""

import re

import pytest
from pagelab.tpcc import schema

CREATE = re.compile(r"^CREATE TABLE (\w+) \(\n(.*)\n\) ENGINE=(\w+)$", re.S)


def parsed_create_statements(engine="InnoDB"):
    """table -> (column names, primary key columns) read back from the rendered DDL."""
    parsed = {}
    for statement in schema.create_table_statements(engine):
        match = CREATE.match(statement)
        assert match, statement
        table, body, rendered_engine = match.groups()
        assert rendered_engine == engine
        columns, primary_key = [], None
        for line in body.split(",\n"):
            line = line.strip()
            if line.startswith("PRIMARY KEY"):
                primary_key = tuple(re.findall(r"\w+", line.removeprefix("PRIMARY KEY")))
            else:
                columns.append(line.split()[0])
        parsed[table] = (columns, primary_key)
    return parsed


def test_the_nine_tables_are_tpcc_mysqls():
    assert sorted(schema.TABLES) == sorted(
        [
            "warehouse",
            "district",
            "customer",
            "history",
            "new_orders",
            "orders",
            "order_line",
            "item",
            "stock",
        ]
    )
    assert list(schema.COLUMNS) == schema.TABLES
    assert set(schema.TABLE_DEFINITIONS) == set(schema.TABLES)


def test_columns_match_the_create_statements_in_order():
    parsed = parsed_create_statements()
    assert list(parsed) == list(schema.TABLE_DEFINITIONS)  # tpcc-mysql's CREATE order
    for table, (columns, _) in parsed.items():
        assert columns == schema.COLUMNS[table], table


def test_every_table_but_history_has_a_primary_key_of_not_null_columns():
    parsed = parsed_create_statements()
    for table, (_, primary_key) in parsed.items():
        if table == "history":
            # Clause 1.3 and tpcc-mysql: history has no primary key (InnoDB uses a hidden row id).
            assert primary_key is None
            continue
        assert primary_key, f"{table} has no primary key"
        assert primary_key == schema.PRIMARY_KEYS[table]
        definition = schema.TABLE_DEFINITIONS[table]
        not_null = {column.name for column in definition.columns if column.not_null}
        assert set(primary_key) <= not_null, table


def test_primary_keys_are_tpcc_mysqls():
    assert schema.PRIMARY_KEYS == {
        "item": ("i_id",),
        "warehouse": ("w_id",),
        "stock": ("s_w_id", "s_i_id"),
        "district": ("d_w_id", "d_id"),
        "customer": ("c_w_id", "c_d_id", "c_id"),
        "history": None,
        "orders": ("o_w_id", "o_d_id", "o_id"),
        "new_orders": ("no_w_id", "no_d_id", "no_o_id"),
        "order_line": ("ol_w_id", "ol_d_id", "ol_o_id", "ol_number"),
    }


@pytest.mark.parametrize(
    "table, column, sql_type",
    [
        ("warehouse", "w_id", "smallint"),
        ("warehouse", "w_tax", "decimal(4,2)"),
        ("warehouse", "w_ytd", "decimal(12,2)"),
        ("district", "d_id", "tinyint"),
        ("district", "d_next_o_id", "int"),
        ("customer", "c_since", "datetime"),
        ("customer", "c_credit_lim", "bigint"),
        ("customer", "c_data", "text"),
        ("history", "h_data", "varchar(24)"),
        ("orders", "o_carrier_id", "tinyint"),
        ("order_line", "ol_dist_info", "char(24)"),
        ("order_line", "ol_amount", "decimal(6,2)"),
        ("item", "i_price", "decimal(5,2)"),
        ("item", "i_data", "varchar(50)"),
        ("stock", "s_dist_01", "char(24)"),
        ("stock", "s_dist_10", "char(24)"),
        ("stock", "s_ytd", "decimal(8,0)"),
    ],
)
def test_column_types_are_tpcc_mysqls(table, column, sql_type):
    types = {c.name: c.sql_type for c in schema.TABLE_DEFINITIONS[table].columns}
    assert types[column] == sql_type


def test_stock_has_ten_district_columns():
    districts = [c for c in schema.COLUMNS["stock"] if c.startswith("s_dist_")]
    assert districts == [f"s_dist_{n:02d}" for n in range(1, 11)]
    assert len(schema.COLUMNS["stock"]) == 17


def test_secondary_indexes_are_tpcc_mysqls():
    statements = schema.secondary_index_statements()
    assert statements == [
        "CREATE INDEX idx_customer ON customer (c_w_id, c_d_id, c_last, c_first)",
        "CREATE INDEX idx_orders ON orders (o_w_id, o_d_id, o_c_id, o_id)",
        "CREATE INDEX fkey_stock_2 ON stock (s_i_id)",
        "CREATE INDEX fkey_order_line_2 ON order_line (ol_supply_w_id, ol_i_id)",
    ]
    for index in schema.SECONDARY_INDEXES:
        assert set(index.columns) <= set(schema.COLUMNS[index.table])


def test_foreign_keys_reference_primary_keys_of_existing_columns():
    assert len(schema.FOREIGN_KEYS) == 10
    names = [fk.name for fk in schema.FOREIGN_KEYS]
    assert len(set(names)) == 10
    for fk in schema.FOREIGN_KEYS:
        assert set(fk.columns) <= set(schema.COLUMNS[fk.table]), fk.name
        # InnoDB needs the referenced columns indexed; in tpcc-mysql they are always the full key.
        assert fk.referenced_columns == schema.PRIMARY_KEYS[fk.referenced_table], fk.name
        assert len(fk.columns) == len(fk.referenced_columns)


def test_foreign_key_statements_render():
    statements = schema.foreign_key_statements()
    assert len(statements) == 10
    assert (
        "ALTER TABLE order_line ADD CONSTRAINT fkey_order_line_2 FOREIGN KEY (ol_supply_w_id, ol_i_id) "
        "REFERENCES stock (s_w_id, s_i_id)"
    ) in statements
    assert (
        "ALTER TABLE stock ADD CONSTRAINT fkey_stock_2 FOREIGN KEY (s_i_id) REFERENCES item (i_id)"
        in statements
    )


def test_load_order_puts_referenced_tables_first():
    position = {table: i for i, table in enumerate(schema.TABLES)}
    for fk in schema.FOREIGN_KEYS:
        assert position[fk.referenced_table] < position[fk.table], fk.name


def test_drop_statements_drop_referencing_tables_first():
    drops = schema.drop_table_statements()
    assert drops[0] == "DROP TABLE IF EXISTS order_line"
    assert drops[-1] == "DROP TABLE IF EXISTS item"


def test_engine_and_charset_options():
    statements = schema.create_table_statements("MyISAM", charset="latin1")
    assert all(s.endswith(") ENGINE=MyISAM DEFAULT CHARSET=latin1") for s in statements)
    with pytest.raises(ValueError, match="engine"):
        schema.create_table_statements("InnoDB; DROP DATABASE x")


def test_statements_have_no_trailing_semicolon():
    every = (
        schema.create_table_statements()
        + schema.secondary_index_statements()
        + schema.foreign_key_statements()
        + schema.drop_table_statements()
    )
    assert not any(s.rstrip().endswith(";") for s in every)

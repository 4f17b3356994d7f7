-- The five TPC-C transactions as stored procedures, one CALL per transaction: the `procedures` mode.
--
-- What they write is what tpcc-mysql's statements write (pagelab.tpcc.statements explains where
-- tpcc-mysql departs from the specification: New-Order's sorted lines, its stock and amount rules,
-- Payment's customer update and h_data, Delivery's commit per district), so both built-in modes
-- leave the same rows behind from the same inputs. What differs is the conversation: one round trip
-- per transaction instead of one per statement, so the client's share of a small machine's CPUs
-- goes to the server, which then runs at a higher load than under tpcc-mysql (HammerDB drives its
-- TPC-C this way). The reads inside are the specification's (a join for Stock-Level, for example),
-- not tpcc-mysql's statement for statement. The driver creates these at the start of every run in
-- this mode; tpcc-mysql's own tpcc_start ignores them, so a database stays drivable by all modes.
--
-- Conventions: every procedure starts and commits its own transaction; any SQL error rolls back
-- and is re-raised (RESIGNAL), so the driver sees it and retries the whole CALL as tpcc-mysql
-- retries a transaction. New-Order's lines arrive already in tpcc-mysql's order; the 1% that name an
-- unused item roll back there and raise SQLSTATE 45000 with the message 'pagelab: new-order rolled
-- back', which the driver counts as a completed New-Order, as tpcc-mysql does. Timestamps are the
-- client's (in_now), as tpcc-mysql binds them. Procedures return no result sets: what a terminal
-- would display is read INTO variables, which touches the same rows.
--
-- Statements are separated by lines holding only `-- @@` (the driver splits on them).

DROP FUNCTION IF EXISTS pagelab_customer_by_last_name
-- @@
CREATE FUNCTION pagelab_customer_by_last_name(in_w_id INT, in_d_id INT, in_c_last VARCHAR(16))
RETURNS INT READS SQL DATA
BEGIN
    -- Clauses 2.5.2.2 / 2.6.2.2: of the district's customers with this last name, ordered by
    -- c_first, the one at position ceil(n/2). Payment and Order-Status both select this way.
    DECLARE v_count, v_offset, v_c_id INT;
    SELECT COUNT(c_id) INTO v_count FROM customer
     WHERE c_w_id = in_w_id AND c_d_id = in_d_id AND c_last = in_c_last;
    SET v_offset = GREATEST(CEIL(v_count / 2) - 1, 0);
    SELECT c_id INTO v_c_id FROM customer
     WHERE c_w_id = in_w_id AND c_d_id = in_d_id AND c_last = in_c_last
     ORDER BY c_first LIMIT v_offset, 1;
    RETURN v_c_id;
END
-- @@
DROP PROCEDURE IF EXISTS pagelab_new_order
-- @@
CREATE PROCEDURE pagelab_new_order(
    IN in_w_id INT, IN in_d_id INT, IN in_c_id INT, IN in_ol_cnt INT, IN in_all_local INT,
    IN in_item_ids VARCHAR(255), IN in_supply_w_ids VARCHAR(255), IN in_quantities VARCHAR(255),
    IN in_now DATETIME)
BEGIN
    DECLARE v_discount DECIMAL(4,4);
    DECLARE v_last VARCHAR(16);
    DECLARE v_credit CHAR(2);
    DECLARE v_w_tax, v_d_tax DECIMAL(4,4);
    DECLARE v_o_id INT;
    DECLARE v_line INT DEFAULT 1;
    DECLARE v_item, v_supply, v_quantity, v_stock INT;
    DECLARE v_price DECIMAL(5,2);
    DECLARE v_item_name VARCHAR(24);
    DECLARE v_item_data, v_stock_data VARCHAR(50);
    DECLARE v_dist_info CHAR(24);
    DECLARE v_found INT DEFAULT 1;
    DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_found = 0;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

    START TRANSACTION;
    SELECT c_discount, c_last, c_credit, w_tax INTO v_discount, v_last, v_credit, v_w_tax
      FROM customer, warehouse
     WHERE w_id = in_w_id AND c_w_id = w_id AND c_d_id = in_d_id AND c_id = in_c_id;
    SELECT d_next_o_id, d_tax INTO v_o_id, v_d_tax
      FROM district WHERE d_id = in_d_id AND d_w_id = in_w_id FOR UPDATE;
    UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_id = in_d_id AND d_w_id = in_w_id;
    INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local)
    VALUES (v_o_id, in_d_id, in_w_id, in_c_id, in_now, in_ol_cnt, in_all_local);
    INSERT INTO new_orders (no_o_id, no_d_id, no_w_id) VALUES (v_o_id, in_d_id, in_w_id);

    WHILE v_line <= in_ol_cnt DO
        SET v_item = CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(in_item_ids, ',', v_line), ',', -1) AS SIGNED);
        SET v_supply = CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(in_supply_w_ids, ',', v_line), ',', -1) AS SIGNED);
        SET v_quantity = CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(in_quantities, ',', v_line), ',', -1) AS SIGNED);
        SET v_found = 1;
        SELECT i_price, i_name, i_data INTO v_price, v_item_name, v_item_data FROM item WHERE i_id = v_item;
        IF v_found = 0 THEN
            ROLLBACK;
            SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'pagelab: new-order rolled back';
        END IF;
        SELECT s_quantity, s_data,
               ELT(in_d_id, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05,
                            s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10)
          INTO v_stock, v_stock_data, v_dist_info
          FROM stock WHERE s_i_id = v_item AND s_w_id = v_supply FOR UPDATE;
        -- tpcc-mysql's rule: restock by 91 unless more than the quantity ordered remains; only
        -- s_quantity changes.
        UPDATE stock
           SET s_quantity = IF(v_stock > v_quantity, v_stock - v_quantity, v_stock - v_quantity + 91)
         WHERE s_i_id = v_item AND s_w_id = v_supply;
        INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
                                ol_quantity, ol_amount, ol_dist_info)
        VALUES (v_o_id, in_d_id, in_w_id, v_line, v_item, v_supply,
                v_quantity, v_quantity * v_price * (1 + v_w_tax + v_d_tax) * (1 - v_discount), v_dist_info);
        SET v_line = v_line + 1;
    END WHILE;
    COMMIT;
END
-- @@
DROP PROCEDURE IF EXISTS pagelab_payment
-- @@
CREATE PROCEDURE pagelab_payment(
    IN in_w_id INT, IN in_d_id INT, IN in_c_w_id INT, IN in_c_d_id INT,
    IN in_c_id INT, IN in_by_last_name INT, IN in_c_last VARCHAR(16), IN in_amount DECIMAL(6,2),
    IN in_now DATETIME)
BEGIN
    DECLARE v_w_name, v_d_name VARCHAR(10);
    DECLARE v_w_street_1, v_w_street_2, v_w_city, v_d_street_1, v_d_street_2, v_d_city VARCHAR(20);
    DECLARE v_w_state, v_d_state CHAR(2);
    DECLARE v_w_zip, v_d_zip CHAR(9);
    DECLARE v_c_id INT DEFAULT in_c_id;
    DECLARE v_first VARCHAR(16);
    DECLARE v_credit CHAR(2);
    DECLARE v_balance DECIMAL(12,2);
    DECLARE v_data VARCHAR(500);
    DECLARE v_h_data VARCHAR(24);
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

    START TRANSACTION;
    UPDATE warehouse SET w_ytd = w_ytd + in_amount WHERE w_id = in_w_id;
    SELECT w_street_1, w_street_2, w_city, w_state, w_zip, w_name
      INTO v_w_street_1, v_w_street_2, v_w_city, v_w_state, v_w_zip, v_w_name
      FROM warehouse WHERE w_id = in_w_id;
    UPDATE district SET d_ytd = d_ytd + in_amount WHERE d_w_id = in_w_id AND d_id = in_d_id;
    SELECT d_street_1, d_street_2, d_city, d_state, d_zip, d_name
      INTO v_d_street_1, v_d_street_2, v_d_city, v_d_state, v_d_zip, v_d_name
      FROM district WHERE d_w_id = in_w_id AND d_id = in_d_id;
    IF in_by_last_name THEN
        SET v_c_id = pagelab_customer_by_last_name(in_c_w_id, in_c_d_id, in_c_last);
    END IF;
    SELECT c_first, c_credit, c_balance INTO v_first, v_credit, v_balance
      FROM customer WHERE c_w_id = in_c_w_id AND c_d_id = in_c_d_id AND c_id = v_c_id FOR UPDATE;
    -- tpcc-mysql sets c_balance only; for bad credit it reads c_data and writes the same c_data back.
    IF v_credit LIKE '%BC%' THEN
        SELECT c_data INTO v_data FROM customer
         WHERE c_w_id = in_c_w_id AND c_d_id = in_c_d_id AND c_id = v_c_id;
        UPDATE customer SET c_balance = v_balance - in_amount, c_data = v_data
         WHERE c_w_id = in_c_w_id AND c_d_id = in_c_d_id AND c_id = v_c_id;
    ELSE
        UPDATE customer SET c_balance = v_balance - in_amount
         WHERE c_w_id = in_c_w_id AND c_d_id = in_c_d_id AND c_id = v_c_id;
    END IF;
    -- h_data: both names cut to 10 characters, four spaces only when they fill 20 (tpcc-mysql's C).
    SET v_h_data = CONCAT(LEFT(v_w_name, 10), LEFT(v_d_name, 10));
    IF CHAR_LENGTH(v_h_data) = 20 THEN
        SET v_h_data = CONCAT(v_h_data, '    ');
    END IF;
    INSERT INTO history (h_c_d_id, h_c_w_id, h_c_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    VALUES (in_c_d_id, in_c_w_id, v_c_id, in_d_id, in_w_id, in_now, in_amount, v_h_data);
    COMMIT;
END
-- @@
DROP PROCEDURE IF EXISTS pagelab_order_status
-- @@
CREATE PROCEDURE pagelab_order_status(
    IN in_w_id INT, IN in_d_id INT, IN in_c_id INT, IN in_by_last_name INT, IN in_c_last VARCHAR(16))
BEGIN
    DECLARE v_c_id INT DEFAULT in_c_id;
    DECLARE v_read_c_id INT DEFAULT in_c_id;
    DECLARE v_first, v_middle_last VARCHAR(18);
    DECLARE v_balance DECIMAL(12,2);
    DECLARE v_o_id, v_carrier, v_lines INT;
    DECLARE v_entry DATETIME;
    DECLARE v_amount DECIMAL(12,2);
    DECLARE v_delivered DATETIME;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

    START TRANSACTION;
    -- As tpcc-mysql: by name, the middle customer with that name is read, but the last order read
    -- is that of in_c_id (tpcc-mysql's by-name cursor returns no c_id).
    IF in_by_last_name THEN
        SET v_read_c_id = pagelab_customer_by_last_name(in_w_id, in_d_id, in_c_last);
    END IF;
    SELECT c_balance, c_first, CONCAT(c_middle, c_last) INTO v_balance, v_first, v_middle_last
      FROM customer WHERE c_w_id = in_w_id AND c_d_id = in_d_id AND c_id = v_read_c_id;
    SELECT o_id, o_entry_d, o_carrier_id INTO v_o_id, v_entry, v_carrier
      FROM orders WHERE o_w_id = in_w_id AND o_d_id = in_d_id AND o_c_id = v_c_id
     ORDER BY o_id DESC LIMIT 1;
    SELECT COUNT(*), SUM(ol_amount), MAX(ol_delivery_d) INTO v_lines, v_amount, v_delivered
      FROM order_line WHERE ol_w_id = in_w_id AND ol_d_id = in_d_id AND ol_o_id = v_o_id;
    COMMIT;
END
-- @@
DROP PROCEDURE IF EXISTS pagelab_delivery
-- @@
CREATE PROCEDURE pagelab_delivery(IN in_w_id INT, IN in_carrier_id INT, IN in_now DATETIME)
BEGIN
    DECLARE v_d_id INT DEFAULT 1;
    DECLARE v_o_id, v_c_id INT;
    DECLARE v_amount DECIMAL(12,2);
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

    -- As tpcc-mysql: one transaction per district; the oldest new order is read without a lock and
    -- deleted without checking that the delete found it.
    WHILE v_d_id <= 10 DO
        START TRANSACTION;
        SELECT COALESCE(MIN(no_o_id), 0) INTO v_o_id FROM new_orders
         WHERE no_d_id = v_d_id AND no_w_id = in_w_id;
        IF v_o_id <> 0 THEN
            DELETE FROM new_orders WHERE no_o_id = v_o_id AND no_d_id = v_d_id AND no_w_id = in_w_id;
            SELECT o_c_id INTO v_c_id FROM orders WHERE o_id = v_o_id AND o_d_id = v_d_id AND o_w_id = in_w_id;
            UPDATE orders SET o_carrier_id = in_carrier_id
             WHERE o_id = v_o_id AND o_d_id = v_d_id AND o_w_id = in_w_id;
            UPDATE order_line SET ol_delivery_d = in_now
             WHERE ol_o_id = v_o_id AND ol_d_id = v_d_id AND ol_w_id = in_w_id;
            SELECT SUM(ol_amount) INTO v_amount FROM order_line
             WHERE ol_o_id = v_o_id AND ol_d_id = v_d_id AND ol_w_id = in_w_id;
            UPDATE customer SET c_balance = c_balance + COALESCE(v_amount, 0), c_delivery_cnt = c_delivery_cnt + 1
             WHERE c_id = v_c_id AND c_d_id = v_d_id AND c_w_id = in_w_id;
        END IF;
        COMMIT;
        SET v_d_id = v_d_id + 1;
    END WHILE;
END
-- @@
DROP PROCEDURE IF EXISTS pagelab_stock_level
-- @@
CREATE PROCEDURE pagelab_stock_level(IN in_w_id INT, IN in_d_id INT, IN in_threshold INT)
BEGIN
    DECLARE v_next_o_id INT;
    DECLARE v_low_stock INT;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

    START TRANSACTION;
    SELECT d_next_o_id INTO v_next_o_id FROM district WHERE d_w_id = in_w_id AND d_id = in_d_id;
    -- Clause 2.8.2.2: distinct items of the district's last 20 orders below the threshold.
    SELECT COUNT(DISTINCT s_i_id) INTO v_low_stock
      FROM order_line, stock
     WHERE ol_w_id = in_w_id AND ol_d_id = in_d_id
       AND ol_o_id < v_next_o_id AND ol_o_id >= v_next_o_id - 20
       AND s_w_id = in_w_id AND s_i_id = ol_i_id AND s_quantity < in_threshold;
    COMMIT;
END

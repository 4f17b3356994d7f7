-- The five TPC-C transactions (clauses 2.4-2.8) as stored procedures, one CALL per transaction.
--
-- Why procedures: on a 2-core machine the client shares the CPUs with the server. Sent statement
-- by statement, a New-Order costs ~45 round trips, and a Python client would spend more CPU on
-- them than the server spends executing them; one CALL per transaction leaves the CPUs to the
-- server. The rows each transaction reads, locks and writes, and their order, are those of the
-- specification, so the page-level access pattern (what a page-size experiment measures) is the
-- same as tpcc-mysql's client-side statements. The driver creates these at the start of every run;
-- tpcc-mysql's own tpcc_start ignores them, so a database stays drivable by both.
--
-- Conventions: every procedure starts and commits its own transaction; any SQL error rolls back
-- and is re-raised (RESIGNAL), so the driver sees deadlocks (1213) and lock-wait timeouts (1205)
-- and retries the whole CALL. The 1% of New-Orders that name an unused item roll back and raise
-- SQLSTATE 45000 with the message 'pagelab: new-order rolled back' (clause 2.4.2.3), which the
-- driver counts as a completed New-Order, as tpcc-mysql does. Procedures return no result sets:
-- what a terminal would display is read INTO variables, which touches the same rows.
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
    IN in_item_ids VARCHAR(255), IN in_supply_w_ids VARCHAR(255), IN in_quantities VARCHAR(255))
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
    VALUES (v_o_id, in_d_id, in_w_id, in_c_id, NOW(), in_ol_cnt, in_all_local);
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
        -- Clause 2.4.2.2: restock by 91 when fewer than 10 would remain.
        UPDATE stock
           SET s_quantity = IF(v_stock >= v_quantity + 10, v_stock - v_quantity, v_stock - v_quantity + 91),
               s_ytd = s_ytd + v_quantity,
               s_order_cnt = s_order_cnt + 1,
               s_remote_cnt = s_remote_cnt + IF(v_supply = in_w_id, 0, 1)
         WHERE s_i_id = v_item AND s_w_id = v_supply;
        INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
                                ol_quantity, ol_amount, ol_dist_info)
        VALUES (v_o_id, in_d_id, in_w_id, v_line, v_item, v_supply,
                v_quantity, v_quantity * v_price, v_dist_info);
        SET v_line = v_line + 1;
    END WHILE;
    COMMIT;
END
-- @@
DROP PROCEDURE IF EXISTS pagelab_payment
-- @@
CREATE PROCEDURE pagelab_payment(
    IN in_w_id INT, IN in_d_id INT, IN in_c_w_id INT, IN in_c_d_id INT,
    IN in_c_id INT, IN in_by_last_name INT, IN in_c_last VARCHAR(16), IN in_amount DECIMAL(6,2))
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
    IF v_credit = 'BC' THEN
        SELECT c_data INTO v_data FROM customer
         WHERE c_w_id = in_c_w_id AND c_d_id = in_c_d_id AND c_id = v_c_id;
        SET v_data = LEFT(CONCAT_WS(' ', v_c_id, in_c_d_id, in_c_w_id, in_d_id, in_w_id, in_amount, '|', v_data), 500);
        UPDATE customer
           SET c_balance = c_balance - in_amount, c_ytd_payment = c_ytd_payment + in_amount,
               c_payment_cnt = c_payment_cnt + 1, c_data = v_data
         WHERE c_w_id = in_c_w_id AND c_d_id = in_c_d_id AND c_id = v_c_id;
    ELSE
        UPDATE customer
           SET c_balance = c_balance - in_amount, c_ytd_payment = c_ytd_payment + in_amount,
               c_payment_cnt = c_payment_cnt + 1
         WHERE c_w_id = in_c_w_id AND c_d_id = in_c_d_id AND c_id = v_c_id;
    END IF;
    INSERT INTO history (h_c_d_id, h_c_w_id, h_c_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    VALUES (in_c_d_id, in_c_w_id, v_c_id, in_d_id, in_w_id, NOW(), in_amount, CONCAT(v_w_name, '    ', v_d_name));
    COMMIT;
END
-- @@
DROP PROCEDURE IF EXISTS pagelab_order_status
-- @@
CREATE PROCEDURE pagelab_order_status(
    IN in_w_id INT, IN in_d_id INT, IN in_c_id INT, IN in_by_last_name INT, IN in_c_last VARCHAR(16))
BEGIN
    DECLARE v_c_id INT DEFAULT in_c_id;
    DECLARE v_first, v_middle_last VARCHAR(18);
    DECLARE v_balance DECIMAL(12,2);
    DECLARE v_o_id, v_carrier, v_lines INT;
    DECLARE v_entry DATETIME;
    DECLARE v_amount DECIMAL(12,2);
    DECLARE v_delivered DATETIME;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

    START TRANSACTION;
    IF in_by_last_name THEN
        SET v_c_id = pagelab_customer_by_last_name(in_w_id, in_d_id, in_c_last);
    END IF;
    SELECT c_balance, c_first, CONCAT(c_middle, c_last) INTO v_balance, v_first, v_middle_last
      FROM customer WHERE c_w_id = in_w_id AND c_d_id = in_d_id AND c_id = v_c_id;
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
CREATE PROCEDURE pagelab_delivery(IN in_w_id INT, IN in_carrier_id INT)
BEGIN
    DECLARE v_d_id INT DEFAULT 1;
    DECLARE v_o_id, v_c_id INT;
    DECLARE v_amount DECIMAL(12,2);
    DECLARE v_found INT DEFAULT 1;
    DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_found = 0;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

    START TRANSACTION;
    WHILE v_d_id <= 10 DO
        SET v_found = 1;
        -- Clause 2.7.4.2: the oldest undelivered order of the district, if any, is delivered.
        SELECT no_o_id INTO v_o_id FROM new_orders
         WHERE no_w_id = in_w_id AND no_d_id = v_d_id ORDER BY no_o_id LIMIT 1 FOR UPDATE;
        IF v_found = 1 THEN
            DELETE FROM new_orders WHERE no_w_id = in_w_id AND no_d_id = v_d_id AND no_o_id = v_o_id;
            SELECT o_c_id INTO v_c_id FROM orders WHERE o_w_id = in_w_id AND o_d_id = v_d_id AND o_id = v_o_id;
            UPDATE orders SET o_carrier_id = in_carrier_id
             WHERE o_w_id = in_w_id AND o_d_id = v_d_id AND o_id = v_o_id;
            UPDATE order_line SET ol_delivery_d = NOW()
             WHERE ol_w_id = in_w_id AND ol_d_id = v_d_id AND ol_o_id = v_o_id;
            SELECT SUM(ol_amount) INTO v_amount FROM order_line
             WHERE ol_w_id = in_w_id AND ol_d_id = v_d_id AND ol_o_id = v_o_id;
            UPDATE customer SET c_balance = c_balance + v_amount, c_delivery_cnt = c_delivery_cnt + 1
             WHERE c_w_id = in_w_id AND c_d_id = v_d_id AND c_id = v_c_id;
        END IF;
        SET v_d_id = v_d_id + 1;
    END WHILE;
    COMMIT;
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

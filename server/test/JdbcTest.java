// pgjdbc (PostgreSQL's JDBC driver) against `hyrax serve`, run by jdbc_test.sh: connects over TCP
// with a password (SCRAM-SHA-256), creates a table, loads it with CopyManager.copyIn and reads it
// with copyOut, runs PreparedStatements with typed setters and getters (pgjdbc switches to named
// server-side statements after prepareThreshold executions), batches, update counts, errors'
// SQLSTATEs, Statement.cancel() from another thread, and transactions with setAutoCommit(false).
//
// Usage: java -cp <pgjdbc jar>:<classes> JdbcTest <port> <user> <password>
import java.io.StringReader;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.Date;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Properties;

import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;

public class JdbcTest {
  static int passes = 0;
  static List<String> failures = new ArrayList<>();

  static void check(String name, Object expected, Object actual) {
    if (Objects.equals(expected, actual)) {
      passes++;
    } else {
      failures.add(name);
      System.out.println("FAILED: " + name + "\n  expected: " + expected + "\n  actual:   " + actual);
    }
  }

  interface SqlAction {
    void run() throws SQLException;
  }

  // The action must fail with `sqlstate`.
  static void expectError(String name, String sqlstate, SqlAction action) {
    try {
      action.run();
      check(name + " raised", sqlstate, null);
    } catch (SQLException e) {
      check(name, sqlstate, e.getSQLState());
    }
  }

  static List<String> rows(ResultSet rs) throws SQLException {
    List<String> out = new ArrayList<>();
    int n = rs.getMetaData().getColumnCount();
    while (rs.next()) {
      StringBuilder b = new StringBuilder();
      for (int i = 1; i <= n; i++) b.append(i > 1 ? "|" : "").append(rs.getString(i));
      out.add(b.toString());
    }
    return out;
  }

  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    String url = "jdbc:postgresql://127.0.0.1:" + port + "/hyrax";
    try {
      run(url, args[1], args[2]);
    } catch (Exception e) {
      e.printStackTrace(System.out);
      failures.add("exception");
    }
    System.out.println("pgjdbc test: " + passes + " passed, " + failures.size() + " failed");
    System.exit(failures.isEmpty() ? 0 : 1);
  }

  static void run(String url, String user, String password) throws Exception {
    expectError("wrong password refused (28P01)", "28P01", () -> DriverManager.getConnection(url, user, "wrong").close());

    Properties props = new Properties();
    props.setProperty("user", user);
    props.setProperty("password", password);
    props.setProperty("connectTimeout", "10");
    try (Connection c = DriverManager.getConnection(url, props)) {
      check("connected as", user, c.getMetaData().getUserName());
      Statement st = c.createStatement();
      check("CREATE TABLE update count", 0,
            st.executeUpdate("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, price DECIMAL(10, 2), added DATE, "
                             + "weight DOUBLE PRECISION, big BIGINT, ok BOOLEAN, at TIMESTAMP)"));

      // DatabaseMetaData: getTables compares pg_description.classoid with 'pg_class'::regclass,
      // getColumns numbers the columns with row_number() OVER (PARTITION BY ... ORDER BY ...),
      // getPrimaryKeys and getIndexInfo expand conkey (int2[]) and indkey (int2vector) with
      // _pg_expandarray, getIndexInfo also reads indoption[n - 1] & 1.
      DatabaseMetaData md = c.getMetaData();
      try (ResultSet rs = md.getTables(null, null, "items", new String[] {"TABLE"})) {
        check("getTables finds the table", true, rs.next());
        check("getTables: its name", "items", rs.getString("TABLE_NAME"));
        check("getTables: its schema", "public", rs.getString("TABLE_SCHEM"));
        check("getTables: its type", "TABLE", rs.getString("TABLE_TYPE"));
        check("getTables: one table", false, rs.next());
      }
      try (ResultSet rs = md.getTables(null, null, "no_such_table", null)) {
        check("getTables: no other", false, rs.next());
      }
      String[][] columns = {{"id", "int4", "NO"}, {"name", "text", "YES"}, {"price", "numeric", "YES"}, {"added", "date", "YES"},
                            {"weight", "float8", "YES"}, {"big", "int8", "YES"}, {"ok", "bool", "YES"}, {"at", "timestamp", "YES"}};
      try (ResultSet rs = md.getColumns(null, null, "items", null)) {
        for (int i = 0; i < columns.length; ++i) {
          check("getColumns: column " + (i + 1), true, rs.next());
          check("getColumns: name of " + (i + 1), columns[i][0], rs.getString("COLUMN_NAME"));
          check("getColumns: type of " + columns[i][0], columns[i][1], rs.getString("TYPE_NAME"));
          check("getColumns: nullable " + columns[i][0], columns[i][2], rs.getString("IS_NULLABLE"));
          check("getColumns: position of " + columns[i][0], i + 1, rs.getInt("ORDINAL_POSITION"));
        }
        check("getColumns: no more", false, rs.next());
      }
      try (ResultSet rs = md.getColumns(null, null, "items", "price")) {
        check("getColumns of one column", true, rs.next());
        check("getColumns: DECIMAL(10,2)'s size", 10, rs.getInt("COLUMN_SIZE"));
        check("getColumns: its scale", 2, rs.getInt("DECIMAL_DIGITS"));
      }
      st.execute("CREATE TABLE pairs (a INTEGER, b TEXT, c INTEGER, PRIMARY KEY (c, a))");
      try (ResultSet rs = md.getPrimaryKeys(null, null, "pairs")) {
        check("getPrimaryKeys: first", true, rs.next());
        check("getPrimaryKeys: first column", "c", rs.getString("COLUMN_NAME"));
        check("getPrimaryKeys: its place", 1, rs.getInt("KEY_SEQ"));
        check("getPrimaryKeys: the key's name", "pairs_pkey", rs.getString("PK_NAME"));
        check("getPrimaryKeys: second", true, rs.next());
        check("getPrimaryKeys: second column", "a", rs.getString("COLUMN_NAME"));
        check("getPrimaryKeys: its place", 2, rs.getInt("KEY_SEQ"));
        check("getPrimaryKeys: two columns", false, rs.next());
      }
      // Arrays: text at first, PostgreSQL's binary array format once pgjdbc prepares the statement
      // (its fifth run): the same values either way.
      try (PreparedStatement ps = c.prepareStatement("SELECT ARRAY[1, NULL, 3], ARRAY['a', 'b c', NULL], '{}'::int[]")) {
        for (int run = 1; run <= 7; ++run) {
          try (ResultSet rs = ps.executeQuery()) {
            check("array row, run " + run, true, rs.next());
            check("int[] elements, run " + run, "[1, null, 3]", java.util.Arrays.toString((Object[]) rs.getArray(1).getArray()));
            check("text[] elements, run " + run, "[a, b c, null]", java.util.Arrays.toString((Object[]) rs.getArray(2).getArray()));
            check("empty array, run " + run, 0, ((Object[]) rs.getArray(3).getArray()).length);
          }
        }
      }
      st.execute("CREATE INDEX pairs_b ON pairs (b)");
      try (ResultSet rs = md.getIndexInfo(null, null, "pairs", false, false)) {  // unique first, then by name
        String[][] expected = {{"pairs_pkey", "c", "false", "1"}, {"pairs_pkey", "a", "false", "2"}, {"pairs_b", "b", "true", "1"}};
        for (String[] x : expected) {
          check("getIndexInfo: a row for " + x[0] + "." + x[1], true, rs.next());
          check("getIndexInfo: index", x[0], rs.getString("INDEX_NAME"));
          check("getIndexInfo: column", x[1], rs.getString("COLUMN_NAME"));
          check("getIndexInfo: non-unique", Boolean.parseBoolean(x[2]), rs.getBoolean("NON_UNIQUE"));
          check("getIndexInfo: position", Integer.parseInt(x[3]), rs.getInt("ORDINAL_POSITION"));
          check("getIndexInfo: ascending", "A", rs.getString("ASC_OR_DESC"));
        }
        check("getIndexInfo: no more", false, rs.next());
      }

      // CopyManager: COPY FROM STDIN and COPY TO STDOUT.
      CopyManager copy = c.unwrap(PGConnection.class).getCopyAPI();
      String data = "1\tapple\t1.50\t2024-01-02\t0.25\t10000000000\tt\t2024-01-02 03:04:05\n"
                    + "2\t\\N\t2.25\t\\N\t\\N\t\\N\tf\t\\N\n"
                    + "3\ttab\\there\t-3.00\t2023-12-31\t1e+300\t-1\t\\N\t\\N\n";
      check("copyIn row count", 3L, copy.copyIn("COPY items FROM STDIN", new StringReader(data)));
      StringWriter out = new StringWriter();
      check("copyOut row count", 3L, copy.copyOut("COPY (SELECT * FROM items ORDER BY id) TO STDOUT", out));
      check("copyOut data", data, out.toString());
      out = new StringWriter();
      copy.copyOut("COPY items (id, name) TO STDOUT WITH (FORMAT csv)", out);
      check("copyOut csv", 3, out.toString().split("\n").length);
      // COPY as a plain statement goes through the extended protocol: the server answers
      // CopyInResponse at Execute, pgjdbc refuses it (CopyFail) and the session goes on.
      try (Statement s2 = c.createStatement()) {
        s2.execute("COPY items FROM STDIN");
        check("COPY as a statement refused", true, false);
      } catch (SQLException e) {
        check("COPY as a statement: pgjdbc's refusal", true, e.getMessage().contains("CopyManager"));
      }
      try (Statement s2 = c.createStatement(); ResultSet rs = s2.executeQuery("SELECT count(*) FROM items")) {
        check("session goes on after a refused COPY", List.of("3"), rows(rs));
      }
      // LIMIT ? OFFSET ?: BIGINT parameters.
      try (PreparedStatement lim = c.prepareStatement("SELECT id FROM items ORDER BY id LIMIT ? OFFSET ?")) {
        lim.setLong(1, 2);
        lim.setInt(2, 1);
        try (ResultSet rs = lim.executeQuery()) {
          check("LIMIT ? OFFSET ?", List.of("2", "3"), rows(rs));
        }
      }

      // PreparedStatements: typed setters and getters, run past prepareThreshold (5) so pgjdbc
      // switches from unnamed to named server-side statements.
      PreparedStatement sel = c.prepareStatement("SELECT id, name, price, added, weight, big, ok, at FROM items WHERE id = ?");
      for (int round = 0; round < 7; round++) {
        sel.setInt(1, 1);
        try (ResultSet rs = sel.executeQuery()) {
          check("row found, round " + round, true, rs.next());
          check("getInt, round " + round, 1, rs.getInt("id"));
          check("getString, round " + round, "apple", rs.getString("name"));
          check("getBigDecimal, round " + round, new BigDecimal("1.50"), rs.getBigDecimal("price"));
          check("getDate, round " + round, Date.valueOf("2024-01-02"), rs.getDate("added"));
          check("getDouble, round " + round, 0.25, rs.getDouble("weight"));
          check("getLong, round " + round, 10000000000L, rs.getLong("big"));
          check("getBoolean, round " + round, true, rs.getBoolean("ok"));
          check("getTimestamp, round " + round, Timestamp.valueOf("2024-01-02 03:04:05"), rs.getTimestamp("at"));
          check("one row, round " + round, false, rs.next());
        }
      }
      sel.setInt(1, 2);
      try (ResultSet rs = sel.executeQuery()) {
        rs.next();
        check("NULL getString", null, rs.getString("name"));
        rs.getInt("big");
        check("NULL wasNull", true, rs.wasNull());
        check("NULL getDate", null, rs.getDate("added"));
      }

      PreparedStatement ins = c.prepareStatement("INSERT INTO items (id, name, price, added, big, ok) VALUES (?, ?, ?, ?, ?, ?)");
      ins.setInt(1, 10);
      ins.setString(2, "ten");
      ins.setBigDecimal(3, new BigDecimal("10.05"));
      ins.setDate(4, Date.valueOf("2025-06-07"));
      ins.setLong(5, -5L);
      ins.setBoolean(6, false);
      check("executeUpdate INSERT count", 1, ins.executeUpdate());
      ins.setInt(1, 11);
      ins.setNull(2, Types.VARCHAR);
      ins.setNull(3, Types.NUMERIC);
      ins.setNull(4, Types.DATE);
      ins.setNull(5, Types.BIGINT);
      ins.setNull(6, Types.BOOLEAN);
      check("executeUpdate with NULLs", 1, ins.executeUpdate());
      try (ResultSet rs = st.executeQuery("SELECT id, name, price, added, big, ok FROM items WHERE id >= 10 ORDER BY id")) {
        check("inserted rows", List.of("10|ten|10.05|2025-06-07|-5|f", "11|null|null|null|null|null"), rows(rs));
      }

      // setTimestamp (sent with a zone offset, which TIMESTAMP ignores as in PostgreSQL).
      PreparedStatement at = c.prepareStatement("SELECT id FROM items WHERE at = ?");
      at.setTimestamp(1, Timestamp.valueOf("2024-01-02 03:04:05"));
      try (ResultSet rs = at.executeQuery()) {
        check("setTimestamp", List.of("1"), rows(rs));
      }

      // Batches.
      PreparedStatement batch = c.prepareStatement("INSERT INTO items (id, name) VALUES (?, ?)");
      for (int i = 0; i < 20; i++) {
        batch.setInt(1, 100 + i);
        batch.setString(2, "batch " + i);
        batch.addBatch();
      }
      int[] counts = batch.executeBatch();
      int total = 0;
      for (int n : counts) total += n;
      check("executeBatch counts", 20, counts.length);
      check("executeBatch rows", 20, total);
      PreparedStatement upd = c.prepareStatement("UPDATE items SET name = ? WHERE id >= ?");
      upd.setString(1, "updated");
      upd.setInt(2, 110);
      check("executeUpdate UPDATE count", 10, upd.executeUpdate());
      PreparedStatement del = c.prepareStatement("DELETE FROM items WHERE id >= ?");
      del.setInt(1, 100);
      check("executeUpdate DELETE count", 20, del.executeUpdate());
      // Generated keys: pgjdbc adds RETURNING * (or RETURNING "id") to the INSERT, as ORMs ask it.
      st.executeUpdate("CREATE TABLE keyed (id SERIAL PRIMARY KEY, name TEXT)");
      try (PreparedStatement gen = c.prepareStatement("INSERT INTO keyed (name) VALUES (?)", Statement.RETURN_GENERATED_KEYS)) {
        gen.setString(1, "first");
        check("generated keys: update count", 1, gen.executeUpdate());
        try (ResultSet keys = gen.getGeneratedKeys()) {
          check("generated keys: a row", true, keys.next());
          check("generated keys: the serial", 1, keys.getInt("id"));
          check("generated keys: the row's other column", "first", keys.getString("name"));
        }
      }
      try (PreparedStatement gen = c.prepareStatement("INSERT INTO keyed (name) VALUES (?)", new String[] {"id"})) {
        gen.setString(1, "second");
        gen.executeUpdate();
        try (ResultSet keys = gen.getGeneratedKeys()) {
          check("generated keys by name", List.of("2"), rows(keys));
        }
      }
      PreparedStatement cnt = c.prepareStatement("SELECT count(*), sum(price) FROM items WHERE price > ?");
      cnt.setBigDecimal(1, new BigDecimal("0"));
      try (ResultSet rs = cnt.executeQuery()) {
        check("aggregate with a parameter", List.of("3|13.80"), rows(rs));
      }

      // Errors with their SQLSTATE; the connection goes on (autocommit).
      expectError("unique violation 23505", "23505", () -> st.executeUpdate("INSERT INTO items (id) VALUES (1)"));
      expectError("invalid text 22P02", "22P02", () -> st.executeQuery("SELECT CAST('abc' AS INTEGER)"));
      expectError("missing table 42P01", "42P01", () -> c.prepareStatement("SELECT * FROM nowhere").executeQuery());
      expectError("division by zero 22012", "22012", () -> {
        PreparedStatement p = c.prepareStatement("SELECT 1 / ?");
        p.setInt(1, 0);
        p.executeQuery();
      });
      expectError("syntax error 42601", "42601", () -> st.execute("SELEC 1"));
      try (ResultSet rs = st.executeQuery("SELECT count(*) FROM items")) {
        check("connection goes on after errors", List.of("5"), rows(rs));
      }

      // Transactions.
      c.setAutoCommit(false);
      st.executeUpdate("INSERT INTO items (id, name) VALUES (20, 'kept')");
      c.commit();
      st.executeUpdate("INSERT INTO items (id, name) VALUES (21, 'dropped')");
      c.rollback();
      expectError("error inside a transaction", "23505", () -> st.executeUpdate("INSERT INTO items (id) VALUES (20)"));
      expectError("failed transaction refuses statements 25P02", "25P02", () -> st.executeQuery("SELECT 1"));
      c.rollback();
      // Savepoints (pgjdbc sends SAVEPOINT / ROLLBACK TO SAVEPOINT through the extended protocol):
      // an error after one is rolled back to it, and the transaction goes on.
      st.executeUpdate("INSERT INTO items (id, name) VALUES (22, 'before')");
      java.sql.Savepoint sp = c.setSavepoint("sp1");
      st.executeUpdate("INSERT INTO items (id, name) VALUES (23, 'undone')");
      expectError("error after a savepoint", "23505", () -> st.executeUpdate("INSERT INTO items (id) VALUES (22)"));
      c.rollback(sp);
      st.executeUpdate("INSERT INTO items (id, name) VALUES (24, 'after')");
      c.commit();
      try (ResultSet rs = st.executeQuery("SELECT id FROM items WHERE id BETWEEN 22 AND 24 ORDER BY id")) {
        check("rolled back to a savepoint", List.of("22", "24"), rows(rs));
      }
      st.executeUpdate("DELETE FROM items WHERE id BETWEEN 22 AND 24");
      c.commit();
      // A fetch size inside a transaction: pgjdbc reads through a portal in Executes of 2 rows
      // (PortalSuspended between them).
      PreparedStatement fetched = c.prepareStatement("SELECT id FROM items WHERE id > ? ORDER BY id");
      fetched.setFetchSize(2);
      fetched.setInt(1, 0);
      try (ResultSet rs = fetched.executeQuery()) {
        check("rows fetched 2 at a time", List.of("1", "2", "3", "10", "11", "20"), rows(rs));
      }
      c.commit();
      c.setAutoCommit(true);
      try (ResultSet rs = st.executeQuery("SELECT id, name FROM items WHERE id BETWEEN 20 AND 29 ORDER BY id")) {
        check("committed, rolled back", List.of("20|kept"), rows(rs));
      }

      // Statement.cancel() from another thread on a procedure that loops until canceled.
      st.execute("CREATE TABLE spun (a INTEGER)");
      st.execute("CREATE PROCEDURE spin() AS $$ BEGIN LOOP INSERT INTO spun VALUES (0); END LOOP; END $$ LANGUAGE plpgsql");
      Statement spinning = c.createStatement();
      // Canceled each second until it ends: pgjdbc sends no CancelRequest before the statement
      // was sent, and the server drops one that comes before it started (as PostgreSQL).
      java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
      Thread canceler = new Thread(() -> {
        try {
          while (!done.get()) {
            Thread.sleep(1000);
            if (!done.get()) spinning.cancel();
          }
        } catch (Exception e) {
          e.printStackTrace(System.out);
        }
      });
      canceler.start();
      long started = System.nanoTime();
      expectError("cancel 57014", "57014", () -> spinning.execute("CALL spin()"));
      done.set(true);
      canceler.join();
      check("cancel took effect promptly", true, System.nanoTime() - started < 30_000_000_000L);
      try (ResultSet rs = st.executeQuery("SELECT count(*) FROM spun")) {
        check("canceled statement left nothing", List.of("0"), rows(rs));
      }
      try (ResultSet rs = st.executeQuery("SELECT 1")) {
        check("connection goes on after cancel", List.of("1"), rows(rs));
      }
    }
  }
}

package io.sluice.parquet;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/** Reads Parquet files with DuckDB, an independent reader. */
public final class DuckDb {

    private DuckDb() {
    }

    /** Rows of a query; BLOBs come back as byte[]. */
    public static List<Object[]> query(String sql) throws SQLException {
        try (Connection connection = DriverManager.getConnection("jdbc:duckdb:");
             Statement statement = connection.createStatement();
             ResultSet rs = statement.executeQuery(sql)) {
            int columns = rs.getMetaData().getColumnCount();
            List<Object[]> rows = new ArrayList<>();
            while (rs.next()) {
                Object[] row = new Object[columns];
                for (int i = 0; i < columns; i++) {
                    row[i] = rs.getMetaData().getColumnTypeName(i + 1).equals("BLOB") ? rs.getBytes(i + 1) : rs.getObject(i + 1);
                }
                rows.add(row);
            }
            return rows;
        }
    }
}

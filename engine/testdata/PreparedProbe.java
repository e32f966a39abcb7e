import java.sql.*;

/** Connects with MariaDB Connector/J using server-side prepared statements
 *  and reads a table through a parameterised query. Args: port db table. */
public class PreparedProbe {
    public static void main(String[] args) throws Exception {
        String url = "jdbc:mariadb://127.0.0.1:" + args[0] + "/" + args[1] + "?user=root&useServerPrepStmts=true";
        try (Connection c = DriverManager.getConnection(url)) {
            DatabaseMetaData md = c.getMetaData();
            try (ResultSet rs = md.getColumns(args[1], null, args[2], null)) {
                StringBuilder sb = new StringBuilder("columns:");
                while (rs.next()) sb.append(" ").append(rs.getString("COLUMN_NAME"));
                System.out.println(sb);
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT a, b FROM " + args[2] + " WHERE a >= ? ORDER BY a")) {
                ps.setInt(1, 2);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) System.out.println("row: " + rs.getInt(1) + "|" + rs.getString(2));
                }
            }
        }
    }
}

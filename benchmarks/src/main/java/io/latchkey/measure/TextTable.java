package io.latchkey.measure;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * A plain-text table for terminals and logs: a header row, data rows, optional separator rows;
 * the first column left-aligned, the others right-aligned, columns two spaces apart. Not
 * thread-safe; build it on one thread and print it.
 */
public final class TextTable {

    private static final List<String> SEPARATOR = Collections.emptyList();

    private final List<String> header;
    private final List<List<String>> rows = new ArrayList<>();

    /** @param header the column titles, at least one */
    public TextTable(String... header) {
        if (header.length == 0) {
            throw new IllegalArgumentException("a table needs at least one column");
        }
        this.header = List.of(header);
    }

    /**
     * @param cells one value per column; missing trailing cells print empty
     * @return this table
     * @throws IllegalArgumentException if there are more cells than columns
     */
    public TextTable row(String... cells) {
        if (cells.length > header.size()) {
            throw new IllegalArgumentException(cells.length + " cells for " + header.size() + " columns");
        }
        rows.add(List.of(cells));
        return this;
    }

    /** @return this table, with a line drawn under the rows so far */
    public TextTable separator() {
        rows.add(SEPARATOR);
        return this;
    }

    /**
     * @param indent spaces before each line
     * @return the table, one line per row, each ending with a line break
     */
    public String render(int indent) {
        int[] widths = new int[header.size()];
        measure(header, widths);
        rows.forEach(row -> measure(row, widths));
        int total = (widths.length - 1) * 2;
        for (int width : widths) {
            total += width;
        }
        String pad = " ".repeat(indent);
        StringBuilder out = new StringBuilder();
        line(out, pad, header, widths);
        out.append(pad).append("-".repeat(total)).append('\n');
        for (List<String> row : rows) {
            if (row == SEPARATOR) {
                out.append(pad).append("-".repeat(total)).append('\n');
            } else {
                line(out, pad, row, widths);
            }
        }
        return out.toString();
    }

    @Override
    public String toString() {
        return render(0);
    }

    private static void measure(List<String> row, int[] widths) {
        for (int i = 0; i < row.size(); i++) {
            widths[i] = Math.max(widths[i], row.get(i).length());
        }
    }

    private static void line(StringBuilder out, String pad, List<String> row, int[] widths) {
        StringBuilder line = new StringBuilder(pad);
        for (int i = 0; i < widths.length; i++) {
            String cell = i < row.size() ? row.get(i) : "";
            if (i > 0) {
                line.append("  ");
            }
            if (i == 0) {
                line.append(cell).append(" ".repeat(widths[i] - cell.length()));
            } else {
                line.append(" ".repeat(widths[i] - cell.length())).append(cell);
            }
        }
        out.append(line.toString().stripTrailing()).append('\n');
    }

    /**
     * @param value a count or rate
     * @return the value rounded to a whole number with thousands separators, such as {@code 12,345}
     */
    public static String count(double value) {
        return String.format(Locale.ROOT, "%,.0f", value);
    }

    /**
     * @param nanos a duration in nanoseconds
     * @return it in milliseconds with a precision that suits its size, such as {@code 0.412 ms} or {@code 125 ms}
     */
    public static String millis(double nanos) {
        double ms = nanos / 1e6;
        if (ms < 1) {
            return String.format(Locale.ROOT, "%.3f ms", ms);
        }
        if (ms < 100) {
            return String.format(Locale.ROOT, "%.1f ms", ms);
        }
        return String.format(Locale.ROOT, "%,.0f ms", ms);
    }
}
